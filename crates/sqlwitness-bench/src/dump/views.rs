//! The source's views carried into a database's SQLite file: the query the
//! server prints for each view ([`ServerSource::views`]) is rewritten for
//! SQLite ([`sqlwitness_sql::view_to_sqlite`]), created in the file, and
//! kept only when its rows equal the source view's rows as a multiset
//! (sqlwitness's strict comparison). A view that fails a step is dropped
//! from the file and reported with the reason: never half-created.

use std::path::Path;
use std::time::Duration;

use sqlwitness_core::{Migrator, ResultSet, ServerSource, SourceView};

use crate::migrate::views::{create_checked, same_rows, sqlite_rows, NotCarried, ViewReport};

/// The source's views, each with its rows (or why they cannot be read),
/// read once for every database written.
pub(super) struct SourceViews(Vec<(SourceView, Result<ResultSet, NotCarried>)>);

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
                    let rows = ns.view_rows(&v.name, limit).map_err(|e| {
                        NotCarried(format!(
                            "its rows cannot be read on the source: {}",
                            e.message
                        ))
                    });
                    (v, rows)
                })
                .collect(),
        ))
    }

    pub(super) fn none() -> Self {
        SourceViews(Vec::new())
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
    ) -> Vec<ViewReport> {
        let conn = match rusqlite::Connection::open(file) {
            Ok(c) => c,
            Err(e) => {
                return self
                    .0
                    .iter()
                    .map(|(v, _)| ViewReport {
                        note: Some(format!("the SQLite file cannot be opened: {e}")),
                        ..ViewReport::new(&v.name)
                    })
                    .collect()
            }
        };
        self.0
            .iter()
            .map(|(v, rows)| carry_one(&conn, adapter, v, rows, limit))
            .collect()
    }

    /// Carries every view into namespace `target` of `w`: the copy of the
    /// source's tables on its own engine (copied and granted to the
    /// reader), where golds that read a view are answered. Each view's
    /// query, as the source's server printed it with the source's own
    /// names left out, is created in `target` and kept when its rows there
    /// equal the source view's ([`create_checked`]: the guard first, read
    /// back by the reader login). Views come in the order the source made
    /// them, so a view over another view finds it.
    pub(super) fn carry_to_copy(
        &self,
        w: &mut dyn Migrator,
        target: &str,
        dialect: &sqlwitness_dialect::Dialect,
    ) -> Vec<ViewReport> {
        self.0
            .iter()
            .map(|(v, source_rows)| {
                let mut r = ViewReport {
                    sql: Some(v.definition.clone()),
                    ..ViewReport::new(&v.name)
                };
                match source_rows {
                    Ok(source) => {
                        r.rows = Some(source.rows.len() as u64);
                        create_checked(w, target, dialect, &mut r, &v.definition, source);
                    }
                    Err(why) => r.note = Some(why.0.clone()),
                }
                r
            })
            .collect()
    }
}

fn carry_one(
    conn: &rusqlite::Connection,
    adapter: sqlwitness_dialect::Adapter,
    v: &SourceView,
    source_rows: &Result<ResultSet, NotCarried>,
    limit: Duration,
) -> ViewReport {
    let mut out = ViewReport {
        rows: source_rows.as_ref().ok().map(|r| r.rows.len() as u64),
        ..ViewReport::new(&v.name)
    };
    let sql = match sqlwitness_sql::view_to_sqlite(&v.definition, adapter) {
        Ok(sql) => sql,
        Err(why) => {
            out.note = Some(format!("its query {why}"));
            return out;
        }
    };
    out.sql = Some(sql.clone());
    let source = match source_rows {
        Ok(r) => r,
        Err(why) => {
            out.note = Some(why.0.clone());
            return out;
        }
    };
    let name = format!("\"{}\"", v.name.replace('"', "\"\""));
    if let Err(e) = conn.execute_batch(&format!("CREATE VIEW {name} AS {sql}")) {
        out.note = Some(format!("SQLite refuses it: {e}"));
        return out;
    }
    let verdict = match sqlite_rows(conn, &v.name, limit) {
        Ok(mine) => same_rows(source, &mine, "SQLite"),
        Err(e) => Err(NotCarried(format!("SQLite cannot read it: {e}"))),
    };
    match verdict {
        Ok(()) => out.carried = true,
        Err(why) => {
            if let Err(e) = conn.execute_batch(&format!("DROP VIEW IF EXISTS {name}")) {
                out.note = Some(format!("{why}; dropping it failed: {e}"));
            } else {
                out.note = Some(why.0);
            }
        }
    }
    out
}
