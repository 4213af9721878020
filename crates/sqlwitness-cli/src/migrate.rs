//! `sqlwitness migrate`: copy SQLite databases to the servers and verify.

use anyhow::Result;
use sqlwitness_bench::{write_migration_log, MigrationReport, MigrationStatus};
use sqlwitness_eval::{migrate_one, problem};

use crate::exit;
use crate::plan::MigratePlan;
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
