use super::*;
use crate::{canonical_float, Column, Value};

use Value::{Bool, Decimal, Float, Int, Null, Text};

fn rs(ncols: usize, rows: Vec<Vec<Value>>) -> ResultSet {
    let columns = (0..ncols)
        .map(|i| Column::new(format!("c{i}"), None))
        .collect();
    ResultSet::new(columns, rows)
}

fn t(s: &str) -> Value {
    Text(s.into())
}

fn d(s: &str) -> Value {
    Decimal(s.into())
}

fn cmp(mode: CompareMode, ordered: bool, g: &ResultSet, p: &ResultSet) -> Comparison {
    compare(g, p, &CompareOptions::new(mode).ordered(ordered))
}

fn strict(ordered: bool, g: &ResultSet, p: &ResultSet) -> Comparison {
    cmp(CompareMode::Strict, ordered, g, p)
}

fn spider(ordered: bool, g: &ResultSet, p: &ResultSet) -> Comparison {
    cmp(CompareMode::Spider, ordered, g, p)
}

fn bird(g: &ResultSet, p: &ResultSet) -> Comparison {
    cmp(CompareMode::Bird, false, g, p)
}

const EQ: Comparison = Comparison::EQUAL;

fn differ(r: MismatchReason) -> Comparison {
    Comparison::differ(r)
}

// ---------------------------------------------------------------- strict

#[test]
fn strict_counts() {
    let a = rs(1, vec![vec![Int(1)], vec![Int(2)]]);
    let b = rs(1, vec![vec![Int(1)]]);
    assert_eq!(strict(false, &a, &b), differ(MismatchReason::RowCount));
    let c = rs(2, vec![vec![Int(1), Int(2)], vec![Int(2), Int(3)]]);
    assert_eq!(strict(false, &a, &c), differ(MismatchReason::ColumnCount));
    // Empty results: column count still matters in strict mode.
    assert_eq!(strict(false, &rs(1, vec![]), &rs(1, vec![])), EQ);
    assert_eq!(
        strict(false, &rs(1, vec![]), &rs(2, vec![])),
        differ(MismatchReason::ColumnCount)
    );
}

#[test]
fn strict_duplicates_count() {
    let a = rs(1, vec![vec![Int(1)], vec![Int(1)], vec![Int(2)]]);
    let b = rs(1, vec![vec![Int(1)], vec![Int(2)], vec![Int(2)]]);
    assert_eq!(strict(false, &a, &b), differ(MismatchReason::Values));
    let c = rs(1, vec![vec![Int(2)], vec![Int(1)], vec![Int(1)]]);
    assert_eq!(strict(false, &a, &c), EQ);
}

#[test]
fn strict_row_order() {
    let a = rs(2, vec![vec![t("a"), Int(1)], vec![t("b"), Int(2)]]);
    let b = rs(2, vec![vec![t("b"), Int(2)], vec![t("a"), Int(1)]]);
    assert_eq!(strict(false, &a, &b), EQ);
    assert_eq!(strict(true, &a, &b), differ(MismatchReason::Order));
    assert_eq!(strict(true, &a, &a), EQ);
}

#[test]
fn strict_ties_same_multiset_different_order() {
    // ORDER BY score: both orders of the tie are the same multiset.
    let a = rs(2, vec![vec![t("x"), Int(5)], vec![t("y"), Int(5)]]);
    let b = rs(2, vec![vec![t("y"), Int(5)], vec![t("x"), Int(5)]]);
    assert_eq!(strict(false, &a, &b), EQ);
    assert_eq!(strict(true, &a, &b), differ(MismatchReason::Order));
}

#[test]
fn strict_column_order() {
    let a = rs(2, vec![vec![t("a"), Int(1)], vec![t("b"), Int(2)]]);
    let b = rs(2, vec![vec![Int(2), t("b")], vec![Int(1), t("a")]]);
    assert_eq!(strict(false, &a, &b), differ(MismatchReason::ColumnOrder));
    let any = CompareOptions {
        column_order_any: true,
        ..CompareOptions::default()
    };
    assert_eq!(compare(&a, &b, &any), EQ);
    // Ordered + any column order: rows must still be in order.
    let any_ordered = CompareOptions {
        ordered: true,
        ..any
    };
    assert_eq!(compare(&a, &b, &any_ordered), differ(MismatchReason::Order));
    let b_in_order = rs(2, vec![vec![Int(1), t("a")], vec![Int(2), t("b")]]);
    assert_eq!(compare(&a, &b_in_order, &any_ordered), EQ);
    // Same-typed columns, a permutation needs the values to line up.
    let c = rs(2, vec![vec![Int(1), Int(10)], vec![Int(2), Int(20)]]);
    let e = rs(2, vec![vec![Int(10), Int(1)], vec![Int(20), Int(2)]]);
    let f = rs(2, vec![vec![Int(10), Int(2)], vec![Int(20), Int(1)]]);
    assert_eq!(compare(&c, &e, &any), EQ);
    assert_eq!(compare(&c, &f, &any), differ(MismatchReason::Values));
}

#[test]
fn strict_nulls() {
    let a = rs(2, vec![vec![Null, Int(1)]]);
    assert_eq!(strict(false, &a, &rs(2, vec![vec![Null, Int(1)]])), EQ);
    assert_eq!(
        strict(false, &a, &rs(2, vec![vec![Int(0), Int(1)]])),
        differ(MismatchReason::Values)
    );
    assert_eq!(
        strict(false, &a, &rs(2, vec![vec![t(""), Int(1)]])),
        differ(MismatchReason::Values)
    );
}

#[test]
fn strict_numbers_across_variants() {
    let one = |v: Value| rs(1, vec![vec![v]]);
    assert_eq!(strict(false, &one(Int(3)), &one(Float(3.0))), EQ);
    assert_eq!(strict(false, &one(Int(3)), &one(d("3.00"))), EQ);
    assert_eq!(strict(false, &one(d("3.50")), &one(Float(3.5))), EQ);
    assert_eq!(strict(false, &one(Int(1)), &one(Bool(true))), EQ);
    assert_eq!(strict(false, &one(Int(0)), &one(Bool(false))), EQ);
    assert_eq!(
        strict(false, &one(Int(3)), &one(t("3"))),
        differ(MismatchReason::Values)
    );
    assert_eq!(
        strict(
            false,
            &one(Int(9_007_199_254_740_993)),
            &one(Int(9_007_199_254_740_992))
        ),
        differ(MismatchReason::Values),
        "integers compare exactly"
    );
    // Decimals beyond f64 precision compare by their digits.
    assert_eq!(
        strict(
            false,
            &one(d("12345678901234567890.5")),
            &one(d("12345678901234567890.50"))
        ),
        EQ
    );
}

#[test]
fn strict_float_tolerance() {
    let one = |v: Value| rs(1, vec![vec![v]]);
    assert_eq!(strict(false, &one(Float(0.1 + 0.2)), &one(Float(0.3))), EQ);
    assert_eq!(strict(false, &one(Float(0.1 + 0.2)), &one(d("0.3"))), EQ);
    assert_eq!(
        strict(false, &one(Float(1.0)), &one(Float(1.0001))),
        differ(MismatchReason::Values)
    );
    assert_eq!(strict(false, &one(Float(1e-13)), &one(Float(0.0))), EQ);
    assert_eq!(
        strict(false, &one(Float(f64::NAN)), &one(Float(f64::NAN))),
        EQ
    );
    let tight = CompareOptions {
        float_rel_tol: 0.0,
        ..CompareOptions::default()
    };
    assert_eq!(
        compare(&one(Float(1.0)), &one(Float(1.0 + 1e-10)), &tight),
        differ(MismatchReason::Values)
    );
    // Near-equal floats in an unordered multiset: the canonical sort key
    // rounds to 12 digits, the tolerance does the rest.
    let a = rs(
        2,
        vec![
            vec![t("k"), Float(2.0 / 3.0)],
            vec![t("k"), Float(1.0 / 3.0)],
            vec![t("j"), Float(0.5)],
        ],
    );
    let b = rs(
        2,
        vec![
            vec![t("j"), d("0.5")],
            vec![t("k"), d("0.333333333333333333")],
            vec![t("k"), d("0.666666666666666667")],
        ],
    );
    assert_eq!(strict(false, &a, &b), EQ);
}

#[test]
fn strict_rounding_boundary_uses_greedy_fallback() {
    // 1.000000000005 rounds to the 12-digit key 1.00000000001 and
    // 1.0000000000049998 to 1: within tolerance, yet sorted apart, so the
    // sorted pairing matches the wrong rows and greedy matching repairs it.
    let hi = 1.000000000005;
    let lo = 1.0000000000049998;
    assert_ne!(canonical_float(hi), canonical_float(lo));
    let a = rs(2, vec![vec![Float(hi), Int(1)], vec![Float(lo), Int(2)]]);
    let b = rs(2, vec![vec![Float(lo), Int(1)], vec![Float(hi), Int(2)]]);
    assert_eq!(strict(false, &a, &b), EQ);
    let c = rs(2, vec![vec![Float(lo), Int(1)], vec![Float(hi), Int(3)]]);
    assert_eq!(strict(false, &a, &c), differ(MismatchReason::Values));
}

#[test]
fn strict_dates_and_text() {
    let one = |v: Value| rs(1, vec![vec![v]]);
    let date = Value::Date("2020-01-02".into());
    assert_eq!(strict(false, &one(date.clone()), &one(t("2020-01-02"))), EQ);
    assert_eq!(
        strict(
            false,
            &one(date.clone()),
            &one(Value::Date("2020-01-02".into()))
        ),
        EQ
    );
    assert_eq!(
        strict(
            false,
            &one(date),
            &one(Value::Timestamp("2020-01-02 00:00:00".into()))
        ),
        differ(MismatchReason::Values)
    );
    assert_eq!(
        strict(false, &one(t("abc")), &one(t("ABC"))),
        differ(MismatchReason::Values)
    );
}

// ---------------------------------------------------------------- spider

#[test]
fn spider_empty_results_equal_regardless_of_columns() {
    assert_eq!(spider(false, &rs(1, vec![]), &rs(3, vec![])), EQ);
    assert_eq!(spider(true, &rs(2, vec![]), &rs(5, vec![])), EQ);
    assert_eq!(
        spider(false, &rs(1, vec![]), &rs(1, vec![vec![Null]])),
        differ(MismatchReason::RowCount)
    );
}

#[test]
fn spider_counts() {
    let a = rs(1, vec![vec![Int(1)]]);
    let b = rs(2, vec![vec![Int(1), Int(1)]]);
    assert_eq!(spider(false, &a, &b), differ(MismatchReason::ColumnCount));
}

#[test]
fn spider_duplicates_and_row_permutations() {
    let a = rs(1, vec![vec![Int(1)], vec![Int(1)], vec![Int(2)]]);
    let b = rs(1, vec![vec![Int(1)], vec![Int(2)], vec![Int(2)]]);
    // Same set, different multiset: multiset_eq rejects it.
    assert_eq!(spider(false, &a, &b), differ(MismatchReason::Values));
    let c = rs(1, vec![vec![Int(2)], vec![Int(1)], vec![Int(1)]]);
    assert_eq!(spider(false, &a, &c), EQ);
    assert_eq!(spider(true, &a, &c), differ(MismatchReason::Order));
}

#[test]
fn spider_column_permutations() {
    let a = rs(2, vec![vec![t("a"), Int(1)], vec![t("b"), Int(2)]]);
    let b = rs(2, vec![vec![Int(2), t("b")], vec![Int(1), t("a")]]);
    assert_eq!(spider(false, &a, &b), EQ);
    assert_eq!(spider(true, &a, &b), differ(MismatchReason::Order));
    // More than three columns: the constrained search.
    let row = |x: i64| {
        vec![
            Int(x),
            t(&format!("n{x}")),
            Float(x as f64 + 0.5),
            Null,
            Int(7),
        ]
    };
    let g = rs(5, (0..6).map(row).collect());
    let p = rs(
        5,
        (0..6)
            .rev()
            .map(|x| {
                let r = row(x);
                vec![
                    r[4].clone(),
                    r[3].clone(),
                    r[2].clone(),
                    r[0].clone(),
                    r[1].clone(),
                ]
            })
            .collect(),
    );
    assert_eq!(spider(false, &g, &p), EQ);
}

#[test]
fn spider_python_equality() {
    let one = |v: Value| rs(1, vec![vec![v]]);
    assert_eq!(spider(false, &one(Int(1)), &one(Bool(true))), EQ);
    assert_eq!(spider(false, &one(Int(1)), &one(Float(1.0))), EQ);
    assert_eq!(spider(false, &one(Int(3)), &one(d("3.00"))), EQ);
    assert_eq!(
        spider(false, &one(Int(3)), &one(t("3"))),
        differ(MismatchReason::Values)
    );
    // No tolerance: 0.1 + 0.2 != 0.3 in Python.
    assert_eq!(
        spider(false, &one(Float(0.1 + 0.2)), &one(Float(0.3))),
        differ(MismatchReason::Values)
    );
    assert_eq!(spider(false, &one(Null), &one(Null)), EQ);
    assert_eq!(
        spider(
            false,
            &one(Value::Date("2020-01-02".into())),
            &one(t("2020-01-02"))
        ),
        EQ
    );
}

#[test]
fn spider_unorder_row_type_quirk() {
    // (1, 1.5) sorts to (1.5, 1) but (1.0, 1.5) to (1.0, 1.5): quick_rej
    // rejects although the rows are equal under Python's ==.
    let a = rs(2, vec![vec![Int(1), Float(1.5)]]);
    let b = rs(2, vec![vec![Float(1.0), Float(1.5)]]);
    assert_eq!(spider(false, &a, &b), differ(MismatchReason::Values));
    // Without the type-dependent reordering the same values are accepted.
    let c = rs(2, vec![vec![Int(2), Float(1.5)]]);
    let e = rs(2, vec![vec![Float(2.0), Float(1.5)]]);
    assert_eq!(spider(false, &c, &e), EQ);
    // Strict mode has no such quirk.
    assert_eq!(strict(false, &a, &b), EQ);
}

#[test]
fn spider_set_merges_equal_python_values() {
    // In multiset_eq's dict, (1,) and (True,) and (1.0,) are one key.
    let a = rs(1, vec![vec![Int(1)], vec![Float(1.0)], vec![Int(0)]]);
    let b = rs(1, vec![vec![Bool(true)], vec![Int(1)], vec![Bool(false)]]);
    assert_eq!(spider(false, &a, &b), EQ);
}

#[test]
fn spider_identical_columns() {
    let row = |x: i64| vec![Null, Null, Null, Null, Int(x)];
    let g = rs(5, (0..3).map(row).collect());
    let p = rs(
        5,
        (0..3)
            .map(|x| vec![Int(x), Null, Null, Null, Null])
            .collect(),
    );
    assert_eq!(spider(true, &g, &p), EQ);
}

// ---------------------------------------------------------------- bird

#[test]
fn bird_is_set_equality() {
    let a = rs(1, vec![vec![Int(1)], vec![Int(1)], vec![Int(2)]]);
    let b = rs(1, vec![vec![Int(2)], vec![Int(2)], vec![Int(1)]]);
    assert_eq!(bird(&a, &b), EQ, "duplicates ignored");
    assert_eq!(bird(&rs(1, vec![]), &rs(4, vec![])), EQ);
    assert_eq!(
        bird(&rs(1, vec![]), &rs(1, vec![vec![Null]])),
        differ(MismatchReason::RowCount)
    );
    let c = rs(2, vec![vec![t("a"), Int(1)]]);
    let e = rs(2, vec![vec![Int(1), t("a")]]);
    assert_eq!(bird(&c, &e), differ(MismatchReason::ColumnOrder));
    assert_eq!(
        bird(&c, &rs(1, vec![vec![t("a")]])),
        differ(MismatchReason::ColumnCount)
    );
    let one = |v: Value| rs(1, vec![vec![v]]);
    assert_eq!(bird(&one(Int(1)), &one(Float(1.0))), EQ);
    assert_eq!(bird(&one(Int(1)), &one(Bool(true))), EQ);
    assert_eq!(
        bird(&one(Int(1)), &one(t("1"))),
        differ(MismatchReason::Values)
    );
    assert_eq!(
        bird(&one(Float(0.1 + 0.2)), &one(Float(0.3))),
        differ(MismatchReason::Values)
    );
    assert_eq!(bird(&one(Null), &one(Null)), EQ);
    // Order never matters, even when asked.
    let f = rs(1, vec![vec![Int(1)], vec![Int(2)]]);
    let g = rs(1, vec![vec![Int(2)], vec![Int(1)]]);
    assert_eq!(cmp(CompareMode::Bird, true, &f, &g), EQ);
}

#[test]
fn reasons_serialize_snake_case() {
    let c = Comparison::differ(MismatchReason::ColumnOrder);
    let s = serde_json::to_string(&c).unwrap();
    assert_eq!(s, r#"{"equal":false,"reason":"column_order"}"#);
    assert_eq!(
        serde_json::to_string(&Comparison::EQUAL).unwrap(),
        r#"{"equal":true}"#
    );
    assert_eq!(
        serde_json::to_string(&CompareMode::Spider).unwrap(),
        r#""spider""#
    );
}

/// Large results are grouped by a hash of each row's coarse key: a
/// reversed copy is equal as a multiset, and one changed cell, one changed
/// duplicate count or one number past the tolerance is found.
#[test]
fn large_multisets_by_hashed_groups() {
    let row = |i: i64| {
        vec![
            Int(i),
            t(&format!("n{}", i % 97)),
            Float(i as f64 / 7.0),
            t("x"),
        ]
    };
    let rows: Vec<Vec<Value>> = (0..20_000).map(row).collect();
    let mut reversed = rows.clone();
    reversed.reverse();
    let g = rs(4, rows.clone());
    assert_eq!(strict(false, &g, &rs(4, reversed.clone())), EQ);
    assert_eq!(
        strict(true, &g, &rs(4, reversed.clone())),
        differ(MismatchReason::Order)
    );
    let mut text = reversed.clone();
    text[500][1] = t("n-other");
    assert_eq!(
        strict(false, &g, &rs(4, text)),
        differ(MismatchReason::Values)
    );
    let mut number = reversed.clone();
    number[700][2] = Float(1e9);
    assert_eq!(
        strict(false, &g, &rs(4, number)),
        differ(MismatchReason::Values)
    );
    // Text-only rows with duplicates: the counts must agree.
    let dup = |a: usize, b: usize| {
        rs(
            1,
            std::iter::repeat_n(vec![t("a")], a)
                .chain(std::iter::repeat_n(vec![t("b")], b))
                .collect(),
        )
    };
    assert_eq!(strict(false, &dup(3, 2), &dup(3, 2)), EQ);
    assert_eq!(
        strict(false, &dup(3, 2), &dup(2, 3)),
        differ(MismatchReason::Values)
    );
}
