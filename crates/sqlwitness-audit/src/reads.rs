//! What a rerun on reshuffled rows needs: the tables a query reads, as
//! SQLite itself resolves them when it prepares the statement (its
//! authorizer reports every table read, through views, subqueries and
//! common table expressions), and which of those tables a reshuffle can
//! change at all.
//!
//! A table whose rows are stored in key order — one whose `INTEGER PRIMARY
//! KEY` is its rowid, or a `WITHOUT ROWID` table — is the same B-tree
//! whatever order its rows are inserted in, and so are its indexes (their
//! entries end with that key): a reshuffled copy of it is the original. A
//! query that reads only such tables answers on every reshuffled copy as on
//! the original, unless it calls a function whose value changes between
//! runs (`random()`, `date('now')`, …).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::{Connection, ErrorCode};

use crate::schema::quote;

/// What a rerun of one query on reshuffled copies needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Needs {
    /// Nothing: the copies would be the original for every table it reads
    /// (or it does not prepare on SQLite, so it fails there as on the
    /// original). Its reruns would answer as the original.
    Nothing,
    /// Copies of these tables (exact names), at least one of which a
    /// reshuffle reorders, or that it reads with a function that changes
    /// between runs.
    Tables(BTreeSet<String>),
    /// Copies of the whole database: what it reads cannot be told (a view,
    /// a virtual table, the schema table, a table-valued pragma, …).
    Everything,
}

/// One table of the database.
#[derive(Debug, Clone)]
pub(crate) struct Table {
    /// The name as stored in the schema.
    pub name: String,
    /// Whether inserting its rows in another order gives another table
    /// (rowid tables without an `INTEGER PRIMARY KEY`).
    pub reorders: bool,
}

/// The ordinary tables of one SQLite database (not views, virtual or shadow
/// tables, nor SQLite's own), by lower-cased name.
#[derive(Debug, Clone, Default)]
pub(crate) struct TableFacts {
    tables: BTreeMap<String, Table>,
}

impl TableFacts {
    /// Reads the facts from the open database.
    pub fn read(conn: &Connection) -> rusqlite::Result<TableFacts> {
        let listed: Vec<(String, String, bool)> = conn
            .prepare("SELECT name, type, wr FROM pragma_table_list WHERE schema = 'main'")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? != 0)))?
            .collect::<Result<_, _>>()?;
        let mut tables = BTreeMap::new();
        for (name, kind, without_rowid) in listed {
            if kind != "table" || name.to_ascii_lowercase().starts_with("sqlite_") {
                continue;
            }
            let reorders = !without_rowid && !rowid_is_key(conn, &name)?;
            tables.insert(name.to_ascii_lowercase(), Table { name, reorders });
        }
        Ok(TableFacts { tables })
    }

    /// The table named `name` (SQLite folds the case of ASCII letters).
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.get(&name.to_ascii_lowercase())
    }

    /// Every table.
    pub fn all(&self) -> impl Iterator<Item = &Table> {
        self.tables.values()
    }

    /// What a reshuffled rerun of `sql` needs, prepared (never run) on
    /// `conn`, a connection to the original database.
    pub fn needs(&self, conn: &Connection, sql: &str) -> Needs {
        let seen: Arc<Mutex<Seen>> = Arc::default();
        let log = Arc::clone(&seen);
        conn.authorizer(Some(move |ctx: AuthContext<'_>| {
            let mut s = log.lock().unwrap_or_else(|e| e.into_inner());
            match ctx.action {
                AuthAction::Select | AuthAction::Recursive => {}
                AuthAction::Read { table_name, .. } => {
                    // A table read for none of its columns (`count(*)`)
                    // comes without a database name.
                    if matches!(ctx.database_name, None | Some("main")) {
                        s.tables.insert(table_name.to_string());
                    } else {
                        s.opaque = true;
                    }
                }
                AuthAction::Function { function_name } => {
                    s.functions.insert(function_name.to_ascii_lowercase());
                }
                _ => s.opaque = true,
            }
            Authorization::Allow
        }));
        let prepared = conn.prepare(sql).map(|_| ());
        conn.authorizer(None::<fn(AuthContext<'_>) -> Authorization>);
        match prepared {
            Ok(()) => {}
            // An ordinary SQL error (no such column, syntax, …): it fails
            // on the original as on any copy, so the audit never reruns it.
            Err(
                rusqlite::Error::SqliteFailure(e, _)
                | rusqlite::Error::SqlInputError { error: e, .. },
            ) if e.code == ErrorCode::Unknown => return Needs::Nothing,
            Err(_) => return Needs::Everything,
        }
        let seen = std::mem::take(&mut *seen.lock().unwrap_or_else(|e| e.into_inner()));
        if seen.opaque {
            return Needs::Everything;
        }
        let mut tables = BTreeSet::new();
        let mut reorders = false;
        for name in &seen.tables {
            match self.table(name) {
                Some(t) => {
                    reorders |= t.reorders;
                    tables.insert(t.name.clone());
                }
                None => return Needs::Everything,
            }
        }
        if reorders || volatile(sql, &seen.functions) {
            Needs::Tables(tables)
        } else {
            Needs::Nothing
        }
    }
}

#[derive(Default)]
struct Seen {
    tables: BTreeSet<String>,
    functions: BTreeSet<String>,
    /// Something other than a table of `main` is read, or another action.
    opaque: bool,
}

/// Whether a query that calls `functions` can answer otherwise on a rerun
/// of the same data: a random function, one that reports on the
/// connection, or a date function of the current time (`'now'`, no
/// argument) or the `CURRENT_*` keywords.
fn volatile(sql: &str, functions: &BTreeSet<String>) -> bool {
    const RANDOM: &[&str] = &[
        "random",
        "randomblob",
        "changes",
        "total_changes",
        "last_insert_rowid",
    ];
    const DATES: &[&str] = &[
        "date",
        "time",
        "datetime",
        "julianday",
        "strftime",
        "unixepoch",
        "timediff",
    ];
    let text = sql.to_ascii_lowercase();
    functions.iter().any(|f| RANDOM.contains(&f.as_str()))
        || text.contains("current_")
        || (functions.iter().any(|f| DATES.contains(&f.as_str()))
            && (text.contains("now") || text.contains("()")))
}

/// Whether the table's rowid is its primary key (a single `INTEGER PRIMARY
/// KEY` column): a primary key that is not the rowid has an index of its
/// own, listed with origin `pk`.
fn rowid_is_key(conn: &Connection, table: &str) -> rusqlite::Result<bool> {
    let q = quote(table);
    let pk_columns: i64 = conn.query_row(
        &format!(
            "SELECT count(*) FROM pragma_table_info({}) WHERE pk > 0",
            sql_string(table)
        ),
        [],
        |r| r.get(0),
    )?;
    if pk_columns != 1 {
        return Ok(false);
    }
    let pk_index: bool = conn
        .prepare(&format!("PRAGMA index_list({q})"))?
        .query_map([], |r| r.get::<_, String>(3))?
        .collect::<Result<Vec<_>, _>>()?
        .iter()
        .any(|origin| origin == "pk");
    Ok(!pk_index)
}

/// `s` as a SQL string literal.
fn sql_string(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> Connection {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(
            "CREATE TABLE keyed (id INTEGER PRIMARY KEY, name TEXT, age INT);
             CREATE TABLE \"Keyed Too\" (id INTEGER NOT NULL, x TEXT, PRIMARY KEY (id));
             CREATE TABLE pair (a INT, b TEXT, c REAL, PRIMARY KEY (a, b));
             CREATE TABLE loose (name TEXT, sales INT);
             CREATE TABLE textkey (code TEXT PRIMARY KEY, v INT);
             CREATE TABLE nowid (k INT PRIMARY KEY, v INT) WITHOUT ROWID;
             CREATE VIEW busy AS SELECT name FROM loose WHERE sales > 1;",
        )
        .unwrap();
        c
    }

    fn tables(names: &[&str]) -> Needs {
        Needs::Tables(names.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn facts_tell_which_tables_a_reshuffle_reorders() {
        let c = db();
        let f = TableFacts::read(&c).unwrap();
        let reorders = |n: &str| f.table(n).unwrap().reorders;
        assert!(!reorders("keyed"));
        assert!(!reorders("keyed too"));
        assert!(!reorders("nowid"));
        assert!(reorders("pair"));
        assert!(reorders("loose"));
        assert!(reorders("textkey"));
        assert!(f.table("busy").is_none(), "a view is not a table");
        assert_eq!(f.all().count(), 6);
    }

    #[test]
    fn needs_follow_the_tables_read() {
        let c = db();
        let f = TableFacts::read(&c).unwrap();
        // Only tables stored in key order: a copy would be the original.
        assert_eq!(
            f.needs(&c, "SELECT name FROM keyed ORDER BY age DESC LIMIT 1"),
            Needs::Nothing
        );
        assert_eq!(
            f.needs(&c, "SELECT count(*) FROM keyed, \"KEYED TOO\""),
            Needs::Nothing
        );
        // A table read without any of its columns still counts.
        assert_eq!(
            f.needs(&c, "SELECT count(*) FROM keyed, loose"),
            tables(&["keyed", "loose"])
        );
        assert_eq!(
            f.needs(
                &c,
                "WITH t AS (SELECT a FROM pair) SELECT * FROM (SELECT a FROM t) WHERE a IN (SELECT id FROM keyed)"
            ),
            tables(&["keyed", "pair"])
        );
        // A random function changes the answer even on the same data.
        assert_eq!(
            f.needs(&c, "SELECT name FROM keyed ORDER BY random() LIMIT 1"),
            tables(&["keyed"])
        );
        assert_eq!(
            f.needs(&c, "SELECT date('now') FROM keyed"),
            tables(&["keyed"])
        );
        // Fails on the original as everywhere: never rerun.
        assert_eq!(f.needs(&c, "SELECT nope FROM keyed"), Needs::Nothing);
        // What cannot be told: the whole database.
        assert_eq!(
            f.needs(&c, "SELECT name FROM sqlite_master"),
            Needs::Everything
        );
        assert_eq!(
            f.needs(&c, "SELECT * FROM pragma_table_info('keyed')"),
            Needs::Everything
        );
        assert_eq!(f.needs(&c, "SELECT 1; SELECT 2"), Needs::Everything);
    }

    #[test]
    fn a_view_needs_the_whole_database() {
        let c = db();
        let f = TableFacts::read(&c).unwrap();
        // SQLite reports the view's tables and the view itself: a copy
        // of the tables would lack the view.
        assert_eq!(f.needs(&c, "SELECT * FROM busy"), Needs::Everything);
    }
}
