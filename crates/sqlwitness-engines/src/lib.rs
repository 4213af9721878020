//! sqlwitness-engines: the adapters that run read-only queries on SQLite
//! (rusqlite, always built), PostgreSQL and MySQL/MariaDB (sqlx, behind the
//! `postgres` and `mysql` features), plus a `docker run` launcher for
//! throw-away servers.
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

pub use container::{ContainerImage, ContainerPlan, RunningContainer};
pub use error::{mask_url, EngineError};
#[cfg(feature = "mysql")]
pub use mysql::MysqlEngine;
#[cfg(feature = "postgres")]
pub use postgres::PostgresEngine;
#[cfg(feature = "postgres")]
pub use reader::grant_postgres;
#[cfg(feature = "mysql")]
pub use reader::{grant_mysql, revoke_mysql};
pub use reader::{
    reader_password, reader_url, DEFAULT_READER_PASSWORD, READER_LOGIN, READER_PASSWORD_ENV,
};
pub use sqlite::{sqlite_schema_names, sqlite_value, SqliteEngine, SQLITE_HEAP_LIMIT};

use sqlwitness_core::{Engine, EngineKind};

/// Default pool size used by [`connect`].
pub const DEFAULT_MAX_CONNECTIONS: u32 = 4;

/// Opens an engine of `kind`. SQLite needs no URL; PostgreSQL and MySQL need
/// one (`url`), and fail with [`EngineError::NotCompiled`] when this build
/// lacks their feature.
pub fn connect(kind: EngineKind, url: Option<&str>) -> Result<Box<dyn Engine>, EngineError> {
    match kind {
        EngineKind::Sqlite => Ok(Box::new(SqliteEngine::new())),
        EngineKind::Postgres => {
            let url = url.ok_or(EngineError::MissingUrl { engine: kind })?;
            #[cfg(feature = "postgres")]
            {
                Ok(Box::new(PostgresEngine::connect(
                    url,
                    DEFAULT_MAX_CONNECTIONS,
                )?))
            }
            #[cfg(not(feature = "postgres"))]
            {
                let _ = url;
                Err(EngineError::NotCompiled { engine: kind })
            }
        }
        EngineKind::Mysql => {
            let url = url.ok_or(EngineError::MissingUrl { engine: kind })?;
            #[cfg(feature = "mysql")]
            {
                Ok(Box::new(MysqlEngine::connect(
                    url,
                    DEFAULT_MAX_CONNECTIONS,
                )?))
            }
            #[cfg(not(feature = "mysql"))]
            {
                let _ = url;
                Err(EngineError::NotCompiled { engine: kind })
            }
        }
    }
}
