//! sqlwitness-run: what every run shares — `eval`, `audit`, `fuzz` and
//! `perturb` alike. No evaluation here: the commands' own work lives in
//! their crates, which take these as plain values.
//!
//! * the run as data ([`RunSpec`]: what the journal keeps, `merge`
//!   rebuilds and `--resume` compares) and where it runs ([`Servers`],
//!   [`RunContext`]);
//! * its inputs ([`InputFiles`], [`dialect_inputs`]) and their hashes
//!   ([`hash_inputs`]);
//! * the journal ([`Journal`]: one sealed record per finished unit,
//!   resume, [`read_parts`] and [`merge_parts`] for partitioned runs) and
//!   the partitions ([`Partition`], [`assign_partitions`]);
//! * the cancellation token ([`Cancel`]) every stage of a run watches;
//! * preparing the servers: migration ([`migrate_many`]), the databases
//!   that cannot be used ([`unusable`]), connecting over the reader logins
//!   ([`connect`]);
//! * how a long stage reports itself ([`Progress`]).

mod cancel;
mod connect;
mod error;
mod hash;
mod inputs;
mod journal;
mod journal_key;
mod migrate;
mod partition;
mod progress;
mod servers;
mod spec;

pub use cancel::{Cancel, OnCancel};
pub use connect::{connect, connect_reading, Connected, HeldLogin};
pub use error::RunError;
pub use hash::{dir_sha256, file_sha256, hash_inputs, sha256_hex};
pub use inputs::{dialect_inputs, reference_engine, DialectInputs, InputFiles};
pub use journal::{
    merge_parts, read_journal, read_journal_with, read_parts, read_parts_with, Header, Journal,
    JournalMode, JOURNAL_FILE, JOURNAL_FORMAT,
};
pub use journal_key::{KeyRef, KeySource, KeyStore, SHARED_KEY_ENV, STATE_DIR_ENV};
pub use migrate::{
    is_good, migrate_many, migrate_one, problem, refresh_dumps, unusable, Migrated,
    REIMPORT_STATEMENT_LIMIT,
};
pub use partition::{assign_partitions, in_partition, Partition};
pub use progress::{Bar, Progress, Silent};
pub use servers::{RunContext, Servers};
pub use spec::{
    positive_seconds, AuditSpec, EvalSpec, FailOn, FuzzSpec, PerturbFiles, PerturbSpec, RunSpec,
};
