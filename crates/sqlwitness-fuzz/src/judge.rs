//! The suite's comparison: when does an instance prove that a prediction
//! (or a neighbour) is not the gold?
//!
//! Not when the results are equal under the run's comparison, and not in
//! two cases that are artefacts of generated data rather than differences
//! of meaning:
//!
//! * **ties** — the gold's `ORDER BY … LIMIT` cuts through rows with equal
//!   sort keys, or its ORDER BY leaves the order of equal keys free: every
//!   valid answer passes (`sqlwitness_nondet::TieWindow`, the semantics of
//!   `eval --ties aware`), and so does the tie-inclusive answer (all rows
//!   tied at the cut, what `x = (SELECT max(x) …)` returns);
//! * **no row vs a row of NULLs** — an aggregate over nothing returns one
//!   row of NULLs where `ORDER BY … LIMIT 1` returns none: both say
//!   "nothing there";
//! * **a gold with no one answer on the instance** — a LIMIT inside a
//!   subquery cuts through ties, a bare column under GROUP BY takes several
//!   values in one group, a LIMIT without ORDER BY has more rows than it
//!   keeps: the audit's static rules find such blocks and their probes,
//!   run on the instance, prove it (`sqlwitness_nondet::judge_probe`). The
//!   instance then says nothing about the prediction.
//!
//! A prediction that fails to run where the gold runs is a difference.

use sqlwitness_core::compare::CompareOptions;
use sqlwitness_core::{Database, DbError, Engine, QueryLimits, ResultSet, Value};
use sqlwitness_dialect::Grammar;
use sqlwitness_nondet::{analyze, NondetRule, TieWindow};
use sqlwitness_sql::{Dialects, SchemaInfo};

use crate::distill::differs;

/// Nothing: no row, or one row of NULLs only.
fn nothing(rs: &ResultSet) -> bool {
    match rs.rows.as_slice() {
        [] => true,
        [row] => row.iter().all(|v| *v == Value::Null),
        _ => false,
    }
}

/// The judgment, with the gold's tie window computed at most once per
/// database (it is reused for every prediction or neighbour of one gold).
pub(crate) struct Judge<'a> {
    pub engine: &'a dyn Engine,
    pub db: &'a Database,
    pub gold_sql: &'a str,
    pub limits: &'a QueryLimits,
    /// The dialects the gold is read in, in order.
    dialects: Vec<Grammar>,
    window: Option<Option<TieWindow>>,
    undetermined: Option<bool>,
}

impl<'a> Judge<'a> {
    /// The judgment of `gold_sql`, read in the first of `dialects` that
    /// parses it.
    pub fn new(
        engine: &'a dyn Engine,
        db: &'a Database,
        gold_sql: &'a str,
        limits: &'a QueryLimits,
        dialects: Dialects<'_>,
    ) -> Judge<'a> {
        Judge {
            engine,
            db,
            gold_sql,
            limits,
            dialects: dialects.to_vec(),
            window: None,
            undetermined: None,
        }
    }

    /// True when `p` really differs from the gold's `g` on this database.
    pub fn differs(
        &mut self,
        g: &Result<ResultSet, DbError>,
        p: &Result<ResultSet, DbError>,
        opts: &CompareOptions,
    ) -> bool {
        if !differs(g, p, opts) {
            return false;
        }
        let (Ok(g), Ok(p)) = (g, p) else {
            return true;
        };
        if nothing(g) && nothing(p) {
            return false;
        }
        let (engine, db, gold, limits) = (self.engine, self.db, self.gold_sql, self.limits);
        let dialects = &self.dialects;
        let window = self.window.get_or_insert_with(|| {
            TieWindow::probe_with(gold, dialects, |sql| engine.execute(db, sql, limits).ok())
        });
        if window
            .as_ref()
            .is_some_and(|w| w.accepts_columns(&p.rows, opts.any_column_order(), true))
        {
            return false;
        }
        !*self
            .undetermined
            .get_or_insert_with(|| gold_undetermined(engine, db, gold, limits, dialects))
    }
}

/// True when the gold has no one answer on `db`: a block the static rules
/// flag (other than the outermost ORDER BY, which the tie window judges)
/// whose probe proves the ambiguity on this data.
fn gold_undetermined(
    engine: &dyn Engine,
    db: &Database,
    gold: &str,
    limits: &QueryLimits,
    dialects: Dialects<'_>,
) -> bool {
    let Ok(findings) = analyze(gold, &SchemaInfo::default(), dialects) else {
        return false;
    };
    findings.iter().any(|f| {
        let window_judges = f.top_level
            && matches!(
                f.rule,
                NondetRule::LimitTie1 | NondetRule::LimitTieN | NondetRule::OrderByPartial
            );
        if window_judges || f.rule == NondetRule::OrderByPartial {
            return false;
        }
        let Some(probe) = &f.probe else {
            return false;
        };
        let Ok(rs) = engine.execute(db, probe.sql(), limits) else {
            return false;
        };
        let names: Vec<String> = rs.columns.iter().map(|c| c.name.clone()).collect();
        sqlwitness_nondet::judge_probe(probe, &names, &rs.rows).is_some()
    })
}

/// [`Judge::differs`] for one comparison.
pub(crate) fn really_differs(
    engine: &dyn Engine,
    db: &Database,
    gold_sql: &str,
    g: &Result<ResultSet, DbError>,
    p: &Result<ResultSet, DbError>,
    opts: &CompareOptions,
    limits: &QueryLimits,
) -> bool {
    Judge::new(
        engine,
        db,
        gold_sql,
        limits,
        &sqlwitness_sql::sqlite_first(engine.kind()),
    )
    .differs(g, p, opts)
}
