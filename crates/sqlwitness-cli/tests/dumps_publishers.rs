//! Sample dumps laid out as their publishers ship them, each loaded by its
//! own server's client (psql, the mysql client) as the publisher says and
//! by `sqlwitness import`, then carried to every engine:
//!
//! - `tests/dumps/latin1_postgres.sql`: a PostgreSQL dump written in LATIN1
//!   (`SET client_encoding = 'LATIN1'` inside its transaction, then LATIN1
//!   bytes in `COPY` data and in statements, as the pgFoundry "world"
//!   sample ships): every character arrives as psql's load holds it, in
//!   the copy with the dump's own types and on every other engine;
//! - `tests/dumps/workbench_mysql.sql`: a MySQL Workbench script (as the
//!   MS Access Northwind port for MySQL ships) that names every table and
//!   every foreign key's target with its own database
//!   (`` `wbshop`.`orders` ``): it loads into the namespace sqlwitness
//!   creates, as the mysql client loads it into `wbshop`;
//! - `tests/dumps/own_login_postgres.sql`: a sample that makes a login of
//!   its own for its exercises (as pgexercises' `clubdata.sql`): the login
//!   is skipped, never created, and the tables load as psql loads them.

#[path = "../../../tests/common/admin.rs"]
mod admin;
#[path = "../../../tests/common/dump_copies.rs"]
mod dump_copies;

use std::path::Path;
use std::process::Command;

use sqlwitness_core::EngineKind;
use sqlwitness_dialect::Adapter;

use dump_copies::{bin, client, fixture, import, json, mysql_client, postgres, run, Copies};

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

/// `migrate` of `db_id` to every target (asserting each copy verified, read
/// back in full); then `eval` of the benchmark's one gold on the SQLite
/// file, the source's copy and every target, the source judging: for each
/// engine, its gold's rows (the report's sample: every row when there are
/// few) and whether they are the source's answer.
fn answers_everywhere(
    source: (EngineKind, &str),
    bench: &Path,
    db_id: &str,
    gold: &str,
    copies: &mut Copies,
) -> Vec<(String, serde_json::Value, bool)> {
    std::fs::write(
        bench.join("dev.jsonl"),
        serde_json::json!({"db_id": db_id, "gold": gold}).to_string(),
    )
    .unwrap();
    let mut engines = vec![(source.0, source.1.to_string())];
    for (kind, url) in targets(source.0, bench) {
        copies.add(kind, &url, db_id);
        let logs = bench.join(format!("logs_{kind}"));
        run(bin()
            .args(["migrate", "--bench"])
            .arg(bench)
            .args([
                "--split",
                "dev",
                "--engines",
                kind.as_str(),
                "--verify",
                "full",
            ])
            .args(["--server", &format!("{kind}={url}")])
            .args(["--namespace-prefix", &copies.prefix, "--log-dir"])
            .arg(&logs));
        let log = json(&logs.join(kind.as_str()).join(format!("{db_id}.json")));
        // Migrated now, or by an earlier call for the same database.
        let status = log["status"].as_str().unwrap_or_default();
        assert!(
            ["migrated", "up_to_date"].contains(&status),
            "{kind}: {log}"
        );
        engines.push((kind, url));
    }
    let out = bench.join("eval");
    let mut names = vec!["sqlite"];
    names.extend(engines.iter().map(|(k, _)| k.as_str()));
    let mut cmd = bin();
    cmd.args(["eval", "--bench"])
        .arg(bench)
        .args(["--split", "dev", "--no-migrate", "-q"])
        .args(["--engines", &names.join(",")])
        .args(["--reference", source.0.as_str()])
        .args(["--namespace-prefix", &copies.prefix, "--out"])
        .arg(&out);
    for (k, u) in &engines {
        cmd.args(["--server", &format!("{k}={u}")]);
    }
    run(&mut cmd);
    let report = json(&out.join("report.json"));
    names
        .iter()
        .map(|k| {
            let engine = &report["questions"][0]["engines"][*k];
            let gold = &engine["gold"];
            assert_eq!(gold["status"], "ok", "{k}: {gold}");
            let agrees = *k == source.0.as_str() || engine["reference"]["gold_agrees"] == true;
            (k.to_string(), gold["sample"].clone(), agrees)
        })
        .collect()
}

/// The publisher's load of a PostgreSQL dump: `dump` run by psql as the
/// administrative login (a superuser) into a database of the test's own,
/// then `read` there (the database is dropped after).
fn psql_load<T>(url: &str, dump: &str, read: impl FnOnce(&str) -> T) -> T {
    psql_load_with(url, dump, true, |db, _| read(db))
}

/// [`psql_load`], stopping at the first error or (as psql does by default)
/// going on; `read` also gets psql's stderr.
fn psql_load_with<T>(
    url: &str,
    dump: &str,
    stop_on_error: bool,
    read: impl FnOnce(&str, &str) -> T,
) -> T {
    psql_load_file(url, &fixture(dump), stop_on_error, read)
}

/// [`psql_load_with`] of the file at `dump`.
fn psql_load_file<T>(
    url: &str,
    dump: &Path,
    stop_on_error: bool,
    read: impl FnOnce(&str, &str) -> T,
) -> T {
    let db = sqlwitness_testkit::unique_name("swt_pub");
    admin::exec(url, &format!("CREATE DATABASE \"{db}\""));
    let mut there = url::Url::parse(url).unwrap();
    there.set_path(&format!("/{db}"));
    let stop = format!("ON_ERROR_STOP={}", u8::from(stop_on_error));
    let loaded = Command::new("psql")
        .arg(there.as_str())
        .args(["-q", "-X", "-v", &stop, "-f"])
        .arg(dump)
        .output();
    let ok = loaded.as_ref().is_ok_and(|o| o.status.success());
    let out = ok.then(|| {
        let stderr = String::from_utf8_lossy(&loaded.as_ref().unwrap().stderr).into_owned();
        read(there.as_str(), &stderr)
    });
    admin::exec(url, &format!("DROP DATABASE \"{db}\" WITH (FORCE)"));
    out.unwrap_or_else(|| panic!("psql could not load {}: {loaded:?}", dump.display()))
}

/// Each note of the import report's list `list` (`skipped`, `rejected`
/// …): its line and its `field`.
fn report_notes(report: &serde_json::Value, list: &str, field: &str) -> Vec<(u64, String)> {
    report[list]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["line"].as_u64().unwrap(),
                n[field].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Every table of `schema` with its rows as text, sorted.
fn pg_tables(url: &str, schema: &str) -> Vec<(String, Vec<String>)> {
    admin::texts(
        url,
        &format!(
            "SELECT tablename::text FROM pg_tables WHERE schemaname = '{schema}' \
             AND tablename <> '__sqlwitness' ORDER BY 1"
        ),
    )
    .into_iter()
    .map(|t| {
        let rows = admin::texts(
            url,
            &format!("SELECT t::text FROM \"{schema}\".{t} t ORDER BY 1"),
        );
        (t, rows)
    })
    .collect()
}

/// A PostgreSQL dump with statements the server rejects (a column of a
/// type the server lacks, that table's `COPY`, indexes it cannot build)
/// loads as psql loads it: the rejected statements are passed over, each
/// named with its line and error in the report and on stderr, and every
/// other table is there with its rows and keys.
#[test]
fn a_postgres_dumps_rejected_statements_are_passed_over_as_psql_passes_them() {
    let servers = sqlwitness_testkit::servers();
    let Some((pg, pg_url)) = postgres(&servers) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    let copies = Copies::new("swt_rejected");
    let ns = format!("{}weather", copies.prefix);
    let dump = "rejected_statements_postgres.sql";
    let o = bin()
        .args(["import", "--engine", pg.as_str(), "--server", &pg_url])
        .args(["--namespace-prefix", &copies.prefix, "--db-id", "weather"])
        .arg("--out")
        .arg(bench.join("database"))
        .arg("--dump")
        .arg(fixture(dump))
        .output()
        .unwrap();
    let mut copies = copies;
    copies.add(pg, &pg_url, "weather");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let report = json(&bench.join("database/import-report.json"));
    let rejected = report_notes(&report, "rejected", "statement");
    let lines: Vec<u64> = rejected.iter().map(|r| r.0).collect();
    assert_eq!(lines, [19, 36, 48, 50], "{rejected:?}");
    assert!(rejected[1].1.starts_with("COPY public.station_place"));
    for line in lines {
        assert!(
            stderr.contains(&format!("line {line}: ")) && stderr.contains("rejected by the server"),
            "{stderr}"
        );
    }
    // psql, going on past errors as it does by default, holds the same
    // tables with the same rows, and rejects as many statements.
    let (published, errors) = psql_load_with(&pg_url, dump, false, |db, stderr| {
        (pg_tables(db, "public"), stderr.matches("ERROR:").count())
    });
    assert_eq!(errors, 4, "psql's errors");
    assert_eq!(published.len(), 2, "{published:?}");
    assert_eq!(pg_tables(&pg_url, &ns), published);
    // The keys after the rejected statements were made.
    let keys = admin::texts(
        &pg_url,
        &format!(
            "SELECT c.contype::text || ':' || t.relname::text FROM pg_constraint c \
             JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace \
             WHERE n.nspname = '{ns}' AND t.relname <> '__sqlwitness' ORDER BY 1"
        ),
    );
    assert_eq!(keys, ["f:reading", "p:station"]);
    // Every other engine holds the two tables.
    let answers = answers_everywhere(
        (pg, &pg_url),
        bench,
        "weather",
        "SELECT s.name, sum(r.rain) FROM station s JOIN reading r ON r.station_id = s.id \
         GROUP BY s.name ORDER BY s.name",
        &mut copies,
    );
    for (engine, rows, agrees) in answers {
        assert_eq!(rows.as_array().map(Vec::len), Some(3), "{engine}: {rows}");
        assert!(agrees, "{engine}: {rows}");
    }
}

/// A sample that makes a login of its own for its exercises (as the
/// pgexercises sample's `clubdata.sql`: `CREATE USER`, `ALTER USER … SET`,
/// `GRANT`s to it) loads whole: the login is never created, its statements
/// are skipped and listed, and the tables hold what psql loads from the
/// same file without the statements that reach outside its database.
#[test]
fn a_postgres_samples_own_login_is_skipped_and_its_tables_load() {
    let servers = sqlwitness_testkit::servers();
    let Some((pg, pg_url)) = postgres(&servers) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    let mut copies = Copies::new("swt_ownlogin");
    let ns = copies.add(pg, &pg_url, "exercises");
    let dump = "own_login_postgres.sql";
    let report = import(pg, &pg_url, dump, bench, "exercises", &copies);
    let skipped = report_notes(&report, "skipped", "note");
    for line in [5, 6] {
        assert!(
            skipped
                .iter()
                .any(|(l, note)| *l == line && note.contains("not created")),
            "line {line}: {skipped:?}"
        );
    }
    let roles = admin::texts(
        &pg_url,
        "SELECT rolname::text FROM pg_roles WHERE rolname = 'swt_sample_exercises'",
    );
    assert!(roles.is_empty(), "{roles:?}");
    // psql's load of the same file without what reaches outside the
    // database it loads into (the database, the login, its grants).
    let local = bench.join("published.sql");
    let text = std::fs::read_to_string(fixture(dump)).unwrap();
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| {
            ![
                "CREATE DATABASE",
                "CREATE USER",
                "ALTER USER",
                "GRANT",
                "\\c",
                "ALTER SCHEMA",
            ]
            .iter()
            .any(|p| l.starts_with(p))
        })
        .collect();
    std::fs::write(&local, kept.join("\n")).unwrap();
    let published = psql_load_file(&pg_url, &local, true, |db, _| pg_tables(db, "cd"));
    assert_eq!(published.len(), 2, "{published:?}");
    assert_eq!(pg_tables(&pg_url, &ns), published);
    let gold = "SELECT f.name, sum(b.slots) FROM facilities f JOIN bookings b \
                ON b.facid = f.facid GROUP BY f.name ORDER BY f.name";
    let answers = answers_everywhere((pg, &pg_url), bench, "exercises", gold, &mut copies);
    for (engine, rows, agrees) in answers {
        assert_eq!(
            rows,
            serde_json::json!([
                ["Badminton Court", "4"],
                ["Tennis Court 1", "4"],
                ["Tennis Court 2", "2"]
            ]),
            "{engine}"
        );
        assert!(agrees, "{engine}");
    }
}

#[test]
fn a_latin1_postgres_dump_reaches_every_engine_as_psql_loads_it() {
    let servers = sqlwitness_testkit::servers();
    let Some((pg, pg_url)) = postgres(&servers) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    let mut copies = Copies::new("swt_latin1");
    let ns = copies.add(pg, &pg_url, "world");
    let report = import(pg, &pg_url, "latin1_postgres.sql", bench, "world", &copies);
    assert!(
        report["skipped"].to_string().contains("LATIN1"),
        "{}",
        report["skipped"]
    );
    // Table for table, the copy with the dump's own types holds what psql's
    // load holds (its bytes read as LATIN1, stored as UTF-8).
    let published = psql_load(&pg_url, "latin1_postgres.sql", |db| pg_tables(db, "public"));
    assert_eq!(published.len(), 3, "{published:?}");
    assert_eq!(pg_tables(&pg_url, &ns), published);
    assert!(
        published[0].1.iter().any(|r| r.contains("Curaçao")),
        "{published:?}"
    );
    // The SQLite file and every other engine answer with the same text.
    let file = rusqlite::Connection::open(bench.join("database/world/world.sqlite")).unwrap();
    let names: Vec<String> = file
        .prepare("SELECT name FROM city WHERE id IN (20, 33, 206, 3068) ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        names,
        ["´s-Hertogenbosch", "Willemstad", "São Paulo", "Zürich"]
    );
    let expected = serde_json::json!([
        ["´s-Hertogenbosch", "Noord-Brabant"],
        ["Willemstad", "Curaçao"],
        ["São Paulo", "São Paulo"],
        ["Zürich", "Zürich"]
    ]);
    let gold = "SELECT c.name, c.district FROM city c WHERE c.id IN (20, 33, 206, 3068) \
                ORDER BY c.id";
    let answers = answers_everywhere((pg, &pg_url), bench, "world", gold, &mut copies);
    assert_eq!(answers.len(), 2 + targets(pg, bench).len());
    for (engine, rows, agrees) in answers {
        assert_eq!(rows, expected, "{engine}");
        assert!(agrees, "{engine}");
    }
}

/// Each table of the Workbench shop with its rows as text, in key order.
fn wbshop_rows(url: &str, db: &str) -> Vec<Vec<String>> {
    [
        "CONCAT_WS('|', id, company, city, IFNULL(notes, 'NULL')) FROM `{db}`.`customers` ORDER BY id",
        "CONCAT_WS('|', id, IFNULL(customer_id, 'NULL'), IFNULL(order_date, 'NULL'), shipping_fee, \
         paid) FROM `{db}`.`orders` ORDER BY id",
        "CONCAT_WS('|', string_id, string_data) FROM `{db}`.`strings` ORDER BY string_id",
    ]
    .iter()
    .map(|q| admin::texts(url, &format!("SELECT {}", q.replace("{db}", db))))
    .collect()
}

#[test]
fn a_mysql_workbench_script_naming_its_own_database_loads_into_the_namespace() {
    if !client("mysql") {
        return;
    }
    let dump = std::fs::read_to_string(fixture("workbench_mysql.sql")).unwrap();
    let ran = sqlwitness_testkit::for_each_server(Some(Adapter::Mysql), |kind, url| {
        let dir = tempfile::tempdir().unwrap();
        let bench = dir.path();
        let mut copies = Copies::new("swt_wb");
        let ns = copies.add(kind, url, "wbshop");
        let report = import(kind, url, "workbench_mysql.sql", bench, "wbshop", &copies);
        assert!(
            report["rewritten"].to_string().contains("left out"),
            "{kind}: {}",
            report["rewritten"]
        );
        // The publisher's load: the mysql client as root, the script's
        // database renamed to one of the test's own.
        let db = sqlwitness_testkit::unique_name("swt_pubwb");
        let loaded = mysql_client(url, &dump.replace("`wbshop`", &format!("`{db}`")), None);
        let published = loaded.status.success().then(|| wbshop_rows(url, &db));
        admin::exec(url, &format!("DROP DATABASE IF EXISTS `{db}`"));
        let published = published.unwrap_or_else(|| panic!("{kind}: mysql: {loaded:?}"));
        assert_eq!(published[1].len(), 3, "{kind}: {published:?}");
        assert_eq!(wbshop_rows(url, &ns), published, "{kind}");
        // The foreign key is the copy's, pointing into the copy.
        let keys = admin::count(
            url,
            &format!(
                "SELECT count(*) FROM information_schema.REFERENTIAL_CONSTRAINTS \
                 WHERE CONSTRAINT_SCHEMA = '{ns}' AND REFERENCED_TABLE_NAME = 'customers'"
            ),
        );
        assert_eq!(keys, 1, "{kind}");
        // The SQLite file and every other engine answer as the source
        // (numbers compared as numbers: `200.0000` is SQLite's `200`), the
        // latin1 table's text as written (a bulk load into latin1 columns
        // converts, as an INSERT does).
        let gold = "SELECT o.id, o.customer_id, o.order_date, o.shipping_fee, o.paid, \
                    s.string_data FROM orders o LEFT JOIN strings s ON s.string_id = o.id - 29 \
                    ORDER BY o.id";
        let answers = answers_everywhere((kind, url), bench, "wbshop", gold, &mut copies);
        assert_eq!(answers.len(), 2 + targets(kind, bench).len());
        for (engine, rows, agrees) in answers {
            assert_eq!(
                rows.as_array().map(Vec::len),
                Some(3),
                "{kind}: {engine}: {rows}"
            );
            assert!(agrees, "{kind}: {engine} against {kind}: {rows}");
            assert!(
                rows.to_string().contains("Luleå, Köln"),
                "{kind}: {engine}: {rows}"
            );
        }
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// Foreign keys from a `smallint` to an `integer` (as Pagila's) reach MySQL
/// and MariaDB declared — the narrower column held in the wider type, the
/// change named — and a timestamp's microseconds reach them too
/// (`datetime(6)`); every engine answers as the source.
#[test]
fn keys_across_integer_widths_and_microseconds_reach_every_engine() {
    let gold = "SELECT p.payment_id, p.paid_at, c.name, s.name FROM payment p \
                JOIN customer c ON c.customer_id = p.customer_id \
                JOIN store s ON s.store_id = c.store_id ORDER BY p.payment_id";
    let Some((dir, copies)) = postgres_fixture_everywhere(
        "smallint_keys_postgres.sql",
        "swt_keys",
        "shop",
        gold,
        "21:40:19.996577",
    ) else {
        return;
    };
    let bench = dir.path();
    let servers = sqlwitness_testkit::servers();
    for (kind, url) in servers
        .iter()
        .filter(|(k, _)| sqlwitness_dialect::shipped(*k).adapter == Adapter::Mysql)
    {
        let ns = format!("{}shop", copies.prefix);
        let keys = admin::count(
            url,
            &format!(
                "SELECT count(*) FROM information_schema.REFERENTIAL_CONSTRAINTS \
                 WHERE CONSTRAINT_SCHEMA = '{ns}'"
            ),
        );
        assert_eq!(keys, 2, "{kind}: both foreign keys declared");
        let log = json(&bench.join(format!("logs_{kind}/{kind}/shop.json")));
        let changed = log["column_types"]["changed"].to_string();
        assert!(
            changed.contains("payment.customer_id: smallint held as int"),
            "{kind}: {changed}"
        );
    }
}

/// A partitioned table (as Pagila's payments): the parent holds every row
/// and each partition is a table of its own with its rows, on the SQLite
/// file, the copy with the dump's own types and every other engine; a
/// materialized view the dump refreshed is the table of rows it stores;
/// `character(n)` values lose the pad PostgreSQL ignores. Every engine
/// answers as psql's load.
#[test]
fn partitions_and_a_refreshed_materialized_view_are_tables_everywhere() {
    let servers = sqlwitness_testkit::servers();
    let Some((pg, pg_url)) = postgres(&servers) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    let mut copies = Copies::new("swt_part");
    copies.add(pg, &pg_url, "shop");
    let report = import(
        pg,
        &pg_url,
        "partitions_postgres.sql",
        bench,
        "shop",
        &copies,
    );
    let tables: Vec<(String, u64)> = report["databases"][0]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["table"].as_str().unwrap().to_string(),
                t["rows"].as_u64().unwrap(),
            )
        })
        .collect();
    let expected = [
        ("customer", 2),
        ("paid_by_customer", 2),
        ("payment", 5),
        ("payment_p2022_01", 2),
        ("payment_p2022_02", 3),
    ];
    let expected: Vec<(String, u64)> = expected.iter().map(|(t, n)| (t.to_string(), *n)).collect();
    assert_eq!(tables, expected, "{report}");
    let published = psql_load(&pg_url, "partitions_postgres.sql", |db| {
        pg_tables(db, "public")
    });
    let ns = format!("{}shop", copies.prefix);
    let copied: Vec<(String, Vec<String>)> = pg_tables(&pg_url, &ns);
    // psql's load lists the materialized view apart from the tables.
    assert_eq!(
        copied
            .iter()
            .filter(|(t, _)| t != "paid_by_customer")
            .cloned()
            .collect::<Vec<_>>(),
        published
    );
    // `character(12)` names compare, measure and read without their pad.
    let gold = "SELECT (SELECT count(*) FROM payment_p2022_02), \
                (SELECT sum(amount) FROM payment), \
                (SELECT max(total) FROM paid_by_customer), \
                (SELECT count(*) FROM customer WHERE name = 'Mary'), \
                (SELECT max(length(name)) FROM customer), \
                (SELECT min(name) FROM customer)";
    let answers = answers_everywhere((pg, &pg_url), bench, "shop", gold, &mut copies);
    assert_eq!(answers.len(), 2 + targets(pg, bench).len());
    for (engine, rows, agrees) in answers {
        assert!(agrees, "{engine}: {rows}");
        assert!(rows.to_string().contains("24.95"), "{engine}: {rows}");
        assert!(
            rows.to_string().contains(r#""1","8","Mary""#),
            "{engine}: {rows}"
        );
    }
}

/// A dump that creates the extensions it uses (`CREATE EXTENSION citext`,
/// `"uuid-ossp"` for a default) and a composite type: the loader, no
/// superuser, creates the extensions the server trusts in the load's own
/// database, so every table loads as psql loads it; on the copy with the
/// dump's own types a column of an extension's or the dump's type is held
/// as its text and said so, and its table reaches every engine.
#[test]
fn a_dump_using_trusted_extensions_loads_whole_and_reaches_every_engine() {
    let servers = sqlwitness_testkit::servers();
    let Some((pg, pg_url)) = postgres(&servers) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    let mut copies = Copies::new("swt_ext");
    copies.add(pg, &pg_url, "club");
    let report = import(
        pg,
        &pg_url,
        "extensions_postgres.sql",
        bench,
        "club",
        &copies,
    );
    let db = &report["databases"][0];
    let rows: Vec<(String, u64)> = db["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["table"].as_str().unwrap().into(),
                t["rows"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [("member".to_string(), 2), ("visit".to_string(), 3)],
        "{report}"
    );
    let copy = &db["source_copy"];
    assert_eq!(copy["faithful"], true, "{copy}");
    let notes = copy["tables"][0]["notes"].to_string();
    assert!(
        notes.contains("public.citext, defined by the extension citext, is held as its text"),
        "{notes}"
    );
    assert!(
        notes.contains("public.spot, defined by the dump"),
        "{notes}"
    );
    let not_created = report["not_created"].to_string();
    assert!(not_created.contains("extension citext"), "{not_created}");
    // Objects of an extension are the extension's: not listed one by one.
    assert!(!not_created.contains("cast ("), "{not_created}");
    let published = psql_load(&pg_url, "extensions_postgres.sql", |db| {
        admin::texts(
            db,
            "SELECT format('%s %s %s', id, email, place) FROM public.member ORDER BY id",
        )
    });
    let ns = format!("{}club", copies.prefix);
    let copied = admin::texts(
        &pg_url,
        &format!("SELECT format('%s %s %s', id, email, place) FROM \"{ns}\".member ORDER BY id"),
    );
    assert_eq!(copied, published);
    let gold = "SELECT count(*), sum(n), min(place) FROM visit JOIN member \
                ON member.id = visit.member_id WHERE email = 'Ann@Example.org'";
    let answers = answers_everywhere((pg, &pg_url), bench, "club", gold, &mut copies);
    assert_eq!(answers.len(), 2 + targets(pg, bench).len());
    for (engine, rows, agrees) in answers {
        assert!(agrees, "{engine}: {rows}");
        assert!(
            rows.to_string().contains(r#""2","7","(1,2)""#),
            "{engine}: {rows}"
        );
    }
}

/// A mysqldump whose own `SQL_MODE` lets it keep dates no calendar holds
/// (`0000-00-00`, `2020-00-15`): the copy with the dump's own types is
/// made (the rows copied under the dump's leniency, not the server's
/// strict default), the reader shows those dates as MySQL does (the driver
/// alone reads a zero date as NULL), every engine answers as MySQL, and
/// the family's other server keeps them as dates.
#[test]
fn zero_dates_of_a_mysql_dump_reach_every_engine_as_mysql_shows_them() {
    let ran = sqlwitness_testkit::for_each_server(Some(Adapter::Mysql), |kind, url| {
        let dir = tempfile::tempdir().unwrap();
        let bench = dir.path();
        let mut copies = Copies::new("swt_zero");
        copies.add(kind, url, "visits");
        let report = import(kind, url, "zero_dates_mysql.sql", bench, "visits", &copies);
        let copy = &report["databases"][0]["source_copy"];
        assert_eq!(copy["faithful"], true, "{kind}: {copy}");
        let gold = "SELECT id, day, seen, approx FROM visit ORDER BY id";
        let answers = answers_everywhere((kind, url), bench, "visits", gold, &mut copies);
        for (engine, rows, agrees) in answers {
            assert!(agrees, "{kind} → {engine}: {rows}");
            let shown = rows.to_string();
            assert!(
                shown.contains(r#"["1","0000-00-00","0000-00-00 00:00:00","2020-00-15"]"#),
                "{kind} → {engine}: {shown}"
            );
        }
        // The other server of the family holds those dates as dates, typed
        // from the source's model: compared as dates, not as their text
        // (`2020-02-00` is after January as a date, before `2020-1-1` as text).
        let sibling = match kind {
            EngineKind::Mysql => EngineKind::Mariadb,
            _ => EngineKind::Mysql,
        };
        if !targets(kind, bench).iter().any(|(k, _)| *k == sibling) {
            return;
        }
        let log = json(
            &bench
                .join(format!("logs_{sibling}"))
                .join(sibling.as_str())
                .join("visits.json"),
        );
        let typed = &log["column_types"];
        let inferred = typed["kept_inferred"].to_string();
        assert!(!inferred.contains("visit."), "{kind} → {sibling}: {typed}");
        let gold = "SELECT id FROM visit WHERE approx < '2020-1-1' ORDER BY id";
        let answers = answers_everywhere((kind, url), bench, "visits", gold, &mut copies);
        let (_, rows, agrees) = answers
            .iter()
            .find(|(e, ..)| e == sibling.as_str())
            .unwrap();
        assert!(*agrees, "{kind} → {sibling}: {rows}");
        let shown = rows.to_string();
        assert!(
            shown.contains(r#"["1"]"#) && !shown.contains(r#"["2"]"#),
            "{kind} → {sibling}: {shown}"
        );
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// A view PostgreSQL prints with a column list on a table's alias (`JOIN
/// books b(book_id, title, …)`, as Book Town's `recent_shipments`) reaches
/// every engine: a gold that reads it answers on the SQLite file, the
/// source's copy and every migrated copy as on PostgreSQL.
#[test]
fn a_view_with_an_alias_column_list_answers_on_every_engine() {
    let gold = "SELECT who, n FROM renamed ORDER BY who";
    postgres_fixture_everywhere(
        "views_postgres.sql",
        "swt_aliascols",
        "shop",
        gold,
        r#"["Ada","2"]"#,
    );
}

/// `import` of the PostgreSQL fixture `dump` as `db_id` (its copies named
/// with `prefix`), then `gold` answered on the SQLite file, the source's
/// copy and every migrated copy ([`answers_everywhere`]): each agrees with
/// PostgreSQL and its rows show `shown`. The benchmark's folder and the
/// copies, for more checks; `None` without a PostgreSQL server.
fn postgres_fixture_everywhere(
    dump: &str,
    prefix: &str,
    db_id: &str,
    gold: &str,
    shown: &str,
) -> Option<(tempfile::TempDir, Copies)> {
    let servers = sqlwitness_testkit::servers();
    let (pg, pg_url) = postgres(&servers)?;
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    let mut copies = Copies::new(prefix);
    copies.add(pg, &pg_url, db_id);
    import(pg, &pg_url, dump, bench, db_id, &copies);
    let answers = answers_everywhere((pg, &pg_url), bench, db_id, gold, &mut copies);
    // The SQLite file, the source's copy and every migrated copy.
    assert_eq!(answers.len(), 2 + targets(pg, bench).len(), "{answers:?}");
    for (engine, rows, agrees) in answers {
        assert!(agrees, "{engine}: {rows}");
        assert!(rows.to_string().contains(shown), "{engine}: {rows}");
    }
    Some((dir, copies))
}

/// A view that calls a function the dump defines is carried nowhere, even
/// where a built-in of the same name answers with the same rows today
/// (the dump's `now()` is its snapshot's fixed time; the server's is its
/// clock); a view that calls none is carried to the SQLite file and to the
/// copy on PostgreSQL.
#[test]
fn a_view_calling_the_dumps_own_function_is_carried_nowhere() {
    let servers = sqlwitness_testkit::servers();
    let Some((pg, pg_url)) = postgres(&servers) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    let mut copies = Copies::new("swt_ownfn");
    copies.add(pg, &pg_url, "timetable");
    let report = import(
        pg,
        &pg_url,
        "snapshot_clock_postgres.sql",
        bench,
        "timetable",
        &copies,
    );
    let db = &report["databases"][0];
    for (place, views) in [
        ("SQLite file", &db["views"]),
        ("copy on PostgreSQL", &db["source_copy"]["views"]),
    ] {
        let view = |name: &str| {
            views
                .as_array()
                .unwrap()
                .iter()
                .find(|v| v["view"] == name)
                .unwrap_or_else(|| panic!("{place}: no view {name}: {views}"))
                .clone()
        };
        assert_eq!(view("arrived")["carried"], true, "{place}: {views}");
        for (name, function) in [("past_flights", "now"), ("labelled", "label")] {
            let v = view(name);
            assert_eq!(v["carried"], false, "{place}: {v}");
            let note = v["note"].as_str().unwrap_or_default();
            assert!(
                note.contains(&format!("calls `{function}`, a function the dump defines")),
                "{place}: {note}"
            );
        }
    }
}
