//! The BIRD layout: `<split>.json` entries with `SQL`, `evidence`,
//! `difficulty` and `question_id`; databases in `<split>_databases/` (or
//! `dev_databases/`). BIRD mini-dev ships one gold file per dialect:
//! `<split>_sqlite.json` is the benchmark's, `<split>_mysql.json` and
//! `<split>_postgresql.json` beside it give those engines their own gold,
//! matched by `question_id`.

use sqlwitness_dialect::EngineFacts;
use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value as Json;
use sqlwitness_core::EngineKind;

use crate::spider::{kind, string_field};
use crate::{BenchError, Question};

/// Entry `i` of a BIRD question file as its question.
pub(crate) fn bird_entry(path: &Path, i: usize, e: &Json) -> Result<Question, BenchError> {
    let (db_id, question) = crate::spider::entry_names(path, i, e)?;
    // `question_id` is optional and any number (mini-dev starts at
    // 1471 and lists 137 and 138 twice); the question's id is its
    // position.
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
    let (gold, alternatives) = crate::spider::gold_field(path, e, i, "SQL")?;
    Ok(Question {
        id: i,
        db_id,
        question,
        gold,
        alternatives,
        evidence: optional("evidence")?,
        source_id,
        difficulty: optional("difficulty")?,
        ..Question::default()
    })
}

/// The dialect gold files beside a BIRD split (`<split>_<dialect>.json`
/// for every server engine's name or alias): each entry's `SQL` becomes
/// that engine's gold. A file listing the same questions in the same order
/// (`question_id` and `db_id` at every position, as mini-dev ships) is read
/// by position; another is matched by `question_id`, which must then name
/// exactly one question of the split.
pub(crate) fn dialect_golds(
    root: &Path,
    split: &str,
    questions: &mut [Question],
) -> Result<BTreeMap<EngineKind, String>, BenchError> {
    let mut sources = BTreeMap::new();
    let mut by_source: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for q in questions.iter() {
        if let Some(s) = q.source_id {
            by_source.entry(s).or_default().push(q.id);
        }
    }
    for kind in EngineKind::all().into_iter().filter(|k| k.is_server()) {
        // BIRD names PostgreSQL's file `postgresql`: any spelling of the
        // engine's name.
        for name in kind.spellings() {
            let path = root.join(format!("{split}_{name}.json"));
            if !path.is_file() {
                continue;
            }
            let (entries, _) = crate::spider::read_question_entries(&path)?;
            sources.insert(kind, path.display().to_string());
            let source = |i: usize| entries[i].get("question_id").and_then(Json::as_u64);
            let aligned = entries.len() == questions.len()
                && (0..entries.len()).all(|i| {
                    source(i) == questions[i].source_id
                        && entries[i].get("db_id").and_then(Json::as_str)
                            == Some(questions[i].db_id.as_str())
                });
            for (i, e) in entries.iter().enumerate() {
                let at = if aligned {
                    i
                } else {
                    let qid = source(i).ok_or_else(|| {
                        BenchError::format(
                            &path,
                            format!("[{i}].question_id"),
                            "missing or not an integer",
                        )
                    })?;
                    match by_source.get(&qid).map(Vec::as_slice) {
                        Some([at]) => *at,
                        Some(_) => {
                            return Err(BenchError::format(
                                &path,
                                format!("[{i}].question_id"),
                                format!(
                                    "{qid} names several questions of the {split} split, and \
                                     this file does not list them in the split's order"
                                ),
                            ))
                        }
                        None => {
                            return Err(BenchError::format(
                                &path,
                                format!("[{i}].question_id"),
                                format!("{qid} is no question of the {split} split"),
                            ))
                        }
                    }
                };
                let db_id = string_field(&path, e, i, "db_id")?;
                if db_id != questions[at].db_id {
                    return Err(BenchError::format(
                        &path,
                        format!("[{i}].db_id"),
                        format!(
                            "`{db_id}`, but the question is on `{}`",
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
    Ok(sources)
}
