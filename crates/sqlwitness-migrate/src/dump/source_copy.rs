//! The copy of a dump's database on the dump's own engine, with the dump's
//! own column types: the reference answer of a benchmark shipped as a
//! PostgreSQL or MySQL dump must come from `numeric(10,2)`, `varchar(20)`,
//! `integer`, `date` and its enums as the dump declares them, not from the
//! types migration picks for the SQLite file written from it.
//!
//! While the dump is loaded, each database's tables are copied on the same
//! server into the namespace its migrated copy takes (`sw_<db_id>`): the
//! columns with their own types, the rows streamed server to server, the
//! primary, unique and foreign keys, each table's rows checked on both
//! sides (count and an order-independent checksum of the server's text of
//! every row). The namespace carries sqlwitness's stamp like every copy,
//! with the fingerprint of the SQLite file written from the same tables and
//! a plan that says it is the dump's own ([`SOURCE_COPY_PLAN`]): `migrate`
//! and `eval` take it as up to date while that file is unchanged, and never
//! replace it with a copy migrated from the SQLite file.

use std::path::Path;

use serde::Serialize;
use sqlwitness_core::{
    CopiedTable, Database, DbError, EngineKind, Migrator, Ownership, ServerSource, SourceTable,
    Stamp, StampState,
};

use super::views::SourceViews;
use crate::migrate::{
    source_fingerprint, Coercions, ColumnDecision, ForeignKeyReport, KeyReport, MigrationReport,
    MigrationStatus, TableReport, Verification,
};

/// The start of the stamp's plan of a copy made from a dump on its own
/// engine (see [`is_source_copy`]).
pub const SOURCE_COPY_PLAN: &str = "dump source copy 1";

/// How a source copy's tables are checked (the report's
/// `checksum_method`).
pub const SOURCE_COPY_CHECKSUM: &str = "per table, on the server: the row count, and the sum of \
each row's hash cut to 60 bits (PostgreSQL: MD5 of ROW(...)::text; MySQL, MariaDB: SHA-256 of \
each column's bytes in hex, N for NULL), in the loaded dump and in the copy";

/// Whether a copy's stamp says it was made from a dump on its own engine.
pub fn is_source_copy(stamp: &Stamp) -> bool {
    stamp.plan.starts_with(SOURCE_COPY_PLAN)
}

/// The copy of one database on the dump's own engine.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceCopy {
    pub engine: String,
    /// The schema (PostgreSQL) or database (MySQL, MariaDB) that holds it.
    pub namespace: String,
    /// Every table copied with its own types and verified: the copy that
    /// `migrate` and `eval` use on this engine.
    pub faithful: bool,
    pub tables: Vec<CopiedTable>,
    /// Foreign keys the server refused, or tables not copied, with why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The source's views created in the copy and checked on their rows,
    /// or why not.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub views: Vec<crate::migrate::ViewReport>,
    /// Why no copy was made (the namespace is someone else's, the server
    /// refused …): the engine's copy is then migrated from the SQLite file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The migration report kept in the copy's stamp (what `eval` and
/// `migrate` report for an up-to-date copy).
fn migration_report(
    db: &Database,
    engine: EngineKind,
    server_version: &str,
    tables: &[(SourceTable, CopiedTable)],
    fk_applied: &[Vec<Result<(), DbError>>],
) -> MigrationReport {
    let tables = tables
        .iter()
        .zip(fk_applied)
        .map(|((s, c), fks)| TableReport {
            name: c.name.clone(),
            rows_source: c.rows_source,
            rows_target: Some(c.rows_target),
            checksum_source: c.checksum_source.clone(),
            checksum_target: Some(c.checksum_target.clone()),
            verified: c.verified(),
            error: None,
            columns: c
                .columns
                .iter()
                .map(|col| ColumnDecision {
                    name: col.name.clone(),
                    declared_type: col.sql_type.clone(),
                    storage: Default::default(),
                    kind: target_kind(engine, &col.sql_type),
                    target_type: col.sql_type.clone(),
                    not_null: col.not_null,
                    reason: "the dump's own type, copied on its own engine".into(),
                })
                .collect(),
            coercions: Coercions::default(),
            primary_key: KeyReport {
                columns: s
                    .primary_key
                    .iter()
                    .map(|&i| s.columns[i].name.clone())
                    .collect(),
                applied: c.primary_key,
                reason: "the dump's own".into(),
            },
            // Copied with the table; a key the server refused is among
            // the table's notes.
            unique_keys: Vec::new(),
            foreign_keys: s
                .foreign_keys
                .iter()
                .zip(fks)
                .map(|(k, r)| ForeignKeyReport {
                    columns: k.columns.clone(),
                    parent_table: k.parent_table.clone(),
                    parent_columns: k.parent_columns.iter().flatten().cloned().collect(),
                    applied: r.is_ok(),
                    orphan_rows: 0,
                    reason: match r {
                        Ok(()) => "the dump's own".into(),
                        Err(e) => format!("the server refused it: {}", e.message),
                    },
                })
                .collect(),
            load_ms: None,
            key_ms: None,
            foreign_keys_ms: None,
        })
        .collect();
    MigrationReport {
        db_id: db.db_id.clone(),
        engine,
        namespace: db.namespace.clone(),
        server_version: server_version.to_string(),
        collation: None,
        status: MigrationStatus::Migrated,
        tables,
        notes: vec![
            "copied by `sqlwitness import` from the loaded dump on its own engine, with the \
             dump's own column types and keys (not migrated from the SQLite file)"
                .into(),
        ],
        checksum_method: SOURCE_COPY_CHECKSUM.into(),
        verification: Verification::Load,
        duration_ms: 0,
        steps_ms: Default::default(),
        views: Vec::new(),
        column_types: None,
    }
}

/// The storage kind of a server type of `engine`, for the report.
fn target_kind(engine: EngineKind, sql_type: &str) -> sqlwitness_core::TargetKind {
    use crate::dump::Storage;
    use sqlwitness_core::TargetKind;
    let t = sql_type.to_ascii_lowercase();
    if t.starts_with("date") && !t.starts_with("datetime") {
        return TargetKind::Date;
    }
    if t.starts_with("timestamp") || t.starts_with("datetime") {
        return TargetKind::Timestamp;
    }
    match crate::dump::map_type(sqlwitness_dialect::shipped(engine), sql_type).map(|m| m.storage) {
        Ok(Storage::Integer) => TargetKind::Integer,
        Ok(Storage::Real) => TargetKind::Real,
        Ok(Storage::Decimal) => TargetKind::Numeric,
        Ok(Storage::Blob) => TargetKind::Blob,
        _ => TargetKind::Text,
    }
}

/// Copies `tables` of the loaded dump `ns` into `db.namespace` on the same
/// server (`engine` at `url`), stamped with the fingerprint of the SQLite
/// file `db.sqlite_path` written from them — or, with `check`, written
/// before from another dump of the same database: each table's rows must
/// then number as many as the file's table of that name. A namespace
/// sqlwitness did not create is left untouched (the copy is then not made);
/// one it made before is replaced.
pub(crate) fn write(
    ns: &mut dyn ServerSource,
    engine: EngineKind,
    url: &str,
    (db, check): (&Database, Option<&Path>),
    (tables, views): (&[SourceTable], &SourceViews),
    server_version: &str,
) -> SourceCopy {
    let mut copy = SourceCopy {
        engine: engine.to_string(),
        namespace: db.namespace.clone(),
        faithful: false,
        tables: Vec::new(),
        notes: Vec::new(),
        views: Vec::new(),
        error: None,
    };
    let dialect = sqlwitness_dialect::shipped(engine);
    if let Some(why) = dialect.namespaces.refuses(&db.namespace) {
        copy.error = Some(format!("the namespace is refused: {why}"));
        return copy;
    }
    let fingerprint = match source_fingerprint(&db.sqlite_path, crate::cache_dir(None).as_deref()) {
        Ok(f) => f,
        Err(e) => {
            copy.error = Some(e.to_string());
            return copy;
        }
    };
    let mut w = match sqlwitness_engines::open_migrator(engine, url) {
        Ok(w) => w,
        Err(e) => {
            copy.error = Some(e.message);
            return copy;
        }
    };
    if let Some(home) = w.home() {
        if home.eq_ignore_ascii_case(&db.namespace) {
            copy.error = Some(format!(
                "the namespace is refused: `{home}` is the administrative URL's own database"
            ));
            return copy;
        }
    }
    if let Err(e) = w.lock(&db.namespace) {
        copy.error = Some(e.message);
        return copy;
    }
    let mut stamp = Stamp::new(
        &db.db_id,
        &fingerprint,
        &format!("{SOURCE_COPY_PLAN}; {engine}"),
    );
    stamp.home = Some(sqlwitness_bench::home_of(&db.sqlite_path));
    let result = locked(
        ns,
        &mut *w,
        &mut copy,
        (db, check),
        (tables, views),
        stamp,
        server_version,
        engine,
    );
    if let Err(e) = result {
        copy.error = Some(e.message);
        copy.faithful = false;
        // An unfinished copy of ours is not left behind.
        if matches!(w.ownership(&db.namespace), Ok(Ownership::Ours(s)) if s.state == StampState::Loading)
        {
            let _ = w.drop_namespace(&db.namespace);
        }
    }
    w.unlock(&db.namespace);
    copy
}

#[allow(clippy::too_many_arguments)]
fn locked(
    ns: &mut dyn ServerSource,
    w: &mut dyn Migrator,
    copy: &mut SourceCopy,
    (db, check): (&Database, Option<&Path>),
    (tables, views): (&[SourceTable], &SourceViews),
    stamp: Stamp,
    server_version: &str,
    engine: EngineKind,
) -> Result<(), DbError> {
    let target = db.namespace.as_str();
    let file = check
        .map(|path| open_file_checked(path, tables))
        .transpose()?;
    match w.ownership(target)? {
        Ownership::Foreign { reason } => {
            return Err(DbError::refused(format!(
                "{reason}; it was left untouched, and no copy with the dump's own types was made"
            )))
        }
        Ownership::Ours(_) => {
            // A copy made before is replaced only by one of the same
            // database: the loaded dump's rows are counted against the
            // file's before anything is dropped.
            if let Some(file) = &file {
                for t in tables {
                    let rows = ns.scan(t, &mut |_, _| Ok(()))?;
                    same_rows(file, &t.name, rows)?;
                }
            }
            copy.notes.push(
                "the namespace held a copy made by sqlwitness: dropped and copied again".into(),
            );
            w.drop_namespace(target)?;
        }
        Ownership::Absent => {}
    }
    w.create_namespace(target, &stamp)?;
    let copied = copy_tables(ns, target, tables, file.as_ref(), copy)?;
    let fk_applied = copy_foreign_keys(ns, target, &copied, copy);
    let names: Vec<&str> = copied.iter().map(|(t, _)| t.name.as_str()).collect();
    w.analyze(target, &names)?;
    copy.notes.extend(w.prepare_reader()?);
    copy.notes.extend(w.grant_reader(target)?);
    copy.views = views.carry_to_copy(w, target, sqlwitness_dialect::shipped(engine));
    for v in &copy.views {
        if let Some(why) = &v.note {
            copy.notes
                .push(format!("view `{}` is not in the copy: {why}", v.view));
        }
    }
    if copied.iter().all(|(_, c)| c.verified()) {
        let mut report = migration_report(db, engine, server_version, &copied, &fk_applied);
        report.views = copy.views.clone();
        let mut done = stamp;
        done.state = StampState::Complete;
        done.report = serde_json::to_value(&report).ok();
        w.write_stamp(target, &done)?;
        copy.faithful = true;
        Ok(())
    } else {
        Err(DbError::new(
            sqlwitness_core::ErrorClass::Other,
            None,
            "a table's rows differ between the dump and the copy",
        ))
    }
}

/// Opens the SQLite file written from the same tables (`copy_only`),
/// read-only, refusing it when one of `tables` is not in it.
fn open_file_checked(path: &Path, tables: &[SourceTable]) -> Result<rusqlite::Connection, DbError> {
    let file = rusqlite::Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| DbError::connection(format!("{}: {e}", path.display())))?;
    // Every table must be the file's too before anything is replaced.
    for t in tables {
        let found: Result<i64, _> = file.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1 COLLATE NOCASE",
            [&t.name],
            |r| r.get(0),
        );
        if !found.is_ok_and(|n| n > 0) {
            return Err(DbError::refused(format!(
                "table {}: not in the SQLite file: not the same database",
                t.name
            )));
        }
    }
    Ok(file)
}

/// Copies every table on the server into `target`, each checked on both
/// sides (and, with `file`, against the file's row count); a table whose
/// rows differ is noted in `copy`.
fn copy_tables(
    ns: &mut dyn ServerSource,
    target: &str,
    tables: &[SourceTable],
    file: Option<&rusqlite::Connection>,
    copy: &mut SourceCopy,
) -> Result<Vec<(SourceTable, CopiedTable)>, DbError> {
    let mut copied = Vec::new();
    for t in tables {
        let c = ns.copy_table(target, t).map_err(|e| {
            DbError::new(e.class, e.code, format!("table {}: {}", t.name, e.message))
        })?;
        if let Some(file) = file {
            same_rows(file, &t.name, c.rows_source)?;
        }
        if !c.verified() {
            copy.notes.push(format!(
                "table {}: {} rows in the dump, {} in the copy, or their checksums differ",
                t.name, c.rows_source, c.rows_target
            ));
        }
        copy.tables.push(c.clone());
        copied.push((t.clone(), c));
    }
    Ok(copied)
}

/// Adds each copied table's foreign keys in `target`: the outcome of each,
/// a key the server refused noted in `copy`.
fn copy_foreign_keys(
    ns: &mut dyn ServerSource,
    target: &str,
    copied: &[(SourceTable, CopiedTable)],
    copy: &mut SourceCopy,
) -> Vec<Vec<Result<(), DbError>>> {
    let mut fk_applied = Vec::new();
    for (t, _) in copied {
        let outcomes = ns.copy_foreign_keys(target, t);
        for (fk, r) in t.foreign_keys.iter().zip(&outcomes) {
            if let Err(e) = r {
                copy.notes.push(format!(
                    "table {}: foreign key ({}) → {} not added: {}",
                    t.name,
                    fk.columns.join(", "),
                    fk.parent_table,
                    e.message
                ));
            }
        }
        fk_applied.push(outcomes);
    }
    fk_applied
}

/// Whether table `name` of the SQLite `file` holds `rows` rows, as the
/// dump's table of that name does: else the dump is not of the file's
/// database.
fn same_rows(file: &rusqlite::Connection, name: &str, rows: u64) -> Result<(), DbError> {
    let sql = format!("SELECT count(*) FROM \"{}\"", name.replace('"', "\"\""));
    match file.query_row(&sql, [], |r| r.get::<_, i64>(0)) {
        Ok(n) if n as u64 == rows => Ok(()),
        Ok(n) => Err(DbError::refused(format!(
            "table {name}: {rows} rows in the dump, {n} in the SQLite file: not the same database"
        ))),
        Err(e) => Err(DbError::refused(format!(
            "table {name}: not in the SQLite file ({e}): not the same database"
        ))),
    }
}
