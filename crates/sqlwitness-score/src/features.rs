//! Accuracy split by dialect feature (OCTOPUS, Table 8: the
//! dialect-specific functions and constructs — string length, substring,
//! null handling, string aggregation, paging, full join … — that differ
//! between SQL dialects).
//!
//! A question counts for a feature when its prediction (or, in the gold
//! self-check, its gold) uses it; `accuracy` is [`crate::accuracy`] over
//! those questions, per engine.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

use crate::{accuracy, Accuracy, Outcome};

/// One dialect feature's use and the accuracy of the predictions using it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FeatureStats {
    /// Gold queries using it.
    pub gold: usize,
    /// Predictions using it.
    pub pred: usize,
    /// Engines that do not support it as written (from the feature table).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unsupported_on: Vec<String>,
    /// Accuracy of the predictions using it, per engine.
    pub accuracy: BTreeMap<String, Accuracy>,
}

/// One question's features and outcomes; `answered` is false when the
/// model abstained (an abstention uses no feature and is left out of the
/// per-feature accuracy).
pub struct FeatureItem<'a> {
    pub answered: bool,
    pub gold: &'a BTreeSet<String>,
    pub pred: &'a BTreeSet<String>,
    pub outcomes: &'a BTreeMap<String, Outcome>,
}

/// `"(none)"` collects the predictions that use no dialect feature.
pub fn accuracy_by_feature<'a>(
    items: impl IntoIterator<Item = FeatureItem<'a>>,
) -> BTreeMap<String, FeatureStats> {
    let mut gold: BTreeMap<String, usize> = BTreeMap::new();
    let mut outcomes: BTreeMap<String, BTreeMap<String, Vec<Outcome>>> = BTreeMap::new();
    for it in items {
        for f in it.gold {
            *gold.entry(f.clone()).or_default() += 1;
        }
        if !it.answered {
            continue;
        }
        let keys: Vec<String> = if it.pred.is_empty() {
            vec!["(none)".to_string()]
        } else {
            it.pred.iter().cloned().collect()
        };
        for f in keys {
            let per_engine = outcomes.entry(f).or_default();
            for (engine, o) in it.outcomes {
                per_engine.entry(engine.clone()).or_default().push(*o);
            }
        }
    }
    let mut out: BTreeMap<String, FeatureStats> = BTreeMap::new();
    for (f, n) in gold {
        out.entry(f).or_default().gold = n;
    }
    for (f, per_engine) in outcomes {
        let s = out.entry(f).or_default();
        s.pred = per_engine.values().map(Vec::len).max().unwrap_or(0);
        s.accuracy = per_engine
            .into_iter()
            .map(|(e, os)| (e, accuracy(os)))
            .collect();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use Outcome::*;

    #[test]
    fn split_by_feature() {
        let set = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
        let oc = |s: Outcome, p: Outcome| {
            BTreeMap::from([("sqlite".to_string(), s), ("postgres".to_string(), p)])
        };
        let data = [
            (
                set(&["group_concat"]),
                set(&["group_concat"]),
                oc(Correct, Incorrect),
            ),
            (
                set(&[]),
                set(&["group_concat", "ifnull"]),
                oc(Correct, Incorrect),
            ),
            (set(&[]), set(&[]), oc(Correct, Correct)),
            (set(&["ifnull"]), set(&[]), oc(Incorrect, Incorrect)),
        ];
        let mut items: Vec<FeatureItem> = data
            .iter()
            .map(|(g, p, o)| FeatureItem {
                answered: true,
                gold: g,
                pred: p,
                outcomes: o,
            })
            .collect();
        // An abstention: its gold features count, nothing else.
        let abst = oc(Abstained, Abstained);
        let gold_only = set(&["ifnull"]);
        let none = set(&[]);
        items.push(FeatureItem {
            answered: false,
            gold: &gold_only,
            pred: &none,
            outcomes: &abst,
        });
        let r = accuracy_by_feature(items);
        let gc = &r["group_concat"];
        assert_eq!((gc.gold, gc.pred), (1, 2));
        assert_eq!(gc.accuracy["sqlite"].correct, 2);
        assert_eq!(gc.accuracy["postgres"].correct, 0);
        assert_eq!((r["ifnull"].gold, r["ifnull"].pred), (2, 1));
        let none = &r["(none)"];
        assert_eq!(none.pred, 2);
        assert!((none.accuracy["sqlite"].accuracy - 0.5).abs() < 1e-12);
    }
}
