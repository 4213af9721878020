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
            crate::markdown::md_cell(&r.run),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summarize;
    use crate::test_support::{assert_expected, md_table, md_tables, small_report};

    /// The original run, the labelled perturbed runs and the mapping's
    /// (perturbed id, original id) pairs.
    type Runs = (Report, Vec<(String, Report)>, Vec<(usize, usize)>);

    /// The small report as the original run; two perturbed runs of its
    /// questions (ids + 100): `carried`, where question 0 now fails on
    /// SQLite and a MySQL outcome appears that the original lacks, and
    /// `swap|cols`, unchanged. The mapping names question 4's perturbed
    /// twin, which neither run has.
    fn runs() -> Runs {
        let original = small_report();
        let shifted = |f: &dyn Fn(&mut crate::QuestionReport)| {
            let mut r = original.clone();
            r.questions.retain(|q| q.id != 4);
            for q in &mut r.questions {
                q.id += 100;
                f(q);
            }
            r.summary = summarize(&r.questions);
            r
        };
        let carried = shifted(&|q| {
            if q.id == 100 {
                let o = q.engines.get_mut("sqlite").unwrap();
                o.verdict = Verdict::Mismatch;
                let pg = q.engines["postgres"].clone();
                q.engines.insert("mysql".into(), pg);
            }
        });
        let unchanged = shifted(&|_| {});
        let pairs = vec![(100, 0), (101, 1), (102, 2), (103, 3), (105, 5), (104, 4)];
        (
            original,
            vec![("carried".into(), carried), ("swap|cols".into(), unchanged)],
            pairs,
        )
    }

    #[test]
    fn robustness_md_matches_the_expected_file() {
        let (original, runs, pairs) = runs();
        let rows = robustness_rows(&original, &runs, &pairs);
        assert_expected(
            "robustness.md",
            &render_robustness_markdown("nlq|synonyms", &rows),
        );
    }

    /// Pairs are read tie-aware (question 1's tie-dependent mismatch on
    /// SQLite is correct on both sides); a pair whose gold failed is left
    /// out as unscorable, a pair the run lacks as missing; an engine the
    /// original lacks has no row.
    #[test]
    fn rows_count_pairs_tie_aware_and_leave_out_what_says_nothing() {
        let (original, runs, pairs) = runs();
        let rows = robustness_rows(&original, &runs, &pairs);
        let got: Vec<(&str, &str, [usize; 6])> = rows
            .iter()
            .map(|r| {
                let x = &r.robustness;
                (
                    r.run.as_str(),
                    r.engine.as_str(),
                    [
                        x.pairs,
                        x.pre_correct,
                        x.post_correct,
                        x.both_correct,
                        r.unscorable,
                        r.missing,
                    ],
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("carried", "postgres", [4, 2, 2, 2, 1, 1]),
                ("carried", "sqlite", [5, 3, 2, 2, 0, 1]),
                ("swap|cols", "postgres", [4, 2, 2, 2, 1, 1]),
                ("swap|cols", "sqlite", [5, 3, 3, 3, 0, 1]),
            ]
        );
        assert!((rows[1].robustness.relative_robustness - 2.0 / 3.0).abs() < 1e-12);
    }

    /// The table keeps its columns, a run label with a pipe included, and
    /// shows each score with the count it comes from.
    #[test]
    fn robustness_md_table_keeps_its_columns() {
        let (original, runs, pairs) = runs();
        let md = render_robustness_markdown("nlq", &robustness_rows(&original, &runs, &pairs));
        assert!(md.starts_with("# Robustness: nlq\n"));
        let tables = md_tables(&md);
        let t = md_table(&tables, &["run", "engine", "pairs", "pre", "post"]);
        assert_eq!(t.len(), 2 + 4);
        assert_eq!(
            t[3],
            [
                "carried",
                "sqlite",
                "5",
                "0.6000 (3)",
                "0.4000 (2)",
                "0.6667 (2/3)",
                "1"
            ]
        );
        assert_eq!(t[5][..2], ["swap|cols", "sqlite"]);
        assert_eq!(t[4][6], "2");
    }
}
