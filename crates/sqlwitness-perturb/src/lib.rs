//! sqlwitness-perturb: Dr.Spider's database perturbations (Chang et al., §3.1)
//! built from any benchmark in the Spider layout.
//!
//! * **schema-synonym** / **schema-abbreviation**: a sampled subset of the
//!   columns of a database is renamed from a dictionary
//!   ([`Dictionary`], data files naming their sources), up to `samples`
//!   distinct times per database;
//! * **renames**: a user's file of exact renames;
//! * **DBcontent-equivalence**: columns replaced by equivalent ones
//!   ([`Rules`]: age → birth year, name → first + last name, a few text
//!   values ↔ booleans), the data transformed with them.
//!
//! Every gold that mentions a changed column is rewritten on its syntax
//! tree ([`sqlwitness_sql::SchemaChange`]) and verified by execution: on the
//! perturbed database it must return exactly what the original gold returns
//! on the original one. What cannot be rewritten or verified is dropped,
//! with the reason, in `mapping.json`. The output is an ordinary benchmark:
//! `database/<db_id>_<k>/`, `tables.json`, `<split>.json`,
//! `<split>_gold.sql`, plus `mapping.json` and `perturb.md`.
//!
//! On a server reference ([`ServerReference`], `--reference ENGINE`) the
//! golds of that engine's dialect are rewritten too and judged there: each
//! perturbed copy is migrated into a scratch namespace, and a question is
//! kept only if its rewritten gold returns there what its original gold
//! returns on the database's copy; those golds are written to
//! `<split>_gold_<engine>.sql`.
//!
//! [`run_plan`] builds a set with a journal (`sqlwitness-run`): one record
//! per database, resumed after an interruption, stopped by the run's
//! cancellation token.

mod content;
mod dictionary;
mod journaled;
mod names;
mod output;
mod rng;
mod run;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use content::{ContentChange, Rule, Rules};
pub use dictionary::{load_renames, Dictionary, Renames, SourceEntry};
pub use journaled::{run_plan, PerturbPlan};
pub use output::{
    AppliedChange, DroppedQuestion, FailedChange, KindSummary, MappedQuestion, Mapping,
    PerturbedDatabase, PredictionSummary, ReferenceSummary, SkippedDatabase,
};
pub use run::{empty_output, perturb, perturb_on, DatabaseOutcome, Perturber, UNUSABLE};

/// Which perturbation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Synonym,
    Abbreviation,
    Content,
    /// A user's exact renames (`--renames FILE`).
    Renames,
}

impl Kind {
    pub fn parse(s: &str) -> Option<Kind> {
        match s {
            "synonym" => Some(Kind::Synonym),
            "abbreviation" => Some(Kind::Abbreviation),
            "content" => Some(Kind::Content),
            "renames" => Some(Kind::Renames),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Synonym => "synonym",
            Kind::Abbreviation => "abbreviation",
            Kind::Content => "content",
            Kind::Renames => "renames",
        }
    }

    /// Dr.Spider's name of the perturbation.
    pub fn dr_spider_name(self) -> &'static str {
        match self {
            Kind::Synonym => "schema-synonym",
            Kind::Abbreviation => "schema-abbreviation",
            Kind::Content => "DBcontent-equivalence",
            Kind::Renames => "schema-renames (user file)",
        }
    }
}

/// What to build.
#[derive(Debug, Clone)]
pub struct Options {
    pub bench: PathBuf,
    pub split: String,
    pub kind: Kind,
    /// Sampling rounds per database (Dr.Spider: 5); duplicates removed.
    pub samples: usize,
    pub seed: u64,
    pub out: PathBuf,
    /// Added to the shipped dictionary of the kind.
    pub dictionary: Option<PathBuf>,
    /// Kind `Renames`: the file.
    pub renames: Option<PathBuf>,
    /// Content rules put before the shipped ones.
    pub content_rules: Option<PathBuf>,
    /// A model's predictions for the original split (one SQL a line, in
    /// question order): carried to the perturbed schema by the same
    /// rewrite (`pred_carried.sql`) and copied unchanged
    /// (`pred_unchanged.sql`), both in the perturbed split's order.
    pub predictions: Option<PathBuf>,
    /// Only these databases (all when empty).
    pub databases: Vec<String>,
    /// Time limit of each verification query.
    pub timeout: Duration,
}

/// A server engine that judges the golds instead of SQLite (`perturb
/// --reference`): its own golds are rewritten in its dialect, and run on
/// the database's copy there (`<prefix><db_id>`; for a benchmark imported
/// from a dump, the copy with the dump's own types) and on each perturbed
/// copy, migrated from its SQLite file into `<prefix><db_id>__p<k>` by the
/// ordinary migration (every table verified; on PostgreSQL with the dump
/// copy's column types where the original is one, else the types inferred
/// from the file), granted to the run's login and dropped afterwards.
pub struct ServerReference<'a> {
    /// The engine the golds run on (its reader login).
    pub engine: &'a dyn sqlwitness_core::Engine,
    /// Where the copies are migrated (the administrative URL).
    pub target: sqlwitness_migrate::MigrationTarget,
    /// The run's namespace prefix.
    pub prefix: String,
    pub migrate: sqlwitness_migrate::MigrateOptions,
    /// The run's own login `engine` reads over, when it has one.
    pub login: Option<&'a sqlwitness_engines::RunLogin>,
    /// The engine's gold of each question, by question id (the `--gold`
    /// file's, else the benchmark's).
    pub golds: Vec<String>,
    /// Where `golds` came from (said in the mapping).
    pub golds_from: String,
}

/// Errors of `perturb`: bad input (naming the file and the place) or an
/// I/O failure.
#[derive(Debug, thiserror::Error)]
pub enum PerturbError {
    #[error("{path}: {at}: {message}")]
    Format {
        path: PathBuf,
        at: String,
        message: String,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Bench(#[from] sqlwitness_bench::BenchError),
    #[error("{0}")]
    Input(String),
    #[error("{path}: SQLite: {message}")]
    Sqlite { path: PathBuf, message: String },
    /// An engine could not be opened.
    #[error("{0}")]
    Engine(#[from] sqlwitness_engines::EngineError),
    /// The run was asked to stop (SIGINT, SIGTERM).
    #[error("interrupted")]
    Interrupted,
    /// The run around the databases: its journal, a hash of its inputs.
    #[error(transparent)]
    Run(#[from] sqlwitness_run::RunError),
}

impl PerturbError {
    pub(crate) fn format(path: &Path, at: &str, message: impl Into<String>) -> PerturbError {
        PerturbError::Format {
            path: path.to_path_buf(),
            at: if at.is_empty() {
                "$".into()
            } else {
                at.to_string()
            },
            message: message.into(),
        }
    }

    pub(crate) fn io(path: &Path, source: std::io::Error) -> PerturbError {
        PerturbError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn sqlite(path: &Path, e: impl std::fmt::Display) -> PerturbError {
        PerturbError::Sqlite {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }

    /// Bad input (exit 2) rather than a failure of the machine.
    pub fn is_bad_input(&self) -> bool {
        match self {
            PerturbError::Run(e) => e.is_bad_input(),
            PerturbError::Io { .. }
            | PerturbError::Sqlite { .. }
            | PerturbError::Engine(_)
            | PerturbError::Interrupted => false,
            _ => true,
        }
    }

    /// The run was cancelled (exit 130).
    pub fn is_interrupted(&self) -> bool {
        match self {
            PerturbError::Run(e) => e.is_interrupted(),
            e => matches!(e, PerturbError::Interrupted),
        }
    }
}
