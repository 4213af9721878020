//! A whole evaluation: migrate what the engines need, connect, evaluate
//! every selected question on every engine in parallel, score, and return
//! the report (writing it is the caller's).

use rayon::prelude::*;
use std::collections::HashMap;
use std::time::Instant;

use sqlwitness_core::compare::CompareMode;
use sqlwitness_core::EngineKind;
use sqlwitness_report::{summarize, QuestionReport, Report, RunInfo, ToolInfo, FORMAT_VERSION};
use sqlwitness_sql::NameSet;

use crate::migrate::migrate_for;
use crate::question::{evaluate_question_safely, DbFacts, EngineCtx};
use crate::{EvalError, EvalPlan, Progress};

/// Stack of the evaluation threads: SQL syntax trees are walked
/// recursively (their depth is bounded by the guard, this is the margin).
const WORKER_STACK: usize = 64 << 20;

/// Runs the plan; the report of every selected question on every engine,
/// with the summary and the scores.
pub fn evaluate(plan: &EvalPlan, progress: &dyn Progress) -> Result<Report, EvalError> {
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
    let (unavailable, collations): (Vec<HashMap<String, String>>, Vec<_>) = plan
        .engines
        .iter()
        .map(|&kind| migrate_for(plan, kind, &db_ids, progress))
        .unzip();
    crate::suite::prepare_suites(plan, &plan.engines, &db_ids, progress);
    let connected = crate::connect(&plan.engines, &plan.servers, plan.jobs as u32 + 1)?;
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
    let names: HashMap<String, NameSet> =
        if plan.resolve_identifiers && ctxs.iter().any(|c| c.kind.is_server()) {
            db_ids
                .iter()
                .map(|id| {
                    let tables = sqlwitness_engines::sqlite_schema_names(
                        &plan.bench.database(id).sqlite_path,
                    )
                    .map_err(|e| EvalError::Internal(format!("{id}: reading schema names: {e}")))?;
                    Ok((id.clone(), NameSet::new(&tables)))
                })
                .collect::<Result<_, EvalError>>()?
        } else {
            HashMap::new()
        };

    // The reference judgment names a text-vs-number difference from the
    // schema (SQLite compares TEXT with a number as text).
    let schemas: HashMap<String, sqlwitness_sql::SchemaInfo> = if plan.reference.is_some() {
        db_ids
            .iter()
            .filter_map(|id| {
                let s = sqlwitness_audit::read_schema(&plan.bench.database(id).sqlite_path).ok()?;
                Some((id.clone(), s))
            })
            .collect()
    } else {
        HashMap::new()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(plan.jobs)
        .stack_size(WORKER_STACK)
        .build()
        .map_err(|e| EvalError::Internal(format!("starting worker threads: {e}")))?;
    let pb = progress.bar(plan.selected.len() as u64, "eval");
    let questions: Vec<QuestionReport> = pool.install(|| {
        plan.selected
            .par_iter()
            .map(|&i| {
                let q = &plan.bench.questions[i];
                let facts = DbFacts {
                    names: names.get(&q.db_id),
                    schema: schemas.get(&q.db_id),
                };
                let report = evaluate_question_safely(plan, q, &ctxs, facts);
                pb.inc(1);
                report
            })
            .collect()
    });
    pb.finish();

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
            golds: per_engine(plan, |k| plan.gold_sources.get(&k).cloned()),
            collations: plan
                .engines
                .iter()
                .zip(&collations)
                .filter(|(_, c)| !c.is_empty())
                .map(|(k, c)| {
                    let names: Vec<&str> = c.iter().map(String::as_str).collect();
                    (k.to_string(), names.join(", "))
                })
                .collect(),
            engine_predictions: per_engine(plan, |k| {
                plan.engine_predictions
                    .get(&k)
                    .map(|(p, _)| p.display().to_string())
            }),
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
    if let Some(suite) = &plan.suite {
        progress.note(&format!(
            "suite: {} executions on instances, {} gold results from the cache",
            suite.executions(),
            suite.cache_hits()
        ));
    }
    Ok(report)
}

/// For each engine of the run, `of(engine)` or, failing that, `of` the
/// engine its dialect extends (MariaDB runs MySQL's dialect gold and
/// predictions), said so.
fn per_engine(
    plan: &EvalPlan,
    of: impl Fn(EngineKind) -> Option<String>,
) -> std::collections::BTreeMap<String, String> {
    plan.engines
        .iter()
        .filter_map(|&k| {
            let own = of(k);
            let inherited = || {
                let parent = sqlwitness_dialect::parent(k)?;
                of(parent).map(|s| format!("{s} ({parent}'s)"))
            };
            own.or_else(inherited).map(|s| (k.to_string(), s))
        })
        .collect()
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
