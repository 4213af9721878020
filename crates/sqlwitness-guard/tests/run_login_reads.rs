//! The second line on MySQL and MariaDB: what a run's own login
//! (`RunLogin::create_reading`, granted its run's namespace only) can read
//! when a hostile query gets past the guard. Each read here goes to the
//! engine directly, the guard switched off, as the run login.
//!
//! What the server denies the login: another benchmark's database, even
//! its name (`information_schema.SCHEMATA`, `TABLES`, `COLUMNS`,
//! `SHOW DATABASES`), also inside an ODBC escape; another login's session
//! (`PROCESSLIST` lists the login's own only); other sessions' threads and
//! statements (`performance_schema.threads`, `events_statements_*`);
//! `mysql.*`, `sys.*`, InnoDB's transactions.
//!
//! What every login may read, whatever it is granted (no `REVOKE` takes it
//! away: MySQL answers 1147, MariaDB 1044 on `information_schema`): there
//! the guard is the only line, and this test asserts that the server
//! answers and that the guard refuses the text:
//! * server variables and status: `@@datadir`, `SHOW VARIABLES`; on MySQL
//!   `performance_schema.global_variables` (datadir, basedir, hostname),
//!   `variables_info`, `global_status`; on MariaDB
//!   `information_schema.GLOBAL_VARIABLES` and `GLOBAL_STATUS`;
//! * the login's own sessions with the text of what they run
//!   (`information_schema.PROCESSLIST`, `SHOW PROCESSLIST`, MySQL's
//!   `performance_schema.processlist`): a run's queries share its login, so
//!   a prediction running beside its own gold could read the gold's text.

use std::time::{Duration, Instant};

use sqlwitness_core::{Database, DbError, Engine, EngineKind, ErrorClass, QueryLimits, Value};
use sqlwitness_dialect::{builtin, Adapter};
use sqlwitness_engines::RunLogin;
use sqlwitness_guard::{guard_with, GuardOptions};
use sqlx::{AssertSqlSafe, Connection, Executor};

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn admin(url: &str, sql: &str) {
    rt().block_on(async {
        let mut c = sqlx::MySqlConnection::connect(url).await.unwrap();
        c.execute(sqlx::raw_sql(AssertSqlSafe(sql.to_string())))
            .await
            .unwrap();
    })
}

fn text(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Int(i) => i.to_string(),
        Value::Text(s) | Value::Decimal(s) => s.clone(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        other => format!("{other:?}"),
    }
}

/// One run login's view: its engine, the namespace its queries run in,
/// and the login itself.
struct View<'a> {
    kind: EngineKind,
    engine: &'a dyn Engine,
    db: Database,
    login: &'a RunLogin,
}

impl View<'_> {
    /// `sql` on the engine, the guard switched off: rows as text.
    fn read(&self, sql: &str) -> Result<Vec<Vec<String>>, DbError> {
        let limits = QueryLimits {
            timeout: Duration::from_secs(10),
            ..QueryLimits::default()
        };
        self.engine.execute(&self.db, sql, &limits).map(|r| {
            r.rows
                .iter()
                .map(|row| row.iter().map(text).collect())
                .collect()
        })
    }

    /// The first column of every row of `sql`.
    fn column(&self, sql: &str) -> Vec<String> {
        match self.read(sql) {
            Ok(rows) => rows.into_iter().map(|mut r| r.swap_remove(0)).collect(),
            Err(e) => panic!("{}: {sql}: {e}", self.kind),
        }
    }

    /// The server refuses `sql` to the login for lack of privilege (not,
    /// say, for its syntax).
    fn denied(&self, sql: &str) {
        match self.read(sql) {
            Ok(rows) => panic!("{}: read as the run login: {sql}: {rows:?}", self.kind),
            Err(e) => assert_eq!(
                e.class,
                ErrorClass::Refused,
                "{}: {sql}: {} {}",
                self.kind,
                e.code.unwrap_or_default(),
                e.message
            ),
        }
    }

    /// The guard refuses `sql` in the login's namespace.
    fn guard_refuses(&self, sql: &str) {
        let options = GuardOptions::default().in_namespace(&self.db.namespace);
        let refused = guard_with(sql, &builtin(self.kind), &options);
        assert!(refused.is_err(), "{}: the guard accepts {sql}", self.kind);
    }

    /// The server lets the login read `sql` (no grant can take it away):
    /// the guard must refuse it. The rows read.
    fn only_the_guard_stops(&self, sql: &str) -> Vec<Vec<String>> {
        self.guard_refuses(sql);
        match self.read(sql) {
            Ok(rows) => rows,
            Err(e) => panic!(
                "{}: {sql}: no longer readable ({e}): say so in RunLogin's documentation",
                self.kind
            ),
        }
    }
}

#[test]
fn a_run_login_reads_its_namespace_and_only_what_no_grant_can_deny() {
    sqlwitness_testkit::for_each_server(Some(Adapter::Mysql), |kind, url| {
        let own = sqlwitness_testkit::unique_name("swt_own");
        let other = sqlwitness_testkit::unique_name("swt_other");
        // A login that reads nothing makes sure the reader login exists.
        RunLogin::create_reading(kind, url, &[]).unwrap().release();
        let grant = |ns: &str| {
            format!(
                "GRANT SELECT ON `{}`.* TO 'sqlwitness_reader'@'%', 'sqlwitness_reader'@'localhost'",
                ns.replace('_', "\\_")
            )
        };
        let revoke = |ns: &str| {
            format!(
                "REVOKE SELECT ON `{}`.* FROM 'sqlwitness_reader'@'%', 'sqlwitness_reader'@'localhost'",
                ns.replace('_', "\\_")
            )
        };
        // Two benchmarks' copies, both readable by the reader, as migrate
        // leaves them.
        for ns in [&own, &other] {
            admin(
                url,
                &format!(
                    "CREATE DATABASE `{ns}`; CREATE TABLE `{ns}`.t (a int); \
                     INSERT INTO `{ns}`.t VALUES (1), (2); {}",
                    grant(ns)
                ),
            );
        }
        let login = RunLogin::create_reading(kind, url, std::slice::from_ref(&own)).unwrap();
        let opened = sqlwitness_engines::open(kind, Some(login.url()), 2).unwrap();
        assert!(
            opened.excess_privileges.is_empty(),
            "{kind}: {:?}",
            opened.excess_privileges
        );
        let view = View {
            kind,
            engine: opened.engine.as_ref(),
            db: Database::new(own.clone(), ""),
            login: &login,
        };
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            reads(&view, url, &own, &other)
        }));
        drop(opened);
        login.release();
        for ns in [&own, &other] {
            admin(url, &format!("DROP DATABASE `{ns}`; {}", revoke(ns)));
        }
        if let Err(panic) = outcome {
            std::panic::resume_unwind(panic);
        }
    });
}

fn reads(view: &View<'_>, url: &str, own: &str, other: &str) {
    let kind = view.kind;
    let login = view.login.name();
    let mysql = kind == EngineKind::Mysql;
    // Its own namespace.
    assert_eq!(view.column("SELECT count(*) FROM t"), ["2"], "{kind}");
    // Another benchmark's: neither its rows nor its name.
    let mut foreign_reads = vec![
        format!("SELECT count(*) FROM `{other}`.t"),
        format!("SELECT count(*) FROM {{ oj `{other}`.t }}"),
        format!("SELECT count(*) FROM {{ OJ /* x */ (`{other}`.t) }}"),
        format!("SELECT count(*) FROM {{ oj t LEFT JOIN `{other}`.t u ON 1 = 1 }}"),
        format!("SELECT {{ x (SELECT count(*) FROM `{other}`.t) }}"),
    ];
    if !mysql {
        // MariaDB takes any word where MySQL takes `OJ`.
        foreign_reads.push(format!("SELECT count(*) FROM {{ `x` `{other}`.t }}"));
    }
    for sql in &foreign_reads {
        view.denied(sql);
    }
    let seen_schemas = [own, "information_schema", "performance_schema"];
    for sql in [
        "SELECT schema_name FROM information_schema.schemata",
        "SELECT schema_name FROM { oj information_schema.schemata }",
        "SELECT DISTINCT table_schema FROM { oj information_schema.tables }",
        "SELECT DISTINCT table_schema FROM information_schema.columns",
        "SHOW DATABASES",
    ] {
        let names = view.column(sql);
        assert!(names.iter().any(|n| n == own), "{kind}: {sql}: {names:?}");
        let foreign: Vec<&String> = names
            .iter()
            .filter(|n| !seen_schemas.contains(&n.as_str()))
            .collect();
        assert!(foreign.is_empty(), "{kind}: {sql}: {foreign:?}");
    }
    // Its own grants only.
    let grantees =
        view.column("SELECT DISTINCT grantee FROM { oj information_schema.user_privileges }");
    assert!(
        grantees.iter().all(|g| g.contains(login)),
        "{kind}: {grantees:?}"
    );
    // The server's own schemas and other sessions' work.
    for sql in [
        "SELECT count(*) FROM mysql.user",
        "SELECT count(*) FROM sys.processlist",
        "SELECT count(*) FROM information_schema.innodb_trx",
        "SELECT count(*) FROM performance_schema.threads",
        "SELECT count(*) FROM performance_schema.events_statements_current",
        "SELECT count(*) FROM performance_schema.events_statements_history",
        "SELECT count(*) FROM performance_schema.variables_by_thread",
        "SELECT count(*) FROM performance_schema.user_variables_by_thread",
    ] {
        view.denied(sql);
    }
    if !mysql {
        // MariaDB: no performance_schema table at all (off by default;
        // when on, granted to no one).
        view.denied("SELECT count(*) FROM performance_schema.global_variables");
        view.denied("SELECT count(*) FROM performance_schema.processlist");
    }

    // What no grant can deny: the guard is the only line.
    let datadir = match kind {
        EngineKind::Mysql => view.only_the_guard_stops(
            "SELECT variable_value FROM performance_schema.global_variables \
             WHERE variable_name IN ('datadir', 'basedir')",
        ),
        _ => view.only_the_guard_stops(
            "SELECT variable_value FROM information_schema.global_variables \
             WHERE variable_name IN ('datadir', 'basedir')",
        ),
    };
    assert_eq!(datadir.len(), 2, "{kind}: {datadir:?}");
    assert!(
        datadir.iter().all(|r| r[0].starts_with('/')),
        "{kind}: {datadir:?}"
    );
    let variables = view.only_the_guard_stops("SELECT @@datadir");
    assert!(variables[0][0].starts_with('/'), "{kind}: {variables:?}");
    view.guard_refuses("SHOW VARIABLES LIKE 'datadir'");
    match view.read("SHOW VARIABLES LIKE 'datadir'") {
        Ok(rows) => assert_eq!(rows.len(), 1, "{kind}"),
        Err(e) => eprintln!("{kind}: SHOW VARIABLES through the engine: {}", e.message),
    }
    if mysql {
        for sql in [
            "SELECT count(*) FROM performance_schema.variables_info",
            "SELECT count(*) FROM performance_schema.global_status",
            "SELECT count(*) FROM performance_schema.session_status",
        ] {
            view.only_the_guard_stops(sql);
        }
    } else {
        view.only_the_guard_stops("SELECT count(*) FROM information_schema.global_status");
    }
    own_sessions(view, url);
}

/// The login's sessions and what they run: readable to the login itself
/// (the guard refuses it); another login's session is not listed.
fn own_sessions(view: &View<'_>, url: &str) {
    let kind = view.kind;
    let login = view.login.name();
    let marker = sqlwitness_testkit::unique_name("swt_marker");
    // A session of another login (the administrative one), idle.
    let admin_rt = rt();
    let mut other = admin_rt
        .block_on(sqlx::MySqlConnection::connect(url))
        .unwrap();
    let other_id: u64 = admin_rt
        .block_on(sqlx::query_scalar("SELECT CONNECTION_ID()").fetch_one(&mut other))
        .unwrap();
    // A query of the run beside the one that reads the list (a gold, say).
    let run_url = view.login.url().to_string();
    let beside = format!("SELECT SLEEP(3), '{marker}'");
    let running = std::thread::spawn(move || {
        rt().block_on(async {
            let mut c = sqlx::MySqlConnection::connect(&run_url).await.unwrap();
            sqlx::raw_sql(AssertSqlSafe(beside))
                .fetch_all(&mut c)
                .await
                .unwrap();
        })
    });
    let mut lists = vec![
        "SELECT user, id, info FROM information_schema.processlist",
        "SHOW PROCESSLIST",
    ];
    if kind == EngineKind::Mysql {
        lists.push("SELECT user, id, info FROM performance_schema.processlist");
    }
    for sql in lists {
        view.guard_refuses(sql);
        let deadline = Instant::now() + Duration::from_secs(3);
        let rows = loop {
            let rows = view
                .read(sql)
                .unwrap_or_else(|e| panic!("{kind}: {sql}: {e}"));
            let seen = rows.iter().any(|r| r.iter().any(|c| c.contains(&marker)));
            if seen || Instant::now() > deadline {
                break rows;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        // `SHOW PROCESSLIST`: Id, User, …, Info.
        let (user, id) = if sql.starts_with("SHOW") {
            (1, 0)
        } else {
            (0, 1)
        };
        assert!(
            rows.iter().all(|r| r[user] == login),
            "{kind}: {sql}: {rows:?}"
        );
        assert!(
            rows.iter().all(|r| r[id] != other_id.to_string()),
            "{kind}: {sql}: another login's session listed"
        );
        assert!(
            rows.iter().any(|r| r.iter().any(|c| c.contains(&marker))),
            "{kind}: {sql}: the run's other query is not listed: {rows:?}"
        );
    }
    running.join().unwrap();
    drop(other);
}
