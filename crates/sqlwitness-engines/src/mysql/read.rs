//! The MySQL / MariaDB adapter (sqlx, feature `mysql`).
//!
//! Queries run over a login that should have `SELECT` on the benchmark
//! databases only (see [`super::login`]); the engine records what its
//! login may do beyond that ([`MysqlEngine::excess_privileges`]). Each query
//! runs after `USE \`<namespace>\`` inside `START TRANSACTION READ ONLY`
//! (and the session default is read-only too, so a DDL statement's implicit
//! commit cannot open a writable transaction), under a server-side
//! statement time limit (the dialect's `time_limit`: MariaDB
//! `max_statement_time`, MySQL `max_execution_time`). MySQL and MariaDB are
//! two engines on this one adapter, each with its dialect file; a server
//! whose `SELECT VERSION()` is the other one is refused. The query is
//! one prepared statement (`COM_STMT_PREPARE` accepts one statement only).
//!
//! Past its limit plus `CANCEL_MARGIN` the client kills the statement's
//! session (`KILL CONNECTION`: the connection is not used again) and waits
//! until the process list no longer shows it running. A result is bounded
//! in rows and bytes. MySQL cannot reset a session short of
//! `COM_RESET_CONNECTION`, which the driver does not send; user variables
//! are the one state a read-only query can leave (`@x := …` — the guard
//! refuses assignments, and named locks and
//! `LAST_INSERT_ID(x)` are denied functions), so a connection that ran any
//! text with an `@` is closed instead of returned to the pool.
//! Connection-level failures are retried with backoff and reported as
//! class `connection` when they persist.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::TryStreamExt;
use sqlwitness_core::{
    Collect, Column, Database, DbError, Engine, EngineInfo, EngineKind, ErrorClass, QueryLimits,
    ResultSet, RowSink, Timed, TimingMethod, Value,
};
use sqlwitness_dialect::Dialect;
use sqlx::mysql::{MySqlConnectOptions, MySqlDatabaseError, MySqlPool, MySqlPoolOptions, MySqlRow};
use sqlx::types::chrono;
use sqlx::{
    AssertSqlSafe, Column as _, ConnectOptions, Connection, Executor, Row, SqlSafeStr, Statement,
    TypeInfo, ValueRef,
};

use crate::server::{self, ConnGuard, Health, Running, CANCEL_MARGIN, END_WAIT};
use crate::EngineError;

/// Runs queries on a MySQL 8 or MariaDB server, one database per namespace.
pub struct MysqlEngine {
    info: EngineInfo,
    dialect: Arc<Dialect>,
    pool: MySqlPool,
    /// A second, small pool for killing and watching statements.
    control: MySqlPool,
    /// Tells a statement that ended its own session from a server fault.
    sentinel: server::Sentinel<sqlx::MySql>,
    excess: Vec<String>,
    health: Health,
    running: Running,
    /// Statements killed but still finishing (waited for on drop).
    finishing: server::Finishing,
    rt: tokio::runtime::Runtime,
}

impl Drop for MysqlEngine {
    fn drop(&mut self) {
        let this = &*self;
        this.rt.block_on(
            this.finishing
                .wait(|id| async move { !this.running_query(id).await }),
        );
    }
}

impl std::fmt::Debug for MysqlEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlEngine")
            .field("info", &self.info)
            .field("excess_privileges", &self.excess)
            .finish_non_exhaustive()
    }
}

impl MysqlEngine {
    /// [`MysqlEngine::connect_as`] with the shipped dialect of `kind`
    /// (`mysql` or `mariadb`).
    pub fn connect(
        kind: EngineKind,
        url: &str,
        max_connections: u32,
    ) -> Result<MysqlEngine, EngineError> {
        MysqlEngine::connect_as(sqlwitness_dialect::builtin(kind), url, max_connections)
    }

    /// Connects a pool of at most `max_connections` (at least 1) to `url`
    /// as the engine `dialect` describes, running its session statements on
    /// every new connection. A server that is not that engine (by its
    /// version) is refused.
    pub fn connect_as(
        dialect: Dialect,
        url: &str,
        max_connections: u32,
    ) -> Result<MysqlEngine, EngineError> {
        let kind = server::engine_of(&dialect, EngineKind::Mysql, url)?;
        let dialect = Arc::new(dialect);
        let rt = server::runtime().map_err(|e| EngineError::connect(kind, url, e))?;
        let options: MySqlConnectOptions = url
            .parse()
            .map_err(|e| EngineError::connect(kind, url, e))?;
        let mut session = dialect.session.clone();
        session.push("SET SESSION TRANSACTION READ ONLY".to_string());
        let opts = options.clone();
        let sentinel_opts = options.clone();
        // One direct connection first: it fails fast where the pool would
        // retry until its acquire timeout, and the server is identified
        // before the dialect's session statements run (MariaDB's would
        // fail on MySQL).
        let (version, user, excess) = rt
            .block_on(async {
                let mut first = opts.connect().await?;
                let user: String = sqlx::query_scalar("SELECT CAST(CURRENT_USER() AS CHAR)")
                    .fetch_one(&mut first)
                    .await?;
                let version: String = sqlx::query_scalar("SELECT VERSION()")
                    .fetch_one(&mut first)
                    .await?;
                let excess = super::mysql_excess_privileges(&mut first).await?;
                first.close().await?;
                Ok::<_, sqlx::Error>((version, user, excess))
            })
            .map_err(|e| EngineError::connect(kind, url, e))?;
        server::check_identity(kind, &dialect, url, &version)?;
        let (pool, control, sentinel) = rt
            .block_on(async {
                let pool_options = |n: u32| {
                    let session = session.clone();
                    MySqlPoolOptions::new()
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
                let pool = pool_options(max_connections.max(1))
                    .connect_with(opts.clone())
                    .await?;
                let control = pool_options(2).connect_lazy_with(opts);
                let sentinel = server::Sentinel::start(move || {
                    let opts = sentinel_opts.clone();
                    Box::pin(async move {
                        let mut conn = opts.connect().await?;
                        // An idle session must not end on its own (a year).
                        let _ = conn.execute("SET SESSION wait_timeout = 31536000").await;
                        Ok(conn)
                    })
                })
                .await?;
                Ok::<_, sqlx::Error>((pool, control, sentinel))
            })
            .map_err(|e| EngineError::connect(kind, url, e))?;
        let login = server::login_text(&user, &excess);
        Ok(MysqlEngine {
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

    /// What the login may do beyond `SELECT` on databases (global
    /// privileges such as `FILE` or `SUPER`, the `mysql` schema, writes);
    /// empty for a least-privilege login.
    pub fn excess_privileges(&self) -> &[String] {
        &self.excess
    }

    fn db_error(&self, e: sqlx::Error) -> DbError {
        if let Some(db) = e.as_database_error() {
            let message = db.message().to_string();
            let code = db
                .try_downcast_ref::<MySqlDatabaseError>()
                .map(|m| m.number().to_string());
            let class = self.dialect.classify(code.as_deref(), &message);
            return DbError::new(class, code, message);
        }
        server::driver_error(e)
    }

    fn time_limit_sql(&self, timeout: Duration) -> String {
        self.dialect
            .time_limit_sql(timeout)
            .unwrap_or_else(|| "DO 0".to_string())
    }

    /// Stops the statement running on connection `id` by ending its
    /// session (`KILL CONNECTION`), then waits until the process list no
    /// longer shows it running a query (the session is gone, or shown
    /// `Killed`: it stops at its next check for a kill). Every caller has
    /// given that connection up (it is closed, never reused), so killing
    /// only the query would keep nothing; and `KILL QUERY` leaves a
    /// statement that is sending rows to a client no longer reading them
    /// shown running for hundreds of milliseconds and more under load.
    /// Returns how it ended.
    async fn stop_thread(&self, id: u64) -> &'static str {
        if id == 0 {
            return "no connection was known";
        }
        let _ = self
            .control
            .execute(sqlx::raw_sql(AssertSqlSafe(format!(
                "KILL CONNECTION {id}"
            ))))
            .await;
        if server::stops_within(END_WAIT, || self.running_query(id)).await {
            return "killed on the server with its session";
        }
        // Reported now; waited for before the engine goes.
        self.finishing.add(id);
        "still running after its session was killed on the server"
    }

    /// Whether connection `id` is running a statement (yes when unknown).
    async fn running_query(&self, id: u64) -> bool {
        sqlx::query_scalar::<_, i64>(
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST \
             WHERE ID = ? AND COMMAND NOT IN ('Sleep', 'Killed')",
        )
        .bind(id)
        .fetch_one(&self.control)
        .await
        .map(|n| n > 0)
        .unwrap_or(true)
    }

    /// Runs `sql` in `db`'s namespace within `limits`. With `profile`, the
    /// session profiles its statements (`SET profiling = 1`) and the
    /// statement's duration in milliseconds is stored there (as `f64`
    /// bits); the connection is then closed, not returned to the pool.
    async fn run(
        &self,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
        conn_id: &AtomicU64,
        profile: Option<&AtomicU64>,
        sink: &RefCell<&mut dyn RowSink>,
    ) -> Result<(), DbError> {
        let conn = self.pool.acquire().await.map_err(|e| self.db_error(e))?;
        let mut guard = ConnGuard::new(conn);
        let setup = format!(
            "USE {}; {}; {}START TRANSACTION READ ONLY",
            self.dialect.identifiers.quote(&db.namespace),
            self.time_limit_sql(limits.timeout),
            if profile.is_some() {
                "SET SESSION profiling = 1; "
            } else {
                ""
            }
        );
        let setup = async {
            guard
                .conn()
                .execute(sqlx::raw_sql(AssertSqlSafe(setup)))
                .await?;
            sqlx::query_scalar::<_, u64>("SELECT CONNECTION_ID()")
                .fetch_one(guard.conn())
                .await
        };
        match setup.await {
            Ok(id) => conn_id.store(id, Ordering::Relaxed),
            Err(e) => {
                let err = self.db_error(e);
                rollback(guard, false).await;
                return Err(err);
            }
        }
        let sentinel_epoch = self.sentinel.epoch();
        let Some(_running) = self.running.enter(conn_id.load(Ordering::Relaxed)) else {
            guard.discard();
            return Err(server::closed_error());
        };
        // Session state a query can leave lives in user variables (`@x`);
        // a profiled session keeps its profile.
        let tainted = sql.contains('@') || profile.is_some();
        let began = Instant::now();
        match self.query(&mut guard, db, sql, limits, sink).await {
            Ok(rs) => {
                let profiled = match profile {
                    Some(out) => match self.profiled_ms(&mut guard).await {
                        Ok(ms) => {
                            out.store(ms.to_bits(), Ordering::Relaxed);
                            Ok(())
                        }
                        Err(e) => Err(e),
                    },
                    None => Ok(()),
                };
                rollback(guard, tainted).await;
                profiled?;
                server::within_limit(Ok(rs), began, limits.timeout)
            }
            Err((err, true)) => {
                rollback(guard, tainted).await;
                Err(err)
            }
            Err((err, false)) if self.running.is_closed() => {
                // The run is being interrupted: the cancellation stops this
                // statement (it was in its snapshot), and the failure is the
                // interruption's, not the server's.
                guard.discard();
                Err(err)
            }
            Err((err, false)) => {
                guard.discard();
                self.stop_thread(conn_id.load(Ordering::Relaxed)).await;
                Err(self.sentinel.attribute(err, sentinel_epoch).await)
            }
        }
    }

    async fn query(
        &self,
        guard: &mut ConnGuard<sqlx::MySql>,
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
        let mut first = true;
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
            if std::mem::take(&mut first) {
                // The executed statement's metadata is authoritative.
                let columns = row
                    .columns()
                    .iter()
                    .map(|c| Column::new(c.name(), Some(c.type_info().name().to_string())))
                    .collect();
                sink.borrow_mut().columns(columns);
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

    /// The duration of the session's last profiled statement that carries
    /// the query key ([`server::keyed_sql`]), in milliseconds.
    async fn profiled_ms(&self, guard: &mut ConnGuard<sqlx::MySql>) -> Result<f64, DbError> {
        let rows = guard
            .conn()
            .fetch_all(sqlx::raw_sql("SHOW PROFILES"))
            .await
            .map_err(|e| self.db_error(e))?;
        rows.iter()
            .rev()
            .find_map(|r| {
                let query = r.try_get_unchecked::<String, _>(2).ok()?;
                if !query.contains(server::KEY_MARK) {
                    return None;
                }
                let seconds = r
                    .try_get_unchecked::<String, _>(1)
                    .ok()
                    .and_then(|d| d.parse::<f64>().ok())
                    .or_else(|| r.try_get_unchecked::<f64, _>(1).ok())?;
                Some(seconds * 1000.0)
            })
            .ok_or_else(|| {
                DbError::new(
                    ErrorClass::Other,
                    None,
                    "the session's profile does not show the statement",
                )
            })
    }

    /// A query error and whether the connection is still usable.
    fn query_error(&self, e: sqlx::Error) -> (DbError, bool) {
        let err = self.db_error(e);
        let keep = err.class != ErrorClass::Connection;
        (err, keep)
    }
}

/// Prepared statements a connection may hold before it is retired.
///
/// sqlx evicts the least recently used statement once its per-connection
/// cache (100 by default) is full, sending `COM_STMT_CLOSE`, which has no
/// reply; sqlx does not set `TCP_NODELAY`, so the next command then waits for
/// the server's delayed ACK (about 40 ms on Linux). Every query here has its
/// own text, so the cache fills after 100 queries and every later query paid
/// those 40 ms. Retiring the connection before the cache is full avoids the
/// eviction altogether; a new connection costs well under a millisecond.
const STATEMENT_BUDGET: usize = 90;

/// Rolls back and returns the connection to the pool, or closes it when it
/// may hold session state (`retire`) or its statement cache is nearly full.
async fn rollback(mut guard: ConnGuard<sqlx::MySql>, retire: bool) {
    match guard.conn().execute(sqlx::raw_sql("ROLLBACK")).await {
        Ok(_) if !retire && guard.conn().cached_statements_size() < STATEMENT_BUDGET => {
            guard.release()
        }
        _ => guard.discard(),
    }
}

impl Engine for MysqlEngine {
    fn info(&self) -> &EngineInfo {
        &self.info
    }

    fn cancel_running(&self) {
        let ids = self.running.close();
        if !ids.is_empty() {
            let stops = ids.into_iter().map(|id| self.stop_thread(id));
            self.rt.block_on(futures_util::future::join_all(stops));
        }
    }

    fn execute(
        &self,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
    ) -> Result<ResultSet, DbError> {
        Collect::rows(limits, |sink| self.execute_into(db, sql, limits, sink))
    }

    fn execute_into(
        &self,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
        sink: &mut dyn RowSink,
    ) -> Result<(), DbError> {
        self.execute_profiled(db, sql, limits, None, sink)
    }

    fn time(&self, db: &Database, sql: &str, limits: &QueryLimits) -> Result<Timed, DbError> {
        let limit_ms = limits.timeout.as_secs_f64() * 1000.0;
        let ms = match self.dialect.timing {
            Some(TimingMethod::MysqlExplainAnalyze) => {
                // The same guarded, read-only, time-limited run; EXPLAIN
                // ANALYZE executes the statement to its end on the server
                // and sends only the plan with its times.
                let rs = self.execute(db, &format!("EXPLAIN ANALYZE\n{sql}"), limits)?;
                rs.rows
                    .first()
                    .and_then(|r| r.first())
                    .and_then(|v| match v {
                        Value::Text(t) => explain_analyze_ms(t),
                        _ => None,
                    })
                    .ok_or_else(|| {
                        DbError::new(
                            ErrorClass::Other,
                            None,
                            "EXPLAIN ANALYZE gave no actual time",
                        )
                    })?
            }
            Some(TimingMethod::MariadbProfile) => {
                let out = AtomicU64::new(0);
                Collect::rows(limits, |sink| {
                    self.execute_profiled(db, sql, limits, Some(&out), sink)
                })?;
                f64::from_bits(out.load(Ordering::Relaxed))
            }
            _ => return sqlwitness_core::time_by_client(self, db, sql, limits),
        };
        // MySQL's time limit ends EXPLAIN ANALYZE early without an error.
        if ms >= limit_ms {
            return Err(DbError::timeout(format!(
                "the statement ran {ms:.0} ms (limit {limit_ms:.0} ms)"
            )));
        }
        Ok(Timed {
            ms,
            method: self.dialect.timing.unwrap_or(TimingMethod::ClientWall),
        })
    }
}

impl MysqlEngine {
    /// [`Engine::execute`], with `profile` as [`MysqlEngine::run`] takes it.
    fn execute_profiled(
        &self,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
        profile: Option<&AtomicU64>,
        sink: &mut dyn RowSink,
    ) -> Result<(), DbError> {
        let sink = RefCell::new(sink);
        let deadline = limits.timeout + CANCEL_MARGIN;
        self.rt.block_on(self.health.retry(|| async {
            let conn_id = AtomicU64::new(0);
            let started = Instant::now();
            let run = self.run(db, sql, limits, &conn_id, profile, &sink);
            let timed = tokio::select! {
                timed = tokio::time::timeout(deadline, run) => timed,
                // An interrupted run does not wait for the server to honour
                // the kill (MariaDB finishes the row or the function it is
                // in first, up to a second or more): the statement was
                // killed by the cancellation, and its connection is closed
                // here, never reused.
                () = self.running.closed() => return Err(server::closed_error()),
            };
            match timed {
                Ok(r) => r,
                Err(_) => {
                    let how = self.stop_thread(conn_id.load(Ordering::Relaxed)).await;
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

/// The root iterator's time in milliseconds from `EXPLAIN ANALYZE`'s tree:
/// the end of the first `(actual time=FIRST..LAST rows=R loops=L)`, times
/// its loops.
fn explain_analyze_ms(tree: &str) -> Option<f64> {
    let at = tree.find("actual time=")? + "actual time=".len();
    let rest = &tree[at..];
    let end = rest.find(')')?;
    let mut fields = rest[..end].split_whitespace();
    let last: f64 = fields.next()?.split("..").nth(1)?.parse().ok()?;
    let loops: f64 = fields
        .find_map(|f| f.strip_prefix("loops="))
        .and_then(|l| l.parse().ok())
        .unwrap_or(1.0);
    Some(last * loops)
}

/// The bytes a row's values will take once decoded (as
/// [`Value::heap_size`] counts them), from the raw cells.
fn raw_row_size(row: &MySqlRow) -> usize {
    (0..row.len())
        .map(|i| {
            let raw = row
                .try_get_unchecked::<&[u8], _>(i)
                .map(<[u8]>::len)
                .unwrap_or(0);
            std::mem::size_of::<Value>() + raw
        })
        .sum()
}

pub(crate) fn decode_row(row: &MySqlRow) -> Vec<Value> {
    (0..row.len()).map(|i| decode_cell(row, i)).collect()
}

fn decode_cell(row: &MySqlRow, i: usize) -> Value {
    let raw = match row.try_get_raw(i) {
        Ok(raw) => raw,
        Err(e) => return Value::Text(format!("<undecodable: {e}>")),
    };
    let type_name = raw.type_info().name().to_string();
    let date_like = matches!(type_name.as_str(), "DATE" | "DATETIME" | "TIMESTAMP");
    if raw.is_null() {
        // The driver reads a zero date as NULL; MySQL shows it.
        let zero = date_like
            .then(|| row.try_get_unchecked::<Vec<u8>, _>(i).ok())
            .flatten()
            .filter(|b| b.first() == Some(&0));
        return zero
            .and_then(|b| out_of_calendar(&type_name, &b))
            .unwrap_or(Value::Null);
    }
    let typed: Result<Value, sqlx::Error> = match type_name.as_str() {
        "BOOLEAN" | "TINYINT" | "SMALLINT" | "INT" | "MEDIUMINT" | "BIGINT" | "YEAR" => {
            row.try_get_unchecked::<i64, _>(i).map(Value::Int)
        }
        "TINYINT UNSIGNED" | "SMALLINT UNSIGNED" | "INT UNSIGNED" | "MEDIUMINT UNSIGNED"
        | "BIGINT UNSIGNED" | "BIT" => row.try_get_unchecked::<u64, _>(i).map(|v| {
            i64::try_from(v)
                .map(Value::Int)
                .unwrap_or_else(|_| Value::Decimal(v.to_string()))
        }),
        "FLOAT" => row
            .try_get::<f32, _>(i)
            .map(|v| Value::Float(server::widen_f32(v))),
        "DOUBLE" => row.try_get::<f64, _>(i).map(Value::Float),
        "DECIMAL" => row.try_get_unchecked::<String, _>(i).map(Value::Decimal),
        "DATE" => row
            .try_get::<chrono::NaiveDate, _>(i)
            .map(|v| Value::Date(server::date_text(v))),
        "TIME" => row.try_get::<sqlx::mysql::types::MySqlTime, _>(i).map(|t| {
            let text = server::hms(
                t.hours(),
                t.minutes().into(),
                t.seconds().into(),
                t.microseconds(),
            );
            // Not `is_negative()`: sqlx 0.9.0 returns `is_positive()` there.
            let negative = matches!(t.sign(), sqlx::mysql::types::MySqlTimeSign::Negative);
            Value::Time(if negative { format!("-{text}") } else { text })
        }),
        // Both reach the client in the same form; a TIMESTAMP in the
        // session's time zone (UTC).
        "DATETIME" | "TIMESTAMP" => row
            .try_get_unchecked::<chrono::NaiveDateTime, _>(i)
            .map(|v| Value::Timestamp(server::timestamp_text(v))),
        "JSON" => row
            .try_get_unchecked::<Vec<u8>, _>(i)
            .map(|b| Value::Text(String::from_utf8_lossy(&b).into_owned())),
        // Character and binary strings: text unless the charset is binary.
        _ => row
            .try_get::<String, _>(i)
            .map(Value::Text)
            .or_else(|_| row.try_get::<Vec<u8>, _>(i).map(Value::Bytes)),
    };
    typed.unwrap_or_else(|_| {
        let bytes = row.try_get_unchecked::<Vec<u8>, _>(i).ok();
        if let Some(v) = bytes
            .as_deref()
            .filter(|_| date_like)
            .and_then(|b| out_of_calendar(&type_name, b))
        {
            return v;
        }
        Value::Text(server::fallback_text(&type_name, bytes.as_deref()))
    })
}

/// A date or datetime no calendar holds (`0000-00-00`, `2020-00-15`: a
/// dump loaded without `NO_ZERO_DATE`/`NO_ZERO_IN_DATE` keeps them), from
/// the binary protocol's bytes (a length, then the year, month, day, hour,
/// minute, second and microseconds), as MySQL itself shows it.
fn out_of_calendar(type_name: &str, b: &[u8]) -> Option<Value> {
    let (&len, rest) = b.split_first()?;
    if rest.len() != usize::from(len) || !matches!(len, 0 | 4 | 7 | 11) {
        return None;
    }
    let at = |i: usize| rest.get(i).copied().map_or(0, u32::from);
    let year = at(0) | (at(1) << 8);
    let date = format!("{year:04}-{:02}-{:02}", at(2), at(3));
    if type_name == "DATE" {
        return Some(Value::Date(date));
    }
    let micros = at(7) | (at(8) << 8) | (at(9) << 16) | (at(10) << 24);
    let time = server::hms(at(4), at(5), at(6), micros);
    Some(Value::Timestamp(format!("{date} {time}")))
}

#[cfg(test)]
mod tests {
    use sqlwitness_core::Value;

    #[test]
    fn dates_no_calendar_holds_read_as_mysql_shows_them() {
        let read = super::out_of_calendar;
        assert_eq!(read("DATE", &[0]), Some(Value::Date("0000-00-00".into())));
        assert_eq!(
            read("DATE", &[4, 0xe4, 0x07, 0, 15]),
            Some(Value::Date("2020-00-15".into()))
        );
        assert_eq!(
            read("DATETIME", &[0]),
            Some(Value::Timestamp("0000-00-00 00:00:00".into()))
        );
        assert_eq!(
            read("TIMESTAMP", &[7, 0xe4, 0x07, 2, 0, 5, 6, 7]),
            Some(Value::Timestamp("2020-02-00 05:06:07".into()))
        );
        assert_eq!(
            read(
                "DATETIME",
                &[11, 0xe4, 0x07, 2, 0, 5, 6, 7, 0x20, 0xa1, 0x07, 0]
            ),
            Some(Value::Timestamp("2020-02-00 05:06:07.500000".into()))
        );
        // Text, or bytes of another shape, are not read so.
        assert_eq!(read("DATE", b"2020-00-15"), None);
        assert_eq!(read("DATE", &[4, 1, 2]), None);
    }

    #[test]
    fn explain_analyze_time_is_the_roots() {
        let tree = "-> Limit: 2 row(s)  (cost=135..135 rows=2) (actual time=0.125..0.5 rows=2 loops=1)\n    -> Sort  (actual time=0.124..0.124 rows=2 loops=1)\n";
        assert_eq!(super::explain_analyze_ms(tree), Some(0.5));
        let tiny = "-> Rows fetched before execution  (cost=0..0 rows=1) (actual time=40e-6..80e-6 rows=1 loops=1)\n";
        assert_eq!(super::explain_analyze_ms(tiny), Some(80e-6));
        assert_eq!(
            super::explain_analyze_ms("-> Table scan (never executed)"),
            None
        );
    }
}
