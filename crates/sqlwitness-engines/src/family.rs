//! The engine families' registry: one [`Family`] per backend (what it
//! opens: a reader, a writer, a dump's namespace, a live source, a file
//! source; its default URL and its client's options), registered in
//! [`FAMILIES`], the one table the crate's entry points dispatch through.
//! A family whose cargo feature is off is not in the table: asking for it
//! is an error naming the engine. A fifth family is a module implementing
//! these functions and one line here.

use std::path::Path;
use std::time::Duration;

use sqlwitness_core::{
    DbError, DumpNamespace, EngineKind, ErrorClass, Migrator, ServerSource, Source, Stamp,
};
use sqlwitness_dialect::{Adapter, Dialect};

use crate::{EngineError, Opened};

/// Opens a reader of an engine of the family: its dialect, its URL (none
/// for an engine on the benchmark's own files) and its pool size.
pub(crate) type OpenFn = fn(EngineKind, Dialect, Option<&str>, u32) -> Result<Opened, EngineError>;
/// Opens the family's writer over an administrative URL.
pub(crate) type MigratorFn = fn(Dialect, &str) -> Result<Box<dyn Migrator>, DbError>;
/// Makes a namespace to load a dump into: the administrative URL, the
/// namespace, its stamp, the statement limit and the dump's size.
pub(crate) type DumpNamespaceFn =
    fn(Dialect, &str, &str, &Stamp, Duration, u64) -> Result<Box<dyn DumpNamespace>, DbError>;
/// Attaches a live database as a source: the administrative URL, the
/// source's URL and, where the family has schemas, one schema.
pub(crate) type LiveSourceFn =
    fn(EngineKind, Dialect, &str, &str, Option<&str>) -> Result<Box<dyn ServerSource>, DbError>;
/// Opens a benchmark database file of the family as a source.
pub(crate) type FileSourceFn = fn(&Path) -> Result<Box<dyn Source>, DbError>;

/// One engine family's backend; `None` where the family has no such part.
pub(crate) struct Family {
    pub adapter: Adapter,
    /// Whether the family runs in this process on database files, with
    /// no server and no login: SQLite on the benchmark's own files, DuckDB
    /// on copies in files of its own.
    pub embedded: bool,
    pub open: OpenFn,
    pub migrator: Option<MigratorFn>,
    pub dump_namespace: Option<DumpNamespaceFn>,
    pub live_source: Option<LiveSourceFn>,
    pub file_source: Option<FileSourceFn>,
    /// The URL used when none is given (an engine holding its copies in
    /// files of its own).
    pub default_url: Option<fn() -> String>,
    /// The connection options of the family's own command-line client,
    /// where that client takes no URL.
    pub client_options: Option<fn(&str) -> Vec<String>>,
    /// Its run logins, where the family has logins (a server).
    pub logins: Option<&'static Logins>,
    /// Its leases' records, where the family has leases (a server).
    pub leases: Option<&'static Leases>,
}

/// What a server family does with the records of its leases
/// ([`crate::lease`]).
pub(crate) struct Leases {
    /// Sweeps the records no session holds a lease for (administrative
    /// URL); what was dropped, as `kind name`.
    pub sweep: fn(&str) -> Result<Vec<String>, DbError>,
    /// Drops what a lease of this process recorded, and its records
    /// (administrative URL, lease, items).
    pub remove: fn(&str, &str, &[crate::lease::Leased]) -> Result<(), DbError>,
}

/// Creates login `name` with `password` over the administrative URL,
/// reading what `reads` says; drops run logins made before `stale_before`
/// (seconds since the epoch) that no record names.
pub(crate) type CreateFn =
    for<'a> fn(&str, &str, &str, u64, crate::login::RunReads<'a>) -> Result<(), DbError>;

/// Grants login `name` read access to namespace `ns` (administrative URL,
/// name, namespace).
pub(crate) type GrantFn = fn(&str, &str, &str) -> Result<(), DbError>;

/// A server family's run logins ([`crate::RunLogin`]).
pub(crate) struct Logins {
    /// Creates login `name` with `password` over the administrative URL,
    /// reading what `reads` says; drops run logins made before
    /// `stale_before` (seconds since the epoch) that no record names.
    pub create: CreateFn,
    /// Lets the login read a namespace made after it (where its grants are
    /// its own, not a role's it inherits).
    pub grant: Option<GrantFn>,
    /// Drops the login (best effort).
    pub drop: fn(&str, &str),
    /// Whether a login's URL names no database (its reads are its grants).
    pub url_without_database: bool,
}

// The families of adapters beyond the first three: each one a module and
// its entry in the table below.
#[path = "duckdb/mod.rs"]
mod duckdb;

/// Every family this build has: the registry.
const FAMILIES: &[&Family] = &[
    &crate::sqlite::FAMILY,
    &duckdb::FAMILY,
    #[cfg(feature = "postgres")]
    &crate::postgres::FAMILY,
    #[cfg(feature = "mysql")]
    &crate::mysql::FAMILY,
];

/// The family of `adapter`, when this build has it.
pub(crate) fn of(adapter: Adapter) -> Option<&'static Family> {
    FAMILIES.iter().copied().find(|f| f.adapter == adapter)
}

/// The run logins of `kind`'s family, when it has them in this build.
pub(crate) fn logins(kind: EngineKind) -> Option<&'static Logins> {
    of_kind(kind).and_then(|f| f.logins)
}

/// The family of `kind`'s dialect, when this build has it.
pub(crate) fn of_kind(kind: EngineKind) -> Option<&'static Family> {
    of(sqlwitness_dialect::shipped(kind).adapter)
}

/// `kind` has no `what` in this build: an error of class `other`.
pub(crate) fn lacks(kind: EngineKind, what: &str) -> DbError {
    DbError::new(
        ErrorClass::Other,
        None,
        format!("{kind}: {what} in this build (not such an engine, or its cargo feature is off)"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_is_registered_once() {
        let mut seen: Vec<Adapter> = FAMILIES.iter().map(|f| f.adapter).collect();
        let all = seen.len();
        seen.dedup();
        assert_eq!(seen.len(), all);
        for kind in EngineKind::all() {
            let adapter = sqlwitness_dialect::builtin(kind).adapter;
            let compiled = match adapter {
                Adapter::Postgres => cfg!(feature = "postgres"),
                Adapter::Mysql => cfg!(feature = "mysql"),
                _ => true,
            };
            assert_eq!(of_kind(kind).is_some(), compiled, "{kind}");
            // The descriptor and the dialect file agree on what runs here.
            if let Some(f) = of_kind(kind) {
                assert_eq!(
                    f.embedded,
                    !sqlwitness_dialect::EngineFacts::is_server(kind),
                    "{kind}"
                );
            }
        }
    }
}
