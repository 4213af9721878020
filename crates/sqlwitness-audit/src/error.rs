//! Audit errors.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error("{path}: {source}")]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("writing {path}: {source}")]
    Json {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error(
        "{path}: audit.json format_version {found} (this sqlwitness reads {} to {})",
        crate::AUDIT_FORMAT_VERSION_MIN,
        crate::AUDIT_FORMAT_VERSION
    )]
    FormatVersion { path: PathBuf, found: u32 },
}
