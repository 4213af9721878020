//! The dialect golds an audit proves: per engine, the gold that runs and
//! answers as the reference's, as a file `eval --gold ENGINE=FILE` reads.

use sqlwitness_bench::Benchmark;
use sqlwitness_core::EngineKind;

use crate::run::with_database;
use crate::{AuditPlan, AuditReport, Finding};

/// The dialect golds an audit proves, per engine of the audit but the
/// reference, one entry per question of the split (in order): the engine's
/// gold as written where it runs there and answers as the reference's, its
/// verified translation where the gold fails or answers otherwise and a
/// translation answers as on SQLite (`portable_after_translation`, SQLite
/// the reference), and `None` where neither holds or the question was not
/// audited there. `eval --gold ENGINE=FILE` reads them
/// ([`gold_file_text`]).
pub fn dialect_golds(
    plan: &AuditPlan,
    report: &AuditReport,
) -> std::collections::BTreeMap<EngineKind, Vec<Option<String>>> {
    let audited: std::collections::BTreeSet<usize> =
        with_database(plan, &plan.selected).into_iter().collect();
    // The findings that say an engine fails or answers otherwise, by
    // question.
    let mut differs_by_id: std::collections::BTreeMap<usize, Vec<&Finding>> = Default::default();
    for f in &report.findings {
        if f.rule.starts_with("dialect_") || f.rule.starts_with("cross_engine") {
            differs_by_id.entry(f.id).or_default().push(f);
        }
    }
    let mut out = std::collections::BTreeMap::new();
    for &kind in plan.engines.iter().filter(|k| **k != plan.reference) {
        let name = kind.as_str();
        let golds = plan
            .bench
            .questions
            .iter()
            .map(|q| {
                if !audited.contains(&q.id) {
                    return None;
                }
                let differs: Vec<&&Finding> = differs_by_id
                    .get(&q.id)
                    .into_iter()
                    .flatten()
                    .filter(|f| f.engines.iter().any(|e| e == name))
                    .collect();
                if differs.is_empty() {
                    return Some(q.gold_for(kind).to_string());
                }
                differs.iter().find_map(|f| {
                    let t = f.translation.as_ref()?;
                    (t.outcome == "portable_after_translation")
                        .then(|| t.sql.clone())
                        .flatten()
                })
            })
            .collect();
        out.insert(kind, golds);
    }
    out
}

/// A gold file `eval --gold ENGINE=FILE` reads: `SQL<TAB>db_id` a line in
/// question order (line breaks inside a query become spaces), an empty
/// line where the engine has no gold of its own.
pub fn gold_file_text(bench: &Benchmark, golds: &[Option<String>]) -> String {
    let mut text = String::new();
    for (q, g) in bench.questions.iter().zip(golds) {
        if let Some(sql) = g {
            let one_line = sql.replace(['\r', '\n'], " ");
            text.push_str(&format!("{}\t{}", one_line.trim(), q.db_id));
        }
        text.push('\n');
    }
    text
}
