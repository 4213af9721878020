//! Validated plans: every flag checked and every input file read before a
//! server is contacted.

use anyhow::{bail, Context, Result};
use sqlwitness_dialect::EngineFacts;
use std::path::{Path, PathBuf};

use sqlwitness_bench::{load_benchmark, Benchmark};
use sqlwitness_core::compare::CompareMode;
use sqlwitness_core::EngineKind;
use sqlwitness_eval::EvalPlan;
use sqlwitness_run::{Cancel, EvalSpec, InputFiles, JournalMode, Partition, RunContext, Servers};

use crate::args::{ColumnOrderArg, CompareArg, EvalArgs, IdentifiersArg, MigrateArgs, ServerArgs};
use crate::exit::BadInput;

/// The servers of `a` (flags, then environment), checked for `engines`.
pub fn servers(a: ServerArgs, engines: &[EngineKind], migrate: bool) -> Result<Servers> {
    let servers = Servers::from_pairs(&a.servers, &a.readers)?;
    servers.check(engines, migrate)?;
    Ok(servers)
}

pub fn parse_engines(names: &[String]) -> Result<Vec<EngineKind>> {
    let mut out = Vec::new();
    for n in names {
        let kind = EngineKind::parse(n).ok_or_else(|| {
            BadInput(format!(
                "--engines: unknown engine `{n}` (expected {})",
                EngineKind::names()
            ))
        })?;
        if !out.contains(&kind) {
            out.push(kind);
        }
    }
    if out.is_empty() {
        bail!(BadInput("--engines: no engine given".into()));
    }
    Ok(out)
}

/// `--reference ENGINE` of fuzz and perturb: the engine it names, if any.
pub fn parse_reference(name: Option<&str>) -> Result<Option<EngineKind>> {
    match name.map(str::trim) {
        None => Ok(None),
        Some(name) => Ok(Some(EngineKind::parse(name).ok_or_else(|| {
            BadInput(format!(
                "--reference: unknown engine `{name}` (expected {})",
                EngineKind::names()
            ))
        })?)),
    }
}

/// The validated plan of `eval`: every flag checked and every input file
/// read.
/// With `--containers` the server engines are left out of the check: they
/// get their URLs when their containers start. The run stops when
/// `cancel` is cancelled.
pub fn eval_plan(a: EvalArgs, cancel: Cancel) -> Result<EvalPlan> {
    let engines = parse_engines(&a.engines)?;
    let given = given_servers(&engines, a.containers.containers);
    let servers = servers(a.servers.clone(), &given, !a.no_migrate)?;
    let mut bench = open_benchmark(&a.bench.bench, &a.bench.split)?;
    bench.namespace_prefix = a.servers.checked_prefix()?;
    let preds = stdin_predictions(&a.pred, &a.out)?;
    let spec = eval_spec(&a, &bench, &preds, engines)?;
    let baseline = crate::scores::baseline(&a.scoring)?;
    let (journal, partition) = journal_flags(a.resume, a.partition.as_deref())?;
    let ctx = RunContext {
        out: a.out,
        servers,
        jobs: jobs(a.jobs),
        quiet: a.quiet,
        journal,
        partition,
        migrate: !a.no_migrate,
        migrate_options: a.servers.migrate_options(false),
        cancel,
    };
    let mut plan = EvalPlan::from_spec(spec, bench, ctx)?;
    plan.scoring.baseline = baseline;
    plan.scoring.tolerance = a.scoring.tolerance;
    Ok(plan)
}

/// The worker threads of `-j` (default: the number of CPUs).
pub(crate) fn jobs(given: Option<usize>) -> usize {
    given
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
        .max(1)
}

/// The benchmark at `path` (split `split`), its loader's warnings on
/// stderr.
pub(crate) fn open_benchmark(path: &Path, split: &str) -> Result<Benchmark> {
    let bench = load_benchmark(path, split)
        .with_context(|| format!("loading benchmark {}", path.display()))?;
    for w in &bench.warnings {
        say!("sqlwitness: warning: {w}");
    }
    Ok(bench)
}

/// The engines whose URLs come from flags or the environment: all, or
/// with `--containers` none of the servers.
fn given_servers(engines: &[EngineKind], containers: bool) -> Vec<EngineKind> {
    engines
        .iter()
        .copied()
        .filter(|k| !(containers && k.is_server()))
        .collect()
}

/// The plan a finished partitioned run's journal describes (`merge`): no
/// server is contacted, so none is required.
pub fn merge_plan(spec: EvalSpec, out: PathBuf, quiet: bool, cancel: Cancel) -> Result<EvalPlan> {
    let bench = open_benchmark(&spec.files.benchmark, &spec.split)?;
    let ctx = RunContext {
        out,
        servers: Servers::default(),
        jobs: 1,
        quiet,
        journal: JournalMode::Off,
        partition: None,
        migrate: false,
        migrate_options: Default::default(),
        cancel,
    };
    Ok(EvalPlan::from_spec(spec, bench, ctx)?)
}

/// What `eval`'s flags ask for, checked: `preds` are the `--pred` files
/// (standard input already kept in a file).
pub(crate) fn eval_spec(
    a: &EvalArgs,
    bench: &Benchmark,
    preds: &[String],
    engines: Vec<EngineKind>,
) -> Result<EvalSpec> {
    if !(a.timeout > 0.0 && a.timeout.is_finite()) {
        bail!(BadInput(format!(
            "--timeout: must be positive, got {}",
            a.timeout
        )));
    }
    if !(a.float_tolerance >= 0.0 && a.float_tolerance < 1.0) {
        bail!(BadInput(format!(
            "--float-tolerance: must be in [0, 1), got {}",
            a.float_tolerance
        )));
    }
    for db in &a.dbs {
        if !bench.questions.iter().any(|q| &q.db_id == db) {
            bail!(BadInput(format!(
                "--db: no question of split `{}` uses `{db}`",
                a.bench.split
            )));
        }
    }
    let mut questions: Vec<usize> = bench
        .questions
        .iter()
        .filter(|q| a.dbs.is_empty() || a.dbs.contains(&q.db_id))
        .map(|q| q.id)
        .collect();
    if let Some(n) = a.limit {
        questions.truncate(n);
    }
    let mut files = InputFiles::parse(a.bench.bench.clone(), &a.gold, preds)?;
    files.suite = a.suite.clone();
    let (infeasible, calibrate_on) = crate::scores::scoring_ids(&a.scoring, bench)?;
    let reference = sqlwitness_run::reference_engine(a.reference.as_deref(), &engines)?;
    Ok(EvalSpec {
        files,
        split: a.bench.split.clone(),
        allow_outside_links: a.allow_outside_links,
        questions,
        engines,
        reference,
        compare: match a.compare {
            CompareArg::Strict => CompareMode::Strict,
            CompareArg::Spider => CompareMode::Spider,
            CompareArg::Bird => CompareMode::Bird,
            CompareArg::Spider2 => CompareMode::Spider2,
            CompareArg::Livesqlbench => CompareMode::Livesqlbench,
            CompareArg::Defog => CompareMode::Defog,
        },
        any_column_order: a.column_order == ColumnOrderArg::Any,
        keep_distinct: a.keep_distinct,
        float_tolerance: a.float_tolerance,
        timeout_seconds: a.timeout,
        max_result_bytes: (a.max_result_mb * f64::from(1u32 << 20)).max(1024.0) as usize,
        max_sql_bytes: a.max_sql_bytes,
        resolve_identifiers: a.identifiers == IdentifiersArg::Sqlite,
        ties_aware: a.ties == crate::args::TiesArg::Aware,
        infeasible,
        calibrate_on,
        calibration_bins: a.scoring.calibration_bins,
        legacy: a.scoring.legacy,
        suite_witness: !a.no_witness,
        hunt: a.hunt,
        ves_runs: a.ves_runs,
    })
}

/// `--pred -` (or `ENGINE=-`): the predictions from standard input, kept in
/// `--out` as `predictions-stdin.{sql,json,jsonl}` (the format by content:
/// a JSON document, JSON lines, else Spider text) and read from there — the
/// report names the file, and `--resume` finds the same predictions.
fn stdin_predictions(specs: &[String], out: &std::path::Path) -> Result<Vec<String>> {
    let mut read = false;
    specs
        .iter()
        .map(|spec| {
            let (engine, file) = match spec.split_once('=') {
                Some((e, f)) => (Some(e), f),
                None => (None, spec.as_str()),
            };
            if file.trim() != "-" {
                return Ok(spec.clone());
            }
            if read {
                bail!(BadInput("--pred -: standard input can be read once".into()));
            }
            read = true;
            let limit = sqlwitness_core::input::BENCHMARK_FILE;
            let text = sqlwitness_core::input::read_bounded(std::io::stdin().lock(), limit, 0)
                .and_then(|b| {
                    String::from_utf8(b).map_err(|e| {
                        std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error())
                    })
                })
                .map_err(|e| BadInput(format!("--pred -: reading standard input: {e}")))?;
            let t = text.trim_start();
            let ext = if t.starts_with('[')
                || serde_json::from_str::<serde_json::Value>(t).is_ok_and(|v| v.is_object())
            {
                "json"
            } else if t.starts_with('{') {
                "jsonl"
            } else {
                "sql"
            };
            std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
            let path = out.join(format!("predictions-stdin.{ext}"));
            std::fs::write(&path, &text).with_context(|| format!("writing {}", path.display()))?;
            let path = path.display().to_string();
            Ok(match engine {
                Some(e) => format!("{e}={path}"),
                None => path,
            })
        })
        .collect()
}

/// The journal mode and partition of `--resume` and `--partition K/N`.
pub fn journal_flags(
    resume: bool,
    partition: Option<&str>,
) -> Result<(JournalMode, Option<Partition>)> {
    let mode = if resume {
        JournalMode::Resume
    } else {
        JournalMode::Fresh
    };
    Ok((mode, partition.map(Partition::parse).transpose()?))
}

pub struct MigratePlan {
    /// `--containers`: the servers to start before migrating.
    pub containers: Vec<sqlwitness_engines::ContainerPlan>,
    pub bench: Benchmark,
    pub db_ids: Vec<String>,
    pub engines: Vec<EngineKind>,
    pub servers: Servers,
    pub log_dir: PathBuf,
    pub options: sqlwitness_migrate::MigrateOptions,
    pub jobs: usize,
    pub quiet: bool,
}

impl MigratePlan {
    pub fn from_args(a: MigrateArgs) -> Result<MigratePlan> {
        let engines = parse_engines(&a.engines)?;
        if let Some(k) = engines.iter().find(|k| !k.holds_copies()) {
            bail!(BadInput(format!(
                "--engines: {k} is the source of a migration, not a target"
            )));
        }
        let containers =
            crate::containers::plans_from_env(&a.containers, &engines, &a.servers, true)?;
        let options = a.servers.migrate_options(a.force);
        let prefix = a.servers.checked_prefix()?;
        let servers = servers(
            a.servers,
            &given_servers(&engines, a.containers.containers),
            true,
        )?;
        let mut bench = open_benchmark(&a.bench.bench, &a.bench.split)?;
        bench.namespace_prefix = prefix;
        bench.allow_outside_links = a.allow_outside_links;
        for db in &a.dbs {
            if let Some(problem) = sqlwitness_bench::db_id_problem(db) {
                bail!(BadInput(format!("--db: {problem}")));
            }
        }
        let db_ids = if a.all {
            bench.all_database_ids()
        } else if a.dbs.is_empty() {
            bench.db_ids()
        } else {
            a.dbs.clone()
        };
        Ok(MigratePlan {
            containers,
            bench,
            db_ids,
            engines,
            servers,
            log_dir: a.log_dir,
            options,
            jobs: a
                .jobs
                .unwrap_or_else(|| 2 * std::thread::available_parallelism().map_or(2, |n| n.get())),
            quiet: a.quiet,
        })
    }
}
