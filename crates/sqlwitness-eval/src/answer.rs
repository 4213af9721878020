//! What one query returned ([`Answer`]): its rows, or — past
//! `--max-result-mb` — their keys ([`Digest`]), collected as the rows are
//! read ([`Collector`]); and each cell's cross-engine form ([`cell`]). A
//! leaf of plain data: the execute stage fills it, the compare and judge
//! stages read it.
//!
//! Results larger than `--max-result-mb` are read as a stream and kept as
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
//! * its **cross-engine key** — the reference judgment's normalised cells
//!   ([`cell`]).
//!
//! How the keys decide a comparison, and when the rows are read again, is
//! the compare stage's (`crate::compare`).

use std::time::Instant;

use xxhash_rust::xxh3::Xxh3;

use sqlwitness_core::compare::{coarse_row_key, python_key_hash, soft_f1_by};
use sqlwitness_core::{
    canonical_cell, canonical_row_hash, Column, DbError, MultisetHash, QueryLimits, ResultSet,
    RowSink, Value,
};

/// Rows kept per execution for the report's drill-down.
pub(crate) const SAMPLE_ROWS: usize = 5;

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
        let cell = cell(v);
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
    pub(crate) columns_coarse: Vec<u128>,
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

/// A cell's cross-engine form.
pub fn cell(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Bool(b) => u8::from(*b).to_string(),
        Value::Int(_) | Value::Float(_) | Value::Decimal(_) => {
            v.as_f64().map_or_else(|| v.display(), number)
        }
        Value::Text(s) => match s.trim().parse::<f64>() {
            Ok(x) if x.is_finite() && !s.trim().is_empty() => number(x),
            _ => temporal(s),
        },
        Value::Date(s) | Value::Time(s) | Value::Timestamp(s) => temporal(s),
        Value::Bytes(b) => b.iter().map(|x| format!("{x:02x}")).collect(),
    }
}

fn number(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// `2020-01-02T10:00:00.000` → `2020-01-02 10:00:00`; other text as is.
fn temporal(s: &str) -> String {
    let b = s.as_bytes();
    let looks_dated =
        b.len() >= 10 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[7] == b'-';
    if !looks_dated {
        return s.to_string();
    }
    let mut t = s.replacen('T', " ", 1);
    if let Some(dot) = t.rfind('.') {
        if dot > 10 && t[dot + 1..].bytes().all(|c| c == b'0') {
            t.truncate(dot);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(n: i64, f: impl Fn(i64) -> Vec<Value>) -> ResultSet {
        let rows: Vec<Vec<Value>> = (0..n).map(f).collect();
        let width = rows.first().map_or(2, Vec::len);
        let columns = (0..width)
            .map(|i| Column::new(format!("c{i}"), None))
            .collect();
        ResultSet::new(columns, rows)
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
}
