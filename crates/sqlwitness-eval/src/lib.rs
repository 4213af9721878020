//! sqlwitness-eval: the evaluator as a library. The CLI parses flags,
//! builds a validated [`EvalPlan`] and calls [`evaluate`]; everything
//! between — the named stages below — lives here and is unit-tested here.
//!
//! Stages of one question on one engine:
//! 1. [`prepare_sql`] / [`prepare_pred`]: the text the engine gets (Spider
//!    mode's reading and preprocessing, identifier resolution);
//! 2. guard and run (`execute`), recording the execution;
//! 3. compare (`sqlwitness_core::compare`), then the tie judgment
//!    (`--ties aware`) and the official evaluators' verdicts (`--legacy`);
//! 4. the verdict, by one precedence ([`decide`]);
//! 5. the timed runs of a prediction that matched (`--ves-runs`: VES,
//!    R-VES);
//! 6. the suite judgment (`--suite`) for a prediction that matched.
//!
//! A run: migrate what the servers need, [`connect`] over the reader
//! logins, evaluate every question in parallel (a panic is that question's
//! `engine_error`), summarize and score.

mod audit;
mod connect;
mod ctx;
mod digest;
mod error;
mod execute;
mod fuzz;
mod inputs;
mod interrupt;
mod journal;
mod journal_key;
mod migrate;
mod perturb;
mod plan;
mod progress;
mod question;
mod reference;
mod run;
mod scores;
mod spec;
mod suite;
mod ties;
mod verdict;
mod ves;

pub use audit::{audit, dialect_golds, gold_file_text, merge_audit, AuditPlan};
pub use connect::{connect, Connected, HeldLogin};
pub use error::EvalError;
pub use execute::{prepare_pred, prepare_sql};
pub use fuzz::{
    build_suites, merge_suites, mutant_predictions, tables_json_keys, FuzzPlan, FuzzReference,
};
pub use inputs::{dialect_inputs, reference_engine, DialectInputs, InputFiles};
pub use interrupt::{
    clear_interrupt, interrupt, interrupted, on_interrupt, on_interrupt_last, settled, OnInterrupt,
};
pub use journal::{
    assign_partitions, dir_sha256, file_sha256, read_journal, read_journal_with, read_parts,
    read_parts_with, sha256_hex, Header, Journal, JournalMode, Partition, JOURNAL_FILE,
    JOURNAL_FORMAT,
};
pub use journal_key::{KeyRef, KeySource, KeyStore, SHARED_KEY_ENV, STATE_DIR_ENV};
pub use migrate::{
    is_good, migrate_many, migrate_one, problem, refresh_dumps, unusable, Migrated,
    REIMPORT_STATEMENT_LIMIT,
};
pub use perturb::{perturb, PerturbPlan};
pub use plan::{feasible_false, read_ids, EvalPlan, RunContext, ScoringPlan, Servers};
pub use progress::{Bar, Progress, Silent};
pub use reference::{cell as reference_cell, same_answer};
pub use run::{evaluate, merge_eval};
pub use spec::{AuditSpec, EvalSpec, FailOn, FuzzSpec, PerturbFiles, PerturbSpec, RunSpec};
pub use verdict::{decide, GoldRun, PredRun};
