//! `sqlwitness import`: a benchmark database shipped as a PostgreSQL or
//! MySQL/MariaDB dump, loaded by its own engine under a login confined to
//! a namespace of its own — or living on such a server, read and never
//! changed — written as SQLite database files in the benchmark's layout
//! (verified), with a report of every type decision and every statement
//! not run.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use sqlwitness_bench::BenchError;
use sqlwitness_core::EngineKind;
use sqlwitness_migrate::{DumpDatabase, ImportOptions, ImportReport, ImportSource};

use crate::exit;

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The dump: plain SQL as `pg_dump` or `mysqldump` write it (or a
    /// hand-written script of the same dialect), or an archive of `pg_dump
    /// -Ft` (a tar file: its `restore.sql`, with the rows of its members).
    #[arg(long, required_unless_present = "source", conflicts_with = "source")]
    pub dump: Option<PathBuf>,
    /// The engine that loads it: postgres, mysql or mariadb.
    #[arg(long, required_unless_present = "source", conflicts_with = "source")]
    pub engine: Option<String>,
    /// A live database instead of a dump, as ENGINE=URL: its tables are read
    /// over the URL's login in a read-only session and never changed
    /// (PostgreSQL: the URL's database; MySQL/MariaDB: the URL's database,
    /// on the same server as the administrative login).
    #[arg(long, value_name = "ENGINE=URL")]
    pub source: Option<String>,
    /// With a PostgreSQL --source: read this schema only (default: every
    /// schema but the server's own and sqlwitness's copies).
    #[arg(long, value_name = "SCHEMA", requires = "source")]
    pub source_schema: Option<String>,
    /// The engine's administrative URL (else SQLWITNESS_<ENGINE>_URL). The
    /// dump itself runs as a login created for it, confined to the
    /// namespace created for it.
    #[arg(long, value_name = "URL")]
    pub server: Option<String>,
    /// The benchmark's database folder: each database is written to
    /// OUT/<db_id>/<db_id>.sqlite.
    #[arg(long)]
    pub out: PathBuf,
    /// The db_id of a dump that holds one database (default: the dump's
    /// file name without its extension; a live source needs it or
    /// --tables).
    #[arg(long, conflicts_with = "tables")]
    pub db_id: Option<String>,
    /// A dump of several databases (pg_dumpall's, or mysqldump's with
    /// --databases): the one to load, the statements under its `\connect`
    /// or `USE` (no other database's statement is read); the db_id defaults
    /// to it.
    #[arg(long, value_name = "NAME", requires = "dump")]
    pub database: Option<String>,
    /// A dump of several databases (BIRD mini-dev's layout): a Spider
    /// `tables.json` or BIRD `dev_tables.json` says which tables each
    /// db_id holds (`table_names_original`); one SQLite file per db_id.
    #[arg(long, value_name = "TABLES_JSON")]
    pub tables: Option<PathBuf>,
    /// Seconds one statement of the dump may run (0.001 to 86400: a day).
    #[arg(allow_hyphen_values = true, long, default_value_t = 600.0, value_parser = crate::ranges::seconds)]
    pub statement_timeout: f64,
    /// Where the report goes (default OUT/import-report.json).
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Writes the databases' entries of a Spider `tables.json` (tables,
    /// columns, Spider's column types, keys) into FILE, replacing entries
    /// of the same db_id and keeping the others.
    #[arg(long, value_name = "FILE")]
    pub spider_tables: Option<PathBuf>,
    /// Prefix of the namespace of each database's copy on the dump's own
    /// engine (as `eval`'s and `migrate`'s --namespace-prefix): the copy
    /// with the dump's own column types and keys, which they then use on
    /// that engine instead of migrating the SQLite file.
    #[arg(long, env = "SQLWITNESS_NAMESPACE_PREFIX", default_value = sqlwitness_core::DEFAULT_NAMESPACE_PREFIX)]
    pub namespace_prefix: String,
    /// Write the SQLite files only: no copy on the dump's own engine (the
    /// engine's copy is then migrated from the SQLite file, with the types
    /// migration chooses).
    #[arg(long)]
    pub no_source_copy: bool,
    /// The SQLite files exist in OUT, written from another dump of the same
    /// databases (BIRD mini-dev ships a PostgreSQL and a MySQL dump): only
    /// the copies on this engine with this dump's own types are made,
    /// stamped with those files' fingerprints once each table's row count
    /// matches the file's.
    #[arg(long, conflicts_with_all = ["no_source_copy", "spider_tables"])]
    pub copy_only: bool,
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// The engine and the source of `a`: `--engine` with `--dump`, or
/// `--source ENGINE=URL`.
fn source_of(a: &ImportArgs) -> anyhow::Result<(EngineKind, ImportSource)> {
    let engine_of = |name: &str, flag: &str| {
        EngineKind::parse(name)
            .filter(|k| sqlwitness_migrate::dump_dialect(*k).is_some())
            .ok_or_else(|| {
                exit::BadInput(format!(
                    "{flag} `{name}`: dumps and live sources are read by postgres, mysql or mariadb"
                ))
            })
    };
    match (&a.source, &a.dump, &a.engine) {
        (Some(pair), _, _) => {
            let (name, url) = pair
                .split_once('=')
                .ok_or_else(|| exit::BadInput(format!("--source `{pair}`: expected ENGINE=URL")))?;
            let engine = engine_of(name, "--source")?;
            if a.tables.is_none() && a.db_id.is_none() {
                return Err(exit::BadInput(
                    "--source needs --db-id (one database) or --tables (several)".into(),
                )
                .into());
            }
            Ok((
                engine,
                ImportSource::Live {
                    url: url.to_string(),
                    schema: a.source_schema.clone(),
                },
            ))
        }
        (None, Some(dump), Some(name)) => Ok((
            engine_of(name, "--engine")?,
            ImportSource::Dump(dump.clone()),
        )),
        _ => Err(
            exit::BadInput("give --dump FILE --engine ENGINE, or --source ENGINE=URL".into())
                .into(),
        ),
    }
}

pub fn run(a: &ImportArgs) -> anyhow::Result<i32> {
    let opts = import_options(a)?;
    let report_path = a
        .report
        .clone()
        .unwrap_or_else(|| a.out.join("import-report.json"));
    let existed: Vec<(String, bool)> = opts
        .databases
        .iter()
        .map(|d| {
            let file = opts.out.join(&d.db_id).join(format!("{}.sqlite", d.db_id));
            (d.db_id.clone(), file.exists())
        })
        .collect();
    let report = match sqlwitness_migrate::import_dump(&opts) {
        Ok(r) => r,
        Err(e) => {
            write_failure_report(&report_path, &opts, &existed, &e);
            return Err(match e {
                BenchError::Migration { .. } | BenchError::DumpLoad { .. } => {
                    exit::EngineFailure(e.to_string()).into()
                }
                e => e.into(),
            });
        }
    };
    if !report.up_to_date.is_empty() && report.databases.is_empty() {
        // Nothing was done: the report of the import that wrote them stays.
        if !a.quiet {
            say!(
                "{}: already imported from these very bytes, and current ({}): nothing to do",
                report.dump.as_deref().unwrap_or(Path::new("")).display(),
                report.up_to_date.join(", ")
            );
        }
        return Ok(exit::OK);
    }
    let text = serde_json::to_string_pretty(&report)?;
    std::fs::write(&report_path, text + "\n")
        .with_context(|| format!("{}: cannot write the report", report_path.display()))?;
    if let Some(path) = &a.spider_tables {
        write_spider_tables(path, &report)?;
    }
    warn_rejected(&report);
    if !a.quiet {
        say_source(&report);
        for d in &report.databases {
            say_database(d, a.copy_only);
        }
        say!("report: {}", report_path.display());
    }
    Ok(if report.complete() {
        exit::OK
    } else {
        exit::ENGINE
    })
}

/// The import's options from the flags, every flag checked before anything
/// is read or written.
fn import_options(a: &ImportArgs) -> anyhow::Result<ImportOptions> {
    let (engine, source) = source_of(a)?;
    let url = a
        .server
        .clone()
        .or_else(|| std::env::var(engine.url_env()).ok())
        .filter(|u| !u.trim().is_empty())
        .ok_or_else(|| {
            exit::BadInput(format!(
                "{engine} needs --server URL or {} (an administrative login)",
                engine.url_env()
            ))
        })?;
    if !(a.statement_timeout > 0.0 && a.statement_timeout.is_finite()) {
        return Err(
            exit::BadInput("--statement-timeout: a positive number of seconds".into()).into(),
        );
    }
    let prefix = &a.namespace_prefix;
    if !(prefix
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_')
        && prefix.len() <= 32)
    {
        return Err(exit::BadInput(format!(
            "--namespace-prefix `{prefix}`: use at most 32 ASCII letters, digits and `_`"
        ))
        .into());
    }
    let databases = databases_of(a, &source)?;
    Ok(ImportOptions {
        engine,
        url,
        source,
        out: a.out.clone(),
        databases,
        statement_limit: Duration::from_secs_f64(a.statement_timeout),
        source_copy_prefix: (!a.no_source_copy).then(|| prefix.clone()),
        copy_only: a.copy_only,
        dump_database: a.database.clone(),
    })
}

/// The databases to write: each of `--tables`, or the one `--db-id` names
/// (else the dump's file name).
fn databases_of(a: &ImportArgs, source: &ImportSource) -> anyhow::Result<Vec<DumpDatabase>> {
    Ok(match &a.tables {
        Some(path) => sqlwitness_bench::load_tables_json(path)?
            .into_values()
            .map(|s| DumpDatabase {
                db_id: s.db_id,
                tables: Some(s.table_names_original),
            })
            .collect(),
        None => {
            let db_id = match (&a.db_id, source) {
                (Some(d), _) => d.clone(),
                (None, ImportSource::Dump(_)) if a.database.is_some() => {
                    a.database.clone().unwrap_or_default()
                }
                (None, ImportSource::Dump(dump)) => dump
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                (None, ImportSource::Live { .. }) => String::new(),
            };
            if let Some(why) = sqlwitness_bench::db_id_problem(&db_id) {
                return Err(exit::BadInput(why).into());
            }
            vec![DumpDatabase {
                db_id,
                tables: None,
            }]
        }
    })
}

/// One line on what was loaded or read, and on what was written again.
fn say_source(report: &ImportReport) {
    let server = report
        .server_version
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ");
    match (&report.dump, &report.live_source) {
        (Some(dump), _) => say!(
            "{}: loaded by {server} ({} statements{}) in {:.1} s; {} skipped, {} not created{}",
            dump.display(),
            report.statements,
            match report.copied_rows {
                0 => String::new(),
                n => format!(", {n} rows by COPY"),
            },
            report.load_seconds,
            report.skipped.len(),
            report.not_created.len(),
            match report.rejected.len() {
                0 => String::new(),
                n => format!(", {n} rejected by the server"),
            }
        ),
        (None, source) => say!(
            "{}: read on {server}; {} not carried",
            source.as_deref().unwrap_or_default(),
            report.not_created.len()
        ),
    }
    if !report.replaced.is_empty() {
        say!(
            "  imported before from another version of the dump, by another engine or with \
             its copy gone, written again: {}",
            report.replaced.join(", ")
        );
    }
}

/// What was written for one database: its file, the tables refused,
/// degraded columns, views, and its copy on the source's engine.
fn say_database(d: &sqlwitness_migrate::DatabaseImport, copy_only: bool) {
    let refused: Vec<String> = d
        .tables
        .iter()
        .filter_map(|t| t.refused.as_ref().map(|r| format!("{}: {r}", t.table)))
        .collect();
    if copy_only {
        say!("  {}: the SQLite file kept: {}", d.db_id, d.path.display());
    } else {
        say!(
            "  {}: {} tables, {} rows in {:.1} s ({:.0} rows/s) → {}{}",
            d.db_id,
            d.tables.len() - refused.len(),
            d.rows,
            d.seconds,
            d.rows as f64 / d.seconds.max(1e-9),
            d.path.display(),
            if d.complete { "" } else { "  INCOMPLETE" }
        );
    }
    if d.tables.is_empty() && !copy_only {
        say!("    no table: the dump holds none for this database");
    }
    for r in &refused {
        say!("    refused {r}");
    }
    for t in &d.tables {
        for c in t.columns.iter().filter(|c| c.degraded.is_some()) {
            say!(
                "    degraded {}.{} ({}): {}",
                t.table,
                c.column,
                c.source_type,
                c.degraded.as_deref().unwrap_or_default()
            );
        }
        for l in &t.left_out {
            say!("    left out {}.{l}", t.table);
        }
    }
    let unverified: Vec<&str> = d
        .tables
        .iter()
        .filter(|t| t.refused.is_none() && !t.verified)
        .map(|t| t.table.as_str())
        .collect();
    if !unverified.is_empty() {
        say!("    not verified: {}", unverified.join(", "));
    }
    if !d.missing_tables.is_empty() {
        say!("    not in the dump: {}", d.missing_tables.join(", "));
    }
    if !d.views.is_empty() {
        let carried: Vec<&str> = d
            .views
            .iter()
            .filter(|v| v.carried)
            .map(|v| v.view.as_str())
            .collect();
        say!(
            "    views: {} carried ({}), {} listed with the reason",
            carried.len(),
            carried.join(", "),
            d.views.len() - carried.len()
        );
    }
    if let Some(c) = &d.source_copy {
        match (&c.error, c.faithful) {
            (None, true) => say!(
                "    {} copy with the source's own types: {} ({} tables)",
                c.engine,
                c.namespace,
                c.tables.len()
            ),
            (error, _) => say!(
                "    NO {} copy with the source's own types: {}",
                c.engine,
                error.as_deref().unwrap_or("a table did not verify")
            ),
        }
    }
}

/// Says each statement the server rejected, quiet or not: what it would
/// have made is in no copy.
fn warn_rejected(report: &ImportReport) {
    if let Some(db) = &report.chosen_database {
        say!(
            "sqlwitness: note: the dump holds several databases: {db} was loaded, the only one \
             that creates tables (--database NAME loads another)"
        );
    }
    for hidden in &report.hidden_tables {
        say!(
            "sqlwitness: warning: {hidden}: it is in no database (a database holds one table of \
             a name); a query naming it reads the other"
        );
    }
    let Some(dump) = &report.dump else { return };
    for r in &report.rejected {
        say!(
            "sqlwitness: warning: {}: line {}: `{}`: {}; the load went on, as psql goes on",
            r.file.as_deref().unwrap_or(dump).display(),
            r.line,
            r.statement,
            r.note
        );
    }
}

/// The report of an import that failed: what failed, and what each
/// database's file is now (nothing is written or changed before the dump
/// loads; a database written before the failure is named). Best effort: a
/// report that cannot be written leaves the error on stderr alone.
fn write_failure_report(
    path: &Path,
    opts: &ImportOptions,
    existed: &[(String, bool)],
    error: &BenchError,
) {
    let databases: Vec<serde_json::Value> = existed
        .iter()
        .map(|(db_id, before)| {
            let file = opts.out.join(db_id).join(format!("{db_id}.sqlite"));
            let now = file.exists();
            let state = match (before, now) {
                (true, true) => "left as it was",
                (false, false) => "not written (what the import began is removed)",
                (false, true) => "written before the failure",
                (true, false) => "removed (written by an import of another version of the dump)",
            };
            serde_json::json!({ "db_id": db_id, "path": file, "state": state })
        })
        .collect();
    let source = match &opts.source {
        ImportSource::Dump(p) => serde_json::json!({ "dump": p }),
        ImportSource::Live { url, schema } => serde_json::json!({
            "live_source": sqlwitness_engines::mask_url(url),
            "schema": schema,
        }),
    };
    let mut report = serde_json::json!({
        "failed": true,
        "engine": opts.engine.to_string(),
        "error": error.to_string(),
        "databases": databases,
        "loaded_namespace": "dropped with its loader login (as after every import)",
    });
    if let (Some(r), Some(s)) = (report.as_object_mut(), source.as_object()) {
        r.extend(s.clone());
    }
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let text = serde_json::to_string_pretty(&report).unwrap_or_default();
    let _ = std::fs::write(path, text + "\n");
}

/// Merges the import's databases into the Spider `tables.json` at `path`.
fn write_spider_tables(path: &std::path::Path, report: &ImportReport) -> anyhow::Result<()> {
    let mut entries: Vec<serde_json::Value> =
        match sqlwitness_core::read_input(path, sqlwitness_core::input::BENCHMARK_FILE) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                exit::BadInput(format!("{}: not a tables.json array: {e}", path.display()))
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(anyhow::anyhow!("{}: {e}", path.display())),
        };
    for d in &report.databases {
        entries.retain(|e| e["db_id"] != d.db_id.as_str());
        entries.push(d.spider_tables.clone());
    }
    let text = serde_json::to_string_pretty(&entries)?;
    std::fs::write(path, text + "\n")
        .with_context(|| format!("{}: cannot write", path.display()))?;
    Ok(())
}

/// The file in a benchmark's folder naming the dumps its databases ship as,
/// which `eval` imports by itself before it runs.
pub const MANIFEST: &str = "dumps.json";

/// The only environment variables a [`MANIFEST`]'s `live` entry may name:
/// `SQLWITNESS_LIVE_<NAME>`, which a user sets for that purpose. A
/// downloaded benchmark is not trusted to choose a variable: any other
/// (sqlwitness's own administrative and reader URLs, a cloud key, an
/// application's `DATABASE_URL`) would hand it a secret or a login.
pub const LIVE_URL_ENV_PREFIX: &str = "SQLWITNESS_LIVE_";

/// Which folder the files a [`MANIFEST`] names must resolve inside.
const BENCH_FOLDER: &str = "the benchmark folder";

/// One dump or live database of a benchmark's [`MANIFEST`]: paths
/// relative to the benchmark's folder, and inside it (links followed).
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestEntry {
    /// The dump file (or `live`).
    #[serde(default)]
    dump: Option<PathBuf>,
    /// A live database instead of a dump.
    #[serde(default)]
    live: Option<LiveEntry>,
    /// postgres, mysql or mariadb.
    engine: String,
    /// The db_id of a dump of one database (default: the file's stem; a
    /// live database needs it or `tables`).
    #[serde(default)]
    db_id: Option<String>,
    /// The one database to load of a dump of several (pg_dumpall's, or
    /// mysqldump's with `--databases`); the db_id defaults to it.
    #[serde(default)]
    database: Option<String>,
    /// A Spider or BIRD tables.json saying which tables each db_id holds.
    #[serde(default)]
    tables: Option<PathBuf>,
    /// A second dump of databases an earlier entry writes: only its
    /// engine's copy with its own types (`import --copy-only`).
    #[serde(default)]
    copy_only: bool,
}

/// A live database of a [`MANIFEST`] entry: the URL is read from an
/// environment variable, so that no login is written into the benchmark.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LiveEntry {
    /// The environment variable holding the database's URL: one named
    /// [`LIVE_URL_ENV_PREFIX`]`<NAME>`.
    url_env: String,
    /// PostgreSQL: the one schema to read.
    #[serde(default)]
    schema: Option<String>,
}

/// Where a checked [`ManifestEntry`] imports from.
enum EntrySource {
    /// The dump file, resolved inside the benchmark folder.
    Dump(PathBuf),
    /// The variable holding the live database's URL (checked by name, read
    /// when the entry runs).
    Live {
        url_env: String,
        schema: Option<String>,
    },
}

/// A [`ManifestEntry`] with every name it holds checked.
struct CheckedEntry {
    /// `…/dumps.json entry <i>`, for messages.
    place: String,
    engine: EngineKind,
    source: EntrySource,
    /// The source for messages: the dump as the entry names it.
    shown: String,
    databases: Vec<DumpDatabase>,
    copy_only: bool,
    dump_database: Option<String>,
}

/// `named`, the `field` of the entry at `place`, as the file to read: a
/// regular file inside the benchmark folder, links followed; else an
/// error naming the entry, the field and the name as written (never
/// anything of the file).
fn entry_file(
    bench: &sqlwitness_bench::Benchmark,
    place: &str,
    field: &str,
    named: &std::path::Path,
) -> Result<PathBuf, exit::BadInput> {
    sqlwitness_bench::side_file(&bench.root, &bench.root, named, BENCH_FOLDER).map_err(|why| {
        exit::BadInput(format!(
            "{place}: {field} {:?}: {why}",
            named.display().to_string()
        ))
    })
}

/// Why `name` may not be a `live` entry's `url_env` (`None`: it may).
fn live_env_problem(name: &str) -> Option<String> {
    let ok = name.strip_prefix(LIVE_URL_ENV_PREFIX).is_some_and(|rest| {
        !rest.is_empty()
            && rest
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    });
    (!ok).then(|| {
        format!(
            "live.url_env {name:?}: a live database's URL is read only from a variable named \
             {LIVE_URL_ENV_PREFIX}<NAME> (NAME of A-Z, 0-9 and _) that you set for it; \
             sqlwitness's own variables and any other variable are refused"
        )
    })
}

/// Checks entry `i` of the manifest at `path`: its engine, the files it
/// names (inside the benchmark folder, regular), the variable a live entry
/// names, its db_ids.
fn check_entry(
    bench: &sqlwitness_bench::Benchmark,
    path: &std::path::Path,
    i: usize,
    entry: &ManifestEntry,
) -> anyhow::Result<CheckedEntry> {
    let place = format!("{} entry {i}", path.display());
    let engine = EngineKind::parse(&entry.engine)
        .filter(|k| sqlwitness_migrate::dump_dialect(*k).is_some())
        .ok_or_else(|| {
            exit::BadInput(format!(
                "{place}: engine `{}`: dumps and live sources are read by postgres, mysql or mariadb",
                entry.engine
            ))
        })?;
    let (source, shown, stem) = match (&entry.dump, &entry.live) {
        (Some(dump), None) => {
            let file = entry_file(bench, &place, "dump", dump)?;
            let stem = dump
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            (
                EntrySource::Dump(file),
                bench.root.join(dump).display().to_string(),
                Some(stem),
            )
        }
        (None, Some(_)) if entry.database.is_some() => {
            return Err(exit::BadInput(format!(
                "{place}: `database` chooses one database of a dump; a live database is one"
            ))
            .into())
        }
        (None, Some(live)) => {
            if let Some(why) = live_env_problem(&live.url_env) {
                return Err(exit::BadInput(format!("{place}: {why}")).into());
            }
            let source = EntrySource::Live {
                url_env: live.url_env.clone(),
                schema: live.schema.clone(),
            };
            (source, "the live database".to_string(), None)
        }
        _ => {
            return Err(exit::BadInput(format!(
                "{place}: give either `dump` (a file) or `live` (a database on a server)"
            ))
            .into())
        }
    };
    let databases = match &entry.tables {
        Some(tables) => {
            let file = entry_file(bench, &place, "tables", tables)?;
            sqlwitness_bench::load_tables_json(&file)?
                .into_values()
                .map(|s| DumpDatabase {
                    db_id: s.db_id,
                    tables: Some(s.table_names_original),
                })
                .collect::<Vec<_>>()
        }
        None => {
            let db_id = match (&entry.db_id, stem) {
                (Some(d), _) => d.clone(),
                (None, Some(_)) if entry.database.is_some() => {
                    entry.database.clone().unwrap_or_default()
                }
                (None, Some(stem)) => stem,
                (None, None) => {
                    return Err(exit::BadInput(format!(
                        "{place}: a live database needs `db_id` or `tables`"
                    ))
                    .into())
                }
            };
            if let Some(why) = sqlwitness_bench::db_id_problem(&db_id) {
                return Err(exit::BadInput(format!("{place}: {why}")).into());
            }
            vec![DumpDatabase {
                db_id,
                tables: None,
            }]
        }
    };
    Ok(CheckedEntry {
        place,
        engine,
        source,
        shown,
        databases,
        copy_only: entry.copy_only,
        dump_database: entry.database.clone(),
    })
}

/// Imports the dumps a benchmark's [`MANIFEST`] names whose databases have
/// no SQLite file yet (and the `copy_only` entries after an entry that
/// ran), as `sqlwitness import` would, into the benchmark's database
/// folder, with the copies on each dump's engine under the benchmark's
/// namespace prefix, over the administrative URL `servers` gives an engine
/// (else `SQLWITNESS_<ENGINE>_URL`). Nothing when there is no manifest or
/// every database is there.
///
/// Every entry is checked before any runs: a file an entry names (`dump`,
/// `tables`) must be a regular file inside the benchmark's folder once
/// links are followed (`--allow-outside-links` does not apply: it is for
/// database files a user links in, while a dump is sent to a server), and
/// a `live` entry may name only a [`LIVE_URL_ENV_PREFIX`] variable; else
/// the run stops (exit 2) naming the entry, and nothing of the named file
/// is read, sent or shown.
pub fn from_manifest(
    bench: &sqlwitness_bench::Benchmark,
    servers: Option<&sqlwitness_run::Servers>,
    quiet: bool,
) -> anyhow::Result<()> {
    let checked = checked_manifest(bench)?;
    let mut ran = false;
    for (i, entry) in checked.into_iter().enumerate() {
        if !entry_needed(bench, &entry, ran)? {
            warn_incomplete(bench, &entry, i);
            continue;
        }
        import_entry(bench, servers, i, entry, quiet)?;
        ran = true;
    }
    Ok(())
}

/// A warning for each database of `entry` (imported by an earlier run)
/// that its import could not write whole: run as it is, a question
/// reading what is missing fails on every engine.
fn warn_incomplete(bench: &sqlwitness_bench::Benchmark, entry: &CheckedEntry, i: usize) {
    if entry.copy_only {
        return;
    }
    for d in &entry.databases {
        if let Some(what) = sqlwitness_migrate::imported_incomplete(&bench.sqlite_path(&d.db_id)) {
            say!(
                "sqlwitness: warning: {}: database {} was imported incomplete ({}; see {}); it \
                 is run as it is",
                entry.place,
                d.db_id,
                what.join("; "),
                bench
                    .database_dir
                    .join(format!("import-report-{i}.json"))
                    .display()
            );
        }
    }
}

/// The entries of the benchmark's [`MANIFEST`], every one checked (none
/// when there is no manifest).
fn checked_manifest(bench: &sqlwitness_bench::Benchmark) -> anyhow::Result<Vec<CheckedEntry>> {
    let path = bench.root.join(MANIFEST);
    let text = match sqlwitness_core::read_input(&path, sqlwitness_core::input::MANIFEST_FILE) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(anyhow::anyhow!("{}: {e}", path.display())),
    };
    let entries: Vec<ManifestEntry> = serde_json::from_slice(&text)
        .map_err(|e| exit::BadInput(format!("{}: {e}", path.display())))?;
    entries
        .iter()
        .enumerate()
        .map(|(i, entry)| check_entry(bench, &path, i, entry))
        .collect()
}

/// Whether `entry` is to run: when some of its databases have no SQLite
/// file, or one written from a dump edited since; a `copy_only` entry when
/// an entry before it ran (`ran`). An entry some of whose databases have a
/// file while others have none is refused.
fn entry_needed(
    bench: &sqlwitness_bench::Benchmark,
    entry: &CheckedEntry,
    ran: bool,
) -> anyhow::Result<bool> {
    let databases = &entry.databases;
    let missing = databases
        .iter()
        .filter(|d| !bench.sqlite_path(&d.db_id).exists())
        .count();
    if !entry.copy_only && missing > 0 && missing < databases.len() {
        return Err(exit::BadInput(format!(
            "{}: {missing} of the {} databases of {} have no SQLite file and the \
             others have one: remove them to import again, or import by hand",
            entry.place,
            databases.len(),
            entry.shown,
        ))
        .into());
    }
    // A file an import cut off before its end left (killed, the machine
    // stopped): run on, it could lack tables or rows the dump holds.
    if !entry.copy_only {
        for d in databases {
            if let Some(why) = sqlwitness_migrate::unfinished_import(&bench.sqlite_path(&d.db_id)) {
                return Err(
                    exit::BadInput(format!("{}: {why} ({})", entry.place, entry.shown)).into(),
                );
            }
        }
    }
    // A dump edited since it was imported is imported again (the
    // import replaces what it wrote from the old one).
    let stale = databases.iter().any(|d| {
        matches!(
            sqlwitness_migrate::stale_dump(&bench.sqlite_path(&d.db_id)),
            Ok(Some(_))
        )
    });
    Ok(if entry.copy_only {
        ran
    } else {
        missing > 0 || stale
    })
}

/// Imports manifest entry `i` into the benchmark's database folder, with
/// the copies on its engine under the benchmark's namespace prefix, and
/// writes its report there (`import-report-<i>.json`); an incomplete
/// import is an error.
fn import_entry(
    bench: &sqlwitness_bench::Benchmark,
    servers: Option<&sqlwitness_run::Servers>,
    i: usize,
    entry: CheckedEntry,
    quiet: bool,
) -> anyhow::Result<()> {
    let CheckedEntry {
        place,
        engine,
        source,
        shown,
        databases,
        copy_only,
        dump_database,
    } = entry;
    let source = import_source(&place, source)?;
    let url = admin_url(servers, engine).ok_or_else(|| {
        exit::BadInput(format!(
            "{place}: a {engine} dump or database is imported by that engine: give --server \
             {engine}=URL or {}",
            engine.url_env()
        ))
    })?;
    let opts = ImportOptions {
        engine,
        url,
        source,
        out: bench.database_dir.clone(),
        databases,
        statement_limit: Duration::from_secs(600),
        source_copy_prefix: Some(bench.namespace_prefix.clone()),
        copy_only,
        dump_database,
    };
    let report = sqlwitness_migrate::import_dump(&opts)
        .map_err(|e| exit::EngineFailure(format!("{place}: {e}")))?;
    warn_rejected(&report);
    let report_path = bench.database_dir.join(format!("import-report-{i}.json"));
    std::fs::write(&report_path, serde_json::to_string_pretty(&report)? + "\n")
        .with_context(|| format!("{}: cannot write the report", report_path.display()))?;
    if !quiet {
        say!(
            "imported {shown} ({engine}{}): {} databases; report: {}",
            if copy_only { ", copies only" } else { "" },
            report.databases.len(),
            report_path.display()
        );
    }
    if !report.complete() {
        return Err(exit::EngineFailure(format!(
            "{place}: the import is incomplete; see {}",
            report_path.display()
        ))
        .into());
    }
    Ok(())
}

/// What an entry imports from: its dump, or its live database over the URL
/// read now from the entry's variable (an error when that is not set).
fn import_source(place: &str, source: EntrySource) -> Result<ImportSource, exit::BadInput> {
    Ok(match source {
        EntrySource::Dump(file) => ImportSource::Dump(file),
        EntrySource::Live { url_env, schema } => {
            let url = std::env::var(&url_env)
                .ok()
                .filter(|u| !u.trim().is_empty())
                .ok_or_else(|| {
                    exit::BadInput(format!(
                        "{place}: the live database's URL is read from {url_env}, which is not set"
                    ))
                })?;
            ImportSource::Live { url, schema }
        }
    })
}

/// The administrative URL of `kind`: the one `servers` gives, else
/// `SQLWITNESS_<ENGINE>_URL` when set and not blank.
fn admin_url(servers: Option<&sqlwitness_run::Servers>, kind: EngineKind) -> Option<String> {
    servers
        .and_then(|s| s.url(kind))
        .map(str::to_string)
        .or_else(|| {
            std::env::var(kind.url_env())
                .ok()
                .filter(|u| !u.trim().is_empty())
        })
}

#[cfg(test)]
mod manifest_tests {
    use super::live_env_problem;

    #[test]
    fn a_live_entry_names_only_a_live_variable() {
        assert_eq!(live_env_problem("SQLWITNESS_LIVE_BIRD_PG"), None);
        assert_eq!(live_env_problem("SQLWITNESS_LIVE_2"), None);
        for refused in [
            "SQLWITNESS_POSTGRES_URL",
            "SQLWITNESS_MYSQL_READER_URL",
            "SQLWITNESS_READER_PASSWORD",
            "SQLWITNESS_LIVE_",
            "SQLWITNESS_LIVE_a",
            "SQLWITNESS_LIVE_X=Y",
            "DATABASE_URL",
            "AWS_SECRET_ACCESS_KEY",
            "",
        ] {
            assert!(live_env_problem(refused).is_some(), "{refused}");
        }
    }
}
