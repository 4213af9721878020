//! The journal of a run: `journal.jsonl` in the output folder, append-only.
//! Its first line is the [`Header`]: the run's plan (a [`RunSpec`]), the
//! hashes of its inputs and the servers it ran on; every
//! further line is one finished unit of work (eval: a question with every
//! engine's outcome; audit: a question's findings; fuzz: a database's
//! suite), written with one `write` as soon as it is done, so a killed
//! process loses at most the units in flight. `--resume` reads it back and
//! runs only what is missing; `merge` reads the journals of partitions.
//!
//! A torn last line (the process died inside the write) is dropped and cut
//! off before appending. A journal written by another plan, other inputs or
//! other servers is refused, naming every difference.
//!
//! Every line is sealed: `{"mac":"<HMAC-SHA256, hex>","header":{…}}`, then
//! `{"mac":"…","record":{…}}`, each MAC over the line's JSON as written,
//! under the journal's own key (kept outside the output folder, see
//! `journal_key.rs`), chained: a record's MAC covers the MAC before it and
//! its position. A journal whose header or any record does not verify —
//! edited, moved, dropped, taken from another journal — is refused, as is a
//! journal of an earlier format, which carries no MACs.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::journal_key::{hex, unhex, Key, KeyRef, KeyStore};
use crate::{Cancel, Partition, RunError, RunSpec};

/// The journal's file name in the output folder.
pub const JOURNAL_FILE: &str = "journal.jsonl";

/// The journal format this build writes and reads. Formats 1 and 2 had no
/// MACs: their records cannot be verified, and [`read_journal`] refuses
/// them.
pub const JOURNAL_FORMAT: u32 = 3;

/// Whether a run keeps a journal and whether it continues one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum JournalMode {
    /// No journal (library callers, tests of other stages).
    #[default]
    Off,
    /// A new journal, replacing any earlier one.
    Fresh,
    /// Continue the journal in the output folder (a new one when there is
    /// none); refused when it belongs to another plan or other inputs.
    Resume,
}

/// The journal's first line: the run's plan ([`RunSpec`]), its partition,
/// the hashes of its inputs and the servers it ran on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// The journal format ([`JOURNAL_FORMAT`]).
    pub journal: u32,
    pub tool_version: String,
    /// What the run computes: `merge` rebuilds the run from it, `--resume`
    /// compares it with the run at hand.
    pub plan: RunSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<Partition>,
    /// SHA-256 of each input by role (`questions`, `predictions`,
    /// `database <db_id>` …), over content, not paths.
    pub inputs: BTreeMap<String, String>,
    /// Each engine's server version.
    pub servers: BTreeMap<String, String>,
    /// Facts of the run the report needs that are not settings (eval: the
    /// report's run information); not compared.
    #[serde(default)]
    pub extra: serde_json::Value,
    /// The key that seals the journal (set when the journal is opened);
    /// not compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<KeyRef>,
}

impl Header {
    pub fn new(plan: RunSpec, partition: Option<Partition>) -> Header {
        Header {
            journal: JOURNAL_FORMAT,
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            plan,
            partition,
            inputs: BTreeMap::new(),
            servers: BTreeMap::new(),
            extra: serde_json::Value::Null,
            key: None,
        }
    }

    /// Every difference between the run of `self` (a journal's) and
    /// `this` (the run at hand), named: the plan's settings field by
    /// field (its files by their contents' hashes), the inputs, the
    /// servers; the partition too unless `same_partition` is false (parts
    /// of one run differ there).
    pub fn differences(&self, this: &Header, same_partition: bool) -> Vec<String> {
        let mut out = Vec::new();
        let mut field = |name: &str, a: &str, b: &str| {
            if a != b {
                out.push(format!("{name}: journal `{a}`, this run `{b}`"));
            }
        };
        field(
            "journal format",
            &self.journal.to_string(),
            &this.journal.to_string(),
        );
        field("command", self.plan.command(), this.plan.command());
        field("sqlwitness version", &self.tool_version, &this.tool_version);
        if same_partition {
            let show = |p: &Option<Partition>| p.map_or("none".to_string(), |p| p.to_string());
            field("partition", &show(&self.partition), &show(&this.partition));
        }
        if self.plan.command() == this.plan.command() {
            let (ours, theirs) = (self.plan.settings(), this.plan.settings());
            compare_maps(&mut out, "setting", &ours, &theirs);
        }
        compare_maps(&mut out, "input", &self.inputs, &this.inputs);
        compare_maps(&mut out, "server", &self.servers, &this.servers);
        out
    }
}

fn compare_maps(
    out: &mut Vec<String>,
    what: &str,
    journal: &BTreeMap<String, String>,
    this: &BTreeMap<String, String>,
) {
    for (k, a) in journal {
        match this.get(k) {
            None => out.push(format!("{what} {k}: only in the journal")),
            Some(b) if a != b => {
                if what == "input" {
                    out.push(format!("{what} {k}: its content differs"));
                } else {
                    out.push(format!("{what} {k}: journal `{a}`, this run `{b}`"));
                }
            }
            Some(_) => {}
        }
    }
    for k in this.keys().filter(|k| !journal.contains_key(*k)) {
        out.push(format!("{what} {k}: only in this run"));
    }
}

/// An open journal: records are appended one `write` each, under a lock,
/// each sealed by a MAC chained from the one before; after
/// [`Journal::stop`] nothing more is written.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: Mutex<Option<Writer>>,
    /// The run's token: once it is cancelled, nothing more is written.
    cancel: Cancel,
}

/// The open file and the chain: the last MAC written and how many records
/// the journal holds.
#[derive(Debug)]
struct Writer {
    file: File,
    key: Key,
    last: [u8; 32],
    count: u64,
}

const HEADER_DOMAIN: &[u8] = b"sqlwitness journal header\0";
const RECORD_DOMAIN: &[u8] = b"sqlwitness journal record\0";

fn header_mac(key: &Key, header: &str) -> [u8; 32] {
    key.mac(&[HEADER_DOMAIN, header.as_bytes()])
}

/// The MAC of record `n` (1-based) after the MAC `last`.
fn record_mac(key: &Key, last: &[u8; 32], n: u64, record: &str) -> [u8; 32] {
    key.mac(&[RECORD_DOMAIN, last, &n.to_le_bytes(), record.as_bytes()])
}

/// `{"mac":"<hex>","<field>":<json>}` and a newline.
fn sealed_line(mac: &[u8; 32], field: &str, json: &str) -> String {
    format!("{{\"mac\":\"{}\",\"{field}\":{json}}}\n", hex(mac))
}

/// The MAC and the JSON of a sealed line, when it has that shape.
fn unseal<'a>(line: &'a str, field: &str) -> Option<([u8; 32], &'a str)> {
    let rest = line.strip_prefix("{\"mac\":\"")?;
    let (mac, rest) = (rest.get(..64)?, rest.get(64..)?);
    let json = rest
        .strip_prefix("\",\"")?
        .strip_prefix(field)?
        .strip_prefix("\":")?
        .strip_suffix('}')?;
    Some((unhex::<32>(mac)?, json))
}

impl Journal {
    /// A journal that writes nothing (`JournalMode::Off`).
    pub fn off() -> Journal {
        Journal {
            path: PathBuf::new(),
            file: Mutex::new(None),
            cancel: Cancel::new(),
        }
    }

    /// Opens the journal of `dir` for the run `header` describes: a new one
    /// (`Fresh`, or `Resume` without a journal), or the existing one after
    /// verifying it and checking that it belongs to this run; returns the
    /// finished records. The keys are the environment's
    /// ([`KeyStore::from_env`]). Once `cancel` is cancelled the journal
    /// writes nothing more.
    pub fn open<R: DeserializeOwned>(
        dir: &Path,
        header: &Header,
        mode: JournalMode,
        cancel: &Cancel,
    ) -> Result<(Journal, Vec<R>), RunError> {
        Journal::open_with(dir, header, mode, &KeyStore::from_env(), cancel)
    }

    /// [`Journal::open`] with the keys of `keys`.
    pub fn open_with<R: DeserializeOwned>(
        dir: &Path,
        header: &Header,
        mode: JournalMode,
        keys: &KeyStore,
        cancel: &Cancel,
    ) -> Result<(Journal, Vec<R>), RunError> {
        if mode == JournalMode::Off {
            return Ok((Journal::off(), Vec::new()));
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| RunError::io(format!("creating {}", dir.display()), e))?;
        let path = dir.join(JOURNAL_FILE);
        // A journal whose header was never finished holds nothing. Its
        // records are read as this run's once its header is found to be
        // this run's (another command's records have other fields).
        let resumed = match mode {
            JournalMode::Resume if std::fs::symlink_metadata(&path).is_ok() => {
                read_sealed::<serde_json::Value>(&path, keys)?
            }
            _ => None,
        };
        let (writer, records) = match resumed {
            Some(sealed) => resume(&path, header, sealed)?,
            None => (start(&path, header, keys)?, Vec::new()),
        };
        Ok((
            Journal {
                path,
                file: Mutex::new(Some(writer)),
                cancel: cancel.clone(),
            },
            records,
        ))
    }

    /// Appends one finished record (one line, one `write`). Nothing after
    /// [`Journal::stop`]: a record finished while the run is being
    /// interrupted may hold the errors of cancelled queries.
    pub fn record<R: Serialize>(&self, record: &R) -> Result<(), RunError> {
        // A journal that writes nothing (off, or stopped) serialises nothing.
        if self
            .file
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_none()
        {
            return Ok(());
        }
        let json = serde_json::to_string(record).expect("a record serializes");
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if self.cancel.is_cancelled() {
            *file = None;
        }
        if let Some(w) = file.as_mut() {
            let n = w.count + 1;
            let mac = record_mac(&w.key, &w.last, n, &json);
            w.file
                .write_all(sealed_line(&mac, "record", &json).as_bytes())
                .map_err(|e| RunError::io(format!("writing {}", self.path.display()), e))?;
            w.last = mac;
            w.count = n;
        }
        Ok(())
    }

    /// Stops the journal: waits for a write in progress, flushes, and
    /// writes nothing more.
    pub fn stop(&self) {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(w) = file.take() {
            let _ = w.file.sync_data();
        }
    }
}

/// Continues the verified journal `sealed` at `path` when it is of the run
/// `header` describes (else an error naming every difference): its records
/// read as `R`, and the writer that appends after them (a torn last line
/// cut off).
fn resume<R: DeserializeOwned>(
    path: &Path,
    header: &Header,
    sealed: Sealed<serde_json::Value>,
) -> Result<(Writer, Vec<R>), RunError> {
    let diffs = sealed.header.differences(header, true);
    if !diffs.is_empty() {
        return Err(RunError::BadInput(format!(
            "--resume: {} was written by another run ({}); remove it or run without \
             --resume",
            path.display(),
            diffs.join("; ")
        )));
    }
    let records = sealed
        .records
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            serde_json::from_value::<R>(v).map_err(|e| {
                RunError::BadInput(format!(
                    "{} line {}: not a journal record: {e}",
                    path.display(),
                    i + 2
                ))
            })
        })
        .collect::<Result<Vec<R>, RunError>>()?;
    let file = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| RunError::io(format!("opening {}", path.display()), e))?;
    // Cut off a torn last line before appending.
    file.set_len(sealed.good_len)
        .map_err(|e| RunError::io(format!("truncating {}", path.display()), e))?;
    drop(file);
    let file = OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(|e| RunError::io(format!("opening {}", path.display()), e))?;
    let writer = Writer {
        file,
        key: sealed.key,
        last: sealed.last,
        count: records.len() as u64,
    };
    Ok((writer, records))
}

/// Starts a new journal at `path` for the run `header` describes, under a
/// new key (the key of a journal it replaces is forgotten): the writer
/// after its sealed header.
fn start(path: &Path, header: &Header, keys: &KeyStore) -> Result<Writer, RunError> {
    forget_key_of(path, keys);
    let (key_ref, key) = keys.create()?;
    let mut header = header.clone();
    header.key = Some(key_ref);
    let json = serde_json::to_string(&header).expect("a header serializes");
    let mac = header_mac(&key, &json);
    let mut file =
        File::create(path).map_err(|e| RunError::io(format!("creating {}", path.display()), e))?;
    file.write_all(sealed_line(&mac, "header", &json).as_bytes())
        .map_err(|e| RunError::io(format!("writing {}", path.display()), e))?;
    Ok(Writer {
        file,
        key,
        last: mac,
        count: 0,
    })
}

/// Forgets the key of the journal at `path`, if there is one with a
/// readable header: a journal being replaced can no longer be resumed.
fn forget_key_of(path: &Path, keys: &KeyStore) {
    let first = first_line(path);
    let old = first.as_deref().map(|l| l.trim_end_matches('\n'));
    if let Some(old) = old.and_then(|l| unseal(l, "header")) {
        if let Ok(h) = serde_json::from_str::<Header>(old.1) {
            if let Some(r) = &h.key {
                keys.forget(r);
            }
        }
    }
}

/// The first line of the journal at `path`, when it has one finished by
/// a newline within the manifests' limit.
fn first_line(path: &Path) -> Option<String> {
    use std::io::{BufRead, Read};
    let file = sqlwitness_core::open_input(path).ok()?;
    let mut line = Vec::new();
    std::io::BufReader::new(file.take(sqlwitness_core::input::MANIFEST_FILE.bytes))
        .read_until(b'\n', &mut line)
        .ok()?;
    if line.last() != Some(&b'\n') {
        return None;
    }
    String::from_utf8(line).ok()
}

mod parts;
mod read;
#[cfg(test)]
mod tests;

pub use parts::{merge_parts, read_parts, read_parts_with};
pub use read::{read_journal, read_journal_with};
use read::{read_sealed, Sealed};
