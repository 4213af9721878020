use super::*;
use crate::sha256_hex;
use crate::KeySource;

fn header(compare: &str) -> Header {
    let mut spec = crate::spec::tests::eval_spec();
    spec.compare = serde_json::from_value(compare.into()).unwrap();
    let mut h = Header::new(RunSpec::Eval(spec), None);
    h.inputs.insert("questions".into(), sha256_hex(b"q"));
    h.servers.insert("sqlite".into(), "3.50.2".into());
    h
}

/// Keys in a folder of the test's own.
fn keys(root: &Path) -> KeyStore {
    KeyStore::at(root.join("keys"), None)
}

fn open(dir: &Path, h: &Header, mode: JournalMode, k: &KeyStore) -> (Journal, Vec<u32>) {
    Journal::open_with::<u32>(dir, h, mode, k, &Cancel::new()).unwrap()
}

fn resume_err(dir: &Path, h: &Header, k: &KeyStore) -> String {
    Journal::open_with::<u32>(dir, h, JournalMode::Resume, k, &Cancel::new())
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
fn nothing_is_recorded_once_the_run_is_cancelled() {
    let root = tempfile::tempdir().unwrap();
    let (dir, k) = (root.path().join("out"), keys(root.path()));
    let cancel = Cancel::new();
    let h = header("spider");
    let (j, _) = Journal::open_with::<u32>(&dir, &h, JournalMode::Fresh, &k, &cancel).unwrap();
    let j = std::sync::Arc::new(j);
    let _hooks = cancel.run_hooks(&j, []);
    j.record(&1u32).unwrap();
    cancel.cancel();
    j.record(&2u32).unwrap();
    let (_, records, _) = read_journal_with::<u32>(&dir.join(JOURNAL_FILE), &k).unwrap();
    assert_eq!(records, vec![1]);
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

/// An engine that only records a line when its queries are cancelled, in
/// a journal that no token stops but its hook.
struct Cancelling {
    info: sqlwitness_core::EngineInfo,
    journal: std::sync::Arc<Journal>,
    log: std::sync::Arc<Mutex<Vec<&'static str>>>,
}

impl sqlwitness_core::Engine for Cancelling {
    fn info(&self) -> &sqlwitness_core::EngineInfo {
        &self.info
    }

    fn execute(
        &self,
        _: &sqlwitness_core::Database,
        _: &str,
        _: &sqlwitness_core::QueryLimits,
    ) -> Result<sqlwitness_core::ResultSet, sqlwitness_core::DbError> {
        unreachable!("no query runs here")
    }

    fn cancel_running(&self) {
        // What a cancelled query finishes with is not recorded.
        self.journal.record(&99u32).unwrap();
        self.log.lock().unwrap().push("engine");
    }
}

#[test]
fn a_cancelled_run_stops_its_journal_before_its_engines_and_runs_the_last_hooks_after() {
    let root = tempfile::tempdir().unwrap();
    let (dir, k) = (root.path().join("out"), keys(root.path()));
    let (j, _) = open(&dir, &header("spider"), JournalMode::Fresh, &k);
    let j = std::sync::Arc::new(j);
    let log: std::sync::Arc<Mutex<Vec<&'static str>>> = Default::default();
    let cancel = Cancel::new();
    let last = std::sync::Arc::clone(&log);
    let _last = cancel.on_cancel_last(move || last.lock().unwrap().push("last"));
    let engine: std::sync::Arc<dyn sqlwitness_core::Engine> = std::sync::Arc::new(Cancelling {
        info: sqlwitness_core::EngineInfo {
            kind: sqlwitness_core::EngineKind::REFERENCE,
            version: "test".into(),
            login: None,
        },
        journal: std::sync::Arc::clone(&j),
        log: std::sync::Arc::clone(&log),
    });
    let _hooks = cancel.run_hooks(&j, [engine]);
    j.record(&1u32).unwrap();
    cancel.cancel();
    assert_eq!(*log.lock().unwrap(), ["engine", "last"]);
    let (_, records, _) = read_journal_with::<u32>(&dir.join(JOURNAL_FILE), &k).unwrap();
    assert_eq!(
        records,
        vec![1],
        "the engine's hook ran after the journal stopped"
    );
}
