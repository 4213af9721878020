//! The official evaluators' tables in `eval`'s summary on the terminal:
//! one per engine, BIRD's by difficulty for a BIRD run and Spider's by
//! hardness otherwise, each counting the questions its EX divides by.

use std::collections::BTreeMap;

use sqlwitness_report::{
    official_table, LevelSummary, QuestionReport, Report, Verdict, DIFFICULTY_ALL, HARDNESS_ALL,
};

/// The official evaluators' table of each engine, in their layout: BIRD's
/// EX and Soft F1 by difficulty for a BIRD run (the BIRD layout, or a
/// question with a `difficulty`), Spider's EX by hardness otherwise. The
/// `count` row holds the questions EX divides by (those with a database
/// on the engine), so that count × EX is the number of matches; a line
/// under the table says which questions are left out.
pub(super) fn print_level_tables(report: &Report, bird_layout: bool) {
    let bird = bird_layout || report.questions.iter().any(|q| q.difficulty.is_some());
    let what = if bird {
        "by BIRD difficulty"
    } else {
        "by Spider hardness"
    };
    for (engine, s) in &report.summary.engines {
        let levels = if bird {
            &s.by_difficulty
        } else {
            &s.by_hardness
        };
        if levels.is_empty() {
            if bird {
                say!("\n{engine}: no question has a BIRD `difficulty`, so no table by difficulty");
            }
            continue;
        }
        say!("\n{engine} {what}:");
        let scored = counted_as_ex_divides(report, engine, levels, bird);
        say_part!("{}", official_table(&scored, !bird));
        if let Some(line) = left_out(report, engine) {
            say!("{line}");
        }
    }
    let unread = report
        .questions
        .iter()
        .filter(|q| q.hardness_error.is_some())
        .count();
    if !bird && unread > 0 {
        say!("({unread} gold queries the Spider evaluator's parser cannot read have no hardness: they count in `all` only; `hardness_error` in report.json says why)");
    }
}

/// Whether `engine` scored question `q` (EX divides by these): it has a
/// database there and the engine ran it.
fn scored_on(q: &QuestionReport, engine: &str) -> Option<bool> {
    let o = q.engines.get(engine)?;
    Some(!matches!(
        o.verdict,
        Verdict::MissingDb | Verdict::EngineError
    ))
}

/// `levels` with each level's `questions` counting only the questions EX
/// divides by on `engine`.
fn counted_as_ex_divides(
    report: &Report,
    engine: &str,
    levels: &BTreeMap<String, LevelSummary>,
    bird: bool,
) -> BTreeMap<String, LevelSummary> {
    let all = if bird { DIFFICULTY_ALL } else { HARDNESS_ALL };
    let mut out = levels.clone();
    for l in out.values_mut() {
        l.questions = 0;
    }
    for q in &report.questions {
        if scored_on(q, engine) != Some(true) {
            continue;
        }
        let level = if bird {
            q.difficulty.as_deref()
        } else {
            q.hardness.as_deref()
        };
        for key in level.into_iter().chain([all]) {
            if let Some(l) = out.get_mut(key) {
                l.questions += 1;
            }
        }
    }
    out
}

/// The line saying which questions of `engine` the table leaves out (as
/// EX does), with their databases; `None` when none is.
fn left_out(report: &Report, engine: &str) -> Option<String> {
    let s = report.summary.engines.get(engine)?;
    if s.missing_db + s.engine_error == 0 {
        return None;
    }
    let mut dbs: Vec<&str> = report
        .questions
        .iter()
        .filter(|q| scored_on(q, engine) == Some(false))
        .map(|q| q.db_id.as_str())
        .collect();
    dbs.sort_unstable();
    dbs.dedup();
    let shown = dbs.iter().take(5).copied().collect::<Vec<_>>().join(", ");
    let more = if dbs.len() > 5 {
        format!(" and {} more", dbs.len() - 5)
    } else {
        String::new()
    };
    Some(format!(
        "({} of the {} questions are left out, as EX leaves them out: {} without a database \
         and {} the engine could not run (engine_error), on {shown}{more}; `count` is the {} \
         questions EX divides by)",
        s.missing_db + s.engine_error,
        s.questions,
        s.missing_db,
        s.engine_error,
        s.questions - s.missing_db - s.engine_error
    ))
}
