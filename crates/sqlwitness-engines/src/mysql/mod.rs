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
