//! What the PostgreSQL and MySQL dump namespaces
//! ([`sqlwitness_core::DumpNamespace`]) share: a statement run within its
//! time limit, the connections that may have ended, and the SQL that checks
//! a loaded table's keys on its own server.

use std::future::Future;
use std::time::Duration;

use futures_util::{Stream, TryStreamExt};
use sqlwitness_core::{CopiedColumn, DbError, ScanBatch, SourceTable, Value};

/// The loader login's session, once stopped or closed.
pub(crate) const LOADER_ENDED: &str = "the loader's session has ended";
/// The administrative session inside the dump's namespace, once closed.
pub(crate) const NAMESPACE_CLOSED: &str = "the dump's database is closed";

/// The connection in `slot`, or a connection error saying it `ended`.
pub(crate) fn open<'a, C>(slot: &'a mut Option<C>, ended: &str) -> Result<&'a mut C, DbError> {
    slot.as_mut().ok_or_else(|| DbError::connection(ended))
}

/// Runs `work` on `rt`: its output, or `None` when it is still running at
/// `limit` (the caller then stops the loader's session, see
/// [`past_limit`]).
pub(crate) fn within<F: Future>(
    rt: &tokio::runtime::Runtime,
    limit: Duration,
    work: F,
) -> Option<F::Output> {
    // The timer is made inside the runtime (it needs its clock).
    rt.block_on(async { tokio::time::timeout(limit, work).await })
        .ok()
}

/// The quoted names of `table`'s columns at positions `cols`, comma-separated.
pub(crate) fn column_list(
    table: &SourceTable,
    cols: &[usize],
    quote: impl Fn(&str) -> String,
) -> String {
    cols.iter()
        .map(|&c| quote(&table.columns[c].name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The column definitions of a copy's `CREATE TABLE`: name, the source's
/// own type, `NOT NULL` or else `nullable` (MySQL's copies say `NULL` so
/// that a timestamp column takes no implicit default).
pub(crate) fn column_defs(
    columns: &[CopiedColumn],
    quote: impl Fn(&str) -> String,
    nullable: &str,
) -> String {
    columns
        .iter()
        .map(|c| {
            format!(
                "{} {}{}",
                quote(&c.name),
                c.sql_type,
                if c.not_null { " NOT NULL" } else { nullable }
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Adds `table`'s unique keys other than its primary key to the copy
/// `target` with `exec`; a key the server refuses is a note, not an error.
pub(crate) fn add_unique_keys(
    table: &SourceTable,
    target: &str,
    quote: impl Fn(&str) -> String,
    mut exec: impl FnMut(String) -> Result<(), DbError>,
    notes: &mut Vec<String>,
) {
    for u in table.unique.iter().filter(|u| **u != table.primary_key) {
        let key = column_list(table, u, &quote);
        if let Err(e) = exec(format!("ALTER TABLE {target} ADD UNIQUE ({key})")) {
            notes.push(format!("unique key ({key}) not added: {}", e.message));
        }
    }
}

/// `ALTER TABLE ns.table ADD FOREIGN KEY (…) REFERENCES ns.parent (…)` for
/// foreign key `k` of `table` in the copy `ns`, names quoted with `quote`
/// (see [`foreign_key_clause`]).
pub(crate) fn foreign_key_sql(
    ns: &str,
    table: &SourceTable,
    k: usize,
    quote: impl Fn(&str) -> String,
    parent_columns_needed: bool,
) -> Result<String, DbError> {
    let clause = foreign_key_clause(ns, table, k, &quote, parent_columns_needed)?;
    Ok(format!(
        "ALTER TABLE {}.{} ADD {clause}",
        quote(ns),
        quote(&table.name)
    ))
}

/// `FOREIGN KEY (…) REFERENCES ns.parent (…)` for foreign key `k` of
/// `table` in the copy `ns`, names quoted with `quote`. A key that names no
/// parent column references the parent's primary key where the server
/// allows it (`parent_columns_needed` false), else it is refused.
pub(crate) fn foreign_key_clause(
    ns: &str,
    table: &SourceTable,
    k: usize,
    quote: impl Fn(&str) -> String,
    parent_columns_needed: bool,
) -> Result<String, DbError> {
    let fk = &table.foreign_keys[k];
    let list = |cols: &mut dyn Iterator<Item = &String>| {
        cols.map(|c| quote(c)).collect::<Vec<_>>().join(", ")
    };
    let parent_cols: Option<Vec<&String>> = fk.parent_columns.iter().map(Option::as_ref).collect();
    let parent = match parent_cols {
        Some(p) if !p.is_empty() => format!(" ({})", list(&mut p.into_iter())),
        _ if parent_columns_needed => {
            return Err(DbError::refused("the key names no parent column"))
        }
        _ => String::new(),
    };
    Ok(format!(
        "FOREIGN KEY ({}) REFERENCES {}.{}{parent}",
        list(&mut fk.columns.iter()),
        quote(ns),
        quote(&fk.parent_table)
    ))
}

/// The limit a loader's session carries on the server for a client limit
/// of `limit`: a little later than the client's own (which stops the
/// statement and reports it), so that a statement whose client died still
/// ends.
pub(crate) fn server_limit(limit: Duration) -> Duration {
    limit + Duration::from_secs(2)
}

/// [`server_limit`] in whole milliseconds, at most `i32::MAX` (the range
/// PostgreSQL's and MySQL's settings take).
pub(crate) fn server_limit_ms(limit: Duration) -> u128 {
    server_limit(limit).as_millis().min(i32::MAX as u128)
}

/// The error of a `what` (`statement`, `COPY`) stopped at `limit`.
pub(crate) fn past_limit(what: &str, limit: Duration) -> DbError {
    DbError::timeout(format!(
        "the {what} ran past the limit of {} s and was cancelled",
        limit.as_secs_f64()
    ))
}

/// Rows of a table scan handed to `batch` a batch of `size` at a time,
/// each decoded by `decode`; the row count. `err` classes a driver error.
pub(crate) async fn scan_in_batches<R>(
    mut rows: impl Stream<Item = Result<R, sqlx::Error>> + Unpin,
    decode: impl Fn(&R) -> Vec<Value>,
    err: fn(sqlx::Error) -> DbError,
    size: usize,
    batch: &mut ScanBatch<'_>,
) -> Result<u64, DbError> {
    let mut buf: Vec<Vec<Value>> = Vec::with_capacity(size);
    let mut n = 0u64;
    while let Some(row) = rows.try_next().await.map_err(err)? {
        buf.push(decode(&row));
        n += 1;
        if buf.len() == size {
            batch(&mut buf, &[])?;
            buf.clear();
        }
    }
    if !buf.is_empty() {
        batch(&mut buf, &[])?;
    }
    Ok(n)
}

/// The SQL that checks a loaded table's keys on its own server: rows with a
/// NULL key column, rows repeating another's key, children without a
/// parent. The server's own equality decides; `quote` quotes a name in its
/// dialect and `int` makes an expression a 64-bit integer the driver reads
/// as `i64`.
pub(crate) struct KeySql {
    pub quote: fn(&str) -> String,
    pub int: fn(&str) -> String,
}

impl KeySql {
    fn names(&self, table: &SourceTable, cols: &[usize]) -> Vec<String> {
        cols.iter()
            .map(|&c| (self.quote)(&table.columns[c].name))
            .collect()
    }

    /// The queries counting rows with a NULL in `cols`, and rows repeating
    /// another's `cols`, of `table` (`qualified`: its quoted name).
    pub fn violations(
        &self,
        qualified: &str,
        table: &SourceTable,
        cols: &[usize],
    ) -> (String, String) {
        let names = self.names(table, cols);
        let any_null = names
            .iter()
            .map(|n| format!("{n} IS NULL"))
            .collect::<Vec<_>>()
            .join(" OR ");
        let nulls = format!(
            "SELECT {} FROM {qualified} WHERE {any_null}",
            (self.int)("COUNT(*)")
        );
        let dups = format!(
            "SELECT {} FROM (SELECT COUNT(*) n FROM {qualified} WHERE NOT ({any_null}) \
             GROUP BY {} HAVING COUNT(*) > 1) d",
            (self.int)("COALESCE(SUM(n - 1), 0)"),
            names.join(", ")
        );
        (nulls, dups)
    }

    /// The query counting rows of `child` whose `cols` are all set and
    /// match no row of `parent` on `pcols`.
    pub fn orphans(
        &self,
        (child_q, child): (&str, &SourceTable),
        cols: &[usize],
        (parent_q, parent): (&str, &SourceTable),
        pcols: &[usize],
    ) -> String {
        let c = self.names(child, cols);
        let p = self.names(parent, pcols);
        let not_null = c
            .iter()
            .map(|n| format!("c.{n} IS NOT NULL"))
            .collect::<Vec<_>>()
            .join(" AND ");
        let matches = c
            .iter()
            .zip(&p)
            .map(|(c, p)| format!("p.{p} = c.{c}"))
            .collect::<Vec<_>>()
            .join(" AND ");
        format!(
            "SELECT {} FROM {child_q} c WHERE {not_null} \
             AND NOT EXISTS (SELECT 1 FROM {parent_q} p WHERE {matches})",
            (self.int)("COUNT(*)")
        )
    }
}
/// The `SELECT` of a MySQL/MariaDB `SHOW CREATE VIEW` text, with the
/// qualifier of the view's own database (`` `db`. ``) left out of every
/// name outside string literals, so the query reads the same tables
/// wherever they are.
pub(crate) fn view_select(create: &str, database: &str) -> String {
    let qualifier = format!("`{}`.", database.replace('`', "``"));
    // `CREATE … VIEW `name` AS select …`: the query follows the first ` AS `
    // after the view's (quoted) name.
    let body = match create.find(" VIEW ") {
        Some(i) => {
            let rest = &create[i + " VIEW ".len()..];
            let after_name = skip_name(rest);
            let rest = &rest[after_name..];
            match rest.find(" AS ") {
                Some(j) => &rest[j + " AS ".len()..],
                None => rest,
            }
        }
        None => create,
    };
    let mut out = String::with_capacity(body.len());
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' | '"' => {
                out.push(c);
                while let Some((_, d)) = chars.next() {
                    out.push(d);
                    if d == '\\' {
                        if let Some((_, e)) = chars.next() {
                            out.push(e);
                        }
                    } else if d == c {
                        if matches!(chars.peek(), Some((_, e)) if *e == c) {
                            let (_, e) = chars.next().unwrap_or_default();
                            out.push(e);
                        } else {
                            break;
                        }
                    }
                }
            }
            '`' if body[i..].starts_with(&qualifier) => {
                for _ in 1..qualifier.chars().count() {
                    chars.next();
                }
            }
            '`' => {
                out.push(c);
                while let Some((_, d)) = chars.next() {
                    out.push(d);
                    if d == '`' {
                        if matches!(chars.peek(), Some((_, '`'))) {
                            chars.next();
                            out.push('`');
                        } else {
                            break;
                        }
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out.trim().trim_end_matches(';').to_string()
}

/// The length of the (backquoted or plain, possibly qualified) name at the
/// start of `s`.
fn skip_name(s: &str) -> usize {
    let mut i = 0;
    let b = s.as_bytes();
    loop {
        if b.get(i) == Some(&b'`') {
            i += 1;
            while i < b.len() {
                if b[i] == b'`' {
                    if b.get(i + 1) == Some(&b'`') {
                        i += 2;
                        continue;
                    }
                    i += 1;
                    break;
                }
                i += 1;
            }
        } else {
            while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'.' {
                i += 1;
            }
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
        } else {
            return i;
        }
    }
}

#[cfg(test)]
mod view_tests {
    use super::view_select;

    #[test]
    fn a_mysql_view_reads_its_tables_without_the_database_name() {
        let create = "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER \
                      VIEW `sw_dump_x`.`big spenders` AS select `sw_dump_x`.`c`.`id` AS `id`,\
                      'it''s `sw_dump_x`.' AS `s` from (`sw_dump_x`.`c` join `other`.`t`) \
                      where `sw_dump_x`.`c`.`total` > 10";
        assert_eq!(
            view_select(create, "sw_dump_x"),
            "select `c`.`id` AS `id`,'it''s `sw_dump_x`.' AS `s` from (`c` join `other`.`t`) \
             where `c`.`total` > 10"
        );
        assert_eq!(
            view_select("CREATE VIEW `v` AS select 1 AS `1`", "d"),
            "select 1 AS `1`"
        );
    }
}
