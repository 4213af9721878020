//! Running a prediction against the gold on every instance of a suite.
//!
//! The gold's result on each instance is computed once and cached (keyed by
//! database, instance and the SQL text actually run), so a prediction file
//! costs one execution per instance for the prediction and one per distinct
//! gold — the official evaluator reruns the gold for every prediction.
//! Instances are checked in suite order and the check stops at the first
//! instance where the results differ, as the official evaluator does.

use sqlwitness_dialect::EngineFacts;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};
use sqlwitness_core::compare::CompareOptions;
use sqlwitness_core::{Database, DbError, Engine, EngineKind, QueryLimits, ResultSet};

use crate::distill::suite_db_dir;
use crate::generate::Stress;
use crate::judge::Judge;
use crate::manifest::Manifest;
use crate::schema::{read_schema_with, DbSchema, ForeignKeySpec};
use crate::shrink::{shrink_witness, Witness};
use crate::FuzzError;

/// Databases tried per witness when shrinking.
pub(crate) const SHRINK_TRIALS: usize = 400;

/// The longest name every server engine accepts (each dialect file's
/// `identifiers.max_length`; PostgreSQL's 63 today): suite namespaces stay
/// within it, so one suite migrates to every engine.
fn max_namespace() -> usize {
    EngineKind::all()
        .into_iter()
        .filter(|k| k.is_server())
        .map(|k| sqlwitness_dialect::shipped(k).identifiers.max_length)
        .min()
        .unwrap_or(63)
}

/// The most instances one database's suite may list: every question of the
/// database runs on each, and on every server engine each is a namespace
/// of its own while the run lasts. `fuzz` keeps at most `--candidates`
/// instances, which it caps at this number.
pub const MAX_INSTANCES_PER_DATABASE: usize = 1_000;

/// The most instances a suite may list over all its databases: what bounds
/// the namespaces one `eval --suite` run creates on each server engine.
pub const MAX_SUITE_INSTANCES: usize = 10_000;

/// Which folder the files a suite's manifest names must resolve inside.
const SUITE_FOLDER: &str = "the suite folder";

/// Engine, `db_id`, instance index and the SQL text run.
type GoldKey = (EngineKind, String, usize, String);
type Cached = Arc<Result<ResultSet, DbError>>;

/// The server namespace (PostgreSQL schema, MySQL database) of instance
/// `k` (0-based, in suite order) of `db_id`'s suite under the run's
/// namespace prefix (`--namespace-prefix`, like every copy sqlwitness
/// makes): `<prefix><db_id>__s<k+1>`, or, when that would exceed the
/// shortest server name limit (63 bytes), a cut of it plus 8 hex digits of
/// its SHA-256 so distinct databases keep distinct namespaces.
pub fn suite_namespace(prefix: &str, db_id: &str, k: usize) -> String {
    let db_id = &format!("{prefix}{db_id}");
    let suffix = format!("__s{}", k + 1);
    let max = max_namespace();
    if db_id.len() + suffix.len() <= max {
        return format!("{db_id}{suffix}");
    }
    let hash: String = Sha256::digest(db_id.as_bytes())
        .iter()
        .take(4)
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut cut = max - suffix.len() - hash.len() - 1;
    while !db_id.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}_{hash}{suffix}", &db_id[..cut])
}

/// A suite folder, opened for evaluation.
pub struct SuiteSet {
    root: PathBuf,
    /// Instance files per `db_id` (the original is not included: the
    /// caller's normal verdict covers it).
    instances: BTreeMap<String, Vec<PathBuf>>,
    /// Per `db_id`: the suite's seed and its copy of the original database
    /// (for `--hunt`).
    pub(crate) origins: BTreeMap<String, Origin>,
    /// The original's schema with its constraints, read when first needed.
    schemas: Mutex<HashMap<String, Arc<DbSchema>>>,
    gold_cache: Mutex<HashMap<GoldKey, Cached>>,
    /// `(engine, db_id)` whose instances could not be migrated, with why.
    unavailable: Mutex<HashMap<(EngineKind, String), String>>,
    /// Runs the reference's gold in the gold self-check
    /// ([`SuiteSet::check_against_reference`]): the run's reference
    /// ([`SuiteSet::with_reference`]), by default the engine reading the
    /// instance files in place.
    reference: Arc<dyn Engine>,
    /// The namespace prefix of the instances' copies on the servers.
    prefix: String,
    pub(crate) executions: AtomicU64,
    cache_hits: AtomicU64,
}

/// Where a database's suite came from: what `--hunt` and the shrinker need
/// to keep the suite's rules.
#[derive(Debug, Clone)]
pub(crate) struct Origin {
    pub seed: u64,
    /// The suite's copy of the original database.
    pub original: PathBuf,
    pub extra_keys: Vec<ForeignKeySpec>,
    pub stress: Stress,
}

/// The verdict of a prediction on a suite.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteVerdict {
    /// Equal to the gold on every instance where the gold runs.
    pub passed: bool,
    pub instances: usize,
    /// Instances checked before stopping.
    pub checked: usize,
    /// Instances where the gold itself fails (skipped).
    pub gold_failures: usize,
    pub failure: Option<SuiteFailure>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SuiteFailure {
    /// The instance's file name (or, for `--hunt`, which generated instance).
    pub instance: String,
    /// `values`, `row_count` … or `pred_error: <message>`.
    pub reason: String,
    pub witness: Option<Witness>,
}

/// The two sides compared on every instance.
enum Sides<'a> {
    /// The gold (cached) against a prediction, both on the engine.
    Pred { gold: &'a str, pred: &'a str },
    /// Gold self-check: the reference's gold (cached) against the
    /// engine's gold (cached) on the same instance.
    Reference {
        reference_gold: &'a str,
        gold: &'a str,
    },
}

impl SuiteSet {
    /// Opens the suite folder `root` (its `manifest.json` and
    /// `database/<db_id>/` folders). A suite is input like a benchmark (it
    /// may be downloaded), so its manifest is checked before anything of
    /// it is used (see [`MAX_INSTANCES_PER_DATABASE`],
    /// [`MAX_SUITE_INSTANCES`]): every `db_id` is a name, not a path;
    /// every instance and original file resolves, links followed, to a
    /// regular file inside `root`; no file is listed twice among a
    /// database's instances; and the instances stay within the bounds. A
    /// manifest that breaks one is refused naming the database, the entry
    /// and the name as written, never anything of the file it names.
    pub fn open(root: &Path) -> Result<SuiteSet, FuzzError> {
        let manifest_path = root.join("manifest.json");
        if !manifest_path.is_file() {
            return Err(FuzzError::Manifest {
                path: manifest_path,
                message: "no manifest.json: not a suite folder (run `sqlwitness fuzz`)".into(),
            });
        }
        let manifest = Manifest::read(&manifest_path)?;
        let bad = |message: String| FuzzError::Manifest {
            path: manifest_path.clone(),
            message,
        };
        let total: usize = manifest.databases.values().map(|s| s.instances.len()).sum();
        if total > MAX_SUITE_INSTANCES {
            return Err(bad(format!(
                "{total} instances: a suite may have at most {MAX_SUITE_INSTANCES} (split it \
                 into suites of fewer databases)"
            )));
        }
        let mut instances = BTreeMap::new();
        let mut origins = BTreeMap::new();
        for (db_id, suite) in &manifest.databases {
            if let Some(why) = sqlwitness_bench::db_id_problem(db_id) {
                return Err(bad(format!("databases: {why}")));
            }
            if suite.instances.len() > MAX_INSTANCES_PER_DATABASE {
                return Err(bad(format!(
                    "{db_id}: {} instances: a database's suite may have at most \
                     {MAX_INSTANCES_PER_DATABASE}",
                    suite.instances.len()
                )));
            }
            let dir = suite_db_dir(root, db_id);
            let file = |what: &str, named: &str| {
                sqlwitness_bench::side_file(root, &dir, Path::new(named), SUITE_FOLDER)
                    .map_err(|why| bad(format!("{db_id}: {what}: file {named:?}: {why}")))
            };
            let mut files: Vec<PathBuf> = Vec::new();
            let mut seen: HashMap<PathBuf, usize> = HashMap::new();
            for (k, inst) in suite.instances.iter().enumerate() {
                let p = file(&format!("instance {k}"), &inst.file)?;
                if let Some(first) = seen.insert(p.clone(), k) {
                    return Err(bad(format!(
                        "{db_id}: instance {k}: file {:?} is the file of instance {first}: \
                         each instance is listed once",
                        inst.file
                    )));
                }
                files.push(p);
            }
            let original = file("original", &suite.original)?;
            instances.insert(db_id.clone(), files);
            let stress =
                Stress::parse(&suite.stress.join(",")).map_err(|m| bad(format!("{db_id}: {m}")))?;
            origins.insert(
                db_id.clone(),
                Origin {
                    seed: suite.seed,
                    original,
                    extra_keys: suite.extra_foreign_keys.clone(),
                    stress,
                },
            );
        }
        Ok(SuiteSet {
            root: root.to_path_buf(),
            instances,
            origins,
            schemas: Mutex::new(HashMap::new()),
            gold_cache: Mutex::new(HashMap::new()),
            unavailable: Mutex::new(HashMap::new()),
            reference: crate::files::instance_engine()?,
            prefix: sqlwitness_core::DEFAULT_NAMESPACE_PREFIX.to_string(),
            executions: AtomicU64::new(0),
            cache_hits: AtomicU64::new(0),
        })
    }

    /// The suite with its instances' server copies under `prefix` (the
    /// run's `--namespace-prefix`; `sw_` unless set).
    pub fn with_prefix(mut self, prefix: &str) -> Self {
        self.prefix = prefix.to_string();
        self
    }

    /// The suite with `engine` as the reference of the gold self-check
    /// ([`SuiteSet::check_against_reference`]): the run's reference
    /// engine. An engine on copies of its own reads each instance in its
    /// namespace ([`suite_namespace`]), which the caller migrates first.
    pub fn with_reference(mut self, engine: Arc<dyn Engine>) -> Self {
        self.reference = engine;
        self
    }

    /// The engine the gold self-check compares with.
    pub fn reference(&self) -> &dyn Engine {
        self.reference.as_ref()
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Instance files of `db_id`, when the suite has the database.
    pub fn instances(&self, db_id: &str) -> Option<&[PathBuf]> {
        self.instances.get(db_id).map(Vec::as_slice)
    }

    /// The databases of the suite.
    pub fn db_ids(&self) -> impl Iterator<Item = &str> {
        self.instances.keys().map(String::as_str)
    }

    /// Instance `k` of `db_id` as a [`Database`]: the SQLite file, and on
    /// the servers the namespace [`suite_namespace`] (what the migration of
    /// the instance creates).
    pub fn instance_database(&self, db_id: &str, k: usize) -> Option<Database> {
        let path = self.instances.get(db_id)?.get(k)?;
        let mut db = Database::new(db_id, path);
        db.namespace = suite_namespace(&self.prefix, db_id, k);
        Some(db)
    }

    /// Records that `db_id`'s instances are not usable on `kind` (a failed
    /// migration); [`SuiteSet::check`] then gives no verdict there.
    pub fn set_unavailable(&self, kind: EngineKind, db_id: &str, reason: String) {
        self.unavailable
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert((kind, db_id.to_string()), reason);
    }

    /// Why `db_id`'s instances are not usable on `kind`, if they are not.
    pub fn unavailable(&self, kind: EngineKind, db_id: &str) -> Option<String> {
        self.unavailable
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&(kind, db_id.to_string()))
            .cloned()
    }

    /// The original schema of `db_id` with the constraints its instances
    /// keep (cached).
    pub(crate) fn schema(&self, db_id: &str) -> Result<Arc<DbSchema>, FuzzError> {
        if let Some(s) = self
            .schemas
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(db_id)
        {
            return Ok(Arc::clone(s));
        }
        let origin = self.origins.get(db_id).ok_or_else(|| FuzzError::Manifest {
            path: self.root.join("manifest.json"),
            message: format!("no suite for `{db_id}`"),
        })?;
        let schema = Arc::new(read_schema_with(
            db_id,
            &origin.original,
            &origin.extra_keys,
        )?);
        self.schemas
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(db_id.to_string(), Arc::clone(&schema));
        Ok(schema)
    }

    /// Queries run so far (gold and prediction) on instances.
    pub fn executions(&self) -> u64 {
        self.executions.load(Ordering::Relaxed)
    }

    /// Gold results served from the cache.
    pub fn cache_hits(&self) -> u64 {
        self.cache_hits.load(Ordering::Relaxed)
    }

    fn cached(
        &self,
        engine: &dyn Engine,
        db: &Database,
        k: usize,
        sql: &str,
        limits: &QueryLimits,
    ) -> Cached {
        let key = (engine.kind(), db.db_id.clone(), k, sql.to_string());
        if let Some(r) = self
            .gold_cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            self.cache_hits.fetch_add(1, Ordering::Relaxed);
            return Arc::clone(r);
        }
        self.executions.fetch_add(1, Ordering::Relaxed);
        let r = Arc::new(engine.execute(db, sql, limits));
        self.gold_cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, Arc::clone(&r));
        r
    }

    /// Runs `pred` against `gold` (both as they are to be sent to
    /// `engine`) on every instance of `db_id`'s suite. On PostgreSQL and
    /// MySQL the instances are the namespaces [`suite_namespace`], which
    /// the caller migrates first. `None` when the suite has no such
    /// database or its instances are unavailable on the engine. With
    /// `shrink`, on the engine that reads the instance files in place
    /// ([`sqlwitness_engines::IN_PLACE`]: the shrinker writes files like
    /// them), the first failing instance is shrunk to a witness.
    #[allow(clippy::too_many_arguments)]
    pub fn check(
        &self,
        engine: &dyn Engine,
        db_id: &str,
        gold: &str,
        pred: &str,
        opts: &CompareOptions,
        limits: &QueryLimits,
        shrink: bool,
    ) -> Option<SuiteVerdict> {
        self.run(
            engine,
            db_id,
            Sides::Pred { gold, pred },
            opts,
            limits,
            shrink,
        )
    }

    /// Gold self-check: on every instance, the gold's result on `engine`
    /// (`gold`, as sent there) against its result on the suite's
    /// reference ([`SuiteSet::with_reference`]; `reference_gold`, as sent
    /// there), whose answer is the one that judges. Both are cached.
    pub fn check_against_reference(
        &self,
        engine: &dyn Engine,
        db_id: &str,
        reference_gold: &str,
        gold: &str,
        opts: &CompareOptions,
        limits: &QueryLimits,
    ) -> Option<SuiteVerdict> {
        self.run(
            engine,
            db_id,
            Sides::Reference {
                reference_gold,
                gold,
            },
            opts,
            limits,
            false,
        )
    }

    fn run(
        &self,
        engine: &dyn Engine,
        db_id: &str,
        sides: Sides<'_>,
        opts: &CompareOptions,
        limits: &QueryLimits,
        shrink: bool,
    ) -> Option<SuiteVerdict> {
        let files = self.instances.get(db_id)?;
        if self.unavailable(engine.kind(), db_id).is_some() {
            return None;
        }
        let mut verdict = SuiteVerdict {
            passed: true,
            instances: files.len(),
            checked: 0,
            gold_failures: 0,
            failure: None,
        };
        for (k, path) in files.iter().enumerate() {
            let db = self.instance_database(db_id, k)?;
            let (g, p): (Cached, Cached) = match sides {
                Sides::Pred { gold, pred } => {
                    let g = self.cached(engine, &db, k, gold, limits);
                    if g.is_err() {
                        verdict.checked += 1;
                        verdict.gold_failures += 1;
                        continue;
                    }
                    self.executions.fetch_add(1, Ordering::Relaxed);
                    (g, Arc::new(engine.execute(&db, pred, limits)))
                }
                Sides::Reference {
                    reference_gold,
                    gold,
                } => {
                    let g = self.cached(self.reference(), &db, k, reference_gold, limits);
                    if g.is_err() {
                        verdict.checked += 1;
                        verdict.gold_failures += 1;
                        continue;
                    }
                    (g, self.cached(engine, &db, k, gold, limits))
                }
            };
            verdict.checked += 1;
            // The tie window is the gold's on the engine that ran it.
            let (judge_engine, judge_gold): (&dyn Engine, &str) = match sides {
                Sides::Pred { gold, .. } => (engine, gold),
                Sides::Reference { reference_gold, .. } => (self.reference(), reference_gold),
            };
            let judge_dialects = sqlwitness_sql::sqlite_first(judge_engine.kind());
            if !Judge::new(judge_engine, &db, judge_gold, limits, &judge_dialects)
                .differs(&g, &p, opts)
            {
                continue;
            }
            let reason = match (&*g, &*p) {
                (Ok(g), Ok(p)) => sqlwitness_core::compare::compare(g, p, opts)
                    .reason
                    .map_or("values".to_string(), |r| r.as_str().to_string()),
                (_, Err(e)) => format!("pred_error: {}", e.message),
                _ => "values".into(),
            };
            let witness = match sides {
                Sides::Pred { gold, pred }
                    if shrink && p.is_ok() && engine.kind() == sqlwitness_engines::IN_PLACE =>
                {
                    self.schema(db_id).ok().and_then(|schema| {
                        shrink_witness(&schema, path, gold, pred, opts, limits, SHRINK_TRIALS)
                            .ok()
                            .flatten()
                    })
                }
                _ => None,
            };
            verdict.passed = false;
            verdict.failure = Some(SuiteFailure {
                instance: path
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                reason,
                witness,
            });
            break;
        }
        Some(verdict)
    }
}
