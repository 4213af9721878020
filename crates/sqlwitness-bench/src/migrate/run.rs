//! The engine-independent migration sequence over a [`Driver`].

use std::collections::BTreeSet;

use sqlwitness_core::{Database, EngineKind};
use sqlwitness_dialect::Adapter;

use super::keys::{DbPlan, TablePlan};
use super::log::{MigrationReport, MigrationStatus, CHECKSUM_METHOD};
use super::{table_report, MigrateOptions, MigrationTarget};
use crate::BenchError;

/// What a server must do for a migration. Errors are the server's message.
pub(crate) trait Driver {
    async fn server_version(&mut self) -> Result<String, String>;
    /// The namespace's base tables, or `None` when it does not exist.
    async fn existing_tables(&mut self, ns: &str) -> Result<Option<Vec<String>>, String>;
    /// Reads the table back with typed decoding: `(rows, checksum)`.
    async fn read_back(&mut self, ns: &str, t: &TablePlan) -> Result<(u64, String), String>;
    /// Drops (when present) and creates the namespace; returns notes.
    async fn recreate_namespace(&mut self, ns: &str) -> Result<Vec<String>, String>;
    async fn create_table(&mut self, ns: &str, t: &TablePlan) -> Result<(), String>;
    async fn load(&mut self, ns: &str, t: &TablePlan) -> Result<(), String>;
    async fn add_primary_key(&mut self, ns: &str, t: &TablePlan) -> Result<(), String>;
    /// Foreign key `k` of `t` (`t.foreign_keys[k]`).
    async fn add_foreign_key(&mut self, ns: &str, t: &TablePlan, k: usize) -> Result<(), String>;
    /// After the load (grants; the reader login itself too unless it was
    /// prepared for this migration); returns notes and the collation, if
    /// any.
    async fn finish(&mut self, ns: &str, reader_ready: bool) -> (Vec<String>, Option<String>);
    /// Around the loads of every table (MySQL: one transaction).
    async fn loads_begin(&mut self) -> Result<(), String> {
        Ok(())
    }
    async fn loads_end(&mut self) -> Result<(), String> {
        Ok(())
    }
    async fn drop_namespace(&mut self, ns: &str) -> Result<(), String>;
    /// Serializes migrations of `ns` across processes (a session lock on
    /// the server), so that two runs migrating one database at once do not
    /// interleave.
    async fn lock(&mut self, ns: &str) -> Result<(), String>;
    async fn unlock(&mut self, ns: &str);
    /// Starts the writes of a migration: on PostgreSQL one transaction
    /// (DDL included, without waiting for the log flush at commit: a copy
    /// lost to a crash is caught by the verification), each statement
    /// under a savepoint so that one refused key or table does not undo the
    /// rest; MySQL commits DDL as it goes.
    async fn begin(&mut self) -> Result<(), String>;
    async fn commit(&mut self) -> Result<(), String>;
    /// Creates or fixes the reader login (once per server, before databases
    /// migrate in parallel); returns notes.
    async fn ensure_reader(&mut self) -> Result<Vec<String>, String>;
}

fn runtime(db_id: &str, engine: EngineKind) -> Result<tokio::runtime::Runtime, BenchError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| BenchError::Migration {
            db_id: db_id.to_string(),
            engine: engine.to_string(),
            message: format!("cannot start a tokio runtime: {e}"),
        })
}

/// Connects the driver of `target`'s adapter as `$d` and awaits `$body`
/// with it, on a runtime of its own; a failure is a
/// `BenchError::Migration` naming `$db_id`. One dispatch for every
/// migration entry point.
macro_rules! with_driver {
    ($target:expr, $db_id:expr, |$d:ident| $body:expr) => {{
        let engine = $target.engine();
        let err = |message: String| BenchError::Migration {
            db_id: $db_id.to_string(),
            engine: engine.to_string(),
            message,
        };
        let rt = runtime($db_id, engine)?;
        rt.block_on(async {
            let url = &$target.url;
            match sqlwitness_dialect::shipped(engine).adapter {
                #[cfg(feature = "postgres")]
                Adapter::Postgres => {
                    #[allow(unused_mut)]
                    let mut $d = super::postgres::PgDriver::connect(url).await.map_err(err)?;
                    $body.await.map_err(err)
                }
                #[cfg(feature = "mysql")]
                Adapter::Mysql => {
                    #[allow(unused_mut)]
                    let mut $d = super::mysql::MyDriver::connect(url).await.map_err(err)?;
                    $body.await.map_err(err)
                }
                #[allow(unreachable_patterns)]
                _ => Err(err(
                    "not a server engine, or this build lacks its adapter's cargo feature".into(),
                )),
            }
        })
    }};
}

pub(crate) fn run_target(
    db: &Database,
    target: &MigrationTarget,
    opts: &MigrateOptions,
    plan: DbPlan,
) -> Result<MigrationReport, BenchError> {
    with_driver!(target, &db.db_id, |d| migrate(
        &mut d,
        db,
        target.engine(),
        opts,
        plan
    ))
}

pub(crate) fn prepare_target(target: &MigrationTarget) -> Result<Vec<String>, BenchError> {
    with_driver!(target, "", |d| d.ensure_reader())
}

pub(crate) fn drop_target(target: &MigrationTarget, ns: &str) -> Result<(), BenchError> {
    with_driver!(target, ns, |d| d.drop_namespace(ns))
}

/// The sequence: up-to-date check, recreate, create + load each table, keys,
/// grants, verification. Only connection-level and namespace failures are
/// `Err`; the rest is recorded per table.
async fn migrate<D: Driver>(
    d: &mut D,
    db: &Database,
    engine: EngineKind,
    opts: &MigrateOptions,
    plan: DbPlan,
) -> Result<MigrationReport, String> {
    let ns = db.namespace.as_str();
    d.lock(ns).await?;
    let result = migrate_locked(d, db, engine, opts, plan).await;
    d.unlock(ns).await;
    result
}

async fn migrate_locked<D: Driver>(
    d: &mut D,
    db: &Database,
    engine: EngineKind,
    opts: &MigrateOptions,
    plan: DbPlan,
) -> Result<MigrationReport, String> {
    let ns = db.namespace.as_str();
    let server_version = d.server_version().await?;
    // MySQL and MariaDB speak one protocol: a URL that reaches the other
    // engine migrates nothing.
    if !sqlwitness_dialect::shipped(engine)
        .server
        .matches(&server_version)
    {
        return Err(format!(
            "the server is not {engine} (it reports version `{server_version}`)"
        ));
    }
    let mut report = MigrationReport {
        db_id: db.db_id.clone(),
        engine,
        namespace: ns.to_string(),
        server_version,
        collation: None,
        status: MigrationStatus::Migrated,
        tables: plan.tables.iter().map(table_report).collect(),
        notes: plan.notes.clone(),
        checksum_method: CHECKSUM_METHOD.to_string(),
        duration_ms: 0,
    };

    if !opts.force {
        if let Some(existing) = d.existing_tables(ns).await? {
            let want: BTreeSet<&str> = plan.tables.iter().map(|t| t.name.as_str()).collect();
            let have: BTreeSet<&str> = existing.iter().map(String::as_str).collect();
            if want == have {
                let mut all_equal = true;
                for (t, r) in plan.tables.iter().zip(report.tables.iter_mut()) {
                    match d.read_back(ns, t).await {
                        Ok((rows, sum)) => {
                            r.rows_target = Some(rows);
                            r.verified = rows == r.rows_source && sum == r.checksum_source;
                            r.checksum_target = Some(sum);
                        }
                        Err(_) => r.verified = false,
                    }
                    all_equal &= r.verified;
                    if !all_equal {
                        break;
                    }
                }
                if all_equal {
                    report.status = MigrationStatus::UpToDate;
                    let (notes, collation) = d.finish(ns, opts.reader_ready).await;
                    report.notes.extend(notes);
                    report.collation = collation;
                    report.notes.push(
                        "the namespace already held every table with equal row counts and \
                         checksums: nothing was written (key decisions describe the plan; \
                         keys present on the server were not re-checked)"
                            .into(),
                    );
                    for (t, r) in plan.tables.iter().zip(report.tables.iter_mut()) {
                        r.primary_key.applied = t.apply_pk;
                        for (fk, apply) in r.foreign_keys.iter_mut().zip(&t.apply_fk) {
                            fk.applied = *apply;
                        }
                    }
                    return Ok(report);
                }
                for r in &mut report.tables {
                    r.rows_target = None;
                    r.checksum_target = None;
                    r.verified = false;
                }
            }
        }
    }

    d.begin().await?;
    report.notes.extend(d.recreate_namespace(ns).await?);
    // Every table first, then every load (MySQL: one transaction for the
    // rows of all tables, one commit).
    let mut created = vec![false; plan.tables.len()];
    for (i, t) in plan.tables.iter().enumerate() {
        match d.create_table(ns, t).await {
            Ok(()) => created[i] = true,
            Err(e) => report.tables[i].error = Some(format!("create table: {e}")),
        }
    }
    let mut loaded = vec![false; plan.tables.len()];
    d.loads_begin().await?;
    for (i, t) in plan.tables.iter().enumerate() {
        if !created[i] {
            continue;
        }
        match d.load(ns, t).await {
            Ok(()) => loaded[i] = true,
            Err(e) => report.tables[i].error = Some(format!("load: {e}")),
        }
    }
    d.loads_end().await?;
    for (i, t) in plan.tables.iter().enumerate() {
        let r = &mut report.tables[i];
        if t.apply_pk {
            if !loaded[i] {
                r.primary_key.reason = "the table was not loaded".into();
            } else {
                match d.add_primary_key(ns, t).await {
                    Ok(()) => {
                        r.primary_key.applied = true;
                        r.primary_key.reason = t.primary_key.reason.clone();
                    }
                    Err(e) => r.primary_key.reason = format!("the server refused it: {e}"),
                }
            }
        }
    }
    for (i, t) in plan.tables.iter().enumerate() {
        for k in 0..t.foreign_keys.len() {
            if !t.apply_fk[k] {
                continue;
            }
            let r = &mut report.tables[i].foreign_keys[k];
            if !loaded[i] {
                r.reason = "the table was not loaded".into();
                continue;
            }
            match d.add_foreign_key(ns, t, k).await {
                Ok(()) => r.applied = true,
                Err(e) => r.reason = format!("the server refused it: {e}"),
            }
        }
    }
    let (notes, collation) = d.finish(ns, opts.reader_ready).await;
    report.notes.extend(notes);
    report.collation = collation;
    d.commit().await?;

    let mut failed = Vec::new();
    for (i, t) in plan.tables.iter().enumerate() {
        let r = &mut report.tables[i];
        if loaded[i] {
            match d.read_back(ns, t).await {
                Ok((rows, sum)) => {
                    r.rows_target = Some(rows);
                    r.verified = rows == r.rows_source && sum == r.checksum_source;
                    r.checksum_target = Some(sum);
                }
                Err(e) => r.error = Some(format!("read back: {e}")),
            }
        }
        if !r.verified {
            failed.push(r.name.clone());
        }
    }
    if !failed.is_empty() {
        report.status = MigrationStatus::Failed {
            reason: format!(
                "{} of {} tables did not verify: {}",
                failed.len(),
                plan.tables.len(),
                failed.join(", ")
            ),
        };
    }
    Ok(report)
}
