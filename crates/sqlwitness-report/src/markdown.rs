//! `summary.md`: the headline table and the top problems, readable in a
//! pull request.

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::{Report, Verdict};

/// How many questions each "top problems" list shows.
const TOP: usize = 15;

pub fn render_markdown(report: &Report) -> String {
    // Inputs (questions, SQL, db_ids, file names, servers' messages) may
    // hold control characters: shown escaped.
    sqlwitness_core::escape_controls(&render_markdown_unescaped(report)).into_owned()
}

fn render_markdown_unescaped(report: &Report) -> String {
    let mut out = String::new();
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
    let _ = writeln!(out, "| engine | server | questions | match | mismatch | gold error | pred error | abstained | missing db | timeout | engine error | EX | EX (scorable) | tie-aware EX |");
    let _ = writeln!(
        out,
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
    );
    for (name, s) in &report.summary.engines {
        let version = run
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
    if report.summary.engines.values().any(|s| s.match_tie > 0) {
        let _ = writeln!(out, "\nTie-aware (`eval --ties aware`): `match_tie` = the prediction is one of the gold's valid answers under ties.\n\n| engine | match | match_tie | EX strict | EX tie-aware |\n|---|--:|--:|--:|--:|");
        for (name, s) in &report.summary.engines {
            let _ = writeln!(
                out,
                "| {name} | {} | {} | {:.4} | {:.4} |",
                s.matched, s.match_tie, s.ex, s.ex_tie_aware
            );
        }
    }

    crate::levels::render_markdown_levels(report, &mut out);
    crate::ves::render_markdown_ves(report, &mut out);
    crate::scores_md::render_scores(report, &mut out);
    crate::credited::render_markdown_credited(report, &mut out);

    let classes: BTreeSet<&String> = report
        .summary
        .engines
        .values()
        .flat_map(|s| {
            s.gold_error_classes
                .keys()
                .chain(s.pred_error_classes.keys())
        })
        .collect();
    if !classes.is_empty() {
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
                q.engines.iter().filter_map(move |(engine, o)| {
                    if !verdicts.contains(&o.verdict) {
                        return None;
                    }
                    let exec = match o.verdict {
                        Verdict::GoldError => o.gold.as_ref(),
                        _ => o.pred.as_ref(),
                    };
                    let detail = match (o.verdict, exec) {
                        (Verdict::Mismatch, _) => {
                            o.reason.map(|r| r.as_str().to_string()).unwrap_or_default()
                        }
                        (_, Some(e)) => format!(
                            "{} {}",
                            e.error_class.map(|c| c.as_str()).unwrap_or("other"),
                            truncate(e.error.as_deref().unwrap_or(""), 90)
                        ),
                        _ => String::new(),
                    };
                    Some(format!(
                        "| {} | {} | {engine} | {} |",
                        q.id,
                        q.db_id,
                        md_cell(&detail)
                    ))
                })
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n## {title} ({})\n", rows.len());
        let _ = writeln!(out, "| id | db | engine | detail |\n|--:|---|---|---|");
        for r in rows.iter().take(TOP) {
            let _ = writeln!(out, "{r}");
        }
        if rows.len() > TOP {
            let _ = writeln!(out, "\n…and {} more in `report.json`.", rows.len() - TOP);
        }
    }
    render_suite_failures(report, &mut out);
    out
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
                    q.db_id,
                    suite.failed_instance.as_deref().unwrap_or(""),
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
    for r in rows.iter().take(TOP) {
        let _ = writeln!(out, "{r}");
    }
    if rows.len() > TOP {
        let _ = writeln!(out, "\n…and {} more in `report.json`.", rows.len() - TOP);
    }
}

fn truncate(s: &str, n: usize) -> String {
    let first_line = s.lines().next().unwrap_or("");
    if first_line.chars().count() <= n {
        first_line.to_string()
    } else {
        format!("{}…", first_line.chars().take(n).collect::<String>())
    }
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}
