//! Sub-clause frequencies (the SCF calibration paper, §4.3 and Appendix B,
//! Algorithms 1–3).
//!
//! The primary prediction `Q` is compared with each additional sample `Q'`
//! by Q-MATCH, which yields 19 indicators: whether the set operation
//! (NONE, UNION, INTERSECT, EXCEPT) matches, then for each of the two
//! sub-queries whether each of the nine sub-clauses (DISTINCT, SELECT, FROM,
//! ON, WHERE, GROUP BY, HAVING, ORDER BY, LIMIT) matches. (The clause
//! extraction and Q-MATCH live in `sqlwitness-sql`'s `clauses` module.)
//!
//! ```text
//! SCF(Q)_j = (1/|Q_additional|) Σ_{Q' ∈ Q_additional} Q-MATCH(Q, Q')_j    (Algorithm 1)
//! signal 20 = Π_{j=1..19} SCF(Q)_j                                        (App. B, footnote 4)
//! ```

/// Signals per prediction: 19 frequencies and their product.
pub const SCF_SIGNALS: usize = 20;

/// The names of the 20 signals, in order.
pub const SCF_NAMES: [&str; SCF_SIGNALS] = [
    "set_op",
    "q1_distinct",
    "q1_select",
    "q1_from",
    "q1_on",
    "q1_where",
    "q1_group_by",
    "q1_having",
    "q1_order_by",
    "q1_limit",
    "q2_distinct",
    "q2_select",
    "q2_from",
    "q2_on",
    "q2_where",
    "q2_group_by",
    "q2_having",
    "q2_order_by",
    "q2_limit",
    "product",
];

/// The 20 SCF signals from the Q-MATCH indicator vectors of each sample
/// (all of the same length, normally 19); `None` without samples.
pub fn scf_signals(matches: &[Vec<bool>]) -> Option<Vec<f64>> {
    let first = matches.first()?;
    let width = first.len();
    let mut freq = vec![0.0; width];
    for m in matches {
        assert_eq!(m.len(), width, "Q-MATCH vectors differ in length");
        for (f, &hit) in freq.iter_mut().zip(m) {
            *f += f64::from(u8::from(hit));
        }
    }
    for f in &mut freq {
        *f /= matches.len() as f64;
    }
    let product = freq.iter().product();
    freq.push(product);
    Some(freq)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Figure 1's flavour: the SELECT clause appears in 3 of 20 samples
    /// (0.15), everything else in all of them.
    #[test]
    fn frequencies_and_product() {
        let mut samples = Vec::new();
        for i in 0..20 {
            let mut m = vec![true; 19];
            m[2] = i < 3; // SELECT of sub-query 1
            samples.push(m);
        }
        let s = scf_signals(&samples).unwrap();
        assert_eq!(s.len(), SCF_SIGNALS);
        assert!((s[2] - 0.15).abs() < 1e-12);
        assert!((s[0] - 1.0).abs() < 1e-12);
        assert!((s[19] - 0.15).abs() < 1e-12);
        let half = scf_signals(&[vec![true, true], vec![true, false]]).unwrap();
        assert_eq!(half, vec![1.0, 0.5, 0.5]);
        assert!(scf_signals(&[]).is_none());
    }
}
