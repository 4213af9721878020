//! The engine abstraction every adapter implements.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::{Column, DbError, ResultSet};

/// An engine sqlwitness knows: a name in the engine registry. What each
/// one is (its adapter, transport, quoting, limits, errors, features) is
/// data, in `dialects/<name>.yaml`; code asks its `Dialect`, never which
/// engine it is.
///
/// The built-in engines ([`EngineKind::BUILTIN`]) are those of the shipped
/// dialect files: the four the code names at fixed places, then one for
/// every other file in `dialects/` (its constant written by the build
/// script: `EngineKind::Foo` for `foo.yaml`). Another is added at
/// run time by [`EngineKind::register`] (with its dialect file registered in
/// `sqlwitness-dialect` and its adapter's factory in `sqlwitness-engines`).
/// Matching on an engine is matching on these constants, so every `match`
/// has an arm for the engines it does not name.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EngineKind(u16);

#[allow(non_upper_case_globals)]
impl EngineKind {
    pub const Sqlite: EngineKind = EngineKind(0);
    pub const Postgres: EngineKind = EngineKind(1);
    pub const Mysql: EngineKind = EngineKind(2);
    pub const Mariadb: EngineKind = EngineKind(3);
}

// The engines of the other shipped dialect files (their constants, the
// registry's built-in entries, `EngineKind::BUILTIN`): written by build.rs
// from the names of the files in `dialects/`.
include!(concat!(env!("OUT_DIR"), "/engines.rs"));

/// One registry entry: the engine's name and the other spellings it is
/// known by.
struct Entry {
    name: &'static str,
    aliases: &'static [&'static str],
}

/// Engines registered at run time, after the built-in ones.
static REGISTERED: std::sync::RwLock<Vec<Entry>> = std::sync::RwLock::new(Vec::new());

/// Why [`EngineKind::register`] refused a name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegisterError {
    #[error("engine name `{0}` is not a lower-case word (a-z, 0-9, _)")]
    BadName(String),
    #[error("engine `{0}` is registered already")]
    Taken(String),
}

impl EngineKind {
    fn with_entry<T>(self, f: impl FnOnce(&Entry) -> T) -> Option<T> {
        let i = usize::from(self.0);
        if let Some(e) = BUILTIN.get(i) {
            return Some(f(e));
        }
        let reg = REGISTERED.read().unwrap_or_else(|p| p.into_inner());
        reg.get(i - BUILTIN.len()).map(f)
    }

    /// Every engine: the built-in ones, then those registered, in order.
    pub fn all() -> Vec<EngineKind> {
        let n = REGISTERED.read().unwrap_or_else(|p| p.into_inner()).len();
        (0..BUILTIN.len() + n)
            .map(|i| EngineKind(i as u16))
            .collect()
    }

    /// Adds an engine named `name` to the registry (its name is how flags,
    /// files and reports spell it). The name is a lower-case word, and not
    /// one an engine is known by already.
    pub fn register(name: &str) -> Result<EngineKind, RegisterError> {
        let ok = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !ok {
            return Err(RegisterError::BadName(name.to_string()));
        }
        let mut reg = REGISTERED.write().unwrap_or_else(|p| p.into_inner());
        let taken = BUILTIN
            .iter()
            .chain(reg.iter())
            .any(|e| e.name == name || e.aliases.contains(&name));
        if taken {
            return Err(RegisterError::Taken(name.to_string()));
        }
        reg.push(Entry {
            name: Box::leak(name.to_string().into_boxed_str()),
            aliases: &[],
        });
        Ok(EngineKind((BUILTIN.len() + reg.len() - 1) as u16))
    }

    pub fn as_str(self) -> &'static str {
        self.with_entry(|e| e.name).unwrap_or("")
    }

    pub fn parse(s: &str) -> Option<EngineKind> {
        let s = s.trim().to_ascii_lowercase();
        EngineKind::all().into_iter().find(|k| {
            k.with_entry(|e| e.name == s || e.aliases.contains(&s.as_str()))
                .unwrap_or(false)
        })
    }

    /// The engine a benchmark's files are in unless a run names another
    /// (`--reference`): the one the others are migrated from and compared
    /// with.
    pub const REFERENCE: EngineKind = EngineKind::Sqlite;

    /// The engine's name and the other spellings it is known by
    /// (`postgres`, `postgresql`, `pg`).
    pub fn spellings(self) -> Vec<&'static str> {
        self.with_entry(|e| {
            std::iter::once(e.name)
                .chain(e.aliases.iter().copied())
                .collect()
        })
        .unwrap_or_default()
    }

    /// The names of every engine, comma-separated (for messages).
    pub fn names() -> String {
        EngineKind::all()
            .into_iter()
            .map(EngineKind::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The environment variable naming this engine's server URL
    /// (`SQLWITNESS_MARIADB_URL`).
    pub fn url_env(self) -> String {
        format!("SQLWITNESS_{}_URL", self.as_str().to_ascii_uppercase())
    }

    /// The environment variable naming this engine's reader login URL.
    pub fn reader_url_env(self) -> String {
        format!(
            "SQLWITNESS_{}_READER_URL",
            self.as_str().to_ascii_uppercase()
        )
    }
}

/// `Postgres`: the engine's name with a capital, as `{:?}` prints it.
impl fmt::Debug for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.as_str();
        let mut chars = name.chars();
        match chars.next() {
            Some(c) => write!(f, "{}{}", c.to_ascii_uppercase(), chars.as_str()),
            None => write!(f, "EngineKind({})", self.0),
        }
    }
}

impl Serialize for EngineKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for EngineKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        EngineKind::parse(&s).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown engine `{s}` (known: {})",
                EngineKind::names()
            ))
        })
    }
}

impl fmt::Display for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The longest namespace every server accepts (PostgreSQL: 63 bytes; MySQL
/// and MariaDB: 64 characters).
pub const NAMESPACE_MAX_BYTES: usize = 63;

/// The prefix of a benchmark copy's namespace unless one is chosen
/// (`--namespace-prefix`): `concert_singer` lives in `sw_concert_singer`.
pub const DEFAULT_NAMESPACE_PREFIX: &str = "sw_";

/// The namespace of `db_id`'s copies: `prefix` + `db_id`; a name longer than
/// [`NAMESPACE_MAX_BYTES`] is cut (at a character boundary) and ends with
/// `_` and 8 hex digits of a hash of the whole, so that two long names
/// never share one.
pub fn namespace_for(prefix: &str, db_id: &str) -> String {
    let full = format!("{prefix}{db_id}");
    if full.len() <= NAMESPACE_MAX_BYTES {
        return full;
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in full.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let mut cut = NAMESPACE_MAX_BYTES - 9;
    while !full.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}_{:08x}", &full[..cut], h as u32)
}

/// One benchmark database as every engine addresses it.
///
/// SQLite opens `sqlite_path` read-only; PostgreSQL uses the schema named
/// `namespace` (in the database of its URL); MySQL uses the database named
/// `namespace`. A benchmark's copies live in [`namespace_for`] its prefix
/// and `db_id`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Database {
    pub db_id: String,
    pub sqlite_path: PathBuf,
    pub namespace: String,
}

impl Database {
    /// A database whose namespace is its `db_id` as written.
    pub fn new(db_id: impl Into<String>, sqlite_path: impl Into<PathBuf>) -> Self {
        let db_id = db_id.into();
        Database {
            namespace: db_id.clone(),
            db_id,
            sqlite_path: sqlite_path.into(),
        }
    }

    /// A database whose copies live in [`namespace_for`] `prefix` and its
    /// `db_id`.
    pub fn with_prefix(
        db_id: impl Into<String>,
        sqlite_path: impl Into<PathBuf>,
        prefix: &str,
    ) -> Self {
        let db_id = db_id.into();
        Database {
            namespace: namespace_for(prefix, &db_id),
            db_id,
            sqlite_path: sqlite_path.into(),
        }
    }
}

#[cfg(test)]
mod namespace_tests {
    use super::*;

    #[test]
    fn the_registry_names_parses_and_grows() {
        assert_eq!(EngineKind::parse("PostgreSQL"), Some(EngineKind::Postgres));
        assert_eq!(format!("{:?}", EngineKind::Mariadb), "Mariadb");
        assert_eq!(
            serde_json::to_string(&EngineKind::Mysql).unwrap(),
            "\"mysql\""
        );
        assert!(serde_json::from_str::<EngineKind>("\"nosuch\"").is_err());
        assert_eq!(
            EngineKind::register("pg"),
            Err(RegisterError::Taken("pg".into()))
        );
        assert!(matches!(
            EngineKind::register("Bad Name"),
            Err(RegisterError::BadName(_))
        ));
        let k = EngineKind::register("unit_test_engine").unwrap();
        assert_eq!(k.as_str(), "unit_test_engine");
        assert_eq!(EngineKind::parse("unit_test_engine"), Some(k));
        assert!(EngineKind::all().ends_with(&[k]));
        assert_eq!(
            serde_json::from_str::<EngineKind>("\"unit_test_engine\"").unwrap(),
            k
        );
        assert!(EngineKind::register("unit_test_engine").is_err());
    }

    #[test]
    fn namespaces_are_prefixed_and_bounded() {
        assert_eq!(namespace_for("sw_", "concert_singer"), "sw_concert_singer");
        let long = "é".repeat(40);
        let a = namespace_for("sw_", &long);
        assert!(a.len() <= NAMESPACE_MAX_BYTES, "{a}");
        let b = namespace_for("sw_", &format!("{long}x"));
        assert_ne!(a, b);
        assert_eq!(a, namespace_for("sw_", &long));
    }
}

/// Per-query limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueryLimits {
    /// Wall-clock limit; the engine interrupts the statement when it passes.
    pub timeout: Duration,
    /// At most this many rows are fetched; more is an error of class
    /// `resource_limit` (a cartesian explosion must not exhaust memory).
    pub max_rows: usize,
    /// At most this many bytes of values are held for one result (counted
    /// as [`crate::Value::heap_size`] per cell); more is an error of class
    /// `resource_limit`.
    pub max_bytes: usize,
}

/// Default [`QueryLimits::max_bytes`]: 64 MiB.
pub const DEFAULT_MAX_RESULT_BYTES: usize = 64 << 20;

impl Default for QueryLimits {
    fn default() -> Self {
        QueryLimits {
            timeout: Duration::from_secs(30),
            max_rows: 1_000_000,
            max_bytes: DEFAULT_MAX_RESULT_BYTES,
        }
    }
}

impl QueryLimits {
    /// The error for a result that passed `max_rows` or `max_bytes`.
    pub fn exceeded(&self, rows: usize, bytes: usize) -> Option<crate::DbError> {
        if rows > self.max_rows {
            return Some(crate::DbError::resource_limit(format!(
                "result exceeds {} rows",
                self.max_rows
            )));
        }
        if bytes > self.max_bytes {
            return Some(crate::DbError::resource_limit(format!(
                "result exceeds {} bytes",
                self.max_bytes
            )));
        }
        None
    }
}

/// Receives a query's rows one at a time, as an engine reads them
/// ([`Engine::execute_into`]): a result is judged without ever being held
/// whole when the sink keeps less than the rows.
pub trait RowSink {
    /// The result's columns. Called before the first row, and again when
    /// the engine starts the query over (a retry after a lost connection,
    /// or a server that reports the executed statement's columns with its
    /// first row): the sink then forgets every row it was given.
    fn columns(&mut self, columns: Vec<Column>);

    /// One row, with the bytes it takes (on the wire, or as values). An
    /// error (a limit passed) stops the query and is its error.
    fn row(&mut self, row: Vec<crate::Value>, bytes: usize) -> Result<(), DbError>;
}

/// The [`RowSink`] that holds every row, within `max_rows` and `max_bytes`
/// of its [`QueryLimits`]: what [`Engine::execute`] returns.
#[derive(Debug)]
pub struct Collect {
    limits: QueryLimits,
    bytes: usize,
    result: ResultSet,
}

impl Collect {
    pub fn new(limits: &QueryLimits) -> Collect {
        Collect {
            limits: *limits,
            bytes: 0,
            result: ResultSet::default(),
        }
    }

    /// The rows received.
    pub fn into_result(self) -> ResultSet {
        self.result
    }

    /// The rows `read` hands to a [`Collect`] within `limits`: how an
    /// engine that streams into a [`RowSink`] implements [`Engine::execute`].
    pub fn rows(
        limits: &QueryLimits,
        read: impl FnOnce(&mut dyn RowSink) -> Result<(), DbError>,
    ) -> Result<ResultSet, DbError> {
        let mut rows = Collect::new(limits);
        read(&mut rows)?;
        Ok(rows.into_result())
    }
}

impl RowSink for Collect {
    fn columns(&mut self, columns: Vec<Column>) {
        self.result = ResultSet::new(columns, Vec::new());
        self.bytes = 0;
    }

    fn row(&mut self, row: Vec<crate::Value>, bytes: usize) -> Result<(), DbError> {
        self.bytes += bytes;
        if let Some(e) = self.limits.exceeded(self.result.rows.len() + 1, self.bytes) {
            return Err(e);
        }
        self.result.rows.push(row);
        Ok(())
    }
}

/// What an engine reports about itself for the report header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineInfo {
    pub kind: EngineKind,
    /// The server's own version string (`SELECT version()`), or the SQLite
    /// library version.
    pub version: String,
    /// The login queries run as on a server, and what it may do
    /// (`sqlwitness_reader: least privilege`); `None` for SQLite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login: Option<String>,
}

/// How an engine measured a query's time for efficiency scores (VES):
/// on the server where it can, never counting the network or decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimingMethod {
    /// SQLite: the time spent stepping the prepared statement to its last
    /// row (`sqlite3_step`), without preparing it or reading its values.
    SqliteSteps,
    /// PostgreSQL: `EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON)`'s
    /// `Execution Time` (the statement runs to completion on the server; no
    /// row is sent; planning is not counted).
    PostgresExplainAnalyze,
    /// MySQL 8.0.18 and later: `EXPLAIN ANALYZE`'s actual time of the root
    /// iterator's last row (the statement runs to completion on the server;
    /// no row is sent; parsing and optimising are not counted).
    MysqlExplainAnalyze,
    /// MariaDB: the statement's duration in the session's profile
    /// (`SET profiling = 1`, `information_schema.PROFILING`), the server's
    /// own clock from parse to end, writing the rows into the network
    /// buffer included.
    MariadbProfile,
    /// The client's wall time around the whole execution (network and
    /// decoding included): the fallback where the server gives no time.
    ClientWall,
    /// SQLite, as BIRD dev's `evaluation_ves.py` times a query (Python's
    /// `cursor.execute` on a new connection): preparing the statement, the
    /// schema read included, and stepping it to its first row.
    SqliteCursorExecute,
    /// SQLite, as BIRD mini-dev's `evaluation_ves.py` times a query on a
    /// connection it has just opened (the opening is not timed): preparing,
    /// stepping to the last row with every value read, and closing the
    /// connection.
    SqliteConnectFetch,
}

impl TimingMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            TimingMethod::SqliteSteps => "sqlite_steps",
            TimingMethod::PostgresExplainAnalyze => "postgres_explain_analyze",
            TimingMethod::MysqlExplainAnalyze => "mysql_explain_analyze",
            TimingMethod::MariadbProfile => "mariadb_profile",
            TimingMethod::ClientWall => "client_wall",
            TimingMethod::SqliteCursorExecute => "sqlite_cursor_execute",
            TimingMethod::SqliteConnectFetch => "sqlite_connect_fetch",
        }
    }
}

impl fmt::Display for TimingMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One timed execution: milliseconds, and how they were measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timed {
    pub ms: f64,
    pub method: TimingMethod,
}

/// One execution timed as BIRD's official VES scripts time it, on the
/// client: both of their timings come from the same execution on a new
/// connection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScriptTimed {
    /// BIRD dev's timing ([`TimingMethod::SqliteCursorExecute`]), ms.
    pub execute_ms: f64,
    /// BIRD mini-dev's timing ([`TimingMethod::SqliteConnectFetch`]), ms.
    pub session_ms: f64,
}

/// [`Engine::time`] by the client's wall time around [`Engine::execute`]
/// ([`TimingMethod::ClientWall`]).
pub fn time_by_client<E: Engine + ?Sized>(
    engine: &E,
    db: &Database,
    sql: &str,
    limits: &QueryLimits,
) -> Result<Timed, DbError> {
    let started = std::time::Instant::now();
    engine.execute(db, sql, limits)?;
    Ok(Timed {
        ms: started.elapsed().as_secs_f64() * 1000.0,
        method: TimingMethod::ClientWall,
    })
}

/// A database engine that runs read-only queries.
///
/// Implementations are synchronous and thread-safe: callers run many
/// queries in parallel from worker threads. Server adapters bridge to their
/// async drivers internally, once.
pub trait Engine: Send + Sync {
    fn info(&self) -> &EngineInfo;

    fn kind(&self) -> EngineKind {
        self.info().kind
    }

    /// Runs `sql` read-only against `db`, within `limits`.
    fn execute(&self, db: &Database, sql: &str, limits: &QueryLimits)
        -> Result<ResultSet, DbError>;

    /// Runs `sql` like [`Engine::execute`], handing its rows to `sink` as
    /// they are read instead of holding them. `limits.max_rows` and
    /// `max_bytes` are the sink's to keep (a single row larger than
    /// `max_bytes` is refused before it is decoded where the engine can
    /// tell). The default runs [`Engine::execute`] and hands over its rows.
    fn execute_into(
        &self,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
        sink: &mut dyn RowSink,
    ) -> Result<(), DbError> {
        let rs = self.execute(db, sql, limits)?;
        sink.columns(rs.columns);
        for row in rs.rows {
            let bytes = row.iter().map(crate::Value::heap_size).sum();
            sink.row(row, bytes)?;
        }
        Ok(())
    }

    /// Runs `sql` like [`Engine::execute`] — the same session, read-only
    /// transaction, login and limits — and returns how long it took by the
    /// engine's [`TimingMethod`] instead of its rows. The default measures
    /// the client's wall time around [`Engine::execute`].
    fn time(&self, db: &Database, sql: &str, limits: &QueryLimits) -> Result<Timed, DbError> {
        time_by_client(self, db, sql, limits)
    }

    /// Runs `sql` like [`Engine::time`] and returns what BIRD's official
    /// VES scripts would have timed ([`ScriptTimed`]), or `None` where the
    /// engine has no such timing (the default: the scripts' client-side
    /// timings are reproduced on SQLite only).
    fn time_as_scripts(
        &self,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
    ) -> Result<Option<ScriptTimed>, DbError> {
        let _ = (db, sql, limits);
        Ok(None)
    }

    /// Stops, on the server, every query this engine is running now (an
    /// interrupted run: nothing it started outlives it). The queries return
    /// errors to their callers, whose results must not be kept. An
    /// embedded engine interrupts its statements and starts no other (the
    /// process may go on: the Python API); by default, nothing.
    fn cancel_running(&self) {}

    /// Runs `sql` like [`Engine::execute`] with planner settings applied to
    /// this query only (PostgreSQL: `SET LOCAL enable_hashagg = off` … in
    /// the same read-only transaction), to show an answer that depends on
    /// the plan. Engines without such settings return an error of class
    /// `other`; an adapter validates names and values against its own
    /// allow-list.
    fn execute_with_settings(
        &self,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
        settings: &[(String, String)],
    ) -> Result<ResultSet, DbError> {
        let _ = (db, sql, limits, settings);
        Err(DbError::new(
            crate::ErrorClass::Other,
            None,
            format!("{}: planner settings are not supported", self.kind()),
        ))
    }
}

/// The built-in engines as plain constants, for tests that name them bare
/// (`use sqlwitness_core::builtin_engines::*`).
#[allow(non_upper_case_globals)]
pub mod builtin_engines {
    use super::EngineKind;
    pub const Sqlite: EngineKind = EngineKind::Sqlite;
    pub const Postgres: EngineKind = EngineKind::Postgres;
    pub const Mysql: EngineKind = EngineKind::Mysql;
    pub const Mariadb: EngineKind = EngineKind::Mariadb;
    pub use super::shipped_engines::*;
}
