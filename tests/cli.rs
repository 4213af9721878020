//! End-to-end tests of the `sqlwitness` binary on the Spider dev example
//! shipped in `examples/spider-dev` and on the full data in `../shared/data`.

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn sqlwitness() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sqlwitness"));
    c.current_dir(repo());
    c
}

fn run_ok(args: &[&str]) -> String {
    let out = sqlwitness().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "sqlwitness {args:?} failed: {stderr}");
    stderr
}

/// Owned arguments, to extend with `--server` and `--pred` pairs.
fn owned(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

fn read_json(path: &Path) -> Json {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Required servers: returns the URL or skips loudly (fails under
/// SQLWITNESS_REQUIRE_ENGINES=1).

#[test]
fn gold_self_check_on_shipped_spider_dev_is_complete_on_sqlite() {
    let out = tempfile::tempdir().unwrap();
    run_ok(&[
        "eval",
        "--bench",
        "examples/spider-dev",
        "--split",
        "dev",
        "--out",
        out.path().to_str().unwrap(),
        "-q",
    ]);
    let report = read_json(&out.path().join("report.json"));
    let s = &report["summary"]["engines"]["sqlite"];
    assert_eq!(s["questions"], 1034);
    assert_eq!(s["match"], 972, "{s}");
    assert_eq!(s["missing_db"], 62, "{s}");
    assert_eq!(s["gold_error"], 0, "{s}");
    assert_eq!(s["pred_error"], 0, "{s}");
    assert_eq!(s["ex"], 1.0);
    assert_eq!(report["format_version"], 1);
    let q0 = &report["questions"][0];
    assert_eq!(q0["db_id"], "concert_singer");
    assert_eq!(q0["engines"]["sqlite"]["verdict"], "match");
    assert_eq!(q0["engines"]["sqlite"]["gold"]["row_count"], 1);
    let wta = report["questions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["db_id"] == "wta_1")
        .unwrap();
    assert_eq!(wta["engines"]["sqlite"]["verdict"], "missing_db");
    let md = std::fs::read_to_string(out.path().join("summary.md")).unwrap();
    assert!(md.contains("| sqlite |"), "{md}");
    // Spider hardness as the official evaluator counts it on dev, and the
    // gold's Soft F1 against itself.
    let h = &s["by_hardness"];
    let counts: Vec<u64> = ["easy", "medium", "hard", "extra", "all"]
        .iter()
        .map(|l| h[l]["questions"].as_u64().unwrap())
        .collect();
    assert_eq!(counts, [248, 446, 174, 166, 1034], "{h}");
    assert_eq!(h["all"]["ex"], 1.0);
    assert_eq!(s["soft_f1"], 1.0);
    assert_eq!(q0["hardness"], "easy");
    // The count row is what EX divides by: the 972 questions with a
    // database, as the official tables count them; the 62 on wta_1 (not
    // shipped) are named under the table.
    let scored: Vec<u64> = ["easy", "medium", "hard", "extra", "all"]
        .iter()
        .map(|l| h[l]["scored"].as_u64().unwrap())
        .collect();
    assert_eq!(scored, [232, 416, 160, 164, 972], "{h}");
    assert!(
        md.contains("| sqlite | count | 232 | 416 | 160 | 164 | 972 |"),
        "{md}"
    );
    assert!(
        md.contains("sqlite: 62 of the 1034 questions are left out of `count`"),
        "{md}"
    );
}

#[test]
fn real_predictions_are_scored_in_every_mode() {
    let pred = repo().join("../shared/data/spider/predictions/resdsql_natsql_3b.sql");
    if !pred.exists() {
        panic!(
            "{} is missing: the tests use ../shared/data",
            pred.display()
        );
    }
    let mut ex = Vec::new();
    for mode in [
        "strict",
        "spider",
        "bird",
        "spider2",
        "livesqlbench",
        "defog",
    ] {
        let out = tempfile::tempdir().unwrap();
        run_ok(&[
            "eval",
            "--bench",
            "examples/spider-dev",
            "--pred",
            pred.to_str().unwrap(),
            "--compare",
            mode,
            "--db",
            "concert_singer,pets_1",
            "--out",
            out.path().to_str().unwrap(),
            "-q",
        ]);
        let report = read_json(&out.path().join("report.json"));
        assert_eq!(report["run"]["compare"], mode);
        // What the mode credits and strict comparison does not, with the cause.
        let credited: Vec<&Json> = report["questions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| &q["engines"]["sqlite"])
            .filter(|o| o.get("credit_causes").is_some())
            .collect();
        for o in &credited {
            assert_eq!(o["verdict"], "match", "{o}");
            assert!(!o["credit_causes"].as_array().unwrap().is_empty(), "{o}");
        }
        if mode == "strict" {
            assert!(credited.is_empty());
        }
        let md = std::fs::read_to_string(out.path().join("summary.md")).unwrap();
        assert_eq!(
            md.contains("not by strict comparison"),
            !credited.is_empty(),
            "{mode}: {md}"
        );
        eprintln!("{mode}: {} credited beyond strict", credited.len());
        let s = &report["summary"]["engines"]["sqlite"];
        let total: u64 = [
            "match",
            "mismatch",
            "gold_error",
            "pred_error",
            "abstained",
            "missing_db",
            "timeout",
        ]
        .iter()
        .map(|k| s[*k].as_u64().unwrap())
        .sum();
        assert_eq!(total, s["questions"].as_u64().unwrap(), "{mode}: {s}");
        assert_eq!(s["questions"], 45 + 42, "{mode}: {s}");
        assert!(s["match"].as_u64().unwrap() > 60, "{mode}: {s}");
        ex.push(s["ex"].as_f64().unwrap());
    }
    eprintln!("EX strict/spider/bird/spider2/livesqlbench/defog: {ex:?}");
}

#[test]
fn bad_prediction_file_is_a_clear_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let pred = dir.path().join("short.sql");
    std::fs::write(&pred, "SELECT 1\nSELECT 2\n").unwrap();
    let out = sqlwitness()
        .args([
            "eval",
            "--bench",
            "examples/spider-dev",
            "--pred",
            pred.to_str().unwrap(),
            "--out",
            dir.path().join("o").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("short.sql"), "{stderr}");
}

#[test]
fn hostile_predictions_never_change_the_database_and_get_a_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    std::fs::create_dir_all(bench.join("database/concert_singer")).unwrap();
    let src = repo().join("examples/spider-dev/database/concert_singer/concert_singer.sqlite");
    let db = bench.join("database/concert_singer/concert_singer.sqlite");
    std::fs::copy(&src, &db).unwrap();
    let hostile = [
        "DROP TABLE singer",
        "SELECT 1; DROP TABLE singer",
        "DELETE FROM singer",
        "ATTACH DATABASE '/tmp/x.sqlite' AS x",
        "SELECT load_extension('/tmp/x')",
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
        "PRAGMA writable_schema = 1",
    ];
    let gold_line = r#"{"db_id": "concert_singer", "gold": "SELECT count(*) FROM singer"}"#;
    std::fs::write(
        bench.join("dev.jsonl"),
        vec![gold_line; hostile.len()].join("\n"),
    )
    .unwrap();
    let preds: Vec<String> = hostile
        .iter()
        .enumerate()
        .map(|(i, h)| {
            format!(
                "{{\"id\": {i}, \"sql\": {}}}",
                serde_json::to_string(h).unwrap()
            )
        })
        .collect();
    std::fs::write(dir.path().join("p.jsonl"), preds.join("\n")).unwrap();
    let before = std::fs::read(&db).unwrap();
    let out = dir.path().join("out");
    run_ok(&[
        "eval",
        "--bench",
        bench.to_str().unwrap(),
        "--pred",
        dir.path().join("p.jsonl").to_str().unwrap(),
        "--timeout",
        "1",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(before, std::fs::read(&db).unwrap(), "the database changed");
    let report = read_json(&out.join("report.json"));
    let s = &report["summary"]["engines"]["sqlite"];
    assert_eq!(s["match"], 0, "{s}");
    assert_eq!(
        s["pred_error"].as_u64().unwrap() + s["timeout"].as_u64().unwrap(),
        hostile.len() as u64,
        "{s}"
    );
    assert_eq!(s["timeout"], 1, "{s}");
}

/// The gold self-check in one run on every configured engine (SQLite,
/// PostgreSQL, MySQL, MariaDB): each engine counts its gold errors by class
/// and every gold that runs matches itself.
#[test]
fn servers_self_check_counts_gold_errors_by_class() {
    let servers = sqlwitness_testkit::servers();
    if servers.is_empty() {
        return;
    }
    let engines = sqlwitness_testkit::engine_names(&servers);
    let out = tempfile::tempdir().unwrap();
    let mut args = owned(&[
        "eval",
        "--bench",
        "examples/spider-dev",
        "--engines",
        &engines.join(","),
        "--db",
        "concert_singer",
        "--out",
        out.path().to_str().unwrap(),
        "-q",
    ]);
    args.extend(sqlwitness_testkit::server_args(&servers));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_ok(&args);
    let report = read_json(&out.path().join("report.json"));
    for engine in &engines {
        let s = &report["summary"]["engines"][engine];
        assert_eq!(s["questions"], 45, "{engine}: {s}");
        let classes: u64 = s["gold_error_classes"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(classes, s["gold_error"].as_u64().unwrap(), "{engine}: {s}");
        // Every gold that runs must match itself.
        assert_eq!(
            s["match"].as_u64().unwrap() + s["gold_error"].as_u64().unwrap(),
            45,
            "{engine}: {s}"
        );
    }
    assert_eq!(report["summary"]["engines"]["sqlite"]["match"], 45);
    let run_engines = report["run"]["engines"].as_array().unwrap();
    let kinds: Vec<&str> = run_engines
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, engines, "each engine reports itself");
    assert!(run_engines
        .iter()
        .all(|e| !e["version"].as_str().unwrap().is_empty()));
    // The collation of the MySQL-family copies is recorded.
    for (kind, _) in &servers {
        if sqlwitness_dialect::shipped(*kind).adapter == sqlwitness_dialect::Adapter::Mysql {
            let c = report["run"]["collations"][kind.as_str()]
                .as_str()
                .unwrap_or("");
            assert!(c.starts_with("utf8mb4"), "{kind}: {c}");
        }
    }
}

/// BIRD mini-dev as it ships, on stand-in databases built from its
/// `dev_tables.json`: each engine runs its own gold and its own
/// predictions, in one command; MariaDB takes MySQL's.
#[test]
fn bird_minidev_golds_and_predictions_run_each_on_its_engine() {
    let Some(shared) = sqlwitness_testkit::shared_data("bird_minidev") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for f in [
        "dev_tables.json",
        "mini_dev_sqlite.json",
        "mini_dev_mysql.json",
        "mini_dev_postgresql.json",
    ] {
        std::fs::copy(shared.join(f), dir.path().join(f)).unwrap();
    }
    let bench = dir.path().to_str().unwrap();
    run_ok(&[
        "stand-ins",
        "--tables",
        &format!("{bench}/dev_tables.json"),
        "--out",
        &format!("{bench}/dev_databases"),
    ]);
    let servers = sqlwitness_testkit::servers();
    let engines = sqlwitness_testkit::engine_names(&servers);
    let pred = |d: &str| {
        shared
            .join(format!("predictions/predict_mini_dev_gpt-4-turbo_{d}.json"))
            .display()
            .to_string()
    };
    let out = dir.path().join("out");
    let mut args = owned(&[
        "eval",
        "--bench",
        bench,
        "--split",
        "mini_dev",
        "--db",
        "debit_card_specializing,student_club",
        "--engines",
        &engines.join(","),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    for (flag, value) in [
        ("--pred", format!("sqlite={}", pred("sqlite"))),
        ("--pred", format!("mysql={}", pred("mysql"))),
        ("--pred", format!("postgresql={}", pred("postgresql"))),
    ] {
        args.extend([flag.to_string(), value]);
    }
    args.extend(sqlwitness_testkit::server_args(&servers));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_ok(&args);
    let report = read_json(&out.join("report.json"));
    let qs = report["questions"].as_array().unwrap();
    assert!(qs.len() > 50, "{}", qs.len());
    for engine in &engines {
        let s = &report["summary"]["engines"][engine];
        assert_eq!(
            s["questions"].as_u64().unwrap(),
            qs.len() as u64,
            "{engine}: {s}"
        );
        assert_eq!(s["engine_error"], 0, "{engine}: {s}");
        assert_eq!(s["missing_db"], 0, "{engine}: {s}");
        // Most golds run on the stand-ins.
        assert!(
            s["gold_error"].as_u64().unwrap() * 5 < qs.len() as u64,
            "{engine}: {s}"
        );
        // BIRD's levels, in every engine's summary.
        let d = &s["by_difficulty"];
        let total: u64 = ["simple", "moderate", "challenging"]
            .iter()
            .map(|l| d[l]["questions"].as_u64().unwrap_or(0))
            .sum();
        assert_eq!(total, qs.len() as u64, "{engine}: {d}");
        assert_eq!(d["total"]["questions"], qs.len() as u64, "{engine}: {d}");
    }
    let q = &qs[0];
    for (kind, _) in &servers {
        let k = kind.as_str();
        let o = &q["engines"][k];
        // A dialect gold and the engine's own prediction, recorded.
        assert!(
            o["gold_sql"].as_str().is_some_and(|g| g != q["gold_sql"]),
            "{k}: {o}"
        );
        assert!(report["run"]["golds"][k].is_string(), "{k}");
        assert!(report["run"]["engine_predictions"][k]
            .as_str()
            .unwrap()
            .contains("predict_mini_dev"));
    }
    if servers.iter().any(|(k, _)| k.as_str() == "mariadb") {
        assert!(report["run"]["golds"]["mariadb"]
            .as_str()
            .unwrap()
            .contains("mini_dev_mysql.json"));
    }
}

/// `--reference`: every engine's prediction judged against SQLite's gold
/// answer, and every engine's own gold against it, with the mechanism.
#[test]
fn the_reference_separates_the_model_from_the_dialect_gold() {
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("database/ref_t");
    std::fs::create_dir_all(&db_dir).unwrap();
    let conn = rusqlite::Connection::open(db_dir.join("ref_t.sqlite")).unwrap();
    conn.execute_batch(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, hp TEXT);
         INSERT INTO t VALUES (1, 'Ann', '150'), (2, 'bob', '90'), (3, 'Cid', '1000');",
    )
    .unwrap();
    drop(conn);
    let lines = [
        // SQLite compares TEXT with a number as text (0 rows), servers as
        // numbers (2): the dialect gold disagrees by `type`.
        r#"{"db_id": "ref_t", "gold": "SELECT count(*) FROM t WHERE hp > 95"}"#,
        // MySQL's own gold fails: the prediction still scores against the
        // reference.
        r#"{"db_id": "ref_t", "gold": "SELECT count(*) FROM t", "gold_mysql": "SELECT count(nosuch) FROM t"}"#,
    ];
    std::fs::write(dir.path().join("dev.jsonl"), lines.join("\n")).unwrap();
    let preds = dir.path().join("pred.sql");
    std::fs::write(
        &preds,
        "SELECT count(*) FROM t WHERE hp > 95\nSELECT count(id) FROM t\n",
    )
    .unwrap();
    let servers = sqlwitness_testkit::servers();
    if servers.is_empty() {
        return;
    }
    let engines = sqlwitness_testkit::engine_names(&servers);
    let out = dir.path().join("out");
    let mut args = owned(&[
        "eval",
        "--bench",
        dir.path().to_str().unwrap(),
        "--pred",
        preds.to_str().unwrap(),
        "--engines",
        &engines.join(","),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    args.extend(sqlwitness_testkit::server_args(&servers));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_ok(&args);
    let report = read_json(&out.join("report.json"));
    let q = |i: usize, e: &str| report["questions"][i]["engines"][e].clone();
    assert!(q(0, "sqlite")["reference"].is_null());
    for (kind, _) in &servers {
        let e = kind.as_str();
        let r = &q(0, e)["reference"];
        if sqlwitness_dialect::shipped(*kind).adapter == sqlwitness_dialect::Adapter::Postgres {
            // PostgreSQL has no text > integer: gold and prediction fail.
            assert_eq!(q(0, e)["verdict"], "gold_error", "{e}");
            assert_eq!(r["verdict"], "pred_error", "{e}: {r}");
        } else {
            assert_eq!(q(0, e)["verdict"], "match", "{e}");
            assert_eq!(r["verdict"], "mismatch", "{e}: {r}");
            assert_eq!(r["gold_agrees"], false, "{e}: {r}");
            assert_eq!(r["gold_mechanism"], "type", "{e}: {r}");
        }
        let r1 = &q(1, e)["reference"];
        assert_eq!(r1["verdict"], "match", "{e}: {r1}");
        let s = &report["summary"]["engines"][e]["reference"];
        assert_eq!(s["scored"], 2, "{e}: {s}");
    }
    for e in ["mysql", "mariadb"] {
        if engines.contains(&e) {
            assert_eq!(q(1, e)["verdict"], "gold_error", "{e}");
            assert_eq!(
                report["summary"]["engines"][e]["reference"]["gold_mechanisms"]["gold_error"],
                1
            );
        }
    }
}

/// `audit` writes the dialect golds it proves (`gold_<engine>.sql`), and
/// `eval --gold ENGINE=FILE` runs them: fewer gold errors, every question
/// still scored against the reference.
#[test]
fn audit_dialect_golds_feed_eval() {
    let servers = sqlwitness_testkit::servers();
    if servers.is_empty() {
        return;
    }
    let engines = sqlwitness_testkit::engine_names(&servers);
    let server_args = sqlwitness_testkit::server_args(&servers);
    let dir = tempfile::tempdir().unwrap();
    let audit_out = dir.path().join("audit");
    let db = "pets_1";
    let mut args = owned(&[
        "audit",
        "--bench",
        "examples/spider-dev",
        "--db",
        db,
        "--engines",
        &engines.join(","),
        "--out",
        audit_out.to_str().unwrap(),
        "-q",
    ]);
    args.extend(server_args.iter().cloned());
    let out = sqlwitness().args(&args).output().unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 5)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let eval = |golds: bool| -> Json {
        let out = dir.path().join(if golds { "with" } else { "without" });
        let mut args = owned(&[
            "eval",
            "--bench",
            "examples/spider-dev",
            "--db",
            db,
            "--engines",
            &engines.join(","),
            "--out",
            out.to_str().unwrap(),
            "-q",
        ]);
        args.extend(server_args.iter().cloned());
        if golds {
            for (k, _) in &servers {
                let f = audit_out.join(format!("gold_{k}.sql"));
                let text = std::fs::read_to_string(&f).unwrap();
                assert_eq!(text.lines().count(), 1034, "{}", f.display());
                args.extend(["--gold".to_string(), format!("{k}={}", f.display())]);
            }
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run_ok(&args);
        read_json(&out.join("report.json"))
    };
    let (without, with) = (eval(false), eval(true));
    for (k, _) in &servers {
        let e = k.as_str();
        let a = &without["summary"]["engines"][e];
        let b = &with["summary"]["engines"][e];
        assert!(
            b["gold_error"].as_u64() <= a["gold_error"].as_u64(),
            "{e}: {a} {b}"
        );
        assert_eq!(b["reference"]["scored"], b["questions"], "{e}: {b}");
        assert!(
            with["run"]["golds"][e].as_str().unwrap().contains("gold_"),
            "{e}"
        );
    }
}

/// A gold field given as a list: a prediction matching any accepted gold
/// is a match, and the report says which; one matching none is judged
/// against the first.
#[test]
fn several_accepted_golds_the_first_match_wins() {
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    std::fs::create_dir_all(bench.join("database/concert_singer")).unwrap();
    let shipped = repo().join("examples/spider-dev");
    std::fs::copy(
        shipped.join("database/concert_singer/concert_singer.sqlite"),
        bench.join("database/concert_singer/concert_singer.sqlite"),
    )
    .unwrap();
    std::fs::copy(shipped.join("tables.json"), bench.join("tables.json")).unwrap();
    let golds = serde_json::json!([
        "SELECT name FROM stadium ORDER BY stadium_id",
        "SELECT name FROM singer ORDER BY singer_id",
    ]);
    let entry = |query: &Json| serde_json::json!({"db_id": "concert_singer", "question": "which names?", "query": query});
    let single = Json::String("SELECT name FROM singer ORDER BY singer_id".into());
    let dev = Json::Array(vec![
        entry(&golds),
        entry(&golds),
        entry(&golds),
        entry(&single),
    ]);
    std::fs::write(bench.join("dev.json"), dev.to_string()).unwrap();
    let preds = [
        // Only the second gold's answer.
        "SELECT name FROM singer ORDER BY singer_id",
        // Neither gold's (it runs: a mismatch, not an error).
        "SELECT concert_name FROM concert ORDER BY concert_id",
        // The first gold's.
        "SELECT name FROM stadium ORDER BY stadium_id",
        // A single gold, matched.
        "SELECT name FROM singer ORDER BY singer_id",
    ];
    std::fs::write(dir.path().join("p.sql"), preds.join("\n") + "\n").unwrap();
    let out = dir.path().join("out");
    run_ok(&[
        "eval",
        "--bench",
        bench.to_str().unwrap(),
        "--split",
        "dev",
        "--pred",
        dir.path().join("p.sql").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    let report = read_json(&out.join("report.json"));
    let on = |i: usize| report["questions"][i]["engines"]["sqlite"].clone();
    // The second gold matched: recorded, with the text that matched.
    assert_eq!(on(0)["verdict"], "match", "{}", on(0));
    assert_eq!(on(0)["gold_index"], 1, "{}", on(0));
    assert_eq!(on(0)["gold_sql"], golds[1], "{}", on(0));
    assert_eq!(report["questions"][0]["gold_sql"], golds[0]);
    // None matched: the verdict against the first gold, no index.
    assert_eq!(on(1)["verdict"], "mismatch", "{}", on(1));
    assert!(on(1).get("gold_index").is_none(), "{}", on(1));
    assert!(on(1).get("gold_sql").is_none(), "{}", on(1));
    // The first gold's rows: the stadiums (9), not the singers (6).
    assert_eq!(on(1)["gold"]["row_count"], 9, "{}", on(1));
    assert_eq!(on(0)["gold"]["row_count"], 6, "{}", on(0));
    // The first gold matched: index 0, the alternatives never ran.
    assert_eq!(on(2)["verdict"], "match", "{}", on(2));
    assert_eq!(on(2)["gold_index"], 0, "{}", on(2));
    // One gold: the report is as it always was.
    assert_eq!(on(3)["verdict"], "match", "{}", on(3));
    assert!(on(3).get("gold_index").is_none(), "{}", on(3));
    let s = &report["summary"]["engines"]["sqlite"];
    assert_eq!(
        (s["match"].as_u64(), s["mismatch"].as_u64()),
        (Some(3), Some(1)),
        "{s}"
    );

    // On the servers too, judged against the SQLite reference: the
    // reference judges against the first gold's answer.
    let servers = sqlwitness_testkit::servers();
    if servers.is_empty() {
        return;
    }
    let engines = sqlwitness_testkit::engine_names(&servers);
    let out = dir.path().join("out-servers");
    let mut args = owned(&[
        "eval",
        "--bench",
        bench.to_str().unwrap(),
        "--split",
        "dev",
        "--pred",
        dir.path().join("p.sql").to_str().unwrap(),
        "--engines",
        &engines.join(","),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    args.extend(sqlwitness_testkit::server_args(&servers));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_ok(&args);
    let report = read_json(&out.join("report.json"));
    for engine in &engines {
        let e = &report["questions"][0]["engines"][engine];
        assert_eq!(e["verdict"], "match", "{engine}: {e}");
        assert_eq!(e["gold_index"], 1, "{engine}: {e}");
        if *engine != "sqlite" {
            assert_eq!(e["reference"]["verdict"], "mismatch", "{engine}: {e}");
        }
        let e = &report["questions"][1]["engines"][engine];
        assert_eq!(e["verdict"], "mismatch", "{engine}: {e}");
    }
}

/// A plan refused for bad input leaves the output folder as it was: the
/// earlier run's report is neither removed nor replaced; a run whose plan
/// holds replaces it.
#[test]
fn a_refused_plan_leaves_the_earlier_report() {
    let out = tempfile::tempdir().unwrap();
    let out_s = out.path().to_str().unwrap();
    let base = [
        "eval",
        "--bench",
        "examples/spider-dev",
        "--limit",
        "2",
        "-q",
        "--out",
        out_s,
    ];
    run_ok(&base);
    let report = out.path().join("report.json");
    let before = std::fs::read(&report).unwrap();
    for bad in [
        vec!["--engines", "sqlite,nosuch"],
        vec!["--pred", "no/such/predictions.sql"],
        vec!["--db", "no_such_database"],
    ] {
        let o = sqlwitness().args(base).args(&bad).output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(2),
            "{bad:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(std::fs::read(&report).unwrap(), before, "{bad:?}");
    }
    let audit = [
        "audit",
        "--bench",
        "examples/spider-dev",
        "-q",
        "--out",
        out_s,
    ];
    let o = sqlwitness()
        .args(audit)
        .args(["--engines", "nosuch"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read(&report).unwrap(), before, "audit");
    run_ok(&[
        "eval",
        "--bench",
        "examples/spider-dev",
        "--limit",
        "1",
        "-q",
        "--out",
        out_s,
    ]);
    let after = read_json(&report);
    assert_eq!(after["summary"]["engines"]["sqlite"]["questions"], 1);
}
