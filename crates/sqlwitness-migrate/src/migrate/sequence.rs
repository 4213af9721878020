//! The engine-independent migration sequence over a backend's
//! [`Migrator`]:
//!
//! 1. refuse a namespace the server keeps for itself;
//! 2. under a server-side lock on the namespace, ask what it is: absent,
//!    ours (a stamp sqlwitness wrote inside it) or foreign (never touched:
//!    the migration fails naming it);
//! 3. an up-to-date copy — its stamp names the same source content and the
//!    same migration method — is a lookup: nothing is read or written; a
//!    copy `sqlwitness import` made from a dump on its own engine, with the
//!    dump's own types, is kept while the SQLite file written from the same
//!    tables is unchanged (even with `--force`), and refused (kept, with how
//!    to renew it) when that file changed, unless `--force`;
//! 4. else profile the source (one streaming pass, cached by the source's
//!    fingerprint), decide every column and key, drop our old copy, create
//!    the namespace with a stamp that says "loading", create the tables,
//!    stream each table through conversion and hashing into the server's
//!    bulk load (tables in parallel, each over its own connection; a table
//!    that dominates the database first, the others beside its key
//!    builds), add each table's foreign keys as soon as it and its parents
//!    are loaded, grant the reader, check the counts (or, with `--verify
//!    full`, read every row back), and stamp the copy complete.
//!
//! Memory is bounded by a few batches of rows per table being loaded,
//! whatever the database's size.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use sqlwitness_core::{
    Database, DbError, EngineKind, Migrator, Ownership, RowSource, Source, SourceSchema, Stamp,
    StampState, Value, STAMP_FORMAT,
};
use sqlwitness_dialect::Dialect;

use super::fingerprint::{cache_dir, cache_get, cache_put, source_fingerprint};
use super::keys::{key_columns, plan_database, resolve_foreign_keys, DbPlan, KeyCache, TablePlan};
use super::log::{
    Coercions, MigrationReport, MigrationStatus, TableReport, Verification, CHECKSUM_METHOD,
};
use super::plan::Converter;
use super::profile::{profile, TableProfile, PROFILE_VERSION};
use super::verify::{hash_forms, Checksum};
use super::{MigrateOptions, MigrationTarget, Verify};
use sqlwitness_bench::BenchError;

/// The migration method's version: a copy made by another method is
/// migrated again (it is part of the stamp's plan fingerprint). 2: unique
/// keys are carried, and foreign keys may refer to them.
const METHOD_VERSION: u32 = 2;

/// The version of how views are carried, in the plan fingerprint of a
/// database that has views (see [`super::views`]).
const VIEWS_VERSION: u32 = 1;

/// Batches of converted rows waiting for the loader, per table.
const PIPELINE_DEPTH: usize = 4;

/// Below this many source rows, a database loads over one connection.
const PARALLEL_FROM_ROWS: u64 = 100_000;

fn err(db: &Database, engine: EngineKind, e: impl std::fmt::Display) -> BenchError {
    BenchError::Migration {
        db_id: db.db_id.clone(),
        engine: engine.to_string(),
        message: e.to_string(),
    }
}

/// The migration's own fingerprint for `dialect`: the method version and
/// the type map (a copy made with other target types is out of date).
fn plan_fingerprint(dialect: &Dialect) -> String {
    let types = &dialect.types;
    format!(
        "method {METHOD_VERSION}, stamp {STAMP_FORMAT}; types {} {} {} {} {} {} {} {}; key varchar {:?}; nul {}",
        types.integer,
        types.real,
        types.numeric,
        types.text,
        types.blob,
        types.boolean,
        types.date,
        types.timestamp,
        types.key_varchar_max,
        types.text_rejects_nul
    )
}

pub(crate) fn table_report(t: &TablePlan) -> TableReport {
    let mut primary_key = t.primary_key.clone();
    if t.apply_pk {
        primary_key.reason = format!("{} (to be applied)", primary_key.reason);
    }
    let mut unique_keys = t.unique_keys.clone();
    for (k, apply) in unique_keys.iter_mut().zip(&t.apply_unique) {
        if *apply {
            k.reason = format!("{} (to be applied)", k.reason);
        }
    }
    TableReport {
        name: t.def.name.clone(),
        rows_source: t.rows,
        rows_target: None,
        checksum_source: String::new(),
        checksum_target: None,
        verified: false,
        error: None,
        columns: t.columns.clone(),
        coercions: Coercions::default(),
        primary_key,
        unique_keys,
        foreign_keys: t.foreign_keys.clone(),
        load_ms: None,
        key_ms: None,
        foreign_keys_ms: None,
    }
}

/// The source's schema, profile (cached by `fingerprint`) and plan for
/// `dialect`.
pub(crate) fn plan_source(
    src: &mut dyn Source,
    dialect: &Dialect,
    fingerprint: &str,
    cache: Option<&std::path::Path>,
    steps: &mut std::collections::BTreeMap<String, u64>,
) -> Result<(SourceSchema, DbPlan), DbError> {
    let started = Instant::now();
    let schema = src.schema()?;
    let profile_key = format!("{fingerprint}|profile {PROFILE_VERSION}");
    let profiles: Vec<TableProfile> =
        match cache_get::<Vec<TableProfile>>(cache, "profiles", &profile_key) {
            Some(p) if p.len() == schema.tables.len() => p,
            _ => {
                let resolved = resolve_foreign_keys(&schema);
                let p = profile(src, &schema, &resolved, &key_columns(&schema, &resolved))?;
                cache_put(cache, "profiles", &profile_key, &p);
                p
            }
        };
    steps.insert("profile".into(), started.elapsed().as_millis() as u64);
    let started = Instant::now();
    let plan = plan_database(
        src,
        &schema,
        &profiles,
        dialect,
        &KeyCache {
            dir: cache,
            fingerprint,
        },
    )?;
    steps.insert("plan".into(), started.elapsed().as_millis() as u64);
    Ok((schema, plan))
}

pub(crate) fn run(
    db: &Database,
    target: &MigrationTarget,
    opts: &MigrateOptions,
) -> Result<MigrationReport, BenchError> {
    let started = Instant::now();
    let engine = target.engine();
    let dialect = sqlwitness_dialect::shipped(engine);
    let ns = db.namespace.as_str();
    if let Some(why) = dialect.namespaces.refuses(ns) {
        return Err(err(
            db,
            engine,
            format!(
                "the namespace is refused: {why}; nothing was changed (set a namespace prefix)"
            ),
        ));
    }
    let cache = cache_dir(opts.cache_dir.as_deref());
    let fingerprint = source_fingerprint(&db.sqlite_path, cache.as_deref())?;
    let mut w =
        sqlwitness_engines::open_migrator(engine, &target.url).map_err(|e| err(db, engine, e))?;
    let server_version = w.server_version().map_err(|e| err(db, engine, e))?;
    // MySQL and MariaDB speak one protocol: a URL that reaches the other
    // engine migrates nothing.
    if !dialect.server.matches(&server_version) {
        return Err(err(
            db,
            engine,
            format!("the server is not {engine} (it reports version `{server_version}`)"),
        ));
    }
    if let Some(home) = w.home() {
        if home.eq_ignore_ascii_case(ns) {
            return Err(err(
                db,
                engine,
                format!(
                    "the namespace is refused: `{ns}` is the administrative URL's own database; \
                     nothing was changed (set a namespace prefix)"
                ),
            ));
        }
    }
    let views = super::views::sqlite_views(&db.sqlite_path).map_err(|e| err(db, engine, e))?;
    // The source's column model, where `import` wrote one: the copy's
    // types come from it.
    let model = sqlwitness_bench::read_model(&db.sqlite_path)?;
    w.lock(ns).map_err(|e| err(db, engine, e))?;
    let mut ctx = Ctx {
        db,
        target,
        opts,
        dialect,
        cache: cache.as_deref(),
        fingerprint: &fingerprint,
        // A copy of a database with views holds them too: one made before
        // views were carried is out of date (a database without views keeps
        // its copies' fingerprint). A copy typed from another one is not
        // the ordinary one.
        plan_fp: {
            let mut fp = plan_fingerprint(dialect);
            if !views.is_empty() {
                fp.push_str(&format!("; views {VIEWS_VERSION}"));
            }
            if let Some(m) = &model {
                fp.push_str(&format!("; source types {}", m.fingerprint()));
            }
            if let Some(from) = &opts.types_from {
                fp.push_str(&format!("; types from {}", from.namespace));
            }
            fp
        },
        model,
        server_version,
        views,
        verify: opts.verify,
    };
    let result = ctx.locked(&mut *w);
    w.unlock(ns);
    let mut report = result.map_err(|e| err(db, engine, e))?;
    report.duration_ms = started.elapsed().as_millis() as u64;
    Ok(report)
}

struct Ctx<'a> {
    db: &'a Database,
    target: &'a MigrationTarget,
    opts: &'a MigrateOptions,
    dialect: &'a Dialect,
    cache: Option<&'a std::path::Path>,
    fingerprint: &'a str,
    plan_fp: String,
    server_version: String,
    /// The SQLite file's views (name, `CREATE VIEW` text).
    views: Vec<(String, String)>,
    /// The source's column model beside the SQLite file.
    model: Option<sqlwitness_bench::SourceModel>,
    /// `opts.verify`, or `Full` once column types come from the original.
    verify: Verify,
}

/// What loading one table gave.
#[derive(Default)]
struct Load {
    /// Rows the source gave, their checksum (as converted) and coercions.
    scanned: u64,
    checksum: String,
    coercions: Coercions,
    /// Rows the server stored.
    stored: u64,
    /// The primary key was declared with the table and held.
    pk_inline: bool,
    /// The primary key was added after the load: `Err` is the server's
    /// refusal.
    pk_added: Option<Result<(), DbError>>,
    /// The unique keys to apply added after the load, in the plan's order
    /// of those applied: `Err` is the server's refusal.
    unique_added: Vec<Result<(), DbError>>,
    error: Option<String>,
    /// How the backend sent the rows (for the log).
    note: Option<String>,
    load_ms: u64,
    key_ms: Option<u64>,
}

/// The foreign keys added to one table: each key's outcome, and the time
/// the statements took.
struct AddedKeys {
    outcomes: Vec<Result<(), DbError>>,
    ms: u64,
}

/// When each table's foreign keys can be added: once the table and every
/// parent it refers to have been loaded (and given their primary keys).
struct KeyWaits {
    /// Per table, the tables its keys wait for (itself included); empty
    /// when it has no key to add.
    waits_for: Vec<Vec<usize>>,
    state: Mutex<KeyState>,
    changed: Condvar,
}

/// Marks a table's load over when dropped (also when the loader panics:
/// the other connections never wait for it in vain).
struct Finished<'a> {
    waits: &'a KeyWaits,
    table: usize,
    ok: bool,
}

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.waits.finished(self.table, self.ok);
    }
}

struct KeyState {
    /// Per table: its load is over (or it was never created).
    done: Vec<bool>,
    /// Per table: it was loaded without an error.
    loaded: Vec<bool>,
    /// Per table: its keys were handed to a connection (or given up).
    claimed: Vec<bool>,
}

impl KeyWaits {
    fn new(plan: &DbPlan, created: &[bool]) -> KeyWaits {
        let names: Vec<&str> = plan.tables.iter().map(|t| t.def.name.as_str()).collect();
        let parents: Vec<Vec<&str>> = plan
            .tables
            .iter()
            .map(|t| {
                t.def
                    .foreign_keys
                    .iter()
                    .zip(&t.apply_fk)
                    .filter(|(_, &apply)| apply)
                    .map(|(fk, _)| fk.parent_table.as_str())
                    .collect()
            })
            .collect();
        KeyWaits::of(&names, &parents, created)
    }

    /// `names` the tables, `parents` per table the parent of each key to
    /// add, `created` per table whether it exists (to be loaded).
    fn of(names: &[&str], parents: &[Vec<&str>], created: &[bool]) -> KeyWaits {
        let find = |want: &str| {
            names
                .iter()
                .position(|n| *n == want)
                .or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(want)))
        };
        let waits_for = parents
            .iter()
            .enumerate()
            .map(|(i, ps)| {
                let mut on: BTreeSet<usize> = BTreeSet::new();
                for p in ps {
                    on.insert(i);
                    on.extend(find(p));
                }
                on.into_iter().collect()
            })
            .collect();
        KeyWaits {
            waits_for,
            state: Mutex::new(KeyState {
                done: created.iter().map(|c| !c).collect(),
                loaded: vec![false; created.len()],
                claimed: vec![false; created.len()],
            }),
            changed: Condvar::new(),
        }
    }

    /// Table `i`'s load is over (`ok`: without an error).
    fn finished(&self, i: usize, ok: bool) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.done[i] = true;
        s.loaded[i] = ok;
        self.changed.notify_all();
    }

    fn is_done(&self, i: usize) -> bool {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).done[i]
    }

    /// Waits until a load is over (or a while).
    fn wait(&self) {
        let s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let _ = self
            .changed
            .wait_timeout(s, std::time::Duration::from_millis(100));
    }

    /// A table whose keys can be added now, handed to the caller alone.
    fn claim(&self) -> Option<usize> {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        for (j, on) in self.waits_for.iter().enumerate() {
            if on.is_empty() || s.claimed[j] || !on.iter().all(|&p| s.done[p]) {
                continue;
            }
            s.claimed[j] = true;
            if s.loaded[j] {
                return Some(j);
            }
        }
        None
    }
}

/// The order in which a database's tables load.
///
/// A table that holds at least half the rows and has keys to add after its
/// load is the migration's critical path (`big`): it loads first, beside
/// the parents its keys wait for; the other tables wait until its rows are
/// in and load beside its keys (an index build or a foreign-key check,
/// which leaves a core free), not beside its rows.
#[derive(Debug)]
struct LoadOrder {
    /// The created tables: those of `first` before the others, each part
    /// the largest first.
    order: Vec<usize>,
    /// The critical table, when the load is parallel and there is one.
    big: Option<usize>,
    /// The tables that load without waiting: `big` and the tables its keys
    /// wait for; every table when there is no `big`.
    first: BTreeSet<usize>,
}

impl LoadOrder {
    /// The order of the tables: `rows` per table its rows, `keys_after`
    /// whether keys are added after its load, `created` whether it exists
    /// (to be loaded), `waits_for` the tables its keys wait for
    /// ([`KeyWaits`]); `parallel` when more than one connection loads.
    fn of(
        rows: &[u64],
        keys_after: &[bool],
        created: &[bool],
        parallel: bool,
        waits_for: &[Vec<usize>],
    ) -> LoadOrder {
        let mut order: Vec<usize> = (0..rows.len()).filter(|&i| created[i]).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(rows[i]));
        let big = order.first().copied().filter(|&b| {
            let rest: u64 = order.iter().skip(1).map(|&i| rows[i]).sum();
            parallel && keys_after[b] && rows[b] >= rest
        });
        let first: BTreeSet<usize> = match big {
            Some(b) => waits_for[b].iter().copied().chain([b]).collect(),
            None => order.iter().copied().collect(),
        };
        order.sort_by_key(|&i| (!first.contains(&i), std::cmp::Reverse(rows[i])));
        LoadOrder { order, big, first }
    }
}

/// What the connections loading a database share: the plan, the order,
/// when keys can be added, the next table of the order to take, the lock
/// that adds one table's foreign keys at a time, and per table its load
/// and the keys added to it.
struct Loading<'p> {
    plan: &'p DbPlan,
    inline_keys: bool,
    order: LoadOrder,
    waits: KeyWaits,
    next: AtomicUsize,
    adding: Mutex<()>,
    results: Vec<Mutex<Option<Load>>>,
    keys: Vec<Mutex<Option<AddedKeys>>>,
}

impl Loading<'_> {
    /// Per table, its load (the default for one not loaded) and the keys
    /// added to it.
    fn into_outcomes(self) -> (Vec<Load>, Vec<Option<AddedKeys>>) {
        let loads = self
            .results
            .into_iter()
            .map(|m| {
                m.into_inner()
                    .unwrap_or_else(|e| e.into_inner())
                    .unwrap_or_default()
            })
            .collect();
        let keys = self
            .keys
            .into_iter()
            .map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect();
        (loads, keys)
    }
}

/// Rows handed from the scanning thread to the loader.
struct ChannelRows {
    rx: Receiver<Result<Vec<Vec<Value>>, DbError>>,
    current: Vec<Vec<Value>>,
}

impl RowSource for ChannelRows {
    fn next_batch(&mut self) -> Result<Option<&[Vec<Value>]>, DbError> {
        match self.rx.recv() {
            Ok(Ok(batch)) => {
                self.current = batch;
                Ok(Some(&self.current))
            }
            Ok(Err(e)) => Err(e),
            Err(_) => Ok(None),
        }
    }
}

impl Ctx<'_> {
    fn ns(&self) -> &str {
        &self.db.namespace
    }

    fn base_report(&self, tables: Vec<TableReport>, notes: Vec<String>) -> MigrationReport {
        MigrationReport {
            db_id: self.db.db_id.clone(),
            engine: self.target.engine(),
            namespace: self.db.namespace.clone(),
            server_version: self.server_version.clone(),
            collation: None,
            status: MigrationStatus::Migrated,
            tables,
            notes,
            checksum_method: CHECKSUM_METHOD.to_string(),
            verification: match self.verify {
                Verify::Load => Verification::Load,
                Verify::Full => Verification::Full,
            },
            duration_ms: 0,
            steps_ms: Default::default(),
            views: Vec::new(),
            column_types: None,
        }
    }

    /// Grants the reader (making it ready first unless the caller did).
    fn grant(&self, w: &mut dyn Migrator, notes: &mut Vec<String>) {
        if !self.opts.reader_ready {
            match w.prepare_reader() {
                Ok(n) => notes.extend(n),
                Err(e) => notes.push(format!("could not make the reader login ready: {e}")),
            }
        }
        match w.grant_reader(self.ns()) {
            Ok(n) => notes.extend(n),
            Err(e) => notes.push(format!(
                "could not grant read access to {}: {e}",
                sqlwitness_engines::READER_LOGIN
            )),
        }
    }

    fn locked(&mut self, w: &mut dyn Migrator) -> Result<MigrationReport, DbError> {
        let ns = self.ns().to_string();
        let mut notes = Vec::new();
        match w.ownership(&ns)? {
            Ownership::Foreign { reason } => {
                return Err(DbError::refused(format!(
                    "{reason}; it was left untouched (drop it yourself if it is a leftover, or \
                     set a namespace prefix)"
                )))
            }
            Ownership::Ours(stamp) if crate::dump::is_source_copy(&stamp) => {
                if let Some(report) = self.source_copy(w, &stamp)? {
                    return Ok(report);
                }
                notes.push(
                    "the namespace held a copy made from the dump on its own engine whose SQLite \
                     file has changed since (or that was unfinished): dropped, as --force asks, \
                     and migrated from the SQLite file"
                        .to_string(),
                );
                w.drop_namespace(&ns)?;
            }
            Ownership::Ours(stamp) => {
                if let Some(report) = self.up_to_date(w, &stamp)? {
                    return Ok(report);
                }
                notes.push(
                    "the namespace held an older or unfinished copy made by sqlwitness: \
                            dropped and migrated again"
                        .to_string(),
                );
                w.drop_namespace(&ns)?;
            }
            Ownership::Absent => {}
        }
        self.migrate(w, notes)
    }

    /// The report of a copy made by `sqlwitness import` from a dump on
    /// this, its own, engine with the dump's own column types, while the
    /// SQLite file written from the same tables is unchanged: it is the
    /// engine's faithful copy and is kept, even with `--force` (which would
    /// otherwise replace it by a copy migrated from that file). `None` when
    /// it is out of date or unfinished and `--force` asks to replace it;
    /// else such a copy is an error that says how to renew it.
    fn source_copy(
        &self,
        w: &mut dyn Migrator,
        stamp: &Stamp,
    ) -> Result<Option<MigrationReport>, DbError> {
        let report = (stamp.state == StampState::Complete
            && stamp.db_id == self.db.db_id
            && stamp.source == self.fingerprint)
            .then(|| stamp.report.clone())
            .flatten()
            .and_then(|v| serde_json::from_value::<MigrationReport>(v).ok());
        let current = match &report {
            Some(r) => {
                let want: BTreeSet<String> = r.tables.iter().map(|t| t.name.clone()).collect();
                let have: BTreeSet<String> = w.tables(self.ns())?.into_iter().collect();
                want == have
            }
            None => false,
        };
        let Some(mut report) = report.filter(|_| current) else {
            if self.opts.force {
                return Ok(None);
            }
            return Err(DbError::refused(format!(
                "`{}` holds a copy made by `sqlwitness import` from the dump on its own engine \
                 (the dump's own column types), but the SQLite file {} has changed since, or the \
                 copy is unfinished: it was kept; import the dump again, or replace it by a copy \
                 migrated from the SQLite file with `sqlwitness migrate --force`",
                self.ns(),
                self.db.sqlite_path.display()
            )));
        };
        let mut notes = vec![
            "up to date: the copy made by `sqlwitness import` from the dump on its own engine, \
             with the dump's own column types and keys; kept (never replaced by a copy migrated \
             from the SQLite file)"
                .to_string(),
        ];
        if self.opts.verify == Verify::Full {
            notes.push(
                "--verify full: this copy was checked against the loaded dump when it was made \
                 (row counts and server-side checksums); it is not read back"
                    .to_string(),
            );
        }
        self.grant(w, &mut notes);
        report.status = MigrationStatus::UpToDate;
        report.notes.extend(notes);
        report.server_version = self.server_version.clone();
        Ok(Some(report))
    }

    /// The report of a copy whose stamp says it is up to date (with
    /// `--verify full`, after reading every table back), else `None`.
    fn up_to_date(
        &self,
        w: &mut dyn Migrator,
        stamp: &Stamp,
    ) -> Result<Option<MigrationReport>, DbError> {
        let current = stamp.state == StampState::Complete
            && stamp.db_id == self.db.db_id
            && stamp.source == self.fingerprint
            && stamp.plan == self.plan_fp
            && !self.opts.force;
        let Some(mut report) = current
            .then(|| stamp.report.clone())
            .flatten()
            .and_then(|v| serde_json::from_value::<MigrationReport>(v).ok())
        else {
            return Ok(None);
        };
        let want: BTreeSet<String> = report.tables.iter().map(|t| t.name.clone()).collect();
        let have: BTreeSet<String> = w.tables(self.ns())?.into_iter().collect();
        if want != have {
            return Ok(None);
        }
        let mut notes = vec![
            "up to date: the namespace's stamp names the same source content and migration \
             method; nothing was read or written"
                .to_string(),
        ];
        if self.opts.verify == Verify::Full {
            for t in &mut report.tables {
                let def = table_def_of(t);
                let (rows, sum) = read_back(w, self.ns(), &def, self.dialect)?;
                t.rows_target = Some(rows);
                t.checksum_target = Some(sum.clone());
                t.verified = rows == t.rows_source && sum == t.checksum_source;
                if !t.verified {
                    return Ok(None);
                }
            }
            notes[0] = "up to date: the stamp matches and every row read back has the \
                        checksum of the stream written"
                .to_string();
            report.verification = Verification::Full;
        }
        self.grant(w, &mut notes);
        report.status = MigrationStatus::UpToDate;
        report.notes.extend(notes);
        report.server_version = self.server_version.clone();
        Ok(Some(report))
    }

    /// Makes the copy: plans it from the source, creates the namespace and
    /// the tables, loads them with their keys, grants the reader, carries
    /// the views, verifies every table and stamps the copy complete.
    fn migrate(
        &mut self,
        w: &mut dyn Migrator,
        notes: Vec<String>,
    ) -> Result<MigrationReport, DbError> {
        let ns = self.ns().to_string();
        let mut steps = std::collections::BTreeMap::new();
        let (schema, plan, mut report) = self.plan_copy(w, notes, &mut steps)?;
        let started = Instant::now();
        let stamp = Stamp::new(&self.db.db_id, self.fingerprint, &self.plan_fp);
        w.create_namespace(&ns, &stamp)?;
        let inline_keys = w.keys_before_load();
        let created = self.create_tables(w, &plan, inline_keys, &mut report);
        let (loads, added) = self.load_all(w, &plan, &created, inline_keys);
        steps.insert("load".into(), started.elapsed().as_millis() as u64);
        let started = Instant::now();
        let load_notes: BTreeSet<&String> = loads.iter().filter_map(|l| l.note.as_ref()).collect();
        report.notes.extend(load_notes.into_iter().cloned());
        record_loads(&plan, &loads, &created, &mut report);
        let loaded: Vec<bool> = loads
            .iter()
            .zip(&created)
            .map(|(l, c)| *c && l.error.is_none())
            .collect();
        add_foreign_keys(w, &ns, &plan, &loaded, added, &mut report);
        steps.insert("foreign_keys".into(), started.elapsed().as_millis() as u64);
        // The reader is granted the tables before views are made: a view is
        // read back by the reader, with the reader's rights.
        let started = Instant::now();
        let mut grant_notes = Vec::new();
        self.grant(w, &mut grant_notes);
        steps.insert("grant".into(), started.elapsed().as_millis() as u64);
        if !self.views.is_empty() {
            let started = Instant::now();
            self.carry_views(w, &ns, &schema, &mut report);
            steps.insert("views".into(), started.elapsed().as_millis() as u64);
        }
        let started = Instant::now();
        report.notes.extend(grant_notes);
        report.collation = w.collation(&ns);
        let failed = self.verify_tables(w, &ns, &plan, &loads, &loaded, &mut report);
        steps.insert("verify".into(), started.elapsed().as_millis() as u64);
        if failed.is_empty() {
            let started = Instant::now();
            let names: Vec<&str> = plan.tables.iter().map(|t| t.def.name.as_str()).collect();
            w.analyze(&ns, &names)?;
            steps.insert("analyze".into(), started.elapsed().as_millis() as u64);
        }
        report.steps_ms = steps;
        if failed.is_empty() {
            let mut done = stamp;
            done.state = StampState::Complete;
            done.report = serde_json::to_value(&report).ok();
            w.write_stamp(&ns, &done)?;
        } else {
            report.status = MigrationStatus::Failed {
                reason: format!(
                    "{} of {} tables did not verify: {}",
                    failed.len(),
                    plan.tables.len(),
                    failed.join(", ")
                ),
            };
        }
        Ok(report)
    }

    /// The source's schema and the copy's plan — each column typed from the
    /// source's model or the original's types where they say more than the
    /// values do — with the report it starts.
    fn plan_copy(
        &mut self,
        w: &mut dyn Migrator,
        mut notes: Vec<String>,
        steps: &mut std::collections::BTreeMap<String, u64>,
    ) -> Result<(SourceSchema, DbPlan, MigrationReport), DbError> {
        let mut src = sqlwitness_engines::open_source(EngineKind::Sqlite, &self.db.sqlite_path)?;
        let (schema, mut plan) =
            plan_source(&mut *src, self.dialect, self.fingerprint, self.cache, steps)?;
        drop(src);
        notes.extend(plan.notes.iter().cloned());
        let engine = self.target.engine();
        let from_model = self.model.as_ref().map(|m| {
            let shown = sqlwitness_bench::model_path(&self.db.sqlite_path)
                .display()
                .to_string();
            super::original_types::apply_model(engine, m, &shown, &mut plan.tables)
        });
        let types = self
            .opts
            .types_from
            .as_ref()
            .map(|from| super::original_types::apply(w, engine, from, &mut plan.tables));
        // A value the source's or the original's type would change
        // (rounded, cut) is seen only by reading the copy back.
        if [&from_model, &types]
            .into_iter()
            .flatten()
            .any(|r| r.columns_typed > 0)
        {
            self.verify = Verify::Full;
        }
        let mut report = self.base_report(plan.tables.iter().map(table_report).collect(), notes);
        report.column_types = types.or(from_model);
        Ok((schema, plan, report))
    }

    /// Creates every table of the plan (a failure, or a name the server
    /// would make one with another's, is that table's): which were.
    fn create_tables(
        &self,
        w: &mut dyn Migrator,
        plan: &DbPlan,
        inline_keys: bool,
        report: &mut MigrationReport,
    ) -> Vec<bool> {
        let ns = self.ns();
        let mut created = vec![false; plan.tables.len()];
        let clashes = name_clashes(&plan.tables, &self.dialect.identifiers);
        for (i, t) in plan.tables.iter().enumerate() {
            if let Some(why) = &clashes[i] {
                report.tables[i].error = Some(why.clone());
                continue;
            }
            match w.create_table(ns, &t.def, inline_keys && t.apply_pk) {
                Ok(()) => created[i] = true,
                Err(e) => report.tables[i].error = Some(format!("create table: {}", e.message)),
            }
        }
        created
    }

    /// Carries the source's views into the copy, each one's outcome in the
    /// report (a view not carried named in its notes with why).
    fn carry_views(
        &self,
        w: &mut dyn Migrator,
        ns: &str,
        schema: &SourceSchema,
        report: &mut MigrationReport,
    ) {
        report.views = super::views::carry_to_server(
            w,
            ns,
            self.dialect,
            &self.db.sqlite_path,
            schema,
            &self.views,
        );
        for v in &report.views {
            let listed = format!("view `{}` is not migrated", v.view);
            report.notes.retain(|n| *n != listed);
            if let Some(why) = &v.note {
                report.notes.push(format!("{listed}: {why}"));
            }
        }
    }

    /// Verifies each loaded table: the stream's row count against the
    /// server's, or (`--verify full`) every row read back; the tables that
    /// did not verify.
    fn verify_tables(
        &self,
        w: &mut dyn Migrator,
        ns: &str,
        plan: &DbPlan,
        loads: &[Load],
        loaded: &[bool],
        report: &mut MigrationReport,
    ) -> Vec<String> {
        let mut failed = Vec::new();
        for (i, t) in plan.tables.iter().enumerate() {
            let r = &mut report.tables[i];
            if loaded[i] {
                let load = &loads[i];
                match self.verify {
                    // The load's own count, and the rows the server
                    // counts over this connection once every load is over
                    // (rows a load reported that never reached the copy,
                    // as over another instance of an embedded file, are
                    // not there to count).
                    Verify::Load => match w.count_rows(ns, &t.def.name) {
                        Ok(rows) => {
                            r.rows_target = Some(rows);
                            r.verified = rows == load.stored
                                && load.stored == load.scanned
                                && load.scanned == r.rows_source;
                        }
                        Err(e) => r.error = Some(format!("count rows: {}", e.message)),
                    },
                    Verify::Full => match read_back(w, ns, &t.def, self.dialect) {
                        Ok((rows, sum)) => {
                            r.rows_target = Some(rows);
                            r.verified = rows == r.rows_source && sum == r.checksum_source;
                            r.checksum_target = Some(sum);
                        }
                        Err(e) => r.error = Some(format!("read back: {}", e.message)),
                    },
                }
            }
            if !r.verified {
                failed.push(r.name.clone());
            }
        }
        failed
    }

    /// Loads every created table, the largest first, over up to
    /// `opts.jobs` connections (the first is `w`'s own when one suffices;
    /// `w`'s alone when its engine loads over one, [`Migrator::loads_in_parallel`]).
    /// A table's foreign keys are added, over the connection that finds
    /// them ready, as soon as the table and every parent it refers to are
    /// loaded (with their primary keys), while the other tables load:
    /// `(loads, foreign keys)`, the second per table the outcome of each of
    /// its keys to apply (`None`: not tried, the table was not loaded).
    fn load_all(
        &self,
        w: &mut dyn Migrator,
        plan: &DbPlan,
        created: &[bool],
        inline_keys: bool,
    ) -> (Vec<Load>, Vec<Option<AddedKeys>>) {
        let to_load = created.iter().filter(|&&c| c).count();
        let total: u64 = plan.tables.iter().map(|t| t.rows).sum();
        let workers = if total < PARALLEL_FROM_ROWS || !w.loads_in_parallel() {
            1
        } else {
            self.opts.jobs.max(1).min(to_load.max(1))
        };
        let waits = KeyWaits::new(plan, created);
        let rows: Vec<u64> = plan.tables.iter().map(|t| t.rows).collect();
        let keys_after: Vec<bool> = plan
            .tables
            .iter()
            .map(|t| (t.apply_pk && !inline_keys) || t.apply_fk.iter().any(|&a| a))
            .collect();
        let order = LoadOrder::of(&rows, &keys_after, created, workers > 1, &waits.waits_for);
        let loading = Loading {
            plan,
            inline_keys,
            order,
            waits,
            next: AtomicUsize::new(0),
            adding: Mutex::new(()),
            results: plan.tables.iter().map(|_| Mutex::new(None)).collect(),
            keys: plan.tables.iter().map(|_| Mutex::new(None)).collect(),
        };
        if workers <= 1 {
            self.work(w, &loading);
        } else {
            std::thread::scope(|s| {
                for _ in 0..workers {
                    s.spawn(|| {
                        match sqlwitness_engines::open_migrator(
                            self.target.engine(),
                            &self.target.url,
                        ) {
                            Ok(mut m) => self.work(&mut *m, &loading),
                            Err(e) => {
                                // Leave the tables to the other workers; if
                                // none could connect, each table says why.
                                let _ = e;
                            }
                        }
                    });
                }
            });
            // Tables no worker took (every extra connection failed): load
            // them over `w`.
            self.work(w, &loading);
        }
        loading.into_outcomes()
    }

    /// Loads tables and adds foreign keys over `m` until no table is left
    /// to take: first the keys of a table whose parents are loaded, else
    /// the next table of the order (after the critical table's parents,
    /// the others wait until its rows are in).
    fn work(&self, m: &mut dyn Migrator, l: &Loading<'_>) {
        loop {
            if let Some(j) = l.waits.claim() {
                self.add_keys(m, l, j);
                continue;
            }
            let k = l.next.load(Ordering::SeqCst);
            let Some(&i) = l.order.order.get(k) else {
                break;
            };
            if !l.order.first.contains(&i) && l.order.big.is_some_and(|b| !l.waits.is_done(b)) {
                l.waits.wait();
                continue;
            }
            if l.next
                .compare_exchange(k, k + 1, Ordering::SeqCst, Ordering::SeqCst)
                .is_err()
            {
                continue;
            }
            let mut done = Finished {
                waits: &l.waits,
                table: i,
                ok: false,
            };
            let t = &l.plan.tables[i];
            let load = self.load_table(m, t, l.inline_keys && t.apply_pk);
            done.ok = load.error.is_none();
            *l.results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(load);
        }
    }

    /// Adds the foreign keys to apply of table `j` over `m` (one table's at
    /// a time: two tables that refer to each other would otherwise lock
    /// each other's parent), with their outcomes and the time they took.
    fn add_keys(&self, m: &mut dyn Migrator, l: &Loading<'_>, j: usize) {
        let t = &l.plan.tables[j];
        let ks: Vec<usize> = (0..t.foreign_keys.len())
            .filter(|&k| t.apply_fk[k])
            .collect();
        let _one = l.adding.lock().unwrap_or_else(|e| e.into_inner());
        let started = Instant::now();
        let outcomes = m.add_foreign_keys(self.ns(), &t.def, &ks);
        *l.keys[j].lock().unwrap_or_else(|e| e.into_inner()) = Some(AddedKeys {
            outcomes,
            ms: started.elapsed().as_millis() as u64,
        });
    }

    /// Streams one table: a scanning thread reads and converts the source's
    /// rows (hashing them), the loader sends them; a declared key the
    /// server refuses (a duplicate under its collation) loads the table
    /// again without it and adds the key afterwards.
    fn load_table(&self, m: &mut dyn Migrator, t: &TablePlan, inline_pk: bool) -> Load {
        let ns = self.ns();
        let started = Instant::now();
        let mut load = self.stream_table(m, t);
        if load.error.is_some() && inline_pk {
            let retry = m
                .drop_table(ns, &t.def.name)
                .and_then(|()| m.create_table(ns, &t.def, false));
            match retry {
                Ok(()) => load = self.stream_table(m, t),
                Err(e) => {
                    load.error = Some(format!("recreate without the key: {}", e.message));
                    return load;
                }
            }
        } else if load.error.is_none() && inline_pk {
            load.pk_inline = true;
            load.load_ms = started.elapsed().as_millis() as u64;
            self.add_unique_keys(m, t, &mut load);
            return load;
        }
        load.load_ms = started.elapsed().as_millis() as u64;
        if load.error.is_none() && t.apply_pk {
            let started = Instant::now();
            load.pk_added = Some(m.add_primary_key(ns, &t.def));
            load.key_ms = Some(started.elapsed().as_millis() as u64);
        }
        self.add_unique_keys(m, t, &mut load);
        load
    }

    /// Adds the unique keys to apply of a loaded table (before the foreign
    /// keys that may refer to them); their time counts with the primary
    /// key's.
    fn add_unique_keys(&self, m: &mut dyn Migrator, t: &TablePlan, load: &mut Load) {
        if load.error.is_some() || !t.apply_unique.contains(&true) {
            return;
        }
        let started = Instant::now();
        for (cols, _) in t.unique.iter().zip(&t.apply_unique).filter(|(_, a)| **a) {
            let names: Vec<String> = cols.iter().map(|&c| t.columns[c].name.clone()).collect();
            load.unique_added
                .push(m.add_unique_key(self.ns(), &t.def.name, &names));
        }
        let ms = started.elapsed().as_millis() as u64;
        load.key_ms = Some(load.key_ms.unwrap_or(0) + ms);
    }

    fn stream_table(&self, m: &mut dyn Migrator, t: &TablePlan) -> Load {
        let types = &self.dialect.types;
        let (tx, rx) = sync_channel::<Result<Vec<Vec<Value>>, DbError>>(PIPELINE_DEPTH);
        std::thread::scope(|s| {
            let scanner = s.spawn(move || {
                let mut conv = Converter::new(&t.columns, types).with_adjust(&t.adjust);
                let forms = hash_forms(self.dialect, &t.def);
                let mut sum = Checksum::default();
                let mut buf = Vec::new();
                let mut row_no = 0u64;
                let scanned =
                    sqlwitness_engines::open_source(EngineKind::Sqlite, &self.db.sqlite_path)
                        .and_then(|mut src| {
                            src.scan(&t.source, &mut |batch, lossy| {
                                let start = row_no;
                                for &(r, c) in lossy {
                                    if let Some(row) = batch.get((r - start) as usize) {
                                        conv.lossy(r, c, &row[c]);
                                    }
                                }
                                let mut out = Vec::with_capacity(batch.len());
                                for row in batch.iter_mut() {
                                    let v = conv.row_owned(row_no, std::mem::take(row));
                                    sum.add_row_in(&v, &forms, &mut buf);
                                    out.push(v);
                                    row_no += 1;
                                }
                                tx.send(Ok(out)).map_err(|_| {
                                    DbError::new(
                                        sqlwitness_core::ErrorClass::Other,
                                        None,
                                        "the load stopped",
                                    )
                                })
                            })
                        });
                if let Err(e) = &scanned {
                    let _ = tx.send(Err(e.clone()));
                }
                drop(tx);
                (scanned, sum, conv.coercions)
            });
            let mut rows = ChannelRows {
                rx,
                current: Vec::new(),
            };
            let stored = m.load(self.ns(), &t.def, &mut rows);
            drop(rows);
            let (scanned, sum, coercions) = scanner.join().unwrap_or_else(|_| {
                (
                    Err(DbError::new(
                        sqlwitness_core::ErrorClass::Other,
                        None,
                        "the source reader panicked",
                    )),
                    Checksum::default(),
                    Coercions::default(),
                )
            });
            let mut load = Load {
                checksum: sum.hex(),
                coercions,
                ..Load::default()
            };
            match (scanned, stored) {
                (Ok(n), Ok(l)) => {
                    load.scanned = n;
                    load.stored = l.rows;
                    load.note = l.note;
                }
                (Err(e), _) => load.error = Some(format!("read the source: {}", e.message)),
                (_, Err(e)) => load.error = Some(format!("load: {}", e.message)),
            }
            load
        })
    }
}

/// The table as created, from its report (for reading an up-to-date copy
/// back).
/// `name` as a server that cuts longer names (PostgreSQL: to 63 bytes, at
/// a character boundary) stores it; as written where names are not cut.
fn stored_name<'a>(name: &'a str, ids: &sqlwitness_dialect::Identifiers) -> &'a str {
    if !ids.truncate || name.len() <= ids.max_length {
        return name;
    }
    let mut end = ids.max_length;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    &name[..end]
}

/// Per table, why it cannot be created as its own: its name, or one of its
/// columns' names, is another's once the server cuts names to its limit
/// (which would merge them or fail the load with a misleading message).
/// The first of equal names keeps it; the others are left out, saying so.
fn name_clashes(
    tables: &[super::keys::TablePlan],
    ids: &sqlwitness_dialect::Identifiers,
) -> Vec<Option<String>> {
    let limit = ids.max_length;
    let mut seen: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    tables
        .iter()
        .map(|t| {
            let name = t.def.name.as_str();
            let stored = stored_name(name, ids);
            if let Some(first) = seen.get(stored) {
                return Some(format!(
                    "not created: the table name `{name}` is `{first}` once cut to the server's \
                     {limit}-byte limit for names"
                ));
            }
            seen.insert(stored, name);
            let mut columns: std::collections::HashMap<&str, &str> =
                std::collections::HashMap::new();
            for c in &t.def.columns {
                let stored = stored_name(&c.name, ids);
                if let Some(first) = columns.insert(stored, &c.name) {
                    return Some(format!(
                        "not created: the column names `{first}` and `{}` are one name once cut \
                         to the server's {limit}-byte limit for names",
                        c.name
                    ));
                }
            }
            None
        })
        .collect()
}

fn table_def_of(t: &TableReport) -> sqlwitness_core::TableDef {
    sqlwitness_core::TableDef {
        name: t.name.clone(),
        columns: t
            .columns
            .iter()
            .map(|c| sqlwitness_core::ColumnDef {
                name: c.name.clone(),
                kind: c.kind,
                sql_type: c.target_type.clone(),
                not_null: c.not_null,
            })
            .collect(),
        primary_key: Vec::new(),
        foreign_keys: Vec::new(),
    }
}

/// Every row of a table read back and hashed, each column in its hash form
/// on the engine of `dialect`: `(rows, checksum)`.
fn read_back(
    w: &mut dyn Migrator,
    ns: &str,
    def: &sqlwitness_core::TableDef,
    dialect: &Dialect,
) -> Result<(u64, String), DbError> {
    let forms = hash_forms(dialect, def);
    let mut sum = Checksum::default();
    let mut buf = Vec::new();
    let rows = w.read_back(ns, def, &mut |row| sum.add_row_in(row, &forms, &mut buf))?;
    Ok((rows, sum.hex()))
}

/// Each table's loading outcome in the report: its checksum, coercions and
/// times, its error, and whether its primary key was applied.
fn record_loads(plan: &DbPlan, loads: &[Load], created: &[bool], report: &mut MigrationReport) {
    for (i, (t, load)) in plan.tables.iter().zip(loads).enumerate() {
        let r = &mut report.tables[i];
        r.checksum_source = load.checksum.clone();
        r.coercions = load.coercions.clone();
        r.load_ms = Some(load.load_ms);
        r.key_ms = load.key_ms;
        if let Some(e) = &load.error {
            r.error = Some(e.clone());
        }
        record_unique_keys(t, load, created[i], r);
        if !t.apply_pk {
            continue;
        }
        let applied = if load.error.is_some() || !created[i] {
            Err("the table was not loaded".to_string())
        } else if load.pk_inline {
            Ok(())
        } else {
            match &load.pk_added {
                Some(Ok(())) => Ok(()),
                Some(Err(e)) => Err(format!("the server refused it: {}", e.message)),
                None => Err("the table was not loaded".to_string()),
            }
        };
        match applied {
            Ok(()) => {
                r.primary_key.applied = true;
                r.primary_key.reason = t.primary_key.reason.clone();
            }
            Err(why) => r.primary_key.reason = why,
        }
    }
}

/// The outcome of each unique key to apply of a table in its report.
fn record_unique_keys(t: &TablePlan, load: &Load, created: bool, r: &mut TableReport) {
    let mut added = load.unique_added.iter();
    for (k, _) in t.apply_unique.iter().enumerate().filter(|(_, a)| **a) {
        let report = &mut r.unique_keys[k];
        match added.next() {
            _ if load.error.is_some() || !created => {
                report.reason = "the table was not loaded".to_string()
            }
            Some(Ok(())) => {
                report.applied = true;
                report.reason = t.unique_keys[k].reason.clone();
            }
            Some(Err(e)) => report.reason = format!("the server refused it: {}", e.message),
            None => report.reason = "the table was not loaded".to_string(),
        }
    }
}

/// Each loaded table's foreign keys: those added while the other tables
/// loaded (`added`), else added here; every outcome in the report.
fn add_foreign_keys(
    w: &mut dyn Migrator,
    ns: &str,
    plan: &DbPlan,
    loaded: &[bool],
    mut added: Vec<Option<AddedKeys>>,
    report: &mut MigrationReport,
) {
    for (i, t) in plan.tables.iter().enumerate() {
        let keys: Vec<usize> = (0..t.foreign_keys.len())
            .filter(|&k| t.apply_fk[k])
            .collect();
        if !loaded[i] {
            for &k in &keys {
                report.tables[i].foreign_keys[k].reason = "the table was not loaded".into();
            }
            continue;
        }
        if keys.is_empty() {
            continue;
        }
        let added = added[i].take().unwrap_or_else(|| {
            let started = Instant::now();
            let outcomes = w.add_foreign_keys(ns, &t.def, &keys);
            AddedKeys {
                outcomes,
                ms: started.elapsed().as_millis() as u64,
            }
        });
        report.tables[i].foreign_keys_ms = Some(added.ms);
        for (&k, outcome) in keys.iter().zip(added.outcomes) {
            let r = &mut report.tables[i].foreign_keys[k];
            match outcome {
                Ok(()) => r.applied = true,
                Err(e) => r.reason = format!("the server refused it: {}", e.message),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn foreign_keys_wait_for_the_table_and_its_parents() {
        // fact -> dim_a, dim_b; other -> dim_a; dim_b is not created.
        let names = ["fact", "dim_a", "dim_b", "other", "lone"];
        let parents = vec![
            vec!["dim_a", "DIM_B"],
            vec![],
            vec![],
            vec!["dim_a"],
            vec![],
        ];
        let waits = KeyWaits::of(&names, &parents, &[true, true, false, true, true]);
        assert_eq!(waits.waits_for[0], vec![0, 1, 2]);
        assert_eq!(waits.waits_for[1], Vec::<usize>::new());
        assert_eq!(waits.claim(), None);
        waits.finished(0, true);
        assert_eq!(waits.claim(), None, "dim_a is still loading");
        waits.finished(1, true);
        assert_eq!(waits.claim(), Some(0));
        assert_eq!(waits.claim(), None, "a table's keys are handed out once");
        // A table whose load failed has no keys to add.
        waits.finished(3, false);
        assert_eq!(waits.claim(), None);
        waits.finished(4, true);
        assert_eq!(waits.claim(), None);
        assert!(waits.is_done(2), "a table never created waits for nothing");
    }

    #[test]
    fn a_table_of_most_rows_with_keys_after_loads_first_with_its_parents() {
        // 1 holds most rows and its keys wait for 2; 4 is not created.
        let rows = [10, 1000, 5, 20, 7];
        let keys_after = [false, true, false, false, false];
        let created = [true, true, true, true, false];
        let waits_for = vec![vec![], vec![1, 2], vec![], vec![], vec![]];
        let order = LoadOrder::of(&rows, &keys_after, &created, true, &waits_for);
        assert_eq!(order.big, Some(1));
        assert_eq!(order.first, BTreeSet::from([1, 2]));
        assert_eq!(order.order, [1, 2, 3, 0]);
        // One connection, or no keys after the big table's load: no
        // critical table, the largest first.
        for (parallel, keys_after) in [(false, keys_after), (true, [false; 5])] {
            let order = LoadOrder::of(&rows, &keys_after, &created, parallel, &waits_for);
            assert_eq!(order.big, None);
            assert_eq!(order.order, [1, 3, 0, 2]);
        }
        // Not half the rows: no critical table.
        let rows = [600, 1000, 5, 500, 7];
        let order = LoadOrder::of(&rows, &keys_after, &created, true, &waits_for);
        assert_eq!(order.big, None);
        assert_eq!(order.order, [1, 0, 3, 2]);
    }

    #[test]
    fn a_table_that_refers_to_itself_waits_for_itself() {
        let waits = KeyWaits::of(&["tree"], &[vec!["tree"]], &[true]);
        assert_eq!(waits.claim(), None);
        {
            let _done = Finished {
                waits: &waits,
                table: 0,
                ok: true,
            };
        }
        assert_eq!(waits.claim(), Some(0));
    }
}
