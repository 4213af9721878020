//! The read-only guard: predicted SQL is hostile until proven a single
//! read-only query.

use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, ObjectName, Query, Select, SetExpr, Statement, TableFactor, Visit, Visitor,
};
use sqlparser::dialect::Dialect as ParserDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Token;
use sqlwitness_core::DbError;
use sqlwitness_dialect::Dialect;

use crate::text::{is_blank, parser_dialect, tokenize};

/// Words refused anywhere (outside string literals and quoted identifiers)
/// by the token-level fallback, unless followed by `(` (so the function
/// `replace(…)` stays allowed). Statement keywords that cannot occur inside
/// a query starting with SELECT/WITH/VALUES (`SET`, `SHOW` …) are not
/// listed: the first-token rule and the `;` rule already exclude those
/// statements, and listing them would refuse columns of those names.
const FALLBACK_FORBIDDEN_WORDS: &[&str] = &[
    "INTO", "PRAGMA", "ATTACH", "DETACH", "COPY", "INSERT", "UPDATE", "DELETE", "REPLACE", "MERGE",
    "UPSERT", "DROP", "CREATE", "ALTER", "TRUNCATE", "VACUUM", "REINDEX", "GRANT", "REVOKE",
    "LOCK", "CALL", "EXEC", "EXECUTE", "OUTFILE", "DUMPFILE",
];

/// Accepts `sql` only when it is a single read-only query; otherwise a
/// [`DbError`] of class `refused` whose message names what was refused.
///
/// With `sqlparser` (in the dialect named by `dialect.name`), the SQL must
/// be exactly one statement (one trailing `;` allowed) and that statement a
/// query — `SELECT`, `WITH … SELECT`, `VALUES`, `TABLE t` or a set
/// operation of these — with, anywhere inside it (subqueries, CTEs,
/// derived tables, expressions):
/// * no nested statement (a data-modifying CTE such as
///   `WITH d AS (DELETE … RETURNING *) SELECT …`),
/// * no `SELECT … INTO`,
/// * no locking clause (`FOR UPDATE`, `FOR SHARE` …),
/// * no call, as a scalar or a table function, of a function the dialect
///   denies ([`Dialect::denies_function`], checked on the last part of a
///   qualified name).
///
/// When `sqlparser` cannot parse the SQL (SQLite accepts things it does
/// not), a token-level check decides instead: the first token must be
/// `SELECT`, `WITH`, `VALUES` or `(`; a `;` may be followed only by
/// whitespace and comments; no word (quoted or not) that names a denied
/// function may be followed by `(`; and none of a list of statement
/// keywords (`INTO`, `PRAGMA`, `ATTACH`, `COPY`, `INSERT`, `UPDATE`,
/// `DELETE`, `DROP`, `CREATE`, `LOCK` … see `FALLBACK_FORBIDDEN_WORDS`) may
/// appear as an unquoted word outside string literals unless it is followed
/// by `(`. SQL that cannot even be tokenized is refused.
pub fn guard(sql: &str, dialect: &Dialect) -> Result<(), DbError> {
    let pd = parser_dialect(&dialect.name);
    match Parser::parse_sql(pd.as_ref(), sql) {
        Ok(statements) => check_statements(&statements, dialect),
        Err(_) => check_tokens(sql, pd.as_ref(), dialect),
    }
}

fn refused(what: impl AsRef<str>) -> DbError {
    DbError::refused(format!(
        "refused: {}; only a single read-only query is allowed",
        what.as_ref()
    ))
}

fn check_statements(statements: &[Statement], dialect: &Dialect) -> Result<(), DbError> {
    let statement = match statements {
        [] => return Err(refused("no statement")),
        [s] => s,
        _ => {
            return Err(refused(format!(
                "{} statements ({})",
                statements.len(),
                statements
                    .iter()
                    .map(statement_kind)
                    .collect::<Vec<_>>()
                    .join(", ")
            )))
        }
    };
    if !matches!(statement, Statement::Query(_)) {
        return Err(refused(format!("{} statement", statement_kind(statement))));
    }
    let mut checker = Checker {
        dialect,
        statements_seen: 0,
    };
    match statement.visit(&mut checker) {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(message) => Err(refused(message)),
    }
}

/// The first word of a statement as SQL (`DROP`, `PRAGMA`, `ATTACH` …).
fn statement_kind(s: &Statement) -> String {
    let text = s.to_string();
    let first = text.split_whitespace().next().unwrap_or("?");
    format!("`{}`", first.to_ascii_uppercase())
}

struct Checker<'a> {
    dialect: &'a Dialect,
    statements_seen: usize,
}

impl Checker<'_> {
    fn check_function(&self, name: &ObjectName) -> ControlFlow<String> {
        if let Some(ident) = name.0.last().and_then(|p| p.as_ident()) {
            if self.dialect.denies_function(&ident.value) {
                return ControlFlow::Break(format!(
                    "a call of the denied function `{}`",
                    ident.value
                ));
            }
        }
        ControlFlow::Continue(())
    }
}

impl Visitor for Checker<'_> {
    type Break = String;

    fn pre_visit_statement(&mut self, s: &Statement) -> ControlFlow<String> {
        self.statements_seen += 1;
        if self.statements_seen > 1 {
            return ControlFlow::Break(format!(
                "a data-modifying {} statement inside the query",
                statement_kind(s)
            ));
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<String> {
        if let Some(lock) = q.locks.first() {
            return ControlFlow::Break(format!("a locking clause `{lock}`"));
        }
        if modifies_data(&q.body) {
            return ControlFlow::Break("a data-modifying statement inside the query".into());
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, s: &Select) -> ControlFlow<String> {
        if let Some(into) = &s.into {
            return ControlFlow::Break(format!("`SELECT … {into}`"));
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<String> {
        if let Expr::Function(f) = e {
            self.check_function(&f.name)?;
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, t: &TableFactor) -> ControlFlow<String> {
        match t {
            TableFactor::Table {
                name,
                args: Some(_),
                ..
            }
            | TableFactor::Function { name, .. } => self.check_function(name),
            _ => ControlFlow::Continue(()),
        }
    }
}

fn modifies_data(body: &SetExpr) -> bool {
    match body {
        SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_) | SetExpr::Merge(_) => true,
        SetExpr::SetOperation { left, right, .. } => modifies_data(left) || modifies_data(right),
        _ => false,
    }
}

fn check_tokens(sql: &str, pd: &dyn ParserDialect, dialect: &Dialect) -> Result<(), DbError> {
    let tokens =
        tokenize(pd, sql).map_err(|e| refused(format!("SQL that cannot be tokenized ({e})")))?;
    let sig: Vec<&Token> = tokens
        .iter()
        .map(|t| &t.token)
        .filter(|t| !is_blank(t))
        .collect();
    match sig.first() {
        None => return Err(refused("no statement")),
        Some(Token::LParen) => {}
        Some(Token::Word(w))
            if w.quote_style.is_none()
                && ["SELECT", "WITH", "VALUES"]
                    .iter()
                    .any(|k| w.value.eq_ignore_ascii_case(k)) => {}
        Some(t) => {
            return Err(refused(format!(
                "SQL starting with `{t}` (not SELECT, WITH, VALUES or `(`)"
            )))
        }
    }
    for (i, t) in sig.iter().enumerate() {
        let next_is_paren = matches!(sig.get(i + 1), Some(Token::LParen));
        match t {
            Token::SemiColon if i + 1 < sig.len() => {
                return Err(refused("several statements (text after `;`)"));
            }
            Token::Word(w) if next_is_paren && dialect.denies_function(&w.value) => {
                return Err(refused(format!(
                    "a call of the denied function `{}`",
                    w.value
                )));
            }
            Token::Word(w)
                if w.quote_style.is_none()
                    && !next_is_paren
                    && FALLBACK_FORBIDDEN_WORDS
                        .iter()
                        .any(|k| w.value.eq_ignore_ascii_case(k)) =>
            {
                return Err(refused(format!(
                    "the keyword `{}`",
                    w.value.to_ascii_uppercase()
                )));
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlwitness_core::{EngineKind, ErrorClass};
    use sqlwitness_dialect::builtin;

    fn refused_on(kind: EngineKind, sql: &str) -> String {
        match guard(sql, &builtin(kind)) {
            Ok(()) => panic!("accepted on {kind}: {sql}"),
            Err(e) => {
                assert_eq!(e.class, ErrorClass::Refused);
                e.message
            }
        }
    }

    fn accepted_on(kind: EngineKind, sql: &str) {
        if let Err(e) = guard(sql, &builtin(kind)) {
            panic!("refused on {kind}: {sql}: {e}");
        }
    }

    #[test]
    fn hostile_sql_is_refused_everywhere() {
        let cases: &[(&str, &str)] = &[
            ("DROP TABLE x", "DROP"),
            ("SELECT 1; DROP TABLE x", "2 statements"),
            ("SELECT 1; DROP TABLE x;", "statements"),
            ("ATTACH 'x' AS y", "ATTACH"),
            ("PRAGMA writable_schema=1", "PRAGMA"),
            ("COPY t TO PROGRAM 'x'", "COPY"),
            (
                "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
                "data-modifying",
            ),
            ("SELECT * FROM t INTO OUTFILE '/tmp/x'", "INTO"),
            ("SELECT * INTO newtable FROM t", "INTO"),
            ("SELECT * FROM t FOR UPDATE", "UPDATE"),
            ("INSERT INTO t VALUES (1)", "INSERT"),
            ("UPDATE t SET a = 1", "UPDATE"),
            ("EXPLAIN SELECT 1", "EXPLAIN"),
            ("SET search_path = x", "SET"),
            ("", "no statement"),
            ("-- only a comment", "no statement"),
        ];
        for kind in EngineKind::ALL {
            for (sql, needle) in cases {
                let msg = refused_on(kind, sql);
                assert!(msg.contains(needle), "{kind}: {sql}: {msg}");
            }
        }
    }

    #[test]
    fn denied_functions_are_refused_per_dialect() {
        use EngineKind::*;
        let msg = refused_on(Sqlite, "SELECT load_extension('x')");
        assert!(msg.contains("load_extension"), "{msg}");
        let msg = refused_on(Postgres, "SELECT pg_read_file('/etc/passwd')");
        assert!(msg.contains("pg_read_file"), "{msg}");
        let msg = refused_on(Mysql, "SELECT upper(load_file('/etc/passwd'))");
        assert!(msg.contains("load_file"), "{msg}");
        // Nested in a subquery, a CTE, a CASE, a table function, qualified.
        refused_on(
            Postgres,
            "SELECT a FROM t WHERE a IN (SELECT upper(pg_read_file(b)) FROM u)",
        );
        refused_on(
            Postgres,
            "WITH c AS (SELECT pg_catalog.pg_read_file('x') AS f) SELECT f FROM c",
        );
        refused_on(Postgres, "SELECT * FROM pg_ls_dir('/')");
        refused_on(
            Sqlite,
            "SELECT CASE WHEN 1 THEN LOAD_EXTENSION('x') END FROM t",
        );
        // The fallback path (sqlparser cannot parse this) still sees it.
        let msg = refused_on(Sqlite, "SELECT load_extension('x') FROM t WHERE a ==== 1");
        assert!(msg.contains("load_extension"), "{msg}");
        // Other dialects' denied functions are just unknown functions.
        accepted_on(Sqlite, "SELECT pg_read_file('x')");
    }

    #[test]
    fn read_only_queries_pass() {
        for kind in EngineKind::ALL {
            for sql in [
                "SELECT 1",
                "SELECT 1;",
                "select name from singer where age > 20 order by age desc limit 3;  ",
                "WITH c AS (SELECT a FROM t) SELECT a FROM c",
                "SELECT a FROM t UNION SELECT a FROM u",
                "VALUES (1), (2)",
                "(SELECT a FROM t)",
                "SELECT replace(name, 'a', 'b') FROM t",
                "SELECT 'DROP TABLE x; INTO' FROM t",
                "SELECT 1 -- trailing comment",
            ] {
                accepted_on(kind, sql);
            }
        }
    }

    #[test]
    fn fallback_accepts_unparsed_selects_and_refuses_the_rest() {
        use EngineKind::Sqlite;
        // sqlparser cannot parse this; the tokens are harmless.
        let sql = "SELECT a FROM t WHERE a ==== 1";
        assert!(Parser::parse_sql(&sqlparser::dialect::SQLiteDialect {}, sql).is_err());
        accepted_on(Sqlite, sql);
        refused_on(Sqlite, "SELECT a FROM t WHERE a ==== 1; DELETE FROM t");
        refused_on(Sqlite, "SELECT a FROM t WHERE a ==== 1 INTO x");
        refused_on(Sqlite, "VACUUM INTO '/tmp/x' ====");
        refused_on(Sqlite, "SELECT 'unterminated");
    }

    #[test]
    fn spider_dev_gold_passes_the_sqlite_guard() {
        let Some(gold) = crate::spider_data::dev_gold() else {
            return;
        };
        let lite = builtin(EngineKind::Sqlite);
        for (sql, db) in &gold {
            if let Err(e) = guard(sql, &lite) {
                panic!("{db}: {sql}: {e}");
            }
        }
    }
}
