//! Results larger than `--max-result-mb`: read as a stream and kept as
//! fixed-size keys per row instead of their values (48 bytes a row and 4 a
//! column, themselves within the limit), so that a gold of hundreds of
//! thousands of rows is compared on every engine in memory that follows
//! the row count, not the values.
//!
//! Strict mode only (the Spider and BIRD modes compare Python values and
//! keep their `resource_limit` error). A row's keys:
//! * its **canonical hash** — the SHA-256 of its cells' canonical texts
//!   (`canonical_cell`: numbers as numbers, floats rounded to 12
//!   significant digits), the row hash of the report's `result_hash`;
//! * its **coarse key** — what the strict tolerance cannot change (numbers
//!   as one placeholder, text, dates, NULL and bytes as themselves);
//! * its **cross-engine key** — the reference judgment's normalised cells.
//!
//! Two rows with one canonical hash are equal under the strict rules (their
//! numbers agree to 12 significant digits, inside any tolerance of at least
//! 1e-11); two rows with different coarse keys are not. Between the two —
//! rows whose floats or decimals differ in their last digits, or whose
//! dates are text on one side — the keys cannot decide: the rows the
//! canonical hashes left unpaired are read again, and only they are held
//! and compared by the strict rules ([`Residue`]).

use std::collections::HashMap;
use std::time::Instant;

use xxhash_rust::xxh3::Xxh3;

use sqlwitness_core::compare::{
    coarse_row_key, python_key_hash, soft_f1_by, CompareOptions, Comparison, MismatchReason,
};
use sqlwitness_core::{
    canonical_cell, canonical_row_hash, row_hash, Column, DbError, MultisetHash, QueryLimits,
    ResultSet, RowSink, Value,
};

use crate::execute::SAMPLE_ROWS;

/// What one query returned: its rows, or their keys when the values were
/// over the limit.
pub(crate) enum Answer {
    Rows(ResultSet),
    Digest(Box<Digest>),
}

impl Answer {
    /// The rows, when the answer holds them.
    pub fn into_rows(self) -> Option<ResultSet> {
        match self {
            Answer::Rows(rs) => Some(rs),
            Answer::Digest(_) => None,
        }
    }

    pub fn columns(&self) -> &[Column] {
        match self {
            Answer::Rows(rs) => &rs.columns,
            Answer::Digest(d) => &d.columns,
        }
    }

    /// The keys of the answer (computed from the rows when it holds them).
    pub fn to_digest(&self) -> std::borrow::Cow<'_, Digest> {
        match self {
            Answer::Rows(rs) => std::borrow::Cow::Owned(Digest::of(rs)),
            Answer::Digest(d) => std::borrow::Cow::Borrowed(&**d),
        }
    }
}

/// The keys of one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct RowKeys {
    pub canonical: u128,
    pub coarse: u128,
    pub cross: u128,
}

/// The seed of the hashes a prediction could otherwise aim at (the
/// cross-engine key, the Python cell hashes): drawn once a run, so that no
/// text can be written to collide with an answer it has not seen.
fn seed() -> u64 {
    static SEED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *SEED.get_or_init(|| {
        use std::hash::{BuildHasher, Hasher};
        std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish()
    })
}

/// The keys of a row and its cells' canonical texts.
fn keys_of(row: &[Value]) -> (RowKeys, Vec<String>) {
    let canon: Vec<String> = row.iter().map(canonical_cell).collect();
    let mut x = Xxh3::with_seed(seed());
    for v in row {
        let cell = crate::reference::cell(v);
        x.update(&(cell.len() as u64).to_le_bytes());
        x.update(cell.as_bytes());
    }
    let keys = RowKeys {
        canonical: canonical_row_hash(&canon),
        coarse: coarse_row_key(row),
        cross: x.digest128(),
    };
    (keys, canon)
}

/// A cell whose canonical text can differ from that of a cell the strict
/// rules find equal to it: a float or a decimal (rounding), a date or time
/// (equal to the same text).
fn loose(v: &Value) -> bool {
    matches!(
        v,
        Value::Float(_) | Value::Decimal(_) | Value::Date(_) | Value::Time(_) | Value::Timestamp(_)
    )
}

/// A result kept as its rows' keys, in the order they came, with the first
/// rows and the rows first in canonical order for the report's sample.
#[derive(Debug, Clone, Default)]
pub(crate) struct Digest {
    pub columns: Vec<Column>,
    pub keys: Vec<RowKeys>,
    /// The report's `result_hash`, row by row.
    hash: MultisetHash,
    /// Some cell is [`loose`].
    pub loose: bool,
    /// Per column, the wrapping sum of its cells' coarse keys: the
    /// column's coarse contents as a multiset.
    columns_coarse: Vec<u128>,
    /// Every cell's Python key hash (32 bits), row after row (for Soft
    /// F1).
    python: Vec<u32>,
    first: Vec<Vec<Value>>,
    least: Vec<(Vec<String>, Vec<Value>)>,
}

impl Digest {
    fn new(columns: Vec<Column>) -> Digest {
        Digest {
            columns,
            ..Digest::default()
        }
    }

    fn push(&mut self, row: &[Value]) {
        self.loose |= row.iter().any(loose);
        if self.columns_coarse.len() < row.len() {
            self.columns_coarse.resize(row.len(), 0);
        }
        for (sum, v) in self.columns_coarse.iter_mut().zip(row) {
            *sum = sum.wrapping_add(coarse_row_key(std::slice::from_ref(v)));
        }
        self.python
            .extend(row.iter().map(|v| python_key_hash(v, seed()) as u32));
        let (keys, canon) = keys_of(row);
        self.keys.push(keys);
        self.hash.add(keys.canonical);
        let least_full = self.least.len() >= SAMPLE_ROWS;
        if !least_full || self.least.last().is_some_and(|(k, _)| canon < *k) {
            let at = self.least.partition_point(|(k, _)| *k <= canon);
            self.least.insert(at, (canon, row.to_vec()));
            self.least.truncate(SAMPLE_ROWS);
        }
        if self.first.len() < SAMPLE_ROWS {
            self.first.push(row.to_vec());
        }
    }

    /// The keys of every row of `rs`.
    pub fn of(rs: &ResultSet) -> Digest {
        let mut d = Digest::new(rs.columns.clone());
        for row in &rs.rows {
            d.push(row);
        }
        d
    }

    /// The bytes the keys take (what grows with the rows).
    fn bytes(&self) -> usize {
        self.keys.len() * std::mem::size_of::<RowKeys>() + self.python.len() * 4
    }

    pub fn width(&self) -> usize {
        if self.columns.is_empty() {
            self.first.first().map_or(0, Vec::len)
        } else {
            self.columns.len()
        }
    }

    /// Row `i`'s cells as Python key hashes.
    fn python_row(&self, i: usize) -> &[u32] {
        let n = self.python.len() / self.keys.len().max(1);
        &self.python[i * n..(i + 1) * n]
    }

    /// Row `i` as one hash of its cells' Python key hashes.
    fn python_row_hash(&self, i: usize) -> u64 {
        let mut h = Xxh3::with_seed(seed());
        for k in self.python_row(i) {
            h.update(&k.to_le_bytes());
        }
        h.digest()
    }

    /// BIRD's Soft F1 of `pred` against this gold (`soft_f1`, on the cells'
    /// Python key hashes).
    pub fn soft_f1(&self, pred: &Digest) -> f64 {
        let cells = |d: &Digest, i| d.python_row(i).to_vec();
        soft_f1_by(
            (self.keys.len(), &|i| self.python_row_hash(i), &|i| {
                cells(self, i)
            }),
            (pred.keys.len(), &|i| pred.python_row_hash(i), &|i| {
                cells(pred, i)
            }),
        )
    }

    /// The report's `result_hash` (as `ResultSet::content_hash`).
    pub fn content_hash(&self) -> String {
        self.hash.finish()
    }

    /// The rows the report samples: the first ones, or with `unordered`
    /// the first in canonical order.
    pub fn sample_rows(&self, unordered: bool) -> Vec<Vec<Value>> {
        if unordered {
            self.least.iter().map(|(_, r)| r.clone()).collect()
        } else {
            self.first.clone()
        }
    }
}

/// How a [`Collector`] holds an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hold {
    /// Values within `max_bytes`; past it, the `resource_limit` error.
    Values,
    /// Values within `max_bytes`; past it, the rows' keys.
    ValuesThenKeys,
    /// Keys from the first row: the answer this one is compared with is
    /// itself held as keys, so the comparison is made on keys whatever
    /// this one's size.
    Keys,
}

/// The sink of every answer: holds the rows while their values stay within
/// `max_bytes`; past it, as [`Hold`] says, goes on with their keys only
/// (within `max_rows`) or fails as `Collect` does.
pub(crate) struct Collector {
    limits: QueryLimits,
    /// The query's time limit, kept while held rows are turned into keys.
    until: Instant,
    hold: Hold,
    columns: Vec<Column>,
    rows: Vec<Vec<Value>>,
    bytes: usize,
    digest: Option<Digest>,
}

impl Collector {
    pub fn new(limits: &QueryLimits, hold: Hold) -> Collector {
        Collector {
            limits: *limits,
            until: Instant::now() + limits.timeout,
            hold,
            columns: Vec::new(),
            rows: Vec::new(),
            bytes: 0,
            digest: None,
        }
    }

    pub fn into_answer(self) -> Answer {
        match self.digest {
            Some(d) => Answer::Digest(Box::new(d)),
            None => Answer::Rows(ResultSet::new(self.columns, self.rows)),
        }
    }
}

impl RowSink for Collector {
    fn columns(&mut self, columns: Vec<Column>) {
        self.rows.clear();
        self.bytes = 0;
        self.digest = (self.hold == Hold::Keys).then(|| Digest::new(columns.clone()));
        self.columns = columns;
    }

    fn row(&mut self, row: Vec<Value>, bytes: usize) -> Result<(), DbError> {
        // This row's number.
        let count = 1 + self
            .digest
            .as_ref()
            .map_or(self.rows.len(), |d| d.keys.len());
        if let Some(d) = &mut self.digest {
            // One row alone over the limit is still refused.
            if let Some(e) = self.limits.exceeded(count, bytes) {
                return Err(e);
            }
            d.push(&row);
            return keys_within(d, &self.limits);
        }
        self.bytes += bytes;
        match self.limits.exceeded(count, self.bytes) {
            None => self.rows.push(row),
            Some(_) if self.hold != Hold::Values && count <= self.limits.max_rows => {
                if let Some(e) = self.limits.exceeded(count, bytes) {
                    return Err(e);
                }
                let mut d = Digest::new(self.columns.clone());
                for (k, held) in std::mem::take(&mut self.rows).into_iter().enumerate() {
                    if k % 1024 == 0 && Instant::now() >= self.until {
                        return Err(DbError::timeout_while_reading(self.limits.timeout));
                    }
                    d.push(&held);
                }
                d.push(&row);
                keys_within(&d, &self.limits)?;
                self.digest = Some(d);
            }
            Some(e) => return Err(e),
        }
        Ok(())
    }
}

/// The keys, too, are held within `max_bytes` (a wide result's Python
/// key hashes grow with its columns).
fn keys_within(d: &Digest, limits: &QueryLimits) -> Result<(), DbError> {
    if d.bytes() > limits.max_bytes {
        return Err(DbError::resource_limit(format!(
            "result exceeds {} bytes even as row keys ({} rows)",
            limits.max_bytes,
            d.keys.len()
        )));
    }
    Ok(())
}

/// What the keys say of a prediction against the gold.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum KeyVerdict {
    Decided(Comparison),
    /// Only the values of the rows the canonical hashes left unpaired can
    /// tell (floats or decimals that differ in their last digits, or a
    /// column permutation to search).
    Residue(Residue),
}

/// The rows to read again on each side to decide: by position (an ordered
/// comparison) or by canonical hash with its count (a multiset one).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Residue {
    Positions(Vec<usize>),
    Hashes {
        gold: HashMap<u128, usize>,
        pred: HashMap<u128, usize>,
    },
    /// Nothing to read again would settle it: a column order to search.
    Undecidable(&'static str),
}

fn sorted<T: Ord + Copy>(keys: &[RowKeys], f: impl Fn(&RowKeys) -> T) -> Vec<T> {
    let mut v: Vec<T> = keys.iter().map(f).collect();
    v.sort_unstable();
    v
}

/// The strict comparison on keys (see the module documentation). Column
/// order: columns compare as given; where another order could matter (the
/// columns' coarse contents are a permutation of each other), a mismatch
/// reports `values`, and with `column_order_any` the keys cannot decide.
pub(crate) fn compare_keys(gold: &Digest, pred: &Digest, opts: &CompareOptions) -> KeyVerdict {
    if gold.width() != pred.width() {
        return KeyVerdict::Decided(Comparison::differ(MismatchReason::ColumnCount));
    }
    if gold.keys.len() != pred.keys.len() {
        return KeyVerdict::Decided(Comparison::differ(MismatchReason::RowCount));
    }
    let same_in_order = gold
        .keys
        .iter()
        .zip(&pred.keys)
        .all(|(g, p)| g.canonical == p.canonical);
    if same_in_order {
        return KeyVerdict::Decided(Comparison::EQUAL);
    }
    let same_multiset = sorted(&gold.keys, |k| k.canonical) == sorted(&pred.keys, |k| k.canonical);
    if same_multiset {
        // Equal as multisets; in order, the same rows in another order
        // (two rows that the canonical rounding tells apart but the
        // tolerance does not, and that swapped places, would be equal:
        // the one case the keys get wrong).
        return KeyVerdict::Decided(if opts.ordered {
            Comparison::differ(MismatchReason::Order)
        } else {
            Comparison::EQUAL
        });
    }
    // Without loose cells a canonical hash is the row under the strict
    // rules: the keys decide.
    let exact = !(gold.loose || pred.loose);
    if opts.column_order_any && gold.width() > 1 {
        let mut g = gold.columns_coarse.clone();
        let mut p = pred.columns_coarse.clone();
        g.sort_unstable();
        p.sort_unstable();
        if g != p {
            // No column order gives the predicted columns the gold's
            // contents.
            return KeyVerdict::Decided(Comparison::differ(MismatchReason::Values));
        }
        return KeyVerdict::Residue(Residue::Undecidable(
            "another column order may match, and keys of whole rows cannot search one",
        ));
    }
    if exact || sorted(&gold.keys, |k| k.coarse) != sorted(&pred.keys, |k| k.coarse) {
        return KeyVerdict::Decided(Comparison::differ(MismatchReason::Values));
    }
    if opts.ordered {
        let at: Vec<usize> = (0..gold.keys.len())
            .filter(|&i| gold.keys[i].canonical != pred.keys[i].canonical)
            .collect();
        return KeyVerdict::Residue(Residue::Positions(at));
    }
    let mut left: HashMap<u128, isize> = HashMap::new();
    for k in &gold.keys {
        *left.entry(k.canonical).or_default() += 1;
    }
    for k in &pred.keys {
        *left.entry(k.canonical).or_default() -= 1;
    }
    let (mut g, mut p) = (HashMap::new(), HashMap::new());
    for (h, n) in left {
        if n > 0 {
            g.insert(h, n as usize);
        } else if n < 0 {
            p.insert(h, n.unsigned_abs());
        }
    }
    KeyVerdict::Residue(Residue::Hashes { gold: g, pred: p })
}

/// Whether `b` answers as `a` across engines (the reference judgment's
/// multiset of normalised rows), columns as given.
pub(crate) fn same_answer_keys(a: &Digest, b: &Digest) -> bool {
    a.keys.len() == b.keys.len()
        && (a.keys.is_empty()
            || a.width() == b.width()
                && sorted(&a.keys, |k| k.cross) == sorted(&b.keys, |k| k.cross))
}

/// The sink of a second reading: keeps the rows a [`Residue`] names (by
/// position, or by canonical hash up to its count), within `max_bytes`.
pub(crate) struct Keep<'a> {
    limits: QueryLimits,
    positions: Option<&'a [usize]>,
    hashes: Option<HashMap<u128, usize>>,
    index: usize,
    bytes: usize,
    pub columns: Vec<Column>,
    /// (position, row) in the order read.
    pub kept: Vec<(usize, Vec<Value>)>,
}

impl<'a> Keep<'a> {
    pub fn at(limits: &QueryLimits, positions: &'a [usize]) -> Keep<'a> {
        Keep::new(limits, Some(positions), None)
    }

    pub fn with_hashes(limits: &QueryLimits, hashes: HashMap<u128, usize>) -> Keep<'a> {
        Keep::new(limits, None, Some(hashes))
    }

    /// The rows kept, in the order read.
    fn into_rows(self) -> ResultSet {
        ResultSet::new(
            self.columns,
            self.kept.into_iter().map(|(_, r)| r).collect(),
        )
    }

    fn new(
        limits: &QueryLimits,
        positions: Option<&'a [usize]>,
        hashes: Option<HashMap<u128, usize>>,
    ) -> Keep<'a> {
        Keep {
            limits: *limits,
            positions,
            hashes,
            index: 0,
            bytes: 0,
            columns: Vec::new(),
            kept: Vec::new(),
        }
    }
}

impl RowSink for Keep<'_> {
    fn columns(&mut self, columns: Vec<Column>) {
        // A reading started over forgets what it kept (hashes are counted
        // down as rows are kept, so only a first reading may keep them).
        self.columns = columns;
        self.index = 0;
        self.bytes = 0;
        if !self.kept.is_empty() {
            if let Some(h) = &mut self.hashes {
                for (_, row) in self.kept.drain(..) {
                    *h.entry(row_hash(&row)).or_default() += 1;
                }
            }
            self.kept.clear();
        }
    }

    fn row(&mut self, row: Vec<Value>, bytes: usize) -> Result<(), DbError> {
        let i = self.index;
        self.index += 1;
        let wanted = match (&self.positions, &mut self.hashes) {
            (Some(at), _) => at.binary_search(&i).is_ok(),
            (None, Some(h)) => match h.get_mut(&row_hash(&row)) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    true
                }
                _ => false,
            },
            (None, None) => false,
        };
        if wanted {
            self.bytes += bytes;
            if let Some(e) = self.limits.exceeded(self.kept.len() + 1, self.bytes) {
                return Err(e);
            }
            self.kept.push((i, row));
        }
        Ok(())
    }
}

/// Decides a [`Residue`] from the two second readings: the kept rows
/// compared by the strict rules (`opts.ordered`: pairwise by position, an
/// order mismatch when they are the same multiset). `None` when a reading
/// did not return what the first did (the result changed between runs).
pub(crate) fn decide_residue(
    residue: &Residue,
    gold: Keep,
    pred: Keep,
    gold_keys: &Digest,
    pred_keys: &Digest,
    opts: &CompareOptions,
) -> Option<Comparison> {
    let same_rows = |keep: &Keep, digest: &Digest| {
        keep.index == digest.keys.len()
            && keep
                .kept
                .iter()
                .all(|(i, row)| digest.keys[*i].canonical == row_hash(row))
    };
    match residue {
        Residue::Undecidable(_) => None,
        Residue::Positions(at) => {
            if !same_rows(&gold, gold_keys) || !same_rows(&pred, pred_keys) {
                return None;
            }
            if gold.kept.len() != at.len() || pred.kept.len() != at.len() {
                return None;
            }
            let (g, p) = (gold.into_rows(), pred.into_rows());
            let pairwise = sqlwitness_core::compare(&g, &p, &opts.ordered(true));
            if pairwise.equal {
                return Some(Comparison::EQUAL);
            }
            let as_multiset = sqlwitness_core::compare(&g, &p, &opts.ordered(false));
            Some(Comparison::differ(if as_multiset.equal {
                MismatchReason::Order
            } else {
                MismatchReason::Values
            }))
        }
        Residue::Hashes {
            gold: want_g,
            pred: want_p,
        } => {
            let complete = |keep: &Keep, want: &HashMap<u128, usize>| {
                keep.kept.len() == want.values().sum::<usize>()
                    && keep
                        .hashes
                        .as_ref()
                        .is_some_and(|h| h.values().all(|n| *n == 0))
            };
            if !complete(&gold, want_g) || !complete(&pred, want_p) {
                return None;
            }
            let (g, p) = (gold.into_rows(), pred.into_rows());
            let cmp = sqlwitness_core::compare(&g, &p, &opts.ordered(false));
            Some(if cmp.equal {
                Comparison::EQUAL
            } else {
                Comparison::differ(MismatchReason::Values)
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlwitness_core::compare::compare;

    fn rs(rows: Vec<Vec<Value>>) -> ResultSet {
        let n = rows.first().map_or(2, Vec::len);
        let columns = (0..n).map(|i| Column::new(format!("c{i}"), None)).collect();
        ResultSet::new(columns, rows)
    }

    fn table(n: i64, f: impl Fn(i64) -> Vec<Value>) -> ResultSet {
        rs((0..n).map(f).collect())
    }

    fn row(i: i64) -> Vec<Value> {
        vec![Value::Int(i), Value::Text(format!("name{}", i % 7))]
    }

    fn float_row(i: i64) -> Vec<Value> {
        vec![Value::Int(i), Value::Float(i as f64 / 3.0)]
    }

    fn opts(ordered: bool) -> CompareOptions {
        CompareOptions::default().ordered(ordered)
    }

    fn keys(a: &ResultSet, b: &ResultSet, ordered: bool) -> KeyVerdict {
        compare_keys(&Digest::of(a), &Digest::of(b), &opts(ordered))
    }

    fn decided(v: KeyVerdict) -> Comparison {
        match v {
            KeyVerdict::Decided(c) => c,
            other => panic!("not decided: {other:?}"),
        }
    }

    /// Reads `rows` into a [`Keep`] as an engine would.
    fn read_again<'a>(mut keep: Keep<'a>, rows: &ResultSet) -> Keep<'a> {
        keep.columns(rows.columns.clone());
        for r in &rows.rows {
            keep.row(r.clone(), 10).unwrap();
        }
        keep
    }

    /// The keys' verdict, settled by reading the residue again, as the
    /// evaluation does.
    fn by_keys(g: &ResultSet, p: &ResultSet, ordered: bool) -> Option<Comparison> {
        let limits = QueryLimits::default();
        let (gd, pd) = (Digest::of(g), Digest::of(p));
        match compare_keys(&gd, &pd, &opts(ordered)) {
            KeyVerdict::Decided(c) => Some(c),
            KeyVerdict::Residue(r) => {
                let (gk, pk) = match &r {
                    Residue::Positions(at) => (Keep::at(&limits, at), Keep::at(&limits, at)),
                    Residue::Hashes { gold, pred } => (
                        Keep::with_hashes(&limits, gold.clone()),
                        Keep::with_hashes(&limits, pred.clone()),
                    ),
                    Residue::Undecidable(_) => return None,
                };
                let (gk, pk) = (read_again(gk, g), read_again(pk, p));
                decide_residue(&r, gk, pk, &gd, &pd, &opts(ordered))
            }
        }
    }

    #[test]
    fn exact_rows_are_decided_by_their_keys_as_by_their_values() {
        let gold = table(500, row);
        let mut reversed = gold.clone();
        reversed.rows.reverse();
        let mut renamed = gold.clone();
        renamed.rows[250][1] = Value::Text("other".into());
        let mut shorter = gold.clone();
        shorter.rows.pop();
        let narrower = table(500, |i| vec![Value::Int(i)]);
        // An integer equals the same number as a decimal with no fraction.
        let as_decimal = table(500, |i| {
            vec![
                Value::Decimal(format!("{i}.00")),
                Value::Text(format!("name{}", i % 7)),
            ]
        });
        for (pred, ordered) in [
            (&gold, true),
            (&reversed, false),
            (&reversed, true),
            (&renamed, false),
            (&renamed, true),
            (&shorter, false),
            (&narrower, false),
            (&as_decimal, false),
            (&as_decimal, true),
        ] {
            let by_values = compare(&gold, pred, &opts(ordered));
            assert_eq!(
                by_keys(&gold, pred, ordered),
                Some(by_values),
                "ordered {ordered}"
            );
        }
        assert_eq!(
            decided(keys(&gold, &reversed, true)).reason,
            Some(MismatchReason::Order)
        );
        assert_eq!(
            decided(keys(&gold, &renamed, false)).reason,
            Some(MismatchReason::Values)
        );
    }

    #[test]
    fn floats_within_the_tolerance_are_read_again_and_only_they() {
        let gold = table(1000, float_row);
        // Three rows off in the 10th significant digit: equal within 1e-9,
        // but not to 12 digits.
        let mut noisy = gold.clone();
        for i in [3, 500, 999] {
            noisy.rows[i][1] = Value::Float((i as f64 / 3.0) * (1.0 + 1e-10));
        }
        let mut wrong = gold.clone();
        wrong.rows[500][1] = Value::Float(1e6);
        for ordered in [false, true] {
            match keys(&gold, &noisy, ordered) {
                KeyVerdict::Residue(Residue::Hashes { gold, pred }) => {
                    assert_eq!(gold.values().sum::<usize>(), 3);
                    assert_eq!(pred.values().sum::<usize>(), 3);
                }
                KeyVerdict::Residue(Residue::Positions(at)) => assert_eq!(at, [3, 500, 999]),
                other => panic!("{other:?}"),
            }
            for pred in [&noisy, &wrong] {
                assert_eq!(
                    by_keys(&gold, pred, ordered),
                    Some(compare(&gold, pred, &opts(ordered))),
                    "ordered {ordered}"
                );
            }
        }
        assert!(by_keys(&gold, &noisy, false).unwrap().equal);
        for pred in [&noisy, &wrong, &gold] {
            let by_values = sqlwitness_core::compare::soft_f1(&gold, pred);
            let keyed = Digest::of(&gold).soft_f1(&Digest::of(pred));
            assert!((by_values - keyed).abs() < 1e-12, "{by_values} {keyed}");
        }
        assert!(!by_keys(&gold, &wrong, false).unwrap().equal);
        // A text that differs is decided by the coarse keys, unread.
        let mut text = gold.clone();
        text.rows[7][1] = Value::Text("7".into());
        assert_eq!(
            decided(keys(&gold, &text, false)).reason,
            Some(MismatchReason::Values)
        );
    }

    #[test]
    fn a_second_reading_that_differs_from_the_first_decides_nothing() {
        let gold = table(100, float_row);
        let mut noisy = gold.clone();
        noisy.rows[10][1] = Value::Float((10.0 / 3.0) * (1.0 + 1e-10));
        let (gd, pd) = (Digest::of(&gold), Digest::of(&noisy));
        let KeyVerdict::Residue(r @ Residue::Hashes { .. }) = compare_keys(&gd, &pd, &opts(false))
        else {
            panic!("expected a residue");
        };
        let Residue::Hashes { gold: g, pred: p } = &r else {
            unreachable!()
        };
        let limits = QueryLimits::default();
        // The prediction's second reading lost the row that differed.
        let mut changed = noisy.clone();
        changed.rows[10][1] = Value::Float(10.0 / 3.0);
        let gk = read_again(Keep::with_hashes(&limits, g.clone()), &gold);
        let pk = read_again(Keep::with_hashes(&limits, p.clone()), &changed);
        assert_eq!(decide_residue(&r, gk, pk, &gd, &pd, &opts(false)), None);
    }

    #[test]
    fn the_collector_holds_rows_until_the_limit_then_keeps_keys() {
        // Rows of about 270 bytes of values, 56 bytes of keys.
        let rows = table(2000, |i| {
            vec![
                Value::Float(i as f64 / 3.0),
                Value::Text(format!("{i:>200}")),
            ]
        });
        let limits = QueryLimits {
            max_bytes: 200_000,
            ..QueryLimits::default()
        };
        let feed = |sink: &mut dyn RowSink| -> Result<(), DbError> {
            sink.columns(rows.columns.clone());
            for r in &rows.rows {
                let bytes = r.iter().map(Value::heap_size).sum();
                sink.row(r.clone(), bytes)?;
            }
            Ok(())
        };
        let mut keys = Collector::new(&limits, Hold::ValuesThenKeys);
        feed(&mut keys).unwrap();
        let Answer::Digest(d) = keys.into_answer() else {
            panic!("expected keys");
        };
        assert_eq!(d.keys.len(), 2000);
        assert_eq!(d.content_hash(), rows.content_hash());
        assert_eq!(d.sample_rows(false), rows.rows[..SAMPLE_ROWS].to_vec());
        let mut least = rows.rows.clone();
        least.sort_by_key(|r| r.iter().map(canonical_cell).collect::<Vec<_>>());
        assert_eq!(d.sample_rows(true), least[..SAMPLE_ROWS].to_vec());
        // Kept as keys from the first row (the answer it is compared with
        // is keys): the same keys, hash and samples, however few the rows.
        let mut now = Collector::new(&QueryLimits::default(), Hold::Keys);
        feed(&mut now).unwrap();
        let Answer::Digest(n) = now.into_answer() else {
            panic!("expected keys from the first row");
        };
        assert_eq!(n.keys, d.keys);
        assert_eq!(n.content_hash(), d.content_hash());
        assert_eq!(n.sample_rows(true), d.sample_rows(true));
        assert_eq!(n.sample_rows(false), d.sample_rows(false));
        // Without keys the limit is an error, as before.
        let mut values = Collector::new(&limits, Hold::Values);
        let err = feed(&mut values).unwrap_err();
        assert_eq!(err.class, sqlwitness_core::ErrorClass::ResourceLimit);
        // Within the limit the rows are held.
        let mut small = Collector::new(&QueryLimits::default(), Hold::ValuesThenKeys);
        feed(&mut small).unwrap();
        assert!(matches!(small.into_answer(), Answer::Rows(r) if r == rows));
        // Keys past the byte limit are an error too.
        let tight = QueryLimits {
            max_bytes: 2000 * std::mem::size_of::<RowKeys>(),
            ..limits
        };
        let mut wide = Collector::new(&tight, Hold::ValuesThenKeys);
        let err = feed(&mut wide).unwrap_err();
        assert!(err.message.contains("even as row keys"), "{}", err.message);
        // Past max_rows nothing is kept.
        let few = QueryLimits {
            max_rows: 100,
            ..limits
        };
        let mut capped = Collector::new(&few, Hold::ValuesThenKeys);
        assert!(feed(&mut capped).is_err());
    }

    #[test]
    fn across_engines_keys_compare_normalised_rows() {
        let sqlite = table(50, |i| {
            vec![
                Value::Int(i),
                Value::Text(format!("2020-01-{:02}", 1 + i % 28)),
            ]
        });
        let server = table(50, |i| {
            vec![
                Value::Decimal(format!("{i}.0000")),
                Value::Date(format!("2020-01-{:02}", 1 + i % 28)),
            ]
        });
        assert!(same_answer_keys(&Digest::of(&sqlite), &Digest::of(&server)));
        let mut other = server.clone();
        other.rows[3][0] = Value::Int(1000);
        assert!(!same_answer_keys(&Digest::of(&sqlite), &Digest::of(&other)));
        assert_eq!(
            same_answer_keys(&Digest::of(&sqlite), &Digest::of(&server)),
            crate::same_answer(&sqlite, &server, false)
        );
    }

    /// On real data: three models' Spider dev predictions against the
    /// golds on SQLite. The keys' verdict, settled by reading again, is the
    /// values' verdict, pair for pair (a mismatch a column permutation
    /// would repair being `values` by the keys).
    #[test]
    fn on_spider_dev_the_keys_judge_as_the_values() {
        use rayon::prelude::*;
        use sqlwitness_core::Database;
        let Some(spider) = sqlwitness_testkit::shared_data("spider") else {
            return;
        };
        let dev: Vec<serde_json::Value> =
            serde_json::from_str(&std::fs::read_to_string(spider.join("dev.json")).unwrap())
                .unwrap();
        // Spider's files, read in place.
        let engine = sqlwitness_engines::open_embedded(sqlwitness_engines::IN_PLACE, None).unwrap();
        let limits = QueryLimits {
            timeout: std::time::Duration::from_secs(5),
            ..QueryLimits::default()
        };
        let dialects = sqlwitness_sql::sqlite_first(engine.kind());
        let run = |db: &Database, sql: &str| engine.execute(db, sql, &limits).ok();
        let (mut pairs, mut again) = (0, 0);
        for model in ["c3sql_gpt35", "dts_sql_deepseek7b", "resdsql_natsql_3b"] {
            let file = spider.join(format!("predictions/{model}.sql"));
            let preds: Vec<String> = std::fs::read_to_string(file)
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect();
            let checked: Vec<Option<String>> = dev
                .par_iter()
                .zip(&preds)
                .enumerate()
                .map(|(i, (q, pred))| {
                    let (db_id, gold) = (q["db_id"].as_str()?, q["query"].as_str()?);
                    let path = spider.join(format!("database/{db_id}/{db_id}.sqlite"));
                    let db = Database::new(db_id, path);
                    let (g, p) = (run(&db, gold)?, run(&db, pred)?);
                    let ordered =
                        sqlwitness_sql::has_top_level_order_by_in(gold, &dialects).unwrap_or(false);
                    let mut by_values = compare(&g, &p, &opts(ordered));
                    if by_values.reason == Some(MismatchReason::ColumnOrder) {
                        by_values.reason = Some(MismatchReason::Values);
                    }
                    let keyed = by_keys(&g, &p, ordered);
                    let (gd, pd) = (Digest::of(&g), Digest::of(&p));
                    let read_again = matches!(
                        compare_keys(&gd, &pd, &opts(ordered)),
                        KeyVerdict::Residue(_)
                    );
                    Some(if keyed == Some(by_values) {
                        if read_again {
                            "read again".into()
                        } else {
                            String::new()
                        }
                    } else {
                        format!("{model} {i}: values {by_values:?}, keys {keyed:?}")
                    })
                })
                .collect();
            let ran: Vec<String> = checked.into_iter().flatten().collect();
            pairs += ran.len();
            again += ran.iter().filter(|d| *d == "read again").count();
            let differ: Vec<&String> = ran
                .iter()
                .filter(|d| !d.is_empty() && *d != "read again")
                .collect();
            assert!(differ.is_empty(), "{differ:#?}");
        }
        eprintln!("{pairs} pairs judged alike by keys and values, {again} of them read again");
        assert!(pairs > 2500, "only {pairs} pairs ran");
    }

    #[test]
    fn another_column_order_is_left_to_the_values() {
        let gold = table(100, row);
        let swapped = table(100, |i| {
            let mut r = row(i);
            r.swap(0, 1);
            r
        });
        let any = CompareOptions {
            column_order_any: true,
            ..CompareOptions::default()
        };
        let v = compare_keys(&Digest::of(&gold), &Digest::of(&swapped), &any);
        assert!(matches!(v, KeyVerdict::Residue(Residue::Undecidable(_))));
        // A column no order can match is decided.
        let mut other = swapped.clone();
        other.rows[0][0] = Value::Text("no such name".into());
        let v = compare_keys(&Digest::of(&gold), &Digest::of(&other), &any);
        assert_eq!(decided(v).reason, Some(MismatchReason::Values));
    }
}
