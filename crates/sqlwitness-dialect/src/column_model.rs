//! The column model (`column_model` in a dialect file): how a column type
//! as this engine's server writes it reads as a kind every engine knows
//! (`int32`, `decimal`, `varchar`, `enum` …), and how each kind is written
//! as this engine's type — kept, changed (and what changes), or left to
//! the migration's inference (and why). A copy of a database from a dump
//! or a live schema takes its column types from here: the source's dialect
//! reads the type, the target's writes it. Code never asks which engine
//! either is.

use std::collections::BTreeMap;

use serde::Deserialize;
use sqlwitness_core::EngineKind;

use crate::Dialect;

/// A kind of the column model: what a column's values are, whatever the
/// engine calls the type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Int8,
    Int16,
    Int24,
    Int32,
    Int64,
    Uint8,
    Uint16,
    Uint24,
    Uint32,
    Uint64,
    /// A decimal of a precision and scale (the type's or the engine's
    /// `decimal_default`).
    Decimal,
    /// A decimal of any precision and scale (PostgreSQL's bare `numeric`).
    Number,
    Float32,
    Float64,
    Boolean,
    /// Text of at most `n` characters (`varchar(n)`).
    Varchar,
    /// Text of exactly `n` characters, padded by the engine's rules.
    Char,
    Text,
    Date,
    /// A date and time without a time zone.
    Timestamp,
    /// An instant shown in the session's time zone (MySQL's `timestamp`;
    /// UTC in every sqlwitness session).
    Instant,
    /// A year held as its number.
    Year,
    /// A time of day (PostgreSQL's `time`; MySQL's `time`, which also holds
    /// elapsed times past 24 hours and below zero, is not one).
    Time,
    /// A UUID.
    Uuid,
    /// A JSON document.
    Json,
    /// One of a list of labels, ordered as declared.
    Enum,
    /// A set of labels.
    Set,
}

impl Kind {
    /// The unsigned kind of an integer kind.
    fn unsigned(self) -> Option<Kind> {
        Some(match self {
            Kind::Int8 => Kind::Uint8,
            Kind::Int16 => Kind::Uint16,
            Kind::Int24 => Kind::Uint24,
            Kind::Int32 => Kind::Uint32,
            Kind::Int64 => Kind::Uint64,
            _ => return None,
        })
    }

    /// An integer kind's width in bits and whether it is unsigned.
    pub fn integer_bits(self) -> Option<(u32, bool)> {
        Some(match self {
            Kind::Int8 => (8, false),
            Kind::Int16 => (16, false),
            Kind::Int24 => (24, false),
            Kind::Int32 => (32, false),
            Kind::Int64 => (64, false),
            Kind::Uint8 => (8, true),
            Kind::Uint16 => (16, true),
            Kind::Uint24 => (24, true),
            Kind::Uint32 => (32, true),
            Kind::Uint64 => (64, true),
            _ => return None,
        })
    }

    /// A kind a type's parenthesised list changes beyond what the kind
    /// keeps (`double(10,2)` rounds, `datetime(3)` has fractions).
    fn unlisted_only(self) -> bool {
        matches!(
            self,
            Kind::Float32 | Kind::Float64 | Kind::Timestamp | Kind::Instant
        )
    }

    /// Text kinds, which carry a collation.
    fn is_text(self) -> bool {
        matches!(self, Kind::Varchar | Kind::Text)
    }
}

/// A target type of a kind: the type (`{p}`, `{s}`: a decimal's precision
/// and scale; `{n}`: a length; `{labels}`: an enum's labels), and what it
/// does not keep of the source's.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum TypeRule {
    Kept(String),
    Changed {
        #[serde(rename = "type")]
        type_name: String,
        changed: String,
    },
}

impl TypeRule {
    fn parts(&self) -> (&str, Option<&str>) {
        match self {
            TypeRule::Kept(t) => (t, None),
            TypeRule::Changed { type_name, changed } => (type_name, Some(changed)),
        }
    }
}

/// The widest decimal an engine holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecimalMax {
    pub precision: u32,
    pub scale: u32,
}

/// Collations an engine of the same family lacks (MySQL's `_0900_` ones on
/// MariaDB): a collation containing `contains` becomes `binary` when it
/// compares exactly (`_bin`, `_as_cs`), else `other`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MissingCollation {
    pub contains: String,
    pub binary: String,
    pub other: String,
}

/// How the migration loads and reads back a column of a type it created:
/// the kind of value it writes and compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reads {
    Integer,
    /// A double.
    Real,
    /// A single-precision float: values rounded to it.
    Real32,
    Numeric,
    Text,
    /// Text, but not in a key (an engine whose keys need a sized type).
    TextNotInKey,
    Date,
    Timestamp,
    /// An enum's or a set's labels, as text (when the values are text).
    Labels,
    /// A time, read as its text and compared with trailing fractional
    /// zeros taken off (`12:00:00.500000` is `12:00:00.5`).
    Time,
    /// JSON, read as its text and compared as JSON (keys in any order,
    /// numbers by value), as a server keeps it in its own form. Never in a
    /// key.
    Json,
}

/// `column_model` of a dialect file (see the module).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnModel {
    /// Reading: this engine's type names (lower case, without their
    /// parenthesised list, `unsigned` and collation) → kind; `named`: a
    /// type the database defines (a quoted name).
    #[serde(default)]
    pub kinds: BTreeMap<String, Kind>,
    /// A decimal written without a precision is `decimal(p,s)` of these
    /// (MySQL: 10, 0); absent: any number.
    #[serde(default)]
    pub decimal_default: Option<[u32; 2]>,
    /// Writing: kind → this engine's type.
    #[serde(default)]
    pub types: BTreeMap<Kind, TypeRule>,
    /// The widest decimal held; a wider one is left to inference.
    #[serde(default)]
    pub decimal_max: Option<DecimalMax>,
    /// A text type with a collation that compares bytes (`_bin`, `binary`,
    /// `C`, `POSIX`): `{type}` the text type.
    #[serde(default)]
    pub binary_collation: Option<String>,
    /// A text type with a case-insensitive collation (`_ci`): `{type}` the
    /// text type, `{collation}` the collation.
    #[serde(default)]
    pub case_insensitive_collation: Option<TypeRule>,
    /// An enum's labels in `{labels}` have a backslash doubled (the engine
    /// reads backslash escapes in strings).
    #[serde(default)]
    pub labels_escape_backslash: bool,
    /// From an engine of the same adapter family: the type as written.
    #[serde(default)]
    pub same_family_as_written: bool,
    /// Within the family, an unsigned integer the migration reads back
    /// signed: its type one width up (base name → wider type).
    #[serde(default)]
    pub unsigned_read_signed: BTreeMap<String, String>,
    /// A foreign key needs its child and parent columns of one type
    /// (MySQL, MariaDB): two integer columns a key joins take the wider
    /// one's type.
    #[serde(default)]
    pub key_types_match: bool,
    /// Collations of the family this engine lacks.
    #[serde(default)]
    pub missing_collations: Vec<MissingCollation>,
    /// Reading back: the base name of a type the migration created → how
    /// it loads and reads it; `named` a type the database defines; a type
    /// named with its list (`datetime(6)`) is that type exactly; a type
    /// not named here keeps the inferred type.
    #[serde(default)]
    pub reads: BTreeMap<String, Reads>,
}

/// A column type split as a server writes it (PostgreSQL's `format_type`,
/// MySQL's `COLUMN_TYPE` with its character set and collation): its base
/// name in lower case (without its parenthesised list, `unsigned` and
/// `zerofill`), the list's numbers, those words, and its collation.
/// `decimal(10,2) unsigned` → `decimal`, `[10, 2]`, unsigned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeShape {
    pub base: String,
    /// Whether the type has a parenthesised list (`double(10,2)`).
    pub parenthesised: bool,
    /// The list's numbers (`varchar(20)` → `[20]`).
    pub args: Vec<u32>,
    pub unsigned: bool,
    pub zerofill: bool,
    /// The collation named after `COLLATE` (PostgreSQL's `pg_catalog.`
    /// and quotes taken off).
    pub collation: Option<String>,
}

impl TypeShape {
    pub fn of(sql_type: &str) -> TypeShape {
        let trimmed = sql_type.trim();
        let lower = trimmed.to_ascii_lowercase();
        let collation_after = |from: usize| {
            lower[from..].find(" collate ").map(|i| {
                trimmed[from + i + " collate ".len()..]
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .trim_start_matches("pg_catalog.")
                    .trim_matches('"')
                    .to_string()
            })
        };
        // An enum's or a set's labels are quoted: its name is before the
        // parenthesis and its collation after the list, whatever the
        // labels say.
        for listed in ["enum", "set"] {
            if lower.starts_with(&format!("{listed}(")) {
                return TypeShape {
                    base: listed.to_string(),
                    parenthesised: true,
                    args: Vec::new(),
                    unsigned: false,
                    zerofill: false,
                    collation: lower.rfind("')").and_then(collation_after),
                };
            }
        }
        let cut = without_collation(&lower);
        let rest = cut.replace(" unsigned", "").replace(" zerofill", "");
        let collation = collation_after(0);
        TypeShape {
            base: rest.split('(').next().unwrap_or(&rest).trim().to_string(),
            parenthesised: rest.contains('('),
            args: rest
                .split_once('(')
                .and_then(|(_, r)| r.split(')').next())
                .map(|a| a.split(',').filter_map(|x| x.trim().parse().ok()).collect())
                .unwrap_or_default(),
            unsigned: cut.contains(" unsigned"),
            zerofill: cut.contains(" zerofill"),
            collation,
        }
    }

    /// A type the database defines: a quoted name (`"ns"."mood"`).
    pub fn is_named(&self) -> bool {
        self.base.starts_with('"')
    }
}

/// A type without the character set and collation written after it
/// (`varchar(20) collate utf8mb4_bin` → `varchar(20)`).
fn without_collation(t: &str) -> &str {
    [" character set ", " collate "]
        .iter()
        .filter_map(|cut| t.find(cut))
        .min()
        .map_or(t, |i| &t[..i])
        .trim()
}

/// The labels of an inline enum or set (`enum('a','b')` as MySQL's
/// `COLUMN_TYPE` writes it: a quote doubled, a backslash escape read as
/// MySQL reads it: `\n`, `\t`, `\r`, `\0`, else the character itself), in
/// order; `None` for another type or a list that does not end.
pub fn inline_labels(source_type: &str) -> Option<Vec<String>> {
    let t = source_type.trim();
    let open = t.find('(')?;
    if !matches!(t[..open].to_ascii_lowercase().as_str(), "enum" | "set") {
        return None;
    }
    let mut labels = Vec::new();
    let mut chars = t[open + 1..].chars().peekable();
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

/// A column type read into the model by its own engine's dialect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnType {
    /// The type as its server writes it.
    pub written: String,
    pub shape: TypeShape,
    /// Its kind; `None` for a type the model has no kind for.
    pub kind: Option<Kind>,
    /// A decimal's precision and scale (the engine's default for a bare
    /// `decimal`).
    pub decimal: Option<(u32, u32)>,
    /// An enum's or a set's labels: inline in the type, or given by the
    /// source (a type the database defines).
    pub labels: Option<Vec<String>>,
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

impl ColumnModel {
    /// `sql_type` as this engine writes it, read into the model; `labels`
    /// are those of a type the database defines (known from elsewhere).
    pub fn read(&self, sql_type: &str, labels: Option<Vec<String>>) -> ColumnType {
        let shape = TypeShape::of(sql_type);
        let named = shape.is_named();
        let key = if named { "named" } else { shape.base.as_str() };
        let mut kind = self.kinds.get(key).copied();
        if shape.unsigned {
            kind = kind.map(|k| k.unsigned().unwrap_or(k));
        }
        if kind.is_some_and(Kind::unlisted_only) && shape.parenthesised {
            kind = None;
        }
        if kind == Some(Kind::Varchar) && shape.args.is_empty() {
            kind = Some(Kind::Text);
        }
        let decimal = match (shape.args.first(), shape.args.get(1)) {
            _ if kind != Some(Kind::Decimal) => None,
            (Some(&p), Some(&s)) => Some((p, s)),
            (Some(&p), None) => Some((p, 0)),
            (None, _) => self.decimal_default.map(|[p, s]| (p, s)),
        };
        if kind == Some(Kind::Decimal) && decimal.is_none() {
            kind = Some(Kind::Number);
        }
        let labels = match kind {
            Some(Kind::Enum | Kind::Set) => labels.or_else(|| inline_labels(sql_type)),
            _ => None,
        };
        ColumnType {
            written: sql_type.trim().to_string(),
            shape,
            kind,
            decimal,
            labels,
        }
    }

    /// How a column of `sql_type`, created by the migration on this
    /// engine, is loaded and read back; `None`: keep the inferred type.
    /// `key`: the column is in a key.
    pub fn reads(&self, sql_type: &str, key: bool, key_needs_size: bool) -> Option<Reads> {
        let shape = TypeShape::of(sql_type);
        if shape.zerofill {
            return None;
        }
        let whole = sql_type.trim().to_ascii_lowercase();
        let listed = self
            .reads
            .get(without_collation(&whole))
            .filter(|_| shape.parenthesised);
        let name = if shape.is_named() {
            "named"
        } else {
            shape.base.as_str()
        };
        let reads = *listed.or_else(|| self.reads.get(name))?;
        match reads {
            Reads::Real | Reads::Real32 | Reads::Date | Reads::Timestamp
                if (shape.parenthesised && listed.is_none()) || shape.unsigned =>
            {
                None
            }
            Reads::TextNotInKey if key && key_needs_size => None,
            Reads::TextNotInKey => Some(Reads::Text),
            Reads::Json if key => None,
            r => Some(r),
        }
    }
}

impl Dialect {
    /// The type `column` (read by the source's dialect, `from`) takes on
    /// this engine (`to_engine`): kept, changed, or left to inference.
    pub fn column_target(
        &self,
        to_engine: EngineKind,
        from: &Dialect,
        column: &ColumnType,
    ) -> TargetType {
        let model = &self.column_model;
        let shape = &column.shape;
        if shape.zerofill {
            return TargetType::Inferred(
                "zerofill is a display width only its own family keeps".into(),
            );
        }
        if from.adapter == self.adapter && model.same_family_as_written {
            return self.as_written(to_engine, column);
        }
        let shown = self.display_name.as_deref().unwrap_or(&self.name);
        let Some(kind) = column.kind else {
            if shape.is_named() {
                return TargetType::Inferred(
                    "a type the dump defines (an enum: its labels are carried as text; their \
                     declared order is not kept)"
                        .into(),
                );
            }
            return TargetType::Inferred(format!(
                "{} has no {shown} type the migration loads and reads back exactly",
                shape.base
            ));
        };
        if kind == Kind::Enum {
            return self.enum_target(to_engine, column.labels.as_deref().unwrap_or(&[]));
        }
        let Some(rule) = model.types.get(&kind) else {
            return TargetType::Inferred(format!(
                "{} has no {shown} type the migration loads and reads back exactly",
                shape.base
            ));
        };
        let (template, changed) = rule.parts();
        let mut t = template.to_string();
        if let Some((p, s)) = column.decimal {
            if let Some(max) = model.decimal_max {
                if p > max.precision || s > max.scale || s > p {
                    return TargetType::Inferred(format!(
                        "decimal({p},{s}) is wider than {shown} holds (at most {} digits, {} \
                         after the point)",
                        max.precision, max.scale
                    ));
                }
            }
            t = t
                .replace("{p}", &p.to_string())
                .replace("{s}", &s.to_string());
        } else if kind == Kind::Number && model.decimal_max.is_some() {
            return TargetType::Inferred(format!("a numeric without a precision {shown} can hold"));
        }
        if let Some(n) = shape.args.first() {
            t = t.replace("{n}", &n.to_string());
        }
        if kind.is_text() {
            return self.with_collation(t, shape.collation.as_deref());
        }
        match changed {
            Some(why) => TargetType::Changed(t, why.to_string()),
            None => TargetType::Kept(t),
        }
    }

    /// A text type `t` with the collation `collation` of the source.
    fn with_collation(&self, t: String, collation: Option<&str>) -> TargetType {
        let model = &self.column_model;
        match collation {
            Some(c) if c.ends_with("_bin") || c == "binary" || c == "C" || c == "POSIX" => {
                match &model.binary_collation {
                    Some(b) => TargetType::Kept(b.replace("{type}", &t)),
                    None => TargetType::Kept(t),
                }
            }
            Some(c) if c.contains("_ci") => match &model.case_insensitive_collation {
                Some(rule) => {
                    let (template, changed) = rule.parts();
                    let typed = template.replace("{type}", &t);
                    match changed {
                        Some(why) => TargetType::Changed(typed, why.replace("{collation}", c)),
                        None => TargetType::Kept(typed),
                    }
                }
                None => TargetType::Kept(t),
            },
            _ => TargetType::Kept(t),
        }
    }

    /// An enum of `labels` here.
    fn enum_target(&self, to_engine: EngineKind, labels: &[String]) -> TargetType {
        let model = &self.column_model;
        match model.types.get(&Kind::Enum) {
            Some(rule) if !labels.is_empty() => {
                let list = labels
                    .iter()
                    .map(|l| {
                        let l = l.replace('\'', "''");
                        if model.labels_escape_backslash {
                            format!("'{}'", l.replace('\\', "\\\\"))
                        } else {
                            format!("'{l}'")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(",");
                let (template, changed) = rule.parts();
                let t = template.replace("{labels}", &list);
                match changed {
                    Some(why) => TargetType::Changed(t, why.to_string()),
                    None => TargetType::Kept(t),
                }
            }
            _ => TargetType::Inferred(format!(
                "an enum: its labels are carried as text; their declared order is not kept on \
                 {to_engine}"
            )),
        }
    }

    /// Within the family: the type as written, but an unsigned integer one
    /// width up (the migration reads it back signed) and a collation this
    /// engine lacks replaced by its nearest.
    fn as_written(&self, to_engine: EngineKind, column: &ColumnType) -> TargetType {
        let model = &self.column_model;
        let shape = &column.shape;
        let t = column.written.clone();
        if shape.unsigned {
            return match model.unsigned_read_signed.get(&shape.base) {
                Some(wider) => TargetType::Changed(
                    wider.clone(),
                    format!(
                        "{} unsigned held as {wider} (signed, one width up)",
                        shape.base
                    ),
                ),
                None => TargetType::Inferred(format!(
                    "{} unsigned is read back signed: the migration decides from the values",
                    shape.base
                )),
            };
        }
        if let Some(c) = shape.collation.as_deref() {
            if let Some(m) = model
                .missing_collations
                .iter()
                .find(|m| c.contains(&m.contains))
            {
                let near = if c.contains("_as_cs") || c.ends_with("_bin") {
                    &m.binary
                } else {
                    &m.other
                };
                return TargetType::Changed(
                    t.replace(c, near),
                    format!("its collation {c} is not {to_engine}'s: {near} on {to_engine}"),
                );
            }
        }
        TargetType::Kept(t)
    }
}

#[cfg(test)]
mod tests {
    #![allow(non_snake_case)]
    use super::*;
    use crate::shipped;

    fn target(from: EngineKind, source_type: &str, to: EngineKind) -> TargetType {
        let from_dialect = shipped(from);
        let read = from_dialect.column_model.read(source_type, None);
        shipped(to).column_target(to, from_dialect, &read)
    }

    #[test]
    fn the_source_dialect_reads_the_kind() {
        let my = &shipped(EngineKind::Mysql).column_model;
        let pg = &shipped(EngineKind::Postgres).column_model;
        let kind = |m: &ColumnModel, t: &str| m.read(t, None).kind;
        assert_eq!(kind(my, "int(11) unsigned"), Some(Kind::Uint32));
        assert_eq!(kind(my, "real"), Some(Kind::Float64));
        assert_eq!(kind(pg, "real"), Some(Kind::Float32));
        assert_eq!(kind(my, "timestamp"), Some(Kind::Instant));
        assert_eq!(
            kind(pg, "timestamp without time zone"),
            Some(Kind::Timestamp)
        );
        assert_eq!(kind(my, "datetime(3)"), None, "fractions are not kept");
        assert_eq!(kind(my, "double(10,2)"), None, "a listed double rounds");
        assert_eq!(my.read("decimal", None).decimal, Some((10, 0)));
        assert_eq!(kind(pg, "numeric"), Some(Kind::Number));
        assert_eq!(kind(pg, "\"sw_x\".\"mood\""), Some(Kind::Enum));
        let e = my.read("enum('a','it''s','b\\\\c') CHARACTER SET utf8mb4", None);
        assert_eq!(e.kind, Some(Kind::Enum));
        assert_eq!(
            e.labels,
            Some(vec!["a".into(), "it's".into(), "b\\c".into()])
        );
        assert_eq!(
            TypeShape::of("text COLLATE pg_catalog.\"C\"")
                .collation
                .as_deref(),
            Some("C")
        );
        assert_eq!(kind(my, "float"), None, "read back with six digits");
    }

    #[test]
    fn the_target_dialect_writes_it() {
        let (Duckdb, Mariadb, Mysql, Postgres) = (
            EngineKind::Duckdb,
            EngineKind::Mariadb,
            EngineKind::Mysql,
            EngineKind::Postgres,
        );
        let kept = |t: TargetType| match t {
            TargetType::Kept(s) => s,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            kept(target(Mysql, "decimal(5,2)", Postgres)),
            "numeric(5,2)"
        );
        assert_eq!(kept(target(Mysql, "decimal", Duckdb)), "DECIMAL(10,0)");
        assert_eq!(
            kept(target(Mysql, "bigint unsigned", Postgres)),
            "numeric(20,0)"
        );
        assert_eq!(kept(target(Mysql, "int unsigned", Duckdb)), "UINTEGER");
        assert_eq!(
            kept(target(Postgres, "numeric(12,4)", Mysql)),
            "decimal(12,4)"
        );
        assert!(matches!(
            target(Postgres, "numeric(70,2)", Mysql),
            TargetType::Inferred(_)
        ));
        assert!(matches!(
            target(Postgres, "numeric", Duckdb),
            TargetType::Inferred(_)
        ));
        assert_eq!(
            kept(target(Mysql, "varchar(20) COLLATE utf8mb4_bin", Postgres)),
            "character varying(20) COLLATE \"C\""
        );
        assert_eq!(
            kept(target(Postgres, "text COLLATE \"C\"", Mysql)),
            "text CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
        );
        assert!(matches!(
            target(Mysql, "varchar(9) COLLATE utf8mb4_0900_ai_ci", Duckdb),
            TargetType::Changed(t, _) if t == "VARCHAR COLLATE NOCASE"
        ));
        assert!(matches!(
            target(Mysql, "timestamp", Postgres),
            TargetType::Changed(t, _) if t == "timestamp without time zone"
        ));
        assert!(matches!(
            target(Mysql, "set('a')", Postgres),
            TargetType::Inferred(_)
        ));
        // A PostgreSQL timestamp holds microseconds: MySQL's datetime(6).
        assert_eq!(
            kept(target(Postgres, "timestamp without time zone", Mysql)),
            "datetime(6)"
        );
        assert_eq!(
            kept(target(Mysql, "datetime", Postgres)),
            "timestamp without time zone"
        );
        // Within the family: as written, an unsigned integer one width up,
        // a collation MariaDB lacks replaced by its nearest.
        assert_eq!(kept(target(Mysql, "char(3)", Mariadb)), "char(3)");
        assert!(matches!(
            target(Mysql, "smallint unsigned", Mariadb),
            TargetType::Changed(t, _) if t == "int"
        ));
        assert!(matches!(
            target(Mysql, "varchar(5) COLLATE utf8mb4_0900_as_cs", Mariadb),
            TargetType::Changed(t, _) if t == "varchar(5) COLLATE utf8mb4_bin"
        ));
        assert_eq!(
            kept(target(
                Mysql,
                "varchar(5) COLLATE utf8mb4_0900_as_cs",
                Mysql
            )),
            "varchar(5) COLLATE utf8mb4_0900_as_cs"
        );
        assert!(matches!(
            target(Mysql, "int(4) zerofill", Mariadb),
            TargetType::Inferred(_)
        ));
    }

    #[test]
    fn enums_keep_their_labels_where_the_target_has_enums() {
        let (Duckdb, Mysql, Postgres) =
            (EngineKind::Duckdb, EngineKind::Mysql, EngineKind::Postgres);
        let pg = shipped(Postgres);
        let read = pg
            .column_model
            .read("\"s\".\"rating\"", Some(vec!["G".into(), "it's\\".into()]));
        assert_eq!(
            shipped(Mysql).column_target(Mysql, pg, &read),
            TargetType::Kept(
                "enum('G','it''s\\\\') CHARACTER SET utf8mb4 COLLATE utf8mb4_bin".into()
            )
        );
        assert_eq!(
            shipped(Duckdb).column_target(Duckdb, pg, &read),
            TargetType::Kept("ENUM('G','it''s\\')".into())
        );
        let my = shipped(Mysql);
        let read = my.column_model.read("enum('a','b')", None);
        assert!(matches!(
            shipped(Postgres).column_target(Postgres, my, &read),
            TargetType::Inferred(_)
        ));
        let unlabelled = pg.column_model.read("\"s\".\"t\"", None);
        assert!(matches!(
            shipped(Mysql).column_target(Mysql, pg, &unlabelled),
            TargetType::Inferred(_)
        ));
    }

    #[test]
    fn a_created_type_reads_back_as_its_dialect_says() {
        let my = &shipped(EngineKind::Mysql).column_model;
        let pg = &shipped(EngineKind::Postgres).column_model;
        let dk = &shipped(EngineKind::Duckdb).column_model;
        assert_eq!(my.reads("text", true, true), None);
        assert_eq!(my.reads("text", false, true), Some(Reads::Text));
        assert_eq!(my.reads("datetime(3)", false, true), None);
        assert_eq!(my.reads("datetime(6)", false, true), Some(Reads::Timestamp));
        assert_eq!(my.reads("int(5) unsigned zerofill", false, true), None);
        assert_eq!(
            my.reads("enum('x (collate y)') CHARACTER SET utf8mb4", false, true),
            Some(Reads::Labels)
        );
        assert_eq!(pg.reads("real", false, false), Some(Reads::Real32));
        assert_eq!(
            pg.reads("numeric(10,2)", false, false),
            Some(Reads::Numeric)
        );
        assert_eq!(pg.reads("character(3)", false, false), None);
        assert_eq!(
            pg.reads("\"ns\".\"mood\"", false, false),
            Some(Reads::Labels)
        );
        assert_eq!(
            dk.reads("VARCHAR COLLATE NOCASE", false, false),
            Some(Reads::Text)
        );
        assert_eq!(
            dk.reads("DECIMAL(20,0)", false, false),
            Some(Reads::Numeric)
        );
    }

    #[test]
    fn every_written_type_reads_back_on_its_engine() {
        // A type the model writes that the migration could not load and
        // read back exactly would always fall back to inference: a
        // dialect file that says so is inconsistent.
        for kind in EngineKind::BUILTIN {
            let d = shipped(kind);
            let key_needs_size = d.types.key_varchar_max.is_some();
            for (k, rule) in &d.column_model.types {
                let (t, _) = rule.parts();
                let t = t
                    .replace("{p}", "10")
                    .replace("{s}", "2")
                    .replace("{n}", "20")
                    .replace("{labels}", "'a'");
                assert!(
                    d.column_model.reads(&t, false, key_needs_size).is_some(),
                    "{}: {k:?} is written as {t}, which `reads` does not name",
                    d.name
                );
            }
        }
    }
}
