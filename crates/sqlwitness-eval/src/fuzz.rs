//! `fuzz` as a stage of the library: distilled test suites for every
//! database of a benchmark (`sqlwitness-fuzz` builds one), the foreign keys
//! a benchmark states beside its files, and mutant predictions.

use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;

use sqlwitness_bench::Benchmark;
use sqlwitness_fuzz::{build_db_suite, DbSuite, ForeignKeySpec, FuzzOptions, GoldQuery, Manifest};

use crate::{EvalError, Progress};

/// The validated plan of `fuzz`.
pub struct FuzzPlan {
    pub bench: Benchmark,
    /// Gold queries per database (databases without a file left out).
    pub golds: BTreeMap<String, Vec<GoldQuery>>,
    /// The suite folder.
    pub out: PathBuf,
    pub options: FuzzOptions,
    pub jobs: usize,
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
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(plan.jobs)
        .build()
        .map_err(|e| EvalError::Internal(format!("starting worker threads: {e}")))?;
    let pb = progress.bar(plan.golds.len() as u64, "fuzz");
    let built: Vec<Built> = pool.install(|| {
        plan.golds
            .par_iter()
            .map(|(id, gs)| {
                let keys = extra_keys.get(id).map_or(&[][..], Vec::as_slice);
                let path = plan.bench.sqlite_path(id);
                let r = build_db_suite(id, &path, gs, keys, &plan.out, &plan.options);
                pb.inc(1);
                (id.clone(), r)
            })
            .collect()
    });
    pb.finish();
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
