//! Dumps as their publishers ship them, carried to every engine:
//!
//! - a PostgreSQL dump written as schema and data apart, the data in
//!   `pg_dump --disable-triggers` style (and `session_replication_role`),
//!   whose rows break its foreign keys until the end (two tables pointing at
//!   each other), loads without a superuser: its copy holds, table for
//!   table, what the publisher's own load (psql as a superuser) holds; the
//!   keys the rows satisfy are kept, the one they break is named;
//! - an enum keeps its labels and their order on every engine that has
//!   enums (MySQL, MariaDB, DuckDB): `ORDER BY rating` answers there as on
//!   the source;
//! - MySQL's own types (`timestamp`, `year`, `set`, `char(n)`, `enum`) reach
//!   the other engines typed and verified.

#[path = "common/admin.rs"]
mod admin;
#[path = "common/dump_copies.rs"]
mod dump_copies;

use std::path::Path;
use std::process::Command;

use sqlwitness_core::EngineKind;
use sqlwitness_dialect::Adapter;

use dump_copies::{bin, fixture, import, json, run, Copies};

fn family(kind: EngineKind) -> Adapter {
    sqlwitness_dialect::shipped(kind).adapter
}

/// `migrate` of the benchmark in `bench` to `kind` at `url`; the migration
/// log of `db_id` there.
fn migrate(
    kind: EngineKind,
    url: &str,
    bench: &Path,
    db_id: &str,
    copies: &mut Copies,
) -> serde_json::Value {
    copies.add(kind, url, db_id);
    let logs = bench.join(format!("logs_{kind}"));
    run(bin()
        .args(["migrate", "--bench"])
        .arg(bench)
        .args(["--split", "dev", "--engines", kind.as_str()])
        .args(["--server", &format!("{kind}={url}")])
        .args(["--namespace-prefix", &copies.prefix, "--log-dir"])
        .arg(&logs));
    json(&logs.join(kind.as_str()).join(format!("{db_id}.json")))
}

/// Each column's type as created, from a migration log.
fn created_types(log: &serde_json::Value, table: &str) -> Vec<(String, String)> {
    log["tables"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"] == table)
        .flat_map(|t| t["columns"].as_array().unwrap())
        .map(|c| {
            let name = c["name"].as_str().unwrap().to_string();
            (name, c["target_type"].as_str().unwrap().to_string())
        })
        .collect()
}

fn type_of(types: &[(String, String)], column: &str) -> String {
    types
        .iter()
        .find(|(n, _)| n == column)
        .map(|(_, t)| t.clone())
        .unwrap_or_else(|| panic!("no column {column} in {types:?}"))
}

/// The targets of a run besides the source engine: every other server, and
/// DuckDB in a folder of the test's own.
fn targets(source: EngineKind, bench: &Path) -> Vec<(EngineKind, String)> {
    let mut out: Vec<(EngineKind, String)> = sqlwitness_testkit::servers()
        .into_iter()
        .filter(|(k, _)| *k != source)
        .collect();
    let folder = bench.join("duckdb");
    out.push((EngineKind::Duckdb, format!("duckdb:{}", folder.display())));
    out
}

/// The gold's first rows on every engine of `engines` after `eval`.
fn gold_rows(
    bench: &Path,
    engines: &[(EngineKind, String)],
    prefix: &str,
) -> Vec<(String, serde_json::Value)> {
    let out = bench.join("eval");
    let names: Vec<&str> = engines.iter().map(|(k, _)| k.as_str()).collect();
    let mut cmd = bin();
    cmd.args(["eval", "--bench"])
        .arg(bench)
        .args(["--split", "dev", "--no-migrate", "-q"])
        .args(["--engines", &names.join(",")])
        .args(["--namespace-prefix", prefix, "--out"])
        .arg(&out);
    for (k, u) in engines {
        cmd.args(["--server", &format!("{k}={u}")]);
    }
    run(&mut cmd);
    let report = json(&out.join("report.json"));
    engines
        .iter()
        .map(|(k, _)| {
            let gold = &report["questions"][0]["engines"][k.as_str()]["gold"];
            assert_eq!(gold["status"], "ok", "{k}: {gold}");
            (k.to_string(), gold["sample"].clone())
        })
        .collect()
}

/// The publisher's load: `dump` run by psql as the administrative login
/// (a superuser) into a database of the test's own; each table of its
/// `public` schema with its rows as text, sorted. The database is dropped.
fn published_rows(url: &str, dump: &str) -> Vec<(String, Vec<String>)> {
    let db = sqlwitness_testkit::unique_name("swt_pub");
    admin::exec(url, &format!("CREATE DATABASE \"{db}\""));
    let mut there = url::Url::parse(url).unwrap();
    there.set_path(&format!("/{db}"));
    let loaded = Command::new("psql")
        .arg(there.as_str())
        .args(["-q", "-X", "-v", "ON_ERROR_STOP=1", "-f"])
        .arg(fixture(dump))
        .output();
    let tables = loaded
        .as_ref()
        .map(|o| o.status.success())
        .unwrap_or(false)
        .then(|| {
            let names = admin::texts(
                there.as_str(),
                "SELECT tablename::text FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
            );
            names
                .into_iter()
                .map(|t| {
                    let rows = admin::texts(
                        there.as_str(),
                        &format!("SELECT t::text FROM public.{t} t ORDER BY 1"),
                    );
                    (t, rows)
                })
                .collect()
        });
    admin::exec(url, &format!("DROP DATABASE \"{db}\" WITH (FORCE)"));
    tables.unwrap_or_else(|| panic!("psql could not load {dump}: {loaded:?}"))
}

#[test]
fn a_disable_triggers_dump_loads_without_a_superuser_and_its_enum_keeps_its_order() {
    let servers = sqlwitness_testkit::servers();
    let Some((pg, pg_url)) = servers
        .iter()
        .find(|(k, _)| family(*k) == Adapter::Postgres)
        .cloned()
    else {
        assert!(!sqlwitness_testkit::required(), "PostgreSQL is required");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    let mut copies = Copies::new("swt_ship");
    copies.add(pg, &pg_url, "rental");
    import(
        pg,
        &pg_url,
        "disable_triggers_postgres.sql",
        bench,
        "rental",
        &copies,
    );
    // Every row, in the file and in the copy with the dump's own types.
    let file = rusqlite::Connection::open(bench.join("database/rental/rental.sqlite")).unwrap();
    let ns = format!("{}rental", copies.prefix);
    for (table, rows) in [
        ("staff", 2),
        ("store", 2),
        ("inventory", 6),
        ("film", 5),
        ("legacy_rental", 2),
    ] {
        let n: i64 = file
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, rows, "{table} in the SQLite file");
        let copy = admin::count(&pg_url, &format!("SELECT count(*) FROM \"{ns}\".{table}"));
        assert_eq!(copy, rows, "{table} in the copy");
    }
    // The keys the rows satisfy are kept (the two that point at each
    // other too), validated; the one they break is named.
    let keys = admin::count(
        &pg_url,
        &format!(
            "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND convalidated \
             AND connamespace = '\"{ns}\"'::regnamespace"
        ),
    );
    assert_eq!(keys, 4, "the copy's validated foreign keys");
    // Table for table, the copy holds what the publisher's own load (psql,
    // as a superuser) holds.
    let published = published_rows(&pg_url, "disable_triggers_postgres.sql");
    for (table, rows) in &published {
        let copy = admin::texts(
            &pg_url,
            &format!("SELECT t::text FROM \"{ns}\".{table} t ORDER BY 1"),
        );
        assert_eq!(
            &copy, rows,
            "{table}: the copy against the publisher's load"
        );
    }
    assert_eq!(published.len(), 5, "{published:?}");
    let report = json(&bench.join("database/import-report.json"));
    let notes = report["databases"][0]["source_copy"]["notes"].to_string();
    assert!(
        notes.contains("legacy_rental") && notes.contains("not added"),
        "{notes}"
    );
    let rewritten = report["rewritten"].to_string();
    assert!(rewritten.contains("TRIGGER ALL"), "{rewritten}");
    assert!(
        rewritten.contains("session_replication_role"),
        "{rewritten}"
    );

    // The enum on every engine that has enums: its labels in their order.
    std::fs::write(
        bench.join("dev.jsonl"),
        r#"{"db_id": "rental", "gold": "SELECT rating, count(*) FROM film GROUP BY rating ORDER BY rating"}"#,
    )
    .unwrap();
    let mut engines = vec![(pg, pg_url.clone())];
    for (kind, url) in targets(pg, bench) {
        let log = migrate(kind, &url, bench, "rental", &mut copies);
        assert_eq!(log["status"], "migrated", "{kind}: {log}");
        let rating = type_of(&created_types(&log, "film"), "rating");
        assert!(
            rating
                .to_ascii_lowercase()
                .starts_with("enum('g','pg','pg-13','r','nc-17')"),
            "{kind}: rating is {rating}"
        );
        engines.push((kind, url));
    }
    let expected = serde_json::json!([["G", "2"], ["PG", "1"], ["R", "1"], ["NC-17", "1"]]);
    for (engine, rows) in gold_rows(bench, &engines, &copies.prefix) {
        assert_eq!(rows, expected, "{engine}: the enum's order");
    }
}

#[test]
fn mysqls_own_types_reach_every_engine_typed_and_verified() {
    let servers = sqlwitness_testkit::servers();
    let Some((source, url)) = servers
        .iter()
        .find(|(k, _)| family(*k) == Adapter::Mysql)
        .cloned()
    else {
        assert!(
            !sqlwitness_testkit::required(),
            "MySQL or MariaDB is required"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    let mut copies = Copies::new("swt_myty");
    copies.add(source, &url, "films");
    import(
        source,
        &url,
        "mysql_types_mysql.sql",
        bench,
        "films",
        &copies,
    );
    std::fs::write(
        bench.join("dev.jsonl"),
        r#"{"db_id": "films", "gold": "SELECT title, release_year, last_update, rating, special_features, language FROM film ORDER BY film_id"}"#,
    )
    .unwrap();
    let mut engines = vec![(source, url.clone())];
    for (kind, target_url) in targets(source, bench) {
        let log = migrate(kind, &target_url, bench, "films", &mut copies);
        assert_eq!(log["status"], "migrated", "{kind}: {log}");
        let types = created_types(&log, "film");
        let want: &[(&str, &str)] = match family(kind) {
            Adapter::Postgres => &[
                ("release_year", "smallint"),
                ("last_update", "timestamp without time zone"),
            ],
            Adapter::Mysql => &[
                ("release_year", "year"),
                ("last_update", "timestamp"),
                ("rating", "enum("),
                ("special_features", "set("),
                ("language", "char(20)"),
            ],
            _ => &[
                ("release_year", "SMALLINT"),
                ("last_update", "TIMESTAMP"),
                ("rating", "ENUM("),
            ],
        };
        for (column, prefix) in want {
            let t = type_of(&types, column);
            assert!(
                t.starts_with(prefix),
                "{kind}: {column} is {t}, not {prefix}…"
            );
        }
        engines.push((kind, target_url));
    }
    // The same values on every engine, the MySQL source's included.
    let answers = gold_rows(bench, &engines, &copies.prefix);
    let (first, rows) = &answers[0];
    assert_eq!(rows[4][2], "2036-12-31 00:00:00", "{first}: {rows}");
    for (engine, other) in &answers[1..] {
        assert_eq!(other, rows, "{engine} against {first}");
    }
}
