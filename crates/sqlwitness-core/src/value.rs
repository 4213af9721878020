//! Typed values as engines return them.
//!
//! Adapters map every native value to one variant of [`Value`] and keep the
//! column's declared type in [`crate::Column`]. Nothing is rendered to text
//! here; normalisation happens only when comparing (see [`compare`](mod@crate::compare)).

use serde::{Deserialize, Serialize};

/// One cell of a result set, typed.
///
/// `Decimal` keeps the engine's exact decimal text (e.g. `"3.50"`), so no
/// precision is lost; date/time variants keep ISO-8601 text
/// (`YYYY-MM-DD`, `HH:MM:SS[.ffffff]`, `YYYY-MM-DD HH:MM:SS[.ffffff]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", content = "v", rename_all = "snake_case")]
pub enum Value {
    Null,
    Int(i64),
    Float(f64),
    Decimal(String),
    Text(String),
    Bytes(Vec<u8>),
    Bool(bool),
    Date(String),
    Time(String),
    Timestamp(String),
}

impl Value {
    /// The value as a number, when it is one: integers, floats, decimals and
    /// booleans (as 0/1, the way Python's `True == 1` and MySQL's `TINYINT(1)`
    /// see them). Text is *not* a number here.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            Value::Decimal(d) => d.trim().parse().ok(),
            Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
            _ => None,
        }
    }

    /// Bytes this value occupies: the enum itself plus any text or bytes it
    /// owns. Results are bounded by the sum of these
    /// ([`crate::QueryLimits::max_bytes`]).
    pub fn heap_size(&self) -> usize {
        std::mem::size_of::<Value>()
            + match self {
                Value::Decimal(s)
                | Value::Text(s)
                | Value::Date(s)
                | Value::Time(s)
                | Value::Timestamp(s) => s.len(),
                Value::Bytes(b) => b.len(),
                _ => 0,
            }
    }

    /// True for the numeric variants (including booleans).
    pub fn is_numeric(&self) -> bool {
        matches!(
            self,
            Value::Int(_) | Value::Float(_) | Value::Decimal(_) | Value::Bool(_)
        )
    }

    /// The kind name used in reports and logs (`"int"`, `"text"` …).
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Decimal(_) => "decimal",
            Value::Text(_) => "text",
            Value::Bytes(_) => "bytes",
            Value::Bool(_) => "bool",
            Value::Date(_) => "date",
            Value::Time(_) => "time",
            Value::Timestamp(_) => "timestamp",
        }
    }

    /// A short human rendering for reports (never used for comparison).
    pub fn display(&self) -> String {
        match self {
            Value::Null => "NULL".into(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => format!("{f:?}"),
            Value::Decimal(d) => d.clone(),
            Value::Text(s) => s.clone(),
            Value::Bytes(b) => {
                let mut s = String::with_capacity(2 + b.len() * 2);
                s.push_str("x'");
                for byte in b {
                    s.push_str(&format!("{byte:02x}"));
                }
                s.push('\'');
                s
            }
            Value::Bool(b) => b.to_string(),
            Value::Date(s) | Value::Time(s) | Value::Timestamp(s) => s.clone(),
        }
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Value::Float(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::Text(v.to_string())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::Text(v)
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Self {
        v.map(Into::into).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_numbers_across_variants() {
        assert_eq!(Value::Int(3).as_f64(), Some(3.0));
        assert_eq!(Value::Decimal("3.0".into()).as_f64(), Some(3.0));
        assert_eq!(Value::Bool(true).as_f64(), Some(1.0));
        assert_eq!(Value::Text("3".into()).as_f64(), None);
    }

    #[test]
    fn serde_round_trip() {
        let v = vec![
            Value::Null,
            Value::Int(-4),
            Value::Float(0.5),
            Value::Decimal("1.20".into()),
            Value::Text("a".into()),
            Value::Bytes(vec![0, 255]),
            Value::Bool(false),
            Value::Date("2020-01-02".into()),
        ];
        let s = serde_json::to_string(&v).unwrap();
        let back: Vec<Value> = serde_json::from_str(&s).unwrap();
        assert_eq!(v, back);
    }
}
