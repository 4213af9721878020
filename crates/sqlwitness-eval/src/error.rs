//! Why an evaluation could not run (a question's own failures are
//! verdicts, never errors).

use sqlwitness_run::RunError;

#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// What every run can meet: bad input, an engine that cannot be used,
    /// a journal refused, I/O, a cancellation.
    #[error(transparent)]
    Run(#[from] RunError),
    #[error(transparent)]
    Report(#[from] sqlwitness_report::ReportError),
    #[error(transparent)]
    Fuzz(#[from] sqlwitness_fuzz::FuzzError),
}

impl EvalError {
    /// The input is at fault (exit 2).
    pub fn is_bad_input(&self) -> bool {
        matches!(self, EvalError::Run(e) if e.is_bad_input())
    }

    /// An engine is at fault (exit 3).
    pub fn is_engine(&self) -> bool {
        matches!(self, EvalError::Run(e) if e.is_engine())
    }

    /// The run was cancelled (exit 130).
    pub fn is_interrupted(&self) -> bool {
        matches!(self, EvalError::Run(e) if e.is_interrupted())
    }

    pub(crate) fn bad_input(message: impl Into<String>) -> EvalError {
        EvalError::Run(RunError::BadInput(message.into()))
    }

    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> EvalError {
        EvalError::Run(RunError::io(context, source))
    }

    pub(crate) fn internal(message: impl Into<String>) -> EvalError {
        EvalError::Run(RunError::Internal(message.into()))
    }
}
