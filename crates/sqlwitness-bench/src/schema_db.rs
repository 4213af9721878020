//! Small stand-in databases built from a benchmark's schema file
//! (`tables.json` / BIRD's `dev_tables.json`) when its SQLite files are not
//! available: every table with its declared column types, primary and
//! foreign keys, and a few synthetic rows in which every foreign key finds
//! its parent. Queries run on them (the answers say nothing about the real
//! data): enough to check that a benchmark's golds and predictions load,
//! run on every engine and are compared.

use std::collections::BTreeMap;
use std::path::Path;

use rusqlite::Connection;

use crate::tables::TableSchema;
use crate::BenchError;

/// Writes `dir/<db_id>/<db_id>.sqlite` for `schema` with `rows` rows a
/// table (an existing file is replaced).
pub fn build_schema_database(
    schema: &TableSchema,
    dir: &Path,
    rows: usize,
) -> Result<(), BenchError> {
    let folder = dir.join(&schema.db_id);
    std::fs::create_dir_all(&folder).map_err(|e| BenchError::io(&folder, e))?;
    let path = folder.join(format!("{}.sqlite", schema.db_id));
    if path.exists() {
        std::fs::remove_file(&path).map_err(|e| BenchError::io(&path, e))?;
    }
    let err = |e: rusqlite::Error| BenchError::format(&path, "build", e.to_string());
    let mut conn = Connection::open(&path).map_err(err)?;
    // Tables are created in the file's order: a key may name a later one.
    conn.execute_batch("PRAGMA foreign_keys = OFF;")
        .map_err(err)?;
    let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    // Columns per table: (column index, name, declared type).
    let mut columns: BTreeMap<usize, Vec<(usize, String, String)>> = BTreeMap::new();
    for (i, (t, name)) in schema.column_names_original.iter().enumerate() {
        if let Ok(t) = usize::try_from(*t) {
            let ty = schema.column_types.get(i).cloned().unwrap_or_default();
            columns.entry(t).or_default().push((i, name.clone(), ty));
        }
    }
    let table_of = |c: usize| usize::try_from(schema.column_names_original[c].0).ok();
    // A foreign-key column takes its parent's values (followed to the root).
    let parent: BTreeMap<usize, usize> = schema.foreign_keys.iter().copied().collect();
    let root = |mut c: usize| {
        for _ in 0..16 {
            match parent.get(&c) {
                Some(&p) if p != c => c = p,
                _ => break,
            }
        }
        c
    };
    let value = |c: usize, row: usize| -> rusqlite::types::Value {
        use rusqlite::types::Value as V;
        let c = root(c);
        let ty = schema
            .column_types
            .get(c)
            .map(|t| t.to_ascii_lowercase())
            .unwrap_or_default();
        let n = row + 1;
        if ty.contains("int") || ty == "number" || ty == "bool" {
            V::Integer(n as i64)
        } else if ty.contains("real")
            || ty.contains("float")
            || ty.contains("double")
            || ty.contains("numeric")
        {
            V::Real(n as f64 + 0.5)
        } else if ty.contains("datetime") || ty.contains("timestamp") {
            V::Text(format!("2020-01-{:02} 10:00:00", n.min(28)))
        } else if ty.contains("date") {
            V::Text(format!("2020-01-{:02}", n.min(28)))
        } else {
            V::Text(format!("{}{n}", schema.column_names_original[c].1))
        }
    };
    let tx = conn.transaction().map_err(err)?;
    for (t, name) in schema.table_names_original.iter().enumerate() {
        let cols = columns.get(&t).cloned().unwrap_or_default();
        let mut defs: Vec<String> = cols
            .iter()
            .map(|(_, n, ty)| format!("{} {}", quote(n), ty.to_ascii_uppercase()))
            .collect();
        let name_of = |c: usize| quote(&schema.column_names_original[c].1);
        for pk in &schema.primary_keys {
            let cs = pk.columns();
            if cs.iter().all(|&c| table_of(c) == Some(t)) {
                let list: Vec<String> = cs.iter().map(|&c| name_of(c)).collect();
                defs.push(format!("PRIMARY KEY ({})", list.join(", ")));
            }
        }
        for &(child, par) in &schema.foreign_keys {
            if table_of(child) == Some(t) {
                if let Some(pt) = table_of(par) {
                    defs.push(format!(
                        "FOREIGN KEY ({}) REFERENCES {} ({})",
                        name_of(child),
                        quote(&schema.table_names_original[pt]),
                        name_of(par)
                    ));
                }
            }
        }
        tx.execute_batch(&format!(
            "CREATE TABLE {} ({});",
            quote(name),
            defs.join(", ")
        ))
        .map_err(err)?;
        if cols.is_empty() {
            continue;
        }
        let marks = vec!["?"; cols.len()].join(", ");
        let mut insert = tx
            .prepare(&format!("INSERT INTO {} VALUES ({marks})", quote(name)))
            .map_err(err)?;
        for row in 0..rows {
            let values: Vec<rusqlite::types::Value> =
                cols.iter().map(|(c, _, _)| value(*c, row)).collect();
            insert
                .execute(rusqlite::params_from_iter(values))
                .map_err(err)?;
        }
    }
    tx.commit().map_err(err)?;
    Ok(())
}
