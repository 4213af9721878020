//! Per-engine counts computed from the per-question verdicts.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::{EngineOutcome, Execution, QuestionReport, ReferenceOutcome, Verdict};

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
            count_verdict(s, outcome);
            if let Some(r) = &outcome.reference {
                let rs = s.reference.get_or_insert_with(ReferenceSummary::default);
                count_reference(rs, r, outcome.verdict);
            }
        }
    }
    for (engine, s) in engines.iter_mut() {
        s.suite_match = suite_match(questions, engine);
        set_rates(s);
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
        s.ves = crate::ves::summarize_ves(questions, engine);
        s.soft_f1 = mean_soft_f1(questions, engine, with_db(s));
    }
    Summary {
        questions: questions.len(),
        engines,
        scores: None,
    }
}

/// Counts one outcome's verdict (and, for an error, its class).
fn count_verdict(s: &mut EngineSummary, outcome: &EngineOutcome) {
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
            let class = error_class(outcome.gold.as_ref());
            *s.gold_error_classes.entry(class.to_string()).or_default() += 1;
        }
        Verdict::PredError => {
            s.pred_error += 1;
            let class = error_class(outcome.pred.as_ref());
            *s.pred_error_classes.entry(class.to_string()).or_default() += 1;
        }
        Verdict::Abstained => s.abstained += 1,
        Verdict::MissingDb => s.missing_db += 1,
        Verdict::Timeout => s.timeout += 1,
        Verdict::MatchTie => s.match_tie += 1,
        Verdict::EngineError => s.engine_error += 1,
    }
}

/// The error class of a failed execution, `other` when it has none.
fn error_class(exec: Option<&Execution>) -> &'static str {
    exec.and_then(|e| e.error_class)
        .map(|c| c.as_str())
        .unwrap_or("other")
}

/// Counts one reference judgment: scored unless the reference could not
/// judge, correct when it matched, and the engine's own gold disagreeing
/// (failing, or answering otherwise) by mechanism.
fn count_reference(rs: &mut ReferenceSummary, r: &ReferenceOutcome, verdict: Verdict) {
    if !matches!(r.verdict, Verdict::EngineError | Verdict::GoldError) {
        rs.scored += 1;
    }
    if matches!(r.verdict, Verdict::Match | Verdict::MatchTie) {
        rs.correct += 1;
    }
    if r.gold_agrees == Some(false) || verdict == Verdict::GoldError {
        rs.gold_disagrees += 1;
        let m = if verdict == Verdict::GoldError {
            "gold_error"
        } else {
            r.gold_mechanism.as_deref().unwrap_or("other")
        };
        *rs.gold_mechanisms.entry(m.to_string()).or_default() += 1;
    }
}

/// `eval --suite`: the matches on `engine` that pass their suite, or
/// `None` when no outcome there has a suite. A question whose database has
/// no suite is judged on the original alone (its suite is the original
/// database): a match passes, as the official test-suite evaluator passes
/// it and as the scores count it.
fn suite_match(questions: &[QuestionReport], engine: &str) -> Option<usize> {
    let outcomes = || questions.iter().filter_map(|q| q.engines.get(engine));
    if !outcomes().any(|o| o.suite.is_some()) {
        return None;
    }
    Some(
        outcomes()
            .filter(|o| {
                o.verdict == Verdict::Match && o.suite.as_ref().is_none_or(|suite| suite.passed)
            })
            .count(),
    )
}

/// The questions with a database on the engine: the denominator of EX.
fn with_db(s: &EngineSummary) -> usize {
    s.questions - s.missing_db - s.engine_error
}

/// `n / of`, 0 when `of` is 0.
fn ratio(n: usize, of: usize) -> f64 {
    if of == 0 {
        0.0
    } else {
        n as f64 / of as f64
    }
}

/// The accuracies from the counts: EX, tie-aware EX, suite EX and EX
/// against the reference.
fn set_rates(s: &mut EngineSummary) {
    if let Some(r) = &mut s.reference {
        r.ex = ratio(r.correct, r.scored);
    }
    let with_db = with_db(s);
    s.suite_ex = s.suite_match.map(|m| ratio(m, with_db));
    s.ex = ratio(s.matched, with_db);
    s.ex_tie_aware = ratio(s.tie_aware_correct, with_db);
}

/// Mean Soft F1 over the `with_db` questions with a database; a question
/// without a value counts 0.
fn mean_soft_f1(questions: &[QuestionReport], engine: &str, with_db: usize) -> f64 {
    let total: f64 = questions
        .iter()
        .filter_map(|q| q.engines.get(engine))
        .filter(|o| !matches!(o.verdict, Verdict::MissingDb | Verdict::EngineError))
        .map(|o| o.soft_f1.unwrap_or(0.0))
        .sum();
    if with_db == 0 {
        0.0
    } else {
        total / with_db as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{failed, ok, outcome, question};
    use crate::SuiteOutcome;
    use sqlwitness_core::ErrorClass;

    #[test]
    fn count_verdict_counts_one_bucket_and_error_classes() {
        let mut s = EngineSummary::default();
        let mut tie = outcome(Verdict::Mismatch, None, None);
        tie.tie = true;
        let mut lucky = outcome(Verdict::Match, None, None);
        lucky.unstable = true;
        let syntax = failed(ErrorClass::Syntax, "1", "bad", 1.0);
        for o in [
            tie,
            lucky,
            outcome(Verdict::Match, None, None),
            outcome(Verdict::PredError, None, Some(syntax.clone())),
            outcome(Verdict::PredError, Some(syntax), None),
            outcome(Verdict::GoldError, None, None),
        ] {
            count_verdict(&mut s, &o);
        }
        assert_eq!(s.questions, 6);
        assert_eq!((s.matched, s.mismatch, s.mismatch_tie), (2, 1, 1));
        assert_eq!((s.match_unstable, s.tie_aware_correct), (1, 2));
        assert_eq!(
            s.pred_error_classes,
            [("other".to_string(), 1), ("syntax".to_string(), 1)].into()
        );
        assert_eq!(s.gold_error_classes, [("other".to_string(), 1)].into());
    }

    #[test]
    fn count_reference_names_why_the_gold_disagrees() {
        let judged = |verdict, gold_agrees, mechanism: Option<&str>| ReferenceOutcome {
            engine: "sqlite".into(),
            verdict,
            gold_agrees,
            gold_mechanism: mechanism.map(Into::into),
        };
        let mut rs = ReferenceSummary::default();
        count_reference(
            &mut rs,
            &judged(Verdict::Match, Some(true), None),
            Verdict::Match,
        );
        count_reference(
            &mut rs,
            &judged(Verdict::MatchTie, Some(false), Some("collation")),
            Verdict::Mismatch,
        );
        count_reference(
            &mut rs,
            &judged(Verdict::Mismatch, Some(false), None),
            Verdict::Mismatch,
        );
        count_reference(
            &mut rs,
            &judged(Verdict::EngineError, None, None),
            Verdict::GoldError,
        );
        assert_eq!((rs.scored, rs.correct, rs.gold_disagrees), (3, 2, 3));
        assert_eq!(
            rs.gold_mechanisms,
            [
                ("collation".to_string(), 1),
                ("gold_error".to_string(), 1),
                ("other".to_string(), 1)
            ]
            .into()
        );
    }

    /// Without any suite there is no suite count; with one, a match on a
    /// database without a suite passes and a match failing its suite
    /// does not.
    #[test]
    fn suite_match_counts_matches_that_pass_their_suite() {
        let suite = |passed| SuiteOutcome {
            passed,
            instances: 2,
            checked: 2,
            failed_instance: None,
            reason: None,
            witness: None,
        };
        let on = |o| question(0, "db", "q", "SELECT 1", None, vec![("sqlite", o)]);
        let matched = || outcome(Verdict::Match, Some(ok(&[], 1.0)), Some(ok(&[], 1.0)));
        let mut failing = matched();
        failing.suite = Some(suite(false));
        let mut passing = matched();
        passing.suite = Some(suite(true));
        let mut mismatch = outcome(Verdict::Mismatch, None, None);
        mismatch.suite = Some(suite(true));
        assert_eq!(suite_match(&[on(matched())], "sqlite"), None);
        let questions = [on(matched()), on(failing), on(passing), on(mismatch)];
        assert_eq!(suite_match(&questions, "sqlite"), Some(2));
        assert_eq!(suite_match(&questions, "postgres"), None);
    }

    #[test]
    fn rates_leave_out_missing_databases_and_engine_errors() {
        let mut s = EngineSummary {
            questions: 6,
            matched: 2,
            missing_db: 1,
            engine_error: 1,
            tie_aware_correct: 3,
            suite_match: Some(1),
            reference: Some(ReferenceSummary {
                scored: 0,
                ..Default::default()
            }),
            ..Default::default()
        };
        set_rates(&mut s);
        assert_eq!((s.ex, s.ex_tie_aware, s.suite_ex), (0.5, 0.75, Some(0.25)));
        assert_eq!(s.reference.unwrap().ex, 0.0);
        assert_eq!(ratio(0, 0), 0.0);
    }
}
