//! Copies of a SQLite database with the rows of every table physically
//! reshuffled, in a temporary directory (the original is never touched).
//!
//! Seed 0 reverses each table's row order; seed `s > 0` orders rows by
//! `(rowid · 2654435761 + s · 40503) mod 4294967311`, a fixed permutation
//! per seed. Limitation: a table whose `INTEGER PRIMARY KEY` is its rowid
//! (or a `WITHOUT ROWID` table) keeps its physical order, since the order
//! is the key itself; only the other tables and index ties are reshuffled.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::schema::quote;
use crate::AuditError;

/// Makes shuffled copies of `src` under `dir`, one per seed.
pub fn shuffled_copies(src: &Path, dir: &Path, seeds: &[u64]) -> Result<Vec<PathBuf>, AuditError> {
    let mut out = Vec::new();
    for &seed in seeds {
        let stem = src.file_stem().and_then(|s| s.to_str()).unwrap_or("db");
        let dst = dir.join(format!("{stem}.shuffle{seed}.sqlite"));
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
    let order = if seed == 0 {
        "__sw_rid DESC".to_string()
    } else {
        format!("(__sw_rid * 2654435761 + {}) % 4294967311", seed * 40503)
    };
    for t in tables {
        let q = quote(&t);
        let cols: Vec<String> = tx
            .prepare(&format!("PRAGMA table_info({q})"))?
            .query_map([], |r| r.get::<_, String>(1))?
            .collect::<Result<_, _>>()?;
        let list = cols.iter().map(|c| quote(c)).collect::<Vec<_>>().join(", ");
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
