//! Writing a loaded dump's tables into a SQLite database file, streaming,
//! with the type map from server types to SQLite (every column carried with
//! a stated rendering or refused by name) and a verification of what was
//! written: the rows read back from the file hash to the rows written.
//!
//! The type map is data: `dump_types` in the source engine's dialect file
//! (dialects/postgres.yaml, dialects/mysql.yaml, which mariadb.yaml
//! extends); docs/dumps.md has the table with the reasons. [`map_type`]
//! reads it, and keeps in code only what reads the shape of a declared type.

use std::path::Path;

use rusqlite::types::Value as Sql;
use serde::Serialize;
use sqlwitness_core::{DbError, Source, SourceTable, Value};
use sqlwitness_dialect::{Dialect, DumpTypeDecision, SqliteDeclared};

/// How a column's values are stored in SQLite (the dialect files'
/// `dump_types` name it).
pub use sqlwitness_dialect::SqliteStorage as Storage;

/// The decision for one column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ColumnMapping {
    pub column: String,
    pub source_type: String,
    pub sqlite_type: String,
    pub storage: Storage,
    /// What the rendering loses or changes, when anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// How the column is degraded, when SQLite has no form that keeps its
    /// type (geometry as WKT, an array as JSON): the column is carried so,
    /// and named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub degraded: Option<String>,
}

/// One table written (or refused).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TableExport {
    pub table: String,
    pub columns: Vec<ColumnMapping>,
    pub rows: u64,
    /// Values stored in another form than the column's (a decimal kept as
    /// TEXT, an unsigned integer past SQLite's range), counted.
    pub coerced: u64,
    /// Why the table was not written (a name SQLite cannot tell from
    /// another's). A column type is never a reason: see `left_out`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// Columns with no SQLite form at all, left out of the table (which
    /// keeps its other columns), each `name (type): why`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
    /// The rows read back from the file hash to the rows written.
    pub verified: bool,
    /// The source's unique keys besides the primary key: each is a unique
    /// index of the file, or is named here with why not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keys_not_kept: Vec<String>,
}

/// SQLite's type affinity of a declared type (its documented rules).
fn affinity(declared: &str) -> Storage {
    let t = declared.to_ascii_uppercase();
    if t.contains("INT") {
        Storage::Integer
    } else if t.contains("CHAR") || t.contains("CLOB") || t.contains("TEXT") {
        Storage::Text
    } else if t.contains("BLOB") || t.is_empty() {
        Storage::Blob
    } else if t.contains("REAL") || t.contains("FLOA") || t.contains("DOUB") {
        Storage::Real
    } else {
        Storage::Decimal
    }
}

/// Why a source column type has no SQLite form at all (the column is left
/// out of its table, by name).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TypeRefused(pub String);

/// The SQLite column a source column of one type becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqliteColumn {
    /// The declared type in SQLite (empty: none).
    pub sqlite_type: String,
    pub storage: Storage,
    /// What the rendering changes.
    pub note: Option<String>,
    /// How the type is degraded, when SQLite has no form that keeps it.
    pub degraded: Option<String>,
}

impl SqliteColumn {
    fn new(sqlite_type: String, storage: Storage, note: Option<String>) -> SqliteColumn {
        SqliteColumn {
            sqlite_type,
            storage,
            note,
            degraded: None,
        }
    }
}

/// The SQLite column for a source column of declared type `declared` on
/// the engine of `dialect`, or why it has none. The decision is the
/// dialect's `dump_types` (dialects/*.yaml); what stays here reads the shape
/// of the declared type, not its name: its base name (lower case, without
/// its parenthesised list and a trailing `unsigned`), its precision and
/// `unsigned` (which pick a rule's `wide` and `unsigned` carries), and the
/// degraded forms of arrays (`[]` suffix, `_` prefix: their JSON, as the
/// source reads them) and ranges (a base name ending in `range`: their
/// text), which no list of names could hold.
pub fn map_type(dialect: &Dialect, declared: &str) -> Result<SqliteColumn, TypeRefused> {
    let t = declared.trim().to_ascii_lowercase();
    let base = t.split('(').next().unwrap_or("").trim().to_string();
    let base = base
        .strip_suffix(" unsigned")
        .unwrap_or(&base)
        .trim()
        .to_string();
    // A declared type as SQLite reads one: words, then at most one
    // parenthesised list at the end (`bigint(20) unsigned` → `bigint
    // unsigned`).
    let sqlite_decl = match (declared.find('('), declared.rfind(')')) {
        (Some(open), Some(close)) if !declared[close + 1..].trim().is_empty() => format!(
            "{} {}",
            declared[..open].trim(),
            declared[close + 1..].trim()
        ),
        _ => declared.trim().to_string(),
    };
    let Some(map) = &dialect.dump_types else {
        return Err(TypeRefused(format!(
            "{} dumps are not imported",
            dialect.name
        )));
    };
    if t.ends_with("[]") || t.starts_with('_') {
        return Ok(SqliteColumn {
            degraded: Some(
                "as JSON (`[1,2]`, by array_to_json; an array of a type the dump defines as its \
                 text, `{a,b}`); array operators and subscripts are not kept"
                    .into(),
            ),
            ..SqliteColumn::new("TEXT".into(), Storage::Text, None)
        });
    }
    if base.ends_with("range") {
        return Ok(SqliteColumn {
            degraded: Some(format!(
                "as the server's text rendering (`[1,5)`); {base} operators are not kept"
            )),
            ..SqliteColumn::new("TEXT".into(), Storage::Text, None)
        });
    }
    let declared_as = |d: &SqliteDeclared| -> String {
        match d {
            SqliteDeclared::AsDeclared => sqlite_decl.clone(),
            SqliteDeclared::Untyped => String::new(),
            SqliteDeclared::Named(n) => n.clone(),
        }
    };
    let rule = match map.decide(&base) {
        DumpTypeDecision::Refuse(why) => return Err(TypeRefused(format!("{base} {why}"))),
        DumpTypeDecision::Default(c) => {
            return Ok(SqliteColumn::new(
                declared_as(&c.sqlite),
                c.storage,
                c.note.clone(),
            ))
        }
        DumpTypeDecision::Carry(rule) => rule,
    };
    if let Some(u) = rule.unsigned.as_ref().filter(|_| t.contains("unsigned")) {
        return Ok(SqliteColumn::new(
            declared_as(&u.sqlite),
            u.storage,
            u.note.clone(),
        ));
    }
    if let Some(w) = &rule.wide {
        let precision: Option<u32> = t
            .split_once('(')
            .and_then(|(_, r)| r.split([',', ')']).next())
            .and_then(|p| p.trim().parse().ok());
        if precision.is_none_or(|p| p > w.above) {
            return Ok(SqliteColumn::new(
                declared_as(&w.sqlite),
                w.storage,
                w.note.clone(),
            ));
        }
    }
    // Validated when the dialect is loaded: a carrying rule has both.
    let (Some(sqlite), Some(storage)) = (&rule.sqlite, rule.storage) else {
        return Err(TypeRefused(format!(
            "{base}: its dump_types rule carries nothing"
        )));
    };
    // `fallback` comes with `as_declared` only (validated on loading).
    let sqlite_type = match &rule.fallback {
        Some(fallback) if affinity(declared) != storage => fallback.clone(),
        _ => declared_as(sqlite),
    };
    Ok(SqliteColumn {
        degraded: rule.degraded.clone(),
        ..SqliteColumn::new(sqlite_type, storage, rule.note.clone())
    })
}

/// Whether the decimal text `d` is exactly the double `f` (so storing `f`
/// loses nothing).
fn exact_double(d: &str) -> Option<f64> {
    let f: f64 = d.trim().parse().ok()?;
    if !f.is_finite() {
        return None;
    }
    let norm = |s: &str| -> String {
        let s = s.trim().trim_start_matches('+');
        let (neg, s) = match s.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, s),
        };
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        let int = int.trim_start_matches('0');
        let frac = frac.trim_end_matches('0');
        let body = format!("{}.{}", if int.is_empty() { "0" } else { int }, frac);
        if neg && body != "0." {
            format!("-{body}")
        } else {
            body
        }
    };
    // `{}` prints the shortest text that reads back as the same double; a
    // decimal that is that text (up to zeros) is the double exactly enough
    // to be read back unchanged.
    let shortest = format!("{f}");
    (norm(&shortest) == norm(d)).then_some(f)
}

/// The SQLite value for `v` in a column stored as `storage`, and whether
/// it had to be stored in another form.
fn to_sqlite(storage: Storage, v: &Value) -> (Sql, bool) {
    match (storage, v) {
        (_, Value::Null) => (Sql::Null, false),
        (Storage::Integer, Value::Int(i)) => (Sql::Integer(*i), false),
        (Storage::Integer, Value::Bool(b)) => (Sql::Integer(i64::from(*b)), false),
        (Storage::Integer | Storage::Decimal | Storage::Real, Value::Decimal(d)) => {
            match exact_double(d) {
                Some(f) if storage != Storage::Integer => (Sql::Real(f), false),
                _ => (Sql::Text(d.clone()), true),
            }
        }
        (Storage::Real | Storage::Decimal, Value::Float(f)) => (Sql::Real(*f), false),
        (Storage::Real, Value::Int(i)) => (Sql::Real(*i as f64), false),
        (Storage::Decimal, Value::Int(i)) => (Sql::Integer(*i), false),
        (Storage::Blob, Value::Bytes(b)) => (Sql::Blob(b.clone()), false),
        (Storage::Blob, Value::Text(s)) => (Sql::Blob(s.as_bytes().to_vec()), false),
        (Storage::Text, Value::Bool(b)) => {
            (Sql::Text(if *b { "true" } else { "false" }.into()), false)
        }
        (Storage::Text, Value::Int(i)) => (Sql::Text(i.to_string()), false),
        (Storage::Text, Value::Float(f)) => (Sql::Text(format!("{f}")), false),
        (
            Storage::Text,
            Value::Text(s)
            | Value::Decimal(s)
            | Value::Date(s)
            | Value::Time(s)
            | Value::Timestamp(s),
        ) => (Sql::Text(s.clone()), false),
        (_, Value::Bytes(b)) => (Sql::Blob(b.clone()), true),
        (_, other) => (Sql::Text(text_of(other)), true),
    }
}

fn text_of(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => format!("{f}"),
        Value::Bool(b) => if *b { "1" } else { "0" }.to_string(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Decimal(s)
        | Value::Text(s)
        | Value::Date(s)
        | Value::Time(s)
        | Value::Timestamp(s) => s.clone(),
    }
}

fn hash_value(h: &mut xxhash_rust::xxh3::Xxh3, v: &Sql) {
    match v {
        Sql::Null => h.update(&[0]),
        Sql::Integer(i) => {
            h.update(&[1]);
            h.update(&i.to_le_bytes());
        }
        Sql::Real(f) => {
            h.update(&[2]);
            h.update(&f.to_bits().to_le_bytes());
        }
        Sql::Text(s) => {
            h.update(&[3]);
            h.update(&(s.len() as u64).to_le_bytes());
            h.update(s.as_bytes());
        }
        Sql::Blob(b) => {
            h.update(&[4]);
            h.update(&(b.len() as u64).to_le_bytes());
            h.update(b);
        }
    }
}

fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn sqlite_err(path: &Path, e: rusqlite::Error) -> DbError {
    DbError::new(
        sqlwitness_core::ErrorClass::Other,
        None,
        format!("{}: {e}", path.display()),
    )
}

/// Writes `tables` of `src` into a new SQLite file at `out` (which must not
/// exist), with the type map of the source engine's `dialect`; one
/// [`TableExport`] per table. Foreign keys are declared where their parent
/// is written too; unique keys become unique indexes.
pub fn export_sqlite(
    src: &mut dyn Source,
    dialect: &Dialect,
    tables: &[SourceTable],
    out: &Path,
) -> Result<Vec<TableExport>, DbError> {
    let mut db = new_file(out)?;
    let mut results = Vec::new();
    let mut written: Vec<String> = Vec::new();
    let mut loaded = Vec::new();
    for t in tables {
        let (mut report, kept) = plan_table(dialect, t, &written);
        if report.refused.is_some() {
            results.push(report);
            continue;
        }
        db.execute_batch(&create_table(t, &report.columns, &kept, tables))
            .map_err(|e| sqlite_err(out, e))?;
        let (rows, coerced, written_sum) =
            write_rows(&mut db, out, src, t, &report.columns, &kept)?;
        let (read_rows, read_sum) = read_back(&db, out, &t.name, kept.len())?;
        report.rows = rows;
        report.coerced = coerced;
        report.verified = read_rows == rows && read_sum == written_sum;
        written.push(t.name.clone());
        loaded.push((results.len(), t, kept));
        results.push(report);
    }
    // Once every table is in, so that an index's name takes none of theirs.
    for (i, t, kept) in loaded {
        results[i].keys_not_kept = add_unique_indexes(&db, out, t, &kept)?;
    }
    Ok(results)
}

/// A new SQLite file at `out` (refused when one exists), set up for a bulk
/// load: no journal, no sync, foreign keys declared but not enforced while
/// loading (tables come in name order, parents not always first).
fn new_file(out: &Path) -> Result<rusqlite::Connection, DbError> {
    if out.exists() {
        return Err(DbError::refused(format!(
            "{}: exists; a dump is written into a new file only",
            out.display()
        )));
    }
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).map_err(|e| {
            DbError::new(
                sqlwitness_core::ErrorClass::Other,
                None,
                format!("{}: {e}", dir.display()),
            )
        })?;
    }
    let db = rusqlite::Connection::open(out).map_err(|e| sqlite_err(out, e))?;
    db.execute_batch(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA foreign_keys = OFF;",
    )
    .map_err(|e| sqlite_err(out, e))?;
    Ok(db)
}

/// How table `t` is written: each column's SQLite form (the columns with
/// none are left out, with why), or why the table is refused (`written`:
/// the tables written before it); with the indexes into `t.columns` of the
/// columns written.
fn plan_table(dialect: &Dialect, t: &SourceTable, written: &[String]) -> (TableExport, Vec<usize>) {
    let mut columns = Vec::new();
    let mut left_out = Vec::new();
    let mut kept = Vec::new();
    for (i, c) in t.columns.iter().enumerate() {
        match map_type(dialect, &c.declared) {
            Ok(m) => {
                kept.push(i);
                columns.push(ColumnMapping {
                    column: c.name.clone(),
                    source_type: c.declared.clone(),
                    sqlite_type: m.sqlite_type,
                    storage: m.storage,
                    note: m.note,
                    degraded: m.degraded,
                })
            }
            Err(why) => left_out.push(format!("{} ({}): {why}", c.name, c.declared)),
        }
    }
    let refused = if written.iter().any(|w| w.eq_ignore_ascii_case(&t.name)) {
        Some("SQLite does not tell table names apart by case, and a table of this name is already written".into())
    } else if kept.is_empty() {
        Some("no column has a SQLite form".into())
    } else {
        None
    };
    let report = TableExport {
        table: t.name.clone(),
        columns,
        rows: 0,
        coerced: 0,
        refused,
        left_out,
        verified: false,
        keys_not_kept: Vec::new(),
    };
    (report, kept)
}

/// `CREATE TABLE` of `t` with the columns written (`kept`, mapped as
/// `columns`), its primary key when every column of it is written, and
/// each foreign key to a table of `tables` whose columns are all written.
fn create_table(
    t: &SourceTable,
    columns: &[ColumnMapping],
    kept: &[usize],
    tables: &[SourceTable],
) -> String {
    let is_kept = |name: &str| kept.iter().any(|&i| t.columns[i].name == name);
    let mut defs: Vec<String> = columns
        .iter()
        .zip(kept.iter().map(|&i| &t.columns[i]))
        .map(|(m, c)| {
            format!(
                "{} {}{}",
                quote(&m.column),
                m.sqlite_type,
                if c.not_null { " NOT NULL" } else { "" }
            )
        })
        .collect();
    if !t.primary_key.is_empty() && t.primary_key.iter().all(|i| kept.contains(i)) {
        let cols: Vec<String> = t
            .primary_key
            .iter()
            .map(|&i| quote(&t.columns[i].name))
            .collect();
        defs.push(format!("PRIMARY KEY ({})", cols.join(", ")));
    }
    for fk in &t.foreign_keys {
        let exported = tables.iter().any(|p| p.name == fk.parent_table);
        if !exported
            || fk.parent_columns.iter().any(Option::is_none)
            || !fk.columns.iter().all(|c| is_kept(c))
        {
            continue;
        }
        let cols: Vec<String> = fk.columns.iter().map(|c| quote(c)).collect();
        let pcols: Vec<String> = fk
            .parent_columns
            .iter()
            .flatten()
            .map(|c| quote(c))
            .collect();
        defs.push(format!(
            "FOREIGN KEY ({}) REFERENCES {} ({})",
            cols.join(", "),
            quote(&fk.parent_table),
            pcols.join(", ")
        ));
    }
    format!(
        "CREATE TABLE {} (\n  {}\n)",
        quote(&t.name),
        defs.join(",\n  ")
    )
}

/// A unique index on the file for each unique key of `t` besides its
/// primary key (after the rows: values that were distinct in the source
/// and are alike as SQLite stores them make the key fail, not the table);
/// returns the keys not kept, each with why.
fn add_unique_indexes(
    db: &rusqlite::Connection,
    out: &Path,
    t: &SourceTable,
    kept: &[usize],
) -> Result<Vec<String>, DbError> {
    let same = |a: &[usize], b: &[usize]| a.len() == b.len() && a.iter().all(|c| b.contains(c));
    let mut done: Vec<&[usize]> = Vec::new();
    let mut not_kept = Vec::new();
    for u in &t.unique {
        if u.is_empty() || same(u, &t.primary_key) || done.iter().any(|d| same(d, u)) {
            continue;
        }
        done.push(u);
        let names: Vec<&str> = u
            .iter()
            .filter_map(|&i| t.columns.get(i).map(|c| c.name.as_str()))
            .collect();
        let key = names.join(", ");
        if names.len() < u.len() || !u.iter().all(|i| kept.contains(i)) {
            not_kept.push(format!(
                "unique key ({key}): a column of it has no SQLite form"
            ));
            continue;
        }
        let name = free_index_name(db, out, &format!("{}_{}_key", t.name, names.join("_")))?;
        let cols: Vec<String> = names.iter().map(|c| quote(c)).collect();
        let sql = format!(
            "CREATE UNIQUE INDEX {} ON {} ({})",
            quote(&name),
            quote(&t.name),
            cols.join(", ")
        );
        if let Err(e) = db.execute_batch(&sql) {
            not_kept.push(format!("unique key ({key}): SQLite refused it: {e}"));
        }
    }
    Ok(not_kept)
}

/// `want`, or `want` with the first number after it that no table, index,
/// view or trigger of the file is named (SQLite's names are one namespace,
/// case-insensitive).
fn free_index_name(db: &rusqlite::Connection, out: &Path, want: &str) -> Result<String, DbError> {
    let taken = |name: &str| -> Result<bool, DbError> {
        db.query_row(
            "SELECT count(*) FROM sqlite_master WHERE lower(name) = lower(?1)",
            [name],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n > 0)
        .map_err(|e| sqlite_err(out, e))
    };
    let mut name = want.to_string();
    let mut n = 1;
    while taken(&name)? {
        n += 1;
        name = format!("{want}{n}");
    }
    Ok(name)
}

/// Streams `t`'s rows from `src` into its table, one transaction: the rows
/// written, the values coerced to their column's storage, and the
/// order-independent sum of the rows' hashes as SQLite stores them after
/// its column affinity (SQLite returns a table with an integer primary key
/// in key order, not load order).
fn write_rows(
    db: &mut rusqlite::Connection,
    out: &Path,
    src: &mut dyn Source,
    t: &SourceTable,
    columns: &[ColumnMapping],
    kept: &[usize],
) -> Result<(u64, u64, u128), DbError> {
    let storages: Vec<Storage> = columns.iter().map(|c| c.storage).collect();
    let affinities: Vec<Storage> = columns.iter().map(|c| affinity(&c.sqlite_type)).collect();
    let insert = format!(
        "INSERT INTO {} VALUES ({})",
        quote(&t.name),
        vec!["?"; kept.len()].join(", ")
    );
    let mut written_sum = 0u128;
    let mut coerced = 0u64;
    let tx = db.transaction().map_err(|e| sqlite_err(out, e))?;
    let rows = {
        let mut stmt = tx.prepare(&insert).map_err(|e| sqlite_err(out, e))?;
        src.scan(t, &mut |batch, _lossy| {
            for row in batch {
                let vals: Vec<Sql> = kept
                    .iter()
                    .map(|&i| &row[i])
                    .zip(&storages)
                    .map(|(v, &s)| {
                        let (sql, c) = to_sqlite(s, v);
                        coerced += u64::from(c);
                        sql
                    })
                    .collect();
                stmt.execute(rusqlite::params_from_iter(vals.iter()))
                    .map_err(|e| sqlite_err(out, e))?;
                let mut h = xxhash_rust::xxh3::Xxh3::new();
                for (v, &a) in vals.iter().zip(&affinities) {
                    hash_value(&mut h, &stored(v, a));
                }
                written_sum = written_sum.wrapping_add(h.digest128());
            }
            Ok(())
        })?
    };
    tx.commit().map_err(|e| sqlite_err(out, e))?;
    Ok((rows, coerced, written_sum))
}

/// Every row of `table` read back from the file: the count and the
/// order-independent sum of the rows' hashes (of `columns` values each).
fn read_back(
    db: &rusqlite::Connection,
    out: &Path,
    table: &str,
    columns: usize,
) -> Result<(u64, u128), DbError> {
    let mut read_sum = 0u128;
    let mut read_rows = 0u64;
    let mut stmt = db
        .prepare(&format!("SELECT * FROM {}", quote(table)))
        .map_err(|e| sqlite_err(out, e))?;
    let mut q = stmt.query([]).map_err(|e| sqlite_err(out, e))?;
    while let Some(r) = q.next().map_err(|e| sqlite_err(out, e))? {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        for i in 0..columns {
            let v: Sql = r.get(i).map_err(|e| sqlite_err(out, e))?;
            hash_value(&mut h, &v);
        }
        read_sum = read_sum.wrapping_add(h.digest128());
        read_rows += 1;
    }
    Ok((read_rows, read_sum))
}

/// `v` as SQLite stores it in a column of affinity `a` (its numeric
/// conversions: an integral REAL becomes INTEGER under INTEGER and NUMERIC
/// affinity, an INTEGER becomes REAL under REAL affinity); used for the
/// hash of what was written, so that the read-back compares equal exactly
/// when SQLite stored what was meant.
fn stored(v: &Sql, a: Storage) -> Sql {
    match (a, v) {
        (Storage::Integer | Storage::Decimal, Sql::Real(f))
            if f.fract() == 0.0 && f.abs() < 9.2e18 =>
        {
            Sql::Integer(*f as i64)
        }
        (Storage::Real, Sql::Integer(i)) => Sql::Real(*i as f64),
        _ => v.clone(),
    }
}

#[cfg(test)]
#[path = "type_map_cases.rs"]
mod type_map_cases;

#[cfg(test)]
mod tests {
    use super::*;

    fn table(name: &str, columns: &[(&str, &str)]) -> SourceTable {
        SourceTable {
            name: name.into(),
            columns: columns
                .iter()
                .map(|(n, t)| sqlwitness_core::SourceColumn {
                    name: (*n).into(),
                    declared: (*t).into(),
                    not_null: *n == "id",
                })
                .collect(),
            primary_key: vec![0],
            foreign_keys: Vec::new(),
            unique: Vec::new(),
        }
    }

    #[test]
    fn a_column_is_degraded_not_its_table_and_names_apart_only_by_case_are_refused() {
        let pg = sqlwitness_dialect::shipped(sqlwitness_core::EngineKind::Postgres);
        let t = table(
            "place",
            &[("id", "integer"), ("at", "int4range"), ("name", "text")],
        );
        let (report, kept) = plan_table(pg, &t, &[]);
        assert_eq!(kept, [0, 1, 2]);
        assert!(report.refused.is_none());
        assert!(report.columns[1].degraded.is_some(), "{:?}", report.columns);
        // A second table spelled alike but for case is refused.
        let (again, _) = plan_table(pg, &table("PLACE", &[("id", "integer")]), &["place".into()]);
        assert!(again.refused.as_deref().is_some_and(|r| r.contains("case")));
        // A dialect with no type map for dumps has no SQLite form for any
        // column: each is left out, and the table refused.
        let none = sqlwitness_dialect::shipped(sqlwitness_core::EngineKind::Sqlite);
        let (refused, kept) = plan_table(none, &t, &[]);
        assert!(kept.is_empty());
        assert_eq!(refused.left_out.len(), 3);
        assert_eq!(
            refused.refused.as_deref(),
            Some("no column has a SQLite form")
        );
    }

    #[test]
    fn keys_are_declared_only_to_tables_written() {
        let pg = sqlwitness_dialect::shipped(sqlwitness_core::EngineKind::Postgres);
        let parent = table("city", &[("id", "integer"), ("name", "text")]);
        let mut child = table("street", &[("id", "integer"), ("city_id", "integer")]);
        let key = |parent: &str| sqlwitness_core::SourceForeignKey {
            columns: vec!["city_id".into()],
            parent_table: parent.into(),
            parent_columns: vec![Some("id".into())],
        };
        child.foreign_keys = vec![key("city"), key("town")];
        let tables = [parent, child.clone()];
        let (report, kept) = plan_table(pg, &child, &[]);
        let sql = create_table(&child, &report.columns, &kept, &tables);
        assert!(sql.contains("\"id\" integer NOT NULL"), "{sql}");
        assert!(sql.contains("PRIMARY KEY (\"id\")"), "{sql}");
        assert!(
            sql.contains("FOREIGN KEY (\"city_id\") REFERENCES \"city\" (\"id\")"),
            "{sql}"
        );
        assert!(!sql.contains("town"), "{sql}");
    }

    #[test]
    fn unique_keys_become_indexes_and_a_refused_one_is_named() {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        db.execute_batch(
            "CREATE TABLE t (id integer PRIMARY KEY, code text, a integer, b integer, gone text);
             CREATE TABLE t_code_key (x integer);
             INSERT INTO t VALUES (1, 'x', 1, 1, 'g'), (2, 'y', 1, 1, 'g');",
        )
        .unwrap();
        let mut t = table(
            "t",
            &[
                ("id", "integer"),
                ("code", "text"),
                ("a", "integer"),
                ("b", "integer"),
                ("gone", "tsvector"),
            ],
        );
        // The primary key's set, a repeat in another order, a key the rows
        // break, a key on a column left out.
        t.unique = vec![vec![0], vec![1], vec![3, 2], vec![2, 3], vec![4]];
        let out = Path::new(":memory:");
        let not_kept = add_unique_indexes(&db, out, &t, &[0, 1, 2, 3]).unwrap();
        assert_eq!(not_kept.len(), 2, "{not_kept:?}");
        assert!(not_kept[0].starts_with("unique key (b, a): SQLite refused it"));
        assert!(not_kept[1].contains("(gone): a column of it has no SQLite form"));
        // The name a table already holds is not taken.
        let names: Vec<String> = db
            .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(names, ["t_code_key2"]);
        let dup = db.execute("INSERT INTO t VALUES (3, 'x', 2, 2, 'g')", []);
        assert!(dup.is_err(), "the index holds");
    }

    /// `map_type`'s answer in the form of `type_map_cases`.
    fn rendered(dialect: &Dialect, declared: &str) -> String {
        match map_type(dialect, declared) {
            Ok(m) => format!(
                "[{}] {} | {}{}",
                m.sqlite_type,
                serde_json::to_value(m.storage).unwrap().as_str().unwrap(),
                m.note.as_deref().unwrap_or("-"),
                m.degraded
                    .map(|d| format!(" | degraded {d}"))
                    .unwrap_or_default()
            ),
            Err(why) => format!("refused: {why}"),
        }
    }

    #[test]
    fn type_map_decides_as_before_it_moved_into_the_dialect_files() {
        use sqlwitness_core::EngineKind;
        use type_map_cases::{MARIADB_ONLY, MYSQL, POSTGRES};
        let cases = [
            (EngineKind::Postgres, POSTGRES.iter().collect::<Vec<_>>()),
            (EngineKind::Mysql, MYSQL.iter().collect()),
            (
                EngineKind::Mariadb,
                MYSQL.iter().chain(MARIADB_ONLY).collect(),
            ),
        ];
        let mut wrong = Vec::new();
        for (engine, rows) in cases {
            let dialect = sqlwitness_dialect::shipped(engine);
            for (declared, want) in rows {
                let got = rendered(dialect, declared);
                if &got != want {
                    wrong.push(format!("{engine}: {declared}: want {want}, got {got}"));
                }
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn every_type_the_map_named_in_code_is_named_in_a_dialect_file() {
        use sqlwitness_core::EngineKind;
        // The names the map listed when it was code (`clob` and `nvarchar2`,
        // which neither PostgreSQL nor MySQL has, are left out).
        let before = "interval point line lseg box path polygon circle tsvector tsquery money \
            geometry geography linestring multipoint multilinestring multipolygon \
            geometrycollection geomcollection timetz txid_snapshot pg_lsn pg_snapshot smallint \
            integer int bigint int2 int4 int8 tinyint mediumint serial bigserial smallserial year \
            bit boolean bool real float double float4 float8 numeric decimal dec fixed char \
            character varchar text nvarchar nchar tinytext mediumtext longtext citext bpchar \
            bytea blob tinyblob mediumblob longblob binary varbinary date time timestamp \
            datetime timestamptz enum set json jsonb uuid";
        let spaced = [
            "time with time zone",
            "double precision",
            "character varying",
            "national character",
            "national char",
            "national character varying",
            "time without time zone",
            "timestamp without time zone",
            "timestamp with time zone",
        ];
        let named: Vec<String> = [EngineKind::Postgres, EngineKind::Mariadb]
            .iter()
            .flat_map(|&e| {
                let map = sqlwitness_dialect::shipped(e).dump_types.as_ref().unwrap();
                map.rules.values().flat_map(|r| r.types.clone())
            })
            .collect();
        for t in before.split_whitespace().chain(spaced) {
            assert!(named.iter().any(|n| n == t), "{t} is in no dump_types rule");
        }
    }

    #[test]
    fn type_map_carries_or_refuses_by_name() {
        use sqlwitness_core::EngineKind;
        let pg = |t: &str| map_type(sqlwitness_dialect::shipped(EngineKind::Postgres), t);
        let my = |t: &str| map_type(sqlwitness_dialect::shipped(EngineKind::Mysql), t);
        assert_eq!(pg("integer").unwrap().storage, Storage::Integer);
        assert_eq!(my("bigint unsigned").unwrap().storage, Storage::Integer);
        assert_eq!(my("bigint unsigned").unwrap().sqlite_type, "");
        assert_eq!(my("int(10) unsigned").unwrap().sqlite_type, "int unsigned");
        assert_eq!(pg("numeric(10,2)").unwrap().sqlite_type, "numeric(10,2)");
        assert_eq!(pg("numeric(30,10)").unwrap().sqlite_type, "");
        assert_eq!(pg("numeric").unwrap().sqlite_type, "");
        assert_eq!(
            pg("character varying(40)").unwrap().sqlite_type,
            "character varying(40)"
        );
        assert_eq!(pg("name").unwrap().sqlite_type, "TEXT");
        assert_eq!(my("enum('a','b')").unwrap().sqlite_type, "TEXT");
        assert_eq!(
            pg("timestamp without time zone").unwrap().sqlite_type,
            "TIMESTAMP"
        );
        assert_eq!(pg("bytea").unwrap().storage, Storage::Blob);
        assert_eq!(pg("jsonb").unwrap().storage, Storage::Text);
        for degraded in [
            "integer[]",
            "interval",
            "point",
            "geometry",
            "int4range",
            "time with time zone",
            "money",
            "tsvector",
        ] {
            let m = pg(degraded).unwrap();
            assert!(m.degraded.is_some(), "{degraded}");
            assert_eq!(m.storage, Storage::Text, "{degraded}");
        }
        assert!(my("point").unwrap().degraded.is_some());
        assert!(map_type(sqlwitness_dialect::shipped(EngineKind::Sqlite), "integer").is_err());
    }

    #[test]
    fn decimals_are_real_only_when_exact() {
        assert_eq!(exact_double("0.99"), Some(0.99));
        assert_eq!(exact_double("10.00"), Some(10.0));
        assert_eq!(exact_double("-0.50"), Some(-0.5));
        assert_eq!(exact_double("12345678901234567890.12"), None);
        assert_eq!(exact_double("0.1000000000000000055511151231257827"), None);
        let (v, coerced) = to_sqlite(
            Storage::Decimal,
            &Value::Decimal("123456789012345678.5".into()),
        );
        assert!(coerced && matches!(v, Sql::Text(_)));
    }
}
