//! The reader login on PostgreSQL: created (or reset) once per server,
//! granted `USAGE` and `SELECT` on each migrated schema; and what a
//! connected login may do beyond reading.

use crate::login::{literal, reader_password, READER_LOGIN};

/// The temporary files one query of the reader or a run login may write.
/// A query that builds values of hundreds of megabytes (a recursive
/// doubling) spends seconds between two checks of its cancel writing them
/// out; at this size it fails within about half a second of its time limit
/// on a loaded two-core machine (at 1 GB, up to four seconds past it), and
/// a sort of up to half a gigabyte still runs.
pub(crate) const TEMP_FILE_LIMIT: &str = "512MB";

/// Grants the (ready) reader login `USAGE` on schema `ns` and `SELECT` on
/// its tables, and nothing else.
pub(crate) async fn grant_schema_postgres(
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
pub(crate) async fn ensure_reader_postgres(
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
         AND EXISTS (SELECT 1 FROM unnest(s.setconfig) c WHERE c = 'temp_file_limit=' || $2))",
    )
    .bind(READER_LOGIN)
    .bind(TEMP_FILE_LIMIT)
    .fetch_one(&mut *conn)
    .await?;
    if !has_limit {
        let settings = format!(
            "ALTER ROLE {READER_LOGIN} SET temp_file_limit = '{TEMP_FILE_LIMIT}'; \
             ALTER ROLE {READER_LOGIN} SET idle_in_transaction_session_timeout = '5min'"
        );
        conn.execute(sqlx::raw_sql(AssertSqlSafe(settings))).await?;
    }
    Ok(notes)
}

/// What the connected PostgreSQL login may do beyond reading: superuser,
/// role attributes, and membership in the roles that reach server files or
/// other sessions. Empty for a least-privilege login.
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

/// Creates the run login `name` (see [`crate::RunLogin`]): a member of the
/// reader login, inheriting its read access and nothing else, with the
/// reader's limits; first drops the run logins earlier runs left behind
/// (stamped, created before `stale_before`, no session).
pub(crate) fn create_run_login(
    admin_url: &str,
    name: &str,
    password: &str,
    stale_before: u64,
) -> Result<(), sqlx::Error> {
    use sqlx::{AssertSqlSafe, Connection, Executor};
    crate::login::block_on(async {
        let mut conn = sqlx::PgConnection::connect(admin_url).await?;
        ensure_reader_postgres(&mut conn).await?;
        let left: Vec<String> = sqlx::query_scalar(
            "SELECT r.rolname::text FROM pg_roles r \
             WHERE starts_with(r.rolname, $1) AND shobj_description(r.oid, 'pg_authid') = $2 \
             AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.usename = r.rolname)",
        )
        .bind(crate::login::RUN_LOGIN_PREFIX)
        .bind(crate::login::RUN_LOGIN_STAMP)
        .fetch_all(&mut conn)
        .await?;
        for stale in left.iter().filter(|n| {
            crate::login::run_login_created(n).is_some_and(|created| created < stale_before)
        }) {
            let _ = conn
                .execute(AssertSqlSafe(format!(
                    "DROP ROLE IF EXISTS {}",
                    quote(stale)
                )))
                .await;
        }
        let role = quote(name);
        let create = format!(
            "CREATE ROLE {role} LOGIN INHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION \
             NOBYPASSRLS PASSWORD {p} IN ROLE {READER_LOGIN}; \
             COMMENT ON ROLE {role} IS {stamp}; \
             ALTER ROLE {role} SET temp_file_limit = '{TEMP_FILE_LIMIT}'; \
             ALTER ROLE {role} SET idle_in_transaction_session_timeout = '5min'; \
             ALTER ROLE {role} SET client_connection_check_interval = '1s'",
            p = literal(password, false),
            stamp = literal(crate::login::RUN_LOGIN_STAMP, false),
        );
        conn.execute(sqlx::raw_sql(AssertSqlSafe(create))).await?;
        conn.close().await
    })
}

/// Drops the run login `name` when it carries the run-login stamp.
pub(crate) fn drop_run_login(admin_url: &str, name: &str) -> Result<(), sqlx::Error> {
    use sqlx::{AssertSqlSafe, Connection, Executor};
    crate::login::block_on(async {
        let mut conn = sqlx::PgConnection::connect(admin_url).await?;
        let ours: Option<bool> = sqlx::query_scalar(
            "SELECT shobj_description(oid, 'pg_authid') = $2 FROM pg_roles WHERE rolname = $1",
        )
        .bind(name)
        .bind(crate::login::RUN_LOGIN_STAMP)
        .fetch_optional(&mut conn)
        .await?;
        if ours == Some(true) {
            conn.execute(AssertSqlSafe(format!(
                "DROP ROLE IF EXISTS {}",
                quote(name)
            )))
            .await?;
        }
        conn.close().await
    })
}

fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}
