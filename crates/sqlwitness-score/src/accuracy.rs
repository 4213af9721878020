//! Execution accuracy per engine and across engines.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::Outcome;

/// Execution accuracy over the questions that can be scored.
///
/// `EX = correct / scored`, where `scored` counts every outcome except
/// [`Outcome::Unscored`] (missing database, failing gold): an abstention or
/// a failing prediction counts against the model, a broken gold does not.
/// (The report's `summary.engines.*.ex` keeps gold errors in the
/// denominator; this is the score of the model alone.) `accuracy` is 0 when
/// nothing can be scored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Accuracy {
    pub scored: usize,
    pub correct: usize,
    pub accuracy: f64,
}

impl Accuracy {
    pub fn from_counts(correct: usize, scored: usize) -> Accuracy {
        Accuracy {
            scored,
            correct,
            accuracy: if scored == 0 {
                0.0
            } else {
                correct as f64 / scored as f64
            },
        }
    }
}

pub fn accuracy(outcomes: impl IntoIterator<Item = Outcome>) -> Accuracy {
    let (mut correct, mut scored) = (0, 0);
    for o in outcomes {
        if o.is_scored() {
            scored += 1;
            correct += usize::from(o == Outcome::Correct);
        }
    }
    Accuracy::from_counts(correct, scored)
}

/// Accuracy across engines, over the questions scored on every engine:
/// `all` — correct on every engine (the dialect-robust accuracy a model
/// needs to be trusted anywhere); `any` — correct on at least one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct AcrossEngines {
    pub all: Accuracy,
    pub any: Accuracy,
}

/// `per_question` holds each question's outcome keyed by engine.
pub fn across_engines<'a>(
    per_question: impl IntoIterator<Item = &'a BTreeMap<String, Outcome>>,
) -> AcrossEngines {
    let (mut scored, mut all, mut any) = (0, 0, 0);
    for q in per_question {
        if q.is_empty() || q.values().any(|o| !o.is_scored()) {
            continue;
        }
        scored += 1;
        all += usize::from(q.values().all(|o| *o == Outcome::Correct));
        any += usize::from(q.values().any(|o| *o == Outcome::Correct));
    }
    AcrossEngines {
        all: Accuracy::from_counts(all, scored),
        any: Accuracy::from_counts(any, scored),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Outcome::*;

    #[test]
    fn unscored_leaves_the_denominator() {
        let a = accuracy([Correct, Incorrect, Abstained, Unscored, Correct]);
        assert_eq!((a.correct, a.scored), (2, 4));
        assert!((a.accuracy - 0.5).abs() < 1e-12);
        assert_eq!(accuracy([Unscored]).accuracy, 0.0);
    }

    #[test]
    fn all_and_any_engines() {
        let q = |s: Outcome, p: Outcome| {
            BTreeMap::from([("sqlite".to_string(), s), ("postgres".to_string(), p)])
        };
        let qs = [
            q(Correct, Correct),
            q(Correct, Incorrect),
            q(Incorrect, Incorrect),
            q(Correct, Unscored), // not scored on every engine
        ];
        let a = across_engines(&qs);
        assert_eq!((a.all.correct, a.all.scored), (1, 3));
        assert_eq!((a.any.correct, a.any.scored), (2, 3));
    }
}
