//! The hostile corpus (`tests/hostile/cases.jsonl`): predictions written as
//! an attacker would, run in one `eval` on every configured engine (SQLite,
//! PostgreSQL, MySQL, MariaDB) and on DuckDB. Each case states the verdicts it may get per
//! engine (an engine whose dialect `extends` another takes that one's
//! expectation unless it has its own); then the
//! test checks that nothing happened: the benchmark file and the servers'
//! copies are unchanged, no file appeared, no statement is still running,
//! no state outlived its query, and memory and output stayed bounded.
//!
//! Expectation words: `refused` (pred_error of class refused), `resource`
//! (pred_error of class resource_limit), `error` (any other pred_error),
//! `timeout`, `match`, `mismatch`, `abstained`. `engine_error` is never
//! allowed: no hostile text may pass for a server fault.

#[path = "common/admin.rs"]
mod admin;

use serde_json::Value as Json;
use sqlwitness_core::EngineKind;
use sqlwitness_dialect::Adapter;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn adapter(kind: EngineKind) -> Adapter {
    sqlwitness_dialect::shipped(kind).adapter
}

struct Case {
    name: String,
    class: String,
    sql: Vec<u8>,
    gold: String,
    expect: BTreeMap<String, Vec<String>>,
}

/// The texts too large or too odd to keep in the case file.
fn generated(what: &str) -> Vec<u8> {
    let s = match what {
        "in_list_5mb" => format!(
            "SELECT count(*) FROM singer WHERE Singer_ID IN ({}1)",
            "1234567,".repeat(5_000_000 / 8)
        ),
        "plus_chain_30000" => format!("SELECT 1{}", "+1".repeat(30_000)),
        "and_chain_300000" => format!(
            "SELECT count(*) FROM singer WHERE Age > 0{}",
            " AND Age > 0".repeat(300_000)
        ),
        "and_chain_5000" => format!(
            "SELECT count(*) FROM singer WHERE Age > 0{}",
            " AND Age > 0".repeat(5_000)
        ),
        "parens_1000" => format!("SELECT {}1{}", "(".repeat(1000), ")".repeat(1000)),
        "union_2000" => format!("SELECT 1{}", " UNION SELECT 1".repeat(2_000)),
        "subqueries_200" => format!("SELECT {}1{}", "(SELECT ".repeat(200), ")".repeat(200)),
        "case_5000" => format!(
            "SELECT CASE{} END FROM singer",
            (0..5000)
                .map(|i| format!(" WHEN Age = {i} THEN {i}"))
                .collect::<String>()
        ),
        "invalid_utf8" => {
            return b"SELECT count(*) FROM singer WHERE Name = '\xff\xfe'".to_vec();
        }
        other => panic!("unknown generated case {other}"),
    };
    s.into_bytes()
}

fn load_cases(tag: &str, tagnum: u64) -> Vec<Case> {
    let text = std::fs::read_to_string(repo().join("tests/hostile/cases.jsonl")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v: Json = serde_json::from_str(line).unwrap();
            let fill = |s: &str| {
                s.replace("{tag}", tag)
                    .replace("{tagnum}", &tagnum.to_string())
            };
            let sql = v["sql"].as_str().unwrap();
            let sql = match sql.strip_prefix("GENERATE:") {
                Some(what) => generated(what),
                None => fill(sql).into_bytes(),
            };
            let expect = v["expect"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| {
                    let words = v
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|w| w.as_str().unwrap().to_string())
                        .collect();
                    (k.clone(), words)
                })
                .collect();
            Case {
                name: v["name"].as_str().unwrap().to_string(),
                class: v["class"].as_str().unwrap().to_string(),
                sql,
                gold: v["gold"]
                    .as_str()
                    .unwrap_or("SELECT count(*) FROM singer")
                    .to_string(),
                expect,
            }
        })
        .collect()
}

/// The expectation word an engine outcome earns.
fn word(outcome: &Json) -> String {
    let verdict = outcome["verdict"].as_str().unwrap();
    let class = outcome["pred"]["error_class"].as_str().unwrap_or("");
    match (verdict, class) {
        ("pred_error", "refused") => "refused".into(),
        ("pred_error", "resource_limit") => "resource".into(),
        ("pred_error", "connection") => "engine_error".into(),
        ("pred_error", _) => "error".into(),
        ("match_tie", _) => "match".into(),
        (v, _) => v.into(),
    }
}

fn sha(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[test]
fn hostile_corpus_gets_a_verdict_and_leaves_no_trace() {
    let servers = sqlwitness_testkit::servers();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let tag = format!("{}_{:x}", std::process::id(), nanos & 0xfffff);
    let tagnum = u64::from(std::process::id()) * 1000 + u64::from(nanos % 1000);
    let cases = load_cases(&tag, tagnum);
    assert!(cases.len() >= 60, "{} cases", cases.len());

    // A JSONL benchmark over a copy of concert_singer, one gold per case.
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    std::fs::create_dir_all(bench.join("database/concert_singer")).unwrap();
    let db = bench.join("database/concert_singer/concert_singer.sqlite");
    std::fs::copy(
        repo().join("examples/spider-dev/database/concert_singer/concert_singer.sqlite"),
        &db,
    )
    .unwrap();
    let gold: Vec<String> = cases
        .iter()
        .map(|c| {
            serde_json::json!({"db_id": "concert_singer", "question": c.name, "gold": c.gold})
                .to_string()
        })
        .collect();
    std::fs::write(bench.join("dev.jsonl"), gold.join("\n")).unwrap();
    let mut preds = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        preds.extend_from_slice(format!("{{\"id\": {i}, \"sql\": ").as_bytes());
        match std::str::from_utf8(&c.sql) {
            Ok(s) => preds.extend_from_slice(serde_json::to_string(s).unwrap().as_bytes()),
            Err(_) => {
                // Invalid UTF-8 inside the JSON string, as a broken file has it.
                preds.push(b'"');
                preds.extend_from_slice(&c.sql);
                preds.push(b'"');
            }
        }
        preds.extend_from_slice(b"}\n");
    }
    let pred_file = dir.path().join("hostile.jsonl");
    std::fs::write(&pred_file, preds).unwrap();
    // scripts/bench-hostile.sh measures the same corpus with a release build.
    if let Ok(export) = std::env::var("SQLWITNESS_HOSTILE_EXPORT") {
        let export = Path::new(&export);
        std::fs::create_dir_all(export.join("bench/database/concert_singer")).unwrap();
        std::fs::copy(
            &db,
            export.join("bench/database/concert_singer/concert_singer.sqlite"),
        )
        .unwrap();
        std::fs::copy(bench.join("dev.jsonl"), export.join("bench/dev.jsonl")).unwrap();
        std::fs::copy(&pred_file, export.join("hostile.jsonl")).unwrap();
    }

    let before = sha(&db);
    let out = dir.path().join("out");
    // DuckDB, embedded, on a copy in a folder of the test's own.
    let mut engines = sqlwitness_testkit::engine_names(&servers);
    engines.push("duckdb");
    let duckdb_url = format!("duckdb:{}", dir.path().join("duckdb").display());
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sqlwitness"));
    cmd.current_dir(repo()).args([
        "eval",
        "--bench",
        bench.to_str().unwrap(),
        "--pred",
        pred_file.to_str().unwrap(),
        "--timeout",
        "1",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    cmd.args(sqlwitness_testkit::server_args(&servers));
    cmd.args(["--server", &format!("duckdb={duckdb_url}")]);
    cmd.args(["--engines", &engines.join(",")]);
    let started = std::time::Instant::now();
    let run = cmd.output().unwrap();
    let wall = started.elapsed();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    eprintln!("{stderr}\nwall {wall:?}");

    // Verdicts.
    let report_path = out.join("report.json");
    let report: Json =
        serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    let questions = report["questions"].as_array().unwrap();
    assert_eq!(questions.len(), cases.len());
    let mut wrong = Vec::new();
    let mut slowest = (0.0f64, String::new());
    for (c, q) in cases.iter().zip(questions) {
        for engine in &engines {
            let outcome = &q["engines"][engine];
            let got = word(outcome);
            let parent = EngineKind::parse(engine)
                .and_then(sqlwitness_dialect::parent)
                .map_or("", EngineKind::as_str);
            let allowed = c
                .expect
                .get(*engine)
                .or_else(|| c.expect.get(parent))
                .or_else(|| c.expect.get("all"))
                .unwrap_or_else(|| panic!("{}: no expectation for {engine}", c.name));
            // A statement that ignores its limit (1 s) still ends within
            // about the limit + 1 s; 3 s leaves room for a loaded machine.
            let took = outcome["pred"]["duration_ms"].as_f64().unwrap_or(0.0);
            if took > slowest.0 {
                slowest = (took, format!("{}/{} on {engine}", c.class, c.name));
            }
            if took > 3000.0 {
                wrong.push(format!(
                    "{}/{} on {engine}: ran {took:.0} ms against a 1 s limit",
                    c.class, c.name
                ));
            }
            if !allowed.contains(&got) {
                wrong.push(format!(
                    "{}/{} on {engine}: {got} (allowed {allowed:?}): {}",
                    c.class,
                    c.name,
                    outcome["pred"]["error"].as_str().unwrap_or("")
                ));
            }
        }
    }
    eprintln!(
        "slowest prediction: {} ({:.0} ms, limit 1000 ms)",
        slowest.1, slowest.0
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));

    // Nothing happened.
    assert_eq!(before, sha(&db), "the benchmark file changed");
    let leftovers: Vec<String> = std::fs::read_dir("/tmp")
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with(&format!("sw_hostile_{tag}")))
        .collect();
    assert!(leftovers.is_empty(), "files written: {leftovers:?}");
    let size = std::fs::metadata(&report_path).unwrap().len();
    assert!(size < 50 << 20, "report.json is {size} bytes");
    let rss = report["run"]["peak_rss_bytes"].as_u64().unwrap_or(0);
    assert!(rss < 2 << 30, "peak RSS {rss}");
    eprintln!(
        "cases {}, report {} KiB, peak RSS {} MiB",
        cases.len(),
        size / 1024,
        rss >> 20
    );
    for (kind, url) in &servers {
        let running = match adapter(*kind) {
            Adapter::Postgres => {
                let locks = admin::count(
                    url,
                    &format!(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' \
                         AND objid = {tagnum}"
                    ),
                );
                assert_eq!(locks, 0, "{kind}: advisory lock left");
                admin::count(
                    url,
                    &format!(
                        "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' \
                         AND query LIKE '%sw_hostile_{tag}%' AND pid <> pg_backend_pid()"
                    ),
                )
            }
            Adapter::Mysql => admin::count(
                url,
                &format!(
                    "SELECT COUNT(*) FROM information_schema.PROCESSLIST \
                     WHERE INFO LIKE '%sw_hostile_{tag}%' AND COMMAND = 'Query' \
                     AND ID <> CONNECTION_ID()"
                ),
            ),
            // In process (SQLite, DuckDB): a statement past its limit ended
            // with the run.
            _ => 0,
        };
        assert_eq!(running, 0, "{kind}: statements still running");
    }
    // The servers' copies and DuckDB's still verify.
    let verify = Command::new(env!("CARGO_BIN_EXE_sqlwitness"))
        .current_dir(repo())
        .args([
            "migrate",
            "--bench",
            bench.to_str().unwrap(),
            "--engines",
            &engines[1..].join(","),
        ])
        .args(sqlwitness_testkit::server_args(&servers))
        .args(["--server", &format!("duckdb={duckdb_url}")])
        .args([
            "--log-dir",
            dir.path().join("migration").to_str().unwrap(),
            "-q",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&verify.stdout);
    assert_eq!(verify.status.code(), Some(0), "{stdout}");
    assert_eq!(
        stdout.matches("up_to_date").count(),
        servers.len() + 1,
        "the servers' copies changed: {stdout}"
    );
}

/// A TCP relay in front of a server that can drop every connection and
/// refuse new ones for a while: a server restart, as the client sees it.
struct Relay {
    port: u16,
    down: std::sync::Arc<std::sync::atomic::AtomicBool>,
    accepted: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    open: std::sync::Arc<std::sync::Mutex<Vec<std::net::TcpStream>>>,
}

impl Relay {
    fn start(target: std::net::SocketAddr) -> Relay {
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let relay = Relay {
            port: listener.local_addr().unwrap().port(),
            down: Default::default(),
            accepted: Default::default(),
            open: Default::default(),
        };
        let (down, accepted, open) = (
            relay.down.clone(),
            relay.accepted.clone(),
            relay.open.clone(),
        );
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                if down.load(Ordering::SeqCst) {
                    drop(client);
                    continue;
                }
                let Ok(server) = std::net::TcpStream::connect(target) else {
                    continue;
                };
                accepted.fetch_add(1, Ordering::SeqCst);
                {
                    let mut open = open.lock().unwrap();
                    open.push(client.try_clone().unwrap());
                    open.push(server.try_clone().unwrap());
                }
                for (mut from, mut to) in [
                    (client.try_clone().unwrap(), server.try_clone().unwrap()),
                    (server, client),
                ] {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(std::net::Shutdown::Both);
                        let _ = from.shutdown(std::net::Shutdown::Both);
                    });
                }
            }
        });
        relay
    }

    /// Drops every open connection and refuses new ones for `d`.
    fn outage(&self, d: std::time::Duration) {
        use std::sync::atomic::Ordering;
        self.down.store(true, Ordering::SeqCst);
        for s in self.open.lock().unwrap().drain(..) {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
        std::thread::sleep(d);
        self.down.store(false, Ordering::SeqCst);
    }
}

fn verdicts(report: &Json, engine: &str) -> Vec<String> {
    report["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            q["engines"][engine]["verdict"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

/// PostgreSQL "restarts" (every connection dropped, new ones refused for
/// 1.5 s) in the middle of a run: the queries in flight are retried on
/// fresh connections, the run completes, and every verdict equals an
/// undisturbed run's — nothing is charged to the model.
#[test]
fn a_server_restart_mid_run_charges_nothing_to_the_model() {
    let Some(pg) = sqlwitness_testkit::server_url(EngineKind::Postgres) else {
        return;
    };
    let mut u = url::Url::parse(&pg).unwrap();
    let host = u.host_str().unwrap_or("127.0.0.1").to_string();
    assert_eq!(host, "127.0.0.1", "tests talk to 127.0.0.1 only");
    let target: std::net::SocketAddr = format!("{host}:{}", u.port().unwrap_or(5432))
        .parse()
        .unwrap();
    let dbs = "concert_singer,pets_1,world_1,car_1,flight_2,dog_kennels";
    let run = |url: &str, out: &Path, extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_sqlwitness"))
            .current_dir(repo())
            .args([
                "eval",
                "--bench",
                "examples/spider-dev",
                "--engines",
                "postgres",
                "--db",
                dbs,
                "--server",
                &format!("postgres={url}"),
                "--out",
                out.to_str().unwrap(),
                "-q",
            ])
            .args(extra)
            .spawn()
            .unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    // Undisturbed (and migrating what is missing).
    let clean = dir.path().join("clean");
    let status = run(&pg, &clean, &[]).wait().unwrap();
    assert!(status.success());
    // Through the relay, with an outage once queries are running.
    let relay = Relay::start(target);
    u.set_port(Some(relay.port)).unwrap();
    u.query_pairs_mut().append_pair("sslmode", "disable");
    let disturbed = dir.path().join("disturbed");
    let mut child = run(u.as_str(), &disturbed, &["--no-migrate"]);
    let started = std::time::Instant::now();
    while relay.accepted.load(std::sync::atomic::Ordering::SeqCst) < 4
        && started.elapsed() < std::time::Duration::from_secs(30)
    {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run ended before the outage: make it longer"
    );
    relay.outage(std::time::Duration::from_millis(1500));
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "the disturbed run failed");
    let read = |d: &Path| -> Json {
        serde_json::from_str(&std::fs::read_to_string(d.join("report.json")).unwrap()).unwrap()
    };
    let (a, b) = (read(&clean), read(&disturbed));
    assert_eq!(b["summary"]["engines"]["postgres"]["engine_error"], 0);
    // MariaDB/PostgreSQL may break ties differently run to run; PostgreSQL
    // is deterministic on these plans, so every verdict must agree.
    let (va, vb) = (verdicts(&a, "postgres"), verdicts(&b, "postgres"));
    let changed: Vec<String> = (0..va.len())
        .filter(|&i| va.get(i) != vb.get(i))
        .map(|i| {
            let q = &b["questions"][i]["engines"]["postgres"];
            format!("question {i}: {} -> {}: {q}", va[i], vb[i])
        })
        .collect();
    assert!(
        changed.is_empty(),
        "verdicts changed:\n{}",
        changed.join("\n")
    );
    assert!(
        relay.accepted.load(std::sync::atomic::Ordering::SeqCst) > 4,
        "no reconnection happened"
    );
}

/// An interrupted run (SIGINT) stops its queries on the servers: a
/// prediction that would run for minutes is no longer running on the
/// server a moment after the process exits 130 — not left to its time
/// limit. One run per server engine.
#[test]
fn an_interrupt_stops_the_queries_in_flight_on_every_server() {
    for (kind, url) in sqlwitness_testkit::servers() {
        interrupt_stops_queries_on(kind, &url);
    }
}

fn interrupt_stops_queries_on(kind: EngineKind, url: &str) {
    let marker = sqlwitness_testkit::unique_name("interrupted");
    // Eight copies of a six-row table (1.7 M rows), a 20 kB string built
    // for every row: minutes of CPU, with little memory or temporary disk
    // (a join whose intermediate result spills to disk is another matter:
    // see the README's "Limits").
    let from: Vec<String> = (0..8).map(|i| format!("singer s{i}")).collect();
    let ages: Vec<String> = (1..8).map(|i| format!("s{i}.Age")).collect();
    let count = match adapter(kind) {
        Adapter::Postgres => format!("CAST({} AS INTEGER)", ages.join(" + ")),
        _ => ages.join(" + "),
    };
    let heavy = format!(
        "SELECT count(*) AS {marker} FROM {} WHERE length(repeat(s0.Name, 20000 + {count})) > 0",
        from.join(", ")
    );
    let dir = tempfile::tempdir().unwrap();
    let pred = dir.path().join("pred.sql");
    std::fs::write(&pred, format!("{heavy}\n").repeat(1034)).unwrap();
    let mut args: Vec<String> = [
        "eval",
        "--bench",
        "examples/spider-dev",
        "--db",
        "concert_singer",
        "--limit",
        "2",
        "-j",
        "2",
        "--timeout",
        "300",
        "-q",
        "--engines",
        kind.as_str(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(sqlwitness_testkit::server_args(&[(kind, url.to_string())]));
    args.extend([
        "--pred".into(),
        pred.to_str().unwrap().into(),
        "--out".into(),
        dir.path().join("out").to_str().unwrap().into(),
    ]);
    let sql = match adapter(kind) {
        Adapter::Postgres => format!(
            "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' \
             AND query LIKE '%{marker}%' AND pid <> pg_backend_pid()"
        ),
        _ => format!(
            "SELECT count(*) FROM information_schema.PROCESSLIST WHERE COMMAND IN ('Query', 'Execute') \
             AND INFO LIKE '%{marker}%' AND ID <> CONNECTION_ID()"
        ),
    };
    let running = || admin::count(url, &sql);
    let mut child = Command::new(env!("CARGO_BIN_EXE_sqlwitness"))
        .current_dir(repo())
        .args(&args)
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while running() == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "{kind}: the prediction never ran"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "{kind}: the run ended early"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let stopped = std::time::Instant::now();
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{kind}");
    assert!(!dir.path().join("out/report.json").exists(), "{kind}");
    let n = running();
    assert_eq!(
        n, 0,
        "{kind}: {n} queries still running after the interrupt"
    );
    eprintln!(
        "{kind}: interrupt to exit with every query stopped: {} ms",
        stopped.elapsed().as_millis()
    );
}

/// A benchmark whose `db_id` names a namespace sqlwitness did not create
/// (an application's schema or database, here with its table `precious`)
/// is refused on every server, naming it: `migrate` and `eval` leave it as
/// it was, and report the database as not migrated. A server's own
/// namespace (`information_schema`) as a `db_id` without a prefix is
/// refused the same way.
#[test]
fn a_benchmark_never_drops_or_alters_a_namespace_it_did_not_create() {
    let servers = sqlwitness_testkit::servers();
    if servers.is_empty() {
        return;
    }
    let victim = sqlwitness_testkit::unique_name("swt_victim");
    for (kind, url) in &servers {
        let create = match adapter(*kind) {
            Adapter::Postgres => format!(
                "CREATE SCHEMA \"{victim}\"; CREATE TABLE \"{victim}\".precious (x int); \
                 INSERT INTO \"{victim}\".precious VALUES (1), (2)"
            ),
            _ => format!(
                "CREATE DATABASE `{victim}`; CREATE TABLE `{victim}`.precious (x int); \
                 INSERT INTO `{victim}`.precious VALUES (1), (2)"
            ),
        };
        admin::exec(url, &create);
    }
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    let reserved = ["information_schema"];
    let mut entries = Vec::new();
    for db_id in std::iter::once(victim.as_str()).chain(reserved) {
        let db_dir = bench.join("database").join(db_id);
        std::fs::create_dir_all(&db_dir).unwrap();
        std::fs::copy(
            repo().join("examples/spider-dev/database/concert_singer/concert_singer.sqlite"),
            db_dir.join(format!("{db_id}.sqlite")),
        )
        .unwrap();
        entries.push(serde_json::json!({
            "db_id": db_id, "question": "how many", "query": "SELECT count(*) FROM singer"
        }));
    }
    std::fs::write(
        bench.join("dev.json"),
        serde_json::to_string(&entries).unwrap(),
    )
    .unwrap();
    let tables: Vec<Json> = serde_json::from_str(
        &std::fs::read_to_string(repo().join("examples/spider-dev/tables.json")).unwrap(),
    )
    .unwrap();
    let schema = tables
        .iter()
        .find(|t| t["db_id"] == "concert_singer")
        .unwrap();
    let tables: Vec<Json> = std::iter::once(victim.as_str())
        .chain(reserved)
        .map(|db_id| {
            let mut t = schema.clone();
            t["db_id"] = Json::from(db_id);
            t
        })
        .collect();
    std::fs::write(
        bench.join("tables.json"),
        serde_json::to_string(&tables).unwrap(),
    )
    .unwrap();
    let engines: Vec<&str> = sqlwitness_testkit::engine_names(&servers)
        .into_iter()
        .filter(|e| *e != "sqlite")
        .collect();
    let run = |args: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_sqlwitness"));
        cmd.args(args)
            .args(["--bench", bench.to_str().unwrap(), "--namespace-prefix", ""])
            .args(sqlwitness_testkit::server_args(&servers))
            .args(["--engines", &engines.join(",")]);
        cmd.output().unwrap()
    };
    let logs = dir.path().join("logs");
    let migrate = run(&[
        "migrate",
        "--all",
        "--force",
        "--log-dir",
        logs.to_str().unwrap(),
    ]);
    let out = String::from_utf8_lossy(&migrate.stdout).to_string()
        + &String::from_utf8_lossy(&migrate.stderr);
    assert_ne!(migrate.status.code(), Some(0), "{out}");
    assert!(out.contains(&victim), "{out}");
    let eval_out = dir.path().join("out");
    let pred = dir.path().join("pred.sql");
    std::fs::write(
        &pred,
        "SELECT count(*) FROM singer\nSELECT count(*) FROM singer\n",
    )
    .unwrap();
    let eval = run(&[
        "eval",
        "--pred",
        pred.to_str().unwrap(),
        "--out",
        eval_out.to_str().unwrap(),
        "-q",
    ]);
    let eval_code = eval.status.code();
    for (kind, url) in &servers {
        let q = match adapter(*kind) {
            Adapter::Postgres => format!("SELECT count(*) FROM \"{victim}\".precious"),
            _ => format!("SELECT count(*) FROM `{victim}`.precious"),
        };
        assert_eq!(
            admin::count(url, &q),
            2,
            "{kind}: the foreign table changed"
        );
        let drop = match adapter(*kind) {
            Adapter::Postgres => format!("DROP SCHEMA \"{victim}\" CASCADE"),
            _ => format!("DROP DATABASE `{victim}`"),
        };
        admin::exec(url, &drop);
    }
    // Nothing of the reserved names was touched: their refusal is named.
    for db_id in reserved {
        assert!(out.contains(&format!("`{db_id}`")), "{db_id}: {out}");
    }
    // Not migrated is not the gold's fault: engine_error, exit 3.
    assert_eq!(
        eval_code,
        Some(3),
        "{}",
        String::from_utf8_lossy(&eval.stderr)
    );
    let report: Json =
        serde_json::from_str(&std::fs::read_to_string(eval_out.join("report.json")).unwrap())
            .unwrap();
    for q in report["questions"].as_array().unwrap() {
        for engine in &engines {
            assert_eq!(q["engines"][engine]["verdict"], "engine_error", "{q}");
        }
    }
}
