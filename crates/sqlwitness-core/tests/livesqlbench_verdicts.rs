//! The LiveSQLBench mode against verdicts of the official evaluator
//! (`tests/livesqlbench/livesqlbench_verdicts.jsonl`, see
//! `tests/livesqlbench/README.md`): every pair must get the official
//! verdict. Also counts the pairs where the strict comparison disagrees, by
//! kind, so that the differences stay visible.

#[path = "common/tagged.rs"]
mod tagged;
use tagged::value;

use std::collections::BTreeMap;

use serde_json::Value as Json;
use sqlwitness_core::compare::{credit_causes, livesqlbench_equal};
use sqlwitness_core::{compare, Column, CompareMode, CompareOptions, ResultSet, Value};

fn result(j: &Json) -> ResultSet {
    let width = j["width"].as_u64().expect("width") as usize;
    let columns = (0..width)
        .map(|i| {
            let decl = j["types"][i].as_str().map(str::to_string);
            Column::new(format!("c{i}"), decl)
        })
        .collect();
    let mut rows: Vec<Vec<Value>> = j["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r.as_array().expect("row").iter().map(value).collect())
        .collect();
    if let Some(tail) = j.get("tail") {
        let start = tail["start"].as_i64().expect("start");
        let count = tail["count"].as_i64().expect("count");
        rows.extend((start..start + count).map(|k| vec![Value::Int(k)]));
    }
    ResultSet::new(columns, rows)
}

#[test]
fn livesqlbench_mode_gives_the_official_verdict_on_every_pair() {
    let data = include_str!("livesqlbench/livesqlbench_verdicts.jsonl");
    let mut pairs = 0;
    let mut wrong = Vec::new();
    let mut strict_differs: BTreeMap<String, usize> = BTreeMap::new();
    let mut causes: BTreeMap<String, usize> = BTreeMap::new();
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let case: Json = serde_json::from_str(line).expect("a JSON line");
        let gold = result(&case["gold"]);
        let pred = result(&case["pred"]);
        let ordered = case["order"].as_bool().expect("order");
        let official = case["official"].as_i64() == Some(1);
        let ours = livesqlbench_equal(&gold, &pred, ordered);
        pairs += 1;
        if ours != official {
            wrong.push(format!(
                "{} ({}, order {ordered}): official {official}",
                case["id"], case["kind"]
            ));
        }
        let opts = CompareOptions::new(CompareMode::Livesqlbench).ordered(ordered);
        assert_eq!(compare(&gold, &pred, &opts).equal, ours, "{line}");
        let strict = CompareOptions::new(CompareMode::Strict).ordered(ordered);
        if official {
            let found = credit_causes(&gold, &pred, &strict);
            let key: Vec<&str> = found.iter().map(|c| c.as_str()).collect();
            if !key.is_empty() {
                *causes.entry(key.join("+")).or_default() += 1;
            }
        }
        if compare(&gold, &pred, &strict).equal != official {
            let kind = case["kind"].as_str().unwrap_or("").to_string();
            let kind = if kind.starts_with("random_") {
                "random".into()
            } else {
                kind
            };
            *strict_differs.entry(kind).or_default() += 1;
        }
    }
    assert!(pairs >= 200, "only {pairs} pairs");
    assert!(
        wrong.is_empty(),
        "{} of {pairs} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    let differ: usize = strict_differs.values().sum();
    eprintln!("{pairs} pairs agree; strict differs on {differ}: {strict_differs:?}");
    eprintln!("credited, not by strict, by cause: {causes:?}");
}
