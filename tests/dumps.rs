//! Benchmarks shipped as SQL dumps (`sqlwitness import`): loaded by their
//! own engine under a confined login, written as verified SQLite files.
//!
//! - Chinook as its author ships it for PostgreSQL and MySQL, loaded by
//!   PostgreSQL, MySQL and MariaDB, is the author's SQLite database cell for
//!   cell — except where the engine itself reads the dump differently, and
//!   only there (PostgreSQL's `N'…'` literals are `character`, whose trailing
//!   spaces it drops; MySQL reads `\ ` in a string as an escaped space).
//! - Northwind's PostgreSQL dump arrives whole and verified.
//! - Every type family of the hand-made dumps in `tests/dumps/` is carried,
//!   those SQLite has no form for degraded and named (their tables keep
//!   every other column), and triggers and routines are listed.
//! - A view SQLite answers alike is carried into the SQLite file; one it
//!   cannot express is listed with the reason, never half-created.
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

/// The first server of `family` among `servers`; `None` (a failure where
/// every engine is required) when there is none.
fn first_server(servers: &[(EngineKind, String)], family: Adapter) -> Option<(EngineKind, String)> {
    let found = servers.iter().find(|(k, _)| adapter(*k) == family).cloned();
    if found.is_none() {
        let which = match family {
            Adapter::Postgres => "PostgreSQL",
            _ => "MySQL or MariaDB",
        };
        assert!(!sqlwitness_testkit::required(), "{which} is required");
    }
    found
}

/// Runs `sqlwitness import`; the exit code and stderr. The copies it makes
/// on the dump's own engine take a namespace prefix of the test's own and
/// are dropped afterwards.
fn import(kind: EngineKind, url: &str, dump: &Path, out: &Path, extra: &[&str]) -> (i32, String) {
    let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_dc"));
    let r = import_with_copies(kind, url, dump, out, extra, &prefix);
    drop_source_copies(kind, url, out);
    r
}

/// Runs `sqlwitness import` with the copies on the dump's own engine
/// under `prefix` (left in place: see [`drop_source_copies`]).
fn import_with_copies(
    kind: EngineKind,
    url: &str,
    dump: &Path,
    out: &Path,
    extra: &[&str],
    prefix: &str,
) -> (i32, String) {
    let o = bin()
        .args([
            "import",
            "--engine",
            kind.as_str(),
            "--server",
            url,
            "--namespace-prefix",
            prefix,
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

/// Drops the copies on the dump's own engine that the import report in
/// `out` lists (only ones sqlwitness made: the stamp is checked).
fn drop_source_copies(kind: EngineKind, url: &str, out: &Path) {
    let Ok(bytes) = std::fs::read(out.join("import-report.json")) else {
        return;
    };
    let report: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let target = sqlwitness_migrate::MigrationTarget::new(kind, url);
    for d in report["databases"].as_array().into_iter().flatten() {
        if let Some(ns) = d["source_copy"]["namespace"].as_str() {
            sqlwitness_migrate::drop_namespace(&target, ns).unwrap();
        }
    }
}

/// `sqlwitness migrate` of every database of `bench` to `kind` at `url`,
/// its copies under `prefix`, its logs in `log`, with the flags `extra`.
fn migrate(
    bench: &Path,
    kind: EngineKind,
    url: &str,
    prefix: &str,
    log: &Path,
    extra: &[&str],
) -> std::process::Output {
    bin()
        .args(["migrate", "--bench"])
        .arg(bench)
        .args([
            "--all",
            "--engines",
            kind.as_str(),
            "--namespace-prefix",
            prefix,
            "--server",
            &format!("{kind}={url}"),
            "-q",
        ])
        .args(extra)
        .arg("--log-dir")
        .arg(log)
        .output()
        .unwrap()
}

/// `tests/dumps/types_postgres.sql` imported on the first PostgreSQL server
/// as database `types`, its copy there under a prefix of `tag`, beside a
/// question reading it: the benchmark's folder, the prefix, and the guard
/// that drops the copy. `None` without a PostgreSQL server.
fn imported_types(tag: &str) -> Option<(tempfile::TempDir, String, DropCopies)> {
    let servers = sqlwitness_testkit::servers();
    let (pg, pg_url) = first_server(&servers, Adapter::Postgres)?;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("database");
    let prefix = format!("{}_", sqlwitness_testkit::unique_name(tag));
    let (code, stderr) = import_with_copies(
        pg,
        &pg_url,
        &fixture("types_postgres.sql"),
        &out,
        &["--db-id", "types"],
        &prefix,
    );
    let guard = DropCopies(pg, pg_url, out);
    assert_eq!(code, 0, "{stderr}");
    std::fs::write(
        dir.path().join("dev.jsonl"),
        r#"{"db_id": "types", "gold": "SELECT count(*) FROM carried"}"#,
    )
    .unwrap();
    Some((dir, prefix, guard))
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
        // Types with no SQLite form that keeps them are carried degraded,
        // named; their tables keep every other column.
        let (dump, degraded): (&str, &[(&str, &str, &str)]) = match adapter(kind) {
            Adapter::Postgres => (
                "types_postgres.sql",
                &[
                    ("with_array.tags (text[])", "tags", "[\"a\",\"b\"]"),
                    ("with_interval.span (interval)", "span", "1 day 02:00:00"),
                    ("with_point.place (point)", "place", "(1,2)"),
                ],
            ),
            _ => (
                "types_mysql.sql",
                &[("with_point.place (point)", "place", "POINT(1 2)")],
            ),
        };
        let (code, stderr) = import(kind, url, &fixture(dump), &out, &["--db-id", "types"]);
        assert_eq!(code, 0, "{stderr}");
        let db = rusqlite::Connection::open(out.join("types/types.sqlite")).unwrap();
        for (named, column, value) in degraded {
            assert!(
                stderr.contains(&format!("degraded {named}")),
                "{kind}: {named} in {stderr}"
            );
            let table = named.split('.').next().unwrap();
            let (id, got): (i64, String) = db
                .query_row(&format!("SELECT id, {column} FROM {table}"), [], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
                .unwrap();
            assert_eq!((id, got.as_str()), (1, *value), "{kind}: {table}");
        }
        // The source's model beside the file names every degraded column.
        let model: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("types/types.source.json")).unwrap())
                .unwrap();
        let degraded_in_model = model["tables"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|t| t["columns"].as_array().unwrap().iter())
            .filter(|c| c["degraded"].is_string())
            .count();
        assert_eq!(degraded_in_model, degraded.len(), "{kind}: {model}");
        let rep = report(&out);
        let tables = rep["databases"][0]["tables"].as_array().unwrap();
        let carried = tables.iter().find(|t| t["table"] == "carried").unwrap();
        assert_eq!(carried["verified"], true, "{kind}");
        // The copy on the dump's own engine keeps every table, those SQLite
        // has no form for included, with the same rows on both sides.
        let copy = &rep["databases"][0]["source_copy"];
        assert_eq!(copy["faithful"], true, "{kind}: {copy}");
        assert_eq!(
            copy["tables"].as_array().unwrap().len(),
            tables.len(),
            "{kind}: {copy}"
        );
        let listed: Vec<String> = rep["not_created"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["note"].as_str().unwrap().to_string())
            .collect();
        assert!(
            listed.iter().any(|n| n.starts_with("trigger")),
            "{kind}: {listed:?}"
        );
        // The view (a filter on an enum column) is carried: SQLite answers
        // as the source does.
        let views = rep["databases"][0]["views"].to_string();
        assert!(
            views.contains(r#""carried":true,"rows":1"#) && views.contains(r#""view":"happy""#),
            "{kind}: {views}"
        );
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
                // bit(n): its text of bits, leading zeros kept.
                assert!(all.contains(&"0011".to_string()), "bit(4): {all:?}");
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
        // by its namespace: nothing outside changed, and the import fails
        // (a MySQL dump stops at the statement; a PostgreSQL dump goes on
        // past it, as psql does, names it as rejected, and has no table).
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
            if pg && code != 2 {
                assert!(
                    stderr.contains("rejected by the server") && stderr.contains("no table"),
                    "{kind}: {text}: {stderr}"
                );
            }
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

/// Runs `sqlwitness eval` on the benchmark `bench` with `engine`'s own gold
/// file `gold` as the reference; the report.
fn eval_with_reference(
    bench: &Path,
    kind: EngineKind,
    url: &str,
    gold: &Path,
    prefix: &str,
    out: &Path,
) -> serde_json::Value {
    let o = bin()
        .args(["eval", "--bench"])
        .arg(bench)
        .args([
            "--engines",
            &format!("sqlite,{kind}"),
            "--reference",
            kind.as_str(),
            "--gold",
            &format!("{kind}={}", gold.display()),
            "--server",
            &format!("{kind}={url}"),
            "--namespace-prefix",
            prefix,
            "-q",
            "--out",
        ])
        .arg(out)
        .output()
        .unwrap();
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    // Exit 0 unless a database could not be used on the engine.
    let usable = report["questions"][0]["engines"][kind.as_str()]["verdict"] != "engine_error";
    assert_eq!(
        o.status.success(),
        usable,
        "{kind}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    report
}

/// The verdicts of question `i`: the engine's own, and SQLite's against
/// the engine's gold answer (the reference).
fn verdicts(report: &serde_json::Value, i: usize, kind: EngineKind) -> (String, String) {
    let q = &report["questions"][i]["engines"];
    (
        q[kind.as_str()]["verdict"]
            .as_str()
            .unwrap_or("")
            .to_string(),
        q["sqlite"]["reference"]["verdict"]
            .as_str()
            .unwrap_or("")
            .to_string(),
    )
}

/// A benchmark shipped as a dump is judged by the dump's own types: import
/// copies each database on the dump's engine with its own column types and
/// keys, `eval --reference ENGINE` runs that engine's golds on that copy —
/// and keeps it (even with `--force`) instead of migrating the SQLite file.
/// A copy migrated from that file takes the dump's types from the source
/// model `import` keeps beside it, and answers alike.
#[test]
fn the_source_engine_judges_with_the_dumps_own_types() {
    let dir = tempfile::tempdir().unwrap();
    let ran = sqlwitness_testkit::for_each_server(None, |kind, url| {
        let pg = adapter(kind) == Adapter::Postgres;
        let bench = dir.path().join(kind.as_str());
        let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_src"));
        let dump = fixture(if pg {
            "prices_postgres.sql"
        } else {
            "prices_mysql.sql"
        });
        let out = bench.join("database");
        let (code, stderr) =
            import_with_copies(kind, url, &dump, &out, &["--db-id", "shop"], &prefix);
        let copy = report(&out)["databases"][0]["source_copy"].clone();
        let guard = DropCopies(kind, url.to_string(), out.clone());
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(copy["faithful"], true, "{kind}: {copy}");
        let item = &copy["tables"][0];
        assert_eq!(item["name"], "item");
        let types: Vec<&str> = item["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["sql_type"].as_str().unwrap())
            .collect();
        let ns = copy["namespace"].as_str().unwrap();
        assert_eq!(ns, format!("{prefix}shop"));
        if pg {
            assert_eq!(
                types,
                [
                    "integer",
                    "integer",
                    "character varying(20)",
                    "numeric(10,2)",
                    "date",
                    &format!("\"{ns}\".\"grade\""),
                ]
            );
        } else {
            assert_eq!(&types[3], &"decimal(10,2)", "{kind}");
            assert!(types[2].starts_with("varchar(20)"), "{kind}: {types:?}");
            assert_eq!(types[4], "date", "{kind}");
            assert!(
                types[5].starts_with(r"enum('low','mid','high','it''s \\ odd')"),
                "{kind}: {types:?}"
            );
            // The dump's own collation: a binary city.
            let shop = &copy["tables"][1]["columns"][1]["sql_type"];
            assert!(
                shop.as_str().unwrap().ends_with("COLLATE utf8mb4_bin"),
                "{shop}"
            );
        }
        // The same questions: SQLite's gold, and the engine's own.
        std::fs::write(
            bench.join("dev.jsonl"),
            [
                r#"{"db_id": "shop", "question": "average price", "gold": "SELECT round(avg(price), 2) FROM item"}"#,
                r#"{"db_id": "shop", "question": "shops in lyon, as written", "gold": "SELECT count(*) FROM shop WHERE city = 'lyon'"}"#,
                r#"{"db_id": "shop", "question": "items by grade", "gold": "SELECT name FROM item WHERE grade = 'mid' AND sold >= '2024-01-01'"}"#,
            ]
            .join("\n"),
        )
        .unwrap();
        let gold = bench.join("gold_engine.sql");
        std::fs::write(
            &gold,
            // PostgreSQL's round(numeric, int): it has no round(double
            // precision, int).
            "SELECT round(avg(price), 2) FROM item\n\
             SELECT count(*) FROM shop WHERE city = 'lyon'\n\
             SELECT name FROM item WHERE grade = 'mid' AND sold >= DATE '2024-01-01'\n",
        )
        .unwrap();
        let faithful = eval_with_reference(&bench, kind, url, &gold, &prefix, &bench.join("out"));
        for i in 0..3 {
            assert_eq!(
                verdicts(&faithful, i, kind),
                ("match".to_string(), "match".to_string()),
                "{kind}: question {i}"
            );
        }
        // The copy was the import's, kept: its stamp still names the dump.
        let count_sql = if pg {
            format!(
                "SELECT count(*)::int8 FROM information_schema.columns WHERE table_schema = '{ns}' \
                 AND table_name = 'item' AND column_name = 'price' AND data_type = 'numeric' \
                 AND numeric_precision = 10 AND numeric_scale = 2"
            )
        } else {
            format!(
                "SELECT CAST(COUNT(*) AS SIGNED) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '{ns}' \
                 AND TABLE_NAME = 'item' AND COLUMN_NAME = 'price' AND COLUMN_TYPE = 'decimal(10,2)'"
            )
        };
        assert_eq!(admin::count(url, &count_sql), 1, "{kind}");
        // The enum's labels as the dump wrote them, a quote and a backslash
        // included.
        let label_sql = if pg {
            format!(
                "SELECT count(*)::int8 FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid \
                 JOIN pg_namespace n ON n.oid = t.typnamespace \
                 WHERE n.nspname = '{ns}' AND e.enumlabel = 'it''s \\ odd'"
            )
        } else {
            format!(
                "SELECT CAST(COUNT(*) AS SIGNED) FROM information_schema.COLUMNS \
                 WHERE TABLE_SCHEMA = '{ns}' AND TABLE_NAME = 'item' AND COLUMN_NAME = 'grade' \
                 AND LOCATE(CONCAT('it', CHAR(39), CHAR(39), 's ', CHAR(92), CHAR(92), ' odd'), COLUMN_TYPE) > 0"
            )
        };
        assert_eq!(admin::count(url, &label_sql), 1, "{kind}");
        // `migrate --force` keeps it too.
        let o = migrate(&bench, kind, url, &prefix, &bench.join("log"), &["--force"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let log: serde_json::Value = serde_json::from_slice(
            &std::fs::read(bench.join("log").join(kind.as_str()).join("shop.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(log["status"], "up_to_date", "{kind}: {log}");
        assert_eq!(admin::count(url, &count_sql), 1, "{kind}");
        // A copy migrated from the SQLite file instead (another prefix)
        // takes its types from the source's model beside the file: it
        // answers as the dump's own copy does (a decimal has
        // round(…, 2) on PostgreSQL; the binary collation keeps 'Lyon'
        // apart from 'lyon' on MySQL).
        let other = format!("{}_", sqlwitness_testkit::unique_name("swt_mig"));
        let migrated = eval_with_reference(
            &bench,
            kind,
            url,
            &gold,
            &other,
            &bench.join("out_migrated"),
        );
        sqlwitness_migrate::drop_namespace(
            &sqlwitness_migrate::MigrationTarget::new(kind, url),
            &format!("{other}shop"),
        )
        .unwrap();
        for i in 0..2 {
            assert_eq!(
                verdicts(&migrated, i, kind),
                ("match".to_string(), "match".to_string()),
                "{kind}: question {i}: {}",
                migrated["questions"][i]
            );
        }
        // The SQLite file changes: the copy no longer matches it, and is
        // kept rather than replaced; the engine's questions say why.
        rusqlite::Connection::open(out.join("shop/shop.sqlite"))
            .unwrap()
            .execute_batch("INSERT INTO shop VALUES (3, 'Oslo')")
            .unwrap();
        let stale =
            eval_with_reference(&bench, kind, url, &gold, &prefix, &bench.join("out_stale"));
        assert!(
            stale.to_string().contains("import the dump again"),
            "{kind}: {}",
            stale["questions"][0]
        );
        assert_eq!(admin::count(url, &count_sql), 1, "{kind}");
        drop(guard);
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// Drops the copies an import made when the test ends, passed or not.
struct DropCopies(EngineKind, String, PathBuf);

impl Drop for DropCopies {
    fn drop(&mut self) {
        drop_source_copies(self.0, &self.1, &self.2);
    }
}

/// Drops the namespace of a copy by its name when it drops.
struct DropNamespace(EngineKind, String, String);

impl Drop for DropNamespace {
    fn drop(&mut self) {
        let target = sqlwitness_migrate::MigrationTarget::new(self.0, &self.1);
        let _ = sqlwitness_migrate::drop_namespace(&target, &self.2);
    }
}

/// BIRD mini-dev's layout imported from the stand-in dump: its question
/// files, `dev_tables.json` entries of the stand-in's two databases, the
/// SQLite files in `dev_databases/` and the copies with the dump's own
/// types on PostgreSQL under a prefix of the test's own (dropped when
/// this drops).
struct BirdStandIn {
    // Dropped first: it reads the import report in `dir`.
    _copies: DropCopies,
    dir: tempfile::TempDir,
    pg: EngineKind,
    pg_url: String,
    prefix: String,
}

impl BirdStandIn {
    const IDS: [&'static str; 2] = ["debit_card_specializing", "student_club"];

    /// `None` when the shared data or PostgreSQL is missing (and allowed
    /// to be).
    fn import(servers: &[(EngineKind, String)]) -> Option<BirdStandIn> {
        let shared = sqlwitness_testkit::shared_data("bird_minidev")?;
        let (pg, pg_url) = first_server(servers, Adapter::Postgres)?;
        let dir = tempfile::tempdir().unwrap();
        let bench = dir.path();
        for f in [
            "mini_dev_sqlite.json",
            "mini_dev_mysql.json",
            "mini_dev_postgresql.json",
        ] {
            std::fs::copy(shared.join(f), bench.join(f)).unwrap();
        }
        // The stand-in dump holds two of the eleven databases: their entries.
        let all: Vec<serde_json::Value> =
            serde_json::from_slice(&std::fs::read(shared.join("dev_tables.json")).unwrap())
                .unwrap();
        let two: Vec<&serde_json::Value> = all
            .iter()
            .filter(|d| Self::IDS.contains(&d["db_id"].as_str().unwrap()))
            .collect();
        let tables = bench.join("dev_tables.json");
        std::fs::write(&tables, serde_json::to_string(&two).unwrap()).unwrap();
        let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_bird"));
        let out = bench.join("dev_databases");
        let (code, stderr) = import_with_copies(
            pg,
            &pg_url,
            &fixture("bird_minidev_postgres.sql"),
            &out,
            &["--tables", tables.to_str().unwrap()],
            &prefix,
        );
        let copies = DropCopies(pg, pg_url.clone(), out.clone());
        assert_eq!(code, 0, "{stderr}");
        for d in report(&out)["databases"].as_array().unwrap() {
            assert_eq!(d["source_copy"]["faithful"], true, "{d}");
        }
        Some(BirdStandIn {
            _copies: copies,
            dir,
            pg,
            pg_url,
            prefix,
        })
    }
}

/// BIRD mini-dev's layout: one PostgreSQL dump holding several databases
/// (a stand-in of two of its eleven, `tests/dumps/bird_minidev_postgres.sql`),
/// imported with their `dev_tables.json` entries, then evaluated as it
/// ships — each engine's own gold (`mini_dev_postgresql.json`,
/// `mini_dev_mysql.json`) — with PostgreSQL's answer, on the copy with the
/// dump's own types, as the reference.
#[test]
fn bird_minidev_from_its_postgres_dump_judged_by_its_postgres_golds() {
    let servers = sqlwitness_testkit::servers();
    let Some(b) = BirdStandIn::import(&servers) else {
        return;
    };
    let (bench, pg, ids, prefix) = (b.dir.path(), b.pg, BirdStandIn::IDS, b.prefix.as_str());
    let engines = sqlwitness_testkit::engine_names(&servers);
    let o = bin()
        .args(["eval", "--bench"])
        .arg(bench)
        .args([
            "--split",
            "mini_dev",
            "--db",
            &ids.join(","),
            "--engines",
            &engines.join(","),
            "--reference",
            pg.as_str(),
            "--namespace-prefix",
            prefix,
            "-q",
            "--out",
        ])
        .arg(bench.join("out"))
        .args(sqlwitness_testkit::server_args(&servers))
        .output()
        .unwrap();
    // The copies migrated from the SQLite files to the other servers.
    for (kind, url) in servers.iter().filter(|(k, _)| *k != pg) {
        for id in ids {
            sqlwitness_migrate::drop_namespace(
                &sqlwitness_migrate::MigrationTarget::new(*kind, url),
                &format!("{prefix}{id}"),
            )
            .unwrap();
        }
    }
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(bench.join("out/report.json")).unwrap()).unwrap();
    let n = report["questions"].as_array().unwrap().len() as u64;
    assert!(n > 50, "{n}");
    assert!(report["run"]["golds"][pg.as_str()]
        .as_str()
        .unwrap()
        .ends_with("mini_dev_postgresql.json"));
    for e in &engines {
        let s = &report["summary"]["engines"][e];
        assert_eq!(s["engine_error"], 0, "{e}: {s}");
        assert_eq!(s["missing_db"], 0, "{e}: {s}");
        if *e == pg.as_str() {
            // Every PostgreSQL gold runs on the copy with the dump's types.
            assert_eq!(s["gold_error"], 0, "{e}: {s}");
        } else {
            // Each question scored against PostgreSQL's answer, but where
            // the engine's own gold fails (MariaDB: MySQL's golds' GROUP BY).
            let scored = s["reference"]["scored"].as_u64().unwrap();
            assert_eq!(scored + s["gold_error"].as_u64().unwrap(), n, "{e}: {s}");
        }
    }
}

/// `fuzz --reference postgres` on the BIRD mini-dev stand-in: the suite is
/// distilled with PostgreSQL's own golds, run on the copy with the dump's
/// own types and on every candidate migrated there (then dropped); the
/// instances are SQLite files and tell neighbours apart from the gold.
#[test]
fn a_suite_is_distilled_on_postgres_with_its_own_golds() {
    let servers = sqlwitness_testkit::servers();
    let Some(b) = BirdStandIn::import(&servers) else {
        return;
    };
    let bench = b.dir.path();
    let db = "student_club";
    let suites = bench.join("suites");
    let o = bin()
        .args(["fuzz", "--bench"])
        .arg(bench)
        .args([
            "--split",
            "mini_dev",
            "--db",
            db,
            "--reference",
            b.pg.as_str(),
            "--server",
            &format!("{}={}", b.pg, b.pg_url),
            "--namespace-prefix",
            &b.prefix,
            "--candidates",
            "8",
            "--max-neighbors",
            "6",
            "-q",
            "--out",
        ])
        .arg(&suites)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(suites.join("manifest.json")).unwrap()).unwrap();
    let suite = &manifest["databases"][db];
    assert_eq!(
        suite["reference"]["engine"],
        b.pg.as_str(),
        "{}",
        suite["reference"]
    );
    assert_eq!(suite["reference"]["original"], format!("{}{db}", b.prefix));
    // The candidates took the column types of the copy with the dump's own.
    assert_eq!(suite["reference"]["column_types"], "from_original_copy");
    // Every gold is PostgreSQL's own, and ran there on the original.
    let pg_golds: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(bench.join("mini_dev_postgresql.json")).unwrap())
            .unwrap();
    let sqlite_golds: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(bench.join("mini_dev_sqlite.json")).unwrap())
            .unwrap();
    let golds = suite["golds"].as_array().unwrap();
    assert!(!golds.is_empty());
    let mut own = 0;
    for g in golds {
        let i = g["question"].as_u64().unwrap() as usize;
        assert_eq!(g["sql"], pg_golds[i]["SQL"], "question {i}");
        assert!(g.get("skipped").is_none(), "question {i}: {g}");
        if pg_golds[i]["SQL"] != sqlite_golds[i]["SQL"] {
            own += 1;
        }
    }
    assert!(
        own > 0,
        "no gold of {db} differs between PostgreSQL and SQLite"
    );
    // Kept instances are SQLite files; neighbours are told apart by them.
    let instances = suite["instances"].as_array().unwrap();
    assert!(!instances.is_empty(), "{}", suite["counts"]);
    for i in instances {
        let file = suites
            .join("database")
            .join(db)
            .join(i["file"].as_str().unwrap());
        let c = rusqlite::Connection::open(&file).unwrap();
        let n: i64 = c
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(n > 0, "{}", file.display());
        assert!(!i["kills"].as_array().unwrap().is_empty(), "{i}");
    }
    let counts = &suite["counts"];
    assert!(
        counts["killed_by_instances"].as_u64().unwrap() > 0,
        "{counts}"
    );
    // The neighbours a kept instance tells apart are the ones counted.
    let killed: Vec<&serde_json::Value> = golds
        .iter()
        .flat_map(|g| g["neighbors"].as_array().unwrap())
        .filter(|n| n["fate"] == "killed")
        .collect();
    assert_eq!(
        killed.len() as u64,
        counts["killed_by_instances"].as_u64().unwrap()
    );
    // The candidates' scratch namespaces are gone.
    let left = format!(
        "SELECT count(*) FROM pg_namespace WHERE nspname LIKE '{}%\\_\\_c%'",
        b.prefix.replace('_', "\\_")
    );
    assert_eq!(admin::count(&b.pg_url, &left), 0);
}

/// A scratch copy (a fuzz candidate, a perturbed database) of a database
/// whose PostgreSQL copy is the dump's own takes that copy's column types
/// (`integer`, `varchar(20)`, `numeric(10,2)`, the enum), as the catalogue
/// shows; a candidate holding a value those types cannot hold or would
/// change is rejected with the reason, and leaves nothing behind.
#[test]
fn a_scratch_copy_takes_the_dump_copys_types_or_is_rejected() {
    let servers = sqlwitness_testkit::servers();
    let Some((pg, url)) = first_server(&servers, Adapter::Postgres) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_types"));
    let (code, stderr) = import_with_copies(
        pg,
        &url,
        &fixture("prices_postgres.sql"),
        &out,
        &["--db-id", "shop"],
        &prefix,
    );
    let _copies = DropCopies(pg, url.clone(), out.clone());
    assert_eq!(code, 0, "{stderr}");
    let target = sqlwitness_migrate::MigrationTarget::new(pg, &url);
    let original = format!("{prefix}shop");
    let place =
        |k: usize, change: &str| place_scratch(dir.path(), &out, &target, &original, k, change);
    let (report, scratch) = place(1, "");
    let same = format!(
        "SELECT count(*) FROM information_schema.columns a JOIN information_schema.columns b \
         ON b.table_schema = '{scratch}' AND b.table_name = a.table_name \
         AND b.column_name = a.column_name AND b.data_type = a.data_type \
         AND b.udt_schema = a.udt_schema AND b.udt_name = a.udt_name \
         AND b.numeric_precision IS NOT DISTINCT FROM a.numeric_precision \
         AND b.numeric_scale IS NOT DISTINCT FROM a.numeric_scale \
         AND b.character_maximum_length IS NOT DISTINCT FROM a.character_maximum_length \
         WHERE a.table_schema = '{original}' AND a.table_name <> '__sqlwitness'"
    );
    let all = format!(
        "SELECT count(*) FROM information_schema.columns WHERE table_schema = '{original}' \
         AND table_name <> '__sqlwitness'"
    );
    let typed = admin::count(&url, &same);
    sqlwitness_migrate::drop_namespace(&target, &scratch).unwrap();
    assert_eq!(report.problem(), None, "{report:?}");
    let types = report.column_types.clone().unwrap();
    assert!(types.original_is_dump_copy, "{types:?}");
    assert_eq!(types.columns_typed, 8, "{types:?}");
    assert_eq!(report.verification, sqlwitness_migrate::Verification::Full);
    assert_eq!(typed, admin::count(&url, &all));
    assert_eq!(typed, 8);
    // Values the original's types cannot hold, or would change: rejected,
    // saying why.
    for (k, change, why) in [
        (
            2,
            "UPDATE item SET price = 123456789012.5 WHERE item_id = 1",
            "numeric field overflow",
        ),
        (
            3,
            "UPDATE item SET grade = 'bogus' WHERE item_id = 1",
            "invalid input value for enum",
        ),
        (
            4,
            "UPDATE item SET price = 1.234 WHERE item_id = 1",
            "the rows read back differ from the rows written",
        ),
        (
            5,
            // Cut to `varchar(20)` by the load's cast: seen on reading back.
            "UPDATE shop SET city = 'a city name past twenty' WHERE shop_id = 1",
            "the rows read back differ from the rows written",
        ),
    ] {
        let (report, scratch) = place(k, change);
        sqlwitness_migrate::drop_namespace(&target, &scratch).unwrap();
        let problem = report.problem().unwrap_or_default();
        assert!(
            problem.contains("with the original copy's column types") && problem.contains(why),
            "{change}: {problem}"
        );
    }
    let left = format!(
        "SELECT count(*) FROM pg_namespace WHERE nspname LIKE '{}%\\_\\_c%'",
        prefix.replace('_', "\\_")
    );
    assert_eq!(admin::count(&url, &left), 0);
}

/// The shop's SQLite file imported into `out`, copied into `dir` and
/// changed by `change` (SQL, may be empty), migrated to `target` as scratch
/// copy `k` of the dump's own-typed copy `original`, with its column types:
/// the migration report and the scratch namespace (left for the caller to
/// drop).
fn place_scratch(
    dir: &Path,
    out: &Path,
    target: &sqlwitness_migrate::MigrationTarget,
    original: &str,
    k: usize,
    change: &str,
) -> (sqlwitness_migrate::MigrationReport, String) {
    let file = dir.join(format!("{}_c{k}.sqlite", target.engine));
    std::fs::copy(out.join("shop/shop.sqlite"), &file).unwrap();
    if !change.is_empty() {
        rusqlite::Connection::open(&file)
            .unwrap()
            .execute_batch(change)
            .unwrap();
    }
    let db = sqlwitness_core::Database {
        db_id: "shop".into(),
        sqlite_path: file,
        namespace: format!("{original}__c{k}"),
    };
    let opts = sqlwitness_migrate::MigrateOptions {
        types_from: Some(sqlwitness_migrate::TypesFrom {
            namespace: original.to_string(),
            ..Default::default()
        }),
        ..Default::default()
    };
    let report = sqlwitness_migrate::migrate_database(&db, target, &opts).unwrap();
    (report, db.namespace)
}

/// A benchmark shipped as two dumps of the same databases (BIRD mini-dev:
/// PostgreSQL and MySQL): the first writes the SQLite files, the second
/// (`--copy-only`) adds its engine's copy with its own types, stamped with
/// those files — so either engine can be the reference on its own types. A
/// dump of other tables, or of the same tables with other rows, is refused,
/// and a copy already made is kept (the rows are counted before it is
/// replaced).
#[test]
fn a_second_dump_of_the_same_databases_adds_its_engines_copy() {
    let servers = sqlwitness_testkit::servers();
    let Some((pg, pg_url)) = first_server(&servers, Adapter::Postgres) else {
        return;
    };
    let mysqls: Vec<(EngineKind, String)> = servers
        .iter()
        .filter(|(k, _)| adapter(*k) == Adapter::Mysql)
        .cloned()
        .collect();
    if mysqls.is_empty() {
        assert!(!sqlwitness_testkit::required(), "MySQL is required");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    let out = bench.join("database");
    let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_two"));
    let (code, stderr) = import_with_copies(
        pg,
        &pg_url,
        &fixture("prices_postgres.sql"),
        &out,
        &["--db-id", "shop"],
        &prefix,
    );
    let _guard = DropCopies(pg, pg_url.clone(), out.clone());
    assert_eq!(code, 0, "{stderr}");
    let ns = format!("{prefix}shop");
    let mut results = Vec::new();
    for (kind, url) in &mysqls {
        let report_path = bench.join(format!("{kind}-report.json"));
        let (code, stderr) = import_with_copies(
            *kind,
            url,
            &fixture("prices_mysql.sql"),
            &out,
            &[
                "--db-id",
                "shop",
                "--copy-only",
                "--report",
                report_path.to_str().unwrap(),
            ],
            &prefix,
        );
        // Another database's dump: refused, the copy kept.
        let (bad, bad_err) = import_with_copies(
            *kind,
            url,
            &fixture("types_mysql.sql"),
            &out,
            &[
                "--db-id",
                "shop",
                "--copy-only",
                "--report",
                bench.join("bad.json").to_str().unwrap(),
            ],
            &prefix,
        );
        // The same tables with a row less, once the copy exists: refused
        // before the copy is touched (the evaluation below still uses it).
        let fewer = bench.join("fewer_rows.sql");
        std::fs::write(
            &fewer,
            std::fs::read_to_string(fixture("prices_mysql.sql"))
                .unwrap()
                .replace(",(2,'Porto');", ";"),
        )
        .unwrap();
        let (short, short_err) = import_with_copies(
            *kind,
            url,
            &fewer,
            &out,
            &[
                "--db-id",
                "shop",
                "--copy-only",
                "--report",
                bench.join("short.json").to_str().unwrap(),
            ],
            &prefix,
        );
        assert_eq!(short, 3, "{kind}: {short_err}");
        assert!(
            short_err.contains("table shop: 1 rows in the dump, 2 in the SQLite file"),
            "{kind}: {short_err}"
        );
        results.push((*kind, code, stderr, bad, bad_err));
    }
    let gold = bench.join("gold_mysql.sql");
    std::fs::write(
        &gold,
        "SELECT round(avg(price), 2) FROM item\n\
         SELECT count(*) FROM shop WHERE city = 'lyon'\n\
         SELECT name FROM item WHERE grade = 'mid' AND sold >= DATE '2024-01-01'\n",
    )
    .unwrap();
    std::fs::write(
        bench.join("dev.jsonl"),
        [
            r#"{"db_id": "shop", "gold": "SELECT round(avg(price), 2) FROM item"}"#,
            r#"{"db_id": "shop", "gold": "SELECT count(*) FROM shop WHERE city = 'lyon'"}"#,
            r#"{"db_id": "shop", "gold": "SELECT name FROM item WHERE grade = 'mid' AND sold >= '2024-01-01'"}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    let mut reports = Vec::new();
    for (kind, url) in &mysqls {
        reports.push(eval_with_reference(
            bench,
            *kind,
            url,
            &gold,
            &prefix,
            &bench.join(format!("out_{kind}")),
        ));
    }
    for (kind, url) in &mysqls {
        sqlwitness_migrate::drop_namespace(
            &sqlwitness_migrate::MigrationTarget::new(*kind, url),
            &ns,
        )
        .unwrap();
    }
    for ((kind, code, stderr, bad, bad_err), report) in results.into_iter().zip(reports) {
        assert_eq!(code, 0, "{kind}: {stderr}");
        assert!(
            stderr.contains(&format!("{kind} copy with the source's own types: {ns}")),
            "{kind}: {stderr}"
        );
        assert_eq!(bad, 3, "{kind}: {bad_err}");
        assert!(
            bad_err.contains("not the same database"),
            "{kind}: {bad_err}"
        );
        // The binary collation of the MySQL dump answers as SQLite does.
        for i in 0..3 {
            assert_eq!(
                verdicts(&report, i, kind),
                ("match".to_string(), "match".to_string()),
                "{kind}: question {i}: {}",
                report["questions"][i]
            );
        }
    }
}

/// A benchmark folder whose `dumps.json` names the dumps its databases ship
/// as: `eval` imports them by itself (the SQLite files, the copy on each
/// dump's engine), then runs; a second run finds them there.
#[test]
fn eval_imports_the_dumps_a_benchmark_names() {
    let servers = sqlwitness_testkit::servers();
    let Some((pg, _)) = first_server(&servers, Adapter::Postgres) else {
        return;
    };
    let my = servers
        .iter()
        .find(|(k, _)| adapter(*k) == Adapter::Mysql)
        .cloned();
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    std::fs::create_dir_all(bench.join("dumps")).unwrap();
    for f in ["prices_postgres.sql", "prices_mysql.sql"] {
        std::fs::copy(fixture(f), bench.join("dumps").join(f)).unwrap();
    }
    let mut manifest = vec![
        serde_json::json!({"dump": "dumps/prices_postgres.sql", "engine": pg.as_str(), "db_id": "shop"}),
    ];
    if let Some((kind, _)) = &my {
        manifest.push(serde_json::json!({"dump": "dumps/prices_mysql.sql", "engine": kind.as_str(), "db_id": "shop", "copy_only": true}));
    }
    std::fs::write(
        bench.join("dumps.json"),
        serde_json::to_string(&manifest).unwrap(),
    )
    .unwrap();
    std::fs::write(
        bench.join("dev.jsonl"),
        [
            r#"{"db_id": "shop", "gold": "SELECT round(avg(price), 2) FROM item"}"#,
            r#"{"db_id": "shop", "gold": "SELECT count(*) FROM shop WHERE city = 'lyon'"}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    let gold = bench.join("gold_postgres.sql");
    std::fs::write(
        &gold,
        "SELECT round(avg(price), 2) FROM item\nSELECT count(*) FROM shop WHERE city = 'lyon'\n",
    )
    .unwrap();
    let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_man"));
    let used: Vec<(EngineKind, String)> = servers
        .iter()
        .filter(|(k, _)| *k == pg || my.as_ref().is_some_and(|(m, _)| m == k))
        .cloned()
        .collect();
    let engines = sqlwitness_testkit::engine_names(&used);
    let run = |out: &str| {
        bin()
            .args(["eval", "--bench"])
            .arg(bench)
            .args([
                "--engines",
                &engines.join(","),
                "--reference",
                pg.as_str(),
                "--gold",
                &format!("{pg}={}", gold.display()),
                "--namespace-prefix",
                &prefix,
                "--out",
            ])
            .arg(bench.join(out))
            .args(sqlwitness_testkit::server_args(&used))
            .output()
            .unwrap()
    };
    let first = run("out1");
    let second = run("out2");
    for (kind, url) in &used {
        sqlwitness_migrate::drop_namespace(
            &sqlwitness_migrate::MigrationTarget::new(*kind, url),
            &format!("{prefix}shop"),
        )
        .unwrap();
    }
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{stderr}");
    assert!(stderr.contains("imported"), "{stderr}");
    assert!(bench.join("database/shop/shop.sqlite").is_file());
    let copy: serde_json::Value = serde_json::from_slice(
        &std::fs::read(bench.join("database/import-report-0.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        copy["databases"][0]["source_copy"]["faithful"], true,
        "{copy}"
    );
    if my.is_some() {
        let copy: serde_json::Value = serde_json::from_slice(
            &std::fs::read(bench.join("database/import-report-1.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            copy["databases"][0]["source_copy"]["faithful"], true,
            "{copy}"
        );
    }
    let second_err = String::from_utf8_lossy(&second.stderr);
    assert!(second.status.success(), "{second_err}");
    assert!(!second_err.contains("imported"), "{second_err}");
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(bench.join("out2/report.json")).unwrap()).unwrap();
    for e in &engines {
        for i in 0..2 {
            let q = &report["questions"][i]["engines"][e];
            assert_eq!(q["verdict"], "match", "{e}: question {i}: {q}");
            if *e != pg.as_str() {
                // Each engine's copy is its dump's own: MySQL's binary
                // collation answers as SQLite and PostgreSQL do.
                assert_eq!(q["reference"]["verdict"], "match", "{e}: question {i}: {q}");
            }
        }
    }
}

/// The BIRD mini-dev stand-in audited with PostgreSQL as the reference, as
/// a benchmark whose `dumps.json` names its PostgreSQL dump (`audit`
/// imports it by itself): PostgreSQL's golds, read in its dialect, run on
/// the copy with the dump's own types and judge SQLite's. One gold is
/// replaced (`--gold`) by a PostgreSQL-only `ORDER BY … LIMIT 1` whose
/// sort key ties in the data: the tie is proven by a probe query run on
/// PostgreSQL, with a `psql` command to see it again; no finding blames
/// PostgreSQL's dialect for its own golds.
#[test]
fn bird_minidev_audited_with_postgres_as_the_reference() {
    let Some(shared) = sqlwitness_testkit::shared_data("bird_minidev") else {
        return;
    };
    let servers = sqlwitness_testkit::servers();
    let Some((pg, pg_url)) = first_server(&servers, Adapter::Postgres) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    for f in ["mini_dev_sqlite.json", "mini_dev_postgresql.json"] {
        std::fs::copy(shared.join(f), bench.join(f)).unwrap();
    }
    let ids = ["debit_card_specializing", "student_club"];
    let all: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(shared.join("dev_tables.json")).unwrap()).unwrap();
    let two: Vec<&serde_json::Value> = all
        .iter()
        .filter(|d| ids.contains(&d["db_id"].as_str().unwrap()))
        .collect();
    std::fs::write(
        bench.join("dev_tables.json"),
        serde_json::to_string(&two).unwrap(),
    )
    .unwrap();
    std::fs::create_dir_all(bench.join("dumps")).unwrap();
    std::fs::copy(
        fixture("bird_minidev_postgres.sql"),
        bench.join("dumps/bird_minidev_postgres.sql"),
    )
    .unwrap();
    std::fs::write(
        bench.join("dumps.json"),
        serde_json::json!([{
            "dump": "dumps/bird_minidev_postgres.sql",
            "engine": pg.as_str(),
            "tables": "dev_tables.json",
        }])
        .to_string(),
    )
    .unwrap();
    // PostgreSQL's golds as shipped, but question 59 (student_club), whose
    // gold becomes a tie at LIMIT 1: two members share the highest zip
    // code. SQLite's gold of that question says the same in its dialect.
    let tie = 59;
    let pg_golds: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(shared.join("mini_dev_postgresql.json")).unwrap())
            .unwrap();
    assert_eq!(pg_golds[tie]["db_id"], "student_club");
    let mut pg_lines: Vec<String> = pg_golds
        .iter()
        .map(|q| {
            let sql = q["SQL"]
                .as_str()
                .unwrap()
                .split_whitespace()
                .collect::<Vec<_>>();
            format!("{}\t{}", sql.join(" "), q["db_id"].as_str().unwrap())
        })
        .collect();
    pg_lines[tie] =
        "SELECT first_name::text FROM member ORDER BY zip DESC NULLS LAST LIMIT 1\tstudent_club"
            .into();
    let mut sqlite_lines = vec![String::new(); pg_golds.len()];
    sqlite_lines[tie] =
        "SELECT first_name FROM member ORDER BY zip DESC LIMIT 1\tstudent_club".into();
    let (pg_file, sqlite_file) = (bench.join("gold_pg.sql"), bench.join("gold_sqlite.sql"));
    std::fs::write(&pg_file, pg_lines.join("\n") + "\n").unwrap();
    std::fs::write(&sqlite_file, sqlite_lines.join("\n") + "\n").unwrap();

    let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_audref"));
    let drop_copies = || {
        for id in ids {
            sqlwitness_migrate::drop_namespace(
                &sqlwitness_migrate::MigrationTarget::new(pg, &pg_url),
                &format!("{prefix}{id}"),
            )
            .unwrap();
        }
    };
    let o = bin()
        .args(["audit", "--bench"])
        .arg(bench)
        .args([
            "--split",
            "mini_dev",
            "--db",
            &ids.join(","),
            "--engines",
            &format!("sqlite,{pg}"),
            "--reference",
            pg.as_str(),
            "--namespace-prefix",
            &prefix,
            "-q",
            "--gold",
        ])
        .arg(format!("{pg}={}", pg_file.display()))
        .arg("--gold")
        .arg(format!("sqlite={}", sqlite_file.display()))
        .arg("--out")
        .arg(bench.join("out"))
        .args(sqlwitness_testkit::server_args(&servers))
        .output()
        .unwrap();
    drop_copies();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(bench.join("out/audit.json")).unwrap()).unwrap();
    assert_eq!(report["run"]["reference"], pg.as_str());
    // No reshuffled copies: they are SQLite files.
    assert_eq!(report["run"]["shuffle_seeds"], serde_json::json!([]));
    assert!(
        report["summary"]["with_db"].as_u64().unwrap() > 50,
        "{stderr}"
    );
    let findings = report["findings"].as_array().unwrap();
    for f in findings {
        let engines = f["engines"].as_array().unwrap();
        let rule = f["rule"].as_str().unwrap();
        assert!(
            !(rule.starts_with("dialect_") && engines.contains(&pg.as_str().into())),
            "PostgreSQL's gold blamed on PostgreSQL: {f}"
        );
    }
    let f = findings
        .iter()
        .find(|f| f["id"] == tie && f["rule"] == "limit_tie_1")
        .unwrap_or_else(|| panic!("no limit_tie_1 finding on question {tie}: {findings:?}"));
    assert_eq!(f["status"], "proven", "{f}");
    assert_eq!(f["engines"], serde_json::json!([pg.as_str()]), "{f}");
    let ev = &f["evidence"][0];
    assert_eq!(ev["kind"], "ties_at_cut", "{f}");
    let mut names: Vec<&str> = ev["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[1].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["Elijah", "Sacha"], "{f}");
    // The probe keeps PostgreSQL's cast: it was read in PostgreSQL's
    // dialect, and its rerun line is a psql command on the copy.
    assert!(ev["sql"].as_str().unwrap().contains("::"), "{f}");
    let psql = f["rerun"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c.as_str())
        .find(|c| c.starts_with("psql "))
        .unwrap_or_else(|| panic!("no psql rerun: {f}"));
    assert!(
        psql.contains(&format!("SET search_path TO \"{prefix}student_club\";")),
        "{psql}"
    );
    // The tie-inclusive rewrite, verified on PostgreSQL: both members.
    let rw = &f["rewrite"];
    assert_eq!(rw["verified"], true, "{f}");
    assert!(rw["results"][pg.as_str()]
        .as_str()
        .unwrap()
        .starts_with("rows=2 "));
    // SQLite's gold of the question may answer the other tied row: a
    // difference the tie at the cut explains, never another kind.
    for f in findings
        .iter()
        .filter(|f| f["id"] == tie && f["rule"].as_str().unwrap().starts_with("cross_engine"))
    {
        assert_eq!(f["mechanism"], "truncation", "{f}");
    }
}

/// A dump's views: one every engine can express (a join, a filter, an
/// aggregate) is carried into the SQLite file with the source view's rows;
/// one SQLite cannot express (PostgreSQL's `DISTINCT ON`, MySQL's `LPAD`) is
/// left out of the file and listed with the reason; a materialized view is
/// listed, not created.
#[test]
fn views_are_carried_where_sqlite_answers_alike_else_listed() {
    let dir = tempfile::tempdir().unwrap();
    let ran = sqlwitness_testkit::for_each_server(None, |kind, url| {
        let out = dir.path().join(kind.as_str());
        let (dump, other) = match adapter(kind) {
            Adapter::Postgres => ("views_postgres.sql", "latest_order"),
            _ => ("views_mysql.sql", "padded"),
        };
        let (code, stderr) = import(kind, url, &fixture(dump), &out, &["--db-id", "shop"]);
        assert_eq!(code, 0, "{kind}: {stderr}");
        let rep = report(&out);
        let views = rep["databases"][0]["views"].as_array().unwrap();
        let by_name = |n: &str| views.iter().find(|v| v["view"] == n).unwrap().clone();
        let big = by_name("big_spenders");
        assert_eq!(big["carried"], true, "{kind}: {big}");
        assert_eq!(big["rows"], 2, "{kind}: {big}");
        let refused = by_name(other);
        assert_eq!(refused["carried"], false, "{kind}: {refused}");
        let listed = rep["not_created"].to_string();
        assert!(
            listed.contains(&format!("{other}: not carried: SQLite")),
            "{kind}: {listed}"
        );
        assert!(!listed.contains("big_spenders"), "{kind}: {listed}");
        if adapter(kind) == Adapter::Postgres {
            // Made by the loader in the dump's database; not carried.
            assert!(
                listed.contains("materialized view public.totals: not carried"),
                "{listed}"
            );
        }
        let db = rusqlite::Connection::open(out.join("shop/shop.sqlite")).unwrap();
        let views: Vec<String> = db
            .prepare("SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let carried: &[&str] = match adapter(kind) {
            Adapter::Postgres => &["big_spenders", "renamed"],
            _ => &["big_spenders"],
        };
        assert_eq!(views, carried, "{kind}: never half-created");
        if adapter(kind) == Adapter::Postgres {
            let renamed = by_name("renamed");
            assert_eq!(renamed["carried"], true, "{renamed}");
            assert_eq!(renamed["rows"], 4, "{renamed}");
        }
        let rows: Vec<(String, i64, f64)> = db
            .prepare("SELECT name, orders, spent FROM big_spenders ORDER BY name")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            rows,
            [("Ada".to_string(), 2, 65.5), ("Bo".to_string(), 2, 70.0)],
            "{kind}"
        );
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// A dump's views are also made in the copy on the dump's own engine, where
/// the reference's golds are answered: each checked on its rows against the
/// loaded dump's view, so a gold that reads a view — even one SQLite cannot
/// express (PostgreSQL's `DISTINCT ON`, MySQL's `LPAD`) — is answered by
/// the source's engine with `--reference`.
#[test]
fn a_dumps_views_answer_golds_on_the_sources_own_copy() {
    let dir = tempfile::tempdir().unwrap();
    let ran = sqlwitness_testkit::for_each_server(None, |kind, url| {
        let pg = adapter(kind) == Adapter::Postgres;
        let bench = dir.path().join(kind.as_str());
        let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_vw"));
        let (dump, other, other_gold) = if pg {
            (
                "views_postgres.sql",
                "latest_order",
                "SELECT customer_id, id FROM latest_order ORDER BY customer_id",
            )
        } else {
            (
                "views_mysql.sql",
                "padded",
                "SELECT label FROM padded ORDER BY label",
            )
        };
        let out = bench.join("database");
        let (code, stderr) = import_with_copies(
            kind,
            url,
            &fixture(dump),
            &out,
            &["--db-id", "shop"],
            &prefix,
        );
        let _guard = DropCopies(kind, url.to_string(), out.clone());
        assert_eq!(code, 0, "{kind}: {stderr}");
        let copy = report(&out)["databases"][0]["source_copy"].clone();
        assert_eq!(copy["faithful"], true, "{kind}: {copy}");
        let views = copy["views"].as_array().unwrap();
        let by_name = |n: &str| views.iter().find(|v| v["view"] == n).unwrap().clone();
        for name in ["big_spenders", other] {
            let v = by_name(name);
            assert_eq!(v["carried"], true, "{kind}: {v}");
        }
        assert_eq!(by_name("big_spenders")["rows"], 2, "{kind}");
        // Not in the SQLite file, so still listed.
        let listed = report(&out)["not_created"].to_string();
        assert!(
            listed.contains(&format!("{other}: not carried")),
            "{listed}"
        );

        std::fs::write(
            bench.join("dev.jsonl"),
            [
                r#"{"db_id": "shop", "question": "big spenders", "gold": "SELECT name, spent FROM big_spenders ORDER BY name"}"#,
                r#"{"db_id": "shop", "question": "the server's own view", "gold": "SELECT 1"}"#,
            ]
            .join("\n"),
        )
        .unwrap();
        let gold = bench.join("gold_engine.sql");
        std::fs::write(
            &gold,
            format!("SELECT name, spent FROM big_spenders ORDER BY name\n{other_gold}\n"),
        )
        .unwrap();
        let r = eval_with_reference(&bench, kind, url, &gold, &prefix, &bench.join("out"));
        assert_eq!(
            verdicts(&r, 0, kind),
            ("match".to_string(), "match".to_string()),
            "{kind}: {}",
            r["questions"][0]
        );
        assert_eq!(
            verdicts(&r, 1, kind).0,
            "match",
            "{kind}: {}",
            r["questions"][1]
        );
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// MySQL and MariaDB: a scratch copy (a fuzz candidate, a perturbed
/// database) of a database whose copy there is the dump's own takes that
/// copy's column types — `decimal(10,2)`, the enum with its labels, the
/// binary collation of a `varchar` — so that a gold answers there as on
/// the original; a value those types cannot hold or would change rejects
/// the copy, saying why.
#[test]
fn a_mysql_scratch_copy_takes_the_dump_copys_types_or_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let ran = sqlwitness_testkit::for_each_server(Some(Adapter::Mysql), |kind, url| {
        let out = dir.path().join(kind.as_str());
        let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_mtypes"));
        let (code, stderr) = import_with_copies(
            kind,
            url,
            &fixture("prices_mysql.sql"),
            &out,
            &["--db-id", "shop"],
            &prefix,
        );
        let _copies = DropCopies(kind, url.to_string(), out.clone());
        assert_eq!(code, 0, "{kind}: {stderr}");
        let target = sqlwitness_migrate::MigrationTarget::new(kind, url);
        let original = format!("{prefix}shop");
        let place =
            |k: usize, change: &str| place_scratch(dir.path(), &out, &target, &original, k, change);
        let (report, scratch) = place(1, "");
        let same = format!(
            "SELECT CAST(COUNT(*) AS SIGNED) FROM information_schema.COLUMNS a \
             JOIN information_schema.COLUMNS b ON b.TABLE_SCHEMA = '{scratch}' \
             AND b.TABLE_NAME = a.TABLE_NAME AND b.COLUMN_NAME = a.COLUMN_NAME \
             AND b.COLUMN_TYPE = a.COLUMN_TYPE \
             AND b.COLLATION_NAME <=> a.COLLATION_NAME \
             WHERE a.TABLE_SCHEMA = '{original}' AND a.TABLE_NAME <> '__sqlwitness'"
        );
        let typed = admin::count(url, &same);
        sqlwitness_migrate::drop_namespace(&target, &scratch).unwrap();
        assert_eq!(report.problem(), None, "{kind}: {report:?}");
        let types = report.column_types.clone().unwrap();
        assert!(types.original_is_dump_copy, "{kind}: {types:?}");
        assert_eq!(types.columns_typed, 8, "{kind}: {types:?}");
        assert_eq!(typed, 8, "{kind}");
        for (k, change, why) in [
            (
                2,
                "UPDATE item SET price = 123456789012.5 WHERE item_id = 1",
                &["Out of range value for column 'price'"][..],
            ),
            (
                3,
                "UPDATE item SET grade = 'bogus' WHERE item_id = 1",
                &["Data truncated for column 'grade'"][..],
            ),
            (
                4,
                "UPDATE item SET price = 1.234 WHERE item_id = 1",
                &[
                    "the rows read back differ from the rows written",
                    "Data truncated for column 'price'",
                ][..],
            ),
            (
                5,
                "UPDATE shop SET city = 'a city name past twenty' WHERE shop_id = 1",
                // MariaDB loads through `LOAD DATA LOCAL INFILE`, which
                // says it as a truncation.
                &[
                    "Data too long for column 'city'",
                    "Data truncated for column 'city'",
                ][..],
            ),
        ] {
            let (report, scratch) = place(k, change);
            sqlwitness_migrate::drop_namespace(&target, &scratch).unwrap();
            let problem = report.problem().unwrap_or_default();
            assert!(
                problem.contains("with the original copy's column types")
                    && why.iter().any(|w| problem.contains(w)),
                "{kind}: {change}: {problem}"
            );
        }
        let left = format!(
            "SELECT CAST(COUNT(*) AS SIGNED) FROM information_schema.SCHEMATA \
             WHERE SCHEMA_NAME LIKE '{}%\\_\\_c%'",
            prefix.replace('_', "\\_")
        );
        assert_eq!(admin::count(url, &left), 0, "{kind}");
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// A dump's copies on the other engines take their column types from the
/// source, not from what the SQLite file can hold: MySQL's `decimal(10,2)`
/// is PostgreSQL's `numeric(10,2)` (whose `round(…, 2)` exists) and
/// DuckDB's `DECIMAL(10,2)` and stays a decimal on the other MySQL-family
/// server, and a `utf8mb4_bin` column compares case-sensitively everywhere.
#[test]
fn a_dumps_copies_on_other_engines_keep_its_types_and_collations() {
    let servers = sqlwitness_testkit::servers();
    let Some((source, source_url)) = first_server(&servers, Adapter::Mysql) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_xt"));
    let out = bench.join("database");
    let (code, stderr) = import_with_copies(
        source,
        &source_url,
        &fixture("prices_mysql.sql"),
        &out,
        &["--db-id", "shop"],
        &prefix,
    );
    let _guard = DropCopies(source, source_url.clone(), out.clone());
    assert_eq!(code, 0, "{stderr}");
    std::fs::write(
        bench.join("dev.jsonl"),
        [
            r#"{"db_id": "shop", "gold": "SELECT round(avg(price), 2) FROM item"}"#,
            r#"{"db_id": "shop", "gold": "SELECT count(*) FROM shop WHERE city = 'lyon'"}"#,
            r#"{"db_id": "shop", "gold": "SELECT sum(price) FROM item"}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    let gold = bench.join("gold_engine.sql");
    std::fs::write(
        &gold,
        "SELECT round(avg(price), 2) FROM item\n\
         SELECT count(*) FROM shop WHERE city = 'lyon'\n\
         SELECT sum(price) FROM item\n",
    )
    .unwrap();
    let mut checked = 0;
    for (kind, url) in servers.iter().filter(|(k, _)| *k != source) {
        let target = sqlwitness_migrate::MigrationTarget::new(*kind, url);
        let ns = format!("{prefix}shop");
        let report = eval_with_reference(
            bench,
            *kind,
            url,
            &gold,
            &prefix,
            &bench.join(format!("out_{kind}")),
        );
        let price_sql = if adapter(*kind) == Adapter::Postgres {
            format!(
                "SELECT count(*)::int8 FROM information_schema.columns WHERE table_schema = '{ns}' \
                 AND table_name = 'item' AND column_name = 'price' AND data_type = 'numeric' \
                 AND numeric_precision = 10 AND numeric_scale = 2"
            )
        } else {
            format!(
                "SELECT CAST(COUNT(*) AS SIGNED) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '{ns}' \
                 AND TABLE_NAME = 'item' AND COLUMN_NAME = 'price' AND COLUMN_TYPE = 'decimal(10,2)'"
            )
        };
        let typed = admin::count(url, &price_sql);
        sqlwitness_migrate::drop_namespace(&target, &ns).unwrap();
        assert_eq!(typed, 1, "{kind}: price is a decimal(10,2)");
        for i in 0..3 {
            assert_eq!(
                verdicts(&report, i, *kind),
                ("match".to_string(), "match".to_string()),
                "{kind}: question {i}: {}",
                report["questions"][i]
            );
        }
        checked += 1;
    }
    assert!(checked > 0 || !sqlwitness_testkit::required());
    // DuckDB, in a folder of the test's own: the copy is typed by the same
    // source model, and the golds answer there as on the dump's engine.
    let duckdb_url = format!("duckdb:{}", bench.join("duckdb").display());
    let report = eval_with_reference(
        bench,
        EngineKind::Duckdb,
        &duckdb_url,
        &gold,
        &prefix,
        &bench.join("out_duckdb"),
    );
    let engine = sqlwitness_engines::connect(EngineKind::Duckdb, Some(&duckdb_url)).unwrap();
    let db = sqlwitness_core::Database::with_prefix("shop", "", &prefix);
    let types = sqlwitness_core::Engine::execute(
        &*engine,
        &db,
        "SELECT column_name, data_type FROM information_schema.columns \
         WHERE table_name = 'item' ORDER BY ordinal_position",
        &Default::default(),
    )
    .unwrap();
    let price = types
        .rows
        .iter()
        .find(|r| r[0] == sqlwitness_core::Value::Text("price".into()))
        .map(|r| r[1].clone());
    assert_eq!(
        price,
        Some(sqlwitness_core::Value::Text("DECIMAL(10,2)".into())),
        "duckdb: {types:?}"
    );
    for i in 0..3 {
        assert_eq!(
            verdicts(&report, i, EngineKind::Duckdb),
            ("match".to_string(), "match".to_string()),
            "duckdb: question {i}: {}",
            report["questions"][i]
        );
    }
}

/// `import` of the same dump again does nothing (exit 0, the first
/// report kept); of an edited dump, it replaces what it wrote; a failed
/// import still writes its report, naming what failed and what each
/// database's file is now.
#[test]
fn import_is_idempotent_notices_an_edited_dump_and_reports_a_failure() {
    let ran = sqlwitness_testkit::for_each_server(Some(Adapter::Postgres), |kind, url| {
        let dir = tempfile::tempdir().unwrap();
        let dump = dir.path().join("shop.sql");
        std::fs::copy(fixture("prices_postgres.sql"), &dump).unwrap();
        let out = dir.path().join("database");
        let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_fresh"));
        // The last import fails (its report names no copy): the copy the
        // others made is dropped by its name.
        let _guard = DropNamespace(kind, url.to_string(), format!("{prefix}shop"));
        let (code, stderr) =
            import_with_copies(kind, url, &dump, &out, &["--db-id", "shop"], &prefix);
        assert_eq!(code, 0, "{stderr}");
        let first = std::fs::read(out.join("import-report.json")).unwrap();
        let started = Instant::now();
        let (code, stderr) =
            import_with_copies(kind, url, &dump, &out, &["--db-id", "shop"], &prefix);
        assert_eq!(code, 0, "{stderr}");
        assert!(stderr.contains("nothing to do"), "{stderr}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(
            std::fs::read(out.join("import-report.json")).unwrap(),
            first
        );
        let items = |out: &Path| -> i64 {
            rusqlite::Connection::open(out.join("shop/shop.sqlite"))
                .unwrap()
                .query_row("SELECT count(*) FROM item", [], |r| r.get(0))
                .unwrap()
        };
        let before = items(&out);
        // An edited dump: one more item.
        let text = std::fs::read_to_string(&dump).unwrap();
        let edited = text.replacen(
            "COPY public.item",
            "INSERT INTO public.item (item_id, shop_id, name, price) VALUES (99, 1, 'jam', 3.50);\n\nCOPY public.item",
            1,
        );
        assert_ne!(edited, text, "the fixture has a COPY of item");
        std::fs::write(&dump, edited).unwrap();
        let (code, stderr) =
            import_with_copies(kind, url, &dump, &out, &["--db-id", "shop"], &prefix);
        assert_eq!(code, 0, "{stderr}");
        assert!(stderr.contains("written again: shop"), "{stderr}");
        assert_eq!(items(&out), before + 1);
        // Edited again, then evaluated: `eval` imports it again first.
        let text = std::fs::read_to_string(&dump).unwrap();
        std::fs::write(
            &dump,
            text.replacen(
                "COPY public.item",
                "INSERT INTO public.item (item_id, shop_id, name, price) VALUES (98, 1, 'honey', 4.50);\n\nCOPY public.item",
                1,
            ),
        )
        .unwrap();
        std::fs::write(
            dir.path().join("dev.jsonl"),
            r#"{"db_id": "shop", "gold": "SELECT count(*) FROM item"}"#,
        )
        .unwrap();
        let o = bin()
            .args(["eval", "--bench"])
            .arg(dir.path())
            .args([
                "--engines",
                &format!("sqlite,{kind}"),
                "--server",
                &format!("{kind}={url}"),
                "--namespace-prefix",
                &prefix,
                "--out",
            ])
            .arg(dir.path().join("out"))
            .output()
            .unwrap();
        let eval_err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{eval_err}");
        assert!(eval_err.contains("imported again"), "{eval_err}");
        assert_eq!(items(&out), before + 2);
        // A dump refused: the report says so, and the file is as it was.
        std::fs::write(&dump, "COPY public.item FROM PROGRAM 'id';\n").unwrap();
        let (code, stderr) =
            import_with_copies(kind, url, &dump, &out, &["--db-id", "shop"], &prefix);
        assert_ne!(code, 0, "{stderr}");
        let failed: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("import-report.json")).unwrap())
                .unwrap();
        assert_eq!(failed["failed"], true, "{failed}");
        assert!(
            failed["error"].as_str().unwrap().contains("line 1"),
            "{failed}"
        );
        assert_eq!(failed["databases"][0]["db_id"], "shop", "{failed}");
        assert!(failed["databases"][0]["state"].is_string(), "{failed}");
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// Two benchmarks whose databases share a `db_id` but not their contents
/// never share a copy: the second import finds the plain namespace held by
/// the first benchmark's copy and takes one of its own, which every later
/// command of that benchmark uses.
#[test]
fn two_benchmarks_with_one_db_id_never_share_a_copy() {
    let ran = sqlwitness_testkit::for_each_server(Some(Adapter::Postgres), |kind, url| {
        let dir = tempfile::tempdir().unwrap();
        let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_two"));
        let text = std::fs::read_to_string(fixture("prices_postgres.sql")).unwrap();
        let edited = text.replacen(
            "COPY public.item",
            "INSERT INTO public.item (item_id, shop_id, name, price) VALUES (99, 1, 'jam', 3.50);\n\nCOPY public.item",
            1,
        );
        let mut namespaces = Vec::new();
        let mut guards = Vec::new();
        for (name, dump_text) in [("a", &text), ("b", &edited)] {
            let bench = dir.path().join(name);
            std::fs::create_dir_all(&bench).unwrap();
            let dump = bench.join("shop.sql");
            std::fs::write(&dump, dump_text).unwrap();
            let out = bench.join("database");
            let (code, stderr) =
                import_with_copies(kind, url, &dump, &out, &["--db-id", "shop"], &prefix);
            guards.push(DropCopies(kind, url.to_string(), out.clone()));
            assert_eq!(code, 0, "{name}: {stderr}");
            let rep = report(&out);
            namespaces.push(
                rep["databases"][0]["source_copy"]["namespace"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            );
            let bench_view =
                sqlwitness_bench::database_of("shop", &out.join("shop/shop.sqlite"), &prefix);
            assert_eq!(bench_view.namespace, namespaces.last().unwrap().as_str());
        }
        assert_eq!(namespaces[0], format!("{prefix}shop"));
        assert_ne!(namespaces[0], namespaces[1]);
        let items =
            |ns: &str| admin::count(url, &format!("SELECT count(*)::int8 FROM \"{ns}\".item"));
        assert_eq!(items(&namespaces[1]), items(&namespaces[0]) + 1);
        // The first benchmark's copy is still current for it.
        let (code, stderr) = import_with_copies(
            kind,
            url,
            &dir.path().join("a/shop.sql"),
            &dir.path().join("a/database"),
            &["--db-id", "shop"],
            &prefix,
        );
        assert_eq!(code, 0, "{stderr}");
        assert!(stderr.contains("nothing to do"), "{stderr}");
        drop(guards);
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// A question that reads a column the engine's copy holds only degraded
/// (a MySQL `point` as WKT in SQLite) is marked not portable there: a
/// prediction's failure on that engine is `engine_error`, never the
/// model's; a question that does not read it is judged as usual.
#[test]
fn a_query_that_reads_a_degraded_column_is_not_portable_there() {
    let servers = sqlwitness_testkit::servers();
    let Some((source, source_url)) = first_server(&servers, Adapter::Mysql) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    let out = bench.join("database");
    let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_np"));
    let (code, stderr) = import_with_copies(
        source,
        &source_url,
        &fixture("types_mysql.sql"),
        &out,
        &["--db-id", "types"],
        &prefix,
    );
    let _guard = DropCopies(source, source_url.clone(), out.clone());
    assert_eq!(code, 0, "{stderr}");
    std::fs::write(
        bench.join("dev.jsonl"),
        [
            r#"{"db_id": "types", "gold": "SELECT id FROM with_point WHERE place LIKE 'POINT%'"}"#,
            r#"{"db_id": "types", "gold": "SELECT count(*) FROM with_point"}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    let pred = bench.join("pred.sql");
    std::fs::write(
        &pred,
        "SELECT id FROM with_point WHERE place IS NULL\nSELECT count(*) + 1 FROM with_point\n",
    )
    .unwrap();
    let o = bin()
        .args(["eval", "--bench"])
        .arg(bench)
        .args(["--engines", "sqlite", "-q", "--pred"])
        .arg(&pred)
        .arg("--out")
        .arg(bench.join("out"))
        .output()
        .unwrap();
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(bench.join("out/report.json")).unwrap()).unwrap();
    let q = |i: usize| report["questions"][i]["engines"]["sqlite"].clone();
    assert_eq!(q(0)["verdict"], "engine_error", "{}", q(0));
    assert!(
        q(0)["not_portable"]
            .as_str()
            .is_some_and(|n| n.contains("with_point.place") && n.contains("WKT")),
        "{}",
        q(0)
    );
    assert_eq!(q(1)["verdict"], "mismatch", "{}", q(1));
    assert!(q(1)["not_portable"].is_null(), "{}", q(1));
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A decimal past a double's digits, which the SQLite file holds as its
/// exact text, is a decimal of the source's precision on the other
/// engines, to the last digit.
#[test]
fn a_wide_decimal_stays_exact_on_the_other_engines() {
    let Some((dir, prefix, _guard)) = imported_types("swt_wide") else {
        return;
    };
    let bench = dir.path();
    let servers = sqlwitness_testkit::servers();
    let mut checked = 0;
    for (kind, url) in servers
        .iter()
        .filter(|(k, _)| adapter(*k) == Adapter::Mysql)
    {
        let o = migrate(bench, *kind, url, &prefix, &bench.join("log"), &[]);
        let ns = format!("{prefix}types");
        let exact = admin::count(
            url,
            &format!(
                "SELECT CAST(COUNT(*) AS SIGNED) FROM `{ns}`.`carried` \
                 WHERE huge = 12345678901234567890.0123456789"
            ),
        );
        let typed = admin::count(
            url,
            &format!(
                "SELECT CAST(COUNT(*) AS SIGNED) FROM information_schema.COLUMNS \
                 WHERE TABLE_SCHEMA = '{ns}' AND TABLE_NAME = 'carried' AND COLUMN_NAME = 'huge' \
                 AND COLUMN_TYPE = 'decimal(30,10)'"
            ),
        );
        sqlwitness_migrate::drop_namespace(
            &sqlwitness_migrate::MigrationTarget::new(*kind, url),
            &ns,
        )
        .unwrap();
        assert!(
            o.status.success(),
            "{kind}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!((typed, exact), (1, 1), "{kind}");
        checked += 1;
    }
    assert!(checked > 0 || !sqlwitness_testkit::required());
}

/// A PostgreSQL dump's times of day, UUIDs, JSON and instants keep types of
/// their own on the other engines — MySQL `time(6)`, `char(36)`, `json`,
/// `datetime(6)`; MariaDB's own `uuid`; DuckDB `TIME`, `UUID`, `TIMESTAMP`
/// — each copy read back in full and equal to the source: a time's
/// fractions and a JSON document in the server's own form (MySQL orders
/// keys and reads numbers its own way) compared as such. JSON on DuckDB is
/// its exact text (this build has no json extension), named as changed.
#[test]
fn times_uuids_and_json_keep_types_of_their_own_on_the_other_engines() {
    let Some((dir, prefix, _guard)) = imported_types("swt_tuj") else {
        return;
    };
    let bench = dir.path();
    let servers = sqlwitness_testkit::servers();
    let duckdb_url = format!("duckdb:{}", bench.join("duckdb").display());
    let mut targets: Vec<(EngineKind, String)> = servers
        .iter()
        .filter(|(k, _)| adapter(*k) == Adapter::Mysql)
        .cloned()
        .collect();
    targets.push((EngineKind::Duckdb, duckdb_url.clone()));
    let ns = format!("{prefix}types");
    for (kind, url) in &targets {
        let _drop =
            (*kind != EngineKind::Duckdb).then(|| DropNamespace(*kind, url.clone(), ns.clone()));
        let log = bench.join(format!("log_{kind}"));
        let o = migrate(bench, *kind, url, &prefix, &log, &[]);
        assert!(
            o.status.success(),
            "{kind}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let migration: serde_json::Value = serde_json::from_slice(
            &std::fs::read(log.join(kind.as_str()).join("types.json")).unwrap(),
        )
        .unwrap();
        let kept_inferred = migration["column_types"]["kept_inferred"].to_string();
        for column in ["at_time", "doc", "raw", "ident", "stamp_tz"] {
            assert!(
                !kept_inferred.contains(&format!("carried.{column}:")),
                "{kind}: {column} kept the inferred type: {kept_inferred}"
            );
        }
        let table = migration["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "carried")
            .unwrap();
        assert_eq!(table["verified"], true, "{kind}: {table}");
        let typed: std::collections::BTreeMap<String, String> = table["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["name"].as_str().unwrap().to_string(),
                    c["target_type"].as_str().unwrap().to_lowercase(),
                )
            })
            .collect();
        let want: &[(&str, &str)] = match (*kind, adapter(*kind)) {
            (EngineKind::Duckdb, _) => &[
                ("at_time", "time"),
                ("ident", "uuid"),
                ("doc", "varchar"),
                ("stamp_tz", "timestamp"),
            ],
            (EngineKind::Mariadb, _) => &[
                ("at_time", "time(6)"),
                ("ident", "uuid"),
                ("doc", "json"),
                ("raw", "json"),
                ("stamp_tz", "datetime(6)"),
            ],
            _ => &[
                ("at_time", "time(6)"),
                ("ident", "char(36)"),
                ("doc", "json"),
                ("raw", "json"),
                ("stamp_tz", "datetime(6)"),
            ],
        };
        for (column, ty) in want {
            assert_eq!(
                typed.get(*column).map(String::as_str),
                Some(*ty),
                "{kind}: {column}"
            );
        }
        // The values answer as the source's: the time keeps its half
        // second, the instant is its UTC wall-clock time, the document is
        // JSON the engine reads.
        if *kind == EngineKind::Duckdb {
            let engine = sqlwitness_engines::connect(*kind, Some(url)).unwrap();
            let db = sqlwitness_core::Database::with_prefix("types", "", &prefix);
            let r = sqlwitness_core::Engine::execute(
                &*engine,
                &db,
                "SELECT count(*) FROM carried WHERE at_time = TIME '23:59:59.5' \
                 AND ident = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::UUID \
                 AND stamp_tz = TIMESTAMP '2024-02-29 10:00:00' \
                 AND doc = '{\"a\": 1, \"b\": [1, 2]}'",
                &Default::default(),
            )
            .unwrap();
            assert_eq!(r.rows, vec![vec![sqlwitness_core::Value::Int(1)]], "{kind}");
        } else {
            let n = admin::count(
                url,
                &format!(
                    "SELECT CAST(COUNT(*) AS SIGNED) FROM `{ns}`.`carried` \
                     WHERE at_time = '23:59:59.5' \
                     AND ident = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' \
                     AND stamp_tz = '2024-02-29 10:00:00' \
                     AND JSON_EXTRACT(doc, '$.b[1]') = 2 AND JSON_LENGTH(raw) = 1"
                ),
            );
            assert_eq!(n, 1, "{kind}");
        }
    }
}
