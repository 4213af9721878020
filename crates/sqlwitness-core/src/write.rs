//! The write side of a backend, for migration: a [`Migrator`] creates a
//! namespace it can later prove it owns, creates tables, loads rows as a
//! stream, adds keys, reads tables back and grants the reader access.
//!
//! Every engine family implements it once (in `sqlwitness-engines`, beside
//! its [`crate::Engine`]); the engine-independent migration sequence (in
//! `sqlwitness-bench`) drives it. Errors are [`DbError`]s: the class says
//! whether the server could not be reached (`connection`), refused a value
//! or a name, or ran out of a resource.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::{DbError, Value};

/// The kind of target type a column gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    Integer,
    Real,
    Numeric,
    Text,
    Blob,
    Date,
    Timestamp,
}

/// One column of a table to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnDef {
    pub name: String,
    pub kind: TargetKind,
    /// The target type exactly as created (`BIGINT`, `VARCHAR(64)` …).
    pub sql_type: String,
    pub not_null: bool,
}

/// A foreign key to add: child columns, parent table and columns (the
/// parent's primary key, in its order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignKeyDef {
    pub columns: Vec<String>,
    pub parent_table: String,
    pub parent_columns: Vec<String>,
}

/// A table to create and load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDef {
    pub name: String,
    pub columns: Vec<ColumnDef>,
    /// The primary key to add after the load (empty: none).
    pub primary_key: Vec<String>,
    /// The foreign keys to add after every table is loaded.
    pub foreign_keys: Vec<ForeignKeyDef>,
}

/// The name of the table inside every namespace sqlwitness creates that
/// proves it created it ([`Stamp`]). A benchmark table of this name is
/// refused.
pub const STAMP_TABLE: &str = "__sqlwitness";

/// The stamp's format; a stamp of another format is ours but out of date.
pub const STAMP_FORMAT: u32 = 1;

/// Whether a migration finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StampState {
    /// Written with the namespace, before any table: a copy that stops here
    /// (an interrupted migration) is never up to date.
    Loading,
    /// Every table loaded and verified.
    Complete,
}

/// What sqlwitness writes inside a namespace it creates (the one row of
/// [`STAMP_TABLE`]), in the same transaction as the namespace where the
/// server allows it: the proof of ownership, and what the copy holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stamp {
    /// Always `sqlwitness`.
    pub tool: String,
    /// [`STAMP_FORMAT`].
    pub format: u32,
    /// The benchmark database this namespace copies.
    pub db_id: String,
    pub state: StampState,
    /// The source's content fingerprint.
    pub source: String,
    /// The migration's own fingerprint (method version, target type map):
    /// a copy made by another method is out of date.
    pub plan: String,
    /// The migration's report (JSON), kept so that an up-to-date copy can
    /// say what it holds without reading it.
    #[serde(default)]
    pub report: Option<serde_json::Value>,
    /// The benchmark file the copy belongs to (its canonical path), where
    /// it matters: a copy `import` made on the dump's own engine, which no
    /// other benchmark's database of the same `db_id` may take over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home: Option<String>,
}

impl Stamp {
    pub const TOOL: &'static str = "sqlwitness";

    pub fn new(db_id: &str, source: &str, plan: &str) -> Stamp {
        Stamp {
            tool: Stamp::TOOL.to_string(),
            format: STAMP_FORMAT,
            db_id: db_id.to_string(),
            state: StampState::Loading,
            source: source.to_string(),
            plan: plan.to_string(),
            report: None,
            home: None,
        }
    }

    /// The stamp as stored (one JSON text).
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads a stored stamp; `None` unless it is one of ours.
    pub fn from_text(text: &str) -> Option<Stamp> {
        let stamp: Stamp = serde_json::from_str(text).ok()?;
        (stamp.tool == Stamp::TOOL).then_some(stamp)
    }
}

/// What a namespace on a server is to sqlwitness.
#[derive(Debug, Clone, PartialEq)]
pub enum Ownership {
    /// No schema or database of that name.
    Absent,
    /// Created by sqlwitness: it holds a readable stamp.
    Ours(Box<Stamp>),
    /// Something else: never dropped, altered or read. The reason names
    /// what was found.
    Foreign { reason: String },
}

impl Ownership {
    /// What an existing namespace is, from reading its stamp table:
    /// `what` names it for the reason (`schema "x"`, `` database `x` ``).
    pub fn of_stamp(what: &str, read: Result<Option<String>, DbError>) -> Ownership {
        match read {
            Ok(Some(text)) => match Stamp::from_text(&text) {
                Some(stamp) => Ownership::Ours(Box::new(stamp)),
                None => Ownership::Foreign {
                    reason: format!(
                        "{what} has a {STAMP_TABLE} table that is not sqlwitness's stamp"
                    ),
                },
            },
            Ok(None) => Ownership::Foreign {
                reason: format!("{what} has an empty {STAMP_TABLE} table"),
            },
            Err(e) => Ownership::Foreign {
                reason: format!(
                    "{what}: its {STAMP_TABLE} table cannot be read ({})",
                    e.message
                ),
            },
        }
    }
}

/// Rows handed to [`Migrator::load`], batch by batch. A batch is a slice
/// of rows of the table's column count, with values already of each
/// column's [`TargetKind`] (or NULL).
pub trait RowSource {
    /// The next batch, or `None` at the end. An error stops the load (it
    /// is the source's: a file that could not be read).
    fn next_batch(&mut self) -> Result<Option<&[Vec<Value>]>, DbError>;
}

/// What a load wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Loaded {
    /// Rows the server says it stored.
    pub rows: u64,
    /// How the rows were sent, where a backend has more than one way (and
    /// why not the fastest), for the migration log.
    pub note: Option<String>,
}

/// The write side of one backend over one administrative connection.
/// Synchronous; a server backend bridges to its driver inside. Names are
/// passed as written and quoted by the backend.
pub trait Migrator: Send {
    /// The server's version text (`SELECT version()`).
    fn server_version(&mut self) -> Result<String, DbError>;

    /// What the namespace `ns` is: absent, ours (with its stamp) or
    /// foreign.
    fn ownership(&mut self, ns: &str) -> Result<Ownership, DbError>;

    /// Creates the namespace with `stamp` inside it. Fails when it exists.
    fn create_namespace(&mut self, ns: &str, stamp: &Stamp) -> Result<(), DbError>;

    /// Replaces the stamp of namespace `ns` (ours).
    fn write_stamp(&mut self, ns: &str, stamp: &Stamp) -> Result<(), DbError>;

    /// Drops namespace `ns` — only when it holds our stamp (checked again
    /// here, on the server); a foreign one is an error naming it.
    fn drop_namespace(&mut self, ns: &str) -> Result<(), DbError>;

    /// Creates table `t`: its columns, and its primary key when
    /// `with_primary_key` (see [`Migrator::keys_before_load`]); foreign
    /// keys come after every load.
    fn create_table(
        &mut self,
        ns: &str,
        t: &TableDef,
        with_primary_key: bool,
    ) -> Result<(), DbError>;

    /// Drops table `t` of namespace `ns` (ours), to load it again.
    fn drop_table(&mut self, ns: &str, table: &str) -> Result<(), DbError>;

    /// Streams the rows of `rows` into table `t` in the server's bulk
    /// format.
    fn load(&mut self, ns: &str, t: &TableDef, rows: &mut dyn RowSource)
        -> Result<Loaded, DbError>;

    /// Gathers the planner's statistics for the loaded `tables` of `ns`, on
    /// servers that do not gather them on their own soon enough (PostgreSQL:
    /// a fresh copy's queries would otherwise be planned blind until
    /// autovacuum gets to it). Nothing by default.
    fn analyze(&mut self, _ns: &str, _tables: &[&str]) -> Result<(), DbError> {
        Ok(())
    }

    /// Adds `t.primary_key` (nothing when the table was created with it).
    fn add_primary_key(&mut self, ns: &str, t: &TableDef) -> Result<(), DbError>;

    /// Adds a unique key on `columns` of table `table` (after its rows are
    /// loaded; a key the migration checked on the source, compared as the
    /// values are stored here). A server that cannot add one refuses.
    fn add_unique_key(&mut self, ns: &str, table: &str, columns: &[String]) -> Result<(), DbError>;

    /// Adds foreign key `k` of `t`. The migration adds only keys it has
    /// checked on the source (every child row has a parent, compared as the
    /// values are stored on the target), so a backend need not have the
    /// server check the rows again.
    fn add_foreign_key(&mut self, ns: &str, t: &TableDef, k: usize) -> Result<(), DbError>;

    /// Adds the foreign keys `keys` of `t`: the outcome of each, in order.
    /// One by one by default; a server that rebuilds a table for every
    /// `ALTER TABLE` adds them in one statement where it can.
    fn add_foreign_keys(
        &mut self,
        ns: &str,
        t: &TableDef,
        keys: &[usize],
    ) -> Vec<Result<(), DbError>> {
        keys.iter()
            .map(|&k| self.add_foreign_key(ns, t, k))
            .collect()
    }

    /// The base tables of namespace `ns` (ours), by name.
    fn tables(&mut self, ns: &str) -> Result<Vec<String>, DbError>;

    /// Creates view `name` in namespace `ns` with query `sql` (the
    /// engine's dialect, its table names read inside `ns`), then reads its
    /// rows, the read cancelled at `limit` where the engine can. A view
    /// that cannot be created or read is an error (the caller drops it).
    fn create_view(
        &mut self,
        _ns: &str,
        _name: &str,
        _sql: &str,
        _limit: std::time::Duration,
    ) -> Result<crate::ResultSet, DbError> {
        Err(DbError::refused("views are not created on this engine"))
    }

    /// Drops view `name` of namespace `ns`, when it exists.
    fn drop_view(&mut self, _ns: &str, _name: &str) -> Result<(), DbError> {
        Ok(())
    }

    /// Streams every row of table `t` back, decoded as each column's
    /// [`TargetKind`], to `row`; returns the row count.
    fn read_back(
        &mut self,
        ns: &str,
        t: &TableDef,
        row: &mut dyn FnMut(&[Value]),
    ) -> Result<u64, DbError>;

    /// The rows table `table` of namespace `ns` holds, counted by the
    /// server over this connection (what a reader sees once the load is
    /// over, whatever the load reported).
    fn count_rows(&mut self, ns: &str, table: &str) -> Result<u64, DbError>;

    /// Gives the reader role read access to namespace `ns` (and nothing
    /// else); returns notes for the migration log.
    fn grant_reader(&mut self, ns: &str) -> Result<Vec<String>, DbError>;

    /// Serialises migrations of `ns` across processes (a lock on the
    /// server, held until [`Migrator::unlock`] or the connection ends).
    fn lock(&mut self, ns: &str) -> Result<(), DbError>;

    fn unlock(&mut self, ns: &str);

    /// Creates or fixes the reader login on this server (once per server,
    /// before databases migrate in parallel); returns notes.
    fn prepare_reader(&mut self) -> Result<Vec<String>, DbError>;

    /// The namespace the administrative connection itself works in (MySQL:
    /// the URL's database), which no copy may take.
    fn home(&mut self) -> Option<String> {
        None
    }

    /// The namespace's collation, where the engine has one per namespace.
    fn collation(&mut self, ns: &str) -> Option<String> {
        let _ = ns;
        None
    }

    /// Whether the primary key is best declared with the table, before the
    /// load (MySQL: InnoDB clusters rows by it, and adding it later
    /// rebuilds the table), rather than added after it.
    fn keys_before_load(&self) -> bool {
        false
    }

    /// Whether tables of one namespace may load over several connections
    /// opened on the same URL at once. An embedded engine whose every
    /// connection opens its own instance of the file (DuckDB) says no: a
    /// second instance's rows would never reach the first's file.
    fn loads_in_parallel(&self) -> bool {
        true
    }
}

/// One column of a source table, as the source declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceColumn {
    pub name: String,
    /// The declared type as written (`varchar(20)`, `INTEGER`, or empty).
    pub declared: String,
    pub not_null: bool,
}

/// A foreign key as the source declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceForeignKey {
    pub columns: Vec<String>,
    pub parent_table: String,
    /// `None` where the key names no parent column (the parent's primary
    /// key).
    pub parent_columns: Vec<Option<String>>,
}

/// One table of a source database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceTable {
    pub name: String,
    pub columns: Vec<SourceColumn>,
    /// Primary-key column indexes, in key order.
    pub primary_key: Vec<usize>,
    pub foreign_keys: Vec<SourceForeignKey>,
    /// Column sets the source itself keeps unique under exact (binary)
    /// comparison: unique indexes with the binary collation, and the row
    /// id (SQLite's `INTEGER PRIMARY KEY`).
    pub unique: Vec<Vec<usize>>,
}

/// A source database's tables, and the objects that are not migrated.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceSchema {
    pub tables: Vec<SourceTable>,
    /// Views, virtual tables … that are not migrated, each with why.
    pub skipped: Vec<String>,
}

/// The canonical key of a value as it will be stored on a target, for
/// exact key checks (`kind` is the column's target kind).
pub type KeyFn = dyn Fn(TargetKind, &Value) -> Vec<u8> + Send + Sync;

/// A cell the source could not read exactly: `(row, column)` of a text
/// that was not valid UTF-8 (read with U+FFFD replacements).
pub type LossyCell = (u64, usize);

/// Receives the rows of a [`Source::scan`], a batch at a time, with the
/// batch's lossy cells. The rows are the receiver's to take values out of
/// (the source clears the batch after): a migration moves them on rather
/// than copying every text.
pub type ScanBatch<'a> = dyn FnMut(&mut [Vec<Value>], &[LossyCell]) -> Result<(), DbError> + 'a;

/// A range of a table's rows to scan apart (SQLite: row ids `first` to
/// `last`, both included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanPart {
    pub first: i64,
    pub last: i64,
}

/// A database to migrate from, read as a stream (the read side of a
/// backend, for migration). Values come in the source's own storage
/// (SQLite: integer, real, text, blob or NULL).
pub trait Source: Send {
    /// The tables, columns and keys.
    fn schema(&mut self) -> Result<SourceSchema, DbError>;

    /// Streams every row of `table` (columns in declared order), a batch
    /// at a time, to `batch`; the lossy cells of each batch are given with
    /// rows counted from the table's first row. Returns the row count.
    fn scan(&mut self, table: &SourceTable, batch: &mut ScanBatch<'_>) -> Result<u64, DbError>;

    /// Another reader of the same source, to scan parts of a table at once
    /// ([`Source::scan_part`]); `None` where there is only one.
    fn reopen(&self) -> Option<Result<Box<dyn Source>, DbError>> {
        None
    }

    /// Up to `parts` ranges of `table`'s rows that hold every row once, in
    /// scan order, each to read with [`Source::scan_part`]; empty where the
    /// table cannot be split or is too small to be worth it.
    fn parts(&mut self, _table: &SourceTable, _parts: usize) -> Result<Vec<ScanPart>, DbError> {
        Ok(Vec::new())
    }

    /// Streams the rows of one part of `table` (from [`Source::parts`]),
    /// as [`Source::scan`] streams them all; lossy cells are counted from
    /// the part's first row.
    fn scan_part(
        &mut self,
        _table: &SourceTable,
        _part: &ScanPart,
        _batch: &mut ScanBatch<'_>,
    ) -> Result<u64, DbError> {
        Err(DbError::new(
            crate::ErrorClass::Other,
            None,
            "this source scans a table only whole",
        ))
    }

    /// How the rows of `table` violate a key on `cols` once their values
    /// are stored as `kinds` (compared by `key`): rows with a NULL in a key
    /// column, and rows that repeat another row's key. Bounded memory.
    fn key_violations(
        &mut self,
        table: &SourceTable,
        cols: &[usize],
        kinds: &[TargetKind],
        key: &Arc<KeyFn>,
    ) -> Result<(u64, u64), DbError>;

    /// Rows of `child` whose `cols` are all non-NULL and match no row of
    /// `parent` on `pcols` (compared by `key` as `kinds`). With `exact`,
    /// the source's own equality is exact for these columns (same storage,
    /// binary collation, values unchanged by the migration) and the
    /// parent's columns are unique, so no key function is needed.
    #[allow(clippy::too_many_arguments)]
    fn orphans(
        &mut self,
        child: &SourceTable,
        cols: &[usize],
        parent: &SourceTable,
        pcols: &[usize],
        kinds: &[TargetKind],
        key: &Arc<KeyFn>,
        exact: bool,
    ) -> Result<u64, DbError>;
}

/// One column of a table copied on its dump's own server
/// ([`ServerSource::copy_table`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopiedColumn {
    pub name: String,
    /// The type as created: the dump's own (`numeric(10,2)`,
    /// `character varying(20)`, `enum('a','b')`, an enum type recreated in
    /// the copy's namespace …).
    pub sql_type: String,
    pub not_null: bool,
    /// An enum type's labels in their declared order, where the type is
    /// one the dump defines (PostgreSQL's `CREATE TYPE … AS ENUM`); MySQL's
    /// are in `sql_type`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
}

/// A table of a loaded dump copied, with its own column types, into a
/// namespace of a migrated copy on the same server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopiedTable {
    pub name: String,
    pub columns: Vec<CopiedColumn>,
    pub rows_source: u64,
    pub rows_target: u64,
    /// An order-independent checksum of the rows as the server renders them
    /// as text, in the loaded dump and in the copy.
    pub checksum_source: String,
    pub checksum_target: String,
    /// Whether the primary key was added (`false` when the table has none).
    pub primary_key: bool,
    /// Keys the server refused, and other things the copy does not keep.
    #[serde(default)]
    pub notes: Vec<String>,
}

impl CopiedTable {
    /// The same rows, by count and checksum, on both sides.
    pub fn verified(&self) -> bool {
        self.rows_source == self.rows_target && self.checksum_source == self.checksum_target
    }
}

/// Tables on a server read as a migration [`Source`] and copied, with their
/// own column types, into a benchmark copy's namespace on the run's server:
/// a dump loaded into a namespace of its own ([`DumpNamespace`]), or a live
/// database or schema a benchmark names, read and never changed.
pub trait ServerSource: Source {
    /// The server's version text.
    fn server_version(&mut self) -> Result<String, DbError>;

    /// Objects beside the tables that are not base tables (views,
    /// triggers, routines …), as `kind name`.
    fn other_objects(&mut self) -> Result<Vec<String>, DbError>;

    /// The views beside the tables, with their queries as the server
    /// prints them (names of the source's own database left out), in the
    /// order the server created them.
    fn views(&mut self) -> Result<Vec<SourceView>, DbError>;

    /// The rows of view `name` (one of [`ServerSource::views`]), read by the
    /// login the source's objects are confined to: a dump's loader, a live
    /// database's own login. Never the administrative login: a view runs
    /// the functions it calls with the reader's rights. A read still
    /// running at `limit` is an error of class `timeout`.
    fn view_rows(
        &mut self,
        name: &str,
        limit: std::time::Duration,
    ) -> Result<crate::ResultSet, DbError>;

    /// Copies `table` into a table of the same name in namespace `ns` on
    /// the run's server — a namespace sqlwitness created for a benchmark
    /// copy ([`Migrator::create_namespace`] over the same administrative
    /// URL) — with its own column types, its rows, its primary key and its
    /// unique keys, then checks both sides hold the same rows. A column
    /// whose type has no form outside its namespace (a type the dump or
    /// the database defined, other than an enum) is an error naming it.
    fn copy_table(&mut self, ns: &str, table: &SourceTable) -> Result<CopiedTable, DbError>;

    /// Adds foreign key `k` of `table` to its copy in `ns` (after every
    /// table is copied).
    fn copy_foreign_key(&mut self, ns: &str, table: &SourceTable, k: usize) -> Result<(), DbError>;

    /// Adds every foreign key of `table` to its copy in `ns` (after every
    /// table is copied): one outcome per key, in the order of
    /// `table.foreign_keys`. By default one [`ServerSource::copy_foreign_key`]
    /// each; a backend may add them together.
    fn copy_foreign_keys(&mut self, ns: &str, table: &SourceTable) -> Vec<Result<(), DbError>> {
        (0..table.foreign_keys.len())
            .map(|k| self.copy_foreign_key(ns, table, k))
            .collect()
    }

    /// Ends the sessions. A namespace made for a dump is dropped (only
    /// while it still holds sqlwitness's stamp) with its loader login; a
    /// live source is left as it was.
    fn close(&mut self) -> Result<(), DbError>;
}

/// A view of a [`ServerSource`]: its name and its query as the server
/// prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceView {
    pub name: String,
    pub definition: String,
}

/// The loader session's settings that change where the server's strings
/// and quoted names end ([`DumpNamespace::lexing`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexSettings {
    /// PostgreSQL `standard_conforming_strings` (true elsewhere).
    pub standard_strings: bool,
    /// MySQL `sql_mode` `NO_BACKSLASH_ESCAPES` (false elsewhere).
    pub no_backslash_escapes: bool,
    /// MySQL `sql_mode` `ANSI_QUOTES` (false elsewhere).
    pub ansi_quotes: bool,
    /// The client's character set or encoding, as the server names it.
    pub client_charset: String,
}

/// A namespace sqlwitness created on a server to load a SQL dump into, with
/// a login of its own that may change that namespace and nothing else (no
/// superuser, no server files or programs, no roles, limits on its time,
/// memory and temporary files): the dump runs as that login, statement by
/// statement, each within a time limit, and its own code (triggers,
/// functions) runs with that login's rights. The loaded namespace is then
/// read as a [`ServerSource`] in a way that runs none of the dump's code
/// with another login's rights. [`ServerSource::close`] drops the namespace
/// (after checking its stamp again) and the login.
pub trait DumpNamespace: ServerSource {
    /// Runs one statement of the dump as the loader login, sent so that
    /// the server refuses a text it parses as several statements (an error
    /// of class `refused`). A statement still running at `limit` is
    /// cancelled, and is an error of class `timeout`.
    /// The text is handed over (a dump's statement may be hundreds of MB).
    fn run(&mut self, sql: String, limit: std::time::Duration) -> Result<(), DbError>;

    /// The loader session's settings that decide how the server lexes the
    /// next statement, as the server reports them.
    fn lexing(&mut self) -> Result<LexSettings, DbError>;

    /// The load is over: the loader's loading session ends; the loaded
    /// namespace is read from here on.
    fn finish_load(&mut self) -> Result<(), DbError>;

    /// Runs `COPY … FROM stdin` (`sql`) as the loader login with the data
    /// `data` hands out chunk by chunk (`None` at the end); the rows
    /// loaded. Servers without `COPY` refuse it.
    fn copy_in(
        &mut self,
        sql: &str,
        data: &mut dyn FnMut() -> Result<Option<Vec<u8>>, DbError>,
        limit: std::time::Duration,
    ) -> Result<u64, DbError>;
}
