//! The rules, one query block at a time.

use std::collections::BTreeSet;

use sqlparser::ast::{
    Distinct, Expr, GroupByExpr, LimitClause, OrderByKind, Query, Select, SelectItem, SetExpr,
};

use super::exprs::{as_col_ref, as_u64, facts, ColRef};
use super::probe;
use super::scope::{Col, Resolved, Scope};
use super::{NondetRule, StaticFinding};
use crate::schema::SchemaInfo;

/// LIMIT n (None when absent or not a literal) and OFFSET o (0 when absent).
pub(crate) fn limit_offset(q: &Query) -> (Option<u64>, u64, bool) {
    match &q.limit_clause {
        None => (None, 0, false),
        Some(LimitClause::LimitOffset { limit, offset, .. }) => (
            limit.as_ref().and_then(as_u64),
            offset.as_ref().and_then(|o| as_u64(&o.value)).unwrap_or(0),
            limit.is_some() || offset.is_some(),
        ),
        Some(LimitClause::OffsetCommaLimit { offset, limit }) => {
            (as_u64(limit), as_u64(offset).unwrap_or(0), true)
        }
    }
}

pub(crate) fn order_exprs(q: &Query) -> Vec<Expr> {
    match q.order_by.as_ref().map(|o| &o.kind) {
        Some(OrderByKind::Expressions(v)) => v.iter().map(|o| o.expr.clone()).collect(),
        _ => Vec::new(),
    }
}

/// The select list as (expression, alias); `None` when it has a wildcard.
fn projection(s: &Select) -> Option<Vec<(Expr, Option<String>)>> {
    s.projection
        .iter()
        .map(|p| match p {
            SelectItem::UnnamedExpr(e) => Some((e.clone(), None)),
            SelectItem::ExprWithAlias { expr, alias } => {
                Some((expr.clone(), Some(alias.value.to_ascii_lowercase())))
            }
            _ => None,
        })
        .collect()
}

/// A select list with wildcards, expanded to the columns of the scope's
/// tables; `None` when a table's columns are unknown.
fn expand_wildcards(s: &Select, scope: &Scope) -> Option<Vec<(Expr, Option<String>)>> {
    use sqlparser::ast::Ident;
    let mut out = Vec::new();
    for p in &s.projection {
        match p {
            SelectItem::UnnamedExpr(e) => out.push((e.clone(), None)),
            SelectItem::ExprWithAlias { expr, alias } => {
                out.push((expr.clone(), Some(alias.value.to_ascii_lowercase())))
            }
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => {
                let only = match p {
                    SelectItem::QualifiedWildcard(k, _) => Some(k.to_string().to_ascii_lowercase()),
                    _ => None,
                };
                for t in &scope.tables {
                    if only
                        .as_ref()
                        .is_some_and(|o| o.trim_end_matches(".*").trim_matches('"') != t.name)
                    {
                        continue;
                    }
                    for c in &t.info?.columns {
                        out.push((
                            Expr::CompoundIdentifier(vec![Ident::new(&t.name), Ident::new(c)]),
                            None,
                        ));
                    }
                }
            }
            _ => return None,
        }
    }
    Some(out)
}

/// ORDER BY keys with select-list aliases and positions replaced by the
/// expressions they name (SQLite resolves an alias first).
pub(crate) fn resolve_keys(keys: &[Expr], proj: &[(Expr, Option<String>)]) -> Vec<Expr> {
    keys.iter()
        .map(|k| {
            if let Expr::Identifier(i) = k {
                let n = i.value.to_ascii_lowercase();
                if let Some((e, _)) = proj.iter().find(|(_, a)| a.as_deref() == Some(&n)) {
                    return e.clone();
                }
            }
            if let Some(n) = as_u64(k) {
                if n >= 1 && (n as usize) <= proj.len() {
                    return proj[n as usize - 1].0.clone();
                }
            }
            k.clone()
        })
        .collect()
}

/// A canonical text for structural comparison of expressions: a column is
/// its resolved table index and name.
fn canon(e: &Expr, scope: &Scope) -> String {
    if let Some(c) = as_col_ref(e) {
        if let Resolved::Col((i, n)) = scope.resolve(&c) {
            return format!("#{i}.{n}");
        }
    }
    e.to_string().to_ascii_lowercase()
}

fn resolved_cols(refs: &[ColRef], scope: &Scope) -> Vec<Col> {
    refs.iter()
        .filter_map(|c| match scope.resolve(c) {
            Resolved::Col(col) => Some(col),
            _ => None,
        })
        .collect()
}

/// The canonical texts [`canon`] of `e` as written and with its casts to
/// floating-point types removed: `sum(CAST(x AS float))` takes one value
/// wherever `sum(x)` does (a float cast keeps each value and sum, avg,
/// min and max commute with it), so a key `sum(x)` determines it.
fn canon_forms(e: &Expr, scope: &Scope) -> [String; 2] {
    let mut stripped = e.clone();
    let _ = sqlparser::ast::visit_expressions_mut(&mut stripped, |x| {
        if let Expr::Cast {
            expr: inner,
            data_type,
            ..
        } = x
        {
            if is_float_type(data_type) {
                *x = (**inner).clone();
            }
        }
        std::ops::ControlFlow::<()>::Continue(())
    });
    [canon(e, scope), canon(&stripped, scope)]
}

fn is_float_type(t: &sqlparser::ast::DataType) -> bool {
    use sqlparser::ast::DataType as T;
    matches!(
        t,
        T::Float(_)
            | T::Real
            | T::Double(_)
            | T::DoublePrecision
            | T::Float4
            | T::Float8
            | T::Float32
            | T::Float64
    )
}

/// Does `e` take a single value once the columns `d` (and the expressions
/// `known`) are fixed? A cast or parentheses around such an expression
/// does too.
fn expr_determined(e: &Expr, scope: &Scope, d: &BTreeSet<Col>, known: &BTreeSet<String>) -> bool {
    if canon_forms(e, scope).iter().any(|c| known.contains(c)) {
        return true;
    }
    if let Expr::Cast { expr: inner, .. } | Expr::Nested(inner) = e {
        return expr_determined(inner, scope, d, known);
    }
    let f = facts(e);
    !f.has_aggregate && f.bare.iter().all(|c| scope.determined(c, d))
}

struct Block<'a, 's> {
    s: &'a Select,
    scope: Scope<'s>,
    proj: Vec<(Expr, Option<String>)>,
    group: Vec<Expr>,
    /// The block aggregates without GROUP BY: one row.
    single_row: bool,
}

impl Block<'_, '_> {
    /// Do the sort keys determine the block's output row? Then tied rows
    /// are identical and a tie is not observable.
    fn keys_determine_output(&self, keys: &[Expr]) -> bool {
        if self.single_row {
            return true;
        }
        let known: BTreeSet<String> = keys
            .iter()
            .flat_map(|k| canon_forms(k, &self.scope))
            .collect();
        let key_refs: Vec<ColRef> = keys
            .iter()
            .filter_map(|k| {
                if facts(k).has_aggregate {
                    None
                } else {
                    Some(facts(k).bare)
                }
            })
            .flatten()
            .collect();
        let d = self.scope.closure(resolved_cols(&key_refs, &self.scope));
        if !self.group.is_empty() {
            // One row per group: the groups determined means every column is.
            if self
                .group
                .iter()
                .all(|g| expr_determined(g, &self.scope, &d, &known))
            {
                return true;
            }
        }
        self.proj
            .iter()
            .all(|(e, _)| expr_determined(e, &self.scope, &d, &known))
    }
}

pub(crate) fn check_query(q: &Query, top: bool, schema: &SchemaInfo, out: &mut Vec<StaticFinding>) {
    let (limit, offset, has_limit) = limit_offset(q);
    let keys = order_exprs(q);
    let block_sql = q.to_string();
    let push = |out: &mut Vec<StaticFinding>, rule, detail: String, probe| {
        out.push(StaticFinding {
            rule,
            top_level: top,
            block: block_sql.clone(),
            detail,
            probe,
        })
    };
    let SetExpr::Select(s) = q.body.as_ref() else {
        // A set operation (or parenthesised query) with ORDER BY … LIMIT:
        // its sort key is not provably unique; no probe is built.
        if has_limit && !keys.is_empty() {
            if let Some(n) = limit {
                let rule = if n == 1 {
                    NondetRule::LimitTie1
                } else {
                    NondetRule::LimitTieN
                };
                push(
                    out,
                    rule,
                    format!("set operation ordered by {} LIMIT {n}", join(&keys)),
                    None,
                );
            }
        } else if has_limit && keys.is_empty() && !matches!(q.body.as_ref(), SetExpr::Query(_)) {
            let cut = limit.unwrap_or(0) + offset;
            push(
                out,
                NondetRule::LimitWithoutOrder,
                "set operation with LIMIT, no ORDER BY".into(),
                Some(probe::unlimited(q, cut)),
            );
        }
        return;
    };
    let scope = Scope::new(s, schema);
    // `SELECT *` / `t.*`: the columns of the tables, from the schema.
    let Some(proj) = projection(s).or_else(|| expand_wildcards(s, &scope)) else {
        if has_limit && keys.is_empty() {
            let cut = limit.unwrap_or(0) + offset;
            push(
                out,
                NondetRule::LimitWithoutOrder,
                "LIMIT without ORDER BY".into(),
                Some(probe::unlimited(q, cut)),
            );
        }
        return;
    };
    let group = match &s.group_by {
        GroupByExpr::Expressions(v, _) => v.clone(),
        GroupByExpr::All(_) => Vec::new(),
    };
    let proj_aggregates = proj.iter().any(|(e, _)| facts(e).has_aggregate)
        || s.having.as_ref().is_some_and(|h| facts(h).has_aggregate);
    let block = Block {
        s,
        scope,
        single_row: group.is_empty() && proj_aggregates,
        proj,
        group,
    };
    let rkeys = resolve_keys(&keys, &block.proj);

    // LIMIT rules.
    if has_limit && !block.single_row {
        if keys.is_empty() {
            let cut = limit.unwrap_or(0) + offset;
            push(
                out,
                NondetRule::LimitWithoutOrder,
                "LIMIT without ORDER BY".into(),
                Some(probe::unlimited(q, cut)),
            );
        } else if let Some(n) = limit {
            if !block.keys_determine_output(&rkeys) {
                let rule = if n == 1 {
                    NondetRule::LimitTie1
                } else {
                    NondetRule::LimitTieN
                };
                push(
                    out,
                    rule,
                    format!(
                        "sort key ({}) does not determine the row; LIMIT {n}",
                        join(&rkeys)
                    ),
                    probe::ordered(q, &rkeys, Some(n + offset), block.proj.len()),
                );
            }
        }
    }

    // GROUP BY with undetermined bare columns.
    if !block.group.is_empty() {
        let bad = bare_group_columns(&block, &rkeys);
        if !bad.is_empty() {
            push(
                out,
                NondetRule::GroupByBareColumn,
                format!(
                    "{} not determined by GROUP BY {}",
                    join(&bad),
                    join(&block.group)
                ),
                probe::spread(q, s, &block.group, &bad, true),
            );
        }
    } else if block.single_row {
        // Aggregates with bare columns, no GROUP BY.
        let d = block.scope.closure(std::iter::empty());
        let mut bad: Vec<Expr> = Vec::new();
        for (e, _) in &block.proj {
            for c in facts(e).bare {
                if !block.scope.determined(&c, &d) {
                    let ce = col_expr(&c);
                    if !bad.contains(&ce) {
                        bad.push(ce);
                    }
                }
            }
        }
        if !bad.is_empty() {
            push(
                out,
                NondetRule::AggregateBareColumn,
                format!("{} beside aggregates without GROUP BY", join(&bad)),
                probe::spread(q, s, &[], &bad, true),
            );
        }
    }

    // DISTINCT with ORDER BY on what the select list does not determine.
    let mut distinct_fired = false;
    if matches!(s.distinct, Some(Distinct::Distinct)) && !rkeys.is_empty() && block.group.is_empty()
    {
        let proj_refs: Vec<ColRef> = block.proj.iter().flat_map(|(e, _)| facts(e).bare).collect();
        let d = block.scope.closure(resolved_cols(&proj_refs, &block.scope));
        let known: BTreeSet<String> = block
            .proj
            .iter()
            .map(|(e, _)| canon(e, &block.scope))
            .collect();
        let bad: Vec<Expr> = rkeys
            .iter()
            .filter(|k| !expr_determined(k, &block.scope, &d, &known))
            .cloned()
            .collect();
        if !bad.is_empty() {
            distinct_fired = true;
            let pexprs: Vec<Expr> = block.proj.iter().map(|(e, _)| e.clone()).collect();
            push(
                out,
                NondetRule::DistinctOrderBy,
                format!(
                    "ORDER BY {} not determined by the DISTINCT select list",
                    join(&bad)
                ),
                probe::spread(q, s, &pexprs, &bad, false),
            );
        }
    }

    // A top-level ORDER BY (no LIMIT) that leaves the row order partial.
    if top
        && !has_limit
        && !rkeys.is_empty()
        && !distinct_fired
        && !block.keys_determine_output(&rkeys)
    {
        push(
            out,
            NondetRule::OrderByPartial,
            format!(
                "sort key ({}) does not determine the row order",
                join(&rkeys)
            ),
            probe::ordered(q, &rkeys, None, block.proj.len()),
        );
    }
}

/// Bare SELECT/HAVING/ORDER BY columns the GROUP BY keys do not determine.
fn bare_group_columns(block: &Block, rkeys: &[Expr]) -> Vec<Expr> {
    let group_refs: Vec<ColRef> = block.group.iter().flat_map(|g| facts(g).bare).collect();
    let d = block
        .scope
        .closure(resolved_cols(&group_refs, &block.scope));
    let known: BTreeSet<String> = block.group.iter().map(|g| canon(g, &block.scope)).collect();
    let mut exprs: Vec<&Expr> = block.proj.iter().map(|(e, _)| e).collect();
    exprs.extend(block.s.having.iter());
    exprs.extend(rkeys.iter());
    let mut bad: Vec<Expr> = Vec::new();
    for e in exprs {
        if known.contains(&canon(e, &block.scope)) {
            continue;
        }
        for c in facts(e).bare {
            if !block.scope.determined(&c, &d) {
                let ce = col_expr(&c);
                if !bad.contains(&ce) {
                    bad.push(ce);
                }
            }
        }
    }
    bad
}

/// The bare columns of the outermost block's GROUP BY that its keys do not
/// determine (`None` when there are none): what the tie-inclusive rewrite
/// adds to the GROUP BY.
pub(crate) fn group_bare_columns(q: &Query, schema: &SchemaInfo) -> Option<Vec<Expr>> {
    let SetExpr::Select(s) = q.body.as_ref() else {
        return None;
    };
    let proj = projection(s)?;
    let group = match &s.group_by {
        GroupByExpr::Expressions(v, _) if !v.is_empty() => v.clone(),
        _ => return None,
    };
    let rkeys = resolve_keys(&order_exprs(q), &proj);
    let block = Block {
        s,
        scope: Scope::new(s, schema),
        proj,
        group,
        single_row: false,
    };
    let bad = bare_group_columns(&block, &rkeys);
    (!bad.is_empty()).then_some(bad)
}

pub(crate) fn col_expr(c: &ColRef) -> Expr {
    use sqlparser::ast::Ident;
    match &c.qualifier {
        Some(q) => Expr::CompoundIdentifier(vec![Ident::new(q), Ident::new(&c.name)]),
        None => Expr::Identifier(Ident::new(&c.name)),
    }
}

fn join(es: &[Expr]) -> String {
    es.iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
