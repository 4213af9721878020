//! Model predictions: JSONL, BIRD JSON or Spider text.

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value as Json;

use crate::benchmark::read_lines_lossy;
use crate::jsonl::json_lines;
use crate::spider::kind;
use crate::{BenchError, Benchmark};

/// A predicted query, the model's explicit abstention (TrustSQL), or an
/// entry of the prediction file that cannot be read as text (invalid
/// UTF-8): that question's prediction is refused, the others run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PredictedSql {
    Sql(String),
    Abstain,
    /// Why the entry could not be read, naming the file and the place.
    Invalid(String),
}

impl PredictedSql {
    /// Trims whitespace and a single trailing `;`; empty text is an abstention.
    pub fn from_text(text: &str) -> PredictedSql {
        let sql = clean_sql(text);
        if sql.is_empty() {
            PredictedSql::Abstain
        } else {
            PredictedSql::Sql(sql)
        }
    }

    pub fn as_sql(&self) -> Option<&str> {
        match self {
            PredictedSql::Sql(s) => Some(s),
            PredictedSql::Abstain | PredictedSql::Invalid(_) => None,
        }
    }
}

/// One prediction for question `id` (the index in the split).
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    pub id: usize,
    pub sql: PredictedSql,
    pub confidence: Option<f64>,
    /// Sampled alternative outputs (for sub-clause frequencies).
    pub samples: Vec<String>,
    /// The 1-based line of the file it came from, where the format has
    /// lines per entry (Spider text, JSONL).
    pub line: Option<usize>,
}

/// Trims whitespace and a single trailing `;`.
pub(crate) fn clean_sql(text: &str) -> String {
    let t = text.trim();
    let t = t.strip_suffix(';').unwrap_or(t);
    t.trim().to_string()
}

/// Loads predictions for `bench`, detecting the format:
///
/// - `*.jsonl`: `{"id": int, "sql": str|null, "confidence"?: number,
///   "samples"?: [str]}`; ids in range and unique;
/// - `*.json` holding an object: BIRD's `{"0": "SQL\t----- bird -----\tdb_id"}`,
///   the `db_id` must agree with the question's;
/// - anything else: Spider text, one SQL a line in split order; the line
///   count must equal the number of questions (one trailing empty line is
///   tolerated).
///
/// The result is sorted by `id`. JSONL and BIRD files may leave questions
/// out; those have no entry (which is not the same as an abstention).
///
/// Invalid UTF-8 does not reject the file: an entry that holds it becomes
/// [`PredictedSql::Invalid`] naming the file and the line (Spider text and
/// JSONL: the entry on that line; BIRD JSON: the entries whose text holds a
/// replaced byte), and the other questions run.
pub fn load_predictions(path: &Path, bench: &Benchmark) -> Result<Vec<Prediction>, BenchError> {
    let (text, bad_lines) = read_lines_lossy(path)?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let invalid = |line: usize, offset: usize| {
        PredictedSql::Invalid(format!(
            "{}: line {line}: invalid UTF-8 at byte {} of the line; the prediction was not run",
            path.display(),
            offset + 1
        ))
    };
    let mut preds = if ext == "jsonl" {
        let mut preds = load_jsonl(path, &text, bench)?;
        for p in &mut preds {
            if let Some(&(line, off)) = bad_lines.iter().find(|(l, _)| Some(*l) == p.line) {
                p.sql = invalid(line, off);
            }
        }
        preds
    } else if ext == "json" && text.trim_start().starts_with('{') {
        let mut preds = load_bird_json(path, &text, bench)?;
        if let Some(&(line, off)) = bad_lines.first() {
            for p in &mut preds {
                if matches!(&p.sql, PredictedSql::Sql(s) if s.contains('\u{FFFD}')) {
                    p.sql = invalid(line, off);
                }
            }
        }
        preds
    } else {
        let mut preds = load_spider_text(path, &text, bench)?;
        for &(line, off) in &bad_lines {
            if let Some(p) = preds.get_mut(line - 1) {
                p.sql = invalid(line, off);
            }
        }
        preds
    };
    preds.sort_by_key(|p| p.id);
    Ok(preds)
}

fn load_spider_text(
    path: &Path,
    text: &str,
    bench: &Benchmark,
) -> Result<Vec<Prediction>, BenchError> {
    let lines = question_lines(path, text, bench)?;
    Ok(lines
        .into_iter()
        .enumerate()
        .map(|(id, line)| Prediction {
            id,
            sql: PredictedSql::from_text(line),
            confidence: None,
            samples: Vec::new(),
            line: Some(id + 1),
        })
        .collect())
}

/// One line a question, in question order (a final empty line tolerated);
/// another count is an error naming the file.
fn question_lines<'a>(
    path: &Path,
    text: &'a str,
    bench: &Benchmark,
) -> Result<Vec<&'a str>, BenchError> {
    let mut lines: Vec<&str> = text.lines().collect();
    let expected = bench.questions.len();
    if lines.len() == expected + 1 && lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    if lines.len() != expected {
        return Err(BenchError::PredictionCount {
            path: path.to_path_buf(),
            expected,
            found: lines.len(),
        });
    }
    Ok(lines)
}

const BIRD_SEPARATOR: &str = "\t----- bird -----\t";

fn load_bird_json(
    path: &Path,
    text: &str,
    bench: &Benchmark,
) -> Result<Vec<Prediction>, BenchError> {
    let value: Json = serde_json::from_str(text).map_err(|e| {
        BenchError::format(
            path,
            format!("line {} column {}", e.line(), e.column()),
            e.to_string(),
        )
    })?;
    let Json::Object(map) = value else {
        return Err(BenchError::format(path, "$", "expected an object"));
    };
    // Keys are question positions (BIRD's own files, mini-dev's "0"…"499"),
    // or, when some key is past the last position, the questions'
    // `question_id`s (mini-dev's 1471…).
    let n = bench.questions.len();
    let mut by_source: std::collections::BTreeMap<u64, Vec<usize>> = Default::default();
    for q in &bench.questions {
        if let Some(s) = q.source_id {
            by_source.entry(s).or_default().push(q.id);
        }
    }
    let by_question_id = !by_source.is_empty()
        && map
            .keys()
            .any(|k| k.trim().parse::<usize>().is_ok_and(|i| i >= n));
    let mut out = Vec::with_capacity(map.len());
    for (key, v) in map {
        let place = format!("key \"{key}\"");
        let key_num: usize = key
            .trim()
            .parse()
            .map_err(|_| BenchError::format(path, &place, "the key is not a question index"))?;
        // A `question_id` the split lists twice answers both.
        let ids: Vec<usize> = if by_question_id {
            by_source.get(&(key_num as u64)).cloned().ok_or_else(|| {
                BenchError::format(path, &place, "no question has this question_id")
            })?
        } else {
            vec![key_num]
        };
        let id = ids[0];
        let question = bench.questions.get(id).ok_or_else(|| {
            BenchError::format(
                path,
                &place,
                format!("question index out of range ({n} questions)"),
            )
        })?;
        let Json::String(s) = v else {
            return Err(BenchError::format(
                path,
                &place,
                format!("expected a string, found {}", kind(&v)),
            ));
        };
        let (sql, db_id) = s.rsplit_once(BIRD_SEPARATOR).ok_or_else(|| {
            BenchError::format(path, &place, "expected `SQL\\t----- bird -----\\tdb_id`")
        })?;
        if db_id.trim() != question.db_id {
            return Err(BenchError::format(
                path,
                &place,
                format!(
                    "db_id `{}` does not match question {id}'s db_id `{}`",
                    db_id.trim(),
                    question.db_id
                ),
            ));
        }
        for id in ids {
            out.push(Prediction {
                id,
                sql: PredictedSql::from_text(sql),
                confidence: None,
                samples: Vec::new(),
                line: None,
            });
        }
    }
    Ok(out)
}

fn load_jsonl(path: &Path, text: &str, bench: &Benchmark) -> Result<Vec<Prediction>, BenchError> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for (place, obj) in json_lines(path, text)? {
        let id = match obj.get("id") {
            Some(Json::Number(n)) if n.as_u64().is_some() => n.as_u64().unwrap_or(0) as usize,
            Some(other) => {
                return Err(BenchError::format(
                    path,
                    format!("{place}: id"),
                    format!("expected a non-negative integer, found {other}"),
                ))
            }
            None => {
                return Err(BenchError::format(
                    path,
                    format!("{place}: id"),
                    "missing field",
                ))
            }
        };
        if id >= bench.questions.len() {
            return Err(BenchError::format(
                path,
                format!("{place}: id"),
                format!("{id} is out of range ({} questions)", bench.questions.len()),
            ));
        }
        if !seen.insert(id) {
            return Err(BenchError::format(
                path,
                format!("{place}: id"),
                format!("duplicate id {id}"),
            ));
        }
        let sql = match obj.get("sql") {
            None | Some(Json::Null) => PredictedSql::Abstain,
            Some(Json::String(s)) => PredictedSql::from_text(s),
            Some(other) => {
                return Err(BenchError::format(
                    path,
                    format!("{place}: sql"),
                    format!("expected a string or null, found {}", kind(other)),
                ))
            }
        };
        let confidence = match obj.get("confidence") {
            None | Some(Json::Null) => None,
            Some(Json::Number(n)) => n.as_f64(),
            Some(other) => {
                return Err(BenchError::format(
                    path,
                    format!("{place}: confidence"),
                    format!("expected a number, found {}", kind(other)),
                ))
            }
        };
        let samples = match obj.get("samples") {
            None | Some(Json::Null) => Vec::new(),
            Some(Json::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(k, s)| match s {
                    Json::String(s) => Ok(clean_sql(s)),
                    other => Err(BenchError::format(
                        path,
                        format!("{place}: samples[{k}]"),
                        format!("expected a string, found {}", kind(other)),
                    )),
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(BenchError::format(
                    path,
                    format!("{place}: samples"),
                    format!("expected an array of strings, found {}", kind(other)),
                ))
            }
        };
        let line = place
            .strip_prefix("line ")
            .and_then(|n| n.parse::<usize>().ok());
        out.push(Prediction {
            id,
            sql,
            confidence,
            samples,
            line,
        });
    }
    Ok(out)
}

/// An engine's own gold file (`eval --gold ENGINE=FILE`), in question
/// order: one query a line, Spider's text or `SQL<TAB>db_id` (the `db_id`
/// must be the question's), an empty line giving that question no gold of
/// its own; or a `.json` array (see `json_golds`).
pub fn load_engine_golds(
    path: &Path,
    bench: &Benchmark,
) -> Result<Vec<Option<String>>, BenchError> {
    let text = crate::benchmark::read_text(path)?;
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        && text.trim_start().starts_with('[');
    if is_json {
        return json_golds(path, &text, bench);
    }
    let lines = question_lines(path, &text, bench)?;
    lines
        .into_iter()
        .enumerate()
        .map(|(i, line)| {
            let line = line.trim_end_matches('\r');
            let want = bench.questions[i].db_id.as_str();
            // `SQL<TAB>db_id`; a tab inside a query whose last field is
            // not a name (it holds a space or is empty) is the query's.
            let (sql, db_id) = match line.rsplit_once('\t') {
                Some((sql, db)) if db.trim() == want => (sql, None),
                Some((sql, db)) if !db.trim().is_empty() && !db.trim().contains(' ') => {
                    (sql, Some(db.trim()))
                }
                _ => (line, None),
            };
            if let Some(db) = db_id {
                return Err(BenchError::format(
                    path,
                    format!("line {}", i + 1),
                    format!("db_id `{db}` does not match question {i}'s db_id `{want}`"),
                ));
            }
            let sql = sql.trim();
            Ok((!sql.is_empty()).then(|| sql.to_string()))
        })
        .collect()
}

/// A JSON array in question order: strings, or objects with `SQL`,
/// `query` or `sql` (and, when present, a `db_id` that must match);
/// `null` or an empty text keeps the benchmark's gold.
fn json_golds(
    path: &Path,
    text: &str,
    bench: &Benchmark,
) -> Result<Vec<Option<String>>, BenchError> {
    let entries: Vec<Json> = serde_json::from_str(text).map_err(|e| {
        BenchError::format(
            path,
            format!("line {} column {}", e.line(), e.column()),
            e.to_string(),
        )
    })?;
    if entries.len() != bench.questions.len() {
        return Err(BenchError::PredictionCount {
            path: path.to_path_buf(),
            expected: bench.questions.len(),
            found: entries.len(),
        });
    }
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let place = format!("[{i}]");
            let sql = match e {
                Json::Null => None,
                Json::String(s) => Some(s.clone()),
                Json::Object(o) => {
                    if let Some(db) = o.get("db_id").and_then(Json::as_str) {
                        if db != bench.questions[i].db_id {
                            return Err(BenchError::format(
                                path,
                                format!("{place}.db_id"),
                                format!(
                                    "`{db}` does not match question {i}'s db_id `{}`",
                                    bench.questions[i].db_id
                                ),
                            ));
                        }
                    }
                    ["SQL", "query", "sql"]
                        .iter()
                        .find_map(|k| o.get(*k).and_then(Json::as_str))
                        .map(str::to_string)
                }
                other => {
                    return Err(BenchError::format(
                        path,
                        &place,
                        format!("expected a string or an object, found {}", kind(other)),
                    ))
                }
            };
            Ok(sql.map(|s| s.trim().to_string()).filter(|s| !s.is_empty()))
        })
        .collect()
}
