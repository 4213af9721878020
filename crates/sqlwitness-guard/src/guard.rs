//! The read-only guard: predicted SQL is hostile until proven a single
//! read-only query of its own namespace.

use sqlparser::parser::Parser;
use sqlparser::tokenizer::Token;
use sqlwitness_core::DbError;
use sqlwitness_dialect::Dialect;
use sqlwitness_sql::{
    parser_dialect, parser_tokens, tokenize, tokens_are_unescaped, MAX_CHAIN_OPERATORS,
};

/// The longest predicted SQL text the guard accepts by default, in bytes.
/// A text-to-SQL prediction is a few hundred bytes; a megabyte `IN (…)`
/// list only costs every engine (and the tool) seconds of parsing.
pub const DEFAULT_MAX_SQL_BYTES: usize = 100_000;

/// What the guard holds a text to: its limits, and the namespace the
/// query may read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardOptions {
    /// Longer texts are refused unread.
    pub max_sql_bytes: usize,
    /// A call of a sized function ([`Dialect::sized_functions`]) with a
    /// literal length over this is refused (the result byte limit).
    pub max_value_bytes: usize,
    /// The namespace of the question (its PostgreSQL schema, its MySQL
    /// database: `Database::namespace`): a qualified table name must name
    /// it. `None`: every qualified table name is refused.
    pub namespace: Option<String>,
}

impl Default for GuardOptions {
    fn default() -> Self {
        GuardOptions {
            max_sql_bytes: DEFAULT_MAX_SQL_BYTES,
            max_value_bytes: sqlwitness_core::DEFAULT_MAX_RESULT_BYTES,
            namespace: None,
        }
    }
}

impl GuardOptions {
    /// These options for a query of `namespace`.
    pub fn in_namespace(&self, namespace: &str) -> GuardOptions {
        GuardOptions {
            namespace: Some(namespace.to_string()),
            ..self.clone()
        }
    }
}

/// Why a text is refused: what was found, and where when that helps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal(pub String);

impl From<Refusal> for DbError {
    fn from(r: Refusal) -> DbError {
        refused(r.0)
    }
}

fn refused(what: impl AsRef<str>) -> DbError {
    DbError::refused(format!(
        "refused: {}; only a single read-only query is allowed",
        what.as_ref()
    ))
}

/// Refuses a text longer than `max_bytes` (before any other work on it).
pub fn check_length(sql: &str, max_bytes: usize) -> Result<(), DbError> {
    if sql.len() > max_bytes {
        return Err(refused(format!(
            "SQL text of {} bytes (the limit is {max_bytes})",
            sql.len()
        )));
    }
    Ok(())
}

/// [`guard_with`] under the default [`GuardOptions`] (no namespace: a
/// qualified table name is refused).
pub fn guard(sql: &str, dialect: &Dialect) -> Result<(), DbError> {
    guard_with(sql, dialect, &GuardOptions::default())
}

/// Accepts `sql` only when it is a single read-only query of the
/// question's own namespace, as the server of `dialect` will read it;
/// otherwise a [`DbError`] of class `refused` whose message names what was
/// refused.
///
/// First the text itself, before any parser: no longer than
/// `options.max_sql_bytes`; read by the server's own lexical rules
/// (`dialect.lexical`, see `lexer`) it holds no NUL byte, no executable
/// comment (`/*!…*/`, `/*M!…*/`, `/*+…*/` on MySQL/MariaDB), no block
/// comment inside a block comment, nothing unterminated, no non-ASCII
/// space and no brace (an ODBC escape such as `{ oj t }`, `{ fn f() }`,
/// `{ d '…' }`: MySQL and MariaDB read each by rules of their own, so all
/// are refused on every engine) outside quotes; and the server and `sqlparser` agree exactly on
/// which bytes are comments and which are quoted. No server variable
/// (`@@datadir`, where `dialect.lexical.system_variables`), no assignment
/// `:=`, and at most [`MAX_CHAIN_OPERATORS`] operators (deeper syntax trees
/// are not walked).
///
/// Names are compared as the server resolves them (`names`): quotes
/// removed, PostgreSQL's `U&"…"` escapes decoded (with `UESCAPE`), any
/// letter case for functions, the server's own rule for schemas. Whatever
/// the parser makes of the text, no name that is followed by `(` may be a
/// denied function ([`Dialect::denies_function`], qualified or not), a
/// function call may be qualified only by the namespace or one of
/// `dialect.function_schemas`, no `.name` may be a denied function where
/// `t.f` calls `f(t)` (PostgreSQL), no name may be a denied type
/// (`regclass` …), and there is no `OPERATOR(…)`.
///
/// With `sqlparser` (in the dialect named by `dialect.name`), the SQL must
/// be exactly one statement (one trailing `;` allowed) and that statement a
/// query — `SELECT`, `WITH … SELECT`, `VALUES`, `TABLE t` or a set
/// operation of these — with, anywhere inside it (subqueries, CTEs,
/// derived tables, expressions): no nested statement (a data-modifying CTE
/// such as `WITH d AS (DELETE … RETURNING *) SELECT …`), no `SELECT …
/// INTO`, no locking clause (`FOR UPDATE` …), no assignment, no call of a
/// denied function, no size-building call over `options.max_value_bytes`,
/// and no table outside the namespace (`relations`).
///
/// When `sqlparser` cannot parse the SQL (SQLite accepts things it does
/// not), the tokens decide instead (`fallback`): the first must be
/// `SELECT`, `WITH`, `VALUES` or `(`, a `;` may be followed only by
/// whitespace and comments, none of a list of statement keywords (`INTO`,
/// `PRAGMA`, `ATTACH`, `COPY`, `INSERT`, `DROP` …) may appear as an
/// unquoted word unless it is followed by `(`, and every table named where
/// a `FROM`, `JOIN` or `TABLE` puts one is held to the namespace rule.
pub fn guard_with(sql: &str, dialect: &Dialect, options: &GuardOptions) -> Result<(), DbError> {
    check_length(sql, options.max_sql_bytes)?;
    let server_spans = crate::lexer::inert_spans(sql, &dialect.lexical)?;
    if dialect.lexical.system_variables {
        crate::calls::check_system_variables(sql, &server_spans)?;
    }
    let pd = parser_dialect(dialect.grammar);
    let tokens = tokenize(pd.as_ref(), sql)
        .map_err(|e| refused(format!("SQL that cannot be tokenized ({e})")))?;
    crate::spans::compare(sql, &server_spans, &tokens)?;
    if tokens.iter().any(|t| t.token == Token::Assignment) {
        return Err(refused("an assignment `:=` (it sets session state)"));
    }
    let operators = sqlwitness_sql::chain_operators(tokens.iter().map(|t| &t.token));
    if operators > MAX_CHAIN_OPERATORS {
        return Err(refused(format!(
            "{operators} operators in one query (at most {MAX_CHAIN_OPERATORS}: its syntax tree would be too deep to check safely)"
        )));
    }
    let words = crate::names::significant(sql, &tokens, &dialect.lexical)?;
    // The tokens already made are the parser's own unless the text holds
    // something the parser's tokenizing unescapes; then it tokenizes again.
    let parsed = if tokens_are_unescaped(sql) {
        Parser::new(pd.as_ref())
            .with_tokens_with_locations(parser_tokens(&tokens))
            .parse_statements()
    } else {
        Parser::parse_sql(pd.as_ref(), sql)
    };
    match parsed {
        Ok(statements) => crate::statement::check(&statements, dialect, options)?,
        Err(_) => crate::fallback::check(&words, dialect, options)?,
    }
    crate::calls::check(&words, dialect, options)?;
    Ok(())
}

#[cfg(test)]
mod tests;
