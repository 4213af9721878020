//! Why a non-strict comparison credits an answer the strict one rejects.
//!
//! [`credit_causes`] relaxes the strict comparison one rule at a time and
//! names the smallest set of relaxations under which it accepts the pair:
//!
//! * [`CreditCause::RowOrder`] — rows compared as a multiset although the
//!   gold is ordered;
//! * [`CreditCause::ColumnOrder`] — any column order;
//! * [`CreditCause::Multiplicity`] — duplicate rows dropped on both sides;
//! * [`CreditCause::Subset`] — the prediction's extra columns dropped (each
//!   gold column matched, in order, to a predicted column with the same
//!   values);
//! * [`CreditCause::Truncation`] — both results cut to their first
//!   [`LIVESQLBENCH_MAX_ROWS`](super::LIVESQLBENCH_MAX_ROWS) rows;
//! * [`CreditCause::Type`] — values of different types or representations
//!   taken as one: booleans and decimals as numbers, numeric text as its
//!   number, `'true'`/`'false'` as 1/0, `NULL`, empty or NA-looking text and
//!   `-99999` as 0, a timestamp as its date, JSON text by its sorted keys
//!   (a JSON string as its text);
//! * [`CreditCause::Tolerance`] — numbers rounded to two decimals (floats
//!   as Python's `round`, decimals half away from zero), a predicted number
//!   within `0.01` (or a relative `1e-4`) of a gold number taken as that
//!   number, and a relative tolerance of `1e-4`.
//!
//! When even all of them together do not make the strict comparison
//! accept, the cause is [`CreditCause::Broadcast`] when the two results are
//! equal under NumPy's broadcasting (defog's first test: an empty result
//! against one row, one row against many copies of it, one column against
//! several), else [`CreditCause::Other`]. The search starts from every
//! relaxation and drops, in the order above, each one the acceptance does
//! not need, so the result is minimal (no cause can be left out) though not
//! always the only minimal set.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::livesqlbench::{python_dumps, quantize_cents};
use super::{compare, CompareMode, CompareOptions, LIVESQLBENCH_MAX_ROWS};
use crate::{canonical_cell, ResultSet, Value};

/// One reason a scorer credits what the strict comparison rejects (see the
/// module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CreditCause {
    RowOrder,
    ColumnOrder,
    Multiplicity,
    Subset,
    Truncation,
    Type,
    Tolerance,
    Broadcast,
    Other,
}

impl CreditCause {
    /// The relaxations, in the order they are dropped when not needed.
    const RELAXATIONS: [CreditCause; 7] = [
        CreditCause::RowOrder,
        CreditCause::ColumnOrder,
        CreditCause::Multiplicity,
        CreditCause::Subset,
        CreditCause::Truncation,
        CreditCause::Type,
        CreditCause::Tolerance,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            CreditCause::RowOrder => "row_order",
            CreditCause::ColumnOrder => "column_order",
            CreditCause::Multiplicity => "multiplicity",
            CreditCause::Subset => "subset",
            CreditCause::Truncation => "truncation",
            CreditCause::Type => "type",
            CreditCause::Tolerance => "tolerance",
            CreditCause::Broadcast => "broadcast",
            CreditCause::Other => "other",
        }
    }
}

impl std::fmt::Display for CreditCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The causes for which a scorer that credits `pred` differs from the
/// strict comparison under `strict` (its mode is taken as strict; its
/// `ordered`, `column_order_any` and tolerance apply). Empty when the
/// strict comparison accepts the pair.
pub fn credit_causes(
    gold: &ResultSet,
    pred: &ResultSet,
    strict: &CompareOptions,
) -> Vec<CreditCause> {
    let base = CompareOptions {
        mode: CompareMode::Strict,
        ..*strict
    };
    if compare(gold, pred, &base).equal {
        return Vec::new();
    }
    let mut kept = CreditCause::RELAXATIONS.to_vec();
    if !accepts(gold, pred, &base, &kept) {
        return vec![if broadcast_equal(gold, pred) {
            CreditCause::Broadcast
        } else {
            CreditCause::Other
        }];
    }
    for cause in CreditCause::RELAXATIONS {
        let without: Vec<CreditCause> = kept.iter().copied().filter(|c| *c != cause).collect();
        if accepts(gold, pred, &base, &without) {
            kept = without;
        }
    }
    kept
}

fn accepts(
    gold: &ResultSet,
    pred: &ResultSet,
    base: &CompareOptions,
    relax: &[CreditCause],
) -> bool {
    let has = |c: CreditCause| relax.contains(&c);
    let (mut g, mut p) = (gold.clone(), pred.clone());
    if has(CreditCause::Truncation) {
        g.rows.truncate(LIVESQLBENCH_MAX_ROWS);
        p.rows.truncate(LIVESQLBENCH_MAX_ROWS);
    }
    // Numbers snap to the gold's and round before decimals become floats,
    // and again after numeric text has become numbers.
    for flag in [
        CreditCause::Tolerance,
        CreditCause::Type,
        CreditCause::Tolerance,
    ] {
        if !has(flag) {
            continue;
        }
        if flag == CreditCause::Tolerance {
            snap(&g, &mut p);
        }
        let f = if flag == CreditCause::Type {
            loose_type
        } else {
            rounded
        };
        for rs in [&mut g, &mut p] {
            rs.rows.iter_mut().flatten().for_each(|v| *v = f(v));
        }
        if flag == CreditCause::Tolerance {
            snap(&g, &mut p);
        }
    }
    // Columns are matched with the duplicates and, failing that, without
    // them; a projection can make rows equal.
    for step in [
        CreditCause::Subset,
        CreditCause::Multiplicity,
        CreditCause::Subset,
        CreditCause::Multiplicity,
    ] {
        if !has(step) {
            continue;
        }
        if step == CreditCause::Subset {
            if let Some(projected) = project(&g, &p) {
                p = projected;
            }
        } else {
            dedup(&mut g);
            dedup(&mut p);
        }
    }
    let opts = CompareOptions {
        mode: CompareMode::Strict,
        ordered: base.ordered && !has(CreditCause::RowOrder),
        column_order_any: base.column_order_any || has(CreditCause::ColumnOrder),
        float_rel_tol: if has(CreditCause::Tolerance) {
            base.float_rel_tol.max(1e-4)
        } else {
            base.float_rel_tol
        },
    };
    compare(&g, &p, &opts).equal
}

/// The value with its type loosened (see [`CreditCause::Type`]).
fn loose_type(v: &Value) -> Value {
    match v {
        Value::Null => Value::Int(0),
        Value::Int(-99999) => Value::Int(0),
        Value::Bool(b) => Value::Int(i64::from(*b)),
        Value::Decimal(d) => d.trim().parse().map_or_else(|_| v.clone(), Value::Float),
        Value::Timestamp(s) => Value::Text(s.get(..10).unwrap_or(s).to_string()),
        Value::Date(s) | Value::Time(s) => Value::Text(s.clone()),
        Value::Text(s) => loose_text(s),
        Value::Float(f) if *f == -99999.0 => Value::Int(0),
        _ => v.clone(),
    }
}

fn loose_text(s: &str) -> Value {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    match lower.as_str() {
        "" | "null" | "none" | "nan" | "na" | "n/a" | "<na>" => return Value::Int(0),
        "true" => return Value::Int(1),
        "false" => return Value::Int(0),
        _ => {}
    }
    if let Ok(f) = t.parse::<f64>() {
        return Value::Float(f);
    }
    if t.starts_with('"') {
        if let Ok(serde_json::Value::String(inner)) = serde_json::from_str(t) {
            return Value::Text(inner);
        }
    }
    if t.starts_with('{') || t.starts_with('[') {
        if let Ok(j) = serde_json::from_str::<serde_json::Value>(t) {
            let mut out = String::new();
            python_dumps(&j, &mut out);
            return Value::Text(out);
        }
    }
    Value::Text(s.to_string())
}

/// Numbers rounded to two decimals (see [`CreditCause::Tolerance`]).
fn rounded(v: &Value) -> Value {
    let round = |f: f64| -> f64 {
        if f.is_finite() {
            format!("{f:.2}").parse().unwrap_or(f)
        } else {
            f
        }
    };
    match v {
        Value::Float(f) => Value::Float(round(*f)),
        Value::Decimal(d) => match quantize_cents(d) {
            Some(c) => Value::Decimal(format!(
                "{}{}.{:02}",
                if c < 0 { "-" } else { "" },
                c.abs() / 100,
                c.abs() % 100
            )),
            None => v.clone(),
        },
        _ => v.clone(),
    }
}

/// Each finite predicted number within `0.01` or a relative `1e-4` of a
/// finite gold number becomes the nearest such gold value.
fn snap(gold: &ResultSet, pred: &mut ResultSet) {
    let mut numbers: Vec<(f64, &Value)> = gold
        .rows
        .iter()
        .flatten()
        .filter_map(|v| Some((v.as_f64()?, v)))
        .filter(|(f, _)| f.is_finite())
        .collect();
    numbers.sort_by(|a, b| a.0.total_cmp(&b.0));
    for v in pred.rows.iter_mut().flatten() {
        let Some(x) = v.as_f64().filter(|x| x.is_finite()) else {
            continue;
        };
        let i = numbers.partition_point(|(f, _)| *f < x);
        let near = [i.checked_sub(1), Some(i)]
            .into_iter()
            .flatten()
            .filter_map(|k| numbers.get(k))
            .min_by(|a, b| (a.0 - x).abs().total_cmp(&(b.0 - x).abs()));
        if let Some((f, gv)) = near {
            let d = (f - x).abs();
            if d <= 0.01 || d <= 1e-4 * f.abs().max(x.abs()) {
                *v = (*gv).clone();
            }
        }
    }
}

/// The prediction cut to the columns that match the gold's, one each, in
/// the gold's order; `None` when it has no more columns than the gold or
/// some gold column has no match.
fn project(gold: &ResultSet, pred: &ResultSet) -> Option<ResultSet> {
    let (gw, pw) = (super::width(gold), super::width(pred));
    if pw <= gw {
        return None;
    }
    let column = |rs: &ResultSet, j: usize| -> Vec<String> {
        let mut c: Vec<String> = rs
            .rows
            .iter()
            .map(|r| r.get(j).map(canonical_cell).unwrap_or_default())
            .collect();
        c.sort();
        c
    };
    let mut used = vec![false; pw];
    let mut picked = Vec::with_capacity(gw);
    for j in 0..gw {
        let want = column(gold, j);
        let k = (0..pw).find(|&k| !used[k] && column(pred, k) == want)?;
        used[k] = true;
        picked.push(k);
    }
    Some(ResultSet::new(
        picked
            .iter()
            .filter_map(|&k| pred.columns.get(k).cloned())
            .collect(),
        pred.rows
            .iter()
            .map(|r| picked.iter().filter_map(|&k| r.get(k).cloned()).collect())
            .collect(),
    ))
}

/// Equal cell by cell under NumPy's broadcasting: a dimension of 1 is
/// repeated against the other side's, and a dimension of 0 against 1 leaves
/// nothing to compare.
fn broadcast_equal(gold: &ResultSet, pred: &ResultSet) -> bool {
    let shape = |rs: &ResultSet| (rs.rows.len(), super::width(rs));
    let ((gn, gw), (pn, pw)) = (shape(gold), shape(pred));
    let dim = |a: usize, b: usize| match (a, b) {
        _ if a == b => Some(a),
        (1, _) => Some(b),
        (_, 1) => Some(a),
        _ => None,
    };
    let (Some(n), Some(w)) = (dim(gn, pn), dim(gw, pw)) else {
        return false;
    };
    let at = |size: usize, i: usize| if size == 1 { 0 } else { i };
    let cell = |rs: &ResultSet, i: usize, j: usize| rs.rows[i].get(j).map(canonical_cell);
    (0..n).all(|i| {
        (0..w).all(|j| cell(gold, at(gn, i), at(gw, j)) == cell(pred, at(pn, i), at(pw, j)))
    })
}

fn dedup(rs: &mut ResultSet) {
    let mut seen = HashSet::new();
    rs.rows
        .retain(|r| seen.insert(r.iter().map(canonical_cell).collect::<Vec<_>>()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Column;

    fn rs(width: usize, rows: Vec<Vec<Value>>) -> ResultSet {
        let cols = (0..width)
            .map(|i| Column::new(format!("c{i}"), None))
            .collect();
        ResultSet::new(cols, rows)
    }

    fn ints(rows: &[&[i64]]) -> ResultSet {
        let w = rows.first().map_or(1, |r| r.len());
        rs(
            w,
            rows.iter()
                .map(|r| r.iter().map(|&i| Value::Int(i)).collect())
                .collect(),
        )
    }

    fn causes(gold: &ResultSet, pred: &ResultSet, ordered: bool) -> Vec<CreditCause> {
        credit_causes(gold, pred, &CompareOptions::default().ordered(ordered))
    }

    #[test]
    fn equal_answers_have_no_cause() {
        let a = ints(&[&[1], &[2]]);
        assert!(causes(&a, &a, true).is_empty());
    }

    #[test]
    fn each_relaxation_is_named_alone() {
        use CreditCause::*;
        let gold = ints(&[&[1, 2], &[3, 4]]);
        assert_eq!(causes(&gold, &ints(&[&[3, 4], &[1, 2]]), true), [RowOrder]);
        assert_eq!(
            causes(&gold, &ints(&[&[2, 1], &[4, 3]]), false),
            [ColumnOrder]
        );
        assert_eq!(
            causes(&gold, &ints(&[&[1, 2], &[3, 4], &[3, 4]]), false),
            [Multiplicity]
        );
        assert_eq!(
            causes(&gold, &ints(&[&[9, 1, 2], &[8, 3, 4]]), false),
            [Subset]
        );
        let text = rs(
            2,
            vec![
                vec![Value::Text("1".into()), Value::Int(2)],
                vec![Value::Int(3), Value::Decimal("4".into())],
            ],
        );
        assert_eq!(causes(&gold, &text, false), [Type]);
        let close = rs(
            2,
            vec![
                vec![Value::Float(1.004), Value::Int(2)],
                vec![Value::Int(3), Value::Int(4)],
            ],
        );
        assert_eq!(causes(&gold, &close, false), [Tolerance]);
        let long: Vec<Vec<Value>> = (0..10_001).map(|i| vec![Value::Int(i)]).collect();
        let mut longer = long.clone();
        longer.push(vec![Value::Int(-1)]);
        assert_eq!(causes(&rs(1, long), &rs(1, longer), false), [Truncation]);
    }

    #[test]
    fn causes_combine_and_unexplained_is_other() {
        use CreditCause::*;
        let gold = ints(&[&[1], &[2]]);
        let pred = rs(
            2,
            vec![
                vec![Value::Text("x".into()), Value::Int(2)],
                vec![Value::Text("y".into()), Value::Int(1)],
                vec![Value::Text("y".into()), Value::Int(1)],
            ],
        );
        assert_eq!(causes(&gold, &pred, true), [RowOrder, Multiplicity, Subset]);
        assert_eq!(causes(&gold, &ints(&[&[5]]), false), [Other]);
        let empty = rs(1, vec![]);
        assert_eq!(causes(&ints(&[&[5]]), &empty, false), [Broadcast]);
        assert_eq!(
            causes(&ints(&[&[5, 5]]), &ints(&[&[5]]), false),
            [Broadcast]
        );
        let null = rs(1, vec![vec![Value::Null], vec![Value::Int(2)]]);
        assert_eq!(causes(&ints(&[&[0], &[2]]), &null, false), [Type]);
    }
}
