//! Calibration of confidences (the SCF calibration paper, §5.4 and
//! Definition 1).
//!
//! For scores `s(x) ∈ [0, 1]`, labels `Y ∈ {0, 1}` (1 = the prediction is
//! correct) and bins `S_1 … S_k` partitioning the scores:
//!
//! ```text
//! Δi(s)   = E[Y − s(X) | s(X) ∈ Si]                    (eq. 3)
//! ℓ1-CE(s) = Σi P(s(X) ∈ Si) · |Δi(s)|                  (eq. 6)
//! ECE: Si = k equal-width bins [0,1/k), [1/k,2/k), …, [(k−1)/k, 1]
//! ACE: Si = k equal-mass bins (each holds n/k of the sorted scores)
//! Brier  = E[(Y − s(X))²]                              (eq. 7)
//! ```
//!
//! AUC for error detection (§6.2): the area under the ROC curve of the
//! detector "flag as wrong when the score is low", i.e. the probability
//! that a random wrong prediction gets a lower score than a random correct
//! one, ties counting one half (Mann–Whitney U / (n₊ · n₋)). Undefined
//! (`None`) when every prediction is correct or every one wrong.

use serde::{Deserialize, Serialize};

/// The paper's choice: "ECE and ACE are calculated using 10 bins".
pub const DEFAULT_BINS: usize = 10;

/// One bin of a reliability diagram.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bin {
    /// Score range (for ACE bins, the smallest and largest score inside).
    pub lo: f64,
    pub hi: f64,
    pub count: usize,
    /// Mean score in the bin.
    pub confidence: f64,
    /// Share of correct predictions in the bin.
    pub accuracy: f64,
}

/// All calibration metrics of one score on one set of predictions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibrationMetrics {
    pub n: usize,
    /// Share of correct predictions (the base rate Brier depends on).
    pub accuracy: f64,
    pub ece: f64,
    pub ace: f64,
    pub brier: f64,
    pub auc: Option<f64>,
    /// The equal-width bins (reliability diagram); empty bins left out.
    pub bins: Vec<Bin>,
}

fn bin_of(score: f64, k: usize) -> usize {
    ((score.clamp(0.0, 1.0) * k as f64).floor() as usize).min(k - 1)
}

fn make_bin(lo: f64, hi: f64, members: &[(f64, bool)]) -> Bin {
    let n = members.len().max(1) as f64;
    Bin {
        lo,
        hi,
        count: members.len(),
        confidence: members.iter().map(|m| m.0).sum::<f64>() / n,
        accuracy: members.iter().filter(|m| m.1).count() as f64 / n,
    }
}

/// The `k` equal-width bins of the scores, empty ones left out.
pub fn equal_width_bins(scores: &[f64], labels: &[bool], k: usize) -> Vec<Bin> {
    assert_eq!(scores.len(), labels.len());
    let k = k.max(1);
    let mut members: Vec<Vec<(f64, bool)>> = vec![Vec::new(); k];
    for (&s, &y) in scores.iter().zip(labels) {
        members[bin_of(s, k)].push((s, y));
    }
    members
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.is_empty())
        .map(|(i, m)| make_bin(i as f64 / k as f64, (i + 1) as f64 / k as f64, m))
        .collect()
}

/// The `k` equal-mass bins: scores sorted, split into `k` runs whose sizes
/// differ by at most one (the first `n mod k` runs are one longer).
pub fn adaptive_bins(scores: &[f64], labels: &[bool], k: usize) -> Vec<Bin> {
    assert_eq!(scores.len(), labels.len());
    let mut pairs: Vec<(f64, bool)> = scores.iter().copied().zip(labels.iter().copied()).collect();
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = pairs.len();
    let k = k.clamp(1, n.max(1));
    let mut out = Vec::new();
    let mut start = 0;
    for i in 0..k {
        let size = n / k + usize::from(i < n % k);
        let m = &pairs[start..start + size];
        start += size;
        if !m.is_empty() {
            out.push(make_bin(m[0].0, m[m.len() - 1].0, m));
        }
    }
    out
}

fn l1_ce(bins: &[Bin], n: usize) -> f64 {
    if n == 0 {
        return 0.0;
    }
    bins.iter()
        .map(|b| b.count as f64 / n as f64 * (b.accuracy - b.confidence).abs())
        .sum()
}

pub fn ece(scores: &[f64], labels: &[bool], k: usize) -> f64 {
    l1_ce(&equal_width_bins(scores, labels, k), scores.len())
}

pub fn ace(scores: &[f64], labels: &[bool], k: usize) -> f64 {
    l1_ce(&adaptive_bins(scores, labels, k), scores.len())
}

pub fn brier(scores: &[f64], labels: &[bool]) -> f64 {
    if scores.is_empty() {
        return 0.0;
    }
    scores
        .iter()
        .zip(labels)
        .map(|(&s, &y)| (f64::from(u8::from(y)) - s).powi(2))
        .sum::<f64>()
        / scores.len() as f64
}

/// AUC of error detection by low score (see the module documentation),
/// computed with average ranks so that ties count one half.
pub fn auc_error_detection(scores: &[f64], labels: &[bool]) -> Option<f64> {
    let pos = labels.iter().filter(|y| **y).count();
    let neg = labels.len() - pos;
    if pos == 0 || neg == 0 {
        return None;
    }
    let mut idx: Vec<usize> = (0..scores.len()).collect();
    idx.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    // Rank-sum of the correct predictions, average ranks for ties (1-based).
    let mut rank_sum = 0.0;
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && scores[idx[j + 1]] == scores[idx[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        rank_sum += idx[i..=j].iter().filter(|&&t| labels[t]).count() as f64 * avg;
        i = j + 1;
    }
    let u = rank_sum - (pos * (pos + 1)) as f64 / 2.0;
    Some(u / (pos * neg) as f64)
}

pub fn calibration_metrics(scores: &[f64], labels: &[bool], k: usize) -> CalibrationMetrics {
    let n = scores.len();
    CalibrationMetrics {
        n,
        accuracy: if n == 0 {
            0.0
        } else {
            labels.iter().filter(|y| **y).count() as f64 / n as f64
        },
        ece: ece(scores, labels, k),
        ace: ace(scores, labels, k),
        brier: brier(scores, labels),
        auc: auc_error_detection(scores, labels),
        bins: equal_width_bins(scores, labels, k),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    const S: [f64; 4] = [0.1, 0.4, 0.6, 0.9];
    const Y: [bool; 4] = [false, false, true, true];

    #[test]
    fn ece_by_hand() {
        // Four singleton bins: |0−.1|, |0−.4|, |1−.6|, |1−.9| → mean 0.25.
        assert!(close(ece(&S, &Y, 10), 0.25));
        // Two bins [0,.5) and [.5,1]: |0 − .25| and |1 − .75| → 0.25.
        assert!(close(ece(&S, &Y, 2), 0.25));
        // Perfectly calibrated constant score: s = P(Y=1) = 0.5.
        assert!(close(ece(&[0.5; 4], &Y, 10), 0.0));
        // Score 1.0 lands in the last bin, not an eleventh one.
        assert_eq!(equal_width_bins(&[1.0], &[true], 10)[0].lo, 0.9);
    }

    #[test]
    fn ace_by_hand() {
        // Equal-mass bins of two: {.1,.4} → |0 − .25|, {.6,.9} → |1 − .75|.
        assert!(close(ace(&S, &Y, 2), 0.25));
        // Scores all in one ECE bin but split by ACE.
        let s = [0.81, 0.82, 0.83, 0.84];
        let y = [false, false, true, true];
        assert!(close(ece(&s, &y, 10), 0.825 - 0.5));
        // ACE k=2: {.81,.82} → .815, {.83,.84} → |1 − .835| = .165 → mean .49.
        assert!(close(ace(&s, &y, 2), (0.815 + 0.165) / 2.0));
        // Uneven sizes: 5 scores, k = 2 → bins of 3 and 2.
        let b = adaptive_bins(&[0.1, 0.2, 0.3, 0.4, 0.5], &[true; 5], 2);
        assert_eq!(b.iter().map(|b| b.count).collect::<Vec<_>>(), vec![3, 2]);
    }

    #[test]
    fn brier_by_hand() {
        assert!(close(brier(&S, &Y), (0.01 + 0.16 + 0.16 + 0.01) / 4.0));
        assert!(close(brier(&[1.0, 0.0], &[true, false]), 0.0));
    }

    #[test]
    fn auc_by_hand() {
        assert_eq!(auc_error_detection(&S, &Y), Some(1.0));
        let reversed = [true, true, false, false];
        assert_eq!(auc_error_detection(&S, &reversed), Some(0.0));
        // Correct {0.4, 0.8}, wrong {0.4, 0.6}: pairs (c, w): (.4,.4) ½,
        // (.4,.6) 0, (.8,.4) 1, (.8,.6) 1 → 2.5 / 4.
        let auc = auc_error_detection(&[0.4, 0.8, 0.4, 0.6], &[true, true, false, false]);
        assert_eq!(auc, Some(0.625));
        assert_eq!(auc_error_detection(&[0.3, 0.9], &[true, true]), None);
        // Constant scores carry no signal.
        assert_eq!(auc_error_detection(&[0.7; 4], &Y), Some(0.5));
    }

    #[test]
    fn metrics_bundle() {
        let m = calibration_metrics(&S, &Y, DEFAULT_BINS);
        assert_eq!(m.n, 4);
        assert!(close(m.accuracy, 0.5));
        assert_eq!(m.bins.len(), 4);
        let empty = calibration_metrics(&[], &[], DEFAULT_BINS);
        assert_eq!((empty.n, empty.ece, empty.auc), (0, 0.0, None));
    }
}
