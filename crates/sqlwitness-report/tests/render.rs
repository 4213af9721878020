//! scripts/render-report.sh renders a report.html in headless Chromium.
//! Skips (prints SKIPPED) when no Chromium is installed — CI installs none.

use std::path::Path;
use std::process::Command;

use sqlwitness_report::*;

#[test]
fn report_html_renders_in_headless_chromium() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/render-report.sh");
    let have = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .any(|b| {
            Command::new("sh")
                .args(["-c", &format!("command -v {b}")])
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if !have {
        eprintln!("SKIPPED (no chromium installed)");
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
