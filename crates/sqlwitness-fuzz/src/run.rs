//! The fuzz run: distilled test suites for every database of a benchmark
//! (one at a time, [`build_db_suite_on`]), in parallel, with a journal,
//! partitions and resume; the suite folders of a partitioned run merged.

use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;

use sqlwitness_bench::Benchmark;
use sqlwitness_core::EngineKind;
use sqlwitness_migrate::{migrate_database, MigrateOptions, MigrationTarget};
use sqlwitness_run::{
    Cancel, FuzzSpec, Header, HeldLogin, Journal, JournalMode, Partition, Progress, RunError,
    RunSpec, Servers,
};

use crate::{
    build_db_suite_on, tables_json_keys, DbSuite, FuzzError, FuzzOptions, GoldQuery, Manifest,
    ServerReference,
};

/// The validated plan of `fuzz`.
pub struct FuzzPlan {
    pub bench: Benchmark,
    /// Gold queries per database (databases without a file left out).
    pub golds: BTreeMap<String, Vec<GoldQuery>>,
    /// The suite folder.
    pub out: PathBuf,
    pub options: FuzzOptions,
    pub jobs: usize,
    /// Keep a journal in `out`; continue one (`--resume`).
    pub journal: JournalMode,
    /// `--partition K/N`: only this part's databases.
    pub partition: Option<Partition>,
    /// What the build computes, as the journal keeps it (`options` are
    /// [`FuzzOptions::from_spec`]).
    pub spec: FuzzSpec,
    /// `--reference ENGINE` on a server: the golds (that engine's own)
    /// and their neighbours run there ([`ServerReference`]).
    pub reference: Option<FuzzReference>,
    /// The run's cancellation token: the build stops when it is cancelled.
    pub cancel: Cancel,
}

/// The server engine a suite is distilled on.
pub struct FuzzReference {
    pub kind: EngineKind,
    pub servers: Servers,
    /// How the originals and the candidates are migrated there.
    pub migrate: MigrateOptions,
}

/// One database's suite in the journal.
#[derive(serde::Serialize, serde::Deserialize)]
struct FuzzRecord {
    db_id: String,
    suite: DbSuite,
}

/// The journal header of `fuzz`: its plan, the inputs by content.
fn fuzz_header(plan: &FuzzPlan) -> Result<Header, RunError> {
    let mut h = Header::new(RunSpec::Fuzz(plan.spec.clone()), plan.partition);
    let selected: Vec<usize> = plan
        .golds
        .values()
        .flat_map(|gs| gs.iter().map(|g| g.question))
        .collect();
    sqlwitness_run::hash_inputs(&mut h, &plan.bench, &selected, None)?;
    Ok(h)
}

/// Combines the suite folders of a partitioned `fuzz` into `out`: each
/// part's databases copied, the manifest the union of theirs. Refused when
/// the parts are not of one run.
pub fn merge_suites(parts: &[PathBuf], out: &std::path::Path) -> Result<usize, FuzzError> {
    sqlwitness_run::read_parts::<FuzzRecord>(parts)?;
    let manifest_path = out.join("manifest.json");
    let mut manifest = Manifest::read(&manifest_path)?;
    for part in parts {
        let (_, records, _) =
            sqlwitness_run::read_journal::<FuzzRecord>(&part.join(sqlwitness_run::JOURNAL_FILE))?;
        for r in records {
            let from = part.join("database").join(&r.db_id);
            let to = out.join("database").join(&r.db_id);
            copy_dir(&from, &to)?;
            manifest.databases.insert(r.db_id, r.suite);
        }
    }
    manifest.write(&manifest_path)?;
    Ok(manifest.databases.len())
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) -> Result<(), RunError> {
    std::fs::create_dir_all(to)
        .map_err(|e| RunError::io(format!("creating {}", to.display()), e))?;
    let entries = std::fs::read_dir(from)
        .map_err(|e| RunError::io(format!("reading {}", from.display()), e))?;
    for entry in entries {
        let p = entry
            .map_err(|e| RunError::io(format!("reading {}", from.display()), e))?
            .path();
        let target = to.join(p.file_name().expect("a directory entry has a name"));
        if p.is_dir() {
            copy_dir(&p, &target)?;
        } else {
            std::fs::copy(&p, &target)
                .map_err(|e| RunError::io(format!("copying {}", p.display()), e))?;
        }
    }
    Ok(())
}

/// One database's suite, or why it could not be built.
pub type Built = (String, Result<DbSuite, FuzzError>);

/// Builds every database's suite in parallel and records the ones built in
/// `out/manifest.json` (entries of other databases already there are
/// kept). Returns each database's result, in `db_id` order.
pub fn build_suites(plan: &FuzzPlan, progress: &dyn Progress) -> Result<Vec<Built>, FuzzError> {
    let extra_keys = tables_json_keys(&plan.bench.root)?;
    std::fs::create_dir_all(&plan.out)
        .map_err(|e| RunError::io(format!("creating {}", plan.out.display()), e))?;
    // The part's databases (a partition weighs a database by its golds).
    let mine: BTreeMap<&String, &Vec<GoldQuery>> = match plan.partition {
        None => plan.golds.iter().collect(),
        Some(p) => {
            let weights = plan
                .golds
                .iter()
                .map(|(d, g)| (d.clone(), g.len()))
                .collect();
            let parts = sqlwitness_run::assign_partitions(&weights, p.n);
            plan.golds
                .iter()
                .filter(|(d, _)| parts.get(*d) == Some(&p.k))
                .collect()
        }
    };
    let header = fuzz_header(plan)?;
    let (journal, done) =
        Journal::open::<FuzzRecord>(&plan.out, &header, plan.journal, &plan.cancel)?;
    let journal = std::sync::Arc::new(journal);
    let _hooks = plan.cancel.run_hooks(&journal, []);
    let done: BTreeMap<String, DbSuite> = done
        .into_iter()
        .filter(|r| mine.contains_key(&r.db_id))
        .map(|r| (r.db_id, r.suite))
        .collect();
    if !done.is_empty() {
        progress.note(&format!(
            "resume: {} databases from the journal, {} to build",
            done.len(),
            mine.len() - done.len()
        ));
    }
    let todo: Vec<(&String, &Vec<GoldQuery>)> = mine
        .into_iter()
        .filter(|(d, _)| !done.contains_key(*d))
        .collect();
    let server = match &plan.reference {
        Some(r) => Some(server_reference(plan, r, &todo)?),
        None => None,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(plan.jobs)
        .build()
        .map_err(|e| RunError::Internal(format!("starting worker threads: {e}")))?;
    let pb = progress.bar(todo.len() as u64, "fuzz");
    let fresh: Vec<Built> = pool.install(|| {
        todo.par_iter()
            .map(|&(id, gs)| {
                let keys = extra_keys.get(id).map_or(&[][..], Vec::as_slice);
                let path = plan.bench.sqlite_path(id);
                let reference = server.as_ref().map(|(_, c)| c.reference());
                let r = match server.as_ref().and_then(|(bad, _)| bad.get(id.as_str())) {
                    Some(why) => Err(FuzzError::Reference(why.clone())),
                    None => build_db_suite_on(
                        id,
                        &path,
                        gs,
                        keys,
                        &plan.out,
                        &plan.options,
                        reference.as_ref(),
                    ),
                };
                if let Ok(suite) = &r {
                    journal.record(&FuzzRecord {
                        db_id: id.clone(),
                        suite: suite.clone(),
                    })?;
                }
                pb.inc(1);
                Ok((id.clone(), r))
            })
            .collect::<Result<_, FuzzError>>()
    })?;
    pb.finish();
    if plan.cancel.is_cancelled() {
        return Err(RunError::Interrupted.into());
    }
    journal.stop();
    let mut built: Vec<Built> = done.into_iter().map(|(id, s)| (id, Ok(s))).collect();
    built.extend(fresh);
    built.sort_by(|a, b| a.0.cmp(&b.0));
    let manifest_path = plan.out.join("manifest.json");
    let mut manifest = Manifest::read(&manifest_path)?;
    for (id, r) in &built {
        if let Ok(suite) = r {
            manifest.databases.insert(id.clone(), suite.clone());
        }
    }
    manifest.write(&manifest_path)?;
    Ok(built)
}

/// The reference engine of a `fuzz --reference` run, connected over the
/// run's own login, with the originals of `todo` migrated there first
/// (idempotent: a verified copy, a dump's own-typed copy included, is kept
/// as it is); the databases whose original is not available there, with
/// why.
fn server_reference(
    plan: &FuzzPlan,
    r: &FuzzReference,
    todo: &[(&String, &Vec<GoldQuery>)],
) -> Result<(BTreeMap<String, String>, Connection), RunError> {
    let url = r.servers.url(r.kind).ok_or_else(|| {
        RunError::BadInput(format!(
            "--reference {}: give its administrative URL (--server {}=URL or {})",
            r.kind,
            r.kind,
            r.kind.url_env()
        ))
    })?;
    let target = MigrationTarget::new(r.kind, url);
    let mut unavailable = BTreeMap::new();
    for (id, _) in todo {
        let db = plan.bench.database(id);
        let problem = match migrate_database(&db, &target, &r.migrate) {
            Ok(report) => sqlwitness_run::problem(&report),
            Err(e) => Some(e.to_string()),
        };
        if let Some(p) = problem {
            unavailable.insert(
                id.to_string(),
                format!(
                    "{}: original not available on {}: {p}",
                    db.namespace, r.kind
                ),
            );
        }
    }
    let originals: Vec<String> = todo
        .iter()
        .map(|(id, _)| plan.bench.database(id).namespace)
        .collect();
    let mut connected = sqlwitness_run::connect_reading(
        &[r.kind],
        &r.servers,
        plan.jobs as u32 + 1,
        &originals,
        &plan.cancel,
    )?;
    let c = connected.remove(0);
    Ok((
        unavailable,
        Connection {
            engine: c.engine,
            login: c.login,
            target,
            prefix: plan.bench.namespace_prefix.clone(),
            migrate: r.migrate.clone(),
        },
    ))
}

/// The connected reference engine of a `fuzz --reference` run.
struct Connection {
    engine: std::sync::Arc<dyn sqlwitness_core::Engine>,
    login: Option<HeldLogin>,
    target: MigrationTarget,
    prefix: String,
    migrate: MigrateOptions,
}

impl Connection {
    fn reference(&self) -> ServerReference<'_> {
        ServerReference {
            engine: self.engine.as_ref(),
            target: self.target.clone(),
            prefix: self.prefix.clone(),
            migrate: self.migrate.clone(),
            login: self.login.as_ref().map(HeldLogin::run_login),
        }
    }
}
