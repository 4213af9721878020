//! The HTML report in a real browser (Debian's Chromium, headless):
//! scripts/render-report.sh renders it, and its filters run in the page.
//! Without Chromium the tests say SKIPPED — and fail under
//! SQLWITNESS_REQUIRE_ENGINES=1 (`.ci/run` installs it).

use std::path::Path;
use std::process::Command;

use sqlwitness_report::*;

#[test]
fn report_html_renders_in_headless_chromium() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/render-report.sh");
    if chromium().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let report: Report = serde_json::from_value(serde_json::json!({
        "format_version": 1,
        "tool": {"name": "sqlwitness", "version": "test"},
        "run": {"bench": "b", "split": "dev", "predictions": null, "compare": "strict",
                "column_order": "exact", "keep_distinct": false, "float_tolerance": 1e-9,
                "timeout_ms": 1000, "identifiers": "sqlite", "engines": [], "duration_ms": 1},
        "summary": {"questions": 0, "engines": {}},
        "questions": []
    }))
    .unwrap();
    let mut report = report;
    let questions: Vec<QuestionReport> = serde_json::from_value(serde_json::json!([
        {"id": 0, "db_id": "d", "gold_sql": "SELECT 1", "engines": {
            "sqlite": {"verdict": "match", "ordered": false},
            "postgres": {"verdict": "mismatch", "reason": "values", "ordered": false}}}
    ]))
    .unwrap();
    report.summary = summarize(&questions);
    report.questions = questions;
    let html = dir.path().join("report.html");
    std::fs::write(&html, render_html(&report)).unwrap();
    let png = dir.path().join("shot.png");
    let out = Command::new("bash")
        .arg(&script)
        .arg(&html)
        .arg(&png)
        .arg("800,600")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    assert!(
        bytes.len() > 5_000,
        "a blank page would be tiny: {} bytes",
        bytes.len()
    );
}

fn chromium() -> Option<&'static str> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            Command::new("sh")
                .args(["-c", &format!("command -v {b}")])
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if found.is_none() {
        sqlwitness_testkit::missing("no chromium installed");
    }
    found
}

/// The page's filters, run by Chromium: the query string selects engine
/// and verdict, the script hides the other questions and counts the rest;
/// the DOM after the script ran is read back.
#[test]
fn the_filters_run_in_a_real_browser() {
    let Some(browser) = chromium() else { return };
    let questions: Vec<QuestionReport> = serde_json::from_value(serde_json::json!([
        {"id": 0, "db_id": "a", "gold_sql": "SELECT 1", "engines": {
            "sqlite": {"verdict": "match", "ordered": false},
            "postgres": {"verdict": "gold_error", "ordered": false,
                "gold": {"status": "error", "error_class": "undefined_column", "duration_ms": 1.0}}}},
        {"id": 1, "db_id": "b", "gold_sql": "SELECT 2", "engines": {
            "sqlite": {"verdict": "mismatch", "reason": "values", "ordered": false},
            "postgres": {"verdict": "mismatch", "reason": "values", "ordered": false}}},
        {"id": 2, "db_id": "b", "gold_sql": "SELECT 3", "engines": {
            "sqlite": {"verdict": "match", "ordered": false},
            "postgres": {"verdict": "match", "ordered": false}}}
    ]))
    .unwrap();
    let mut report: Report = serde_json::from_value(serde_json::json!({
        "format_version": 1,
        "tool": {"name": "sqlwitness", "version": "test"},
        "run": {"bench": "b", "split": "dev", "predictions": "p.sql", "compare": "strict",
                "column_order": "exact", "keep_distinct": false, "float_tolerance": 1e-9,
                "timeout_ms": 1000, "identifiers": "sqlite", "engines": [], "duration_ms": 1},
        "summary": {"questions": 0, "engines": {}},
        "questions": []
    }))
    .unwrap();
    report.summary = summarize(&questions);
    report.questions = questions;
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("report.html");
    std::fs::write(&html, render_html(&report)).unwrap();
    let shown = |query: &str| -> (Vec<String>, String) {
        let profile = tempfile::tempdir().unwrap();
        let out = Command::new("timeout")
            .arg("60")
            .arg(browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                &format!("--user-data-dir={}", profile.path().display()),
                "--dump-dom",
                &format!("file://{}?{query}", html.display()),
            ])
            .output()
            .unwrap();
        let dom = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(dom.contains("<details"), "no page from {browser}: {dom}");
        let visible = dom
            .split("<details ")
            .skip(1)
            .filter(|d| {
                let tag = d.split('>').next().unwrap_or("");
                !tag.contains("display: none")
            })
            .filter_map(|d| d.split("id=\"").nth(1)?.split('"').next().map(String::from))
            .collect();
        let count = dom
            .split("id=\"fn\">")
            .nth(1)
            .and_then(|s| s.split('<').next())
            .unwrap_or("")
            .to_string();
        (visible, count)
    };
    let all = ["q0", "q1", "q2"].map(String::from).to_vec();
    assert_eq!(shown("").0, all);
    assert_eq!(
        shown("fe=postgres&fv=gold_error"),
        (vec!["q0".to_string()], "1".into())
    );
    assert_eq!(shown("fm=model"), (vec!["q1".to_string()], "1".into()));
    assert_eq!(shown("fm=gold"), (vec!["q0".to_string()], "1".into()));
    assert_eq!(
        shown("fd=b&fe=sqlite&fv=match"),
        (vec!["q2".to_string()], "1".into())
    );
    assert_eq!(shown("fc=undefined_column").0, vec!["q0".to_string()]);
    assert_eq!(shown("ft=select%202").0, vec!["q1".to_string()]);
}
