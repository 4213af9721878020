//! `--ves-runs N`: the timed runs of a correct prediction and its gold on
//! one engine, for BIRD's VES and BIRD mini-dev's R-VES.
//!
//! Only a `match` is timed (an incorrect prediction scores 0 without
//! running again). Each run times the prediction, then the gold, as the
//! evaluators do; both go through the guard and run like every other
//! execution (the engine's [`sqlwitness_core::Engine::time`]: the same
//! read-only session, login and limits, the time on the engine's own clock).
//! The first failed run (a timeout, an error) ends the timing: the
//! question scores 0, as the evaluators score an exception.

use sqlwitness_bench::PredictedSql;
use sqlwitness_core::{Database, DbError, Timed, Verdict};
use sqlwitness_dialect::EngineFacts;
use sqlwitness_report::{EngineOutcome, VesOutcome};
use sqlwitness_sql::NameSet;

use crate::execute::{prepare_pred, prepare_sql};
use crate::question::EngineCtx;
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
    let time = |sql: &str| -> Result<Timed, DbError> {
        let namespace = if ctx.kind.is_server() {
            db.namespace.as_str()
        } else {
            "main"
        };
        let options = plan.guard.in_namespace(namespace);
        sqlwitness_guard::guard_with(sql, &ctx.dialect, &options)?;
        ctx.engine.time(db, sql, &plan.limits)
    };
    let mut gold_ms = Vec::with_capacity(plan.ves_runs);
    let mut pred_ms = Vec::with_capacity(plan.ves_runs);
    let mut method = None;
    let mut error = None;
    for _ in 0..plan.ves_runs {
        if crate::interrupted() {
            error = Some("interrupted".to_string());
            break;
        }
        let run = time(&pred_run).and_then(|p| time(&gold_run).map(|g| (g, p)));
        match run {
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
    let method = method.unwrap_or(
        ctx.dialect
            .timing
            .unwrap_or(sqlwitness_core::TimingMethod::ClientWall),
    );
    outcome.ves = Some(VesOutcome::new(method, gold_ms, pred_ms, error));
    outcome
}
