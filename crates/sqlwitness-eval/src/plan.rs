//! The validated plan of an evaluation: what to run, where, and how to
//! judge it. The CLI builds it from flags; nothing here reads a flag.

use sqlwitness_dialect::EngineFacts;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use sqlwitness_bench::{Benchmark, PredictedSql, Prediction};
use sqlwitness_core::compare::CompareOptions;
use sqlwitness_core::{EngineKind, QueryLimits};
use sqlwitness_report::Report;

use crate::{EvalError, EvalSpec};

/// Where the servers are: the administrative URLs (migration, grants) and
/// the least-privilege URLs queries run over (README "Privileges"), per
/// engine.
#[derive(Debug, Clone, Default)]
pub struct Servers {
    admin: BTreeMap<EngineKind, String>,
    reader: BTreeMap<EngineKind, String>,
}

/// `ENGINE=URL` pairs from `flag`, then `env(kind)` for every engine not
/// given.
fn urls(
    flag: &str,
    pairs: &[String],
    env: fn(EngineKind) -> String,
) -> Result<BTreeMap<EngineKind, String>, EvalError> {
    let mut out = BTreeMap::new();
    for p in pairs {
        let (name, url) = p
            .split_once('=')
            .ok_or_else(|| EvalError::BadInput(format!("--{flag} `{p}`: expected ENGINE=URL")))?;
        let kind = EngineKind::parse(name).ok_or_else(|| {
            EvalError::BadInput(format!(
                "--{flag} `{p}`: unknown engine `{name}` (expected {})",
                EngineKind::names()
            ))
        })?;
        out.insert(kind, url.trim().to_string());
    }
    for kind in EngineKind::all() {
        if let Ok(url) = std::env::var(env(kind)) {
            if !url.trim().is_empty() {
                out.entry(kind).or_insert_with(|| url.trim().to_string());
            }
        }
    }
    Ok(out)
}

impl Servers {
    /// The servers given as `ENGINE=URL` pairs (`--server`, `--reader`),
    /// then, for every engine not given, `SQLWITNESS_<ENGINE>_URL` and
    /// `SQLWITNESS_<ENGINE>_READER_URL`, then an engine's default (the
    /// folder of DuckDB's copies).
    pub fn from_pairs(admin: &[String], reader: &[String]) -> Result<Servers, EvalError> {
        let mut admin = urls("server", admin, EngineKind::url_env)?;
        for kind in EngineKind::all() {
            if let Some(url) = sqlwitness_engines::default_url(kind) {
                admin.entry(kind).or_insert(url);
            }
        }
        Ok(Servers {
            admin,
            reader: urls("reader", reader, EngineKind::reader_url_env)?,
        })
    }

    /// Checks that every server engine of `engines` has a URL: an
    /// administrative one when `migrate` (migration needs it), else an
    /// administrative or a reader one.
    pub fn check(&self, engines: &[EngineKind], migrate: bool) -> Result<(), EvalError> {
        for &kind in engines.iter().filter(|&&k| k.holds_copies()) {
            if self.url(kind).is_none() && (migrate || self.explicit_reader_url(kind).is_none()) {
                return Err(EvalError::BadInput(format!(
                    "engine {kind} needs --server {kind}=URL or {} (an administrative login: \
                     it migrates and grants the reader login read access)",
                    kind.url_env()
                )));
            }
        }
        Ok(())
    }

    /// Makes `url` the administrative URL of `kind` (a server this run
    /// started, `--containers`), replacing any given by a flag or the
    /// environment; its reader URL is then derived from it.
    pub fn set_started(&mut self, kind: EngineKind, url: &str) {
        self.admin.insert(kind, url.to_string());
        self.reader.remove(&kind);
    }

    /// The administrative URL.
    pub fn url(&self, kind: EngineKind) -> Option<&str> {
        self.admin.get(&kind).map(String::as_str)
    }

    fn explicit_reader_url(&self, kind: EngineKind) -> Option<&str> {
        self.reader.get(&kind).map(String::as_str)
    }

    /// The administrative URL a run login is created over: given when no
    /// explicit reader URL is (README "Privileges").
    pub fn run_login_admin(&self, kind: EngineKind) -> Option<&str> {
        match self.explicit_reader_url(kind) {
            Some(_) => None,
            None => self.url(kind),
        }
    }

    /// The URL queries run over: the explicit reader URL, else the
    /// administrative one with the reader login's name and password.
    pub fn reader_url(&self, kind: EngineKind) -> Result<String, EvalError> {
        if let Some(u) = self.explicit_reader_url(kind) {
            return Ok(u.to_string());
        }
        let admin = self
            .url(kind)
            .ok_or_else(|| EvalError::BadInput(format!("engine {kind}: no URL given")))?;
        Ok(sqlwitness_engines::reader_url(kind, admin)?)
    }
}

pub struct EvalPlan {
    pub bench_arg: PathBuf,
    pub bench: Benchmark,
    /// The question indices to run, in order.
    pub selected: Vec<usize>,
    pub pred_path: Option<PathBuf>,
    /// Indexed by question id (`None` where the file has no entry, which
    /// counts as abstained); the whole is `None` in the self-check.
    pub predictions: Option<Vec<Option<Prediction>>>,
    /// `--pred ENGINE=FILE`: an engine's own predictions (the file and, by
    /// question id, the prediction), instead of `predictions`.
    pub engine_predictions: BTreeMap<EngineKind, (PathBuf, Vec<Option<Prediction>>)>,
    /// The engine whose gold's answer judges every other engine's
    /// prediction across engines (`--reference`; SQLite by default when it
    /// runs beside another engine).
    pub reference: Option<EngineKind>,
    /// Per engine, where its dialect gold came from (for the report);
    /// the golds themselves are in the questions (`Question::golds`).
    pub gold_sources: BTreeMap<EngineKind, String>,
    pub engines: Vec<EngineKind>,
    pub servers: Servers,
    pub out: PathBuf,
    pub compare: CompareOptions,
    pub keep_distinct: bool,
    pub limits: QueryLimits,
    /// What the guard refuses before reading a prediction.
    pub guard: sqlwitness_guard::GuardOptions,
    pub jobs: usize,
    pub resolve_identifiers: bool,
    /// `--ties aware`: mismatches that are valid answers under ties become `match_tie`.
    pub ties_aware: bool,
    pub migrate: bool,
    /// How migrations check and cache their copies.
    pub migrate_options: sqlwitness_bench::MigrateOptions,
    pub quiet: bool,
    pub scoring: ScoringPlan,
    /// `--suite`: the opened test-suite folder.
    pub suite: Option<sqlwitness_fuzz::SuiteSet>,
    /// `--suite` without `--no-witness`: shrink witnesses.
    pub suite_witness: bool,
    /// `--hunt N`: extra generated instances for suite passes (0: none).
    pub hunt: usize,
    /// `--ves-runs N`: time each correct prediction and its gold N times
    /// on every engine for VES and R-VES (0: no timing).
    pub ves_runs: usize,
    /// Whether the run keeps a journal in `out` and continues one
    /// (`--resume`).
    pub journal: crate::JournalMode,
    /// `--partition K/N`: only the questions of this part's databases.
    pub partition: Option<crate::Partition>,
    /// What the run computes, as the journal keeps it: the plan was built
    /// from it ([`EvalPlan::from_spec`]).
    pub spec: EvalSpec,
}

/// How and where a run runs, beside what it computes (its spec): nothing
/// here changes an outcome, so the journal does not keep it.
pub struct RunContext {
    /// The output folder (the journal's).
    pub out: PathBuf,
    pub servers: Servers,
    /// Worker threads.
    pub jobs: usize,
    /// No progress bars.
    pub quiet: bool,
    /// Keep a journal; continue one.
    pub journal: crate::JournalMode,
    /// Only this part's databases.
    pub partition: Option<crate::Partition>,
    /// Migrate what the servers miss first.
    pub migrate: bool,
    /// How migrations check and cache their copies.
    pub migrate_options: sqlwitness_bench::MigrateOptions,
}

impl EvalPlan {
    /// The plan of `spec` on `bench` (loaded from `spec.files.benchmark`
    /// and `spec.split`, its namespace prefix set): every input file read
    /// and checked. The scoring's baseline is the caller's (it gates, it
    /// does not score).
    pub fn from_spec(
        spec: EvalSpec,
        mut bench: Benchmark,
        ctx: RunContext,
    ) -> Result<EvalPlan, EvalError> {
        let timeout = crate::spec::positive_seconds("timeout_seconds", spec.timeout_seconds)?;
        if !(spec.float_tolerance >= 0.0 && spec.float_tolerance < 1.0) {
            return Err(EvalError::BadInput(format!(
                "float_tolerance: must be in [0, 1), got {}",
                spec.float_tolerance
            )));
        }
        if spec.engines.is_empty() {
            return Err(EvalError::BadInput("engines: none given".into()));
        }
        if let Some(r) = spec.reference.filter(|r| !spec.engines.contains(r)) {
            return Err(EvalError::BadInput(format!(
                "reference {r}: not one of the engines"
            )));
        }
        if spec.calibration_bins == 0 {
            return Err(EvalError::BadInput(
                "calibration_bins: must be at least 1".into(),
            ));
        }
        let questions = bench.questions.len();
        if let Some(id) = spec.questions.iter().find(|&&id| id >= questions) {
            return Err(EvalError::BadInput(format!(
                "question {id}: the split has {questions} questions"
            )));
        }
        bench.allow_outside_links = spec.allow_outside_links;
        let inputs = crate::dialect_inputs(&mut bench, &spec.files, &spec.engines)?;
        let suite = match &spec.files.suite {
            Some(dir) => Some(
                sqlwitness_fuzz::SuiteSet::open(dir)
                    .map_err(|e| EvalError::BadInput(format!("test suite: {e}")))?
                    .with_prefix(&bench.namespace_prefix),
            ),
            None => None,
        };
        let max_bytes = spec.max_result_bytes.max(1);
        Ok(EvalPlan {
            reference: spec.reference,
            bench_arg: spec.files.benchmark.clone(),
            bench,
            selected: spec.questions.clone(),
            pred_path: inputs.pred_path,
            predictions: inputs.predictions,
            engine_predictions: inputs.engine_predictions,
            gold_sources: inputs.gold_sources,
            engines: spec.engines.clone(),
            servers: ctx.servers,
            out: ctx.out,
            compare: CompareOptions {
                mode: spec.compare,
                ordered: false,
                column_order_any: spec.any_column_order,
                float_rel_tol: spec.float_tolerance,
            },
            keep_distinct: spec.keep_distinct,
            limits: QueryLimits {
                timeout,
                max_bytes,
                ..QueryLimits::default()
            },
            guard: sqlwitness_guard::GuardOptions {
                max_sql_bytes: spec.max_sql_bytes,
                max_value_bytes: max_bytes,
                namespace: None,
            },
            jobs: ctx.jobs.max(1),
            resolve_identifiers: spec.resolve_identifiers,
            ties_aware: spec.ties_aware,
            migrate: ctx.migrate,
            migrate_options: ctx.migrate_options,
            quiet: ctx.quiet,
            scoring: ScoringPlan {
                infeasible: spec.infeasible.clone(),
                calibrate_on: spec.calibrate_on.clone(),
                bins: spec.calibration_bins,
                legacy: spec.legacy,
                baseline: None,
                tolerance: 0.0,
            },
            suite,
            suite_witness: spec.suite_witness,
            hunt: spec.hunt,
            ves_runs: spec.ves_runs,
            journal: ctx.journal,
            partition: ctx.partition,
            spec,
        })
    }
}

impl EvalPlan {
    /// True when no prediction file was given: the gold self-check.
    pub fn self_check(&self) -> bool {
        self.predictions.is_none() && self.engine_predictions.is_empty()
    }

    /// The prediction `kind` runs for question `id`: from its own file
    /// (`--pred ENGINE=FILE`, or the file of the engine its dialect
    /// extends), else from the file for every engine; `Abstain` where the
    /// file has no entry; `None` in the self-check.
    pub fn prediction(&self, kind: EngineKind, id: usize) -> Option<&PredictedSql> {
        let by_id = self.predictions_of(kind)?;
        Some(match by_id.get(id) {
            Some(Some(p)) => &p.sql,
            _ => &PredictedSql::Abstain,
        })
    }

    /// The full record of question `id`'s prediction on `kind` (confidence,
    /// samples), when there is one.
    pub fn prediction_record(&self, kind: EngineKind, id: usize) -> Option<&Prediction> {
        self.predictions_of(kind)?.get(id)?.as_ref()
    }

    fn predictions_of(&self, kind: EngineKind) -> Option<&Vec<Option<Prediction>>> {
        sqlwitness_dialect::own_or_parent(&self.engine_predictions, kind)
            .map(|(_, by_id)| by_id)
            .or(self.predictions.as_ref())
    }
}

/// Validated scoring options of `eval`.
pub struct ScoringPlan {
    pub infeasible: BTreeSet<usize>,
    pub calibrate_on: Option<BTreeSet<usize>>,
    pub bins: usize,
    pub legacy: bool,
    pub baseline: Option<(PathBuf, Report)>,
    pub tolerance: f64,
}

/// Reads question ids: integers separated by whitespace or commas, `#`
/// comments; each must be a question of the split.
pub fn read_ids(path: &Path, questions: usize, flag: &str) -> Result<BTreeSet<usize>, EvalError> {
    let text = sqlwitness_core::read_input_to_string(path, sqlwitness_core::input::MANIFEST_FILE)
        .map_err(|e| EvalError::BadInput(format!("{flag}: {}: {e}", path.display())))?;
    let mut ids = BTreeSet::new();
    for (lineno, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        for tok in line.split(|c: char| c.is_whitespace() || c == ',') {
            if tok.is_empty() {
                continue;
            }
            let id: usize = tok.parse().map_err(|_| {
                EvalError::BadInput(format!(
                    "{flag}: {} line {}: `{tok}` is not a question id",
                    path.display(),
                    lineno + 1
                ))
            })?;
            if id >= questions {
                return Err(EvalError::BadInput(format!(
                    "{flag}: {} line {}: id {id} is out of range (the split has {questions} questions)",
                    path.display(),
                    lineno + 1
                )));
            }
            ids.insert(id);
        }
    }
    Ok(ids)
}

/// A benchmark file's text, read within the benchmark files' limit.
fn read_benchmark_text(source: &Path) -> Result<String, EvalError> {
    sqlwitness_core::read_input_to_string(source, sqlwitness_core::input::BENCHMARK_FILE)
        .map_err(|e| EvalError::io(format!("reading {}", source.display()), e))
}

/// Ids of the entries with `"feasible": false` in a JSON array or JSONL
/// benchmark file (entry order = question id); nothing for other files.
pub fn feasible_false(source: &Path) -> Result<BTreeSet<usize>, EvalError> {
    let ext = source.extension().and_then(|e| e.to_str()).unwrap_or("");
    let mut out = BTreeSet::new();
    let flag = |v: &serde_json::Value| v.get("feasible") == Some(&serde_json::Value::Bool(false));
    match ext {
        "json" => {
            let text = read_benchmark_text(source)?;
            if let Ok(serde_json::Value::Array(items)) = serde_json::from_str(&text) {
                out.extend(
                    items
                        .iter()
                        .enumerate()
                        .filter(|(_, v)| flag(v))
                        .map(|(i, _)| i),
                );
            }
        }
        "jsonl" => {
            let text = read_benchmark_text(source)?;
            let lines = text.lines().filter(|l| !l.trim().is_empty());
            for (i, l) in lines.enumerate() {
                if serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| flag(&v)) {
                    out.insert(i);
                }
            }
        }
        _ => {}
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_pairs_name_engines_and_the_flag_wins_over_the_environment() {
        let s = Servers::from_pairs(
            &[
                "mariadb=mysql://root@127.0.0.1:3306/test".into(),
                "MySQL = mysql://root@127.0.0.1:3307/test".into(),
            ],
            &[],
        )
        .unwrap();
        assert_eq!(
            s.url(EngineKind::Mariadb),
            Some("mysql://root@127.0.0.1:3306/test")
        );
        assert_eq!(
            s.url(EngineKind::Mysql),
            Some("mysql://root@127.0.0.1:3307/test")
        );
        let err = Servers::from_pairs(&["oracle=x".into()], &[]).unwrap_err();
        assert!(
            err.is_bad_input() && err.to_string().contains("oracle"),
            "{err}"
        );
        let err = Servers::from_pairs(&[], &["postgres".into()]).unwrap_err();
        assert!(err.to_string().contains("ENGINE=URL"), "{err}");
    }

    #[test]
    fn a_server_engine_without_a_url_is_bad_input() {
        let s = Servers::default();
        assert!(s.check(&[EngineKind::REFERENCE], true).is_ok());
        let err = s.check(&[EngineKind::Mariadb], true).unwrap_err();
        assert!(err.to_string().contains("SQLWITNESS_MARIADB_URL"), "{err}");
    }
}
