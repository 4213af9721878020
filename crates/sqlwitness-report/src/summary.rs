//! Per-engine counts computed from the per-question verdicts.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::{QuestionReport, Verdict};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of questions in the split.
    pub questions: usize,
    /// Keyed by engine name.
    pub engines: BTreeMap<String, EngineSummary>,
    /// Accuracy variants, consistency, TrustSQL RS(c), calibration and
    /// dialect features (`docs/report-format.md`); computed by the CLI,
    /// absent in reports that predate them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scores: Option<sqlwitness_score::Scores>,
}

/// The names every output uses for an engine's accuracy, each with one
/// definition (`docs/report-format.md`, "Accuracy: the names"): terminal,
/// summary.md, report.json, report.html and junit.xml show the same three
/// numbers.
pub const EX_DEFINITIONS: &str = "EX = match / questions with a database on the engine (a gold error counts as not matching); \
EX (scorable) = match / questions the engine can score (gold errors and missing databases left out); \
tie-aware EX = correct by the tie-aware reading / questions with a database (the baseline gate's)";

impl Summary {
    /// `EX (scorable)` of `engine`: from the scores where the report has
    /// them, else from the counts (`match / (questions − missing_db −
    /// engine_error − gold_error)`).
    pub fn ex_scorable(&self, engine: &str) -> Option<f64> {
        if let Some(a) = self.scores.as_ref().and_then(|s| s.accuracy.get(engine)) {
            return Some(a.accuracy);
        }
        let s = self.engines.get(engine)?;
        let scorable = s.questions - s.missing_db - s.engine_error - s.gold_error;
        Some(if scorable == 0 {
            0.0
        } else {
            s.matched as f64 / scorable as f64
        })
    }
}

/// Counts for one engine. Every question lands in exactly one of `match`,
/// `mismatch`, `gold_error`, `pred_error`, `abstained`, `missing_db`,
/// `timeout`, `match_tie`, `engine_error`, so they add up to `questions`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EngineSummary {
    pub questions: usize,
    #[serde(rename = "match")]
    pub matched: usize,
    pub mismatch: usize,
    pub gold_error: usize,
    pub pred_error: usize,
    pub abstained: usize,
    pub missing_db: usize,
    pub timeout: usize,
    /// Questions the engine could not run (server unreachable or gone even
    /// after retries): not the model's fault, left out of every accuracy.
    #[serde(default)]
    pub engine_error: usize,
    /// Execution accuracy: `match / (questions - missing_db -
    /// engine_error)`; 0 when no question is left.
    pub ex: f64,
    /// `eval --ties aware`: questions whose prediction is one of the gold's
    /// valid answers under ties (not counted in `match`).
    #[serde(default)]
    pub match_tie: usize,
    /// `--ties strict`: mismatches that are one of the gold's answers under
    /// ties (counted in `mismatch`; `match_tie` with `--ties aware`).
    #[serde(default)]
    pub mismatch_tie: usize,
    /// Matches that were luck: the prediction's own `LIMIT` cuts through
    /// ties and it may return answers that are not the gold's (counted in
    /// `match`, not in tie-aware EX).
    #[serde(default)]
    pub match_unstable: usize,
    /// Correct by the tie-aware reading (`EngineOutcome::passes_tie_aware`).
    #[serde(default)]
    pub tie_aware_correct: usize,
    /// Tie-aware accuracy: `tie_aware_correct / (questions - missing_db -
    /// engine_error)`: a prediction counts when every answer it may return
    /// is one the gold may return — whichever tied rows the engines
    /// returned in this run and whatever `--ties` says (the baseline
    /// gate's accuracy).
    #[serde(default)]
    pub ex_tie_aware: f64,
    /// Gold errors by error class (`{"undefined_column": 211, …}`).
    pub gold_error_classes: BTreeMap<String, usize>,
    /// Prediction errors by error class.
    pub pred_error_classes: BTreeMap<String, usize>,
    /// `eval --suite` only: questions that match on the original database
    /// and on every instance of its test suite (a database without a suite
    /// has the original alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite_match: Option<usize>,
    /// Test-suite accuracy: `suite_match / (questions - missing_db -
    /// engine_error)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite_ex: Option<f64>,
    /// Mean Soft F1 (BIRD mini-dev) over the questions with a database;
    /// a question without a value (gold error) counts 0.
    #[serde(default)]
    pub soft_f1: f64,
    /// Questions, matches, EX and Soft F1 by Spider hardness (`easy`,
    /// `medium`, `hard`, `extra`, and `all`); absent when no gold has a
    /// hardness.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub by_hardness: BTreeMap<String, crate::LevelSummary>,
    /// The same by BIRD difficulty (`simple`, `moderate`, `challenging`,
    /// and `total`); absent when no question has a difficulty.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub by_difficulty: BTreeMap<String, crate::LevelSummary>,
    /// `eval --ves-runs N`: BIRD's VES and mini-dev's R-VES of the correct
    /// predictions, their spread across runs and by difficulty (absent
    /// without timed runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ves: Option<crate::VesSummary>,
    /// `eval --reference`: the prediction against the reference gold's
    /// answer (absent on the reference engine itself and without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<ReferenceSummary>,
}

/// Counts of the reference judgment on one engine.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReferenceSummary {
    /// Questions judged (the reference gold ran).
    pub scored: usize,
    /// Predictions that answer as the reference gold (`match` + `match_tie`).
    pub correct: usize,
    /// `correct / scored`: the model's accuracy against the reference,
    /// whatever the dialect gold does.
    pub ex: f64,
    /// Questions where this engine's own gold fails or answers otherwise
    /// than the reference: the dialect gold's or the migration's fault.
    pub gold_disagrees: usize,
    /// `gold_disagrees` by mechanism (`gold_error` when it failed).
    pub gold_mechanisms: BTreeMap<String, usize>,
}

/// Computes the summary of a run from its questions.
pub fn summarize(questions: &[QuestionReport]) -> Summary {
    let mut engines: BTreeMap<String, EngineSummary> = BTreeMap::new();
    for q in questions {
        for (engine, outcome) in &q.engines {
            let s = engines.entry(engine.clone()).or_default();
            s.questions += 1;
            s.tie_aware_correct += usize::from(outcome.passes_tie_aware());
            s.match_unstable += usize::from(outcome.verdict == Verdict::Match && outcome.unstable);
            match outcome.verdict {
                Verdict::Match => s.matched += 1,
                Verdict::Mismatch => {
                    s.mismatch += 1;
                    s.mismatch_tie += usize::from(outcome.tie);
                }
                Verdict::GoldError => {
                    s.gold_error += 1;
                    let class = outcome
                        .gold
                        .as_ref()
                        .and_then(|g| g.error_class)
                        .map(|c| c.as_str())
                        .unwrap_or("other");
                    *s.gold_error_classes.entry(class.to_string()).or_default() += 1;
                }
                Verdict::PredError => {
                    s.pred_error += 1;
                    let class = outcome
                        .pred
                        .as_ref()
                        .and_then(|p| p.error_class)
                        .map(|c| c.as_str())
                        .unwrap_or("other");
                    *s.pred_error_classes.entry(class.to_string()).or_default() += 1;
                }
                Verdict::Abstained => s.abstained += 1,
                Verdict::MissingDb => s.missing_db += 1,
                Verdict::Timeout => s.timeout += 1,
                Verdict::MatchTie => s.match_tie += 1,
                Verdict::EngineError => s.engine_error += 1,
            }
        }
    }
    for q in questions {
        for (engine, outcome) in &q.engines {
            if let (Some(r), Some(s)) = (&outcome.reference, engines.get_mut(engine)) {
                let rs = s.reference.get_or_insert_with(ReferenceSummary::default);
                if !matches!(r.verdict, Verdict::EngineError | Verdict::GoldError) {
                    rs.scored += 1;
                }
                if matches!(r.verdict, Verdict::Match | Verdict::MatchTie) {
                    rs.correct += 1;
                }
                if r.gold_agrees == Some(false) || outcome.verdict == Verdict::GoldError {
                    rs.gold_disagrees += 1;
                    let m = if outcome.verdict == Verdict::GoldError {
                        "gold_error"
                    } else {
                        r.gold_mechanism.as_deref().unwrap_or("other")
                    };
                    *rs.gold_mechanisms.entry(m.to_string()).or_default() += 1;
                }
            }
        }
    }
    for s in engines.values_mut() {
        if let Some(r) = &mut s.reference {
            r.ex = if r.scored == 0 {
                0.0
            } else {
                r.correct as f64 / r.scored as f64
            };
        }
    }
    // A question whose database has no suite is judged on the original
    // alone (its suite is the original database): a match passes, as the
    // official test-suite evaluator passes it and as the scores count it.
    for q in questions {
        for (engine, outcome) in &q.engines {
            if outcome.suite.is_some() {
                if let Some(s) = engines.get_mut(engine) {
                    s.suite_match.get_or_insert(0);
                }
            }
        }
    }
    for q in questions {
        for (engine, outcome) in &q.engines {
            if let Some(n) = engines.get_mut(engine).and_then(|s| s.suite_match.as_mut()) {
                if outcome.verdict == Verdict::Match
                    && outcome.suite.as_ref().is_none_or(|suite| suite.passed)
                {
                    *n += 1;
                }
            }
        }
    }
    for s in engines.values_mut() {
        let with_db = s.questions - s.missing_db - s.engine_error;
        s.suite_ex = s.suite_match.map(|m| {
            if with_db == 0 {
                0.0
            } else {
                m as f64 / with_db as f64
            }
        });
        s.ex = if with_db == 0 {
            0.0
        } else {
            s.matched as f64 / with_db as f64
        };
        s.ex_tie_aware = if with_db == 0 {
            0.0
        } else {
            s.tie_aware_correct as f64 / with_db as f64
        };
    }
    for (engine, s) in engines.iter_mut() {
        s.by_hardness = crate::levels::by_level(
            questions,
            engine,
            |q| q.hardness.as_deref(),
            crate::HARDNESS_ALL,
        );
        s.by_difficulty = crate::levels::by_level(
            questions,
            engine,
            |q| q.difficulty.as_deref(),
            crate::DIFFICULTY_ALL,
        );
        let with_db = s.questions - s.missing_db - s.engine_error;
        let total: f64 = questions
            .iter()
            .filter_map(|q| q.engines.get(engine))
            .filter(|o| !matches!(o.verdict, Verdict::MissingDb | Verdict::EngineError))
            .map(|o| o.soft_f1.unwrap_or(0.0))
            .sum();
        s.ves = crate::ves::summarize_ves(questions, engine);
        s.soft_f1 = if with_db == 0 {
            0.0
        } else {
            total / with_db as f64
        };
    }
    Summary {
        questions: questions.len(),
        engines,
        scores: None,
    }
}
