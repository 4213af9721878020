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
                    gold_index: None,
                    pred_sql: None,
                    soft_f1: match v {
                        Verdict::Match => Some(1.0),
                        Verdict::Mismatch => Some(0.5),
                        Verdict::PredError | Verdict::Timeout | Verdict::Abstained => Some(0.0),
                        _ => None,
                    },
                    reason: (*v == Verdict::Mismatch).then_some(MismatchReason::Values),
                    ordered: false,
                    tie: false,
                    unstable: false,
                    gold,
                    pred,
                    suite: None,
                    legacy: None,
                    credit_causes: Vec::new(),
                    reference: None,
                    ves: None,
                    not_portable: None,
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
        // Questions 0–3 easy, medium, hard, extra; 4 unreadable.
        hardness: HARDNESS_LEVELS.get(id).map(|h| h.to_string()),
        hardness_error: (id >= 4).then(|| "a column alias (`AS` in SELECT)".into()),
        // Question 0 matches exactly, 1–3 do not; 4's gold is unreadable.
        exact_match: (id < 4).then_some(id == 0),
        exact_match_error: (id >= 4).then(|| "reading the gold raises AssertionError".into()),
        // Questions 0, 1 simple; 2–4 challenging.
        difficulty: Some(if id < 2 { "simple" } else { "challenging" }.into()),
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
            ves_runs: 0,
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

#[test]
fn levels_follow_the_official_layouts() {
    let r = sample_report();
    let lite = &r.summary.engines["sqlite"];
    // sqlite: q0 match (easy, simple), q1 mismatch (medium, simple), q2
    // pred_error (hard), q3 missing_db (extra), q4 abstained (no hardness).
    let h = &lite.by_hardness;
    assert_eq!(
        HARDNESS_LEVELS.map(|l| (h[l].questions, h[l].matched)),
        [(1, 1), (1, 0), (1, 0), (1, 0)]
    );
    assert_eq!((h["all"].questions, h["all"].matched), (5, 1));
    assert!((h["all"].ex - 0.25).abs() < 1e-12);
    // Missing database: no EX denominator at that level.
    assert_eq!(h["extra"].ex, 0.0);
    // Soft F1: 1 + 0.5 + 0 + 0 over the four questions with a database.
    assert!((h["all"].soft_f1 - 0.375).abs() < 1e-12);
    assert!((lite.soft_f1 - 0.375).abs() < 1e-12);
    let d = &lite.by_difficulty;
    assert_eq!((d["simple"].questions, d["simple"].matched), (2, 1));
    assert!((d["simple"].soft_f1 - 0.75).abs() < 1e-12);
    assert_eq!(d["challenging"].questions, 3);
    assert_eq!(d["total"].questions, 5);
    assert!(!d.contains_key("moderate"));

    let text = official_table(h, true);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        ["easy", "medium", "hard", "extra", "all"]
    );
    assert_eq!(
        lines[1].split_whitespace().collect::<Vec<_>>(),
        ["count", "1", "1", "1", "1", "5"]
    );
    assert_eq!(
        lines[3].split_whitespace().collect::<Vec<_>>(),
        ["execution", "1.000", "0.000", "0.000", "0.000", "0.250"]
    );
    let bird = official_table(d, false);
    assert!(
        bird.contains("simple               moderate             challenging          total"),
        "{bird}"
    );
    assert!(
        bird.contains("Soft-F1              75.00                0.00                 0.00"),
        "{bird}"
    );

    let md = render_markdown(&r);
    assert!(md.contains("## By Spider hardness"), "{md}");
    assert!(
        md.contains("| engine | | easy | medium | hard | extra | all |"),
        "{md}"
    );
    assert!(
        md.contains("| sqlite | EX | 1.000 | 0.000 | 0.000 | 0.000 | 0.250 |"),
        "{md}"
    );
    assert!(md.contains("## By BIRD difficulty"), "{md}");
    assert!(md.contains("1 gold queries have no hardness"), "{md}");
    let junit = render_junit(&r);
    assert!(
        junit.contains("<property name=\"hardness.easy.ex\" value=\"1.0000\"/>"),
        "{junit}"
    );
    assert!(
        junit.contains("<property name=\"difficulty.total.count\" value=\"5\"/>"),
        "{junit}"
    );
    let html = render_html(&r);
    assert!(html.contains("By Spider hardness"));
    assert!(html.contains("1 gold queries have no hardness"));
    assert!(html.contains("data-hd=\"easy\" data-df=\"simple\""));
    assert!(html.contains("<select id=\"fl\""));
}
