//! The per-column type decision and the conversion of every value to the
//! chosen type, with each value that changes recorded as a coercion.
//!
//! The decision looks at the declared type (its SQLite affinity) *and* the
//! storage classes actually present, because SQLite lets an INTEGER column
//! hold `'N/A'`:
//!
//! 1. no non-null value: from the declared type (affinity; DATE/TIME names
//!    give date/timestamp, BOOL gives integer, no type gives text);
//! 2. any blob: blob (other values stored as their bytes, recorded);
//! 3. declared DATE/DATETIME/TIMESTAMP and only text: date when every value
//!    is a valid `YYYY-MM-DD`, timestamp when every value is a valid ISO
//!    datetime, else text;
//! 4. declared BOOLEAN/BOOL holding only integers 0/1: integer;
//! 5. any text: text (numbers stored as their SQLite text, recorded);
//! 6. any real: real (integers that do not round-trip through a double are
//!    recorded; none below 2^53);
//! 7. only integers: integer.

use sqlwitness_core::Value;
use sqlwitness_dialect::TypeMap;

use super::log::{
    Coercion, Coercions, ColumnDecision, StorageCounts, TargetKind, COERCION_SAMPLE_CAP,
};
use super::source::{SourceColumn, SourceTable};
use super::temporal::{date_text, datetime_text, parse_date, parse_datetime};

/// SQLite's column affinity of a declared type (datatype3.html §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Affinity {
    Integer,
    Text,
    Blob,
    Real,
    Numeric,
}

pub(crate) fn affinity(declared: &str) -> Affinity {
    let u = declared.to_ascii_uppercase();
    if u.contains("INT") {
        Affinity::Integer
    } else if u.contains("CHAR") || u.contains("CLOB") || u.contains("TEXT") {
        Affinity::Text
    } else if u.contains("BLOB") || u.trim().is_empty() {
        Affinity::Blob
    } else if u.contains("REAL") || u.contains("FLOA") || u.contains("DOUB") {
        Affinity::Real
    } else {
        Affinity::Numeric
    }
}

fn is_temporal(declared: &str) -> bool {
    let u = declared.to_ascii_uppercase();
    u.contains("DATE") || u.contains("TIMESTAMP")
}

fn is_boolean(declared: &str) -> bool {
    declared.trim().to_ascii_uppercase().starts_with("BOOL")
}

pub(crate) fn type_name(types: &TypeMap, kind: TargetKind) -> String {
    match kind {
        TargetKind::Integer => types.integer.clone(),
        TargetKind::Real => types.real.clone(),
        TargetKind::Numeric => types.numeric.clone(),
        TargetKind::Text => types.text.clone(),
        TargetKind::Blob => types.blob.clone(),
        TargetKind::Date => types.date.clone(),
        TargetKind::Timestamp => types.timestamp.clone(),
    }
}

pub(crate) fn storage_counts(rows: &[Vec<Value>], col: usize) -> StorageCounts {
    let mut c = StorageCounts::default();
    for r in rows {
        match &r[col] {
            Value::Null => c.null += 1,
            Value::Int(_) => c.integer += 1,
            Value::Float(_) => c.real += 1,
            Value::Text(_) => c.text += 1,
            _ => c.blob += 1,
        }
    }
    c
}

/// Decides one column's target kind and says why.
pub(crate) fn decide(
    col: &SourceColumn,
    counts: &StorageCounts,
    rows: &[Vec<Value>],
    index: usize,
) -> (TargetKind, String) {
    let values = || rows.iter().map(move |r| &r[index]);
    let decl = col.declared.as_str();
    let shown = if decl.is_empty() { "(none)" } else { decl };
    let non_null = counts.integer + counts.real + counts.text + counts.blob;
    if non_null == 0 {
        let kind = if is_temporal(decl) {
            if decl.to_ascii_uppercase().contains("TIME") {
                TargetKind::Timestamp
            } else {
                TargetKind::Date
            }
        } else if is_boolean(decl) {
            TargetKind::Integer
        } else if decl.trim().is_empty() {
            TargetKind::Text
        } else {
            match affinity(decl) {
                Affinity::Integer => TargetKind::Integer,
                Affinity::Real => TargetKind::Real,
                Affinity::Text => TargetKind::Text,
                Affinity::Blob => TargetKind::Blob,
                Affinity::Numeric => TargetKind::Numeric,
            }
        };
        return (
            kind,
            format!("no non-null values: from the declared type {shown}"),
        );
    }
    if counts.blob > 0 {
        let others = non_null - counts.blob;
        return (
            TargetKind::Blob,
            format!(
                "{} blob values; the {others} other values are stored as their bytes (coerced)",
                counts.blob
            ),
        );
    }
    let mut note = String::new();
    if is_temporal(decl) {
        if counts.text == non_null {
            let (mut dates, mut datetimes) = (0u64, 0u64);
            let mut bad: Option<String> = None;
            for v in values() {
                if let Value::Text(s) = v {
                    if parse_date(s).is_some() {
                        dates += 1;
                    } else if parse_datetime(s).is_some() {
                        datetimes += 1;
                    } else if bad.is_none() {
                        bad = Some(s.chars().take(60).collect());
                    }
                }
            }
            if dates == non_null {
                return (
                    TargetKind::Date,
                    format!("declared {shown}; every value is a valid YYYY-MM-DD date"),
                );
            }
            if datetimes == non_null {
                return (
                    TargetKind::Timestamp,
                    format!("declared {shown}; every value is a valid ISO datetime"),
                );
            }
            let why = match bad {
                Some(b) => format!("`{b}` is not an ISO date or datetime"),
                None => format!("{dates} dates and {datetimes} datetimes are mixed"),
            };
            return (
                TargetKind::Text,
                format!("declared {shown} but {why}: kept as text"),
            );
        }
        note = format!("declared {shown} but holds non-text values; ");
    }
    if is_boolean(decl) && counts.integer == non_null {
        let only_01 = values().all(|v| matches!(v, Value::Null | Value::Int(0) | Value::Int(1)));
        if only_01 {
            return (
                TargetKind::Integer,
                format!(
                    "declared {shown} holding only 0/1: kept integer so comparisons with 0/1 \
                     behave as in SQLite"
                ),
            );
        }
    }
    if counts.text > 0 {
        let numeric = counts.integer + counts.real;
        let reason = if numeric > 0 {
            format!(
                "{note}{} text values in a column declared {shown}: text; the {numeric} numeric \
                 values are stored as their SQLite text (coerced)",
                counts.text
            )
        } else {
            format!("{note}only text values (declared {shown})")
        };
        return (TargetKind::Text, reason);
    }
    if counts.real > 0 {
        let reason = if counts.integer > 0 {
            format!(
                "{note}{} integers and {} reals (declared {shown}): real; integers below 2^53 \
                 are exact",
                counts.integer, counts.real
            )
        } else {
            format!("{note}only reals (declared {shown})")
        };
        return (TargetKind::Real, reason);
    }
    (
        TargetKind::Integer,
        format!("{note}only integers (declared {shown})"),
    )
}

/// A REAL as SQLite renders it as text (`3.0`, `0.1`, `1.0e+20`).
pub(crate) fn sqlite_real_text(f: f64) -> String {
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{f:.1}")
    } else if f.is_finite() && (f.abs() >= 1e15 || (f != 0.0 && f.abs() < 1e-4)) {
        let s = format!("{f:e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = if m.contains('.') {
            m.to_string()
        } else {
            format!("{m}.0")
        };
        let e: i32 = e.parse().unwrap_or(0);
        format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
    } else if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "Inf" } else { "-Inf" }.into()
    } else {
        format!("{f}")
    }
}

fn source_kind(v: &Value) -> &'static str {
    match v {
        Value::Int(_) => "integer",
        Value::Float(_) => "real",
        Value::Text(_) => "text",
        Value::Bytes(_) => "blob",
        _ => "null",
    }
}

/// Converts one source value to `kind`; `Some(stored text)` when the value
/// changed (a coercion to record).
pub(crate) fn convert(v: &Value, kind: TargetKind, types: &TypeMap) -> (Value, Option<String>) {
    let out = match (kind, v) {
        (_, Value::Null) => return (Value::Null, None),
        (TargetKind::Integer, Value::Int(_)) => return (v.clone(), None),
        (TargetKind::Real, Value::Float(_)) => return (v.clone(), None),
        (TargetKind::Real, Value::Int(i)) => {
            let f = *i as f64;
            let exact = f as i128 == i128::from(*i);
            return (Value::Float(f), (!exact).then(|| format!("{f:?}")));
        }
        (TargetKind::Text, Value::Text(s)) => {
            if types.text_rejects_nul && s.contains('\0') {
                let cleaned = s.replace('\0', "");
                return (Value::Text(cleaned.clone()), Some(cleaned));
            }
            return (v.clone(), None);
        }
        (TargetKind::Text | TargetKind::Numeric, Value::Int(i)) => i.to_string(),
        (TargetKind::Text | TargetKind::Numeric, Value::Float(f)) => sqlite_real_text(*f),
        (TargetKind::Blob, Value::Bytes(_)) => return (v.clone(), None),
        (TargetKind::Blob, Value::Text(s)) => {
            return (Value::Bytes(s.as_bytes().to_vec()), Some(v.display()))
        }
        (TargetKind::Blob, Value::Int(i)) => {
            return (
                Value::Bytes(i.to_string().into_bytes()),
                Some(i.to_string()),
            )
        }
        (TargetKind::Blob, Value::Float(f)) => {
            let s = sqlite_real_text(*f);
            return (Value::Bytes(s.clone().into_bytes()), Some(s));
        }
        (TargetKind::Date, Value::Text(s)) => {
            if let Some(d) = parse_date(s) {
                let t = date_text(d);
                let changed = (t != *s).then(|| t.clone());
                return (Value::Date(t), changed);
            }
            s.clone()
        }
        (TargetKind::Timestamp, Value::Text(s)) => {
            if let Some(dt) = parse_datetime(s) {
                let t = datetime_text(dt);
                let changed = (t != *s).then(|| t.clone());
                return (Value::Timestamp(t), changed);
            }
            s.clone()
        }
        // The decision never pairs other kinds; keep the value as text.
        (_, other) => other.display(),
    };
    let value = if kind == TargetKind::Numeric {
        Value::Decimal(out.clone())
    } else {
        Value::Text(out.clone())
    };
    (value, Some(out))
}

/// The decided columns and the converted rows of one table.
pub(crate) struct TypedTable {
    pub columns: Vec<ColumnDecision>,
    pub rows: Vec<Vec<Value>>,
    pub coercions: Coercions,
}

fn clip(s: &str) -> String {
    if s.chars().count() > 200 {
        let mut t: String = s.chars().take(200).collect();
        t.push('…');
        t
    } else {
        s.to_string()
    }
}

fn push_coercion(list: &mut Coercions, c: Coercion) {
    list.count += 1;
    if list.sample.len() < COERCION_SAMPLE_CAP {
        list.sample.push(c);
    }
}

pub(crate) fn type_table(table: &SourceTable, types: &TypeMap) -> TypedTable {
    let mut columns = Vec::with_capacity(table.columns.len());
    for (i, col) in table.columns.iter().enumerate() {
        let counts = storage_counts(&table.rows, i);
        let (kind, reason) = decide(col, &counts, &table.rows, i);
        columns.push(ColumnDecision {
            name: col.name.clone(),
            declared_type: col.declared.clone(),
            storage: counts,
            kind,
            target_type: type_name(types, kind),
            not_null: col.not_null && counts.null == 0,
            reason,
        });
    }
    let mut coercions = Coercions::default();
    for &(row, col) in &table.invalid_utf8 {
        push_coercion(
            &mut coercions,
            Coercion {
                row: row as u64,
                column: table.columns[col].name.clone(),
                value: clip(&table.rows[row][col].display()),
                from: "text (invalid UTF-8)".into(),
                to: "text (invalid bytes replaced by U+FFFD)".into(),
                stored: None,
            },
        );
    }
    let mut rows = Vec::with_capacity(table.rows.len());
    for (r, row) in table.rows.iter().enumerate() {
        let mut out = Vec::with_capacity(row.len());
        for (c, v) in row.iter().enumerate() {
            let kind = columns[c].kind;
            let (value, changed) = convert(v, kind, types);
            if let Some(stored) = changed {
                let shown = clip(&v.display());
                let stored = clip(&stored);
                push_coercion(
                    &mut coercions,
                    Coercion {
                        row: r as u64,
                        column: columns[c].name.clone(),
                        from: source_kind(v).into(),
                        to: columns[c].target_type.clone(),
                        stored: (stored != shown).then_some(stored),
                        value: shown,
                    },
                );
            }
            out.push(value);
        }
        rows.push(out);
    }
    TypedTable {
        columns,
        rows,
        coercions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affinities() {
        assert_eq!(affinity("INTEGER"), Affinity::Integer);
        assert_eq!(affinity("varchar(20)"), Affinity::Text);
        assert_eq!(affinity(""), Affinity::Blob);
        assert_eq!(affinity("DOUBLE"), Affinity::Real);
        assert_eq!(affinity("DATE"), Affinity::Numeric);
        assert_eq!(affinity("decimal(10,2)"), Affinity::Numeric);
    }

    #[test]
    fn reals_render_as_sqlite() {
        assert_eq!(sqlite_real_text(3.0), "3.0");
        assert_eq!(sqlite_real_text(0.5), "0.5");
        assert_eq!(sqlite_real_text(1e20), "1.0e+20");
    }

    #[test]
    fn big_integers_to_real_are_recorded() {
        let types = &sqlwitness_dialect::shipped(sqlwitness_core::EngineKind::Postgres).types;
        let (_, c) = convert(&Value::Int(3), TargetKind::Real, types);
        assert!(c.is_none());
        let (_, c) = convert(&Value::Int((1i64 << 53) + 1), TargetKind::Real, types);
        assert!(c.is_some());
    }
}
