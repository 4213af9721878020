//! The per-column type decision (from the column's profile) and the
//! conversion of every value to the chosen type as rows stream past, with
//! each value that changes recorded as a coercion.
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

use sqlwitness_core::{SourceColumn, Value};
use sqlwitness_dialect::TypeMap;

use super::log::{
    Coercion, Coercions, ColumnDecision, StorageCounts, TargetKind, COERCION_SAMPLE_CAP,
};
use super::profile::ColumnProfile;
use super::temporal::{
    date_text, datetime_text, is_lenient_date, is_lenient_datetime, parse_date, parse_datetime,
};

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

pub(crate) fn is_temporal(declared: &str) -> bool {
    let u = declared.to_ascii_uppercase();
    u.contains("DATE") || u.contains("TIMESTAMP")
}

pub(crate) fn is_boolean(declared: &str) -> bool {
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

/// Decides one column's target kind and says why.
pub(crate) fn decide(col: &SourceColumn, profile: &ColumnProfile) -> (TargetKind, String) {
    let counts = &profile.storage;
    let decl = col.declared.as_str();
    let shown = if decl.is_empty() { "(none)" } else { decl };
    let non_null = profile.non_null();
    if non_null == 0 {
        return (
            declared_kind(decl),
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
            return temporal_text_kind(profile, shown);
        }
        note = format!("declared {shown} but holds non-text values; ");
    }
    if is_boolean(decl) && counts.integer == non_null && profile.only_01 {
        return (
            TargetKind::Integer,
            format!(
                "declared {shown} holding only 0/1: kept integer so comparisons with 0/1 \
                 behave as in SQLite"
            ),
        );
    }
    storage_kind(counts, &note, shown)
}

/// The kind of a column without non-null values, from its declared type
/// `decl`: DATE/TIME names give date or timestamp, BOOL gives integer, no
/// type gives text, any other its affinity's kind.
fn declared_kind(decl: &str) -> TargetKind {
    if is_temporal(decl) {
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
    }
}

/// The kind of a column declared DATE/DATETIME/TIMESTAMP (`shown`) that
/// holds only text: date when every value is a valid `YYYY-MM-DD`,
/// timestamp when every value is a valid ISO datetime, else text.
fn temporal_text_kind(profile: &ColumnProfile, shown: &str) -> (TargetKind, String) {
    let non_null = profile.non_null();
    let (dates, datetimes) = (profile.dates, profile.datetimes);
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
    let why = match &profile.first_bad {
        Some(b) => format!("`{b}` is not an ISO date or datetime"),
        None => format!("{dates} dates and {datetimes} datetimes are mixed"),
    };
    (
        TargetKind::Text,
        format!("declared {shown} but {why}: kept as text"),
    )
}

/// The kind of a column without blobs by the storage classes it holds
/// (`counts`): text when any value is text, else real when any is real,
/// else integer; the reason starts with `note`.
fn storage_kind(counts: &StorageCounts, note: &str, shown: &str) -> (TargetKind, String) {
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

/// The value itself when [`convert`] would store it unchanged and
/// copy it (already of `kind`, in its canonical form); else the value back.
fn unchanged(v: Value, kind: TargetKind, types: &TypeMap) -> Result<Value, Value> {
    match (kind, v) {
        (_, Value::Null) => Ok(Value::Null),
        (TargetKind::Integer, v @ Value::Int(_))
        | (TargetKind::Real, v @ Value::Float(_))
        | (TargetKind::Blob, v @ Value::Bytes(_)) => Ok(v),
        (TargetKind::Text, Value::Text(s)) if !(types.text_rejects_nul && s.contains('\0')) => {
            Ok(Value::Text(s))
        }
        // A strict `YYYY-MM-DD` is its own canonical form; so is a date with
        // zero parts, where the target holds it.
        (TargetKind::Date, Value::Text(s))
            if parse_date(&s).is_some() || (types.zero_in_dates && is_lenient_date(&s)) =>
        {
            Ok(Value::Date(s))
        }
        (_, v) => Err(v),
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
        // An integer is an exact decimal; a real is the decimal SQLite
        // prints for it, the value a decimal of the source's type held
        // (import stores one as REAL only when that round-trips exactly).
        (TargetKind::Numeric, Value::Int(i)) => return (Value::Decimal(i.to_string()), None),
        // Written out without an exponent (`8.99e-5` → `0.0000899`: the
        // decimal a server stores and reads back).
        (TargetKind::Numeric, Value::Float(f)) if f.is_finite() => {
            return (Value::Decimal(format!("{f}")), None)
        }
        // A decimal's exact text (import keeps one past a double's digits
        // as TEXT).
        (TargetKind::Numeric, Value::Text(s))
            if sqlwitness_core::canonical_decimal(s).is_some() =>
        {
            return (Value::Decimal(s.clone()), None)
        }
        (TargetKind::Text, Value::Int(i)) => i.to_string(),
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
            if types.zero_in_dates && is_lenient_date(s) {
                return (Value::Date(s.clone()), None);
            }
            s.clone()
        }
        (TargetKind::Timestamp, Value::Text(s)) => {
            if let Some(dt) = parse_datetime(s) {
                let t = datetime_text(dt);
                let changed = (t != *s).then(|| t.clone());
                return (Value::Timestamp(t), changed);
            }
            if types.zero_in_dates && is_lenient_datetime(s) {
                return (Value::Timestamp(s.clone()), None);
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

/// Converts rows as they stream to the target, recording each value that
/// changed (the exact count, and the first [`COERCION_SAMPLE_CAP`]).
pub(crate) struct Converter<'a> {
    columns: &'a [ColumnDecision],
    types: &'a TypeMap,
    adjust: &'a [super::original_types::Adjust],
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

fn push_coercion(list: &mut Coercions, c: impl FnOnce() -> Coercion) {
    list.count += 1;
    if list.sample.len() < COERCION_SAMPLE_CAP {
        list.sample.push(c());
    }
}

impl<'a> Converter<'a> {
    pub fn new(columns: &'a [ColumnDecision], types: &'a TypeMap) -> Converter<'a> {
        Converter {
            columns,
            types,
            adjust: &[],
            coercions: Coercions::default(),
        }
    }

    /// Values brought to the types taken from the original copy (see
    /// [`super::original_types::Adjust`]).
    pub fn with_adjust(mut self, adjust: &'a [super::original_types::Adjust]) -> Converter<'a> {
        self.adjust = adjust;
        self
    }

    /// Records a text the source could read only with replacements.
    pub fn lossy(&mut self, row: u64, col: usize, value: &Value) {
        let name = &self.columns[col].name;
        push_coercion(&mut self.coercions, || Coercion {
            row,
            column: name.clone(),
            value: clip(&value.display()),
            from: "text (invalid UTF-8)".into(),
            to: "text (invalid bytes replaced by U+FFFD)".into(),
            stored: None,
        });
    }

    /// Row `row` (0-based, in scan order) converted to the columns' kinds,
    /// taking the values: one that is already of its column's kind (and
    /// canonical) is moved, not copied.
    pub fn row_owned(&mut self, row: u64, values: Vec<Value>) -> Vec<Value> {
        values
            .into_iter()
            .enumerate()
            .map(|(c, v)| {
                if self.adjust.get(c).is_some() {
                    return self.cell(row, c, &v);
                }
                match unchanged(v, self.columns[c].kind, self.types) {
                    Ok(same) => same,
                    Err(v) => self.cell(row, c, &v),
                }
            })
            .collect()
    }

    /// Row `row` (0-based, in scan order) converted to the columns' kinds.
    pub fn row(&mut self, row: u64, values: &[Value]) -> Vec<Value> {
        values
            .iter()
            .enumerate()
            .map(|(c, v)| self.cell(row, c, v))
            .collect()
    }

    /// Value `v` of column `c` in row `row`, converted (and recorded when
    /// it changed).
    fn cell(&mut self, row: u64, c: usize, v: &Value) -> Value {
        let col = &self.columns[c];
        let (mut value, mut changed) = convert(v, col.kind, self.types);
        if let Some(&a) = self.adjust.get(c) {
            let adjusted = super::original_types::adjust(value.clone(), a);
            if adjusted != value {
                changed = Some(adjusted.display());
                value = adjusted;
            }
        }
        if let Some(stored) = changed {
            push_coercion(&mut self.coercions, || {
                let shown = clip(&v.display());
                let stored = clip(&stored);
                Coercion {
                    row,
                    column: col.name.clone(),
                    from: source_kind(v).into(),
                    to: col.target_type.clone(),
                    stored: (stored != shown).then_some(stored),
                    value: shown,
                }
            });
        }
        value
    }
}

/// The temporal kind whose values are every non-null value of a column of
/// texts only when dates (or datetimes) with zero parts count
/// (`1948-01-00`: a MySQL-family dump's, see `TypeMap::zero_in_dates`);
/// `None` when there is none, or when there are no such dates.
pub(crate) fn lenient_kind(p: &ColumnProfile) -> Option<TargetKind> {
    let n = p.non_null();
    if p.storage.text != n {
        return None;
    }
    if p.lenient_dates > 0 && p.dates + p.lenient_dates == n {
        Some(TargetKind::Date)
    } else if p.lenient_datetimes > 0 && p.datetimes + p.lenient_datetimes == n {
        Some(TargetKind::Timestamp)
    } else {
        None
    }
}

/// The decided column: kind, target type, NOT NULL when declared and the
/// data has no NULL.
pub(crate) fn column_decision(
    col: &SourceColumn,
    profile: &ColumnProfile,
    types: &TypeMap,
) -> ColumnDecision {
    let (kind, reason) = decide(col, profile);
    ColumnDecision {
        name: col.name.clone(),
        declared_type: col.declared.clone(),
        storage: profile.storage,
        kind,
        target_type: type_name(types, kind),
        not_null: col.not_null && profile.storage.null == 0,
        reason,
    }
}

/// True when every value of the column reaches the target unchanged and
/// of one storage class matching its kind, so that the source's own
/// binary comparison of the column is the target's exact comparison.
pub(crate) fn is_exact(kind: TargetKind, p: &ColumnProfile, types: &TypeMap) -> bool {
    let n = p.non_null();
    let s = &p.storage;
    match kind {
        TargetKind::Integer => s.integer == n,
        TargetKind::Real => s.real == n,
        TargetKind::Text => {
            s.text == n && p.lossy == 0 && (p.nul_texts == 0 || !types.text_rejects_nul)
        }
        TargetKind::Blob => s.blob == n,
        TargetKind::Date => s.text == n && p.dates == n,
        TargetKind::Timestamp => s.text == n && p.datetimes == n && p.datetimes_changed == 0,
        TargetKind::Numeric => n == 0,
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
    fn an_empty_column_takes_its_declared_kind() {
        for (decl, kind) in [
            ("DATE", TargetKind::Date),
            ("datetime", TargetKind::Timestamp),
            ("TIMESTAMP", TargetKind::Timestamp),
            ("BOOLEAN", TargetKind::Integer),
            ("", TargetKind::Text),
            ("  ", TargetKind::Text),
            ("BLOB", TargetKind::Blob),
            ("varchar(5)", TargetKind::Text),
            ("decimal(10,2)", TargetKind::Numeric),
            ("FLOAT", TargetKind::Real),
        ] {
            assert_eq!(declared_kind(decl), kind, "{decl:?}");
        }
    }

    #[test]
    fn the_storage_classes_present_choose_the_kind() {
        let counts = |integer, real, text| StorageCounts {
            integer,
            real,
            text,
            ..StorageCounts::default()
        };
        let (kind, why) = storage_kind(&counts(2, 1, 3), "", "INT");
        assert_eq!(kind, TargetKind::Text);
        assert!(
            why.starts_with("3 text values in a column declared INT"),
            "{why}"
        );
        assert_eq!(
            storage_kind(&counts(2, 1, 0), "", "INT").0,
            TargetKind::Real
        );
        let (kind, why) = storage_kind(&counts(2, 0, 0), "note; ", "REAL");
        assert_eq!(kind, TargetKind::Integer);
        assert_eq!(why, "note; only integers (declared REAL)");
    }

    #[test]
    fn reals_render_as_sqlite() {
        assert_eq!(sqlite_real_text(3.0), "3.0");
        assert_eq!(sqlite_real_text(0.5), "0.5");
        assert_eq!(sqlite_real_text(1e20), "1.0e+20");
    }

    /// A value moved as it is ([`Converter::row_owned`]) is exactly what
    /// [`convert`] stores for it, unrecorded; any other is handed back.
    #[test]
    fn a_value_moved_unchanged_is_what_convert_stores() {
        let values = [
            Value::Null,
            Value::Int(7),
            Value::Float(-0.0),
            Value::Float(2.5),
            Value::Text("plain".into()),
            Value::Text("nul\0inside".into()),
            Value::Text("2020-02-29".into()),
            Value::Text("2019-02-29".into()),
            Value::Text("2020-2-09".into()),
            Value::Text("2020-02-29 10:11".into()),
            Value::Text("12".into()),
            Value::Bytes(vec![0, 255]),
        ];
        let kinds = [
            TargetKind::Integer,
            TargetKind::Real,
            TargetKind::Numeric,
            TargetKind::Text,
            TargetKind::Blob,
            TargetKind::Date,
            TargetKind::Timestamp,
        ];
        for engine in [
            sqlwitness_core::EngineKind::Postgres,
            sqlwitness_core::EngineKind::Mysql,
        ] {
            let types = &sqlwitness_dialect::shipped(engine).types;
            for kind in kinds {
                for v in &values {
                    match unchanged(v.clone(), kind, types) {
                        Ok(moved) => {
                            assert_eq!(convert(v, kind, types), (moved, None), "{kind:?} {v:?}")
                        }
                        Err(back) => assert_eq!(&back, v),
                    }
                }
            }
        }
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
