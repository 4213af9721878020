//! `spider-eval --etype match` (and the match half of `--etype all`): each
//! question's exact set match as the official evaluator scores it
//! ([`sqlwitness_spider::spider_exact_match`]), against the schema read from
//! the question's database file and the foreign keys of `--table`.
//!
//! The official script stops on a gold its parser cannot read, on a
//! database `--table` does not describe, and on the rare Python exception
//! its comparison raises; the drop-in refuses the same, naming the line.

use anyhow::{bail, Context, Result};
use std::collections::HashMap;
use std::path::Path;

use sqlwitness_bench::TableSchema;
use sqlwitness_spider::{ForeignKeyMap, SpiderMatch, SpiderSchema};

use super::inputs::{self, Flags};
use crate::exit::{BadInput, EngineFailure};

/// Every question's outcome, in the gold's order, and what the official
/// script prints for those that do not match (before its table).
pub(super) struct MatchRun {
    pub matches: Vec<SpiderMatch>,
    pub misses: String,
}

/// The files of one run.
pub(super) struct MatchFiles<'a> {
    pub flags: &'a Flags,
    pub gold: &'a Path,
    pub pred: &'a Path,
    pub db_dir: &'a Path,
    pub tables: &'a Path,
}

/// Python's `str.strip()`.
fn py_strip(line: &str) -> &str {
    line.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// The gold lines as `(SQL, db_id)`: `l.strip().split('\t')`, which must
/// give two fields (`g_str, db = g`; a tab inside the SQL makes the
/// official script stop with `ValueError`).
fn gold_lines(f: &MatchFiles) -> Result<Vec<(String, String)>> {
    let text = inputs::read_text(f.flags.gold, f.gold)?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if py_strip(line).is_empty() {
            continue;
        }
        let fields: Vec<&str> = py_strip(line).split('\t').collect();
        let [sql, db] = fields[..] else {
            bail!(BadInput(format!(
                "{} {}: line {}: {} tab-separated fields where the official evaluator \
                 unpacks two (`SQL<TAB>db_id`) and stops (ValueError)",
                f.flags.gold,
                f.gold.display(),
                n + 1,
                fields.len()
            )));
        };
        out.push((sql.to_string(), db.to_string()));
    }
    Ok(out)
}

/// The predictions as `evaluate()` reads them, one per gold (the counts
/// were checked before).
fn pred_lines(f: &MatchFiles, golds: usize) -> Result<Vec<String>> {
    let text = inputs::read_text(f.flags.pred, f.pred)?;
    Ok(text
        .lines()
        .take(golds)
        .map(sqlwitness_spider::spider_read_prediction)
        .collect())
}

/// The schema `process_sql.get_schema` reads from `db`'s file and the
/// foreign keys `--table` gives it.
fn schema_of(
    f: &MatchFiles,
    db: &str,
    tables: &HashMap<String, TableSchema>,
) -> Result<(SpiderSchema, ForeignKeyMap)> {
    let path = f.db_dir.join(db).join(format!("{db}.sqlite"));
    let names = sqlwitness_engines::sqlite_schema_names(&path)
        .map_err(|e| EngineFailure(format!("{}: reading its schema: {e}", path.display())))?;
    let Some(t) = tables.get(db) else {
        bail!(BadInput(format!(
            "--table {}: no entry for `{db}`: the official evaluator looks its foreign keys up \
             there and stops (KeyError)",
            f.tables.display()
        )));
    };
    let keys = ForeignKeyMap::new(
        &t.table_names_original,
        &t.column_names_original,
        &t.foreign_keys,
    )
    .map_err(|e| {
        BadInput(format!(
            "--table {}: `{db}`: a foreign key names a column or a table that is not there: \
             the official evaluator stops ({e})",
            f.tables.display()
        ))
    })?;
    Ok((SpiderSchema::new(names), keys))
}

/// Scores every question; the databases were checked before (they exist
/// and may be read).
pub(super) fn exact_match(f: &MatchFiles) -> Result<MatchRun> {
    let golds = gold_lines(f)?;
    let preds = pred_lines(f, golds.len())?;
    let tables = sqlwitness_bench::load_tables_json(f.tables)
        .with_context(|| format!("--table {}", f.tables.display()))
        .map_err(|e| BadInput(format!("{e:#}")))?;
    let mut schemas: HashMap<&str, (SpiderSchema, ForeignKeyMap)> = HashMap::new();
    let mut run = MatchRun {
        matches: Vec::with_capacity(golds.len()),
        misses: String::new(),
    };
    for (n, ((gold, db), pred)) in golds.iter().zip(&preds).enumerate() {
        if !schemas.contains_key(db.as_str()) {
            schemas.insert(db, schema_of(f, db, &tables)?);
        }
        let (schema, keys) = &schemas[db.as_str()];
        let m =
            sqlwitness_spider::spider_exact_match(schema, keys, gold, pred).map_err(|stop| {
                BadInput(format!(
                    "{} {}: line {}: {stop}: the official evaluator stops there, so no table is \
                 printed (leave the question out of both files)",
                    f.flags.gold,
                    f.gold.display(),
                    n + 1
                ))
            })?;
        if !m.exact {
            let h = m.hardness.as_str();
            run.misses
                .push_str(&format!("{h} pred: {pred}\n{h} gold: {gold}\n\n"));
        }
        run.matches.push(m);
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_is_pythons() {
        assert_eq!(py_strip("\u{1c} a\tb \r"), "a\tb");
    }
}
