//! The migration plan of a database: every column's decision (from its
//! profile) and the key decisions, checked on the data.
//!
//! A PRIMARY KEY is carried over when its columns hold no NULL and no
//! duplicate; a UNIQUE key (a unique index the source keeps under exact
//! comparison, other than the primary key's) when no two rows without a
//! NULL in its columns share their values; a FOREIGN KEY when it refers to
//! the parent's (carried-over) primary key or one of its carried unique
//! keys, with the same target kinds, and every child row with non-null key
//! columns has a parent. Values compare as they will be
//! stored on the target (exactly). The checks run on the source, in bounded
//! memory: where the source's own comparison is already exact (one storage
//! class, values unchanged, a binary unique index) it answers directly (no
//! duplicate can exist under a unique index; a foreign key is an index
//! lookup), else through a key function over the converted values. On
//! MySQL a key column of text type becomes VARCHAR(n) (n: the longest value
//! rounded up to a multiple of 64, at most 255), one of bytes VARBINARY(n)
//! alike, when every value fits (an index on TEXT or BLOB needs a prefix
//! length); otherwise the key is skipped.
//! Every decision is recorded with its reason.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use sqlwitness_core::{
    canonical_cell, ColumnDef, DbError, ForeignKeyDef, KeyFn, Source, SourceSchema, SourceTable,
    TableDef, STAMP_TABLE,
};
use sqlwitness_dialect::{Dialect, TypeMap};

use super::fingerprint::{cache_get, cache_put};
use super::log::{ColumnDecision, ForeignKeyReport, KeyReport, TargetKind};
use super::plan::{column_decision, convert, is_exact, lenient_kind};
use super::profile::TableProfile;

/// One table, ready to create, load and verify.
pub(crate) struct TablePlan {
    /// The table as the source declares it (what is scanned).
    pub source: SourceTable,
    /// The table to create (every foreign key listed; only those with
    /// `apply_fk` are added).
    pub def: TableDef,
    pub columns: Vec<ColumnDecision>,
    /// Rows in the source.
    pub rows: u64,
    pub primary_key: KeyReport,
    /// Whether to add the primary key (the data allows it).
    pub apply_pk: bool,
    /// The source's unique keys other than the primary key (column
    /// indexes, in key order), each with its decision.
    pub unique: Vec<Vec<usize>>,
    pub unique_keys: Vec<KeyReport>,
    pub apply_unique: Vec<bool>,
    pub foreign_keys: Vec<ForeignKeyReport>,
    pub apply_fk: Vec<bool>,
    /// Per column, how values are brought to a type taken from the
    /// original copy (empty: none taken).
    pub adjust: Vec<super::original_types::Adjust>,
    /// Per column, the temporal kind every value has when dates with zero
    /// parts count (`plan::lenient_kind`): what a source's model may type
    /// the column as on a target that holds them.
    pub lenient: Vec<Option<TargetKind>>,
}

pub(crate) struct DbPlan {
    pub tables: Vec<TablePlan>,
    pub notes: Vec<String>,
}

fn find_ci(names: &[&str], want: &str) -> Option<usize> {
    names
        .iter()
        .position(|n| *n == want)
        .or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(want)))
}

/// A foreign key resolved to column indexes (SQLite names are
/// case-insensitive).
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    pub cols: Vec<usize>,
    pub parent: usize,
    pub pcols: Vec<usize>,
}

/// Why a declared foreign key names nothing it can be resolved to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Unresolved {
    #[error("child column `{0}` does not exist")]
    ChildColumn(String),
    #[error("parent table `{0}` does not exist")]
    ParentTable(String),
    #[error("names no parent columns and the parent's primary key does not match")]
    NoParentKey,
    #[error("parent column `{0}` does not exist")]
    ParentColumn(String),
}

/// A foreign key of a table, resolved or with why not.
pub(crate) type Resolution = Result<Resolved, Unresolved>;

/// Every foreign key of every table, resolved or with why not.
pub(crate) fn resolve_foreign_keys(schema: &SourceSchema) -> Vec<Vec<Resolution>> {
    let table_names: Vec<&str> = schema.tables.iter().map(|t| t.name.as_str()).collect();
    schema
        .tables
        .iter()
        .map(|t| {
            let cols: Vec<&str> = t.columns.iter().map(|c| c.name.as_str()).collect();
            t.foreign_keys
                .iter()
                .map(|fk| {
                    let child: Vec<usize> = fk
                        .columns
                        .iter()
                        .map(|c| {
                            find_ci(&cols, c).ok_or_else(|| Unresolved::ChildColumn(c.clone()))
                        })
                        .collect::<Result<_, _>>()?;
                    let parent = find_ci(&table_names, &fk.parent_table)
                        .ok_or_else(|| Unresolved::ParentTable(fk.parent_table.clone()))?;
                    let ptable = &schema.tables[parent];
                    let pnames: Vec<&str> =
                        ptable.columns.iter().map(|c| c.name.as_str()).collect();
                    let pcols: Vec<usize> = if fk.parent_columns.iter().all(Option::is_none) {
                        if ptable.primary_key.len() != child.len() {
                            return Err(Unresolved::NoParentKey);
                        }
                        ptable.primary_key.clone()
                    } else {
                        fk.parent_columns
                            .iter()
                            .map(|c| {
                                let c = c.as_deref().unwrap_or("");
                                find_ci(&pnames, c)
                                    .ok_or_else(|| Unresolved::ParentColumn(c.to_string()))
                            })
                            .collect::<Result<_, _>>()?
                    };
                    Ok(Resolved {
                        cols: child,
                        parent,
                        pcols,
                    })
                })
                .collect()
        })
        .collect()
}

/// The unique keys of `t` to carry besides its primary key: each column
/// set once (the first column order seen), none that is the primary key's.
fn unique_keys(t: &SourceTable) -> Vec<Vec<usize>> {
    let same = |a: &[usize], b: &[usize]| a.len() == b.len() && a.iter().all(|c| b.contains(c));
    let mut out: Vec<Vec<usize>> = Vec::new();
    for u in &t.unique {
        if u.is_empty()
            || same(u, &t.primary_key)
            || out.iter().any(|o| same(o, u))
            || u.iter().any(|&c| c >= t.columns.len())
        {
            continue;
        }
        out.push(u.clone());
    }
    out
}

/// The columns of each table that take part in a key.
pub(crate) fn key_columns(schema: &SourceSchema, resolved: &[Vec<Resolution>]) -> Vec<Vec<bool>> {
    let mut out: Vec<Vec<bool>> = schema
        .tables
        .iter()
        .map(|t| {
            let mut v = vec![false; t.columns.len()];
            for &c in t.primary_key.iter().chain(unique_keys(t).iter().flatten()) {
                v[c] = true;
            }
            v
        })
        .collect();
    for (ti, fks) in resolved.iter().enumerate() {
        for r in fks.iter().flatten() {
            for &c in &r.cols {
                out[ti][c] = true;
            }
            for &c in &r.pcols {
                out[r.parent][c] = true;
            }
        }
    }
    out
}

/// The canonical key of a value as stored on a target with `types`.
fn key_fn(types: &TypeMap) -> Arc<KeyFn> {
    let types = types.clone();
    Arc::new(move |kind: TargetKind, v: &sqlwitness_core::Value| {
        canonical_cell(&convert(v, kind, &types).0).into_bytes()
    })
}

/// Where the key checks' answers are cached: the source's fingerprint and
/// whether text loses NUL characters on the target (the one dialect fact
/// that changes a comparison).
pub(crate) struct KeyCache<'a> {
    pub dir: Option<&'a Path>,
    pub fingerprint: &'a str,
}

impl KeyCache<'_> {
    fn key(&self, what: &str, types: &TypeMap) -> String {
        format!(
            "{}|{}|{what}",
            self.fingerprint,
            if types.text_rejects_nul {
                "strip-nul"
            } else {
                "keep-nul"
            }
        )
    }
}

/// Plans every table of `schema` for `dialect`, checking keys on `src`.
pub(crate) fn plan_database(
    src: &mut dyn Source,
    schema: &SourceSchema,
    profiles: &[TableProfile],
    dialect: &Dialect,
    cache: &KeyCache<'_>,
) -> Result<DbPlan, DbError> {
    let types = &dialect.types;
    let mut notes = schema.skipped.clone();
    let mut tables: Vec<TablePlan> = schema
        .tables
        .iter()
        .zip(profiles)
        .map(|(t, p)| table_plan(t, p, types))
        .collect();
    let resolved = resolve_foreign_keys(schema);
    let key_cols = key_columns(schema, &resolved);
    let unindexable = size_key_columns(&mut tables, &key_cols, profiles, dialect);
    let mut keys = KeyPlanner {
        engine: &dialect.name,
        src,
        schema,
        profiles,
        types,
        cache,
        key: key_fn(types),
        unindexable: &unindexable,
    };
    for ti in 0..tables.len() {
        let (report, apply) = keys.primary_key(ti, &tables)?;
        tables[ti].primary_key = report;
        tables[ti].apply_pk = apply;
        for k in 0..tables[ti].unique.len() {
            let (report, apply) = keys.unique_key(ti, k, &tables)?;
            tables[ti].unique_keys.push(report);
            tables[ti].apply_unique.push(apply);
        }
    }
    for (ti, fks) in resolved.into_iter().enumerate() {
        for (fi, r) in fks.into_iter().enumerate() {
            let (report, apply) = keys.foreign_key(ti, fi, r, &tables)?;
            tables[ti].foreign_keys.push(report);
            tables[ti].apply_fk.push(apply);
        }
    }
    for t in &mut tables {
        fill_definition(t);
    }
    // A table named like the stamp cannot be created beside it.
    let before = tables.len();
    tables.retain(|t| !t.def.name.eq_ignore_ascii_case(STAMP_TABLE));
    if tables.len() < before {
        notes.push(format!(
            "table `{STAMP_TABLE}` is not migrated: the name is sqlwitness's own (the stamp that \
             proves a copy is sqlwitness's)"
        ));
    }
    Ok(DbPlan { tables, notes })
}

/// A table's plan before its keys: each column's decision, nothing to
/// create yet.
fn table_plan(t: &SourceTable, p: &TableProfile, types: &TypeMap) -> TablePlan {
    let columns: Vec<ColumnDecision> = t
        .columns
        .iter()
        .zip(&p.columns)
        .map(|(c, cp)| column_decision(c, cp, types))
        .collect();
    TablePlan {
        source: t.clone(),
        def: TableDef {
            name: t.name.clone(),
            columns: Vec::new(),
            primary_key: Vec::new(),
            foreign_keys: Vec::new(),
        },
        columns,
        rows: p.rows,
        primary_key: KeyReport::default(),
        apply_pk: false,
        unique: unique_keys(t),
        unique_keys: Vec::new(),
        apply_unique: Vec::new(),
        foreign_keys: Vec::new(),
        apply_fk: Vec::new(),
        adjust: Vec::new(),
        lenient: p.columns.iter().map(lenient_kind).collect(),
    }
}

/// Key columns where the target cannot index text or blobs without a
/// prefix length (`key_varchar_max`: MySQL and MariaDB): text that fits
/// becomes a `VARCHAR` sized to the data; the others are returned, per
/// table and column, with why no key can use them.
fn size_key_columns(
    tables: &mut [TablePlan],
    key_cols: &[Vec<bool>],
    profiles: &[TableProfile],
    dialect: &Dialect,
) -> Vec<Vec<Option<String>>> {
    let types = &dialect.types;
    let mut unindexable: Vec<Vec<Option<String>>> =
        tables.iter().map(|t| vec![None; t.columns.len()]).collect();
    if let Some(key_varchar_max) = types.key_varchar_max {
        for (ti, t) in tables.iter_mut().enumerate() {
            for (c, is_key) in key_cols[ti].iter().enumerate() {
                if !is_key {
                    continue;
                }
                let col = &mut t.columns[c];
                match col.kind {
                    TargetKind::Text => {
                        let longest = profiles[ti].columns[c].max_chars as usize;
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
                        // Bytes that fit take a VARBINARY sized like text.
                        let longest = profiles[ti].columns[c].max_chars as usize;
                        if longest <= key_varchar_max {
                            let width = (longest.max(1).div_ceil(64) * 64).min(key_varchar_max);
                            col.reason.push_str(&format!(
                                "; VARBINARY({width}) instead of {} because the column is part \
                                 of a key and every value fits ({longest} bytes at most)",
                                col.target_type
                            ));
                            col.target_type = format!("VARBINARY({width})");
                        } else {
                            unindexable[ti][c] = Some(format!(
                                "column `{}` holds values of {longest} bytes: a {} key on {} \
                                 needs a prefix length",
                                col.name, dialect.name, col.target_type
                            ));
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    unindexable
}

/// What the keys are planned from: the source (asked for violations and
/// orphans, answers cached), its schema and profiles, and the key columns
/// no key can use.
struct KeyPlanner<'a> {
    src: &'a mut dyn Source,
    schema: &'a SourceSchema,
    profiles: &'a [TableProfile],
    types: &'a TypeMap,
    /// The target engine's name, for reasons.
    engine: &'a str,
    cache: &'a KeyCache<'a>,
    key: Arc<KeyFn>,
    unindexable: &'a [Vec<Option<String>>],
}

impl KeyPlanner<'_> {
    /// Whether column `c` of table `ti` stores exactly the target's values.
    fn exact(&self, ti: usize, c: usize, tables: &[TablePlan]) -> bool {
        is_exact(
            tables[ti].columns[c].kind,
            &self.profiles[ti].columns[c],
            self.types,
        )
    }

    /// Table `ti`'s primary key: carried when declared, indexable and
    /// satisfied by the data (no NULL, no duplicate); why not otherwise.
    fn primary_key(
        &mut self,
        ti: usize,
        tables: &[TablePlan],
    ) -> Result<(KeyReport, bool), DbError> {
        let src_t = &self.schema.tables[ti];
        let pk = &src_t.primary_key;
        let names: Vec<String> = pk
            .iter()
            .map(|&c| tables[ti].columns[c].name.clone())
            .collect();
        let (apply, reason) = if pk.is_empty() {
            (false, "no primary key declared".to_string())
        } else if let Some(why) = pk.iter().find_map(|&c| self.unindexable[ti][c].clone()) {
            (false, why)
        } else {
            let any_null = pk
                .iter()
                .any(|&c| self.profiles[ti].columns[c].storage.null > 0);
            let set: HashSet<usize> = pk.iter().copied().collect();
            let unique_exact = !any_null
                && pk.iter().all(|&c| self.exact(ti, c, tables))
                && src_t
                    .unique
                    .iter()
                    .any(|u| u.len() == set.len() && u.iter().all(|c| set.contains(c)));
            let (nulls, dups) = if unique_exact {
                (0, 0)
            } else {
                let kinds: Vec<TargetKind> =
                    pk.iter().map(|&c| tables[ti].columns[c].kind).collect();
                let what = format!("pk|{}|{pk:?}|{kinds:?}", src_t.name);
                match cache_get::<(u64, u64)>(
                    self.cache.dir,
                    "keys",
                    &self.cache.key(&what, self.types),
                ) {
                    Some(v) => v,
                    None => {
                        let v = self.src.key_violations(src_t, pk, &kinds, &self.key)?;
                        cache_put(
                            self.cache.dir,
                            "keys",
                            &self.cache.key(&what, self.types),
                            &v,
                        );
                        v
                    }
                }
            };
            if nulls > 0 || dups > 0 {
                (
                    false,
                    format!(
                        "the data violates it: {nulls} rows with NULL key columns, {dups} \
                         duplicate rows"
                    ),
                )
            } else {
                (true, "declared and satisfied by the data".to_string())
            }
        };
        Ok((
            KeyReport {
                columns: names,
                applied: false,
                reason,
            },
            apply,
        ))
    }

    /// Unique key `k` of table `ti`: carried when indexable and no two rows
    /// without a NULL in its columns share their values as stored on the
    /// target; why not otherwise.
    fn unique_key(
        &mut self,
        ti: usize,
        k: usize,
        tables: &[TablePlan],
    ) -> Result<(KeyReport, bool), DbError> {
        let src_t = &self.schema.tables[ti];
        let cols = &tables[ti].unique[k];
        let names: Vec<String> = cols
            .iter()
            .map(|&c| tables[ti].columns[c].name.clone())
            .collect();
        let (apply, reason) =
            if let Some(why) = cols.iter().find_map(|&c| self.unindexable[ti][c].clone()) {
                (false, why)
            } else {
                // The source keeps the set unique under exact comparison:
                // where its values are the target's, so does the target.
                let dups = if cols.iter().all(|&c| self.exact(ti, c, tables)) {
                    0
                } else {
                    let kinds: Vec<TargetKind> =
                        cols.iter().map(|&c| tables[ti].columns[c].kind).collect();
                    let what = format!("pk|{}|{cols:?}|{kinds:?}", src_t.name);
                    let cache_key = self.cache.key(&what, self.types);
                    match cache_get::<(u64, u64)>(self.cache.dir, "keys", &cache_key) {
                        Some((_, dups)) => dups,
                        None => {
                            let v = self.src.key_violations(src_t, cols, &kinds, &self.key)?;
                            cache_put(self.cache.dir, "keys", &cache_key, &v);
                            v.1
                        }
                    }
                };
                if dups > 0 {
                    (
                        false,
                        format!(
                            "the data violates it once stored on the target: {dups} duplicate \
                             rows"
                        ),
                    )
                } else {
                    (true, "declared and satisfied by the data".to_string())
                }
            };
        Ok((
            KeyReport {
                columns: names,
                applied: false,
                reason,
            },
            apply,
        ))
    }

    /// The report of foreign key `fi` of table `ti` (`r`: resolved to its
    /// parent's columns, or why not) and whether it is applied: resolved,
    /// of matching kinds, to the parent's carried primary key or one of its
    /// carried unique keys (reordered to it), over indexable columns, with
    /// no orphan row.
    fn foreign_key(
        &mut self,
        ti: usize,
        fi: usize,
        r: Resolution,
        tables: &[TablePlan],
    ) -> Result<(ForeignKeyReport, bool), DbError> {
        let sfk = &self.schema.tables[ti].foreign_keys[fi];
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
        let mut r = match r {
            Err(why) => {
                report.reason = why.to_string();
                return Ok((report, false));
            }
            Ok(r) => r,
        };
        let names = |r: &Resolved, report: &mut ForeignKeyReport| {
            let (parent, child) = (&tables[r.parent], &tables[ti]);
            report.columns = r
                .cols
                .iter()
                .map(|&c| child.columns[c].name.clone())
                .collect();
            report.parent_table = parent.def.name.clone();
            report.parent_columns = r
                .pcols
                .iter()
                .map(|&c| parent.columns[c].name.clone())
                .collect();
        };
        names(&r, &mut report);
        let (parent, child) = (&tables[r.parent], &tables[ti]);
        // Kinds, not type names: VARCHAR widths may differ.
        let mismatch = r
            .cols
            .iter()
            .zip(&r.pcols)
            .find(|(&c, &p)| child.columns[c].kind != parent.columns[p].kind)
            .map(|(&c, &p)| (c, p));
        report.orphan_rows = self.orphans(ti, fi, &r, tables, mismatch.is_none())?;
        let schema = self.schema;
        let ppk = &schema.tables[r.parent].primary_key;
        // Why the foreign key has no key to refer to on the target (none: it
        // has one).
        let no_parent_key: Option<String> = if reorder_to_key(&mut r, ppk) {
            if parent.apply_pk {
                None
            } else {
                Some(format!(
                    "the parent's primary key is not carried over ({})",
                    parent.primary_key.reason
                ))
            }
        } else if let Some(u) =
            (0..parent.unique.len()).find(|&u| reorder_to_key(&mut r, &parent.unique[u]))
        {
            if parent.apply_unique[u] {
                None
            } else {
                Some(format!(
                    "the parent's unique key ({}) is not carried over ({})",
                    parent.unique_keys[u].columns.join(", "),
                    parent.unique_keys[u].reason
                ))
            }
        } else {
            Some(
                "the parent columns are neither the parent's primary key nor one of its unique \
                 keys (no key to refer to on the target)"
                    .to_string(),
            )
        };
        let blocked = r
            .cols
            .iter()
            .map(|&c| self.unindexable[ti][c].clone())
            .chain(
                r.pcols
                    .iter()
                    .map(|&p| self.unindexable[r.parent][p].clone()),
            )
            .flatten()
            .next();
        report.reason = if let Some(why) = no_parent_key {
            why
        } else if let Some((c, p)) = mismatch {
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
        let mut ok = report.reason == "every child row has a parent row";
        if ok {
            names(&r, &mut report);
        }
        if ok && self.types.foreign_keys_at_create_only {
            ok = false;
            report.reason = format!(
                "{} declares foreign keys only when it creates a table, and the migration adds \
                 them after the load (the data allows this one: every child row has a parent row)",
                self.engine
            );
        }
        Ok((report, ok))
    }

    /// Child rows of table `ti` with every column of key `r` non-null and
    /// no parent (the child's kinds compare both sides). Where the stored
    /// values are the target's (`kinds_match` and every column exact), the
    /// profile pass counted them; else the source counts them (cached).
    fn orphans(
        &mut self,
        ti: usize,
        fi: usize,
        r: &Resolved,
        tables: &[TablePlan],
        kinds_match: bool,
    ) -> Result<u64, DbError> {
        let schema = self.schema;
        let exact_values = kinds_match
            && r.cols.iter().all(|&c| self.exact(ti, c, tables))
            && r.pcols.iter().all(|&c| self.exact(r.parent, c, tables));
        if let Some(n) = self.profiles[ti].orphans.get(fi).copied().flatten() {
            if exact_values {
                return Ok(n);
            }
        }
        let pset: HashSet<usize> = r.pcols.iter().copied().collect();
        let parent_unique = schema.tables[r.parent]
            .unique
            .iter()
            .any(|u| u.len() == pset.len() && u.iter().all(|c| pset.contains(c)));
        let kinds: Vec<TargetKind> = r.cols.iter().map(|&c| tables[ti].columns[c].kind).collect();
        let exact_check = exact_values && parent_unique;
        let what = format!(
            "fk|{}|{:?}|{}|{:?}|{kinds:?}|{exact_check}",
            schema.tables[ti].name, r.cols, schema.tables[r.parent].name, r.pcols
        );
        let cache_key = self.cache.key(&what, self.types);
        if let Some(n) = cache_get::<u64>(self.cache.dir, "keys", &cache_key) {
            return Ok(n);
        }
        let n = self.src.orphans(
            &schema.tables[ti],
            &r.cols,
            &schema.tables[r.parent],
            &r.pcols,
            &kinds,
            &self.key,
            exact_check,
        )?;
        cache_put(self.cache.dir, "keys", &cache_key, &n);
        Ok(n)
    }
}

/// Whether key `r` refers to exactly the parent's key `ppk` (its primary
/// key or a unique key); if so, its columns are put in that key's order
/// (MySQL wants it).
fn reorder_to_key(r: &mut Resolved, ppk: &[usize]) -> bool {
    let same_set = ppk.len() == r.pcols.len() && r.pcols.iter().all(|c| ppk.contains(c));
    if same_set {
        let order: Vec<usize> = ppk
            .iter()
            .map(|p| r.pcols.iter().position(|c| c == p).unwrap_or(0))
            .collect();
        r.cols = order.iter().map(|&i| r.cols[i]).collect();
        r.pcols = ppk.to_vec();
    }
    same_set
}

/// The table's definition from its decisions: columns, and the keys that
/// are carried.
fn fill_definition(t: &mut TablePlan) {
    t.def.columns = t
        .columns
        .iter()
        .map(|c| ColumnDef {
            name: c.name.clone(),
            kind: c.kind,
            sql_type: c.target_type.clone(),
            not_null: c.not_null,
        })
        .collect();
    t.def.primary_key = if t.apply_pk {
        t.primary_key.columns.clone()
    } else {
        Vec::new()
    };
    t.def.foreign_keys = t
        .foreign_keys
        .iter()
        .map(|f| ForeignKeyDef {
            columns: f.columns.clone(),
            parent_table: f.parent_table.clone(),
            parent_columns: f.parent_columns.clone(),
        })
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_to_the_parents_primary_key_takes_its_column_order() {
        // Child (a, b) → parent (y, x), whose primary key is (x, y).
        let mut r = Resolved {
            cols: vec![0, 1],
            parent: 1,
            pcols: vec![4, 3],
        };
        assert!(reorder_to_key(&mut r, &[3, 4]));
        assert_eq!((r.cols, r.pcols), (vec![1, 0], vec![3, 4]));
        // A key to columns that are not the primary key is left as it is.
        let mut other = Resolved {
            cols: vec![0],
            parent: 1,
            pcols: vec![5],
        };
        assert!(!reorder_to_key(&mut other, &[3, 4]));
        assert_eq!(other.pcols, [5]);
    }
}
