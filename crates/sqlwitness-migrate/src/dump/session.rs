//! What a dump's `SET` statements do to the loader's session: the settings
//! that change how the server lexes the statements after them are followed
//! (so that the splitter reads the next statement as the server will), the
//! limits sqlwitness gives the loader are kept (a `SET` of one is not run),
//! and a change the loader cannot follow before it runs is refused.
//!
//! Followed: PostgreSQL's `standard_conforming_strings` (`SET`, `RESET`);
//! MySQL's and MariaDB's `sql_mode` (its `NO_BACKSLASH_ESCAPES` and
//! `ANSI_QUOTES`, also through `ANSI`) and `character_set_client` (`SET
//! NAMES`, `SET CHARACTER SET`), including the saved-and-restored values
//! `mysqldump` writes (`SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE=…` and later
//! `SET SQL_MODE=@OLD_SQL_MODE`). A client character set whose multibyte
//! characters can hide a quote or a backslash (`sjis`, `gbk`, `big5` …),
//! a PostgreSQL client encoding other than UTF-8, and MariaDB's grammar
//! modes (`ORACLE`, `MSSQL` …) are refused: the dump is read as UTF-8.
//!
//! The loader checks the session's real settings after the statements that
//! may change them ([`Session::check_after`]) and refuses the dump when
//! they differ from what this model says.

use std::collections::HashMap;

use super::split::{DumpDialect, Lexing, TextEncoding};

/// PostgreSQL settings that bound what the loader may spend: sqlwitness sets
/// them; a dump's `SET` of one is not run.
pub const PG_LIMITS: [&str; 10] = [
    "statement_timeout",
    "lock_timeout",
    "idle_in_transaction_session_timeout",
    "idle_session_timeout",
    "transaction_timeout",
    "work_mem",
    "maintenance_work_mem",
    "temp_file_limit",
    "client_connection_check_interval",
    "hash_mem_multiplier",
];

/// MySQL and MariaDB settings that bound what the loader may spend: a
/// dump's statement that sets one is refused.
pub const MYSQL_LIMITS: [&str; 5] = [
    "max_execution_time",
    "max_statement_time",
    "max_session_mem_used",
    "tmp_table_size",
    "max_heap_table_size",
];

/// Client character sets in which every byte below 0x80 is the ASCII
/// character (no multibyte character holds a quote or a backslash).
const SAFE_CHARSETS: [&str; 31] = [
    "utf8", "utf8mb3", "utf8mb4", "ascii", "binary", "latin1", "latin2", "latin5", "latin7",
    "cp1250", "cp1251", "cp1256", "cp1257", "cp850", "cp852", "cp866", "koi8r", "koi8u", "greek",
    "hebrew", "armscii8", "keybcs2", "macce", "macroman", "swe7", "dec8", "hp8", "geostd8",
    "tis620", "cp1252", "default",
];

/// MariaDB `sql_mode`s that change the grammar itself.
const GRAMMAR_MODES: [&str; 5] = ["ORACLE", "MSSQL", "DB2", "MAXDB", "POSTGRESQL"];

/// A value a MySQL user variable holds, saved from a setting.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Saved {
    Mode { nbe: bool, ansi: bool },
    Charset(String),
}

/// What one statement does to the session's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetEffect {
    /// Nothing the loader follows (or a change already applied).
    Follow,
    /// Sets only limits sqlwitness keeps: not run; why.
    KeepLimits(String),
    /// Followed by the loader itself (the splitter reads the dump's text
    /// in the encoding it names): not run; why.
    ReadByLoader(String),
    Refuse(String),
}

/// The loader session's settings as the dump's statements leave them.
#[derive(Debug, Clone)]
pub struct Session {
    pub lexing: Lexing,
    /// MySQL's `character_set_client`.
    pub charset: String,
    saved: HashMap<String, Saved>,
    /// The dump defined code (functions, procedures, triggers, rules …)
    /// that later statements may run.
    pub defines_code: bool,
    /// psql's `ON_ERROR_STOP`, as the dump's own `\set` leaves it: the
    /// load stops at the first statement the server rejects.
    pub stop_on_error: bool,
}

impl Default for Session {
    fn default() -> Self {
        Session {
            lexing: Lexing::default(),
            charset: "utf8mb4".into(),
            saved: HashMap::new(),
            defines_code: false,
            stop_on_error: false,
        }
    }
}

/// A token of a `SET` statement, with its text.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    /// A name or keyword: upper-cased when bare, as written when quoted.
    Word(String),
    Str(String),
    Number(String),
    At,
    AtAt,
    Punct(char),
}

/// The tokens of a short statement (`SET`, `RESET`), with strings' content.
fn tokens(dialect: DumpDialect, lexing: Lexing, text: &str) -> Vec<Tok> {
    let b = text.as_bytes();
    let mysql = dialect == DumpDialect::Mysql;
    let mut out = Vec::new();
    let mut i = 0;
    let quoted = |i: usize, q: u8, escapes: bool| -> (String, usize) {
        let mut s = Vec::new();
        let mut j = i + 1;
        while j < b.len() {
            if escapes && b[j] == b'\\' && j + 1 < b.len() {
                s.push(b[j + 1]);
                j += 2;
            } else if b[j] == q {
                if b.get(j + 1) == Some(&q) {
                    s.push(q);
                    j += 2;
                } else {
                    j += 1;
                    break;
                }
            } else {
                s.push(b[j]);
                j += 1;
            }
        }
        (String::from_utf8_lossy(&s).into_owned(), j)
    };
    while i < b.len() {
        let c = b[i];
        let rest = &b[i..];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if mysql && (rest.starts_with(b"/*!") || rest.starts_with(b"/*M!")) {
            i += if rest[2] == b'M' { 4 } else { 3 };
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        } else if mysql && rest.starts_with(b"*/") {
            i += 2;
        } else if rest.starts_with(b"/*") {
            i = text[i + 2..].find("*/").map_or(b.len(), |j| i + 2 + j + 2);
        } else if rest.starts_with(b"--") || (mysql && c == b'#') {
            i = text[i..].find('\n').map_or(b.len(), |j| i + j);
        } else if c == b'\'' {
            let escapes = if mysql {
                !lexing.no_backslash_escapes
            } else {
                !lexing.standard_strings || matches!(out.last(), Some(Tok::Word(w)) if w == "E")
            };
            if !mysql && matches!(out.last(), Some(Tok::Word(w)) if w == "E") {
                out.pop();
            }
            let (s, j) = quoted(i, b'\'', escapes);
            out.push(Tok::Str(s));
            i = j;
        } else if c == b'"' && mysql && !lexing.ansi_quotes {
            let (s, j) = quoted(i, b'"', !lexing.no_backslash_escapes);
            out.push(Tok::Str(s));
            i = j;
        } else if c == b'"' || (c == b'`' && mysql) {
            let (s, j) = quoted(i, c, false);
            out.push(Tok::Word(s));
            i = j;
        } else if c == b'@' {
            if b.get(i + 1) == Some(&b'@') {
                out.push(Tok::AtAt);
                i += 2;
            } else {
                out.push(Tok::At);
                i += 1;
            }
        } else if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                i += 1;
            }
            out.push(Tok::Number(text[start..i].to_string()));
        } else if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80 {
            let start = i;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'$') || b[i] >= 0x80)
            {
                i += 1;
            }
            out.push(Tok::Word(text[start..i].to_ascii_uppercase()));
        } else {
            let ch = text[i..].chars().next().unwrap_or(' ');
            out.push(Tok::Punct(ch));
            i += ch.len_utf8();
        }
    }
    out
}

/// `toks` split at its top-level commas.
fn assignments(toks: &[Tok]) -> Vec<&[Tok]> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::Punct('(') => depth += 1,
            Tok::Punct(')') => depth -= 1,
            Tok::Punct(',') if depth == 0 => {
                out.push(&toks[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&toks[start..]);
    out
}

/// A value assigned by `SET`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    Text(String),
    Default,
    System(String),
    User(String),
    /// An expression read only when it runs.
    Other,
}

fn value_of(toks: &[Tok]) -> Value {
    match toks {
        [Tok::Word(w)] if w == "DEFAULT" => Value::Default,
        [Tok::Word(w)] | [Tok::Str(w)] | [Tok::Number(w)] => Value::Text(w.clone()),
        [Tok::AtAt, Tok::Word(n)] => Value::System(n.to_ascii_lowercase()),
        [Tok::AtAt, Tok::Word(_), Tok::Punct('.'), Tok::Word(n)] => {
            Value::System(n.to_ascii_lowercase())
        }
        [Tok::At, Tok::Word(n)] | [Tok::At, Tok::Str(n)] => Value::User(n.to_ascii_uppercase()),
        _ => Value::Other,
    }
}

/// The target, and the value's tokens, of one MySQL `SET` assignment:
/// `("@name", …)` for a user variable, `("names", …)` for `NAMES` and
/// `CHARACTER SET`, else the system variable's name; `global` for a
/// `GLOBAL`/`PERSIST` one.
fn mysql_target(a: &[Tok]) -> Option<(String, bool, &[Tok])> {
    let eq = |t: &[Tok]| -> Option<usize> {
        match t {
            [Tok::Punct('='), ..] => Some(1),
            [Tok::Punct(':'), Tok::Punct('='), ..] => Some(2),
            _ => None,
        }
    };
    match a {
        [Tok::Word(w), rest @ ..] if w == "NAMES" || w == "CHARSET" => {
            Some(("names".into(), false, rest))
        }
        [Tok::Word(c), Tok::Word(s), rest @ ..] if c == "CHARACTER" && s == "SET" => {
            Some(("names".into(), false, rest))
        }
        [Tok::At, Tok::Word(n), rest @ ..] | [Tok::At, Tok::Str(n), rest @ ..] => {
            let k = eq(rest)?;
            Some((format!("@{}", n.to_ascii_uppercase()), false, &rest[k..]))
        }
        [Tok::AtAt, Tok::Word(scope), Tok::Punct('.'), Tok::Word(n), rest @ ..] => {
            let k = eq(rest)?;
            let global = matches!(scope.as_str(), "GLOBAL" | "PERSIST" | "PERSIST_ONLY");
            Some((n.to_ascii_lowercase(), global, &rest[k..]))
        }
        [Tok::AtAt, Tok::Word(n), rest @ ..] => {
            let k = eq(rest)?;
            Some((n.to_ascii_lowercase(), false, &rest[k..]))
        }
        [Tok::Word(scope), Tok::Word(n), rest @ ..]
            if matches!(
                scope.as_str(),
                "GLOBAL" | "SESSION" | "LOCAL" | "PERSIST" | "PERSIST_ONLY"
            ) =>
        {
            let k = eq(rest)?;
            let global = !matches!(scope.as_str(), "SESSION" | "LOCAL");
            Some((n.to_ascii_lowercase(), global, &rest[k..]))
        }
        [Tok::Word(n), rest @ ..] => {
            let k = eq(rest)?;
            Some((n.to_ascii_lowercase(), false, &rest[k..]))
        }
        _ => None,
    }
}

/// `NO_BACKSLASH_ESCAPES` and `ANSI_QUOTES` of an `sql_mode` value; an
/// error names a grammar mode.
fn modes(value: &str) -> Result<(bool, bool), SetEffect> {
    let mut nbe = false;
    let mut ansi = false;
    for m in value.split(',').map(|m| m.trim().to_ascii_uppercase()) {
        match m.as_str() {
            "NO_BACKSLASH_ESCAPES" => nbe = true,
            "ANSI_QUOTES" | "ANSI" => ansi = true,
            g if GRAMMAR_MODES.contains(&g) => {
                return Err(SetEffect::Refuse(format!(
                    "sql_mode {g} changes the server's grammar beyond what the loader follows"
                )))
            }
            _ => {}
        }
    }
    Ok((nbe, ansi))
}

/// Whether the client character set `name` reads every ASCII byte as
/// itself.
pub fn safe_charset(name: &str) -> bool {
    let n = name.trim().to_ascii_lowercase();
    SAFE_CHARSETS.contains(&n.as_str())
}

impl Session {
    /// Follows a MySQL `SET` statement (`text`, its executable-comment
    /// markers allowed).
    pub fn mysql_set(&mut self, text: &str) -> SetEffect {
        let toks = tokens(DumpDialect::Mysql, self.lexing, text);
        let Some(Tok::Word(first)) = toks.first() else {
            return SetEffect::Follow;
        };
        if first != "SET" {
            return SetEffect::Follow;
        }
        // `SET TRANSACTION …`, `SET PASSWORD …` and the like assign nothing
        // this model follows.
        for a in assignments(&toks[1..]) {
            let Some((target, _global, value)) = mysql_target(a) else {
                continue;
            };
            if let Err(refused) = self.mysql_assign(&target, value_of(value)) {
                return refused;
            }
        }
        SetEffect::Follow
    }

    /// Follows one assignment of a MySQL `SET` to `target` (as
    /// [`mysql_target`] names it); the refusal when the loader cannot.
    fn mysql_assign(&mut self, target: &str, value: Value) -> Result<(), SetEffect> {
        if let Some(user) = target.strip_prefix('@') {
            self.save(user, &value);
            return Ok(());
        }
        if MYSQL_LIMITS.contains(&target) {
            return Err(SetEffect::Refuse(format!(
                "sets {target}, a limit sqlwitness gives the loader"
            )));
        }
        match target {
            "sql_mode" => self.set_sql_mode(value),
            "names" | "character_set_client" => self.set_client_charset(value),
            _ => Ok(()),
        }
    }

    /// The user variable `user` (upper-cased) set to `value`: it holds the
    /// session's `sql_mode` or client character set when `value` is that
    /// setting, and nothing this model follows otherwise.
    fn save(&mut self, user: &str, value: &Value) {
        match value {
            Value::System(s) if s == "sql_mode" => {
                self.saved.insert(
                    user.to_string(),
                    Saved::Mode {
                        nbe: self.lexing.no_backslash_escapes,
                        ansi: self.lexing.ansi_quotes,
                    },
                );
            }
            Value::System(s) if s == "character_set_client" => {
                self.saved
                    .insert(user.to_string(), Saved::Charset(self.charset.clone()));
            }
            _ => {
                self.saved.remove(user);
            }
        }
    }

    /// Follows `sql_mode` set to `value` (a list of modes, itself, or a
    /// user variable that saved it); the refusal for a grammar mode or a
    /// value known only when it runs.
    fn set_sql_mode(&mut self, value: Value) -> Result<(), SetEffect> {
        let (nbe, ansi) = match value {
            Value::Text(t) => modes(&t)?,
            Value::System(ref s) if s == "sql_mode" => return Ok(()),
            Value::User(ref u) => match self.saved.get(u) {
                Some(Saved::Mode { nbe, ansi }) => (*nbe, *ansi),
                _ => {
                    return Err(SetEffect::Refuse(format!(
                        "sets sql_mode from @{}, which holds no sql_mode saved by the dump",
                        u.to_ascii_lowercase()
                    )))
                }
            },
            _ => {
                return Err(SetEffect::Refuse(
                    "sets sql_mode to a value known only when it runs".into(),
                ))
            }
        };
        self.lexing.no_backslash_escapes = nbe;
        self.lexing.ansi_quotes = ansi;
        Ok(())
    }

    /// Follows the client character set (`SET NAMES`, `CHARACTER SET`,
    /// `character_set_client`) set to `value`; the refusal for a character
    /// set whose multibyte characters can hide a quote or a backslash, or a
    /// value known only when it runs.
    fn set_client_charset(&mut self, value: Value) -> Result<(), SetEffect> {
        let charset = match value {
            Value::Text(t) => t,
            Value::System(ref s) if s == "character_set_client" => return Ok(()),
            Value::User(ref u) => match self.saved.get(u) {
                Some(Saved::Charset(c)) => c.clone(),
                _ => {
                    return Err(SetEffect::Refuse(format!(
                        "sets the client character set from @{}, which holds none saved by the \
                         dump",
                        u.to_ascii_lowercase()
                    )))
                }
            },
            // `SET NAMES DEFAULT`: the server's default, a character set
            // sqlwitness chose for its session.
            Value::Default => "utf8mb4".to_string(),
            _ => {
                return Err(SetEffect::Refuse(
                    "sets the client character set to a value known only when it runs".into(),
                ))
            }
        };
        if !safe_charset(&charset) {
            return Err(SetEffect::Refuse(format!(
                "client character set {charset}: its multibyte characters can hide \
                 a quote or a backslash; the dump is read as UTF-8"
            )));
        }
        self.charset = charset.to_ascii_lowercase();
        Ok(())
    }

    /// Follows a PostgreSQL `SET` or `RESET` statement.
    pub fn postgres_set(&mut self, text: &str) -> SetEffect {
        let toks = tokens(DumpDialect::Postgres, self.lexing, text);
        let word = |i: usize| match toks.get(i) {
            Some(Tok::Word(w)) => w.as_str(),
            _ => "",
        };
        match word(0) {
            "RESET" => {
                let name = word(1).to_ascii_lowercase();
                if name == "all" || name == "standard_conforming_strings" {
                    // The loader's own value (sqlwitness sets the role's).
                    self.lexing.standard_strings = true;
                }
                if name == "all" || name == "client_encoding" {
                    // The loader's session speaks UTF-8.
                    self.lexing.encoding = TextEncoding::Utf8;
                }
                if PG_LIMITS.contains(&name.as_str()) {
                    return SetEffect::KeepLimits(format!(
                        "{name} is a limit sqlwitness gives the loader: not reset"
                    ));
                }
                SetEffect::Follow
            }
            "SET" => {
                let (local, at) = match word(1) {
                    "LOCAL" => (true, 2),
                    "SESSION" => (false, 2),
                    _ => (false, 1),
                };
                let name = word(at).to_ascii_lowercase();
                if name == "names" {
                    return self.client_encoding(value_of(&toks[at + 1..]));
                }
                let value = match toks.get(at + 1) {
                    Some(Tok::Punct('=')) => value_of(&toks[at + 2..]),
                    Some(Tok::Word(w)) if w == "TO" => value_of(&toks[at + 2..]),
                    Some(Tok::Word(w)) if w == "FROM" => return SetEffect::Follow,
                    _ => Value::Other,
                };
                if PG_LIMITS.contains(&name.as_str()) {
                    return SetEffect::KeepLimits(format!(
                        "{name} is a limit sqlwitness gives the loader: not changed"
                    ));
                }
                match name.as_str() {
                    "standard_conforming_strings" => {
                        if local {
                            return SetEffect::Refuse(
                                "SET LOCAL standard_conforming_strings (it reverts when the \
                                 transaction ends)"
                                    .into(),
                            );
                        }
                        let on = match value {
                            Value::Default => Some(true),
                            Value::Text(t) => match t.to_ascii_lowercase().as_str() {
                                "on" | "true" | "yes" | "1" => Some(true),
                                "off" | "false" | "no" | "0" => Some(false),
                                _ => None,
                            },
                            _ => None,
                        };
                        match on {
                            Some(on) => {
                                self.lexing.standard_strings = on;
                                SetEffect::Follow
                            }
                            None => SetEffect::Refuse(
                                "sets standard_conforming_strings to a value the loader cannot read"
                                    .into(),
                            ),
                        }
                    }
                    "client_encoding" => self.client_encoding(value),
                    _ => SetEffect::Follow,
                }
            }
            _ => SetEffect::Follow,
        }
    }

    fn client_encoding(&mut self, value: Value) -> SetEffect {
        if matches!(&value, Value::Text(t) if TextEncoding::is_sql_ascii(t)) {
            self.lexing.encoding = TextEncoding::Utf8;
            return SetEffect::ReadByLoader(
                "client encoding SQL_ASCII: the server takes the bytes as they are and checks \
                 them as its own encoding, UTF-8; the loader reads them as UTF-8 alike"
                    .into(),
            );
        }
        let named = match value {
            Value::Default => Some(TextEncoding::Utf8),
            Value::Text(ref t) => TextEncoding::from_postgres_name(t),
            _ => {
                return SetEffect::Refuse(
                    "sets the client encoding to a value the loader cannot read".into(),
                )
            }
        };
        match (named, value) {
            (Some(TextEncoding::Utf8), _) => {
                self.lexing.encoding = TextEncoding::Utf8;
                SetEffect::Follow
            }
            (Some(e), _) => {
                self.lexing.encoding = e;
                SetEffect::ReadByLoader(format!(
                    "client encoding {}: the dump's text after it is read as {} and sent as \
                     UTF-8, as the server converts it",
                    e.name(),
                    e.name()
                ))
            }
            (None, Value::Text(t)) => SetEffect::Refuse(format!(
                "client encoding {t}: the dump is read as UTF-8 or a single-byte encoding \
                 (LATIN1, LATIN9, WIN1252)"
            )),
            (None, _) => SetEffect::Refuse(
                "sets the client encoding to a value the loader cannot read".into(),
            ),
        }
    }

    /// Whether the loader must read the session's settings back after a
    /// statement of `first` word: one that sets, resets or may run code.
    pub fn check_after(&self, dialect: DumpDialect, first: &str, text: &str) -> bool {
        if self.defines_code {
            return true;
        }
        let by_word = match dialect {
            DumpDialect::Postgres => {
                matches!(
                    first,
                    "SET" | "RESET" | "SELECT" | "DO" | "CALL" | "WITH" | "VALUES"
                )
            }
            DumpDialect::Mysql => matches!(first, "SET" | "CALL" | "DO" | "SELECT"),
        };
        by_word
            || text
                .as_bytes()
                .windows(10)
                .any(|w| w.eq_ignore_ascii_case(b"set_config"))
    }
}

/// Whether a PostgreSQL encoding name is UTF-8.
pub fn is_utf8_name(name: &str) -> bool {
    let n: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    n == "utf8" || n == "unicode"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mysqldump_s_saved_modes_and_character_sets_are_followed() {
        let mut s = Session::default();
        for t in [
            "/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */",
            "/*!50503 SET NAMES utf8mb4 */",
            "/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO,NO_BACKSLASH_ESCAPES' */",
        ] {
            assert_eq!(s.mysql_set(t), SetEffect::Follow, "{t}");
        }
        assert!(s.lexing.no_backslash_escapes);
        assert_eq!(
            s.mysql_set("/*!40101 SET SQL_MODE=@OLD_SQL_MODE */"),
            SetEffect::Follow
        );
        assert!(!s.lexing.no_backslash_escapes);
        assert_eq!(
            s.mysql_set("SET @@SESSION.sql_mode = 'ANSI'"),
            SetEffect::Follow
        );
        assert!(s.lexing.ansi_quotes);
        assert_eq!(s.mysql_set("SET sql_mode = ''"), SetEffect::Follow);
        assert!(!s.lexing.ansi_quotes);
        assert_eq!(
            s.mysql_set("/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */"),
            SetEffect::Follow
        );
    }

    #[test]
    fn the_client_character_set_follows_its_value() {
        let mut s = Session::default();
        assert_eq!(s.set_client_charset(Value::Text("LATIN1".into())), Ok(()));
        assert_eq!(s.charset, "latin1");
        assert_eq!(s.set_client_charset(Value::Default), Ok(()));
        assert_eq!(s.charset, "utf8mb4");
        // A variable that saved the sql_mode holds no character set.
        s.save("OLD", &Value::System("sql_mode".into()));
        assert!(matches!(
            s.set_client_charset(Value::User("OLD".into())),
            Err(SetEffect::Refuse(_))
        ));
        s.set_client_charset(Value::Text("cp1251".into())).unwrap();
        s.save("OLD", &Value::System("character_set_client".into()));
        s.set_client_charset(Value::Text("utf8".into())).unwrap();
        assert_eq!(s.set_client_charset(Value::User("OLD".into())), Ok(()));
        assert_eq!(s.charset, "cp1251");
    }

    #[test]
    fn changes_the_loader_cannot_follow_are_refused() {
        for t in [
            "SET sql_mode = CONCAT(@@sql_mode, ',ANSI_QUOTES')",
            "SET sql_mode = @never_saved",
            "SET NAMES sjis",
            "SET character_set_client = gbk",
            "SET CHARACTER SET big5",
            "SET sql_mode = 'ORACLE'",
            "SET max_statement_time = 0",
            "SET SESSION max_execution_time = 0, @x = 1",
        ] {
            assert!(
                matches!(Session::default().mysql_set(t), SetEffect::Refuse(_)),
                "{t}"
            );
        }
        for t in [
            "SET LOCAL standard_conforming_strings = off",
            "SET client_encoding = 'SJIS'",
            "SET NAMES 'BIG5'",
            "SET standard_conforming_strings = maybe",
        ] {
            assert!(
                matches!(Session::default().postgres_set(t), SetEffect::Refuse(_)),
                "{t}"
            );
        }
    }

    #[test]
    fn postgres_standard_strings_and_limits() {
        let mut s = Session::default();
        assert_eq!(
            s.postgres_set("SET standard_conforming_strings = off"),
            SetEffect::Follow
        );
        assert!(!s.lexing.standard_strings);
        assert_eq!(s.postgres_set("RESET ALL"), SetEffect::Follow);
        assert!(s.lexing.standard_strings);
        assert_eq!(
            s.postgres_set("SET SESSION standard_conforming_strings TO 'off'"),
            SetEffect::Follow
        );
        assert!(!s.lexing.standard_strings);
        assert!(matches!(
            s.postgres_set("SET statement_timeout = 0"),
            SetEffect::KeepLimits(_)
        ));
        assert_eq!(
            s.postgres_set("SET client_encoding = 'UTF8'"),
            SetEffect::Follow
        );
        assert_eq!(s.postgres_set("SET search_path = ''"), SetEffect::Follow);
        // A single-byte encoding is read by the loader, not set.
        assert!(matches!(
            s.postgres_set("SET client_encoding = 'LATIN1'"),
            SetEffect::ReadByLoader(_)
        ));
        assert_eq!(s.lexing.encoding, TextEncoding::Latin1);
        assert_eq!(s.postgres_set("RESET client_encoding"), SetEffect::Follow);
        assert_eq!(s.lexing.encoding, TextEncoding::Utf8);
        assert!(matches!(
            s.postgres_set("SET NAMES 'WIN1252'"),
            SetEffect::ReadByLoader(_)
        ));
        assert_eq!(
            s.postgres_set("SET client_encoding TO 'utf-8'"),
            SetEffect::Follow
        );
        // SQL_ASCII: the server checks the bytes as UTF-8; not run.
        assert!(matches!(
            s.postgres_set("SET client_encoding = 'SQL_ASCII'"),
            SetEffect::ReadByLoader(_)
        ));
        assert_eq!(s.lexing.encoding, TextEncoding::Utf8);
        assert_eq!(s.lexing.encoding, TextEncoding::Utf8);
    }
}
