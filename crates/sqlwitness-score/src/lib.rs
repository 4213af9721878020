//! sqlwitness-score: reference implementations of every score sqlwitness
//! reports, on plain per-question inputs (no report, no engine).
//!
//! One module a metric, each with its formula and source in the doc comment
//! (papers cited by name, listed in `docs/references.md`) and unit tests on
//! hand-computed cases:
//!
//! * [`accuracy`] — execution accuracy per engine and across engines;
//! * [`consistency`] — cross-engine consistency and the agreement matrix;
//! * [`reliability_score`] — TrustSQL's RS(c) (§3.2, eq. 1);
//! * [`robustness`] — Dr.Spider's pre/post/relative robustness (§4);
//! * [`calibration_metrics`] — ECE, ACE, Brier, AUC (the SCF calibration
//!   paper, §5.4);
//! * [`fit_platt`] — (multivariate) Platt scaling (same, §4.1–4.2);
//! * [`scf_signals`] — sub-clause frequencies (same, §4.3, App. B);
//! * [`legacy_summary`] — the Spider and BIRD evaluators' verdicts beside strict;
//! * [`accuracy_by_feature`] — accuracy split by dialect feature (OCTOPUS, Table 8);
//! * [`ves_scores`] — BIRD's VES and BIRD mini-dev's R-VES (efficiency of
//!   correct predictions);
//! * [`compute_scores`] — all of the above for one run (`summary.scores`).

mod accuracy;
mod calibration;
mod consistency;
mod features;
mod legacy;
mod outcome;
mod platt;
mod reliability;
mod robustness;
mod scf;
mod scores;
mod ves;

pub use accuracy::{accuracy, across_engines, Accuracy, AcrossEngines};
pub use calibration::{
    adaptive_bins, auc_error_detection, brier, calibration_metrics, ece, equal_width_bins, Bin,
    CalibrationMetrics, DEFAULT_BINS,
};
pub use consistency::{consistency, Consistency};
pub use features::{accuracy_by_feature, FeatureItem, FeatureStats};
pub use legacy::{legacy_summary, mechanism, LegacyInput, LegacySummary};
pub use outcome::Outcome;
pub use platt::{fit_platt, logit, sigmoid, PlattModel};
pub use reliability::{reliability_score, rs_table, Breakdown, Penalty, RsItem};
pub use robustness::{robustness, Robustness};
pub use scf::{scf_signals, SCF_NAMES, SCF_SIGNALS};
pub use scores::{
    compute_scores, EngineCalibration, PlattReport, QuestionInput, ScoreOptions, Scores,
};
pub use ves::{
    clean_abnormal, mean_std, r_ves_of, r_ves_reward, run_ratio, time_ratio, ves_of, ves_scores,
    MIN_TIME_MS,
};
