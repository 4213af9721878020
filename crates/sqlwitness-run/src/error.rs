//! Why a run could not go on (a question's or a database's own failures
//! are outcomes, never errors).

use sqlwitness_bench::BenchError;
use sqlwitness_engines::EngineError;

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A flag, an input file or a journal is wrong (the message names it).
    #[error("{0}")]
    BadInput(String),
    /// An engine cannot be used: unreachable, the wrong server, a login
    /// that may do more than read.
    #[error("{0}")]
    Engine(String),
    #[error(transparent)]
    Bench(#[from] BenchError),
    #[error(transparent)]
    Connect(#[from] EngineError),
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    /// The run was cancelled (SIGINT, SIGTERM); its journal holds what
    /// finished.
    #[error("interrupted")]
    Interrupted,
    /// sqlwitness itself failed.
    #[error("{0}")]
    Internal(String),
}

impl RunError {
    /// The input is at fault (exit 2).
    pub fn is_bad_input(&self) -> bool {
        matches!(self, RunError::BadInput(_) | RunError::Bench(_))
    }

    /// An engine is at fault (exit 3).
    pub fn is_engine(&self) -> bool {
        matches!(self, RunError::Engine(_) | RunError::Connect(_))
    }

    /// The run was cancelled (exit 130).
    pub fn is_interrupted(&self) -> bool {
        matches!(self, RunError::Interrupted)
    }

    /// An I/O failure, with what was being done.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> RunError {
        RunError::Io {
            context: context.into(),
            source,
        }
    }
}
