//! SQLite adapter: typed values, read-only safety, limits, error classes.

use std::path::{Path, PathBuf};
use std::time::Duration;

use sqlwitness_core::{Database, Engine, ErrorClass, QueryLimits, Value};
use sqlwitness_engines::{sqlite_schema_names, SqliteEngine};

fn fixture(dir: &Path) -> PathBuf {
    let path = dir.join("t.sqlite");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE \"Items\" (id INTEGER PRIMARY KEY, \"Name\" VARCHAR(20), price REAL, \
           qty NUMERIC, data BLOB, note TEXT);
         INSERT INTO \"Items\" VALUES (1, 'apple', 1.5, 3, x'00ff', NULL);
         INSERT INTO \"Items\" VALUES (2, 'pear', 2.25, 7, NULL, 'ripe');
         INSERT INTO \"Items\" VALUES (3, 'plum', 0.5, 1, NULL, 'ünïcode');
         CREATE TABLE other (k INTEGER, v TEXT);",
    )
    .unwrap();
    path
}

fn limits() -> QueryLimits {
    QueryLimits {
        timeout: Duration::from_secs(10),
        max_rows: 1000,
        ..QueryLimits::default()
    }
}

fn checksum(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[test]
fn typed_values_and_decl_types() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::new("t", fixture(dir.path()));
    let e = SqliteEngine::new();
    let rs = e
        .execute(
            &db,
            "SELECT id, \"Name\", price, qty, data, note, 1 + 1 FROM \"Items\" ORDER BY id",
            &limits(),
        )
        .unwrap();
    let decl: Vec<Option<&str>> = rs.columns.iter().map(|c| c.decl_type.as_deref()).collect();
    assert_eq!(
        decl,
        [
            Some("INTEGER"),
            Some("VARCHAR(20)"),
            Some("REAL"),
            Some("NUMERIC"),
            Some("BLOB"),
            Some("TEXT"),
            None
        ]
    );
    assert_eq!(rs.columns[1].name, "Name");
    assert_eq!(
        rs.rows[0],
        vec![
            Value::Int(1),
            Value::Text("apple".into()),
            Value::Float(1.5),
            Value::Int(3),
            Value::Bytes(vec![0, 255]),
            Value::Null,
            Value::Int(2)
        ]
    );
    assert_eq!(rs.rows[2][5], Value::Text("ünïcode".into()));
    assert!(e.info().version.starts_with("SQLite 3."));
    // Empty results keep their columns.
    let rs = e.execute(&db, "SELECT k, v FROM other", &limits()).unwrap();
    assert_eq!(rs.columns.len(), 2);
    assert!(rs.rows.is_empty());
}

#[test]
fn nothing_can_be_written_or_attached() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture(dir.path());
    let before = checksum(&path);
    let db = Database::new("t", &path);
    let e = SqliteEngine::new();
    let other = dir.path().join("other.sqlite");
    let attempts = [
        "INSERT INTO other VALUES (1, 'x')".to_string(),
        "UPDATE \"Items\" SET price = 0".to_string(),
        "DELETE FROM \"Items\"".to_string(),
        "DROP TABLE other".to_string(),
        "CREATE TABLE z (a)".to_string(),
        "CREATE TEMP TABLE z (a)".to_string(),
        format!("ATTACH DATABASE '{}' AS o", other.display()),
        "SELECT load_extension('x')".to_string(),
        "PRAGMA query_only = 0".to_string(),
        "PRAGMA writable_schema = 1".to_string(),
        "BEGIN".to_string(),
        "VACUUM".to_string(),
    ];
    for sql in &attempts {
        let err = e.execute(&db, sql, &limits()).unwrap_err();
        assert!(
            matches!(err.class, ErrorClass::Refused | ErrorClass::Other),
            "{sql}: {err}"
        );
    }
    assert!(!other.exists(), "ATTACH created a file");
    let rs = e
        .execute(&db, "SELECT count(*) FROM \"Items\"", &limits())
        .unwrap();
    assert_eq!(rs.rows, vec![vec![Value::Int(3)]]);
    let rs = e
        .execute(&db, "SELECT count(*) FROM other", &limits())
        .unwrap();
    assert_eq!(rs.rows, vec![vec![Value::Int(0)]]);
    assert_eq!(before, checksum(&path), "database file changed");
    // Read-only schema PRAGMAs still work.
    let rs = e
        .execute(&db, "PRAGMA table_info(\"Items\")", &limits())
        .unwrap();
    assert_eq!(rs.rows.len(), 6);
}

#[test]
fn timeout_interrupts_an_endless_query() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::new("t", fixture(dir.path()));
    let e = SqliteEngine::new();
    let lim = QueryLimits {
        timeout: Duration::from_millis(300),
        max_rows: 10,
        ..QueryLimits::default()
    };
    let err = e
        .execute(
            &db,
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
            &lim,
        )
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::Timeout, "{err}");
    // The connection is reusable and the deadline is reset.
    let rs = e.execute(&db, "SELECT 1", &lim).unwrap();
    assert_eq!(rs.rows, vec![vec![Value::Int(1)]]);
}

/// An interrupted run: the statements running stop at their next step (a
/// query with minutes left does not hold the run), and none starts after.
#[test]
fn cancel_running_stops_every_statement_now_and_after() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::new("t", fixture(dir.path()));
    let e = std::sync::Arc::new(SqliteEngine::new());
    let lim = QueryLimits {
        timeout: Duration::from_secs(600),
        max_rows: 10,
        ..QueryLimits::default()
    };
    let endless =
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";
    let running: Vec<_> = (0..2)
        .map(|_| {
            let (e, db, lim) = (e.clone(), db.clone(), lim);
            std::thread::spawn(move || e.execute(&db, endless, &lim))
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    e.cancel_running();
    for r in running {
        let err = r.join().unwrap().unwrap_err();
        assert_eq!(err.class, ErrorClass::Connection, "{err}");
    }
    let err = e.execute(&db, "SELECT 1", &lim).unwrap_err();
    assert!(err.message.contains("interrupted"), "{err}");
    // Another engine is not touched.
    let other = SqliteEngine::new();
    assert!(other.execute(&db, "SELECT 1", &lim).is_ok());
}

#[test]
fn cartesian_explosion_hits_max_rows() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::new("t", fixture(dir.path()));
    let e = SqliteEngine::new();
    let lim = QueryLimits {
        timeout: Duration::from_secs(10),
        max_rows: 20,
        ..QueryLimits::default()
    };
    let err = e
        .execute(
            &db,
            "SELECT * FROM \"Items\" a, \"Items\" b, \"Items\" c",
            &lim,
        )
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::ResourceLimit);
    assert_eq!(err.message, "result exceeds 20 rows");
    // Exactly at the limit is fine.
    let lim = QueryLimits {
        max_rows: 27,
        ..lim
    };
    let rs = e
        .execute(
            &db,
            "SELECT * FROM \"Items\" a, \"Items\" b, \"Items\" c",
            &lim,
        )
        .unwrap();
    assert_eq!(rs.rows.len(), 27);
}

#[test]
fn error_classes() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::new("t", fixture(dir.path()));
    let e = SqliteEngine::new();
    let cases = [
        ("SELECT nope FROM \"Items\"", ErrorClass::UndefinedColumn),
        ("SELECT * FROM nope", ErrorClass::UndefinedTable),
        ("SELECT nope(1)", ErrorClass::UndefinedFunction),
        ("SELEC 1", ErrorClass::Syntax),
        ("SELECT 1 FROM", ErrorClass::Syntax),
    ];
    for (sql, class) in cases {
        let err = e.execute(&db, sql, &limits()).unwrap_err();
        assert_eq!(err.class, class, "{sql}: {err}");
        assert!(err.code.is_some(), "{sql}: {err}");
    }
}

#[test]
fn schema_names_as_declared() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture(dir.path());
    let names = sqlite_schema_names(&path).unwrap();
    assert_eq!(
        names,
        vec![
            (
                "Items".to_string(),
                ["id", "Name", "price", "qty", "data", "note"]
                    .map(String::from)
                    .to_vec()
            ),
            ("other".to_string(), vec!["k".to_string(), "v".to_string()]),
        ]
    );
    assert!(sqlite_schema_names(&dir.path().join("missing.sqlite")).is_err());
}

#[test]
fn real_spider_database_read_only() {
    // A copy of the shipped database: the check writes nothing, and the
    // copy proves it without touching the repository's file.
    let dir = tempfile::tempdir().unwrap();
    let path = &dir.path().join("concert_singer.sqlite");
    std::fs::copy(
        sqlwitness_testkit::example_spider().join("database/concert_singer/concert_singer.sqlite"),
        path,
    )
    .unwrap();
    let before = checksum(path);
    let e = SqliteEngine::new();
    let db = Database::new("concert_singer", path);
    let rs = e
        .execute(&db, "SELECT count(*) FROM singer", &limits())
        .unwrap();
    assert_eq!(rs.rows, vec![vec![Value::Int(6)]]);
    assert!(e.execute(&db, "DELETE FROM singer", &limits()).is_err());
    assert_eq!(before, checksum(path));
    let names = sqlite_schema_names(path).unwrap();
    assert!(names.iter().any(|(t, _)| t == "singer"));
}

#[test]
fn parallel_queries_share_the_pool() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::new("t", fixture(dir.path()));
    let e = SqliteEngine::new();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..200 {
                    let rs = e
                        .execute(&db, "SELECT count(*) FROM \"Items\"", &limits())
                        .unwrap();
                    assert_eq!(rs.rows[0][0], Value::Int(3));
                }
            });
        }
    });
}

#[test]
fn string_and_memory_work_is_bounded_and_timely() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::new("t", fixture(dir.path()));
    let e = SqliteEngine::new();
    let lim = QueryLimits {
        timeout: Duration::from_secs(2),
        max_bytes: 16 << 20,
        ..QueryLimits::default()
    };
    for sql in [
        // Doubling a string in a recursive CTE: 2^40 bytes unbounded.
        "WITH RECURSIVE c(n, s) AS (SELECT 1, CAST('x' AS TEXT) UNION ALL \
         SELECT n + 1, s || s FROM c WHERE n < 40) SELECT length(s) FROM c ORDER BY n DESC LIMIT 1",
        "SELECT zeroblob(1000000000)",
        "SELECT randomblob(500000000)",
    ] {
        let started = std::time::Instant::now();
        let err = e.execute(&db, sql, &lim).unwrap_err();
        assert_eq!(err.class, ErrorClass::ResourceLimit, "{sql}: {err}");
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{sql}: {:?}",
            started.elapsed()
        );
    }
    // Rows within the row limit but past the byte limit.
    let err = e
        .execute(
            &db,
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100) \
             SELECT printf('%.*c', 1000000, 'x') FROM c",
            &lim,
        )
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::ResourceLimit, "{err}");
    assert!(err.message.contains("bytes"), "{err}");
    let rs = e.execute(&db, "SELECT 1", &lim).unwrap();
    assert_eq!(rs.rows, vec![vec![Value::Int(1)]]);
}

/// BIRD's scripts' timing: one execution on a new connection gives BIRD
/// dev's time (prepare and step to the first row) within mini-dev's
/// (preparing to closing the connection); a failing query is an error, as for `time`.
#[test]
fn time_as_scripts_times_a_new_connection() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::new("t", fixture(dir.path()));
    let e = SqliteEngine::new();
    for sql in [
        "SELECT \"Name\" FROM \"Items\" ORDER BY id",
        "SELECT k FROM other",
    ] {
        let t = e.time_as_scripts(&db, sql, &limits()).unwrap().unwrap();
        assert!(t.execute_ms > 0.0, "{sql}: {t:?}");
        assert!(t.execute_ms <= t.session_ms, "{sql}: {t:?}");
    }
    let err = e
        .time_as_scripts(&db, "SELECT nothing FROM nowhere", &limits())
        .unwrap_err();
    assert_ne!(err.class, ErrorClass::Timeout, "{err}");
    let err = e
        .time_as_scripts(
            &db,
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
            &QueryLimits {
                timeout: Duration::from_millis(200),
                ..limits()
            },
        )
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::Timeout, "{err}");
}
