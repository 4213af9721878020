//! The PostgreSQL backend (sqlx, feature `postgres`): read-only queries
//! ([`PostgresEngine`]), migration into it ([`PgMigrator`]) and the reader
//! login ([`login`]).

mod dump;
pub(crate) mod lease;
mod login;
mod read;
mod write;

pub use dump::PgDumpNamespace;
pub(crate) use login::{create_run_login, drop_run_login, postgres_excess_privileges};
pub use read::{PostgresEngine, PLANNER_SETTINGS};
pub use write::PgMigrator;
