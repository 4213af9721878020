//! `fuzz` as a stage of the library: distilled test suites for every
//! database of a benchmark (`sqlwitness-fuzz` builds one), the foreign keys
//! a benchmark states beside its files, and mutant predictions.

use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;

use sqlwitness_bench::Benchmark;
use sqlwitness_bench::{migrate_database, MigrateOptions, MigrationTarget};
use sqlwitness_core::EngineKind;
use sqlwitness_fuzz::{
    build_db_suite_on, DbSuite, ForeignKeySpec, FuzzOptions, GoldQuery, Manifest, ServerReference,
};

use crate::{EvalError, FuzzSpec, Progress};

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
    pub journal: crate::JournalMode,
    /// `--partition K/N`: only this part's databases.
    pub partition: Option<crate::Partition>,
    /// What the build computes, as the journal keeps it (`options` are
    /// [`FuzzSpec::options`]).
    pub spec: FuzzSpec,
    /// `--reference ENGINE` on a server: the golds (that engine's own)
    /// and their neighbours run there ([`ServerReference`]).
    pub reference: Option<FuzzReference>,
}

/// The server engine a suite is distilled on.
pub struct FuzzReference {
    pub kind: EngineKind,
    pub servers: crate::Servers,
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
fn fuzz_header(plan: &FuzzPlan) -> Result<crate::Header, EvalError> {
    let mut h = crate::Header::new(crate::RunSpec::Fuzz(plan.spec.clone()), plan.partition);
    let selected: Vec<usize> = plan
        .golds
        .values()
        .flat_map(|gs| gs.iter().map(|g| g.question))
        .collect();
    crate::run::hash_inputs(&mut h, &plan.bench, &selected, None)?;
    Ok(h)
}

/// Combines the suite folders of a partitioned `fuzz` into `out`: each
/// part's databases copied, the manifest the union of theirs. Refused when
/// the parts are not of one run.
pub fn merge_suites(parts: &[PathBuf], out: &std::path::Path) -> Result<usize, EvalError> {
    crate::read_parts::<FuzzRecord>(parts)?;
    let manifest_path = out.join("manifest.json");
    let mut manifest = Manifest::read(&manifest_path)?;
    for part in parts {
        let (_, records, _) = crate::read_journal::<FuzzRecord>(&part.join(crate::JOURNAL_FILE))?;
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

fn copy_dir(from: &std::path::Path, to: &std::path::Path) -> Result<(), EvalError> {
    std::fs::create_dir_all(to)
        .map_err(|e| EvalError::io(format!("creating {}", to.display()), e))?;
    let entries = std::fs::read_dir(from)
        .map_err(|e| EvalError::io(format!("reading {}", from.display()), e))?;
    for entry in entries {
        let p = entry
            .map_err(|e| EvalError::io(format!("reading {}", from.display()), e))?
            .path();
        let target = to.join(p.file_name().expect("a directory entry has a name"));
        if p.is_dir() {
            copy_dir(&p, &target)?;
        } else {
            std::fs::copy(&p, &target)
                .map_err(|e| EvalError::io(format!("copying {}", p.display()), e))?;
        }
    }
    Ok(())
}

/// One database's suite, or why it could not be built.
pub type Built = (String, Result<DbSuite, sqlwitness_fuzz::FuzzError>);

/// Builds every database's suite in parallel and records the ones built in
/// `out/manifest.json` (entries of other databases already there are
/// kept). Returns each database's result, in `db_id` order.
pub fn build_suites(plan: &FuzzPlan, progress: &dyn Progress) -> Result<Vec<Built>, EvalError> {
    let extra_keys = tables_json_keys(&plan.bench.root)?;
    std::fs::create_dir_all(&plan.out)
        .map_err(|e| EvalError::io(format!("creating {}", plan.out.display()), e))?;
    // The part's databases (a partition weighs a database by its golds).
    let mine: BTreeMap<&String, &Vec<GoldQuery>> = match plan.partition {
        None => plan.golds.iter().collect(),
        Some(p) => {
            let weights = plan
                .golds
                .iter()
                .map(|(d, g)| (d.clone(), g.len()))
                .collect();
            let parts = crate::assign_partitions(&weights, p.n);
            plan.golds
                .iter()
                .filter(|(d, _)| parts.get(*d) == Some(&p.k))
                .collect()
        }
    };
    let header = fuzz_header(plan)?;
    let (journal, done) = crate::Journal::open::<FuzzRecord>(&plan.out, &header, plan.journal)?;
    let journal = std::sync::Arc::new(journal);
    let _hooks = crate::interrupt::run_hooks(&journal, []);
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
        .map_err(|e| EvalError::Internal(format!("starting worker threads: {e}")))?;
    let pb = progress.bar(todo.len() as u64, "fuzz");
    let fresh: Vec<Built> = pool.install(|| {
        todo.par_iter()
            .map(|&(id, gs)| {
                let keys = extra_keys.get(id).map_or(&[][..], Vec::as_slice);
                let path = plan.bench.sqlite_path(id);
                let reference = server.as_ref().map(|(_, c)| c.reference());
                let r = match server.as_ref().and_then(|(bad, _)| bad.get(id.as_str())) {
                    Some(why) => Err(sqlwitness_fuzz::FuzzError::Reference(why.clone())),
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
            .collect::<Result<_, EvalError>>()
    })?;
    pb.finish();
    if crate::interrupted() {
        return Err(EvalError::Interrupted);
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
) -> Result<(BTreeMap<String, String>, Connection), EvalError> {
    let url = r.servers.url(r.kind).ok_or_else(|| {
        EvalError::BadInput(format!(
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
            Ok(report) => crate::problem(&report),
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
    let mut connected =
        crate::connect::connect_reading(&[r.kind], &r.servers, plan.jobs as u32 + 1, &originals)?;
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
    login: Option<crate::HeldLogin>,
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
            login: self.login.as_ref().map(crate::HeldLogin::run_login),
        }
    }
}

/// Foreign keys stated in the benchmark's `tables.json` (Spider layouts),
/// per `db_id`; none when the benchmark has no such file.
pub fn tables_json_keys(
    root: &std::path::Path,
) -> Result<BTreeMap<String, Vec<ForeignKeySpec>>, EvalError> {
    let path = root.join("tables.json");
    let mut out = BTreeMap::new();
    if !path.is_file() {
        return Ok(out);
    }
    let schemas = sqlwitness_bench::load_tables_json(&path)?;
    for (db_id, t) in schemas {
        let col = |i: usize| -> Option<(String, String)> {
            let (ti, name) = t.column_names_original.get(i)?;
            let table = t.table_names_original.get(usize::try_from(*ti).ok()?)?;
            Some((table.clone(), name.clone()))
        };
        let keys: Vec<ForeignKeySpec> = t
            .foreign_keys
            .iter()
            .filter_map(|&(c, p)| {
                let (table, column) = col(c)?;
                let (parent, parent_column) = col(p)?;
                Some(ForeignKeySpec {
                    table,
                    columns: vec![column],
                    parent,
                    parent_columns: vec![parent_column],
                })
            })
            .collect();
        out.insert(db_id, keys);
    }
    Ok(out)
}

/// A prediction file of gold queries mutated once or twice (`fuzz
/// --mutants`): one SQL a line in question order; a question without a
/// neighbour keeps its gold, one whose database is missing gets
/// `SELECT 1`. Returns the text and the counts `(mutated, kept)`.
pub fn mutant_predictions(bench: &Benchmark, seed: u64) -> (String, usize, usize) {
    let mut schemas: BTreeMap<String, Option<sqlwitness_fuzz::DbSchema>> = BTreeMap::new();
    let mut lines = Vec::with_capacity(bench.questions.len());
    let (mut mutated, mut kept) = (0, 0);
    for q in &bench.questions {
        let schema = schemas.entry(q.db_id.clone()).or_insert_with(|| {
            bench
                .db_exists(&q.db_id)
                .then(|| sqlwitness_fuzz::read_schema(&q.db_id, &bench.sqlite_path(&q.db_id)).ok())
                .flatten()
        });
        let Some(schema) = schema else {
            lines.push("SELECT 1".to_string());
            continue;
        };
        let mut rng = sqlwitness_fuzz::Rng::derived(seed, &format!("mutant {}", q.id));
        match sqlwitness_fuzz::mutant(&q.gold, schema, &mut rng) {
            Some(m) => {
                mutated += 1;
                lines.push(m.sql.replace(['\n', '\r'], " "));
            }
            None => {
                kept += 1;
                lines.push(q.gold.replace(['\n', '\r'], " "));
            }
        }
    }
    let mut text = lines.join("\n");
    text.push('\n');
    (text, mutated, kept)
}
