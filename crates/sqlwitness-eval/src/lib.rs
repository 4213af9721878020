//! sqlwitness-eval: the evaluator as a library. The CLI parses flags,
//! builds a validated [`EvalPlan`] and calls [`evaluate`]; everything
//! between — the named stages below — lives here and is unit-tested here.
//!
//! Stages of one question on one engine, each a module that takes plain
//! data and returns plain data, called in this order by `question`:
//! 1. `prepare` ([`prepare_sql`] / [`prepare_pred`]): the text the engine
//!    gets (Spider mode's reading and preprocessing, identifier
//!    resolution), and whether the gold's answer is compared in order;
//! 2. `execute`: guard and run the gold, then the prediction, recording
//!    each execution and collecting each `answer` (rows, or row keys past
//!    the limit);
//! 3. `compare`: the prediction's answer against the gold's (by value, or
//!    by keys and second readings);
//! 4. `judge`: ties (`--ties aware`), the official evaluators' verdicts
//!    (`--legacy`), the causes of a lenient scorer's credit, columns held
//!    degraded; then the `reference` judgment across engines, alternative
//!    golds, the timed runs of a match (`ves`: VES, R-VES) and the `suite`;
//! 5. `outcome`: the engine's outcome, its verdict by one precedence
//!    ([`decide`]).
//!
//! What the stages share — the engine's context, the database's facts, the
//! rows for the reference — is the leaf `ctx`; an answer's data is the leaf
//! `answer`.
//!
//! A run: migrate what the servers need, connect over the reader logins
//! (both `sqlwitness_run`'s), evaluate every question in parallel (a panic
//! is that question's `engine_error`), summarize and score.

mod answer;
mod compare;
mod ctx;
mod error;
mod execute;
mod judge;
mod migrate;
mod namespaces;
mod outcome;
mod plan;
mod prepare;
mod question;
mod reference;
mod run;
mod scores;
mod suite;
mod ties;
mod verdict;
mod ves;

pub use answer::cell as reference_cell;
pub use compare::same_answer;
pub use error::EvalError;
pub use plan::{feasible_false, read_ids, Detail, EvalPlan, ScoringPlan};
pub use prepare::{prepare_pred, prepare_sql};
pub use run::{evaluate, merge_eval};
pub use verdict::{decide, GoldRun, PredRun};
