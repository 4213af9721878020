//! `eval --ves-runs N`: BIRD's VES and BIRD mini-dev's R-VES in the
//! report — each correct prediction's timed runs on each engine, each
//! engine's scores (overall and by BIRD difficulty), their spread across
//! repeats, and the questions whose efficiency differs across engines.
//! The formulas are `sqlwitness_score`'s (`ves`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

use sqlwitness_core::TimingMethod;
use sqlwitness_score::{mean_std, r_ves_of, r_ves_reward, run_ratio, time_ratio, ves_of};

use crate::{QuestionReport, Verdict};

/// The timed runs of one correct prediction and its gold on one engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VesOutcome {
    /// How the engine measured the times.
    pub method: TimingMethod,
    /// The gold's time of each run (milliseconds), in order.
    pub gold_ms: Vec<f64>,
    /// The prediction's time of each run (milliseconds; each run times the
    /// prediction, then the gold).
    pub pred_ms: Vec<f64>,
    /// The runs' ratios `gold_ms / pred_ms` kept by BIRD's outlier
    /// cleaning (mean ± 3σ).
    pub kept: usize,
    /// The mean of the kept ratios (> 1: the prediction is faster than the
    /// gold); `null` when a run failed.
    pub time_ratio: Option<f64>,
    /// The smallest and largest run ratio and their population standard
    /// deviation: the spread across repeats.
    pub ratio_min: f64,
    pub ratio_max: f64,
    pub ratio_stdev: f64,
    /// `√time_ratio · 100` (BIRD's VES term); 0 when a run failed.
    pub ves: f64,
    /// mini-dev's reward of `time_ratio` (1.25, 1, 0.75, 0.5, 0.25).
    pub reward: f64,
    /// `√reward · 100` (mini-dev's R-VES term).
    pub r_ves: f64,
    /// Why a run failed (its error), when one did: the question scores 0,
    /// as the evaluators score an exception.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl VesOutcome {
    /// The outcome of `gold_ms` and `pred_ms` (paired runs), or of the
    /// runs made before `error`.
    pub fn new(
        method: TimingMethod,
        gold_ms: Vec<f64>,
        pred_ms: Vec<f64>,
        error: Option<String>,
    ) -> VesOutcome {
        let ratios: Vec<f64> = gold_ms
            .iter()
            .zip(&pred_ms)
            .map(|(&g, &p)| run_ratio(g, p))
            .collect();
        let kept = sqlwitness_score::clean_abnormal(&ratios).len();
        let ratio = if error.is_some() {
            None
        } else {
            time_ratio(&ratios)
        };
        let (_, stdev) = mean_std(&ratios).unwrap_or((0.0, 0.0));
        let min = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let max = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        VesOutcome {
            method,
            gold_ms,
            pred_ms,
            kept,
            time_ratio: ratio,
            ratio_min: if min.is_finite() { min } else { 0.0 },
            ratio_max: if max.is_finite() { max } else { 0.0 },
            ratio_stdev: stdev,
            ves: ratio.map_or(0.0, ves_of),
            reward: ratio.map_or(0.0, r_ves_reward),
            r_ves: ratio.map_or(0.0, r_ves_of),
            error,
        }
    }

    /// The ratio of run `i` alone.
    fn run_ratio(&self, i: usize) -> Option<f64> {
        Some(run_ratio(*self.gold_ms.get(i)?, *self.pred_ms.get(i)?))
    }
}

/// Spread of a score across the repeats: the score computed from each run
/// alone (run `i`'s ratio for every question), its smallest, largest and
/// population standard deviation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub min: f64,
    pub max: f64,
    pub stdev: f64,
}

/// VES and R-VES over one set of questions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VesLevel {
    /// Questions with a database on the engine (the denominator, as EX's).
    pub questions: usize,
    /// Correct predictions timed without a failure.
    pub timed: usize,
    pub ves: f64,
    pub r_ves: f64,
}

/// One engine's efficiency scores.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VesSummary {
    /// How the engine timed its queries (`sqlite_steps`,
    /// `postgres_explain_analyze` …; several, comma-separated, when they
    /// differed).
    pub method: String,
    /// Runs per correct prediction (`--ves-runs`).
    pub runs: usize,
    /// Questions with a database on the engine.
    pub questions: usize,
    /// Correct predictions (`match`) timed without a failure.
    pub timed: usize,
    /// Correct predictions whose timing failed (a run timed out or erred):
    /// they score 0.
    pub failed: usize,
    /// BIRD's VES: the mean over `questions` of `√time_ratio · 100` (0 for
    /// an incorrect prediction).
    pub ves: f64,
    /// mini-dev's R-VES: the mean of `√reward · 100`.
    pub r_ves: f64,
    /// VES computed from each run alone, across the runs.
    pub ves_spread: Spread,
    /// R-VES computed from each run alone, across the runs.
    pub r_ves_spread: Spread,
    /// By BIRD difficulty (`simple`, `moderate`, `challenging`, `total`);
    /// absent when no question has a difficulty.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub by_difficulty: BTreeMap<String, VesLevel>,
}

fn counted(o: &crate::EngineOutcome) -> bool {
    !matches!(o.verdict, Verdict::MissingDb | Verdict::EngineError)
}

/// The VES summary of `engine`, or `None` when no question carries timed
/// runs there (no `--ves-runs`, or no correct prediction).
pub(crate) fn summarize_ves(questions: &[QuestionReport], engine: &str) -> Option<VesSummary> {
    let outcomes: Vec<(&QuestionReport, &crate::EngineOutcome)> = questions
        .iter()
        .filter_map(|q| q.engines.get(engine).map(|o| (q, o)))
        .filter(|(_, o)| counted(o))
        .collect();
    let timed: Vec<&VesOutcome> = outcomes
        .iter()
        .filter(|(_, o)| o.verdict == Verdict::Match)
        .filter_map(|(_, o)| o.ves.as_ref())
        .collect();
    if timed.is_empty() {
        return None;
    }
    let mut methods: Vec<&str> = timed.iter().map(|v| v.method.as_str()).collect();
    methods.sort_unstable();
    methods.dedup();
    let runs = timed.iter().map(|v| v.gold_ms.len()).max().unwrap_or(0);
    let n = outcomes.len().max(1) as f64;
    let term = |o: &crate::EngineOutcome, f: fn(&VesOutcome) -> f64| {
        o.ves
            .as_ref()
            .filter(|_| o.verdict == Verdict::Match)
            .map_or(0.0, f)
    };
    let score =
        |f: fn(&VesOutcome) -> f64| outcomes.iter().map(|(_, o)| term(o, f)).sum::<f64>() / n;
    // The score of run `i` alone, per run.
    let per_run = |f: fn(f64) -> f64| -> Spread {
        let scores: Vec<f64> = (0..runs)
            .map(|i| {
                outcomes
                    .iter()
                    .filter(|(_, o)| o.verdict == Verdict::Match)
                    .filter_map(|(_, o)| o.ves.as_ref())
                    .filter(|v| v.error.is_none())
                    .filter_map(|v| v.run_ratio(i))
                    .map(f)
                    .sum::<f64>()
                    / n
            })
            .collect();
        let Some((_, stdev)) = mean_std(&scores) else {
            return Spread::default();
        };
        Spread {
            min: scores.iter().copied().fold(f64::INFINITY, f64::min),
            max: scores.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            stdev,
        }
    };
    let mut by_difficulty: BTreeMap<String, VesLevel> = BTreeMap::new();
    if outcomes.iter().any(|(q, _)| q.difficulty.is_some()) {
        for (q, o) in &outcomes {
            let keys = q
                .difficulty
                .as_deref()
                .into_iter()
                .chain([crate::DIFFICULTY_ALL]);
            for key in keys {
                let l = by_difficulty.entry(key.to_string()).or_default();
                l.questions += 1;
                l.ves += term(o, |v| v.ves);
                l.r_ves += term(o, |v| v.r_ves);
                l.timed += usize::from(
                    o.verdict == Verdict::Match
                        && o.ves.as_ref().is_some_and(|v| v.error.is_none()),
                );
            }
        }
        for l in by_difficulty.values_mut() {
            let d = l.questions.max(1) as f64;
            l.ves /= d;
            l.r_ves /= d;
        }
    }
    Some(VesSummary {
        method: methods.join(","),
        runs,
        questions: outcomes.len(),
        timed: timed.iter().filter(|v| v.error.is_none()).count(),
        failed: timed.iter().filter(|v| v.error.is_some()).count(),
        ves: score(|v| v.ves),
        r_ves: score(|v| v.r_ves),
        ves_spread: per_run(ves_of),
        r_ves_spread: per_run(r_ves_of),
        by_difficulty,
    })
}

/// A question whose prediction's efficiency differs across engines beyond
/// the noise: on two engines its run ratios do not overlap (every run on
/// one is faster, relative to the gold, than every run on the other) and
/// the mean ratios differ by at least a factor of 2.
#[derive(Debug, Clone, PartialEq)]
pub struct EfficiencyContrast {
    pub id: usize,
    pub db_id: String,
    /// Per engine: time ratio, smallest and largest run ratio.
    pub ratios: BTreeMap<String, (f64, f64, f64)>,
    /// The engine where the prediction does best against its gold, and
    /// where it does worst.
    pub best: String,
    pub worst: String,
    /// `best`'s time ratio over `worst`'s.
    pub factor: f64,
}

/// A time ratio with its smallest and largest run ratio.
type Ratios = (f64, f64, f64);

/// The questions whose prediction is efficient on one engine and slow on
/// another ([`EfficiencyContrast`]), largest factor first.
pub fn efficiency_contrasts(questions: &[QuestionReport]) -> Vec<EfficiencyContrast> {
    let mut out = Vec::new();
    for q in questions {
        let ratios: BTreeMap<String, (f64, f64, f64)> = q
            .engines
            .iter()
            .filter(|(_, o)| o.verdict == Verdict::Match)
            .filter_map(|(e, o)| {
                let v = o.ves.as_ref()?;
                Some((e.clone(), (v.time_ratio?, v.ratio_min, v.ratio_max)))
            })
            .collect();
        let by = |f: fn(&Ratios, &Ratios) -> bool| {
            ratios
                .iter()
                .reduce(|a, b| if f(a.1, b.1) { a } else { b })
                .map(|(e, r)| (e.clone(), *r))
        };
        let (Some(best), Some(worst)) = (by(|a, b| a.0 >= b.0), by(|a, b| a.0 <= b.0)) else {
            continue;
        };
        let factor = best.1 .0 / worst.1 .0.max(f64::MIN_POSITIVE);
        if best.0 != worst.0 && factor >= 2.0 && best.1 .1 > worst.1 .2 {
            out.push(EfficiencyContrast {
                id: q.id,
                db_id: q.db_id.clone(),
                ratios,
                best: best.0,
                worst: worst.0,
                factor,
            });
        }
    }
    out.sort_by(|a, b| b.factor.total_cmp(&a.factor).then(a.id.cmp(&b.id)));
    out
}

/// The engines' VES table for the terminal and summary.md: one row per
/// engine (method, runs, timed, VES and R-VES with their spread across
/// runs), Markdown.
pub fn ves_table(engines: &[(&str, &VesSummary)]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| engine | timed by | runs | correct timed | VES | VES per run (min–max, σ) | R-VES | R-VES per run (min–max, σ) |"
    );
    let _ = writeln!(out, "|---|---|---:|---:|---:|---|---:|---|");
    for (e, v) in engines {
        let failed = if v.failed > 0 {
            format!(" ({} failed)", v.failed)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "| {e} | {} | {} | {} of {}{failed} | {:.2} | {:.2}–{:.2}, {:.2} | {:.2} | {:.2}–{:.2}, {:.2} |",
            v.method,
            v.runs,
            v.timed,
            v.questions,
            v.ves,
            v.ves_spread.min,
            v.ves_spread.max,
            v.ves_spread.stdev,
            v.r_ves,
            v.r_ves_spread.min,
            v.r_ves_spread.max,
            v.r_ves_spread.stdev,
        );
    }
    out
}

/// BIRD's layout (`print_data`): `count`, then a VES and an R-VES row by
/// difficulty, two decimals.
pub fn ves_official_table(v: &VesSummary) -> String {
    let cols = crate::level_columns(false);
    let get = |c: &str| v.by_difficulty.get(c).cloned().unwrap_or_default();
    let mut out = crate::levels::official_head(&cols, |c| get(c).questions);
    for (name, f) in [
        ("VES", (|l: &VesLevel| l.ves) as fn(&VesLevel) -> f64),
        ("R-VES", |l: &VesLevel| l.r_ves),
    ] {
        let _ = write!(out, "\n{name:20}");
        for c in &cols {
            let _ = write!(out, " {:<20.2}", f(&get(c)));
        }
    }
    out.push('\n');
    out
}

/// The cross-engine efficiency section of summary.md: up to `max`
/// contrasts, each with every engine's ratio and its run range.
pub fn contrasts_markdown(
    contrasts: &[EfficiencyContrast],
    engines: &[&str],
    max: usize,
) -> String {
    let mut out = String::new();
    let _ = write!(out, "| question | db |");
    for e in engines {
        let _ = write!(out, " {e} |");
    }
    let _ = writeln!(out, " best / worst |");
    let _ = write!(out, "|---:|---|");
    for _ in engines {
        let _ = write!(out, "---|");
    }
    let _ = writeln!(out, "---|");
    for c in contrasts.iter().take(max) {
        let _ = write!(out, "| {} | {} |", c.id, c.db_id);
        for e in engines {
            match c.ratios.get(*e) {
                Some((r, lo, hi)) => {
                    let _ = write!(out, " {r:.2} ({lo:.2}–{hi:.2}) |");
                }
                None => out.push_str(" – |"),
            }
        }
        let _ = writeln!(out, " {} / {}: ×{:.1} |", c.best, c.worst, c.factor);
    }
    out
}

/// How many cross-engine contrasts summary.md lists.
const CONTRASTS_SHOWN: usize = 20;

/// summary.md's efficiency section: the engines' VES table, BIRD's table by
/// difficulty, and the questions whose efficiency differs across engines.
pub(crate) fn render_markdown_ves(report: &crate::Report, out: &mut String) {
    let engines: Vec<(&str, &VesSummary)> = report
        .summary
        .engines
        .iter()
        .filter_map(|(e, s)| s.ves.as_ref().map(|v| (e.as_str(), v)))
        .collect();
    if engines.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n## Efficiency: VES and R-VES (`--ves-runs`)\n\nBIRD's VES (mean of √(gold time / prediction time)·100 over the questions, 0 for an incorrect prediction) and BIRD mini-dev's R-VES (the time ratio's reward, √reward·100), each engine timing on its own clock; \"per run\" is the score from each run alone, so a difference smaller than that spread is noise.\n"
    );
    out.push_str(&ves_table(&engines));
    for (e, v) in &engines {
        if !v.by_difficulty.is_empty() {
            let _ = writeln!(
                out,
                "\n{e} by BIRD difficulty:\n\n```\n{}```",
                ves_official_table(v)
            );
        }
    }
    let contrasts = efficiency_contrasts(&report.questions);
    if engines.len() > 1 {
        let _ = writeln!(
            out,
            "\n### Across engines\n\n{} correct predictions are efficient on one engine and slow on another (time ratios at least ×2 apart, every run on the one above every run on the other). Time ratio (run range) per engine:\n",
            contrasts.len()
        );
        if !contrasts.is_empty() {
            let names: Vec<&str> = engines.iter().map(|(e, _)| *e).collect();
            out.push_str(&contrasts_markdown(&contrasts, &names, CONTRASTS_SHOWN));
            if contrasts.len() > CONTRASTS_SHOWN {
                let _ = writeln!(
                    out,
                    "\n({} more in report.json: `engines.<e>.ves` of each question.)",
                    contrasts.len() - CONTRASTS_SHOWN
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcome_from_runs() {
        let v = VesOutcome::new(
            TimingMethod::SqliteSteps,
            vec![2.0, 4.0],
            vec![1.0, 1.0],
            None,
        );
        assert_eq!(v.time_ratio, Some(3.0));
        assert_eq!(v.kept, 2);
        assert_eq!((v.ratio_min, v.ratio_max, v.ratio_stdev), (2.0, 4.0, 1.0));
        assert!((v.ves - 3f64.sqrt() * 100.0).abs() < 1e-9);
        assert_eq!(v.reward, 1.25);
        let failed = VesOutcome::new(
            TimingMethod::ClientWall,
            vec![1.0],
            vec![1.0],
            Some("timeout".into()),
        );
        assert_eq!(
            (failed.time_ratio, failed.ves, failed.r_ves),
            (None, 0.0, 0.0)
        );
    }
}
