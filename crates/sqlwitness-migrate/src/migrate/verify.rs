//! The content checksum both sides of a migration compute: the stream the
//! migration writes is the stream it hashes, and `--verify full` hashes
//! what it reads back.
//!
//! Per row: XXH3-128 over a typed encoding of each cell (a tag byte, then
//! the value: integers as 8 little-endian bytes, floats by their IEEE bits
//! with -0 as 0, text, bytes, decimals (normalised) and date/time text
//! length-prefixed, timestamps without trailing fractional zeros). Per
//! table: the row hashes added as 128-bit integers modulo 2^128. The sum is
//! independent of row order, counts duplicate rows, and streams.
//!
//! A column of a type its server keeps in a form of its own ([`HashForm`]:
//! a time with its fractional digits, JSON in the server's key order and
//! spacing) is hashed in one form on both sides.

use sqlwitness_core::{canonical_decimal, TableDef, Value};
use sqlwitness_dialect::{Dialect, Reads};
use xxhash_rust::xxh3::Xxh3;

/// The form a column's values are hashed in, on both sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum HashForm {
    /// As written and as read.
    #[default]
    AsIs,
    /// A time of day as text: hashed as a time, trailing fractional zeros
    /// taken off.
    Time,
    /// JSON text: hashed as its canonical JSON (object keys sorted,
    /// numbers by value, strings unescaped), so that a server's own form of
    /// the document hashes as the source's.
    Json,
}

/// The hash form of each column of `def`, as created on the engine of
/// `dialect` (its `column_model.reads`).
pub(crate) fn hash_forms(dialect: &Dialect, def: &TableDef) -> Vec<HashForm> {
    def.columns
        .iter()
        .map(
            |c| match dialect.column_model.reads(&c.sql_type, false, false) {
                Some(Reads::Time) => HashForm::Time,
                Some(Reads::Json) => HashForm::Json,
                _ => HashForm::AsIs,
            },
        )
        .collect()
}

/// `text` as canonical JSON (see [`HashForm::Json`]); `None` when it is
/// not JSON.
fn canonical_json(text: &str) -> Option<String> {
    fn write(out: &mut String, v: &serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                let mut entries: Vec<_> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                out.push('{');
                for (i, (k, v)) in entries.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::Value::String(k.clone()).to_string());
                    out.push(':');
                    write(out, v);
                }
                out.push('}');
            }
            serde_json::Value::Array(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(out, v);
                }
                out.push(']');
            }
            serde_json::Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => out.push_str(&i.to_string()),
                (None, Some(u), _) => out.push_str(&u.to_string()),
                (None, None, Some(f)) if f.fract() == 0.0 && f.abs() < 9.0e15 => {
                    out.push_str(&(f as i64).to_string())
                }
                (None, None, Some(f)) => out.push_str(&f.to_string()),
                _ => out.push_str(&n.to_string()),
            },
            other => out.push_str(&other.to_string()),
        }
    }
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    let mut out = String::with_capacity(text.len());
    write(&mut out, &v);
    Some(out)
}

/// `v` in the hash form `form`, where that differs from `v`.
fn in_form(v: &Value, form: HashForm) -> Option<Value> {
    match (form, v) {
        (HashForm::Time, Value::Text(s)) => Some(Value::Time(s.clone())),
        (HashForm::Json, Value::Text(s)) => canonical_json(s).map(Value::Text),
        _ => None,
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Checksum {
    sum: u128,
    rows: u64,
}

fn push_text(buf: &mut Vec<u8>, tag: u8, s: &str) {
    buf.push(tag);
    buf.extend_from_slice(&(s.len() as u64).to_le_bytes());
    buf.extend_from_slice(s.as_bytes());
}

/// `2020-01-02 03:04:05.500000` → `2020-01-02 03:04:05.5`.
fn trim_fraction(s: &str) -> &str {
    match s.rfind('.') {
        Some(dot) if s[dot + 1..].bytes().all(|b| b.is_ascii_digit()) => {
            let t = s.trim_end_matches('0');
            t.strip_suffix('.').unwrap_or(t)
        }
        _ => s,
    }
}

fn encode(buf: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => buf.push(0),
        Value::Int(i) => {
            buf.push(1);
            buf.extend_from_slice(&i.to_le_bytes());
        }
        Value::Bool(b) => {
            buf.push(1);
            buf.extend_from_slice(&i64::from(*b).to_le_bytes());
        }
        Value::Float(f) => {
            buf.push(2);
            let f = if *f == 0.0 { 0.0 } else { *f };
            let bits = if f.is_nan() {
                f64::NAN.to_bits()
            } else {
                f.to_bits()
            };
            buf.extend_from_slice(&bits.to_le_bytes());
        }
        Value::Decimal(d) => match canonical_decimal(d) {
            Some(c) => push_text(buf, 3, &c),
            None => push_text(buf, 3, d),
        },
        Value::Text(s) => push_text(buf, 4, s),
        Value::Bytes(b) => {
            buf.push(5);
            buf.extend_from_slice(&(b.len() as u64).to_le_bytes());
            buf.extend_from_slice(b);
        }
        Value::Date(s) => push_text(buf, 6, s),
        Value::Time(s) => push_text(buf, 7, trim_fraction(s)),
        Value::Timestamp(s) => push_text(buf, 8, trim_fraction(s)),
    }
}

impl Checksum {
    /// Adds one row (`buf` is scratch space, reused between rows).
    pub fn add_row(&mut self, row: &[Value], buf: &mut Vec<u8>) {
        self.add_row_in(row, &[], buf);
    }

    /// Adds one row, each value in its column's hash form (`forms`, by
    /// column; a column past its end is hashed as it is).
    pub fn add_row_in(&mut self, row: &[Value], forms: &[HashForm], buf: &mut Vec<u8>) {
        buf.clear();
        for (i, v) in row.iter().enumerate() {
            match forms.get(i).and_then(|f| in_form(v, *f)) {
                Some(shown) => encode(buf, &shown),
                None => encode(buf, v),
            }
        }
        let mut h = Xxh3::new();
        h.update(buf);
        self.sum = self.sum.wrapping_add(h.digest128());
        self.rows += 1;
    }

    #[cfg(test)]
    pub fn rows(&self) -> u64 {
        self.rows
    }

    pub fn hex(&self) -> String {
        format!("{:032x}", self.sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(rows: &[Vec<Value>]) -> Checksum {
        let mut c = Checksum::default();
        let mut buf = Vec::new();
        for r in rows {
            c.add_row(r, &mut buf);
        }
        c
    }

    #[test]
    fn order_independent_typed_and_counts_duplicates() {
        let a = vec![vec![Value::Int(1)], vec![Value::Text("x".into())]];
        let b = vec![vec![Value::Text("x".into())], vec![Value::Int(1)]];
        assert_eq!(sum(&a).hex(), sum(&b).hex());
        // Typed: the integer 1 is not the text "1" nor the float 1.0.
        assert_ne!(
            sum(&[vec![Value::Int(1)]]).hex(),
            sum(&[vec![Value::Text("1".into())]]).hex()
        );
        assert_ne!(
            sum(&[vec![Value::Int(1)]]).hex(),
            sum(&[vec![Value::Float(1.0)]]).hex()
        );
        let mut c = a.clone();
        c.push(vec![Value::Int(1)]);
        assert_ne!(sum(&a).hex(), sum(&c).hex());
        assert_eq!(sum(&c).rows(), 3);
        assert_eq!(Checksum::default().hex(), "0".repeat(32));
        // Cell boundaries count: ("ab", "") is not ("a", "b").
        assert_ne!(
            sum(&[vec![Value::Text("ab".into()), Value::Text(String::new())]]).hex(),
            sum(&[vec![Value::Text("a".into()), Value::Text("b".into())]]).hex()
        );
    }

    #[test]
    fn normal_forms() {
        assert_eq!(
            sum(&[vec![Value::Float(-0.0)]]).hex(),
            sum(&[vec![Value::Float(0.0)]]).hex()
        );
        assert_eq!(
            sum(&[vec![Value::Decimal("3.50".into())]]).hex(),
            sum(&[vec![Value::Decimal("3.5".into())]]).hex()
        );
        assert_eq!(
            trim_fraction("2020-01-02 03:04:05.500000"),
            "2020-01-02 03:04:05.5"
        );
        assert_eq!(
            trim_fraction("2020-01-02 03:04:05.000000"),
            "2020-01-02 03:04:05"
        );
        assert_eq!(trim_fraction("2020-01-02 03:04:05"), "2020-01-02 03:04:05");
    }

    fn sum_in(rows: &[Vec<Value>], forms: &[HashForm]) -> String {
        let mut c = Checksum::default();
        let mut buf = Vec::new();
        for r in rows {
            c.add_row_in(r, forms, &mut buf);
        }
        c.hex()
    }

    #[test]
    fn a_server_s_own_form_hashes_as_the_source_s() {
        let text = |s: &str| vec![Value::Text(s.into())];
        // A time with its fractions as MySQL's time(6) prints it.
        let time = [HashForm::Time];
        assert_eq!(
            sum_in(&[text("12:00:00.500000")], &time),
            sum_in(&[text("12:00:00.5")], &time)
        );
        assert_eq!(
            sum_in(&[text("12:00:00.000000")], &time),
            sum_in(&[text("12:00:00")], &time)
        );
        assert_ne!(
            sum_in(&[text("12:00:01")], &time),
            sum_in(&[text("12:00:00")], &time)
        );
        // JSON as PostgreSQL's json keeps it, as jsonb and MySQL print it.
        let json = [HashForm::Json];
        let source = r#"{"b": [1.50, 2], "a": {"y": null, "x": "é"}}"#;
        for kept in [
            r#"{"a": {"x": "é", "y": null}, "b": [1.5, 2]}"#,
            r#"{"a":{"x":"é","y":null},"b":[1.5,2.0]}"#,
        ] {
            assert_eq!(sum_in(&[text(kept)], &json), sum_in(&[text(source)], &json));
        }
        assert_ne!(
            sum_in(&[text(r#"{"a": 1}"#)], &json),
            sum_in(&[text(r#"{"a": 2}"#)], &json)
        );
        assert_ne!(
            sum_in(&[text("[1, 2]")], &json),
            sum_in(&[text("[2, 1]")], &json)
        );
        // Not JSON: hashed as its text.
        assert_eq!(sum_in(&[text("{oops")], &json), sum(&[text("{oops")]).hex());
        // No form: as it is.
        assert_eq!(
            sum_in(&[text("12:00:00.50")], &[]),
            sum(&[text("12:00:00.50")]).hex()
        );
    }
}
