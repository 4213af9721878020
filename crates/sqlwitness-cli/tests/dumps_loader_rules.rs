//! PostgreSQL dumps whose own settings change how psql loads them, and
//! what an import that fails leaves behind:
//!
//! - a dump that sets psql's `ON_ERROR_STOP` stops at the first statement
//!   the server rejects, as psql stops, and leaves no SQLite file;
//! - a table whose dump forces its policies on its owner (`FORCE ROW LEVEL
//!   SECURITY`) is read whole, as psql's load by a superuser holds it;
//! - two tables of one name in two schemas: one is kept, the other is
//!   named in the report and on stderr;
//! - a benchmark whose `dumps.json` names a database whose SQLite file an
//!   import cut off before its end left is refused by `eval`, never run on;
//! - one whose import could not write a table stops the first `eval`, and
//!   every later one says so before it runs on what was written.

#[path = "../../../tests/common/dump_copies.rs"]
mod dump_copies;

use std::path::Path;

use dump_copies::{bin, json, postgres, Copies};

/// `import` of the dump `text` (written into `dir`) on PostgreSQL as
/// database `db_id`: the command's output.
fn import_text(
    url: &str,
    dir: &Path,
    text: &str,
    db_id: &str,
    copies: &Copies,
) -> std::process::Output {
    let dump = dir.join(format!("{db_id}.sql"));
    std::fs::write(&dump, text).unwrap();
    bin()
        .args(["import", "--engine", "postgres", "--server", url])
        .args(["--namespace-prefix", &copies.prefix, "--db-id", db_id])
        .arg("--out")
        .arg(dir.join("database"))
        .arg("--dump")
        .arg(&dump)
        .output()
        .unwrap()
}

fn sqlite_count(path: &Path, sql: &str) -> i64 {
    rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_dump_that_sets_on_error_stop_stops_at_its_first_rejected_statement() {
    let servers = sqlwitness_testkit::servers();
    let Some((pg, url)) = postgres(&servers) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut copies = Copies::new("swt_stop");
    copies.add(pg, &url, "stops");
    copies.add(pg, &url, "goes_on");
    let o = import_text(
        &url,
        dir.path(),
        "\\set ON_ERROR_STOP on\n\
         CREATE TABLE a (id integer PRIMARY KEY);\n\
         INSERT INTO a VALUES (1);\n\
         INSERT INTO a VALUES (1);\n\
         CREATE TABLE b (id integer);\n\
         INSERT INTO b VALUES (2);\n",
        "stops",
        &copies,
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{stderr}");
    assert!(
        stderr.contains("line 4") && stderr.contains("ON_ERROR_STOP"),
        "{stderr}"
    );
    // Nothing the failed import began is left to be run on.
    assert!(!dir.path().join("database/stops/stops.sqlite").exists());
    let report = json(&dir.path().join("database/import-report.json"));
    assert_eq!(report["failed"], true, "{report}");
    // Turned off again, the load goes on past the rejected statement, as
    // psql goes on.
    let o = import_text(
        &url,
        dir.path(),
        "\\set ON_ERROR_STOP 1\n\
         \\unset ON_ERROR_STOP\n\
         CREATE TABLE a (id integer PRIMARY KEY);\n\
         INSERT INTO a VALUES (1);\n\
         INSERT INTO a VALUES (1);\n\
         CREATE TABLE b (id integer);\n\
         INSERT INTO b VALUES (2);\n",
        "goes_on",
        &copies,
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("line 5"), "{stderr}");
    let file = dir.path().join("database/goes_on/goes_on.sqlite");
    assert_eq!(sqlite_count(&file, "SELECT count(*) FROM a"), 1);
    assert_eq!(sqlite_count(&file, "SELECT count(*) FROM b"), 1);
}

#[test]
fn a_table_forcing_its_policies_on_its_owner_is_read_whole() {
    let servers = sqlwitness_testkit::servers();
    let Some((pg, url)) = postgres(&servers) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut copies = Copies::new("swt_rls");
    copies.add(pg, &url, "rls");
    let o = import_text(
        &url,
        dir.path(),
        "CREATE TABLE t (id integer PRIMARY KEY, owner text);\n\
         INSERT INTO t VALUES (1, 'alice'), (2, 'bob');\n\
         ALTER TABLE t ENABLE ROW LEVEL SECURITY;\n\
         ALTER TABLE t FORCE ROW LEVEL SECURITY;\n\
         CREATE POLICY p ON t USING (owner = current_user);\n",
        "rls",
        &copies,
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let file = dir.path().join("database/rls/rls.sqlite");
    assert_eq!(sqlite_count(&file, "SELECT count(*) FROM t"), 2);
    let report = json(&dir.path().join("database/import-report.json"));
    // The copy on PostgreSQL holds what the file holds.
    assert_eq!(
        report["databases"][0]["source_copy"]["faithful"], true,
        "{report}"
    );
}

#[test]
fn of_two_tables_of_one_name_the_one_left_out_is_said() {
    let servers = sqlwitness_testkit::servers();
    let Some((pg, url)) = postgres(&servers) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut copies = Copies::new("swt_twin");
    copies.add(pg, &url, "twins");
    let o = import_text(
        &url,
        dir.path(),
        "CREATE SCHEMA sales;\nCREATE SCHEMA hr;\n\
         CREATE TABLE sales.person (id integer PRIMARY KEY, name text);\n\
         CREATE TABLE hr.person (id integer PRIMARY KEY, salary numeric(10,2));\n\
         INSERT INTO sales.person VALUES (1, 'a'), (2, 'b');\n\
         INSERT INTO hr.person VALUES (1, 10.50);\n",
        "twins",
        &copies,
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    // `hr` comes before `sales`: its table is kept.
    let file = dir.path().join("database/twins/twins.sqlite");
    assert_eq!(sqlite_count(&file, "SELECT count(*) FROM person"), 1);
    assert!(
        stderr.contains("warning") && stderr.contains("sales.person"),
        "{stderr}"
    );
    let report = json(&dir.path().join("database/import-report.json"));
    let hidden = report["hidden_tables"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(hidden.len(), 1, "{report}");
    assert!(hidden[0].as_str().unwrap().contains("sales.person"));
}

#[test]
fn eval_refuses_a_file_an_import_cut_off_left() {
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    std::fs::create_dir_all(bench.join("database/shop")).unwrap();
    std::fs::write(bench.join("shop.sql"), "CREATE TABLE t (id integer);\n").unwrap();
    // What an import cut off before its end leaves: a file, no model, and
    // the mark an import puts beside the file it writes until it is done.
    let db = rusqlite::Connection::open(bench.join("database/shop/shop.sqlite")).unwrap();
    db.execute_batch("CREATE TABLE t (id integer);").unwrap();
    drop(db);
    std::fs::write(bench.join("database/shop/shop.sqlite.importing"), "").unwrap();
    std::fs::write(
        bench.join("dumps.json"),
        r#"[{"dump": "shop.sql", "engine": "postgres", "db_id": "shop"}]"#,
    )
    .unwrap();
    std::fs::write(
        bench.join("dev.jsonl"),
        r#"{"db_id": "shop", "gold": "SELECT count(*) FROM t"}"#,
    )
    .unwrap();
    let pred = bench.join("pred.sql");
    std::fs::write(&pred, "SELECT count(*) FROM t\n").unwrap();
    let o = bin()
        .args(["eval", "--bench"])
        .arg(bench)
        .args(["--engines", "sqlite", "--pred"])
        .arg(&pred)
        .arg("--out")
        .arg(bench.join("out"))
        .env(
            "SQLWITNESS_POSTGRES_URL",
            "postgres://nobody@127.0.0.1:1/none",
        )
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{stderr}");
    assert!(
        stderr.contains("cut off before its end") && stderr.contains("shop.sqlite"),
        "{stderr}"
    );
}

#[test]
fn a_database_imported_incomplete_is_named_by_every_later_eval() {
    let servers = sqlwitness_testkit::servers();
    let Some((pg, url)) = postgres(&servers) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    let mut copies = Copies::new("swt_incomplete");
    copies.add(pg, &url, "shop");
    // Two tables SQLite cannot tell apart: the second is not written.
    std::fs::write(
        bench.join("shop.sql"),
        "CREATE TABLE \"Item\" (id integer);\n\
         CREATE TABLE item (id integer);\n\
         INSERT INTO item VALUES (1), (2);\n",
    )
    .unwrap();
    std::fs::write(
        bench.join("dumps.json"),
        r#"[{"dump": "shop.sql", "engine": "postgres", "db_id": "shop"}]"#,
    )
    .unwrap();
    std::fs::write(
        bench.join("dev.jsonl"),
        r#"{"db_id": "shop", "gold": "SELECT count(*) FROM \"Item\""}"#,
    )
    .unwrap();
    let eval = || {
        bin()
            .args(["eval", "--bench"])
            .arg(bench)
            .args([
                "--engines",
                "sqlite",
                "-q",
                "--namespace-prefix",
                &copies.prefix,
            ])
            .args(["--server", &format!("postgres={url}")])
            .arg("--out")
            .arg(bench.join("out"))
            .output()
            .unwrap()
    };
    let first = eval();
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert_eq!(first.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("the import is incomplete"), "{stderr}");
    let again = eval();
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{stderr}");
    assert!(
        stderr.contains("database shop was imported incomplete")
            && stderr.contains("table item: not written")
            && stderr.contains("import-report-0.json"),
        "{stderr}"
    );
}
