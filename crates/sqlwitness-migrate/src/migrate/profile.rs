//! The first pass over a source: what each column holds, counted as a
//! stream (storage classes, NULLs, texts that are dates or datetimes and
//! whether their canonical form differs, booleans that are only 0/1, NUL
//! characters, the longest text of a key column), and in the same pass the
//! foreign keys' orphans under the source's own value equality: tables are
//! read parents first, a parent's key values are kept as 64-bit hashes
//! (type-tagged) until its children have been read, and each child row
//! looks its key up. Nothing of the rows themselves is kept; the profile
//! of a source is cached by its content fingerprint.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use serde::{Deserialize, Serialize};
use sqlwitness_core::{DbError, ScanPart, Source, SourceSchema, SourceTable, Value};
use xxhash_rust::xxh3::Xxh3;

use super::keys::Resolution;
use super::log::StorageCounts;
use super::plan::{is_boolean, is_temporal};
use super::temporal::{
    datetime_text, is_lenient_date, is_lenient_datetime, parse_date, parse_datetime,
};

/// Bumped when what a profile holds changes (cached profiles of another
/// version are recomputed). 4: the longest value of unique-key columns,
/// and of key columns holding bytes.
pub(crate) const PROFILE_VERSION: u32 = 4;

/// The most parent keys kept for a foreign-key check in the pass (about
/// 16 bytes each); a larger parent is checked by the source instead.
const MAX_PARENT_KEYS: usize = 8_000_000;

/// One column's counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ColumnProfile {
    pub storage: StorageCounts,
    /// Texts that were not valid UTF-8 (read with replacements).
    pub lossy: u64,
    /// Texts holding a NUL character.
    pub nul_texts: u64,
    /// Declared DATE/TIMESTAMP-like columns: texts that are strict ISO
    /// dates, and datetimes (a bare date is not a datetime).
    pub dates: u64,
    pub datetimes: u64,
    /// Datetimes whose canonical rendering differs (a date's never does).
    pub datetimes_changed: u64,
    /// Texts that are neither but a MySQL-family date or datetime holds
    /// where zero parts are allowed (`1948-01-00`, `0000-00-00 00:00:00`).
    #[serde(default)]
    pub lenient_dates: u64,
    #[serde(default)]
    pub lenient_datetimes: u64,
    /// The first text that is neither (clipped).
    pub first_bad: Option<String>,
    /// Every integer is 0 or 1.
    pub only_01: bool,
    /// The longest text in characters, or bytes value in bytes (key
    /// columns only).
    pub max_chars: u64,
}

/// One table's counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TableProfile {
    pub rows: u64,
    pub columns: Vec<ColumnProfile>,
    /// Per declared foreign key (in order): the child rows whose key
    /// columns are all non-NULL and equal (as stored, type included) no
    /// parent row's, when the pass could count them.
    #[serde(default)]
    pub orphans: Vec<Option<u64>>,
}

impl ColumnProfile {
    pub fn non_null(&self) -> u64 {
        let s = &self.storage;
        s.integer + s.real + s.text + s.blob
    }
}

/// A hasher that passes an already computed 64-bit hash through.
#[derive(Default)]
struct Passthrough(u64);

impl Hasher for Passthrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type KeySet = HashSet<u64, BuildHasherDefault<Passthrough>>;

/// A parent table and its key columns.
type ParentKey = (usize, Vec<usize>);

/// A foreign key checked in the pass: its index, child columns, parent.
type Probe = (usize, Vec<usize>, ParentKey);

/// The type-tagged hash of `row`'s values at `cols`; `None` when one is
/// NULL. Floats hash by value (-0 as 0), as the source compares them.
fn key_hash(row: &[Value], cols: &[usize]) -> Option<u64> {
    let mut h = Xxh3::new();
    for &c in cols {
        match &row[c] {
            Value::Null => return None,
            Value::Int(i) => {
                h.update(&[1]);
                h.update(&i.to_le_bytes());
            }
            Value::Float(f) => {
                let f = if *f == 0.0 { 0.0 } else { *f };
                h.update(&[2]);
                h.update(&f.to_bits().to_le_bytes());
            }
            Value::Text(s) => {
                h.update(&[3]);
                h.update(&(s.len() as u64).to_le_bytes());
                h.update(s.as_bytes());
            }
            Value::Bytes(b) => {
                h.update(&[4]);
                h.update(&(b.len() as u64).to_le_bytes());
                h.update(b);
            }
            other => {
                let t = other.display();
                h.update(&[5]);
                h.update(&(t.len() as u64).to_le_bytes());
                h.update(t.as_bytes());
            }
        }
    }
    Some(h.digest())
}

/// Tables in an order where every parent of a foreign key comes before its
/// children (ties and cycles: schema order).
fn parents_first(schema: &SourceSchema, resolved: &[Vec<Resolution>]) -> Vec<usize> {
    let n = schema.tables.len();
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        let before = order.len();
        for t in 0..n {
            if done[t] {
                continue;
            }
            let ready = resolved[t]
                .iter()
                .flatten()
                .all(|r| r.parent == t || done[r.parent]);
            if ready {
                done[t] = true;
                order.push(t);
            }
        }
        if order.len() == before {
            // A cycle: take the first left, its keys are checked later.
            if let Some(t) = (0..n).find(|&t| !done[t]) {
                done[t] = true;
                order.push(t);
            }
        }
    }
    order
}

/// Profiles every table of `schema`; `key_cols[t]` are the columns of
/// table `t` that take part in a key (their longest text is measured).
pub(crate) fn profile(
    src: &mut dyn Source,
    schema: &SourceSchema,
    resolved: &[Vec<Resolution>],
    key_cols: &[Vec<bool>],
) -> Result<Vec<TableProfile>, DbError> {
    let order = parents_first(schema, resolved);
    // Which parent key sets to collect, and how many children still need
    // each (freed after the last).
    let mut wanted: HashMap<ParentKey, usize> = HashMap::new();
    for (t, fks) in resolved.iter().enumerate() {
        for r in fks.iter().flatten() {
            if r.parent != t {
                *wanted.entry((r.parent, r.pcols.clone())).or_default() += 1;
            }
        }
    }
    let mut sets: HashMap<ParentKey, KeySet> = HashMap::new();
    let mut out: Vec<TableProfile> = vec![TableProfile::default(); schema.tables.len()];
    for &t in &order {
        let table = &schema.tables[t];
        let collect: Vec<Vec<usize>> = wanted
            .keys()
            .filter(|(p, _)| *p == t)
            .map(|(_, cols)| cols.clone())
            .collect();
        // The child keys checked in this pass: parent read, set kept.
        let probes: Vec<Probe> = resolved[t]
            .iter()
            .enumerate()
            .filter_map(|(fi, r)| {
                let r = r.as_ref().ok()?;
                let key = (r.parent, r.pcols.clone());
                (r.parent != t && sets.contains_key(&key)).then(|| (fi, r.cols.clone(), key))
            })
            .collect();
        let Part {
            profile: mut p,
            new_sets,
            orphans,
        } = scan_table(src, table, &key_cols[t], &collect, &probes, &sets)?;
        p.orphans = vec![None; table.foreign_keys.len()];
        for (k, (fi, _, key)) in probes.iter().enumerate() {
            p.orphans[*fi] = Some(orphans[k]);
            if let Some(left) = wanted.get_mut(key) {
                *left -= 1;
                if *left == 0 {
                    sets.remove(key);
                }
            }
        }
        for (cols, set) in collect.into_iter().zip(new_sets) {
            if let Some(s) = set {
                if wanted.get(&(t, cols.clone())).is_some_and(|&n| n > 0) {
                    sets.insert((t, cols), s);
                }
            }
        }
        out[t] = p;
    }
    Ok(out)
}

/// The most readers a table is profiled with at once.
const MAX_PARTS: usize = 4;

/// What the pass learns from a table, or from a part of it.
struct Part {
    profile: TableProfile,
    /// Per parent key to collect, its values' hashes (`None`: too many).
    new_sets: Vec<Option<KeySet>>,
    /// Per probe, the child rows without a parent.
    orphans: Vec<u64>,
}

impl Part {
    /// This part followed by `next` (the rows after it in scan order).
    fn then(mut self, next: Part) -> Part {
        self.profile.rows += next.profile.rows;
        for (a, b) in self.profile.columns.iter_mut().zip(next.profile.columns) {
            a.then(b);
        }
        for (a, b) in self.orphans.iter_mut().zip(next.orphans) {
            *a += b;
        }
        for (a, b) in self.new_sets.iter_mut().zip(next.new_sets) {
            *a = match (a.take(), b) {
                (Some(mut x), Some(y)) => {
                    x.extend(y);
                    (x.len() <= MAX_PARENT_KEYS).then_some(x)
                }
                _ => None,
            };
        }
        self
    }
}

impl ColumnProfile {
    /// These counts followed by `next`'s (the first bad text stays the
    /// first in scan order).
    fn then(&mut self, next: ColumnProfile) {
        let (s, n) = (&mut self.storage, next.storage);
        s.null += n.null;
        s.integer += n.integer;
        s.real += n.real;
        s.text += n.text;
        s.blob += n.blob;
        self.lossy += next.lossy;
        self.nul_texts += next.nul_texts;
        self.dates += next.dates;
        self.datetimes += next.datetimes;
        self.datetimes_changed += next.datetimes_changed;
        self.lenient_dates += next.lenient_dates;
        self.lenient_datetimes += next.lenient_datetimes;
        if self.first_bad.is_none() {
            self.first_bad = next.first_bad;
        }
        self.only_01 &= next.only_01;
        self.max_chars = self.max_chars.max(next.max_chars);
    }
}

/// Profiles table `t`: in parts over several readers at once where the
/// source can split it (a large SQLite table: row-id ranges, one core
/// each), else whole. The result is the same either way.
fn scan_table(
    src: &mut dyn Source,
    t: &SourceTable,
    key_cols: &[bool],
    collect: &[Vec<usize>],
    probes: &[Probe],
    sets: &HashMap<ParentKey, KeySet>,
) -> Result<Part, DbError> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_PARTS);
    let parts = if workers > 1 {
        src.parts(t, workers)?
    } else {
        Vec::new()
    };
    let mut readers = Vec::new();
    for _ in 1..parts.len() {
        match src.reopen() {
            Some(Ok(r)) => readers.push(r),
            _ => break,
        }
    }
    if parts.len() < 2 || readers.len() + 1 < parts.len() {
        return profile_part(src, t, key_cols, None, collect, probes, sets);
    }
    let (first, rest): (Result<Part, DbError>, Vec<Result<Part, DbError>>) =
        std::thread::scope(|s| {
            let handles: Vec<_> = parts[1..]
                .iter()
                .zip(readers.iter_mut())
                .map(|(part, r)| {
                    s.spawn(move || {
                        profile_part(&mut **r, t, key_cols, Some(part), collect, probes, sets)
                    })
                })
                .collect();
            let first = profile_part(src, t, key_cols, Some(&parts[0]), collect, probes, sets);
            let rest = handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(DbError::new(
                            sqlwitness_core::ErrorClass::Other,
                            None,
                            format!("table `{}`: a profiling thread panicked", t.name),
                        ))
                    })
                })
                .collect();
            (first, rest)
        });
    let mut whole = first?;
    for part in rest {
        whole = whole.then(part?);
    }
    Ok(whole)
}

/// Profiles `t`, or its rows in `part`: the column counts, the parent
/// keys in `collect` (hashed) and the orphans of each probe.
fn profile_part(
    src: &mut dyn Source,
    t: &SourceTable,
    key_cols: &[bool],
    part: Option<&ScanPart>,
    collect: &[Vec<usize>],
    probes: &[Probe],
    sets: &HashMap<ParentKey, KeySet>,
) -> Result<Part, DbError> {
    let mut new_sets: Vec<Option<KeySet>> =
        collect.iter().map(|_| Some(KeySet::default())).collect();
    let mut orphans = vec![0u64; probes.len()];
    let profile = profile_table(src, t, key_cols, part, &mut |row| {
        for (cols, set) in collect.iter().zip(&mut new_sets) {
            if let Some(s) = set {
                if let Some(h) = key_hash(row, cols) {
                    s.insert(h);
                    if s.len() > MAX_PARENT_KEYS {
                        *set = None;
                    }
                }
            }
        }
        for (k, (_, cols, key)) in probes.iter().enumerate() {
            if let Some(h) = key_hash(row, cols) {
                if !sets[key].contains(&h) {
                    orphans[k] += 1;
                }
            }
        }
    })?;
    Ok(Part {
        profile,
        new_sets,
        orphans,
    })
}

fn profile_table(
    src: &mut dyn Source,
    t: &SourceTable,
    key_cols: &[bool],
    part: Option<&ScanPart>,
    each_row: &mut dyn FnMut(&[Value]),
) -> Result<TableProfile, DbError> {
    let temporal: Vec<bool> = t.columns.iter().map(|c| is_temporal(&c.declared)).collect();
    let boolean: Vec<bool> = t.columns.iter().map(|c| is_boolean(&c.declared)).collect();
    let mut cols: Vec<ColumnProfile> = t
        .columns
        .iter()
        .map(|_| ColumnProfile {
            only_01: true,
            ..Default::default()
        })
        .collect();
    let mut on_batch = |batch: &mut [Vec<Value>], lossy: &[sqlwitness_core::LossyCell]| {
        for &(_, c) in lossy {
            cols[c].lossy += 1;
        }
        for row in batch {
            each_row(row);
            for (c, v) in row.iter().enumerate() {
                let p = &mut cols[c];
                match v {
                    Value::Null => p.storage.null += 1,
                    Value::Int(i) => {
                        p.storage.integer += 1;
                        if boolean[c] && *i != 0 && *i != 1 {
                            p.only_01 = false;
                        }
                    }
                    Value::Float(_) => p.storage.real += 1,
                    Value::Text(s) => {
                        p.storage.text += 1;
                        if s.as_bytes().contains(&0) {
                            p.nul_texts += 1;
                        }
                        if key_cols.get(c).copied().unwrap_or(false) {
                            p.max_chars = p.max_chars.max(s.chars().count() as u64);
                        }
                        if temporal[c] {
                            // A strict `YYYY-MM-DD` is its own canonical form.
                            if parse_date(s).is_some() {
                                p.dates += 1;
                            } else if let Some(dt) = parse_datetime(s) {
                                p.datetimes += 1;
                                if datetime_text(dt) != *s {
                                    p.datetimes_changed += 1;
                                }
                            } else {
                                if is_lenient_date(s) {
                                    p.lenient_dates += 1;
                                } else if is_lenient_datetime(s) {
                                    p.lenient_datetimes += 1;
                                }
                                if p.first_bad.is_none() {
                                    p.first_bad = Some(s.chars().take(60).collect());
                                }
                            }
                        }
                    }
                    Value::Bytes(b) => {
                        p.storage.blob += 1;
                        if key_cols.get(c).copied().unwrap_or(false) {
                            p.max_chars = p.max_chars.max(b.len() as u64);
                        }
                    }
                    _ => p.storage.blob += 1,
                }
            }
        }
        Ok(())
    };
    let rows = match part {
        Some(p) => src.scan_part(t, p, &mut on_batch)?,
        None => src.scan(t, &mut on_batch)?,
    };
    Ok(TableProfile {
        rows,
        columns: cols,
        orphans: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use sqlwitness_core::{EngineKind, KeyFn, ScanBatch, TargetKind};

    use crate::migrate::keys::{key_columns, resolve_foreign_keys};

    /// A source that can only be read whole.
    struct Whole(Box<dyn Source>);

    impl Source for Whole {
        fn schema(&mut self) -> Result<SourceSchema, DbError> {
            self.0.schema()
        }
        fn scan(&mut self, t: &SourceTable, batch: &mut ScanBatch<'_>) -> Result<u64, DbError> {
            self.0.scan(t, batch)
        }
        fn key_violations(
            &mut self,
            t: &SourceTable,
            cols: &[usize],
            kinds: &[TargetKind],
            key: &Arc<KeyFn>,
        ) -> Result<(u64, u64), DbError> {
            self.0.key_violations(t, cols, kinds, key)
        }
        fn orphans(
            &mut self,
            child: &SourceTable,
            cols: &[usize],
            parent: &SourceTable,
            pcols: &[usize],
            kinds: &[TargetKind],
            key: &Arc<KeyFn>,
            exact: bool,
        ) -> Result<u64, DbError> {
            self.0
                .orphans(child, cols, parent, pcols, kinds, key, exact)
        }
    }

    /// A table read in parts over several readers profiles exactly as read
    /// whole: counts, the first bad text, the longest key, orphans, and the
    /// parent keys its children look up.
    #[test]
    fn a_table_profiled_in_parts_is_profiled_as_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.sqlite");
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(
            "PRAGMA foreign_keys = OFF;
             CREATE TABLE parent (id INTEGER PRIMARY KEY, code TEXT, d DATE, flag BOOLEAN);
             CREATE TABLE child (id INTEGER PRIMARY KEY, pid INT REFERENCES parent(id),
               code TEXT REFERENCES parent(code));
             BEGIN;",
        )
        .unwrap();
        let mut ins = c
            .prepare("INSERT INTO parent VALUES (?1, ?2, ?3, ?4)")
            .unwrap();
        // Row ids spread over a range wide enough to split.
        for i in 0..3000i64 {
            let d = match i {
                1234 => "not a date".to_string(),
                2900 => "also bad".to_string(),
                _ => format!("2020-01-{:02}", 1 + i % 28),
            };
            let code = format!("c{}", "x".repeat((i % 97) as usize));
            ins.execute(rusqlite::params![
                i * 400,
                code,
                d,
                i64::from(i == 2500) * 7
            ])
            .unwrap();
        }
        drop(ins);
        let mut ins = c.prepare("INSERT INTO child VALUES (?1, ?2, ?3)").unwrap();
        for i in 0..3000i64 {
            let pid = if i % 11 == 0 { 5 } else { (i % 3000) * 400 };
            ins.execute(rusqlite::params![
                i * 333,
                pid,
                format!("c{}", "x".repeat((i % 101) as usize))
            ])
            .unwrap();
        }
        drop(ins);
        c.execute_batch("COMMIT").unwrap();
        drop(c);
        let mut split = sqlwitness_engines::open_source(EngineKind::Sqlite, &path).unwrap();
        let schema = split.schema().unwrap();
        assert_eq!(split.parts(&schema.tables[0], 2).unwrap().len(), 2);
        let resolved = resolve_foreign_keys(&schema);
        let keys = key_columns(&schema, &resolved);
        let parts = profile(&mut *split, &schema, &resolved, &keys).unwrap();
        let mut whole = Whole(sqlwitness_engines::open_source(EngineKind::Sqlite, &path).unwrap());
        let whole = profile(&mut whole, &schema, &resolved, &keys).unwrap();
        assert_eq!(parts, whole);
        assert_eq!(whole[0].columns[2].first_bad.as_deref(), Some("not a date"));
        // SQLite lists a table's foreign keys last declared first.
        assert_eq!(whole[1].orphans, [Some(116), Some(273)]);
    }

    #[test]
    fn key_hashes_are_typed_and_skip_nulls() {
        let row = [
            Value::Int(1),
            Value::Text("1".into()),
            Value::Null,
            Value::Float(-0.0),
        ];
        assert_ne!(key_hash(&row, &[0]), key_hash(&row, &[1]));
        assert_eq!(key_hash(&row, &[2]), None);
        assert_eq!(key_hash(&row, &[3]), key_hash(&[Value::Float(0.0)], &[0]));
        assert_ne!(key_hash(&row, &[0, 1]), key_hash(&row, &[1, 0]));
    }
}
