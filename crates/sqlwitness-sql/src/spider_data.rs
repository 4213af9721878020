//! Test helper: the Spider dev questions shipped in `examples/spider-dev`
//! (1,034 gold queries and `tables.json`, always in the repository).

use std::path::PathBuf;

/// The shipped Spider example.
pub(crate) fn spider_dir() -> PathBuf {
    sqlwitness_testkit::example_spider()
}

/// `(sql, db_id)` for every question of the shipped `dev.json`.
pub(crate) fn dev_gold() -> Option<Vec<(String, String)>> {
    let path = spider_dir().join("dev.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        sqlwitness_testkit::missing(&format!("{} not found", path.display()));
        return None;
    };
    let questions: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    Some(
        questions
            .iter()
            .map(|q| {
                (
                    q["query"].as_str().unwrap_or_default().to_string(),
                    q["db_id"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect(),
    )
}
