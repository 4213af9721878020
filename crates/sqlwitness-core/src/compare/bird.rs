//! BIRD mode: the official evaluator's `set(predicted_res) ==
//! set(ground_truth_res)` over row tuples, on the Python value model of
//! [`super::pyvalue`].
//!
//! Consequences, all reproduced: row order and duplicates never matter;
//! two empty results are equal whatever their columns; column order
//! matters; `1`, `1.0` and `True` are the same value; text `'1'` is not the
//! number 1.
//!
//! The reason reported for a mismatch (the verdict does not depend on it):
//! [`MismatchReason::ColumnCount`] when both sides have rows of different
//! widths; [`MismatchReason::ColumnOrder`] when a column permutation would
//! make the sets equal; [`MismatchReason::RowCount`] when the numbers of
//! distinct rows differ; [`MismatchReason::Values`] otherwise.

use std::collections::HashSet;

use super::pyvalue::{PyKey, PyValue};
use super::{identical_column_classes, search_permutations, Comparison, MismatchReason};
use crate::ResultSet;

pub(super) fn compare(gold: &ResultSet, pred: &ResultSet) -> Comparison {
    let g = rows(gold);
    let p = rows(pred);
    let gs: HashSet<&Vec<PyKey>> = g.iter().collect();
    let ps: HashSet<&Vec<PyKey>> = p.iter().collect();
    if gs == ps {
        return Comparison::EQUAL;
    }
    let gw = g.first().map(Vec::len);
    let pw = p.first().map(Vec::len);
    if let (Some(gw), Some(pw)) = (gw, pw) {
        if gw != pw {
            return Comparison::differ(MismatchReason::ColumnCount);
        }
        if gs.len() == ps.len() && p.iter().all(|r| r.len() == pw) && pw <= 8 {
            let candidates = vec![(0..pw).collect::<Vec<_>>(); pw];
            let class_of = identical_column_classes(&p, pw, |a, b| a == b);
            let repaired = search_permutations(&candidates, &class_of, usize::MAX, &mut |perm| {
                let permuted: HashSet<Vec<PyKey>> = p
                    .iter()
                    .map(|r| perm.iter().map(|&i| r[i].clone()).collect())
                    .collect();
                permuted.len() == gs.len() && permuted.iter().all(|r| gs.contains(r))
            });
            if repaired {
                return Comparison::differ(MismatchReason::ColumnOrder);
            }
        }
    }
    if gs.len() != ps.len() {
        Comparison::differ(MismatchReason::RowCount)
    } else {
        Comparison::differ(MismatchReason::Values)
    }
}

fn rows(rs: &ResultSet) -> Vec<Vec<PyKey>> {
    rs.rows
        .iter()
        .map(|r| r.iter().map(|v| PyValue::from_value(v).key()).collect())
        .collect()
}
