//! One question on every engine: the gold, the prediction, the
//! comparison, the tie and suite judgments, the verdict.

use std::collections::BTreeMap;

use sqlwitness_bench::{PredictedSql, Question};
use sqlwitness_core::compare::{compare, CompareMode, CompareOptions, Comparison};
use sqlwitness_core::{Database, DbError, EngineKind, ErrorClass, Verdict};
use sqlwitness_report::{truncate_text, EngineOutcome, Execution, QuestionReport, MAX_TEXT_BYTES};
use sqlwitness_sql::NameSet;

use crate::ctx::{DbFacts, EngineCtx, Rows};
use crate::digest::{compare_keys, decide_residue, Answer, Digest, Keep, KeyVerdict, Residue};
use crate::execute::{
    execute, execute_answer, failed_execution, prepare_pred, prepare_sql, run_guarded_into,
};
use crate::reference::Reference;
use crate::verdict::{decide, GoldRun, PredRun};
use crate::EvalPlan;

/// Marks `outcome` not portable when the gold or the prediction reads a
/// column this engine's copy holds degraded: a failure (`mismatch`,
/// `pred_error`) is then `engine_error`, never the model's; a gold that
/// fails stays `gold_error`, with the reason beside it.
fn not_portable(
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
        let (hardness, hardness_error) = hardness(q);
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
    let db_exists = plan.bench.db_exists(&q.db_id);
    let db = plan.bench.database(&q.db_id);
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
    let (hardness, hardness_error) = hardness(q);
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
    let pred = sqlwitness_sql::spider_read_prediction(pred);
    match sqlwitness_sql::spider_exact_match(schema, keys, &q.gold, &pred) {
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
/// level), or why the evaluator cannot read it.
pub(crate) fn hardness(q: &Question) -> (Option<String>, Option<String>) {
    match sqlwitness_sql::spider_hardness(&q.gold) {
        Ok((h, _)) => (Some(h.as_str().to_string()), None),
        Err(why) => (None, Some(why.to_string())),
    }
}

/// A query's text as the report keeps it (cut to its limit).
fn shown(sql: &str) -> String {
    truncate_text(sql, MAX_TEXT_BYTES).unwrap_or_else(|| sql.to_string())
}

/// The prediction's stage on one engine: it ran to rows (the text run, its
/// execution, its rows), or it stopped before (what the verdict needs, and
/// the execution when there was one).
enum PredStage<'a> {
    Ran(&'a str, Execution, Answer),
    Stopped(PredRun, Option<Execution>),
}

/// Reads, guards and runs the prediction (`None`: the self-check, where
/// the gold is its own prediction); with `keys_now` (the gold is held as
/// keys) its rows are kept as keys from the first.
#[allow(clippy::too_many_arguments)]
fn run_pred<'a>(
    plan: &EvalPlan,
    ctx: &EngineCtx,
    db: &Database,
    gold: &'a str,
    pred: Option<&'a PredictedSql>,
    names: Option<&NameSet>,
    unordered: bool,
    keys_now: bool,
) -> PredStage<'a> {
    let pred_sql = match pred {
        None => gold,
        Some(PredictedSql::Abstain) => return PredStage::Stopped(PredRun::Abstained, None),
        Some(PredictedSql::Invalid(why)) => {
            let err = DbError::refused(why.clone());
            let exec = failed_execution(&err, None, 0.0);
            return PredStage::Stopped(PredRun::Refused, Some(exec));
        }
        Some(PredictedSql::Sql(s)) => s.as_str(),
    };
    // Hostile input: a text over the limit is refused before any work on
    // it (identifier resolution, Spider-mode reading, parsing).
    if let Err(err) = sqlwitness_guard::check_length(pred_sql, plan.guard.max_sql_bytes) {
        let exec = failed_execution(&err, None, 0.0);
        return PredStage::Stopped(PredRun::Refused, Some(exec));
    }
    // Spider mode: the prediction as `evaluation.py` reads it from its line
    // (`sql_run` then records any cut at a tab).
    let pred_run = prepare_pred(plan, ctx.kind, pred_sql, names);
    match execute_answer(plan, ctx, db, pred_sql, pred_run, unordered, keys_now) {
        (exec, Some(rows)) => PredStage::Ran(pred_sql, exec, rows),
        (exec, None) => {
            let class = exec.error_class.unwrap_or(ErrorClass::Other);
            PredStage::Stopped(PredRun::Failed(class), Some(exec))
        }
    }
}

/// One question on one engine: gold, prediction, comparison, ties and
/// legacy verdicts, the verdict. With `pred_despite_gold`, a prediction
/// still runs when the gold fails (a reference judges it). With
/// `gold_as_keys` (the reference engine's gold is held as keys) the gold
/// is kept as keys from its first row where keys are allowed.
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
    let gold_run = prepare_sql(plan, ctx.kind, gold, names);
    // Read as SQLite's first (Spider's and BIRD's shared golds), else as
    // the engine's own dialect (a gold written for it).
    let dialects = sqlwitness_sql::sqlite_first(ctx.kind);
    let ordered = match plan.compare.mode {
        // Spider 2.0's `ignore_order`, LiveSQLBench's `conditions.order`
        // and defog's `order_by` category are set per question by hand;
        // here they follow the gold's top-level ORDER BY.
        CompareMode::Strict
        | CompareMode::Spider2
        | CompareMode::Livesqlbench
        | CompareMode::Defog => {
            sqlwitness_sql::has_top_level_order_by_in(gold, &dialects).unwrap_or(false)
        }
        CompareMode::Spider => sqlwitness_sql::spider_order_matters(&gold_run),
        CompareMode::Bird => false,
    };
    let outcome = |gold_run: GoldRun,
                   pred_run: Option<PredRun>,
                   gold: Option<Execution>,
                   pred: Option<Execution>| EngineOutcome {
        ordered,
        gold,
        pred,
        ..EngineOutcome::new(decide(true, gold_run, pred_run))
    };
    if let Some(reason) = ctx.unavailable.get(&db.db_id) {
        let err = DbError::new(ErrorClass::Other, None, reason.clone());
        let gold_exec = Some(failed_execution(&err, None, 0.0));
        return (
            outcome(GoldRun::Unavailable, None, gold_exec, None),
            Rows::default(),
        );
    }
    let (gold_exec, gold_rows) =
        execute_answer(plan, ctx, db, gold, gold_run, !ordered, gold_as_keys);
    let Some(gold_rows) = gold_rows else {
        let class = gold_exec.error_class.unwrap_or(ErrorClass::Other);
        let mut rows = Rows::default();
        let mut pred_exec = None;
        if pred_despite_gold && class != ErrorClass::Connection && pred.is_some() {
            match run_pred(plan, ctx, db, gold, pred, names, !ordered, false) {
                PredStage::Ran(_, exec, r) => {
                    pred_exec = Some(exec);
                    rows.pred = Some(r);
                }
                PredStage::Stopped(_, exec) => pred_exec = exec,
            }
        }
        let o = outcome(GoldRun::Failed(class), None, Some(gold_exec), pred_exec);
        return (o, rows);
    };
    // A gold held as keys is compared on keys: so is the prediction.
    let keys_now = matches!(gold_rows, Answer::Digest(_));
    let (pred_sql, pred_exec, pred_rows) =
        match run_pred(plan, ctx, db, gold, pred, names, !ordered, keys_now) {
            PredStage::Ran(sql, exec, rows) => (sql, exec, rows),
            PredStage::Stopped(run, exec) => {
                // BIRD's Soft F1 scores a prediction that gave no rows 0.
                let o = EngineOutcome {
                    soft_f1: Some(0.0),
                    ..outcome(GoldRun::Ran, Some(run), Some(gold_exec), exec)
                };
                let rows = Rows {
                    gold: Some(gold_rows),
                    pred: None,
                };
                return (o, rows);
            }
        };
    let opts = CompareOptions {
        ordered,
        ..plan.compare
    };
    let (gold_rows, pred_rows) = match (gold_rows, pred_rows) {
        (Answer::Rows(g), Answer::Rows(p)) => (g, p),
        (g, p) => {
            // A result over the limit: compared by its rows' keys; no tie
            // probe or official verdicts (they need the values).
            let gold_sql = gold_exec
                .sql_run
                .clone()
                .unwrap_or_else(|| gold.to_string());
            let pred_sql = pred_exec
                .sql_run
                .clone()
                .unwrap_or_else(|| pred_sql.to_string());
            let (gd, pd) = (g.to_digest(), p.to_digest());
            let o = match compare_large(plan, ctx, db, (&gold_sql, &gd), (&pred_sql, &pd), &opts) {
                Ok(cmp) => EngineOutcome {
                    reason: cmp.reason,
                    soft_f1: Some(gd.soft_f1(&pd)),
                    ..outcome(
                        GoldRun::Ran,
                        Some(PredRun::Compared {
                            equal: cmp.equal,
                            tie: false,
                        }),
                        Some(gold_exec),
                        Some(pred_exec),
                    )
                },
                Err(why) => {
                    // Not the model's fault: the tool could not compare.
                    let mut pred_exec = pred_exec;
                    pred_exec.error = Some(format!(
                        "not compared: {}; raise --max-result-mb to compare the results by value",
                        why.message
                    ));
                    EngineOutcome {
                        ordered,
                        gold: Some(gold_exec),
                        pred: Some(pred_exec),
                        ..EngineOutcome::new(Verdict::EngineError)
                    }
                }
            };
            let rows = Rows {
                gold: Some(g),
                pred: Some(p),
            };
            return (o, rows);
        }
    };
    let cmp = match opts.mode {
        // defog's runner hands its comparison both SQL texts.
        CompareMode::Defog => sqlwitness_core::compare::defog_compare(
            &gold_rows,
            &pred_rows,
            ordered,
            Some(gold),
            Some(pred_sql),
        ),
        _ => compare(&gold_rows, &pred_rows, &opts),
    };
    // Ties, whichever rows either query returned (crate::ties): `match_tie`
    // with `--ties aware`, and the outcome's `tie`/`unstable` flags.
    let probe = |sql: &str| crate::execute::run_guarded(plan, ctx, db, sql).ok();
    let standing = crate::ties::Judged {
        run: &probe,
        opts: &opts,
        dialects: &dialects,
    }
    .standing(
        gold_exec.sql_run.as_deref().unwrap_or(gold),
        &gold_rows,
        pred_exec.sql_run.as_deref().unwrap_or(pred_sql),
        &pred_rows,
        cmp.equal,
    );
    let legacy =
        crate::scores::legacy_verdicts(plan, gold, pred_sql, &gold_rows, &pred_rows, |sql| {
            execute(
                plan,
                ctx,
                db,
                sql,
                prepare_sql(plan, ctx.kind, sql, names),
                !ordered,
            )
            .1
        });
    let compared = PredRun::Compared {
        equal: cmp.equal,
        tie: standing.gold_tie && plan.ties_aware,
    };
    // A non-strict mode's credit that the strict comparison withholds.
    let credit_causes = if cmp.equal && opts.mode != CompareMode::Strict {
        let strict = CompareOptions {
            mode: CompareMode::Strict,
            ordered: sqlwitness_sql::has_top_level_order_by_in(gold, &dialects).unwrap_or(false),
            ..opts
        };
        sqlwitness_core::compare::credit_causes(&gold_rows, &pred_rows, &strict)
    } else {
        Vec::new()
    };
    let o = EngineOutcome {
        reason: cmp.reason,
        credit_causes,
        soft_f1: Some(sqlwitness_core::compare::soft_f1(&gold_rows, &pred_rows)),
        tie: !cmp.equal && standing.passes,
        // A luck-based answer, right or wrong this time.
        unstable: standing.unstable,
        legacy,
        ..outcome(
            GoldRun::Ran,
            Some(compared),
            Some(gold_exec),
            Some(pred_exec),
        )
    };
    (
        o,
        Rows {
            gold: Some(Answer::Rows(gold_rows)),
            pred: Some(Answer::Rows(pred_rows)),
        },
    )
}

/// The strict comparison of two answers (each SQL as run, and its keys),
/// one of which is held as row keys only ([`crate::digest`]): decided by
/// the keys, or by reading again, on both sides, only the rows the keys
/// could not pair. `Err` (of class
/// `resource_limit`): why it could not be decided within the limits.
fn compare_large(
    plan: &EvalPlan,
    ctx: &EngineCtx,
    db: &Database,
    gold: (&str, &Digest),
    pred: (&str, &Digest),
    opts: &CompareOptions,
) -> Result<Comparison, DbError> {
    let residue = match compare_keys(gold.1, pred.1, opts) {
        KeyVerdict::Decided(c) => return Ok(c),
        KeyVerdict::Residue(r) => r,
    };
    let (mut gk, mut pk) = match &residue {
        Residue::Undecidable(why) => return Err(DbError::resource_limit(*why)),
        Residue::Positions(at) => (Keep::at(&plan.limits, at), Keep::at(&plan.limits, at)),
        Residue::Hashes { gold, pred } => (
            Keep::with_hashes(&plan.limits, gold.clone()),
            Keep::with_hashes(&plan.limits, pred.clone()),
        ),
    };
    for (side, (sql, _), keep) in [("gold", gold, &mut gk), ("prediction", pred, &mut pk)] {
        run_guarded_into(plan, ctx, db, sql, keep).map_err(|e| {
            DbError::resource_limit(format!(
                "the {side}'s rows that differ only in their numbers or dates could not be read again ({})",
                e.message
            ))
        })?;
    }
    decide_residue(&residue, gk, pk, gold.1, pred.1, opts).ok_or_else(|| {
        DbError::resource_limit("a second reading returned other rows than the first")
    })
}
