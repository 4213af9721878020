//! `summary.scores`: the inputs the score crate needs, gathered from the
//! plan (feasibility, confidences, samples, the calibration split) and the
//! per-question verdicts.

use anyhow::{bail, Context, Result};
use clap::Args;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use sqlwitness_bench::Benchmark;
use sqlwitness_core::compare::{compare, CompareMode, CompareOptions};
use sqlwitness_core::{EngineKind, ResultSet};
use sqlwitness_report::{read_report, LegacyVerdicts, QuestionReport, Report};
use sqlwitness_score::{compute_scores, QuestionInput, ScoreOptions, Scores};
use sqlwitness_sql::Support;

use crate::exit::BadInput;
use crate::plan::EvalPlan;

#[derive(Debug, Args)]
pub struct ScoringArgs {
    /// Infeasible questions (TrustSQL): a file of 0-based question ids,
    /// separated by whitespace or commas (`#` starts a comment). Questions
    /// with `"feasible": false` in the benchmark file are infeasible too.
    #[arg(long, value_name = "IDS_FILE")]
    pub infeasible: Option<PathBuf>,
    /// Calibration split for Platt scaling: a file of question ids; the
    /// other questions form the test split.
    #[arg(long, value_name = "IDS_FILE")]
    pub calibrate_on: Option<PathBuf>,
    /// Bins of ECE, ACE and the reliability diagrams.
    #[arg(long, default_value_t = sqlwitness_score::DEFAULT_BINS)]
    pub calibration_bins: usize,
    /// Also record the official Spider and BIRD evaluators' verdicts on the
    /// same rows (strict runs only; queries whose Spider preprocessing
    /// removes a DISTINCT run once more), with the mechanism of each
    /// disagreement in `summary.scores.legacy`.
    #[arg(long)]
    pub legacy: bool,
    /// After writing the report, compare it with this report.json and exit
    /// with code 4 on a regression (see --tolerance).
    #[arg(long, value_name = "REPORT")]
    pub baseline: Option<PathBuf>,
    /// With --baseline: the EX drop per engine, and the share of questions
    /// that may newly fail, tolerated before exiting with 4.
    #[arg(long, default_value_t = 0.0)]
    pub tolerance: f64,
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

impl ScoringPlan {
    pub fn from_args(a: ScoringArgs, bench: &Benchmark) -> Result<ScoringPlan> {
        let n = bench.questions.len();
        let mut infeasible = feasible_false(&bench.source_file)?;
        if let Some(p) = &a.infeasible {
            infeasible.extend(read_ids(p, n, "--infeasible")?);
        }
        let calibrate_on = match &a.calibrate_on {
            Some(p) => Some(read_ids(p, n, "--calibrate-on")?),
            None => None,
        };
        if a.calibration_bins == 0 {
            bail!(BadInput("--calibration-bins: must be at least 1".into()));
        }
        crate::diff::check_tolerance(a.tolerance)?;
        let baseline = match a.baseline {
            Some(p) => {
                let r = read_report(&p).map_err(|e| BadInput(format!("--baseline: {e}")))?;
                Some((p, r))
            }
            None => None,
        };
        Ok(ScoringPlan {
            infeasible,
            calibrate_on,
            bins: a.calibration_bins,
            legacy: a.legacy,
            baseline,
            tolerance: a.tolerance,
        })
    }
}

/// Reads question ids: integers separated by whitespace or commas, `#`
/// comments; each must be a question of the split.
pub fn read_ids(path: &Path, questions: usize, flag: &str) -> Result<BTreeSet<usize>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| BadInput(format!("{flag}: {}: {e}", path.display())))?;
    let mut ids = BTreeSet::new();
    for (lineno, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        for tok in line.split(|c: char| c.is_whitespace() || c == ',') {
            if tok.is_empty() {
                continue;
            }
            let id: usize = tok.parse().map_err(|_| {
                BadInput(format!(
                    "{flag}: {} line {}: `{tok}` is not a question id",
                    path.display(),
                    lineno + 1
                ))
            })?;
            if id >= questions {
                bail!(BadInput(format!(
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

/// Ids of the entries with `"feasible": false` in a JSON array or JSONL
/// benchmark file (entry order = question id); nothing for other files.
fn feasible_false(source: &Path) -> Result<BTreeSet<usize>> {
    let ext = source.extension().and_then(|e| e.to_str()).unwrap_or("");
    let mut out = BTreeSet::new();
    let flag = |v: &serde_json::Value| v.get("feasible") == Some(&serde_json::Value::Bool(false));
    match ext {
        "json" => {
            let text = std::fs::read_to_string(source)
                .with_context(|| format!("reading {}", source.display()))?;
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
            let text = std::fs::read_to_string(source)
                .with_context(|| format!("reading {}", source.display()))?;
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

/// Every score of the run.
pub fn compute(plan: &EvalPlan, questions: &[QuestionReport]) -> Scores {
    let s = &plan.scoring;
    let inputs: Vec<QuestionInput> = questions
        .iter()
        .map(|q| {
            let pred = plan
                .predictions
                .as_ref()
                .and_then(|p| p.get(q.id))
                .and_then(|p| p.as_ref());
            let features = |sql: &str| -> BTreeSet<String> {
                sqlwitness_sql::dialect_features(sql)
                    .unwrap_or_default()
                    .into_iter()
                    .map(String::from)
                    .collect()
            };
            let gold_features = features(&q.gold_sql);
            let pred_features = match (&plan.predictions, &q.pred_sql) {
                (None, _) => gold_features.clone(),
                (Some(_), Some(sql)) => features(sql),
                (Some(_), None) => BTreeSet::new(),
            };
            QuestionInput {
                id: q.id,
                abstained: plan.predictions.is_some() && q.pred_sql.is_none(),
                feasible: !s.infeasible.contains(&q.id),
                verdicts: q.verdicts(),
                confidence: pred.and_then(|p| p.confidence),
                scf: match (pred, &q.pred_sql) {
                    (Some(p), Some(sql)) => scf(sql, &p.samples),
                    _ => None,
                },
                calibration: s.calibrate_on.as_ref().is_some_and(|c| c.contains(&q.id)),
                legacy: q.legacy_inputs(),
                suite_passed: q.suite_passed(),
                gold_features,
                pred_features,
            }
        })
        .collect();
    compute_scores(
        &inputs,
        &ScoreOptions {
            bins: s.bins,
            unsupported: unsupported(),
            ..ScoreOptions::default()
        },
    )
}

/// `eval --legacy`: the Spider and BIRD evaluators' verdicts for a
/// question whose gold and prediction both ran (strict mode only).
/// BIRD compares the same rows as sets. Spider applies the official
/// evaluator's text preprocessing (`postprocess`, then `remove_distinct`);
/// when that changes a query it is run again through `rerun` (identifier
/// resolution and the guard as usual); a rerun that fails is a mismatch.
pub fn legacy_verdicts(
    plan: &EvalPlan,
    gold: &str,
    pred: &str,
    gold_rows: &ResultSet,
    pred_rows: &ResultSet,
    mut rerun: impl FnMut(&str) -> Option<ResultSet>,
) -> Option<LegacyVerdicts> {
    if !plan.scoring.legacy || plan.compare.mode != CompareMode::Strict {
        return None;
    }
    let bird = compare(
        gold_rows,
        pred_rows,
        &CompareOptions::new(CompareMode::Bird),
    )
    .equal;
    let post = |s: &str| sqlwitness_sql::spider_postprocess(s);
    let spider_sql = |s: &str| sqlwitness_sql::spider_remove_distinct(&post(s));
    let (g, p) = (spider_sql(gold), spider_sql(pred));
    let distinct_removed = g != post(gold) || p != post(pred);
    let rows = |orig: &str,
                new: &str,
                have: &ResultSet,
                rerun: &mut dyn FnMut(&str) -> Option<ResultSet>| {
        if new == orig {
            Some(have.clone())
        } else {
            rerun(new)
        }
    };
    let spider_ordered = sqlwitness_sql::spider_order_matters(&g);
    let spider = match (
        rows(gold, &g, gold_rows, &mut rerun),
        rows(pred, &p, pred_rows, &mut rerun),
    ) {
        (Some(gr), Some(pr)) => {
            compare(
                &gr,
                &pr,
                &CompareOptions::new(CompareMode::Spider).ordered(spider_ordered),
            )
            .equal
        }
        _ => false,
    };
    Some(LegacyVerdicts {
        spider,
        spider_ordered,
        distinct_removed,
        bird,
    })
}

/// Sub-clause frequencies of `primary` among `samples` (seed 002 §4.3);
/// `None` without samples. A primary that does not parse matches nothing.
fn scf(primary: &str, samples: &[String]) -> Option<Vec<f64>> {
    if samples.is_empty() {
        return None;
    }
    let matches: Vec<Vec<bool>> = match sqlwitness_sql::query_clauses(primary) {
        Some(p) => samples
            .iter()
            .map(|x| {
                sqlwitness_sql::q_match(&p, sqlwitness_sql::query_clauses(x).as_ref()).to_vec()
            })
            .collect(),
        None => vec![vec![false; sqlwitness_sql::QMATCH_SIGNALS]; samples.len()],
    };
    sqlwitness_score::scf_signals(&matches)
}

/// Per feature, the engines that do not run it as written.
fn unsupported() -> BTreeMap<String, Vec<String>> {
    sqlwitness_sql::feature_table()
        .iter()
        .map(|f| {
            let engines = EngineKind::ALL
                .iter()
                .filter_map(|k| match f.support_on(sqlwitness_dialect::shipped(*k)) {
                    Support::Yes => None,
                    Support::No => Some(k.as_str().to_string()),
                    Support::Differs => Some(format!("{} (differs)", k.as_str())),
                })
                .collect();
            (f.name.to_string(), engines)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feasible_false_in_json_and_jsonl() {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("dev.json");
        std::fs::write(
            &json,
            r#"[{"query": "a"}, {"query": "b", "feasible": false}, {"query": "c", "feasible": true}]"#,
        )
        .unwrap();
        assert_eq!(feasible_false(&json).unwrap(), BTreeSet::from([1]));
        let jsonl = dir.path().join("dev.jsonl");
        std::fs::write(
            &jsonl,
            "{\"gold\": \"a\", \"feasible\": false}\n\n{\"gold\": \"b\"}\n{\"gold\": \"c\", \"feasible\": false}\n",
        )
        .unwrap();
        assert_eq!(feasible_false(&jsonl).unwrap(), BTreeSet::from([0, 2]));
        assert!(feasible_false(&dir.path().join("dev_gold.sql"))
            .unwrap()
            .is_empty());
    }

    #[test]
    fn ids_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("ids");
        std::fs::write(&p, "# comment\n3, 5\n  7 # trailing\n\n3\n").unwrap();
        assert_eq!(read_ids(&p, 10, "--x").unwrap(), BTreeSet::from([3, 5, 7]));
        let err = read_ids(&p, 6, "--x").unwrap_err().to_string();
        assert!(
            err.contains("id 7 is out of range") && err.contains("line 3"),
            "{err}"
        );
        assert!(read_ids(&dir.path().join("nope"), 6, "--x").is_err());
    }

    #[test]
    fn scf_of_samples() {
        let s = scf(
            "SELECT a FROM t WHERE b = 1",
            &[
                "SELECT a FROM t WHERE b = 1".into(),
                "SELECT a FROM t WHERE b = 2".into(),
            ],
        )
        .unwrap();
        assert_eq!(s.len(), sqlwitness_score::SCF_SIGNALS);
        assert_eq!(s[5], 0.5, "WHERE of sub-query 1 in half the samples");
        assert_eq!(s[2], 1.0);
        assert!(scf("SELECT 1", &[]).is_none());
        // A primary that does not parse matches nothing.
        assert_eq!(scf("SELEC", &["SELECT 1".into()]).unwrap()[0], 0.0);
    }
}
