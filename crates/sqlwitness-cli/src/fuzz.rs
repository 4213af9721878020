//! `sqlwitness fuzz`: distilled test suites (the run is
//! `sqlwitness_fuzz::build_suites`; their use in `eval --suite` is a stage
//! of the evaluator, `sqlwitness_eval`).

use anyhow::{bail, Context, Result};
use clap::Args;
use sqlwitness_dialect::EngineFacts;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use sqlwitness_core::EngineKind;
use sqlwitness_fuzz::{
    build_suites, mutant_predictions, FuzzOptions, FuzzPlan, FuzzReference, GoldQuery, Stress,
};
use sqlwitness_run::{Cancel, FuzzSpec, InputFiles};

use crate::args::{BenchArgs, ServerArgs};
use crate::exit::{self, BadInput};
use crate::progress::Bars;

#[derive(Debug, Args)]
pub struct FuzzArgs {
    #[command(flatten)]
    pub bench: BenchArgs,
    /// Only these databases (default: every database the split uses).
    #[arg(long = "db", value_delimiter = ',')]
    pub dbs: Vec<String>,
    /// Use a database file that is a link resolving outside the benchmark's
    /// database folder (refused by default).
    #[arg(long)]
    pub allow_outside_links: bool,
    /// Suite folder: `database/<db_id>/*.sqlite` and `manifest.json`
    /// (entries of other databases already there are kept).
    #[arg(long)]
    pub out: PathBuf,
    /// The random seed (0 to 18446744073709551615): the same seed writes
    /// byte-identical suites.
    #[arg(long, default_value_t = 42, allow_hyphen_values = true)]
    pub seed: u64,
    /// Candidate instances generated per database before distillation (1
    /// to 1,000: the instances a database's suite may keep).
    #[arg(long, default_value_t = 100, allow_hyphen_values = true, value_parser = crate::ranges::count(1, sqlwitness_fuzz::MAX_INSTANCES_PER_DATABASE as u64))]
    pub candidates: usize,
    /// At most this many neighbour queries per gold (0 to 10,000).
    #[arg(allow_hyphen_values = true, long, default_value_t = 60, value_parser = crate::ranges::count(0, 10_000))]
    pub max_neighbors: usize,
    /// Rules the instances break on purpose, comma-separated: `nulls`
    /// (NULLs in every column not declared NOT NULL), `orphans` (foreign-key
    /// values naming no parent), `empty` (empty tables), `duplicates`
    /// (duplicates in inferred unique columns). Off by default: instances
    /// keep every constraint of the original data; the manifest says which
    /// stresses a suite was built with.
    #[arg(long, default_value = "")]
    pub stress: String,
    /// Worker threads (one database each; 1 to 1024; default: number of
    /// CPUs).
    #[arg(allow_hyphen_values = true, long, short = 'j', value_parser = crate::ranges::jobs())]
    pub jobs: Option<usize>,
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Instead of building suites, write a prediction file (Spider text, one
    /// SQL a line in question order) of gold queries mutated once or twice
    /// with `--seed`; `--out` is then the file. A question without a
    /// neighbour keeps its gold; one whose database is missing gets `SELECT 1`.
    #[arg(long)]
    pub mutants: bool,
    /// Continue the build whose journal is in --out: databases it holds are
    /// not built again (see `eval --resume`).
    #[arg(long)]
    pub resume: bool,
    /// Build part K of N of the databases (see `eval --partition`);
    /// `sqlwitness merge` combines the parts' suite folders.
    #[arg(allow_hyphen_values = true, long, value_name = "K/N", value_parser = crate::ranges::partition)]
    pub partition: Option<String>,
    /// The engine whose gold (its own, from the benchmark or `--gold`)
    /// and its neighbours are run to distil the suite (default: sqlite).
    /// An engine on copies of its own (a server, DuckDB) runs them on the
    /// database's copy there (for a benchmark imported from a dump, the
    /// copy with the dump's own types) and on each candidate migrated
    /// there from its SQLite file (PostgreSQL: the dump copy's column
    /// types where it has them, else the types migration infers);
    /// instances are still SQLite files.
    #[arg(long, value_name = "ENGINE")]
    pub reference: Option<String>,
    /// An engine's own gold, `ENGINE=FILE` (repeatable; as `eval --gold`).
    #[arg(long = "gold", value_name = "ENGINE=FILE")]
    pub gold: Vec<String>,
    #[command(flatten)]
    pub servers: ServerArgs,
}

pub fn run(a: &FuzzArgs, cancel: &Cancel) -> Result<i32> {
    let started = Instant::now();
    if a.candidates == 0 {
        bail!(BadInput("--candidates: must be at least 1".into()));
    }
    // A suite keeps at most its candidates, and `eval --suite` takes at
    // most this many instances of a database.
    if a.candidates > sqlwitness_fuzz::MAX_INSTANCES_PER_DATABASE {
        bail!(BadInput(format!(
            "--candidates: at most {}",
            sqlwitness_fuzz::MAX_INSTANCES_PER_DATABASE
        )));
    }
    let mut bench = crate::plan::open_benchmark(&a.bench.bench, &a.bench.split)?;
    bench.allow_outside_links = a.allow_outside_links;
    bench.namespace_prefix = a.servers.checked_prefix()?;
    let reference = reference(a, &mut bench)?;
    let (golds, unusable) = select(a, &bench)?;
    if a.mutants {
        return write_mutants(a, &bench);
    }
    let spec = fuzz_spec(a, golds.keys().cloned().collect())?;
    let (journal, partition) = crate::plan::journal_flags(a.resume, a.partition.as_deref())?;
    let plan = FuzzPlan {
        bench,
        golds,
        out: a.out.clone(),
        options: FuzzOptions::from_spec(&spec)?,
        jobs: crate::plan::jobs(a.jobs),
        journal,
        partition,
        spec,
        reference,
        cancel: cancel.clone(),
    };
    let built = build_suites(&plan, &Bars { quiet: a.quiet })?;
    let mut failed = 0;
    for (id, r) in built {
        match r {
            Ok(suite) => {
                let c = &suite.counts;
                say!(
                    "{id:>28}: {} golds, {} instances kept of {}, neighbours {} (invalid {}, killed by original {}, by instances {}, survived {})",
                    c.golds, c.instances_kept, suite.candidates, c.neighbors, c.invalid,
                    c.killed_by_original, c.killed_by_instances, c.survived
                );
            }
            Err(e) => {
                failed += 1;
                say!("fuzz: {id}: {e}");
            }
        }
    }
    say!(
        "suites: {} ({:.2} s)",
        a.out.join("manifest.json").display(),
        started.elapsed().as_secs_f64()
    );
    Ok(if failed > 0 {
        exit::INTERNAL
    } else if !unusable.is_empty() {
        exit::ENGINE
    } else {
        exit::OK
    })
}

/// The gold queries of each database.
type Golds = BTreeMap<String, Vec<GoldQuery>>;

/// The golds of every database the flags select (the benchmark's, or an
/// engine's own with `--reference` or `--gold`), without the databases
/// that have no file or cannot be used (said on stderr; the latter are
/// returned: the run exits 3).
fn select(
    a: &FuzzArgs,
    bench: &sqlwitness_bench::Benchmark,
) -> Result<(Golds, Vec<(String, String)>)> {
    let gold_kind = reference_kind(a)?.unwrap_or(EngineKind::Sqlite);
    // The benchmark's gold unless an engine's own is asked for.
    let own_gold = a.reference.is_some() || !a.gold.is_empty();
    let mut golds = Golds::new();
    for q in &bench.questions {
        if a.dbs.is_empty() || a.dbs.contains(&q.db_id) {
            golds.entry(q.db_id.clone()).or_default().push(GoldQuery {
                question: q.id,
                sql: if own_gold {
                    q.gold_for(gold_kind).to_string()
                } else {
                    q.gold.clone()
                },
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
        say!("fuzz: {id}: no SQLite file, skipped");
        golds.remove(id);
    }
    // A database that cannot be used is skipped, and the run exits 3.
    let unusable: Vec<(String, String)> = golds
        .keys()
        .filter_map(|id| sqlwitness_run::unusable(bench, id).map(|why| (id.clone(), why)))
        .collect();
    for (id, why) in &unusable {
        say!("fuzz: {id}: database unusable, skipped: {why}");
        golds.remove(id);
    }
    Ok((golds, unusable))
}

/// What `fuzz`'s flags ask for, checked, for the suites of `databases`.
fn fuzz_spec(a: &FuzzArgs, databases: Vec<String>) -> Result<FuzzSpec> {
    let stress = Stress::parse(&a.stress).map_err(|m| BadInput(format!("--stress: {m}")))?;
    let options = FuzzOptions {
        seed: a.seed,
        candidates: a.candidates,
        max_neighbors: a.max_neighbors,
        stress,
        ..FuzzOptions::default()
    };
    let spec = FuzzSpec {
        files: InputFiles::parse(a.bench.bench.clone(), &a.gold, &[])?,
        split: a.bench.split.clone(),
        allow_outside_links: a.allow_outside_links,
        databases,
        reference: reference_kind(a)?,
        seed: 0,
        candidates: 0,
        batch: 0,
        max_neighbors: 0,
        timeout_seconds: 0.0,
        max_rows: 0,
        stress: Vec::new(),
    };
    Ok(options.in_spec(spec))
}

/// `--reference ENGINE`, parsed.
fn reference_kind(a: &FuzzArgs) -> Result<Option<EngineKind>> {
    crate::plan::parse_reference(a.reference.as_deref())
}

/// `--reference` and `--gold`: the server engine the suite is distilled
/// on (`None`: SQLite), with its golds applied to the questions; the dumps
/// a `dumps.json` names imported first (as `eval` does).
fn reference(
    a: &FuzzArgs,
    bench: &mut sqlwitness_bench::Benchmark,
) -> Result<Option<FuzzReference>> {
    let kind = reference_kind(a)?;
    let engines: Vec<EngineKind> = kind.into_iter().collect();
    let files = InputFiles::parse(a.bench.bench.clone(), &a.gold, &[])?;
    sqlwitness_run::dialect_inputs(bench, &files, &engines)?;
    let servers = match kind {
        // An engine on copies of its own (a server, DuckDB's folder): the
        // gold runs there on each candidate migrated to it.
        Some(k) if k.holds_copies() => Some(crate::plan::servers(a.servers.clone(), &[k], true)?),
        _ => None,
    };
    crate::import::from_manifest(bench, servers.as_ref(), a.quiet)?;
    Ok(match (kind, servers) {
        (Some(kind), Some(servers)) => Some(FuzzReference {
            kind,
            servers,
            migrate: a.servers.migrate_options(false),
        }),
        _ => None,
    })
}

fn write_mutants(a: &FuzzArgs, bench: &sqlwitness_bench::Benchmark) -> Result<i32> {
    let (text, mutated, kept) = mutant_predictions(bench, a.seed);
    std::fs::write(&a.out, text).with_context(|| format!("writing {}", a.out.display()))?;
    say!(
        "mutants: {} ({mutated} mutated, {kept} golds without neighbours kept)",
        a.out.display()
    );
    Ok(exit::OK)
}
