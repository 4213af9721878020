//! The reference judgment (`eval --reference`): every engine's prediction
//! against the reference gold's answer on the reference engine, and every
//! engine's own gold against the same answer — so a report tells "the
//! model is wrong" from "the dialect gold or the migration is wrong".
//!
//! A judge stage: it runs after the compare stage, whose cross-engine
//! comparison ([`same_answer`], [`same_answer_keys`]) it applies: results
//! compare as multisets of normalised rows.
//!
//! A prediction that differs only where the reference gold's `LIMIT` cuts
//! through ties (on the reference engine) is `match_tie`.

use std::cell::OnceCell;

use sqlwitness_core::{Database, ErrorClass, ResultSet, Verdict};
use sqlwitness_nondet::TieWindow;
use sqlwitness_report::{EngineOutcome, ReferenceOutcome};

use crate::answer::{Answer, Digest};
use crate::compare::{same_answer, same_answer_keys};
use crate::ctx::{EngineCtx, Rows};
use crate::EvalPlan;

/// The reference engine's gold on one question: its text, its answer, and
/// what the judgments of every other engine share — its tie window (probed
/// at most once) and whether it compares across types (read at most once).
pub(crate) struct Reference<'a> {
    ctx: &'a EngineCtx,
    sql: &'a str,
    rows: Answer,
    window: OnceCell<Option<TieWindow>>,
    across_types: OnceCell<bool>,
    /// The answer's row keys, computed once where it holds its rows and
    /// another engine's answer is held as keys.
    keys: OnceCell<Digest>,
}

impl<'a> Reference<'a> {
    pub(crate) fn new(ctx: &'a EngineCtx, sql: &'a str, rows: Answer) -> Reference<'a> {
        Reference {
            ctx,
            sql,
            rows,
            window: OnceCell::new(),
            across_types: OnceCell::new(),
            keys: OnceCell::new(),
        }
    }

    /// The reference answer is held as row keys (it was over the limit).
    pub(crate) fn held_as_keys(&self) -> bool {
        matches!(self.rows, Answer::Digest(_))
    }

    fn window(&self, db: &Database, plan: &EvalPlan) -> Option<&TieWindow> {
        self.window
            .get_or_init(|| {
                // As every gold of the run is read on its engine (the
                // benchmark's shared gold is SQLite-written).
                let engine = self.ctx.engine.as_ref();
                let dialects = sqlwitness_sql::sqlite_first(engine.kind());
                TieWindow::probe(engine, db, self.sql, &dialects, &plan.limits)
            })
            .as_ref()
    }

    /// [`same_answer`] of `other` and the reference answer, or on row keys
    /// where either is held as keys (columns then compare as given).
    fn agrees(&self, other: &Answer, any_column_order: bool) -> bool {
        match (&self.rows, other) {
            (Answer::Rows(a), Answer::Rows(b)) => same_answer(a, b, any_column_order),
            (Answer::Digest(a), b) => same_answer_keys(a, &b.to_digest()),
            (Answer::Rows(a), Answer::Digest(b)) => {
                same_answer_keys(self.keys.get_or_init(|| Digest::of(a)), b)
            }
        }
    }

    /// The judgment of one engine's outcome against the reference.
    pub(crate) fn judge(
        &self,
        db: &Database,
        outcome: &EngineOutcome,
        rows: &Rows,
        plan: &EvalPlan,
        schema: Option<&sqlwitness_sql::SchemaInfo>,
        caveats: &[(String, &'static str)],
    ) -> ReferenceOutcome {
        let (ref_gold, ref_gold_sql) = (&self.rows, self.sql);
        let any_order = plan.compare.any_column_order();
        let window = || self.window(db, plan);
        let verdict = match (&rows.pred, &outcome.pred) {
            _ if outcome.verdict == Verdict::EngineError => Verdict::EngineError,
            (Some(pred), _) => {
                if self.agrees(pred, any_order) {
                    Verdict::Match
                } else if held(pred).is_some_and(|p| {
                    window().is_some_and(|w| w.accepts_columns(&p.rows, any_order, true))
                }) {
                    Verdict::MatchTie
                } else {
                    Verdict::Mismatch
                }
            }
            (None, Some(exec)) => match exec.error_class {
                Some(ErrorClass::Timeout) => Verdict::Timeout,
                Some(ErrorClass::Connection) => Verdict::EngineError,
                _ => Verdict::PredError,
            },
            (None, None) if outcome.verdict == Verdict::Abstained => Verdict::Abstained,
            // The self-check on an engine whose gold failed: nothing to judge.
            (None, None) => Verdict::GoldError,
        };
        let (gold_agrees, gold_mechanism) = match &rows.gold {
            Some(gold) if self.agrees(gold, any_order) => (Some(true), None),
            Some(gold) => {
                let ties = window().is_some_and(|w| w.cuts_ties());
                let text_vs_number = *self.across_types.get_or_init(|| {
                    schema.is_some_and(|s| sqlwitness_audit::compares_across_types(ref_gold_sql, s))
                });
                let m = match (held(ref_gold), held(gold)) {
                    _ if ties => "ties",
                    (Some(ref_gold), Some(gold)) => sqlwitness_audit::mechanism_with(
                        ref_gold,
                        gold,
                        false,
                        false,
                        ref_gold_sql,
                        text_vs_number,
                    )
                    .unwrap_or("other"),
                    // Held as row keys: no values to explain the difference.
                    _ => "other",
                };
                // A difference nothing in the queries explains, on a copy the
                // migration changed: named after what it changed.
                let m = match m {
                    "collation" | "other" => caveats
                        .iter()
                        .find(|(table, _)| mentions(ref_gold_sql, table))
                        .map_or(m, |(_, caveat)| caveat),
                    _ => m,
                };
                (Some(false), Some(m.to_string()))
            }
            None => (None, None),
        };
        ReferenceOutcome {
            engine: self.ctx.kind.to_string(),
            verdict,
            gold_agrees,
            gold_mechanism,
        }
    }
}

/// Whether `sql` names `table` (as a whole word, in any letter case).
pub(crate) fn mentions(sql: &str, table: &str) -> bool {
    let sql = sql.to_lowercase();
    let table = table.to_lowercase();
    let word = |c: char| c.is_alphanumeric() || c == '_';
    sql.match_indices(&table).any(|(i, _)| {
        let before = sql[..i].chars().next_back();
        let after = sql[i + table.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// The rows of an answer that holds them.
fn held(a: &Answer) -> Option<&ResultSet> {
    match a {
        Answer::Rows(rs) => Some(rs),
        Answer::Digest(_) => None,
    }
}
