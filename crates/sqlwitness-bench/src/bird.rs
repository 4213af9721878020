//! The BIRD layout: `<split>.json` entries with `SQL`, `evidence`,
//! `difficulty` and `question_id`; databases in `<split>_databases/` (or
//! `dev_databases/`). BIRD mini-dev ships one gold file per dialect:
//! `<split>_sqlite.json` is the benchmark's, `<split>_mysql.json` and
//! `<split>_postgresql.json` beside it give those engines their own gold,
//! matched by `question_id`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value as Json;
use sqlwitness_core::EngineKind;

use crate::spider::{kind, string_field};
use crate::{BenchError, Question};

pub(crate) fn parse_bird(path: &Path, entries: &[Json]) -> Result<Vec<Question>, BenchError> {
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
            // `question_id` is optional; any number (mini-dev starts at
            // 1471), each once. The question's id is its position.
            let source_id = match e.get("question_id") {
                None | Some(Json::Null) => None,
                Some(qid) => Some(qid.as_u64().ok_or_else(|| {
                    BenchError::format(
                        path,
                        format!("[{i}].question_id"),
                        format!("expected a non-negative integer, found {qid}"),
                    )
                })?),
            };
            let optional = |key: &str| -> Result<Option<String>, BenchError> {
                match e.get(key) {
                    None | Some(Json::Null) => Ok(None),
                    Some(Json::String(s)) => Ok(Some(s.clone())),
                    Some(other) => Err(BenchError::format(
                        path,
                        format!("[{i}].{key}"),
                        format!("expected a string, found {}", kind(other)),
                    )),
                }
            };
            Ok(Question {
                id: i,
                db_id: string_field(path, e, i, "db_id")?,
                question: string_field(path, e, i, "question")?,
                gold: string_field(path, e, i, "SQL")?,
                evidence: optional("evidence")?,
                source_id,
                difficulty: optional("difficulty")?,
                ..Question::default()
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .and_then(|qs| {
            let mut seen = BTreeMap::new();
            for q in &qs {
                if let Some(id) = q.source_id {
                    if let Some(first) = seen.insert(id, q.id) {
                        return Err(BenchError::format(
                            path,
                            format!("[{}].question_id", q.id),
                            format!("{id} again (first at [{first}])"),
                        ));
                    }
                }
            }
            Ok(qs)
        })
}

/// The dialect gold files beside a BIRD split (`<split>_<dialect>.json`
/// for every engine name or alias but SQLite's): each entry's `SQL` becomes
/// that engine's gold for the question with the same `question_id` (and
/// `db_id`). An entry naming no question of the split is an error.
pub(crate) fn dialect_golds(
    root: &Path,
    split: &str,
    questions: &mut [Question],
) -> Result<(), BenchError> {
    let by_source: BTreeMap<u64, usize> = questions
        .iter()
        .filter_map(|q| q.source_id.map(|s| (s, q.id)))
        .collect();
    for kind in EngineKind::ALL.into_iter().filter(|k| k.is_server()) {
        let names = [kind.as_str().to_string()].into_iter().chain(
            ["postgresql".to_string()]
                .into_iter()
                .filter(|n| EngineKind::parse(n) == Some(kind)),
        );
        for name in names {
            let path = root.join(format!("{split}_{name}.json"));
            if !path.is_file() {
                continue;
            }
            let entries = crate::spider::read_json_array(&path)?;
            for (i, e) in entries.iter().enumerate() {
                let qid = e.get("question_id").and_then(Json::as_u64).ok_or_else(|| {
                    BenchError::format(
                        &path,
                        format!("[{i}].question_id"),
                        "missing or not an integer",
                    )
                })?;
                let &at = by_source.get(&qid).ok_or_else(|| {
                    BenchError::format(
                        &path,
                        format!("[{i}].question_id"),
                        format!("{qid} is no question of the {split} split"),
                    )
                })?;
                let db_id = string_field(&path, e, i, "db_id")?;
                if db_id != questions[at].db_id {
                    return Err(BenchError::format(
                        &path,
                        format!("[{i}].db_id"),
                        format!(
                            "`{db_id}`, but question {qid} is on `{}`",
                            questions[at].db_id
                        ),
                    ));
                }
                questions[at]
                    .golds
                    .insert(kind, string_field(&path, e, i, "SQL")?);
            }
        }
    }
    Ok(())
}
