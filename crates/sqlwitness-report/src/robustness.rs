//! Dr.Spider's robustness of a model on a perturbed set (Chang et al., §4):
//! each perturbed question is paired with its original through the
//! perturbation's mapping, and the run on the original split is read as
//! pre-perturbation, each run on the perturbed split as post-perturbation.
//! A side is correct by the tie-aware reading (the one the baseline gate
//! uses): a `LIMIT` cutting through ties returns a different tied row from
//! run to run on a server, and that is neither the model's nor the
//! perturbation's doing.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::{Deserialize, Serialize};
use sqlwitness_score::{robustness, Robustness};

use crate::{Report, Verdict};

/// One post-perturbation run on one engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RobustnessRow {
    /// The run's label (`carried`, `unchanged`, …).
    pub run: String,
    pub engine: String,
    pub robustness: Robustness,
    /// Pairs left out: a side's gold failed, its database was missing, or
    /// the engine failed (not the model's doing).
    pub unscorable: usize,
    /// Perturbed questions the mapping names that the run lacks.
    pub missing: usize,
}

/// A verdict that says something about the model.
fn scorable(v: Verdict) -> bool {
    !matches!(
        v,
        Verdict::GoldError | Verdict::MissingDb | Verdict::EngineError
    )
}

/// `pairs`: `(perturbed question id, original question id)`.
pub fn robustness_rows(
    original: &Report,
    runs: &[(String, Report)],
    pairs: &[(usize, usize)],
) -> Vec<RobustnessRow> {
    let orig: BTreeMap<usize, _> = original.questions.iter().map(|q| (q.id, q)).collect();
    let mut rows = Vec::new();
    for (label, run) in runs {
        let post: BTreeMap<usize, _> = run.questions.iter().map(|q| (q.id, q)).collect();
        for engine in run.summary.engines.keys() {
            if !original.summary.engines.contains_key(engine) {
                continue;
            }
            let (mut list, mut unscorable, mut missing) = (Vec::new(), 0, 0);
            for (pid, oid) in pairs {
                let (Some(pq), Some(oq)) = (post.get(pid), orig.get(oid)) else {
                    missing += 1;
                    continue;
                };
                let (Some(p), Some(o)) = (pq.engines.get(engine), oq.engines.get(engine)) else {
                    missing += 1;
                    continue;
                };
                if !scorable(p.verdict) || !scorable(o.verdict) {
                    unscorable += 1;
                    continue;
                }
                list.push((o.passes_tie_aware(), p.passes_tie_aware()));
            }
            rows.push(RobustnessRow {
                run: label.clone(),
                engine: engine.clone(),
                robustness: robustness(list),
                unscorable,
                missing,
            });
        }
    }
    rows
}

pub fn render_robustness_markdown(kind: &str, rows: &[RobustnessRow]) -> String {
    // Inputs (questions, SQL, db_ids, file names, servers' messages) may
    // hold control characters: shown escaped.
    sqlwitness_core::escape_controls(&render_robustness_markdown_unescaped(kind, rows)).into_owned()
}

fn render_robustness_markdown_unescaped(kind: &str, rows: &[RobustnessRow]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Robustness: {kind}\n");
    let _ = writeln!(
        out,
        "Dr.Spider's metrics (§4) over (original, perturbed) question pairs from the perturbation's mapping: `pre` = tie-aware EX on the originals, `post` = tie-aware EX on the perturbed questions, `relative` = correct on both ÷ correct before. Pairs whose gold failed on either side are left out.\n"
    );
    let _ = writeln!(out, "| run | engine | pairs | pre | post | relative robustness | left out |\n|---|---|---:|---:|---:|---:|---:|");
    for r in rows {
        let x = &r.robustness;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.4} ({}) | {:.4} ({}) | {:.4} ({}/{}) | {} |",
            r.run,
            r.engine,
            x.pairs,
            x.pre_accuracy,
            x.pre_correct,
            x.post_accuracy,
            x.post_correct,
            x.relative_robustness,
            x.both_correct,
            x.pre_correct,
            r.unscorable + r.missing
        );
    }
    out
}
