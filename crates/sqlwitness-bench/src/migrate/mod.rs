//! Migration of a SQLite database to PostgreSQL or MySQL, with verification.
//!
//! The source is read once, read-only ([`source`]); every column's type is
//! decided from its declared type and stored values ([`plan`]); keys are
//! checked on the data ([`keys`]); a driver ([`postgres`], [`mysql`])
//! creates the namespace and tables, loads the data in bulk, adds the keys,
//! and reads every table back to compare row counts and checksums
//! ([`verify`]). Everything lands in a [`MigrationReport`] ([`log`]).

mod keys;
mod log;
#[cfg(feature = "mysql")]
mod mysql;
mod plan;
#[cfg(feature = "postgres")]
mod postgres;
mod source;
mod temporal;
mod verify;

#[cfg(any(feature = "postgres", feature = "mysql"))]
mod run;

pub use log::{
    write_migration_log, Coercion, Coercions, ColumnDecision, ForeignKeyReport, KeyReport,
    MigrationReport, MigrationStatus, StorageCounts, TableReport, TargetKind, CHECKSUM_METHOD,
    COERCION_SAMPLE_CAP,
};

use std::time::Instant;

use sqlwitness_core::{Database, EngineKind};

use crate::BenchError;

/// Where to migrate to: a server engine and its administrative URL. The
/// engine's dialect file names the driver (its `adapter`): on PostgreSQL a
/// schema named after the namespace in the URL's database, on MySQL and
/// MariaDB a database named after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigrationTarget {
    pub engine: EngineKind,
    pub url: String,
}

impl MigrationTarget {
    pub fn new(engine: EngineKind, url: impl Into<String>) -> MigrationTarget {
        MigrationTarget {
            engine,
            url: url.into(),
        }
    }

    pub fn engine(&self) -> EngineKind {
        self.engine
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MigrateOptions {
    /// Drop and recreate the namespace even when it is already up to date.
    pub force: bool,
    /// The reader login was made ready on this server ([`prepare_target`]):
    /// a migration only grants it read access to its namespace.
    pub reader_ready: bool,
}

/// Migrates `db` (its SQLite file, read-only) into the namespace
/// `db.namespace` on `target`, then verifies every table.
///
/// Synchronous: a single-threaded tokio runtime is created for the call, so
/// do not call it from inside an async context.
///
/// `Err` when the SQLite file cannot be read or the server cannot be
/// reached or the namespace cannot be created; failures of single tables or
/// keys are recorded in the report (status `failed` when a table does not
/// verify) and the others go on.
pub fn migrate_database(
    db: &Database,
    target: &MigrationTarget,
    opts: &MigrateOptions,
) -> Result<MigrationReport, BenchError> {
    let started = Instant::now();
    let engine = target.engine();
    let src = source::read_source(&db.sqlite_path)?;
    let plan = keys::plan_database(&src, sqlwitness_dialect::shipped(engine));
    drop(src);
    let mut report = run_target(db, target, opts, plan)?;
    report.duration_ms = started.elapsed().as_millis() as u64;
    Ok(report)
}

/// Creates or fixes the reader login on `target` (what every migration's
/// grant would otherwise do, racing the others when databases migrate in
/// parallel); returns notes.
pub fn prepare_target(target: &MigrationTarget) -> Result<Vec<String>, BenchError> {
    #[cfg(any(feature = "postgres", feature = "mysql"))]
    {
        run::prepare_target(target)
    }
    #[cfg(not(any(feature = "postgres", feature = "mysql")))]
    {
        let _ = target;
        Ok(Vec::new())
    }
}

/// Drops the namespace (schema or database) `namespace` on `target`, if it
/// exists.
pub fn drop_namespace(target: &MigrationTarget, namespace: &str) -> Result<(), BenchError> {
    drop_target(target, namespace)
}

#[cfg(any(feature = "postgres", feature = "mysql"))]
fn run_target(
    db: &Database,
    target: &MigrationTarget,
    opts: &MigrateOptions,
    plan: keys::DbPlan,
) -> Result<MigrationReport, BenchError> {
    run::run_target(db, target, opts, plan)
}

#[cfg(any(feature = "postgres", feature = "mysql"))]
fn drop_target(target: &MigrationTarget, namespace: &str) -> Result<(), BenchError> {
    run::drop_target(target, namespace)
}

#[cfg(not(any(feature = "postgres", feature = "mysql")))]
fn run_target(
    db: &Database,
    target: &MigrationTarget,
    _opts: &MigrateOptions,
    _plan: keys::DbPlan,
) -> Result<MigrationReport, BenchError> {
    Err(BenchError::Migration {
        db_id: db.db_id.clone(),
        engine: target.engine().to_string(),
        message: "built without the `postgres` and `mysql` features".into(),
    })
}

#[cfg(not(any(feature = "postgres", feature = "mysql")))]
fn drop_target(target: &MigrationTarget, namespace: &str) -> Result<(), BenchError> {
    Err(BenchError::Migration {
        db_id: namespace.to_string(),
        engine: target.engine().to_string(),
        message: "built without the `postgres` and `mysql` features".into(),
    })
}

/// The migration decisions for `db` on `engine` without touching a server:
/// one [`TableReport`] per table with the column decisions, coercions and
/// key decisions (`applied` is false everywhere, `rows_target` empty).
pub fn plan_migration(db: &Database, engine: EngineKind) -> Result<Vec<TableReport>, BenchError> {
    let src = source::read_source(&db.sqlite_path)?;
    let plan = keys::plan_database(&src, sqlwitness_dialect::shipped(engine));
    Ok(plan
        .tables
        .into_iter()
        .map(|t| {
            let mut r = table_report(&t);
            r.primary_key.applied = false;
            r
        })
        .collect())
}

pub(crate) fn table_report(t: &keys::TablePlan) -> TableReport {
    let mut primary_key = t.primary_key.clone();
    if t.apply_pk {
        primary_key.reason = format!("{} (to be applied)", primary_key.reason);
    }
    TableReport {
        name: t.name.clone(),
        rows_source: t.rows.len() as u64,
        rows_target: None,
        checksum_source: t.checksum.clone(),
        checksum_target: None,
        verified: false,
        error: None,
        columns: t.columns.clone(),
        coercions: t.coercions.clone(),
        primary_key,
        foreign_keys: t.foreign_keys.clone(),
    }
}
