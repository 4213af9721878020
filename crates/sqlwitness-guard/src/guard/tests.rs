//! The guard as a whole, on every engine: what it refuses and what it lets through.

use super::*;
use sqlwitness_core::{EngineKind, ErrorClass};
use sqlwitness_dialect::builtin;

fn refused_on(kind: EngineKind, sql: &str) -> String {
    match guard(sql, &builtin(kind)) {
        Ok(()) => panic!("accepted on {kind}: {sql}"),
        Err(e) => {
            assert_eq!(e.class, ErrorClass::Refused);
            e.message
        }
    }
}

fn accepted_on(kind: EngineKind, sql: &str) {
    if let Err(e) = guard(sql, &builtin(kind)) {
        panic!("refused on {kind}: {sql}: {e}");
    }
}

#[test]
fn hostile_sql_is_refused_everywhere() {
    let cases: &[(&str, &str)] = &[
        ("DROP TABLE x", "DROP"),
        ("SELECT 1; DROP TABLE x", "2 statements"),
        ("SELECT 1; DROP TABLE x;", "statements"),
        ("ATTACH 'x' AS y", "ATTACH"),
        ("PRAGMA writable_schema=1", "PRAGMA"),
        ("COPY t TO PROGRAM 'x'", "COPY"),
        (
            "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
            "data-modifying",
        ),
        ("SELECT * FROM t INTO OUTFILE '/tmp/x'", "INTO"),
        ("SELECT * INTO newtable FROM t", "INTO"),
        ("SELECT * FROM t FOR UPDATE", "UPDATE"),
        ("INSERT INTO t VALUES (1)", "INSERT"),
        ("UPDATE t SET a = 1", "UPDATE"),
        ("EXPLAIN SELECT 1", "EXPLAIN"),
        ("SET search_path = x", "SET"),
        ("", "no statement"),
        ("-- only a comment", "no statement"),
    ];
    for kind in EngineKind::all() {
        for (sql, needle) in cases {
            let msg = refused_on(kind, sql);
            assert!(msg.contains(needle), "{kind}: {sql}: {msg}");
        }
    }
}

#[test]
fn denied_functions_are_refused_per_dialect() {
    use sqlwitness_core::builtin_engines::*;
    let msg = refused_on(Sqlite, "SELECT load_extension('x')");
    assert!(msg.contains("load_extension"), "{msg}");
    let msg = refused_on(Postgres, "SELECT pg_read_file('/etc/passwd')");
    assert!(msg.contains("pg_read_file"), "{msg}");
    let msg = refused_on(Mysql, "SELECT upper(load_file('/etc/passwd'))");
    assert!(msg.contains("load_file"), "{msg}");
    // Nested in a subquery, a CTE, a CASE, a table function, qualified.
    refused_on(
        Postgres,
        "SELECT a FROM t WHERE a IN (SELECT upper(pg_read_file(b)) FROM u)",
    );
    refused_on(
        Postgres,
        "WITH c AS (SELECT pg_catalog.pg_read_file('x') AS f) SELECT f FROM c",
    );
    refused_on(Postgres, "SELECT * FROM pg_ls_dir('/')");
    refused_on(
        Sqlite,
        "SELECT CASE WHEN 1 THEN LOAD_EXTENSION('x') END FROM t",
    );
    // The fallback path (sqlparser cannot parse this) still sees it.
    let msg = refused_on(Sqlite, "SELECT load_extension('x') FROM t WHERE a ==== 1");
    assert!(msg.contains("load_extension"), "{msg}");
    // Other dialects' denied functions are just unknown functions.
    accepted_on(Sqlite, "SELECT pg_read_file('x')");
}

#[test]
fn read_only_queries_pass() {
    for kind in EngineKind::all() {
        for sql in [
            "SELECT 1",
            "SELECT 1;",
            "select name from singer where age > 20 order by age desc limit 3;  ",
            "WITH c AS (SELECT a FROM t) SELECT a FROM c",
            "SELECT a FROM t UNION SELECT a FROM u",
            "VALUES (1), (2)",
            "(SELECT a FROM t)",
            "SELECT replace(name, 'a', 'b') FROM t",
            "SELECT 'DROP TABLE x; INTO' FROM t",
            "SELECT 1 -- trailing comment",
        ] {
            accepted_on(kind, sql);
        }
    }
}

#[test]
fn fallback_accepts_unparsed_selects_and_refuses_the_rest() {
    use sqlwitness_core::builtin_engines::Sqlite;
    // sqlparser cannot parse this; the tokens are harmless.
    let sql = "SELECT a FROM t WHERE a ==== 1";
    assert!(Parser::parse_sql(&sqlparser::dialect::SQLiteDialect {}, sql).is_err());
    accepted_on(Sqlite, sql);
    refused_on(Sqlite, "SELECT a FROM t WHERE a ==== 1; DELETE FROM t");
    refused_on(Sqlite, "SELECT a FROM t WHERE a ==== 1 INTO x");
    refused_on(Sqlite, "VACUUM INTO '/tmp/x' ====");
    refused_on(Sqlite, "SELECT 'unterminated");
}

#[test]
fn text_the_server_reads_differently_is_refused() {
    use sqlwitness_core::builtin_engines::*;
    // MariaDB executes these; sqlparser reads comments.
    for sql in [
        "SELECT 1 /*!50000 INTO OUTFILE '/tmp/sw_x' */",
        "SELECT /*M! load_file('/etc/hostname'), */ 1",
        "SELECT /*+ MAX_EXECUTION_TIME(999999) */ 1",
        "SELECT 1 --\u{a0}, load_file('/etc/hostname')",
        "SELECT 1 #\n, load_file('/etc/hostname')",
    ] {
        let msg = refused_on(Mysql, sql);
        assert!(!msg.is_empty(), "{sql}");
    }
    // Quote boundaries: MySQL's backslash escape in "…" hides the
    // second string's start from a reader without it.
    refused_on(
        Mysql,
        r#"SELECT "a\" , 'x" INTO OUTFILE "/tmp/sw_y' "" FROM t"#,
    );
    // PostgreSQL ends a `--` comment at a carriage return: the code after
    // it is checked like any other.
    let msg = refused_on(Postgres, "SELECT 1 -- x\r, pg_read_file('/etc/passwd')");
    assert!(msg.contains("pg_read_file"), "{msg}");
    for kind in EngineKind::all() {
        for (sql, needle) in [
            ("SELECT 1\0; DROP TABLE t", "NUL"),
            ("SELECT 1 /* a /* b */ DROP TABLE t */", "block comment"),
            ("SELECT 1 /* open", "unterminated"),
            ("SELECT\u{2028}1", "U+2028"),
            ("SELECT @x := 1", ":="),
        ] {
            let msg = refused_on(kind, sql);
            assert!(msg.contains(needle), "{kind}: {sql:?}: {msg}");
        }
    }
}

#[test]
fn deep_and_long_texts_are_refused_not_crashed() {
    for kind in EngineKind::all() {
        for sql in [
            format!("SELECT 1{}", "+1".repeat(30_000)),
            format!("SELECT a FROM t WHERE a = 1{}", " AND a = 1".repeat(9_000)),
            format!("SELECT 1{}", " UNION SELECT 1".repeat(2_000)),
        ] {
            let msg = refused_on(kind, &sql);
            assert!(msg.contains("operators"), "{kind}: {msg}");
        }
        let long = format!("SELECT 1 WHERE 1 IN ({})", "1,".repeat(60_000) + "1");
        let msg = refused_on(kind, &long);
        assert!(msg.contains("bytes"), "{kind}: {msg}");
        // Deep nesting: sqlparser's recursion limit, then the token
        // check (harmless tokens pass; nothing recurses without bound).
        let nested = format!("SELECT {}1{}", "(".repeat(500), ")".repeat(500));
        let _ = guard(&nested, &builtin(kind));
    }
}

#[test]
fn literal_sizes_over_the_result_limit_are_refused() {
    use sqlwitness_core::builtin_engines::*;
    let msg = refused_on(Postgres, "SELECT repeat('x', 1000000000)");
    assert!(
        msg.contains("repeat") && msg.contains("1000000000"),
        "{msg}"
    );
    refused_on(Mysql, "SELECT lpad('x', 900000000, 'y') FROM t");
    refused_on(Sqlite, "SELECT zeroblob(1000000000)");
    accepted_on(
        Postgres,
        "SELECT repeat('-', 20), lpad(name, 10, ' ') FROM t",
    );
}

#[test]
fn functions_that_run_sql_text_or_keep_session_state_are_refused() {
    use sqlwitness_core::builtin_engines::*;
    for sql in [
        "SELECT query_to_xml_and_xmlschema('select pg_read_file(''/etc/passwd'')', true, true, '')",
        "SELECT * FROM ts_stat('select 1')",
        "SELECT set_config('role', 'postgres', true)",
        "SELECT pg_advisory_lock(1)",
        "SELECT setseed(0.5)",
    ] {
        refused_on(Postgres, sql);
    }
    for sql in [
        "SELECT get_lock('x', 1)",
        "SELECT last_insert_id(5)",
        "SELECT sys_exec('id')",
    ] {
        refused_on(Mysql, sql);
    }
}

/// ODBC escapes, as MySQL 9.7 and MariaDB 10.11 read them (see
/// `tests/odbc_escapes.rs` for what each server does with each): every
/// brace outside quotes and comments is refused, on every engine, however
/// the escape is spelled.
#[test]
fn odbc_escapes_are_refused_everywhere() {
    for kind in EngineKind::all() {
        for sql in [
            // A table inside `{ oj … }`, in any case, spacing and comments.
            "SELECT count(*) FROM { oj information_schema.schemata }",
            "SELECT count(*) FROM {OJ information_schema.tables}",
            "SELECT count(*) FROM {oj`information_schema`.`processlist`}",
            "SELECT count(*) FROM { /*x*/ oj information_schema.user_privileges }",
            "SELECT count(*) FROM { oj /*x*/ car_1.cars_data }",
            "SELECT count(*) FROM {-- c\noj performance_schema.global_variables}",
            "SELECT count(*) FROM {# c\noj information_schema.schemata}",
            "SELECT count(*) FROM {\toj\ninformation_schema.schemata\n}",
            // MariaDB takes any identifier where MySQL takes `OJ`.
            "SELECT count(*) FROM { `oj` car_1.cars_data }",
            "SELECT count(*) FROM { foo car_1.cars_data }",
            "SELECT count(*) FROM { information_schema .schemata }",
            // Joins, parentheses, derived tables, CTEs inside and around.
            "SELECT count(*) FROM { oj (car_1.cars_data) }",
            "SELECT count(*) FROM { oj singer s LEFT JOIN car_1.cars_data c ON 1 = 1 }",
            "SELECT count(*) FROM { oj (SELECT * FROM car_1.cars_data) d }",
            "SELECT count(*) FROM { oj information_schema.schemata AS s }",
            "SELECT count(*) FROM singer JOIN { oj information_schema.schemata } ON 1 = 1",
            "WITH c AS (SELECT 1 FROM { oj information_schema.schemata }) SELECT * FROM c",
            "SELECT count(*) FROM { oj { oj car_1.cars_data } }",
            // Expressions: `{ ident expr }`.
            "SELECT { fn concat('a', 'b') }",
            "SELECT {fn version()}",
            "SELECT { fn database() } FROM singer",
            "SELECT { d '2020-01-02' }",
            "SELECT { t '10:11:12' }",
            "SELECT { ts '2020-01-02 10:11:12' }",
            "SELECT {D '2020-01-02'}",
            "SELECT { x (SELECT count(*) FROM information_schema.schemata) }",
            "SELECT { oj 1 + 1 }",
            "SELECT name FROM singer WHERE name LIKE 'a!%' ESCAPE { escape '!' }",
            "SELECT name FROM singer WHERE name LIKE 'a' { escape '!' }",
            "SELECT 'a'{ oj 1 }",
            // Calls, and braces alone.
            "{ call p() }",
            "{ ? = call p() }",
            "{call p}",
            "SELECT 1 }",
            "SELECT 1 {",
        ] {
            let msg = refused_on(kind, sql);
            assert!(msg.contains("ODBC escape"), "{kind}: {sql:?}: {msg}");
        }
        // Braces in strings and comments are text.
        for sql in [
            "SELECT '{ oj information_schema.schemata }' FROM singer",
            "SELECT count(*) FROM singer -- { oj car_1.cars_data }",
            "SELECT count(*) FROM singer /* { oj car_1.cars_data } */",
            "SELECT '}' || '{' FROM singer",
        ] {
            accepted_on(kind, sql);
        }
    }
    use sqlwitness_core::builtin_engines::*;
    // In each engine's own quotes too.
    for kind in [Mysql, Mariadb] {
        accepted_on(kind, "SELECT `{ oj y }` FROM singer");
        accepted_on(kind, r#"SELECT "{ fn version() }" FROM singer"#);
        accepted_on(kind, r"SELECT 'it\'s { d' FROM singer");
    }
    accepted_on(Postgres, r#"SELECT "{ oj y }" FROM singer"#);
    accepted_on(Postgres, "SELECT '{1,2}'::int[], $${ oj }$$, E'\\'{'");
    accepted_on(Sqlite, r#"SELECT [{ oj y }], "{x}" FROM singer"#);
    // Where a quote is not the engine's, the brace is code.
    refused_on(Postgres, "SELECT `{ oj y }` FROM singer");
}
