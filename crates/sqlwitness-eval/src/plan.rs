//! The validated plan of an evaluation: what to run, where, and how to
//! judge it. The CLI builds it from flags; nothing here reads a flag.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use sqlwitness_bench::{Benchmark, PredictedSql, Prediction};
use sqlwitness_core::compare::CompareOptions;
use sqlwitness_core::{EngineKind, QueryLimits};
use sqlwitness_report::Report;

use sqlwitness_run::{Cancel, EvalSpec, JournalMode, Partition, RunContext, Servers};

use crate::EvalError;

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
    pub migrate_options: sqlwitness_migrate::MigrateOptions,
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
    pub journal: JournalMode,
    /// `--partition K/N`: only the questions of this part's databases.
    pub partition: Option<Partition>,
    /// What the run computes, as the journal keeps it: the plan was built
    /// from it ([`EvalPlan::from_spec`]).
    pub spec: EvalSpec,
    /// The run's cancellation token: the stages stop when it is cancelled.
    pub cancel: Cancel,
    /// How much of the report the run computes (everything unless the
    /// caller reads less).
    pub detail: Detail,
}

/// How much of the report a run computes. Every setting gives the same
/// verdicts, execution statuses and row counts, VES and summary counts; a caller that reads only
/// those (a drop-in printing an official evaluator's table) leaves out the
/// work whose results only the report's other fields show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// Everything the report holds.
    #[default]
    Full,
    /// The verdicts and what the summary counts of them, Spider's hardness
    /// of each gold included (`by_hardness`). Left out: Spider's exact
    /// match, the `tie` and `unstable` flags (unless the run is tie-aware,
    /// where ties decide `match_tie`), a lenient scorer's credit causes,
    /// each execution's `result_hash` and `sample`, and `summary.scores`.
    Verdicts,
    /// [`Detail::Verdicts`] without Spider's hardness (`by_hardness` and
    /// each question's `hardness` empty): for tables by difficulty.
    VerdictsByDifficulty,
}

impl Detail {
    /// Whether the report's every field is computed.
    pub fn full(self) -> bool {
        self == Detail::Full
    }

    /// Whether each gold's Spider hardness is read.
    pub fn hardness(self) -> bool {
        self != Detail::VerdictsByDifficulty
    }
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
        let timeout = sqlwitness_run::positive_seconds("timeout_seconds", spec.timeout_seconds)?;
        if !(spec.float_tolerance >= 0.0 && spec.float_tolerance < 1.0) {
            return Err(EvalError::bad_input(format!(
                "float_tolerance: must be in [0, 1), got {}",
                spec.float_tolerance
            )));
        }
        if spec.engines.is_empty() {
            return Err(EvalError::bad_input("engines: none given"));
        }
        if let Some(r) = spec.reference.filter(|r| !spec.engines.contains(r)) {
            return Err(EvalError::bad_input(format!(
                "reference {r}: not one of the engines"
            )));
        }
        if spec.calibration_bins == 0 {
            return Err(EvalError::bad_input("calibration_bins: must be at least 1"));
        }
        let questions = bench.questions.len();
        if let Some(id) = spec.questions.iter().find(|&&id| id >= questions) {
            return Err(EvalError::bad_input(format!(
                "question {id}: the split has {questions} questions"
            )));
        }
        bench.allow_outside_links = spec.allow_outside_links;
        let inputs = sqlwitness_run::dialect_inputs(&mut bench, &spec.files, &spec.engines)?;
        let suite = match &spec.files.suite {
            Some(dir) => Some(
                sqlwitness_fuzz::SuiteSet::open(dir)
                    .map_err(|e| EvalError::bad_input(format!("test suite: {e}")))?
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
            cancel: ctx.cancel,
            detail: Detail::Full,
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
        .map_err(|e| EvalError::bad_input(format!("{flag}: {}: {e}", path.display())))?;
    let mut ids = BTreeSet::new();
    for (lineno, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        for tok in line.split(|c: char| c.is_whitespace() || c == ',') {
            if tok.is_empty() {
                continue;
            }
            let id: usize = tok.parse().map_err(|_| {
                EvalError::bad_input(format!(
                    "{flag}: {} line {}: `{tok}` is not a question id",
                    path.display(),
                    lineno + 1
                ))
            })?;
            if id >= questions {
                return Err(EvalError::bad_input(format!(
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
