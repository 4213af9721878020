//! The PostgreSQL write side ([`Migrator`]): one schema per namespace,
//! stamped at creation; rows through `COPY … FROM STDIN` (text format, each
//! value in the form the column type's input function reads), small tables
//! through one `INSERT … SELECT … FROM unnest(…)` per batch; keys after the
//! load; typed read-back.
//!
//! Every statement commits on its own (a schema of thousands of tables never
//! holds thousands of locks in one transaction); the stamp's state is what
//! says a copy is complete.
//!
//! (`COPY` ends with a small message that Nagle's algorithm holds until the
//! server's delayed acknowledgement, about 40 ms, on a TCP connection
//! without `TCP_NODELAY` as sqlx opens them: a table that fits in one batch
//! is inserted instead, so a database of many small tables does not pay it
//! per table.)

use std::sync::Arc;

use futures_util::TryStreamExt;
use sqlwitness_core::{
    DbError, Loaded, Migrator, Ownership, RowSource, Stamp, TableDef, TargetKind, Value,
    STAMP_TABLE,
};
use sqlwitness_dialect::Dialect;
use sqlx::postgres::{PgConnection, PgDatabaseError, PgRow};
use sqlx::types::chrono::{NaiveDate, NaiveDateTime};
use sqlx::{AssertSqlSafe, Row};

use super::login;
use crate::server::{date_text, timestamp_text};

/// Tables dropped per statement when a namespace is dropped (each takes a
/// lock until its transaction ends).
const DROP_BATCH: usize = 200;
/// Bytes of `COPY` data per message.
const COPY_CHUNK: usize = 1 << 20;

/// The write side of PostgreSQL over one administrative connection.
pub struct PgMigrator {
    rt: tokio::runtime::Runtime,
    conn: PgConnection,
    dialect: Arc<Dialect>,
}

impl std::fmt::Debug for PgMigrator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgMigrator").finish_non_exhaustive()
    }
}

pub(crate) fn quote(ident: &str) -> String {
    format!("\"{}\"", ident.replace('"', "\"\""))
}

fn qualified(ns: &str, table: &str) -> String {
    format!("{}.{}", quote(ns), quote(table))
}

fn column_list(cols: &[String]) -> String {
    cols.iter().map(|c| quote(c)).collect::<Vec<_>>().join(", ")
}

/// The advisory-lock key of migrations of `ns`.
fn lock_key(ns: &str) -> String {
    format!(
        "hashtextextended('sqlwitness migrate ' || {}, 0)",
        crate::login::literal(ns, false)
    )
}

/// A value as PostgreSQL's input functions read it; `None` for NULL;
/// bytea in hex.
pub(crate) fn input_text(v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => return None,
        Value::Int(i) => i.to_string(),
        Value::Float(f) if f.is_nan() => "NaN".into(),
        Value::Float(f) if f.is_infinite() => {
            if *f > 0.0 { "Infinity" } else { "-Infinity" }.into()
        }
        Value::Float(f) => format!("{f:?}"),
        Value::Bytes(b) => {
            let mut out = String::with_capacity(2 + 2 * b.len());
            out.push_str("\\x");
            push_hex(&mut out, b);
            out
        }
        Value::Bool(b) => if *b { "t" } else { "f" }.into(),
        Value::Text(s)
        | Value::Decimal(s)
        | Value::Date(s)
        | Value::Time(s)
        | Value::Timestamp(s) => s.clone(),
    })
}

fn push_hex(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(HEX[(b >> 4) as usize] as char);
        out.push(HEX[(b & 15) as usize] as char);
    }
}

/// Appends `v` to a `COPY … (FORMAT text)` line: NULL as `\N`, backslash,
/// tab, newline and carriage return escaped.
fn push_copy_text(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.extend_from_slice(b"\\N"),
        Value::Int(i) => out.extend_from_slice(i.to_string().as_bytes()),
        Value::Bytes(b) => {
            // `\x…` with the backslash escaped for COPY.
            out.extend_from_slice(b"\\\\x");
            let mut hex = String::with_capacity(2 * b.len());
            push_hex(&mut hex, b);
            out.extend_from_slice(hex.as_bytes());
        }
        Value::Text(s)
        | Value::Decimal(s)
        | Value::Date(s)
        | Value::Time(s)
        | Value::Timestamp(s) => {
            for &b in s.as_bytes() {
                match b {
                    b'\\' => out.extend_from_slice(b"\\\\"),
                    b'\t' => out.extend_from_slice(b"\\t"),
                    b'\n' => out.extend_from_slice(b"\\n"),
                    b'\r' => out.extend_from_slice(b"\\r"),
                    _ => out.push(b),
                }
            }
        }
        other => {
            if let Some(t) = input_text(other) {
                out.extend_from_slice(t.as_bytes());
            }
        }
    }
}

fn decode(row: &PgRow, i: usize, kind: TargetKind) -> Result<Value, sqlx::Error> {
    Ok(match kind {
        TargetKind::Integer => row.try_get::<Option<i64>, _>(i)?.map(Value::Int),
        TargetKind::Real => row.try_get::<Option<f64>, _>(i)?.map(Value::Float),
        TargetKind::Text => row.try_get::<Option<String>, _>(i)?.map(Value::Text),
        // Selected as `::text` (see `read_back`).
        TargetKind::Numeric => row.try_get::<Option<String>, _>(i)?.map(Value::Decimal),
        TargetKind::Blob => row.try_get::<Option<Vec<u8>>, _>(i)?.map(Value::Bytes),
        TargetKind::Date => row
            .try_get::<Option<NaiveDate>, _>(i)?
            .map(|d| Value::Date(date_text(d))),
        TargetKind::Timestamp => row
            .try_get::<Option<NaiveDateTime>, _>(i)?
            .map(|d| Value::Timestamp(timestamp_text(d))),
    }
    .unwrap_or(Value::Null))
}

impl PgMigrator {
    /// Connects to the administrative `url`.
    pub fn connect(dialect: Dialect, url: &str) -> Result<PgMigrator, DbError> {
        let rt = crate::server::blocking_runtime()?;
        let opts: sqlx::postgres::PgConnectOptions = url
            .parse()
            .map_err(|e| DbError::connection(format!("{}: {e}", crate::mask_url(url))))?;
        let conn = rt.block_on(super::relay::connect(&opts)).map_err(|e| {
            DbError::connection(format!("cannot connect to {}: {e}", crate::mask_url(url)))
        })?;
        Ok(PgMigrator {
            rt,
            conn,
            dialect: Arc::new(dialect),
        })
    }

    fn error(&self, e: sqlx::Error) -> DbError {
        if let Some(db) = e.as_database_error() {
            let code = db.code().map(|c| c.into_owned());
            let mut message = db.message().to_string();
            if let Some(pg) = db.try_downcast_ref::<PgDatabaseError>() {
                if let Some(detail) = pg.detail() {
                    message = format!("{message} ({detail})");
                }
                if let Some(hint) = pg.hint() {
                    message = format!("{message}; hint: {hint}");
                }
                if let Some(place) = pg.r#where() {
                    message = format!("{message}; {place}");
                }
            }
            let class = self.dialect.classify(code.as_deref(), &message);
            return DbError::new(class, code, message);
        }
        crate::server::driver_error(e)
    }

    fn exec(&mut self, sql: &str) -> Result<(), DbError> {
        let r = self
            .rt
            .block_on(sqlx::raw_sql(AssertSqlSafe(sql.to_string())).execute(&mut self.conn));
        r.map(|_| ()).map_err(|e| self.error(e))
    }

    fn read_stamp(&mut self, ns: &str) -> Result<Option<String>, DbError> {
        let sql = format!(
            "SELECT v FROM {} WHERE k = 'stamp'",
            qualified(ns, STAMP_TABLE)
        );
        let r = self.rt.block_on(
            sqlx::query_scalar::<_, String>(AssertSqlSafe(sql)).fetch_optional(&mut self.conn),
        );
        r.map_err(|e| self.error(e))
    }

    /// `INSERT … SELECT … FROM unnest(…)`: every column a text array, cast
    /// to the column's type by its input function (as `COPY` does).
    fn insert_rows(&mut self, ns: &str, t: &TableDef, rows: &[Vec<Value>]) -> Result<u64, DbError> {
        let names: Vec<String> = t.columns.iter().map(|c| c.name.clone()).collect();
        let args: Vec<String> = (1..=names.len()).map(|i| format!("${i}::text[]")).collect();
        let casts: Vec<String> = t
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| format!("u.c{i}::{}", c.sql_type))
            .collect();
        let aliases: Vec<String> = (0..names.len()).map(|i| format!("c{i}")).collect();
        let sql = format!(
            "INSERT INTO {} ({}) SELECT {} FROM unnest({}) AS u({})",
            qualified(ns, &t.name),
            column_list(&names),
            casts.join(", "),
            args.join(", "),
            aliases.join(", ")
        );
        let mut q = sqlx::query(AssertSqlSafe(sql));
        for c in 0..names.len() {
            let column: Vec<Option<String>> =
                rows.iter().map(|r| r.get(c).and_then(input_text)).collect();
            q = q.bind(column);
        }
        let r = self.rt.block_on(q.execute(&mut self.conn));
        r.map(|done| done.rows_affected())
            .map_err(|e| self.error(e))
    }

    /// `COPY … FROM STDIN` of `first` and every later batch of `rows`.
    fn copy_rows(
        &mut self,
        ns: &str,
        t: &TableDef,
        first: Vec<Vec<Value>>,
        rows: &mut dyn RowSource,
    ) -> Result<u64, DbError> {
        let names: Vec<String> = t.columns.iter().map(|c| c.name.clone()).collect();
        let statement = format!(
            "COPY {} ({}) FROM STDIN (FORMAT text)",
            qualified(ns, &t.name),
            column_list(&names)
        );
        let Self { rt, conn, .. } = self;
        let result: Result<u64, Result<DbError, sqlx::Error>> = rt.block_on(async {
            let mut copy = conn.copy_in_raw(&statement).await.map_err(Err)?;
            let mut buf: Vec<u8> = Vec::with_capacity(COPY_CHUNK + 64 * 1024);
            let encode = |batch: &[Vec<Value>], buf: &mut Vec<u8>| {
                for row in batch {
                    for (i, v) in row.iter().enumerate() {
                        if i > 0 {
                            buf.push(b'\t');
                        }
                        push_copy_text(buf, v);
                    }
                    buf.push(b'\n');
                }
            };
            encode(&first, &mut buf);
            loop {
                if buf.len() >= COPY_CHUNK {
                    copy.send(buf.as_slice()).await.map_err(Err)?;
                    buf.clear();
                }
                match rows.next_batch() {
                    Ok(Some(batch)) => encode(batch, &mut buf),
                    Ok(None) => break,
                    Err(e) => {
                        let _ = copy.abort("the source could not be read").await;
                        return Err(Ok(e));
                    }
                }
            }
            if !buf.is_empty() {
                copy.send(buf.as_slice()).await.map_err(Err)?;
            }
            copy.finish().await.map_err(Err)
        });
        match result {
            Ok(n) => Ok(n),
            Err(Ok(source)) => Err(source),
            Err(Err(e)) => Err(self.error(e)),
        }
    }
}

impl Migrator for PgMigrator {
    fn server_version(&mut self) -> Result<String, DbError> {
        let r = self.rt.block_on(
            sqlx::query_scalar::<_, String>("SELECT version()").fetch_one(&mut self.conn),
        );
        r.map_err(|e| self.error(e))
    }

    fn ownership(&mut self, ns: &str) -> Result<Ownership, DbError> {
        let r = self.rt.block_on(
            sqlx::query_as::<_, (bool, bool)>(
                "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1), \
                 EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                         WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind = 'r')",
            )
            .bind(ns)
            .bind(STAMP_TABLE)
            .fetch_one(&mut self.conn),
        );
        let (exists, stamped) = r.map_err(|e| self.error(e))?;
        if !exists {
            return Ok(Ownership::Absent);
        }
        if !stamped {
            return Ok(Ownership::Foreign {
                reason: format!(
                    "schema {} exists and holds no {STAMP_TABLE} table: sqlwitness did not \
                     create it",
                    quote(ns)
                ),
            });
        }
        let text = self.read_stamp(ns);
        Ok(Ownership::of_stamp(&format!("schema {}", quote(ns)), text))
    }

    fn create_namespace(&mut self, ns: &str, stamp: &Stamp) -> Result<(), DbError> {
        let sql = format!(
            "BEGIN; CREATE SCHEMA {q}; \
             CREATE TABLE {s} (k text PRIMARY KEY, v text NOT NULL); \
             INSERT INTO {s} VALUES ('stamp', {v}); COMMIT",
            q = quote(ns),
            s = qualified(ns, STAMP_TABLE),
            v = crate::login::literal(&stamp.to_text(), false),
        );
        let r = self.exec(&sql);
        if r.is_err() {
            let _ = self.exec("ROLLBACK");
        }
        r
    }

    fn write_stamp(&mut self, ns: &str, stamp: &Stamp) -> Result<(), DbError> {
        let sql = format!(
            "INSERT INTO {s} VALUES ('stamp', $1) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v",
            s = qualified(ns, STAMP_TABLE)
        );
        let r = self.rt.block_on(
            sqlx::query(AssertSqlSafe(sql))
                .bind(stamp.to_text())
                .execute(&mut self.conn),
        );
        r.map(|_| ()).map_err(|e| self.error(e))
    }

    fn analyze(&mut self, ns: &str, tables: &[&str]) -> Result<(), DbError> {
        for chunk in tables.chunks(DROP_BATCH) {
            let list: Vec<String> = chunk.iter().map(|t| qualified(ns, t)).collect();
            self.exec(&format!("ANALYZE {}", list.join(", ")))?;
        }
        Ok(())
    }

    fn drop_namespace(&mut self, ns: &str) -> Result<(), DbError> {
        match self.ownership(ns)? {
            Ownership::Absent => return Ok(()),
            Ownership::Foreign { reason } => return Err(DbError::refused(reason)),
            Ownership::Ours(_) => {}
        }
        // Tables first, a batch per statement, so that a schema of
        // thousands of tables stays within the server's lock table.
        let tables = self.tables(ns)?;
        for chunk in tables.chunks(DROP_BATCH) {
            let list: Vec<String> = chunk.iter().map(|t| qualified(ns, t)).collect();
            self.exec(&format!("DROP TABLE IF EXISTS {} CASCADE", list.join(", ")))?;
        }
        self.exec(&format!("DROP SCHEMA IF EXISTS {} CASCADE", quote(ns)))
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
        self.exec(&format!(
            "CREATE TABLE {} ({})",
            qualified(ns, &t.name),
            cols.join(", ")
        ))
    }

    fn drop_table(&mut self, ns: &str, table: &str) -> Result<(), DbError> {
        self.exec(&format!(
            "DROP TABLE IF EXISTS {} CASCADE",
            qualified(ns, table)
        ))
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
        let first: Vec<Vec<Value>> = match rows.next_batch()? {
            Some(b) => b.to_vec(),
            None => return Ok(Loaded::default()),
        };
        // One batch and the end: a single insert; else a COPY stream.
        let second = rows.next_batch()?.map(<[Vec<Value>]>::to_vec);
        let n = match second {
            None => self.insert_rows(ns, t, &first)?,
            Some(second) => {
                let mut all = first;
                all.extend(second);
                self.copy_rows(ns, t, all, rows)?
            }
        };
        Ok(Loaded {
            rows: n,
            note: None,
        })
    }

    fn add_primary_key(&mut self, ns: &str, t: &TableDef) -> Result<(), DbError> {
        self.exec(&format!(
            "ALTER TABLE {} ADD PRIMARY KEY ({})",
            qualified(ns, &t.name),
            column_list(&t.primary_key)
        ))
    }

    fn add_unique_key(&mut self, ns: &str, table: &str, columns: &[String]) -> Result<(), DbError> {
        self.exec(&format!(
            "ALTER TABLE {} ADD UNIQUE ({})",
            qualified(ns, table),
            column_list(columns)
        ))
    }

    /// `NOT VALID`: the migration added the key because it checked every
    /// child row against it on the source, comparing the values as they are
    /// stored here, and the copy holds the rows it checked (verified as they
    /// load). The server's own check would read the whole child table again
    /// to prove the same thing, without parallel workers: at 16M rows most
    /// of the time after the load. The key is the same for the planner (its
    /// join estimates use a key that is `NOT VALID`) and enforced for any
    /// later write.
    fn add_foreign_key(&mut self, ns: &str, t: &TableDef, k: usize) -> Result<(), DbError> {
        let fk = &t.foreign_keys[k];
        self.exec(&format!(
            "ALTER TABLE {} ADD FOREIGN KEY ({}) REFERENCES {} ({}) NOT VALID",
            qualified(ns, &t.name),
            column_list(&fk.columns),
            qualified(ns, &fk.parent_table),
            column_list(&fk.parent_columns)
        ))
    }

    fn tables(&mut self, ns: &str) -> Result<Vec<String>, DbError> {
        let r = self.rt.block_on(
            sqlx::query_scalar::<_, String>(
                "SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND c.relname <> $2 ORDER BY 1",
            )
            .bind(ns)
            .bind(STAMP_TABLE)
            .fetch_all(&mut self.conn),
        );
        r.map_err(|e| self.error(e))
    }

    fn count_rows(&mut self, ns: &str, table: &str) -> Result<u64, DbError> {
        let sql = format!("SELECT count(*) FROM {}", qualified(ns, table));
        let r = self
            .rt
            .block_on(sqlx::query_scalar::<_, i64>(AssertSqlSafe(sql)).fetch_one(&mut self.conn));
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
                // the column's own (`integer`, `real`, an enum …).
                TargetKind::Numeric | TargetKind::Text => format!("{}::text", quote(&c.name)),
                TargetKind::Integer => format!("{}::int8", quote(&c.name)),
                TargetKind::Real => format!("{}::float8", quote(&c.name)),
                _ => quote(&c.name),
            })
            .collect();
        let select = if cols.is_empty() {
            format!("SELECT FROM {}", qualified(ns, &t.name))
        } else {
            format!("SELECT {} FROM {}", cols.join(", "), qualified(ns, &t.name))
        };
        let kinds: Vec<TargetKind> = t.columns.iter().map(|c| c.kind).collect();
        let Self { rt, conn, .. } = self;
        let r: Result<u64, sqlx::Error> = rt.block_on(async {
            let mut stream = sqlx::query(AssertSqlSafe(select)).fetch(&mut *conn);
            let mut values = Vec::with_capacity(kinds.len());
            let mut n = 0u64;
            while let Some(r) = stream.try_next().await? {
                values.clear();
                for (i, k) in kinds.iter().enumerate() {
                    values.push(decode(&r, i, *k)?);
                }
                row(&values);
                n += 1;
            }
            Ok(n)
        });
        r.map_err(|e| self.error(e))
    }

    fn create_view(
        &mut self,
        ns: &str,
        name: &str,
        sql: &str,
        limit: std::time::Duration,
    ) -> Result<sqlwitness_core::ResultSet, DbError> {
        let target = qualified(ns, name);
        // The view's text is benchmark input: it is sent alone through the
        // extended protocol (one statement, never a list), on a line of its
        // own so a trailing comment ends there. From PostgreSQL 15 the view
        // runs with the privileges of whoever reads it.
        let version = self.rt.block_on(
            sqlx::query_scalar::<_, i64>("SELECT current_setting('server_version_num')::int8")
                .fetch_one(&mut self.conn),
        );
        let invoker = match version {
            Ok(v) if v >= 150_000 => " WITH (security_invoker = true)",
            _ => "",
        };
        let create = format!("CREATE VIEW {target}{invoker} AS\n{sql}\n");
        self.exec(&format!(
            "BEGIN; SET LOCAL search_path TO {}, pg_catalog",
            quote(ns)
        ))?;
        let made = self
            .rt
            .block_on(sqlx::query(AssertSqlSafe(create)).execute(&mut self.conn))
            .map_err(|e| self.error(e))
            .and_then(|_| {
                self.exec(&format!(
                    "GRANT SELECT ON {target} TO {}; COMMIT",
                    crate::READER_LOGIN
                ))
            });
        if let Err(e) = made {
            let _ = self.exec("ROLLBACK");
            return Err(e);
        }
        // Read back as the reader login, read-only and time-limited: the
        // view's functions run with the reader's rights, not ours.
        let ms = limit.as_millis().clamp(1, i32::MAX as u128);
        self.exec(&format!(
            "BEGIN READ ONLY; SET LOCAL ROLE {}; SET LOCAL statement_timeout = {ms}",
            crate::READER_LOGIN
        ))
        .inspect_err(|_| {
            let _ = self.exec("ROLLBACK");
        })?;
        let read = self.rt.block_on(
            sqlx::query(AssertSqlSafe(format!("SELECT * FROM {target}"))).fetch_all(&mut self.conn),
        );
        let _ = self.exec("ROLLBACK");
        let rows = read.map_err(|e| self.error(e))?;
        Ok(crate::server::result_set(&rows, super::read::decode_row))
    }

    fn drop_view(&mut self, ns: &str, name: &str) -> Result<(), DbError> {
        self.exec(&format!("DROP VIEW IF EXISTS {}", qualified(ns, name)))
    }

    fn grant_reader(&mut self, ns: &str) -> Result<Vec<String>, DbError> {
        let Self { rt, conn, .. } = self;
        let r = rt.block_on(async {
            let notes = login::grant_schema_postgres(&mut *conn, ns).await?;
            // The stamp is sqlwitness's, not the benchmark's.
            let stamped: bool = sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = \
                 c.relnamespace WHERE n.nspname = $1 AND c.relname = $2)",
            )
            .bind(ns)
            .bind(STAMP_TABLE)
            .fetch_one(&mut *conn)
            .await?;
            if stamped {
                let revoke = format!(
                    "REVOKE ALL ON {} FROM {}",
                    qualified(ns, STAMP_TABLE),
                    crate::READER_LOGIN
                );
                sqlx::raw_sql(AssertSqlSafe(revoke))
                    .execute(&mut *conn)
                    .await?;
            }
            Ok::<_, sqlx::Error>(notes)
        });
        r.map_err(|e| self.error(e))
    }

    fn prepare_reader(&mut self) -> Result<Vec<String>, DbError> {
        let r = self
            .rt
            .block_on(login::ensure_reader_postgres(&mut self.conn));
        r.map_err(|e| self.error(e))
    }

    fn lock(&mut self, ns: &str) -> Result<(), DbError> {
        self.exec(&format!("SELECT pg_advisory_lock({})", lock_key(ns)))
    }

    fn unlock(&mut self, ns: &str) {
        let _ = self.exec(&format!("SELECT pg_advisory_unlock({})", lock_key(ns)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_text_escapes() {
        let mut out = Vec::new();
        for v in [
            Value::Text("a\tb\\c\nd\re".into()),
            Value::Null,
            Value::Bytes(vec![0, 255]),
            Value::Int(-3),
            Value::Float(0.1),
            Value::Float(f64::INFINITY),
        ] {
            push_copy_text(&mut out, &v);
            out.push(b'|');
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "a\\tb\\\\c\\nd\\re|\\N|\\\\x00ff|-3|0.1|Infinity|"
        );
        assert_eq!(quote("a\"b"), "\"a\"\"b\"");
    }
}
