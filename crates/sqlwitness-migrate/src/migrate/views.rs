//! Views carried between engines, checked on data: a view is kept on its
//! target only when its rows there equal its rows on the side it came from
//! as a multiset (sqlwitness's strict comparison); a view that fails a step
//! is dropped and reported with the reason, never left half-made.
//!
//! `migrate` carries a SQLite database's views to each server: SQLite's
//! query (from `sqlite_master`) is translated with the target dialect's
//! `translations` ([`sqlwitness_sql::translate`], as dialect golds are),
//! held to the guard that holds predictions (`sqlwitness-guard`: one
//! read-only query of the copy's own namespace), created after the tables
//! are loaded, and read on both sides; on the server by the reader login.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sqlwitness_core::{
    compare, Column, CompareOptions, DbError, Migrator, ResultSet, SourceSchema,
};
use sqlwitness_dialect::Dialect;

/// How long a view's rows may take to read, on each side.
pub(crate) const VIEW_READ_LIMIT: Duration = Duration::from_secs(60);

/// The most a view's rows may hold, in bytes of values, to be compared:
/// a view is benchmark input, and its rows are held whole while they are
/// checked (the limit of one query's result).
pub(crate) const VIEW_MAX_BYTES: usize = sqlwitness_core::DEFAULT_MAX_RESULT_BYTES;

/// The most rows a view may have to be compared (the row limit of one
/// query's result).
pub(crate) const VIEW_MAX_ROWS: usize = 1_000_000;

/// Why a view is not carried (for the report).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct NotCarried(pub String);

/// One view and what became of it on a target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewReport {
    pub view: String,
    /// Created on the target, its rows equal to the source view's.
    pub carried: bool,
    /// The query as written on the target (when it could be written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql: Option<String>,
    /// The source view's rows (when they could be read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// Why the view was not carried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl ViewReport {
    pub(crate) fn new(view: &str) -> Self {
        ViewReport {
            view: view.to_string(),
            carried: false,
            sql: None,
            rows: None,
            note: None,
        }
    }
}

/// The views of a SQLite file: name and `CREATE VIEW` text, in creation
/// order.
pub(crate) fn sqlite_views(path: &Path) -> Result<Vec<(String, String)>, DbError> {
    let fail = |e: rusqlite::Error| DbError::connection(format!("{}: {e}", path.display()));
    let conn = rusqlite::Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(fail)?;
    let mut stmt = conn
        .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'view' ORDER BY rowid")
        .map_err(fail)?;
    let rows = stmt
        .query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?))
        })
        .map_err(fail)?;
    rows.map(|r| r.map(|(n, s)| (n, s.unwrap_or_default())))
        .collect::<Result<_, _>>()
        .map_err(fail)
}

/// Every row of view `name` in the SQLite database `conn`, within `limit`
/// [`VIEW_MAX_ROWS`] and [`VIEW_MAX_BYTES`].
pub(crate) fn sqlite_rows(
    conn: &rusqlite::Connection,
    name: &str,
    limit: Duration,
) -> Result<ResultSet, NotCarried> {
    let quoted = format!("\"{}\"", name.replace('"', "\"\""));
    let deadline = Instant::now() + limit;
    conn.progress_handler(10_000, Some(move || Instant::now() > deadline));
    let result = (|| {
        let mut stmt = conn
            .prepare(&format!("SELECT * FROM {quoted}"))
            .map_err(|e| e.to_string())?;
        let columns: Vec<Column> = stmt
            .column_names()
            .into_iter()
            .map(|c| Column::new(c, None))
            .collect();
        let width = columns.len();
        let mut rows = Vec::new();
        let mut bytes = 0usize;
        let mut q = stmt.query([]).map_err(|e| e.to_string())?;
        while let Some(r) = q.next().map_err(|e| e.to_string())? {
            let mut row = Vec::with_capacity(width);
            for i in 0..width {
                let v = sqlwitness_engines::sqlite_value(r.get_ref(i).map_err(|e| e.to_string())?);
                bytes += v.heap_size();
                row.push(v);
            }
            if rows.len() == VIEW_MAX_ROWS {
                return Err(format!(
                    "it has more than {VIEW_MAX_ROWS} rows, too many to compare"
                ));
            }
            if bytes > VIEW_MAX_BYTES {
                return Err(format!(
                    "its rows hold more than {} MiB of values, too many to compare",
                    VIEW_MAX_BYTES >> 20
                ));
            }
            rows.push(row);
        }
        Ok(ResultSet::new(columns, rows))
    })();
    conn.progress_handler(0, None::<fn() -> bool>);
    result.map_err(|e: String| {
        NotCarried(if Instant::now() > deadline {
            format!("still running after {} s", limit.as_secs())
        } else {
            e
        })
    })
}

/// Whether `theirs` holds the rows of `source` (a multiset); why not.
pub(crate) fn same_rows(
    source: &ResultSet,
    theirs: &ResultSet,
    side: &str,
) -> Result<(), NotCarried> {
    // No rows on either side: the same (empty) answer, whatever columns a
    // side reports for a result without rows.
    if source.rows.is_empty() && theirs.rows.is_empty() {
        return Ok(());
    }
    let c = compare(source, theirs, &CompareOptions::default());
    if c.equal {
        Ok(())
    } else {
        Err(NotCarried(format!(
            "its rows on {side} differ from the source's ({}: {} rows on the source, {} on {side})",
            c.reason.map(|r| r.as_str()).unwrap_or("values"),
            source.rows.len(),
            theirs.rows.len()
        )))
    }
}

/// Carries the SQLite file's `views` into namespace `ns` of `w` (its tables
/// loaded): each translated for `dialect`, created, and kept when its rows
/// equal SQLite's.
pub(crate) fn carry_to_server(
    w: &mut dyn Migrator,
    ns: &str,
    dialect: &Dialect,
    sqlite_path: &Path,
    schema: &SourceSchema,
    views: &[(String, String)],
) -> Vec<ViewReport> {
    let info = schema_info(schema);
    let conn = rusqlite::Connection::open_with_flags(
        sqlite_path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    );
    views
        .iter()
        .map(|(name, create)| {
            let mut r = ViewReport::new(name);
            let conn = match &conn {
                Ok(c) => c,
                Err(e) => {
                    r.note = Some(format!("the SQLite file cannot be opened: {e}"));
                    return r;
                }
            };
            let query = match sqlwitness_sql::sqlite_view_query(create) {
                Ok(q) => q,
                Err(why) => {
                    r.note = Some(format!("its definition {why}"));
                    return r;
                }
            };
            // SQLite's own rows first: a view SQLite cannot read is not
            // sent to the server.
            let source = match sqlite_rows(conn, name, VIEW_READ_LIMIT) {
                Ok(rows) => rows,
                Err(why) => {
                    r.note = Some(format!("SQLite cannot read it: {why}"));
                    return r;
                }
            };
            r.rows = Some(source.rows.len() as u64);
            // A MySQL view carried into SQLite keeps MySQL's backquotes,
            // which an engine quoting names with `"` does not read.
            let query = if dialect.identifiers.quote == '"' {
                sqlwitness_sql::standard_quotes(&query)
            } else {
                query
            };
            let sql = sqlwitness_sql::translate(&query, &dialect.translations, &info)
                .map(|t| t.sql)
                .unwrap_or(query);
            r.sql = Some(sql.clone());
            create_checked(w, ns, dialect, &mut r, &sql, &source);
            r
        })
        .collect()
}

/// Creates view `r.view` with query `sql` in namespace `ns` of `w` and
/// keeps it when its rows there equal `source`; else drops it and says why
/// in `r.note`. The query is benchmark input sent to a server under the
/// administrative login: it must first pass the guard predictions pass (one
/// read-only query of `ns`, read by the server's own lexical rules), and
/// the server reads it back as the reader login ([`Migrator::create_view`]).
pub(crate) fn create_checked(
    w: &mut dyn Migrator,
    ns: &str,
    dialect: &Dialect,
    r: &mut ViewReport,
    sql: &str,
    source: &ResultSet,
) {
    let options = sqlwitness_guard::GuardOptions::default().in_namespace(ns);
    if let Err(e) = sqlwitness_guard::guard_with(sql, dialect, &options) {
        r.note = Some(format!("the guard refuses it: {}", e.message));
        return;
    }
    let verdict = match w.create_view(ns, &r.view, sql, VIEW_READ_LIMIT) {
        Ok(rows) => same_rows(source, &rows, &dialect.name),
        Err(e) => Err(NotCarried(format!("the server refuses it: {}", e.message))),
    };
    match verdict {
        Ok(()) => r.carried = true,
        Err(why) => {
            r.note = Some(match w.drop_view(ns, &r.view) {
                Ok(()) => why.0,
                Err(e) => format!("{why}; dropping it failed: {}", e.message),
            })
        }
    }
}

/// The schema the translation reads (tables, columns, declared types).
fn schema_info(schema: &SourceSchema) -> sqlwitness_sql::SchemaInfo {
    sqlwitness_sql::SchemaInfo::new(
        schema
            .tables
            .iter()
            .map(|t| sqlwitness_sql::TableInfo {
                name: t.name.clone(),
                columns: t.columns.iter().map(|c| c.name.clone()).collect(),
                types: t.columns.iter().map(|c| c.declared.clone()).collect(),
                ..Default::default()
            })
            .collect(),
    )
}
