//! Column types taken from another copy of the same database on the same
//! server: a scratch copy (a fuzz candidate, a perturbed database) of a
//! database whose copy there is the dump's own (made by `sqlwitness
//! import`, with the dump's column types) gets those types, so that a gold
//! whose answer depends on the declared type (`real` sums, `numeric(10,2)`
//! rounding, an enum's order) answers there as on the original.
//!
//! The original's types are read from its stamp (the report `import` kept
//! in it, which names every column's type as created). A type the
//! migration cannot load and read back exactly keeps the inferred one, and
//! says so.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use sqlwitness_core::{EngineKind, Migrator, Ownership, TargetKind};
use sqlwitness_dialect::Reads;
pub use sqlwitness_dialect::TypeShape;

use super::keys::TablePlan;
use super::log::MigrationReport;

/// Where to take column types from (see the module's words).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TypesFrom {
    /// The original's namespace on the same server.
    pub namespace: String,
    /// Columns renamed in this database: `(table, column)` here →
    /// `(table, column)` in the original.
    pub renames: BTreeMap<(String, String), (String, String)>,
    /// Columns here whose content was replaced: they keep the inferred
    /// type.
    pub inferred: BTreeSet<(String, String)>,
}

/// What a migration with [`TypesFrom`] used (in its report).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypesReport {
    /// The original's namespace.
    pub namespace: String,
    /// Whether the original is a copy with the dump's own types: else no
    /// type was taken from it.
    pub original_is_dump_copy: bool,
    /// Columns given the original's type.
    pub columns_typed: usize,
    /// Columns that kept the inferred type, `table.column: why`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept_inferred: Vec<String>,
    /// Typed from the source's column model (`<db_id>.source.json`, which
    /// `import` writes), not from another copy: its file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_model: Option<String>,
    /// Columns given a type that changes something of the source's,
    /// `table.column: what`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<String>,
    /// Columns this copy holds degraded, as the SQLite file holds them
    /// (`table.column (type): how`): a query that reads one is not
    /// portable to this engine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub degraded: Vec<String>,
}

/// How a converted value is brought to what the original's type holds
/// before it is written and hashed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Adjust {
    #[default]
    None,
    /// A single-precision float (PostgreSQL `real`): the value rounded to
    /// it (the original holds the same rounding).
    Float32,
}

/// The kind, and the adjustment, of a type the migration creates on
/// `engine` and loads and reads back exactly (its dialect's
/// `column_model.reads`); `None`: keep the inferred type. An enum's or a
/// set's labels are read back as text, where the values are text. `key`:
/// the column is in a key, which an engine whose keys need a sized type
/// (MySQL, MariaDB) cannot build on a `TEXT` column without a prefix.
fn loads_exactly(
    engine: EngineKind,
    sql_type: &str,
    original_kind: TargetKind,
    key: bool,
) -> Option<(TargetKind, Adjust)> {
    let dialect = sqlwitness_dialect::shipped(engine);
    let key_needs_size = dialect.types.key_varchar_max.is_some();
    Some(
        match dialect.column_model.reads(sql_type, key, key_needs_size)? {
            Reads::Integer => (TargetKind::Integer, Adjust::None),
            Reads::Real => (TargetKind::Real, Adjust::None),
            Reads::Real32 => (TargetKind::Real, Adjust::Float32),
            Reads::Numeric => (TargetKind::Numeric, Adjust::None),
            // A time and JSON are written as their text and hashed in a
            // form of their own (`verify::HashForm`).
            Reads::Text | Reads::TextNotInKey | Reads::Time | Reads::Json => {
                (TargetKind::Text, Adjust::None)
            }
            Reads::Date => (TargetKind::Date, Adjust::None),
            Reads::Timestamp => (TargetKind::Timestamp, Adjust::None),
            Reads::Labels if original_kind == TargetKind::Text => (TargetKind::Text, Adjust::None),
            Reads::Labels => return None,
        },
    )
}

/// Why no type is taken from the original.
#[derive(Debug, thiserror::Error)]
enum NotDumpCopy {
    #[error("the original is not a copy sqlwitness made")]
    NotOurs,
    #[error("the original cannot be read: {0}")]
    Unreadable(String),
    #[error("the original is migrated from the SQLite file, not the dump's own-typed copy")]
    Migrated,
    #[error("the original's stamp holds no readable report")]
    NoReport,
}

/// `(table, column)` → the type as created and its kind.
type OriginalColumns = BTreeMap<(String, String), (String, TargetKind)>;

/// The original's column types, by table and column, when it is a dump's
/// own-typed copy; else the report saying it is not.
fn original_columns(
    w: &mut dyn Migrator,
    from: &TypesFrom,
) -> Result<OriginalColumns, NotDumpCopy> {
    let stamp = match w.ownership(&from.namespace) {
        Ok(Ownership::Ours(stamp)) => stamp,
        Ok(_) => return Err(NotDumpCopy::NotOurs),
        Err(e) => return Err(NotDumpCopy::Unreadable(e.message)),
    };
    if !crate::dump::is_source_copy(&stamp) {
        return Err(NotDumpCopy::Migrated);
    }
    let report = stamp
        .report
        .clone()
        .and_then(|v| serde_json::from_value::<MigrationReport>(v).ok())
        .ok_or(NotDumpCopy::NoReport)?;
    let mut out = BTreeMap::new();
    for t in &report.tables {
        for c in &t.columns {
            out.insert(
                (t.name.clone(), c.name.clone()),
                (c.target_type.clone(), c.kind),
            );
        }
    }
    Ok(out)
}

/// The column types of the copy in `namespace` on `target`, as created, by
/// `(table, column)`, when it is a copy `import` made with a dump's own
/// types (read from its stamp); `None` when it is not, or cannot be read.
/// What a scratch copy of it may hold is what these types hold: a fuzz
/// candidate generates values within them.
pub fn dump_copy_column_types(
    target: &super::MigrationTarget,
    namespace: &str,
) -> Option<BTreeMap<(String, String), String>> {
    let mut w = sqlwitness_engines::open_migrator(target.engine, &target.url).ok()?;
    let from = TypesFrom {
        namespace: namespace.to_string(),
        ..TypesFrom::default()
    };
    let columns = original_columns(&mut *w, &from).ok()?;
    Some(columns.into_iter().map(|(k, (ty, _))| (k, ty)).collect())
}

/// Gives `tables` the original's column types where they exist and load
/// safely; returns the report and, per table, the adjustments.
pub(crate) fn apply(
    w: &mut dyn Migrator,
    engine: EngineKind,
    from: &TypesFrom,
    tables: &mut [TablePlan],
) -> TypesReport {
    let mut report = TypesReport {
        namespace: from.namespace.clone(),
        ..TypesReport::default()
    };
    let original = match original_columns(w, from) {
        Ok(o) => o,
        Err(why) => {
            report.kept_inferred.push(format!("every column: {why}"));
            return report;
        }
    };
    report.original_is_dump_copy = true;
    // Columns in a key: their own primary, unique and foreign keys, and
    // those other tables' foreign keys refer to.
    let referenced: BTreeSet<(String, String)> = tables
        .iter()
        .flat_map(|t| t.def.foreign_keys.iter())
        .flat_map(|k| {
            k.parent_columns
                .iter()
                .map(move |c| (k.parent_table.clone(), c.clone()))
        })
        .collect();
    for t in tables.iter_mut() {
        let keys: BTreeSet<String> = t
            .def
            .primary_key
            .iter()
            .chain(t.def.foreign_keys.iter().flat_map(|k| k.columns.iter()))
            .chain(t.unique.iter().flatten().map(|&c| &t.columns[c].name))
            .cloned()
            .chain(
                referenced
                    .iter()
                    .filter(|(table, _)| *table == t.def.name)
                    .map(|(_, c)| c.clone()),
            )
            .collect();
        let mut adjust = vec![Adjust::None; t.columns.len()];
        for (i, c) in t.columns.iter_mut().enumerate() {
            let here = (t.def.name.clone(), c.name.clone());
            let shown = format!("{}.{}", here.0, here.1);
            if from.inferred.contains(&here) {
                report
                    .kept_inferred
                    .push(format!("{shown}: its content was replaced"));
                continue;
            }
            let key = from.renames.get(&here).cloned().unwrap_or(here);
            let Some((sql_type, kind)) = original.get(&key) else {
                report
                    .kept_inferred
                    .push(format!("{shown}: no column of that name in the original"));
                continue;
            };
            let safe = loads_exactly(engine, sql_type, *kind, keys.contains(&c.name));
            let Some((kind, adj)) = safe else {
                report.kept_inferred.push(format!(
                    "{shown}: the original's type {sql_type} is not one the migration loads and \
                     reads back exactly on {engine}"
                ));
                continue;
            };
            c.kind = kind;
            c.target_type = sql_type.clone();
            c.reason = format!("the original copy's type ({})", from.namespace);
            if let Some(d) = t.def.columns.get_mut(i) {
                d.kind = kind;
                d.sql_type = sql_type.clone();
            }
            adjust[i] = adj;
            report.columns_typed += 1;
        }
        t.adjust = adjust;
    }
    report
}

/// Gives `tables` the types of the source's column model (see
/// `crate::source_model`) on `engine`, where they load and read back
/// exactly; the rest keep the inferred type, and the report says why.
pub(crate) fn apply_model(
    engine: EngineKind,
    model: &sqlwitness_bench::SourceModel,
    shown: &str,
    tables: &mut [TablePlan],
) -> TypesReport {
    let mut report = TypesReport {
        source_model: Some(shown.to_string()),
        ..TypesReport::default()
    };
    let Some(source_engine) = model.engine() else {
        report.kept_inferred.push(format!(
            "every column: the model names no engine `{}`",
            model.engine
        ));
        return report;
    };
    let keys = key_columns(tables);
    let zero_in_dates = sqlwitness_dialect::shipped(engine).types.zero_in_dates;
    for t in tables.iter_mut() {
        if t.adjust.len() != t.columns.len() {
            t.adjust = vec![Adjust::None; t.columns.len()];
        }
        for (i, c) in t.columns.iter_mut().enumerate() {
            let shown = format!("{}.{}", t.def.name, c.name);
            let Some(m) = model.column(&t.def.name, &c.name) else {
                report
                    .kept_inferred
                    .push(format!("{shown}: not in the source's model"));
                continue;
            };
            if let Some(how) = &m.degraded {
                report
                    .degraded
                    .push(format!("{shown} ({}): {how}", m.source_type));
                continue;
            }
            let (sql_type, change) = match sqlwitness_bench::column_target(source_engine, m, engine)
            {
                sqlwitness_bench::TargetType::Kept(t) => (t, None),
                sqlwitness_bench::TargetType::Changed(t, why) => (t, Some(why)),
                sqlwitness_bench::TargetType::Inferred(why) => {
                    report.kept_inferred.push(format!("{shown}: {why}"));
                    continue;
                }
            };
            let key = keys.contains(&(t.def.name.clone(), c.name.clone()));
            let safe = loads_exactly(engine, &sql_type, c.kind, key);
            let Some((kind, adj)) = safe else {
                report.kept_inferred.push(format!(
                    "{shown}: {sql_type} (from the source's {}) is not a type the migration \
                     loads and reads back exactly on {engine}",
                    m.source_type
                ));
                continue;
            };
            // Dates with zero parts (`1948-01-00`), which the SQLite file
            // holds as text, go to a target that keeps them as dates.
            let zero_in = zero_in_dates && t.lenient.get(i).copied().flatten() == Some(kind);
            if !kind_holds(kind, c.kind) && !zero_in {
                report.kept_inferred.push(format!(
                    "{shown}: the SQLite file holds values of another kind than {sql_type}"
                ));
                continue;
            }
            if let Some(why) = change {
                report.changed.push(format!("{shown}: {why}"));
            }
            c.kind = kind;
            c.target_type = sql_type.clone();
            c.reason = format!("the source's type ({})", m.source_type);
            if let Some(d) = t.def.columns.get_mut(i) {
                d.kind = kind;
                d.sql_type = sql_type;
            }
            t.adjust[i] = adj;
            report.columns_typed += 1;
        }
    }
    if sqlwitness_dialect::shipped(engine)
        .column_model
        .key_types_match
    {
        match_key_types(tables, &mut report);
    }
    report
}

/// The integer width rank of a type as created (`tinyint` 1 … `bigint`
/// 5), for a signed integer type; `None` for another.
fn integer_rank(sql_type: &str) -> Option<u8> {
    let shape = TypeShape::of(sql_type);
    if shape.unsigned || shape.zerofill {
        return None;
    }
    Some(match shape.base.as_str() {
        "tinyint" => 1,
        "smallint" => 2,
        "mediumint" => 3,
        "int" | "integer" => 4,
        "bigint" => 5,
        _ => return None,
    })
}

/// An engine whose foreign keys need the child and the parent column of
/// one type (MySQL, MariaDB: `smallint` → `int` is refused as
/// incompatible): the narrower of two integer columns a foreign key joins
/// takes the wider one's type, which holds every value of both, and the
/// change is named.
fn match_key_types(tables: &mut [TablePlan], report: &mut TypesReport) {
    let type_of = |tables: &[TablePlan], table: &str, column: &str| {
        tables
            .iter()
            .find(|t| t.def.name == table)
            .and_then(|t| {
                t.columns
                    .iter()
                    .position(|c| c.name == column)
                    .map(|i| (t, i))
            })
            .map(|(t, i)| t.columns[i].target_type.clone())
    };
    let mut widen: Vec<(String, String, String)> = Vec::new();
    for t in tables.iter() {
        for (k, fk) in t.def.foreign_keys.iter().enumerate() {
            if !t.apply_fk.get(k).copied().unwrap_or(false) {
                continue;
            }
            for (c, p) in fk.columns.iter().zip(&fk.parent_columns) {
                let (Some(child), Some(parent)) = (
                    type_of(tables, &t.def.name, c),
                    type_of(tables, &fk.parent_table, p),
                ) else {
                    continue;
                };
                let (Some(rc), Some(rp)) = (integer_rank(&child), integer_rank(&parent)) else {
                    continue;
                };
                if rc < rp {
                    widen.push((t.def.name.clone(), c.clone(), parent));
                } else if rp < rc {
                    widen.push((fk.parent_table.clone(), p.clone(), child));
                }
            }
        }
    }
    for (table, column, wider) in widen {
        let Some(t) = tables.iter_mut().find(|t| t.def.name == table) else {
            continue;
        };
        let Some(i) = t.columns.iter().position(|c| c.name == column) else {
            continue;
        };
        if integer_rank(&t.columns[i].target_type) >= integer_rank(&wider) {
            continue;
        }
        report.changed.push(format!(
            "{table}.{column}: {} held as {wider}, the type of the key it joins (a foreign key \
             here needs one type on both sides)",
            t.columns[i].target_type
        ));
        t.columns[i].target_type = wider.clone();
        if let Some(d) = t.def.columns.get_mut(i) {
            d.sql_type = wider;
        }
    }
}

/// Whether values the migration read as `inferred` load into a column of
/// `kind` unchanged: an integer or real column's values into a decimal,
/// integers into a real, else only the same kind — and the text of a
/// source decimal SQLite could not hold as a real (past 15 digits) into
/// that decimal, the only numeric type a model gives.
fn kind_holds(kind: TargetKind, inferred: TargetKind) -> bool {
    use TargetKind::*;
    kind == inferred
        || matches!(
            (kind, inferred),
            (Numeric, Integer)
                | (Numeric, Real)
                | (Numeric, Text)
                | (Real, Integer)
                | (Integer, Numeric)
        )
}

/// `(table, column)` of every column in a key: a primary key, a unique
/// key, a foreign key, or a parent's column another table's foreign key
/// refers to.
fn key_columns(tables: &[TablePlan]) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for t in tables {
        for c in t
            .def
            .primary_key
            .iter()
            .chain(t.def.foreign_keys.iter().flat_map(|k| k.columns.iter()))
            .chain(t.unique.iter().flatten().map(|&c| &t.columns[c].name))
        {
            out.insert((t.def.name.clone(), c.clone()));
        }
        for k in &t.def.foreign_keys {
            for c in &k.parent_columns {
                out.insert((k.parent_table.clone(), c.clone()));
            }
        }
    }
    out
}

/// `v` as the original's type holds it (see [`Adjust`]).
pub(crate) fn adjust(v: sqlwitness_core::Value, a: Adjust) -> sqlwitness_core::Value {
    use sqlwitness_core::Value;
    match (a, v) {
        (Adjust::Float32, Value::Float(f)) => Value::Float(f64::from(f as f32)),
        (_, v) => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pg_type(t: &str, kind: TargetKind) -> Option<(TargetKind, Adjust)> {
        loads_exactly(EngineKind::Postgres, t, kind, false)
    }

    fn mysql_type(t: &str, kind: TargetKind, key: bool) -> Option<(TargetKind, Adjust)> {
        loads_exactly(EngineKind::Mysql, t, kind, key)
    }

    #[test]
    fn safe_types() {
        let k = TargetKind::Text;
        assert_eq!(
            pg_type("numeric(10,2)", TargetKind::Numeric),
            Some((TargetKind::Numeric, Adjust::None))
        );
        assert_eq!(
            pg_type("real", TargetKind::Real),
            Some((TargetKind::Real, Adjust::Float32))
        );
        assert_eq!(pg_type("\"sw_x\".\"mood\"", k), Some((k, Adjust::None)));
        assert_eq!(pg_type("character(3)", k), None);
        assert_eq!(pg_type("boolean", TargetKind::Integer), None);
    }

    #[test]
    fn safe_mysql_types() {
        let t = TargetKind::Text;
        let typed = |ty: &str, kind: TargetKind, key: bool| mysql_type(ty, kind, key).map(|k| k.0);
        assert_eq!(
            typed("int", TargetKind::Integer, true),
            Some(TargetKind::Integer)
        );
        assert_eq!(
            typed("bigint unsigned", TargetKind::Integer, false),
            Some(TargetKind::Integer)
        );
        assert_eq!(
            typed("tinyint(1)", TargetKind::Integer, false),
            Some(TargetKind::Integer)
        );
        assert_eq!(
            typed("int(5) unsigned zerofill", TargetKind::Integer, false),
            None
        );
        assert_eq!(
            typed("decimal(10,2)", TargetKind::Numeric, false),
            Some(TargetKind::Numeric)
        );
        assert_eq!(
            typed("double", TargetKind::Real, false),
            Some(TargetKind::Real)
        );
        assert_eq!(typed("float", TargetKind::Real, false), None);
        assert_eq!(
            typed("varchar(20) COLLATE utf8mb4_bin", t, true),
            Some(TargetKind::Text)
        );
        assert_eq!(
            typed(
                "varchar(20) CHARACTER SET latin1 COLLATE latin1_swedish_ci",
                t,
                false
            ),
            Some(TargetKind::Text)
        );
        assert_eq!(typed("text", t, false), Some(TargetKind::Text));
        assert_eq!(typed("text", t, true), None);
        // MySQL returns a char(n) without its trailing spaces, as the
        // values it was read from are.
        assert_eq!(typed("char(3)", t, false), Some(TargetKind::Text));
        assert_eq!(
            typed("date", TargetKind::Date, false),
            Some(TargetKind::Date)
        );
        assert_eq!(
            typed("datetime", TargetKind::Timestamp, false),
            Some(TargetKind::Timestamp)
        );
        assert_eq!(typed("datetime(3)", TargetKind::Timestamp, false), None);
        assert_eq!(
            typed("timestamp", TargetKind::Timestamp, false),
            Some(TargetKind::Timestamp)
        );
        assert_eq!(typed("timestamp(6)", TargetKind::Timestamp, false), None);
        assert_eq!(
            typed("enum('low','it''s (odd) collate x')", t, false),
            Some(TargetKind::Text)
        );
        assert_eq!(typed("set('a','b')", t, false), Some(TargetKind::Text));
        assert_eq!(
            typed("year", TargetKind::Integer, false),
            Some(TargetKind::Integer)
        );
    }
}
