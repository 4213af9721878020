//! The perturb run: a perturbed set built one database at a time
//! ([`Perturber`]) with a journal — one record per database, so that an
//! interrupted run continues (`--resume`) where it stopped and ends with
//! the same files.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sqlwitness_core::Engine;
use sqlwitness_run::{Cancel, Header, Journal, JournalMode, PerturbSpec, RunError, RunSpec};

use crate::{DatabaseOutcome, Mapping, Options, PerturbError, Perturber, ServerReference};

/// The validated plan of `perturb`.
pub struct PerturbPlan<'a> {
    /// What to build (the output folder is `options.out`).
    pub options: Options,
    /// What the build computes, as the journal keeps it.
    pub spec: PerturbSpec,
    /// Keep a journal in the output folder; continue one (`--resume`).
    pub journal: JournalMode,
    /// `--reference ENGINE` on a server.
    pub reference: Option<ServerReference<'a>>,
    /// The reference's engine, whose queries in flight a cancellation
    /// cancels.
    pub reference_engine: Option<Arc<dyn Engine>>,
    /// The run's cancellation token: the build stops between two
    /// questions when it is cancelled.
    pub cancel: Cancel,
}

impl Options {
    /// The spec of these options (the files, the kind, the settings)
    /// judged on `reference` with the gold file `gold`, as the journal
    /// keeps it.
    pub fn spec(
        &self,
        reference: Option<sqlwitness_core::EngineKind>,
        gold: Option<PathBuf>,
    ) -> PerturbSpec {
        PerturbSpec {
            files: sqlwitness_run::PerturbFiles {
                benchmark: self.bench.clone(),
                predictions: self.predictions.clone(),
                gold,
                dictionary: self.dictionary.clone(),
                renames: self.renames.clone(),
                content_rules: self.content_rules.clone(),
            },
            split: self.split.clone(),
            kind: self.kind.as_str().to_string(),
            samples: self.samples,
            seed: self.seed,
            databases: {
                // A selection, not an order: the set follows the benchmark's.
                let mut d = self.databases.clone();
                d.sort();
                d.dedup();
                d
            },
            timeout_seconds: self.timeout.as_secs_f64(),
            reference,
        }
    }
}

/// One database's outcome in the journal, with the SHA-256 of each
/// perturbed copy it wrote (checked before the record is trusted on
/// `--resume`).
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PerturbRecord {
    outcome: DatabaseOutcome,
    files: BTreeMap<String, String>,
}

/// The perturbed copy `pid`'s file in the output folder.
fn copy_file(perturber: &Perturber<'_>, pid: &str) -> PathBuf {
    perturber.database_dir(pid).join(format!("{pid}.sqlite"))
}

/// The journal header of `perturb`: its plan, the inputs by content (the
/// questions, the databases perturbed, tables.json, the split's file, the
/// predictions, the dictionary, renames and rules files, the reference's
/// golds), the engines' versions.
fn perturb_header(
    plan: &PerturbPlan<'_>,
    perturber: &Perturber<'_>,
    databases: &[String],
) -> Result<Header, RunError> {
    let mut h = Header::new(RunSpec::Perturb(plan.spec.clone()), None);
    let bench = perturber.benchmark();
    let wanted: BTreeSet<&str> = databases.iter().map(String::as_str).collect();
    let selected: Vec<usize> = bench
        .questions
        .iter()
        .filter(|q| wanted.contains(q.db_id.as_str()))
        .map(|q| q.id)
        .collect();
    sqlwitness_run::hash_inputs(&mut h, bench, &selected, None)?;
    // A database without questions is perturbed too (and skipped).
    for db in databases {
        h.inputs.entry(format!("database {db}")).or_insert_with(|| {
            let path = bench.sqlite_path(db);
            sqlwitness_run::file_sha256(&path).unwrap_or_else(|_| "missing".into())
        });
    }
    let o = &plan.options;
    let mut file = |role: &str, path: &Path| -> Result<(), RunError> {
        h.inputs
            .insert(role.to_string(), sqlwitness_run::file_sha256(path)?);
        Ok(())
    };
    file("tables.json", &o.bench.join("tables.json"))?;
    file("split file", &bench.source_file)?;
    for (role, path) in [
        ("predictions", &o.predictions),
        ("dictionary", &o.dictionary),
        ("renames", &o.renames),
        ("content rules", &o.content_rules),
    ] {
        if let Some(p) = path {
            file(role, p)?;
        }
    }
    if let Some(r) = &plan.reference {
        let golds = r.golds.join("\u{1}");
        h.inputs.insert(
            format!("golds {}", r.engine.kind()),
            sqlwitness_run::sha256_hex(golds.as_bytes()),
        );
        h.servers
            .insert(r.engine.kind().to_string(), r.engine.info().version.clone());
    }
    h.servers
        .insert("sqlite".into(), perturber.sqlite().info().version.clone());
    Ok(h)
}

/// Builds the perturbed set of `plan`, one database at a time, each
/// recorded in the journal as it finishes; `progress` hears one line per
/// database perturbed here. With `--resume` the databases the journal holds
/// (their copies unchanged) are not perturbed again. Cancelling the plan's
/// token stops it between two questions ([`PerturbError::Interrupted`]);
/// the set's files are written only at the end, `mapping.json` last.
pub fn run_plan(plan: &PerturbPlan<'_>, progress: &dyn Fn(&str)) -> Result<Mapping, PerturbError> {
    let perturber = Perturber::new(&plan.options, plan.reference.as_ref())?;
    let out = &plan.options.out;
    let databases = perturber.databases();
    let header = perturb_header(plan, &perturber, &databases)?;
    let journal_path = out.join(sqlwitness_run::JOURNAL_FILE);
    let resuming =
        plan.journal == JournalMode::Resume && std::fs::symlink_metadata(&journal_path).is_ok();
    if !resuming {
        if journal_path.exists() && plan.journal != JournalMode::Off {
            return Err(PerturbError::Input(format!(
                "{}: the output folder holds the journal of an earlier run ({}): continue \
                 that run with --resume (and its options), or give a new or empty folder",
                out.display(),
                journal_path.display()
            )));
        }
        crate::empty_output(out)?;
    }
    let (journal, done) = Journal::open::<PerturbRecord>(out, &header, plan.journal, &plan.cancel)?;
    let journal = Arc::new(journal);
    let sqlite: Arc<dyn Engine> = perturber.sqlite();
    let _hooks = plan.cancel.run_hooks(
        &journal,
        std::iter::once(sqlite).chain(plan.reference_engine.clone()),
    );
    let cancelled = || plan.cancel.is_cancelled();
    let mut outcomes: BTreeMap<String, DatabaseOutcome> = BTreeMap::new();
    if resuming {
        // A later record of a database replaces an earlier one; a record
        // whose copies changed since is perturbed again.
        let mut records: BTreeMap<String, PerturbRecord> = BTreeMap::new();
        for r in done {
            records.insert(r.outcome.db_id.clone(), r);
        }
        for (db, r) in records {
            if databases.contains(&db) && unchanged(&perturber, &r)? {
                outcomes.insert(db, r.outcome);
            }
        }
        clear_unfinished(&perturber, out, &outcomes)?;
        progress(&format!(
            "resume: {} databases from the journal, {} to perturb",
            outcomes.len(),
            databases.len() - outcomes.len()
        ));
    }
    for db in &databases {
        if outcomes.contains_key(db) {
            continue;
        }
        if cancelled() {
            return Err(PerturbError::Interrupted);
        }
        let outcome = perturber.database(db, &cancelled)?;
        if cancelled() {
            // Its queries may have been cancelled: not kept.
            for d in &outcome.databases {
                let _ = std::fs::remove_dir_all(perturber.database_dir(&d.db_id));
            }
            return Err(PerturbError::Interrupted);
        }
        let mut files = BTreeMap::new();
        for d in &outcome.databases {
            files.insert(
                d.db_id.clone(),
                sqlwitness_run::file_sha256(&copy_file(&perturber, &d.db_id))?,
            );
        }
        journal.record(&PerturbRecord {
            outcome: outcome.clone(),
            files,
        })?;
        if let Some(line) = outcome.progress_line() {
            progress(&line);
        }
        outcomes.insert(db.clone(), outcome);
    }
    if cancelled() {
        return Err(PerturbError::Interrupted);
    }
    journal.stop();
    let ordered: Vec<DatabaseOutcome> = databases
        .iter()
        .filter_map(|db| outcomes.remove(db))
        .collect();
    perturber.finish(&ordered)
}

/// Whether every perturbed copy of a journal's record is in the output
/// folder as it was written.
fn unchanged(perturber: &Perturber<'_>, r: &PerturbRecord) -> Result<bool, RunError> {
    for d in &r.outcome.databases {
        let path = copy_file(perturber, &d.db_id);
        if !path.is_file() || r.files.get(&d.db_id) != Some(&sqlwitness_run::file_sha256(&path)?) {
            return Ok(false);
        }
    }
    Ok(r.files.len() == r.outcome.databases.len())
}

/// Before a run continues: the set's files of an earlier end removed
/// (`mapping.json` first: the set is finished only when it is written
/// again), and every folder of `database/` that is not a copy of a
/// database in `kept` (a database in flight when the run stopped).
fn clear_unfinished(
    perturber: &Perturber<'_>,
    out: &Path,
    kept: &BTreeMap<String, DatabaseOutcome>,
) -> Result<(), RunError> {
    let mut names = perturber.output_files();
    names.reverse();
    for name in names {
        for file in [out.join(&name), out.join(format!("{name}.partial"))] {
            match std::fs::remove_file(&file) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(RunError::io(format!("removing {}", file.display()), e))
                }
                _ => {}
            }
        }
    }
    let copies: BTreeSet<&str> = kept
        .values()
        .flat_map(|o| o.databases.iter().map(|d| d.db_id.as_str()))
        .collect();
    let dir = out.join("database");
    std::fs::create_dir_all(&dir)
        .map_err(|e| RunError::io(format!("creating {}", dir.display()), e))?;
    let entries = std::fs::read_dir(&dir)
        .map_err(|e| RunError::io(format!("reading {}", dir.display()), e))?;
    for entry in entries {
        let entry = entry.map_err(|e| RunError::io(format!("reading {}", dir.display()), e))?;
        let name = entry.file_name();
        if copies.contains(name.to_string_lossy().as_ref()) {
            continue;
        }
        let path = entry.path();
        let removed = if entry.file_type().is_ok_and(|t| t.is_dir()) {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        removed.map_err(|e| RunError::io(format!("removing {}", path.display()), e))?;
    }
    Ok(())
}
