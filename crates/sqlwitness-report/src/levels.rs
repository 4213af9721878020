//! The tables the official evaluators print: execution accuracy (and Soft
//! F1) by Spider hardness (the test-suite evaluator's `print_scores`:
//! easy, medium, hard, extra, all) and by BIRD difficulty (mini-dev's
//! `print_data`: simple, moderate, challenging, total).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

use crate::{QuestionReport, Verdict};

/// Spider's hardness levels, in the evaluator's column order.
pub const HARDNESS_LEVELS: [&str; 4] = ["easy", "medium", "hard", "extra"];
/// The Spider evaluator's name for the column of every question.
pub const HARDNESS_ALL: &str = "all";
/// BIRD's difficulty levels, in the evaluator's column order.
pub const DIFFICULTY_LEVELS: [&str; 3] = ["simple", "moderate", "challenging"];
/// BIRD's name for the column of every question.
pub const DIFFICULTY_ALL: &str = "total";

/// One level of one engine.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LevelSummary {
    /// Questions at this level.
    pub questions: usize,
    /// Of them, the questions EX divides by: those with a database the
    /// engine could run (not `missing_db`, not `engine_error`) — the
    /// evaluators' `count` row.
    #[serde(default)]
    pub scored: usize,
    /// Questions whose verdict is `match`.
    #[serde(rename = "match")]
    pub matched: usize,
    /// `match / (questions − missing_db − engine_error)`, as the engine's
    /// `ex` (the evaluators' execution row, as a fraction).
    pub ex: f64,
    /// Mean Soft F1 over the same questions (a question without a value
    /// counts 0, as BIRD's script counts an error).
    pub soft_f1: f64,
    /// Spider's exact set match (`questions[].exact_match`): the questions
    /// matching exactly over those scored at this level; absent when the
    /// run scored none (no `tables.json`, no predictions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact_match: Option<f64>,
}

#[derive(Default)]
struct Acc {
    questions: usize,
    matched: usize,
    with_db: usize,
    soft_f1: f64,
    /// Questions scored by exact match, and of them those that match.
    exact_scored: usize,
    exact: usize,
}

/// Per level of `level(q)` for `engine`, plus `all` (every question of the
/// engine, whatever its level); empty when no question has a level.
pub(crate) fn by_level(
    questions: &[QuestionReport],
    engine: &str,
    level: impl Fn(&QuestionReport) -> Option<&str>,
    all: &str,
) -> BTreeMap<String, LevelSummary> {
    let mut acc: BTreeMap<String, Acc> = BTreeMap::new();
    let mut any = false;
    for q in questions {
        let Some(o) = q.engines.get(engine) else {
            continue;
        };
        let l = level(q);
        any |= l.is_some();
        for key in l.into_iter().chain([all]) {
            let a = acc.entry(key.to_string()).or_default();
            a.questions += 1;
            a.matched += usize::from(o.verdict == Verdict::Match);
            if !matches!(o.verdict, Verdict::MissingDb | Verdict::EngineError) {
                a.with_db += 1;
                a.soft_f1 += o.soft_f1.unwrap_or(0.0);
            }
            if let Some(exact) = q.exact_match {
                a.exact_scored += 1;
                a.exact += usize::from(exact);
            }
        }
    }
    if !any {
        return BTreeMap::new();
    }
    acc.into_iter()
        .map(|(k, a)| {
            let div = |x: f64| {
                if a.with_db == 0 {
                    0.0
                } else {
                    x / a.with_db as f64
                }
            };
            let s = LevelSummary {
                questions: a.questions,
                scored: a.with_db,
                matched: a.matched,
                ex: div(a.matched as f64),
                soft_f1: div(a.soft_f1),
                exact_match: (a.exact_scored > 0).then(|| a.exact as f64 / a.exact_scored as f64),
            };
            (k, s)
        })
        .collect()
}

/// The columns of a level table in the evaluator's order: its levels, then
/// the all/total column.
pub fn level_columns(spider: bool) -> Vec<&'static str> {
    let (named, all): (&[&'static str], _) = if spider {
        (&HARDNESS_LEVELS, HARDNESS_ALL)
    } else {
        (&DIFFICULTY_LEVELS, DIFFICULTY_ALL)
    };
    named.iter().copied().chain([all]).collect()
}

/// The first two lines of an official evaluator's table: the level
/// columns, then the `count` row (`count` of each level), without a final
/// newline.
pub(crate) fn official_head(cols: &[&str], count: impl Fn(&str) -> usize) -> String {
    let mut out = String::new();
    let _ = write!(out, "{:20}", "");
    for c in cols {
        let _ = write!(out, " {c:20}");
    }
    let _ = write!(out, "\n{:20}", "count");
    for c in cols {
        let _ = write!(out, " {:<20}", count(c));
    }
    out
}

/// The table as the official evaluator prints it, for one engine: Spider's
/// `count` and `execution` rows (3 decimals, fractions), or BIRD's `count`
/// and metric rows (2 decimals, percentages), here with an EX and a Soft F1
/// row.
pub fn official_table(levels: &BTreeMap<String, LevelSummary>, spider: bool) -> String {
    let cols = level_columns(spider);
    let get = |c: &str| levels.get(c).cloned().unwrap_or_default();
    let mut out = official_head(&cols, |c| get(c).questions);
    out.push('\n');
    if spider {
        let _ = writeln!(
            out,
            "=====================   EXECUTION ACCURACY     ====================="
        );
        let _ = write!(out, "{:20}", "execution");
        for c in &cols {
            let _ = write!(out, " {:<20.3}", get(c).ex);
        }
        out.push('\n');
        if get(HARDNESS_ALL).exact_match.is_some() {
            let _ = writeln!(
                out,
                "\n====================== EXACT MATCHING ACCURACY ====================="
            );
            let _ = write!(out, "{:20}", "exact match");
            for c in &cols {
                let _ = write!(out, " {:<20.3}", get(c).exact_match.unwrap_or(0.0));
            }
            out.push('\n');
        }
    } else {
        for (metric, f) in [
            ("EX", (|s: &LevelSummary| s.ex) as fn(&LevelSummary) -> f64),
            ("Soft-F1", |s: &LevelSummary| s.soft_f1),
        ] {
            let _ = writeln!(
                out,
                "======================================    {metric}    ====================================="
            );
            let _ = write!(out, "{metric:20}");
            for c in &cols {
                let _ = write!(out, " {:<20.2}", f(&get(c)) * 100.0);
            }
            out.push('\n');
        }
    }
    out
}

/// The level tables of a report as Markdown (`summary.md`): one table per
/// kind of level, a count, an EX and a Soft F1 row per engine. `count` is
/// what EX divides by (questions without a database, or that the engine
/// could not run, are left out, and a line under the table says how many).
pub(crate) fn render_markdown_levels(report: &crate::Report, out: &mut String) {
    for spider in [true, false] {
        fn pick(s: &crate::EngineSummary, spider: bool) -> &BTreeMap<String, LevelSummary> {
            if spider {
                &s.by_hardness
            } else {
                &s.by_difficulty
            }
        }
        let engines = &report.summary.engines;
        if engines.values().all(|s| pick(s, spider).is_empty()) {
            continue;
        }
        let cols = level_columns(spider);
        let _ = writeln!(
            out,
            "\n## {}\n",
            if spider {
                "By Spider hardness (the test-suite evaluator's layout)"
            } else {
                "By BIRD difficulty (the mini-dev evaluator's layout)"
            }
        );
        let _ = write!(out, "| engine | |");
        for c in &cols {
            let _ = write!(out, " {c} |");
        }
        let _ = write!(out, "\n|---|---|");
        for _ in &cols {
            out.push_str("--:|");
        }
        out.push('\n');
        for (name, s) in engines {
            let levels = pick(s, spider);
            let get = |c: &str| levels.get(c).cloned().unwrap_or_default();
            let _ = write!(out, "| {name} | count |");
            for c in &cols {
                let _ = write!(out, " {} |", get(c).scored);
            }
            let _ = write!(out, "\n| {name} | EX |");
            for c in &cols {
                let _ = write!(out, " {:.3} |", get(c).ex);
            }
            let _ = write!(out, "\n| {name} | Soft F1 |");
            for c in &cols {
                let _ = write!(out, " {:.3} |", get(c).soft_f1);
            }
            out.push('\n');
        }
        for (name, s) in engines {
            let all = pick(s, spider)
                .get(cols[cols.len() - 1])
                .cloned()
                .unwrap_or_default();
            let out_of = all.questions - all.scored.min(all.questions);
            if out_of > 0 {
                let _ = writeln!(
                    out,
                    "\n{name}: {out_of} of the {} questions are left out of `count`, as EX leaves \
                     them out ({} without a database, {} the engine could not run).",
                    all.questions, s.missing_db, s.engine_error
                );
            }
        }
        if spider {
            let unread = report
                .questions
                .iter()
                .filter(|q| q.hardness_error.is_some())
                .count();
            if unread > 0 {
                let _ = writeln!(
                    out,
                    "\n{unread} gold queries have no hardness: the official evaluator's parser cannot read them (`hardness_error` in `report.json`); they count in `all` only."
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{
        assert_expected, md_table, md_tables, outcome, small_report, ves_report,
    };
    use crate::{render_markdown, summarize};

    /// The small report (hardness: easy, medium, hard, extra, medium, none)
    /// with Spider's exact match scored on questions 0–3 (0 and 2 match
    /// exactly) and question 5 without a database on PostgreSQL.
    fn leveled() -> crate::Report {
        let mut r = small_report();
        for q in &mut r.questions[..4] {
            q.exact_match = Some(q.id % 2 == 0);
        }
        r.questions[5]
            .engines
            .insert("postgres".into(), outcome(Verdict::MissingDb, None, None));
        r.summary = summarize(&r.questions);
        r
    }

    #[test]
    fn official_tables_match_the_expected_file() {
        let r = leveled();
        let v = ves_report();
        let text = format!(
            "{}\n{}",
            official_table(&r.summary.engines["postgres"].by_hardness, true),
            official_table(&v.summary.engines["sqlite"].by_difficulty, false)
        );
        assert_expected("levels.txt", &text);
    }

    /// Levels count every question once and `all` every question; EX
    /// divides by the questions with a database; exact match by the
    /// questions it scored.
    #[test]
    fn levels_count_and_divide_as_the_evaluators_do() {
        let r = leveled();
        let pg = &r.summary.engines["postgres"].by_hardness;
        assert_eq!(
            ["easy", "medium", "hard", "extra", "all"].map(|l| (
                pg[l].questions,
                pg[l].scored,
                pg[l].matched
            )),
            [(1, 1, 1), (2, 2, 0), (1, 1, 0), (1, 1, 0), (6, 5, 1)]
        );
        assert!((pg["all"].ex - 0.2).abs() < 1e-12);
        assert_eq!(pg["all"].exact_match, Some(0.5));
        // Medium: question 1 scored (not exact), question 4 not scored.
        assert_eq!(pg["medium"].exact_match, Some(0.0));
        let v = ves_report();
        let lite = &v.summary.engines["sqlite"].by_difficulty;
        assert_eq!(
            ["simple", "moderate", "challenging", "total"]
                .map(|l| (lite[l].questions, lite[l].matched)),
            [(2, 1), (1, 1), (1, 1), (4, 3)]
        );
        // No level anywhere: no table.
        let mut plain = small_report();
        for q in &mut plain.questions {
            q.hardness = None;
        }
        plain.summary = summarize(&plain.questions);
        assert!(plain.summary.engines["sqlite"].by_hardness.is_empty());
        assert!(!render_markdown(&plain).contains("## By Spider hardness"));
    }

    /// summary.md's level table: a count, an EX and a Soft F1 row per
    /// engine; `count` is what EX divides by, and a line says how many
    /// questions it leaves out and why.
    #[test]
    fn the_markdown_level_table_says_what_count_leaves_out() {
        let md = render_markdown(&leveled());
        let tables = md_tables(&md);
        let t = md_table(
            &tables,
            &["engine", "", "easy", "medium", "hard", "extra", "all"],
        );
        assert_eq!(t.len(), 2 + 2 * 3);
        assert_eq!(t[2], ["postgres", "count", "1", "2", "1", "1", "5"]);
        assert_eq!(
            t[3],
            ["postgres", "EX", "1.000", "0.000", "0.000", "0.000", "0.200"]
        );
        assert!(md.contains(
            "\npostgres: 1 of the 6 questions are left out of `count`, as EX leaves them out (1 without a database, 0 the engine could not run).\n"
        ));
        assert!(!md.contains("\nsqlite: 1 of the"));
        let v = ves_report();
        let bird = render_markdown(&v);
        let t = md_table(
            &md_tables(&bird),
            &["engine", "", "simple", "moderate", "challenging", "total"],
        )
        .clone();
        assert_eq!(t[5], ["sqlite", "count", "2", "1", "1", "4"]);
    }
}
