//! Validated plans: every flag checked and every input file read before a
//! server is contacted.

use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use std::time::Duration;

use sqlwitness_bench::{load_benchmark, Benchmark};
use sqlwitness_core::compare::{CompareMode, CompareOptions};
use sqlwitness_core::{EngineKind, QueryLimits};
use sqlwitness_eval::{EvalPlan, JournalMode, Partition, Servers};

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

/// The validated plan of `eval`: every flag checked and every input file
/// read.
/// With `--containers` the server engines are left out of the check: they
/// get their URLs when their containers start.
pub fn eval_plan(a: EvalArgs, args: Vec<String>) -> Result<EvalPlan> {
    let engines = parse_engines(&a.engines)?;
    let given = given_servers(&engines, a.containers.containers);
    let servers = servers(a.servers.clone(), &given, !a.no_migrate)?;
    eval_plan_on(a, args, engines, servers)
}

/// The engines whose URLs come from flags or the environment: all, or
/// with `--containers` none of the servers.
/// The benchmark `args` name, its loader's warnings on stderr.
pub(crate) fn open_benchmark(args: &crate::args::BenchArgs) -> Result<Benchmark> {
    let bench = load_benchmark(&args.bench, &args.split)
        .with_context(|| format!("loading benchmark {}", args.bench.display()))?;
    for w in &bench.warnings {
        eprintln!("sqlwitness: warning: {w}");
    }
    Ok(bench)
}

fn given_servers(engines: &[EngineKind], containers: bool) -> Vec<EngineKind> {
    engines
        .iter()
        .copied()
        .filter(|k| !(containers && k.is_server()))
        .collect()
}

/// The plan of a finished partitioned run's arguments (`merge`): no
/// server is contacted, so none is required.
pub fn merge_plan(a: EvalArgs, args: Vec<String>) -> Result<EvalPlan> {
    let engines = parse_engines(&a.engines)?;
    eval_plan_on(a, args, engines, Servers::default())
}

fn eval_plan_on(
    a: EvalArgs,
    args: Vec<String>,
    engines: Vec<EngineKind>,
    servers: Servers,
) -> Result<EvalPlan> {
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
    let mut bench = open_benchmark(&a.bench)?;
    bench.namespace_prefix = a.servers.checked_prefix()?;
    bench.allow_outside_links = a.allow_outside_links;
    for db in &a.dbs {
        if !bench.questions.iter().any(|q| &q.db_id == db) {
            bail!(BadInput(format!(
                "--db: no question of split `{}` uses `{db}`",
                a.bench.split
            )));
        }
    }
    let mut selected: Vec<usize> = bench
        .questions
        .iter()
        .filter(|q| a.dbs.is_empty() || a.dbs.contains(&q.db_id))
        .map(|q| q.id)
        .collect();
    if let Some(n) = a.limit {
        selected.truncate(n);
    }
    let preds = stdin_predictions(&a.pred, &a.out)?;
    let inputs = sqlwitness_eval::dialect_inputs(&mut bench, &a.gold, &preds, &engines)?;
    let scoring = crate::scores::scoring_plan(a.scoring, &bench)?;
    let suite = match &a.suite {
        Some(dir) => Some(
            sqlwitness_fuzz::SuiteSet::open(dir)
                .map_err(|e| BadInput(format!("--suite: {e}")))?
                .with_prefix(&bench.namespace_prefix),
        ),
        None => None,
    };
    let mode = match a.compare {
        CompareArg::Strict => CompareMode::Strict,
        CompareArg::Spider => CompareMode::Spider,
        CompareArg::Bird => CompareMode::Bird,
    };
    let compare = CompareOptions {
        mode,
        ordered: false,
        column_order_any: a.column_order == ColumnOrderArg::Any,
        float_rel_tol: a.float_tolerance,
    };
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
        .max(1);
    let reference = sqlwitness_eval::reference_engine(a.reference.as_deref(), &engines)?;
    let (journal, partition) = journal_flags(a.resume, a.partition.as_deref())?;
    Ok(EvalPlan {
        reference,
        bench_arg: a.bench.bench,
        bench,
        selected,
        pred_path: inputs.pred_path,
        predictions: inputs.predictions,
        engine_predictions: inputs.engine_predictions,
        gold_sources: inputs.gold_sources,
        engines,
        servers,
        out: a.out,
        compare,
        keep_distinct: a.keep_distinct,
        limits: QueryLimits {
            timeout: Duration::from_secs_f64(a.timeout),
            max_bytes: a.max_result_mb.max(1).saturating_mul(1 << 20),
            ..QueryLimits::default()
        },
        guard: sqlwitness_guard::GuardOptions {
            max_sql_bytes: a.max_sql_bytes,
            max_value_bytes: a.max_result_mb.max(1).saturating_mul(1 << 20),
            namespace: None,
        },
        jobs,
        resolve_identifiers: a.identifiers == IdentifiersArg::Sqlite,
        ties_aware: a.ties == crate::args::TiesArg::Aware,
        migrate: !a.no_migrate,
        migrate_options: a.servers.migrate_options(false),
        quiet: a.quiet,
        scoring,
        suite,
        suite_witness: !a.no_witness,
        hunt: a.hunt,
        ves_runs: a.ves_runs,
        journal,
        partition,
        args,
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
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
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

/// The arguments of a command as the journal keeps them: the command's own
/// (after its name), without those that do not change what it computes or
/// that may carry secrets — `--out`, `--resume`, `--partition`, `-q`,
/// `-j`, `--server`, `--reader`, `--containers`, `--baseline`,
/// `--tolerance`, `--audit` (`--image` stays: the server's version can change
/// answers).
pub fn journal_args(argv: &[String]) -> Vec<String> {
    const WITH_VALUE: &[&str] = &[
        "--out",
        "--namespace-prefix",
        "--verify",
        "--cache-dir",
        "--partition",
        "-j",
        "--jobs",
        "--server",
        "--reader",
        "--baseline",
        "--tolerance",
        "--audit",
    ];
    const ALONE: &[&str] = &["--resume", "-q", "--quiet", "--containers"];
    let mut out = Vec::new();
    let mut it = argv.iter().skip(2);
    while let Some(arg) = it.next() {
        let name = arg.split_once('=').map_or(arg.as_str(), |(n, _)| n);
        if ALONE.contains(&arg.as_str()) || (arg.starts_with("-j") && arg.len() > 2) {
            continue;
        }
        if WITH_VALUE.contains(&name) {
            if !arg.contains('=') {
                it.next();
            }
            continue;
        }
        out.push(arg.clone());
    }
    out
}

pub struct MigratePlan {
    /// `--containers`: the servers to start before migrating.
    pub containers: Vec<sqlwitness_engines::ContainerPlan>,
    pub bench: Benchmark,
    pub db_ids: Vec<String>,
    pub engines: Vec<EngineKind>,
    pub servers: Servers,
    pub log_dir: PathBuf,
    pub options: sqlwitness_bench::MigrateOptions,
    pub jobs: usize,
    pub quiet: bool,
}

impl MigratePlan {
    pub fn from_args(a: MigrateArgs) -> Result<MigratePlan> {
        let engines = parse_engines(&a.engines)?;
        if let Some(k) = engines.iter().find(|k| !k.is_server()) {
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
        let mut bench = open_benchmark(&a.bench)?;
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

#[cfg(test)]
mod tests {
    use super::journal_args;

    #[test]
    fn the_journal_keeps_what_changes_verdicts_and_never_a_server_url() {
        let argv: Vec<String> = [
            "sqlwitness",
            "eval",
            "--bench",
            "b",
            "--out",
            "o",
            "--server",
            "postgres=postgres://u:secret@h/db",
            "--reader=mysql=mysql://r:pw@h/db",
            "--partition",
            "1/3",
            "--resume",
            "-q",
            "-j4",
            "--jobs",
            "2",
            "--baseline",
            "old/report.json",
            "--compare",
            "spider",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            journal_args(&argv),
            ["--bench", "b", "--compare", "spider"].map(String::from)
        );
    }
}
