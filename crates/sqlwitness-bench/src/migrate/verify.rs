//! The content checksum both sides of a migration compute.
//!
//! Per row: SHA-256 over `canonical_cell` of each cell, each followed by the
//! byte 0x1f. Per table: the row hashes added as 256-bit big-endian
//! integers modulo 2^256. The sum is independent of row order, counts
//! duplicate rows, and streams (no need to keep or sort the row hashes).

use sha2::{Digest, Sha256};
use sqlwitness_core::{canonical_cell, Value};

#[derive(Debug, Clone, Default)]
pub(crate) struct Checksum {
    sum: [u8; 32],
    rows: u64,
}

impl Checksum {
    pub fn add_row(&mut self, row: &[Value]) {
        let mut h = Sha256::new();
        for v in row {
            h.update(canonical_cell(v).as_bytes());
            h.update([0x1f]);
        }
        let digest: [u8; 32] = h.finalize().into();
        let mut carry = 0u16;
        for i in (0..32).rev() {
            let s = u16::from(self.sum[i]) + u16::from(digest[i]) + carry;
            self.sum[i] = (s & 0xff) as u8;
            carry = s >> 8;
        }
        self.rows += 1;
    }

    #[cfg_attr(not(any(feature = "postgres", feature = "mysql")), allow(dead_code))]
    pub fn rows(&self) -> u64 {
        self.rows
    }

    pub fn hex(&self) -> String {
        self.sum.iter().map(|b| format!("{b:02x}")).collect()
    }
}

pub(crate) fn checksum_rows<'a>(rows: impl IntoIterator<Item = &'a Vec<Value>>) -> Checksum {
    let mut c = Checksum::default();
    for r in rows {
        c.add_row(r);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_independent_and_counts_duplicates() {
        let a = vec![vec![Value::Int(1)], vec![Value::Text("x".into())]];
        let b = vec![vec![Value::Text("x".into())], vec![Value::Float(1.0)]];
        assert_eq!(checksum_rows(&a).hex(), checksum_rows(&b).hex());
        let mut c = a.clone();
        c.push(vec![Value::Int(1)]);
        assert_ne!(checksum_rows(&a).hex(), checksum_rows(&c).hex());
        assert_eq!(checksum_rows(&c).rows(), 3);
        assert_eq!(Checksum::default().hex(), "0".repeat(64));
    }
}
