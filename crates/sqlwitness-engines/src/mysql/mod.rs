//! The MySQL / MariaDB backend (sqlx, feature `mysql`; `mysql_async` for
//! the bulk-load step alone): read-only queries
//! ([`MysqlEngine`]), migration into it ([`MysqlMigrator`]) and the reader
//! login ([`login`]). MySQL and MariaDB are two engines on this one
//! backend, each with its dialect file.

mod dump;
mod infile;
pub(crate) mod lease;
mod login;
mod read;
mod write;

pub use dump::MysqlDumpNamespace;
pub(crate) use login::{
    create_run_login, drop_run_login, grant_run_login, mysql_excess_privileges,
};
pub use read::MysqlEngine;
pub use write::MysqlMigrator;

/// The MySQL family (MySQL and MariaDB): readers, a writer, dumps'
/// namespaces and live sources on a server; the mysql client's options.
pub(crate) const FAMILY: crate::family::Family = crate::family::Family {
    adapter: sqlwitness_dialect::Adapter::Mysql,
    embedded: false,
    open: open_reader,
    migrator: Some(open_migrator),
    dump_namespace: Some(open_dump_namespace),
    live_source: Some(open_live_source),
    file_source: None,
    default_url: None,
    client_options: Some(crate::mysql_client_options),
    logins: Some(&LOGINS),
    leases: Some(&crate::family::Leases {
        sweep: lease::sweep,
        remove: lease::remove,
    }),
};

/// Run logins: accounts with grants of their own, copied from the reader's
/// when made (a namespace made later is granted by `grant`).
const LOGINS: crate::family::Logins = crate::family::Logins {
    create: create_login,
    grant: Some(grant_login),
    drop: drop_login,
    url_without_database: true,
};

fn create_login(
    admin_url: &str,
    name: &str,
    password: &str,
    stale_before: u64,
    reads: crate::login::RunReads<'_>,
) -> Result<(), sqlwitness_core::DbError> {
    create_run_login(admin_url, name, password, stale_before, reads)
        .map_err(crate::server::driver_error)
}

fn grant_login(admin_url: &str, name: &str, ns: &str) -> Result<(), sqlwitness_core::DbError> {
    grant_run_login(admin_url, name, ns).map_err(crate::server::driver_error)
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
    let e = MysqlEngine::connect_as(dialect, url, pool_size)?;
    Ok(crate::Opened {
        excess_privileges: e.excess_privileges().to_vec(),
        engine: Box::new(e),
    })
}

fn open_migrator(
    dialect: sqlwitness_dialect::Dialect,
    url: &str,
) -> Result<Box<dyn sqlwitness_core::Migrator>, sqlwitness_core::DbError> {
    Ok(Box::new(MysqlMigrator::connect(dialect, url)?))
}

fn open_dump_namespace(
    dialect: sqlwitness_dialect::Dialect,
    url: &str,
    ns: &str,
    stamp: &sqlwitness_core::Stamp,
    statement_limit: std::time::Duration,
    _dump_bytes: u64,
) -> Result<Box<dyn sqlwitness_core::DumpNamespace>, sqlwitness_core::DbError> {
    Ok(Box::new(MysqlDumpNamespace::create(
        dialect,
        url,
        ns,
        stamp,
        statement_limit,
    )?))
}

fn open_live_source(
    kind: sqlwitness_core::EngineKind,
    dialect: sqlwitness_dialect::Dialect,
    admin_url: &str,
    source_url: &str,
    schema: Option<&str>,
) -> Result<Box<dyn sqlwitness_core::ServerSource>, sqlwitness_core::DbError> {
    match schema {
        Some(_) => Err(sqlwitness_core::DbError::refused(format!(
            "{kind}: a database is its own schema; name it in the URL"
        ))),
        None => Ok(Box::new(MysqlDumpNamespace::attach(
            dialect, admin_url, source_url,
        )?)),
    }
}
