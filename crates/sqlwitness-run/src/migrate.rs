//! Migration as a run uses it: one database to one engine, and what a
//! run needs migrated before its queries (the same idempotent migration as
//! `sqlwitness migrate`); the databases that cannot be used, and dumps
//! imported again when they changed.

use sqlwitness_dialect::EngineFacts;

use sqlwitness_bench::Benchmark;
use sqlwitness_core::EngineKind;
use sqlwitness_migrate::{migrate_database, MigrateOptions, MigrationReport, MigrationTarget};

use crate::Servers;

/// Migrates one database to one engine; `None` when its SQLite file is
/// missing. Failures are inside the report.
pub fn migrate_one(
    bench: &Benchmark,
    db_id: &str,
    kind: EngineKind,
    servers: &Servers,
    opts: &MigrateOptions,
) -> Option<MigrationReport> {
    if !bench.db_exists(db_id) {
        return None;
    }
    let db = bench.database(db_id);
    if let Some(why) = unusable(bench, db_id) {
        return Some(MigrationReport::failed(&db, kind, why));
    }
    let url = servers
        .url(kind)
        .expect("validated in the plan")
        .to_string();
    let target = MigrationTarget::new(kind, url);
    Some(
        migrate_database(&db, &target, opts)
            .unwrap_or_else(|e| MigrationReport::failed(&db, kind, e.to_string())),
    )
}

/// Why the database file of `db_id` (which exists) cannot be used, or
/// `None`: a link outside the benchmark, an empty, headerless or truncated
/// file ([`Benchmark::db_unusable`]), or one SQLite cannot open, whose
/// schema does not parse, or with a table it cannot read (a virtual table
/// of an unknown module) ([`sqlwitness_engines::sqlite_probe`]). Such a
/// database is never migrated and its questions are `engine_error`.
pub fn unusable(bench: &Benchmark, db_id: &str) -> Option<String> {
    if let Some(why) = bench.db_unusable(db_id) {
        return Some(why);
    }
    let path = bench.sqlite_path(db_id);
    match sqlwitness_migrate::stale_dump(&path) {
        Ok(Some(model)) => {
            let dump = model.dump.as_ref().map(|d| d.path.display().to_string());
            return Some(format!(
                "the dump {} has changed since it was imported (its copies hold the old one): \
                 import it again with `sqlwitness import`, or give the run a {} server to do so",
                dump.unwrap_or_default(),
                model.engine
            ));
        }
        Ok(None) => {}
        Err(e) => return Some(e.to_string()),
    }
    sqlwitness_engines::sqlite_probe(&path)
        .err()
        .map(|e| match e.code {
            Some(code) => format!("{} ({code})", e.message),
            None => e.message,
        })
}

/// The time one statement of a dump imported again by a run may take (as
/// `sqlwitness import`'s default).
pub const REIMPORT_STATEMENT_LIMIT: std::time::Duration = std::time::Duration::from_secs(600);

/// Imports again, before anything reads them, the databases of `db_ids`
/// whose dump changed since `import` wrote them, where the run has a server
/// of the dump's engine (else [`unusable`] says so and their questions are
/// `engine_error`); one note each.
pub fn refresh_dumps(
    bench: &Benchmark,
    db_ids: &[String],
    servers: &Servers,
    statement_limit: std::time::Duration,
    note: &dyn Fn(&str),
) {
    for id in db_ids {
        let path = bench.sqlite_path(id);
        let Ok(Some(model)) = sqlwitness_migrate::stale_dump(&path) else {
            continue;
        };
        let Some(url) = model.engine().and_then(|k| servers.url(k)) else {
            continue;
        };
        match sqlwitness_migrate::import_again(
            &model,
            &path,
            url,
            &bench.namespace_prefix,
            statement_limit,
        ) {
            Ok(_) => note(&format!(
                "{id}: its dump changed since it was imported: imported again on {}",
                model.engine
            )),
            Err(e) => note(&format!(
                "{id}: its dump changed since it was imported, and importing it again failed: {e}"
            )),
        }
    }
}

/// One migration of [`migrate_many`]: the database, the engine, and the
/// report (`None`: the SQLite file is missing).
pub type Migrated = (String, EngineKind, Option<MigrationReport>);

/// Migrates every database of `db_ids` to every engine of `engines` (server
/// engines only), `jobs` at a time, each over its own connection, with
/// `opts` (its `reader_ready` is set here: the reader login is made ready
/// once per server first). `done` is called as each one finishes
/// (progress); the result is in `db_ids` × `engines` order.
pub fn migrate_many(
    bench: &Benchmark,
    db_ids: &[String],
    engines: &[EngineKind],
    servers: &Servers,
    opts: &MigrateOptions,
    jobs: usize,
    done: &(dyn Fn(&Migrated) + Sync),
) -> Vec<Migrated> {
    use rayon::prelude::*;
    let engines: Vec<EngineKind> = engines
        .iter()
        .copied()
        .filter(|k| k.holds_copies())
        .collect();
    // A failure here shows again, per database, in the migrations (which
    // then make the login ready themselves).
    let ready: Vec<EngineKind> = engines
        .iter()
        .copied()
        .filter(|&kind| {
            servers.url(kind).is_some_and(|url| {
                sqlwitness_migrate::prepare_target(&MigrationTarget::new(kind, url)).is_ok()
            })
        })
        .collect();
    let pairs: Vec<(&String, EngineKind)> = db_ids
        .iter()
        .flat_map(|d| engines.iter().map(move |&k| (d, k)))
        .collect();
    let run = || {
        pairs
            .par_iter()
            .map(|&(db_id, kind)| {
                let opts = MigrateOptions {
                    reader_ready: ready.contains(&kind),
                    ..opts.clone()
                };
                let m = (
                    db_id.clone(),
                    kind,
                    migrate_one(bench, db_id, kind, servers, &opts),
                );
                done(&m);
                m
            })
            .collect()
    };
    match rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
    {
        Ok(pool) => pool.install(run),
        Err(_) => run(),
    }
}

/// What is wrong with a migration, or `None` when every table verified.
pub fn problem(r: &MigrationReport) -> Option<String> {
    r.problem()
}

/// True when every table of the migration verified.
pub fn is_good(r: &MigrationReport) -> bool {
    problem(r).is_none()
}
