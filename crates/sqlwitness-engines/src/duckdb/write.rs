//! The DuckDB write side ([`Migrator`]): one file per namespace in the
//! engine's folder, stamped at creation (a [`STAMP_TABLE`] inside it);
//! primary keys declared with their table, rows through DuckDB's appender,
//! typed read-back.
//!
//! DuckDB declares foreign keys only when it creates a table, and checks
//! each one on every insert: the copy holds its tables without them (each
//! key refused is named in the migration log); a query reads the same
//! rows either way.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use duckdb::types::Value as DValue;
use duckdb::Connection;
use sqlwitness_core::{
    Collect, DbError, Loaded, Migrator, Ownership, RowSource, Stamp, TableDef, TargetKind, Value,
    STAMP_TABLE,
};
use sqlwitness_dialect::Dialect;

use super::read::duckdb_value;
use super::{db_error, file_of, folder_of, library_version, locked};
use crate::watchdog::watchdog;

/// The write side of DuckDB over one folder of copies.
pub struct DuckdbMigrator {
    dialect: Arc<Dialect>,
    folder: PathBuf,
    /// The open file of each namespace this migrator writes.
    open: HashMap<String, Connection>,
    /// Lock files held ([`Migrator::lock`]).
    locks: HashMap<String, std::fs::File>,
}

impl std::fmt::Debug for DuckdbMigrator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DuckdbMigrator")
            .field("folder", &self.folder)
            .finish_non_exhaustive()
    }
}

pub(crate) fn quote(ident: &str) -> String {
    format!("\"{}\"", ident.replace('"', "\"\""))
}

fn column_list(cols: &[String]) -> String {
    cols.iter().map(|c| quote(c)).collect::<Vec<_>>().join(", ")
}

/// A value as the appender takes it, borrowed (no copy of a text or a
/// blob): text in the form DuckDB's casts read (decimals, dates, times and
/// timestamps are cast by the appender to the column's type).
struct Cell<'a>(&'a Value);

impl duckdb::ToSql for Cell<'_> {
    fn to_sql(&self) -> duckdb::Result<duckdb::types::ToSqlOutput<'_>> {
        use duckdb::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match self.0 {
            Value::Null => ValueRef::Null,
            Value::Int(i) => ValueRef::BigInt(*i),
            Value::Float(f) => ValueRef::Double(*f),
            Value::Bool(b) => ValueRef::Boolean(*b),
            Value::Bytes(b) => ValueRef::Blob(b),
            Value::Text(s)
            | Value::Decimal(s)
            | Value::Date(s)
            | Value::Time(s)
            | Value::Timestamp(s) => ValueRef::Text(s.as_bytes()),
        }))
    }
}

impl DuckdbMigrator {
    /// The migrator of the folder `url` names (`duckdb:/path`), made when
    /// missing.
    pub fn connect(dialect: Dialect, url: &str) -> Result<DuckdbMigrator, DbError> {
        let folder = folder_of(url)?;
        std::fs::create_dir_all(&folder).map_err(|e| {
            DbError::connection(format!(
                "cannot make the DuckDB folder {}: {e}",
                folder.display()
            ))
        })?;
        Ok(DuckdbMigrator {
            dialect: Arc::new(dialect),
            folder,
            open: HashMap::new(),
            locks: HashMap::new(),
        })
    }

    fn error(&self, e: duckdb::Error) -> DbError {
        db_error(&self.dialect, e, None)
    }

    /// The open connection of namespace `ns` (ours), opened read-write.
    fn conn(&mut self, ns: &str) -> Result<&Connection, DbError> {
        if !self.open.contains_key(ns) {
            let path = file_of(&self.folder, ns);
            if !path.is_file() {
                return Err(DbError::new(
                    sqlwitness_core::ErrorClass::Other,
                    None,
                    format!("{}: no such DuckDB copy", path.display()),
                ));
            }
            let conn = open_writable(&self.dialect, &path)?;
            self.open.insert(ns.to_string(), conn);
        }
        Ok(&self.open[ns])
    }

    fn exec(&mut self, ns: &str, sql: &str) -> Result<(), DbError> {
        let r = self.conn(ns)?.execute_batch(sql);
        r.map_err(|e| self.error(e))
    }

    fn read_stamp(&mut self, ns: &str) -> Result<Option<String>, DbError> {
        let sql = format!("SELECT v FROM {} WHERE k = 'stamp'", quote(STAMP_TABLE));
        let conn = self.conn(ns)?;
        let r = conn.prepare(&sql).and_then(|mut s| {
            s.query_map([], |r| r.get::<_, String>(0))?
                .next()
                .transpose()
        });
        r.map_err(|e| self.error(e))
    }

    fn has_stamp_table(&mut self, ns: &str) -> Result<bool, DbError> {
        let conn = self.conn(ns)?;
        let r = conn.query_row(
            "SELECT count(*) FROM information_schema.tables \
             WHERE table_schema = 'main' AND table_name = ?",
            [STAMP_TABLE],
            |r| r.get::<_, i64>(0),
        );
        r.map(|n| n > 0).map_err(|e| self.error(e))
    }
}

/// Opens (or creates) the file at `path` read-write, without access to
/// other files or the network: a view's text is benchmark input.
fn open_writable(dialect: &Dialect, path: &std::path::Path) -> Result<Connection, DbError> {
    let config = locked(duckdb::Config::default()).map_err(|e| db_error(dialect, e, Some(path)))?;
    Connection::open_with_flags(path, config).map_err(|e| {
        let mut e = db_error(dialect, e, Some(path));
        e.class = sqlwitness_core::ErrorClass::Connection;
        e
    })
}

impl Migrator for DuckdbMigrator {
    fn server_version(&mut self) -> Result<String, DbError> {
        Ok(library_version())
    }

    fn ownership(&mut self, ns: &str) -> Result<Ownership, DbError> {
        let path = file_of(&self.folder, ns);
        if !path.exists() {
            self.open.remove(ns);
            return Ok(Ownership::Absent);
        }
        let what = format!("DuckDB file {}", path.display());
        match self.has_stamp_table(ns) {
            Ok(true) => {}
            Ok(false) => {
                self.open.remove(ns);
                return Ok(Ownership::Foreign {
                    reason: format!(
                        "{what} exists and holds no {STAMP_TABLE} table: sqlwitness did not \
                         create it"
                    ),
                });
            }
            Err(e) => {
                self.open.remove(ns);
                return Ok(Ownership::Foreign {
                    reason: format!(
                        "{what} exists and is not a DuckDB copy sqlwitness can read: {e}"
                    ),
                });
            }
        }
        let text = self.read_stamp(ns);
        Ok(Ownership::of_stamp(&what, text))
    }

    fn create_namespace(&mut self, ns: &str, stamp: &Stamp) -> Result<(), DbError> {
        let path = file_of(&self.folder, ns);
        if path.exists() {
            return Err(DbError::refused(format!("{} exists", path.display())));
        }
        let conn = open_writable(&self.dialect, &path)?;
        let made = conn
            .execute_batch(&format!(
                "CREATE TABLE {s} (k VARCHAR PRIMARY KEY, v VARCHAR NOT NULL)",
                s = quote(STAMP_TABLE)
            ))
            .and_then(|_| {
                conn.execute(
                    &format!("INSERT INTO {} VALUES ('stamp', ?)", quote(STAMP_TABLE)),
                    [stamp.to_text()],
                )
            });
        if let Err(e) = made {
            drop(conn);
            let _ = std::fs::remove_file(&path);
            return Err(self.error(e));
        }
        self.open.insert(ns.to_string(), conn);
        Ok(())
    }

    fn write_stamp(&mut self, ns: &str, stamp: &Stamp) -> Result<(), DbError> {
        let sql = format!(
            "INSERT OR REPLACE INTO {} VALUES ('stamp', ?)",
            quote(STAMP_TABLE)
        );
        let conn = self.conn(ns)?;
        let r = conn
            .execute(&sql, [stamp.to_text()])
            .and_then(|_| conn.execute_batch("CHECKPOINT"));
        r.map(|_| ()).map_err(|e| self.error(e))
    }

    fn drop_namespace(&mut self, ns: &str) -> Result<(), DbError> {
        match self.ownership(ns)? {
            Ownership::Absent => return Ok(()),
            Ownership::Foreign { reason } => return Err(DbError::refused(reason)),
            Ownership::Ours(_) => {}
        }
        self.open.remove(ns);
        let path = file_of(&self.folder, ns);
        let mut wal = path.clone().into_os_string();
        wal.push(".wal");
        let _ = std::fs::remove_file(PathBuf::from(wal));
        std::fs::remove_file(&path)
            .map_err(|e| DbError::connection(format!("cannot remove {}: {e}", path.display())))
    }

    fn create_table(
        &mut self,
        ns: &str,
        t: &TableDef,
        with_primary_key: bool,
    ) -> Result<(), DbError> {
        let mut cols: Vec<String> = t
            .columns
            .iter()
            .map(|c| {
                format!(
                    "{} {}{}",
                    quote(&c.name),
                    c.sql_type,
                    if c.not_null { " NOT NULL" } else { "" }
                )
            })
            .collect();
        if with_primary_key && !t.primary_key.is_empty() {
            cols.push(format!("PRIMARY KEY ({})", column_list(&t.primary_key)));
        }
        self.exec(
            ns,
            &format!("CREATE TABLE {} ({})", quote(&t.name), cols.join(", ")),
        )
    }

    fn drop_table(&mut self, ns: &str, table: &str) -> Result<(), DbError> {
        self.exec(ns, &format!("DROP TABLE IF EXISTS {}", quote(table)))
    }

    fn load(
        &mut self,
        ns: &str,
        t: &TableDef,
        rows: &mut dyn RowSource,
    ) -> Result<Loaded, DbError> {
        if t.columns.is_empty() {
            return Ok(Loaded::default());
        }
        let dialect = Arc::clone(&self.dialect);
        let err = |e| db_error(&dialect, e, None);
        let conn = self.conn(ns)?;
        let mut app = conn.appender(&t.name).map_err(err)?;
        let mut n = 0u64;
        while let Some(batch) = rows.next_batch()? {
            for r in batch {
                app.append_row(duckdb::appender_params_from_iter(r.iter().map(Cell)))
                    .map_err(err)?;
                n += 1;
            }
        }
        app.flush().map_err(err)?;
        Ok(Loaded {
            rows: n,
            note: Some("DuckDB's appender".to_string()),
        })
    }

    fn add_primary_key(&mut self, ns: &str, t: &TableDef) -> Result<(), DbError> {
        self.exec(
            ns,
            &format!(
                "ALTER TABLE {} ADD PRIMARY KEY ({})",
                quote(&t.name),
                column_list(&t.primary_key)
            ),
        )
    }

    /// A unique index (DuckDB adds no constraint to a table it has
    /// created), named after the table and the key's columns.
    fn add_unique_key(&mut self, ns: &str, table: &str, columns: &[String]) -> Result<(), DbError> {
        let name = format!("{table}_{}_key", columns.join("_"));
        self.exec(
            ns,
            &format!(
                "CREATE UNIQUE INDEX {} ON {} ({})",
                quote(&name),
                quote(table),
                column_list(columns)
            ),
        )
    }

    fn add_foreign_key(&mut self, _ns: &str, t: &TableDef, k: usize) -> Result<(), DbError> {
        let key = t.foreign_keys.get(k).map_or_else(String::new, |f| {
            format!(
                " ({}) → {} ({})",
                f.columns.join(", "),
                f.parent_table,
                f.parent_columns.join(", ")
            )
        });
        Err(DbError::refused(format!(
            "table {}: foreign key{key} not declared: DuckDB declares foreign keys only when \
             it creates a table",
            t.name
        )))
    }

    fn tables(&mut self, ns: &str) -> Result<Vec<String>, DbError> {
        let conn = self.conn(ns)?;
        let r = conn
            .prepare(
                "SELECT table_name FROM information_schema.tables \
                 WHERE table_schema = 'main' AND table_type = 'BASE TABLE' AND table_name <> ? \
                 ORDER BY 1",
            )
            .and_then(|mut s| {
                s.query_map([STAMP_TABLE], |r| r.get::<_, String>(0))?
                    .collect::<Result<Vec<_>, _>>()
            });
        r.map_err(|e| self.error(e))
    }

    fn create_view(
        &mut self,
        ns: &str,
        name: &str,
        sql: &str,
        limit: Duration,
    ) -> Result<sqlwitness_core::ResultSet, DbError> {
        let target = quote(name);
        // The view's text is benchmark input: one statement, on a line of
        // its own so a trailing comment ends there; the instance reads no
        // file and reaches no network.
        let create = format!("CREATE VIEW {target} AS\n{sql}\n");
        let dialect = Arc::clone(&self.dialect);
        let err = |e| db_error(&dialect, e, None);
        let conn = self.conn(ns)?;
        conn.prepare(&create)
            .and_then(|mut s| s.execute([]))
            .map_err(err)?;
        let handle = conn.interrupt_handle();
        let ticket = watchdog().arm(Instant::now() + limit, Box::new(move || handle.interrupt()));
        let limits = sqlwitness_core::QueryLimits {
            timeout: limit,
            ..Default::default()
        };
        let read = Collect::rows(&limits, |sink| {
            let mut stmt = conn
                .prepare(&format!("SELECT * FROM {target}"))
                .map_err(err)?;
            let mut rows = stmt.query([]).map_err(err)?;
            let names: Vec<sqlwitness_core::Column> = rows
                .as_ref()
                .map(|s| {
                    (0..s.column_count())
                        .map(|i| {
                            sqlwitness_core::Column::new(
                                s.column_name(i).cloned().unwrap_or_default(),
                                None,
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            let ncol = names.len();
            sink.columns(names);
            while let Some(r) = rows.next().map_err(err)? {
                let mut values = Vec::with_capacity(ncol);
                for i in 0..ncol {
                    values.push(duckdb_value(r.get::<_, DValue>(i).map_err(err)?));
                }
                let bytes = values.iter().map(Value::heap_size).sum();
                sink.row(values, bytes)?;
            }
            Ok(())
        });
        watchdog().disarm(ticket);
        read
    }

    fn drop_view(&mut self, ns: &str, name: &str) -> Result<(), DbError> {
        self.exec(ns, &format!("DROP VIEW IF EXISTS {}", quote(name)))
    }

    fn count_rows(&mut self, ns: &str, table: &str) -> Result<u64, DbError> {
        let sql = format!("SELECT count(*) FROM {}", quote(table));
        let conn = self.conn(ns)?;
        let r = conn.query_row(&sql, [], |r| r.get::<_, i64>(0));
        r.map(|n| n.max(0) as u64).map_err(|e| self.error(e))
    }

    fn read_back(
        &mut self,
        ns: &str,
        t: &TableDef,
        row: &mut dyn FnMut(&[Value]),
    ) -> Result<u64, DbError> {
        let cols: Vec<String> = t
            .columns
            .iter()
            .map(|c| match c.kind {
                // Each kind read as the type its decoder takes, whatever
                // the column's own (an enum, a decimal …).
                TargetKind::Numeric | TargetKind::Text => {
                    format!("CAST({} AS VARCHAR)", quote(&c.name))
                }
                TargetKind::Integer => format!("CAST({} AS BIGINT)", quote(&c.name)),
                TargetKind::Real => format!("CAST({} AS DOUBLE)", quote(&c.name)),
                _ => quote(&c.name),
            })
            .collect();
        let select = if cols.is_empty() {
            format!("SELECT count(*) FROM {}", quote(&t.name))
        } else {
            format!("SELECT {} FROM {}", cols.join(", "), quote(&t.name))
        };
        let kinds: Vec<TargetKind> = t.columns.iter().map(|c| c.kind).collect();
        let dialect = Arc::clone(&self.dialect);
        let err = |e| db_error(&dialect, e, None);
        let conn = self.conn(ns)?;
        let mut stmt = conn.prepare(&select).map_err(err)?;
        let mut rows = stmt.query([]).map_err(err)?;
        if kinds.is_empty() {
            let n = match rows.next().map_err(err)? {
                Some(r) => r.get::<_, i64>(0).map_err(err)?,
                None => 0,
            };
            for _ in 0..n {
                row(&[]);
            }
            return Ok(u64::try_from(n).unwrap_or(0));
        }
        let mut values = Vec::with_capacity(kinds.len());
        let mut n = 0u64;
        while let Some(r) = rows.next().map_err(err)? {
            values.clear();
            for (i, kind) in kinds.iter().enumerate() {
                let v = duckdb_value(r.get::<_, DValue>(i).map_err(err)?);
                values.push(match (kind, v) {
                    (TargetKind::Numeric, Value::Text(s)) => Value::Decimal(s),
                    (_, v) => v,
                });
            }
            row(&values);
            n += 1;
        }
        Ok(n)
    }

    fn grant_reader(&mut self, _ns: &str) -> Result<Vec<String>, DbError> {
        // The reader opens the file read-only itself: no login to grant.
        Ok(Vec::new())
    }

    fn lock(&mut self, ns: &str) -> Result<(), DbError> {
        // A hidden file beside the copy, kept: a lock file removed while
        // another process waits on it would let two hold the lock.
        let file = file_of(&self.folder, ns);
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let path = self.folder.join(format!(".{name}.lock"));
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .and_then(|f| f.lock().map(|()| f))
            .map_err(|e| DbError::connection(format!("cannot lock {}: {e}", path.display())))?;
        self.locks.insert(ns.to_string(), file);
        Ok(())
    }

    fn unlock(&mut self, ns: &str) {
        // Written to disk before another process may open the file.
        if let Some(conn) = self.open.remove(ns) {
            let _ = conn.execute_batch("CHECKPOINT");
        }
        self.locks.remove(ns);
    }

    fn prepare_reader(&mut self) -> Result<Vec<String>, DbError> {
        Ok(Vec::new())
    }

    fn keys_before_load(&self) -> bool {
        true
    }

    /// Each [`crate::open_migrator`] opens its own DuckDB instance of the
    /// file: rows appended over a second instance were not in the copy the
    /// first one checkpointed (every table read back empty), so a copy
    /// loads over its one connection.
    fn loads_in_parallel(&self) -> bool {
        false
    }
}
