//! The `summary.scores` section of `summary.md`.

use std::fmt::Write;

use crate::Report;

/// Scores beyond the counts: EX over scorable questions, TrustSQL RS(c),
/// cross-engine consistency, calibration and dialect features.
pub(crate) fn render_scores(report: &Report, out: &mut String) {
    let Some(s) = &report.summary.scores else {
        return;
    };
    let _ = writeln!(out, "\n## Scores\n");
    let _ = writeln!(
        out,
        "| engine | EX (scorable) | RS(0) | RS(10) | RS(N) | correct | abstained (feasible) | wrong | answered infeasible | abstained infeasible | unscored |"
    );
    let _ = writeln!(out, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    for (e, a) in &s.accuracy {
        let rs = |k: &str| s.rs.get(e).and_then(|m| m.get(k)).copied().unwrap_or(0.0);
        let b = s.rs_breakdown.get(e).copied().unwrap_or_default();
        let _ = writeln!(
            out,
            "| {e} | {:.4} ({}/{}) | {:.4} | {:.4} | {:.2} | {} | {} | {} | {} | {} | {} |",
            a.accuracy,
            a.correct,
            a.scored,
            rs("0"),
            rs("10"),
            rs("N"),
            b.correct,
            b.abstained_feasible,
            b.wrong,
            b.answered_infeasible,
            b.abstained_infeasible,
            b.unscored
        );
    }
    for (label, line) in extra_accuracies(s, "`") {
        let _ = writeln!(out, "\n{label}: {line}.");
    }
    let c = &s.consistency;
    let _ = writeln!(
        out,
        "\nAcross engines (questions scorable everywhere): correct on every engine {:.4} ({}/{}), on at least one {:.4}. Cross-engine consistency: {} of {} questions ({:.4}) get the same verdict on every engine{}. {} question(s) marked infeasible.",
        s.across_engines.all.accuracy,
        s.across_engines.all.correct,
        s.across_engines.all.scored,
        s.across_engines.any.accuracy,
        c.consistent,
        c.questions,
        c.consistency,
        if c.inconsistent.is_empty() {
            String::new()
        } else {
            format!(
                " (first differing ids: {})",
                c.inconsistent
                    .iter()
                    .take(10)
                    .map(|i| i.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        },
        s.infeasible
    );
    if !s.legacy.is_empty() {
        let _ = writeln!(
            out,
            "\n### Strict vs the legacy evaluators (`--legacy`)\n\n| engine | strict | Spider | BIRD | Spider ≠ strict | BIRD ≠ strict | mechanisms |\n|---|--:|--:|--:|--:|--:|---|"
        );
        for (e, l) in &s.legacy {
            let strict = s.accuracy.get(e).map(|a| a.accuracy).unwrap_or(0.0);
            let mech: Vec<String> = l
                .mechanisms
                .iter()
                .map(|(m, n)| format!("{m} {n}"))
                .collect();
            let _ = writeln!(
                out,
                "| {e} | {strict:.4} | {:.4} | {:.4} | {} | {} | {} |",
                l.spider.accuracy,
                l.bird.accuracy,
                l.spider_disagree,
                l.bird_disagree,
                mech.join(", ")
            );
        }
    }
    if !s.calibration.is_empty() {
        let _ = writeln!(
            out,
            "\n### Calibration\n\n| engine | score | n | ECE | ACE | Brier | AUC |\n|---|---|--:|--:|--:|--:|--:|"
        );
        for (e, cal) in &s.calibration {
            let mut rows = Vec::new();
            if let Some(m) = &cal.raw {
                rows.push(("raw confidence, all", m));
            }
            if let Some(p) = &cal.platt {
                if let Some(b) = &p.before {
                    rows.push(("raw confidence, test split", b));
                }
                rows.push(("Platt-scaled, test split", &p.after));
            }
            for (label, m) in rows {
                let _ = writeln!(
                    out,
                    "| {e} | {label} | {} | {:.4} | {:.4} | {:.4} | {} |",
                    m.n,
                    m.ece,
                    m.ace,
                    m.brier,
                    m.auc
                        .map(|a| format!("{a:.4}"))
                        .unwrap_or_else(|| "–".into())
                );
            }
            if let Some(p) = &cal.platt {
                let _ = writeln!(
                    out,
                    "| {e} | Platt signals: {} (fitted on {}) | | | | | |",
                    p.signals.len(),
                    p.calibration_n
                );
            }
        }
    }
    if !s.dialect_features.is_empty() {
        let _ = writeln!(
            out,
            "\n### Dialect features (OCTOPUS Table 8)\n\n| feature | gold | pred | not as written on | accuracy of predictions using it |\n|---|--:|--:|---|---|"
        );
        for (f, st) in &s.dialect_features {
            let acc: Vec<String> = st
                .accuracy
                .iter()
                .map(|(e, a)| format!("{e} {:.3}", a.accuracy))
                .collect();
            // A pipe splits a table cell even inside a code span (`||`).
            let f = f.replace('|', "\\|");
            let _ = writeln!(
                out,
                "| `{f}` | {} | {} | {} | {} |",
                st.gold,
                st.pred,
                st.unsupported_on.join(", "),
                acc.join(", ")
            );
        }
    }
}

/// The tie-aware and test-suite accuracies, when the run has them, as
/// `(label, "sqlite 0.9568 (930/972), …")`; `code` quotes the verdict
/// names in the labels (a backtick for Markdown, nothing for HTML).
pub(crate) fn extra_accuracies(s: &sqlwitness_score::Scores, code: &str) -> Vec<(String, String)> {
    [
        (
            format!("Tie-aware accuracy ({code}match_tie{code} counted)"),
            &s.accuracy_tie_aware,
        ),
        (
            format!("Test-suite accuracy ({code}match{code} and suite passed)"),
            &s.accuracy_suite,
        ),
    ]
    .into_iter()
    .filter(|(_, map)| !map.is_empty())
    .map(|(label, map)| {
        let parts: Vec<String> = map
            .iter()
            .map(|(e, a)| format!("{e} {:.4} ({}/{})", a.accuracy, a.correct, a.scored))
            .collect();
        (label, parts.join(", "))
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use crate::test_support::{md_table, md_tables, small_report};

    /// The scores table: one row per engine whose TrustSQL breakdown
    /// accounts for every question once; the accuracies beside it name
    /// their counts.
    #[test]
    fn the_scores_table_accounts_for_every_question() {
        let r = small_report();
        let md = crate::render_markdown(&r);
        let tables = md_tables(&md);
        let t = md_table(&tables, &["engine", "EX (scorable)", "RS(0)"]);
        assert_eq!(t.len(), 2 + 2);
        for row in &t[2..] {
            let parts: usize = row[5..].iter().map(|c| c.parse::<usize>().unwrap()).sum();
            assert_eq!(parts, r.questions.len(), "{row:?}");
        }
        // SQLite: q0 and q2 match of five scorable; q4 abstains on an
        // infeasible question; q1, q3, q5 wrong.
        assert_eq!(
            t[3],
            [
                "sqlite",
                "0.4000 (2/5)",
                "0.5000",
                "-4.5000",
                "-2.50",
                "2",
                "0",
                "3",
                "0",
                "1",
                "0"
            ]
        );
        assert!(md.contains("\nTie-aware accuracy (`match_tie` counted): postgres 0.5000 (2/4), sqlite 0.4000 (2/5).\n"));
        assert!(md.contains("Cross-engine consistency: 3 of 6 questions (0.5000) get the same verdict on every engine (first differing ids: 1, 2, 3)."));
    }
}
