//! Leases on PostgreSQL ([`crate::lease`]): records in
//! `sqlwitness_registry.leases` of the administrative login's database, each
//! lease an advisory lock held by the creating session.

use sqlwitness_core::DbError;
use sqlx::postgres::PgConnection;
use sqlx::{AssertSqlSafe, Executor};

use super::dump::pg_error;
use super::write::quote;
use crate::lease::{Leased, REGISTRY};

/// The advisory-lock key of `lease`.
fn key(lease: &str) -> String {
    format!(
        "pg_catalog.hashtextextended('sqlwitness lease ' || {}, 0)",
        crate::login::literal(lease, false)
    )
}

async fn registry_exists(c: &mut PgConnection) -> Result<bool, sqlx::Error> {
    let found: Option<i32> = sqlx::query_scalar(
        "SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = $1 AND c.relname = 'leases'",
    )
    .bind(REGISTRY)
    .fetch_optional(&mut *c)
    .await?;
    Ok(found.is_some())
}

/// Takes `lease` on `admin` (held while that session lives) and records
/// `items` under it, before they are created.
pub(crate) async fn record(
    admin: &mut PgConnection,
    lease: &str,
    items: &[Leased],
) -> Result<(), sqlx::Error> {
    admin
        .execute(AssertSqlSafe(format!(
            "SELECT pg_catalog.pg_advisory_lock({})",
            key(lease)
        )))
        .await?;
    if !registry_exists(admin).await? {
        let ddl = format!(
            "CREATE SCHEMA IF NOT EXISTS {r}; REVOKE ALL ON SCHEMA {r} FROM PUBLIC; \
             CREATE TABLE IF NOT EXISTS {r}.leases (lease text NOT NULL, kind text NOT NULL, \
             name text NOT NULL, created timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (kind, name))",
            r = quote(REGISTRY)
        );
        // Two runs creating it at once: one of them may see the other's.
        if let Err(e) = admin
            .execute(sqlx::raw_sql(AssertSqlSafe(ddl.clone())))
            .await
        {
            if !registry_exists(admin).await? {
                return Err(e);
            }
        }
    }
    record_more(admin, lease, items).await
}

/// Records `items` under `lease`, which `admin` holds.
pub(crate) async fn record_more(
    admin: &mut PgConnection,
    lease: &str,
    items: &[Leased],
) -> Result<(), sqlx::Error> {
    for item in items {
        sqlx::query(AssertSqlSafe(format!(
            "INSERT INTO {}.leases (lease, kind, name) VALUES ($1, $2, $3) \
             ON CONFLICT (kind, name) DO UPDATE SET lease = EXCLUDED.lease",
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
pub(crate) async fn forget(c: &mut PgConnection, lease: &str, ns: &str) -> Result<(), sqlx::Error> {
    sqlx::query(AssertSqlSafe(format!(
        "DELETE FROM {}.leases WHERE lease = $1 AND kind = 'namespace' AND name = $2",
        quote(REGISTRY)
    )))
    .bind(lease)
    .bind(ns)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// Deletes the records of `lease` and lets it go (what it recorded has
/// been dropped).
pub(crate) async fn release(admin: &mut PgConnection, lease: &str) -> Result<(), sqlx::Error> {
    sqlx::query(AssertSqlSafe(format!(
        "DELETE FROM {}.leases WHERE lease = $1",
        quote(REGISTRY)
    )))
    .bind(lease)
    .execute(&mut *admin)
    .await?;
    admin
        .execute(AssertSqlSafe(format!(
            "SELECT pg_catalog.pg_advisory_unlock({})",
            key(lease)
        )))
        .await?;
    Ok(())
}

/// Ends the sessions of `items` and drops them; the names dropped.
async fn drop_items(c: &mut PgConnection, items: &[Leased]) -> Result<Vec<String>, sqlx::Error> {
    let mut dropped = Vec::new();
    // Sessions first, then databases (the login's objects are in them),
    // then logins.
    for item in items {
        if let Leased::Login(role) = item {
            sqlx::query(
                "SELECT pg_catalog.pg_terminate_backend(pid) FROM pg_catalog.pg_stat_activity \
                 WHERE usename = $1",
            )
            .bind(role)
            .execute(&mut *c)
            .await?;
        }
    }
    for item in items {
        if let Leased::Database(db) = item {
            c.execute(AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
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
            let ours: bool = sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c \
                   JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
                   WHERE n.nspname = $1 AND c.relname = $2) \
                 OR NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class c \
                   JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1)",
            )
            .bind(ns)
            .bind(sqlwitness_core::STAMP_TABLE)
            .fetch_one(&mut *c)
            .await?;
            if ours {
                c.execute(AssertSqlSafe(format!(
                    "DROP SCHEMA IF EXISTS {} CASCADE",
                    quote(ns)
                )))
                .await?;
                dropped.push(format!("namespace {ns}"));
            }
        }
    }
    for item in items {
        if let Leased::Login(role) = item {
            c.execute(AssertSqlSafe(format!(
                "DROP ROLE IF EXISTS {}",
                quote(role)
            )))
            .await?;
            dropped.push(format!("login {role}"));
        }
    }
    Ok(dropped)
}

impl crate::lease::Registry for PgConnection {
    async fn exists(&mut self) -> Result<bool, sqlx::Error> {
        registry_exists(self).await
    }

    async fn leases(&mut self) -> Result<Vec<String>, sqlx::Error> {
        sqlx::query_scalar(AssertSqlSafe(format!(
            "SELECT DISTINCT lease FROM {}.leases ORDER BY 1",
            quote(REGISTRY)
        )))
        .fetch_all(self)
        .await
    }

    async fn try_take(&mut self, lease: &str) -> Result<bool, sqlx::Error> {
        sqlx::query_scalar(AssertSqlSafe(format!(
            "SELECT pg_catalog.pg_try_advisory_lock({})",
            key(lease)
        )))
        .fetch_one(self)
        .await
    }

    async fn restarted_under(
        &mut self,
        lease: &str,
        grace: std::time::Duration,
    ) -> Result<bool, sqlx::Error> {
        let found: Option<bool> = sqlx::query_scalar(AssertSqlSafe(format!(
            "SELECT pg_catalog.pg_postmaster_start_time() > now() - make_interval(secs => $2) \
               AND bool_and(created < pg_catalog.pg_postmaster_start_time()) \
             FROM {}.leases WHERE lease = $1",
            quote(REGISTRY)
        )))
        .bind(lease)
        .bind(grace.as_secs_f64())
        .fetch_one(self)
        .await?;
        Ok(found == Some(true))
    }

    async fn let_go(&mut self, lease: &str) -> Result<(), sqlx::Error> {
        self.execute(AssertSqlSafe(format!(
            "SELECT pg_catalog.pg_advisory_unlock({})",
            key(lease)
        )))
        .await
        .map(|_| ())
    }

    async fn items(&mut self, lease: &str) -> Result<Vec<Leased>, sqlx::Error> {
        let rows: Vec<(String, String)> = sqlx::query_as(AssertSqlSafe(format!(
            "SELECT kind, name FROM {}.leases WHERE lease = $1",
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
            "DELETE FROM {}.leases WHERE lease = $1",
            quote(REGISTRY)
        )))
        .bind(lease)
        .execute(self)
        .await
        .map(|_| ())
    }
}

/// Drops what `lease` recorded, over a fresh session of `admin_url`, and
/// its records (the lease's own holder is this process: an interrupted
/// run).
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
    work: impl AsyncFnOnce(&mut PgConnection) -> Result<T, sqlx::Error>,
) -> Result<T, DbError> {
    crate::lease::on_fresh(admin_url, "SET lock_timeout = '10s'", pg_error, work)
}
