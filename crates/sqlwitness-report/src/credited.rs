//! `summary.md`'s list of the answers a non-strict `--compare` mode credits
//! that the strict comparison rejects, with the cause
//! (`EngineOutcome::credit_causes`).

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::Report;

/// How many questions the list shows; the rest are in `report.json`.
const SHOWN: usize = 30;

/// Appends the section when some question has credit causes.
pub(crate) fn render_markdown_credited(report: &Report, out: &mut String) {
    let mut counts: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut rows = Vec::new();
    for q in &report.questions {
        for (engine, o) in &q.engines {
            if o.credit_causes.is_empty() {
                continue;
            }
            let causes: Vec<&str> = o.credit_causes.iter().map(|c| c.as_str()).collect();
            for c in &causes {
                *counts.entry((engine.as_str(), c)).or_default() += 1;
            }
            rows.push(format!(
                "| {} | {} | {engine} | {} |",
                q.id,
                q.db_id.replace('|', "\\|"),
                causes.join(", ")
            ));
        }
    }
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n## Credited by `{}`, not by strict comparison ({})\n",
        report.run.compare,
        rows.len()
    );
    let _ = writeln!(
        out,
        "A match that the strict comparison rejects, and the rules of `{}` that make the difference (a question may have several).\n",
        report.run.compare
    );
    let _ = writeln!(out, "| engine | cause | questions |\n|---|---|--:|");
    for ((engine, cause), n) in &counts {
        let _ = writeln!(out, "| {engine} | {cause} | {n} |");
    }
    let _ = writeln!(out, "\n| id | db | engine | causes |\n|--:|---|---|---|");
    for r in rows.iter().take(SHOWN) {
        let _ = writeln!(out, "{r}");
    }
    if rows.len() > SHOWN {
        let _ = writeln!(out, "\n…and {} more in `report.json`.", rows.len() - SHOWN);
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::{md_table, md_tables, small_report};
    use sqlwitness_core::compare::CreditCause;

    /// Under `--compare spider`, the answers the mode credits and strict
    /// comparison rejects: counts by engine and cause, then one row per
    /// question and engine, a database name with a pipe in its cell.
    #[test]
    fn credited_answers_are_counted_and_listed() {
        let mut r = small_report();
        r.run.compare = "spider".into();
        let causes = [
            (0, "sqlite", vec![CreditCause::RowOrder]),
            (
                5,
                "sqlite",
                vec![CreditCause::RowOrder, CreditCause::Multiplicity],
            ),
            (5, "postgres", vec![CreditCause::Multiplicity]),
        ];
        for (id, e, c) in causes {
            r.questions[id].engines.get_mut(e).unwrap().credit_causes = c;
        }
        let md = crate::render_markdown(&r);
        assert!(
            md.contains("\n## Credited by `spider`, not by strict comparison (3)\n"),
            "{md}"
        );
        let tables = md_tables(&md);
        let counts = md_table(&tables, &["engine", "cause", "questions"]);
        assert_eq!(
            counts[2..],
            [
                ["postgres", "multiplicity", "1"],
                ["sqlite", "multiplicity", "1"],
                ["sqlite", "row_order", "2"]
            ]
        );
        let rows = md_table(&tables, &["id", "db", "engine", "causes"]);
        assert_eq!(rows[3], ["5", "world|1", "postgres", "multiplicity"]);
        assert_eq!(
            rows[4],
            ["5", "world|1", "sqlite", "row_order, multiplicity"]
        );
        // Nothing credited, no section.
        assert!(!crate::render_markdown(&small_report()).contains("## Credited"));
    }
}
