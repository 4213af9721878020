//! `summary.md`: the headline table and the top problems, readable in a
//! pull request.

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::{EngineOutcome, QuestionReport, Report, Verdict};

/// How many questions each "top problems" list shows.
const TOP: usize = 15;

pub fn render_markdown(report: &Report) -> String {
    // Inputs (questions, SQL, db_ids, file names, servers' messages) may
    // hold control characters: shown escaped.
    sqlwitness_core::escape_controls(&render_markdown_unescaped(report)).into_owned()
}

fn render_markdown_unescaped(report: &Report) -> String {
    let mut out = String::new();
    render_heading(report, &mut out);
    render_headline_table(report, &mut out);
    render_tie_table(report, &mut out);
    crate::levels::render_markdown_levels(report, &mut out);
    crate::ves::render_markdown_ves(report, &mut out);
    crate::scores_md::render_scores(report, &mut out);
    crate::credited::render_markdown_credited(report, &mut out);
    render_error_classes(report, &mut out);
    render_top_problems(report, &mut out);
    render_suite_failures(report, &mut out);
    out
}

/// The title and the sentence saying what ran, how and how long.
fn render_heading(report: &Report, out: &mut String) {
    let run = &report.run;
    let what = match &run.predictions {
        Some(p) => format!("predictions `{p}`"),
        None => "gold self-check".to_string(),
    };
    let _ = writeln!(out, "# sqlwitness evaluation\n");
    let _ = writeln!(
        out,
        "Benchmark `{}` split `{}`, {what}; compare `{}` (column order {}), identifiers `{}`, timeout {} ms; {} questions in {:.1} s.\n",
        run.bench,
        run.split,
        run.compare,
        run.column_order,
        run.identifiers,
        run.timeout_ms,
        report.summary.questions,
        run.duration_ms as f64 / 1000.0
    );
}

/// Each engine's counts and accuracies, then what the accuracies mean.
fn render_headline_table(report: &Report, out: &mut String) {
    let _ = writeln!(out, "| engine | server | questions | match | mismatch | gold error | pred error | abstained | missing db | timeout | engine error | EX | EX (scorable) | tie-aware EX |");
    let _ = writeln!(
        out,
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
    );
    for (name, s) in &report.summary.engines {
        let version = report
            .run
            .engines
            .iter()
            .find(|e| e.kind.as_str() == name)
            .map(|e| e.version.as_str())
            .unwrap_or("");
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.4} | {:.4} | {:.4} |",
            md_cell(version),
            s.questions,
            s.matched,
            s.mismatch,
            s.gold_error,
            s.pred_error,
            s.abstained,
            s.missing_db,
            s.timeout,
            s.engine_error,
            s.ex,
            report.summary.ex_scorable(name).unwrap_or(0.0),
            s.ex_tie_aware
        );
    }
    let _ = writeln!(out, "\n{}.", crate::EX_DEFINITIONS);
}

/// `eval --ties aware`: strict and tie-aware EX side by side, when some
/// engine has a `match_tie`.
fn render_tie_table(report: &Report, out: &mut String) {
    if !report.summary.engines.values().any(|s| s.match_tie > 0) {
        return;
    }
    let _ = writeln!(out, "\nTie-aware (`eval --ties aware`): `match_tie` = the prediction is one of the gold's valid answers under ties.\n\n| engine | match | match_tie | EX strict | EX tie-aware |\n|---|--:|--:|--:|--:|");
    for (name, s) in &report.summary.engines {
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {:.4} | {:.4} |",
            s.matched, s.match_tie, s.ex, s.ex_tie_aware
        );
    }
}

/// The error classes any engine saw on either side, in name order.
fn error_classes(report: &Report) -> BTreeSet<&String> {
    report
        .summary
        .engines
        .values()
        .flat_map(|s| {
            s.gold_error_classes
                .keys()
                .chain(s.pred_error_classes.keys())
        })
        .collect()
}

/// Errors by class: a row per engine and side that had errors, a column
/// per class.
fn render_error_classes(report: &Report, out: &mut String) {
    let classes = error_classes(report);
    if classes.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n## Errors by class\n");
    let _ = write!(out, "| engine | side |");
    for c in &classes {
        let _ = write!(out, " {c} |");
    }
    let _ = write!(out, "\n|---|---|");
    for _ in &classes {
        let _ = write!(out, "--:|");
    }
    out.push('\n');
    for (name, s) in &report.summary.engines {
        for (side, map) in [
            ("gold", &s.gold_error_classes),
            ("pred", &s.pred_error_classes),
        ] {
            if map.is_empty() {
                continue;
            }
            let _ = write!(out, "| {name} | {side} |");
            for c in &classes {
                let _ = write!(out, " {} |", map.get(*c).copied().unwrap_or(0));
            }
            out.push('\n');
        }
    }
}

/// The gold errors, the mismatches, and the prediction errors and
/// timeouts: a list each, of at most [`TOP`] rows.
fn render_top_problems(report: &Report, out: &mut String) {
    for (title, verdicts) in [
        ("Gold errors", &[Verdict::GoldError][..]),
        ("Mismatches", &[Verdict::Mismatch][..]),
        (
            "Prediction errors and timeouts",
            &[Verdict::PredError, Verdict::Timeout][..],
        ),
    ] {
        let rows: Vec<String> = report
            .questions
            .iter()
            .flat_map(|q| {
                q.engines
                    .iter()
                    .filter(|(_, o)| verdicts.contains(&o.verdict))
                    .map(move |(engine, o)| problem_row(q, engine, o))
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n## {title} ({})\n", rows.len());
        let _ = writeln!(out, "| id | db | engine | detail |\n|--:|---|---|---|");
        write_top(out, &rows);
    }
}

/// One row of a problem list.
fn problem_row(q: &QuestionReport, engine: &str, o: &EngineOutcome) -> String {
    format!(
        "| {} | {} | {engine} | {} |",
        q.id,
        md_cell(&q.db_id),
        md_cell(&problem_detail(o))
    )
}

/// A problem's detail: a mismatch's reason, else the class and the first
/// line of the failing side's error (the gold's for a gold error, the
/// prediction's otherwise).
fn problem_detail(o: &EngineOutcome) -> String {
    let exec = match o.verdict {
        Verdict::GoldError => o.gold.as_ref(),
        _ => o.pred.as_ref(),
    };
    match (o.verdict, exec) {
        (Verdict::Mismatch, _) => o.reason.map(|r| r.as_str().to_string()).unwrap_or_default(),
        (_, Some(e)) => format!(
            "{} {}",
            e.error_class.map(|c| c.as_str()).unwrap_or("other"),
            truncate(e.error.as_deref().unwrap_or(""), 90)
        ),
        _ => String::new(),
    }
}

/// The first [`TOP`] rows, and how many more `report.json` holds.
fn write_top(out: &mut String, rows: &[String]) {
    for r in rows.iter().take(TOP) {
        let _ = writeln!(out, "{r}");
    }
    if rows.len() > TOP {
        let _ = writeln!(out, "\n…and {} more in `report.json`.", rows.len() - TOP);
    }
}

/// `eval --suite`: test-suite accuracy and the predictions that pass on the
/// original database but fail on an instance of the suite.
fn render_suite_failures(report: &Report, out: &mut String) {
    let with_suite: Vec<(&String, usize, f64)> = report
        .summary
        .engines
        .iter()
        .filter_map(|(e, s)| Some((e, s.suite_match?, s.suite_ex?)))
        .collect();
    if with_suite.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n## Test suite\n");
    let _ = writeln!(
        out,
        "| engine | match | EX | suite match | suite EX |\n|---|--:|--:|--:|--:|"
    );
    for (e, m, ex) in &with_suite {
        let s = &report.summary.engines[*e];
        let _ = writeln!(out, "| {e} | {} | {:.4} | {m} | {ex:.4} |", s.matched, s.ex);
    }
    let rows: Vec<String> = report
        .questions
        .iter()
        .flat_map(|q| {
            q.engines.iter().filter_map(move |(engine, o)| {
                let suite = o.suite.as_ref()?;
                if o.verdict != Verdict::Match || suite.passed {
                    return None;
                }
                let witness = suite
                    .witness
                    .as_ref()
                    .map(|w| format!("{} rows: {}", w.rows, truncate(&w.inserts.join(" "), 120)))
                    .unwrap_or_default();
                Some(format!(
                    "| {} | {} | {engine} | {} | {} | {} |",
                    q.id,
                    md_cell(&q.db_id),
                    md_cell(suite.failed_instance.as_deref().unwrap_or("")),
                    md_cell(suite.reason.as_deref().unwrap_or("")),
                    md_cell(&witness)
                ))
            })
        })
        .collect();
    let _ = writeln!(
        out,
        "\n### Pass on the original, fail on the suite ({})\n",
        rows.len()
    );
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "| id | db | engine | instance | reason | witness |\n|--:|---|---|---|---|---|"
    );
    write_top(out, &rows);
}

fn truncate(s: &str, n: usize) -> String {
    let first_line = s.lines().next().unwrap_or("");
    if first_line.chars().count() <= n {
        first_line.to_string()
    } else {
        format!("{}…", first_line.chars().take(n).collect::<String>())
    }
}

/// A table cell's text: a pipe would end the cell, a newline the row, and
/// a `<` start inline HTML (a server's message quoting `<!--` would hide
/// the rest of the page on GitHub); each is escaped.
pub(crate) fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('<', "\\<").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{
        assert_expected, md_table, md_tables, ok, outcome, question, report_of, small_report,
    };

    #[test]
    fn summary_md_matches_the_expected_file() {
        assert_expected("summary.md", &render_markdown(&small_report()));
    }

    /// Every table keeps its columns (a `|` in a cell is escaped), and the
    /// headline table holds each engine's counts.
    #[test]
    fn summary_md_tables_keep_their_columns_and_counts() {
        let md = render_markdown(&small_report());
        let tables = md_tables(&md);
        let head = md_table(&tables, &["engine", "server", "questions", "match"]);
        assert_eq!(head[0].len(), 14);
        let row = |e: &str| head.iter().find(|r| r[0] == e).unwrap().clone();
        assert_eq!(
            row("sqlite")[1..],
            ["3.45.0", "6", "2", "2", "0", "1", "1", "0", "0", "0", "0.3333", "0.4000", "0.5000"]
        );
        assert_eq!(
            row("postgres")[1..12],
            [
                "PostgreSQL 15.4 (Debian 15.4-1) on x86_64-pc-linux-gnu",
                "6",
                "1",
                "1",
                "1",
                "0",
                "1",
                "0",
                "1",
                "0",
                "0.1667"
            ]
        );
        // The mismatch on `world|1` keeps its database in one cell.
        let mismatches = md_table(&tables, &["id", "db", "engine", "detail"]);
        assert!(
            tables
                .iter()
                .flatten()
                .any(|r| r[..3] == ["5", "world|1", "sqlite"]),
            "{mismatches:?}\n{md}"
        );
        // A prediction error shows its class and the first line only.
        assert!(tables
            .iter()
            .flatten()
            .any(|r| r[..4] == ["3", "pets_1", "sqlite", "syntax near \"|\": syntax error"]));
        let suite = md_table(
            &tables,
            &["id", "db", "engine", "instance", "reason", "witness"],
        );
        assert_eq!(suite.len(), 3);
        assert_eq!(suite[2][3], "concert_singer/i2.sqlite");
        let tie = md_table(&tables, &["engine", "match", "match_tie"]);
        assert_eq!(
            tie[2..],
            [
                ["postgres", "1", "1", "0.1667", "0.3333"],
                ["sqlite", "2", "0", "0.3333", "0.5000"]
            ]
        );
        let feature = md_table(&tables, &["feature", "gold", "pred"]);
        assert!(feature.iter().any(|r| r[..3] == ["`||`", "0", "2"]));
        // Text from the inputs never opens inline HTML.
        for line in md.lines().filter(|l| l.starts_with('|')) {
            assert!(!line.replace("\\<", "").contains('<'), "{line}");
        }
    }

    /// A mismatch shows its reason; a gold error the gold's class and first
    /// line, a prediction error or timeout the prediction's.
    #[test]
    fn problem_detail_reads_the_failing_side() {
        use crate::test_support::failed;
        use sqlwitness_core::ErrorClass;
        let mut mismatch = outcome(Verdict::Mismatch, None, None);
        assert_eq!(problem_detail(&mismatch), "");
        mismatch.reason = Some(sqlwitness_core::compare::MismatchReason::RowCount);
        assert_eq!(problem_detail(&mismatch), "row_count");
        let gold = Some(failed(
            ErrorClass::UndefinedColumn,
            "1",
            "no column\nhere",
            1.0,
        ));
        let pred = Some(failed(ErrorClass::Syntax, "1", "bad", 1.0));
        let gold_error = outcome(Verdict::GoldError, gold.clone(), pred.clone());
        assert_eq!(problem_detail(&gold_error), "undefined_column no column");
        let timeout = outcome(Verdict::Timeout, gold, pred);
        assert_eq!(problem_detail(&timeout), "syntax bad");
        assert_eq!(problem_detail(&outcome(Verdict::PredError, None, None)), "");
    }

    #[test]
    fn error_classes_gather_both_sides_of_every_engine() {
        let report = small_report();
        let classes = error_classes(&report);
        let names: Vec<&str> = classes.iter().map(|c| c.as_str()).collect();
        assert_eq!(names, ["syntax", "undefined_column"]);
        assert!(error_classes(&report_of(Vec::new())).is_empty());
    }

    /// The lists stop at 15 rows and say how many more there are; a run
    /// without predictions is the gold self-check; control characters in
    /// a database name are shown escaped.
    #[test]
    fn long_lists_are_cut_and_controls_escaped() {
        let questions = (0..17)
            .map(|i| {
                let mut o = outcome(
                    Verdict::Mismatch,
                    Some(ok(&[&["1"]], 1.0)),
                    Some(ok(&[&["2"]], 1.0)),
                );
                o.reason = Some(sqlwitness_core::compare::MismatchReason::Values);
                question(
                    i,
                    "db\u{1b}[31m",
                    "q",
                    "SELECT 1",
                    None,
                    vec![("sqlite", o)],
                )
            })
            .collect();
        let mut r = report_of(questions);
        r.run.predictions = None;
        let md = render_markdown(&r);
        assert!(md.contains("split `dev`, gold self-check;"), "{md}");
        assert!(md.contains("## Mismatches (17)"));
        let rows = md
            .lines()
            .filter(|l| l.contains("| sqlite | values |"))
            .count();
        assert_eq!(rows, 15);
        assert!(md.contains("\n…and 2 more in `report.json`.\n"));
        assert!(!md.contains('\u{1b}') && md.contains("db\\x1b[31m"));
        md_tables(&md);
    }
}
