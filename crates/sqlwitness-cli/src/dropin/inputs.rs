//! The user's files read as the official scripts read them, before `eval`
//! sees its temporary copy: every refusal names the flag, the user's file
//! and the line (or key). Where the official script would stop — bytes that
//! are not UTF-8, a blank line that splits Spider's one session, a
//! difficulty missing or a level left empty — the drop-in stops too, saying
//! why, rather than print a table the official script would not.

use anyhow::{bail, Result};
use std::path::Path;

use crate::exit::BadInput;

/// The flags a drop-in names its files by.
pub(super) struct Flags {
    pub gold: &'static str,
    pub pred: &'static str,
    pub db: &'static str,
}

pub(super) const SPIDER: Flags = Flags {
    gold: "--gold",
    pred: "--pred",
    db: "--db",
};

pub(super) const BIRD: Flags = Flags {
    gold: "--ground_truth_path",
    pred: "--predicted_sql_path",
    db: "--db_root_path",
};

/// `flag path`, as every message names a file.
fn named(flag: &str, path: &Path) -> String {
    format!("{flag} {}", path.display())
}

/// The text of `path`, read within the benchmark-file limit; bytes that are
/// not UTF-8 are refused naming the line and the byte (both official
/// scripts read their files as UTF-8 text and stop there, with Python's
/// `UnicodeDecodeError`). A UTF-8 byte-order mark is dropped, as `eval`
/// drops it.
pub(super) fn read_text(flag: &str, path: &Path) -> Result<String> {
    let bytes = sqlwitness_core::read_input(path, sqlwitness_core::input::BENCHMARK_FILE)
        .map_err(|e| BadInput(format!("{}: {e}", named(flag, path))))?;
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    match std::str::from_utf8(body) {
        Ok(text) => Ok(text.to_string()),
        Err(e) => {
            let before = &body[..e.valid_up_to()];
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let column = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
            bail!(BadInput(format!(
                "{}: line {line}: byte {column} of the line is not UTF-8: the official \
                 evaluator reads the file as UTF-8 and stops there (UnicodeDecodeError), so \
                 nothing is scored; write the file as UTF-8",
                named(flag, path)
            )))
        }
    }
}

/// The 1-based number of the first blank line that is followed by a line
/// that is not blank (a blank line at the end is not one).
fn inner_blank_line(lines: &[&str]) -> Option<usize> {
    let last = lines.iter().rposition(|l| !l.trim().is_empty())?;
    lines[..last]
        .iter()
        .position(|l| l.trim().is_empty())
        .map(|i| i + 1)
}

/// Whether `line` reads as a gold line, `SQL<TAB>db_id`.
fn gold_like(line: &str) -> bool {
    line.trim()
        .rsplit_once('\t')
        .is_some_and(|(sql, db)| !sql.trim().is_empty() && !db.is_empty() && !db.contains(' '))
}

/// The gold file, `SQL<TAB>db_id` a line: the `db_id` of each query, in
/// order. `other` is the prediction file, named when the two look swapped.
pub(super) fn read_gold(flags: &Flags, gold: &Path, other: &Path) -> Result<Vec<String>> {
    let text = read_text(flags.gold, gold)?;
    let lines: Vec<&str> = text.lines().collect();
    if let Some(n) = inner_blank_line(&lines) {
        bail!(BadInput(format!(
            "{}: line {n} is blank: the official evaluators take a gold query a line (a blank \
             line ends an interaction in SParC and CoSQL files, which the drop-ins do not \
             score); remove it",
            named(flags.gold, gold)
        )));
    }
    let mut db_ids = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match line.trim().rsplit_once('\t') {
            Some((sql, db)) if !sql.trim().is_empty() && !db.trim().is_empty() => {
                db_ids.push(db.trim().to_string())
            }
            _ => bail!(BadInput(format!(
                "{}: line {}: expected `SQL<TAB>db_id` (a gold query and its database){}",
                named(flags.gold, gold),
                n + 1,
                swapped_hint(flags, &text, other)
            ))),
        }
    }
    if db_ids.is_empty() {
        bail!(BadInput(format!(
            "{}: no gold query (`SQL<TAB>db_id` a line)",
            named(flags.gold, gold)
        )));
    }
    Ok(db_ids)
}

/// `; … swapped?` when the gold file reads as predictions (a JSON document)
/// or the prediction file as a gold (`SQL<TAB>db_id` lines).
fn swapped_hint(flags: &Flags, gold_text: &str, pred: &Path) -> String {
    let pred_is_gold = sqlwitness_core::read_input(pred, sqlwitness_core::input::BENCHMARK_FILE)
        .ok()
        .and_then(|b| {
            String::from_utf8_lossy(&b)
                .lines()
                .find(|l| !l.trim().is_empty())
                .map(gold_like)
        })
        .unwrap_or(false);
    let gold_is_json = gold_text.trim_start().starts_with(['{', '[']);
    if pred_is_gold || gold_is_json {
        format!(
            "; {} — are {} and {} swapped?",
            if pred_is_gold {
                format!("the file given to {} has that layout", flags.pred)
            } else {
                "this file is a JSON document, as predictions are".to_string()
            },
            flags.gold,
            flags.pred
        )
    } else {
        String::new()
    }
}

/// Refuses counts that differ, naming both files and both counts.
fn same_count(flags: &Flags, pred: &Path, found: usize, gold: &Path, golds: usize) -> Result<()> {
    if found != golds {
        bail!(BadInput(format!(
            "{} holds {found} predictions but {} holds {golds} gold queries: the counts must \
             be equal (the official evaluator pairs them by position)",
            named(flags.pred, pred),
            named(flags.gold, gold)
        )));
    }
    Ok(())
}

/// Spider text predictions, one a line: no blank line among them (one at
/// the end is allowed, as `evaluation.py` allows it), as many as the golds.
///
/// `evaluation.py` reads a blank line as the end of an interaction: with
/// Spider's gold (one interaction) a blank line inside the predictions
/// stops it (`number of sessions must equal`), and a blank last prediction
/// is dropped, so it pairs one prediction fewer. Either way it scores no
/// blank prediction, and neither does the drop-in.
pub(super) fn check_spider_predictions(
    flags: &Flags,
    pred: &Path,
    gold: &Path,
    golds: usize,
) -> Result<()> {
    let text = read_text(flags.pred, pred)?;
    let mut lines: Vec<&str> = text.lines().collect();
    if lines.len() == golds + 1 && lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    if let Some(n) = lines.iter().position(|l| l.trim().is_empty()) {
        let what = if n + 1 == lines.len() {
            "drops a blank last line and pairs one prediction fewer than the golds"
        } else {
            "reads a blank line as the end of an interaction and stops on Spider's \
             one-interaction gold (`number of sessions must equal`)"
        };
        bail!(BadInput(format!(
            "{}: line {} is blank: the official evaluator {what}, so it scores no blank \
             prediction; write a query on that line (one that cannot run scores as wrong)",
            named(flags.pred, pred),
            n + 1
        )));
    }
    same_count(flags, pred, lines.len(), gold, golds)
}

/// BIRD JSON predictions (`{"0": "SQL\t----- bird -----\tdb_id"}`): a JSON
/// object with an entry for every gold query.
pub(super) fn check_bird_predictions(
    flags: &Flags,
    pred: &Path,
    gold: &Path,
    golds: usize,
) -> Result<()> {
    let text = read_text(flags.pred, pred)?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        let hint = if text
            .lines()
            .find(|l| !l.trim().is_empty())
            .is_some_and(gold_like)
        {
            format!(
                "; it holds `SQL<TAB>db_id` lines, as a gold file does — are {} and {} swapped?",
                flags.pred, flags.gold
            )
        } else {
            String::new()
        };
        BadInput(format!(
            "{}: line {} column {}: not BIRD's JSON ({{\"0\": \"SQL\\t----- bird -----\\tdb_id\"}}): {e}{hint}",
            named(flags.pred, pred),
            e.line(),
            e.column()
        ))
    })?;
    let Some(entries) = value.as_object() else {
        bail!(BadInput(format!(
            "{}: expected a JSON object ({{\"0\": \"SQL\\t----- bird -----\\tdb_id\"}})",
            named(flags.pred, pred)
        )));
    };
    same_count(flags, pred, entries.len(), gold, golds)
}

/// The `difficulty` of every question (`--diff_json_path`: JSON lines, as
/// mini-dev ships it, or a JSON array), one per gold query. The official
/// script stops on an entry without one and on a level no question has (it
/// divides by the level's count), and pairs entries with golds by position;
/// the drop-in refuses the same, naming the file and the line or entry.
pub(super) fn read_difficulties(
    path: &Path,
    flags: &Flags,
    gold: &Path,
    golds: usize,
) -> Result<Vec<String>> {
    const FLAG: &str = "--diff_json_path";
    let text = read_text(FLAG, path)?;
    let here =
        |place: String, why: String| BadInput(format!("{}: {place}: {why}", named(FLAG, path)));
    let entries: Vec<(String, serde_json::Value)> = if text.trim_start().starts_with('[') {
        let all: Vec<serde_json::Value> = serde_json::from_str(&text).map_err(|e| {
            here(
                format!("line {} column {}", e.line(), e.column()),
                e.to_string(),
            )
        })?;
        all.into_iter()
            .enumerate()
            .map(|(i, v)| (format!("entry [{i}]"), v))
            .collect()
    } else {
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(n, l)| {
                let place = format!("line {}", n + 1);
                serde_json::from_str(l)
                    .map(|v| (place.clone(), v))
                    .map_err(|e| here(place, e.to_string()))
            })
            .collect::<Result<_, _>>()?
    };
    if entries.len() != golds {
        bail!(BadInput(format!(
            "{} holds {} questions but {} holds {golds} gold queries: the counts must be equal \
             (the official evaluator pairs them by position)",
            named(FLAG, path),
            entries.len(),
            named(flags.gold, gold)
        )));
    }
    let levels = entries
        .into_iter()
        .map(|(place, e)| match e.get("difficulty") {
            Some(serde_json::Value::String(d)) => Ok(d.clone()),
            _ => Err(here(
                place,
                "no `difficulty` text (simple, moderate, challenging): the official evaluator \
                 stops on it"
                    .into(),
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    for level in sqlwitness_report::DIFFICULTY_LEVELS {
        if !levels.iter().any(|l| l == level) {
            bail!(BadInput(format!(
                "{}: no question is `{level}`: the official evaluator divides each level's \
                 matches by its count and stops on an empty level (ZeroDivisionError), so it \
                 prints no table for these questions",
                named(FLAG, path)
            )));
        }
    }
    Ok(levels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blank_line_counts_only_before_a_line_that_is_not() {
        assert_eq!(inner_blank_line(&["a", "", "b"]), Some(2));
        assert_eq!(inner_blank_line(&["", "a"]), Some(1));
        assert_eq!(inner_blank_line(&["a", "b", " "]), None);
        assert_eq!(inner_blank_line(&["a", "b", "", ""]), None);
        assert_eq!(inner_blank_line(&[]), None);
    }

    #[test]
    fn gold_lines_are_sql_tab_name() {
        assert!(gold_like("SELECT 1\tconcert_singer"));
        assert!(!gold_like("SELECT 1"));
        assert!(!gold_like("{\"0\": \"SELECT 1\\t----- bird -----\\tx\"}"));
        assert!(!gold_like("SELECT 1\ta b"));
    }
}
