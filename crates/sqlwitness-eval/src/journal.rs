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
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::journal_key::{hex, same_mac, unhex, Key, KeyRef, KeySource, KeyStore};
use crate::{EvalError, RunSpec};

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

/// One part of a partitioned run: `k` of `n`, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Partition {
    pub k: usize,
    pub n: usize,
}

impl Partition {
    /// The most parts a run may be split into.
    pub const MAX_PARTS: usize = 10_000;

    /// Parses `K/N` (1 ≤ K ≤ N ≤ [`Partition::MAX_PARTS`]).
    pub fn parse(text: &str) -> Result<Partition, EvalError> {
        let bad = || {
            EvalError::BadInput(format!(
                "--partition `{text}`: expected K/N with 1 <= K <= N <= {} (e.g. 2/3)",
                Partition::MAX_PARTS
            ))
        };
        let (k, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let k: usize = k.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || n == 0 || k > n || n > Partition::MAX_PARTS {
            return Err(bad());
        }
        Ok(Partition { k, n })
    }
}

impl std::fmt::Display for Partition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// Assigns databases to `n` partitions: stable for the same selection (it
/// depends on the databases and their question counts only, not on the
/// order of discovery or the machine), and balanced by questions: the
/// largest databases first, each to the partition with the fewest
/// questions so far (ties to the lower index). Returns, per database, its
/// partition (1-based).
pub fn assign_partitions(weights: &BTreeMap<String, usize>, n: usize) -> BTreeMap<String, usize> {
    let mut order: Vec<(&String, usize)> = weights.iter().map(|(d, &w)| (d, w)).collect();
    order.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let mut load = vec![0usize; n.max(1)];
    let mut out = BTreeMap::new();
    for (db, w) in order {
        let (i, _) = load
            .iter()
            .enumerate()
            .min_by_key(|&(i, &l)| (l, i))
            .expect("at least one partition");
        load[i] += w.max(1);
        out.insert(db.clone(), i + 1);
    }
    out
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

/// SHA-256 (hex) of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(bytes);
    hex(&h.finalize())
}

/// SHA-256 (hex) of a file's bytes, read as a stream (a regular file
/// only).
pub fn file_sha256(path: &Path) -> Result<String, EvalError> {
    let mut h = Sha256::new();
    hash_file(&mut h, path)?;
    Ok(hex(&h.finalize()))
}

/// Feeds the bytes of the regular file at `path` to `h`; returns how many.
fn hash_file(h: &mut Sha256, path: &Path) -> Result<u64, EvalError> {
    let read = |e| EvalError::io(format!("reading {}", path.display()), e);
    let mut f = sqlwitness_core::open_input(path).map_err(read)?;
    std::io::copy(&mut f, h).map_err(read)
}

/// SHA-256 (hex) over every file under `dir` (names and bytes, in name
/// order), the journal of the run that wrote it left out.
pub fn dir_sha256(dir: &Path) -> Result<String, EvalError> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d)
            .map_err(|e| EvalError::io(format!("reading {}", d.display()), e))?;
        for entry in entries {
            let p = entry
                .map_err(|e| EvalError::io(format!("reading {}", d.display()), e))?
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
            .map_err(|e| EvalError::io(format!("reading {}", f.display()), e))?
            .len();
        h.update(len.to_le_bytes());
        hash_file(&mut h, &f)?;
    }
    Ok(hex(&h.finalize()))
}

/// An open journal: records are appended one `write` each, under a lock,
/// each sealed by a MAC chained from the one before; after
/// [`Journal::stop`] nothing more is written.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: Mutex<Option<Writer>>,
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
        }
    }

    /// Opens the journal of `dir` for the run `header` describes: a new one
    /// (`Fresh`, or `Resume` without a journal), or the existing one after
    /// verifying it and checking that it belongs to this run; returns the
    /// finished records. The keys are the environment's
    /// ([`KeyStore::from_env`]).
    pub fn open<R: DeserializeOwned>(
        dir: &Path,
        header: &Header,
        mode: JournalMode,
    ) -> Result<(Journal, Vec<R>), EvalError> {
        Journal::open_with(dir, header, mode, &KeyStore::from_env())
    }

    /// [`Journal::open`] with the keys of `keys`.
    pub fn open_with<R: DeserializeOwned>(
        dir: &Path,
        header: &Header,
        mode: JournalMode,
        keys: &KeyStore,
    ) -> Result<(Journal, Vec<R>), EvalError> {
        if mode == JournalMode::Off {
            return Ok((Journal::off(), Vec::new()));
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| EvalError::io(format!("creating {}", dir.display()), e))?;
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
        if let Some(sealed) = resumed {
            let diffs = sealed.header.differences(header, true);
            if !diffs.is_empty() {
                return Err(EvalError::BadInput(format!(
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
                        EvalError::BadInput(format!(
                            "{} line {}: not a journal record: {e}",
                            path.display(),
                            i + 2
                        ))
                    })
                })
                .collect::<Result<Vec<R>, EvalError>>()?;
            let file = OpenOptions::new()
                .write(true)
                .open(&path)
                .map_err(|e| EvalError::io(format!("opening {}", path.display()), e))?;
            // Cut off a torn last line before appending.
            file.set_len(sealed.good_len)
                .map_err(|e| EvalError::io(format!("truncating {}", path.display()), e))?;
            drop(file);
            let file = OpenOptions::new()
                .append(true)
                .open(&path)
                .map_err(|e| EvalError::io(format!("opening {}", path.display()), e))?;
            let writer = Writer {
                file,
                key: sealed.key,
                last: sealed.last,
                count: records.len() as u64,
            };
            return Ok((
                Journal {
                    path,
                    file: Mutex::new(Some(writer)),
                },
                records,
            ));
        }
        // The journal this one replaces can no longer be resumed: its key
        // goes with it.
        let first = first_line(&path);
        let old = first.as_deref().map(|l| l.trim_end_matches('\n'));
        if let Some(old) = old.and_then(|l| unseal(l, "header")) {
            if let Ok(h) = serde_json::from_str::<Header>(old.1) {
                if let Some(r) = &h.key {
                    keys.forget(r);
                }
            }
        }
        let (key_ref, key) = keys.create()?;
        let mut header = header.clone();
        header.key = Some(key_ref);
        let json = serde_json::to_string(&header).expect("a header serializes");
        let mac = header_mac(&key, &json);
        let mut file = File::create(&path)
            .map_err(|e| EvalError::io(format!("creating {}", path.display()), e))?;
        file.write_all(sealed_line(&mac, "header", &json).as_bytes())
            .map_err(|e| EvalError::io(format!("writing {}", path.display()), e))?;
        let writer = Writer {
            file,
            key,
            last: mac,
            count: 0,
        };
        Ok((
            Journal {
                path,
                file: Mutex::new(Some(writer)),
            },
            Vec::new(),
        ))
    }

    /// Appends one finished record (one line, one `write`). Nothing after
    /// [`Journal::stop`]: a record finished while the run is being
    /// interrupted may hold the errors of cancelled queries.
    pub fn record<R: Serialize>(&self, record: &R) -> Result<(), EvalError> {
        let json = serde_json::to_string(record).expect("a record serializes");
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if crate::interrupt::interrupted() {
            *file = None;
        }
        if let Some(w) = file.as_mut() {
            let n = w.count + 1;
            let mac = record_mac(&w.key, &w.last, n, &json);
            w.file
                .write_all(sealed_line(&mac, "record", &json).as_bytes())
                .map_err(|e| EvalError::io(format!("writing {}", self.path.display()), e))?;
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

/// Reads a journal, verified with the environment's keys
/// ([`KeyStore::from_env`]): the header, the records, and the length of the
/// part that parsed (a torn last line is left out). A bad line elsewhere,
/// or a line that does not verify, is an error naming the file and the
/// line.
pub fn read_journal<R: DeserializeOwned>(path: &Path) -> Result<(Header, Vec<R>, u64), EvalError> {
    read_journal_with(path, &KeyStore::from_env())
}

/// [`read_journal`] with the keys of `keys`.
pub fn read_journal_with<R: DeserializeOwned>(
    path: &Path,
    keys: &KeyStore,
) -> Result<(Header, Vec<R>, u64), EvalError> {
    let s = read_sealed::<R>(path, keys)?.ok_or_else(|| {
        EvalError::BadInput(format!("{}: the journal has no header", path.display()))
    })?;
    Ok((s.header, s.records, s.good_len))
}

/// A journal read and verified.
struct Sealed<R> {
    header: Header,
    records: Vec<R>,
    good_len: u64,
    key: Key,
    /// The MAC of the last line kept.
    last: [u8; 32],
}

/// "start again" for a journal that cannot be trusted or read.
const START_AGAIN: &str = "start again: rerun without --resume (every part, for a partitioned run)";

/// The journal at `path`, verified; `None` when its header was never
/// finished (the journal holds nothing).
fn read_sealed<R: DeserializeOwned>(
    path: &Path,
    keys: &KeyStore,
) -> Result<Option<Sealed<R>>, EvalError> {
    let shown = path.display();
    let text = sqlwitness_core::read_input_to_string(path, sqlwitness_core::input::JOURNAL_FILE)
        .map_err(|e| {
            if sqlwitness_core::input::is_refused(&e) {
                EvalError::BadInput(format!("{shown}: {e}"))
            } else {
                EvalError::io(format!("reading {shown}"), e)
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
                    EvalError::BadInput(format!("{place}: not a journal record: {what}"))
                };
                let (mac, json) =
                    unseal(line, "record").ok_or_else(|| bad("no MAC".to_string()))?;
                let n = records.len() as u64 + 1;
                if !same_mac(&mac, &record_mac(key, &last, n, json)) {
                    return Err(EvalError::BadInput(format!(
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
) -> Result<(Header, Key, [u8; 32]), EvalError> {
    let shown = path.display();
    let bad = |what: String| EvalError::BadInput(format!("{place}: not a journal header: {what}"));
    let Some((mac, json)) = unseal(line, "header") else {
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
        return Err(match v.get("journal").and_then(serde_json::Value::as_u64) {
            Some(n) => EvalError::BadInput(format!(
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
        return Err(EvalError::BadInput(format!(
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
        return Err(EvalError::BadInput(format!(
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

/// The journals of partition outputs, checked to be the parts of one run:
/// same command, settings, inputs and servers, partitions `1..=N` each
/// once, every journal verified with the environment's keys. Returns the
/// first part's header (partition and key removed) and every part's
/// records.
pub fn read_parts<R: DeserializeOwned>(dirs: &[PathBuf]) -> Result<(Header, Vec<R>), EvalError> {
    read_parts_with(dirs, &KeyStore::from_env())
}

/// [`read_parts`] with the keys of `keys`.
pub fn read_parts_with<R: DeserializeOwned>(
    dirs: &[PathBuf],
    keys: &KeyStore,
) -> Result<(Header, Vec<R>), EvalError> {
    if dirs.is_empty() {
        return Err(EvalError::BadInput("merge: no part folders given".into()));
    }
    let mut first: Option<(PathBuf, Header)> = None;
    let mut seen: BTreeMap<usize, PathBuf> = BTreeMap::new();
    let mut all = Vec::new();
    let mut n_parts = None;
    let mut extras = Vec::new();
    for dir in dirs {
        let path = dir.join(JOURNAL_FILE);
        if !path.is_file() {
            return Err(EvalError::BadInput(format!(
                "merge: {} has no {JOURNAL_FILE} (not the output of a partitioned run)",
                dir.display()
            )));
        }
        let (header, records, _) = read_journal_with::<R>(&path, keys)?;
        let p = header.partition.ok_or_else(|| {
            EvalError::BadInput(format!(
                "merge: {} is not a partition (run with --partition K/N)",
                path.display()
            ))
        })?;
        if let Some(n) = n_parts {
            if n != p.n {
                return Err(EvalError::BadInput(format!(
                    "merge: {} is part {p} of another split ({n} parts elsewhere)",
                    path.display()
                )));
            }
        }
        n_parts = Some(p.n);
        if let Some(other) = seen.insert(p.k, dir.clone()) {
            return Err(EvalError::BadInput(format!(
                "merge: part {p} given twice ({} and {})",
                other.display(),
                dir.display()
            )));
        }
        if let Some((fpath, fh)) = &first {
            let diffs = fh.differences(&header, false);
            if !diffs.is_empty() {
                return Err(EvalError::BadInput(format!(
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
        return Err(EvalError::BadInput(format!(
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
pub(crate) fn merge_parts<R: DeserializeOwned, I: DeserializeOwned + Clone>(
    parts: &[PathBuf],
    ours: impl FnOnce(&I) -> Result<Header, EvalError>,
) -> Result<(Vec<R>, Vec<I>), EvalError> {
    let (theirs, records) = read_parts::<R>(parts)?;
    let runs: Vec<I> = match &theirs.extra {
        serde_json::Value::Array(v) => v
            .iter()
            .map(|r| serde_json::from_value(r.clone()))
            .collect::<Result<_, _>>()
            .map_err(|e| EvalError::BadInput(format!("merge: a journal's run information: {e}")))?,
        _ => Vec::new(),
    };
    let first = runs
        .first()
        .ok_or_else(|| EvalError::BadInput("merge: the journals hold no run information".into()))?;
    let mut ours = ours(first)?;
    ours.servers = theirs.servers.clone();
    let diffs = theirs.differences(&ours, false);
    if !diffs.is_empty() {
        return Err(EvalError::BadInput(format!(
            "merge: the parts were not run with this plan and these inputs ({})",
            diffs.join("; ")
        )));
    }
    Ok((records, runs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(compare: &str) -> Header {
        let mut spec = crate::spec::tests::eval_spec();
        spec.compare = serde_json::from_value(compare.into()).unwrap();
        let mut h = Header::new(RunSpec::Eval(spec), None);
        h.inputs.insert("questions".into(), sha256_hex(b"q"));
        h.servers.insert("sqlite".into(), "3.50.2".into());
        h
    }

    #[test]
    fn partitions_parse_and_balance_stably() {
        assert_eq!(Partition::parse("2/3").unwrap(), Partition { k: 2, n: 3 });
        for bad in [
            "0/3",
            "4/3",
            "3",
            "a/b",
            "1/0",
            "1/10001",
            "1/99999999999999999999999",
        ] {
            assert!(Partition::parse(bad).is_err(), "{bad}");
        }
        let weights: BTreeMap<String, usize> = [("a", 10), ("b", 6), ("c", 5), ("d", 4), ("e", 1)]
            .iter()
            .map(|(d, w)| (d.to_string(), *w))
            .collect();
        let p = assign_partitions(&weights, 2);
        let load = |k| {
            p.iter()
                .filter(|(_, &v)| v == k)
                .map(|(d, _)| weights[d])
                .sum::<usize>()
        };
        assert_eq!((load(1), load(2)), (14, 12), "{p:?}");
        assert_eq!(p, assign_partitions(&weights, 2));
        assert!(assign_partitions(&weights, 9)
            .values()
            .all(|&k| (1..=9).contains(&k)));
    }

    /// Keys in a folder of the test's own.
    fn keys(root: &Path) -> KeyStore {
        KeyStore::at(root.join("keys"), None)
    }

    fn open(dir: &Path, h: &Header, mode: JournalMode, k: &KeyStore) -> (Journal, Vec<u32>) {
        Journal::open_with::<u32>(dir, h, mode, k).unwrap()
    }

    fn resume_err(dir: &Path, h: &Header, k: &KeyStore) -> String {
        Journal::open_with::<u32>(dir, h, JournalMode::Resume, k)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn resume_keeps_finished_records_and_cuts_a_torn_line() {
        let root = tempfile::tempdir().unwrap();
        let (dir, k) = (root.path().join("out"), keys(root.path()));
        let h = header("spider");
        let (j, done) = open(&dir, &h, JournalMode::Fresh, &k);
        assert!(done.is_empty());
        j.record(&1u32).unwrap();
        j.record(&2u32).unwrap();
        drop(j);
        // A write cut short by a kill.
        let path = dir.join(JOURNAL_FILE);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"mac\":\"00").unwrap();
        drop(f);
        let (j, done) = open(&dir, &h, JournalMode::Resume, &k);
        assert_eq!(done, vec![1, 2]);
        j.record(&4u32).unwrap();
        drop(j);
        let (_, records, _) = read_journal_with::<u32>(&path, &k).unwrap();
        assert_eq!(records, vec![1, 2, 4]);
        // Fresh starts over, with a new key; the old one is removed.
        let old_key = std::fs::read_dir(root.path().join("keys")).unwrap().count();
        let (_, done) = open(&dir, &h, JournalMode::Fresh, &k);
        assert!(done.is_empty());
        assert_eq!(
            std::fs::read_dir(root.path().join("keys")).unwrap().count(),
            old_key
        );
    }

    /// Lines of a journal of three records, for editing.
    fn three_records(dir: &Path, k: &KeyStore) -> Vec<String> {
        let (j, _) = open(dir, &header("spider"), JournalMode::Fresh, k);
        for r in [10u32, 20, 30] {
            j.record(&r).unwrap();
        }
        drop(j);
        std::fs::read_to_string(dir.join(JOURNAL_FILE))
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    fn write_lines(dir: &Path, lines: &[String]) {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(dir.join(JOURNAL_FILE), text).unwrap();
    }

    #[test]
    fn an_edited_dropped_or_moved_record_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let (dir, k) = (root.path().join("out"), keys(root.path()));
        let h = header("spider");
        let lines = three_records(&dir, &k);
        assert!(lines[1].starts_with("{\"mac\":\""), "{}", lines[1]);
        assert!(lines[1].ends_with(",\"record\":10}"), "{}", lines[1]);

        let mut edited = lines.clone();
        edited[2] = edited[2].replace(":20}", ":21}");
        write_lines(&dir, &edited);
        let err = resume_err(&dir, &h, &k);
        assert!(err.contains("line 3: the record does not verify"), "{err}");
        assert!(err.contains("rerun without --resume"), "{err}");

        let mut dropped = lines.clone();
        dropped.remove(2);
        write_lines(&dir, &dropped);
        let err = resume_err(&dir, &h, &k);
        assert!(err.contains("line 3: the record does not verify"), "{err}");

        let mut moved = lines.clone();
        moved.swap(1, 2);
        write_lines(&dir, &moved);
        let err = resume_err(&dir, &h, &k);
        assert!(err.contains("line 2: the record does not verify"), "{err}");

        // An unsealed record.
        let mut bare = lines.clone();
        bare.push("40".into());
        write_lines(&dir, &bare);
        let err = resume_err(&dir, &h, &k);
        assert!(err.contains("line 5: not a journal record"), "{err}");

        // The honest journal still resumes; the refusals left it as it was.
        write_lines(&dir, &lines);
        let (_, done) = open(&dir, &h, JournalMode::Resume, &k);
        assert_eq!(done, vec![10, 20, 30]);
    }

    #[test]
    fn a_swapped_header_or_records_of_another_journal_are_refused() {
        let root = tempfile::tempdir().unwrap();
        let k = keys(root.path());
        let (a, b) = (root.path().join("a"), root.path().join("b"));
        let h = header("spider");
        let la = three_records(&a, &k);
        let lb = three_records(&b, &k);
        assert_ne!(la[1], lb[1], "another key, another MAC");

        // b's header on a's records: the header verifies, the records not.
        let mut swapped = la.clone();
        swapped[0] = lb[0].clone();
        write_lines(&a, &swapped);
        let err = resume_err(&a, &h, &k);
        assert!(err.contains("line 2: the record does not verify"), "{err}");

        // A record copied from b into a.
        let mut spliced = la.clone();
        spliced.push(lb[3].clone());
        write_lines(&a, &spliced);
        let err = resume_err(&a, &h, &k);
        assert!(err.contains("line 5: the record does not verify"), "{err}");

        // An edited header (its settings made to match another run).
        let mut edited = la.clone();
        edited[0] = edited[0].replace("\"compare\":\"spider\"", "\"compare\":\"strict\"");
        assert_ne!(edited[0], la[0]);
        write_lines(&a, &edited);
        let err = resume_err(&a, &header("strict"), &k);
        assert!(err.contains("line 1: the header does not verify"), "{err}");

        // A journal whose key is not here.
        write_lines(&a, &la);
        let elsewhere = KeyStore::at(root.path().join("elsewhere"), None);
        let err = resume_err(&a, &h, &elsewhere);
        assert!(err.contains("is not on this machine"), "{err}");
    }

    #[test]
    fn a_shared_secret_verifies_on_every_machine_that_has_it() {
        let root = tempfile::tempdir().unwrap();
        let secret = "a secret of the run's machines";
        let here = KeyStore::at(root.path().join("here"), Some(secret));
        let there = KeyStore::at(root.path().join("there"), Some(secret));
        let dir = root.path().join("out");
        let h = header("spider");
        let (j, _) = open(&dir, &h, JournalMode::Fresh, &here);
        j.record(&7u32).unwrap();
        drop(j);
        assert!(!root.path().join("here").exists(), "no key file");
        let (_, done) = open(&dir, &h, JournalMode::Resume, &there);
        assert_eq!(done, vec![7]);
        let other = KeyStore::at(root.path().join("x"), Some("another secret, long enough"));
        let err = resume_err(&dir, &h, &other);
        assert!(
            err.contains("SQLWITNESS_JOURNAL_KEY is not the secret"),
            "{err}"
        );
        let none = KeyStore::at(root.path().join("x"), None);
        let err = resume_err(&dir, &h, &none);
        assert!(err.contains("which is not set here"), "{err}");
    }

    #[test]
    fn another_plan_or_input_is_refused_with_the_difference_named() {
        let root = tempfile::tempdir().unwrap();
        let (dir, k) = (root.path().join("out"), keys(root.path()));
        open(&dir, &header("spider"), JournalMode::Fresh, &k);
        let mut other = header("strict");
        other
            .inputs
            .insert("questions".into(), sha256_hex(b"other"));
        let msg = resume_err(&dir, &other, &k);
        assert!(
            msg.contains("compare: journal `spider`, this run `strict`"),
            "{msg}"
        );
        assert!(
            msg.contains("input questions: its content differs"),
            "{msg}"
        );
    }

    #[test]
    fn the_header_round_trips_and_names_no_flag() {
        let mut h = header("spider");
        h.partition = Some(Partition { k: 2, n: 3 });
        h.extra = serde_json::json!({"bench": "examples/spider-dev"});
        h.key = Some(KeyRef {
            id: "0123456789abcdef0123456789abcdef".into(),
            source: KeySource::Local,
        });
        let line = serde_json::to_string(&h).unwrap();
        assert_eq!(serde_json::from_str::<Header>(&line).unwrap(), h);
        assert!(line.starts_with("{\"journal\":3,"), "{line}");
        assert!(line.contains("\"plan\":{\"command\":\"eval\","), "{line}");
        assert!(!line.contains("--"), "a flag in the header: {line}");
    }

    #[test]
    fn an_earlier_format_is_refused_saying_to_start_again() {
        let root = tempfile::tempdir().unwrap();
        let (dir, k) = (root.path().join("out"), keys(root.path()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(JOURNAL_FILE);
        let v1 = r#"{"journal":1,"command":"eval","tool_version":"0.1.0","args":["--bench","b"],"settings":{},"inputs":{},"engines":{}}"#;
        let mut v2 = serde_json::to_value(header("spider")).unwrap();
        v2["journal"] = 2.into();
        for old in [v1.to_string(), v2.to_string()] {
            std::fs::write(&path, format!("{old}\n1\n")).unwrap();
            let err = read_journal_with::<u32>(&path, &k).unwrap_err().to_string();
            assert!(err.contains("without MACs"), "{err}");
            assert!(err.contains("start again: rerun without --resume"), "{err}");
            // Resuming it is refused the same way, the journal left as it is.
            let err = resume_err(&dir, &header("spider"), &k);
            assert!(err.contains("without MACs"), "{err}");
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                format!("{old}\n1\n")
            );
        }
        let future = format!(
            "{{\"mac\":\"{}\",\"header\":{{\"journal\":9}}}}\n",
            "0".repeat(64)
        );
        std::fs::write(&path, &future).unwrap();
        let err = read_journal_with::<u32>(&path, &k).unwrap_err().to_string();
        assert!(err.contains("journal format 9"), "{err}");
    }

    #[test]
    fn a_journal_past_its_size_limit_is_refused_unread() {
        let root = tempfile::tempdir().unwrap();
        let (dir, k) = (root.path().join("out"), keys(root.path()));
        three_records(&dir, &k);
        // Sparse: as large as the limit says, nothing written.
        let f = OpenOptions::new()
            .write(true)
            .open(dir.join(JOURNAL_FILE))
            .unwrap();
        f.set_len(sqlwitness_core::input::JOURNAL_FILE.bytes + 1)
            .unwrap();
        drop(f);
        let err = resume_err(&dir, &header("spider"), &k);
        assert!(err.contains("journal.jsonl: larger than 1 GiB"), "{err}");
    }

    #[test]
    fn a_bad_line_inside_the_journal_names_its_place() {
        let root = tempfile::tempdir().unwrap();
        let (dir, k) = (root.path().join("out"), keys(root.path()));
        let mut lines = three_records(&dir, &k);
        lines[2] = "not json".into();
        write_lines(&dir, &lines);
        let err = read_journal_with::<u32>(&dir.join(JOURNAL_FILE), &k)
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 3"), "{err}");
    }

    #[test]
    fn parts_of_one_run_merge_and_others_are_refused() {
        let root = tempfile::tempdir().unwrap();
        let k = keys(root.path());
        let mut dirs = Vec::new();
        for n in 1..=2 {
            let dir = root.path().join(format!("p{n}"));
            let mut h = header("spider");
            h.partition = Some(Partition { k: n, n: 2 });
            let (j, _) = open(&dir, &h, JournalMode::Fresh, &k);
            j.record(&(n as u32)).unwrap();
            dirs.push(dir);
        }
        let (h, mut records) = read_parts_with::<u32>(&dirs, &k).unwrap();
        records.sort();
        assert_eq!((h.partition, h.key, records), (None, None, vec![1, 2]));
        let err = read_parts_with::<u32>(&dirs[..1], &k)
            .unwrap_err()
            .to_string();
        assert!(err.contains("parts missing: 2/2"), "{err}");
        let err = read_parts_with::<u32>(&[dirs[0].clone(), dirs[0].clone()], &k)
            .unwrap_err()
            .to_string();
        assert!(err.contains("given twice"), "{err}");
        let odd = root.path().join("odd");
        let mut h = header("strict");
        h.partition = Some(Partition { k: 2, n: 2 });
        open(&odd, &h, JournalMode::Fresh, &k);
        let err = read_parts_with::<u32>(&[dirs[0].clone(), odd], &k)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("different runs") && err.contains("compare"),
            "{err}"
        );
        // A part whose key is on another machine is refused, naming it.
        let elsewhere = KeyStore::at(root.path().join("elsewhere"), None);
        let err = read_parts_with::<u32>(&dirs, &elsewhere)
            .unwrap_err()
            .to_string();
        assert!(err.contains("is not on this machine"), "{err}");
    }
}
