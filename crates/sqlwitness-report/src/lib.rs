//! sqlwitness-report: the versioned report model (`report.json`), the
//! summary computed from per-question verdicts, and the JSON and Markdown
//! writers. The format is documented in the README ("Report format").

mod markdown;
mod model;
mod summary;
mod write;

pub use markdown::render_markdown;
pub use model::{
    EngineOutcome, Execution, ExecutionStatus, QuestionReport, Report, RunInfo, ToolInfo, Verdict,
    FORMAT_VERSION,
};
pub use summary::{summarize, EngineSummary, Summary};
pub use write::{read_report, write_report, ReportError};
