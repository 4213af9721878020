//! The schema an instance generator needs, read from the original SQLite
//! file: each table's `CREATE` statement (replayed verbatim in every
//! instance), columns with the migration's type decision, keys, and the
//! distinct stored values of every column.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};
use sqlwitness_bench::TargetKind;
use sqlwitness_core::{Database, EngineKind, Value};

use crate::FuzzError;

/// At most this many distinct original values are kept per column.
const MAX_ORIGINAL_VALUES: usize = 200;

#[derive(Debug, Clone)]
pub struct ColumnDef {
    pub name: String,
    pub declared: String,
    pub not_null: bool,
    /// The type the migration chose from the declared type and the stored
    /// values (`sqlwitness_bench::plan_migration`).
    pub kind: TargetKind,
    /// Distinct stored values, in the file's order.
    pub originals: Vec<Value>,
}

#[derive(Debug, Clone)]
pub struct ForeignKeyDef {
    /// Child column indexes.
    pub columns: Vec<usize>,
    pub parent: String,
    /// Parent column names (the parent's primary key when not named).
    pub parent_columns: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct TableDef {
    pub name: String,
    pub create_sql: String,
    pub columns: Vec<ColumnDef>,
    /// Primary-key column indexes in key order.
    pub primary_key: Vec<usize>,
    pub foreign_keys: Vec<ForeignKeyDef>,
}

#[derive(Debug, Clone)]
pub struct DbSchema {
    /// Tables in an order where parents come before children (cycles are
    /// broken in schema order).
    pub tables: Vec<TableDef>,
}

impl DbSchema {
    pub fn table(&self, name: &str) -> Option<(usize, &TableDef)> {
        self.tables
            .iter()
            .enumerate()
            .find(|(_, t)| t.name.eq_ignore_ascii_case(name))
    }

    /// `(table, columns)` pairs, for the neighbour generator.
    pub fn names(&self) -> Vec<(String, Vec<String>)> {
        self.tables
            .iter()
            .map(|t| {
                (
                    t.name.clone(),
                    t.columns.iter().map(|c| c.name.clone()).collect(),
                )
            })
            .collect()
    }
}

pub(crate) fn quote(ident: &str) -> String {
    format!("\"{}\"", ident.replace('"', "\"\""))
}

pub(crate) fn open_ro(path: &Path) -> Result<Connection, FuzzError> {
    Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| FuzzError::sqlite(path, e))
}

use sqlwitness_engines::sqlite_value;

/// Reads the schema and column values of the SQLite file of `db_id`.
pub fn read_schema(db_id: &str, path: &Path) -> Result<DbSchema, FuzzError> {
    let plan = sqlwitness_bench::plan_migration(&Database::new(db_id, path), EngineKind::Postgres)?;
    let conn = open_ro(path)?;
    let err = |e: rusqlite::Error| FuzzError::sqlite(path, e);
    let mut stmt = conn
        .prepare(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL \
             AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid",
        )
        .map_err(err)?;
    let raw: Vec<(String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .and_then(|rows| rows.collect())
        .map_err(err)?;
    let mut tables = Vec::with_capacity(raw.len());
    for (name, create_sql) in raw {
        let mut info = conn
            .prepare("SELECT name, coalesce(type, ''), \"notnull\", pk FROM pragma_table_info(?1) ORDER BY cid")
            .map_err(err)?;
        let cols: Vec<(String, String, bool, i64)> = info
            .query_map([&name], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .and_then(|rows| rows.collect())
            .map_err(err)?;
        let decisions = plan.iter().find(|t| t.name == name);
        let mut columns = Vec::with_capacity(cols.len());
        let mut pk: Vec<(i64, usize)> = Vec::new();
        for (i, (cname, declared, not_null, pk_pos)) in cols.iter().enumerate() {
            if *pk_pos > 0 {
                pk.push((*pk_pos, i));
            }
            let kind = decisions
                .and_then(|d| d.columns.iter().find(|c| &c.name == cname))
                .map_or(TargetKind::Text, |c| c.kind);
            let mut vals = conn
                .prepare(&format!(
                    "SELECT DISTINCT {} FROM {} LIMIT {MAX_ORIGINAL_VALUES}",
                    quote(cname),
                    quote(&name)
                ))
                .map_err(err)?;
            let mut rows = vals.query([]).map_err(err)?;
            let mut originals = Vec::new();
            while let Some(r) = rows.next().map_err(err)? {
                let v = sqlite_value(r.get_ref(0).map_err(err)?);
                if v != Value::Null {
                    originals.push(v);
                }
            }
            columns.push(ColumnDef {
                name: cname.clone(),
                declared: declared.clone(),
                not_null: *not_null,
                kind,
                originals,
            });
        }
        pk.sort();
        let primary_key: Vec<usize> = pk.into_iter().map(|(_, i)| i).collect();
        let mut fk_stmt = conn
            .prepare("SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?1) ORDER BY id, seq")
            .map_err(err)?;
        let fk_rows: Vec<(i64, String, String, Option<String>)> = fk_stmt
            .query_map([&name], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .and_then(|rows| rows.collect())
            .map_err(err)?;
        let mut foreign_keys: Vec<(i64, ForeignKeyDef)> = Vec::new();
        for (id, parent, from, to) in fk_rows {
            let Some(ci) = columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(&from))
            else {
                continue;
            };
            let to = to.unwrap_or_default();
            match foreign_keys.iter_mut().find(|(i, _)| *i == id) {
                Some((_, fk)) => {
                    fk.columns.push(ci);
                    fk.parent_columns.push(to);
                }
                None => foreign_keys.push((
                    id,
                    ForeignKeyDef {
                        columns: vec![ci],
                        parent,
                        parent_columns: vec![to],
                    },
                )),
            }
        }
        tables.push(TableDef {
            name,
            create_sql,
            columns,
            primary_key,
            foreign_keys: foreign_keys.into_iter().map(|(_, f)| f).collect(),
        });
    }
    // Fill unnamed parent columns with the parent's primary key.
    let pks: Vec<(String, Vec<String>)> = tables
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                t.primary_key
                    .iter()
                    .map(|&i| t.columns[i].name.clone())
                    .collect(),
            )
        })
        .collect();
    for t in &mut tables {
        for fk in &mut t.foreign_keys {
            if let Some((_, pk)) = pks.iter().find(|(n, _)| n.eq_ignore_ascii_case(&fk.parent)) {
                for (k, pc) in fk.parent_columns.iter_mut().enumerate() {
                    if pc.is_empty() {
                        *pc = pk.get(k).cloned().unwrap_or_default();
                    }
                }
            }
        }
    }
    Ok(DbSchema {
        tables: topo_order(tables),
    })
}

/// Parents before children; a table whose parents are not all placed yet
/// waits, and a cycle is broken by taking the first waiting table.
fn topo_order(mut pending: Vec<TableDef>) -> Vec<TableDef> {
    let mut out: Vec<TableDef> = Vec::with_capacity(pending.len());
    while !pending.is_empty() {
        let ready = pending.iter().position(|t| {
            t.foreign_keys.iter().all(|fk| {
                fk.parent.eq_ignore_ascii_case(&t.name)
                    || out.iter().any(|o| o.name.eq_ignore_ascii_case(&fk.parent))
                    || !pending
                        .iter()
                        .any(|p| p.name.eq_ignore_ascii_case(&fk.parent))
            })
        });
        out.push(pending.remove(ready.unwrap_or(0)));
    }
    out
}
