//! Benchmarks shipped as SQL dumps (`sqlwitness import`): loaded by their
//! own engine under a confined login, written as verified SQLite files.
//!
//! - Chinook as its author ships it for PostgreSQL and MySQL, loaded by
//!   PostgreSQL, MySQL and MariaDB, is the author's SQLite database cell for
//!   cell — except where the engine itself reads the dump differently, and
//!   only there (PostgreSQL's `N'…'` literals are `character`, whose trailing
//!   spaces it drops; MySQL reads `\ ` in a string as an escaped space).
//! - Northwind's PostgreSQL dump arrives whole and verified.
//! - Every type family of the hand-made dumps in `tests/dumps/` is carried
//!   or refused by name, and views, triggers and routines are listed.
//! - A hostile dump is refused before anything runs, naming its line, or
//!   fails inside its own namespace; what sqlwitness did not create is left
//!   as it was; a statement past its time limit is stopped.

#[path = "common/admin.rs"]
mod admin;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rusqlite::types::Value;
use sqlwitness_core::EngineKind;
use sqlwitness_dialect::Adapter;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sqlwitness"))
}

fn adapter(kind: EngineKind) -> Adapter {
    sqlwitness_dialect::shipped(kind).adapter
}

/// Runs `sqlwitness import`; the exit code and stderr.
fn import(kind: EngineKind, url: &str, dump: &Path, out: &Path, extra: &[&str]) -> (i32, String) {
    let o = bin()
        .args([
            "import",
            "--engine",
            kind.as_str(),
            "--server",
            url,
            "--out",
        ])
        .arg(out)
        .arg("--dump")
        .arg(dump)
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    eprintln!("{kind}: {stderr}");
    (o.status.code().unwrap_or(-1), stderr)
}

/// Every table of a SQLite file, by a name without case and underscores
/// (the PostgreSQL Chinook writes `invoice_line` for `InvoiceLine`), with
/// its rows sorted.
fn tables(path: &Path) -> std::collections::BTreeMap<String, Vec<Vec<Value>>> {
    let db =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let names: Vec<String> = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut out = std::collections::BTreeMap::new();
    for name in names {
        let mut stmt = db.prepare(&format!("SELECT * FROM \"{name}\"")).unwrap();
        let n = stmt.column_count();
        let mut rows: Vec<Vec<Value>> = stmt
            .query_map([], |r| (0..n).map(|i| r.get::<_, Value>(i)).collect())
            .unwrap()
            .map(Result::unwrap)
            .collect();
        rows.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        out.insert(name.to_lowercase().replace('_', ""), rows);
    }
    out
}

/// MySQL's reading of a string literal's backslashes (`\ ` is a space).
fn mysql_unescaped(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('Z') => out.push('\u{1a}'),
            Some(c @ ('%' | '_')) => {
                out.push('\\');
                out.push(c);
            }
            Some(c) => out.push(c),
            None => out.push('\\'),
        }
    }
    out
}

#[test]
fn chinook_from_each_engines_dump_is_the_sqlite_original_cell_for_cell() {
    let (Some(dumps), Some(original)) = (
        sqlwitness_testkit::shared_data("dumps/chinook"),
        sqlwitness_testkit::shared_data("chinook/Chinook_Sqlite.sqlite"),
    ) else {
        return;
    };
    let expected = tables(&original);
    let dir = tempfile::tempdir().unwrap();
    let ran = sqlwitness_testkit::for_each_server(None, |kind, url| {
        let (dump, engine_reading): (&str, fn(&str) -> String) = match adapter(kind) {
            Adapter::Postgres => ("Chinook_PostgreSql.sql", |s| {
                s.trim_end_matches(' ').to_string()
            }),
            _ => ("Chinook_MySql.sql", mysql_unescaped),
        };
        let out = dir.path().join(kind.as_str());
        let (code, stderr) = import(kind, url, &dumps.join(dump), &out, &["--db-id", "chinook"]);
        assert_eq!(code, 0, "{stderr}");
        let got = tables(&out.join("chinook/chinook.sqlite"));
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            expected.keys().collect::<Vec<_>>(),
            "{kind}: the tables"
        );
        let mut explained = 0;
        for (name, rows) in &expected {
            let mine = &got[name];
            assert_eq!(rows.len(), mine.len(), "{kind}: rows of {name}");
            // Rows are paired by their integer cells (keys and numbers; the
            // engines' readings differ only in text).
            let key = |r: &Vec<Value>| {
                format!(
                    "{:?}",
                    r.iter()
                        .filter(|v| matches!(v, Value::Integer(_)))
                        .collect::<Vec<_>>()
                )
            };
            let mut by_key: std::collections::HashMap<String, &Vec<Value>> =
                mine.iter().map(|r| (key(r), r)).collect();
            for row in rows {
                let other = by_key
                    .remove(&key(row))
                    .unwrap_or_else(|| panic!("{kind}: {name} {row:?}"));
                for (a, b) in row.iter().zip(other.iter()) {
                    if a == b {
                        continue;
                    }
                    match (a, b) {
                        (Value::Text(a), Value::Text(b)) if &engine_reading(a) == b => {
                            explained += 1
                        }
                        _ => panic!("{kind}: {name}: {a:?} became {b:?} in {row:?}"),
                    }
                }
            }
        }
        eprintln!("{kind}: every cell equal but {explained} the engine reads differently");
        assert!(explained <= 8, "{kind}: {explained} explained cells");
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

#[test]
fn northwind_arrives_whole_and_verified_from_its_postgres_dump() {
    let Some(dump) = sqlwitness_testkit::shared_data("dumps/northwind/northwind_postgres.sql")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    sqlwitness_testkit::for_each_server(Some(Adapter::Postgres), |kind, url| {
        let (code, stderr) = import(kind, url, &dump, dir.path(), &["--db-id", "northwind"]);
        assert_eq!(code, 0, "{stderr}");
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("import-report.json")).unwrap())
                .unwrap();
        let db = &report["databases"][0];
        assert_eq!(db["complete"], true);
        assert_eq!(db["tables"].as_array().unwrap().len(), 14);
        assert_eq!(db["rows"], 3362);
        let got = tables(&dir.path().join("northwind/northwind.sqlite"));
        assert_eq!(got["orderdetails"].len(), 2155);
        assert!(
            matches!(got["categories"][0][3], Value::Blob(_)),
            "bytea is a BLOB"
        );
    });
}

fn report(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("import-report.json")).unwrap()).unwrap()
}

fn fixture(name: &str) -> PathBuf {
    sqlwitness_testkit::repo_path("tests/dumps").join(name)
}

#[test]
fn every_type_is_carried_with_its_rendering_or_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let ran = sqlwitness_testkit::for_each_server(None, |kind, url| {
        let out = dir.path().join(kind.as_str());
        let (dump, refused): (&str, &[&str]) = match adapter(kind) {
            Adapter::Postgres => (
                "types_postgres.sql",
                &[
                    "with_array: column tags (text[])",
                    "with_interval: column span (interval)",
                    "with_point: column place (point)",
                ],
            ),
            _ => ("types_mysql.sql", &["with_point: column place (point)"]),
        };
        let (code, stderr) = import(kind, url, &fixture(dump), &out, &["--db-id", "types"]);
        // Refused tables leave the import incomplete: exit 3, files written.
        assert_eq!(code, 3, "{stderr}");
        for r in refused {
            assert!(
                stderr.contains(&format!("refused {r}")),
                "{kind}: {r} in {stderr}"
            );
        }
        let rep = report(&out);
        let tables = rep["databases"][0]["tables"].as_array().unwrap();
        let carried = tables.iter().find(|t| t["table"] == "carried").unwrap();
        assert_eq!(carried["verified"], true, "{kind}");
        let listed: Vec<String> = rep["not_created"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["note"].as_str().unwrap().to_string())
            .collect();
        for kind_word in ["view", "trigger"] {
            assert!(
                listed.iter().any(|n| n.starts_with(kind_word)),
                "{kind}: {listed:?}"
            );
        }
        let db = rusqlite::Connection::open(out.join("types/types.sqlite")).unwrap();
        let row: Vec<Value> = db
            .query_row("SELECT * FROM carried WHERE id = 1", [], |r| {
                (0..r.as_ref().column_count()).map(|i| r.get(i)).collect()
            })
            .unwrap();
        let text = |v: &Value| match v {
            Value::Text(s) => s.clone(),
            other => format!("{other:?}"),
        };
        let all: Vec<String> = row.iter().map(text).collect();
        // Enum labels, JSON, exact decimals past a double, escapes, blobs.
        assert!(all.contains(&"happy".to_string()), "{kind}: {all:?}");
        assert!(
            all.iter().any(|s| s.contains("\"b\": [1, 2]")),
            "{kind}: {all:?}"
        );
        assert!(
            all.contains(&"line1\nline2\ttabbed \\ back".to_string()),
            "{kind}: {all:?}"
        );
        assert!(
            row.contains(&Value::Blob(vec![0, 255, 16])),
            "{kind}: {row:?}"
        );
        match adapter(kind) {
            Adapter::Postgres => {
                assert!(
                    all.contains(&"12345678901234567890.0123456789".to_string()),
                    "{all:?}"
                );
                assert!(
                    all.contains(&"2024-02-29 10:00:00".to_string()),
                    "timestamptz in UTC: {all:?}"
                );
            }
            _ => {
                assert!(all.contains(&"18446744073709551615".to_string()), "{all:?}");
                assert!(all.contains(&"a,c".to_string()), "set: {all:?}");
                assert!(row.contains(&Value::Integer(2024)), "year: {row:?}");
                assert!(row.contains(&Value::Integer(11)), "bit(4) b'1011': {row:?}");
            }
        }
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

#[test]
fn a_hostile_dump_is_refused_or_stays_inside_its_namespace() {
    let dir = tempfile::tempdir().unwrap();
    let victim = sqlwitness_testkit::unique_name("swt_dumpvictim");
    sqlwitness_testkit::for_each_server(None, |kind, url| {
        let pg = adapter(kind) == Adapter::Postgres;
        let (create, drop, count) = if pg {
            (
                format!("CREATE SCHEMA \"{victim}\"; CREATE TABLE \"{victim}\".precious (x int); INSERT INTO \"{victim}\".precious VALUES (1), (2)"),
                format!("DROP SCHEMA \"{victim}\" CASCADE"),
                format!("SELECT count(*)::int8 FROM \"{victim}\".precious"),
            )
        } else {
            (
                format!("CREATE DATABASE `{victim}`; CREATE TABLE `{victim}`.precious (x int); INSERT INTO `{victim}`.precious VALUES (1), (2)"),
                format!("DROP DATABASE `{victim}`"),
                format!("SELECT CAST(COUNT(*) AS SIGNED) FROM `{victim}`.precious"),
            )
        };
        admin::exec(url, &create);
        // Refused before anything runs (exit 2, the line named).
        let refused: Vec<(String, &str)> = if pg {
            vec![
                (
                    "CREATE TABLE t (x int);\nCOPY t FROM PROGRAM 'id';\n".into(),
                    "line 2",
                ),
                (
                    "CREATE TABLE t (x int);\nCOPY t FROM '/etc/passwd';\n".into(),
                    "line 2",
                ),
                ("CREATE ROLE sw_evil SUPERUSER LOGIN;\n".into(), "line 1"),
                (
                    format!("DROP DATABASE \"{victim}\";\nCREATE DATABASE other;\n"),
                    "line 2",
                ),
                (
                    "CREATE TABLE t (x int);\n\\! touch /tmp/sw_evil\n".into(),
                    "line 2",
                ),
                ("ALTER SYSTEM SET work_mem = '1TB';\n".into(), "line 1"),
            ]
        } else {
            vec![
                (
                    "CREATE TABLE t (x int);\nLOAD DATA INFILE '/etc/passwd' INTO TABLE t;\n"
                        .into(),
                    "line 2",
                ),
                (
                    "CREATE TABLE t (x int);\nSELECT * FROM t INTO OUTFILE '/tmp/sw_evil';\n"
                        .into(),
                    "line 2",
                ),
                ("CREATE USER sw_evil IDENTIFIED BY 'x';\n".into(), "line 1"),
                (
                    format!("USE `mine`;\nCREATE TABLE t (x int);\nUSE `{victim}`;\n"),
                    "line 3",
                ),
                (
                    format!("DROP DATABASE IF EXISTS `{victim}`;\nCREATE DATABASE `x`;\n"),
                    "line 2",
                ),
                ("SET GLOBAL max_connections = 1;\n".into(), "line 1"),
            ]
        };
        for (i, (text, line)) in refused.iter().enumerate() {
            let dump = dir.path().join(format!("{kind}-refused-{i}.sql"));
            std::fs::write(&dump, text).unwrap();
            let (code, stderr) = import(
                kind,
                url,
                &dump,
                &dir.path().join(format!("{kind}-r{i}")),
                &["--db-id", "d"],
            );
            assert_eq!(code, 2, "{kind}: {text}: {stderr}");
            assert!(
                stderr.contains(line) && stderr.contains("refused"),
                "{kind}: {stderr}"
            );
        }
        // Not refused by the reading, stopped by the login's privileges or
        // by its namespace: the load fails and nothing outside changed.
        let confined: Vec<String> = if pg {
            vec![
                format!("DROP SCHEMA \"{victim}\" CASCADE;\n"),
                "SELECT pg_read_file('/etc/passwd');\n".into(),
                "SET ROLE postgres; CREATE ROLE sw_evil2;\n".into(),
                format!("INSERT INTO test.\"{victim}\".precious VALUES (3);\n"),
            ]
        } else {
            vec![
                format!("DROP TABLE `{victim}`.precious;\n"),
                format!("INSERT INTO `{victim}`.precious VALUES (3);\n"),
                format!("CREATE TABLE `{victim}`.t2 (x int);\n"),
            ]
        };
        for (i, text) in confined.iter().enumerate() {
            let dump = dir.path().join(format!("{kind}-confined-{i}.sql"));
            std::fs::write(&dump, text).unwrap();
            let (code, stderr) = import(
                kind,
                url,
                &dump,
                &dir.path().join(format!("{kind}-c{i}")),
                &["--db-id", "d"],
            );
            assert_ne!(code, 0, "{kind}: {text}: {stderr}");
        }
        assert_eq!(
            admin::count(url, &count),
            2,
            "{kind}: the victim is as it was"
        );
        admin::exec(url, &drop);
    });
}

#[test]
fn a_dump_statement_past_its_limit_is_stopped() {
    let dir = tempfile::tempdir().unwrap();
    sqlwitness_testkit::for_each_server(None, |kind, url| {
        let sleep = match adapter(kind) {
            Adapter::Postgres => "SELECT pg_sleep(30);\n",
            _ => "SELECT SLEEP(30);\n",
        };
        let dump = dir.path().join(format!("{kind}-sleep.sql"));
        std::fs::write(&dump, format!("CREATE TABLE t (x int);\n{sleep}")).unwrap();
        let started = Instant::now();
        let (code, stderr) = import(
            kind,
            url,
            &dump,
            &dir.path().join(kind.as_str()),
            &["--db-id", "d", "--statement-timeout", "1"],
        );
        assert_eq!(code, 3, "{stderr}");
        assert!(
            stderr.contains("line 2") && stderr.contains("limit"),
            "{stderr}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "{kind}: {:?}",
            started.elapsed()
        );
    });
}

/// One dump holding several benchmark databases (BIRD mini-dev's layout):
/// a tables.json says which tables each db_id holds; each becomes its own
/// SQLite file, with its keys, and a Spider tables.json is written for them.
#[test]
fn one_dump_of_several_databases_is_split_by_its_tables_json() {
    let dir = tempfile::tempdir().unwrap();
    sqlwitness_testkit::for_each_server(Some(Adapter::Postgres), |kind, url| {
        let tables_out = dir.path().join("tables.json");
        let (code, stderr) = import(
            kind,
            url,
            &fixture("two_databases_postgres.sql"),
            &dir.path().join("database"),
            &[
                "--tables",
                fixture("two_databases_tables.json").to_str().unwrap(),
                "--spider-tables",
                tables_out.to_str().unwrap(),
            ],
        );
        assert_eq!(code, 0, "{stderr}");
        let schools = tables(
            &dir.path()
                .join("database/california_schools/california_schools.sqlite"),
        );
        assert_eq!(schools.keys().collect::<Vec<_>>(), ["satscores", "schools"]);
        assert_eq!(schools["schools"].len(), 3);
        let heroes = tables(&dir.path().join("database/superhero/superhero.sqlite"));
        assert_eq!(heroes.keys().collect::<Vec<_>>(), ["superhero"]);
        // The Spider tables.json the benchmark layout needs.
        let written: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&tables_out).unwrap()).unwrap();
        let cs = written
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["db_id"] == "california_schools")
            .unwrap();
        assert_eq!(cs["foreign_keys"], serde_json::json!([[4, 1]]));
        assert_eq!(cs["column_types"][3], "number");
    });
}
