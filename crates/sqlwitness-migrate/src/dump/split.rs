//! Splitting a SQL dump into statements, as a stream, by the lexical rules
//! of the server that runs it, so that a `;` inside a string, a quoted
//! name, a comment or a dollar-quoted body never ends a statement.
//!
//! PostgreSQL: `'…'` (with `''`; backslash escapes when
//! `standard_conforming_strings` is off), `E'…'` (backslash escapes),
//! `"…"`, `$tag$…$tag$`, `--` and nested `/* */` comments; a backslash
//! outside quotes starts a psql command, which must begin a statement (it
//! takes the rest of its line); `COPY … FROM stdin` is followed by its data
//! lines up to `\.`.
//!
//! MySQL and MariaDB: `'…'` and `"…"` with backslash escapes (none under
//! `NO_BACKSLASH_ESCAPES`; `"…"` is a quoted name under `ANSI_QUOTES`),
//! `` `…` ``, `-- ` (a space or control character after the dashes), `#`
//! and `/* */` comments; a version comment (`/*!50003 …*/`, MariaDB's
//! `/*M!100100 …*/`) is statement text on a server whose version reads it
//! and a comment on any other, by each server's own rules. The mysql
//! client's commands are followed as that client reads them: `DELIMITER`
//! (anywhere outside quotes, as the client does: inside a statement it is
//! refused), a backslash command or a long-form command (`source`,
//! `system`, `charset` …) at the start of a statement.
//!
//! The settings that change how the server lexes (`standard_conforming_strings`,
//! `sql_mode`'s `NO_BACKSLASH_ESCAPES` and `ANSI_QUOTES`) are given by the
//! caller between statements ([`Splitter::set_lexing`]): the splitter never
//! reads past the statement it returns, so a setting a statement makes
//! applies from the next one on, as on the server.
//!
//! The input is read a line at a time: memory follows the longest statement
//! (a multi-row `INSERT`), never the dump; a statement that is a whole line
//! is handed on without a copy; `COPY` data is handed on in chunks.

use std::collections::VecDeque;
use std::io::BufRead;

pub use super::encoding::TextEncoding;

/// Which server's rules a dump follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DumpDialect {
    Postgres,
    Mysql,
}

impl DumpDialect {
    /// Whether the dump's own client goes on past a statement its server
    /// rejects: `psql` does (without `ON_ERROR_STOP`), printing the error;
    /// the `mysql` client stops at the first error.
    pub fn client_goes_on_after_errors(self) -> bool {
        match self {
            DumpDialect::Postgres => true,
            DumpDialect::Mysql => false,
        }
    }
}

/// The session settings that change where the server's strings and quoted
/// names end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lexing {
    /// PostgreSQL `standard_conforming_strings`: a backslash in `'…'` is an
    /// ordinary character (in `E'…'` it always escapes).
    pub standard_strings: bool,
    /// MySQL `sql_mode` `NO_BACKSLASH_ESCAPES`.
    pub no_backslash_escapes: bool,
    /// MySQL `sql_mode` `ANSI_QUOTES`: `"…"` is a quoted name.
    pub ansi_quotes: bool,
    /// PostgreSQL `client_encoding`: how the dump's bytes are read into
    /// text ([`TextEncoding`]).
    pub encoding: TextEncoding,
}

impl Default for Lexing {
    /// What a fresh loader session has: PostgreSQL's standard strings,
    /// MySQL's backslash escapes and double-quoted strings.
    fn default() -> Self {
        Lexing {
            standard_strings: true,
            no_backslash_escapes: false,
            ansi_quotes: false,
            encoding: TextEncoding::Utf8,
        }
    }
}

/// The MySQL-family server a dump is read for: which version comments it
/// runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionReader {
    pub mariadb: bool,
    /// `major * 10000 + minor * 100 + patch` (9.7.4: 90704; 10.11.19: 101119).
    pub version: u32,
}

impl VersionReader {
    /// Whether the server reads the version comment `/*!` (`mariadb_only`:
    /// `/*M!`) of `version` (`None`: no version digits) as statement text.
    pub fn runs(&self, mariadb_only: bool, version: Option<u32>) -> bool {
        if mariadb_only && !self.mariadb {
            return false;
        }
        match version {
            None => true,
            // MariaDB leaves MySQL 5.7 to 9.x's comments alone.
            Some(v) if self.mariadb && (50700..100000).contains(&v) => false,
            Some(v) => v <= self.version,
        }
    }

    /// The version a server's `version()` text names (`9.7.4-2`,
    /// `10.11.19-MariaDB-0+deb12u1`).
    pub fn from_version_text(text: &str) -> Option<VersionReader> {
        let mut parts = text
            .split(|c: char| !c.is_ascii_digit())
            .filter(|p| !p.is_empty())
            .map(|p| p.parse::<u32>().ok());
        let (major, minor, patch) = (parts.next()??, parts.next()??, parts.next()??);
        if minor > 99 || patch > 99 {
            return None;
        }
        Some(VersionReader {
            mariadb: text.contains("MariaDB"),
            version: major * 10000 + minor * 100 + patch,
        })
    }
}

/// Bytes of `COPY` data per [`Item::CopyData`].
const COPY_CHUNK: usize = 1 << 20;

/// The mysql client's long-form commands, which it runs itself when one
/// begins a statement (`use` is also a statement the server runs alike).
const MYSQL_CLIENT_COMMANDS: [&str; 26] = [
    "?",
    "clear",
    "connect",
    "delimiter",
    "edit",
    "ego",
    "exit",
    "go",
    "help",
    "nopager",
    "notee",
    "pager",
    "print",
    "prompt",
    "quit",
    "rehash",
    "source",
    "status",
    "system",
    "tee",
    "charset",
    "warnings",
    "nowarning",
    "resetconnection",
    "query_attributes",
    "ssl_session_data_print",
];

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

/// A dump that cannot be read as its server would: not UTF-8, it ends
/// inside a string, or text the splitter cannot follow exactly.
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
    /// In a `"…"` string or quoted name; `true` when backslash escapes apply.
    Double(bool),
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
    lexing: Lexing,
    versions: Option<VersionReader>,
    line_no: usize,
    /// The line being lexed (with its end of line) and the next byte to lex.
    line: String,
    pos: usize,
    /// The start of the part of `line` not yet in `buf`.
    seg: usize,
    lex: Lex,
    /// The statement so far (earlier lines' parts).
    buf: String,
    /// The statement has text besides whitespace and comments.
    started: bool,
    /// Inside a MySQL version comment the server reads (its `*/` ends it).
    in_version: bool,
    start_line: usize,
    delimiter: String,
    in_copy: bool,
    /// A file of `COPY` data only ([`Splitter::copy_data`]): nothing is
    /// read once its data ends.
    data_only: bool,
    /// Its data goes on to the file's end, every byte as it is (a `\.`
    /// line is data: the server reads it).
    copy_to_end: bool,
    copy_buf: Vec<u8>,
    out: VecDeque<Item>,
    done: bool,
    raw: Vec<u8>,
    /// Bytes read so far.
    offset: u64,
    /// The length of the line starting at a byte offset, for a line longer
    /// than the reader's buffer: read into a buffer of exactly its size.
    sizer: Option<LineSizer>,
}

/// The length of the line (with its end of line) starting at a byte offset
/// of the dump, when it can be told.
pub type LineSizer = Box<dyn FnMut(u64) -> Option<usize> + Send>;

/// A [`LineSizer`] reading the file at `path` (a second time, for long
/// lines only).
pub fn file_line_sizer(path: std::path::PathBuf) -> LineSizer {
    span_line_sizer(path, 0, u64::MAX)
}

/// A [`LineSizer`] of the `len` bytes from `start` of the file at `path`
/// (an archive's member).
pub fn span_line_sizer(path: std::path::PathBuf, start: u64, len: u64) -> LineSizer {
    use std::io::{Read, Seek, SeekFrom};
    Box::new(move |offset| {
        let mut f = std::fs::File::open(&path).ok()?;
        f.seek(SeekFrom::Start(start.checked_add(offset)?)).ok()?;
        let mut f = f.take(len.saturating_sub(offset));
        let mut buf = vec![0u8; 1 << 20];
        let mut len = 0usize;
        loop {
            let n = f.read(&mut buf).ok()?;
            if n == 0 {
                return Some(len);
            }
            if let Some(i) = buf[..n].iter().position(|&b| b == b'\n') {
                return Some(len + i + 1);
            }
            len += n;
        }
    })
}

impl<R: BufRead> Splitter<R> {
    pub fn new(reader: R, dialect: DumpDialect) -> Self {
        Splitter {
            reader,
            dialect,
            lexing: Lexing::default(),
            versions: None,
            line_no: 0,
            line: String::new(),
            pos: 0,
            seg: 0,
            lex: Lex::Normal,
            buf: String::new(),
            started: false,
            in_version: false,
            start_line: 0,
            delimiter: ";".into(),
            in_copy: false,
            data_only: false,
            copy_to_end: false,
            copy_buf: Vec::new(),
            out: VecDeque::new(),
            done: false,
            raw: Vec::new(),
            offset: 0,
            sizer: None,
        }
    }

    /// The `COPY` data a file holds (an archive's `NNNN.dat`, the file of
    /// psql's `\copy`): its lines up to a `\.` line, as the server reads
    /// them (`to_end`: every byte of the file, as psql sends a `\copy`'s
    /// file), then nothing.
    pub fn copy_data(reader: R, dialect: DumpDialect, to_end: bool) -> Self {
        let mut s = Splitter::new(reader, dialect);
        s.in_copy = true;
        s.data_only = true;
        s.copy_to_end = to_end;
        s
    }

    /// Reads a line longer than the reader's buffer into a buffer of
    /// exactly its length, as `sizer` tells it (else the buffer grows by
    /// doubling, and a statement of N bytes briefly holds about 2 N).
    pub fn with_line_sizer(mut self, sizer: LineSizer) -> Self {
        self.sizer = Some(sizer);
        self
    }

    /// Reads MySQL version comments as `server` does (without: every
    /// version comment is statement text).
    pub fn for_server(mut self, server: Option<VersionReader>) -> Self {
        self.versions = server;
        self
    }

    /// The settings the next statement is lexed with.
    pub fn set_lexing(&mut self, lexing: Lexing) {
        self.lexing = lexing;
    }

    /// The server whose version comments this splitter reads.
    pub fn server(&self) -> Option<VersionReader> {
        self.versions
    }

    /// The mysql client's statement terminator (`DELIMITER`): the client's
    /// own, kept from one file it reads to the next.
    pub fn delimiter(&self) -> &str {
        &self.delimiter
    }

    /// Takes the terminator of the file that included this one, or gives
    /// it back the one this file ended with.
    pub fn set_delimiter(&mut self, delimiter: &str) {
        self.delimiter = delimiter.to_string();
    }

    /// Whether the statement just returned is a `COPY … FROM stdin` whose
    /// data follows.
    pub fn in_copy(&self) -> bool {
        self.in_copy
    }

    fn error(&mut self, line: usize, message: impl Into<String>) -> SplitError {
        self.done = true;
        SplitError {
            line,
            message: message.into(),
        }
    }

    fn read_line(&mut self) -> Result<bool, SplitError> {
        self.raw.clear();
        if let Some(sizer) = &mut self.sizer {
            let buffered = self.reader.fill_buf().map_err(|e| SplitError {
                line: self.line_no + 1,
                message: format!("cannot read: {e}"),
            })?;
            if !buffered.is_empty() && !buffered.contains(&b'\n') {
                if let Some(len) = sizer(self.offset) {
                    self.raw = Vec::with_capacity(len);
                }
            }
        }
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
        self.offset += n as u64;
        self.line_no += 1;
        Ok(true)
    }

    fn copy_line(&mut self) -> Result<(), SplitError> {
        if self.copy_to_end {
            if let Err(no) = self
                .lexing
                .encoding
                .decode_into(&self.raw, &mut self.copy_buf)
            {
                return Err(self.not_encoded(no));
            }
            if self.copy_buf.len() >= COPY_CHUNK {
                self.flush_copy();
            }
            return Ok(());
        }
        let trimmed = trim_eol(&self.raw);
        if trimmed == b"\\." {
            self.flush_copy();
            self.out.push_back(Item::CopyEnd { line: self.line_no });
            self.in_copy = false;
            self.done |= self.data_only;
            return Ok(());
        }
        if let Err(no) = self
            .lexing
            .encoding
            .decode_into(trimmed, &mut self.copy_buf)
        {
            return Err(self.not_encoded(no));
        }
        self.copy_buf.push(b'\n');
        if self.copy_buf.len() >= COPY_CHUNK {
            self.flush_copy();
        }
        Ok(())
    }

    /// A byte the dump's encoding has no character for, on this line.
    fn not_encoded(&mut self, no: super::encoding::NoCharacter) -> SplitError {
        let message = format!(
            "the byte 0x{:02X} has no character in the dump's encoding {}",
            no.0,
            self.lexing.encoding.name()
        );
        self.error(self.line_no, message)
    }

    fn flush_copy(&mut self) {
        if !self.copy_buf.is_empty() {
            self.out
                .push_back(Item::CopyData(std::mem::take(&mut self.copy_buf)));
        }
    }

    /// Takes the next line as the text being lexed.
    fn take_line(&mut self) -> Result<(), SplitError> {
        let mut raw = std::mem::take(&mut self.raw);
        if self.lexing.encoding != TextEncoding::Utf8 {
            let mut text = Vec::with_capacity(raw.len());
            if let Err(no) = self.lexing.encoding.decode_into(&raw, &mut text) {
                return Err(self.not_encoded(no));
            }
            raw = text;
        }
        self.line = match String::from_utf8(raw) {
            Ok(s) => s,
            Err(e) => {
                // A MySQL string of bytes that are not text (mysqldump
                // writes a BLOB's bytes as they are, escaped: Sakila's
                // staff pictures) is the same value as a hex literal.
                let hexed = (self.dialect == DumpDialect::Mysql && matches!(self.lex, Lex::Normal))
                    .then(|| binary_strings_as_hex(e.as_bytes(), self.lexing))
                    .flatten();
                match hexed {
                    Some(line) => line,
                    None => {
                        let message = format!("not UTF-8 ({})", e.utf8_error());
                        self.raw = e.into_bytes();
                        return Err(self.error(self.line_no, message));
                    }
                }
            }
        };
        if self.line.as_bytes().contains(&0) {
            return Err(self.error(self.line_no, "a NUL byte in the dump's text"));
        }
        self.pos = 0;
        self.seg = 0;
        Ok(())
    }

    /// Moves the unconsumed part of the line into the statement.
    fn flush_segment(&mut self) {
        if self.seg < self.line.len() && !matches!(self.lex, Lex::Block(_)) {
            self.buf.push_str(&self.line[self.seg..]);
        }
        self.seg = self.line.len();
    }

    /// The statement ending at `end` of the line; the line then continues
    /// at `resume`.
    fn end_statement(&mut self, end: usize, resume: usize) -> Option<Item> {
        let rest_blank = self.line[resume..].trim().is_empty();
        let text = if self.buf.is_empty() && rest_blank {
            // The statement is this line's text: handed on without a copy.
            let mut s = std::mem::take(&mut self.line);
            s.truncate(end);
            s.drain(..self.seg);
            self.pos = 0;
            self.seg = 0;
            trim_in_place(&mut s);
            s
        } else {
            self.buf.push_str(&self.line[self.seg..end]);
            self.pos = resume;
            self.seg = resume;
            let mut s = std::mem::take(&mut self.buf);
            trim_in_place(&mut s);
            s
        };
        self.buf.clear();
        self.started = false;
        if text.is_empty() {
            return None;
        }
        if self.dialect == DumpDialect::Postgres && is_copy_from_stdin(&text) {
            self.in_copy = true;
        }
        Some(Item::Statement {
            line: self.start_line,
            text,
        })
    }

    /// A command that takes the rest of the line from `at`.
    fn command(&mut self, at: usize) -> Item {
        let text = self.line[at..].trim().to_string();
        self.pos = self.line.len();
        self.seg = self.pos;
        Item::Command {
            line: self.line_no,
            text,
        }
    }

    /// The mysql client's `DELIMITER x` at `at` (the start of a statement):
    /// its delimiter is the first word after it, and nothing may follow.
    fn delimiter_command(&mut self, at: usize) -> Result<Item, SplitError> {
        let rest = self.line[at + "delimiter".len()..].trim();
        let word = rest.split_whitespace().next().unwrap_or("");
        let line = self.line_no;
        if word.is_empty() {
            return Err(self.error(line, "DELIMITER without a delimiter"));
        }
        if word.contains('\\') || word.starts_with(['\'', '"', '`']) {
            return Err(self.error(
                line,
                format!("DELIMITER `{word}`: a quoted delimiter or one with a backslash"),
            ));
        }
        if rest.len() > word.len() {
            return Err(self.error(
                line,
                "text after the DELIMITER command's delimiter (the mysql client drops it)",
            ));
        }
        self.delimiter = word.to_string();
        Ok(self.command(at))
    }

    /// Lexes the line from `pos` up to the end of a statement (returned),
    /// a command (returned) or the end of the line (`None`).
    fn lex_line(&mut self) -> Result<Option<Item>, SplitError> {
        let mysql = self.dialect == DumpDialect::Mysql;
        while self.pos < self.line.len() {
            let i = self.pos;
            match self.lex.clone() {
                Lex::Normal => {
                    if let Some(item) = self.lex_normal(i, mysql)? {
                        return Ok(Some(item));
                    }
                }
                Lex::Single(escapes) => self.lex_quoted(i, b'\'', escapes),
                Lex::Double(escapes) => self.lex_quoted(i, b'"', escapes),
                Lex::Backtick => self.lex_quoted(i, b'`', false),
                Lex::Block(depth) => self.lex_block(i, depth, mysql),
                Lex::Dollar(tag) => self.lex_dollar(i, &tag),
            }
        }
        Ok(None)
    }

    /// One step outside quotes and comments at `i`: the statement or
    /// command that ends there (`None`: lexing goes on from `pos`).
    #[inline]
    fn lex_normal(&mut self, i: usize, mysql: bool) -> Result<Option<Item>, SplitError> {
        let c = self.line.as_bytes()[i];
        if !self.started && c.is_ascii_whitespace() {
            self.pos += 1;
            if self.buf.trim().is_empty() {
                self.seg = self.pos;
            }
            return Ok(None);
        }
        if let Some(item) = self.client_command(i, mysql)? {
            return Ok(Some(item));
        }
        let rest = &self.line.as_bytes()[i..];
        if self.in_version && rest.starts_with(b"*/") {
            self.in_version = false;
            self.pos += 2;
            return Ok(None);
        }
        if rest.starts_with(self.delimiter.as_bytes()) {
            return self.at_delimiter(i);
        }
        if c == b'\\' {
            let what = if mysql { "mysql client" } else { "psql" };
            return Err(self.error(
                self.line_no,
                format!("a {what} command (a backslash outside quotes) inside a statement"),
            ));
        }
        if is_line_comment(rest, mysql) {
            self.buf.push_str(&self.line[self.seg..i]);
            self.buf.push('\n');
            self.pos = self.line.len();
            self.seg = self.pos;
            return Ok(None);
        }
        if rest.starts_with(b"/*") {
            self.open_comment(i, mysql);
            return Ok(None);
        }
        self.lex_text(i, mysql);
        Ok(None)
    }

    /// The client command at `i` outside quotes, if there is one: the
    /// mysql client's `DELIMITER` (refused inside a statement), and at the
    /// start of a statement a backslash command or a mysql client long-form
    /// command. At the start of a statement, notes the line it starts on.
    #[inline]
    fn client_command(&mut self, i: usize, mysql: bool) -> Result<Option<Item>, SplitError> {
        let rest = &self.line.as_bytes()[i..];
        if mysql && starts_with_ignore_case(rest, b"delimiter ") {
            if self.started || !self.buf.trim().is_empty() {
                return Err(self.error(
                    self.line_no,
                    "a DELIMITER command inside a statement (the mysql client ends \
                     the statement there)",
                ));
            }
            return self.delimiter_command(i).map(Some);
        }
        if !self.started {
            self.start_line = self.line_no;
            if rest[0] == b'\\' {
                return Ok(Some(self.command(i)));
            }
            if mysql && self.buf.trim().is_empty() {
                let word = first_word(rest);
                if word.eq_ignore_ascii_case("delimiter") {
                    return self.delimiter_command(i).map(Some);
                }
                if MYSQL_CLIENT_COMMANDS
                    .iter()
                    .any(|w| w.eq_ignore_ascii_case(word))
                {
                    return Ok(Some(self.command(i)));
                }
            }
        }
        Ok(None)
    }

    /// The statement the delimiter at `i` ends (`None`: an empty one). After
    /// `COPY … FROM stdin` the rest of the line must be blank or a comment,
    /// and is passed over.
    #[inline]
    fn at_delimiter(&mut self, i: usize) -> Result<Option<Item>, SplitError> {
        let item = self.end_statement(i, i + self.delimiter.len());
        if self.in_copy {
            let after = self.line.get(self.pos..).unwrap_or("").trim();
            if !after.is_empty() && !after.starts_with("--") {
                let line = self.line_no;
                return Err(self.error(
                    line,
                    "text after `COPY … FROM stdin` on its line (its data starts \
                     on the next line)",
                ));
            }
            self.pos = self.line.len();
            self.seg = self.pos;
        }
        Ok(item)
    }

    /// The `/*` at `i`: a MySQL version comment the server reads stays
    /// statement text; any other comment is left out of the statement.
    #[inline]
    fn open_comment(&mut self, i: usize, mysql: bool) {
        if mysql {
            if let Some(skip) = self.version_comment(&self.line.as_bytes()[i..]) {
                // Statement text the server reads: kept.
                self.started = true;
                self.in_version = true;
                self.pos += skip;
                return;
            }
        }
        self.buf.push_str(&self.line[self.seg..i]);
        self.lex = Lex::Block(1);
        self.pos += 2;
        self.seg = self.pos;
    }

    /// Statement text at `i`: a quote or a `$tag$` opens its string, quoted
    /// name or body; any other byte is passed over.
    #[inline]
    fn lex_text(&mut self, i: usize, mysql: bool) {
        self.started = true;
        let b = self.line.as_bytes();
        match b[i] {
            b'\'' => self.lex = Lex::Single(single_quote_escapes(b, i, mysql, self.lexing)),
            b'"' => {
                self.lex = Lex::Double(
                    mysql && !self.lexing.ansi_quotes && !self.lexing.no_backslash_escapes,
                )
            }
            b'`' if mysql => self.lex = Lex::Backtick,
            b'$' if !mysql && (i == 0 || !is_ident_byte(b[i - 1])) => {
                if let Some(tag) = dollar_tag(&b[i..]) {
                    self.pos += tag.len();
                    self.lex = Lex::Dollar(tag);
                    return;
                }
            }
            _ => {}
        }
        self.pos += 1;
    }

    /// One step inside a string or quoted name closed by `q`.
    #[inline]
    fn lex_quoted(&mut self, i: usize, q: u8, escapes: bool) {
        let (next, closed) = in_quotes(self.line.as_bytes(), i, q, escapes);
        self.pos = next;
        if closed {
            self.lex = Lex::Normal;
        }
    }

    /// One step inside a block comment nested `depth` deep (PostgreSQL's
    /// nest; MySQL's do not). The comment reaches the statement as a space.
    #[inline]
    fn lex_block(&mut self, i: usize, depth: usize, mysql: bool) {
        let rest = &self.line.as_bytes()[i..];
        if rest.starts_with(b"*/") {
            self.pos += 2;
            if depth > 1 {
                self.lex = Lex::Block(depth - 1);
            } else {
                // Comments never reach the statement.
                self.lex = Lex::Normal;
                self.buf.push(' ');
                self.seg = self.pos;
            }
        } else if rest.starts_with(b"/*") && !mysql {
            self.pos += 2;
            self.lex = Lex::Block(depth + 1);
        } else {
            self.pos += 1;
        }
    }

    /// One step inside a dollar-quoted body closed by `tag`.
    #[inline]
    fn lex_dollar(&mut self, i: usize, tag: &str) {
        if self.line.as_bytes()[i..].starts_with(tag.as_bytes()) {
            self.pos += tag.len();
            self.lex = Lex::Normal;
        } else {
            self.pos += 1;
        }
    }

    /// For `/*!…` or `/*M!…` at the start of `rest` that the server reads
    /// as statement text: the length of its opening (`/*!` and the version
    /// digits). `None`: a comment.
    fn version_comment(&self, rest: &[u8]) -> Option<usize> {
        let (mariadb_only, open) = if rest.starts_with(b"/*!") {
            (false, 3)
        } else if rest.starts_with(b"/*M!") {
            (true, 4)
        } else {
            return None;
        };
        let digits = rest[open..]
            .iter()
            .take(6)
            .take_while(|c| c.is_ascii_digit())
            .count();
        // Five or six digits are a version; fewer are statement text.
        let (version, len) = if digits >= 5 {
            let text = std::str::from_utf8(&rest[open..open + digits]).ok()?;
            (text.parse::<u32>().ok(), digits)
        } else {
            (None, 0)
        };
        let runs = match self.versions {
            Some(server) => server.runs(mariadb_only, version),
            None => true,
        };
        runs.then_some(open + len)
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
            if self.in_copy {
                match self.read_line() {
                    Err(e) => {
                        self.done = true;
                        return Some(Err(e));
                    }
                    Ok(false) => {
                        self.flush_copy();
                        self.out.push_back(Item::CopyEnd { line: self.line_no });
                        self.in_copy = false;
                        self.done = true;
                    }
                    Ok(true) => {
                        if let Err(e) = self.copy_line() {
                            return Some(Err(e));
                        }
                    }
                }
                continue;
            }
            if self.pos < self.line.len() {
                match self.lex_line() {
                    Ok(Some(item)) => return Some(Ok(item)),
                    Ok(None) => continue,
                    Err(e) => return Some(Err(e)),
                }
            }
            self.flush_segment();
            match self.read_line() {
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
                Ok(true) => {
                    if let Err(e) = self.take_line() {
                        return Some(Err(e));
                    }
                }
                Ok(false) => {
                    self.done = true;
                    let inside = match &self.lex {
                        Lex::Normal | Lex::Block(_) => None,
                        Lex::Single(_) => Some("a string"),
                        Lex::Double(_) | Lex::Backtick => Some("a quoted name or string"),
                        Lex::Dollar(_) => Some("a dollar-quoted body"),
                    };
                    if let Some(inside) = inside {
                        return Some(Err(SplitError {
                            line: self.start_line,
                            message: format!(
                                "the dump ends inside {inside} begun by the statement on this line"
                            ),
                        }));
                    }
                    // A last statement without its terminator still runs
                    // (psql and mysql both send it).
                    self.line.clear();
                    self.seg = 0;
                    if let Some(item) = self.end_statement(0, 0) {
                        return Some(Ok(item));
                    }
                }
            }
        }
    }
}

/// `line` (MySQL text, starting outside any string or comment) with every
/// string literal whose bytes are not UTF-8 written as the hex literal of
/// the bytes it stands for (its escapes read as the server reads them);
/// `None` when the line still is not UTF-8 (bytes outside strings, a
/// string that goes on past the line).
fn binary_strings_as_hex(line: &[u8], lexing: Lexing) -> Option<String> {
    let escapes = !lexing.no_backslash_escapes;
    let mut out: Vec<u8> = Vec::with_capacity(line.len() * 2);
    let mut i = 0;
    while i < line.len() {
        let c = line[i];
        match c {
            b'\'' | b'"' if !(c == b'"' && lexing.ansi_quotes) => {
                // The literal's bytes as the server reads them.
                let mut value = Vec::new();
                let mut j = i + 1;
                let mut closed = false;
                while j < line.len() {
                    let b = line[j];
                    if b == b'\\' && escapes && j + 1 < line.len() {
                        let n = line[j + 1];
                        match n {
                            b'0' => value.push(0),
                            b'b' => value.push(8),
                            b'n' => value.push(b'\n'),
                            b'r' => value.push(b'\r'),
                            b't' => value.push(b'\t'),
                            b'Z' => value.push(26),
                            b'%' | b'_' => value.extend_from_slice(&[b'\\', n]),
                            other => value.push(other),
                        }
                        j += 2;
                    } else if b == c && line.get(j + 1) == Some(&c) {
                        value.push(c);
                        j += 2;
                    } else if b == c {
                        closed = true;
                        break;
                    } else {
                        value.push(b);
                        j += 1;
                    }
                }
                if !closed {
                    return None;
                }
                let literal = &line[i..=j];
                if std::str::from_utf8(literal).is_ok() {
                    out.extend_from_slice(literal);
                } else {
                    out.extend_from_slice(b"X'");
                    for b in value {
                        out.extend_from_slice(format!("{b:02X}").as_bytes());
                    }
                    out.push(b'\'');
                }
                i = j + 1;
            }
            b'`' | b'"' => {
                let end = line[i + 1..].iter().position(|&b| b == c)?;
                out.extend_from_slice(&line[i..=i + 1 + end]);
                i += end + 2;
            }
            // A comment to the end of the line, as it is.
            b'#' => {
                out.extend_from_slice(&line[i..]);
                break;
            }
            b'-' if line.get(i + 1) == Some(&b'-')
                && line.get(i + 2).is_none_or(|b| b.is_ascii_whitespace()) =>
            {
                out.extend_from_slice(&line[i..]);
                break;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

fn trim_in_place(s: &mut String) {
    let end = s.trim_end().len();
    s.truncate(end);
    let start = s.len() - s.trim_start().len();
    s.drain(..start);
}

fn starts_with_ignore_case(b: &[u8], word: &[u8]) -> bool {
    b.len() >= word.len() && b[..word.len()].eq_ignore_ascii_case(word)
}

/// The first word of `b` (letters, `_`, or a lone `?`), as text.
fn first_word(b: &[u8]) -> &str {
    if b.first() == Some(&b'?') {
        return "?";
    }
    let n = b
        .iter()
        .take_while(|c| c.is_ascii_alphabetic() || **c == b'_')
        .count();
    // What follows the word must end it (space, `;`, end of line).
    match b.get(n) {
        None => std::str::from_utf8(&b[..n]).unwrap_or(""),
        Some(c) if c.is_ascii_whitespace() || *c == b';' => {
            std::str::from_utf8(&b[..n]).unwrap_or("")
        }
        Some(_) => "",
    }
}

/// One step inside a string or quoted name closed by `q` (doubled `q` is
/// the character itself; with `escapes`, a backslash escapes the next byte):
/// the next position, and whether the quote closed there.
fn in_quotes(b: &[u8], i: usize, q: u8, escapes: bool) -> (usize, bool) {
    if escapes && b[i] == b'\\' {
        ((i + 2).min(b.len().max(i + 1)), false)
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

/// Whether `rest`, outside quotes, starts a comment to the end of the line:
/// `--` (MySQL: followed by a space, a control character or the end of the
/// line) or MySQL's `#`.
#[inline]
fn is_line_comment(rest: &[u8], mysql: bool) -> bool {
    if mysql {
        rest[0] == b'#'
            || (rest.starts_with(b"--") && rest.get(2).is_none_or(|d| *d <= b' ' || *d == 0x7f))
    } else {
        rest.starts_with(b"--")
    }
}

/// Whether a backslash escapes in the `'…'` string opened at `i` of `b`:
/// MySQL's unless `NO_BACKSLASH_ESCAPES`; PostgreSQL's when standard
/// strings are off, or always in `E'…'` (the `E` not ending a longer word).
#[inline]
fn single_quote_escapes(b: &[u8], i: usize, mysql: bool, lexing: Lexing) -> bool {
    if mysql {
        !lexing.no_backslash_escapes
    } else {
        !lexing.standard_strings
            || (i > 0 && matches!(b[i - 1], b'e' | b'E') && (i < 2 || !is_ident_byte(b[i - 2])))
    }
}

fn trim_eol(b: &[u8]) -> &[u8] {
    let b = b.strip_suffix(b"\n").unwrap_or(b);
    b.strip_suffix(b"\r").unwrap_or(b)
}

fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
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

    #[test]
    fn a_mysql_string_of_bytes_becomes_their_hex_literal() {
        let lexing = Lexing::default();
        let line = b"INSERT INTO staff VALUES (1,'Mike','\x89PNG\\r\\n\\Z\\0\xff''x',\"ok\");\n";
        assert_eq!(
            binary_strings_as_hex(line, lexing).unwrap(),
            "INSERT INTO staff VALUES (1,'Mike',X'89504E470D0A1A00FF2778',\"ok\");\n"
        );
        // Bytes outside a string, or a string the line does not close.
        assert_eq!(binary_strings_as_hex(b"SELECT \xff;", lexing), None);
        assert_eq!(binary_strings_as_hex(b"SELECT '\xff", lexing), None);
        // Through the splitter, as one statement.
        let dump: &[u8] = b"SET NAMES utf8mb4;\nINSERT INTO t VALUES ('\xfe\\0');\nSELECT 1;\n";
        let texts: Vec<String> = Splitter::new(dump, DumpDialect::Mysql)
            .filter_map(|i| match i {
                Ok(Item::Statement { text, .. }) => Some(text),
                _ => None,
            })
            .collect();
        assert_eq!(texts[1], "INSERT INTO t VALUES (X'FE00')");
    }
    use super::*;

    fn split(dialect: DumpDialect, text: &str) -> Vec<Item> {
        Splitter::new(text.as_bytes(), dialect)
            .collect::<Result<_, _>>()
            .unwrap()
    }

    fn split_err(dialect: DumpDialect, text: &str) -> SplitError {
        Splitter::new(text.as_bytes(), dialect)
            .collect::<Result<Vec<_>, _>>()
            .unwrap_err()
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
    fn a_file_of_copy_data_ends_at_its_marker_or_is_read_whole() {
        let data = "1\tx\r\n\\.\n\nDROP TABLE t;\n";
        let member: Vec<Item> = Splitter::copy_data(data.as_bytes(), DumpDialect::Postgres, false)
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            member,
            vec![
                Item::CopyData(b"1\tx\n".to_vec()),
                Item::CopyEnd { line: 2 }
            ]
        );
        let whole: Vec<Item> = Splitter::copy_data(data.as_bytes(), DumpDialect::Postgres, true)
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            whole,
            vec![
                Item::CopyData(data.as_bytes().to_vec()),
                Item::CopyEnd { line: 4 }
            ]
        );
    }

    #[test]
    fn a_setting_applies_from_the_next_statement() {
        // With standard strings off, `'\''` is one quote inside a string:
        // the server reads one statement where standard strings read three.
        let dump = "SET standard_conforming_strings = off; SELECT 'a\\'; DROP TABLE t; --';\n";
        let mut s = Splitter::new(dump.as_bytes(), DumpDialect::Postgres);
        assert_eq!(
            s.next().unwrap().unwrap(),
            stmt(1, "SET standard_conforming_strings = off")
        );
        s.set_lexing(Lexing {
            standard_strings: false,
            ..Lexing::default()
        });
        assert_eq!(
            s.next().unwrap().unwrap(),
            stmt(1, "SELECT 'a\\'; DROP TABLE t; --'")
        );
        assert!(s.next().is_none());
        // Left on, the same text is three statements.
        let items = split(DumpDialect::Postgres, "SELECT 'a\\'; DROP TABLE t; --';\n");
        assert_eq!(items.len(), 2, "{items:?}");
    }

    #[test]
    fn a_single_byte_encoding_is_read_into_utf8_from_the_next_line() {
        // `SET client_encoding = 'LATIN1'` then LATIN1 bytes, in a statement
        // and in `COPY` data (the pgFoundry world sample's layout).
        let dump: &[u8] =
            b"SET client_encoding = 'LATIN1';\nINSERT INTO c VALUES ('Cura\xe7ao');\n\
                            COPY c (name) FROM stdin;\nS\xe3o Paulo\n\\.\n";
        let mut s = Splitter::new(dump, DumpDialect::Postgres);
        assert_eq!(
            s.next().unwrap().unwrap(),
            stmt(1, "SET client_encoding = 'LATIN1'")
        );
        s.set_lexing(Lexing {
            encoding: TextEncoding::Latin1,
            ..Lexing::default()
        });
        let rest: Vec<Item> = s.collect::<Result<_, _>>().unwrap();
        assert_eq!(
            rest,
            vec![
                stmt(2, "INSERT INTO c VALUES ('Curaçao')"),
                stmt(3, "COPY c (name) FROM stdin"),
                Item::CopyData("São Paulo\n".as_bytes().to_vec()),
                Item::CopyEnd { line: 5 },
            ]
        );
        // A byte the encoding has no character for is refused at its line.
        let mut s = Splitter::new(&b"SELECT 1;\nSELECT '\x81';\n"[..], DumpDialect::Postgres);
        s.set_lexing(Lexing {
            encoding: TextEncoding::Win1252,
            ..Lexing::default()
        });
        let e = s.collect::<Result<Vec<_>, _>>().unwrap_err();
        assert_eq!(e.line, 2, "{e:?}");
        assert!(e.message.contains("0x81"), "{e:?}");
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
    fn mysql_modes_change_where_strings_end() {
        let text = "SELECT 'a\\'; SELECT 1; -- ';\n";
        let mut s = Splitter::new(text.as_bytes(), DumpDialect::Mysql);
        s.set_lexing(Lexing {
            no_backslash_escapes: true,
            ..Lexing::default()
        });
        assert_eq!(s.next().unwrap().unwrap(), stmt(1, "SELECT 'a\\'"));
        assert_eq!(s.next().unwrap().unwrap(), stmt(1, "SELECT 1"));
        let text = "SELECT \"a\\\"; SELECT 1; -- \";\n";
        let mut s = Splitter::new(text.as_bytes(), DumpDialect::Mysql);
        s.set_lexing(Lexing {
            ansi_quotes: true,
            ..Lexing::default()
        });
        assert_eq!(s.next().unwrap().unwrap(), stmt(1, "SELECT \"a\\\""));
    }

    #[test]
    fn version_comments_are_read_as_each_server_reads_them() {
        let mysql = VersionReader::from_version_text("9.7.4-2").unwrap();
        let mariadb = VersionReader::from_version_text("10.11.19-MariaDB-0+deb12u1").unwrap();
        assert_eq!((mysql.mariadb, mysql.version), (false, 90704));
        assert_eq!((mariadb.mariadb, mariadb.version), (true, 101119));
        for (v, my, maria) in [
            (Some(40101), true, true),
            (Some(50699), true, true),
            (Some(50700), true, false),
            (Some(80000), true, false),
            (Some(90800), false, false),
            (Some(100000), false, true),
            (Some(101120), false, false),
            (None, true, true),
        ] {
            assert_eq!(mysql.runs(false, v), my, "{v:?}");
            assert_eq!(mariadb.runs(false, v), maria, "{v:?}");
        }
        assert!(!mysql.runs(true, Some(50000)));
        assert!(mariadb.runs(true, Some(100000)));
        // A comment the server does not read hides its quote.
        let text = "SELECT 1 /*!90800 ' */; SELECT 2;\n";
        let on = |server| {
            Splitter::new(text.as_bytes(), DumpDialect::Mysql)
                .for_server(Some(server))
                .collect::<Result<Vec<_>, _>>()
        };
        assert_eq!(
            on(mysql).unwrap(),
            vec![stmt(1, "SELECT 1"), stmt(1, "SELECT 2")]
        );
        let newer = VersionReader {
            mariadb: false,
            version: 90800,
        };
        assert!(on(newer).is_err(), "the quote opens a string to the end");
    }

    #[test]
    fn client_commands_it_cannot_follow_are_errors_naming_their_line() {
        for (dialect, text, line) in [
            (DumpDialect::Mysql, "SELECT 1;\nSELECT 2 delimiter //\n", 2),
            (
                DumpDialect::Mysql,
                "DELIMITER // CREATE TRIGGER t BEFORE INSERT ON a FOR EACH ROW SET @x=1 //\n",
                1,
            ),
            (DumpDialect::Mysql, "DELIMITER\n", 1),
            (DumpDialect::Mysql, "SELECT 1 \\G\n", 1),
            (DumpDialect::Postgres, "SELECT 1;\nSELECT 2 \\gexec\n", 2),
            (
                DumpDialect::Postgres,
                "COPY t FROM stdin; DROP TABLE x;\n1\n\\.\n",
                1,
            ),
            (DumpDialect::Postgres, "SELECT '\0';\n", 1),
        ] {
            let e = split_err(dialect, text);
            assert_eq!(e.line, line, "{text}: {e:?}");
        }
        // A long-form client command starting a statement is a command.
        let items = split(DumpDialect::Mysql, "SELECT 1; source /etc/passwd\n");
        assert_eq!(
            items[1],
            Item::Command {
                line: 1,
                text: "source /etc/passwd".into()
            }
        );
        let items = split(DumpDialect::Mysql, "select `delimiter ` from t;\n");
        assert_eq!(items, vec![stmt(1, "select `delimiter ` from t")]);
    }

    #[test]
    fn a_statement_that_is_its_whole_line_is_handed_on_without_a_copy() {
        let items = split(DumpDialect::Mysql, "INSERT INTO t VALUES (1);\n  \n");
        assert_eq!(items, vec![stmt(1, "INSERT INTO t VALUES (1)")]);
    }

    #[test]
    fn a_line_longer_than_the_buffer_is_read_at_its_told_size() {
        let text = format!(
            "SELECT 1;\nINSERT INTO t VALUES ('{}');\nSELECT 2;\n",
            "x".repeat(5000)
        );
        let bytes = text.clone().into_bytes();
        let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = asked.clone();
        let sizer: LineSizer = Box::new(move |offset| {
            seen.lock().unwrap().push(offset);
            let rest = &bytes[offset as usize..];
            Some(
                rest.iter()
                    .position(|&b| b == b'\n')
                    .map_or(rest.len(), |i| i + 1),
            )
        });
        let items: Vec<Item> = Splitter::new(
            std::io::BufReader::with_capacity(64, text.as_bytes()),
            DumpDialect::Postgres,
        )
        .with_line_sizer(sizer)
        .collect::<Result<_, _>>()
        .unwrap();
        assert_eq!(items.len(), 3);
        assert_eq!(
            items[1],
            stmt(2, text.lines().nth(1).unwrap().trim_end_matches(';'))
        );
        // Asked for the long line only (it starts after `SELECT 1;\n`).
        assert_eq!(*asked.lock().unwrap(), [10]);
    }

    #[test]
    fn line_comments_follow_each_server() {
        assert!(is_line_comment(b"-- x", true));
        assert!(is_line_comment(b"--", true));
        assert!(is_line_comment(b"--\t", true));
        assert!(!is_line_comment(b"--x", true), "MySQL: 1--x is arithmetic");
        assert!(is_line_comment(b"--x", false));
        assert!(is_line_comment(b"# x", true));
        assert!(!is_line_comment(b"# x", false));
        assert!(!is_line_comment(b"-1", false));
    }

    #[test]
    fn an_e_before_a_quote_turns_postgres_escapes_on() {
        let standard = Lexing::default();
        let at = |text: &str| text.find('\'').unwrap();
        for (text, escapes) in [
            ("SELECT 'a'", false),
            ("SELECT E'a'", true),
            ("SELECT e'a'", true),
            ("E'a'", true),
            ("SELECT xE'a'", false),
            ("SELECT (E'a')", true),
        ] {
            assert_eq!(
                single_quote_escapes(text.as_bytes(), at(text), false, standard),
                escapes,
                "{text}"
            );
        }
        let off = Lexing {
            standard_strings: false,
            ..standard
        };
        assert!(single_quote_escapes(b"'a'", 0, false, off));
        // MySQL: by NO_BACKSLASH_ESCAPES alone.
        assert!(single_quote_escapes(b"'a'", 0, true, standard));
        let none = Lexing {
            no_backslash_escapes: true,
            ..standard
        };
        assert!(!single_quote_escapes(b"E'a'", 1, true, none));
    }

    #[test]
    fn an_unterminated_string_names_its_line() {
        let err = split_err(DumpDialect::Postgres, "SELECT 1;\nSELECT 'open\n;\n");
        assert_eq!(err.line, 2);
    }
}
