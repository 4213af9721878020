//! The crate's error type: every variant names the file (or database) and
//! the place in it.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Malformed content; `place` is a line (`line 12`), a JSON path
    /// (`[3].query`) or a key (`key "17"`).
    #[error("{}: {place}: {message}", path.display())]
    Format {
        path: PathBuf,
        place: String,
        message: String,
    },
    #[error("{}: {expected} questions in the benchmark but {found} predictions (lines)", path.display())]
    PredictionCount {
        path: PathBuf,
        expected: usize,
        found: usize,
    },
    #[error("{}: no benchmark layout found for split `{split}`: {message}", root.display())]
    Layout {
        root: PathBuf,
        split: String,
        message: String,
    },
    #[error("{}: the benchmark folder does not exist", root.display())]
    MissingFolder { root: PathBuf },
    /// A file the layout needs is missing.
    #[error("{}: not found ({why})", path.display())]
    MissingFile { path: PathBuf, why: String },
    #[error("{}: sqlite: {message}", path.display())]
    Sqlite { path: PathBuf, message: String },
    /// A dump's statement failed on the engine loading it (`line` 0: the
    /// load itself, not one statement).
    #[error("{}: line {line}: loading with {engine}: {message}", path.display())]
    DumpLoad {
        path: PathBuf,
        line: usize,
        engine: String,
        message: String,
    },
    #[error("migration of `{db_id}` to {engine}: {message}")]
    Migration {
        db_id: String,
        engine: String,
        message: String,
    },
}

impl BenchError {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        BenchError::Io {
            path: path.into(),
            source,
        }
    }

    pub fn format(
        path: impl Into<PathBuf>,
        place: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        BenchError::Format {
            path: path.into(),
            place: place.into(),
            message: message.into(),
        }
    }
}
