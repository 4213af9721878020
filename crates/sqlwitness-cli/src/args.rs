//! Command-line flags (clap derive). Nothing here touches a file or a
//! server: `plan.rs` validates, then the commands run.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "sqlwitness",
    version,
    about = "Cross-dialect SQL execution differential tester for text-to-SQL benchmarks"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run gold and predicted SQL on every engine, compare, and write a report.
    Eval(EvalArgs),
    /// Copy a benchmark's SQLite databases to PostgreSQL and MySQL and verify them.
    Migrate(MigrateArgs),
    /// Compare two reports: accuracy deltas, changed verdicts, new failures.
    Diff(crate::diff::DiffArgs),
    /// Generate database instances, distil them into test suites per database.
    Fuzz(crate::fuzz::FuzzArgs),
    /// Audit gold SQL: nondeterminism (proven on data), dialect failures,
    /// cross-engine differences, verified tie-inclusive rewrites.
    Audit(crate::audit::AuditArgs),
    /// Combine the output folders of a partitioned `eval`, `audit` or
    /// `fuzz` (`--partition K/N`) into what the unpartitioned run writes.
    Merge(MergeArgs),
    /// Build a perturbed benchmark (Dr.Spider's schema-synonym,
    /// schema-abbreviation, DBcontent-equivalence; or exact renames): the
    /// databases changed, every affected gold rewritten on its syntax tree
    /// and verified by execution, a mapping to the originals.
    Perturb(crate::perturb::PerturbArgs),
    /// Dr.Spider's pre-, post- and relative robustness of runs on a
    /// perturbed set against the run on the original (pairs from the
    /// perturbation's mapping.json).
    Robustness(crate::perturb::RobustnessArgs),
    /// Build small stand-in SQLite databases from a schema file
    /// (`tables.json`, BIRD's `dev_tables.json`) when the real ones are not
    /// available: declared types and keys, a few synthetic rows.
    StandIns(StandInArgs),
    /// Load a benchmark database shipped as a PostgreSQL or MySQL/MariaDB
    /// dump with its own engine (under a login confined to a namespace made
    /// for it) and write it as SQLite files in the benchmark's layout,
    /// verified, with every type decision reported.
    Import(crate::import::ImportArgs),
    /// The Spider test-suite evaluator's command line (`evaluation.py
    /// --gold --pred --db --table --etype exec`): its table of execution
    /// accuracy by hardness on standard output, sqlwitness's verdicts
    /// (`--compare spider`) behind it, other engines with `--engines`.
    #[command(name = "spider-eval")]
    SpiderEval(crate::dropin::SpiderEvalArgs),
    /// BIRD's evaluators' command lines: mini-dev's (`evaluation_ex.py
    /// --predicted_sql_path --ground_truth_path --db_root_path
    /// --diff_json_path --sql_dialect`) and BIRD dev's (`evaluation.py`
    /// with `--data_mode dev`, its paths text prefixes; `evaluation_ves.py`
    /// with `--ves` added): the script's table by difficulty on standard
    /// output (`--compare bird`), other engines with `--engines`.
    #[command(name = "bird-eval")]
    BirdEval(crate::dropin::BirdEvalArgs),
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Output folder for the combined report (suites: the combined suite).
    #[arg(long)]
    pub out: PathBuf,
    /// The parts' output folders, every part of one run (any order).
    #[arg(required = true)]
    pub parts: Vec<PathBuf>,
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct StandInArgs {
    /// The schema file.
    #[arg(long)]
    pub tables: PathBuf,
    /// Folder for `<db_id>/<db_id>.sqlite` (BIRD: `<bench>/dev_databases`).
    #[arg(long)]
    pub out: PathBuf,
    /// Rows a table (0 to 1,000,000).
    #[arg(allow_hyphen_values = true, long, default_value_t = 5, value_parser = crate::ranges::count(0, 1_000_000))]
    pub rows: usize,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Benchmark folder (Spider, BIRD or JSONL layout).
    #[arg(long, env = "SQLWITNESS_BENCH")]
    pub bench: PathBuf,
    /// Split to load (`dev` reads dev.json, or dev_gold.sql).
    #[arg(long, default_value = "dev")]
    pub split: String,
}

#[derive(Debug, Clone, Default, Args)]
pub struct ServerArgs {
    /// A server engine's administrative URL, `ENGINE=URL` (repeatable; else
    /// SQLWITNESS_<ENGINE>_URL): it migrates (PostgreSQL: a schema per
    /// database; MySQL, MariaDB: a database per database) and grants the
    /// reader login read access. `postgres=postgres://root@127.0.0.1/test`,
    /// `mysql=mysql://root@127.0.0.1:3307/test`,
    /// `mariadb=mysql://root@127.0.0.1:3306/test`. DuckDB keeps a file per
    /// database in a folder: `duckdb=duckdb:/path/to/folder` (default: a
    /// folder of the user's cache).
    #[arg(long = "server", value_name = "ENGINE=URL")]
    pub servers: Vec<String>,
    /// The least-privilege login an engine's queries run as, `ENGINE=URL`
    /// (repeatable; else SQLWITNESS_<ENGINE>_READER_URL; default: the
    /// administrative URL with user `sqlwitness_reader` and
    /// SQLWITNESS_READER_PASSWORD).
    #[arg(long = "reader", value_name = "ENGINE=URL")]
    pub readers: Vec<String>,
    /// Prefix of every benchmark copy's namespace on the servers:
    /// `concert_singer` lives in the schema (PostgreSQL) or database
    /// (MySQL, MariaDB) `sw_concert_singer`. Copies carry a stamp; a
    /// namespace without one is never dropped, written or read.
    #[arg(long, env = "SQLWITNESS_NAMESPACE_PREFIX", default_value = sqlwitness_core::DEFAULT_NAMESPACE_PREFIX)]
    pub namespace_prefix: String,
    /// How a migration checks its copy: `load` (the row counts the server
    /// reports for the stream written and counts in each table after the
    /// load, the stream's checksum kept in the copy's stamp; a copy whose
    /// stamp matches is up to date without reading it)
    /// or `full` (every row read back and hashed again, new and up-to-date
    /// copies alike).
    #[arg(long, value_enum, default_value_t = VerifyArg::Load)]
    pub verify: VerifyArg,
    /// Where source fingerprints and profiles are cached (default:
    /// SQLWITNESS_CACHE_DIR, else $XDG_CACHE_HOME/sqlwitness, else
    /// ~/.cache/sqlwitness).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum VerifyArg {
    #[default]
    Load,
    Full,
}

impl ServerArgs {
    /// The migration options these flags give.
    pub fn migrate_options(&self, force: bool) -> sqlwitness_migrate::MigrateOptions {
        sqlwitness_migrate::MigrateOptions {
            force,
            verify: match self.verify {
                VerifyArg::Load => sqlwitness_migrate::Verify::Load,
                VerifyArg::Full => sqlwitness_migrate::Verify::Full,
            },
            cache_dir: self.cache_dir.clone(),
            ..Default::default()
        }
    }

    /// The namespace prefix, checked: letters, digits and `_` only.
    pub fn checked_prefix(&self) -> Result<String, crate::exit::BadInput> {
        let p = &self.namespace_prefix;
        if p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && p.len() <= 32 {
            Ok(p.clone())
        } else {
            Err(crate::exit::BadInput(format!(
                "--namespace-prefix `{p}`: use at most 32 ASCII letters, digits and `_`"
            )))
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompareArg {
    /// Ordered iff the gold has a top-level ORDER BY; typed numbers; multisets.
    Strict,
    /// The official Spider test-suite `result_eq`, quirks included.
    Spider,
    /// BIRD's set equality of rows.
    Bird,
    /// Spider 2.0's column-vector comparison (`compare_pandas_table`).
    Spider2,
    /// LiveSQLBench's row sets, floats rounded to two places (`ex_base`).
    Livesqlbench,
    /// defog's sql-eval: normalised frames and subset credit (`correct`).
    Defog,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColumnOrderArg {
    Exact,
    Any,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TiesArg {
    /// One answer: the gold's.
    Strict,
    /// Every answer the gold's ties allow.
    Aware,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IdentifiersArg {
    /// Resolve identifier case against the schema as SQLite does.
    Sqlite,
    /// Send the SQL as written.
    Verbatim,
}

#[derive(Debug, Args)]
pub struct EvalArgs {
    #[command(flatten)]
    pub bench: BenchArgs,
    /// Prediction file: Spider text (one SQL a line), BIRD JSON or JSONL,
    /// for every engine; or `ENGINE=FILE`, an engine's own predictions
    /// (repeatable: MySQL predictions for MySQL, PostgreSQL ones for
    /// PostgreSQL). Without any, the gold is evaluated against itself.
    #[arg(long, value_name = "[ENGINE=]FILE")]
    pub pred: Vec<String>,
    /// An engine's own gold, `ENGINE=FILE` (repeatable), in question order:
    /// one query a line, Spider text or `SQL<TAB>db_id` (an empty line
    /// leaves that question the benchmark's gold), or a `.json` array. Overrides the dialect
    /// golds a benchmark carries (BIRD mini-dev's files, `gold_<engine>`).
    #[arg(long, value_name = "ENGINE=FILE")]
    pub gold: Vec<String>,
    /// The engine whose gold's answer judges every other engine's
    /// prediction across engines (`engines.<e>.reference` in the report),
    /// or `none`. Default: sqlite when it runs beside another engine.
    #[arg(long, value_name = "ENGINE|none")]
    pub reference: Option<String>,
    /// Engines to run on, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "sqlite")]
    pub engines: Vec<String>,
    /// Output folder for report.json and summary.md.
    #[arg(long, default_value = "out")]
    pub out: PathBuf,
    #[arg(long, value_enum, default_value_t = CompareArg::Strict)]
    pub compare: CompareArg,
    #[arg(long, value_enum, default_value_t = ColumnOrderArg::Exact)]
    pub column_order: ColumnOrderArg,
    /// Spider mode: keep DISTINCT (the official evaluator deletes it by default).
    #[arg(long)]
    pub keep_distinct: bool,
    /// Relative tolerance for floats in strict mode (at least 0, below 1).
    #[arg(allow_hyphen_values = true, long, default_value_t = 1e-9, value_parser = crate::ranges::float_tolerance)]
    pub float_tolerance: f64,
    /// Per-query time limit in seconds (0.001 to 86400: a day).
    #[arg(allow_hyphen_values = true, long, default_value_t = 30.0, value_parser = crate::ranges::seconds)]
    pub timeout: f64,
    /// The most one result may hold, in MiB of values. More is a
    /// `resource_limit` error, except for the gold and prediction `eval`
    /// compares in strict mode: those are read on as row keys and compared
    /// by them. Fractions are allowed (`0.5`): from 0.0009765625 (one KiB)
    /// to 65536 (64 GiB).
    #[arg(allow_hyphen_values = true, long, default_value_t = 64.0, value_parser = crate::ranges::result_mb)]
    pub max_result_mb: f64,
    /// Longer predicted SQL texts are refused unread (1 to 16777216: 16
    /// MiB).
    #[arg(allow_hyphen_values = true, long, default_value_t = sqlwitness_guard::DEFAULT_MAX_SQL_BYTES, value_parser = crate::ranges::sql_bytes())]
    pub max_sql_bytes: usize,
    /// Worker threads (1 to 1024; default: number of CPUs).
    #[arg(allow_hyphen_values = true, long, short = 'j', value_parser = crate::ranges::jobs())]
    pub jobs: Option<usize>,
    #[arg(long, value_enum, default_value_t = IdentifiersArg::Sqlite)]
    pub identifiers: IdentifiersArg,
    /// `aware`: when the gold's LIMIT cuts through ties, a prediction that
    /// returns one of the valid answers is `match_tie` (strict and tie-aware
    /// accuracy are reported side by side).
    #[arg(long, value_enum, default_value_t = TiesArg::Strict)]
    pub ties: TiesArg,
    /// Do not migrate missing or stale databases before evaluating on servers.
    #[arg(long)]
    pub no_migrate: bool,
    /// Use a database file that is a link resolving outside the benchmark's
    /// database folder (refused by default: a benchmark may not make
    /// sqlwitness read files elsewhere on the machine).
    #[arg(long)]
    pub allow_outside_links: bool,
    /// Only questions on these databases.
    #[arg(long = "db", value_delimiter = ',')]
    pub dbs: Vec<String>,
    /// Only the first N questions (after --db filtering; at least 1).
    #[arg(allow_hyphen_values = true, long, value_parser = crate::ranges::at_least_one())]
    pub limit: Option<usize>,
    /// No progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// No summary on standard error (the report's files are written as
    /// always): the Python API's default, so that a notebook cell shows
    /// only what it returns.
    #[arg(long)]
    pub no_summary: bool,
    /// Continue the run whose journal (`journal.jsonl`) is in --out: the
    /// questions it holds are not run again, and the report equals an
    /// uninterrupted run's. Refused when the journal is of another plan or
    /// other inputs; a new run when there is none.
    #[arg(long)]
    pub resume: bool,
    /// Run part K of N (1 <= K <= N <= 10000): the questions of the
    /// databases assigned to it (stable, balanced by questions);
    /// `sqlwitness merge` combines the parts' folders into the
    /// unpartitioned run's report.
    #[arg(allow_hyphen_values = true, long, value_name = "K/N", value_parser = crate::ranges::partition)]
    pub partition: Option<String>,
    #[command(flatten)]
    pub servers: ServerArgs,
    #[command(flatten)]
    pub containers: crate::containers::ContainerArgs,
    #[command(flatten)]
    pub scoring: crate::scores::ScoringArgs,
    /// Test-suite folder written by `sqlwitness fuzz`: a prediction also has
    /// to match the gold on every instance of its database's suite.
    #[arg(long)]
    pub suite: Option<PathBuf>,
    /// With --suite: do not shrink a witness database for predictions
    /// that fail on an instance.
    #[arg(long, requires = "suite")]
    pub no_witness: bool,
    /// With --suite: for a prediction that passes the suite (on SQLite),
    /// generate up to N more instances looking for a witness (seeded by the
    /// suite's seed and the question id; 0 to 10,000).
    #[arg(allow_hyphen_values = true, long, requires = "suite", default_value_t = 0, value_parser = crate::ranges::count(0, 10_000))]
    pub hunt: usize,
    /// Time every correct prediction and its gold N times on every engine
    /// (on the engine's own clock: SQLite's step time, PostgreSQL's and
    /// MySQL's EXPLAIN ANALYZE, MariaDB's session profile) and report
    /// BIRD's VES and mini-dev's R-VES with their spread across the runs
    /// (0: no timing; at most 1,000).
    #[arg(allow_hyphen_values = true, long, value_name = "N", default_value_t = 0, value_parser = crate::ranges::count(0, 1_000))]
    pub ves_runs: usize,
    /// An `audit.json` of the same benchmark and split (`sqlwitness
    /// audit`): report.html shows each question's gold-audit findings,
    /// links them into the audit.html beside it, and filters the audited
    /// questions. The verdicts do not change.
    #[arg(long, value_name = "AUDIT_JSON")]
    pub audit: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct MigrateArgs {
    #[command(flatten)]
    pub bench: BenchArgs,
    /// Databases to migrate (default: those the split's questions use).
    #[arg(long = "db", value_delimiter = ',')]
    pub dbs: Vec<String>,
    /// Migrate every database found in the benchmark's database folder.
    #[arg(long, conflicts_with = "dbs")]
    pub all: bool,
    /// Use a database file that is a link resolving outside the benchmark's
    /// database folder (refused by default: a benchmark may not make
    /// sqlwitness read files elsewhere on the machine).
    #[arg(long)]
    pub allow_outside_links: bool,
    /// Target engines, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "postgres,mysql")]
    pub engines: Vec<String>,
    /// Where the per-database migration logs go.
    #[arg(long, default_value = "out/migration")]
    pub log_dir: PathBuf,
    /// Drop and reload even when the target already verifies.
    #[arg(long)]
    pub force: bool,
    /// Databases migrated at once, each over its own connection (1 to
    /// 1024; default: twice the number of CPUs: the time is mostly the
    /// servers').
    #[arg(allow_hyphen_values = true, long, short = 'j', value_parser = crate::ranges::jobs())]
    pub jobs: Option<usize>,
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub servers: ServerArgs,
    #[command(flatten)]
    pub containers: crate::containers::ContainerArgs,
}
