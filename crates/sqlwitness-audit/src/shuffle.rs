//! Copies of a SQLite database with the rows of its tables physically
//! reshuffled, in a temporary directory (the original is never touched).
//!
//! Seed 0 reverses each table's row order; seed `s > 0` orders rows by
//! `(rowid · 2654435761 + s · 40503) mod 4294967311`, a fixed permutation
//! per seed. A table whose `INTEGER PRIMARY KEY` is its rowid (or a
//! `WITHOUT ROWID` table) keeps its physical order, since the order is the
//! key itself; only the other tables and index ties are reshuffled.
//!
//! [`Reshuffles`] builds, per seed, one copy holding only the tables the
//! audited queries read, and only when one of them reads a table a
//! reshuffle reorders (see [`crate::reads`]): the cost follows what the
//! queries read, not the size of the database. [`shuffled_copies`] copies
//! the whole file, for what cannot be told from the queries.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use sqlwitness_core::Database;

use crate::reads::{Needs, Table, TableFacts};
use crate::schema::quote;
use crate::AuditError;

/// Makes shuffled copies of the whole of `src` under `dir`, one per seed.
pub fn shuffled_copies(src: &Path, dir: &Path, seeds: &[u64]) -> Result<Vec<PathBuf>, AuditError> {
    let mut out = Vec::new();
    for &seed in seeds {
        let dst = copy_path(src, dir, seed);
        std::fs::copy(src, &dst).map_err(|source| AuditError::Io {
            path: dst.clone(),
            source,
        })?;
        shuffle_in_place(&dst, seed).map_err(|source| AuditError::Sqlite {
            path: dst.clone(),
            source,
        })?;
        out.push(dst);
    }
    Ok(out)
}

fn copy_path(src: &Path, dir: &Path, seed: u64) -> PathBuf {
    let stem = src.file_stem().and_then(|s| s.to_str()).unwrap_or("db");
    dir.join(format!("{stem}.shuffle{seed}.sqlite"))
}

/// The `ORDER BY` of seed `seed` over a rowid expression.
fn permutation(rowid: &str, seed: u64) -> String {
    if seed == 0 {
        format!("{rowid} DESC")
    } else {
        format!("({rowid} * 2654435761 + {}) % 4294967311", seed * 40503)
    }
}

fn shuffle_in_place(path: &Path, seed: u64) -> rusqlite::Result<()> {
    let mut conn = Connection::open(path)?;
    conn.execute_batch("PRAGMA foreign_keys = OFF; PRAGMA journal_mode = OFF;")?;
    let triggers: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let tables: Vec<String> = conn
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
        )?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let tx = conn.transaction()?;
    for t in triggers {
        tx.execute_batch(&format!("DROP TRIGGER {}", quote(&t)))?;
    }
    let order = permutation("__sw_rid", seed);
    for t in tables {
        let q = quote(&t);
        let list = column_list(&tx, "main", &t)?;
        // WITHOUT ROWID tables have no rowid: their order is their key.
        if tx
            .execute_batch(&format!(
                "CREATE TEMP TABLE __sw_s AS SELECT rowid AS __sw_rid, {list} FROM {q}"
            ))
            .is_err()
        {
            continue;
        }
        tx.execute_batch(&format!(
            "DELETE FROM {q}; INSERT INTO {q} ({list}) SELECT {list} FROM temp.__sw_s ORDER BY {order}; DROP TABLE temp.__sw_s;"
        ))?;
    }
    tx.commit()
}

/// The quoted column list of `schema.table` (the columns an `INSERT` names).
fn column_list(conn: &Connection, schema: &str, table: &str) -> rusqlite::Result<String> {
    let cols: Vec<String> = conn
        .prepare(&format!(
            "PRAGMA {}.table_info({})",
            quote(schema),
            quote(table)
        ))?
        .query_map([], |r| r.get::<_, String>(1))?
        .collect::<Result<_, _>>()?;
    Ok(cols.iter().map(|c| quote(c)).collect::<Vec<_>>().join(", "))
}

/// The page cache of a connection writing a copy, in KiB: inserting rows
/// in another order than their indexes' touches index pages at random,
/// which SQLite's default 2 MiB cache turns into rereads.
const COPY_CACHE_KIB: u32 = 64 * 1024;

/// Writes a new database at `dst` holding `tables` of `src` — their
/// definitions, rows (reordered by seed `seed` where the table's order can
/// change), indexes (built after the rows) and planner statistics — and
/// nothing else. `src` is attached read-only.
fn copy_tables(src: &Path, dst: &Path, tables: &[&Table], seed: u64) -> rusqlite::Result<()> {
    let source = Connection::open_with_flags(src, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let encoding: String = source.query_row("PRAGMA encoding", [], |r| r.get(0))?;
    let page_size: i64 = source.query_row("PRAGMA page_size", [], |r| r.get(0))?;
    let stats: Vec<String> = source
        .prepare(
            "SELECT name FROM sqlite_master WHERE name IN ('sqlite_stat1', 'sqlite_stat4') \
             ORDER BY name",
        )?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    drop(source);
    let _ = std::fs::remove_file(dst);
    let mut conn = Connection::open(dst)?;
    conn.execute_batch(&format!(
        "PRAGMA encoding = '{encoding}'; PRAGMA page_size = {page_size}; \
         PRAGMA foreign_keys = OFF; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; \
         PRAGMA cache_size = -{COPY_CACHE_KIB};"
    ))?;
    conn.execute("ATTACH DATABASE ?1 AS __sw_src", [read_only_uri(src)])?;
    let tx = conn.transaction()?;
    let mut indexes = Vec::new();
    for t in tables {
        let objects: Vec<(String, Option<String>)> = tx
            .prepare(
                "SELECT type, sql FROM __sw_src.sqlite_master \
                 WHERE tbl_name = ?1 AND type IN ('table', 'index') ORDER BY type DESC",
            )?
            .query_map([&t.name], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        for (kind, sql) in objects {
            match (kind.as_str(), sql) {
                ("table", Some(sql)) => tx.execute_batch(&sql)?,
                ("index", Some(sql)) => indexes.push(sql),
                // Indexes of constraints come with the table.
                _ => {}
            }
        }
        let q = quote(&t.name);
        let list = column_list(&tx, "__sw_src", &t.name)?;
        let order = if t.reorders {
            format!(" ORDER BY {}", permutation("rowid", seed))
        } else {
            String::new()
        };
        tx.execute_batch(&format!(
            "INSERT INTO main.{q} ({list}) SELECT {list} FROM __sw_src.{q}{order}"
        ))?;
    }
    for sql in indexes {
        tx.execute_batch(&sql)?;
    }
    if !stats.is_empty() {
        // `ANALYZE sqlite_schema` creates the statistics tables without
        // computing any; the original's rows for these tables fill them,
        // so the planner sees what it sees on the original.
        tx.execute_batch("ANALYZE main.sqlite_schema")?;
        for stat in &stats {
            let here: i64 = tx.query_row(
                "SELECT count(*) FROM main.sqlite_master WHERE name = ?1",
                [stat],
                |r| r.get(0),
            )?;
            if here == 0 {
                // This SQLite keeps no such statistics: its planner
                // would not read them.
                continue;
            }
            tx.execute_batch(&format!("DELETE FROM main.{stat}"))?;
            let mut insert = tx.prepare(&format!(
                "INSERT INTO main.{stat} SELECT * FROM __sw_src.{stat} WHERE tbl = ?1"
            ))?;
            for t in tables {
                insert.execute([&t.name])?;
            }
        }
    }
    tx.commit()?;
    conn.execute_batch("DETACH DATABASE __sw_src")
}

/// A `file:` URI that opens `path` read-only.
fn read_only_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for ch in path.to_string_lossy().chars() {
        match ch {
            '%' => uri.push_str("%25"),
            '?' => uri.push_str("%3f"),
            '#' => uri.push_str("%23"),
            c => uri.push(c),
        }
    }
    uri.push_str("?mode=ro");
    uri
}

/// The reshuffled copies of one database, and for each audited query the
/// copies its reruns go to.
#[derive(Debug, Default)]
pub struct Reshuffles {
    seeds: Vec<u64>,
    /// `(seed, copy)` pairs, in seed order; empty when no query needs one.
    copies: Vec<(u64, Database)>,
    /// The tables the copies hold (`None`: whole copies).
    holds: Option<BTreeSet<String>>,
    /// What each planned query needs.
    needs: HashMap<String, Needs>,
}

impl Reshuffles {
    /// Builds under `dir`, one per seed, the copies of `db` that reruns of
    /// `queries` need: none when every query reads only tables a reshuffle
    /// cannot reorder; else a copy of the tables they read; the whole file
    /// when what one reads cannot be told.
    pub fn build(
        db: &Database,
        dir: &Path,
        seeds: &[u64],
        queries: &[&str],
    ) -> Result<Reshuffles, AuditError> {
        let src = db.sqlite_path.as_path();
        let sqlite = |source| AuditError::Sqlite {
            path: src.to_path_buf(),
            source,
        };
        let conn =
            Connection::open_with_flags(src, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(sqlite)?;
        let facts = TableFacts::read(&conn).map_err(sqlite)?;
        let needs: HashMap<String, Needs> = queries
            .iter()
            .map(|q| (q.to_string(), facts.needs(&conn, q)))
            .collect();
        drop(conn);
        let mut out = Reshuffles {
            seeds: seeds.to_vec(),
            copies: Vec::new(),
            holds: None,
            needs,
        };
        if seeds.is_empty() {
            return Ok(out);
        }
        let mut holds: Option<BTreeSet<String>> = Some(BTreeSet::new());
        for n in out.needs.values() {
            match n {
                Needs::Everything => holds = None,
                Needs::Tables(t) => {
                    if let Some(h) = holds.as_mut() {
                        h.extend(t.iter().cloned());
                    }
                }
                Needs::Nothing => {}
            }
        }
        if let Some(h) = &holds {
            if h.is_empty() {
                out.holds = holds;
                return Ok(out);
            }
            let tables: Vec<&Table> = facts.all().filter(|t| h.contains(&t.name)).collect();
            // Where the tables cannot be copied on their own (a
            // definition that does not replay in a new file, …) or a query
            // does not prepare on the copy (it reads something the copy
            // lacks): whole copies instead, which report their own errors.
            if let Some(copies) = out.copy_subset(db, dir, &tables) {
                out.copies = copies;
                out.holds = holds;
                return Ok(out);
            }
        }
        out.copies = shuffled_copies(src, dir, seeds)?
            .into_iter()
            .zip(seeds)
            .map(|(p, s)| (*s, Database::new(db.db_id.clone(), p)))
            .collect();
        out.holds = None;
        for n in out.needs.values_mut() {
            if *n != Needs::Nothing {
                *n = Needs::Everything;
            }
        }
        Ok(out)
    }

    /// Copies `tables` once per seed and checks that every query that
    /// needs them prepares on the first copy; `None` (the copies removed)
    /// when a copy fails or a query does not prepare.
    fn copy_subset(
        &self,
        db: &Database,
        dir: &Path,
        tables: &[&Table],
    ) -> Option<Vec<(u64, Database)>> {
        let src = db.sqlite_path.as_path();
        let mut copies = Vec::new();
        let mut complete = true;
        for &seed in &self.seeds {
            let dst = copy_path(src, dir, seed);
            let made = copy_tables(src, &dst, tables, seed);
            copies.push((seed, Database::new(db.db_id.clone(), dst)));
            if made.is_err() {
                complete = false;
                break;
            }
        }
        if complete {
            let first = &copies[0].1.sqlite_path;
            complete = Connection::open_with_flags(first, OpenFlags::SQLITE_OPEN_READ_ONLY)
                .is_ok_and(|check| {
                    self.needs
                        .iter()
                        .filter(|(_, n)| matches!(n, Needs::Tables(_)))
                        .all(|(q, _)| check.prepare(q).is_ok())
                });
        }
        if complete {
            return Some(copies);
        }
        for (_, c) in &copies {
            let _ = std::fs::remove_file(&c.sqlite_path);
        }
        None
    }

    /// No reshuffled copies (no seeds).
    pub fn none() -> Reshuffles {
        Reshuffles::default()
    }

    /// The seeds asked for.
    pub fn seeds(&self) -> &[u64] {
        &self.seeds
    }

    /// The copies built (none when no query needs one).
    pub fn copies(&self) -> &[(u64, Database)] {
        &self.copies
    }

    /// The tables each copy holds; `None` for whole copies.
    pub fn tables(&self) -> Option<&BTreeSet<String>> {
        self.holds.as_ref()
    }

    /// The copies reruns of `sql` (one of the queries the copies were built
    /// for) go to: none where a copy would be the original for every table
    /// it reads, so that a rerun answers as the original. A query that was
    /// not planned is rerun only on whole copies.
    pub fn reruns(&self, sql: &str) -> &[(u64, Database)] {
        match self.needs.get(sql) {
            Some(Needs::Nothing) => &[],
            Some(_) => &self.copies,
            None if self.holds.is_none() => &self.copies,
            None => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `keyed` is stored in key order; `song` and `other` are rowid tables
    /// whose order a reshuffle changes; `busy` is a view over `song`.
    fn fixture(dir: &Path) -> Database {
        let p = dir.join("shop.sqlite");
        let c = Connection::open(&p).unwrap();
        c.execute_batch(
            "CREATE TABLE keyed (id INTEGER PRIMARY KEY, name TEXT, age INT);
             CREATE TABLE song (title TEXT, singer_id INT, sales INT, UNIQUE(title));
             CREATE INDEX song_sales ON song (sales);
             CREATE TABLE other (k TEXT, v INT);
             CREATE INDEX other_v ON other (v);
             CREATE VIEW busy AS SELECT title FROM song WHERE sales > 1;
             INSERT INTO keyed VALUES (1,'Ann',30),(2,'Bob',30),(3,'Cid',20);
             INSERT INTO song VALUES ('x',1,10),('y',2,10),('z',3,5),('w',1,1);
             INSERT INTO other VALUES ('a',1),('b',1),('c',2);
             ANALYZE;",
        )
        .unwrap();
        Database::new("shop", p)
    }

    fn objects(path: &Path) -> Vec<String> {
        let c = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        let mut st = c
            .prepare("SELECT type || ' ' || name FROM sqlite_master ORDER BY 1")
            .unwrap();
        let out = st
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        out
    }

    fn rows(path: &Path, sql: &str) -> Vec<String> {
        let c = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        let mut st = c.prepare(sql).unwrap();
        let out = st
            .query_map([], |r| r.get::<_, String>(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        out
    }

    #[test]
    fn copies_hold_only_the_tables_read_and_reorder_them() {
        let dir = tempfile::tempdir().unwrap();
        let db = fixture(dir.path());
        let before = std::fs::read(&db.sqlite_path).unwrap();
        let out = dir.path().join("copies");
        std::fs::create_dir(&out).unwrap();
        let song = "SELECT title FROM song ORDER BY sales DESC LIMIT 1";
        let keyed = "SELECT name FROM keyed ORDER BY age DESC LIMIT 1";
        let r = Reshuffles::build(&db, &out, &[0, 1], &[song, keyed]).unwrap();
        assert_eq!(r.seeds(), &[0, 1]);
        assert_eq!(r.copies().len(), 2);
        let held: Vec<&str> = r.tables().unwrap().iter().map(String::as_str).collect();
        assert_eq!(held, ["song"]);
        // Only song, with its indexes and its statistics.
        let copy = &r.copies()[0].1.sqlite_path;
        let own: Vec<String> = objects(copy)
            .into_iter()
            .filter(|o| !o.starts_with("table sqlite_stat"))
            .collect();
        assert_eq!(
            own,
            [
                "index song_sales",
                "index sqlite_autoindex_song_1",
                "table song"
            ]
        );
        let stat = "SELECT DISTINCT tbl FROM sqlite_stat1";
        assert_eq!(rows(&db.sqlite_path, stat).len(), 3);
        assert_eq!(rows(copy, stat), ["song"]);
        let stat = "SELECT group_concat(idx || ':' || stat, ';') FROM \
                    (SELECT * FROM sqlite_stat1 WHERE tbl = 'song' ORDER BY idx)";
        assert_eq!(rows(copy, stat), rows(&db.sqlite_path, stat));
        // The rows, reversed by seed 0; another order by seed 1.
        let scan = "SELECT title FROM song";
        let original = rows(&db.sqlite_path, scan);
        let mut reversed = original.clone();
        reversed.reverse();
        assert_eq!(rows(copy, scan), reversed);
        let second = rows(&r.copies()[1].1.sqlite_path, scan);
        let mut sorted = second.clone();
        sorted.sort();
        let mut all = original.clone();
        all.sort();
        assert_eq!(sorted, all);
        // Reruns go to the copies only where the order can change.
        assert_eq!(r.reruns(song).len(), 2);
        assert!(r.reruns(keyed).is_empty());
        // The original is untouched.
        assert_eq!(std::fs::read(&db.sqlite_path).unwrap(), before);
    }

    #[test]
    fn no_copy_when_nothing_read_can_change() {
        let dir = tempfile::tempdir().unwrap();
        let db = fixture(dir.path());
        let r = Reshuffles::build(
            &db,
            dir.path(),
            &[0, 1, 2],
            &["SELECT count(*) FROM keyed", "SELECT nope FROM keyed"],
        )
        .unwrap();
        assert!(r.copies().is_empty());
        assert_eq!(r.tables(), Some(&BTreeSet::new()));
        assert!(r.reruns("SELECT count(*) FROM keyed").is_empty());
    }

    #[test]
    fn whole_copies_when_the_reads_cannot_be_told() {
        let dir = tempfile::tempdir().unwrap();
        let db = fixture(dir.path());
        for q in ["SELECT name FROM sqlite_master", "SELECT title FROM busy"] {
            let out = tempfile::tempdir().unwrap();
            let r = Reshuffles::build(&db, out.path(), &[0], &[q, "SELECT k FROM other"]).unwrap();
            assert_eq!(r.tables(), None, "{q}");
            assert_eq!(r.reruns(q).len(), 1);
            let copy = &r.copies()[0].1.sqlite_path;
            assert!(objects(copy).contains(&"view busy".to_string()));
            assert_eq!(
                rows(copy, "SELECT k FROM other"),
                ["c", "b", "a"],
                "the whole copy is reshuffled too"
            );
            // Only the copies are in the folder.
            assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 1);
        }
    }

    #[test]
    fn a_copy_a_query_does_not_prepare_on_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let db = fixture(dir.path());
        let out = tempfile::tempdir().unwrap();
        let q = "SELECT k FROM other";
        let r = Reshuffles {
            seeds: vec![0, 1],
            needs: [(q.to_string(), Needs::Tables(["other".to_string()].into()))].into(),
            ..Reshuffles::default()
        };
        let facts = TableFacts::read(
            &Connection::open_with_flags(&db.sqlite_path, OpenFlags::SQLITE_OPEN_READ_ONLY)
                .unwrap(),
        )
        .unwrap();
        let song = facts.table("song").unwrap();
        assert!(r.copy_subset(&db, out.path(), &[song]).is_none());
        assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
        let other = facts.table("other").unwrap();
        let copies = r.copy_subset(&db, out.path(), &[other]).unwrap();
        assert_eq!(copies.len(), 2);
    }

    #[test]
    fn no_seeds_no_copies() {
        let dir = tempfile::tempdir().unwrap();
        let db = fixture(dir.path());
        let r = Reshuffles::build(&db, dir.path(), &[], &["SELECT k FROM other"]).unwrap();
        assert!(r.copies().is_empty());
        assert!(r.reruns("SELECT k FROM other").is_empty());
    }

    #[test]
    fn read_only_uri_escapes_what_a_uri_reads() {
        assert_eq!(
            read_only_uri(Path::new("/a b/c%d?e#f.sqlite")),
            "file:/a b/c%25d%3fe%23f.sqlite?mode=ro"
        );
    }
}
