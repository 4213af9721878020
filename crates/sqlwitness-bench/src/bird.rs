//! The BIRD layout: `<split>.json` entries with `SQL`, `evidence` and
//! `question_id`; databases in `<split>_databases/`.

use std::path::Path;

use serde_json::Value as Json;

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
            // `question_id` is optional in the public files; when present it
            // must be the entry's index, which predictions are keyed by.
            if let Some(qid) = e.get("question_id") {
                if qid.as_u64() != Some(i as u64) {
                    return Err(BenchError::format(
                        path,
                        format!("[{i}].question_id"),
                        format!("expected {i} (the entry's index), found {qid}"),
                    ));
                }
            }
            let evidence = match e.get("evidence") {
                None | Some(Json::Null) => None,
                Some(Json::String(s)) => Some(s.clone()),
                Some(other) => {
                    return Err(BenchError::format(
                        path,
                        format!("[{i}].evidence"),
                        format!("expected a string, found {}", kind(other)),
                    ))
                }
            };
            Ok(Question {
                id: i,
                db_id: string_field(path, e, i, "db_id")?,
                question: string_field(path, e, i, "question")?,
                gold: string_field(path, e, i, "SQL")?,
                evidence,
            })
        })
        .collect()
}
