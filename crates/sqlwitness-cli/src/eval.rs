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
    summarize, write_report, EngineOutcome, Execution, ExecutionStatus, QuestionReport, Report,
    RunInfo, ToolInfo, Verdict, FORMAT_VERSION,
};
use sqlwitness_sql::NameSet;

use crate::engines::{self, Connected};
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
    let connected = engines::connect(&plan.engines, &plan.servers, plan.jobs as u32 + 1)?;
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
    let ctxs: Vec<EngineCtx> = connected
        .into_iter()
        .map(|c| prepare_engine(plan, c, &db_ids))
        .collect();
    let kinds: Vec<EngineKind> = ctxs.iter().map(|c| c.kind).collect();
    crate::fuzz::prepare_suites(plan, &kinds, &db_ids);
    let names: HashMap<String, NameSet> = if plan.resolve_identifiers
        && ctxs.iter().any(|c| c.kind != EngineKind::Sqlite)
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
        .build()
        .context("starting worker threads")?;
    let pb = progress::bar(plan.selected.len() as u64, "eval", plan.quiet);
    let questions: Vec<QuestionReport> = pool.install(|| {
        plan.selected
            .par_iter()
            .map(|&i| {
                let q = &plan.bench.questions[i];
                let report = evaluate_question(plan, q, &ctxs, names.get(&q.db_id));
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
        },
        summary: summarize(&questions),
        questions,
    };
    report.summary.scores = Some(crate::scores::compute(plan, &report.questions));
    write_report(&plan.out, &report)?;
    for (engine, s) in &report.summary.engines {
        eprintln!(
            "{engine:>8}: {} questions, {} match, {} mismatch, {} gold_error, {} pred_error, {} abstained, {} missing_db, {} timeout, EX {:.4}",
            s.questions, s.matched, s.mismatch, s.gold_error, s.pred_error, s.abstained, s.missing_db, s.timeout, s.ex
        );
    }
    eprintln!(
        "report: {} ({:.2} s)",
        plan.out.join("report.json").display(),
        started.elapsed().as_secs_f64()
    );
    crate::fuzz::print_suite_stats(plan);
    if let Some(baseline) = &plan.scoring.baseline {
        return crate::diff::against_baseline(baseline, &report, plan.scoring.tolerance, &plan.out);
    }
    Ok(exit::OK)
}

/// Migrates (or verifies) what a server engine needs, through the same code
/// as `sqlwitness migrate`.
fn prepare_engine(plan: &EvalPlan, c: Connected, db_ids: &[String]) -> EngineCtx {
    let mut unavailable = HashMap::new();
    if c.kind != EngineKind::Sqlite && plan.migrate {
        let pb = progress::bar(db_ids.len() as u64, "migrate", plan.quiet);
        for id in db_ids {
            if let Some(r) = migrate_one(&plan.bench, id, c.kind, &plan.servers, false) {
                if let Some(problem) = problem(&r) {
                    unavailable.insert(id.clone(), problem);
                }
            }
            pb.inc(1);
        }
        pb.finish_and_clear();
    }
    EngineCtx {
        kind: c.kind,
        dialect: sqlwitness_dialect::builtin(c.kind),
        engine: c.engine,
        unavailable,
    }
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
            Some(PredictedSql::Sql(s)) => Some(s.clone()),
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
        return outcome(Verdict::GoldError, Some(gold_exec), None);
    };
    // In the self-check the gold is its own prediction, run again.
    let pred_sql = match pred {
        None => gold,
        Some(PredictedSql::Abstain) => {
            return outcome(Verdict::Abstained, Some(gold_exec), None);
        }
        Some(PredictedSql::Sql(s)) => s.as_str(),
    };
    // Spider mode: the prediction as `evaluation.py` reads it from its line
    // (`sql_run` then records any cut at a tab).
    let pred_run = prepare_pred(plan, ctx.kind, pred_sql, names);
    let (pred_exec, pred_rows) = execute(plan, ctx, db, pred_sql, pred_run);
    let Some(pred_rows) = pred_rows else {
        let verdict = if pred_exec.error_class == Some(ErrorClass::Timeout) {
            Verdict::Timeout
        } else {
            Verdict::PredError
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
    if kind != EngineKind::Sqlite {
        if let Some(names) = names {
            s = sqlwitness_sql::resolve_identifiers(&s, names, kind);
        }
    }
    s
}

/// Guards and runs one query; the execution record and, on success, the rows.
fn execute(
    plan: &EvalPlan,
    ctx: &EngineCtx,
    db: &Database,
    original: &str,
    run: String,
) -> (Execution, Option<ResultSet>) {
    let sql_run = (run != original).then(|| run.clone());
    let started = Instant::now();
    let result = sqlwitness_sql::guard(&run, &ctx.dialect)
        .and_then(|()| ctx.engine.execute(db, &run, &plan.limits));
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    match result {
        Ok(rows) => (
            Execution {
                status: ExecutionStatus::Ok,
                sql_run,
                error_class: None,
                error_code: None,
                error: None,
                row_count: Some(rows.row_count()),
                result_hash: Some(rows.content_hash()),
                sample: rows
                    .rows
                    .iter()
                    .take(SAMPLE_ROWS)
                    .map(|r| r.iter().map(|v| v.display()).collect())
                    .collect(),
                duration_ms: ms,
            },
            Some(rows),
        ),
        Err(e) => (failed_execution(&e, sql_run, ms), None),
    }
}

fn failed_execution(e: &DbError, sql_run: Option<String>, ms: f64) -> Execution {
    Execution {
        status: ExecutionStatus::Error,
        sql_run,
        error_class: Some(e.class),
        error_code: e.code.clone(),
        error: Some(e.message.clone()),
        row_count: None,
        result_hash: None,
        sample: Vec::new(),
        duration_ms: ms,
    }
}
