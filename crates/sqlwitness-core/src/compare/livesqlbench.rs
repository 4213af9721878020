//! LiveSQLBench mode: the verdict of `ex_base` in LiveSQLBench's official
//! evaluation (`bird-bench/livesqlbench`, `evaluation/src/test_utils.py`),
//! after its fetch (`db_utils.py`) and `preprocess_results`, on a model of
//! the Python values psycopg2 returns.
//!
//! The rules, all reproduced:
//!
//! * Each result is cut to its first [`LIVESQLBENCH_MAX_ROWS`] rows (the
//!   evaluator fetches no more).
//! * An empty result on either side is a failure, even when both are
//!   empty.
//! * Floats are rounded to two decimals (Python's `round(x, 2)`, ties to
//!   even on the exact binary value); decimals are quantized to two places
//!   with ties away from zero (`ROUND_HALF_UP`). A decimal whose rounded
//!   coefficient has more than 28 digits, or an infinite decimal, makes the
//!   evaluator raise: the verdict is a failure.
//! * Dates become `'YYYY-MM-DD'` text and timestamps the same text of their
//!   date alone (the time of day is dropped), so a date equals its ISO
//!   text; times stay times (equal only to times).
//! * A cell of a column declared `json` or `jsonb` is read as psycopg2
//!   reads it (`json.loads`): an object or an array becomes the text
//!   `json.dumps(v, sort_keys=True)` after rounding the floats inside it,
//!   and equals that text from any column; a JSON scalar is that number,
//!   text, boolean or `NULL`.
//! * Rows compare as Python tuples under Python's equality: `1 == 1.0 ==
//!   True == Decimal('1.00')`, a decimal equals a float only when their
//!   exact values are equal (`Decimal('0.10') != 0.1`), text is never a
//!   number, `NULL` equals only `NULL`, and NaN equals nothing.
//! * When order matters (the task's `conditions.order`; here the gold's
//!   top-level `ORDER BY`), the row lists must be equal; otherwise the
//!   **sets** of rows: duplicates never count. Column order always
//!   matters.
//!
//! Not reproduced, because they rewrite the SQL rather than compare
//! results: the official test case strips comments and every `DISTINCT`
//! and `ROUND(...)` from both queries before running them.
//!
//! The reason reported for a mismatch (the verdict does not depend on it):
//! [`MismatchReason::Order`] when the rows are the same set in another
//! order; [`MismatchReason::ColumnCount`] when the widths differ;
//! [`MismatchReason::RowCount`] when either side is empty or the numbers
//! of distinct rows differ; [`MismatchReason::Values`] otherwise.

use std::collections::HashSet;

use super::pyvalue::float_repr;
use super::{width, Comparison, MismatchReason};
use crate::{ResultSet, Value};

/// The evaluator fetches at most this many rows of a result.
pub const LIVESQLBENCH_MAX_ROWS: usize = 10_000;

pub(super) fn compare(gold: &ResultSet, pred: &ResultSet, ordered: bool) -> Comparison {
    if livesqlbench_equal(gold, pred, ordered) {
        return Comparison::EQUAL;
    }
    let (Ok(g), Ok(p)) = (rows(gold), rows(pred)) else {
        return Comparison::differ(MismatchReason::Values);
    };
    if g.is_empty() || p.is_empty() {
        return Comparison::differ(MismatchReason::RowCount);
    }
    let gs: HashSet<&Vec<Key>> = g.iter().collect();
    let ps: HashSet<&Vec<Key>> = p.iter().collect();
    if ordered && gs == ps && !has_nan(&g) {
        return Comparison::differ(MismatchReason::Order);
    }
    if width(gold) != width(pred) {
        return Comparison::differ(MismatchReason::ColumnCount);
    }
    if gs.len() != ps.len() {
        return Comparison::differ(MismatchReason::RowCount);
    }
    Comparison::differ(MismatchReason::Values)
}

/// LiveSQLBench's `ex_base` verdict on two results: `ordered` is the
/// task's `conditions["order"]` (row lists compared), otherwise row sets
/// are compared. See the module documentation for the rules.
pub fn livesqlbench_equal(gold: &ResultSet, pred: &ResultSet, ordered: bool) -> bool {
    let (Ok(g), Ok(p)) = (rows(gold), rows(pred)) else {
        return false;
    };
    if g.is_empty() || p.is_empty() || has_nan(&g) || has_nan(&p) {
        return false;
    }
    if ordered {
        g == p
    } else {
        let gs: HashSet<&Vec<Key>> = g.iter().collect();
        let ps: HashSet<&Vec<Key>> = p.iter().collect();
        gs == ps
    }
}

/// The equality-and-hash identity of a preprocessed Python value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    None,
    /// A number equal to `k / 4` for an integer `k` (every int and bool,
    /// every decimal with 0, 25, 50 or 75 cents, floats of that form).
    Quarter(i128),
    /// A decimal of other cents (equal to no float and no int).
    Cents(i128),
    /// Any other float, by its bits.
    Float(u64),
    /// NaN: equal to nothing, itself included.
    Nan,
    Str(String),
    Bytes(Vec<u8>),
    Time(String),
}

/// The evaluator raised (its test case fails).
struct Raised;

fn has_nan(rows: &[Vec<Key>]) -> bool {
    rows.iter().flatten().any(|k| *k == Key::Nan)
}

fn rows(rs: &ResultSet) -> Result<Vec<Vec<Key>>, Raised> {
    let json: Vec<bool> = rs
        .columns
        .iter()
        .map(|c| {
            c.decl_type
                .as_deref()
                .is_some_and(|t| matches!(t.trim().to_ascii_lowercase().as_str(), "json" | "jsonb"))
        })
        .collect();
    rs.rows
        .iter()
        .take(LIVESQLBENCH_MAX_ROWS)
        .map(|r| {
            r.iter()
                .enumerate()
                .map(|(j, v)| key(v, json.get(j).copied().unwrap_or(false)))
                .collect()
        })
        .collect()
}

fn key(v: &Value, json_column: bool) -> Result<Key, Raised> {
    Ok(match v {
        Value::Null => Key::None,
        Value::Int(i) => Key::Quarter(i128::from(*i) * 4),
        Value::Bool(b) => Key::Quarter(if *b { 4 } else { 0 }),
        Value::Float(f) => float_key(round2(*f)),
        Value::Decimal(d) => decimal_key(d)?,
        Value::Text(s) if json_column => match serde_json::from_str::<serde_json::Value>(s) {
            Ok(j) => json_key(&j),
            Err(_) => Key::Str(s.clone()),
        },
        Value::Text(s) => Key::Str(s.clone()),
        Value::Date(s) => Key::Str(s.clone()),
        Value::Timestamp(s) => Key::Str(s.get(..10).unwrap_or(s).to_string()),
        Value::Time(s) => Key::Time(s.clone()),
        Value::Bytes(b) => Key::Bytes(b.clone()),
    })
}

/// Python's `round(f, 2)`: correctly rounded to two decimals (Rust's
/// fixed-precision formatting rounds the exact binary value the same way).
fn round2(f: f64) -> f64 {
    if !f.is_finite() {
        return f;
    }
    format!("{f:.2}").parse().unwrap_or(f)
}

fn float_key(f: f64) -> Key {
    if f.is_nan() {
        return Key::Nan;
    }
    let q = f * 4.0;
    if q.is_finite() && q.fract() == 0.0 && q.abs() < 1e38 {
        Key::Quarter(q as i128)
    } else {
        Key::Float(f.to_bits())
    }
}

/// `Decimal(d).quantize(Decimal('0.01'), ROUND_HALF_UP)` as a key.
fn decimal_key(d: &str) -> Result<Key, Raised> {
    let t = d.trim();
    let lower = t.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    if unsigned == "nan" || unsigned == "snan" {
        return Ok(Key::Nan);
    }
    let Some(cents) = quantize_cents(t) else {
        // Not a number Python reads, or infinite, or too long: raises.
        return Err(Raised);
    };
    Ok(if cents % 25 == 0 {
        Key::Quarter(cents / 25)
    } else {
        Key::Cents(cents)
    })
}

/// The value of decimal text in hundredths, rounded half away from zero;
/// `None` when the text is not a finite decimal or the result has more
/// than 28 digits (Python's default context precision).
pub(super) fn quantize_cents(t: &str) -> Option<i128> {
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], body[i + 1..].parse::<i64>().ok()?),
        None => (body, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if (int.is_empty() && frac.is_empty())
        || !int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit())
    {
        return None;
    }
    // digits × 10^(exp - frac.len()); hundredths: shift by 2.
    let digits: String = format!("{int}{frac}");
    let digits = digits.trim_start_matches('0');
    let shift = exp - frac.len() as i64 + 2;
    let (kept, first_dropped) = if shift >= 0 {
        if digits.len() as i64 + shift > 28 {
            return if digits.is_empty() { Some(0) } else { None };
        }
        (format!("{digits}{}", "0".repeat(shift as usize)), b'0')
    } else {
        let drop = (-shift) as usize;
        if drop >= digits.len() {
            let first = if drop == digits.len() {
                digits.bytes().next().unwrap_or(b'0')
            } else {
                b'0'
            };
            (String::new(), first)
        } else {
            let (k, d) = digits.split_at(digits.len() - drop);
            (k.to_string(), d.as_bytes()[0])
        }
    };
    let mut cents: i128 = if kept.is_empty() {
        0
    } else {
        if kept.len() > 28 {
            return None;
        }
        kept.parse().ok()?
    };
    if first_dropped >= b'5' {
        cents += 1;
        if cents >= 10_i128.pow(28) {
            return None;
        }
    }
    Some(if neg { -cents } else { cents })
}

/// A value read from JSON by `json.loads`, after the evaluator's rounding.
fn json_key(j: &serde_json::Value) -> Key {
    use serde_json::Value as J;
    match j {
        J::Null => Key::None,
        J::Bool(b) => Key::Quarter(if *b { 4 } else { 0 }),
        J::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Key::Quarter(i128::from(i) * 4),
            (None, Some(u)) => Key::Quarter(i128::from(u) * 4),
            _ => float_key(round2(n.as_f64().unwrap_or(f64::NAN))),
        },
        J::String(s) => Key::Str(s.clone()),
        J::Array(_) | J::Object(_) => {
            let mut out = String::new();
            python_dumps(j, &mut out);
            Key::Str(out)
        }
    }
}

/// Python's `json.dumps(v, sort_keys=True)` (separators `", "` and
/// `": "`, non-ASCII escaped) with every float rounded to two decimals.
pub(super) fn python_dumps(j: &serde_json::Value, out: &mut String) {
    use serde_json::Value as J;
    match j {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Number(n) => {
            if n.is_f64() {
                out.push_str(&float_repr(round2(n.as_f64().unwrap_or(f64::NAN))));
            } else {
                out.push_str(&n.to_string());
            }
        }
        J::String(s) => python_json_string(s, out),
        J::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                python_dumps(item, out);
            }
            out.push(']');
        }
        J::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                python_json_string(k, out);
                out.push_str(": ");
                python_dumps(&map[k.as_str()], out);
            }
            out.push('}');
        }
    }
}

fn python_json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Column;

    fn rs(rows: Vec<Vec<Value>>) -> ResultSet {
        let w = rows.first().map_or(1, Vec::len);
        let cols = (0..w).map(|i| Column::new(format!("c{i}"), None)).collect();
        ResultSet::new(cols, rows)
    }

    #[test]
    fn quantize_rounds_half_away_from_zero() {
        assert_eq!(quantize_cents("1.005"), Some(101));
        assert_eq!(quantize_cents("-1.005"), Some(-101));
        assert_eq!(quantize_cents("1.0049"), Some(100));
        assert_eq!(quantize_cents("0.004"), Some(0));
        assert_eq!(quantize_cents("0.005"), Some(1));
        assert_eq!(quantize_cents("12.5e1"), Some(12500));
        assert_eq!(quantize_cents("1e26"), None);
        assert_eq!(quantize_cents("Infinity"), None);
        assert_eq!(quantize_cents("0"), Some(0));
    }

    #[test]
    fn sets_ignore_duplicates_and_empty_results_fail() {
        let gold = rs(vec![vec![Value::Int(1)], vec![Value::Int(1)]]);
        let pred = rs(vec![vec![Value::Float(1.004)]]);
        assert!(livesqlbench_equal(&gold, &pred, false));
        assert!(!livesqlbench_equal(&gold, &pred, true));
        let empty = rs(vec![]);
        assert!(!livesqlbench_equal(&empty, &empty, false));
    }

    #[test]
    fn decimals_equal_floats_only_exactly() {
        let d = |s: &str| rs(vec![vec![Value::Decimal(s.into())]]);
        let f = |x: f64| rs(vec![vec![Value::Float(x)]]);
        assert!(livesqlbench_equal(&d("1.50"), &f(1.5), false));
        assert!(!livesqlbench_equal(&d("0.10"), &f(0.1), false));
        assert!(livesqlbench_equal(
            &d("7.00"),
            &rs(vec![vec![Value::Int(7)]]),
            false
        ));
    }

    #[test]
    fn json_objects_compare_as_sorted_dumps() {
        let mut gold = rs(vec![vec![Value::Text(r#"{"b": 1.234, "a": "é"}"#.into())]]);
        gold.columns[0].decl_type = Some("jsonb".into());
        let pred = rs(vec![vec![Value::Text(
            r#"{"a": "\u00e9", "b": 1.23}"#.into(),
        )]]);
        assert!(livesqlbench_equal(&gold, &pred, false));
    }
}
