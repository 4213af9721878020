//! A model of the Python values Python's `sqlite3` returns, for the Spider
//! and BIRD modes, which reproduce evaluators written in Python.
//!
//! SQLite gives Python `int`, `float`, `str`, `bytes` and `None`. A
//! [`Value`] from any engine maps to the value `sqlite3` would have given for
//! the same cell: `Int` → `int`; `Bool` → `int` 0/1; `Float` → `float`;
//! `Decimal` → `float` (its text parsed; text that is not a number stays a
//! `str`); `Text`, `Date`, `Time`, `Timestamp` → `str` (their ISO text, as
//! SQLite stores dates); `Bytes` → `bytes`; `Null` → `None`.
//!
//! Equality follows Python: `1 == 1.0 == True`, an `int` and a `float` are
//! equal only when the float is exactly that integer, and equal values hash
//! alike (so they are the same set member or dict key). [`PyKey`] encodes
//! this: an integral float within the `i64` range becomes the same key as
//! the integer. *Ignored quirk:* Python's `nan != nan` (except that the very
//! same object is found in a set by identity); here NaN equals NaN.

use crate::Value;

/// A Python value as `sqlite3` returns it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PyValue {
    None,
    Int(i64),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
}

/// The equality-and-hash identity of a [`PyValue`] under Python's rules.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum PyKey {
    None,
    Int(i64),
    /// A float that equals no `i64` (non-integral, out of range, inf, NaN),
    /// by its bits (NaN normalised).
    Float(u64),
    Str(String),
    Bytes(Vec<u8>),
}

impl PyValue {
    pub(crate) fn from_value(v: &Value) -> PyValue {
        match v {
            Value::Null => PyValue::None,
            Value::Int(i) => PyValue::Int(*i),
            Value::Bool(b) => PyValue::Int(*b as i64),
            Value::Float(f) => PyValue::Float(*f),
            Value::Decimal(d) => match d.trim().parse::<f64>() {
                Ok(f) => PyValue::Float(f),
                Err(_) => PyValue::Str(d.clone()),
            },
            Value::Text(s) | Value::Date(s) | Value::Time(s) | Value::Timestamp(s) => {
                PyValue::Str(s.clone())
            }
            Value::Bytes(b) => PyValue::Bytes(b.clone()),
        }
    }

    pub(crate) fn key(&self) -> PyKey {
        match self {
            PyValue::None => PyKey::None,
            PyValue::Int(i) => PyKey::Int(*i),
            PyValue::Float(f) => {
                // 2^63 is exactly representable; [-2^63, 2^63) fits i64.
                if f.fract() == 0.0
                    && *f >= -9_223_372_036_854_775_808.0
                    && *f < 9_223_372_036_854_775_808.0
                {
                    PyKey::Int(*f as i64)
                } else if f.is_nan() {
                    PyKey::Float(f64::NAN.to_bits())
                } else {
                    PyKey::Float(f.to_bits())
                }
            }
            PyValue::Str(s) => PyKey::Str(s.clone()),
            PyValue::Bytes(b) => PyKey::Bytes(b.clone()),
        }
    }

    /// `str(x) + str(type(x))`, the sort key of Spider's `unorder_row`.
    pub(crate) fn sort_key(&self) -> String {
        let ty = match self {
            PyValue::None => "<class 'NoneType'>",
            PyValue::Int(_) => "<class 'int'>",
            PyValue::Float(_) => "<class 'float'>",
            PyValue::Str(_) => "<class 'str'>",
            PyValue::Bytes(_) => "<class 'bytes'>",
        };
        let mut s = self.str();
        s.push_str(ty);
        s
    }

    /// Python's `str(x)`.
    pub(crate) fn str(&self) -> String {
        match self {
            PyValue::None => "None".into(),
            PyValue::Int(i) => i.to_string(),
            PyValue::Float(f) => float_repr(*f),
            PyValue::Str(s) => s.clone(),
            PyValue::Bytes(b) => bytes_repr(b),
        }
    }
}

/// Python's `str(x)` of the value `sqlite3` would return for `v` (see the
/// module documentation of [`crate::compare`](mod@crate::compare)): `str(1.0)` is `"1.0"`,
/// `str(1e16)` is `"1e+16"`, `str(None)` is `"None"`, bytes print as
/// `b'…'`.
pub fn python_str(v: &Value) -> String {
    PyValue::from_value(v).str()
}

/// Python's `repr(float)`: the shortest digits that round-trip (as Rust's
/// `{:e}` gives them), in fixed notation when the decimal exponent `e`
/// (of `d.ddd × 10^e`) satisfies `-4 <= e < 16`, otherwise in exponent
/// notation with a signed, at least two-digit exponent; integral values
/// keep `.0`.
pub(crate) fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let sci = format!("{f:e}"); // e.g. "-1.2345e-7", "1e16", "0e0"
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e} exponent is an integer");
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let sign = if neg { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let n = digits.len() as i32;
        let body = if exp < 0 {
            format!("0.{}{}", "0".repeat((-exp - 1) as usize), digits)
        } else if exp + 1 >= n {
            format!("{}{}.0", digits, "0".repeat((exp + 1 - n) as usize))
        } else {
            let (int, frac) = digits.split_at((exp + 1) as usize);
            format!("{int}.{frac}")
        };
        format!("{sign}{body}")
    } else {
        let m = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{m}e{esign}{:02}", exp.abs())
    }
}

/// Python's `repr(bytes)`.
fn bytes_repr(b: &[u8]) -> String {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') {
        '"'
    } else {
        '\''
    };
    let mut s = String::with_capacity(b.len() + 3);
    s.push('b');
    s.push(quote);
    for &c in b {
        match c {
            b'\\' => s.push_str("\\\\"),
            b'\t' => s.push_str("\\t"),
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            c if c as char == quote => {
                s.push('\\');
                s.push(quote);
            }
            0x20..=0x7e => s.push(c as char),
            c => s.push_str(&format!("\\x{c:02x}")),
        }
    }
    s.push(quote);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_matches_python() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1.0"),
            (-1.0, "-1.0"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (0.1, "0.1"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1.5, "1.5"),
            (123.456, "123.456"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (123456789012345678.0, "1.2345678901234568e+17"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e100, "1e+100"),
            (2.5e-300, "2.5e-300"),
            (f64::INFINITY, "inf"),
            (f64::NAN, "nan"),
            (9007199254740993.0, "9007199254740992.0"),
        ];
        for (f, want) in cases {
            assert_eq!(float_repr(*f), *want, "repr({f:?})");
        }
    }

    #[test]
    fn str_and_type_keys() {
        assert_eq!(PyValue::None.sort_key(), "None<class 'NoneType'>");
        assert_eq!(PyValue::Int(3).sort_key(), "3<class 'int'>");
        assert_eq!(PyValue::Float(3.0).sort_key(), "3.0<class 'float'>");
        assert_eq!(PyValue::Str("a".into()).sort_key(), "a<class 'str'>");
        assert_eq!(bytes_repr(b"a'b"), "b\"a'b\"");
        assert_eq!(bytes_repr(b"a'\"\x00\n"), "b'a\\'\"\\x00\\n'");
        assert_eq!(python_str(&Value::Decimal("3.50".into())), "3.5");
        assert_eq!(python_str(&Value::Bool(true)), "1");
    }

    #[test]
    fn python_equality() {
        let k = |v: Value| PyValue::from_value(&v).key();
        assert_eq!(k(Value::Int(1)), k(Value::Float(1.0)));
        assert_eq!(k(Value::Int(1)), k(Value::Bool(true)));
        assert_eq!(k(Value::Int(0)), k(Value::Float(-0.0)));
        assert_eq!(k(Value::Int(3)), k(Value::Decimal("3.00".into())));
        assert_ne!(k(Value::Int(3)), k(Value::Text("3".into())));
        assert_ne!(k(Value::Float(0.5)), k(Value::Int(0)));
        // 2^53 + 1 is not equal to the float 2^53 in Python.
        assert_ne!(
            k(Value::Int(9_007_199_254_740_993)),
            k(Value::Float(9_007_199_254_740_992.0))
        );
        assert_eq!(
            k(Value::Date("2020-01-02".into())),
            k(Value::Text("2020-01-02".into()))
        );
    }
}
