//! `summary.md`: the headline table and the top problems, readable in a
//! pull request.

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::{Report, Verdict};

/// How many questions each "top problems" list shows.
const TOP: usize = 15;

pub fn render_markdown(report: &Report) -> String {
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
    let _ = writeln!(out, "| engine | server | questions | match | mismatch | gold error | pred error | abstained | missing db | timeout | EX |");
    let _ = writeln!(out, "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    for (name, s) in &report.summary.engines {
        let version = run
            .engines
            .iter()
            .find(|e| e.kind.as_str() == name)
            .map(|e| e.version.as_str())
            .unwrap_or("");
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.4} |",
            md_cell(version),
            s.questions,
            s.matched,
            s.mismatch,
            s.gold_error,
            s.pred_error,
            s.abstained,
            s.missing_db,
            s.timeout,
            s.ex
        );
    }

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
                        (Verdict::Mismatch, _) => o
                            .reason
                            .map(|r| format!("{r:?}").to_lowercase())
                            .unwrap_or_default(),
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
    out
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
