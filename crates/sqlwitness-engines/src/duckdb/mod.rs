//! The DuckDB adapter (the `duckdb` crate's bundled build): embedded, on
//! copies of its own. Each benchmark database is migrated into one DuckDB
//! file, `<namespace>.duckdb`, in the folder the engine's URL names
//! (`duckdb:/path/to/folder`); queries read that file.
//!
//! Every instance — the reader's and the migrator's — runs without access
//! to files or the network (`enable_external_access = false`), without
//! installing or loading extensions, with its configuration locked; the
//! reader's is read-only besides, with a memory limit and one thread, and
//! each query runs on a connection of its own (a temporary table or macro a
//! query makes dies with it) stopped at its deadline by an interrupt.

mod read;
mod write;

pub use read::DuckdbEngine;
pub use write::DuckdbMigrator;

use std::path::{Path, PathBuf};

use sqlwitness_core::{DbError, ErrorClass};
use sqlwitness_dialect::Dialect;

/// The URL scheme of a DuckDB folder: `duckdb:/path` or `duckdb:///path`.
pub const DUCKDB_SCHEME: &str = "duckdb:";

/// The DuckDB family: readers and a writer on copies in files of its own,
/// in the folder its URL names (by default one of the user's cache).
pub(crate) const FAMILY: crate::family::Family = crate::family::Family {
    adapter: sqlwitness_dialect::Adapter::named("duckdb"),
    embedded: true,
    open: open_reader,
    migrator: Some(open_migrator),
    dump_namespace: None,
    live_source: None,
    file_source: None,
    default_url: Some(default_url),
    client_options: None,
    logins: None,
    leases: None,
};

fn open_reader(
    kind: sqlwitness_core::EngineKind,
    dialect: Dialect,
    url: Option<&str>,
    _pool_size: u32,
) -> Result<crate::Opened, crate::EngineError> {
    let url = url.ok_or(crate::EngineError::MissingUrl { engine: kind })?;
    let engine = DuckdbEngine::open(dialect, url)
        .map_err(|e| crate::EngineError::connect(kind, url, e.message))?;
    Ok(crate::Opened {
        engine: Box::new(engine),
        excess_privileges: Vec::new(),
    })
}

fn open_migrator(
    dialect: Dialect,
    url: &str,
) -> Result<Box<dyn sqlwitness_core::Migrator>, DbError> {
    Ok(Box::new(DuckdbMigrator::connect(dialect, url)?))
}

/// The folder a `duckdb:` URL names.
pub(crate) fn folder_of(url: &str) -> Result<PathBuf, DbError> {
    let bad = || {
        DbError::new(
            ErrorClass::Other,
            None,
            format!("`{url}`: a DuckDB URL names a folder: duckdb:/path/to/folder"),
        )
    };
    let rest = url.trim().strip_prefix(DUCKDB_SCHEME).ok_or_else(bad)?;
    let path = rest.strip_prefix("//").unwrap_or(rest);
    if path.is_empty() {
        return Err(bad());
    }
    Ok(PathBuf::from(path))
}

/// The default folder of DuckDB copies: `duckdb` in sqlwitness's cache
/// (`$XDG_CACHE_HOME/sqlwitness`, else `~/.cache/sqlwitness`, else the
/// system's temporary folder), as a URL.
pub fn default_url() -> String {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })
        .unwrap_or_else(std::env::temp_dir);
    let folder = base.join("sqlwitness").join("duckdb");
    format!("{DUCKDB_SCHEME}{}", folder.display())
}

/// The file of namespace `ns` in `folder`. A namespace is benchmark input
/// (a `db_id`): every byte outside `[A-Za-z0-9_-]` is written as `%XX`, so
/// no name reaches outside the folder or names another file.
pub(crate) fn file_of(folder: &Path, ns: &str) -> PathBuf {
    let mut name = String::with_capacity(ns.len() + 7);
    for b in ns.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' {
            name.push(b as char);
        } else {
            name.push_str(&format!("%{b:02X}"));
        }
    }
    name.push_str(".duckdb");
    folder.join(name)
}

/// `config` with the settings every instance opens with, applied last
/// (DuckDB refuses a file setting once external access is off): no files,
/// no network, no extensions, configuration locked.
fn locked(config: duckdb::Config) -> Result<duckdb::Config, duckdb::Error> {
    config
        .enable_external_access(false)?
        .enable_autoload_extension(false)?
        .with("autoinstall_known_extensions", "false")?
        .with("allow_community_extensions", "false")?
        .with("lock_configuration", "true")
}

/// The server version text, as `SELECT version()` gives it (`v2.0.0`).
pub(crate) fn library_version() -> String {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION
        .get_or_init(|| {
            duckdb::Connection::open_in_memory()
                .and_then(|c| c.query_row("SELECT version()", [], |r| r.get::<_, String>(0)))
                .map(|v| format!("DuckDB {v}"))
                .unwrap_or_else(|_| "DuckDB".to_string())
        })
        .clone()
}

/// A DuckDB error with its class: DuckDB gives no codes, so the error's
/// type at the start of its message (`Binder Error: …`) is the code
/// (`binder`), which the dialect's rules match with the message's first
/// line.
pub(crate) fn db_error(dialect: &Dialect, e: duckdb::Error, place: Option<&Path>) -> DbError {
    let message = match &e {
        duckdb::Error::DuckDBFailure(_, Some(m)) => m.clone(),
        other => other.to_string(),
    };
    let code = error_type(&message);
    // The first line says what failed; the lines after it quote the query
    // (`LINE 1: … ORDER BY …`), which no rule may read as the cause.
    let class = dialect.classify(code.as_deref(), message.lines().next().unwrap_or(""));
    let message = match place {
        Some(p) => format!("{}: {message}", p.display()),
        None => message,
    };
    DbError::new(class, code, message)
}

/// `binder` for `Binder Error: …`, `out_of_memory` for `Out of Memory
/// Error: …`; `None` when the message does not start with an error type.
fn error_type(message: &str) -> Option<String> {
    let head = message.split_once(" Error:")?.0;
    if head.is_empty()
        || head.len() > 40
        || !head.bytes().all(|b| b.is_ascii_alphabetic() || b == b' ')
    {
        return None;
    }
    Some(head.trim().to_ascii_lowercase().replace(' ', "_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_folders() {
        assert_eq!(folder_of("duckdb:/a/b").unwrap(), PathBuf::from("/a/b"));
        assert_eq!(folder_of("duckdb:///a/b").unwrap(), PathBuf::from("/a/b"));
        assert_eq!(folder_of("duckdb:rel").unwrap(), PathBuf::from("rel"));
        assert!(folder_of("duckdb:").is_err());
        assert!(folder_of("postgres://x").is_err());
        assert!(default_url().starts_with("duckdb:"));
    }

    #[test]
    fn namespaces_stay_inside_their_folder() {
        let f = Path::new("/copies");
        assert_eq!(
            file_of(f, "sw_concert"),
            Path::new("/copies/sw_concert.duckdb")
        );
        assert_eq!(
            file_of(f, "../etc/x"),
            Path::new("/copies/%2E%2E%2Fetc%2Fx.duckdb")
        );
        assert_eq!(file_of(f, ""), Path::new("/copies/.duckdb"));
    }

    #[test]
    fn error_types_are_codes() {
        assert_eq!(error_type("Binder Error: x").as_deref(), Some("binder"));
        assert_eq!(
            error_type("Out of Memory Error: could not allocate").as_deref(),
            Some("out_of_memory")
        );
        assert_eq!(error_type("no type here"), None);
    }
}
