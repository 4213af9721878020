//! Splitting a SQL dump into statements, as a stream: the lexical rules of
//! the dump's own client (psql for PostgreSQL, the mysql client for MySQL
//! and MariaDB), so that a `;` inside a string, a quoted name, a comment or
//! a dollar-quoted body never ends a statement.
//!
//! PostgreSQL: `'…'` (with `''`), `E'…'` (backslash escapes), `"…"`,
//! `$tag$…$tag$`, `--` and nested `/* */` comments; a line starting with a
//! backslash outside a statement is a psql command; `COPY … FROM stdin` is
//! followed by its data lines up to `\.`.
//!
//! MySQL: `'…'` and `"…"` with backslash escapes, `` `…` ``, `-- `, `#` and
//! `/* */` comments (`/*!…*/` is kept: the server runs it); a `DELIMITER`
//! line changes the statement terminator.
//!
//! The input is read a line at a time: memory follows the longest statement
//! (a multi-row `INSERT`), never the dump; `COPY` data is handed on in
//! chunks.

use std::collections::VecDeque;
use std::io::BufRead;

/// Which client's rules a dump follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DumpDialect {
    Postgres,
    Mysql,
}

/// Bytes of `COPY` data per [`Item::CopyData`].
const COPY_CHUNK: usize = 1 << 20;

/// One piece of a dump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A statement without its terminator, with the line it starts on.
    Statement { line: usize, text: String },
    /// A client command (psql's `\c db`, the mysql client's `DELIMITER`).
    Command { line: usize, text: String },
    /// Lines of data of the `COPY … FROM stdin` before it (each ending in
    /// `\n`).
    CopyData(Vec<u8>),
    /// The end of a `COPY`'s data (`\.`, or the end of the dump).
    CopyEnd { line: usize },
}

/// A dump that cannot be read: not UTF-8, or it ends inside a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitError {
    pub line: usize,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Lex {
    Normal,
    /// In a `'…'` string; `true` when backslash escapes apply.
    Single(bool),
    Double,
    Backtick,
    /// In a block comment of this nesting depth.
    Block(usize),
    /// In a dollar-quoted body with this tag (`$tag$`).
    Dollar(String),
}

/// The statements of a dump, read from `reader`.
pub struct Splitter<R> {
    reader: R,
    dialect: DumpDialect,
    line_no: usize,
    lex: Lex,
    buf: String,
    start_line: usize,
    delimiter: String,
    in_copy: bool,
    copy_buf: Vec<u8>,
    out: VecDeque<Item>,
    done: bool,
    raw: Vec<u8>,
}

impl<R: BufRead> Splitter<R> {
    pub fn new(reader: R, dialect: DumpDialect) -> Self {
        Splitter {
            reader,
            dialect,
            line_no: 0,
            lex: Lex::Normal,
            buf: String::new(),
            start_line: 0,
            delimiter: ";".into(),
            in_copy: false,
            copy_buf: Vec::new(),
            out: VecDeque::new(),
            done: false,
            raw: Vec::new(),
        }
    }

    fn read_line(&mut self) -> Result<bool, SplitError> {
        self.raw.clear();
        let n = self
            .reader
            .read_until(b'\n', &mut self.raw)
            .map_err(|e| SplitError {
                line: self.line_no + 1,
                message: format!("cannot read: {e}"),
            })?;
        if n == 0 {
            return Ok(false);
        }
        self.line_no += 1;
        Ok(true)
    }

    fn copy_line(&mut self) {
        let trimmed = trim_eol(&self.raw);
        if trimmed == b"\\." {
            self.flush_copy();
            self.out.push_back(Item::CopyEnd { line: self.line_no });
            self.in_copy = false;
            return;
        }
        self.copy_buf.extend_from_slice(trimmed);
        self.copy_buf.push(b'\n');
        if self.copy_buf.len() >= COPY_CHUNK {
            self.flush_copy();
        }
    }

    fn flush_copy(&mut self) {
        if !self.copy_buf.is_empty() {
            self.out
                .push_back(Item::CopyData(std::mem::take(&mut self.copy_buf)));
        }
    }

    fn text_line(&mut self) -> Result<(), SplitError> {
        let line = std::str::from_utf8(&self.raw)
            .map_err(|e| SplitError {
                line: self.line_no,
                message: format!("not UTF-8 ({e})"),
            })?
            .to_string();
        let pending = self.buf.trim().is_empty() && self.lex == Lex::Normal;
        if pending {
            let t = line.trim();
            let command = match self.dialect {
                DumpDialect::Postgres => t.starts_with('\\'),
                DumpDialect::Mysql => {
                    let lower = t.to_ascii_lowercase();
                    lower.starts_with("delimiter ") || lower == "delimiter" || t.starts_with('\\')
                }
            };
            if command {
                self.buf.clear();
                if self.dialect == DumpDialect::Mysql
                    && t.to_ascii_lowercase().starts_with("delimiter")
                {
                    let d = t["delimiter".len()..].trim();
                    if !d.is_empty() {
                        self.delimiter = d.to_string();
                    }
                }
                self.out.push_back(Item::Command {
                    line: self.line_no,
                    text: t.to_string(),
                });
                return Ok(());
            }
        }
        self.scan(&line);
        Ok(())
    }

    /// Lexes one line into the statement buffer, ending statements at the
    /// delimiter.
    fn scan(&mut self, line: &str) {
        let b = line.as_bytes();
        let mut i = 0;
        let mut seg = 0; // start of the part of `line` not yet in `buf`
        while i < b.len() {
            if self.buf.trim().is_empty() && seg == i && self.lex == Lex::Normal {
                if b[i].is_ascii_whitespace() {
                    i += 1;
                    seg = i;
                    continue;
                }
                self.start_line = self.line_no;
            }
            match self.lex.clone() {
                Lex::Normal => {
                    let rest = &b[i..];
                    if rest.starts_with(self.delimiter.as_bytes()) {
                        self.buf.push_str(&line[seg..i]);
                        i += self.delimiter.len();
                        seg = i;
                        self.end_statement();
                        continue;
                    }
                    let c = b[i];
                    let comment_line = rest.starts_with(b"--")
                        && (self.dialect == DumpDialect::Postgres
                            || rest.len() == 2
                            || rest[2].is_ascii_whitespace())
                        || (c == b'#' && self.dialect == DumpDialect::Mysql);
                    if comment_line {
                        // Kept out of the statement: the rest of the line.
                        self.buf.push_str(&line[seg..i]);
                        self.buf.push('\n');
                        i = b.len();
                        seg = i;
                        continue;
                    }
                    if rest.starts_with(b"/*") {
                        let executable = self.dialect == DumpDialect::Mysql
                            && (rest.starts_with(b"/*!") || rest.starts_with(b"/*M!"));
                        if !executable {
                            self.buf.push_str(&line[seg..i]);
                            self.lex = Lex::Block(1);
                            i += 2;
                            seg = i;
                            continue;
                        }
                        i += 2;
                        continue;
                    }
                    match c {
                        b'\'' => {
                            let escapes = match self.dialect {
                                DumpDialect::Mysql => true,
                                DumpDialect::Postgres => {
                                    i > 0
                                        && matches!(b[i - 1], b'e' | b'E')
                                        && (i < 2 || !is_ident_byte(b[i - 2]))
                                }
                            };
                            self.lex = Lex::Single(escapes);
                        }
                        b'"' => self.lex = Lex::Double,
                        b'`' if self.dialect == DumpDialect::Mysql => self.lex = Lex::Backtick,
                        b'$' if self.dialect == DumpDialect::Postgres => {
                            if let Some(tag) = dollar_tag(rest) {
                                if i == 0 || !is_ident_byte(b[i - 1]) {
                                    i += tag.len();
                                    self.lex = Lex::Dollar(tag);
                                    continue;
                                }
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                Lex::Single(escapes) => {
                    let (next, closed) = in_quotes(b, i, b'\'', escapes);
                    i = next;
                    if closed {
                        self.lex = Lex::Normal;
                    }
                }
                Lex::Double | Lex::Backtick => {
                    let (q, escapes) = if self.lex == Lex::Double {
                        (b'"', self.dialect == DumpDialect::Mysql)
                    } else {
                        (b'`', false)
                    };
                    let (next, closed) = in_quotes(b, i, q, escapes);
                    i = next;
                    if closed {
                        self.lex = Lex::Normal;
                    }
                }
                Lex::Block(depth) => {
                    let rest = &b[i..];
                    if rest.starts_with(b"*/") {
                        i += 2;
                        if depth > 1 {
                            self.lex = Lex::Block(depth - 1);
                        } else {
                            // Comments never reach the statement.
                            self.lex = Lex::Normal;
                            self.buf.push(' ');
                            seg = i;
                        }
                    } else if rest.starts_with(b"/*") && self.dialect == DumpDialect::Postgres {
                        i += 2;
                        self.lex = Lex::Block(depth + 1);
                    } else {
                        i += 1;
                    }
                }
                Lex::Dollar(tag) => {
                    if b[i..].starts_with(tag.as_bytes()) {
                        i += tag.len();
                        self.lex = Lex::Normal;
                    } else {
                        i += 1;
                    }
                }
            }
        }
        if seg < b.len() && !matches!(self.lex, Lex::Block(_)) {
            self.buf.push_str(&line[seg..]);
        }
    }

    fn end_statement(&mut self) {
        let text = self.buf.trim().to_string();
        self.buf.clear();
        if text.is_empty() {
            return;
        }
        let copy_stdin = self.dialect == DumpDialect::Postgres && is_copy_from_stdin(&text);
        self.out.push_back(Item::Statement {
            line: self.start_line,
            text,
        });
        if copy_stdin {
            self.in_copy = true;
        }
    }
}

impl<R: BufRead> Iterator for Splitter<R> {
    type Item = Result<Item, SplitError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.out.pop_front() {
                return Some(Ok(item));
            }
            if self.done {
                return None;
            }
            match self.read_line() {
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
                Ok(false) => {
                    self.done = true;
                    if self.in_copy {
                        self.flush_copy();
                        self.out.push_back(Item::CopyEnd { line: self.line_no });
                        self.in_copy = false;
                        continue;
                    }
                    match &self.lex {
                        Lex::Normal | Lex::Block(_) => {}
                        other => {
                            return Some(Err(SplitError {
                                line: self.start_line,
                                message: format!(
                                    "the dump ends inside {} begun by the statement on this line",
                                    match other {
                                        Lex::Single(_) => "a string",
                                        Lex::Double | Lex::Backtick => "a quoted name",
                                        _ => "a dollar-quoted body",
                                    }
                                ),
                            }))
                        }
                    }
                    // A last statement without its terminator still runs
                    // (psql and mysql both send it).
                    self.end_statement();
                    continue;
                }
                Ok(true) => {
                    if self.in_copy {
                        self.copy_line();
                    } else if let Err(e) = self.text_line() {
                        self.done = true;
                        return Some(Err(e));
                    }
                }
            }
        }
    }
}

/// One step inside a string or quoted name closed by `q` (doubled `q` is
/// the character itself; with `escapes`, a backslash escapes the next byte):
/// the next position, and whether the quote closed there.
fn in_quotes(b: &[u8], i: usize, q: u8, escapes: bool) -> (usize, bool) {
    if escapes && b[i] == b'\\' {
        (i + 2, false)
    } else if b[i] == q {
        if b.get(i + 1) == Some(&q) {
            (i + 2, false)
        } else {
            (i + 1, true)
        }
    } else {
        (i + 1, false)
    }
}

/// The position just past the string or quoted name opened by the quote
/// `q` at `i` (the end of `b` when it never closes).
pub(super) fn past_quoted(b: &[u8], i: usize, q: u8, escapes: bool) -> usize {
    let mut i = i + 1;
    while i < b.len() {
        let (next, closed) = in_quotes(b, i, q, escapes);
        if closed {
            return next;
        }
        i = next;
    }
    b.len()
}

fn trim_eol(b: &[u8]) -> &[u8] {
    let b = b.strip_suffix(b"\n").unwrap_or(b);
    b.strip_suffix(b"\r").unwrap_or(b)
}

fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// The `$tag$` at the start of `rest`, when it is one (`$$`, `$body$`; not
/// a positional parameter `$1`).
fn dollar_tag(b: &[u8]) -> Option<String> {
    let mut j = 1;
    while j < b.len() && b[j] != b'$' {
        let c = b[j];
        let ok = c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 || (j > 1 && c.is_ascii_digit());
        if !ok {
            return None;
        }
        j += 1;
    }
    (j < b.len()).then(|| String::from_utf8_lossy(&b[..=j]).into_owned())
}

/// Whether a statement is `COPY … FROM stdin` (its data follows it).
fn is_copy_from_stdin(text: &str) -> bool {
    let words = super::policy::words(DumpDialect::Postgres, text);
    words.first().map(String::as_str) == Some("COPY")
        && words.windows(2).any(|w| w[0] == "FROM" && w[1] == "STDIN")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(dialect: DumpDialect, text: &str) -> Vec<Item> {
        Splitter::new(text.as_bytes(), dialect)
            .collect::<Result<_, _>>()
            .unwrap()
    }

    fn stmt(line: usize, text: &str) -> Item {
        Item::Statement {
            line,
            text: text.into(),
        }
    }

    #[test]
    fn postgres_strings_comments_and_dollar_bodies_keep_their_semicolons() {
        let dump =
            "-- a; comment\nSET x = 'a;b';\n/* c; /* nested; */ */ CREATE TABLE \"t;\" (a int);\n\
                    CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql;\n\
                    SELECT E'it\\'s;';\nSELECT $1";
        let items = split(DumpDialect::Postgres, dump);
        assert_eq!(
            items,
            vec![
                stmt(2, "SET x = 'a;b'"),
                stmt(3, "CREATE TABLE \"t;\" (a int)"),
                stmt(
                    4,
                    "CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql"
                ),
                stmt(5, "SELECT E'it\\'s;'"),
                stmt(6, "SELECT $1"),
            ]
        );
    }

    #[test]
    fn postgres_copy_data_and_psql_commands() {
        let dump = "\\connect shop\nCOPY t (a, b) FROM stdin;\n1\tx;y\n2\t\\N\n\\.\nSELECT 1;\n";
        let items = split(DumpDialect::Postgres, dump);
        assert_eq!(
            items,
            vec![
                Item::Command {
                    line: 1,
                    text: "\\connect shop".into()
                },
                stmt(2, "COPY t (a, b) FROM stdin"),
                Item::CopyData(b"1\tx;y\n2\t\\N\n".to_vec()),
                Item::CopyEnd { line: 5 },
                stmt(6, "SELECT 1"),
            ]
        );
    }

    #[test]
    fn mysql_escapes_backticks_executable_comments_and_delimiter() {
        let dump = "/*!40101 SET NAMES utf8 */;\nINSERT INTO `a;b` VALUES ('x\\';y',\"q;\"); # c;\n\
                    DELIMITER ;;\nCREATE TRIGGER t BEFORE INSERT ON a FOR EACH ROW BEGIN SET @x = 1; END ;;\n\
                    DELIMITER ;\n-- done;\nSELECT 2;";
        let items = split(DumpDialect::Mysql, dump);
        assert_eq!(
            items,
            vec![
                stmt(1, "/*!40101 SET NAMES utf8 */"),
                stmt(2, "INSERT INTO `a;b` VALUES ('x\\';y',\"q;\")"),
                Item::Command {
                    line: 3,
                    text: "DELIMITER ;;".into()
                },
                stmt(
                    4,
                    "CREATE TRIGGER t BEFORE INSERT ON a FOR EACH ROW BEGIN SET @x = 1; END"
                ),
                Item::Command {
                    line: 5,
                    text: "DELIMITER ;".into()
                },
                stmt(7, "SELECT 2"),
            ]
        );
    }

    #[test]
    fn an_unterminated_string_names_its_line() {
        let err = Splitter::new(
            "SELECT 1;\nSELECT 'open\n;\n".as_bytes(),
            DumpDialect::Postgres,
        )
        .collect::<Result<Vec<_>, _>>()
        .unwrap_err();
        assert_eq!(err.line, 2);
    }
}
