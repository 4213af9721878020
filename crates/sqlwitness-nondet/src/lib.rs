//! sqlwitness-nondet: nondeterministic queries — which gold queries can
//! answer more than one way, the proof on data, and the verdicts and
//! rewrites that allow for it.
//!
//! * [`analyze`] — static nondeterminism rules on the parsed SQL
//!   (Pourreza & Rafiei §5.1), applied to every query block, subqueries
//!   included, on a [`SchemaInfo`] the caller builds; [`judge_probe`]
//!   turns the rows of a finding's [`Probe`] into [`Evidence`].
//! * [`TieWindow`] / [`tie_aware_match`] / [`in_some_column_order`] —
//!   tie-aware verdicts: is an answer one of the gold's valid answers when
//!   its LIMIT cuts through ties or its ORDER BY leaves ties free?
//! * [`tie_inclusive_rewrite`] — Pourreza & Rafiei's §6.1 rewrites of a
//!   nondeterministic gold into one that keeps every tied row.
//!
//! | rule | fires when |
//! |---|---|
//! | `limit_without_order` | LIMIT/OFFSET with no ORDER BY in the same block (and more than one row possible) |
//! | `limit_tie_1` / `limit_tie_n` | ORDER BY … LIMIT 1 / LIMIT n>1 whose sort key does not determine the block's output row |
//! | `group_by_bare_column` | a non-aggregated SELECT/HAVING/ORDER BY column not functionally determined by the GROUP BY keys |
//! | `aggregate_bare_column` | aggregates mixed with bare columns without GROUP BY |
//! | `distinct_order_by` | SELECT DISTINCT … ORDER BY an expression the select list does not determine |
//! | `order_by_partial` | a top-level ORDER BY without LIMIT whose keys do not determine the output rows |
//!
//! "Determine" is functional dependency from the schema (primary keys,
//! unique constraints, equalities in WHERE/ON; see `scope.rs`): a sort key
//! that determines the output row cannot produce an observable tie. Every
//! finding carries a [`Probe`]: a query whose rows prove (or fail to prove)
//! the problem on actual data.

mod evidence;
mod probe;
mod rules;
mod scope;
mod tie_rewrite;
mod ties;

use std::fmt;
use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};
use sqlparser::ast::{Query, Statement, Visit, Visitor};

use sqlwitness_sql::SchemaInfo;

pub use evidence::{judge as judge_probe, Evidence, EVIDENCE_ROWS};
pub use probe::Probe;
pub use tie_rewrite::{tie_inclusive_rewrite, Rewrite};
pub use ties::{in_some_column_order, tie_aware_match, TieWindow, MAX_PERMUTED_COLUMNS};

/// The static rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NondetRule {
    LimitWithoutOrder,
    LimitTie1,
    LimitTieN,
    GroupByBareColumn,
    AggregateBareColumn,
    DistinctOrderBy,
    OrderByPartial,
}

impl NondetRule {
    pub const ALL: [NondetRule; 7] = [
        NondetRule::LimitTie1,
        NondetRule::LimitTieN,
        NondetRule::LimitWithoutOrder,
        NondetRule::GroupByBareColumn,
        NondetRule::AggregateBareColumn,
        NondetRule::DistinctOrderBy,
        NondetRule::OrderByPartial,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            NondetRule::LimitWithoutOrder => "limit_without_order",
            NondetRule::LimitTie1 => "limit_tie_1",
            NondetRule::LimitTieN => "limit_tie_n",
            NondetRule::GroupByBareColumn => "group_by_bare_column",
            NondetRule::AggregateBareColumn => "aggregate_bare_column",
            NondetRule::DistinctOrderBy => "distinct_order_by",
            NondetRule::OrderByPartial => "order_by_partial",
        }
    }
}

impl fmt::Display for NondetRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One rule firing on one query block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StaticFinding {
    pub rule: NondetRule,
    /// True when the block is the outermost query.
    pub top_level: bool,
    /// The SQL of the query block the rule fired on.
    pub block: String,
    /// What the rule saw (the undetermined columns, the sort key …).
    pub detail: String,
    /// A query that shows the problem on data, when one can be built.
    pub probe: Option<Probe>,
}

/// The SQL does not parse as exactly one statement.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("does not parse: {0}")]
pub struct ParseError(pub String);

/// Parses `sql` in the first of `dialects` that reads it and applies every
/// rule to every query block.
pub fn analyze(
    sql: &str,
    schema: &SchemaInfo,
    dialects: sqlwitness_sql::Dialects<'_>,
) -> Result<Vec<StaticFinding>, ParseError> {
    let statements =
        sqlwitness_sql::parse_in(sql, dialects).map_err(|e| ParseError(e.to_string()))?;
    let [statement] = statements.as_slice() else {
        return Err(ParseError(format!(
            "{} statements, expected one",
            statements.len()
        )));
    };
    let mut findings = Vec::new();
    for (i, q) in queries(statement).iter().enumerate() {
        rules::check_query(q, i == 0, schema, &mut findings);
    }
    Ok(findings)
}

/// For a gold whose outermost block is `SELECT … ORDER BY k LIMIT n
/// [OFFSET o]`: the [`Probe::Ordered`] listing every row with its sort key
/// (no LIMIT), and `o`. What a tie-aware verdict needs to decide whether
/// another answer is one of the valid ones. `None` for any other shape.
/// The SQL is read in the first of `dialects` that parses it.
pub fn top_limit_probe(sql: &str, dialects: sqlwitness_sql::Dialects<'_>) -> Option<(Probe, u64)> {
    top_order_probe(sql, dialects).filter(|(p, _)| matches!(p, Probe::Ordered { cut: Some(_), .. }))
}

/// [`top_limit_probe`] for any outermost `SELECT … ORDER BY k [LIMIT n
/// [OFFSET o]]`: without a LIMIT the probe's `cut` is `None` (every row is
/// in the window, only the order among equal keys is free).
pub fn top_order_probe(sql: &str, dialects: sqlwitness_sql::Dialects<'_>) -> Option<(Probe, u64)> {
    let statements = sqlwitness_sql::parse_in(sql, dialects).ok()?;
    let [Statement::Query(q)] = statements.as_slice() else {
        return None;
    };
    let (limit, offset, _) = rules::limit_offset(q);
    let sqlparser::ast::SetExpr::Select(s) = q.body.as_ref() else {
        return None;
    };
    let proj: Vec<(sqlparser::ast::Expr, Option<String>)> = s
        .projection
        .iter()
        .map(|p| match p {
            sqlparser::ast::SelectItem::UnnamedExpr(e) => Some((e.clone(), None)),
            sqlparser::ast::SelectItem::ExprWithAlias { expr, alias } => {
                Some((expr.clone(), Some(alias.value.to_ascii_lowercase())))
            }
            _ => None,
        })
        .collect::<Option<_>>()?;
    let keys = rules::resolve_keys(&sqlwitness_sql::order_exprs(q), &proj);
    if keys.is_empty() {
        return None;
    }
    Some((
        probe::ordered(q, &keys, limit.map(|n| n + offset), proj.len())?,
        offset,
    ))
}

/// Every query block of a statement, outermost first.
pub(crate) fn queries(statement: &Statement) -> Vec<Query> {
    struct Collect(Vec<Query>);
    impl Visitor for Collect {
        type Break = ();
        fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
            self.0.push(q.clone());
            ControlFlow::Continue(())
        }
    }
    let mut c = Collect(Vec::new());
    let _ = statement.visit(&mut c);
    c.0
}

#[cfg(test)]
mod tests;
