//! Result sets: columns with their declared types, and typed rows.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::Value;

/// A result column: its name as the engine reports it and the declared type
/// (SQLite's declared column type, PostgreSQL's type name, MySQL's type name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Column {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decl_type: Option<String>,
}

impl Column {
    pub fn new(name: impl Into<String>, decl_type: Option<String>) -> Self {
        Column {
            name: name.into(),
            decl_type,
        }
    }
}

/// The rows a query returned, in the order the engine returned them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultSet {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Value>>,
}

impl ResultSet {
    pub fn new(columns: Vec<Column>, rows: Vec<Vec<Value>>) -> Self {
        ResultSet { columns, rows }
    }

    pub fn row_count(&self) -> usize {
        self.rows.len()
    }

    /// A content hash of the rows in a canonical, type-aware form that is
    /// independent of row order (a multiset hash): numbers hash by their
    /// canonical numeric text (so `3`, `3.0` and decimal `3.00` agree), text
    /// and bytes by content, NULL as its own tag. Reported so that equal
    /// answers can be spotted across engines at a glance; comparison itself
    /// never relies on it. Built row by row ([`MultisetHash`]), so a result
    /// read as a stream has the same hash.
    pub fn content_hash(&self) -> String {
        let mut h = MultisetHash::default();
        for row in &self.rows {
            h.add(row_hash(row));
        }
        h.finish()
    }
}

/// A row's hash in the canonical form of [`ResultSet::content_hash`]: the
/// first 128 bits of the SHA-256 of its cells' [`canonical_cell`] texts,
/// each followed by 0x1f.
pub fn row_hash(row: &[Value]) -> u128 {
    canonical_row_hash(row.iter().map(canonical_cell))
}

/// [`row_hash`] of a row given as its cells' [`canonical_cell`] texts.
pub fn canonical_row_hash<S: AsRef<str>>(cells: impl IntoIterator<Item = S>) -> u128 {
    let mut h = Sha256::new();
    for c in cells {
        h.update(c.as_ref().as_bytes());
        h.update([0x1f]);
    }
    let digest = h.finalize();
    let mut first = [0u8; 16];
    first.copy_from_slice(&digest[..16]);
    u128::from_le_bytes(first)
}

/// [`ResultSet::content_hash`] built one [`row_hash`] at a time, in any
/// order: the rows' count and the wrapping sum of their hashes, hashed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MultisetHash {
    rows: u64,
    sum: u128,
}

impl MultisetHash {
    pub fn add(&mut self, row_hash: u128) {
        self.rows += 1;
        self.sum = self.sum.wrapping_add(row_hash);
    }

    /// 16 hex digits.
    pub fn finish(&self) -> String {
        let mut h = Sha256::new();
        h.update(self.rows.to_le_bytes());
        h.update(self.sum.to_le_bytes());
        let digest = h.finalize();
        digest[..8].iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Canonical text of a value for hashing and checksums: type-aware, with
/// numbers normalised so that integer 3, float 3.0 and decimal 3.00 coincide
/// and floats are rounded to 12 significant digits.
pub fn canonical_cell(v: &Value) -> String {
    match v {
        Value::Null => "\u{0}N".into(),
        Value::Int(i) => format!("n:{i}"),
        Value::Bool(b) => format!("n:{}", *b as i64),
        Value::Float(f) => format!("n:{}", canonical_float(*f)),
        Value::Decimal(d) => match canonical_decimal(d) {
            Some(s) => format!("n:{s}"),
            None => format!("d:{d}"),
        },
        Value::Text(s) => format!("s:{s}"),
        Value::Bytes(b) => {
            let mut s = String::from("b:");
            for byte in b {
                s.push_str(&format!("{byte:02x}"));
            }
            s
        }
        Value::Date(s) => format!("D:{s}"),
        Value::Time(s) => format!("T:{s}"),
        Value::Timestamp(s) => format!("S:{s}"),
    }
}

/// A float as text rounded to 12 significant digits, with integral values
/// printed without a fraction (`3.0` → `3`).
pub fn canonical_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if f == 0.0 {
        return "0".into();
    }
    let s = format!("{f:.11e}");
    let r: f64 = s.parse().unwrap_or(f);
    if r.fract() == 0.0 && r.abs() < 1e15 {
        format!("{}", r as i64)
    } else {
        format!("{r}")
    }
}

/// Exact decimal text normalised: no leading `+`, no trailing fractional
/// zeros, no trailing dot, `-0` → `0`. `None` when the text is not a plain
/// decimal number.
pub fn canonical_decimal(d: &str) -> Option<String> {
    let t = d.trim();
    let (neg, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (int, frac) = match digits.split_once('.') {
        Some((i, f)) => (i, f),
        None => (digits, ""),
    };
    if int.is_empty() && frac.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let int = int.trim_start_matches('0');
    let frac = frac.trim_end_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let body = if frac.is_empty() {
        int.to_string()
    } else {
        format!("{int}.{frac}")
    };
    if body == "0" {
        return Some(body);
    }
    // Decimals with more than 12 significant digits are compared as floats
    // would be, so the canonical forms of 1/3 as float and as decimal agree.
    let significant = body.chars().filter(|c| c.is_ascii_digit()).count()
        - body.chars().take_while(|c| *c == '0' || *c == '.').count();
    if significant > 12 && !frac.is_empty() {
        let f: f64 = format!("{}{body}", if neg { "-" } else { "" })
            .parse()
            .ok()?;
        return Some(canonical_float(f));
    }
    Some(if neg { format!("-{body}") } else { body })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_numbers_agree() {
        assert_eq!(
            canonical_cell(&Value::Int(3)),
            canonical_cell(&Value::Float(3.0))
        );
        assert_eq!(
            canonical_cell(&Value::Int(3)),
            canonical_cell(&Value::Decimal("3.00".into()))
        );
        assert_eq!(
            canonical_cell(&Value::Float(0.1 + 0.2)),
            canonical_cell(&Value::Decimal("0.3".into()))
        );
        assert_ne!(
            canonical_cell(&Value::Int(3)),
            canonical_cell(&Value::Text("3".into()))
        );
        assert_eq!(canonical_decimal("-0.000"), Some("0".into()));
        assert_eq!(canonical_decimal("+012.50"), Some("12.5".into()));
        assert_eq!(canonical_decimal("abc"), None);
    }

    #[test]
    fn content_hash_ignores_row_order_and_numeric_type() {
        let a = ResultSet::new(
            vec![Column::new("x", None)],
            vec![vec![Value::Int(1)], vec![Value::Int(2)]],
        );
        let b = ResultSet::new(
            vec![Column::new("x", None)],
            vec![vec![Value::Decimal("2.0".into())], vec![Value::Float(1.0)]],
        );
        assert_eq!(a.content_hash(), b.content_hash());
    }
}
