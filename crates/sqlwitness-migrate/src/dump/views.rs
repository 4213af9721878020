//! The source's views carried into a database's SQLite file: the query the
//! server prints for each view ([`ServerSource::views`]) is rewritten for
//! SQLite ([`sqlwitness_sql::view_to_sqlite`]), created in the file, and
//! kept only when its rows equal the source view's rows as a multiset
//! (sqlwitness's strict comparison). A view that fails a step is dropped
//! from the file and reported with the reason: never half-created.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use sqlwitness_core::{Migrator, ResultSet, ServerSource, SourceView};

use crate::migrate::views::{create_checked, same_rows, sqlite_rows, NotCarried, ViewReport};

/// The source's views, each with its rows (or why they cannot be read),
/// read once for every database written.
pub(super) struct SourceViews(Vec<(SourceView, Result<ResultSet, NotCarried>)>);

impl SourceViews {
    /// Reads the views of `ns` and their rows. A view that calls one of
    /// `own_functions` (the functions and procedures the dump defined, by
    /// name in lower case) is not carried, and its rows are not read: no
    /// copy has the dump's code, so the copy's server would call a
    /// built-in of that name in its place (a dump's `now()` that returns a
    /// fixed time, answered by the server's clock) or refuse it.
    pub(super) fn read(
        ns: &mut dyn ServerSource,
        limit: Duration,
        grammar: sqlwitness_dialect::Grammar,
        own_functions: &BTreeSet<String>,
    ) -> Result<Self, sqlwitness_core::DbError> {
        let views = ns.views()?;
        Ok(SourceViews(
            views
                .into_iter()
                .map(|v| {
                    let rows = match calls_own(&v.definition, grammar, own_functions) {
                        Some(f) => Err(NotCarried(format!(
                            "it calls `{f}`, a function the dump defines, which no copy has \
                             (another server would call its own function of that name, or \
                             none)"
                        ))),
                        None => ns.view_rows(&v.name, limit).map_err(|e| {
                            NotCarried(format!(
                                "its rows cannot be read on the source: {}",
                                e.message
                            ))
                        }),
                    };
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
        grammar: sqlwitness_dialect::Grammar,
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
        let mut reports: Vec<ViewReport> = self
            .0
            .iter()
            .map(|(v, rows)| carry_one(&conn, grammar, v, rows, limit))
            .collect();
        // A view over another view made later: again, while that helps.
        again_while_it_helps(&mut reports, |i| {
            let (v, rows) = &self.0[i];
            carry_one(&conn, grammar, v, rows, limit)
        });
        reports
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
        let mut one = |i: usize| {
            let (v, source_rows) = &self.0[i];
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
        };
        let mut reports: Vec<ViewReport> = (0..self.0.len()).map(&mut one).collect();
        again_while_it_helps(&mut reports, one);
        reports
    }
}

/// The first of `own_functions` that `definition` calls, if any.
fn calls_own(
    definition: &str,
    grammar: sqlwitness_dialect::Grammar,
    own_functions: &BTreeSet<String>,
) -> Option<String> {
    if own_functions.is_empty() {
        return None;
    }
    sqlwitness_sql::called_names(definition, grammar)?
        .into_iter()
        .find(|n| own_functions.contains(n))
}

/// The functions and procedures among `others` ([`ServerSource::other_objects`]:
/// `function schema.name`, `procedure name` …), by name in lower case.
pub(super) fn own_functions(others: &[String]) -> BTreeSet<String> {
    others
        .iter()
        .filter_map(|o| {
            o.strip_prefix("function ")
                .or_else(|| o.strip_prefix("procedure "))
        })
        .map(|n| n.rsplit_once('.').map_or(n, |(_, f)| f).to_lowercase())
        .collect()
}

/// Tries again, pass after pass, the views not carried because a table or
/// view they read was missing (a view over a view the source listed after
/// it), as long as a pass carries one more.
fn again_while_it_helps(reports: &mut [ViewReport], mut carry: impl FnMut(usize) -> ViewReport) {
    let missing = |r: &ViewReport| {
        !r.carried
            && r.note.as_deref().is_some_and(|n| {
                n.contains("no such table")
                    || n.contains("doesn't exist")
                    || n.contains("does not exist")
            })
    };
    loop {
        let todo: Vec<usize> = (0..reports.len())
            .filter(|&i| missing(&reports[i]))
            .collect();
        let mut progress = false;
        for i in todo {
            let r = carry(i);
            progress |= r.carried;
            reports[i] = r;
        }
        if !progress {
            break;
        }
    }
}

fn carry_one(
    conn: &rusqlite::Connection,
    grammar: sqlwitness_dialect::Grammar,
    v: &SourceView,
    source_rows: &Result<ResultSet, NotCarried>,
    limit: Duration,
) -> ViewReport {
    let mut out = ViewReport {
        rows: source_rows.as_ref().ok().map(|r| r.rows.len() as u64),
        ..ViewReport::new(&v.name)
    };
    let sql = match sqlwitness_sql::view_to_sqlite(&v.definition, grammar) {
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

#[cfg(test)]
mod tests {
    use sqlwitness_dialect::Grammar;

    /// Queries as MySQL 9 and MariaDB 10.11 print them (`SHOW CREATE
    /// VIEW`), rewritten for SQLite, answer on SQLite as on the server.
    #[test]
    fn show_create_view_texts_run_on_sqlite() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE actor (actor_id INTEGER, first_name TEXT, last_name TEXT);
             CREATE TABLE film_actor (actor_id INTEGER, film_id INTEGER);
             CREATE TABLE customer (id INTEGER, first_name TEXT, last_name TEXT, active INTEGER);
             INSERT INTO actor VALUES (1, 'ÉLODIE', 'DAVIS'), (2, 'ED', 'CHASE'), (3, 'AL', NULL);
             INSERT INTO film_actor VALUES (1, 7), (2, 7), (3, 7), (1, 8);
             INSERT INTO customer VALUES (1, 'MARY', 'SMITH', 1), (2, 'LINDA', NULL, 0);",
        )
        .unwrap();
        let cases = [
            // MySQL: `length` counts bytes.
            (
                "select `fa`.`film_id` AS `film`,group_concat(concat(`a`.`first_name`,\
                 _utf8mb4' ',`a`.`last_name`) order by `a`.`last_name` ASC separator ', ') AS \
                 `actors`,sum(length(`a`.`first_name`)) AS `bytes` from (`sakila`.`actor` `a` \
                 join `sakila`.`film_actor` `fa` on((`a`.`actor_id` = `fa`.`actor_id`))) \
                 group by `fa`.`film_id`",
                "[[7, 'ED CHASE, ÉLODIE DAVIS', 11], [8, 'ÉLODIE DAVIS', 7]]",
            ),
            // MariaDB: `ucase`, `lcase`, `octet_length`.
            (
                "select `fa`.`film_id` AS `film`,group_concat(distinct concat(ucase(substr(\
                 `a`.`first_name`,1,1)),lcase(substr(`a`.`first_name`,2,octet_length(\
                 `a`.`first_name`)))) order by `a`.`first_name` ASC separator ',') AS `names` \
                 from (`actor` `a` join `film_actor` `fa` on(`a`.`actor_id` = `fa`.`actor_id`)) \
                 group by `fa`.`film_id`",
                "[[7, 'Al,Ed,Élodie'], [8, 'Élodie']]",
            ),
            (
                "select `c`.`id` AS `id`,if(`c`.`active`,_utf8mb4'active',_latin1'') AS `notes`,\
                 concat(`c`.`first_name`,_utf8mb4 X'20',`c`.`last_name`) AS `name`,\
                 cast(`c`.`id` as char charset utf8mb4) AS `label` from `customer` `c` where \
                 (`c`.`first_name` <> (_utf8mb4'BOB' collate utf8mb4_bin))",
                "[[1, 'active', 'MARY SMITH', '1'], [2, '', NULL, '2']]",
            ),
        ];
        for (def, want) in cases {
            let sql = sqlwitness_sql::view_to_sqlite(def, Grammar::Mysql).unwrap();
            let mut stmt = conn.prepare(&sql).unwrap_or_else(|e| panic!("{e}: {sql}"));
            let n = stmt.column_count();
            let got: Vec<String> = stmt
                .query_map([], |r| {
                    let cells: Vec<String> = (0..n)
                        .map(|i| match r.get_ref(i).unwrap() {
                            rusqlite::types::ValueRef::Null => "NULL".to_string(),
                            rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                            rusqlite::types::ValueRef::Text(t) => {
                                format!("'{}'", String::from_utf8_lossy(t))
                            }
                            v => format!("{v:?}"),
                        })
                        .collect();
                    Ok(format!("[{}]", cells.join(", ")))
                })
                .unwrap()
                .map(Result::unwrap)
                .collect();
            let mut got = got;
            got.sort();
            assert_eq!(format!("[{}]", got.join(", ")), want, "{sql}");
        }
    }
}
