//! The server's reading against the parser's: the guard checks what the
//! parser sees, so both must agree on which bytes are comments and which
//! are quoted.

use sqlparser::tokenizer::{Token, Whitespace};
use sqlwitness_sql::{is_string_literal, SourceToken};

use crate::guard::Refusal;
use crate::lexer::{Span, SpanKind};

/// The inert spans `sqlparser` sees, in the form of the server's
/// ([`crate::lexer::Span`]): comments whole, quoted tokens from their
/// opening quote.
fn parser_spans(tokens: &[SourceToken<'_>]) -> Vec<Span> {
    let mut out = Vec::new();
    for t in tokens {
        let kind = match &t.token {
            Token::Whitespace(Whitespace::SingleLineComment { .. })
            | Token::Whitespace(Whitespace::MultiLineComment(_)) => SpanKind::Comment,
            Token::Whitespace(_) => continue,
            Token::Word(w) if w.quote_style.is_some() => SpanKind::Quoted,
            t if is_string_literal(t) => SpanKind::Quoted,
            _ => continue,
        };
        let offset = match kind {
            SpanKind::Comment => 0,
            SpanKind::Quoted => t.text.find(['\'', '"', '`', '[', '$']).unwrap_or(0),
        };
        // A line comment's token may take the line end with it.
        let text = t.text.trim_end_matches(['\n', '\r']);
        let end = if kind == SpanKind::Comment && t.text.starts_with(['-', '#']) {
            t.start + text.len()
        } else {
            t.start + t.text.len()
        };
        out.push(Span {
            kind,
            start: t.start + offset,
            end,
        });
    }
    out
}

/// Refuses the text when the server and the parser disagree on what is a
/// comment or quoted: code one of them never reads as code.
pub(crate) fn compare(
    sql: &str,
    server: &[Span],
    tokens: &[SourceToken<'_>],
) -> Result<(), Refusal> {
    let parser = parser_spans(tokens);
    if parser.as_slice() == server {
        return Ok(());
    }
    let at = server
        .iter()
        .zip(&parser)
        .find(|(a, b)| a != b)
        .map(|(a, b)| a.start.min(b.start))
        .unwrap_or_else(|| {
            let n = server.len().min(parser.len());
            server
                .get(n)
                .or(parser.get(n))
                .map(|s| s.start)
                .unwrap_or(0)
        });
    let snippet: String = sql[floor_char_boundary(sql, at)..]
        .chars()
        .take(24)
        .collect();
    Err(Refusal(format!(
        "text the server reads differently from the parser near byte {at} (`{}`): a comment or quote one of them does not see",
        snippet.escape_debug()
    )))
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
