//! The privilege model: predictions run over a connection that
//! *authenticates* as a least-privilege login, so nothing inside a query can
//! climb back to the administrative login (`SET ROLE` undone by
//! `set_config('role', …)`, a superuser's `pg_read_file`, MySQL's `FILE`).
//!
//! * The administrative URL (`SQLWITNESS_<ENGINE>_URL`) migrates databases
//!   and, on the same connection, creates the reader login
//!   [`READER_LOGIN`] and grants it read access to each migrated namespace
//!   and nothing else ([`grant_postgres`], [`grant_mysql`]).
//! * Queries run over the reader URL: given explicitly
//!   (`SQLWITNESS_<ENGINE>_READER_URL`) or derived from the administrative
//!   one with the reader's name and password ([`reader_url`]).
//! * Every server engine checks at connect time what its login may do
//!   ([`postgres_excess_privileges`], [`mysql_excess_privileges`]); a run
//!   refuses a login with more than read access to the benchmark copies.

use sqlwitness_core::EngineKind;

use crate::EngineError;

/// The reader login's name on every server.
pub const READER_LOGIN: &str = "sqlwitness_reader";

/// The environment variable holding the reader's password.
pub const READER_PASSWORD_ENV: &str = "SQLWITNESS_READER_PASSWORD";

/// The reader's password when [`READER_PASSWORD_ENV`] is not set. The login
/// can read only the migrated benchmark copies; set a password of your own
/// on a server other people can reach.
pub const DEFAULT_READER_PASSWORD: &str = "sqlwitness-reader";

/// The reader's password: [`READER_PASSWORD_ENV`], else the default.
pub fn reader_password() -> String {
    std::env::var(READER_PASSWORD_ENV)
        .ok()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| DEFAULT_READER_PASSWORD.to_string())
}

/// The reader URL derived from an administrative URL: same host, port and
/// options, user [`READER_LOGIN`] with [`reader_password`]; on PostgreSQL
/// the same database (the schemas live there), on MySQL no default
/// database (the reader may use only the benchmark databases).
pub fn reader_url(kind: EngineKind, admin_url: &str) -> Result<String, EngineError> {
    let mut u = url::Url::parse(admin_url)
        .map_err(|e| EngineError::connect(kind, admin_url, format!("not a URL: {e}")))?;
    let bad = |what: &str| EngineError::connect(kind, admin_url, format!("cannot set the {what}"));
    u.set_username(READER_LOGIN).map_err(|_| bad("user"))?;
    u.set_password(Some(&reader_password()))
        .map_err(|_| bad("password"))?;
    if sqlwitness_dialect::shipped(kind).adapter == sqlwitness_dialect::Adapter::Mysql {
        u.set_path("");
    }
    Ok(u.to_string())
}

/// A single-quoted SQL string literal (quotes doubled; backslashes doubled
/// too, for MySQL without `NO_BACKSLASH_ESCAPES`).
#[cfg_attr(not(any(feature = "postgres", feature = "mysql")), allow(dead_code))]
fn literal(s: &str, backslashes: bool) -> String {
    let mut out = s.replace('\'', "''");
    if backslashes {
        out = out.replace('\\', "\\\\");
    }
    format!("'{out}'")
}

/// Grants the reader `USAGE` on schema `ns` and `SELECT` on its tables,
/// creating the login first when it does not exist (`LOGIN`, no superuser,
/// no `CREATEDB`/`CREATEROLE`/replication/`BYPASSRLS`, `NOINHERIT`, with a
/// `temp_file_limit` only an administrator can lift). Runs on the
/// administrative connection that migrated `ns`. Returns notes for the
/// migration log.
#[cfg(feature = "postgres")]
pub async fn grant_postgres(
    conn: &mut sqlx::PgConnection,
    ns: &str,
) -> Result<Vec<String>, sqlx::Error> {
    let mut notes = ensure_reader_postgres(&mut *conn).await?;
    notes.extend(grant_schema_postgres(conn, ns).await?);
    Ok(notes)
}

/// Grants the (ready) reader login `USAGE` on schema `ns` and `SELECT` on
/// its tables, and nothing else.
#[cfg(feature = "postgres")]
pub async fn grant_schema_postgres(
    conn: &mut sqlx::PgConnection,
    ns: &str,
) -> Result<Vec<String>, sqlx::Error> {
    use sqlx::{AssertSqlSafe, Executor};
    let mut notes = Vec::new();
    let q = format!("\"{}\"", ns.replace('"', "\"\""));
    let grant = format!(
        "GRANT USAGE ON SCHEMA {q} TO {READER_LOGIN}; \
         GRANT SELECT ON ALL TABLES IN SCHEMA {q} TO {READER_LOGIN}"
    );
    conn.execute(sqlx::raw_sql(AssertSqlSafe(grant))).await?;
    notes.push(format!(
        "granted USAGE on the schema and SELECT on its tables to {READER_LOGIN}"
    ));
    Ok(notes)
}

/// Creates the reader login when missing (or resets its attributes) and
/// sets its limits; nothing when it is already as it should be. A
/// migration of many databases calls it once before migrating them in
/// parallel (concurrent role changes conflict on PostgreSQL).
#[cfg(feature = "postgres")]
pub async fn ensure_reader_postgres(
    conn: &mut sqlx::PgConnection,
) -> Result<Vec<String>, sqlx::Error> {
    use sqlx::{AssertSqlSafe, Executor};
    let mut notes = Vec::new();
    let row: Option<(bool, bool, bool, bool, bool, bool)> = sqlx::query_as(
        "SELECT rolcanlogin, rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls \
         FROM pg_roles WHERE rolname = $1",
    )
    .bind(READER_LOGIN)
    .fetch_optional(&mut *conn)
    .await?;
    let attrs = "LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT";
    let password = literal(&reader_password(), false);
    match row {
        None => {
            let create = format!(
                "DO $sw$ BEGIN CREATE ROLE {READER_LOGIN} {attrs} PASSWORD {password}; \
                 EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $sw$"
            );
            conn.execute(sqlx::raw_sql(AssertSqlSafe(create))).await?;
            notes.push(format!("created the login {READER_LOGIN} ({attrs})"));
        }
        Some((login, sup, db, role, repl, rls)) if !login || sup || db || role || repl || rls => {
            let alter = format!("ALTER ROLE {READER_LOGIN} {attrs} PASSWORD {password}");
            conn.execute(sqlx::raw_sql(AssertSqlSafe(alter))).await?;
            notes.push(format!("reset the login {READER_LOGIN} to {attrs}"));
        }
        Some(_) => {}
    }
    let has_limit: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole \
         WHERE r.rolname = $1 AND s.setdatabase = 0 \
         AND EXISTS (SELECT 1 FROM unnest(s.setconfig) c WHERE c LIKE 'temp_file_limit=%'))",
    )
    .bind(READER_LOGIN)
    .fetch_one(&mut *conn)
    .await?;
    if !has_limit {
        let settings = format!(
            "ALTER ROLE {READER_LOGIN} SET temp_file_limit = '1GB'; \
             ALTER ROLE {READER_LOGIN} SET idle_in_transaction_session_timeout = '5min'"
        );
        conn.execute(sqlx::raw_sql(AssertSqlSafe(settings))).await?;
    }
    Ok(notes)
}

/// Grants the reader `SELECT` on database `ns` (and nothing else),
/// creating the login for hosts `%` and `localhost` when missing. Runs on
/// the administrative connection that migrated `ns`.
#[cfg(feature = "mysql")]
pub async fn grant_mysql(
    conn: &mut sqlx::MySqlConnection,
    ns: &str,
) -> Result<Vec<String>, sqlx::Error> {
    ensure_reader_mysql(&mut *conn).await?;
    grant_database_mysql(conn, ns).await
}

/// Grants the (ready) reader login `SELECT` on database `ns`, and nothing
/// else.
#[cfg(feature = "mysql")]
pub async fn grant_database_mysql(
    conn: &mut sqlx::MySqlConnection,
    ns: &str,
) -> Result<Vec<String>, sqlx::Error> {
    use sqlx::{AssertSqlSafe, Executor};
    let users = format!("'{READER_LOGIN}'@'%', '{READER_LOGIN}'@'localhost'");
    let grant = format!("GRANT SELECT ON {}.* TO {users}", grant_db(ns));
    conn.execute(sqlx::raw_sql(AssertSqlSafe(grant))).await?;
    Ok(vec![format!(
        "granted SELECT on the database to {READER_LOGIN}"
    )])
}

/// Creates the reader login for hosts `%` and `localhost` when missing and
/// sets its password.
#[cfg(feature = "mysql")]
pub async fn ensure_reader_mysql(conn: &mut sqlx::MySqlConnection) -> Result<(), sqlx::Error> {
    use sqlx::{AssertSqlSafe, Executor};
    let password = literal(&reader_password(), true);
    for host in ["%", "localhost"] {
        let create = format!(
            "CREATE USER IF NOT EXISTS '{READER_LOGIN}'@'{host}' IDENTIFIED BY {password}; \
             ALTER USER '{READER_LOGIN}'@'{host}' IDENTIFIED BY {password}"
        );
        conn.execute(sqlx::raw_sql(AssertSqlSafe(create))).await?;
    }
    Ok(())
}

/// Takes back the reader's grant on database `ns` (MySQL keeps
/// database-level grants after `DROP DATABASE`). Missing grants are fine.
#[cfg(feature = "mysql")]
pub async fn revoke_mysql(conn: &mut sqlx::MySqlConnection, ns: &str) -> Result<(), sqlx::Error> {
    use sqlx::{AssertSqlSafe, Executor};
    for host in ["%", "localhost"] {
        let revoke = format!(
            "REVOKE SELECT ON {}.* FROM '{READER_LOGIN}'@'{host}'",
            grant_db(ns)
        );
        if let Err(e) = conn.execute(sqlx::raw_sql(AssertSqlSafe(revoke))).await {
            // 1141: no such grant; 1269/1396: no such user.
            let known = e
                .as_database_error()
                .and_then(|d| d.code())
                .is_some_and(|c| matches!(c.as_ref(), "42000" | "HY000"));
            if !known {
                return Err(e);
            }
        }
    }
    Ok(())
}

/// A database name as a database-level `GRANT` needs it: backquoted, with
/// `_` and `%` (wildcards there) escaped so the grant names this database
/// only.
#[cfg_attr(not(feature = "mysql"), allow(dead_code))]
fn grant_db(ns: &str) -> String {
    let db = ns
        .replace('`', "``")
        .replace('\\', "\\\\")
        .replace('_', "\\_")
        .replace('%', "\\%");
    format!("`{db}`")
}

/// What the connected PostgreSQL login may do beyond reading: superuser,
/// role attributes, and membership in the roles that reach server files or
/// other sessions. Empty for a least-privilege login.
#[cfg(feature = "postgres")]
pub(crate) async fn postgres_excess_privileges(
    conn: &mut sqlx::PgConnection,
) -> Result<Vec<String>, sqlx::Error> {
    let (sup, db, role, repl, rls): (bool, bool, bool, bool, bool) = sqlx::query_as(
        "SELECT rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls \
         FROM pg_roles WHERE rolname = current_user",
    )
    .fetch_one(&mut *conn)
    .await?;
    let mut out = Vec::new();
    for (flag, name) in [
        (sup, "SUPERUSER"),
        (db, "CREATEDB"),
        (role, "CREATEROLE"),
        (repl, "REPLICATION"),
        (rls, "BYPASSRLS"),
    ] {
        if flag {
            out.push(name.to_string());
        }
    }
    let members: Vec<String> = sqlx::query_scalar(
        "SELECT rolname::text FROM pg_roles WHERE rolname IN ('pg_read_server_files', \
         'pg_write_server_files', 'pg_execute_server_program', 'pg_signal_backend', \
         'pg_write_all_data', 'pg_read_all_settings', 'pg_monitor') \
         AND pg_has_role(current_user, oid, 'MEMBER') ORDER BY 1",
    )
    .fetch_all(&mut *conn)
    .await?;
    out.extend(members.into_iter().map(|m| format!("member of {m}")));
    Ok(out)
}

/// What the connected MySQL/MariaDB login may do beyond `SELECT` on
/// databases: every grant line that names global or `mysql.*` privileges,
/// anything but `SELECT`, a role, or `GRANT OPTION`. Empty for a
/// least-privilege login.
#[cfg(feature = "mysql")]
pub(crate) async fn mysql_excess_privileges(
    conn: &mut sqlx::MySqlConnection,
) -> Result<Vec<String>, sqlx::Error> {
    use sqlx::Row;
    let rows = sqlx::query("SHOW GRANTS").fetch_all(&mut *conn).await?;
    let mut out = Vec::new();
    for row in rows {
        let line: String = row
            .try_get::<String, _>(0)
            .or_else(|_| {
                row.try_get::<Vec<u8>, _>(0)
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
            })
            .unwrap_or_default();
        if let Some(reason) = grant_line_excess(&line) {
            out.push(reason);
        }
    }
    Ok(out)
}

/// Why one `SHOW GRANTS` line gives more than read access, if it does.
#[cfg_attr(not(feature = "mysql"), allow(dead_code))]
fn grant_line_excess(line: &str) -> Option<String> {
    let upper = line.to_ascii_uppercase();
    let short: String = line.chars().take(120).collect();
    if !upper.starts_with("GRANT ") {
        return None;
    }
    if upper.contains("WITH GRANT OPTION") {
        return Some(format!("GRANT OPTION: {short}"));
    }
    let Some(on) = upper.find(" ON ") else {
        return Some(format!("a role: {short}"));
    };
    let privs = upper[6..on].trim();
    let rest = &upper[on + 4..];
    let object = rest.split(" TO ").next().unwrap_or("").trim();
    if object == "*.*" {
        return (privs != "USAGE").then(|| format!("global privileges: {short}"));
    }
    if object.starts_with("`MYSQL`.") || object.starts_with("MYSQL.") {
        return Some(format!("access to the mysql schema: {short}"));
    }
    let only_select = privs.split(',').all(|p| p.trim() == "SELECT");
    (!only_select).then(|| format!("more than SELECT: {short}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_urls_keep_the_server_and_change_the_login() {
        let pg = reader_url(EngineKind::Postgres, "postgres://root@127.0.0.1:5432/test").unwrap();
        assert!(pg.starts_with("postgres://sqlwitness_reader:"), "{pg}");
        assert!(pg.ends_with("@127.0.0.1:5432/test"), "{pg}");
        let my = reader_url(
            EngineKind::Mysql,
            "mysql://root:pw@127.0.0.1:3306/test?ssl-mode=disabled",
        )
        .unwrap();
        assert!(my.starts_with("mysql://sqlwitness_reader:"), "{my}");
        assert!(my.ends_with("@127.0.0.1:3306?ssl-mode=disabled"), "{my}");
        assert!(!my.contains("root") && !my.contains(":pw@"), "{my}");
        assert!(reader_url(EngineKind::Postgres, "not a url").is_err());
    }

    #[test]
    fn grant_lines_are_judged() {
        let ok = [
            "GRANT USAGE ON *.* TO `sqlwitness_reader`@`%` IDENTIFIED BY PASSWORD '*AB'",
            "GRANT SELECT ON `concert\\_singer`.* TO `sqlwitness_reader`@`%`",
        ];
        for l in ok {
            assert_eq!(grant_line_excess(l), None, "{l}");
        }
        let bad = [
            "GRANT ALL PRIVILEGES ON *.* TO `root`@`127.0.0.1` WITH GRANT OPTION",
            "GRANT FILE ON *.* TO `x`@`%`",
            "GRANT SELECT ON `mysql`.* TO `x`@`%`",
            "GRANT SELECT, INSERT ON `db`.* TO `x`@`%`",
            "GRANT `admin_role` TO `x`@`%`",
        ];
        for l in bad {
            assert!(grant_line_excess(l).is_some(), "{l}");
        }
        assert_eq!(literal("a'b\\c", true), "'a''b\\\\c'");
        assert_eq!(grant_db("concert_singer"), "`concert\\_singer`");
    }
}
