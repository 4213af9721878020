//! The CSV round trip that Spider 2.0's evaluator puts every result through
//! before comparing: a result is fetched into a pandas `DataFrame`
//! (`pd.read_sql_query`), written with `to_csv(index=False)`, and read back
//! with `pd.read_csv`. What the comparison sees is the read-back frame's
//! `.transpose().values.tolist()`: one list of Python values per column.
//!
//! Modelled here, in three steps (pandas 2.0, the version Spider 2.0's
//! requirements pin):
//!
//! 1. **Written text.** Cells become the Python values `sqlite3` returns
//!    ([`PyValue`]). A column of integers only is written as integers; a
//!    column of numbers with a float or a `NULL` becomes `float64` and is
//!    written as `repr(float)` (`3` → `3.0`); any other column is written
//!    cell by cell as `str(x)`. `NULL` and NaN are written as an empty
//!    field.
//! 2. **Read-back types,** column by column as `read_csv` infers them: the
//!    empty field and the default NA strings (`NA`, `NULL`, `None`, `nan`,
//!    `N/A`, …) are NaN; a column whose other fields all parse as integers
//!    (surrounding blanks and a sign allowed, `03` is 3) is `int64` (`uint64`
//!    above `i64`), or `float64` when it also holds a NaN; a column of
//!    numbers is `float64` (`inf`, `Infinity`, `1e5`, `.5` parse); a column
//!    of `true`/`false` in any letter case is `bool` (with a NaN, Python
//!    `bool`s and NaN); anything else is text. So text `'7'` reads back as
//!    the number 7 and text `'NULL'` as NaN.
//! 3. **Frame values.** `.values` finds one type for the whole frame (the
//!    selected gold columns, or all predicted columns): integers stay
//!    integers when every column is `int64`; a mix of numeric columns only
//!    becomes floats (`3` → `3.0`, which changes the text that sorts rows);
//!    any other mix keeps each column's own values.
//!
//! *Not modelled:* a text holding a lone carriage return (`to_csv` leaves
//! it unquoted and `read_csv` splits the row there); results of more than
//! 500 rows, which the evaluator writes in chunks whose types are inferred
//! apart; `read_csv`'s own chunked type inference on very large files;
//! a column mixing negative integers with integers above `i64`.

use super::pyvalue::{float_repr, PyValue};
use crate::ResultSet;

/// A value of the read-back frame, as `.values.tolist()` yields it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Cell {
    Int(i128),
    Float(f64),
    Bool(bool),
    Str(String),
    /// NaN (a `NULL`, an empty field or an NA string).
    Nan,
}

/// The `read_csv` type of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dtype {
    Int,
    UInt,
    Float,
    Bool,
    Object,
}

/// pandas' default NA strings (`pandas._libs.parsers.STR_NA_VALUES`) and
/// the empty field.
const NA_STRINGS: &[&str] = &[
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
];

/// The columns of `rs` after the round trip, each a list of cells.
pub(super) fn read_back(rs: &ResultSet) -> Vec<(Dtype, Vec<Cell>)> {
    let width = super::width(rs);
    (0..width)
        .map(|j| {
            let cells: Vec<PyValue> = rs
                .rows
                .iter()
                .map(|r| r.get(j).map_or(PyValue::None, PyValue::from_value))
                .collect();
            parse_column(&written(&cells))
        })
        .collect()
}

/// `.values.tolist()` of the frame made of `columns`, transposed: the
/// frame-wide type applied to each column's cells.
pub(super) fn frame_values(columns: &[&(Dtype, Vec<Cell>)]) -> Vec<Vec<Cell>> {
    let numeric = |d: Dtype| matches!(d, Dtype::Int | Dtype::UInt | Dtype::Float);
    let first = columns.first().map(|c| c.0);
    let same = columns.iter().all(|c| Some(c.0) == first);
    let to_float = !same && columns.iter().all(|c| numeric(c.0));
    columns
        .iter()
        .map(|(_, cells)| {
            if !to_float {
                return cells.clone();
            }
            cells
                .iter()
                .map(|c| match c {
                    Cell::Int(i) => Cell::Float(*i as f64),
                    other => other.clone(),
                })
                .collect()
        })
        .collect()
}

/// The fields `to_csv` writes for one column (the empty string for an
/// empty field).
fn written(cells: &[PyValue]) -> Vec<String> {
    let all_int = cells.iter().all(|c| matches!(c, PyValue::Int(_)));
    let all_none = cells.iter().all(|c| matches!(c, PyValue::None));
    let float64 = !all_none
        && cells
            .iter()
            .all(|c| matches!(c, PyValue::Int(_) | PyValue::Float(_) | PyValue::None));
    cells
        .iter()
        .map(|c| match c {
            PyValue::None => String::new(),
            PyValue::Float(f) if f.is_nan() => String::new(),
            PyValue::Float(f) => float_repr(*f),
            PyValue::Int(i) if float64 && !all_int => float_repr(*i as f64),
            other => other.str(),
        })
        .collect()
}

/// `read_csv`'s reading of one column's fields.
fn parse_column(fields: &[String]) -> (Dtype, Vec<Cell>) {
    if fields.is_empty() {
        return (Dtype::Object, Vec::new());
    }
    let na: Vec<bool> = fields.iter().map(|f| NA_STRINGS.contains(&&**f)).collect();
    let any_na = na.iter().any(|&n| n);
    let values = || fields.iter().zip(&na).filter(|(_, &n)| !n).map(|(f, _)| f);
    let with_nan = |parse: &dyn Fn(&str) -> Cell| -> Vec<Cell> {
        fields
            .iter()
            .zip(&na)
            .map(|(f, &n)| if n { Cell::Nan } else { parse(f) })
            .collect()
    };
    if values().all(|f| parse_int(f).is_some()) {
        let ints: Vec<i128> = values().filter_map(|f| parse_int(f)).collect();
        let fits_i64 = ints.iter().all(|&i| i64::try_from(i).is_ok());
        let fits_u64 = ints.iter().all(|&i| u64::try_from(i).is_ok());
        if !any_na && (fits_i64 || fits_u64) {
            let dtype = if fits_i64 { Dtype::Int } else { Dtype::UInt };
            return (dtype, with_nan(&|f| Cell::Int(parse_int(f).unwrap_or(0))));
        }
        if ints
            .iter()
            .all(|&i| u64::try_from(i.unsigned_abs()).is_ok())
        {
            let cells = with_nan(&|f| Cell::Float(parse_int(f).unwrap_or(0) as f64));
            return (Dtype::Float, cells);
        }
    } else if values().all(|f| parse_float(f).is_some()) {
        return (
            Dtype::Float,
            with_nan(&|f| Cell::Float(parse_float(f).unwrap_or(0.0))),
        );
    } else if values().all(|f| parse_bool(f).is_some()) {
        let dtype = if any_na { Dtype::Object } else { Dtype::Bool };
        return (
            dtype,
            with_nan(&|f| Cell::Bool(parse_bool(f).unwrap_or(false))),
        );
    }
    (Dtype::Object, with_nan(&|f| Cell::Str(f.to_string())))
}

/// The parser's blanks around a number.
fn trim_blanks(s: &str) -> &str {
    s.trim_matches(|c| c == ' ' || c == '\t')
}

/// An integer as the C parser reads one: blanks, an optional sign, ASCII
/// digits, blanks. Values of more than 20 digits come back as `i128::MAX`
/// (out of every range the caller checks).
fn parse_int(s: &str) -> Option<i128> {
    let t = trim_blanks(s);
    let (neg, digits) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let trimmed = digits.trim_start_matches('0');
    if trimmed.len() > 20 {
        return Some(i128::MAX);
    }
    let v: i128 = if trimmed.is_empty() {
        0
    } else {
        trimmed.parse().ok()?
    };
    Some(if neg { -v } else { v })
}

/// A float as the C parser reads one: blanks, sign, digits with an
/// optional point and exponent, or `inf`/`infinity` in any case; an
/// overflow is not a number.
fn parse_float(s: &str) -> Option<f64> {
    let t = trim_blanks(s);
    let (sign, body) = match t.as_bytes().first()? {
        b'-' => (-1.0, &t[1..]),
        b'+' => (1.0, &t[1..]),
        _ => (1.0, t),
    };
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return Some(sign * f64::INFINITY);
    }
    let b = body.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    let mut mantissa = digits(&mut i);
    if i < b.len() && b[i] == b'.' {
        i += 1;
        mantissa += digits(&mut i);
    }
    if mantissa == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    let v: f64 = body.parse().ok()?;
    v.is_finite().then_some(sign * v)
}

/// `true`/`false` in any letter case.
fn parse_bool(s: &str) -> Option<bool> {
    if s.eq_ignore_ascii_case("true") {
        Some(true)
    } else if s.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_parse_as_read_csv_does() {
        assert_eq!(parse_int(" +03 "), Some(3));
        assert_eq!(parse_int("1e5"), None);
        assert_eq!(parse_float(".5"), Some(0.5));
        assert_eq!(parse_float("3."), Some(3.0));
        assert_eq!(parse_float("-Infinity"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_float("1e"), None);
        assert_eq!(parse_float("1e400"), None);
        assert_eq!(parse_bool("tRUE"), Some(true));
    }

    #[test]
    fn columns_take_read_csv_types() {
        let f = |v: &[&str]| parse_column(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(f(&["3", "1"]).0, Dtype::Int);
        assert_eq!(f(&["3", ""]).0, Dtype::Float);
        assert_eq!(f(&["True", "false"]).0, Dtype::Bool);
        assert_eq!(f(&["True", "1"]).0, Dtype::Object);
        assert_eq!(f(&["9223372036854775808", "1"]).0, Dtype::UInt);
        assert_eq!(f(&["18446744073709551616", "1"]).0, Dtype::Object);
        assert_eq!(f(&["NULL", "a"]).1, vec![Cell::Nan, Cell::Str("a".into())]);
    }
}
