//! The MySQL / MariaDB write side ([`Migrator`]): one database per
//! namespace (utf8mb4, the server's default collation, recorded), stamped
//! at creation; rows in multi-row `INSERT`s of literal values (the text
//! protocol: one parse per statement, no placeholders), one transaction per
//! table; the primary key declared with the table (InnoDB clusters rows by
//! it: adding it later rebuilds the table); foreign keys added after every
//! load with `foreign_key_checks` off (the migration checked them on the
//! source, comparing values exactly; the server's comparison, with its
//! collation and padding, can only match more).
//!
//! The session is strict (`STRICT_ALL_TABLES`): a value the column cannot
//! hold is an error, never truncated.
//!
//! Where the server allows it, rows go through `LOAD DATA LOCAL INFILE` over
//! a second connection that streams them from memory (see [`super::infile`]);
//! else as multi-row `INSERT`s, and the migration log says why.

use std::sync::Arc;

use futures_util::TryStreamExt;
use sqlwitness_core::{
    DbError, ErrorClass, Loaded, Migrator, Ownership, RowSource, Stamp, TableDef, TargetKind,
    Value, STAMP_TABLE,
};
use sqlwitness_dialect::Dialect;
use sqlx::mysql::{MySqlConnection, MySqlRow};
use sqlx::types::chrono::{NaiveDate, NaiveDateTime};
use sqlx::{AssertSqlSafe, Connection, Row};

use super::infile::InfileLoader;
use super::login;
use crate::server::{date_text, timestamp_text};

/// At most about this many bytes of SQL per `INSERT` (and never more than
/// half the server's `max_allowed_packet`).
const BATCH_BYTES: usize = 4 << 20;

/// The session every migration runs in: strict, no backslash or quote
/// surprises in literals, keys checked by the migration itself.
const SESSION: &str = "SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION,\
NO_AUTO_VALUE_ON_ZERO', SESSION foreign_key_checks = 0, NAMES utf8mb4";

/// The write side of MySQL or MariaDB over one administrative connection.
pub struct MysqlMigrator {
    rt: tokio::runtime::Runtime,
    conn: MySqlConnection,
    dialect: Arc<Dialect>,
    max_statement: usize,
    url: String,
    bulk: Bulk,
}

/// Whether loads go through `LOAD DATA LOCAL INFILE`; decided at the first
/// load.
enum Bulk {
    Untried,
    Ready(InfileLoader),
    /// Why not: the migration log says it beside the `INSERT`s.
    Unavailable(String),
}

impl std::fmt::Debug for MysqlMigrator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlMigrator").finish_non_exhaustive()
    }
}

impl Drop for MysqlMigrator {
    fn drop(&mut self) {
        if let Bulk::Ready(loader) = std::mem::replace(&mut self.bulk, Bulk::Untried) {
            self.rt.block_on(loader.close());
        }
    }
}

/// Tables named per `ANALYZE TABLE` statement.
const ANALYZE_BATCH: usize = 100;

pub(crate) fn quote(ident: &str) -> String {
    format!("`{}`", ident.replace('`', "``"))
}

fn qualified(ns: &str, table: &str) -> String {
    format!("{}.{}", quote(ns), quote(table))
}

fn column_list(cols: &[String]) -> String {
    cols.iter().map(|c| quote(c)).collect::<Vec<_>>().join(", ")
}

/// The name of foreign key `k` of `table`: a hash, within MySQL's 64
/// characters.
fn fk_name(table: &str, k: usize) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in table.bytes().chain(k.to_le_bytes()) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("sw_fk_{h:016x}")
}

/// A value MySQL and MariaDB cannot store.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("the value {0} cannot be stored: MySQL and MariaDB have no infinity or NaN")]
pub(crate) struct Unstorable(pub f64);

/// Appends `v` as a MySQL literal (the session has no
/// `NO_BACKSLASH_ESCAPES`): strings quoted with `\`, `'` and NUL escaped,
/// bytes as `X'…'`, floats in their shortest exact form. Infinity and NaN
/// cannot be stored: an error naming the value.
fn push_literal(out: &mut String, v: &Value) -> Result<(), Unstorable> {
    use std::fmt::Write;
    match v {
        Value::Null => out.push_str("NULL"),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Bool(b) => out.push(if *b { '1' } else { '0' }),
        Value::Float(f) if !f.is_finite() => return Err(Unstorable(*f)),
        Value::Float(f) => {
            let _ = write!(out, "{f:?}");
        }
        Value::Bytes(b) => {
            out.push_str("X'");
            for byte in b {
                let _ = write!(out, "{byte:02x}");
            }
            out.push('\'');
        }
        Value::Text(s)
        | Value::Decimal(s)
        | Value::Date(s)
        | Value::Time(s)
        | Value::Timestamp(s) => {
            out.reserve(s.len() + 2);
            out.push('\'');
            for c in s.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\'' => out.push_str("\\'"),
                    '\0' => out.push_str("\\0"),
                    c => out.push(c),
                }
            }
            out.push('\'');
        }
    }
    Ok(())
}

fn decode(row: &MySqlRow, i: usize, kind: TargetKind) -> Result<Value, sqlx::Error> {
    Ok(match kind {
        // Any width, `year` too, as the reader decodes it.
        TargetKind::Integer => row.try_get_unchecked::<Option<i64>, _>(i)?.map(Value::Int),
        TargetKind::Real => row.try_get::<Option<f64>, _>(i)?.map(Value::Float),
        // Any type read as text (a `time`, `json`, a MariaDB `uuid`): the
        // text protocol's value is its text.
        TargetKind::Text => row
            .try_get_unchecked::<Option<String>, _>(i)?
            .map(Value::Text),
        // Selected as CAST(… AS CHAR) (see `read_back`).
        TargetKind::Numeric => row.try_get::<Option<String>, _>(i)?.map(Value::Decimal),
        TargetKind::Blob => row.try_get::<Option<Vec<u8>>, _>(i)?.map(Value::Bytes),
        // A date no calendar holds (`1948-01-00`, where the source's was
        // one) as the server writes it.
        TargetKind::Date => match row.try_get::<Option<NaiveDate>, _>(i) {
            Ok(d) => d.map(|d| Value::Date(date_text(d))),
            Err(_) => row
                .try_get_unchecked::<Option<String>, _>(i)?
                .map(Value::Date),
        },
        // A `timestamp` column as a `datetime` one: both reach the client
        // in the same form, in the session's time zone (UTC).
        TargetKind::Timestamp => match row.try_get_unchecked::<Option<NaiveDateTime>, _>(i) {
            Ok(d) => d.map(|d| Value::Timestamp(timestamp_text(d))),
            Err(_) => row
                .try_get_unchecked::<Option<String>, _>(i)?
                .map(Value::Timestamp),
        },
    }
    .unwrap_or(Value::Null))
}

impl MysqlMigrator {
    fn add_foreign_keys_at_once(
        &mut self,
        ns: &str,
        t: &TableDef,
        keys: &[usize],
    ) -> Result<(), DbError> {
        let clauses: Vec<String> = keys
            .iter()
            .map(|&k| {
                let fk = &t.foreign_keys[k];
                format!(
                    "ADD CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {} ({})",
                    quote(&fk_name(&t.name, k)),
                    column_list(&fk.columns),
                    qualified(ns, &fk.parent_table),
                    column_list(&fk.parent_columns)
                )
            })
            .collect();
        self.exec(&format!(
            "ALTER TABLE {} {}",
            qualified(ns, &t.name),
            clauses.join(", ")
        ))
        .map(|_| ())
    }

    /// Connects to the administrative `url` and sets the migration session.
    pub fn connect(dialect: Dialect, url: &str) -> Result<MysqlMigrator, DbError> {
        let rt = crate::server::blocking_runtime()?;
        let mut conn = rt.block_on(MySqlConnection::connect(url)).map_err(|e| {
            DbError::connection(format!("cannot connect to {}: {e}", crate::mask_url(url)))
        })?;
        let packet = rt.block_on(async {
            sqlx::raw_sql(SESSION).execute(&mut conn).await?;
            sqlx::query_scalar::<_, i64>("SELECT CAST(@@max_allowed_packet AS SIGNED)")
                .fetch_one(&mut conn)
                .await
        });
        let packet =
            packet.map_err(|e| DbError::connection(format!("cannot set the session: {e}")))?;
        Ok(MysqlMigrator {
            rt,
            conn,
            dialect: Arc::new(dialect),
            max_statement: BATCH_BYTES.min((packet.max(1 << 20) / 2) as usize),
            url: url.to_string(),
            bulk: Bulk::Untried,
        })
    }

    /// Decides, at the first load, whether loads go through `LOAD DATA
    /// LOCAL INFILE`: only where the server allows it (a migration never
    /// changes a server's global settings) and a probe load works.
    fn prepare_bulk(&mut self, ns: &str) {
        if !matches!(self.bulk, Bulk::Untried) {
            return;
        }
        // MariaDB renders the boolean as ON, MySQL as 1.
        let allowed = self.scalar("SELECT IF(@@global.local_infile, '1', '0')", &[]);
        self.bulk = match allowed {
            Ok(Some(on)) if on == "1" => {
                match self.rt.block_on(InfileLoader::connect(&self.url, ns)) {
                    Ok(loader) => Bulk::Ready(loader),
                    Err(why) => Bulk::Unavailable(why.message),
                }
            }
            Ok(_) => Bulk::Unavailable(
                "the server has local_infile=OFF (LOAD DATA LOCAL INFILE is refused)".to_string(),
            ),
            Err(e) => Bulk::Unavailable(format!(
                "the server's local_infile could not be read ({})",
                e.message
            )),
        };
    }

    fn error(&self, e: sqlx::Error) -> DbError {
        if let Some(db) = e.as_database_error() {
            let code = db
                .try_downcast_ref::<sqlx::mysql::MySqlDatabaseError>()
                .map(|m| m.number().to_string());
            let message = db.message().to_string();
            let class = self.dialect.classify(code.as_deref(), &message);
            return DbError::new(class, code, message);
        }
        crate::server::driver_error(e)
    }

    fn exec(&mut self, sql: &str) -> Result<u64, DbError> {
        let r = self
            .rt
            .block_on(sqlx::raw_sql(AssertSqlSafe(sql.to_string())).execute(&mut self.conn));
        r.map(|done| done.rows_affected())
            .map_err(|e| self.error(e))
    }

    fn scalar(&mut self, sql: &str, binds: &[&str]) -> Result<Option<String>, DbError> {
        let mut q = sqlx::query_scalar::<_, String>(AssertSqlSafe(sql.to_string()));
        for b in binds {
            q = q.bind(b.to_string());
        }
        let r = self.rt.block_on(q.fetch_optional(&mut self.conn));
        r.map_err(|e| self.error(e))
    }

    /// The rows of `rows` in multi-row INSERTs; the number stored.
    fn insert_all(
        &mut self,
        ns: &str,
        t: &TableDef,
        rows: &mut dyn RowSource,
    ) -> Result<u64, DbError> {
        let names: Vec<String> = t.columns.iter().map(|c| c.name.clone()).collect();
        let head = format!(
            "INSERT INTO {} ({}) VALUES ",
            qualified(ns, &t.name),
            column_list(&names)
        );
        let mut sql = String::with_capacity(self.max_statement + 64 * 1024);
        let mut stored = 0u64;
        let mut row_no = 0u64;
        let mut first_in_statement = 0u64;
        while let Some(batch) = rows.next_batch()? {
            for row in batch {
                if sql.is_empty() {
                    sql.push_str(&head);
                    first_in_statement = row_no;
                } else {
                    sql.push(',');
                }
                sql.push('(');
                for (i, v) in row.iter().enumerate() {
                    if i > 0 {
                        sql.push(',');
                    }
                    push_literal(&mut sql, v).map_err(|m| {
                        DbError::new(
                            ErrorClass::TypeMismatch,
                            None,
                            format!("row {row_no}, column `{}`: {m}", names[i]),
                        )
                    })?;
                }
                sql.push(')');
                row_no += 1;
                if sql.len() >= self.max_statement {
                    stored += self.send(&mut sql, first_in_statement, row_no)?;
                }
            }
        }
        if !sql.is_empty() {
            stored += self.send(&mut sql, first_in_statement, row_no)?;
        }
        Ok(stored)
    }

    fn send(&mut self, sql: &mut String, first: u64, end: u64) -> Result<u64, DbError> {
        let text = std::mem::take(sql);
        let r = self
            .rt
            .block_on(sqlx::raw_sql(AssertSqlSafe(text)).execute(&mut self.conn));
        r.map(|d| d.rows_affected()).map_err(|e| {
            let mut err = self.error(e);
            err.message = format!("rows {first}..{end}: {}", err.message);
            err
        })
    }
}

impl Migrator for MysqlMigrator {
    /// `ANALYZE LOCAL TABLE` (not written to the binary log): statistics
    /// read from the copy itself, so the optimizer plans a query the same
    /// way on every copy of the same rows — and a `LIMIT` through tied rows
    /// returns the same one — instead of from whatever InnoDB's background
    /// sampling has reached.
    fn analyze(&mut self, ns: &str, tables: &[&str]) -> Result<(), DbError> {
        for chunk in tables.chunks(ANALYZE_BATCH) {
            let list: Vec<String> = chunk.iter().map(|t| qualified(ns, t)).collect();
            self.exec(&format!("ANALYZE LOCAL TABLE {}", list.join(", ")))?;
        }
        Ok(())
    }

    fn server_version(&mut self) -> Result<String, DbError> {
        self.scalar("SELECT CAST(VERSION() AS CHAR)", &[])
            .map(Option::unwrap_or_default)
    }

    fn ownership(&mut self, ns: &str) -> Result<Ownership, DbError> {
        let exists = self.scalar(
            "SELECT CAST(SCHEMA_NAME AS CHAR) FROM information_schema.SCHEMATA \
             WHERE SCHEMA_NAME = ?",
            &[ns],
        )?;
        if exists.is_none() {
            return Ok(Ownership::Absent);
        }
        let stamped = self.scalar(
            "SELECT CAST(TABLE_NAME AS CHAR) FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND TABLE_TYPE = 'BASE TABLE'",
            &[ns, STAMP_TABLE],
        )?;
        if stamped.is_none() {
            return Ok(Ownership::Foreign {
                reason: format!(
                    "database {} exists and holds no {STAMP_TABLE} table: sqlwitness did not \
                     create it",
                    quote(ns)
                ),
            });
        }
        let text = self.scalar(
            &format!(
                "SELECT CAST(v AS CHAR) FROM {} WHERE k = 'stamp'",
                qualified(ns, STAMP_TABLE)
            ),
            &[],
        );
        Ok(Ownership::of_stamp(
            &format!("database {}", quote(ns)),
            text,
        ))
    }

    fn create_namespace(&mut self, ns: &str, stamp: &Stamp) -> Result<(), DbError> {
        self.exec(&format!(
            "CREATE DATABASE {} CHARACTER SET utf8mb4",
            quote(ns)
        ))?;
        let made = self
            .exec(&format!(
                "CREATE TABLE {} (k VARCHAR(64) PRIMARY KEY, v LONGTEXT NOT NULL) ENGINE = InnoDB",
                qualified(ns, STAMP_TABLE)
            ))
            .and_then(|_| self.write_stamp(ns, stamp));
        if let Err(e) = made {
            // The database did not exist a moment ago: it is ours to remove.
            let _ = self.exec(&format!("DROP DATABASE IF EXISTS {}", quote(ns)));
            return Err(e);
        }
        Ok(())
    }

    fn write_stamp(&mut self, ns: &str, stamp: &Stamp) -> Result<(), DbError> {
        let sql = format!(
            "INSERT INTO {} (k, v) VALUES ('stamp', ?) ON DUPLICATE KEY UPDATE v = VALUES(v)",
            qualified(ns, STAMP_TABLE)
        );
        let r = self.rt.block_on(
            sqlx::query(AssertSqlSafe(sql))
                .bind(stamp.to_text())
                .execute(&mut self.conn),
        );
        r.map(|_| ()).map_err(|e| self.error(e))
    }

    fn drop_namespace(&mut self, ns: &str) -> Result<(), DbError> {
        match self.ownership(ns)? {
            Ownership::Absent => {}
            Ownership::Foreign { reason } => return Err(DbError::refused(reason)),
            Ownership::Ours(_) => {
                self.exec(&format!("DROP DATABASE IF EXISTS {}", quote(ns)))?;
            }
        }
        // MySQL keeps database-level grants after DROP DATABASE.
        let r = self.rt.block_on(login::revoke_mysql(&mut self.conn, ns));
        r.map_err(|e| self.error(e))
    }

    fn create_table(
        &mut self,
        ns: &str,
        t: &TableDef,
        with_primary_key: bool,
    ) -> Result<(), DbError> {
        let with_primary_key = with_primary_key && !t.primary_key.is_empty();
        // Key columns NOT NULL, as `ADD PRIMARY KEY` makes them (MySQL 9
        // refuses a nullable one in `CREATE TABLE`).
        let mut cols: Vec<String> = t
            .columns
            .iter()
            .map(|c| {
                let not_null = c.not_null || (with_primary_key && t.primary_key.contains(&c.name));
                format!(
                    "{} {}{}",
                    quote(&c.name),
                    c.sql_type,
                    if not_null { " NOT NULL" } else { " NULL" }
                )
            })
            .collect();
        if with_primary_key {
            cols.push(format!("PRIMARY KEY ({})", column_list(&t.primary_key)));
        }
        self.exec(&format!(
            "CREATE TABLE {} ({}) ENGINE = InnoDB",
            qualified(ns, &t.name),
            cols.join(", ")
        ))
        .map(|_| ())
    }

    fn drop_table(&mut self, ns: &str, table: &str) -> Result<(), DbError> {
        self.exec(&format!("DROP TABLE IF EXISTS {}", qualified(ns, table)))
            .map(|_| ())
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
        self.prepare_bulk(ns);
        let names: Vec<String> = t.columns.iter().map(|c| c.name.clone()).collect();
        let charset = super::infile::StreamCharset::of(t);
        if let (Bulk::Ready(loader), Some(charset)) = (&mut self.bulk, charset) {
            let rows = loader.load(
                &self.rt,
                &self.dialect,
                &qualified(ns, &t.name),
                &names,
                charset,
                rows,
            )?;
            return Ok(Loaded {
                rows,
                note: Some(
                    "rows loaded with LOAD DATA LOCAL INFILE (streamed from memory)".to_string(),
                ),
            });
        }
        let note = match &self.bulk {
            Bulk::Ready(_) => "rows loaded as multi-row INSERTs: text in another character set \
                               beside binary columns, which one LOAD DATA cannot read both of"
                .to_string(),
            Bulk::Unavailable(why) => format!("rows loaded as multi-row INSERTs: {why}"),
            _ => "rows loaded as multi-row INSERTs".to_string(),
        };
        self.exec("START TRANSACTION")?;
        match self.insert_all(ns, t, rows) {
            Ok(n) => {
                self.exec("COMMIT")?;
                Ok(Loaded {
                    rows: n,
                    note: Some(note),
                })
            }
            Err(e) => {
                let _ = self.exec("ROLLBACK");
                Err(e)
            }
        }
    }

    fn add_primary_key(&mut self, ns: &str, t: &TableDef) -> Result<(), DbError> {
        self.exec(&format!(
            "ALTER TABLE {} ADD PRIMARY KEY ({})",
            qualified(ns, &t.name),
            column_list(&t.primary_key)
        ))
        .map(|_| ())
    }

    fn add_unique_key(&mut self, ns: &str, table: &str, columns: &[String]) -> Result<(), DbError> {
        self.exec(&format!(
            "ALTER TABLE {} ADD UNIQUE KEY ({})",
            qualified(ns, table),
            column_list(columns)
        ))
        .map(|_| ())
    }

    fn add_foreign_key(&mut self, ns: &str, t: &TableDef, k: usize) -> Result<(), DbError> {
        self.add_foreign_keys_at_once(ns, t, &[k])
    }

    /// Every key in one `ALTER TABLE` (InnoDB builds the indexes the keys
    /// need in one pass, not one table rebuild per key); when the server
    /// refuses it, key by key, so that each refusal is its own key's.
    fn add_foreign_keys(
        &mut self,
        ns: &str,
        t: &TableDef,
        keys: &[usize],
    ) -> Vec<Result<(), DbError>> {
        if keys.len() > 1 && self.add_foreign_keys_at_once(ns, t, keys).is_ok() {
            return keys.iter().map(|_| Ok(())).collect();
        }
        keys.iter()
            .map(|&k| self.add_foreign_keys_at_once(ns, t, &[k]))
            .collect()
    }

    fn tables(&mut self, ns: &str) -> Result<Vec<String>, DbError> {
        let r = self.rt.block_on(
            sqlx::query_scalar::<_, String>(
                "SELECT CAST(TABLE_NAME AS CHAR) FROM information_schema.TABLES \
                 WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' AND TABLE_NAME <> ? \
                 ORDER BY 1",
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
                TargetKind::Numeric => format!("CAST({} AS CHAR)", quote(&c.name)),
                _ => quote(&c.name),
            })
            .collect();
        let select = format!("SELECT {} FROM {}", cols.join(", "), qualified(ns, &t.name));
        let kinds: Vec<TargetKind> = t.columns.iter().map(|c| c.kind).collect();
        let Self { rt, conn, .. } = self;
        let r: Result<u64, sqlx::Error> = rt.block_on(async {
            let mut stream = sqlx::raw_sql(AssertSqlSafe(select)).fetch(&mut *conn);
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
        let target = format!("{}.{}", quote(ns), quote(name));
        // The view's text is benchmark input: it is sent alone as a
        // prepared statement (one statement, never a list), on a line of
        // its own so a trailing comment ends there. A view's unqualified
        // names are read in the session's database when it is created; the
        // session's own database is restored after.
        let home = self.home();
        self.exec(&format!("USE {}", quote(ns)))?;
        let create = format!("CREATE SQL SECURITY INVOKER VIEW {target} AS\n{sql}\n");
        let created = self
            .rt
            .block_on(sqlx::query(AssertSqlSafe(create)).execute(&mut self.conn))
            .map(|_| ())
            .map_err(|e| self.error(e));
        if let Some(h) = home {
            let _ = self.exec(&format!("USE {}", quote(&h)));
        }
        created?;
        // Read back by the reader login (the view runs with its invoker's
        // rights: `SELECT` on this database and nothing else), time-limited.
        let url =
            crate::server::engine_of(&self.dialect, sqlwitness_core::EngineKind::Mysql, &self.url)
                .and_then(|kind| crate::reader_url(kind, &self.url))
                .map_err(|e| DbError::connection(e.to_string()))?;
        let mut session = String::from("SET NAMES utf8mb4");
        if let Some(t) = self.dialect.time_limit_sql(limit) {
            session = format!("{session}; {t}");
        }
        let select = format!("SELECT * FROM {target}");
        let read = self.rt.block_on(async {
            let work = async {
                let mut reader = MySqlConnection::connect(&url).await?;
                sqlx::raw_sql(AssertSqlSafe(session))
                    .execute(&mut reader)
                    .await?;
                let rows = sqlx::query(AssertSqlSafe(select))
                    .fetch_all(&mut reader)
                    .await;
                let _ = reader.close().await;
                rows
            };
            tokio::time::timeout(limit, work).await
        });
        let rows = match read {
            Ok(r) => r.map_err(|e| self.error(e))?,
            Err(_) => {
                return Err(DbError::timeout(format!(
                    "the view is still running after {} s",
                    limit.as_secs()
                )))
            }
        };
        Ok(crate::server::result_set(&rows, super::read::decode_row))
    }

    fn drop_view(&mut self, ns: &str, name: &str) -> Result<(), DbError> {
        self.exec(&format!(
            "DROP VIEW IF EXISTS {}.{}",
            quote(ns),
            quote(name)
        ))
        .map(|_| ())
    }

    fn grant_reader(&mut self, ns: &str) -> Result<Vec<String>, DbError> {
        let r = self
            .rt
            .block_on(login::grant_database_mysql(&mut self.conn, ns));
        r.map_err(|e| self.error(e))
    }

    fn prepare_reader(&mut self) -> Result<Vec<String>, DbError> {
        let r = self.rt.block_on(login::ensure_reader_mysql(&mut self.conn));
        r.map(|()| Vec::new()).map_err(|e| self.error(e))
    }

    fn lock(&mut self, ns: &str) -> Result<(), DbError> {
        // Lock names are at most 64 characters: a hash of the namespace.
        let r = self.rt.block_on(
            sqlx::query_scalar::<_, Option<i64>>(
                "SELECT GET_LOCK(CONCAT('sqlwitness:', LEFT(SHA2(?, 256), 48)), 600)",
            )
            .bind(ns)
            .fetch_one(&mut self.conn),
        );
        match r.map_err(|e| self.error(e))? {
            Some(1) => Ok(()),
            _ => Err(DbError::new(
                ErrorClass::Timeout,
                None,
                format!(
                    "another migration of {} held its lock for 10 minutes",
                    quote(ns)
                ),
            )),
        }
    }

    fn unlock(&mut self, ns: &str) {
        let _ = self.rt.block_on(
            sqlx::query("DO RELEASE_LOCK(CONCAT('sqlwitness:', LEFT(SHA2(?, 256), 48)))")
                .bind(ns)
                .execute(&mut self.conn),
        );
    }

    fn collation(&mut self, ns: &str) -> Option<String> {
        self.scalar(
            "SELECT CAST(DEFAULT_COLLATION_NAME AS CHAR) FROM information_schema.SCHEMATA \
             WHERE SCHEMA_NAME = ?",
            &[ns],
        )
        .ok()
        .flatten()
    }

    fn keys_before_load(&self) -> bool {
        true
    }

    fn home(&mut self) -> Option<String> {
        self.scalar("SELECT CAST(DATABASE() AS CHAR)", &[])
            .ok()
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        let mut out = String::new();
        for v in [
            Value::Text("a'b\\c\0d".into()),
            Value::Null,
            Value::Bytes(vec![0, 255]),
            Value::Int(-3),
            Value::Float(0.1),
            Value::Float(1e300),
        ] {
            push_literal(&mut out, &v).unwrap();
            out.push('|');
        }
        assert_eq!(out, "'a\\'b\\\\c\\0d'|NULL|X'00ff'|-3|0.1|1e300|");
        assert!(push_literal(&mut out, &Value::Float(f64::NAN)).is_err());
        assert_eq!(fk_name("t", 0), fk_name("t", 0));
        assert_ne!(fk_name("t", 0), fk_name("t", 1));
    }
}
