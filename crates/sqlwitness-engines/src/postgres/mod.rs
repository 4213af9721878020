//! The PostgreSQL backend (sqlx, feature `postgres`): read-only queries
//! ([`PostgresEngine`]), migration into it ([`PgMigrator`]) and the reader
//! login ([`login`]).

mod binary_text;
mod dump;
pub(crate) mod lease;
mod login;
mod read;
mod relay;
mod write;

pub use dump::PgDumpNamespace;
pub(crate) use login::{create_run_login, drop_run_login, postgres_excess_privileges};
pub use read::{PostgresEngine, PLANNER_SETTINGS};
pub use write::PgMigrator;

/// The PostgreSQL family: readers, a writer, dumps' namespaces and live
/// sources on a server.
pub(crate) const FAMILY: crate::family::Family = crate::family::Family {
    adapter: sqlwitness_dialect::Adapter::Postgres,
    embedded: false,
    open: open_reader,
    migrator: Some(open_migrator),
    dump_namespace: Some(open_dump_namespace),
    live_source: Some(open_live_source),
    file_source: None,
    default_url: None,
    client_options: None,
    logins: Some(&LOGINS),
    leases: Some(&crate::family::Leases {
        sweep: lease::sweep,
        remove: lease::remove,
    }),
};

/// Run logins: members of the reader role (its grants are theirs).
const LOGINS: crate::family::Logins = crate::family::Logins {
    create: create_login,
    grant: None,
    drop: drop_login,
    url_without_database: false,
};

fn create_login(
    admin_url: &str,
    name: &str,
    password: &str,
    stale_before: u64,
    _reads: crate::login::RunReads<'_>,
) -> Result<(), sqlwitness_core::DbError> {
    create_run_login(admin_url, name, password, stale_before).map_err(crate::server::driver_error)
}

fn drop_login(admin_url: &str, name: &str) {
    let _ = drop_run_login(admin_url, name);
}

fn open_reader(
    kind: sqlwitness_core::EngineKind,
    dialect: sqlwitness_dialect::Dialect,
    url: Option<&str>,
    pool_size: u32,
) -> Result<crate::Opened, crate::EngineError> {
    let url = url.ok_or(crate::EngineError::MissingUrl { engine: kind })?;
    let e = PostgresEngine::connect_as(dialect, url, pool_size)?;
    Ok(crate::Opened {
        excess_privileges: e.excess_privileges().to_vec(),
        engine: Box::new(e),
    })
}

fn open_migrator(
    dialect: sqlwitness_dialect::Dialect,
    url: &str,
) -> Result<Box<dyn sqlwitness_core::Migrator>, sqlwitness_core::DbError> {
    Ok(Box::new(PgMigrator::connect(dialect, url)?))
}

fn open_dump_namespace(
    _dialect: sqlwitness_dialect::Dialect,
    url: &str,
    ns: &str,
    stamp: &sqlwitness_core::Stamp,
    statement_limit: std::time::Duration,
    dump_bytes: u64,
) -> Result<Box<dyn sqlwitness_core::DumpNamespace>, sqlwitness_core::DbError> {
    Ok(Box::new(PgDumpNamespace::create(
        url,
        ns,
        stamp,
        statement_limit,
        dump_bytes,
    )?))
}

fn open_live_source(
    _kind: sqlwitness_core::EngineKind,
    _dialect: sqlwitness_dialect::Dialect,
    admin_url: &str,
    source_url: &str,
    schema: Option<&str>,
) -> Result<Box<dyn sqlwitness_core::ServerSource>, sqlwitness_core::DbError> {
    Ok(Box::new(PgDumpNamespace::attach(
        admin_url, source_url, schema,
    )?))
}
