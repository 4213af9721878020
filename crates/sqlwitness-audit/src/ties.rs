//! Tie-aware verdicts: is a prediction's answer one of the gold's valid
//! answers when the gold's LIMIT cuts through ties?
//!
//! For a gold `SELECT … ORDER BY k LIMIT n OFFSET o`, every valid answer
//! has the same sequence of sort keys at positions `o+1 … o+n` of the fully
//! sorted rows; within one key value, any rows carrying that key may fill
//! the positions. So membership is checked without enumerating the
//! answers: the prediction must have as many rows as the window, and for
//! each key value the predicted rows at its positions must be a
//! sub-multiset of the rows (select list only) that carry that key.

use std::collections::BTreeMap;

use sqlwitness_core::{canonical_cell, Database, Engine, QueryLimits, Value};
use sqlwitness_sql::{top_limit_probe, Probe};

fn key(cells: &[Value]) -> Vec<String> {
    cells.iter().map(canonical_cell).collect()
}

/// True when `pred_rows` is one of the valid answers of `gold_sql` (run as
/// `gold_sql` on `engine`/`db`) under ties at its LIMIT. `false` when the
/// gold is not of that shape, when the probe fails, or when the
/// prediction is not a valid answer. Rows compare by canonical cells
/// (numbers across types, floats to 12 significant digits).
pub fn tie_aware_match(
    engine: &dyn Engine,
    db: &Database,
    gold_sql: &str,
    pred_rows: &[Vec<Value>],
    limits: &QueryLimits,
) -> bool {
    let Some((
        Probe::Ordered {
            sql,
            data_columns,
            key_columns,
            cut: Some(cut),
        },
        offset,
    )) = top_limit_probe(gold_sql)
    else {
        return false;
    };
    let Ok(full) = engine.execute(db, &sql, limits) else {
        return false;
    };
    let (d, k) = (data_columns, key_columns);
    if full.rows.iter().any(|r| r.len() != d + k) || pred_rows.iter().any(|r| r.len() != d) {
        return false;
    }
    let start = (offset as usize).min(full.rows.len());
    let end = (cut as usize).min(full.rows.len());
    if pred_rows.len() != end - start {
        return false;
    }
    // Rows available per key value.
    let mut avail: BTreeMap<Vec<String>, BTreeMap<Vec<String>, usize>> = BTreeMap::new();
    for r in &full.rows {
        *avail
            .entry(key(&r[d..]))
            .or_default()
            .entry(key(&r[..d]))
            .or_default() += 1;
    }
    for (pos, pred) in full.rows[start..end].iter().zip(pred_rows) {
        let Some(rows) = avail.get_mut(&key(&pos[d..])) else {
            return false;
        };
        match rows.get_mut(&key(pred)) {
            Some(n) if *n > 0 => *n -= 1,
            _ => return false,
        }
    }
    true
}
