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
                c.db_id,
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
