//! Errors of the fuzz crate.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum FuzzError {
    #[error("{path}: {message}")]
    Sqlite { path: PathBuf, message: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: bad manifest: {message}")]
    Manifest { path: PathBuf, message: String },
    #[error("{0}")]
    Bench(#[from] sqlwitness_bench::BenchError),
    /// An engine could not be opened.
    #[error("{0}")]
    Engine(#[from] sqlwitness_engines::EngineError),
    /// The reference engine cannot hold the database (`fuzz --reference`).
    #[error("{0}")]
    Reference(String),
    /// The run around the suites: its journal, its inputs, a cancellation.
    #[error(transparent)]
    Run(#[from] sqlwitness_run::RunError),
}

impl FuzzError {
    pub(crate) fn sqlite(path: &std::path::Path, e: impl std::fmt::Display) -> FuzzError {
        FuzzError::Sqlite {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }

    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> FuzzError {
        FuzzError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
