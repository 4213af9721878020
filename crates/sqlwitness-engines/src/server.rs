//! Pieces shared by the server adapters (PostgreSQL, MySQL): the runtime
//! they bridge on, statement-cache keys, connection guards and text forms of
//! dates and times.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use sqlwitness_core::{DbError, ErrorClass};
use sqlx::pool::PoolConnection;
use sqlx::types::chrono;
use sqlx::Database as SqlxDatabase;

/// Time past the query's limit after which the client stops the statement
/// itself (the server's own limit normally fires first).
pub(crate) const CANCEL_MARGIN: Duration = Duration::from_millis(200);

/// How long the PostgreSQL client waits for a cancelled statement to stop
/// before it ends the session; then up to [`END_WAIT`] for the session to
/// end. A backend deep in one long operation notices either only between
/// steps (PostgreSQL's `length()` of a 500 MB aggregate counts its
/// characters for about 3.5 s on a 2.5 GHz Xeon without one): the statement
/// is reported as soon as it has stopped, and at most about its limit +
/// 1 s. One that has not stopped by then has had its session ended on the
/// server, which it obeys at its next step; its connection is closed, never
/// reused, and the engine waits for it to go before the run ends
/// ([`Finishing`]). Cancelling first matters there: a cancelled backend is
/// idle as soon as its statement stops, while a terminated one is shown
/// active until its process has exited, freeing all it held. (MySQL and
/// MariaDB show a killed session `Killed` at once: their client ends the
/// session straight away.)
pub(crate) const CANCEL_WAIT: Duration = Duration::from_millis(300);

/// How long the client waits for a session it ended to go away (a killed
/// MySQL or MariaDB session is shown `Killed` at once; a PostgreSQL backend
/// that ignored its cancel for [`CANCEL_WAIT`] is one that does not stop
/// between steps, and is waited for at the end of the run).
pub(crate) const END_WAIT: Duration = Duration::from_millis(500);

/// Whether a statement the client stopped is seen stopped within `wait`:
/// `running` (the server's own view of the session, yes when unknown) is
/// asked at once, then every 20 ms.
pub(crate) async fn stops_within<F, Fut>(wait: Duration, mut running: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let until = Instant::now() + wait;
    while Instant::now() < until {
        if !running().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

/// How long getting a pooled connection may take before it counts as a
/// connection failure (and is retried).
pub(crate) const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(3);

/// Waits between attempts after a connection-level failure: about 16 s in
/// all, enough for a server restart.
pub(crate) const RETRY_DELAYS: [Duration; 7] = [
    Duration::from_millis(100),
    Duration::from_millis(250),
    Duration::from_millis(500),
    Duration::from_secs(1),
    Duration::from_secs(2),
    Duration::from_secs(4),
    Duration::from_secs(8),
];

/// Whether a server is answering. A query that fails at the connection
/// level is retried on a fresh connection with backoff
/// ([`RETRY_DELAYS`]); when it still fails, the engine is marked down and
/// later queries get a single attempt each (no backoff) until one succeeds,
/// so a server that stays away costs seconds, not minutes per question.
#[derive(Debug, Default)]
pub(crate) struct Health {
    down: AtomicBool,
}

impl Health {
    pub(crate) async fn retry<T, F, Fut>(&self, mut attempt_once: F) -> Result<T, DbError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, DbError>>,
    {
        let started = Instant::now();
        let mut attempts = 0usize;
        loop {
            let result = attempt_once().await;
            attempts += 1;
            match result {
                Err(e) if e.class == ErrorClass::Connection => {
                    let delay = if self.down.load(Ordering::Relaxed) {
                        None
                    } else {
                        RETRY_DELAYS.get(attempts - 1)
                    };
                    if let Some(d) = delay {
                        tokio::time::sleep(*d).await;
                        continue;
                    }
                    self.down.store(true, Ordering::Relaxed);
                    return Err(DbError::new(
                        ErrorClass::Connection,
                        e.code,
                        format!(
                            "{} ({attempts} attempt{} over {:.1} s)",
                            e.message,
                            if attempts == 1 { "" } else { "s" },
                            started.elapsed().as_secs_f64()
                        ),
                    ));
                }
                other => {
                    self.down.store(false, Ordering::Relaxed);
                    return other;
                }
            }
        }
    }
}

/// A result that came back only once the query's time limit had passed is
/// a timeout, whatever it holds: MySQL's `BENCHMARK()` and an interrupted
/// `SLEEP()` return a row when `max_execution_time` stops them.
pub(crate) fn within_limit<T>(
    result: Result<T, DbError>,
    started: Instant,
    limit: Duration,
) -> Result<T, DbError> {
    let took = started.elapsed();
    match result {
        Ok(_) if took >= limit => Err(DbError::timeout(format!(
            "stopped at its limit ({} ms) after {} ms; what it returned then is not its result",
            limit.as_millis(),
            took.as_millis()
        ))),
        other => other,
    }
}

/// How long the sentinel's check may take.
const SENTINEL_TIMEOUT: Duration = Duration::from_secs(2);

/// A connection an engine opens at connect time and keeps idle, only to
/// tell who ended a session that died under a running statement.
///
/// A server restart, a crash recovery (PostgreSQL ends every backend) or a
/// network outage ends the sentinel's session too; a statement that ends
/// its own session (a backend that terminates itself, a connection killed
/// from inside the query) leaves the sentinel alone. So when a statement's
/// session dies and the sentinel still answers on the *same* connection,
/// the fault follows the query: it is the query's error, not retried and
/// never left out of the score. When the sentinel is gone too, the failure
/// is the server's: a connection failure, retried; the sentinel is opened
/// again for the next time. A fast restart answers new connections at once,
/// so "the server answers" alone cannot tell the two apart; the sentinel's
/// own session can.
pub(crate) struct Sentinel<DB: SqlxDatabase> {
    /// The sentinel's connection and its generation (see [`Sentinel::epoch`]).
    conn: tokio::sync::Mutex<Option<(u64, DB::Connection)>>,
    /// The generation of the connection in `conn`, 0 while there is none;
    /// read without the lock when a statement starts.
    epoch: std::sync::atomic::AtomicU64,
    /// The last generation handed out.
    opened: std::sync::atomic::AtomicU64,
    open: Box<
        dyn Fn() -> futures_util::future::BoxFuture<'static, Result<DB::Connection, sqlx::Error>>
            + Send
            + Sync,
    >,
}

impl<DB: SqlxDatabase> Sentinel<DB> {
    /// A sentinel that opens its connection with `open` (now, and again
    /// after a server fault).
    pub(crate) async fn start<F>(open: F) -> Result<Self, sqlx::Error>
    where
        F: Fn() -> futures_util::future::BoxFuture<'static, Result<DB::Connection, sqlx::Error>>
            + Send
            + Sync
            + 'static,
    {
        let conn = open().await?;
        Ok(Sentinel {
            conn: tokio::sync::Mutex::new(Some((1, conn))),
            epoch: std::sync::atomic::AtomicU64::new(1),
            opened: std::sync::atomic::AtomicU64::new(1),
            open: Box::new(open),
        })
    }

    /// The generation of the sentinel's session now (0: none is open). A
    /// statement reads it once its own session is established; only that
    /// same session surviving the statement's failure clears the server.
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::SeqCst)
    }

    /// Whether the sentinel's session of generation `since` survived
    /// (checked on that very connection). A session opened later proves
    /// nothing: the outage that ended the statement's session may have
    /// ended the sentinel's of that time too, and another statement's check
    /// opened a new one since. When the checked session is gone, a new one
    /// is opened for next time.
    async fn survived(&self, since: u64) -> bool {
        use sqlx::Connection;
        let mut slot = self.conn.lock().await;
        match slot.as_mut() {
            Some((epoch, _)) if *epoch != since => return false,
            Some((_, conn)) => {
                if matches!(
                    tokio::time::timeout(SENTINEL_TIMEOUT, conn.ping()).await,
                    Ok(Ok(()))
                ) {
                    return true;
                }
            }
            None => {}
        }
        *slot = None;
        self.epoch.store(0, Ordering::SeqCst);
        if let Ok(Ok(conn)) = tokio::time::timeout(SENTINEL_TIMEOUT, (self.open)()).await {
            let epoch = self.opened.fetch_add(1, Ordering::SeqCst) + 1;
            *slot = Some((epoch, conn));
            self.epoch.store(epoch, Ordering::SeqCst);
        }
        false
    }

    /// Judges a failure of a statement that was running on an established
    /// session (see [`Sentinel`]); `since` is the [`Sentinel::epoch`] read
    /// once that session was established. A connection-level failure while
    /// the sentinel's session of that time survived is the query's own
    /// error (class `other`); anything else is returned as it is.
    pub(crate) async fn attribute(&self, err: DbError, since: u64) -> DbError {
        if err.class != ErrorClass::Connection {
            return err;
        }
        own_session_ended(err, self.survived(since).await)
    }
}

/// The error of a statement whose session ended: the query's own when the
/// server's other sessions survived it (`others_survived`), else unchanged.
fn own_session_ended(err: DbError, others_survived: bool) -> DbError {
    if !others_survived {
        return err;
    }
    DbError::new(
        ErrorClass::Other,
        err.code,
        format!(
            "the query's own session ended while it ran, and the server's other sessions did \
             not: the query's doing ({})",
            err.message
        ),
    )
}

/// The server-side ids (PostgreSQL backend pids, MySQL connection ids) of
/// the queries an engine is running now, so that an interrupted run can
/// stop them on the server instead of leaving them to their time limit.
/// Once [`Running::close`]d, no query may start: the registry and the flag
/// share one lock, so a query either is in the snapshot the cancel stops
/// or is refused; and a client still waiting for a statement's answer is
/// woken ([`Running::closed`]) to let it go.
#[derive(Debug, Default)]
pub(crate) struct Running {
    state: std::sync::Mutex<(Vec<u64>, bool)>,
    closing: tokio::sync::Notify,
}

impl Running {
    /// Records `id` as running until the returned guard drops; `None` once
    /// the engine is closed (the caller must not run the query).
    pub(crate) fn enter(&self, id: u64) -> Option<RunningGuard<'_>> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.1 {
            return None;
        }
        state.0.push(id);
        Some(RunningGuard { running: self, id })
    }

    /// Closes the engine to new queries; the ids running now.
    pub(crate) fn close(&self) -> Vec<u64> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.1 = true;
        let ids = state.0.clone();
        drop(state);
        self.closing.notify_waiters();
        ids
    }

    /// Whether the engine was closed (the run is being interrupted).
    pub(crate) fn is_closed(&self) -> bool {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).1
    }

    /// Resolves once the engine is closed.
    pub(crate) async fn closed(&self) {
        loop {
            let notified = self.closing.notified();
            let mut notified = std::pin::pin!(notified);
            // Registered before the flag is read: a close in between wakes it.
            notified.as_mut().enable();
            if self.is_closed() {
                return;
            }
            notified.await;
        }
    }
}

/// Statements whose session the client ended but that had not stopped when
/// their timeout was reported (a backend deep in one long step obeys at its
/// next): the engine waits for them when it is dropped, up to
/// [`FINISHING_WAIT`], so that a run never ends with a statement of its own
/// still running on a server.
#[derive(Debug, Default)]
pub(crate) struct Finishing {
    ids: std::sync::Mutex<Vec<u64>>,
}

/// How long a dropped engine waits for the statements it ended to go.
pub(crate) const FINISHING_WAIT: Duration = Duration::from_secs(30);

impl Finishing {
    pub(crate) fn add(&self, id: u64) {
        self.ids.lock().unwrap_or_else(|e| e.into_inner()).push(id);
    }

    /// Waits until `gone(id)` says each recorded statement has stopped, or
    /// [`FINISHING_WAIT`] has passed.
    pub(crate) async fn wait<F, Fut>(&self, gone: F)
    where
        F: Fn(u64) -> Fut,
        Fut: Future<Output = bool>,
    {
        let ids = std::mem::take(&mut *self.ids.lock().unwrap_or_else(|e| e.into_inner()));
        let until = Instant::now() + FINISHING_WAIT;
        for id in ids {
            while Instant::now() < until && !gone(id).await {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// The error of a query refused because the run is being interrupted.
pub(crate) fn closed_error() -> DbError {
    DbError::new(
        ErrorClass::Other,
        None,
        "the run is being interrupted: no new query starts",
    )
}

pub(crate) struct RunningGuard<'a> {
    running: &'a Running,
    id: u64,
}

impl Drop for RunningGuard<'_> {
    fn drop(&mut self) {
        let mut state = self.running.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = state.0.iter().position(|&x| x == self.id) {
            state.0.swap_remove(i);
        }
    }
}

/// A driver error that carries no database code: connection-level
/// failures (I/O, TLS, pool timeouts, a closed pool, a crashed worker) are
/// class `connection`; the rest `other`.
pub(crate) fn driver_error(e: sqlx::Error) -> DbError {
    let class = match &e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => ErrorClass::Connection,
        _ => ErrorClass::Other,
    };
    DbError::new(class, None, e.to_string())
}

/// The report's account of a login: its name and whether it has more than
/// read access.
pub(crate) fn login_text(user: &str, excess: &[String]) -> String {
    // A run login's name is new every run; the report names the kind.
    let name = user.split('@').next().unwrap_or(user);
    let shown = if crate::login::run_login_created(name).is_some() {
        format!("{}* (this run's own login)", crate::login::RUN_LOGIN_PREFIX)
    } else {
        user.to_string()
    };
    let user = shown.as_str();
    if excess.is_empty() {
        format!("{user}: least privilege (read access only)")
    } else {
        format!("{user}: PRIVILEGED ({})", excess.join("; "))
    }
}

/// The small multi-thread runtime a server engine owns; `execute` blocks on
/// it from the caller's (non-runtime) worker thread.
pub(crate) fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("sqlwitness-engine")
        .enable_all()
        .build()
}

/// A current-thread runtime for a blocking caller of one session at a time
/// (a migration, a dump's load, a source read).
pub(crate) fn blocking_runtime() -> Result<tokio::runtime::Runtime, DbError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| DbError::connection(format!("cannot start a runtime: {e}")))
}

/// How every query text [`keyed_sql`] sends begins.
pub(crate) const KEY_MARK: &str = "/* sqlwitness ns=";

/// The query text as sent: prefixed with a comment naming the namespace, so
/// that the driver's per-connection prepared-statement cache (keyed by the
/// text) never reuses a statement prepared against another schema/database
/// whose tables have other column types.
pub(crate) fn keyed_sql(namespace: &str, sql: &str) -> String {
    let tag: String = namespace
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c.to_string()
            } else {
                format!("~{:x}", c as u32)
            }
        })
        .collect();
    format!("{KEY_MARK}{tag} */ {sql}")
}

/// Holds a pooled connection while a query runs. If the query's future is
/// dropped (the client-side backstop timeout) the connection is closed
/// instead of returned to the pool, as its state is unknown; `discard` does
/// the same deliberately (e.g. a result cut off at the row limit).
pub(crate) struct ConnGuard<DB: SqlxDatabase> {
    conn: Option<PoolConnection<DB>>,
}

impl<DB: SqlxDatabase> ConnGuard<DB> {
    pub(crate) fn new(conn: PoolConnection<DB>) -> Self {
        ConnGuard { conn: Some(conn) }
    }

    pub(crate) fn conn(&mut self) -> &mut DB::Connection {
        self.conn
            .as_mut()
            .expect("connection present until release")
    }

    /// Returns the connection to the pool.
    pub(crate) fn release(mut self) {
        self.conn.take();
    }

    /// Closes the connection instead of returning it.
    pub(crate) fn discard(self) {
        // Drop with the connection still inside.
    }
}

impl<DB: SqlxDatabase> Drop for ConnGuard<DB> {
    fn drop(&mut self) {
        if let Some(mut c) = self.conn.take() {
            c.close_on_drop();
        }
    }
}

/// `HH:MM:SS[.ffffff]` from parts (microseconds only when non-zero).
pub(crate) fn hms(h: u32, m: u32, s: u32, micros: u32) -> String {
    if micros == 0 {
        format!("{h:02}:{m:02}:{s:02}")
    } else {
        format!("{h:02}:{m:02}:{s:02}.{micros:06}")
    }
}

pub(crate) fn date_text(d: chrono::NaiveDate) -> String {
    d.format("%Y-%m-%d").to_string()
}

pub(crate) fn time_text(t: chrono::NaiveTime) -> String {
    // `%f` is the nanosecond part, zero-padded to nine digits.
    let nanos: u32 = t.format("%f").to_string().parse().unwrap_or(0);
    let micros = nanos / 1000;
    if micros == 0 {
        t.format("%H:%M:%S").to_string()
    } else {
        format!("{}.{micros:06}", t.format("%H:%M:%S"))
    }
}

pub(crate) fn timestamp_text(t: chrono::NaiveDateTime) -> String {
    format!("{} {}", date_text(t.date()), time_text(t.time()))
}

pub(crate) use crate::values::widen_f32;

/// Lossy text of raw bytes for types the adapter does not know.
pub(crate) fn fallback_text(type_name: &str, bytes: Option<&[u8]>) -> String {
    match bytes {
        Some(b) => match std::str::from_utf8(b) {
            Ok(s) => s.to_string(),
            Err(_) => format!("<{type_name} {b:02x?}>"),
        },
        None => format!("<{type_name}>"),
    }
}

/// The engine a dialect file describes (`fallback`, the adapter's own
/// engine, names it in the error when the file names none).
pub(crate) fn engine_of(
    dialect: &sqlwitness_dialect::Dialect,
    fallback: sqlwitness_core::EngineKind,
    url: &str,
) -> Result<sqlwitness_core::EngineKind, crate::EngineError> {
    sqlwitness_core::EngineKind::parse(&dialect.name)
        .ok_or_else(|| crate::EngineError::connect(fallback, url, "unknown dialect"))
}

/// Refuses a server whose `version` is not the engine `dialect` describes
/// (a MariaDB URL given for `mysql`).
pub(crate) fn check_identity(
    kind: sqlwitness_core::EngineKind,
    dialect: &sqlwitness_dialect::Dialect,
    url: &str,
    version: &str,
) -> Result<(), crate::EngineError> {
    if dialect.server.matches(version) {
        return Ok(());
    }
    Err(crate::EngineError::WrongServer {
        engine: kind,
        url: crate::mask_url(url),
        version: version.to_string(),
    })
}

/// The rows a server returned as a result: the columns named by the first
/// row (none without rows), each row decoded by the engine's `decode`.
pub(crate) fn result_set<R: sqlx::Row>(
    rows: &[R],
    decode: fn(&R) -> Vec<sqlwitness_core::Value>,
) -> sqlwitness_core::ResultSet {
    use sqlx::Column as _;
    let columns = rows
        .first()
        .map(|r| {
            r.columns()
                .iter()
                .map(|c| sqlwitness_core::Column::new(c.name(), None))
                .collect()
        })
        .unwrap_or_default();
    sqlwitness_core::ResultSet::new(columns, rows.iter().map(decode).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_session_is_the_query_s_only_when_the_others_survived() {
        let lost = || DbError::new(ErrorClass::Connection, None, "connection reset");
        let own = own_session_ended(lost(), true);
        assert_eq!(own.class, ErrorClass::Other);
        assert!(
            own.message.contains("the query's doing (connection reset)"),
            "{own}"
        );
        let server = own_session_ended(lost(), false);
        assert_eq!(server.class, ErrorClass::Connection);
        assert_eq!(server.message, "connection reset");
    }

    #[test]
    fn keys_and_texts() {
        assert_eq!(
            keyed_sql("a_b", "SELECT 1"),
            "/* sqlwitness ns=a_b */ SELECT 1"
        );
        assert_eq!(keyed_sql("x*/y", "S"), "/* sqlwitness ns=x~2a~2fy */ S");
        assert_eq!(hms(1, 2, 3, 0), "01:02:03");
        assert_eq!(hms(1, 2, 3, 500), "01:02:03.000500");
        let ts = chrono::NaiveDate::from_ymd_opt(2020, 1, 2)
            .unwrap()
            .and_hms_micro_opt(3, 4, 5, 6)
            .unwrap();
        assert_eq!(timestamp_text(ts), "2020-01-02 03:04:05.000006");
    }
}
