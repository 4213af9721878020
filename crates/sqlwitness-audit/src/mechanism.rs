//! Naming why two engines answer the same gold differently.

use std::collections::BTreeMap;

use sqlwitness_core::compare::{compare, CompareOptions, MismatchReason};
use sqlwitness_core::{canonical_cell, ResultSet, Value};

fn row_key(r: &[Value]) -> Vec<String> {
    r.iter().map(canonical_cell).collect()
}

fn counts(rs: &ResultSet) -> BTreeMap<Vec<String>, usize> {
    let mut m = BTreeMap::new();
    for r in &rs.rows {
        *m.entry(row_key(r)).or_insert(0) += 1;
    }
    m
}

/// `None` when `b` answers as `a` (strict comparison, ordered as given);
/// otherwise the mechanism: `order`, `null_order`, `multiplicity`,
/// `truncation` (when `limit_cut` — the query cuts a sorted or unsorted
/// result with LIMIT), `type`, `collation`, `other`.
pub fn mechanism(
    a: &ResultSet,
    b: &ResultSet,
    ordered: bool,
    limit_cut: bool,
    sql: &str,
) -> Option<&'static str> {
    mechanism_with(a, b, ordered, limit_cut, sql, false)
}

/// True when `sql` compares a TEXT column with a number, or a date/time
/// column with a string literal, on `schema`: SQLite compares them as
/// text, the servers as numbers or instants (the `text_vs_number` of
/// [`mechanism_with`]).
pub fn compares_across_types(sql: &str, schema: &sqlwitness_sql::SchemaInfo) -> bool {
    let probe = sqlwitness_dialect::Translations {
        text_comparisons: true,
        ..Default::default()
    };
    sqlwitness_sql::translate(sql, &probe, schema).is_some()
        || sqlwitness_sql::compares_temporal_with_text(sql, schema)
}

/// [`mechanism`], told whether the query compares a TEXT column with a
/// number, or a date/time column with a string literal (SQLite compares
/// them as text, the servers as numbers or instants): a difference nothing
/// else explains is then `type`, not `collation`.
pub fn mechanism_with(
    a: &ResultSet,
    b: &ResultSet,
    ordered: bool,
    limit_cut: bool,
    sql: &str,
    text_vs_number: bool,
) -> Option<&'static str> {
    let opts = CompareOptions {
        ordered,
        ..CompareOptions::default()
    };
    let cmp = compare(a, b, &opts);
    if cmp.equal {
        return None;
    }
    if cmp.reason == Some(MismatchReason::Order) {
        return Some(order_mechanism(a, b));
    }
    let (ca, cb) = (counts(a), counts(b));
    if ca.keys().eq(cb.keys()) {
        return Some("multiplicity");
    }
    // Text folded to lower case: a case-only difference is collation.
    if folded_counts(a) == folded_counts(b) {
        return Some("collation");
    }
    if a.rows.len() == b.rows.len() {
        if differ_by_type(a, b) {
            return Some("type");
        }
        if limit_cut {
            return Some("truncation");
        }
    }
    // Different rows where the query compares text with a literal: `=`
    // and LIKE are case-insensitive (and pad spaces) on MySQL, LIKE is
    // case-sensitive on PostgreSQL.
    if text_vs_number {
        return Some("type");
    }
    if compares_text(sql) {
        return Some("collation");
    }
    Some("other")
}

/// The mechanism of the same rows in another order: `null_order` when `a`
/// holds a NULL and the rows without one come in the same order, else
/// `order`.
fn order_mechanism(a: &ResultSet, b: &ResultSet) -> &'static str {
    let strip = |rs: &ResultSet| -> Vec<Vec<String>> {
        rs.rows
            .iter()
            .filter(|r| !r.iter().any(|v| matches!(v, Value::Null)))
            .map(|r| row_key(r))
            .collect()
    };
    let has_null = a.rows.iter().flatten().any(|v| matches!(v, Value::Null));
    if has_null && strip(a) == strip(b) {
        "null_order"
    } else {
        "order"
    }
}

/// How many times each row occurs, its text folded to lower case.
fn folded_counts(rs: &ResultSet) -> BTreeMap<Vec<String>, usize> {
    let mut m = BTreeMap::new();
    for r in &rs.rows {
        let k: Vec<String> = r
            .iter()
            .map(|v| match v {
                Value::Text(s) => format!("s:{}", s.to_lowercase()),
                v => canonical_cell(v),
            })
            .collect();
        *m.entry(k).or_insert(0) += 1;
    }
    m
}

/// Whether two answers of as many rows, both sorted, differ somewhere by a
/// value's type: a cell that differs is [`cells_differ_by_type`].
fn differ_by_type(a: &ResultSet, b: &ResultSet) -> bool {
    let mut ra: Vec<&Vec<Value>> = a.rows.iter().collect();
    let mut rb: Vec<&Vec<Value>> = b.rows.iter().collect();
    ra.sort_by_key(|r| row_key(r));
    rb.sort_by_key(|r| row_key(r));
    ra.iter().zip(&rb).any(|(x, y)| {
        x.iter()
            .zip(y.iter())
            .any(|(u, v)| canonical_cell(u) != canonical_cell(v) && cells_differ_by_type(u, v))
    })
}

/// Whether two different cells are the same value in other types: a number
/// and a text, integer division (2 vs 2.5) or decimal precision (MySQL's
/// AVG keeps 4 decimals: 10.4286 vs 10.428571428571429).
fn cells_differ_by_type(u: &Value, v: &Value) -> bool {
    let numeric_text = (u.is_numeric() && matches!(v, Value::Text(_)))
        || (v.is_numeric() && matches!(u, Value::Text(_)));
    let numeric = match (u.as_f64(), v.as_f64()) {
        (Some(p), Some(q)) => {
            (p.trunc() == q.trunc() && (p.fract() == 0.0) != (q.fract() == 0.0))
                || (p - q).abs() <= 1e-3 * p.abs().max(q.abs())
        }
        _ => false,
    };
    numeric_text || numeric
}

/// Whether `sql` compares text with a string literal (`=`, `IN`) or
/// matches it with LIKE.
fn compares_text(sql: &str) -> bool {
    let lower = sql.to_ascii_lowercase();
    lower.contains(" like ")
        || [
            "= '", "= \"", "=  '", "=  \"", "='", "=\"", "in ('", "in (\"",
        ]
        .iter()
        .any(|p| lower.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlwitness_core::Column;

    fn rs(rows: Vec<Vec<Value>>) -> ResultSet {
        ResultSet::new(vec![Column::new("a", None)], rows)
    }

    #[test]
    fn cells_that_differ_by_type_only() {
        let t = |s: &str| Value::Text(s.into());
        assert!(cells_differ_by_type(&Value::Int(2), &t("2")));
        assert!(cells_differ_by_type(&Value::Int(2), &Value::Float(2.5)));
        assert!(cells_differ_by_type(
            &Value::Float(10.428571428571429),
            &Value::Decimal("10.4286".into())
        ));
        assert!(!cells_differ_by_type(&Value::Int(2), &Value::Int(3)));
        assert!(!cells_differ_by_type(&t("a"), &t("b")));
    }

    #[test]
    fn text_compared_with_a_literal() {
        assert!(compares_text("SELECT a FROM t WHERE city = 'x'"));
        assert!(compares_text("SELECT a FROM t WHERE city IN (\"x\")"));
        assert!(compares_text("SELECT a FROM t WHERE city LIKE 'x%'"));
        assert!(!compares_text("SELECT a FROM t WHERE id = 3"));
    }

    #[test]
    fn mechanisms() {
        let t = |s: &str| Value::Text(s.into());
        assert_eq!(
            mechanism(
                &rs(vec![vec![t("a")]]),
                &rs(vec![vec![t("a")]]),
                true,
                false,
                ""
            ),
            None
        );
        assert_eq!(
            mechanism(
                &rs(vec![vec![t("a")], vec![t("b")]]),
                &rs(vec![vec![t("b")], vec![t("a")]]),
                true,
                false,
                ""
            ),
            Some("order")
        );
        assert_eq!(
            mechanism(
                &rs(vec![vec![Value::Null], vec![t("b")]]),
                &rs(vec![vec![t("b")], vec![Value::Null]]),
                true,
                false,
                ""
            ),
            Some("null_order")
        );
        assert_eq!(
            mechanism(
                &rs(vec![vec![t("a")], vec![t("a")]]),
                &rs(vec![vec![t("a")]]),
                false,
                false,
                ""
            ),
            Some("multiplicity")
        );
        assert_eq!(
            mechanism(
                &rs(vec![vec![Value::Int(2)]]),
                &rs(vec![vec![Value::Float(2.5)]]),
                false,
                false,
                ""
            ),
            Some("type")
        );
        assert_eq!(
            mechanism(
                &rs(vec![vec![t("Ab")]]),
                &rs(vec![vec![t("ab")]]),
                false,
                false,
                ""
            ),
            Some("collation")
        );
        assert_eq!(
            mechanism(
                &rs(vec![vec![t("x")]]),
                &rs(vec![vec![t("y")]]),
                false,
                true,
                ""
            ),
            Some("truncation")
        );
        assert_eq!(
            mechanism(
                &rs(vec![vec![t("x")]]),
                &rs(vec![vec![t("y")]]),
                false,
                false,
                ""
            ),
            Some("other")
        );
        assert_eq!(
            mechanism(
                &rs(vec![vec![Value::Float(10.428571428571429)]]),
                &rs(vec![vec![Value::Decimal("10.4286".into())]]),
                false,
                false,
                ""
            ),
            Some("type")
        );
        assert_eq!(
            mechanism(
                &rs(vec![]),
                &rs(vec![vec![t("Anthony ")]]),
                false,
                false,
                "SELECT a FROM t WHERE city = \"Anthony\""
            ),
            Some("collation")
        );
        // Same shape, NULL aggregates vs values: `=` matched case-insensitively.
        assert_eq!(
            mechanism(
                &rs(vec![vec![Value::Null]]),
                &rs(vec![vec![Value::Int(480)]]),
                false,
                false,
                "SELECT sum(p) FROM c WHERE continent = \"north america\""
            ),
            Some("collation")
        );
        // A TEXT column compared with a number: text order vs numeric order.
        assert_eq!(
            mechanism_with(
                &rs(vec![vec![Value::Int(281)]]),
                &rs(vec![vec![Value::Int(49)]]),
                false,
                false,
                "SELECT count(*) FROM t WHERE hp > 150",
                true
            ),
            Some("type")
        );
    }
}
