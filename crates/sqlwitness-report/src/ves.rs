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
    /// The same runs timed as BIRD's official scripts time them, on the
    /// client (SQLite only; absent elsewhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub official: Option<OfficialTiming>,
}

/// One correct prediction's runs timed as BIRD's official VES scripts
/// time them: BIRD dev's `evaluation_ves.py` (`sqlite_cursor_execute`:
/// `cursor.execute` on a new connection) gives its VES, mini-dev's
/// (`sqlite_connect_fetch`: on a new connection, from executing to
/// closing it) its R-VES. Each run times
/// the prediction, then the gold, after the run's stable timing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OfficialTiming {
    /// BIRD dev's timing of the gold, each run (milliseconds).
    pub gold_execute_ms: Vec<f64>,
    /// BIRD dev's timing of the prediction, each run.
    pub pred_execute_ms: Vec<f64>,
    /// Mini-dev's timing of the gold, each run.
    pub gold_session_ms: Vec<f64>,
    /// Mini-dev's timing of the prediction, each run.
    pub pred_session_ms: Vec<f64>,
    /// The mean of the kept ratios of BIRD dev's timing; `null` when a run
    /// failed.
    pub execute_time_ratio: Option<f64>,
    /// `√execute_time_ratio · 100`: the question's VES term as BIRD dev's
    /// script computes it.
    pub ves: f64,
    /// The mean of the kept ratios of mini-dev's timing.
    pub session_time_ratio: Option<f64>,
    /// Mini-dev's reward of `session_time_ratio`.
    pub reward: f64,
    /// `√reward · 100`: the question's R-VES term as mini-dev's script
    /// computes it.
    pub r_ves: f64,
}

/// The ratios `gold / pred` of paired runs.
fn ratios(gold_ms: &[f64], pred_ms: &[f64]) -> Vec<f64> {
    gold_ms
        .iter()
        .zip(pred_ms)
        .map(|(&g, &p)| run_ratio(g, p))
        .collect()
}

impl OfficialTiming {
    /// The official timing of paired runs (`execute` and `session`: the
    /// gold's and the prediction's times), scored unless a run `failed`.
    pub fn new(execute: (Vec<f64>, Vec<f64>), session: (Vec<f64>, Vec<f64>), failed: bool) -> Self {
        let (gold_execute_ms, pred_execute_ms) = execute;
        let (gold_session_ms, pred_session_ms) = session;
        let ratio = |g: &[f64], p: &[f64]| {
            if failed {
                None
            } else {
                time_ratio(&ratios(g, p))
            }
        };
        let execute_time_ratio = ratio(&gold_execute_ms, &pred_execute_ms);
        let session_time_ratio = ratio(&gold_session_ms, &pred_session_ms);
        OfficialTiming {
            execute_time_ratio,
            ves: execute_time_ratio.map_or(0.0, ves_of),
            session_time_ratio,
            reward: session_time_ratio.map_or(0.0, r_ves_reward),
            r_ves: session_time_ratio.map_or(0.0, r_ves_of),
            gold_execute_ms,
            pred_execute_ms,
            gold_session_ms,
            pred_session_ms,
        }
    }
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
        let ratios = ratios(&gold_ms, &pred_ms);
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
            official: None,
        }
    }

    /// This outcome with the same runs' official timing.
    pub fn with_official(mut self, official: Option<OfficialTiming>) -> VesOutcome {
        self.official = official;
        self
    }

    /// The stable timing's contribution to the scores.
    fn terms(&self) -> Terms {
        let ok = self.error.is_none();
        let runs = if ok {
            ratios(&self.gold_ms, &self.pred_ms)
        } else {
            Vec::new()
        };
        Terms {
            ves: self.ves,
            r_ves: self.r_ves,
            ves_ratios: runs.clone(),
            r_ves_ratios: runs,
            timed: ok,
        }
    }

    /// The official timing's contribution to the scores: BIRD dev's timing
    /// for VES, mini-dev's for R-VES.
    fn official_terms(&self) -> Option<Terms> {
        let o = self.official.as_ref()?;
        let ok = self.error.is_none();
        let runs = |g: &[f64], p: &[f64]| if ok { ratios(g, p) } else { Vec::new() };
        Some(Terms {
            ves: o.ves,
            r_ves: o.r_ves,
            ves_ratios: runs(&o.gold_execute_ms, &o.pred_execute_ms),
            r_ves_ratios: runs(&o.gold_session_ms, &o.pred_session_ms),
            timed: ok,
        })
    }
}

/// One correct prediction's contribution to VES and R-VES under one
/// timing: its terms, and the run ratios each is computed from (empty when
/// a run failed) for the per-run spread.
struct Terms {
    ves: f64,
    r_ves: f64,
    ves_ratios: Vec<f64>,
    r_ves_ratios: Vec<f64>,
    timed: bool,
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
    /// The same scores with the official scripts' timing (SQLite; absent
    /// where the engine has none): what BIRD's scripts print.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub official: Option<OfficialVes>,
}

/// VES and R-VES with the official scripts' timing ([`OfficialTiming`]):
/// VES by BIRD dev's (`sqlite_cursor_execute`), R-VES by mini-dev's
/// (`sqlite_connect_fetch`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OfficialVes {
    pub ves: f64,
    pub r_ves: f64,
    /// VES computed from each run alone, across the runs.
    pub ves_spread: Spread,
    /// R-VES computed from each run alone, across the runs.
    pub r_ves_spread: Spread,
    /// By BIRD difficulty, as [`VesSummary::by_difficulty`].
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub by_difficulty: BTreeMap<String, VesLevel>,
}

/// The scores of one timing over an engine's questions.
struct Scores {
    ves: f64,
    r_ves: f64,
    ves_spread: Spread,
    r_ves_spread: Spread,
    by_difficulty: BTreeMap<String, VesLevel>,
}

/// The spread of the per-run scores `scores`.
fn spread(scores: &[f64]) -> Spread {
    let Some((_, stdev)) = mean_std(scores) else {
        return Spread::default();
    };
    Spread {
        min: scores.iter().copied().fold(f64::INFINITY, f64::min),
        max: scores.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        stdev,
    }
}

/// VES and R-VES over `rows` (each question's difficulty and, for a
/// correct prediction, its terms; 0 otherwise), with their spread over
/// `runs` runs and, when `levels`, by difficulty.
fn scores(rows: &[(Option<&str>, Option<Terms>)], runs: usize, levels: bool) -> Scores {
    let n = rows.len().max(1) as f64;
    let total = |f: fn(&Terms) -> f64| {
        rows.iter()
            .filter_map(|(_, t)| t.as_ref())
            .map(f)
            .sum::<f64>()
            / n
    };
    // The score of run `i` alone, per run.
    let per_run = |pick: fn(&Terms) -> &[f64], f: fn(f64) -> f64| -> Spread {
        let scores: Vec<f64> = (0..runs)
            .map(|i| {
                rows.iter()
                    .filter_map(|(_, t)| t.as_ref())
                    .filter_map(|t| pick(t).get(i).copied())
                    .map(f)
                    .sum::<f64>()
                    / n
            })
            .collect();
        spread(&scores)
    };
    let mut by_difficulty: BTreeMap<String, VesLevel> = BTreeMap::new();
    if levels {
        for (difficulty, t) in rows {
            for key in difficulty.iter().copied().chain([crate::DIFFICULTY_ALL]) {
                let l = by_difficulty.entry(key.to_string()).or_default();
                l.questions += 1;
                if let Some(t) = t {
                    l.ves += t.ves;
                    l.r_ves += t.r_ves;
                    l.timed += usize::from(t.timed);
                }
            }
        }
        for l in by_difficulty.values_mut() {
            let d = l.questions.max(1) as f64;
            l.ves /= d;
            l.r_ves /= d;
        }
    }
    Scores {
        ves: total(|t| t.ves),
        r_ves: total(|t| t.r_ves),
        ves_spread: per_run(|t| &t.ves_ratios, ves_of),
        r_ves_spread: per_run(|t| &t.r_ves_ratios, r_ves_of),
        by_difficulty,
    }
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
    let levels = outcomes.iter().any(|(q, _)| q.difficulty.is_some());
    let rows = |f: fn(&VesOutcome) -> Option<Terms>| -> Vec<(Option<&str>, Option<Terms>)> {
        outcomes
            .iter()
            .map(|(q, o)| {
                let correct = o.ves.as_ref().filter(|_| o.verdict == Verdict::Match);
                (q.difficulty.as_deref(), correct.and_then(f))
            })
            .collect()
    };
    let stable = scores(&rows(|v| Some(v.terms())), runs, levels);
    let official = timed
        .iter()
        .any(|v| v.official.is_some())
        .then(|| scores(&rows(VesOutcome::official_terms), runs, levels))
        .map(|s| OfficialVes {
            ves: s.ves,
            r_ves: s.r_ves,
            ves_spread: s.ves_spread,
            r_ves_spread: s.r_ves_spread,
            by_difficulty: s.by_difficulty,
        });
    Some(VesSummary {
        method: methods.join(","),
        runs,
        questions: outcomes.len(),
        timed: timed.iter().filter(|v| v.error.is_none()).count(),
        failed: timed.iter().filter(|v| v.error.is_some()).count(),
        ves: stable.ves,
        r_ves: stable.r_ves,
        ves_spread: stable.ves_spread,
        r_ves_spread: stable.r_ves_spread,
        by_difficulty: stable.by_difficulty,
        official,
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

/// How [`OfficialVes`] was timed, for the tables.
pub const OFFICIAL_TIMING: &str =
    "official scripts' timing: sqlite_cursor_execute (VES), sqlite_connect_fetch (R-VES)";

/// The engines' VES table for the terminal and summary.md: one row per
/// engine (method, runs, timed, VES and R-VES with their spread across
/// runs) and, where the engine has it, a row with the official scripts'
/// timing; Markdown.
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
        let timed = format!("{} of {}{failed}", v.timed, v.questions);
        let mut line = |method: &str, scores: (f64, &Spread, f64, &Spread)| {
            let (ves, vs, r_ves, rs) = scores;
            let _ = writeln!(
                out,
                "| {e} | {method} | {} | {timed} | {ves:.2} | {:.2}–{:.2}, {:.2} | {r_ves:.2} | {:.2}–{:.2}, {:.2} |",
                v.runs, vs.min, vs.max, vs.stdev, rs.min, rs.max, rs.stdev,
            );
        };
        line(&v.method, (v.ves, &v.ves_spread, v.r_ves, &v.r_ves_spread));
        if let Some(o) = &v.official {
            line(
                OFFICIAL_TIMING,
                (o.ves, &o.ves_spread, o.r_ves, &o.r_ves_spread),
            );
        }
    }
    out
}

/// BIRD's layout (`print_data`): `count`, then a VES and an R-VES row by
/// difficulty, two decimals. With the official scripts' timing, `VES` and
/// `R-VES` are the scripts' numbers and two more rows, named after the
/// engine's method, give sqlwitness's stable timing.
pub fn ves_official_table(v: &VesSummary) -> String {
    let cols = crate::level_columns(false);
    let get =
        |levels: &BTreeMap<String, VesLevel>, c: &str| levels.get(c).cloned().unwrap_or_default();
    let mut out = crate::levels::official_head(&cols, |c| get(&v.by_difficulty, c).questions);
    let stable = |name: &str| match &v.official {
        Some(_) => format!("{name} ({})", v.method),
        None => name.to_string(),
    };
    let mut rows: Vec<(String, &BTreeMap<String, VesLevel>, bool)> = Vec::new();
    if let Some(o) = &v.official {
        rows.push(("VES".into(), &o.by_difficulty, true));
        rows.push(("R-VES".into(), &o.by_difficulty, false));
    }
    rows.push((stable("VES"), &v.by_difficulty, true));
    rows.push((stable("R-VES"), &v.by_difficulty, false));
    for (name, levels, ves) in rows {
        let _ = write!(out, "\n{name:20}");
        for c in &cols {
            let l = get(levels, c);
            let _ = write!(out, " {:<20.2}", if ves { l.ves } else { l.r_ves });
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
        let _ = write!(out, "| {} | {} |", c.id, crate::markdown::md_cell(&c.db_id));
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
        "\n## Efficiency: VES and R-VES (`--ves-runs`)\n\nBIRD's VES (mean of √(gold time / prediction time)·100 over the questions, 0 for an incorrect prediction) and BIRD mini-dev's R-VES (the time ratio's reward, √reward·100), each engine timing on its own clock; \"per run\" is the score from each run alone, so a difference smaller than that spread is noise. On SQLite a second row times the same runs as BIRD's official scripts do on the client (BIRD dev's `cursor.execute` on a new connection for VES, mini-dev's connect-to-close for R-VES): the numbers to compare with published ones.\n"
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

    use crate::test_support::{assert_expected, md_table, md_tables, ves_report};

    #[test]
    fn ves_md_matches_the_expected_file() {
        let mut md = String::new();
        render_markdown_ves(&ves_report(), &mut md);
        assert_expected("ves.md", &md);
    }

    /// The engines' scores over every question with a database: a wrong
    /// prediction and a failed timing count 0; the official scripts'
    /// timing only where it was taken; by BIRD difficulty.
    #[test]
    fn the_summary_scores_the_small_report() {
        let r = ves_report();
        let lite = r.summary.engines["sqlite"].ves.as_ref().unwrap();
        assert_eq!(
            (
                lite.method.as_str(),
                lite.runs,
                lite.questions,
                lite.timed,
                lite.failed
            ),
            ("sqlite_steps", 3, 4, 3, 0)
        );
        // Ratios 4, 1 and 1/4: √4·100, √1·100, √¼·100, and 0, over 4.
        assert!((lite.ves - 87.5).abs() < 1e-9, "{lite:?}");
        let close = |l: &BTreeMap<String, VesLevel>, k: &str, v: f64| {
            assert!((l[k].ves - v).abs() < 1e-9, "{k}: {:?}", l[k]);
        };
        close(&lite.by_difficulty, "simple", 100.0);
        close(&lite.by_difficulty, "moderate", 100.0);
        close(&lite.by_difficulty, "challenging", 50.0);
        close(&lite.by_difficulty, "total", 87.5);
        let official = lite.official.as_ref().unwrap();
        assert!((official.ves - 50.0).abs() < 1e-9, "{official:?}");
        let pg = r.summary.engines["postgres"].ves.as_ref().unwrap();
        assert_eq!((pg.timed, pg.failed, pg.official.is_none()), (2, 1, true));
        assert!((pg.ves - 50.0).abs() < 1e-9, "{pg:?}");
        // No timed runs, no VES summary.
        let plain = crate::test_support::small_report();
        assert!(plain.summary.engines.values().all(|s| s.ves.is_none()));
    }

    /// A contrast needs run ranges that do not overlap and a factor of at
    /// least 2; a failed timing is no ratio.
    #[test]
    fn contrasts_need_a_factor_of_two_and_separate_runs() {
        let r = ves_report();
        let c = efficiency_contrasts(&r.questions);
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(
            (c[0].id, c[0].best.as_str(), c[0].worst.as_str()),
            (0, "sqlite", "postgres")
        );
        assert!((c[0].factor - 4.0).abs() < 1e-9);
        // Mean ratios 3 and 1, but the runs overlap (1–5 against 1–1).
        let mut q = r.questions[1].clone();
        for (e, runs) in [("sqlite", vec![1.0, 5.0]), ("postgres", vec![1.0, 1.0])] {
            q.engines.get_mut(e).unwrap().ves = Some(VesOutcome::new(
                TimingMethod::ClientWall,
                runs,
                vec![1.0, 1.0],
                None,
            ));
        }
        assert!(efficiency_contrasts(&[q]).is_empty());
    }

    /// The tables keep their columns (a database name with a pipe
    /// included); an engine without a ratio shows a dash; the list stops
    /// at `max`.
    #[test]
    fn contrast_tables_keep_their_columns() {
        let contrast = |id: usize, db: &str| EfficiencyContrast {
            id,
            db_id: db.into(),
            ratios: [
                ("sqlite".to_string(), (4.0, 3.5, 4.5)),
                ("postgres".to_string(), (1.0, 0.9, 1.1)),
            ]
            .into(),
            best: "sqlite".into(),
            worst: "postgres".into(),
            factor: 4.0,
        };
        let md = contrasts_markdown(
            &[contrast(7, "world|1"), contrast(8, "b")],
            &["sqlite", "postgres", "mysql"],
            1,
        );
        let tables = md_tables(&md);
        let t = md_table(&tables, &["question", "db", "sqlite"]);
        assert_eq!(t.len(), 3);
        assert_eq!(
            t[2],
            [
                "7",
                "world|1",
                "4.00 (3.50–4.50)",
                "1.00 (0.90–1.10)",
                "–",
                "sqlite / postgres: ×4.0"
            ]
        );
        let mut md = String::new();
        render_markdown_ves(&ves_report(), &mut md);
        let tables = md_tables(&md);
        let t = md_table(&tables, &["engine", "timed by", "runs", "correct timed"]);
        // SQLite, its official timing, PostgreSQL.
        assert_eq!(t.len(), 2 + 3);
        assert_eq!(t[3][..4], ["sqlite", "sqlite_steps", "3", "3 of 4"]);
        assert_eq!(t[4][1], OFFICIAL_TIMING);
        assert_eq!(
            t[2][..4],
            [
                "postgres",
                "postgres_explain_analyze",
                "3",
                "2 of 4 (1 failed)"
            ]
        );
    }

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

    #[test]
    fn official_timing_scores_ves_and_r_ves_from_each_scripts_runs() {
        // BIRD dev's timing: the gold 4× the prediction; mini-dev's: equal.
        let o = OfficialTiming::new(
            (vec![4.0, 4.0], vec![1.0, 1.0]),
            (vec![2.0, 2.0], vec![2.0, 2.0]),
            false,
        );
        // σ = 0 keeps every run (the scripts' division by zero is not
        // reproduced).
        assert_eq!(o.execute_time_ratio, Some(4.0));
        assert_eq!(o.session_time_ratio, Some(1.0));
        let o = OfficialTiming::new(
            (vec![3.0, 5.0], vec![1.0, 1.0]),
            (vec![1.0, 3.0], vec![2.0, 2.0]),
            false,
        );
        assert_eq!(o.execute_time_ratio, Some(4.0));
        assert!((o.ves - 200.0).abs() < 1e-9);
        assert_eq!(o.session_time_ratio, Some(1.0));
        assert_eq!((o.reward, o.r_ves), (1.0, 100.0));
        let failed = OfficialTiming::new((vec![3.0], vec![1.0]), (vec![1.0], vec![1.0]), true);
        assert_eq!((failed.ves, failed.r_ves), (0.0, 0.0));
    }

    #[test]
    fn the_summary_carries_the_official_scores_beside_the_stable_ones() {
        let stable = VesOutcome::new(
            TimingMethod::SqliteSteps,
            vec![1.0, 1.0],
            vec![1.0, 1.0],
            None,
        );
        let official = OfficialTiming::new(
            (vec![3.0, 5.0], vec![1.0, 1.0]),
            (vec![1.0, 3.0], vec![2.0, 2.0]),
            false,
        );
        let q = |id: usize, ves: Option<VesOutcome>, verdict: Verdict| {
            let mut outcome = crate::EngineOutcome::new(verdict);
            outcome.ves = ves;
            QuestionReport {
                id,
                db_id: "db".into(),
                question: String::new(),
                gold_sql: String::new(),
                pred_sql: None,
                hardness: None,
                hardness_error: None,
                exact_match: None,
                exact_match_error: None,
                difficulty: Some("simple".into()),
                engines: [("sqlite".to_string(), outcome)].into(),
            }
        };
        let questions = vec![
            q(
                0,
                Some(stable.clone().with_official(Some(official))),
                Verdict::Match,
            ),
            q(1, None, Verdict::Mismatch),
        ];
        let v = summarize_ves(&questions, "sqlite").unwrap();
        // Stable: ratio 1 → 100 for one question of two.
        assert!((v.ves - 50.0).abs() < 1e-9, "{v:?}");
        let o = v.official.as_ref().unwrap();
        assert!((o.ves - 100.0).abs() < 1e-9, "{o:?}");
        assert!((o.r_ves - 50.0).abs() < 1e-9, "{o:?}");
        assert!((o.by_difficulty["total"].ves - 100.0).abs() < 1e-9);
        let table = ves_official_table(&v);
        assert!(table.contains("\nVES  "), "{table}");
        assert!(table.contains("\nVES (sqlite_steps) "), "{table}");
        assert!(ves_table(&[("sqlite", &v)]).contains(OFFICIAL_TIMING));
        // Without the official timing, the rows are the stable ones, unnamed.
        let plain = summarize_ves(&[q(0, Some(stable), Verdict::Match)], "sqlite").unwrap();
        assert!(plain.official.is_none());
        assert!(!ves_official_table(&plain).contains("sqlite_steps"));
    }
}
