//! `eval --suite`: the distilled test suites as a stage of the evaluation
//! (their instances migrated to the servers once, then every prediction
//! that matches on the original run on each instance).

use sqlwitness_dialect::EngineFacts;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use sqlwitness_bench::{PredictedSql, Question};
use sqlwitness_core::compare::CompareOptions;
use sqlwitness_core::{Engine, EngineKind, Verdict};
use sqlwitness_migrate::{migrate_database, MigrateOptions, MigrationTarget};
use sqlwitness_report::{EngineOutcome, SuiteOutcome, WitnessReport};
use sqlwitness_sql::NameSet;

use crate::prepare::{prepare_pred, prepare_sql};
use sqlwitness_run::{Cancel, OnCancel, Progress};

use crate::EvalPlan;

/// The server namespaces of a run's suite instances: every one the run
/// migrated into (or tried to) is dropped when this is dropped — at the
/// end of the run, on an error or a panic — or when the run is
/// interrupted, after the queries in flight are cancelled. A suite is
/// input the run does not own, so its copies live only as long as the run
/// that made them (at most [`sqlwitness_fuzz::MAX_SUITE_INSTANCES`] per
/// server engine). Only namespaces holding sqlwitness's stamp are dropped.
pub(crate) struct SuiteCopies {
    made: Arc<Mutex<Vec<(MigrationTarget, String)>>>,
    /// Each server's namespaces are recorded there under a lease of the
    /// run's before they are made: a run killed outright leaves them to the
    /// next command's sweep.
    leases: Arc<Mutex<Vec<(MigrationTarget, sqlwitness_engines::RunLease)>>>,
    /// The run's token, and the hook registered on it.
    cancel: Cancel,
    on_cancel: Option<OnCancel>,
}

impl SuiteCopies {
    fn new(cancel: &Cancel) -> SuiteCopies {
        let mut copies = SuiteCopies {
            made: Arc::default(),
            leases: Arc::default(),
            cancel: cancel.clone(),
            on_cancel: None,
        };
        copies.rearm();
        copies
    }

    /// Registers the cancellation hook again, after every hook registered
    /// so far: the run calls this once its engines' hooks (which cancel the
    /// queries in flight, whose locks a drop would wait for) are
    /// registered.
    pub(crate) fn rearm(&mut self) {
        self.on_cancel = None;
        let made = Arc::clone(&self.made);
        let leases = Arc::clone(&self.leases);
        self.on_cancel = Some(self.cancel.on_cancel(move || drop_all(&made, &leases)));
    }

    fn record(&self, target: &MigrationTarget, namespace: &str) {
        let mut leases = self.leases.lock().unwrap_or_else(|e| e.into_inner());
        // A server keeps the run's lease (a run killed outright leaves
        // copies a later sweep finds); an engine on files of its own has
        // none: its copies go with the run's folder.
        if target.engine.is_server() && !leases.iter().any(|(t, _)| t == target) {
            match sqlwitness_engines::RunLease::take(target.engine, &target.url) {
                Ok(lease) => leases.push((target.clone(), lease)),
                Err(e) => eprintln!(
                    "suite: {}: the instance copies are not recorded on the server ({}); a run \
                     killed outright would leave them",
                    target.engine(),
                    e.message
                ),
            }
        }
        if let Some((_, lease)) = leases.iter_mut().find(|(t, _)| t == target) {
            if let Err(e) = lease.record_namespace(namespace) {
                eprintln!(
                    "suite: {}: {namespace} is not recorded on the server: {}",
                    target.engine(),
                    e.message
                );
            }
        }
        drop(leases);
        self.made
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((target.clone(), namespace.to_string()));
    }
}

impl Drop for SuiteCopies {
    fn drop(&mut self) {
        self.on_cancel = None;
        drop_all(&self.made, &self.leases);
    }
}

/// Drops every namespace of `made` (once: the list is emptied), naming on
/// stderr any that could not be dropped.
fn drop_all(
    made: &Mutex<Vec<(MigrationTarget, String)>>,
    leases: &Mutex<Vec<(MigrationTarget, sqlwitness_engines::RunLease)>>,
) {
    let list = std::mem::take(&mut *made.lock().unwrap_or_else(|e| e.into_inner()));
    let mut kept = Vec::new();
    for (target, namespace) in list {
        if let Err(e) = sqlwitness_migrate::drop_namespace(&target, &namespace) {
            eprintln!(
                "suite: {}: the instance copy {namespace} could not be dropped: {e}",
                target.engine()
            );
            kept.push(target);
        }
    }
    // A server whose copies are all gone lets its record go; one that kept
    // a copy leaves it recorded, for the next command's sweep.
    let leases = std::mem::take(&mut *leases.lock().unwrap_or_else(|e| e.into_inner()));
    for (target, lease) in leases {
        if kept.contains(&target) {
            std::mem::forget(lease);
        } else {
            lease.end();
        }
    }
}

/// `eval --suite` on PostgreSQL/MySQL: migrates every instance of the
/// suites of `db_ids` into its namespace (`<prefix><db_id>__s<k>`) once, before
/// the parallel evaluation, with the same idempotent migration as the
/// original databases. Instances that fail make the database's suite
/// unavailable on that engine (no suite verdict there; reported on
/// stderr), as does an engine without an administrative URL to copy them
/// with. The copies are the run's own: the returned [`SuiteCopies`] drops
/// them.
pub(crate) fn prepare_suites(
    plan: &EvalPlan,
    kinds: &[EngineKind],
    db_ids: &[String],
    progress: &dyn Progress,
) -> SuiteCopies {
    let copies = SuiteCopies::new(&plan.cancel);
    let Some(suite) = &plan.suite else {
        return copies;
    };
    for &kind in kinds.iter().filter(|&&k| k.holds_copies()) {
        let with_suite = || db_ids.iter().filter(|id| suite.instances(id).is_some());
        let Some(url) = plan.servers.url(kind) else {
            // Without an administrative login the instances cannot be
            // copied there, and an instance never copied must not pass
            // a prediction by failing both sides.
            for id in with_suite() {
                suite.set_unavailable(
                    kind,
                    id,
                    format!(
                        "no administrative URL for {kind} (--server {kind}=URL or {}): the \
                         suite's instances are copied there for the run",
                        kind.url_env()
                    ),
                );
            }
            continue;
        };
        let target = MigrationTarget::new(kind, url);
        let todo: Vec<(&String, usize)> = with_suite()
            .filter_map(|id| suite.instances(id).map(|f| (id, f.len())))
            .flat_map(|(id, n)| (0..n).map(move |k| (id, k)))
            .collect();
        let started = Instant::now();
        let pb = progress.bar(todo.len() as u64, "migrate suites");
        let (mut done, mut failed, mut typed_copies) = (0, 0, 0);
        // Where the database's copy on this server is a dump's own-typed
        // copy, its instances take those column types, as fuzz's candidates
        // do: a gold answers on them as on the original, or the instance
        // cannot exist there and the suite is unavailable, saying why.
        let mut typed: std::collections::BTreeMap<&String, MigrateOptions> = Default::default();
        for (id, k) in &todo {
            if plan.cancel.is_cancelled() {
                break;
            }
            let Some(db) = suite.instance_database(id, *k) else {
                continue;
            };
            let opts = typed.entry(id).or_insert_with(|| {
                let original = plan.bench.database(id).namespace;
                MigrateOptions {
                    types_from: sqlwitness_migrate::dump_copy_column_types(&target, &original).map(
                        |_| sqlwitness_migrate::TypesFrom {
                            namespace: original,
                            ..Default::default()
                        },
                    ),
                    ..MigrateOptions::default()
                }
            });
            copies.record(&target, &db.namespace);
            let problem = match migrate_database(&db, &target, opts) {
                Ok(r) => {
                    if r.column_types.as_ref().is_some_and(|c| c.columns_typed > 0) {
                        typed_copies += 1;
                    }
                    sqlwitness_run::problem(&r)
                }
                Err(e) => Some(e.to_string()),
            };
            if let Some(p) = problem {
                failed += 1;
                pb.note(&format!(
                    "suite: {kind}: {} not available: {p}",
                    db.namespace
                ));
                suite.set_unavailable(kind, id, format!("{}: {p}", db.namespace));
            }
            done += 1;
            pb.inc(1);
        }
        pb.finish();
        if !plan.quiet || failed > 0 {
            let typed = if typed_copies > 0 {
                format!(" ({typed_copies} with column types from a dump's own-typed copy)")
            } else {
                String::new()
            };
            progress.note(&format!(
                "suite: {kind}: {} instances migrated or verified{typed}, {failed} failed ({:.1} s)",
                done,
                started.elapsed().as_secs_f64()
            ));
        }
    }
    copies
}

/// `eval --suite`: after the verdict on the original database, runs the
/// prediction against the gold on every instance of the database's suite
/// on the same engine and attaches the suite verdict. Both texts get
/// exactly the preparation of the original run ([`prepare_sql`] /
/// [`prepare_pred`]: Spider-mode reading, postprocessing and DISTINCT
/// removal, identifier resolution on the servers). Only a prediction that
/// matches on the original is run on the instances. In the gold
/// self-check on a server, the gold's result on each instance is compared
/// with its result on SQLite (the suites' reference engine). With
/// `--hunt N`, a prediction that passes on SQLite is tried on up to N more
/// generated instances.
pub(crate) fn with_suite(
    plan: &EvalPlan,
    engine: &dyn Engine,
    q: &Question,
    gold: &str,
    pred: Option<&PredictedSql>,
    names: Option<&NameSet>,
    mut outcome: EngineOutcome,
) -> EngineOutcome {
    let Some(suite) = &plan.suite else {
        return outcome;
    };
    let db_id = q.db_id.as_str();
    let Some(files) = suite.instances(db_id) else {
        return outcome;
    };
    let kind = engine.kind();
    if suite.unavailable(kind, db_id).is_some() {
        return outcome;
    }
    if outcome.verdict != Verdict::Match {
        outcome.suite = Some(SuiteOutcome {
            passed: false,
            instances: files.len(),
            checked: 0,
            failed_instance: None,
            reason: Some("fails on the original database".into()),
            witness: None,
        });
        return outcome;
    }
    let gold_run = prepare_sql(plan, kind, gold, names);
    let pred_sql = match pred {
        Some(PredictedSql::Sql(s)) => Some(s.as_str()),
        _ => None,
    };
    let pred_run = prepare_pred(plan, kind, pred_sql.unwrap_or(gold), names);
    // No namespace: the instances live in namespaces of their own, so a
    // table name qualified with any namespace is refused here.
    if sqlwitness_guard::guard(&pred_run, sqlwitness_dialect::shipped(kind)).is_err() {
        return outcome;
    }
    let opts = CompareOptions {
        ordered: outcome.ordered,
        ..plan.compare
    };
    // The gold self-check is judged like any prediction: on the engine,
    // against the gold's own result there (a correct prediction must pass
    // every suite on every engine). Where the server's answer differs from
    // SQLite's on an instance is a dialect question: `audit` reports it.
    let verdict = suite.check(
        engine,
        db_id,
        &gold_run,
        &pred_run,
        &opts,
        &plan.limits,
        plan.suite_witness,
    );
    let Some(mut v) = verdict else {
        return outcome;
    };
    if v.passed && plan.hunt > 0 && kind == sqlwitness_engines::IN_PLACE && pred_sql.is_some() {
        hunt(plan, suite, q, (&gold_run, &pred_run), &opts, &mut v);
    }
    outcome.suite = Some(suite_outcome(v));
    outcome
}

/// `--hunt`: searches generated instances beyond the suite's for one that
/// tells the prediction (which passed every instance) from the gold; a
/// failure found fails `v`. A search that cannot run is said on stderr.
fn hunt(
    plan: &EvalPlan,
    suite: &sqlwitness_fuzz::SuiteSet,
    q: &Question,
    (gold_run, pred_run): (&str, &str),
    opts: &CompareOptions,
    v: &mut sqlwitness_fuzz::SuiteVerdict,
) {
    let db_id = q.db_id.as_str();
    match suite.hunt(
        db_id,
        q.id,
        gold_run,
        pred_run,
        opts,
        &plan.limits,
        plan.hunt,
        plan.suite_witness,
    ) {
        Ok(Some(h)) => {
            if let Some(f) = h.failure {
                v.passed = false;
                v.failure = Some(f);
            }
        }
        Ok(None) => {}
        Err(e) => eprintln!(
            "{}",
            sqlwitness_core::escape_controls(&format!("suite: q{} ({db_id}): --hunt: {e}", q.id))
        ),
    }
}

/// The report's suite outcome of `v`: passed or the instance that failed,
/// why, and the shrunk witness.
fn suite_outcome(v: sqlwitness_fuzz::SuiteVerdict) -> SuiteOutcome {
    let failure = v.failure;
    SuiteOutcome {
        passed: v.passed,
        instances: v.instances,
        checked: v.checked,
        failed_instance: failure.as_ref().map(|f| f.instance.clone()),
        reason: failure.as_ref().map(|f| f.reason.clone()),
        witness: failure.and_then(|f| f.witness).map(|w| WitnessReport {
            rows: w.rows,
            rows_before: w.rows_before,
            inserts: w.inserts,
            gold: w.gold,
            pred_error: w.pred.as_ref().err().map(|e| e.message.clone()),
            pred: w.pred.unwrap_or_default(),
        }),
    }
}
