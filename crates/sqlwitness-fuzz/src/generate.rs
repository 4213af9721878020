//! Database-instance generation.
//!
//! Every column gets a value pool: its original values, the gold queries'
//! literals compared with a column of that name and their neighbours (±1,
//! prefixes and suffixes of strings, the day before and after a date),
//! and boundary values — each converted to the migration's type decision
//! for the column and kept only when it fits the column's domain (the
//! value set of a low-cardinality column, the shape of dates and codes, no
//! negatives where the original has none). An instance draws, per column,
//! a small sub-pool (so duplicates and ties on sort keys are frequent) and
//! fills every table, parents first, with a number of rows that follows
//! the original's proportions. The rules the original data keeps hold in
//! every instance (see `schema`): NULLs only where the original column has
//! them, primary keys and unique columns without duplicates, foreign-key
//! values that name a parent row (orphans only as often as in the
//! original), no empty table. [`Stress`] turns some rules off. Tables are
//! created with the original `CREATE` statements, so every query that runs
//! on the original runs on the instance.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use crate::neighbors::{GoldLiteral, LiteralValue};
use rusqlite::types::ToSqlOutput;
use rusqlite::Connection;
use sqlwitness_core::Value;
use sqlwitness_migrate::TargetKind;

use crate::rng::Rng;
use crate::schema::{fk_key, quote, shape, ColumnDef, DbSchema, Domain, ForeignKeyDef, TableDef};
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
                    for (k, v) in near(&lit.value).iter().enumerate() {
                        // The literal itself always, unless every value of
                        // the column has a shape it lacks (a literal is
                        // matched to columns by name alone: `Date =
                        // '201309'` on one table is no value for another
                        // table's `Date` of shape 9999-99-99); its
                        // neighbours only inside the column's domain.
                        if let Some(x) = convert(v, c.kind) {
                            let shaped = matches!(c.domain, Domain::Shape(_));
                            if (k == 0 && !shaped && typed(c, &x)) || fits(c, &x) {
                                push_unique(&mut fav, x);
                            }
                        }
                    }
                }
                let mut pool = c.originals.clone();
                for v in fav.iter().cloned().chain(boundaries(c.kind)) {
                    if fav.contains(&v) || fits(c, &v) {
                        push_unique(&mut pool, v);
                    }
                }
                tp.push(pool);
                tf.push(fav);
            }
            pools.push(tp);
            favoured.push(tf);
        }
        Pools { pools, favoured }
    }
}

/// Whether the column's type on a server reference holds `v` (see
/// `type_limits`; always, without one).
fn typed(c: &ColumnDef, v: &Value) -> bool {
    c.type_limit
        .as_ref()
        .is_none_or(|l| l.holds(&c.originals, v))
}

/// Whether a generated (non-literal) value fits the column's domain and
/// its type.
fn fits(c: &ColumnDef, v: &Value) -> bool {
    if !typed(c, v) {
        return false;
    }
    if c.non_negative {
        match v {
            Value::Int(i) if *i < 0 => return false,
            Value::Float(f) if *f < 0.0 => return false,
            _ => {}
        }
    }
    match &c.domain {
        Domain::Free => true,
        Domain::Set => c.originals.contains(v),
        // Every original is a text of this shape: so is every value.
        Domain::Shape(sh) => matches!(v, Value::Text(s) if &shape(s) == sh),
    }
}

/// Rules an instance may break on purpose (`fuzz --stress`), all off by
/// default; the manifest lists the ones in force.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stress {
    /// NULLs in every column not declared NOT NULL and outside the key.
    pub nulls: bool,
    /// Foreign-key values that name no parent row.
    pub orphans: bool,
    /// Tables left empty.
    pub empty: bool,
    /// Duplicates in inferred unique columns.
    pub duplicates: bool,
}

/// A stress name that is not one of [`Stress::NAMES`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown stress `{0}` (one of nulls, orphans, empty, duplicates)")]
pub struct UnknownStress(pub String);

impl Stress {
    pub const NAMES: [&'static str; 4] = ["nulls", "orphans", "empty", "duplicates"];

    /// From a comma-separated list of [`Stress::NAMES`].
    pub fn parse(list: &str) -> Result<Stress, UnknownStress> {
        let mut s = Stress::default();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match name {
                "nulls" => s.nulls = true,
                "orphans" => s.orphans = true,
                "empty" => s.empty = true,
                "duplicates" => s.duplicates = true,
                other => return Err(UnknownStress(other.to_string())),
            }
        }
        Ok(s)
    }

    pub fn names(&self) -> Vec<String> {
        let on = [self.nulls, self.orphans, self.empty, self.duplicates];
        Stress::NAMES
            .iter()
            .zip(on)
            .filter(|(_, on)| *on)
            .map(|(n, _)| n.to_string())
            .collect()
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

/// A value for a unique column not yet in `used`: a pool value when one is
/// left, else a new one in the column's shape.
fn unused(c: &ColumnDef, pool: &[Value], used: &HashSet<String>, rng: &mut Rng) -> Value {
    if !pool.is_empty() {
        let off = rng.below(pool.len());
        for i in 0..pool.len() {
            let v = &pool[(off + i) % pool.len()];
            if !used.contains(&fk_key(v)) {
                return v.clone();
            }
        }
    }
    for n in 0..10_000i64 {
        let v = match (&c.kind, &c.domain) {
            (TargetKind::Integer | TargetKind::Real | TargetKind::Numeric, _) => {
                Value::Int(1000 + n + rng.below(1000) as i64)
            }
            (_, Domain::Shape(sh)) => Value::Text(
                sh.chars()
                    .map(|ch| match ch {
                        '9' => (b'0' + rng.below(10) as u8) as char,
                        'A' => (b'A' + rng.below(26) as u8) as char,
                        'a' => (b'a' + rng.below(26) as u8) as char,
                        other => other,
                    })
                    .collect(),
            ),
            _ => match rng.pick(pool) {
                Some(Value::Text(s)) => Value::Text(format!("{s} {}", n + 2)),
                _ => Value::Text(format!("k{}", n + rng.below(1000) as i64)),
            },
        };
        // Too long for the column's type on the reference: a short one.
        let v = match v {
            Value::Text(_) if !typed(c, &v) => Value::Text(format!("k{n}")),
            v => v,
        };
        if typed(c, &v) && !used.contains(&fk_key(&v)) {
            return v;
        }
    }
    Value::Text(format!("k{}", rng.next_u64()))
}

/// Rows as written, per table index.
type Written = Vec<Vec<Vec<Value>>>;

/// Parent column indexes of a foreign key, when the parent has them all.
pub(crate) fn parent_columns(schema: &DbSchema, fk: &ForeignKeyDef) -> Option<(usize, Vec<usize>)> {
    let (pi, parent) = schema.table(&fk.parent)?;
    let cols = fk
        .parent_columns
        .iter()
        .map(|pc| {
            parent
                .columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(pc))
        })
        .collect::<Option<Vec<usize>>>()?;
    Some((pi, cols))
}

/// How many rows table `t` gets: the original's share of the largest
/// table, softened (square root) so small tables still vary, times the
/// instance's scale; at least one row.
fn table_rows(t: &TableDef, largest: usize, scale: usize, rng: &mut Rng) -> usize {
    let share = if t.original_rows == 0 || largest == 0 {
        1.0
    } else {
        (t.original_rows as f64 / largest as f64).sqrt()
    };
    let jitter = 0.5 + rng.below(1001) as f64 / 1000.0;
    ((scale as f64 * share * jitter).round() as usize).max(1)
}

/// Writes one generated instance of `schema` to `path` (replaced if it
/// exists) and returns its table sizes.
pub fn write_instance(
    schema: &DbSchema,
    pools: &Pools,
    stress: Stress,
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
    let largest = schema
        .tables
        .iter()
        .map(|t| t.original_rows)
        .max()
        .unwrap_or(0);
    let mut sizes = InstanceSizes::new();
    let mut written: Written = vec![Vec::new(); schema.tables.len()];
    for (ti, t) in schema.tables.iter().enumerate() {
        tx.execute_batch(&t.create_sql).map_err(err)?;
        let n = if stress.empty && rng.chance(0.08) {
            0
        } else {
            table_rows(t, largest, scale, rng)
        };
        let sub = sub_pools(t, ti, pools, stress, rng);
        let draw = Draw {
            schema,
            t,
            ti,
            sub: &sub,
            pools,
            written: &written,
            stress,
        };
        insert_rows(&tx, &draw, n, rng).map_err(err)?;
        let stored = read_back(&tx, t).map_err(err)?;
        sizes.insert(t.name.clone(), stored.len());
        written[ti] = stored;
    }
    tx.commit().map_err(err)?;
    Ok(sizes)
}

/// Per column sub-pool: ties and duplicates come from small pools; unique
/// columns draw from the whole pool.
fn sub_pools(
    t: &TableDef,
    ti: usize,
    pools: &Pools,
    stress: Stress,
    rng: &mut Rng,
) -> Vec<Vec<Value>> {
    t.columns
        .iter()
        .enumerate()
        .map(|(ci, c)| {
            let pool = &pools.pools[ti][ci];
            let fav = &pools.favoured[ti][ci];
            if c.unique && !stress.duplicates {
                return pool.clone();
            }
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
        .collect()
}

/// What the rows of table `t` (index `ti`) are drawn from.
struct Draw<'a> {
    schema: &'a DbSchema,
    t: &'a TableDef,
    ti: usize,
    sub: &'a [Vec<Value>],
    pools: &'a Pools,
    written: &'a Written,
    stress: Stress,
}

/// The column sets kept unique: all of them, or under the `duplicates`
/// stress only the primary key and the sets with a column not inferred
/// unique.
fn kept_unique_sets(t: &TableDef, stress: Stress) -> Vec<&Vec<usize>> {
    t.unique_sets
        .iter()
        .filter(|u| {
            !stress.duplicates
                || u.as_slice() == t.primary_key.as_slice()
                || u.iter().any(|&c| !t.columns[c].unique)
        })
        .collect()
}

/// Inserts up to `n` rows into the table, each drawn until its unique sets
/// are new (eight tries, else the row is left out).
fn insert_rows(conn: &Connection, d: &Draw, n: usize, rng: &mut Rng) -> rusqlite::Result<()> {
    let t = d.t;
    let unique_sets = kept_unique_sets(t, d.stress);
    let mut used: Vec<HashSet<Vec<String>>> = vec![HashSet::new(); unique_sets.len()];
    // Per unique single column, its values so far (for `unused`).
    let mut used_col: Vec<HashSet<String>> = vec![HashSet::new(); t.columns.len()];
    let fks: Vec<Option<(usize, Vec<usize>)>> = t
        .foreign_keys
        .iter()
        .map(|fk| parent_columns(d.schema, fk))
        .collect();
    let placeholders = vec!["?"; t.columns.len()].join(", ");
    let mut insert = conn.prepare(&format!(
        "INSERT OR IGNORE INTO {} VALUES ({placeholders})",
        quote(&t.name)
    ))?;
    let mut mine: Vec<Vec<Value>> = Vec::new();
    for _ in 0..n {
        let mut accepted = None;
        for _attempt in 0..8 {
            let row = gen_row(
                t, d.ti, d.sub, d.pools, &fks, d.written, &mine, &used_col, d.stress, rng,
            );
            let keys = unique_keys(&unique_sets, &row);
            if !clashes(&row, &keys, &unique_sets, &used) {
                accepted = Some((row, keys));
                break;
            }
        }
        let Some((row, keys)) = accepted else {
            continue;
        };
        for (u, k) in used.iter_mut().zip(keys) {
            u.insert(k);
        }
        for (ci, v) in row.iter().enumerate() {
            if t.columns[ci].unique {
                used_col[ci].insert(fk_key(v));
            }
        }
        let params: Vec<ToSqlOutput<'_>> = row.iter().map(to_sql).collect();
        insert.execute(rusqlite::params_from_iter(params.iter()))?;
        mine.push(row);
    }
    Ok(())
}

/// The row's values in each unique set, comparable.
fn unique_keys(unique_sets: &[&Vec<usize>], row: &[Value]) -> Vec<Vec<String>> {
    unique_sets
        .iter()
        .map(|u| u.iter().map(|&c| fk_key(&row[c])).collect())
        .collect()
}

/// Whether a row's `keys` repeat a set's `used` values; NULLs never
/// collide (SQL's UNIQUE), except in the key.
fn clashes(
    row: &[Value],
    keys: &[Vec<String>],
    unique_sets: &[&Vec<usize>],
    used: &[HashSet<Vec<String>>],
) -> bool {
    keys.iter().zip(used).zip(unique_sets).any(|((k, u), set)| {
        let has_null = set.iter().any(|&c| row[c] == Value::Null);
        !has_null && u.contains(k)
    })
}

/// What was really stored in the table (INSERT OR IGNORE may skip rows,
/// and column affinities convert values), in rowid order where it has one.
fn read_back(conn: &Connection, t: &TableDef) -> rusqlite::Result<Vec<Vec<Value>>> {
    let mut read = conn
        .prepare(&format!("SELECT * FROM {} ORDER BY rowid", quote(&t.name)))
        .or_else(|_| conn.prepare(&format!("SELECT * FROM {}", quote(&t.name))))?;
    let ncol = t.columns.len();
    let mut rows = read.query([])?;
    let mut stored = Vec::new();
    while let Some(r) = rows.next()? {
        let mut vals = Vec::with_capacity(ncol);
        for i in 0..ncol {
            vals.push(sqlite_value(r.get_ref(i)?));
        }
        stored.push(vals);
    }
    Ok(stored)
}

/// One candidate row of table `t` (index `ti`); `mine` holds the rows of
/// `t` written so far (for self-references).
#[allow(clippy::too_many_arguments)]
fn gen_row(
    t: &TableDef,
    ti: usize,
    sub: &[Vec<Value>],
    pools: &Pools,
    fks: &[Option<(usize, Vec<usize>)>],
    written: &Written,
    mine: &[Vec<Value>],
    used_col: &[HashSet<String>],
    stress: Stress,
    rng: &mut Rng,
) -> Vec<Value> {
    let mut row: Vec<Value> = Vec::with_capacity(t.columns.len());
    for (ci, c) in t.columns.iter().enumerate() {
        let in_pk = t.primary_key.contains(&ci);
        let null_p = if stress.nulls && !in_pk && !c.not_null {
            c.null_ratio.max(0.07)
        } else if c.never_null {
            0.0
        } else {
            c.null_ratio.clamp(0.05, 0.5)
        };
        let v = if null_p > 0.0 && rng.chance(null_p) {
            Value::Null
        } else if c.unique && !stress.duplicates {
            unused(c, &sub[ci], &used_col[ci], rng)
        } else {
            rng.pick(&sub[ci])
                .or_else(|| rng.pick(&pools.pools[ti][ci]))
                .cloned()
                .unwrap_or(Value::Null)
        };
        row.push(v);
    }
    // Foreign keys: a parent row's values; NULL as often as the original
    // column has NULLs, an orphan as often as the original has orphans.
    for (fk, target) in t.foreign_keys.iter().zip(fks) {
        let Some((pi, pcols)) = target else { continue };
        let nullable = fk.columns.iter().all(|&c| {
            let col = &t.columns[c];
            if stress.nulls {
                !col.not_null
            } else {
                !col.never_null
            }
        });
        if nullable && fk.columns.iter().all(|&c| row[c] == Value::Null) {
            continue;
        }
        let orphan = (stress.orphans && rng.chance(0.05))
            || (fk.orphan_ratio > 0.0 && rng.chance(fk.orphan_ratio));
        if orphan {
            continue;
        }
        let self_ref = *pi == ti;
        let parents: &[Vec<Value>] = if self_ref { mine } else { &written[*pi] };
        // A unique child key takes a parent not taken yet, when it can.
        let unique_child = fk.columns.iter().all(|&c| t.columns[c].unique);
        let mut pick = None;
        for _ in 0..if unique_child { 8 } else { 1 } {
            let Some(prow) = rng.pick(parents) else { break };
            pick = Some(prow);
            let taken = fk
                .columns
                .iter()
                .zip(pcols)
                .any(|(&cc, &pc)| used_col[cc].contains(&fk_key(&prow[pc])));
            if !unique_child || !taken {
                break;
            }
        }
        match pick {
            Some(prow) => {
                for (&cc, &pc) in fk.columns.iter().zip(pcols) {
                    row[cc] = prow[pc].clone();
                }
            }
            None if self_ref => {
                // The first row of a self-referencing table names itself.
                if nullable {
                    for &cc in &fk.columns {
                        row[cc] = Value::Null;
                    }
                } else {
                    let own: Vec<Value> = pcols.iter().map(|&pc| row[pc].clone()).collect();
                    for (&cc, v) in fk.columns.iter().zip(own) {
                        row[cc] = v;
                    }
                }
            }
            None if nullable => {
                for &cc in &fk.columns {
                    row[cc] = Value::Null;
                }
            }
            None => {}
        }
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str, unique: bool) -> ColumnDef {
        ColumnDef {
            name: name.into(),
            declared: String::new(),
            not_null: false,
            never_null: false,
            null_ratio: 0.0,
            unique,
            domain: Domain::Free,
            non_negative: false,
            kind: TargetKind::Integer,
            originals: Vec::new(),
            type_limit: None,
        }
    }

    fn table() -> TableDef {
        TableDef {
            name: "t".into(),
            create_sql: String::new(),
            columns: vec![column("id", true), column("code", true), column("x", false)],
            primary_key: vec![0],
            unique_sets: vec![vec![0], vec![1], vec![1, 2]],
            foreign_keys: Vec::new(),
            original_rows: 3,
        }
    }

    /// Under the `duplicates` stress an inferred unique column may repeat;
    /// the primary key and sets with another column stay unique.
    #[test]
    fn duplicates_free_only_inferred_unique_columns() {
        let t = table();
        assert_eq!(kept_unique_sets(&t, Stress::default()).len(), 3);
        let stress = Stress {
            duplicates: true,
            ..Stress::default()
        };
        assert_eq!(kept_unique_sets(&t, stress), [&vec![0], &vec![1, 2]]);
    }

    /// A row clashes when a unique set's values were used already, unless
    /// one of them is NULL.
    #[test]
    fn nulls_never_clash() {
        let t = table();
        let sets = kept_unique_sets(&t, Stress::default());
        let mut used = vec![HashSet::new(); sets.len()];
        let first = vec![Value::Int(1), Value::Int(2), Value::Null];
        let keys = unique_keys(&sets, &first);
        assert!(!clashes(&first, &keys, &sets, &used));
        for (u, k) in used.iter_mut().zip(keys) {
            u.insert(k);
        }
        let same_code = vec![Value::Int(5), Value::Int(2), Value::Null];
        assert!(clashes(
            &same_code,
            &unique_keys(&sets, &same_code),
            &sets,
            &used
        ));
        let other = vec![Value::Int(5), Value::Int(3), Value::Null];
        assert!(!clashes(&other, &unique_keys(&sets, &other), &sets, &used));
        let null_code = vec![Value::Int(6), Value::Null, Value::Null];
        let mut used_null = used.clone();
        used_null[1].insert(unique_keys(&sets, &null_code)[1].clone());
        assert!(!clashes(
            &null_code,
            &unique_keys(&sets, &null_code),
            &sets,
            &used_null
        ));
    }

    /// A unique column draws from its whole pool; another from a sub-pool
    /// of its pool's values.
    #[test]
    fn unique_columns_keep_the_whole_pool() {
        let t = table();
        let values: Vec<Value> = (0..20).map(Value::Int).collect();
        let pools = Pools {
            pools: vec![vec![values.clone(); 3]],
            favoured: vec![vec![Vec::new(); 3]],
        };
        let mut rng = Rng::new(7);
        let sub = sub_pools(&t, 0, &pools, Stress::default(), &mut rng);
        assert_eq!(sub[0], values);
        assert_eq!(sub[1], values);
        assert!(!sub[2].is_empty() && sub[2].iter().all(|v| values.contains(v)));
        let stress = Stress {
            duplicates: true,
            ..Stress::default()
        };
        let sub = sub_pools(&t, 0, &pools, stress, &mut rng);
        assert!(sub[..2]
            .iter()
            .all(|s| s.iter().all(|v| values.contains(v))));
    }

    #[test]
    fn read_back_returns_the_stored_rows_in_rowid_order() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE t (id INT, code TEXT, x REAL);
             INSERT INTO t VALUES (2, 'b', 1), (1, 'a', 2.5);",
        )
        .unwrap();
        let rows = read_back(&conn, &table()).unwrap();
        assert_eq!(
            rows,
            [
                vec![Value::Int(2), Value::Text("b".into()), Value::Float(1.0)],
                vec![Value::Int(1), Value::Text("a".into()), Value::Float(2.5)]
            ]
        );
    }
}
