//! The benchmark model and layout detection.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use sqlwitness_core::{Database, EngineKind};

use crate::BenchError;

/// One question of a split.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Question {
    /// Index in the split, 0-based.
    pub id: usize,
    pub db_id: String,
    pub question: String,
    /// The gold as the benchmark writes it for its own engine (SQLite).
    pub gold: String,
    /// Further accepted answers to the benchmark's gold, in order (its gold
    /// field given as a list of SQL strings: the first is `gold`, the rest
    /// are these). A prediction matching any of them is correct.
    pub alternatives: Vec<String>,
    /// Golds written for other engines (BIRD mini-dev's per-dialect
    /// files, a JSONL `gold_<engine>` field, `eval --gold ENGINE=FILE`).
    pub golds: BTreeMap<EngineKind, String>,
    /// BIRD's external knowledge, when the benchmark has it.
    pub evidence: Option<String>,
    /// The benchmark's own id of the question (BIRD `question_id`), when it
    /// has one: mini-dev numbers from 1471.
    pub source_id: Option<u64>,
    /// BIRD's `difficulty`.
    pub difficulty: Option<String>,
}

impl Question {
    /// The gold `kind` runs: its own when the benchmark has one for it (or
    /// for the engine its dialect extends: a MySQL gold serves MariaDB),
    /// else the benchmark's gold.
    pub fn gold_for(&self, kind: EngineKind) -> &str {
        self.dialect_gold(kind).unwrap_or(&self.gold)
    }

    /// The gold written for `kind` (or the engine its dialect extends), if
    /// any.
    pub fn dialect_gold(&self, kind: EngineKind) -> Option<&str> {
        if let Some(g) = self.golds.get(&kind) {
            return Some(g);
        }
        let parent = sqlwitness_dialect::shipped(kind).extends.as_deref()?;
        self.golds
            .get(&EngineKind::parse(parent)?)
            .map(String::as_str)
    }
}

/// Which on-disk layout a benchmark was loaded from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BenchmarkFormat {
    /// `<split>.json` with `query` (or `train_spider.json`), `database/`.
    SpiderJson,
    /// `<split>_gold.sql` (`SQL<TAB>db_id` lines), `database/`.
    SpiderGoldSql,
    /// `<split>.json` (or `<split>_sqlite.json` with `<split>_<dialect>.json`
    /// beside it, as BIRD mini-dev ships) with `SQL`, `evidence`,
    /// `question_id`; `<split>_databases/` or `dev_databases/`.
    Bird,
    /// `<split>.jsonl` with `{"id"?, "db_id", "question"?, "gold"}`; `database/`.
    Jsonl,
}

/// A loaded split: its questions and where its SQLite databases live.
#[derive(Debug, Clone)]
pub struct Benchmark {
    pub root: PathBuf,
    pub split: String,
    pub format: BenchmarkFormat,
    /// The file the questions were read from.
    pub source_file: PathBuf,
    pub questions: Vec<Question>,
    pub database_dir: PathBuf,
    /// Where the dialect golds of each engine came from (a per-dialect file
    /// beside the split, or a `gold_<engine>` field of the split's file).
    pub gold_sources: BTreeMap<EngineKind, String>,
    /// Prefix of every copy's namespace on a server (see
    /// [`sqlwitness_core::namespace_for`]).
    pub namespace_prefix: String,
    /// Use a database file that is a link resolving outside
    /// [`Benchmark::database_dir`] (`--allow-outside-links`); refused
    /// otherwise (see [`Benchmark::db_unusable`]).
    pub allow_outside_links: bool,
    /// What the loader accepted but the user should know (a key an entry
    /// repeats), each naming the file and the entry.
    pub warnings: Vec<String>,
}

impl Benchmark {
    /// The SQLite file of `db_id` (it may not exist; see [`Benchmark::db_exists`]).
    pub fn sqlite_path(&self, db_id: &str) -> PathBuf {
        self.database_dir
            .join(db_id)
            .join(format!("{db_id}.sqlite"))
    }

    /// `db_id` as every engine addresses it: its SQLite file, and on the
    /// servers the namespace [`Benchmark::namespace_prefix`] + `db_id`
    /// (with the suffix of a database imported while another benchmark's
    /// database of that `db_id` held the plain namespace: see
    /// [`crate::database_of`]).
    pub fn database(&self, db_id: &str) -> Database {
        crate::database_of(db_id, &self.sqlite_path(db_id), &self.namespace_prefix)
    }

    pub fn db_exists(&self, db_id: &str) -> bool {
        self.sqlite_path(db_id).is_file()
    }

    /// Why the database file of `db_id`, which exists, cannot be used
    /// (`None`: nothing wrong is known before SQLite opens it):
    ///
    /// - it resolves (through links) outside the benchmark's database
    ///   folder, unless [`Benchmark::allow_outside_links`] (the folder
    ///   itself may be a link);
    /// - it is empty (0 bytes: a failed download, not an empty database);
    /// - it has no SQLite header, or is shorter than its header says
    ///   (truncated).
    ///
    /// Such a database is never read: its questions get `engine_error` with
    /// this reason, and its migrations fail with it.
    pub fn db_unusable(&self, db_id: &str) -> Option<String> {
        let path = self.sqlite_path(db_id);
        if !self.allow_outside_links {
            let inside = std::fs::canonicalize(&self.database_dir).and_then(|dir| {
                std::fs::canonicalize(&path).map(|file| (file.starts_with(&dir), file))
            });
            match inside {
                Ok((true, _)) => {}
                Ok((false, file)) => {
                    return Some(format!(
                        "{} is a link to {}, outside the benchmark's database folder {}: \
                         refused (--allow-outside-links to use it)",
                        path.display(),
                        file.display(),
                        self.database_dir.display()
                    ))
                }
                Err(e) => return Some(format!("{}: cannot resolve: {e}", path.display())),
            }
        }
        sqlite_file_problem(&path)
    }

    /// Distinct `db_id`s of the split's questions, sorted.
    pub fn db_ids(&self) -> Vec<String> {
        let set: BTreeSet<&str> = self.questions.iter().map(|q| q.db_id.as_str()).collect();
        set.into_iter().map(str::to_string).collect()
    }

    /// Every folder under `database_dir` holding `<id>/<id>.sqlite`, sorted.
    pub fn all_database_ids(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(&self.database_dir) else {
            return Vec::new();
        };
        let mut ids: Vec<String> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|id| crate::db_id_problem(id).is_none() && self.db_exists(id))
            .collect();
        ids.sort();
        ids
    }
}

/// Loads `split` of the benchmark at `root`, detecting the layout:
///
/// 1. `<split>.json` (Spider's `train` split: `train_spider.json` first):
///    entries with `SQL` are BIRD (databases in `<split>_databases/`),
///    entries with `query` are Spider (databases in `database/`);
/// 2. `<split>_gold.sql` (Spider, `SQL<TAB>db_id` a line);
/// 3. `<split>.jsonl` (databases in `database/`).
///
/// The Spider layouts also need `tables.json` (schemas and keys), which is
/// read and checked; a folder that does not exist is said to be missing.
pub fn load_benchmark(root: &Path, split: &str) -> Result<Benchmark, BenchError> {
    if !root.is_dir() {
        return Err(BenchError::MissingFolder {
            root: root.to_path_buf(),
        });
    }
    let mut json_candidates = Vec::new();
    if split == "train" {
        json_candidates.push(root.join("train_spider.json"));
    }
    json_candidates.push(root.join(format!("{split}.json")));
    // BIRD mini-dev: one gold file per dialect, the SQLite one first.
    json_candidates.push(root.join(format!("{split}_sqlite.json")));
    let bench = |format, source_file: PathBuf, questions, database_dir| Benchmark {
        root: root.to_path_buf(),
        split: split.to_string(),
        format,
        source_file,
        questions,
        database_dir,
        gold_sources: BTreeMap::new(),
        namespace_prefix: sqlwitness_core::DEFAULT_NAMESPACE_PREFIX.to_string(),
        allow_outside_links: false,
        warnings: Vec::new(),
    };
    if let Some(path) = json_candidates.into_iter().find(|p| p.is_file()) {
        let (questions, is_bird, warnings) = crate::spider::read_questions(&path)?;
        if is_bird {
            let mut questions = questions;
            let sources = crate::bird::dialect_golds(root, split, &mut questions)?;
            let own = root.join(format!("{split}_databases"));
            let dir = if own.is_dir() {
                own
            } else {
                root.join("dev_databases")
            };
            let mut b = bench(BenchmarkFormat::Bird, path, questions, dir);
            b.gold_sources = sources;
            b.warnings = warnings;
            return Ok(b);
        }
        require_tables_json(root)?;
        let dir = root.join("database");
        let mut b = bench(BenchmarkFormat::SpiderJson, path, questions, dir);
        b.warnings = warnings;
        return Ok(b);
    }
    let gold = root.join(format!("{split}_gold.sql"));
    if gold.is_file() {
        let questions = crate::spider::load_gold_sql(&gold)?;
        require_tables_json(root)?;
        let dir = root.join("database");
        return Ok(bench(BenchmarkFormat::SpiderGoldSql, gold, questions, dir));
    }
    let jsonl = root.join(format!("{split}.jsonl"));
    if jsonl.is_file() {
        let questions = crate::jsonl::load_jsonl(&jsonl)?;
        let dir = root.join("database");
        let mut b = bench(BenchmarkFormat::Jsonl, jsonl.clone(), questions, dir);
        for q in &b.questions {
            for kind in q.golds.keys() {
                b.gold_sources
                    .entry(*kind)
                    .or_insert_with(|| format!("gold_{kind} in {}", jsonl.display()));
            }
        }
        return Ok(b);
    }
    Err(BenchError::Layout {
        root: root.to_path_buf(),
        split: split.to_string(),
        message: format!(
            "expected one of {split}.json, {split}_sqlite.json, {split}_gold.sql, {split}.jsonl{}",
            if split == "train" {
                ", train_spider.json"
            } else {
                ""
            }
        ),
    })
}

/// A Spider layout's `tables.json`: present and well formed.
fn require_tables_json(root: &Path) -> Result<(), BenchError> {
    let path = root.join("tables.json");
    if !path.is_file() {
        return Err(BenchError::MissingFile {
            path,
            why: "the Spider layout needs tables.json: the schema and keys of every database"
                .into(),
        });
    }
    crate::tables::load_tables_json(&path).map(|_| ())
}

/// What is wrong with the SQLite file at `path` from its size and its
/// 100-byte header alone (`None`: nothing): empty, no SQLite header, or
/// shorter than the database size its header states (when SQLite itself
/// trusts that size: the change counter matches the version-valid-for
/// number).
pub fn sqlite_file_problem(path: &Path) -> Option<String> {
    use std::io::Read;
    let shown = path.display();
    let len = match std::fs::metadata(path) {
        Ok(m) => m.len(),
        Err(e) => return Some(format!("{shown}: cannot read: {e}")),
    };
    // A write-ahead log beside the file holds pages too (all of them, for
    // a database never checkpointed): SQLite alone can judge the pair.
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
        return None;
    }
    if len == 0 {
        return Some(format!(
            "{shown} is empty (0 bytes): not a database (a failed download?)"
        ));
    }
    let mut header = [0u8; 100];
    let read = std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut header));
    match read {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            return Some(format!(
                "{shown}: {len} bytes, shorter than a SQLite header: not a database"
            ))
        }
        Err(e) => return Some(format!("{shown}: cannot read: {e}")),
    }
    if &header[..16] != b"SQLite format 3\0" {
        return Some(format!("{shown}: no SQLite header: not a SQLite database"));
    }
    let be32 = |at: usize| {
        u32::from_be_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
    };
    let page_size = match u16::from_be_bytes([header[16], header[17]]) {
        1 => 65_536u64,
        n => u64::from(n),
    };
    let pages = u64::from(be32(28));
    let trusted = pages > 0 && be32(24) == be32(92);
    if trusted && page_size.is_power_of_two() && page_size >= 512 && pages * page_size > len {
        return Some(format!(
            "{shown} is truncated: its header states {pages} pages of {page_size} bytes \
             ({} bytes), the file has {len}",
            pages * page_size
        ));
    }
    None
}

/// A UTF-8 byte order mark, which some editors write at the start of a
/// file; Python's `utf-8-sig` reading skips it, and so does sqlwitness.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The file's bytes, without a leading UTF-8 byte order mark: a regular
/// file of at most [`sqlwitness_core::input::BENCHMARK_FILE`]'s size.
fn read_without_bom(path: &Path) -> Result<Vec<u8>, BenchError> {
    let mut bytes = sqlwitness_core::read_input(path, sqlwitness_core::input::BENCHMARK_FILE)
        .map_err(|e| BenchError::io(path, e))?;
    if bytes.starts_with(BOM) {
        bytes.drain(..BOM.len());
    }
    Ok(bytes)
}

/// The file's text (a leading byte order mark skipped); invalid UTF-8 is an
/// error naming the line and column.
pub(crate) fn read_text(path: &Path) -> Result<String, BenchError> {
    let bytes = read_without_bom(path)?;
    String::from_utf8(bytes).map_err(|e| {
        let (line, column) = line_column(e.as_bytes(), e.utf8_error().valid_up_to());
        BenchError::format(
            path,
            format!("line {line} column {column}"),
            "invalid UTF-8",
        )
    })
}

/// The text of a file whose lines are read one by one (predictions): a
/// line holding invalid UTF-8 is decoded with U+FFFD replacements and
/// listed, 1-based, with the byte offset of its first bad byte in the line,
/// so that the line alone is that question's problem.
pub(crate) fn read_lines_lossy(path: &Path) -> Result<(String, Vec<(usize, usize)>), BenchError> {
    let bytes = read_without_bom(path)?;
    if let Ok(text) = std::str::from_utf8(&bytes) {
        return Ok((text.to_string(), Vec::new()));
    }
    let mut text = String::with_capacity(bytes.len());
    let mut bad = Vec::new();
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if n > 0 {
            text.push('\n');
        }
        match std::str::from_utf8(line) {
            Ok(l) => text.push_str(l),
            Err(e) => {
                bad.push((n + 1, e.valid_up_to()));
                text.push_str(&String::from_utf8_lossy(line));
            }
        }
    }
    Ok((text, bad))
}

/// 1-based line and column (in bytes) of byte `offset`.
fn line_column(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::sqlite_file_problem;

    #[test]
    fn a_file_is_judged_by_its_size_and_header() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("a.sqlite");
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "CREATE TABLE t (x TEXT);
             WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999)
             INSERT INTO t SELECT printf('%.100c', 'x') FROM n;",
        )
        .unwrap();
        drop(conn);
        assert_eq!(sqlite_file_problem(&db), None);
        let bytes = std::fs::read(&db).unwrap();
        let at = |name: &str, content: &[u8]| {
            let p = dir.path().join(name);
            std::fs::write(&p, content).unwrap();
            sqlite_file_problem(&p).unwrap_or_default()
        };
        assert!(at("zero.sqlite", b"").contains("empty (0 bytes)"));
        assert!(at("short.sqlite", &bytes[..50]).contains("shorter than a SQLite header"));
        assert!(at("text.sqlite", &[b'x'; 4096]).contains("no SQLite header"));
        assert!(at("half.sqlite", &bytes[..bytes.len() / 2]).contains("truncated"));
        // A size the header does not vouch for (the change counter differs
        // from the version-valid-for number): SQLite sizes the file by its
        // length, and so does this check.
        let mut cut = bytes[..bytes.len() / 2].to_vec();
        cut[92..96].copy_from_slice(&[1, 2, 3, 4]);
        assert_eq!(at("untrusted.sqlite", &cut), "");
        // An empty file beside a write-ahead log is for SQLite to judge.
        std::fs::write(dir.path().join("wal.sqlite-wal"), b"frames").unwrap();
        assert_eq!(at("wal.sqlite", b""), "");
    }
}
