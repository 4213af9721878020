//! ODBC escapes on the real servers: what MySQL and MariaDB read inside
//! braces (checked on MySQL 9.7 and MariaDB 10.11), that PostgreSQL and
//! SQLite take none, and that the guard refuses every one of them on every
//! engine. A server upgrade that starts or stops reading a form fails here,
//! so that the guard's reasons (`lexer::odbc_escape`) stay true.
//!
//! What the servers do, in short: both read `{ ident expr }` for any
//! identifier (a date for `{ d '…' }`, the bare expression otherwise);
//! MySQL reads `{ OJ table_reference }` (the word `OJ`, any case), MariaDB
//! `{ ident table_reference }` for any identifier, quoted or not. Comments
//! and line breaks may stand anywhere inside. Escapes do not nest, stand
//! only where a single table reference does, and `{ call … }` is no
//! statement.

use sqlwitness_core::EngineKind;
use sqlwitness_dialect::{builtin, shipped, Adapter};
use sqlwitness_guard::{guard_with, GuardOptions};

/// A text, and whether MySQL and MariaDB parse it (run it, or fail for a
/// reason other than syntax).
struct Form {
    sql: &'static str,
    mysql: bool,
    mariadb: bool,
}

const fn form(sql: &'static str, mysql: bool, mariadb: bool) -> Form {
    Form {
        sql,
        mysql,
        mariadb,
    }
}

/// Every text holds a brace outside quotes and comments.
const FORMS: &[Form] = &[
    form("SELECT 1 FROM { oj information_schema.schemata } LIMIT 1", true, true),
    form("SELECT 1 FROM {OJ information_schema.schemata} LIMIT 1", true, true),
    form("SELECT 1 FROM {Oj information_schema.schemata} LIMIT 1", true, true),
    form("SELECT 1 FROM { /*x*/ oj information_schema.schemata } LIMIT 1", true, true),
    form("SELECT 1 FROM { oj /*x*/ information_schema.schemata } LIMIT 1", true, true),
    form("SELECT 1 FROM {-- c\noj information_schema.schemata} LIMIT 1", true, true),
    form("SELECT 1 FROM {# c\noj information_schema.schemata} LIMIT 1", true, true),
    form("SELECT 1 FROM {\toj\ninformation_schema.schemata\n} LIMIT 1", true, true),
    form("SELECT 1 FROM {oj`information_schema`.`schemata`} LIMIT 1", true, true),
    // MariaDB: any identifier in place of `OJ`.
    form("SELECT 1 FROM { foo information_schema.schemata } LIMIT 1", false, true),
    form("SELECT 1 FROM { `oj` information_schema.schemata } LIMIT 1", false, true),
    // MariaDB: `information_schema` is the escape's word, `.schemata` a
    // table of the current database (which does not exist here).
    form("SELECT 1 FROM { information_schema.schemata } LIMIT 1", false, true),
    form("SELECT 1 FROM { \"oj\" information_schema.schemata } LIMIT 1", false, false),
    form("SELECT 1 FROM { oj (information_schema.schemata) } LIMIT 1", true, true),
    form(
        "SELECT 1 FROM { oj information_schema.schemata s LEFT JOIN information_schema.tables t ON 1 = 1 } LIMIT 1",
        true,
        true,
    ),
    form("SELECT 1 FROM { oj (SELECT 1) d } LIMIT 1", true, true),
    form("SELECT 1 FROM { oj information_schema.schemata AS s } LIMIT 1", true, true),
    form("SELECT 1 FROM { oj information_schema.schemata } AS s LIMIT 1", false, false),
    form("SELECT 1 FROM { oj { oj information_schema.schemata } } LIMIT 1", false, false),
    form("SELECT 1 FROM dual, { oj information_schema.schemata } LIMIT 1", false, false),
    form(
        "SELECT 1 FROM { oj information_schema.schemata, information_schema.tables } LIMIT 1",
        false,
        false,
    ),
    form(
        "SELECT 1 FROM (SELECT 1) x JOIN { oj information_schema.schemata } ON 1 LIMIT 1",
        true,
        false,
    ),
    form(
        "WITH c AS (SELECT 1 FROM { oj information_schema.schemata }) SELECT 1 FROM c LIMIT 1",
        true,
        true,
    ),
    form("TABLE { oj information_schema.schemata }", false, false),
    // Expressions.
    form("SELECT {fn concat('a', 'b')}", true, true),
    form("SELECT { fn version() }", true, true),
    form("SELECT { d '2020-01-02' }", true, true),
    form("SELECT {D '2020-01-02'}", true, true),
    form("SELECT { t '10:11:12' }", true, true),
    form("SELECT { ts '2020-01-02 10:11:12' }", true, true),
    form("SELECT { d 1 }", true, true),
    form("SELECT { oj 1 + 1 }", true, true),
    form("SELECT { x (SELECT count(*) FROM information_schema.schemata) }", true, true),
    form("SELECT { a b }", true, true),
    form("SELECT 'a' LIKE 'a' ESCAPE { escape '!' }", true, true),
    form("SELECT 'a' LIKE 'a' { escape '!' }", false, false),
    form("SELECT 1 {oj}", false, false),
    form("SELECT 1 FROM { select information_schema.schemata } LIMIT 1", false, false),
    // Calls.
    form("{ call sw_no_such_procedure() }", false, false),
    form("{ ? = call sw_no_such_procedure() }", false, false),
];

/// Braces in quotes and comments: text, read by every server.
const INERT: &[&str] = &[
    "SELECT '{ oj information_schema.schemata }'",
    "SELECT 1 /* { oj information_schema.schemata } */",
    "SELECT 1 -- { oj information_schema.schemata }\n",
];

/// True when the server at `url` parses `sql` (runs it, or fails for a
/// reason other than syntax), false on a syntax error.
fn parses_on_server(kind: EngineKind, url: &str, sql: &str) -> bool {
    use sqlx::Connection;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let text = sqlx::AssertSqlSafe(sql.to_string());
    rt.block_on(async {
        match shipped(kind).adapter {
            Adapter::Postgres => {
                let mut c = sqlx::PgConnection::connect(url).await.unwrap();
                match sqlx::raw_sql(text).fetch_all(&mut c).await {
                    Ok(_) => true,
                    Err(e) => {
                        let code = e.as_database_error().and_then(|d| d.code());
                        assert_eq!(code.as_deref(), Some("42601"), "{kind}: {sql}: {e}");
                        false
                    }
                }
            }
            _ => {
                let mut c = sqlx::MySqlConnection::connect(url).await.unwrap();
                match sqlx::raw_sql(text).fetch_all(&mut c).await {
                    Ok(_) => true,
                    Err(e) => {
                        let number = e
                            .as_database_error()
                            .map(|d| d.downcast_ref::<sqlx::mysql::MySqlDatabaseError>().number());
                        // 1064: a syntax error; anything else (1146, no
                        // such table) means the text was parsed.
                        number != Some(1064)
                    }
                }
            }
        }
    })
}

fn parses_on_sqlite(sql: &str) -> bool {
    rusqlite::Connection::open_in_memory()
        .unwrap()
        .prepare(sql)
        .is_ok()
}

fn refused(kind: EngineKind, sql: &str) -> bool {
    let options = GuardOptions::default().in_namespace("concert_singer");
    match guard_with(sql, &builtin(kind), &options) {
        Ok(()) => false,
        Err(e) => {
            assert!(e.message.contains("ODBC escape"), "{kind}: {sql}: {e}");
            true
        }
    }
}

#[test]
fn every_escape_the_servers_read_is_refused_on_every_engine() {
    for kind in EngineKind::all() {
        for f in FORMS {
            assert!(refused(kind, f.sql), "{kind}: accepted: {}", f.sql);
        }
    }
}

#[test]
fn sqlite_reads_no_brace() {
    for f in FORMS {
        assert!(!parses_on_sqlite(f.sql), "SQLite parses {}", f.sql);
    }
    for sql in INERT {
        assert!(parses_on_sqlite(sql), "SQLite: {sql}");
    }
}

#[test]
fn the_servers_read_the_escapes_as_recorded() {
    sqlwitness_testkit::for_each_server(None, |kind, url| {
        let mut differ = Vec::new();
        for f in FORMS {
            let expected = match kind {
                EngineKind::Mysql => f.mysql,
                EngineKind::Mariadb => f.mariadb,
                _ => false,
            };
            let got = parses_on_server(kind, url, f.sql);
            if got != expected {
                differ.push(format!("{:?}: parsed {got}, recorded {expected}", f.sql));
            }
        }
        assert!(differ.is_empty(), "{kind}:\n{}", differ.join("\n"));
        for sql in INERT {
            assert!(parses_on_server(kind, url, sql), "{kind}: {sql}");
        }
    });
}
