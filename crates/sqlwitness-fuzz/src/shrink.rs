//! Witness shrinking: delta debugging over rows (Zeller and Hildebrandt
//! 2002, ddmin, complement reduction) down to a small database on which the
//! gold and the prediction still differ — by the suite's judgment (see
//! `judge`), so a tie or an empty-vs-NULL artefact is never a witness.
//! Every candidate keeps the constraints of the instances: after a
//! removal, rows whose foreign-key values no longer name a parent row
//! (compared as SQLite compares them, so a text key naming an integer key
//! is kept) are removed too, and no table the instance fills is emptied.
//! Foreign keys the original data itself breaks are not enforced.

use std::path::Path;

use rusqlite::Connection;
use sqlwitness_core::compare::CompareOptions;
use sqlwitness_core::{Database, DbError, QueryLimits, ResultSet, Value};

use crate::generate::parent_columns;
use crate::judge::really_differs;
use crate::schema::{fk_key, open_ro, quote, DbSchema};
use crate::FuzzError;
use sqlwitness_engines::sqlite_value;

/// A small database on which the gold and the prediction differ.
#[derive(Debug, Clone, PartialEq)]
pub struct Witness {
    /// Rows in the witness database.
    pub rows: usize,
    /// Rows of the instance it was shrunk from.
    pub rows_before: usize,
    /// `INSERT INTO "t" VALUES (…);`, parents first.
    pub inserts: Vec<String>,
    /// The gold's result on the witness, rendered (at most 10 rows).
    pub gold: Vec<Vec<String>>,
    /// The prediction's result, or its error.
    pub pred: Result<Vec<Vec<String>>, DbError>,
    /// Databases tried while shrinking.
    pub trials: usize,
}

type Row = (usize, Vec<Value>);
/// A foreign key the shrinker keeps: parent table index, child columns,
/// parent columns.
type EnforcedKey = (usize, Vec<usize>, Vec<usize>);
/// Gold result and prediction result (or error) on a database where they differ.
type Difference = (ResultSet, Result<ResultSet, DbError>);

fn literal(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => (*b as i64).to_string(),
        Value::Float(f) => format!("{f:?}"),
        Value::Bytes(_) => v.display().replace("x'", "X'"),
        Value::Decimal(s)
        | Value::Text(s)
        | Value::Date(s)
        | Value::Time(s)
        | Value::Timestamp(s) => {
            format!("'{}'", s.replace('\'', "''"))
        }
    }
}

fn render(rs: &ResultSet) -> Vec<Vec<String>> {
    rs.rows
        .iter()
        .take(10)
        .map(|r| r.iter().map(Value::display).collect())
        .collect()
}

/// Removes rows whose non-null foreign-key values match no remaining parent
/// row, until nothing changes. Keys with orphans in the original are not
/// enforced.
fn fk_closure(schema: &DbSchema, rows: &[Row], mut keep: Vec<usize>) -> Vec<usize> {
    // Per table, per enforced key: (parent index, child cols, parent cols).
    let keys: Vec<Vec<EnforcedKey>> = schema
        .tables
        .iter()
        .map(|t| {
            t.foreign_keys
                .iter()
                .filter(|fk| fk.orphan_ratio == 0.0)
                .filter_map(|fk| {
                    let (pi, pcols) = parent_columns(schema, fk)?;
                    Some((pi, fk.columns.clone(), pcols))
                })
                .collect()
        })
        .collect();
    loop {
        let before = keep.len();
        // Parent key values present, per (parent table, parent cols).
        let mut present: std::collections::HashSet<(usize, Vec<usize>, Vec<String>)> =
            std::collections::HashSet::new();
        for ks in &keys {
            for (pi, _, pcols) in ks {
                for &j in &keep {
                    let (tj, pv) = &rows[j];
                    if tj == pi {
                        let k = pcols.iter().map(|&p| fk_key(&pv[p])).collect();
                        present.insert((*pi, pcols.clone(), k));
                    }
                }
            }
        }
        keep.retain(|&i| {
            let (ti, vals) = &rows[i];
            keys[*ti].iter().all(|(pi, cols, pcols)| {
                if cols.iter().any(|&c| vals[c] == Value::Null) {
                    return true;
                }
                let k = cols.iter().map(|&c| fk_key(&vals[c])).collect();
                present.contains(&(*pi, pcols.clone(), k))
            })
        });
        if keep.len() == before {
            return keep;
        }
    }
}

/// True when every table with rows in `all` still has one in `keep`.
fn no_table_emptied(rows: &[Row], all_tables: &[usize], keep: &[usize]) -> bool {
    all_tables
        .iter()
        .all(|&t| keep.iter().any(|&i| rows[i].0 == t))
}

fn write_db(schema: &DbSchema, rows: &[Row], keep: &[usize], path: &Path) -> Result<(), FuzzError> {
    let _ = std::fs::remove_file(path);
    let mut conn = Connection::open(path).map_err(|e| FuzzError::sqlite(path, e))?;
    let err = |e: rusqlite::Error| FuzzError::sqlite(path, e);
    conn.execute_batch("PRAGMA foreign_keys = OFF; PRAGMA journal_mode = OFF;")
        .map_err(err)?;
    let tx = conn.transaction().map_err(err)?;
    for t in &schema.tables {
        tx.execute_batch(&t.create_sql).map_err(err)?;
    }
    for stmt in inserts(schema, rows, keep) {
        tx.execute_batch(&stmt).map_err(err)?;
    }
    tx.commit().map_err(err)
}

fn inserts(schema: &DbSchema, rows: &[Row], keep: &[usize]) -> Vec<String> {
    let mut out = Vec::new();
    for (ti, t) in schema.tables.iter().enumerate() {
        for &i in keep {
            if rows[i].0 == ti {
                let vals: Vec<String> = rows[i].1.iter().map(literal).collect();
                out.push(format!(
                    "INSERT INTO {} VALUES ({});",
                    quote(&t.name),
                    vals.join(", ")
                ));
            }
        }
    }
    out
}

/// Shrinks `instance` (a database of `schema`: the original's, with the
/// constraints its instances keep) to a small database on which `gold` and
/// `pred` really differ under `opts`; `None` when they do not differ on
/// the instance itself. At most `max_trials` databases are tried.
pub fn shrink_witness(
    schema: &DbSchema,
    instance: &Path,
    gold: &str,
    pred: &str,
    opts: &CompareOptions,
    limits: &QueryLimits,
    max_trials: usize,
) -> Result<Option<Witness>, FuzzError> {
    let conn = open_ro(instance)?;
    let mut rows: Vec<Row> = Vec::new();
    for (ti, t) in schema.tables.iter().enumerate() {
        let err = |e: rusqlite::Error| FuzzError::sqlite(instance, e);
        let mut stmt = conn
            .prepare(&format!("SELECT * FROM {}", quote(&t.name)))
            .map_err(err)?;
        let mut q = stmt.query([]).map_err(err)?;
        while let Some(r) = q.next().map_err(err)? {
            let mut vals = Vec::with_capacity(t.columns.len());
            for i in 0..t.columns.len() {
                vals.push(sqlite_value(r.get_ref(i).map_err(err)?));
            }
            rows.push((ti, vals));
        }
    }
    drop(conn);
    let work = tempfile::tempdir().map_err(|e| FuzzError::io(Path::new("tempdir"), e))?;
    let trials = std::cell::Cell::new(0usize);
    let test = |keep: &[usize]| -> Result<Option<Difference>, FuzzError> {
        trials.set(trials.get() + 1);
        let path = work.path().join(format!("t{}.sqlite", trials.get()));
        write_db(schema, &rows, keep, &path)?;
        // An engine of its own per trial: its idle connections to the
        // file go with it, before the file does.
        let engine = crate::files::instance_engine()?;
        let db = Database::new("witness", &path);
        let g = engine.execute(&db, gold, limits);
        let p = engine.execute(&db, pred, limits);
        let out = if really_differs(engine.as_ref(), &db, gold, &g, &p, opts, limits) {
            g.ok().map(|g| (g, p))
        } else {
            None
        };
        drop(engine);
        let _ = std::fs::remove_file(&path);
        Ok(out)
    };
    let all: Vec<usize> = (0..rows.len()).collect();
    let mut cur = fk_closure(schema, &rows, all);
    let mut filled: Vec<usize> = cur.iter().map(|&i| rows[i].0).collect();
    filled.dedup();
    let Some(mut best) = test(&cur)? else {
        return Ok(None);
    };
    let mut n = 2usize;
    while cur.len() >= 2 && trials.get() < max_trials {
        let chunk = cur.len().div_ceil(n);
        let mut reduced = false;
        for start in (0..cur.len()).step_by(chunk) {
            if trials.get() >= max_trials {
                break;
            }
            let complement: Vec<usize> = cur
                .iter()
                .enumerate()
                .filter(|(k, _)| *k < start || *k >= start + chunk)
                .map(|(_, &i)| i)
                .collect();
            let candidate = fk_closure(schema, &rows, complement);
            if candidate.len() >= cur.len() || !no_table_emptied(&rows, &filled, &candidate) {
                continue;
            }
            if let Some(r) = test(&candidate)? {
                cur = candidate;
                best = r;
                n = (n - 1).max(2);
                reduced = true;
                break;
            }
        }
        if !reduced {
            if n >= cur.len() {
                break;
            }
            n = (n * 2).min(cur.len());
        }
    }
    Ok(Some(Witness {
        rows: cur.len(),
        rows_before: rows.len(),
        inserts: inserts(schema, &rows, &cur),
        gold: render(&best.0),
        pred: best.1.map(|p| render(&p)),
        trials: trials.get(),
    }))
}
