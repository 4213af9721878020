//! Tie-aware verdicts: is a prediction's answer one of the gold's valid
//! answers when the gold's LIMIT cuts through ties, or when its ORDER BY
//! leaves the order of rows with equal keys free?
//!
//! For a gold `SELECT … ORDER BY k LIMIT n OFFSET o`, every valid answer
//! has the same sequence of sort keys at positions `o+1 … o+n` of the fully
//! sorted rows; within one key value, any rows carrying that key may fill
//! the positions. So membership is checked without enumerating the
//! answers: the prediction must have as many rows as the window, and for
//! each key value the predicted rows at its positions must be a
//! sub-multiset of the rows (select list only) that carry that key.
//! Without a LIMIT the window is every row: the prediction must list the
//! same rows, each run of equal keys in any order.

use std::collections::HashMap;

use sqlwitness_core::{canonical_cell, Database, Engine, QueryLimits, Value};

use crate::{top_order_probe, Probe};

/// The cells' canonical forms (numbers across types, floats to 12
/// significant digits), hashed to 128 bits: two keys are equal exactly
/// when the canonical cells are (up to a 2^-128 collision), and a window of
/// hundreds of thousands of rows holds 16 bytes a key, not a string a cell.
fn key(cells: &[Value]) -> u128 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for c in cells {
        let text = canonical_cell(c);
        h.update(&(text.len() as u64).to_le_bytes());
        h.update(text.as_bytes());
    }
    h.digest128()
}

/// The gold's fully sorted rows (select list and sort key) on one database,
/// and the window of positions its LIMIT/OFFSET keeps.
#[derive(Debug, Clone)]
pub struct TieWindow {
    /// `(sort key, select-list row)` keys in the gold's order.
    rows: Vec<(u128, u128)>,
    /// The select-list rows as values, in the same order.
    values: Vec<Vec<Value>>,
    data_columns: usize,
    start: usize,
    end: usize,
}

impl TieWindow {
    /// Runs the probe of `gold_sql` (its outermost block without LIMIT, the
    /// sort key appended) on `engine`/`db`, the gold read in the first of
    /// `dialects` that parses it (the caller knows where the gold was
    /// written). `None` when the gold has no top-level ORDER BY or the
    /// probe fails.
    pub fn probe(
        engine: &dyn Engine,
        db: &Database,
        gold_sql: &str,
        dialects: sqlwitness_sql::Dialects<'_>,
        limits: &QueryLimits,
    ) -> Option<TieWindow> {
        TieWindow::probe_with(gold_sql, dialects, |sql| {
            engine.execute(db, sql, limits).ok()
        })
    }

    /// [`TieWindow::probe`] for SQL read in the first of `dialects` that
    /// parses it, with the probe run by `run` (`None`: it was refused or
    /// failed) — for a caller that guards what it runs.
    pub fn probe_with(
        gold_sql: &str,
        dialects: sqlwitness_sql::Dialects<'_>,
        run: impl FnOnce(&str) -> Option<sqlwitness_core::ResultSet>,
    ) -> Option<TieWindow> {
        TieWindow::probe_inner(gold_sql, dialects, false, run)
    }

    /// [`TieWindow::probe_with`] only for a query whose LIMIT cuts its
    /// ordered rows (the only window [`TieWindow::cuts_ties`] can be true
    /// of): a query without a LIMIT is not run again.
    pub fn probe_cut_with(
        sql: &str,
        dialects: sqlwitness_sql::Dialects<'_>,
        run: impl FnOnce(&str) -> Option<sqlwitness_core::ResultSet>,
    ) -> Option<TieWindow> {
        TieWindow::probe_inner(sql, dialects, true, run)
    }

    fn probe_inner(
        gold_sql: &str,
        dialects: sqlwitness_sql::Dialects<'_>,
        only_cut: bool,
        run: impl FnOnce(&str) -> Option<sqlwitness_core::ResultSet>,
    ) -> Option<TieWindow> {
        let (
            Probe::Ordered {
                sql,
                data_columns,
                key_columns,
                cut,
            },
            offset,
        ) = top_order_probe(gold_sql, dialects)?
        else {
            return None;
        };
        if only_cut && cut.is_none() {
            return None;
        }
        let full = run(&sql)?;
        let d = data_columns;
        if full.rows.iter().any(|r| r.len() != d + key_columns) {
            return None;
        }
        let start = (offset as usize).min(full.rows.len());
        let end = cut.map_or(full.rows.len(), |c| (c as usize).min(full.rows.len()));
        // The probe's rows are consumed as they are keyed: a large answer is
        // held once, not twice.
        let mut rows = Vec::with_capacity(full.rows.len());
        let mut values = Vec::with_capacity(full.rows.len());
        for mut r in full.rows {
            rows.push((key(&r[d..]), key(&r[..d])));
            r.truncate(d);
            r.shrink_to_fit();
            values.push(r);
        }
        Some(TieWindow {
            rows,
            values,
            data_columns: d,
            start,
            end,
        })
    }

    /// True when `pred_rows` is one of the valid answers. Rows compare by
    /// canonical cells (numbers across types, floats to 12 significant
    /// digits).
    pub fn accepts(&self, pred_rows: &[Vec<Value>]) -> bool {
        self.accepts_window(pred_rows, self.end)
    }

    /// True when the LIMIT cuts through ties (the rows just inside and just
    /// outside the window share the sort key).
    pub fn cuts_ties(&self) -> bool {
        self.end > self.start
            && self.end < self.rows.len()
            && self.rows[self.end - 1].0 == self.rows[self.end].0
    }

    /// True when both windows admit the same answers: the same positions,
    /// the same sequence of sort keys, the same rows carrying each key (what
    /// two equivalent queries — or one query run twice — give).
    pub fn same_answers(&self, other: &TieWindow) -> bool {
        let multiset = |w: &TieWindow| {
            let mut rows = w.rows.clone();
            rows.sort();
            rows
        };
        self.start == other.start
            && self.end == other.end
            && self.data_columns == other.data_columns
            && self
                .rows
                .iter()
                .map(|r| &r.0)
                .eq(other.rows.iter().map(|r| &r.0))
            && multiset(self) == multiset(other)
    }

    /// Every answer of a one-row window (`LIMIT 1`): each distinct row
    /// carrying the window's sort key, at most `max`; `None` for a wider
    /// window, an empty one, or more than `max` answers.
    pub fn single_row_answers(&self, max: usize) -> Option<Vec<Vec<Value>>> {
        if self.end != self.start + 1 {
            return None;
        }
        let k = &self.rows[self.start].0;
        let mut seen = std::collections::BTreeSet::new();
        let mut out = Vec::new();
        for ((rk, data), v) in self.rows.iter().zip(&self.values) {
            if rk == k && seen.insert(data) {
                if out.len() == max {
                    return None;
                }
                out.push(v.clone());
            }
        }
        Some(out)
    }

    /// [`TieWindow::accepts`], or `pred_rows` is the tie-inclusive answer:
    /// the window extended through every row tied with its last one (what
    /// `x = (SELECT max(x) …)` returns for `ORDER BY x DESC LIMIT 1`).
    pub fn accepts_tie_inclusive(&self, pred_rows: &[Vec<Value>]) -> bool {
        if self.accepts(pred_rows) {
            return true;
        }
        if !self.cuts_ties() {
            return false;
        }
        let last = &self.rows[self.end - 1].0;
        let mut end = self.end;
        while end < self.rows.len() && &self.rows[end].0 == last {
            end += 1;
        }
        self.accepts_window(pred_rows, end)
    }

    /// [`TieWindow::accepts`] (or, with `inclusive`,
    /// [`TieWindow::accepts_tie_inclusive`]) for the predicted columns as
    /// given or, with `any_column_order`, in some order (as the Spider
    /// comparison and strict `--column-order any` allow). Results of more
    /// than [`MAX_PERMUTED_COLUMNS`] columns are taken as given.
    pub fn accepts_columns(
        &self,
        pred_rows: &[Vec<Value>],
        any_column_order: bool,
        inclusive: bool,
    ) -> bool {
        let test = |rows: &[Vec<Value>]| {
            if inclusive {
                self.accepts_tie_inclusive(rows)
            } else {
                self.accepts(rows)
            }
        };
        let w = self.data_columns;
        let permutable = any_column_order && pred_rows.iter().all(|r| r.len() == w);
        in_some_column_order(w, permutable, |perm| {
            if perm.iter().enumerate().all(|(i, &j)| i == j) {
                return test(pred_rows);
            }
            let rows: Vec<Vec<Value>> = pred_rows
                .iter()
                .map(|r| perm.iter().map(|&j| r[j].clone()).collect())
                .collect();
            test(&rows)
        })
    }

    fn accepts_window(&self, pred_rows: &[Vec<Value>], end: usize) -> bool {
        if pred_rows.iter().any(|r| r.len() != self.data_columns)
            || pred_rows.len() != end - self.start
        {
            return false;
        }
        // Rows available per (key value, row).
        let mut avail: HashMap<(u128, u128), usize> = HashMap::with_capacity(self.rows.len());
        for &pair in &self.rows {
            *avail.entry(pair).or_default() += 1;
        }
        for ((k, _), pred) in self.rows[self.start..end].iter().zip(pred_rows) {
            match avail.get_mut(&(*k, key(pred))) {
                Some(n) if *n > 0 => *n -= 1,
                _ => return false,
            }
        }
        true
    }
}

/// Results with at most this many columns are tried in every column order
/// (720 orders) when the comparison accepts any.
pub const MAX_PERMUTED_COLUMNS: usize = 6;

/// True when `test(order)` holds for the columns as given (`order` is
/// `0..width`) or, with `any_column_order`, for some other order of at
/// most [`MAX_PERMUTED_COLUMNS`] columns (`order[i]`: the column that takes
/// place `i`).
pub fn in_some_column_order(
    width: usize,
    any_column_order: bool,
    mut test: impl FnMut(&[usize]) -> bool,
) -> bool {
    let mut order: Vec<usize> = (0..width).collect();
    if test(&order) {
        return true;
    }
    if !any_column_order || !(2..=MAX_PERMUTED_COLUMNS).contains(&width) {
        return false;
    }
    while next_permutation(&mut order) {
        if test(&order) {
            return true;
        }
    }
    false
}

/// Steps `perm` to the next permutation in lexicographic order; false
/// (leaving it unchanged) at the last one.
fn next_permutation(perm: &mut [usize]) -> bool {
    let Some(i) = (1..perm.len()).rev().find(|&i| perm[i - 1] < perm[i]) else {
        return false;
    };
    let j = (i..perm.len())
        .rev()
        .find(|&j| perm[j] > perm[i - 1])
        .unwrap_or(i);
    perm.swap(i - 1, j);
    perm[i..].reverse();
    true
}

/// True when `pred_rows` is one of the valid answers of `gold_sql` (read in
/// the first of `dialects` that parses it, run on `engine`/`db`) under ties
/// at its LIMIT or among equal sort keys, its columns in the gold's order
/// or, with `any_column_order`, in any. `false` when the gold has no
/// top-level ORDER BY, when the probe fails, or when the prediction is not
/// a valid answer.
pub fn tie_aware_match(
    engine: &dyn Engine,
    db: &Database,
    gold_sql: &str,
    dialects: sqlwitness_sql::Dialects<'_>,
    pred_rows: &[Vec<Value>],
    any_column_order: bool,
    limits: &QueryLimits,
) -> bool {
    TieWindow::probe(engine, db, gold_sql, dialects, limits)
        .is_some_and(|w| w.accepts_columns(pred_rows, any_column_order, false))
}
