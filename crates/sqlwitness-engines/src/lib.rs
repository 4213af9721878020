//! sqlwitness-engines: the adapters that run read-only queries on SQLite
//! (rusqlite, always built), PostgreSQL and MySQL/MariaDB (sqlx, behind the
//! `postgres` and `mysql` features), plus throw-away servers in Docker
//! (`container`; started through testcontainers with the `containers`
//! feature).
//!
//! Every adapter implements the synchronous [`sqlwitness_core::Engine`]
//! trait; the server adapters bridge to sqlx's async API once, inside, on a
//! small runtime they own.

mod container;
mod error;
#[cfg(feature = "mysql")]
mod mysql;
#[cfg(feature = "postgres")]
mod postgres;
mod reader;
#[cfg(any(feature = "postgres", feature = "mysql"))]
mod server;
mod sqlite;

pub use container::{
    default_image, fresh_password, run_id, ContainerPlan, HealthCheck, ImageRef,
    CONTAINER_DATABASE, CONTAINER_USER, LABEL as CONTAINER_LABEL, RUN_LABEL as CONTAINER_RUN_LABEL,
};
#[cfg(feature = "containers")]
pub use container::{docker_available, remove_run, start_container, StartedServer};
pub use error::{mask_url, EngineError};
#[cfg(feature = "mysql")]
pub use mysql::MysqlEngine;
#[cfg(feature = "postgres")]
pub use postgres::PostgresEngine;
#[cfg(feature = "mysql")]
pub use reader::{ensure_reader_mysql, grant_database_mysql, grant_mysql, revoke_mysql};
#[cfg(feature = "postgres")]
pub use reader::{ensure_reader_postgres, grant_postgres, grant_schema_postgres};
pub use reader::{
    reader_password, reader_url, DEFAULT_READER_PASSWORD, READER_LOGIN, READER_PASSWORD_ENV,
};
pub use sqlite::{sqlite_schema_names, sqlite_value, SqliteEngine, SQLITE_HEAP_LIMIT};

use sqlwitness_core::{Engine, EngineKind};
use sqlwitness_dialect::Adapter;

/// Default pool size used by [`connect`].
pub const DEFAULT_MAX_CONNECTIONS: u32 = 4;

/// A connected engine with what its login may do beyond reading the
/// benchmark copies (empty for SQLite and for a least-privilege login).
pub struct Opened {
    pub engine: Box<dyn Engine>,
    pub excess_privileges: Vec<String>,
}

/// The engine registry's one entry point: opens the engine of `kind` with
/// the adapter its dialect file names. SQLite needs no URL; a server needs
/// one (`url`) and fails with [`EngineError::NotCompiled`] when this build
/// lacks its adapter's feature, with [`EngineError::WrongServer`] when the
/// URL reaches another engine.
pub fn open(kind: EngineKind, url: Option<&str>, pool_size: u32) -> Result<Opened, EngineError> {
    let dialect = sqlwitness_dialect::builtin(kind);
    match dialect.adapter {
        Adapter::Sqlite => Ok(Opened {
            engine: Box::new(SqliteEngine::with_dialect(dialect)),
            excess_privileges: Vec::new(),
        }),
        Adapter::Postgres => {
            let url = url.ok_or(EngineError::MissingUrl { engine: kind })?;
            #[cfg(feature = "postgres")]
            {
                let e = PostgresEngine::connect_as(dialect, url, pool_size)?;
                Ok(Opened {
                    excess_privileges: e.excess_privileges().to_vec(),
                    engine: Box::new(e),
                })
            }
            #[cfg(not(feature = "postgres"))]
            {
                let _ = (url, pool_size);
                Err(EngineError::NotCompiled { engine: kind })
            }
        }
        Adapter::Mysql => {
            let url = url.ok_or(EngineError::MissingUrl { engine: kind })?;
            #[cfg(feature = "mysql")]
            {
                let e = MysqlEngine::connect_as(dialect, url, pool_size)?;
                Ok(Opened {
                    excess_privileges: e.excess_privileges().to_vec(),
                    engine: Box::new(e),
                })
            }
            #[cfg(not(feature = "mysql"))]
            {
                let _ = (url, pool_size);
                Err(EngineError::NotCompiled { engine: kind })
            }
        }
    }
}

/// [`open`] with [`DEFAULT_MAX_CONNECTIONS`], the engine only.
pub fn connect(kind: EngineKind, url: Option<&str>) -> Result<Box<dyn Engine>, EngineError> {
    open(kind, url, DEFAULT_MAX_CONNECTIONS).map(|o| o.engine)
}
