//! The defog mode against verdicts of defog's sql-eval
//! (`tests/defog/defog_verdicts.jsonl`, see `tests/defog/README.md`): every
//! pair must get the official `exact_match` and `correct`. Also counts the
//! pairs where the strict comparison disagrees with `correct`, by kind, so
//! that the differences stay visible.

#[path = "common/tagged.rs"]
mod tagged;
use tagged::value;

use std::collections::BTreeMap;

use serde_json::Value as Json;
use sqlwitness_core::compare::{credit_causes, defog_verdict, DefogContext, DefogVerdict};
use sqlwitness_core::{compare, Column, CompareMode, CompareOptions, ResultSet};

fn result(j: &Json) -> ResultSet {
    let columns = j["names"]
        .as_array()
        .expect("names")
        .iter()
        .map(|n| Column::new(n.as_str().expect("name"), None))
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
fn defog_mode_gives_the_official_verdicts_on_every_pair() {
    let data = include_str!("defog/defog_verdicts.jsonl");
    let mut pairs = 0;
    let mut wrong = Vec::new();
    let mut strict_differs: BTreeMap<String, usize> = BTreeMap::new();
    let mut causes: BTreeMap<String, usize> = BTreeMap::new();
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let case: Json = serde_json::from_str(line).expect("a JSON line");
        let golds_json = case["golds"].as_array().expect("golds");
        let golds: Vec<ResultSet> = golds_json.iter().map(|g| result(&g["result"])).collect();
        let gold_sql = golds_json
            .iter()
            .map(|g| g["sql"].as_str().expect("sql"))
            .collect::<Vec<_>>()
            .join("; ");
        let pred = result(&case["pred"]["result"]);
        let ctx = DefogContext {
            question: case["question"].as_str().expect("question"),
            query_category: case["category"].as_str().expect("category"),
            gold_sql: Some(&gold_sql),
            pred_sql: case["pred"]["sql"].as_str(),
        };
        let official = DefogVerdict {
            exact_match: case["official"]["exact_match"].as_i64() == Some(1),
            correct: case["official"]["correct"].as_i64() == Some(1),
        };
        let ours = defog_verdict(&golds, &pred, &ctx);
        pairs += 1;
        if ours != official {
            wrong.push(format!(
                "{} ({}): official {official:?}, ours {ours:?}",
                case["id"], case["kind"]
            ));
        }
        if golds.len() == 1 {
            let kind = case["kind"].as_str().unwrap_or("");
            let kind = kind.split('|').next().unwrap_or(kind);
            let kind = if kind.starts_with("random_") {
                "random"
            } else {
                kind
            };
            let strict = CompareOptions::new(CompareMode::Strict);
            if official.correct {
                let found = credit_causes(&golds[0], &pred, &strict);
                let key: Vec<&str> = found.iter().map(|c| c.as_str()).collect();
                if !key.is_empty() {
                    *causes.entry(key.join("+")).or_default() += 1;
                }
            }
            if compare(&golds[0], &pred, &strict).equal != official.correct {
                *strict_differs.entry(kind.to_string()).or_default() += 1;
            }
        }
    }
    // The mode without question or query text: category `order_by` when
    // ordered, as `compare` applies it.
    let gold = result(&serde_json::json!({"names": ["a"], "rows": [[["i", 1]], [["i", 2]]]}));
    let pred = result(&serde_json::json!({"names": ["b"], "rows": [[["i", 2]], [["i", 1]]]}));
    let opts = CompareOptions::new(CompareMode::Defog);
    assert!(compare(&gold, &pred, &opts).equal);
    assert!(!compare(&gold, &pred, &opts.ordered(true)).equal);
    assert!(pairs >= 300, "only {pairs} pairs");
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
