//! BIRD mini-dev's Soft F1 (`evaluation_f1.py`, `calculate_f1_score`): a
//! partial-credit score of a predicted result against the gold's, on the
//! Python value model of [`super::pyvalue`].
//!
//! Both results empty: 1.0. Otherwise each side's rows are deduplicated
//! (first occurrence kept, order kept) and paired by position. For a pair,
//! with `n` the gold row's width: `match` = predicted cells found in the
//! gold row, `pred_only` = predicted cells not found there, `truth_only` =
//! gold cells not found in the predicted row, each divided by `n`. A gold
//! row without a partner adds `truth_only` 1; a predicted row without one
//! adds `pred_only` 1. With `tp`, `fp`, `fn` the sums: precision =
//! tp / (tp + fp), recall = tp / (tp + fn) (0 when the denominator is 0),
//! F1 = 2·p·r / (p + r) (0 when p + r is 0). A gold row of no columns
//! (Python's division by zero) scores 0, as the official script's
//! exception handler does.

use std::hash::{Hash, Hasher};

use super::pyvalue::{PyKey, PyValue};
use crate::ResultSet;

/// Soft F1 of `pred` against `gold`, in [0, 1].
pub fn soft_f1(gold: &ResultSet, pred: &ResultSet) -> f64 {
    let g = |i: usize| key(&gold.rows[i]);
    let p = |i: usize| key(&pred.rows[i]);
    soft_f1_by((gold.rows.len(), &g, &g), (pred.rows.len(), &p, &p))
}

/// [`soft_f1`] of results given, each, by its row count, a function from a
/// row's index to a key of the whole row (equal for the rows Python finds
/// equal, for the deduplication) and one to its cells' keys (equal for the
/// values Python finds equal): the Python keys themselves, or hashes of
/// them ([`python_key_hash`]) for a result held as hashes.
#[allow(clippy::type_complexity)]
pub fn soft_f1_by<R: Eq + Hash, K: PartialEq>(
    gold: (usize, &dyn Fn(usize) -> R, &dyn Fn(usize) -> Vec<K>),
    pred: (usize, &dyn Fn(usize) -> R, &dyn Fn(usize) -> Vec<K>),
) -> f64 {
    let (gold_rows, gold_row, gold) = gold;
    let (pred_rows, pred_row, pred) = pred;
    if gold_rows == 0 && pred_rows == 0 {
        return 1.0;
    }
    let g = dedup(gold_rows, gold_row);
    let p = dedup(pred_rows, pred_row);
    let (mut tp, mut fp, mut fn_) = (0.0, 0.0, 0.0);
    for (i, &gi) in g.iter().enumerate() {
        let Some(&pi) = p.get(i) else {
            fn_ += 1.0;
            continue;
        };
        let (gr, pr) = (gold(gi), pred(pi));
        let n = gr.len() as f64;
        if gr.is_empty() {
            return 0.0;
        }
        let found = pr.iter().filter(|v| gr.contains(v)).count() as f64;
        tp += found / n;
        fp += (pr.len() as f64 - found) / n;
        fn_ += gr.iter().filter(|v| !pr.contains(v)).count() as f64 / n;
    }
    fp += p.len().saturating_sub(g.len()) as f64;
    let precision = if tp + fp > 0.0 { tp / (tp + fp) } else { 0.0 };
    let recall = if tp + fn_ > 0.0 { tp / (tp + fn_) } else { 0.0 };
    if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    }
}

/// A cell's Python key (the value [`soft_f1`] compares) as a 64-bit hash
/// under `seed`: values Python finds equal (`1`, `1.0`, `True`) hash alike.
pub fn python_key_hash(v: &crate::Value, seed: u64) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::with_seed(seed);
    PyValue::from_value(v).key().hash(&mut h);
    h.finish()
}

/// `list(dict.fromkeys(rows))`: the indices of the rows left when
/// duplicates (as Python keys) are dropped, first occurrences in order.
fn dedup<R: Eq + Hash>(rows: usize, key: &dyn Fn(usize) -> R) -> Vec<usize> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for i in 0..rows {
        if seen.insert(key(i)) {
            out.push(i);
        }
    }
    out
}

/// A row as Python keys.
fn key(row: &[crate::Value]) -> Vec<PyKey> {
    row.iter().map(|v| PyValue::from_value(v).key()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Value;

    fn rs(rows: Vec<Vec<Value>>) -> ResultSet {
        ResultSet::new(Vec::new(), rows)
    }

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-12, "{a} != {b}");
    }

    #[test]
    fn both_empty_is_one_and_one_empty_is_zero() {
        close(soft_f1(&rs(vec![]), &rs(vec![])), 1.0);
        close(soft_f1(&rs(vec![vec![Value::Int(1)]]), &rs(vec![])), 0.0);
        close(soft_f1(&rs(vec![]), &rs(vec![vec![Value::Int(1)]])), 0.0);
    }

    #[test]
    fn identical_results_score_one_whatever_the_duplicates() {
        let g = rs(vec![vec![Value::Int(1), Value::Text("a".into())]]);
        let p = rs(vec![
            vec![Value::Float(1.0), Value::Text("a".into())],
            vec![Value::Int(1), Value::Text("a".into())],
        ]);
        close(soft_f1(&g, &p), 1.0);
    }

    #[test]
    fn hand_computed_partial_credit() {
        // Gold (1, 2), (3, 4); prediction (1, 5), (3, 4), (7, 8).
        // Pair 1: match 1/2, pred_only 1/2, truth_only 1/2.
        // Pair 2: match 1, pred_only 0, truth_only 0. Extra predicted row:
        // pred_only 1. tp = 1.5, fp = 1.5, fn = 0.5: precision 0.5,
        // recall 0.75, F1 = 2·0.5·0.75/1.25 = 0.6.
        let i = Value::Int;
        let g = rs(vec![vec![i(1), i(2)], vec![i(3), i(4)]]);
        let p = rs(vec![vec![i(1), i(5)], vec![i(3), i(4)], vec![i(7), i(8)]]);
        close(soft_f1(&g, &p), 0.6);
        // Rows in another order pair differently: gold (1), (2);
        // prediction (2), (1): no cell matches its partner, F1 = 0.
        let g = rs(vec![vec![i(1)], vec![i(2)]]);
        let p = rs(vec![vec![i(2)], vec![i(1)]]);
        close(soft_f1(&g, &p), 0.0);
        // A missing gold row: gold (1), (2); prediction (1):
        // tp 1, fp 0, fn 1: precision 1, recall 0.5, F1 = 2/3.
        let g = rs(vec![vec![i(1)], vec![i(2)]]);
        let p = rs(vec![vec![i(1)]]);
        close(soft_f1(&g, &p), 2.0 / 3.0);
        // Widths differ: gold (1, 2, 3); prediction (3, 1): match 2/3,
        // pred_only 0, truth_only 1/3: precision 1, recall 2/3, F1 = 0.8.
        let g = rs(vec![vec![i(1), i(2), i(3)]]);
        let p = rs(vec![vec![i(3), i(1)]]);
        close(soft_f1(&g, &p), 0.8);
        // Text '1' is not the number 1.
        let g = rs(vec![vec![i(1)]]);
        let p = rs(vec![vec![Value::Text("1".into())]]);
        close(soft_f1(&g, &p), 0.0);
    }
}
