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

use crate::{Report, Verdict};

pub fn render_junit(report: &Report) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let total = report
        .questions
        .iter()
        .map(|q| q.engines.len())
        .sum::<usize>();
    let (mut failures, mut errors, mut skipped) = (0, 0, 0);
    let mut suites = String::new();
    for (engine, s) in &report.summary.engines {
        let suite_failed = report
            .questions
            .iter()
            .filter_map(|q| q.engines.get(engine))
            .filter(|o| failed_suite(o).is_some())
            .count();
        let tie_answers = report
            .questions
            .iter()
            .filter_map(|q| q.engines.get(engine))
            .filter(|o| o.verdict == Verdict::Mismatch && o.tie)
            .count();
        let f = (s.mismatch + s.pred_error + s.timeout + suite_failed).saturating_sub(tie_answers);
        let e = s.gold_error + s.engine_error;
        let sk = s.abstained + s.missing_db;
        failures += f;
        errors += e;
        skipped += sk;
        let time: f64 = report
            .questions
            .iter()
            .filter_map(|q| q.engines.get(engine))
            .flat_map(|o| o.gold.iter().chain(o.pred.iter()))
            .map(|x| x.duration_ms)
            .sum::<f64>()
            / 1000.0;
        let _ = writeln!(
            suites,
            "  <testsuite name=\"sqlwitness.{}\" tests=\"{}\" failures=\"{f}\" errors=\"{e}\" skipped=\"{sk}\" time=\"{time:.3}\">",
            esc(engine),
            s.questions
        );
        // The accuracies under the names every output uses.
        // By level: `hardness.easy.count`, `hardness.easy.ex`,
        // `difficulty.simple.soft_f1`, … in the evaluators' column order.
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
        let _ = writeln!(
            suites,
            "    <properties><property name=\"ex\" value=\"{:.4}\"/><property name=\"ex_scorable\" value=\"{:.4}\"/><property name=\"ex_tie_aware\" value=\"{:.4}\"/><property name=\"soft_f1\" value=\"{:.4}\"/>{levels}</properties>",
            s.ex,
            report.summary.ex_scorable(engine).unwrap_or(0.0),
            s.ex_tie_aware,
            s.soft_f1
        );
        for q in &report.questions {
            let Some(o) = q.engines.get(engine) else {
                continue;
            };
            let t: f64 = o
                .gold
                .iter()
                .chain(o.pred.iter())
                .map(|x| x.duration_ms)
                .sum::<f64>()
                / 1000.0;
            let _ = write!(
                suites,
                "    <testcase classname=\"sqlwitness.{}.{}\" name=\"q{:04} {}\" time=\"{t:.3}\"",
                esc(engine),
                esc(&q.db_id),
                q.id,
                esc(&short(&q.question, 80))
            );
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
            let body = match o.verdict {
                Verdict::Match | Verdict::MatchTie => failed_suite(o).map(|suite| {
                    let witness = suite.witness.as_ref().map_or(String::new(), |w| {
                        format!(
                            "\nwitness ({} rows): {}\ngold on it: {:?}\npred on it: {:?}",
                            w.rows,
                            w.inserts.join("; "),
                            w.gold,
                            w.pred
                        )
                    });
                    format!(
                        "<failure type=\"suite\" message=\"{}\">instance: {}{}\ngold: {}\npred: {}</failure>",
                        esc(&short(suite.reason.as_deref().unwrap_or("fails on a suite instance"), 200)),
                        esc(suite.failed_instance.as_deref().unwrap_or("")),
                        esc(&witness),
                        esc(&q.gold_sql),
                        esc(q.pred_sql.as_deref().unwrap_or(""))
                    )
                }),
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
            };
            match body {
                None => suites.push_str("/>\n"),
                Some(b) => {
                    let _ = writeln!(suites, ">{b}</testcase>");
                }
            }
        }
        suites.push_str("  </testsuite>\n");
    }
    let _ = writeln!(
        out,
        "<testsuites name=\"sqlwitness\" tests=\"{total}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\">"
    );
    out.push_str(&suites);
    out.push_str("</testsuites>\n");
    out
}

/// The suite outcome of a question that matched on the original database
/// but failed its test suite.
fn failed_suite(o: &crate::EngineOutcome) -> Option<&crate::SuiteOutcome> {
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

    #[test]
    fn an_empty_report_is_an_empty_suite_list() {
        let root = parse_xml(&render_junit(&report_of(Vec::new()))).unwrap();
        assert_eq!(root.name, "testsuites");
        assert!(root.children.is_empty());
        assert_eq!(root.attr("tests"), "0");
    }
}
