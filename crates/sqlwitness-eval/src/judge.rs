//! The judge stage on one engine, after the comparison: how the
//! prediction stands under ties (`crate::ties`: `match_tie`, `tie`,
//! `unstable`), the official evaluators' verdicts (`--legacy`), the causes
//! of a non-strict scorer's credit, and whether the question reads a column
//! the engine's copy holds only degraded. The reference judgment
//! (`crate::reference`), the VES timing (`crate::ves`) and the suite
//! (`crate::suite`) are the judges that follow.

use sqlwitness_bench::PredictedSql;
use sqlwitness_core::compare::{
    credit_causes, CompareMode, CompareOptions, Comparison, CreditCause,
};
use sqlwitness_core::{ResultSet, Verdict};
use sqlwitness_dialect::Grammar;
use sqlwitness_report::{EngineOutcome, LegacyVerdicts};

use crate::ctx::EngineCtx;
use crate::ties::{Judged, TieStanding};
use crate::EvalPlan;

/// What the same-engine judges say of a prediction compared by value.
pub(crate) struct Judgment {
    pub standing: TieStanding,
    pub legacy: Option<LegacyVerdicts>,
    pub credit_causes: Vec<CreditCause>,
}

/// The two queries of a compared pair: each as given and as run, with its
/// rows.
pub(crate) struct Pair<'a> {
    pub gold: &'a str,
    pub gold_run: &'a str,
    pub gold_rows: &'a ResultSet,
    pub pred: &'a str,
    pub pred_run: &'a str,
    pub pred_rows: &'a ResultSet,
}

/// Judges a pair the comparison `cmp` decided under `opts`. `probe` runs a
/// tie probe as the prediction runs (guarded, within the limits); `rerun`
/// runs a query the official evaluators rewrote.
pub(crate) fn judge_pair(
    plan: &EvalPlan,
    pair: &Pair,
    cmp: &Comparison,
    opts: &CompareOptions,
    dialects: &[Grammar],
    probe: &dyn Fn(&str) -> Option<ResultSet>,
    rerun: impl FnMut(&str) -> Option<ResultSet>,
) -> Judgment {
    // The flags decide a verdict only when the run is tie-aware; else only
    // the report shows them.
    let standing = if plan.detail.full() || plan.ties_aware {
        Judged {
            run: probe,
            opts,
            dialects,
        }
        .standing(
            pair.gold_run,
            pair.gold_rows,
            pair.pred_run,
            pair.pred_rows,
            cmp.equal,
        )
    } else {
        TieStanding::default()
    };
    let legacy = crate::scores::legacy_verdicts(
        plan,
        pair.gold,
        pair.pred,
        pair.gold_rows,
        pair.pred_rows,
        rerun,
    );
    Judgment {
        standing,
        legacy,
        credit_causes: if plan.detail.full() {
            credits(pair, cmp, opts, dialects)
        } else {
            Vec::new()
        },
    }
}

/// Why a non-strict scorer credits what the strict comparison withholds
/// (nothing under the strict mode, or for a pair it did not credit). The
/// strict reading orders by the gold's own top-level ORDER BY.
fn credits(
    pair: &Pair,
    cmp: &Comparison,
    opts: &CompareOptions,
    dialects: &[Grammar],
) -> Vec<CreditCause> {
    if !cmp.equal || opts.mode == CompareMode::Strict {
        return Vec::new();
    }
    let strict = CompareOptions {
        mode: CompareMode::Strict,
        ordered: sqlwitness_sql::has_top_level_order_by(pair.gold, dialects).unwrap_or(false),
        ..*opts
    };
    credit_causes(pair.gold_rows, pair.pred_rows, &strict)
}

/// Marks `outcome` not portable when the gold or the prediction reads a
/// column this engine's copy holds degraded: a failure (`mismatch`,
/// `pred_error`) is then `engine_error`, never the model's; a gold that
/// fails stays `gold_error`, with the reason beside it.
pub(crate) fn not_portable(
    ctx: &EngineCtx,
    db_id: &str,
    gold: &str,
    pred: Option<&PredictedSql>,
    outcome: &mut EngineOutcome,
) {
    let Some(columns) = ctx.degraded.get(db_id) else {
        return;
    };
    let pred = pred.and_then(PredictedSql::as_sql);
    let reads = |sql: &str, table: &str, column: &str| {
        crate::reference::mentions(sql, table) && crate::reference::mentions(sql, column)
    };
    let read: Vec<String> = columns
        .iter()
        .filter(|(t, c, _)| reads(gold, t, c) || pred.is_some_and(|p| reads(p, t, c)))
        .map(|(t, c, how)| format!("{t}.{c} (held {how})"))
        .collect();
    if read.is_empty() {
        return;
    }
    outcome.not_portable = Some(format!(
        "reads {} on {}, which holds it only degraded",
        read.join(", "),
        ctx.kind
    ));
    if matches!(outcome.verdict, Verdict::Mismatch | Verdict::PredError) {
        outcome.verdict = Verdict::EngineError;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlwitness_core::{Column, Value};

    fn rs(rows: Vec<Vec<Value>>) -> ResultSet {
        let n = rows.first().map_or(1, Vec::len);
        ResultSet::new(
            (0..n).map(|i| Column::new(format!("c{i}"), None)).collect(),
            rows,
        )
    }

    #[test]
    fn a_lenient_scorers_credit_is_explained_and_the_strict_one_gives_none() {
        let gold = rs(vec![vec![Value::Int(1)], vec![Value::Int(1)]]);
        let pred = rs(vec![vec![Value::Int(1)]]);
        let pair = Pair {
            gold: "SELECT a FROM t",
            gold_run: "SELECT a FROM t",
            gold_rows: &gold,
            pred: "SELECT DISTINCT a FROM t",
            pred_run: "SELECT DISTINCT a FROM t",
            pred_rows: &pred,
        };
        let dialects = sqlwitness_sql::sqlite_first(sqlwitness_core::EngineKind::REFERENCE);
        let bird = CompareOptions {
            mode: CompareMode::Bird,
            ..CompareOptions::default()
        };
        // BIRD compares sets: it credits the pair, for its multiplicity.
        let cmp = sqlwitness_core::compare::compare(&gold, &pred, &bird);
        assert!(cmp.equal);
        let causes = credits(&pair, &cmp, &bird, &dialects);
        assert!(!causes.is_empty());
        // The strict comparison credits nothing it would have to explain.
        let strict = CompareOptions::default();
        let cmp = sqlwitness_core::compare::compare(&gold, &pred, &strict);
        assert!(credits(&pair, &cmp, &strict, &dialects).is_empty());
    }
}
