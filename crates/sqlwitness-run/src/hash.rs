//! The hashes a journal's header keeps of a run's inputs: over content,
//! not paths, so that a run continues from another folder and a changed
//! input is named.

use sha2::{Digest, Sha256};
use std::path::Path;

use crate::journal_key::hex;
use crate::{Header, RunError, JOURNAL_FILE};

/// SHA-256 (hex) of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(bytes);
    hex(&h.finalize())
}

/// SHA-256 (hex) of a file's bytes, read as a stream (a regular file
/// only).
pub fn file_sha256(path: &Path) -> Result<String, RunError> {
    let mut h = Sha256::new();
    hash_file(&mut h, path)?;
    Ok(hex(&h.finalize()))
}

/// Feeds the bytes of the regular file at `path` to `h`; returns how many.
fn hash_file(h: &mut Sha256, path: &Path) -> Result<u64, RunError> {
    let read = |e| RunError::io(format!("reading {}", path.display()), e);
    let mut f = sqlwitness_core::open_input(path).map_err(read)?;
    std::io::copy(&mut f, h).map_err(read)
}

/// SHA-256 (hex) over every file under `dir` (names and bytes, in name
/// order), the journal of the run that wrote it left out.
pub fn dir_sha256(dir: &Path) -> Result<String, RunError> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d)
            .map_err(|e| RunError::io(format!("reading {}", d.display()), e))?;
        for entry in entries {
            let p = entry
                .map_err(|e| RunError::io(format!("reading {}", d.display()), e))?
                .path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n != JOURNAL_FILE) {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut h = Sha256::new();
    for f in files {
        let rel = f.strip_prefix(dir).unwrap_or(&f);
        h.update(rel.to_string_lossy().as_bytes());
        h.update([0]);
        let len = std::fs::metadata(&f)
            .map_err(|e| RunError::io(format!("reading {}", f.display()), e))?
            .len();
        h.update(len.to_le_bytes());
        hash_file(&mut h, &f)?;
    }
    Ok(hex(&h.finalize()))
}

/// Hashes of the questions (every field a verdict depends on) and the
/// content fingerprint of the SQLite file of every database `selected`
/// uses, into `h.inputs`. A fingerprint is read in a stream and cached by
/// the file's identity in `cache` (see `sqlwitness_migrate::cache_dir`), so
/// a resumed or repeated run does not read its databases again.
pub fn hash_inputs(
    h: &mut Header,
    bench: &sqlwitness_bench::Benchmark,
    selected: &[usize],
    cache: Option<&Path>,
) -> Result<(), RunError> {
    let cache = sqlwitness_migrate::cache_dir(cache);
    let mut q = String::new();
    for question in &bench.questions {
        q.push_str(&format!(
            "{}\u{1}{}\u{1}{}\u{1}{}\u{1}{:?}\u{1}{:?}",
            question.id,
            question.db_id,
            question.question,
            question.gold,
            question.golds,
            question.evidence
        ));
        // Alternatives only when there are some: a single-gold benchmark
        // hashes as before, so its journals still resume.
        if !question.alternatives.is_empty() {
            q.push_str(&format!("\u{1}{:?}", question.alternatives));
        }
        q.push('\u{2}');
    }
    h.inputs
        .insert("questions".into(), sha256_hex(q.as_bytes()));
    let mut dbs: Vec<&str> = selected
        .iter()
        .map(|&i| bench.questions[i].db_id.as_str())
        .collect();
    dbs.sort_unstable();
    dbs.dedup();
    for db in dbs {
        let path = bench.sqlite_path(db);
        // An unreadable file is hashed as such: its questions' verdicts say
        // why, and a resumed run must see the same state.
        let hash = if path.is_file() {
            sqlwitness_migrate::source_fingerprint(&path, cache.as_deref())
                .unwrap_or_else(|e| format!("unreadable: {e}"))
        } else {
            "missing".into()
        };
        h.inputs.insert(format!("database {db}"), hash);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlwitness_bench::{Benchmark, BenchmarkFormat, Question};

    fn questions_hash(alternatives: Vec<String>) -> String {
        let bench = Benchmark {
            root: "b".into(),
            split: "dev".into(),
            format: BenchmarkFormat::Jsonl,
            source_file: "b/dev.jsonl".into(),
            questions: vec![Question {
                db_id: "a".into(),
                gold: "SELECT 1".into(),
                alternatives,
                ..Question::default()
            }],
            database_dir: "b/database".into(),
            gold_sources: Default::default(),
            namespace_prefix: "sw_".into(),
            allow_outside_links: false,
            warnings: Vec::new(),
        };
        let spec = crate::spec::tests::eval_spec();
        let mut h = Header::new(crate::RunSpec::Eval(spec), None);
        hash_inputs(&mut h, &bench, &[], None).unwrap();
        h.inputs["questions"].clone()
    }

    #[test]
    fn the_questions_hash_covers_the_accepted_golds() {
        let one = questions_hash(Vec::new());
        let two = questions_hash(vec!["SELECT 2".into()]);
        let other = questions_hash(vec!["SELECT 3".into()]);
        assert_ne!(one, two);
        assert_ne!(two, other);
    }
}
