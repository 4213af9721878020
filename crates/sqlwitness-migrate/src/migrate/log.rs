//! The migration report (serde) and the log writer.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sqlwitness_core::{Database, EngineKind};

use sqlwitness_bench::BenchError;

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
    /// What `verified` rests on: the row counts the server reported for
    /// the stream whose checksum is `checksum_source` (`load`), or every
    /// row read back and hashed again (`full`).
    #[serde(default)]
    pub verification: Verification,
    pub duration_ms: u64,
    /// Where the time went, in milliseconds per step (`profile`, `plan`,
    /// `load` with the foreign keys added while other tables loaded,
    /// `foreign_keys` left to after every load, `views`, `verify`,
    /// `analyze`), for a migration that ran.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub steps_ms: std::collections::BTreeMap<String, u64>,
    /// The source's views and what became of each on the target (carried
    /// where the target answers as the source does).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub views: Vec<super::ViewReport>,
    /// Column types taken from the original copy on the same server (a
    /// scratch copy of a server reference), when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column_types: Option<super::TypesReport>,
}

/// Documented in the report itself so a reader can recompute it.
pub const CHECKSUM_METHOD: &str = "per row: XXH3-128 over each cell's typed encoding (a tag byte; \
integers as 8 little-endian bytes, floats by their IEEE-754 bits with -0 as 0, text, bytes, \
normalised decimals, dates as YYYY-MM-DD and timestamps as YYYY-MM-DD HH:MM:SS[.f] without \
trailing zeros, each length-prefixed); per table: the row hashes summed as 128-bit integers \
modulo 2^128 (order-independent, duplicates count), over the rows as written to the target";

/// How a migration checked its copy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verification {
    /// The checksum of the stream written, and the row count the server
    /// reported for it.
    #[default]
    Load,
    /// Every row read back from the target and hashed again.
    Full,
}

impl MigrationReport {
    /// What is wrong with the migration, or `None` when every table
    /// verified.
    pub fn problem(&self) -> Option<String> {
        let bad: Vec<&TableReport> = self.tables.iter().filter(|t| !t.verified).collect();
        if !bad.is_empty()
            && self
                .column_types
                .as_ref()
                .is_some_and(|c| c.columns_typed > 0)
        {
            // With the original's types, say what did not fit them.
            let why: Vec<String> = bad
                .iter()
                .map(|t| match &t.error {
                    Some(e) => format!("{} ({e})", t.name),
                    None => format!(
                        "{} (the rows read back differ from the rows written: a value the \
                         original's column types change)",
                        t.name
                    ),
                })
                .collect();
            return Some(format!(
                "tables failed verification with the original copy's column types: {}",
                why.join("; ")
            ));
        }
        if let MigrationStatus::Failed { reason } = &self.status {
            return Some(format!("migration failed: {reason}"));
        }
        let bad: Vec<&str> = bad.iter().map(|t| t.name.as_str()).collect();
        (!bad.is_empty()).then(|| format!("tables failed verification: {}", bad.join(", ")))
    }
}

impl MigrationReport {
    pub fn all_verified(&self) -> bool {
        self.tables.iter().all(|t| t.verified)
    }

    /// A report for a migration that could not run at all (for callers
    /// that turn a [`sqlwitness_bench::BenchError`] into a report and go on).
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
            verification: Verification::Load,
            duration_ms: 0,
            steps_ms: Default::default(),
            views: Vec::new(),
            column_types: None,
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
    /// The source's unique keys besides the primary key, each carried or
    /// with why not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unique_keys: Vec<KeyReport>,
    pub foreign_keys: Vec<ForeignKeyReport>,
    /// Milliseconds streaming the rows, and adding the primary key after
    /// them (when it was not declared with the table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_ms: Option<u64>,
    /// Milliseconds adding the foreign keys (as soon as the table and its
    /// parents were loaded, while other tables still loaded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foreign_keys_ms: Option<u64>,
}

pub use sqlwitness_core::TargetKind;

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
    // The file name is made from the db_id: it must stay a name (the
    // loaders refuse such db_ids already; this keeps any other caller in).
    if let Some(problem) = sqlwitness_bench::db_id_problem(&report.db_id) {
        return Err(BenchError::format(dir, "migration log", problem));
    }
    let sub = dir.join(report.engine.as_str());
    std::fs::create_dir_all(&sub).map_err(|e| BenchError::io(&sub, e))?;
    let path = sub.join(format!("{}.json", report.db_id));
    let text = serde_json::to_string_pretty(report)
        .map_err(|e| BenchError::format(&path, "$", format!("cannot serialise the report: {e}")))?;
    std::fs::write(&path, text + "\n").map_err(|e| BenchError::io(&path, e))?;
    Ok(path)
}

impl MigrationReport {
    /// What the copy changed that can make an engine answer differently
    /// from SQLite, per table: `nul_stripped` (a text held NUL characters
    /// the server cannot store; they were removed) and `mixed_storage` (a
    /// column holding blobs and other values became binary, so its text
    /// values are bytes on the server).
    pub fn caveats(&self) -> Vec<(String, &'static str)> {
        let mut out = Vec::new();
        for t in &self.tables {
            // A text that stays text changes only by losing its NULs.
            let nul = t.coercions.sample.iter().any(|c| {
                c.from == "text"
                    && t.columns
                        .iter()
                        .any(|d| d.name == c.column && d.kind == TargetKind::Text)
            });
            if nul {
                out.push((t.name.clone(), "nul_stripped"));
            }
            let mixed = t.columns.iter().any(|c| {
                c.kind == TargetKind::Blob
                    && c.storage.text + c.storage.integer + c.storage.real > 0
            });
            if mixed {
                out.push((t.name.clone(), "mixed_storage"));
            }
        }
        out
    }
}
