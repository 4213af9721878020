//! The guard over real benchmark SQL: every gold query of the shipped Spider
//! example and, when the shared data is there, of Spider (dev and train) and
//! BIRD mini-dev (in each of its three dialects), and every published
//! prediction beside them, each with its question's namespace.
//!
//! A gold is never refused on an engine it is written for; a prediction may
//! be refused for what it does, but never for how its text reads (the
//! lexical checks are about hostile text, not about models) unless the text
//! is broken for the parser too.

use serde_json::Value as Json;
use sqlwitness_core::EngineKind;
use sqlwitness_dialect::builtin;
use sqlwitness_guard::{guard_with, GuardOptions};

/// One SQL text of the data: where it comes from, the engines it is
/// written for, its database, and whether it is a gold query.
struct Text {
    source: String,
    engines: Vec<EngineKind>,
    db_id: String,
    sql: String,
    gold: bool,
}

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json(path: &std::path::Path) -> Json {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `(sql, db_id)` of each question of a Spider-layout `dev.json`.
fn spider_questions(path: &std::path::Path) -> Vec<(String, String)> {
    json(path)
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            (
                q["query"].as_str().unwrap().to_string(),
                q["db_id"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Spider SQL is SQLite's, and sqlwitness runs it on every engine.
fn spider_texts() -> Vec<Text> {
    let all = EngineKind::all().to_vec();
    let text = |source: &str, sql: &str, db: &str, gold: bool| Text {
        source: source.to_string(),
        engines: all.clone(),
        db_id: db.to_string(),
        sql: sql.to_string(),
        gold,
    };
    let example = sqlwitness_testkit::example_spider().join("dev.json");
    let mut out: Vec<Text> = spider_questions(&example)
        .iter()
        .map(|(sql, db)| text("example dev.json", sql, db, true))
        .collect();
    let Some(dir) = sqlwitness_testkit::shared_data("spider") else {
        return out;
    };
    let dev = spider_questions(&dir.join("dev.json"));
    out.extend(dev.iter().map(|(sql, db)| text("dev.json", sql, db, true)));
    for line in read(&dir.join("train_gold.sql")).lines() {
        if let Some((sql, db)) = line.rsplit_once('\t') {
            out.push(text("train_gold.sql", sql, db, true));
        }
    }
    for file in [
        "resdsql_natsql_3b.sql",
        "c3sql_gpt35.sql",
        "dts_sql_deepseek7b.sql",
    ] {
        let preds = read(&dir.join("predictions").join(file));
        for (line, (_, db)) in preds.lines().zip(&dev) {
            out.push(text(file, line, db, false));
        }
    }
    out
}

/// BIRD mini-dev's golds and predictions, each in its own dialect.
fn bird_texts() -> Vec<Text> {
    let Some(dir) = sqlwitness_testkit::shared_data("bird_minidev") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (dialect, engines) in [
        ("sqlite", vec![EngineKind::Sqlite]),
        ("mysql", vec![EngineKind::Mysql, EngineKind::Mariadb]),
        ("postgresql", vec![EngineKind::Postgres]),
    ] {
        let golds = json(&dir.join(format!("mini_dev_{dialect}.json")));
        for q in golds.as_array().unwrap() {
            out.push(Text {
                source: format!("mini_dev_{dialect}.json"),
                engines: engines.clone(),
                db_id: q["db_id"].as_str().unwrap().to_string(),
                sql: q["SQL"].as_str().unwrap().to_string(),
                gold: true,
            });
        }
        let file = format!("predict_mini_dev_gpt-4-turbo_{dialect}.json");
        let preds = json(&dir.join("predictions").join(&file));
        for value in preds.as_object().unwrap().values() {
            let line = value.as_str().unwrap();
            let (sql, db) = line.split_once("\t----- bird -----\t").unwrap();
            out.push(Text {
                source: file.clone(),
                engines: engines.clone(),
                db_id: db.to_string(),
                sql: sql.to_string(),
                gold: false,
            });
        }
    }
    out
}

/// Every text on every engine it is written for, in its namespace: the
/// texts refused, with the guard's message.
fn refusals(texts: &[Text]) -> Vec<(&Text, EngineKind, String)> {
    let mut out = Vec::new();
    for kind in EngineKind::all() {
        let dialect = builtin(kind);
        for t in texts.iter().filter(|t| t.engines.contains(&kind)) {
            let options = GuardOptions::default().in_namespace(&t.db_id);
            if let Err(e) = guard_with(&t.sql, &dialect, &options) {
                out.push((t, kind, e.message));
            }
        }
    }
    out
}

#[test]
fn no_gold_query_is_refused() {
    let mut texts = spider_texts();
    texts.extend(bird_texts());
    let golds: Vec<Text> = texts.into_iter().filter(|t| t.gold).collect();
    let refused: Vec<String> = refusals(&golds)
        .into_iter()
        .map(|(t, kind, e)| format!("{} ({}) on {kind}: {}: {e}", t.source, t.db_id, t.sql))
        .collect();
    eprintln!("{} gold queries", golds.len());
    assert!(refused.is_empty(), "{}", refused.join("\n"));
}

#[test]
fn predictions_pass_the_lexical_checks() {
    let mut texts = spider_texts();
    texts.extend(bird_texts());
    let preds: Vec<Text> = texts.into_iter().filter(|t| !t.gold).collect();
    let lexical = [
        "reads differently",
        "executable comment",
        "NUL",
        "U+",
        "operators",
        "unterminated",
        "block comment",
        "bytes",
    ];
    let refused = refusals(&preds);
    // Some published predictions are cut off inside a string or wrapped in
    // a Markdown fence: unterminated to the parser's tokenizer as well.
    let broken = |t: &Text, kind: EngineKind| {
        let parser = sqlwitness_sql::parser_dialect(builtin(kind).grammar);
        sqlwitness_sql::tokenize(parser.as_ref(), &t.sql).is_err()
    };
    let wrong: Vec<String> = refused
        .iter()
        .filter(|(_, _, e)| lexical.iter().any(|n| e.contains(n)))
        .filter(|(t, kind, e)| !(e.contains("unterminated") && broken(t, *kind)))
        .map(|(t, kind, e)| format!("{} on {kind}: {}: {e}", t.source, t.sql))
        .collect();
    eprintln!(
        "{} predictions, {} refusals on some engine",
        preds.len(),
        refused.len()
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
