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

use sqlwitness_core::{canonical_decimal, Value};
use xxhash_rust::xxh3::Xxh3;

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
        buf.clear();
        for v in row {
            encode(buf, v);
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
}
