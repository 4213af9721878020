//! A SQLite file as a migration source: its schema from `sqlite_master` and
//! the `pragma_*` table functions, its rows streamed exactly as stored
//! (storage classes kept), and key checks run by SQLite itself so that
//! memory stays bounded whatever the table's size (its sorter and
//! ephemeral indexes spill to temporary files). The file is opened
//! read-only; nothing is ever written to it.
//!
//! Tables are read `NOT INDEXED`: a file whose schema text was edited can
//! list an index that holds no pages, and only a unique index the file
//! really holds is used (to look a parent key up).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::functions::FunctionFlags;
use rusqlite::types::ValueRef;
use rusqlite::Connection;
use sqlwitness_core::{
    DbError, EngineKind, ErrorClass, KeyFn, LossyCell, ScanBatch, ScanPart, Source, SourceColumn,
    SourceForeignKey, SourceSchema, SourceTable, TargetKind, Value,
};

use super::read::{open_read_only, sqlite_error};

/// Rows handed over per batch by [`SqliteSource::scan`].
const SCAN_BATCH: usize = 4096;

/// Tables whose row ids span fewer than this are scanned whole, never in
/// parts.
const SPLIT_FROM_ROWS: i64 = 500_000;

/// The name of the key function registered on the source connection.
const KEY_FUNCTION: &str = "sqlwitness_key";

/// A SQLite database file opened read-only as a migration source.
pub struct SqliteSource {
    conn: Connection,
    path: PathBuf,
    /// The key function the registered SQL function calls.
    key: Arc<std::sync::Mutex<Option<Arc<KeyFn>>>>,
}

impl std::fmt::Debug for SqliteSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteSource")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

pub(crate) fn quote(ident: &str) -> String {
    format!("\"{}\"", ident.replace('"', "\"\""))
}

fn kind_code(k: TargetKind) -> i64 {
    match k {
        TargetKind::Integer => 0,
        TargetKind::Real => 1,
        TargetKind::Numeric => 2,
        TargetKind::Text => 3,
        TargetKind::Blob => 4,
        TargetKind::Date => 5,
        TargetKind::Timestamp => 6,
    }
}

fn kind_of(code: i64) -> TargetKind {
    match code {
        0 => TargetKind::Integer,
        1 => TargetKind::Real,
        2 => TargetKind::Numeric,
        4 => TargetKind::Blob,
        5 => TargetKind::Date,
        6 => TargetKind::Timestamp,
        _ => TargetKind::Text,
    }
}

/// A stored value, with whether its text had to be read lossily.
fn stored(v: ValueRef<'_>) -> (Value, bool) {
    match v {
        ValueRef::Null => (Value::Null, false),
        ValueRef::Integer(i) => (Value::Int(i), false),
        ValueRef::Real(f) => (Value::Float(f), false),
        ValueRef::Text(b) => match std::str::from_utf8(b) {
            Ok(s) => (Value::Text(s.to_string()), false),
            Err(_) => (Value::Text(String::from_utf8_lossy(b).into_owned()), true),
        },
        ValueRef::Blob(b) => (Value::Bytes(b.to_vec()), false),
    }
}

/// Stores `v` in `slot` as [`stored`] does, reusing the buffer of a text
/// already there; whether the text had to be read lossily.
fn restore(slot: &mut Value, v: ValueRef<'_>) -> bool {
    if let (Value::Text(s), ValueRef::Text(b)) = (&mut *slot, v) {
        if let Ok(t) = std::str::from_utf8(b) {
            s.clear();
            s.push_str(t);
            return false;
        }
    }
    let (value, lossy) = stored(v);
    *slot = value;
    lossy
}

/// A name of the row id that no column of `table` takes.
fn rowid_name(table: &SourceTable) -> Option<&'static str> {
    ["rowid", "_rowid_", "oid"]
        .into_iter()
        .find(|n| !table.columns.iter().any(|c| c.name.eq_ignore_ascii_case(n)))
}

impl SqliteSource {
    /// Streams the rows of `table`, or of one part of its row ids.
    fn scan_rows(
        &mut self,
        table: &SourceTable,
        part: Option<&ScanPart>,
        batch: &mut ScanBatch<'_>,
    ) -> Result<u64, DbError> {
        let mut select = format!(
            "SELECT {} FROM {}",
            table
                .columns
                .iter()
                .map(|c| quote(&c.name))
                .collect::<Vec<_>>()
                .join(", "),
            quote(&table.name)
        );
        let mut bounds = Vec::new();
        if let Some(p) = part {
            let rowid = rowid_name(table).ok_or_else(|| {
                DbError::new(
                    ErrorClass::Other,
                    None,
                    format!("table `{}` has no row id to scan a part by", table.name),
                )
            })?;
            select.push_str(&format!(" WHERE {rowid} BETWEEN ?1 AND ?2"));
            bounds = vec![p.first, p.last];
        }
        let mut stmt = self.conn.prepare(&select).map_err(|e| self.error(e))?;
        let n = table.columns.len();
        // The batch's rows are reused from one batch to the next (their
        // texts' buffers too, where the consumer left them in place).
        let mut rows: Vec<Vec<Value>> = Vec::with_capacity(SCAN_BATCH);
        let mut filled = 0usize;
        let mut lossy: Vec<LossyCell> = Vec::new();
        let mut count = 0u64;
        let mut q = stmt
            .query(rusqlite::params_from_iter(bounds.iter()))
            .map_err(|e| self_error(&self.path, e))?;
        while let Some(r) = q.next().map_err(|e| self_error(&self.path, e))? {
            if filled == rows.len() {
                rows.push(Vec::with_capacity(n));
            }
            let row = &mut rows[filled];
            if row.len() != n {
                row.clear();
                row.resize(n, Value::Null);
            }
            for (c, slot) in row.iter_mut().enumerate() {
                let v = r.get_ref(c).map_err(|e| self_error(&self.path, e))?;
                if restore(slot, v) {
                    lossy.push((count, c));
                }
            }
            filled += 1;
            count += 1;
            if filled == SCAN_BATCH {
                batch(&mut rows[..filled], &lossy)?;
                filled = 0;
                lossy.clear();
            }
        }
        if filled > 0 {
            batch(&mut rows[..filled], &lossy)?;
        }
        Ok(count)
    }

    /// Opens `path` read-only.
    pub fn open(path: &Path) -> Result<SqliteSource, DbError> {
        let conn = open_read_only(path)?;
        let key: Arc<std::sync::Mutex<Option<Arc<KeyFn>>>> = Arc::default();
        let slot = Arc::clone(&key);
        conn.create_scalar_function(
            KEY_FUNCTION,
            2,
            FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
            move |ctx| {
                let kind = kind_of(ctx.get::<i64>(0)?);
                let (value, _) = stored(ctx.get_raw(1));
                let f = slot.lock().unwrap_or_else(|e| e.into_inner()).clone();
                Ok(match f {
                    Some(f) => f(kind, &value),
                    None => Vec::new(),
                })
            },
        )
        .map_err(|e| self_error(path, e))?;
        Ok(SqliteSource {
            conn,
            path: path.to_path_buf(),
            key,
        })
    }

    fn error(&self, e: rusqlite::Error) -> DbError {
        self_error(&self.path, e)
    }

    fn count(&self, sql: &str) -> Result<u64, DbError> {
        self.conn
            .query_row(sql, [], |r| r.get::<_, i64>(0))
            .map(|n| n.max(0) as u64)
            .map_err(|e| self.error(e))
    }

    fn set_key(&self, key: Option<Arc<KeyFn>>) {
        *self.key.lock().unwrap_or_else(|e| e.into_inner()) = key;
    }

    fn read_table(&self, name: &str) -> rusqlite::Result<SourceTable> {
        let conn = &self.conn;
        let (columns, primary_key) = table_columns(conn, name)?;
        let foreign_keys = foreign_keys(conn, name)?;
        let (mut unique, pk_index) = binary_unique_indexes(conn, name)?;
        unique.extend(rowid_alias(&columns, &primary_key, pk_index).map(|c| vec![c]));
        Ok(SourceTable {
            name: name.to_string(),
            columns,
            primary_key,
            foreign_keys,
            unique,
        })
    }
}

/// A table's columns, and its primary key's column indexes in key order.
fn table_columns(
    conn: &Connection,
    name: &str,
) -> rusqlite::Result<(Vec<SourceColumn>, Vec<usize>)> {
    let mut stmt = conn.prepare(
        "SELECT name, coalesce(type, ''), \"notnull\", pk FROM pragma_table_info(?1) ORDER BY cid",
    )?;
    let info: Vec<(String, String, bool, i64)> = stmt
        .query_map([name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut pk: Vec<(i64, usize)> = info
        .iter()
        .enumerate()
        .filter(|(_, c)| c.3 > 0)
        .map(|(i, c)| (c.3, i))
        .collect();
    pk.sort();
    let columns: Vec<SourceColumn> = info
        .into_iter()
        .map(|(name, declared, not_null, _)| SourceColumn {
            name,
            declared,
            not_null,
        })
        .collect();
    Ok((columns, pk.into_iter().map(|(_, i)| i).collect()))
}

/// A row of `pragma_foreign_key_list`: key id, parent table, child column,
/// parent column (`None` when the key names none).
type ForeignKeyRow = (i64, String, String, Option<String>);

/// The foreign keys the table declares.
fn foreign_keys(conn: &Connection, name: &str) -> rusqlite::Result<Vec<SourceForeignKey>> {
    let mut stmt = conn.prepare(
        "SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?1) ORDER BY id, seq",
    )?;
    let fk_rows: Vec<ForeignKeyRow> = stmt
        .query_map([name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(group_foreign_keys(fk_rows))
}

/// The pragma's rows, one a key column, as keys: a run of one id is one
/// key.
fn group_foreign_keys(rows: Vec<ForeignKeyRow>) -> Vec<SourceForeignKey> {
    let mut foreign_keys: Vec<SourceForeignKey> = Vec::new();
    let mut last_id = None;
    for (id, parent, from, to) in rows {
        if last_id != Some(id) {
            foreign_keys.push(SourceForeignKey {
                columns: Vec::new(),
                parent_table: parent,
                parent_columns: Vec::new(),
            });
            last_id = Some(id);
        }
        if let Some(fk) = foreign_keys.last_mut() {
            fk.columns.push(from);
            fk.parent_columns.push(to);
        }
    }
    foreign_keys
}

/// Unique column sets under binary comparison: full (not partial) unique
/// indexes the file holds, on plain columns whose collation is BINARY; and
/// whether the primary key has an index of its own (`pk`).
fn binary_unique_indexes(
    conn: &Connection,
    name: &str,
) -> rusqlite::Result<(Vec<Vec<usize>>, bool)> {
    let mut unique = Vec::new();
    let mut stmt = conn.prepare(
        "SELECT name, \"unique\", origin, partial FROM pragma_index_list(?1) ORDER BY seq",
    )?;
    let indexes: Vec<(String, bool, String, bool)> = stmt
        .query_map([name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let pk_index = indexes.iter().any(|(_, _, origin, _)| origin == "pk");
    // An index counts only when the file holds it: a schema text edited
    // to declare a key SQLite never built lists an index with no pages.
    let stored = |index: &str| -> rusqlite::Result<bool> {
        conn.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?1 \
             AND rootpage > 0",
            [index],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n > 0)
    };
    for (index, is_unique, _, partial) in &indexes {
        if !is_unique || *partial || !stored(index)? {
            continue;
        }
        let mut stmt = conn.prepare(
            "SELECT cid, coalesce(coll, 'BINARY') FROM pragma_index_xinfo(?1) \
             WHERE key = 1 ORDER BY seqno",
        )?;
        let cols: Vec<(i64, String)> = stmt
            .query_map([index], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        if cols
            .iter()
            .all(|(cid, coll)| *cid >= 0 && coll.eq_ignore_ascii_case("BINARY"))
        {
            unique.push(cols.iter().map(|(cid, _)| *cid as usize).collect());
        }
    }
    Ok((unique, pk_index))
}

/// The row id's alias: a single `INTEGER PRIMARY KEY` column (a declared
/// key without an index and of another type is only a claim of the schema
/// text, which a damaged or edited file can make: it is checked on the
/// data instead).
fn rowid_alias(columns: &[SourceColumn], primary_key: &[usize], pk_index: bool) -> Option<usize> {
    match primary_key {
        [only]
            if !pk_index
                && columns[*only]
                    .declared
                    .trim()
                    .eq_ignore_ascii_case("INTEGER") =>
        {
            Some(*only)
        }
        _ => None,
    }
}

fn self_error(path: &Path, e: rusqlite::Error) -> DbError {
    sqlite_error(
        sqlwitness_dialect::shipped(EngineKind::Sqlite),
        e,
        Some(path),
    )
}

/// `a IS NOT NULL AND b IS NOT NULL` over `cols` of `t` (alias `alias`).
fn not_null(alias: &str, t: &SourceTable, cols: &[usize]) -> String {
    cols.iter()
        .map(|&c| format!("{alias}.{} IS NOT NULL", quote(&t.columns[c].name)))
        .collect::<Vec<_>>()
        .join(" AND ")
}

/// `sqlwitness_key(k, a), …` over `cols` of `t`.
fn keys(alias: &str, t: &SourceTable, cols: &[usize], kinds: &[TargetKind]) -> String {
    let parts: Vec<String> = cols
        .iter()
        .zip(kinds)
        .map(|(&c, &k)| {
            format!(
                "{KEY_FUNCTION}({}, {alias}.{})",
                kind_code(k),
                quote(&t.columns[c].name)
            )
        })
        .collect();
    parts.join(", ")
}

impl Source for SqliteSource {
    fn schema(&mut self) -> Result<SourceSchema, DbError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT name, type, coalesce(sql, '') FROM sqlite_master \
                 WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' \
                 ORDER BY rowid",
            )
            .map_err(|e| self.error(e))?;
        let objects: Vec<(String, String, String)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.error(e))?;
        drop(stmt);
        let mut schema = SourceSchema::default();
        for (name, kind, sql) in objects {
            let virtual_table = sql
                .trim_start()
                .to_ascii_uppercase()
                .starts_with("CREATE VIRTUAL");
            if kind != "table" || virtual_table {
                schema
                    .skipped
                    .push(format!("{kind} `{name}` is not migrated"));
                continue;
            }
            let table = self.read_table(&name).map_err(|e| {
                let mut err = self.error(e);
                err.message = format!("table `{name}`: {}", err.message);
                err
            })?;
            schema.tables.push(table);
        }
        Ok(schema)
    }

    fn scan(&mut self, table: &SourceTable, batch: &mut ScanBatch<'_>) -> Result<u64, DbError> {
        self.scan_rows(table, None, batch)
    }

    fn reopen(&self) -> Option<Result<Box<dyn Source>, DbError>> {
        Some(SqliteSource::open(&self.path).map(|s| Box::new(s) as Box<dyn Source>))
    }

    /// Row-id ranges of equal width. A table without a row id (`WITHOUT
    /// ROWID`, or every alias of it taken by a column) or with fewer than
    /// [`SPLIT_FROM_ROWS`] ids in its range is not split.
    fn parts(&mut self, table: &SourceTable, parts: usize) -> Result<Vec<ScanPart>, DbError> {
        let Some(rowid) = rowid_name(table) else {
            return Ok(Vec::new());
        };
        if parts < 2 {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT min({rowid}), max({rowid}) FROM {}",
            quote(&table.name)
        );
        // A table without a row id refuses the query: it is read whole.
        let Ok((Some(lo), Some(hi))) = self.conn.query_row(&sql, [], |r| {
            Ok((r.get::<_, Option<i64>>(0)?, r.get::<_, Option<i64>>(1)?))
        }) else {
            return Ok(Vec::new());
        };
        let span = i128::from(hi) - i128::from(lo) + 1;
        if span < i128::from(SPLIT_FROM_ROWS) {
            return Ok(Vec::new());
        }
        let n = parts as i128;
        Ok((0..n)
            .map(|k| ScanPart {
                first: (i128::from(lo) + span * k / n) as i64,
                last: (i128::from(lo) + span * (k + 1) / n - 1) as i64,
            })
            .collect())
    }

    fn scan_part(
        &mut self,
        table: &SourceTable,
        part: &ScanPart,
        batch: &mut ScanBatch<'_>,
    ) -> Result<u64, DbError> {
        self.scan_rows(table, Some(part), batch)
    }

    fn key_violations(
        &mut self,
        table: &SourceTable,
        cols: &[usize],
        kinds: &[TargetKind],
        key: &Arc<KeyFn>,
    ) -> Result<(u64, u64), DbError> {
        let t = quote(&table.name);
        let nulls = format!(
            "SELECT count(*) FROM {t} AS s NOT INDEXED WHERE NOT ({})",
            not_null("s", table, cols)
        );
        let nulls = self.count(&nulls)?;
        self.set_key(Some(Arc::clone(key)));
        let dups = format!(
            "SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) AS n FROM {t} AS s NOT INDEXED \
             WHERE {} GROUP BY {} HAVING count(*) > 1)",
            not_null("s", table, cols),
            keys("s", table, cols, kinds)
        );
        let dups = self.count(&dups);
        self.set_key(None);
        Ok((nulls, dups?))
    }

    fn orphans(
        &mut self,
        child: &SourceTable,
        cols: &[usize],
        parent: &SourceTable,
        pcols: &[usize],
        kinds: &[TargetKind],
        key: &Arc<KeyFn>,
        exact: bool,
    ) -> Result<u64, DbError> {
        let (c, p) = (quote(&child.name), quote(&parent.name));
        if exact {
            let matches: Vec<String> = cols
                .iter()
                .zip(pcols)
                .map(|(&a, &b)| {
                    format!(
                        "p.{} = c.{}",
                        quote(&parent.columns[b].name),
                        quote(&child.columns[a].name)
                    )
                })
                .collect();
            return self.count(&format!(
                "SELECT count(*) FROM {c} AS c NOT INDEXED WHERE {} AND NOT EXISTS \
                 (SELECT 1 FROM {p} AS p WHERE {})",
                not_null("c", child, cols),
                matches.join(" AND ")
            ));
        }
        self.set_key(Some(Arc::clone(key)));
        let n = self.count(&format!(
            "SELECT count(*) FROM {c} AS c NOT INDEXED WHERE {} AND ({}) NOT IN \
             (SELECT {} FROM {p} AS p NOT INDEXED WHERE {})",
            not_null("c", child, cols),
            keys("c", child, cols, kinds),
            keys("p", parent, pcols, kinds),
            not_null("p", parent, pcols),
        ));
        self.set_key(None);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db(sql: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        Connection::open(&path).unwrap().execute_batch(sql).unwrap();
        (dir, path)
    }

    fn text_key() -> Arc<KeyFn> {
        // Every value as its text: 1 and '1' collide, as on a TEXT target.
        Arc::new(|_k: TargetKind, v: &Value| match v {
            Value::Int(i) => i.to_string().into_bytes(),
            Value::Text(s) => s.clone().into_bytes(),
            other => format!("{other:?}").into_bytes(),
        })
    }

    /// Every row of `t`, scanned whole or part after part.
    fn rows(s: &mut SqliteSource, t: &SourceTable, parts: &[ScanPart]) -> Vec<Vec<Value>> {
        let mut seen = Vec::new();
        let mut take = |rows: &mut [Vec<Value>], _: &[LossyCell]| {
            seen.extend(rows.iter().cloned());
            Ok(())
        };
        if parts.is_empty() {
            s.scan(t, &mut take).unwrap();
        } else {
            for p in parts {
                s.scan_part(t, p, &mut take).unwrap();
            }
        }
        seen
    }

    /// A run of one id is one key, its columns in order.
    #[test]
    fn group_foreign_keys_joins_runs_of_one_id() {
        let row = |id, parent: &str, from: &str, to: Option<&str>| {
            (
                id,
                parent.to_string(),
                from.to_string(),
                to.map(String::from),
            )
        };
        let keys = group_foreign_keys(vec![
            row(0, "p", "a", Some("x")),
            row(0, "p", "b", Some("y")),
            row(1, "q", "c", None),
        ]);
        assert_eq!(
            keys,
            [
                SourceForeignKey {
                    columns: vec!["a".into(), "b".into()],
                    parent_table: "p".into(),
                    parent_columns: vec![Some("x".into()), Some("y".into())],
                },
                SourceForeignKey {
                    columns: vec!["c".into()],
                    parent_table: "q".into(),
                    parent_columns: vec![None],
                }
            ]
        );
    }

    /// Only a lone `INTEGER` key column without an index of its own is the
    /// row id.
    #[test]
    fn the_row_id_alias_is_a_lone_integer_key() {
        let columns: Vec<SourceColumn> = [("a", " integer "), ("b", "INT"), ("c", "INTEGER")]
            .iter()
            .map(|(n, d)| SourceColumn {
                name: n.to_string(),
                declared: d.to_string(),
                not_null: false,
            })
            .collect();
        assert_eq!(rowid_alias(&columns, &[0], false), Some(0));
        assert_eq!(rowid_alias(&columns, &[0], true), None);
        assert_eq!(rowid_alias(&columns, &[1], false), None);
        assert_eq!(rowid_alias(&columns, &[2, 0], false), None);
        assert_eq!(rowid_alias(&columns, &[], false), None);
    }

    /// Unique sets: a unique index on binary columns, the row id's alias;
    /// not a NOCASE index nor a partial one.
    #[test]
    fn unique_sets_hold_under_binary_comparison() {
        let (_d, path) = db("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT UNIQUE,
                              b TEXT COLLATE NOCASE UNIQUE, c INT, d INT);
             CREATE UNIQUE INDEX cd ON t (d, c);
             CREATE UNIQUE INDEX part ON t (c) WHERE c > 0;
             CREATE TABLE k (x TEXT, y INT, PRIMARY KEY (y, x));");
        let mut s = SqliteSource::open(&path).unwrap();
        let schema = s.schema().unwrap();
        let t = &schema.tables[0];
        assert_eq!(t.primary_key, [0]);
        assert_eq!(t.unique, [vec![4, 3], vec![1], vec![0]]);
        let k = &schema.tables[1];
        assert_eq!(k.primary_key, [1, 0]);
        assert_eq!(k.unique, [vec![1, 0]]);
    }

    #[test]
    fn a_large_table_splits_into_row_id_ranges_that_hold_every_row_once() {
        let (_d, path) = db("CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT);
             INSERT INTO t VALUES (-5, 'neg'), (1, 'x'), (250000, 'y'), (250001, 'z'),
               (499999, NULL), (700000, 'w'), (1000000, 'last');
             CREATE TABLE w (k TEXT PRIMARY KEY, v INT) WITHOUT ROWID;
             INSERT INTO w VALUES ('a', 1), ('b', 2);
             CREATE TABLE shadow (rowid INT, _rowid_ INT, oid INT);
             INSERT INTO shadow VALUES (1, 2, 3);
             CREATE TABLE small (v INT);
             INSERT INTO small VALUES (1), (2);");
        let mut s = SqliteSource::open(&path).unwrap();
        let schema = s.schema().unwrap();
        let t = &schema.tables[0];
        let whole = rows(&mut s, t, &[]);
        for n in [2, 3, 4] {
            let parts = s.parts(t, n).unwrap();
            assert_eq!(parts.len(), n);
            assert_eq!(parts[0].first, -5);
            assert_eq!(parts[n - 1].last, 1_000_000);
            for w in parts.windows(2) {
                assert_eq!(w[0].last + 1, w[1].first);
            }
            assert_eq!(rows(&mut s, t, &parts), whole, "{n} parts");
        }
        assert!(s.parts(t, 1).unwrap().is_empty());
        for other in &schema.tables[1..] {
            assert!(s.parts(other, 2).unwrap().is_empty(), "{}", other.name);
        }
        let mut again = match s.reopen() {
            Some(Ok(r)) => r,
            _ => panic!("a SQLite source reopens"),
        };
        let parts = s.parts(t, 2).unwrap();
        let mut n = 0;
        again
            .scan_part(t, &parts[1], &mut |rows, _| {
                n += rows.len();
                Ok(())
            })
            .unwrap();
        assert_eq!(n, 3);
    }

    #[test]
    fn schema_scan_and_keys() {
        let (_d, path) = db("PRAGMA foreign_keys = OFF;
             CREATE TABLE p (id INTEGER PRIMARY KEY, name TEXT UNIQUE);
             CREATE TABLE c (x, pid INT REFERENCES p(id), PRIMARY KEY (x));
             CREATE VIEW v AS SELECT 1;
             INSERT INTO p VALUES (1, 'a'), (2, 'b');
             INSERT INTO c VALUES ('1', 1), (1, 2), (NULL, 9), ('z', 2);");
        let mut s = SqliteSource::open(&path).unwrap();
        let schema = s.schema().unwrap();
        assert_eq!(schema.skipped, ["view `v` is not migrated"]);
        let (p, c) = (&schema.tables[0], &schema.tables[1]);
        assert_eq!(p.primary_key, [0]);
        assert!(p.unique.contains(&vec![0]) && p.unique.contains(&vec![1]));
        assert_eq!(c.foreign_keys[0].parent_table, "p");
        assert_eq!(c.unique, [vec![0]]);

        let mut seen = Vec::new();
        let n = s
            .scan(c, &mut |rows, lossy| {
                assert!(lossy.is_empty());
                seen.extend(rows.iter().map(|r| r[0].clone()));
                Ok(())
            })
            .unwrap();
        assert_eq!(n, 4);
        assert_eq!(seen[1], Value::Int(1));

        // SQLite keeps '1' and 1 apart; stored as text they collide.
        let key = text_key();
        let v = s
            .key_violations(c, &[0], &[TargetKind::Text], &key)
            .unwrap();
        assert_eq!(v, (1, 1));
        // Orphans: pid 9 has no parent.
        let exact = s
            .orphans(c, &[1], p, &[0], &[TargetKind::Integer], &key, true)
            .unwrap();
        let keyed = s
            .orphans(c, &[1], p, &[0], &[TargetKind::Integer], &key, false)
            .unwrap();
        assert_eq!((exact, keyed), (1, 1));
    }

    #[test]
    fn lossy_text_is_flagged() {
        let (_d, path) =
            db("CREATE TABLE t (a TEXT); INSERT INTO t VALUES ('ok'), (CAST(x'ff41' AS TEXT));");
        let mut s = SqliteSource::open(&path).unwrap();
        let schema = s.schema().unwrap();
        let mut all = Vec::new();
        s.scan(&schema.tables[0], &mut |_, lossy| {
            all.extend_from_slice(lossy);
            Ok(())
        })
        .unwrap();
        assert_eq!(all, [(1, 0)]);
    }
}
