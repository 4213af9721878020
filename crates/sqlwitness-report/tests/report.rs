//! The report model: summary arithmetic, serde round trip, version check,
//! and the Markdown summary.

use std::collections::BTreeMap;

use sqlwitness_core::compare::MismatchReason;
use sqlwitness_core::{EngineInfo, EngineKind, ErrorClass};
use sqlwitness_report::*;

fn exec_ok(rows: usize) -> Execution {
    Execution {
        status: ExecutionStatus::Ok,
        sql_run: None,
        error_class: None,
        error_code: None,
        error: None,
        row_count: Some(rows),
        result_hash: Some("00".into()),
        sample: vec![],
        columns: vec![],
        truncated: false,
        duration_ms: 0.1,
    }
}

fn exec_err(class: ErrorClass) -> Execution {
    Execution {
        status: ExecutionStatus::Error,
        error_class: Some(class),
        error_code: Some("42703".into()),
        error: Some("column \"x\" does not exist".into()),
        row_count: None,
        result_hash: None,
        ..exec_ok(0)
    }
}

fn question(id: usize, verdicts: &[(&str, Verdict)]) -> QuestionReport {
    let engines = verdicts
        .iter()
        .map(|(e, v)| {
            let (gold, pred) = match v {
                Verdict::GoldError => (Some(exec_err(ErrorClass::UndefinedColumn)), None),
                Verdict::PredError => (Some(exec_ok(1)), Some(exec_err(ErrorClass::Syntax))),
                Verdict::MissingDb => (None, None),
                _ => (Some(exec_ok(1)), Some(exec_ok(1))),
            };
            (
                e.to_string(),
                EngineOutcome {
                    verdict: *v,
                    gold_sql: None,
                    pred_sql: None,
                    reason: (*v == Verdict::Mismatch).then_some(MismatchReason::Values),
                    ordered: false,
                    tie: false,
                    unstable: false,
                    gold,
                    pred,
                    suite: None,
                    legacy: None,
                    reference: None,
                },
            )
        })
        .collect::<BTreeMap<_, _>>();
    QuestionReport {
        id,
        db_id: "db".into(),
        question: "q?".into(),
        gold_sql: "SELECT 1".into(),
        pred_sql: Some("SELECT 1".into()),
        engines,
    }
}

fn sample_report() -> Report {
    let questions = vec![
        question(
            0,
            &[("sqlite", Verdict::Match), ("postgres", Verdict::GoldError)],
        ),
        question(
            1,
            &[
                ("sqlite", Verdict::Mismatch),
                ("postgres", Verdict::Mismatch),
            ],
        ),
        question(
            2,
            &[
                ("sqlite", Verdict::PredError),
                ("postgres", Verdict::Timeout),
            ],
        ),
        question(
            3,
            &[
                ("sqlite", Verdict::MissingDb),
                ("postgres", Verdict::MissingDb),
            ],
        ),
        question(
            4,
            &[("sqlite", Verdict::Abstained), ("postgres", Verdict::Match)],
        ),
    ];
    Report {
        format_version: FORMAT_VERSION,
        tool: ToolInfo {
            name: "sqlwitness".into(),
            version: "0.1.0".into(),
        },
        run: RunInfo {
            bench: "b".into(),
            split: "dev".into(),
            predictions: Some("p.sql".into()),
            golds: BTreeMap::new(),
            collations: BTreeMap::new(),
            engine_predictions: BTreeMap::new(),
            compare: "strict".into(),
            column_order: "exact".into(),
            keep_distinct: false,
            float_tolerance: 1e-9,
            timeout_ms: 30_000,
            identifiers: "sqlite".into(),
            engines: vec![EngineInfo {
                kind: EngineKind::Postgres,
                version: "PostgreSQL 15".into(),
                login: Some("sqlwitness_reader: least privilege".into()),
            }],
            duration_ms: 12,
            peak_rss_bytes: Some(50 << 20),
        },
        summary: summarize(&questions),
        questions,
    }
}

#[test]
fn summary_counts_add_up_and_ex_excludes_missing_databases() {
    let r = sample_report();
    let lite = &r.summary.engines["sqlite"];
    assert_eq!(
        (
            lite.questions,
            lite.matched,
            lite.mismatch,
            lite.pred_error,
            lite.missing_db,
            lite.abstained
        ),
        (5, 1, 1, 1, 1, 1)
    );
    assert!((lite.ex - 0.25).abs() < 1e-12);
    assert_eq!(lite.pred_error_classes["syntax"], 1);
    let pg = &r.summary.engines["postgres"];
    assert_eq!((pg.matched, pg.gold_error, pg.timeout), (1, 1, 1));
    assert_eq!(pg.gold_error_classes["undefined_column"], 1);
}

#[test]
fn json_round_trips_and_uses_the_documented_keys() {
    let r = sample_report();
    let text = serde_json::to_string(&r).unwrap();
    let back: Report = serde_json::from_str(&text).unwrap();
    assert_eq!(r, back);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let s = &v["summary"]["engines"]["sqlite"];
    for key in [
        "questions",
        "match",
        "mismatch",
        "gold_error",
        "pred_error",
        "abstained",
        "missing_db",
        "timeout",
        "ex",
        "gold_error_classes",
    ] {
        assert!(s.get(key).is_some(), "missing summary key {key}");
    }
    let q = &v["questions"][0]["engines"]["postgres"];
    assert_eq!(q["verdict"], "gold_error");
    assert_eq!(q["gold"]["error_class"], "undefined_column");
    assert_eq!(q["gold"]["status"], "error");
}

#[test]
fn written_report_reads_back_and_other_versions_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let r = sample_report();
    write_report(dir.path(), &r).unwrap();
    assert_eq!(read_report(&dir.path().join("report.json")).unwrap(), r);
    let md = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(md.contains("| sqlite |"), "{md}");
    assert!(md.contains("## Gold errors (1)"), "{md}");
    assert!(md.contains("undefined_column"), "{md}");

    let mut other = serde_json::to_value(&r).unwrap();
    other["format_version"] = 99.into();
    let path = dir.path().join("old.json");
    std::fs::write(&path, other.to_string()).unwrap();
    let err = read_report(&path).unwrap_err().to_string();
    assert!(err.contains("old.json") && err.contains("99"), "{err}");
}
