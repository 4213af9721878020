//! The schema an instance generator needs, read from the original SQLite
//! file: each table's `CREATE` statement (replayed verbatim in every
//! instance), columns with the migration's type decision, keys, the
//! distinct stored values of every column, and the constraints the real
//! data follows, declared or inferred from the data (see [`ColumnDef`]):
//! generated instances must not break a rule the original keeps, or a
//! correct prediction can fail on them.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};
use sqlwitness_core::{Database, Value};
use sqlwitness_migrate::TargetKind;

use crate::FuzzError;

/// At most this many distinct original values are kept per column.
const MAX_ORIGINAL_VALUES: usize = 200;

/// The values a column may take in an instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Domain {
    /// Any value of the column's type.
    Free,
    /// Low-cardinality column (2 to [`MAX_SET_DOMAIN`] distinct values,
    /// each used about twice or more): its original values and the gold
    /// queries' literals compared with it.
    Set,
    /// Every original value has this shape (digits as `9`, upper-case
    /// letters `A`, lower-case `a`, other characters as they are) and the
    /// shape has a digit or is a short upper-case code: dates, codes,
    /// phone numbers keep their format.
    Shape(String),
}

/// Low-cardinality columns have at most this many distinct values.
pub const MAX_SET_DOMAIN: usize = 12;

/// The shape of a text (see [`Domain::Shape`]).
pub fn shape(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_digit() {
                '9'
            } else if c.is_uppercase() {
                'A'
            } else if c.is_alphabetic() {
                'a'
            } else {
                c
            }
        })
        .collect()
}

#[derive(Debug, Clone)]
pub struct ColumnDef {
    pub name: String,
    pub declared: String,
    /// Declared `NOT NULL`.
    pub not_null: bool,
    /// Never NULL in an instance: declared NOT NULL, part of the primary
    /// key, or no NULL in the original's (non-empty) column.
    pub never_null: bool,
    /// Share of NULLs in the original column.
    pub null_ratio: f64,
    /// Unique in an instance: the single-column primary key, a declared
    /// single-column UNIQUE index, or a key-like column (see
    /// [`key_like`]) whose original values are all distinct.
    pub unique: bool,
    pub domain: Domain,
    /// No negative number in the original: none generated.
    pub non_negative: bool,
    /// The type the migration chose from the declared type and the stored
    /// values (`sqlwitness_migrate::plan_migration`).
    pub kind: TargetKind,
    /// Distinct stored values, in the file's order.
    pub originals: Vec<Value>,
    /// What the column's type holds on a server reference whose scratch
    /// copies take the dump copy's types (`type_limits`); `None`: SQLite's
    /// rules only.
    pub type_limit: Option<crate::type_limits::TypeLimit>,
}

#[derive(Debug, Clone)]
pub struct ForeignKeyDef {
    /// Child column indexes.
    pub columns: Vec<usize>,
    pub parent: String,
    /// Parent column names (the parent's primary key when not named).
    pub parent_columns: Vec<String>,
    /// Share of the original's non-null child values that name no parent
    /// row (compared as SQLite compares them). 0 for a kept foreign key:
    /// instances then have no orphans.
    pub orphan_ratio: f64,
    /// `schema` (declared in the SQLite file) or `tables.json`.
    pub source: String,
}

/// A foreign key given by name, e.g. from Spider's `tables.json`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ForeignKeySpec {
    pub table: String,
    pub columns: Vec<String>,
    pub parent: String,
    pub parent_columns: Vec<String>,
}

impl std::fmt::Display for ForeignKeySpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}({}) -> {}({})",
            self.table,
            self.columns.join(", "),
            self.parent,
            self.parent_columns.join(", ")
        )
    }
}

#[derive(Debug, Clone)]
pub struct TableDef {
    pub name: String,
    pub create_sql: String,
    pub columns: Vec<ColumnDef>,
    /// Primary-key column indexes in key order.
    pub primary_key: Vec<usize>,
    /// Column sets unique together: the primary key and declared UNIQUE
    /// indexes (single columns too) and inferred unique columns.
    pub unique_sets: Vec<Vec<usize>>,
    pub foreign_keys: Vec<ForeignKeyDef>,
    /// Rows in the original table.
    pub original_rows: usize,
}

#[derive(Debug, Clone)]
pub struct DbSchema {
    /// Tables in an order where parents come before children (cycles are
    /// broken in schema order).
    pub tables: Vec<TableDef>,
}

impl DbSchema {
    pub fn table(&self, name: &str) -> Option<(usize, &TableDef)> {
        self.tables
            .iter()
            .enumerate()
            .find(|(_, t)| t.name.eq_ignore_ascii_case(name))
    }

    /// `(table, columns)` pairs, for the neighbour generator.
    pub fn names(&self) -> Vec<(String, Vec<String>)> {
        self.tables
            .iter()
            .map(|t| {
                (
                    t.name.clone(),
                    t.columns.iter().map(|c| c.name.clone()).collect(),
                )
            })
            .collect()
    }
}

pub(crate) fn quote(ident: &str) -> String {
    format!("\"{}\"", ident.replace('"', "\"\""))
}

pub(crate) fn open_ro(path: &Path) -> Result<Connection, FuzzError> {
    Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| FuzzError::sqlite(path, e))
}

use sqlwitness_engines::sqlite_value;

/// Reads the schema and column values of the SQLite file of `db_id`, with
/// the constraints inferred from its data; no foreign keys beyond the
/// declared ones.
pub fn read_schema(db_id: &str, path: &Path) -> Result<DbSchema, FuzzError> {
    read_schema_with(db_id, path, &[])
}

/// Names that mark a column as an identifier: all-distinct values in such
/// a column are a rule of the data, not a coincidence of a small table.
pub fn key_like(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    let words: Vec<&str> = n
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let last = words.last().copied().unwrap_or("");
    n.ends_with("id")
        || n.contains("name")
        || n.contains("code")
        || n.contains("title")
        || n.contains("email")
        || n.contains("phone")
        || n.contains("url")
        || n.contains("abbrev")
        || matches!(
            last,
            "no" | "num" | "number" | "key" | "ssn" | "isbn" | "login"
        )
}

/// Per-column statistics of the original table.
struct Stats {
    rows: usize,
    non_null: Vec<usize>,
    distinct: Vec<usize>,
    min_number: Vec<Option<f64>>,
}

fn table_stats(conn: &Connection, table: &str, cols: &[String]) -> rusqlite::Result<Stats> {
    let mut parts = vec!["count(*)".to_string()];
    for c in cols {
        let q = quote(c);
        parts.push(format!("count({q})"));
        parts.push(format!("count(DISTINCT {q})"));
        parts.push(format!(
            "min(CASE WHEN typeof({q}) IN ('integer', 'real') THEN {q} END)"
        ));
    }
    let sql = format!("SELECT {} FROM {}", parts.join(", "), quote(table));
    conn.query_row(&sql, [], |r| {
        let n = |i: usize| r.get::<_, i64>(i).map(|v| v.max(0) as usize);
        let mut st = Stats {
            rows: n(0)?,
            non_null: Vec::new(),
            distinct: Vec::new(),
            min_number: Vec::new(),
        };
        for k in 0..cols.len() {
            st.non_null.push(n(1 + 3 * k)?);
            st.distinct.push(n(2 + 3 * k)?);
            st.min_number.push(r.get::<_, Option<f64>>(3 + 3 * k)?);
        }
        Ok(st)
    })
}

/// Declared UNIQUE indexes (and UNIQUE constraints) of `table`.
fn unique_indexes(
    conn: &Connection,
    table: &str,
    cols: &[String],
) -> rusqlite::Result<Vec<Vec<usize>>> {
    let mut list = conn.prepare("SELECT name FROM pragma_index_list(?1) WHERE \"unique\" = 1")?;
    let names: Vec<String> = list
        .query_map([table], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut out = Vec::new();
    for name in names {
        let mut info = conn.prepare("SELECT name FROM pragma_index_info(?1) ORDER BY seqno")?;
        let members: Vec<Option<String>> = info
            .query_map([&name], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        let idx: Option<Vec<usize>> = members
            .iter()
            .map(|m| {
                m.as_ref()
                    .and_then(|m| cols.iter().position(|c| c.eq_ignore_ascii_case(m)))
            })
            .collect();
        if let Some(idx) = idx.filter(|i| !i.is_empty()) {
            out.push(idx);
        }
    }
    Ok(out)
}

/// The domain of a column from its distinct original values.
fn domain_of(kind: TargetKind, originals: &[Value], rows_non_null: usize) -> Domain {
    let distinct = originals.len();
    // One value says nothing about the domain (every pet in the file is a
    // dog; the question still asks for dogs).
    if (2..=MAX_SET_DOMAIN).contains(&distinct) && rows_non_null >= 2 * distinct {
        return Domain::Set;
    }
    if kind != TargetKind::Text && kind != TargetKind::Date && kind != TargetKind::Timestamp {
        return Domain::Free;
    }
    let mut shapes = originals.iter().map(|v| match v {
        Value::Text(s) => Some(shape(s)),
        _ => None,
    });
    let Some(Some(first)) = shapes.next() else {
        return Domain::Free;
    };
    let code = first.len() <= 4 && first.chars().all(|c| c == 'A');
    if distinct >= 3
        && !first.is_empty()
        && (first.contains('9') || code)
        && shapes.all(|s| s.as_deref() == Some(first.as_str()))
    {
        Domain::Shape(first)
    } else {
        Domain::Free
    }
}

/// [`read_schema`] plus `extra` foreign keys (e.g. Spider's `tables.json`);
/// an extra key naming a missing table or column, or one already declared,
/// is left out.
pub fn read_schema_with(
    db_id: &str,
    path: &Path,
    extra: &[ForeignKeySpec],
) -> Result<DbSchema, FuzzError> {
    let plan = sqlwitness_migrate::plan_migration(
        &Database::new(db_id, path),
        sqlwitness_engines::IN_PLACE,
    )?;
    let conn = open_ro(path)?;
    let err = |e: rusqlite::Error| FuzzError::sqlite(path, e);
    let mut tables = Vec::new();
    for (name, create_sql) in table_statements(&conn).map_err(err)? {
        let decisions = plan.iter().find(|t| t.name == name);
        tables.push(read_table(&conn, name, create_sql, decisions).map_err(err)?);
    }
    fill_parent_columns(&mut tables);
    add_extra_keys(&mut tables, extra);
    // Keys the data breaks are kept only as far as the data keeps them.
    for t in &mut tables {
        let cols: Vec<String> = t.columns.iter().map(|c| c.name.clone()).collect();
        for fk in &mut t.foreign_keys {
            fk.orphan_ratio = orphan_ratio(&conn, &t.name, &cols, fk).map_err(err)?;
        }
    }
    Ok(DbSchema {
        tables: topo_order(tables),
    })
}

/// `(name, CREATE statement)` of every table, in schema order.
fn table_statements(conn: &Connection) -> rusqlite::Result<Vec<(String, String)>> {
    let mut stmt = conn.prepare(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL \
         AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid",
    )?;
    let raw = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .and_then(|rows| rows.collect());
    raw
}

/// A column as `pragma_table_info` gives it.
struct PragmaColumn {
    name: String,
    declared: String,
    not_null: bool,
    /// 1-based position in the primary key, 0 outside it.
    pk_pos: i64,
}

fn pragma_columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<PragmaColumn>> {
    let mut info = conn.prepare(
        "SELECT name, coalesce(type, ''), \"notnull\", pk FROM pragma_table_info(?1) ORDER BY cid",
    )?;
    let cols = info
        .query_map([table], |r| {
            Ok(PragmaColumn {
                name: r.get(0)?,
                declared: r.get(1)?,
                not_null: r.get(2)?,
                pk_pos: r.get(3)?,
            })
        })
        .and_then(|rows| rows.collect());
    cols
}

/// One table: its columns with their constraints and values, its keys.
/// `decisions` is the migration's plan for it (a column it does not name
/// is text).
fn read_table(
    conn: &Connection,
    name: String,
    create_sql: String,
    decisions: Option<&sqlwitness_migrate::TableReport>,
) -> rusqlite::Result<TableDef> {
    let cols = pragma_columns(conn, &name)?;
    let col_names: Vec<String> = cols.iter().map(|c| c.name.clone()).collect();
    let stats = table_stats(conn, &name, &col_names)?;
    let mut columns = Vec::with_capacity(cols.len());
    for (i, col) in cols.iter().enumerate() {
        let kind = decisions
            .and_then(|d| d.columns.iter().find(|c| c.name == col.name))
            .map_or(TargetKind::Text, |c| c.kind);
        let originals = distinct_values(conn, &name, &col.name)?;
        columns.push(column_def(col, kind, originals, &stats, i));
    }
    let primary_key = primary_key(&cols);
    let unique_sets = unique_sets(
        &mut columns,
        unique_indexes(conn, &name, &col_names)?,
        &primary_key,
    );
    let foreign_keys = declared_foreign_keys(conn, &name, &columns)?;
    Ok(TableDef {
        name,
        create_sql,
        columns,
        primary_key,
        unique_sets,
        foreign_keys,
        original_rows: stats.rows,
    })
}

/// Up to [`MAX_ORIGINAL_VALUES`] distinct non-null values of a column, in
/// the file's order.
fn distinct_values(conn: &Connection, table: &str, column: &str) -> rusqlite::Result<Vec<Value>> {
    let mut vals = conn.prepare(&format!(
        "SELECT DISTINCT {} FROM {} LIMIT {MAX_ORIGINAL_VALUES}",
        quote(column),
        quote(table)
    ))?;
    let mut rows = vals.query([])?;
    let mut originals = Vec::new();
    while let Some(r) = rows.next()? {
        let v = sqlite_value(r.get_ref(0)?);
        if v != Value::Null {
            originals.push(v);
        }
    }
    Ok(originals)
}

/// Column `i` of a table with statistics `stats`: the constraints its
/// declaration and its data follow (see [`ColumnDef`]).
fn column_def(
    col: &PragmaColumn,
    kind: TargetKind,
    originals: Vec<Value>,
    stats: &Stats,
    i: usize,
) -> ColumnDef {
    let non_null = stats.non_null[i];
    let null_ratio = if stats.rows == 0 {
        0.0
    } else {
        (stats.rows - non_null) as f64 / stats.rows as f64
    };
    let all_distinct = non_null >= 2 && stats.distinct[i] == non_null;
    let text_like = matches!(kind, TargetKind::Text);
    let unique = all_distinct
        && (key_like(&col.name) || (text_like && non_null >= 10))
        && !matches!(kind, TargetKind::Real);
    ColumnDef {
        name: col.name.clone(),
        declared: col.declared.clone(),
        not_null: col.not_null,
        never_null: col.not_null || col.pk_pos > 0 || (stats.rows > 0 && non_null == stats.rows),
        null_ratio,
        unique,
        domain: domain_of(kind, &originals, non_null),
        non_negative: stats.min_number[i].is_none_or(|m| m >= 0.0),
        kind,
        originals,
        type_limit: None,
    }
}

/// The primary-key column indexes in key order.
fn primary_key(cols: &[PragmaColumn]) -> Vec<usize> {
    let mut pk: Vec<(i64, usize)> = cols
        .iter()
        .enumerate()
        .filter(|(_, c)| c.pk_pos > 0)
        .map(|(i, c)| (c.pk_pos, i))
        .collect();
    pk.sort();
    pk.into_iter().map(|(_, i)| i).collect()
}

/// The column sets unique together: the declared indexes, the primary
/// key, and each column inferred unique; a column alone in a declared set
/// is marked unique. Sorted, without repeats.
fn unique_sets(
    columns: &mut [ColumnDef],
    mut sets: Vec<Vec<usize>>,
    primary_key: &[usize],
) -> Vec<Vec<usize>> {
    if !primary_key.is_empty() {
        sets.push(primary_key.to_vec());
    }
    for (i, c) in columns.iter_mut().enumerate() {
        if sets.iter().any(|u| u == &[i]) {
            c.unique = true;
        } else if c.unique {
            sets.push(vec![i]);
        }
    }
    sets.sort();
    sets.dedup();
    sets
}

/// A row of `pragma_foreign_key_list`: key id, parent table, child column,
/// parent column (`None` when the key names none).
type ForeignKeyRow = (i64, String, String, Option<String>);

/// The foreign keys the table declares.
fn declared_foreign_keys(
    conn: &Connection,
    table: &str,
    columns: &[ColumnDef],
) -> rusqlite::Result<Vec<ForeignKeyDef>> {
    let mut fk_stmt = conn.prepare(
        "SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?1) ORDER BY id, seq",
    )?;
    let fk_rows: Vec<ForeignKeyRow> = fk_stmt
        .query_map([table], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .and_then(|rows| rows.collect())?;
    Ok(group_foreign_keys(fk_rows, columns))
}

/// The pragma's rows, one a key column, as keys: rows of one id are one
/// key; a row naming a column the table lacks is left out.
fn group_foreign_keys(rows: Vec<ForeignKeyRow>, columns: &[ColumnDef]) -> Vec<ForeignKeyDef> {
    let mut foreign_keys: Vec<(i64, ForeignKeyDef)> = Vec::new();
    for (id, parent, from, to) in rows {
        let Some(ci) = columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(&from))
        else {
            continue;
        };
        let to = to.unwrap_or_default();
        match foreign_keys.iter_mut().find(|(i, _)| *i == id) {
            Some((_, fk)) => {
                fk.columns.push(ci);
                fk.parent_columns.push(to);
            }
            None => foreign_keys.push((
                id,
                ForeignKeyDef {
                    columns: vec![ci],
                    parent,
                    parent_columns: vec![to],
                    orphan_ratio: 0.0,
                    source: "schema".into(),
                },
            )),
        }
    }
    foreign_keys.into_iter().map(|(_, f)| f).collect()
}

/// Fills unnamed parent columns with the parent's primary key.
fn fill_parent_columns(tables: &mut [TableDef]) {
    let pks: Vec<(String, Vec<String>)> = tables
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                t.primary_key
                    .iter()
                    .map(|&i| t.columns[i].name.clone())
                    .collect(),
            )
        })
        .collect();
    for t in tables {
        for fk in &mut t.foreign_keys {
            if let Some((_, pk)) = pks.iter().find(|(n, _)| n.eq_ignore_ascii_case(&fk.parent)) {
                for (k, pc) in fk.parent_columns.iter_mut().enumerate() {
                    if pc.is_empty() {
                        *pc = pk.get(k).cloned().unwrap_or_default();
                    }
                }
            }
        }
    }
}

fn add_extra_keys(tables: &mut [TableDef], extra: &[ForeignKeySpec]) {
    for spec in extra {
        let names: Vec<(String, Vec<String>)> = tables
            .iter()
            .map(|t| {
                (
                    t.name.clone(),
                    t.columns.iter().map(|c| c.name.clone()).collect(),
                )
            })
            .collect();
        let Some((_, pcols)) = names
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(&spec.parent))
        else {
            continue;
        };
        if !spec
            .parent_columns
            .iter()
            .all(|pc| pcols.iter().any(|c| c.eq_ignore_ascii_case(pc)))
        {
            continue;
        }
        let Some(t) = tables
            .iter_mut()
            .find(|t| t.name.eq_ignore_ascii_case(&spec.table))
        else {
            continue;
        };
        let idx: Option<Vec<usize>> = spec
            .columns
            .iter()
            .map(|c| {
                t.columns
                    .iter()
                    .position(|x| x.name.eq_ignore_ascii_case(c))
            })
            .collect();
        let Some(idx) = idx.filter(|i| !i.is_empty() && i.len() == spec.parent_columns.len())
        else {
            continue;
        };
        let known = t.foreign_keys.iter().any(|fk| {
            fk.columns == idx
                && fk.parent.eq_ignore_ascii_case(&spec.parent)
                && fk
                    .parent_columns
                    .iter()
                    .zip(&spec.parent_columns)
                    .all(|(a, b)| a.eq_ignore_ascii_case(b))
        });
        if !known {
            t.foreign_keys.push(ForeignKeyDef {
                columns: idx,
                parent: spec.parent.clone(),
                parent_columns: spec.parent_columns.clone(),
                orphan_ratio: 0.0,
                source: "tables.json".into(),
            });
        }
    }
}

/// Share of the child's rows with non-null key values that match no parent
/// row, comparing as SQLite does (`=` with column affinities).
fn orphan_ratio(
    conn: &Connection,
    table: &str,
    cols: &[String],
    fk: &ForeignKeyDef,
) -> rusqlite::Result<f64> {
    let child: Vec<String> = fk
        .columns
        .iter()
        .map(|&c| format!("c.{}", quote(&cols[c])))
        .collect();
    let matches: Vec<String> = child
        .iter()
        .zip(&fk.parent_columns)
        .map(|(c, p)| format!("p.{} = {c}", quote(p)))
        .collect();
    let sql = format!(
        "SELECT count(*), coalesce(sum(NOT EXISTS (SELECT 1 FROM {} AS p WHERE {})), 0) \
         FROM {} AS c WHERE {}",
        quote(&fk.parent),
        matches.join(" AND "),
        quote(table),
        child
            .iter()
            .map(|c| format!("{c} IS NOT NULL"))
            .collect::<Vec<_>>()
            .join(" AND ")
    );
    match conn.query_row(&sql, [], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))) {
        Ok((0, _)) => Ok(0.0),
        Ok((n, o)) => Ok(o as f64 / n as f64),
        // A key naming a column the parent does not have: treat as broken.
        Err(rusqlite::Error::SqliteFailure(_, _)) => Ok(1.0),
        Err(e) => Err(e),
    }
}

/// Parents before children; a table whose parents are not all placed yet
/// waits, and a cycle is broken by taking the first waiting table.
fn topo_order(mut pending: Vec<TableDef>) -> Vec<TableDef> {
    let mut out: Vec<TableDef> = Vec::with_capacity(pending.len());
    while !pending.is_empty() {
        let ready = pending.iter().position(|t| {
            t.foreign_keys.iter().all(|fk| {
                fk.parent.eq_ignore_ascii_case(&t.name)
                    || out.iter().any(|o| o.name.eq_ignore_ascii_case(&fk.parent))
                    || !pending
                        .iter()
                        .any(|p| p.name.eq_ignore_ascii_case(&fk.parent))
            })
        });
        out.push(pending.remove(ready.unwrap_or(0)));
    }
    out
}

/// A value as SQLite compares key columns across affinities: numbers, and
/// texts that read as numbers, by value; other texts and blobs by content.
pub(crate) fn fk_key(v: &Value) -> String {
    fn number(f: f64) -> String {
        if f.fract() == 0.0 && f.abs() < 9.0e15 {
            format!("n{}", f as i64)
        } else {
            format!("n{f:?}")
        }
    }
    match v {
        Value::Null => "null".into(),
        Value::Int(i) => format!("n{i}"),
        Value::Bool(b) => format!("n{}", *b as i64),
        Value::Float(f) => number(*f),
        Value::Bytes(b) => format!("b{b:?}"),
        Value::Decimal(s)
        | Value::Text(s)
        | Value::Date(s)
        | Value::Time(s)
        | Value::Timestamp(s) => {
            let t = s.trim();
            if let Ok(i) = t.parse::<i64>() {
                format!("n{i}")
            } else if let Some(f) = t.parse::<f64>().ok().filter(|f| f.is_finite()) {
                number(f)
            } else {
                format!("t{s}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(sql: &str) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(sql).unwrap();
        conn
    }

    fn table(conn: &Connection, name: &str) -> TableDef {
        read_table(conn, name.into(), String::new(), None).unwrap()
    }

    /// The primary key in key order, declared and inferred unique sets,
    /// never-null columns, and a key naming no parent column.
    #[test]
    fn read_table_reads_keys_and_constraints() {
        let conn = memory(
            "CREATE TABLE parent (id INTEGER PRIMARY KEY, code TEXT UNIQUE);
             CREATE TABLE child (a INT, b INT, note TEXT NOT NULL, pid INT REFERENCES parent,
                                 PRIMARY KEY (b, a));
             INSERT INTO parent VALUES (1, 'x'), (2, 'y');
             INSERT INTO child VALUES (1, 1, 'n', 1), (2, 1, 'n', NULL), (3, 2, 'm', 1);",
        );
        let child = table(&conn, "child");
        assert_eq!(child.primary_key, [1, 0]);
        assert_eq!(child.unique_sets, [vec![1, 0]]);
        assert_eq!(child.original_rows, 3);
        let never_null: Vec<bool> = child.columns.iter().map(|c| c.never_null).collect();
        assert_eq!(never_null, [true, true, true, false]);
        assert_eq!(child.foreign_keys.len(), 1);
        assert_eq!(child.foreign_keys[0].columns, [3]);
        assert_eq!(child.foreign_keys[0].parent_columns, [""]);
        let parent = table(&conn, "parent");
        assert_eq!(parent.unique_sets, [vec![0], vec![1]]);
        assert!(parent.columns.iter().all(|c| c.unique));
        let mut tables = vec![parent, child];
        fill_parent_columns(&mut tables);
        assert_eq!(tables[1].foreign_keys[0].parent_columns, ["id"]);
    }

    /// A column is inferred unique when its values are all distinct and
    /// its name is key-like (or it is text with ten values or more), never
    /// when it is real.
    #[test]
    fn column_def_infers_uniqueness_and_nulls() {
        let col = |name: &str| PragmaColumn {
            name: name.into(),
            declared: String::new(),
            not_null: false,
            pk_pos: 0,
        };
        let stats = Stats {
            rows: 4,
            non_null: vec![3, 3],
            distinct: vec![3, 2],
            min_number: vec![Some(-1.0), None],
        };
        let c = column_def(&col("city_id"), TargetKind::Integer, Vec::new(), &stats, 0);
        assert!(c.unique && !c.never_null && !c.non_negative);
        assert_eq!(c.null_ratio, 0.25);
        assert!(!column_def(&col("size"), TargetKind::Integer, Vec::new(), &stats, 0).unique);
        assert!(!column_def(&col("city_id"), TargetKind::Real, Vec::new(), &stats, 0).unique);
        let c = column_def(&col("name"), TargetKind::Text, Vec::new(), &stats, 1);
        assert!(!c.unique && c.non_negative);
    }

    /// Rows of one id are one key, in order; a row naming a column the
    /// table lacks is left out.
    #[test]
    fn group_foreign_keys_joins_composite_keys() {
        let conn = memory("CREATE TABLE t (a INT, b INT, c INT)");
        let columns = table(&conn, "t").columns;
        let row = |id, parent: &str, from: &str, to: Option<&str>| {
            (
                id,
                parent.to_string(),
                from.to_string(),
                to.map(String::from),
            )
        };
        let keys = group_foreign_keys(
            vec![
                row(0, "p", "A", Some("x")),
                row(0, "p", "c", Some("y")),
                row(1, "q", "gone", None),
                row(2, "r", "b", None),
            ],
            &columns,
        );
        let shown: Vec<(Vec<usize>, &str, Vec<String>)> = keys
            .iter()
            .map(|k| {
                (
                    k.columns.clone(),
                    k.parent.as_str(),
                    k.parent_columns.clone(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                (vec![0, 2], "p", vec!["x".to_string(), "y".to_string()]),
                (vec![1], "r", vec![String::new()])
            ]
        );
    }
}
