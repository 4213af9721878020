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

/// Fields of a question entry that only Spider's own parser and tools read
/// (its parse of the gold, token lists): a loader never holds them, so a
/// file of millions of questions costs its questions, not their parses.
const PARSE_ONLY_FIELDS: &[&str] = &["sql", "query_toks", "query_toks_no_value", "question_toks"];

/// [`read_json_array`] of question entries without their
/// [`PARSE_ONLY_FIELDS`], each entry dropped from the parse as it is read;
/// with a warning for every key an entry repeats (the last value is used,
/// as Python's `json` does).
pub(crate) fn read_question_entries(path: &Path) -> Result<(Vec<Json>, Vec<String>), BenchError> {
    let mut entries = Vec::new();
    let warnings = stream_question_entries(path, |_, e| {
        entries.push(e);
        Ok(())
    })?;
    Ok((entries, warnings))
}

/// The questions of a Spider or BIRD question file (BIRD's when its first
/// entry has `SQL`), each entry turned into its question as it is parsed:
/// a file of millions of questions never holds their JSON at once. With
/// [`read_question_entries`]'s warnings.
pub(crate) fn read_questions(
    path: &Path,
) -> Result<(Vec<Question>, bool, Vec<String>), BenchError> {
    let mut questions = Vec::new();
    let mut bird = None;
    let warnings = stream_question_entries(path, |i, e| {
        let is_bird =
            *bird.get_or_insert_with(|| e.as_object().is_some_and(|o| o.contains_key("SQL")));
        questions.push(if is_bird {
            crate::bird::bird_entry(path, i, &e)?
        } else {
            spider_entry(path, i, &e)?
        });
        Ok(())
    })?;
    Ok((questions, bird.unwrap_or(false), warnings))
}

/// Parses the question file at `path`, handing each entry (without its
/// [`PARSE_ONLY_FIELDS`]) to `sink` with its index; the warnings.
fn stream_question_entries(
    path: &Path,
    mut sink: impl FnMut(usize, Json) -> Result<(), BenchError>,
) -> Result<Vec<String>, BenchError> {
    let text = read_text(path)?;
    let mut de = serde_json::Deserializer::from_str(&text);
    let repeated = std::cell::RefCell::new(Vec::new());
    let failed = std::cell::RefCell::new(None);
    let visitor = EntriesVisitor {
        repeated: &repeated,
        failed: &failed,
        sink: &mut sink,
    };
    let parsed =
        serde::Deserializer::deserialize_any(&mut de, visitor).and_then(|v| de.end().map(|()| v));
    if let Some(e) = failed.into_inner() {
        return Err(e);
    }
    let place = |e: &serde_json::Error| format!("line {} column {}", e.line(), e.column());
    let warnings = repeated
        .into_inner()
        .into_iter()
        .map(|(i, key)| {
            format!(
                "{}: [{i}].{key}: the key appears more than once in the entry; its last value is used",
                path.display()
            )
        })
        .collect();
    match parsed.map_err(|e| BenchError::format(path, place(&e), e.to_string()))? {
        Ok(()) => Ok(warnings),
        Err(found) => Err(BenchError::format(
            path,
            "$",
            format!("expected a JSON array of questions, found {found}"),
        )),
    }
}

/// Keys an entry repeats: (entry index, key).
type Repeated = std::cell::RefCell<Vec<(usize, String)>>;

/// What takes each entry; its first error stops the parse.
type Sink<'a> = &'a mut dyn FnMut(usize, Json) -> Result<(), BenchError>;

/// The top level: an array of entries, or what was found instead.
struct EntriesVisitor<'a> {
    repeated: &'a Repeated,
    failed: &'a std::cell::RefCell<Option<BenchError>>,
    sink: Sink<'a>,
}

impl<'de> serde::de::Visitor<'de> for EntriesVisitor<'_> {
    type Value = Result<(), &'static str>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON array of questions")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut i = 0;
        while let Some(entry) = seq.next_element_seed(EntrySeed(i, self.repeated))? {
            if let Err(e) = (self.sink)(i, entry) {
                *self.failed.borrow_mut() = Some(e);
                return Err(serde::de::Error::custom("the entry is not a question"));
            }
            i += 1;
        }
        Ok(Ok(()))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map
            .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
            .is_some()
        {}
        Ok(Err("an object"))
    }

    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Err("a string"))
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Err("a boolean"))
    }

    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Err("a number"))
    }

    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Err("a number"))
    }

    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Err("a number"))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(Err("null"))
    }
}

/// One entry: an object without its parse-only fields; anything else as
/// it is (the loader says what it expected).
struct EntrySeed<'a>(usize, &'a Repeated);

impl<'de> serde::de::DeserializeSeed<'de> for EntrySeed<'_> {
    type Value = Json;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(EntryVisitor(self.0, self.1))
    }
}

struct EntryVisitor<'a>(usize, &'a Repeated);

impl<'de> serde::de::Visitor<'de> for EntryVisitor<'_> {
    type Value = Json;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a question entry")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if PARSE_ONLY_FIELDS.contains(&key.as_str()) {
                map.next_value::<serde::de::IgnoredAny>()?;
            } else {
                let value = map.next_value::<Json>()?;
                if out.contains_key(&key) {
                    self.1.borrow_mut().push((self.0, key.clone()));
                }
                out.insert(key, value);
            }
        }
        Ok(Json::Object(out))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element::<Json>()? {
            out.push(v);
        }
        Ok(Json::Array(out))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_string()))
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Json, E> {
        Ok(Json::from(v))
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Json, E> {
        Ok(Json::from(v))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Json, E> {
        Ok(Json::from(v))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
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

/// A gold field: one SQL string, or a non-empty list of SQL strings (the
/// first is the gold, the rest accepted alternatives). `place` names the
/// field in errors.
pub(crate) fn gold_value(
    path: &Path,
    place: &str,
    value: &Json,
) -> Result<(String, Vec<String>), BenchError> {
    match value {
        Json::String(s) => Ok((s.clone(), Vec::new())),
        Json::Array(items) => {
            let mut golds = Vec::with_capacity(items.len());
            for (n, item) in items.iter().enumerate() {
                match item {
                    Json::String(s) => golds.push(s.clone()),
                    other => {
                        return Err(BenchError::format(
                            path,
                            format!("{place}[{n}]"),
                            format!("expected a string, found {}", kind(other)),
                        ))
                    }
                }
            }
            if golds.is_empty() {
                return Err(BenchError::format(
                    path,
                    place,
                    "expected a string or a non-empty list of strings, found an empty list",
                ));
            }
            let first = golds.remove(0);
            Ok((first, golds))
        }
        other => Err(BenchError::format(
            path,
            place,
            format!(
                "expected a string or a list of strings, found {}",
                kind(other)
            ),
        )),
    }
}

/// The gold field `key` of entry `index` (see [`gold_value`]).
pub(crate) fn gold_field(
    path: &Path,
    entry: &Json,
    index: usize,
    key: &str,
) -> Result<(String, Vec<String>), BenchError> {
    let place = format!("[{index}].{key}");
    match entry.get(key) {
        Some(v) => gold_value(path, &place, v),
        None => Err(BenchError::format(path, place, "missing field")),
    }
}

/// What every question file's entry `i` holds: an object with a valid
/// `db_id` and a `question`.
pub(crate) fn entry_names(path: &Path, i: usize, e: &Json) -> Result<(String, String), BenchError> {
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
    Ok((db_id, question))
}

/// Entry `i` of a Spider question file as its question.
pub(crate) fn spider_entry(path: &Path, i: usize, e: &Json) -> Result<Question, BenchError> {
    let (db_id, question) = entry_names(path, i, e)?;
    let (gold, alternatives) = gold_field(path, e, i, "query")?;
    Ok(Question {
        id: i,
        db_id,
        question,
        gold,
        alternatives,
        ..Question::default()
    })
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
