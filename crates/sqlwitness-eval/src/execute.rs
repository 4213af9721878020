//! Stages of one query: prepare the text an engine gets (Spider mode's
//! reading and preprocessing, identifier resolution), guard and run it,
//! and record the execution for the report.

use sqlwitness_dialect::EngineFacts;
use std::time::Instant;

use sqlwitness_core::compare::CompareMode;
use sqlwitness_core::{canonical_cell, Database, DbError, EngineKind, ResultSet, RowSink, Value};
use sqlwitness_report::{truncate_cell, truncate_text, Execution, ExecutionStatus, MAX_TEXT_BYTES};
use sqlwitness_sql::NameSet;

use crate::ctx::EngineCtx;
use crate::digest::{Answer, Collector, Hold};
use crate::EvalPlan;

/// Rows kept per execution for the report's drill-down.
pub(crate) const SAMPLE_ROWS: usize = 5;

/// The prediction's SQL text as sent to an engine: in Spider mode as
/// `evaluation.py` reads it from its line, then [`prepare_sql`].
pub fn prepare_pred(
    plan: &EvalPlan,
    kind: EngineKind,
    pred_sql: &str,
    names: Option<&NameSet>,
) -> String {
    if plan.compare.mode == CompareMode::Spider {
        let read = sqlwitness_sql::spider_read_prediction(pred_sql);
        prepare_sql(plan, kind, &read, names)
    } else {
        prepare_sql(plan, kind, pred_sql, names)
    }
}

/// The SQL text actually sent to an engine: Spider mode's preprocessing,
/// then identifier case resolution on the servers.
pub fn prepare_sql(
    plan: &EvalPlan,
    kind: EngineKind,
    sql: &str,
    names: Option<&NameSet>,
) -> String {
    let mut s = sql.to_string();
    if plan.compare.mode == CompareMode::Spider {
        s = sqlwitness_sql::spider_postprocess(&s);
        if !plan.keep_distinct {
            s = sqlwitness_sql::spider_remove_distinct(&s);
        }
        s = sqlwitness_sql::spider_replace_cur_year(&s);
    }
    if kind.is_server() {
        if let Some(names) = names {
            s = sqlwitness_sql::resolve_identifiers(&s, names, kind);
        }
    }
    s
}

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
/// ([`crate::digest`]): in strict mode, with a tolerance no tighter than
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
    let (count, hash, (sample, truncated)) = match &answer {
        Answer::Rows(rows) => (
            rows.row_count(),
            rows.content_hash(),
            sample_of(&rows.rows, unordered),
        ),
        Answer::Digest(d) => (
            d.keys.len(),
            d.content_hash(),
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
        result_hash: Some(hash),
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
