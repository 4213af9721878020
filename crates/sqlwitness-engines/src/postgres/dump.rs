//! Loading a PostgreSQL dump ([`PgDumpNamespace`]): a database of its own,
//! created and stamped by the administrative login, whose `public` schema a
//! fresh login owns — no superuser, no database or role creation, no
//! server files or programs (`COPY … PROGRAM` and `COPY` from a server file
//! need roles it is not given), a connection limit of its own, and limits
//! set on the role (statement time, temporary files, memory per sort, idle
//! time, a check that the client is still there). The dump runs over that
//! login one statement at a time in the extended query protocol, which
//! refuses a text the server parses as several statements; the dump's own
//! code (triggers, functions) runs with the loader's rights.
//!
//! The loaded database is read in a fresh session of the loader, with
//! `search_path` pinned to `pg_catalog` (no function or operator the dump
//! defines is ever chosen), row security off, and values read through
//! their types' own output functions (never a cast the dump could define):
//! the administrative login runs nothing of the dump's. It then drops the
//! database and the login.
//!
//! A database rather than a schema: a dump names its schemas (`public.t`,
//! `CREATE SCHEMA app`), and in a database of its own every schema it names
//! is its own; nothing it writes can reach the databases beside it.
//!
//! A live database a benchmark names ([`PgDumpNamespace::attach`]) is read
//! the same way, over the login its URL gives, in a session whose
//! transactions are read-only; nothing is created in it, and closing it
//! only ends the sessions.

use std::sync::Arc;
use std::time::Duration;

use sqlwitness_core::{
    CopiedColumn, CopiedTable, DbError, DumpNamespace, ErrorClass, KeyFn, LexSettings, ScanBatch,
    ServerSource, Source, SourceColumn, SourceForeignKey, SourceSchema, SourceTable, SourceView,
    Stamp, TargetKind, STAMP_TABLE,
};
use sqlwitness_core::{EngineKind, ResultSet};
use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{AssertSqlSafe, ConnectOptions, Connection, Executor, Row};

use super::lease;
use super::read::decode_row;
use super::write::quote;
use crate::dump::{
    open, past_limit, scan_in_batches, server_limit_ms, within, KeySql, LOADER_ENDED,
    NAMESPACE_CLOSED,
};
use crate::lease::Leased;
use crate::login::literal;

/// The schema of the dump's database that holds sqlwitness's stamp, owned by
/// the administrative login (the loader cannot drop it).
const STAMP_SCHEMA: &str = "sqlwitness";
/// Rows per scan batch.
const SCAN_BATCH: usize = 1000;
/// The least limit of the loader's temporary files, in kB (a recursive
/// query spilling past it fails rather than writing for seconds between two
/// checks of its cancel); a larger dump gets its own size, so that its
/// index builds can sort what it holds.
const LOADER_TEMP_FILES_KB: u64 = 512 * 1024;
/// Memory for one sort or hash of the loader.
const LOADER_WORK_MEM: &str = "64MB";
/// How long a loader session may sit idle (the server ends it).
const LOADER_IDLE: &str = "10min";
/// The loader's reading session: the dump's functions and operators are
/// never chosen by name, policies never run, a table under one is an error.
const READER_SETUP: [&str; 3] = [
    "SET search_path = pg_catalog, pg_temp",
    "SET row_security = off",
    "SET statement_timeout = 0",
];
/// The time reading the loader's session settings back may take.
const SETTINGS_LIMIT: Duration = Duration::from_secs(30);

/// Key checks in PostgreSQL's SQL.
const KEY_SQL: KeySql = KeySql {
    quote,
    int: |e| format!("({e})::int8"),
};

/// A loaded table: where it is on the server.
#[derive(Debug, Clone)]
struct Located {
    schema: String,
    relation: String,
    /// Per column: read as text on the server (`::text`), for types the
    /// driver does not decode (json, uuid, enums, network types …).
    as_text: Vec<bool>,
}

/// What a [`PgDumpNamespace`] reads.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Reads {
    /// The database made for a dump: every schema but sqlwitness's stamp;
    /// dropped at the end.
    Dump,
    /// A live database, read and left as it was: the schema given, else
    /// every schema but the server's own and sqlwitness's copies.
    Live(Option<String>),
}

/// A PostgreSQL database made for one dump, with its loader login.
pub struct PgDumpNamespace {
    rt: tokio::runtime::Runtime,
    admin: PgConnection,
    /// The administrative login inside the dump's database (its stamp
    /// only); a live database's reading session.
    inside: Option<PgConnection>,
    /// The loader's loading session, until the load ends.
    loader: Option<PgConnection>,
    loader_pid: i32,
    /// The loader's reading session, after the load.
    reader: Option<PgConnection>,
    reader_pid: i32,
    /// How the loader connects (its password).
    loader_opts: Option<PgConnectOptions>,
    /// The statement limit the loader's role carries.
    statement_limit: Duration,
    /// The size of the dump (its loader's temporary files may reach it).
    dump_bytes: u64,
    database: String,
    role: String,
    located: std::collections::HashMap<String, Located>,
    /// Enum types recreated in a copy's namespace: `(namespace, name)` →
    /// the dump's type.
    /// Enum types made again in a copy's namespace: `(namespace, name)` →
    /// the dump's type and its labels.
    enums: std::collections::HashMap<(String, String), (i64, Vec<String>)>,
    /// Which schemas are read, and whether the database is the dump's own.
    reads: Reads,
}

impl std::fmt::Debug for PgDumpNamespace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgDumpNamespace")
            .field("database", &self.database)
            .finish_non_exhaustive()
    }
}

/// Whether the server has a database named `name`.
async fn database_exists(admin: &mut PgConnection, name: &str) -> Result<bool, DbError> {
    let found: Option<i32> = sqlx::query_scalar("SELECT 1 FROM pg_database WHERE datname = $1")
        .bind(name)
        .fetch_optional(admin)
        .await
        .map_err(pg_error)?;
    Ok(found.is_some())
}

/// The stamp of the dump database `c` is connected to, when it holds
/// sqlwitness's.
async fn read_stamp(c: &mut PgConnection) -> Option<Stamp> {
    let text: Option<String> = sqlx::query_scalar(AssertSqlSafe(format!(
        "SELECT stamp FROM {}.{} LIMIT 1",
        quote(STAMP_SCHEMA),
        quote(sqlwitness_core::STAMP_TABLE)
    )))
    .fetch_optional(c)
    .await
    .ok()
    .flatten();
    text.and_then(|t| Stamp::from_text(&t))
}

pub(crate) fn pg_error(e: sqlx::Error) -> DbError {
    match e.as_database_error() {
        Some(db) => {
            let code = db.code().map(|c| c.into_owned());
            let several = db.message().contains("multiple commands");
            let class = match code.as_deref() {
                Some("42501") => ErrorClass::Refused,
                Some("57014") => ErrorClass::Timeout,
                Some("42601") if several => ErrorClass::Refused,
                _ => ErrorClass::Other,
            };
            let message = if several {
                format!(
                    "the server reads several statements in this text ({}): refused",
                    db.message()
                )
            } else {
                db.message().to_string()
            };
            DbError::new(class, code, message)
        }
        None => crate::server::driver_error(e),
    }
}

impl PgDumpNamespace {
    /// Creates database `database` (refused when it exists and is not a
    /// leftover of sqlwitness's own) stamped with `stamp`, and its loader
    /// login, whose statements the server stops at `statement_limit` too;
    /// connects both.
    pub fn create(
        admin_url: &str,
        database: &str,
        stamp: &Stamp,
        statement_limit: Duration,
        dump_bytes: u64,
    ) -> Result<Self, DbError> {
        let rt = crate::server::blocking_runtime()?;
        let base: PgConnectOptions = admin_url
            .parse()
            .map_err(|e| DbError::connection(format!("{}: {e}", crate::mask_url(admin_url))))?;
        let mut admin = rt.block_on(super::relay::connect(&base)).map_err(|e| {
            DbError::connection(format!(
                "cannot connect to {}: {e}",
                crate::mask_url(admin_url)
            ))
        })?;
        if rt.block_on(database_exists(&mut admin, database))? {
            // Only a database holding sqlwitness's stamp is dropped.
            let opts = base.clone().database(database);
            let ours = rt.block_on(async {
                let mut c = opts.connect().await.ok()?;
                let stamp = read_stamp(&mut c).await;
                let _ = c.close().await;
                stamp
            });
            if ours.is_none() {
                return Err(DbError::refused(format!(
                    "database \"{database}\" exists and was not made by sqlwitness: it is left untouched"
                )));
            }
            rt.block_on(admin.execute(AssertSqlSafe(format!(
                "DROP DATABASE {} WITH (FORCE)",
                quote(database)
            ))))
            .map_err(pg_error)?;
        }
        let role = format!("sw_load_{}", &crate::fresh_password()[..16]);
        let password = crate::fresh_password();
        // Recorded under a lease the administrative connection holds,
        // before either exists (a run killed from here on leaves them to
        // the next sweep).
        let items = vec![
            Leased::Database(database.to_string()),
            Leased::Login(role.clone()),
        ];
        rt.block_on(lease::record(&mut admin, database, &items))
            .map_err(pg_error)?;
        crate::lease::hold(EngineKind::Postgres, admin_url, database, items);
        let setup = format!(
            "CREATE ROLE {r} LOGIN PASSWORD {p} NOSUPERUSER NOCREATEDB NOCREATEROLE \
             NOREPLICATION NOBYPASSRLS NOINHERIT CONNECTION LIMIT 3",
            r = quote(&role),
            p = literal(&password, false)
        );
        if let Err(e) = rt.block_on(admin.execute(AssertSqlSafe(setup))) {
            let _ = rt.block_on(lease::release(&mut admin, database));
            crate::lease::let_go(database);
            return Err(pg_error(e));
        }
        let mut ns = PgDumpNamespace {
            rt,
            admin,
            inside: None,
            loader: None,
            loader_pid: 0,
            reader: None,
            reader_pid: 0,
            loader_opts: None,
            statement_limit,
            dump_bytes,
            database: database.to_string(),
            role: role.clone(),
            located: Default::default(),
            enums: Default::default(),
            reads: Reads::Dump,
        };
        if let Err(e) = ns.prepare(&base, stamp, &password) {
            let _ = ns.close();
            return Err(e);
        }
        Ok(ns)
    }

    /// A live database (`source_url`, over the login it names; `schema`:
    /// only that schema) read as a [`ServerSource`] in a read-only session,
    /// its tables copied into namespaces over the administrative
    /// `admin_url` (the run's server, which may be another).
    pub fn attach(
        admin_url: &str,
        source_url: &str,
        schema: Option<&str>,
    ) -> Result<Self, DbError> {
        let rt = crate::server::blocking_runtime()?;
        let connect = |url: &str| -> Result<PgConnection, DbError> {
            let opts: PgConnectOptions = url
                .parse()
                .map_err(|e| DbError::connection(format!("{}: {e}", crate::mask_url(url))))?;
            rt.block_on(opts.application_name("sqlwitness source reader").connect())
                .map_err(|e| {
                    DbError::connection(format!("cannot connect to {}: {e}", crate::mask_url(url)))
                })
        };
        let admin = connect(admin_url)?;
        let mut inside = connect(source_url)?;
        let database: String = rt
            .block_on(inside.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY"))
            .and_then(|_| {
                rt.block_on(
                    sqlx::query_scalar("SELECT current_database()::text").fetch_one(&mut inside),
                )
            })
            .map_err(pg_error)?;
        if let Some(schema) = schema {
            let found: Option<i32> = rt
                .block_on(
                    sqlx::query_scalar("SELECT 1 FROM pg_namespace WHERE nspname = $1")
                        .bind(schema)
                        .fetch_optional(&mut inside),
                )
                .map_err(pg_error)?;
            if found.is_none() {
                return Err(DbError::refused(format!(
                    "database \"{database}\" has no schema \"{schema}\""
                )));
            }
        }
        Ok(PgDumpNamespace {
            rt,
            admin,
            inside: Some(inside),
            loader: None,
            loader_pid: 0,
            reader: None,
            reader_pid: 0,
            loader_opts: None,
            statement_limit: Duration::ZERO,
            dump_bytes: 0,
            database,
            role: String::new(),
            located: Default::default(),
            enums: Default::default(),
            reads: Reads::Live(schema.map(str::to_string)),
        })
    }

    /// The condition on `pg_namespace n` that keeps the schemas read: a
    /// dump's every schema but sqlwitness's stamp; a live database's
    /// schema asked for, else every schema but sqlwitness's copies.
    fn schemas_read(&self) -> String {
        let system = "n.nspname NOT IN ('pg_catalog', 'information_schema') \
                      AND n.nspname NOT LIKE 'pg\\_%'";
        match &self.reads {
            Reads::Dump => format!("{system} AND n.nspname <> {}", literal(STAMP_SCHEMA, false)),
            Reads::Live(Some(schema)) => format!("n.nspname = {}", literal(schema, false)),
            Reads::Live(None) => format!(
                "{system} AND n.nspname <> {} AND NOT EXISTS (SELECT 1 FROM pg_class s \
                 WHERE s.relnamespace = n.oid AND s.relname = {})",
                literal(crate::lease::REGISTRY, false),
                literal(STAMP_TABLE, false)
            ),
        }
    }

    fn prepare(
        &mut self,
        base: &PgConnectOptions,
        stamp: &Stamp,
        password: &str,
    ) -> Result<(), DbError> {
        let db = quote(&self.database);
        let role = quote(&self.role);
        for sql in [
            format!("CREATE DATABASE {db} TEMPLATE template0 ENCODING 'UTF8'"),
            format!("REVOKE ALL ON DATABASE {db} FROM PUBLIC"),
            format!("GRANT CONNECT, TEMPORARY, CREATE ON DATABASE {db} TO {role}"),
        ] {
            self.rt
                .block_on(self.admin.execute(AssertSqlSafe(sql)))
                .map_err(pg_error)?;
        }
        let mut inside = self
            .rt
            .block_on(base.clone().database(&self.database).connect())
            .map_err(|e| DbError::connection(e.to_string()))?;
        let stamp_sql = format!(
            "CREATE SCHEMA {s}; REVOKE ALL ON SCHEMA {s} FROM PUBLIC; \
             CREATE TABLE {s}.{t} (stamp text NOT NULL); \
             INSERT INTO {s}.{t} VALUES ({v}); \
             ALTER SCHEMA public OWNER TO {role}",
            s = quote(STAMP_SCHEMA),
            t = quote(sqlwitness_core::STAMP_TABLE),
            v = literal(&stamp.to_text(), false),
        );
        self.rt
            .block_on(inside.execute(sqlx::raw_sql(AssertSqlSafe(stamp_sql))))
            .map_err(pg_error)?;
        self.inside = Some(inside);
        self.limit_loader()?;
        let opts = base
            .clone()
            .database(&self.database)
            .username(&self.role)
            .password(password)
            .application_name("sqlwitness dump loader")
            // Every statement unnamed: the dump's text is parsed once, as
            // one statement.
            .statement_cache_capacity(0);
        let (loader, pid) = self.connect_loader(&opts)?;
        self.loader = Some(loader);
        self.loader_pid = pid;
        self.loader_opts = Some(opts);
        Ok(())
    }

    /// The limits the loader's sessions start with, set on its role (a
    /// setting only a superuser may give is left at the server's when the
    /// administrative login is not one).
    fn limit_loader(&mut self) -> Result<(), DbError> {
        let role = quote(&self.role);
        let ms = server_limit_ms(self.statement_limit);
        let settings = [
            ("statement_timeout", format!("'{ms}ms'"), true),
            ("lock_timeout", format!("'{ms}ms'"), true),
            (
                "idle_in_transaction_session_timeout",
                format!("'{LOADER_IDLE}'"),
                true,
            ),
            ("work_mem", format!("'{LOADER_WORK_MEM}'"), true),
            ("standard_conforming_strings", "on".into(), true),
            (
                "temp_file_limit",
                format!("'{}kB'", LOADER_TEMP_FILES_KB.max(self.dump_bytes / 1024)),
                false,
            ),
            ("idle_session_timeout", format!("'{LOADER_IDLE}'"), false),
            ("client_connection_check_interval", "'1s'".into(), false),
        ];
        for (name, value, required) in settings {
            let r = self.rt.block_on(self.admin.execute(AssertSqlSafe(format!(
                "ALTER ROLE {role} SET {name} = {value}"
            ))));
            if let Err(e) = r {
                if required {
                    return Err(pg_error(e));
                }
            }
        }
        Ok(())
    }

    /// A session of the loader: the connection and its backend's pid.
    fn connect_loader(&self, opts: &PgConnectOptions) -> Result<(PgConnection, i32), DbError> {
        let mut conn = self
            .rt
            .block_on(super::relay::connect(opts))
            .map_err(|e| DbError::connection(format!("the loader login cannot connect: {e}")))?;
        let pid = self
            .rt
            .block_on(
                sqlx::query_scalar("SELECT pg_catalog.pg_backend_pid()")
                    .persistent(false)
                    .fetch_one(&mut conn),
            )
            .map_err(pg_error)?;
        Ok((conn, pid))
    }

    /// Cancels the loader's statement, then ends its session.
    fn stop_loader(&mut self) {
        let pid = self.loader_pid;
        self.stop_backend(pid);
        self.loader = None;
    }

    /// Cancels the reading session's statement, then ends the session.
    fn stop_reader(&mut self) {
        let pid = self.reader_pid;
        self.stop_backend(pid);
        self.reader = None;
    }

    fn stop_backend(&mut self, pid: i32) {
        if pid == 0 {
            return;
        }
        let _ = self.rt.block_on(
            sqlx::query("SELECT pg_cancel_backend($1), pg_terminate_backend($1)")
                .bind(pid)
                .execute(&mut self.admin),
        );
    }

    fn located(&self, t: &SourceTable) -> Result<Located, DbError> {
        self.located
            .get(&t.name)
            .cloned()
            .ok_or_else(|| DbError::new(ErrorClass::Other, None, format!("no table {}", t.name)))
    }

    fn count(&mut self, sql: String) -> Result<u64, DbError> {
        let rt = &self.rt;
        let conn = src(&self.reads, &mut self.reader, &mut self.inside)?;
        let n: Option<i64> = rt
            .block_on(sqlx::query_scalar(AssertSqlSafe(sql)).fetch_one(conn))
            .map_err(pg_error)?;
        Ok(n.unwrap_or(0).max(0) as u64)
    }
}

/// `col` as the text its type's output function writes (`NULL` stays
/// `NULL`), without a cast: a cast from a type the dump defines may be the
/// dump's own function.
fn as_text(col: &str) -> String {
    format!(
        "CASE WHEN pg_catalog.num_nulls({col}) = 1 THEN NULL ELSE pg_catalog.format('%s', {col}) END"
    )
}

/// Whether a declared type (as `format_type` writes it) is an array of a
/// type of the server's own, never one the dump defined (whose cast to
/// JSON would be the dump's code): read as its JSON.
fn builtin_array(declared: &str) -> bool {
    let Some(element) = declared.trim().strip_suffix("[]") else {
        return false;
    };
    let base = element.split('(').next().unwrap_or("").trim();
    matches!(
        base,
        "smallint"
            | "integer"
            | "bigint"
            | "real"
            | "double precision"
            | "numeric"
            | "boolean"
            | "text"
            | "character varying"
            | "character"
            | "date"
            | "time without time zone"
            | "timestamp without time zone"
            | "timestamp with time zone"
            | "uuid"
            | "json"
            | "jsonb"
    )
}

/// Whether the driver decodes a column of this type (by `typname` of its
/// base type) into a typed value; the rest are read as their text.
fn decodes(typname: &str) -> bool {
    matches!(
        typname,
        "int2"
            | "int4"
            | "int8"
            | "float4"
            | "float8"
            | "numeric"
            | "bytea"
            | "bool"
            | "date"
            | "time"
            | "timestamp"
            | "timestamptz"
            | "text"
            | "varchar"
            | "bpchar"
            | "name"
    )
}

/// The indexes of the columns named `names`.
fn positions(columns: &[SourceColumn], names: &[String]) -> Vec<usize> {
    names
        .iter()
        .filter_map(|n| columns.iter().position(|c| &c.name == n))
        .collect()
}

/// The session the loaded database is read over: the loader's reading
/// session for a dump (after the load), a live database's own.
fn src<'a>(
    reads: &Reads,
    reader: &'a mut Option<PgConnection>,
    inside: &'a mut Option<PgConnection>,
) -> Result<&'a mut PgConnection, DbError> {
    match reads {
        Reads::Dump => reader
            .as_mut()
            .ok_or_else(|| DbError::connection("the dump's database is read after its load")),
        Reads::Live(_) => open(inside, NAMESPACE_CLOSED),
    }
}

/// The tables read, `(oid, schema, name)`: `public`'s first, then by
/// schema and name. A partitioned table holds its partitions' rows, and
/// each partition is a table of its own too (a query may name either); a
/// populated materialized view is the table of rows it stores (reading it
/// runs nothing of the dump's).
async fn listed_tables(
    conn: &mut PgConnection,
    scope: &str,
) -> Result<Vec<(i64, String, String)>, DbError> {
    let rows = sqlx::query(AssertSqlSafe(format!(
        "SELECT c.oid::int8, n.nspname::text, c.relname::text FROM pg_class c \
         JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE (c.relkind IN ('r', 'p') OR (c.relkind = 'm' AND c.relispopulated)) AND {scope} \
         ORDER BY n.nspname = 'public' DESC, n.nspname, c.relname"
    )))
    .fetch_all(conn)
    .await
    .map_err(pg_error)?;
    Ok(rows
        .iter()
        .map(|t| (t.get(0), t.get(1), t.get(2)))
        .collect())
}

/// A table's columns (a domain's by its base type), and per column whether
/// it is read as text ([`decodes`]).
async fn table_columns(
    conn: &mut PgConnection,
    oid: i64,
) -> Result<(Vec<SourceColumn>, Vec<bool>), DbError> {
    let cols = sqlx::query(
        "SELECT a.attname::text, \
           format_type(COALESCE(NULLIF(ty.typbasetype, 0), a.atttypid), \
             CASE WHEN ty.typtype = 'd' THEN ty.typtypmod ELSE a.atttypmod END), \
           a.attnotnull, \
           (SELECT b.typname::text FROM pg_type b \
             WHERE b.oid = COALESCE(NULLIF(ty.typbasetype, 0), a.atttypid)) \
         FROM pg_attribute a JOIN pg_type ty ON ty.oid = a.atttypid \
         WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped \
         ORDER BY a.attnum",
    )
    .bind(oid)
    .fetch_all(conn)
    .await
    .map_err(pg_error)?;
    let mut columns = Vec::new();
    let mut as_text = Vec::new();
    for c in &cols {
        let typname: String = c.get(3);
        columns.push(SourceColumn {
            name: c.get(0),
            declared: c.get(1),
            not_null: c.get(2),
        });
        as_text.push(!decodes(&typname));
    }
    Ok((columns, as_text))
}

/// A key constraint: its type (`p`, `u`, `f`), its columns, and for a
/// foreign key the parent table and columns.
type KeyRow = (String, Vec<String>, Option<String>, Vec<String>);

/// A table's primary, unique and foreign keys, by type and name; a unique
/// index that no constraint owns (full, valid, on plain columns) is a
/// unique key too.
async fn table_keys(conn: &mut PgConnection, oid: i64) -> Result<Vec<KeyRow>, DbError> {
    let keys = sqlx::query(
        "SELECT kind, cols, parent, pcols FROM ( \
         SELECT k.contype::text AS kind, k.conname::text AS name, \
           ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(n, o) \
                 JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.o) \
             AS cols, \
           (SELECT p.relname::text FROM pg_class p WHERE p.oid = k.confrelid) AS parent, \
           ARRAY(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY u(n, o) \
                 JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.o) \
             AS pcols \
         FROM pg_constraint k WHERE k.conrelid = $1::oid AND k.contype IN ('p', 'u', 'f') \
         UNION ALL \
         SELECT 'u', c.relname::text, \
           ARRAY(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY u(n, o) \
                 JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = u.n \
                 WHERE u.o <= i.indnkeyatts ORDER BY u.o), \
           NULL, ARRAY[]::text[] \
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid \
         WHERE i.indrelid = $1::oid AND i.indisunique AND NOT i.indisprimary AND i.indisvalid \
           AND i.indpred IS NULL AND i.indexprs IS NULL AND NOT (0 = ANY (i.indkey::int2[])) \
           AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid \
                           AND k.conrelid = i.indrelid) \
         ) keys ORDER BY kind, name",
    )
    .bind(oid)
    .fetch_all(conn)
    .await
    .map_err(pg_error)?;
    Ok(keys
        .iter()
        .map(|k| (k.get(0), k.get(1), k.get(2), k.get(3)))
        .collect())
}

/// The keys onto the table: the primary key (unique too), the unique
/// keys, the foreign keys.
fn add_keys(table: &mut SourceTable, keys: Vec<KeyRow>) {
    for (kind, cols, parent, pcols) in keys {
        match kind.as_str() {
            "p" => {
                table.primary_key = positions(&table.columns, &cols);
                table.unique.push(table.primary_key.clone());
            }
            "u" => table.unique.push(positions(&table.columns, &cols)),
            _ => table.foreign_keys.push(SourceForeignKey {
                columns: cols,
                parent_table: parent.unwrap_or_default(),
                parent_columns: pcols.into_iter().map(Some).collect(),
            }),
        }
    }
}

fn qualified(l: &Located) -> String {
    format!("{}.{}", quote(&l.schema), quote(&l.relation))
}

/// SQL true when the object `oid` of the catalogue `catalog` is not a
/// member of an extension.
fn not_of_extension(oid: &str, catalog: &str) -> String {
    format!(
        "NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = {oid} \
         AND d.classid = '{catalog}'::regclass AND d.deptype = 'e')"
    )
}

/// The order-independent checksum of the rows of `from` over the quoted
/// columns `cols`, as the server renders them as text: the row count and
/// the sum of each row's MD5 cut to 60 bits.
fn checksum_sql(from: &str, cols: &[String]) -> String {
    format!(
        "SELECT count(*)::int8, COALESCE(sum(('x' || left(md5(ROW({})::text), 15))::bit(60)::int8), 0)::text \
         FROM {from}",
        cols.join(", ")
    )
}

impl PgDumpNamespace {
    /// The type a column of the loaded `table` gets in the copy's namespace
    /// `ns`, per column: its name, the type (enums are recreated in `ns`;
    /// another type the dump or an extension defines is held as its text,
    /// said in the notes) and NOT NULL.
    fn copy_columns(
        &mut self,
        ns: &str,
        l: &Located,
        notes: &mut Vec<String>,
    ) -> Result<Vec<CopiedColumn>, DbError> {
        let rt = &self.rt;
        let inside = src(&self.reads, &mut self.reader, &mut self.inside)?;
        let cols = rt
            .block_on(
                sqlx::query(
                    "SELECT a.attname::text, \
                       format_type(b.oid, CASE WHEN ty.typtype = 'd' THEN ty.typtypmod ELSE a.atttypmod END), \
                       b.typtype::text, bn.nspname::text, b.typname::text, b.oid::int8, a.attnotnull, \
                       (SELECT cn.nspname::text FROM pg_collation co JOIN pg_namespace cn ON cn.oid = co.collnamespace \
                         WHERE co.oid = a.attcollation AND a.attcollation <> b.typcollation), \
                       (SELECT co.collname::text FROM pg_collation co \
                         WHERE co.oid = a.attcollation AND a.attcollation <> b.typcollation), \
                       (SELECT e.extname::text FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid \
                         WHERE d.classid = 'pg_type'::regclass AND d.deptype = 'e' \
                           AND d.objid IN (b.oid, b.typelem) LIMIT 1) \
                     FROM pg_attribute a JOIN pg_type ty ON ty.oid = a.atttypid \
                     JOIN pg_type b ON b.oid = COALESCE(NULLIF(ty.typbasetype, 0), a.atttypid) \
                     JOIN pg_namespace bn ON bn.oid = b.typnamespace \
                     WHERE a.attrelid = (SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                                         WHERE n.nspname = $1 AND c.relname = $2) \
                       AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
                )
                .bind(&l.schema)
                .bind(&l.relation)
                .fetch_all(&mut *inside),
            )
            .map_err(pg_error)?;
        let mut out = Vec::new();
        for c in cols {
            let name: String = c.get(0);
            let formatted: String = c.get(1);
            let typtype: String = c.get(2);
            let type_schema: String = c.get(3);
            let typname: String = c.get(4);
            let oid: i64 = c.get(5);
            let collation: (Option<String>, Option<String>) = (c.get(7), c.get(8));
            let mut labels = Vec::new();
            let mut sql_type = if type_schema == "pg_catalog" {
                formatted.clone()
            } else if typtype == "e" {
                labels = self.enum_in_copy(ns, &name, &typname, oid)?;
                format!("{}.{}", quote(ns), quote(&typname))
            } else {
                // No form outside the dump's database: its text, as the
                // server renders the value.
                let extension: Option<String> = c.get(9);
                let by = match extension {
                    Some(e) => format!("the extension {e}"),
                    None => "the dump".to_string(),
                };
                notes.push(format!(
                    "column {name}: its type {formatted}, defined by {by}, is held as its text \
                     (what the type does beyond its text, such as its comparisons and \
                     operators, is not kept)"
                ));
                "text".to_string()
            };
            match collation {
                (Some(schema), Some(coll)) if schema == "pg_catalog" => {
                    sql_type = format!("{sql_type} COLLATE pg_catalog.{}", quote(&coll));
                }
                (Some(_), Some(coll)) => {
                    return Err(DbError::refused(format!(
                        "column {name}: its collation {coll} is defined by the dump"
                    )))
                }
                _ => {}
            }
            out.push(CopiedColumn {
                name,
                sql_type,
                labels,
                not_null: c.get(6),
            });
        }
        Ok(out)
    }

    /// The labels of the dump's enum type `typname` (`oid`), in their
    /// order, the type made in the copy's namespace `ns` on first use.
    fn enum_in_copy(
        &mut self,
        ns: &str,
        column: &str,
        typname: &str,
        oid: i64,
    ) -> Result<Vec<String>, DbError> {
        let key = (ns.to_string(), typname.to_string());
        match self.enums.get(&key) {
            Some((made, known)) if *made == oid => return Ok(known.clone()),
            Some(_) => {
                return Err(DbError::refused(format!(
                    "column {column}: two enum types named {typname} in the dump"
                )))
            }
            None => {}
        }
        let rt = &self.rt;
        let inside = src(&self.reads, &mut self.reader, &mut self.inside)?;
        let labels: Vec<String> = rt
            .block_on(
                sqlx::query_scalar(
                    "SELECT enumlabel::text FROM pg_enum WHERE enumtypid = $1::oid \
                     ORDER BY enumsortorder",
                )
                .bind(oid)
                .fetch_all(&mut *inside),
            )
            .map_err(pg_error)?;
        let list = labels
            .iter()
            .map(|v| literal(v, false))
            .collect::<Vec<_>>()
            .join(", ");
        rt.block_on(self.admin.execute(AssertSqlSafe(format!(
            "CREATE TYPE {}.{} AS ENUM ({list})",
            quote(ns),
            quote(typname)
        ))))
        .map_err(pg_error)?;
        self.enums.insert(key, (oid, labels.clone()));
        Ok(labels)
    }

    fn admin_exec(&mut self, sql: String) -> Result<(), DbError> {
        self.rt
            .block_on(self.admin.execute(AssertSqlSafe(sql)))
            .map(|_| ())
            .map_err(pg_error)
    }

    /// `(rows, checksum)` of `from` (quoted) over the quoted `cols`, read by
    /// the administrative login outside (`outside`) or inside the dump's
    /// database.
    fn checksum(
        &mut self,
        outside: bool,
        from: &str,
        cols: &[String],
    ) -> Result<(u64, String), DbError> {
        let rt = &self.rt;
        let conn = if outside {
            &mut self.admin
        } else {
            src(&self.reads, &mut self.reader, &mut self.inside)?
        };
        let row = rt
            .block_on(sqlx::query(AssertSqlSafe(checksum_sql(from, cols))).fetch_one(conn))
            .map_err(pg_error)?;
        Ok((row.get::<i64, _>(0).max(0) as u64, row.get(1)))
    }
}

impl Source for PgDumpNamespace {
    fn schema(&mut self) -> Result<SourceSchema, DbError> {
        let scope = self.schemas_read();
        let rt = &self.rt;
        let conn = src(&self.reads, &mut self.reader, &mut self.inside)?;
        let tables = rt.block_on(listed_tables(conn, &scope))?;
        let mut out = SourceSchema::default();
        let mut located = std::collections::HashMap::new();
        for (oid, schema, relation) in tables {
            if located.contains_key(&relation) {
                out.skipped.push(format!(
                    "table {schema}.{relation}: a table of that name in another schema comes first"
                ));
                continue;
            }
            let (columns, as_text) = rt.block_on(table_columns(conn, oid))?;
            let mut table = SourceTable {
                name: relation.clone(),
                columns,
                primary_key: Vec::new(),
                foreign_keys: Vec::new(),
                unique: Vec::new(),
            };
            add_keys(&mut table, rt.block_on(table_keys(conn, oid))?);
            located.insert(
                relation.clone(),
                Located {
                    schema,
                    relation,
                    as_text,
                },
            );
            out.tables.push(table);
        }
        self.located = located;
        Ok(out)
    }

    fn scan(&mut self, table: &SourceTable, batch: &mut ScanBatch<'_>) -> Result<u64, DbError> {
        let l = self.located(table)?;
        let list = table
            .columns
            .iter()
            .zip(&l.as_text)
            .map(|(c, &text)| {
                if builtin_array(&c.declared) {
                    // Degraded to its JSON (the dialect file's `dump_types`
                    // says so).
                    as_text(&format!("pg_catalog.array_to_json({})", quote(&c.name)))
                } else if text {
                    as_text(&quote(&c.name))
                } else {
                    quote(&c.name)
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!("SELECT {list} FROM {}", qualified(&l));
        let rt = &self.rt;
        let conn = src(&self.reads, &mut self.reader, &mut self.inside)?;
        let rows = sqlx::query(AssertSqlSafe(sql)).fetch(&mut *conn);
        rt.block_on(scan_in_batches(
            rows, decode_row, pg_error, SCAN_BATCH, batch,
        ))
    }

    /// Counted on the server with its own equality (the key function is
    /// not needed: values are read as the server stores them).
    fn key_violations(
        &mut self,
        table: &SourceTable,
        cols: &[usize],
        _kinds: &[TargetKind],
        _key: &Arc<KeyFn>,
    ) -> Result<(u64, u64), DbError> {
        let l = self.located(table)?;
        let (nulls, dups) = KEY_SQL.violations(&qualified(&l), table, cols);
        Ok((self.count(nulls)?, self.count(dups)?))
    }

    fn orphans(
        &mut self,
        child: &SourceTable,
        cols: &[usize],
        parent: &SourceTable,
        pcols: &[usize],
        _kinds: &[TargetKind],
        _key: &Arc<KeyFn>,
        _exact: bool,
    ) -> Result<u64, DbError> {
        let (c, p) = (self.located(child)?, self.located(parent)?);
        self.count(KEY_SQL.orphans(
            (&qualified(&c), child),
            cols,
            (&qualified(&p), parent),
            pcols,
        ))
    }
}

impl DumpNamespace for PgDumpNamespace {
    fn run(&mut self, sql: String, limit: Duration) -> Result<(), DbError> {
        let rt = &self.rt;
        let loader = open(&mut self.loader, LOADER_ENDED)?;
        // The extended protocol: the server parses the text as one
        // statement or refuses it.
        let work = sqlx::query(AssertSqlSafe(sql))
            .persistent(false)
            .execute(loader);
        match within(rt, limit, work) {
            Some(r) => r.map(|_| ()).map_err(pg_error),
            None => {
                self.stop_loader();
                Err(past_limit("statement", limit))
            }
        }
    }

    fn copy_in(
        &mut self,
        sql: &str,
        data: &mut dyn FnMut() -> Result<Option<Vec<u8>>, DbError>,
        limit: Duration,
    ) -> Result<u64, DbError> {
        let rt = &self.rt;
        let loader = open(&mut self.loader, LOADER_ENDED)?;
        let work = async {
            // Parsed first in the extended protocol, which refuses a text of
            // several statements; the same text then starts the COPY.
            loader
                .prepare(sqlx::SqlSafeStr::into_sql_str(AssertSqlSafe(
                    sql.to_string(),
                )))
                .await
                .map_err(pg_error)?;
            let mut copy = loader.copy_in_raw(sql).await.map_err(pg_error)?;
            loop {
                match data() {
                    Ok(Some(chunk)) => {
                        if let Err(e) = copy.send(chunk).await {
                            return Err(pg_error(e));
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        let _ = copy.abort(e.message.clone()).await;
                        return Err(e);
                    }
                }
            }
            copy.finish().await.map_err(pg_error)
        };
        match within(rt, limit, work) {
            Some(r) => r,
            None => {
                self.stop_loader();
                Err(past_limit("COPY", limit))
            }
        }
    }

    fn lexing(&mut self) -> Result<LexSettings, DbError> {
        let rt = &self.rt;
        let loader = open(&mut self.loader, LOADER_ENDED)?;
        // Qualified: a function of the dump's never answers for the server.
        let work = sqlx::query_as::<_, (String, String, String)>(
            "SELECT pg_catalog.current_setting('standard_conforming_strings'), \
             pg_catalog.current_setting('client_encoding'), \
             pg_catalog.current_setting('statement_timeout')",
        )
        .persistent(false)
        .fetch_one(&mut *loader);
        let (scs, encoding, timeout) = match within(rt, SETTINGS_LIMIT, work) {
            Some(r) => r.map_err(pg_error)?,
            None => {
                self.stop_loader();
                return Err(past_limit("settings read", SETTINGS_LIMIT));
            }
        };
        // A limit the dump's code changed is the loader's again.
        let ms = server_limit_ms(self.statement_limit);
        if timeout != format!("{ms}ms") && !self.statement_limit.is_zero() {
            let loader = open(&mut self.loader, LOADER_ENDED)?;
            rt.block_on(
                sqlx::query(AssertSqlSafe(format!("SET statement_timeout = '{ms}ms'")))
                    .persistent(false)
                    .execute(loader),
            )
            .map_err(pg_error)?;
        }
        Ok(LexSettings {
            standard_strings: scs == "on",
            no_backslash_escapes: false,
            ansi_quotes: false,
            client_charset: encoding,
        })
    }

    fn finish_load(&mut self) -> Result<(), DbError> {
        if let Some(l) = self.loader.take() {
            let _ = self.rt.block_on(l.close());
        }
        let opts = self
            .loader_opts
            .clone()
            .ok_or_else(|| DbError::connection(LOADER_ENDED))?
            .application_name("sqlwitness dump reader")
            .statement_cache_capacity(100);
        let (mut reader, pid) = self.connect_loader(&opts)?;
        // The planner's statistics of the loaded tables, gathered as the
        // loader (their owner: an index's expression runs with its rights)
        // within the statement limit: the source's views are read next,
        // and a view over tables never analyzed can be planned so badly
        // that it takes seconds instead of milliseconds. Best effort: a
        // table it cannot analyze is read all the same.
        let limit = server_limit_ms(self.statement_limit);
        for sql in [
            format!("SET statement_timeout = '{limit}ms'"),
            "ANALYZE".to_string(),
        ] {
            let _ = self.rt.block_on(
                sqlx::query(AssertSqlSafe(sql))
                    .persistent(false)
                    .execute(&mut reader),
            );
        }
        for sql in READER_SETUP {
            self.rt
                .block_on(sqlx::query(sql).persistent(false).execute(&mut reader))
                .map_err(pg_error)?;
        }
        // A table whose dump forces its policies on its owner (`FORCE ROW
        // LEVEL SECURITY`) is read whole, as its publisher's load (by a
        // superuser, whom no policy binds) holds it: the loader, its owner,
        // lifts the force; the policies stay and are never run by the
        // reader (`row_security = off`).
        let forced: Vec<String> = self
            .rt
            .block_on(
                sqlx::query_scalar(
                    "SELECT pg_catalog.format('%I.%I', n.nspname, c.relname) \
                     FROM pg_catalog.pg_class c \
                     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
                     WHERE c.relforcerowsecurity AND pg_catalog.pg_get_userbyid(c.relowner) = current_user",
                )
                .persistent(false)
                .fetch_all(&mut reader),
            )
            .map_err(pg_error)?;
        for table in forced {
            let sql = format!("ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY");
            self.rt
                .block_on(
                    sqlx::query(AssertSqlSafe(sql))
                        .persistent(false)
                        .execute(&mut reader),
                )
                .map_err(pg_error)?;
        }
        self.reader = Some(reader);
        self.reader_pid = pid;
        Ok(())
    }
}

impl ServerSource for PgDumpNamespace {
    fn server_version(&mut self) -> Result<String, DbError> {
        self.rt
            .block_on(sqlx::query_scalar("SELECT version()").fetch_one(&mut self.admin))
            .map_err(pg_error)
    }

    fn other_objects(&mut self) -> Result<Vec<String>, DbError> {
        let scope = self.schemas_read();
        // An extension's objects are the extension's: listed as it.
        let own_proc = not_of_extension("p.oid", "pg_proc");
        let own_operator = not_of_extension("o.oid", "pg_operator");
        let own_cast = not_of_extension("k.oid", "pg_cast");
        let rt = &self.rt;
        let conn = src(&self.reads, &mut self.reader, &mut self.inside)?;
        let rows: Vec<String> = rt
            .block_on(
                sqlx::query_scalar(AssertSqlSafe(format!(
                    "SELECT CASE c.relkind WHEN 'v' THEN 'view ' WHEN 'm' THEN 'materialized view ' \
                       ELSE 'foreign table ' END || n.nspname || '.' || c.relname \
                     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                     WHERE (c.relkind IN ('v', 'f') OR (c.relkind = 'm' AND NOT c.relispopulated)) \
                       AND {scope} \
                     UNION ALL \
                     SELECT 'trigger ' || t.tgname || ' on ' || t.tgrelid::regclass::text FROM pg_trigger t \
                     JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace \
                     WHERE NOT t.tgisinternal AND {scope} \
                     UNION ALL \
                     SELECT CASE p.prokind WHEN 'p' THEN 'procedure ' ELSE 'function ' END || n.nspname || '.' || p.proname \
                     FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace \
                     WHERE {scope} AND {own_proc} \
                     UNION ALL \
                     SELECT 'operator ' || n.nspname || '.' || o.oprname || '(' || \
                       format_type(o.oprleft, NULL) || ', ' || format_type(o.oprright, NULL) || ')' \
                     FROM pg_operator o JOIN pg_namespace n ON n.oid = o.oprnamespace \
                     WHERE {scope} AND {own_operator} \
                     UNION ALL \
                     SELECT 'cast (' || format_type(k.castsource, NULL) || ' AS ' || \
                       format_type(k.casttarget, NULL) || ')' FROM pg_cast k \
                     JOIN pg_type ts ON ts.oid = k.castsource JOIN pg_type tt ON tt.oid = k.casttarget \
                     JOIN pg_namespace n ON n.oid IN (ts.typnamespace, tt.typnamespace) \
                     WHERE {scope} AND {own_cast} \
                     UNION ALL \
                     SELECT CASE t.typtype WHEN 'e' THEN 'enum type ' WHEN 'd' THEN 'domain ' \
                       WHEN 'r' THEN 'range type ' ELSE 'composite type ' END || n.nspname || '.' || t.typname \
                     FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace \
                     WHERE {scope} AND (t.typtype IN ('e', 'd', 'r') OR (t.typtype = 'c' AND \
                       (SELECT c.relkind FROM pg_class c WHERE c.oid = t.typrelid) = 'c')) \
                     UNION ALL \
                     SELECT 'extension ' || e.extname || ' (its types held as text in the copies)' \
                     FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace \
                     WHERE {scope} \
                     UNION ALL \
                     SELECT 'rule ' || r.rulename || ' on ' || c.relname FROM pg_rewrite r \
                     JOIN pg_class c ON c.oid = r.ev_class JOIN pg_namespace n ON n.oid = c.relnamespace \
                     WHERE {scope} AND r.rulename <> '_RETURN' \
                     UNION ALL \
                     SELECT 'policy ' || p.polname || ' on ' || c.relname FROM pg_policy p \
                     JOIN pg_class c ON c.oid = p.polrelid JOIN pg_namespace n ON n.oid = c.relnamespace \
                     WHERE {scope} \
                     ORDER BY 1"
                )))
                .fetch_all(conn),
            )
            .map_err(pg_error)?;
        Ok(rows)
    }

    fn views(&mut self) -> Result<Vec<SourceView>, DbError> {
        let scope = self.schemas_read();
        let rt = &self.rt;
        let conn = src(&self.reads, &mut self.reader, &mut self.inside)?;
        let listed: Vec<(i64, String, String)> = rt
            .block_on(
                sqlx::query_as(AssertSqlSafe(format!(
                    "SELECT c.oid::int8, c.relname::text, n.nspname::text \
                     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                     WHERE c.relkind = 'v' AND {scope} ORDER BY c.oid"
                )))
                .fetch_all(&mut *conn),
            )
            .map_err(pg_error)?;
        let mut out = Vec::new();
        for (oid, name, schema) in listed {
            // Printed with the view's own schema first on the path, so that
            // its names come unqualified; the query calls nothing found by
            // that path.
            let definition: Result<String, sqlx::Error> = rt.block_on(async {
                sqlx::query(AssertSqlSafe(format!(
                    "SET search_path = {}, pg_catalog",
                    quote(&schema)
                )))
                .execute(&mut *conn)
                .await?;
                let d = sqlx::query_scalar(
                    "SELECT pg_catalog.pg_get_viewdef($1::pg_catalog.int8::pg_catalog.oid, true)",
                )
                .bind(oid)
                .fetch_one(&mut *conn)
                .await;
                sqlx::query(READER_SETUP[0]).execute(&mut *conn).await?;
                d
            });
            out.push(SourceView {
                name,
                definition: definition
                    .map_err(pg_error)?
                    .trim()
                    .trim_end_matches(';')
                    .to_string(),
            });
        }
        Ok(out)
    }

    fn view_rows(&mut self, name: &str, limit: Duration) -> Result<ResultSet, DbError> {
        let scope = self.schemas_read();
        let rt = &self.rt;
        // A dump's views are read by its loader (the login confined to its
        // database); a live database's by its own login.
        let conn = src(&self.reads, &mut self.reader, &mut self.inside)?;
        let schema: String = rt
            .block_on(
                sqlx::query_scalar(AssertSqlSafe(format!(
                    "SELECT n.nspname::text FROM pg_class c \
                     JOIN pg_namespace n ON n.oid = c.relnamespace \
                     WHERE c.relkind = 'v' AND c.relname = $1 AND {scope} ORDER BY c.oid LIMIT 1"
                )))
                .bind(name)
                .fetch_one(&mut *conn),
            )
            .map_err(pg_error)?;
        let sql = format!("SELECT * FROM {}.{}", quote(&schema), quote(name));
        let work = sqlx::query(AssertSqlSafe(sql)).fetch_all(conn);
        match within(rt, limit, work) {
            Some(r) => {
                let rows = r.map_err(pg_error)?;
                Ok(crate::server::result_set(&rows, decode_row))
            }
            None => {
                match self.reads {
                    Reads::Dump => self.stop_reader(),
                    Reads::Live(_) => self.inside = None,
                }
                Err(past_limit("view", limit))
            }
        }
    }

    fn copy_table(&mut self, ns: &str, table: &SourceTable) -> Result<CopiedTable, DbError> {
        let l = self.located(table)?;
        let mut notes = Vec::new();
        let columns = self.copy_columns(ns, &l, &mut notes)?;
        let target = format!("{}.{}", quote(ns), quote(&table.name));
        let names: Vec<String> = columns.iter().map(|c| quote(&c.name)).collect();
        let defs = crate::dump::column_defs(&columns, quote, "");
        self.admin_exec(format!("CREATE TABLE {target} ({defs})"))?;
        if !names.is_empty() {
            // Text COPY between two tables of the same types on the same
            // server: every value as the server writes and reads it back.
            let out_sql = format!(
                "COPY (SELECT {} FROM {}) TO STDOUT",
                names.join(", "),
                qualified(&l)
            );
            let in_sql = format!("COPY {target} ({}) FROM STDIN", names.join(", "));
            let admin = &mut self.admin;
            let inside = src(&self.reads, &mut self.reader, &mut self.inside)?;
            self.rt.block_on(async {
                use futures_util::TryStreamExt;
                let mut rows = inside.copy_out_raw(&out_sql).await.map_err(pg_error)?;
                let mut copy = admin.copy_in_raw(&in_sql).await.map_err(pg_error)?;
                loop {
                    match rows.try_next().await {
                        Ok(Some(chunk)) => {
                            if let Err(e) = copy.send(chunk).await {
                                return Err(pg_error(e));
                            }
                        }
                        Ok(None) => break,
                        Err(e) => {
                            let _ = copy.abort(e.to_string()).await;
                            return Err(pg_error(e));
                        }
                    }
                }
                drop(rows);
                copy.finish().await.map_err(pg_error)
            })?;
        }
        let (rows_source, checksum_source) = self.checksum(false, &qualified(&l), &names)?;
        let (rows_target, checksum_target) = self.checksum(true, &target, &names)?;
        let mut primary_key = false;
        if !table.primary_key.is_empty() {
            match self.admin_exec(format!(
                "ALTER TABLE {target} ADD PRIMARY KEY ({})",
                crate::dump::column_list(table, &table.primary_key, quote)
            )) {
                Ok(()) => primary_key = true,
                Err(e) => notes.push(format!("primary key not added: {}", e.message)),
            }
        }
        crate::dump::add_unique_keys(
            table,
            &target,
            quote,
            |sql| self.admin_exec(sql),
            &mut notes,
        );
        Ok(CopiedTable {
            name: table.name.clone(),
            columns,
            rows_source,
            rows_target,
            checksum_source,
            checksum_target,
            primary_key,
            notes,
        })
    }

    fn copy_foreign_key(&mut self, ns: &str, table: &SourceTable, k: usize) -> Result<(), DbError> {
        let sql = crate::dump::foreign_key_sql(ns, table, k, quote, false)?;
        self.admin_exec(sql)
    }

    fn close(&mut self) -> Result<(), DbError> {
        if let Reads::Live(_) = self.reads {
            // A live database: only the sessions end.
            if let Some(c) = self.inside.take() {
                let _ = self.rt.block_on(c.close());
            }
            return Ok(());
        }
        if let Some(l) = self.loader.take() {
            let _ = self.rt.block_on(l.close());
        }
        if let Some(r) = self.reader.take() {
            let _ = self.rt.block_on(r.close());
        }
        // The stamp is checked again before the database is dropped.
        let ours = match self.inside.take() {
            Some(mut c) => {
                let stamp = self.rt.block_on(read_stamp(&mut c));
                let _ = self.rt.block_on(c.close());
                stamp.is_some()
            }
            None => false,
        };
        let db = quote(&self.database);
        let role = quote(&self.role);
        let mut first_error = None;
        if self
            .rt
            .block_on(database_exists(&mut self.admin, &self.database))?
        {
            if ours {
                if let Err(e) = self.rt.block_on(
                    self.admin
                        .execute(AssertSqlSafe(format!("DROP DATABASE {db} WITH (FORCE)"))),
                ) {
                    first_error = Some(pg_error(e));
                }
            } else {
                first_error = Some(DbError::refused(format!(
                    "database \"{}\" no longer holds sqlwitness's stamp: it is left in place",
                    self.database
                )));
            }
        }
        if let Err(e) = self.rt.block_on(
            self.admin
                .execute(AssertSqlSafe(format!("DROP ROLE IF EXISTS {role}"))),
        ) {
            first_error.get_or_insert(pg_error(e));
        }
        match first_error {
            Some(e) => Err(e),
            None => {
                // Both gone: their record and lease too.
                let _ = self
                    .rt
                    .block_on(lease::release(&mut self.admin, &self.database));
                crate::lease::let_go(&self.database);
                Ok(())
            }
        }
    }
}

impl Drop for PgDumpNamespace {
    fn drop(&mut self) {
        if self.loader.is_some() || self.inside.is_some() || self.reader.is_some() {
            let _ = self.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(columns: &[&str]) -> SourceTable {
        SourceTable {
            name: "t".into(),
            columns: columns
                .iter()
                .map(|c| SourceColumn {
                    name: c.to_string(),
                    declared: "int".into(),
                    not_null: false,
                })
                .collect(),
            primary_key: Vec::new(),
            foreign_keys: Vec::new(),
            unique: Vec::new(),
        }
    }

    /// The primary key is unique too; a foreign key keeps its columns and
    /// the parent's by name.
    #[test]
    fn add_keys_places_each_kind() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let mut t = table(&["a", "b", "c"]);
        add_keys(
            &mut t,
            vec![
                ("f".into(), names(&["c"]), Some("p".into()), names(&["id"])),
                ("p".into(), names(&["b", "a"]), None, Vec::new()),
                ("u".into(), names(&["c", "gone"]), None, Vec::new()),
            ],
        );
        assert_eq!(t.primary_key, [1, 0]);
        assert_eq!(t.unique, [vec![1, 0], vec![2]]);
        assert_eq!(
            t.foreign_keys,
            [SourceForeignKey {
                columns: names(&["c"]),
                parent_table: "p".into(),
                parent_columns: vec![Some("id".into())],
            }]
        );
    }
}
