//! The reader login on MySQL and MariaDB: created for hosts `%` and
//! `localhost`, granted `SELECT` on each migrated database; and what a
//! connected login may do beyond `SELECT`.

use crate::login::{literal, reader_password, RunReads, READER_LOGIN};

/// Grants the (ready) reader login `SELECT` on database `ns`, and nothing
/// else.
pub(crate) async fn grant_database_mysql(
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
pub(crate) async fn ensure_reader_mysql(
    conn: &mut sqlx::MySqlConnection,
) -> Result<(), sqlx::Error> {
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
pub(crate) async fn revoke_mysql(
    conn: &mut sqlx::MySqlConnection,
    ns: &str,
) -> Result<(), sqlx::Error> {
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
pub(crate) fn grant_db(ns: &str) -> String {
    format!("`{}`", grant_pattern(ns).replace('`', "``"))
}

/// A database name as the grant tables keep it (`mysql.db.Db`): `\`, `_`
/// and `%` escaped with a backslash.
fn grant_pattern(ns: &str) -> String {
    ns.replace('\\', "\\\\")
        .replace('_', "\\_")
        .replace('%', "\\%")
}

/// What the connected MySQL/MariaDB login may do beyond `SELECT` on
/// databases: every grant line that names global or `mysql.*` privileges,
/// anything but `SELECT`, a role, or `GRANT OPTION`. Empty for a
/// least-privilege login.
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

/// Creates the run login `name` (see [`crate::RunLogin`]) for hosts `%`
/// and `localhost` with `SELECT` on the databases of `reads` that the
/// reader login may read (all of the reader's for [`RunReads::Reader`]),
/// and nothing else; first drops the run logins earlier runs left behind
/// (created before `stale_before`, no session).
pub(crate) fn create_run_login(
    admin_url: &str,
    name: &str,
    password: &str,
    stale_before: u64,
    reads: RunReads<'_>,
) -> Result<(), sqlx::Error> {
    use sqlx::{AssertSqlSafe, Connection, Executor};
    crate::login::block_on(async {
        let mut conn = sqlx::MySqlConnection::connect(admin_url).await?;
        let users: Vec<String> = sqlx::query_scalar(
            "SELECT DISTINCT CAST(User AS CHAR) FROM mysql.user WHERE User LIKE 'sqlwitness\\_run\\_%' \
             AND User NOT IN (SELECT USER FROM information_schema.PROCESSLIST WHERE USER IS NOT NULL)",
        )
        .fetch_all(&mut conn)
        .await?;
        for stale in users.iter().filter(|n| {
            crate::login::run_login_created(n).is_some_and(|created| created < stale_before)
        }) {
            let _ = conn
                .execute(AssertSqlSafe(format!(
                    "DROP USER IF EXISTS {}",
                    accounts(stale)
                )))
                .await;
        }
        ensure_reader_mysql(&mut conn).await?;
        let p = literal(password, true);
        conn.execute(AssertSqlSafe(format!(
            "CREATE USER '{name}'@'%' IDENTIFIED BY {p}, '{name}'@'localhost' IDENTIFIED BY {p}"
        )))
        .await?;
        // Database names as the grant table keeps them: wildcards escaped.
        let granted: Vec<String> = sqlx::query_scalar(
            "SELECT CAST(Db AS CHAR) FROM mysql.db WHERE User = ? AND Host = '%' \
             AND Select_priv = 'Y'",
        )
        .bind(READER_LOGIN)
        .fetch_all(&mut conn)
        .await?;
        let folded: i64 = sqlx::query_scalar("SELECT CAST(@@lower_case_table_names AS SIGNED)")
            .fetch_one(&mut conn)
            .await?;
        for db in granted
            .iter()
            .filter(|db| copies_grant(reads, db, folded != 0))
        {
            let grant = format!(
                "GRANT SELECT ON `{}`.* TO {}",
                db.replace('`', "``"),
                accounts(name)
            );
            conn.execute(AssertSqlSafe(grant)).await?;
        }
        conn.close().await
    })
}

/// Whether `reads` asks for the reader's grant on `db` (a `mysql.db` row:
/// wildcards escaped); `folded`: the server compares database names in any
/// case (`lower_case_table_names`).
fn copies_grant(reads: RunReads<'_>, db: &str, folded: bool) -> bool {
    match reads {
        RunReads::Reader => true,
        RunReads::Only(namespaces) => namespaces.iter().any(|ns| {
            let pattern = grant_pattern(ns);
            if folded {
                pattern.eq_ignore_ascii_case(db)
            } else {
                pattern == db
            }
        }),
    }
}

/// Drops the run login `name` (both hosts).
pub(crate) fn drop_run_login(admin_url: &str, name: &str) -> Result<(), sqlx::Error> {
    use sqlx::{AssertSqlSafe, Connection, Executor};
    if crate::login::run_login_created(name).is_none() {
        return Ok(());
    }
    crate::login::block_on(async {
        let mut conn = sqlx::MySqlConnection::connect(admin_url).await?;
        conn.execute(AssertSqlSafe(format!(
            "DROP USER IF EXISTS {}",
            accounts(name)
        )))
        .await?;
        conn.close().await
    })
}

/// Grants run login `name` `SELECT` on database `ns`, made after the
/// login was: a MySQL or MariaDB login holds copies of the reader's grants
/// taken when it was created, not the reader's later ones.
pub(crate) fn grant_run_login(admin_url: &str, name: &str, ns: &str) -> Result<(), sqlx::Error> {
    use sqlx::{AssertSqlSafe, Connection, Executor};
    crate::login::block_on(async {
        let mut conn = sqlx::MySqlConnection::connect(admin_url).await?;
        conn.execute(AssertSqlSafe(format!(
            "GRANT SELECT ON {}.* TO {}",
            grant_db(ns),
            accounts(name)
        )))
        .await?;
        conn.close().await
    })
}

/// A run login's two accounts (its name is hex digits, `_` and letters
/// only: [`crate::login::run_login_created`] checked it).
fn accounts(name: &str) -> String {
    format!("'{name}'@'%', '{name}'@'localhost'")
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(grant_db("concert_singer"), "`concert\\_singer`");
    }

    #[test]
    fn a_run_login_copies_the_reader_s_grants_on_its_namespaces_only() {
        let mine = ["sw_car_1".to_string(), "sw_50%".to_string()];
        let only = RunReads::Only(&mine);
        for (db, folded, copied) in [
            ("sw\\_car\\_1", false, true),
            ("sw\\_50\\%", false, true),
            ("sw\\_car\\_10", false, false),
            ("sw_car_1", false, false),
            ("sw\\_concert\\_singer", false, false),
            ("SW\\_CAR\\_1", false, false),
            ("SW\\_CAR\\_1", true, true),
        ] {
            assert_eq!(copies_grant(only, db, folded), copied, "{db} {folded}");
        }
        assert!(!copies_grant(RunReads::Only(&[]), "sw\\_car\\_1", false));
        assert!(copies_grant(RunReads::Reader, "anything", false));
    }
}
