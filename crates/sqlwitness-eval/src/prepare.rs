//! The prepare stage: the text each engine gets — Spider mode's reading
//! and preprocessing, identifier case resolution on the servers — and how
//! the gold's answer is compared (in order or as a multiset), decided once
//! per question and engine before anything runs.

use sqlwitness_core::compare::{CompareMode, CompareOptions};
use sqlwitness_core::EngineKind;
use sqlwitness_dialect::{EngineFacts, Grammar};
use sqlwitness_sql::NameSet;

use crate::EvalPlan;

/// The prediction's SQL text as sent to an engine: in Spider mode as
/// `evaluation.py` reads it from its line, then [`prepare_sql`].
pub fn prepare_pred(
    plan: &EvalPlan,
    kind: EngineKind,
    pred_sql: &str,
    names: Option<&NameSet>,
) -> String {
    if plan.compare.mode == CompareMode::Spider {
        let read = sqlwitness_spider::spider_read_prediction(pred_sql);
        prepare_sql(plan, kind, &read, names)
    } else {
        prepare_sql(plan, kind, pred_sql, names)
    }
}

/// The SQL text actually sent to an engine: Spider mode's preprocessing,
/// then identifier case resolution on the servers.
pub fn prepare_sql(
    plan: &EvalPlan,
    kind: EngineKind,
    sql: &str,
    names: Option<&NameSet>,
) -> String {
    sql_text(plan.compare.mode, plan.keep_distinct, kind, sql, names)
}

/// [`prepare_sql`] over the plain facts it reads: the comparison mode,
/// `--keep_distinct`, the engine and the database's names.
fn sql_text(
    mode: CompareMode,
    keep_distinct: bool,
    kind: EngineKind,
    sql: &str,
    names: Option<&NameSet>,
) -> String {
    let mut s = sql.to_string();
    if mode == CompareMode::Spider {
        s = sqlwitness_spider::spider_postprocess(&s);
        if !keep_distinct {
            s = sqlwitness_spider::spider_remove_distinct(&s);
        }
        s = sqlwitness_spider::spider_replace_cur_year(&s);
    }
    if kind.is_server() {
        if let Some(names) = names {
            s = sqlwitness_sql::resolve_identifiers(&s, names, kind);
        }
    }
    s
}

/// A gold prepared for one engine: its text as the benchmark gives it and
/// as the engine runs it, the dialects it is read in (SQLite's first, as
/// Spider's and BIRD's shared golds are written, then the engine's own),
/// and whether its answer is compared in order.
pub(crate) struct PreparedGold<'a> {
    pub sql: &'a str,
    pub run: String,
    pub dialects: Vec<Grammar>,
    pub ordered: bool,
}

impl PreparedGold<'_> {
    /// The plan's comparison, in order or not as this gold says.
    pub fn compare_options(&self, plan: &EvalPlan) -> CompareOptions {
        CompareOptions {
            ordered: self.ordered,
            ..plan.compare
        }
    }
}

/// `gold` prepared for the engine `kind`.
pub(crate) fn prepare_gold<'a>(
    plan: &EvalPlan,
    kind: EngineKind,
    gold: &'a str,
    names: Option<&NameSet>,
) -> PreparedGold<'a> {
    let run = prepare_sql(plan, kind, gold, names);
    let dialects = sqlwitness_sql::sqlite_first(kind);
    let ordered = ordered(plan.compare.mode, gold, &run, &dialects);
    PreparedGold {
        sql: gold,
        run,
        dialects,
        ordered,
    }
}

/// Whether a gold's answer is compared in order under `mode`: `gold` is its
/// text, `run` the text the engine runs.
fn ordered(mode: CompareMode, gold: &str, run: &str, dialects: &[Grammar]) -> bool {
    match mode {
        // Spider 2.0's `ignore_order`, LiveSQLBench's `conditions.order`
        // and defog's `order_by` category are set per question by hand;
        // here they follow the gold's top-level ORDER BY.
        CompareMode::Strict
        | CompareMode::Spider2
        | CompareMode::Livesqlbench
        | CompareMode::Defog => {
            sqlwitness_sql::has_top_level_order_by(gold, dialects).unwrap_or(false)
        }
        // The official evaluator's test: `order by` in the text it runs.
        CompareMode::Spider => sqlwitness_spider::spider_order_matters(run),
        CompareMode::Bird => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(mode: CompareMode, gold: &str) -> bool {
        let dialects = sqlwitness_sql::sqlite_first(EngineKind::REFERENCE);
        let run = sql_text(mode, false, EngineKind::REFERENCE, gold, None);
        ordered(mode, gold, &run, &dialects)
    }

    #[test]
    fn a_gold_is_compared_in_order_by_its_top_level_order_by_or_as_its_scorer_says() {
        let top = "SELECT name FROM singer ORDER BY age";
        let inner = "SELECT name FROM (SELECT name FROM singer ORDER BY age LIMIT 3)";
        for mode in [
            CompareMode::Strict,
            CompareMode::Spider2,
            CompareMode::Livesqlbench,
            CompareMode::Defog,
        ] {
            assert!(order(mode, top), "{mode:?}");
            assert!(!order(mode, inner), "{mode:?}");
            assert!(!order(mode, "SELECT 'order by' FROM t"), "{mode:?}");
        }
        // BIRD's scorer compares sets, whatever the gold's order.
        assert!(!order(CompareMode::Bird, top));
        // Spider's looks for the words in the text it runs.
        assert!(order(CompareMode::Spider, top));
        assert!(order(CompareMode::Spider, inner));
    }

    #[test]
    fn spider_mode_preprocesses_the_text_and_the_servers_resolve_names() {
        let sql = "SELECT DISTINCT name FROM singer";
        let strict = sql_text(CompareMode::Strict, false, EngineKind::REFERENCE, sql, None);
        assert_eq!(strict, sql);
        let spider = sql_text(CompareMode::Spider, false, EngineKind::REFERENCE, sql, None);
        assert!(!spider.to_lowercase().contains("distinct"), "{spider}");
        let kept = sql_text(CompareMode::Spider, true, EngineKind::REFERENCE, sql, None);
        assert!(kept.to_lowercase().contains("distinct"), "{kept}");
    }
}
