//! How a prediction stands under ties, whichever tied rows either query
//! happens to return: the tie-aware reading behind the outcome's `tie` and
//! `unstable` flags, tie-aware EX and the baseline gate.
//!
//! A prediction is correct by this reading when every answer it may return
//! is one of the answers the gold may return. Where the prediction's own
//! `LIMIT` does not cut through ties it has one answer, and the question is
//! whether the gold's window accepts it. Where it does, the prediction is
//! correct only if its window admits the same answers as the gold's (two
//! equivalent queries, or the same one) or, for `LIMIT 1`, every row it
//! may return is one the gold may return; otherwise a `match` was luck
//! (`unstable`). Both readings depend on the data only, never on the rows a
//! run happened to get, so the same inputs always give the same result.

use sqlwitness_core::compare::{compare, CompareOptions};
use sqlwitness_core::ResultSet;
use sqlwitness_nondet::TieWindow;

/// Most answers of a prediction's one-row window checked one by one.
const MAX_ANSWERS: usize = 64;

/// The judgment of one compared prediction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct TieStanding {
    /// The prediction's answer is one of the gold's answers under ties
    /// (`match_tie` with `--ties aware`).
    pub gold_tie: bool,
    /// Correct by the tie-aware reading.
    pub passes: bool,
    /// The prediction's own LIMIT cuts through ties and some answer it may
    /// return is not one of the gold's: a `match` here was luck.
    pub unstable: bool,
}

pub(crate) struct Judged<'a> {
    /// Runs a probe as every query of the prediction runs: guarded, on the
    /// reader login, within the limits (`None`: refused or failed). The
    /// prediction's probe is SQL derived from hostile text.
    pub run: &'a dyn Fn(&str) -> Option<ResultSet>,
    pub opts: &'a CompareOptions,
    /// The dialects the queries are read in, in order.
    pub dialects: sqlwitness_sql::Dialects<'a>,
}

impl Judged<'_> {
    /// Judges `pred` (its SQL as run and rows) against `gold`, which the
    /// comparison found `equal` or not.
    pub fn standing(
        &self,
        gold_sql: &str,
        gold: &ResultSet,
        pred_sql: &str,
        pred: &ResultSet,
        equal: bool,
    ) -> TieStanding {
        let any = self.opts.any_column_order();
        let gold_window = std::cell::OnceCell::new();
        let gold_window =
            || gold_window.get_or_init(|| TieWindow::probe_with(gold_sql, self.dialects, self.run));
        let gold_tie = !equal
            && gold_window()
                .as_ref()
                .is_some_and(|w| w.accepts_columns(&pred.rows, any, false));
        // The same query admits the same answers (the self-check): no probe.
        if pred_sql == gold_sql {
            return TieStanding {
                gold_tie,
                passes: true,
                unstable: false,
            };
        }
        // The prediction's own ties (a probe only where a LIMIT cuts its
        // top-level ORDER BY: without one no answer is cut).
        let Some(pw) = TieWindow::probe_cut_with(pred_sql, self.dialects, self.run)
            .filter(TieWindow::cuts_ties)
        else {
            return TieStanding {
                gold_tie,
                passes: equal || gold_tie,
                unstable: false,
            };
        };
        let gw = gold_window().as_ref();
        let every_answer_valid = gw.is_some_and(|g| g.same_answers(&pw))
            || pw.single_row_answers(MAX_ANSWERS).is_some_and(|answers| {
                answers.into_iter().all(|row| {
                    let rows = vec![row];
                    match gw {
                        Some(g) => g.accepts_columns(&rows, any, false),
                        None => {
                            let cand = ResultSet::new(pred.columns.clone(), rows);
                            compare(gold, &cand, self.opts).equal
                        }
                    }
                })
            });
        TieStanding {
            gold_tie,
            passes: every_answer_valid,
            unstable: !every_answer_valid,
        }
    }
}
