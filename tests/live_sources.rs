//! Benchmarks whose databases live on a server (`sqlwitness import
//! --source ENGINE=URL`, or a `live` entry of a benchmark's `dumps.json`):
//! the tables are read over the URL's login in a read-only session, written
//! as verified SQLite files and copied with their own types on the run's
//! server — and the live database is left exactly as it was.

#[path = "common/admin.rs"]
mod admin;

use std::path::Path;
use std::process::Command;

use sqlwitness_core::EngineKind;
use sqlwitness_dialect::Adapter;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sqlwitness"))
}

fn adapter(kind: EngineKind) -> Adapter {
    sqlwitness_dialect::shipped(kind).adapter
}

/// `url` with its database (the path) replaced by `database`, and `user`
/// (with `password`) as its login when given.
fn with_database(url: &str, database: &str, login: Option<(&str, &str)>) -> String {
    let (scheme, rest) = url.split_once("://").unwrap();
    let rest = rest.split(['?']).next().unwrap();
    let host = rest.split('/').next().unwrap();
    let host = host.rsplit('@').next().unwrap();
    match login {
        Some((user, password)) => format!("{scheme}://{user}:{password}@{host}/{database}"),
        None => {
            let auth = rest.split('/').next().unwrap();
            let auth = auth
                .rsplit_once('@')
                .map(|(a, _)| format!("{a}@"))
                .unwrap_or_default();
            format!("{scheme}://{auth}{host}/{database}")
        }
    }
}

/// Creates the live database `name` with a shop (an enum, a decimal, a
/// foreign key, a view) and a login that may only read it; the source URL.
/// PostgreSQL: the shop is schema `app`, beside a schema `other` and a
/// namespace holding sqlwitness's stamp table, which is never read.
fn create_live(kind: EngineKind, admin_url: &str, name: &str) -> String {
    let reader = format!("{name}_r");
    match adapter(kind) {
        Adapter::Postgres => {
            admin::exec(admin_url, &format!("CREATE DATABASE {name}"));
            let inside = with_database(admin_url, name, None);
            admin::exec(
                &inside,
                &format!(
                    "CREATE SCHEMA app; CREATE SCHEMA other; CREATE SCHEMA copied;
                     CREATE TYPE app.mood AS ENUM ('sad', 'ok', 'happy');
                     CREATE TABLE app.customer (id int PRIMARY KEY, name varchar(40) NOT NULL,
                       mood app.mood, balance numeric(10,2));
                     CREATE TABLE app.orders (id int PRIMARY KEY,
                       customer_id int REFERENCES app.customer (id), placed date, total real);
                     INSERT INTO app.customer VALUES (1, 'Ann', 'happy', 10.50), (2, 'Bo', NULL, 0.99),
                       (3, 'Cy', 'sad', NULL);
                     INSERT INTO app.orders VALUES (1, 1, '2024-01-02', 3.5), (2, 1, '2024-02-03', 4.25),
                       (3, 2, NULL, NULL);
                     CREATE VIEW app.spent AS SELECT c.name, sum(o.total) AS total
                       FROM app.customer c JOIN app.orders o ON o.customer_id = c.id GROUP BY c.name;
                     CREATE TABLE other.stray (x int);
                     CREATE TABLE copied.\"__sqlwitness\" (stamp text);
                     CREATE TABLE copied.not_read (y int);
                     CREATE ROLE {reader} LOGIN PASSWORD 'pw';
                     GRANT USAGE ON SCHEMA app, other, copied TO {reader};
                     GRANT SELECT ON ALL TABLES IN SCHEMA app, other, copied TO {reader};"
                ),
            );
        }
        _ => {
            admin::exec(
                admin_url,
                &format!(
                    "CREATE DATABASE {name};
                     CREATE TABLE {name}.customer (id int PRIMARY KEY, name varchar(40) NOT NULL,
                       mood enum('sad', 'ok', 'happy'), balance decimal(10,2),
                       tags set('a', 'b')) ENGINE=InnoDB;
                     CREATE TABLE {name}.orders (id int PRIMARY KEY, customer_id int,
                       placed date, total float,
                       FOREIGN KEY (customer_id) REFERENCES {name}.customer (id)) ENGINE=InnoDB;
                     INSERT INTO {name}.customer VALUES (1, 'Ann', 'happy', 10.50, 'a,b'),
                       (2, 'Bo', NULL, 0.99, ''), (3, 'Cy', 'sad', NULL, NULL);
                     INSERT INTO {name}.orders VALUES (1, 1, '2024-01-02', 3.5), (2, 1, '2024-02-03', 4.25),
                       (3, 2, NULL, NULL);
                     CREATE VIEW {name}.spent AS SELECT c.name, sum(o.total) AS total
                       FROM {name}.customer c JOIN {name}.orders o ON o.customer_id = c.id GROUP BY c.name;
                     CREATE USER '{reader}'@'%' IDENTIFIED BY 'pw';
                     CREATE USER '{reader}'@'localhost' IDENTIFIED BY 'pw';
                     GRANT SELECT, SHOW VIEW ON {name}.* TO '{reader}'@'%';
                     GRANT SELECT, SHOW VIEW ON {name}.* TO '{reader}'@'localhost';"
                ),
            );
        }
    }
    with_database(admin_url, name, Some((&reader, "pw")))
}

/// What the live database holds, as one number that changes with any
/// object or row added or removed.
fn state(kind: EngineKind, admin_url: &str, name: &str) -> i64 {
    match adapter(kind) {
        Adapter::Postgres => admin::count(
            &with_database(admin_url, name, None),
            "SELECT (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                     WHERE n.nspname IN ('app', 'other', 'copied', 'public')) * 1000000
                  + (SELECT count(*) FROM pg_type WHERE typnamespace = 'app'::regnamespace) * 10000
                  + (SELECT count(*) FROM app.customer) * 100 + (SELECT count(*) FROM app.orders)",
        ),
        _ => admin::count(
            admin_url,
            &format!(
                "SELECT (SELECT count(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = '{name}') * 10000
                      + (SELECT count(*) FROM {name}.customer) * 100 + (SELECT count(*) FROM {name}.orders)"
            ),
        ),
    }
}

fn drop_live(kind: EngineKind, admin_url: &str, name: &str) {
    let reader = format!("{name}_r");
    match adapter(kind) {
        Adapter::Postgres => {
            admin::exec(
                admin_url,
                &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
            );
            admin::exec(admin_url, &format!("DROP ROLE IF EXISTS {reader}"));
        }
        _ => admin::exec(
            admin_url,
            &format!(
                "DROP DATABASE IF EXISTS {name}; DROP USER IF EXISTS '{reader}'@'%';
                 DROP USER IF EXISTS '{reader}'@'localhost'"
            ),
        ),
    }
}

/// Runs `sqlwitness import --source` with the copies under `prefix`; the
/// exit code and stderr.
fn import(
    kind: EngineKind,
    admin_url: &str,
    source: &str,
    out: &Path,
    prefix: &str,
    extra: &[&str],
) -> (i32, String) {
    let o = bin()
        .args([
            "import",
            "--source",
            &format!("{kind}={source}"),
            "--server",
            admin_url,
            "--namespace-prefix",
            prefix,
            "--db-id",
            "shop",
            "--out",
        ])
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    eprintln!("{kind}: {stderr}");
    (o.status.code().unwrap_or(-1), stderr)
}

fn report(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("import-report.json")).unwrap()).unwrap()
}

fn sqlite_tables(path: &Path) -> Vec<(String, i64)> {
    let db =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let names: Vec<String> = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    names
        .into_iter()
        .map(|n| {
            let rows = db
                .query_row(&format!("SELECT count(*) FROM \"{n}\""), [], |r| r.get(0))
                .unwrap();
            (n, rows)
        })
        .collect()
}

#[test]
fn a_live_database_is_imported_over_a_reading_login_and_left_as_it_was() {
    let ran = sqlwitness_testkit::for_each_server(None, |kind, admin_url| {
        let name = sqlwitness_testkit::unique_name("swt_live");
        let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_lc"));
        drop_live(kind, admin_url, &name);
        let source = create_live(kind, admin_url, &name);
        let before = state(kind, admin_url, &name);
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("one");
        let schema: &[&str] = if adapter(kind) == Adapter::Postgres {
            &["--source-schema", "app"]
        } else {
            &[]
        };
        let (code, stderr) = import(kind, admin_url, &source, &out, &prefix, schema);
        let one = report(&out);
        // Every schema but sqlwitness's own namespaces, when none is named.
        let every = (adapter(kind) == Adapter::Postgres).then(|| {
            let out = dir.path().join("every");
            let r = import(kind, admin_url, &source, &out, &prefix, &[]);
            (
                r,
                sqlite_tables(&out.join("shop/shop.sqlite")),
                report(&out),
            )
        });
        let after = state(kind, admin_url, &name);
        let target = sqlwitness_migrate::MigrationTarget::new(kind, admin_url);
        sqlwitness_migrate::drop_namespace(&target, &format!("{prefix}shop")).unwrap();
        // The second import (another benchmark of the same db_id) took a
        // namespace of its own.
        if let Some((_, _, every)) = &every {
            if let Some(ns) = every["databases"][0]["source_copy"]["namespace"].as_str() {
                sqlwitness_migrate::drop_namespace(&target, ns).unwrap();
            }
        }
        drop_live(kind, admin_url, &name);

        assert_eq!(code, 0, "{kind}: {stderr}");
        assert_eq!(before, after, "{kind}: the live database changed");
        assert_eq!(
            sqlite_tables(&out.join("shop/shop.sqlite")),
            [("customer".to_string(), 3), ("orders".to_string(), 3)],
            "{kind}"
        );
        let db = &one["databases"][0];
        assert_eq!(db["complete"], true, "{kind}: {one}");
        assert_eq!(db["source_copy"]["faithful"], true, "{kind}: {one}");
        let types: Vec<&str> = db["source_copy"]["tables"][0]["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["sql_type"].as_str().unwrap())
            .collect();
        assert!(
            types.iter().any(|t| t.contains("10,2"))
                && types
                    .iter()
                    .any(|t| t.contains("mood") || t.starts_with("enum")),
            "{kind}: the copy keeps the source's own types: {types:?}"
        );
        assert!(one["dump"].is_null(), "{one}");
        let shown = one["live_source"].as_str().unwrap();
        assert!(
            !shown.contains(":pw@"),
            "{kind}: the password is shown: {shown}"
        );
        // The view is carried into the SQLite file (its rows are SQLite's
        // too), so it is not listed.
        let views = one["databases"][0]["views"].to_string();
        assert!(
            views.contains(r#""carried":true,"rows":2"#) && views.contains(r#""view":"spent""#),
            "{kind}: the view is carried: {views}"
        );
        let listed = one["not_created"].to_string();
        assert!(!listed.contains("spent"), "{kind}: {listed}");
        if let Some(((code, stderr), tables, every)) = every {
            assert_eq!(code, 0, "{kind}: {stderr}");
            let names: Vec<&str> = tables.iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(names, ["customer", "orders", "stray"], "{kind}: {every}");
        }
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// A live MySQL-family database is copied on its own server: a source URL
/// reaching another server than the administrative login's is refused,
/// and nothing is written.
#[test]
fn a_live_mysql_source_on_another_server_is_refused() {
    let servers = sqlwitness_testkit::servers();
    let family: Vec<&(EngineKind, String)> = servers
        .iter()
        .filter(|(k, _)| adapter(*k) == Adapter::Mysql)
        .collect();
    let [(kind, admin_url), (_, other_url)] = family.as_slice() else {
        assert!(
            !sqlwitness_testkit::required(),
            "MySQL and MariaDB are required"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_lx"));
    let (code, stderr) = import(*kind, admin_url, other_url, &out, &prefix, &[]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("another server"), "{stderr}");
    assert!(!out.join("shop").exists());
}

/// A benchmark naming its live database in `dumps.json` (the URL from an
/// environment variable) is imported by `eval` itself, and its
/// PostgreSQL golds judge on the copy with the database's own types.
#[test]
fn eval_imports_the_live_database_a_benchmark_names() {
    let Some(admin_url) = sqlwitness_testkit::servers()
        .into_iter()
        .find(|(k, _)| *k == EngineKind::Postgres)
        .map(|(_, u)| u)
    else {
        assert!(!sqlwitness_testkit::required(), "PostgreSQL is required");
        return;
    };
    let name = sqlwitness_testkit::unique_name("swt_live");
    let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_le"));
    drop_live(EngineKind::Postgres, &admin_url, &name);
    let source = create_live(EngineKind::Postgres, &admin_url, &name);
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    std::fs::write(
        bench.join("dumps.json"),
        r#"[{"engine": "postgres", "live": {"url_env": "SQLWITNESS_LIVE_SHOP", "schema": "app"}, "db_id": "shop"}]"#,
    )
    .unwrap();
    std::fs::write(
        bench.join("dev.jsonl"),
        r#"{"db_id": "shop", "gold": "SELECT sum(balance) FROM customer"}"#,
    )
    .unwrap();
    let gold = bench.join("gold_postgres.sql");
    std::fs::write(&gold, "SELECT sum(balance) FROM customer\n").unwrap();
    let o = bin()
        .env("SQLWITNESS_LIVE_SHOP", &source)
        .args(["eval", "--bench"])
        .arg(bench)
        .args([
            "--engines",
            "sqlite,postgres",
            "--reference",
            "postgres",
            "--gold",
            &format!("postgres={}", gold.display()),
            "--server",
            &format!("postgres={admin_url}"),
            "--namespace-prefix",
            &prefix,
            "-q",
            "--out",
        ])
        .arg(bench.join("out"))
        .output()
        .unwrap();
    let target = sqlwitness_migrate::MigrationTarget::new(EngineKind::Postgres, &admin_url);
    sqlwitness_migrate::drop_namespace(&target, &format!("{prefix}shop")).unwrap();
    drop_live(EngineKind::Postgres, &admin_url, &name);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(bench.join("out/report.json")).unwrap()).unwrap();
    let q = &report["questions"][0]["engines"];
    assert_eq!(q["postgres"]["verdict"], "match", "{q}");
    assert_eq!(q["sqlite"]["reference"]["verdict"], "match", "{q}");
}
