//! A view's query as a PostgreSQL or MySQL/MariaDB server prints it
//! (`pg_get_viewdef`, `SHOW CREATE VIEW`) rewritten for SQLite, for views
//! carried from a dump or a live database into the SQLite copy.
//!
//! Only syntax changes: schema and database qualifiers are left out (the
//! SQLite copy holds the tables under their own names), PostgreSQL's
//! `expr::type` casts become SQLite casts to the type's storage class (or
//! go when the type has none: dates and times are stored as text), and
//! `~~` / `~~*` become `LIKE`. MySQL's and MariaDB's own spellings
//! (introducers, `concat`, `if`, `group_concat(… separator …)`, casts to
//! `char charset …`) become SQLite's where SQLite says the same (module
//! `mysql`). Whatever else the server wrote is kept: a function or clause
//! SQLite lacks fails when the view is created or read. Whether the
//! rewritten view means the same is decided on data by the caller (its
//! rows against the source view's), never here.

mod mysql;

use std::ops::ControlFlow;

use sqlparser::ast::{
    BinaryOperator, CastKind, DataType, ExactNumberInfo, Expr, Ident, ObjectName, Query, Statement,
    TableFactor, VisitMut, VisitorMut,
};

/// Why a view's query cannot be read or rewritten (said of the query:
/// "does not parse: …").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ViewQueryError(pub String);

/// The query `sql` (written in `grammar`, its server's) rewritten for SQLite,
/// or why it cannot be.
pub fn view_to_sqlite(
    sql: &str,
    grammar: sqlwitness_dialect::Grammar,
) -> Result<String, ViewQueryError> {
    let dialect = crate::parser_dialect(grammar);
    let mysql = grammar == sqlwitness_dialect::Grammar::Mysql;
    let sql = if mysql {
        mysql::without_type_charsets(sql)
    } else {
        sql.to_string()
    };
    let mut statements = crate::parse_bounded(dialect.as_ref(), &sql)
        .map_err(|e| ViewQueryError(format!("does not parse: {e}")))?;
    let [Statement::Query(_)] = statements.as_slice() else {
        return Err(ViewQueryError("is not a single query".into()));
    };
    let _ = statements[0].visit(&mut ToSqlite { mysql });
    if let Statement::Query(q) = &mut statements[0] {
        alias_columns_as_ctes(q, dialect.as_ref());
    }
    Ok(statements[0].to_string())
}

/// A table's alias with a column list (`JOIN books b (id, title)`: the
/// table's columns renamed in order, as PostgreSQL prints such a view),
/// which SQLite cannot read, as the same list on a CTE of the table
/// (`WITH sw_cols_1_b (id, title) AS (SELECT * FROM books) … JOIN
/// sw_cols_1_b AS b`): SQLite renames a CTE's columns in order too. A
/// table a CTE of the query itself is named after is left as it is.
fn alias_columns_as_ctes(q: &mut Query, dialect: &dyn sqlparser::dialect::Dialect) {
    let own: Vec<String> = q
        .with
        .iter()
        .flat_map(|w| &w.cte_tables)
        .map(|c| c.alias.name.value.to_ascii_lowercase())
        .collect();
    let mut found = AliasColumns {
        own,
        ctes: Vec::new(),
    };
    let _ = q.body.visit(&mut found);
    if found.ctes.is_empty() {
        return;
    }
    let defs: Vec<String> = found
        .ctes
        .iter()
        .map(|(cte, cols, table)| {
            let cols: Vec<String> = cols.iter().map(Ident::to_string).collect();
            format!("{cte}({}) AS (SELECT * FROM {table})", cols.join(", "))
        })
        .collect();
    let text = format!("WITH {} SELECT 1", defs.join(", "));
    let Ok(mut parsed) = crate::parse_bounded(dialect, &text) else {
        return;
    };
    let Some(Statement::Query(mut made)) = parsed.pop() else {
        return;
    };
    let Some(mut with) = made.with.take() else {
        return;
    };
    match &mut q.with {
        Some(w) => {
            with.cte_tables.append(&mut w.cte_tables);
            w.cte_tables = with.cte_tables;
        }
        None => q.with = Some(with),
    }
}

/// Collects the tables whose alias has a column list (see
/// [`alias_columns_as_ctes`]), each replaced by its CTE's name.
struct AliasColumns {
    /// The query's own CTEs' names, lower case.
    own: Vec<String>,
    /// `(CTE name, columns, table)`.
    ctes: Vec<(Ident, Vec<Ident>, ObjectName)>,
}

impl VisitorMut for AliasColumns {
    type Break = ();

    fn post_visit_table_factor(&mut self, tf: &mut TableFactor) -> ControlFlow<()> {
        let TableFactor::Table {
            name,
            alias: Some(alias),
            args: None,
            ..
        } = tf
        else {
            return ControlFlow::Continue(());
        };
        let table = name.to_string().to_ascii_lowercase();
        let shadowed = self.own.iter().any(|c| table.trim_matches('"') == c);
        if alias.columns.is_empty()
            || alias.columns.iter().any(|c| c.data_type.is_some())
            || shadowed
        {
            return ControlFlow::Continue(());
        }
        // A plain name (no quotes to translate for the other engines the
        // view is carried to from the SQLite file).
        let plain: String = alias
            .name
            .value
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let cte = Ident::new(format!("sw_cols_{}_{plain}", self.ctes.len() + 1).to_lowercase());
        let cols = std::mem::take(&mut alias.columns)
            .into_iter()
            .map(|c| c.name)
            .collect();
        let table = std::mem::replace(name, ObjectName::from(vec![cte.clone()]));
        alias.explicit = true;
        self.ctes.push((cte, cols, table));
        ControlFlow::Continue(())
    }
}

/// `text` (SQLite's SQL: strings in `'…'` with `''`, names in `"…"` or
/// backquotes) with backquoted names written in standard double quotes:
/// SQLite reads both, PostgreSQL only the standard ones (a MySQL view
/// carried into SQLite keeps MySQL's backquotes, which MySQL and MariaDB
/// read as names and not as strings).
pub fn standard_quotes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                // A string or a standard name, as it is.
                out.push(c);
                while let Some(d) = chars.next() {
                    out.push(d);
                    if d == c {
                        if chars.peek() == Some(&c) {
                            out.push(chars.next().unwrap_or(c));
                        } else {
                            break;
                        }
                    }
                }
            }
            '`' => {
                let mut name = String::new();
                while let Some(d) = chars.next() {
                    if d == '`' {
                        if chars.peek() == Some(&'`') {
                            chars.next();
                            name.push('`');
                        } else {
                            break;
                        }
                    } else {
                        name.push(d);
                    }
                }
                out.push('"');
                out.push_str(&name.replace('"', "\"\""));
                out.push('"');
            }
            other => out.push(other),
        }
    }
    out
}

/// The query of a SQLite `CREATE VIEW` statement (as `sqlite_master`
/// keeps it), or why it cannot be carried as one.
pub fn sqlite_view_query(create: &str) -> Result<String, ViewQueryError> {
    let sqlite = sqlparser::dialect::SQLiteDialect {};
    let statements = crate::parse_bounded(&sqlite, create)
        .map_err(|e| ViewQueryError(format!("does not parse: {e}")))?;
    match statements.as_slice() {
        [Statement::CreateView(v)] if v.columns.is_empty() => Ok(v.query.to_string()),
        [Statement::CreateView(_)] => Err(ViewQueryError(
            "names its columns (a column list is not carried)".into(),
        )),
        _ => Err(ViewQueryError("is not a single CREATE VIEW".into())),
    }
}

struct ToSqlite {
    /// The query is MySQL's or MariaDB's: their own spellings are read.
    mysql: bool,
}

/// SQLite's type for a cast to `t`, `None` when the cast is left out (the
/// value is stored as it is: dates, times, booleans as SQLite keeps them).
fn sqlite_cast(t: &DataType) -> Option<DataType> {
    let name = t.to_string().to_ascii_lowercase();
    let base = name.split('(').next().unwrap_or("").trim();
    if base.contains("int") || base == "signed" || base.starts_with("unsigned") {
        Some(DataType::Integer(None))
    } else if base.contains("char") || base == "text" || base == "name" {
        Some(DataType::Text)
    } else if base.contains("numeric") || base.contains("decimal") {
        Some(DataType::Numeric(ExactNumberInfo::None))
    } else if base.contains("double") || base.contains("real") || base.contains("float") {
        Some(DataType::Real)
    } else {
        None
    }
}

impl VisitorMut for ToSqlite {
    type Break = ();

    fn post_visit_relation(&mut self, name: &mut ObjectName) -> ControlFlow<()> {
        if name.0.len() > 1 {
            name.0.drain(..name.0.len() - 1);
        }
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        if self.mysql {
            if let Some(r) = mysql::rewrite(e) {
                *e = r;
                return ControlFlow::Continue(());
            }
        }
        let replaced = match e {
            Expr::CompoundIdentifier(parts) if parts.len() > 2 => {
                // `schema.table.column` → `table.column`.
                let keep = parts.split_off(parts.len() - 2);
                Some(Expr::CompoundIdentifier(keep))
            }
            Expr::Cast {
                kind,
                expr,
                data_type,
                ..
            } if *kind == CastKind::DoubleColon || (self.mysql && *kind == CastKind::Cast) => {
                Some(match sqlite_cast(data_type) {
                    Some(t) => Expr::Cast {
                        kind: CastKind::Cast,
                        expr: expr.clone(),
                        data_type: t,
                        format: None,
                    },
                    None => Expr::Nested(expr.clone()),
                })
            }
            Expr::BinaryOp { left, op, right }
                if matches!(
                    op,
                    BinaryOperator::PGLikeMatch
                        | BinaryOperator::PGILikeMatch
                        | BinaryOperator::PGNotLikeMatch
                        | BinaryOperator::PGNotILikeMatch
                ) =>
            {
                Some(Expr::Like {
                    negated: matches!(
                        op,
                        BinaryOperator::PGNotLikeMatch | BinaryOperator::PGNotILikeMatch
                    ),
                    any: false,
                    expr: left.clone(),
                    pattern: right.clone(),
                    escape_char: None,
                })
            }
            _ => None,
        };
        if let Some(r) = replaced {
            *e = r;
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::view_to_sqlite;
    use sqlwitness_dialect::Grammar;

    #[test]
    fn a_postgres_view_loses_its_schema_and_casts() {
        let def = " SELECT c.name,\n    count(*) AS n\n   FROM public.customer c\n     JOIN \
                   public.orders o ON ((o.customer_id = c.id))\n  WHERE (((c.country)::text = \
                   'DE'::text) AND (o.total > (10)::numeric) AND (c.name ~~ 'A%'::text))\n  \
                   GROUP BY c.name";
        let out = view_to_sqlite(def, Grammar::Postgres).unwrap();
        assert!(!out.contains("public."), "{out}");
        assert!(!out.contains("::"), "{out}");
        assert!(out.contains("CAST((c.country) AS TEXT)"), "{out}");
        assert!(out.contains("CAST((10) AS NUMERIC)"), "{out}");
        assert!(out.contains("c.name LIKE CAST('A%' AS TEXT)"), "{out}");
        let sqlite = sqlparser::dialect::SQLiteDialect {};
        assert!(crate::parse_bounded(&sqlite, &out).is_ok(), "{out}");
    }

    #[test]
    fn a_table_alias_with_a_column_list_becomes_a_cte_with_it() {
        // Book Town's `recent_shipments`, as PostgreSQL prints it.
        let def = " SELECT count(*) AS num_shipped,\n    max(shipments.ship_date) AS max,\n    \
                   b.title\n   FROM ((shipments\n     JOIN editions USING (isbn))\n     JOIN \
                   books b(book_id, title, author_id, subject_id) USING (book_id))\n  GROUP BY \
                   b.title\n  ORDER BY (count(*)) DESC";
        let out = view_to_sqlite(def, Grammar::Postgres).unwrap();
        assert!(
            out.starts_with(
                "WITH sw_cols_1_b (book_id, title, author_id, subject_id) AS (SELECT * FROM \
                 books)"
            ),
            "{out}"
        );
        assert!(
            out.contains("JOIN sw_cols_1_b AS b USING(book_id)"),
            "{out}"
        );
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE shipments (isbn TEXT, ship_date TEXT);
             CREATE TABLE editions (isbn TEXT, book_id INTEGER);
             CREATE TABLE books (id INTEGER, name TEXT, author INTEGER, subject INTEGER);
             INSERT INTO books VALUES (1, 'Dune', 1, 1);
             INSERT INTO editions VALUES ('x', 1);
             INSERT INTO shipments VALUES ('x', '2001-01-01'), ('x', '2001-02-01');",
        )
        .unwrap();
        let row: (i64, String) = conn
            .query_row(&out, [], |r| Ok((r.get(0)?, r.get(2)?)))
            .unwrap();
        assert_eq!(row, (2, "Dune".to_string()));
        // A view's own WITH keeps its CTEs after the new one; a table its
        // own CTE shadows is left.
        let own = "WITH books AS (SELECT 1 AS id) SELECT b.k FROM books b(k)";
        let out = view_to_sqlite(own, Grammar::Postgres).unwrap();
        assert!(!out.contains("sw_cols"), "{out}");
        let two = "WITH s AS (SELECT 1 AS x) SELECT b.k, s.x FROM books b(k), s";
        let out = view_to_sqlite(two, Grammar::Postgres).unwrap();
        assert!(out.starts_with("WITH sw_cols_1_b (k) AS"), "{out}");
        assert!(out.contains(", s AS (SELECT 1 AS x)"), "{out}");
    }

    #[test]
    fn a_sqlite_view_gives_its_query() {
        assert_eq!(
            super::sqlite_view_query("CREATE VIEW \"v\" AS SELECT a FROM t WHERE b > 1").unwrap(),
            "SELECT a FROM t WHERE b > 1"
        );
        assert!(super::sqlite_view_query("CREATE VIEW v(x) AS SELECT 1").is_err());
    }

    #[test]
    fn a_mysql_view_keeps_its_shape() {
        let def = "select `c`.`id` AS `id`,count(0) AS `n` from (`c` join `o` on((`c`.`id` = \
                   `o`.`cid`))) where (`c`.`total` > 10) group by `c`.`id`";
        let out = view_to_sqlite(def, Grammar::Mysql).unwrap();
        assert!(out.contains("count(0) AS `n`"), "{out}");
        assert_eq!(
            super::standard_quotes("SELECT `a`.`x``y` AS `we\"ird`, 'it''s `no`' FROM \"t\""),
            "SELECT \"a\".\"x`y\" AS \"we\"\"ird\", 'it''s `no`' FROM \"t\""
        );
        assert!(view_to_sqlite("DROP TABLE t", Grammar::Mysql).is_err());
    }
}
