//! Partitioned runs (`--partition K/N`): a run split by databases, each
//! part run on its own (another machine), the parts' journals merged.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::RunError;

/// One part of a partitioned run: `k` of `n`, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Partition {
    pub k: usize,
    pub n: usize,
}

impl Partition {
    /// The most parts a run may be split into.
    pub const MAX_PARTS: usize = 10_000;

    /// Parses `K/N` (1 ≤ K ≤ N ≤ [`Partition::MAX_PARTS`]).
    pub fn parse(text: &str) -> Result<Partition, RunError> {
        let bad = || {
            RunError::BadInput(format!(
                "--partition `{text}`: expected K/N with 1 <= K <= N <= {} (e.g. 2/3)",
                Partition::MAX_PARTS
            ))
        };
        let (k, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let k: usize = k.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || n == 0 || k > n || n > Partition::MAX_PARTS {
            return Err(bad());
        }
        Ok(Partition { k, n })
    }
}

impl std::fmt::Display for Partition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// Assigns databases to `n` partitions: stable for the same selection (it
/// depends on the databases and their question counts only, not on the
/// order of discovery or the machine), and balanced by questions: the
/// largest databases first, each to the partition with the fewest
/// questions so far (ties to the lower index). Returns, per database, its
/// partition (1-based).
pub fn assign_partitions(weights: &BTreeMap<String, usize>, n: usize) -> BTreeMap<String, usize> {
    let mut order: Vec<(&String, usize)> = weights.iter().map(|(d, &w)| (d, w)).collect();
    order.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let mut load = vec![0usize; n.max(1)];
    let mut out = BTreeMap::new();
    for (db, w) in order {
        let (i, _) = load
            .iter()
            .enumerate()
            .min_by_key(|&(i, &l)| (l, i))
            .expect("at least one partition");
        load[i] += w.max(1);
        out.insert(db.clone(), i + 1);
    }
    out
}

/// The questions of `selected` whose database `partition` holds (all
/// without one), in order: a question goes with its database; databases
/// are assigned by [`assign_partitions`] over the whole selection, weighed
/// by their questions.
pub fn in_partition(
    bench: &sqlwitness_bench::Benchmark,
    selected: &[usize],
    partition: Option<Partition>,
) -> Vec<usize> {
    let Some(p) = partition else {
        return selected.to_vec();
    };
    let mut weights: BTreeMap<String, usize> = BTreeMap::new();
    for &i in selected {
        *weights.entry(bench.questions[i].db_id.clone()).or_default() += 1;
    }
    let parts = assign_partitions(&weights, p.n);
    selected
        .iter()
        .copied()
        .filter(|&i| parts.get(&bench.questions[i].db_id) == Some(&p.k))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_parse_and_balance_stably() {
        assert_eq!(Partition::parse("2/3").unwrap(), Partition { k: 2, n: 3 });
        for bad in [
            "0/3",
            "4/3",
            "3",
            "a/b",
            "1/0",
            "1/10001",
            "1/99999999999999999999999",
        ] {
            assert!(Partition::parse(bad).is_err(), "{bad}");
        }
        let weights: BTreeMap<String, usize> = [("a", 10), ("b", 6), ("c", 5), ("d", 4), ("e", 1)]
            .iter()
            .map(|(d, w)| (d.to_string(), *w))
            .collect();
        let p = assign_partitions(&weights, 2);
        let load = |k| {
            p.iter()
                .filter(|(_, &v)| v == k)
                .map(|(d, _)| weights[d])
                .sum::<usize>()
        };
        assert_eq!((load(1), load(2)), (14, 12), "{p:?}");
        assert_eq!(p, assign_partitions(&weights, 2));
        assert!(assign_partitions(&weights, 9)
            .values()
            .all(|&k| (1..=9).contains(&k)));
    }
}
