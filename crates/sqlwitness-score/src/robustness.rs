//! Dr.Spider's robustness metrics (Chang et al., §4 "Evaluation
//! metrics").
//!
//! Over parallel pre- and post-perturbation examples:
//!
//! ```text
//! pre  = #{correct before} / n
//! post = #{correct after}  / n                 (absolute robustness accuracy)
//! relative = #{correct before and after} / #{correct before}
//! ```
//!
//! Relative robustness is the share of the model's pre-perturbation
//! successes that survive the perturbation (0 when nothing was correct
//! before).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Robustness {
    /// Pairs compared.
    pub pairs: usize,
    pub pre_correct: usize,
    pub post_correct: usize,
    pub both_correct: usize,
    pub pre_accuracy: f64,
    pub post_accuracy: f64,
    pub relative_robustness: f64,
}

/// `pairs`: for each parallel example, `(correct before, correct after)`.
pub fn robustness(pairs: impl IntoIterator<Item = (bool, bool)>) -> Robustness {
    let mut r = Robustness::default();
    for (pre, post) in pairs {
        r.pairs += 1;
        r.pre_correct += usize::from(pre);
        r.post_correct += usize::from(post);
        r.both_correct += usize::from(pre && post);
    }
    let div = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    r.pre_accuracy = div(r.pre_correct, r.pairs);
    r.post_accuracy = div(r.post_correct, r.pairs);
    r.relative_robustness = div(r.both_correct, r.pre_correct);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed() {
        // 5 pairs: correct before on 4, after on 3, both on 2 — one
        // prediction was fixed by the perturbation, two broken.
        let r = robustness([
            (true, true),
            (true, true),
            (true, false),
            (true, false),
            (false, true),
        ]);
        assert_eq!(
            (r.pairs, r.pre_correct, r.post_correct, r.both_correct),
            (5, 4, 3, 2)
        );
        assert!((r.pre_accuracy - 0.8).abs() < 1e-12);
        assert!((r.post_accuracy - 0.6).abs() < 1e-12);
        assert!((r.relative_robustness - 0.5).abs() < 1e-12);
    }

    /// Relative robustness can be high while post accuracy is low: the
    /// model that was right on little stays right on it.
    #[test]
    fn relative_is_conditional_on_pre() {
        let r = robustness([(true, true), (false, false), (false, false), (false, false)]);
        assert!((r.post_accuracy - 0.25).abs() < 1e-12);
        assert!((r.relative_robustness - 1.0).abs() < 1e-12);
        assert_eq!(robustness([(false, true)]).relative_robustness, 0.0);
        assert_eq!(robustness(std::iter::empty()).pre_accuracy, 0.0);
    }
}
