//! Side files stay inside the benchmark (or the suite): a downloaded
//! benchmark's `dumps.json` and a suite's `manifest.json` name files, and
//! neither may make sqlwitness read, send to a server or echo a file
//! elsewhere on the machine.
//!
//! - a `dumps.json` entry whose `dump` or `tables` is absolute, climbs out
//!   with `..`, is a link resolving outside, or is a FIFO or a device is
//!   refused before anything runs (exit 2), naming the entry and the name
//!   as written, by `eval`, `audit`, `fuzz` and `perturb`; nothing of the
//!   file appears in stdout, stderr or the output folder;
//! - a `live` entry may name only a `SQLWITNESS_LIVE_<NAME>` variable:
//!   sqlwitness's own administrative URL and any other variable are
//!   refused without their value shown;
//! - a suite manifest's instance and original files are held to the same
//!   rule inside the suite folder, a file listed twice and a suite past
//!   its bounds (1,000 instances a database, 10,000 a suite) are refused;
//! - the server namespaces an `eval --suite` run makes for the instances
//!   are gone after the run, and after a run that fails once they exist,
//!   on PostgreSQL, MySQL and MariaDB.
//!
//! Server copies are made under a namespace prefix unique to the test
//! process and dropped at the end.

#[path = "common/admin.rs"]
mod admin;

use serde_json::{json, Value as Json};
use sqlwitness_core::EngineKind;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// What the outside file holds: no output may contain it.
const SECRET: &str = "root:x:0:0:side-file-secret";

fn repo() -> PathBuf {
    sqlwitness_testkit::repo_root()
}

fn example_db() -> PathBuf {
    repo().join("examples/spider-dev/database/concert_singer/concert_singer.sqlite")
}

/// A namespace prefix no other test process uses.
fn prefix(test: &str) -> String {
    format!("h_side_{test}_{}_", std::process::id())
}

/// Runs sqlwitness with `args` (and `env`), killed and failed past two
/// minutes: a FIFO opened for reading would block it for ever.
fn sqlwitness_env(args: &[&str], env: &[(&str, &str)], dir: &Path) -> Output {
    let (out, err) = (dir.join("stdout.txt"), dir.join("stderr.txt"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_sqlwitness"))
        .current_dir(repo())
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("sqlwitness {args:?} did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output {
        status,
        stdout: std::fs::read(&out).unwrap(),
        stderr: std::fs::read(&err).unwrap(),
    }
}

fn sqlwitness(args: &[&str], dir: &Path) -> Output {
    sqlwitness_env(args, &[], dir)
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Every file under `dir`, recursively (links not followed).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// No regular file under `dir` holds `secret`.
fn assert_nowhere(dir: &Path, secret: &str) {
    for p in files_under(dir) {
        if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file()) {
            let bytes = std::fs::read(&p).unwrap_or_default();
            assert!(
                !String::from_utf8_lossy(&bytes).contains(secret),
                "{} holds the secret",
                p.display()
            );
        }
    }
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

/// A Spider-layout benchmark of concert_singer in `root` (two questions),
/// with a dump `dumps/ok.sql` its first `dumps.json` entry names.
fn bench(root: &Path) {
    let db = root.join("database/concert_singer");
    std::fs::create_dir_all(&db).unwrap();
    std::fs::copy(example_db(), db.join("concert_singer.sqlite")).unwrap();
    let questions = json!([
        {"db_id": "concert_singer", "question": "How many singers?",
         "query": "SELECT count(*) FROM singer"},
        {"db_id": "concert_singer", "question": "Oldest?",
         "query": "SELECT max(Age) FROM singer"},
    ]);
    std::fs::write(root.join("dev.json"), questions.to_string()).unwrap();
    std::fs::copy(
        repo().join("examples/spider-dev/tables.json"),
        root.join("tables.json"),
    )
    .unwrap();
    std::fs::create_dir_all(root.join("dumps")).unwrap();
    std::fs::write(root.join("dumps/ok.sql"), "CREATE TABLE t (a int);\n").unwrap();
}

/// `dumps.json`: a good entry (its database is there: nothing to import),
/// then `bad`.
fn dumps_json(root: &Path, bad: Json) {
    let entries = json!([
        {"dump": "dumps/ok.sql", "engine": "postgres", "db_id": "concert_singer"},
        bad,
    ]);
    std::fs::write(root.join("dumps.json"), entries.to_string()).unwrap();
}

/// The folders of one hostile-benchmark case: the benchmark, a folder
/// beside it holding the secret, the output folder.
struct Case {
    _dir: tempfile::TempDir,
    bench: PathBuf,
    outside: PathBuf,
    out: PathBuf,
    scratch: PathBuf,
}

impl Case {
    fn new() -> Case {
        let dir = tempfile::tempdir().unwrap();
        let bench_dir = dir.path().join("bench");
        bench(&bench_dir);
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret.sql"), format!("{SECRET}\n")).unwrap();
        std::fs::write(
            outside.join("tables.json"),
            format!("[{{\"db_id\": \"{SECRET}\"}}]"),
        )
        .unwrap();
        let scratch = dir.path().join("scratch");
        std::fs::create_dir_all(&scratch).unwrap();
        Case {
            bench: bench_dir,
            outside,
            out: dir.path().join("out"),
            scratch,
            _dir: dir,
        }
    }

    fn eval(&self, env: &[(&str, &str)]) -> Output {
        sqlwitness_env(
            &[
                "eval",
                "--bench",
                self.bench.to_str().unwrap(),
                "--engines",
                "sqlite",
                "--out",
                self.out.to_str().unwrap(),
                "-q",
            ],
            env,
            &self.scratch,
        )
    }

    /// The run was refused naming `says`, and nothing of the outside file
    /// (nor of /etc/passwd) reached its output or the benchmark.
    fn assert_refused(&self, o: &Output, says: &str) {
        let all = text(o);
        assert_eq!(o.status.code(), Some(2), "{all}");
        assert!(all.contains(says), "expected {says:?} in: {all}");
        assert!(all.contains("dumps.json entry 1: "), "{all}");
        for secret in [SECRET, "root:x:0:0"] {
            assert!(!all.contains(secret), "{all}");
            assert_nowhere(&self.out, secret);
            assert_nowhere(&self.bench.join("database"), secret);
        }
        // Nothing was imported.
        assert!(
            !files_under(&self.bench.join("database"))
                .iter()
                .any(|p| p.to_string_lossy().contains("import-report")),
            "{all}"
        );
    }
}

#[test]
fn a_dump_outside_the_benchmark_is_refused_and_never_read() {
    // `@OUTSIDE@` stands for the case's outside folder (absolute).
    let cases: Vec<(&str, Json, String)> = vec![
        (
            "absolute",
            json!({"dump": "/etc/passwd", "engine": "postgres", "db_id": "x"}),
            "dump \"/etc/passwd\": an absolute path".into(),
        ),
        (
            "absolute secret",
            json!({"dump": "@OUTSIDE@/secret.sql", "engine": "mysql", "db_id": "x"}),
            "dump \"@OUTSIDE@/secret.sql\": an absolute path".into(),
        ),
        (
            "climbs out",
            json!({"dump": "../outside/secret.sql", "engine": "postgres", "db_id": "x"}),
            "dump \"../outside/secret.sql\": outside the benchmark folder".into(),
        ),
        (
            "climbs to /etc",
            json!({"dump": "dumps/../../../../../../../../etc/passwd", "engine": "mariadb"}),
            "outside the benchmark folder".into(),
        ),
        (
            "link",
            json!({"dump": "dumps/link.sql", "engine": "postgres", "db_id": "x"}),
            "dump \"dumps/link.sql\": outside the benchmark folder".into(),
        ),
        (
            "device",
            json!({"dump": "dumps/zero.sql", "engine": "postgres", "db_id": "x"}),
            "dump \"dumps/zero.sql\": outside the benchmark folder".into(),
        ),
        (
            "fifo",
            json!({"dump": "dumps/pipe.sql", "engine": "postgres", "db_id": "x"}),
            "dump \"dumps/pipe.sql\": a FIFO, not a regular file".into(),
        ),
        (
            "folder",
            json!({"dump": "dumps", "engine": "postgres", "db_id": "x"}),
            "dump \"dumps\": a folder, not a regular file".into(),
        ),
        (
            "tables climbs out",
            json!({"dump": "dumps/ok.sql", "engine": "postgres", "tables": "../outside/tables.json"}),
            "tables \"../outside/tables.json\": outside the benchmark folder".into(),
        ),
        (
            "tables link",
            json!({"dump": "dumps/ok.sql", "engine": "postgres", "tables": "tables-link.json"}),
            "tables \"tables-link.json\": outside the benchmark folder".into(),
        ),
        (
            "tables fifo",
            json!({"dump": "dumps/ok.sql", "engine": "postgres", "tables": "dumps/pipe.sql"}),
            "tables \"dumps/pipe.sql\": a FIFO, not a regular file".into(),
        ),
        (
            "db_id a path",
            json!({"dump": "dumps/ok.sql", "engine": "postgres", "db_id": "../x"}),
            "contains a path separator".into(),
        ),
    ];
    for (name, bad, says) in cases {
        eprintln!("-- {name}");
        let case = Case::new();
        std::os::unix::fs::symlink(
            case.outside.join("secret.sql"),
            case.bench.join("dumps/link.sql"),
        )
        .unwrap();
        std::os::unix::fs::symlink(
            case.outside.join("tables.json"),
            case.bench.join("tables-link.json"),
        )
        .unwrap();
        std::os::unix::fs::symlink("/dev/zero", case.bench.join("dumps/zero.sql")).unwrap();
        mkfifo(&case.bench.join("dumps/pipe.sql"));
        let outside = case.outside.to_str().unwrap();
        let bad = bad.to_string().replace("@OUTSIDE@", outside);
        dumps_json(&case.bench, serde_json::from_str(&bad).unwrap());
        let o = case.eval(&[]);
        case.assert_refused(&o, &says.replace("@OUTSIDE@", outside));
    }
}

#[test]
fn audit_fuzz_and_perturb_refuse_the_same_entries() {
    let case = Case::new();
    std::os::unix::fs::symlink(
        case.outside.join("secret.sql"),
        case.bench.join("dumps/link.sql"),
    )
    .unwrap();
    dumps_json(
        &case.bench,
        json!({"dump": "dumps/link.sql", "engine": "postgres", "db_id": "x"}),
    );
    let bench = case.bench.to_str().unwrap();
    let out = case.out.to_str().unwrap();
    let says = "dump \"dumps/link.sql\": outside the benchmark folder";
    let audit = sqlwitness(
        &[
            "audit",
            "--bench",
            bench,
            "--out",
            out,
            "--shuffles",
            "1",
            "-q",
        ],
        &case.scratch,
    );
    case.assert_refused(&audit, says);
    let fuzz = sqlwitness(
        &[
            "fuzz",
            "--bench",
            bench,
            "--out",
            out,
            "--candidates",
            "2",
            "-q",
        ],
        &case.scratch,
    );
    case.assert_refused(&fuzz, says);
    // perturb reads dumps.json with a server reference; the entry is
    // refused before any server is reached.
    let perturb = sqlwitness(
        &[
            "perturb",
            "--bench",
            bench,
            "--kind",
            "synonym",
            "--reference",
            "postgres",
            "--server",
            "postgres=postgres://nobody@127.0.0.1:1/none",
            "--out",
            out,
            "-q",
        ],
        &case.scratch,
    );
    case.assert_refused(&perturb, says);
}

#[test]
fn a_live_entry_names_only_a_live_variable() {
    let admin = "postgres://root:ADMIN-PASSWORD-7@127.0.0.1:1/test";
    for (var, env) in [
        (
            "SQLWITNESS_POSTGRES_URL",
            ("SQLWITNESS_POSTGRES_URL", admin),
        ),
        (
            "SQLWITNESS_MYSQL_READER_URL",
            ("SQLWITNESS_MYSQL_READER_URL", admin),
        ),
        ("DATABASE_URL", ("DATABASE_URL", admin)),
        (
            "AWS_SECRET_ACCESS_KEY",
            ("AWS_SECRET_ACCESS_KEY", "ADMIN-PASSWORD-7"),
        ),
        ("SQLWITNESS_LIVE_", ("SQLWITNESS_LIVE_", admin)),
    ] {
        eprintln!("-- {var}");
        let case = Case::new();
        dumps_json(
            &case.bench,
            json!({"engine": "postgres", "live": {"url_env": var}, "db_id": "shop"}),
        );
        let o = case.eval(&[env]);
        let all = text(&o);
        case.assert_refused(&o, &format!("live.url_env {var:?}"));
        assert!(all.contains("SQLWITNESS_LIVE_<NAME>"), "{all}");
        assert!(!all.contains("ADMIN-PASSWORD-7"), "{all}");
        assert_nowhere(&case.out, "ADMIN-PASSWORD-7");
    }
    // A live variable that is named but not set says so, and nothing else.
    let case = Case::new();
    dumps_json(
        &case.bench,
        json!({"engine": "postgres", "live": {"url_env": "SQLWITNESS_LIVE_SHOP"}, "db_id": "shop"}),
    );
    let o = sqlwitness_env(
        &[
            "eval",
            "--bench",
            case.bench.to_str().unwrap(),
            "--engines",
            "sqlite",
            "--out",
            case.out.to_str().unwrap(),
            "-q",
        ],
        &[],
        &case.scratch,
    );
    let all = text(&o);
    assert_eq!(o.status.code(), Some(2), "{all}");
    assert!(
        all.contains("read from SQLWITNESS_LIVE_SHOP, which is not set"),
        "{all}"
    );
}

// ---------------------------------------------------------------- suites

/// A suite of concert_singer in `root`: the original and `instances`
/// (copies of it) under `database/concert_singer/`, and a manifest listing
/// `listed` as the instance files.
fn suite(root: &Path, instances: usize, listed: &[&str]) {
    let dir = root.join("database/concert_singer");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(example_db(), dir.join("concert_singer.sqlite")).unwrap();
    for k in 1..=instances {
        std::fs::copy(example_db(), dir.join(format!("concert_singer_{k}.sqlite"))).unwrap();
    }
    write_manifest(root, &[("concert_singer", listed)]);
}

/// One manifest entry of a database whose instances are `files`.
fn suite_entry(files: &[&str]) -> Json {
    json!({
        "seed": 1,
        "stress": [],
        "comparison": "tie_aware",
        "extra_foreign_keys": [],
        "constraints": {"not_null": [], "unique": [], "foreign_keys": [], "domains": []},
        "candidates": files.len(),
        "original": "concert_singer.sqlite",
        "instances": files.iter().map(|f| json!({"file": f, "rows": {}, "kills": []})).collect::<Vec<_>>(),
        "golds": [],
        "counts": {"golds": 0, "neighbors": 0, "invalid": 0, "killed_by_original": 0,
                   "killed_by_instances": 0, "survived": 0, "instances_kept": files.len()}
    })
}

fn write_manifest(root: &Path, databases: &[(&str, &[&str])]) {
    let dbs: serde_json::Map<String, Json> = databases
        .iter()
        .map(|(id, files)| (id.to_string(), suite_entry(files)))
        .collect();
    std::fs::write(
        root.join("manifest.json"),
        json!({"format": 2, "databases": dbs}).to_string(),
    )
    .unwrap();
}

/// The concert_singer benchmark and a suite beside it, in a temporary
/// folder, with an outside SQLite file that would change the suite's
/// verdicts (no singer; a table holding the secret).
struct SuiteCase {
    dir: tempfile::TempDir,
    bench: PathBuf,
    suite: PathBuf,
    evil: PathBuf,
}

impl SuiteCase {
    fn new() -> SuiteCase {
        let dir = tempfile::tempdir().unwrap();
        let bench_dir = dir.path().join("bench");
        bench(&bench_dir);
        let evil = dir.path().join("outside/evil.sqlite");
        std::fs::create_dir_all(evil.parent().unwrap()).unwrap();
        std::fs::copy(example_db(), &evil).unwrap();
        let c = rusqlite::Connection::open(&evil).unwrap();
        c.execute_batch(&format!(
            "DELETE FROM singer_in_concert; DELETE FROM singer; \
             CREATE TABLE secret (s TEXT); INSERT INTO secret VALUES ('{SECRET}');"
        ))
        .unwrap();
        drop(c);
        SuiteCase {
            suite: dir.path().join("suite"),
            bench: bench_dir,
            evil,
            dir,
        }
    }

    fn eval(&self, extra: &[&str]) -> Output {
        let out = self.dir.path().join("out");
        let mut args = vec![
            "eval",
            "--bench",
            self.bench.to_str().unwrap(),
            "--suite",
            self.suite.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        sqlwitness(&args, self.dir.path())
    }

    /// The suite was refused naming `says` (exit 2), with nothing of the
    /// outside file in the output.
    fn assert_refused(&self, o: &Output, says: &str) {
        let all = text(o);
        assert_eq!(o.status.code(), Some(2), "{all}");
        assert!(all.contains("manifest.json"), "{all}");
        assert!(all.contains(says), "expected {says:?} in: {all}");
        assert!(!all.contains(SECRET), "{all}");
        assert_nowhere(&self.dir.path().join("out"), SECRET);
    }
}

#[test]
fn a_suite_instance_outside_the_suite_is_refused() {
    // The suite as made: it runs, each question checked on two instances.
    let case = SuiteCase::new();
    suite(
        &case.suite,
        2,
        &["concert_singer_1.sqlite", "concert_singer_2.sqlite"],
    );
    let o = case.eval(&["--engines", "sqlite"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    let evil = case.evil.to_str().unwrap().to_string();
    let climb = "../../../outside/evil.sqlite";
    let cases: Vec<(&str, Vec<&str>, String)> = vec![
        (
            "absolute",
            vec!["concert_singer_1.sqlite", &evil],
            format!("concert_singer: instance 1: file {evil:?}: an absolute path"),
        ),
        (
            "climbs out",
            vec![climb],
            format!("concert_singer: instance 0: file {climb:?}: outside the suite folder"),
        ),
        (
            "link",
            vec!["concert_singer_1.sqlite", "link.sqlite"],
            "concert_singer: instance 1: file \"link.sqlite\": outside the suite folder".into(),
        ),
        (
            "device",
            vec!["zero.sqlite"],
            "instance 0: file \"zero.sqlite\": outside the suite folder".into(),
        ),
        (
            "fifo",
            vec!["pipe.sqlite"],
            "instance 0: file \"pipe.sqlite\": a FIFO, not a regular file".into(),
        ),
        (
            "twice",
            vec!["concert_singer_1.sqlite", "concert_singer_1.sqlite"],
            "instance 1: file \"concert_singer_1.sqlite\" is the file of instance 0".into(),
        ),
        (
            "twice by another name",
            vec![
                "concert_singer_1.sqlite",
                "concert_singer_2.sqlite",
                "./../concert_singer/concert_singer_2.sqlite",
            ],
            "is the file of instance 1: each instance is listed once".into(),
        ),
    ];
    for (name, files, says) in cases {
        eprintln!("-- {name}");
        let case = SuiteCase::new();
        suite(&case.suite, 2, &files);
        let dir = case.suite.join("database/concert_singer");
        std::os::unix::fs::symlink(&case.evil, dir.join("link.sqlite")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.join("zero.sqlite")).unwrap();
        mkfifo(&dir.join("pipe.sqlite"));
        let o = case.eval(&["--engines", "sqlite"]);
        case.assert_refused(&o, &says);
    }

    // The original copy and the database names are held to the same rule.
    let case = SuiteCase::new();
    suite(&case.suite, 1, &["concert_singer_1.sqlite"]);
    let manifest = case.suite.join("manifest.json");
    let mut m: Json = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    m["databases"]["concert_singer"]["original"] = json!(evil);
    std::fs::write(&manifest, m.to_string()).unwrap();
    let o = case.eval(&["--engines", "sqlite"]);
    case.assert_refused(&o, "concert_singer: original: file");
    let entry = m["databases"]["concert_singer"].clone();
    m["databases"] = json!({"../../outside": entry});
    std::fs::write(&manifest, m.to_string()).unwrap();
    let o = case.eval(&["--engines", "sqlite"]);
    case.assert_refused(&o, "contains a path separator");
}

#[test]
fn a_suite_past_its_bounds_is_refused() {
    let case = SuiteCase::new();
    suite(&case.suite, 1, &["concert_singer_1.sqlite"]);
    // 1,001 instances of one database (the count is checked before any
    // file is looked at).
    let names: Vec<String> = (0..1001).map(|k| format!("i{k}.sqlite")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    write_manifest(&case.suite, &[("concert_singer", &refs)]);
    let o = case.eval(&["--engines", "sqlite"]);
    case.assert_refused(
        &o,
        "concert_singer: 1001 instances: a database's suite may have at most 1000",
    );
    // 11 databases of 1,000: 11,000 in the suite.
    let ids: Vec<String> = (0..11).map(|d| format!("db{d}")).collect();
    let dbs: Vec<(&str, &[&str])> = ids.iter().map(|id| (id.as_str(), &refs[..1000])).collect();
    write_manifest(&case.suite, &dbs);
    let o = case.eval(&["--engines", "sqlite"]);
    case.assert_refused(&o, "11000 instances: a suite may have at most 10000");
    // fuzz never keeps more than a database may have.
    let o = sqlwitness(
        &[
            "fuzz",
            "--bench",
            case.bench.to_str().unwrap(),
            "--out",
            case.dir.path().join("fuzzed").to_str().unwrap(),
            "--candidates",
            "1001",
            "-q",
        ],
        case.dir.path(),
    );
    let all = text(&o);
    assert_eq!(o.status.code(), Some(2), "{all}");
    assert!(
        all.contains("--candidates") && all.contains("1000"),
        "{all}"
    );
}

/// How many namespaces on the server at `url` start with `prefix`.
fn namespaces(kind: EngineKind, url: &str, prefix: &str) -> i64 {
    let pattern = format!("{prefix}%").replace('_', "\\_");
    let sql = if kind.as_str() == "postgres" {
        format!("SELECT count(*) FROM pg_namespace WHERE nspname LIKE '{pattern}'")
    } else {
        format!(
            "SELECT CAST(COUNT(*) AS SIGNED) FROM information_schema.SCHEMATA \
             WHERE SCHEMA_NAME LIKE '{pattern}'"
        )
    };
    admin::count(url, &sql)
}

/// Drops the copy of concert_singer made under `prefix` (and any instance
/// copy a failed assertion left).
struct DropCopies<'a> {
    kind: EngineKind,
    url: &'a str,
    prefix: String,
}

impl Drop for DropCopies<'_> {
    fn drop(&mut self) {
        let target = sqlwitness_migrate::MigrationTarget::new(self.kind, self.url);
        let _ =
            sqlwitness_migrate::drop_namespace(&target, &format!("{}concert_singer", self.prefix));
        for k in 1..=3 {
            let _ = sqlwitness_migrate::drop_namespace(
                &target,
                &format!("{}concert_singer__s{k}", self.prefix),
            );
        }
    }
}

#[test]
fn the_instance_copies_of_a_suite_run_are_gone_after_it() {
    let ran = sqlwitness_testkit::for_each_server(None, |kind, url| {
        let case = SuiteCase::new();
        suite(
            &case.suite,
            3,
            &[
                "concert_singer_1.sqlite",
                "concert_singer_2.sqlite",
                "concert_singer_3.sqlite",
            ],
        );
        let prefix = prefix(kind.as_str());
        let _cleanup = DropCopies {
            kind,
            url,
            prefix: prefix.clone(),
        };
        let engines = format!("sqlite,{kind}");
        let server = format!("{kind}={url}");
        let common = [
            "--engines",
            &engines,
            "--server",
            &server,
            "--namespace-prefix",
            &prefix,
        ];
        // A run that ends well: every question checked on the three
        // instances on the server, and their copies gone after it.
        let o = case.eval(&common);
        assert_eq!(o.status.code(), Some(0), "{kind}: {}", text(&o));
        let report: Json = serde_json::from_slice(
            &std::fs::read(case.dir.path().join("out/report.json")).unwrap(),
        )
        .unwrap();
        for q in report["questions"].as_array().unwrap() {
            let s = &q["engines"][kind.as_str()]["suite"];
            assert_eq!(s["checked"], 3, "{kind}: {q}");
            assert_eq!(s["passed"], true, "{kind}: {q}");
        }
        assert_eq!(
            namespaces(kind, url, &format!("{prefix}concert_singer__s")),
            0,
            "{kind}"
        );
        assert_eq!(
            namespaces(kind, url, &format!("{prefix}concert_singer")),
            1,
            "{kind}: the benchmark's own copy stays"
        );
        // A run that fails after the copies are made (its reader login
        // cannot connect): they are gone too.
        let mut bad_reader = url::Url::parse(url).unwrap();
        bad_reader.set_username("sw_nobody").unwrap();
        bad_reader.set_password(Some("wrong")).unwrap();
        let reader = format!("{kind}={bad_reader}");
        let mut args = common.to_vec();
        args.extend(["--reader", &reader]);
        let o = case.eval(&args);
        assert_eq!(o.status.code(), Some(3), "{kind}: {}", text(&o));
        assert!(
            text(&o).contains(&format!(
                "suite: {kind}: 3 instances migrated or verified, 0 failed"
            )),
            "{kind}: {}",
            text(&o)
        );
        assert_eq!(
            namespaces(kind, url, &format!("{prefix}concert_singer__s")),
            0,
            "{kind}: {}",
            text(&o)
        );
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}
