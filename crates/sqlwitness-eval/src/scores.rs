//! `summary.scores`: the inputs the score crate needs, gathered from the
//! plan (feasibility, confidences, samples, the calibration split) and the
//! per-question verdicts; and `--legacy`, the official evaluators'
//! verdicts on the same rows.

use std::collections::{BTreeMap, BTreeSet};

use sqlwitness_core::compare::{compare, CompareMode, CompareOptions};
use sqlwitness_core::{EngineKind, ResultSet};
use sqlwitness_report::{LegacyVerdicts, QuestionReport};
use sqlwitness_score::{compute_scores, QuestionInput, ScoreOptions, Scores};
use sqlwitness_sql::Support;

use crate::EvalPlan;

/// Every score of the run.
pub fn compute(plan: &EvalPlan, questions: &[QuestionReport]) -> Scores {
    let s = &plan.scoring;
    let inputs: Vec<QuestionInput> = questions
        .iter()
        .map(|q| {
            let first = plan
                .engines
                .first()
                .copied()
                .unwrap_or(EngineKind::REFERENCE);
            let pred = plan.prediction_record(first, q.id);
            let features = |sql: &str| -> BTreeSet<String> {
                sqlwitness_sql::dialect_features(sql)
                    .unwrap_or_default()
                    .into_iter()
                    .map(String::from)
                    .collect()
            };
            let gold_features = features(&q.gold_sql);
            let pred_features = match (plan.self_check(), &q.pred_sql) {
                (true, _) => gold_features.clone(),
                (false, Some(sql)) => features(sql),
                (false, None) => BTreeSet::new(),
            };
            QuestionInput {
                id: q.id,
                abstained: !plan.self_check() && q.pred_sql.is_none(),
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
pub(crate) fn legacy_verdicts(
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
    // The official evaluator's reading, as `--compare spider` does it: the
    // prediction as read from its line (cut at a tab), postprocessed,
    // DISTINCT deleted, the current year replaced.
    let post = |s: &str| sqlwitness_spider::spider_postprocess(s);
    let spider_sql = |s: &str| {
        sqlwitness_spider::spider_replace_cur_year(&sqlwitness_spider::spider_remove_distinct(
            &post(s),
        ))
    };
    let read = sqlwitness_spider::spider_read_prediction(pred);
    let (g, p) = (spider_sql(gold), spider_sql(&read));
    let distinct_removed = sqlwitness_spider::spider_remove_distinct(&post(gold)) != post(gold)
        || sqlwitness_spider::spider_remove_distinct(&post(&read)) != post(&read);
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
    let spider_ordered = sqlwitness_spider::spider_order_matters(&g);
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

/// Sub-clause frequencies of `primary` among `samples` (the SCF calibration
/// paper, §4.3); `None` without samples. A primary that does not parse
/// matches nothing.
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
            let engines = EngineKind::all()
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
    use crate::plan::{feasible_false, read_ids};

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
