//! Expression helpers: aggregates, column references of one query block.

use std::ops::ControlFlow;

use sqlparser::ast::{Expr, FunctionArguments, Ident, OrderByKind, Query, Visit, Visitor};

/// Aggregate functions of SQLite, PostgreSQL and MySQL that Spider-like
/// golds use. `min`/`max` with more than one argument are SQLite's scalar
/// functions and are not aggregates.
const AGGREGATES: &[&str] = &[
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "total",
    "group_concat",
    "string_agg",
    "array_agg",
    "bool_and",
    "bool_or",
    "every",
    "stddev",
    "variance",
];

/// Is `expr` an aggregate function call (at its root)?
pub fn is_aggregate_call(expr: &Expr) -> bool {
    let Expr::Function(f) = expr else {
        return false;
    };
    if f.over.is_some() {
        return false;
    }
    let name = f
        .name
        .0
        .last()
        .and_then(|p| p.as_ident())
        .map(|i| i.value.to_ascii_lowercase())
        .unwrap_or_default();
    if !AGGREGATES.contains(&name.as_str()) {
        return false;
    }
    if name == "min" || name == "max" {
        if let FunctionArguments::List(l) = &f.args {
            return l.args.len() <= 1;
        }
    }
    true
}

/// A column reference as written: optional qualifier, column name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColRef {
    pub qualifier: Option<String>,
    pub name: String,
}

/// `expr` as a column reference, looking through parentheses.
pub fn as_col_ref(expr: &Expr) -> Option<ColRef> {
    match expr {
        Expr::Identifier(i) => Some(ColRef {
            qualifier: None,
            name: i.value.clone(),
        }),
        Expr::CompoundIdentifier(parts) if parts.len() >= 2 => Some(ColRef {
            qualifier: Some(parts[parts.len() - 2].value.clone()),
            name: parts[parts.len() - 1].value.clone(),
        }),
        Expr::Nested(e) => as_col_ref(e),
        _ => None,
    }
}

/// What one walk over an expression of a block found (subqueries skipped).
#[derive(Debug, Default)]
pub struct ExprFacts {
    /// Column references outside any aggregate.
    pub bare: Vec<ColRef>,
    /// Column references inside aggregates.
    pub aggregated: Vec<ColRef>,
    pub has_aggregate: bool,
}

struct FactsVisitor {
    facts: ExprFacts,
    query_depth: usize,
    agg_depth: usize,
}

impl Visitor for FactsVisitor {
    type Break = ();

    fn pre_visit_query(&mut self, _q: &Query) -> ControlFlow<()> {
        self.query_depth += 1;
        ControlFlow::Continue(())
    }
    fn post_visit_query(&mut self, _q: &Query) -> ControlFlow<()> {
        self.query_depth -= 1;
        ControlFlow::Continue(())
    }
    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        if self.query_depth > 0 {
            return ControlFlow::Continue(());
        }
        if is_aggregate_call(e) {
            self.agg_depth += 1;
            self.facts.has_aggregate = true;
        }
        // A compound identifier's parts are not visited separately.
        if let Some(c) = as_col_ref(e) {
            if !matches!(e, Expr::Nested(_)) {
                if self.agg_depth > 0 {
                    self.facts.aggregated.push(c);
                } else {
                    self.facts.bare.push(c);
                }
            }
        }
        ControlFlow::Continue(())
    }
    fn post_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        if self.query_depth == 0 && is_aggregate_call(e) {
            self.agg_depth -= 1;
        }
        ControlFlow::Continue(())
    }
}

/// Column references and aggregates of `expr`, not looking into subqueries.
pub fn expr_facts(expr: &Expr) -> ExprFacts {
    let mut v = FactsVisitor {
        facts: ExprFacts::default(),
        query_depth: 0,
        agg_depth: 0,
    };
    let _ = expr.visit(&mut v);
    v.facts
}

/// Is `expr` a constant (a literal, possibly signed or parenthesised)?
pub fn is_constant(expr: &Expr) -> bool {
    match expr {
        Expr::Value(_) => true,
        Expr::UnaryOp { expr, .. } | Expr::Nested(expr) => is_constant(expr),
        _ => false,
    }
}

/// The conjuncts of a predicate (`a AND b AND c`).
pub fn conjuncts<'a>(expr: &'a Expr, out: &mut Vec<&'a Expr>) {
    match expr {
        Expr::BinaryOp {
            left,
            op: sqlparser::ast::BinaryOperator::And,
            right,
        } => {
            conjuncts(left, out);
            conjuncts(right, out);
        }
        Expr::Nested(e) => conjuncts(e, out),
        e => out.push(e),
    }
}

/// A literal non-negative integer (`LIMIT 3`).
pub fn as_u64(expr: &Expr) -> Option<u64> {
    match expr {
        Expr::Value(v) => match &v.value {
            sqlparser::ast::Value::Number(n, _) => n.parse().ok(),
            _ => None,
        },
        Expr::Nested(e) => as_u64(e),
        _ => None,
    }
}

/// The expression a [`ColRef`] reads as.
pub fn col_expr(c: &ColRef) -> Expr {
    match &c.qualifier {
        Some(q) => Expr::CompoundIdentifier(vec![Ident::new(q), Ident::new(&c.name)]),
        None => Expr::Identifier(Ident::new(&c.name)),
    }
}

/// Bare column references of `e` (outside aggregates and subqueries), as
/// expressions.
pub fn bare_columns(e: &Expr) -> Vec<Expr> {
    expr_facts(e).bare.iter().map(col_expr).collect()
}

/// Does `e` call an aggregate (outside subqueries)?
pub fn contains_aggregate(e: &Expr) -> bool {
    expr_facts(e).has_aggregate
}

/// The ORDER BY expressions of `q` (empty without ORDER BY or with
/// `ORDER BY ALL`).
pub fn order_exprs(q: &Query) -> Vec<Expr> {
    match q.order_by.as_ref().map(|o| &o.kind) {
        Some(OrderByKind::Expressions(v)) => v.iter().map(|o| o.expr.clone()).collect(),
        _ => Vec::new(),
    }
}
