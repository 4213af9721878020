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
use sqlwitness_core::{DbError, Source, SourceSchema, SourceTable, Value};
use xxhash_rust::xxh3::Xxh3;

use super::keys::Resolution;
use super::log::StorageCounts;
use super::plan::{is_boolean, is_temporal};
use super::temporal::{datetime_text, parse_date, parse_datetime};

/// Bumped when what a profile holds changes (cached profiles of another
/// version are recomputed).
pub(crate) const PROFILE_VERSION: u32 = 2;

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
    /// The first text that is neither (clipped).
    pub first_bad: Option<String>,
    /// Every integer is 0 or 1.
    pub only_01: bool,
    /// The longest text in characters (key columns only).
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
        let mut new_sets: Vec<(Vec<usize>, Option<KeySet>)> = collect
            .into_iter()
            .map(|c| (c, Some(KeySet::default())))
            .collect();
        let mut orphans = vec![0u64; probes.len()];
        let p = profile_table(src, table, &key_cols[t], &mut |row| {
            for (cols, set) in &mut new_sets {
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
        let mut p = p;
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
        for (cols, set) in new_sets {
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

fn profile_table(
    src: &mut dyn Source,
    t: &SourceTable,
    key_cols: &[bool],
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
    let rows = src.scan(t, &mut |batch, lossy| {
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
                            } else if p.first_bad.is_none() {
                                p.first_bad = Some(s.chars().take(60).collect());
                            }
                        }
                    }
                    _ => p.storage.blob += 1,
                }
            }
        }
        Ok(())
    })?;
    Ok(TableProfile {
        rows,
        columns: cols,
        orphans: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
