//! `manifest.json` of a suite folder: one entry per database with the seed,
//! the instances kept (sizes, which neighbours each kills), every gold's
//! neighbours and their fate. Maps are sorted, nothing depends on time, so
//! the same seed writes the same bytes.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::schema::{DbSchema, Domain, ForeignKeySpec};
use crate::FuzzError;

/// 2: instances keep the original's constraints, tie-aware comparison,
/// `stress`, `constraints`, `extra_foreign_keys`.
pub const MANIFEST_FORMAT: u32 = 2;

/// [`DbSuite::comparison`]: ties at the gold's cut and among equal sort
/// keys accept every valid answer; no row equals one row of NULLs.
pub const TIE_AWARE: &str = "tie_aware";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    pub databases: BTreeMap<String, DbSuite>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DbSuite {
    /// The run's seed (`--seed`); the database's stream is derived from it
    /// and the `db_id`.
    pub seed: u64,
    /// Rules the instances break on purpose (`fuzz --stress`); empty:
    /// every instance keeps the original's constraints.
    #[serde(default)]
    pub stress: Vec<String>,
    /// How the suite compares results on instances ([`TIE_AWARE`]).
    #[serde(default)]
    pub comparison: String,
    /// Foreign keys from outside the SQLite file (`tables.json`) that the
    /// instances keep.
    #[serde(default)]
    pub extra_foreign_keys: Vec<ForeignKeySpec>,
    /// The constraints the instances keep, declared and inferred.
    #[serde(default)]
    pub constraints: Constraints,
    /// Candidate instances generated before distillation.
    pub candidates: usize,
    /// The server engine the golds and their neighbours ran on (`fuzz
    /// --reference`); absent: SQLite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<ServerSuite>,
    /// The original database's file (a byte copy) in the suite folder.
    pub original: String,
    pub instances: Vec<InstanceEntry>,
    pub golds: Vec<GoldEntry>,
    pub counts: Counts,
}

/// [`ServerSuite::column_types`]: each instance reached the reference
/// engine by the ordinary migration of its SQLite file, with the column
/// types migration infers from it (not a dump's own types).
pub const MIGRATED_TYPES: &str = "migrated_from_sqlite";

/// [`ServerSuite::column_types`]: the original is a dump's own-typed copy
/// and the instances' columns took its types (a column it has not, or of
/// a type the migration cannot load and read back exactly, kept the
/// inferred one); an instance whose values those types would change was
/// rejected.
pub const ORIGINAL_TYPES: &str = "from_original_copy";

/// How a suite was distilled on a server engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerSuite {
    /// The engine (`postgres`, `mysql`, `mariadb`) whose gold ran.
    pub engine: String,
    /// The namespace of the original there (for a benchmark imported from
    /// a dump, the copy with the dump's own types).
    pub original: String,
    /// How the instances' columns were typed there ([`MIGRATED_TYPES`],
    /// [`ORIGINAL_TYPES`]).
    pub column_types: String,
    /// Candidates whose migration did not verify (not distilled), with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected: Vec<String>,
}

/// The constraints the generator keeps, as `table.column` lists.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Constraints {
    /// Columns never NULL: declared, key, or no NULL in the original.
    pub not_null: Vec<String>,
    /// Column sets without duplicates (`a+b` for composite keys).
    pub unique: Vec<String>,
    /// `child(cols) -> parent(cols)`, with the source and, for a key the
    /// original data breaks, the share of orphans kept.
    pub foreign_keys: Vec<String>,
    /// `table.column: values of the original (N)` or `…: shape S`.
    pub domains: Vec<String>,
}

impl Constraints {
    pub fn of(schema: &DbSchema) -> Constraints {
        let mut c = Constraints::default();
        for t in &schema.tables {
            let col = |i: usize| format!("{}.{}", t.name, t.columns[i].name);
            for (i, d) in t.columns.iter().enumerate() {
                if d.never_null {
                    c.not_null.push(col(i));
                }
                match &d.domain {
                    Domain::Free => {}
                    Domain::Set => c.domains.push(format!(
                        "{}: values of the original ({})",
                        col(i),
                        d.originals.len()
                    )),
                    Domain::Shape(s) => c.domains.push(format!("{}: shape {s}", col(i))),
                }
                if let Some(limit) = &d.type_limit {
                    c.domains.push(format!(
                        "{}: the reference's type: {}",
                        col(i),
                        limit.describe()
                    ));
                }
            }
            for u in &t.unique_sets {
                let names: Vec<&str> = u.iter().map(|&i| t.columns[i].name.as_str()).collect();
                c.unique.push(format!("{}.{}", t.name, names.join("+")));
            }
            for fk in &t.foreign_keys {
                let names: Vec<&str> = fk
                    .columns
                    .iter()
                    .map(|&i| t.columns[i].name.as_str())
                    .collect();
                let mut line = format!(
                    "{}({}) -> {}({}) [{}",
                    t.name,
                    names.join(", "),
                    fk.parent,
                    fk.parent_columns.join(", "),
                    fk.source
                );
                if fk.orphan_ratio > 0.0 {
                    line.push_str(&format!(
                        "; {:.0}% orphans in the original, kept",
                        fk.orphan_ratio * 100.0
                    ));
                }
                line.push(']');
                c.foreign_keys.push(line);
            }
        }
        c
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstanceEntry {
    pub file: String,
    /// Rows per table.
    pub rows: BTreeMap<String, usize>,
    /// Ids of the neighbours whose result differs from the gold's here
    /// (among those run on it: a neighbour already killed by three earlier
    /// candidates is not run again).
    pub kills: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoldEntry {
    pub question: usize,
    pub sql: String,
    /// `None` when the gold ran on the original; else why it was skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    pub neighbors: Vec<NeighborEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fate {
    /// The original database already tells it from the gold.
    KilledByOriginal,
    /// At least one kept instance tells it from the gold.
    Killed,
    /// Equal to the gold on the original and on every candidate.
    Survived,
    /// Fails to run on the original (not a plausible query).
    Invalid,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NeighborEntry {
    /// `q<question>.<n>`.
    pub id: String,
    pub kind: String,
    pub description: String,
    pub sql: String,
    pub fate: Fate,
    /// For survivors and invalid neighbours: why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    pub golds: usize,
    pub neighbors: usize,
    pub invalid: usize,
    pub killed_by_original: usize,
    pub killed_by_instances: usize,
    pub survived: usize,
    pub instances_kept: usize,
    /// Candidates the reference engine's migration did not verify.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rejected: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Manifest {
    /// Reads `path`; a missing file is an empty manifest.
    pub fn read(path: &Path) -> Result<Manifest, FuzzError> {
        if !path.exists() {
            return Ok(Manifest {
                format: MANIFEST_FORMAT,
                databases: BTreeMap::new(),
            });
        }
        let text =
            sqlwitness_core::read_input_to_string(path, sqlwitness_core::input::MANIFEST_FILE)
                .map_err(|e| FuzzError::io(path, e))?;
        let m: Manifest = serde_json::from_str(&text).map_err(|e| FuzzError::Manifest {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        if m.format != MANIFEST_FORMAT {
            return Err(FuzzError::Manifest {
                path: path.to_path_buf(),
                message: format!(
                    "format {} (expected {MANIFEST_FORMAT}): rebuild the suite with `sqlwitness fuzz`",
                    m.format
                ),
            });
        }
        Ok(m)
    }

    pub fn write(&self, path: &Path) -> Result<(), FuzzError> {
        let mut text = serde_json::to_string_pretty(self).map_err(|e| FuzzError::Manifest {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        text.push('\n');
        std::fs::write(path, text).map_err(|e| FuzzError::io(path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> DbSuite {
        DbSuite {
            seed: 1,
            stress: Vec::new(),
            comparison: TIE_AWARE.to_string(),
            extra_foreign_keys: Vec::new(),
            constraints: Constraints::default(),
            candidates: 3,
            reference: None,
            original: "db.sqlite".into(),
            instances: Vec::new(),
            golds: Vec::new(),
            counts: Counts::default(),
        }
    }

    #[test]
    fn a_sqlite_suite_writes_no_reference_and_an_older_entry_reads() {
        let text = serde_json::to_string(&entry()).unwrap();
        assert!(!text.contains("reference"), "{text}");
        assert!(!text.contains("rejected"), "{text}");
        let back: DbSuite = serde_json::from_str(&text).unwrap();
        assert_eq!(back, entry());
    }

    #[test]
    fn a_server_suite_keeps_its_reference() {
        let mut e = entry();
        e.reference = Some(ServerSuite {
            engine: "postgres".into(),
            original: "sw_db".into(),
            column_types: MIGRATED_TYPES.into(),
            rejected: vec!["candidate 2: tables failed verification: t".into()],
        });
        e.counts.rejected = 1;
        let text = serde_json::to_string(&e).unwrap();
        let back: DbSuite = serde_json::from_str(&text).unwrap();
        assert_eq!(back, e);
        assert_eq!(back.reference.unwrap().engine, "postgres");
    }
}
