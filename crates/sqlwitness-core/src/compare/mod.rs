//! Result comparison: when two result sets count as the same answer.
//!
//! Six modes, chosen with [`CompareOptions::mode`]:
//!
//! * [`CompareMode::Strict`] — sqlwitness's own, typed rules (see
//!   [`strict`](self#strict-mode) below). Numbers are numbers whatever
//!   variant carries them, floats and decimals compare with a relative
//!   tolerance, text is byte-exact, and row order matters only when the
//!   caller says so.
//! * [`CompareMode::Spider`] — the verdict of `result_eq` in the official
//!   Spider test-suite evaluator (`taoyds/test-suite-sql-eval`,
//!   `exec_eval.py`), reproduced verdict for verdict on a model of the Python
//!   values `sqlite3` would return.
//! * [`CompareMode::Bird`] — the verdict of BIRD's evaluator,
//!   `set(predicted_res) == set(ground_truth_res)`, on the same Python value
//!   model.
//! * [`CompareMode::Spider2`] — the verdict of Spider 2.0's
//!   `compare_pandas_table` (`xlang-ai/Spider2`): every gold column must
//!   appear among the predicted columns, after the evaluator's CSV round
//!   trip, with `NULL` read as 0 and an absolute tolerance of 0.01 (see
//!   [`spider2_equal`]).
//! * [`CompareMode::Livesqlbench`] — the verdict of LiveSQLBench's
//!   `ex_base` (`bird-bench/livesqlbench`): the first 10 000 rows, floats
//!   and decimals rounded to two places, dates as text, row sets (row
//!   lists when order matters), and an empty result never credited (see
//!   [`livesqlbench_equal`]).
//! * [`CompareMode::Defog`] — the `correct` verdict of defog's sql-eval
//!   `compare_query_results` (`defog-ai/sql-eval`): pandas frames,
//!   duplicate rows dropped, columns ordered by name, rows sorted, and
//!   credit when the gold's columns are found among the predicted ones
//!   (see [`defog_verdict`]).
//!
//! # Strict mode
//!
//! 1. **Column count.** Both sides must have the same number of columns
//!    (taken from [`ResultSet::columns`], or from the first row when no
//!    columns are listed), even when both are empty. Otherwise
//!    [`MismatchReason::ColumnCount`].
//! 2. **Row count.** Both sides must have the same number of rows
//!    (duplicates count). Otherwise [`MismatchReason::RowCount`].
//! 3. **Cells.**
//!    * `NULL` equals `NULL` and nothing else.
//!    * Numbers compare as numbers across variants: `Int`, `Float`,
//!      `Decimal` and `Bool` (as 0/1 — MySQL returns booleans as integers,
//!      so a strict comparison across engines must see `TRUE` as `1`).
//!      Two integers (or booleans) compare exactly. Two decimals whose
//!      normalised text ([`crate::canonical_decimal`]) is equal are equal,
//!      as are a decimal and an integer with the same digits. Otherwise,
//!      when a float or decimal is involved, `a` and `b` are equal when
//!      `|a − b| ≤ float_rel_tol · max(|a|, |b|)` or `|a − b| ≤ 1e-12`
//!      (an absolute floor near zero). Two NaNs are equal; infinities equal
//!      themselves.
//!    * Text compares byte-exact; text is never equal to a number
//!      (`'3'` ≠ `3`). Bytes compare byte-exact and equal only bytes.
//!    * `Date`, `Time` and `Timestamp` compare to each other and to `Text`
//!      by their ISO text, exactly: SQLite has no date type and stores dates
//!      as text, so `Text("2020-01-02")` from SQLite equals
//!      `Date("2020-01-02")` from PostgreSQL. `Date("2020-01-02")` does not
//!      equal `Timestamp("2020-01-02 00:00:00")`.
//! 4. **Row order.** With `ordered` (the caller sets it when the gold query
//!    has a top-level `ORDER BY`) rows compare pairwise in order; a failure
//!    where the rows are nevertheless the same multiset is reported as
//!    [`MismatchReason::Order`]. Without `ordered` rows compare as
//!    multisets: rows are grouped by a coarse key (every numeric cell
//!    replaced by one placeholder, so the grouping never separates rows the
//!    tolerance would join), then within a group sorted by a canonical key
//!    built from [`crate::canonical_cell`] (floats rounded to 12
//!    significant digits) and compared pairwise with the tolerance. *Limitation:*
//!    two values within the tolerance can round to canonical keys on
//!    either side of a third row's key and sort apart; when the sorted
//!    pairing fails in a group of at most 2 000 rows, a greedy matching
//!    with the tolerance is tried before giving up, so a false mismatch
//!    needs both a rounding-boundary tie and a group larger than that (or a
//!    tolerance so wide that greedy matching picks a wrong partner).
//! 5. **Column order.** Columns compare by position. With
//!    `column_order_any`, a permutation of the predicted columns that makes
//!    the results equal is searched (the Spider approach: candidate
//!    columns are pruned first — here by the multiset of coarse cell keys
//!    of each column, which the tolerance cannot change — and identical
//!    columns are not permuted among themselves); at most
//!    [`MAX_PERMUTATIONS`] permutations are tried. Without
//!    `column_order_any`, a mismatch that such a permutation would repair
//!    is reported as [`MismatchReason::ColumnOrder`].
//!
//! Everything else that differs is [`MismatchReason::Values`].

mod bird;
mod credit;
mod defog;
mod livesqlbench;
mod pyvalue;
mod soft_f1;
mod spider;
mod spider2;
mod spider2_csv;
mod strict;

use serde::{Deserialize, Serialize};

use crate::ResultSet;

pub use credit::{credit_causes, CreditCause};
pub use defog::{defog_compare, defog_verdict, DefogContext, DefogVerdict};
pub use livesqlbench::{livesqlbench_equal, LIVESQLBENCH_MAX_ROWS};
pub use pyvalue::python_str;
pub use soft_f1::{python_key_hash, soft_f1, soft_f1_by};
pub use spider2::{spider2_equal, spider2_equal_any, SPIDER2_ABS_TOL};
pub use strict::coarse_row_key;

/// At most this many column permutations are tried by the strict mode's
/// column-permutation search.
pub const MAX_PERMUTATIONS: usize = 40_320;

/// Which comparison rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompareMode {
    /// sqlwitness's typed rules (see the module documentation).
    #[default]
    Strict,
    /// Spider's official test-suite evaluator (`result_eq`).
    Spider,
    /// BIRD's official evaluator (`set(pred) == set(gold)`).
    Bird,
    /// Spider 2.0's official evaluator (`compare_pandas_table`).
    Spider2,
    /// LiveSQLBench's official evaluator (`ex_base`).
    Livesqlbench,
    /// defog's sql-eval (`compare_query_results`, its `correct` verdict).
    Defog,
}

impl CompareMode {
    pub fn as_str(self) -> &'static str {
        match self {
            CompareMode::Strict => "strict",
            CompareMode::Spider => "spider",
            CompareMode::Bird => "bird",
            CompareMode::Spider2 => "spider2",
            CompareMode::Livesqlbench => "livesqlbench",
            CompareMode::Defog => "defog",
        }
    }

    pub fn parse(s: &str) -> Option<CompareMode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "strict" => Some(CompareMode::Strict),
            "spider" => Some(CompareMode::Spider),
            "bird" => Some(CompareMode::Bird),
            "spider2" => Some(CompareMode::Spider2),
            "livesqlbench" => Some(CompareMode::Livesqlbench),
            "defog" => Some(CompareMode::Defog),
            _ => None,
        }
    }
}

/// Options of [`compare`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CompareOptions {
    pub mode: CompareMode,
    /// Row order matters. Strict: rows compare in order. Spider: this is the
    /// evaluator's `order_matters` (`'order by' in gold.lower()`, see
    /// `sqlwitness_spider::spider_order_matters`). Bird: ignored (BIRD compares
    /// sets). Spider2: the evaluator's `ignore_order` is its negation.
    /// Livesqlbench: the task's `conditions["order"]`. Defog: the question
    /// is taken as category `order_by` (without query text, rows then keep
    /// their order; see `defog_compare`).
    pub ordered: bool,
    /// Strict only: any column order is accepted (a column permutation is
    /// searched). Spider always searches column permutations and BIRD never
    /// does, as their evaluators do; Spider 2.0 matches columns one by one,
    /// LiveSQLBench compares by position and defog by column name.
    pub column_order_any: bool,
    /// Strict only: relative tolerance for floats and decimals
    /// (default `1e-9`).
    pub float_rel_tol: f64,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            mode: CompareMode::Strict,
            ordered: false,
            column_order_any: false,
            float_rel_tol: 1e-9,
        }
    }
}

impl CompareOptions {
    /// Default options for `mode`.
    pub fn new(mode: CompareMode) -> Self {
        CompareOptions {
            mode,
            ..CompareOptions::default()
        }
    }

    /// True when a column permutation of the prediction is accepted:
    /// always in the Spider, Spider 2.0 and defog modes, in the strict mode
    /// with `column_order_any`, never in the BIRD and LiveSQLBench modes.
    pub fn any_column_order(&self) -> bool {
        match self.mode {
            CompareMode::Spider | CompareMode::Spider2 | CompareMode::Defog => true,
            CompareMode::Strict => self.column_order_any,
            CompareMode::Bird | CompareMode::Livesqlbench => false,
        }
    }

    /// The same options with `ordered` set.
    pub fn ordered(mut self, ordered: bool) -> Self {
        self.ordered = ordered;
        self
    }
}

/// Why two results differ (reported; the verdict itself is
/// [`Comparison::equal`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MismatchReason {
    /// Different numbers of rows (BIRD: of distinct rows).
    RowCount,
    /// Different numbers of columns.
    ColumnCount,
    /// The same rows as a multiset, in a different order, where order
    /// matters.
    Order,
    /// The same result once the columns are reordered, where column order
    /// matters (strict without `column_order_any`, BIRD).
    ColumnOrder,
    /// Anything else: the values differ.
    Values,
}

impl MismatchReason {
    pub fn as_str(self) -> &'static str {
        match self {
            MismatchReason::RowCount => "row_count",
            MismatchReason::ColumnCount => "column_count",
            MismatchReason::Order => "order",
            MismatchReason::ColumnOrder => "column_order",
            MismatchReason::Values => "values",
        }
    }
}

impl std::fmt::Display for MismatchReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The verdict of [`compare`]. `reason` is `Some` exactly when `equal` is
/// false.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comparison {
    pub equal: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<MismatchReason>,
}

impl Comparison {
    pub const EQUAL: Comparison = Comparison {
        equal: true,
        reason: None,
    };

    pub fn differ(reason: MismatchReason) -> Comparison {
        Comparison {
            equal: false,
            reason: Some(reason),
        }
    }
}

/// Compares the predicted result with the gold one under `opts` (see the
/// module documentation for each mode's rules).
pub fn compare(gold: &ResultSet, pred: &ResultSet, opts: &CompareOptions) -> Comparison {
    match opts.mode {
        CompareMode::Strict => strict::compare(gold, pred, opts),
        CompareMode::Spider => spider::compare(gold, pred, opts.ordered),
        CompareMode::Bird => bird::compare(gold, pred),
        CompareMode::Spider2 => spider2::compare(gold, pred, opts.ordered),
        CompareMode::Livesqlbench => livesqlbench::compare(gold, pred, opts.ordered),
        CompareMode::Defog => defog::compare(gold, pred, opts.ordered),
    }
}

/// The number of columns of a result: the listed columns, or the first
/// row's width when none are listed.
fn width(rs: &ResultSet) -> usize {
    if rs.columns.is_empty() {
        rs.rows.first().map_or(0, Vec::len)
    } else {
        rs.columns.len()
    }
}

/// Calls `f` with each permutation `perm` (gold column `i` ↔ predicted
/// column `perm[i]`) drawn from `candidates[i]`, skipping assignments that
/// reuse a column, and trying only the first unused member of each class of
/// identical predicted columns (`class_of[j]`), since swapping identical
/// columns changes nothing. Stops when `f` returns true (and returns true)
/// or after `budget` permutations (returns false).
fn search_permutations(
    candidates: &[Vec<usize>],
    class_of: &[usize],
    budget: usize,
    f: &mut dyn FnMut(&[usize]) -> bool,
) -> bool {
    fn go(
        i: usize,
        candidates: &[Vec<usize>],
        class_of: &[usize],
        used: &mut [bool],
        perm: &mut Vec<usize>,
        budget: &mut usize,
        f: &mut dyn FnMut(&[usize]) -> bool,
    ) -> bool {
        if i == candidates.len() {
            if *budget == 0 {
                return false;
            }
            *budget -= 1;
            return f(perm);
        }
        let mut tried_classes: Vec<usize> = Vec::new();
        for &j in &candidates[i] {
            if used[j] || tried_classes.contains(&class_of[j]) {
                continue;
            }
            tried_classes.push(class_of[j]);
            used[j] = true;
            perm.push(j);
            let found = go(i + 1, candidates, class_of, used, perm, budget, f);
            perm.pop();
            used[j] = false;
            if found {
                return true;
            }
            if *budget == 0 {
                return false;
            }
        }
        false
    }
    let n = class_of.len();
    let mut used = vec![false; n];
    let mut perm = Vec::with_capacity(candidates.len());
    let mut budget = budget;
    go(
        0,
        candidates,
        class_of,
        &mut used,
        &mut perm,
        &mut budget,
        f,
    )
}

/// Classes of identical columns: `class_of[j]` is the smallest column index
/// whose cells all equal column `j`'s under `same`.
fn identical_column_classes<T>(
    rows: &[Vec<T>],
    width: usize,
    same: impl Fn(&T, &T) -> bool,
) -> Vec<usize> {
    let mut class_of: Vec<usize> = (0..width).collect();
    for j in 0..width {
        for k in 0..j {
            if class_of[k] == k && rows.iter().all(|r| same(&r[j], &r[k])) {
                class_of[j] = k;
                break;
            }
        }
    }
    class_of
}

#[cfg(test)]
mod tests;
