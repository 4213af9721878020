//! The mysql client's `LOAD DATA LOCAL INFILE`: a file beside the dump read
//! by sqlwitness, as MySQL reads it, into `INSERT` statements.
//!
//! A dump may load a table from a text file it ships (MySQL's own
//! `menagerie` sample: `LOAD DATA LOCAL INFILE 'pet.txt' INTO TABLE pet`;
//! the files `mysqldump --tab` writes). The server is never asked to read a
//! file: the statement is read here, the file is read from the dump's
//! folder (confined as an included file is), and its records go to the
//! server as `INSERT IGNORE` (`REPLACE` with `REPLACE`) — what `LOCAL`
//! means: a value the column cannot hold is adjusted with a warning and a
//! duplicate key skipped, not an error. Every value is sent as a string in
//! the statement's character set (`CONVERT(X'…' USING cs)`), for the server
//! to convert to the column's type as `LOAD DATA` does; `\N` (or an
//! unenclosed `NULL` when fields are enclosed) is NULL; a record with fewer
//! fields than columns gives the rest their `DEFAULT`, extra fields are
//! dropped.
//!
//! Read: `[REPLACE | IGNORE]`, `INTO TABLE t`, `CHARACTER SET`, `FIELDS |
//! COLUMNS TERMINATED BY / [OPTIONALLY] ENCLOSED BY / ESCAPED BY`, `LINES
//! STARTING BY / TERMINATED BY`, `IGNORE n LINES | ROWS` and a column list.
//! Refused by name: a server file (no `LOCAL`), `PARTITION`, user variables
//! in the column list and `SET` (expressions sqlwitness does not evaluate),
//! `LOAD XML`.

/// A `LOAD DATA LOCAL INFILE` statement, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadData {
    /// The file, as the statement names it.
    pub file: String,
    /// The table, as written (`` `db`.`t` `` or `t`).
    pub table: String,
    /// The columns, as written; empty: every column in order.
    pub columns: Vec<String>,
    /// `REPLACE`: a row with a duplicate key replaces the old one.
    pub replace: bool,
    /// The file's character set (a word): `utf8mb4` when not given.
    pub charset: String,
    pub fields_terminated: Vec<u8>,
    pub enclosed: Option<u8>,
    pub escaped: Option<u8>,
    pub lines_starting: Vec<u8>,
    pub lines_terminated: Vec<u8>,
    /// Lines skipped at the start of the file.
    pub ignore_lines: u64,
}

/// Why a `LOAD DATA` statement is not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NotRead(pub String);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    /// A word or number, as written.
    Word(String),
    /// A `` `quoted` `` identifier, as written (with its quotes).
    Ident(String),
    /// A string literal's value (`'…'`, `"…"`).
    Str(Vec<u8>),
    Punct(char),
}

/// The tokens of a MySQL statement, as far as `LOAD DATA` needs them.
fn tokens(text: &str) -> Result<Vec<Tok>, NotRead> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'\'' || c == b'"' {
            let (value, next) = string_literal(b, i)?;
            out.push(Tok::Str(value));
            i = next;
        } else if c == b'`' {
            let mut j = i + 1;
            loop {
                match b.get(j) {
                    Some(b'`') if b.get(j + 1) == Some(&b'`') => j += 2,
                    Some(b'`') => break,
                    Some(_) => j += 1,
                    None => return Err(NotRead("a quoted name does not end".into())),
                }
            }
            out.push(Tok::Ident(text[i..=j].to_string()));
            i = j + 1;
        } else if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80 {
            let start = i;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'$') || b[i] >= 0x80)
            {
                i += 1;
            }
            out.push(Tok::Word(text[start..i].to_string()));
        } else {
            out.push(Tok::Punct(c as char));
            i += 1;
        }
    }
    Ok(out)
}

/// The value of the string literal starting at `start` (MySQL's escapes,
/// a doubled quote), and the index after it.
fn string_literal(b: &[u8], start: usize) -> Result<(Vec<u8>, usize), NotRead> {
    let quote = b[start];
    let mut value = Vec::new();
    let mut i = start + 1;
    while i < b.len() {
        let c = b[i];
        if c == b'\\' && i + 1 < b.len() {
            value.push(match b[i + 1] {
                b'n' => b'\n',
                b't' => b'\t',
                b'r' => b'\r',
                b'0' => 0,
                b'b' => 8,
                b'Z' => 0x1a,
                other => other,
            });
            i += 2;
        } else if c == quote && b.get(i + 1) == Some(&quote) {
            value.push(quote);
            i += 2;
        } else if c == quote {
            return Ok((value, i + 1));
        } else {
            value.push(c);
            i += 1;
        }
    }
    Err(NotRead("a string does not end".into()))
}

fn word(t: Option<&Tok>) -> Option<String> {
    match t {
        Some(Tok::Word(w)) => Some(w.to_ascii_uppercase()),
        _ => None,
    }
}

/// Reads `LOAD DATA … LOCAL INFILE 'file' … INTO TABLE t …`.
pub fn parse(statement: &str) -> Result<LoadData, NotRead> {
    let toks = tokens(statement.trim().trim_end_matches(';'))?;
    let mut p = Parser { toks, at: 0 };
    p.expect("LOAD")?;
    if p.peek_word().as_deref() == Some("XML") {
        return Err(NotRead("LOAD XML is not read by sqlwitness".into()));
    }
    p.expect("DATA")?;
    while matches!(
        p.peek_word().as_deref(),
        Some("LOW_PRIORITY" | "CONCURRENT")
    ) {
        p.at += 1;
    }
    if p.peek_word().as_deref() != Some("LOCAL") {
        return Err(NotRead(
            "LOAD DATA without LOCAL reads a file of the server's".into(),
        ));
    }
    p.at += 1;
    p.expect("INFILE")?;
    let file = p.string("the file's name")?;
    let file =
        String::from_utf8(file).map_err(|_| NotRead("the file's name is not UTF-8".into()))?;
    let mut spec = LoadData {
        file,
        table: String::new(),
        columns: Vec::new(),
        replace: false,
        charset: "utf8mb4".into(),
        fields_terminated: b"\t".to_vec(),
        enclosed: None,
        escaped: Some(b'\\'),
        lines_starting: Vec::new(),
        lines_terminated: b"\n".to_vec(),
        ignore_lines: 0,
    };
    match p.peek_word().as_deref() {
        Some("REPLACE") => {
            spec.replace = true;
            p.at += 1;
        }
        Some("IGNORE") => p.at += 1,
        _ => {}
    }
    p.expect("INTO")?;
    p.expect("TABLE")?;
    spec.table = p.name()?;
    p.options(&mut spec)?;
    if spec.fields_terminated.is_empty() && spec.enclosed.is_none() {
        return Err(NotRead(
            "LOAD DATA with fixed-width fields (FIELDS TERMINATED BY '' ENCLOSED BY '') is not \
             read by sqlwitness"
                .into(),
        ));
    }
    if p.at < p.toks.len() {
        return Err(NotRead(format!(
            "LOAD DATA: `{}` is not read by sqlwitness",
            p.rest()
        )));
    }
    Ok(spec)
}

struct Parser {
    toks: Vec<Tok>,
    at: usize,
}

impl Parser {
    fn peek_word(&self) -> Option<String> {
        word(self.toks.get(self.at))
    }

    fn expect(&mut self, w: &str) -> Result<(), NotRead> {
        if self.peek_word().as_deref() == Some(w) {
            self.at += 1;
            Ok(())
        } else {
            Err(NotRead(format!("LOAD DATA: {w} expected")))
        }
    }

    fn string(&mut self, what: &str) -> Result<Vec<u8>, NotRead> {
        match self.toks.get(self.at) {
            Some(Tok::Str(s)) => {
                self.at += 1;
                Ok(s.clone())
            }
            _ => Err(NotRead(format!("LOAD DATA: {what} expected as a string"))),
        }
    }

    /// A name as written: identifiers joined by dots.
    fn name(&mut self) -> Result<String, NotRead> {
        let mut out = String::new();
        loop {
            match self.toks.get(self.at) {
                Some(Tok::Word(w)) | Some(Tok::Ident(w)) => out.push_str(w),
                _ => return Err(NotRead("LOAD DATA: a table name expected".into())),
            }
            self.at += 1;
            if self.toks.get(self.at) == Some(&Tok::Punct('.')) {
                out.push('.');
                self.at += 1;
            } else {
                return Ok(out);
            }
        }
    }

    fn rest(&self) -> String {
        self.toks[self.at..]
            .iter()
            .take(6)
            .map(|t| match t {
                Tok::Word(w) | Tok::Ident(w) => w.clone(),
                Tok::Str(s) => format!("'{}'", String::from_utf8_lossy(s)),
                Tok::Punct(c) => c.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn options(&mut self, spec: &mut LoadData) -> Result<(), NotRead> {
        if self.peek_word().as_deref() == Some("PARTITION") {
            return Err(NotRead(
                "LOAD DATA … PARTITION is not read by sqlwitness".into(),
            ));
        }
        if self.peek_word().as_deref() == Some("CHARACTER") {
            self.at += 1;
            self.expect("SET")?;
            spec.charset = self.charset()?;
        } else if self.peek_word().as_deref() == Some("CHARSET") {
            self.at += 1;
            spec.charset = self.charset()?;
        }
        if matches!(self.peek_word().as_deref(), Some("FIELDS" | "COLUMNS")) {
            self.at += 1;
            self.fields(spec)?;
        }
        if self.peek_word().as_deref() == Some("LINES") {
            self.at += 1;
            self.lines(spec)?;
        }
        if self.peek_word().as_deref() == Some("IGNORE") {
            self.at += 1;
            let n = match self.toks.get(self.at) {
                Some(Tok::Word(w)) => w.parse::<u64>().ok(),
                _ => None,
            }
            .ok_or_else(|| NotRead("LOAD DATA: IGNORE takes a number of lines".into()))?;
            self.at += 1;
            if !matches!(self.peek_word().as_deref(), Some("LINES" | "ROWS")) {
                return Err(NotRead("LOAD DATA: IGNORE n LINES expected".into()));
            }
            self.at += 1;
            spec.ignore_lines = n;
        }
        if self.toks.get(self.at) == Some(&Tok::Punct('(')) {
            self.at += 1;
            loop {
                if self.toks.get(self.at) == Some(&Tok::Punct('@')) {
                    return Err(NotRead(
                        "LOAD DATA into user variables is not read by sqlwitness".into(),
                    ));
                }
                if self.toks.get(self.at) == Some(&Tok::Punct(')')) && spec.columns.is_empty() {
                    self.at += 1;
                    break;
                }
                spec.columns.push(self.name()?);
                match self.toks.get(self.at) {
                    Some(Tok::Punct(',')) => self.at += 1,
                    Some(Tok::Punct(')')) => {
                        self.at += 1;
                        break;
                    }
                    _ => return Err(NotRead("LOAD DATA: a column list does not end".into())),
                }
            }
        }
        if self.peek_word().as_deref() == Some("SET") {
            return Err(NotRead(
                "LOAD DATA … SET (expressions on the fields) is not read by sqlwitness".into(),
            ));
        }
        Ok(())
    }

    fn charset(&mut self) -> Result<String, NotRead> {
        let name = match self.toks.get(self.at) {
            Some(Tok::Word(w)) => w.clone(),
            Some(Tok::Str(s)) => String::from_utf8_lossy(s).into_owned(),
            _ => return Err(NotRead("LOAD DATA: a character set expected".into())),
        };
        self.at += 1;
        if name.is_empty() || !name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
            return Err(NotRead(format!("LOAD DATA: character set `{name}`")));
        }
        Ok(match name.to_ascii_lowercase().as_str() {
            "binary" => "binary".into(),
            "utf8" => "utf8mb3".into(),
            other => other.to_string(),
        })
    }

    fn fields(&mut self, spec: &mut LoadData) -> Result<(), NotRead> {
        let mut any = false;
        loop {
            match self.peek_word().as_deref() {
                Some("TERMINATED") => {
                    self.at += 1;
                    self.expect("BY")?;
                    spec.fields_terminated = self.string("FIELDS TERMINATED BY")?;
                }
                Some("OPTIONALLY") | Some("ENCLOSED") => {
                    if self.peek_word().as_deref() == Some("OPTIONALLY") {
                        self.at += 1;
                    }
                    self.expect("ENCLOSED")?;
                    self.expect("BY")?;
                    spec.enclosed = one_char(self.string("ENCLOSED BY")?, "ENCLOSED BY")?;
                }
                Some("ESCAPED") => {
                    self.at += 1;
                    self.expect("BY")?;
                    spec.escaped = one_char(self.string("ESCAPED BY")?, "ESCAPED BY")?;
                }
                _ if any => return Ok(()),
                _ => return Err(NotRead("LOAD DATA: FIELDS without an option".into())),
            }
            any = true;
        }
    }

    fn lines(&mut self, spec: &mut LoadData) -> Result<(), NotRead> {
        let mut any = false;
        loop {
            match self.peek_word().as_deref() {
                Some("STARTING") => {
                    self.at += 1;
                    self.expect("BY")?;
                    spec.lines_starting = self.string("LINES STARTING BY")?;
                }
                Some("TERMINATED") => {
                    self.at += 1;
                    self.expect("BY")?;
                    spec.lines_terminated = self.string("LINES TERMINATED BY")?;
                }
                _ if any => return Ok(()),
                _ => return Err(NotRead("LOAD DATA: LINES without an option".into())),
            }
            any = true;
        }
    }
}

fn one_char(s: Vec<u8>, what: &str) -> Result<Option<u8>, NotRead> {
    match s.len() {
        0 => Ok(None),
        1 => Ok(Some(s[0])),
        _ => Err(NotRead(format!("LOAD DATA: {what} takes one character"))),
    }
}

/// One field of a record: `None` is NULL.
pub type Field = Option<Vec<u8>>;

/// The records of `data` as `spec` reads them, after its ignored lines.
#[cfg(test)]
fn records(data: &[u8], spec: &LoadData) -> Vec<Vec<Field>> {
    let mut stream = Records::new(data, spec);
    let mut out = Vec::new();
    while let Ok(Some(r)) = stream.next_record() {
        out.push(r);
    }
    out
}

/// The records of a file as `spec` reads them, after its ignored lines,
/// read a piece at a time: what is held is the record being read and the
/// piece of the file after it.
pub struct Records<'a, R> {
    reader: R,
    spec: &'a LoadData,
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
    skipped: u64,
    /// The least read at a time.
    piece: usize,
}

impl<'a, R: std::io::Read> Records<'a, R> {
    pub fn new(reader: R, spec: &'a LoadData) -> Self {
        Records {
            reader,
            spec,
            buf: Vec::new(),
            pos: 0,
            eof: false,
            skipped: 0,
            piece: 1 << 20,
        }
    }

    #[cfg(test)]
    fn with_piece(mut self, piece: usize) -> Self {
        self.piece = piece;
        self
    }

    /// The next record; `None` at the end of the file.
    pub fn next_record(&mut self) -> std::io::Result<Option<Vec<Field>>> {
        loop {
            if self.pos >= self.buf.len() {
                if self.eof {
                    return Ok(None);
                }
                self.fill()?;
                continue;
            }
            let mut r = Reader {
                data: &self.buf[self.pos..],
                at: 0,
                spec: self.spec,
            };
            // A record the piece read so far cuts is read again, whole,
            // once more of the file is there.
            if !r.skip_to_start() {
                if self.eof {
                    self.pos = self.buf.len();
                    return Ok(None);
                }
                self.fill()?;
                continue;
            }
            let (record, whole) = r.record();
            if !whole && !self.eof {
                self.fill()?;
                continue;
            }
            self.pos += r.at;
            if self.skipped < self.spec.ignore_lines {
                self.skipped += 1;
                continue;
            }
            return Ok(Some(record));
        }
    }

    /// Reads the next piece of the file (at least as much as is held, so
    /// that a long record is read again only a few times).
    fn fill(&mut self) -> std::io::Result<()> {
        self.buf.drain(..self.pos);
        self.pos = 0;
        let want = self.buf.len().max(self.piece);
        let before = self.buf.len();
        let got = std::io::Read::read_to_end(
            &mut std::io::Read::take(&mut self.reader, want as u64),
            &mut self.buf,
        )?;
        if got == 0 || self.buf.len() - before < want {
            self.eof = true;
        }
        Ok(())
    }
}

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
    spec: &'a LoadData,
}

impl Reader<'_> {
    fn at_seq(&self, seq: &[u8]) -> bool {
        !seq.is_empty() && self.data[self.at..].starts_with(seq)
    }

    /// Past `LINES STARTING BY` (a line without it is skipped whole);
    /// false at the end of the data.
    fn skip_to_start(&mut self) -> bool {
        let start = &self.spec.lines_starting;
        if start.is_empty() {
            return true;
        }
        match find(&self.data[self.at..], start) {
            Some(i) => {
                self.at += i + start.len();
                true
            }
            None => {
                self.at = self.data.len();
                false
            }
        }
    }

    /// One record, up to and past the line terminator; whether it ended
    /// at one (else at the end of the data read so far).
    fn record(&mut self) -> (Vec<Field>, bool) {
        let mut fields = Vec::new();
        loop {
            let (field, end) = self.field();
            fields.push(field);
            match end {
                End::Field => continue,
                End::Line => return (fields, true),
                End::Data => return (fields, false),
            }
        }
    }

    fn field(&mut self) -> (Field, End) {
        let spec = self.spec;
        let enclosed = spec
            .enclosed
            .filter(|&q| self.data.get(self.at) == Some(&q));
        if let Some(q) = enclosed {
            self.at += 1;
            let mut value = Vec::new();
            while self.at < self.data.len() {
                let c = self.data[self.at];
                if Some(c) == spec.escaped && self.at + 1 < self.data.len() {
                    value.push(unescape(self.data[self.at + 1]));
                    self.at += 2;
                } else if c == q && self.data.get(self.at + 1) == Some(&q) {
                    value.push(q);
                    self.at += 2;
                } else if c == q {
                    self.at += 1;
                    // The closing quote ends the field only before a
                    // terminator; else it is part of the value.
                    if let Some(end) = self.terminator() {
                        return (Some(value), end);
                    }
                    value.push(q);
                } else {
                    value.push(c);
                    self.at += 1;
                }
            }
            return (Some(value), End::Data);
        }
        let mut value = Vec::new();
        let mut escaped_null = false;
        loop {
            if let Some(end) = self.terminator() {
                return (self.finish(value, escaped_null), end);
            }
            if self.at >= self.data.len() {
                return (self.finish(value, escaped_null), End::Data);
            }
            let c = self.data[self.at];
            if Some(c) == spec.escaped && self.at + 1 < self.data.len() {
                let next = self.data[self.at + 1];
                if next == b'N' && value.is_empty() {
                    escaped_null = true;
                }
                value.push(unescape(next));
                self.at += 2;
            } else {
                value.push(c);
                self.at += 1;
            }
        }
    }

    /// `\N` alone, or the bare word `NULL` when fields may be enclosed, is
    /// NULL.
    fn finish(&self, value: Vec<u8>, escaped_null: bool) -> Field {
        if (escaped_null && value == b"N") || (self.spec.enclosed.is_some() && value == b"NULL") {
            None
        } else {
            Some(value)
        }
    }

    /// Past a field or line terminator at the current place, if one is
    /// there.
    fn terminator(&mut self) -> Option<End> {
        if self.at_seq(&self.spec.lines_terminated) {
            self.at += self.spec.lines_terminated.len();
            return Some(End::Line);
        }
        if self.at_seq(&self.spec.fields_terminated) {
            self.at += self.spec.fields_terminated.len();
            return Some(End::Field);
        }
        None
    }
}

enum End {
    Field,
    Line,
    Data,
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// What MySQL reads for an escape character followed by `c`.
fn unescape(c: u8) -> u8 {
    match c {
        b'0' => 0,
        b'b' => 8,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'Z' => 0x1a,
        other => other,
    }
}

/// The head of every `INSERT` of `spec`'s rows (`INSERT IGNORE INTO t
/// (cols) VALUES `).
pub fn insert_head(spec: &LoadData) -> String {
    let verb = if spec.replace {
        "REPLACE"
    } else {
        "INSERT IGNORE"
    };
    if spec.columns.is_empty() {
        format!("{verb} INTO {} VALUES ", spec.table)
    } else {
        format!(
            "{verb} INTO {} ({}) VALUES ",
            spec.table,
            spec.columns.join(", ")
        )
    }
}

/// `INSERT` statements of at most about `max_bytes`, built a record at a
/// time.
pub struct Batch<'a> {
    spec: &'a LoadData,
    head: &'a str,
    max_bytes: usize,
    stmt: String,
}

impl<'a> Batch<'a> {
    pub fn new(spec: &'a LoadData, head: &'a str, max_bytes: usize) -> Self {
        Batch {
            spec,
            head,
            max_bytes,
            stmt: String::new(),
        }
    }

    /// Adds a record; the statement before it when it would grow past the
    /// limit.
    pub fn push(&mut self, record: &[Field]) -> Option<String> {
        let row = row_values(self.spec, record);
        let full = (!self.stmt.is_empty() && self.stmt.len() + row.len() > self.max_bytes)
            .then(|| std::mem::take(&mut self.stmt));
        if self.stmt.is_empty() {
            self.stmt.push_str(self.head);
        } else {
            self.stmt.push_str(", ");
        }
        self.stmt.push_str(&row);
        full
    }

    /// The last statement, if any record is left.
    pub fn finish(self) -> Option<String> {
        (!self.stmt.is_empty()).then_some(self.stmt)
    }
}

/// The `INSERT` statements (each at most about `max_bytes` long) that put
/// `records` into the table as `LOAD DATA LOCAL` would.
#[cfg(test)]
fn inserts(spec: &LoadData, records: &[Vec<Field>], max_bytes: usize) -> Vec<String> {
    let head = insert_head(spec);
    let mut batch = Batch::new(spec, &head, max_bytes);
    let mut out: Vec<String> = records.iter().filter_map(|r| batch.push(r)).collect();
    out.extend(batch.finish());
    out
}

/// `(v1, v2, …)` of one record: a value as a string in the file's
/// character set, NULL, or `DEFAULT` for a column past the record's
/// fields. Without a column list the record's own fields count.
fn row_values(spec: &LoadData, r: &[Field]) -> String {
    let n = if spec.columns.is_empty() {
        r.len()
    } else {
        spec.columns.len()
    };
    let values: Vec<String> = (0..n)
        .map(|i| match r.get(i) {
            Some(None) => "NULL".to_string(),
            Some(Some(v)) if spec.charset == "binary" => format!("X'{}'", hex(v)),
            Some(Some(v)) => format!("CONVERT(X'{}' USING {})", hex(v), spec.charset),
            None => "DEFAULT".to_string(),
        })
        .collect();
    format!("({})", values.join(", "))
}

fn hex(v: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(v.len() * 2);
    for b in v {
        let _ = write!(s, "{b:02X}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(v: &[Option<&str>]) -> Vec<Field> {
        v.iter().map(|f| f.map(|s| s.as_bytes().to_vec())).collect()
    }

    #[test]
    fn the_menagerie_statement_reads_with_mysqls_defaults() {
        let spec = parse("LOAD DATA LOCAL INFILE 'pet.txt' INTO TABLE pet;").unwrap();
        assert_eq!(spec.file, "pet.txt");
        assert_eq!(spec.table, "pet");
        assert!(spec.columns.is_empty());
        let data =
            b"Fluffy\tHarold\tcat\tf\t1993-02-04\t\\N\nClaws\tGwen\tcat\tm\t1994-03-17\t\\N\n";
        let r = records(data, &spec);
        assert_eq!(
            r,
            vec![
                fields(&[
                    Some("Fluffy"),
                    Some("Harold"),
                    Some("cat"),
                    Some("f"),
                    Some("1993-02-04"),
                    None
                ]),
                fields(&[
                    Some("Claws"),
                    Some("Gwen"),
                    Some("cat"),
                    Some("m"),
                    Some("1994-03-17"),
                    None
                ]),
            ]
        );
        let sql = inserts(&spec, &r[..1], 1 << 20);
        assert_eq!(sql.len(), 1);
        assert!(sql[0].starts_with(
            "INSERT IGNORE INTO pet VALUES (CONVERT(X'466C75666679' USING utf8mb4), "
        ));
        assert!(sql[0].ends_with(", NULL)"));
    }

    #[test]
    fn csv_options_quotes_escapes_and_ignored_lines() {
        let spec = parse(
            "LOAD DATA LOW_PRIORITY LOCAL INFILE \"d/x.csv\" REPLACE INTO TABLE `db`.`t``x` \
             CHARACTER SET latin1 FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' \
             ESCAPED BY '\\\\' LINES TERMINATED BY '\\r\\n' IGNORE 1 LINES (a, `b`, c)",
        )
        .unwrap();
        assert_eq!(spec.file, "d/x.csv");
        assert_eq!(spec.table, "`db`.`t``x`");
        assert_eq!(spec.columns, ["a", "`b`", "c"]);
        assert!(spec.replace);
        assert_eq!(spec.charset, "latin1");
        assert_eq!(spec.enclosed, Some(b'"'));
        assert_eq!(spec.lines_terminated, b"\r\n");
        let data = b"a,b,c\r\n1,\"x, \"\"y\"\"\",NULL\r\n2,\"line\\nbreak\",\\N\r\n3\r\n";
        let r = records(data, &spec);
        assert_eq!(
            r,
            vec![
                fields(&[Some("1"), Some("x, \"y\""), None]),
                fields(&[Some("2"), Some("line\nbreak"), None]),
                fields(&[Some("3")]),
            ]
        );
        let sql = inserts(&spec, &r[2..], 1 << 20);
        assert_eq!(
            sql,
            ["REPLACE INTO `db`.`t``x` (a, `b`, c) VALUES (CONVERT(X'33' USING latin1), DEFAULT, DEFAULT)"]
        );
    }

    #[test]
    fn a_last_line_without_terminator_and_batches() {
        let spec = parse("load data local infile 'f' into table t").unwrap();
        let r = records(b"1\ta\n2\tb", &spec);
        assert_eq!(
            r,
            vec![
                fields(&[Some("1"), Some("a")]),
                fields(&[Some("2"), Some("b")])
            ]
        );
        let sql = inserts(&spec, &r, 10);
        assert_eq!(sql.len(), 2);
        assert!(records(b"", &spec).is_empty());
    }

    #[test]
    fn records_read_a_piece_at_a_time_are_the_records_read_whole() {
        let spec = parse(
            "LOAD DATA LOCAL INFILE 'f' INTO TABLE t FIELDS TERMINATED BY ',' \
             OPTIONALLY ENCLOSED BY '\"' LINES TERMINATED BY '\r\n' IGNORE 1 LINES",
        )
        .unwrap();
        let mut data = b"h\r\n".to_vec();
        for i in 0..20_000 {
            data.extend_from_slice(format!("{i},\"a, \"\"b\\\\\",\\N\r\n").as_bytes());
        }
        let whole = records(&data, &spec);
        assert_eq!(whole.len(), 20_000);
        assert_eq!(whole[7], fields(&[Some("7"), Some("a, \"b\\"), None]));
        // Pieces of a few bytes cut records, quotes, escapes and
        // terminators at every place.
        let mut stream = Records::new(&data[..], &spec).with_piece(5);
        let mut n = 0;
        while let Some(r) = stream.next_record().unwrap() {
            assert_eq!(r, whole[n]);
            n += 1;
        }
        assert_eq!(n, whole.len());
    }

    #[test]
    fn what_is_not_read_is_refused_by_name() {
        for (stmt, why) in [
            ("LOAD DATA INFILE '/etc/passwd' INTO TABLE t", "server"),
            ("LOAD XML LOCAL INFILE 'x.xml' INTO TABLE t", "XML"),
            (
                "LOAD DATA LOCAL INFILE 'f' INTO TABLE t (a, @b) SET c = @b",
                "user variables",
            ),
            (
                "LOAD DATA LOCAL INFILE 'f' INTO TABLE t (a) SET c = 1",
                "SET",
            ),
            (
                "LOAD DATA LOCAL INFILE 'f' INTO TABLE t PARTITION (p0)",
                "PARTITION",
            ),
            (
                "LOAD DATA LOCAL INFILE 'f' INTO TABLE t FIELDS ENCLOSED BY 'ab'",
                "one character",
            ),
            (
                "LOAD DATA LOCAL INFILE 'f' INTO TABLE t CHARACTER SET 'a b'",
                "character set",
            ),
        ] {
            let e = parse(stmt).unwrap_err();
            assert!(e.0.contains(why), "{stmt}: {e}");
        }
    }
}
