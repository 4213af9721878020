//! The source's views carried into a database's SQLite file: the query the
//! server prints for each view ([`ServerSource::views`]) is rewritten for
//! SQLite ([`sqlwitness_sql::view_to_sqlite`]), created in the file, and
//! kept only when its rows equal the source view's rows as a multiset
//! (sqlwitness's strict comparison). A view that fails a step is dropped
//! from the file and reported with the reason: never half-created.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::Serialize;
use sqlwitness_core::{compare, CompareOptions, Column, ResultSet, ServerSource, SourceView};

/// One view of the source and what became of it in a SQLite file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ViewCarry {
    pub view: String,
    /// Created in the SQLite file, its rows equal to the source view's.
    pub carried: bool,
    /// The query as written into the SQLite file (when it could be
    /// rewritten).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sqlite_sql: Option<String>,
    /// The source view's rows (when they could be read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// Why the view was not carried.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The source's views, each with its rows (or why they cannot be read),
/// read once for every database written.
pub(super) struct SourceViews(Vec<(SourceView, Result<ResultSet, String>)>);

impl SourceViews {
    pub(super) fn read(
        ns: &mut dyn ServerSource,
        limit: Duration,
    ) -> Result<Self, sqlwitness_core::DbError> {
        let views = ns.views()?;
        Ok(SourceViews(
            views
                .into_iter()
                .map(|v| {
                    let rows = ns
                        .view_rows(&v.name, limit)
                        .map_err(|e| format!("its rows cannot be read on the source: {}", e.message));
                    (v, rows)
                })
                .collect(),
        ))
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Carries every view into the SQLite file `file` (its tables written).
    pub(super) fn carry(
        &self,
        adapter: sqlwitness_dialect::Adapter,
        file: &Path,
        limit: Duration,
    ) -> Vec<ViewCarry> {
        let conn = match rusqlite::Connection::open(file) {
            Ok(c) => c,
            Err(e) => {
                return self
                    .0
                    .iter()
                    .map(|(v, _)| ViewCarry {
                        view: v.name.clone(),
                        carried: false,
                        sqlite_sql: None,
                        rows: None,
                        note: Some(format!("the SQLite file cannot be opened: {e}")),
                    })
                    .collect()
            }
        };
        self.0
            .iter()
            .map(|(v, rows)| carry_one(&conn, adapter, v, rows, limit))
            .collect()
    }
}

fn carry_one(
    conn: &rusqlite::Connection,
    adapter: sqlwitness_dialect::Adapter,
    v: &SourceView,
    source_rows: &Result<ResultSet, String>,
    limit: Duration,
) -> ViewCarry {
    let mut out = ViewCarry {
        view: v.name.clone(),
        carried: false,
        sqlite_sql: None,
        rows: source_rows.as_ref().ok().map(|r| r.rows.len() as u64),
        note: None,
    };
    let sql = match sqlwitness_sql::view_to_sqlite(&v.definition, adapter) {
        Ok(sql) => sql,
        Err(why) => {
            out.note = Some(format!("its query {why}"));
            return out;
        }
    };
    out.sqlite_sql = Some(sql.clone());
    let source = match source_rows {
        Ok(r) => r,
        Err(why) => {
            out.note = Some(why.clone());
            return out;
        }
    };
    let name = format!("\"{}\"", v.name.replace('"', "\"\""));
    if let Err(e) = conn.execute_batch(&format!("CREATE VIEW {name} AS {sql}")) {
        out.note = Some(format!("SQLite refuses it: {e}"));
        return out;
    }
    let verdict = match sqlite_rows(conn, &name, limit) {
        Ok(mine) => {
            let c = compare(source, &mine, &CompareOptions::default());
            if c.equal {
                Ok(())
            } else {
                Err(format!(
                    "its rows on SQLite differ from the source's ({}: {} rows on the source, {} on SQLite)",
                    c.reason.map(|r| r.as_str()).unwrap_or("values"),
                    source.rows.len(),
                    mine.rows.len()
                ))
            }
        }
        Err(e) => Err(format!("SQLite cannot read it: {e}")),
    };
    match verdict {
        Ok(()) => out.carried = true,
        Err(why) => {
            if let Err(e) = conn.execute_batch(&format!("DROP VIEW IF EXISTS {name}")) {
                out.note = Some(format!("{why}; dropping it failed: {e}"));
            } else {
                out.note = Some(why);
            }
        }
    }
    out
}

/// Every row of view `name` (quoted) in the SQLite file, within `limit`.
fn sqlite_rows(
    conn: &rusqlite::Connection,
    name: &str,
    limit: Duration,
) -> Result<ResultSet, String> {
    let deadline = Instant::now() + limit;
    conn.progress_handler(10_000, Some(move || Instant::now() > deadline));
    let result = (|| {
        let mut stmt = conn
            .prepare(&format!("SELECT * FROM {name}"))
            .map_err(|e| e.to_string())?;
        let columns: Vec<Column> = stmt
            .column_names()
            .into_iter()
            .map(|c| Column::new(c, None))
            .collect();
        let width = columns.len();
        let mut rows = Vec::new();
        let mut q = stmt.query([]).map_err(|e| e.to_string())?;
        while let Some(r) = q.next().map_err(|e| e.to_string())? {
            let mut row = Vec::with_capacity(width);
            for i in 0..width {
                row.push(sqlwitness_engines::sqlite_value(
                    r.get_ref(i).map_err(|e| e.to_string())?,
                ));
            }
            rows.push(row);
        }
        Ok(ResultSet::new(columns, rows))
    })();
    conn.progress_handler(0, None::<fn() -> bool>);
    result.map_err(|e: String| {
        if Instant::now() > deadline {
            format!("still running after {} s", limit.as_secs())
        } else {
            e
        }
    })
}
