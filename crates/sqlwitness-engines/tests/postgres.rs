//! PostgreSQL adapter against a live server (`SQLWITNESS_POSTGRES_URL`).
#![cfg(feature = "postgres")]

mod common;

use std::time::Duration;

use sqlwitness_core::{Database, Engine, ErrorClass, QueryLimits, Value};
use sqlwitness_engines::PostgresEngine;
use sqlx::{AssertSqlSafe, Executor};

struct Fixture {
    rt: tokio::runtime::Runtime,
    admin: sqlx::PgPool,
    schema: String,
}

impl Fixture {
    fn new(url: &str) -> Fixture {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let admin = rt
            .block_on(
                sqlx::postgres::PgPoolOptions::new()
                    .max_connections(1)
                    .connect(url),
            )
            .unwrap();
        let schema = common::unique_name();
        let f = Fixture { rt, admin, schema };
        let s = &f.schema;
        f.exec(&format!(
            "CREATE SCHEMA \"{s}\";
             CREATE TABLE \"{s}\".t (a int, b text, c double precision, d numeric(10,2),
                e date, f bigint, g boolean, h timestamp);
             INSERT INTO \"{s}\".t VALUES
                (1, 'x', 1.5, 3.50, '2020-01-02', NULL, true, '2020-01-02 03:04:05'),
                (2, 'y', 2.25, 10.00, '2021-12-31', 7, false, '2021-12-31 23:59:59.5');
             DO $$ BEGIN CREATE ROLE sqlwitness_reader NOLOGIN;
                EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
             GRANT USAGE ON SCHEMA \"{s}\" TO sqlwitness_reader;
             GRANT SELECT ON ALL TABLES IN SCHEMA \"{s}\" TO sqlwitness_reader;"
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
                    "SELECT count(*) FROM \"{}\".t",
                    self.schema
                )))
                .fetch_one(&self.admin),
            )
            .unwrap()
    }

    fn db(&self) -> Database {
        let mut db = Database::new(self.schema.clone(), "/nonexistent.sqlite");
        db.namespace = self.schema.clone();
        db
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let s = &self.schema;
        let sql = format!(
            "REVOKE ALL ON ALL TABLES IN SCHEMA \"{s}\" FROM sqlwitness_reader;
             REVOKE ALL ON SCHEMA \"{s}\" FROM sqlwitness_reader;
             DROP SCHEMA \"{s}\" CASCADE"
        );
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
fn postgres_engine_end_to_end() {
    let Some(url) = common::server_url("SQLWITNESS_POSTGRES_URL") else {
        return;
    };
    let fx = Fixture::new(&url);
    let engine = PostgresEngine::connect(&url, 2).unwrap();
    assert!(
        engine.info().version.contains("PostgreSQL"),
        "{:?}",
        engine.info()
    );
    assert!(engine.uses_reader_role());
    let db = fx.db();
    let lim = limits(5000);

    // Typed values and type names.
    let rs = engine
        .execute(
            &db,
            "SELECT a, b, c, d, e, f, g, h, a::bigint * 2 AS n FROM t ORDER BY a",
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
            "INT4",
            "TEXT",
            "FLOAT8",
            "NUMERIC",
            "DATE",
            "INT8",
            "BOOL",
            "TIMESTAMP",
            "INT8"
        ]
    );
    assert_eq!(rs.columns[8].name, "n");
    assert_eq!(
        rs.rows[0],
        vec![
            Value::Int(1),
            Value::Text("x".into()),
            Value::Float(1.5),
            Value::Decimal("3.50".into()),
            Value::Date("2020-01-02".into()),
            Value::Null,
            Value::Bool(true),
            Value::Timestamp("2020-01-02 03:04:05".into()),
            Value::Int(2),
        ]
    );
    assert_eq!(rs.rows[1][3], Value::Decimal("10.00".into()));
    assert_eq!(
        rs.rows[1][7],
        Value::Timestamp("2021-12-31 23:59:59.500000".into())
    );
    let rs = engine
        .execute(&db, "SELECT a FROM t WHERE false", &lim)
        .unwrap();
    assert_eq!(rs.columns.len(), 1);
    assert!(rs.rows.is_empty());
    let rs = engine
        .execute(
            &db,
            "SELECT 1.5::real, 'a'::varchar, interval '1 day'",
            &lim,
        )
        .unwrap();
    assert_eq!(rs.rows[0][0], Value::Float(1.5));
    assert_eq!(rs.rows[0][1], Value::Text("a".into()));

    // Read-only.
    for sql in [
        "INSERT INTO t (a) VALUES (3)",
        "DELETE FROM t",
        "CREATE TABLE z (a int)",
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
        .execute(&db, "SELECT pg_sleep(5)", &limits(300))
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::Timeout, "{err}");
    assert_eq!(err.code.as_deref(), Some("57014"));

    // Row limit.
    let few = QueryLimits { max_rows: 5, ..lim };
    let err = engine
        .execute(&db, "SELECT * FROM generate_series(1, 100000)", &few)
        .unwrap_err();
    assert_eq!(err.message, "result exceeds 5 rows");

    // Error classes.
    let cases = [
        ("SELECT nope FROM t", ErrorClass::UndefinedColumn, "42703"),
        ("SELECT * FROM nope", ErrorClass::UndefinedTable, "42P01"),
        ("SELECT nope_fn(1)", ErrorClass::UndefinedFunction, "42883"),
        (
            "SELECT a, count(*) FROM t GROUP BY b",
            ErrorClass::GroupBy,
            "42803",
        ),
        ("SELEC 1", ErrorClass::Syntax, "42601"),
        (
            "SELECT pg_read_file('/etc/hostname')",
            ErrorClass::Refused,
            "42501",
        ),
    ];
    for (sql, class, code) in cases {
        let err = engine.execute(&db, sql, &lim).unwrap_err();
        assert_eq!(
            (err.class, err.code.as_deref()),
            (class, Some(code)),
            "{sql}: {err}"
        );
    }

    // Still healthy after all the errors, in parallel.
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
fn postgres_connect_error_masks_password() {
    let err = PostgresEngine::connect("postgres://u:secret@127.0.0.1:1/db", 1).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("postgres://u:***@127.0.0.1:1/db"), "{msg}");
    assert!(!msg.contains("secret"), "{msg}");
}
