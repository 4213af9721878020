//! `sqlwitness eval`: every question's gold and prediction on every engine.

use anyhow::{Context, Result};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use sqlwitness_bench::{PredictedSql, Question};
use sqlwitness_core::compare::{compare, CompareMode, CompareOptions};
use sqlwitness_core::{Database, DbError, Engine, EngineKind, ErrorClass, ResultSet};
use sqlwitness_dialect::Dialect;
use sqlwitness_report::{
    summarize, truncate_cell, truncate_text, write_report, EngineOutcome, Execution,
    ExecutionStatus, QuestionReport, Report, RunInfo, ToolInfo, Verdict, FORMAT_VERSION,
    MAX_TEXT_BYTES,
};
use sqlwitness_sql::NameSet;

use crate::engines;
use crate::exit;
use crate::migrate::{migrate_one, problem};
use crate::plan::EvalPlan;
use crate::progress;

/// Rows kept per execution for the report's drill-down.
const SAMPLE_ROWS: usize = 5;

/// What every question's evaluation on one engine needs.
struct EngineCtx {
    kind: EngineKind,
    engine: std::sync::Arc<dyn Engine>,
    dialect: Dialect,
    /// Databases that could not be migrated to this engine, with the reason.
    unavailable: HashMap<String, String>,
}

pub fn run(plan: &EvalPlan) -> Result<i32> {
    let started = Instant::now();
    let db_ids: Vec<String> = {
        let mut ids: Vec<String> = plan
            .selected
            .iter()
            .map(|&i| plan.bench.questions[i].db_id.clone())
            .filter(|id| plan.bench.db_exists(id))
            .collect();
        ids.sort();
        ids.dedup();
        ids
    };
    // Migrations first, over the administrative URLs: they also grant the
    // reader login the queries then run as.
    let unavailable: Vec<HashMap<String, String>> = plan
        .engines
        .iter()
        .map(|&kind| migrate_for(plan, kind, &db_ids))
        .collect();
    crate::fuzz::prepare_suites(plan, &plan.engines, &db_ids);
    let connected = engines::connect(&plan.engines, &plan.servers, plan.jobs as u32 + 1)?;
    let ctxs: Vec<EngineCtx> = connected
        .into_iter()
        .zip(unavailable)
        .map(|(c, unavailable)| EngineCtx {
            kind: c.kind,
            dialect: sqlwitness_dialect::builtin(c.kind),
            engine: c.engine,
            unavailable,
        })
        .collect();
    let names: HashMap<String, NameSet> = if plan.resolve_identifiers
        && ctxs.iter().any(|c| c.kind.is_server())
    {
        db_ids
            .iter()
            .map(|id| {
                let tables =
                    sqlwitness_engines::sqlite_schema_names(&plan.bench.database(id).sqlite_path)
                        .map_err(|e| anyhow::anyhow!("{id}: reading schema names: {e}"))?;
                Ok((id.clone(), NameSet::new(&tables)))
            })
            .collect::<Result<_>>()?
    } else {
        HashMap::new()
    };

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(plan.jobs)
        .stack_size(WORKER_STACK)
        .build()
        .context("starting worker threads")?;
    let pb = progress::bar(plan.selected.len() as u64, "eval", plan.quiet);
    let questions: Vec<QuestionReport> = pool.install(|| {
        plan.selected
            .par_iter()
            .map(|&i| {
                let q = &plan.bench.questions[i];
                let report = evaluate_question_safely(plan, q, &ctxs, names.get(&q.db_id));
                pb.inc(1);
                report
            })
            .collect()
    });
    pb.finish_and_clear();

    let mut report = Report {
        format_version: FORMAT_VERSION,
        tool: ToolInfo {
            name: "sqlwitness".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        run: RunInfo {
            bench: plan.bench_arg.display().to_string(),
            split: plan.bench.split.clone(),
            predictions: plan.pred_path.as_ref().map(|p| p.display().to_string()),
            compare: match plan.compare.mode {
                CompareMode::Strict => "strict",
                CompareMode::Spider => "spider",
                CompareMode::Bird => "bird",
            }
            .into(),
            column_order: if plan.compare.column_order_any {
                "any"
            } else {
                "exact"
            }
            .into(),
            keep_distinct: plan.keep_distinct,
            float_tolerance: plan.compare.float_rel_tol,
            timeout_ms: plan.limits.timeout.as_millis() as u64,
            identifiers: if plan.resolve_identifiers {
                "sqlite"
            } else {
                "verbatim"
            }
            .into(),
            engines: ctxs.iter().map(|c| c.engine.info().clone()).collect(),
            duration_ms: started.elapsed().as_millis() as u64,
            peak_rss_bytes: None,
        },
        summary: summarize(&questions),
        questions,
    };
    report.summary.scores = Some(crate::scores::compute(plan, &report.questions));
    report.run.peak_rss_bytes = peak_rss_bytes();
    write_report(&plan.out, &report)?;
    for (engine, s) in &report.summary.engines {
        eprintln!(
            "{engine:>8}: {} questions, {} match, {} mismatch, {} gold_error, {} pred_error, {} abstained, {} missing_db, {} timeout, {} engine_error, EX {:.4}",
            s.questions, s.matched, s.mismatch, s.gold_error, s.pred_error, s.abstained, s.missing_db, s.timeout, s.engine_error, s.ex
        );
    }
    eprintln!(
        "report: {} ({:.2} s)",
        plan.out.join("report.json").display(),
        started.elapsed().as_secs_f64()
    );
    crate::fuzz::print_suite_stats(plan);
    let engine_errors: Vec<String> = report
        .summary
        .engines
        .iter()
        .filter(|(_, s)| s.engine_error > 0)
        .map(|(e, s)| format!("{e}: {}", s.engine_error))
        .collect();
    let gate = match &plan.scoring.baseline {
        Some(baseline) => {
            crate::diff::against_baseline(baseline, &report, plan.scoring.tolerance, &plan.out)?
        }
        None => exit::OK,
    };
    if !engine_errors.is_empty() {
        eprintln!(
            "sqlwitness: error: questions the engines could not run (engine_error, left out of EX): {}",
            engine_errors.join(", ")
        );
        return Ok(exit::ENGINE);
    }
    Ok(gate)
}

/// Stack of the evaluation threads: SQL syntax trees are walked
/// recursively (their depth is bounded by the guard, this is the margin).
const WORKER_STACK: usize = 64 << 20;

/// The report files a run writes into `--out`. A run removes the ones a
/// previous run left before it starts, so that a failing run never leaves an
/// older report where CI would read it as this run's.
const OUTPUTS: &[&str] = &[
    "report.json",
    "report.tmp",
    "summary.md",
    "report.html",
    "junit.xml",
    "baseline-diff.md",
];

/// The files `sqlwitness audit` writes into its `--out`.
pub const AUDIT_OUTPUTS: &[&str] = &["audit.json", "audit.md", "baseline-diff.md"];

/// Removes the report files of an earlier eval run from `out` (see
/// [`OUTPUTS`]).
pub fn clear_outputs(out: &std::path::Path) -> Result<()> {
    clear_files(out, OUTPUTS)
}

/// Removes the files `names` from `out` where they exist.
pub fn clear_files(out: &std::path::Path, names: &[&str]) -> Result<()> {
    for name in names {
        let path = out.join(name);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(anyhow::Error::new(e)
                    .context(format!("removing the earlier {}", path.display())))
            }
        }
    }
    Ok(())
}

/// The process's peak resident set size (Linux: `VmHWM` in
/// `/proc/self/status`).
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line
        .trim_start_matches("VmHWM:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// Migrates (or verifies) what a server engine needs, through the same code
/// as `sqlwitness migrate`; the databases that could not be migrated, with
/// the reason.
fn migrate_for(plan: &EvalPlan, kind: EngineKind, db_ids: &[String]) -> HashMap<String, String> {
    let mut unavailable = HashMap::new();
    if kind.is_server() && plan.migrate {
        let pb = progress::bar(db_ids.len() as u64, "migrate", plan.quiet);
        for id in db_ids {
            if let Some(r) = migrate_one(&plan.bench, id, kind, &plan.servers, false) {
                if let Some(problem) = problem(&r) {
                    unavailable.insert(id.clone(), problem);
                }
            }
            pb.inc(1);
        }
        pb.finish_and_clear();
    }
    unavailable
}

/// [`evaluate_question`], with a panic anywhere inside turned into that
/// question's `engine_error` on every engine: no question may end the run.
fn evaluate_question_safely(
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
    let pred: Option<&PredictedSql> = plan.predictions.as_ref().map(|p| match &p[q.id] {
        Some(pred) => &pred.sql,
        None => &PredictedSql::Abstain,
    });
    let mut engines = BTreeMap::new();
    let db_exists = plan.bench.db_exists(&q.db_id);
    let db = plan.bench.database(&q.db_id);
    for ctx in ctxs {
        let outcome = if !db_exists {
            EngineOutcome {
                verdict: Verdict::MissingDb,
                reason: None,
                ordered: false,
                gold: None,
                pred: None,
                suite: None,
                legacy: None,
            }
        } else {
            let outcome = evaluate_on(plan, ctx, &db, &q.gold, pred, names);
            crate::fuzz::with_suite(plan, ctx.engine.as_ref(), q, pred, names, outcome)
        };
        engines.insert(ctx.kind.as_str().to_string(), outcome);
    }
    QuestionReport {
        id: q.id,
        db_id: q.db_id.clone(),
        question: q.question.clone(),
        gold_sql: q.gold.clone(),
        pred_sql: match pred {
            Some(PredictedSql::Sql(s)) => {
                Some(truncate_text(s, MAX_TEXT_BYTES).unwrap_or_else(|| s.clone()))
            }
            _ => None,
        },
        engines,
    }
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
    let outcome = |verdict, gold: Option<Execution>, pred: Option<Execution>| EngineOutcome {
        verdict,
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
            Verdict::GoldError,
            Some(failed_execution(&err, None, 0.0)),
            None,
        );
    }
    let (gold_exec, gold_rows) = execute(plan, ctx, db, gold, gold_run);
    let Some(gold_rows) = gold_rows else {
        let verdict = if gold_exec.error_class == Some(ErrorClass::Connection) {
            Verdict::EngineError
        } else {
            Verdict::GoldError
        };
        return outcome(verdict, Some(gold_exec), None);
    };
    // In the self-check the gold is its own prediction, run again.
    let pred_sql = match pred {
        None => gold,
        Some(PredictedSql::Abstain) => {
            return outcome(Verdict::Abstained, Some(gold_exec), None);
        }
        Some(PredictedSql::Invalid(why)) => {
            let err = DbError::refused(why.clone());
            return outcome(
                Verdict::PredError,
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
            Verdict::PredError,
            Some(gold_exec),
            Some(failed_execution(&err, None, 0.0)),
        );
    }
    // Spider mode: the prediction as `evaluation.py` reads it from its line
    // (`sql_run` then records any cut at a tab).
    let pred_run = prepare_pred(plan, ctx.kind, pred_sql, names);
    let (pred_exec, pred_rows) = execute(plan, ctx, db, pred_sql, pred_run);
    let Some(pred_rows) = pred_rows else {
        let verdict = match pred_exec.error_class {
            Some(ErrorClass::Timeout) => Verdict::Timeout,
            Some(ErrorClass::Connection) => Verdict::EngineError,
            _ => Verdict::PredError,
        };
        return outcome(verdict, Some(gold_exec), Some(pred_exec));
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
        verdict: if cmp.equal {
            Verdict::Match
        } else if tie {
            Verdict::MatchTie
        } else {
            Verdict::Mismatch
        },
        reason: cmp.reason,
        ordered,
        gold: Some(gold_exec),
        pred: Some(pred_exec),
        suite: None,
        legacy,
    }
}

/// The prediction's SQL text as sent to an engine: in Spider mode as
/// `evaluation.py` reads it from its line, then [`prepare_sql`].
pub(crate) fn prepare_pred(
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
pub(crate) fn prepare_sql(
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

/// Guards and runs one query; the execution record and, on success, the
/// rows. The record keeps the whole result's hash and row count but only
/// a cut sample (cells, SQL and messages cut to the report's limits, with
/// `truncated` set).
fn execute(
    plan: &EvalPlan,
    ctx: &EngineCtx,
    db: &Database,
    original: &str,
    run: String,
) -> (Execution, Option<ResultSet>) {
    let started = Instant::now();
    let result = sqlwitness_sql::guard_with(&run, &ctx.dialect, &plan.guard)
        .and_then(|()| ctx.engine.execute(db, &run, &plan.limits));
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let sql_run = (run != original).then_some(run);
    match result {
        Ok(rows) => {
            let mut truncated = false;
            let sample = rows
                .rows
                .iter()
                .take(SAMPLE_ROWS)
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
            let mut exec = Execution {
                status: ExecutionStatus::Ok,
                sql_run,
                error_class: None,
                error_code: None,
                error: None,
                row_count: Some(rows.row_count()),
                result_hash: Some(rows.content_hash()),
                sample,
                truncated,
                duration_ms: ms,
            };
            cut_texts(&mut exec);
            (exec, Some(rows))
        }
        Err(e) => (failed_execution(&e, sql_run, ms), None),
    }
}

fn failed_execution(e: &DbError, sql_run: Option<String>, ms: f64) -> Execution {
    let mut exec = Execution {
        status: ExecutionStatus::Error,
        sql_run,
        error_class: Some(e.class),
        error_code: e.code.clone(),
        error: Some(e.message.clone()),
        row_count: None,
        result_hash: None,
        sample: Vec::new(),
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
