//! The DuckDB read side ([`Engine`]): one read-only instance per copy's
//! file, kept for the engine's life; one connection per query.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use duckdb::arrow::datatypes::DataType;
use duckdb::types::Value as DValue;
use duckdb::{AccessMode, Connection, InterruptHandle};
use sqlwitness_core::{
    Collect, Column, Database, DbError, Engine, EngineInfo, EngineKind, ErrorClass, QueryLimits,
    ResultSet, RowSink, Timed, TimingMethod, Value,
};
use sqlwitness_dialect::Dialect;

use super::{db_error, file_of, folder_of, library_version, locked};
use crate::values::{date_from_days, time_from_micros, timestamp_from_micros, widen_f32};
use crate::watchdog::watchdog;

/// The memory one copy's instance may use (DuckDB's `memory_limit`):
/// past it a query spills what it can to disk, and fails with `Out of
/// Memory Error` (`resource_limit`) where it cannot — a single value that
/// large, which DuckDB builds between two checks of its interrupt, so a
/// low limit is also what stops such a query soon after its deadline.
pub const DUCKDB_MEMORY_LIMIT: &str = "256MB";

/// What one copy's instance may spill to disk (DuckDB's
/// `max_temp_directory_size`), in a folder of the process's own in the
/// system's temporary folder.
pub const DUCKDB_SPILL_LIMIT: &str = "4GB";

/// Idle connections kept per copy.
const MAX_IDLE_PER_COPY: usize = 8;

/// One copy's read-only instance: the connection others are cloned from,
/// and the idle ones.
struct Instance {
    root: Mutex<Connection>,
    idle: Mutex<Vec<Connection>>,
}

/// Runs queries on DuckDB copies, read-only.
pub struct DuckdbEngine {
    info: EngineInfo,
    dialect: Arc<Dialect>,
    folder: PathBuf,
    /// One instance per file, opened on first use.
    instances: Mutex<HashMap<PathBuf, Arc<Instance>>>,
    /// Statements running now, to interrupt on [`Engine::cancel_running`].
    running: Mutex<BTreeMap<u64, Arc<InterruptHandle>>>,
    next_running: AtomicU64,
    /// Set by [`Engine::cancel_running`]: no statement starts any more.
    cancelled: AtomicBool,
}

impl std::fmt::Debug for DuckdbEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DuckdbEngine")
            .field("info", &self.info)
            .field("folder", &self.folder)
            .finish_non_exhaustive()
    }
}

impl DuckdbEngine {
    /// An engine reading the copies in the folder `url` names
    /// (`duckdb:/path`).
    pub fn open(dialect: Dialect, url: &str) -> Result<DuckdbEngine, DbError> {
        let folder = folder_of(url)?;
        Ok(DuckdbEngine {
            info: EngineInfo {
                kind: EngineKind::Duckdb,
                version: library_version(),
                login: None,
            },
            dialect: Arc::new(dialect),
            folder,
            instances: Mutex::new(HashMap::new()),
            running: Mutex::new(BTreeMap::new()),
            next_running: AtomicU64::new(0),
            cancelled: AtomicBool::new(false),
        })
    }

    fn error(&self, e: duckdb::Error) -> DbError {
        db_error(&self.dialect, e, None)
    }

    /// A connection to `db`'s copy (its instance opened read-only on first
    /// use): an idle one of the instance's, else a new one.
    fn connect(&self, db: &Database) -> Result<(Arc<Instance>, Connection), DbError> {
        let path = file_of(&self.folder, &db.namespace);
        let instance = {
            let mut all = self.instances.lock().unwrap_or_else(|e| e.into_inner());
            match all.get(&path) {
                Some(i) => Arc::clone(i),
                None => {
                    let i = Arc::new(Instance {
                        root: Mutex::new(open_read_only(&self.dialect, &path)?),
                        idle: Mutex::new(Vec::new()),
                    });
                    all.insert(path.clone(), Arc::clone(&i));
                    i
                }
            }
        };
        let idle = instance
            .idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop();
        let conn = match idle {
            Some(c) => c,
            None => {
                let root = instance.root.lock().unwrap_or_else(|e| e.into_inner());
                root.try_clone().map_err(|e| self.error(e))?
            }
        };
        Ok((instance, conn))
    }

    /// Runs `sql` on `conn`, handing its rows to `sink`: the time spent
    /// running it to its last row, without reading its values.
    fn run(
        &self,
        conn: &Connection,
        sql: &str,
        deadline: Instant,
        sink: &mut dyn RowSink,
    ) -> Result<Duration, DbError> {
        let mut stmt = conn.prepare(sql).map_err(|e| self.error(e))?;
        let started = Instant::now();
        let mut rows = stmt.query([]).map_err(|e| self.error(e))?;
        let running = started.elapsed();
        let stmt = rows.as_ref().ok_or_else(|| {
            DbError::new(
                ErrorClass::Other,
                None,
                "DuckDB: a query without a statement",
            )
        })?;
        let ncol = stmt.column_count();
        let types: Vec<DataType> = (0..ncol).map(|i| stmt.column_type(i)).collect();
        let columns: Vec<Column> = (0..ncol)
            .map(|i| {
                let name = stmt.column_name(i).cloned().unwrap_or_default();
                Column::new(name, Some(format!("{}", types[i])))
            })
            .collect();
        // The driver reads every type but a bare NULL column (all NULL)
        // and a few Arrow shapes DuckDB does not make; a result with one
        // of those is refused whole before a row is read.
        if let Some((i, t)) = types
            .iter()
            .enumerate()
            .find(|(_, t)| **t != DataType::Null && !readable(t))
        {
            return Err(DbError::new(
                ErrorClass::Other,
                None,
                format!(
                    "result column {} (`{}`) is of type {t}, which sqlwitness does not read from \
                     DuckDB",
                    i + 1,
                    columns[i].name
                ),
            ));
        }
        sink.columns(columns);
        while let Some(row) = rows.next().map_err(|e| self.error(e))? {
            // The result is DuckDB's to hold; reading it is the time
            // limit's too.
            if Instant::now() >= deadline {
                return Err(DbError::new(
                    ErrorClass::Timeout,
                    None,
                    "stopped at its limit while its rows were being read",
                ));
            }
            let mut values = Vec::with_capacity(ncol);
            for (i, t) in types.iter().enumerate() {
                if *t == DataType::Null {
                    values.push(Value::Null);
                    continue;
                }
                let v: DValue = row.get(i).map_err(|e| self.error(e))?;
                values.push(duckdb_value(v));
            }
            let bytes = values.iter().map(Value::heap_size).sum::<usize>();
            sink.row(values, bytes)?;
        }
        Ok(running)
    }

    /// [`DuckdbEngine::run`] on a connection of its own, stopped at the
    /// deadline of `limits`.
    fn run_limited(
        &self,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
        sink: &mut dyn RowSink,
    ) -> Result<Duration, DbError> {
        let cancelled = || {
            DbError::new(
                ErrorClass::Connection,
                None,
                "the run was interrupted: the statement was not run to its end",
            )
        };
        if self.cancelled.load(Ordering::SeqCst) {
            return Err(cancelled());
        }
        let (instance, conn) = self.connect(db)?;
        let handle = conn.interrupt_handle();
        let deadline = Instant::now() + limits.timeout;
        let armed = Arc::clone(&handle);
        let ticket = watchdog().arm(deadline, Box::new(move || armed.interrupt()));
        let id = self.next_running.fetch_add(1, Ordering::SeqCst);
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, handle);
        let result = if self.cancelled.load(Ordering::SeqCst) {
            Err(cancelled())
        } else {
            self.run(&conn, sql, deadline, sink)
        };
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
        watchdog().disarm(ticket);
        // A connection is kept for the next query only after a query that
        // ended well: the guard lets through one read-only query, which
        // leaves no temporary object, macro or variable behind.
        if result.is_ok() {
            let mut idle = instance.idle.lock().unwrap_or_else(|e| e.into_inner());
            if idle.len() < MAX_IDLE_PER_COPY {
                idle.push(conn);
            }
        }
        if self.cancelled.load(Ordering::SeqCst) {
            return Err(cancelled());
        }
        // An interrupt at the deadline reads `INTERRUPT Error` (class
        // timeout); DuckDB notices it between vectors, so a statement whose
        // one vector takes long (a function building huge values) ends a
        // little after its limit, or first with another error.
        result
    }
}

impl Engine for DuckdbEngine {
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
        let running = self.run_limited(db, sql, limits, &mut rows)?;
        Ok(Timed {
            ms: running.as_secs_f64() * 1000.0,
            method: TimingMethod::ClientWall,
        })
    }

    /// Interrupts every statement running now and refuses every later one.
    fn cancel_running(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
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

/// The folder an instance of the copy at `path` spills to: one per process
/// and copy (two processes, or two copies, never share a file), which
/// DuckDB makes when it first spills and removes when the instance closes.
fn spill_folder(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    std::env::temp_dir().join(format!(
        "sqlwitness-duckdb-{}-{name}.tmp",
        std::process::id()
    ))
}

/// Opens the copy at `path` read-only: no files, no network, no
/// extensions, configuration locked, one thread, [`DUCKDB_MEMORY_LIMIT`]
/// and [`DUCKDB_SPILL_LIMIT`].
fn open_read_only(dialect: &Dialect, path: &Path) -> Result<Connection, DbError> {
    if !path.is_file() {
        return Err(DbError::new(
            ErrorClass::Other,
            None,
            format!(
                "DuckDB copy not found: {} (migrate the benchmark to duckdb first)",
                path.display()
            ),
        ));
    }
    let config = duckdb::Config::default()
        .access_mode(AccessMode::ReadOnly)
        .and_then(|c| c.threads(1))
        .and_then(|c| c.max_memory(DUCKDB_MEMORY_LIMIT))
        .and_then(|c| c.with("temp_directory", spill_folder(path).to_string_lossy()))
        .and_then(|c| c.with("max_temp_directory_size", DUCKDB_SPILL_LIMIT))
        .and_then(locked)
        .map_err(|e| db_error(dialect, e, Some(path)))?;
    let conn = Connection::open_with_flags(path, config).map_err(|e| {
        let mut e = db_error(dialect, e, Some(path));
        e.class = ErrorClass::Connection;
        e
    })?;
    for stmt in &dialect.session {
        conn.execute_batch(stmt)
            .map_err(|e| db_error(dialect, e, Some(path)))?;
    }
    Ok(conn)
}

/// Whether the driver reads values of Arrow type `t` (as DuckDB gives its
/// results) without failing: every scalar type it maps, and nested types
/// whose every child is one (a child of type NULL is not).
fn readable(t: &DataType) -> bool {
    match t {
        DataType::Boolean
        | DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64
        | DataType::Float16
        | DataType::Float32
        | DataType::Float64
        | DataType::Decimal32(..)
        | DataType::Decimal64(..)
        | DataType::Decimal128(..)
        | DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::FixedSizeBinary(_)
        | DataType::Date32
        | DataType::Date64
        | DataType::Time32(_)
        | DataType::Time64(_)
        | DataType::Timestamp(..)
        | DataType::Interval(_) => true,
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            readable(f.data_type())
        }
        DataType::Map(f, _) => readable(f.data_type()),
        DataType::Struct(fields) => fields.iter().all(|f| readable(f.data_type())),
        DataType::Union(fields, _) => fields.iter().all(|(_, f)| readable(f.data_type())),
        DataType::Dictionary(_, v) => readable(v),
        _ => false,
    }
}

/// A DuckDB value as a typed [`Value`]: integers that fit as integers
/// (wider ones as exact decimals), decimals as their exact text, dates,
/// times and timestamps in the form every adapter gives, enum labels as
/// text, nested values (lists, structs, maps, intervals) as their text.
pub(crate) fn duckdb_value(v: DValue) -> Value {
    match v {
        DValue::Null => Value::Null,
        DValue::Boolean(b) => Value::Bool(b),
        DValue::TinyInt(i) => Value::Int(i.into()),
        DValue::SmallInt(i) => Value::Int(i.into()),
        DValue::Int(i) => Value::Int(i.into()),
        DValue::BigInt(i) => Value::Int(i),
        DValue::UTinyInt(i) => Value::Int(i.into()),
        DValue::USmallInt(i) => Value::Int(i.into()),
        DValue::UInt(i) => Value::Int(i.into()),
        DValue::UBigInt(i) => i64::try_from(i)
            .map(Value::Int)
            .unwrap_or_else(|_| Value::Decimal(i.to_string())),
        DValue::HugeInt(i) => i64::try_from(i)
            .map(Value::Int)
            .unwrap_or_else(|_| Value::Decimal(i.to_string())),
        DValue::UHugeInt(i) => i64::try_from(i)
            .map(Value::Int)
            .unwrap_or_else(|_| Value::Decimal(i.to_string())),
        DValue::Float(f) => Value::Float(widen_f32(f)),
        DValue::Double(f) => Value::Float(f),
        DValue::Decimal(d) => Value::Decimal(d.to_string()),
        DValue::Timestamp(unit, t) => Value::Timestamp(timestamp_from_micros(unit.to_micros(t))),
        DValue::Date32(d) => Value::Date(date_from_days(d.into())),
        DValue::Time64(unit, t) => Value::Time(time_from_micros(unit.to_micros(t))),
        DValue::Text(s) | DValue::Enum(s) => Value::Text(s),
        DValue::Blob(b) | DValue::Geometry(b) => Value::Bytes(b),
        DValue::Interval {
            months,
            days,
            nanos,
        } => Value::Text(interval_text(months, days, nanos)),
        other => Value::Text(nested_text(&other)),
    }
}

/// An interval as ISO 8601 (`P1Y2M3DT4H5M6.5S`), as PostgreSQL's
/// `iso_8601` style writes it.
fn interval_text(months: i32, days: i32, nanos: i64) -> String {
    let mut out = String::from("P");
    let (y, m) = (months / 12, months % 12);
    if y != 0 {
        out.push_str(&format!("{y}Y"));
    }
    if m != 0 {
        out.push_str(&format!("{m}M"));
    }
    if days != 0 {
        out.push_str(&format!("{days}D"));
    }
    if nanos != 0 {
        let micros = nanos / 1000;
        let (h, rest) = (micros / 3_600_000_000, micros % 3_600_000_000);
        let (mi, rest) = (rest / 60_000_000, rest % 60_000_000);
        out.push('T');
        if h != 0 {
            out.push_str(&format!("{h}H"));
        }
        if mi != 0 {
            out.push_str(&format!("{mi}M"));
        }
        if rest != 0 {
            let s = format!("{}.{:06}", rest / 1_000_000, (rest % 1_000_000).abs());
            out.push_str(s.trim_end_matches('0').trim_end_matches('.'));
            out.push('S');
        }
    }
    if out == "P" {
        out.push_str("T0S");
    }
    out
}

/// A nested value as text: lists and arrays as `[a, b]`, structs as
/// `{'k': v}`, maps as `{k=v}` (DuckDB's own rendering of them).
fn nested_text(v: &DValue) -> String {
    match v {
        DValue::List(items) | DValue::Array(items) => {
            let items: Vec<String> = items.iter().map(item_text).collect();
            format!("[{}]", items.join(", "))
        }
        DValue::Struct(fields) => {
            let fields: Vec<String> = fields
                .iter()
                .map(|(k, v)| format!("'{k}': {}", item_text(v)))
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
        DValue::Map(entries) => {
            let entries: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}={}", item_text(k), item_text(v)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        DValue::Union(inner) => item_text(inner),
        other => item_text(other),
    }
}

/// One value inside a nested one: text quoted, NULL bare.
fn item_text(v: &DValue) -> String {
    match v {
        DValue::Text(s) | DValue::Enum(s) => format!("'{}'", s.replace('\'', "''")),
        DValue::List(_)
        | DValue::Array(_)
        | DValue::Struct(_)
        | DValue::Map(_)
        | DValue::Union(_) => nested_text(v),
        other => match duckdb_value(other.clone()) {
            Value::Null => "NULL".to_string(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => f.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Bytes(b) => b.iter().map(|x| format!("\\x{x:02X}")).collect(),
            Value::Decimal(s)
            | Value::Text(s)
            | Value::Date(s)
            | Value::Time(s)
            | Value::Timestamp(s) => s,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use duckdb::types::TimeUnit;

    #[test]
    fn values_are_typed_as_every_adapter_gives_them() {
        assert_eq!(
            duckdb_value(DValue::UBigInt(u64::MAX)),
            Value::Decimal(u64::MAX.to_string())
        );
        assert_eq!(duckdb_value(DValue::HugeInt(7)), Value::Int(7));
        assert_eq!(duckdb_value(DValue::Float(1.1)), Value::Float(1.1));
        assert_eq!(
            duckdb_value(DValue::Date32(0)),
            Value::Date("1970-01-01".into())
        );
        assert_eq!(
            duckdb_value(DValue::Timestamp(TimeUnit::Second, 86_401)),
            Value::Timestamp("1970-01-02 00:00:01".into())
        );
        assert_eq!(
            duckdb_value(DValue::Enum("b".into())),
            Value::Text("b".into())
        );
        assert_eq!(
            duckdb_value(DValue::List(vec![DValue::Int(1), DValue::Null])),
            Value::Text("[1, NULL]".into())
        );
        assert_eq!(interval_text(14, 3, 3_600_000_000_000), "P1Y2M3DT1H");
        assert_eq!(interval_text(0, 0, 0), "PT0S");
        assert_eq!(interval_text(0, 0, 1_500_000_000), "PT1.5S");
    }
}
