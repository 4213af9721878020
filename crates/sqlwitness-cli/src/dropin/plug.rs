//! `spider-eval --plug_value` with `--etype exec` or `all`: a prediction
//! that does not match as written is executed again with the gold's values
//! plugged into its value slots, every possible way
//! ([`sqlwitness_spider::spider_plug_values`], as the official evaluator's
//! `get_all_preds_for_execution`), and matches when one of them does.
//!
//! The fillings of every such question run in one more `eval` run: the
//! gold repeated once per filling, the fillings as its predictions.

use anyhow::{bail, Context, Result};
use std::collections::BTreeSet;
use std::path::Path;

use sqlwitness_report::{Report, Verdict};
use sqlwitness_spider::{spider_plug_values, spider_postprocess, spider_read_prediction};

use super::inputs::{self, Flags};
use crate::exit::BadInput;

/// More fillings than this for one question are refused: the official
/// evaluator would run them all (`values ** slots` of them).
const MAX_FILLINGS: usize = 10_000;

/// What a plugged run needs of the user's files.
pub(super) struct PlugFiles<'a> {
    pub flags: &'a Flags,
    pub gold: &'a Path,
    pub pred: &'a Path,
    pub keep_distinct: bool,
}

/// The expanded files of the second run, in `dir`, and for each of its
/// lines the question it fills.
pub(super) struct Fillings {
    pub gold: std::path::PathBuf,
    pub pred: std::path::PathBuf,
    pub question: Vec<usize>,
}

/// `evaluate()`'s text for the plugging: `postprocess`, then (without
/// `--keep_distinct`) `remove_distinct`.
fn prepared(sql: &str, keep_distinct: bool) -> String {
    let sql = spider_postprocess(sql);
    if keep_distinct {
        sql
    } else {
        sqlwitness_spider::spider_remove_distinct(&sql)
    }
}

/// Writes the fillings of every question of `pending` (ids) to `dir`.
pub(super) fn fillings(f: &PlugFiles, pending: &BTreeSet<usize>, dir: &Path) -> Result<Fillings> {
    let gold_text = inputs::read_text(f.flags.gold, f.gold)?;
    let pred_text = inputs::read_text(f.flags.pred, f.pred)?;
    let golds: Vec<&str> = gold_text.lines().filter(|l| !l.trim().is_empty()).collect();
    let (mut gold_out, mut pred_out, mut question) = (String::new(), String::new(), Vec::new());
    for (q, (gold_line, pred_line)) in golds.iter().zip(pred_text.lines()).enumerate() {
        if !pending.contains(&q) {
            continue;
        }
        let gold_sql = gold_line.trim().split('\t').next().unwrap_or("");
        let gold = prepared(gold_sql, f.keep_distinct);
        let pred = prepared(&spider_read_prediction(pred_line), f.keep_distinct);
        let Some(filled) = spider_plug_values(&gold, &pred, MAX_FILLINGS) else {
            bail!(BadInput(format!(
                "--plug_value: {} {}: line {}: more than {MAX_FILLINGS} ways to plug the gold's \
                 values into the prediction (the official evaluator would run each); leave the \
                 question out or run without --plug_value",
                f.flags.pred,
                f.pred.display(),
                q + 1
            )));
        };
        for p in filled {
            gold_out.push_str(gold_line.trim_end_matches(['\r', '\n']));
            gold_out.push('\n');
            pred_out.push_str(&p);
            pred_out.push('\n');
            question.push(q);
        }
    }
    let gold = dir.join("plugged_gold.sql");
    let pred = dir.join("plugged_pred.sql");
    std::fs::write(&gold, gold_out).with_context(|| format!("writing {}", gold.display()))?;
    std::fs::write(&pred, pred_out).with_context(|| format!("writing {}", pred.display()))?;
    Ok(Fillings {
        gold,
        pred,
        question,
    })
}

/// The questions of `report` some engine does not match.
pub(super) fn unmatched(report: &Report) -> BTreeSet<usize> {
    report
        .questions
        .iter()
        .filter(|q| q.engines.values().any(|o| o.verdict != Verdict::Match))
        .map(|q| q.id)
        .collect()
}

/// The `(question, engine)` pairs one of whose fillings matches: line `k`
/// of the second run (`plugged`) fills question `question[k]`.
pub(super) fn plugged_matches(plugged: &Report, question: &[usize]) -> Hits {
    let mut hits = Hits::new();
    for x in &plugged.questions {
        for (engine, o) in &x.engines {
            if o.verdict == Verdict::Match {
                hits.insert((question[x.id], engine.clone()));
            }
        }
    }
    hits
}

/// `(question id, engine)` pairs that match once values are plugged in.
pub(super) type Hits = BTreeSet<(usize, String)>;
