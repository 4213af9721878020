//! The Spider 2.0 mode against verdicts of the official evaluator
//! (`tests/spider2/spider2_verdicts.jsonl`, see `tests/spider2/README.md`): every
//! pair must get the official verdict. Also counts the pairs where the
//! strict comparison disagrees, by kind, so that the differences stay
//! visible.

#[path = "common/tagged.rs"]
mod tagged;
use tagged::value;

use std::collections::BTreeMap;

use serde_json::Value as Json;
use sqlwitness_core::compare::{spider2_equal, spider2_equal_any};
use sqlwitness_core::{compare, Column, CompareMode, CompareOptions, ResultSet};

fn result(j: &Json) -> ResultSet {
    let width = j["width"].as_u64().expect("width") as usize;
    let columns = (0..width)
        .map(|i| Column::new(format!("c{i}"), None))
        .collect();
    let rows = j["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r.as_array().expect("row").iter().map(value).collect())
        .collect();
    ResultSet::new(columns, rows)
}

#[test]
fn spider2_mode_gives_the_official_verdict_on_every_pair() {
    let data = include_str!("spider2/spider2_verdicts.jsonl");
    let mut pairs = 0;
    let mut wrong = Vec::new();
    let mut strict_differs: BTreeMap<String, usize> = BTreeMap::new();
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let case: Json = serde_json::from_str(line).expect("a JSON line");
        let golds: Vec<ResultSet> = case["golds"]
            .as_array()
            .expect("golds")
            .iter()
            .map(result)
            .collect();
        let pred = result(&case["pred"]);
        let cond: Vec<usize> = case["condition_cols"]
            .as_array()
            .expect("condition_cols")
            .iter()
            .map(|c| c.as_u64().expect("index") as usize)
            .collect();
        let ignore_order = case["ignore_order"].as_bool().expect("ignore_order");
        let official = case["official"].as_i64() == Some(1);
        let ours = if golds.len() == 1 {
            spider2_equal(&golds[0], &pred, &cond, ignore_order)
        } else {
            spider2_equal_any(&golds, &pred, &cond, ignore_order)
        };
        pairs += 1;
        if ours != official {
            wrong.push(format!(
                "{} ({}): official {official}",
                case["id"], case["kind"]
            ));
        }
        if golds.len() == 1 && cond.is_empty() {
            let opts = CompareOptions::new(CompareMode::Spider2).ordered(!ignore_order);
            assert_eq!(compare(&golds[0], &pred, &opts).equal, ours, "{line}");
            let strict = CompareOptions::new(CompareMode::Strict).ordered(!ignore_order);
            let verdict = compare(&golds[0], &pred, &strict);
            if verdict.equal != official {
                let kind = case["kind"].as_str().unwrap_or("").to_string();
                let kind = if kind.starts_with("random_") {
                    "random".into()
                } else {
                    kind
                };
                *strict_differs.entry(kind).or_default() += 1;
            }
        }
    }
    assert!(pairs >= 200, "only {pairs} pairs");
    assert!(
        wrong.is_empty(),
        "{} of {pairs} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    eprintln!("{pairs} pairs agree; strict differs on: {strict_differs:?}");
}
