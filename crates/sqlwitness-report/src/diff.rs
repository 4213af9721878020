//! Comparing two reports (`sqlwitness diff`, `eval --baseline`): accuracy
//! deltas per engine, the questions whose verdict changed, new failures,
//! and — reading the old report as pre-perturbation and the new one as
//! post-perturbation — Dr.Spider's robustness (Chang et al., §4).

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use sqlwitness_core::compare::MismatchReason;
use sqlwitness_score::{robustness, Robustness};

use crate::{Report, Verdict};

/// One engine's accuracy in both reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineDelta {
    pub old_ex: f64,
    pub new_ex: f64,
    /// `new_ex − old_ex`.
    pub delta: f64,
    /// Tie-aware EX of both reports: what the gate compares (a `LIMIT`
    /// cutting through ties moves `ex` from run to run, never this).
    #[serde(default)]
    pub old_ex_tie_aware: f64,
    #[serde(default)]
    pub new_ex_tie_aware: f64,
    pub old_match: usize,
    pub new_match: usize,
    /// Questions that matched before and do not now.
    pub new_failures: usize,
    /// Questions that did not match before and do now.
    pub fixed: usize,
    /// Pre = old report, post = new report, over the questions in both.
    pub robustness: Robustness,
}

/// A question whose verdict on one engine differs between the reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerdictChange {
    pub id: usize,
    pub db_id: String,
    pub engine: String,
    pub old: Verdict,
    pub new: Verdict,
    /// Whether each side is correct by the tie-aware reading
    /// ([`crate::EngineOutcome::passes_tie_aware`]): a change between two
    /// such verdicts (`match` → `match_tie`, or a tie-dependent `mismatch`)
    /// is not a failure, nor a fix.
    #[serde(default)]
    pub old_passes: bool,
    #[serde(default)]
    pub new_passes: bool,
    /// The mismatch reasons, when a side is a `mismatch` — the mechanism of
    /// the change (e.g. `order` when a run with `--compare spider` is
    /// diffed against a strict one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_reason: Option<MismatchReason>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_reason: Option<MismatchReason>,
}

impl VerdictChange {
    /// Correct before, not now (tie-aware: see `old_passes`).
    pub fn is_new_failure(&self) -> bool {
        self.old_passes && !self.new_passes
    }

    /// Not correct before, correct now (tie-aware).
    pub fn is_fixed(&self) -> bool {
        !self.old_passes && self.new_passes
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportDiff {
    /// Engines in both reports.
    pub engines: BTreeMap<String, EngineDelta>,
    /// Engines only in the old report (a regression: coverage lost).
    pub engines_removed: Vec<String>,
    pub engines_added: Vec<String>,
    /// Questions (by id) in both reports.
    pub common_questions: usize,
    pub only_old: usize,
    pub only_new: usize,
    /// Every changed verdict, by question id then engine.
    pub changed: Vec<VerdictChange>,
}

pub fn diff_reports(old: &Report, new: &Report) -> ReportDiff {
    let old_q: BTreeMap<usize, _> = old.questions.iter().map(|q| (q.id, q)).collect();
    let new_q: BTreeMap<usize, _> = new.questions.iter().map(|q| (q.id, q)).collect();
    let old_e: BTreeSet<&String> = old.summary.engines.keys().collect();
    let new_e: BTreeSet<&String> = new.summary.engines.keys().collect();
    // Engines compared: the ones both runs have; or, for two dialect runs
    // of one engine each (a model's SQLite run against its MySQL run), that
    // pair, labelled `old→new`.
    let compared: Vec<(&String, &String, String)> = {
        let common: Vec<(&String, &String, String)> = old_e
            .intersection(&new_e)
            .map(|e| (*e, *e, (*e).clone()))
            .collect();
        match (common.is_empty(), old_e.len(), new_e.len()) {
            (true, 1, 1) => {
                let (o, n) = (*old_e.iter().next().unwrap(), *new_e.iter().next().unwrap());
                vec![(o, n, format!("{o}→{n}"))]
            }
            _ => common,
        }
    };
    let mut changed = Vec::new();
    let mut pairs: BTreeMap<&str, Vec<(bool, bool)>> = BTreeMap::new();
    for (id, oq) in &old_q {
        let Some(nq) = new_q.get(id) else { continue };
        for (oe, ne, label) in &compared {
            let (Some(o), Some(n)) = (oq.engines.get(*oe), nq.engines.get(*ne)) else {
                continue;
            };
            pairs
                .entry(label.as_str())
                .or_default()
                .push((o.verdict == Verdict::Match, n.verdict == Verdict::Match));
            if o.verdict != n.verdict || o.passes_tie_aware() != n.passes_tie_aware() {
                changed.push(VerdictChange {
                    id: *id,
                    db_id: nq.db_id.clone(),
                    engine: label.clone(),
                    old: o.verdict,
                    new: n.verdict,
                    old_passes: o.passes_tie_aware(),
                    new_passes: n.passes_tie_aware(),
                    old_reason: o.reason,
                    new_reason: n.reason,
                });
            }
        }
    }
    let engines = compared
        .iter()
        .map(|(oe, ne, label)| {
            let (os, ns) = (&old.summary.engines[*oe], &new.summary.engines[*ne]);
            let mine = changed.iter().filter(|c| &c.engine == label);
            let new_failures = mine.clone().filter(|c| c.is_new_failure()).count();
            let fixed = mine.filter(|c| c.is_fixed()).count();
            let delta = EngineDelta {
                old_ex: os.ex,
                new_ex: ns.ex,
                delta: ns.ex - os.ex,
                old_ex_tie_aware: os.ex_tie_aware,
                new_ex_tie_aware: ns.ex_tie_aware,
                old_match: os.matched,
                new_match: ns.matched,
                new_failures,
                fixed,
                robustness: robustness(pairs.get(label.as_str()).cloned().unwrap_or_default()),
            };
            (label.clone(), delta)
        })
        .collect();
    let common = old_q.keys().filter(|id| new_q.contains_key(id)).count();
    ReportDiff {
        engines,
        engines_removed: old_e
            .iter()
            .filter(|e| !compared.iter().any(|(o, _, _)| o == *e))
            .map(|e| (*e).clone())
            .collect(),
        engines_added: new_e
            .iter()
            .filter(|e| !compared.iter().any(|(_, n, _)| n == *e))
            .map(|e| (*e).clone())
            .collect(),
        common_questions: common,
        only_old: old_q.len() - common,
        only_new: new_q.len() - common,
        changed,
    }
}

impl ReportDiff {
    /// Why the new report regresses against the old one, given a
    /// `tolerance` (a fraction): an engine's tie-aware EX fell by more than
    /// `tolerance`, more than `tolerance × common questions` questions were
    /// correct before and are not now on an engine (both tie-aware: the
    /// same inputs give the same gate, whichever tied rows the engines
    /// return), or an engine disappeared. Empty when there is no
    /// regression.
    pub fn regressions(&self, tolerance: f64) -> Vec<String> {
        let mut out = Vec::new();
        for e in &self.engines_removed {
            out.push(format!("engine {e} is missing from the new report"));
        }
        for (e, d) in &self.engines {
            let fall = d.new_ex_tie_aware - d.old_ex_tie_aware;
            if fall < -tolerance - 1e-12 {
                out.push(format!(
                    "{e}: tie-aware EX fell from {:.4} to {:.4} ({fall:+.4}, tolerance {tolerance})",
                    d.old_ex_tie_aware, d.new_ex_tie_aware
                ));
            }
            let allowed = tolerance * self.common_questions as f64;
            if d.new_failures as f64 > allowed + 1e-9 {
                out.push(format!(
                    "{e}: {} new failures (allowed {})",
                    d.new_failures,
                    allowed.floor()
                ));
            }
        }
        out
    }
}

/// The diff as Markdown: a table per engine, then the changed verdicts.
pub fn render_diff_markdown(d: &ReportDiff, tolerance: f64, max_rows: usize) -> String {
    // Inputs (questions, SQL, db_ids, file names, servers' messages) may
    // hold control characters: shown escaped.
    sqlwitness_core::escape_controls(&render_diff_markdown_unescaped(d, tolerance, max_rows))
        .into_owned()
}

fn render_diff_markdown_unescaped(d: &ReportDiff, tolerance: f64, max_rows: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# sqlwitness diff\n");
    let _ = writeln!(
        out,
        "{} questions in both reports ({} only in the old, {} only in the new). `pre`, `post` and `relative robustness` read the old report as the pre-perturbation run and the new one as the post-perturbation run of the same questions (Dr.Spider, §4): accuracy over the questions in both, and correct-on-both ÷ correct-before.\n",
        d.common_questions, d.only_old, d.only_new
    );
    let _ = writeln!(out, "| engine | old EX | new EX | Δ | new failures | fixed | pre | post | relative robustness |");
    let _ = writeln!(out, "|---|--:|--:|--:|--:|--:|--:|--:|--:|");
    for (e, x) in &d.engines {
        let _ = writeln!(
            out,
            "| {e} | {:.4} | {:.4} | {:+.4} | {} | {} | {:.4} | {:.4} | {:.4} |",
            x.old_ex,
            x.new_ex,
            x.delta,
            x.new_failures,
            x.fixed,
            x.robustness.pre_accuracy,
            x.robustness.post_accuracy,
            x.robustness.relative_robustness
        );
    }
    for e in &d.engines_removed {
        let _ = writeln!(out, "| {e} | removed | | | | | | | |");
    }
    for e in &d.engines_added {
        let _ = writeln!(out, "| {e} | added | | | | | | | |");
    }
    let regressions = d.regressions(tolerance);
    if regressions.is_empty() {
        let _ = writeln!(out, "\nNo regression (tolerance {tolerance}).");
    } else {
        let _ = writeln!(out, "\n**Regression** (tolerance {tolerance}):\n");
        for r in &regressions {
            let _ = writeln!(out, "- {r}");
        }
    }
    if !d.changed.is_empty() {
        let _ = writeln!(
            out,
            "\n## Changes by mechanism\n\n| old | new | questions × engines |\n|---|---|--:|"
        );
        let mut by: BTreeMap<(String, String), usize> = BTreeMap::new();
        for c in &d.changed {
            *by.entry((label(c.old, c.old_reason), label(c.new, c.new_reason)))
                .or_default() += 1;
        }
        let mut by: Vec<_> = by.into_iter().collect();
        by.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        for ((o, n), k) in by {
            let _ = writeln!(out, "| {o} | {n} | {k} |");
        }
        let _ = writeln!(out, "\n## Changed verdicts ({})\n", d.changed.len());
        let _ = writeln!(
            out,
            "| id | db | engine | old | new |\n|--:|---|---|---|---|"
        );
        let mut rows: Vec<&VerdictChange> = d.changed.iter().collect();
        // New failures first.
        rows.sort_by_key(|c| (!c.is_new_failure(), c.id));
        for c in rows.iter().take(max_rows) {
            let mark = if c.is_new_failure() {
                " **new failure**"
            } else if c.old_passes && c.new_passes {
                " (both answers valid under ties: not a failure)"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {}{mark} |",
                c.id,
                crate::markdown::md_cell(&c.db_id),
                c.engine,
                label(c.old, c.old_reason),
                label(c.new, c.new_reason)
            );
        }
        if rows.len() > max_rows {
            let _ = writeln!(out, "\n…and {} more.", rows.len() - max_rows);
        }
    }
    out
}

/// `mismatch (order)`, or the verdict alone.
fn label(v: Verdict, reason: Option<MismatchReason>) -> String {
    match reason {
        Some(r) if v == Verdict::Mismatch => format!("{} ({})", v.as_str(), r.as_str()),
        _ => v.as_str().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{
        assert_expected, failed, md_table, md_tables, ok, outcome, small_report,
    };
    use crate::{summarize, EngineOutcome};
    use sqlwitness_core::ErrorClass;

    fn engine<'a>(r: &'a mut Report, id: usize, e: &str) -> &'a mut EngineOutcome {
        r.questions
            .iter_mut()
            .find(|q| q.id == id)
            .unwrap()
            .engines
            .get_mut(e)
            .unwrap()
    }

    /// The small report again, after a change of model: question 0 fails
    /// on SQLite (a new failure), question 3 matches there (fixed),
    /// question 1's tied answer flips to `match` (both valid), question 5
    /// errs on PostgreSQL; question 4 is gone and question 6 is new.
    fn changed_pair() -> (Report, Report) {
        let old = small_report();
        let mut new = old.clone();
        let o = engine(&mut new, 0, "sqlite");
        o.verdict = Verdict::Mismatch;
        o.reason = Some(MismatchReason::Order);
        o.suite = None;
        *engine(&mut new, 3, "sqlite") = outcome(
            Verdict::Match,
            Some(ok(&[&["3"]], 0.5)),
            Some(ok(&[&["3"]], 0.5)),
        );
        let o = engine(&mut new, 1, "sqlite");
        o.verdict = Verdict::Match;
        o.reason = None;
        o.tie = false;
        *engine(&mut new, 5, "postgres") = outcome(
            Verdict::PredError,
            Some(ok(&[&["a"]], 0.5)),
            Some(failed(
                ErrorClass::UndefinedTable,
                "42P01",
                "relation \"city\" does not exist",
                0.5,
            )),
        );
        new.questions.retain(|q| q.id != 4);
        let mut extra = new.questions[0].clone();
        extra.id = 6;
        new.questions.push(extra);
        new.summary = summarize(&new.questions);
        (old, new)
    }

    #[test]
    fn diff_md_matches_the_expected_file() {
        let (old, new) = changed_pair();
        assert_expected(
            "diff.md",
            &render_diff_markdown(&diff_reports(&old, &new), 0.0, 10),
        );
    }

    #[test]
    fn the_diff_counts_changes_failures_and_fixes() {
        let (old, new) = changed_pair();
        let d = diff_reports(&old, &new);
        assert_eq!((d.common_questions, d.only_old, d.only_new), (5, 1, 1));
        let lite = &d.engines["sqlite"];
        assert_eq!((lite.new_failures, lite.fixed), (1, 1));
        // New: q1, q2, q3 (q0 and its copy q6 now mismatch).
        assert_eq!((lite.old_match, lite.new_match), (2, 3));
        // Pre: q0, q2 match of the five in both; post: q1, q2, q3 (q0 now fails).
        assert_eq!(
            (
                lite.robustness.pairs,
                lite.robustness.pre_correct,
                lite.robustness.post_correct,
                lite.robustness.both_correct
            ),
            (5, 2, 3, 1)
        );
        let pg = &d.engines["postgres"];
        assert_eq!((pg.new_failures, pg.fixed), (0, 0));
        let changes: Vec<(usize, &str, Verdict, Verdict)> = d
            .changed
            .iter()
            .map(|c| (c.id, c.engine.as_str(), c.old, c.new))
            .collect();
        assert_eq!(
            changes,
            [
                (0, "sqlite", Verdict::Match, Verdict::Mismatch),
                (1, "sqlite", Verdict::Mismatch, Verdict::Match),
                (3, "sqlite", Verdict::PredError, Verdict::Match),
                (5, "postgres", Verdict::Mismatch, Verdict::PredError),
            ]
        );
        // The tie flip passes on both sides: neither a failure nor a fix.
        assert!(d.changed[1].old_passes && d.changed[1].new_passes);
        assert_eq!(d.regressions(0.0), ["sqlite: 1 new failures (allowed 0)"]);
        assert!(d.regressions(0.2).is_empty());
        // The diff is data too (`sqlwitness diff --json`): it reads back.
        let back: ReportDiff = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
        assert_eq!(back, d);
    }

    /// Its tables keep their columns, a database name with a pipe
    /// included; the changed verdicts list new failures first and stops
    /// at `max_rows`.
    #[test]
    fn diff_md_tables_keep_their_columns() {
        let (old, new) = changed_pair();
        let md = render_diff_markdown(&diff_reports(&old, &new), 0.0, 3);
        let tables = md_tables(&md);
        let changed = md_table(&tables, &["id", "db", "engine", "old", "new"]);
        assert_eq!(changed.len(), 2 + 3);
        assert_eq!(
            changed[2],
            [
                "0",
                "concert_singer",
                "sqlite",
                "match",
                "mismatch (order) **new failure**"
            ]
        );
        assert_eq!(
            changed[3][4],
            "match (both answers valid under ties: not a failure)"
        );
        assert_eq!(changed[4][..4], ["3", "pets_1", "sqlite", "pred_error"]);
        assert!(md.contains("\n…and 1 more.\n"));
        let all = render_diff_markdown(&diff_reports(&old, &new), 0.0, 10);
        let changed = md_table(&md_tables(&all), &["id", "db", "engine", "old", "new"]).clone();
        assert_eq!(changed[5][..3], ["5", "world|1", "postgres"]);
        let mechanisms = md_table(&md_tables(&all), &["old", "new", "questions × engines"]).clone();
        assert_eq!(mechanisms.len(), 2 + 4);
    }

    /// An engine missing from the new report is a regression, and both
    /// lists show in the table.
    #[test]
    fn engines_removed_and_added_show_and_gate() {
        let old = small_report();
        let mut new = old.clone();
        for q in &mut new.questions {
            let o = q.engines.remove("postgres").unwrap();
            q.engines.insert("mysql".into(), o);
        }
        new.summary = summarize(&new.questions);
        let d = diff_reports(&old, &new);
        assert_eq!(
            (d.engines_removed.as_slice(), d.engines_added.as_slice()),
            (&["postgres".to_string()][..], &["mysql".to_string()][..])
        );
        assert_eq!(
            d.regressions(1.0),
            ["engine postgres is missing from the new report"]
        );
        let md = render_diff_markdown(&d, 1.0, 10);
        let tables = md_tables(&md);
        let t = md_table(&tables, &["engine", "old EX", "new EX"]);
        assert_eq!(t[3][..2], ["postgres", "removed"]);
        assert_eq!(t[4][..2], ["mysql", "added"]);
        assert!(md.contains(
            "**Regression** (tolerance 1):\n\n- engine postgres is missing from the new report\n"
        ));
        let same = render_diff_markdown(&diff_reports(&old, &old), 0.0, 10);
        assert!(
            same.contains("No regression (tolerance 0).") && !same.contains("## Changed verdicts")
        );
    }
}
