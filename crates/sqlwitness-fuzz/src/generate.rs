//! Database-instance generation.
//!
//! Every column gets a value pool: its original values, the gold queries'
//! literals compared with a column of that name and their neighbours (±1,
//! prefixes and suffixes of strings, the day before and after a date),
//! and boundary values — each converted to the migration's type decision
//! for the column. An instance draws, per column, a small sub-pool (so
//! duplicates and ties on sort keys are frequent) and fills each table with
//! a handful to a few hundred rows (some tables empty), parents first:
//! primary keys are unique, foreign-key columns take values present in the
//! parent as generated, or NULL where allowed. Tables are created with the
//! original `CREATE` statements, so every query that runs on the original
//! runs on the instance.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use rusqlite::types::ToSqlOutput;
use rusqlite::Connection;
use sqlwitness_bench::TargetKind;
use sqlwitness_core::Value;
use sqlwitness_sql::{GoldLiteral, LiteralValue};

use crate::rng::Rng;
use crate::schema::{quote, DbSchema};
use crate::FuzzError;
use sqlwitness_engines::sqlite_value;

/// Value pools per `(table, column)` index.
#[derive(Debug, Clone)]
pub struct Pools {
    /// `pools[t][c]`: original values followed by literal-derived and
    /// boundary values, without duplicates.
    pools: Vec<Vec<Vec<Value>>>,
    /// `favoured[t][c]`: the literal-derived values (drawn more often).
    favoured: Vec<Vec<Vec<Value>>>,
}

fn push_unique(v: &mut Vec<Value>, x: Value) {
    if !v.contains(&x) {
        v.push(x);
    }
}

/// `value` converted to a column of `kind`, when it fits.
fn convert(value: &LiteralValue, kind: TargetKind) -> Option<Value> {
    match (value, kind) {
        (LiteralValue::Number(n), TargetKind::Integer) => n.parse::<i64>().ok().map(Value::Int),
        (LiteralValue::Number(n), TargetKind::Real | TargetKind::Numeric) => n
            .parse::<i64>()
            .map(Value::Int)
            .ok()
            .or_else(|| n.parse::<f64>().ok().map(Value::Float)),
        (LiteralValue::Number(n), _) => Some(Value::Text(n.clone())),
        (LiteralValue::Text(s), TargetKind::Integer) => {
            s.trim().parse::<i64>().ok().map(Value::Int)
        }
        (LiteralValue::Text(s), TargetKind::Real | TargetKind::Numeric) => {
            s.trim().parse::<f64>().ok().map(Value::Float)
        }
        (LiteralValue::Text(s), TargetKind::Blob) => Some(Value::Bytes(s.as_bytes().to_vec())),
        (LiteralValue::Text(s), _) => Some(Value::Text(s.clone())),
    }
}

/// A literal and its neighbours.
fn near(value: &LiteralValue) -> Vec<LiteralValue> {
    let mut out = vec![value.clone()];
    match value {
        LiteralValue::Number(n) => {
            if let Ok(i) = n.parse::<i64>() {
                for d in [-1, 1] {
                    out.push(LiteralValue::Number((i + d).to_string()));
                }
            } else if let Ok(f) = n.parse::<f64>() {
                for d in [-0.5, 0.5] {
                    out.push(LiteralValue::Number((f + d).to_string()));
                }
            }
        }
        LiteralValue::Text(s) => {
            let chars: Vec<char> = s.chars().collect();
            if chars.len() > 1 {
                out.push(LiteralValue::Text(
                    chars[..chars.len() / 2].iter().collect(),
                ));
            }
            out.push(LiteralValue::Text(format!("{s}x")));
            out.push(LiteralValue::Text(s.to_uppercase()));
            if let Some(d) = shift_date(s) {
                out.extend(d.into_iter().map(LiteralValue::Text));
            }
        }
    }
    out
}

/// The day before and after a `YYYY-MM-DD…` text (day 28 as a safe edge).
fn shift_date(s: &str) -> Option<Vec<String>> {
    let b = s.as_bytes();
    if s.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let day: u32 = s[8..10].parse().ok()?;
    let rest = &s[10..];
    let prev = if day > 1 { day - 1 } else { 2 };
    let next = if day < 28 { day + 1 } else { 27 };
    Some(vec![
        format!("{}{prev:02}{rest}", &s[..8]),
        format!("{}{next:02}{rest}", &s[..8]),
    ])
}

fn boundaries(kind: TargetKind) -> Vec<Value> {
    match kind {
        TargetKind::Integer => vec![Value::Int(0), Value::Int(1), Value::Int(-1)],
        TargetKind::Real | TargetKind::Numeric => {
            vec![Value::Float(0.0), Value::Float(0.5), Value::Int(1)]
        }
        TargetKind::Date => vec![
            Value::Text("2000-01-01".into()),
            Value::Text("1999-12-31".into()),
        ],
        TargetKind::Timestamp => vec![Value::Text("2000-01-01 00:00:00".into())],
        TargetKind::Blob => vec![Value::Bytes(vec![0])],
        TargetKind::Text => vec![Value::Text(String::new()), Value::Text("a".into())],
    }
}

impl Pools {
    /// Pools for every column of `schema`, with `literals` (from the gold
    /// queries and their neighbours) attached to columns of the same name.
    pub fn new(schema: &DbSchema, literals: &[GoldLiteral]) -> Pools {
        let mut pools = Vec::new();
        let mut favoured = Vec::new();
        for t in &schema.tables {
            let mut tp = Vec::new();
            let mut tf = Vec::new();
            for c in &t.columns {
                let mut fav = Vec::new();
                for lit in literals {
                    let matches = lit
                        .column
                        .as_deref()
                        .is_some_and(|n| n.eq_ignore_ascii_case(&c.name));
                    if !matches {
                        continue;
                    }
                    for v in near(&lit.value) {
                        if let Some(x) = convert(&v, c.kind) {
                            push_unique(&mut fav, x);
                        }
                    }
                }
                let mut pool = c.originals.clone();
                for v in fav.iter().cloned().chain(boundaries(c.kind)) {
                    push_unique(&mut pool, v);
                }
                // Extremes of the originals are boundary values too (they
                // are already in the pool); nothing else to add.
                tp.push(pool);
                tf.push(fav);
            }
            pools.push(tp);
            favoured.push(tf);
        }
        Pools { pools, favoured }
    }
}

/// Rows written per table, by name.
pub type InstanceSizes = BTreeMap<String, usize>;

fn to_sql(v: &Value) -> ToSqlOutput<'_> {
    use rusqlite::types::Value as V;
    ToSqlOutput::Owned(match v {
        Value::Null => V::Null,
        Value::Int(i) => V::Integer(*i),
        Value::Bool(b) => V::Integer(*b as i64),
        Value::Float(f) => V::Real(*f),
        Value::Bytes(b) => V::Blob(b.clone()),
        Value::Decimal(s)
        | Value::Text(s)
        | Value::Date(s)
        | Value::Time(s)
        | Value::Timestamp(s) => V::Text(s.clone()),
    })
}

/// A value not yet in `used`, for unique keys.
fn fresh(kind: TargetKind, used: &HashSet<String>, rng: &mut Rng) -> Value {
    for n in 0.. {
        let v = match kind {
            TargetKind::Integer | TargetKind::Real | TargetKind::Numeric => {
                Value::Int(1000 + n + rng.below(1000) as i64)
            }
            _ => Value::Text(format!("k{}", n + rng.below(1000) as i64)),
        };
        if !used.contains(&key(&v)) {
            return v;
        }
    }
    unreachable!("an unbounded loop returns")
}

fn key(v: &Value) -> String {
    sqlwitness_core::canonical_cell(v)
}

/// Writes one generated instance of `schema` to `path` (replaced if it
/// exists) and returns its table sizes.
pub fn write_instance(
    schema: &DbSchema,
    pools: &Pools,
    rng: &mut Rng,
    path: &Path,
) -> Result<InstanceSizes, FuzzError> {
    if path.exists() {
        std::fs::remove_file(path).map_err(|e| FuzzError::io(path, e))?;
    }
    let mut conn = Connection::open(path).map_err(|e| FuzzError::sqlite(path, e))?;
    let err = |e: rusqlite::Error| FuzzError::sqlite(path, e);
    conn.execute_batch(
        "PRAGMA foreign_keys = OFF; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;",
    )
    .map_err(err)?;
    let tx = conn.transaction().map_err(err)?;
    let scale = *rng.pick(&[3usize, 6, 10, 20, 40, 300]).unwrap_or(&10);
    let mut sizes = InstanceSizes::new();
    // Rows as written, per table index, for foreign keys.
    let mut written: Vec<Vec<Vec<Value>>> = vec![Vec::new(); schema.tables.len()];
    for (ti, t) in schema.tables.iter().enumerate() {
        tx.execute_batch(&t.create_sql).map_err(err)?;
        let n = if rng.chance(0.08) {
            0
        } else {
            1 + rng.below(scale)
        };
        // Per column sub-pool: ties and duplicates come from small pools.
        let sub: Vec<Vec<Value>> = t
            .columns
            .iter()
            .enumerate()
            .map(|(ci, _)| {
                let pool = &pools.pools[ti][ci];
                let fav = &pools.favoured[ti][ci];
                let k = *rng.pick(&[1usize, 2, 3, 5, 8, 1000]).unwrap_or(&3);
                let mut s: Vec<Value> = Vec::new();
                for v in fav {
                    if rng.chance(0.5) {
                        s.push(v.clone());
                    }
                }
                for _ in 0..k.min(pool.len()) {
                    if let Some(v) = rng.pick(pool) {
                        push_unique(&mut s, v.clone());
                    }
                }
                s
            })
            .collect();
        let single_pk = (t.primary_key.len() == 1).then(|| t.primary_key[0]);
        let mut used_pk: HashSet<String> = HashSet::new();
        let placeholders = vec!["?"; t.columns.len()].join(", ");
        let mut insert = tx
            .prepare(&format!(
                "INSERT OR IGNORE INTO {} VALUES ({placeholders})",
                quote(&t.name)
            ))
            .map_err(err)?;
        for _ in 0..n {
            let mut row: Vec<Value> = Vec::with_capacity(t.columns.len());
            for (ci, c) in t.columns.iter().enumerate() {
                let in_pk = t.primary_key.contains(&ci);
                let v = if !in_pk && !c.not_null && rng.chance(0.07) {
                    Value::Null
                } else {
                    rng.pick(&sub[ci])
                        .or_else(|| rng.pick(&pools.pools[ti][ci]))
                        .cloned()
                        .unwrap_or(Value::Null)
                };
                row.push(v);
            }
            // Foreign keys: a parent row's values (or NULL where allowed).
            for fk in &t.foreign_keys {
                let Some((pi, parent)) = schema.table(&fk.parent) else {
                    continue;
                };
                let pcols: Option<Vec<usize>> = fk
                    .parent_columns
                    .iter()
                    .map(|pc| {
                        parent
                            .columns
                            .iter()
                            .position(|c| c.name.eq_ignore_ascii_case(pc))
                    })
                    .collect();
                let Some(pcols) = pcols else { continue };
                let rows = &written[pi];
                let nullable = fk.columns.iter().all(|&c| !t.columns[c].not_null);
                match rng.pick(rows) {
                    Some(prow) if !(nullable && rng.chance(0.05)) => {
                        for (&cc, &pc) in fk.columns.iter().zip(&pcols) {
                            row[cc] = prow[pc].clone();
                        }
                    }
                    _ if nullable => {
                        for &cc in &fk.columns {
                            row[cc] = Value::Null;
                        }
                    }
                    _ => {}
                }
            }
            if let Some(pk) = single_pk {
                let fk_col = t.foreign_keys.iter().any(|f| f.columns.contains(&pk));
                if !fk_col && (row[pk] == Value::Null || used_pk.contains(&key(&row[pk]))) {
                    row[pk] = fresh(t.columns[pk].kind, &used_pk, rng);
                }
                used_pk.insert(key(&row[pk]));
            }
            let params: Vec<ToSqlOutput<'_>> = row.iter().map(to_sql).collect();
            insert
                .execute(rusqlite::params_from_iter(params.iter()))
                .map_err(err)?;
        }
        drop(insert);
        // Read back what was really stored (INSERT OR IGNORE may skip rows).
        let mut read = tx
            .prepare(&format!("SELECT * FROM {} ORDER BY rowid", quote(&t.name)))
            .or_else(|_| tx.prepare(&format!("SELECT * FROM {}", quote(&t.name))))
            .map_err(err)?;
        let ncol = t.columns.len();
        let mut rows = read.query([]).map_err(err)?;
        let mut stored = Vec::new();
        while let Some(r) = rows.next().map_err(err)? {
            let mut vals = Vec::with_capacity(ncol);
            for i in 0..ncol {
                vals.push(sqlite_value(r.get_ref(i).map_err(err)?));
            }
            stored.push(vals);
        }
        drop(rows);
        drop(read);
        sizes.insert(t.name.clone(), stored.len());
        written[ti] = stored;
    }
    tx.commit().map_err(err)?;
    Ok(sizes)
}
