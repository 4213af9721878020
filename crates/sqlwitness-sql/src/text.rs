//! Tokens with their exact source text.

use sqlparser::dialect::Dialect;
use sqlparser::tokenizer::{Token, Tokenizer, TokenizerError};

/// A token and the slice of the source it came from.
pub struct SourceToken<'a> {
    pub token: Token,
    pub text: &'a str,
    /// Byte offset of `text` in the source.
    pub start: usize,
}

/// Tokenizes `sql` (whitespace and comments included, strings kept raw) and
/// pairs each token with its exact source text, so that concatenating the
/// texts gives `sql` back.
pub fn tokenize<'a>(
    dialect: &dyn Dialect,
    sql: &'a str,
) -> Result<Vec<SourceToken<'a>>, TokenizerError> {
    let tokens = Tokenizer::new(dialect, sql)
        .with_unescape(false)
        .tokenize_with_location()?;
    // The tokenizer reports 1-based (line, column) in characters, a newline
    // starting a new line; map them to byte offsets.
    let mut line_starts: Vec<Vec<usize>> = vec![Vec::new()];
    for (off, ch) in sql.char_indices() {
        line_starts.last_mut().expect("one line").push(off);
        if ch == '\n' {
            line_starts.push(Vec::new());
        }
    }
    let offset = |line: u64, column: u64| -> usize {
        let (l, c) = (line as usize, column as usize);
        l.checked_sub(1)
            .and_then(|l| line_starts.get(l))
            .and_then(|cols| c.checked_sub(1).and_then(|c| cols.get(c)))
            .copied()
            .unwrap_or(sql.len())
    };
    let mut out = Vec::with_capacity(tokens.len());
    let mut prev_end = 0;
    for t in tokens {
        let start = offset(t.span.start.line, t.span.start.column).max(prev_end);
        let end = offset(t.span.end.line, t.span.end.column).max(start);
        out.push(SourceToken {
            token: t.token,
            text: &sql[start..end],
            start,
        });
        prev_end = end;
    }
    Ok(out)
}

/// The `sqlparser` dialect of a grammar (an engine's dialect file names
/// its grammar: MariaDB's, extending MySQL's, is MySQL's): the dialect
/// `sqlparser` knows by the grammar's name, else its generic one.
pub fn parser_dialect(grammar: sqlwitness_dialect::Grammar) -> Box<dyn Dialect> {
    sqlparser::dialect::dialect_from_str(grammar.name())
        .unwrap_or_else(|| Box::new(sqlparser::dialect::GenericDialect {}))
}

/// True for a string literal token of any kind (quoted, dollar-quoted,
/// escaped, national, byte, raw, hex …).
pub fn is_string_literal(t: &Token) -> bool {
    matches!(
        t,
        Token::SingleQuotedString(_)
            | Token::DoubleQuotedString(_)
            | Token::TripleSingleQuotedString(_)
            | Token::TripleDoubleQuotedString(_)
            | Token::DollarQuotedString(_)
            | Token::SingleQuotedByteStringLiteral(_)
            | Token::DoubleQuotedByteStringLiteral(_)
            | Token::TripleSingleQuotedByteStringLiteral(_)
            | Token::TripleDoubleQuotedByteStringLiteral(_)
            | Token::SingleQuotedRawStringLiteral(_)
            | Token::DoubleQuotedRawStringLiteral(_)
            | Token::TripleSingleQuotedRawStringLiteral(_)
            | Token::TripleDoubleQuotedRawStringLiteral(_)
            | Token::NationalStringLiteral(_)
            | Token::QuoteDelimitedStringLiteral(_)
            | Token::NationalQuoteDelimitedStringLiteral(_)
            | Token::EscapedStringLiteral(_)
            | Token::UnicodeStringLiteral(_)
            | Token::HexStringLiteral(_)
    )
}

/// True for whitespace and comment tokens.
pub fn is_blank(t: &Token) -> bool {
    matches!(t, Token::Whitespace(_))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::SQLiteDialect;

    #[test]
    fn every_shipped_grammar_is_a_parser_dialect_of_its_name() {
        for kind in sqlwitness_core::EngineKind::BUILTIN {
            let grammar = sqlwitness_dialect::shipped(kind).grammar;
            assert!(
                sqlparser::dialect::dialect_from_str(grammar.name()).is_some(),
                "{kind}: grammar {grammar:?} is no sqlparser dialect"
            );
        }
        // An engine's own grammar reads its own syntax: MySQL's backquotes
        // and DuckDB's struct literals.
        for (grammar, sql) in [
            (sqlwitness_dialect::Grammar::Mysql, "SELECT `a` FROM t"),
            (
                sqlwitness_dialect::shipped(sqlwitness_core::EngineKind::Duckdb).grammar,
                "SELECT {'a': 1} AS s",
            ),
        ] {
            let d = parser_dialect(grammar);
            assert!(
                sqlparser::parser::Parser::parse_sql(d.as_ref(), sql).is_ok(),
                "{grammar:?}: {sql}"
            );
        }
    }

    #[test]
    fn texts_reassemble_the_source() {
        for sql in [
            "SELECT \"Name\", 'it''s'\n  FROM [t] -- c\nWHERE x >= 1 /* é */ AND y = 'ü'",
            "select\r\n`a`\tfrom b;",
            "",
        ] {
            let toks = tokenize(&SQLiteDialect {}, sql).unwrap();
            let joined: String = toks.iter().map(|t| t.text).collect();
            assert_eq!(joined, sql);
        }
    }
}
