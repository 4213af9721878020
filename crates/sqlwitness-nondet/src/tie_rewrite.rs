//! Tie-inclusive rewrites of nondeterministic gold (Pourreza & Rafiei §6.1):
//!
//! * `… ORDER BY x DESC LIMIT 1` → `… WHERE x = (SELECT max(x) FROM … WHERE …)`
//!   (`min` for ascending), on the outermost block without GROUP BY;
//! * `… GROUP BY g ORDER BY agg DESC LIMIT 1` →
//!   `… GROUP BY g HAVING agg = (SELECT max(v) FROM (SELECT agg AS v … GROUP BY g))`;
//! * bare columns under GROUP BY → added to the GROUP BY.
//!
//! A rewrite is only a candidate: the caller verifies it on data (it must
//! run everywhere and answer the same everywhere) before reporting it.

use serde::{Deserialize, Serialize};
use sqlparser::ast::{
    BinaryOperator, Expr, GroupByExpr, Ident, OrderByKind, OrderBySort, Query, Select, SelectItem,
    SetExpr, Statement, TableAlias, TableFactor, TableWithJoins,
};

use sqlwitness_sql::{as_u64, contains_aggregate, is_aggregate_call, SchemaInfo};

use crate::probe::{bare_query, func};
use crate::rules::{group_bare_columns, limit_offset, resolve_keys};

/// A candidate rewrite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rewrite {
    /// `limit1_to_extreme`, `limit1_to_having_extreme`, `group_by_add_columns`.
    pub kind: String,
    pub sql: String,
}

/// The tie-inclusive rewrite of `sql`, read in the first of `dialects` that
/// parses it, when one of the supported shapes applies (see the module
/// documentation); `None` otherwise. The rewrite is rendered in
/// `sqlparser`'s neutral form.
pub fn tie_inclusive_rewrite(
    sql: &str,
    schema: &SchemaInfo,
    dialects: sqlwitness_sql::Dialects<'_>,
) -> Option<Rewrite> {
    let statements = sqlwitness_sql::parse_in(sql, dialects).ok()?;
    let [Statement::Query(q)] = statements.as_slice() else {
        return None;
    };
    let mut q = (**q).clone();
    let mut kinds = Vec::new();
    // Bare GROUP BY columns first: they then do not block the LIMIT rewrite.
    if let Some(bad) = group_bare_columns(&q, schema) {
        if let SetExpr::Select(s) = q.body.as_mut() {
            if let GroupByExpr::Expressions(g, _) = &mut s.group_by {
                g.extend(bad);
                kinds.push("group_by_add_columns");
            }
        }
    }
    if limit1_rewrite(&mut q, &mut kinds).is_none() && kinds.is_empty() {
        return None;
    }
    Some(Rewrite {
        kind: kinds.join("+"),
        sql: q.to_string(),
    })
}

fn limit1_rewrite(q: &mut Query, kinds: &mut Vec<&'static str>) -> Option<()> {
    let shape = Limit1::of(q)?;
    let SetExpr::Select(s) = q.body.as_ref() else {
        return None;
    };
    let (s2, kind) = if shape.group.is_empty() {
        (extreme_where(s, &shape)?, "limit1_to_extreme")
    } else {
        (extreme_having(s, &shape)?, "limit1_to_having_extreme")
    };
    kinds.push(kind);
    *q.body = SetExpr::Select(Box::new(s2));
    q.order_by = None;
    q.limit_clause = None;
    Some(())
}

/// An outermost `SELECT … ORDER BY key LIMIT 1` (no OFFSET, one key that
/// is not a position once aliases and positions are resolved).
struct Limit1 {
    /// The sort key, resolved against the select list.
    key: Expr,
    /// `max` for a descending key, `min` for an ascending one.
    extreme: &'static str,
    /// The GROUP BY expressions (empty without GROUP BY).
    group: Vec<Expr>,
    proj: Vec<(Expr, Option<String>)>,
}

impl Limit1 {
    fn of(q: &Query) -> Option<Limit1> {
        let (limit, offset, _) = limit_offset(q);
        if limit != Some(1) || offset != 0 {
            return None;
        }
        let Some(OrderByKind::Expressions(keys)) = q.order_by.as_ref().map(|o| &o.kind) else {
            return None;
        };
        let [key] = keys.as_slice() else {
            return None;
        };
        let desc = matches!(key.options.sort, Some(OrderBySort::Desc));
        let SetExpr::Select(s) = q.body.as_ref() else {
            return None;
        };
        let proj: Vec<(Expr, Option<String>)> = s
            .projection
            .iter()
            .filter_map(|p| match p {
                SelectItem::UnnamedExpr(e) => Some((e.clone(), None)),
                SelectItem::ExprWithAlias { expr, alias } => {
                    Some((expr.clone(), Some(alias.value.to_ascii_lowercase())))
                }
                _ => None,
            })
            .collect();
        let k = resolve_keys(std::slice::from_ref(&key.expr), &proj)
            .pop()
            .filter(|k| as_u64(k).is_none())?;
        let group = match &s.group_by {
            GroupByExpr::Expressions(g, _) => g.clone(),
            GroupByExpr::All(_) => return None,
        };
        Some(Limit1 {
            key: k,
            extreme: if desc { "max" } else { "min" },
            group,
            proj,
        })
    }
}

/// Without GROUP BY: `WHERE … AND k = (SELECT max(k) FROM <from> WHERE
/// <where>)`; `None` when the key or the select list aggregates.
fn extreme_where(s: &Select, shape: &Limit1) -> Option<Select> {
    let k = &shape.key;
    if contains_aggregate(k) || shape.proj.iter().any(|(e, _)| contains_aggregate(e)) {
        return None;
    }
    let mut sub = s.clone();
    sub.distinct = None;
    sub.projection = vec![SelectItem::UnnamedExpr(func(
        shape.extreme,
        k.clone(),
        false,
    ))];
    let mut s2 = s.clone();
    s2.selection = Some(and_also(s2.selection.take(), eq(k.clone(), subquery(sub))));
    Some(s2)
}

/// With GROUP BY and an aggregate key: `HAVING … AND agg = (SELECT max(v)
/// FROM (SELECT agg AS v FROM … GROUP BY …) AS __sw_t)`; `None` when the
/// key is not an aggregate call.
fn extreme_having(s: &Select, shape: &Limit1) -> Option<Select> {
    let k = &shape.key;
    if !is_aggregate_call(k) {
        return None;
    }
    let mut inner = s.clone();
    inner.distinct = None;
    inner.projection = vec![SelectItem::ExprWithAlias {
        expr: k.clone(),
        alias: Ident::new("__sw_v"),
    }];
    let inner_q = bare_query(SetExpr::Select(Box::new(inner)));
    let mut outer = s.clone();
    outer.distinct = None;
    outer.selection = None;
    outer.having = None;
    outer.group_by = GroupByExpr::Expressions(vec![], vec![]);
    outer.projection = vec![SelectItem::UnnamedExpr(func(
        shape.extreme,
        Expr::Identifier(Ident::new("__sw_v")),
        false,
    ))];
    outer.from = vec![TableWithJoins {
        relation: TableFactor::Derived {
            lateral: false,
            subquery: Box::new(inner_q),
            alias: Some(TableAlias {
                explicit: true,
                at: None,
                name: Ident::new("__sw_t"),
                columns: vec![],
            }),
            sample: None,
        },
        joins: vec![],
    }];
    let mut s2 = s.clone();
    s2.having = Some(and_also(s2.having.take(), eq(k.clone(), subquery(outer))));
    Some(s2)
}

/// `cond`, after an existing condition when there is one.
fn and_also(existing: Option<Expr>, cond: Expr) -> Expr {
    match existing {
        Some(w) => and(nested(w), cond),
        None => cond,
    }
}

fn subquery(s: Select) -> Expr {
    Expr::Subquery(Box::new(bare_query(SetExpr::Select(Box::new(s)))))
}

fn eq(a: Expr, b: Expr) -> Expr {
    Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::Eq,
        right: Box::new(b),
    }
}

fn and(a: Expr, b: Expr) -> Expr {
    Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::And,
        right: Box::new(b),
    }
}

fn nested(e: Expr) -> Expr {
    match e {
        Expr::BinaryOp {
            op: BinaryOperator::Or,
            ..
        } => Expr::Nested(Box::new(e)),
        e => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(sql: &str) -> Option<String> {
        tie_inclusive_rewrite(sql, &SchemaInfo::default(), sqlwitness_sql::SQLITE_ONLY)
            .map(|r| r.sql)
    }

    #[test]
    fn limit1_becomes_extreme() {
        assert_eq!(
            rw("SELECT name FROM singer WHERE a = 1 OR b = 2 ORDER BY age DESC LIMIT 1").unwrap(),
            "SELECT name FROM singer WHERE (a = 1 OR b = 2) AND age = (SELECT max(age) FROM singer WHERE a = 1 OR b = 2)"
        );
        assert_eq!(
            rw("SELECT T1.name FROM singer AS T1 ORDER BY T1.age LIMIT 1").unwrap(),
            "SELECT T1.name FROM singer AS T1 WHERE T1.age = (SELECT min(T1.age) FROM singer AS T1)"
        );
        assert_eq!(
            rw("SELECT country FROM singer GROUP BY country ORDER BY count(*) DESC LIMIT 1").unwrap(),
            "SELECT country FROM singer GROUP BY country HAVING count(*) = (SELECT max(__sw_v) FROM (SELECT count(*) AS __sw_v FROM singer GROUP BY country) AS __sw_t)"
        );
        assert_eq!(rw("SELECT name FROM singer ORDER BY age LIMIT 2"), None);
    }

    fn limit1(sql: &str) -> Option<(String, &'static str, usize)> {
        let statements = sqlwitness_sql::parse_in(sql, sqlwitness_sql::SQLITE_ONLY).unwrap();
        let [Statement::Query(q)] = statements.as_slice() else {
            panic!("{sql}")
        };
        Limit1::of(q).map(|l| (l.key.to_string(), l.extreme, l.group.len()))
    }

    /// The shape: LIMIT 1 without OFFSET, one key (an alias or position
    /// resolved to the select list), its direction choosing the extreme.
    #[test]
    fn limit1_shape_resolves_its_key() {
        assert_eq!(
            limit1("SELECT name, age AS a FROM singer ORDER BY a DESC LIMIT 1"),
            Some(("age".into(), "max", 0))
        );
        assert_eq!(
            limit1("SELECT country, count(*) FROM singer GROUP BY country ORDER BY 2 LIMIT 1"),
            Some(("count(*)".into(), "min", 1))
        );
        assert_eq!(limit1("SELECT name FROM singer ORDER BY 3 LIMIT 1"), None);
        assert_eq!(
            limit1("SELECT name FROM singer ORDER BY age LIMIT 1 OFFSET 1"),
            None
        );
        assert_eq!(
            limit1("SELECT name FROM singer ORDER BY age, name LIMIT 1"),
            None
        );
        assert_eq!(limit1("SELECT name FROM singer LIMIT 1"), None);
    }

    /// An aggregate key without GROUP BY, or a plain key with one, is no
    /// rewrite.
    #[test]
    fn limit1_needs_a_key_that_fits_the_grouping() {
        assert_eq!(
            rw("SELECT max(age) FROM singer ORDER BY max(age) LIMIT 1"),
            None
        );
        assert_eq!(
            rw("SELECT country FROM singer GROUP BY country ORDER BY country LIMIT 1"),
            None
        );
    }

    #[test]
    fn a_condition_is_added_after_the_existing_one() {
        let e = |s: &str| {
            sqlwitness_sql::parse_in(&format!("SELECT {s}"), sqlwitness_sql::SQLITE_ONLY).unwrap()
        };
        let expr = |s: &str| {
            let statements = e(s);
            let [Statement::Query(q)] = statements.as_slice() else {
                panic!()
            };
            let SetExpr::Select(sel) = q.body.as_ref() else {
                panic!()
            };
            let SelectItem::UnnamedExpr(x) = &sel.projection[0] else {
                panic!()
            };
            x.clone()
        };
        assert_eq!(and_also(None, expr("b = 2")).to_string(), "b = 2");
        assert_eq!(
            and_also(Some(expr("a = 1 OR c")), expr("b = 2")).to_string(),
            "(a = 1 OR c) AND b = 2"
        );
        assert_eq!(
            and_also(Some(expr("a = 1 AND c")), expr("b = 2")).to_string(),
            "a = 1 AND c AND b = 2"
        );
    }

    #[test]
    fn bare_columns_join_group_by() {
        assert_eq!(
            rw("SELECT name, count(*) FROM singer GROUP BY country").unwrap(),
            "SELECT name, count(*) FROM singer GROUP BY country, name"
        );
    }
}
