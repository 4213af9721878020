//! `sqlwitness audit`: for every gold query — is its answer well defined,
//! does it run on every engine, does it answer the same everywhere — with
//! the rows that show it (see `sqlwitness-audit`).

use anyhow::{bail, Context, Result};
use clap::Args;
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use sqlwitness_audit::{
    audit_question, exceeded, read_schema, shuffled_copies, summarize, write_audit, AuditOptions,
    AuditQuestion, AuditReport, AuditRun, DbAudit, Finding, Target, AUDIT_FORMAT_VERSION,
};
use sqlwitness_bench::load_benchmark;
use sqlwitness_core::{Database, EngineKind, QueryLimits};
use sqlwitness_sql::NameSet;

use crate::args::{BenchArgs, ServerArgs};
use crate::exit::{self, BadInput};
use crate::migrate::{is_good, migrate_one};
use crate::plan::Servers;
use crate::progress;

/// Turns a gold's text into what one server engine is sent.
type Prepare<'a> = Box<dyn Fn(&str) -> String + Sync + 'a>;

#[derive(Debug, Args)]
pub struct AuditArgs {
    #[command(flatten)]
    pub bench: BenchArgs,
    /// Engines: sqlite always runs (it is the reference); add postgres,mysql
    /// for dialect failures and cross-engine differences.
    #[arg(long, value_delimiter = ',', default_value = "sqlite")]
    pub engines: Vec<String>,
    /// Output folder for audit.json and audit.md.
    #[arg(long, default_value = "out/audit")]
    pub out: PathBuf,
    /// Number of reshuffled copies of each database (seed 0 reverses the rows).
    #[arg(long, default_value_t = 3)]
    pub shuffles: u64,
    /// Only these question ids (0-based, comma separated).
    #[arg(long = "id", value_delimiter = ',')]
    pub ids: Vec<usize>,
    /// Only questions on these databases.
    #[arg(long = "db", value_delimiter = ',')]
    pub dbs: Vec<String>,
    /// Only the first N questions (after filtering).
    #[arg(long)]
    pub limit: Option<usize>,
    /// Per-query time limit in seconds.
    #[arg(long, default_value_t = 30.0)]
    pub timeout: f64,
    /// Do not try tie-inclusive rewrites.
    #[arg(long)]
    pub no_rewrites: bool,
    /// Do not rerun on PostgreSQL under other plans (enable_hashagg=off …).
    #[arg(long)]
    pub no_plan_variants: bool,
    /// Do not migrate missing databases to the servers first.
    #[arg(long)]
    pub no_migrate: bool,
    /// Fail (exit 5) when a rule's findings exceed N: `rule=N`, `rule:proven=N`,
    /// `dialect_*=N`, `any=N`; comma separated.
    #[arg(long, value_delimiter = ',')]
    pub fail_on: Vec<String>,
    /// An earlier audit.json: exit 4 when this audit has new findings
    /// (question, rule, engines) beyond `--tolerance`; writes
    /// baseline-diff.md beside audit.json.
    #[arg(long)]
    pub baseline: Option<PathBuf>,
    /// With --baseline: new findings allowed, as a fraction of the
    /// questions with a database (0 allows none).
    #[arg(long, default_value_t = 0.0)]
    pub tolerance: f64,
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub servers: ServerArgs,
}

fn parse_fail_on(specs: &[String]) -> Result<Vec<(String, bool, usize)>> {
    specs
        .iter()
        .map(|s| {
            let (lhs, n) = s
                .split_once('=')
                .ok_or_else(|| BadInput(format!("--fail-on: `{s}` is not rule=N")))?;
            let n: usize = n
                .trim()
                .parse()
                .map_err(|_| BadInput(format!("--fail-on: `{s}`: `{n}` is not a count")))?;
            let (rule, proven) = match lhs.trim().strip_suffix(":proven") {
                Some(r) => (r.to_string(), true),
                None => (lhs.trim().to_string(), false),
            };
            Ok((rule, proven, n))
        })
        .collect()
}

pub fn run(a: AuditArgs) -> Result<i32> {
    let started = Instant::now();
    let mut engines = vec![EngineKind::REFERENCE];
    for n in &a.engines {
        let k = EngineKind::parse(n)
            .ok_or_else(|| BadInput(format!("--engines: unknown engine `{n}`")))?;
        if !engines.contains(&k) {
            engines.push(k);
        }
    }
    let servers = Servers::from_args(a.servers.clone(), &engines, !a.no_migrate)?;
    if !(a.timeout > 0.0 && a.timeout.is_finite()) {
        bail!(BadInput(format!(
            "--timeout: must be positive, got {}",
            a.timeout
        )));
    }
    let thresholds = parse_fail_on(&a.fail_on)?;
    let bench = load_benchmark(&a.bench.bench, &a.bench.split)
        .with_context(|| format!("loading benchmark {}", a.bench.bench.display()))?;
    let mut selected: Vec<usize> = bench
        .questions
        .iter()
        .filter(|q| a.ids.is_empty() || a.ids.contains(&q.id))
        .filter(|q| a.dbs.is_empty() || a.dbs.contains(&q.db_id))
        .map(|q| q.id)
        .collect();
    if let Some(n) = a.limit {
        selected.truncate(n);
    }
    let with_db: Vec<usize> = selected
        .iter()
        .copied()
        .filter(|&i| bench.db_exists(&bench.questions[i].db_id))
        .collect();
    let mut db_ids: Vec<String> = with_db
        .iter()
        .map(|&i| bench.questions[i].db_id.clone())
        .collect();
    db_ids.sort();
    db_ids.dedup();

    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
        .max(1);
    // Migrations first, over the administrative URLs: they also grant the
    // reader login the queries then run as.
    let mut unavailable: HashMap<(EngineKind, String), String> = HashMap::new();
    if !a.no_migrate {
        for &kind in engines.iter().filter(|&&k| k.is_server()) {
            for id in &db_ids {
                if let Some(r) = migrate_one(&bench, id, kind, &servers, false) {
                    if !is_good(&r) {
                        unavailable.insert((kind, id.clone()), format!("{:?}", r.status));
                    }
                }
            }
        }
    }
    let connected = crate::engines::connect(&engines, &servers, jobs as u32 + 1)?;

    // Schema facts and reshuffled copies, per database.
    let tmp = tempfile::tempdir().context("creating a temporary directory")?;
    let seeds: Vec<u64> = (0..a.shuffles).collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .context("starting worker threads")?;
    let pb = progress::bar(db_ids.len() as u64, "prepare", a.quiet);
    let dbs: HashMap<String, (DbAudit, NameSet)> = pool.install(|| {
        db_ids
            .par_iter()
            .map(|id| -> Result<(String, (DbAudit, NameSet))> {
                let db = bench.database(id);
                let schema = read_schema(&db.sqlite_path)?;
                let dir = tmp.path().join(id);
                std::fs::create_dir_all(&dir)?;
                let shuffled = shuffled_copies(&db.sqlite_path, &dir, &seeds)?
                    .into_iter()
                    .zip(&seeds)
                    .map(|(p, s)| (*s, Database::new(id.clone(), p)))
                    .collect();
                let names = NameSet::new(
                    &schema
                        .tables
                        .iter()
                        .map(|t| (t.name.clone(), t.columns.clone()))
                        .collect::<Vec<_>>(),
                );
                pb.inc(1);
                Ok((
                    id.clone(),
                    (
                        DbAudit {
                            db,
                            schema,
                            shuffled,
                        },
                        names,
                    ),
                ))
            })
            .collect::<Result<_>>()
    })?;
    pb.finish_and_clear();

    let sqlite = connected
        .iter()
        .find(|c| c.kind == EngineKind::REFERENCE)
        .expect("sqlite is always connected");
    let mut rerun = format!(
        "sqlwitness audit --bench {} --split {}",
        a.bench.bench.display(),
        a.bench.split
    );
    if engines.len() > 1 {
        let names: Vec<&str> = engines.iter().map(|k| k.as_str()).collect();
        rerun.push_str(&format!(" --engines {}", names.join(",")));
    }
    let opts = AuditOptions {
        limits: QueryLimits {
            timeout: Duration::from_secs_f64(a.timeout),
            max_rows: 200_000,
            ..QueryLimits::default()
        },
        rerun,
        rewrites: !a.no_rewrites,
        plan_variants: !a.no_plan_variants,
    };
    let translations: HashMap<EngineKind, sqlwitness_dialect::Translations> = engines
        .iter()
        .map(|k| (*k, sqlwitness_dialect::builtin(*k).translations))
        .collect();
    let pb = progress::bar(with_db.len() as u64, "audit", a.quiet);
    let mut findings: Vec<Finding> = pool.install(|| {
        with_db
            .par_iter()
            .flat_map_iter(|&i| {
                let q = &bench.questions[i];
                let (ctx, names) = &dbs[&q.db_id];
                let prepare =
                    |sql: &str, kind| sqlwitness_sql::resolve_identifiers(sql, names, kind);
                let preps: Vec<Prepare> = connected
                    .iter()
                    .filter(|c| c.kind.is_server())
                    .map(|c| {
                        let kind = c.kind;
                        Box::new(move |sql: &str| prepare(sql, kind)) as Prepare
                    })
                    .collect();
                let targets: Vec<Target> = connected
                    .iter()
                    .filter(|c| c.kind.is_server())
                    .filter(|c| !unavailable.contains_key(&(c.kind, q.db_id.clone())))
                    .zip(&preps)
                    .map(|(c, p)| Target {
                        kind: c.kind,
                        engine: c.engine.as_ref(),
                        db: bench.database(&q.db_id),
                        prepare: p.as_ref(),
                        translations: &translations[&c.kind],
                    })
                    .collect();
                let out = audit_question(
                    &AuditQuestion {
                        id: q.id,
                        db_id: &q.db_id,
                        gold: &q.gold,
                    },
                    ctx,
                    sqlite.engine.as_ref(),
                    &targets,
                    &opts,
                );
                pb.inc(1);
                out
            })
            .collect()
    });
    pb.finish_and_clear();
    findings.sort_by(|x, y| (x.id, &x.rule).cmp(&(y.id, &y.rule)));

    let summary = summarize(&findings, selected.len(), with_db.len());
    let report = AuditReport {
        format_version: AUDIT_FORMAT_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        run: AuditRun {
            bench: a.bench.bench.display().to_string(),
            split: a.bench.split.clone(),
            engines: engines.iter().map(|k| k.as_str().to_string()).collect(),
            engine_versions: connected
                .iter()
                .map(|c| (c.kind.as_str().to_string(), c.engine.info().version.clone()))
                .collect(),
            shuffle_seeds: seeds,
            duration_ms: started.elapsed().as_millis() as u64,
        },
        summary,
        findings,
    };
    write_audit(&a.out, &report)?;
    let s = &report.summary;
    eprintln!(
        "audit: {} questions ({} with a database), {} affected; Table 1: LIMIT 1 {}, LIMIT N {}, GROUP BY {}, ORDER BY {}, total {} (proven: {}, {}, {}, {}, {})",
        s.questions,
        s.with_db,
        s.affected_questions,
        s.table1.limit_1,
        s.table1.limit_n,
        s.table1.group_by,
        s.table1.order_by,
        s.table1.total,
        s.table1_proven.limit_1,
        s.table1_proven.limit_n,
        s.table1_proven.group_by,
        s.table1_proven.order_by,
        s.table1_proven.total
    );
    for (engine, by) in &s.table4 {
        eprintln!("  {engine} gold failures: {by:?}");
    }
    for (engine, by) in &s.cross_engine {
        eprintln!("  {engine} answers differently: {by:?}");
    }
    eprintln!(
        "  rewrites: {} tried, {} verified; report: {} ({:.1} s)",
        s.rewrites_tried,
        s.rewrites_verified,
        a.out.join("audit.json").display(),
        started.elapsed().as_secs_f64()
    );
    if let Some(path) = &a.baseline {
        let baseline =
            sqlwitness_audit::read_audit(path).map_err(|e| BadInput(format!("--baseline: {e}")))?;
        let diff = sqlwitness_audit::diff_audits(&baseline, &report);
        let md = a.out.join("baseline-diff.md");
        std::fs::write(&md, diff.markdown(a.tolerance))
            .with_context(|| format!("writing {}", md.display()))?;
        eprintln!(
            "  against the baseline: {} new findings, {} resolved ({})",
            diff.new.len(),
            diff.resolved.len(),
            md.display()
        );
        if diff.regressed(a.tolerance) {
            return Ok(exit::REGRESSION);
        }
    }
    let over = exceeded(s, &thresholds);
    if !over.is_empty() {
        eprintln!("audit: --fail-on exceeded: {}", over.join("; "));
        return Ok(exit::FINDINGS_EXCEED);
    }
    Ok(exit::OK)
}
