//! PostgreSQL adapter against a live server (`SQLWITNESS_POSTGRES_URL`).
#![cfg(feature = "postgres")]

use std::time::Duration;

use sqlwitness_core::{Database, Engine, EngineKind, ErrorClass, QueryLimits, Value};
use sqlwitness_engines::{reader_url, PostgresEngine};
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
        let schema = sqlwitness_testkit::unique_name("swt_eng");
        let f = Fixture { rt, admin, schema };
        let s = &f.schema;
        f.exec(&format!(
            "CREATE SCHEMA \"{s}\";
             CREATE TABLE \"{s}\".t (a int, b text, c double precision, d numeric(10,2),
                e date, f bigint, g boolean, h timestamp);
             INSERT INTO \"{s}\".t VALUES
                (1, 'x', 1.5, 3.50, '2020-01-02', NULL, true, '2020-01-02 03:04:05'),
                (2, 'y', 2.25, 10.00, '2021-12-31', 7, false, '2021-12-31 23:59:59.5');"
        ));
        // The reader login, as migrate creates it (a concurrent grant may
        // collide once).
        let mut w = sqlwitness_engines::open_migrator(EngineKind::Postgres, url).unwrap();
        if w.prepare_reader().is_err() {
            w.prepare_reader().unwrap();
        }
        w.grant_reader(s).unwrap();
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
        ..QueryLimits::default()
    }
}

#[test]
fn postgres_engine_end_to_end() {
    let Some(url) = sqlwitness_testkit::server_url(EngineKind::Postgres) else {
        return;
    };
    let fx = Fixture::new(&url);
    let reader = reader_url(EngineKind::Postgres, &url).unwrap();
    let engine = PostgresEngine::connect(&reader, 2).unwrap();
    assert!(
        engine.info().version.contains("PostgreSQL"),
        "{:?}",
        engine.info()
    );
    assert!(
        engine.excess_privileges().is_empty(),
        "{:?}",
        engine.excess_privileges()
    );
    // The administrative login is recognised as privileged.
    let admin = PostgresEngine::connect(&url, 1).unwrap();
    assert!(!admin.excess_privileges().is_empty());
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
    // Arrays read as PostgreSQL prints them, not as their binary bytes.
    let rs = engine
        .execute(
            &db,
            "SELECT ARRAY['Deleted Scenes', 'Trailers', NULL, ''], ARRAY[1, 2]::int[], \
             '{}'::text[]",
            &lim,
        )
        .unwrap();
    assert_eq!(
        rs.rows[0],
        vec![
            Value::Text("{\"Deleted Scenes\",Trailers,NULL,\"\"}".into()),
            Value::Text("{1,2}".into()),
            Value::Text("{}".into()),
        ]
    );
    // Types the driver gives only in binary read as the server's own text
    // of them (each value beside its `::text`).
    for expr in [
        "interval '1 year 2 months 3 days 04:05:06.789'",
        "interval '-1 second'",
        "interval '0'",
        "interval '-2 days 1 hour'",
        "date '2024-03-01' - timestamp '2024-01-01 12:30'",
        "avg(x) FROM (VALUES (interval '1 day'), (interval '36 hours')) v(x)",
        "1234.56::money",
        "(-0.05)::money",
        "to_tsvector('english', 'The fat rats ate the fat cat''s cheese')",
        "setweight('fat:1 rat:2'::tsvector, 'A') || 'it''s:3'::tsvector",
        "ARRAY[[1, 2], [3, NULL]]",
        "'[0:1]={7,8}'::int[]",
        "ARRAY[[['a b', 'c']], [['', NULL]]]",
        "ARRAY[1.50, 2]::numeric[]",
        "ARRAY[date '2024-02-29', NULL]",
        "ARRAY[interval '1 day', interval '-00:00:01']",
        "ARRAY['{\"a\": 1}'::jsonb]",
        "'{\"b\": [1, 2.50], \"a\": \"é\"}'::jsonb",
        "'{\"b\": 1}'::json",
        "point(1.5, 2)",
        "point(1e15, 1e-5)",
        "point('NaN', '-Infinity')",
        "point(1e20, -1.5e-7)",
        "point(0.0001, 123456789012345)",
        "box(point(0,0), point(1,1))",
        "circle(point(0,0), 2.5)",
        "'[(0,0),(1,1)]'::lseg",
        "'((0,0),(1,1),(1,0))'::polygon",
        "'[(0,0),(1,1),(2,0.5)]'::path",
        "'((0,0),(1,1))'::path",
        "'{1,-1,0}'::line",
        "'192.168.1.5/24'::inet",
        "'2001:db8::1/64'::inet",
        "'10.0.0.0/8'::cidr",
        "'08:00:2b:01:02:03'::macaddr",
        "'08:00:2b:01:02:03:04:05'::macaddr8",
        "B'1010'::bit(4)",
        "B'101100101'::varbit",
        "B''::varbit",
        "'t'::regclass::oid",
        "'12:00:00+02'::timetz",
        "'09:30:00.25-03:30'::timetz",
        "int4range(1, 5)",
        "int4range(NULL, 3, '(]')",
        "int8range(5, 5)",
        "numrange(1.5, 2.50)",
        "daterange('2024-01-01', '2024-02-01')",
        "daterange('2024-01-01', NULL)",
        "ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid]",
        "ARRAY[true, false]",
        "ARRAY[1.5::float8, 0.1::float8]",
    ] {
        let (value, rest) = match expr.split_once(" FROM ") {
            Some((v, from)) => (v.to_string(), format!(" FROM {from}")),
            None => (expr.to_string(), String::new()),
        };
        let rs = engine
            .execute(&db, &format!("SELECT {value}, ({value})::text{rest}"), &lim)
            .unwrap();
        assert_eq!(rs.rows[0][0], rs.rows[0][1], "{expr}");
    }
    // An `inet` of a whole address, as psql shows it (its `::text` adds
    // the netmask).
    let rs = engine
        .execute(
            &db,
            "SELECT '192.168.1.5'::inet, format('%s', '192.168.1.5'::inet)",
            &lim,
        )
        .unwrap();
    assert_eq!(rs.rows[0][0], Value::Text("192.168.1.5".into()));
    assert_eq!(rs.rows[0][0], rs.rows[0][1]);

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
    assert_eq!(err.class, ErrorClass::ResourceLimit);

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

/// What the guard would refuse, sent to the engine directly: the login and
/// the session reset stop it on their own.
#[test]
fn postgres_reader_login_contains_hostile_sql_without_the_guard() {
    let Some(url) = sqlwitness_testkit::server_url(EngineKind::Postgres) else {
        return;
    };
    let fx = Fixture::new(&url);
    let engine =
        PostgresEngine::connect(&reader_url(EngineKind::Postgres, &url).unwrap(), 2).unwrap();
    let db = fx.db();
    let lim = limits(5000);
    // A role switch inside the query cannot climb back to a superuser.
    for sql in [
        "SELECT set_config('role', 'postgres', true), pg_read_file('/etc/hostname')",
        "SELECT query_to_xml('select pg_read_file(''/etc/hostname'')', true, true, '')",
        "SELECT pg_ls_dir('.')",
        "SELECT * FROM pg_authid",
        "SELECT lo_import('/etc/hostname')",
    ] {
        let err = engine.execute(&db, sql, &lim).unwrap_err();
        assert!(
            matches!(err.class, ErrorClass::Refused | ErrorClass::Other),
            "{sql}: {err}"
        );
    }
    // A session advisory lock does not outlive the query.
    let key = 700_000 + i64::from(std::process::id() % 100_000);
    engine
        .execute(&db, &format!("SELECT pg_advisory_lock({key})"), &lim)
        .unwrap();
    let held = fx.scalar_i64(&format!(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = {key}"
    ));
    assert_eq!(held, 0, "advisory lock {key} survived the query");
    // Results are bounded in bytes, not only rows.
    let small = QueryLimits {
        max_bytes: 1 << 20,
        ..lim
    };
    let err = engine
        .execute(
            &db,
            "SELECT repeat('x', 100000) FROM generate_series(1, 100)",
            &small,
        )
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::ResourceLimit, "{err}");
    // A timed-out statement leaves nothing running on the server.
    let marker = format!("sw_marker_{key}");
    let started = std::time::Instant::now();
    let err = engine
        .execute(
            &db,
            &format!("SELECT count(*) FROM generate_series(1, 2000000000) AS {marker}"),
            &limits(500),
        )
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::Timeout, "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let running = fx.scalar_i64(&format!(
        "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' \
         AND query LIKE '%{marker}%' AND pid <> pg_backend_pid()"
    ));
    assert_eq!(running, 0);
    assert_eq!(fx.count(), 2);
}

#[test]
fn postgres_connect_error_masks_password() {
    let err = PostgresEngine::connect("postgres://u:secret@127.0.0.1:1/db", 1).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("postgres://u:***@127.0.0.1:1/db"), "{msg}");
    assert!(!msg.contains("secret"), "{msg}");
}
/// A statement that ends its own session is charged to the statement: the
/// server still answers, so the failure is the query's error, at once, not
/// a connection failure retried for seconds and left out of the score.
#[test]
fn a_query_that_ends_its_own_session_is_its_own_error() {
    let Some(url) = sqlwitness_testkit::server_url(EngineKind::Postgres) else {
        return;
    };
    let fx = Fixture::new(&url);
    // Without the guard, over the administrative login, which may signal
    // its own backend.
    let admin = PostgresEngine::connect(&url, 1).unwrap();
    let started = std::time::Instant::now();
    let err = admin
        .execute(
            &fx.db(),
            "SELECT pg_terminate_backend(pg_backend_pid())",
            &limits(5000),
        )
        .unwrap_err();
    assert_ne!(err.class, ErrorClass::Connection, "{err}");
    assert!(err.message.contains("own session ended"), "{err}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // The engine goes on.
    let rs = admin.execute(&fx.db(), "SELECT 1", &limits(5000)).unwrap();
    assert_eq!(rs.rows.len(), 1);
}

/// A statement that ignores its cancel for seconds (`length()` of a 500 MB
/// aggregate counts its characters without checking for one) is reported
/// as a timeout near its limit; whether or not it had stopped by then,
/// nothing of it is running once the engine is dropped.
#[test]
fn a_statement_that_ignores_its_cancel_is_gone_when_the_engine_is() {
    let Some(url) = sqlwitness_testkit::server_url(EngineKind::Postgres) else {
        return;
    };
    let fx = Fixture::new(&url);
    let marker = sqlwitness_testkit::unique_name("sw_finishing");
    let engine = PostgresEngine::connect(&url, 1).unwrap();
    let err = engine
        .execute(
            &fx.db(),
            &format!(
                "SELECT length(string_agg(s, '')) AS {marker} FROM \
                 (SELECT repeat('x', 10000000) AS s FROM generate_series(1, 50)) q"
            ),
            &limits(1000),
        )
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::Timeout, "{err}");
    drop(engine);
    let running: i64 = fx
        .rt
        .block_on(
            sqlx::query_scalar(AssertSqlSafe(format!(
                "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' \
                 AND query LIKE '%{marker}%' AND pid <> pg_backend_pid()"
            )))
            .fetch_one(&fx.admin),
        )
        .unwrap();
    assert_eq!(running, 0, "{err}");
}

/// A migrated foreign key is added without the server re-reading the child
/// table (the migration checked every row on the source), and is still a
/// foreign key: the planner estimates a join along it as along a checked
/// one, and a row without a parent is refused.
#[test]
fn a_migrated_foreign_key_plans_and_enforces_without_a_recheck() {
    use sqlwitness_core::{ColumnDef, ForeignKeyDef, TableDef, TargetKind};
    let Some(url) = sqlwitness_testkit::server_url(EngineKind::Postgres) else {
        return;
    };
    let fx = Fixture::new(&url);
    let s = &fx.schema;
    // Two correlated key columns: without the key, the planner multiplies
    // their selectivities and expects about 10 rows of 100,000.
    fx.exec(&format!(
        "CREATE TABLE \"{s}\".p (a int, b int, PRIMARY KEY (a, b));
         CREATE TABLE \"{s}\".c (x int, y int);
         INSERT INTO \"{s}\".p SELECT i, i FROM generate_series(0, 9999) i;
         INSERT INTO \"{s}\".c SELECT i % 10000, i % 10000 FROM generate_series(0, 99999) i;
         ANALYZE \"{s}\".p; ANALYZE \"{s}\".c;"
    ));
    let estimate = || -> i64 {
        let plan: String = fx
            .rt
            .block_on(
                sqlx::query_scalar(AssertSqlSafe(format!(
                    "EXPLAIN SELECT * FROM \"{s}\".c JOIN \"{s}\".p ON c.x = p.a AND c.y = p.b"
                )))
                .fetch_one(&fx.admin),
            )
            .unwrap();
        let rows = plan.split("rows=").nth(1).unwrap();
        rows[..rows.find(' ').unwrap()].parse().unwrap()
    };
    assert!(estimate() < 1000, "{}", estimate());
    let column = |name: &str| ColumnDef {
        name: name.into(),
        kind: TargetKind::Integer,
        sql_type: "INTEGER".into(),
        not_null: false,
    };
    let child = TableDef {
        name: "c".into(),
        columns: vec![column("x"), column("y")],
        primary_key: Vec::new(),
        foreign_keys: vec![ForeignKeyDef {
            columns: vec!["x".into(), "y".into()],
            parent_table: "p".into(),
            parent_columns: vec!["a".into(), "b".into()],
        }],
    };
    let mut w = sqlwitness_engines::open_migrator(EngineKind::Postgres, &url).unwrap();
    w.add_foreign_key(s, &child, 0).unwrap();
    assert_eq!(
        fx.scalar_i64(&format!(
            "SELECT count(*) FROM pg_constraint WHERE contype = 'f' \
             AND conrelid = '\"{s}\".c'::regclass AND NOT convalidated"
        )),
        1
    );
    assert_eq!(estimate(), 100_000);
    let orphan = fx
        .rt
        .block_on(fx.admin.execute(sqlx::raw_sql(AssertSqlSafe(format!(
            "INSERT INTO \"{s}\".c VALUES (1, 2)"
        )))));
    let e = orphan.unwrap_err().to_string();
    assert!(e.contains("foreign key"), "{e}");
}
