//! Run logins against live servers: each run reads over a login of its
//! own, which cannot signal or kill another run's sessions and is gone
//! once the run ends.
#![cfg(all(feature = "postgres", feature = "mysql"))]

use sqlwitness_core::EngineKind;
use sqlwitness_dialect::Adapter;
use sqlwitness_engines::{RunLogin, RUN_LOGIN_PREFIX};
use sqlwitness_testkit::for_each_server;
use sqlx::{AssertSqlSafe, Connection, Executor};

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn run_logins_cannot_signal_each_other_and_go_away() {
    for_each_server(None, |kind, url| {
        let a = RunLogin::create(kind, url).unwrap();
        let b = RunLogin::create(kind, url).unwrap();
        assert_ne!(a.name(), b.name());
        assert!(a.name().starts_with(RUN_LOGIN_PREFIX), "{}", a.name());
        let (a_name, b_name) = (a.name().to_string(), b.name().to_string());
        let rt = rt();
        match sqlwitness_dialect::shipped(kind).adapter {
            Adapter::Postgres => rt.block_on(async {
                let mut victim = sqlx::PgConnection::connect(b.url()).await.unwrap();
                let pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
                    .fetch_one(&mut victim)
                    .await
                    .unwrap();
                let mut attacker = sqlx::PgConnection::connect(a.url()).await.unwrap();
                // The reader's access, inherited; nothing that signals.
                let reads: bool = sqlx::query_scalar(
                    "SELECT pg_has_role(current_user, 'sqlwitness_reader', 'USAGE')",
                )
                .fetch_one(&mut attacker)
                .await
                .unwrap();
                assert!(reads, "{kind}: the run login lacks the reader's access");
                for signal in ["pg_cancel_backend", "pg_terminate_backend"] {
                    let r = sqlx::query(AssertSqlSafe(format!("SELECT {signal}($1)")))
                        .bind(pid)
                        .execute(&mut attacker)
                        .await;
                    let e = r.expect_err("another run's session was signalled");
                    let code = e.as_database_error().and_then(|d| d.code()).unwrap();
                    assert_eq!(code, "42501", "{kind} {signal}: {e}");
                }
                let alive: i32 = sqlx::query_scalar("SELECT 1")
                    .fetch_one(&mut victim)
                    .await
                    .unwrap();
                assert_eq!(alive, 1);
            }),
            Adapter::Mysql => rt.block_on(async {
                let mut victim = sqlx::MySqlConnection::connect(b.url()).await.unwrap();
                let id: u64 = sqlx::query_scalar("SELECT CONNECTION_ID()")
                    .fetch_one(&mut victim)
                    .await
                    .unwrap();
                let mut attacker = sqlx::MySqlConnection::connect(a.url()).await.unwrap();
                for kill in ["KILL QUERY", "KILL CONNECTION"] {
                    let e = attacker
                        .execute(AssertSqlSafe(format!("{kill} {id}")))
                        .await
                        .expect_err("another run's connection was killed");
                    // 1095: not the owner of the thread.
                    assert!(e.to_string().contains("1095"), "{kind} {kill}: {e}");
                }
                let alive: i64 = sqlx::query_scalar("SELECT 1")
                    .fetch_one(&mut victim)
                    .await
                    .unwrap();
                assert_eq!(alive, 1);
            }),
            _ => unreachable!("no logins"),
        }
        drop(rt);
        drop(a);
        drop(b);
        for name in [a_name, b_name] {
            assert_eq!(
                logins_named(kind, url, &name),
                0,
                "{kind}: {name} left behind"
            );
        }
    });
}

/// How many logins (PostgreSQL roles, MySQL accounts) are named `name`.
fn logins_named(kind: EngineKind, url: &str, name: &str) -> i64 {
    let rt = rt();
    match sqlwitness_dialect::shipped(kind).adapter {
        Adapter::Postgres => rt.block_on(async {
            let mut c = sqlx::PgConnection::connect(url).await.unwrap();
            sqlx::query_scalar("SELECT count(*) FROM pg_roles WHERE rolname = $1")
                .bind(name)
                .fetch_one(&mut c)
                .await
                .unwrap()
        }),
        _ => rt.block_on(async {
            let mut c = sqlx::MySqlConnection::connect(url).await.unwrap();
            sqlx::query_scalar("SELECT count(*) FROM mysql.user WHERE User = ?")
                .bind(name)
                .fetch_one(&mut c)
                .await
                .unwrap()
        }),
    }
}

/// A run login left behind by a killed run (old, no session) is dropped by
/// the next run; a PostgreSQL role of the same form without the run-login
/// comment is not sqlwitness's and stays.
#[test]
fn left_behind_run_logins_are_dropped_and_foreign_ones_kept() {
    for_each_server(None, |kind, url| {
        let random =
            &sqlwitness_testkit::unique_name("x").replace(|c: char| !c.is_ascii_hexdigit(), "");
        let tail: String = format!("{random}00000000").chars().rev().take(8).collect();
        // Created in 1970 + 0x10 s: long stale.
        let stale = format!("{RUN_LOGIN_PREFIX}00000010_{tail}");
        let foreign = format!("{RUN_LOGIN_PREFIX}00000011_{tail}");
        let rt = rt();
        match sqlwitness_dialect::shipped(kind).adapter {
            Adapter::Postgres => rt.block_on(async {
                let mut c = sqlx::PgConnection::connect(url).await.unwrap();
                c.execute(AssertSqlSafe(format!(
                    "CREATE ROLE \"{stale}\" LOGIN; COMMENT ON ROLE \"{stale}\" IS 'sqlwitness run login'; \
                     CREATE ROLE \"{foreign}\" LOGIN"
                )))
                .await
                .unwrap();
            }),
            _ => rt.block_on(async {
                let mut c = sqlx::MySqlConnection::connect(url).await.unwrap();
                c.execute(AssertSqlSafe(format!(
                    "CREATE USER '{stale}'@'%', '{stale}'@'localhost'"
                )))
                .await
                .unwrap();
            }),
        }
        let fresh = RunLogin::create(kind, url).unwrap();
        assert_eq!(logins_named(kind, url, &stale), 0, "{kind}: {stale} kept");
        if sqlwitness_dialect::shipped(kind).adapter == Adapter::Postgres {
            assert_eq!(
                logins_named(kind, url, &foreign),
                1,
                "{kind}: {foreign} dropped"
            );
            rt.block_on(async {
                let mut c = sqlx::PgConnection::connect(url).await.unwrap();
                c.execute(AssertSqlSafe(format!("DROP ROLE \"{foreign}\"")))
                    .await
                    .unwrap();
            });
        }
        // Released once, by hand and then on drop.
        let name = fresh.name().to_string();
        fresh.release();
        assert_eq!(logins_named(kind, url, &name), 0);
        drop(fresh);
    });
}

/// A database made after the run login (a fuzz candidate's scratch copy)
/// and granted to the reader is readable by the run login once
/// `grant_database` has run: on MySQL and MariaDB the login holds the
/// reader's grants as they were when it was created, so it could not read
/// it before; on PostgreSQL it inherits the reader role's grants.
#[test]
fn a_run_login_reads_a_database_granted_after_it_was_made() {
    for_each_server(None, |kind, url| {
        let login = RunLogin::create(kind, url).unwrap();
        let ns = sqlwitness_testkit::unique_name("swt_rlg");
        let rt = rt();
        match sqlwitness_dialect::shipped(kind).adapter {
            Adapter::Postgres => rt.block_on(async {
                let mut admin = sqlx::PgConnection::connect(url).await.unwrap();
                admin
                    .execute(AssertSqlSafe(format!(
                        "CREATE SCHEMA {ns}; CREATE TABLE {ns}.t (a int); \
                         INSERT INTO {ns}.t VALUES (1); \
                         GRANT USAGE ON SCHEMA {ns} TO sqlwitness_reader; \
                         GRANT SELECT ON ALL TABLES IN SCHEMA {ns} TO sqlwitness_reader"
                    )))
                    .await
                    .unwrap();
                login.grant_database(&ns).unwrap();
                let mut c = sqlx::PgConnection::connect(login.url()).await.unwrap();
                let n: i64 =
                    sqlx::query_scalar(AssertSqlSafe(format!("SELECT count(*) FROM {ns}.t")))
                        .fetch_one(&mut c)
                        .await
                        .unwrap();
                assert_eq!(n, 1, "{kind}");
                c.close().await.unwrap();
                admin
                    .execute(AssertSqlSafe(format!("DROP SCHEMA {ns} CASCADE")))
                    .await
                    .unwrap();
            }),
            Adapter::Mysql => {
                let grant_db = ns.replace('_', "\\_");
                let count = format!("SELECT COUNT(*) FROM `{ns}`.t");
                let read = || {
                    rt.block_on(async {
                        let mut c = sqlx::MySqlConnection::connect(login.url()).await.unwrap();
                        sqlx::query_scalar::<_, i64>(AssertSqlSafe(count.clone()))
                            .fetch_one(&mut c)
                            .await
                    })
                };
                mysql_admin(
                    &rt,
                    url,
                    &format!(
                        "CREATE DATABASE `{ns}`; CREATE TABLE `{ns}`.t (a int); \
                     INSERT INTO `{ns}`.t VALUES (1); \
                     GRANT SELECT ON `{grant_db}`.* TO 'sqlwitness_reader'@'%', \
                     'sqlwitness_reader'@'localhost'"
                    ),
                );
                let before = read();
                let granted = login.grant_database(&ns);
                let after = read();
                mysql_admin(
                    &rt,
                    url,
                    &format!(
                        "DROP DATABASE `{ns}`; \
                     REVOKE SELECT ON `{grant_db}`.* FROM 'sqlwitness_reader'@'%', \
                     'sqlwitness_reader'@'localhost'"
                    ),
                );
                assert!(before.is_err(), "{kind}: read before the grant");
                granted.unwrap();
                assert_eq!(after.unwrap(), 1, "{kind}");
            }
            _ => unreachable!("no logins"),
        }
        login.release();
    });
}

/// The session holding a run login's lease ends while the run goes on (a
/// server restart or a relay's outage ends it the same way): the run takes
/// its lease again, so another run's sweep leaves its login alone; the
/// login still goes when the run ends.
#[test]
fn a_run_login_takes_its_lease_again_when_the_session_holding_it_ends() {
    for_each_server(None, |kind, url| {
        let login = RunLogin::create(kind, url).unwrap();
        let name = login.name().to_string();
        let rt = rt();
        let holder = |rt: &tokio::runtime::Runtime| -> Option<i64> {
            match sqlwitness_dialect::shipped(kind).adapter {
                Adapter::Postgres => rt.block_on(async {
                    let mut c = sqlx::PgConnection::connect(url).await.unwrap();
                    sqlx::query_scalar(
                        "SELECT pid::bigint FROM pg_locks WHERE locktype = 'advisory' AND granted \
                         AND ((classid::bigint << 32) | objid::bigint) = \
                             pg_catalog.hashtextextended('sqlwitness lease ' || $1, 0)",
                    )
                    .bind(&name)
                    .fetch_optional(&mut c)
                    .await
                    .unwrap()
                }),
                _ => rt.block_on(async {
                    let mut c = sqlx::MySqlConnection::connect(url).await.unwrap();
                    sqlx::query_scalar::<_, Option<i64>>(
                        "SELECT CAST(IS_USED_LOCK(CONCAT('sqlwitness lease:', \
                         LEFT(SHA2(?, 256), 40))) AS SIGNED)",
                    )
                    .bind(&name)
                    .fetch_one(&mut c)
                    .await
                    .unwrap()
                }),
            }
        };
        let first = holder(&rt).expect("the lease is held");
        match sqlwitness_dialect::shipped(kind).adapter {
            Adapter::Postgres => rt.block_on(async {
                let mut c = sqlx::PgConnection::connect(url).await.unwrap();
                sqlx::query("SELECT pg_terminate_backend($1::int)")
                    .bind(first)
                    .execute(&mut c)
                    .await
                    .unwrap();
            }),
            _ => mysql_admin(&rt, url, &format!("KILL CONNECTION {first}")),
        }
        let started = std::time::Instant::now();
        let again = loop {
            match holder(&rt) {
                Some(h) if h != first => break h,
                _ if started.elapsed() > std::time::Duration::from_secs(20) => {
                    panic!("{kind}: the lease was not taken again")
                }
                _ => std::thread::sleep(std::time::Duration::from_millis(100)),
            }
        };
        assert_ne!(again, first);
        // Another run's sweep finds the lease held: the login stays.
        let swept = sqlwitness_engines::sweep_again(kind, url).unwrap();
        assert!(
            !swept.iter().any(|s| s.ends_with(&name)),
            "{kind}: the sweep dropped a run still going: {swept:?}"
        );
        // One login; on MySQL and MariaDB, one account for each host.
        assert!(logins_named(kind, url, &name) > 0, "{kind}: {name} dropped");
        drop(login);
        assert_eq!(
            logins_named(kind, url, &name),
            0,
            "{kind}: {name} left behind"
        );
        assert_eq!(holder(&rt), None, "{kind}: the lease is still held");
    });
}

/// Runs `sql` over the MySQL administrative login at `url`.
fn mysql_admin(rt: &tokio::runtime::Runtime, url: &str, sql: &str) {
    rt.block_on(async {
        let mut admin = sqlx::MySqlConnection::connect(url).await.unwrap();
        admin.execute(AssertSqlSafe(sql.to_string())).await.unwrap();
    })
}
