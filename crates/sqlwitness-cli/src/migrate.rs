//! `sqlwitness migrate`: copy SQLite databases to the servers and verify.

use anyhow::Result;
use sqlwitness_bench::{
    migrate_database, write_migration_log, Benchmark, MigrateOptions, MigrationReport,
    MigrationStatus, MigrationTarget,
};
use sqlwitness_core::EngineKind;

use crate::exit;
use crate::plan::{MigratePlan, Servers};
use crate::progress;

pub fn run(plan: &MigratePlan) -> Result<i32> {
    let pb = progress::bar(
        (plan.db_ids.len() * plan.engines.len()) as u64,
        "migrate",
        plan.quiet,
    );
    let mut failed = 0usize;
    println!("| db | engine | status | tables verified | rows | coercions | keys skipped | ms |");
    println!("|---|---|---|--:|--:|--:|--:|--:|");
    for db_id in &plan.db_ids {
        for &kind in &plan.engines {
            let report = migrate_one(&plan.bench, db_id, kind, &plan.servers, plan.force);
            pb.inc(1);
            match report {
                Some(r) => {
                    write_migration_log(&plan.log_dir, &r)?;
                    if problem(&r).is_some() {
                        failed += 1;
                    }
                    pb.suspend(|| println!("{}", row(&r)));
                }
                None => {
                    failed += 1;
                    pb.suspend(|| {
                        println!("| {db_id} | {kind} | missing database file | | | | | |")
                    });
                }
            }
        }
    }
    pb.finish_and_clear();
    eprintln!(
        "migration logs in {}; {} of {} targets failed",
        plan.log_dir.display(),
        failed,
        plan.db_ids.len() * plan.engines.len()
    );
    Ok(if failed == 0 { exit::OK } else { exit::ENGINE })
}

/// Migrates one database to one engine; `None` when its SQLite file is
/// missing. Failures are inside the report.
pub fn migrate_one(
    bench: &Benchmark,
    db_id: &str,
    kind: EngineKind,
    servers: &Servers,
    force: bool,
) -> Option<MigrationReport> {
    if !bench.db_exists(db_id) {
        return None;
    }
    let db = bench.database(db_id);
    let url = servers
        .url(kind)
        .expect("validated in the plan")
        .to_string();
    let target = MigrationTarget::new(kind, url);
    Some(
        migrate_database(&db, &target, &MigrateOptions { force })
            .unwrap_or_else(|e| MigrationReport::failed(&db, kind, e.to_string())),
    )
}

/// What is wrong with a migration, or `None` when every table verified.
pub fn problem(r: &MigrationReport) -> Option<String> {
    if let MigrationStatus::Failed { reason } = &r.status {
        return Some(format!("migration failed: {reason}"));
    }
    let bad: Vec<&str> = r
        .tables
        .iter()
        .filter(|t| !t.verified)
        .map(|t| t.name.as_str())
        .collect();
    (!bad.is_empty()).then(|| format!("tables failed verification: {}", bad.join(", ")))
}

fn row(r: &MigrationReport) -> String {
    let verified = r.tables.iter().filter(|t| t.verified).count();
    let rows: u64 = r.tables.iter().map(|t| t.rows_source).sum();
    let coercions: u64 = r.tables.iter().map(|t| t.coercions.count).sum();
    let skipped: usize = r
        .tables
        .iter()
        .map(|t| {
            usize::from(!t.primary_key.applied)
                + t.foreign_keys.iter().filter(|f| !f.applied).count()
        })
        .sum();
    let status = match &r.status {
        MigrationStatus::Failed { reason } => format!("failed: {reason}"),
        MigrationStatus::Migrated => "migrated".to_string(),
        MigrationStatus::UpToDate => "up_to_date".to_string(),
    };
    format!(
        "| {} | {} | {} | {}/{} | {} | {} | {} | {} |",
        r.db_id,
        r.engine,
        status,
        verified,
        r.tables.len(),
        rows,
        coercions,
        skipped,
        r.duration_ms
    )
}

/// True when every table of the migration verified.
pub fn is_good(r: &MigrationReport) -> bool {
    problem(r).is_none()
}
