//! TrustSQL's reliability score RS(c) (Lee et al., §3.2, eq. 1).
//!
//! ```text
//!          ⎧  1   x ∈ Q,  g(x) = 1, Acc(x) = 1   (I   correct answer)
//!          ⎪  0   x ∈ Q,  g(x) = 0               (II  abstained on a feasible question)
//! φc(x) =  ⎨ −c   x ∈ Q,  g(x) = 1, Acc(x) = 0   (III wrong answer)
//!          ⎪ −c   x ∈ Qᶜ, g(x) = 1               (IV  answered an infeasible question)
//!          ⎩  1   x ∈ Qᶜ, g(x) = 0               (V   abstained on an infeasible question)
//!
//! RS(c) = (1/N) Σx φc(x),   c ∈ {0, 10, N},  N = number of questions scored
//! ```
//!
//! `Q` are the feasible questions, `g(x) = 0` an abstention. With `c = N` a
//! single mistake makes the score negative whatever else the model does.
//! Feasible questions that cannot be scored (no database, failing gold) are
//! left out of `N` and counted in `unscored`; an infeasible question needs
//! no gold, so it is always scored.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::Outcome;

/// The penalty `c` of a wrong answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Penalty {
    Fixed(f64),
    /// `c = N`, the number of questions scored.
    N,
}

/// One question: is it feasible, and what did the prediction earn. For an
/// infeasible question only `Abstained` versus anything else matters
/// (anything else means the model answered).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RsItem {
    pub feasible: bool,
    pub outcome: Outcome,
}

/// The five cases of eq. 1 (I–V), counted; `unscored` is not part of `N`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Breakdown {
    /// (I) feasible, answered correctly.
    pub correct: usize,
    /// (II) feasible, abstained.
    pub abstained_feasible: usize,
    /// (III) feasible, answered wrongly (mismatch, error or timeout).
    pub wrong: usize,
    /// (IV) infeasible, answered.
    pub answered_infeasible: usize,
    /// (V) infeasible, abstained.
    pub abstained_infeasible: usize,
    /// Feasible questions that cannot be scored on this engine.
    pub unscored: usize,
}

impl Breakdown {
    pub fn from_items(items: impl IntoIterator<Item = RsItem>) -> Breakdown {
        let mut b = Breakdown::default();
        for it in items {
            match (it.feasible, it.outcome) {
                (true, Outcome::Correct) => b.correct += 1,
                (true, Outcome::Abstained) => b.abstained_feasible += 1,
                (true, Outcome::Incorrect) => b.wrong += 1,
                (true, Outcome::Unscored) => b.unscored += 1,
                (false, Outcome::Abstained) => b.abstained_infeasible += 1,
                (false, _) => b.answered_infeasible += 1,
            }
        }
        b
    }

    /// `N`: the questions scored.
    pub fn n(&self) -> usize {
        self.correct
            + self.abstained_feasible
            + self.wrong
            + self.answered_infeasible
            + self.abstained_infeasible
    }
}

/// RS(c) as a fraction (the paper prints it in %); 0 when `N = 0`.
pub fn reliability_score(b: &Breakdown, penalty: Penalty) -> f64 {
    let n = b.n();
    if n == 0 {
        return 0.0;
    }
    let c = match penalty {
        Penalty::Fixed(c) => c,
        Penalty::N => n as f64,
    };
    let utility = (b.correct + b.abstained_infeasible) as f64;
    let risk = (b.wrong + b.answered_infeasible) as f64;
    (utility - c * risk) / n as f64
}

/// RS for the three penalties of the paper, keyed `"0"`, `"10"`, `"N"`.
pub fn rs_table(b: &Breakdown) -> BTreeMap<String, f64> {
    BTreeMap::from([
        ("0".to_string(), reliability_score(b, Penalty::Fixed(0.0))),
        ("10".to_string(), reliability_score(b, Penalty::Fixed(10.0))),
        ("N".to_string(), reliability_score(b, Penalty::N)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use Outcome::*;

    fn items(spec: &[(bool, Outcome, usize)]) -> Breakdown {
        Breakdown::from_items(spec.iter().flat_map(|&(f, o, n)| {
            std::iter::repeat_n(
                RsItem {
                    feasible: f,
                    outcome: o,
                },
                n,
            )
        }))
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    /// §3.2: "c = N: a single mistake, even if all other answers were
    /// correct, leads to a negative score."
    #[test]
    fn single_mistake_is_negative_at_c_n() {
        let b = items(&[(true, Correct, 99), (true, Incorrect, 1)]);
        assert_eq!(b.n(), 100);
        assert!(close(reliability_score(&b, Penalty::Fixed(0.0)), 0.99));
        assert!(close(reliability_score(&b, Penalty::Fixed(10.0)), 0.89));
        assert!(close(reliability_score(&b, Penalty::N), -0.01));
        assert!(reliability_score(&b, Penalty::N) < 0.0);
    }

    /// Table 3, ABSTAIN-ALL: abstaining everywhere scores the share of
    /// infeasible questions (50% in TrustSQL) for every c.
    #[test]
    fn abstain_all_scores_the_infeasible_share() {
        let b = items(&[(true, Abstained, 500), (false, Abstained, 500)]);
        for (_, rs) in rs_table(&b) {
            assert!(close(rs, 0.5));
        }
    }

    /// Table 3, T5[FEATMD] on Spider: one correct SQL, every other question
    /// abstained, half infeasible → 50.1% for every c (N = 1000 here).
    #[test]
    fn one_correct_rest_abstained() {
        let b = items(&[
            (true, Correct, 1),
            (true, Abstained, 499),
            (false, Abstained, 500),
        ]);
        let t = rs_table(&b);
        assert!(close(t["0"], 0.501) && close(t["10"], 0.501) && close(t["N"], 0.501));
    }

    /// With feasible questions only and no abstention, RS(0) is the
    /// execution accuracy (§3.2, "c = 0").
    #[test]
    fn rs0_is_accuracy_on_feasible_only() {
        let b = items(&[(true, Correct, 7), (true, Incorrect, 3)]);
        assert!(close(reliability_score(&b, Penalty::Fixed(0.0)), 0.7));
        assert!(close(
            reliability_score(&b, Penalty::Fixed(10.0)),
            (7.0 - 30.0) / 10.0
        ));
    }

    #[test]
    fn five_way_breakdown_and_unscored() {
        let b = items(&[
            (true, Correct, 2),
            (true, Abstained, 1),
            (true, Incorrect, 1),
            (false, Correct, 1), // answered an infeasible question
            (false, Incorrect, 1),
            (false, Unscored, 1), // answered too (no gold needed)
            (false, Abstained, 2),
            (true, Unscored, 3),
        ]);
        assert_eq!(
            b,
            Breakdown {
                correct: 2,
                abstained_feasible: 1,
                wrong: 1,
                answered_infeasible: 3,
                abstained_infeasible: 2,
                unscored: 3
            }
        );
        assert_eq!(b.n(), 9);
        // utility 4, risk 4: RS(10) = (4 - 40) / 9, RS(N) = (4 - 36) / 9.
        assert!(close(
            reliability_score(&b, Penalty::Fixed(10.0)),
            -36.0 / 9.0
        ));
        assert!(close(reliability_score(&b, Penalty::N), -32.0 / 9.0));
        assert_eq!(reliability_score(&Breakdown::default(), Penalty::N), 0.0);
    }
}
