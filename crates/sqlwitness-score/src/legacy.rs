//! The legacy evaluators' verdicts beside sqlwitness's strict one: the
//! official Spider test-suite evaluator (`result_eq` after deleting every
//! DISTINCT, order by the `'order by' in gold` substring test, Python value
//! model, column permutations) and BIRD's (set equality of rows). For each
//! question and engine where a legacy verdict disagrees with the strict
//! one, [`mechanism`] names the rule that makes the difference.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use sqlwitness_core::MismatchReason;

use crate::{Accuracy, Outcome};

/// One question on one engine, as `eval --legacy` records it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LegacyInput {
    /// The strict verdict was `match`.
    pub strict_match: bool,
    /// The strict mismatch reason.
    pub strict_reason: Option<MismatchReason>,
    /// Strict comparison was ordered (top-level ORDER BY).
    pub strict_ordered: bool,
    pub spider: bool,
    /// The Spider substring test said order matters.
    pub spider_ordered: bool,
    /// The Spider preprocessing removed a DISTINCT (gold or prediction).
    pub distinct_removed: bool,
    pub bird: bool,
}

/// Why a legacy verdict differs from the strict one:
///
/// * `distinct_removed` — Spider deleted a DISTINCT, changing a result;
/// * `order_ignored` — strict compares in order (top-level ORDER BY), the
///   legacy evaluator does not (BIRD never; Spider when its substring test
///   fails, e.g. `ORDER BY` only in a subquery is still "ordered" for it);
/// * `order_substring` — Spider compares in order because `order by`
///   appears somewhere in the gold text, strict does not;
/// * `duplicates_ignored` — BIRD compares sets: a row-count difference
///   from duplicates vanishes;
/// * `columns_permuted` — Spider accepts a column permutation;
/// * `empty_results` — Spider: two empty results are equal whatever their
///   columns;
/// * `value_model` — Python equality on sqlite3's values (no float
///   tolerance, `1 == 1.0 == True`, type-dependent sort keys) against
///   strict's typed comparison.
pub fn mechanism(x: &LegacyInput, spider: bool) -> Option<&'static str> {
    let legacy = if spider { x.spider } else { x.bird };
    if legacy == x.strict_match {
        return None;
    }
    if spider && x.distinct_removed {
        return Some("distinct_removed");
    }
    if legacy {
        // The legacy evaluator accepts what strict rejects.
        return Some(match x.strict_reason {
            Some(MismatchReason::Order) => "order_ignored",
            Some(MismatchReason::RowCount) if !spider => "duplicates_ignored",
            Some(MismatchReason::ColumnOrder) if spider => "columns_permuted",
            Some(MismatchReason::ColumnCount) if spider => "empty_results",
            _ => "value_model",
        });
    }
    if spider && x.spider_ordered && !x.strict_ordered {
        return Some("order_substring");
    }
    Some("value_model")
}

/// Legacy accuracies beside the strict one, on one engine.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LegacySummary {
    pub spider: Accuracy,
    pub bird: Accuracy,
    /// Questions where the Spider (BIRD) verdict differs from the strict one.
    pub spider_disagree: usize,
    pub bird_disagree: usize,
    /// `"spider: distinct_removed"` → count, …
    pub mechanisms: BTreeMap<String, usize>,
    /// Ids of the questions that disagree (either evaluator).
    pub disagreeing: Vec<usize>,
}

/// `items`: `(question id, the strict outcome, the legacy record)` for
/// every scored question of one engine; questions without a legacy record
/// (the prediction did not run) count as wrong for every evaluator.
pub fn legacy_summary<'a>(
    items: impl IntoIterator<Item = (usize, Outcome, Option<&'a LegacyInput>)>,
) -> LegacySummary {
    let mut s = LegacySummary::default();
    let (mut scored, mut spider, mut bird) = (0, 0, 0);
    for (id, outcome, x) in items {
        if !outcome.is_scored() {
            continue;
        }
        scored += 1;
        let Some(x) = x else { continue };
        spider += usize::from(x.spider);
        bird += usize::from(x.bird);
        let mut differs = false;
        for (name, is_spider) in [("spider", true), ("bird", false)] {
            if let Some(m) = mechanism(x, is_spider) {
                differs = true;
                if is_spider {
                    s.spider_disagree += 1;
                } else {
                    s.bird_disagree += 1;
                }
                *s.mechanisms.entry(format!("{name}: {m}")).or_default() += 1;
            }
        }
        if differs {
            s.disagreeing.push(id);
        }
    }
    s.spider = Accuracy::from_counts(spider, scored);
    s.bird = Accuracy::from_counts(bird, scored);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x(strict: bool, reason: Option<&str>, spider: bool, bird: bool) -> LegacyInput {
        LegacyInput {
            strict_match: strict,
            strict_reason: reason.map(|r| {
                [
                    MismatchReason::Order,
                    MismatchReason::RowCount,
                    MismatchReason::ColumnOrder,
                    MismatchReason::ColumnCount,
                    MismatchReason::Values,
                ]
                .into_iter()
                .find(|m| m.as_str() == r)
                .unwrap()
            }),
            spider,
            bird,
            ..LegacyInput::default()
        }
    }

    #[test]
    fn mechanisms() {
        assert_eq!(mechanism(&x(true, None, true, true), true), None);
        // Duplicates: strict row_count mismatch, BIRD's sets agree.
        let dup = x(false, Some("row_count"), false, true);
        assert_eq!(mechanism(&dup, false), Some("duplicates_ignored"));
        assert_eq!(mechanism(&dup, true), None);
        // Order: strict ordered, BIRD never is.
        assert_eq!(
            mechanism(&x(false, Some("order"), false, true), false),
            Some("order_ignored")
        );
        // Spider accepts permuted columns and equal empty results.
        assert_eq!(
            mechanism(&x(false, Some("column_order"), true, false), true),
            Some("columns_permuted")
        );
        assert_eq!(
            mechanism(&x(false, Some("column_count"), true, true), true),
            Some("empty_results")
        );
        // COUNT(DISTINCT x) vs COUNT(x): Spider deleted DISTINCT.
        let d = LegacyInput {
            distinct_removed: true,
            ..x(false, Some("values"), true, false)
        };
        assert_eq!(mechanism(&d, true), Some("distinct_removed"));
        // `order by` only in a subquery: Spider compares in order.
        let o = LegacyInput {
            spider_ordered: true,
            ..x(true, None, false, true)
        };
        assert_eq!(mechanism(&o, true), Some("order_substring"));
        // Float tolerance: strict matches, Python equality does not.
        assert_eq!(
            mechanism(&x(true, None, false, false), true),
            Some("value_model")
        );
    }

    #[test]
    fn summary_counts() {
        let a = x(true, None, true, true);
        let b = LegacyInput {
            distinct_removed: true,
            ..x(false, Some("values"), true, false)
        };
        let c = x(false, Some("row_count"), false, true);
        let items = vec![
            (0, Outcome::Correct, Some(&a)),
            (1, Outcome::Incorrect, Some(&b)),
            (2, Outcome::Incorrect, Some(&c)),
            (3, Outcome::Incorrect, None), // prediction failed
            (4, Outcome::Unscored, None),
        ];
        let s = legacy_summary(items);
        assert_eq!((s.spider.correct, s.spider.scored), (2, 4));
        assert_eq!((s.bird.correct, s.bird.scored), (2, 4));
        assert_eq!((s.spider_disagree, s.bird_disagree), (1, 1));
        assert_eq!(s.mechanisms["spider: distinct_removed"], 1);
        assert_eq!(s.mechanisms["bird: duplicates_ignored"], 1);
        assert_eq!(s.disagreeing, vec![1, 2]);
    }
}
