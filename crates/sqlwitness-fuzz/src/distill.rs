//! Test-suite distillation (Zhong, Yu and Klein 2020, §3.2): generate
//! neighbour queries of every gold, drop those the original database already
//! tells apart, generate candidate instances until every remaining
//! neighbour is killed (or the budget is spent), and keep a small set of
//! candidates by greedy set cover — repeatedly the candidate that kills the
//! most neighbours not yet killed (ties: the earlier candidate).

use sqlwitness_migrate::Unplaced;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::neighbors::{gold_literals, neighbors, GoldLiteral, NeighborOptions};
use sqlwitness_core::compare::{compare, CompareOptions};
use sqlwitness_core::{Database, DbError, Engine, QueryLimits, ResultSet, Value};
use sqlwitness_migrate::{drop_namespace, migrate_database, MigrateOptions, MigrationTarget};
use sqlwitness_sql::Dialects;

use crate::generate::{write_instance, InstanceSizes, Pools, Stress};
use crate::judge::Judge;
use crate::manifest::{
    Constraints, Counts, DbSuite, Fate, GoldEntry, InstanceEntry, NeighborEntry, ServerSuite,
    MIGRATED_TYPES, ORIGINAL_TYPES, TIE_AWARE,
};
use crate::rng::Rng;
use crate::schema::{read_schema_with, DbSchema, ForeignKeySpec};
use crate::FuzzError;

/// How a suite is built.
#[derive(Debug, Clone)]
pub struct FuzzOptions {
    pub seed: u64,
    /// At most this many candidate instances per database.
    pub candidates: usize,
    /// Candidates are generated in batches of this size; generation stops
    /// after a batch when every neighbour has been killed.
    pub batch: usize,
    /// At most this many neighbours per gold (the first ones, in the
    /// generator's deterministic order).
    pub max_neighbors: usize,
    pub limits: QueryLimits,
    /// Rules instances break on purpose (none by default).
    pub stress: Stress,
}

impl Default for FuzzOptions {
    fn default() -> Self {
        FuzzOptions {
            seed: 42,
            candidates: 100,
            batch: 20,
            max_neighbors: 60,
            limits: QueryLimits {
                timeout: std::time::Duration::from_secs(5),
                max_rows: 200_000,
                ..QueryLimits::default()
            },
            stress: Stress::default(),
        }
    }
}

/// One gold query of the database.
#[derive(Debug, Clone)]
pub struct GoldQuery {
    pub question: usize,
    pub sql: String,
}

/// The folder of `db_id` in a suite: `<suites>/database/<db_id>/`.
pub fn suite_db_dir(suites: &Path, db_id: &str) -> PathBuf {
    suites.join("database").join(db_id)
}

/// See `build_db_suite`: candidates enough per neighbour.
const ENOUGH_KILLERS: usize = 3;

fn ordered_in(gold: &str, dialects: Dialects<'_>) -> CompareOptions {
    CompareOptions::default()
        .ordered(sqlwitness_sql::has_top_level_order_by(gold, dialects).unwrap_or(false))
}

/// A server engine that distillation runs the golds and their neighbours
/// on instead of SQLite (`fuzz --reference`). The schema and the data are
/// still learned from the SQLite file and instances are still written as
/// SQLite files; the original is the database's copy on the server (for a
/// benchmark imported from a dump, the copy with the dump's own types),
/// and each candidate is migrated into a scratch namespace by the ordinary
/// migration (every table verified; where the original is a dump's
/// own-typed copy, with its column types and read back in full, else with
/// the types inferred from the SQLite instance), read there, and dropped.
pub struct ServerReference<'a> {
    /// The engine the queries run on (its reader login).
    pub engine: &'a dyn Engine,
    /// Where the candidates are migrated (the administrative URL).
    pub target: MigrationTarget,
    /// The namespace prefix of the run (`sw_`): the original is
    /// `<prefix><db_id>`, candidate `k` `<prefix><db_id>__c<k>`.
    pub prefix: String,
    pub migrate: MigrateOptions,
    /// The run's own login `engine` reads over, when it has one: granted
    /// read access to each candidate's namespace as it is made.
    pub login: Option<&'a sqlwitness_engines::RunLogin>,
}

impl ServerReference<'_> {
    /// The database the original's queries read on the server.
    pub fn original(&self, db_id: &str, sqlite: &Path) -> Database {
        Database::with_prefix(db_id, sqlite, &self.prefix)
    }

    /// Candidate `k` (its SQLite file `path`) migrated and verified into
    /// its scratch namespace, or why not (the namespace is then dropped).
    ///
    /// The candidate's columns take the original's types where the original
    /// is a dump's own-typed copy (see [`sqlwitness_migrate::TypesFrom`]);
    /// the `bool` says whether any did.
    fn place(&self, db_id: &str, k: usize, path: &Path) -> Result<(Database, bool), Unplaced> {
        let db = Database {
            db_id: db_id.to_string(),
            sqlite_path: path.to_path_buf(),
            namespace: sqlwitness_core::namespace_for(
                &self.prefix,
                &format!("{db_id}__c{}", k + 1),
            ),
        };
        let migrate = MigrateOptions {
            types_from: Some(sqlwitness_migrate::TypesFrom {
                namespace: self.original(db_id, path).namespace,
                ..Default::default()
            }),
            ..self.migrate.clone()
        };
        let mut typed = false;
        // Recorded on the server before it is made: a run killed before it
        // drops the copy leaves it to the next command's sweep.
        if let Err(e) =
            sqlwitness_engines::lease_namespace(self.target.engine, &self.target.url, &db.namespace)
        {
            return Err(Unplaced::Unverified(format!(
                "not recorded on the server before it was made: {}",
                e.message
            )));
        }
        let problem = match migrate_database(&db, &self.target, &migrate) {
            Ok(r) => r.problem().map(Unplaced::Unverified).or_else(|| {
                typed = r.column_types.as_ref().is_some_and(|c| c.columns_typed > 0);
                self.login
                    .and_then(|l| l.grant_database(&db.namespace).err())
                    .map(Unplaced::NotGranted)
            }),
            Err(e) => Some(Unplaced::Migration(e)),
        };
        match problem {
            None => Ok((db, typed)),
            Some(p) => {
                self.remove(&db);
                Err(p)
            }
        }
    }

    fn remove(&self, db: &Database) {
        // A scratch namespace that cannot be dropped is left behind
        // stamped; the next run with the same prefix replaces it.
        if drop_namespace(&self.target, &db.namespace).is_ok() {
            sqlwitness_engines::unlease_namespace(
                self.target.engine,
                &self.target.url,
                &db.namespace,
            );
        }
    }
}

pub(crate) fn differs(
    a: &Result<ResultSet, DbError>,
    b: &Result<ResultSet, DbError>,
    opts: &CompareOptions,
) -> bool {
    match (a, b) {
        (Ok(a), Ok(b)) => !compare(a, b, opts).equal,
        (Ok(_), Err(_)) => true,
        _ => false,
    }
}

/// Candidate values for a text literal compared with `column`: the text
/// values stored in any column of that name.
fn text_values(schema: &DbSchema, column: &str) -> Vec<String> {
    let mut out = Vec::new();
    for t in &schema.tables {
        for c in &t.columns {
            if c.name.eq_ignore_ascii_case(column) {
                for v in &c.originals {
                    if let Value::Text(s) = v {
                        if !out.contains(s) {
                            out.push(s.clone());
                        }
                    }
                }
            }
        }
    }
    out
}

struct Pending {
    gold: usize,
    neighbor: usize,
    sql: String,
}

/// Builds the suite of `db_id`: writes `<suites>/database/<db_id>/` (the
/// original copied byte for byte plus `<db_id>_<k>.sqlite`, k = 1…) and
/// returns its manifest entry. `extra_keys` are foreign keys the SQLite
/// file does not declare (Spider's `tables.json`); instances keep them
/// as far as the original data does.
pub fn build_db_suite(
    db_id: &str,
    original: &Path,
    golds: &[GoldQuery],
    extra_keys: &[ForeignKeySpec],
    suites: &Path,
    opts: &FuzzOptions,
) -> Result<DbSuite, FuzzError> {
    build_db_suite_on(db_id, original, golds, extra_keys, suites, opts, None)
}

/// [`build_db_suite`] with the golds (written for `reference`'s engine)
/// and their neighbours run on a server engine ([`ServerReference`]).
pub fn build_db_suite_on(
    db_id: &str,
    original: &Path,
    golds: &[GoldQuery],
    extra_keys: &[ForeignKeySpec],
    suites: &Path,
    opts: &FuzzOptions,
    reference: Option<&ServerReference<'_>>,
) -> Result<DbSuite, FuzzError> {
    let mut schema = read_schema_with(db_id, original, extra_keys)?;
    // Candidates take the dump copy's column types on the reference: their
    // values stay inside those types.
    if let Some(r) = reference {
        let ns = r.original(db_id, original).namespace;
        if let Some(types) = sqlwitness_migrate::dump_copy_column_types(&r.target, &ns) {
            crate::type_limits::apply(&mut schema, &types, r.engine.kind());
        }
    }
    let dialects: Vec<sqlwitness_dialect::Grammar> = match reference {
        Some(r) => {
            sqlwitness_sql::written_for(sqlwitness_dialect::builtin(r.engine.kind()).grammar)
        }
        None => sqlwitness_sql::SQLITE_ONLY.to_vec(),
    };
    // Without an engine on copies of its own, the golds run on the
    // candidates' files in place.
    let in_place;
    let engine: &dyn Engine = match reference {
        Some(r) => r.engine,
        None => {
            in_place = crate::files::instance_engine()?;
            in_place.as_ref()
        }
    };
    let run = SuiteRun {
        db_id,
        golds,
        opts,
        reference,
        engine,
        dialects: &dialects,
    };
    let orig_db = match reference {
        Some(r) => r.original(db_id, original),
        None => Database::new(db_id, original),
    };
    let (mut entries, pending, literals) = run.neighbours_on_original(&schema, &orig_db);
    let pools = Pools::new(&schema, &literals);
    let work = tempfile::tempdir().map_err(|e| FuzzError::io(Path::new("tempdir"), e))?;
    let generated = run.candidates(&schema, &pools, &pending, work.path())?;
    let kill_sets: Vec<&BTreeSet<usize>> = generated.list.iter().map(|(_, _, k)| k).collect();
    let chosen = set_cover(&kill_sets);
    let original_name = format!("{db_id}.sqlite");
    let instances = write_suite(
        suites,
        db_id,
        original,
        &original_name,
        &generated,
        &chosen,
        &pending,
        &mut entries,
    )?;
    let counts = Counts {
        golds: golds.len(),
        instances_kept: instances.len(),
        rejected: generated.rejected.len(),
        ..count_fates(&entries)
    };
    Ok(DbSuite {
        seed: opts.seed,
        stress: opts.stress.names(),
        comparison: TIE_AWARE.to_string(),
        extra_foreign_keys: extra_keys.to_vec(),
        constraints: Constraints::of(&schema),
        candidates: generated.produced,
        reference: reference.map(|r| ServerSuite {
            engine: r.engine.kind().as_str().to_string(),
            original: orig_db.namespace.clone(),
            column_types: if generated.typed_any {
                ORIGINAL_TYPES
            } else {
                MIGRATED_TYPES
            }
            .to_string(),
            rejected: generated.rejected,
        }),
        original: original_name,
        instances,
        golds: entries,
        counts,
    })
}

/// What one database's suite runs on: the golds, the engine that runs
/// them and their neighbours (SQLite, or the server reference), and the
/// dialects their text is read in.
struct SuiteRun<'a> {
    db_id: &'a str,
    golds: &'a [GoldQuery],
    opts: &'a FuzzOptions,
    reference: Option<&'a ServerReference<'a>>,
    engine: &'a dyn Engine,
    dialects: &'a [sqlwitness_dialect::Grammar],
}

/// The generated candidates: each file, its sizes and the neighbours
/// (indexes into the pending ones) it kills; how many were generated, and
/// those the reference's migration did not verify.
struct Generated {
    list: Vec<(PathBuf, InstanceSizes, BTreeSet<usize>)>,
    produced: usize,
    rejected: Vec<String>,
    /// Some candidate took column types from the original copy.
    typed_any: bool,
}

impl SuiteRun<'_> {
    /// Every gold and its neighbours on the original: the manifest's
    /// entries (a gold that fails or has no neighbours is skipped, a
    /// neighbour that fails is invalid, one that answers otherwise is
    /// killed by the original), the neighbours still alive, and the
    /// literals of the golds and those neighbours (sorted, unique).
    fn neighbours_on_original(
        &self,
        schema: &DbSchema,
        orig_db: &Database,
    ) -> (Vec<GoldEntry>, Vec<Pending>, Vec<GoldLiteral>) {
        let (engine, opts, dialects) = (self.engine, self.opts, self.dialects);
        let names = schema.names();
        let is_column = |c: &str| {
            names
                .iter()
                .any(|(_, cols)| cols.iter().any(|x| x.eq_ignore_ascii_case(c)))
        };
        let tv = |c: &str| text_values(schema, c);
        let nopts = NeighborOptions {
            tables: &names,
            text_values: &tv,
            dialects,
            ..NeighborOptions::default()
        };
        let mut entries: Vec<GoldEntry> = Vec::new();
        let mut pending: Vec<Pending> = Vec::new();
        let mut literals: Vec<GoldLiteral> = Vec::new();
        for (gi, g) in self.golds.iter().enumerate() {
            let mut entry = GoldEntry {
                question: g.question,
                sql: g.sql.clone(),
                skipped: None,
                neighbors: Vec::new(),
            };
            let gold_rows = engine.execute(orig_db, &g.sql, &opts.limits);
            if let Err(e) = &gold_rows {
                entry.skipped = Some(format!("gold fails on the original: {}", e.message));
                entries.push(entry);
                continue;
            }
            literals.extend(gold_literals(&g.sql, &is_column, dialects).unwrap_or_default());
            let ns = match neighbors(&g.sql, &nopts) {
                Ok(ns) => ns,
                Err(e) => {
                    entry.skipped = Some(format!("no neighbours: {e}"));
                    entries.push(entry);
                    continue;
                }
            };
            let cmp = ordered_in(&g.sql, dialects);
            for (ni, n) in ns.into_iter().take(opts.max_neighbors).enumerate() {
                let rows = engine.execute(orig_db, &n.sql, &opts.limits);
                let (fate, reason) = match &rows {
                    Err(e) => (
                        Fate::Invalid,
                        Some(format!("fails on the original: {}", e.message)),
                    ),
                    Ok(_) if differs(&gold_rows, &rows, &cmp) => (Fate::KilledByOriginal, None),
                    Ok(_) => {
                        literals.extend(
                            gold_literals(&n.sql, &is_column, dialects).unwrap_or_default(),
                        );
                        pending.push(Pending {
                            gold: gi,
                            neighbor: ni,
                            sql: n.sql.clone(),
                        });
                        (Fate::Survived, None)
                    }
                };
                entry.neighbors.push(NeighborEntry {
                    id: format!("q{}.{ni}", g.question),
                    kind: n.kind.as_str().to_string(),
                    description: n.description,
                    sql: n.sql,
                    fate,
                    reason,
                });
            }
            entries.push(entry);
        }
        literals.sort();
        literals.dedup();
        (entries, pending, literals)
    }

    /// Generates candidates under `work` in batches, each run (placed on
    /// the reference first, when there is one) against the golds and the
    /// pending neighbours. A neighbour killed by `ENOUGH_KILLERS`
    /// candidates is not run on later ones (the set cover has choices
    /// enough), and generation stops after a batch that kills nothing new.
    fn candidates(
        &self,
        schema: &DbSchema,
        pools: &Pools,
        pending: &[Pending],
        work: &Path,
    ) -> Result<Generated, FuzzError> {
        let (engine, opts, dialects, golds) = (self.engine, self.opts, self.dialects, self.golds);
        let mut rng = Rng::derived(opts.seed, self.db_id);
        let mut out = Generated {
            list: Vec::new(),
            produced: 0,
            rejected: Vec::new(),
            typed_any: false,
        };
        let mut killed: BTreeSet<usize> = BTreeSet::new();
        let mut kill_counts: Vec<usize> = vec![0; pending.len()];
        while out.produced < opts.candidates && killed.len() < pending.len() {
            let killed_before = killed.len();
            for _ in 0..opts.batch.min(opts.candidates - out.produced) {
                let path = work.join(format!("c{}.sqlite", out.produced));
                out.produced += 1;
                let sizes = write_instance(schema, pools, opts.stress, &mut rng, &path)?;
                let db = match self.reference {
                    None => Database::new(self.db_id, &path),
                    Some(r) => match r.place(self.db_id, out.produced - 1, &path) {
                        Ok((db, typed)) => {
                            out.typed_any |= typed;
                            db
                        }
                        Err(why) => {
                            out.rejected
                                .push(format!("candidate {}: {why}", out.produced));
                            continue;
                        }
                    },
                };
                let mut kills = BTreeSet::new();
                let mut last_gold: Option<(usize, Result<ResultSet, DbError>, Judge<'_>)> = None;
                for (pi, p) in pending.iter().enumerate() {
                    if kill_counts[pi] >= ENOUGH_KILLERS {
                        continue;
                    }
                    if last_gold.as_ref().is_none_or(|(g, _, _)| *g != p.gold) {
                        let gold = golds[p.gold].sql.as_str();
                        let rows = engine.execute(&db, gold, &opts.limits);
                        let judge = match self.reference {
                            None => Judge::new(
                                engine,
                                &db,
                                gold,
                                &opts.limits,
                                &sqlwitness_sql::sqlite_first(engine.kind()),
                            ),
                            Some(_) => Judge::new(engine, &db, gold, &opts.limits, dialects),
                        };
                        last_gold = Some((p.gold, rows, judge));
                    }
                    let Some((_, gold_rows, judge)) = &mut last_gold else {
                        continue;
                    };
                    let rows = engine.execute(&db, &p.sql, &opts.limits);
                    if judge.differs(gold_rows, &rows, &ordered_in(&golds[p.gold].sql, dialects)) {
                        kills.insert(pi);
                    }
                }
                drop(last_gold);
                if let Some(r) = self.reference {
                    r.remove(&db);
                }
                killed.extend(kills.iter().copied());
                for &pi in &kills {
                    kill_counts[pi] += 1;
                }
                out.list.push((path, sizes, kills));
            }
            if killed.len() == killed_before {
                break;
            }
        }
        Ok(out)
    }
}

/// A greedy set cover of the kill sets: the candidates (indexes) to keep,
/// each killing the most neighbours not killed yet (the first on ties),
/// until none kills another.
fn set_cover(kill_sets: &[&BTreeSet<usize>]) -> Vec<usize> {
    let mut covered: BTreeSet<usize> = BTreeSet::new();
    let mut chosen: Vec<usize> = Vec::new();
    loop {
        let best = kill_sets
            .iter()
            .enumerate()
            .filter(|(i, _)| !chosen.contains(i))
            .map(|(i, k)| (k.difference(&covered).count(), i))
            .filter(|(n, _)| *n > 0)
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let Some((_, i)) = best else { break };
        covered.extend(kill_sets[i].iter().copied());
        chosen.push(i);
    }
    chosen
}

/// Writes the suite folder of `db_id` (the original byte for byte as
/// `original_name`, the `chosen` candidates as `<db_id>_<k>.sqlite`, older
/// instances removed), and marks each pending neighbour killed or says why
/// it survived. Returns the instances' manifest entries.
#[allow(clippy::too_many_arguments)]
fn write_suite(
    suites: &Path,
    db_id: &str,
    original: &Path,
    original_name: &str,
    generated: &Generated,
    chosen: &[usize],
    pending: &[Pending],
    entries: &mut [GoldEntry],
) -> Result<Vec<InstanceEntry>, FuzzError> {
    let dir = suite_db_dir(suites, db_id);
    if dir.exists() {
        for e in std::fs::read_dir(&dir).map_err(|e| FuzzError::io(&dir, e))? {
            let p = e.map_err(|e| FuzzError::io(&dir, e))?.path();
            if p.extension().is_some_and(|x| x == "sqlite") {
                std::fs::remove_file(&p).map_err(|e| FuzzError::io(&p, e))?;
            }
        }
    }
    std::fs::create_dir_all(&dir).map_err(|e| FuzzError::io(&dir, e))?;
    std::fs::copy(original, dir.join(original_name)).map_err(|e| FuzzError::io(original, e))?;
    let mut instances = Vec::new();
    let mut killers: Vec<Vec<String>> = vec![Vec::new(); pending.len()];
    for (k, &ci) in chosen.iter().enumerate() {
        let (path, sizes, kills) = &generated.list[ci];
        let file = format!("{db_id}_{}.sqlite", k + 1);
        let dest = dir.join(&file);
        std::fs::copy(path, &dest).map_err(|e| FuzzError::io(&dest, e))?;
        let mut ids = Vec::new();
        for &pi in kills {
            let p = &pending[pi];
            ids.push(entries[p.gold].neighbors[p.neighbor].id.clone());
            killers[pi].push(file.clone());
        }
        instances.push(InstanceEntry {
            file,
            rows: sizes.clone(),
            kills: ids,
        });
    }
    for (pi, p) in pending.iter().enumerate() {
        let n = &mut entries[p.gold].neighbors[p.neighbor];
        if killers[pi].is_empty() {
            n.reason = Some(format!(
                "same result as the gold on the original and on all {} generated candidates: \
                 equivalent, or the generator did not reach a distinguishing database",
                generated.produced
            ));
        } else {
            n.fate = Fate::Killed;
        }
    }
    Ok(instances)
}

/// The neighbours of `entries` counted by fate.
fn count_fates(entries: &[GoldEntry]) -> Counts {
    let mut counts = Counts::default();
    for n in entries.iter().flat_map(|e| &e.neighbors) {
        counts.neighbors += 1;
        match n.fate {
            Fate::Invalid => counts.invalid += 1,
            Fate::KilledByOriginal => counts.killed_by_original += 1,
            Fate::Killed => counts.killed_by_instances += 1,
            Fate::Survived => counts.survived += 1,
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cover_takes_the_candidate_killing_most_first_and_stops_when_none_adds() {
        let sets: Vec<BTreeSet<usize>> = vec![
            BTreeSet::from([0]),
            BTreeSet::from([0, 1, 2]),
            BTreeSet::from([2, 3]),
            BTreeSet::from([1, 3]),
            BTreeSet::new(),
        ];
        let refs: Vec<&BTreeSet<usize>> = sets.iter().collect();
        // 1 kills three; then 2 and 3 each add one (3): the first wins.
        assert_eq!(set_cover(&refs), [1, 2]);
        assert!(set_cover(&[]).is_empty());
        let empty = BTreeSet::new();
        assert!(set_cover(&[&empty]).is_empty());
    }

    #[test]
    fn fates_are_counted_per_neighbour() {
        let neighbour = |fate| NeighborEntry {
            id: "q0.0".into(),
            kind: "k".into(),
            description: String::new(),
            sql: String::new(),
            fate,
            reason: None,
        };
        let entries = vec![
            GoldEntry {
                question: 0,
                sql: String::new(),
                skipped: None,
                neighbors: vec![
                    neighbour(Fate::Invalid),
                    neighbour(Fate::Killed),
                    neighbour(Fate::Killed),
                ],
            },
            GoldEntry {
                question: 1,
                sql: String::new(),
                skipped: None,
                neighbors: vec![neighbour(Fate::Survived), neighbour(Fate::KilledByOriginal)],
            },
        ];
        let c = count_fates(&entries);
        assert_eq!(
            (
                c.neighbors,
                c.invalid,
                c.killed_by_instances,
                c.survived,
                c.killed_by_original
            ),
            (5, 1, 2, 1, 1)
        );
    }
}
