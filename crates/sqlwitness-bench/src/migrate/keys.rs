//! Key decisions, checked on the data: a PRIMARY KEY is carried over when
//! its columns hold no NULL and no duplicate; a FOREIGN KEY when it refers
//! to the parent's (carried-over) primary key with the same target types and
//! every child row with non-null key columns has a parent. On MySQL a key
//! column of text type becomes VARCHAR(n) (n: the longest value rounded up
//! to a multiple of 64, at most 255) when every value fits (an index
//! on TEXT needs a prefix length); otherwise the key is skipped. Every
//! decision is recorded with its reason.

use std::collections::HashSet;

use sqlwitness_core::{canonical_cell, Value};
use sqlwitness_dialect::Dialect;

use super::log::{Coercions, ColumnDecision, ForeignKeyReport, KeyReport, TargetKind};
use super::plan::type_table;
use super::source::SourceDb;
use super::verify::checksum_rows;

/// One table, ready to create, load and verify.
pub(crate) struct TablePlan {
    pub name: String,
    pub columns: Vec<ColumnDecision>,
    pub rows: Vec<Vec<Value>>,
    pub coercions: Coercions,
    /// Checksum of `rows` (the values as expected on the target).
    pub checksum: String,
    pub primary_key: KeyReport,
    /// Whether to add the primary key (the data allows it).
    pub apply_pk: bool,
    pub foreign_keys: Vec<ForeignKeyReport>,
    pub apply_fk: Vec<bool>,
}

pub(crate) struct DbPlan {
    pub tables: Vec<TablePlan>,
    #[cfg_attr(not(any(feature = "postgres", feature = "mysql")), allow(dead_code))]
    pub notes: Vec<String>,
}

fn find_ci(names: &[&str], want: &str) -> Option<usize> {
    names
        .iter()
        .position(|n| *n == want)
        .or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(want)))
}

struct Resolved {
    cols: Vec<usize>,
    parent: usize,
    pcols: Vec<usize>,
}

fn key_of(row: &[Value], cols: &[usize]) -> Option<Vec<String>> {
    cols.iter()
        .map(|&c| match &row[c] {
            Value::Null => None,
            v => Some(canonical_cell(v)),
        })
        .collect()
}

pub(crate) fn plan_database(src: &SourceDb, dialect: &Dialect) -> DbPlan {
    let types = &dialect.types;
    let mut tables: Vec<TablePlan> = src
        .tables
        .iter()
        .map(|t| {
            let typed = type_table(t, types);
            TablePlan {
                name: t.name.clone(),
                checksum: String::new(),
                columns: typed.columns,
                rows: typed.rows,
                coercions: typed.coercions,
                primary_key: KeyReport::default(),
                apply_pk: false,
                foreign_keys: Vec::new(),
                apply_fk: Vec::new(),
            }
        })
        .collect();
    let table_names: Vec<&str> = src.tables.iter().map(|t| t.name.as_str()).collect();

    // Resolve foreign keys to column indexes (SQLite names are case-insensitive).
    let mut resolved: Vec<Vec<Result<Resolved, String>>> = Vec::new();
    for t in &src.tables {
        let cols: Vec<&str> = t.columns.iter().map(|c| c.name.as_str()).collect();
        let mut out = Vec::new();
        for fk in &t.foreign_keys {
            out.push((|| {
                let child: Vec<usize> = fk
                    .columns
                    .iter()
                    .map(|c| find_ci(&cols, c).ok_or(format!("child column `{c}` does not exist")))
                    .collect::<Result<_, _>>()?;
                let parent = find_ci(&table_names, &fk.parent_table)
                    .ok_or(format!("parent table `{}` does not exist", fk.parent_table))?;
                let ptable = &src.tables[parent];
                let pnames: Vec<&str> = ptable.columns.iter().map(|c| c.name.as_str()).collect();
                let pcols: Vec<usize> = if fk.parent_columns.iter().all(Option::is_none) {
                    if ptable.primary_key.len() != child.len() {
                        return Err("names no parent columns and the parent's primary key does \
                                    not match"
                            .to_string());
                    }
                    ptable.primary_key.clone()
                } else {
                    fk.parent_columns
                        .iter()
                        .map(|c| {
                            let c = c.as_deref().unwrap_or("");
                            find_ci(&pnames, c).ok_or(format!("parent column `{c}` does not exist"))
                        })
                        .collect::<Result<_, _>>()?
                };
                Ok(Resolved {
                    cols: child,
                    parent,
                    pcols,
                })
            })());
        }
        resolved.push(out);
    }

    // Columns that take part in a key, per table.
    let mut key_cols: Vec<HashSet<usize>> = src
        .tables
        .iter()
        .map(|t| t.primary_key.iter().copied().collect())
        .collect();
    for (ti, fks) in resolved.iter().enumerate() {
        for r in fks.iter().flatten() {
            key_cols[ti].extend(r.cols.iter().copied());
            key_cols[r.parent].extend(r.pcols.iter().copied());
        }
    }
    // MySQL and MariaDB cannot index TEXT/BLOB without a prefix length.
    let mut unindexable: Vec<Vec<Option<String>>> =
        tables.iter().map(|t| vec![None; t.columns.len()]).collect();
    if let Some(key_varchar_max) = types.key_varchar_max {
        for (ti, t) in tables.iter_mut().enumerate() {
            for &c in &key_cols[ti] {
                let col = &mut t.columns[c];
                match col.kind {
                    TargetKind::Text => {
                        let longest = t
                            .rows
                            .iter()
                            .map(|r| match &r[c] {
                                Value::Text(s) => s.chars().count(),
                                _ => 0,
                            })
                            .max()
                            .unwrap_or(0);
                        if longest <= key_varchar_max {
                            // Sized to the data (a multiple of 64) so that
                            // composite keys stay within InnoDB's 3072 bytes.
                            let width = longest.max(1).div_ceil(64) * 64;
                            let width = width.min(key_varchar_max);
                            col.target_type = format!("VARCHAR({width})");
                            col.reason.push_str(&format!(
                                "; VARCHAR({width}) instead of {} because the column is part of \
                                 a key and every value fits ({longest} characters at most)",
                                types.text
                            ));
                        } else {
                            unindexable[ti][c] = Some(format!(
                                "column `{}` holds text of {longest} characters: a {} key on \
                                 {} needs a prefix length",
                                col.name, dialect.name, types.text
                            ));
                        }
                    }
                    TargetKind::Blob => {
                        unindexable[ti][c] = Some(format!(
                            "column `{}` is {}: a {} key on it needs a prefix length",
                            col.name, col.target_type, dialect.name
                        ));
                    }
                    _ => {}
                }
            }
        }
    }

    // Primary keys.
    for (ti, t) in tables.iter_mut().enumerate() {
        let pk = &src.tables[ti].primary_key;
        let names: Vec<String> = pk.iter().map(|&c| t.columns[c].name.clone()).collect();
        let (apply, reason) = if pk.is_empty() {
            (false, "no primary key declared".to_string())
        } else if let Some(why) = pk.iter().find_map(|&c| unindexable[ti][c].clone()) {
            (false, why)
        } else {
            let mut seen = HashSet::with_capacity(t.rows.len());
            let (mut nulls, mut dups) = (0u64, 0u64);
            for r in &t.rows {
                match key_of(r, pk) {
                    None => nulls += 1,
                    Some(k) => {
                        if !seen.insert(k) {
                            dups += 1;
                        }
                    }
                }
            }
            if nulls > 0 || dups > 0 {
                (
                    false,
                    format!("the data violates it: {nulls} rows with NULL key columns, {dups} duplicate rows"),
                )
            } else {
                (true, "declared and satisfied by the data".to_string())
            }
        };
        t.primary_key = KeyReport {
            columns: names,
            applied: false,
            reason,
        };
        t.apply_pk = apply;
    }

    // Foreign keys.
    for (ti, fks) in resolved.into_iter().enumerate() {
        for (fi, r) in fks.into_iter().enumerate() {
            let sfk = &src.tables[ti].foreign_keys[fi];
            let mut report = ForeignKeyReport {
                columns: sfk.columns.clone(),
                parent_table: sfk.parent_table.clone(),
                parent_columns: sfk
                    .parent_columns
                    .iter()
                    .map(|c| c.clone().unwrap_or_default())
                    .collect(),
                applied: false,
                orphan_rows: 0,
                reason: String::new(),
            };
            let apply = match r {
                Err(why) => {
                    report.reason = why;
                    false
                }
                Ok(mut r) => {
                    let parent = &tables[r.parent];
                    let child = &tables[ti];
                    report.columns = r
                        .cols
                        .iter()
                        .map(|&c| child.columns[c].name.clone())
                        .collect();
                    report.parent_table = parent.name.clone();
                    report.parent_columns = r
                        .pcols
                        .iter()
                        .map(|&c| parent.columns[c].name.clone())
                        .collect();
                    // Orphans: child rows with every key column non-null and no parent.
                    let parent_keys: HashSet<Vec<String>> = parent
                        .rows
                        .iter()
                        .filter_map(|row| key_of(row, &r.pcols))
                        .collect();
                    report.orphan_rows = child
                        .rows
                        .iter()
                        .filter_map(|row| key_of(row, &r.cols))
                        .filter(|k| !parent_keys.contains(k))
                        .count() as u64;
                    let ppk = &src.tables[r.parent].primary_key;
                    let same_set =
                        ppk.len() == r.pcols.len() && r.pcols.iter().all(|c| ppk.contains(c));
                    if same_set {
                        // Reorder to the parent key's order (MySQL wants it).
                        let order: Vec<usize> = ppk
                            .iter()
                            .map(|p| r.pcols.iter().position(|c| c == p).unwrap_or(0))
                            .collect();
                        r.cols = order.iter().map(|&i| r.cols[i]).collect();
                        r.pcols = ppk.clone();
                    }
                    // Kinds, not type names: VARCHAR widths may differ.
                    let mismatch = r
                        .cols
                        .iter()
                        .zip(&r.pcols)
                        .find(|(&c, &p)| child.columns[c].kind != parent.columns[p].kind);
                    let blocked = r
                        .cols
                        .iter()
                        .map(|&c| unindexable[ti][c].clone())
                        .chain(r.pcols.iter().map(|&p| unindexable[r.parent][p].clone()))
                        .flatten()
                        .next();
                    report.reason = if !same_set {
                        "the parent columns are not the parent's primary key (no unique key to \
                         refer to on the target)"
                            .to_string()
                    } else if !parent.apply_pk {
                        format!(
                            "the parent's primary key is not carried over ({})",
                            parent.primary_key.reason
                        )
                    } else if let Some((&c, &p)) = mismatch {
                        format!(
                            "type mismatch: `{}` is {} but parent `{}` is {}",
                            child.columns[c].name,
                            child.columns[c].target_type,
                            parent.columns[p].name,
                            parent.columns[p].target_type
                        )
                    } else if let Some(why) = blocked {
                        why
                    } else if report.orphan_rows > 0 {
                        format!("{} child rows have no parent row", report.orphan_rows)
                    } else {
                        "every child row has a parent row".to_string()
                    };
                    let ok = same_set
                        && parent.apply_pk
                        && mismatch.is_none()
                        && report.orphan_rows == 0
                        && report.reason == "every child row has a parent row";
                    if ok {
                        report.columns = r
                            .cols
                            .iter()
                            .map(|&c| child.columns[c].name.clone())
                            .collect();
                        report.parent_columns = r
                            .pcols
                            .iter()
                            .map(|&c| parent.columns[c].name.clone())
                            .collect();
                    }
                    ok
                }
            };
            tables[ti].foreign_keys.push(report);
            tables[ti].apply_fk.push(apply);
        }
    }

    for t in &mut tables {
        t.checksum = checksum_rows(&t.rows).hex();
    }
    DbPlan {
        tables,
        notes: src.skipped.clone(),
    }
}
