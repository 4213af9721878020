//! `sqlwitness migrate`: copy SQLite databases to the servers and verify.

use anyhow::Result;
use sqlwitness_migrate::{write_migration_log, MigrationReport, MigrationStatus};
use sqlwitness_run::{migrate_many, problem};

use crate::exit;
use crate::plan::MigratePlan;
use crate::progress;

pub fn run(plan: &MigratePlan) -> Result<i32> {
    let started = std::time::Instant::now();
    // A database whose dump changed since `import` wrote it is imported
    // again first (where a server of the dump's engine is given).
    sqlwitness_run::refresh_dumps(
        &plan.bench,
        &plan.db_ids,
        &plan.servers,
        sqlwitness_run::REIMPORT_STATEMENT_LIMIT,
        &|n| say!("{n}"),
    );
    let pb = progress::bar(
        (plan.db_ids.len() * plan.engines.len()) as u64,
        "migrate",
        plan.quiet,
    );
    let migrated = migrate_many(
        &plan.bench,
        &plan.db_ids,
        &plan.engines,
        &plan.servers,
        &plan.options,
        plan.jobs,
        &|_| pb.inc(1),
    );
    pb.finish_and_clear();
    let (mut failed, mut missing) = (0usize, 0usize);
    show!("| db | engine | status | tables verified | rows | coercions | keys skipped | ms |");
    show!("|---|---|---|--:|--:|--:|--:|--:|");
    for (db_id, kind, report) in &migrated {
        match report {
            Some(r) => {
                write_migration_log(&plan.log_dir, r)?;
                if problem(r).is_some() {
                    failed += 1;
                }
                show!("{}", row(r));
            }
            None => {
                missing += 1;
                show!("| {db_id} | {kind} | no source database file | | | | | |");
            }
        }
    }
    say!(
        "migration logs in {}; {} of {} targets failed{} ({:.2} s)",
        plan.log_dir.display(),
        failed,
        migrated.len() - missing,
        if missing > 0 {
            format!(
                "; {missing} not migrated: the benchmark has no SQLite file for {}",
                missing_names(&migrated)
            )
        } else {
            String::new()
        },
        started.elapsed().as_secs_f64()
    );
    Ok(if failed == 0 { exit::OK } else { exit::ENGINE })
}

fn missing_names(migrated: &[sqlwitness_run::Migrated]) -> String {
    let mut names: Vec<&str> = migrated
        .iter()
        .filter(|(_, _, r)| r.is_none())
        .map(|(d, _, _)| d.as_str())
        .collect();
    names.dedup();
    names.join(", ")
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
                + t.unique_keys.iter().filter(|k| !k.applied).count()
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
