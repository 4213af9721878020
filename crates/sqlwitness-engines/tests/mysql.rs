//! The MySQL adapter against live servers: every case runs on each engine
//! of that adapter that is configured (`SQLWITNESS_MYSQL_URL`,
//! `SQLWITNESS_MARIADB_URL`).
#![cfg(feature = "mysql")]

use std::time::Duration;

use sqlwitness_core::{Database, Engine, EngineKind, ErrorClass, QueryLimits, Value};
use sqlwitness_dialect::Adapter;
use sqlwitness_engines::{reader_url, EngineError, MysqlEngine};
use sqlwitness_testkit::{for_each_server, unique_name};
use sqlx::{AssertSqlSafe, Executor};

struct Fixture {
    rt: tokio::runtime::Runtime,
    admin: sqlx::MySqlPool,
    name: String,
    kind: EngineKind,
    url: String,
}

impl Fixture {
    fn new(kind: EngineKind, url: &str) -> Fixture {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let admin = rt
            .block_on(
                sqlx::mysql::MySqlPoolOptions::new()
                    .max_connections(1)
                    .connect(url),
            )
            .unwrap();
        let name = unique_name("swt_eng");
        let f = Fixture {
            rt,
            admin,
            name,
            kind,
            url: url.to_string(),
        };
        let n = &f.name;
        f.exec(&format!(
            "CREATE DATABASE `{n}`;
             CREATE TABLE `{n}`.t (a INT, b VARCHAR(10), c DOUBLE, d DECIMAL(10,2), e DATE,
                f BIGINT, g VARBINARY(4), h DATETIME(6), u BIGINT UNSIGNED);
             INSERT INTO `{n}`.t VALUES
                (1, 'x', 1.5, 3.50, '2020-01-02', NULL, x'00ff', '2020-01-02 03:04:05', 18446744073709551615),
                (2, 'y', 2.25, 10.00, '2021-12-31', 7, NULL, '2021-12-31 23:59:59.5', 5);"
        ));
        let mut w = sqlwitness_engines::open_migrator(f.kind, &f.url).unwrap();
        w.prepare_reader().unwrap();
        w.grant_reader(n).unwrap();
        f
    }

    fn scalar_i64(&self, sql: &str) -> i64 {
        self.rt
            .block_on(
                sqlx::query_scalar::<_, i64>(AssertSqlSafe(sql.to_string())).fetch_one(&self.admin),
            )
            .unwrap()
    }

    fn exec(&self, sql: &str) {
        self.rt
            .block_on(
                self.admin
                    .execute(sqlx::raw_sql(AssertSqlSafe(sql.to_string()))),
            )
            .unwrap();
    }

    fn count(&self) -> i64 {
        self.rt
            .block_on(
                sqlx::query_scalar::<_, i64>(AssertSqlSafe(format!(
                    "SELECT count(*) FROM `{}`.t",
                    self.name
                )))
                .fetch_one(&self.admin),
            )
            .unwrap()
    }

    fn db(&self) -> Database {
        Database::new(self.name.clone(), "/nonexistent.sqlite")
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let sql = format!("DROP DATABASE IF EXISTS `{}`", self.name);
        let _ = self
            .rt
            .block_on(self.admin.execute(sqlx::raw_sql(AssertSqlSafe(sql))));
        // Gone: dropping it through the migrator only takes back the
        // reader's grant (MySQL keeps it after DROP DATABASE).
        if let Ok(mut w) = sqlwitness_engines::open_migrator(self.kind, &self.url) {
            let _ = w.drop_namespace(&self.name);
        }
    }
}

fn limits(ms: u64) -> QueryLimits {
    QueryLimits {
        timeout: Duration::from_millis(ms),
        max_rows: 1000,
        ..QueryLimits::default()
    }
}

#[test]
fn mysql_engine_end_to_end() {
    for_each_server(Some(Adapter::Mysql), end_to_end);
}

fn end_to_end(kind: EngineKind, url: &str) {
    let url = url.to_string();
    let fx = Fixture::new(kind, &url);
    let engine = MysqlEngine::connect(kind, &reader_url(kind, &url).unwrap(), 2).unwrap();
    assert_eq!(engine.info().kind, kind);
    assert!(!engine.info().version.is_empty());
    assert!(
        engine.excess_privileges().is_empty(),
        "{:?}",
        engine.excess_privileges()
    );
    let admin = MysqlEngine::connect(kind, &url, 1).unwrap();
    assert!(!admin.excess_privileges().is_empty());
    let db = fx.db();
    let lim = limits(5000);

    // Typed values and type names.
    let rs = engine
        .execute(
            &db,
            "SELECT a, b, c, d, e, f, g, h, u FROM t ORDER BY a",
            &lim,
        )
        .unwrap();
    let types: Vec<&str> = rs
        .columns
        .iter()
        .map(|c| c.decl_type.as_deref().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "INT",
            "VARCHAR",
            "DOUBLE",
            "DECIMAL",
            "DATE",
            "BIGINT",
            "VARBINARY",
            "DATETIME",
            "BIGINT UNSIGNED"
        ]
    );
    assert_eq!(
        rs.rows[0],
        vec![
            Value::Int(1),
            Value::Text("x".into()),
            Value::Float(1.5),
            Value::Decimal("3.50".into()),
            Value::Date("2020-01-02".into()),
            Value::Null,
            Value::Bytes(vec![0, 255]),
            Value::Timestamp("2020-01-02 03:04:05".into()),
            Value::Decimal("18446744073709551615".into()),
        ]
    );
    assert_eq!(
        rs.rows[1][7],
        Value::Timestamp("2021-12-31 23:59:59.500000".into())
    );
    assert_eq!(rs.rows[1][8], Value::Int(5));
    let rs = engine
        .execute(&db, "SELECT a FROM t WHERE 1 = 0", &lim)
        .unwrap();
    assert_eq!(rs.columns.len(), 1);
    assert!(rs.rows.is_empty());
    let rs = engine
        .execute(
            &db,
            "SELECT 7 / 2, CAST('12:30:00' AS TIME), 1.5e0, 'é'",
            &lim,
        )
        .unwrap();
    assert_eq!(rs.rows[0][0], Value::Decimal("3.5000".into()));
    assert_eq!(rs.rows[0][1], Value::Time("12:30:00".into()));
    assert_eq!(rs.rows[0][2], Value::Float(1.5));
    assert_eq!(rs.rows[0][3], Value::Text("é".into()));

    // Read-only.
    for sql in [
        "INSERT INTO t (a) VALUES (3)",
        "DELETE FROM t",
        "CREATE TABLE z (a INT)",
        "UPDATE t SET a = 0",
    ] {
        let err = engine.execute(&db, sql, &lim).unwrap_err();
        assert!(
            matches!(err.class, ErrorClass::Refused | ErrorClass::Other),
            "{sql}: {err}"
        );
    }
    let err = engine
        .execute(&db, "SELECT 1; DROP TABLE t", &lim)
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::Syntax, "{err}");
    assert_eq!(fx.count(), 2);

    // Time limit.
    let err = engine
        .execute(&db, "SELECT SLEEP(5) FROM t", &limits(300))
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::Timeout, "{err}");

    // Row limit.
    let few = QueryLimits { max_rows: 5, ..lim };
    let err = engine
        .execute(&db, "SELECT * FROM t a, t b, t c, t d", &few)
        .unwrap_err();
    assert_eq!(err.message, "result exceeds 5 rows");
    assert_eq!(err.class, ErrorClass::ResourceLimit);

    // Error classes.
    let cases = [
        ("SELECT nope FROM t", ErrorClass::UndefinedColumn, "1054"),
        ("SELECT * FROM nope", ErrorClass::UndefinedTable, "1146"),
        (
            "SELECT a, count(*) FROM t GROUP BY b",
            ErrorClass::GroupBy,
            "1055",
        ),
        ("SELEC 1", ErrorClass::Syntax, "1064"),
    ];
    for (sql, class, code) in cases {
        let err = engine.execute(&db, sql, &lim).unwrap_err();
        assert_eq!(
            (err.class, err.code.as_deref()),
            (class, Some(code)),
            "{sql}: {err}"
        );
    }

    // An unknown function: 1305, or 1370 ("execute command denied … for
    // routine") for a login without EXECUTE, which the reader is.
    let err = engine.execute(&db, "SELECT nope_fn(1)", &lim).unwrap_err();
    assert_eq!(err.class, ErrorClass::UndefinedFunction, "{err}");
    assert!(
        matches!(err.code.as_deref(), Some("1305" | "1370")),
        "{err}"
    );

    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| {
                for _ in 0..10 {
                    let rs = engine.execute(&db, "SELECT count(*) FROM t", &lim).unwrap();
                    assert_eq!(rs.rows, vec![vec![Value::Int(2)]]);
                }
            });
        }
    });
}

/// What the guard would refuse, sent to the engine directly: the reader
/// login and the session handling stop it on their own.
#[test]
fn mysql_reader_login_contains_hostile_sql_without_the_guard() {
    for_each_server(Some(Adapter::Mysql), hostile_sql);
}

fn hostile_sql(kind: EngineKind, url: &str) {
    let url = url.to_string();
    let fx = Fixture::new(kind, &url);
    // One connection: state left by a query would reach the next.
    let engine = MysqlEngine::connect(kind, &reader_url(kind, &url).unwrap(), 1).unwrap();
    let db = fx.db();
    let lim = limits(5000);
    let tag = format!("{}_{}", std::process::id(), fx.name.len());
    for sql in [
        "SELECT user, authentication_string FROM mysql.user".to_string(),
        format!("SELECT 1 INTO OUTFILE '/tmp/sw_hostile_{tag}'"),
        "SELECT * FROM mysql.db".to_string(),
    ] {
        match engine.execute(&db, &sql, &lim) {
            Err(err) => assert!(
                matches!(err.class, ErrorClass::Refused | ErrorClass::Syntax),
                "{sql}: {err}"
            ),
            Ok(rs) => assert!(rs.rows.is_empty(), "{sql}: {:?}", rs.rows),
        }
    }
    assert!(!std::path::Path::new(&format!("/tmp/sw_hostile_{tag}")).exists());
    // No FILE privilege: the server returns NULL instead of the file.
    let rs = engine
        .execute(&db, "SELECT LOAD_FILE('/etc/hostname')", &lim)
        .unwrap();
    assert_eq!(rs.rows, vec![vec![Value::Null]]);
    // A user variable does not reach the next query.
    engine.execute(&db, "SELECT @sw_leak := 42", &lim).unwrap();
    let rs = engine.execute(&db, "SELECT @sw_leak", &lim).unwrap();
    assert_eq!(rs.rows, vec![vec![Value::Null]]);
    // Results are bounded in bytes.
    let small = QueryLimits {
        max_bytes: 1 << 20,
        ..lim
    };
    let err = engine
        .execute(
            &db,
            "SELECT REPEAT('x', 100000) FROM t a, t b, t c, t d",
            &small,
        )
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::ResourceLimit, "{err}");
    // A timed-out statement leaves nothing running on the server.
    let marker = format!("sw_marker_{tag}");
    let started = std::time::Instant::now();
    // MySQL 9 ends an interrupted SLEEP with 1 instead of an error, and
    // BENCHMARK() returns 0 when stopped: a query stopped at its limit is a
    // timeout whatever it returns.
    let err = engine
        .execute(&db, &format!("SELECT SLEEP(10), '{marker}'"), &limits(500))
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::Timeout, "{err}");
    let err = engine
        .execute(&db, "SELECT BENCHMARK(10000000000, 1)", &limits(500))
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::Timeout, "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let running = fx.scalar_i64(&format!(
        "SELECT COUNT(*) FROM information_schema.PROCESSLIST \
         WHERE INFO LIKE '%{marker}%' AND COMMAND = 'Query' AND ID <> CONNECTION_ID()"
    ));
    assert_eq!(running, 0);
    assert_eq!(fx.count(), 2);
}

/// MySQL and MariaDB speak one protocol: a URL that reaches the other
/// engine is refused, told by the server's version.
#[test]
fn a_server_of_the_other_engine_is_refused() {
    let mut urls = Vec::new();
    for_each_server(Some(Adapter::Mysql), |kind, url| {
        urls.push((kind, url.to_string()))
    });
    for (kind, url) in &urls {
        let same_adapter = EngineKind::all()
            .into_iter()
            .filter(|k| sqlwitness_dialect::shipped(*k).adapter == Adapter::Mysql);
        for other in same_adapter {
            let r = MysqlEngine::connect(other, url, 1);
            if other == *kind {
                assert_eq!(r.unwrap().info().kind, other);
            } else {
                match r {
                    Err(EngineError::WrongServer {
                        engine, version, ..
                    }) => {
                        assert_eq!(engine, other);
                        assert!(!version.is_empty());
                    }
                    Err(e) => panic!("{other} on the {kind} URL: {e}"),
                    Ok(_) => panic!("{other} on the {kind} URL was accepted"),
                }
            }
        }
    }
}

#[test]
fn mysql_connect_error_masks_password() {
    let err =
        MysqlEngine::connect(EngineKind::Mysql, "mysql://u:secret@127.0.0.1:1/db", 1).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("mysql://u:***@127.0.0.1:1/db"), "{msg}");
    assert!(!msg.contains("secret"), "{msg}");
}

/// MariaDB caps what one reader session may hold (`max_session_mem_used`,
/// 1 GiB), and a statement past the cap is a `resource_limit` error, not a
/// server that grows.
#[test]
fn mariadb_sessions_have_a_memory_cap() {
    let Some(url) = sqlwitness_testkit::server_url(EngineKind::Mariadb) else {
        return;
    };
    let fx = Fixture::new(EngineKind::Mariadb, &url);
    let engine = MysqlEngine::connect(
        EngineKind::Mariadb,
        &reader_url(EngineKind::Mariadb, &url).unwrap(),
        1,
    )
    .unwrap();
    let rs = engine
        .execute(&fx.db(), "SELECT @@max_session_mem_used", &limits(5000))
        .unwrap();
    assert!(
        matches!(
            &rs.rows[0][0],
            Value::Int(1_073_741_824) | Value::Decimal(_)
        ),
        "{:?}",
        rs.rows
    );
    let dialect = sqlwitness_dialect::builtin(EngineKind::Mariadb);
    let class = dialect.classify(
        Some("1290"),
        "The MariaDB server is running with the --max-session-mem-used=1073741824 option so it \
         cannot execute this statement",
    );
    assert_eq!(class, ErrorClass::ResourceLimit);
    assert_eq!(
        dialect.classify(Some("1290"), "--secure-file-priv option"),
        ErrorClass::Refused
    );
}
