//! Probe queries: what to run to prove a static finding on data.

use serde::{Deserialize, Serialize};
use sqlparser::ast::{
    Distinct, DuplicateTreatment, Expr, Function, FunctionArg, FunctionArgExpr,
    FunctionArgumentList, FunctionArguments, GroupByExpr, Ident, ObjectName, ObjectNamePart, Query,
    Select, SelectItem, SetExpr,
};

/// A query whose rows show a finding on data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Probe {
    /// The block without its LIMIT, its sort key appended as the last
    /// `key_columns` columns, in the block's order. A tie at the cut: the
    /// rows at positions `cut` and `cut + 1` share the key and the tied
    /// rows differ in the first `data_columns` columns. Without `cut`
    /// (`order_by_partial`): any run of equal keys whose rows differ.
    Ordered {
        sql: String,
        data_columns: usize,
        key_columns: usize,
        cut: Option<u64>,
    },
    /// One row per group (per select-list value for `distinct_order_by`):
    /// the group's key columns first, then for each undetermined column
    /// `count(DISTINCT c), min(c), max(c)`. A count above 1 proves it.
    Spread {
        sql: String,
        key_columns: usize,
        columns: Vec<String>,
    },
    /// The block without its LIMIT (and OFFSET): more than `cut` distinct
    /// rows means the LIMIT chooses among them arbitrarily.
    Unlimited { sql: String, cut: u64 },
}

impl Probe {
    pub fn sql(&self) -> &str {
        match self {
            Probe::Ordered { sql, .. }
            | Probe::Spread { sql, .. }
            | Probe::Unlimited { sql, .. } => sql,
        }
    }
}

pub(crate) fn func(name: &str, arg: Expr, distinct: bool) -> Expr {
    Expr::Function(Function {
        name: ObjectName(vec![ObjectNamePart::Identifier(Ident::new(name))]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: distinct.then_some(DuplicateTreatment::Distinct),
            args: vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(arg))],
            clauses: vec![],
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: vec![],
    })
}

fn item(expr: Expr, alias: String) -> SelectItem {
    SelectItem::ExprWithAlias {
        expr,
        alias: Ident::new(alias),
    }
}

/// The block with its sort key appended and no LIMIT/OFFSET.
/// `data_columns` is the block's output width (wildcards expanded).
pub(crate) fn ordered(
    q: &Query,
    keys: &[Expr],
    cut: Option<u64>,
    data_columns: usize,
) -> Option<Probe> {
    let SetExpr::Select(s) = q.body.as_ref() else {
        return None;
    };
    let mut s2: Select = (**s).clone();
    for (i, k) in keys.iter().enumerate() {
        s2.projection.push(item(k.clone(), format!("__sw_k{i}")));
    }
    let mut q2 = q.clone();
    *q2.body = SetExpr::Select(Box::new(s2));
    q2.limit_clause = None;
    Some(Probe::Ordered {
        sql: q2.to_string(),
        data_columns,
        key_columns: keys.len(),
        cut,
    })
}

/// `SELECT <group>, count(DISTINCT c), min(c), max(c) … GROUP BY <group>`
/// over the block's FROM/WHERE (and HAVING when `keep_having`).
pub(crate) fn spread(
    q: &Query,
    s: &Select,
    group: &[Expr],
    cols: &[Expr],
    keep_having: bool,
) -> Option<Probe> {
    if cols.is_empty() {
        return None;
    }
    let mut s2 = s.clone();
    s2.distinct = None::<Distinct>;
    s2.projection = group
        .iter()
        .enumerate()
        .map(|(i, g)| item(g.clone(), format!("__sw_g{i}")))
        .collect();
    for (i, c) in cols.iter().enumerate() {
        s2.projection
            .push(item(func("count", c.clone(), true), format!("__sw_n{i}")));
        s2.projection
            .push(item(func("min", c.clone(), false), format!("__sw_min{i}")));
        s2.projection
            .push(item(func("max", c.clone(), false), format!("__sw_max{i}")));
    }
    s2.group_by = if group.is_empty() {
        GroupByExpr::Expressions(vec![], vec![])
    } else {
        GroupByExpr::Expressions(group.to_vec(), vec![])
    };
    if !keep_having {
        s2.having = None;
    }
    let q2 = Query {
        with: q.with.clone(),
        ..bare_query(SetExpr::Select(Box::new(s2)))
    };
    Some(Probe::Spread {
        sql: q2.to_string(),
        key_columns: group.len(),
        columns: cols.iter().map(|c| c.to_string()).collect(),
    })
}

/// The block without LIMIT/OFFSET.
pub(crate) fn unlimited(q: &Query, cut: u64) -> Probe {
    let mut q2 = q.clone();
    q2.limit_clause = None;
    Probe::Unlimited {
        sql: q2.to_string(),
        cut,
    }
}

/// A query of `body` alone: no `WITH`, ordering, limit or other clause.
pub(crate) fn bare_query(body: SetExpr) -> Query {
    Query {
        with: None,
        body: Box::new(body),
        order_by: None,
        limit_clause: None,
        fetch: None,
        locks: vec![],
        for_clause: None,
        settings: None,
        format_clause: None,
        pipe_operators: vec![],
    }
}
