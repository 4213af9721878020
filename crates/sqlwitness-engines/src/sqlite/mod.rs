//! The SQLite backend (rusqlite, blocking, always built): queries on a
//! benchmark file ([`SqliteEngine`]) and the file as a migration source
//! ([`SqliteSource`]).

mod read;
mod source;

pub use read::{sqlite_probe, sqlite_schema_names, sqlite_value, SqliteEngine, SQLITE_HEAP_LIMIT};
pub use source::SqliteSource;
