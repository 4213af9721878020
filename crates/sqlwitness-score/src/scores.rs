//! Every score of one run, as `summary.scores` of `report.json`.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

use sqlwitness_core::Verdict;

use crate::features::FeatureItem;
use crate::{
    accuracy, accuracy_by_feature, across_engines, calibration_metrics, consistency, fit_platt,
    legacy_summary, logit, rs_table, Accuracy, AcrossEngines, Breakdown, CalibrationMetrics,
    Consistency, FeatureStats, LegacyInput, LegacySummary, Outcome, RsItem, DEFAULT_BINS,
    SCF_NAMES,
};

/// One question of a run, as the scores need it.
#[derive(Debug, Clone, Default)]
pub struct QuestionInput {
    pub id: usize,
    /// The model abstained. Needed apart from the verdicts because a
    /// verdict of higher precedence (`gold_error`, `missing_db`) hides an
    /// abstention, and for an infeasible question only the abstention
    /// counts (TrustSQL cases IV and V need no gold).
    pub abstained: bool,
    /// `false` for a question marked infeasible (TrustSQL's `Qᶜ`).
    pub feasible: bool,
    /// The verdict per engine.
    pub verdicts: BTreeMap<String, Verdict>,
    /// The model's confidence in its prediction, in `[0, 1]`.
    pub confidence: Option<f64>,
    /// The 20 sub-clause-frequency signals, when the prediction has samples.
    pub scf: Option<Vec<f64>>,
    /// Part of the calibration split (`--calibrate-on`); the rest is the
    /// test split.
    pub calibration: bool,
    /// `eval --legacy`: per engine, the Spider and BIRD verdicts.
    pub legacy: BTreeMap<String, LegacyInput>,
    /// `eval --suite`: per engine, whether the prediction also passed the
    /// test suite (absent where no suite verdict exists).
    pub suite_passed: BTreeMap<String, bool>,
    pub gold_features: BTreeSet<String>,
    pub pred_features: BTreeSet<String>,
}

#[derive(Debug, Clone)]
pub struct ScoreOptions {
    /// Bins of ECE/ACE and of the reliability diagram.
    pub bins: usize,
    /// L2 penalty of the Platt fit on the non-intercept weights.
    pub l2: f64,
    /// Per dialect feature, the engines that do not support it as written.
    pub unsupported: BTreeMap<String, Vec<String>>,
}

impl Default for ScoreOptions {
    fn default() -> Self {
        ScoreOptions {
            bins: DEFAULT_BINS,
            l2: 1e-2,
            unsupported: BTreeMap::new(),
        }
    }
}

/// `summary.scores`. RS values and accuracies are fractions, not percent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    /// Strict execution accuracy per engine over the questions it can
    /// score (feasible ones): only `match` is correct.
    pub accuracy: BTreeMap<String, Accuracy>,
    /// Tie-aware accuracy: `match_tie` counts as correct too. Present (for
    /// every engine) when some verdict is `match_tie` (`eval --ties aware`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub accuracy_tie_aware: BTreeMap<String, Accuracy>,
    /// Test-suite accuracy: a `match` counts only when the prediction also
    /// passed the suite. Present with `eval --suite`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub accuracy_suite: BTreeMap<String, Accuracy>,
    pub across_engines: AcrossEngines,
    pub consistency: Consistency,
    /// Questions marked infeasible.
    pub infeasible: usize,
    /// TrustSQL RS(c) per engine, keyed `"0"`, `"10"`, `"N"`.
    pub rs: BTreeMap<String, BTreeMap<String, f64>>,
    /// `eval --legacy`: the Spider and BIRD evaluators' accuracy per engine,
    /// where they disagree with strict, and why.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub legacy: BTreeMap<String, LegacySummary>,
    /// The five cases of RS per engine.
    pub rs_breakdown: BTreeMap<String, Breakdown>,
    /// Per engine, when predictions carry confidences or samples.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub calibration: BTreeMap<String, EngineCalibration>,
    /// Per dialect feature used by a gold or a prediction.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub dialect_features: BTreeMap<String, FeatureStats>,
}

/// Calibration on one engine, over the feasible, answered, scorable
/// predictions (label: the verdict is `match`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EngineCalibration {
    /// The raw confidences, on every such prediction that has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<CalibrationMetrics>,
    /// (Multivariate) Platt scaling fitted on the calibration split.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platt: Option<PlattReport>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlattReport {
    /// Signal names: `logit(confidence)` and/or the 20 SCF signals.
    pub signals: Vec<String>,
    /// `w0` (intercept) then one weight a signal.
    pub weights: Vec<f64>,
    pub calibration_n: usize,
    pub test_n: usize,
    /// Raw confidences on the test split (when there are confidences).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<CalibrationMetrics>,
    /// Platt-scaled scores on the test split.
    pub after: CalibrationMetrics,
}

pub fn compute_scores(inputs: &[QuestionInput], opts: &ScoreOptions) -> Scores {
    let outcomes: Vec<BTreeMap<String, Outcome>> = inputs
        .iter()
        .map(|q| {
            q.verdicts
                .iter()
                .map(|(e, v)| (e.clone(), Outcome::from_verdict(*v)))
                .collect()
        })
        .collect();
    let engines: BTreeSet<&String> = inputs.iter().flat_map(|q| q.verdicts.keys()).collect();
    let mut s = Scores {
        infeasible: inputs.iter().filter(|q| !q.feasible).count(),
        across_engines: across_engines(
            inputs
                .iter()
                .zip(&outcomes)
                .filter(|(q, _)| q.feasible)
                .map(|(_, o)| o),
        ),
        consistency: consistency(inputs.iter().map(|q| (q.id, &q.verdicts))),
        ..Scores::default()
    };
    let any_tie = inputs
        .iter()
        .any(|q| q.verdicts.values().any(|v| *v == Verdict::MatchTie));
    for engine in engines {
        let on = |q: usize| outcomes[q].get(engine).copied();
        let feasible = || (0..inputs.len()).filter(|&i| inputs[i].feasible);
        let strict = |i: usize| {
            on(i).map(|o| match inputs[i].verdicts.get(engine) {
                Some(Verdict::MatchTie) => Outcome::Incorrect,
                _ => o,
            })
        };
        s.accuracy
            .insert(engine.clone(), accuracy(feasible().filter_map(strict)));
        if any_tie {
            s.accuracy_tie_aware
                .insert(engine.clone(), accuracy(feasible().filter_map(on)));
        }
        if inputs.iter().any(|q| q.legacy.contains_key(engine)) {
            s.legacy.insert(
                engine.clone(),
                legacy_summary(feasible().filter_map(|i| {
                    strict(i).map(|o| (inputs[i].id, o, inputs[i].legacy.get(engine)))
                })),
            );
        }
        if inputs.iter().any(|q| q.suite_passed.contains_key(engine)) {
            let suite = |i: usize| {
                strict(i).map(|o| match (o, inputs[i].suite_passed.get(engine)) {
                    (Outcome::Correct, Some(false)) => Outcome::Incorrect,
                    (o, _) => o,
                })
            };
            s.accuracy_suite
                .insert(engine.clone(), accuracy(feasible().filter_map(suite)));
        }
        let b = Breakdown::from_items((0..inputs.len()).filter_map(|i| {
            let q = &inputs[i];
            on(i).map(|outcome| RsItem {
                feasible: q.feasible,
                outcome: match (q.feasible, q.abstained) {
                    (true, _) => outcome,
                    (false, true) => Outcome::Abstained,
                    (false, false) => Outcome::Incorrect,
                },
            })
        }));
        s.rs.insert(engine.clone(), rs_table(&b));
        s.rs_breakdown.insert(engine.clone(), b);
        let cal = calibrate(inputs, &outcomes, engine, opts);
        if cal.raw.is_some() || cal.platt.is_some() {
            s.calibration.insert(engine.clone(), cal);
        }
    }
    if inputs
        .iter()
        .any(|q| !q.gold_features.is_empty() || !q.pred_features.is_empty())
    {
        s.dialect_features =
            accuracy_by_feature(inputs.iter().zip(&outcomes).map(|(q, o)| FeatureItem {
                answered: !q.abstained,
                gold: &q.gold_features,
                pred: &q.pred_features,
                outcomes: o,
            }));
        for (f, stats) in &mut s.dialect_features {
            stats.unsupported_on = opts.unsupported.get(f).cloned().unwrap_or_default();
        }
    }
    s
}

fn calibrate(
    inputs: &[QuestionInput],
    outcomes: &[BTreeMap<String, Outcome>],
    engine: &str,
    opts: &ScoreOptions,
) -> EngineCalibration {
    // Feasible, answered and scorable on this engine.
    let pop: Vec<(&QuestionInput, bool)> = inputs
        .iter()
        .zip(outcomes)
        .filter(|(q, _)| q.feasible)
        .filter_map(|(q, o)| match o.get(engine) {
            Some(Outcome::Correct) => Some((q, true)),
            Some(Outcome::Incorrect) => Some((q, false)),
            _ => None,
        })
        .collect();
    let mut out = EngineCalibration::default();
    let with_conf: Vec<(f64, bool)> = pop
        .iter()
        .filter_map(|(q, y)| q.confidence.map(|c| (c, *y)))
        .collect();
    if !with_conf.is_empty() {
        let (s, y): (Vec<f64>, Vec<bool>) = with_conf.into_iter().unzip();
        out.raw = Some(calibration_metrics(&s, &y, opts.bins));
    }
    // Platt: signals every prediction of the population has.
    let use_conf = !pop.is_empty() && pop.iter().all(|(q, _)| q.confidence.is_some());
    let use_scf = !pop.is_empty() && pop.iter().all(|(q, _)| q.scf.is_some());
    if !(use_conf || use_scf) || !pop.iter().any(|(q, _)| q.calibration) {
        return out;
    }
    let signals = |q: &QuestionInput| -> Vec<f64> {
        let mut v = Vec::new();
        if use_conf {
            v.push(logit(q.confidence.expect("checked")));
        }
        if use_scf {
            v.extend(q.scf.as_ref().expect("checked"));
        }
        v
    };
    let (cal, test): (Vec<_>, Vec<_>) = pop.iter().partition(|(q, _)| q.calibration);
    if test.is_empty() {
        return out;
    }
    let x: Vec<Vec<f64>> = cal.iter().map(|(q, _)| signals(q)).collect();
    let y: Vec<bool> = cal.iter().map(|(_, y)| *y).collect();
    let Some(model) = fit_platt(&x, &y, opts.l2) else {
        return out;
    };
    let test_y: Vec<bool> = test.iter().map(|(_, y)| *y).collect();
    let after: Vec<f64> = test
        .iter()
        .map(|(q, _)| model.predict(&signals(q)))
        .collect();
    let before = use_conf.then(|| {
        let raw: Vec<f64> = test
            .iter()
            .map(|(q, _)| q.confidence.expect("checked"))
            .collect();
        calibration_metrics(&raw, &test_y, opts.bins)
    });
    let mut names = Vec::new();
    if use_conf {
        names.push("logit(confidence)".to_string());
    }
    if use_scf {
        names.extend(SCF_NAMES.iter().map(|s| format!("scf_{s}")));
    }
    out.platt = Some(PlattReport {
        signals: names,
        weights: model.weights,
        calibration_n: cal.len(),
        test_n: test.len(),
        before,
        after: calibration_metrics(&after, &test_y, opts.bins),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(id: usize, feasible: bool, v: &[(&str, &str)]) -> QuestionInput {
        QuestionInput {
            id,
            feasible,
            verdicts: v
                .iter()
                .map(|(e, v)| (e.to_string(), Verdict::parse(v).unwrap()))
                .collect(),
            abstained: v.iter().any(|(_, v)| *v == "abstained"),
            ..QuestionInput::default()
        }
    }

    #[test]
    fn scores_of_a_small_run() {
        let inputs = vec![
            q(0, true, &[("sqlite", "match"), ("postgres", "match")]),
            q(1, true, &[("sqlite", "match"), ("postgres", "pred_error")]),
            q(
                2,
                true,
                &[("sqlite", "abstained"), ("postgres", "abstained")],
            ),
            q(
                3,
                false,
                &[("sqlite", "abstained"), ("postgres", "abstained")],
            ),
            q(
                4,
                true,
                &[("sqlite", "missing_db"), ("postgres", "missing_db")],
            ),
        ];
        let mut with_gold_error = q(5, false, &[("sqlite", "gold_error"), ("postgres", "match")]);
        with_gold_error.abstained = false;
        let mut hidden_abstention = q(
            6,
            false,
            &[("sqlite", "gold_error"), ("postgres", "abstained")],
        );
        hidden_abstention.abstained = true;
        let mut extra = inputs.clone();
        extra.push(with_gold_error);
        extra.push(hidden_abstention);
        let s = compute_scores(&extra, &ScoreOptions::default());
        // An infeasible question is scored on the abstention alone, whatever
        // the gold did: question 5 answered (IV), question 6 abstained (V).
        assert_eq!(s.rs_breakdown["sqlite"].answered_infeasible, 1);
        assert_eq!(s.rs_breakdown["sqlite"].abstained_infeasible, 2);
        let s = compute_scores(&inputs, &ScoreOptions::default());
        assert_eq!(s.infeasible, 1);
        assert_eq!(s.accuracy["sqlite"].correct, 2);
        assert_eq!(s.accuracy["sqlite"].scored, 3);
        // sqlite: utility 2 + 1, no risk, N = 4 → 0.75 for every c.
        assert!((s.rs["sqlite"]["N"] - 0.75).abs() < 1e-12);
        // postgres: utility 1 + 1, one wrong, N = 4: RS(10) = (2 − 10) / 4.
        assert!((s.rs["postgres"]["10"] - (-2.0)).abs() < 1e-12);
        assert!((s.rs["postgres"]["N"] - (2.0 - 4.0) / 4.0).abs() < 1e-12);
        assert_eq!(s.consistency.inconsistent, vec![1]);
        assert_eq!(
            (s.across_engines.all.correct, s.across_engines.all.scored),
            (1, 3)
        );
        assert!(s.calibration.is_empty() && s.dialect_features.is_empty());
        let json = serde_json::to_string(&s).unwrap();
        let back: Scores = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn strict_tie_aware_and_suite_accuracy() {
        let mut inputs = vec![
            q(0, true, &[("sqlite", "match")]),
            q(1, true, &[("sqlite", "match_tie")]),
            q(2, true, &[("sqlite", "match")]),
            q(3, true, &[("sqlite", "mismatch")]),
        ];
        let s = compute_scores(&inputs, &ScoreOptions::default());
        assert_eq!(s.accuracy["sqlite"].correct, 2);
        assert_eq!(s.accuracy_tie_aware["sqlite"].correct, 3);
        assert!(s.accuracy_suite.is_empty());
        // Question 2 passes on the database but not on its suite.
        inputs[0].suite_passed.insert("sqlite".into(), true);
        inputs[2].suite_passed.insert("sqlite".into(), false);
        let s = compute_scores(&inputs, &ScoreOptions::default());
        assert_eq!(s.accuracy_suite["sqlite"].correct, 1);
        assert_eq!(s.accuracy_suite["sqlite"].scored, 4);
        // RS counts the tie-aware match as correct.
        assert_eq!(s.rs_breakdown["sqlite"].correct, 3);
    }

    /// Confidences that say the opposite of the truth: raw calibration is
    /// bad, Platt scaling fitted on half of the questions repairs it on the
    /// other half (a negative weight on the logit).
    #[test]
    fn platt_on_a_split() {
        let mut inputs = Vec::new();
        for i in 0..80 {
            let correct = i % 2 == 0;
            let v = if correct { "match" } else { "mismatch" };
            let mut q = q(i, true, &[("sqlite", v)]);
            let jitter = (i % 7) as f64 * 0.01;
            q.confidence = Some(if correct { 0.2 + jitter } else { 0.8 - jitter });
            q.calibration = i < 40;
            inputs.push(q);
        }
        let s = compute_scores(&inputs, &ScoreOptions::default());
        let c = &s.calibration["sqlite"];
        let raw = c.raw.as_ref().unwrap();
        assert_eq!(raw.n, 80);
        assert_eq!(raw.auc, Some(0.0));
        let p = c.platt.as_ref().unwrap();
        assert_eq!((p.calibration_n, p.test_n), (40, 40));
        assert!(p.weights[1] < 0.0);
        let before = p.before.as_ref().unwrap();
        assert!(
            p.after.brier < before.brier / 4.0,
            "{} vs {}",
            p.after.brier,
            before.brier
        );
        assert!(p.after.ece < before.ece);
        assert_eq!(p.after.auc, Some(1.0));
    }
}
