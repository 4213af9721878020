//! Spider 2.0 mode: the verdict of `compare_pandas_table` and
//! `compare_multi_pandas_table` in Spider 2.0's official evaluation suite
//! (`xlang-ai/Spider2`, `spider2-lite/evaluation_suite/evaluate.py`), on
//! the results as that evaluator sees them after its CSV round trip
//! ([`super::spider2_csv`]).
//!
//! The rules, all reproduced:
//!
//! * The gold is read as column vectors (with `condition_cols`, only the
//!   listed gold columns). The prediction is equal when **every gold
//!   column equals some predicted column**: predicted columns may be extra,
//!   in any order, and one predicted column may stand for several gold
//!   columns. Column names never matter.
//! * Every NaN (a `NULL`, an empty text, an NA string such as `'NULL'`) is
//!   replaced by the integer `0` before anything else, so `NULL` equals `0`
//!   and `0.004`.
//! * With `ignore_order`, both vectors are sorted by `(str(x), x is a
//!   number)` — by their text, not their value — and then compared
//!   pairwise, as without it. Two vectors of different lengths differ.
//! * Two numbers (booleans included) are equal when
//!   `math.isclose(a, b, rel_tol=1e-9, abs_tol=0.01)`; anything else equal
//!   only when both are the same text. Text that read back as a number
//!   (`'7'`) is that number.
//! * Several golds: the prediction is equal when it matches any of them.
//!
//! Consequences of sorting by text: with `ignore_order`, values within
//! the tolerance can sort apart (`9.999` sorts after `10.5`, `10.001`
//! before) and then fail.
//!
//! The reason reported for a mismatch (the verdict does not depend on it):
//! [`MismatchReason::Order`] when the gold is ordered and the same test
//! ignoring row order passes; [`MismatchReason::RowCount`] when the
//! numbers of rows differ; [`MismatchReason::Values`] otherwise.

use super::pyvalue::float_repr;
use super::spider2_csv::{frame_values, read_back, Cell};
use super::{Comparison, MismatchReason};
use crate::ResultSet;

/// The evaluator's absolute tolerance (`abs_tol` of `math.isclose`).
pub const SPIDER2_ABS_TOL: f64 = 1e-2;

pub(super) fn compare(gold: &ResultSet, pred: &ResultSet, ordered: bool) -> Comparison {
    if spider2_equal(gold, pred, &[], !ordered) {
        return Comparison::EQUAL;
    }
    if ordered && spider2_equal(gold, pred, &[], true) {
        return Comparison::differ(MismatchReason::Order);
    }
    if gold.rows.len() != pred.rows.len() {
        return Comparison::differ(MismatchReason::RowCount);
    }
    Comparison::differ(MismatchReason::Values)
}

/// Spider 2.0's `compare_pandas_table(pred, gold, condition_cols,
/// ignore_order)`: true when every gold column (only those listed in
/// `condition_cols`, when it is not empty) equals some predicted column. A
/// listed column that does not exist gives false (the evaluator fails on it
/// and scores 0).
pub fn spider2_equal(
    gold: &ResultSet,
    pred: &ResultSet,
    condition_cols: &[usize],
    ignore_order: bool,
) -> bool {
    let gold_columns = read_back(gold);
    let selected: Vec<_> = if condition_cols.is_empty() {
        gold_columns.iter().collect()
    } else {
        let picked: Option<Vec<_>> = condition_cols
            .iter()
            .map(|&i| gold_columns.get(i))
            .collect();
        match picked {
            Some(p) => p,
            None => return false,
        }
    };
    let pred_columns = read_back(pred);
    let pred_vectors = prepared(
        frame_values(&pred_columns.iter().collect::<Vec<_>>()),
        ignore_order,
    );
    prepared(frame_values(&selected), ignore_order)
        .iter()
        .all(|g| pred_vectors.iter().any(|p| vectors_match(g, p)))
}

/// Spider 2.0's `compare_multi_pandas_table`: true when the prediction
/// matches any of `golds` under [`spider2_equal`] with the same
/// `condition_cols`. No gold gives false.
pub fn spider2_equal_any(
    golds: &[ResultSet],
    pred: &ResultSet,
    condition_cols: &[usize],
    ignore_order: bool,
) -> bool {
    golds
        .iter()
        .any(|g| spider2_equal(g, pred, condition_cols, ignore_order))
}

/// A normalised value: NaN is already the integer 0.
#[derive(Debug, Clone, PartialEq)]
enum Norm {
    Int(i128),
    Float(f64),
    Bool(bool),
    Str(String),
}

impl Norm {
    fn of(c: Cell) -> Norm {
        match c {
            Cell::Nan => Norm::Int(0),
            Cell::Float(f) if f.is_nan() => Norm::Int(0),
            Cell::Int(i) => Norm::Int(i),
            Cell::Float(f) => Norm::Float(f),
            Cell::Bool(b) => Norm::Bool(b),
            Cell::Str(s) => Norm::Str(s),
        }
    }

    /// Python's `str(x)`.
    fn text(&self) -> String {
        match self {
            Norm::Int(i) => i.to_string(),
            Norm::Float(f) => float_repr(*f),
            Norm::Bool(true) => "True".into(),
            Norm::Bool(false) => "False".into(),
            Norm::Str(s) => s.clone(),
        }
    }

    fn number(&self) -> Option<f64> {
        match self {
            Norm::Int(i) => Some(*i as f64),
            Norm::Float(f) => Some(*f),
            Norm::Bool(b) => Some(f64::from(u8::from(*b))),
            Norm::Str(_) => None,
        }
    }
}

/// Each vector normalised and, with `ignore_order`, sorted by the
/// evaluator's key `(str(x), x is a number)` (a stable sort, as Python's).
fn prepared(vectors: Vec<Vec<Cell>>, ignore_order: bool) -> Vec<Vec<Norm>> {
    vectors
        .into_iter()
        .map(|v| {
            let mut v: Vec<Norm> = v.into_iter().map(Norm::of).collect();
            if ignore_order {
                v.sort_by_cached_key(|x| (x.text(), x.number().is_some()));
            }
            v
        })
        .collect()
}

fn vectors_match(a: &[Norm], b: &[Norm]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| match (x.number(), y.number()) {
                (Some(x), Some(y)) => is_close(x, y),
                _ => matches!((x, y), (Norm::Str(s), Norm::Str(t)) if s == t),
            })
}

/// Python's `math.isclose(a, b, rel_tol=1e-9, abs_tol=0.01)`.
fn is_close(a: f64, b: f64) -> bool {
    if a == b {
        return true;
    }
    if a.is_infinite() || b.is_infinite() {
        return false;
    }
    let diff = (a - b).abs();
    diff <= 1e-9 * b.abs() || diff <= 1e-9 * a.abs() || diff <= SPIDER2_ABS_TOL
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Column, Value};

    fn rs(rows: Vec<Vec<Value>>) -> ResultSet {
        let w = rows.first().map_or(1, Vec::len);
        let cols = (0..w).map(|i| Column::new(format!("c{i}"), None)).collect();
        ResultSet::new(cols, rows)
    }

    #[test]
    fn gold_columns_found_among_extra_predicted_columns() {
        let gold = rs(vec![vec![Value::Int(1)], vec![Value::Int(2)]]);
        let pred = rs(vec![
            vec![Value::Text("x".into()), Value::Float(1.004)],
            vec![Value::Text("y".into()), Value::Float(2.0)],
        ]);
        assert!(spider2_equal(&gold, &pred, &[], false));
        assert!(!spider2_equal(&pred, &gold, &[], false));
    }

    #[test]
    fn null_is_zero_and_text_numbers_are_numbers() {
        let gold = rs(vec![vec![Value::Null], vec![Value::Int(7)]]);
        let pred = rs(vec![
            vec![Value::Float(0.005)],
            vec![Value::Text("7".into())],
        ]);
        assert!(spider2_equal(&gold, &pred, &[], false));
    }

    #[test]
    fn sorting_by_text_separates_close_values() {
        let gold = rs(vec![vec![Value::Float(9.999)], vec![Value::Float(10.5)]]);
        let pred = rs(vec![vec![Value::Float(10.001)], vec![Value::Float(10.5)]]);
        assert!(spider2_equal(&gold, &pred, &[], false));
        assert!(!spider2_equal(&gold, &pred, &[], true));
    }

    #[test]
    fn condition_columns_and_several_golds() {
        let gold = rs(vec![vec![Value::Int(1), Value::Int(5)]]);
        let pred = rs(vec![vec![Value::Int(1)]]);
        assert!(!spider2_equal(&gold, &pred, &[], false));
        assert!(spider2_equal(&gold, &pred, &[0], false));
        assert!(!spider2_equal(&gold, &pred, &[2], false));
        let other = rs(vec![vec![Value::Int(1)]]);
        assert!(spider2_equal_any(&[gold, other], &pred, &[], false));
    }
}
