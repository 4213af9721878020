//! MySQL/MariaDB adapter against a live server (`SQLWITNESS_MYSQL_URL`).
#![cfg(feature = "mysql")]

mod common;

use std::time::Duration;

use sqlwitness_core::{Database, Engine, ErrorClass, QueryLimits, Value};
use sqlwitness_engines::MysqlEngine;
use sqlx::{AssertSqlSafe, Executor};

struct Fixture {
    rt: tokio::runtime::Runtime,
    admin: sqlx::MySqlPool,
    name: String,
}

impl Fixture {
    fn new(url: &str) -> Fixture {
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
        let name = common::unique_name();
        let f = Fixture { rt, admin, name };
        let n = &f.name;
        f.exec(&format!(
            "CREATE DATABASE `{n}`;
             CREATE TABLE `{n}`.t (a INT, b VARCHAR(10), c DOUBLE, d DECIMAL(10,2), e DATE,
                f BIGINT, g VARBINARY(4), h DATETIME(6), u BIGINT UNSIGNED);
             INSERT INTO `{n}`.t VALUES
                (1, 'x', 1.5, 3.50, '2020-01-02', NULL, x'00ff', '2020-01-02 03:04:05', 18446744073709551615),
                (2, 'y', 2.25, 10.00, '2021-12-31', 7, NULL, '2021-12-31 23:59:59.5', 5);"
        ));
        f
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
    }
}

fn limits(ms: u64) -> QueryLimits {
    QueryLimits {
        timeout: Duration::from_millis(ms),
        max_rows: 1000,
    }
}

#[test]
fn mysql_engine_end_to_end() {
    let Some(url) = common::server_url("SQLWITNESS_MYSQL_URL") else {
        return;
    };
    let fx = Fixture::new(&url);
    let engine = MysqlEngine::connect(&url, 2).unwrap();
    assert!(!engine.info().version.is_empty());
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

    // Error classes.
    let cases = [
        ("SELECT nope FROM t", ErrorClass::UndefinedColumn, "1054"),
        ("SELECT * FROM nope", ErrorClass::UndefinedTable, "1146"),
        ("SELECT nope_fn(1)", ErrorClass::UndefinedFunction, "1305"),
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

#[test]
fn mysql_connect_error_masks_password() {
    let err = MysqlEngine::connect("mysql://u:secret@127.0.0.1:1/db", 1).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("mysql://u:***@127.0.0.1:1/db"), "{msg}");
    assert!(!msg.contains("secret"), "{msg}");
}
