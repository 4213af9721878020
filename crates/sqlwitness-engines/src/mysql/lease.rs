//! Leases on MySQL and MariaDB ([`crate::lease`]): records in the database
//! `sqlwitness_registry`, each lease a named lock (`GET_LOCK`) held by the
//! creating session.

use sqlwitness_core::DbError;
use sqlx::mysql::MySqlConnection;
use sqlx::{AssertSqlSafe, Executor};

use super::write::quote;
use crate::lease::{Leased, REGISTRY};

/// The lock name of the lease bound to `?` (at most 64 characters).
const LOCK: &str = "CONCAT('sqlwitness lease:', LEFT(SHA2(?, 256), 40))";

fn error(e: sqlx::Error) -> DbError {
    crate::server::driver_error(e)
}

async fn registry_exists(c: &mut MySqlConnection) -> Result<bool, sqlx::Error> {
    let found: Option<i64> = sqlx::query_scalar(
        "SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'leases'",
    )
    .bind(REGISTRY)
    .fetch_optional(&mut *c)
    .await?;
    Ok(found.is_some())
}

/// Takes `lease` on `admin` (held while that session lives) and records
/// `items` under it, before they are created.
pub(crate) async fn record(
    admin: &mut MySqlConnection,
    lease: &str,
    items: &[Leased],
) -> Result<(), sqlx::Error> {
    let got: Option<i64> =
        sqlx::query_scalar(AssertSqlSafe(format!("SELECT GET_LOCK({LOCK}, 10)")))
            .bind(lease)
            .fetch_one(&mut *admin)
            .await?;
    if got != Some(1) {
        return Err(sqlx::Error::Protocol(format!(
            "the lease {lease} is held by another session"
        )));
    }
    if !registry_exists(admin).await? {
        for ddl in [
            format!("CREATE DATABASE IF NOT EXISTS {}", quote(REGISTRY)),
            format!(
                "CREATE TABLE IF NOT EXISTS {}.leases (lease VARCHAR(64) NOT NULL, \
                 kind VARCHAR(16) NOT NULL, name VARCHAR(128) NOT NULL, \
                 created TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (kind, name)) \
                 ENGINE=InnoDB",
                quote(REGISTRY)
            ),
        ] {
            admin.execute(AssertSqlSafe(ddl)).await?;
        }
    }
    record_more(admin, lease, items).await
}

/// Records `items` under `lease`, which `admin` holds.
pub(crate) async fn record_more(
    admin: &mut MySqlConnection,
    lease: &str,
    items: &[Leased],
) -> Result<(), sqlx::Error> {
    for item in items {
        sqlx::query(AssertSqlSafe(format!(
            "REPLACE INTO {}.leases (lease, kind, name) VALUES (?, ?, ?)",
            quote(REGISTRY)
        )))
        .bind(lease)
        .bind(item.kind())
        .bind(item.name())
        .execute(&mut *admin)
        .await?;
    }
    Ok(())
}

/// Deletes the record of namespace `ns` under `lease`.
pub(crate) async fn forget(
    c: &mut MySqlConnection,
    lease: &str,
    ns: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(AssertSqlSafe(format!(
        "DELETE FROM {}.leases WHERE lease = ? AND kind = 'namespace' AND name = ?",
        quote(REGISTRY)
    )))
    .bind(lease)
    .bind(ns)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// Deletes the records of `lease` and lets it go.
pub(crate) async fn release(admin: &mut MySqlConnection, lease: &str) -> Result<(), sqlx::Error> {
    sqlx::query(AssertSqlSafe(format!(
        "DELETE FROM {}.leases WHERE lease = ?",
        quote(REGISTRY)
    )))
    .bind(lease)
    .execute(&mut *admin)
    .await?;
    sqlx::query(AssertSqlSafe(format!("DO RELEASE_LOCK({LOCK})")))
        .bind(lease)
        .execute(&mut *admin)
        .await?;
    Ok(())
}

/// A login's user name and the hosts sqlwitness creates it for.
const HOSTS: [&str; 2] = ["%", "localhost"];

/// Ends the sessions of `items` and drops them; what was dropped.
async fn drop_items(c: &mut MySqlConnection, items: &[Leased]) -> Result<Vec<String>, sqlx::Error> {
    let mut dropped = Vec::new();
    for item in items {
        if let Leased::Login(user) = item {
            let ids: Vec<u64> = sqlx::query_scalar(
                "SELECT CAST(ID AS UNSIGNED) FROM information_schema.PROCESSLIST WHERE USER = ?",
            )
            .bind(user)
            .fetch_all(&mut *c)
            .await?;
            for id in ids {
                let _ = c.execute(AssertSqlSafe(format!("KILL {id}"))).await;
            }
        }
    }
    for item in items {
        if let Leased::Database(db) = item {
            c.execute(AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS {}",
                quote(db)
            )))
            .await?;
            dropped.push(format!("database {db}"));
        }
    }
    for item in items {
        if let Leased::Namespace(ns) = item {
            // Ours while it holds the stamp, or nothing (made, not yet
            // stamped); anything else is left.
            let tables: Vec<String> = sqlx::query_scalar(
                "SELECT CAST(TABLE_NAME AS CHAR) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?",
            )
            .bind(ns)
            .fetch_all(&mut *c)
            .await?;
            if tables.is_empty() || tables.iter().any(|t| t == sqlwitness_core::STAMP_TABLE) {
                c.execute(AssertSqlSafe(format!(
                    "DROP DATABASE IF EXISTS {}",
                    quote(ns)
                )))
                .await?;
                dropped.push(format!("namespace {ns}"));
            }
        }
    }
    for item in items {
        if let Leased::Login(user) = item {
            for host in HOSTS {
                c.execute(AssertSqlSafe(format!(
                    "DROP USER IF EXISTS {}@'{host}'",
                    crate::login::literal(user, true)
                )))
                .await?;
            }
            dropped.push(format!("login {user}"));
        }
    }
    Ok(dropped)
}

impl crate::lease::Registry for MySqlConnection {
    async fn exists(&mut self) -> Result<bool, sqlx::Error> {
        registry_exists(self).await
    }

    async fn leases(&mut self) -> Result<Vec<String>, sqlx::Error> {
        sqlx::query_scalar(AssertSqlSafe(format!(
            "SELECT DISTINCT CAST(lease AS CHAR) FROM {}.leases ORDER BY 1",
            quote(REGISTRY)
        )))
        .fetch_all(self)
        .await
    }

    async fn try_take(&mut self, lease: &str) -> Result<bool, sqlx::Error> {
        let got: Option<i64> =
            sqlx::query_scalar(AssertSqlSafe(format!("SELECT GET_LOCK({LOCK}, 0)")))
                .bind(lease)
                .fetch_one(self)
                .await?;
        Ok(got == Some(1))
    }

    async fn restarted_under(
        &mut self,
        lease: &str,
        grace: std::time::Duration,
    ) -> Result<bool, sqlx::Error> {
        // `SHOW GLOBAL STATUS` reads the same on MySQL and MariaDB (whose
        // performance_schema is off by default).
        let (_, uptime): (String, String) = sqlx::query_as("SHOW GLOBAL STATUS LIKE 'Uptime'")
            .fetch_one(&mut *self)
            .await?;
        let Ok(uptime) = uptime.trim().parse::<u64>() else {
            return Ok(false);
        };
        if uptime >= grace.as_secs() {
            return Ok(false);
        }
        let after_start: i64 = sqlx::query_scalar(AssertSqlSafe(format!(
            "SELECT COUNT(*) FROM {}.leases WHERE lease = ? \
             AND UNIX_TIMESTAMP(created) >= UNIX_TIMESTAMP() - ?",
            quote(REGISTRY)
        )))
        .bind(lease)
        .bind(uptime)
        .fetch_one(self)
        .await?;
        Ok(after_start == 0)
    }

    async fn let_go(&mut self, lease: &str) -> Result<(), sqlx::Error> {
        sqlx::query(AssertSqlSafe(format!("DO RELEASE_LOCK({LOCK})")))
            .bind(lease)
            .execute(self)
            .await
            .map(|_| ())
    }

    async fn items(&mut self, lease: &str) -> Result<Vec<Leased>, sqlx::Error> {
        let rows: Vec<(String, String)> = sqlx::query_as(AssertSqlSafe(format!(
            "SELECT CAST(kind AS CHAR), CAST(name AS CHAR) FROM {}.leases WHERE lease = ?",
            quote(REGISTRY)
        )))
        .bind(lease)
        .fetch_all(self)
        .await?;
        Ok(rows
            .into_iter()
            .filter_map(|(k, n)| Leased::from_row(&k, n))
            .collect())
    }

    async fn drop_items(&mut self, items: &[Leased]) -> Result<Vec<String>, sqlx::Error> {
        drop_items(self, items).await
    }

    async fn delete(&mut self, lease: &str) -> Result<(), sqlx::Error> {
        sqlx::query(AssertSqlSafe(format!(
            "DELETE FROM {}.leases WHERE lease = ?",
            quote(REGISTRY)
        )))
        .bind(lease)
        .execute(self)
        .await
        .map(|_| ())
    }
}

/// Drops what `lease` recorded, over a fresh session, and its records (the
/// lease's own holder is this process: an interrupted run).
pub(crate) fn remove(admin_url: &str, lease: &str, items: &[Leased]) -> Result<(), DbError> {
    run(admin_url, async |c| {
        crate::lease::remove_recorded(c, lease, items).await
    })
}

/// Sweeps the records no session holds a lease for.
pub(crate) fn sweep(admin_url: &str) -> Result<Vec<String>, DbError> {
    run(admin_url, async |c| crate::lease::sweep_registry(c).await)
}

/// Runs `work` over a fresh administrative session.
fn run<T>(
    admin_url: &str,
    work: impl AsyncFnOnce(&mut MySqlConnection) -> Result<T, sqlx::Error>,
) -> Result<T, DbError> {
    crate::lease::on_fresh(admin_url, "SET SESSION lock_wait_timeout = 10", error, work)
}
