//! The tables the official evaluators print, byte for byte: test-suite
//! evaluator's `print_scores` (`--etype exec`, `match` and `all`), BIRD mini-dev's
//! `print_data` for EX, R-VES and Soft F1 (on standard output and in
//! `--output_log_path`), and
//! BIRD dev's `print_data` for EX (`evaluation.py`) and VES
//! (`evaluation_ves.py`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use sqlwitness_report::{LevelSummary, VesLevel, VesSummary};
use sqlwitness_spider::{MatchTable, MATCH_LEVELS, PARTIAL_TYPES};

/// `print_data`'s banner on standard output.
const BIRD_BANNER: &str =
    "======================================    EX    =====================================";
/// `print_data`'s banner in the log file: one space fewer after the metric
/// than on standard output, as the official script writes it.
const BIRD_LOG_BANNER: &str =
    "======================================    EX   =====================================";
/// BIRD dev's `print_data` banner in `evaluation.py`.
const BIRD_DEV_BANNER: &str =
    "======================================    ACCURACY    =====================================";
/// BIRD dev's `print_data` banner in `evaluation_ves.py`.
const BIRD_DEV_VES_BANNER: &str =
    "=========================================    VES   ========================================";
/// The rule under the table, on standard output and in the log (BIRD dev
/// and mini-dev alike).
pub(super) const BIRD_RULE: &str =
    "===========================================================================================";

/// `{:<20}` cells after a 20-wide row name, as the evaluators'
/// `print_formated_s` and `print_data` write them.
fn row(out: &mut String, name: &str, cells: &[String]) {
    let _ = write!(out, "{name:20}");
    for c in cells {
        let _ = write!(out, " {c:<20}");
    }
    out.push('\n');
}

/// Matches over every question of the level, as the evaluators divide
/// (the drop-ins print a table only when every question was computed).
fn accuracy(l: &LevelSummary) -> f64 {
    if l.questions == 0 {
        0.0
    } else {
        l.matched as f64 / l.questions as f64
    }
}

/// The Spider test-suite evaluator's `print_scores` for `--etype exec`.
pub(super) fn spider_table(levels: &BTreeMap<String, LevelSummary>) -> String {
    let cols = sqlwitness_report::level_columns(true);
    let get = |c: &str| levels.get(c).cloned().unwrap_or_default();
    let mut out = String::new();
    row(
        &mut out,
        "",
        &cols.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
    );
    row(
        &mut out,
        "count",
        &cols
            .iter()
            .map(|c| get(c).questions.to_string())
            .collect::<Vec<_>>(),
    );
    out.push_str("=====================   EXECUTION ACCURACY     =====================\n");
    row(
        &mut out,
        "execution",
        &cols
            .iter()
            .map(|c| format!("{:.3}", accuracy(&get(c))))
            .collect::<Vec<_>>(),
    );
    out
}

/// The Spider test-suite evaluator's `print_scores` for `--etype match`
/// (`exec` None) and `--etype all` (`exec`: execution accuracy by level):
/// the counts, the execution row, exact match and the three partial
/// matching blocks.
pub(super) fn spider_match_table(t: &MatchTable, exec: Option<&[f64; 5]>) -> String {
    let three = |xs: &[f64]| xs.iter().map(|x| format!("{x:.3}")).collect::<Vec<_>>();
    let mut out = String::new();
    let levels: Vec<String> = MATCH_LEVELS.iter().map(|c| c.to_string()).collect();
    row(&mut out, "", &levels);
    let counts: Vec<String> = t.count.iter().map(usize::to_string).collect();
    row(&mut out, "count", &counts);
    if let Some(exec) = exec {
        out.push_str("=====================   EXECUTION ACCURACY     =====================\n");
        row(&mut out, "execution", &three(exec));
    }
    out.push_str("\n====================== EXACT MATCHING ACCURACY =====================\n");
    row(&mut out, "exact match", &three(&t.exact));
    let blocks = [
        "\n---------------------PARTIAL MATCHING ACCURACY----------------------",
        "---------------------- PARTIAL MATCHING RECALL ----------------------",
        "---------------------- PARTIAL MATCHING F1 --------------------------",
    ];
    for (k, banner) in blocks.iter().enumerate() {
        out.push_str(banner);
        out.push('\n');
        for (name, by_level) in PARTIAL_TYPES.iter().zip(&t.partial) {
            let cells: Vec<f64> = by_level.iter().map(|s| [s.0, s.1, s.2][k]).collect();
            row(&mut out, name, &three(&cells));
        }
    }
    out
}

/// BIRD mini-dev's `print_data` for EX (percentages, two decimals) as it
/// prints it on standard output; the total is every question.
pub(super) fn bird_table(
    levels: &BTreeMap<String, LevelSummary>,
    questions: usize,
    matched: usize,
) -> String {
    bird_table_with(levels, questions, matched, BIRD_BANNER)
}

/// What `print_data` appends to `--output_log_path` for one table: the
/// same rows under its own banner, framed by its first and last lines.
pub(super) fn bird_log(
    levels: &BTreeMap<String, LevelSummary>,
    questions: usize,
    matched: usize,
) -> String {
    minidev_log(
        "EX",
        &bird_table_with(levels, questions, matched, BIRD_LOG_BANNER),
    )
}

/// BIRD dev's `print_data` in `evaluation.py`: the same rows as
/// mini-dev's, under its own banner, the scores' row named `accuracy`.
pub(super) fn bird_dev_table(
    levels: &BTreeMap<String, LevelSummary>,
    questions: usize,
    matched: usize,
) -> String {
    let (counts, scores) = ex_cells(levels, questions, matched);
    difficulty_table(&counts, BIRD_DEV_BANNER, "accuracy", &scores)
}

/// BIRD dev's `print_data` in `evaluation_ves.py`: the questions of each
/// difficulty (`levels`, every question in `total`) and VES of each
/// (`ves`, `None` when no prediction was timed: every term is 0). The
/// `ves` row is timed as the script times (where the engine can: SQLite);
/// a row named after the engine's own method follows it then, sqlwitness's
/// stable timing of the same runs.
pub(super) fn bird_dev_ves_table(
    levels: &BTreeMap<String, LevelSummary>,
    questions: usize,
    ves: Option<&VesSummary>,
) -> String {
    let scores = Timed {
        banner: BIRD_DEV_VES_BANNER,
        name: "ves",
        score: |l| l.ves,
    };
    timed_table(levels, questions, ves, &scores)
}

/// mini-dev's `print_data` banner for R-VES on standard output.
const R_VES_BANNER: &str =
    "======================================    R-VES    =====================================";
/// The same in the log file, one space fewer after the metric.
const R_VES_LOG_BANNER: &str =
    "======================================    R-VES   =====================================";

/// One efficiency table: its banner, its row's name and the score of a
/// level.
struct Timed {
    banner: &'static str,
    name: &'static str,
    score: fn(&VesLevel) -> f64,
}

/// `print_data` with `scores` by difficulty: the official row timed as the
/// scripts time (where the engine can: SQLite; its own clock otherwise),
/// then, where it was, a row named after the engine's own method:
/// sqlwitness's stable timing of the same runs. `ves` `None`: no
/// prediction was timed, every term is 0.
fn timed_table(
    levels: &BTreeMap<String, LevelSummary>,
    questions: usize,
    ves: Option<&VesSummary>,
    scores: &Timed,
) -> String {
    let (counts, _) = ex_cells(levels, questions, 0);
    let cells = |by: Option<&BTreeMap<String, VesLevel>>| -> Vec<String> {
        sqlwitness_report::level_columns(false)
            .iter()
            .map(|c| {
                let v = by.and_then(|b| b.get(*c)).map_or(0.0, scores.score);
                format!("{v:.2}")
            })
            .collect()
    };
    let official = ves.and_then(|v| v.official.as_ref());
    let first = match official {
        Some(o) => Some(&o.by_difficulty),
        None => ves.map(|v| &v.by_difficulty),
    };
    let mut out = difficulty_table(&counts, scores.banner, scores.name, &cells(first));
    if let (Some(v), Some(_)) = (ves, official) {
        let name = format!("{} ({})", scores.name, v.method);
        row(&mut out, &name, &cells(Some(&v.by_difficulty)));
    }
    out
}

/// mini-dev's `evaluation_ves.py` table (R-VES) as it prints it on
/// standard output.
pub(super) fn bird_r_ves_table(
    levels: &BTreeMap<String, LevelSummary>,
    questions: usize,
    ves: Option<&VesSummary>,
) -> String {
    let scores = Timed {
        banner: R_VES_BANNER,
        name: "R-VES",
        score: |l| l.r_ves,
    };
    timed_table(levels, questions, ves, &scores)
}

/// What mini-dev's `print_data` appends to `--output_log_path` for the
/// R-VES table.
pub(super) fn bird_r_ves_log(
    levels: &BTreeMap<String, LevelSummary>,
    questions: usize,
    ves: Option<&VesSummary>,
) -> String {
    let scores = Timed {
        banner: R_VES_LOG_BANNER,
        name: "R-VES",
        score: |l| l.r_ves,
    };
    minidev_log("R-VES", &timed_table(levels, questions, ves, &scores))
}

/// mini-dev's `print_data` banner for Soft F1 on standard output.
const SOFT_F1_BANNER: &str =
    "======================================    Soft-F1    =====================================";
/// The same in the log file, one space fewer after the metric.
const SOFT_F1_LOG_BANNER: &str =
    "======================================    Soft-F1   =====================================";

/// The `Soft-F1` cells by difficulty, `total` (`soft_f1`, every question)
/// last: percentages, two decimals.
fn soft_f1_cells(levels: &BTreeMap<String, LevelSummary>, soft_f1: f64) -> Vec<String> {
    let mut cells: Vec<String> = sqlwitness_report::DIFFICULTY_LEVELS
        .iter()
        .map(|c| {
            let f1 = levels.get(*c).map_or(0.0, |l| l.soft_f1);
            format!("{:.2}", f1 * 100.0)
        })
        .collect();
    cells.push(format!("{:.2}", soft_f1 * 100.0));
    cells
}

/// mini-dev's `evaluation_f1.py` table (Soft F1) as it prints it on
/// standard output; `soft_f1`: the mean over every question.
pub(super) fn bird_soft_f1_table(
    levels: &BTreeMap<String, LevelSummary>,
    questions: usize,
    soft_f1: f64,
) -> String {
    soft_f1_table_with(levels, questions, soft_f1, SOFT_F1_BANNER)
}

/// What mini-dev's `print_data` appends to `--output_log_path` for the
/// Soft F1 table.
pub(super) fn bird_soft_f1_log(
    levels: &BTreeMap<String, LevelSummary>,
    questions: usize,
    soft_f1: f64,
) -> String {
    minidev_log(
        "Soft-F1",
        &soft_f1_table_with(levels, questions, soft_f1, SOFT_F1_LOG_BANNER),
    )
}

fn soft_f1_table_with(
    levels: &BTreeMap<String, LevelSummary>,
    questions: usize,
    soft_f1: f64,
    banner: &str,
) -> String {
    let (counts, _) = ex_cells(levels, questions, 0);
    difficulty_table(&counts, banner, "Soft-F1", &soft_f1_cells(levels, soft_f1))
}

/// What mini-dev's `print_data` appends to its log for one `table` of
/// `metric`: the table framed by its first and last lines.
fn minidev_log(metric: &str, table: &str) -> String {
    format!(
        "start calculate {metric}\n{table}{BIRD_RULE}\nFinished {metric} evaluation for mini dev set\n\n"
    )
}

fn bird_table_with(
    levels: &BTreeMap<String, LevelSummary>,
    questions: usize,
    matched: usize,
    banner: &str,
) -> String {
    let (counts, scores) = ex_cells(levels, questions, matched);
    difficulty_table(&counts, banner, "EX", &scores)
}

/// The `count` and EX cells by difficulty, `total` last: percentages, two
/// decimals.
fn ex_cells(
    levels: &BTreeMap<String, LevelSummary>,
    questions: usize,
    matched: usize,
) -> (Vec<String>, Vec<String>) {
    let get = |c: &str| levels.get(c).cloned().unwrap_or_default();
    let mut counts: Vec<String> = sqlwitness_report::DIFFICULTY_LEVELS
        .iter()
        .map(|c| get(c).questions.to_string())
        .collect();
    counts.push(questions.to_string());
    let mut scores: Vec<String> = sqlwitness_report::DIFFICULTY_LEVELS
        .iter()
        .map(|c| format!("{:.2}", accuracy(&get(c)) * 100.0))
        .collect();
    let total = LevelSummary {
        questions,
        matched,
        ..Default::default()
    };
    scores.push(format!("{:.2}", accuracy(&total) * 100.0));
    (counts, scores)
}

/// The BIRD evaluators' `print_data`: the levels, `count`, the banner and
/// the scores' row named `name`.
fn difficulty_table(counts: &[String], banner: &str, name: &str, scores: &[String]) -> String {
    let mut out = String::new();
    row(
        &mut out,
        "",
        &sqlwitness_report::level_columns(false)
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>(),
    );
    row(&mut out, "count", counts);
    out.push_str(banner);
    out.push('\n');
    row(&mut out, name, scores);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(questions: usize, matched: usize) -> LevelSummary {
        LevelSummary {
            questions,
            matched,
            ..Default::default()
        }
    }

    #[test]
    fn the_spider_table_is_print_scores_layout() {
        let levels: BTreeMap<String, LevelSummary> = [
            ("easy", level(4, 4)),
            ("medium", level(3, 2)),
            ("hard", level(2, 1)),
            ("extra", level(1, 0)),
            ("all", level(10, 7)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let t = spider_table(&levels);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[0],
            format!(
                "{:20} {:20} {:20} {:20} {:20} {:20}",
                "", "easy", "medium", "hard", "extra", "all"
            )
        );
        assert_eq!(
            lines[1],
            format!(
                "{:20} {:<20} {:<20} {:<20} {:<20} {:<20}",
                "count", 4, 3, 2, 1, 10
            )
        );
        assert_eq!(
            lines[2],
            "=====================   EXECUTION ACCURACY     ====================="
        );
        assert_eq!(
            lines[3],
            format!(
                "{:20} {:<20} {:<20} {:<20} {:<20} {:<20}",
                "execution", "1.000", "0.667", "0.500", "0.000", "0.700"
            )
        );
    }

    #[test]
    fn the_bird_table_counts_every_question_in_total() {
        let levels: BTreeMap<String, LevelSummary> =
            [("simple", level(2, 1)), ("moderate", level(1, 1))]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
        let t = bird_table(&levels, 4, 2);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[1],
            format!("{:20} {:<20} {:<20} {:<20} {:<20}", "count", 2, 1, 0, 4)
        );
        assert_eq!(lines[2], BIRD_BANNER);
        assert_eq!(
            lines[3],
            format!(
                "{:20} {:<20} {:<20} {:<20} {:<20}",
                "EX", "50.00", "100.00", "0.00", "50.00"
            )
        );
        // The log's banner has one space fewer after the metric.
        let log = bird_log(&levels, 4, 2);
        let log: Vec<&str> = log.lines().collect();
        assert_eq!(log[0], "start calculate EX");
        assert_eq!(log[3], BIRD_LOG_BANNER);
        assert_eq!(BIRD_LOG_BANNER.len() + 1, BIRD_BANNER.len());
        assert_eq!(log[5], BIRD_RULE);
        assert_eq!(log[6], "Finished EX evaluation for mini dev set");
    }

    #[test]
    fn the_bird_dev_tables_have_their_own_banner_and_row_name() {
        let levels: BTreeMap<String, LevelSummary> = [
            ("simple", level(2, 2)),
            ("moderate", level(1, 0)),
            ("challenging", level(1, 1)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let t = bird_dev_table(&levels, 4, 3);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[2], BIRD_DEV_BANNER);
        assert_eq!(
            lines[3],
            format!(
                "{:20} {:<20} {:<20} {:<20} {:<20}",
                "accuracy", "100.00", "0.00", "100.00", "75.00"
            )
        );
        // Nothing timed: every VES term is 0.
        let t = bird_dev_ves_table(&levels, 4, None);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[1],
            format!("{:20} {:<20} {:<20} {:<20} {:<20}", "count", 2, 1, 1, 4)
        );
        assert_eq!(lines[2], BIRD_DEV_VES_BANNER);
        assert_eq!(
            lines[3],
            format!(
                "{:20} {:<20} {:<20} {:<20} {:<20}",
                "ves", "0.00", "0.00", "0.00", "0.00"
            )
        );
        assert_eq!(BIRD_DEV_BANNER.len(), BIRD_RULE.len());
    }
}
