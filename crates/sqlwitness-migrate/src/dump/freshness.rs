//! Whether a dump's databases were imported before, from these very bytes:
//! `import` of the same dump again does nothing; of an edited dump, it
//! replaces what it wrote from the old one. What `import` wrote is known
//! by the source model beside each SQLite file (`<db_id>.source.json`,
//! `crate::source_model`), which names the dump's bytes; a file without
//! one was not written by `import` and is never replaced.

use std::path::{Path, PathBuf};

use sqlwitness_core::{Migrator, Ownership, StampState};

use super::{DatabaseImport, ImportOptions, ImportReport};
use sqlwitness_bench::{BenchError, DumpIdentity, ModelColumn, ModelTable, SourceModel};

pub(super) enum Fresh {
    /// Nothing imported before.
    New,
    /// Every database imported from these bytes, its copy on the dump's
    /// engine current: the report says so and nothing else is done.
    UpToDate(Box<ImportReport>),
    /// Imported before from other bytes (or its copy is gone): these
    /// databases' files are set aside, to be written again.
    Replace(Vec<String>, SetAside),
}

pub(super) fn sqlite_path(opts: &ImportOptions, db_id: &str) -> PathBuf {
    opts.out.join(db_id).join(format!("{db_id}.sqlite"))
}

/// What `import` wrote for the database whose file is `path`: the file,
/// SQLite's side files and the model.
fn written(path: &Path) -> Vec<PathBuf> {
    let mut paths = vec![sqlwitness_bench::model_path(path), path.to_path_buf()];
    for side in ["-journal", "-wal", "-shm"] {
        let mut p = path.as_os_str().to_os_string();
        p.push(side);
        paths.push(PathBuf::from(p));
    }
    paths
}

/// Removes what an import that failed began to write for the database
/// whose file is `path` (which had none before it): a file the load never
/// finished is no database to run on.
pub(super) fn remove_unfinished(path: &Path) {
    for p in written(path) {
        let _ = std::fs::remove_file(p);
    }
    let _ = std::fs::remove_file(marker(path));
}

/// The file beside a database's SQLite file `path` while an import writes
/// it: left behind by an import cut off before its end (killed, the machine
/// stopped), it says the file is not a whole database.
fn marker(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(".importing");
    PathBuf::from(s)
}

/// Marks the SQLite file `path`, which an import is about to write, as
/// being written; the folder made for it, if it had none.
pub(super) fn mark_unfinished(path: &Path) -> Result<Option<PathBuf>, BenchError> {
    let m = marker(path);
    let mut made = None;
    if let Some(dir) = m.parent().filter(|d| !d.exists()) {
        std::fs::create_dir_all(dir).map_err(|source| BenchError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        made = Some(dir.to_path_buf());
    }
    std::fs::write(&m, "an import is writing this database\n")
        .map_err(|source| BenchError::Io { path: m, source })?;
    Ok(made)
}

/// The import that wrote `path` is over.
pub(super) fn mark_finished(path: &Path) {
    let _ = std::fs::remove_file(marker(path));
}

/// Why the SQLite file `path` is no database to run on, when an import cut
/// off before its end left it: the file is there, and so is the mark an
/// import puts beside the file it writes until it is done.
pub fn unfinished_import(path: &Path) -> Option<String> {
    (path.exists() && marker(path).exists()).then(|| {
        format!(
            "{}: left by an import cut off before its end (a `.importing` file beside it): \
             remove both to import again",
            path.display()
        )
    })
}

fn set_aside_name(p: &Path) -> PathBuf {
    let mut s = p.as_os_str().to_os_string();
    s.push(".replaced");
    PathBuf::from(s)
}

fn rename(from: &Path, to: &Path) -> Result<(), BenchError> {
    match std::fs::rename(from, to) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(BenchError::Io {
            path: from.to_path_buf(),
            source,
        }),
    }
}

/// The files an earlier import wrote, set aside while the edited dump
/// loads: removed once it is written, put back when it fails (nothing is
/// lost to a dump that does not load).
pub(super) struct SetAside {
    paths: Vec<PathBuf>,
}

impl SetAside {
    fn new(databases: &[PathBuf]) -> Result<SetAside, BenchError> {
        let mut aside = SetAside { paths: Vec::new() };
        for db in databases {
            for p in written(db) {
                if p.exists() {
                    rename(&p, &set_aside_name(&p))?;
                    aside.paths.push(p);
                }
            }
        }
        Ok(aside)
    }

    /// The new import is written: the old files go.
    pub(super) fn discard(self) {
        for p in &self.paths {
            let _ = std::fs::remove_file(set_aside_name(p));
        }
    }

    /// The new import failed: what it began to write goes, the old files
    /// come back.
    pub(super) fn restore(self) {
        for p in &self.paths {
            let _ = std::fs::remove_file(p);
            let _ = rename(&set_aside_name(p), p);
        }
    }
}

/// The administrative connection to the dump's server in `slot`, opened
/// on first use (`None` when it cannot be).
fn opened<'a>(
    slot: &'a mut Option<Option<Box<dyn Migrator>>>,
    opts: &ImportOptions,
) -> Option<&'a mut Box<dyn Migrator>> {
    slot.get_or_insert_with(|| sqlwitness_engines::open_migrator(opts.engine, &opts.url).ok())
        .as_mut()
}

/// Whether the copy `import` made of `db_id` on the dump's own engine (read
/// over `w`) is there, complete, and stamped with the SQLite file's current
/// content.
fn source_copy_current(
    w: Option<&mut Box<dyn Migrator>>,
    prefix: &str,
    db_id: &str,
    path: &Path,
) -> bool {
    let Some(w) = w else {
        return false;
    };
    let ns = sqlwitness_bench::database_of(db_id, path, prefix).namespace;
    let Ok(Ownership::Ours(stamp)) = w.ownership(&ns) else {
        return false;
    };
    let Ok(fingerprint) =
        crate::migrate::source_fingerprint(path, crate::migrate::cache_dir(None).as_deref())
    else {
        return false;
    };
    super::is_source_copy(&stamp)
        && stamp.state == StampState::Complete
        && stamp.db_id == db_id
        && stamp.source == fingerprint
}

/// The namespace suffix database `db_id` (written at `path`) takes when
/// the plain namespace holds the copy `import` made of another
/// benchmark's database of the same `db_id` — one whose file is still
/// there — so that neither replaces the other's.
pub(super) fn collision_suffix(
    opts: &ImportOptions,
    prefix: &str,
    db_id: &str,
    path: &Path,
) -> Option<String> {
    let home = sqlwitness_bench::home_of(path);
    let mut w = sqlwitness_engines::open_migrator(opts.engine, &opts.url).ok()?;
    let plain = sqlwitness_core::namespace_for(prefix, db_id);
    let Ok(Ownership::Ours(stamp)) = w.ownership(&plain) else {
        return None;
    };
    let other = stamp.home.as_deref()?;
    (other != home && Path::new(other).is_file()).then(|| sqlwitness_bench::namespace_suffix(&home))
}

/// Decides, before anything is loaded, whether `opts`' databases need the
/// dump of `identity` loaded (removing what an earlier import of another
/// version of it wrote).
pub(super) fn check(opts: &ImportOptions, identity: &DumpIdentity) -> Result<Fresh, BenchError> {
    if opts.copy_only {
        return Ok(Fresh::New);
    }
    let mut same = Vec::new();
    let mut ours = Vec::new();
    let mut all_same = true;
    // The dump's server, opened once when a copy there is to be checked.
    let mut server = None;
    for d in &opts.databases {
        let path = sqlite_path(opts, &d.db_id);
        if !path.exists() {
            all_same = false;
            continue;
        }
        let Some(model) = sqlwitness_bench::read_model(&path)? else {
            // Not written by `import`: the import refuses to replace it.
            all_same = false;
            continue;
        };
        let Some(dump) = &model.dump else {
            all_same = false;
            continue;
        };
        ours.push((d.db_id.clone(), path.clone()));
        let same_source = model.import_method == sqlwitness_bench::IMPORT_METHOD
            && dump.same_bytes(identity)
            && dump.includes_unchanged()
            && model.engine == opts.engine.to_string()
            && model.chosen_tables == d.tables
            // None named: the same bytes choose the same database again.
            && (opts.dump_database.is_none() || model.dump_database == opts.dump_database);
        // The copy is checked only where the files are current.
        let current = same_source
            && match &opts.source_copy_prefix {
                Some(prefix) => {
                    source_copy_current(opened(&mut server, opts), prefix, &d.db_id, &path)
                }
                None => true,
            };
        if current {
            same.push(d.db_id.clone());
        } else {
            all_same = false;
        }
    }
    if all_same && !same.is_empty() {
        let server_version = opened(&mut server, opts)
            .and_then(|w| w.server_version().ok())
            .unwrap_or_default();
        return Ok(Fresh::UpToDate(Box::new(ImportReport {
            dump: Some(identity.path.clone()),
            up_to_date: same,
            ..ImportReport::new(opts.engine, server_version)
        })));
    }
    if ours.is_empty() {
        return Ok(Fresh::New);
    }
    let paths: Vec<PathBuf> = ours.iter().map(|(_, p)| p.clone()).collect();
    let aside = SetAside::new(&paths)?;
    Ok(Fresh::Replace(
        ours.into_iter().map(|(id, _)| id).collect(),
        aside,
    ))
}

/// What of database `d` the import could not carry, each with why (empty:
/// the database is whole).
fn incomplete(d: &DatabaseImport) -> Vec<String> {
    let mut out = Vec::new();
    if d.tables.is_empty() {
        out.push("no table was written".to_string());
    }
    for t in &d.tables {
        match &t.refused {
            Some(why) => out.push(format!("table {}: not written: {why}", t.table)),
            None if !t.verified => out.push(format!(
                "table {}: the rows read back from the file are not the rows written",
                t.table
            )),
            None => {}
        }
    }
    if !d.missing_tables.is_empty() {
        out.push(format!(
            "tables the mapping names that the source does not hold: {}",
            d.missing_tables.join(", ")
        ));
    }
    if let Some(copy) = &d.source_copy {
        if let Some(e) = &copy.error {
            out.push(format!("the copy on the source's engine: {e}"));
        }
    }
    out
}

/// What an import found it could not carry into the database whose SQLite
/// file is `path`, as its source model records it: `None` when the
/// database is whole, was not written by `import`, or its model cannot be
/// read.
pub fn imported_incomplete(path: &Path) -> Option<Vec<String>> {
    let model = sqlwitness_bench::read_model(path).ok()??;
    (!model.incomplete.is_empty()).then_some(model.incomplete)
}

/// Writes the source model of database `d` of `report` beside its SQLite
/// file: each written table's columns with the type the source declares
/// (from its copy on the source's engine where one was made, which names
/// the character set and collation), and how the file holds a degraded
/// one.
pub(super) fn write_model(
    report: &ImportReport,
    d: &DatabaseImport,
    dump: Option<&DumpIdentity>,
    chosen_tables: Option<Vec<String>>,
    dump_database: Option<&str>,
) -> Result<(), BenchError> {
    if !d.path.is_file() {
        return Ok(());
    }
    let copied = |table: &str, column: &str| -> Option<&sqlwitness_core::CopiedColumn> {
        let copy = d.source_copy.as_ref()?;
        let t = copy.tables.iter().find(|t| t.name == table)?;
        t.columns.iter().find(|c| c.name == column)
    };
    let tables = d
        .tables
        .iter()
        .filter(|t| t.refused.is_none())
        .map(|t| ModelTable {
            name: t.table.clone(),
            columns: t
                .columns
                .iter()
                .map(|c| {
                    let copy = copied(&t.table, &c.column);
                    ModelColumn {
                        name: c.column.clone(),
                        source_type: copy
                            .map_or_else(|| c.source_type.clone(), |k| k.sql_type.clone()),
                        degraded: c.degraded.clone(),
                        labels: copy.map(|k| k.labels.clone()).unwrap_or_default(),
                    }
                })
                .collect(),
        })
        .collect();
    let model = SourceModel {
        format: sqlwitness_bench::SOURCE_MODEL_FORMAT,
        db_id: d.db_id.clone(),
        engine: report.engine.clone(),
        server_version: report.server_version.clone(),
        dump: dump.cloned(),
        namespace_suffix: d.namespace_suffix.clone(),
        chosen_tables,
        dump_database: dump_database.map(str::to_string),
        incomplete: incomplete(d),
        import_method: sqlwitness_bench::IMPORT_METHOD,
        tables,
    };
    sqlwitness_bench::write_model(&d.path, &model)?;
    Ok(())
}

/// The source model of the database whose SQLite file is `sqlite`, when it
/// was imported from a dump that has changed since: its copies no longer
/// hold what the dump holds. A dump that is gone (removed once imported)
/// changed nothing: the files stand for it.
pub fn stale_dump(sqlite: &Path) -> Result<Option<SourceModel>, BenchError> {
    let Some(model) = sqlwitness_bench::read_model(sqlite)? else {
        return Ok(None);
    };
    let changed = match &model.dump {
        Some(d) if d.path.is_file() => !d.unchanged().unwrap_or(false),
        _ => false,
    };
    Ok(changed.then_some(model))
}

/// Imports again the database whose SQLite file is `sqlite` from the dump
/// its model names (which has changed), on the dump's engine at `url`,
/// with its copy on that engine under `prefix`: the files and that copy
/// are replaced.
pub fn import_again(
    model: &SourceModel,
    sqlite: &Path,
    url: &str,
    prefix: &str,
    statement_limit: std::time::Duration,
) -> Result<ImportReport, BenchError> {
    let engine = model.engine().ok_or_else(|| BenchError::Format {
        path: sqlwitness_bench::model_path(sqlite),
        place: "engine".into(),
        message: format!("`{}` is not an engine", model.engine),
    })?;
    let dump = model.dump.as_ref().ok_or_else(|| BenchError::Format {
        path: sqlwitness_bench::model_path(sqlite),
        place: "dump".into(),
        message: "names no dump".into(),
    })?;
    // `<out>/<db_id>/<db_id>.sqlite`
    let out = sqlite
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    super::import_dump(&ImportOptions {
        engine,
        url: url.to_string(),
        source: super::ImportSource::Dump(dump.path.clone()),
        out,
        databases: vec![super::DumpDatabase {
            db_id: model.db_id.clone(),
            tables: model.chosen_tables.clone(),
        }],
        statement_limit,
        source_copy_prefix: Some(prefix.to_string()),
        copy_only: false,
        dump_database: model.dump_database.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model_beside(sqlite: &Path, dump: &Path) {
        std::fs::write(sqlite, b"").unwrap();
        let model = SourceModel {
            format: sqlwitness_bench::SOURCE_MODEL_FORMAT,
            db_id: "shop".into(),
            engine: "postgres".into(),
            server_version: String::new(),
            dump: Some(DumpIdentity::of(dump).unwrap()),
            namespace_suffix: None,
            chosen_tables: None,
            dump_database: None,
            incomplete: Vec::new(),
            import_method: sqlwitness_bench::IMPORT_METHOD,
            tables: Vec::new(),
        };
        sqlwitness_bench::write_model(sqlite, &model).unwrap();
    }

    #[test]
    fn an_edited_dump_is_stale_a_moved_run_or_a_removed_dump_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let dump = dir.path().join("shop.sql");
        std::fs::write(&dump, "CREATE TABLE t (x int);\n").unwrap();
        let sqlite = dir.path().join("shop.sqlite");
        model_beside(&sqlite, &dump);
        // Recorded absolute: read from anywhere.
        let model = sqlwitness_bench::read_model(&sqlite).unwrap().unwrap();
        assert!(model.dump.as_ref().unwrap().path.is_absolute());
        assert!(stale_dump(&sqlite).unwrap().is_none());
        // The same size, other bytes.
        std::fs::write(&dump, "CREATE TABLE u (x int);\n").unwrap();
        assert!(stale_dump(&sqlite).unwrap().is_some());
        std::fs::remove_file(&dump).unwrap();
        assert!(stale_dump(&sqlite).unwrap().is_none());
    }

    #[test]
    fn files_set_aside_come_back_when_the_new_import_fails() {
        let dir = tempfile::tempdir().unwrap();
        let sqlite = dir.path().join("shop.sqlite");
        let dump = dir.path().join("shop.sql");
        std::fs::write(&dump, "x").unwrap();
        model_beside(&sqlite, &dump);
        std::fs::write(&sqlite, b"old").unwrap();
        let aside = SetAside::new(std::slice::from_ref(&sqlite)).unwrap();
        assert!(!sqlite.exists());
        std::fs::write(&sqlite, b"half-written").unwrap();
        aside.restore();
        assert_eq!(std::fs::read(&sqlite).unwrap(), b"old");
        assert!(sqlwitness_bench::model_path(&sqlite).exists());
        let aside = SetAside::new(std::slice::from_ref(&sqlite)).unwrap();
        std::fs::write(&sqlite, b"new").unwrap();
        aside.discard();
        assert_eq!(std::fs::read(&sqlite).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }
}
