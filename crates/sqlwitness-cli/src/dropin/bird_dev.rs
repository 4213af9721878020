//! BIRD dev's command line (`evaluation.py` and `evaluation_ves.py` of the
//! BIRD dev release, `--data_mode dev`): its three paths are text prefixes.
//! The script reads the predictions from `<--predicted_sql_path>predict_<--data_mode>.json`,
//! the gold from `<--ground_truth_path><--data_mode>_gold.sql` and each
//! database from `<--db_root_path><db_id>/<db_id>.sqlite`, the flag's text
//! and the name joined with nothing between: `./data/` reads
//! `./data/dev_gold.sql`, `./data` reads `./datadev_gold.sql`. The files
//! are built here as the script builds them, and one that is not there is
//! refused naming the path built (exit 2).

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

use super::inputs::{self, Flags};
use super::BirdEvalArgs;
use crate::exit::BadInput;

/// The files BIRD dev's command line names, as its script builds them.
pub(super) struct DevFiles {
    /// The predictions, BIRD's JSON (with `--mode_predict gt`, the gold of
    /// `--predicted_sql_path` rewritten as such in `_converted`).
    pub pred: PathBuf,
    pub gold: PathBuf,
    /// The folder of the databases.
    pub db_dir: PathBuf,
    /// How many gold queries `gold` holds.
    pub golds: usize,
    _converted: Option<tempfile::TempDir>,
}

/// The prediction file of `--mode_predict gt`: the gold file, read as the
/// predictions.
const GOLD_AS_PRED: Flags = Flags {
    gold: "--predicted_sql_path",
    pred: "--ground_truth_path",
    db: "--db_root_path",
};

/// `prefix` followed by `name`, as the script's `+` joins them.
fn prefixed(prefix: &Path, name: &str) -> PathBuf {
    let mut text = prefix.as_os_str().to_os_string();
    text.push(name);
    PathBuf::from(text)
}

/// `prefix` followed by `name` when that is a file; otherwise a refusal
/// naming the path built, with a hint when the prefix lacks its `/`.
fn existing(flag: &str, prefix: &Path, name: &str) -> Result<PathBuf> {
    let built = prefixed(prefix, name);
    if built.is_file() {
        return Ok(built);
    }
    let in_folder = prefix.join(name);
    let hint = if !prefix.as_os_str().is_empty()
        && !prefix.to_string_lossy().ends_with('/')
        && in_folder.is_file()
    {
        format!(
            "; {} exists: end the folder with `/` ({flag} {}/), as the script puts nothing \
             between the folder and the name",
            in_folder.display(),
            prefix.display()
        )
    } else {
        String::new()
    };
    bail!(BadInput(format!(
        "{flag} {}: BIRD dev's evaluation script reads {} (the flag's text followed by \
         `{name}`), which is not a file{hint}",
        prefix.display(),
        built.display()
    )))
}

/// The files of `a`'s BIRD dev command line (`--data_mode data_mode`),
/// each checked as the script would stop on it.
pub(super) fn dev_files(a: &BirdEvalArgs, data_mode: &str) -> Result<DevFiles> {
    let flags = &inputs::BIRD;
    let gpt = a.mode_predict.as_deref().unwrap_or("gpt") == "gpt";
    let pred_name = if gpt {
        format!("predict_{data_mode}.json")
    } else {
        format!("{data_mode}_gold.sql")
    };
    let pred = existing(flags.pred, &a.predicted_sql_path, &pred_name)?;
    let gold = existing(
        flags.gold,
        &a.ground_truth_path,
        &format!("{data_mode}_gold.sql"),
    )?;
    let db_ids = inputs::read_gold(flags, &gold, &pred)?;
    let golds = db_ids.len();
    let (pred, converted) = if gpt {
        inputs::check_bird_predictions(flags, &pred, &gold, golds)?;
        (pred, None)
    } else {
        let (json, dir) = gold_as_predictions(&pred, &gold, &db_ids)?;
        (json, Some(dir))
    };
    let db_dir = db_folder(&a.db_root_path, &db_ids[0])?;
    Ok(DevFiles {
        pred,
        gold,
        db_dir,
        golds,
        _converted: converted,
    })
}

/// The folder `--db_root_path` names when the script's
/// `<root><db_id>/<db_id>.sqlite` is a path in it: the text empty (the
/// working folder) or ending with `/`. Otherwise a refusal naming the path
/// the script would open for `first_db`.
fn db_folder(root: &Path, first_db: &str) -> Result<PathBuf> {
    if root.as_os_str().is_empty() {
        return Ok(PathBuf::from("."));
    }
    if root.to_string_lossy().ends_with('/') {
        return Ok(root.to_path_buf());
    }
    let built = prefixed(root, &format!("{first_db}/{first_db}.sqlite"));
    bail!(BadInput(format!(
        "--db_root_path {}: BIRD dev's evaluation script opens the flag's text followed by \
         `<db_id>/<db_id>.sqlite`, here {} for the first question{}; end the folder with `/` \
         (--db_root_path {}/)",
        root.display(),
        built.display(),
        if built.is_file() {
            ""
        } else {
            ", which is not a file"
        },
        root.display()
    )))
}

/// `--mode_predict gt`: the gold file `pred` (`SQL<TAB>db_id` a line) as
/// BIRD's JSON predictions in a temporary folder, after the checks the
/// JSON would have had: as many queries as `gold`, each on its gold's
/// database (the script runs both on the prediction's).
fn gold_as_predictions(
    pred: &Path,
    gold: &Path,
    gold_dbs: &[String],
) -> Result<(PathBuf, tempfile::TempDir)> {
    let pred_dbs = inputs::read_gold(&GOLD_AS_PRED, pred, gold)?;
    if pred_dbs.len() != gold_dbs.len() {
        bail!(BadInput(format!(
            "--predicted_sql_path {} holds {} predictions but --ground_truth_path {} holds {} \
             gold queries: the counts must be equal (the official evaluator pairs them by \
             position)",
            pred.display(),
            pred_dbs.len(),
            gold.display(),
            gold_dbs.len()
        )));
    }
    if let Some(i) = pred_dbs.iter().zip(gold_dbs).position(|(p, g)| p != g) {
        bail!(BadInput(format!(
            "--predicted_sql_path {}: query {} is on `{}` but the gold's on `{}`: the script \
             runs both on the prediction's database; sqlwitness scores a prediction on its \
             gold's",
            pred.display(),
            i + 1,
            pred_dbs[i],
            gold_dbs[i]
        )));
    }
    let text = inputs::read_text(GOLD_AS_PRED.gold, pred)?;
    let entries: serde_json::Map<String, serde_json::Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| l.trim().rsplit_once('\t'))
        .enumerate()
        .map(|(i, (sql, db))| {
            let entry = format!("{sql}\t----- bird -----\t{}", db.trim());
            (i.to_string(), entry.into())
        })
        .collect();
    let dir = tempfile::Builder::new()
        .prefix("sqlwitness-dropin-")
        .tempdir()
        .context("creating a temporary folder")?;
    let json = dir.path().join("predict.json");
    std::fs::write(&json, serde_json::to_string(&entries)?)
        .with_context(|| format!("writing {}", json.display()))?;
    Ok((json, dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_and_a_name_join_with_nothing_between() {
        assert_eq!(
            prefixed(Path::new("./data/"), "dev_gold.sql"),
            PathBuf::from("./data/dev_gold.sql")
        );
        assert_eq!(
            prefixed(Path::new("./data"), "dev_gold.sql"),
            PathBuf::from("./datadev_gold.sql")
        );
        assert_eq!(
            prefixed(Path::new(""), "predict_dev.json"),
            PathBuf::from("predict_dev.json")
        );
    }

    #[test]
    fn a_database_root_without_its_slash_is_refused_naming_the_path() {
        assert_eq!(
            db_folder(Path::new("dbs/"), "club").unwrap(),
            PathBuf::from("dbs/")
        );
        assert_eq!(
            db_folder(Path::new(""), "club").unwrap(),
            PathBuf::from(".")
        );
        let e = db_folder(Path::new("dbs"), "club").unwrap_err().to_string();
        assert!(e.contains("dbsclub/club.sqlite"), "{e}");
    }
}
