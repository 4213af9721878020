//! Spider's `tables.json`: the schema facts per database.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::benchmark::read_text;
use crate::BenchError;

/// One database's schema as `tables.json` states it. Column indexes refer to
/// `column_names_original`, whose entry 0 is Spider's `(-1, "*")`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSchema {
    pub db_id: String,
    pub table_names_original: Vec<String>,
    /// `(table index, column name)`; table index -1 is the `*` column.
    pub column_names_original: Vec<(i64, String)>,
    pub column_types: Vec<String>,
    /// Column indexes; a composite key is a list of indexes.
    pub primary_keys: Vec<KeyColumns>,
    /// `(child column, parent column)` index pairs.
    pub foreign_keys: Vec<(usize, usize)>,
}

/// A primary key entry: one column index or several (BIRD writes composite
/// keys as nested lists).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum KeyColumns {
    One(usize),
    Many(Vec<usize>),
}

impl KeyColumns {
    pub fn columns(&self) -> Vec<usize> {
        match self {
            KeyColumns::One(c) => vec![*c],
            KeyColumns::Many(cs) => cs.clone(),
        }
    }
}

impl TableSchema {
    /// The columns of table `table` (its index), as `(column index, name)`.
    pub fn columns_of(&self, table: usize) -> Vec<(usize, &str)> {
        self.column_names_original
            .iter()
            .enumerate()
            .filter(|(_, (t, _))| *t == table as i64)
            .map(|(i, (_, name))| (i, name.as_str()))
            .collect()
    }
}

#[derive(Deserialize)]
struct RawSchema {
    db_id: String,
    table_names_original: Vec<String>,
    column_names_original: Vec<(i64, String)>,
    column_types: Vec<String>,
    #[serde(default)]
    primary_keys: Vec<KeyColumns>,
    #[serde(default)]
    foreign_keys: Vec<(usize, usize)>,
}

/// Reads `tables.json`, keyed by `db_id`. An error names the entry
/// (`[12]`, with its `db_id` when readable) and the problem.
pub fn load_tables_json(path: &Path) -> Result<HashMap<String, TableSchema>, BenchError> {
    let text = read_text(path)?;
    let entries: Vec<serde_json::Value> = serde_json::from_str(&text).map_err(|e| {
        BenchError::format(
            path,
            format!("line {} column {}", e.line(), e.column()),
            e.to_string(),
        )
    })?;
    let mut out = HashMap::new();
    for (i, entry) in entries.into_iter().enumerate() {
        let db = entry
            .get("db_id")
            .and_then(|v| v.as_str())
            .map(|s| format!(" (db_id {s})"))
            .unwrap_or_default();
        let raw: RawSchema = serde_json::from_value(entry)
            .map_err(|e| BenchError::format(path, format!("[{i}]{db}"), e.to_string()))?;
        crate::names::check_db_id(path, &format!("[{i}].db_id"), &raw.db_id)?;
        let n_cols = raw.column_names_original.len();
        if raw.column_types.len() != n_cols {
            return Err(BenchError::format(
                path,
                format!("[{i}]{db}.column_types"),
                format!("{} types for {n_cols} columns", raw.column_types.len()),
            ));
        }
        let bad_col = raw
            .primary_keys
            .iter()
            .flat_map(|k| k.columns())
            .chain(raw.foreign_keys.iter().flat_map(|(a, b)| [*a, *b]))
            .find(|c| *c >= n_cols);
        if let Some(c) = bad_col {
            return Err(BenchError::format(
                path,
                format!("[{i}]{db}"),
                format!("key column index {c} out of range ({n_cols} columns)"),
            ));
        }
        let schema = TableSchema {
            db_id: raw.db_id,
            table_names_original: raw.table_names_original,
            column_names_original: raw.column_names_original,
            column_types: raw.column_types,
            primary_keys: raw.primary_keys,
            foreign_keys: raw.foreign_keys,
        };
        out.insert(schema.db_id.clone(), schema);
    }
    Ok(out)
}
