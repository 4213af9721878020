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
//! A run: migrate what the servers need, connect over the reader logins
//! (both `sqlwitness_run`'s), evaluate every question in parallel (a panic
//! is that question's `engine_error`), summarize and score.

mod ctx;
mod digest;
mod error;
mod execute;
mod migrate;
mod namespaces;
mod plan;
mod question;
mod reference;
mod run;
mod scores;
mod suite;
mod ties;
mod verdict;
mod ves;

pub use error::EvalError;
pub use execute::{prepare_pred, prepare_sql};
pub use plan::{feasible_false, read_ids, EvalPlan, ScoringPlan};
pub use reference::{cell as reference_cell, same_answer};
pub use run::{evaluate, merge_eval};
pub use verdict::{decide, GoldRun, PredRun};
