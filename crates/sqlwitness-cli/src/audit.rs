//! `sqlwitness audit`: flags, the plan, the audit run
//! (`sqlwitness_audit::audit`), its summary on stderr, and the gates
//! (`--baseline`, `--fail-on`).

use anyhow::{bail, Context, Result};
use clap::Args;
use sqlwitness_dialect::EngineFacts;
use std::path::{Path, PathBuf};
use std::time::Instant;

use sqlwitness_audit::{exceeded, write_audit, AuditPlan};
use sqlwitness_bench::Benchmark;
use sqlwitness_core::EngineKind;
use sqlwitness_run::{AuditSpec, Cancel, FailOn, InputFiles, RunContext};

use crate::args::{BenchArgs, ServerArgs};
use crate::exit::{self, BadInput};
use crate::progress::Bars;

#[derive(Debug, Args)]
pub struct AuditArgs {
    #[command(flatten)]
    pub bench: BenchArgs,
    /// Engines: sqlite always runs; add postgres,mysql for dialect failures
    /// and cross-engine differences.
    #[arg(long, value_delimiter = ',', default_value = "sqlite")]
    pub engines: Vec<String>,
    /// The engine that judges, one of --engines: its gold, run on its own
    /// copy, is what the findings prove (ties by probe queries there, and
    /// on PostgreSQL by other plans; reshuffled copies only on SQLite), and
    /// every other engine's gold is compared with its answer. Default:
    /// sqlite.
    #[arg(long, value_name = "ENGINE")]
    pub reference: Option<String>,
    /// An engine's own gold, `ENGINE=FILE` (repeatable), as in `eval
    /// --gold`: it overrides the dialect golds a benchmark carries.
    #[arg(long, value_name = "ENGINE=FILE")]
    pub gold: Vec<String>,
    /// Output folder for audit.json and audit.md.
    #[arg(long, default_value = "out/audit")]
    pub out: PathBuf,
    /// Number of reshuffled copies of each database (the first reverses the
    /// rows; 0 to 100).
    #[arg(allow_hyphen_values = true, long, default_value_t = 3, value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(0..=100))]
    pub shuffles: u64,
    /// Only these question ids (0-based, comma separated).
    #[arg(long = "id", value_delimiter = ',')]
    pub ids: Vec<usize>,
    /// Only questions on these databases.
    #[arg(long = "db", value_delimiter = ',')]
    pub dbs: Vec<String>,
    /// Use a database file that is a link resolving outside the benchmark's
    /// database folder (refused by default).
    #[arg(long)]
    pub allow_outside_links: bool,
    /// Only the first N questions (after filtering; at least 1).
    #[arg(allow_hyphen_values = true, long, value_parser = crate::ranges::at_least_one())]
    pub limit: Option<usize>,
    /// Per-query time limit in seconds (0.001 to 86400: a day).
    #[arg(allow_hyphen_values = true, long, default_value_t = 30.0, value_parser = crate::ranges::seconds)]
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
    /// questions with a database (0 allows none; at most 1).
    #[arg(allow_hyphen_values = true, long, default_value_t = 0.0, value_parser = crate::ranges::fraction)]
    pub tolerance: f64,
    /// Worker threads (1 to 1024; default: number of CPUs).
    #[arg(allow_hyphen_values = true, long, short = 'j', value_parser = crate::ranges::jobs())]
    pub jobs: Option<usize>,
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// No summary on standard error (see `eval --no-summary`).
    #[arg(long)]
    pub no_summary: bool,
    /// Continue the audit whose journal is in --out (see `eval --resume`).
    #[arg(long)]
    pub resume: bool,
    /// Audit part K of N, by database (see `eval --partition`).
    #[arg(allow_hyphen_values = true, long, value_name = "K/N", value_parser = crate::ranges::partition)]
    pub partition: Option<String>,
    #[command(flatten)]
    pub servers: ServerArgs,
    #[command(flatten)]
    pub containers: crate::containers::ContainerArgs,
}

fn parse_fail_on(specs: &[String]) -> Result<Vec<FailOn>> {
    specs
        .iter()
        .map(|s| {
            let (lhs, n) = s
                .split_once('=')
                .ok_or_else(|| BadInput(format!("--fail-on: `{s}` is not rule=N")))?;
            let max: usize = n
                .trim()
                .parse()
                .map_err(|_| BadInput(format!("--fail-on: `{s}`: `{n}` is not a count")))?;
            let (rule, proven) = match lhs.trim().strip_suffix(":proven") {
                Some(r) => (r.to_string(), true),
                None => (lhs.trim().to_string(), false),
            };
            Ok(FailOn { rule, proven, max })
        })
        .collect()
}

pub fn run(a: AuditArgs, session: &crate::Session) -> Result<i32> {
    let started = Instant::now();
    let containers = crate::containers::plans_from_env(
        &a.containers,
        &audit_engines(&a.engines)?,
        &a.servers,
        !a.no_migrate,
    )?;
    let mut plan = audit_plan(&a, session.cancel.clone())?;
    // The plan holds: the outputs of an earlier audit go (a refused plan
    // leaves them as they were).
    crate::eval::clear_files(&a.out, crate::eval::AUDIT_OUTPUTS)?;
    let golds: Vec<String> = EngineKind::all()
        .iter()
        .map(|k| format!("gold_{k}.sql"))
        .collect();
    crate::eval::clear_files(
        &a.out,
        &golds.iter().map(String::as_str).collect::<Vec<_>>(),
    )?;
    session.set_out(&a.out);
    let _containers =
        crate::containers::start(&containers, &mut plan.servers, a.quiet, &session.cancel)?;
    // A benchmark shipped as dumps imports itself, as in `eval`.
    crate::import::from_manifest(&plan.bench, Some(&plan.servers), a.quiet)?;
    let report = sqlwitness_audit::audit(&plan, &Bars { quiet: a.quiet })?;
    finish(&Gates::of(&a), &plan, &report, started)
}

/// The engines of `--engines`, the reference first.
fn audit_engines(names: &[String]) -> Result<Vec<EngineKind>> {
    let mut engines = vec![EngineKind::REFERENCE];
    for n in names {
        let k = EngineKind::parse(n)
            .ok_or_else(|| BadInput(format!("--engines: unknown engine `{n}`")))?;
        if !engines.contains(&k) {
            engines.push(k);
        }
    }
    Ok(engines)
}

/// The validated plan of `a`, stopped when `cancel` is cancelled.
pub fn audit_plan(a: &AuditArgs, cancel: Cancel) -> Result<AuditPlan> {
    let engines = audit_engines(&a.engines)?;
    // The engines in containers get their URLs when they start.
    let given: Vec<EngineKind> = if a.containers.containers {
        engines.iter().copied().filter(|k| !k.is_server()).collect()
    } else {
        engines.clone()
    };
    let servers = crate::plan::servers(a.servers.clone(), &given, !a.no_migrate)?;
    let mut bench = crate::plan::open_benchmark(&a.bench.bench, &a.bench.split)?;
    bench.namespace_prefix = a.servers.checked_prefix()?;
    let spec = audit_spec(a, &bench)?;
    let (journal, partition) = crate::plan::journal_flags(a.resume, a.partition.as_deref())?;
    let ctx = RunContext {
        out: a.out.clone(),
        servers,
        jobs: crate::plan::jobs(a.jobs),
        quiet: a.quiet,
        journal,
        partition,
        migrate: !a.no_migrate,
        migrate_options: a.servers.migrate_options(false),
        cancel,
    };
    Ok(AuditPlan::from_spec(spec, bench, ctx)?)
}

/// The plan a finished partitioned audit's journal describes (`merge`): no
/// server is contacted, so none is required.
pub fn merge_plan(spec: AuditSpec, out: PathBuf, quiet: bool, cancel: Cancel) -> Result<AuditPlan> {
    let bench = crate::plan::open_benchmark(&spec.files.benchmark, &spec.split)?;
    let ctx = RunContext {
        out,
        servers: sqlwitness_run::Servers::default(),
        jobs: 1,
        quiet,
        journal: sqlwitness_run::JournalMode::Off,
        partition: None,
        migrate: false,
        migrate_options: Default::default(),
        cancel,
    };
    Ok(AuditPlan::from_spec(spec, bench, ctx)?)
}

/// What `audit`'s flags ask for, checked, on `bench` (the benchmark they
/// name).
pub(crate) fn audit_spec(a: &AuditArgs, bench: &Benchmark) -> Result<AuditSpec> {
    let engines = audit_engines(&a.engines)?;
    if !(a.timeout > 0.0 && a.timeout.is_finite()) {
        bail!(BadInput(format!(
            "--timeout: must be positive, got {}",
            a.timeout
        )));
    }
    let fail_on = parse_fail_on(&a.fail_on)?;
    let reference = match a.reference.as_deref().map(str::trim) {
        Some("none") => bail!(BadInput(
            "--reference none: an audit needs an engine that judges".into()
        )),
        given => {
            sqlwitness_run::reference_engine(given, &engines)?.unwrap_or(EngineKind::REFERENCE)
        }
    };
    let mut questions: Vec<usize> = bench
        .questions
        .iter()
        .filter(|q| a.ids.is_empty() || a.ids.contains(&q.id))
        .filter(|q| a.dbs.is_empty() || a.dbs.contains(&q.db_id))
        .map(|q| q.id)
        .collect();
    if let Some(n) = a.limit {
        questions.truncate(n);
    }
    Ok(AuditSpec {
        files: InputFiles::parse(a.bench.bench.clone(), &a.gold, &[])?,
        split: a.bench.split.clone(),
        allow_outside_links: a.allow_outside_links,
        questions,
        engines,
        reference,
        shuffles: a.shuffles,
        timeout_seconds: a.timeout,
        rewrites: !a.no_rewrites,
        plan_variants: !a.no_plan_variants,
        fail_on,
    })
}

/// What decides the exit code beside the findings: `--baseline` and
/// `--tolerance` (`--fail-on` is the plan's: `merge` applies the parts').
#[derive(Default)]
pub struct Gates<'a> {
    pub baseline: Option<&'a Path>,
    pub tolerance: f64,
    /// Whether the summary is said on stderr.
    pub summary: bool,
}

impl<'a> Gates<'a> {
    pub fn of(a: &'a AuditArgs) -> Gates<'a> {
        Gates {
            baseline: a.baseline.as_deref(),
            tolerance: a.tolerance,
            summary: !a.no_summary,
        }
    }
}

/// Writes the audit and its dialect golds, prints the summary, gates: a
/// database of the selection that cannot be used (its questions were not
/// audited) exits 3, as in `eval`.
pub fn finish(
    gates: &Gates,
    plan: &AuditPlan,
    report: &sqlwitness_audit::AuditReport,
    started: Instant,
) -> Result<i32> {
    let code = write_and_gate(gates, plan, report, started)?;
    let mut ids: Vec<&str> = plan
        .selected
        .iter()
        .map(|&i| plan.bench.questions[i].db_id.as_str())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let unusable: Vec<&str> = ids
        .into_iter()
        .filter(|id| plan.bench.db_exists(id))
        .filter(|id| sqlwitness_run::unusable(&plan.bench, id).is_some())
        .collect();
    if !unusable.is_empty() {
        say!(
            "sqlwitness: error: databases that cannot be used, their questions not audited: {}",
            unusable.join(", ")
        );
        return Ok(exit::ENGINE);
    }
    Ok(code)
}

fn write_and_gate(
    gates: &Gates,
    plan: &AuditPlan,
    report: &sqlwitness_audit::AuditReport,
    started: Instant,
) -> Result<i32> {
    let thresholds: Vec<(String, bool, usize)> = plan
        .spec
        .fail_on
        .iter()
        .map(|f| (f.rule.clone(), f.proven, f.max))
        .collect();
    // The dialect golds first: audit.json, written last, marks a finished
    // audit.
    let out = &plan.out;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    // The dialect golds the audit proves, for `eval --gold ENGINE=FILE`.
    for (kind, golds) in sqlwitness_audit::dialect_golds(plan, report) {
        let path = out.join(format!("gold_{kind}.sql"));
        let n = golds.iter().flatten().count();
        std::fs::write(&path, sqlwitness_audit::gold_file_text(&plan.bench, &golds))
            .with_context(|| format!("writing {}", path.display()))?;
        if gates.summary {
            say!(
                "  {kind} golds: {} ({n} of {} questions)",
                path.display(),
                golds.len()
            );
        }
    }
    write_audit(out, report)?;
    let s = &report.summary;
    if gates.summary {
        say_summary(report, out, started);
    }
    if let Some(path) = gates.baseline {
        let baseline =
            sqlwitness_audit::read_audit(path).map_err(|e| BadInput(format!("--baseline: {e}")))?;
        let diff = sqlwitness_audit::diff_audits(&baseline, report);
        let md = out.join("baseline-diff.md");
        std::fs::write(&md, diff.markdown(gates.tolerance))
            .with_context(|| format!("writing {}", md.display()))?;
        say!(
            "  against the baseline: {} new findings, {} resolved ({})",
            diff.new.len(),
            diff.resolved.len(),
            md.display()
        );
        if diff.regressed(gates.tolerance) {
            return Ok(exit::REGRESSION);
        }
    }
    let over = exceeded(s, &thresholds);
    if !over.is_empty() {
        say!("audit: --fail-on exceeded: {}", over.join("; "));
        return Ok(exit::FINDINGS_EXCEED);
    }
    Ok(exit::OK)
}

/// The audit's summary on stderr: its counts, each engine's failures and
/// differences, the rewrites and where the report is.
fn say_summary(report: &sqlwitness_audit::AuditReport, out: &Path, started: Instant) {
    let s = &report.summary;
    say!(
        "audit: {} questions ({} with a database), {} affected; ties: LIMIT 1 {}, LIMIT N {}, GROUP BY {}, ORDER BY {}, total {} (proven: {}, {}, {}, {}, {})",
        s.questions,
        s.with_db,
        s.affected_questions,
        s.ties.limit_1,
        s.ties.limit_n,
        s.ties.group_by,
        s.ties.order_by,
        s.ties.total,
        s.ties_proven.limit_1,
        s.ties_proven.limit_n,
        s.ties_proven.group_by,
        s.ties_proven.order_by,
        s.ties_proven.total
    );
    for (engine, by) in &s.dialect_failures {
        say!("  {engine} gold failures: {by:?}");
    }
    for (engine, by) in &s.cross_engine {
        say!("  {engine} answers differently: {by:?}");
    }
    say!(
        "  rewrites: {} tried, {} verified; report: {} ({:.1} s)",
        s.rewrites_tried,
        s.rewrites_verified,
        out.join("audit.json").display(),
        started.elapsed().as_secs_f64()
    );
}
