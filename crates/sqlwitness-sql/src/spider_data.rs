//! Test helper: the Spider dev gold file, when it is present.

use std::path::PathBuf;

/// The directory of the Spider data: `$SQLWITNESS_SPIDER_DIR`, else
/// `/work/shared/data/spider`.
pub(crate) fn spider_dir() -> PathBuf {
    std::env::var_os("SQLWITNESS_SPIDER_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/data/spider"))
}

/// `(sql, db_id)` for every line of `dev_gold.sql`, or `None` (after saying
/// SKIPPED) when the file is missing.
pub(crate) fn dev_gold() -> Option<Vec<(String, String)>> {
    let path = spider_dir().join("dev_gold.sql");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("SKIPPED ({} not found)", path.display());
        return None;
    };
    Some(
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| match l.rsplit_once('\t') {
                Some((sql, db)) => (sql.to_string(), db.to_string()),
                None => (l.to_string(), String::new()),
            })
            .collect(),
    )
}
