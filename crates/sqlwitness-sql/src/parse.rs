//! Parsing with bounds, for every parse of SQL text in sqlwitness.
//!
//! `sqlparser` limits how deeply it recurses (nested parentheses and
//! subqueries: 50 levels), but it builds a flat chain such as
//! `1+1+…+1` or `a AND b AND …` in a loop, into a left-deep tree as deep as
//! the chain is long. Walking that tree (the derived visitors, `Display`,
//! even dropping it) recurses once per level: 30,000 terms overflow an
//! 8 MB stack, and a test build overflows 2 MB at about a thousand. So the
//! tokens are counted first and a text whose operator chains could build a
//! tree deeper than [`MAX_CHAIN_OPERATORS`] is not parsed at all.

use sqlparser::ast::Statement;
use sqlparser::dialect::Dialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, Tokenizer};

/// At most this many operators (symbols and operator keywords such as
/// `AND`, `LIKE`, `UNION`) in one text. Spider's and BIRD's longest gold
/// queries use well under a hundred.
pub const MAX_CHAIN_OPERATORS: usize = 400;

/// Why a text was not parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoundedParseError {
    /// The text holds more operators than [`MAX_CHAIN_OPERATORS`].
    #[error("{operators} operators in one text (at most {MAX_CHAIN_OPERATORS}: its syntax tree could be too deep to walk safely)")]
    TooDeep { operators: usize },
    #[error("{0}")]
    Tokenize(String),
    #[error("{0}")]
    Parse(String),
}

/// Parses `sql` in `dialect` unless its operator count could make the
/// syntax tree too deep (see the module documentation).
pub fn parse_bounded(
    dialect: &dyn Dialect,
    sql: &str,
) -> Result<Vec<Statement>, BoundedParseError> {
    let tokens = Tokenizer::new(dialect, sql)
        .tokenize_with_location()
        .map_err(|e| BoundedParseError::Tokenize(e.to_string()))?;
    let operators = chain_operators(tokens.iter().map(|t| &t.token));
    if operators > MAX_CHAIN_OPERATORS {
        return Err(BoundedParseError::TooDeep { operators });
    }
    Parser::new(dialect)
        .with_tokens_with_locations(tokens)
        .parse_statements()
        .map_err(|e| BoundedParseError::Parse(e.to_string()))
}

/// The dialects a text may be written in, tried in order: the first that
/// parses it wins. Sqlwitness reads SQLite-written golds first (Spider's and
/// BIRD's), and a gold written for PostgreSQL or MySQL in that engine's own
/// dialect first (an audit or a suite whose reference is that engine).
pub type Dialects<'a> = &'a [sqlwitness_dialect::Grammar];

/// The SQLite dialect alone: how every gold was read before other sources.
pub const SQLITE_ONLY: Dialects<'static> = &[sqlwitness_dialect::Grammar::Sqlite];

/// The dialects to read SQL written in `grammar`: its own
/// first, then SQLite's (a benchmark's shared gold is SQLite-written).
pub fn written_for(grammar: sqlwitness_dialect::Grammar) -> Vec<sqlwitness_dialect::Grammar> {
    let mut out = vec![grammar];
    if grammar != sqlwitness_dialect::Grammar::Sqlite {
        out.push(sqlwitness_dialect::Grammar::Sqlite);
    }
    out
}

/// The dialects to read a gold that runs on an engine of `kind` when it
/// may be the benchmark's shared, SQLite-written gold: SQLite's first (so
/// whatever it reads is read as before), then the engine's own.
pub fn sqlite_first(kind: sqlwitness_core::EngineKind) -> Vec<sqlwitness_dialect::Grammar> {
    let mut out = vec![sqlwitness_dialect::Grammar::Sqlite];
    let own = sqlwitness_dialect::shipped(kind).grammar;
    if own != sqlwitness_dialect::Grammar::Sqlite {
        out.push(own);
    }
    out
}

/// [`parse_bounded`] in the first of `dialects` that parses `sql`; the
/// first dialect's error when none does. A text over the operator bound is
/// refused at once.
pub fn parse_in(sql: &str, dialects: Dialects<'_>) -> Result<Vec<Statement>, BoundedParseError> {
    let mut first = None;
    for &d in dialects {
        match parse_bounded(crate::parser_dialect(d).as_ref(), sql) {
            Ok(s) => return Ok(s),
            Err(e @ BoundedParseError::TooDeep { .. }) => return Err(e),
            Err(e) => {
                first.get_or_insert(e);
            }
        }
    }
    Err(first.unwrap_or_else(|| BoundedParseError::Parse("no dialect to parse in".into())))
}

/// The number of tokens that can extend an expression or set-operation
/// chain: every symbol except punctuation, and the operator keywords.
pub fn chain_operators<'a>(tokens: impl Iterator<Item = &'a Token>) -> usize {
    tokens.filter(|t| is_chain_operator(t)).count()
}

fn is_chain_operator(t: &Token) -> bool {
    match t {
        Token::Word(w) => {
            w.quote_style.is_none()
                && matches!(
                    w.keyword,
                    Keyword::AND
                        | Keyword::OR
                        | Keyword::XOR
                        | Keyword::NOT
                        | Keyword::IS
                        | Keyword::IN
                        | Keyword::LIKE
                        | Keyword::ILIKE
                        | Keyword::GLOB
                        | Keyword::REGEXP
                        | Keyword::RLIKE
                        | Keyword::MATCH
                        | Keyword::SIMILAR
                        | Keyword::BETWEEN
                        | Keyword::COLLATE
                        | Keyword::ESCAPE
                        | Keyword::DIV
                        | Keyword::MOD
                        | Keyword::UNION
                        | Keyword::INTERSECT
                        | Keyword::EXCEPT
                        | Keyword::MINUS
                        | Keyword::OVERLAPS
                        | Keyword::AT
                )
        }
        t if crate::text::is_string_literal(t) => false,
        Token::EOF
        | Token::Number(..)
        | Token::Char(_)
        | Token::Comma
        | Token::Whitespace(_)
        | Token::LParen
        | Token::RParen
        | Token::Period
        | Token::SemiColon
        | Token::Placeholder(_) => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::SQLiteDialect;

    #[test]
    fn long_chains_are_not_parsed() {
        let d = SQLiteDialect {};
        for sql in [
            format!("SELECT 1{}", "+1".repeat(30_000)),
            format!(
                "SELECT a FROM t WHERE a = 1{}",
                " AND a = 1".repeat(300_000)
            ),
            format!("SELECT 1{}", " UNION SELECT 1".repeat(5_000)),
            format!("SELECT 1{}", "||'x'".repeat(10_000)),
        ] {
            match parse_bounded(&d, &sql) {
                Err(BoundedParseError::TooDeep { operators }) => assert!(operators > 400),
                other => panic!("{:?}", other.map(|s| s.len())),
            }
        }
    }

    #[test]
    fn ordinary_queries_parse() {
        let d = SQLiteDialect {};
        let sql = "SELECT a, count(*) FROM t JOIN u ON t.x = u.y WHERE a > 1 AND b LIKE '%x%' \
                   OR c IN (1, 2, 3) GROUP BY a HAVING count(*) >= 2 ORDER BY 2 DESC LIMIT 3";
        assert_eq!(parse_bounded(&d, sql).unwrap().len(), 1);
        // Operators inside strings and comments do not count.
        let sql = format!("SELECT '{}' -- {}", "+".repeat(5000), "AND ".repeat(500));
        assert_eq!(parse_bounded(&d, &sql).unwrap().len(), 1);
    }
}
