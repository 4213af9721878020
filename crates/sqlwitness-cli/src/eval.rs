//! `sqlwitness eval`: the evaluator's report written, summarized on
//! stderr, and gated (baseline, engine errors).

use anyhow::Result;
use std::path::Path;
use std::time::Instant;

use sqlwitness_eval::EvalPlan;
use sqlwitness_report::{write_report_with, AuditNote, AuditNotes};

use crate::exit::{self, BadInput};
use crate::progress::Bars;

mod levels;

/// Runs the evaluation and writes its report; with `summary`, the summary
/// on stderr.
pub fn run(plan: &EvalPlan, audit: Option<&AuditNotes>, summary: bool) -> Result<i32> {
    let started = Instant::now();
    let report = sqlwitness_eval::evaluate(plan, &Bars { quiet: plan.quiet })?;
    write_report_with(&plan.out, &report, audit)?;
    if summary {
        print_summary_of(
            &report,
            plan.bench.format == sqlwitness_bench::BenchmarkFormat::Bird,
        );
        say!(
            "report: {} ({:.2} s)",
            plan.out.join("report.json").display(),
            started.elapsed().as_secs_f64()
        );
    }
    let engine_errors: Vec<String> = report
        .summary
        .engines
        .iter()
        .filter(|(_, s)| s.engine_error > 0)
        .map(|(e, s)| format!("{e}: {}", s.engine_error))
        .collect();
    let gate = match &plan.scoring.baseline {
        Some(baseline) => {
            crate::diff::against_baseline(baseline, &report, plan.scoring.tolerance, &plan.out)?
        }
        None => exit::OK,
    };
    if !engine_errors.is_empty() {
        say!(
            "sqlwitness: error: questions the engines could not run (engine_error, left out of EX): {}",
            engine_errors.join(", ")
        );
        return Ok(exit::ENGINE);
    }
    Ok(gate)
}

/// One line per engine on stderr.
pub fn print_summary(report: &sqlwitness_report::Report) {
    print_summary_of(report, false)
}

/// [`print_summary`], knowing whether the benchmark has BIRD's layout.
fn print_summary_of(report: &sqlwitness_report::Report, bird_layout: bool) {
    for (engine, s) in &report.summary.engines {
        // The suite's accuracy where the run had one (`eval --suite`).
        let suite = match (s.suite_match, s.suite_ex) {
            (Some(m), Some(ex)) => format!(", suite {m} match, suite EX {ex:.4}"),
            _ => String::new(),
        };
        say!(
            "{engine:>8}: {} questions, {} match, {} mismatch, {} gold_error, {} pred_error, {} abstained, {} missing_db, {} timeout, {} engine_error, EX {:.4}, EX (scorable) {:.4}, tie-aware EX {:.4}{suite}",
            s.questions, s.matched, s.mismatch, s.gold_error, s.pred_error, s.abstained, s.missing_db, s.timeout, s.engine_error, s.ex,
            report.summary.ex_scorable(engine).unwrap_or(0.0), s.ex_tie_aware
        );
    }
    say!("({})", sqlwitness_report::EX_DEFINITIONS);
    levels::print_level_tables(report, bird_layout);
    // `--ves-runs`: VES and R-VES per engine, with their spread across runs.
    let ves: Vec<(&str, &sqlwitness_report::VesSummary)> = report
        .summary
        .engines
        .iter()
        .filter_map(|(e, s)| s.ves.as_ref().map(|v| (e.as_str(), v)))
        .collect();
    if !ves.is_empty() {
        say!("\nEfficiency (VES, R-VES; per run: the score of each run alone):");
        say_part!("{}", sqlwitness_report::ves_table(&ves));
        for (engine, v) in &ves {
            if !v.by_difficulty.is_empty() {
                say!("\n{engine} VES by BIRD difficulty:");
                say_part!("{}", sqlwitness_report::ves_official_table(v));
            }
        }
        let contrasts = sqlwitness_report::efficiency_contrasts(&report.questions);
        if ves.len() > 1 {
            say!(
                "({} correct predictions are at least twice as efficient on one engine as on another, beyond the runs' spread: summary.md lists them)",
                contrasts.len()
            );
        }
    }
}

/// The report files a run writes into `--out`. A run removes the ones a
/// previous run left before it starts, so that a failing run never leaves an
/// older report where CI would read it as this run's.
const OUTPUTS: &[&str] = &[
    "report.json",
    "report.tmp",
    "summary.md",
    "report.html",
    "junit.xml",
    "baseline-diff.md",
];

/// The files `sqlwitness audit` writes into its `--out`.
pub const AUDIT_OUTPUTS: &[&str] = &["audit.json", "audit.md", "audit.html", "baseline-diff.md"];

/// Removes the report files of an earlier eval run from `out` (see
/// [`OUTPUTS`]).
pub fn clear_outputs(out: &std::path::Path) -> Result<()> {
    clear_files(out, OUTPUTS)
}

/// After an interrupt: removes the temporary files of a report being
/// written and, unless `report.json` (written last) is there, the other
/// report files of this run — nothing half-written is left where a reader
/// could take it for a finished report. The journal stays.
pub fn remove_unfinished(out: &std::path::Path) {
    if let Ok(entries) = std::fs::read_dir(out) {
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().ends_with(".partial") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    for (marker, files) in [("report.json", OUTPUTS), ("audit.json", AUDIT_OUTPUTS)] {
        if !out.join(marker).exists() {
            let _ = clear_files(out, files);
        }
    }
}

/// Removes the files `names` from `out` where they exist.
pub fn clear_files(out: &std::path::Path, names: &[&str]) -> Result<()> {
    for name in names {
        let path = out.join(name);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(anyhow::Error::new(e)
                    .context(format!("removing the earlier {}", path.display())))
            }
        }
    }
    Ok(())
}

/// `--audit FILE`: the findings of an `audit.json` by question, for
/// report.html, with the link from `out` to the audit.html beside it. The
/// audit must be of `split` (question ids are indices in the split).
pub fn audit_notes(path: &Path, split: &str, out: &Path) -> Result<AuditNotes> {
    let audit =
        sqlwitness_audit::read_audit(path).map_err(|e| BadInput(format!("--audit: {e}")))?;
    if audit.run.split != split {
        return Err(BadInput(format!(
            "--audit {}: an audit of split `{}`, this run evaluates `{split}`",
            path.display(),
            audit.run.split
        ))
        .into());
    }
    let html = path.with_file_name("audit.html");
    let href = if html.exists() {
        Some(relative_href(out, &html)?)
    } else {
        None
    };
    let mut notes = AuditNotes {
        href,
        ..Default::default()
    };
    for (i, f) in audit.findings.iter().enumerate() {
        notes.by_question.entry(f.id).or_default().push(AuditNote {
            rule: f.rule.clone(),
            status: match f.status {
                sqlwitness_audit::Status::Proven => "proven",
                sqlwitness_audit::Status::Latent => "latent",
            }
            .into(),
            engines: f.engines.clone(),
            anchor: format!("f{i}"),
        });
    }
    Ok(notes)
}

/// The link from a page in folder `from` to the file `to` (`../audit/audit.html`).
fn relative_href(from: &Path, to: &Path) -> Result<String> {
    let from = std::path::absolute(from)?;
    let to = std::path::absolute(to)?;
    let (f, t): (Vec<_>, Vec<_>) = (from.components().collect(), to.components().collect());
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".into(); f.len() - common];
    parts.extend(
        t[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::relative_href;
    use std::path::Path;

    #[test]
    fn links_between_output_folders() {
        let href = |a: &str, b: &str| relative_href(Path::new(a), Path::new(b)).unwrap();
        assert_eq!(
            href("/w/out/eval", "/w/out/audit/audit.html"),
            "../audit/audit.html"
        );
        assert_eq!(href("/w/out", "/w/out/audit.html"), "audit.html");
        assert_eq!(href("/a/b/c", "/x/audit.html"), "../../../x/audit.html");
    }
}
