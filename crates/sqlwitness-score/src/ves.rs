//! Efficiency of correct predictions: BIRD's Valid Efficiency Score (VES)
//! and BIRD mini-dev's Reward-based VES (R-VES).
//!
//! Sources: the BIRD paper (Li et al. 2023, "Can LLM Already Serve as A
//! Database Interface?", §2.3 / eq. 2) and its evaluator
//! `evaluation_ves.py` (BIRD dev), and BIRD mini-dev's `evaluation_ves.py`
//! (R-VES). For a question whose prediction is correct, both queries run
//! `n` times, prediction first; run `i` gives the ratio
//! `gold_time_i / pred_time_i`; the ratios outside mean ± 3σ are dropped
//! ([`clean_abnormal`]) and the rest averaged ([`time_ratio`]). Then:
//!
//! * VES of the question = `√time_ratio · 100` ([`ves_of`]); an incorrect
//!   prediction scores 0; VES is the mean over the questions;
//! * R-VES of the question = `√reward · 100` ([`r_ves_of`]), where the reward
//!   buckets the ratio ([`r_ves_reward`]): ≥ 2 → 1.25, ≥ 1 → 1, ≥ 0.5 → 0.75,
//!   ≥ 0.25 → 0.5, otherwise 0.25; an incorrect prediction scores 0.
//!
//! One deliberate difference: the evaluators keep `mean − 3σ < x < mean +
//! 3σ` with strict inequalities, so when every ratio is equal (σ = 0: one
//! run, or timings equal to the clock's resolution) nothing is kept and
//! their division by zero scores the question 0. Here equal ratios are all
//! kept.

/// The shortest time a ratio divides by (milliseconds): 1 µs, the finest
/// resolution of the servers' own clocks, so that a statement timed at 0
/// gives a finite ratio.
pub const MIN_TIME_MS: f64 = 0.001;

/// BIRD's outlier removal (`clean_abnormal`): the values strictly within
/// mean ± 3σ (population standard deviation, numpy's default), in order.
/// When σ is 0 every value is kept (see the module documentation).
pub fn clean_abnormal(xs: &[f64]) -> Vec<f64> {
    let Some((mean, std)) = mean_std(xs) else {
        return Vec::new();
    };
    if std == 0.0 {
        return xs.to_vec();
    }
    xs.iter()
        .copied()
        .filter(|&x| x > mean - 3.0 * std && x < mean + 3.0 * std)
        .collect()
}

/// Mean and population standard deviation; `None` for no values.
pub fn mean_std(xs: &[f64]) -> Option<(f64, f64)> {
    if xs.is_empty() {
        return None;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    Some((mean, var.sqrt()))
}

/// One run's ratio `gold_ms / pred_ms`, each time at least [`MIN_TIME_MS`].
pub fn run_ratio(gold_ms: f64, pred_ms: f64) -> f64 {
    gold_ms.max(MIN_TIME_MS) / pred_ms.max(MIN_TIME_MS)
}

/// A correct prediction's time ratio: the mean of the run ratios kept by
/// [`clean_abnormal`]; `None` without runs.
pub fn time_ratio(ratios: &[f64]) -> Option<f64> {
    let kept = clean_abnormal(ratios);
    mean_std(&kept).map(|(m, _)| m)
}

/// A question's VES term: `√time_ratio · 100` (100: as fast as the gold).
pub fn ves_of(time_ratio: f64) -> f64 {
    time_ratio.max(0.0).sqrt() * 100.0
}

/// BIRD mini-dev's reward for a correct prediction's time ratio.
pub fn r_ves_reward(time_ratio: f64) -> f64 {
    if time_ratio <= 0.0 {
        0.0
    } else if time_ratio >= 2.0 {
        1.25
    } else if time_ratio >= 1.0 {
        1.0
    } else if time_ratio >= 0.5 {
        0.75
    } else if time_ratio >= 0.25 {
        0.5
    } else {
        0.25
    }
}

/// A question's R-VES term: `√reward · 100` (mini-dev's `compute_ves` on
/// rewards).
pub fn r_ves_of(time_ratio: f64) -> f64 {
    r_ves_reward(time_ratio).sqrt() * 100.0
}

/// VES and R-VES over questions: each question's time ratio where its
/// prediction is correct and was timed, `None` where it is not (scores 0).
/// `(0, 0)` for no questions.
pub fn ves_scores(ratios: &[Option<f64>]) -> (f64, f64) {
    if ratios.is_empty() {
        return (0.0, 0.0);
    }
    let n = ratios.len() as f64;
    let ves = ratios.iter().flatten().map(|&r| ves_of(r)).sum::<f64>() / n;
    let r_ves = ratios.iter().flatten().map(|&r| r_ves_of(r)).sum::<f64>() / n;
    (ves, r_ves)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn outliers_beyond_three_sigma_are_dropped() {
        // Eleven 1.0s and one 100.0: mean 9.25, σ = √((11·8.25² +
        // 90.75²)/12) = 27.36…; 100 > 9.25 + 3σ = 91.33…, so it goes.
        let mut xs = vec![1.0; 11];
        xs.push(100.0);
        assert_eq!(clean_abnormal(&xs), vec![1.0; 11]);
        assert!(close(time_ratio(&xs).unwrap(), 1.0));
        // Ten values: no value can lie beyond 3σ of n = 10 values (at most
        // √(n − 1) = 3σ away), and the extreme one sits exactly on the
        // bound: the strict inequality drops it.
        let mut ten = vec![1.0; 9];
        ten.push(11.0);
        // mean 2, σ = √((9·1 + 81)/10) = 3, bound 2 + 9 = 11: dropped.
        assert_eq!(clean_abnormal(&ten), vec![1.0; 9]);
        // Within the bounds everything stays.
        assert_eq!(clean_abnormal(&[1.0, 2.0, 3.0]), vec![1.0, 2.0, 3.0]);
        assert!(close(time_ratio(&[1.0, 2.0, 3.0]).unwrap(), 2.0));
    }

    #[test]
    fn equal_ratios_are_kept_and_no_runs_is_none() {
        assert_eq!(clean_abnormal(&[2.0, 2.0]), vec![2.0, 2.0]);
        assert!(close(time_ratio(&[4.0]).unwrap(), 4.0));
        assert_eq!(time_ratio(&[]), None);
    }

    #[test]
    fn ves_is_the_square_root_of_the_ratio_times_100() {
        assert!(close(ves_of(1.0), 100.0));
        assert!(close(ves_of(4.0), 200.0));
        assert!(close(ves_of(0.25), 50.0));
        // Ratios gold/pred of runs (2 ms / 1 ms, 3 ms / 1 ms): mean 2.5.
        let r = time_ratio(&[run_ratio(2.0, 1.0), run_ratio(3.0, 1.0)]).unwrap();
        assert!(close(r, 2.5));
        assert!(close(ves_of(r), 158.113_883_008_418_98));
        // A time of 0 is floored at 1 µs.
        assert!(close(run_ratio(0.002, 0.0), 2.0));
    }

    #[test]
    fn r_ves_buckets() {
        for (ratio, reward) in [
            (5.0, 1.25),
            (2.0, 1.25),
            (1.999, 1.0),
            (1.0, 1.0),
            (0.75, 0.75),
            (0.5, 0.75),
            (0.49, 0.5),
            (0.25, 0.5),
            (0.1, 0.25),
            (0.0, 0.0),
        ] {
            assert!(close(r_ves_reward(ratio), reward), "{ratio}");
        }
        assert!(close(r_ves_of(2.0), 111.803_398_874_989_48));
        assert!(close(r_ves_of(0.3), 70.710_678_118_654_76));
    }

    #[test]
    fn incorrect_predictions_score_zero_in_the_mean() {
        // Three questions: ratio 4 (VES 200, R-VES √1.25·100), ratio 1
        // (100, 100), one incorrect (0, 0).
        let (ves, r_ves) = ves_scores(&[Some(4.0), Some(1.0), None]);
        assert!(close(ves, 100.0));
        assert!(close(r_ves, (111.803_398_874_989_48 + 100.0) / 3.0));
        assert_eq!(ves_scores(&[]), (0.0, 0.0));
        assert_eq!(ves_scores(&[None, None]), (0.0, 0.0));
    }
}
