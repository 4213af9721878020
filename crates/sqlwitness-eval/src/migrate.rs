//! The migrations of an evaluation: what each server engine needs before
//! the questions run (`sqlwitness_run::migrate_many`), and what the copies
//! changed that the verdicts must know.

use sqlwitness_dialect::EngineFacts;
use std::collections::HashMap;

use sqlwitness_core::EngineKind;
use sqlwitness_run::{migrate_many, problem, Progress};

use crate::EvalPlan;

/// What the migrations of one engine left for the evaluation to know.
#[derive(Default)]
pub(crate) struct Migrations {
    /// The databases that could not be migrated, with the reason.
    pub unavailable: HashMap<String, String>,
    /// The collations the copies use (MySQL, MariaDB: the server's default
    /// for utf8mb4, a documented choice the report records).
    pub collations: std::collections::BTreeSet<String>,
    /// Per database, what its copy changed that can make the engine answer
    /// differently (see `MigrationReport::caveats`).
    pub caveats: HashMap<String, Vec<(String, &'static str)>>,
}

/// Migrates (or verifies) what a server engine needs, through the same code
/// as `sqlwitness migrate`.
pub(crate) fn migrate_for(
    plan: &EvalPlan,
    kind: EngineKind,
    db_ids: &[String],
    progress: &dyn Progress,
) -> Migrations {
    let mut out = Migrations::default();
    let (unavailable, collations) = (&mut out.unavailable, &mut out.collations);
    if kind.holds_copies() && plan.migrate {
        let pb = progress.bar(db_ids.len() as u64, "migrate");
        let migrated = migrate_many(
            &plan.bench,
            db_ids,
            &[kind],
            &plan.servers,
            &plan.migrate_options,
            plan.jobs,
            &|_| pb.inc(1),
        );
        for (id, _, r) in migrated {
            if let Some(r) = r {
                let caveats = r.caveats();
                if !caveats.is_empty() {
                    out.caveats.insert(id.clone(), caveats);
                }
                if let Some(problem) = problem(&r) {
                    unavailable.insert(id, format!("not migrated to {kind}: {problem}"));
                }
                collations.extend(r.collation);
            }
        }
        pb.finish();
    }
    out
}
