//! Deciding whether a probe's rows prove a nondeterminism finding (ties
//! at the cut, ties in the order, a spread …): the evidence the audit
//! shows and fuzz's instances are judged by.

use crate::Probe;
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
            let ordered = OrderedRows::new(columns, rows, *data_columns, *key_columns)?;
            match cut {
                Some(c) => ties_at_cut(sql, &ordered, *c as usize),
                None => ties_in_order(sql, &ordered),
            }
        }
        Probe::Spread {
            sql,
            key_columns,
            columns: spread_cols,
        } => spread(sql, *key_columns, spread_cols, columns, rows),
        Probe::Unlimited { sql, cut } => more_rows_than_limit(sql, *cut, columns, rows),
    }
}

/// The rows of an ordered probe: each its `d` data columns, then its `k`
/// sort-key columns.
struct OrderedRows<'r> {
    columns: &'r [String],
    rows: &'r [Vec<Value>],
    d: usize,
    k: usize,
}

impl<'r> OrderedRows<'r> {
    /// `None` when a row is shorter than `d + k`.
    fn new(
        columns: &'r [String],
        rows: &'r [Vec<Value>],
        d: usize,
        k: usize,
    ) -> Option<OrderedRows<'r>> {
        if rows.iter().any(|r| r.len() < d + k) {
            return None;
        }
        Some(OrderedRows {
            columns,
            rows,
            d,
            k,
        })
    }

    fn len(&self) -> usize {
        self.rows.len()
    }

    /// Row `i`'s data, comparable.
    fn data(&self, i: usize) -> Vec<String> {
        key(&self.rows[i][..self.d])
    }

    /// Row `i`'s sort key, comparable.
    fn sort(&self, i: usize) -> Vec<String> {
        key(&self.rows[i][self.d..self.d + self.k])
    }

    /// The evidence's columns: the row number, then the probe's.
    fn evidence_columns(&self) -> Vec<String> {
        let mut cols: Vec<String> = vec!["#".into()];
        cols.extend(self.columns.iter().cloned());
        cols
    }

    /// Rows `from..to` (at most [`EVIDENCE_ROWS`]), each led by its
    /// 1-based number.
    fn show(&self, from: usize, to: usize) -> Vec<Vec<String>> {
        (from..to)
            .take(EVIDENCE_ROWS)
            .map(|i| {
                let mut r = vec![(i + 1).to_string()];
                r.extend(render(&self.rows[i]));
                r
            })
            .collect()
    }
}

/// `LIMIT c`: the rows on both sides of the cut share the sort key and
/// some tied row inside differs from one outside.
fn ties_at_cut(sql: &str, rows: &OrderedRows, c: usize) -> Option<Evidence> {
    if c == 0 || rows.len() <= c || rows.sort(c - 1) != rows.sort(c) {
        return None;
    }
    let cut_key = rows.sort(c - 1);
    let group: Vec<usize> = (0..rows.len())
        .filter(|&i| rows.sort(i) == cut_key)
        .collect();
    let before: Vec<usize> = group.iter().copied().filter(|&i| i < c).collect();
    let after: Vec<usize> = group.iter().copied().filter(|&i| i >= c).collect();
    let differs = before
        .iter()
        .any(|&b| after.iter().any(|&a| rows.data(a) != rows.data(b)));
    if !differs {
        return None;
    }
    let first = *group.first().unwrap_or(&0);
    let last = group.last().map_or(0, |l| l + 1);
    Some(Evidence {
        kind: "ties_at_cut".into(),
        sql: Some(sql.to_string()),
        note: format!(
            "rows {} and {} share the sort key ({} rows tied, {} inside the LIMIT {c}): another plan may return a different row",
            c,
            c + 1,
            group.len(),
            before.len()
        ),
        columns: rows.evidence_columns(),
        rows: rows.show(first, last),
    })
}

/// No LIMIT: some rows share the sort key but differ.
fn ties_in_order(sql: &str, rows: &OrderedRows) -> Option<Evidence> {
    let (i, j) = first_differing_tie(rows)?;
    Some(Evidence {
        kind: "ties_in_order".into(),
        sql: Some(sql.to_string()),
        note: format!(
            "rows {}..{} share the sort key but differ: their order is not defined",
            i + 1,
            j
        ),
        columns: rows.evidence_columns(),
        rows: rows.show(i, j),
    })
}

/// The first run `i..j` of adjacent rows sharing a sort key whose data
/// differ.
fn first_differing_tie(rows: &OrderedRows) -> Option<(usize, usize)> {
    let mut i = 0;
    while i < rows.len() {
        let mut j = i + 1;
        while j < rows.len() && rows.sort(j) == rows.sort(i) {
            j += 1;
        }
        if (i..j).any(|x| rows.data(x) != rows.data(i)) {
            return Some((i, j));
        }
        i = j;
    }
    None
}

/// A spread probe: groups holding several values of a bare column (its
/// `count(DISTINCT …)`, after the `key_columns` and every three columns,
/// over 1).
fn spread(
    sql: &str,
    key_columns: usize,
    spread_cols: &[String],
    columns: &[String],
    rows: &[Vec<Value>],
) -> Option<Evidence> {
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
        sql: Some(sql.to_string()),
        note: format!(
            "{} group(s) hold several values of {} (count(DISTINCT …) > 1): which one is returned is engine-defined (SQLite takes it from the row of a lone min()/max(), else from an arbitrary row; PostgreSQL and MySQL reject the query)",
            hits.len(),
            spread_cols.join(", ")
        ),
        columns: columns.to_vec(),
        rows: hits.iter().take(EVIDENCE_ROWS).map(|r| render(r)).collect(),
    })
}

/// An unlimited probe: more different rows than the LIMIT keeps.
fn more_rows_than_limit(
    sql: &str,
    cut: u64,
    columns: &[String],
    rows: &[Vec<Value>],
) -> Option<Evidence> {
    let shown = distinct_rows(rows, EVIDENCE_ROWS.max(cut as usize + 1));
    if shown.len() as u64 <= cut {
        return None;
    }
    Some(Evidence {
        kind: "more_rows_than_limit".into(),
        sql: Some(sql.to_string()),
        note: format!(
            "without ORDER BY, LIMIT keeps {cut} of at least {} different rows: which ones is the engine's choice",
            shown.len()
        ),
        columns: columns.to_vec(),
        rows: shown.into_iter().take(EVIDENCE_ROWS).collect(),
    })
}

/// The different rows, rendered, in order of first appearance; counting
/// stops once there are more than `enough`.
fn distinct_rows(rows: &[Vec<Value>], enough: usize) -> Vec<Vec<String>> {
    let mut distinct: Vec<Vec<String>> = Vec::new();
    let mut shown = Vec::new();
    for r in rows {
        let k = key(r);
        if !distinct.contains(&k) {
            distinct.push(k);
            shown.push(render(r));
        }
        if distinct.len() > enough {
            break;
        }
    }
    shown
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

    /// The first run of equal sort keys whose data differ; a run of equal
    /// rows is no tie.
    #[test]
    fn first_differing_tie_finds_the_run() {
        let cols: Vec<String> = vec!["name".into(), "k".into()];
        let run = |v: &[(&str, i64)]| {
            let rows = r(v);
            first_differing_tie(&OrderedRows::new(&cols, &rows, 1, 1).unwrap())
        };
        assert_eq!(
            run(&[("a", 1), ("a", 1), ("b", 2), ("c", 2), ("d", 2)]),
            Some((2, 5))
        );
        assert_eq!(run(&[("a", 1), ("a", 1), ("b", 2)]), None);
        assert_eq!(run(&[]), None);
    }

    /// Ordered evidence numbers its rows from 1 and shows the tied group
    /// around the cut.
    #[test]
    fn ties_at_cut_shows_the_tied_group() {
        let cols: Vec<String> = vec!["name".into(), "k".into()];
        let rows = r(&[("z", 10), ("a", 9), ("b", 9), ("c", 9), ("d", 1)]);
        let ordered = OrderedRows::new(&cols, &rows, 1, 1).unwrap();
        let e = ties_at_cut("q", &ordered, 2).unwrap();
        assert_eq!(e.columns, ["#", "name", "k"]);
        assert_eq!(
            e.rows.iter().map(|r| r[0].as_str()).collect::<Vec<_>>(),
            ["2", "3", "4"]
        );
        assert!(e
            .note
            .starts_with("rows 2 and 3 share the sort key (3 rows tied, 1 inside the LIMIT 2)"));
        assert!(ties_at_cut("q", &ordered, 0).is_none());
        assert!(ties_at_cut("q", &ordered, 5).is_none());
        let short = vec![vec![Value::Int(1)]];
        assert!(OrderedRows::new(&cols, &short, 1, 1).is_none());
    }

    /// Distinct rows in order of first appearance, counting no further
    /// than one past `enough`.
    #[test]
    fn distinct_rows_stop_past_enough() {
        let rows = r(&[("a", 1), ("a", 1), ("b", 1), ("c", 1), ("d", 1)]);
        let names = |v: Vec<Vec<String>>| v.into_iter().map(|r| r[0].clone()).collect::<Vec<_>>();
        assert_eq!(names(distinct_rows(&rows, 10)), ["a", "b", "c", "d"]);
        assert_eq!(names(distinct_rows(&rows, 1)), ["a", "b"]);
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
