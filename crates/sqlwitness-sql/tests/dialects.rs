//! SQL written for PostgreSQL or MySQL is read in its own dialect first:
//! BIRD mini-dev's per-dialect golds all parse that way, and SQLite's
//! reading stays first for SQLite-written golds.

use sqlwitness_dialect::Grammar;
use sqlwitness_sql::{has_top_level_order_by, parse_in, written_for};

fn golds(file: &str) -> Option<Vec<String>> {
    let path = sqlwitness_testkit::shared_data(&format!("bird_minidev/{file}"))?;
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    Some(
        rows.iter()
            .map(|r| r["SQL"].as_str().unwrap().to_string())
            .collect(),
    )
}

#[test]
fn every_per_dialect_gold_parses_in_its_own_dialect() {
    for (file, grammar) in [
        ("mini_dev_postgresql.json", Grammar::Postgres),
        ("mini_dev_mysql.json", Grammar::Mysql),
        ("mini_dev_sqlite.json", Grammar::Sqlite),
    ] {
        let Some(golds) = golds(file) else { return };
        assert_eq!(golds.len(), 500, "{file}");
        let dialects = written_for(grammar);
        let unread: Vec<&String> = golds
            .iter()
            .filter(|g| parse_in(g, &dialects).is_err())
            .collect();
        assert!(
            unread.is_empty(),
            "{file}: {} unread: {unread:?}",
            unread.len()
        );
        // Every one is a single query whose top-level ORDER BY is known.
        assert!(golds
            .iter()
            .all(|g| has_top_level_order_by(g, &dialects).is_some()));
    }
}
