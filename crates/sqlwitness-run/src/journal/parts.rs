//! The journals of a partitioned run's parts, checked to be the parts of
//! one run, read together (`merge`).

use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::path::PathBuf;

use super::{read_journal_with, Header, JOURNAL_FILE};
use crate::journal_key::KeyStore;
use crate::RunError;

/// The journals of partition outputs, checked to be the parts of one run:
/// same command, settings, inputs and servers, partitions `1..=N` each
/// once, every journal verified with the environment's keys. Returns the
/// first part's header (partition and key removed) and every part's
/// records.
pub fn read_parts<R: DeserializeOwned>(dirs: &[PathBuf]) -> Result<(Header, Vec<R>), RunError> {
    read_parts_with(dirs, &KeyStore::from_env())
}

/// [`read_parts`] with the keys of `keys`.
pub fn read_parts_with<R: DeserializeOwned>(
    dirs: &[PathBuf],
    keys: &KeyStore,
) -> Result<(Header, Vec<R>), RunError> {
    if dirs.is_empty() {
        return Err(RunError::BadInput("merge: no part folders given".into()));
    }
    let mut first: Option<(PathBuf, Header)> = None;
    let mut seen: BTreeMap<usize, PathBuf> = BTreeMap::new();
    let mut all = Vec::new();
    let mut n_parts = None;
    let mut extras = Vec::new();
    for dir in dirs {
        let path = dir.join(JOURNAL_FILE);
        if !path.is_file() {
            return Err(RunError::BadInput(format!(
                "merge: {} has no {JOURNAL_FILE} (not the output of a partitioned run)",
                dir.display()
            )));
        }
        let (header, records, _) = read_journal_with::<R>(&path, keys)?;
        let p = header.partition.ok_or_else(|| {
            RunError::BadInput(format!(
                "merge: {} is not a partition (run with --partition K/N)",
                path.display()
            ))
        })?;
        if let Some(n) = n_parts {
            if n != p.n {
                return Err(RunError::BadInput(format!(
                    "merge: {} is part {p} of another split ({n} parts elsewhere)",
                    path.display()
                )));
            }
        }
        n_parts = Some(p.n);
        if let Some(other) = seen.insert(p.k, dir.clone()) {
            return Err(RunError::BadInput(format!(
                "merge: part {p} given twice ({} and {})",
                other.display(),
                dir.display()
            )));
        }
        if let Some((fpath, fh)) = &first {
            let diffs = fh.differences(&header, false);
            if !diffs.is_empty() {
                return Err(RunError::BadInput(format!(
                    "merge: {} and {} are parts of different runs ({})",
                    fpath.display(),
                    path.display(),
                    diffs.join("; ")
                )));
            }
        } else {
            first = Some((path.clone(), header.clone()));
        }
        extras.push(header.extra);
        all.extend(records);
    }
    let n = n_parts.unwrap_or(0);
    let missing: Vec<String> = (1..=n)
        .filter(|k| !seen.contains_key(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(RunError::BadInput(format!(
            "merge: parts missing: {}",
            missing.join(", ")
        )));
    }
    let (_, mut header) = first.expect("at least one part");
    header.partition = None;
    header.key = None;
    header.extra = serde_json::Value::Array(extras);
    Ok((header, all))
}

/// The parts of one run as `merge` takes them: their records and each
/// part's run information (the headers' `extra`), after checking that the
/// run `ours` builds from the first part's run information — this plan and
/// these inputs — is theirs (servers are taken from the parts).
pub fn merge_parts<R, I, E>(
    parts: &[PathBuf],
    ours: impl FnOnce(&I) -> Result<Header, E>,
) -> Result<(Vec<R>, Vec<I>), E>
where
    R: DeserializeOwned,
    I: DeserializeOwned + Clone,
    E: From<RunError>,
{
    let (theirs, records) = read_parts::<R>(parts)?;
    let runs: Vec<I> = match &theirs.extra {
        serde_json::Value::Array(v) => v
            .iter()
            .map(|r| serde_json::from_value(r.clone()))
            .collect::<Result<_, _>>()
            .map_err(|e| RunError::BadInput(format!("merge: a journal's run information: {e}")))?,
        _ => Vec::new(),
    };
    let first = runs
        .first()
        .ok_or_else(|| RunError::BadInput("merge: the journals hold no run information".into()))?;
    let mut ours = ours(first)?;
    ours.servers = theirs.servers.clone();
    let diffs = theirs.differences(&ours, false);
    if !diffs.is_empty() {
        return Err(RunError::BadInput(format!(
            "merge: the parts were not run with this plan and these inputs ({})",
            diffs.join("; ")
        ))
        .into());
    }
    Ok((records, runs))
}
