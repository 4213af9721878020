//! (Multivariate) Platt scaling (the SCF calibration paper, §4.1 eq. 4 and
//! §4.2 eq. 5).
//!
//! ```text
//! PS:  s ↦ sigmoid(w0 + w1 · logit(s))
//! MPS: (s1 … sm) ↦ sigmoid(w0 + w1 s1 + … + wm sm)
//! ```
//!
//! The weights maximise the log-likelihood of the correctness labels on a
//! held-out calibration split (logistic regression), here by Newton's
//! method (iteratively reweighted least squares) with a small L2 penalty
//! `λ/2 · Σ_{j≥1} wj²` on the non-intercept weights, which keeps the fit
//! finite when the calibration split is separable or a signal is constant.
//! With `λ = 0` and non-separable data this is the maximum-likelihood fit.

use serde::{Deserialize, Serialize};

pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// `log(p / (1 − p))`, with `p` clamped to `[1e-6, 1 − 1e-6]` so that a
/// confidence of exactly 0 or 1 stays finite.
pub fn logit(p: f64) -> f64 {
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    (p / (1.0 - p)).ln()
}

/// A fitted mapping; `weights[0]` is the intercept `w0`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlattModel {
    pub weights: Vec<f64>,
    /// Newton iterations used.
    pub iterations: usize,
}

impl PlattModel {
    pub fn predict(&self, x: &[f64]) -> f64 {
        assert_eq!(x.len() + 1, self.weights.len(), "signal count");
        sigmoid(
            self.weights[0]
                + x.iter()
                    .zip(&self.weights[1..])
                    .map(|(a, w)| a * w)
                    .sum::<f64>(),
        )
    }
}

/// Fits the weights on `features` (one row of `m` signals per prediction)
/// and `labels` (correct or not). `None` when there is no data, the rows
/// have different lengths, or the Newton system is singular.
pub fn fit_platt(features: &[Vec<f64>], labels: &[bool], l2: f64) -> Option<PlattModel> {
    let n = features.len();
    if n == 0 || n != labels.len() {
        return None;
    }
    let m = features[0].len();
    if features.iter().any(|r| r.len() != m) {
        return None;
    }
    let d = m + 1;
    let mut w = vec![0.0; d];
    let rows: Vec<Vec<f64>> = features
        .iter()
        .map(|r| std::iter::once(1.0).chain(r.iter().copied()).collect())
        .collect();
    for it in 1..=100 {
        let mut grad = vec![0.0; d];
        let mut hess = vec![vec![0.0; d]; d];
        for (xi, &label) in rows.iter().zip(labels) {
            let z: f64 = w.iter().zip(xi).map(|(a, b)| a * b).sum();
            let p = sigmoid(z);
            let r = p - f64::from(u8::from(label));
            let v = (p * (1.0 - p)).max(1e-12);
            for (a, (g, h)) in grad.iter_mut().zip(hess.iter_mut()).enumerate() {
                *g += r * xi[a];
                for (hb, xb) in h.iter_mut().zip(xi) {
                    *hb += v * xi[a] * xb;
                }
            }
        }
        for j in 1..d {
            grad[j] += l2 * w[j];
            hess[j][j] += l2;
        }
        let step = solve(hess, grad)?;
        let mut max_step: f64 = 0.0;
        for j in 0..d {
            w[j] -= step[j];
            max_step = max_step.max(step[j].abs());
        }
        if !w.iter().all(|v| v.is_finite()) {
            return None;
        }
        if max_step < 1e-10 {
            return Some(PlattModel {
                weights: w,
                iterations: it,
            });
        }
    }
    Some(PlattModel {
        weights: w,
        iterations: 100,
    })
}

/// Solves `a · x = b` by Gaussian elimination with partial pivoting.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let d = b.len();
    for col in 0..d {
        let piv = (col..d).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[piv][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, piv);
        b.swap(col, piv);
        for row in col + 1..d {
            let f = a[row][col] / a[col][col];
            if f != 0.0 {
                let pivot_row = a[col].clone();
                for (t, p) in a[row].iter_mut().zip(&pivot_row).skip(col) {
                    *t -= f * p;
                }
                b[row] -= f * b[col];
            }
        }
    }
    let mut x = vec![0.0; d];
    for row in (0..d).rev() {
        let s: f64 = (row + 1..d).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - s) / a[row][row];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() < tol
    }

    /// No signal: the intercept is the logit of the base rate (3 of 4
    /// correct → w0 = ln 3), so every prediction gets 0.75.
    #[test]
    fn intercept_only_is_the_base_rate() {
        let f = vec![vec![]; 4];
        let m = fit_platt(&f, &[true, true, true, false], 0.0).unwrap();
        assert!(close(m.weights[0], 3f64.ln(), 1e-9));
        assert!(close(m.predict(&[]), 0.75, 1e-9));
    }

    /// One binary signal: P(correct | x=0) = 1/4, P(correct | x=1) = 3/4, so
    /// the maximum-likelihood weights are w0 = ln(1/3), w1 = 2 ln 3.
    #[test]
    fn binary_signal_by_hand() {
        let mut f = Vec::new();
        let mut y = Vec::new();
        for (x, label) in [(0.0, true), (0.0, false), (0.0, false), (0.0, false)] {
            f.push(vec![x]);
            y.push(label);
        }
        for (x, label) in [(1.0, true), (1.0, true), (1.0, true), (1.0, false)] {
            f.push(vec![x]);
            y.push(label);
        }
        let m = fit_platt(&f, &y, 0.0).unwrap();
        assert!(close(m.weights[0], (1.0f64 / 3.0).ln(), 1e-8));
        assert!(close(m.weights[1], 2.0 * 3f64.ln(), 1e-8));
        assert!(close(m.predict(&[1.0]), 0.75, 1e-8));
    }

    /// Canonical PS: confidences that are already calibrated in logit
    /// space come back as w ≈ (0, 1) — the identity mapping of eq. 4.
    #[test]
    fn identity_on_calibrated_logits() {
        // For each p, a block of 10 predictions of which 10p are correct.
        let mut f = Vec::new();
        let mut y = Vec::new();
        for (p, correct) in [(0.2, 2), (0.5, 5), (0.8, 8)] {
            for i in 0..10 {
                f.push(vec![logit(p)]);
                y.push(i < correct);
            }
        }
        let m = fit_platt(&f, &y, 0.0).unwrap();
        assert!(close(m.weights[0], 0.0, 1e-6), "{:?}", m.weights);
        assert!(close(m.weights[1], 1.0, 1e-6), "{:?}", m.weights);
    }

    /// Separable data stays finite with a small L2 penalty.
    #[test]
    fn separable_with_l2() {
        let f = vec![vec![0.0], vec![0.1], vec![0.9], vec![1.0]];
        let y = [false, false, true, true];
        let m = fit_platt(&f, &y, 1e-2).unwrap();
        assert!(m.weights.iter().all(|w| w.is_finite()));
        assert!(m.predict(&[1.0]) > 0.9 && m.predict(&[0.0]) < 0.1);
        assert!(fit_platt(&[], &[], 0.0).is_none());
        assert!(fit_platt(&[vec![1.0], vec![]], &[true, false], 0.0).is_none());
    }

    #[test]
    fn logit_is_sigmoid_inverse() {
        for p in [0.01, 0.3, 0.5, 0.99] {
            assert!(close(sigmoid(logit(p)), p, 1e-12));
        }
        assert!(logit(1.0).is_finite() && logit(0.0).is_finite());
    }
}
