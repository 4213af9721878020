//! sqlwitness-audit: the gold audit. For every gold query: is its answer
//! well defined (static rules of `sqlwitness-nondet`, proven on data by ties
//! at the cut and by reruns on reshuffled copies — Pourreza & Rafiei
//! §5.1), does it run on every engine (dialect failures by error class —
//! Pourreza & Rafiei, Table 4), and does it answer the same everywhere
//! (mechanism named); plus the tie-inclusive rewrite (Pourreza & Rafiei
//! §6.1), verified on every engine.
//!
//! The audit run ([`audit`]) takes an [`AuditPlan`] over a benchmark and
//! audits every question on the connected engines, with a journal
//! (`sqlwitness-run`); [`merge_audit`] joins a partitioned run's parts.

mod audit;
mod baseline;
mod error;
mod golds;
mod html;
mod markdown;
mod mechanism;
mod model;
mod reads;
mod run;
mod schema;
mod shuffle;

pub use audit::{
    audit_question, audit_question_on, AuditOptions, AuditQuestion, DbAudit, Target, PLAN_VARIANTS,
};
pub use baseline::{diff_audits, read_audit, AuditDiff};
pub use error::AuditError;
pub use golds::{dialect_golds, gold_file_text};
pub use html::render_audit_html;
pub use markdown::{render_markdown, write_audit};
pub use mechanism::{compares_across_types, mechanism, mechanism_with};
pub use model::{
    exceeded, summarize, AuditReport, AuditRun, AuditSummary, Finding, RewriteCheck, Status,
    StatusCount, TieCounts, TranslationCheck, AUDIT_FORMAT_VERSION, AUDIT_FORMAT_VERSION_MIN,
};
pub use run::{audit, merge_audit, AuditPlan};
pub use schema::read_schema;
pub use shuffle::{shuffled_copies, Reshuffles};
pub use sqlwitness_nondet::tie_aware_match;
pub use sqlwitness_nondet::{judge_probe as judge, Evidence, EVIDENCE_ROWS};
