//! What the scores read from one question's per-engine outcomes: the one
//! mapping from the report model to `sqlwitness_score::QuestionInput`'s
//! per-engine fields.

use std::collections::BTreeMap;

use sqlwitness_score::LegacyInput;

use crate::{QuestionReport, Verdict};

impl QuestionReport {
    /// Each engine's verdict.
    pub fn verdicts(&self) -> BTreeMap<String, Verdict> {
        self.engines
            .iter()
            .map(|(e, o)| (e.clone(), o.verdict))
            .collect()
    }

    /// The legacy Spider/BIRD verdicts beside the strict one, for the
    /// engines that recorded them (`eval --legacy`).
    pub fn legacy_inputs(&self) -> BTreeMap<String, LegacyInput> {
        self.engines
            .iter()
            .filter_map(|(e, o)| {
                let l = o.legacy?;
                Some((
                    e.clone(),
                    LegacyInput {
                        strict_match: o.verdict == Verdict::Match,
                        strict_reason: o.reason,
                        strict_ordered: o.ordered,
                        spider: l.spider,
                        spider_ordered: l.spider_ordered,
                        distinct_removed: l.distinct_removed,
                        bird: l.bird,
                    },
                ))
            })
            .collect()
    }

    /// Whether the prediction passed the test suite, for the engines that
    /// ran one (`eval --suite`).
    pub fn suite_passed(&self) -> BTreeMap<String, bool> {
        self.engines
            .iter()
            .filter_map(|(e, o)| o.suite.as_ref().map(|s| (e.clone(), s.passed)))
            .collect()
    }
}
