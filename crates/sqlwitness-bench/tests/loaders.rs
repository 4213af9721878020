//! Benchmark, tables.json and prediction loaders: small fixtures in a
//! tempdir, and the real Spider files.

mod common;

use std::path::Path;

use sqlwitness_bench::{
    load_benchmark, load_predictions, load_tables_json, BenchError, BenchmarkFormat, PredictedSql,
};

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

fn spider_fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "dev.json",
        r#"[{"db_id": "a", "question": "q0", "query": "SELECT 1"},
            {"db_id": "b", "question": "q1", "query": "SELECT 2"},
            {"db_id": "a", "question": "q2", "query": "SELECT 3"}]"#,
    );
    write(dir.path(), "tables.json", "[]");
    std::fs::create_dir_all(dir.path().join("database/a")).unwrap();
    std::fs::write(dir.path().join("database/a/a.sqlite"), b"").unwrap();
    std::fs::create_dir_all(dir.path().join("database/c")).unwrap();
    dir
}

#[test]
fn input_edges_name_the_file_and_the_place() {
    // A folder that does not exist is said to be missing, not a layout.
    let e = load_benchmark(Path::new("/nonexistent/bench"), "dev")
        .unwrap_err()
        .to_string();
    assert!(e.contains("does not exist"), "{e}");
    // The Spider layout needs tables.json.
    let dir = spider_fixture();
    std::fs::remove_file(dir.path().join("tables.json")).unwrap();
    let e = load_benchmark(dir.path(), "dev").unwrap_err().to_string();
    assert!(e.contains("tables.json") && e.contains("not found"), "{e}");
    // Invalid UTF-8 in a benchmark file names the line.
    let dir = spider_fixture();
    std::fs::write(
        dir.path().join("dev_gold.sql"),
        b"SELECT 1\ta\nSELECT '\xff'\ta\n",
    )
    .unwrap();
    std::fs::remove_file(dir.path().join("dev.json")).unwrap();
    let e = load_benchmark(dir.path(), "dev").unwrap_err().to_string();
    assert!(e.contains("line 2") && e.contains("UTF-8"), "{e}");
}

#[test]
fn invalid_utf8_makes_only_its_own_prediction_invalid() {
    let dir = spider_fixture();
    let b = load_benchmark(dir.path(), "dev").unwrap();
    std::fs::write(
        dir.path().join("p.sql"),
        b"SELECT 1\nSELECT '\xc3\x28'\nSELECT 3\n",
    )
    .unwrap();
    let p = load_predictions(&dir.path().join("p.sql"), &b).unwrap();
    assert_eq!(p[0].sql, PredictedSql::Sql("SELECT 1".into()));
    assert_eq!(p[2].sql, PredictedSql::Sql("SELECT 3".into()));
    match &p[1].sql {
        PredictedSql::Invalid(why) => {
            assert!(why.contains("p.sql") && why.contains("line 2"), "{why}")
        }
        other => panic!("{other:?}"),
    }
    std::fs::write(
        dir.path().join("p.jsonl"),
        b"{\"id\": 0, \"sql\": \"SELECT 1\"}\n{\"id\": 2, \"sql\": \"SELECT '\xff'\"}\n",
    )
    .unwrap();
    let p = load_predictions(&dir.path().join("p.jsonl"), &b).unwrap();
    assert_eq!(p[0].sql, PredictedSql::Sql("SELECT 1".into()));
    assert!(
        matches!(&p[1].sql, PredictedSql::Invalid(w) if w.contains("line 2")),
        "{:?}",
        p[1].sql
    );
}

#[test]
fn spider_json_layout() {
    let dir = spider_fixture();
    let b = load_benchmark(dir.path(), "dev").unwrap();
    assert_eq!(b.format, BenchmarkFormat::SpiderJson);
    assert_eq!(b.questions.len(), 3);
    assert_eq!(b.questions[2].id, 2);
    assert_eq!(b.questions[2].gold, "SELECT 3");
    assert_eq!(b.db_ids(), vec!["a", "b"]);
    assert_eq!(b.all_database_ids(), vec!["a"]);
    assert!(b.db_exists("a") && !b.db_exists("b"));
    let db = b.database("a");
    assert_eq!(db.namespace, "sw_a");
    assert!(db.sqlite_path.ends_with("database/a/a.sqlite"));
}

#[test]
fn spider_train_prefers_train_spider_json_and_gold_sql_fallback() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "train_spider.json",
        r#"[{"db_id": "a", "question": "q", "query": "SELECT 9"}]"#,
    );
    write(dir.path(), "tables.json", "[]");
    write(dir.path(), "train_gold.sql", "SELECT 1\ta\n");
    let b = load_benchmark(dir.path(), "train").unwrap();
    assert_eq!(b.questions[0].gold, "SELECT 9");
    write(
        dir.path(),
        "test_gold.sql",
        "SELECT 1\ta\n\nSELECT 'x\ty'\tb\n",
    );
    let b = load_benchmark(dir.path(), "test").unwrap();
    assert_eq!(b.format, BenchmarkFormat::SpiderGoldSql);
    assert_eq!(b.questions.len(), 2);
    assert_eq!(b.questions[1].gold, "SELECT 'x\ty'");
    assert_eq!(b.questions[1].db_id, "b");
    write(dir.path(), "bad_gold.sql", "SELECT 1\ta\nSELECT 2\n");
    let e = load_benchmark(dir.path(), "bad").unwrap_err().to_string();
    assert!(e.contains("bad_gold.sql") && e.contains("line 2"), "{e}");
}

#[test]
fn bird_layout() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "dev.json",
        r#"[{"question_id": 0, "db_id": "x", "question": "q", "evidence": "e", "SQL": "SELECT 1"},
            {"question_id": 1, "db_id": "y", "question": "q", "evidence": "", "SQL": "SELECT 2"}]"#,
    );
    let b = load_benchmark(dir.path(), "dev").unwrap();
    assert_eq!(b.format, BenchmarkFormat::Bird);
    assert_eq!(b.questions[0].evidence.as_deref(), Some("e"));
    assert_eq!(b.questions[1].gold, "SELECT 2");
    assert!(b.database_dir.ends_with("dev_databases"));
    write(
        dir.path(),
        "dev.json",
        r#"[{"question_id": 0, "db_id": "x", "question": "q", "SQL": 5}]"#,
    );
    let e = load_benchmark(dir.path(), "dev").unwrap_err().to_string();
    assert!(e.contains("dev.json") && e.contains("[0].SQL"), "{e}");
}

#[test]
fn jsonl_layout() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "dev.jsonl",
        "{\"id\": 0, \"db_id\": \"a\", \"question\": \"q\", \"gold\": \"SELECT 1\"}\n\n{\"db_id\": \"b\", \"gold\": \"SELECT 2\"}\n",
    );
    let b = load_benchmark(dir.path(), "dev").unwrap();
    assert_eq!(b.format, BenchmarkFormat::Jsonl);
    assert_eq!(b.questions.len(), 2);
    assert_eq!(b.questions[1].question, "");
    write(dir.path(), "bad.jsonl", "{\"db_id\": \"a\"}\n");
    let e = load_benchmark(dir.path(), "bad").unwrap_err().to_string();
    assert!(e.contains("bad.jsonl") && e.contains("line 1: gold"), "{e}");
    let e = load_benchmark(dir.path(), "nothing").unwrap_err();
    assert!(matches!(e, BenchError::Layout { .. }));
}

#[test]
fn predictions_spider_text() {
    let dir = spider_fixture();
    let b = load_benchmark(dir.path(), "dev").unwrap();
    write(dir.path(), "p.sql", "SELECT 1 ;\n\nselect 3;;  \n");
    let p = load_predictions(&dir.path().join("p.sql"), &b).unwrap();
    assert_eq!(p.len(), 3);
    assert_eq!(p[0].sql, PredictedSql::Sql("SELECT 1".into()));
    assert_eq!(p[1].sql, PredictedSql::Abstain);
    assert_eq!(p[2].sql, PredictedSql::Sql("select 3;".into()));
    // One trailing empty line is tolerated, more lines are not.
    write(dir.path(), "p2.sql", "a\nb\nc\n\n");
    assert_eq!(
        load_predictions(&dir.path().join("p2.sql"), &b)
            .unwrap()
            .len(),
        3
    );
    write(dir.path(), "p3.sql", "a\nb\n");
    let e = load_predictions(&dir.path().join("p3.sql"), &b).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(
        e,
        BenchError::PredictionCount {
            expected: 3,
            found: 2,
            ..
        }
    ));
    assert!(
        msg.contains("p3.sql") && msg.contains('3') && msg.contains('2'),
        "{msg}"
    );
}

#[test]
fn predictions_bird_json() {
    let dir = spider_fixture();
    let b = load_benchmark(dir.path(), "dev").unwrap();
    write(
        dir.path(),
        "p.json",
        r#"{"0": "SELECT 1;\t----- bird -----\ta", "2": "\t----- bird -----\ta"}"#,
    );
    let p = load_predictions(&dir.path().join("p.json"), &b).unwrap();
    assert_eq!(p.len(), 2);
    assert_eq!(p[0].sql, PredictedSql::Sql("SELECT 1".into()));
    assert_eq!((p[1].id, &p[1].sql), (2, &PredictedSql::Abstain));
    write(
        dir.path(),
        "bad.json",
        r#"{"1": "SELECT 1\t----- bird -----\ta"}"#,
    );
    let e = load_predictions(&dir.path().join("bad.json"), &b)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("bad.json") && e.contains("key \"1\"") && e.contains("db_id"),
        "{e}"
    );
    write(
        dir.path(),
        "range.json",
        r#"{"7": "x\t----- bird -----\ta"}"#,
    );
    let e = load_predictions(&dir.path().join("range.json"), &b)
        .unwrap_err()
        .to_string();
    assert!(e.contains("key \"7\"") && e.contains("out of range"), "{e}");
}

#[test]
fn predictions_jsonl() {
    let dir = spider_fixture();
    let b = load_benchmark(dir.path(), "dev").unwrap();
    write(
        dir.path(),
        "p.jsonl",
        concat!(
            "{\"id\": 2, \"sql\": \"SELECT 3;\", \"confidence\": 0.25, \"samples\": [\"SELECT 3\", \"SELECT 4;\"]}\n",
            "{\"id\": 0, \"sql\": null}\n",
            "{\"id\": 1, \"sql\": \"  \"}\n"
        ),
    );
    let p = load_predictions(&dir.path().join("p.jsonl"), &b).unwrap();
    assert_eq!(p.iter().map(|p| p.id).collect::<Vec<_>>(), vec![0, 1, 2]);
    assert_eq!(p[0].sql, PredictedSql::Abstain);
    assert_eq!(p[1].sql, PredictedSql::Abstain);
    assert_eq!(p[2].sql.as_sql(), Some("SELECT 3"));
    assert_eq!(p[2].confidence, Some(0.25));
    assert_eq!(p[2].samples, vec!["SELECT 3", "SELECT 4"]);
    write(
        dir.path(),
        "dup.jsonl",
        "{\"id\": 0, \"sql\": \"a\"}\n{\"id\": 0, \"sql\": \"b\"}\n",
    );
    let e = load_predictions(&dir.path().join("dup.jsonl"), &b)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("dup.jsonl") && e.contains("line 2") && e.contains("duplicate"),
        "{e}"
    );
    write(dir.path(), "range.jsonl", "{\"id\": 3, \"sql\": \"a\"}\n");
    let e = load_predictions(&dir.path().join("range.jsonl"), &b)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("line 1: id") && e.contains("out of range"),
        "{e}"
    );
}

#[test]
fn real_spider_dev_and_predictions() {
    let Some(root) = common::spider() else {
        return;
    };
    let root = root.as_path();
    let b = load_benchmark(root, "dev").unwrap();
    assert_eq!(b.format, BenchmarkFormat::SpiderJson);
    assert_eq!(b.questions.len(), 1034);
    assert_eq!(b.db_ids().len(), 20);
    assert_eq!(b.all_database_ids().len(), 163);
    assert!(!b.db_exists("wta_1"));
    for entry in std::fs::read_dir(root.join("predictions")).unwrap() {
        let path = entry.unwrap().path();
        let p = load_predictions(&path, &b).unwrap();
        assert_eq!(p.len(), 1034, "{}", path.display());
        assert!(p
            .iter()
            .all(|p| p.sql.as_sql().is_none_or(|s| !s.ends_with(';'))));
    }
    let tables = load_tables_json(&root.join("tables.json")).unwrap();
    assert_eq!(tables.len(), 166);
    let cs = &tables["concert_singer"];
    assert!(cs.table_names_original.contains(&"singer".to_string()));
    assert!(!cs.foreign_keys.is_empty());
    let (t, _) = cs.column_names_original[cs.foreign_keys[0].0];
    assert!(t >= 0);
    let gold = load_benchmark(root, "train").unwrap();
    assert!(gold.questions.len() > 1000);
}

/// BIRD mini-dev's layout: `mini_dev_sqlite.json` with its per-dialect
/// golds beside it, question ids from 1471 (one listed twice, as the
/// shipped file lists 137 and 138), databases in `dev_databases/`.
fn minidev_fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let entry = |qid: u64, db: &str, sql: &str| {
        format!(
            r#"{{"question_id": {qid}, "db_id": "{db}", "question": "q{qid}", "evidence": "e{qid}", "SQL": {sql:?}, "difficulty": "simple"}}"#
        )
    };
    let file = |sqls: [&str; 3]| {
        format!(
            "[{}, {}, {}]",
            entry(1471, "a", sqls[0]),
            entry(1472, "b", sqls[1]),
            entry(1471, "a", sqls[2])
        )
    };
    write(
        dir.path(),
        "mini_dev_sqlite.json",
        &file(["SELECT 1", "SELECT 2", "SELECT 1"]),
    );
    write(
        dir.path(),
        "mini_dev_mysql.json",
        &file(["SELECT `1`", "SELECT `2`", "SELECT `1`"]),
    );
    // Another order: matched by question_id (1472 is listed once).
    write(
        dir.path(),
        "mini_dev_postgresql.json",
        &format!("[{}]", entry(1472, "b", "SELECT \"2\"")),
    );
    std::fs::create_dir_all(dir.path().join("dev_databases/a")).unwrap();
    std::fs::write(dir.path().join("dev_databases/a/a.sqlite"), b"").unwrap();
    dir
}

#[test]
fn bird_minidev_loads_as_shipped_with_a_gold_per_dialect() {
    use sqlwitness_core::builtin_engines::*;
    let dir = minidev_fixture();
    let b = load_benchmark(dir.path(), "mini_dev").unwrap();
    assert_eq!(b.format, BenchmarkFormat::Bird);
    assert_eq!(b.questions.len(), 3);
    let q = &b.questions[0];
    assert_eq!((q.id, q.source_id), (0, Some(1471)));
    assert_eq!(q.evidence.as_deref(), Some("e1471"));
    assert_eq!(q.difficulty.as_deref(), Some("simple"));
    assert_eq!(q.gold_for(Sqlite), "SELECT 1");
    assert_eq!(q.gold_for(Mysql), "SELECT `1`");
    // MariaDB's dialect extends MySQL's: it runs the MySQL gold.
    assert_eq!(q.gold_for(Mariadb), "SELECT `1`");
    // No PostgreSQL gold for 1471: the benchmark's.
    assert_eq!(q.gold_for(Postgres), "SELECT 1");
    assert_eq!(b.questions[1].gold_for(Postgres), "SELECT \"2\"");
    assert_eq!(b.questions[2].gold_for(Mysql), "SELECT `1`");
    assert!(b.db_exists("a") && b.database_dir.ends_with("dev_databases"));
    assert!(b.gold_sources[&Mysql].ends_with("mini_dev_mysql.json"));
    assert!(b.gold_sources[&Postgres].ends_with("mini_dev_postgresql.json"));

    // A dialect file naming a question the split lacks, or one the split
    // lists twice while the file is in another order, is an error naming it.
    write(
        dir.path(),
        "mini_dev_postgresql.json",
        r#"[{"question_id": 1471, "db_id": "a", "SQL": "SELECT 1"}]"#,
    );
    let e = load_benchmark(dir.path(), "mini_dev")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("mini_dev_postgresql.json") && e.contains("1471"),
        "{e}"
    );
    write(
        dir.path(),
        "mini_dev_postgresql.json",
        r#"[{"question_id": 9, "db_id": "a", "SQL": "SELECT 1"}]"#,
    );
    let e = load_benchmark(dir.path(), "mini_dev")
        .unwrap_err()
        .to_string();
    assert!(e.contains("9 is no question"), "{e}");
}

#[test]
fn bird_predictions_keyed_by_position_or_by_question_id() {
    let dir = minidev_fixture();
    let b = load_benchmark(dir.path(), "mini_dev").unwrap();
    let sep = "\\t----- bird -----\\t";
    let by_pos = dir.path().join("p1.json");
    std::fs::write(
        &by_pos,
        format!(r#"{{"0": "SELECT 10{sep}a", "1": "SELECT 20{sep}b"}}"#),
    )
    .unwrap();
    let p = load_predictions(&by_pos, &b).unwrap();
    assert_eq!(p.iter().map(|p| p.id).collect::<Vec<_>>(), vec![0, 1]);
    // Keyed by question_id: 1471 answers both questions listing it.
    let by_qid = dir.path().join("p2.json");
    std::fs::write(
        &by_qid,
        format!(r#"{{"1471": "SELECT 10{sep}a", "1472": "SELECT 20{sep}b"}}"#),
    )
    .unwrap();
    let p = load_predictions(&by_qid, &b).unwrap();
    assert_eq!(p.iter().map(|p| p.id).collect::<Vec<_>>(), vec![0, 1, 2]);
    assert_eq!(p[2].sql, PredictedSql::Sql("SELECT 10".into()));
}

#[test]
fn jsonl_gold_per_engine_and_engine_gold_files() {
    use sqlwitness_core::builtin_engines::*;
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "dev.jsonl",
        "{\"db_id\": \"a\", \"gold\": \"SELECT 1\", \"gold_mysql\": \"SELECT 1 FROM DUAL\"}\n\
         {\"db_id\": \"a\", \"gold\": \"SELECT 2\"}\n",
    );
    let b = load_benchmark(dir.path(), "dev").unwrap();
    assert_eq!(b.questions[0].gold_for(Mysql), "SELECT 1 FROM DUAL");
    assert_eq!(b.questions[0].gold_for(Postgres), "SELECT 1");
    assert!(b.gold_sources[&Mysql].starts_with("gold_mysql in"));
    write(
        dir.path(),
        "bad.jsonl",
        "{\"db_id\": \"a\", \"gold\": \"x\", \"gold_oracle\": \"y\"}\n",
    );
    let e = load_benchmark(dir.path(), "bad").unwrap_err().to_string();
    assert!(
        e.contains("gold_oracle") && e.contains("unknown engine"),
        "{e}"
    );

    let g = dir.path().join("pg.sql");
    write(dir.path(), "pg.sql", "SELECT 10\ta\n\n");
    let golds = sqlwitness_bench::load_engine_golds(&g, &b).unwrap();
    assert_eq!(golds, vec![Some("SELECT 10".to_string()), None]);
    write(dir.path(), "pg.sql", "SELECT 10\tb\nSELECT 2\n");
    let e = sqlwitness_bench::load_engine_golds(&g, &b)
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 1") && e.contains("db_id `b`"), "{e}");
    write(dir.path(), "pg.sql", "SELECT 10\n");
    assert!(sqlwitness_bench::load_engine_golds(&g, &b).is_err());
    // A tab inside a query whose last field is no name stays the query's.
    write(dir.path(), "pg.sql", "SELECT 'a\tb c'\nSELECT 2\ta\n");
    let golds = sqlwitness_bench::load_engine_golds(&g, &b).unwrap();
    assert_eq!(golds[0].as_deref(), Some("SELECT 'a\tb c'"));
    assert_eq!(golds[1].as_deref(), Some("SELECT 2"));
    // A JSON array in question order: objects (SQL / query / sql), strings
    // or null.
    let j = dir.path().join("my.json");
    write(
        dir.path(),
        "my.json",
        r#"[{"db_id": "a", "query": "SELECT 1 FROM DUAL"}, null]"#,
    );
    let golds = sqlwitness_bench::load_engine_golds(&j, &b).unwrap();
    assert_eq!(golds, vec![Some("SELECT 1 FROM DUAL".to_string()), None]);
    write(
        dir.path(),
        "my.json",
        r#"[{"db_id": "b", "SQL": "x"}, "SELECT 2"]"#,
    );
    let e = sqlwitness_bench::load_engine_golds(&j, &b)
        .unwrap_err()
        .to_string();
    assert!(e.contains("[0].db_id"), "{e}");
    write(dir.path(), "my.json", r#"["SELECT 1"]"#);
    assert!(sqlwitness_bench::load_engine_golds(&j, &b).is_err());
}

/// The shipped mini-dev files load as they are (500 questions, its two
/// repeated question ids, a MySQL and a PostgreSQL gold for each).
#[test]
fn the_shared_minidev_loads() {
    use sqlwitness_core::builtin_engines::*;
    let Some(root) = sqlwitness_testkit::shared_data("bird_minidev") else {
        return;
    };
    let b = load_benchmark(&root, "mini_dev").unwrap();
    assert_eq!(b.questions.len(), 500);
    assert_eq!(b.questions[0].source_id, Some(1471));
    assert!(b
        .questions
        .iter()
        .all(|q| q.dialect_gold(Mysql).is_some() && q.dialect_gold(Postgres).is_some()));
    let mysql = root.join("predictions/predict_mini_dev_gpt-4-turbo_mysql.json");
    assert_eq!(load_predictions(&mysql, &b).unwrap().len(), 500);
}

/// A key an entry repeats takes its last value, as Python's `json` does,
/// and is named in a warning; Spider's parse-only fields are not kept.
#[test]
fn repeated_keys_are_named_and_parse_only_fields_dropped() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "dev.json",
        r#"[{"db_id": "a", "question": "q0", "query": "SELECT 1", "query": "SELECT 2",
             "sql": {"select": [false, []]}, "query_toks": ["SELECT", "1"]},
            {"db_id": "a", "question": "q1", "query": "SELECT 3"}]"#,
    );
    write(dir.path(), "tables.json", "[]");
    let b = load_benchmark(dir.path(), "dev").unwrap();
    assert_eq!(b.questions[0].gold, "SELECT 2");
    assert_eq!(b.warnings.len(), 1, "{:?}", b.warnings);
    assert!(b.warnings[0].contains("[0].query"), "{:?}", b.warnings);
    assert!(b.warnings[0].contains("dev.json"), "{:?}", b.warnings);
}

#[test]
fn a_gold_field_may_list_several_accepted_golds() {
    let several = |q: &sqlwitness_bench::Question| (q.gold.clone(), q.alternatives.clone());
    let listed = (
        "SELECT 1".to_string(),
        vec!["SELECT 2".to_string(), "SELECT 3".to_string()],
    );
    // Spider: `query`.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "tables.json", "[]");
    write(
        dir.path(),
        "dev.json",
        r#"[{"db_id": "a", "question": "q0", "query": ["SELECT 1", "SELECT 2", "SELECT 3"]},
            {"db_id": "a", "question": "q1", "query": "SELECT 4"}]"#,
    );
    let b = load_benchmark(dir.path(), "dev").unwrap();
    assert_eq!(several(&b.questions[0]), listed);
    assert!(b.questions[1].alternatives.is_empty());
    // A one-element list is a single gold.
    write(
        dir.path(),
        "one.json",
        r#"[{"db_id": "a", "question": "q", "query": ["SELECT 1"]}]"#,
    );
    let b = load_benchmark(dir.path(), "one").unwrap();
    assert_eq!(several(&b.questions[0]), ("SELECT 1".into(), vec![]));
    // An empty list and a list with a non-string name the place.
    write(
        dir.path(),
        "empty.json",
        r#"[{"db_id": "a", "question": "q", "query": []}]"#,
    );
    let e = load_benchmark(dir.path(), "empty").unwrap_err().to_string();
    assert!(
        e.contains("empty.json") && e.contains("[0].query") && e.contains("empty list"),
        "{e}"
    );
    write(
        dir.path(),
        "mixed.json",
        r#"[{"db_id": "a", "question": "q", "query": ["SELECT 1", 2]}]"#,
    );
    let e = load_benchmark(dir.path(), "mixed").unwrap_err().to_string();
    assert!(e.contains("[0].query[1]") && e.contains("number"), "{e}");

    // BIRD: `SQL`.
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "dev.json",
        r#"[{"question_id": 0, "db_id": "x", "question": "q", "evidence": "",
             "SQL": ["SELECT 1", "SELECT 2", "SELECT 3"]}]"#,
    );
    let b = load_benchmark(dir.path(), "dev").unwrap();
    assert_eq!(b.format, BenchmarkFormat::Bird);
    assert_eq!(several(&b.questions[0]), listed);

    // JSONL: `gold`.
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "dev.jsonl",
        "{\"db_id\": \"a\", \"gold\": [\"SELECT 1\", \"SELECT 2\", \"SELECT 3\"]}\n{\"db_id\": \"a\", \"gold\": \"SELECT 4\"}\n",
    );
    let b = load_benchmark(dir.path(), "dev").unwrap();
    assert_eq!(b.format, BenchmarkFormat::Jsonl);
    assert_eq!(several(&b.questions[0]), listed);
    assert!(b.questions[1].alternatives.is_empty());
    write(
        dir.path(),
        "bad.jsonl",
        "{\"db_id\": \"a\", \"gold\": {}}\n",
    );
    let e = load_benchmark(dir.path(), "bad").unwrap_err().to_string();
    assert!(
        e.contains("line 1: gold") && e.contains("list of strings"),
        "{e}"
    );
}
