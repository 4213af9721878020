//! `junit.xml`: one `<testcase>` per question and engine, one
//! `<testsuite>` per engine, for CI systems (the JUnit XML format as
//! Jenkins, GitLab and GitHub Actions read it).
//!
//! `match` and `match_tie` pass — unless the question failed its test
//! suite (`eval --suite`), a `<failure type="suite">` naming the instance
//! and the witness; a `mismatch` that is one of the gold's answers under
//! ties passes too, saying so in `<system-out>` (as tie-aware EX and the
//! baseline gate count it: a `LIMIT` cutting through ties never fails a
//! build on one run and passes it on the next); `mismatch`, `pred_error`
//! and `timeout` are `<failure>`s (the model's fault); `gold_error` is an `<error>` (the benchmark's
//! fault); `abstained` and `missing_db` are `<skipped/>`.

use std::fmt::Write;

use crate::{
    EngineOutcome, EngineSummary, QuestionReport, Report, SuiteOutcome, Verdict, WitnessReport,
};

pub fn render_junit(report: &Report) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let total = report
        .questions
        .iter()
        .map(|q| q.engines.len())
        .sum::<usize>();
    let mut counts = Counts::default();
    let mut suites = String::new();
    for (engine, s) in &report.summary.engines {
        let c = suite_counts(report, engine, s);
        counts.add(c);
        write_testsuite(&mut suites, report, engine, s, c);
    }
    let _ = writeln!(
        out,
        "<testsuites name=\"sqlwitness\" tests=\"{total}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">",
        counts.failures, counts.errors, counts.skipped
    );
    out.push_str(&suites);
    out.push_str("</testsuites>\n");
    out
}

/// The `failures`, `errors` and `skipped` attributes of a `<testsuite>`
/// (and, summed, of `<testsuites>`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counts {
    failures: usize,
    errors: usize,
    skipped: usize,
}

impl Counts {
    fn add(&mut self, other: Counts) {
        self.failures += other.failures;
        self.errors += other.errors;
        self.skipped += other.skipped;
    }
}

/// The outcomes of `engine`, in question order.
fn outcomes<'a>(report: &'a Report, engine: &'a str) -> impl Iterator<Item = &'a EngineOutcome> {
    report
        .questions
        .iter()
        .filter_map(move |q| q.engines.get(engine))
}

/// An engine's counts: failures are its mismatches, prediction errors,
/// timeouts and failed suites less the mismatches that are one of the
/// gold's answers under ties (they pass); errors its gold and engine
/// errors; skipped its abstentions and missing databases.
fn suite_counts(report: &Report, engine: &str, s: &EngineSummary) -> Counts {
    let suite_failed = outcomes(report, engine)
        .filter(|o| failed_suite(o).is_some())
        .count();
    let tie_answers = outcomes(report, engine)
        .filter(|o| o.verdict == Verdict::Mismatch && o.tie)
        .count();
    Counts {
        failures: (s.mismatch + s.pred_error + s.timeout + suite_failed)
            .saturating_sub(tie_answers),
        errors: s.gold_error + s.engine_error,
        skipped: s.abstained + s.missing_db,
    }
}

/// The time of the gold's and the prediction's executions in `outcomes`,
/// in seconds.
fn seconds<'a>(outcomes: impl Iterator<Item = &'a EngineOutcome>) -> f64 {
    outcomes
        .flat_map(|o| o.gold.iter().chain(o.pred.iter()))
        .map(|x| x.duration_ms)
        .sum::<f64>()
        / 1000.0
}

/// One engine's `<testsuite>`: its properties, then a `<testcase>` per
/// question it ran.
fn write_testsuite(out: &mut String, report: &Report, engine: &str, s: &EngineSummary, c: Counts) {
    let time = seconds(outcomes(report, engine));
    let _ = writeln!(
        out,
        "  <testsuite name=\"sqlwitness.{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{time:.3}\">",
        esc(engine),
        s.questions,
        c.failures,
        c.errors,
        c.skipped
    );
    // The accuracies under the names every output uses.
    let _ = writeln!(
        out,
        "    <properties><property name=\"ex\" value=\"{:.4}\"/><property name=\"ex_scorable\" value=\"{:.4}\"/><property name=\"ex_tie_aware\" value=\"{:.4}\"/><property name=\"soft_f1\" value=\"{:.4}\"/>{}</properties>",
        s.ex,
        report.summary.ex_scorable(engine).unwrap_or(0.0),
        s.ex_tie_aware,
        s.soft_f1,
        level_properties(s)
    );
    for q in &report.questions {
        if let Some(o) = q.engines.get(engine) {
            write_testcase(out, engine, q, o);
        }
    }
    out.push_str("  </testsuite>\n");
}

/// The accuracies by level: `hardness.easy.count`, `hardness.easy.ex`,
/// `difficulty.simple.soft_f1`, … in the evaluators' column order.
fn level_properties(s: &EngineSummary) -> String {
    let mut levels = String::new();
    for (kind, map, spider) in [
        ("hardness", &s.by_hardness, true),
        ("difficulty", &s.by_difficulty, false),
    ] {
        if map.is_empty() {
            continue;
        }
        for c in crate::level_columns(spider) {
            let l = map.get(c).cloned().unwrap_or_default();
            let _ = write!(
                levels,
                "<property name=\"{kind}.{c}.count\" value=\"{}\"/><property name=\"{kind}.{c}.ex\" value=\"{:.4}\"/><property name=\"{kind}.{c}.soft_f1\" value=\"{:.4}\"/>",
                l.questions, l.ex, l.soft_f1
            );
        }
    }
    levels
}

/// One `<testcase>`: empty when it passes silently, else with its body.
fn write_testcase(out: &mut String, engine: &str, q: &QuestionReport, o: &EngineOutcome) {
    let t = seconds(std::iter::once(o));
    let _ = write!(
        out,
        "    <testcase classname=\"sqlwitness.{}.{}\" name=\"q{:04} {}\" time=\"{t:.3}\"",
        esc(engine),
        esc(&q.db_id),
        q.id,
        esc(&short(&q.question, 80))
    );
    match testcase_body(q, o) {
        None => out.push_str("/>\n"),
        Some(b) => {
            let _ = writeln!(out, ">{b}</testcase>");
        }
    }
}

/// What a `<testcase>` holds for its verdict: nothing for a pass, a
/// `<failure>`, an `<error>`, `<skipped/>`, or the note of a mismatch
/// that passes under ties.
fn testcase_body(q: &QuestionReport, o: &EngineOutcome) -> Option<String> {
    let pred_err = o
        .pred
        .as_ref()
        .and_then(|p| p.error.clone())
        .unwrap_or_default();
    let gold_err = o
        .gold
        .as_ref()
        .and_then(|g| g.error.clone())
        .unwrap_or_default();
    match o.verdict {
        Verdict::Match | Verdict::MatchTie => failed_suite(o).map(|suite| suite_failure(q, suite)),
        Verdict::Mismatch if o.tie => Some(
            "<system-out>a mismatch under the strict comparison, but one of the gold's \
             answers under ties: passes tie-aware</system-out>"
                .to_string(),
        ),
        Verdict::Mismatch => Some(format!(
            "<failure type=\"mismatch\" message=\"{}\">gold: {}\npred: {}</failure>",
            o.reason.map(|r| r.as_str()).unwrap_or("mismatch"),
            esc(&q.gold_sql),
            esc(q.pred_sql.as_deref().unwrap_or(""))
        )),
        Verdict::PredError | Verdict::Timeout => Some(format!(
            "<failure type=\"{}\" message=\"{}\">pred: {}</failure>",
            o.verdict.as_str(),
            esc(&short(&pred_err, 200)),
            esc(q.pred_sql.as_deref().unwrap_or(""))
        )),
        Verdict::GoldError => Some(format!(
            "<error type=\"gold_error\" message=\"{}\">gold: {}</error>",
            esc(&short(&gold_err, 200)),
            esc(&q.gold_sql)
        )),
        Verdict::EngineError => Some(format!(
            "<error type=\"engine_error\" message=\"{}\"/>",
            esc(&short(
                if pred_err.is_empty() {
                    &gold_err
                } else {
                    &pred_err
                },
                200
            ))
        )),
        Verdict::Abstained | Verdict::MissingDb => {
            Some(format!("<skipped message=\"{}\"/>", o.verdict.as_str()))
        }
    }
}

/// The `<failure type="suite">` of a question that matched on the
/// original database but failed its test suite.
fn suite_failure(q: &QuestionReport, suite: &SuiteOutcome) -> String {
    let witness = suite.witness.as_ref().map_or(String::new(), witness_text);
    format!(
        "<failure type=\"suite\" message=\"{}\">instance: {}{}\ngold: {}\npred: {}</failure>",
        esc(&short(
            suite
                .reason
                .as_deref()
                .unwrap_or("fails on a suite instance"),
            200
        )),
        esc(suite.failed_instance.as_deref().unwrap_or("")),
        esc(&witness),
        esc(&q.gold_sql),
        esc(q.pred_sql.as_deref().unwrap_or(""))
    )
}

/// The witness of a failed suite, unescaped: its rows, its inserts and
/// both results on it.
fn witness_text(w: &WitnessReport) -> String {
    format!(
        "\nwitness ({} rows): {}\ngold on it: {:?}\npred on it: {:?}",
        w.rows,
        w.inserts.join("; "),
        w.gold,
        w.pred
    )
}

/// The suite outcome of a question that matched on the original database
/// but failed its test suite.
fn failed_suite(o: &EngineOutcome) -> Option<&SuiteOutcome> {
    o.suite.as_ref().filter(|s| !s.passed)
}

fn short(s: &str, n: usize) -> String {
    let line = s.lines().next().unwrap_or("");
    if line.chars().count() <= n {
        line.to_string()
    } else {
        format!("{}…", line.chars().take(n).collect::<String>())
    }
}

/// XML text/attribute escaping; the characters XML 1.0 forbids (control
/// characters other than tab, newline and carriage return, and the
/// noncharacters U+FFFE and U+FFFF) are replaced by U+FFFD.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || matches!(c, '\u{FFFE}' | '\u{FFFF}') => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{
        assert_expected, parse_xml, question, report_of, small_report, Element, HOSTILE,
    };

    fn count(suite: &Element, child: &str) -> usize {
        suite
            .children_named("testcase")
            .filter(|t| t.children_named(child).next().is_some())
            .count()
    }

    #[test]
    fn junit_xml_matches_the_expected_file() {
        assert_expected("junit.xml", &render_junit(&small_report()));
    }

    /// The counts in the attributes are the testcases' own: a `<failure>`
    /// per mismatch, prediction error, timeout and failed suite, an
    /// `<error>` per gold error, `<skipped/>` per abstention; `match_tie`
    /// and a mismatch that is one of the gold's answers under ties pass.
    #[test]
    fn junit_xml_parses_and_its_counts_are_its_testcases() {
        let root = parse_xml(&render_junit(&small_report())).unwrap();
        assert_eq!(root.name, "testsuites");
        let suites: Vec<&Element> = root.children_named("testsuite").collect();
        assert_eq!(suites.len(), 2);
        let mut totals = [0; 4];
        for s in &suites {
            let cases = s.children_named("testcase").count();
            let counted = [
                cases,
                count(s, "failure"),
                count(s, "error"),
                count(s, "skipped"),
            ];
            for (attr, n) in ["tests", "failures", "errors", "skipped"]
                .iter()
                .zip(counted)
            {
                assert_eq!(s.attr(attr), n.to_string(), "{} {attr}", s.attr("name"));
            }
            for (t, n) in totals.iter_mut().zip(counted) {
                *t += n;
            }
        }
        let by_name = |n: &str| *suites.iter().find(|s| s.attr("name") == n).unwrap();
        // SQLite: a mismatch, a prediction error, a failed suite;
        // abstained; the mismatch under ties passes, saying so.
        let lite = by_name("sqlwitness.sqlite");
        assert_eq!(
            [
                count(lite, "failure"),
                count(lite, "error"),
                count(lite, "skipped")
            ],
            [3, 0, 1]
        );
        assert_eq!(count(lite, "system-out"), 1);
        // PostgreSQL: timeout, mismatch; gold error; abstained.
        let pg = by_name("sqlwitness.postgres");
        assert_eq!(
            [
                count(pg, "failure"),
                count(pg, "error"),
                count(pg, "skipped")
            ],
            [2, 1, 1]
        );
        assert_eq!(
            ["tests", "failures", "errors", "skipped"].map(|a| root.attr(a).to_string()),
            totals.map(|n| n.to_string())
        );
        let failure_types: Vec<&str> = lite
            .children
            .iter()
            .flat_map(|t| t.children_named("failure"))
            .map(|f| f.attr("type"))
            .collect();
        assert_eq!(failure_types, ["suite", "pred_error", "mismatch"]);
    }

    /// Hostile text in a question, SQL and an error message is escaped
    /// and reads back unchanged.
    #[test]
    fn hostile_text_reads_back_unchanged() {
        let xml = render_junit(&small_report());
        assert!(!xml.contains(HOSTILE), "unescaped");
        let root = parse_xml(&xml).unwrap();
        let pg = root
            .children_named("testsuite")
            .find(|s| s.attr("name") == "sqlwitness.postgres")
            .unwrap();
        let q2 = pg
            .children_named("testcase")
            .find(|t| t.attr("name").starts_with("q0002 "))
            .unwrap();
        assert_eq!(
            q2.attr("name"),
            format!("q0002 Pets named {HOSTILE} & \"friends\" | others?")
        );
        let error = q2.children_named("error").next().unwrap();
        assert_eq!(error.attr("type"), "gold_error");
        assert!(error.attr("message").ends_with(HOSTILE));
        assert_eq!(
            error.text,
            "gold: SELECT Name FROM pets WHERE name <> 'a|b'"
        );
    }

    /// Characters XML 1.0 forbids (controls, U+FFFE, U+FFFF) in a
    /// question or a database name become U+FFFD: the file still parses.
    #[test]
    fn characters_xml_forbids_are_replaced() {
        let q = question(
            0,
            "db\u{1}",
            "bell \u{7} and \u{fffe}\u{ffff} end",
            "SELECT '\u{1b}'",
            None,
            vec![(
                "sqlite",
                crate::test_support::outcome(Verdict::Abstained, None, None),
            )],
        );
        let xml = render_junit(&report_of(vec![q]));
        let root = parse_xml(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
        let case = &root.children[0].children_named("testcase").next().unwrap();
        assert_eq!(
            case.attr("name"),
            "q0000 bell \u{fffd} and \u{fffd}\u{fffd} end"
        );
        assert_eq!(case.attr("classname"), "sqlwitness.sqlite.db\u{fffd}");
    }

    /// SQLite's failures are its two mismatches, its prediction error and
    /// its failed suite less the mismatch that passes under ties.
    #[test]
    fn suite_counts_subtract_tie_answers_and_add_failed_suites() {
        let report = small_report();
        let count = |engine: &str| suite_counts(&report, engine, &report.summary.engines[engine]);
        let c = |failures, errors, skipped| Counts {
            failures,
            errors,
            skipped,
        };
        assert_eq!(count("sqlite"), c(3, 0, 1));
        assert_eq!(count("postgres"), c(2, 1, 1));
    }

    #[test]
    fn seconds_sum_gold_and_prediction_times() {
        let o = crate::test_support::outcome(
            Verdict::Match,
            Some(crate::test_support::ok(&[], 250.0)),
            Some(crate::test_support::ok(&[], 1250.0)),
        );
        let gold_only = crate::test_support::outcome(
            Verdict::Abstained,
            Some(crate::test_support::ok(&[], 500.0)),
            None,
        );
        assert_eq!(seconds(std::iter::once(&o)), 1.5);
        assert_eq!(seconds([&o, &gold_only].into_iter()), 2.0);
        assert_eq!(seconds(std::iter::empty()), 0.0);
    }

    /// A pass has no body; an engine error names the prediction's error,
    /// else the gold's; a suite failure carries the witness.
    #[test]
    fn testcase_body_follows_the_verdict() {
        use crate::test_support::{failed, ok, outcome};
        use sqlwitness_core::ErrorClass;
        let q = question(0, "db", "q", "SELECT 1", Some("SELECT 2"), Vec::new());
        let pass = outcome(Verdict::Match, Some(ok(&[], 1.0)), Some(ok(&[], 1.0)));
        assert_eq!(testcase_body(&q, &pass), None);
        let gold_broken = outcome(
            Verdict::EngineError,
            Some(failed(ErrorClass::Other, "1", "gold gone", 1.0)),
            None,
        );
        assert_eq!(
            testcase_body(&q, &gold_broken).unwrap(),
            "<error type=\"engine_error\" message=\"gold gone\"/>"
        );
        let both_broken = outcome(
            Verdict::EngineError,
            Some(failed(ErrorClass::Other, "1", "gold gone", 1.0)),
            Some(failed(ErrorClass::Other, "1", "pred gone\nmore", 1.0)),
        );
        assert_eq!(
            testcase_body(&q, &both_broken).unwrap(),
            "<error type=\"engine_error\" message=\"pred gone\"/>"
        );
        let lite = &small_report().questions[0];
        let body = testcase_body(lite, &lite.engines["sqlite"]).unwrap();
        assert!(body.starts_with("<failure type=\"suite\" message=\"values\">"));
        assert!(body.contains("witness (2 rows): INSERT INTO singer VALUES (1, &#39;A&amp;B&#39;)"));
    }

    #[test]
    fn an_empty_report_is_an_empty_suite_list() {
        let root = parse_xml(&render_junit(&report_of(Vec::new()))).unwrap();
        assert_eq!(root.name, "testsuites");
        assert!(root.children.is_empty());
        assert_eq!(root.attr("tests"), "0");
    }
}
