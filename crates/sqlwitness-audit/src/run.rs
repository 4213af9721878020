//! The audit run: for every gold query of a benchmark — is its answer
//! well defined, does it run on every engine, does it answer the same
//! everywhere — with the rows that show it (the rules are the crate's;
//! this runs them over a benchmark on the connected engines, with a
//! journal, partitions and resume).

use rayon::prelude::*;
use sqlwitness_dialect::EngineFacts;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use sqlwitness_bench::Benchmark;
use sqlwitness_core::{EngineKind, QueryLimits};
use sqlwitness_run::{
    is_good, AuditSpec, Cancel, Connected, Header, Journal, JournalMode, Partition, Progress,
    RunContext, RunError, RunSpec, Servers,
};
use sqlwitness_sql::NameSet;

use crate::{
    audit_question_on, summarize, AuditOptions, AuditQuestion, AuditReport, AuditRun, DbAudit,
    Finding, Target, AUDIT_FORMAT_VERSION,
};

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
    pub migrate_options: sqlwitness_migrate::MigrateOptions,
    pub jobs: usize,
    /// The output folder (the journal's).
    pub out: PathBuf,
    /// Keep a journal; continue one (`--resume`).
    pub journal: JournalMode,
    /// `--partition K/N`: only the questions of this part's databases.
    pub partition: Option<Partition>,
    /// What the audit computes, as the journal keeps it: the plan was
    /// built from it ([`AuditPlan::from_spec`]).
    pub spec: AuditSpec,
    /// The run's cancellation token: the audit stops when it is cancelled.
    pub cancel: Cancel,
}

impl AuditPlan {
    /// The plan of `spec` on `bench` (loaded from `spec.files.benchmark`
    /// and `spec.split`, its namespace prefix set), each engine's own gold
    /// file read.
    pub fn from_spec(
        spec: AuditSpec,
        mut bench: Benchmark,
        ctx: RunContext,
    ) -> Result<AuditPlan, RunError> {
        let timeout = sqlwitness_run::positive_seconds("timeout_seconds", spec.timeout_seconds)?;
        if !spec.engines.contains(&spec.reference) {
            return Err(RunError::BadInput(format!(
                "reference {}: not one of the engines",
                spec.reference
            )));
        }
        let questions = bench.questions.len();
        if let Some(id) = spec.questions.iter().find(|&&id| id >= questions) {
            return Err(RunError::BadInput(format!(
                "question {id}: the split has {questions} questions"
            )));
        }
        bench.allow_outside_links = spec.allow_outside_links;
        sqlwitness_run::dialect_inputs(&mut bench, &spec.files, &spec.engines)?;
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
            cancel: ctx.cancel,
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
    sqlwitness_run::in_partition(&plan.bench, &plan.selected, plan.partition)
}

/// The journal header of an audit: its plan, inputs by content, servers.
fn audit_header(plan: &AuditPlan, run: &AuditRun) -> Result<Header, RunError> {
    let mut h = Header::new(RunSpec::Audit(plan.spec.clone()), plan.partition);
    sqlwitness_run::hash_inputs(
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
pub fn merge_audit(plan: &AuditPlan, parts: &[PathBuf]) -> Result<AuditReport, RunError> {
    let (records, runs): (Vec<AuditRecord>, Vec<AuditRun>) =
        sqlwitness_run::merge_parts(parts, |first| audit_header(plan, first))?;
    let first = runs[0].clone();
    let with_db = with_database(plan, &plan.selected);
    let have: std::collections::HashSet<usize> = records.iter().map(|r| r.id).collect();
    let missing = with_db.iter().filter(|i| !have.contains(i)).count();
    if missing > 0 || have.len() != records.len() {
        return Err(RunError::BadInput(format!(
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
/// [`sqlwitness_run::unusable`]; each database checked once).
pub(crate) fn with_database(plan: &AuditPlan, selected: &[usize]) -> Vec<usize> {
    let mut usable: HashMap<&str, bool> = HashMap::new();
    selected
        .iter()
        .copied()
        .filter(|&i| {
            let id = plan.bench.questions[i].db_id.as_str();
            *usable.entry(id).or_insert_with(|| {
                plan.bench.db_exists(id) && sqlwitness_run::unusable(&plan.bench, id).is_none()
            })
        })
        .collect()
}

/// Runs the audit; the report (writing it is the caller's).
pub fn audit(plan: &AuditPlan, progress: &dyn Progress) -> Result<AuditReport, RunError> {
    let started = Instant::now();
    let (bench, engines, jobs) = (&plan.bench, &plan.engines, plan.jobs);
    let mine = audit_selection(plan);
    for (id, why) in unusable_databases(bench, &mine) {
        progress.note(&format!(
            "{id}: database unusable, its questions are not audited: {why}"
        ));
    }
    let with_db = with_database(plan, &mine);
    let unavailable = migrate_for_audit(plan, &with_db);
    let connected = connect_engines(plan, &with_db)?;
    let reference = plan.reference;
    let seeds = shuffle_seeds(reference, plan.shuffles);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| RunError::Internal(format!("starting worker threads: {e}")))?;
    let opts = audit_options(plan);
    let translations: HashMap<EngineKind, sqlwitness_dialect::Translations> = engines
        .iter()
        .map(|k| (*k, sqlwitness_dialect::builtin(*k).translations))
        .collect();
    let mut run = audit_run(plan, &connected, &seeds);
    let header = audit_header(plan, &run)?;
    let (journal, done) =
        Journal::open::<AuditRecord>(&plan.out, &header, plan.journal, &plan.cancel)?;
    let journal = std::sync::Arc::new(journal);
    let _hooks = plan
        .cancel
        .run_hooks(&journal, connected.iter().map(|c| c.engine.clone()));
    let todo = not_done(&with_db, &done);
    if !done.is_empty() {
        progress.note(&format!(
            "resume: {} questions from the journal, {} to audit",
            done.len(),
            todo.len()
        ));
    }
    let tmp = tempfile::tempdir().map_err(|e| RunError::io("creating a temporary directory", e))?;
    let dbs = prepare_databases(plan, &pool, &todo, &seeds, tmp.path(), progress)?;
    let auditor = QuestionAuditor {
        bench,
        connected: &connected,
        dbs: &dbs,
        unavailable: &unavailable,
        translations: &translations,
        reference,
        opts: &opts,
    };

    let pb = progress.bar(todo.len() as u64, "audit");
    let fresh: Vec<Vec<Finding>> = pool.install(|| {
        todo.par_iter()
            .map(|&i| {
                let record = AuditRecord {
                    id: i,
                    findings: auditor.findings(i),
                };
                journal.record(&record)?;
                pb.inc(1);
                Ok(record.findings)
            })
            .collect::<Result<_, RunError>>()
    })?;
    pb.finish();
    if plan.cancel.is_cancelled() {
        return Err(RunError::Interrupted);
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

/// The plan's engines, connected over pools for its jobs to read the
/// databases of `questions`; an error when the reference is not among
/// them.
fn connect_engines(plan: &AuditPlan, questions: &[usize]) -> Result<Vec<Connected>, RunError> {
    let namespaces = database_namespaces(&plan.bench, questions);
    let connected = sqlwitness_run::connect_reading(
        &plan.engines,
        &plan.servers,
        plan.jobs as u32 + 1,
        &namespaces,
        &plan.cancel,
    )?;
    let reference = plan.reference;
    if !connected.iter().any(|c| c.kind == reference) {
        return Err(RunError::BadInput(format!(
            "reference {reference}: not one of the engines"
        )));
    }
    Ok(connected)
}

/// The namespaces of the databases of `questions`, each once, in order.
fn database_namespaces(bench: &Benchmark, questions: &[usize]) -> Vec<String> {
    let namespaces: std::collections::BTreeSet<String> = questions
        .iter()
        .map(|&i| bench.database(&bench.questions[i].db_id).namespace)
        .collect();
    namespaces.into_iter().collect()
}

/// The seeds of the reshuffled copies of each database: `shuffles` of
/// them, or none when the reference holds copies of its own (reshuffled
/// copies are SQLite files).
fn shuffle_seeds(reference: EngineKind, shuffles: u64) -> Vec<u64> {
    if reference.holds_copies() {
        Vec::new()
    } else {
        (0..shuffles).collect()
    }
}

/// How the audit runs, for its report and journal: the benchmark, the
/// engines (with the versions `connected` report) and the reshuffle
/// `seeds`; its duration is set at the end.
fn audit_run(plan: &AuditPlan, connected: &[Connected], seeds: &[u64]) -> AuditRun {
    AuditRun {
        bench: plan.bench_arg.display().to_string(),
        split: plan.bench.split.clone(),
        engines: plan
            .engines
            .iter()
            .map(|k| k.as_str().to_string())
            .collect(),
        reference: plan.reference.as_str().to_string(),
        engine_versions: connected
            .iter()
            .map(|c| (c.kind.as_str().to_string(), c.engine.info().version.clone()))
            .collect(),
        shuffle_seeds: seeds.to_vec(),
        duration_ms: 0,
    }
}

/// The questions of `wanted` that the journal's records `done` do not
/// hold, in order.
fn not_done(wanted: &[usize], done: &[AuditRecord]) -> Vec<usize> {
    let done_ids: std::collections::HashSet<usize> = done.iter().map(|r| r.id).collect();
    wanted
        .iter()
        .copied()
        .filter(|i| !done_ids.contains(i))
        .collect()
}

/// What every question's audit reads: the benchmark, the connected
/// engines, the prepared databases, the copies that cannot be used, each
/// engine's translation rules, the reference and the audit's options.
struct QuestionAuditor<'a> {
    bench: &'a Benchmark,
    connected: &'a [Connected],
    dbs: &'a HashMap<String, (DbAudit, NameSet)>,
    unavailable: &'a HashMap<(EngineKind, String), String>,
    translations: &'a HashMap<EngineKind, sqlwitness_dialect::Translations>,
    reference: EngineKind,
    opts: &'a AuditOptions,
}

impl QuestionAuditor<'_> {
    /// The findings of question `i`: its gold judged on the reference, and
    /// compared on every other engine whose copy of its database can be
    /// used.
    fn findings(&self, i: usize) -> Vec<Finding> {
        let (bench, reference) = (self.bench, self.reference);
        let q = &bench.questions[i];
        let (ctx, names) = &self.dbs[&q.db_id];
        let prepare = |sql: &str, kind: EngineKind| {
            if kind.is_server() {
                sqlwitness_sql::resolve_identifiers(sql, names, kind)
            } else {
                sql.to_string()
            }
        };
        let preps: Vec<Prepare> = self
            .connected
            .iter()
            .map(|c| {
                let kind = c.kind;
                Box::new(move |sql: &str| prepare(sql, kind)) as Prepare
            })
            .collect();
        let all: Vec<Target> = self
            .connected
            .iter()
            .zip(&preps)
            .filter(|(c, _)| {
                c.kind == reference || !self.unavailable.contains_key(&(c.kind, q.db_id.clone()))
            })
            .map(|(c, p)| Target {
                kind: c.kind,
                engine: c.engine.as_ref(),
                db: bench.database(&q.db_id),
                prepare: p.as_ref(),
                translations: &self.translations[&c.kind],
                gold: q.gold_for(c.kind),
            })
            .collect();
        let (mut judged, targets): (Vec<Target>, Vec<Target>) =
            all.into_iter().partition(|t| t.kind == reference);
        let judged = judged.pop().expect("the reference is connected");
        audit_question_on(
            &AuditQuestion {
                id: q.id,
                db_id: &q.db_id,
                gold: q.gold_for(reference),
            },
            ctx,
            &judged,
            &targets,
            self.opts,
        )
    }
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
        .filter_map(|id| sqlwitness_run::unusable(bench, &id).map(|why| (id, why)))
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
    let migrated = sqlwitness_run::migrate_many(
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
) -> Result<HashMap<String, (DbAudit, NameSet)>, RunError> {
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
                |(id, golds)| -> Result<(String, (DbAudit, NameSet)), RunError> {
                    let failed = |e: crate::AuditError| RunError::Internal(format!("{id}: {e}"));
                    let dir = tmp.join(id);
                    std::fs::create_dir_all(&dir)
                        .map_err(|e| RunError::io(format!("creating {}", dir.display()), e))?;
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
            .collect::<Result<_, RunError>>()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Status;

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
    fn questions_in_the_journal_are_not_audited_again() {
        let done = vec![
            AuditRecord {
                id: 4,
                findings: Vec::new(),
            },
            AuditRecord {
                id: 9,
                findings: Vec::new(),
            },
        ];
        assert_eq!(not_done(&[2, 4, 7], &done), [2, 7]);
        assert_eq!(not_done(&[2, 4, 7], &[]), [2, 4, 7]);
    }

    #[test]
    fn reshuffled_copies_only_when_sqlite_judges() {
        assert_eq!(shuffle_seeds(EngineKind::Sqlite, 3), [0, 1, 2]);
        assert!(shuffle_seeds(EngineKind::Postgres, 3).is_empty());
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
