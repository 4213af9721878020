//! report.json against its JSON Schema, junit.xml, report.html and the
//! report diff. Reports are built from JSON text so that fields other
//! issues add (with serde defaults) do not break these tests.

use serde_json::{json, Value};
use std::path::Path;

use sqlwitness_report::*;
use sqlwitness_score::{compute_scores, QuestionInput, ScoreOptions};

// ---------------------------------------------------------------------------
// A validator for the subset of JSON Schema report.schema.json uses.

fn validate(schema: &Value, root: &Value, v: &Value, path: &str, errs: &mut Vec<String>) {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r.strip_prefix("#/$defs/").expect("only local $defs refs");
        let target = &root["$defs"][name];
        assert!(!target.is_null(), "unknown $ref {r}");
        return validate(target, root, v, path, errs);
    }
    if let Some(c) = schema.get("const") {
        if c != v {
            errs.push(format!("{path}: expected {c}, got {v}"));
        }
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array) {
        if !e.contains(v) {
            errs.push(format!("{path}: {v} not in {e:?}"));
        }
    }
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => panic!("bad type in schema at {path}"),
        };
        let ok = types.iter().any(|t| match *t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "boolean" => v.is_boolean(),
            "null" => v.is_null(),
            "number" => v.is_number(),
            "integer" => v.is_u64() || v.is_i64(),
            other => panic!("unsupported type {other}"),
        });
        if !ok {
            errs.push(format!("{path}: expected {types:?}, got {v}"));
            return;
        }
    }
    if let Some(n) = v.as_f64() {
        if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
            if n < min {
                errs.push(format!("{path}: {n} < minimum {min}"));
            }
        }
        if let Some(max) = schema.get("maximum").and_then(Value::as_f64) {
            if n > max {
                errs.push(format!("{path}: {n} > maximum {max}"));
            }
        }
    }
    if let Some(obj) = v.as_object() {
        let props = schema.get("properties").and_then(Value::as_object);
        if let Some(req) = schema.get("required").and_then(Value::as_array) {
            for r in req.iter().filter_map(Value::as_str) {
                if !obj.contains_key(r) {
                    errs.push(format!("{path}: missing required `{r}`"));
                }
            }
        }
        for (k, child) in obj {
            let p = format!("{path}/{k}");
            if let Some(s) = props.and_then(|p| p.get(k)) {
                validate(s, root, child, &p, errs);
            } else {
                match schema.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        errs.push(format!("{p}: not allowed by the schema"))
                    }
                    Some(s @ Value::Object(_)) => validate(s, root, child, &p, errs),
                    _ => {}
                }
            }
        }
    }
    if let (Some(items), Some(a)) = (schema.get("items"), v.as_array()) {
        for (i, child) in a.iter().enumerate() {
            validate(items, root, child, &format!("{path}/{i}"), errs);
        }
    }
}

fn schema() -> Value {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("report.schema.json"))
            .expect("report.schema.json");
    serde_json::from_str(&text).expect("schema is JSON")
}

fn errors_of(report: &Value) -> Vec<String> {
    let s = schema();
    let mut errs = Vec::new();
    validate(&s, &s, report, "", &mut errs);
    errs
}

// ---------------------------------------------------------------------------
// A small report exercising every optional field.

fn outcome(verdict: &str) -> Value {
    let ok = json!({"status": "ok", "row_count": 1, "result_hash": "ab", "sample": [["1", "x <&> \"y\""]], "duration_ms": 0.5});
    let err = json!({"status": "error", "error_class": "undefined_column", "error_code": "42703", "error": "column \"x\" does not exist", "duration_ms": 0.2});
    match verdict {
        "match" => json!({"verdict": "match", "ordered": false, "gold": ok, "pred": ok}),
        "mismatch" => {
            json!({"verdict": "mismatch", "reason": "values", "ordered": true, "gold": ok, "pred": ok,
                   "gold_sql": "SELECT count(*) FROM `singer`", "pred_sql": "SELECT 1",
                   "reference": {"engine": "sqlite", "verdict": "match", "gold_agrees": false, "gold_mechanism": "collation"},
                   "legacy": {"spider": true, "spider_ordered": false, "distinct_removed": true, "bird": false}})
        }
        // A mismatch that is one of the gold's answers under ties (strict).
        "mismatch_tie" => {
            json!({"verdict": "mismatch", "reason": "values", "ordered": false, "tie": true, "gold": ok, "pred": ok})
        }
        // Right on the original database, wrong on an instance of its suite.
        "match_suite_failed" => {
            json!({"verdict": "match", "ordered": false, "gold": ok, "pred": ok,
            "suite": {"passed": false, "instances": 3, "checked": 2, "failed_instance": "concert_singer/i1.sqlite", "reason": "values"}})
        }
        "pred_error" => json!({"verdict": "pred_error", "ordered": false, "gold": ok, "pred": err}),
        "gold_error" => json!({"verdict": "gold_error", "ordered": false, "gold": err}),
        "abstained" => json!({"verdict": "abstained", "ordered": false, "gold": ok}),
        _ => json!({"verdict": verdict, "ordered": false}),
    }
}

fn report_with(verdicts: &[[&str; 2]]) -> Report {
    let questions: Vec<Value> = verdicts
        .iter()
        .enumerate()
        .map(|(i, [s, p])| {
            json!({"id": i, "db_id": "concert_singer", "question": format!("Question {i} <b>?"),
                   "gold_sql": "SELECT count(*) FROM singer", "pred_sql": "SELECT count(*) FROM singer WHERE 1 < 2",
                   "engines": {"sqlite": outcome(s), "postgres": outcome(p)}})
        })
        .collect();
    let questions: Vec<QuestionReport> = serde_json::from_value(Value::Array(questions)).unwrap();
    let mut summary = summarize(&questions);
    let inputs: Vec<QuestionInput> = questions
        .iter()
        .map(|q| QuestionInput {
            id: q.id,
            abstained: q.engines.values().any(|o| o.verdict == Verdict::Abstained),
            feasible: q.id != 1,
            verdicts: q.verdicts(),
            confidence: Some(0.1 + 0.8 * (q.id % 5) as f64 / 4.0),
            scf: Some(vec![(q.id % 3) as f64 / 2.0; 20]),
            calibration: q.id % 2 == 0,
            suite_passed: Default::default(),
            legacy: q.legacy_inputs(),
            gold_features: ["ifnull".to_string()].into(),
            pred_features: if q.id % 2 == 0 {
                ["group_concat".to_string(), "||".to_string()].into()
            } else {
                Default::default()
            },
        })
        .collect();
    summary.scores = Some(compute_scores(&inputs, &ScoreOptions::default()));
    let run = json!({"bench": "spider", "split": "dev", "predictions": "pred.sql", "compare": "strict",
        "column_order": "exact", "keep_distinct": false, "float_tolerance": 1e-9, "timeout_ms": 30000,
        "identifiers": "sqlite", "engines": [{"kind": "sqlite", "version": "3.50"}, {"kind": "postgres", "version": "15"}],
        "duration_ms": 1234, "golds": {"postgres": "gold_postgres.sql"},
        "engine_predictions": {"postgres": "pred_postgres.sql"}});
    Report {
        format_version: FORMAT_VERSION,
        tool: ToolInfo {
            name: "sqlwitness".into(),
            version: "0.1.0".into(),
        },
        run: serde_json::from_value(run).unwrap(),
        summary,
        questions,
    }
}

fn sample_report() -> Report {
    let v = [
        ["match", "match"],
        ["match", "pred_error"],
        ["mismatch", "mismatch"],
        ["abstained", "abstained"],
        ["gold_error", "match"],
        ["match", "match"],
        ["pred_error", "timeout"],
        ["missing_db", "missing_db"],
        ["match", "mismatch"],
        ["mismatch", "match"],
    ];
    report_with(&v)
}

#[test]
fn sample_report_satisfies_the_schema() {
    let r = sample_report();
    let s = r.summary.scores.as_ref().unwrap();
    assert!(!s.calibration.is_empty(), "calibration exercised");
    assert!(
        s.calibration.values().any(|c| c.platt.is_some()),
        "platt exercised"
    );
    assert!(!s.dialect_features.is_empty());
    assert_eq!(s.legacy["sqlite"].mechanisms["spider: distinct_removed"], 2);
    let v = serde_json::to_value(&r).unwrap();
    let errs = errors_of(&v);
    assert!(errs.is_empty(), "{errs:#?}");
}

#[test]
fn schema_rejects_what_it_should() {
    let mut v = serde_json::to_value(sample_report()).unwrap();
    v["format_version"] = json!(2);
    v["summary"]["scores"]["rs"]["sqlite"]["M"] = json!(1.0);
    v["questions"][0]["engines"]["sqlite"]["verdict"] = json!("great");
    v["summary"]["engines"]["sqlite"]["ex"] = json!(1.5);
    v["run"].as_object_mut().unwrap().remove("split");
    let errs = errors_of(&v);
    for needle in [
        "/format_version",
        "/rs/sqlite/M",
        "/verdict",
        "/ex",
        "missing required `split`",
    ] {
        assert!(
            errs.iter().any(|e| e.contains(needle)),
            "{needle} not in {errs:#?}"
        );
    }
}

/// Every real report.json under `tests/outputs/` satisfies the schema and
/// reads back: reports written by the CLI (`sample-40`: the first 40 Spider
/// dev questions with synthetic predictions on SQLite, PostgreSQL and
/// MariaDB, the `sample-40` run of `scripts/score-demo.sh`).
#[test]
fn real_reports_satisfy_the_schema() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/outputs");
    let mut found = 0;
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == "report.json") {
                let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
                if v.get("format_version").is_none() || v.get("questions").is_none() {
                    eprintln!("{}: not an eval report, not checked", p.display());
                    continue;
                }
                let errs = errors_of(&v);
                assert!(errs.is_empty(), "{}: {errs:#?}", p.display());
                read_report(&p).expect("reads back");
                found += 1;
            }
        }
    }
    assert!(found > 0, "no report.json under {}", root.display());
    eprintln!("{found} real report(s) validated");
}

/// The report.json files the JSON writer's unit tests expect
/// (`tests/expected/`: a failed suite with its witness, ties, a gold error,
/// an abstention, scores; timed runs with the official scripts' timing)
/// satisfy the schema.
#[test]
fn the_expected_reports_satisfy_the_schema() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expected");
    for name in ["report.json", "ves-report.json"] {
        let text = std::fs::read_to_string(dir.join(name)).expect(name);
        let v: Value = serde_json::from_str(&text).unwrap();
        let errs = errors_of(&v);
        assert!(errs.is_empty(), "{name}: {errs:#?}");
    }
}

/// A question that matched on the original database but failed its test
/// suite fails in JUnit too, naming the instance.
#[test]
fn junit_fails_a_question_that_failed_its_suite() {
    let r = report_with(&[["match_suite_failed", "match"], ["match", "match"]]);
    let x = render_junit(&r);
    assert!(
        x.contains("name=\"sqlwitness.sqlite\" tests=\"2\" failures=\"1\""),
        "{x}"
    );
    assert!(
        x.contains("<failure type=\"suite\" message=\"values\">instance: concert_singer/i1.sqlite"),
        "{x}"
    );
    assert!(x.contains("name=\"sqlwitness.postgres\" tests=\"2\" failures=\"0\""));
    // The HTML shows it as a failure, with the instance.
    let html = render_html(&r);
    assert!(html.contains("sqlite: match, suite failed"), "{html}");
    assert!(html.contains("failed on <code>concert_singer/i1.sqlite</code>"));
}

#[test]
fn junit_has_one_testcase_per_question_and_engine() {
    let r = sample_report();
    let x = render_junit(&r);
    assert!(x.starts_with("<?xml"));
    assert_eq!(x.matches("<testcase ").count(), 20);
    assert_eq!(x.matches("<testsuite ").count(), 2);
    // sqlite: 2 mismatch + 1 pred_error = 3 failures; postgres: 2 mismatch, 1 pred_error, 1 timeout.
    assert!(
        x.contains(
            "name=\"sqlwitness.sqlite\" tests=\"10\" failures=\"3\" errors=\"1\" skipped=\"2\""
        ),
        "{x}"
    );
    assert!(
        x.contains(
            "name=\"sqlwitness.postgres\" tests=\"10\" failures=\"4\" errors=\"0\" skipped=\"2\""
        ),
        "{x}"
    );
    assert!(x.contains(
        "<testsuites name=\"sqlwitness\" tests=\"20\" failures=\"7\" errors=\"1\" skipped=\"4\">"
    ));
    // Escaped: no raw `<b>` from the question text, `1 < 2` from the SQL.
    assert!(!x.contains("<b>") && x.contains("1 &lt; 2") && x.contains("Question 0 &lt;b&gt;?"));
    assert_eq!(
        x.matches("<testsuite ").count(),
        x.matches("</testsuite>").count()
    );
}

#[test]
fn html_is_self_contained_and_complete() {
    let r = sample_report();
    let h = render_html(&r);
    assert!(h.starts_with("<!DOCTYPE html>") && h.trim_end().ends_with("</html>"));
    // No fetch of anything: the only URL is the SVG namespace.
    let without_ns = h.replace("http://www.w3.org/2000/svg", "");
    for needle in ["http://", "https://", "<link", "src=", "@import", "url("] {
        assert!(!without_ns.contains(needle), "found {needle}");
    }
    assert!(h.contains("Cross-engine verdict agreement"));
    assert!(h.contains("Reliability diagram — sqlite"));
    assert!(h.contains("Errors by class"));
    assert!(h.contains("Verdicts and execution accuracy per engine"));
    assert!(h.contains("Spider evaluator: match (DISTINCT deleted), BIRD: mismatch"));
    assert!(h.contains("spider: distinct_removed 2"));
    assert_eq!(h.matches("<details class=\"q\"").count(), 10);
    assert!(!h.contains("<b>?") && h.contains("Question 0 &lt;b&gt;?"));
    assert!(
        h.contains("x &lt;&amp;&gt; &quot;y&quot;"),
        "sample cells escaped"
    );
}

#[test]
fn diff_finds_changes_regressions_and_robustness() {
    let old = report_with(&[
        ["match", "match"],
        ["match", "match"],
        ["mismatch", "match"],
        ["match", "pred_error"],
    ]);
    let new = report_with(&[
        ["match", "match"],
        ["mismatch", "match"],
        ["match", "match"],
        ["match", "match"],
    ]);
    let d = diff_reports(&old, &new);
    assert_eq!(d.common_questions, 4);
    let s = &d.engines["sqlite"];
    assert_eq!(
        (s.old_match, s.new_match, s.new_failures, s.fixed),
        (3, 3, 1, 1)
    );
    assert!(s.delta.abs() < 1e-12);
    // Dr.Spider reading: pre 3/4, post 3/4, both 2 → relative 2/3.
    assert!((s.robustness.relative_robustness - 2.0 / 3.0).abs() < 1e-12);
    let p = &d.engines["postgres"];
    assert_eq!((p.new_failures, p.fixed), (0, 1));
    assert!(p.delta > 0.0);
    assert_eq!(d.changed.len(), 3);
    // One new failure on sqlite out of 4 questions: a regression at
    // tolerance 0, tolerated at 0.25.
    assert_eq!(d.regressions(0.0).len(), 1, "{:?}", d.regressions(0.0));
    assert!(d.regressions(0.25).is_empty());
    let md = render_diff_markdown(&d, 0.0, 10);
    assert!(md.contains("**Regression**") && md.contains("**new failure**"));
    // Accuracy drop.
    let worse = report_with(&[
        ["mismatch", "match"],
        ["mismatch", "match"],
        ["mismatch", "match"],
        ["match", "pred_error"],
    ]);
    let d = diff_reports(&old, &worse);
    assert!(d
        .regressions(0.0)
        .iter()
        .any(|r| r.contains("sqlite: tie-aware EX fell")));
    assert!(d.regressions(0.5).is_empty());
    assert!(diff_reports(&old, &old).regressions(0.0).is_empty());
}

#[test]
fn write_report_writes_html_and_junit() {
    let dir = tempfile::tempdir().unwrap();
    write_report(dir.path(), &sample_report()).unwrap();
    for f in ["report.json", "summary.md", "report.html", "junit.xml"] {
        assert!(dir.path().join(f).is_file(), "{f}");
    }
    let back = read_report(&dir.path().join("report.json")).unwrap();
    // (Floats may differ in the last bit: serde_json's default parser is
    // not correctly rounded.)
    let r = sample_report();
    assert!(back.questions == r.questions && back.summary.engines == r.summary.engines);
    let (a, b) = (back.summary.scores.unwrap(), r.summary.scores.unwrap());
    assert_eq!(
        (a.rs_breakdown, a.consistency),
        (b.rs_breakdown, b.consistency)
    );
}

#[test]
fn summary_md_shows_the_scores() {
    let md = render_markdown(&sample_report());
    assert!(md.contains("## Scores"));
    assert!(md.contains("| engine | EX (scorable) | RS(0) | RS(10) | RS(N) |"));
    assert!(md.contains("### Calibration") && md.contains("Platt-scaled, test split"));
    assert!(md.contains("### Dialect features") && md.contains("`group_concat`"));
    assert!(
        md.contains("### Strict vs the legacy evaluators")
            && md.contains("spider: distinct_removed 2")
    );
    // Without scores the section is absent.
    let mut r = sample_report();
    r.summary.scores = None;
    assert!(!render_markdown(&r).contains("## Scores"));
}

/// The same inputs give the same gate: a `LIMIT` cutting through ties
/// returns other tied rows in another run (`match` ↔ a tie-dependent
/// `mismatch` under `--ties strict`, `match` ↔ `match_tie` under `--ties
/// aware`); neither is a new failure, nor moves the gated (tie-aware) EX.
/// Pipes in a cell (`||`, the concatenation feature) are escaped, and a
/// mismatch reason is spelled as everywhere else (`column_order`).
#[test]
fn summary_md_tables_keep_their_columns() {
    let mut r = report_with(&[["mismatch", "match"], ["match", "match"]]);
    r.questions[0].engines.get_mut("sqlite").unwrap().reason =
        Some(sqlwitness_core::compare::MismatchReason::ColumnOrder);
    let md = render_markdown(&r);
    assert!(md.contains("`\\|\\|`"), "{md}");
    assert!(
        md.contains("column_order") && !md.contains("columnorder"),
        "{md}"
    );
    for line in md.lines().filter(|l| l.starts_with("| `")) {
        let cells = line.replace("\\|", "").matches('|').count();
        assert_eq!(cells, 6, "{line}");
    }
}

#[test]
fn tie_flips_between_runs_never_gate() {
    let run1 = report_with(&[["match", "match"], ["mismatch_tie", "match_tie"]]);
    let run2 = report_with(&[["mismatch_tie", "match_tie"], ["match", "match"]]);
    for (a, b) in [(&run1, &run2), (&run2, &run1)] {
        let d = diff_reports(a, b);
        assert_eq!(d.changed.len(), 4);
        for e in d.engines.values() {
            assert_eq!((e.new_failures, e.fixed), (0, 0));
            assert_eq!(e.old_ex_tie_aware, e.new_ex_tie_aware);
        }
        assert!(d.regressions(0.0).is_empty(), "{:?}", d.regressions(0.0));
        let md = render_diff_markdown(&d, 0.0, 10);
        assert!(md.contains("both answers valid under ties") && !md.contains("**new failure**"));
    }
    let s = &run1.summary.engines["sqlite"];
    assert_eq!((s.matched, s.mismatch, s.mismatch_tie), (1, 1, 1));
    assert_eq!(s.ex_tie_aware, 1.0);
    // A tie-dependent mismatch becoming a plain one is a failure.
    let worse = report_with(&[["match", "match"], ["mismatch", "match_tie"]]);
    assert_eq!(
        diff_reports(&run1, &worse).engines["sqlite"].new_failures,
        1
    );
}

/// Two dialect runs of one engine each (a model's SQLite run against its
/// MySQL run) compare with each other, not as two missing engines.
#[test]
fn diff_compares_dialect_runs_side_by_side() {
    let old = report_with(&[["match", "match"], ["mismatch", "match"]]);
    let mut a = old.clone();
    let mut b = old.clone();
    for q in &mut a.questions {
        q.engines.remove("postgres");
    }
    for q in &mut b.questions {
        let pg = q.engines.remove("postgres").unwrap();
        q.engines.remove("sqlite");
        q.engines.insert("mysql".into(), pg);
    }
    a.summary = summarize(&a.questions);
    b.summary = summarize(&b.questions);
    let d = diff_reports(&a, &b);
    let e = &d.engines["sqlite→mysql"];
    assert_eq!((e.old_match, e.new_match), (1, 2));
    assert!(d.engines_removed.is_empty() && d.engines_added.is_empty());
    assert_eq!(d.changed.len(), 1);
}

/// One name, one definition, one number: EX, EX (scorable) and tie-aware
/// EX appear with the same values in summary.md, report.html and junit.xml
/// (and report.json holds them).
#[test]
fn every_output_shows_the_same_accuracies_under_the_same_names() {
    let r = report_with(&[
        ["match", "gold_error"],
        ["mismatch_tie", "match"],
        ["pred_error", "match"],
        ["match", "missing_db"],
    ]);
    let (md, html, junit) = (render_markdown(&r), render_html(&r), render_junit(&r));
    for (engine, s) in &r.summary.engines {
        let scorable = r.summary.ex_scorable(engine).unwrap();
        let (ex, sc, ta) = (
            format!("{:.4}", s.ex),
            format!("{scorable:.4}"),
            format!("{:.4}", s.ex_tie_aware),
        );
        let row = format!("| {ex} | {sc} | {ta} |");
        assert!(md.contains(&row), "{engine}: {row}\n{md}");
        assert!(
            html.contains(&format!(
                "<b>{ex}</b></td><td class=n>{sc}</td><td class=n>{ta}</td>"
            )),
            "{engine}"
        );
        assert!(junit.contains(&format!(
            "<property name=\"ex\" value=\"{ex}\"/><property name=\"ex_scorable\" value=\"{sc}\"/><property name=\"ex_tie_aware\" value=\"{ta}\"/>"
        )));
    }
    // Gold errors count against EX, not against EX (scorable).
    let pg = &r.summary.engines["postgres"];
    assert!(pg.ex < r.summary.ex_scorable("postgres").unwrap());
    assert!(md.contains(EX_DEFINITIONS) && html.contains("EX (scorable) = match"));
}

/// The page is for triage: it fits a narrow window, every question has a
/// link, and questions carry what the filters (engine, verdict, error
/// class, database; the model's failures apart from gold errors) select on.
#[test]
fn html_supports_triage() {
    let r = report_with(&[["match", "gold_error"], ["pred_error", "missing_db"]]);
    let html = render_html(&r);
    assert!(
        html.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
    );
    assert!(html.contains("<div class=\"tw\"><table>"));
    for id in ["fm", "fe", "fv", "fc", "fd", "ft"] {
        assert!(html.contains(&format!("id=\"{id}\"")), "{id}");
    }
    assert!(html.contains("<option value=\"model\">") && html.contains("<option value=\"gold\">"));
    assert!(html.contains("id=\"q1\"") && html.contains("href=\"#q1\""));
    assert!(html.contains(
        "data-model=\"0\" data-gold=\"1\" data-db=\"concert_singer\" data-hd=\"\" data-df=\"\" data-ev=\"postgres:gold_error:undefined_column;sqlite:match:\""
    ), "{html}");
    assert!(html.contains("data-model=\"1\" data-gold=\"0\""));
    // A light badge gets dark text.
    assert!(html.contains("class=\"b light\" style=\"background:#cfd8dc\""));
}

/// Sample rows carry their column names, and a row the other side lacks
/// is marked.
#[test]
fn html_samples_show_columns_and_the_difference() {
    let mut r = report_with(&[["mismatch", "match"]]);
    let o = r.questions[0].engines.get_mut("sqlite").unwrap();
    let pred = o.pred.as_mut().unwrap();
    pred.columns = vec!["singer_name".into(), "country".into()];
    pred.sample = vec![
        vec!["1".into(), "x <&> \"y\"".into()],
        vec!["2".into(), "extra".into()],
    ];
    let html = render_html(&r);
    assert!(
        html.contains("<th>singer_name</th><th>country</th>"),
        "{html}"
    );
    assert_eq!(html.matches("<tr class=\"only\"").count(), 1);
    assert!(html.contains(
        "<tr class=\"only\" title=\"not in the other side's rows shown\"><td>2</td><td>extra</td>"
    ));
}

/// With a gold audit (`eval --audit`): each audited question names its
/// findings and links them into audit.html; a filter shows the audited
/// questions; without one nothing changes.
#[test]
fn html_shows_gold_audit_findings_per_question() {
    let r = report_with(&[["match", "match"], ["mismatch", "match"]]);
    let mut notes = AuditNotes {
        href: Some("../audit/audit.html".into()),
        ..Default::default()
    };
    notes.by_question.insert(
        1,
        vec![AuditNote {
            rule: "limit_tie_1".into(),
            status: "proven".into(),
            engines: vec!["sqlite".into(), "postgres".into()],
            anchor: "f7".into(),
        }],
    );
    let html = render_html_with(&r, Some(&notes));
    assert!(html.contains("<option value=\"audit\">with gold-audit findings</option>"));
    assert!(html.contains("id=\"q1\" data-id=\"1\" data-audit=\"1\""));
    assert!(html.contains("id=\"q0\" data-id=\"0\" data-audit=\"0\""));
    assert!(html.contains(
        "Gold audit: <a href=\"../audit/audit.html#f7\"><code>limit_tie_1</code></a> proven on sqlite, postgres"
    ), "{html}");
    let plain = render_html(&r);
    assert!(!plain.contains("Gold audit") && !plain.contains("value=\"audit\""));
    assert!(plain.contains("data-audit=\"0\""));
}
