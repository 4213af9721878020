//! `sqlwitness fuzz`: distilled test suites (their use in `eval --suite` is
//! a stage of the evaluator, `sqlwitness_eval`).

use anyhow::{bail, Context, Result};
use clap::Args;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use sqlwitness_bench::load_benchmark;
use sqlwitness_fuzz::{build_db_suite, ForeignKeySpec, FuzzOptions, GoldQuery, Manifest, Stress};

use crate::args::BenchArgs;
use crate::exit::{self, BadInput};
use crate::progress;

#[derive(Debug, Args)]
pub struct FuzzArgs {
    #[command(flatten)]
    pub bench: BenchArgs,
    /// Only these databases (default: every database the split uses).
    #[arg(long = "db", value_delimiter = ',')]
    pub dbs: Vec<String>,
    /// Suite folder: `database/<db_id>/*.sqlite` and `manifest.json`
    /// (entries of other databases already there are kept).
    #[arg(long)]
    pub out: PathBuf,
    /// Seed: the same seed writes byte-identical suites.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Candidate instances generated per database before distillation.
    #[arg(long, default_value_t = 100)]
    pub candidates: usize,
    /// At most this many neighbour queries per gold.
    #[arg(long, default_value_t = 60)]
    pub max_neighbors: usize,
    /// Rules the instances break on purpose, comma-separated: `nulls`
    /// (NULLs in every column not declared NOT NULL), `orphans` (foreign-key
    /// values naming no parent), `empty` (empty tables), `duplicates`
    /// (duplicates in inferred unique columns). Off by default: instances
    /// keep every constraint of the original data; the manifest says which
    /// stresses a suite was built with.
    #[arg(long, default_value = "")]
    pub stress: String,
    /// Worker threads (one database each; default: number of CPUs).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Instead of building suites, write a prediction file (Spider text, one
    /// SQL a line in question order) of gold queries mutated once or twice
    /// with `--seed`; `--out` is then the file. A question without a
    /// neighbour keeps its gold; one whose database is missing gets `SELECT 1`.
    #[arg(long)]
    pub mutants: bool,
}

pub fn run(a: &FuzzArgs) -> Result<i32> {
    let started = Instant::now();
    if a.candidates == 0 {
        bail!(BadInput("--candidates: must be at least 1".into()));
    }
    let bench = load_benchmark(&a.bench.bench, &a.bench.split)
        .with_context(|| format!("loading benchmark {}", a.bench.bench.display()))?;
    let mut golds: BTreeMap<String, Vec<GoldQuery>> = BTreeMap::new();
    for q in &bench.questions {
        if a.dbs.is_empty() || a.dbs.contains(&q.db_id) {
            golds.entry(q.db_id.clone()).or_default().push(GoldQuery {
                question: q.id,
                sql: q.gold.clone(),
            });
        }
    }
    for db in &a.dbs {
        if !golds.contains_key(db) {
            bail!(BadInput(format!(
                "--db: no question of split `{}` uses `{db}`",
                a.bench.split
            )));
        }
    }
    let missing: Vec<String> = golds
        .keys()
        .filter(|id| !bench.db_exists(id))
        .cloned()
        .collect();
    for id in &missing {
        eprintln!("fuzz: {id}: no SQLite file, skipped");
        golds.remove(id);
    }
    if a.mutants {
        return write_mutants(a, &bench);
    }
    let stress = Stress::parse(&a.stress).map_err(|m| BadInput(format!("--stress: {m}")))?;
    let extra_keys = tables_json_keys(&bench.root)?;
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let opts = FuzzOptions {
        seed: a.seed,
        candidates: a.candidates,
        max_neighbors: a.max_neighbors,
        stress,
        ..FuzzOptions::default()
    };
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
        .max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .context("starting worker threads")?;
    let pb = progress::bar(golds.len() as u64, "fuzz", a.quiet);
    let built: Vec<(
        String,
        Result<sqlwitness_fuzz::DbSuite, sqlwitness_fuzz::FuzzError>,
    )> = pool.install(|| {
        golds
            .par_iter()
            .map(|(id, gs)| {
                let keys = extra_keys.get(id).map_or(&[][..], Vec::as_slice);
                let r = build_db_suite(id, &bench.sqlite_path(id), gs, keys, &a.out, &opts);
                pb.inc(1);
                (id.clone(), r)
            })
            .collect()
    });
    pb.finish_and_clear();
    let manifest_path = a.out.join("manifest.json");
    let mut manifest = Manifest::read(&manifest_path)?;
    let mut failed = 0;
    for (id, r) in built {
        match r {
            Ok(suite) => {
                let c = &suite.counts;
                eprintln!(
                    "{id:>28}: {} golds, {} instances kept of {}, neighbours {} (invalid {}, killed by original {}, by instances {}, survived {})",
                    c.golds, c.instances_kept, suite.candidates, c.neighbors, c.invalid,
                    c.killed_by_original, c.killed_by_instances, c.survived
                );
                manifest.databases.insert(id, suite);
            }
            Err(e) => {
                failed += 1;
                eprintln!("fuzz: {id}: {e}");
            }
        }
    }
    manifest.write(&manifest_path)?;
    eprintln!(
        "suites: {} ({:.2} s)",
        manifest_path.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(if failed > 0 { exit::INTERNAL } else { exit::OK })
}

/// Foreign keys stated in the benchmark's `tables.json` (Spider layouts),
/// per `db_id`; none when the benchmark has no such file.
fn tables_json_keys(root: &std::path::Path) -> Result<BTreeMap<String, Vec<ForeignKeySpec>>> {
    let path = root.join("tables.json");
    let mut out = BTreeMap::new();
    if !path.is_file() {
        return Ok(out);
    }
    let schemas = sqlwitness_bench::load_tables_json(&path)
        .with_context(|| format!("reading {}", path.display()))?;
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

fn write_mutants(a: &FuzzArgs, bench: &sqlwitness_bench::Benchmark) -> Result<i32> {
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
        let mut rng = sqlwitness_fuzz::Rng::derived(a.seed, &format!("mutant {}", q.id));
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
    std::fs::write(&a.out, text).with_context(|| format!("writing {}", a.out.display()))?;
    eprintln!(
        "mutants: {} ({mutated} mutated, {kept} golds without neighbours kept)",
        a.out.display()
    );
    Ok(exit::OK)
}
