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

/// The answers a non-strict mode credits, by engine and cause, and how many
/// questions: `report.html`'s section (each question's causes are in its
/// drill-down).
pub(crate) fn render_html_credited(report: &Report, out: &mut String) {
    let mut counts: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut questions = 0;
    for q in &report.questions {
        for (engine, o) in &q.engines {
            if o.credit_causes.is_empty() {
                continue;
            }
            questions += 1;
            for c in &o.credit_causes {
                *counts.entry((engine.as_str(), c.as_str())).or_default() += 1;
            }
        }
    }
    if counts.is_empty() {
        return;
    }
    let compare = crate::junit::esc(&report.run.compare);
    let _ = write!(
        out,
        "<h2>Credited by <code>{compare}</code>, not by strict comparison ({questions})</h2>\
         <p class=\"muted\">A match that the strict comparison rejects, and the rules of \
         <code>{compare}</code> that make the difference (a question may have several; each \
         question's are in its drill-down).</p><table><tr><th>engine</th><th>cause</th>\
         <th>questions</th></tr>"
    );
    for ((engine, cause), n) in &counts {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=n>{n}</td></tr>",
            crate::junit::esc(engine),
            crate::junit::esc(cause)
        );
    }
    out.push_str("</table>");
}

#[cfg(test)]
mod html_tests {
    use super::*;
    use crate::Verdict;
    use sqlwitness_core::compare::CreditCause;

    #[test]
    fn the_page_counts_credited_answers_by_engine_and_cause() {
        let mut r = crate::test_support::small_report();
        let mut empty = String::new();
        render_html_credited(&r, &mut empty);
        assert!(empty.is_empty(), "no section without credit causes");
        let q = &mut r.questions[0];
        let o = q.engines.get_mut("sqlite").unwrap();
        o.verdict = Verdict::Match;
        o.credit_causes = vec![CreditCause::RowOrder, CreditCause::Multiplicity];
        r.run.compare = "bird".into();
        let mut h = String::new();
        render_html_credited(&r, &mut h);
        assert!(
            h.contains("Credited by <code>bird</code>, not by strict comparison (1)"),
            "{h}"
        );
        assert!(
            h.contains("<tr><td>sqlite</td><td>row_order</td><td class=n>1</td></tr>"),
            "{h}"
        );
        assert!(h.contains("<tr><td>sqlite</td><td>multiplicity</td><td class=n>1</td></tr>"));
        let page = crate::render_html(&r);
        assert!(
            page.contains(
                "credited by <code>bird</code>, not by strict comparison: row_order, multiplicity"
            ),
            "the drill-down names them"
        );
    }
}
