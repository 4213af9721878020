//! A `db_id` is a name, never a path: the database's folder and file
//! (`database/<db_id>/<db_id>.sqlite`), its migration log
//! (`<log-dir>/<engine>/<db_id>.json`) and its namespace on a server are all
//! made from it, so a benchmark file must not be able to point any of them
//! elsewhere.

use std::path::Path;

use crate::BenchError;

/// Why `db_id` cannot name a database (`None`: it can). Refused: the empty
/// name, `.` and `..`, a path separator (`/`, `\`), NUL and every other
/// control character.
pub fn db_id_problem(db_id: &str) -> Option<String> {
    if db_id.is_empty() {
        return Some("empty db_id".into());
    }
    if db_id == "." || db_id == ".." {
        return Some(format!("db_id `{db_id}` is a path, not a database name"));
    }
    if db_id.contains(['/', '\\']) {
        return Some(format!(
            "db_id {db_id:?} contains a path separator: a db_id is a database name, not a path"
        ));
    }
    if let Some(c) = db_id.chars().find(|c| c.is_control()) {
        return Some(format!(
            "db_id {db_id:?} contains the control character U+{:04X}",
            u32::from(c)
        ));
    }
    None
}

/// [`db_id_problem`] as the error of the benchmark file `path` at `place`.
pub(crate) fn check_db_id(path: &Path, place: &str, db_id: &str) -> Result<(), BenchError> {
    match db_id_problem(db_id) {
        None => Ok(()),
        Some(problem) => Err(BenchError::format(path, place, problem)),
    }
}

/// The place of a question's entry for a message: `entry` (`[3].db_id`,
/// `line 4: db_id`) and its question, cut to 60 characters.
pub(crate) fn entry_place(entry: String, question: Option<&str>) -> String {
    match question {
        Some(q) if !q.is_empty() => {
            let mut cut: String = q.chars().take(60).collect();
            if cut.len() < q.len() {
                cut.push('…');
            }
            format!("{entry} (question {cut:?})")
        }
        _ => entry,
    }
}

#[cfg(test)]
mod tests {
    use super::db_id_problem;

    #[test]
    fn names_pass_and_paths_do_not() {
        for ok in [
            "concert_singer",
            "world_1",
            "a b",
            "Ünïcödé",
            "x.y",
            "...",
            "a..b",
            "it's",
            "`;%_",
        ] {
            assert_eq!(db_id_problem(ok), None, "{ok}");
        }
        for bad in [
            "",
            ".",
            "..",
            "/tmp/x/escape_abs",
            "../../../../tmp/x/escape_rel",
            "a/b",
            "a\\b",
            "..\\x",
            "nul\0byte",
            "tab\there",
            "line\nbreak",
            "del\u{7f}",
            "c1\u{85}",
        ] {
            assert!(db_id_problem(bad).is_some(), "{bad:?}");
        }
        assert_eq!(db_id_problem("").unwrap(), "empty db_id");
    }
}
