//! The `summary.scores` section of `summary.md`.

use std::fmt::Write;

use sqlwitness_score::{CalibrationMetrics, EngineCalibration, Scores};

use crate::Report;

/// Scores beyond the counts: EX over scorable questions, TrustSQL RS(c),
/// cross-engine consistency, calibration and dialect features.
pub(crate) fn render_scores(report: &Report, out: &mut String) {
    let Some(s) = &report.summary.scores else {
        return;
    };
    render_rs_table(s, out);
    for (label, line) in extra_accuracies(s, "`") {
        let _ = writeln!(out, "\n{label}: {line}.");
    }
    render_consistency(s, out);
    render_legacy(s, out);
    render_calibration(s, out);
    render_dialect_features(s, out);
}

/// EX over scorable questions and TrustSQL RS(c) with its breakdown, a
/// row per engine.
fn render_rs_table(s: &Scores, out: &mut String) {
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
}

/// The sentence on accuracy across engines and cross-engine consistency.
fn render_consistency(s: &Scores, out: &mut String) {
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
        first_differing(&c.inconsistent),
        s.infeasible
    );
}

/// ` (first differing ids: 1, 2, 3)`, at most ten of them; nothing when
/// every question is consistent.
fn first_differing(ids: &[usize]) -> String {
    if ids.is_empty() {
        return String::new();
    }
    format!(
        " (first differing ids: {})",
        ids.iter()
            .take(10)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `--legacy`: strict accuracy beside the official Spider and BIRD
/// evaluators', and the mechanisms of their disagreements.
fn render_legacy(s: &Scores, out: &mut String) {
    if s.legacy.is_empty() {
        return;
    }
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

/// Calibration: a row per score measured on an engine, and the Platt
/// model's signals.
fn render_calibration(s: &Scores, out: &mut String) {
    if s.calibration.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n### Calibration\n\n| engine | score | n | ECE | ACE | Brier | AUC |\n|---|---|--:|--:|--:|--:|--:|"
    );
    for (e, cal) in &s.calibration {
        for (label, m) in calibration_rows(cal) {
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

/// The measured scores of one engine, labelled: the raw confidence on all
/// questions, then on the test split before and after Platt scaling.
fn calibration_rows(cal: &EngineCalibration) -> Vec<(&'static str, &CalibrationMetrics)> {
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
    rows
}

/// Dialect features (OCTOPUS Table 8): how often gold and predictions use
/// each, where it is not as written, and the accuracy of predictions
/// using it.
fn render_dialect_features(s: &Scores, out: &mut String) {
    if s.dialect_features.is_empty() {
        return;
    }
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

/// The tie-aware and test-suite accuracies, when the run has them, as
/// `(label, "sqlite 0.9568 (930/972), …")`; `code` quotes the verdict
/// names in the labels (a backtick for Markdown, nothing for HTML).
pub(crate) fn extra_accuracies(s: &Scores, code: &str) -> Vec<(String, String)> {
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
    use super::*;
    use crate::test_support::{md_table, md_tables, small_report};

    #[test]
    fn first_differing_lists_at_most_ten_ids() {
        assert_eq!(first_differing(&[]), "");
        assert_eq!(first_differing(&[4, 2]), " (first differing ids: 4, 2)");
        let many: Vec<usize> = (0..12).collect();
        assert_eq!(
            first_differing(&many),
            " (first differing ids: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)"
        );
    }

    /// The raw confidence on all questions comes first; the test split's
    /// rows only with a Platt model, before scaling only when measured.
    #[test]
    fn calibration_rows_follow_what_was_measured() {
        let metrics = |n| CalibrationMetrics {
            n,
            accuracy: 0.5,
            ece: 0.1,
            ace: 0.1,
            brier: 0.2,
            auc: None,
            bins: Vec::new(),
        };
        let labels = |cal: &EngineCalibration| -> Vec<(&str, usize)> {
            calibration_rows(cal)
                .into_iter()
                .map(|(l, m)| (l, m.n))
                .collect()
        };
        let mut cal = EngineCalibration {
            raw: Some(metrics(10)),
            platt: None,
        };
        assert_eq!(labels(&cal), [("raw confidence, all", 10)]);
        cal.platt = Some(sqlwitness_score::PlattReport {
            signals: vec!["confidence".into()],
            weights: vec![1.0, 0.0],
            calibration_n: 6,
            test_n: 4,
            before: None,
            after: metrics(4),
        });
        cal.raw = None;
        assert_eq!(labels(&cal), [("Platt-scaled, test split", 4)]);
        cal.platt.as_mut().unwrap().before = Some(metrics(4));
        assert_eq!(
            labels(&cal),
            [
                ("raw confidence, test split", 4),
                ("Platt-scaled, test split", 4)
            ]
        );
    }

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
