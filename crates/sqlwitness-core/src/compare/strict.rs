//! Strict mode: sqlwitness's typed comparison (rules in the documentation
//! of [`crate::compare`](mod@crate::compare)(mod@crate::compare)).

use std::collections::HashMap;

use super::{
    identical_column_classes, search_permutations, width, CompareOptions, Comparison,
    MismatchReason, MAX_PERMUTATIONS,
};
use xxhash_rust::xxh3::Xxh3;

use crate::{canonical_cell, canonical_decimal, ResultSet, Value};

/// Absolute tolerance floor near zero.
const ABS_TOL: f64 = 1e-12;

/// Groups larger than this are not retried with greedy matching.
const GREEDY_MAX_GROUP: usize = 2_000;

pub(super) fn compare(gold: &ResultSet, pred: &ResultSet, opts: &CompareOptions) -> Comparison {
    let n = width(gold);
    if n != width(pred) {
        return Comparison::differ(MismatchReason::ColumnCount);
    }
    if gold.rows.len() != pred.rows.len() {
        return Comparison::differ(MismatchReason::RowCount);
    }
    if gold.rows.iter().chain(&pred.rows).any(|r| r.len() != n) {
        return Comparison::differ(MismatchReason::ColumnCount);
    }
    let tol = opts.float_rel_tol;
    let identity: Vec<usize> = (0..n).collect();
    let eq_identity = |ordered: bool| rows_equal(&gold.rows, &pred.rows, &identity, ordered, tol);
    let eq_any_columns = |ordered: bool| {
        search_column_permutation(gold, pred, n, &mut |perm| {
            rows_equal(&gold.rows, &pred.rows, perm, ordered, tol)
        })
    };
    let eq = |ordered: bool| {
        if opts.column_order_any {
            eq_identity(ordered) || eq_any_columns(ordered)
        } else {
            eq_identity(ordered)
        }
    };
    if eq(opts.ordered) {
        return Comparison::EQUAL;
    }
    if opts.ordered && eq(false) {
        return Comparison::differ(MismatchReason::Order);
    }
    if !opts.column_order_any && eq_any_columns(opts.ordered) {
        return Comparison::differ(MismatchReason::ColumnOrder);
    }
    Comparison::differ(MismatchReason::Values)
}

/// Whether two cells are equal under the strict rules.
pub(crate) fn cells_equal(a: &Value, b: &Value, tol: f64) -> bool {
    use Value::*;
    match (a, b) {
        (Null, Null) => true,
        (Null, _) | (_, Null) => false,
        (Text(x), Text(y)) => x == y,
        (Bytes(x), Bytes(y)) => x == y,
        (Date(x) | Time(x) | Timestamp(x), Date(y) | Time(y) | Timestamp(y) | Text(y))
        | (Text(x), Date(y) | Time(y) | Timestamp(y)) => x == y,
        _ if a.is_numeric() && b.is_numeric() => numbers_equal(a, b, tol),
        _ => false,
    }
}

fn numbers_equal(a: &Value, b: &Value, tol: f64) -> bool {
    use Value::*;
    let as_int = |v: &Value| match v {
        Int(i) => Some(*i),
        Bool(b) => Some(*b as i64),
        _ => None,
    };
    if let (Some(x), Some(y)) = (as_int(a), as_int(b)) {
        return x == y;
    }
    match (a, b) {
        (Decimal(x), Decimal(y)) => match (canonical_decimal(x), canonical_decimal(y)) {
            (Some(cx), Some(cy)) if cx == cy => return true,
            (None, None) => return x.trim() == y.trim(),
            _ => {}
        },
        (Decimal(d), other) | (other, Decimal(d)) => {
            if let (Some(cd), Some(i)) = (canonical_decimal(d), as_int(other)) {
                if cd == i.to_string() {
                    return true;
                }
            }
        }
        _ => {}
    }
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => floats_equal(x, y, tol),
        _ => false,
    }
}

fn floats_equal(x: f64, y: f64, tol: f64) -> bool {
    if x == y || (x.is_nan() && y.is_nan()) {
        return true;
    }
    if !x.is_finite() || !y.is_finite() {
        return false;
    }
    let d = (x - y).abs();
    d <= tol * x.abs().max(y.abs()) || d <= ABS_TOL
}

fn rows_equal(
    gold: &[Vec<Value>],
    pred: &[Vec<Value>],
    perm: &[usize],
    ordered: bool,
    tol: f64,
) -> bool {
    let row_eq = |g: &[Value], p: &[Value]| {
        perm.iter()
            .enumerate()
            .all(|(i, &j)| cells_equal(&g[i], &p[j], tol))
    };
    if ordered {
        return gold.iter().zip(pred).all(|(g, p)| row_eq(g, p));
    }
    let identity: Vec<usize> = (0..perm.len()).collect();
    let g_groups = group_by_coarse_key(gold, &identity);
    let p_groups = group_by_coarse_key(pred, perm);
    if g_groups.len() != p_groups.len() {
        return false;
    }
    for (key, g_idx) in &g_groups {
        let Some(p_idx) = p_groups.get(key) else {
            return false;
        };
        if g_idx.len() != p_idx.len() {
            return false;
        }
        if let ([g], [p]) = (g_idx.as_slice(), p_idx.as_slice()) {
            // One row a side: nothing to pair up.
            if row_eq(&gold[*g], &pred[*p]) {
                continue;
            }
            return false;
        }
        let numeric: Vec<usize> = (0..perm.len())
            .filter(|&i| gold[g_idx[0]][i].is_numeric())
            .collect();
        if numeric.is_empty() {
            // The coarse key is the whole row: every row of both groups is
            // the group's first gold row (checked, not taken from the hash).
            let first = &gold[g_idx[0]];
            let same_gold = |g: &[Value]| first.iter().zip(g).all(|(a, b)| cells_equal(a, b, tol));
            if g_idx.iter().all(|&g| same_gold(&gold[g]))
                && p_idx.iter().all(|&p| row_eq(first, &pred[p]))
            {
                continue;
            }
            return false;
        }
        let sorted = |rows: &[Vec<Value>], idx: &[usize], cols: &dyn Fn(usize) -> usize| {
            let mut keyed: Vec<(Vec<String>, usize)> = idx
                .iter()
                .map(|&r| {
                    let k = numeric
                        .iter()
                        .map(|&i| canonical_cell(&rows[r][cols(i)]))
                        .collect();
                    (k, r)
                })
                .collect();
            keyed.sort();
            keyed.into_iter().map(|(_, r)| r).collect::<Vec<_>>()
        };
        let gs = sorted(gold, g_idx, &|i| i);
        let ps = sorted(pred, p_idx, &|i| perm[i]);
        if gs
            .iter()
            .zip(&ps)
            .all(|(&g, &p)| row_eq(&gold[g], &pred[p]))
        {
            continue;
        }
        if gs.len() > GREEDY_MAX_GROUP {
            return false;
        }
        let mut used = vec![false; ps.len()];
        for &g in &gs {
            let found = ps
                .iter()
                .enumerate()
                .find(|(k, &p)| !used[*k] && row_eq(&gold[g], &pred[p]));
            match found {
                Some((k, _)) => used[k] = true,
                None => return false,
            }
        }
    }
    true
}

/// Feeds a cell's coarse key — what the tolerance cannot change — to `h`:
/// numbers collapse to one placeholder, dates and text share the text key,
/// each part framed by a tag and a length so that no two keys run together.
fn feed_coarse(h: &mut Xxh3, v: &Value) {
    let mut framed = |tag: u8, bytes: &[u8]| {
        h.update(&[tag]);
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    match v {
        Value::Null => framed(0, &[]),
        Value::Int(_) | Value::Float(_) | Value::Decimal(_) | Value::Bool(_) => framed(1, &[]),
        Value::Text(s) | Value::Date(s) | Value::Time(s) | Value::Timestamp(s) => {
            framed(2, s.as_bytes())
        }
        Value::Bytes(b) => framed(3, b),
    }
}

/// A row's coarse key — what the strict comparison's tolerance cannot
/// change: numbers as one placeholder, everything else as itself — as a
/// 128-bit hash. Two rows the strict rules find equal have the same key.
pub fn coarse_row_key(row: &[Value]) -> u128 {
    let mut h = Xxh3::new();
    for v in row {
        feed_coarse(&mut h, v);
    }
    h.digest128()
}

/// A cell's coarse key as a 128-bit hash.
fn coarse_cell(v: &Value) -> u128 {
    let mut h = Xxh3::new();
    feed_coarse(&mut h, v);
    h.digest128()
}

/// Groups rows by their coarse key (the cells `perm` picks, in order),
/// hashed to 128 bits: one hash a row instead of a string a cell, so a
/// result of hundreds of thousands of rows is grouped without a copy of
/// its text. Two different keys with one hash would only merge two groups,
/// which the row-by-row comparison of each group still tells apart.
fn group_by_coarse_key(rows: &[Vec<Value>], perm: &[usize]) -> HashMap<u128, Vec<usize>> {
    let mut groups: HashMap<u128, Vec<usize>> = HashMap::new();
    for (r, row) in rows.iter().enumerate() {
        let mut h = Xxh3::new();
        for &j in perm {
            feed_coarse(&mut h, &row[j]);
        }
        groups.entry(h.digest128()).or_default().push(r);
    }
    groups
}

/// Searches a permutation of `pred`'s columns for which `f` holds; gold
/// column `i` may take predicted column `j` only when both columns hold the
/// same multiset of coarse cell keys.
fn search_column_permutation(
    gold: &ResultSet,
    pred: &ResultSet,
    n: usize,
    f: &mut dyn FnMut(&[usize]) -> bool,
) -> bool {
    if n < 2 {
        return false;
    }
    let column_keys = |rs: &ResultSet, c: usize| {
        let mut k: Vec<u128> = rs.rows.iter().map(|r| coarse_cell(&r[c])).collect();
        k.sort_unstable();
        k
    };
    let g_keys: Vec<Vec<u128>> = (0..n).map(|c| column_keys(gold, c)).collect();
    let p_keys: Vec<Vec<u128>> = (0..n).map(|c| column_keys(pred, c)).collect();
    let candidates: Vec<Vec<usize>> = (0..n)
        .map(|i| (0..n).filter(|&j| g_keys[i] == p_keys[j]).collect())
        .collect();
    if candidates.iter().any(Vec::is_empty) {
        return false;
    }
    let class_of = identical_column_classes(&pred.rows, n, |a, b| a == b);
    search_permutations(&candidates, &class_of, MAX_PERMUTATIONS, f)
}
