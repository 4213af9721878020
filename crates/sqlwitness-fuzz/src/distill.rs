//! Test-suite distillation (Zhong, Yu and Klein 2020, §3.2): generate
//! neighbour queries of every gold, drop those the original database already
//! tells apart, generate candidate instances until every remaining
//! neighbour is killed (or the budget is spent), and keep a small set of
//! candidates by greedy set cover — repeatedly the candidate that kills the
//! most neighbours not yet killed (ties: the earlier candidate).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use sqlwitness_core::compare::{compare, CompareOptions};
use sqlwitness_core::{Database, DbError, Engine, QueryLimits, ResultSet, Value};
use sqlwitness_engines::SqliteEngine;
use sqlwitness_sql::{gold_literals, neighbors, GoldLiteral, NeighborOptions};

use crate::generate::{write_instance, InstanceSizes, Pools, Stress};
use crate::judge::Judge;
use crate::manifest::{
    Constraints, Counts, DbSuite, Fate, GoldEntry, InstanceEntry, NeighborEntry, TIE_AWARE,
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

pub(crate) fn ordered(gold: &str) -> CompareOptions {
    CompareOptions::default().ordered(sqlwitness_sql::has_top_level_order_by(gold).unwrap_or(false))
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
    let schema = read_schema_with(db_id, original, extra_keys)?;
    let names = schema.names();
    let is_column = |c: &str| {
        names
            .iter()
            .any(|(_, cols)| cols.iter().any(|x| x.eq_ignore_ascii_case(c)))
    };
    let tv = |c: &str| text_values(&schema, c);
    let nopts = NeighborOptions {
        tables: &names,
        text_values: &tv,
        ..NeighborOptions::default()
    };
    let engine = SqliteEngine::new();
    let orig_db = Database::new(db_id, original);
    let mut entries: Vec<GoldEntry> = Vec::new();
    let mut pending: Vec<Pending> = Vec::new();
    let mut literals: Vec<GoldLiteral> = Vec::new();
    for (gi, g) in golds.iter().enumerate() {
        let mut entry = GoldEntry {
            question: g.question,
            sql: g.sql.clone(),
            skipped: None,
            neighbors: Vec::new(),
        };
        let gold_rows = engine.execute(&orig_db, &g.sql, &opts.limits);
        if let Err(e) = &gold_rows {
            entry.skipped = Some(format!("gold fails on the original: {}", e.message));
            entries.push(entry);
            continue;
        }
        literals.extend(gold_literals(&g.sql, &is_column).unwrap_or_default());
        let ns = match neighbors(&g.sql, &nopts) {
            Ok(ns) => ns,
            Err(e) => {
                entry.skipped = Some(format!("no neighbours: {e}"));
                entries.push(entry);
                continue;
            }
        };
        let cmp = ordered(&g.sql);
        for (ni, n) in ns.into_iter().take(opts.max_neighbors).enumerate() {
            let rows = engine.execute(&orig_db, &n.sql, &opts.limits);
            let (fate, reason) = match &rows {
                Err(e) => (
                    Fate::Invalid,
                    Some(format!("fails on the original: {}", e.message)),
                ),
                Ok(_) if differs(&gold_rows, &rows, &cmp) => (Fate::KilledByOriginal, None),
                Ok(_) => {
                    literals.extend(gold_literals(&n.sql, &is_column).unwrap_or_default());
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
    let pools = Pools::new(&schema, &literals);
    let mut rng = Rng::derived(opts.seed, db_id);

    // Candidates and their kill sets (indexes into `pending`).
    let work = tempfile::tempdir().map_err(|e| FuzzError::io(Path::new("tempdir"), e))?;
    let mut candidates: Vec<(PathBuf, InstanceSizes, BTreeSet<usize>)> = Vec::new();
    let mut killed: BTreeSet<usize> = BTreeSet::new();
    let mut produced = 0;
    // Candidates that kill each neighbour so far: a neighbour killed by
    // `ENOUGH_KILLERS` candidates is not run on later ones (the set cover
    // has choices enough), and generation stops after a batch that kills
    // nothing new.
    let mut kill_counts: Vec<usize> = vec![0; pending.len()];
    while produced < opts.candidates && killed.len() < pending.len() {
        let killed_before = killed.len();
        for _ in 0..opts.batch.min(opts.candidates - produced) {
            let path = work.path().join(format!("c{produced}.sqlite"));
            produced += 1;
            let sizes = write_instance(&schema, &pools, opts.stress, &mut rng, &path)?;
            let db = Database::new(db_id, &path);
            let mut kills = BTreeSet::new();
            let mut last_gold: Option<(usize, Result<ResultSet, DbError>, Judge<'_>)> = None;
            for (pi, p) in pending.iter().enumerate() {
                if kill_counts[pi] >= ENOUGH_KILLERS {
                    continue;
                }
                if last_gold.as_ref().is_none_or(|(g, _, _)| *g != p.gold) {
                    let gold = golds[p.gold].sql.as_str();
                    let rows = engine.execute(&db, gold, &opts.limits);
                    last_gold = Some((p.gold, rows, Judge::new(&engine, &db, gold, &opts.limits)));
                }
                let Some((_, gold_rows, judge)) = &mut last_gold else {
                    continue;
                };
                let rows = engine.execute(&db, &p.sql, &opts.limits);
                if judge.differs(gold_rows, &rows, &ordered(&golds[p.gold].sql)) {
                    kills.insert(pi);
                }
            }
            drop(last_gold);
            killed.extend(kills.iter().copied());
            for &pi in &kills {
                kill_counts[pi] += 1;
            }
            candidates.push((path, sizes, kills));
        }
        if killed.len() == killed_before {
            break;
        }
    }
    // Greedy set cover.
    let mut covered: BTreeSet<usize> = BTreeSet::new();
    let mut chosen: Vec<usize> = Vec::new();
    loop {
        let best = candidates
            .iter()
            .enumerate()
            .filter(|(i, _)| !chosen.contains(i))
            .map(|(i, (_, _, k))| (k.difference(&covered).count(), i))
            .filter(|(n, _)| *n > 0)
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let Some((_, i)) = best else { break };
        covered.extend(candidates[i].2.iter().copied());
        chosen.push(i);
    }
    // Write the suite folder.
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
    let original_name = format!("{db_id}.sqlite");
    std::fs::copy(original, dir.join(&original_name)).map_err(|e| FuzzError::io(original, e))?;
    let mut instances = Vec::new();
    let mut killers: Vec<Vec<String>> = vec![Vec::new(); pending.len()];
    for (k, &ci) in chosen.iter().enumerate() {
        let (path, sizes, kills) = &candidates[ci];
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
                "same result as the gold on the original and on all {produced} generated candidates: \
                 equivalent, or the generator did not reach a distinguishing database"
            ));
        } else {
            n.fate = Fate::Killed;
        }
    }
    let mut counts = Counts {
        golds: golds.len(),
        instances_kept: instances.len(),
        ..Counts::default()
    };
    for n in entries.iter().flat_map(|e| &e.neighbors) {
        counts.neighbors += 1;
        match n.fate {
            Fate::Invalid => counts.invalid += 1,
            Fate::KilledByOriginal => counts.killed_by_original += 1,
            Fate::Killed => counts.killed_by_instances += 1,
            Fate::Survived => counts.survived += 1,
        }
    }
    Ok(DbSuite {
        seed: opts.seed,
        stress: opts.stress.names(),
        comparison: TIE_AWARE.to_string(),
        extra_foreign_keys: extra_keys.to_vec(),
        constraints: Constraints::of(&schema),
        candidates: produced,
        original: original_name,
        instances,
        golds: entries,
        counts,
    })
}
