//! `--ves-runs N`: the timed runs of a correct prediction and its gold on
//! one engine, for BIRD's VES and BIRD mini-dev's R-VES.
//!
//! Only a `match` is timed (an incorrect prediction scores 0 without
//! running again). Each run times the prediction, then the gold, as the
//! evaluators do; both pass the guard (once, before the first run) and run
//! like every other execution (the engine's [`sqlwitness_core::Engine::time`]: the same
//! read-only session, login and limits, the time on the engine's own clock).
//! The first failed run (a timeout, an error) ends the timing: the
//! question scores 0, as the evaluators score an exception. Where the
//! engine can (SQLite), as many runs again time the prediction, then the gold,
//! as BIRD's official scripts do ([`sqlwitness_core::Engine::time_as_scripts`]),
//! after the stable ones: the report carries both.

use sqlwitness_bench::PredictedSql;
use sqlwitness_core::{Database, DbError, ScriptTimed, Timed, Verdict};
use sqlwitness_dialect::EngineFacts;
use sqlwitness_report::{EngineOutcome, OfficialTiming, VesOutcome};
use sqlwitness_sql::NameSet;

use crate::ctx::EngineCtx;
use crate::prepare::{prepare_pred, prepare_sql};
use crate::EvalPlan;

/// `outcome` with its timed runs where the plan asks for them and the
/// prediction matched.
pub(crate) fn with_ves(
    plan: &EvalPlan,
    ctx: &EngineCtx,
    db: &Database,
    gold: &str,
    pred: Option<&PredictedSql>,
    names: Option<&NameSet>,
    mut outcome: EngineOutcome,
) -> EngineOutcome {
    if plan.ves_runs == 0 || outcome.verdict != Verdict::Match {
        return outcome;
    }
    let pred_sql = match pred {
        None => gold,
        Some(PredictedSql::Sql(s)) => s.as_str(),
        Some(_) => return outcome,
    };
    let gold_run = prepare_sql(plan, ctx.kind, gold, names);
    let pred_run = prepare_pred(plan, ctx.kind, pred_sql, names);
    let guarded = |sql: &str| -> Result<(), DbError> {
        let namespace = if ctx.kind.is_server() {
            db.namespace.as_str()
        } else {
            "main"
        };
        let options = plan.guard.in_namespace(namespace);
        sqlwitness_guard::guard_with(sql, &ctx.dialect, &options)?;
        Ok(())
    };
    // The same text passes or fails the guard every time: checked once,
    // not between two timed runs.
    let checked = guarded(&pred_run).and_then(|()| guarded(&gold_run));
    let time = |sql: &str| -> Result<Timed, DbError> { ctx.engine.time(db, sql, &plan.limits) };
    let time_as_scripts = |sql: &str| -> Result<Option<ScriptTimed>, DbError> {
        ctx.engine.time_as_scripts(db, sql, &plan.limits)
    };
    let mut gold_ms = Vec::with_capacity(plan.ves_runs);
    let mut pred_ms = Vec::with_capacity(plan.ves_runs);
    let mut method = None;
    let mut error = checked
        .err()
        .map(|e| format!("{}: {}", e.class.as_str(), e.message));
    for _ in 0..plan.ves_runs {
        if error.is_some() {
            break;
        }
        if plan.cancel.is_cancelled() {
            error = Some("interrupted".to_string());
            break;
        }
        match time(&pred_run).and_then(|p| time(&gold_run).map(|g| (g, p))) {
            Ok((g, p)) => {
                method = Some(g.method);
                gold_ms.push(g.ms);
                pred_ms.push(p.ms);
            }
            Err(e) => {
                error = Some(format!("{}: {}", e.class.as_str(), e.message));
                break;
            }
        }
    }
    // Then the same number of runs timed as the scripts time them, in a
    // row as the scripts run them (each run after the previous one's gold,
    // on a new connection: interleaved with the stable runs, the
    // prediction would always follow a pooled connection's run).
    let mut scripts = ScriptRuns::default();
    let mut official = error.is_none();
    for _ in 0..plan.ves_runs {
        if !official || error.is_some() {
            break;
        }
        if plan.cancel.is_cancelled() {
            error = Some("interrupted".to_string());
            break;
        }
        match time_as_scripts(&pred_run).and_then(|p| Ok(time_as_scripts(&gold_run)?.zip(p))) {
            Ok(Some((g, p))) => scripts.push(g, p),
            Ok(None) => official = false,
            Err(e) => error = Some(format!("{}: {}", e.class.as_str(), e.message)),
        }
    }
    let method = method.unwrap_or(
        ctx.dialect
            .timing
            .unwrap_or(sqlwitness_core::TimingMethod::ClientWall),
    );
    let failed = error.is_some();
    let official = (official && !scripts.gold_execute.is_empty()).then(|| scripts.timing(failed));
    outcome.ves = Some(VesOutcome::new(method, gold_ms, pred_ms, error).with_official(official));
    outcome
}

/// The runs timed as the official scripts time them, as they come.
#[derive(Default)]
struct ScriptRuns {
    gold_execute: Vec<f64>,
    pred_execute: Vec<f64>,
    gold_session: Vec<f64>,
    pred_session: Vec<f64>,
}

impl ScriptRuns {
    fn push(&mut self, gold: ScriptTimed, pred: ScriptTimed) {
        self.gold_execute.push(gold.execute_ms);
        self.pred_execute.push(pred.execute_ms);
        self.gold_session.push(gold.session_ms);
        self.pred_session.push(pred.session_ms);
    }

    fn timing(self, failed: bool) -> OfficialTiming {
        OfficialTiming::new(
            (self.gold_execute, self.pred_execute),
            (self.gold_session, self.pred_session),
            failed,
        )
    }
}
