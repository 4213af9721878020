//! Enumerating and applying mutation sites with sqlparser's `VisitorMut`.
//!
//! One walk with no target collects every site `(kind, description)` in
//! visitor order; a walk with target `i` rebuilds the same alternatives and
//! replaces the node at site `i`, then stops.

use std::ops::ControlFlow;

use sqlparser::ast::{
    BinaryOperator, DuplicateTreatment, Expr, FunctionArg, FunctionArgExpr, FunctionArguments,
    Ident, JoinOperator, LimitClause, ObjectName, ObjectNamePart, OrderByKind, OrderBySort, Query,
    Select, SelectItem, Statement, TableFactor, Value, VisitMut, VisitorMut,
};

use super::{MutationKind as Kind, NeighborOptions};

const COMPARISONS: [BinaryOperator; 6] = [
    BinaryOperator::Eq,
    BinaryOperator::NotEq,
    BinaryOperator::Lt,
    BinaryOperator::LtEq,
    BinaryOperator::Gt,
    BinaryOperator::GtEq,
];
const AGGREGATES: [&str; 5] = ["count", "sum", "avg", "min", "max"];

type Alt<T> = (Kind, String, T);

struct Walker<'a, 'o> {
    opts: &'a NeighborOptions<'o>,
    target: Option<usize>,
    counter: usize,
    sites: Vec<(Kind, String)>,
    applied: bool,
    /// Addresses of `LIMIT` literals (mutated as [`Kind::Limit`], never as
    /// numbers, so that no `LIMIT 0` appears). Compared, never dereferenced.
    limit_literals: Vec<*const Expr>,
}

impl Walker<'_, '_> {
    /// Registers `alts` as sites; returns the replacement when one of them
    /// is the target.
    fn take<T>(&mut self, alts: Vec<Alt<T>>) -> Option<T> {
        for (kind, desc, node) in alts {
            let i = self.counter;
            self.counter += 1;
            match self.target {
                None => self.sites.push((kind, desc)),
                Some(t) if t == i => {
                    self.applied = true;
                    return Some(node);
                }
                Some(_) => {}
            }
        }
        None
    }

    fn is_column_name(&self, name: &str) -> bool {
        self.opts
            .tables
            .iter()
            .any(|(_, cols)| cols.iter().any(|c| c.eq_ignore_ascii_case(name)))
    }

    /// The text of a string literal; a double-quoted word that names no
    /// column counts, as SQLite reads it so.
    fn text_literal(&self, e: &Expr) -> Option<String> {
        match e {
            Expr::Value(v) => match &v.value {
                Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => Some(s.clone()),
                _ => None,
            },
            Expr::Identifier(id)
                if id.quote_style == Some('"') && !self.is_column_name(&id.value) =>
            {
                Some(id.value.clone())
            }
            _ => None,
        }
    }
}

pub(super) fn column_name(e: &Expr) -> Option<&str> {
    match e {
        Expr::Identifier(id) => Some(&id.value),
        Expr::CompoundIdentifier(ids) => ids.last().map(|i| i.value.as_str()),
        _ => None,
    }
}

fn string_expr(s: &str) -> Expr {
    Expr::value(Value::SingleQuotedString(s.to_string()))
}

fn number_expr(n: &str) -> Expr {
    Expr::value(Value::Number(n.to_string(), false))
}

fn conjuncts(e: &Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            conjuncts(left, out);
            conjuncts(right, out);
        }
        other => out.push(other.clone()),
    }
}

fn and_all(parts: Vec<Expr>) -> Option<Expr> {
    parts.into_iter().reduce(|a, b| Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::And,
        right: Box::new(b),
    })
}

fn drop_conjunct_alts(e: &Option<Expr>, clause: &str) -> Vec<Alt<Option<Expr>>> {
    let Some(e) = e else { return Vec::new() };
    let mut parts = Vec::new();
    conjuncts(e, &mut parts);
    (0..parts.len())
        .map(|i| {
            let mut rest = parts.clone();
            let dropped = rest.remove(i);
            (
                Kind::DropConjunct,
                format!("{clause}: drop `{dropped}`"),
                and_all(rest),
            )
        })
        .collect()
}

fn truncate(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

/// `n ± k` for an integer or decimal literal, as text.
fn shifted(n: &str, k: i64) -> Option<String> {
    if let Ok(i) = n.parse::<i64>() {
        return i.checked_add(k).map(|v| v.to_string());
    }
    let f: f64 = n.parse().ok()?;
    let v = f + k as f64;
    Some(if v.fract() == 0.0 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    })
}

impl Walker<'_, '_> {
    fn select_alts(&self, s: &Select) -> Vec<Alt<Select>> {
        let mut alts = Vec::new();
        for (kind, desc, sel) in drop_conjunct_alts(&s.selection, "WHERE") {
            let mut n = s.clone();
            n.selection = sel;
            alts.push((kind, desc, n));
        }
        for (kind, desc, hav) in drop_conjunct_alts(&s.having, "HAVING") {
            let mut n = s.clone();
            n.having = hav;
            alts.push((kind, desc, n));
        }
        // Tables in scope: (name or alias, table name).
        let mut scope: Vec<(String, String)> = Vec::new();
        for twj in &s.from {
            for tf in std::iter::once(&twj.relation).chain(twj.joins.iter().map(|j| &j.relation)) {
                if let TableFactor::Table { name, alias, .. } = tf {
                    let table = object_last(name);
                    scope.push((table.clone(), table.clone()));
                    if let Some(a) = alias {
                        scope.push((a.name.value.clone(), table));
                    }
                }
            }
        }
        for (i, item) in s.projection.iter().enumerate() {
            let expr = match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e,
                _ => continue,
            };
            for (desc, new_expr) in self.column_swaps(expr, &scope) {
                let mut n = s.clone();
                match &mut n.projection[i] {
                    SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                        *e = new_expr
                    }
                    _ => {}
                }
                alts.push((Kind::SelectColumn, desc, n));
            }
        }
        for (t, twj) in s.from.iter().enumerate() {
            for (j, join) in twj.joins.iter().enumerate() {
                let (to, desc) = match &join.join_operator {
                    JoinOperator::Join(c) | JoinOperator::Inner(c) => {
                        (JoinOperator::Left(c.clone()), "INNER JOIN → LEFT JOIN")
                    }
                    JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => {
                        (JoinOperator::Inner(c.clone()), "LEFT JOIN → INNER JOIN")
                    }
                    _ => continue,
                };
                let mut n = s.clone();
                n.from[t].joins[j].join_operator = to;
                alts.push((Kind::Join, desc.to_string(), n));
            }
        }
        alts
    }

    fn column_swaps(&self, e: &Expr, scope: &[(String, String)]) -> Vec<(String, Expr)> {
        let (qualifier, col) = match e {
            Expr::Identifier(id) => (None, id.value.as_str()),
            Expr::CompoundIdentifier(ids) if ids.len() == 2 => {
                (Some(ids[0].value.as_str()), ids[1].value.as_str())
            }
            _ => return Vec::new(),
        };
        let table = match qualifier {
            Some(q) => scope
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(q))
                .map(|(_, t)| t.as_str()),
            None => scope.iter().map(|(_, t)| t.as_str()).find(|t| {
                self.columns_of(t)
                    .iter()
                    .any(|c| c.eq_ignore_ascii_case(col))
            }),
        };
        let Some(table) = table else {
            return Vec::new();
        };
        let cols = self.columns_of(table);
        let Some(pos) = cols.iter().position(|c| c.eq_ignore_ascii_case(col)) else {
            return Vec::new();
        };
        (1..cols.len())
            .map(|d| &cols[(pos + d) % cols.len()])
            .take(self.opts.max_column_swaps)
            .map(|other| {
                let ident = Ident::new(other.clone());
                let new = match e {
                    Expr::CompoundIdentifier(ids) => {
                        Expr::CompoundIdentifier(vec![ids[0].clone(), ident])
                    }
                    _ => Expr::Identifier(ident),
                };
                (format!("column `{col}` → `{other}`"), new)
            })
            .collect()
    }

    fn columns_of(&self, table: &str) -> &[String] {
        self.opts
            .tables
            .iter()
            .find(|(t, _)| t.eq_ignore_ascii_case(table))
            .map_or(&[], |(_, c)| c.as_slice())
    }

    fn query_alts(&self, q: &Query) -> Vec<Alt<Query>> {
        let mut alts = Vec::new();
        if let Some(ob) = &q.order_by {
            if let OrderByKind::Expressions(exprs) = &ob.kind {
                for (i, e) in exprs.iter().enumerate() {
                    let desc = matches!(e.options.sort, Some(OrderBySort::Desc));
                    let mut n = q.clone();
                    if let Some(ob) = n.order_by.as_mut() {
                        if let OrderByKind::Expressions(ex) = &mut ob.kind {
                            ex[i].options.sort = Some(if desc {
                                OrderBySort::Asc
                            } else {
                                OrderBySort::Desc
                            });
                        }
                    }
                    let what = if desc { "DESC → ASC" } else { "ASC → DESC" };
                    alts.push((
                        Kind::SortOrder,
                        format!("ORDER BY `{}` {what}", truncate(&e.expr.to_string())),
                        n,
                    ));
                }
            }
        }
        if let Some(LimitClause::LimitOffset {
            limit: Some(Expr::Value(v)),
            ..
        }) = &q.limit_clause
        {
            if let Value::Number(n, _) = &v.value {
                if let Ok(lim) = n.parse::<i64>() {
                    for new in [lim + 1, lim - 1] {
                        if new < 1 {
                            continue;
                        }
                        let mut nq = q.clone();
                        if let Some(LimitClause::LimitOffset { limit, .. }) = &mut nq.limit_clause {
                            *limit = Some(number_expr(&new.to_string()));
                        }
                        alts.push((Kind::Limit, format!("LIMIT {lim} → {new}"), nq));
                    }
                }
            }
        }
        alts
    }

    fn expr_alts(&self, e: &Expr) -> Vec<Alt<Expr>> {
        match e {
            Expr::BinaryOp { left, op, right } if COMPARISONS.contains(op) => {
                let mut alts = comparison_alts(left, op, right);
                alts.extend(self.text_value_alts(left, op, right));
                alts
            }
            Expr::Value(v) => match &v.value {
                Value::Number(n, long) => number_alts(n, *long, self.opts.numeric_deltas),
                _ => Vec::new(),
            },
            Expr::Function(f) => aggregate_alts(f),
            _ => Vec::new(),
        }
    }

    /// A text literal compared with a column (on either side), replaced by
    /// the column's other values.
    fn text_value_alts(&self, left: &Expr, op: &BinaryOperator, right: &Expr) -> Vec<Alt<Expr>> {
        let mut alts = Vec::new();
        for (col_side, lit_side, lit_left) in [(left, right, false), (right, left, true)] {
            let (Some(col), Some(lit)) = (column_name(col_side), self.text_literal(lit_side))
            else {
                continue;
            };
            let values = (self.opts.text_values)(col);
            for v in values
                .iter()
                .filter(|v| **v != lit)
                .take(self.opts.max_text_values)
            {
                let new_lit = Box::new(string_expr(v));
                let (l, r) = if lit_left {
                    (new_lit, Box::new(col_side.clone()))
                } else {
                    (Box::new(col_side.clone()), new_lit)
                };
                alts.push((
                    Kind::TextValue,
                    format!("'{}' → '{}'", truncate(&lit), truncate(v)),
                    Expr::BinaryOp {
                        left: l,
                        op: op.clone(),
                        right: r,
                    },
                ));
            }
        }
        alts
    }
}

/// The comparison with each other comparison operator.
fn comparison_alts(left: &Expr, op: &BinaryOperator, right: &Expr) -> Vec<Alt<Expr>> {
    COMPARISONS
        .iter()
        .filter(|o| *o != op)
        .map(|other| {
            (
                Kind::ComparisonOp,
                format!("`{op}` → `{other}`"),
                Expr::BinaryOp {
                    left: Box::new(left.clone()),
                    op: other.clone(),
                    right: Box::new(right.clone()),
                },
            )
        })
        .collect()
}

/// A number literal shifted by each of `deltas`, up and down.
fn number_alts(n: &str, long: bool, deltas: &[i64]) -> Vec<Alt<Expr>> {
    let mut alts = Vec::new();
    for k in deltas {
        for d in [*k, -*k] {
            if let Some(new) = shifted(n, d) {
                alts.push((
                    Kind::Number,
                    format!("{n} → {new}"),
                    Expr::value(Value::Number(new, long)),
                ));
            }
        }
    }
    alts
}

/// An aggregate call: `COUNT(x)` with DISTINCT toggled, and (but for
/// `count(*)`) each other aggregate in the call's letter case.
fn aggregate_alts(f: &sqlparser::ast::Function) -> Vec<Alt<Expr>> {
    let mut alts = Vec::new();
    let name = object_last(&f.name);
    let lower = name.to_ascii_lowercase();
    if !AGGREGATES.contains(&lower.as_str()) {
        return alts;
    }
    let FunctionArguments::List(list) = &f.args else {
        return alts;
    };
    let star = list
        .args
        .iter()
        .any(|a| matches!(a, FunctionArg::Unnamed(FunctionArgExpr::Wildcard)));
    if star {
        return alts;
    }
    if lower == "count" {
        let distinct = list.duplicate_treatment == Some(DuplicateTreatment::Distinct);
        let mut nf = f.clone();
        if let FunctionArguments::List(l) = &mut nf.args {
            l.duplicate_treatment = (!distinct).then_some(DuplicateTreatment::Distinct);
        }
        let desc = if distinct {
            "COUNT(DISTINCT x) → COUNT(x)"
        } else {
            "COUNT(x) → COUNT(DISTINCT x)"
        };
        alts.push((Kind::CountDistinct, desc.to_string(), Expr::Function(nf)));
    }
    let upper = name.chars().any(|c| c.is_ascii_uppercase());
    for other in AGGREGATES.iter().filter(|a| **a != lower) {
        let rendered = if upper {
            other.to_ascii_uppercase()
        } else {
            other.to_string()
        };
        let mut nf = f.clone();
        nf.name = ObjectName(vec![ObjectNamePart::Identifier(Ident::new(&rendered))]);
        alts.push((
            Kind::Aggregate,
            format!("{name}() → {rendered}()"),
            Expr::Function(nf),
        ));
    }
    alts
}

pub(super) fn object_last(name: &ObjectName) -> String {
    match name.0.last() {
        Some(ObjectNamePart::Identifier(id)) => id.value.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

impl VisitorMut for Walker<'_, '_> {
    type Break = ();

    fn pre_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
        if let Some(LimitClause::LimitOffset { limit: Some(e), .. }) = &q.limit_clause {
            self.limit_literals.push(e as *const Expr);
        }
        let alts = self.query_alts(q);
        if let Some(n) = self.take(alts) {
            *q = n;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, s: &mut Select) -> ControlFlow<()> {
        let alts = self.select_alts(s);
        if let Some(n) = self.take(alts) {
            *s = n;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        if self.limit_literals.contains(&(e as *const Expr)) {
            return ControlFlow::Continue(());
        }
        let alts = self.expr_alts(e);
        if let Some(n) = self.take(alts) {
            *e = n;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
}

/// Every mutation site of `stmt`, in visitor order.
pub(super) fn collect(stmt: &Statement, opts: &NeighborOptions<'_>) -> Vec<(Kind, String)> {
    let mut w = Walker {
        opts,
        target: None,
        counter: 0,
        sites: Vec::new(),
        applied: false,
        limit_literals: Vec::new(),
    };
    let mut s = stmt.clone();
    let _ = s.visit(&mut w);
    w.sites
}

/// Applies site `target` to `stmt`; false when there is no such site.
pub(super) fn apply(stmt: &mut Statement, opts: &NeighborOptions<'_>, target: usize) -> bool {
    let mut w = Walker {
        opts,
        target: Some(target),
        counter: 0,
        sites: Vec::new(),
        applied: false,
        limit_literals: Vec::new(),
    };
    let _ = stmt.visit(&mut w);
    w.applied
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expr(sql: &str) -> Expr {
        let stmts = sqlwitness_sql::parse_in(&format!("SELECT {sql}"), sqlwitness_sql::SQLITE_ONLY)
            .unwrap();
        let Statement::Query(q) = &stmts[0] else {
            panic!("{sql}")
        };
        let sqlparser::ast::SetExpr::Select(s) = q.body.as_ref() else {
            panic!("{sql}")
        };
        let SelectItem::UnnamedExpr(e) = &s.projection[0] else {
            panic!("{sql}")
        };
        e.clone()
    }

    fn shown(alts: &[Alt<Expr>]) -> Vec<String> {
        alts.iter()
            .map(|(_, desc, e)| format!("{desc}: {e}"))
            .collect()
    }

    #[test]
    fn a_comparison_becomes_each_other_comparison() {
        let Expr::BinaryOp { left, op, right } = expr("a < 3") else {
            panic!()
        };
        let alts = comparison_alts(&left, &op, &right);
        assert_eq!(alts.len(), 5);
        assert!(alts.iter().all(|(k, _, _)| *k == Kind::ComparisonOp));
        assert_eq!(shown(&alts)[0], "`<` → `=`: a = 3");
    }

    #[test]
    fn numbers_shift_by_each_delta_both_ways() {
        assert_eq!(
            shown(&number_alts("7", false, &[1, 10])),
            ["7 → 8: 8", "7 → 6: 6", "7 → 17: 17", "7 → -3: -3"]
        );
        assert_eq!(
            shown(&number_alts("2.5", false, &[1])),
            ["2.5 → 3.5: 3.5", "2.5 → 1.5: 1.5"]
        );
        assert!(number_alts("x", false, &[1]).is_empty());
    }

    /// `COUNT(x)` toggles DISTINCT and becomes each other aggregate in its
    /// letter case; `count(*)` and other functions give nothing.
    #[test]
    fn aggregates_swap_and_count_toggles_distinct() {
        let Expr::Function(f) = expr("COUNT(x)") else {
            panic!()
        };
        assert_eq!(
            shown(&aggregate_alts(&f)),
            [
                "COUNT(x) → COUNT(DISTINCT x): COUNT(DISTINCT x)",
                "COUNT() → SUM(): SUM(x)",
                "COUNT() → AVG(): AVG(x)",
                "COUNT() → MIN(): MIN(x)",
                "COUNT() → MAX(): MAX(x)"
            ]
        );
        let Expr::Function(f) = expr("count(DISTINCT x)") else {
            panic!()
        };
        assert_eq!(
            shown(&aggregate_alts(&f))[0],
            "COUNT(DISTINCT x) → COUNT(x): count(x)"
        );
        for other in ["count(*)", "lower(x)"] {
            let Expr::Function(f) = expr(other) else {
                panic!()
            };
            assert!(aggregate_alts(&f).is_empty(), "{other}");
        }
    }
}
