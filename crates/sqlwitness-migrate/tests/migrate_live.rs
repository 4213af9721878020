//! Live migrations to every configured server engine
//! (`SQLWITNESS_<ENGINE>_URL`; skipped loudly when missing unless
//! `SQLWITNESS_REQUIRE_ENGINES=1`). Every test uses its own namespace and
//! drops it at the end.

#[path = "../../sqlwitness-bench/tests/common/mod.rs"]
mod common;
mod targets;

use sqlwitness_dialect::EngineFacts;
use std::path::Path;

use sqlwitness_core::Database;
use sqlwitness_migrate::{
    drop_namespace, migrate_database, MigrateOptions, MigrationReport, MigrationStatus,
    MigrationTarget,
};

fn targets() -> Vec<MigrationTarget> {
    targets::targets()
}

/// Drops the namespace even when an assertion fails.
struct Cleanup<'a>(&'a MigrationTarget, String);
impl Drop for Cleanup<'_> {
    fn drop(&mut self) {
        if let Err(e) = drop_namespace(self.0, &self.1) {
            eprintln!("could not drop {}: {e}", self.1);
        }
    }
}

fn assert_verified(r: &MigrationReport) {
    for t in &r.tables {
        assert!(
            t.verified,
            "{} {}: table {} not verified: rows {} / {:?}, checksum {} / {:?}, error {:?}",
            r.engine,
            r.db_id,
            t.name,
            t.rows_source,
            t.rows_target,
            t.checksum_source,
            t.checksum_target,
            t.error
        );
    }
}

fn migrate_twice(target: &MigrationTarget, sqlite: &Path, tag: &str) -> MigrationReport {
    let ns = common::unique_namespace(tag);
    let _cleanup = Cleanup(target, ns.clone());
    let db = Database {
        db_id: tag.to_string(),
        sqlite_path: sqlite.to_path_buf(),
        namespace: ns.clone(),
    };
    let opts = MigrateOptions::default();
    let first = migrate_database(&db, target, &opts).unwrap();
    assert_eq!(first.status, MigrationStatus::Migrated);
    assert_eq!(first.namespace, ns);
    assert_verified(&first);
    let second = migrate_database(&db, target, &opts).unwrap();
    assert_eq!(second.status, MigrationStatus::UpToDate, "{second:#?}");
    assert_verified(&second);
    let forced = migrate_database(
        &db,
        target,
        &MigrateOptions {
            force: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(forced.status, MigrationStatus::Migrated);
    first
}

#[test]
fn fixture_migrates_and_verifies() {
    for target in targets() {
        let dir = tempfile::tempdir().unwrap();
        let path = common::make_fixture(dir.path());
        let before = std::fs::read(&path).unwrap();
        let r = migrate_twice(&target, &path, "fixture");
        let t = |name: &str| r.tables.iter().find(|t| t.name == name).unwrap();
        assert!(
            t("Parent Table").primary_key.applied,
            "{:?}",
            t("Parent Table").primary_key
        );
        assert!(!t("Dup Key").primary_key.applied);
        assert!(!t("mixedCase Things").foreign_keys[0].applied);
        let child = &t("Child").foreign_keys[0];
        assert!(child.applied, "{child:?}");
        assert_eq!(t("mixedCase Things").coercions.count, 5);
        if sqlwitness_dialect::shipped(target.engine).adapter == sqlwitness_dialect::Adapter::Mysql
        {
            assert!(r.collation.is_some());
        } else {
            assert!(
                r.notes.iter().any(|n| n.contains("sqlwitness_reader")),
                "{:?}",
                r.notes
            );
        }
        assert_eq!(
            std::fs::read(&path).unwrap(),
            before,
            "the SQLite file is untouched"
        );
    }
}

#[test]
fn concert_singer_migrates_and_verifies() {
    let Some(spider) = common::spider() else {
        return;
    };
    let real = spider.join("database/concert_singer/concert_singer.sqlite");
    for target in targets() {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("concert_singer.sqlite");
        std::fs::copy(&real, &copy).unwrap();
        let r = migrate_twice(&target, &copy, "concert_singer");
        assert_eq!(r.tables.len(), 4);
        let singer = r.tables.iter().find(|t| t.name == "singer").unwrap();
        assert_eq!(singer.rows_source, 6);
        assert!(singer.primary_key.applied);
    }
}

/// A URL that reaches another engine of the same adapter (MariaDB given as
/// `mysql`, or the reverse) migrates nothing: the server's version says
/// which engine it is.
#[test]
fn a_server_of_another_engine_is_not_migrated_to() {
    let Some(spider) = common::spider() else {
        return;
    };
    let db = Database::new(
        "concert_singer",
        spider.join("database/concert_singer/concert_singer.sqlite"),
    );
    for target in targets() {
        let adapter = sqlwitness_dialect::shipped(target.engine).adapter;
        let others = sqlwitness_core::EngineKind::all().into_iter().filter(|k| {
            *k != target.engine
                && k.is_server()
                && sqlwitness_dialect::shipped(*k).adapter == adapter
        });
        for other in others {
            let mut db = db.clone();
            db.namespace = common::unique_namespace("wrong");
            let wrong = MigrationTarget::new(other, target.url.clone());
            let err = migrate_database(&db, &wrong, &MigrateOptions::default()).unwrap_err();
            assert!(
                err.to_string().contains("is not"),
                "{other} on {}: {err}",
                target.engine
            );
        }
    }
}

/// A primary key the data satisfies on SQLite (`'abc'` and `'ABC'` differ)
/// but the server's collation does not (MySQL's and MariaDB's defaults
/// compare them equal): MySQL declares keys in `CREATE TABLE`, so the load
/// is refused there; the table is recreated without keys and loaded (it
/// verifies), the key is reported as refused by the server, and the child's
/// foreign key to it is not claimed. On PostgreSQL the key holds.
#[test]
fn a_key_the_server_collation_breaks_is_reported_and_the_rows_still_load() {
    for target in targets() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ci.sqlite");
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(
            "CREATE TABLE code (code TEXT PRIMARY KEY, label TEXT);
             INSERT INTO code VALUES ('abc', 'lower'), ('ABC', 'upper'), ('x', 'other');
             CREATE TABLE item (id INTEGER PRIMARY KEY, code TEXT REFERENCES code(code));
             INSERT INTO item VALUES (1, 'abc'), (2, 'ABC'), (3, 'x');",
        )
        .unwrap();
        drop(c);
        let ns = common::unique_namespace("ci");
        let _cleanup = Cleanup(&target, ns.clone());
        let db = Database {
            db_id: "ci".into(),
            sqlite_path: path,
            namespace: ns,
        };
        let r = migrate_database(&db, &target, &MigrateOptions::default()).unwrap();
        assert_verified(&r);
        let t = |name: &str| r.tables.iter().find(|t| t.name == name).unwrap();
        let (code, item) = (t("code"), t("item"));
        assert!(item.primary_key.applied, "{:?}", item.primary_key);
        if sqlwitness_dialect::shipped(target.engine).adapter == sqlwitness_dialect::Adapter::Mysql
        {
            assert!(!code.primary_key.applied, "{:?}", code.primary_key);
            assert!(
                code.primary_key.reason.contains("refused"),
                "{:?}",
                code.primary_key
            );
            assert!(!item.foreign_keys[0].applied, "{:?}", item.foreign_keys[0]);
        } else {
            assert!(code.primary_key.applied, "{:?}", code.primary_key);
            assert!(item.foreign_keys[0].applied, "{:?}", item.foreign_keys[0]);
        }
    }
}

/// Two table names (and two column names) that are one name once
/// PostgreSQL cuts names to 63 bytes: the later one is left out, naming the
/// cause, and every other table still verifies. Servers that refuse long
/// names (MySQL: 64 characters) report their own error for that table.
#[test]
fn names_equal_once_cut_to_the_limit_are_named_and_the_rest_verifies() {
    let long = "t".repeat(63);
    for target in targets() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("long.sqlite");
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(&format!(
            "CREATE TABLE {long}_first_table (a INTEGER);
             INSERT INTO {long}_first_table VALUES (1);
             CREATE TABLE {long}_second_table (a INTEGER);
             INSERT INTO {long}_second_table VALUES (2);
             CREATE TABLE cols ({long}_column_one INTEGER, {long}_column_two INTEGER);
             INSERT INTO cols VALUES (1, 2);
             CREATE TABLE plain (a INTEGER);
             INSERT INTO plain VALUES (3);"
        ))
        .unwrap();
        drop(c);
        let ns = common::unique_namespace("long");
        let _cleanup = Cleanup(&target, ns.clone());
        let db = Database {
            db_id: "long".into(),
            sqlite_path: path,
            namespace: ns,
        };
        let r = migrate_database(&db, &target, &MigrateOptions::default()).unwrap();
        let t = |name: &str| r.tables.iter().find(|t| t.name == name).unwrap();
        assert!(t("plain").verified, "{:?}", t("plain"));
        if !sqlwitness_dialect::shipped(target.engine)
            .identifiers
            .truncate
        {
            continue;
        }
        assert!(t(&format!("{long}_first_table")).verified);
        let second = t(&format!("{long}_second_table"));
        assert!(!second.verified);
        let why = second.error.as_deref().unwrap_or_default();
        assert!(why.contains("63-byte limit"), "{why}");
        assert!(why.contains("_first_table"), "{why}");
        let cols = t("cols");
        assert!(!cols.verified);
        assert!(
            cols.error
                .as_deref()
                .unwrap_or_default()
                .contains("column names"),
            "{:?}",
            cols.error
        );
    }
}

/// A Spider/BIRD SQLite file may hold views: each is translated for the
/// server, created after the tables and kept only when its rows there equal
/// SQLite's (a join, a filter, an aggregate, SQLite's `||`); a view the
/// server cannot run (`julianday`, SQLite's own) is dropped and reported
/// with the reason, never left behind. A second run is a lookup that keeps
/// the report of the views.
#[test]
fn sqlite_views_are_carried_to_every_server_and_checked() {
    for target in targets() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shop.sqlite");
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(
            "CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT);
             CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER
               REFERENCES customer (id), total REAL, placed TEXT);
             INSERT INTO customer VALUES (1, 'Ada', 'DE'), (2, 'Bo', 'FR'), (3, 'Cy', NULL);
             INSERT INTO orders VALUES (1, 1, 40.0, '2024-01-02'), (2, 1, 25.5, '2024-02-03'),
               (3, 2, 10.0, '2024-01-05'), (4, 3, 99.0, '2024-03-01');
             CREATE VIEW big_spenders AS SELECT c.name, count(*) AS orders, sum(o.total) AS spent
               FROM customer c JOIN orders o ON o.customer_id = c.id
               WHERE c.country IS NOT NULL GROUP BY c.name HAVING sum(o.total) > 20;
             CREATE VIEW labels AS SELECT name || '/' || id AS label FROM customer;
             CREATE VIEW ages AS SELECT id, julianday('2024-12-31') - julianday(placed) AS days
               FROM orders;",
        )
        .unwrap();
        drop(c);
        let r = migrate_twice(&target, &path, "views");
        let view = |n: &str| r.views.iter().find(|v| v.view == n).unwrap();
        assert!(
            view("big_spenders").carried,
            "{}: {:?}",
            target.engine,
            r.views
        );
        assert_eq!(view("big_spenders").rows, Some(1));
        assert!(view("labels").carried, "{}: {:?}", target.engine, r.views);
        let ages = view("ages");
        assert!(!ages.carried, "{}: {ages:?}", target.engine);
        assert!(ages.note.is_some());
        assert!(
            r.notes
                .iter()
                .any(|n| n.starts_with("view `ages` is not migrated: ")),
            "{}: {:?}",
            target.engine,
            r.notes
        );
        assert!(
            !r.notes.iter().any(|n| n.contains("big_spenders")),
            "{:?}",
            r.notes
        );
    }
}

/// A view's text is benchmark input that reaches the server under the
/// administrative login. SQLite reads `'x\'` as a whole string; MySQL and
/// MariaDB read the backslash as an escape, so the rest of this view would
/// be a second statement dropping another database, and `/*!…*/` would be
/// executed. Each view is held to the guard in the server's own lexical
/// rules (refused on MySQL and MariaDB, a harmless two-string view on
/// PostgreSQL), and the other namespace is untouched on every server.
#[test]
fn a_view_cannot_smuggle_a_statement_to_the_server() {
    for target in targets() {
        let dir = tempfile::tempdir().unwrap();
        let victim = common::unique_namespace("victim");
        let _victim_cleanup = Cleanup(&target, victim.clone());
        let fixture = common::make_fixture(dir.path());
        let db = Database {
            db_id: "victim".to_string(),
            sqlite_path: fixture,
            namespace: victim.clone(),
        };
        let kept = migrate_database(&db, &target, &MigrateOptions::default()).unwrap();
        assert_eq!(kept.status, MigrationStatus::Migrated);

        let path = dir.path().join("hostile.sqlite");
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(&format!(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);
             INSERT INTO t VALUES (1, 'a');
             CREATE VIEW smuggle AS SELECT 'x\\' AS a,
               '; DROP DATABASE `{victim}`; DROP SCHEMA \"{victim}\" CASCADE; -- ' AS b FROM t;
             CREATE VIEW executes AS SELECT id /*!, LOAD_FILE('/etc/hostname') AS f */ FROM t;"
        ))
        .unwrap();
        drop(c);
        let r = migrate_twice(&target, &path, "hostile_views");
        let view = |n: &str| r.views.iter().find(|v| v.view == n).unwrap();
        let mysql_family = sqlwitness_dialect::shipped(target.engine).adapter
            == sqlwitness_dialect::Adapter::Mysql;
        let smuggle = view("smuggle");
        if mysql_family {
            assert!(!smuggle.carried, "{}: {smuggle:?}", target.engine);
            assert!(
                smuggle
                    .note
                    .as_deref()
                    .unwrap_or_default()
                    .starts_with("the guard refuses it"),
                "{}: {smuggle:?}",
                target.engine
            );
        } else {
            assert!(smuggle.carried, "{}: {smuggle:?}", target.engine);
        }
        // The executable comment never reaches a server: the translation
        // leaves comments out, and the guard refuses one that stays.
        let executes = view("executes");
        assert!(
            !executes
                .sql
                .as_deref()
                .unwrap_or_default()
                .contains("LOAD_FILE")
                || !executes.carried,
            "{}: {executes:?}",
            target.engine
        );
        let mut w = sqlwitness_engines::open_migrator(target.engine, &target.url).unwrap();
        let tables = w.tables(&victim).unwrap();
        assert_eq!(
            tables.len(),
            kept.tables.len(),
            "{}: {victim} lost tables: {tables:?}",
            target.engine
        );
    }
}

/// A database past the row count from which tables load over several
/// connections at once: every table arrives whole on DuckDB (whose
/// connections each open their own instance of the file, so it loads over
/// one) and on every configured server (which loads over several).
#[test]
fn a_database_loaded_over_several_connections_arrives_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wide.sqlite");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
         CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id), amount REAL);
         CREATE TABLE small (k TEXT PRIMARY KEY);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60000)
         INSERT INTO parent SELECT i, 'name ' || i FROM n;
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50000)
         INSERT INTO child SELECT i, 1 + i % 60000, i / 8.0 FROM n;
         INSERT INTO small VALUES ('a'), ('b');",
    )
    .unwrap();
    drop(conn);
    let duckdb = tempfile::tempdir().unwrap();
    let mut all = vec![MigrationTarget::new(
        sqlwitness_core::EngineKind::Duckdb,
        format!("duckdb:{}", duckdb.path().display()),
    )];
    all.extend(targets());
    for target in all {
        let ns = common::unique_namespace("wide");
        let _cleanup = Cleanup(&target, ns.clone());
        let db = Database {
            db_id: "wide".to_string(),
            sqlite_path: path.clone(),
            namespace: ns.clone(),
        };
        let opts = MigrateOptions {
            jobs: 2,
            verify: sqlwitness_migrate::Verify::Full,
            ..Default::default()
        };
        let r = migrate_database(&db, &target, &opts).unwrap();
        assert_eq!(r.status, MigrationStatus::Migrated, "{r:#?}");
        assert_verified(&r);
        let mut rows: Vec<(String, Option<u64>)> = r
            .tables
            .iter()
            .map(|t| (t.name.clone(), t.rows_target))
            .collect();
        rows.sort();
        assert_eq!(
            rows,
            [
                ("child".to_string(), Some(50_000)),
                ("parent".to_string(), Some(60_000)),
                ("small".to_string(), Some(2)),
            ],
            "{}",
            target.engine
        );
    }
}

/// A SQLite file whose unique keys a foreign key refers to: one the data
/// keeps once stored on a server, one it breaks (an integer 1 and a text
/// '1', distinct in SQLite, are one text on a server).
fn unique_keys_fixture(path: &Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(
        "CREATE TABLE country (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT);
         INSERT INTO country VALUES (1, 'FR', 'France'), (2, 'DE', 'Germany');
         CREATE TABLE city (id INTEGER PRIMARY KEY, country_code TEXT REFERENCES country(code));
         INSERT INTO city VALUES (1, 'FR'), (2, 'DE'), (3, NULL);
         CREATE TABLE tag (id INTEGER PRIMARY KEY, label, UNIQUE (label));
         INSERT INTO tag VALUES (1, 1), (2, '1'), (3, 'x');
         CREATE TABLE tagged (id INTEGER PRIMARY KEY, label REFERENCES tag(label));
         INSERT INTO tagged VALUES (1, 'x');",
    )
    .unwrap();
}

/// A unique key is carried to every engine when the data keeps it, and a
/// foreign key that refers to it is carried with it (DuckDB declares
/// foreign keys only when it creates a table); one the stored values break
/// is named with the count, and so is the foreign key that needed it.
#[test]
fn unique_keys_are_carried_and_foreign_keys_may_refer_to_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("unique.sqlite");
    unique_keys_fixture(&path);
    let duckdb = tempfile::tempdir().unwrap();
    let mut all = vec![MigrationTarget::new(
        sqlwitness_core::EngineKind::Duckdb,
        format!("duckdb:{}", duckdb.path().display()),
    )];
    all.extend(targets());
    for target in all {
        let ns = common::unique_namespace("uniq");
        let _cleanup = Cleanup(&target, ns.clone());
        let db = Database {
            db_id: "uniq".to_string(),
            sqlite_path: path.clone(),
            namespace: ns.clone(),
        };
        let r = migrate_database(&db, &target, &MigrateOptions::default()).unwrap();
        assert_verified(&r);
        let t = |name: &str| r.tables.iter().find(|t| t.name == name).unwrap();
        let engine = target.engine;
        let country = &t("country").unique_keys;
        assert_eq!(country.len(), 1, "{engine}: {country:?}");
        assert_eq!(country[0].columns, ["code"]);
        assert!(country[0].applied, "{engine}: {country:?}");
        let city = &t("city").foreign_keys[0];
        if engine == sqlwitness_core::EngineKind::Duckdb {
            assert!(
                !city.applied
                    && city
                        .reason
                        .starts_with("duckdb declares foreign keys only when it creates a table"),
                "{city:?}"
            );
        } else {
            assert!(city.applied, "{engine}: {city:?}");
        }
        let tag = &t("tag").unique_keys[0];
        assert!(!tag.applied, "{engine}: {tag:?}");
        assert!(tag.reason.contains("1 duplicate"), "{engine}: {tag:?}");
        let tagged = &t("tagged").foreign_keys[0];
        assert!(!tagged.applied, "{engine}: {tagged:?}");
        assert!(
            tagged.reason.contains("unique key (label) is not carried"),
            "{engine}: {tagged:?}"
        );
    }
}

/// A key on bytes (a binary id, as MySQL's `world_x` keys a table): short
/// values take a sized binary type where a key on a blob needs a prefix
/// length (MySQL, MariaDB), and the key is carried on every engine; one
/// past the size is named.
#[test]
fn a_key_of_bytes_is_carried_on_every_engine() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bytes.sqlite");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE doc (id BLOB PRIMARY KEY, body TEXT);
         INSERT INTO doc VALUES (x'00ff10', 'a'), (x'00ff1000', 'b');
         CREATE TABLE big (id BLOB PRIMARY KEY);",
    )
    .unwrap();
    conn.execute("INSERT INTO big VALUES (?1)", [vec![7u8; 300]])
        .unwrap();
    drop(conn);
    for target in targets() {
        let ns = common::unique_namespace("bytes");
        let _cleanup = Cleanup(&target, ns.clone());
        let db = Database {
            db_id: "bytes".to_string(),
            sqlite_path: path.clone(),
            namespace: ns.clone(),
        };
        let r = migrate_database(&db, &target, &MigrateOptions::default()).unwrap();
        assert_verified(&r);
        let t = |name: &str| r.tables.iter().find(|t| t.name == name).unwrap();
        let engine = target.engine;
        assert!(
            t("doc").primary_key.applied,
            "{engine}: {:?}",
            t("doc").primary_key
        );
        let big = &t("big").primary_key;
        if sqlwitness_dialect::shipped(engine)
            .types
            .key_varchar_max
            .is_some()
        {
            assert!(
                !big.applied && big.reason.contains("300 bytes"),
                "{engine}: {big:?}"
            );
        } else {
            assert!(big.applied, "{engine}: {big:?}");
        }
    }
}
