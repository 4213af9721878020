//! The PostgreSQL adapter (sqlx, feature `postgres`).
//!
//! Queries run over a login that should have read access only (see
//! [`super::login`]): the engine records what its login may do beyond
//! reading ([`PostgresEngine::excess_privileges`]) and callers refuse a
//! privileged one. Each query runs in its own `BEGIN READ ONLY` transaction
//! with `statement_timeout` and `search_path` set to the database's schema;
//! the query itself is one prepared statement (extended protocol), so a
//! second statement after `;` is a syntax error, never run.
//!
//! Limits: the server's `statement_timeout`, then, `CANCEL_MARGIN` past the
//! limit, the client cancels the backend itself and waits until
//! `pg_stat_activity` shows it stopped (terminating it if it must), so no
//! query outlives its limit by more than a second or two. A result is
//! bounded in rows and bytes. After every query the session is rolled back
//! and reset (advisory locks, listeners, cursors, temporary objects), so
//! nothing carries over to the next query on the pooled connection.
//! Connection-level failures (the server restarting, a dropped connection)
//! are retried on a fresh connection with backoff and reported as class
//! `connection` when they persist.

use std::cell::RefCell;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::time::Instant;

use futures_util::TryStreamExt;
use sqlwitness_core::{
    Collect, Column, Database, DbError, Engine, EngineInfo, EngineKind, ErrorClass, QueryLimits,
    ResultSet, RowSink, Timed, TimingMethod, Value,
};
use sqlwitness_dialect::Dialect;
use sqlx::postgres::{PgPool, PgPoolOptions, PgRow};
use sqlx::types::{chrono, BigDecimal};
use sqlx::{
    AssertSqlSafe, Column as _, Connection, Executor, Row, SqlSafeStr, Statement, TypeInfo,
    ValueRef,
};

use super::binary_text;
use crate::server::{self, ConnGuard, Health, Running, CANCEL_MARGIN, CANCEL_WAIT, END_WAIT};
use crate::EngineError;

/// Resets what a rolled-back transaction leaves in a PostgreSQL session.
const RESET: &str = "ROLLBACK; SELECT pg_advisory_unlock_all(); UNLISTEN *; CLOSE ALL; \
                     DISCARD TEMP; DISCARD SEQUENCES";

/// Runs queries on a PostgreSQL server, one schema per database.
pub struct PostgresEngine {
    info: EngineInfo,
    dialect: Arc<Dialect>,
    pool: PgPool,
    /// A second, small pool for cancelling and watching backends.
    control: PgPool,
    /// Tells a statement that ended its own session from a server fault.
    sentinel: server::Sentinel<sqlx::Postgres>,
    excess: Vec<String>,
    health: Health,
    running: Running,
    /// Backends ended but still finishing (waited for on drop).
    finishing: server::Finishing,
    rt: tokio::runtime::Runtime,
}

impl Drop for PostgresEngine {
    fn drop(&mut self) {
        let this = &*self;
        this.rt.block_on(
            this.finishing
                .wait(|pid| async move { !this.active(pid as i32).await }),
        );
    }
}

impl std::fmt::Debug for PostgresEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresEngine")
            .field("info", &self.info)
            .field("excess_privileges", &self.excess)
            .finish_non_exhaustive()
    }
}

impl PostgresEngine {
    /// Connects a pool of at most `max_connections` (at least 1) to `url`,
    /// running the dialect's session statements on every new connection.
    pub fn connect(url: &str, max_connections: u32) -> Result<PostgresEngine, EngineError> {
        PostgresEngine::connect_as(
            sqlwitness_dialect::builtin(EngineKind::Postgres),
            url,
            max_connections,
        )
    }

    /// [`PostgresEngine::connect`] as the engine `dialect` describes; a
    /// server that is not that engine (by its version) is refused.
    pub fn connect_as(
        dialect: Dialect,
        url: &str,
        max_connections: u32,
    ) -> Result<PostgresEngine, EngineError> {
        let kind = server::engine_of(&dialect, EngineKind::Postgres, url)?;
        let dialect = Arc::new(dialect);
        let rt = server::runtime().map_err(|e| EngineError::connect(kind, url, e))?;
        let session = dialect.session.clone();
        let sentinel_url = url.to_string();
        let (pool, control, sentinel, version, user, excess) = rt
            .block_on(async {
                // One direct connection first: it fails fast where the pool
                // would retry until its acquire timeout.
                let mut first = sqlx::PgConnection::connect(url).await?;
                let user: String = sqlx::query_scalar("SELECT current_user::text")
                    .fetch_one(&mut first)
                    .await?;
                let excess = super::postgres_excess_privileges(&mut first).await?;
                first.close().await?;
                let options = |n: u32| {
                    let session = session.clone();
                    PgPoolOptions::new()
                        .max_connections(n)
                        .acquire_timeout(server::ACQUIRE_TIMEOUT)
                        .after_connect(move |conn, _meta| {
                            let session = session.clone();
                            Box::pin(async move {
                                for stmt in session {
                                    conn.execute(sqlx::raw_sql(AssertSqlSafe(stmt))).await?;
                                }
                                Ok(())
                            })
                        })
                };
                let pool = options(max_connections.max(1)).connect(url).await?;
                let control = options(2).connect_lazy(url)?;
                let sentinel = server::Sentinel::start(move || {
                    let url = sentinel_url.clone();
                    Box::pin(async move {
                        let mut conn = sqlx::PgConnection::connect(&url).await?;
                        // An idle session must not end on its own.
                        let _ = conn.execute("SET idle_session_timeout = 0").await;
                        Ok(conn)
                    })
                })
                .await?;
                let version: String = sqlx::query_scalar("SELECT version()")
                    .fetch_one(&pool)
                    .await?;
                Ok::<_, sqlx::Error>((pool, control, sentinel, version, user, excess))
            })
            .map_err(|e| EngineError::connect(kind, url, e))?;
        server::check_identity(kind, &dialect, url, &version)?;
        let login = server::login_text(&user, &excess);
        Ok(PostgresEngine {
            info: EngineInfo {
                kind,
                version,
                login: Some(login),
            },
            dialect,
            pool,
            control,
            sentinel,
            excess,
            health: Health::default(),
            running: Running::default(),
            finishing: Default::default(),
            rt,
        })
    }

    /// What the login may do beyond reading (superuser, role attributes,
    /// server-file roles); empty for a least-privilege login.
    pub fn excess_privileges(&self) -> &[String] {
        &self.excess
    }

    fn db_error(&self, e: sqlx::Error) -> DbError {
        if let Some(db) = e.as_database_error() {
            let code = db.code().map(|c| c.into_owned());
            let message = db.message().to_string();
            let class = self.dialect.classify(code.as_deref(), &message);
            return DbError::new(class, code, message);
        }
        server::driver_error(e)
    }

    async fn run(
        &self,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
        settings: &[(String, String)],
        pid: &AtomicI32,
        sink: &RefCell<&mut dyn RowSink>,
    ) -> Result<(), DbError> {
        // Planner settings: names from the allow-list, values on/off only;
        // nothing else is ever interpolated.
        let mut extra = String::new();
        for (name, value) in settings {
            let value = value.to_ascii_lowercase();
            if !PLANNER_SETTINGS.contains(&name.as_str()) || !matches!(value.as_str(), "on" | "off")
            {
                return Err(DbError::new(
                    ErrorClass::Refused,
                    None,
                    format!("planner setting `{name} = {value}` is not allowed"),
                ));
            }
            extra.push_str(&format!("; SET LOCAL {name} = {value}"));
        }
        let conn = self.pool.acquire().await.map_err(|e| self.db_error(e))?;
        let mut guard = ConnGuard::new(conn);
        let begin = format!(
            "BEGIN READ ONLY; {}; SET LOCAL search_path TO {}{extra}; SELECT pg_backend_pid()",
            self.dialect
                .time_limit_sql(limits.timeout)
                .unwrap_or_else(|| "SELECT 0".to_string()),
            self.dialect.identifiers.quote(&db.namespace),
        );
        match guard
            .conn()
            .fetch_all(sqlx::raw_sql(AssertSqlSafe(begin)))
            .await
        {
            Ok(rows) => {
                if let Some(p) = rows.last().and_then(|r| r.try_get::<i32, _>(0).ok()) {
                    pid.store(p, Ordering::Relaxed);
                }
            }
            Err(e) => {
                let err = self.db_error(e);
                reset(guard).await;
                return Err(err);
            }
        }
        let sentinel_epoch = self.sentinel.epoch();
        let Some(_running) = self.running.enter(pid.load(Ordering::Relaxed) as u64) else {
            guard.discard();
            return Err(server::closed_error());
        };
        let began = Instant::now();
        match self.query(&mut guard, db, sql, limits, sink).await {
            Ok(rs) => {
                reset(guard).await;
                server::within_limit(Ok(rs), began, limits.timeout)
            }
            Err((err, true)) => {
                reset(guard).await;
                Err(err)
            }
            Err((err, false)) => {
                guard.discard();
                self.stop_backend(pid.load(Ordering::Relaxed)).await;
                Err(self.sentinel.attribute(err, sentinel_epoch).await)
            }
        }
    }

    /// The query inside the transaction. The error's flag says whether the
    /// connection is still usable.
    async fn query(
        &self,
        guard: &mut ConnGuard<sqlx::Postgres>,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
        sink: &RefCell<&mut dyn RowSink>,
    ) -> Result<(), (DbError, bool)> {
        let conn = guard.conn();
        let stmt = conn
            .prepare(AssertSqlSafe(server::keyed_sql(&db.namespace, sql)).into_sql_str())
            .await
            .map_err(|e| self.query_error(e))?;
        let columns: Vec<Column> = stmt
            .columns()
            .iter()
            .map(|c| Column::new(c.name(), Some(c.type_info().name().to_string())))
            .collect();
        sink.borrow_mut().columns(columns);
        // Rows already in the client's buffers come without a pause at
        // which the caller's timer could stop the read: the time limit is
        // also kept here, as the rows are read (the statement is then
        // stopped on the server).
        let until = Instant::now() + limits.timeout;
        let mut stream = stmt.query().fetch(&mut *conn);
        while let Some(row) = stream.try_next().await.map_err(|e| self.query_error(e))? {
            if Instant::now() >= until {
                return Err((DbError::timeout_while_reading(limits.timeout), false));
            }
            // Counted on the wire form: a row over the limit on its own is
            // refused before a copy is decoded.
            let bytes = raw_row_size(&row);
            if let Some(e) = limits.exceeded(0, bytes) {
                return Err((e, false));
            }
            let decoded = decode_row(&row);
            sink.borrow_mut()
                .row(decoded, bytes)
                .map_err(|e| (e, false))?;
        }
        Ok(())
    }

    /// A query error and whether the connection is still usable (not after
    /// a connection-level failure).
    fn query_error(&self, e: sqlx::Error) -> (DbError, bool) {
        let err = self.db_error(e);
        let keep = err.class != ErrorClass::Connection;
        (err, keep)
    }

    /// Stops whatever backend `pid` is running: cancel, wait until
    /// `pg_stat_activity` no longer shows it active, terminate if it must.
    /// Returns how it ended, for the error message.
    async fn stop_backend(&self, pid: i32) -> &'static str {
        if pid == 0 {
            return "no backend was known";
        }
        for (signal, outcome, wait) in [
            ("pg_cancel_backend", "cancelled on the server", CANCEL_WAIT),
            (
                "pg_terminate_backend",
                "its session terminated on the server",
                END_WAIT,
            ),
        ] {
            let _ = sqlx::query(AssertSqlSafe(format!("SELECT {signal}($1)")))
                .bind(pid)
                .execute(&self.control)
                .await;
            if server::stops_within(wait, || self.active(pid)).await {
                return outcome;
            }
        }
        // Reported now; waited for before the engine goes.
        self.finishing.add(pid as u64);
        "still running after cancel and terminate"
    }

    /// Whether backend `pid` is running a statement (yes when unknown).
    async fn active(&self, pid: i32) -> bool {
        sqlx::query_scalar::<_, bool>(
            "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active')",
        )
        .bind(pid)
        .fetch_one(&self.control)
        .await
        .unwrap_or(true)
    }
}

async fn reset(mut guard: ConnGuard<sqlx::Postgres>) {
    match guard.conn().execute(sqlx::raw_sql(RESET)).await {
        Ok(_) => guard.release(),
        Err(_) => guard.discard(),
    }
}

impl Engine for PostgresEngine {
    fn info(&self) -> &EngineInfo {
        &self.info
    }

    fn cancel_running(&self) {
        let pids = self.running.close();
        if !pids.is_empty() {
            let stops = pids.into_iter().map(|p| self.stop_backend(p as i32));
            self.rt.block_on(futures_util::future::join_all(stops));
        }
    }

    fn execute(
        &self,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
    ) -> Result<ResultSet, DbError> {
        self.execute_with_settings(db, sql, limits, &[])
    }

    fn execute_into(
        &self,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
        sink: &mut dyn RowSink,
    ) -> Result<(), DbError> {
        self.run_into(db, sql, limits, &[], sink)
    }

    fn time(&self, db: &Database, sql: &str, limits: &QueryLimits) -> Result<Timed, DbError> {
        if self.dialect.timing != Some(TimingMethod::PostgresExplainAnalyze) {
            return sqlwitness_core::time_by_client(self, db, sql, limits);
        }
        // The same guarded, read-only, time-limited run; EXPLAIN ANALYZE
        // executes the statement to its end on the server and sends only
        // the plan. TIMING OFF: no clock reads per plan node, the
        // statement's own time is still measured.
        let explain = format!("EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON)\n{sql}");
        let rs = self.execute(db, &explain, limits)?;
        let ms = rs
            .rows
            .first()
            .and_then(|r| r.first())
            .and_then(|v| match v {
                Value::Text(t) => explain_execution_ms(t),
                _ => None,
            })
            .ok_or_else(|| {
                DbError::new(
                    ErrorClass::Other,
                    None,
                    "EXPLAIN ANALYZE gave no execution time",
                )
            })?;
        Ok(Timed {
            ms,
            method: TimingMethod::PostgresExplainAnalyze,
        })
    }

    fn execute_with_settings(
        &self,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
        settings: &[(String, String)],
    ) -> Result<ResultSet, DbError> {
        Collect::rows(limits, |sink| {
            self.run_into(db, sql, limits, settings, sink)
        })
    }
}

impl PostgresEngine {
    /// A query with planner `settings`, its rows handed to `sink`: the
    /// statement within its deadline (stopped on the server past it), a
    /// lost connection retried.
    fn run_into(
        &self,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
        settings: &[(String, String)],
        sink: &mut dyn RowSink,
    ) -> Result<(), DbError> {
        let sink = RefCell::new(sink);
        let deadline = limits.timeout + CANCEL_MARGIN;
        self.rt.block_on(self.health.retry(|| async {
            let pid = AtomicI32::new(0);
            let started = Instant::now();
            let run = self.run(db, sql, limits, settings, &pid, &sink);
            match tokio::time::timeout(deadline, run).await {
                Ok(r) => r,
                Err(_) => {
                    let how = self.stop_backend(pid.load(Ordering::Relaxed)).await;
                    Err(DbError::timeout(format!(
                        "no answer within {} ms (limit {} ms); the statement was {how} after {} ms",
                        deadline.as_millis(),
                        limits.timeout.as_millis(),
                        started.elapsed().as_millis()
                    )))
                }
            }
        }))
    }
}

/// `Execution Time` (milliseconds) of `EXPLAIN (ANALYZE, FORMAT JSON)`'s
/// output: `[{"Plan": …, "Execution Time": 0.123}]`.
fn explain_execution_ms(json: &str) -> Option<f64> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    v.get(0)?.get("Execution Time")?.as_f64()
}

/// Planner settings `execute_with_settings` accepts (values `on`/`off`).
pub const PLANNER_SETTINGS: &[&str] = &[
    "enable_hashagg",
    "enable_sort",
    "enable_seqscan",
    "enable_indexscan",
    "enable_indexonlyscan",
    "enable_bitmapscan",
    "enable_hashjoin",
    "enable_mergejoin",
    "enable_nestloop",
    "enable_material",
    "enable_memoize",
    "enable_incremental_sort",
    "enable_gathermerge",
];

/// The bytes a row's values will take once decoded (as
/// [`Value::heap_size`] counts them), from the raw cells.
fn raw_row_size(row: &PgRow) -> usize {
    (0..row.len())
        .map(|i| {
            let raw = row
                .try_get_raw(i)
                .ok()
                .and_then(|r| r.as_bytes().ok().map(<[u8]>::len))
                .unwrap_or(0);
            std::mem::size_of::<Value>() + raw
        })
        .sum()
}

pub(crate) fn decode_row(row: &PgRow) -> Vec<Value> {
    (0..row.len()).map(|i| decode_cell(row, i)).collect()
}

fn decode_cell(row: &PgRow, i: usize) -> Value {
    let raw = match row.try_get_raw(i) {
        Ok(raw) => raw,
        Err(e) => return Value::Text(format!("<undecodable: {e}>")),
    };
    if raw.is_null() {
        return Value::Null;
    }
    let type_name = raw.type_info().name().to_string();
    let typed = match type_name.as_str() {
        "INT2" => row.try_get::<i16, _>(i).map(|v| Value::Int(v.into())),
        "INT4" => row.try_get::<i32, _>(i).map(|v| Value::Int(v.into())),
        "INT8" => row.try_get::<i64, _>(i).map(Value::Int),
        "FLOAT4" => row
            .try_get::<f32, _>(i)
            .map(|v| Value::Float(server::widen_f32(v))),
        "FLOAT8" => row.try_get::<f64, _>(i).map(Value::Float),
        "NUMERIC" => match raw.as_bytes().ok().and_then(numeric_text) {
            Some(text) => Ok(Value::Decimal(text)),
            None => row
                .try_get::<BigDecimal, _>(i)
                .map(|v| Value::Decimal(v.to_plain_string())),
        },
        "BYTEA" => row.try_get::<Vec<u8>, _>(i).map(Value::Bytes),
        // jsonb's binary form is a version byte, then the document's text
        // (the driver's text of it keeps the byte).
        "JSONB" => match raw.as_bytes() {
            Ok([1, doc @ ..]) if raw.format() == sqlx::postgres::PgValueFormat::Binary => {
                std::str::from_utf8(doc)
                    .map(|t| Value::Text(t.to_string()))
                    .map_err(|e| sqlx::Error::Decode(Box::new(e)))
            }
            _ => row.try_get::<String, _>(i).map(Value::Text),
        },
        "BOOL" => row.try_get::<bool, _>(i).map(Value::Bool),
        "DATE" => row
            .try_get::<chrono::NaiveDate, _>(i)
            .map(|v| Value::Date(server::date_text(v))),
        "TIME" => row
            .try_get::<chrono::NaiveTime, _>(i)
            .map(|v| Value::Time(server::time_text(v))),
        "TIMESTAMP" => row
            .try_get::<chrono::NaiveDateTime, _>(i)
            .map(|v| Value::Timestamp(server::timestamp_text(v))),
        "TIMESTAMPTZ" => row
            .try_get::<chrono::DateTime<chrono::Utc>, _>(i)
            .map(|v| Value::Timestamp(server::timestamp_text(v.naive_utc()))),
        // The one-byte `"char"` of the catalogues (the driver's name for
        // `character(n)` is `CHAR`).
        "\"CHAR\"" => row
            .try_get::<i8, _>(i)
            .map(|v| Value::Text(char::from(v as u8).to_string())),
        // `character(n)`: without the spaces it is padded with, which
        // PostgreSQL itself ignores when it compares, measures or
        // concatenates the value (and MySQL's `CHAR` drops when it is
        // read), so that `WHERE name = 'English'` finds it on every copy.
        "CHAR" => row
            .try_get::<String, _>(i)
            .map(|v| Value::Text(unpadded(v))),
        array if array.ends_with("[]") || array.starts_with('_') => {
            let binary = raw
                .as_bytes()
                .ok()
                .and_then(|b| binary_text::array_text(b, &element_text));
            match binary {
                Some(text) => Ok(Value::Text(text)),
                None => row.try_get::<String, _>(i).map(Value::Text),
            }
        }
        other => match raw
            .as_bytes()
            .ok()
            .and_then(|b| special_text(&other.to_ascii_lowercase(), b))
        {
            Some(text) => Ok(Value::Text(text)),
            None => row.try_get::<String, _>(i).map(Value::Text),
        },
    };
    typed.unwrap_or_else(|_| {
        let bytes = row.try_get_raw(i).ok().and_then(|r| r.as_bytes().ok());
        Value::Text(server::fallback_text(&type_name, bytes))
    })
}

/// A `character(n)` value without its trailing pad spaces.
fn unpadded(mut v: String) -> String {
    let kept = v.trim_end_matches(' ').len();
    v.truncate(kept);
    v
}

/// The text of a value of a type the driver gives only in binary
/// (`type_name` in lower case), as the server writes it.
fn special_text(type_name: &str, b: &[u8]) -> Option<String> {
    match type_name {
        "interval" => binary_text::interval_text(b),
        "money" => binary_text::money_text(b),
        "tsvector" => binary_text::tsvector_text(b),
        "inet" => binary_text::inet_text(b, false),
        "cidr" => binary_text::inet_text(b, true),
        "macaddr" | "macaddr8" => binary_text::macaddr_text(b),
        "bit" | "varbit" => binary_text::bit_text(b),
        "oid" => binary_text::oid_text(b),
        "timetz" => binary_text::timetz_text(b),
        "point" | "box" | "lseg" | "circle" | "polygon" | "path" | "line" => {
            binary_text::geometric_text(type_name, b)
        }
        // Ranges of the types whose binary form `element_text` reads.
        "int4range" => binary_text::range_text(b, &|v| element_text(23, v)),
        "int8range" => binary_text::range_text(b, &|v| element_text(20, v)),
        "numrange" => binary_text::range_text(b, &|v| element_text(1700, v)),
        "daterange" => binary_text::range_text(b, &|v| element_text(1082, v)),
        _ => None,
    }
}

/// An array element's text from its type's oid and binary value, as
/// `array_out` writes it before quoting; `None` for a type not read here.
fn element_text(oid: u32, b: &[u8]) -> Option<String> {
    let int = |b: &[u8]| -> Option<i64> {
        Some(match b.len() {
            2 => i16::from_be_bytes(b.try_into().ok()?).into(),
            4 => i32::from_be_bytes(b.try_into().ok()?).into(),
            8 => i64::from_be_bytes(b.try_into().ok()?),
            _ => return None,
        })
    };
    match oid {
        16 => Some(if *b.first()? != 0 { "t" } else { "f" }.into()),
        20 | 21 | 23 => int(b).map(|n| n.to_string()),
        700 => Some(f32::from_be_bytes(b.try_into().ok()?).to_string()),
        701 => Some(f64::from_be_bytes(b.try_into().ok()?).to_string()),
        // text, varchar, bpchar, name, json, xml
        25 | 1043 | 1042 | 19 | 114 | 142 => std::str::from_utf8(b).ok().map(str::to_string),
        // jsonb: a version byte, then its text
        3802 if b.first() == Some(&1) => std::str::from_utf8(&b[1..]).ok().map(str::to_string),
        1700 => numeric_text(b),
        1082 => {
            let days = i32::from_be_bytes(b.try_into().ok()?);
            // Days from 2000-01-01, PostgreSQL's epoch: day 730,120 of the
            // common era.
            let from_ce = days.checked_add(730_120)?;
            Some(server::date_text(
                chrono::NaiveDate::from_num_days_from_ce_opt(from_ce)?,
            ))
        }
        2950 if b.len() == 16 => Some(uuid_text(b)),
        1186 => binary_text::interval_text(b),
        790 => binary_text::money_text(b),
        3614 => binary_text::tsvector_text(b),
        _ => None,
    }
}

/// A UUID's 16 bytes as `uuid_out` writes them.
fn uuid_text(b: &[u8]) -> String {
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// Exact text of a binary NUMERIC (base-10000 digits, weight, sign and
/// display scale), keeping the scale the server reports (`3.50`, not the
/// `3.5000` a base-10000 decoding gives).
fn numeric_text(b: &[u8]) -> Option<String> {
    let word = |k: usize| -> Option<u16> { Some(u16::from_be_bytes([*b.get(k)?, *b.get(k + 1)?])) };
    let ndigits = word(0)? as usize;
    let weight = word(2)? as i16 as i64;
    let sign = word(4)?;
    let dscale = word(6)? as usize;
    match sign {
        0x0000 | 0x4000 => {}
        0xC000 => return Some("NaN".into()),
        0xD000 => return Some("Infinity".into()),
        0xF000 => return Some("-Infinity".into()),
        _ => return None,
    }
    let digits: Vec<u16> = (0..ndigits)
        .map(|k| word(8 + 2 * k))
        .collect::<Option<_>>()?;
    let digit = |k: i64| -> u16 {
        if k < 0 {
            0
        } else {
            digits.get(k as usize).copied().unwrap_or(0)
        }
    };
    let mut int = String::new();
    if weight >= 0 {
        for k in 0..=weight {
            if k == 0 {
                int.push_str(&digit(k).to_string());
            } else {
                int.push_str(&format!("{:04}", digit(k)));
            }
        }
    } else {
        int.push('0');
    }
    let mut frac = String::new();
    let mut k = weight + 1;
    while frac.len() < dscale {
        frac.push_str(&format!("{:04}", digit(k)));
        k += 1;
    }
    frac.truncate(dscale);
    let mut out = String::new();
    if sign == 0x4000 {
        out.push('-');
    }
    out.push_str(&int);
    if dscale > 0 {
        out.push('.');
        out.push_str(&frac);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    fn numeric(ndigits: u16, weight: i16, sign: u16, dscale: u16, digits: &[u16]) -> Vec<u8> {
        let mut b = Vec::new();
        for w in [ndigits, weight as u16, sign, dscale].iter().chain(digits) {
            b.extend_from_slice(&w.to_be_bytes());
        }
        b
    }

    #[test]
    fn explain_time_is_read() {
        let out = r#"[{"Plan": {"Node Type": "Seq Scan"}, "Planning Time": 0.2, "Triggers": [], "Execution Time": 1.25}]"#;
        assert_eq!(explain_execution_ms(out), Some(1.25));
        assert_eq!(explain_execution_ms("[{}]"), None);
        assert_eq!(explain_execution_ms("not json"), None);
    }

    #[test]
    fn numeric_keeps_scale() {
        assert_eq!(
            numeric_text(&numeric(2, 0, 0, 2, &[3, 5000])).unwrap(),
            "3.50"
        );
        assert_eq!(numeric_text(&numeric(1, 0, 0, 2, &[10])).unwrap(), "10.00");
        assert_eq!(
            numeric_text(&numeric(2, 1, 0x4000, 0, &[1, 2])).unwrap(),
            "-10002"
        );
        assert_eq!(
            numeric_text(&numeric(1, -2, 0, 6, &[1200])).unwrap(),
            "0.000012"
        );
        assert_eq!(numeric_text(&numeric(0, 0, 0, 3, &[])).unwrap(), "0.000");
        assert_eq!(numeric_text(&numeric(1, 1, 0, 0, &[5])).unwrap(), "50000");
    }

    use super::*;
}
