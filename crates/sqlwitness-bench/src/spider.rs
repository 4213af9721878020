//! The Spider layout: `<split>.json` with `query`, or `<split>_gold.sql`.

use std::path::Path;

use serde_json::Value as Json;

use crate::benchmark::read_text;
use crate::names::{check_db_id, entry_place};
use crate::{BenchError, Question};

/// The JSON array in `path`; an error names the file and the place
/// (`what`: what the entries are, for the message — `questions`).
pub fn read_json_array(path: &Path, what: &str) -> Result<Vec<Json>, BenchError> {
    let text = read_text(path)?;
    let value: Json = serde_json::from_str(&text).map_err(|e| {
        BenchError::format(
            path,
            format!("line {} column {}", e.line(), e.column()),
            e.to_string(),
        )
    })?;
    match value {
        Json::Array(a) => Ok(a),
        other => Err(BenchError::format(
            path,
            "$",
            format!("expected a JSON array of {what}, found {}", kind(&other)),
        )),
    }
}

pub(crate) fn kind(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// The string field `key` of entry `index`, or an error naming `[index].key`.
pub(crate) fn string_field(
    path: &Path,
    entry: &Json,
    index: usize,
    key: &str,
) -> Result<String, BenchError> {
    match entry.get(key) {
        Some(Json::String(s)) => Ok(s.clone()),
        Some(other) => Err(BenchError::format(
            path,
            format!("[{index}].{key}"),
            format!("expected a string, found {}", kind(other)),
        )),
        None => Err(BenchError::format(
            path,
            format!("[{index}].{key}"),
            "missing field",
        )),
    }
}

pub(crate) fn parse_spider_json(
    path: &Path,
    entries: &[Json],
) -> Result<Vec<Question>, BenchError> {
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            if !e.is_object() {
                return Err(BenchError::format(
                    path,
                    format!("[{i}]"),
                    format!("expected an object, found {}", kind(e)),
                ));
            }
            let db_id = string_field(path, e, i, "db_id")?;
            let question = string_field(path, e, i, "question")?;
            check_db_id(
                path,
                &entry_place(format!("[{i}].db_id"), Some(&question)),
                &db_id,
            )?;
            Ok(Question {
                id: i,
                db_id,
                question,
                gold: string_field(path, e, i, "query")?,
                ..Question::default()
            })
        })
        .collect()
}

/// `SQL<TAB>db_id` a line; blank lines are skipped (they are not questions).
pub(crate) fn load_gold_sql(path: &Path) -> Result<Vec<Question>, BenchError> {
    let text = read_text(path)?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let Some((sql, db_id)) = line.rsplit_once('\t') else {
            return Err(BenchError::format(
                path,
                format!("line {}", n + 1),
                "expected `SQL<TAB>db_id`",
            ));
        };
        let db_id = db_id.trim();
        check_db_id(path, &format!("line {}", n + 1), db_id)?;
        if sql.trim().is_empty() {
            return Err(BenchError::format(
                path,
                format!("line {}", n + 1),
                "empty SQL",
            ));
        }
        out.push(Question {
            id: out.len(),
            db_id: db_id.to_string(),
            question: String::new(),
            gold: sql.trim().to_string(),
            ..Question::default()
        });
    }
    Ok(out)
}
