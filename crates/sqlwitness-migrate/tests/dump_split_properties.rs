//! The dump splitter reads a dump as its server does: generated dumps that
//! switch the settings which change where strings end
//! (`standard_conforming_strings`; `sql_mode`'s `NO_BACKSLASH_ESCAPES` and
//! `ANSI_QUOTES`), with strings, quoted names, comments and MySQL version
//! comments full of quotes, backslashes and semicolons — some of them
//! written for the other setting — are split into statements, and each
//! statement is run alone; the rows must be those of the server reading the
//! whole dump itself (PostgreSQL: through psql, which sends a dump one
//! statement at a time and follows the setting; MySQL and MariaDB: the
//! whole text as one multi-statement query, which the server parses one
//! statement at a time), and the first error must come at the same point.
//!
//! Failing cases are kept in `proptest-regressions/` and rerun first.

use proptest::prelude::*;
use sqlwitness_core::EngineKind;
use sqlwitness_migrate::{dump_statements, DumpDialect};
use sqlx::{Connection, Executor, Row};

/// A piece of a generated dump.
#[derive(Debug, Clone)]
enum Piece {
    /// Switch a setting: PostgreSQL standard strings on/off; MySQL a mode
    /// (0 none, 1 NO_BACKSLASH_ESCAPES, 2 ANSI_QUOTES, 3 both).
    Setting(u8),
    /// `SELECT k, <literal of value>` with a spelling and decorations.
    Select {
        value: String,
        spelling: u8,
        /// Spell it for the other setting than the one in force.
        wrong: bool,
        comment: u8,
    },
}

fn value() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("a"),
            Just("'"),
            Just("\\"),
            Just(";"),
            Just("\""),
            Just("`"),
            Just("$"),
            Just("-- "),
            Just("/*"),
            Just("*/"),
            Just("#"),
            Just("\n"),
            Just(" "),
            Just("é"),
        ],
        0..8,
    )
    .prop_map(|v| v.concat())
}

fn pieces(settings: u8) -> impl Strategy<Value = Vec<Piece>> {
    proptest::collection::vec(
        prop_oneof![
            1 => (0..settings).prop_map(Piece::Setting),
            4 => (value(), 0u8..4, proptest::bool::weighted(0.15), 0u8..6).prop_map(
                |(value, spelling, wrong, comment)| Piece::Select { value, spelling, wrong, comment }
            ),
        ],
        1..10,
    )
}

/// A PostgreSQL string literal of `v`, with standard strings `standard`.
fn pg_literal(v: &str, standard: bool, spelling: u8) -> String {
    match spelling % 3 {
        0 => {
            let mut s = v.replace('\'', "''");
            if !standard {
                s = s.replace('\\', "\\\\");
            }
            format!("'{s}'")
        }
        1 => format!("E'{}'", v.replace('\\', "\\\\").replace('\'', "\\'")),
        _ if !v.contains("$q$") => format!("$q${v}$q$"),
        _ => format!("'{}'", v.replace('\'', "''")),
    }
}

/// A MySQL string literal of `v` under `mode` (bit 0: no backslash escapes,
/// bit 1: ANSI quotes).
fn my_literal(v: &str, mode: u8, spelling: u8) -> String {
    let nbe = mode & 1 == 1;
    let ansi = mode & 2 == 2;
    let escape = |s: &str, q: char| {
        let mut s = if nbe {
            s.to_string()
        } else {
            s.replace('\\', "\\\\")
        };
        s = if !nbe && spelling % 2 == 1 {
            s.replace(q, &format!("\\{q}"))
        } else {
            s.replace(q, &format!("{q}{q}"))
        };
        s
    };
    match spelling % 4 {
        2 if !ansi => format!("\"{}\"", escape(v, '"')),
        3 => format!("_utf8mb4'{}'", escape(v, '\'')),
        _ => format!("'{}'", escape(v, '\'')),
    }
}

/// The dump text of `pieces` for `dialect`.
fn dump(dialect: DumpDialect, pieces: &[Piece]) -> String {
    let mut out = String::new();
    let mut setting = 0u8;
    for (k, p) in pieces.iter().enumerate() {
        match p {
            Piece::Setting(s) => {
                setting = *s;
                out.push_str(&match dialect {
                    DumpDialect::Postgres => format!(
                        "SET standard_conforming_strings = {};\n",
                        if *s == 0 { "on" } else { "off" }
                    ),
                    DumpDialect::Mysql => format!(
                        "SET sql_mode = '{}';\n",
                        [
                            "",
                            "NO_BACKSLASH_ESCAPES",
                            "ANSI_QUOTES",
                            "NO_BACKSLASH_ESCAPES,ANSI_QUOTES"
                        ][*s as usize]
                    ),
                });
            }
            Piece::Select {
                value,
                spelling,
                wrong,
                comment,
            } => {
                let lit = match dialect {
                    DumpDialect::Postgres => {
                        let standard = (setting == 0) != *wrong;
                        pg_literal(value, standard, *spelling)
                    }
                    DumpDialect::Mysql => {
                        let mode = if *wrong { setting ^ 1 } else { setting };
                        my_literal(value, mode, *spelling)
                    }
                };
                let alias = match dialect {
                    DumpDialect::Postgres => "\"v;'\"".to_string(),
                    DumpDialect::Mysql => "`v;'`".to_string(),
                };
                let decoration = match (dialect, comment) {
                    (_, 0) => String::new(),
                    (_, 1) => " /* ' ; \" */".to_string(),
                    (_, 2) => " -- ' ; \n".to_string(),
                    (DumpDialect::Mysql, 3) => " # ' ;\n".to_string(),
                    (DumpDialect::Mysql, 4) => " /*!99999 ' */".to_string(),
                    (DumpDialect::Mysql, 5) => " /*!40101 , 1 */".to_string(),
                    _ => String::new(),
                };
                // The value comes back as hex: no separator of the output is
                // ever inside it.
                let read = match dialect {
                    DumpDialect::Postgres => {
                        format!("pg_catalog.encode(pg_catalog.convert_to({lit}, 'UTF8'), 'hex')")
                    }
                    DumpDialect::Mysql => format!("HEX({lit})"),
                };
                out.push_str(&format!("SELECT {k},{decoration} {read} AS {alias};\n"));
            }
        }
    }
    out
}

/// What running a dump gave: each row as `k|value`, and whether it stopped
/// at an error.
#[derive(Debug, PartialEq, Eq)]
struct Ran {
    rows: Vec<String>,
    failed: bool,
}

fn pg_text(row: &sqlx::postgres::PgRow) -> String {
    format!("{}|{}", row.get::<i32, _>(0), row.get::<String, _>(1))
}

fn my_text(row: &sqlx::mysql::MySqlRow) -> String {
    let k: i64 = row.try_get(0).unwrap_or(-1);
    let v = row
        .try_get::<String, _>(1)
        .or_else(|_| {
            row.try_get::<Vec<u8>, _>(1)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        })
        .unwrap_or_default();
    format!("{k}|{v}")
}

/// The statements the splitter gives, each run alone on one session, in
/// order, up to the first error.
fn by_splitter(dialect: DumpDialect, url: &str, text: &str, version: Option<&str>) -> Ran {
    let (statements, error) = dump_statements(text, dialect, version);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut rows = Vec::new();
        match dialect {
            DumpDialect::Postgres => {
                let mut c = sqlx::PgConnection::connect(url).await.unwrap();
                c.execute("SET standard_conforming_strings = on")
                    .await
                    .unwrap();
                for (_, s) in statements {
                    match sqlx::query(sqlx::AssertSqlSafe(s))
                        .persistent(false)
                        .fetch_all(&mut c)
                        .await
                    {
                        Ok(r) => rows.extend(r.iter().map(pg_text)),
                        Err(_) => return Ran { rows, failed: true },
                    }
                }
            }
            DumpDialect::Mysql => {
                let mut c = sqlx::MySqlConnection::connect(url).await.unwrap();
                c.execute("SET sql_mode = ''").await.unwrap();
                for (_, s) in statements {
                    match sqlx::query(sqlx::AssertSqlSafe(s.clone()))
                        .persistent(false)
                        .fetch_all(&mut c)
                        .await
                    {
                        Ok(r) => rows.extend(r.iter().map(my_text)),
                        Err(_) => return Ran { rows, failed: true },
                    }
                }
            }
        }
        Ran {
            rows,
            failed: error.is_some(),
        }
    })
}

/// PostgreSQL's own reading: psql runs the dump file.
fn by_psql(url: &str, text: &str) -> Ran {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("d.sql");
    std::fs::write(
        &file,
        format!("SET standard_conforming_strings = on;\n{text}"),
    )
    .unwrap();
    let o = std::process::Command::new("psql")
        .args([
            "-X",
            "-q",
            "-A",
            "-t",
            "-F",
            "|",
            "-v",
            "ON_ERROR_STOP=1",
            "-d",
            url,
            "-f",
        ])
        .arg(&file)
        .output()
        .expect("psql");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    // Values are hex: a record ends at either separator.
    let rows = out
        .split(['\u{1e}', '\n'])
        .filter(|r| !r.is_empty())
        .map(str::to_string)
        .collect();
    Ran {
        rows,
        failed: !o.status.success(),
    }
}

/// MySQL's and MariaDB's own reading: the whole dump as one
/// multi-statement query.
fn by_server(url: &str, text: &str) -> Ran {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        use futures_util::TryStreamExt;
        let mut c = sqlx::MySqlConnection::connect(url).await.unwrap();
        c.execute("SET sql_mode = ''").await.unwrap();
        let mut rows = Vec::new();
        let mut stream = c.fetch_many(sqlx::raw_sql(sqlx::AssertSqlSafe(text.to_string())));
        loop {
            match stream.try_next().await {
                Ok(Some(sqlx::Either::Right(row))) => rows.push(my_text(&row)),
                Ok(Some(sqlx::Either::Left(_))) => {}
                Ok(None) => {
                    return Ran {
                        rows,
                        failed: false,
                    }
                }
                Err(_) => return Ran { rows, failed: true },
            }
        }
    })
}

fn server_version(url: &str) -> String {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut c = sqlx::MySqlConnection::connect(url).await.unwrap();
        sqlx::query_scalar::<_, String>("SELECT CAST(VERSION() AS CHAR)")
            .fetch_one(&mut c)
            .await
            .unwrap()
    })
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(48)
}

#[test]
fn postgres_statements_are_psqls() {
    let Some(url) = sqlwitness_testkit::server_url(EngineKind::Postgres) else {
        sqlwitness_testkit::missing("PostgreSQL");
        return;
    };
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: cases(),
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("regressions"),
        )),
        ..ProptestConfig::default()
    });
    runner
        .run(&pieces(2), |p| {
            let text = dump(DumpDialect::Postgres, &p);
            let want = by_psql(&url, &text);
            let got = by_splitter(DumpDialect::Postgres, &url, &text, None);
            prop_assert_eq!(&got, &want, "dump:\n{}", text);
            Ok(())
        })
        .unwrap();
}

#[test]
fn mysql_and_mariadb_statements_are_the_servers() {
    let servers: Vec<(EngineKind, String)> = [EngineKind::Mysql, EngineKind::Mariadb]
        .into_iter()
        .filter_map(|k| sqlwitness_testkit::server_url(k).map(|u| (k, u)))
        .collect();
    if servers.is_empty() {
        sqlwitness_testkit::missing("MySQL or MariaDB");
        return;
    }
    for (kind, url) in servers {
        let version = server_version(&url);
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
            cases: cases(),
            failure_persistence: Some(Box::new(
                proptest::test_runner::FileFailurePersistence::WithSource("regressions"),
            )),
            ..ProptestConfig::default()
        });
        runner
            .run(&pieces(4), |p| {
                let text = dump(DumpDialect::Mysql, &p);
                let want = by_server(&url, &text);
                let got = by_splitter(DumpDialect::Mysql, &url, &text, Some(&version));
                prop_assert_eq!(&got, &want, "{}: dump:\n{}", kind, text);
                Ok(())
            })
            .unwrap();
    }
}
