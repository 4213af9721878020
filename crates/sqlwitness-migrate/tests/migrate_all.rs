//! Not a regular test: migrates many real databases and prints figures.
//!
//! `SQLWITNESS_MIGRATE_SET=dev|all` (default `dev`: the Spider dev
//! databases plus Chinook), `SQLWITNESS_MIGRATE_LOG=<dir>` for the JSON
//! logs, `SQLWITNESS_MIGRATE_PREFIX` for the namespaces (default
//! `swt_mig_all_`; they are dropped at the end unless
//! `SQLWITNESS_MIGRATE_KEEP=1`). Run with
//! `cargo test -p sqlwitness-bench --release --test migrate_all -- --ignored --nocapture`.

#[path = "../../sqlwitness-bench/tests/common/mod.rs"]
mod common;
mod targets;

use std::path::PathBuf;
use std::time::Instant;

use sqlwitness_bench::load_benchmark;
use sqlwitness_core::Database;
use sqlwitness_migrate::{drop_namespace, migrate_database, write_migration_log, MigrateOptions};

#[test]
#[ignore = "migrates every database; run by hand"]
fn migrate_all_databases() {
    let Some(root) = common::spider() else {
        return;
    };
    let bench = load_benchmark(&root, "dev").unwrap();
    let set = std::env::var("SQLWITNESS_MIGRATE_SET").unwrap_or_else(|_| "dev".into());
    let prefix =
        std::env::var("SQLWITNESS_MIGRATE_PREFIX").unwrap_or_else(|_| "swt_mig_all_".into());
    let keep = std::env::var("SQLWITNESS_MIGRATE_KEEP").as_deref() == Ok("1");
    let log_dir = std::env::var("SQLWITNESS_MIGRATE_LOG")
        .ok()
        .map(PathBuf::from);
    let ids = if set == "all" {
        bench.all_database_ids()
    } else {
        bench.db_ids()
    };
    let mut dbs: Vec<Database> = ids
        .iter()
        .filter(|id| bench.db_exists(id))
        .map(|id| bench.database(id))
        .collect();
    let missing: Vec<&String> = ids.iter().filter(|id| !bench.db_exists(id)).collect();
    if let Some(chinook) = sqlwitness_testkit::shared_data("chinook/Chinook_Sqlite.sqlite") {
        dbs.push(Database::new("chinook", chinook));
    }
    for db in &mut dbs {
        db.namespace = format!("{prefix}{}", db.db_id);
    }
    let targets = targets::targets();
    println!(
        "databases: {} (missing sqlite files: {missing:?})",
        dbs.len()
    );
    for target in &targets {
        let started = Instant::now();
        let (mut tables, mut rows, mut coerced, mut bad_tables) = (0u64, 0u64, 0u64, Vec::new());
        let (mut pk_ok, mut pk_skip, mut fk_ok, mut fk_skip) = (0, 0, 0, 0);
        let mut skip_reasons: std::collections::BTreeMap<String, u32> = Default::default();
        let mut errors = Vec::new();
        for db in &dbs {
            match migrate_database(
                db,
                target,
                &MigrateOptions {
                    force: true,
                    ..Default::default()
                },
            ) {
                Err(e) => errors.push(format!("{}: {e}", db.db_id)),
                Ok(r) => {
                    if let Some(dir) = &log_dir {
                        write_migration_log(dir, &r).unwrap();
                    }
                    for t in &r.tables {
                        tables += 1;
                        rows += t.rows_source;
                        coerced += t.coercions.count;
                        if !t.verified {
                            bad_tables.push(format!("{}.{}: {:?}", r.db_id, t.name, t.error));
                        }
                        if !t.primary_key.columns.is_empty() {
                            if t.primary_key.applied {
                                pk_ok += 1;
                            } else {
                                pk_skip += 1;
                                *skip_reasons
                                    .entry(format!("PK: {}", short(&t.primary_key.reason)))
                                    .or_default() += 1;
                            }
                        }
                        for fk in &t.foreign_keys {
                            if fk.applied {
                                fk_ok += 1;
                            } else {
                                fk_skip += 1;
                                *skip_reasons
                                    .entry(format!("FK: {}", short(&fk.reason)))
                                    .or_default() += 1;
                            }
                        }
                    }
                    println!(
                        "  {:<8} {:<36} {:>3} tables {:>8} rows {:>6} coerced {:>6} ms {:?}",
                        r.engine,
                        r.db_id,
                        r.tables.len(),
                        r.tables.iter().map(|t| t.rows_source).sum::<u64>(),
                        r.tables.iter().map(|t| t.coercions.count).sum::<u64>(),
                        r.duration_ms,
                        r.status
                    );
                }
            }
            if !keep {
                drop_namespace(target, &db.namespace).ok();
            }
        }
        println!(
            "{}: {} databases, {tables} tables, {rows} rows in {:.1}s; coerced values {coerced}; \
             tables not verified {}; PK applied {pk_ok} skipped {pk_skip}; FK applied {fk_ok} skipped {fk_skip}; errors {}",
            target.engine(),
            dbs.len(),
            started.elapsed().as_secs_f64(),
            bad_tables.len(),
            errors.len()
        );
        for b in &bad_tables {
            println!("  NOT VERIFIED {b}");
        }
        for e in &errors {
            println!("  ERROR {e}");
        }
        for (reason, n) in &skip_reasons {
            println!("  skipped {n:>4} × {reason}");
        }
    }
}

/// The reason without its data-specific details (for grouping).
fn short(reason: &str) -> String {
    let r: String = reason
        .chars()
        .take(70)
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .collect();
    r.split('`').next().unwrap_or("").trim().to_string()
}
