//! The last stage on one engine: the outcome the question's report keeps —
//! the verdict by one precedence (`crate::verdict::decide`), the two
//! executions, the comparison's reason and Soft F1, the judges' flags —
//! from plain data the earlier stages returned.

use sqlwitness_core::compare::Comparison;
use sqlwitness_core::{DbError, ErrorClass, Verdict};
use sqlwitness_report::{EngineOutcome, Execution};

use crate::ctx::Rows;
use crate::execute::{failed_execution, Executed, Ran};
use crate::judge::Judgment;
use crate::verdict::{decide, GoldRun, PredRun};

/// The outcome of what ran (the database exists), before the judges.
fn base(
    ordered: bool,
    gold_run: GoldRun,
    pred_run: Option<PredRun>,
    gold: Option<Execution>,
    pred: Option<Execution>,
) -> EngineOutcome {
    EngineOutcome {
        ordered,
        gold,
        pred,
        ..EngineOutcome::new(decide(true, gold_run, pred_run))
    }
}

/// The database is not usable on this engine (`reason`): nobody's answer
/// is known.
pub(crate) fn unavailable(ordered: bool, reason: &str) -> EngineOutcome {
    let err = DbError::new(ErrorClass::Other, None, reason.to_string());
    let gold = failed_execution(&err, None, 0.0);
    base(ordered, GoldRun::Unavailable, None, Some(gold), None)
}

/// The gold failed with `class` (the prediction's execution kept when it
/// ran for a reference to judge).
fn gold_failed(
    ordered: bool,
    class: ErrorClass,
    gold: Execution,
    pred: Option<Execution>,
) -> EngineOutcome {
    base(ordered, GoldRun::Failed(class), None, Some(gold), pred)
}

/// The gold ran and the prediction stopped before rows (`run`): BIRD's
/// Soft F1 scores a prediction that gave no rows 0.
fn pred_stopped(
    ordered: bool,
    run: PredRun,
    gold: Execution,
    pred: Option<Execution>,
) -> EngineOutcome {
    EngineOutcome {
        soft_f1: Some(0.0),
        ..base(ordered, GoldRun::Ran, Some(run), Some(gold), pred)
    }
}

/// The outcome, and the rows for the reference, of a question on which
/// the gold or the prediction stopped before both gave rows; `Ok` with
/// both runs when they did.
pub(crate) fn unless_both_ran(
    ordered: bool,
    executed: Executed<'_>,
) -> Result<Ran<'_>, Box<(EngineOutcome, Rows)>> {
    match executed {
        Executed::Ran(ran) => Ok(ran),
        Executed::GoldFailed {
            class,
            gold,
            pred,
            pred_rows,
        } => {
            let rows = Rows {
                gold: None,
                pred: pred_rows,
            };
            Err(Box::new((gold_failed(ordered, class, gold, pred), rows)))
        }
        Executed::PredStopped {
            gold,
            gold_rows,
            run,
            pred,
        } => {
            let rows = Rows {
                gold: Some(gold_rows),
                pred: None,
            };
            Err(Box::new((pred_stopped(ordered, run, gold, pred), rows)))
        }
    }
}

/// Both ran and were compared on their keys: `cmp`, or why they could
/// not be compared — not the model's fault, an `engine_error` that says
/// how to compare them by value.
pub(crate) fn by_keys(
    ordered: bool,
    cmp: Result<Comparison, DbError>,
    soft_f1: f64,
    gold: Execution,
    mut pred: Execution,
) -> EngineOutcome {
    match cmp {
        Ok(cmp) => {
            let compared = PredRun::Compared {
                equal: cmp.equal,
                tie: false,
            };
            EngineOutcome {
                reason: cmp.reason,
                soft_f1: Some(soft_f1),
                ..base(
                    ordered,
                    GoldRun::Ran,
                    Some(compared),
                    Some(gold),
                    Some(pred),
                )
            }
        }
        Err(why) => {
            pred.error = Some(format!(
                "not compared: {}; raise --max-result-mb to compare the results by value",
                why.message
            ));
            EngineOutcome {
                ordered,
                gold: Some(gold),
                pred: Some(pred),
                ..EngineOutcome::new(Verdict::EngineError)
            }
        }
    }
}

/// Both ran and were compared by value, then judged: with `ties_aware`, a
/// prediction that is one of the gold's answers under ties is `match_tie`;
/// `tie` marks a mismatch the tie-aware reading accepts, `unstable` a
/// prediction whose own ties make its answer luck.
pub(crate) fn by_rows(
    ordered: bool,
    ties_aware: bool,
    cmp: Comparison,
    soft_f1: f64,
    judgment: Judgment,
    gold: Execution,
    pred: Execution,
) -> EngineOutcome {
    let standing = judgment.standing;
    let compared = PredRun::Compared {
        equal: cmp.equal,
        tie: standing.gold_tie && ties_aware,
    };
    EngineOutcome {
        reason: cmp.reason,
        credit_causes: judgment.credit_causes,
        soft_f1: Some(soft_f1),
        tie: !cmp.equal && standing.passes,
        unstable: standing.unstable,
        legacy: judgment.legacy,
        ..base(
            ordered,
            GoldRun::Ran,
            Some(compared),
            Some(gold),
            Some(pred),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ties::TieStanding;
    use sqlwitness_core::compare::MismatchReason;

    fn ran() -> Execution {
        failed_execution(&DbError::new(ErrorClass::Other, None, "x"), None, 1.0)
    }

    fn judged(standing: TieStanding) -> Judgment {
        Judgment {
            standing,
            legacy: None,
            credit_causes: Vec::new(),
        }
    }

    #[test]
    fn outcomes_follow_what_ran_and_what_the_judges_said() {
        assert_eq!(
            unavailable(false, "not migrated").verdict,
            Verdict::EngineError
        );
        let o = gold_failed(true, ErrorClass::Syntax, ran(), None);
        assert_eq!(o.verdict, Verdict::GoldError);
        assert!(o.ordered);
        let o = gold_failed(false, ErrorClass::Connection, ran(), None);
        assert_eq!(o.verdict, Verdict::EngineError);
        let o = pred_stopped(false, PredRun::Abstained, ran(), None);
        assert_eq!((o.verdict, o.soft_f1), (Verdict::Abstained, Some(0.0)));
        let o = pred_stopped(
            false,
            PredRun::Failed(ErrorClass::Timeout),
            ran(),
            Some(ran()),
        );
        assert_eq!(o.verdict, Verdict::Timeout);
        // A mismatch the gold's ties accept: match_tie when tie-aware,
        // else a mismatch flagged `tie`.
        let tie = TieStanding {
            gold_tie: true,
            passes: true,
            unstable: false,
        };
        let differ = Comparison::differ(MismatchReason::Values);
        let o = by_rows(false, true, differ, 0.5, judged(tie), ran(), ran());
        assert_eq!(o.verdict, Verdict::MatchTie);
        let o = by_rows(false, false, differ, 0.5, judged(tie), ran(), ran());
        assert_eq!((o.verdict, o.tie), (Verdict::Mismatch, true));
        assert_eq!(o.reason, Some(MismatchReason::Values));
        // A match that was luck.
        let luck = TieStanding {
            gold_tie: false,
            passes: false,
            unstable: true,
        };
        let o = by_rows(
            false,
            false,
            Comparison::EQUAL,
            1.0,
            judged(luck),
            ran(),
            ran(),
        );
        assert_eq!(
            (o.verdict, o.unstable, o.tie),
            (Verdict::Match, true, false)
        );
        // Keys that could not decide: the tool's failure, said how to fix.
        let o = by_keys(
            false,
            Err(DbError::resource_limit("a column order")),
            0.0,
            ran(),
            ran(),
        );
        assert_eq!(o.verdict, Verdict::EngineError);
        let said = o.pred.unwrap().error.unwrap();
        assert!(said.contains("--max-result-mb"), "{said}");
        let o = by_keys(true, Ok(Comparison::EQUAL), 1.0, ran(), ran());
        assert_eq!((o.verdict, o.soft_f1), (Verdict::Match, Some(1.0)));
    }
}
