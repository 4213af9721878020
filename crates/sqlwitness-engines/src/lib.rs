//! sqlwitness-engines: one backend per engine family — SQLite (rusqlite,
//! always built), PostgreSQL and MySQL/MariaDB (sqlx, behind the
//! `postgres` and `mysql` features) — each reading (the synchronous
//! [`sqlwitness_core::Engine`]), writing (the [`sqlwitness_core::Migrator`]
//! of migration; SQLite files are read as a [`sqlwitness_core::Source`])
//! and managing its reader login; plus throw-away servers in Docker
//! (`container`; started through testcontainers with the `containers`
//! feature).
//!
//! The server backends bridge to sqlx's async API once, inside, on a small
//! runtime they own. Each family registers what it opens in one table
//! (`family`); [`open`], [`open_migrator`], [`open_dump_namespace`],
//! [`open_live_source`] and [`open_source`] look the engine's family up
//! there by its dialect file; [`open_embedded`] opens an engine that runs
//! in this process (SQLite, DuckDB) as a shared value, the way every crate
//! outside this one gets an embedded engine.

mod container;
#[cfg(any(feature = "postgres", feature = "mysql"))]
mod dump;
mod error;
mod family;
mod lease;
mod login;
#[cfg(feature = "mysql")]
mod mysql;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(any(feature = "postgres", feature = "mysql"))]
mod server;
mod sqlite;
mod values;
mod watchdog;

pub use container::{
    default_image, fresh_password, run_id, ContainerPlan, HealthCheck, ImageRef,
    CONTAINER_DATABASE, CONTAINER_USER, LABEL as CONTAINER_LABEL, RUN_LABEL as CONTAINER_RUN_LABEL,
};
#[cfg(feature = "containers")]
pub use container::{docker_available, remove_run, start_container, StartedServer};
pub use error::{mask_url, EngineError};
#[cfg(any(feature = "postgres", feature = "mysql"))]
pub use lease::RunLease;
pub use lease::{lease_namespace, unlease_namespace};
pub use lease::{remove_held, sweep, sweep_again, REGISTRY};
pub use login::{
    client_options, mysql_client_options, reader_password, reader_url, RunLogin,
    DEFAULT_READER_PASSWORD, READER_LOGIN, READER_PASSWORD_ENV, RUN_LOGIN_PREFIX,
};
#[cfg(feature = "mysql")]
pub use mysql::{MysqlDumpNamespace, MysqlEngine, MysqlMigrator};
#[cfg(feature = "postgres")]
pub use postgres::{PgDumpNamespace, PgMigrator, PostgresEngine, PLANNER_SETTINGS};
pub use sqlite::{
    sqlite_probe, sqlite_schema_names, sqlite_value, SqliteEngine, SqliteSource, SQLITE_HEAP_LIMIT,
};

use sqlwitness_core::{
    DbError, DumpNamespace, Engine, EngineKind, Migrator, ServerSource, Source, Stamp,
};

/// Default pool size used by [`connect`].
pub const DEFAULT_MAX_CONNECTIONS: u32 = 4;

/// A connected engine with what its login may do beyond reading the
/// benchmark copies (empty for SQLite and for a least-privilege login).
pub struct Opened {
    pub engine: Box<dyn Engine>,
    pub excess_privileges: Vec<String>,
}

/// An adapter's factory: opens an engine of the adapter with the engine's
/// dialect ([`register_adapter`]).
pub type AdapterFactory = std::sync::Arc<
    dyn Fn(sqlwitness_dialect::Dialect) -> Result<Box<dyn Engine>, EngineError> + Send + Sync,
>;

/// Adapters registered at run time, by name.
static FACTORIES: std::sync::RwLock<Vec<(String, AdapterFactory)>> =
    std::sync::RwLock::new(Vec::new());

/// Registers an adapter under `name`: an engine whose dialect file says
/// `factory: <name>` is opened by `factory` (a later registration of the
/// same name replaces it).
pub fn register_adapter(name: &str, factory: AdapterFactory) {
    let mut all = FACTORIES.write().unwrap_or_else(|p| p.into_inner());
    all.retain(|(n, _)| n != name);
    all.push((name.to_string(), factory));
}

fn registered_adapter(name: &str) -> Option<AdapterFactory> {
    FACTORIES
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, f)| f.clone())
}

/// The engine registry's one entry point: opens the engine of `kind` with
/// the adapter its dialect file names (a registered adapter when it names a
/// `factory`). SQLite needs no URL; a server needs one (`url`) and fails
/// with [`EngineError::NotCompiled`] when this build lacks its adapter's
/// feature, with [`EngineError::WrongServer`] when the URL reaches another
/// engine.
pub fn open(kind: EngineKind, url: Option<&str>, pool_size: u32) -> Result<Opened, EngineError> {
    let dialect = sqlwitness_dialect::builtin(kind);
    if let Some(name) = dialect.factory.clone() {
        let factory = registered_adapter(&name).ok_or(EngineError::NoAdapter {
            engine: kind,
            adapter: name,
        })?;
        return Ok(Opened {
            engine: factory(dialect)?,
            excess_privileges: Vec::new(),
        });
    }
    let family = family::of(dialect.adapter).ok_or(EngineError::NotCompiled { engine: kind })?;
    (family.open)(kind, dialect, url, pool_size)
}

/// The URL an engine holding its copies in files of its own uses when
/// none is given (DuckDB: a folder of the user's cache); `None` for an
/// engine that needs one given.
pub fn default_url(kind: EngineKind) -> Option<String> {
    family::of_kind(kind)
        .and_then(|f| f.default_url)
        .map(|url| url())
}

/// The engine that reads database files in place: the files a benchmark
/// ships, and those sqlwitness writes like them (fuzz's instances,
/// perturb's copies), are SQLite files. This names their format, not a
/// reference: which engine judges a run is the run's choice, and an engine
/// on copies of its own reads such a file once it is migrated there.
pub const IN_PLACE: EngineKind = EngineKind::Sqlite;

/// Whether `kind`'s family runs in this process on database files, with
/// no server and no login (SQLite, DuckDB), as its descriptor in the
/// registry says; false for a server engine and for one this build lacks.
pub fn embedded(kind: EngineKind) -> bool {
    family::of_kind(kind).is_some_and(|f| f.embedded)
}

/// Opens embedded engine `kind` ([`embedded`]) as a value to share: an
/// engine reading a [`sqlwitness_core::Database`]'s own file (SQLite), or
/// the copies in the folder `url` names (DuckDB; by default its family's
/// folder, [`default_url`]). A server engine is refused with
/// [`EngineError::NotEmbedded`]: it is opened over its URL and login
/// ([`open`]).
pub fn open_embedded(
    kind: EngineKind,
    url: Option<&str>,
) -> Result<std::sync::Arc<dyn Engine>, EngineError> {
    if !embedded(kind) {
        return Err(match family::of_kind(kind) {
            Some(_) => EngineError::NotEmbedded { engine: kind },
            None => EngineError::NotCompiled { engine: kind },
        });
    }
    let url = url.map(str::to_string).or_else(|| default_url(kind));
    let opened = open(kind, url.as_deref(), DEFAULT_MAX_CONNECTIONS)?;
    Ok(std::sync::Arc::from(opened.engine))
}

/// [`open`] with [`DEFAULT_MAX_CONNECTIONS`], the engine only.
pub fn connect(kind: EngineKind, url: Option<&str>) -> Result<Box<dyn Engine>, EngineError> {
    open(kind, url, DEFAULT_MAX_CONNECTIONS).map(|o| o.engine)
}

/// [`sweep`] of the server, what it dropped said on standard error; a
/// sweep that fails is left to the next command.
pub(crate) fn sweep_quietly(kind: EngineKind, url: &str) {
    if let Ok(dropped) = sweep(kind, url) {
        if !dropped.is_empty() {
            eprintln!(
                "sqlwitness: {kind}: removed what an interrupted run left: {}",
                dropped.join(", ")
            );
        }
    }
}

/// The write side of `kind` over its administrative `url` (migration).
/// An engine without a server backend in this build is an error of class
/// `other` naming it.
pub fn open_migrator(kind: EngineKind, url: &str) -> Result<Box<dyn Migrator>, DbError> {
    let open = family::of_kind(kind)
        .and_then(|f| f.migrator)
        .ok_or_else(|| family::lacks(kind, "no migration target"))?;
    sweep_quietly(kind, url);
    open(sqlwitness_dialect::builtin(kind), url)
}

/// A namespace `ns` on the server of `kind` (administrative `url`) made to
/// load a SQL dump into, stamped with `stamp`, with a loader login of its
/// own whose statements the server also stops past `statement_limit`, and
/// whose temporary files may reach the size of the dump, `dump_bytes`
/// (PostgreSQL; at least 512 MB) ([`DumpNamespace`]).
pub fn open_dump_namespace(
    kind: EngineKind,
    url: &str,
    ns: &str,
    stamp: &Stamp,
    statement_limit: std::time::Duration,
    dump_bytes: u64,
) -> Result<Box<dyn DumpNamespace>, DbError> {
    let open = family::of_kind(kind)
        .and_then(|f| f.dump_namespace)
        .ok_or_else(|| family::lacks(kind, "dumps of this engine cannot be loaded"))?;
    sweep_quietly(kind, url);
    open(
        sqlwitness_dialect::builtin(kind),
        url,
        ns,
        stamp,
        statement_limit,
        dump_bytes,
    )
}

/// A live database on a server of `kind` (`source_url`, over the login it
/// names; on PostgreSQL `schema` keeps one schema) read, never changed, as
/// a [`ServerSource`]; its tables are copied into benchmark namespaces over
/// the administrative `admin_url`.
pub fn open_live_source(
    kind: EngineKind,
    admin_url: &str,
    source_url: &str,
    schema: Option<&str>,
) -> Result<Box<dyn ServerSource>, DbError> {
    let open = family::of_kind(kind)
        .and_then(|f| f.live_source)
        .ok_or_else(|| family::lacks(kind, "no live source"))?;
    open(
        kind,
        sqlwitness_dialect::builtin(kind),
        admin_url,
        source_url,
        schema,
    )
}

/// A benchmark database file of `kind` opened read-only as a migration
/// source.
pub fn open_source(kind: EngineKind, path: &std::path::Path) -> Result<Box<dyn Source>, DbError> {
    let open = family::of_kind(kind)
        .and_then(|f| f.file_source)
        .ok_or_else(|| {
            family::lacks(
                kind,
                "a database file of this engine cannot be read as a source",
            )
        })?;
    open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_engines_open_through_the_registry_and_servers_are_refused() {
        let files = open_embedded(IN_PLACE, None).unwrap();
        assert_eq!(files.kind(), IN_PLACE);
        assert!(embedded(IN_PLACE));
        let folder = std::env::temp_dir().join("sqlwitness-open-embedded");
        let url = format!("duckdb:{}", folder.display());
        let duckdb = open_embedded(EngineKind::Duckdb, Some(&url)).unwrap();
        assert_eq!(duckdb.kind(), EngineKind::Duckdb);
        assert!(embedded(EngineKind::Duckdb));
        for server in [EngineKind::Postgres, EngineKind::Mysql, EngineKind::Mariadb] {
            assert!(!embedded(server), "{server}");
            let refused = open_embedded(server, Some("postgres://nowhere")).err();
            assert!(
                matches!(
                    refused,
                    Some(EngineError::NotEmbedded { .. } | EngineError::NotCompiled { .. })
                ),
                "{server}: {refused:?}"
            );
        }
    }
}
