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

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::{EvalError, RunSpec};

/// The journal's file name in the output folder.
pub const JOURNAL_FILE: &str = "journal.jsonl";

/// The journal format this build writes and reads. Format 1 kept the
/// command line instead of the plan: this library refuses it
/// ([`read_journal`]); the CLI converts it.
pub const JOURNAL_FORMAT: u32 = 2;

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
    /// Parses `K/N` (1 ≤ K ≤ N).
    pub fn parse(text: &str) -> Result<Partition, EvalError> {
        let bad = || {
            EvalError::BadInput(format!(
                "--partition `{text}`: expected K/N with 1 <= K <= N (e.g. 2/3)"
            ))
        };
        let (k, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let k: usize = k.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || n == 0 || k > n {
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

/// SHA-256 (hex) of a file's bytes.
pub fn file_sha256(path: &Path) -> Result<String, EvalError> {
    let bytes =
        std::fs::read(path).map_err(|e| EvalError::io(format!("reading {}", path.display()), e))?;
    Ok(sha256_hex(&bytes))
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
        let bytes =
            std::fs::read(&f).map_err(|e| EvalError::io(format!("reading {}", f.display()), e))?;
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    Ok(hex(&h.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An open journal: records are appended one `write` each, under a lock;
/// after [`Journal::stop`] nothing more is written.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: Mutex<Option<File>>,
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
    /// checking that it belongs to this run; returns the finished records.
    pub fn open<R: DeserializeOwned>(
        dir: &Path,
        header: &Header,
        mode: JournalMode,
    ) -> Result<(Journal, Vec<R>), EvalError> {
        if mode == JournalMode::Off {
            return Ok((Journal::off(), Vec::new()));
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| EvalError::io(format!("creating {}", dir.display()), e))?;
        let path = dir.join(JOURNAL_FILE);
        // A journal whose header was never finished holds nothing.
        let started = std::fs::read(&path).is_ok_and(|b| b.contains(&b'\n'));
        if mode == JournalMode::Resume && started {
            let (old, records, good_len) = read_journal::<R>(&path)?;
            let diffs = old.differences(header, true);
            if !diffs.is_empty() {
                return Err(EvalError::BadInput(format!(
                    "--resume: {} was written by another run ({}); remove it or run without \
                     --resume",
                    path.display(),
                    diffs.join("; ")
                )));
            }
            let file = OpenOptions::new()
                .write(true)
                .open(&path)
                .map_err(|e| EvalError::io(format!("opening {}", path.display()), e))?;
            // Cut off a torn last line before appending.
            file.set_len(good_len)
                .map_err(|e| EvalError::io(format!("truncating {}", path.display()), e))?;
            drop(file);
            let file = OpenOptions::new()
                .append(true)
                .open(&path)
                .map_err(|e| EvalError::io(format!("opening {}", path.display()), e))?;
            return Ok((
                Journal {
                    path,
                    file: Mutex::new(Some(file)),
                },
                records,
            ));
        }
        let mut file = File::create(&path)
            .map_err(|e| EvalError::io(format!("creating {}", path.display()), e))?;
        let mut line = serde_json::to_string(header).expect("a header serializes");
        line.push('\n');
        file.write_all(line.as_bytes())
            .map_err(|e| EvalError::io(format!("writing {}", path.display()), e))?;
        Ok((
            Journal {
                path,
                file: Mutex::new(Some(file)),
            },
            Vec::new(),
        ))
    }

    /// Appends one finished record (one line, one `write`). Nothing after
    /// [`Journal::stop`]: a record finished while the run is being
    /// interrupted may hold the errors of cancelled queries.
    pub fn record<R: Serialize>(&self, record: &R) -> Result<(), EvalError> {
        let mut line = serde_json::to_string(record).expect("a record serializes");
        line.push('\n');
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if crate::interrupt::interrupted() {
            *file = None;
        }
        if let Some(f) = file.as_mut() {
            f.write_all(line.as_bytes())
                .map_err(|e| EvalError::io(format!("writing {}", self.path.display()), e))?;
        }
        Ok(())
    }

    /// Stops the journal: waits for a write in progress, flushes, and
    /// writes nothing more.
    pub fn stop(&self) {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = file.take() {
            let _ = f.sync_data();
        }
    }
}

/// Reads a journal: the header, the records, and the length of the part
/// that parsed (a torn last line is left out). A bad line elsewhere is an
/// error naming the file and the line.
pub fn read_journal<R: DeserializeOwned>(path: &Path) -> Result<(Header, Vec<R>, u64), EvalError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| EvalError::io(format!("reading {}", path.display()), e))?;
    let mut records = Vec::new();
    let mut header: Option<Header> = None;
    let mut offset = 0usize;
    let mut good = 0usize;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    for (i, raw) in lines.iter().enumerate() {
        offset += raw.len();
        let last = i + 1 == lines.len();
        // A line is finished by its newline (one write puts both): a last
        // line without one was cut short, even where it parses (`12` of
        // `123`).
        if last && !raw.ends_with('\n') {
            break;
        }
        let line = raw.trim_end_matches('\n');
        if line.trim().is_empty() {
            good = offset;
            continue;
        }
        let bad = |e: serde_json::Error| {
            EvalError::BadInput(format!(
                "{} line {}: not a journal {}: {e}",
                path.display(),
                i + 1,
                if i == 0 { "header" } else { "record" }
            ))
        };
        if header.is_none() {
            // The format first: another format's header has other fields.
            let format = serde_json::from_str::<serde_json::Value>(line)
                .map_err(bad)?
                .get("journal")
                .and_then(serde_json::Value::as_u64);
            if let Some(n) = format.filter(|&n| n != u64::from(JOURNAL_FORMAT)) {
                return Err(EvalError::BadInput(format!(
                    "{}: journal format {n}, this sqlwitness reads format {JOURNAL_FORMAT}{}",
                    path.display(),
                    if n == 1 {
                        " (format 1 kept the command line instead of the run's plan: the \
                         sqlwitness command converts it when resuming or merging; else rerun \
                         the run without --resume)"
                    } else {
                        ""
                    }
                )));
            }
            header = Some(serde_json::from_str::<Header>(line).map_err(bad)?);
        } else {
            match serde_json::from_str::<R>(line) {
                Ok(r) => records.push(r),
                Err(e) => return Err(bad(e)),
            }
        }
        good = offset;
    }
    let header = header.ok_or_else(|| {
        EvalError::BadInput(format!("{}: the journal has no header", path.display()))
    })?;
    Ok((header, records, good as u64))
}

/// The journals of partition outputs, checked to be the parts of one run:
/// same command, settings, inputs and servers, partitions `1..=N` each
/// once. Returns the first part's header (partition removed) and every
/// part's records.
pub fn read_parts<R: DeserializeOwned>(dirs: &[PathBuf]) -> Result<(Header, Vec<R>), EvalError> {
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
        let (header, records, _) = read_journal::<R>(&path)?;
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
        for bad in ["0/3", "4/3", "3", "a/b", "1/0"] {
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

    #[test]
    fn resume_keeps_finished_records_and_cuts_a_torn_line() {
        let dir = tempfile::tempdir().unwrap();
        let h = header("spider");
        let (j, done) = Journal::open::<u32>(dir.path(), &h, JournalMode::Fresh).unwrap();
        assert!(done.is_empty());
        j.record(&1u32).unwrap();
        j.record(&2u32).unwrap();
        drop(j);
        // A write cut short by a kill.
        let path = dir.path().join(JOURNAL_FILE);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"3").unwrap();
        drop(f);
        let (j, done) = Journal::open::<u32>(dir.path(), &h, JournalMode::Resume).unwrap();
        assert_eq!(done, vec![1, 2]);
        j.record(&4u32).unwrap();
        drop(j);
        let (_, records, _) = read_journal::<u32>(&path).unwrap();
        assert_eq!(records, vec![1, 2, 4]);
        // Fresh starts over.
        let (_, done) = Journal::open::<u32>(dir.path(), &h, JournalMode::Fresh).unwrap();
        assert!(done.is_empty());
    }

    #[test]
    fn another_plan_or_input_is_refused_with_the_difference_named() {
        let dir = tempfile::tempdir().unwrap();
        Journal::open::<u32>(dir.path(), &header("spider"), JournalMode::Fresh).unwrap();
        let mut other = header("strict");
        other
            .inputs
            .insert("questions".into(), sha256_hex(b"other"));
        let err = Journal::open::<u32>(dir.path(), &other, JournalMode::Resume).unwrap_err();
        let msg = err.to_string();
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
        let line = serde_json::to_string(&h).unwrap();
        assert_eq!(serde_json::from_str::<Header>(&line).unwrap(), h);
        assert!(line.starts_with("{\"journal\":2,"), "{line}");
        assert!(line.contains("\"plan\":{\"command\":\"eval\","), "{line}");
        assert!(!line.contains("--"), "a flag in the header: {line}");
    }

    #[test]
    fn another_format_is_refused_saying_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL_FILE);
        let v1 = r#"{"journal":1,"command":"eval","tool_version":"0.1.0","args":["--bench","b"],"settings":{},"inputs":{},"engines":{}}"#;
        std::fs::write(&path, format!("{v1}\n1\n")).unwrap();
        let err = read_journal::<u32>(&path).unwrap_err().to_string();
        assert!(
            err.contains("journal format 1, this sqlwitness reads format 2"),
            "{err}"
        );
        assert!(err.contains("rerun the run without --resume"), "{err}");
        std::fs::write(&path, "{\"journal\":3}\n").unwrap();
        let err = read_journal::<u32>(&path).unwrap_err().to_string();
        assert!(err.contains("journal format 3"), "{err}");
        // Resuming it is refused the same way, the journal left as it is.
        let err = Journal::open::<u32>(dir.path(), &header("spider"), JournalMode::Resume)
            .unwrap_err()
            .to_string();
        assert!(err.contains("journal format 3"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"journal\":3}\n");
    }

    #[test]
    fn a_bad_line_inside_the_journal_names_its_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL_FILE);
        let h = serde_json::to_string(&header("spider")).unwrap();
        std::fs::write(&path, format!("{h}\n1\nnot json\n3\n")).unwrap();
        let err = read_journal::<u32>(&path).unwrap_err().to_string();
        assert!(err.contains("line 3"), "{err}");
    }

    #[test]
    fn parts_of_one_run_merge_and_others_are_refused() {
        let root = tempfile::tempdir().unwrap();
        let mut dirs = Vec::new();
        for k in 1..=2 {
            let dir = root.path().join(format!("p{k}"));
            let mut h = header("spider");
            h.partition = Some(Partition { k, n: 2 });
            let (j, _) = Journal::open::<u32>(&dir, &h, JournalMode::Fresh).unwrap();
            j.record(&(k as u32)).unwrap();
            dirs.push(dir);
        }
        let (h, mut records) = read_parts::<u32>(&dirs).unwrap();
        records.sort();
        assert_eq!((h.partition, records), (None, vec![1, 2]));
        let err = read_parts::<u32>(&dirs[..1]).unwrap_err().to_string();
        assert!(err.contains("parts missing: 2/2"), "{err}");
        let err = read_parts::<u32>(&[dirs[0].clone(), dirs[0].clone()])
            .unwrap_err()
            .to_string();
        assert!(err.contains("given twice"), "{err}");
        let odd = root.path().join("odd");
        let mut h = header("strict");
        h.partition = Some(Partition { k: 2, n: 2 });
        Journal::open::<u32>(&odd, &h, JournalMode::Fresh).unwrap();
        let err = read_parts::<u32>(&[dirs[0].clone(), odd])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("different runs") && err.contains("compare"),
            "{err}"
        );
    }
}
