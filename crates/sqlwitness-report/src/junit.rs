//! `junit.xml`: one `<testcase>` per question and engine, one
//! `<testsuite>` per engine, for CI systems (the JUnit XML format as
//! Jenkins, GitLab and GitHub Actions read it).
//!
//! `match` and `match_tie` pass — unless the question failed its test
//! suite (`eval --suite`), a `<failure type="suite">` naming the instance
//! and the witness; `mismatch`, `pred_error` and `timeout` are `<failure>`s
//! (the model's fault); `gold_error` is an `<error>` (the benchmark's
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
        let f = s.mismatch + s.pred_error + s.timeout + suite_failed;
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

/// XML text/attribute escaping; control characters XML 1.0 forbids are
/// replaced by U+FFFD.
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
            c if (c as u32) < 0x20 => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}
