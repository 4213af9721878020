//! The migration report (serde) and the log writer.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sqlwitness_core::{Database, EngineKind};

use crate::BenchError;

/// Most coerced values kept per table; the count stays exact.
pub const COERCION_SAMPLE_CAP: usize = 1000;

/// Serialised as `"migrated"`, `"up_to_date"` or `{"failed": {"reason": …}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MigrationStatus {
    /// The namespace was (re)created and loaded.
    Migrated,
    /// The target already held the same tables, row counts and checksums.
    UpToDate,
    /// A table could not be created, loaded or verified (the tables say
    /// which and why), or the migration could not start.
    Failed { reason: String },
}

/// Everything a migration did and decided, for one database on one engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MigrationReport {
    pub db_id: String,
    pub engine: EngineKind,
    /// PostgreSQL schema or MySQL database.
    pub namespace: String,
    pub server_version: String,
    /// MySQL: the database's default collation (the server's default is kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collation: Option<String>,
    pub status: MigrationStatus,
    pub tables: Vec<TableReport>,
    /// Database-level facts: skipped views, the read role, …
    #[serde(default)]
    pub notes: Vec<String>,
    /// How the checksums are computed (see [`CHECKSUM_METHOD`]).
    pub checksum_method: String,
    pub duration_ms: u64,
}

/// Documented in the report itself so a reader can recompute it.
pub const CHECKSUM_METHOD: &str = "per row: SHA-256 over sqlwitness_core::canonical_cell of each \
cell followed by 0x1f; per table: the row hashes summed as 256-bit big-endian integers modulo 2^256 \
(order-independent, duplicates count); dates as YYYY-MM-DD, timestamps as YYYY-MM-DD HH:MM:SS[.ffffff]";

impl MigrationReport {
    pub fn all_verified(&self) -> bool {
        self.tables.iter().all(|t| t.verified)
    }

    /// A report for a migration that could not run at all (for callers
    /// that turn a [`crate::BenchError`] into a report and go on).
    pub fn failed(db: &Database, engine: EngineKind, reason: impl Into<String>) -> Self {
        MigrationReport {
            db_id: db.db_id.clone(),
            engine,
            namespace: db.namespace.clone(),
            server_version: String::new(),
            collation: None,
            status: MigrationStatus::Failed {
                reason: reason.into(),
            },
            tables: Vec::new(),
            notes: Vec::new(),
            checksum_method: CHECKSUM_METHOD.to_string(),
            duration_ms: 0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableReport {
    pub name: String,
    pub rows_source: u64,
    #[serde(default)]
    pub rows_target: Option<u64>,
    pub checksum_source: String,
    #[serde(default)]
    pub checksum_target: Option<String>,
    pub verified: bool,
    /// Why the table could not be created, loaded or read back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub columns: Vec<ColumnDecision>,
    pub coercions: Coercions,
    pub primary_key: KeyReport,
    pub foreign_keys: Vec<ForeignKeyReport>,
}

/// The kind of target type a column got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    Integer,
    Real,
    Numeric,
    Text,
    Blob,
    Date,
    Timestamp,
}

/// How many values of each SQLite storage class a column holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StorageCounts {
    pub null: u64,
    pub integer: u64,
    pub real: u64,
    pub text: u64,
    pub blob: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnDecision {
    pub name: String,
    pub declared_type: String,
    pub storage: StorageCounts,
    pub kind: TargetKind,
    /// The target type exactly as created (`BIGINT`, `VARCHAR(255)` …).
    pub target_type: String,
    pub not_null: bool,
    pub reason: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coercions {
    /// Exact number of coerced values in the table.
    pub count: u64,
    /// The first [`COERCION_SAMPLE_CAP`] of them.
    pub sample: Vec<Coercion>,
}

/// One value that changed type on the way (the only way a value may change).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coercion {
    /// 0-based row in SQLite scan order.
    pub row: u64,
    pub column: String,
    /// The source value as SQLite shows it.
    pub value: String,
    pub from: String,
    pub to: String,
    /// The value as stored on the target, when its text differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyReport {
    /// Empty when the SQLite table declares no primary key.
    pub columns: Vec<String>,
    pub applied: bool,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForeignKeyReport {
    pub columns: Vec<String>,
    pub parent_table: String,
    pub parent_columns: Vec<String>,
    pub applied: bool,
    /// Child rows (all key columns non-null) without a parent row.
    pub orphan_rows: u64,
    pub reason: String,
}

/// Writes `report` to `<dir>/<engine>/<db_id>.json` (pretty JSON) and
/// returns the path.
pub fn write_migration_log(dir: &Path, report: &MigrationReport) -> Result<PathBuf, BenchError> {
    let sub = dir.join(report.engine.as_str());
    std::fs::create_dir_all(&sub).map_err(|e| BenchError::io(&sub, e))?;
    let path = sub.join(format!("{}.json", report.db_id));
    let text = serde_json::to_string_pretty(report)
        .map_err(|e| BenchError::format(&path, "$", format!("cannot serialise the report: {e}")))?;
    std::fs::write(&path, text + "\n").map_err(|e| BenchError::io(&path, e))?;
    Ok(path)
}
