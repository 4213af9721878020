//! One question on every engine: the gold, the prediction, the
//! comparison, the tie and suite judgments, the verdict.

use std::collections::{BTreeMap, HashMap};

use sqlwitness_bench::{PredictedSql, Question};
use sqlwitness_core::compare::{compare, CompareMode, CompareOptions};
use sqlwitness_core::{Database, DbError, Engine, EngineKind, ErrorClass, Verdict};
use sqlwitness_dialect::Dialect;
use sqlwitness_report::{truncate_text, EngineOutcome, Execution, QuestionReport, MAX_TEXT_BYTES};
use sqlwitness_sql::NameSet;

use crate::execute::{execute, failed_execution, prepare_pred, prepare_sql};
use crate::verdict::{decide, GoldRun, PredRun};
use crate::EvalPlan;

/// What every question's evaluation on one engine needs.
pub(crate) struct EngineCtx {
    pub kind: EngineKind,
    pub engine: std::sync::Arc<dyn Engine>,
    pub dialect: Dialect,
    /// Databases that could not be migrated to this engine, with the reason.
    pub unavailable: HashMap<String, String>,
}

/// [`evaluate_question`], with a panic anywhere inside turned into that
/// question's `engine_error` on every engine: no question may end the run.
pub(crate) fn evaluate_question_safely(
    plan: &EvalPlan,
    q: &Question,
    ctxs: &[EngineCtx],
    names: Option<&NameSet>,
) -> QuestionReport {
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        evaluate_question(plan, q, ctxs, names)
    }));
    caught.unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into());
        let err = DbError::new(
            ErrorClass::Other,
            None,
            format!("internal error in sqlwitness on this question: {what}"),
        );
        let engines = ctxs
            .iter()
            .map(|ctx| {
                let outcome = EngineOutcome {
                    verdict: Verdict::EngineError,
                    gold_sql: None,
                    pred_sql: None,
                    reason: None,
                    ordered: false,
                    gold: None,
                    pred: Some(failed_execution(&err, None, 0.0)),
                    suite: None,
                    legacy: None,
                };
                (ctx.kind.as_str().to_string(), outcome)
            })
            .collect();
        QuestionReport {
            id: q.id,
            db_id: q.db_id.clone(),
            question: q.question.clone(),
            gold_sql: q.gold.clone(),
            pred_sql: None,
            engines,
        }
    })
}

fn evaluate_question(
    plan: &EvalPlan,
    q: &Question,
    ctxs: &[EngineCtx],
    names: Option<&NameSet>,
) -> QuestionReport {
    // The question's own texts are the benchmark's gold and the prediction
    // for every engine (or the first engine's); an engine that ran other
    // texts records them in its outcome.
    let first = ctxs.first().map_or(EngineKind::REFERENCE, |c| c.kind);
    let shown_pred = plan
        .predictions
        .as_ref()
        .map(|p| match &p[q.id] {
            Some(pred) => &pred.sql,
            None => &PredictedSql::Abstain,
        })
        .or_else(|| plan.prediction(first, q.id));
    let mut engines = BTreeMap::new();
    let db_exists = plan.bench.db_exists(&q.db_id);
    let db = plan.bench.database(&q.db_id);
    for ctx in ctxs {
        let gold = q.gold_for(ctx.kind);
        let pred = plan.prediction(ctx.kind, q.id);
        let mut outcome = if !db_exists {
            EngineOutcome {
                verdict: decide(false, GoldRun::Ran, None),
                gold_sql: None,
                pred_sql: None,
                reason: None,
                ordered: false,
                gold: None,
                pred: None,
                suite: None,
                legacy: None,
            }
        } else {
            let outcome = evaluate_on(plan, ctx, &db, gold, pred, names);
            crate::suite::with_suite(plan, ctx.engine.as_ref(), q, gold, pred, names, outcome)
        };
        if gold != q.gold {
            outcome.gold_sql = Some(shown(gold));
        }
        if pred != shown_pred {
            outcome.pred_sql = pred.and_then(PredictedSql::as_sql).map(shown);
        }
        engines.insert(ctx.kind.as_str().to_string(), outcome);
    }
    QuestionReport {
        id: q.id,
        db_id: q.db_id.clone(),
        question: q.question.clone(),
        gold_sql: q.gold.clone(),
        pred_sql: shown_pred.and_then(PredictedSql::as_sql).map(shown),
        engines,
    }
}

/// A query's text as the report keeps it (cut to its limit).
fn shown(sql: &str) -> String {
    truncate_text(sql, MAX_TEXT_BYTES).unwrap_or_else(|| sql.to_string())
}

fn evaluate_on(
    plan: &EvalPlan,
    ctx: &EngineCtx,
    db: &Database,
    gold: &str,
    pred: Option<&PredictedSql>,
    names: Option<&NameSet>,
) -> EngineOutcome {
    let gold_run = prepare_sql(plan, ctx.kind, gold, names);
    let ordered = match plan.compare.mode {
        CompareMode::Strict => sqlwitness_sql::has_top_level_order_by(gold).unwrap_or(false),
        CompareMode::Spider => sqlwitness_sql::spider_order_matters(&gold_run),
        CompareMode::Bird => false,
    };
    let outcome = |gold_run: GoldRun,
                   pred_run: Option<PredRun>,
                   gold: Option<Execution>,
                   pred: Option<Execution>| EngineOutcome {
        verdict: decide(true, gold_run, pred_run),
        gold_sql: None,
        pred_sql: None,
        reason: None,
        ordered,
        gold,
        pred,
        suite: None,
        legacy: None,
    };
    if let Some(reason) = ctx.unavailable.get(&db.db_id) {
        let err = DbError::new(
            ErrorClass::Other,
            None,
            format!("database not available on this engine: {reason}"),
        );
        return outcome(
            GoldRun::Unavailable,
            None,
            Some(failed_execution(&err, None, 0.0)),
            None,
        );
    }
    let (gold_exec, gold_rows) = execute(plan, ctx, db, gold, gold_run);
    let Some(gold_rows) = gold_rows else {
        let class = gold_exec.error_class.unwrap_or(ErrorClass::Other);
        return outcome(GoldRun::Failed(class), None, Some(gold_exec), None);
    };
    // In the self-check the gold is its own prediction, run again.
    let pred_sql = match pred {
        None => gold,
        Some(PredictedSql::Abstain) => {
            return outcome(
                GoldRun::Ran,
                Some(PredRun::Abstained),
                Some(gold_exec),
                None,
            );
        }
        Some(PredictedSql::Invalid(why)) => {
            let err = DbError::refused(why.clone());
            return outcome(
                GoldRun::Ran,
                Some(PredRun::Refused),
                Some(gold_exec),
                Some(failed_execution(&err, None, 0.0)),
            );
        }
        Some(PredictedSql::Sql(s)) => s.as_str(),
    };
    // Hostile input: a text over the limit is refused before any work on
    // it (identifier resolution, Spider-mode reading, parsing).
    if let Err(err) = sqlwitness_sql::check_length(pred_sql, plan.guard.max_sql_bytes) {
        return outcome(
            GoldRun::Ran,
            Some(PredRun::Refused),
            Some(gold_exec),
            Some(failed_execution(&err, None, 0.0)),
        );
    }
    // Spider mode: the prediction as `evaluation.py` reads it from its line
    // (`sql_run` then records any cut at a tab).
    let pred_run = prepare_pred(plan, ctx.kind, pred_sql, names);
    let (pred_exec, pred_rows) = execute(plan, ctx, db, pred_sql, pred_run);
    let Some(pred_rows) = pred_rows else {
        let class = pred_exec.error_class.unwrap_or(ErrorClass::Other);
        return outcome(
            GoldRun::Ran,
            Some(PredRun::Failed(class)),
            Some(gold_exec),
            Some(pred_exec),
        );
    };
    let opts = CompareOptions {
        ordered,
        ..plan.compare
    };
    let cmp = compare(&gold_rows, &pred_rows, &opts);
    // `--ties aware`: a mismatch that is one of the gold's valid answers.
    let tie = !cmp.equal
        && plan.ties_aware
        && sqlwitness_audit::tie_aware_match(
            ctx.engine.as_ref(),
            db,
            gold_exec.sql_run.as_deref().unwrap_or(gold),
            &pred_rows.rows,
            opts.any_column_order(),
            &plan.limits,
        );
    let legacy =
        crate::scores::legacy_verdicts(plan, gold, pred_sql, &gold_rows, &pred_rows, |sql| {
            execute(plan, ctx, db, sql, prepare_sql(plan, ctx.kind, sql, names)).1
        });
    EngineOutcome {
        gold_sql: None,
        pred_sql: None,
        verdict: decide(
            true,
            GoldRun::Ran,
            Some(PredRun::Compared {
                equal: cmp.equal,
                tie,
            }),
        ),
        reason: cmp.reason,
        ordered,
        gold: Some(gold_exec),
        pred: Some(pred_exec),
        suite: None,
        legacy,
    }
}
