//! End-to-end: results over `--max-result-mb` are compared by their rows'
//! keys, on every engine, with the verdicts the comparison of their values
//! gives — and a prediction whose differences the keys cannot settle within
//! the limit is the tool's `engine_error`, never the model's mismatch.

use serde_json::Value as Json;
use std::path::Path;
use std::process::Command;

/// Enough rows for their values (about 200 bytes a row) to pass 1 MiB and
/// their keys (about 90) not to.
const ROWS: i64 = 10_000;

/// A Spider-layout benchmark: one table of `ROWS` rows (`a` a real; `b`
/// equal to `a` but 1% of rows off in the 10th significant digit; `c` off
/// by 1 in 1% of rows; `d` every row off in the 10th digit), and the
/// questions with their predictions.
fn benchmark(dir: &Path) -> Vec<(&'static str, &'static str)> {
    let db = dir.join("database/large_result_keys");
    std::fs::create_dir_all(&db).unwrap();
    let c = rusqlite::Connection::open(db.join("large_result_keys.sqlite")).unwrap();
    c.execute_batch(
        "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, a REAL, b REAL, c REAL, d REAL);",
    )
    .unwrap();
    let tx = c.unchecked_transaction().unwrap();
    {
        let mut ins = tx
            .prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
            .unwrap();
        for i in 0..ROWS {
            let a = (i as f64) / 7.0 + 0.5;
            let noisy = a * (1.0 + 1e-10);
            let b = if i % 100 == 0 { noisy } else { a };
            let cc = if i % 100 == 0 { a + 1.0 } else { a };
            ins.execute(rusqlite::params![
                i,
                format!("name {:05} {}", i * 7919 % ROWS, "x".repeat(100)),
                a,
                b,
                cc,
                noisy
            ])
            .unwrap();
        }
    }
    tx.commit().unwrap();
    let questions = vec![
        (
            "SELECT id, name, a FROM t",
            "SELECT id, name, a FROM t ORDER BY id DESC",
        ),
        (
            "SELECT id, name, a FROM t ORDER BY id",
            "SELECT id, name, a FROM t ORDER BY id DESC",
        ),
        ("SELECT id, name, a FROM t", "SELECT id, name, b FROM t"),
        (
            "SELECT id, name, a FROM t ORDER BY id",
            "SELECT id, name, b FROM t ORDER BY id",
        ),
        ("SELECT id, name, a FROM t", "SELECT id, name, c FROM t"),
        (
            "SELECT id, name, a FROM t",
            "SELECT id, upper(name), a FROM t",
        ),
        (
            "SELECT id, name, a FROM t",
            "SELECT id, name, a FROM t WHERE id > 0",
        ),
        ("SELECT id, name, a FROM t", "SELECT id, name, d FROM t"),
    ];
    let dev: Vec<Json> = questions
        .iter()
        .map(
            |(g, _)| serde_json::json!({"db_id": "large_result_keys", "question": "q", "query": g}),
        )
        .collect();
    std::fs::write(dir.join("dev.json"), serde_json::to_string(&dev).unwrap()).unwrap();
    let cols = ["id", "name", "a", "b", "c", "d"];
    let mut names = vec![serde_json::json!([-1, "*"])];
    names.extend(cols.iter().map(|c| serde_json::json!([0, c])));
    let tables = serde_json::json!([{
        "db_id": "large_result_keys",
        "table_names_original": ["t"], "table_names": ["t"],
        "column_names_original": names, "column_names": names,
        "column_types": ["text", "number", "text", "number", "number", "number", "number"],
        "primary_keys": [1], "foreign_keys": []
    }]);
    std::fs::write(dir.join("tables.json"), tables.to_string()).unwrap();
    let pred: Vec<&str> = questions.iter().map(|(_, p)| *p).collect();
    std::fs::write(dir.join("pred.sql"), pred.join("\n") + "\n").unwrap();
    questions
}

fn eval(bench: &Path, out: &Path, engines: &str, extra: &[String]) -> Json {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sqlwitness"));
    cmd.args(["eval", "--bench"])
        .arg(bench)
        .arg("--pred")
        .arg(bench.join("pred.sql"))
        .args(["--engines", engines, "--out"])
        .arg(out)
        .arg("-q")
        .args(extra);
    // The exit code says mismatches and engine errors were found.
    let o = cmd.output().unwrap();
    let report = std::fs::read_to_string(out.join("report.json"))
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    serde_json::from_str(&report).unwrap()
}

/// Per question and engine: the verdict and the mismatch reason.
fn verdicts(report: &Json, engine: &str) -> Vec<(String, String)> {
    report["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            let o = &q["engines"][engine];
            (
                o["verdict"].as_str().unwrap().to_string(),
                o["reason"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn results_over_the_limit_are_judged_by_their_keys_as_by_their_values() {
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    benchmark(&bench);
    let servers = sqlwitness_testkit::servers();
    let engines = sqlwitness_testkit::engine_names(&servers).join(",");
    let mut extra = sqlwitness_testkit::server_args(&servers);
    extra.extend(["--max-result-mb".to_string(), "1".to_string()]);
    let by_keys = eval(&bench, &dir.path().join("keys"), &engines, &extra);
    let n = extra.len();
    extra[n - 1] = "64".into();
    let by_values = eval(&bench, &dir.path().join("values"), &engines, &extra);
    let expected: Vec<(&str, &str)> = vec![
        ("match", ""),
        ("mismatch", "order"),
        ("match", ""),
        ("match", ""),
        ("mismatch", "values"),
        ("mismatch", "values"),
        ("mismatch", "row_count"),
    ];
    for engine in engines.split(',') {
        let keys = verdicts(&by_keys, engine);
        let values = verdicts(&by_values, engine);
        for (i, (want, got)) in expected.iter().zip(&keys).enumerate() {
            assert_eq!(
                (want.0, want.1),
                (got.0.as_str(), got.1.as_str()),
                "{engine} q{i}"
            );
            assert_eq!(got, &values[i], "{engine} q{i}: keys and values disagree");
        }
        // Every row off in its last digits: within the tolerance, but too
        // many to read again within 1 MB — not the model's mismatch.
        assert_eq!(values[7].0, "match", "{engine}");
        assert_eq!(keys[7].0, "engine_error", "{engine}");
        let pred = &by_keys["questions"][7]["engines"][engine]["pred"];
        assert!(
            pred["error"].as_str().unwrap().contains("--max-result-mb"),
            "{engine}: {pred}"
        );
        // The report is the same size whatever the result's: a row count,
        // a hash, a sample.
        for q in 0..7 {
            let k = &by_keys["questions"][q]["engines"][engine]["gold"];
            let v = &by_values["questions"][q]["engines"][engine]["gold"];
            assert_eq!(k["row_count"], v["row_count"], "{engine} q{q}");
            assert_eq!(k["result_hash"], v["result_hash"], "{engine} q{q}");
            assert_eq!(k["sample"], v["sample"], "{engine} q{q}");
        }
    }
}
