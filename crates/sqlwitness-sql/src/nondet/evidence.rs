//! Deciding whether a probe's rows prove a nondeterminism finding (ties
//! at the cut, ties in the order, a spread …): the evidence the audit
//! shows and fuzz's instances are judged by.

use super::Probe;
use serde::{Deserialize, Serialize};
use sqlwitness_core::{canonical_cell, Value};

/// Rows kept as evidence.
pub const EVIDENCE_ROWS: usize = 10;

/// Rows that show (or were checked for) a finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// `ties_at_cut`, `ties_in_order`, `spread`, `more_rows_than_limit`,
    /// `shuffle`, `cross_engine`, `error`.
    pub kind: String,
    /// The SQL that produced the rows (rerun it to see them again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql: Option<String>,
    /// What the rows show, in words.
    pub note: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

fn key(cells: &[Value]) -> Vec<String> {
    cells.iter().map(canonical_cell).collect()
}

fn render(row: &[Value]) -> Vec<String> {
    row.iter().map(Value::display).collect()
}

/// Decides a probe on its result rows: `Some(evidence)` when they prove the
/// finding.
pub fn judge(probe: &Probe, columns: &[String], rows: &[Vec<Value>]) -> Option<Evidence> {
    match probe {
        Probe::Ordered {
            sql,
            data_columns,
            key_columns,
            cut,
        } => {
            let d = *data_columns;
            let k = *key_columns;
            if rows.iter().any(|r| r.len() < d + k) {
                return None;
            }
            let data = |i: usize| key(&rows[i][..d]);
            let sort = |i: usize| key(&rows[i][d..d + k]);
            let mut cols: Vec<String> = vec!["#".into()];
            cols.extend(columns.iter().cloned());
            let show = |from: usize, to: usize| -> Vec<Vec<String>> {
                (from..to)
                    .take(EVIDENCE_ROWS)
                    .map(|i| {
                        let mut r = vec![(i + 1).to_string()];
                        r.extend(render(&rows[i]));
                        r
                    })
                    .collect()
            };
            match cut {
                Some(c) => {
                    let c = *c as usize;
                    if c == 0 || rows.len() <= c || sort(c - 1) != sort(c) {
                        return None;
                    }
                    let cut_key = sort(c - 1);
                    let group: Vec<usize> =
                        (0..rows.len()).filter(|&i| sort(i) == cut_key).collect();
                    let before: Vec<usize> = group.iter().copied().filter(|&i| i < c).collect();
                    let after: Vec<usize> = group.iter().copied().filter(|&i| i >= c).collect();
                    let differs = before
                        .iter()
                        .any(|&b| after.iter().any(|&a| data(a) != data(b)));
                    if !differs {
                        return None;
                    }
                    let first = *group.first().unwrap_or(&0);
                    let last = group.last().map_or(0, |l| l + 1);
                    Some(Evidence {
                        kind: "ties_at_cut".into(),
                        sql: Some(sql.clone()),
                        note: format!(
                            "rows {} and {} share the sort key ({} rows tied, {} inside the LIMIT {c}): another plan may return a different row",
                            c,
                            c + 1,
                            group.len(),
                            before.len()
                        ),
                        columns: cols,
                        rows: show(first, last),
                    })
                }
                None => {
                    let mut i = 0;
                    while i < rows.len() {
                        let mut j = i + 1;
                        while j < rows.len() && sort(j) == sort(i) {
                            j += 1;
                        }
                        if (i..j).any(|x| data(x) != data(i)) {
                            return Some(Evidence {
                                kind: "ties_in_order".into(),
                                sql: Some(sql.clone()),
                                note: format!(
                                    "rows {}..{} share the sort key but differ: their order is not defined",
                                    i + 1,
                                    j
                                ),
                                columns: cols,
                                rows: show(i, j),
                            });
                        }
                        i = j;
                    }
                    None
                }
            }
        }
        Probe::Spread {
            sql,
            key_columns,
            columns: spread_cols,
        } => {
            let hits: Vec<&Vec<Value>> = rows
                .iter()
                .filter(|r| {
                    (0..spread_cols.len()).any(|i| {
                        r.get(key_columns + 3 * i)
                            .and_then(Value::as_f64)
                            .is_some_and(|n| n > 1.0)
                    })
                })
                .collect();
            if hits.is_empty() {
                return None;
            }
            Some(Evidence {
                kind: "spread".into(),
                sql: Some(sql.clone()),
                note: format!(
                    "{} group(s) hold several values of {} (count(DISTINCT …) > 1): which one is returned is engine-defined (SQLite takes it from the row of a lone min()/max(), else from an arbitrary row; PostgreSQL and MySQL reject the query)",
                    hits.len(),
                    spread_cols.join(", ")
                ),
                columns: columns.to_vec(),
                rows: hits.iter().take(EVIDENCE_ROWS).map(|r| render(r)).collect(),
            })
        }
        Probe::Unlimited { sql, cut } => {
            let mut distinct: Vec<Vec<String>> = Vec::new();
            let mut shown = Vec::new();
            for r in rows {
                let k = key(r);
                if !distinct.contains(&k) {
                    distinct.push(k);
                    shown.push(render(r));
                }
                if distinct.len() > EVIDENCE_ROWS.max(*cut as usize + 1) {
                    break;
                }
            }
            if distinct.len() as u64 <= *cut {
                return None;
            }
            Some(Evidence {
                kind: "more_rows_than_limit".into(),
                sql: Some(sql.clone()),
                note: format!(
                    "without ORDER BY, LIMIT keeps {cut} of at least {} different rows: which ones is the engine's choice",
                    distinct.len()
                ),
                columns: columns.to_vec(),
                rows: shown.into_iter().take(EVIDENCE_ROWS).collect(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(v: &[(&str, i64)]) -> Vec<Vec<Value>> {
        v.iter()
            .map(|(s, k)| vec![Value::Text((*s).into()), Value::Int(*k)])
            .collect()
    }

    #[test]
    fn tie_at_cut() {
        let p = Probe::Ordered {
            sql: "q".into(),
            data_columns: 1,
            key_columns: 1,
            cut: Some(1),
        };
        let cols = vec!["name".into(), "k".into()];
        assert!(judge(&p, &cols, &r(&[("a", 9), ("b", 9), ("c", 1)])).is_some());
        assert!(judge(&p, &cols, &r(&[("a", 9), ("b", 8)])).is_none());
        // Tied rows that are identical change nothing.
        assert!(judge(&p, &cols, &r(&[("a", 9), ("a", 9)])).is_none());
        assert!(judge(&p, &cols, &r(&[("a", 9)])).is_none());
        let p = Probe::Ordered {
            sql: "q".into(),
            data_columns: 1,
            key_columns: 1,
            cut: None,
        };
        let e = judge(&p, &cols, &r(&[("a", 1), ("b", 2), ("c", 2)])).unwrap();
        assert_eq!(e.rows.len(), 2);
    }

    #[test]
    fn spread_and_unlimited() {
        let p = Probe::Spread {
            sql: "q".into(),
            key_columns: 1,
            columns: vec!["name".into()],
        };
        let cols: Vec<String> = ["g", "n", "min", "max"].map(String::from).to_vec();
        let row = |n| {
            vec![
                Value::Text("x".into()),
                Value::Int(n),
                Value::Text("a".into()),
                Value::Text("b".into()),
            ]
        };
        assert!(judge(&p, &cols, &[row(1)]).is_none());
        assert!(judge(&p, &cols, &[row(1), row(2)]).is_some());
        let p = Probe::Unlimited {
            sql: "q".into(),
            cut: 1,
        };
        let cols = vec!["name".into(), "k".into()];
        assert!(judge(&p, &cols, &r(&[("a", 1), ("a", 1)])).is_none());
        assert!(judge(&p, &cols, &r(&[("a", 1), ("b", 1)])).is_some());
    }
}
