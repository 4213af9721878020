//! The hostile-benchmark corpus: Spider-layout benchmarks built as an
//! attacker (or a half-finished download) would leave them, run through
//! `eval` and `migrate` on SQLite and on every configured server.
//!
//! - a `db_id` that is a path (absolute, `..`, separators), empty or with
//!   control characters is refused when the benchmark is read: exit 2, the
//!   message names the file and the entry, nothing is read or written
//!   outside the benchmark and the output folders;
//! - a byte order mark at the start of `dev.json`, `tables.json` or a JSONL
//!   file is accepted;
//! - a database that cannot be used (truncated, random bytes after a valid
//!   header, a schema that does not parse, a virtual table of an unknown
//!   module, an empty file, a link outside the benchmark) does not sink the
//!   run: its questions are `engine_error` on every engine, the good
//!   database is judged, the report is written, and the run exits 3;
//! - a database that cannot be migrated to a server is `engine_error`
//!   there, named "not migrated", and the run exits 3.
//!
//! Server copies are made under a namespace prefix unique to the test
//! process and dropped at the end.

use serde_json::{json, Value as Json};
use sqlwitness_core::EngineKind;
use sqlwitness_migrate::MigrationTarget;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    sqlwitness_testkit::repo_root()
}

fn example_db() -> PathBuf {
    repo().join("examples/spider-dev/database/concert_singer/concert_singer.sqlite")
}

/// A namespace prefix no other test process uses.
fn prefix(test: &str) -> String {
    format!("h_benchfiles_{test}_{}_", std::process::id())
}

/// A Spider-layout benchmark in `root`: `dev.json` from `entries`, an empty
/// `tables.json`.
fn spider(root: &Path, entries: &[Json]) {
    std::fs::create_dir_all(root.join("database")).unwrap();
    std::fs::write(
        root.join("dev.json"),
        Json::Array(entries.to_vec()).to_string(),
    )
    .unwrap();
    std::fs::write(root.join("tables.json"), "[]").unwrap();
}

fn entry(db_id: &str, question: &str, query: &str) -> Json {
    json!({"db_id": db_id, "question": question, "query": query})
}

/// Places a copy of concert_singer as `db_id` in the benchmark.
fn good_db(root: &Path, db_id: &str) -> PathBuf {
    let dir = root.join("database").join(db_id);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{db_id}.sqlite"));
    std::fs::copy(example_db(), &path).unwrap();
    path
}

fn sqlwitness(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sqlwitness"))
        .current_dir(repo())
        .args(args)
        .output()
        .unwrap()
}

/// Runs sqlwitness with `args` and `--server ENGINE=URL` for each of
/// `servers`.
fn sqlwitness_on(args: &[&str], servers: &[(EngineKind, String)]) -> Output {
    let servers = sqlwitness_testkit::server_args(servers);
    let mut all = args.to_vec();
    all.extend(servers.iter().map(String::as_str));
    sqlwitness(&all)
}

/// The report.json a run wrote into `out`.
fn report_in(out: &Path) -> Json {
    serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Drops the server copies of `db_ids` made under `prefix`.
fn drop_copies(servers: &[(EngineKind, String)], prefix: &str, db_ids: &[&str]) {
    for (kind, url) in servers {
        let target = MigrationTarget::new(*kind, url.clone());
        for id in db_ids {
            let ns = sqlwitness_core::Database::with_prefix(*id, PathBuf::new(), prefix).namespace;
            let _ = sqlwitness_migrate::drop_namespace(&target, &ns);
        }
    }
}

#[test]
fn a_db_id_that_is_a_path_is_refused_naming_the_entry() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    // What an escaping db_id would read: a valid database outside.
    for name in ["escape_abs", "escape_rel"] {
        std::fs::create_dir_all(outside.join(name)).unwrap();
        std::fs::copy(example_db(), outside.join(format!("{name}.sqlite"))).unwrap();
    }
    let abs = outside.join("escape_abs").display().to_string();
    let cases: Vec<(&str, String, &str)> = vec![
        ("absolute", abs, "path separator"),
        (
            "relative",
            "../../outside/escape_rel".into(),
            "path separator",
        ),
        ("dotdot", "..".into(), "is a path"),
        ("dot", ".".into(), "is a path"),
        ("backslash", "..\\..\\outside".into(), "path separator"),
        ("empty", String::new(), "empty db_id"),
        ("nul", "concert\0singer".into(), "control character U+0000"),
        (
            "newline",
            "concert\nsinger".into(),
            "control character U+000A",
        ),
    ];
    let servers = sqlwitness_testkit::servers();
    for (name, db_id, says) in &cases {
        let bench = dir.path().join(format!("bench_{name}"));
        spider(
            &bench,
            &[
                entry("good", "How many singers?", "SELECT count(*) FROM singer"),
                entry(db_id, "How many stadiums?", "SELECT count(*) FROM stadium"),
            ],
        );
        good_db(&bench, "good");
        let out = dir.path().join(format!("out_{name}"));
        let o = sqlwitness(&[
            "eval",
            "--bench",
            bench.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-q",
        ]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains("dev.json"), "{name}: {err}");
        assert!(err.contains("[1].db_id"), "{name}: {err}");
        assert!(err.contains("How many stadiums?"), "{name}: {err}");
        assert!(err.contains(says), "{name}: {err}");
        assert!(!out.join("report.json").exists(), "{name}");
        // migrate: refused before any server is touched or any log written.
        let logs = dir.path().join(format!("logs_{name}"));
        let mut args = vec![
            "migrate".to_string(),
            "--bench".into(),
            bench.to_str().unwrap().into(),
            "--log-dir".into(),
            logs.to_str().unwrap().into(),
            "--namespace-prefix".into(),
            prefix("path"),
            "-q".into(),
        ];
        if !servers.is_empty() {
            let engines: Vec<&str> = servers.iter().map(|(k, _)| k.as_str()).collect();
            args.extend(["--engines".into(), engines.join(",")]);
            args.extend(sqlwitness_testkit::server_args(&servers));
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = sqlwitness(&args);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "migrate {name}: {err}");
            assert!(err.contains("[1].db_id"), "migrate {name}: {err}");
            assert!(files_under(&logs).is_empty(), "migrate {name}");
        }
    }
    // Nothing written beside the databases an escaping db_id names.
    let written: Vec<PathBuf> = files_under(&outside)
        .into_iter()
        .filter(|p| p.extension().is_none_or(|e| e != "sqlite"))
        .collect();
    assert!(written.is_empty(), "files written outside: {written:?}");
    // `--db` takes names too.
    if !servers.is_empty() {
        let bench = dir.path().join("bench_flag");
        spider(
            &bench,
            &[entry(
                "good",
                "How many singers?",
                "SELECT count(*) FROM singer",
            )],
        );
        good_db(&bench, "good");
        let mut args = vec![
            "migrate".to_string(),
            "--bench".into(),
            bench.to_str().unwrap().into(),
            "--db".into(),
            "../outside".into(),
            "--engines".into(),
            servers[0].0.as_str().into(),
        ];
        args.extend(sqlwitness_testkit::server_args(&servers[..1]));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = sqlwitness(&args);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("--db"), "{}", stderr(&o));
    }
}

#[test]
fn other_layouts_and_tables_json_refuse_path_db_ids_too() {
    let dir = tempfile::tempdir().unwrap();
    let run = |bench: &Path| {
        let out = bench.join("out");
        sqlwitness(&[
            "eval",
            "--bench",
            bench.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-q",
        ])
    };
    // dev_gold.sql: `SQL<TAB>db_id`, the place is the line.
    let gold = dir.path().join("gold");
    std::fs::create_dir_all(gold.join("database")).unwrap();
    std::fs::write(gold.join("tables.json"), "[]").unwrap();
    std::fs::write(
        gold.join("dev_gold.sql"),
        "SELECT count(*) FROM singer\tgood\nSELECT 1\t../../etc\n",
    )
    .unwrap();
    let o = run(&gold);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("dev_gold.sql: line 2"),
        "{}",
        stderr(&o)
    );
    // JSONL: the line, and the question.
    let jsonl = dir.path().join("jsonl");
    std::fs::create_dir_all(jsonl.join("database")).unwrap();
    std::fs::write(
        jsonl.join("dev.jsonl"),
        format!(
            "{}\n{}\n",
            json!({"db_id": "good", "question": "q0", "gold": "SELECT 1"}),
            json!({"db_id": "", "question": "the empty one", "gold": "SELECT 1"})
        ),
    )
    .unwrap();
    let o = run(&jsonl);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("dev.jsonl: line 2: db_id"), "{err}");
    assert!(
        err.contains("the empty one") && err.contains("empty db_id"),
        "{err}"
    );
    // BIRD layout.
    let bird = dir.path().join("bird");
    std::fs::create_dir_all(bird.join("dev_databases")).unwrap();
    std::fs::write(
        bird.join("dev.json"),
        json!([{"db_id": "/etc", "question": "q", "SQL": "SELECT 1", "question_id": 0}])
            .to_string(),
    )
    .unwrap();
    let o = run(&bird);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("[0].db_id"), "{}", stderr(&o));
    // tables.json (its db_ids name the stand-in databases written from it).
    let tables = dir.path().join("tables");
    spider(
        &tables,
        &[entry(
            "good",
            "How many singers?",
            "SELECT count(*) FROM singer",
        )],
    );
    good_db(&tables, "good");
    std::fs::write(
        tables.join("tables.json"),
        json!([{"db_id": "../x", "table_names_original": [], "column_names_original": [],
                "column_types": [], "primary_keys": [], "foreign_keys": []}])
        .to_string(),
    )
    .unwrap();
    let o = run(&tables);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("tables.json: [0].db_id"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let bom = |text: String| {
        let mut b = b"\xEF\xBB\xBF".to_vec();
        b.extend(text.into_bytes());
        b
    };
    let bench = dir.path().join("spider");
    spider(
        &bench,
        &[entry(
            "good",
            "How many singers?",
            "SELECT count(*) FROM singer",
        )],
    );
    good_db(&bench, "good");
    let dev = std::fs::read_to_string(bench.join("dev.json")).unwrap();
    std::fs::write(bench.join("dev.json"), bom(dev)).unwrap();
    std::fs::write(bench.join("tables.json"), bom("[]".into())).unwrap();
    let jsonl = dir.path().join("jsonl");
    good_db(&jsonl, "good");
    std::fs::write(
        jsonl.join("dev.jsonl"),
        bom(
            json!({"db_id": "good", "question": "q", "gold": "SELECT count(*) FROM singer"})
                .to_string(),
        ),
    )
    .unwrap();
    let pred = dir.path().join("pred.sql");
    std::fs::write(&pred, bom("SELECT count(*) FROM singer\n".into())).unwrap();
    for b in [&bench, &jsonl] {
        let out = b.join("out");
        let o = sqlwitness(&[
            "eval",
            "--bench",
            b.to_str().unwrap(),
            "--pred",
            pred.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-q",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let report = report_in(&out);
        assert_eq!(
            report["questions"][0]["engines"]["sqlite"]["verdict"],
            "match"
        );
    }
}

/// The unusable databases of the corpus: `(db_id, what the verdict's
/// message says)`; each is made by [`make_unusable`].
const UNUSABLE: &[(&str, &str)] = &[
    ("truncated", "truncated"),
    ("notadb", "SQLITE_NOTADB"),
    ("badschema", "malformed database schema"),
    ("vtab", "no such module"),
    ("zero", "empty (0 bytes)"),
    ("link", "outside the benchmark's database folder"),
    ("headerless", "no SQLite header"),
];

fn make_unusable(bench: &Path, outside: &Path, db_id: &str) {
    let dir = bench.join("database").join(db_id);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{db_id}.sqlite"));
    let good = std::fs::read(example_db()).unwrap();
    match db_id {
        "truncated" => std::fs::write(&path, &good[..good.len() / 2]).unwrap(),
        "notadb" => {
            // A valid magic string, then bytes that are no SQLite header.
            let mut bytes = good[..16].to_vec();
            let mut x: u32 = 0x9e37_79b9;
            for _ in 16..8192 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                bytes.push(x as u8);
            }
            bytes[16] = 0x12; // page size 0x12xx: not a power of two
            std::fs::write(&path, bytes).unwrap();
        }
        "badschema" | "vtab" => {
            std::fs::write(&path, &good).unwrap();
            let conn = rusqlite::Connection::open(&path).unwrap();
            let sql = if db_id == "badschema" {
                "PRAGMA writable_schema = ON; \
                 UPDATE sqlite_master SET sql = 'CREATE TABLE stadium (' WHERE name = 'stadium';"
            } else {
                "PRAGMA writable_schema = ON; \
                 INSERT INTO sqlite_master VALUES \
                 ('table', 'v', 'v', 0, 'CREATE VIRTUAL TABLE v USING no_such_module(x)');"
            };
            conn.execute_batch(sql).unwrap();
        }
        "zero" => std::fs::write(&path, b"").unwrap(),
        "headerless" => std::fs::write(&path, vec![b'x'; 4096]).unwrap(),
        "link" => {
            let target = outside.join("link.sqlite");
            std::fs::copy(example_db(), &target).unwrap();
            std::os::unix::fs::symlink(&target, &path).unwrap();
        }
        other => panic!("no such case {other}"),
    }
}

fn verdict<'a>(report: &'a Json, i: usize, engine: &str) -> &'a Json {
    &report["questions"][i]["engines"][engine]
}

#[test]
fn unusable_databases_are_engine_errors_and_the_good_ones_are_judged() {
    let servers = sqlwitness_testkit::servers();
    let engines = sqlwitness_testkit::engine_names(&servers);
    let prefix = prefix("unusable");
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let mut entries = vec![
        entry("good", "How many singers?", "SELECT count(*) FROM singer"),
        entry("missing", "Missing?", "SELECT count(*) FROM singer"),
    ];
    for (id, _) in UNUSABLE {
        entries.push(entry(id, &format!("{id}?"), "SELECT count(*) FROM singer"));
    }
    entries.push(entry("good", "Oldest?", "SELECT max(Age) FROM singer"));
    spider(&bench, &entries);
    good_db(&bench, "good");
    for (id, _) in UNUSABLE {
        make_unusable(&bench, &outside, id);
    }
    let before: Vec<(PathBuf, Vec<u8>)> = files_under(&bench)
        .into_iter()
        .map(|p| (p.clone(), std::fs::read(&p).unwrap_or_default()))
        .collect();
    let out = dir.path().join("out");
    let o = sqlwitness_on(
        &[
            "eval",
            "--bench",
            bench.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--namespace-prefix",
            &prefix,
            "--engines",
            &engines.join(","),
            "-q",
        ],
        &servers,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    let report = report_in(&out);
    let last = entries.len() - 1;
    for engine in &engines {
        for i in [0, last] {
            assert_eq!(
                verdict(&report, i, engine)["verdict"],
                "match",
                "{engine} q{i}"
            );
        }
        assert_eq!(
            verdict(&report, 1, engine)["verdict"],
            "missing_db",
            "{engine}"
        );
        for (k, (id, says)) in UNUSABLE.iter().enumerate() {
            let v = verdict(&report, k + 2, engine);
            assert_eq!(v["verdict"], "engine_error", "{engine} {id}: {v}");
            let message = v["gold"]["error"].as_str().unwrap_or("");
            assert!(message.contains(says), "{engine} {id}: {message}");
            assert!(
                message.starts_with("database unusable"),
                "{engine} {id}: {message}"
            );
        }
    }
    // Nothing in the benchmark changed; nothing appeared beside the target
    // of the link.
    for (path, bytes) in &before {
        assert_eq!(
            &std::fs::read(path).unwrap_or_default(),
            bytes,
            "{}",
            path.display()
        );
    }
    assert_eq!(files_under(&outside), vec![outside.join("link.sqlite")]);
    // `migrate` fails the same databases, database by database, and writes
    // their logs under --log-dir only.
    if !servers.is_empty() {
        let logs = dir.path().join("logs");
        let o = sqlwitness_on(
            &[
                "migrate",
                "--bench",
                bench.to_str().unwrap(),
                "--log-dir",
                logs.to_str().unwrap(),
                "--namespace-prefix",
                &prefix,
                "--engines",
                &engines[1..].join(","),
                "-q",
            ],
            &servers,
        );
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(3), "{stdout}{}", stderr(&o));
        for (id, says) in UNUSABLE {
            let line = stdout
                .lines()
                .find(|l| l.starts_with(&format!("| {id} |")))
                .unwrap_or_else(|| panic!("{id}: {stdout}"));
            assert!(line.contains("failed") && line.contains(says), "{line}");
        }
        assert!(files_under(&logs).iter().all(|p| p.starts_with(&logs)));
    }
    // With --allow-outside-links the linked database is judged.
    let out2 = dir.path().join("out2");
    let o = sqlwitness(&[
        "eval",
        "--bench",
        bench.to_str().unwrap(),
        "--db",
        "link,good",
        "--allow-outside-links",
        "--out",
        out2.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report = report_in(&out2);
    for q in report["questions"].as_array().unwrap() {
        assert_eq!(q["engines"]["sqlite"]["verdict"], "match", "{q}");
    }
    let mut ids: Vec<&str> = UNUSABLE.iter().map(|(id, _)| *id).collect();
    ids.push("good");
    drop_copies(&servers, &prefix, &ids);
}

/// A table of 1,700 columns: SQLite takes it; PostgreSQL (1,600 columns)
/// and MySQL/MariaDB (InnoDB: 1,017) do not. The question on it is
/// `engine_error` on the servers, named "not migrated", and the run exits 3.
#[test]
fn a_database_not_migrated_is_named_so_and_exits_3() {
    let servers = sqlwitness_testkit::servers();
    if servers.is_empty() {
        return;
    }
    let engines = sqlwitness_testkit::engine_names(&servers);
    let prefix = prefix("notmigrated");
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    spider(
        &bench,
        &[
            entry("good", "How many singers?", "SELECT count(*) FROM singer"),
            entry("wide", "How many rows?", "SELECT count(*) FROM wide"),
        ],
    );
    good_db(&bench, "good");
    let wide = bench.join("database/wide/wide.sqlite");
    std::fs::create_dir_all(wide.parent().unwrap()).unwrap();
    let cols: Vec<String> = (0..1700).map(|i| format!("c{i} INTEGER")).collect();
    let conn = rusqlite::Connection::open(&wide).unwrap();
    conn.execute_batch(&format!(
        "CREATE TABLE wide ({}); INSERT INTO wide (c0) VALUES (1);",
        cols.join(", ")
    ))
    .unwrap();
    drop(conn);
    let out = dir.path().join("out");
    let o = sqlwitness_on(
        &[
            "eval",
            "--bench",
            bench.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--namespace-prefix",
            &prefix,
            "--engines",
            &engines.join(","),
            "-q",
        ],
        &servers,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    let report = report_in(&out);
    assert_eq!(verdict(&report, 1, "sqlite")["verdict"], "match");
    for engine in &engines[1..] {
        assert_eq!(verdict(&report, 0, engine)["verdict"], "match", "{engine}");
        let v = verdict(&report, 1, engine);
        assert_eq!(v["verdict"], "engine_error", "{engine}: {v}");
        let message = v["gold"]["error"].as_str().unwrap_or("");
        assert!(
            message.starts_with("not migrated to"),
            "{engine}: {message}"
        );
        assert_eq!(
            report["summary"]["engines"][engine]["gold_error"], 0,
            "{engine}"
        );
    }
    drop_copies(&servers, &prefix, &["good", "wide"]);
}

/// A `db_id` that, with an empty `--namespace-prefix`, is a namespace the
/// server keeps for itself is never migrated (so never dropped): its
/// questions are `engine_error`, "not migrated", and the run exits 3.
/// PostgreSQL gets a `pg_` name (the server refuses those itself), MySQL
/// and MariaDB `information_schema` (which no login may drop): a broken
/// check could not harm the server either.
#[test]
fn a_reserved_namespace_is_never_migrated() {
    let servers = sqlwitness_testkit::servers();
    for (kind, url) in &servers {
        let db_id = match sqlwitness_dialect::shipped(*kind).adapter {
            sqlwitness_dialect::Adapter::Postgres => {
                format!("pg_h_benchfiles_{}", std::process::id())
            }
            _ => "information_schema".to_string(),
        };
        let dir = tempfile::tempdir().unwrap();
        let bench = dir.path().join("bench");
        spider(
            &bench,
            &[entry(
                &db_id,
                "How many singers?",
                "SELECT count(*) FROM singer",
            )],
        );
        good_db(&bench, &db_id);
        let out = dir.path().join("out");
        let o = sqlwitness_on(
            &[
                "eval",
                "--bench",
                bench.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--namespace-prefix",
                "",
                "--engines",
                &format!("sqlite,{kind}"),
                "-q",
            ],
            &[(*kind, url.clone())],
        );
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(3), "{kind}: {err}");
        let report = report_in(&out);
        assert_eq!(verdict(&report, 0, "sqlite")["verdict"], "match", "{kind}");
        let v = verdict(&report, 0, kind.as_str());
        assert_eq!(v["verdict"], "engine_error", "{kind}: {v}");
        let message = v["gold"]["error"].as_str().unwrap_or("");
        assert!(message.starts_with("not migrated to"), "{kind}: {message}");
        assert!(
            message.contains("server's own namespace") || message.contains("keeps for itself"),
            "{kind}: {message}"
        );
    }
}

/// A file damaged past its schema (truncated, with a header SQLite does not
/// trust for the size): the probe passes, queries that reach the missing
/// pages fail with `SQLITE_CORRUPT`. Those questions are `engine_error` —
/// the gold's or the prediction's failure alike — never `gold_error` or
/// `pred_error`; the queries that do not reach them are judged. A server
/// cannot get a copy of it: "not migrated" there.
#[test]
fn a_database_corrupt_past_its_schema_charges_nobody() {
    let servers = sqlwitness_testkit::servers();
    let engines = sqlwitness_testkit::engine_names(&servers);
    let prefix = prefix("corrupt");
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    let qs = [
        ("SELECT count(*) FROM small", "SELECT count(*) FROM small"),
        ("SELECT count(*) FROM big", "SELECT count(*) FROM big"),
        ("SELECT count(*) FROM small", "SELECT count(*) FROM big"),
    ];
    let entries: Vec<Json> = qs
        .iter()
        .enumerate()
        .map(|(i, (gold, _))| entry("half", &format!("q{i}"), gold))
        .collect();
    spider(&bench, &entries);
    let path = bench.join("database/half/half.sqlite");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE small (x INTEGER); INSERT INTO small VALUES (1), (2);
         CREATE TABLE big (x INTEGER, t TEXT);
         WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999)
         INSERT INTO big SELECT i, printf('%.100c', 'x') FROM n;",
    )
    .unwrap();
    drop(conn);
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 20 * 4096);
    bytes.truncate(5 * 4096);
    // The change counter no longer matches: SQLite sizes the file by its
    // length, and `big`'s root page is there, its leaves are not.
    bytes[92..96].copy_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
    std::fs::write(&path, bytes).unwrap();
    let pred = dir.path().join("pred.sql");
    let lines: Vec<&str> = qs.iter().map(|(_, p)| *p).collect();
    std::fs::write(&pred, lines.join("\n") + "\n").unwrap();
    let out = dir.path().join("out");
    let o = sqlwitness_on(
        &[
            "eval",
            "--bench",
            bench.to_str().unwrap(),
            "--pred",
            pred.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--namespace-prefix",
            &prefix,
            "--engines",
            &engines.join(","),
            "-q",
        ],
        &servers,
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let report = report_in(&out);
    assert_eq!(verdict(&report, 0, "sqlite")["verdict"], "match");
    let gold = verdict(&report, 1, "sqlite");
    assert_eq!(gold["verdict"], "engine_error", "{gold}");
    assert_eq!(gold["gold"]["error_code"], "SQLITE_CORRUPT", "{gold}");
    let pred = verdict(&report, 2, "sqlite");
    assert_eq!(pred["verdict"], "engine_error", "{pred}");
    assert_eq!(pred["pred"]["error_code"], "SQLITE_CORRUPT", "{pred}");
    for engine in &engines[1..] {
        for i in 0..qs.len() {
            let v = verdict(&report, i, engine);
            assert_eq!(v["verdict"], "engine_error", "{engine} q{i}: {v}");
            let message = v["gold"]["error"].as_str().unwrap_or("");
            assert!(
                message.starts_with("not migrated to"),
                "{engine}: {message}"
            );
        }
    }
    drop_copies(&servers, &prefix, &["half"]);
}

/// `audit` and `fuzz` go database by database too: the unusable ones are
/// named and left out, the good one is audited (its suite built), the
/// outputs are written, and the run exits 3.
#[test]
fn audit_and_fuzz_leave_unusable_databases_out_and_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let mut entries = vec![entry(
        "good",
        "How many singers?",
        "SELECT count(*) FROM singer",
    )];
    for (id, _) in UNUSABLE {
        entries.push(entry(id, &format!("{id}?"), "SELECT count(*) FROM singer"));
    }
    spider(&bench, &entries);
    good_db(&bench, "good");
    for (id, _) in UNUSABLE {
        make_unusable(&bench, &outside, id);
    }
    let audit = dir.path().join("audit");
    let o = sqlwitness(&[
        "audit",
        "--bench",
        bench.to_str().unwrap(),
        "--out",
        audit.to_str().unwrap(),
        "--shuffles",
        "1",
        "-q",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    for (id, says) in UNUSABLE {
        assert!(
            err.lines()
                .any(|l| l.starts_with(&format!("{id}: ")) && l.contains(says)),
            "{id}: {err}"
        );
    }
    let report: Json =
        serde_json::from_str(&std::fs::read_to_string(audit.join("audit.json")).unwrap()).unwrap();
    assert_eq!(report["summary"]["with_db"], 1, "{}", report["summary"]);
    let suites = dir.path().join("suites");
    let o = sqlwitness(&[
        "fuzz",
        "--bench",
        bench.to_str().unwrap(),
        "--out",
        suites.to_str().unwrap(),
        "--candidates",
        "5",
        "-q",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    for (id, says) in UNUSABLE {
        assert!(
            err.contains(&format!("fuzz: {id}: database unusable")) && err.contains(says),
            "{id}: {err}"
        );
    }
    assert!(suites.join("manifest.json").is_file());
    assert!(suites.join("database/good").is_dir());
    assert_eq!(files_under(&outside), vec![outside.join("link.sqlite")]);
}

/// `perturb` leaves an unusable database out (named in mapping.json's
/// skipped databases and on stderr), perturbs the others, and exits 3.
#[test]
fn perturb_leaves_unusable_databases_out_and_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    spider(
        &bench,
        &[
            entry(
                "concert_singer",
                "Names of singers older than 30?",
                "SELECT Name FROM singer WHERE Age > 30",
            ),
            entry("pets_1", "How many pets?", "SELECT count(*) FROM pets"),
        ],
    );
    std::fs::copy(
        repo().join("examples/spider-dev/tables.json"),
        bench.join("tables.json"),
    )
    .unwrap();
    good_db(&bench, "concert_singer");
    std::fs::create_dir_all(bench.join("database/pets_1")).unwrap();
    std::fs::write(bench.join("database/pets_1/pets_1.sqlite"), b"").unwrap();
    let out = dir.path().join("perturbed");
    let o = sqlwitness(&[
        "perturb",
        "--bench",
        bench.to_str().unwrap(),
        "--kind",
        "synonym",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("pets_1: database unusable"), "{err}");
    let mapping: Json =
        serde_json::from_str(&std::fs::read_to_string(out.join("mapping.json")).unwrap()).unwrap();
    let skipped = mapping["skipped_databases"].as_array().unwrap();
    assert!(
        skipped
            .iter()
            .any(|d| d["db_id"] == "pets_1"
                && d["reason"].as_str().unwrap().contains("empty (0 bytes)")),
        "{skipped:?}"
    );
    assert!(
        mapping["summary"]["perturbed_databases"].as_u64().unwrap() > 0,
        "{}",
        mapping["summary"]
    );
}

/// A copy the migration had to change — NULs a PostgreSQL text cannot hold,
/// a column of blobs and texts that became binary — names the change as
/// the cause of the gold's cross-engine difference (`nul_stripped`,
/// `mixed_storage`), for the table the gold reads, not `collation`/`other`.
#[test]
fn differences_the_migration_caused_are_named_after_it() {
    let servers = sqlwitness_testkit::servers();
    if servers.is_empty() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    spider(
        &bench,
        &[
            entry("changed", "nul", "SELECT name FROM t WHERE id = 1"),
            entry("changed", "mixed", "SELECT v FROM m WHERE id = 2"),
        ],
    );
    let db_dir = bench.join("database/changed");
    std::fs::create_dir_all(&db_dir).unwrap();
    let c = rusqlite::Connection::open(db_dir.join("changed.sqlite")).unwrap();
    c.execute_batch(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT);
         INSERT INTO t VALUES (1, 'a' || char(0) || 'b'), (2, 'plain');
         CREATE TABLE m (id INTEGER PRIMARY KEY, v TEXT);
         INSERT INTO m VALUES (1, x'00ff'), (2, 'text');",
    )
    .unwrap();
    drop(c);
    let prefix = prefix("caveats");
    let out = dir.path().join("out");
    let mut args: Vec<String> = [
        "eval",
        "--bench",
        bench.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--namespace-prefix",
        &prefix,
        "-q",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(sqlwitness_testkit::server_args(&servers));
    let mut engines = vec!["sqlite"];
    engines.extend(sqlwitness_testkit::engine_names(&servers));
    engines.dedup();
    args.extend(["--engines".to_string(), engines.join(",")]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = sqlwitness(&args);
    drop_copies(&servers, &prefix, &["changed"]);
    let report: Json =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap())
            .unwrap_or_else(|e| panic!("{e}: {}", stderr(&run)));
    for (kind, _) in &servers {
        let engine = kind.as_str();
        let mechanism = |i: usize| {
            report["questions"][i]["engines"][engine]["reference"]["gold_mechanism"]
                .as_str()
                .map(str::to_string)
        };
        // Only PostgreSQL refuses NULs in text.
        let nul = (*kind == EngineKind::Postgres).then(|| "nul_stripped".to_string());
        assert_eq!(mechanism(0), nul, "{engine}: {}", report["questions"][0]);
        assert_eq!(
            mechanism(1).as_deref(),
            Some("mixed_storage"),
            "{engine}: {}",
            report["questions"][1]
        );
    }
}
