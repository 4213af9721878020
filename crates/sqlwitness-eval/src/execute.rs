//! The execute stage: a prepared query guarded and run on one engine, its
//! rows collected ([`crate::answer::Collector`]) and its execution recorded
//! for the report; and the question's gold and prediction run in turn
//! ([`run_pair`]).

use sqlwitness_dialect::EngineFacts;
use std::time::Instant;

use sqlwitness_bench::PredictedSql;
use sqlwitness_core::compare::CompareMode;
use sqlwitness_core::{canonical_cell, Database, DbError, ErrorClass, ResultSet, RowSink, Value};
use sqlwitness_report::{truncate_cell, truncate_text, Execution, ExecutionStatus, MAX_TEXT_BYTES};
use sqlwitness_sql::NameSet;

use crate::answer::{Answer, Collector, Hold, SAMPLE_ROWS};
use crate::ctx::EngineCtx;
use crate::prepare::{prepare_pred, PreparedGold};
use crate::verdict::PredRun;
use crate::EvalPlan;

/// The report's sample of `rows`: the first [`SAMPLE_ROWS`] as returned,
/// or, with `unordered` (a result compared as a multiset, whose order is
/// the server's whim), the first in canonical order — so that two runs of
/// one plan write the same report. Whether a cell was cut.
pub(crate) fn sample_of(rows: &[Vec<Value>], unordered: bool) -> (Vec<Vec<String>>, bool) {
    let picked: Vec<&Vec<Value>> = if unordered && rows.len() > 1 {
        let mut keyed: Vec<(Vec<String>, &Vec<Value>)> = rows
            .iter()
            .map(|r| (r.iter().map(canonical_cell).collect(), r))
            .collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        keyed
            .into_iter()
            .take(SAMPLE_ROWS)
            .map(|(_, r)| r)
            .collect()
    } else {
        rows.iter().take(SAMPLE_ROWS).collect()
    };
    let mut truncated = false;
    let sample = picked
        .into_iter()
        .map(|r| {
            r.iter()
                .map(|v| {
                    let text = v.display();
                    match truncate_cell(&text) {
                        Some(cut) => {
                            truncated = true;
                            cut
                        }
                        None => text,
                    }
                })
                .collect()
        })
        .collect();
    (sample, truncated)
}

/// `sql` through the guard (in the namespace of `db`: a qualified table
/// name must name it), then on the engine within the plan's limits: how
/// every query derived from a prediction runs.
pub(crate) fn run_guarded(
    plan: &EvalPlan,
    ctx: &EngineCtx,
    db: &Database,
    sql: &str,
) -> Result<ResultSet, DbError> {
    guard(plan, ctx, db, sql).and_then(|()| ctx.engine.execute(db, sql, &plan.limits))
}

/// The guard, in the namespace of `db`.
fn guard(plan: &EvalPlan, ctx: &EngineCtx, db: &Database, sql: &str) -> Result<(), DbError> {
    // On SQLite the question's database is the file itself, opened as `main`.
    let namespace = if ctx.kind.is_server() {
        db.namespace.as_str()
    } else {
        "main"
    };
    let options = plan.guard.in_namespace(namespace);
    sqlwitness_guard::guard_with(sql, &ctx.dialect, &options)
}

/// [`run_guarded`], the rows handed to `sink` as they are read.
pub(crate) fn run_guarded_into(
    plan: &EvalPlan,
    ctx: &EngineCtx,
    db: &Database,
    sql: &str,
    sink: &mut dyn RowSink,
) -> Result<(), DbError> {
    guard(plan, ctx, db, sql).and_then(|()| ctx.engine.execute_into(db, sql, &plan.limits, sink))
}

/// Whether a result over the plan's `max_bytes` is read on as row keys
/// ([`crate::answer`]): in strict mode, with a tolerance no tighter than
/// the keys' rounding.
pub(crate) fn digests_allowed(plan: &EvalPlan) -> bool {
    plan.compare.mode == CompareMode::Strict && plan.compare.float_rel_tol >= 1e-11
}

/// [`execute`] of a gold or a prediction that is compared: a result over
/// the plan's `max_bytes` comes back as its row keys where
/// [`digests_allowed`], else as the `resource_limit` error. With
/// `keys_now` (the answer it is compared with is keys) it is kept as keys
/// from its first row where allowed.
pub(crate) fn execute_answer(
    plan: &EvalPlan,
    ctx: &EngineCtx,
    db: &Database,
    original: &str,
    run: String,
    unordered: bool,
    keys_now: bool,
) -> (Execution, Option<Answer>) {
    let hold = match (digests_allowed(plan), keys_now) {
        (false, _) => Hold::Values,
        (true, false) => Hold::ValuesThenKeys,
        (true, true) => Hold::Keys,
    };
    recorded(plan, ctx, db, original, run, unordered, hold)
}

/// Guards and runs one query; the execution record and, on success, the
/// rows. The record keeps the whole result's hash and row count but only
/// a cut sample (cells, SQL and messages cut to the report's limits, with
/// `truncated` set; in canonical order when the result is compared
/// `unordered`).
pub(crate) fn execute(
    plan: &EvalPlan,
    ctx: &EngineCtx,
    db: &Database,
    original: &str,
    run: String,
    unordered: bool,
) -> (Execution, Option<ResultSet>) {
    let (exec, answer) = recorded(plan, ctx, db, original, run, unordered, Hold::Values);
    (exec, answer.and_then(Answer::into_rows))
}

/// [`execute`], the rows held as `hold` says.
fn recorded(
    plan: &EvalPlan,
    ctx: &EngineCtx,
    db: &Database,
    original: &str,
    run: String,
    unordered: bool,
    hold: Hold,
) -> (Execution, Option<Answer>) {
    let started = Instant::now();
    let mut sink = Collector::new(&plan.limits, hold);
    let result = run_guarded_into(plan, ctx, db, &run, &mut sink);
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let sql_run = (run != original).then_some(run);
    if let Err(e) = result {
        return (failed_execution(&e, sql_run, ms), None);
    }
    let answer = sink.into_answer();
    // The hash and the sample are the report's alone: a run whose report
    // no one keeps records the count.
    let count = match &answer {
        Answer::Rows(rows) => rows.row_count(),
        Answer::Digest(d) => d.keys.len(),
    };
    let (hash, (sample, truncated)) = match &answer {
        _ if !plan.detail.full() => (None, (Vec::new(), false)),
        Answer::Rows(rows) => (Some(rows.content_hash()), sample_of(&rows.rows, unordered)),
        Answer::Digest(d) => (
            Some(d.content_hash()),
            sample_of(&d.sample_rows(unordered), false),
        ),
    };
    let mut exec = Execution {
        status: ExecutionStatus::Ok,
        sql_run,
        error_class: None,
        error_code: None,
        error: None,
        row_count: Some(count),
        result_hash: hash,
        sample,
        columns: answer.columns().iter().map(|c| c.name.clone()).collect(),
        truncated,
        duration_ms: ms,
    };
    cut_texts(&mut exec);
    (exec, Some(answer))
}

pub(crate) fn failed_execution(e: &DbError, sql_run: Option<String>, ms: f64) -> Execution {
    let mut exec = Execution {
        status: ExecutionStatus::Error,
        sql_run,
        error_class: Some(e.class),
        error_code: e.code.clone(),
        error: Some(e.message.clone()),
        row_count: None,
        result_hash: None,
        sample: Vec::new(),
        columns: Vec::new(),
        truncated: false,
        duration_ms: ms,
    };
    cut_texts(&mut exec);
    exec
}

/// Cuts `sql_run` and `error` to [`MAX_TEXT_BYTES`] (setting `truncated`).
fn cut_texts(exec: &mut Execution) {
    for text in [&mut exec.sql_run, &mut exec.error].into_iter().flatten() {
        if let Some(cut) = truncate_text(text, MAX_TEXT_BYTES) {
            *text = cut;
            exec.truncated = true;
        }
    }
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

/// What running a question's gold and prediction on one engine gave.
pub(crate) enum Executed<'a> {
    /// The gold failed with `class`; the prediction ran only when asked to
    /// run despite it (a reference judges it), and then its execution and
    /// rows are here.
    GoldFailed {
        class: ErrorClass,
        gold: Execution,
        pred: Option<Execution>,
        pred_rows: Option<Answer>,
    },
    /// The gold ran; the prediction stopped before it gave rows (abstained,
    /// refused, failed).
    PredStopped {
        gold: Execution,
        gold_rows: Answer,
        run: PredRun,
        pred: Option<Execution>,
    },
    /// Both gave rows.
    Ran(Ran<'a>),
}

/// A gold and a prediction that both gave rows.
pub(crate) struct Ran<'a> {
    pub gold: Execution,
    pub gold_rows: Answer,
    /// The prediction's text as the benchmark's file gives it.
    pub pred_sql: &'a str,
    pub pred: Execution,
    pub pred_rows: Answer,
}

/// Runs the prepared gold, then the prediction. With `pred_despite_gold`
/// the prediction still runs when the gold fails (not for a connection
/// failure). With `gold_as_keys` (the reference engine's gold is held as
/// keys) the gold is kept as keys from its first row where keys are
/// allowed; a gold held as keys has the prediction held as keys too.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_pair<'a>(
    plan: &EvalPlan,
    ctx: &EngineCtx,
    db: &Database,
    gold: &PreparedGold<'a>,
    pred: Option<&'a PredictedSql>,
    names: Option<&NameSet>,
    pred_despite_gold: bool,
    gold_as_keys: bool,
) -> Executed<'a> {
    let unordered = !gold.ordered;
    let (gold_exec, gold_rows) = execute_answer(
        plan,
        ctx,
        db,
        gold.sql,
        gold.run.clone(),
        unordered,
        gold_as_keys,
    );
    let Some(gold_rows) = gold_rows else {
        let class = gold_exec.error_class.unwrap_or(ErrorClass::Other);
        let (mut pred_exec, mut pred_rows) = (None, None);
        if pred_despite_gold && class != ErrorClass::Connection && pred.is_some() {
            match run_pred(plan, ctx, db, gold.sql, pred, names, unordered, false) {
                PredStage::Ran(_, exec, rows) => {
                    pred_exec = Some(exec);
                    pred_rows = Some(rows);
                }
                PredStage::Stopped(_, exec) => pred_exec = exec,
            }
        }
        return Executed::GoldFailed {
            class,
            gold: gold_exec,
            pred: pred_exec,
            pred_rows,
        };
    };
    let keys_now = matches!(gold_rows, Answer::Digest(_));
    match run_pred(plan, ctx, db, gold.sql, pred, names, unordered, keys_now) {
        PredStage::Ran(pred_sql, pred_exec, pred_rows) => Executed::Ran(Ran {
            gold: gold_exec,
            gold_rows,
            pred_sql,
            pred: pred_exec,
            pred_rows,
        }),
        PredStage::Stopped(run, pred_exec) => Executed::PredStopped {
            gold: gold_exec,
            gold_rows,
            run,
            pred: pred_exec,
        },
    }
}
