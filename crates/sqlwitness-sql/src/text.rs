//! Tokens with their exact source text.

use sqlparser::dialect::Dialect;
use sqlparser::tokenizer::{Span, Token, TokenWithSpan, Tokenizer, TokenizerError};

/// A token and the slice of the source it came from.
pub struct SourceToken<'a> {
    pub token: Token,
    pub text: &'a str,
    /// Byte offset of `text` in the source.
    pub start: usize,
    /// The tokenizer's (line, column) span of the token.
    pub span: Span,
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
    let offsets = Offsets::new(sql);
    let offset = |line: u64, column: u64| offsets.of(line, column);
    let mut out = Vec::with_capacity(tokens.len());
    let mut prev_end = 0;
    for t in tokens {
        let start = offset(t.span.start.line, t.span.start.column).max(prev_end);
        let end = offset(t.span.end.line, t.span.end.column).max(start);
        out.push(SourceToken {
            token: t.token,
            text: &sql[start..end],
            start,
            span: t.span,
        });
        prev_end = end;
    }
    Ok(out)
}

/// Whether the tokens of `sql` read without unescaping ([`tokenize`]) are
/// the tokens the parser reads (with unescaping): the tokenizer unescapes
/// only a backslash in a string and a quote doubled inside a quoted string
/// or name, so a text with no backslash and no quote character twice in a
/// row (`''`, `""`, two backquotes, `]]`) tokenizes alike both ways.
pub fn tokens_are_unescaped(sql: &str) -> bool {
    let b = sql.as_bytes();
    !b.contains(&b'\\')
        && !b
            .windows(2)
            .any(|w| w[0] == w[1] && matches!(w[0], b'\'' | b'"' | b'`' | b']'))
}

/// The tokens of [`tokenize`] as the parser takes them; equal to what the
/// parser's own tokenizing makes of the text only where
/// [`tokens_are_unescaped`].
pub fn parser_tokens(tokens: &[SourceToken<'_>]) -> Vec<TokenWithSpan> {
    tokens
        .iter()
        .map(|t| TokenWithSpan::new(t.token.clone(), t.span))
        .collect()
}

/// The tokenizer's 1-based (line, column) positions, in characters (a
/// newline starts a new line), as byte offsets; a position past its line's
/// end is the end of the text.
enum Offsets<'a> {
    /// ASCII text: a column is a byte, so each line's start is enough.
    Ascii {
        sql: &'a str,
        line_starts: Vec<usize>,
    },
    /// Every character's offset, line by line, and the text's length.
    Chars(Vec<Vec<usize>>, usize),
}

impl<'a> Offsets<'a> {
    fn new(sql: &'a str) -> Offsets<'a> {
        if sql.is_ascii() {
            let line_starts = std::iter::once(0)
                .chain(sql.match_indices('\n').map(|(i, _)| i + 1))
                .collect();
            return Offsets::Ascii { sql, line_starts };
        }
        let mut lines: Vec<Vec<usize>> = vec![Vec::new()];
        for (off, ch) in sql.char_indices() {
            lines.last_mut().expect("one line").push(off);
            if ch == '\n' {
                lines.push(Vec::new());
            }
        }
        Offsets::Chars(lines, sql.len())
    }

    fn of(&self, line: u64, column: u64) -> usize {
        let (l, c) = (line as usize, column as usize);
        match self {
            Offsets::Ascii { sql, line_starts } => {
                let found = l.checked_sub(1).and_then(|l| {
                    let start = *line_starts.get(l)?;
                    // The line's characters, its newline included.
                    let end = line_starts.get(l + 1).copied().unwrap_or(sql.len());
                    c.checked_sub(1).map(|c| start + c).filter(|&off| off < end)
                });
                found.unwrap_or(sql.len())
            }
            Offsets::Chars(lines, len) => l
                .checked_sub(1)
                .and_then(|l| lines.get(l))
                .and_then(|cols| c.checked_sub(1).and_then(|c| cols.get(c)))
                .copied()
                .unwrap_or(*len),
        }
    }
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

/// The names `sql` calls as functions (a name followed by `(`, qualified
/// or not: the last part), in lower case, read in `grammar`'s tokens;
/// `None` when the text does not tokenize.
pub fn called_names(
    sql: &str,
    grammar: sqlwitness_dialect::Grammar,
) -> Option<std::collections::BTreeSet<String>> {
    let dialect = parser_dialect(grammar);
    let tokens = Tokenizer::new(&*dialect, sql).tokenize().ok()?;
    let mut significant = tokens.iter().filter(|t| !is_blank(t)).peekable();
    let mut out = std::collections::BTreeSet::new();
    while let Some(t) = significant.next() {
        if let Token::Word(w) = t {
            if significant.peek().is_some_and(|n| **n == Token::LParen) {
                out.insert(w.value.to_lowercase());
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::SQLiteDialect;

    #[test]
    fn called_names_are_the_names_before_a_parenthesis() {
        let g = sqlwitness_dialect::Grammar::Postgres;
        let names = called_names(
            "SELECT f.a, bookings.now() AS t, \"Lang\" (x), count(*) -- g(1)\n \
             FROM f WHERE f.b IN (1, 2) AND 'h(' <> COALESCE (f.c, '')",
            g,
        )
        .unwrap();
        let want: Vec<&str> = vec!["coalesce", "count", "in", "lang", "now"];
        assert_eq!(names.iter().map(String::as_str).collect::<Vec<_>>(), want);
        assert_eq!(called_names("SELECT 'open", g), None);
    }

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
    fn ascii_offsets_are_the_per_character_ones() {
        let sql = "SELECT a,\r\n  b -- c\nFROM t\n\nWHERE x = 'y'\n";
        let ascii = Offsets::new(sql);
        assert!(matches!(ascii, Offsets::Ascii { .. }));
        let mut lines: Vec<Vec<usize>> = vec![Vec::new()];
        for (off, ch) in sql.char_indices() {
            lines.last_mut().unwrap().push(off);
            if ch == '\n' {
                lines.push(Vec::new());
            }
        }
        let chars = Offsets::Chars(lines, sql.len());
        for line in 0..8 {
            for column in 0..20 {
                assert_eq!(
                    ascii.of(line, column),
                    chars.of(line, column),
                    "{line}:{column}"
                );
            }
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

    /// Where [`tokens_are_unescaped`] holds, the tokens made once serve the
    /// parser: equal, span for span, to its own tokenizing, in every
    /// grammar; where it does not, they may differ, and it says so.
    #[test]
    fn unescaped_tokens_are_the_parsers_where_the_text_allows() {
        use sqlparser::tokenizer::Tokenizer;
        let texts = [
            "SELECT \"Name\", 'its' FROM [t] -- c\nWHERE x >= 1 /* é */ AND y = 'ü'",
            "select `a` from b where c = \"d\" and e like '%x_';",
            "SELECT U&'d!0061t' UESCAPE '!', E'a' FROM t",
            "SELECT $$a'b$$, x'00', N'n', /*+ hint */ 1 FROM t",
            // From here on, texts the check sends to the parser's own tokenizing.
            "SELECT 'it''s', \"a\"\"b\", `c``d`, [e]]f] FROM t",
            r#"SELECT 'a\'b', "c\"d" FROM t"#,
            "SELECT '' FROM t",
            "SELECT '''x''' FROM t",
        ];
        for kind in sqlwitness_core::EngineKind::BUILTIN {
            let grammar = sqlwitness_dialect::shipped(kind).grammar;
            let d = parser_dialect(grammar);
            for sql in texts {
                let Ok(ours) = tokenize(d.as_ref(), sql) else {
                    continue;
                };
                let theirs = Tokenizer::new(d.as_ref(), sql).tokenize_with_location();
                if tokens_are_unescaped(sql) {
                    assert_eq!(parser_tokens(&ours), theirs.unwrap(), "{grammar:?}: {sql}");
                }
            }
        }
        for sql in &texts[..4] {
            assert!(tokens_are_unescaped(sql), "{sql}");
        }
        for sql in &texts[4..] {
            assert!(!tokens_are_unescaped(sql), "{sql}");
        }
        // One that would differ: the doubled quote is one quote to the parser.
        let d = parser_dialect(sqlwitness_dialect::Grammar::Sqlite);
        let sql = "SELECT 'a''b'";
        let raw = parser_tokens(&tokenize(d.as_ref(), sql).unwrap());
        let parsed = Tokenizer::new(d.as_ref(), sql).tokenize_with_location();
        assert_ne!(raw, parsed.unwrap());
    }
}
