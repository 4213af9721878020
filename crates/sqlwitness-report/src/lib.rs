//! sqlwitness-report: the versioned report model (`report.json`), the
//! summary computed from per-question verdicts, and the JSON, Markdown,
//! HTML and JUnit writers, plus the diff of two reports. The format is
//! documented in `docs/report-format.md` and by `report.schema.json`.

mod credited;
mod diff;
mod html;
mod junit;
mod levels;
mod markdown;
mod model;
mod robustness;
mod score_inputs;
mod scores_md;
mod summary;
#[cfg(test)]
mod test_support;
mod ves;
mod write;

pub use diff::{diff_reports, render_diff_markdown, EngineDelta, ReportDiff, VerdictChange};
pub use html::{render_html, render_html_with, AuditNote, AuditNotes};
pub use junit::render_junit;
pub use levels::{
    level_columns, official_table, LevelSummary, DIFFICULTY_ALL, DIFFICULTY_LEVELS, HARDNESS_ALL,
    HARDNESS_LEVELS,
};
pub use markdown::render_markdown;
pub use model::LegacyVerdicts;
pub use model::{
    truncate_cell, truncate_text, EngineOutcome, Execution, ExecutionStatus, QuestionReport,
    ReferenceOutcome, Report, RunInfo, SuiteOutcome, ToolInfo, Verdict, WitnessReport,
    FORMAT_VERSION, MAX_CELL_CHARS, MAX_TEXT_BYTES,
};
pub use robustness::{render_robustness_markdown, robustness_rows, RobustnessRow};
pub use summary::{summarize, EngineSummary, ReferenceSummary, Summary, EX_DEFINITIONS};
pub use ves::{
    contrasts_markdown, efficiency_contrasts, ves_official_table, ves_table, EfficiencyContrast,
    OfficialTiming, OfficialVes, Spread, VesLevel, VesOutcome, VesSummary, OFFICIAL_TIMING,
};
pub use write::{read_report, write_report, write_report_with, ReportError};
