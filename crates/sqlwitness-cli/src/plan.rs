//! Validated plans: every flag checked and every input file read before a
//! server is contacted.

use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use std::time::Duration;

use std::collections::BTreeMap;

use sqlwitness_bench::{
    load_benchmark, load_engine_golds, load_predictions, Benchmark, Prediction,
};
use sqlwitness_core::compare::{CompareMode, CompareOptions};
use sqlwitness_core::{EngineKind, QueryLimits};
use sqlwitness_eval::{EvalPlan, Servers};

use crate::args::{ColumnOrderArg, CompareArg, EvalArgs, IdentifiersArg, MigrateArgs, ServerArgs};
use crate::exit::BadInput;

/// The servers of `a` (flags, then environment), checked for `engines`.
pub fn servers(a: ServerArgs, engines: &[EngineKind], migrate: bool) -> Result<Servers> {
    let servers = Servers::from_pairs(&a.servers, &a.readers)?;
    servers.check(engines, migrate)?;
    Ok(servers)
}

/// `ENGINE=FILE` as `(engine, file)`; `None` when the text before `=` names
/// no engine (then the whole is a file name).
fn engine_file(flag: &str, spec: &str) -> Result<Option<(EngineKind, PathBuf)>> {
    let Some((name, file)) = spec.split_once('=') else {
        return Ok(None);
    };
    let Some(kind) = EngineKind::parse(name) else {
        return Ok(None);
    };
    if file.trim().is_empty() {
        bail!(BadInput(format!("{flag} `{spec}`: no file after `=`")));
    }
    Ok(Some((kind, PathBuf::from(file.trim()))))
}

fn parse_engines(names: &[String]) -> Result<Vec<EngineKind>> {
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
pub fn eval_plan(a: EvalArgs) -> Result<EvalPlan> {
    let engines = parse_engines(&a.engines)?;
    let servers = servers(a.servers, &engines, !a.no_migrate)?;
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
    let bench = load_benchmark(&a.bench.bench, &a.bench.split)
        .with_context(|| format!("loading benchmark {}", a.bench.bench.display()))?;
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
    let mut bench = bench;
    // Dialect golds the benchmark carries, then `--gold ENGINE=FILE`.
    let mut gold_sources = bench.gold_sources.clone();
    for spec in &a.gold {
        let (kind, path) = engine_file("--gold", spec)?
            .ok_or_else(|| BadInput(format!("--gold `{spec}`: expected ENGINE=FILE")))?;
        let golds = load_engine_golds(&path, &bench)
            .with_context(|| format!("loading --gold {}", path.display()))?;
        for (q, g) in bench.questions.iter_mut().zip(golds) {
            match g {
                Some(g) => q.golds.insert(kind, g),
                None => q.golds.remove(&kind),
            };
        }
        gold_sources.insert(kind, path.display().to_string());
    }
    let by_id = |p: &PathBuf, bench: &Benchmark| -> Result<Vec<Option<Prediction>>> {
        let loaded = load_predictions(p, bench)
            .with_context(|| format!("loading predictions {}", p.display()))?;
        let mut by_id: Vec<Option<Prediction>> = vec![None; bench.questions.len()];
        for pred in loaded {
            let id = pred.id;
            by_id[id] = Some(pred);
        }
        Ok(by_id)
    };
    let (mut pred_path, mut predictions) = (None, None);
    let mut engine_predictions = BTreeMap::new();
    for spec in &a.pred {
        match engine_file("--pred", spec)? {
            Some((kind, path)) => {
                let loaded = by_id(&path, &bench)?;
                engine_predictions.insert(kind, (path, loaded));
            }
            None if predictions.is_none() => {
                let path = PathBuf::from(spec);
                predictions = Some(by_id(&path, &bench)?);
                pred_path = Some(path);
            }
            None => bail!(BadInput(format!(
                "--pred `{spec}`: one file for every engine is given already"
            ))),
        }
    }
    if predictions.is_none() && !engine_predictions.is_empty() {
        if let Some(k) = engines.iter().find(|k| {
            let parent = sqlwitness_dialect::shipped(**k)
                .extends
                .as_deref()
                .and_then(EngineKind::parse);
            !engine_predictions.contains_key(k)
                && !parent.is_some_and(|p| engine_predictions.contains_key(&p))
        }) {
            bail!(BadInput(format!(
                "--pred: no predictions for engine {k}; give --pred {k}=FILE or one file for every engine"
            )));
        }
    }
    let scoring = crate::scores::scoring_plan(a.scoring, &bench)?;
    let suite = match &a.suite {
        Some(dir) => Some(
            sqlwitness_fuzz::SuiteSet::open(dir).map_err(|e| BadInput(format!("--suite: {e}")))?,
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
    let reference = match a.reference.as_deref().map(str::trim) {
        Some("none") => None,
        Some(name) => {
            let kind = EngineKind::parse(name).ok_or_else(|| {
                BadInput(format!(
                    "--reference: unknown engine `{name}` (expected {} or none)",
                    EngineKind::names()
                ))
            })?;
            if !engines.contains(&kind) {
                bail!(BadInput(format!(
                    "--reference {kind}: not one of --engines"
                )));
            }
            Some(kind)
        }
        None => (engines.len() > 1 && engines.contains(&EngineKind::REFERENCE))
            .then_some(EngineKind::REFERENCE),
    };
    Ok(EvalPlan {
        reference,
        bench_arg: a.bench.bench,
        bench,
        selected,
        pred_path,
        predictions,
        engine_predictions,
        gold_sources,
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
        guard: sqlwitness_sql::GuardOptions {
            max_sql_bytes: a.max_sql_bytes,
            max_value_bytes: a.max_result_mb.max(1).saturating_mul(1 << 20),
        },
        jobs,
        resolve_identifiers: a.identifiers == IdentifiersArg::Sqlite,
        ties_aware: a.ties == crate::args::TiesArg::Aware,
        migrate: !a.no_migrate,
        quiet: a.quiet,
        scoring,
        suite,
        suite_witness: !a.no_witness,
        hunt: a.hunt,
    })
}

pub struct MigratePlan {
    pub bench: Benchmark,
    pub db_ids: Vec<String>,
    pub engines: Vec<EngineKind>,
    pub servers: Servers,
    pub log_dir: PathBuf,
    pub force: bool,
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
        let servers = servers(a.servers, &engines, true)?;
        let bench = load_benchmark(&a.bench.bench, &a.bench.split)
            .with_context(|| format!("loading benchmark {}", a.bench.bench.display()))?;
        let db_ids = if a.all {
            bench.all_database_ids()
        } else if a.dbs.is_empty() {
            bench.db_ids()
        } else {
            a.dbs.clone()
        };
        Ok(MigratePlan {
            bench,
            db_ids,
            engines,
            servers,
            log_dir: a.log_dir,
            force: a.force,
            quiet: a.quiet,
        })
    }
}
