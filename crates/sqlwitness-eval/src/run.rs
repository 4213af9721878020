//! A whole evaluation: migrate what the engines need, connect, evaluate
//! every selected question on every engine in parallel, score, and return
//! the report (writing it is the caller's).

use rayon::prelude::*;
use sqlwitness_dialect::EngineFacts;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use sqlwitness_core::compare::CompareMode;
use sqlwitness_core::EngineKind;
use sqlwitness_report::{summarize, QuestionReport, Report, RunInfo, ToolInfo, FORMAT_VERSION};
use sqlwitness_run::{sha256_hex, Header, Journal, JournalMode, Progress, RunError};
use sqlwitness_sql::NameSet;

use crate::ctx::{DbFacts, EngineCtx};
use crate::migrate::migrate_for;
use crate::question::evaluate_question_safely;
use crate::{EvalError, EvalPlan};

/// Stack of the evaluation threads: SQL syntax trees are walked
/// recursively (their depth is bounded by the guard, this is the margin).
const WORKER_STACK: usize = 64 << 20;

/// Runs the plan; the report of every selected question (of its
/// partition) on every engine, with the summary and the scores. With a
/// journal, every finished question is recorded as it finishes, and with
/// `JournalMode::Resume` the questions the journal holds are not run again.
pub fn evaluate(plan: &EvalPlan, progress: &dyn Progress) -> Result<Report, EvalError> {
    let started = Instant::now();
    let mine = partition_selection(plan);
    let (db_ids, unusable) = usable_databases(plan, &mine, progress);
    // Migrations first, over the administrative URLs: they also grant the
    // reader login the queries then run as.
    let migrations: Vec<crate::migrate::Migrations> = plan
        .engines
        .iter()
        .map(|&kind| migrate_for(plan, kind, &db_ids, progress))
        .collect();
    let collations: Vec<_> = migrations.iter().map(|m| m.collations.clone()).collect();
    // The suite's instance copies are the run's own: dropped when this
    // goes, after everything below (the engines reading them) is gone.
    let mut suite_copies = crate::suite::prepare_suites(plan, &plan.engines, &db_ids, progress);
    let connected = sqlwitness_run::connect_reading(
        &plan.engines,
        &plan.servers,
        plan.jobs as u32 + 1,
        &crate::namespaces::eval_namespaces(plan, &db_ids),
        &plan.cancel,
    )?;
    // The run's own logins outlive the engines that use them.
    let mut logins = Vec::new();
    let degraded = degraded_columns(plan, &db_ids);
    let ctxs: Vec<EngineCtx> = connected
        .into_iter()
        .zip(migrations)
        .map(|(mut c, m)| {
            logins.push(c.login.take());
            engine_ctx(c, m, &unusable, &degraded)
        })
        .collect();
    let mut run = run_info(
        plan,
        ctxs.iter().map(|c| c.engine.info().clone()).collect(),
        &collations,
    );
    // Without a journal nothing reads its header (the inputs' hashes).
    let (journal, done) = match plan.journal {
        JournalMode::Off => (Journal::off(), Vec::new()),
        mode => {
            Journal::open::<QuestionReport>(&plan.out, &header(plan, &run)?, mode, &plan.cancel)?
        }
    };
    let journal = Arc::new(journal);
    // On a cancellation: the journal first (nothing finished from then on
    // is recorded), then the servers' queries in flight.
    let _hooks = plan
        .cancel
        .run_hooks(&journal, ctxs.iter().map(|c| c.engine.clone()));
    // Then the suite's copies, which the cancelled queries no longer hold.
    suite_copies.rearm();
    let (mut done, todo) = resumed(&mine, done, progress);
    let facts = Facts::read(plan, &db_ids, &ctxs, progress);
    let fresh = evaluate_all(plan, &todo, &ctxs, &facts, &journal, progress)?;
    journal.stop();
    done.extend(fresh.into_iter().map(|q| (q.id, q)));
    let questions: Vec<QuestionReport> = mine.iter().filter_map(|i| done.remove(i)).collect();
    run.duration_ms = started.elapsed().as_millis() as u64;
    run.peak_rss_bytes = peak_rss_bytes();
    if let Some(suite) = &plan.suite {
        progress.note(&format!(
            "suite: {} executions on instances, {} gold results from the cache",
            suite.executions(),
            suite.cache_hits()
        ));
    }
    Ok(assemble(plan, run, questions))
}

/// The databases of the questions `mine` that exist, sorted, with their
/// dumps re-imported where they changed (on a server of the dump's
/// engine); and those that cannot be used, with why: never read nor
/// migrated, their questions `engine_error` on every engine.
fn usable_databases(
    plan: &EvalPlan,
    mine: &[usize],
    progress: &dyn Progress,
) -> (Vec<String>, BTreeMap<String, String>) {
    let mut db_ids: Vec<String> = mine
        .iter()
        .map(|&i| plan.bench.questions[i].db_id.clone())
        .collect();
    db_ids.sort();
    db_ids.dedup();
    db_ids.retain(|id| plan.bench.db_exists(id));
    sqlwitness_run::refresh_dumps(
        &plan.bench,
        &db_ids,
        &plan.servers,
        sqlwitness_run::REIMPORT_STATEMENT_LIMIT,
        &|n| progress.note(n),
    );
    let unusable: BTreeMap<String, String> = db_ids
        .iter()
        .filter_map(|id| sqlwitness_run::unusable(&plan.bench, id).map(|why| (id.clone(), why)))
        .collect();
    for (id, why) in &unusable {
        progress.note(&format!(
            "{id}: database unusable, its questions are engine_error: {why}"
        ));
    }
    db_ids.retain(|id| !unusable.contains_key(id));
    (db_ids, unusable)
}

/// One engine's context for the run: its reading engine, the databases
/// its migration could not carry or that are unusable, its copies'
/// caveats, and the columns its copies hold degraded (none on the
/// source's own engine).
#[allow(clippy::type_complexity)]
fn engine_ctx(
    c: sqlwitness_run::Connected,
    m: crate::migrate::Migrations,
    unusable: &BTreeMap<String, String>,
    degraded: &HashMap<String, (Option<EngineKind>, Vec<(String, String, String)>)>,
) -> EngineCtx {
    let mut unavailable = m.unavailable;
    for (id, why) in unusable {
        unavailable.insert(id.clone(), format!("database unusable: {why}"));
    }
    EngineCtx {
        kind: c.kind,
        dialect: sqlwitness_dialect::builtin(c.kind),
        engine: c.engine,
        unavailable,
        caveats: m.caveats,
        degraded: degraded
            .iter()
            .filter(|(_, (source, _))| *source != Some(c.kind))
            .map(|(id, (_, cols))| (id.clone(), cols.clone()))
            .collect(),
    }
}

/// The journal's finished questions among `mine`, by id, and the questions
/// left to run, in order.
fn resumed(
    mine: &[usize],
    done: Vec<QuestionReport>,
    progress: &dyn Progress,
) -> (HashMap<usize, QuestionReport>, Vec<usize>) {
    let wanted: HashSet<usize> = mine.iter().copied().collect();
    let done: HashMap<usize, QuestionReport> = done
        .into_iter()
        .filter(|q| wanted.contains(&q.id))
        .map(|q| (q.id, q))
        .collect();
    let todo: Vec<usize> = mine
        .iter()
        .copied()
        .filter(|i| !done.contains_key(i))
        .collect();
    if !done.is_empty() {
        progress.note(&format!(
            "resume: {} questions from the journal, {} to run",
            done.len(),
            todo.len()
        ));
    }
    (done, todo)
}

/// What the run reads once per database for its questions' stages.
struct Facts {
    /// Each usable database as the engines address it.
    databases: HashMap<String, sqlwitness_core::Database>,
    /// Each database's names, for identifier resolution on the servers.
    names: HashMap<String, NameSet>,
    /// Each database's schema, for the reference judgment.
    schemas: HashMap<String, sqlwitness_sql::SchemaInfo>,
    /// What Spider's exact match reads.
    exact: HashMap<
        String,
        (
            sqlwitness_spider::SpiderSchema,
            sqlwitness_spider::ForeignKeyMap,
        ),
    >,
}

impl Facts {
    fn read(
        plan: &EvalPlan,
        db_ids: &[String],
        ctxs: &[EngineCtx],
        progress: &dyn Progress,
    ) -> Facts {
        // The probe before read every schema; a database that fails here
        // all the same (changed under the run) is resolved verbatim, and
        // its queries meet the same failure as verdicts.
        let names = if plan.resolve_identifiers && ctxs.iter().any(|c| c.kind.is_server()) {
            db_ids
                .iter()
                .filter_map(|id| {
                    let path = plan.bench.sqlite_path(id);
                    match sqlwitness_engines::sqlite_schema_names(&path) {
                        Ok(tables) => Some((id.clone(), NameSet::new(&tables))),
                        Err(e) => {
                            progress.note(&format!("{id}: reading schema names: {e}"));
                            None
                        }
                    }
                })
                .collect()
        } else {
            HashMap::new()
        };
        // The reference judgment names a text-vs-number difference from
        // the schema (SQLite compares TEXT with a number as text).
        let schemas = if plan.reference.is_some() {
            db_ids
                .iter()
                .filter_map(|id| {
                    let path = plan.bench.sqlite_path(id);
                    let s = sqlwitness_audit::read_schema(&path).ok()?;
                    Some((id.clone(), s))
                })
                .collect()
        } else {
            HashMap::new()
        };
        // Only the report shows the exact match.
        let exact = if plan.detail.full() {
            exact_match_schemas(plan, db_ids, progress)
        } else {
            HashMap::new()
        };
        let databases = db_ids
            .iter()
            .map(|id| (id.clone(), plan.bench.database(id)))
            .collect();
        Facts {
            databases,
            names,
            schemas,
            exact,
        }
    }

    fn of(&self, db_id: &str) -> DbFacts<'_> {
        DbFacts {
            db: self.databases.get(db_id),
            names: self.names.get(db_id),
            schema: self.schemas.get(db_id),
            exact: self.exact.get(db_id),
        }
    }
}

/// Evaluates the questions `todo` in parallel (`plan.jobs` workers), each
/// recorded in the journal as it finishes; none starts once the run is
/// cancelled, and a cancelled run is `Interrupted`.
fn evaluate_all(
    plan: &EvalPlan,
    todo: &[usize],
    ctxs: &[EngineCtx],
    facts: &Facts,
    journal: &Journal,
    progress: &dyn Progress,
) -> Result<Vec<QuestionReport>, EvalError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(plan.jobs)
        .stack_size(WORKER_STACK)
        .build()
        .map_err(|e| EvalError::internal(format!("starting worker threads: {e}")))?;
    let pb = progress.bar(todo.len() as u64, "eval");
    let fresh: Vec<QuestionReport> = pool.install(|| {
        todo.par_iter()
            .filter(|_| !plan.cancel.is_cancelled())
            .map(|&i| {
                let q = &plan.bench.questions[i];
                let report = evaluate_question_safely(plan, q, ctxs, facts.of(&q.db_id));
                journal.record(&report)?;
                pb.inc(1);
                Ok(report)
            })
            .collect::<Result<_, EvalError>>()
    })?;
    pb.finish();
    if plan.cancel.is_cancelled() {
        return Err(RunError::Interrupted.into());
    }
    Ok(fresh)
}

/// What Spider's exact match reads of each database (the schema of its
/// SQLite file, the foreign keys of `tables.json`), for a Spider benchmark
/// with `tables.json` and predictions; empty otherwise. A database that
/// cannot be read is left out (its questions get no exact match), with a
/// note.
fn exact_match_schemas(
    plan: &EvalPlan,
    db_ids: &[String],
    progress: &dyn Progress,
) -> HashMap<
    String,
    (
        sqlwitness_spider::SpiderSchema,
        sqlwitness_spider::ForeignKeyMap,
    ),
> {
    use sqlwitness_bench::BenchmarkFormat as F;
    let spider = matches!(plan.bench.format, F::SpiderJson | F::SpiderGoldSql);
    let tables_json = plan.bench.root.join("tables.json");
    if !spider || plan.predictions.is_none() || !tables_json.is_file() {
        return HashMap::new();
    }
    let tables = match sqlwitness_bench::load_tables_json(&tables_json) {
        Ok(t) => t,
        Err(e) => {
            progress.note(&format!("exact match: {e}"));
            return HashMap::new();
        }
    };
    let mut out = HashMap::new();
    for id in db_ids {
        let path = plan.bench.sqlite_path(id);
        let (Some(t), Ok(names)) = (
            tables.get(id),
            sqlwitness_engines::sqlite_schema_names(&path),
        ) else {
            continue;
        };
        match sqlwitness_spider::ForeignKeyMap::new(
            &t.table_names_original,
            &t.column_names_original,
            &t.foreign_keys,
        ) {
            Ok(keys) => {
                out.insert(
                    id.clone(),
                    (sqlwitness_spider::SpiderSchema::new(names), keys),
                );
            }
            Err(e) => progress.note(&format!(
                "{id}: exact match: tables.json's foreign keys: {e}"
            )),
        }
    }
    out
}

/// The report of `questions` (in the plan's order): summary and scores.
fn assemble(plan: &EvalPlan, run: RunInfo, questions: Vec<QuestionReport>) -> Report {
    let mut report = Report {
        format_version: FORMAT_VERSION,
        tool: ToolInfo {
            name: "sqlwitness".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        run,
        summary: summarize(&questions),
        questions,
    };
    if plan.detail.full() {
        report.summary.scores = Some(crate::scores::compute(plan, &report.questions));
    }
    report
}

/// Combines the outputs of the partitions of `plan` (folders written by
/// `eval --partition K/N`) into the report the unpartitioned run writes:
/// every part must come from this plan and these inputs (checked against
/// the journals), on the same servers, and together hold every selected
/// question. Times are the parts' sums; peak memory their maximum.
pub fn merge_eval(plan: &EvalPlan, parts: &[std::path::PathBuf]) -> Result<Report, EvalError> {
    let (records, runs): (Vec<QuestionReport>, Vec<RunInfo>) =
        sqlwitness_run::merge_parts(parts, |first| header(plan, first))?;
    let first = runs[0].clone();
    let mut by_id: HashMap<usize, QuestionReport> = HashMap::new();
    for q in records {
        if by_id.insert(q.id, q).is_some() {
            return Err(EvalError::bad_input(
                "merge: a question appears in two parts",
            ));
        }
    }
    let missing: Vec<String> = plan
        .selected
        .iter()
        .filter(|i| !by_id.contains_key(i))
        .map(|i| i.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(EvalError::bad_input(format!(
            "merge: {} questions have no outcome in any part (an interrupted part: rerun it with \
             --resume): {}",
            missing.len(),
            missing
                .iter()
                .take(10)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let questions: Vec<QuestionReport> = plan
        .selected
        .iter()
        .filter_map(|i| by_id.remove(i))
        .collect();
    let mut run = first;
    run.duration_ms = runs.iter().map(|r| r.duration_ms).sum();
    run.peak_rss_bytes = runs.iter().filter_map(|r| r.peak_rss_bytes).max();
    let mut collations: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for r in &runs {
        for (engine, names) in &r.collations {
            let set = collations.entry(engine.clone()).or_default();
            set.extend(names.split(", ").map(str::to_string));
        }
    }
    run.collations = collations
        .into_iter()
        .map(|(e, names)| (e, names.into_iter().collect::<Vec<_>>().join(", ")))
        .collect();
    Ok(assemble(plan, run, questions))
}

/// The questions of the plan's partition (all without one), in order: a
/// question goes with its database ([`sqlwitness_run::in_partition`]).
fn partition_selection(plan: &EvalPlan) -> Vec<usize> {
    sqlwitness_run::in_partition(&plan.bench, &plan.selected, plan.partition)
}

/// The journal header of the run: its plan (the settings the verdicts
/// depend on, the input files), the inputs' hashes (content, not paths)
/// and the servers' versions.
fn header(plan: &EvalPlan, run: &RunInfo) -> Result<Header, EvalError> {
    let mut h = Header::new(
        sqlwitness_run::RunSpec::Eval(plan.spec.clone()),
        plan.partition,
    );
    sqlwitness_run::hash_inputs(
        &mut h,
        &plan.bench,
        &plan.selected,
        plan.migrate_options.cache_dir.as_deref(),
    )?;
    if let Some(p) = &plan.predictions {
        h.inputs.insert(
            "predictions".into(),
            sha256_hex(format!("{p:?}").as_bytes()),
        );
    }
    for (engine, (_, p)) in &plan.engine_predictions {
        h.inputs.insert(
            format!("predictions {engine}"),
            sha256_hex(format!("{p:?}").as_bytes()),
        );
    }
    if let Some(suite) = &plan.suite {
        h.inputs
            .insert("suite".into(), sqlwitness_run::dir_sha256(suite.root())?);
    }
    for e in &run.engines {
        h.servers.insert(e.kind.to_string(), e.version.clone());
    }
    h.extra = serde_json::to_value(run).expect("run information serializes");
    Ok(h)
}

/// The report's run information before the run (duration and memory are
/// filled in at the end).
fn run_info(
    plan: &EvalPlan,
    engines: Vec<sqlwitness_core::EngineInfo>,
    collations: &[BTreeSet<String>],
) -> RunInfo {
    RunInfo {
        bench: plan.bench_arg.display().to_string(),
        split: plan.bench.split.clone(),
        predictions: plan.pred_path.as_ref().map(|p| p.display().to_string()),
        golds: per_engine(plan, |k| plan.gold_sources.get(&k).cloned()),
        collations: plan
            .engines
            .iter()
            .zip(collations)
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
            CompareMode::Spider2 => "spider2",
            CompareMode::Livesqlbench => "livesqlbench",
            CompareMode::Defog => "defog",
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
        ves_runs: plan.ves_runs,
        identifiers: if plan.resolve_identifiers {
            "sqlite"
        } else {
            "verbatim"
        }
        .into(),
        engines,
        duration_ms: 0,
        peak_rss_bytes: None,
    }
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

/// Per database, its source's engine and the columns every other engine's
/// copy holds only degraded (from the source model `import` wrote beside
/// the SQLite file: the copy on the source's own engine keeps their type).
#[allow(clippy::type_complexity)]
fn degraded_columns(
    plan: &EvalPlan,
    db_ids: &[String],
) -> HashMap<String, (Option<EngineKind>, Vec<(String, String, String)>)> {
    let mut out = HashMap::new();
    for id in db_ids {
        let Ok(Some(model)) = sqlwitness_bench::read_model(&plan.bench.sqlite_path(id)) else {
            continue;
        };
        let cols: Vec<(String, String, String)> = model
            .tables
            .iter()
            .flat_map(|t| {
                t.columns.iter().filter_map(|c| {
                    c.degraded
                        .clone()
                        .map(|how| (t.name.clone(), c.name.clone(), how))
                })
            })
            .collect();
        if !cols.is_empty() {
            out.insert(id.clone(), (model.engine(), cols));
        }
    }
    out
}
