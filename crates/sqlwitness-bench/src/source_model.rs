//! The source's column model, kept beside a database that `import` wrote
//! from a dump or a live server database (`<db_id>.source.json` next to
//! `<db_id>.sqlite`): every column's type as its own server declares it
//! (with its character set and collation), how the SQLite file holds the
//! columns it could hold only degraded, and which dump the database came
//! from. Each copy on another engine takes its column types from here
//! ([`target_type`]), not from what the SQLite file can hold: a
//! `decimal(10,2)` stays a decimal, a `utf8mb4_bin` column keeps comparing
//! case-sensitively, a `varchar(40)` keeps its length.
//!
//! The model is written by `import`; a hand-edited one is read strictly
//! (unknown fields are an error naming the file).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sqlwitness_core::EngineKind;
pub use sqlwitness_dialect::TargetType;

use crate::BenchError;

/// The version of [`target_type`]'s choices: a copy typed by another is
/// out of date.
pub const TARGET_TYPES_VERSION: u32 = 2;

/// The model's format; another is an error.
pub const SOURCE_MODEL_FORMAT: u32 = 1;

/// The version of how `import` reads a source and writes its files (2: a
/// partition is a table of its own, `character(n)` values lose their pad;
/// 3: unique keys are unique indexes of the file); files written by another
/// are imported again from the same dump.
pub const IMPORT_METHOD: u32 = 3;

/// A file's modification time in nanoseconds since the epoch (0 unknown).
pub fn modified_ns(meta: &std::fs::Metadata) -> u128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

/// The dump a database was loaded from: enough to notice an edited one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumpIdentity {
    /// The dump's absolute path when it was imported.
    pub path: PathBuf,
    pub bytes: u64,
    /// The file's modification time (nanoseconds since the epoch): while
    /// it and the size are unchanged, the bytes are not read again.
    #[serde(default)]
    pub modified_ns: u128,
    /// SHA-256 of the dump's bytes, in hex.
    pub sha256: String,
    /// The files the dump includes (the mysql client's `source`, psql's
    /// `\i`): an edited one makes the dump's copies stale too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub includes: Vec<DumpIdentity>,
}

impl DumpIdentity {
    /// Reads `path` once, streaming.
    pub fn of(path: &Path) -> Result<DumpIdentity, BenchError> {
        use sha2::Digest;
        use std::io::Read;
        let io = |source| BenchError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut file = std::fs::File::open(path).map_err(io)?;
        let modified_ns = file.metadata().map(|m| modified_ns(&m)).unwrap_or(0);
        let mut hasher = sha2::Sha256::new();
        let mut buf = vec![0u8; 1 << 16];
        let mut bytes = 0u64;
        loop {
            let n = file.read(&mut buf).map_err(io)?;
            if n == 0 {
                break;
            }
            bytes += n as u64;
            hasher.update(&buf[..n]);
        }
        Ok(DumpIdentity {
            // Absolute: the model is read from wherever a later run starts.
            path: std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
            bytes,
            modified_ns,
            sha256: hex(&hasher.finalize()),
            includes: Vec::new(),
        })
    }

    /// This identity with those of the files the dump includes (read once
    /// each).
    pub fn with_includes(&self, files: &[PathBuf]) -> Result<DumpIdentity, BenchError> {
        let mut out = self.clone();
        out.includes = files
            .iter()
            .map(|f| DumpIdentity::of(f))
            .collect::<Result<_, _>>()?;
        Ok(out)
    }

    /// Whether every file the dump includes still holds its bytes (a file
    /// that is gone changed nothing, as a dump removed once imported: the
    /// files written stand for it).
    pub fn includes_unchanged(&self) -> bool {
        self.includes
            .iter()
            .all(|i| !i.path.is_file() || i.unchanged().unwrap_or(false))
    }

    /// Whether the file at `self.path` still holds these bytes (a size
    /// change is seen without reading it).
    pub fn unchanged(&self) -> Result<bool, BenchError> {
        let meta = std::fs::metadata(&self.path).map_err(|source| BenchError::Io {
            path: self.path.clone(),
            source,
        })?;
        if meta.len() != self.bytes {
            return Ok(false);
        }
        let same = (self.modified_ns != 0 && modified_ns(&meta) == self.modified_ns)
            || DumpIdentity::of(&self.path)?.sha256 == self.sha256;
        Ok(same && self.includes_unchanged())
    }

    /// The same bytes as `other`.
    pub fn same_bytes(&self, other: &DumpIdentity) -> bool {
        self.bytes == other.bytes && self.sha256 == other.sha256
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One column as the source declares it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelColumn {
    pub name: String,
    /// The type as the source's server writes it, with its character set
    /// and collation where the server names one (`varchar(20) CHARACTER
    /// SET utf8mb4 COLLATE utf8mb4_bin`, `text COLLATE pg_catalog."C"`).
    pub source_type: String,
    /// How the SQLite file holds the column, when it holds it degraded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub degraded: Option<String>,
    /// The labels of an enum type the dump defines (PostgreSQL's `CREATE
    /// TYPE … AS ENUM`), in their declared order; MySQL's enum labels are
    /// in `source_type`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelTable {
    pub name: String,
    pub columns: Vec<ModelColumn>,
}

/// What `import` keeps beside a database's SQLite file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceModel {
    pub format: u32,
    pub db_id: String,
    /// The source's engine (`postgres`, `mysql`, `mariadb`).
    pub engine: String,
    pub server_version: String,
    /// The dump the database was loaded from (none for a live database).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dump: Option<DumpIdentity>,
    /// Appended to the `db_id` in the namespace of every copy of this
    /// database (`sw_<db_id><suffix>`), when another benchmark's database
    /// of the same `db_id` held the plain one when this was imported: two
    /// benchmarks never share a copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_suffix: Option<String>,
    /// The dump's tables this database holds, when a `tables.json` chose
    /// them (none: all), to load it again as it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chosen_tables: Option<Vec<String>>,
    /// The database of a dump of several that was loaded (`--database`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dump_database: Option<String>,
    /// What the import could not carry into the file (a table refused or
    /// not verified, a table the mapping names that the source does not
    /// hold, the copy on the source's engine not made): empty when the
    /// database is whole.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub incomplete: Vec<String>,
    /// How the import read and wrote the database ([`IMPORT_METHOD`]): a
    /// database written by another method is imported again from the
    /// same dump.
    #[serde(default)]
    pub import_method: u32,
    /// The tables written into the SQLite file, in its order.
    pub tables: Vec<ModelTable>,
}

impl SourceModel {
    /// The source's engine.
    pub fn engine(&self) -> Option<EngineKind> {
        EngineKind::parse(&self.engine)
    }

    /// The column `table.column` (as the SQLite file spells them).
    pub fn column(&self, table: &str, column: &str) -> Option<&ModelColumn> {
        self.tables
            .iter()
            .find(|t| t.name == table)?
            .columns
            .iter()
            .find(|c| c.name == column)
    }

    /// A short fingerprint of the model, for a copy's plan: a copy made
    /// with other source types is out of date.
    pub fn fingerprint(&self) -> String {
        use sha2::Digest;
        let text = format!(
            "{TARGET_TYPES_VERSION} {}",
            serde_json::to_string(&self.tables).unwrap_or_default()
        );
        hex(&sha2::Sha256::digest(text.as_bytes())[..8])
    }
}

/// The canonical path of a benchmark file, as a copy's stamp names its
/// home.
pub fn home_of(sqlite: &Path) -> String {
    std::fs::canonicalize(sqlite)
        .unwrap_or_else(|_| sqlite.to_path_buf())
        .display()
        .to_string()
}

/// The namespace suffix of a database whose plain namespace another
/// benchmark's copy holds: `_` and six hex digits of its home.
pub fn namespace_suffix(home: &str) -> String {
    use sha2::Digest;
    format!("_{}", hex(&sha2::Sha256::digest(home.as_bytes())[..3]))
}

/// `db_id` as the servers address it: the namespace `prefix` + `db_id`,
/// with the suffix its source model records, if any.
pub fn database_of(db_id: &str, sqlite: &Path, prefix: &str) -> sqlwitness_core::Database {
    let mut db = sqlwitness_core::Database::with_prefix(db_id, sqlite, prefix);
    if let Ok(Some(model)) = read_model(sqlite) {
        if let Some(suffix) = model.namespace_suffix.filter(|s| !s.is_empty()) {
            db.namespace = sqlwitness_core::namespace_for(prefix, &format!("{db_id}{suffix}"));
        }
    }
    db
}

/// Where the model of the database whose SQLite file is `sqlite` lives:
/// `<stem>.source.json` beside it.
pub fn model_path(sqlite: &Path) -> PathBuf {
    let stem = sqlite
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    sqlite.with_file_name(format!("{stem}.source.json"))
}

/// The model beside `sqlite`, when there is one.
pub fn read_model(sqlite: &Path) -> Result<Option<SourceModel>, BenchError> {
    let path = model_path(sqlite);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(BenchError::Io { path, source }),
    };
    let model: SourceModel = serde_json::from_str(&text).map_err(|e| BenchError::Format {
        path: path.clone(),
        place: format!("line {}, column {}", e.line(), e.column()),
        message: e.to_string(),
    })?;
    if model.format != SOURCE_MODEL_FORMAT {
        return Err(BenchError::Format {
            path,
            place: "format".into(),
            message: format!(
                "format {} (this sqlwitness reads {SOURCE_MODEL_FORMAT}): import the database again",
                model.format
            ),
        });
    }
    Ok(Some(model))
}

/// Writes the model beside `sqlite` (through a temporary name).
pub fn write_model(sqlite: &Path, model: &SourceModel) -> Result<PathBuf, BenchError> {
    let path = model_path(sqlite);
    let tmp = path.with_extension("json.tmp");
    let io = |p: &Path, source| BenchError::Io {
        path: p.to_path_buf(),
        source,
    };
    let text = serde_json::to_string_pretty(model).unwrap_or_default();
    std::fs::write(&tmp, text).map_err(|e| io(&tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| io(&path, e))?;
    Ok(path)
}

/// The type `column` of the source's model takes on `to_engine`: the
/// source's dialect reads its type into the column model (an enum with the
/// labels the model keeps for a type the dump defines, or MySQL's inline
/// `enum(…)`), the target's dialect writes it (`column_model` in
/// `dialects/<engine>.yaml`).
pub fn column_target(
    from_engine: EngineKind,
    column: &ModelColumn,
    to_engine: EngineKind,
) -> TargetType {
    let labels = (!column.labels.is_empty()).then(|| column.labels.clone());
    let from = sqlwitness_dialect::shipped(from_engine);
    let read = from.column_model.read(&column.source_type, labels);
    sqlwitness_dialect::shipped(to_engine).column_target(to_engine, from, &read)
}

/// The labels of MySQL's `enum('a','b')` as `COLUMN_TYPE` writes it (see
/// [`sqlwitness_dialect::inline_labels`]); `None` for another type.
pub fn mysql_enum_labels(source_type: &str) -> Option<Vec<String>> {
    let t = source_type.trim();
    if !t.get(..5)?.eq_ignore_ascii_case("enum(") {
        return None;
    }
    sqlwitness_dialect::inline_labels(t)
}

/// The type a column of `source_type` on `from_engine` takes on
/// `to_engine` ([`column_target`] for a column the model knows no labels
/// of). Integers keep their width (and an unsigned one a width that holds
/// it), decimals their precision and scale, floats their precision,
/// strings their length and a binary or `C` collation, dates and
/// timestamps their kind. What no target type keeps (an enum's order, a
/// case-insensitive collation on PostgreSQL, spatial and array types) is
/// said.
pub fn target_type(
    from_engine: EngineKind,
    source_type: &str,
    to_engine: EngineKind,
) -> TargetType {
    let from = sqlwitness_dialect::shipped(from_engine);
    let read = from.column_model.read(source_type, None);
    sqlwitness_dialect::shipped(to_engine).column_target(to_engine, from, &read)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(non_upper_case_globals)]
    const Mysql: EngineKind = EngineKind::Mysql;
    #[allow(non_upper_case_globals)]
    const Postgres: EngineKind = EngineKind::Postgres;

    fn kept(t: TargetType) -> String {
        match t {
            TargetType::Kept(s) => s,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn decimals_stay_decimals_across_families() {
        assert_eq!(
            kept(target_type(Mysql, "decimal(5,2)", Postgres)),
            "numeric(5,2)"
        );
        assert_eq!(
            kept(target_type(Mysql, "decimal", Postgres)),
            "numeric(10,0)"
        );
        assert_eq!(
            kept(target_type(Postgres, "numeric(12,4)", Mysql)),
            "decimal(12,4)"
        );
        assert!(matches!(
            target_type(Postgres, "numeric", Mysql),
            TargetType::Inferred(_)
        ));
        assert_eq!(kept(target_type(Postgres, "numeric", Postgres)), "numeric");
    }

    #[test]
    fn integers_keep_a_width_that_holds_them() {
        assert_eq!(kept(target_type(Mysql, "tinyint(1)", Postgres)), "smallint");
        assert_eq!(
            kept(target_type(Mysql, "smallint unsigned", Postgres)),
            "integer"
        );
        assert_eq!(kept(target_type(Mysql, "int unsigned", Postgres)), "bigint");
        assert_eq!(
            kept(target_type(Mysql, "bigint unsigned", Postgres)),
            "numeric(20,0)"
        );
        assert_eq!(kept(target_type(Postgres, "integer", Mysql)), "int");
    }

    #[test]
    fn collations_are_carried_or_named() {
        assert_eq!(
            kept(target_type(
                Mysql,
                "varchar(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
                Postgres
            )),
            "character varying(20) COLLATE \"C\""
        );
        assert!(matches!(
            target_type(
                Mysql,
                "varchar(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_ai_ci",
                Postgres
            ),
            TargetType::Changed(t, _) if t == "character varying(20)"
        ));
        assert_eq!(
            kept(target_type(
                Postgres,
                "text COLLATE pg_catalog.\"C\"",
                Mysql
            )),
            "text CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
        );
        assert_eq!(
            kept(target_type(
                Mysql,
                "varchar(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
                Mysql
            )),
            "varchar(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
        );
        assert!(matches!(
            target_type(
                Mysql,
                "varchar(9) CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_ai_ci",
                EngineKind::Mariadb
            ),
            TargetType::Changed(t, _) if t.ends_with("utf8mb4_unicode_520_ci")
        ));
    }

    #[test]
    fn unsigned_integers_go_one_width_up_within_the_mysql_family() {
        assert!(matches!(
            target_type(Mysql, "smallint unsigned", EngineKind::Mariadb),
            TargetType::Changed(t, _) if t == "int"
        ));
        assert!(matches!(
            target_type(Mysql, "tinyint(3) unsigned", Mysql),
            TargetType::Changed(t, _) if t == "smallint"
        ));
        assert!(matches!(
            target_type(Mysql, "bigint unsigned", Mysql),
            TargetType::Inferred(_)
        ));
    }

    #[test]
    fn what_no_type_keeps_is_said() {
        assert!(matches!(
            target_type(Mysql, "enum('a','b')", Postgres),
            TargetType::Inferred(_)
        ));
        assert!(matches!(
            target_type(Postgres, "integer[]", Mysql),
            TargetType::Inferred(_)
        ));
        assert!(matches!(
            target_type(Mysql, "int(5) unsigned zerofill", Postgres),
            TargetType::Inferred(_)
        ));
    }

    #[test]
    fn an_enum_keeps_its_labels_and_their_order_where_the_target_has_enums() {
        let pg_enum = ModelColumn {
            name: "rating".into(),
            source_type: "\"sw_film\".\"mpaa_rating\"".into(),
            degraded: None,
            labels: vec!["G".into(), "PG-13".into(), "it's".into(), "a\\b".into()],
        };
        assert_eq!(
            kept(column_target(Postgres, &pg_enum, Mysql)),
            "enum('G','PG-13','it''s','a\\\\b') CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
        );
        assert_eq!(
            kept(column_target(Postgres, &pg_enum, EngineKind::Duckdb)),
            "ENUM('G','PG-13','it''s','a\\b')"
        );
        assert!(matches!(
            column_target(Postgres, &pg_enum, EngineKind::Sqlite),
            TargetType::Inferred(_)
        ));
        let my_enum = ModelColumn {
            name: "rating".into(),
            source_type:
                "enum('G','NC-17','it''s') CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_ai_ci".into(),
            degraded: None,
            labels: Vec::new(),
        };
        assert_eq!(
            mysql_enum_labels(&my_enum.source_type),
            Some(vec!["G".into(), "NC-17".into(), "it's".into()])
        );
        assert_eq!(
            kept(column_target(Mysql, &my_enum, EngineKind::Duckdb)),
            "ENUM('G','NC-17','it''s')"
        );
        // Within the MySQL family the type is kept as written (its
        // collation made MariaDB's).
        let within = column_target(Mysql, &my_enum, EngineKind::Mariadb);
        assert!(
            matches!(&within, TargetType::Changed(t, _) if t.starts_with("enum('G','NC-17'")),
            "{within:?}"
        );
        // PostgreSQL would need a type of its own in the copy's namespace.
        assert!(matches!(
            column_target(Mysql, &my_enum, Postgres),
            TargetType::Inferred(_)
        ));
        assert_eq!(mysql_enum_labels("varchar(20)"), None);
        assert_eq!(mysql_enum_labels("enum('a"), None);
    }

    #[test]
    fn the_model_sits_beside_the_file() {
        assert_eq!(
            model_path(Path::new("bench/db/shop/shop.sqlite")),
            PathBuf::from("bench/db/shop/shop.source.json")
        );
    }
}
