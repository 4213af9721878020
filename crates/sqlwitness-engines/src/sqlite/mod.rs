//! The SQLite backend (rusqlite, blocking, always built): queries on a
//! benchmark file ([`SqliteEngine`]) and the file as a migration source
//! ([`SqliteSource`]).

mod read;
mod source;

pub use read::{sqlite_probe, sqlite_schema_names, sqlite_value, SqliteEngine, SQLITE_HEAP_LIMIT};
pub use source::SqliteSource;

/// The SQLite family: readers on the benchmark's own files, which are also
/// the migration's sources; no writer, no dumps.
pub(crate) const FAMILY: crate::family::Family = crate::family::Family {
    adapter: sqlwitness_dialect::Adapter::Sqlite,
    embedded: true,
    open: open_reader,
    migrator: None,
    dump_namespace: None,
    live_source: None,
    file_source: Some(open_file_source),
    default_url: None,
    client_options: None,
    logins: None,
    leases: None,
};

fn open_reader(
    _kind: sqlwitness_core::EngineKind,
    dialect: sqlwitness_dialect::Dialect,
    _url: Option<&str>,
    _pool_size: u32,
) -> Result<crate::Opened, crate::EngineError> {
    Ok(crate::Opened {
        engine: Box::new(SqliteEngine::with_dialect(dialect)),
        excess_privileges: Vec::new(),
    })
}

fn open_file_source(
    path: &std::path::Path,
) -> Result<Box<dyn sqlwitness_core::Source>, sqlwitness_core::DbError> {
    Ok(Box::new(SqliteSource::open(path)?))
}
