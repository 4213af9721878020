//! One question on every engine: the reference engine first (its gold's
//! answer judges the others), then each engine in turn through the stages
//! of [`evaluate_on`] — prepare, execute, compare, judge, outcome — and the
//! judges that follow (the reference, alternative golds, VES, the suite);
//! then the question's report.

use std::collections::BTreeMap;

use sqlwitness_bench::{PredictedSql, Question};
use sqlwitness_core::{Database, DbError, EngineKind, ErrorClass, Verdict};
use sqlwitness_report::{truncate_text, EngineOutcome, QuestionReport, MAX_TEXT_BYTES};
use sqlwitness_sql::NameSet;

use crate::answer::Answer;
use crate::compare::{compare_answers, Compared, Texts};
use crate::ctx::{DbFacts, EngineCtx, Rows};
use crate::execute::{execute, failed_execution, run_guarded, run_guarded_into, run_pair};
use crate::judge::{judge_pair, not_portable, Pair};
use crate::outcome;
use crate::prepare::{prepare_gold, prepare_sql};
use crate::reference::Reference;
use crate::verdict::{decide, GoldRun};
use crate::EvalPlan;

/// [`evaluate_question`], with a panic anywhere inside turned into that
/// question's `engine_error` on every engine: no question may end the run.
pub(crate) fn evaluate_question_safely(
    plan: &EvalPlan,
    q: &Question,
    ctxs: &[EngineCtx],
    facts: DbFacts,
) -> QuestionReport {
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        evaluate_question(plan, q, ctxs, facts)
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
                    pred: Some(failed_execution(&err, None, 0.0)),
                    ..EngineOutcome::new(Verdict::EngineError)
                };
                (ctx.kind.as_str().to_string(), outcome)
            })
            .collect();
        let (hardness, hardness_error) = hardness(plan, q);
        QuestionReport {
            id: q.id,
            db_id: q.db_id.clone(),
            question: q.question.clone(),
            gold_sql: q.gold.clone(),
            pred_sql: None,
            hardness,
            hardness_error,
            exact_match: None,
            exact_match_error: None,
            difficulty: q.difficulty.clone(),
            engines,
        }
    })
}

fn evaluate_question(
    plan: &EvalPlan,
    q: &Question,
    ctxs: &[EngineCtx],
    facts: DbFacts,
) -> QuestionReport {
    let names = facts.names;
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
    // A usable database was found and addressed once for the run.
    let (db_exists, db) = match facts.db {
        Some(db) => (true, std::borrow::Cow::Borrowed(db)),
        None => (
            plan.bench.db_exists(&q.db_id),
            std::borrow::Cow::Owned(plan.bench.database(&q.db_id)),
        ),
    };
    // The reference engine runs first: its gold's answer judges the others.
    let mut order: Vec<&EngineCtx> = ctxs.iter().collect();
    order.sort_by_key(|c| Some(c.kind) != plan.reference);
    let mut reference: Option<Reference> = None;
    for ctx in order {
        let mut gold = q.gold_for(ctx.kind);
        let pred = plan.prediction(ctx.kind, q.id);
        let judged = plan.reference.is_some_and(|r| r != ctx.kind);
        let mut outcome = if !db_exists {
            EngineOutcome::new(decide(false, GoldRun::Ran, None))
        } else {
            let despite = judged && reference.is_some();
            // A reference gold over the limit is held as keys: the others'
            // golds, which answer the same, are kept as keys from the start.
            let as_keys = reference.as_ref().is_some_and(Reference::held_as_keys);
            let (mut outcome, rows) =
                evaluate_on(plan, ctx, &db, gold, pred, names, despite, as_keys);
            if Some(ctx.kind) == plan.reference {
                reference = rows.gold.map(|g| Reference::new(ctx, gold, g));
            } else if let (true, Some(r)) = (judged, &reference) {
                let caveats = ctx.caveats.get(&q.db_id).map_or(&[][..], Vec::as_slice);
                outcome.reference =
                    Some(r.judge(&db, &outcome, &rows, plan, facts.schema, caveats));
            }
            not_portable(ctx, &q.db_id, gold, pred, &mut outcome);
            let (outcome, accepted) =
                with_alternatives(plan, ctx, &db, q, gold, pred, names, outcome);
            gold = accepted;
            let outcome = crate::ves::with_ves(plan, ctx, &db, gold, pred, names, outcome);
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
    let (hardness, hardness_error) = hardness(plan, q);
    let (exact_match, exact_match_error) =
        exact_match(q, shown_pred.and_then(PredictedSql::as_sql), facts);
    QuestionReport {
        id: q.id,
        db_id: q.db_id.clone(),
        question: q.question.clone(),
        gold_sql: q.gold.clone(),
        pred_sql: shown_pred.and_then(PredictedSql::as_sql).map(shown),
        hardness,
        hardness_error,
        exact_match,
        exact_match_error,
        difficulty: q.difficulty.clone(),
        engines,
    }
}

/// Spider's exact set match of `pred` (read as `evaluation.py` reads a
/// prediction line) against the question's gold, or where the official
/// evaluator stops; nothing without a prediction or `tables.json`.
fn exact_match(q: &Question, pred: Option<&str>, facts: DbFacts) -> (Option<bool>, Option<String>) {
    let (Some(pred), Some((schema, keys))) = (pred, facts.exact) else {
        return (None, None);
    };
    let pred = sqlwitness_spider::spider_read_prediction(pred);
    match sqlwitness_spider::spider_exact_match(schema, keys, &q.gold, &pred) {
        Ok(m) => (Some(m.exact), None),
        Err(stop) => (None, Some(stop.to_string())),
    }
}

/// The question's further accepted golds (its gold field was a list):
/// when the engine runs the benchmark's gold and the prediction did not
/// match it, each alternative in order, the first match winning; with none
/// matching, the outcome against the first gold stands. Returns the outcome
/// and the gold it was judged against. The alternatives run only when the
/// first gold did not match, so a single-gold cost stays a single-gold cost.
#[allow(clippy::too_many_arguments)]
fn with_alternatives<'a>(
    plan: &EvalPlan,
    ctx: &EngineCtx,
    db: &Database,
    q: &'a Question,
    gold: &'a str,
    pred: Option<&PredictedSql>,
    names: Option<&NameSet>,
    mut outcome: EngineOutcome,
) -> (EngineOutcome, &'a str) {
    // A dialect gold has no alternatives: they answer the benchmark's gold.
    if q.alternatives.is_empty() || q.dialect_gold(ctx.kind).is_some() {
        return (outcome, gold);
    }
    let matched = |v: Verdict| matches!(v, Verdict::Match | Verdict::MatchTie);
    if matched(outcome.verdict) {
        outcome.gold_index = Some(0);
        return (outcome, gold);
    }
    // Only a prediction that ran against a gold that ran (or a gold that
    // failed) can match another gold; an error, a timeout, an abstention
    // is the same against all of them.
    if !matches!(outcome.verdict, Verdict::Mismatch | Verdict::GoldError) {
        return (outcome, gold);
    }
    for (i, alt) in q.alternatives.iter().enumerate() {
        let (mut o, _) = evaluate_on(plan, ctx, db, alt, pred, names, false, false);
        if matched(o.verdict) {
            o.gold_index = Some(i + 1);
            // The reference judges against the first gold's answer only.
            o.reference = outcome.reference.take();
            return (o, alt);
        }
    }
    (outcome, gold)
}

/// The Spider hardness of the benchmark's gold (the official evaluator's
/// level), or why the evaluator cannot read it; nothing when the plan's
/// detail leaves hardness out.
fn hardness(plan: &EvalPlan, q: &Question) -> (Option<String>, Option<String>) {
    if !plan.detail.hardness() {
        return (None, None);
    }
    match sqlwitness_spider::spider_hardness(&q.gold) {
        Ok((h, _)) => (Some(h.as_str().to_string()), None),
        Err(why) => (None, Some(why.to_string())),
    }
}

/// A query's text as the report keeps it (cut to its limit).
fn shown(sql: &str) -> String {
    truncate_text(sql, MAX_TEXT_BYTES).unwrap_or_else(|| sql.to_string())
}

/// One question on one engine, stage after stage: prepare the gold's text
/// and how it is compared; execute the gold and the prediction; compare
/// their answers; judge the pair (ties, the official verdicts, credit
/// causes); the outcome. With `pred_despite_gold`, a prediction still runs
/// when the gold fails (a reference judges it). With `gold_as_keys` (the
/// reference engine's gold is held as keys) the gold is kept as keys from
/// its first row where keys are allowed.
#[allow(clippy::too_many_arguments)]
pub(crate) fn evaluate_on(
    plan: &EvalPlan,
    ctx: &EngineCtx,
    db: &Database,
    gold: &str,
    pred: Option<&PredictedSql>,
    names: Option<&NameSet>,
    pred_despite_gold: bool,
    gold_as_keys: bool,
) -> (EngineOutcome, Rows) {
    let prepared = prepare_gold(plan, ctx.kind, gold, names);
    let ordered = prepared.ordered;
    if let Some(reason) = ctx.unavailable.get(&db.db_id) {
        return (outcome::unavailable(ordered, reason), Rows::default());
    }
    let executed = run_pair(
        plan,
        ctx,
        db,
        &prepared,
        pred,
        names,
        pred_despite_gold,
        gold_as_keys,
    );
    let ran = match outcome::unless_both_ran(ordered, executed) {
        Ok(ran) => ran,
        Err(stopped) => return *stopped,
    };
    let opts = prepared.compare_options(plan);
    // The texts the engine ran (as given when it ran them unchanged).
    let gold_run = ran.gold.sql_run.as_deref().unwrap_or(gold);
    let pred_run = ran.pred.sql_run.as_deref().unwrap_or(ran.pred_sql);
    let texts = Texts {
        gold,
        pred: ran.pred_sql,
        gold_run,
        pred_run,
    };
    let compared = compare_answers(
        ran.gold_rows,
        ran.pred_rows,
        &opts,
        &texts,
        &plan.limits,
        |sql, keep| run_guarded_into(plan, ctx, db, sql, keep),
    );
    match compared {
        Compared::Keys {
            cmp,
            soft_f1,
            gold: g,
            pred: p,
        } => {
            let o = outcome::by_keys(ordered, cmp, soft_f1, ran.gold, ran.pred);
            let rows = Rows {
                gold: Some(g),
                pred: Some(p),
            };
            (o, rows)
        }
        Compared::Rows {
            cmp,
            soft_f1,
            gold: gold_rows,
            pred: pred_rows,
        } => {
            let pair = Pair {
                gold,
                gold_run,
                gold_rows: &gold_rows,
                pred: ran.pred_sql,
                pred_run,
                pred_rows: &pred_rows,
            };
            let probe = |sql: &str| run_guarded(plan, ctx, db, sql).ok();
            let rerun = |sql: &str| {
                let run = prepare_sql(plan, ctx.kind, sql, names);
                execute(plan, ctx, db, sql, run, !ordered).1
            };
            let judgment = judge_pair(plan, &pair, &cmp, &opts, &prepared.dialects, &probe, rerun);
            let o = outcome::by_rows(
                ordered,
                plan.ties_aware,
                cmp,
                soft_f1,
                judgment,
                ran.gold,
                ran.pred,
            );
            let rows = Rows {
                gold: Some(Answer::Rows(gold_rows)),
                pred: Some(Answer::Rows(pred_rows)),
            };
            (o, rows)
        }
    }
}
