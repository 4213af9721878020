//! `sqlwitness perturb` and `sqlwitness robustness` end to end: Dr.Spider's
//! database perturbations built from the shipped Spider example, every
//! kept gold verified, the same seed giving the same bytes, exact renames,
//! robustness of carried predictions, an interrupted run resumed to the
//! same bytes, and the sets on the servers.

use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sqlwitness_testkit::{example_spider, server_args, servers, unique_name};

fn sqlwitness(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sqlwitness"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(args: &[String]) -> String {
    let out = sqlwitness(args);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "sqlwitness {args:?}: {stderr}");
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// The command's stdout, or its stderr when it fails.
fn ok_or_err(args: &[String]) -> Result<String, String> {
    let out = sqlwitness(args);
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

fn p(path: &Path) -> String {
    path.to_str().unwrap().to_string()
}

fn read_json(path: &Path) -> Json {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every file under `dir`, relative path → bytes (the run's journal left
/// out: its key, and so its seals, differ from run to run).
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n != "journal.jsonl") {
                out.insert(
                    path.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&path).unwrap(),
                );
            }
        }
    }
    out
}

fn perturb(kind: &str, seed: u64, out: &Path, extra: &[&str]) -> Json {
    let mut args = s(&["perturb", "--bench"]);
    args.push(p(&example_spider()));
    args.extend(s(&[
        "--split",
        "dev",
        "--kind",
        kind,
        "--samples",
        "5",
        "--seed",
    ]));
    args.push(seed.to_string());
    args.push("--out".into());
    args.push(p(out));
    args.extend(s(&[
        "-q",
        "--db",
        "concert_singer",
        "--db",
        "pets_1",
        "--db",
        "employee_hire_evaluation",
        "--db",
        "orchestra",
    ]));
    args.extend(s(extra));
    ok(&args);
    read_json(&out.join("mapping.json"))
}

#[test]
fn every_kind_verifies_and_the_same_seed_gives_the_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    for kind in ["synonym", "abbreviation", "content"] {
        let m = perturb(kind, 7, &tmp.path().join(kind), &[]);
        let sum = &m["summary"];
        let (rewritten, verified) = (
            sum["rewritten"].as_u64().unwrap(),
            sum["verified"].as_u64().unwrap(),
        );
        assert!(verified > 10, "{kind}: {sum}");
        assert!(verified as f64 >= 0.98 * rewritten as f64, "{kind}: {sum}");
        // Each kept question: its gold changed and runs on its database;
        // the original gold does not (a changed column is gone).
        let questions = m["questions"].as_array().unwrap();
        assert_eq!(questions.len() as u64, verified);
        let dev = read_json(&tmp.path().join(kind).join("dev.json"));
        for (q, entry) in questions.iter().zip(dev.as_array().unwrap()) {
            assert_ne!(q["gold"], q["original_gold"]);
            assert_eq!(entry["query"], q["gold"]);
            assert_eq!(entry["db_id"], q["db_id"]);
            assert!(!q["changed_columns"].as_array().unwrap().is_empty());
        }
        // The databases number from 0 per original, at most 5 each.
        for d in m["databases"].as_array().unwrap() {
            let id = d["db_id"].as_str().unwrap();
            let k: usize = id.rsplit('_').next().unwrap().parse().unwrap();
            assert!(k < 5 && id.starts_with(d["original_db_id"].as_str().unwrap()));
            assert!(tmp
                .path()
                .join(kind)
                .join("database")
                .join(id)
                .join(format!("{id}.sqlite"))
                .is_file());
        }
    }
    // Same seed, same bytes (databases included); another seed, another set.
    let again = perturb("synonym", 7, &tmp.path().join("again"), &[]);
    assert_eq!(
        files(&tmp.path().join("synonym")),
        files(&tmp.path().join("again"))
    );
    let other = perturb("synonym", 8, &tmp.path().join("other"), &[]);
    assert_ne!(again["databases"], other["databases"]);
    // The set is an ordinary benchmark: its gold self-check matches everywhere.
    let out = tmp.path().join("eval");
    let mut args = s(&["eval", "--bench"]);
    args.push(p(&tmp.path().join("content")));
    args.extend(s(&["--split", "dev", "-q", "--out"]));
    args.push(p(&out));
    ok(&args);
    let summary = &read_json(&out.join("report.json"))["summary"]["engines"]["sqlite"];
    assert_eq!(summary["ex"], 1.0, "{summary}");
}

/// The arguments of a synonym set of the whole shipped example into `out`.
fn whole_example(out: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = s(&["perturb", "--kind", "synonym", "--seed", "3", "--bench"]);
    args.push(p(&example_spider()));
    args.push("--out".into());
    args.push(p(out));
    args.extend(s(extra));
    args
}

/// The records of the journal in `out` (its lines but the header).
fn records(out: &Path) -> usize {
    std::fs::read_to_string(out.join("journal.jsonl"))
        .map(|t| t.lines().count().saturating_sub(1))
        .unwrap_or(0)
}

#[test]
fn an_interrupted_run_resumes_to_the_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let clean = tmp.path().join("clean");
    ok(&whole_example(&clean, &["-q"]));
    let databases = read_json(&clean.join("mapping.json"))["databases"]
        .as_array()
        .unwrap()
        .len();
    assert!(databases > 10, "{databases}");
    let resumed = tmp.path().join("resumed");
    let args = whole_example(&resumed, &["-q", "--resume"]);
    let mut interrupted = Vec::new();
    for attempt in 0..12 {
        if interrupted.len() == 2 {
            break;
        }
        // SIGINT once the journal holds one or two more databases.
        let target = records(&resumed) + 1 + attempt % 2;
        let mut child = Command::new(env!("CARGO_BIN_EXE_sqlwitness"))
            .args(&args)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        while records(&resumed) < target && child.try_wait().unwrap().is_none() {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let signalled = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap()
            .success();
        let sent = std::time::Instant::now();
        let status = child.wait().unwrap();
        if !signalled || status.success() {
            // It finished before the signal: start over.
            std::fs::remove_dir_all(&resumed).unwrap();
            continue;
        }
        assert!(
            sent.elapsed() < std::time::Duration::from_secs(5),
            "stopped {:?} after SIGINT",
            sent.elapsed()
        );
        assert_eq!(status.code(), Some(130));
        // Nothing that reads as a finished set: no mapping, no split, no
        // half-written file.
        let left: Vec<String> = std::fs::read_dir(&resumed)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            left.iter().all(|n| n == "journal.jsonl" || n == "database"),
            "left beside the journal: {left:?}"
        );
        interrupted.push(records(&resumed));
    }
    assert_eq!(interrupted.len(), 2, "two interruptions: {interrupted:?}");
    // Without --resume the folder is refused, pointing at --resume.
    let mut fresh = args.clone();
    fresh.retain(|a| a != "--resume");
    let out = sqlwitness(&fresh);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--resume"), "{stderr}");
    // Resumed to the end: the databases recorded are not perturbed again,
    // and the set is the uninterrupted run's, byte for byte.
    let mut last = args.clone();
    last.retain(|a| a != "-q");
    let out = sqlwitness(&last);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let done = interrupted.last().unwrap();
    assert!(
        stderr.contains(&format!("resume: {done} databases from the journal")),
        "{stderr}"
    );
    assert_eq!(files(&clean), files(&resumed));
    // Resuming a finished run writes the same set again.
    ok(&args);
    assert_eq!(files(&clean), files(&resumed));
}

#[test]
fn resume_refuses_a_journal_of_other_options_or_another_command() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("set");
    let one = |out: &Path, seed: &str, extra: &[&str]| -> Output {
        let mut args = s(&[
            "perturb",
            "--kind",
            "synonym",
            "-q",
            "--db",
            "concert_singer",
        ]);
        args.extend(s(&["--seed", seed, "--bench"]));
        args.push(p(&example_spider()));
        args.push("--out".into());
        args.push(p(out));
        args.extend(s(extra));
        sqlwitness(&args)
    };
    assert!(one(&out, "1", &["--resume"]).status.success());
    let before = files(&out);
    let refused = |o: Output, what: &str, path: &Path| {
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(what), "{what}: {stderr}");
        assert!(
            stderr.contains(&p(&path.join("journal.jsonl"))),
            "names the journal: {stderr}"
        );
    };
    refused(
        one(&out, "2", &["--resume"]),
        "setting seed: journal `1`, this run `2`",
        &out,
    );
    refused(
        one(&out, "1", &["--resume", "--samples", "2"]),
        "setting samples: journal `5`, this run `2`",
        &out,
    );
    // Refused before anything was touched.
    assert_eq!(files(&out), before);
    // An eval's journal.
    let eval_out = tmp.path().join("eval");
    let mut e = s(&["eval", "-q", "--db", "concert_singer", "--bench"]);
    e.push(p(&example_spider()));
    e.push("--out".into());
    e.push(p(&eval_out));
    ok(&e);
    refused(
        one(&eval_out, "1", &["--resume"]),
        "command: journal `eval`, this run `perturb`",
        &eval_out,
    );
    assert!(eval_out.join("report.json").is_file());
}

/// A one-database benchmark under a unique name (server namespaces of
/// concurrent tests never meet), from the shipped concert_singer.
fn mini_bench(dir: &Path, db: &str) -> PathBuf {
    let src = example_spider();
    let root = dir.join("bench");
    std::fs::create_dir_all(root.join("database").join(db)).unwrap();
    std::fs::copy(
        src.join("database/concert_singer/concert_singer.sqlite"),
        root.join("database").join(db).join(format!("{db}.sqlite")),
    )
    .unwrap();
    let mut tables: Vec<Json> =
        serde_json::from_value(read_json(&src.join("tables.json"))).unwrap();
    tables.retain(|t| t["db_id"] == "concert_singer");
    tables[0]["db_id"] = Json::from(db);
    std::fs::write(
        root.join("tables.json"),
        serde_json::to_vec(&tables).unwrap(),
    )
    .unwrap();
    let mut dev: Vec<Json> = serde_json::from_value(read_json(&src.join("dev.json"))).unwrap();
    dev.retain(|q| q["db_id"] == "concert_singer");
    for q in &mut dev {
        q["db_id"] = Json::from(db);
    }
    std::fs::write(root.join("dev.json"), serde_json::to_vec(&dev).unwrap()).unwrap();
    root
}

#[test]
fn exact_renames_and_robustness_of_carried_predictions() {
    let tmp = tempfile::tempdir().unwrap();
    let db = "pt_renames";
    let bench = mini_bench(tmp.path(), db);
    let renames = tmp.path().join("renames.yaml");
    std::fs::write(
        &renames,
        format!("{db}:\n  singer.Country: Nation\n  stadium.Capacity: Seats\n"),
    )
    .unwrap();
    // Predictions: the golds, with one question made wrong.
    let dev = read_json(&bench.join("dev.json"));
    let mut preds: Vec<String> = dev
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["query"].as_str().unwrap().to_string())
        .collect();
    preds[0] = "SELECT 42".into();
    let pred_file = tmp.path().join("pred.sql");
    std::fs::write(&pred_file, preds.join("\n") + "\n").unwrap();
    let out = tmp.path().join("set");
    let mut args = s(&["perturb", "--bench"]);
    args.push(p(&bench));
    args.extend(s(&["--renames"]));
    args.push(p(&renames));
    args.extend(s(&["--seed", "1", "-q", "--out"]));
    args.push(p(&out));
    args.push("--pred".into());
    args.push(p(&pred_file));
    ok(&args);
    let m = read_json(&out.join("mapping.json"));
    assert_eq!(m["kind"], "renames");
    assert_eq!(m["databases"].as_array().unwrap().len(), 1);
    let changes = &m["databases"][0]["changes"];
    assert_eq!(changes[0]["to"], "Nation", "{changes}");
    assert_eq!(changes[1]["to"], "Seats", "{changes}");
    let tables = read_json(&out.join("tables.json"));
    let cols = tables[0]["column_names_original"].to_string();
    assert!(
        cols.contains("\"Nation\"") && cols.contains("\"Seats\"") && !cols.contains("\"Country\""),
        "{cols}"
    );
    // Runs: the original, and the perturbed set with the predictions
    // carried by the same renames and unchanged.
    let eval = |bench: &Path, pred: &Path, dir: &str| {
        let o = tmp.path().join(dir);
        let mut a = s(&["eval", "--bench"]);
        a.push(p(bench));
        a.extend(s(&["--split", "dev", "-q", "--pred"]));
        a.push(p(pred));
        a.push("--out".into());
        a.push(p(&o));
        ok(&a);
        o.join("report.json")
    };
    let orig = eval(&bench, &pred_file, "e-orig");
    let carried = eval(&out, &out.join("pred_carried.sql"), "e-carried");
    let unchanged = eval(&out, &out.join("pred_unchanged.sql"), "e-unchanged");
    let mut a = s(&["robustness", "--json", "--original"]);
    a.push(p(&orig));
    a.push("--perturbed".into());
    a.push(format!("carried={}", p(&carried)));
    a.push("--perturbed".into());
    a.push(format!("unchanged={}", p(&unchanged)));
    a.push("--mapping".into());
    a.push(p(&out.join("mapping.json")));
    let rows: Json = serde_json::from_str(&ok(&a)).unwrap();
    let row = |run: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["run"] == run)
            .unwrap()
            .clone()
    };
    let (c, u) = (row("carried"), row("unchanged"));
    assert_eq!(c["robustness"]["relative_robustness"], 1.0, "{c}");
    assert!(c["robustness"]["pre_correct"].as_u64().unwrap() > 0);
    assert!(
        u["robustness"]["relative_robustness"].as_f64().unwrap() < 0.5,
        "{u}"
    );
    // Markdown names both runs.
    a.retain(|x| x != "--json");
    let md = ok(&a);
    assert!(
        md.contains("| carried | sqlite |") && md.contains("| unchanged | sqlite |"),
        "{md}"
    );
}

#[test]
fn bad_input_names_the_file_and_the_place() {
    let tmp = tempfile::tempdir().unwrap();
    let renames = tmp.path().join("renames.yaml");
    std::fs::write(&renames, "concert_singer:\n  singer_Country: Nation\n").unwrap();
    let mut args = s(&["perturb", "--bench"]);
    args.push(p(&example_spider()));
    args.push("--renames".into());
    args.push(p(&renames));
    args.push("--out".into());
    args.push(p(&tmp.path().join("out")));
    let out = sqlwitness(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("renames.yaml") && stderr.contains("singer_Country"),
        "{stderr}"
    );
    // No kind at all.
    let out = sqlwitness(&s(&["perturb", "--bench", "x", "--out", "y"]));
    assert_eq!(out.status.code(), Some(2));
}

/// Drops, on each server, the copies of every database of a perturbed
/// set (`set`: its database folder) made under `prefix`.
struct SetCopies {
    servers: Vec<(sqlwitness_core::EngineKind, String)>,
    prefix: String,
    set: PathBuf,
}

impl Drop for SetCopies {
    fn drop(&mut self) {
        let Ok(entries) = std::fs::read_dir(&self.set) else {
            return;
        };
        let ids: Vec<String> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        for (kind, url) in &self.servers {
            let target = sqlwitness_migrate::MigrationTarget::new(*kind, url.as_str());
            for id in &ids {
                let ns = format!("{}{id}", self.prefix);
                let _ = sqlwitness_migrate::drop_namespace(&target, &ns);
            }
        }
    }
}

#[test]
fn perturbed_sets_migrate_and_verify_on_the_servers() {
    let servers = servers();
    if servers.is_empty() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let db = unique_name("ptc");
    let bench = mini_bench(tmp.path(), &db);
    let out = tmp.path().join("set");
    // The set's copies are made under a prefix of the test's own and
    // dropped at the end, however it ends.
    let prefix = format!("{}_", unique_name("swt_ptc"));
    let _copies = SetCopies {
        servers: servers.clone(),
        prefix: prefix.clone(),
        set: out.join("database"),
    };
    let mut args = s(&[
        "perturb",
        "--kind",
        "content",
        "--samples",
        "2",
        "-q",
        "--bench",
    ]);
    args.push(p(&bench));
    args.push("--out".into());
    args.push(p(&out));
    ok(&args);
    let engines: Vec<&str> = servers.iter().map(|(k, _)| k.as_str()).collect();
    let mut a = s(&["migrate", "--split", "dev", "--bench"]);
    a.push(p(&out));
    a.push("--engines".into());
    a.push(engines.join(","));
    a.push("--log-dir".into());
    a.push(p(&tmp.path().join("logs")));
    a.extend(["--namespace-prefix".into(), prefix.clone()]);
    a.extend(server_args(&servers));
    ok(&a);
    // The gold self-check on every engine.
    let mut e = s(&["eval", "--split", "dev", "-q", "--bench"]);
    e.push(p(&out));
    e.push("--engines".into());
    e.push(format!("sqlite,{}", engines.join(",")));
    e.push("--out".into());
    e.push(p(&tmp.path().join("eval")));
    e.extend(["--namespace-prefix".into(), prefix.clone()]);
    e.extend(server_args(&servers));
    ok(&e);
    let report = read_json(&tmp.path().join("eval/report.json"));
    for engine in std::iter::once("sqlite").chain(engines.iter().copied()) {
        let x = &report["summary"]["engines"][engine];
        assert!(
            x["questions"].as_u64().unwrap_or(0) > 0,
            "{engine}: {x}; the summary: {}",
            report["summary"]
        );
        assert_eq!(x["missing_db"], 0, "{engine}: {x}");
        assert_eq!(x["engine_error"], 0, "{engine}: {x}");
    }
}

#[test]
fn user_dictionaries_and_content_rules_extend_the_shipped_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let db = "pt_user";
    let bench = mini_bench(tmp.path(), db);
    let dict = tmp.path().join("dict.yaml");
    std::fs::write(
        &dict,
        format!("kind: synonym\nsources: [{{name: a test}}]\ncolumns:\n  {db}:\n    singer.Country: [homeland]\n"),
    )
    .unwrap();
    let out = tmp.path().join("syn");
    let mut args = s(&[
        "perturb",
        "--kind",
        "synonym",
        "--samples",
        "3",
        "-q",
        "--bench",
    ]);
    args.push(p(&bench));
    args.push("--dictionary".into());
    args.push(p(&dict));
    args.push("--out".into());
    args.push(p(&out));
    ok(&args);
    let m = read_json(&out.join("mapping.json"));
    let changes = m["databases"].to_string();
    assert!(changes.contains("\"Homeland\""), "{changes}");
    assert!(m["sources"].to_string().contains("a test"));
    // A user rule: stadium.Capacity stored as seats above 1000.
    let rules = tmp.path().join("rules.yaml");
    std::fs::write(
        &rules,
        "rules:\n  - name: capacity-above-1000\n    kind: affine\n    names: [capacity]\n    new_name: seats_above_1000\n    scale: 1\n    offset: -1000\n",
    )
    .unwrap();
    let out = tmp.path().join("content");
    let mut args = s(&[
        "perturb",
        "--kind",
        "content",
        "--samples",
        "5",
        "-q",
        "--bench",
    ]);
    args.push(p(&bench));
    args.push("--content-rules".into());
    args.push(p(&rules));
    args.push("--out".into());
    args.push(p(&out));
    ok(&args);
    let m = read_json(&out.join("mapping.json"));
    let rules_used = m["databases"].to_string();
    assert!(rules_used.contains("capacity-above-1000"), "{rules_used}");
    assert_eq!(
        m["summary"]["verified"], m["summary"]["rewritten"],
        "{}",
        m["summary"]
    );
    // A bad rule names the file and the rule.
    std::fs::write(&rules, "rules:\n  - name: bad\n    kind: affine\n    names: [year]\n    new_name: x\n    scale: 2\n    offset: 0\n").unwrap();
    let mut args = s(&["perturb", "--kind", "content", "-q", "--bench"]);
    args.push(p(&bench));
    args.push("--content-rules".into());
    args.push(p(&rules));
    args.push("--out".into());
    args.push(p(&tmp.path().join("bad")));
    let o = sqlwitness(&args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("rules.yaml") && err.contains("bad"), "{err}");
}

/// `--reference` on every engine that holds copies of its own, with the
/// benchmark's golds: each runs on that engine with its names spelled as
/// the database spells them (as `eval` runs them), so on concert_singer
/// (`Name`, `Age` …) no gold is dropped for a name the engine folded, and
/// what is dropped is the engine's own dialect (type comparisons, GROUP
/// BY); DuckDB keeps its copies in a folder of the test's own.
#[test]
fn every_engine_on_copies_of_its_own_judges_as_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let mut engines: Vec<(String, Vec<String>)> = servers()
        .iter()
        .map(|(k, u)| (k.to_string(), server_args(&[(*k, u.clone())])))
        .collect();
    engines.push((
        "duckdb".to_string(),
        vec![
            "--server".to_string(),
            format!("duckdb=duckdb:{}", dir.path().join("duckdb").display()),
        ],
    ));
    let prefix = format!("{}_", unique_name("swt_pref"));
    for (engine, server) in engines {
        let out = dir.path().join(&engine);
        let mut args = s(&["perturb", "--bench"]);
        args.push(p(&example_spider()));
        args.extend(s(&["--kind", "synonym", "--db", "concert_singer", "-q"]));
        args.extend(s(&["--reference", &engine, "--namespace-prefix", &prefix]));
        args.extend(server);
        args.push("--out".into());
        args.push(p(&out));
        let made = ok_or_err(&args);
        // The original's copy this run migrated goes with the test.
        if let Some((kind, url)) = servers().into_iter().find(|(k, _)| k.as_str() == engine) {
            let target = sqlwitness_migrate::MigrationTarget::new(kind, url);
            let _ = sqlwitness_migrate::drop_namespace(&target, &format!("{prefix}concert_singer"));
        }
        made.unwrap_or_else(|e| panic!("{engine}: {e}"));
        let mapping = read_json(&out.join("mapping.json"));
        let summary = &mapping["summary"];
        assert!(
            summary["verified"].as_u64().unwrap() > 0,
            "{engine}: {summary}"
        );
        for d in mapping["dropped"].as_array().unwrap() {
            let reason = d["reason"].as_str().unwrap();
            let folded = reason.contains("Unknown column")
                || (reason.contains("column") && reason.contains("does not exist"));
            assert!(!folded, "{engine}: a name the engine folded: {d}");
        }
    }
}
