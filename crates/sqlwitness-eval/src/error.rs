//! Why an evaluation could not run (a question's own failures are
//! verdicts, never errors).

use sqlwitness_bench::BenchError;
use sqlwitness_engines::EngineError;

#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A flag or an input file is wrong (the message names it).
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
    #[error(transparent)]
    Report(#[from] sqlwitness_report::ReportError),
    #[error(transparent)]
    Fuzz(#[from] sqlwitness_fuzz::FuzzError),
    #[error(transparent)]
    Perturb(#[from] sqlwitness_perturb::PerturbError),
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    /// The run was interrupted (SIGINT, SIGTERM); its journal holds what
    /// finished.
    #[error("interrupted")]
    Interrupted,
    /// sqlwitness itself failed.
    #[error("{0}")]
    Internal(String),
}

impl EvalError {
    /// The input is at fault (exit 2).
    pub fn is_bad_input(&self) -> bool {
        match self {
            EvalError::BadInput(_) | EvalError::Bench(_) => true,
            EvalError::Perturb(e) => e.is_bad_input(),
            _ => false,
        }
    }

    /// An engine is at fault (exit 3).
    pub fn is_engine(&self) -> bool {
        matches!(self, EvalError::Engine(_) | EvalError::Connect(_))
    }

    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> EvalError {
        EvalError::Io {
            context: context.into(),
            source,
        }
    }
}
