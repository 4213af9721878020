//! `eval`'s scoring flags, checked into the evaluator's plan.

use anyhow::{bail, Result};
use clap::Args;
use std::collections::BTreeSet;
use std::path::PathBuf;

use sqlwitness_bench::Benchmark;
use sqlwitness_eval::{feasible_false, read_ids};
use sqlwitness_report::{read_report, Report};

use crate::exit::BadInput;

#[derive(Debug, Args)]
pub struct ScoringArgs {
    /// Infeasible questions (TrustSQL): a file of 0-based question ids,
    /// separated by whitespace or commas (`#` starts a comment). Questions
    /// with `"feasible": false` in the benchmark file are infeasible too.
    #[arg(long, value_name = "IDS_FILE")]
    pub infeasible: Option<PathBuf>,
    /// Calibration split for Platt scaling: a file of question ids; the
    /// other questions form the test split.
    #[arg(long, value_name = "IDS_FILE")]
    pub calibrate_on: Option<PathBuf>,
    /// Bins of ECE, ACE and the reliability diagrams (1 to 1,000).
    #[arg(allow_hyphen_values = true, long, default_value_t = sqlwitness_score::DEFAULT_BINS, value_parser = crate::ranges::count(1, 1_000))]
    pub calibration_bins: usize,
    /// Also record the official Spider and BIRD evaluators' verdicts on the
    /// same rows (strict runs only; queries whose Spider preprocessing
    /// removes a DISTINCT run once more), with the mechanism of each
    /// disagreement in `summary.scores.legacy`.
    #[arg(long)]
    pub legacy: bool,
    /// After writing the report, compare it with this report.json and exit
    /// with code 4 on a regression (see --tolerance).
    #[arg(long, value_name = "REPORT")]
    pub baseline: Option<PathBuf>,
    /// With --baseline: the EX drop per engine, and the share of questions
    /// that may newly fail, tolerated before exiting with 4 (a fraction, 0
    /// to 1).
    #[arg(allow_hyphen_values = true, long, default_value_t = 0.0, value_parser = crate::ranges::fraction)]
    pub tolerance: f64,
}

/// The infeasible question ids (the benchmark's `"feasible": false` and
/// `--infeasible`'s) and the calibration split of `--calibrate-on`,
/// checked with the other scoring flags.
pub fn scoring_ids(
    a: &ScoringArgs,
    bench: &Benchmark,
) -> Result<(BTreeSet<usize>, Option<BTreeSet<usize>>)> {
    let n = bench.questions.len();
    let mut infeasible = feasible_false(&bench.source_file)?;
    if let Some(p) = &a.infeasible {
        infeasible.extend(read_ids(p, n, "--infeasible")?);
    }
    let calibrate_on = match &a.calibrate_on {
        Some(p) => Some(read_ids(p, n, "--calibrate-on")?),
        None => None,
    };
    if a.calibration_bins == 0 {
        bail!(BadInput("--calibration-bins: must be at least 1".into()));
    }
    crate::diff::check_tolerance(a.tolerance)?;
    Ok((infeasible, calibrate_on))
}

/// The report of `--baseline`, read: it gates the run, it does not score
/// it.
pub fn baseline(a: &ScoringArgs) -> Result<Option<(PathBuf, Report)>> {
    match &a.baseline {
        Some(p) => {
            let r = read_report(p).map_err(|e| BadInput(format!("--baseline: {e}")))?;
            Ok(Some((p.clone(), r)))
        }
        None => Ok(None),
    }
}
