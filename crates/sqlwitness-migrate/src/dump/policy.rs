//! What a dump's loader runs, skips or refuses, statement by statement.
//!
//! A dump is input sqlwitness did not write. Privilege is the wall: it is
//! loaded into a namespace sqlwitness creates, under a login that owns only
//! that namespace, one statement at a time as the server itself parses it.
//! This policy is the second line, so that what would reach outside is
//! refused by name before anything runs: server files and programs (`COPY …
//! PROGRAM`, `COPY` to or from a server file, `LOAD DATA` of a server file
//! (the mysql client's `LOAD DATA LOCAL` is read by [`super::reading`]), `INTO OUTFILE`,
//! `DATA DIRECTORY`), roles and logins, server-wide settings, other
//! databases, other servers (foreign tables, `FEDERATED`), statements built
//! from strings at run time (`PREPARE`/`EXECUTE`), session settings the
//! loader could not follow ([`super::session`]). What only sets up the
//! dump's own environment (its `CREATE DATABASE` and `\connect`, owners and
//! grants, changes to extensions, the limits sqlwitness sets) is skipped
//! with a note: sqlwitness provides that environment. `CREATE EXTENSION`
//! is the server's to allow: the loader, no superuser, creates only the
//! extensions the server marks trusted, in the load's own database.
//!
//! The dump's own code — functions, procedures, triggers, rules, `DO`
//! blocks — is created and runs as the loader (MySQL's `DEFINER=` clause
//! left out, so that the loader is its definer): what a trigger writes
//! during the load is kept, and it can reach nothing the loader cannot.
//! Events (run on the server's schedule, after the load) are listed, not
//! created. A view, or code the server refuses, is listed with the
//! server's reason instead of stopping the load.

use super::session::{SetEffect, PG_LIMITS};
use super::split::{past_quoted, DumpDialect};

/// The loader's decision on one statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Run,
    /// Runs `sql` instead of the statement as written; why (for the import
    /// report).
    RunAs {
        sql: String,
        note: String,
        /// Run once after the dump's last statement, before the load ends
        /// (the same text once, however many statements ask for it).
        at_end: Option<String>,
    },
    /// The mysql client's `LOAD DATA LOCAL INFILE`, run as the `INSERT`s
    /// (each starting `head`) of the rows of the file at `path`, read as
    /// `spec` says; why (for the import report).
    LoadData {
        spec: Box<super::load_data::LoadData>,
        path: std::path::PathBuf,
        head: String,
        note: String,
    },
    /// Not run; why (for the import report).
    Skip(String),
    /// Not run and not noted on its own: a statement of a database of the
    /// dump the import does not load (noted once, where its statements
    /// begin).
    Ignore,
    /// Listed as an object the dump defines but sqlwitness does not create
    /// (kind and name).
    List {
        kind: String,
        name: String,
    },
    /// Creates a view or code (kind and name, as written), run as `sql`
    /// when given; one the server refuses is listed with its reason.
    Create {
        kind: String,
        name: String,
        sql: Option<String>,
    },
    /// The dump is refused; why.
    Refuse(String),
}

/// Tokens of a statement's head that [`classify`] reads (its kind, name
/// and clauses); the rest is scanned without being kept.
const HEAD: usize = 256;

/// Table engines whose tables live in the server's own files.
const LOCAL_ENGINES: [&str; 14] = [
    "INNODB",
    "MYISAM",
    "ARIA",
    "MEMORY",
    "HEAP",
    "ARCHIVE",
    "BLACKHOLE",
    "CSV",
    "MRG_MYISAM",
    "MERGE",
    "ROCKSDB",
    "TOKUDB",
    "SEQUENCE",
    "COLUMNSTORE",
];

/// `text` without MySQL's `DEFINER = user@host` clause (outside strings and
/// quoted names, before the kind of the object created: the object's own
/// text is kept), so that the login that runs it is the definer.
pub fn without_definer(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut copied = 0;
    let boundary = |i: usize| i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
    while i < b.len() {
        let word = |w: &str| {
            b.len() >= i + w.len()
                && text.is_char_boundary(i + w.len())
                && text[i..i + w.len()].eq_ignore_ascii_case(w)
                && boundary(i)
                && b.get(i + w.len())
                    .is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
        };
        if ["VIEW", "TRIGGER", "PROCEDURE", "FUNCTION", "EVENT"]
            .iter()
            .any(|w| word(w))
        {
            break;
        }
        match b[i] {
            q @ (b'\'' | b'"' | b'`') => i = past_quoted(b, i, q, q != b'`'),
            b'D' | b'd' if word("DEFINER") => {
                let mut j = i + 7;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                if b.get(j) != Some(&b'=') {
                    i += 7;
                    continue;
                }
                j += 1;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                // `user@host`, each part quoted or bare; or CURRENT_USER[()].
                loop {
                    if let Some(&q @ (b'\'' | b'"' | b'`')) = b.get(j) {
                        j = past_quoted(b, j, q, q != b'`');
                    } else {
                        while j < b.len()
                            && (b[j].is_ascii_alphanumeric()
                                || matches!(b[j], b'_' | b'.' | b'%' | b'-' | b'(' | b')'))
                        {
                            j += 1;
                        }
                    }
                    if b.get(j) == Some(&b'@') {
                        j += 1;
                    } else {
                        break;
                    }
                }
                out.push_str(&text[copied..i]);
                copied = j;
                i = j;
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// What the policy knows of the dump so far.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// The dump's own database (its first `CREATE DATABASE`, `USE` or
    /// `\connect`), which the namespace sqlwitness creates stands for.
    pub own_database: Option<String>,
    /// The loader session's settings as the statements so far leave them.
    pub session: super::session::Session,
    /// The roles a PostgreSQL dump made for itself (skipped, never
    /// created), as [`words`] spells their names.
    pub roles: std::collections::BTreeSet<String>,
    /// The one database to load of a dump of several (pg_dumpall's, or
    /// mysqldump's with `--databases`): only its statements are read.
    pub selected: Option<String>,
    /// Whether the statements read now are the selected database's (after
    /// its `\connect` or `USE`), and whether they ever were.
    pub in_selected: bool,
    pub entered_selected: bool,
    /// Whether the run of statements outside it read now was noted.
    pub outside_noted: bool,
}

/// The database a psql `\connect` (`command`) or a MySQL `USE` statement
/// switches to, as written (quotes removed); `None` for anything else.
/// psql's `\connect -reuse-previous=on "dbname='x'"` (pg_dumpall's form
/// for a name that needs quoting) gives `x`.
pub fn switches_to(dialect: DumpDialect, text: &str, command: bool) -> Option<String> {
    match (dialect, command) {
        (DumpDialect::Postgres, true) => {
            let args = psql_args(text);
            let head = args.first()?;
            if head != "\\c" && head != "\\connect" {
                return None;
            }
            let arg = args[1..].iter().find(|p| !p.starts_with('-'))?;
            let arg = arg.trim_end_matches(';');
            match arg.strip_prefix("dbname=") {
                // A connection string's value: quoted, `\'` and `\\` escaped.
                Some(v) => Some(
                    match v.strip_prefix('\'').and_then(|q| q.strip_suffix('\'')) {
                        Some(q) => q.replace("\\'", "'").replace("\\\\", "\\"),
                        None => v.to_string(),
                    },
                ),
                None => Some(arg.to_string()),
            }
        }
        (DumpDialect::Mysql, false) => {
            let w = words(dialect, text);
            if w.first().map(String::as_str) != Some("USE") || w.len() != 2 {
                return None;
            }
            // The token as written: `words` upper-cases a bare name.
            let toks: Vec<Tok> = tokens(dialect, text).collect();
            match toks.get(1)? {
                Tok::Word(name) => Some(name.to_string()),
                Tok::Quoted(q) => Some(name_of(dialect, q)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The words of a psql command line: separated by white space outside
/// quotes; a double-quoted part keeps its text (`""` is one quote), a
/// single-quoted one too (`''` is one quote, a backslash escapes the next
/// character).
fn psql_args(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut started = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if started {
                    out.push(std::mem::take(&mut cur));
                    started = false;
                }
            }
            '"' | '\'' => {
                started = true;
                while let Some(d) = chars.next() {
                    if d == c {
                        if chars.peek() == Some(&c) {
                            chars.next();
                            cur.push(c);
                            continue;
                        }
                        break;
                    }
                    if c == '\'' && d == '\\' {
                        if let Some(e) = chars.next() {
                            cur.push(e);
                        }
                        continue;
                    }
                    cur.push(d);
                }
            }
            c => {
                started = true;
                cur.push(c);
            }
        }
    }
    if started {
        out.push(cur);
    }
    out
}

/// Whether a statement creates, drops or alters a database other than
/// `selected` (a dump of several databases names each before switching to
/// it): not the selected database's to run.
pub fn names_other_database(dialect: DumpDialect, text: &str, selected: &str) -> bool {
    let w = words(dialect, text);
    let first = w.first().map(String::as_str).unwrap_or("");
    let second = w.get(1).map(String::as_str).unwrap_or("");
    let database = second == "DATABASE" || (dialect == DumpDialect::Mysql && second == "SCHEMA");
    if !(matches!(first, "CREATE" | "DROP" | "ALTER") && database) {
        return false;
    }
    after(&w, second).is_some_and(|t| !name_of(dialect, t).eq_ignore_ascii_case(selected))
}

/// A token of a statement: a keyword or bare name, a quoted name (as
/// written, with its quotes), a string (its content is not read), or
/// punctuation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tok<'a> {
    Word(&'a str),
    Quoted(&'a str),
    Str,
    Punct(&'a str),
}

impl Tok<'_> {
    /// Whether this is the keyword or bare name `word` (any case).
    pub(crate) fn is(&self, word: &str) -> bool {
        matches!(self, Tok::Word(w) if w.eq_ignore_ascii_case(word))
    }

    fn punct(&self, p: &str) -> bool {
        matches!(self, Tok::Punct(x) if *x == p)
    }

    /// The token as [`words`] gives it: a word upper-cased, a string `'`.
    fn text(&self) -> String {
        match self {
            Tok::Word(w) => w.to_ascii_uppercase(),
            Tok::Quoted(q) => q.to_string(),
            Tok::Str => "'".to_string(),
            Tok::Punct(p) => p.to_string(),
        }
    }
}

/// The tokens of a statement, read as they are needed (nothing is kept).
pub(crate) struct Tokens<'a> {
    dialect: DumpDialect,
    text: &'a str,
    i: usize,
}

impl Tokens<'_> {
    /// Where the next token is looked for: the end of the last one.
    pub(crate) fn offset(&self) -> usize {
        self.i
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Tok<'a>;

    fn next(&mut self) -> Option<Tok<'a>> {
        let (dialect, text) = (self.dialect, self.text);
        let b = text.as_bytes();
        let mut i = self.i;
        let out = loop {
            if i >= b.len() {
                self.i = i;
                return None;
            }
            let c = b[i];
            if c.is_ascii_whitespace() {
                i += 1;
            } else if b[i..].starts_with(b"--") || (c == b'#' && dialect == DumpDialect::Mysql) {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            } else if b[i..].starts_with(b"/*!") || b[i..].starts_with(b"/*M!") {
                // MySQL's executable comment: its content is a statement's.
                i += if b[i + 2] == b'M' { 4 } else { 3 };
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            } else if b[i..].starts_with(b"*/") && dialect == DumpDialect::Mysql {
                i += 2;
            } else if b[i..].starts_with(b"/*") {
                let mut depth = 0;
                while i < b.len() {
                    if b[i..].starts_with(b"/*") {
                        depth += 1;
                        i += 2;
                    } else if b[i..].starts_with(b"*/") {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            } else if c == b'\'' || (c == b'"' && dialect == DumpDialect::Mysql) {
                let backslash =
                    dialect == DumpDialect::Mysql || (i > 0 && matches!(b[i - 1], b'e' | b'E'));
                i = past_quoted(b, i, c, backslash);
                break Tok::Str;
            } else if c == b'"' || c == b'`' {
                let start = i;
                i = past_quoted(b, i, c, false);
                break Tok::Quoted(&text[start..i]);
            } else if c == b'$' && dialect == DumpDialect::Postgres {
                // A dollar-quoted body is a string here.
                let mut j = i + 1;
                while j < b.len() && b[j] != b'$' && (b[j].is_ascii_alphanumeric() || b[j] == b'_')
                {
                    j += 1;
                }
                if j < b.len()
                    && b[j] == b'$'
                    && !b[i + 1..j].first().is_some_and(u8::is_ascii_digit)
                {
                    let tag = &b[i..=j];
                    let mut k = j + 1;
                    while k < b.len() && !b[k..].starts_with(tag) {
                        k += 1;
                    }
                    i = (k + tag.len()).min(b.len());
                    break Tok::Str;
                }
                i += 1;
                break Tok::Punct("$");
            } else if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 {
                let start = i;
                while i < b.len()
                    && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'$') || b[i] >= 0x80)
                {
                    i += 1;
                }
                break Tok::Word(&text[start..i]);
            } else {
                let len = text[i..].chars().next().map_or(1, char::len_utf8);
                let p = &text[i..i + len];
                i += len;
                break Tok::Punct(p);
            }
        };
        self.i = i;
        Some(out)
    }
}

/// Every token of `text`, read as it is needed.
pub(crate) fn tokens(dialect: DumpDialect, text: &str) -> Tokens<'_> {
    Tokens {
        dialect,
        text,
        i: 0,
    }
}

/// The first [`HEAD`] tokens of `text` (words upper-cased, strings `'`).
pub(crate) fn words(dialect: DumpDialect, text: &str) -> Vec<String> {
    tokens(dialect, text).take(HEAD).map(|t| t.text()).collect()
}

/// What one pass over a whole statement finds beyond its head.
#[derive(Debug, Default)]
struct Scan {
    to: bool,
    from: bool,
    from_stdin: bool,
    from_program: bool,
    into_file: bool,
    directory: bool,
    tablespace_files: bool,
    soname: bool,
    set_config: bool,
    trigger_all: bool,
    /// A table option `CONNECTION` (outside the column list).
    connection: bool,
    /// A table option `ENGINE = name` (outside the column list).
    engine: Option<String>,
}

fn scan(dialect: DumpDialect, text: &str) -> Scan {
    let mut s = Scan::default();
    let mut depth = 0i32;
    let mut prev: Option<Tok> = None;
    let mut engine_next = 0u8;
    for t in tokens(dialect, text) {
        if let Some(p) = prev {
            let pair = |a: &str, b: &str| p.is(a) && t.is(b);
            s.from_stdin |= pair("FROM", "STDIN");
            s.from_program |= pair("FROM", "PROGRAM");
            s.into_file |= pair("INTO", "OUTFILE") || pair("INTO", "DUMPFILE");
            s.directory |= pair("DATA", "DIRECTORY") || pair("INDEX", "DIRECTORY");
            s.tablespace_files |= pair("DISCARD", "TABLESPACE") || pair("IMPORT", "TABLESPACE");
            s.trigger_all |= pair("TRIGGER", "ALL");
            if depth == 0 && p.is("CONNECTION") && (t.punct("=") || t == Tok::Str) {
                s.connection = true;
            }
        }
        s.to |= t.is("TO");
        s.from |= t.is("FROM");
        s.soname |= t.is("SONAME");
        s.set_config |= t.is("SET_CONFIG");
        match engine_next {
            1 if t.punct("=") => engine_next = 2,
            2 => {
                let name = match t {
                    Tok::Word(w) => w.to_ascii_uppercase(),
                    Tok::Quoted(q) => name_of(dialect, q).to_ascii_uppercase(),
                    _ => String::new(),
                };
                s.engine = Some(name);
                engine_next = 0;
            }
            _ => engine_next = 0,
        }
        if depth == 0 && t.is("ENGINE") {
            engine_next = 1;
        }
        if t.punct("(") {
            depth += 1;
        } else if t.punct(")") {
            depth -= 1;
        }
        prev = Some(t);
    }
    s
}

/// A name token without its quotes (`"Shop"` → `Shop`, `SHOP` → `shop`
/// for an unquoted PostgreSQL name, which folds to lower case).
fn name_of(dialect: DumpDialect, token: &str) -> String {
    let quoted = |q: char| token.len() >= 2 && token.starts_with(q) && token.ends_with(q);
    if quoted('"') {
        token[1..token.len() - 1].replace("\"\"", "\"")
    } else if quoted('`') {
        token[1..token.len() - 1].replace("``", "`")
    } else if dialect == DumpDialect::Postgres {
        token.to_lowercase()
    } else {
        // MySQL keeps the case as written; tokens were upper-cased.
        token.to_string()
    }
}

fn refuse(what: &str) -> Decision {
    Decision::Refuse(what.to_string())
}

fn skip(why: &str) -> Decision {
    Decision::Skip(why.to_string())
}

fn has(w: &[String], word: &str) -> bool {
    w.iter().any(|x| x == word)
}

fn has_pair(w: &[String], a: &str, b: &str) -> bool {
    w.windows(2).any(|p| p[0] == a && p[1] == b)
}

/// The token after the first `word` (skipping `IF [NOT] EXISTS`).
fn after<'a>(w: &'a [String], word: &str) -> Option<&'a String> {
    let at = w.iter().position(|x| x == word)?;
    let mut rest = w[at + 1..]
        .iter()
        .filter(|x| !matches!(x.as_str(), "IF" | "NOT" | "EXISTS"));
    rest.next()
}

/// The database a statement names, checked against (and, the first time,
/// setting) the dump's own.
fn own_database(
    ctx: &mut Context,
    dialect: DumpDialect,
    token: Option<&String>,
    action: &str,
) -> Decision {
    let Some(token) = token else {
        return refuse(&format!("{action} without a database name"));
    };
    // `raw` keeps the case as written for MySQL names (case-sensitive on
    // most servers' file systems).
    let name = name_of(dialect, token);
    match &ctx.own_database {
        None => {
            ctx.own_database = Some(name.clone());
            Decision::Skip(format!(
                "{action} {name}: the dump's own database is the namespace sqlwitness creates"
            ))
        }
        Some(own) if own.eq_ignore_ascii_case(&name) => Decision::Skip(format!(
            "{action} {name}: the dump's own database is the namespace sqlwitness creates"
        )),
        Some(own) if ctx.selected.is_some() => Decision::Refuse(format!(
            "{action} {name}: a statement on another database than the dump's own ({own})"
        )),
        Some(own) => Decision::Refuse(format!(
            "{action} {name}: a statement on another database than the dump's own ({own}); a \
             dump of several databases (pg_dumpall's, mysqldump's with --databases) is loaded one \
             database at a time: name it with --database"
        )),
    }
}

/// The loader's decision on a psql or mysql-client command line.
pub fn classify_command(dialect: DumpDialect, ctx: &mut Context, text: &str) -> Decision {
    let mut parts = text.split_whitespace();
    let head = parts.next().unwrap_or("");
    // psql's command names are case-sensitive (`\C` sets a title, `\c`
    // connects); the mysql client's are not.
    let name = match dialect {
        DumpDialect::Postgres => head.to_string(),
        DumpDialect::Mysql => head.to_ascii_lowercase(),
    };
    match (dialect, name.as_str()) {
        (DumpDialect::Postgres, "\\c" | "\\connect") => {
            let db = parts.next().map(|d| d.trim_end_matches(';').to_string());
            let token = db.map(|d| {
                if d.starts_with('"') {
                    d
                } else {
                    d.to_ascii_uppercase()
                }
            });
            own_database(ctx, dialect, token.as_ref(), "\\connect")
        }
        (DumpDialect::Postgres, "\\restrict" | "\\unrestrict") => {
            skip("a psql setting for the dump's own session")
        }
        (DumpDialect::Postgres, "\\encoding") => match parts.next() {
            Some(e) if super::encoding::TextEncoding::is_sql_ascii(e) => {
                ctx.session.lexing.encoding = super::encoding::TextEncoding::Utf8;
                skip("SQL_ASCII: the server checks the bytes as UTF-8, as the loader reads them")
            }
            Some(e) => match super::encoding::TextEncoding::from_postgres_name(e) {
                Some(encoding) => {
                    ctx.session.lexing.encoding = encoding;
                    Decision::Skip(format!(
                        "the dump's text after it is read as {} and sent as UTF-8",
                        encoding.name()
                    ))
                }
                None => Decision::Refuse(format!(
                    "\\encoding {e}: the dump is read as UTF-8 or a single-byte encoding \
                     (LATIN1, LATIN9, WIN1252)"
                )),
            },
            None => skip("a psql display setting"),
        },
        (DumpDialect::Postgres, "\\set") if parts.clone().next() == Some("ON_ERROR_STOP") => {
            let value: Vec<&str> = parts.skip(1).collect();
            match psql_bool(&value.concat()) {
                Some(on) => {
                    ctx.session.stop_on_error = on;
                    Decision::Skip(if on {
                        "ON_ERROR_STOP: the load stops at the first statement the server rejects, as psql stops".into()
                    } else {
                        "ON_ERROR_STOP off: the load goes on past a rejected statement, as psql goes on".into()
                    })
                }
                None => skip("ON_ERROR_STOP with a value psql does not take: psql leaves it as it was"),
            }
        }
        (DumpDialect::Postgres, "\\unset") if parts.clone().next() == Some("ON_ERROR_STOP") => {
            ctx.session.stop_on_error = false;
            skip("ON_ERROR_STOP off: the load goes on past a rejected statement, as psql goes on")
        }
        (DumpDialect::Postgres, "\\set" | "\\unset" | "\\pset" | "\\echo" | "\\timing") => {
            skip("a psql display or variable setting")
        }
        (DumpDialect::Postgres, h) if psql_shows_only(h) => skip(
            "a psql command that only shows something (a listing or how output looks): nothing \
             to load",
        ),
        (DumpDialect::Mysql, "delimiter") => skip("the statement terminator"),
        _ => Decision::Refuse(format!(
            "the client command `{head}` (files, programs and other connections are not the dump's to use)"
        )),
    }
}

/// Whether psql's command `head` only shows something: a
/// `\d…` listing of the catalog, `\l`, `\z`, a function's or view's
/// source, the connection, help, or how output looks. Nothing of the load
/// depends on it; a command that runs a query, writes a file or reads one
/// is not among them.
fn psql_shows_only(head: &str) -> bool {
    let Some(name) = head.strip_prefix('\\') else {
        return false;
    };
    let listing = name
        .strip_prefix('d')
        .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_alphabetic() || c == '+'));
    listing
        || matches!(
            name.trim_end_matches('+'),
            "l" | "list"
                | "z"
                | "sf"
                | "sv"
                | "lo_list"
                | "conninfo"
                | "copyright"
                | "errverbose"
                | "h"
                | "help"
                | "?"
                | "x"
                | "a"
                | "t"
                | "f"
                | "C"
                | "H"
                | "T"
                | "qecho"
                | "warn"
        )
}

/// A psql boolean variable's value as psql reads it (`\set NAME` alone
/// is on); `None` for one psql refuses (and leaves the variable as it was).
fn psql_bool(value: &str) -> Option<bool> {
    let v = value.trim_matches('\'').to_ascii_lowercase();
    if v.is_empty() {
        return Some(true);
    }
    let prefix_of = |word: &str, least: usize| v.len() >= least && word.starts_with(v.as_str());
    if prefix_of("true", 1) || prefix_of("yes", 1) || prefix_of("on", 2) || v == "1" {
        Some(true)
    } else if prefix_of("false", 1) || prefix_of("no", 1) || prefix_of("off", 2) || v == "0" {
        Some(false)
    } else {
        None
    }
}

/// A client command that reads another file as if its text stood here:
/// the mysql client's `source FILE` and `\. FILE`, psql's `\i FILE` and
/// `\include FILE` (named from the dump's folder, the client's working
/// folder when a publisher's instructions run it) and `\ir FILE`,
/// `\include_relative FILE` (from the folder of the file that names it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Include {
    /// The file as the command names it.
    pub file: String,
    /// Named from the including file's folder, not the dump's.
    pub relative_to_file: bool,
}

/// The file `text` (a client command) includes, if it is an include
/// command; `delimiter`: the mysql client's statement terminator, which
/// may end the command's line.
pub fn include_of(dialect: DumpDialect, text: &str, delimiter: &str) -> Option<Include> {
    let text = text.trim();
    let (head, rest) = match text.find(char::is_whitespace) {
        Some(i) => (&text[..i], text[i..].trim()),
        None => (text, ""),
    };
    let head = head.to_ascii_lowercase();
    let relative_to_file = match (dialect, head.as_str()) {
        (DumpDialect::Mysql, "source" | "\\.") => false,
        (DumpDialect::Postgres, "\\i" | "\\include") => false,
        (DumpDialect::Postgres, "\\ir" | "\\include_relative") => true,
        _ => return None,
    };
    let file = match dialect {
        // The rest of the line, without the terminator the line ends with.
        DumpDialect::Mysql => {
            let mut f = rest;
            for end in [delimiter, ";"] {
                if !end.is_empty() {
                    f = f.strip_suffix(end).unwrap_or(f).trim_end();
                }
            }
            f.to_string()
        }
        // psql's one argument, in single quotes when it holds a space.
        DumpDialect::Postgres => {
            let f = rest.trim_end_matches(';').trim();
            match f.strip_prefix('\'').and_then(|q| q.strip_suffix('\'')) {
                Some(quoted) => quoted.replace("''", "'"),
                None => f.split_whitespace().next().unwrap_or("").to_string(),
            }
        }
    };
    Some(Include {
        file,
        relative_to_file,
    })
}

/// The loader's decision on one statement; follows what it does to the
/// session's settings.
pub fn classify(dialect: DumpDialect, ctx: &mut Context, text: &str) -> Decision {
    let w = words(dialect, text);
    let first = w.first().map(String::as_str).unwrap_or("");
    let second = w.get(1).map(String::as_str).unwrap_or("");
    let role_word = |s: &str| matches!(s, "ROLE" | "USER" | "GROUP");
    // Common to both servers.
    if matches!(first, "CREATE" | "ALTER" | "DROP" | "RENAME")
        && role_word(second)
        && !(second == "USER" && w.get(2).map(String::as_str) == Some("MAPPING"))
    {
        if dialect == DumpDialect::Postgres {
            if let Some(d) = pg_own_role(ctx, &w, first) {
                return d;
            }
        }
        return refuse(&format!(
            "{first} {second}: roles and logins are not the dump's to change"
        ));
    }
    if matches!(first, "PREPARE" | "EXECUTE" | "DEALLOCATE") {
        return refuse(&format!(
            "{first}: a statement built or kept aside to run later is not read before it runs"
        ));
    }
    // A MySQL schema is a database; a PostgreSQL one is inside the dump's.
    let database = second == "DATABASE" || (dialect == DumpDialect::Mysql && second == "SCHEMA");
    if matches!(first, "CREATE" | "DROP" | "ALTER") && database {
        // The dump's own database: sqlwitness's namespace, created with its
        // own settings (an `ALTER DATABASE` of it is skipped too).
        return own_database(
            ctx,
            dialect,
            after(&w, second),
            &format!("{first} {second}"),
        );
    }
    let found = scan(dialect, text);
    let decision = match dialect {
        DumpDialect::Postgres => classify_postgres(ctx, text, &found, &w, first, second),
        DumpDialect::Mysql => classify_mysql(ctx, text, &found, &w, first, second),
    };
    if let Decision::Create { kind, .. } = &decision {
        if kind != "view" {
            ctx.session.defines_code = true;
        }
    }
    decision
}

fn classify_postgres(
    ctx: &mut Context,
    text: &str,
    found: &Scan,
    w: &[String],
    first: &str,
    second: &str,
) -> Decision {
    pg_copy(found, first)
        .or_else(|| pg_environment(w, first, second))
        .or_else(|| pg_server_wide(w, first, second))
        .or_else(|| pg_session(ctx, text, found, first))
        .or_else(|| pg_trigger_all(text, found, first, second))
        .or_else(|| pg_code(w, text, first))
        .unwrap_or(Decision::Run)
}

/// `COPY`: from the dump's own data only.
fn pg_copy(found: &Scan, first: &str) -> Option<Decision> {
    if first != "COPY" {
        return None;
    }
    Some(if found.to && !found.from {
        refuse("COPY … TO writes to a server file or program")
    } else if found.from_stdin {
        Decision::Run
    } else if found.from_program {
        refuse("COPY … FROM PROGRAM runs a program on the server")
    } else {
        refuse("COPY … FROM a server file reads outside the dump")
    })
}

/// A sample's own login, as PostgreSQL samples make one for their
/// exercises (`CREATE USER app WITH PASSWORD '…' VALID UNTIL 'infinity'`,
/// then `ALTER USER app SET statement_timeout = …`): skipped, never
/// created — the loader's login owns what the dump makes, and its `GRANT`s
/// to that login are skipped as every `GRANT` is. `None` (the dump is
/// refused) for a role that is no login (a group role), a role given a
/// privilege beyond logging in (`SUPERUSER`,
/// `CREATEDB`, `CREATEROLE`, `REPLICATION`, `BYPASSRLS`) or a membership
/// (`IN ROLE`, `ROLE`, `ADMIN`, `USER`), and for a change to any role the
/// dump did not make itself.
fn pg_own_role(ctx: &mut Context, w: &[String], first: &str) -> Option<Decision> {
    // `IN ROLE` and `IN GROUP` are memberships; `IN DATABASE` is not.
    const PRIVILEGED: [&str; 9] = [
        "SUPERUSER",
        "CREATEDB",
        "CREATEROLE",
        "REPLICATION",
        "BYPASSRLS",
        "ROLE",
        "ADMIN",
        "USER",
        "GROUP",
    ];
    let name = w.get(2)?;
    let options = &w[3..];
    if options.iter().any(|o| PRIVILEGED.contains(&o.as_str())) {
        return None;
    }
    // Only a plain name: a list, `ALL`, `CURRENT_USER` … are not the dump's.
    if matches!(
        name.as_str(),
        "ALL" | "CURRENT_USER" | "SESSION_USER" | "CURRENT_ROLE" | "IF"
    ) || !(name.starts_with('"') || name.chars().all(|c| c.is_alphanumeric() || c == '_'))
        || options.first().is_some_and(|o| o == ",")
    {
        return None;
    }
    match first {
        // A login (`CREATE USER`, `CREATE ROLE … LOGIN`); not a group role.
        "CREATE" if w[1] == "USER" || has(options, "LOGIN") => {
            ctx.roles.insert(name.clone());
        }
        "ALTER" if ctx.roles.contains(name) && !has(options, "RENAME") => {}
        _ => return None,
    }
    Some(skip(
        "a login the dump makes for itself: not created (the loader's login owns what the \
         dump makes)",
    ))
}

/// What sqlwitness provides: privileges, owners, the login, extensions and
/// languages are skipped.
fn pg_environment(w: &[String], first: &str, second: &str) -> Option<Decision> {
    if matches!(first, "GRANT" | "REVOKE") || has_pair(w, "DEFAULT", "PRIVILEGES") {
        return Some(skip("privileges are sqlwitness's to give: not applied"));
    }
    if matches!(first, "ALTER") && has_pair(w, "OWNER", "TO") {
        return Some(skip("ownership is the loader's: not applied"));
    }
    if (first == "SET" || first == "RESET")
        && (second == "ROLE" || second == "SESSION" && has(w, "AUTHORIZATION"))
    {
        return Some(skip("the loader's login is not changed"));
    }
    let third = w.get(2).map(String::as_str).unwrap_or("");
    let head5 = &w[..w.len().min(5)];
    // `CREATE [OR REPLACE] [TRUSTED] [PROCEDURAL] LANGUAGE`, `DROP` and
    // `ALTER [PROCEDURAL] LANGUAGE` — not a table or column that is named
    // `language` (Pagila's `public.language`).
    let language = matches!(first, "CREATE" | "DROP" | "ALTER")
        && head5
            .iter()
            .skip(1)
            .find(|x| !matches!(x.as_str(), "OR" | "REPLACE" | "TRUSTED" | "PROCEDURAL"))
            .is_some_and(|x| x == "LANGUAGE");
    // `CREATE EXTENSION` goes to the server, which decides by privilege:
    // the loader is no superuser, so only an extension the server marks
    // trusted (citext, uuid-ossp, pgcrypto, hstore …) is created, in the
    // load's own database, which is dropped after the import; another is
    // refused by the server and the load goes on, as psql goes on.
    if first == "CREATE" && second == "EXTENSION" {
        return Some(Decision::Run);
    }
    let extension = (matches!(first, "DROP" | "ALTER") && second == "EXTENSION")
        || (first == "COMMENT" && second == "ON" && third == "EXTENSION")
        || language;
    extension.then(|| {
        skip(
            "extensions and languages are the load's own database's: changed or dropped by \
             no dump's loader",
        )
    })
}

/// Statements that reach beyond the dump's namespace: server files,
/// settings, other servers.
fn pg_server_wide(w: &[String], first: &str, second: &str) -> Option<Decision> {
    let third = w.get(2).map(String::as_str).unwrap_or("");
    let server_wide = matches!(
        (first, second),
        ("ALTER", "SYSTEM")
            | ("CREATE" | "DROP" | "ALTER", "TABLESPACE")
            | ("CREATE" | "DROP" | "ALTER", "SERVER")
            | ("CREATE" | "DROP" | "ALTER", "SUBSCRIPTION")
            | ("CREATE" | "DROP" | "ALTER", "PUBLICATION")
            | ("LOAD", _)
            | ("IMPORT", "FOREIGN")
            | ("SECURITY", "LABEL")
            | ("REASSIGN" | "DROP", "OWNED")
    ) || (first == "CREATE" || first == "ALTER" || first == "DROP")
        && matches!(
            (second, third),
            ("FOREIGN", "DATA") | ("USER", "MAPPING") | ("EVENT", "TRIGGER") | ("FOREIGN", "TABLE")
        );
    server_wide.then(|| {
        refuse(&format!(
            "{first} {second}: reaches beyond the dump's namespace (server files, settings or other servers)"
        ))
    })
}

/// Session settings: `session_replication_role` done as it means, a `SET`
/// followed or kept from the dump, `set_config` of a followed setting
/// refused.
fn pg_session(ctx: &mut Context, text: &str, found: &Scan, first: &str) -> Option<Decision> {
    if let Some((sql, at_end)) = super::key_checks::replication_role(text) {
        // Only a superuser may set it; the loader owns the dump's tables
        // and does what it means with them (see `key_checks`).
        return Some(Decision::RunAs {
            sql,
            note: "session_replication_role: the dump's own triggers and foreign keys of every \
                   table switched as it says (foreign keys added again and validated at the \
                   end of the load; only a superuser may set it)"
                .into(),
            at_end: Some(at_end),
        });
    }
    if first == "SET" || first == "RESET" {
        return Some(match ctx.session.postgres_set(text) {
            SetEffect::Follow => Decision::Run,
            SetEffect::KeepLimits(why) | SetEffect::ReadByLoader(why) => Decision::Skip(why),
            SetEffect::Refuse(why) => Decision::Refuse(why),
        });
    }
    // A setting changed by a function call is not followed: the lexing
    // settings and the loader's limits only change by `SET`.
    if !found.set_config {
        return None;
    }
    let lower = text.to_ascii_lowercase();
    PG_LIMITS
        .iter()
        .chain(&["standard_conforming_strings", "client_encoding"])
        .find(|n| lower.contains(*n))
        .map(|name| {
            Decision::Refuse(format!(
                "set_config of {name}: the loader follows that setting by SET only"
            ))
        })
}

/// `ALTER TABLE … DISABLE|ENABLE TRIGGER ALL` (`pg_dump
/// --disable-triggers`): the key checks' triggers are the server's and
/// only a superuser may switch them; the loader owns the tables and does
/// what the switch means (see `key_checks`).
fn pg_trigger_all(text: &str, found: &Scan, first: &str, second: &str) -> Option<Decision> {
    if !(first == "ALTER" && second == "TABLE" && found.trigger_all) {
        return None;
    }
    if let Some((sql, at_end)) = super::key_checks::trigger_all(text) {
        return Some(Decision::RunAs {
            sql,
            note: "TRIGGER ALL: the dump's own triggers switched (TRIGGER USER); the table's \
                   foreign keys dropped for its rows, added again after them and validated \
                   at the end of the load (the server's key checks switch for a superuser only)"
                .into(),
            at_end: Some(at_end),
        });
    }
    trigger_all_to_user(text).map(|sql| Decision::RunAs {
        sql,
        note: "TRIGGER ALL run as TRIGGER USER: the dump's own triggers are switched, \
               the server's key checks stay on"
            .into(),
        at_end: None,
    })
}

/// The dump's code: a `DO` block, and the objects it creates, run by the
/// loader and listed.
fn pg_code(w: &[String], text: &str, first: &str) -> Option<Decision> {
    if first == "DO" {
        return Some(Decision::Create {
            kind: "code block (DO)".into(),
            name: String::new(),
            sql: None,
        });
    }
    created_object(DumpDialect::Postgres, w, text)
}

/// `ALTER TABLE … DISABLE|ENABLE TRIGGER ALL` as `… TRIGGER USER`.
fn trigger_all_to_user(text: &str) -> Option<String> {
    let upper = text.to_ascii_uppercase();
    let at = upper.rfind("TRIGGER ALL")?;
    let rest = upper[at + "TRIGGER ALL".len()..].trim();
    rest.is_empty()
        .then(|| format!("{}TRIGGER USER", &text[..at]))
}

fn classify_mysql(
    ctx: &mut Context,
    text: &str,
    found: &Scan,
    w: &[String],
    first: &str,
    second: &str,
) -> Decision {
    if first == "USE" {
        return own_database(ctx, DumpDialect::Mysql, w.get(1), "USE");
    }
    my_outside(found, w, first, second)
        .or_else(|| my_session(ctx, text, w, first))
        .or_else(|| my_server(first, second))
        .or_else(|| my_code(ctx, w, text))
        .or_else(|| my_own_database(ctx, text))
        .unwrap_or(Decision::Run)
}

/// Files, other servers' tables, privileges and logins: refused.
fn my_outside(found: &Scan, w: &[String], first: &str, second: &str) -> Option<Decision> {
    if first == "LOAD" {
        return Some(refuse("LOAD DATA / LOAD XML reads a file outside the dump"));
    }
    if found.into_file {
        return Some(refuse(
            "SELECT … INTO OUTFILE/DUMPFILE writes a server file",
        ));
    }
    if found.directory {
        return Some(refuse(
            "DATA/INDEX DIRECTORY places the table's files outside the server's own",
        ));
    }
    if found.tablespace_files {
        return Some(refuse(
            "DISCARD/IMPORT TABLESPACE reaches the server's files",
        ));
    }
    if found.soname {
        return Some(refuse("a function from a server library (SONAME)"));
    }
    if let Some(engine) = found
        .engine
        .as_ref()
        .filter(|e| !LOCAL_ENGINES.contains(&e.as_str()))
    {
        return Some(Decision::Refuse(format!(
            "ENGINE={engine}: a table whose rows live outside the server's own tables"
        )));
    }
    if found.connection && matches!(first, "CREATE" | "ALTER") && has(w, "TABLE") {
        return Some(refuse("a table CONNECTION reaches another server"));
    }
    if matches!(first, "GRANT" | "REVOKE")
        || (first == "SET" && matches!(second, "PASSWORD" | "ROLE" | "DEFAULT"))
    {
        return Some(refuse(&format!(
            "{first}: privileges and logins are not the dump's to change"
        )));
    }
    None
}

/// `SET`: replication settings skipped, the whole server's refused, the
/// session's followed or kept (see `session`).
fn my_session(ctx: &mut Context, text: &str, w: &[String], first: &str) -> Option<Decision> {
    if first != "SET" {
        return None;
    }
    if w.iter()
        .any(|x| matches!(x.as_str(), "SQL_LOG_BIN" | "GTID_PURGED"))
    {
        return Some(skip("replication settings are the server's"));
    }
    if w.iter()
        .any(|x| matches!(x.as_str(), "GLOBAL" | "PERSIST" | "PERSIST_ONLY"))
    {
        return Some(refuse("SET GLOBAL/PERSIST changes the whole server"));
    }
    match ctx.session.mysql_set(text) {
        SetEffect::Follow => None,
        SetEffect::KeepLimits(why) | SetEffect::ReadByLoader(why) => Some(Decision::Skip(why)),
        SetEffect::Refuse(why) => Some(Decision::Refuse(why)),
    }
}

/// Statements on the server rather than the dump's tables: `FLUSH` skipped
/// (MySQL's employees sample begins with `FLUSH LOGS`), the others refused.
fn my_server(first: &str, second: &str) -> Option<Decision> {
    if first == "FLUSH" {
        return Some(skip(
            "FLUSH acts on the server, not on the dump's tables: not run",
        ));
    }
    let server = matches!(
        first,
        "INSTALL"
            | "UNINSTALL"
            | "SHUTDOWN"
            | "KILL"
            | "RESET"
            | "PURGE"
            | "CHANGE"
            | "START"
            | "STOP"
            | "CLONE"
            | "HANDLER"
            | "SOURCE"
            | "SYSTEM"
            | "RESTART"
            | "BINLOG"
            | "CACHE"
    ) && !(first == "START" && second == "TRANSACTION")
        || matches!(
            (first, second),
            (
                "CREATE" | "ALTER" | "DROP",
                "SERVER" | "TABLESPACE" | "LOGFILE" | "SPATIAL" | "RESOURCE"
            )
        )
        || (first == "ALTER" && second == "INSTANCE");
    server.then(|| refuse(&format!("{first} {second}: a server-level statement")))
}

/// The dump's code, run by the loader and listed (with the dump's own
/// database left out of the names it qualifies).
fn my_code(ctx: &Context, w: &[String], text: &str) -> Option<Decision> {
    let listed = created_object(DumpDialect::Mysql, w, text)?;
    Some(match (listed, &ctx.own_database) {
        (
            Decision::Create {
                kind,
                name,
                sql: Some(sql),
            },
            Some(own),
        ) => Decision::Create {
            kind,
            name,
            sql: Some(own_database_left_out(&sql, own)),
        },
        (listed, _) => listed,
    })
}

/// MySQL Workbench's scripts name every table with the dump's database
/// (`` CREATE TABLE `northwind`.`orders` ``, `` REFERENCES `northwind`.`customers` ``):
/// the loader's database is the namespace sqlwitness creates, and it may
/// use no other; the statement runs with that qualifier left out.
fn my_own_database(ctx: &Context, text: &str) -> Option<Decision> {
    let own = ctx.own_database.as_ref()?;
    if !mentions(text, own) {
        return None;
    }
    let sql = own_database_left_out(text, own);
    (sql != text).then(|| Decision::RunAs {
        sql,
        note: format!(
            "the dump's own database {own} left out of the names it qualifies: \
             its tables are in the namespace sqlwitness creates"
        ),
        at_end: None,
    })
}

/// Whether `text` holds `name` anywhere, without case (a quick test before
/// reading its tokens).
fn mentions(text: &str, name: &str) -> bool {
    let name = name.as_bytes();
    !name.is_empty()
        && text
            .as_bytes()
            .windows(name.len())
            .any(|w| w.eq_ignore_ascii_case(name))
}

/// A MySQL view's `text` with the dump's own database `own` left out of
/// the names it qualifies (`` `own`.`film` `` → `` `film` ``): the dump's
/// database is the namespace sqlwitness creates, the loader session's own
/// database, and the loader may read no other. Only when every mention of
/// `own` is such a qualifier — never a name alone or after a dot, which
/// could be a table or an alias of that name; else `text` as it is, and the
/// server says what it cannot read.
fn own_database_left_out(text: &str, own: &str) -> String {
    const M: DumpDialect = DumpDialect::Mysql;
    let toks: Vec<Tok> = tokens(M, text).collect();
    // Every token but a string is a slice of `text`: its offset.
    let at = |s: &str| s.as_ptr() as usize - text.as_ptr() as usize;
    let mut cuts = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let word = match t {
            // The dump's own name as its statements read (`USE sakila`
            // is read in upper case): compared without case.
            Tok::Word(w) if w.eq_ignore_ascii_case(own) => w,
            Tok::Quoted(q) if q.starts_with('`') && name_of(M, q).eq_ignore_ascii_case(own) => q,
            _ => continue,
        };
        let after_dot = i > 0 && toks[i - 1].punct(".");
        match toks.get(i + 1) {
            Some(Tok::Punct(dot)) if *dot == "." && !after_dot => {
                cuts.push((at(word), at(dot) + dot.len()));
            }
            _ => return text.to_string(),
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for (start, end) in cuts {
        out.push_str(&text[copied..start]);
        copied = end;
    }
    out.push_str(&text[copied..]);
    out
}

/// Views and code (triggers, functions, procedures, rules, aggregates,
/// events): what becomes of a statement that creates one.
fn created_object(dialect: DumpDialect, w: &[String], text: &str) -> Option<Decision> {
    if w.first().map(String::as_str) != Some("CREATE") {
        return None;
    }
    const KINDS: [&str; 7] = [
        "VIEW",
        "TRIGGER",
        "FUNCTION",
        "PROCEDURE",
        "EVENT",
        "RULE",
        "AGGREGATE",
    ];
    // The kind is the first of these words before the object's name
    // (`CREATE OR REPLACE VIEW v`, `CREATE DEFINER=… TRIGGER t`,
    // `CREATE MATERIALIZED VIEW v`); a table whose column is named `event`
    // is a TABLE first.
    for (i, x) in w.iter().enumerate().skip(1) {
        if matches!(
            x.as_str(),
            "TABLE" | "INDEX" | "SEQUENCE" | "TYPE" | "DOMAIN" | "SCHEMA"
        ) {
            return None;
        }
        if KINDS.contains(&x.as_str()) {
            let mut at = i + 1;
            if w.get(at).map(String::as_str) == Some("IF") {
                at += 3;
            }
            // A qualified name: its parts and dots.
            let mut name = w.get(at).cloned().unwrap_or_default();
            while w.get(at + 1).map(String::as_str) == Some(".") {
                name.push('.');
                name.push_str(w.get(at + 2).map(String::as_str).unwrap_or(""));
                at += 2;
            }
            let name = name.to_lowercase();
            let materialized = w[..i].iter().any(|y| y == "MATERIALIZED");
            let kind = match x.as_str() {
                "VIEW" if materialized => "materialized view".to_string(),
                "EVENT" => {
                    return Some(Decision::List {
                        kind: "event".into(),
                        name,
                    })
                }
                other => other.to_lowercase(),
            };
            let sql = (dialect == DumpDialect::Mysql).then(|| without_definer(text));
            return Some(Decision::Create { kind, name, sql });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_commands_name_their_file_as_the_client_reads_it() {
        let my = |t: &str, d: &str| include_of(DumpDialect::Mysql, t, d);
        let pg = |t: &str| include_of(DumpDialect::Postgres, t, ";");
        let file = |i: Option<Include>| i.map(|i| (i.file, i.relative_to_file));
        assert_eq!(
            file(my("source load_departments.dump ;", ";")),
            Some(("load_departments.dump".into(), false))
        );
        assert_eq!(
            file(my("SOURCE rows.dump//", "//")),
            Some(("rows.dump".into(), false))
        );
        assert_eq!(
            file(my("\\. more/rows.dump", ";")),
            Some(("more/rows.dump".into(), false))
        );
        assert_eq!(file(my("system ls", ";")), None);
        assert_eq!(file(my("delimiter //", ";")), None);
        assert_eq!(
            file(pg("\\i schema.sql")),
            Some(("schema.sql".into(), false))
        );
        assert_eq!(
            file(pg("\\ir 'sub/my rows.sql'")),
            Some(("sub/my rows.sql".into(), true))
        );
        assert_eq!(
            file(pg("\\include_relative x.sql")),
            Some(("x.sql".into(), true))
        );
        assert_eq!(file(pg("\\copy t from 'x.csv'")), None);
        assert_eq!(file(pg("source x.sql")), None);
    }

    fn pg(text: &str) -> Decision {
        classify(DumpDialect::Postgres, &mut Context::default(), text)
    }

    fn my(ctx: &mut Context, text: &str) -> Decision {
        classify(DumpDialect::Mysql, ctx, text)
    }

    fn refused(d: &Decision) -> bool {
        matches!(d, Decision::Refuse(_))
    }

    #[test]
    fn postgres_reaching_outside_is_refused() {
        for s in [
            "COPY t FROM PROGRAM 'id'",
            "copy t from '/etc/passwd'",
            "COPY (SELECT 1) TO '/tmp/x'",
            "CREATE ROLE admin2 SUPERUSER",
            "ALTER USER postgres PASSWORD 'x'",
            "ALTER SYSTEM SET work_mem = '1TB'",
            "CREATE TABLESPACE t LOCATION '/tmp'",
            "LOAD 'plugin'",
            "CREATE SERVER s FOREIGN DATA WRAPPER postgres_fdw",
        ] {
            assert!(refused(&pg(s)), "{s}");
        }
        // Once the dump's own database is known, any other is refused.
        let mut ctx = Context {
            own_database: Some("shop".into()),
            ..Context::default()
        };
        assert!(refused(&classify(
            DumpDialect::Postgres,
            &mut ctx,
            "DROP DATABASE other"
        )));
        assert_eq!(pg("COPY public.t (a, b) FROM stdin"), Decision::Run);
        assert!(matches!(
            pg("ALTER TABLE public.t OWNER TO postgres"),
            Decision::Skip(_)
        ));
        assert!(matches!(
            pg("GRANT ALL ON SCHEMA public TO PUBLIC"),
            Decision::Skip(_)
        ));
        // The server decides by privilege which extension the loader
        // may create.
        assert_eq!(pg("CREATE EXTENSION IF NOT EXISTS plpgsql"), Decision::Run);
        assert!(matches!(
            pg("COMMENT ON EXTENSION citext IS 'x'"),
            Decision::Skip(_)
        ));
        assert!(matches!(pg("DROP EXTENSION citext"), Decision::Skip(_)));
        assert!(matches!(
            pg("ALTER EXTENSION citext UPDATE"),
            Decision::Skip(_)
        ));
        assert_eq!(
            pg("CREATE OR REPLACE VIEW v AS SELECT 1"),
            Decision::Create {
                kind: "view".into(),
                name: "v".into(),
                sql: None
            }
        );
        assert!(matches!(
            pg("CREATE MATERIALIZED VIEW m AS SELECT 1"),
            Decision::Create { kind, .. } if kind == "materialized view"
        ));
        assert_eq!(pg("CREATE TABLE event (trigger int)"), Decision::Run);
        // A column named like a keyword is a column.
        assert_eq!(
            pg("CREATE TABLE e (extension varchar(4), owner text)"),
            Decision::Run
        );
        // Keywords inside strings and bodies do not count.
        assert_eq!(
            pg("INSERT INTO t VALUES ('COPY t FROM PROGRAM')"),
            Decision::Run
        );
    }

    #[test]
    fn the_dumps_own_database_is_skipped_and_another_refused() {
        let mut ctx = Context::default();
        assert!(matches!(
            my(&mut ctx, "DROP DATABASE IF EXISTS `Chinook`"),
            Decision::Skip(_)
        ));
        assert!(matches!(
            my(&mut ctx, "CREATE DATABASE `Chinook`"),
            Decision::Skip(_)
        ));
        assert!(matches!(my(&mut ctx, "USE `Chinook`"), Decision::Skip(_)));
        assert!(refused(&my(&mut ctx, "USE mysql")));
        assert!(refused(&my(&mut ctx, "DROP DATABASE victim")));
        let mut ctx = Context::default();
        assert!(matches!(
            classify_command(DumpDialect::Postgres, &mut ctx, "\\c chinook;"),
            Decision::Skip(_)
        ));
        assert!(matches!(
            classify(
                DumpDialect::Postgres,
                &mut ctx,
                "DROP DATABASE IF EXISTS chinook"
            ),
            Decision::Skip(_)
        ));
        assert!(refused(&classify_command(
            DumpDialect::Postgres,
            &mut ctx,
            "\\! rm -rf /"
        )));
    }

    #[test]
    fn a_mysql_table_named_with_the_dumps_own_database_is_created_in_the_namespace() {
        let mut ctx = Context::default();
        assert!(matches!(
            my(
                &mut ctx,
                "CREATE SCHEMA IF NOT EXISTS `northwind` DEFAULT CHARACTER SET latin1"
            ),
            Decision::Skip(_)
        ));
        let text = "CREATE TABLE IF NOT EXISTS `northwind`.`orders` (`id` INT, \
                    `note` VARCHAR(9) DEFAULT 'northwind.x', CONSTRAINT `fk` FOREIGN KEY (`id`) \
                    REFERENCES `northwind`.`customers` (`id`))";
        let Decision::RunAs { sql, .. } = my(&mut ctx, text) else {
            panic!("run without the qualifier");
        };
        assert_eq!(
            sql,
            "CREATE TABLE IF NOT EXISTS `orders` (`id` INT, `note` VARCHAR(9) DEFAULT \
             'northwind.x', CONSTRAINT `fk` FOREIGN KEY (`id`) REFERENCES `customers` (`id`))"
        );
        // Named in a string only, or not at all: as written.
        for kept in [
            "INSERT INTO `orders` VALUES (1, 'northwind.x')",
            "INSERT INTO `orders` VALUES (2, 'x')",
        ] {
            assert_eq!(my(&mut ctx, kept), Decision::Run, "{kept}");
        }
    }

    #[test]
    fn a_mysql_view_loses_its_definer() {
        let mut ctx = Context::default();
        let text = "/*!50001 CREATE ALGORITHM=UNDEFINED */\n/*!50013 DEFINER=`root`@`localhost` \
                    SQL SECURITY DEFINER */\n/*!50001 VIEW `big` AS select 'DEFINER=x@y' AS `s` */";
        assert_eq!(
            my(&mut ctx, text),
            Decision::Create {
                kind: "view".into(),
                name: "`big`".into(),
                sql: Some(without_definer(text))
            }
        );
        assert_eq!(
            without_definer(text),
            "/*!50001 CREATE ALGORITHM=UNDEFINED */\n/*!50013  SQL SECURITY DEFINER */\n\
             /*!50001 VIEW `big` AS select 'DEFINER=x@y' AS `s` */"
        );
        assert_eq!(
            without_definer("CREATE DEFINER = root@'%' VIEW v AS SELECT 1"),
            "CREATE  VIEW v AS SELECT 1"
        );
        assert_eq!(
            without_definer("CREATE DEFINER=CURRENT_USER() VIEW v AS SELECT 1"),
            "CREATE  VIEW v AS SELECT 1"
        );
        let kept = "CREATE VIEW v AS SELECT * FROM t WHERE definer = 'x'";
        assert_eq!(without_definer(kept), kept);
    }

    #[test]
    fn a_mysql_view_reads_the_dumps_own_database_as_the_namespace() {
        let mut ctx = Context::default();
        my(&mut ctx, "USE `sakila`");
        let text = "/*!50001 CREATE ALGORITHM=UNDEFINED */ /*!50001 VIEW `sakila`.`v` AS select \
                    `sakila`.`f`.`title` AS `t`, 'sakila.film' AS `s` from (`sakila`.`film` `f` \
                    join sakila.film_actor `fa` on((`fa`.`film_id` = `f`.`film_id`))) */";
        let Decision::Create { sql: Some(sql), .. } = my(&mut ctx, text) else {
            panic!("a view is created");
        };
        assert_eq!(
            sql,
            "/*!50001 CREATE ALGORITHM=UNDEFINED */ /*!50001 VIEW `v` AS select `f`.`title` AS \
             `t`, 'sakila.film' AS `s` from (`film` `f` join film_actor `fa` on((`fa`.`film_id` \
             = `f`.`film_id`))) */"
        );
        // Named without quotes (Sakila's own schema file: `USE sakila`, then
        // `FROM sakila.film f`).
        let mut ctx = Context::default();
        my(&mut ctx, "USE sakila");
        let Decision::Create { sql: Some(sql), .. } = my(
            &mut ctx,
            "CREATE DEFINER=CURRENT_USER SQL SECURITY INVOKER VIEW actor_info AS \
             SELECT f.title FROM sakila.film f JOIN sakila.film_actor fa ON f.film_id = fa.film_id",
        ) else {
            panic!("a view is created");
        };
        assert!(
            sql.ends_with("FROM film f JOIN film_actor fa ON f.film_id = fa.film_id"),
            "{sql}"
        );
        // A table or alias that may share the name: the text as it is.
        for kept in [
            "CREATE VIEW v AS SELECT `sakila`.`a` FROM `t` `sakila`",
            "CREATE VIEW v AS SELECT sakila.a FROM sakila.sakila",
            "CREATE VIEW v AS SELECT `other`.`t`.`a` FROM `other`.`t`",
        ] {
            assert_eq!(
                my(&mut ctx, kept),
                Decision::Create {
                    kind: "view".into(),
                    name: "v".into(),
                    sql: Some(kept.to_string())
                },
                "{kept}"
            );
        }
    }

    /// A psql command that only shows something is skipped; one that runs
    /// a query, a program or reaches a file stays refused.
    #[test]
    fn psql_listings_are_skipped_and_other_commands_refused() {
        let mut ctx = Context::default();
        let mut pg = |t: &str| classify_command(DumpDialect::Postgres, &mut ctx, t);
        for t in [
            "\\dt (humanresources|person|production|purchasing|sales).*",
            "\\d+ person.address",
            "\\dn",
            "\\dT+",
            "\\l",
            "\\sf+ public.f",
            "\\x on",
            "\\qecho done",
            "\\C 'Report'",
        ] {
            assert!(matches!(pg(t), Decision::Skip(_)), "{t}");
        }
        for t in [
            "\\! id",
            "\\o /tmp/out",
            "\\g",
            "\\gexec",
            "\\lo_import /etc/passwd",
            "\\w /tmp/x",
            "\\setenv PAGER x",
            "\\cd /",
        ] {
            assert!(refused(&pg(t)), "{t}");
        }
    }

    #[test]
    fn the_database_a_dump_switches_to_is_read_as_the_client_reads_it() {
        let pg = |s: &str| switches_to(DumpDialect::Postgres, s, true);
        assert_eq!(pg("\\connect shop").as_deref(), Some("shop"));
        assert_eq!(pg("\\c \"My Shop\"").as_deref(), Some("My Shop"));
        assert_eq!(
            pg("\\connect -reuse-previous=on \"dbname='it\\'s'\"").as_deref(),
            Some("it's")
        );
        assert_eq!(pg("\\i other.sql"), None);
        // `\C` sets a table's title: no database.
        assert_eq!(pg("\\C 'Report'"), None);
        let my = |s: &str| switches_to(DumpDialect::Mysql, s, false);
        assert_eq!(my("USE `Shop`").as_deref(), Some("Shop"));
        assert_eq!(my("use shop").as_deref(), Some("shop"));
        assert_eq!(my("USE a b"), None);
        assert!(names_other_database(
            DumpDialect::Mysql,
            "DROP DATABASE IF EXISTS `b`",
            "a"
        ));
        assert!(!names_other_database(
            DumpDialect::Mysql,
            "CREATE DATABASE `A`",
            "a"
        ));
        assert!(names_other_database(
            DumpDialect::Postgres,
            "CREATE DATABASE other",
            "shop"
        ));
        assert!(!names_other_database(
            DumpDialect::Postgres,
            "CREATE TABLE other (a int)",
            "shop"
        ));
    }

    #[test]
    fn a_postgres_dumps_own_plain_login_is_skipped_and_any_other_role_refused() {
        let mut ctx = Context::default();
        let mut pg = |s: &str| classify(DumpDialect::Postgres, &mut ctx, s);
        for s in [
            "CREATE USER pgexercises with password '' VALID UNTIL 'infinity'",
            "ALTER USER pgexercises SET statement_timeout = 750",
            "CREATE ROLE \"App\" LOGIN PASSWORD 'x'",
            "ALTER ROLE \"App\" WITH PASSWORD 'y'",
            "ALTER ROLE pgexercises IN DATABASE exercises SET search_path = cd",
        ] {
            assert!(matches!(pg(s), Decision::Skip(_)), "{s}");
        }
        for s in [
            "CREATE ROLE admin2 SUPERUSER",
            "CREATE USER u2 WITH CREATEROLE",
            "CREATE ROLE u3 IN ROLE pg_read_server_files",
            "CREATE ROLE u4 ROLE postgres",
            "ALTER USER postgres PASSWORD 'x'",
            "ALTER USER pgexercises WITH SUPERUSER",
            "ALTER USER pgexercises RENAME TO postgres2",
            "ALTER ROLE ALL SET work_mem = '1MB'",
            "DROP ROLE pgexercises",
            "DROP USER IF EXISTS someone",
            "CREATE USER a, b",
            "CREATE ROLE readers",
        ] {
            assert!(refused(&pg(s)), "{s}");
        }
        // MySQL's accounts stay refused.
        assert!(refused(&my(
            &mut Context::default(),
            "CREATE USER 'app'@'%' IDENTIFIED BY 'x'"
        )));
    }

    #[test]
    fn mysql_reaching_outside_is_refused() {
        for s in [
            "LOAD DATA INFILE '/etc/passwd' INTO TABLE t",
            "LOAD DATA LOCAL INFILE 'x' INTO TABLE t",
            "SELECT * FROM t INTO OUTFILE '/tmp/x'",
            "CREATE USER x IDENTIFIED BY 'y'",
            "GRANT ALL ON *.* TO x",
            "SET GLOBAL max_connections = 1",
            "/*!40101 SET @@GLOBAL.sql_mode = '' */",
            "INSTALL PLUGIN x SONAME 'y'",
            "SHUTDOWN",
        ] {
            assert!(refused(&my(&mut Context::default(), s)), "{s}");
        }
        let mut ctx = Context::default();
        assert_eq!(my(&mut ctx, "/*!40101 SET NAMES utf8mb4 */"), Decision::Run);
        assert_eq!(my(&mut ctx, "LOCK TABLES `t` WRITE"), Decision::Run);
        // The dump's code is created with the loader as its definer.
        assert_eq!(
            my(
                &mut ctx,
                "/*!50003 CREATE*/ /*!50017 DEFINER=`root`@`localhost`*/ /*!50003 TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET @x=1 */"
            ),
            Decision::Create {
                kind: "trigger".into(),
                name: "tr".into(),
                sql: Some(
                    "/*!50003 CREATE*/ /*!50017 */ /*!50003 TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET @x=1 */"
                        .into()
                )
            }
        );
        assert!(ctx.session.defines_code);
        assert!(matches!(
            my(&mut ctx, "CREATE DEFINER=`root`@`%` EVENT e ON SCHEDULE EVERY 1 SECOND DO INSERT INTO t VALUES (1)"),
            Decision::List { kind, .. } if kind == "event"
        ));
    }

    #[test]
    fn statements_that_reach_outside_or_hide_what_they_run_are_refused() {
        for s in [
            "PREPARE s FROM @sql",
            "EXECUTE s",
            "CREATE TABLE t (a int) DATA DIRECTORY = '/tmp/x'",
            "/*!50100 CREATE TABLE t (a int) INDEX DIRECTORY='/tmp' */",
            "ALTER TABLE t DISCARD TABLESPACE",
            "CREATE TABLE f (a int) ENGINE=FEDERATED CONNECTION='mysql://u@h/db/t'",
            "CREATE TABLE c (a int) ENGINE = CONNECT TABLE_TYPE=CSV FILE_NAME='/etc/passwd'",
            "CREATE FUNCTION f RETURNS STRING SONAME 'lib.so'",
            "SET @@SESSION.max_statement_time = 0",
        ] {
            assert!(refused(&my(&mut Context::default(), s)), "{s}");
        }
        for s in [
            "PREPARE p AS SELECT 1",
            "SELECT pg_catalog.set_config('standard_conforming_strings', 'off', false)",
            "SELECT set_config('statement_timeout', '0', false)",
            "CREATE FOREIGN TABLE f (a int) SERVER s",
            "SET client_encoding = 'SJIS'",
        ] {
            assert!(refused(&pg(s)), "{s}");
        }
        // A column named engine or connection is a column.
        let mut ctx = Context::default();
        assert_eq!(
            my(
                &mut ctx,
                "CREATE TABLE cars (engine varchar(9), connection int) ENGINE=InnoDB"
            ),
            Decision::Run
        );
        assert_eq!(
            pg("SELECT pg_catalog.set_config('search_path', '', false)"),
            Decision::Run
        );
    }

    #[test]
    fn the_dumps_code_runs_as_the_loader_and_its_limits_are_sqlwitness_s() {
        let mut ctx = Context::default();
        assert!(matches!(
            classify(DumpDialect::Postgres, &mut ctx, "CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$"),
            Decision::Create { kind, .. } if kind == "function"
        ));
        assert!(ctx.session.defines_code);
        assert!(matches!(
            pg("DO $$BEGIN PERFORM 1; END$$"),
            Decision::Create { .. }
        ));
        assert!(matches!(pg("SET statement_timeout = 0"), Decision::Skip(_)));
        assert!(matches!(
            pg("CREATE OR REPLACE PROCEDURAL LANGUAGE plpgsql"),
            Decision::Skip(_)
        ));
        assert!(matches!(
            pg("ALTER PROCEDURAL LANGUAGE plpgsql OWNER TO postgres"),
            Decision::Skip(_)
        ));
        assert!(matches!(pg("DROP LANGUAGE plperl"), Decision::Skip(_)));
        // A table, and its key, named `language` (Pagila, Sakila).
        assert!(matches!(
            pg("CREATE TABLE public.language (language_id integer NOT NULL, name text)"),
            Decision::Run
        ));
        assert!(matches!(
            pg("ALTER TABLE ONLY public.language ADD CONSTRAINT language_pkey PRIMARY KEY (language_id)"),
            Decision::Run
        ));
        assert!(matches!(
            pg("ALTER TABLE public.t DISABLE TRIGGER ALL"),
            Decision::RunAs { sql, at_end: Some(_), .. } if sql.contains("DISABLE TRIGGER USER")
        ));
        let mut ctx = Context::default();
        assert_eq!(
            classify(
                DumpDialect::Postgres,
                &mut ctx,
                "SET standard_conforming_strings = off"
            ),
            Decision::Run
        );
        assert!(!ctx.session.lexing.standard_strings);
    }
}
