//! Hostile flags and input files. Every numeric flag of every command
//! refuses a value outside its range as a usage error naming the flag
//! (exit 2), never a panic or a hang; an input file that is a device, a
//! FIFO or larger than its limit is refused naming the file, before it is
//! read; control characters in inputs (question text, SQL, file names,
//! errors) never reach the terminal or summary.md raw.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    sqlwitness_testkit::repo_root()
}

/// Runs sqlwitness; a run still going after `secs` seconds is killed and
/// the test fails (a hang).
fn run_within(args: &[String], secs: u64) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sqlwitness"))
        .current_dir(repo())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(secs);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "sqlwitness {args:?} still running after {secs} s: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Values no numeric flag takes: negative, not a number, infinite, far
/// too large for any range, too large for any integer.
const ALWAYS_BAD: &[&str] = &[
    "-1",
    "-0.5",
    "NaN",
    "inf",
    "-inf",
    "1e30",
    "99999999999999999999999",
    "x",
];

#[test]
fn every_numeric_flag_refuses_values_outside_its_range() {
    let bench = ["--bench", "examples/spider-dev"];
    let eval: Vec<&str> = [&["eval"][..], &bench].concat();
    let audit: Vec<&str> = [&["audit"][..], &bench].concat();
    let migrate: Vec<&str> = [&["migrate"][..], &bench].concat();
    let fuzz: Vec<&str> = [&["fuzz"][..], &bench, &["--out", "/nonexistent/suite"]].concat();
    let perturb: Vec<&str> = [&["perturb"][..], &bench, &["--out", "/nonexistent/p"]].concat();
    let spider = [
        "spider-eval",
        "--gold",
        "g.sql",
        "--pred",
        "p.sql",
        "--db",
        "database",
    ];
    let bird = [
        "bird-eval",
        "--predicted_sql_path",
        "p.json",
        "--ground_truth_path",
        "g.sql",
        "--db_root_path",
        "database",
    ];
    let import = [
        "import",
        "--dump",
        "d.sql",
        "--engine",
        "postgres",
        "--out",
        "/nonexistent/i",
    ];
    let stand_ins = ["stand-ins", "--tables", "t.json", "--out", "/nonexistent/s"];
    let diff = ["diff", "a.json", "b.json"];
    let with_suite: Vec<&str> = [&eval[..], &["--suite", "s"]].concat();
    // (command and its required arguments, flag, bad values beyond
    // ALWAYS_BAD: the ends just past the range).
    let cases: Vec<(&[&str], &str, &[&str])> = vec![
        (&eval, "--timeout", &["0", "0.0009", "86401"]),
        (&eval, "--float-tolerance", &["1", "1.5"]),
        (&eval, "--max-result-mb", &["0", "0.0001", "65537"]),
        (&eval, "--max-sql-bytes", &["0", "16777217"]),
        (&eval, "--jobs", &["0", "1025", "100000000"]),
        (&eval, "--limit", &["0"]),
        (&with_suite, "--hunt", &["10001"]),
        (&eval, "--ves-runs", &["1001"]),
        (&eval, "--calibration-bins", &["0", "1001"]),
        (&eval, "--tolerance", &["1.01"]),
        (&eval, "--partition", &["0/3", "4/3", "1/10001", "1/0"]),
        (&migrate, "--jobs", &["0", "1025"]),
        (&audit, "--shuffles", &["101"]),
        (&audit, "--limit", &["0"]),
        (&audit, "--timeout", &["0", "86401"]),
        (&audit, "--tolerance", &["2"]),
        (&audit, "--jobs", &["0", "100000000"]),
        (&audit, "--partition", &["0/1"]),
        (&fuzz, "--seed", &[]),
        (&fuzz, "--candidates", &["0", "1001"]),
        (&fuzz, "--max-neighbors", &["10001"]),
        (&fuzz, "--jobs", &["0"]),
        (&fuzz, "--partition", &["2/1"]),
        (&perturb, "--samples", &["0", "1001"]),
        (&perturb, "--seed", &[]),
        (&perturb, "--timeout", &["0", "86401"]),
        (&import, "--statement-timeout", &["0", "86401"]),
        (&stand_ins, "--rows", &["1000001"]),
        (&diff, "--tolerance", &["1.5"]),
        (&spider, "--timeout", &["0"]),
        (&spider, "--jobs", &["0", "1025"]),
        (&bird, "--num_cpus", &["0", "1025"]),
        (&bird, "--meta_time_out", &["0", "86401"]),
        (&bird, "--timeout", &["0"]),
        (&bird, "--jobs", &["0"]),
    ];
    let mut tried = 0;
    for (command, flag, extra) in &cases {
        for bad in ALWAYS_BAD.iter().chain(extra.iter()) {
            // `--flag=VALUE`, and `--flag VALUE` as the Python keyword
            // path passes it (a negative value is a value, not a flag).
            for joined in [true, false] {
                let mut args = strings(command);
                if joined {
                    args.push(format!("{flag}={bad}"));
                } else {
                    args.extend([flag.to_string(), bad.to_string()]);
                }
                let o = run_within(&args, 60);
                let err = stderr(&o);
                assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
                assert!(err.contains(flag), "{args:?} does not name {flag}: {err}");
                assert!(!err.contains("panicked"), "{args:?}: {err}");
                tried += 1;
            }
        }
    }
    eprintln!("{tried} out-of-range values refused");

    // The ranges are in --help.
    let help = |command: &str| {
        let o = run_within(&strings(&[command, "--help"]), 60);
        assert!(o.status.success());
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let h = help("eval");
    for range in [
        "0.001 to 86400",
        "1 to 1024",
        "0.0009765625",
        "16777216",
        "at least 0, below 1",
        "1 <= K <= N <= 10000",
    ] {
        assert!(h.contains(range), "eval --help lacks `{range}`");
    }
    assert!(help("bird-eval").contains("0.001 to 86400"));
    assert!(help("audit").contains("0 to 100"));
}

/// A sparse file of `len` bytes (nothing written).
fn sparse(path: &Path, len: u64) {
    let f = std::fs::File::create(path).unwrap();
    f.set_len(len).unwrap();
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

#[test]
fn inputs_that_never_end_or_are_too_large_are_refused_naming_them() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    let out = out.to_str().unwrap();
    let eval = |extra: &[&str]| -> Output {
        let mut args = strings(&[
            "eval",
            "--bench",
            "examples/spider-dev",
            "--db",
            "concert_singer",
            "--out",
            out,
            "-q",
        ]);
        args.extend(strings(extra));
        run_within(&args, 60)
    };
    let refused = |o: &Output, file: &str, why: &str| {
        let err = stderr(o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(file), "{file} not named: {err}");
        assert!(err.contains(why), "{why}: {err}");
    };

    // An endless file.
    refused(
        &eval(&["--baseline", "/dev/zero"]),
        "/dev/zero",
        "a device, not a regular file",
    );
    refused(
        &eval(&["--pred", "/dev/zero"]),
        "/dev/zero",
        "not a regular file",
    );

    // A FIFO nobody writes: opening it would wait forever.
    let fifo = root.path().join("pred.fifo");
    mkfifo(&fifo);
    let fifo = fifo.to_str().unwrap();
    refused(&eval(&["--pred", fifo]), fifo, "a FIFO, not a regular file");
    refused(
        &run_within(&strings(&["diff", fifo, fifo]), 60),
        fifo,
        "a FIFO",
    );
    refused(
        &run_within(
            &strings(&[
                "spider-eval",
                "--gold",
                fifo,
                "--pred",
                fifo,
                "--db",
                "examples/spider-dev/database",
            ]),
            60,
        ),
        fifo,
        "a FIFO",
    );

    // Larger than the limits (sparse: nothing is written or read).
    let big_report = root.path().join("report.json");
    sparse(&big_report, (512 << 20) + 1);
    let big_report = big_report.to_str().unwrap();
    refused(
        &run_within(&strings(&["diff", big_report, big_report]), 60),
        big_report,
        "larger than 512 MiB, the most sqlwitness reads of reports and baselines",
    );
    refused(
        &eval(&["--baseline", big_report]),
        big_report,
        "larger than 512 MiB",
    );
    let bench = root.path().join("bench");
    std::fs::create_dir_all(bench.join("database")).unwrap();
    std::fs::write(bench.join("tables.json"), "[]").unwrap();
    sparse(&bench.join("dev.json"), (1 << 30) + 1);
    let o = run_within(
        &strings(&[
            "eval",
            "--bench",
            bench.to_str().unwrap(),
            "--out",
            out,
            "-q",
        ]),
        60,
    );
    refused(
        &o,
        "dev.json",
        "larger than 1 GiB, the most sqlwitness reads of benchmark and prediction files",
    );
    let pred = root.path().join("pred.sql");
    sparse(&pred, (1 << 30) + 1);
    refused(
        &eval(&["--pred", pred.to_str().unwrap()]),
        "pred.sql",
        "larger than 1 GiB",
    );
}

/// Bytes a terminal or a Markdown reader would act on.
fn raw_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| sqlwitness_core::is_escaped(c))
        .collect()
}

#[test]
fn control_characters_in_inputs_reach_no_terminal_and_no_summary() {
    let root = tempfile::tempdir().unwrap();
    let bench = root.path().join("bench");
    let db = bench.join("database/concert_singer");
    std::fs::create_dir_all(&db).unwrap();
    std::fs::copy(
        repo().join("examples/spider-dev/database/concert_singer/concert_singer.sqlite"),
        db.join("concert_singer.sqlite"),
    )
    .unwrap();
    std::fs::write(bench.join("tables.json"), "[]").unwrap();
    let hostile = "\x1b[2J\x1b]0;owned\x07\u{202e}gnirts\u{9b}31m";
    let dev = serde_json::json!([
        {"db_id": "concert_singer", "question": format!("How many singers? {hostile}"),
         "query": "SELECT count(*) FROM singer"},
        {"db_id": "concert_singer", "question": "Names?", "query": "SELECT name FROM singer"},
    ]);
    std::fs::write(bench.join("dev.json"), dev.to_string()).unwrap();
    // A prediction whose error message quotes the hostile text, and one
    // whose mismatch is shown with its rows.
    let pred = root.path().join("pred.sql");
    std::fs::write(
        &pred,
        format!("SELECT * FROM \"no_table{hostile}\"\nSELECT '{hostile}' FROM singer\n"),
    )
    .unwrap();
    let out = root.path().join("out");
    let o = run_within(
        &strings(&[
            "eval",
            "--bench",
            bench.to_str().unwrap(),
            "--pred",
            pred.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]),
        120,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(raw_controls(&err), Vec::<char>::new(), "{err:?}");
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert_eq!(raw_controls(&summary), Vec::<char>::new(), "{summary}");
    assert!(
        summary.contains("no_table\\x1b[2J\\x1b]0;owned\\x07\\u{202e}gnirts\\x9b31m"),
        "the error is shown, escaped: {summary}"
    );
    // The report keeps the text as it was (JSON escapes it its own way).
    let report = std::fs::read_to_string(out.join("report.json")).unwrap();
    assert!(report.contains("\\u001b[2J"), "{report}");

    // A file name and a db_id holding escapes, in error messages.
    let named = root.path().join(format!("pred{hostile}.sql"));
    let o = run_within(
        &strings(&[
            "eval",
            "--bench",
            bench.to_str().unwrap(),
            "--pred",
            named.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]),
        60,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(raw_controls(&err), Vec::<char>::new(), "{err:?}");
    assert!(err.contains("pred\\x1b[2J"), "{err}");
    let dev = serde_json::json!([
        {"db_id": format!("x{hostile}"), "question": "q", "query": "SELECT 1"},
    ]);
    std::fs::write(bench.join("dev.json"), dev.to_string()).unwrap();
    let o = run_within(
        &strings(&[
            "eval",
            "--bench",
            bench.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-q",
        ]),
        60,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(raw_controls(&err), Vec::<char>::new(), "{err:?}");
    // A flag's value, quoted by the usage error.
    let o = run_within(
        &strings(&["eval", "--bench", "b", &format!("--timeout={hostile}")]),
        60,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(raw_controls(&err), Vec::<char>::new(), "{err:?}");
}
