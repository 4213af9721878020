//! `sqlwitness diff <old> <new> [--tolerance X]` and `eval --baseline`.

use anyhow::{bail, Result};
use clap::Args;
use std::path::PathBuf;

use sqlwitness_report::{diff_reports, read_report, render_diff_markdown, Report, ReportDiff};

use crate::exit::{self, BadInput};

/// Changed verdicts listed in the Markdown output.
const MAX_ROWS: usize = 50;

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The baseline report.json.
    pub old: PathBuf,
    /// The report.json to judge.
    pub new: PathBuf,
    /// Tolerated EX drop per engine and share of questions that may newly
    /// fail (a fraction from 0 to 1, e.g. 0.01) before the diff counts as
    /// a regression.
    #[arg(allow_hyphen_values = true, long, default_value_t = 0.0, value_parser = crate::ranges::fraction)]
    pub tolerance: f64,
    /// Print the diff as JSON instead of Markdown.
    #[arg(long)]
    pub json: bool,
}

/// What `diff --json` prints: the diff, the tolerance it was judged with
/// and the gate's verdict.
#[derive(serde::Serialize)]
struct Judged<'a> {
    #[serde(flatten)]
    diff: &'a ReportDiff,
    tolerance: f64,
    /// Why the new report regresses (exit 4), a sentence each; empty when
    /// it does not.
    regressions: &'a [String],
}

pub fn check_tolerance(t: f64) -> Result<()> {
    if !(0.0..=1.0).contains(&t) {
        bail!(BadInput(format!("--tolerance: must be in [0, 1], got {t}")));
    }
    Ok(())
}

/// Prints the diff; exit 4 when the new report regresses.
pub fn run(a: &DiffArgs) -> Result<i32> {
    check_tolerance(a.tolerance)?;
    let old = read_report(&a.old).map_err(|e| BadInput(e.to_string()))?;
    let new = read_report(&a.new).map_err(|e| BadInput(e.to_string()))?;
    let d = diff_reports(&old, &new);
    let regressions = d.regressions(a.tolerance);
    if a.json {
        let judged = Judged {
            diff: &d,
            tolerance: a.tolerance,
            regressions: &regressions,
        };
        println!("{}", serde_json::to_string_pretty(&judged)?);
    } else {
        show_part!("{}", render_diff_markdown(&d, a.tolerance, MAX_ROWS));
    }
    Ok(if regressions.is_empty() {
        exit::OK
    } else {
        exit::REGRESSION
    })
}

/// `eval --baseline`: compares the report just written with the baseline,
/// writes `baseline-diff.md` beside it, and returns the exit code.
pub fn against_baseline(
    baseline: &(PathBuf, Report),
    report: &Report,
    tolerance: f64,
    out_dir: &std::path::Path,
) -> Result<i32> {
    let d = diff_reports(&baseline.1, report);
    let md = render_diff_markdown(&d, tolerance, MAX_ROWS);
    std::fs::write(out_dir.join("baseline-diff.md"), &md)?;
    let regressions = d.regressions(tolerance);
    if regressions.is_empty() {
        say!("baseline {}: no regression", baseline.0.display());
        return Ok(exit::OK);
    }
    say!("baseline {}: REGRESSION", baseline.0.display());
    for r in &regressions {
        say!("  {r}");
    }
    Ok(exit::REGRESSION)
}
