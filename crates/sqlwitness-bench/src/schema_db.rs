//! Small stand-in databases built from a benchmark's schema file
//! (`tables.json` / BIRD's `dev_tables.json`) when its SQLite files are not
//! available: every table with its declared column types, primary and
//! foreign keys, and a few synthetic rows in which every foreign key finds
//! its parent. Queries run on them (the answers say nothing about the real
//! data): enough to check that a benchmark's golds and predictions load,
//! run on every engine and are compared.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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
    let path = fresh_file(schema, dir)?;
    let err = |e: rusqlite::Error| BenchError::format(&path, "build", e.to_string());
    let mut conn = Connection::open(&path).map_err(err)?;
    // Tables are created in the file's order: a key may name a later one.
    conn.execute_batch("PRAGMA foreign_keys = OFF;")
        .map_err(err)?;
    let columns = columns_by_table(schema);
    // A foreign-key column takes its parent's values (followed to the root).
    let parent: BTreeMap<usize, usize> = schema.foreign_keys.iter().copied().collect();
    let tx = conn.transaction().map_err(err)?;
    for (t, name) in schema.table_names_original.iter().enumerate() {
        let cols = columns.get(&t).cloned().unwrap_or_default();
        tx.execute_batch(&create_table_sql(schema, t, &cols))
            .map_err(err)?;
        if cols.is_empty() {
            continue;
        }
        let marks = vec!["?"; cols.len()].join(", ");
        let mut insert = tx
            .prepare(&format!("INSERT INTO {} VALUES ({marks})", quote(name)))
            .map_err(err)?;
        for row in 0..rows {
            let values: Vec<rusqlite::types::Value> = cols
                .iter()
                .map(|(c, _, _)| synthetic_value(schema, &parent, *c, row))
                .collect();
            insert
                .execute(rusqlite::params_from_iter(values))
                .map_err(err)?;
        }
    }
    tx.commit().map_err(err)?;
    Ok(())
}

/// The path of `schema`'s database file in `dir` (`<db_id>/<db_id>.sqlite`),
/// its folder made and any file there removed.
fn fresh_file(schema: &TableSchema, dir: &Path) -> Result<PathBuf, BenchError> {
    let folder = dir.join(&schema.db_id);
    std::fs::create_dir_all(&folder).map_err(|e| BenchError::io(&folder, e))?;
    let path = folder.join(format!("{}.sqlite", schema.db_id));
    if path.exists() {
        std::fs::remove_file(&path).map_err(|e| BenchError::io(&path, e))?;
    }
    Ok(path)
}

/// `s` as a quoted SQLite name.
fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// The columns of each table: (column index, name, declared type).
fn columns_by_table(schema: &TableSchema) -> BTreeMap<usize, Vec<(usize, String, String)>> {
    let mut columns: BTreeMap<usize, Vec<(usize, String, String)>> = BTreeMap::new();
    for (i, (t, name)) in schema.column_names_original.iter().enumerate() {
        if let Ok(t) = usize::try_from(*t) {
            let ty = schema.column_types.get(i).cloned().unwrap_or_default();
            columns.entry(t).or_default().push((i, name.clone(), ty));
        }
    }
    columns
}

/// The table of column `c` (none for `*`).
fn table_of(schema: &TableSchema, c: usize) -> Option<usize> {
    usize::try_from(schema.column_names_original[c].0).ok()
}

/// The `CREATE TABLE` of table `t` with its columns `cols`, its primary
/// key and its foreign keys.
fn create_table_sql(schema: &TableSchema, t: usize, cols: &[(usize, String, String)]) -> String {
    let mut defs: Vec<String> = cols
        .iter()
        .map(|(_, n, ty)| format!("{} {}", quote(n), ty.to_ascii_uppercase()))
        .collect();
    let name_of = |c: usize| quote(&schema.column_names_original[c].1);
    for pk in &schema.primary_keys {
        let cs = pk.columns();
        if cs.iter().all(|&c| table_of(schema, c) == Some(t)) {
            let list: Vec<String> = cs.iter().map(|&c| name_of(c)).collect();
            defs.push(format!("PRIMARY KEY ({})", list.join(", ")));
        }
    }
    for &(child, par) in &schema.foreign_keys {
        if table_of(schema, child) == Some(t) {
            if let Some(pt) = table_of(schema, par) {
                defs.push(format!(
                    "FOREIGN KEY ({}) REFERENCES {} ({})",
                    name_of(child),
                    quote(&schema.table_names_original[pt]),
                    name_of(par)
                ));
            }
        }
    }
    format!(
        "CREATE TABLE {} ({});",
        quote(&schema.table_names_original[t]),
        defs.join(", ")
    )
}

/// The column whose values column `c` takes: its foreign keys' parents
/// followed to the root (at most 16 steps, a cycle ending the walk).
fn root_column(parent: &BTreeMap<usize, usize>, mut c: usize) -> usize {
    for _ in 0..16 {
        match parent.get(&c) {
            Some(&p) if p != c => c = p,
            _ => break,
        }
    }
    c
}

/// The value of column `c` in row `row` (0-based): the row's number in the
/// form of its root column's declared type (a name's text otherwise), so
/// that every foreign key finds its parent.
fn synthetic_value(
    schema: &TableSchema,
    parent: &BTreeMap<usize, usize>,
    c: usize,
    row: usize,
) -> rusqlite::types::Value {
    use rusqlite::types::Value as V;
    let c = root_column(parent, c);
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::KeyColumns;
    use rusqlite::types::Value;

    /// singer(id, name, born) and concert(concert_id, singer_id -> singer.id).
    fn schema() -> TableSchema {
        TableSchema {
            db_id: "concert_singer".into(),
            table_names_original: vec!["singer".into(), "concert".into()],
            column_names_original: vec![
                (-1, "*".into()),
                (0, "id".into()),
                (0, "name".into()),
                (0, "born".into()),
                (1, "concert_id".into()),
                (1, "singer_id".into()),
            ],
            column_types: ["text", "number", "text", "date", "number", "number"]
                .map(String::from)
                .to_vec(),
            primary_keys: vec![KeyColumns::One(1), KeyColumns::Many(vec![4])],
            foreign_keys: vec![(5, 1)],
        }
    }

    #[test]
    fn a_table_is_created_with_its_keys() {
        let s = schema();
        let columns = columns_by_table(&s);
        assert_eq!(
            create_table_sql(&s, 1, &columns[&1]),
            "CREATE TABLE \"concert\" (\"concert_id\" NUMBER, \"singer_id\" NUMBER, \
             PRIMARY KEY (\"concert_id\"), \
             FOREIGN KEY (\"singer_id\") REFERENCES \"singer\" (\"id\"));"
        );
    }

    #[test]
    fn a_foreign_key_column_takes_its_parents_values() {
        let s = schema();
        // `name` made a key to `id`: it takes `id`'s numbers, not text.
        let parent = BTreeMap::from([(2, 1)]);
        assert_eq!(synthetic_value(&s, &parent, 2, 2), Value::Integer(3));
        let parent = BTreeMap::new();
        assert_eq!(
            synthetic_value(&s, &parent, 2, 0),
            Value::Text("name1".into())
        );
        assert_eq!(
            synthetic_value(&s, &parent, 3, 40),
            Value::Text("2020-01-28".into())
        );
        // A cycle ends the walk.
        let cycle = BTreeMap::from([(1, 2), (2, 1)]);
        assert!([1, 2].contains(&root_column(&cycle, 1)));
    }

    #[test]
    fn the_database_holds_its_rows_and_every_key_finds_its_parent() {
        let dir = tempfile::tempdir().unwrap();
        build_schema_database(&schema(), dir.path(), 3).unwrap();
        let conn =
            Connection::open(dir.path().join("concert_singer/concert_singer.sqlite")).unwrap();
        let count: i64 = conn
            .query_row(
                "SELECT count(*) FROM concert JOIN singer ON singer_id = id",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(count, 3);
        let orphans: i64 = conn
            .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(orphans, 0);
    }
}
