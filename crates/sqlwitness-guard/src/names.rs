//! Names as the server resolves them.
//!
//! A hostile text spells a function or schema so that the server finds it
//! and a naive reader does not: in quotes (`"set_config"`, `` `get_lock` ``),
//! in another letter case, or, on PostgreSQL, with Unicode escapes
//! (`U&"pg_c\0061ncel_backend"`, `U&"pg_adv!0069sory_lock" UESCAPE '!'`),
//! which `sqlparser` reads as the column `U`, an `&` and an identifier
//! that still holds the escapes. [`significant`] turns the tokens into
//! the sequence the checks read: whitespace and comments dropped, and every
//! name with its quotes removed and its escapes decoded.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::Token;
use sqlwitness_dialect::Lexical;
use sqlwitness_sql::SourceToken;

use crate::guard::Refusal;

/// A name (an identifier or a keyword) as the server reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Name<'a> {
    /// Quotes removed, escapes decoded; unquoted names as written.
    pub value: String,
    pub quoted: bool,
    /// The keyword an unquoted name is (`NoKeyword` otherwise).
    pub keyword: Keyword,
    /// The text as written.
    pub text: &'a str,
}

impl Name<'_> {
    /// `value`, and how it was written when that differs.
    pub fn shown(&self) -> String {
        if self.text == self.value {
            format!("`{}`", self.value)
        } else {
            format!("`{}` (written `{}`)", self.value, self.text)
        }
    }
}

/// A token that is not whitespace or a comment.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Sig<'a> {
    Name(Name<'a>),
    Other(&'a Token),
}

impl<'a> Sig<'a> {
    pub fn is(&self, token: &Token) -> bool {
        matches!(self, Sig::Other(t) if *t == token)
    }

    pub fn name(&self) -> Option<&Name<'a>> {
        match self {
            Sig::Name(n) => Some(n),
            Sig::Other(_) => None,
        }
    }
}

/// The significant tokens of `tokens`, the tokens of `sql` (see the
/// module documentation); refused when a Unicode escape is invalid (the
/// server refuses it too).
pub(crate) fn significant<'a>(
    sql: &'a str,
    tokens: &'a [SourceToken<'a>],
    lexical: &Lexical,
) -> Result<Vec<Sig<'a>>, Refusal> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        i += 1;
        match &t.token {
            Token::Whitespace(_) => {}
            Token::Word(w) if w.quote_style.is_none() && lexical.unicode_escapes => {
                match unicode_name(sql, tokens, i - 1)? {
                    Some((name, next)) => {
                        out.push(Sig::Name(name));
                        i = next;
                    }
                    None => out.push(Sig::Name(plain(w, t.text))),
                }
            }
            Token::Word(w) => out.push(Sig::Name(plain(w, t.text))),
            other => out.push(Sig::Other(other)),
        }
    }
    Ok(out)
}

fn plain<'a>(w: &sqlparser::tokenizer::Word, text: &'a str) -> Name<'a> {
    match w.quote_style {
        None => Name {
            value: w.value.clone(),
            quoted: false,
            keyword: w.keyword,
            text,
        },
        Some(_) => Name {
            value: unquote(text),
            quoted: true,
            keyword: Keyword::NoKeyword,
            text,
        },
    }
}

/// A quoted identifier's name: the outer quotes removed and a doubled
/// closing quote read once (`"a""b"` is `a"b`, `[a]` is `a`).
fn unquote(text: &str) -> String {
    let mut chars = text.chars();
    let (Some(_), Some(close)) = (chars.next(), chars.next_back()) else {
        return String::new();
    };
    let doubled: String = [close, close].iter().collect();
    chars.as_str().replace(&doubled, &close.to_string())
}

/// `U&"…"` starting at `tokens[at]` (a word `U` or `u` written right
/// before `&` and a double-quoted identifier), with its `UESCAPE '…'` if
/// one follows: the decoded name and the index after it.
fn unicode_name<'a>(
    sql: &'a str,
    tokens: &'a [SourceToken<'a>],
    at: usize,
) -> Result<Option<(Name<'a>, usize)>, Refusal> {
    let [u, amp, ident, ..] = &tokens[at..] else {
        return Ok(None);
    };
    let adjacent = |a: &SourceToken<'_>, b: &SourceToken<'_>| a.start + a.text.len() == b.start;
    let is_u = matches!(&u.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("u"));
    let is_ident = matches!(&ident.token, Token::Word(w) if w.quote_style == Some('"'));
    if !(is_u
        && amp.token == Token::Ampersand
        && is_ident
        && adjacent(u, amp)
        && adjacent(amp, ident))
    {
        return Ok(None);
    }
    let mut next = at + 3;
    let mut end = ident.start + ident.text.len();
    let mut escape = '\\';
    if let Some((c, after, last)) = uescape(tokens, next)? {
        escape = c;
        next = after;
        end = last;
    }
    let text = &sql[u.start..end];
    let value = decode_unicode_escapes(&unquote(ident.text), escape)?;
    Ok(Some((
        Name {
            value,
            quoted: true,
            keyword: Keyword::NoKeyword,
            text,
        },
        next,
    )))
}

/// `UESCAPE 'c'` after the token at `from` (whitespace and comments
/// between): the escape character, the index after the literal and the
/// byte where it ends.
fn uescape(
    tokens: &[SourceToken<'_>],
    from: usize,
) -> Result<Option<(char, usize, usize)>, Refusal> {
    let mut sig = tokens[from..]
        .iter()
        .enumerate()
        .filter(|(_, t)| !matches!(t.token, Token::Whitespace(_)));
    let Some((_, kw)) = sig.next() else {
        return Ok(None);
    };
    if !matches!(&kw.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("uescape"))
    {
        return Ok(None);
    }
    let Some((k, lit)) = sig.next() else {
        return Err(Refusal("`UESCAPE` without its escape character".into()));
    };
    let Token::SingleQuotedString(s) = &lit.token else {
        return Err(Refusal("`UESCAPE` without its escape character".into()));
    };
    let mut chars = s.chars();
    let c = match (chars.next(), chars.next()) {
        (Some(c), None)
            if !c.is_ascii_hexdigit() && !matches!(c, '+' | '\'' | '"') && !c.is_whitespace() =>
        {
            c
        }
        _ => {
            return Err(Refusal(format!(
                "`UESCAPE '{s}'`: not a valid escape character"
            )))
        }
    };
    Ok(Some((c, from + k + 1, lit.start + lit.text.len())))
}

/// The text of a `U&` literal with its escapes decoded as PostgreSQL does:
/// `<esc><esc>` is the escape character itself, `<esc>XXXX` and
/// `<esc>+XXXXXX` a code point in hexadecimal (a UTF-16 surrogate pair as
/// two escapes); anything else after the escape character is an error.
pub(crate) fn decode_unicode_escapes(body: &str, escape: char) -> Result<String, Refusal> {
    let invalid = || Refusal(format!("an invalid Unicode escape in `{body}`"));
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    let mut high: Option<u32> = None;
    while let Some(c) = chars.next() {
        if c != escape {
            if high.is_some() {
                return Err(invalid());
            }
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&escape) {
            chars.next();
            if high.is_some() {
                return Err(invalid());
            }
            out.push(escape);
            continue;
        }
        let digits = if chars.peek() == Some(&'+') {
            chars.next();
            6
        } else {
            4
        };
        let hex: String = chars.by_ref().take(digits).collect();
        if hex.len() != digits || !hex.chars().all(|h| h.is_ascii_hexdigit()) {
            return Err(invalid());
        }
        let code = u32::from_str_radix(&hex, 16).map_err(|_| invalid())?;
        match (high.take(), code) {
            (None, 0xD800..=0xDBFF) => high = Some(code),
            (Some(h), 0xDC00..=0xDFFF) => {
                let joined = 0x10000 + ((h - 0xD800) << 10) + (code - 0xDC00);
                out.push(char::from_u32(joined).ok_or_else(invalid)?);
            }
            (None, code) if code != 0 => out.push(char::from_u32(code).ok_or_else(invalid)?),
            _ => return Err(invalid()),
        }
    }
    if high.is_some() {
        return Err(invalid());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlwitness_core::EngineKind;
    use sqlwitness_dialect::builtin;
    use sqlwitness_sql::{parser_dialect, tokenize};

    /// The names of `sql` as `kind`'s server reads them.
    fn names(kind: EngineKind, sql: &str) -> Result<Vec<(String, bool)>, Refusal> {
        let d = builtin(kind);
        let pd = parser_dialect(d.grammar);
        let tokens = tokenize(pd.as_ref(), sql).unwrap();
        let sigs = significant(sql, &tokens, &d.lexical)?;
        Ok(sigs
            .iter()
            .filter_map(Sig::name)
            .map(|n| (n.value.clone(), n.quoted))
            .collect())
    }

    fn first(kind: EngineKind, sql: &str) -> String {
        names(kind, sql).unwrap()[1].0.clone()
    }

    #[test]
    fn unicode_escapes_decode_as_postgresql_does() {
        let d = |s: &str, e: char| decode_unicode_escapes(s, e);
        assert_eq!(d(r"pg_c\0061ncel", '\\').unwrap(), "pg_cancel");
        assert_eq!(d(r"set_c\+00006Fnfig", '\\').unwrap(), "set_config");
        assert_eq!(d("adv!0069sory", '!').unwrap(), "advisory");
        assert_eq!(d(r"a\\b", '\\').unwrap(), r"a\b");
        assert_eq!(d("a!!b", '!').unwrap(), "a!b");
        // A UTF-16 surrogate pair is one character.
        assert_eq!(d(r"\D83D\DE00", '\\').unwrap(), "\u{1F600}");
        for bad in [
            r"\00",
            r"\zzzz",
            r"\D83D",
            r"\DE00",
            r"\0000",
            r"\+110000",
            r"a\",
        ] {
            assert!(d(bad, '\\').is_err(), "{bad}");
        }
    }

    #[test]
    fn unicode_identifiers_are_one_decoded_name() {
        use sqlwitness_core::builtin_engines::Postgres;
        assert_eq!(
            first(Postgres, r#"SELECT U&"pg_c\0061ncel_backend"(0)"#),
            "pg_cancel_backend"
        );
        assert_eq!(
            first(Postgres, r#"SELECT u&"set_c\+00006Fnfig"('a', 'b', true)"#),
            "set_config"
        );
        assert_eq!(
            first(
                Postgres,
                "SELECT U&\"pg_adv!0069sory_lock\" /* c */ UESCAPE\n'!'(42)"
            ),
            "pg_advisory_lock"
        );
        // After the escape clause, the call's parenthesis comes next.
        let all = names(Postgres, r#"SELECT U&"a!0062" UESCAPE '!'(1), x"#).unwrap();
        assert_eq!(
            all,
            vec![
                ("SELECT".to_string(), false),
                ("ab".to_string(), true),
                ("x".to_string(), false)
            ]
        );
        // `U & "x"` with spaces is a column `U` and an `&`: no escapes.
        assert_eq!(first(Postgres, r#"SELECT U & "a\0062""#), "U");
        // Other servers read `U&"…"` as `U & "…"` too.
        assert_eq!(first(EngineKind::Sqlite, r#"SELECT U&"a\0062""#), "U");
        for bad in [
            r#"SELECT U&"a\00zz"(1)"#,
            r#"SELECT U&"a!0062" UESCAPE '+'(1)"#,
            r#"SELECT U&"a!0062" UESCAPE '!!'(1)"#,
            r#"SELECT U&"a" UESCAPE 1"#,
        ] {
            assert!(names(Postgres, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn quoted_names_lose_their_quotes() {
        assert_eq!(
            names(EngineKind::Mysql, "SELECT `get_lock`(1), `a``b`").unwrap()[1..],
            [("get_lock".to_string(), true), ("a`b".to_string(), true)]
        );
        assert_eq!(
            names(EngineKind::Sqlite, r#"SELECT [x y], "a""b""#).unwrap()[1..],
            [("x y".to_string(), true), ("a\"b".to_string(), true)]
        );
    }
}
