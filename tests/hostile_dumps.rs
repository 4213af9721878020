//! Hostile dumps: a downloaded dump never owns the server.
//!
//! - The statement splitter reads a dump as its server will (settings that
//!   change where strings end are followed or refused), and each statement
//!   reaches the server in a form that refuses a second one.
//! - The loader login can do nothing else: no superuser, no server files,
//!   no roles, no events, limits on its role or account.
//! - The administrative login never runs the dump's code: a cast, an
//!   operator or a view the dump defines that raises when run never raises
//!   during the import; what the dump's triggers write is kept.
//! - What an import creates on a server is recorded before it exists: an
//!   import stopped by SIGTERM drops it as it exits; one killed outright
//!   leaves it to the next command against that server, which sweeps it.

#[path = "common/admin.rs"]
mod admin;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sqlwitness_core::EngineKind;
use sqlwitness_dialect::Adapter;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sqlwitness"))
}

fn adapter(kind: EngineKind) -> Adapter {
    sqlwitness_dialect::shipped(kind).adapter
}

fn import_command(kind: EngineKind, url: &str, dump: &Path, out: &Path) -> Command {
    let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_hd"));
    let mut c = bin();
    c.args([
        "import",
        "--engine",
        kind.as_str(),
        "--server",
        url,
        "--namespace-prefix",
        &prefix,
        "--no-source-copy",
        "--db-id",
        "d",
        "--out",
    ])
    .arg(out)
    .arg("--dump")
    .arg(dump);
    c
}

/// Imports `text` as a dump: the exit code, stderr and the report (when one
/// was written).
fn import(
    kind: EngineKind,
    url: &str,
    dir: &Path,
    name: &str,
    text: &str,
) -> (i32, String, serde_json::Value) {
    let dump = dir.join(format!("{kind}-{name}.sql"));
    std::fs::write(&dump, text).unwrap();
    let out = dir.join(format!("{kind}-{name}"));
    let o = import_command(kind, url, &dump, &out).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    eprintln!("{kind} {name}: {stderr}");
    let report = std::fs::read(out.join("import-report.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(serde_json::Value::Null);
    (o.status.code().unwrap_or(-1), stderr, report)
}

/// The rows of `table` in the SQLite file an import wrote, as text.
fn rows(dir: &Path, kind: EngineKind, name: &str, sql: &str) -> Vec<Vec<String>> {
    let db = rusqlite::Connection::open(dir.join(format!("{kind}-{name}/d/d.sqlite"))).unwrap();
    let mut stmt = db.prepare(sql).unwrap();
    let n = stmt.column_count();
    stmt.query_map([], |r| {
        (0..n)
            .map(|i| {
                r.get::<_, rusqlite::types::Value>(i).map(|v| match v {
                    rusqlite::types::Value::Text(t) => t,
                    rusqlite::types::Value::Integer(i) => i.to_string(),
                    other => format!("{other:?}"),
                })
            })
            .collect()
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// The issue's own attack: `standard_conforming_strings = off` hides a
/// function and a cast inside what a standard-strings reader takes for one
/// `SELECT`. The splitter follows the setting, so the dump's code is what
/// it is — created by the loader, run by nobody else: the cast, an `=`
/// operator and a view that raise (or would run a program) never run while
/// sqlwitness reads the tables and their keys, and the rows the dump's
/// trigger wrote are kept.
#[test]
fn the_administrator_runs_nothing_a_postgres_dump_defines() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("program-ran");
    let ran = sqlwitness_testkit::for_each_server(Some(Adapter::Postgres), |kind, url| {
        let dump = format!(
            r#"CREATE TYPE mood AS ENUM ('calm', 'angry');
CREATE TABLE kinds (m mood PRIMARY KEY);
CREATE TABLE person (id int PRIMARY KEY, m mood NOT NULL REFERENCES kinds (m));
CREATE TABLE log (n int);
CREATE FUNCTION log_row() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN INSERT INTO log VALUES (NEW.id); RETURN NEW; END$$;
CREATE TRIGGER logged AFTER INSERT ON person FOR EACH ROW EXECUTE FUNCTION log_row();
SET standard_conforming_strings = off;
SELECT 'x\''; CREATE FUNCTION loud(mood) RETURNS text LANGUAGE plpgsql AS $$BEGIN RAISE EXCEPTION 'the dump''s cast ran as %', current_user; END$$; CREATE CAST (mood AS text) WITH FUNCTION loud(mood); SELECT '';
SET standard_conforming_strings = on;
CREATE FUNCTION loud_eq(mood, mood) RETURNS boolean LANGUAGE plpgsql AS $$BEGIN RAISE EXCEPTION 'the dump''s operator ran as %', current_user; END$$;
CREATE OPERATOR public.= (LEFTARG = mood, RIGHTARG = mood, FUNCTION = loud_eq);
SET search_path = public, pg_catalog;
COPY kinds (m) FROM stdin;
calm
angry
\.
INSERT INTO person SELECT g, 'calm' FROM generate_series(1, 1000) g;
CREATE FUNCTION secret() RETURNS text LANGUAGE plpgsql AS $$BEGIN COPY (SELECT 1) TO PROGRAM 'touch {marker}'; RETURN 'x'; END$$;
CREATE VIEW leak AS SELECT secret() AS s;
"#,
            marker = marker.display()
        );
        let (code, stderr, report) = import(kind, url, dir.path(), "cast", &dump);
        assert_eq!(code, 0, "{kind}: {stderr}");
        assert!(!stderr.contains("ran as"), "{kind}: {stderr}");
        assert!(!marker.exists(), "{kind}: a program ran on the server");
        let people = rows(
            dir.path(),
            kind,
            "cast",
            "SELECT count(*), min(m), max(m) FROM person",
        );
        assert_eq!(people, [["1000", "calm", "calm"]], "{kind}");
        // Rows the dump's own trigger wrote during the load are kept.
        let log = rows(dir.path(), kind, "cast", "SELECT count(*) FROM log");
        assert_eq!(log, [["1000"]], "{kind}");
        let listed = report["not_created"].to_string();
        for object in [
            "function public.loud",
            "cast (public.mood AS text)",
            "operator public.=",
        ] {
            assert!(listed.contains(object), "{kind}: {object}: {listed}");
        }
        assert!(
            listed.contains("view public.leak: not carried"),
            "{kind}: {listed}"
        );
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// `CREATE EXTENSION` goes to the server, and privilege decides: the
/// loader (no superuser) gets the trusted `citext` in the load's own
/// database, while `dblink`, `file_fdw` and `adminpack` — which reach
/// other databases and the server's files — are refused by the server, so
/// the statements that use them fail and reach nothing; the other table
/// loads as psql loads it.
#[test]
fn only_the_extensions_the_server_trusts_are_created_by_a_dump() {
    let dir = tempfile::tempdir().unwrap();
    let ran = sqlwitness_testkit::for_each_server(Some(Adapter::Postgres), |kind, url| {
        let victim = sqlwitness_testkit::unique_name("swt_victim");
        pg_text(url, &format!("CREATE TABLE public.{victim} (n int)"));
        let dump = format!(
            r#"CREATE EXTENSION IF NOT EXISTS citext WITH SCHEMA public;
CREATE EXTENSION IF NOT EXISTS dblink WITH SCHEMA public;
CREATE EXTENSION IF NOT EXISTS file_fdw;
CREATE EXTENSION IF NOT EXISTS adminpack;
SELECT public.dblink_exec('dbname=test host=127.0.0.1', 'DROP TABLE public.{victim}');
CREATE TABLE person (id int PRIMARY KEY, email public.citext);
INSERT INTO person VALUES (1, 'Ann@Example.org');
"#
        );
        let (code, stderr, report) = import(kind, url, dir.path(), "ext", &dump);
        assert_eq!(code, 0, "{kind}: {stderr}");
        let rejected = report["rejected"].to_string();
        for refused in ["dblink", "file_fdw", "adminpack", "dblink_exec"] {
            assert!(rejected.contains(refused), "{kind}: {refused}: {rejected}");
        }
        assert_eq!(
            rows(
                dir.path(),
                kind,
                "ext",
                "SELECT count(*), max(email) FROM person"
            ),
            [["1", "Ann@Example.org"]],
            "{kind}"
        );
        // The table outside is still there.
        assert_eq!(
            pg_text(url, &format!("SELECT count(*)::text FROM public.{victim}")),
            "0"
        );
        pg_text(url, &format!("DROP TABLE public.{victim}"));
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// A setting that changes where strings end, changed by code the splitter
/// cannot read (a `DO` block's `set_config`), is found when the loader
/// reads its session back: the dump is refused at that line.
#[test]
fn a_lexing_setting_changed_by_the_dumps_code_is_refused_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let ran = sqlwitness_testkit::for_each_server(None, |kind, url| {
        let dump = match adapter(kind) {
            Adapter::Postgres => "CREATE TABLE t (x text);\n\
                 DO $$BEGIN PERFORM pg_catalog.set_config('standard_conforming_strings', 'off', false); END$$;\n\
                 INSERT INTO t VALUES ('a\\');\n",
            _ => "CREATE TABLE t (x text);\n\
                 CREATE PROCEDURE p() SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES';\n\
                 CALL p();\n\
                 INSERT INTO t VALUES ('a\\\\');\n",
        };
        let (code, stderr, _) = import(kind, url, dir.path(), "drift", dump);
        let line = if adapter(kind) == Adapter::Postgres {
            "line 2"
        } else {
            "line 3"
        };
        // MySQL restores the caller's sql_mode when a routine returns: there
        // the dump loads as written.
        if adapter(kind) == Adapter::Postgres || code != 0 {
            assert_eq!(code, 2, "{kind}: {stderr}");
            assert!(
                stderr.contains(line) && stderr.contains("refused"),
                "{kind}: {stderr}"
            );
        }
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// MySQL and MariaDB: `NO_BACKSLASH_ESCAPES` is followed, so the trigger a
/// backslash-escaping reader would take for part of a string is the
/// statement it is, created and run by the loader on its own table; a
/// `DELIMITER` whose line goes on, `PREPARE`/`EXECUTE`, `DATA DIRECTORY`
/// and events are refused or listed, never run.
#[test]
fn mysql_dumps_are_read_as_the_server_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let ran = sqlwitness_testkit::for_each_server(Some(Adapter::Mysql), |kind, url| {
        let dump = "CREATE TABLE t (id int PRIMARY KEY, s varchar(20));\n\
                    SET sql_mode = 'NO_BACKSLASH_ESCAPES';\n\
                    INSERT INTO t VALUES (1, 'a\\'); CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET NEW.s = 'rewritten'; INSERT INTO t VALUES (2, 'b'); -- ');\n\
                    SET sql_mode = '';\n\
                    CREATE EVENT e ON SCHEDULE EVERY 1 SECOND DO INSERT INTO t VALUES (99, 'event');\n";
        let (code, stderr, report) = import(kind, url, dir.path(), "nbe", dump);
        assert_eq!(code, 0, "{kind}: {stderr}");
        let got = rows(dir.path(), kind, "nbe", "SELECT id, s FROM t ORDER BY id");
        // With binary logging on (MySQL's default), a login without SUPER
        // may not create a trigger: listed with the server's reason.
        let listed = report["not_created"].to_string();
        if listed.contains("trigger tr: not created") {
            assert!(listed.contains("binary logging"), "{kind}: {listed}");
            assert_eq!(got, [["1", "a\\"], ["2", "b"]], "{kind}");
        } else {
            assert_eq!(got, [["1", "a\\"], ["2", "rewritten"]], "{kind}");
        }
        assert!(
            report["not_created"]
                .to_string()
                .contains("event e: not created"),
            "{kind}: {report}"
        );
        for (name, text, line) in [
            (
                "delimiter",
                "CREATE TABLE t (x int);\nDELIMITER // CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET NEW.x = 1 //\n",
                "line 2",
            ),
            (
                "prepare",
                "CREATE TABLE t (x int);\nSET @q = 'DROP TABLE t';\nPREPARE s FROM @q;\nEXECUTE s;\n",
                "line 3",
            ),
            (
                "directory",
                "CREATE TABLE t (x int) DATA DIRECTORY = '/tmp';\n",
                "line 1",
            ),
            (
                "charset",
                "SET NAMES gbk;\nSELECT 1;\n",
                "line 1",
            ),
            (
                "client",
                "SELECT 1;\nsystem touch /tmp/sw_evil\n",
                "line 2",
            ),
        ] {
            let (code, stderr, _) = import(kind, url, dir.path(), name, text);
            assert_eq!(code, 2, "{kind} {name}: {stderr}");
            assert!(
                stderr.contains(line) && stderr.contains("refused")
                    || stderr.contains(line) && stderr.contains("DELIMITER"),
                "{kind} {name}: {stderr}"
            );
        }
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// The loader's session refuses a text the server parses as two
/// statements, whatever the splitter made of it; and its login can do
/// nothing beyond its own namespace.
#[test]
fn the_loader_runs_one_statement_at_a_time_and_can_do_nothing_else() {
    let ran = sqlwitness_testkit::for_each_server(None, |kind, url| {
        let ns = sqlwitness_testkit::unique_name("sw_dump_t");
        let stamp = sqlwitness_core::Stamp::new("t", "dump", "dump-load");
        let mut dump = sqlwitness_engines::open_dump_namespace(
            kind,
            url,
            &ns,
            &stamp,
            Duration::from_secs(5),
            0,
        )
        .unwrap();
        dump.run("CREATE TABLE t (x int)".into(), Duration::from_secs(5))
            .unwrap();
        let two = dump.run(
            "INSERT INTO t VALUES (1); DROP TABLE t".into(),
            Duration::from_secs(5),
        );
        assert!(two.is_err(), "{kind}: two statements ran");
        // The table is still there and empty.
        dump.run("INSERT INTO t VALUES (2)".into(), Duration::from_secs(5))
            .unwrap();
        match adapter(kind) {
            Adapter::Postgres => {
                let role_of = format!(
                    "SELECT r.oid::int8 FROM pg_roles r JOIN pg_stat_activity a ON a.usename = r.rolname \
                     WHERE a.datname = '{ns}' AND a.application_name = 'sqlwitness dump loader' LIMIT 1"
                );
                let oid = admin::count(url, &role_of);
                let check = |cond: &str| {
                    admin::count(
                        url,
                        &format!(
                            "SELECT count(*) FROM pg_roles r WHERE r.oid = {oid} AND ({cond})"
                        ),
                    )
                };
                assert_eq!(
                    check("NOT rolsuper AND NOT rolcreaterole AND NOT rolcreatedb AND NOT rolreplication AND NOT rolbypassrls"),
                    1
                );
                for role in [
                    "pg_read_server_files",
                    "pg_write_server_files",
                    "pg_execute_server_program",
                ] {
                    assert_eq!(
                        check(&format!("pg_has_role(r.oid, '{role}', 'MEMBER')")),
                        0,
                        "{role}"
                    );
                }
                for setting in [
                    "statement_timeout",
                    "temp_file_limit",
                    "work_mem",
                    "idle_session_timeout",
                    "idle_in_transaction_session_timeout",
                ] {
                    assert_eq!(
                        admin::count(
                            url,
                            &format!(
                                "SELECT count(*) FROM pg_db_role_setting s, unnest(s.setconfig) c \
                                 WHERE s.setrole = {oid} AND c LIKE '{setting}=%'"
                            )
                        ),
                        1,
                        "{setting}"
                    );
                }
                assert_eq!(
                    check("EXISTS (SELECT 1 FROM pg_database d WHERE d.datdba = r.oid)"),
                    0,
                    "owns no database"
                );
            }
            _ => {
                let user = admin_text(
                    url,
                    &format!(
                        "SELECT CAST(USER AS CHAR) FROM information_schema.PROCESSLIST WHERE DB = '{ns}' LIMIT 1"
                    ),
                );
                let grants = admin_text(
                    url,
                    &format!(
                        "SELECT CAST(GROUP_CONCAT(PRIVILEGE_TYPE) AS CHAR) FROM information_schema.USER_PRIVILEGES \
                         WHERE GRANTEE = '''{user}''@''%'''"
                    ),
                );
                assert!(
                    grants.is_empty() || grants == "USAGE",
                    "{kind}: global privileges {grants}"
                );
                let db_grants = admin_text(
                    url,
                    &format!(
                        "SELECT CAST(GROUP_CONCAT(PRIVILEGE_TYPE) AS CHAR) FROM information_schema.SCHEMA_PRIVILEGES \
                         WHERE GRANTEE = '''{user}''@''%'''"
                    ),
                );
                assert!(!db_grants.contains("EVENT"), "{kind}: {db_grants}");
                assert!(db_grants.contains("TRIGGER"), "{kind}: {db_grants}");
                if kind == EngineKind::Mariadb {
                    let time = admin_text(
                        url,
                        &format!(
                            "SELECT CAST(max_statement_time AS CHAR) FROM mysql.user WHERE user = '{user}' AND host = '%'"
                        ),
                    );
                    assert!(time.parse::<f64>().unwrap() > 0.0, "{kind}: {time}");
                }
            }
        }
        dump.close().unwrap();
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// The first column of the first row of `sql` as text (MySQL, MariaDB);
/// empty when there is none.
fn admin_text(url: &str, sql: &str) -> String {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut c = <sqlx::MySqlConnection as sqlx::Connection>::connect(url)
            .await
            .unwrap();
        sqlx::query_scalar::<_, Option<String>>(sqlx::AssertSqlSafe(sql.to_string()))
            .fetch_optional(&mut c)
            .await
            .unwrap()
            .flatten()
            .unwrap_or_default()
    })
}

/// The loader login and database of the import whose statement carries
/// `marker`, once it runs (waiting up to 60 s).
fn running_loader(
    kind: EngineKind,
    url: &str,
    marker: &str,
    child: &mut Child,
) -> (String, String) {
    let started = Instant::now();
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{kind}: the import ended before its statement ran: {status}");
        }
        let found = match adapter(kind) {
            Adapter::Postgres => {
                let n = admin::count(
                    url,
                    &format!(
                        "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%{marker}%' \
                         AND application_name = 'sqlwitness dump loader'"
                    ),
                );
                (n > 0).then(|| {
                    (
                        pg_text(url, &format!("SELECT usename::text FROM pg_stat_activity WHERE query LIKE '%{marker}%' AND application_name = 'sqlwitness dump loader' LIMIT 1")),
                        pg_text(url, &format!("SELECT datname::text FROM pg_stat_activity WHERE query LIKE '%{marker}%' AND application_name = 'sqlwitness dump loader' LIMIT 1")),
                    )
                })
            }
            _ => {
                let user = admin_text(
                    url,
                    &format!("SELECT CAST(USER AS CHAR) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%{marker}%' AND USER LIKE 'sw_load_%' LIMIT 1"),
                );
                (!user.is_empty()).then(|| {
                    let db = admin_text(
                        url,
                        &format!("SELECT CAST(DB AS CHAR) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%{marker}%' AND USER LIKE 'sw_load_%' LIMIT 1"),
                    );
                    (user, db)
                })
            }
        };
        if let Some(found) = found {
            return found;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{kind}: the import's statement never ran"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn pg_text(url: &str, sql: &str) -> String {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut c = <sqlx::PgConnection as sqlx::Connection>::connect(url)
            .await
            .unwrap();
        sqlx::query_scalar::<_, Option<String>>(sqlx::AssertSqlSafe(sql.to_string()))
            .fetch_optional(&mut c)
            .await
            .unwrap()
            .flatten()
            .unwrap_or_default()
    })
}

/// Whether the login `user` or the database `db` still exists, or a
/// session of the login still runs.
fn left_behind(kind: EngineKind, url: &str, user: &str, db: &str) -> Vec<String> {
    let mut left = Vec::new();
    match adapter(kind) {
        Adapter::Postgres => {
            if admin::count(
                url,
                &format!("SELECT count(*) FROM pg_roles WHERE rolname = '{user}'"),
            ) > 0
            {
                left.push(format!("login {user}"));
            }
            if admin::count(
                url,
                &format!("SELECT count(*) FROM pg_database WHERE datname = '{db}'"),
            ) > 0
            {
                left.push(format!("database {db}"));
            }
            if admin::count(
                url,
                &format!("SELECT count(*) FROM pg_stat_activity WHERE usename = '{user}'"),
            ) > 0
            {
                left.push(format!("a session of {user}"));
            }
        }
        _ => {
            if !admin_text(
                url,
                &format!("SELECT CAST(user AS CHAR) FROM mysql.user WHERE user = '{user}' LIMIT 1"),
            )
            .is_empty()
            {
                left.push(format!("login {user}"));
            }
            if !admin_text(url, &format!("SELECT CAST(SCHEMA_NAME AS CHAR) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '{db}'")).is_empty() {
                left.push(format!("database {db}"));
            }
            if !admin_text(url, &format!("SELECT CAST(USER AS CHAR) FROM information_schema.PROCESSLIST WHERE USER = '{user}' LIMIT 1")).is_empty() {
                left.push(format!("a session of {user}"));
            }
        }
    }
    left
}

fn sleeping_dump(kind: EngineKind, marker: &str) -> String {
    match adapter(kind) {
        Adapter::Postgres => {
            format!("CREATE TABLE t (x int);\nSELECT pg_sleep(120) AS {marker};\n")
        }
        _ => format!("CREATE TABLE t (x int);\nSELECT SLEEP(120) AS {marker};\n"),
    }
}

/// Starts an import of a dump whose second statement sleeps (its marker a
/// name of `name`'s), and waits until it runs: the child, and the loader
/// login and database running it.
fn sleeping_import(kind: EngineKind, url: &str, dir: &Path, name: &str) -> (Child, String, String) {
    let marker = sqlwitness_testkit::unique_name(name);
    let dump = dir.join(format!("{kind}-{name}.sql"));
    std::fs::write(&dump, sleeping_dump(kind, &marker)).unwrap();
    let mut child = import_command(kind, url, &dump, &dir.join(format!("{kind}-{name}")))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (user, db) = running_loader(kind, url, &marker, &mut child);
    (child, user, db)
}

/// SIGTERM: the import drops its database and loader login (ending the
/// statement) before it exits.
#[test]
fn an_import_stopped_by_sigterm_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let ran = sqlwitness_testkit::for_each_server(None, |kind, url| {
        let (mut child, user, db) = sleeping_import(kind, url, dir.path(), "swt_term");
        let pid = child.id().to_string();
        Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(130), "{kind}");
        assert_eq!(
            left_behind(kind, url, &user, &db),
            Vec::<String>::new(),
            "{kind}"
        );
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// kill -9: nothing can run in the import, so its database and login stay
/// — until the next command against that server, which ends their
/// sessions and drops them (and leaves another run's, still going, alone).
#[test]
fn what_a_killed_import_left_is_swept_by_the_next_command() {
    let dir = tempfile::tempdir().unwrap();
    let ran = sqlwitness_testkit::for_each_server(None, |kind, url| {
        let (mut live, live_user, live_db) = sleeping_import(kind, url, dir.path(), "swt_live");
        let (mut child, user, db) = sleeping_import(kind, url, dir.path(), "swt_kill");
        child.kill().unwrap();
        child.wait().unwrap();

        // The next command against the server: another import.
        let next = dir.path().join(format!("{kind}-next.sql"));
        std::fs::write(&next, "CREATE TABLE t (x int);\n").unwrap();
        let o = import_command(kind, url, &next, &dir.path().join(format!("{kind}-next")))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{kind}: {stderr}");
        // Swept by this command, or by another test's that came first.
        assert_eq!(
            left_behind(kind, url, &user, &db),
            Vec::<String>::new(),
            "{kind}"
        );
        // The run still going kept its own.
        let still = left_behind(kind, url, &live_user, &live_db);
        assert!(
            still.contains(&format!("database {live_db}")),
            "{kind}: {still:?}"
        );
        live.kill().unwrap();
        live.wait().unwrap();
        // The server ends a killed client's session (and lets its lease go)
        // when it notices the connection closed: a sweep right after the
        // kill may still find the lease held, and the next one does not.
        let mut left = Vec::new();
        for _ in 0..50 {
            sqlwitness_engines::sweep_again(kind, url).unwrap();
            left = left_behind(kind, url, &live_user, &live_db);
            if left.is_empty() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        assert_eq!(left, Vec::<String>::new(), "{kind}");
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// A run login is recorded under its run's lease too: an `eval` killed
/// outright leaves it, and the next command against the server drops it.
#[test]
fn a_killed_evals_run_login_is_swept_by_the_next_command() {
    let dir = tempfile::tempdir().unwrap();
    let ran = sqlwitness_testkit::for_each_server(None, |kind, url| {
        let marker = sqlwitness_testkit::unique_name("swt_runlogin");
        let joins = (0..11)
            .map(|i| format!("singer s{i}"))
            .collect::<Vec<_>>()
            .join(", ");
        let pred = dir.path().join(format!("{kind}-pred.sql"));
        // The first of concert_singer's questions (the first of Spider dev)
        // runs long; a prediction for every question, as the format wants.
        let sum = (0..11)
            .map(|i| format!("s{i}.Age"))
            .collect::<Vec<_>>()
            .join(" + ");
        let mut lines = vec![format!("SELECT sum({sum}) AS {marker} FROM {joins}")];
        lines.resize(1034, "SELECT 1".to_string());
        std::fs::write(&pred, lines.join("\n") + "\n").unwrap();
        let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_rl"));
        let mut child = bin()
            .args(["eval", "--bench"])
            .arg(sqlwitness_testkit::example_spider())
            .args([
                "--split",
                "dev",
                "--db",
                "concert_singer",
                "--limit",
                "1",
                "--engines",
                kind.as_str(),
                "--server",
                &format!("{kind}={url}"),
                "--namespace-prefix",
                &prefix,
                "--timeout",
                "120",
                "-q",
                "--pred",
            ])
            .arg(&pred)
            .arg("--out")
            .arg(dir.path().join(format!("{kind}-out")))
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let login = loop {
            let found = match adapter(kind) {
                Adapter::Postgres => pg_text(
                    url,
                    &format!(
                        "SELECT usename::text FROM pg_stat_activity WHERE query LIKE '%{marker}%' \
                         AND usename LIKE 'sqlwitness_run_%' LIMIT 1"
                    ),
                ),
                _ => admin_text(
                    url,
                    &format!(
                        "SELECT CAST(USER AS CHAR) FROM information_schema.PROCESSLIST \
                         WHERE INFO LIKE '%{marker}%' AND USER LIKE 'sqlwitness_run_%' LIMIT 1"
                    ),
                ),
            };
            if !found.is_empty() {
                break found;
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!("{kind}: eval ended before its prediction ran: {status}");
            }
            assert!(started.elapsed() < Duration::from_secs(120), "{kind}");
            std::thread::sleep(Duration::from_millis(200));
        };
        child.kill().unwrap();
        child.wait().unwrap();
        // The killed run's sessions end as the server notices; the sweep
        // drops the login once its lease is let go.
        let exists = || match adapter(kind) {
            Adapter::Postgres => {
                admin::count(
                    url,
                    &format!("SELECT count(*) FROM pg_roles WHERE rolname = '{login}'"),
                ) > 0
            }
            _ => !admin_text(
                url,
                &format!(
                    "SELECT CAST(user AS CHAR) FROM mysql.user WHERE user = '{login}' LIMIT 1"
                ),
            )
            .is_empty(),
        };
        let started = Instant::now();
        while exists() && started.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(200));
            sqlwitness_engines::sweep_again(kind, url).unwrap();
        }
        assert!(!exists(), "{kind}: {login} is still there");
        let target = sqlwitness_migrate::MigrationTarget::new(kind, url);
        let _ = sqlwitness_migrate::drop_namespace(&target, &format!("{prefix}concert_singer"));
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}
