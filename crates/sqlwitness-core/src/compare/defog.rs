//! defog mode: the verdict of `compare_query_results` in defog's sql-eval
//! (`defog-ai/sql-eval`, `eval/eval.py`) with its default options
//! (`decimal_points=None`), on the DataFrames its SQLite runner builds
//! (`query_sqlite_db`: the rows `sqlite3` returns, then
//! `pd.DataFrame(rows, columns=names)`), modelled on the Python values of
//! [`super::pyvalue`] and pandas 2.3's rules.
//!
//! A prediction is **correct** when, for some gold, `compare_df` or
//! `subset_df` says so; it is an **exact match** when `compare_df` does.
//! The rules, all reproduced:
//!
//! * **Frames.** A column of integers only is `int64`; numbers and `NULL`s
//!   together are `float64` (`NULL` is NaN there); anything holding text or
//!   bytes, all `NULL`s, or no rows at all, is `object`.
//! * **`compare_df`, first test.** `gold.values == pred.values` with
//!   NumPy's broadcasting, by position, names ignored: equal shapes compare
//!   cell by cell, but a one-row or one-column side is repeated against the
//!   other, and an empty gold matches an empty or one-row prediction of a
//!   broadcastable width. `NULL` equals `NULL` here, NaN equals nothing.
//! * **`compare_df`, second test.** Each frame is normalised
//!   (`normalize_table`): duplicate rows dropped; columns put in the order
//!   of their names (two columns of the same name make it raise); rows
//!   sorted by every column, unless the question asks for an order (the
//!   words *order*, *sort*, *arrange*) or the category is `order_by` — then
//!   rows keep their order, or, when the query text has an `ORDER BY`, are
//!   sorted by the column its first term names and then the others, in the
//!   direction that term gives (descending when none). Then the shapes
//!   must agree and, with every `NULL` replaced by `-99999`, every cell
//!   must be equal by position.
//! * **`subset_df`.** An empty gold fails. Every gold column, in order,
//!   must equal (sorted, by `assert_series_equal`) a predicted column not
//!   yet taken; then the taken predicted columns, renamed to the gold
//!   names and normalised (without query text), must equal the normalised
//!   gold (`assert_frame_equal`). Equal here means exactly equal when
//!   either column is `int64`, and otherwise within
//!   `math.isclose(rel_tol=1e-5, abs_tol=1e-8)`; `NULL` equals `NULL`.
//! * **Sorting** a single column whose non-`NULL` values mix numbers, text
//!   and bytes raises (Python cannot order them); sorting by two or more
//!   columns orders such a column's numbers before its text. Anything that
//!   raises scores 0, even after an earlier gold gave subset credit.
//! * **Several golds**: a gold with `;` is several queries; each is tried
//!   in turn.
//!
//! Not reproduced: the expansion of `{a, b}` column lists in the gold text
//! (sqlwitness runs the gold as written), and `decimal_points` rounding.

use std::cmp::Ordering;
use std::collections::HashSet;

use super::pyvalue::PyValue;
use super::{width, Comparison, MismatchReason};
use crate::ResultSet;

pub(super) fn compare(gold: &ResultSet, pred: &ResultSet, ordered: bool) -> Comparison {
    defog_compare(gold, pred, ordered, None, None)
}

/// What the comparison reads besides the two results: the question, its
/// category, and the SQL texts (`None` when not known).
#[derive(Debug, Clone, Copy, Default)]
pub struct DefogContext<'a> {
    pub question: &'a str,
    pub query_category: &'a str,
    pub gold_sql: Option<&'a str>,
    pub pred_sql: Option<&'a str>,
}

/// defog's two verdicts: `exact_match` (`compare_df`) and `correct`
/// (`compare_df` or `subset_df`; the number defog reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DefogVerdict {
    pub exact_match: bool,
    pub correct: bool,
}

/// defog's `correct` verdict as a [`Comparison`], for one gold, without a
/// question: `ordered` stands for the category `order_by`, and the SQL texts
/// (when known) are read by `normalize_table` as defog's runner passes them.
/// The reason for a mismatch (the verdict does not depend on it):
/// [`MismatchReason::Order`] when the same test without `order_by` passes;
/// [`MismatchReason::RowCount`] when the numbers of rows differ;
/// [`MismatchReason::ColumnCount`] when the prediction has fewer columns;
/// [`MismatchReason::Values`] otherwise.
pub fn defog_compare(
    gold: &ResultSet,
    pred: &ResultSet,
    ordered: bool,
    gold_sql: Option<&str>,
    pred_sql: Option<&str>,
) -> Comparison {
    let ctx = DefogContext {
        query_category: if ordered { "order_by" } else { "" },
        gold_sql,
        pred_sql,
        ..DefogContext::default()
    };
    if defog_verdict(std::slice::from_ref(gold), pred, &ctx).correct {
        return Comparison::EQUAL;
    }
    let unordered = DefogContext {
        query_category: "",
        ..ctx
    };
    if ordered && defog_verdict(std::slice::from_ref(gold), pred, &unordered).correct {
        return Comparison::differ(MismatchReason::Order);
    }
    if gold.rows.len() != pred.rows.len() {
        return Comparison::differ(MismatchReason::RowCount);
    }
    if width(gold) > width(pred) {
        return Comparison::differ(MismatchReason::ColumnCount);
    }
    Comparison::differ(MismatchReason::Values)
}

/// defog's `compare_query_results` on results already run: `golds` are
/// the results of the gold's queries (its text split at `;`), in order.
pub fn defog_verdict(golds: &[ResultSet], pred: &ResultSet, ctx: &DefogContext) -> DefogVerdict {
    let raised = DefogVerdict::default();
    let gen = Frame::of(pred);
    let ordered = has_order_by(ctx);
    let mut correct = false;
    for g in golds {
        let gold = Frame::of(g);
        match compare_df(&gold, &gen, ordered, ctx) {
            Err(Raised) => return raised,
            Ok(true) => {
                return DefogVerdict {
                    exact_match: true,
                    correct: true,
                }
            }
            Ok(false) => {}
        }
        match subset_df(&gold, &gen, ordered) {
            Err(Raised) => return raised,
            Ok(s) => correct |= s,
        }
    }
    DefogVerdict {
        exact_match: false,
        correct,
    }
}

/// The evaluator raised: the runner scores (0, 0).
struct Raised;

/// A cell as pandas holds it; `Float(NaN)` is a float column's `NULL`.
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    Null,
    Int(i64),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
}

impl Cell {
    fn is_null(&self) -> bool {
        match self {
            Cell::Null => true,
            Cell::Float(f) => f.is_nan(),
            _ => false,
        }
    }

    fn number(&self) -> Option<f64> {
        match self {
            Cell::Int(i) => Some(*i as f64),
            Cell::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// Python's `==` (NaN equals nothing, `None == None`).
    fn py_eq(&self, other: &Cell) -> bool {
        match (self, other) {
            (Cell::Null, Cell::Null) => true,
            (Cell::Int(a), Cell::Int(b)) => a == b,
            (Cell::Str(a), Cell::Str(b)) => a == b,
            (Cell::Bytes(a), Cell::Bytes(b)) => a == b,
            (a, b) => match (a.number(), b.number()) {
                (Some(x), Some(y)) => x == y,
                _ => false,
            },
        }
    }

    /// Type class for ordering: 0 number, 1 bytes, 2 text.
    fn class(&self) -> u8 {
        match self {
            Cell::Str(_) => 2,
            Cell::Bytes(_) => 1,
            _ => 0,
        }
    }

    /// Python's `<` ordering among values of one class.
    fn py_cmp(&self, other: &Cell) -> Ordering {
        match (self, other) {
            (Cell::Str(a), Cell::Str(b)) => a.cmp(b),
            (Cell::Bytes(a), Cell::Bytes(b)) => a.cmp(b),
            (Cell::Int(a), Cell::Int(b)) => a.cmp(b),
            (a, b) => a
                .number()
                .unwrap_or(0.0)
                .partial_cmp(&b.number().unwrap_or(0.0))
                .unwrap_or(Ordering::Equal),
        }
    }

    /// The hash identity pandas' factorisation sees (nulls together,
    /// `1 == 1.0`).
    fn key(&self) -> CellKey {
        if self.is_null() {
            return CellKey::Null;
        }
        match self {
            Cell::Str(s) => CellKey::Str(s.clone()),
            Cell::Bytes(b) => CellKey::Bytes(b.clone()),
            c => {
                let f = c.number().unwrap_or(0.0);
                match c {
                    Cell::Int(i) => CellKey::Int(*i),
                    _ if f.fract() == 0.0 && f.abs() < 9.2e18 => CellKey::Int(f as i64),
                    _ => CellKey::Float(f.to_bits()),
                }
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum CellKey {
    Null,
    Int(i64),
    Float(u64),
    Str(String),
    Bytes(Vec<u8>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dtype {
    Int,
    Float,
    Object,
}

#[derive(Debug, Clone)]
struct Series {
    dtype: Dtype,
    cells: Vec<Cell>,
}

/// A DataFrame, column by column.
#[derive(Debug, Clone)]
struct Frame {
    names: Vec<String>,
    cols: Vec<Series>,
    rows: usize,
}

impl Frame {
    /// `pd.DataFrame(rows, columns=names)` of what `sqlite3` returns.
    fn of(rs: &ResultSet) -> Frame {
        let w = width(rs);
        let names: Vec<String> = (0..w)
            .map(|j| rs.columns.get(j).map_or(String::new(), |c| c.name.clone()))
            .collect();
        let cols = (0..w)
            .map(|j| {
                let cells: Vec<Cell> = rs
                    .rows
                    .iter()
                    .map(|r| match r.get(j).map(PyValue::from_value) {
                        None | Some(PyValue::None) => Cell::Null,
                        Some(PyValue::Int(i)) => Cell::Int(i),
                        Some(PyValue::Float(f)) => Cell::Float(f),
                        Some(PyValue::Str(s)) => Cell::Str(s),
                        Some(PyValue::Bytes(b)) => Cell::Bytes(b),
                    })
                    .collect();
                infer(cells)
            })
            .collect();
        Frame {
            names,
            cols,
            rows: rs.rows.len(),
        }
    }

    fn width(&self) -> usize {
        self.cols.len()
    }

    fn cell(&self, i: usize, j: usize) -> &Cell {
        &self.cols[j].cells[i]
    }

    fn take_rows(&self, order: &[usize]) -> Frame {
        Frame {
            names: self.names.clone(),
            cols: self
                .cols
                .iter()
                .map(|s| Series {
                    dtype: s.dtype,
                    cells: order.iter().map(|&i| s.cells[i].clone()).collect(),
                })
                .collect(),
            rows: order.len(),
        }
    }

    fn take_cols(&self, order: &[usize]) -> Frame {
        Frame {
            names: order.iter().map(|&j| self.names[j].clone()).collect(),
            cols: order.iter().map(|&j| self.cols[j].clone()).collect(),
            rows: self.rows,
        }
    }
}

/// pandas' dtype inference for a column built from Python objects.
fn infer(cells: Vec<Cell>) -> Series {
    let all_null = cells.iter().all(|c| matches!(c, Cell::Null));
    let numeric = cells
        .iter()
        .all(|c| matches!(c, Cell::Null | Cell::Int(_) | Cell::Float(_)));
    if cells.is_empty() || all_null || !numeric {
        return Series {
            dtype: Dtype::Object,
            cells,
        };
    }
    if cells.iter().all(|c| matches!(c, Cell::Int(_))) {
        return Series {
            dtype: Dtype::Int,
            cells,
        };
    }
    let cells = cells
        .into_iter()
        .map(|c| match c {
            Cell::Int(i) => Cell::Float(i as f64),
            Cell::Null => Cell::Float(f64::NAN),
            c => c,
        })
        .collect();
    Series {
        dtype: Dtype::Float,
        cells,
    }
}

fn has_order_by(ctx: &DefogContext) -> bool {
    ctx.query_category == "order_by"
        || ["order", "sort", "arrange"]
            .iter()
            .any(|w| has_word(&ctx.question.to_lowercase(), w))
}

/// Python's `re.search(r"\bWORD\b", text)`.
fn has_word(text: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, w)| {
        let before = text[..i].chars().next_back();
        let after = text[i + w.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

fn compare_df(
    gold: &Frame,
    gen: &Frame,
    ordered: bool,
    ctx: &DefogContext,
) -> Result<bool, Raised> {
    if broadcast_equal(gold, gen) {
        return Ok(true);
    }
    let g = normalize(gold, ordered, ctx.gold_sql)?;
    let p = normalize(gen, ordered, ctx.pred_sql)?;
    if g.rows != p.rows || g.width() != p.width() {
        return Ok(false);
    }
    let filled = |c: &Cell, dtype: Dtype| {
        if !c.is_null() {
            c.clone()
        } else if dtype == Dtype::Float {
            Cell::Float(-99999.0)
        } else {
            Cell::Int(-99999)
        }
    };
    Ok((0..g.width()).all(|j| {
        (0..g.rows).all(|i| {
            filled(g.cell(i, j), g.cols[j].dtype).py_eq(&filled(p.cell(i, j), p.cols[j].dtype))
        })
    }))
}

/// `(gold.values == gen.values).all()`, with NumPy's broadcasting; shapes
/// that do not broadcast are not equal.
fn broadcast_equal(gold: &Frame, gen: &Frame) -> bool {
    let dim = |a: usize, b: usize| -> Option<usize> {
        if a == b || b == 1 {
            Some(a)
        } else if a == 1 {
            Some(b)
        } else {
            None
        }
    };
    let (Some(n), Some(m)) = (dim(gold.rows, gen.rows), dim(gold.width(), gen.width())) else {
        return false;
    };
    let at = |size: usize, i: usize| if size == 1 { 0 } else { i };
    (0..n).all(|i| {
        (0..m).all(|j| {
            gold.cell(at(gold.rows, i), at(gold.width(), j))
                .py_eq(gen.cell(at(gen.rows, i), at(gen.width(), j)))
        })
    })
}

/// `normalize_table(df, category, question, sql)`.
fn normalize(df: &Frame, ordered: bool, sql: Option<&str>) -> Result<Frame, Raised> {
    // drop_duplicates
    let mut seen = HashSet::new();
    let kept: Vec<usize> = (0..df.rows)
        .filter(|&i| {
            seen.insert(
                (0..df.width())
                    .map(|j| df.cell(i, j).key())
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    let df = df.take_rows(&kept);
    // reindex(sorted(columns)): raises on duplicate names
    let mut by_name: Vec<usize> = (0..df.width()).collect();
    by_name.sort_by(|&a, &b| df.names[a].cmp(&df.names[b]));
    if by_name.windows(2).any(|w| df.names[w[0]] == df.names[w[1]]) {
        return Err(Raised);
    }
    let df = df.take_cols(&by_name);
    if !ordered {
        let all: Vec<usize> = (0..df.width()).collect();
        return sort_rows(&df, &all, true);
    }
    let Some(clause) = sql.and_then(order_by_clause) else {
        return Ok(df);
    };
    let (order_cols, ascending) = order_by_columns(clause);
    let other: Vec<usize> = (0..df.width())
        .filter(|&j| !order_cols.contains(&df.names[j]))
        .collect();
    let order: Vec<usize> = order_cols
        .iter()
        .filter_map(|c| df.names.iter().position(|n| n == c))
        .collect();
    let by: Vec<usize> = order.iter().chain(&other).copied().collect();
    let sorted = sort_rows(&df, &by, ascending)?;
    let arranged: Vec<usize> = other.iter().chain(&order).copied().collect();
    Ok(sorted.take_cols(&arranged))
}

/// The text from the first `ORDER BY` on (`re.search(r"ORDER BY[\s\S]*",
/// sql, re.I)`).
fn order_by_clause(sql: &str) -> Option<&str> {
    find_ci(sql, "order by").map(|i| &sql[i..])
}

fn find_ci(text: &str, needle: &str) -> Option<usize> {
    let (t, n) = (text.as_bytes(), needle.as_bytes());
    (0..=t.len().checked_sub(n.len())?).find(|&i| t[i..i + n.len()].eq_ignore_ascii_case(n))
}

/// The columns named by the clause's first term and the direction
/// (`ascending`), as `normalize_table` reads them.
fn order_by_columns(clause: &str) -> (Vec<String>, bool) {
    let Some(term) = first_term(clause) else {
        return (Vec::new(), false);
    };
    let tokens: Vec<String> = term
        .split_whitespace()
        .map(|t| t.rsplit('.').next().unwrap_or(t).to_string())
        .collect();
    let upper: Vec<String> = tokens.iter().map(|t| t.to_uppercase()).collect();
    let ascending = if upper.iter().any(|t| t == "DESC") {
        false
    } else {
        upper.iter().any(|t| t == "ASC")
    };
    let cols = tokens
        .iter()
        .map(|t| t.trim().replace([',', '('], ""))
        .filter(|t| {
            !["desc", "asc", "nulls", "last", "first", "limit"].contains(&t.to_lowercase().as_str())
        })
        .collect();
    (cols, ascending)
}

/// The first match of `(?<=ORDER BY)(.*?)(?=;|,|\)|$)` (case-insensitive,
/// `.` not matching a newline, `$` at the end or before a final newline).
fn first_term(clause: &str) -> Option<&str> {
    let b = clause.as_bytes();
    let mut from = 0;
    while let Some(i) = find_ci(&clause[from..], "order by") {
        let start = from + i + "order by".len();
        for (k, &c) in b.iter().enumerate().skip(start) {
            let at_end = k + 1 == b.len() && c == b'\n';
            if matches!(c, b';' | b',' | b')') || at_end {
                return Some(&clause[start..k]);
            }
            if c == b'\n' {
                break;
            }
        }
        if !b[start..].contains(&b'\n') {
            return Some(&clause[start..]);
        }
        from = start;
    }
    None
}

/// `df.sort_values(by, ascending)`: one key sorts by value (mixed types
/// raise); several keys sort by category codes (numbers before text),
/// stably. `NULL`s go last either way.
fn sort_rows(df: &Frame, by: &[usize], ascending: bool) -> Result<Frame, Raised> {
    if by.len() == 1 {
        let s = &df.cols[by[0]];
        let mut non_null: Vec<usize> = (0..df.rows).filter(|&i| !s.cells[i].is_null()).collect();
        check_one_class(&non_null.iter().map(|&i| &s.cells[i]).collect::<Vec<_>>())?;
        non_null.sort_by(|&a, &b| s.cells[a].py_cmp(&s.cells[b]));
        if !ascending {
            non_null.reverse();
        }
        non_null.extend((0..df.rows).filter(|&i| s.cells[i].is_null()));
        return Ok(df.take_rows(&non_null));
    }
    let codes: Vec<Vec<usize>> = by
        .iter()
        .map(|&j| category_codes(&df.cols[j], ascending))
        .collect::<Result<_, _>>()?;
    let mut order: Vec<usize> = (0..df.rows).collect();
    order.sort_by(|&a, &b| {
        codes
            .iter()
            .map(|c| c[a].cmp(&c[b]))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    });
    Ok(df.take_rows(&order))
}

/// Python cannot order numbers, text and bytes among each other.
fn check_one_class(cells: &[&Cell]) -> Result<(), Raised> {
    match cells.first() {
        Some(first) if cells.iter().any(|c| c.class() != first.class()) => Err(Raised),
        _ => Ok(()),
    }
}

/// `Categorical(values, ordered=True).codes` as `lexsort_indexer` uses
/// them: categories sorted (numbers and bytes before text, as `safe_sort`
/// does when Python cannot order them), descending codes reversed, `NULL`
/// after every category.
fn category_codes(s: &Series, ascending: bool) -> Result<Vec<usize>, Raised> {
    let mut cats: Vec<&Cell> = Vec::new();
    let mut seen = HashSet::new();
    for c in s.cells.iter().filter(|c| !c.is_null()) {
        if seen.insert(c.key()) {
            cats.push(c);
        }
    }
    let non_text: Vec<&Cell> = cats.iter().copied().filter(|c| c.class() != 2).collect();
    check_one_class(&non_text)?;
    cats.sort_by(|a, b| {
        (a.class() == 2)
            .cmp(&(b.class() == 2))
            .then_with(|| a.py_cmp(b))
    });
    let n = cats.len();
    let index: std::collections::HashMap<CellKey, usize> =
        cats.iter().enumerate().map(|(i, c)| (c.key(), i)).collect();
    Ok(s.cells
        .iter()
        .map(|c| {
            if c.is_null() {
                n
            } else {
                let code = index[&c.key()];
                if ascending {
                    code
                } else {
                    n - code - 1
                }
            }
        })
        .collect())
}

/// `subset_df(gold, gen, category, question)` (no query text).
fn subset_df(gold: &Frame, gen: &Frame, ordered: bool) -> Result<bool, Raised> {
    if gold.rows == 0 || gold.width() == 0 {
        return Ok(false);
    }
    let sub = Frame {
        names: deduplicate_names(&gold.names),
        ..gold.clone()
    };
    let mut remaining: Vec<usize> = (0..gen.width()).collect();
    let mut matched = Vec::new();
    for j in 0..sub.width() {
        let mut found = None;
        for (pos, &k) in remaining.iter().enumerate() {
            let a = sorted_series(&sub.cols[j])?;
            let b = sorted_series(&gen.cols[k])?;
            if series_equal(&a, &b) {
                found = Some(pos);
                break;
            }
        }
        let Some(pos) = found else {
            return Ok(false);
        };
        matched.push(remaining.remove(pos));
    }
    // df_super[matched]: a matched name that was renamed is missing there.
    if matched
        .iter()
        .any(|&k| gen.names.iter().filter(|n| **n == gen.names[k]).count() > 1)
    {
        return Err(Raised);
    }
    let sub_norm = normalize(&sub, ordered, None)?;
    let sup = Frame {
        names: sub.names.clone(),
        ..gen.take_cols(&matched)
    };
    let sup_norm = normalize(&sup, ordered, None)?;
    Ok(sub_norm.rows == sup_norm.rows
        && sub_norm.names == sup_norm.names
        && (0..sub_norm.width()).all(|j| series_equal(&sub_norm.cols[j], &sup_norm.cols[j])))
}

/// `deduplicate_columns`: every name used more than once becomes
/// `name_index`.
fn deduplicate_names(names: &[String]) -> Vec<String> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            if names.iter().filter(|m| *m == n).count() > 1 {
                format!("{n}_{i}")
            } else {
                n.clone()
            }
        })
        .collect()
}

/// `series.sort_values()`: mixed types raise; `NULL`s last.
fn sorted_series(s: &Series) -> Result<Series, Raised> {
    let mut non_null: Vec<&Cell> = s.cells.iter().filter(|c| !c.is_null()).collect();
    check_one_class(&non_null)?;
    non_null.sort_by(|a, b| a.py_cmp(b));
    let mut cells: Vec<Cell> = non_null.into_iter().cloned().collect();
    cells.extend(s.cells.iter().filter(|c| c.is_null()).cloned());
    Ok(Series {
        dtype: s.dtype,
        cells,
    })
}

/// `assert_series_equal(a, b, check_dtype=False, check_names=False)`.
fn series_equal(a: &Series, b: &Series) -> bool {
    if a.cells.len() != b.cells.len() {
        return false;
    }
    let exact = a.dtype == Dtype::Int || b.dtype == Dtype::Int;
    a.cells.iter().zip(&b.cells).all(|(x, y)| {
        if x.is_null() || y.is_null() {
            return x.is_null() && y.is_null();
        }
        if x.py_eq(y) {
            return true;
        }
        if exact {
            return false;
        }
        match (x.number(), y.number()) {
            (Some(p), Some(q)) => is_close(p, q),
            _ => false,
        }
    })
}

/// `math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-8)`.
fn is_close(a: f64, b: f64) -> bool {
    if a == b {
        return true;
    }
    if a.is_infinite() || b.is_infinite() {
        return false;
    }
    let diff = (a - b).abs();
    diff <= 1e-5 * b.abs() || diff <= 1e-5 * a.abs() || diff <= 1e-8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Column, Value};

    fn rs(names: &[&str], rows: Vec<Vec<Value>>) -> ResultSet {
        let cols = names.iter().map(|n| Column::new(*n, None)).collect();
        ResultSet::new(cols, rows)
    }

    fn correct(gold: &ResultSet, pred: &ResultSet) -> bool {
        defog_verdict(std::slice::from_ref(gold), pred, &DefogContext::default()).correct
    }

    #[test]
    fn extra_columns_get_subset_credit() {
        let gold = rs(&["a"], vec![vec![Value::Int(1)], vec![Value::Int(2)]]);
        let pred = rs(
            &["x", "y"],
            vec![
                vec![Value::Text("p".into()), Value::Int(2)],
                vec![Value::Text("q".into()), Value::Int(1)],
            ],
        );
        let v = defog_verdict(&[gold], &pred, &DefogContext::default());
        assert_eq!(
            v,
            DefogVerdict {
                exact_match: false,
                correct: true
            }
        );
    }

    #[test]
    fn an_empty_gold_matches_a_one_row_prediction() {
        let gold = rs(&["a"], vec![]);
        let one = rs(&["a"], vec![vec![Value::Int(5)]]);
        let two = rs(&["a"], vec![vec![Value::Int(5)], vec![Value::Int(6)]]);
        assert!(correct(&gold, &one));
        assert!(!correct(&gold, &two));
    }

    #[test]
    fn a_single_mixed_column_raises() {
        let gold = rs(
            &["a"],
            vec![vec![Value::Int(7)], vec![Value::Text("x".into())]],
        );
        let pred = rs(
            &["a"],
            vec![vec![Value::Text("x".into())], vec![Value::Int(7)]],
        );
        assert!(!correct(&gold, &pred));
    }

    #[test]
    fn order_by_terms_are_read_like_the_regex() {
        assert_eq!(first_term("ORDER BY a DESC, b"), Some(" a DESC"));
        assert_eq!(first_term("ORDER BY\n a"), None);
        assert_eq!(first_term("ORDER BY a\n"), Some(" a"));
        assert_eq!(
            order_by_columns("ORDER BY t.a ASC, b"),
            (vec!["a".to_string()], true)
        );
        assert!(has_word("sort by a", "sort"));
        assert!(!has_word("sorted", "sort"));
        assert!(!has_word("x_sort", "sort"));
    }
}
