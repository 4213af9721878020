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
use sqlwitness_dialect::Adapter;

use crate::migrate::fingerprint::modified_ns;
use crate::BenchError;

/// The version of [`target_type`]'s choices: a copy typed by another is
/// out of date.
pub const TARGET_TYPES_VERSION: u32 = 1;

/// The model's format; another is an error.
pub const SOURCE_MODEL_FORMAT: u32 = 1;

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
        })
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
        if self.modified_ns != 0 && modified_ns(&meta) == self.modified_ns {
            return Ok(true);
        }
        Ok(DumpIdentity::of(&self.path)?.sha256 == self.sha256)
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

/// A type split into its base (lower case), its list's numbers, `unsigned`
/// and its collation.
struct Parsed {
    base: String,
    args: Vec<u32>,
    parenthesised: bool,
    unsigned: bool,
    zerofill: bool,
    collation: Option<String>,
}

fn parse(source_type: &str) -> Parsed {
    let shape = crate::migrate::TypeShape::of(source_type);
    let lower = source_type.to_ascii_lowercase();
    let collation = lower.find(" collate ").map(|i| {
        source_type[i + " collate ".len()..]
            .split_whitespace()
            .next()
            .unwrap_or("")
            .trim_start_matches("pg_catalog.")
            .trim_matches('"')
            .to_string()
    });
    Parsed {
        base: shape.base,
        args: shape.args,
        parenthesised: shape.parenthesised,
        unsigned: shape.unsigned,
        zerofill: shape.zerofill,
        collation,
    }
}

/// What a source column becomes on a target engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetType {
    /// This type, spelled for the target, keeps the source's meaning.
    Kept(String),
    /// This type, with what it does not keep.
    Changed(String, String),
    /// No type of the target is chosen from the source's: the migration
    /// decides from the SQLite file's values (why).
    Inferred(String),
}

/// The type `column` of the source's model takes on `to_engine`: an enum
/// (a PostgreSQL type the dump defines, with its labels in the model, or
/// MySQL's `enum(…)`) keeps its labels and their order where the target has
/// enums (MySQL and MariaDB `enum(…)` compared by its exact labels, DuckDB
/// `ENUM(…)`); every other column as [`target_type`] says.
pub fn column_target(
    from_engine: EngineKind,
    column: &ModelColumn,
    to_engine: EngineKind,
) -> TargetType {
    let from = sqlwitness_dialect::shipped(from_engine).adapter;
    let to = sqlwitness_dialect::shipped(to_engine).adapter;
    let labels = if column.labels.is_empty() {
        mysql_enum_labels(&column.source_type)
    } else {
        Some(column.labels.clone())
    };
    match labels {
        Some(labels) if !(from == Adapter::Mysql && to == Adapter::Mysql) => {
            enum_target(&labels, to, to_engine)
        }
        _ => target_type(from_engine, &column.source_type, to_engine),
    }
}

/// An enum of `labels` on `to`.
fn enum_target(labels: &[String], to: Adapter, to_engine: EngineKind) -> TargetType {
    let list = |escape_backslash: bool| {
        labels
            .iter()
            .map(|l| {
                let l = l.replace('\'', "''");
                let l = if escape_backslash {
                    l.replace('\\', "\\\\")
                } else {
                    l
                };
                format!("'{l}'")
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    match to {
        // Compared by its labels exactly, as the source's enum.
        Adapter::Mysql if !labels.is_empty() => TargetType::Kept(format!(
            "enum({}) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
            list(true)
        )),
        Adapter::Duckdb if !labels.is_empty() => TargetType::Kept(format!("ENUM({})", list(false))),
        _ => TargetType::Inferred(format!(
            "an enum: its labels are carried as text; their declared order is not kept on \
             {to_engine}"
        )),
    }
}

/// The labels of MySQL's `enum('a','b')` as `COLUMN_TYPE` writes it (a
/// quote doubled, a backslash escape read as MySQL reads it: `\n`, `\t`,
/// `\r`, `\0`, else the character itself), in order; `None` for another
/// type or a list that does not end.
pub fn mysql_enum_labels(source_type: &str) -> Option<Vec<String>> {
    let t = source_type.trim();
    if !t.get(..5)?.eq_ignore_ascii_case("enum(") {
        return None;
    }
    let mut labels = Vec::new();
    let mut chars = t[5..].chars().peekable();
    loop {
        match chars.next()? {
            '\'' => {
                let mut label = String::new();
                loop {
                    match chars.next()? {
                        '\'' if chars.peek() == Some(&'\'') => {
                            chars.next();
                            label.push('\'');
                        }
                        '\'' => break,
                        '\\' => label.push(match chars.next()? {
                            'n' => '\n',
                            't' => '\t',
                            'r' => '\r',
                            '0' => '\0',
                            other => other,
                        }),
                        c => label.push(c),
                    }
                }
                labels.push(label);
            }
            ',' | ' ' => {}
            ')' => return Some(labels),
            _ => return None,
        }
    }
}

/// The type a column of `source_type` on the `from` family takes on the
/// `to` family. Integers keep their width (and an unsigned one a width
/// that holds it), decimals their precision and scale, floats their
/// precision, strings their length and a binary or `C` collation,
/// dates and timestamps their kind. What no target type keeps (an enum's
/// order, a case-insensitive collation on PostgreSQL, spatial and array
/// types) is said.
pub fn target_type(
    from_engine: EngineKind,
    source_type: &str,
    to_engine: EngineKind,
) -> TargetType {
    let from = sqlwitness_dialect::shipped(from_engine).adapter;
    let to = sqlwitness_dialect::shipped(to_engine).adapter;
    let p = parse(source_type);
    if p.zerofill {
        return TargetType::Inferred("zerofill is a display width only MySQL keeps".into());
    }
    if from == to && matches!(to, Adapter::Mysql) {
        // An unsigned integer is read back signed by the migration: one
        // width up holds every value.
        if p.unsigned {
            let wider = match p.base.as_str() {
                "tinyint" => "smallint",
                "smallint" => "int",
                "mediumint" | "int" | "integer" => "bigint",
                _ => {
                    return TargetType::Inferred(format!(
                        "{} unsigned is read back signed: the migration decides from the values",
                        p.base
                    ))
                }
            };
            return TargetType::Changed(
                wider.to_string(),
                format!("{} unsigned held as {wider} (signed, one width up)", p.base),
            );
        }
        // The same family: the type as written, with its character set and
        // collation — but MySQL's `_0900_` collations are MySQL's alone.
        let t = source_type.trim().to_string();
        return match p.collation.as_deref() {
            Some(c) if from_engine != to_engine && c.contains("_0900_") => {
                let near = if c.contains("_as_cs") || c.ends_with("_bin") {
                    "utf8mb4_bin"
                } else {
                    "utf8mb4_unicode_520_ci"
                };
                TargetType::Changed(
                    t.replace(c, near),
                    format!("its collation {c} is MySQL's alone: {near} on {to_engine}"),
                )
            }
            _ => TargetType::Kept(t),
        };
    }
    let lower = source_type.trim().to_ascii_lowercase();
    if lower.starts_with('"') {
        return TargetType::Inferred(
            "a type the dump defines (an enum: its labels are carried as text; their declared \
             order is not kept)"
                .into(),
        );
    }
    if lower.starts_with("enum(") {
        return TargetType::Inferred(
            "an enum: its labels are carried as text; their declared order is not kept".into(),
        );
    }
    let dec = |p: &Parsed| -> Option<(u32, u32)> {
        match (p.args.first(), p.args.get(1)) {
            (Some(&pr), Some(&s)) => Some((pr, s)),
            (Some(&pr), None) => Some((pr, 0)),
            // MySQL's `decimal` is decimal(10,0); PostgreSQL's `numeric`
            // has no fixed scale.
            (None, _) if from == Adapter::Mysql => Some((10, 0)),
            _ => None,
        }
    };
    match to {
        Adapter::Postgres => {
            let collate = match p.collation.as_deref() {
                Some(c) if c.ends_with("_bin") || c == "binary" || c == "C" || c == "POSIX" => {
                    Ok(" COLLATE \"C\"")
                }
                Some(c) if from == Adapter::Mysql && c.contains("_ci") => Err(format!(
                    "its collation {c} compares case-insensitively, which PostgreSQL's default \
                     collation does not"
                )),
                _ => Ok(""),
            };
            let t = match p.base.as_str() {
                "tinyint" | "smallint" if !p.unsigned => "smallint".to_string(),
                "tinyint" | "smallint" | "mediumint" => "integer".to_string(),
                "int" | "integer" if !p.unsigned => "integer".to_string(),
                "int" | "integer" => "bigint".to_string(),
                "bigint" if !p.unsigned => "bigint".to_string(),
                "bigint" => "numeric(20,0)".to_string(),
                "decimal" | "numeric" | "dec" | "fixed" => match dec(&p) {
                    Some((pr, s)) => format!("numeric({pr},{s})"),
                    None => "numeric".to_string(),
                },
                "double" | "double precision" if !p.parenthesised => "double precision".to_string(),
                "real" if from == Adapter::Postgres => "real".to_string(),
                "timestamp without time zone" | "timestamp"
                    if from == Adapter::Postgres && !p.parenthesised =>
                {
                    "timestamp without time zone".to_string()
                }
                "real" if from == Adapter::Mysql && !p.parenthesised => {
                    "double precision".to_string()
                }
                "timestamp" if from == Adapter::Mysql && !p.parenthesised => {
                    return TargetType::Changed(
                        "timestamp without time zone".into(),
                        "MySQL's timestamp (an instant, shown in the session's time zone: UTC \
                         in every sqlwitness session) held as that wall-clock time"
                            .into(),
                    )
                }
                "year" if from == Adapter::Mysql => {
                    return TargetType::Changed("smallint".into(), "year held as its number".into())
                }
                "varchar" | "character varying" if !p.args.is_empty() => {
                    format!("character varying({})", p.args[0])
                }
                "text" | "tinytext" | "mediumtext" | "longtext" => "text".to_string(),
                "date" => "date".to_string(),
                "datetime" if !p.parenthesised => "timestamp without time zone".to_string(),
                _ => {
                    return TargetType::Inferred(format!(
                        "{} has no PostgreSQL type the migration loads and reads back exactly",
                        p.base
                    ))
                }
            };
            let text = matches!(
                p.base.as_str(),
                "varchar" | "character varying" | "text" | "tinytext" | "mediumtext" | "longtext"
            );
            match (text, collate) {
                (true, Ok(c)) => TargetType::Kept(format!("{t}{c}")),
                (true, Err(why)) => TargetType::Changed(t, why),
                (false, _) => TargetType::Kept(t),
            }
        }
        Adapter::Mysql => {
            let collate = match p.collation.as_deref() {
                Some("C") | Some("POSIX") => " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
                _ => "",
            };
            let t = match p.base.as_str() {
                "smallint" | "int2" => "smallint".to_string(),
                "integer" | "int" | "int4" => "int".to_string(),
                "bigint" | "int8" => "bigint".to_string(),
                "numeric" | "decimal" => match dec(&p) {
                    Some((pr, s)) if pr <= 65 && s <= 30 => format!("decimal({pr},{s})"),
                    _ => {
                        return TargetType::Inferred(
                            "a numeric without a precision MySQL can hold".into(),
                        )
                    }
                },
                "real" | "double precision" => "double".to_string(),
                // MySQL's own boolean: 1/0, as the SQLite file holds it.
                "boolean" => "tinyint(1)".to_string(),
                "character varying" if !p.args.is_empty() => {
                    format!("varchar({}){collate}", p.args[0])
                }
                "text" => format!("text{collate}"),
                "date" => "date".to_string(),
                "timestamp without time zone" | "timestamp" if !p.parenthesised => {
                    "datetime".to_string()
                }
                _ => {
                    return TargetType::Inferred(format!(
                        "{} has no MySQL type the migration loads and reads back exactly",
                        p.base
                    ))
                }
            };
            TargetType::Kept(t)
        }
        Adapter::Duckdb => duckdb_target(&p, from, dec(&p)),
        _ => TargetType::Inferred("the target is SQLite".into()),
    }
}

/// [`target_type`] on DuckDB: integers of the same width and sign,
/// decimals up to DuckDB's 38 digits, text as `VARCHAR` (a case-insensitive
/// collation as `COLLATE NOCASE`, named as a change: accents still count).
fn duckdb_target(p: &Parsed, from: Adapter, dec: Option<(u32, u32)>) -> TargetType {
    let u = |signed: &str, unsigned: &str| if p.unsigned { unsigned } else { signed }.to_string();
    let t = match p.base.as_str() {
        "tinyint" => u("TINYINT", "UTINYINT"),
        "smallint" | "int2" => u("SMALLINT", "USMALLINT"),
        "mediumint" | "int" | "integer" | "int4" => u("INTEGER", "UINTEGER"),
        "bigint" | "int8" if !p.unsigned => "BIGINT".to_string(),
        "bigint" => "DECIMAL(20,0)".to_string(),
        "decimal" | "numeric" | "dec" | "fixed" => match dec {
            Some((pr, s)) if pr <= 38 && s <= pr => format!("DECIMAL({pr},{s})"),
            _ => {
                return TargetType::Inferred(
                    "a numeric without a precision DuckDB can hold (38 digits)".into(),
                )
            }
        },
        "double" | "double precision" | "float8" if !p.parenthesised => "DOUBLE".to_string(),
        "real" | "float4" if from == Adapter::Postgres => "REAL".to_string(),
        "real" if from == Adapter::Mysql && !p.parenthesised => "DOUBLE".to_string(),
        "boolean" | "bool" => "BOOLEAN".to_string(),
        "varchar" | "character varying" | "text" | "tinytext" | "mediumtext" | "longtext" => {
            return match p.collation.as_deref() {
                Some(c) if c.contains("_ci") => TargetType::Changed(
                    "VARCHAR COLLATE NOCASE".into(),
                    format!(
                        "its collation {c} compares case- and accent-insensitively; DuckDB's \
                         NOCASE ignores case only"
                    ),
                ),
                _ => TargetType::Kept("VARCHAR".into()),
            }
        }
        "date" => "DATE".to_string(),
        "timestamp without time zone" | "timestamp" | "datetime" if !p.parenthesised => {
            "TIMESTAMP".to_string()
        }
        "year" if from == Adapter::Mysql => {
            return TargetType::Changed("SMALLINT".into(), "year held as its number".into())
        }
        _ => {
            return TargetType::Inferred(format!(
                "{} has no DuckDB type the migration loads and reads back exactly",
                p.base
            ))
        }
    };
    TargetType::Kept(t)
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
