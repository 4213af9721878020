//! `spider-eval` and `bird-eval` end to end, the binary run on the shipped
//! Spider example and on a small BIRD-style database: a table is printed
//! only when every question of it was computed, files the official scripts
//! would stop on are refused naming the user's file and the line, and the
//! log and the native tables read as the official ones. SQLite only.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    sqlwitness_testkit::repo_root()
}

fn example() -> PathBuf {
    repo().join("examples/spider-dev")
}

/// Runs sqlwitness from the repository root, no server configured.
fn run(args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sqlwitness"));
    c.current_dir(repo()).args(args);
    for kind in sqlwitness_core::EngineKind::all() {
        c.env_remove(kind.url_env())
            .env_remove(kind.reader_url_env());
    }
    c.output().unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A refusal: `code`, nothing on standard output, and each of `named` in
/// the message.
fn refused(o: &Output, code: i32, named: &[&str]) -> String {
    let e = err(o);
    assert_eq!(o.status.code(), Some(code), "{e}");
    assert_eq!(out(o), "", "a refusal prints no table: {e}");
    for n in named {
        assert!(e.contains(n), "`{n}` not named: {e}");
    }
    assert!(
        !e.contains("sqlwitness-dropin-") && !e.contains("dev_gold.sql"),
        "a temporary file named: {e}"
    );
    e
}

/// The example's questions on `dbs` as the Spider evaluator's files:
/// `gold.sql` (`SQL<TAB>db_id`) and `pred.sql` (the gold's SQL, so every
/// question matches).
fn spider_files(dir: &Path, dbs: &[&str]) -> (PathBuf, PathBuf, usize) {
    let text = std::fs::read_to_string(example().join("dev.json")).unwrap();
    let questions: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let (mut gold, mut pred, mut n) = (String::new(), String::new(), 0);
    for q in &questions {
        let db = q["db_id"].as_str().unwrap();
        if dbs.contains(&db) {
            let sql = q["query"].as_str().unwrap().trim();
            gold.push_str(&format!("{sql}\t{db}\n"));
            pred.push_str(&format!("{sql}\n"));
            n += 1;
        }
    }
    let (g, p) = (dir.join("gold.sql"), dir.join("pred.sql"));
    std::fs::write(&g, gold).unwrap();
    std::fs::write(&p, pred).unwrap();
    (g, p, n)
}

fn spider_eval(gold: &Path, pred: &Path, db: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "spider-eval",
        "--gold",
        s(gold),
        "--pred",
        s(pred),
        "--db",
        s(db),
        "--etype",
        "exec",
        "-q",
    ];
    args.extend(extra);
    run(&args)
}

const BIRD_GOLDS: [(&str, &str); 6] = [
    ("SELECT count(*) FROM member", "simple"),
    ("SELECT name FROM member WHERE age > 30", "simple"),
    ("SELECT max(age) FROM member", "moderate"),
    (
        "SELECT name FROM member ORDER BY age DESC LIMIT 1",
        "moderate",
    ),
    ("SELECT avg(age) FROM member", "challenging"),
    ("SELECT min(age) FROM member", "challenging"),
];

/// BIRD mini-dev's files on one small database: `dev_databases/club`,
/// the gold (`SQL<TAB>db_id`), the difficulties (JSON lines) and the
/// predictions (BIRD JSON: the golds, the last one wrong).
struct Bird {
    dbs: PathBuf,
    gold: PathBuf,
    diff: PathBuf,
    pred: PathBuf,
}

fn bird_files(dir: &Path) -> Bird {
    let dbs = dir.join("dev_databases");
    std::fs::create_dir_all(dbs.join("club")).unwrap();
    let c = rusqlite::Connection::open(dbs.join("club/club.sqlite")).unwrap();
    c.execute_batch(
        "CREATE TABLE member (id INTEGER PRIMARY KEY, name TEXT, age INTEGER);
         INSERT INTO member VALUES (1,'Ann',31),(2,'Bob',25),(3,'Cid',40),(4,'Dee',19);",
    )
    .unwrap();
    let gold = dir.join("gold.sql");
    let diff = dir.join("diff.jsonl");
    let pred = dir.join("pred.json");
    let mut g = String::new();
    let mut d = String::new();
    let mut p = serde_json::Map::new();
    for (i, (sql, level)) in BIRD_GOLDS.iter().enumerate() {
        g.push_str(&format!("{sql}\tclub\n"));
        d.push_str(&format!(
            "{{\"db_id\": \"club\", \"difficulty\": \"{level}\"}}\n"
        ));
        let predicted = if i == 5 { "SELECT 0" } else { sql };
        p.insert(
            i.to_string(),
            format!("{predicted}\t----- bird -----\tclub").into(),
        );
    }
    std::fs::write(&gold, g).unwrap();
    std::fs::write(&diff, d).unwrap();
    std::fs::write(&pred, serde_json::to_string_pretty(&p).unwrap()).unwrap();
    Bird {
        dbs,
        gold,
        diff,
        pred,
    }
}

fn bird_eval(gold: &Path, pred: &Path, dbs: &Path, extra: &[&str]) -> Output {
    let root = format!("{}/", dbs.display());
    let mut args = vec![
        "bird-eval",
        "--predicted_sql_path",
        s(pred),
        "--ground_truth_path",
        s(gold),
        "--db_root_path",
        &root,
        "--sql_dialect",
        "SQLite",
        "-q",
    ];
    args.extend(extra);
    run(&args)
}

#[test]
fn a_folder_of_links_prints_no_table_unless_allow_outside_links() {
    let dir = tempfile::tempdir().unwrap();
    let (gold, pred, n) = spider_files(dir.path(), &["concert_singer", "pets_1"]);
    let links = dir.path().join("links");
    std::fs::create_dir(&links).unwrap();
    for db in ["concert_singer", "pets_1"] {
        std::os::unix::fs::symlink(example().join("database").join(db), links.join(db)).unwrap();
    }
    let o = spider_eval(&gold, &pred, &links, &[]);
    refused(
        &o,
        3,
        &["--db", s(&links), "is a link to", "--allow-outside-links"],
    );
    // With the flag, as `eval --allow-outside-links`, the links are read.
    let o = spider_eval(&gold, &pred, &links, &["--allow-outside-links"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let table = out(&o);
    let count = table.lines().nth(1).unwrap();
    assert!(count.trim_end().ends_with(&n.to_string()), "{table}");
    assert!(
        table.lines().nth(3).unwrap().trim_end().ends_with("1.000"),
        "{table}"
    );

    // A database missing from the folder: no table either (exit 2).
    let (gold, pred, _) = spider_files(dir.path(), &["concert_singer", "wta_1"]);
    let o = spider_eval(&gold, &pred, &example().join("database"), &[]);
    refused(&o, 2, &["--db", "wta_1 (62 questions)", "missing"]);
}

#[test]
fn bird_eval_needs_the_difficulties_and_prints_no_table_of_zeros() {
    let dir = tempfile::tempdir().unwrap();
    let b = bird_files(dir.path());
    // The official script reads `--diff_json_path` unconditionally.
    let o = bird_eval(&b.gold, &b.pred, &b.dbs, &[]);
    refused(&o, 2, &["--diff_json_path"]);
    // An entry without a difficulty, a level no question has.
    let diff = dir.path().join("bad.jsonl");
    let text = std::fs::read_to_string(&b.diff).unwrap();
    std::fs::write(&diff, text.replacen("\"difficulty\"", "\"level\"", 1)).unwrap();
    let d = format!("--diff_json_path={}", diff.display());
    let o = bird_eval(&b.gold, &b.pred, &b.dbs, &[&d]);
    refused(&o, 2, &[s(&diff), "line 1", "difficulty"]);
    std::fs::write(&diff, text.replace("challenging", "moderate")).unwrap();
    let o = bird_eval(&b.gold, &b.pred, &b.dbs, &[&d]);
    refused(&o, 2, &[s(&diff), "no question is `challenging`"]);

    let d = format!("--diff_json_path={}", b.diff.display());
    let o = bird_eval(&b.gold, &b.pred, &b.dbs, &[&d]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let lines: Vec<String> = out(&o).lines().map(str::to_string).collect();
    assert_eq!(lines[0], "start calculate EX");
    assert_eq!(
        lines[2],
        format!("{:20} {:<20} {:<20} {:<20} {:<20}", "count", 2, 2, 2, 6)
    );
    assert_eq!(
        lines[4],
        format!(
            "{:20} {:<20} {:<20} {:<20} {:<20}",
            "EX", "100.00", "100.00", "50.00", "83.33"
        )
    );
}

#[test]
fn a_prediction_count_unlike_the_gold_is_refused_by_both() {
    let dir = tempfile::tempdir().unwrap();
    let (gold, pred, n) = spider_files(dir.path(), &["concert_singer"]);
    let text = std::fs::read_to_string(&pred).unwrap();
    let short = dir.path().join("short.sql");
    std::fs::write(&short, text.lines().skip(1).collect::<Vec<_>>().join("\n")).unwrap();
    let o = spider_eval(&gold, &short, &example().join("database"), &[]);
    refused(
        &o,
        2,
        &[
            s(&short),
            s(&gold),
            &format!("{} predictions", n - 1),
            &format!("{n} gold queries"),
        ],
    );

    let b = bird_files(&dir.path().join("bird"));
    let mut preds: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&b.pred).unwrap()).unwrap();
    preds.remove("5");
    let short = dir.path().join("short.json");
    std::fs::write(&short, serde_json::to_string(&preds).unwrap()).unwrap();
    let d = format!("--diff_json_path={}", b.diff.display());
    let o = bird_eval(&b.gold, &short, &b.dbs, &[&d]);
    refused(
        &o,
        2,
        &[s(&short), s(&b.gold), "5 predictions", "6 gold queries"],
    );
}

#[test]
fn errors_name_the_users_files_and_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let (gold, pred, _) = spider_files(dir.path(), &["concert_singer"]);
    let db = example().join("database");
    // Swapped: the predictions given as the gold.
    let o = spider_eval(&pred, &gold, &db, &[]);
    refused(&o, 2, &["--gold", s(&pred), "line 1", "swapped"]);
    let b = bird_files(&dir.path().join("bird"));
    let d = format!("--diff_json_path={}", b.diff.display());
    let o = bird_eval(&b.pred, &b.gold, &b.dbs, &[&d]);
    refused(
        &o,
        2,
        &["--ground_truth_path", s(&b.pred), "line 1", "swapped"],
    );
    // What `eval` underneath refuses is named as the user's file too: a
    // `db_id` that is not a name, a schema file that is not JSON.
    let odd = dir.path().join("odd.sql");
    std::fs::write(&odd, "SELECT 1\t../concert_singer\n").unwrap();
    let one = dir.path().join("one.sql");
    std::fs::write(&one, "SELECT 1\n").unwrap();
    let o = spider_eval(&odd, &one, &db, &[]);
    refused(&o, 2, &[s(&odd), "line 1"]);
    let tables = dir.path().join("tables.json");
    std::fs::write(&tables, "[{").unwrap();
    let o = spider_eval(&gold, &pred, &db, &["--table", s(&tables)]);
    refused(&o, 2, &[s(&tables)]);
}

#[test]
fn a_blank_prediction_line_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let (gold, pred, n) = spider_files(dir.path(), &["concert_singer"]);
    let db = example().join("database");
    let lines: Vec<String> = std::fs::read_to_string(&pred)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let with_blank = |at: usize| {
        let mut l = lines.clone();
        l[at] = "  ".into();
        let path = dir.path().join(format!("blank{at}.sql"));
        std::fs::write(&path, l.join("\n") + "\n").unwrap();
        path
    };
    // Inside: evaluation.py ends an interaction there and stops.
    let p = with_blank(4);
    let e = refused(&spider_eval(&gold, &p, &db, &[]), 2, &[s(&p), "line 5"]);
    assert!(e.contains("number of sessions must equal"), "{e}");
    // Last: evaluation.py drops it and pairs one prediction fewer.
    let p = with_blank(n - 1);
    let e = refused(
        &spider_eval(&gold, &p, &db, &[]),
        2,
        &[s(&p), &format!("line {n}")],
    );
    assert!(e.contains("one prediction fewer"), "{e}");
    // One blank line after the last prediction is the end of the file.
    let p = dir.path().join("trailing.sql");
    std::fs::write(&p, lines.join("\n") + "\n\n").unwrap();
    let o = spider_eval(&gold, &p, &db, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
}

#[test]
fn bytes_that_are_not_utf8_are_refused_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let (gold, pred, _) = spider_files(dir.path(), &["concert_singer"]);
    let db = example().join("database");
    let mut bytes = std::fs::read(&pred).unwrap();
    let third = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(1)
        .unwrap()
        .0;
    bytes.splice(
        third + 1..third + 1,
        b"SELECT 'caf\xe9' -- ".iter().copied(),
    );
    let bad = dir.path().join("latin1.sql");
    std::fs::write(&bad, &bytes).unwrap();
    let e = refused(
        &spider_eval(&gold, &bad, &db, &[]),
        2,
        &["--pred", s(&bad), "line 3", "byte 12", "not UTF-8"],
    );
    assert!(e.contains("UnicodeDecodeError"), "{e}");
    let e = refused(&spider_eval(&bad, &pred, &db, &[]), 2, &["--gold", s(&bad)]);
    assert!(e.contains("line 3"), "{e}");

    let b = bird_files(&dir.path().join("bird"));
    let mut bytes = std::fs::read(&b.pred).unwrap();
    let at = bytes.windows(8).position(|w| w == b"SELECT 0").unwrap();
    bytes[at + 7] = 0xff;
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, &bytes).unwrap();
    let d = format!("--diff_json_path={}", b.diff.display());
    let line = bytes[..at].iter().filter(|&&c| c == b'\n').count() + 1;
    refused(
        &bird_eval(&b.gold, &bad, &b.dbs, &[&d]),
        2,
        &["--predicted_sql_path", s(&bad), &format!("line {line}")],
    );
}

/// What mini-dev's `print_data` appends to `--output_log_path` for these
/// scores and counts, as the official function wrote it.
const OFFICIAL_LOG: &str = "start calculate EX\n                     simple               moderate             challenging          total               \ncount                2                    2                    2                    6                   \n======================================    EX   =====================================\nEX                   100.00               100.00               50.00                83.33               \n===========================================================================================\nFinished EX evaluation for mini dev set\n\n";

#[test]
fn the_bird_log_is_the_official_log_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let b = bird_files(dir.path());
    let log = dir.path().join("log.txt");
    let d = format!("--diff_json_path={}", b.diff.display());
    let l = format!("--output_log_path={}", log.display());
    let o = bird_eval(&b.gold, &b.pred, &b.dbs, &[&d, &l]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(std::fs::read_to_string(&log).unwrap(), OFFICIAL_LOG);
    // Appended, as the official script appends.
    let o = bird_eval(&b.gold, &b.pred, &b.dbs, &[&d, &l]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        OFFICIAL_LOG.repeat(2)
    );
}

/// The cells of the row of `table` (on `text`) whose name is `name`.
fn cells<'a>(text: &'a str, heading: &str, name: &str) -> Vec<&'a str> {
    let from = text
        .find(heading)
        .unwrap_or_else(|| panic!("{heading}: {text}"));
    let row = text[from..]
        .lines()
        .find(|l| l.starts_with(name))
        .unwrap_or_else(|| panic!("{name}: {text}"));
    row[20..].split_whitespace().collect()
}

#[test]
fn evals_tables_count_what_ex_divides_by_and_bird_runs_print_bird_levels() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("spider");
    // The example's wta_1 has no database: 62 questions left out of EX.
    let o = run(&[
        "eval",
        "--bench",
        s(&example()),
        "--db",
        "concert_singer,wta_1",
        "--out",
        s(&report),
        "-q",
    ]);
    let e = err(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    let counts = cells(&e, "sqlite by Spider hardness:", "count");
    let ex = cells(&e, "sqlite by Spider hardness:", "execution");
    for (count, ex) in counts.iter().zip(&ex) {
        let (count, ex): (f64, f64) = (count.parse().unwrap(), ex.parse().unwrap());
        let matches = count * ex;
        // Three decimals: within half a thousandth of each question.
        assert!(
            (matches - matches.round()).abs() <= count * 0.0005 + 1e-9,
            "count {count} × EX {ex}: {e}"
        );
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("report.json")).unwrap())
            .unwrap();
    let sqlite = &json["summary"]["engines"]["sqlite"];
    let with_db = sqlite["questions"].as_u64().unwrap() - sqlite["missing_db"].as_u64().unwrap();
    assert_eq!(counts[4], with_db.to_string(), "{e}");
    assert!(
        e.contains("62 without a database") && e.contains("wta_1"),
        "{e}"
    );

    // A BIRD layout: BIRD's table by difficulty, not Spider's by hardness.
    let bench = dir.path().join("bird");
    let b = bird_files(&bench);
    let questions: Vec<serde_json::Value> = BIRD_GOLDS
        .iter()
        .enumerate()
        .map(|(i, (sql, level))| {
            serde_json::json!({"question_id": i, "db_id": "club", "question": "?",
                "evidence": "", "SQL": sql, "difficulty": level})
        })
        .collect();
    std::fs::write(
        bench.join("dev.json"),
        serde_json::to_string(&questions).unwrap(),
    )
    .unwrap();
    let o = run(&[
        "eval",
        "--bench",
        s(&bench),
        "--pred",
        s(&b.pred),
        "--out",
        s(&bench.join("out")),
        "-q",
    ]);
    let e = err(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(!e.contains("by Spider hardness"), "{e}");
    assert!(!e.contains("have no hardness"), "{e}");
    assert_eq!(
        cells(&e, "sqlite by BIRD difficulty:", "count"),
        ["2", "2", "2", "6"],
        "{e}"
    );
}

/// BIRD dev's layout (`bird/llm` of its release) on two small databases:
/// `release_data/dev_databases/{club,shop}`, `release_data/dev_gold.sql`,
/// `release_data/dev.json` (the questions with their difficulty, a JSON
/// array) and
/// `exp/predict_dev.json` (BIRD JSON: the golds but two, one wrong, one
/// failing). Returns the folder.
fn bird_dev_files(dir: &Path) -> PathBuf {
    let data = dir.join("release_data");
    let dbs = data.join("dev_databases");
    for (db, schema) in [
        (
            "club",
            "CREATE TABLE member (id INTEGER PRIMARY KEY, name TEXT, age INTEGER);
             INSERT INTO member VALUES (1,'Ann',31),(2,'Bob',25),(3,'Cid',40),(4,'Dee',19);",
        ),
        (
            "shop",
            "CREATE TABLE item (id INTEGER PRIMARY KEY, label TEXT, price REAL);
             INSERT INTO item VALUES (1,'pen',1.5),(2,'ink',3.0),(3,'pad',2.25);",
        ),
    ] {
        std::fs::create_dir_all(dbs.join(db)).unwrap();
        let c = rusqlite::Connection::open(dbs.join(db).join(format!("{db}.sqlite"))).unwrap();
        c.execute_batch(schema).unwrap();
    }
    let golds = [
        ("SELECT count(*) FROM member", "club", "simple"),
        ("SELECT name FROM member WHERE age > 30", "club", "simple"),
        ("SELECT label FROM item WHERE price > 2", "shop", "simple"),
        ("SELECT max(age) FROM member", "club", "moderate"),
        (
            "SELECT label FROM item ORDER BY price DESC LIMIT 1",
            "shop",
            "moderate",
        ),
        ("SELECT avg(price) FROM item", "shop", "challenging"),
        ("SELECT min(age) FROM member", "club", "challenging"),
    ];
    let mut gold = String::new();
    let mut questions = Vec::new();
    let mut preds = serde_json::Map::new();
    for (i, (sql, db, level)) in golds.iter().enumerate() {
        gold.push_str(&format!("{sql}\t{db}\n"));
        questions.push(serde_json::json!({"question_id": i, "db_id": db, "difficulty": level}));
        let predicted = match i {
            1 => "SELECT name FROM member WHERE age >= 25",
            5 => "SELECT avg(price) FROM no_such_table",
            _ => sql,
        };
        preds.insert(
            i.to_string(),
            format!("{predicted}\t----- bird -----\t{db}").into(),
        );
    }
    std::fs::write(data.join("dev_gold.sql"), gold).unwrap();
    std::fs::write(
        data.join("dev.json"),
        serde_json::to_string_pretty(&questions).unwrap(),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("exp")).unwrap();
    std::fs::write(
        dir.join("exp/predict_dev.json"),
        serde_json::to_string_pretty(&preds).unwrap(),
    )
    .unwrap();
    dir.to_path_buf()
}

/// `bird-eval` with BIRD dev's command line as its `run_evaluation.sh`
/// writes it, the folders of `dir` given as prefixes ending with `/`, the
/// predictions under `pred_prefix` read as `mode_predict` says.
fn bird_dev_eval(dir: &Path, pred_prefix: &str, mode_predict: &str, extra: &[&str]) -> Output {
    let prefix = |p: &str| format!("{}/{p}", dir.display());
    let (dbs, pred, gold, diff) = (
        prefix("release_data/dev_databases/"),
        prefix(pred_prefix),
        prefix("release_data/"),
        prefix("release_data/dev.json"),
    );
    let mut args = vec![
        "bird-eval",
        "--db_root_path",
        &dbs,
        "--predicted_sql_path",
        &pred,
        "--data_mode",
        "dev",
        "--ground_truth_path",
        &gold,
        "--num_cpus",
        "2",
        "--mode_gt",
        "gt",
        "--mode_predict",
        mode_predict,
        "--diff_json_path",
        &diff,
        "--meta_time_out",
        "30.0",
        "-q",
    ];
    args.extend(extra);
    run(&args)
}

/// What BIRD dev's `evaluation.py` prints for [`bird_dev_files`]: 5 of 7
/// right (simple 2 of 3, moderate 2 of 2, challenging 1 of 2).
const OFFICIAL_DEV_OUTPUT: &str = "start calculate\n                     simple               moderate             challenging          total               \ncount                3                    2                    2                    7                   \n======================================    ACCURACY    =====================================\naccuracy             66.67                100.00               50.00                71.43               \n===========================================================================================\nFinished evaluation\n";

#[test]
fn bird_eval_takes_bird_devs_command_line_and_prints_its_output() {
    let dir = tempfile::tempdir().unwrap();
    let root = bird_dev_files(dir.path());
    let o = bird_dev_eval(&root, "exp/", "gpt", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(out(&o), OFFICIAL_DEV_OUTPUT);

    // `--mode_predict gt`: the gold under --predicted_sql_path scored as
    // the predictions, every question right.
    let o = bird_dev_eval(&root, "release_data/", "gt", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let text = out(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[4],
        format!(
            "{:20} {:<20} {:<20} {:<20} {:<20}",
            "accuracy", "100.00", "100.00", "100.00", "100.00"
        )
    );

    // mini-dev's flags are not BIRD dev's.
    let o = bird_dev_eval(&root, "exp/", "gpt", &["--sql_dialect", "SQLite"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_eq!(out(&o), "");
}

#[test]
fn bird_dev_without_its_predictions_names_the_path_it_built() {
    let dir = tempfile::tempdir().unwrap();
    let root = bird_dev_files(dir.path());
    let built = root.join("exp/predict_dev.json");
    std::fs::rename(&built, root.join("exp/other.json")).unwrap();
    let o = bird_dev_eval(&root, "exp/", "gpt", &[]);
    refused(&o, 2, &["--predicted_sql_path", s(&built), "not a file"]);

    // A prefix without its `/`: the script reads `exppredict_dev.json`.
    std::fs::rename(root.join("exp/other.json"), &built).unwrap();
    let o = bird_dev_eval(&root, "exp", "gpt", &[]);
    let joined = format!("{}/exppredict_dev.json", root.display());
    refused(&o, 2, &[&joined, "end the folder with `/`"]);
}

#[test]
fn bird_eval_with_ves_prints_bird_devs_ves_table() {
    let dir = tempfile::tempdir().unwrap();
    let root = bird_dev_files(dir.path());
    let o = bird_dev_eval(&root, "exp/", "gpt", &["--ves"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let text = out(&o);
    let lines: Vec<&str> = text.lines().collect();
    let official: Vec<&str> = OFFICIAL_DEV_OUTPUT.lines().collect();
    // The script's lines, with one more under its `ves` row: sqlwitness's
    // stable timing of the same runs, named after its method.
    assert_eq!(lines.len(), official.len() + 1, "{text}");
    for i in [0, 1, 2] {
        assert_eq!(lines[i], official[i], "{text}");
    }
    for i in [5, 6] {
        assert_eq!(lines[i + 1], official[i], "{text}");
    }
    assert_eq!(
        lines[3],
        "=========================================    VES   ========================================"
    );
    // The times vary from run to run: the cells are numbers, two decimals,
    // in the script's columns, above 0 (each level has a right prediction).
    for (line, name) in [(lines[4], "ves"), (lines[5], "ves (sqlite_steps)")] {
        assert!(line.starts_with(&format!("{name:20} ")), "{text}");
        let cells: Vec<f64> = line.as_bytes()[21..]
            .chunks(21)
            .map(|c| {
                let cell = std::str::from_utf8(c).unwrap().trim();
                assert_eq!(cell.split('.').nth(1).map(str::len), Some(2), "{text}");
                cell.parse().unwrap()
            })
            .collect();
        assert_eq!(cells.len(), 4, "{text}");
        assert!(cells.iter().all(|v| *v > 0.0), "{text}");
    }
    // Standard error says which timing is which.
    let note = err(&o);
    assert!(
        note.contains("`ves` is timed as evaluation_ves.py times"),
        "{note}"
    );
    assert!(
        note.contains("`ves (sqlite_steps)` is sqlwitness's stable timing"),
        "{note}"
    );
}

/// What mini-dev's `evaluation_f1.py` prints (standard output, then its
/// log) for [`bird_files`] with [`PARTIAL_PREDICTIONS`], as the script
/// printed it (mini_dev at 4d970a9, Python 3.11): the second and fourth
/// predictions are worth 2/3 (an extra column; an extra row), the third
/// and sixth nothing.
const OFFICIAL_SOFT_F1: &str = "start calculate Soft F1\n                     simple               moderate             challenging          total               \ncount                2                    2                    2                    6                   \n======================================    Soft-F1    =====================================\nSoft-F1              83.33                33.33                50.00                55.56               \n===========================================================================================\nFinished EX evaluation for SQLite on Mini Dev set\n\n\n\n";
const OFFICIAL_SOFT_F1_LOG: &str = "start calculate Soft-F1\n                     simple               moderate             challenging          total               \ncount                2                    2                    2                    6                   \n======================================    Soft-F1   =====================================\nSoft-F1              83.33                33.33                50.00                55.56               \n===========================================================================================\nFinished Soft-F1 evaluation for mini dev set\n\n";

/// Predictions for [`BIRD_GOLDS`] that mini-dev's Soft F1 credits in part.
const PARTIAL_PREDICTIONS: [&str; 6] = [
    "SELECT count(*) FROM member",
    "SELECT name, age FROM member WHERE age > 30",
    "SELECT max(age) FROM member WHERE age < 35",
    "SELECT name FROM member ORDER BY age DESC LIMIT 2",
    "SELECT avg(age) FROM member",
    "SELECT 0",
];

/// Mini-dev's `evaluation_f1.py` takes `evaluation_ex.py`'s flags: with
/// `--f1`, its Soft F1 table, byte for byte, on standard output and in
/// the log; BIRD dev has no such script.
#[test]
fn bird_eval_with_f1_prints_mini_devs_soft_f1_output() {
    let dir = tempfile::tempdir().unwrap();
    let b = bird_files(dir.path());
    let mut p = serde_json::Map::new();
    for (i, sql) in PARTIAL_PREDICTIONS.iter().enumerate() {
        p.insert(
            i.to_string(),
            format!("{sql}\t----- bird -----\tclub").into(),
        );
    }
    std::fs::write(&b.pred, serde_json::to_string_pretty(&p).unwrap()).unwrap();
    let log = dir.path().join("log.txt");
    let d = format!("--diff_json_path={}", b.diff.display());
    let l = format!("--output_log_path={}", log.display());
    for flag in ["--f1", "--soft_f1"] {
        std::fs::write(&log, "").unwrap();
        let o = bird_eval(&b.gold, &b.pred, &b.dbs, &[&d, &l, flag]);
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
        assert_eq!(out(&o), OFFICIAL_SOFT_F1, "{flag}");
        assert_eq!(std::fs::read_to_string(&log).unwrap(), OFFICIAL_SOFT_F1_LOG);
    }
    let o = bird_eval(&b.gold, &b.pred, &b.dbs, &[&d, "--f1", "--ves"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_eq!(out(&o), "");
}

/// Mini-dev's `evaluation_ves.py` takes `evaluation_ex.py`'s flags: with
/// `--ves`, its R-VES table on standard output and in the log, the row
/// timed as the script times, sqlwitness's stable timing under it.
#[test]
fn bird_eval_with_ves_prints_mini_devs_r_ves_table() {
    let dir = tempfile::tempdir().unwrap();
    let b = bird_files(dir.path());
    let log = dir.path().join("log.txt");
    let d = format!("--diff_json_path={}", b.diff.display());
    let l = format!("--output_log_path={}", log.display());
    let o = bird_eval(&b.gold, &b.pred, &b.dbs, &[&d, &l, "--ves"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let text = out(&o);
    let official: Vec<&str> = OFFICIAL_LOG.lines().collect();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "start calculate R-VES", "{text}");
    assert_eq!(lines[1..3], official[1..3], "{text}");
    assert_eq!(
        lines[3],
        "======================================    R-VES    =====================================",
        "{text}"
    );
    assert!(lines[4].starts_with(&format!("{:20} ", "R-VES")), "{text}");
    assert!(
        lines[5].starts_with(&format!("{:20} ", "R-VES (sqlite_steps)")),
        "{text}"
    );
    assert_eq!(lines[6], official[5], "{text}");
    // The script's last lines: its `print(... on Mini Dev set)` and
    // `print("\n\n")`.
    assert!(
        text.ends_with("\nFinished R-VES evaluation for SQLite on Mini Dev set\n\n\n\n"),
        "{text:?}"
    );
    // Each level has a right prediction: every cell above 0.
    for name in ["R-VES", "R-VES (sqlite_steps)"] {
        let row = lines
            .iter()
            .find(|l| l.starts_with(&format!("{name:20} ")))
            .unwrap();
        let cells: Vec<f64> = row[21..]
            .split_whitespace()
            .map(|c| c.parse().unwrap())
            .collect();
        assert_eq!(cells.len(), 4, "{text}");
        assert!(cells.iter().all(|v| *v > 0.0), "{text}");
    }
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.starts_with("start calculate R-VES\n"), "{logged}");
    assert!(
        logged.contains(
            "\n======================================    R-VES   =====================================\n"
        ),
        "{logged}"
    );
    assert!(
        logged.ends_with("\nFinished R-VES evaluation for mini dev set\n\n"),
        "{logged}"
    );
    let note = err(&o);
    assert!(
        note.contains("`R-VES` is timed as mini-dev's evaluation_ves.py times"),
        "{note}"
    );
}
