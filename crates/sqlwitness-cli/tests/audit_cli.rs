//! `sqlwitness audit` end to end on a tiny Spider-layout benchmark (SQLite
//! only): audit.json/audit.md, proven and latent findings with rows, rerun
//! commands, `--id`, and `--fail-on` exit codes.

use std::path::Path;
use std::process::Command;

fn bench(dir: &Path) {
    let db = dir.join("database/music");
    std::fs::create_dir_all(&db).unwrap();
    let c = rusqlite::Connection::open(db.join("music.sqlite")).unwrap();
    c.execute_batch(
        "CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, age INT, country TEXT);
         INSERT INTO singer VALUES (1,'Ann',30,'FR'),(2,'Bob',30,'FR'),(3,'Cid',20,'US'),(4,'Dee',25,'US');",
    )
    .unwrap();
    std::fs::write(
        dir.join("dev_gold.sql"),
        "SELECT name FROM singer ORDER BY age DESC LIMIT 1\tmusic\n\
         SELECT name FROM singer ORDER BY age LIMIT 1\tmusic\n\
         SELECT count(*) FROM singer\tmusic\n\
         SELECT country, name FROM singer GROUP BY country\tmusic\n",
    )
    .unwrap();
    std::fs::write(dir.join("tables.json"), "[]").unwrap();
}

fn audit(dir: &Path, extra: &[&str]) -> (i32, serde_json::Value) {
    let out = dir.join("out");
    let mut c = Command::new(env!("CARGO_BIN_EXE_sqlwitness"));
    c.args(["audit", "--bench"])
        .arg(dir)
        .args(["--split", "dev", "-q", "--out"])
        .arg(&out)
        .args(extra);
    for kind in sqlwitness_core::EngineKind::all() {
        c.env_remove(kind.url_env())
            .env_remove(kind.reader_url_env());
    }
    let o = c.output().unwrap();
    let code = o.status.code().unwrap();
    assert!(
        code == 0 || code == 4 || code == 5,
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let json = std::fs::read_to_string(out.join("audit.json")).unwrap();
    assert!(out.join("audit.md").exists());
    (code, serde_json::from_str(&json).unwrap())
}

#[test]
fn audit_reports_proven_and_latent_with_rows() {
    let dir = tempfile::tempdir().unwrap();
    bench(dir.path());
    let (code, r) = audit(dir.path(), &[]);
    assert_eq!(code, 0);
    let by_rule = &r["summary"]["by_rule"];
    assert_eq!(by_rule["limit_tie_1"]["proven"], 1);
    assert_eq!(by_rule["limit_tie_1"]["latent"], 1);
    assert_eq!(by_rule["group_by_bare_column"]["proven"], 1);
    assert_eq!(r["summary"]["ties"]["limit_1"], 2);
    let f0 = &r["findings"][0];
    assert_eq!(f0["id"], 0);
    assert_eq!(f0["status"], "proven");
    assert_eq!(f0["evidence"][0]["kind"], "ties_at_cut");
    assert_eq!(f0["evidence"][0]["rows"].as_array().unwrap().len(), 2);
    assert!(f0["rerun"][0].as_str().unwrap().contains("--id 0"));
    assert_eq!(f0["rewrite"]["verified"], true);

    // One question only; thresholds for CI.
    let (_, r) = audit(dir.path(), &["--id", "2"]);
    assert_eq!(r["findings"].as_array().unwrap().len(), 0);
    let (code, _) = audit(dir.path(), &["--fail-on", "limit_tie_1:proven=0"]);
    assert_eq!(code, 5);
    let (code, _) = audit(
        dir.path(),
        &["--fail-on", "limit_tie_1:proven=1,group_by_bare_column=1"],
    );
    assert_eq!(code, 0);
}

#[test]
fn audit_baseline_fails_on_new_findings_only() {
    let dir = tempfile::tempdir().unwrap();
    bench(dir.path());
    // The baseline: the audit of question 2 alone, which has no finding.
    let (_, base) = audit(dir.path(), &["--id", "2"]);
    assert_eq!(base["findings"].as_array().unwrap().len(), 0);
    let baseline = dir.path().join("baseline.json");
    std::fs::write(&baseline, base.to_string()).unwrap();
    let b = baseline.to_str().unwrap();
    // Against it, the full audit has new findings: exit 4 and a diff.
    let (code, _) = audit(dir.path(), &["--baseline", b]);
    assert_eq!(code, 4);
    let md = std::fs::read_to_string(dir.path().join("out/baseline-diff.md")).unwrap();
    assert!(
        md.contains("**regression**") && md.contains("limit_tie_1"),
        "{md}"
    );
    // A generous tolerance lets them through; the same audit as its own
    // baseline never regresses.
    let (code, _) = audit(dir.path(), &["--baseline", b, "--tolerance", "1"]);
    assert_eq!(code, 0);
    let (_, full) = audit(dir.path(), &[]);
    std::fs::write(&baseline, full.to_string()).unwrap();
    let (code, _) = audit(dir.path(), &["--baseline", b]);
    assert_eq!(code, 0);
}

/// `--reference` names the engine that judges (SQLite by default, recorded
/// in the report); `none` or an engine not audited is refused before
/// anything runs; `--gold ENGINE=FILE` replaces an engine's golds.
#[test]
fn audit_reference_and_gold_flags() {
    let dir = tempfile::tempdir().unwrap();
    bench(dir.path());
    let (_, r) = audit(dir.path(), &["--id", "2"]);
    assert_eq!(r["run"]["reference"], "sqlite");
    for bad in [
        &["--reference", "none"][..],
        &["--reference", "postgres"][..],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_sqlwitness"))
            .args(["audit", "--bench"])
            .arg(dir.path())
            .args(["--split", "dev", "-q", "--out"])
            .arg(dir.path().join("refused"))
            .args(bad)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {stderr}");
        assert!(stderr.contains("--reference"), "{stderr}");
    }
    // Question 2's gold replaced by one with a tie at its LIMIT 1.
    let golds = dir.path().join("gold_sqlite.sql");
    std::fs::write(
        &golds,
        "\n\nSELECT name FROM singer WHERE age > 20 ORDER BY age DESC LIMIT 1\tmusic\n\n",
    )
    .unwrap();
    let spec = format!("sqlite={}", golds.display());
    let (_, r) = audit(dir.path(), &["--id", "2", "--gold", &spec]);
    let f = &r["findings"][0];
    assert_eq!(f["id"], 2, "{r}");
    assert_eq!(f["rule"], "limit_tie_1", "{f}");
    assert_eq!(f["status"], "proven", "{f}");
    assert!(
        f["rerun"][0].as_str().unwrap().contains("--gold sqlite="),
        "{f}"
    );
}
