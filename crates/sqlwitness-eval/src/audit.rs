//! `audit` as a stage of the library: for every gold query — is its
//! answer well defined, does it run on every engine, does it answer the
//! same everywhere — with the rows that show it (`sqlwitness-audit` holds
//! the rules; this runs them over a benchmark on the connected engines).

use rayon::prelude::*;
use sqlwitness_dialect::EngineFacts;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use sqlwitness_audit::{
    audit_question_on, summarize, AuditOptions, AuditQuestion, AuditReport, AuditRun, DbAudit,
    Finding, Target, AUDIT_FORMAT_VERSION,
};
use sqlwitness_bench::Benchmark;
use sqlwitness_core::{EngineKind, QueryLimits};
use sqlwitness_sql::NameSet;

use crate::{is_good, AuditSpec, EvalError, Progress, Servers};

/// Turns a gold's text into what one server engine is sent.
type Prepare<'a> = Box<dyn Fn(&str) -> String + Sync + 'a>;

/// The validated plan of an audit.
pub struct AuditPlan {
    /// The benchmark folder as given (for the report and the rerun line).
    pub bench_arg: PathBuf,
    pub bench: Benchmark,
    /// The question indices to audit, in order.
    pub selected: Vec<usize>,
    /// Every engine of the audit, the reference among them.
    pub engines: Vec<EngineKind>,
    /// The engine that judges (`--reference`): its gold, run on its own
    /// copy, is what the findings prove, and every other engine's gold is
    /// compared with its answer. SQLite by default.
    pub reference: EngineKind,
    /// `--gold ENGINE=FILE` as given (for the rerun line).
    pub gold_specs: Vec<String>,
    pub servers: Servers,
    /// Reshuffled copies of each database (the first reverses the rows).
    pub shuffles: u64,
    pub timeout: Duration,
    /// Try tie-inclusive rewrites.
    pub rewrites: bool,
    /// Rerun on PostgreSQL under other plans.
    pub plan_variants: bool,
    /// Migrate missing databases to the servers first.
    pub migrate: bool,
    /// How migrations check and cache their copies.
    pub migrate_options: sqlwitness_bench::MigrateOptions,
    pub jobs: usize,
    /// The output folder (the journal's).
    pub out: PathBuf,
    /// Keep a journal; continue one (`--resume`).
    pub journal: crate::JournalMode,
    /// `--partition K/N`: only the questions of this part's databases.
    pub partition: Option<crate::Partition>,
    /// What the audit computes, as the journal keeps it: the plan was
    /// built from it ([`AuditPlan::from_spec`]).
    pub spec: AuditSpec,
}

impl AuditPlan {
    /// The plan of `spec` on `bench` (loaded from `spec.files.benchmark`
    /// and `spec.split`, its namespace prefix set), each engine's own gold
    /// file read.
    pub fn from_spec(
        spec: AuditSpec,
        mut bench: Benchmark,
        ctx: crate::RunContext,
    ) -> Result<AuditPlan, EvalError> {
        let timeout = crate::spec::positive_seconds("timeout_seconds", spec.timeout_seconds)?;
        if !spec.engines.contains(&spec.reference) {
            return Err(EvalError::BadInput(format!(
                "reference {}: not one of the engines",
                spec.reference
            )));
        }
        let questions = bench.questions.len();
        if let Some(id) = spec.questions.iter().find(|&&id| id >= questions) {
            return Err(EvalError::BadInput(format!(
                "question {id}: the split has {questions} questions"
            )));
        }
        bench.allow_outside_links = spec.allow_outside_links;
        crate::dialect_inputs(&mut bench, &spec.files, &spec.engines)?;
        Ok(AuditPlan {
            bench_arg: spec.files.benchmark.clone(),
            bench,
            selected: spec.questions.clone(),
            engines: spec.engines.clone(),
            reference: spec.reference,
            gold_specs: spec
                .files
                .golds
                .iter()
                .map(|(k, p)| format!("{k}={}", p.display()))
                .collect(),
            servers: ctx.servers,
            shuffles: spec.shuffles,
            timeout,
            rewrites: spec.rewrites,
            plan_variants: spec.plan_variants,
            migrate: ctx.migrate,
            migrate_options: ctx.migrate_options,
            jobs: ctx.jobs.max(1),
            out: ctx.out,
            journal: ctx.journal,
            partition: ctx.partition,
            spec,
        })
    }
}

/// One audited question in the journal.
#[derive(serde::Serialize, serde::Deserialize)]
struct AuditRecord {
    id: usize,
    findings: Vec<Finding>,
}

/// The questions of the plan's partition (all without one), in order.
fn audit_selection(plan: &AuditPlan) -> Vec<usize> {
    crate::run::in_partition(&plan.bench, &plan.selected, plan.partition)
}

/// The journal header of an audit: its plan, inputs by content, servers.
fn audit_header(plan: &AuditPlan, run: &AuditRun) -> Result<crate::Header, EvalError> {
    let mut h = crate::Header::new(crate::RunSpec::Audit(plan.spec.clone()), plan.partition);
    crate::run::hash_inputs(
        &mut h,
        &plan.bench,
        &plan.selected,
        plan.migrate_options.cache_dir.as_deref(),
    )?;
    h.servers = run.engine_versions.clone().into_iter().collect();
    h.extra = serde_json::to_value(run).expect("run information serializes");
    Ok(h)
}

/// Combines the journals of a partitioned audit (`audit --partition K/N`)
/// into the report of the unpartitioned run; refused when a part is of
/// another plan, other inputs or other servers, or a question is missing.
pub fn merge_audit(plan: &AuditPlan, parts: &[PathBuf]) -> Result<AuditReport, EvalError> {
    let (records, runs): (Vec<AuditRecord>, Vec<AuditRun>) =
        crate::journal::merge_parts(parts, |first| audit_header(plan, first))?;
    let first = runs[0].clone();
    let with_db = with_database(plan, &plan.selected);
    let have: std::collections::HashSet<usize> = records.iter().map(|r| r.id).collect();
    let missing = with_db.iter().filter(|i| !have.contains(i)).count();
    if missing > 0 || have.len() != records.len() {
        return Err(EvalError::BadInput(format!(
            "merge: {missing} questions have no audit in any part, or one is in two parts \
             (an interrupted part: rerun it with --resume)"
        )));
    }
    let mut findings: Vec<Finding> = records.into_iter().flat_map(|r| r.findings).collect();
    findings.sort_by(|x, y| (x.id, &x.rule).cmp(&(y.id, &y.rule)));
    let mut run = first;
    run.duration_ms = runs.iter().map(|r| r.duration_ms).sum();
    Ok(AuditReport {
        format_version: AUDIT_FORMAT_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        summary: summarize(&findings, plan.selected.len(), with_db.len()),
        run,
        findings,
    })
}

/// The questions of `selected` whose database exists and can be used (see
/// [`crate::unusable`]; each database checked once).
fn with_database(plan: &AuditPlan, selected: &[usize]) -> Vec<usize> {
    let mut usable: HashMap<&str, bool> = HashMap::new();
    selected
        .iter()
        .copied()
        .filter(|&i| {
            let id = plan.bench.questions[i].db_id.as_str();
            *usable.entry(id).or_insert_with(|| {
                plan.bench.db_exists(id) && crate::unusable(&plan.bench, id).is_none()
            })
        })
        .collect()
}

/// Runs the audit; the report (writing it is the caller's).
pub fn audit(plan: &AuditPlan, progress: &dyn Progress) -> Result<AuditReport, EvalError> {
    let started = Instant::now();
    let (bench, engines, servers, jobs) = (&plan.bench, &plan.engines, &plan.servers, plan.jobs);
    let mine = audit_selection(plan);
    for (id, why) in unusable_databases(bench, &mine) {
        progress.note(&format!(
            "{id}: database unusable, its questions are not audited: {why}"
        ));
    }
    let with_db = with_database(plan, &mine);
    let unavailable = migrate_for_audit(plan, &with_db);
    let namespaces: std::collections::BTreeSet<String> = with_db
        .iter()
        .map(|&i| bench.database(&bench.questions[i].db_id).namespace)
        .collect();
    let namespaces: Vec<String> = namespaces.into_iter().collect();
    let connected =
        crate::connect::connect_reading(engines, servers, jobs as u32 + 1, &namespaces)?;
    let reference = plan.reference;
    if !connected.iter().any(|c| c.kind == reference) {
        return Err(EvalError::BadInput(format!(
            "reference {reference}: not one of the engines"
        )));
    }
    // Reshuffled copies are SQLite files: none when an engine holding
    // copies of its own judges.
    let seeds: Vec<u64> = if reference.holds_copies() {
        Vec::new()
    } else {
        (0..plan.shuffles).collect()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| EvalError::Internal(format!("starting worker threads: {e}")))?;
    let opts = audit_options(plan);
    let translations: HashMap<EngineKind, sqlwitness_dialect::Translations> = engines
        .iter()
        .map(|k| (*k, sqlwitness_dialect::builtin(*k).translations))
        .collect();
    let mut run = AuditRun {
        bench: plan.bench_arg.display().to_string(),
        split: bench.split.clone(),
        engines: engines.iter().map(|k| k.as_str().to_string()).collect(),
        reference: reference.as_str().to_string(),
        engine_versions: connected
            .iter()
            .map(|c| (c.kind.as_str().to_string(), c.engine.info().version.clone()))
            .collect(),
        shuffle_seeds: seeds.clone(),
        duration_ms: 0,
    };
    let header = audit_header(plan, &run)?;
    let (journal, done) = crate::Journal::open::<AuditRecord>(&plan.out, &header, plan.journal)?;
    let journal = std::sync::Arc::new(journal);
    let _hooks = crate::interrupt::run_hooks(&journal, connected.iter().map(|c| c.engine.clone()));
    let done_ids: std::collections::HashSet<usize> = done.iter().map(|r| r.id).collect();
    let todo: Vec<usize> = with_db
        .iter()
        .copied()
        .filter(|i| !done_ids.contains(i))
        .collect();
    if !done.is_empty() {
        progress.note(&format!(
            "resume: {} questions from the journal, {} to audit",
            done.len(),
            todo.len()
        ));
    }
    let tmp =
        tempfile::tempdir().map_err(|e| EvalError::io("creating a temporary directory", e))?;
    let dbs = prepare_databases(plan, &pool, &todo, &seeds, tmp.path(), progress)?;

    let pb = progress.bar(todo.len() as u64, "audit");
    let fresh: Vec<Vec<Finding>> = pool.install(|| {
        todo.par_iter()
            .map(|&i| {
                let q = &bench.questions[i];
                let (ctx, names) = &dbs[&q.db_id];
                let prepare = |sql: &str, kind: EngineKind| {
                    if kind.is_server() {
                        sqlwitness_sql::resolve_identifiers(sql, names, kind)
                    } else {
                        sql.to_string()
                    }
                };
                let preps: Vec<Prepare> = connected
                    .iter()
                    .map(|c| {
                        let kind = c.kind;
                        Box::new(move |sql: &str| prepare(sql, kind)) as Prepare
                    })
                    .collect();
                let all: Vec<Target> = connected
                    .iter()
                    .zip(&preps)
                    .filter(|(c, _)| {
                        c.kind == reference || !unavailable.contains_key(&(c.kind, q.db_id.clone()))
                    })
                    .map(|(c, p)| Target {
                        kind: c.kind,
                        engine: c.engine.as_ref(),
                        db: bench.database(&q.db_id),
                        prepare: p.as_ref(),
                        translations: &translations[&c.kind],
                        gold: q.gold_for(c.kind),
                    })
                    .collect();
                let (mut judged, targets): (Vec<Target>, Vec<Target>) =
                    all.into_iter().partition(|t| t.kind == reference);
                let judged = judged.pop().expect("the reference is connected");
                let out = audit_question_on(
                    &AuditQuestion {
                        id: q.id,
                        db_id: &q.db_id,
                        gold: q.gold_for(reference),
                    },
                    ctx,
                    &judged,
                    &targets,
                    &opts,
                );
                let record = AuditRecord {
                    id: i,
                    findings: out,
                };
                journal.record(&record)?;
                pb.inc(1);
                Ok(record.findings)
            })
            .collect::<Result<_, EvalError>>()
    })?;
    pb.finish();
    if crate::interrupted() {
        return Err(EvalError::Interrupted);
    }
    journal.stop();
    let findings = all_findings(done, fresh, &with_db);
    let summary = summarize(&findings, mine.len(), with_db.len());
    run.duration_ms = started.elapsed().as_millis() as u64;
    Ok(AuditReport {
        format_version: AUDIT_FORMAT_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        run,
        summary,
        findings,
    })
}

/// The databases of the `selected` questions that exist and cannot be
/// used, each with why.
fn unusable_databases(bench: &Benchmark, selected: &[usize]) -> Vec<(String, String)> {
    selected
        .iter()
        .map(|&i| bench.questions[i].db_id.clone())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter(|id| bench.db_exists(id))
        .filter_map(|id| crate::unusable(bench, &id).map(|why| (id, why)))
        .collect()
}

/// Migrates the databases of `questions` to the plan's servers (when it
/// migrates), over the administrative URLs: that also grants the reader
/// login the queries then run as. Returns the copies that cannot be used,
/// with why.
fn migrate_for_audit(
    plan: &AuditPlan,
    questions: &[usize],
) -> HashMap<(EngineKind, String), String> {
    let mut unavailable = HashMap::new();
    if !plan.migrate {
        return unavailable;
    }
    let mut db_ids: Vec<String> = questions
        .iter()
        .map(|&i| plan.bench.questions[i].db_id.clone())
        .collect();
    db_ids.sort();
    db_ids.dedup();
    let migrated = crate::migrate_many(
        &plan.bench,
        &db_ids,
        &plan.engines,
        &plan.servers,
        &plan.migrate_options,
        plan.jobs,
        &|_| {},
    );
    for (id, kind, r) in migrated {
        if let Some(r) = r.filter(|r| !is_good(r)) {
            unavailable.insert((kind, id), format!("{:?}", r.status));
        }
    }
    unavailable
}

/// The options of every question's audit: its limits, the command line
/// that reruns one question's audit, the mysql client's options per
/// MySQL-family server.
fn audit_options(plan: &AuditPlan) -> AuditOptions {
    let (engines, reference) = (&plan.engines, plan.reference);
    let mut rerun = format!(
        "sqlwitness audit --bench {} --split {}",
        plan.bench_arg.display(),
        plan.bench.split
    );
    if engines.len() > 1 {
        let names: Vec<&str> = engines.iter().map(|k| k.as_str()).collect();
        rerun.push_str(&format!(" --engines {}", names.join(",")));
    }
    if reference.holds_copies() {
        rerun.push_str(&format!(" --reference {reference}"));
    }
    for g in &plan.gold_specs {
        rerun.push_str(&format!(" --gold {g}"));
    }
    AuditOptions {
        limits: QueryLimits {
            timeout: plan.timeout,
            max_rows: 200_000,
            ..QueryLimits::default()
        },
        rerun,
        rewrites: plan.rewrites,
        plan_variants: plan.plan_variants,
        client_options: engines
            .iter()
            .filter_map(|k| {
                let url = plan.servers.url(*k)?;
                Some((*k, sqlwitness_engines::client_options(*k, url)))
            })
            .filter(|(_, options)| !options.is_empty())
            .collect(),
    }
}

/// Schema facts, names and reshuffled copies (under `tmp`), per database
/// of the questions `todo`: only the tables their golds read, and only
/// where a reshuffle can reorder them. A server that judges proves with
/// its probes and other plans, so its databases get no copies.
fn prepare_databases(
    plan: &AuditPlan,
    pool: &rayon::ThreadPool,
    todo: &[usize],
    seeds: &[u64],
    tmp: &std::path::Path,
    progress: &dyn Progress,
) -> Result<HashMap<String, (DbAudit, NameSet)>, EvalError> {
    let bench = &plan.bench;
    let mut golds: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for &i in todo {
        let q = &bench.questions[i];
        golds
            .entry(q.db_id.as_str())
            .or_default()
            .push(q.gold_for(plan.reference));
    }
    let on_sqlite = !plan.reference.holds_copies();
    let pb = progress.bar(golds.len() as u64, "prepare");
    let dbs = pool.install(|| {
        golds
            .par_iter()
            .map(
                |(id, golds)| -> Result<(String, (DbAudit, NameSet)), EvalError> {
                    let failed =
                        |e: sqlwitness_audit::AuditError| EvalError::Internal(format!("{id}: {e}"));
                    let dir = tmp.join(id);
                    std::fs::create_dir_all(&dir)
                        .map_err(|e| EvalError::io(format!("creating {}", dir.display()), e))?;
                    let ctx = if on_sqlite {
                        DbAudit::prepare(bench.database(id), &dir, seeds, golds, plan.rewrites)
                    } else {
                        DbAudit::schema_only(bench.database(id))
                    }
                    .map_err(failed)?;
                    let names = NameSet::new(
                        &ctx.schema
                            .tables
                            .iter()
                            .map(|t| (t.name.clone(), t.columns.clone()))
                            .collect::<Vec<_>>(),
                    );
                    pb.inc(1);
                    Ok((id.to_string(), (ctx, names)))
                },
            )
            .collect::<Result<_, EvalError>>()
    })?;
    pb.finish();
    Ok(dbs)
}

/// The findings of the questions `wanted`: the journal's (`done`) and the
/// ones audited now, by question and rule.
fn all_findings(
    done: Vec<AuditRecord>,
    fresh: Vec<Vec<Finding>>,
    wanted: &[usize],
) -> Vec<Finding> {
    let wanted: std::collections::HashSet<usize> = wanted.iter().copied().collect();
    let mut findings: Vec<Finding> = done
        .into_iter()
        .filter(|r| wanted.contains(&r.id))
        .flat_map(|r| r.findings)
        .chain(fresh.into_iter().flatten())
        .collect();
    findings.sort_by(|x, y| (x.id, &x.rule).cmp(&(y.id, &y.rule)));
    findings
}

/// The dialect golds an audit proves, per engine of the audit but the
/// reference, one entry per question of the split (in order): the engine's
/// gold as written where it runs there and answers as the reference's, its
/// verified translation where the gold fails or answers otherwise and a
/// translation answers as on SQLite (`portable_after_translation`, SQLite
/// the reference), and `None` where neither holds or the question was not
/// audited there. `eval --gold ENGINE=FILE` reads them
/// ([`gold_file_text`]).
pub fn dialect_golds(
    plan: &AuditPlan,
    report: &AuditReport,
) -> std::collections::BTreeMap<EngineKind, Vec<Option<String>>> {
    let audited: std::collections::BTreeSet<usize> =
        with_database(plan, &plan.selected).into_iter().collect();
    // The findings that say an engine fails or answers otherwise, by
    // question.
    let mut differs_by_id: std::collections::BTreeMap<usize, Vec<&Finding>> = Default::default();
    for f in &report.findings {
        if f.rule.starts_with("dialect_") || f.rule.starts_with("cross_engine") {
            differs_by_id.entry(f.id).or_default().push(f);
        }
    }
    let mut out = std::collections::BTreeMap::new();
    for &kind in plan.engines.iter().filter(|k| **k != plan.reference) {
        let name = kind.as_str();
        let golds = plan
            .bench
            .questions
            .iter()
            .map(|q| {
                if !audited.contains(&q.id) {
                    return None;
                }
                let differs: Vec<&&Finding> = differs_by_id
                    .get(&q.id)
                    .into_iter()
                    .flatten()
                    .filter(|f| f.engines.iter().any(|e| e == name))
                    .collect();
                if differs.is_empty() {
                    return Some(q.gold_for(kind).to_string());
                }
                differs.iter().find_map(|f| {
                    let t = f.translation.as_ref()?;
                    (t.outcome == "portable_after_translation")
                        .then(|| t.sql.clone())
                        .flatten()
                })
            })
            .collect();
        out.insert(kind, golds);
    }
    out
}

/// A gold file `eval --gold ENGINE=FILE` reads: `SQL<TAB>db_id` a line in
/// question order (line breaks inside a query become spaces), an empty
/// line where the engine has no gold of its own.
pub fn gold_file_text(bench: &Benchmark, golds: &[Option<String>]) -> String {
    let mut text = String::new();
    for (q, g) in bench.questions.iter().zip(golds) {
        if let Some(sql) = g {
            let one_line = sql.replace(['\r', '\n'], " ");
            text.push_str(&format!("{}\t{}", one_line.trim(), q.db_id));
        }
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlwitness_audit::Status;

    fn finding(id: usize, rule: &str) -> Finding {
        Finding {
            id,
            db_id: "d".into(),
            rule: rule.into(),
            status: Status::Latent,
            engines: vec!["sqlite".into()],
            gold_sql: String::new(),
            block: None,
            detail: String::new(),
            mechanism: None,
            evidence: Vec::new(),
            rerun: Vec::new(),
            rewrite: None,
            translation: None,
        }
    }

    #[test]
    fn findings_join_the_journal_s_and_keep_only_the_wanted_questions() {
        let done = vec![
            AuditRecord {
                id: 4,
                findings: vec![finding(4, "limit_tie_1")],
            },
            // A question of the journal this run no longer audits.
            AuditRecord {
                id: 9,
                findings: vec![finding(9, "limit_tie_1")],
            },
        ];
        let fresh = vec![
            vec![finding(2, "order_by_partial"), finding(2, "limit_tie_1")],
            vec![],
        ];
        let got: Vec<(usize, String)> = all_findings(done, fresh, &[2, 3, 4])
            .into_iter()
            .map(|f| (f.id, f.rule))
            .collect();
        assert_eq!(
            got,
            [
                (2, "limit_tie_1".to_string()),
                (2, "order_by_partial".to_string()),
                (4, "limit_tie_1".to_string()),
            ]
        );
    }
}
