//! The rules, one query block at a time.

use std::collections::BTreeSet;

use sqlparser::ast::{
    Distinct, Expr, GroupByExpr, LimitClause, Query, Select, SelectItem, SetExpr,
};

use crate::probe;
use crate::scope::{Col, Resolved, Scope};
use crate::{NondetRule, Probe, StaticFinding};
use sqlwitness_sql::{as_col_ref, as_u64, col_expr, expr_facts, order_exprs, ColRef, SchemaInfo};

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
    let f = expr_facts(e);
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

impl<'a, 's> Block<'a, 's> {
    /// The block of `s`, its wildcards expanded from the schema; `None`
    /// when a wildcard's table has no known columns.
    fn of(s: &'a Select, schema: &'s SchemaInfo) -> Option<Block<'a, 's>> {
        let scope = Scope::new(s, schema);
        // `SELECT *` / `t.*`: the columns of the tables, from the schema.
        let proj = projection(s).or_else(|| expand_wildcards(s, &scope))?;
        let group = match &s.group_by {
            GroupByExpr::Expressions(v, _) => v.clone(),
            GroupByExpr::All(_) => Vec::new(),
        };
        let proj_aggregates = proj.iter().any(|(e, _)| expr_facts(e).has_aggregate)
            || s.having
                .as_ref()
                .is_some_and(|h| expr_facts(h).has_aggregate);
        Some(Block {
            s,
            scope,
            single_row: group.is_empty() && proj_aggregates,
            proj,
            group,
        })
    }
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
                if expr_facts(k).has_aggregate {
                    None
                } else {
                    Some(expr_facts(k).bare)
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

/// A query block's LIMIT and OFFSET ([`limit_offset`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Window {
    /// LIMIT n, `None` when absent or not a literal.
    limit: Option<u64>,
    /// OFFSET o, 0 when absent.
    offset: u64,
    /// The block has a LIMIT or an OFFSET.
    present: bool,
}

impl Window {
    fn of(q: &Query) -> Window {
        let (limit, offset, present) = limit_offset(q);
        Window {
            limit,
            offset,
            present,
        }
    }

    /// The rows up to the end of the window (a LIMIT that is not a
    /// literal counts 0).
    fn cut(self) -> u64 {
        self.limit.unwrap_or(0) + self.offset
    }
}

/// The rule of a sort key that does not determine the row under `LIMIT n`.
fn tie_rule(n: u64) -> NondetRule {
    if n == 1 {
        NondetRule::LimitTie1
    } else {
        NondetRule::LimitTieN
    }
}

/// Where one block's findings go: each names the block and whether it is
/// the statement's outermost.
struct Findings<'o> {
    top: bool,
    block: String,
    out: &'o mut Vec<StaticFinding>,
}

impl Findings<'_> {
    fn push(&mut self, rule: NondetRule, detail: String, probe: Option<Probe>) {
        self.out.push(StaticFinding {
            rule,
            top_level: self.top,
            block: self.block.clone(),
            detail,
            probe,
        })
    }
}

pub(crate) fn check_query(q: &Query, top: bool, schema: &SchemaInfo, out: &mut Vec<StaticFinding>) {
    let window = Window::of(q);
    let keys = order_exprs(q);
    let mut found = Findings {
        top,
        block: q.to_string(),
        out,
    };
    let SetExpr::Select(s) = q.body.as_ref() else {
        check_set_operation(&mut found, q, &keys, window);
        return;
    };
    let Some(block) = Block::of(s, schema) else {
        if window.present && keys.is_empty() {
            found.push(
                NondetRule::LimitWithoutOrder,
                "LIMIT without ORDER BY".into(),
                Some(probe::unlimited(q, window.cut())),
            );
        }
        return;
    };
    let rkeys = resolve_keys(&keys, &block.proj);
    if window.present && !block.single_row {
        check_limit(&mut found, q, &block, &rkeys, window);
    }
    check_bare_columns(&mut found, q, &block, &rkeys);
    let distinct_fired = check_distinct_order(&mut found, q, &block, &rkeys);
    // A top-level ORDER BY (no LIMIT) that leaves the row order partial.
    if top
        && !window.present
        && !rkeys.is_empty()
        && !distinct_fired
        && !block.keys_determine_output(&rkeys)
    {
        found.push(
            NondetRule::OrderByPartial,
            format!(
                "sort key ({}) does not determine the row order",
                join(&rkeys)
            ),
            probe::ordered(q, &rkeys, None, block.proj.len()),
        );
    }
}

/// A set operation (or parenthesised query) with ORDER BY … LIMIT: its
/// sort key is not provably unique; no probe is built. With LIMIT and no
/// ORDER BY, which rows come is free.
fn check_set_operation(found: &mut Findings, q: &Query, keys: &[Expr], window: Window) {
    if window.present && !keys.is_empty() {
        if let Some(n) = window.limit {
            found.push(
                tie_rule(n),
                format!("set operation ordered by {} LIMIT {n}", join(keys)),
                None,
            );
        }
    } else if window.present && keys.is_empty() && !matches!(q.body.as_ref(), SetExpr::Query(_)) {
        found.push(
            NondetRule::LimitWithoutOrder,
            "set operation with LIMIT, no ORDER BY".into(),
            Some(probe::unlimited(q, window.cut())),
        );
    }
}

/// The LIMIT rules of a block of several rows: LIMIT without ORDER BY, or
/// with a sort key that does not determine the row.
fn check_limit(found: &mut Findings, q: &Query, block: &Block, rkeys: &[Expr], window: Window) {
    if rkeys.is_empty() {
        found.push(
            NondetRule::LimitWithoutOrder,
            "LIMIT without ORDER BY".into(),
            Some(probe::unlimited(q, window.cut())),
        );
    } else if let Some(n) = window.limit {
        if !block.keys_determine_output(rkeys) {
            found.push(
                tie_rule(n),
                format!(
                    "sort key ({}) does not determine the row; LIMIT {n}",
                    join(rkeys)
                ),
                probe::ordered(q, rkeys, Some(n + window.offset), block.proj.len()),
            );
        }
    }
}

/// GROUP BY with undetermined bare columns; aggregates beside bare
/// columns without GROUP BY.
fn check_bare_columns(found: &mut Findings, q: &Query, block: &Block, rkeys: &[Expr]) {
    if !block.group.is_empty() {
        let bad = bare_group_columns(block, rkeys);
        if !bad.is_empty() {
            found.push(
                NondetRule::GroupByBareColumn,
                format!(
                    "{} not determined by GROUP BY {}",
                    join(&bad),
                    join(&block.group)
                ),
                probe::spread(q, block.s, &block.group, &bad, true),
            );
        }
    } else if block.single_row {
        let bad = aggregate_bare_columns(block);
        if !bad.is_empty() {
            found.push(
                NondetRule::AggregateBareColumn,
                format!("{} beside aggregates without GROUP BY", join(&bad)),
                probe::spread(q, block.s, &[], &bad, true),
            );
        }
    }
}

/// DISTINCT with ORDER BY on what the select list does not determine;
/// whether the rule fired.
fn check_distinct_order(found: &mut Findings, q: &Query, block: &Block, rkeys: &[Expr]) -> bool {
    if !matches!(block.s.distinct, Some(Distinct::Distinct))
        || rkeys.is_empty()
        || !block.group.is_empty()
    {
        return false;
    }
    let bad = distinct_undetermined_keys(block, rkeys);
    if bad.is_empty() {
        return false;
    }
    let pexprs: Vec<Expr> = block.proj.iter().map(|(e, _)| e.clone()).collect();
    found.push(
        NondetRule::DistinctOrderBy,
        format!(
            "ORDER BY {} not determined by the DISTINCT select list",
            join(&bad)
        ),
        probe::spread(q, block.s, &pexprs, &bad, false),
    );
    true
}

/// The bare select-list columns of a block without GROUP BY that nothing
/// fixes (a WHERE equality to a constant does).
fn aggregate_bare_columns(block: &Block) -> Vec<Expr> {
    let d = block.scope.closure(std::iter::empty());
    let mut bad: Vec<Expr> = Vec::new();
    for (e, _) in &block.proj {
        for c in expr_facts(e).bare {
            if !block.scope.determined(&c, &d) {
                push_new(&mut bad, col_expr(&c));
            }
        }
    }
    bad
}

/// The sort keys the DISTINCT select list does not determine.
fn distinct_undetermined_keys(block: &Block, rkeys: &[Expr]) -> Vec<Expr> {
    let proj_refs: Vec<ColRef> = block
        .proj
        .iter()
        .flat_map(|(e, _)| expr_facts(e).bare)
        .collect();
    let d = block.scope.closure(resolved_cols(&proj_refs, &block.scope));
    let known: BTreeSet<String> = block
        .proj
        .iter()
        .map(|(e, _)| canon(e, &block.scope))
        .collect();
    rkeys
        .iter()
        .filter(|k| !expr_determined(k, &block.scope, &d, &known))
        .cloned()
        .collect()
}

/// Adds `e` to `list` unless it is there already.
fn push_new(list: &mut Vec<Expr>, e: Expr) {
    if !list.contains(&e) {
        list.push(e);
    }
}

/// Bare SELECT/HAVING/ORDER BY columns the GROUP BY keys do not determine.
fn bare_group_columns(block: &Block, rkeys: &[Expr]) -> Vec<Expr> {
    let group_refs: Vec<ColRef> = block
        .group
        .iter()
        .flat_map(|g| expr_facts(g).bare)
        .collect();
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
        for c in expr_facts(e).bare {
            if !block.scope.determined(&c, &d) {
                push_new(&mut bad, col_expr(&c));
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

fn join(es: &[Expr]) -> String {
    es.iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::ast::Statement;

    fn query(sql: &str) -> Query {
        let statements = sqlwitness_sql::parse_in(sql, sqlwitness_sql::SQLITE_ONLY).unwrap();
        let [Statement::Query(q)] = statements.as_slice() else {
            panic!("{sql}")
        };
        (**q).clone()
    }

    fn select(q: &Query) -> &Select {
        let SetExpr::Select(s) = q.body.as_ref() else {
            panic!("{q}")
        };
        s
    }

    /// `f` applied to the block of `sql`'s outermost SELECT and its
    /// resolved sort keys.
    fn with_block<T>(sql: &str, f: impl Fn(&Block, &[Expr]) -> T) -> T {
        let schema = crate::tests::schema();
        let q = query(sql);
        let block = Block::of(select(&q), &schema).unwrap();
        let rkeys = resolve_keys(&order_exprs(&q), &block.proj);
        f(&block, &rkeys)
    }

    #[test]
    fn limit_one_is_its_own_rule() {
        assert_eq!(tie_rule(1), NondetRule::LimitTie1);
        assert_eq!(tie_rule(3), NondetRule::LimitTieN);
    }

    #[test]
    fn the_window_ends_after_limit_and_offset() {
        let w = Window::of(&query("SELECT 1 LIMIT 2 OFFSET 3"));
        assert_eq!((w.present, w.cut()), (true, 5));
        let w = Window::of(&query("SELECT 1 LIMIT (SELECT 2)"));
        assert_eq!((w.limit, w.present, w.cut()), (None, true, 0));
        assert!(!Window::of(&query("SELECT 1")).present);
    }

    /// Aggregates without GROUP BY make one row; a wildcard over an
    /// unknown table gives no block.
    #[test]
    fn a_block_knows_when_it_is_one_row() {
        assert!(with_block("SELECT max(age) FROM singer", |b, _| b.single_row));
        assert!(with_block(
            "SELECT 1 FROM singer HAVING count(*) > 1",
            |b, _| b.single_row
        ));
        assert!(!with_block(
            "SELECT max(age) FROM singer GROUP BY country",
            |b, _| b.single_row
        ));
        let proj = with_block("SELECT * FROM singer", |b, _| {
            join(&b.proj.iter().map(|(e, _)| e.clone()).collect::<Vec<_>>())
        });
        assert_eq!(
            proj,
            "singer.singer_id, singer.name, singer.age, singer.country"
        );
        let schema = crate::tests::schema();
        let q = query("SELECT * FROM elsewhere");
        assert!(Block::of(select(&q), &schema).is_none());
    }

    #[test]
    fn bare_columns_beside_aggregates_unless_fixed() {
        let bad = |sql| with_block(sql, |b, _| join(&aggregate_bare_columns(b)));
        assert_eq!(
            bad("SELECT name, age, max(age), name FROM singer"),
            "name, age"
        );
        assert_eq!(
            bad("SELECT name, count(*) FROM singer WHERE singer_id = 3"),
            ""
        );
    }

    #[test]
    fn distinct_keys_the_select_list_does_not_determine() {
        let bad = |sql| with_block(sql, |b, k| join(&distinct_undetermined_keys(b, k)));
        assert_eq!(
            bad("SELECT DISTINCT country FROM singer ORDER BY age, country"),
            "age"
        );
        assert_eq!(
            bad("SELECT DISTINCT singer_id FROM singer ORDER BY age"),
            ""
        );
        assert_eq!(
            bad("SELECT DISTINCT country AS c FROM singer ORDER BY c"),
            ""
        );
    }
}
