//! Reading a SQLite database exactly as stored: schema from `sqlite_master`
//! and the `pragma_*` table functions, values with their storage classes.
//! The file is opened read-only; nothing is ever written to it.

use std::path::{Path, PathBuf};

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use sqlwitness_core::Value;

use crate::BenchError;

#[derive(Debug, Clone)]
pub(crate) struct SourceDb {
    pub tables: Vec<SourceTable>,
    /// Views and virtual tables, which are not migrated.
    pub skipped: Vec<String>,
}

#[derive(Debug, Clone)]
pub(crate) struct SourceTable {
    pub name: String,
    pub columns: Vec<SourceColumn>,
    /// Primary-key column indexes, in key order.
    pub primary_key: Vec<usize>,
    pub foreign_keys: Vec<SourceForeignKey>,
    /// Values in scan order: `Int`, `Float`, `Text`, `Bytes` or `Null`.
    pub rows: Vec<Vec<Value>>,
    /// `(row, column)` of text values that were not valid UTF-8 (read lossily).
    pub invalid_utf8: Vec<(usize, usize)>,
}

#[derive(Debug, Clone)]
pub(crate) struct SourceColumn {
    pub name: String,
    pub declared: String,
    pub not_null: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct SourceForeignKey {
    pub columns: Vec<String>,
    pub parent_table: String,
    /// `None` when the key names no parent column (the parent's primary key).
    pub parent_columns: Vec<Option<String>>,
}

pub(crate) fn quote_sqlite(ident: &str) -> String {
    format!("\"{}\"", ident.replace('"', "\"\""))
}

fn err(path: &Path, e: impl std::fmt::Display) -> BenchError {
    BenchError::Sqlite {
        path: PathBuf::from(path),
        message: e.to_string(),
    }
}

pub(crate) fn read_source(path: &Path) -> Result<SourceDb, BenchError> {
    if !path.is_file() {
        return Err(err(path, "no such file"));
    }
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| err(path, e))?;
    let mut stmt = conn
        .prepare(
            "SELECT name, type, coalesce(sql, '') FROM sqlite_master \
             WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' \
             ORDER BY rowid",
        )
        .map_err(|e| err(path, e))?;
    let objects: Vec<(String, String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .and_then(|rows| rows.collect())
        .map_err(|e| err(path, e))?;
    let mut db = SourceDb {
        tables: Vec::new(),
        skipped: Vec::new(),
    };
    for (name, kind, sql) in objects {
        let virtual_table = sql
            .trim_start()
            .to_ascii_uppercase()
            .starts_with("CREATE VIRTUAL");
        if kind != "table" || virtual_table {
            db.skipped.push(format!("{kind} `{name}` is not migrated"));
            continue;
        }
        let table =
            read_table(&conn, &name).map_err(|e| err(path, format!("table `{name}`: {e}")))?;
        db.tables.push(table);
    }
    Ok(db)
}

fn read_table(conn: &Connection, name: &str) -> rusqlite::Result<SourceTable> {
    let mut stmt = conn.prepare(
        "SELECT name, coalesce(type, ''), \"notnull\", pk FROM pragma_table_info(?1) ORDER BY cid",
    )?;
    let info: Vec<(String, String, bool, i64)> = stmt
        .query_map([name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut pk: Vec<(i64, usize)> = info
        .iter()
        .enumerate()
        .filter(|(_, c)| c.3 > 0)
        .map(|(i, c)| (c.3, i))
        .collect();
    pk.sort();
    let columns: Vec<SourceColumn> = info
        .into_iter()
        .map(|(name, declared, not_null, _)| SourceColumn {
            name,
            declared,
            not_null,
        })
        .collect();

    let mut stmt = conn.prepare(
        "SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?1) ORDER BY id, seq",
    )?;
    let fk_rows: Vec<(i64, String, String, Option<String>)> = stmt
        .query_map([name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut foreign_keys: Vec<SourceForeignKey> = Vec::new();
    let mut last_id = None;
    for (id, parent, from, to) in fk_rows {
        if last_id != Some(id) {
            foreign_keys.push(SourceForeignKey {
                columns: Vec::new(),
                parent_table: parent,
                parent_columns: Vec::new(),
            });
            last_id = Some(id);
        }
        if let Some(fk) = foreign_keys.last_mut() {
            fk.columns.push(from);
            fk.parent_columns.push(to);
        }
    }

    let select = format!(
        "SELECT {} FROM {}",
        columns
            .iter()
            .map(|c| quote_sqlite(&c.name))
            .collect::<Vec<_>>()
            .join(", "),
        quote_sqlite(name)
    );
    let mut stmt = conn.prepare(&select)?;
    let n = columns.len();
    let mut rows = Vec::new();
    let mut invalid_utf8 = Vec::new();
    let mut q = stmt.query([])?;
    while let Some(r) = q.next()? {
        let mut row = Vec::with_capacity(n);
        for c in 0..n {
            let v = match r.get_ref(c)? {
                ValueRef::Null => Value::Null,
                ValueRef::Integer(i) => Value::Int(i),
                ValueRef::Real(f) => Value::Float(f),
                ValueRef::Text(b) => match std::str::from_utf8(b) {
                    Ok(s) => Value::Text(s.to_string()),
                    Err(_) => {
                        invalid_utf8.push((rows.len(), c));
                        Value::Text(String::from_utf8_lossy(b).into_owned())
                    }
                },
                ValueRef::Blob(b) => Value::Bytes(b.to_vec()),
            };
            row.push(v);
        }
        rows.push(row);
    }
    Ok(SourceTable {
        name: name.to_string(),
        columns,
        primary_key: pk.into_iter().map(|(_, i)| i).collect(),
        foreign_keys,
        rows,
        invalid_utf8,
    })
}
