//! Reading a journal back: every line verified against its key and the
//! chain before anything is trusted.

use serde::de::DeserializeOwned;
use std::path::Path;

use super::{header_mac, record_mac, unseal, Header, JOURNAL_FORMAT};
use crate::journal_key::{same_mac, Key, KeySource, KeyStore};
use crate::RunError;

/// Reads a journal, verified with the environment's keys
/// ([`KeyStore::from_env`]): the header, the records, and the length of the
/// part that parsed (a torn last line is left out). A bad line elsewhere,
/// or a line that does not verify, is an error naming the file and the
/// line.
pub fn read_journal<R: DeserializeOwned>(path: &Path) -> Result<(Header, Vec<R>, u64), RunError> {
    read_journal_with(path, &KeyStore::from_env())
}

/// [`read_journal`] with the keys of `keys`.
pub fn read_journal_with<R: DeserializeOwned>(
    path: &Path,
    keys: &KeyStore,
) -> Result<(Header, Vec<R>, u64), RunError> {
    let s = read_sealed::<R>(path, keys)?.ok_or_else(|| {
        RunError::BadInput(format!("{}: the journal has no header", path.display()))
    })?;
    Ok((s.header, s.records, s.good_len))
}

/// A journal read and verified.
pub(super) struct Sealed<R> {
    pub header: Header,
    pub records: Vec<R>,
    pub good_len: u64,
    pub key: Key,
    /// The MAC of the last line kept.
    pub last: [u8; 32],
}

/// "start again" for a journal that cannot be trusted or read.
const START_AGAIN: &str = "start again: rerun without --resume (every part, for a partitioned run)";

/// The journal at `path`, verified; `None` when its header was never
/// finished (the journal holds nothing).
pub(super) fn read_sealed<R: DeserializeOwned>(
    path: &Path,
    keys: &KeyStore,
) -> Result<Option<Sealed<R>>, RunError> {
    let shown = path.display();
    let text = sqlwitness_core::read_input_to_string(path, sqlwitness_core::input::JOURNAL_FILE)
        .map_err(|e| {
            if sqlwitness_core::input::is_refused(&e) {
                RunError::BadInput(format!("{shown}: {e}"))
            } else {
                RunError::io(format!("reading {shown}"), e)
            }
        })?;
    let mut records = Vec::new();
    let mut header: Option<(Header, Key)> = None;
    let mut last = [0u8; 32];
    let mut offset = 0usize;
    let mut good = 0usize;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    for (i, raw) in lines.iter().enumerate() {
        offset += raw.len();
        let last_line = i + 1 == lines.len();
        // A line is finished by its newline (one write puts both): a last
        // line without one was cut short, even where it parses.
        if last_line && !raw.ends_with('\n') {
            break;
        }
        let line = raw.trim_end_matches('\n');
        if line.trim().is_empty() {
            good = offset;
            continue;
        }
        let place = format!("{shown} line {}", i + 1);
        match &header {
            None => {
                let (h, key, mac) = read_header(line, &place, path, keys)?;
                header = Some((h, key));
                last = mac;
            }
            Some((_, key)) => {
                let bad = |what: String| {
                    RunError::BadInput(format!("{place}: not a journal record: {what}"))
                };
                let (mac, json) =
                    unseal(line, "record").ok_or_else(|| bad("no MAC".to_string()))?;
                let n = records.len() as u64 + 1;
                if !same_mac(&mac, &record_mac(key, &last, n, json)) {
                    return Err(RunError::BadInput(format!(
                        "{place}: the record does not verify: it was edited, moved or taken \
                         from another journal, or a record before it was removed; the journal \
                         cannot be trusted: {START_AGAIN}"
                    )));
                }
                records.push(serde_json::from_str::<R>(json).map_err(|e| bad(e.to_string()))?);
                last = mac;
            }
        }
        good = offset;
    }
    Ok(header.map(|(header, key)| Sealed {
        header,
        records,
        good_len: good as u64,
        key,
        last,
    }))
}

/// The header line: its format checked first (another format's header has
/// other fields), then its key found and its MAC verified.
fn read_header(
    line: &str,
    place: &str,
    path: &Path,
    keys: &KeyStore,
) -> Result<(Header, Key, [u8; 32]), RunError> {
    let shown = path.display();
    let bad = |what: String| RunError::BadInput(format!("{place}: not a journal header: {what}"));
    let Some((mac, json)) = unseal(line, "header") else {
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
        return Err(match v.get("journal").and_then(serde_json::Value::as_u64) {
            Some(n) => RunError::BadInput(format!(
                "{shown}: journal format {n}, written by an earlier sqlwitness without MACs: \
                 its records cannot be verified; {START_AGAIN}"
            )),
            None => bad("no MAC".into()),
        });
    };
    let v: serde_json::Value = serde_json::from_str(json).map_err(|e| bad(e.to_string()))?;
    if let Some(n) = v
        .get("journal")
        .and_then(serde_json::Value::as_u64)
        .filter(|&n| n != u64::from(JOURNAL_FORMAT))
    {
        return Err(RunError::BadInput(format!(
            "{shown}: journal format {n}, this sqlwitness reads format {JOURNAL_FORMAT}; \
             {START_AGAIN}"
        )));
    }
    let header: Header = serde_json::from_value(v).map_err(|e| bad(e.to_string()))?;
    let key_ref = header
        .key
        .clone()
        .ok_or_else(|| bad("it names no key".into()))?;
    let key = keys.load(&key_ref, path)?;
    if !same_mac(&mac, &header_mac(&key, json)) {
        return Err(RunError::BadInput(format!(
            "{place}: the header does not verify with its key: it was edited or taken from \
             another journal{}; the journal cannot be trusted: {START_AGAIN}",
            if key_ref.source == KeySource::Shared {
                " (or SQLWITNESS_JOURNAL_KEY is not the secret it was written with)"
            } else {
                ""
            }
        )));
    }
    Ok((header, key, mac))
}
