//! Benchmarks whose databases ship as SQL dumps of PostgreSQL or MySQL /
//! MariaDB: the dump is loaded by its own engine — the only faithful reader
//! of its dialect — into a namespace sqlwitness creates, under a login that
//! may change that namespace only ([`sqlwitness_core::DumpNamespace`]),
//! statement by statement within a time limit; what would reach outside is
//! refused before anything runs ([`policy`]). The loaded tables are then
//! written, streaming and verified, into SQLite database files in the
//! benchmark's layout ([`export`]) — one per `db_id`, the whole dump or the
//! tables a mapping gives each — from where every other engine gets its
//! copy by the usual migration. The dump's own engine gets a copy of each
//! database with the dump's own column types and keys, made on the server
//! from the loaded tables ([`source_copy`]): the reference answer of a
//! benchmark shipped as a dump comes from the types it was written for.
//!
//! A benchmark whose databases live on a server (a PostgreSQL database or
//! schema, a MySQL/MariaDB database) is imported the same way without the
//! load: the live tables are read, never changed, over the login the
//! benchmark names ([`ImportSource::Live`]).

mod archive;
mod copy_files;
mod custom;
mod decompress;
mod encoding;
mod export;
mod freshness;
mod key_checks;
mod load_data;

/// The length of each `INSERT` a `LOAD DATA LOCAL INFILE` is sent as.
const LOAD_DATA_BATCH: usize = 1 << 20;
mod policy;
mod reading;
mod session;
mod source_copy;
mod split;
mod unzip;
mod views;

use std::fs::File;
use std::io::{BufReader, Take};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;
use sqlwitness_core::{DumpNamespace, EngineKind, ServerSource, Stamp};

pub use export::{
    export_sqlite, map_type, ColumnMapping, SqliteColumn, Storage, TableExport, TypeRefused,
};
pub use freshness::{import_again, imported_incomplete, stale_dump, unfinished_import};
use policy::Decision;
use reading::{Files, Piece, Reading};
pub use source_copy::{is_source_copy, SourceCopy, SOURCE_COPY_CHECKSUM, SOURCE_COPY_PLAN};
pub use split::DumpDialect;
use split::{Item, Splitter, VersionReader};

use sqlwitness_bench::BenchError;

/// A database to write from a dump: its `db_id` and the dump's tables it
/// holds (`None`: all of them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpDatabase {
    pub db_id: String,
    pub tables: Option<Vec<String>>,
}

/// Where the databases come from.
#[derive(Debug, Clone)]
pub enum ImportSource {
    /// A SQL dump of the engine, loaded into a namespace of its own.
    Dump(PathBuf),
    /// A live database on a server of the engine, read over the login
    /// `url` names (PostgreSQL: only `schema`, when given), never changed.
    Live { url: String, schema: Option<String> },
}

/// What to import, and how.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// The engine whose dump or database this is (PostgreSQL, MySQL or
    /// MariaDB) and its administrative URL: the server the copies with the
    /// source's own types are made on.
    pub engine: EngineKind,
    pub url: String,
    pub source: ImportSource,
    /// The benchmark's database folder: each database is written to
    /// `<out>/<db_id>/<db_id>.sqlite`.
    pub out: PathBuf,
    pub databases: Vec<DumpDatabase>,
    /// The time one statement of a dump may take.
    pub statement_limit: Duration,
    /// Copy each database on the source's own engine too, with its own
    /// column types, into the namespace this prefix gives it
    /// ([`sqlwitness_core::namespace_for`]) — the copy `migrate` and `eval`
    /// then use on that engine. `None`: no such copy.
    pub source_copy_prefix: Option<String>,
    /// The SQLite files exist, written from another dump of the same
    /// databases (BIRD mini-dev ships a PostgreSQL and a MySQL dump): only
    /// the copies on this engine are made, stamped with those files'
    /// fingerprints once each table's row count matches the file's.
    pub copy_only: bool,
    /// The one database to load of a dump of several (pg_dumpall's, or
    /// mysqldump's with `--databases`); `None`: the dump is one database.
    pub dump_database: Option<String>,
}

/// A statement not run, or an object listed, with its line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DumpNote {
    /// The file the dump includes that holds the statement (`None`: the
    /// dump itself); in a pg_dump tar archive, the archive's path followed
    /// by the member's name (`…/dvdrental.tar/restore.sql`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    pub line: usize,
    pub statement: String,
    pub note: String,
}

/// One database written from the dump.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DatabaseImport {
    pub db_id: String,
    pub path: PathBuf,
    pub tables: Vec<TableExport>,
    /// Tables the mapping names that the dump does not hold.
    pub missing_tables: Vec<String>,
    pub rows: u64,
    pub seconds: f64,
    /// Of `seconds`: the SQLite file written (and read back), and the copy
    /// on the dump's own engine made and checked.
    #[serde(default)]
    pub sqlite_seconds: f64,
    #[serde(default)]
    pub copy_seconds: f64,
    /// Every table written and verified.
    pub complete: bool,
    /// The source's views and what became of each in the SQLite file
    /// (carried where SQLite answers as the source does).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub views: Vec<crate::migrate::ViewReport>,
    /// The copy on the dump's own engine with the dump's own types, when
    /// one was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_copy: Option<SourceCopy>,
    /// Appended to the `db_id` in this database's namespaces, because
    /// another benchmark's database of the same `db_id` holds the plain one
    /// (recorded in the source model beside the file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace_suffix: Option<String>,
    /// The database's entry of a Spider `tables.json` (the written
    /// tables, their columns, keys and foreign keys).
    #[serde(skip)]
    pub spider_tables: serde_json::Value,
}

/// Spider's column type words (`tables.json`'s `column_types`) for a
/// SQLite column of `storage` and declared type `sqlite_type`.
fn spider_type(storage: Storage, sqlite_type: &str) -> &'static str {
    let t = sqlite_type.to_ascii_uppercase();
    if t == "BOOLEAN" {
        "boolean"
    } else if t.starts_with("DATE") || t.starts_with("TIME") {
        "time"
    } else {
        match storage {
            Storage::Integer | Storage::Real | Storage::Decimal => "number",
            Storage::Text => "text",
            Storage::Blob => "others",
        }
    }
}

/// The Spider `tables.json` entry of `db_id` for the tables written.
fn spider_tables(
    db_id: &str,
    tables: &[(sqlwitness_core::SourceTable, TableExport)],
) -> serde_json::Value {
    let readable = |s: &str| s.replace('_', " ").to_lowercase();
    let mut column_names_original = vec![serde_json::json!([-1, "*"])];
    let mut column_names = vec![serde_json::json!([-1, "*"])];
    let mut column_types = vec!["text".to_string()];
    let mut first_column = Vec::new();
    for (ti, (t, e)) in tables.iter().enumerate() {
        first_column.push(column_types.len());
        for m in &e.columns {
            column_names_original.push(serde_json::json!([ti, m.column]));
            column_names.push(serde_json::json!([ti, readable(&m.column)]));
            column_types.push(spider_type(m.storage, &m.sqlite_type).to_string());
        }
        let _ = t;
    }
    let index = |table: &str, column: &str| -> Option<usize> {
        let ti = tables.iter().position(|(t, _)| t.name == table)?;
        // Among the columns written (a column with no SQLite form is left
        // out).
        let ci = tables[ti]
            .1
            .columns
            .iter()
            .position(|c| c.column == column)?;
        Some(first_column[ti] + ci)
    };
    let mut primary_keys = Vec::new();
    let mut foreign_keys = Vec::new();
    for (t, _) in tables {
        match t.primary_key.as_slice() {
            [] => {}
            [one] => primary_keys.push(serde_json::json!(index(&t.name, &t.columns[*one].name))),
            many => primary_keys.push(serde_json::json!(many
                .iter()
                .filter_map(|&c| index(&t.name, &t.columns[c].name))
                .collect::<Vec<_>>())),
        }
        for fk in &t.foreign_keys {
            for (c, p) in fk.columns.iter().zip(&fk.parent_columns) {
                if let (Some(c), Some(Some(p))) = (
                    index(&t.name, c),
                    p.as_ref().map(|p| index(&fk.parent_table, p)),
                ) {
                    foreign_keys.push(serde_json::json!([c, p]));
                }
            }
        }
    }
    serde_json::json!({
        "db_id": db_id,
        "table_names_original": tables.iter().map(|(t, _)| t.name.clone()).collect::<Vec<_>>(),
        "table_names": tables.iter().map(|(t, _)| readable(&t.name)).collect::<Vec<_>>(),
        "column_names_original": column_names_original,
        "column_names": column_names,
        "column_types": column_types,
        "primary_keys": primary_keys,
        "foreign_keys": foreign_keys,
    })
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportReport {
    /// The dump loaded, or the live database read (its URL without a
    /// password, and the schema).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dump: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live_source: Option<String>,
    /// The files the dump includes (`source`, `\i`), read in their place,
    /// and those psql's `\copy` reads rows from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub included: Vec<PathBuf>,
    pub engine: String,
    pub server_version: String,
    /// Statements run (and `COPY` blocks).
    pub statements: u64,
    /// Rows loaded through `COPY`.
    pub copied_rows: u64,
    pub load_seconds: f64,
    /// Wall time of each step, in seconds: `check` (the dump read once
    /// against the policy before anything runs), `namespace` (the load's
    /// namespace and login made), `load`, `export` (the databases written:
    /// each one's SQLite file and copy, also in its own entry), `close`
    /// (the load's namespace and login dropped).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub steps_seconds: std::collections::BTreeMap<String, f64>,
    /// Statements not run, with why (the dump's own `CREATE DATABASE`,
    /// owners and grants …).
    pub skipped: Vec<DumpNote>,
    /// Statements run otherwise than written, with how and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rewritten: Vec<DumpNote>,
    /// Views and code the source defines, not created.
    pub not_created: Vec<DumpNote>,
    /// Statements the server rejected, each with its error: the load went
    /// on past them, as `psql` goes on (a PostgreSQL dump; a MySQL dump
    /// stops at its first error, as the `mysql` client does).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected: Vec<DumpNote>,
    pub databases: Vec<DatabaseImport>,
    /// Databases already imported from these very bytes, with their copy on
    /// the dump's own engine current: nothing was done (the dump was not
    /// loaded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub up_to_date: Vec<String>,
    /// Databases imported before from another version of the dump: their
    /// files were replaced.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replaced: Vec<String>,
    /// Tables of the source in no database, each with why: a table named
    /// as one of another schema that comes first (`public`, then the
    /// schemas in name order) — a database holds one table of a name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hidden_tables: Vec<String>,
    /// The database loaded of a dump of several: the one `--database`
    /// named, or (`chosen_database`) the only one of them that creates
    /// tables, chosen because none was named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chosen_database: Option<String>,
}

impl ImportReport {
    /// A report of nothing yet: the source's engine and server.
    pub fn new(engine: EngineKind, server_version: String) -> ImportReport {
        ImportReport {
            dump: None,
            live_source: None,
            included: Vec::new(),
            engine: engine.to_string(),
            server_version,
            statements: 0,
            copied_rows: 0,
            load_seconds: 0.0,
            steps_seconds: Default::default(),
            skipped: Vec::new(),
            rewritten: Vec::new(),
            not_created: Vec::new(),
            rejected: Vec::new(),
            databases: Vec::new(),
            up_to_date: Vec::new(),
            replaced: Vec::new(),
            hidden_tables: Vec::new(),
            database: None,
            chosen_database: None,
        }
    }

    /// Every database written and verified, and its copy on the dump's own
    /// engine made, where one was asked for.
    pub fn complete(&self) -> bool {
        self.databases
            .iter()
            .all(|d| d.complete && d.source_copy.as_ref().is_none_or(|c| c.faithful))
    }
}

/// The dump dialect of an engine's dumps: by the grammar its dialect file
/// names, for an engine whose dialect says how its dumps are imported
/// (`dump_types`).
pub fn dump_dialect(engine: EngineKind) -> Option<DumpDialect> {
    let dialect = sqlwitness_dialect::shipped(engine);
    dialect.dump_types.as_ref()?;
    match dialect.grammar {
        sqlwitness_dialect::Grammar::Postgres => Some(DumpDialect::Postgres),
        sqlwitness_dialect::Grammar::Mysql => Some(DumpDialect::Mysql),
        _ => None,
    }
}

/// A statement's start, on one line, for messages.
fn head(text: &str) -> String {
    let start = text
        .char_indices()
        .nth(400)
        .map_or(text, |(i, _)| &text[..i]);
    let one: String = start.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 100 {
        format!("{}…", one.chars().take(100).collect::<String>())
    } else {
        one
    }
}

/// What a dump's text is read from: a file, a span of one (an archive's
/// member), or a stream: a compressed file's text (gzip, lz4, zstd) or a
/// zip file's member, decompressed as it is read, or the script a pg_dump
/// custom-format archive holds.
enum Input {
    File(BufReader<Take<File>>),
    Stream(BufReader<Box<dyn std::io::Read + Send>>),
}

impl std::io::Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Input::File(r) => r.read(buf),
            Input::Stream(r) => r.read(buf),
        }
    }
}

impl std::io::BufRead for Input {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        match self {
            Input::File(r) => r.fill_buf(),
            Input::Stream(r) => r.fill_buf(),
        }
    }

    fn consume(&mut self, n: usize) {
        match self {
            Input::File(r) => r.consume(n),
            Input::Stream(r) => r.consume(n),
        }
    }
}

/// The bytes `start..start + len` of the file at `path`, as an [`Input`].
fn open_input(path: &Path, start: u64, len: u64) -> std::io::Result<Input> {
    archive::open_span(path, start, len).map(Input::File)
}

/// The text of the compressed file at `path` (`tool` names the tool that
/// decompresses it: `gunzip`, `unlz4`, `unzstd`, as pg_dump's plain format
/// writes with `--compress`), decompressed as it is read; a compressed file
/// holding an archive rather than SQL text is refused (an archive's
/// members are read in place, which a compressed one does not allow).
fn compressed_input(path: &Path, tool: &str) -> Result<Input, BenchError> {
    let io = |source| BenchError::Io {
        path: path.to_path_buf(),
        source,
    };
    let open = || -> std::io::Result<BufReader<Box<dyn std::io::Read + Send>>> {
        let file = File::open(path)?;
        let text: Box<dyn std::io::Read + Send> = match tool {
            "unlz4" => decompress::Frames::Lz4.reader(file),
            "unzstd" => decompress::Frames::Zstd.reader(file),
            _ => Box::new(flate2::read::MultiGzDecoder::new(file)),
        };
        Ok(BufReader::with_capacity(1 << 16, text))
    };
    if archive::format_of_reader(open().map_err(io)?).map_err(io)? != archive::DumpFormat::Plain {
        return Err(BenchError::format(
            path,
            "archive",
            format!(
                "a compressed file holding an archive, not SQL text: unpack it first ({tool}) \
                 and import the archive it holds"
            ),
        ));
    }
    open().map(Input::Stream).map_err(io)
}

/// The dump's text, ready to read, and the files it may read besides.
struct Script {
    items: Splitter<Input>,
    files: Files<Input>,
    /// How messages name the file whose text this is (a zip file's member:
    /// `shop.zip/shop.sql`).
    shown: PathBuf,
}

/// The file a dump given as `path` is read from: a directory-format dump
/// (`pg_dump -Fd`) given as its folder is its `toc.dat`; any other path is
/// itself. A folder without `toc.dat` is refused.
fn dump_file(path: &Path) -> Result<PathBuf, BenchError> {
    if !path.is_dir() {
        return Ok(path.to_path_buf());
    }
    let toc = path.join("toc.dat");
    if toc.is_file() {
        return Ok(toc);
    }
    Err(BenchError::format(
        path,
        "dump",
        "a folder, not a dump file: a pg_dump directory-format dump (pg_dump -Fd) holds \
         toc.dat, which this folder does not",
    ))
}

/// The files beside a dump that hold its rows (a directory-format dump's
/// files of rows, named by its table of contents): an edited one makes
/// the dump's copies stale. Empty for every other dump.
fn rows_files(dump: &Path) -> Vec<PathBuf> {
    let Ok(toc) = dump_file(dump) else {
        return Vec::new();
    };
    if archive::format_of(&toc).ok() != Some(archive::DumpFormat::Custom) {
        return Vec::new();
    }
    custom::CustomDump::open_unpacked(&toc, &toc, None)
        .map(|d| d.data_files())
        .unwrap_or_default()
}

/// The text of the dump at `path`: the file itself, the `restore.sql` of
/// a pg_dump tar archive (whose `$$PATH$$` names its members), the script
/// a pg_dump custom-format archive or directory-format dump holds, a gzip
/// file's text, or the dump a zip file holds. Another compressed file is
/// refused, saying how to make it text.
fn script_of(path: &Path, dialect: DumpDialect) -> Result<Script, BenchError> {
    let path = &dump_file(path)?;
    let io = |source| BenchError::Io {
        path: path.to_path_buf(),
        source,
    };
    match archive::format_of(path).map_err(io)? {
        // A compressed file of SQL text (`employees.sql.gz`, pg_dump's
        // plain format with `--compress=zstd`): read as its text.
        archive::DumpFormat::Compressed(tool @ ("gunzip" | "unlz4" | "unzstd")) => Ok(Script {
            items: Splitter::new(compressed_input(path, tool)?, dialect),
            files: Files::beside(path, open_input),
            shown: path.to_path_buf(),
        }),
        archive::DumpFormat::Compressed("unzip") => zip_script(path, dialect),
        archive::DumpFormat::Compressed(tool) => Err(BenchError::format(
            path,
            "archive",
            format!(
                "a compressed file ({tool} reads it): unpack it first and import the dump it \
                 holds"
            ),
        )),
        archive::DumpFormat::Plain => Ok(Script {
            items: Splitter::new(open_input(path, 0, u64::MAX).map_err(io)?, dialect)
                .with_line_sizer(split::file_line_sizer(path.to_path_buf())),
            files: Files::beside(path, open_input),
            shown: path.to_path_buf(),
        }),
        format => archive_script(
            format,
            ArchiveFile {
                path,
                shown_as: path,
                dump: path,
                unpacked: None,
            },
            dialect,
        ),
    }
}

/// A pg_dump archive to read: its file, how messages name it, the dump
/// file as given (the archive, or the zip file holding it), and the file
/// unpacked from a zip, kept while the archive is read.
struct ArchiveFile<'a> {
    path: &'a Path,
    shown_as: &'a Path,
    dump: &'a Path,
    unpacked: Option<std::sync::Arc<unzip::Unpacked>>,
}

/// The script of a pg_dump archive: a tar archive's `restore.sql`, or
/// the script a custom-format archive holds.
fn archive_script(
    format: archive::DumpFormat,
    file: ArchiveFile<'_>,
    dialect: DumpDialect,
) -> Result<Script, BenchError> {
    let shown = file.shown_as.to_path_buf();
    let not_postgres = |what: &str| {
        Err(BenchError::format(
            file.shown_as,
            "archive",
            format!("{what}: only PostgreSQL's are read"),
        ))
    };
    match format {
        archive::DumpFormat::Custom if dialect != DumpDialect::Postgres => {
            not_postgres("a pg_dump custom-format archive (PGDMP)")
        }
        archive::DumpFormat::Custom => {
            let dump = custom::CustomDump::open_unpacked(file.path, file.shown_as, file.unpacked)?;
            Ok(Script {
                items: Splitter::new(
                    Input::Stream(BufReader::with_capacity(1 << 16, Box::new(dump.script()))),
                    dialect,
                ),
                files: Files::beside(file.dump, open_input),
                shown,
            })
        }
        archive::DumpFormat::Tar if dialect != DumpDialect::Postgres => {
            not_postgres("a tar archive (pg_dump -Ft)")
        }
        archive::DumpFormat::Tar => {
            let path = file.path.to_path_buf();
            let tar = archive::TarDump::open_unpacked(
                file.path,
                file.shown_as,
                file.dump,
                file.unpacked,
            )?;
            let script = tar.script();
            let (start, size) = (script.start, script.size);
            let items = Splitter::new(
                open_input(&path, start, size).map_err(|source| BenchError::Io {
                    path: shown.clone(),
                    source,
                })?,
                dialect,
            )
            .with_line_sizer(split::span_line_sizer(path, start, size));
            Ok(Script {
                items,
                files: Files::in_archive(tar, open_input),
                shown,
            })
        }
        archive::DumpFormat::Plain | archive::DumpFormat::Compressed(_) => Err(BenchError::format(
            file.shown_as,
            "archive",
            "not a pg_dump archive",
        )),
    }
}

/// The dump a zip file holds: SQL text, read as it is decompressed, or a
/// pg_dump archive, unpacked to a file of its own first (it is read by
/// seeking).
fn zip_script(path: &Path, dialect: DumpDialect) -> Result<Script, BenchError> {
    let member = unzip::dump_member(path)?;
    let shown = member.shown();
    let io = |source| BenchError::Io {
        path: shown.clone(),
        source,
    };
    match archive::format_of_reader(member.reader().map_err(io)?).map_err(io)? {
        archive::DumpFormat::Plain => Ok(Script {
            items: Splitter::new(
                Input::Stream(BufReader::with_capacity(
                    1 << 16,
                    member.reader().map_err(io)?,
                )),
                dialect,
            ),
            files: Files::beside(path, open_input),
            shown,
        }),
        archive::DumpFormat::Compressed(tool) => Err(BenchError::format(
            &shown,
            "zip",
            format!(
                "a compressed file ({tool} reads it) inside a zip file: unpack both and import \
                 the dump"
            ),
        )),
        format => {
            let unpacked = std::sync::Arc::new(member.unpack()?);
            let at = unpacked.path.clone();
            archive_script(
                format,
                ArchiveFile {
                    path: &at,
                    shown_as: &shown,
                    dump: path,
                    unpacked: Some(unpacked),
                },
                dialect,
            )
        }
    }
}

fn format_error(path: &Path, line: usize, message: String) -> BenchError {
    BenchError::Format {
        path: path.to_path_buf(),
        place: format!("line {line}"),
        message,
    }
}

/// What the check before the load found.
#[derive(Debug, Default)]
pub struct Checked {
    /// The files the dump includes, read in their place (and those its
    /// `\copy`s read).
    pub included: Vec<PathBuf>,
    pub skipped: Vec<DumpNote>,
    pub rewritten: Vec<DumpNote>,
    pub not_created: Vec<DumpNote>,
    /// Read as one database the dump is refused, but it switches between
    /// several of which only this one holds tables (pg_dumpall's cluster
    /// dump of one application): it is to be read again with this one
    /// chosen, as `--database` chooses it.
    pub choose: Option<String>,
}

/// The databases a dump switches to (`\connect`, `USE`), in order; those
/// of them under which it creates a table; and the parts (`None`: the
/// part before the first switch) that hold anything but what pg_dumpall
/// writes around a cluster's databases.
#[derive(Debug, Default)]
struct Sections {
    current: Option<String>,
    names: Vec<String>,
    with_tables: Vec<String>,
    unusual: Vec<Option<String>>,
}

impl Sections {
    fn see(&mut self, dialect: DumpDialect, text: &str, command: bool) {
        if let Some(db) = policy::switches_to(dialect, text, command) {
            if !self.names.iter().any(|n| n.eq_ignore_ascii_case(&db)) {
                self.names.push(db.clone());
            }
            self.current = Some(db);
            return;
        }
        if !cluster_boilerplate(dialect, text, command) && !self.unusual.contains(&self.current) {
            self.unusual.push(self.current.clone());
        }
        let Some(current) = &self.current else { return };
        if command
            || self
                .with_tables
                .iter()
                .any(|n| n.eq_ignore_ascii_case(current))
        {
            return;
        }
        let w = policy::words(dialect, text);
        let creates_table =
            w.first().is_some_and(|x| x == "CREATE") && w.iter().take(6).any(|x| x == "TABLE");
        if creates_table {
            self.with_tables.push(current.clone());
        }
    }

    /// The one database to load of a PostgreSQL dump of several when none
    /// is named: the only one that creates tables, where everything else
    /// in the dump is what pg_dumpall writes around it (settings, the
    /// cluster's roles, the databases' own `CREATE`/`ALTER`/`COMMENT ON
    /// DATABASE`, grants). A dump that does anything else outside it is
    /// refused as before, naming its databases.
    fn sole(&self, dialect: DumpDialect) -> Option<String> {
        let [only] = self.with_tables.as_slice() else {
            return None;
        };
        let alone = self.unusual.iter().all(|u| {
            u.as_deref()
                .is_some_and(|name| name.eq_ignore_ascii_case(only))
        });
        (dialect == DumpDialect::Postgres && self.names.len() > 1 && alone).then(|| only.clone())
    }
}

/// Whether a piece is of what pg_dumpall writes around a cluster's
/// databases, none of which the loader runs for a database it does not
/// load: settings, the cluster's roles and tablespaces, a database's own
/// `CREATE`/`ALTER`/`DROP`/`COMMENT ON DATABASE`, grants, psql's
/// `\restrict`.
fn cluster_boilerplate(dialect: DumpDialect, text: &str, command: bool) -> bool {
    if command {
        let head = text
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        return matches!(head.as_str(), "\\restrict" | "\\unrestrict");
    }
    let w = policy::words(dialect, text);
    let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
    match at(0) {
        "SET" | "RESET" | "GRANT" | "REVOKE" => true,
        "SELECT" => w.iter().any(|x| x == "SET_CONFIG"),
        "COMMENT" => at(1) == "ON" && at(2) == "DATABASE",
        "CREATE" | "ALTER" | "DROP" => {
            matches!(at(1), "DATABASE" | "ROLE" | "USER" | "GROUP" | "TABLESPACE")
        }
        _ => false,
    }
}

/// The loader's decision on every piece of the dump, read once before
/// anything runs, as the server of `version` (MySQL and MariaDB: its
/// `version()` text) will read it from a session that starts with
/// `lexing`: the first refusal is an error naming its line. With
/// `database`, only that database of a dump of several is read; a dump
/// without it is an error.
pub fn check_dump(
    path: &Path,
    dialect: DumpDialect,
    version: Option<&str>,
    lexing: &sqlwitness_core::LexSettings,
    database: Option<&str>,
) -> Result<Checked, BenchError> {
    let mut out = Checked::default();
    let script = script_of(path, dialect)?;
    let script_shown = script.shown;
    let mut reading = Reading::new(
        script
            .items
            .for_server(version.and_then(VersionReader::from_version_text)),
        dialect,
        lexing_of(lexing),
    )
    .with_files(script.files)
    .with_database(database.map(str::to_string));
    let mut sections = Sections::default();
    while let Some(piece) = reading.next_piece() {
        let file = reading.file().map(Path::to_path_buf);
        let at = file.as_deref().unwrap_or(&script_shown);
        let Piece {
            line,
            text,
            decision,
            command,
        } = piece.map_err(|e| format_error(at, e.line, e.message))?;
        sections.see(dialect, &text, command);
        let note = |note: String| DumpNote {
            file: file.clone(),
            line,
            statement: head(&text),
            note,
        };
        match decision {
            Decision::Run | Decision::Create { .. } => {}
            Decision::RunAs { note: why, .. } | Decision::LoadData { note: why, .. } => {
                out.rewritten.push(note(why))
            }
            Decision::Skip(why) => out.skipped.push(note(why)),
            Decision::Ignore => {}
            Decision::List { kind, name } => out
                .not_created
                .push(note(format!("{kind} {name}: not created"))),
            Decision::Refuse(why) => {
                let several = if database.is_none() {
                    databases_after(&mut reading, dialect, &mut sections)
                } else {
                    String::new()
                };
                if let Some(only) = database.is_none().then(|| sections.sole(dialect)).flatten() {
                    return Ok(Checked {
                        choose: Some(only),
                        ..Checked::default()
                    });
                }
                return Err(format_error(
                    at,
                    line,
                    format!(
                        "refused: {why} (`{}`); nothing was loaded{several}",
                        head(&text)
                    ),
                ));
            }
        }
    }
    if !reading.found_database() {
        let name = database.unwrap_or_default();
        return Err(format_error(
            &script_shown,
            0,
            format!(
                "database {name}: the dump never switches to it (no `{}`); nothing was loaded",
                match dialect {
                    DumpDialect::Postgres => format!("\\connect {name}"),
                    DumpDialect::Mysql => format!("USE {name}"),
                }
            ),
        ));
    }
    out.included = reading.included;
    Ok(out)
}

/// After a refusal: the rest of the dump's databases read into
/// `sections`; where it switches to two or more (a dump of several, as
/// pg_dumpall writes), the hint to load one of them; else nothing.
fn databases_after<R: std::io::BufRead>(
    reading: &mut Reading<R>,
    dialect: DumpDialect,
    sections: &mut Sections,
) -> String {
    while let Some(Ok(piece)) = reading.next_piece() {
        sections.see(dialect, &piece.text, piece.command);
    }
    if sections.names.len() < 2 {
        return String::new();
    }
    let tables = if sections.with_tables.is_empty() {
        "none of them creates a table".to_string()
    } else {
        format!("tables in {}", sections.with_tables.join(", "))
    };
    format!(
        "; the dump holds several databases ({}; {tables}): load one with --database NAME (no \
         other database's statement is read)",
        sections.names.join(", ")
    )
}

/// The statements of a dump as the loader reads them (following the
/// settings its statements make, reading MySQL's version comments as the
/// server of `version` does), with the line each starts on, up to the first
/// text the loader cannot read as its server would, or refuses: that error,
/// with its line, comes second. Client commands are left out.
#[allow(clippy::type_complexity)]
pub fn dump_statements(
    text: &str,
    dialect: DumpDialect,
    version: Option<&str>,
) -> (Vec<(usize, String)>, Option<(usize, String)>) {
    let mut reading = Reading::new(
        Splitter::new(text.as_bytes(), dialect)
            .for_server(version.and_then(VersionReader::from_version_text)),
        dialect,
        split::Lexing::default(),
    );
    let mut out = Vec::new();
    while let Some(piece) = reading.next_piece() {
        match piece {
            Err(e) => return (out, Some((e.line, e.message))),
            Ok(Piece {
                line,
                decision: Decision::Refuse(why),
                ..
            }) => return (out, Some((line, why))),
            Ok(Piece {
                line,
                text,
                command: false,
                ..
            }) => out.push((line, text)),
            Ok(_) => {}
        }
    }
    (out, None)
}

/// Writes each database of `opts.databases` into a SQLite file (and the
/// copies on the source's engine): a dump is loaded into a fresh namespace,
/// dropped with its login at the end whatever happened; a live database is
/// read and left as it was.
pub fn import_dump(opts: &ImportOptions) -> Result<ImportReport, BenchError> {
    let dialect = dump_dialect(opts.engine).ok_or_else(|| BenchError::Migration {
        db_id: String::new(),
        engine: opts.engine.to_string(),
        message: "dumps and live sources are read by PostgreSQL, MySQL or MariaDB".into(),
    })?;
    for d in &opts.databases {
        if let Some(problem) = sqlwitness_bench::db_id_problem(&d.db_id) {
            return Err(BenchError::Migration {
                db_id: d.db_id.clone(),
                engine: opts.engine.to_string(),
                message: problem,
            });
        }
    }
    // The dump file's own bytes decide whether it is the one imported
    // before; the files it reads besides (its includes, a directory-format
    // dump's files of rows) are checked from the model, and read for the
    // new model only once the import is done.
    let identity = match &opts.source {
        ImportSource::Dump(dump) => Some(sqlwitness_bench::DumpIdentity::of(&dump_file(dump)?)?),
        ImportSource::Live { .. } => None,
    };
    // The databases with no file yet: each is marked as being written until
    // the import is over, and what a failed import began to write for them
    // is removed.
    let mut new_files: Vec<PathBuf> = Vec::new();
    if !opts.copy_only {
        for d in &opts.databases {
            let path = freshness::sqlite_path(opts, &d.db_id);
            if let Some(message) = freshness::unfinished_import(&path) {
                return Err(BenchError::Migration {
                    db_id: d.db_id.clone(),
                    engine: opts.engine.to_string(),
                    message,
                });
            }
            if !path.exists() {
                new_files.push(path);
            }
        }
    }
    let mut replaced = Vec::new();
    let mut aside = None;
    if let Some(identity) = &identity {
        match freshness::check(opts, identity)? {
            freshness::Fresh::UpToDate(report) => return Ok(*report),
            freshness::Fresh::Replace(ids, set_aside) => {
                replaced = ids;
                aside = Some(set_aside);
            }
            freshness::Fresh::New => {}
        }
    }
    let mut made_dirs = Vec::new();
    for path in &new_files {
        match freshness::mark_unfinished(path) {
            Ok(made) => made_dirs.extend(made),
            Err(e) => {
                if let Some(aside) = aside {
                    aside.restore();
                }
                return Err(e);
            }
        }
    }
    let mut report = match import_fresh(opts, dialect) {
        Ok(r) => {
            if let Some(aside) = aside {
                aside.discard();
            }
            r
        }
        Err(e) => {
            for path in &new_files {
                freshness::remove_unfinished(path);
            }
            for dir in &made_dirs {
                let _ = std::fs::remove_dir(dir);
            }
            if let Some(aside) = aside {
                aside.restore();
            }
            return Err(e);
        }
    };
    if !opts.copy_only {
        // The same for every database the dump holds: read once.
        let identity = match (&identity, &opts.source) {
            (Some(i), ImportSource::Dump(dump)) => {
                let mut files = rows_files(dump);
                files.extend(report.included.iter().cloned());
                Some(i.with_includes(&files)?)
            }
            _ => None,
        };
        for d in &report.databases {
            let chosen = opts
                .databases
                .iter()
                .find(|o| o.db_id == d.db_id)
                .and_then(|o| o.tables.clone());
            freshness::write_model(
                &report,
                d,
                identity.as_ref(),
                chosen,
                report
                    .database
                    .as_deref()
                    .or(report.chosen_database.as_deref()),
            )?;
        }
    }
    report.replaced = replaced;
    for path in &new_files {
        freshness::mark_finished(path);
    }
    Ok(report)
}

/// [`import_dump`] once the databases are known to need it.
fn import_fresh(opts: &ImportOptions, dialect: DumpDialect) -> Result<ImportReport, BenchError> {
    check_targets(opts)?;
    match &opts.source {
        ImportSource::Dump(dump) => import_dump_file(opts, dialect, dump),
        ImportSource::Live { url, schema } => import_live(opts, url, schema.as_deref()),
    }
}

/// Refuses, before anything is loaded, a database whose `db_id` is not a
/// name, whose file exists (a fresh import writes new files), or, when
/// only the copies are made, whose file is missing.
fn check_targets(opts: &ImportOptions) -> Result<(), BenchError> {
    for d in &opts.databases {
        if let Some(problem) = sqlwitness_bench::db_id_problem(&d.db_id) {
            return Err(BenchError::Migration {
                db_id: d.db_id.clone(),
                engine: opts.engine.to_string(),
                message: problem,
            });
        }
        let path = opts.out.join(&d.db_id).join(format!("{}.sqlite", d.db_id));
        if opts.copy_only {
            if opts.source_copy_prefix.is_none() {
                return Err(BenchError::Migration {
                    db_id: d.db_id.clone(),
                    engine: opts.engine.to_string(),
                    message: "copying only needs the copies on the dump's engine".into(),
                });
            }
            if !path.is_file() {
                return Err(BenchError::Migration {
                    db_id: d.db_id.clone(),
                    engine: opts.engine.to_string(),
                    message: format!(
                        "{}: does not exist; import a dump of the database first",
                        path.display()
                    ),
                });
            }
        } else if path.exists() {
            return Err(BenchError::Migration {
                db_id: d.db_id.clone(),
                engine: opts.engine.to_string(),
                message: format!("{}: exists; remove it to import again", path.display()),
            });
        }
    }
    Ok(())
}

/// [`check_dump`], and where the dump read as one database is refused but
/// holds several of which only one creates tables, the check of that one
/// ([`Checked::choose`]), named second.
fn check_choosing(
    path: &Path,
    dialect: DumpDialect,
    version: Option<&str>,
    lexing: &sqlwitness_core::LexSettings,
    database: Option<&str>,
) -> Result<(Checked, Option<String>), BenchError> {
    let checked = check_dump(path, dialect, version, lexing, database)?;
    match checked.choose.clone() {
        Some(db) => Ok((
            check_dump(path, dialect, version, lexing, Some(&db))?,
            Some(db),
        )),
        None => Ok((checked, None)),
    }
}

/// Loads `dump` in a namespace of its own on its engine and writes each
/// database from it.
fn import_dump_file(
    opts: &ImportOptions,
    dialect: DumpDialect,
    dump: &Path,
) -> Result<ImportReport, BenchError> {
    let steps = std::cell::RefCell::new(std::collections::BTreeMap::new());
    let step = |name: &str, seconds: f64| {
        steps.borrow_mut().insert(name.to_string(), seconds);
    };
    // Nothing is created for a dump refused as text. (A MySQL
    // dump's version comments are read as its server reads them:
    // checked once the server's version is known.)
    let started = Instant::now();
    let checked_before = match dialect {
        DumpDialect::Postgres => Some(check_choosing(
            dump,
            dialect,
            None,
            &sqlwitness_core::LexSettings {
                standard_strings: true,
                no_backslash_escapes: false,
                ansi_quotes: false,
                client_charset: "UTF8".into(),
            },
            opts.dump_database.as_deref(),
        )?),
        DumpDialect::Mysql => None,
    };
    step("check", started.elapsed().as_secs_f64());
    let server_err = |e: sqlwitness_core::DbError| BenchError::Migration {
        db_id: dump.display().to_string(),
        engine: opts.engine.to_string(),
        message: e.message,
    };
    let ns_name = format!("sw_dump_{}", &sqlwitness_engines::fresh_password()[..16]);
    let stamp_db = opts
        .databases
        .iter()
        .map(|d| d.db_id.as_str())
        .collect::<Vec<_>>()
        .join(",");
    let stamp = Stamp::new(&stamp_db, "dump", "dump-load");
    let started = Instant::now();
    let mut ns = sqlwitness_engines::open_dump_namespace(
        opts.engine,
        &opts.url,
        &ns_name,
        &stamp,
        opts.statement_limit,
        std::fs::metadata(dump).map_or(0, |m| m.len()),
    )
    .map_err(server_err)?;
    step("namespace", started.elapsed().as_secs_f64());
    let result = ns
        .server_version()
        .map_err(server_err)
        .and_then(|version| {
            let (checked, chosen) = match checked_before {
                Some(c) => c,
                None => {
                    let started = Instant::now();
                    let first = ns.lexing().map_err(server_err)?;
                    let checked = check_choosing(
                        dump,
                        dialect,
                        Some(&version),
                        &first,
                        opts.dump_database.as_deref(),
                    )?;
                    step("check", started.elapsed().as_secs_f64());
                    checked
                }
            };
            let chosen_opts;
            let load_opts = match &chosen {
                Some(db) => {
                    chosen_opts = ImportOptions {
                        dump_database: Some(db.clone()),
                        ..opts.clone()
                    };
                    &chosen_opts
                }
                None => opts,
            };
            let loaded = load(&mut *ns, dump, dialect, Some(&version), load_opts)?;
            step("load", loaded.seconds);
            Ok((checked, loaded, chosen))
        })
        .and_then(|(checked, loaded, chosen)| {
            let mut not_created = checked.not_created;
            not_created.extend(loaded.refused_objects);
            let started = Instant::now();
            let mut report = export(&mut *ns, opts, not_created)?;
            step("export", started.elapsed().as_secs_f64());
            report.dump = Some(dump.to_path_buf());
            report.skipped = checked.skipped;
            report.included = checked.included;
            report.rewritten = checked.rewritten;
            report.statements = loaded.statements;
            report.copied_rows = loaded.copied_rows;
            report.load_seconds = loaded.seconds;
            report.rejected = loaded.rejected;
            report.database = opts.dump_database.clone();
            report.chosen_database = chosen;
            Ok(report)
        });
    let started = Instant::now();
    let closed = ns.close();
    step("close", started.elapsed().as_secs_f64());
    let mut report = result?;
    closed.map_err(server_err)?;
    report.steps_seconds = steps.into_inner();
    Ok(report)
}

/// Reads a live database (`schema` of the server at `url`) and writes each
/// database from it.
fn import_live(
    opts: &ImportOptions,
    url: &str,
    schema: Option<&str>,
) -> Result<ImportReport, BenchError> {
    let shown = match schema {
        Some(s) => format!("{} schema {s}", sqlwitness_engines::mask_url(url)),
        None => sqlwitness_engines::mask_url(url),
    };
    let server_err = |e: sqlwitness_core::DbError| BenchError::Migration {
        db_id: shown.clone(),
        engine: opts.engine.to_string(),
        message: e.message,
    };
    let mut src = sqlwitness_engines::open_live_source(opts.engine, &opts.url, url, schema)
        .map_err(server_err)?;
    let result = export(&mut *src, opts, Vec::new());
    let closed = src.close();
    let mut report = result?;
    closed.map_err(server_err)?;
    report.live_source = Some(shown);
    Ok(report)
}

/// What loading a dump did.
#[derive(Default)]
struct Loaded {
    /// Statements run (and `COPY` blocks).
    statements: u64,
    /// Rows loaded by `COPY`.
    copied_rows: u64,
    seconds: f64,
    /// Views and code the server refused to create, with its reason.
    refused_objects: Vec<DumpNote>,
    /// Statements the server rejected, passed over as the dump's own
    /// client passes over them.
    rejected: Vec<DumpNote>,
}

/// Runs the dump's statements in `ns`, one at a time as the server parses
/// them; after each statement that may change how the server lexes, reads
/// the session's settings back and refuses the dump when they are not
/// what its text says.
fn load(
    ns: &mut dyn DumpNamespace,
    path: &Path,
    dialect: DumpDialect,
    version: Option<&str>,
    opts: &ImportOptions,
) -> Result<Loaded, BenchError> {
    let started = Instant::now();
    let mut state = LoadState {
        path: path.to_path_buf(),
        file: None,
        data: None,
        dialect,
        opts,
        loaded: Loaded::default(),
        ends: Vec::new(),
        stop_on_error: false,
    };
    // The session as it starts: the splitter follows it from here.
    let first = ns
        .lexing()
        .map_err(|e| state.fail(0, "reading the loader's session settings", e))?;
    let script = script_of(path, dialect)?;
    state.path = script.shown;
    let mut reading = Reading::new(
        script
            .items
            .for_server(version.and_then(VersionReader::from_version_text)),
        dialect,
        lexing_of(&first),
    )
    .with_files(script.files)
    .with_database(opts.dump_database.clone());
    while let Some(piece) = reading.next_piece() {
        if reading.file() != state.file.as_deref() {
            state.file = reading.file().map(Path::to_path_buf);
        }
        let Piece {
            line,
            text,
            command,
            decision,
        } = piece.map_err(|e| format_error(state.at(), e.line, e.message))?;
        if command && !matches!(decision, Decision::RunAs { .. }) {
            // Checked before the load: only skips remain (a `\copy` runs).
            continue;
        }
        state.data = reading.data_file().map(Path::to_path_buf);
        // What is needed of the text once it has gone to the server (it is
        // handed over, not copied: a statement may be hundreds of MB).
        let shown = head(&text);
        let first_word = policy::words(dialect, &text)
            .into_iter()
            .next()
            .unwrap_or_default();
        let check = reading.ctx.session.check_after(dialect, &first_word, &text);
        state.stop_on_error = reading.ctx.session.stop_on_error;
        let ran = state.run_piece(ns, reading.items(), line, &shown, text, decision)?;
        if ran && check {
            let now = ns.lexing().map_err(|e| state.fail(line, &shown, e))?;
            if let Some(why) = session_differs(dialect, &reading.ctx.session, &now) {
                return Err(format_error(
                    state.at(),
                    line,
                    format!(
                        "refused after `{shown}` ran: {why}; the statements after it would not \
                         be read as the server reads them"
                    ),
                ));
            }
        }
    }
    state.file = None;
    for end in std::mem::take(&mut state.ends) {
        ns.run(end, opts.statement_limit)
            .map_err(|e| state.fail(0, "after the dump's last statement", e))?;
    }
    ns.finish_load()
        .map_err(|e| state.fail(0, "ending the load", e))?;
    let mut loaded = state.loaded;
    loaded.seconds = started.elapsed().as_secs_f64();
    Ok(loaded)
}

/// A load in progress: what it counted and noted so far.
struct LoadState<'a> {
    /// The dump (a zip file's member: as `zip/member`).
    path: PathBuf,
    /// The included file being read, or an archive's `restore.sql`
    /// (`None`: the dump itself).
    file: Option<PathBuf>,
    /// The file the rows of the `COPY` being run are read from, when it is
    /// not the one that holds the statement.
    data: Option<PathBuf>,
    dialect: DumpDialect,
    opts: &'a ImportOptions,
    loaded: Loaded,
    /// What runs after the dump's last statement (`Decision::RunAs`).
    ends: Vec<String>,
    /// The dump set psql's `ON_ERROR_STOP`: a rejected statement ends the
    /// load, as it ends psql's.
    stop_on_error: bool,
}

impl LoadState<'_> {
    /// The file being read.
    fn at(&self) -> &Path {
        self.file.as_deref().unwrap_or(&self.path)
    }

    /// The load's error for the statement at `line`.
    fn fail(&self, line: usize, shown: &str, e: sqlwitness_core::DbError) -> BenchError {
        BenchError::DumpLoad {
            path: self.at().to_path_buf(),
            line,
            engine: self.opts.engine.to_string(),
            message: format!(
                "`{shown}`: {}{}",
                e.message,
                e.code.map(|c| format!(" (code {c})")).unwrap_or_default()
            ),
        }
    }

    /// Runs one statement as the policy decided (a `COPY` takes its data
    /// from `items`); whether something ran. A statement the server
    /// rejects is noted and passed over where the dump's own client goes
    /// on ([`goes_on`]); every other failure ends the load.
    fn run_piece<R: std::io::BufRead>(
        &mut self,
        ns: &mut dyn DumpNamespace,
        items: &mut Splitter<R>,
        line: usize,
        shown: &str,
        text: String,
        decision: Decision,
    ) -> Result<bool, BenchError> {
        let limit = self.opts.statement_limit;
        let result = match decision {
            Decision::Run if items.in_copy() => self
                .copy(ns, items, &text, limit)?
                .map(|rows| self.loaded.copied_rows += rows),
            Decision::Run => ns.run(text, limit),
            Decision::RunAs { sql, .. } if items.in_copy() => self
                .copy(ns, items, &sql, limit)?
                .map(|rows| self.loaded.copied_rows += rows),
            Decision::RunAs { sql, at_end, .. } => ns.run(sql, limit).map(|()| {
                if let Some(end) = at_end.filter(|e| !self.ends.contains(e)) {
                    self.ends.push(end);
                }
            }),
            Decision::LoadData {
                spec, path, head, ..
            } => self.load_data(ns, &spec, &path, &head, line, shown)?,
            Decision::Create { kind, name, sql } => {
                match ns.run(sql.unwrap_or(text), limit) {
                    Ok(()) => self.loaded.statements += 1,
                    Err(e) if e.class == sqlwitness_core::ErrorClass::Timeout => {
                        return Err(self.fail(line, shown, e))
                    }
                    Err(e) => self.loaded.refused_objects.push(DumpNote {
                        file: self.file.clone(),
                        line,
                        statement: shown.to_string(),
                        note: format!("{kind} {name}: not created: {}", e.message),
                    }),
                }
                return Ok(true);
            }
            Decision::Refuse(why) => {
                // The check before the load refuses these: a dump that
                // changed under it is refused here.
                return Err(format_error(self.at(), line, format!("refused: {why}")));
            }
            Decision::Skip(_) | Decision::Ignore | Decision::List { .. } => return Ok(false),
        };
        match result {
            Ok(()) => {
                self.loaded.statements += 1;
                Ok(true)
            }
            Err(e) if goes_on(self.dialect, &e) && self.stop_on_error => {
                let mut e = e;
                e.message += " (the dump sets ON_ERROR_STOP: psql stops here too)";
                Err(self.fail(line, shown, e))
            }
            Err(e) if goes_on(self.dialect, &e) => {
                // A `COPY`'s data after a rejected `COPY` is skipped with
                // it (the reading skips data between statements), as
                // `psql` skips it.
                self.loaded
                    .rejected
                    .push(rejected_note(self.file.clone(), line, shown, &e));
                Ok(false)
            }
            Err(e) => Err(self.fail(line, shown, e)),
        }
    }

    /// The rows of the file at `path`, read as `spec` says, sent as the
    /// `INSERT`s that start with `head`, a piece of the file at a time: the
    /// server's answer, or the load's error when the file cannot be read.
    fn load_data(
        &self,
        ns: &mut dyn DumpNamespace,
        spec: &load_data::LoadData,
        path: &Path,
        head: &str,
        line: usize,
        shown: &str,
    ) -> Result<Result<(), sqlwitness_core::DbError>, BenchError> {
        let unreadable = |e: std::io::Error| {
            format_error(
                path,
                line,
                format!("`{shown}`: its file cannot be read: {e}"),
            )
        };
        let file = File::open(path).map_err(unreadable)?;
        let mut records = load_data::Records::new(BufReader::with_capacity(1 << 16, file), spec);
        let mut batch = load_data::Batch::new(spec, head, LOAD_DATA_BATCH);
        let limit = self.opts.statement_limit;
        while let Some(record) = records.next_record().map_err(unreadable)? {
            if let Some(sql) = batch.push(&record) {
                if let Err(e) = ns.run(sql, limit) {
                    return Ok(Err(e));
                }
            }
        }
        Ok(batch.finish().map_or(Ok(()), |sql| ns.run(sql, limit)))
    }

    /// A `COPY … FROM stdin` with its data from `items`: the server's
    /// answer (the rows loaded), or the load's error when the dump's data
    /// itself cannot be read.
    fn copy<R: std::io::BufRead>(
        &self,
        ns: &mut dyn DumpNamespace,
        items: &mut Splitter<R>,
        text: &str,
        limit: std::time::Duration,
    ) -> Result<Result<u64, sqlwitness_core::DbError>, BenchError> {
        let mut source_error = None;
        let rows = ns.copy_in(
            text,
            &mut || match items.next() {
                Some(Ok(Item::CopyData(chunk))) => Ok(Some(chunk)),
                Some(Ok(_)) | None => Ok(None),
                Some(Err(e)) => {
                    let message = e.message.clone();
                    source_error = Some(e);
                    Err(sqlwitness_core::DbError::new(
                        sqlwitness_core::ErrorClass::Other,
                        None,
                        message,
                    ))
                }
            },
            limit,
        );
        match source_error {
            Some(e) => Err(format_error(
                self.data.as_deref().unwrap_or(self.at()),
                e.line,
                e.message,
            )),
            None => Ok(rows),
        }
    }
}

/// Whether the load goes on past `e`, as the dump's own client would: a
/// statement the server rejected, but never one stopped at its time limit
/// nor a lost connection (the statements after it would not run either).
fn goes_on(dialect: DumpDialect, e: &sqlwitness_core::DbError) -> bool {
    use sqlwitness_core::ErrorClass;
    dialect.client_goes_on_after_errors()
        && !matches!(e.class, ErrorClass::Timeout | ErrorClass::Connection)
}

/// A statement the server rejected, for the report.
fn rejected_note(
    file: Option<PathBuf>,
    line: usize,
    shown: &str,
    e: &sqlwitness_core::DbError,
) -> DumpNote {
    DumpNote {
        file,
        line,
        statement: shown.to_string(),
        note: format!(
            "rejected by the server: {}{}",
            e.message,
            e.code
                .as_ref()
                .map(|c| format!(" (code {c})"))
                .unwrap_or_default()
        ),
    }
}

/// The splitter's settings for a session's.
fn lexing_of(s: &sqlwitness_core::LexSettings) -> split::Lexing {
    split::Lexing {
        standard_strings: s.standard_strings,
        no_backslash_escapes: s.no_backslash_escapes,
        ansi_quotes: s.ansi_quotes,
        // A session of the loader's speaks UTF-8 (`session_differs`).
        encoding: split::TextEncoding::Utf8,
    }
}

/// How the server's session settings `now` differ from what the dump's
/// statements say (`session`), where it matters to where strings end.
fn session_differs(
    dialect: DumpDialect,
    session: &session::Session,
    now: &sqlwitness_core::LexSettings,
) -> Option<String> {
    let model = session.lexing;
    match dialect {
        DumpDialect::Postgres => {
            if now.standard_strings != model.standard_strings {
                return Some(format!(
                    "standard_conforming_strings is {} on the server",
                    if now.standard_strings { "on" } else { "off" }
                ));
            }
            if !session::is_utf8_name(&now.client_charset) {
                return Some(format!("the client encoding is {}", now.client_charset));
            }
        }
        DumpDialect::Mysql => {
            if now.no_backslash_escapes != model.no_backslash_escapes
                || now.ansi_quotes != model.ansi_quotes
            {
                return Some(format!(
                    "the server's sql_mode has NO_BACKSLASH_ESCAPES {} and ANSI_QUOTES {}",
                    if now.no_backslash_escapes {
                        "on"
                    } else {
                        "off"
                    },
                    if now.ansi_quotes { "on" } else { "off" }
                ));
            }
            if !session::safe_charset(&now.client_charset) {
                return Some(format!(
                    "the client character set is {}",
                    now.client_charset
                ));
            }
        }
    }
    None
}

/// Writes each database of `opts.databases` from the tables of `ns` (a
/// loaded dump or a live database) into its SQLite file, and its copy on
/// the source's engine; `not_created` lists what the dump's text defines
/// and is not created.
fn export(
    ns: &mut dyn ServerSource,
    opts: &ImportOptions,
    not_created: Vec<DumpNote>,
) -> Result<ImportReport, BenchError> {
    let fail = |what: &str, e: sqlwitness_core::DbError| BenchError::Migration {
        db_id: String::new(),
        engine: opts.engine.to_string(),
        message: format!("{what}: {}", e.message),
    };
    let server_version = ns
        .server_version()
        .map_err(|e| fail("SELECT version()", e))?;
    // Views go into the SQLite file and into the copy on the source's own
    // engine; with neither written, they are not read.
    let others = ns
        .other_objects()
        .map_err(|e| fail("the objects beside the tables", e))?;
    let source_views = if opts.copy_only && opts.source_copy_prefix.is_none() {
        views::SourceViews::none()
    } else {
        views::SourceViews::read(
            ns,
            opts.statement_limit,
            sqlwitness_dialect::shipped(opts.engine).grammar,
            &views::own_functions(&others),
        )
        .map_err(|e| fail("the views", e))?
    };
    let mut not_created = not_created;
    let schema = ns.schema().map_err(|e| fail("the tables", e))?;
    // What the source's tables leave out (a table another schema's of that
    // name hides), said once.
    not_created.extend(schema.skipped.iter().map(|s| DumpNote {
        file: None,
        line: 0,
        statement: String::new(),
        note: s.clone(),
    }));
    let mut databases = Vec::new();
    for d in &opts.databases {
        let there = ExportSource {
            ns: &mut *ns,
            schema: &schema,
            views: &source_views,
            server_version: &server_version,
        };
        databases.push(export_database(there, opts, d)?);
    }
    list_not_carried(&mut not_created, others, &databases, opts.copy_only);
    Ok(ImportReport {
        not_created,
        databases,
        hidden_tables: schema.skipped.clone(),
        ..ImportReport::new(opts.engine, server_version)
    })
}

/// The source's side of an export: the loaded database, its schema and
/// views, and its server's version.
struct ExportSource<'a> {
    ns: &'a mut dyn ServerSource,
    schema: &'a sqlwitness_core::SourceSchema,
    views: &'a views::SourceViews,
    server_version: &'a str,
}

/// Writes database `d` from the source: its SQLite file (unless only the
/// copies are made), its views carried into the file, and its copy on the
/// source's engine.
fn export_database(
    src: ExportSource<'_>,
    opts: &ImportOptions,
    d: &DumpDatabase,
) -> Result<DatabaseImport, BenchError> {
    let ExportSource {
        ns,
        schema,
        views: source_views,
        server_version,
    } = src;
    let grammar = sqlwitness_dialect::shipped(opts.engine).grammar;
    let started = Instant::now();
    let (tables, missing_tables) = select_tables(&schema.tables, d.tables.as_deref());
    let file = opts.out.join(&d.db_id).join(format!("{}.sqlite", d.db_id));
    let sqlite_started = Instant::now();
    let written = if opts.copy_only {
        Vec::new()
    } else {
        export_sqlite(ns, sqlwitness_dialect::shipped(opts.engine), &tables, &file).map_err(
            |e| BenchError::Migration {
                db_id: d.db_id.clone(),
                engine: "sqlite".into(),
                message: e.message,
            },
        )?
    };
    let sqlite_seconds = sqlite_started.elapsed().as_secs_f64();
    let kept: Vec<(sqlwitness_core::SourceTable, TableExport)> = tables
        .iter()
        .zip(&written)
        .filter(|(_, e)| e.refused.is_none())
        .map(|(t, e)| (t.clone(), e.clone()))
        .collect();
    let spider = if opts.copy_only {
        serde_json::Value::Null
    } else {
        spider_tables(&d.db_id, &kept)
    };
    let carried_views = if opts.copy_only || source_views.is_empty() {
        Vec::new()
    } else {
        source_views.carry(grammar, &file, opts.statement_limit)
    };
    let rows = written.iter().map(|t| t.rows).sum();
    let mut namespace_suffix = None;
    let mut copy_seconds = 0.0;
    let source_copy = opts.source_copy_prefix.as_deref().map(|prefix| {
        let mut db = sqlwitness_bench::database_of(&d.db_id, &file, prefix);
        if !opts.copy_only {
            namespace_suffix = freshness::collision_suffix(opts, prefix, &d.db_id, &file);
            if let Some(suffix) = &namespace_suffix {
                db.namespace =
                    sqlwitness_core::namespace_for(prefix, &format!("{}{suffix}", d.db_id));
            }
        }
        let check = opts.copy_only.then_some(file.as_path());
        let started = Instant::now();
        let copy = source_copy::write(
            ns,
            opts.engine,
            &opts.url,
            (&db, check),
            (&tables, source_views),
            server_version,
        );
        copy_seconds = started.elapsed().as_secs_f64();
        copy
    });
    // A database with no table (a dump whose tables were all rejected,
    // or that has none) is no benchmark database.
    let complete = !tables.is_empty()
        && missing_tables.is_empty()
        && written.iter().all(|t| t.refused.is_none() && t.verified);
    Ok(DatabaseImport {
        db_id: d.db_id.clone(),
        path: file,
        tables: written,
        missing_tables,
        rows,
        seconds: started.elapsed().as_secs_f64(),
        sqlite_seconds,
        copy_seconds,
        complete,
        views: carried_views,
        source_copy,
        namespace_suffix,
        spider_tables: spider,
    })
}

/// The tables of `all` a database takes: every one, or those `names`
/// names (by exact name, else ignoring case), with the names not found.
fn select_tables(
    all: &[sqlwitness_core::SourceTable],
    names: Option<&[String]>,
) -> (Vec<sqlwitness_core::SourceTable>, Vec<String>) {
    let Some(names) = names else {
        return (all.to_vec(), Vec::new());
    };
    let mut missing = Vec::new();
    let tables = names
        .iter()
        .filter_map(|n| {
            let found = all
                .iter()
                .find(|t| &t.name == n)
                .or_else(|| all.iter().find(|t| t.name.eq_ignore_ascii_case(n)));
            if found.is_none() {
                missing.push(n.clone());
            }
            found.cloned()
        })
        .collect();
    (tables, missing)
}

/// Adds to `not_created` the objects beside the tables (`kind name`, from
/// [`ServerSource::other_objects`]) that were not carried: every one but a
/// view carried into some database's SQLite file (with `copy_only`, into
/// some copy on the source's engine); a view carried nowhere says why (the
/// first database's reason).
fn list_not_carried(
    not_created: &mut Vec<DumpNote>,
    others: Vec<String>,
    databases: &[DatabaseImport],
    copy_only: bool,
) {
    for o in others {
        // PostgreSQL names `view schema.name`, MySQL `view name`.
        let view = o
            .strip_prefix("view ")
            .map(|n| n.rsplit_once('.').map_or(n, |(_, v)| v));
        let carries: Vec<&crate::migrate::ViewReport> = view
            .map(|v| {
                databases
                    .iter()
                    .flat_map(|d| {
                        let made = match (&d.source_copy, copy_only) {
                            (Some(copy), true) => copy.views.as_slice(),
                            (None, true) => &[],
                            (_, false) => d.views.as_slice(),
                        };
                        made.iter().filter(move |c| c.view == v)
                    })
                    .collect()
            })
            .unwrap_or_default();
        if carries.iter().any(|c| c.carried) {
            continue;
        }
        if not_created.iter().any(|n| n.note.contains(&o)) {
            continue;
        }
        let code = [
            "trigger ",
            "function ",
            "procedure ",
            "operator ",
            "cast ",
            "rule ",
            "policy ",
        ]
        .iter()
        .any(|k| o.starts_with(k));
        let why = carries
            .iter()
            .find_map(|c| c.note.as_deref())
            .map(|n| format!(": {n}"))
            .unwrap_or_else(|| {
                if o.starts_with("enum type ") || o.starts_with("domain ") {
                    ": its columns' values are carried (as text or its base type in SQLite; \
                     an enum is made again in the copy on the dump's own engine)"
                        .to_string()
                } else if code {
                    ": defined in the dump's database while it loaded (any code of it ran with \
                     the loader's rights only)"
                        .to_string()
                } else {
                    String::new()
                }
            });
        let type_values = o.starts_with("enum type ") || o.starts_with("domain ");
        not_created.push(DumpNote {
            file: None,
            line: 0,
            statement: String::new(),
            note: if type_values {
                format!("{o}{why}")
            } else {
                format!("{o}: not carried{why}")
            },
        });
    }
}

/// `rounds` damaged copies of `good`, the same on every run: every third
/// cut at some byte, the others with one byte changed (for tests that
/// damaged input ends in an error or a bounded read, never a panic).
#[cfg(test)]
fn damaged(good: &[u8], rounds: usize) -> impl Iterator<Item = Vec<u8>> + '_ {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    (0..rounds).map(move |round| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut bytes = good.to_vec();
        if round % 3 == 0 {
            bytes.truncate(seed as usize % good.len());
        } else {
            let at = seed as usize % bytes.len();
            bytes[at] ^= (seed >> 32) as u8 | 1;
        }
        bytes
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(name: &str) -> sqlwitness_core::SourceTable {
        sqlwitness_core::SourceTable {
            name: name.into(),
            columns: Vec::new(),
            primary_key: Vec::new(),
            foreign_keys: Vec::new(),
            unique: Vec::new(),
        }
    }

    #[test]
    fn a_database_takes_the_tables_its_mapping_names_exactly_else_by_case() {
        let all = [table("Album"), table("album_extra"), table("Artist")];
        let (every, missing) = select_tables(&all, None);
        assert_eq!(every.len(), 3);
        assert!(missing.is_empty());
        let names = ["artist".to_string(), "Album".into(), "Track".into()];
        let (some, missing) = select_tables(&all, Some(&names));
        let got: Vec<&str> = some.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(got, ["Artist", "Album"]);
        assert_eq!(missing, ["Track"]);
    }

    #[test]
    fn only_a_postgres_dump_goes_on_past_a_rejected_statement() {
        use sqlwitness_core::{DbError, ErrorClass};
        let rejected = DbError::new(ErrorClass::UndefinedTable, Some("42P01".into()), "no");
        assert!(goes_on(DumpDialect::Postgres, &rejected));
        assert!(!goes_on(DumpDialect::Mysql, &rejected));
        for stops in [ErrorClass::Timeout, ErrorClass::Connection] {
            let e = DbError::new(stops, None, "gone");
            assert!(!goes_on(DumpDialect::Postgres, &e), "{stops:?}");
        }
        let note = rejected_note(None, 7, "CREATE TABLE t (g geometry)", &rejected);
        assert_eq!(note.note, "rejected by the server: no (code 42P01)");
    }
}
