//! Migration of a benchmark's SQLite database to a server engine, with
//! verification — the engine-independent sequence ([`sequence`]) over the
//! backend each engine family provides in `sqlwitness-engines` (its
//! [`sqlwitness_core::Migrator`], and SQLite's [`sqlwitness_core::Source`]).
//!
//! The source is read as a stream, twice: once to profile it ([`profile`],
//! cached by its content [`fingerprint`]), once per target to load it. Every
//! column's type is decided from its declared type and stored values
//! ([`plan`]); keys are checked on the data ([`keys`]); the rows are
//! converted, hashed ([`verify`]) and streamed into the server's bulk load.
//! A copy carries a stamp that proves sqlwitness made it and says what it
//! holds, so that a copy already up to date costs a lookup and a namespace
//! sqlwitness did not make is never touched. Everything lands in a
//! [`MigrationReport`] ([`log`]).

pub(crate) mod fingerprint;
mod keys;
mod log;
mod original_types;
mod plan;
mod profile;
mod sequence;
mod temporal;
mod verify;
pub(crate) mod views;

pub use fingerprint::{cache_dir, source_fingerprint, CACHE_DIR_ENV};
pub use log::{
    write_migration_log, Coercion, Coercions, ColumnDecision, ForeignKeyReport, KeyReport,
    MigrationReport, MigrationStatus, StorageCounts, TableReport, TargetKind, Verification,
    CHECKSUM_METHOD, COERCION_SAMPLE_CAP,
};
pub use original_types::{dump_copy_column_types, TypeShape, TypesFrom, TypesReport};
pub use views::ViewReport;

use std::path::PathBuf;

use sqlwitness_core::{Database, EngineKind};

use sqlwitness_bench::BenchError;

/// Where to migrate to: a server engine and its administrative URL. The
/// engine's dialect file names the backend (its `adapter`): on PostgreSQL
/// a schema named after the namespace in the URL's database, on MySQL and
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

/// How a migration checks its copy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Verify {
    /// The checksum of the stream written, the row counts the server
    /// reports for it and the rows it counts in each table after the load;
    /// an up-to-date copy is trusted by its stamp.
    #[default]
    Load,
    /// Every row read back and hashed again, for new and up-to-date copies
    /// alike (streaming: the client never holds a table).
    Full,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigrateOptions {
    /// Drop and recreate the namespace even when it is already up to date.
    pub force: bool,
    /// The reader login was made ready on this server ([`prepare_target`]):
    /// a migration only grants it read access to its namespace.
    pub reader_ready: bool,
    pub verify: Verify,
    /// Tables loaded at once, each over its own connection.
    pub jobs: usize,
    /// Where source fingerprints and profiles are cached (see
    /// [`cache_dir`]); `None`: the default folder.
    pub cache_dir: Option<PathBuf>,
    /// Take column types from another copy of the database on the same
    /// server when it is a dump's own-typed copy (scratch copies of a
    /// server reference); the copy is then read back in full.
    pub types_from: Option<TypesFrom>,
}

impl Default for MigrateOptions {
    fn default() -> Self {
        MigrateOptions {
            force: false,
            reader_ready: false,
            verify: Verify::Load,
            jobs: 2,
            cache_dir: None,
            types_from: None,
        }
    }
}

/// Migrates `db` (its SQLite file, read-only) into the namespace
/// `db.namespace` on `target`, then verifies every table.
///
/// Synchronous (the backend bridges to its driver inside); do not call it
/// from inside an async context.
///
/// `Err` when the SQLite file cannot be read, the server cannot be
/// reached, or the namespace is refused (the server's own, or one that
/// sqlwitness did not create — it is left untouched); failures of single
/// tables or keys are recorded in the report (status `failed` when a table
/// does not verify) and the others go on.
pub fn migrate_database(
    db: &Database,
    target: &MigrationTarget,
    opts: &MigrateOptions,
) -> Result<MigrationReport, BenchError> {
    sequence::run(db, target, opts)
}

fn target_error(target: &MigrationTarget, what: &str, e: impl std::fmt::Display) -> BenchError {
    BenchError::Migration {
        db_id: what.to_string(),
        engine: target.engine().to_string(),
        message: e.to_string(),
    }
}

/// Creates or fixes the reader login on `target` (what every migration's
/// grant would otherwise do, racing the others when databases migrate in
/// parallel); returns notes.
pub fn prepare_target(target: &MigrationTarget) -> Result<Vec<String>, BenchError> {
    let mut w = sqlwitness_engines::open_migrator(target.engine(), &target.url)
        .map_err(|e| target_error(target, "", e))?;
    w.prepare_reader().map_err(|e| target_error(target, "", e))
}

/// Drops the namespace (schema or database) `namespace` on `target` if it
/// exists — only when sqlwitness created it (its stamp is there); a
/// foreign one is an error naming it, and is left untouched.
pub fn drop_namespace(target: &MigrationTarget, namespace: &str) -> Result<(), BenchError> {
    let mut w = sqlwitness_engines::open_migrator(target.engine(), &target.url)
        .map_err(|e| target_error(target, namespace, e))?;
    w.lock(namespace)
        .map_err(|e| target_error(target, namespace, e))?;
    let r = w.drop_namespace(namespace);
    w.unlock(namespace);
    r.map_err(|e| target_error(target, namespace, e))
}

/// The migration decisions for `db` on `engine` without touching a server:
/// one [`TableReport`] per table with the column decisions, coercions,
/// checksum and key decisions (`applied` is false everywhere, `rows_target`
/// empty).
pub fn plan_migration(db: &Database, engine: EngineKind) -> Result<Vec<TableReport>, BenchError> {
    let sqlite_err = |e: sqlwitness_core::DbError| BenchError::Sqlite {
        path: db.sqlite_path.clone(),
        message: e.message,
    };
    let mut src =
        sqlwitness_engines::open_source(EngineKind::Sqlite, &db.sqlite_path).map_err(sqlite_err)?;
    let cache = cache_dir(None);
    let fingerprint = source_fingerprint(&db.sqlite_path, cache.as_deref())?;
    let dialect = sqlwitness_dialect::shipped(engine);
    let (_, plan) = sequence::plan_source(
        &mut *src,
        dialect,
        &fingerprint,
        cache.as_deref(),
        &mut Default::default(),
    )
    .map_err(sqlite_err)?;
    let mut out = Vec::new();
    for t in &plan.tables {
        let mut r = sequence::table_report(t);
        r.primary_key.applied = false;
        // A dry conversion pass: the coercions and the checksum of the rows
        // as they would be written.
        let mut conv = plan::Converter::new(&t.columns, &dialect.types);
        let mut sum = verify::Checksum::default();
        let mut buf = Vec::new();
        let mut row_no = 0u64;
        src.scan(&t.source, &mut |batch, lossy| {
            let start = row_no;
            for &(row, c) in lossy {
                if let Some(v) = batch.get((row - start) as usize) {
                    conv.lossy(row, c, &v[c]);
                }
            }
            for row in batch {
                let v = conv.row(row_no, row);
                sum.add_row(&v, &mut buf);
                row_no += 1;
            }
            Ok(())
        })
        .map_err(sqlite_err)?;
        r.coercions = conv.coercions;
        r.checksum_source = sum.hex();
        out.push(r);
    }
    Ok(out)
}

/// Why a scratch copy (a generated instance, a perturbed database) is not
/// placed on a server reference.
#[derive(Debug, thiserror::Error)]
pub enum Unplaced {
    /// The migration failed.
    #[error("{0}")]
    Migration(sqlwitness_bench::BenchError),
    /// The migration ran and its copy did not verify (the report's words).
    #[error("{0}")]
    Unverified(String),
    /// The run's login could not be given read access to it.
    #[error("{0}")]
    NotGranted(sqlwitness_engines::EngineError),
}
