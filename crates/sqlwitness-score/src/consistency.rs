//! Cross-engine consistency of a model's predictions.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use sqlwitness_core::Verdict;

/// How often a prediction gets the same verdict on every engine.
///
/// `consistency = consistent / questions`, over the questions evaluated on
/// at least two engines; a question is consistent when its verdict (the
/// report's verdict name: `match`, `mismatch`, `pred_error` …) is the same
/// on every engine. `agreement[a][b]` is the share of those questions on
/// which engines `a` and `b` give the same verdict (1 on the diagonal), the
/// cross-engine agreement matrix of the HTML report. `inconsistent` lists
/// the ids of the questions that differ.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Consistency {
    pub questions: usize,
    pub consistent: usize,
    pub consistency: f64,
    pub agreement: BTreeMap<String, BTreeMap<String, f64>>,
    pub inconsistent: Vec<usize>,
}

/// `per_question`: `(question id, verdict by engine)`.
pub fn consistency<'a>(
    per_question: impl IntoIterator<Item = (usize, &'a BTreeMap<String, Verdict>)>,
) -> Consistency {
    let mut out = Consistency::default();
    let mut same: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (id, verdicts) in per_question {
        if verdicts.len() < 2 {
            continue;
        }
        out.questions += 1;
        let first = verdicts.values().next().expect("two verdicts");
        if verdicts.values().all(|v| v == first) {
            out.consistent += 1;
        } else {
            out.inconsistent.push(id);
        }
        for (a, va) in verdicts {
            for (b, vb) in verdicts {
                *same.entry((a.clone(), b.clone())).or_default() += usize::from(va == vb);
            }
        }
    }
    if out.questions > 0 {
        out.consistency = out.consistent as f64 / out.questions as f64;
        for ((a, b), n) in same {
            out.agreement
                .entry(a)
                .or_default()
                .insert(b, n as f64 / out.questions as f64);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(pairs: &[(&str, &str)]) -> BTreeMap<String, Verdict> {
        pairs
            .iter()
            .map(|(e, v)| (e.to_string(), Verdict::parse(v).unwrap()))
            .collect()
    }

    #[test]
    fn hand_computed() {
        let qs = [
            v(&[
                ("sqlite", "match"),
                ("postgres", "match"),
                ("mysql", "match"),
            ]),
            v(&[
                ("sqlite", "match"),
                ("postgres", "pred_error"),
                ("mysql", "match"),
            ]),
            v(&[
                ("sqlite", "mismatch"),
                ("postgres", "mismatch"),
                ("mysql", "pred_error"),
            ]),
            v(&[
                ("sqlite", "match"),
                ("postgres", "match"),
                ("mysql", "match"),
            ]),
            v(&[("sqlite", "match")]), // one engine: not counted
        ];
        let c = consistency(qs.iter().enumerate());
        assert_eq!((c.questions, c.consistent), (4, 2));
        assert!((c.consistency - 0.5).abs() < 1e-12);
        assert_eq!(c.inconsistent, vec![1, 2]);
        // sqlite and mysql agree on 3 of 4, sqlite and postgres on 3 of 4,
        // postgres and mysql on 2 of 4.
        assert!((c.agreement["sqlite"]["mysql"] - 0.75).abs() < 1e-12);
        assert!((c.agreement["sqlite"]["postgres"] - 0.75).abs() < 1e-12);
        assert!((c.agreement["postgres"]["mysql"] - 0.5).abs() < 1e-12);
        assert!((c.agreement["mysql"]["mysql"] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn empty() {
        let c = consistency(std::iter::empty());
        assert_eq!(c.questions, 0);
        assert_eq!(c.consistency, 0.0);
    }
}
