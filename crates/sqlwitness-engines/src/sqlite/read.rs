//! The SQLite adapter (rusqlite, blocking, always built).
//!
//! Every database file is opened read-only, with `PRAGMA query_only`, no
//! attachable databases and an authorizer that admits only reads, so a
//! predicted query cannot change or escape the benchmark database.
//!
//! Limits: a progress handler checks the deadline every thousand VM steps
//! and a watchdog thread interrupts the connection at the deadline (which
//! also stops a long parse); no string or blob may grow past the result's
//! byte limit (`SQLITE_LIMIT_LENGTH`), so one function call cannot spend
//! seconds and gigabytes between two VM steps; the process's SQLite heap is
//! capped ([`SQLITE_HEAP_LIMIT`], `PRAGMA hard_heap_limit`); a result is
//! bounded in rows and bytes. Connections are cached per path
//! (take/return), which keeps a gold self-check over a thousand queries
//! well under a second; nothing a read-only query does outlives it. A
//! cached connection keeps its shared lock on the file until the run ends
//! (not on a WAL file), so a run reads one state of each file and a writer
//! waits for it.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::watchdog::watchdog;
use std::time::{Duration, Instant};

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, ErrorCode, InterruptHandle, OpenFlags};
use sqlwitness_core::{
    Collect, Column, Database, DbError, Engine, EngineInfo, EngineKind, ErrorClass, QueryLimits,
    ResultSet, RowSink, ScriptTimed, Timed, TimingMethod, Value,
};
use sqlwitness_dialect::Dialect;

/// Idle connections kept per database file.
const MAX_IDLE_PER_PATH: usize = 8;
/// VM instructions between two deadline checks.
const PROGRESS_STEPS: i32 = 1000;

/// The hard limit on SQLite's heap for the whole process (1 GiB): an
/// allocation past it fails the statement with `SQLITE_NOMEM`
/// (`resource_limit`) instead of exhausting the machine.
pub const SQLITE_HEAP_LIMIT: i64 = 1 << 30;

/// PRAGMAs a query may run: they only read schema information (not
/// `database_list`, which names the database file's path on the machine).
const READ_ONLY_PRAGMAS: &[&str] = &[
    "table_info",
    "table_xinfo",
    "table_list",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
    "collation_list",
];

type Deadline = Arc<Mutex<Option<Instant>>>;

struct PooledConn {
    conn: Connection,
    deadline: Deadline,
}

/// Runs queries on SQLite database files, read-only.
pub struct SqliteEngine {
    info: EngineInfo,
    dialect: Arc<Dialect>,
    idle: Mutex<HashMap<PathBuf, Vec<PooledConn>>>,
    /// Statements running now, to interrupt on [`Engine::cancel_running`].
    running: Mutex<BTreeMap<u64, InterruptHandle>>,
    next_running: std::sync::atomic::AtomicU64,
    /// Set by [`Engine::cancel_running`]: no statement starts any more.
    cancelled: std::sync::atomic::AtomicBool,
}

impl Default for SqliteEngine {
    fn default() -> Self {
        SqliteEngine::new()
    }
}

impl std::fmt::Debug for SqliteEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteEngine")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl SqliteEngine {
    /// An engine with the built-in SQLite dialect.
    pub fn new() -> SqliteEngine {
        SqliteEngine::with_dialect(sqlwitness_dialect::builtin(EngineKind::Sqlite))
    }

    /// An engine with a given (e.g. edited) dialect.
    pub fn with_dialect(dialect: Dialect) -> SqliteEngine {
        SqliteEngine {
            info: EngineInfo {
                kind: EngineKind::Sqlite,
                version: format!("SQLite {}", rusqlite::version()),
                login: None,
            },
            dialect: Arc::new(dialect),
            idle: Mutex::new(HashMap::new()),
            running: Mutex::new(BTreeMap::new()),
            next_running: std::sync::atomic::AtomicU64::new(0),
            cancelled: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn take(&self, path: &Path) -> Result<PooledConn, DbError> {
        let cached = {
            let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
            idle.get_mut(path).and_then(Vec::pop)
        };
        match cached {
            Some(c) => Ok(c),
            None => self.open(path, true),
        }
    }

    fn give_back(&self, path: &Path, conn: PooledConn) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        let list = idle.entry(path.to_path_buf()).or_default();
        if list.len() < MAX_IDLE_PER_PATH {
            list.push(conn);
        }
    }

    /// A new connection to `path`; a `pooled` one holds its shared lock
    /// ([`hold_shared_lock`]).
    fn open(&self, path: &Path, pooled: bool) -> Result<PooledConn, DbError> {
        let conn = open_read_only(path)?;
        static HEAP_LIMIT: OnceLock<()> = OnceLock::new();
        HEAP_LIMIT.get_or_init(|| {
            // Process-wide; a failure leaves SQLite's default (no limit).
            let _ = conn.execute_batch(&format!("PRAGMA hard_heap_limit = {SQLITE_HEAP_LIMIT}"));
        });
        for stmt in &self.dialect.session {
            conn.execute_batch(stmt)
                .map_err(|e| self.db_error(e, Some(path)))?;
        }
        conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)
            .map_err(|e| self.db_error(e, Some(path)))?;
        if pooled {
            hold_shared_lock(&conn).map_err(|e| self.db_error(e, Some(path)))?;
        }
        let dialect = Arc::clone(&self.dialect);
        conn.authorizer(Some(move |ctx: AuthContext<'_>| authorize(&dialect, &ctx)));
        let deadline: Deadline = Arc::new(Mutex::new(None));
        let d = Arc::clone(&deadline);
        conn.progress_handler(
            PROGRESS_STEPS,
            Some(move || {
                let guard = d.lock().unwrap_or_else(|e| e.into_inner());
                guard.is_some_and(|t| Instant::now() >= t)
            }),
        );
        Ok(PooledConn { conn, deadline })
    }

    fn db_error(&self, e: rusqlite::Error, path: Option<&Path>) -> DbError {
        sqlite_error(&self.dialect, e, path)
    }

    /// Caps the size of a string or blob the next statement on `pc` makes
    /// at the limits' `max_bytes` (at least 1 MiB).
    fn limit_length(&self, pc: &PooledConn, limits: &QueryLimits) -> Result<(), DbError> {
        let length = i32::try_from(limits.max_bytes.max(1 << 20)).unwrap_or(i32::MAX);
        pc.conn
            .set_limit(Limit::SQLITE_LIMIT_LENGTH, length)
            .map_err(|e| self.db_error(e, None))?;
        Ok(())
    }

    /// Runs `sql` on `pc`, handing its rows to `sink`: the time spent
    /// stepping the statement (`sqlite3_step`, to the last row), without
    /// preparing it or reading its values.
    fn run(
        &self,
        pc: &PooledConn,
        sql: &str,
        limits: &QueryLimits,
        sink: &mut dyn RowSink,
    ) -> Result<Duration, DbError> {
        self.limit_length(pc, limits)?;
        let mut stmt = pc.conn.prepare(sql).map_err(|e| self.db_error(e, None))?;
        let columns: Vec<Column> = stmt
            .columns()
            .iter()
            .map(|c| Column::new(c.name(), c.decl_type().map(str::to_string)))
            .collect();
        let ncol = columns.len();
        sink.columns(columns);
        let mut rows = stmt.query([]).map_err(|e| self.db_error(e, None))?;
        let mut stepping = Duration::ZERO;
        loop {
            let step = Instant::now();
            let next = rows.next();
            stepping += step.elapsed();
            let Some(row) = next.map_err(|e| self.db_error(e, None))? else {
                break;
            };
            let mut values = Vec::with_capacity(ncol);
            for i in 0..ncol {
                let v = row.get_ref(i).map_err(|e| self.db_error(e, None))?;
                values.push(sqlite_value(v));
            }
            let bytes = values.iter().map(Value::heap_size).sum::<usize>();
            sink.row(values, bytes)?;
        }
        Ok(stepping)
    }

    /// [`SqliteEngine::run`] on a pooled connection of `db`'s file under
    /// the deadline of `limits`.
    fn run_limited(
        &self,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
        sink: &mut dyn RowSink,
    ) -> Result<Duration, DbError> {
        self.check_cancelled()?;
        let path = db.sqlite_path.as_path();
        let pc = self.take(path)?;
        let result = self.limited(&pc, limits, || self.run(&pc, sql, limits, sink));
        self.give_back(path, pc);
        self.check_cancelled()?;
        result
    }

    /// An error when [`Engine::cancel_running`] was called.
    fn check_cancelled(&self) -> Result<(), DbError> {
        if self.cancelled.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(DbError::new(
                ErrorClass::Connection,
                None,
                "the run was interrupted: the statement was not run to its end",
            ));
        }
        Ok(())
    }

    /// `work` on `pc` under the deadline of `limits`, interruptible by
    /// [`Engine::cancel_running`].
    fn limited<T>(
        &self,
        pc: &PooledConn,
        limits: &QueryLimits,
        work: impl FnOnce() -> Result<T, DbError>,
    ) -> Result<T, DbError> {
        use std::sync::atomic::Ordering;
        let deadline = Instant::now() + limits.timeout;
        set_deadline(&pc.deadline, Some(deadline));
        let handle = pc.conn.get_interrupt_handle();
        let ticket = watchdog().arm(deadline, Box::new(move || handle.interrupt()));
        let id = self.next_running.fetch_add(1, Ordering::SeqCst);
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, pc.conn.get_interrupt_handle());
        // A cancel between the caller's check and the registration.
        let result = self.check_cancelled().and_then(|()| work());
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
        watchdog().disarm(ticket);
        set_deadline(&pc.deadline, None);
        result
    }

    /// Runs `sql` on a new connection to `db`'s file, as BIRD's official
    /// VES scripts run it with Python's `sqlite3`, under the deadline of
    /// `limits`: BIRD dev's time is preparing (on a new connection, the
    /// schema is read then) and stepping to the first row (`cursor.execute`);
    /// mini-dev's runs on the connection just opened (with the dialect's
    /// session statements), from preparing to closing it, every row stepped
    /// and read (`execute`, `fetchall`, `close`: the script starts its clock
    /// after `connect`).
    fn run_as_scripts(
        &self,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
    ) -> Result<ScriptTimed, DbError> {
        self.check_cancelled()?;
        let pc = self.open(db.sqlite_path.as_path(), false)?;
        let session = Instant::now();
        let execute = self.limited(&pc, limits, || {
            let mut rows = Collect::new(limits);
            self.run_to_first_row(&pc, sql, limits, &mut rows)
        })?;
        drop(pc);
        let session = session.elapsed();
        self.check_cancelled()?;
        Ok(ScriptTimed {
            execute_ms: execute.as_secs_f64() * 1000.0,
            session_ms: session.as_secs_f64() * 1000.0,
        })
    }

    /// Prepares `sql` on `pc` and steps it to its end, handing its rows to
    /// `sink`; returns the time from the start of preparing to the first
    /// row (or to the end, when there is none).
    fn run_to_first_row(
        &self,
        pc: &PooledConn,
        sql: &str,
        limits: &QueryLimits,
        sink: &mut dyn RowSink,
    ) -> Result<Duration, DbError> {
        self.limit_length(pc, limits)?;
        let started = Instant::now();
        let mut stmt = pc.conn.prepare(sql).map_err(|e| self.db_error(e, None))?;
        let ncol = stmt.column_count();
        let mut rows = stmt.query([]).map_err(|e| self.db_error(e, None))?;
        let mut execute = None;
        while let Some(row) = rows.next().map_err(|e| self.db_error(e, None))? {
            execute.get_or_insert_with(|| started.elapsed());
            let mut values = Vec::with_capacity(ncol);
            for i in 0..ncol {
                let v = row.get_ref(i).map_err(|e| self.db_error(e, None))?;
                values.push(sqlite_value(v));
            }
            let bytes = values.iter().map(Value::heap_size).sum::<usize>();
            sink.row(values, bytes)?;
        }
        Ok(execute.unwrap_or_else(|| started.elapsed()))
    }
}

impl Engine for SqliteEngine {
    fn info(&self) -> &EngineInfo {
        &self.info
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
        self.run_limited(db, sql, limits, sink).map(|_| ())
    }

    fn time(&self, db: &Database, sql: &str, limits: &QueryLimits) -> Result<Timed, DbError> {
        let mut rows = Collect::new(limits);
        let stepping = self.run_limited(db, sql, limits, &mut rows)?;
        Ok(Timed {
            ms: stepping.as_secs_f64() * 1000.0,
            method: TimingMethod::SqliteSteps,
        })
    }

    fn time_as_scripts(
        &self,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
    ) -> Result<Option<ScriptTimed>, DbError> {
        self.run_as_scripts(db, sql, limits).map(Some)
    }

    /// Interrupts every statement running now (SQLite stops it at its next
    /// step, or before its first), and refuses every later one: an
    /// interrupted run ends within a step, not when its slowest query does.
    fn cancel_running(&self) {
        self.cancelled
            .store(true, std::sync::atomic::Ordering::SeqCst);
        for handle in self
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
        {
            handle.interrupt();
        }
    }
}

/// Keeps the shared lock a read takes for a pooled connection's life (`PRAGMA
/// locking_mode = EXCLUSIVE`, which on a connection that only reads holds
/// no more than that): a query then neither locks and unlocks the file nor
/// looks for a hot journal nor reads the change counter again, about eight
/// system calls a query. Other readers read on; a writer waits until the
/// run's connections close, so a run reads one state of the file. Not in
/// WAL mode, where the same setting would take the file from every other
/// connection, this run's included. (Not on the connection a query is timed
/// on as the official scripts time it: that one is new, and reads the
/// schema while the query is prepared, as theirs does.)
fn hold_shared_lock(conn: &Connection) -> rusqlite::Result<()> {
    let journal: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
    if !journal.eq_ignore_ascii_case("wal") {
        conn.execute_batch("PRAGMA locking_mode = EXCLUSIVE")?;
    }
    Ok(())
}

fn set_deadline(deadline: &Deadline, value: Option<Instant>) {
    *deadline.lock().unwrap_or_else(|e| e.into_inner()) = value;
}

pub(crate) fn open_read_only(path: &Path) -> Result<Connection, DbError> {
    if !path.is_file() {
        return Err(DbError::new(
            ErrorClass::Other,
            None,
            format!("SQLite database file not found: {}", path.display()),
        ));
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    Connection::open_with_flags(path, flags).map_err(|e| {
        DbError::new(
            ErrorClass::Other,
            sqlite_code(&e),
            format!("cannot open {} read-only: {e}", path.display()),
        )
    })
}

/// The authorizer: reads, selects, recursive CTEs, read-only PRAGMAs and
/// functions the dialect does not deny; nothing else.
fn authorize(dialect: &Dialect, ctx: &AuthContext<'_>) -> Authorization {
    match ctx.action {
        AuthAction::Select | AuthAction::Read { .. } | AuthAction::Recursive => {
            Authorization::Allow
        }
        AuthAction::Function { function_name } => {
            if dialect.denies_function(function_name) {
                Authorization::Deny
            } else {
                Authorization::Allow
            }
        }
        AuthAction::Pragma {
            pragma_name,
            pragma_value,
        } => {
            let name = pragma_name.to_ascii_lowercase();
            let reads = READ_ONLY_PRAGMAS.contains(&name.as_str())
                || (name == "query_only" && pragma_value.is_none());
            if reads {
                Authorization::Allow
            } else {
                Authorization::Deny
            }
        }
        _ => Authorization::Deny,
    }
}

/// A SQLite value as a typed [`Value`]: the one mapping every reader of
/// SQLite files uses (text is read as UTF-8, invalid bytes replaced).
pub fn sqlite_value(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Int(i),
        ValueRef::Real(f) => Value::Float(f),
        ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Value::Bytes(b.to_vec()),
    }
}

/// The result code name of an error (`SQLITE_ERROR`, `SQLITE_INTERRUPT` …).
fn sqlite_code(e: &rusqlite::Error) -> Option<String> {
    let code = match e {
        rusqlite::Error::SqlInputError { error, .. } => error.code,
        other => other.sqlite_error_code()?,
    };
    let name = match code {
        ErrorCode::InternalMalfunction => "SQLITE_INTERNAL",
        ErrorCode::PermissionDenied => "SQLITE_PERM",
        ErrorCode::OperationAborted => "SQLITE_ABORT",
        ErrorCode::DatabaseBusy => "SQLITE_BUSY",
        ErrorCode::DatabaseLocked => "SQLITE_LOCKED",
        ErrorCode::OutOfMemory => "SQLITE_NOMEM",
        ErrorCode::ReadOnly => "SQLITE_READONLY",
        ErrorCode::OperationInterrupted => "SQLITE_INTERRUPT",
        ErrorCode::SystemIoFailure => "SQLITE_IOERR",
        ErrorCode::DatabaseCorrupt => "SQLITE_CORRUPT",
        ErrorCode::NotFound => "SQLITE_NOTFOUND",
        ErrorCode::DiskFull => "SQLITE_FULL",
        ErrorCode::CannotOpen => "SQLITE_CANTOPEN",
        ErrorCode::FileLockingProtocolFailed => "SQLITE_PROTOCOL",
        ErrorCode::SchemaChanged => "SQLITE_SCHEMA",
        ErrorCode::TooBig => "SQLITE_TOOBIG",
        ErrorCode::ConstraintViolation => "SQLITE_CONSTRAINT",
        ErrorCode::TypeMismatch => "SQLITE_MISMATCH",
        ErrorCode::ApiMisuse => "SQLITE_MISUSE",
        ErrorCode::NoLargeFileSupport => "SQLITE_NOLFS",
        ErrorCode::AuthorizationForStatementDenied => "SQLITE_AUTH",
        ErrorCode::ParameterOutOfRange => "SQLITE_RANGE",
        ErrorCode::NotADatabase => "SQLITE_NOTADB",
        _ => "SQLITE_ERROR",
    };
    Some(name.to_string())
}

pub(crate) fn sqlite_error(dialect: &Dialect, e: rusqlite::Error, path: Option<&Path>) -> DbError {
    let code = sqlite_code(&e);
    let message = match &e {
        rusqlite::Error::SqliteFailure(_, Some(msg)) => msg.clone(),
        rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
        other => other.to_string(),
    };
    let message = match path {
        Some(p) => format!("{}: {message}", p.display()),
        None => message,
    };
    let class = dialect.classify(code.as_deref(), &message);
    DbError::new(class, code, message)
}

/// Checks that SQLite can use the database at `path`, at a cost that does
/// not grow with its data: it opens read-only, its schema parses, and
/// every table (virtual ones included: their module must exist) can be
/// prepared for reading. The error carries SQLite's code
/// (`SQLITE_NOTADB`, `SQLITE_CORRUPT`, `SQLITE_CANTOPEN` …).
pub fn sqlite_probe(path: &Path) -> Result<(), DbError> {
    let dialect = sqlwitness_dialect::shipped(EngineKind::Sqlite);
    let conn = open_read_only(path)?;
    let err = |e| sqlite_error(dialect, e, Some(path));
    let names: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")
        .map_err(err)?
        .query_map([], |r| r.get::<_, String>(0))
        .map_err(err)?
        .collect::<Result<_, _>>()
        .map_err(err)?;
    for name in names {
        let quoted = name.replace('"', "\"\"");
        conn.prepare(&format!("SELECT * FROM \"{quoted}\" LIMIT 0"))
            .map_err(|e| {
                let mut e = sqlite_error(dialect, e, Some(path));
                e.message = format!("table {name:?}: {}", e.message);
                e
            })?;
    }
    Ok(())
}

/// Table names and their column names, exactly as declared, in schema order
/// (internal `sqlite_*` tables left out). Opens the file read-only.
pub fn sqlite_schema_names(path: &Path) -> Result<Vec<(String, Vec<String>)>, DbError> {
    let dialect = sqlwitness_dialect::shipped(EngineKind::Sqlite);
    let conn = open_read_only(path)?;
    let err = |e| sqlite_error(dialect, e, Some(path));
    let mut tables = conn
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' \
             AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid",
        )
        .map_err(err)?;
    let names: Vec<String> = tables
        .query_map([], |r| r.get::<_, String>(0))
        .map_err(err)?
        .collect::<Result<_, _>>()
        .map_err(err)?;
    let mut cols = conn
        .prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid")
        .map_err(err)?;
    let mut out = Vec::with_capacity(names.len());
    for table in names {
        let columns: Vec<String> = cols
            .query_map([&table], |r| r.get::<_, String>(0))
            .map_err(err)?
            .collect::<Result<_, _>>()
            .map_err(err)?;
        out.push((table, columns));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authorizer_denies_writes_and_denied_functions() {
        let d = sqlwitness_dialect::builtin(EngineKind::Sqlite);
        let ctx = |action| AuthContext {
            action,
            database_name: None,
            accessor: None,
        };
        assert_eq!(
            authorize(&d, &ctx(AuthAction::Select)),
            Authorization::Allow
        );
        assert_eq!(
            authorize(
                &d,
                &ctx(AuthAction::Function {
                    function_name: "LOAD_EXTENSION"
                })
            ),
            Authorization::Deny
        );
        assert_eq!(
            authorize(
                &d,
                &ctx(AuthAction::Pragma {
                    pragma_name: "query_only",
                    pragma_value: Some("0")
                })
            ),
            Authorization::Deny
        );
        assert_eq!(
            authorize(&d, &ctx(AuthAction::Attach { filename: "x.db" })),
            Authorization::Deny
        );
    }

    #[test]
    fn missing_file_names_the_path() {
        let e = SqliteEngine::new()
            .execute(
                &Database::new("nope", "/nonexistent/nope.sqlite"),
                "SELECT 1",
                &QueryLimits::default(),
            )
            .unwrap_err();
        assert_eq!(e.class, ErrorClass::Other);
        assert!(e.message.contains("/nonexistent/nope.sqlite"), "{e}");
    }

    fn file_with(journal_mode: &str) -> (tempfile::TempDir, Database) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.sqlite");
        let c = Connection::open(&path).unwrap();
        c.query_row(&format!("PRAGMA journal_mode = {journal_mode}"), [], |_| {
            Ok(())
        })
        .unwrap();
        c.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2);")
            .unwrap();
        drop(c);
        let db = Database::new("t", path);
        (dir, db)
    }

    fn count(e: &SqliteEngine, db: &Database) -> Value {
        let rs = e
            .execute(db, "SELECT count(*) FROM t", &QueryLimits::default())
            .unwrap();
        rs.rows[0][0].clone()
    }

    /// SQLite's math functions answer, as they do in Python's sqlite3
    /// (the official evaluators' SQLite).
    #[test]
    fn math_functions_answer_as_in_pythons_sqlite() {
        let (_dir, db) = file_with("delete");
        let rs = SqliteEngine::new()
            .execute(
                &db,
                "SELECT sqrt(16), power(2, 10), floor(2.5), ceil(2.5), ln(1), log10(100)",
                &QueryLimits::default(),
            )
            .unwrap();
        assert_eq!(
            rs.rows[0],
            [4.0, 1024.0, 2.0, 3.0, 0.0, 2.0].map(Value::Float).to_vec()
        );
    }

    /// A run's pooled connections keep their shared lock between queries:
    /// a writer elsewhere waits until they close, and the run reads one
    /// state of the file; afterwards the file is as writable as before.
    #[test]
    fn pooled_connections_hold_the_file_for_the_run() {
        let (_dir, db) = file_with("delete");
        let e = SqliteEngine::new();
        assert_eq!(count(&e, &db), Value::Int(2));
        let writer = Connection::open(&db.sqlite_path).unwrap();
        writer.busy_timeout(Duration::ZERO).unwrap();
        let err = writer
            .execute_batch("INSERT INTO t VALUES (3)")
            .unwrap_err();
        assert_eq!(
            err.sqlite_error_code(),
            Some(ErrorCode::DatabaseBusy),
            "{err}"
        );
        assert_eq!(count(&e, &db), Value::Int(2));
        drop(e);
        writer.execute_batch("INSERT INTO t VALUES (3)").unwrap();
        assert_eq!(count(&SqliteEngine::new(), &db), Value::Int(3));
    }

    /// A WAL-mode file is read by several connections of one run at once
    /// (the pool's and a timing's own), and stays writable meanwhile.
    #[test]
    fn a_wal_file_is_shared_by_every_connection() {
        let (_dir, db) = file_with("wal");
        let e = SqliteEngine::new();
        let a = e.take(&db.sqlite_path).unwrap();
        let b = e.take(&db.sqlite_path).unwrap();
        for pc in [&a, &b] {
            let n: i64 = pc
                .conn
                .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
                .unwrap();
            assert_eq!(n, 2);
        }
        e.give_back(&db.sqlite_path, a);
        e.give_back(&db.sqlite_path, b);
        assert!(e
            .time_as_scripts(&db, "SELECT * FROM t", &QueryLimits::default())
            .unwrap()
            .is_some());
        let writer = Connection::open(&db.sqlite_path).unwrap();
        writer.execute_batch("INSERT INTO t VALUES (3)").unwrap();
        assert_eq!(count(&e, &db), Value::Int(3));
    }
}
