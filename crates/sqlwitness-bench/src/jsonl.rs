//! The plain JSONL layout: `<split>.jsonl`, one question a line:
//! `{"id"?: int, "db_id": str, "question"?: str, "gold": str, "evidence"?: str,
//! "gold_<engine>"?: str}` (`gold_mysql`: the gold MySQL runs). `gold` may be
//! a list of SQL strings: the first is the gold, the rest accepted
//! alternatives.

use std::path::Path;

use serde_json::{Map, Value as Json};

use crate::benchmark::read_text;
use crate::names::{check_db_id, entry_place};
use crate::spider::kind;
use crate::{BenchError, Question};

/// One JSONL line: its place (`line N`) and its object.
pub(crate) type JsonLine = (String, Map<String, Json>);

/// The JSON objects of a JSONL text, one a non-blank line, each with its
/// place (`line N`) for error messages; a line that is not a JSON object
/// is an error naming the file and the line.
pub(crate) fn json_lines(path: &Path, text: &str) -> Result<Vec<JsonLine>, BenchError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let place = format!("line {}", n + 1);
        let v: Json = serde_json::from_str(line)
            .map_err(|e| BenchError::format(path, &place, e.to_string()))?;
        match v {
            Json::Object(obj) => out.push((place, obj)),
            other => {
                return Err(BenchError::format(
                    path,
                    &place,
                    format!("expected an object, found {}", kind(&other)),
                ))
            }
        }
    }
    Ok(out)
}

pub(crate) fn load_jsonl(path: &Path) -> Result<Vec<Question>, BenchError> {
    let text = read_text(path)?;
    let mut out = Vec::new();
    for (place, obj) in json_lines(path, &text)? {
        let id = out.len();
        if let Some(given) = obj.get("id") {
            if given.as_u64() != Some(id as u64) {
                return Err(BenchError::format(
                    path,
                    format!("{place}: id"),
                    format!("expected {id} (0-based position of the question), found {given}"),
                ));
            }
        }
        let field = |key: &str, required: bool| -> Result<Option<String>, BenchError> {
            match obj.get(key) {
                Some(Json::String(s)) => Ok(Some(s.clone())),
                None | Some(Json::Null) if !required => Ok(None),
                None => Err(BenchError::format(
                    path,
                    format!("{place}: {key}"),
                    "missing field",
                )),
                Some(other) => Err(BenchError::format(
                    path,
                    format!("{place}: {key}"),
                    format!("expected a string, found {}", kind(other)),
                )),
            }
        };
        // `gold_<engine>`: that engine's own gold.
        let mut golds = std::collections::BTreeMap::new();
        for key in obj.keys().filter(|k| k.starts_with("gold_")) {
            let name = &key["gold_".len()..];
            let kind = sqlwitness_core::EngineKind::parse(name).ok_or_else(|| {
                BenchError::format(
                    path,
                    format!("{place}: {key}"),
                    format!(
                        "unknown engine `{name}` (expected {})",
                        sqlwitness_core::EngineKind::names()
                    ),
                )
            })?;
            if let Some(g) = field(key, false)? {
                golds.insert(kind, g);
            }
        }
        let db_id = field("db_id", true)?.unwrap_or_default();
        let question = field("question", false)?.unwrap_or_default();
        let at = entry_place(format!("{place}: db_id"), Some(&question));
        check_db_id(path, &at, &db_id)?;
        let (gold, alternatives) = match obj.get("gold") {
            Some(v) => crate::spider::gold_value(path, &format!("{place}: gold"), v)?,
            None => {
                return Err(BenchError::format(
                    path,
                    format!("{place}: gold"),
                    "missing field",
                ))
            }
        };
        out.push(Question {
            id,
            db_id,
            question,
            gold,
            alternatives,
            golds,
            evidence: field("evidence", false)?,
            ..Question::default()
        });
    }
    Ok(out)
}
