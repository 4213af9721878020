//! Properties of the result comparison, on generated results (proptest;
//! failures are kept in `proptest-regressions/` beside this file and rerun
//! first).

use proptest::prelude::*;
use sqlwitness_core::compare::{compare, CompareMode, CompareOptions};
use sqlwitness_core::{Column, ResultSet, Value};

/// Cells of the kinds results hold, small ranges so that equal values and
/// duplicates occur.
fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        (-3i64..4).prop_map(Value::Int),
        (-3i64..4).prop_map(|i| Value::Float(i as f64 / 2.0)),
        prop::sample::select(vec!["a", "b", "A", ""]).prop_map(|s| Value::Text(s.into())),
    ]
}

/// A result of `width` columns and up to 6 rows.
fn result(width: usize) -> impl Strategy<Value = ResultSet> {
    prop::collection::vec(prop::collection::vec(value(), width), 0..6).prop_map(move |rows| {
        let columns = (0..width)
            .map(|i| Column::new(format!("c{i}"), None))
            .collect();
        ResultSet::new(columns, rows)
    })
}

fn modes() -> impl Strategy<Value = CompareOptions> {
    (
        prop::sample::select(vec![
            CompareMode::Strict,
            CompareMode::Spider,
            CompareMode::Bird,
        ]),
        any::<bool>(),
    )
        .prop_map(|(mode, ordered)| CompareOptions::new(mode).ordered(ordered))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Every mode finds a result equal to itself.
    #[test]
    fn a_result_equals_itself(r in (1usize..4).prop_flat_map(result), opts in modes()) {
        prop_assert!(compare(&r, &r, &opts).equal);
    }

    /// Equality does not depend on which side is the gold (strict and
    /// BIRD; Spider's official `result_eq` is not symmetric and is emulated
    /// as it is).
    #[test]
    fn equality_is_symmetric(
        (a, b) in (1usize..4).prop_flat_map(|w| (result(w), result(w))),
        ordered in any::<bool>(),
        mode in prop::sample::select(vec![CompareMode::Strict, CompareMode::Bird]),
    ) {
        let opts = CompareOptions::new(mode).ordered(ordered);
        prop_assert_eq!(compare(&a, &b, &opts).equal, compare(&b, &a, &opts).equal);
    }

    /// Unordered comparison is a multiset comparison: any permutation of
    /// the rows compares equal.
    #[test]
    fn unordered_results_are_multisets(
        r in (1usize..4).prop_flat_map(result),
        seed in any::<u64>(),
        mode in prop::sample::select(vec![CompareMode::Strict, CompareMode::Spider, CompareMode::Bird]),
    ) {
        let mut rows = r.rows.clone();
        // A permutation from the seed.
        let mut s = seed;
        for i in (1..rows.len()).rev() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            rows.swap(i, (s >> 33) as usize % (i + 1));
        }
        let shuffled = ResultSet::new(r.columns.clone(), rows);
        prop_assert!(compare(&r, &shuffled, &CompareOptions::new(mode)).equal);
    }

    /// Strict compares numbers by value across types: an integer equals
    /// the float of the same value, in any cell.
    #[test]
    fn numbers_compare_across_types(ints in prop::collection::vec(-1000i64..1000, 1..5)) {
        let col = |n: usize| (0..n).map(|i| Column::new(format!("c{i}"), None)).collect();
        let a = ResultSet::new(col(ints.len()), vec![ints.iter().map(|&i| Value::Int(i)).collect()]);
        let b = ResultSet::new(col(ints.len()), vec![ints.iter().map(|&i| Value::Float(i as f64)).collect()]);
        prop_assert!(compare(&a, &b, &CompareOptions::new(CompareMode::Strict)).equal);
    }

    /// A row more or less is never equal in strict mode.
    #[test]
    fn a_missing_row_is_a_difference(r in (1usize..4).prop_flat_map(result)) {
        prop_assume!(!r.rows.is_empty());
        let mut fewer = r.clone();
        fewer.rows.pop();
        prop_assert!(!compare(&r, &fewer, &CompareOptions::new(CompareMode::Strict)).equal);
    }
}
