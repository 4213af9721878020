//! pg_dump's custom format (`pg_dump -Fc`, a file starting `PGDMP`): a
//! header, a table of contents (one entry per object: its `CREATE …`
//! text, and for a table's rows the `COPY … FROM stdin;` that loads them)
//! and one block of rows per table, compressed (zlib, or lz4 or zstd from
//! pg_dump 16 on) or not. It is read as
//! the plain script `pg_restore -f -` prints from it: the entries' texts in
//! pg_restore's order, each table's `COPY` followed by its rows,
//! decompressed as they are read, streaming, never extracted. The loader
//! then reads that script as it reads a plain dump, under the same policy.
//!
//! pg_dump's directory format (`pg_dump -Fd`, a folder) is the same archive
//! with each table's rows in a file of their own beside its `toc.dat`
//! (`3456.dat`, compressed as `3456.dat.gz`, `3456.dat.lz4` or
//! `3456.dat.zst`): the folder, or its
//! `toc.dat`, is read the same way, each table's rows from its file.
//!
//! Left out, as `pg_restore` without `--create` leaves them: the
//! `CREATE DATABASE` entry and the database's own properties, comments and
//! privileges; and the planner statistics of recent pg_dump versions
//! (`STATISTICS DATA`), which hold no rows. Ownership is not printed (the
//! loader never changes owners). An archive holding large objects is
//! refused by name, saying how to make it a plain dump.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use sqlwitness_bench::BenchError;

use super::decompress::Frames;

/// The archive formats of pg_dump's header: a custom-format file, and a
/// directory-format dump's `toc.dat`, which pg_dump writes with the tar
/// format's code (3: the same table of contents, each entry naming its
/// file of rows) — 5, the directory format's own code, is read alike.
const FORMAT_CUSTOM: u8 = 1;
const FORMAT_FILES: [u8; 2] = [3, 5];

/// A block of table rows (`BLK_DATA`); large objects are `BLK_BLOBS` (3).
const BLOCK_DATA: u8 = 1;
const BLOCK_BLOBS: u8 = 3;

/// How the archive's blocks of rows are compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compression {
    None,
    /// zlib (pg_dump's gzip: a zlib stream over each block's chunks).
    Zlib,
    /// lz4 or zstd (pg_dump 16 and later): a stream of frames over each
    /// block's chunks.
    Frames(Frames),
}

/// Where an entry's block of rows is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum DataAt {
    None,
    /// At this offset of the file.
    At(u64),
    /// Somewhere after the table of contents (an archive pg_dump wrote to
    /// a pipe): found by reading the blocks' headers.
    Unknown,
    /// In this file of a directory-format dump's folder (`3456.dat`; its
    /// rows compressed in `3456.dat.gz`).
    File(String),
}

/// One entry of the table of contents.
#[derive(Debug, Clone)]
struct Entry {
    id: i64,
    tag: Vec<u8>,
    desc: String,
    defn: Vec<u8>,
    copy_stmt: Vec<u8>,
    namespace: Vec<u8>,
    owner: Vec<u8>,
    data: DataAt,
}

/// The version and sizes the archive's header gives.
#[derive(Debug, Clone, Copy)]
struct Layout {
    /// `(major, minor)`, such as `(1, 14)` for pg_dump 12 to 15.
    version: (u8, u8),
    int_size: usize,
    off_size: usize,
}

impl Layout {
    fn at_least(&self, minor: u8) -> bool {
        self.version.0 > 1 || (self.version.0 == 1 && self.version.1 >= minor)
    }
}

/// Reads the archive's integers and strings as pg_dump writes them.
struct Fields<R> {
    r: R,
    layout: Layout,
    /// The archive's length: no string is longer.
    len: u64,
}

fn corrupt(what: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string())
}

impl<R: Read> Fields<R> {
    fn byte(&mut self) -> std::io::Result<u8> {
        let mut b = [0u8; 1];
        self.r.read_exact(&mut b)?;
        Ok(b[0])
    }

    /// An integer: a sign byte, then `int_size` bytes, least significant
    /// first.
    fn int(&mut self) -> std::io::Result<i64> {
        // (Every version read here, 1.5 on, writes the sign.)
        let negative = self.byte()? != 0;
        let mut value: u64 = 0;
        for i in 0..self.layout.int_size {
            let b = u64::from(self.byte()?);
            if i < 8 {
                value |= b << (8 * i);
            } else if b != 0 {
                return Err(corrupt("an integer wider than 64 bits"));
            }
        }
        let value = i64::try_from(value).map_err(|_| corrupt("an integer out of range"))?;
        Ok(if negative { -value } else { value })
    }

    /// A string's bytes (`None`: pg_dump's NULL, a length of -1).
    fn string(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        let len = self.int()?;
        if len < 0 {
            return Ok(None);
        }
        let len = len as u64;
        if len > self.len {
            return Err(corrupt(format!(
                "a string of {len} bytes in an archive of {}",
                self.len
            )));
        }
        let mut buf = Vec::with_capacity(len as usize);
        (&mut self.r).take(len).read_to_end(&mut buf)?;
        if buf.len() as u64 != len {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        Ok(Some(buf))
    }

    fn text(&mut self) -> std::io::Result<Vec<u8>> {
        Ok(self.string()?.unwrap_or_default())
    }

    /// An offset: a flag (set, not set, no data), then `off_size` bytes.
    fn offset(&mut self) -> std::io::Result<DataAt> {
        if !self.layout.at_least(7) {
            let at = self.int()?;
            return Ok(if at > 0 {
                DataAt::At(at as u64)
            } else {
                DataAt::Unknown
            });
        }
        let flag = self.byte()?;
        let mut at: u64 = 0;
        for i in 0..self.layout.off_size {
            let b = u64::from(self.byte()?);
            if i < 8 {
                at |= b << (8 * i);
            } else if b != 0 {
                return Err(corrupt("a file offset wider than 64 bits"));
            }
        }
        match flag {
            1 => Ok(DataAt::Unknown),
            2 => Ok(DataAt::At(at)),
            3 => Ok(DataAt::None),
            other => Err(corrupt(format!("an unknown offset flag {other}"))),
        }
    }
}

/// A custom-format archive: its header and table of contents.
#[derive(Debug)]
pub(super) struct CustomDump {
    /// The archive's file, read in place.
    path: PathBuf,
    /// How messages name it: as named, or the zip file's member it was
    /// unpacked from.
    shown_as: PathBuf,
    /// The file unpacked from a zip, kept while the archive is read.
    _unpacked: Option<std::sync::Arc<super::unzip::Unpacked>>,
    layout: Layout,
    compression: Compression,
    entries: Vec<Entry>,
    /// Where the blocks of rows begin (just after the table of contents).
    blocks: u64,
    /// A directory-format dump's folder, which holds its files of rows.
    folder: Option<PathBuf>,
}

impl CustomDump {
    /// Reads the header and the table of contents of the archive at
    /// `path`; an archive this reader cannot read in full is refused here,
    /// before anything loads.
    #[cfg(test)]
    pub fn open(path: &Path) -> Result<CustomDump, BenchError> {
        CustomDump::open_unpacked(path, path, None)
    }

    /// Reads the archive at `path`, named `shown_as` (unpacked from a zip
    /// file: `unpacked`).
    pub fn open_unpacked(
        path: &Path,
        shown_as: &Path,
        unpacked: Option<std::sync::Arc<super::unzip::Unpacked>>,
    ) -> Result<CustomDump, BenchError> {
        let refuse = |message: String| BenchError::format(shown_as, "archive", message);
        let file = File::open(path).map_err(|source| BenchError::Io {
            path: shown_as.to_path_buf(),
            source,
        })?;
        let len = file.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
        let mut counted = Counted {
            r: BufReader::new(file),
            at: 0,
        };
        let read = |counted: &mut Counted<BufReader<File>>| -> std::io::Result<_> {
            let mut magic = [0u8; 5];
            counted.read_exact(&mut magic)?;
            if &magic != b"PGDMP" {
                return Err(corrupt("no PGDMP at its start"));
            }
            let mut fields = Fields {
                r: &mut *counted,
                layout: Layout {
                    version: (1, 0),
                    int_size: 4,
                    off_size: 4,
                },
                len,
            };
            let major = fields.byte()?;
            let minor = fields.byte()?;
            if major > 1 || (major == 1 && minor > 0) {
                fields.byte()?;
            }
            let layout = Layout {
                version: (major, minor),
                int_size: usize::from(fields.byte()?),
                off_size: 0,
            };
            if layout.version.0 != 1 || layout.version.1 > 16 || layout.version.1 < 5 {
                return Err(corrupt(format!(
                    "archive version {major}.{minor}: versions 1.5 to 1.16 (pg_dump 8.0 to \
                     18) are read"
                )));
            }
            if !(1..=32).contains(&layout.int_size) {
                return Err(corrupt(format!("an integer size of {}", layout.int_size)));
            }
            fields.layout = layout;
            fields.layout.off_size = if layout.at_least(7) {
                usize::from(fields.byte()?)
            } else {
                layout.int_size
            };
            let format = fields.byte()?;
            if format != FORMAT_CUSTOM && !FORMAT_FILES.contains(&format) {
                return Err(corrupt(format!(
                    "archive format {format}, not the custom format (1) nor a directory-format \
                     dump's table of contents (3)"
                )));
            }
            let compression = if fields.layout.at_least(15) {
                match fields.byte()? {
                    0 => Compression::None,
                    1 => Compression::Zlib,
                    2 => Compression::Frames(Frames::Lz4),
                    3 => Compression::Frames(Frames::Zstd),
                    other => return Err(corrupt(format!("compression method {other}"))),
                }
            } else if fields.layout.at_least(2) {
                let level = if fields.layout.at_least(4) {
                    fields.int()?
                } else {
                    i64::from(fields.byte()?)
                };
                if level == 0 {
                    Compression::None
                } else {
                    Compression::Zlib
                }
            } else {
                Compression::Zlib
            };
            if fields.layout.at_least(4) {
                for _ in 0..7 {
                    fields.int()?; // the date it was made
                }
                fields.string()?; // the database's name
            }
            if fields.layout.at_least(10) {
                fields.string()?; // the server's version
                fields.string()?; // pg_dump's version
            }
            let entries = read_toc(&mut fields, format)?;
            let layout = fields.layout;
            Ok((layout, compression, entries, format))
        };
        let (layout, compression, entries, format) = read(&mut counted).map_err(|e| {
            refuse(format!(
                "a pg_dump custom-format archive whose header or table of contents cannot be \
                 read (at byte {}): {e}",
                counted.at
            ))
        })?;
        let folder = if FORMAT_FILES.contains(&format) {
            if unpacked.is_some() {
                return Err(refuse(
                    "the table of contents of a directory-format dump (pg_dump -Fd) inside a zip \
                     file, whose files of rows are not read from there: unzip it and import the \
                     folder"
                        .into(),
                ));
            }
            Some(path.parent().unwrap_or(Path::new(".")).to_path_buf())
        } else {
            None
        };
        let dump = CustomDump {
            path: path.to_path_buf(),
            shown_as: shown_as.to_path_buf(),
            _unpacked: unpacked,
            layout,
            compression,
            blocks: counted.at,
            entries,
            folder,
        };
        dump.check()?;
        Ok(dump)
    }

    /// Refuses what is not read: large objects.
    fn check(&self) -> Result<(), BenchError> {
        let refuse = |message: String| BenchError::format(&self.shown_as, "archive", message);
        let large = self
            .entries
            .iter()
            .filter(|e| matches!(e.desc.as_str(), "BLOB" | "BLOB METADATA" | "BLOBS"))
            .count();
        if large > 0 {
            return Err(refuse(format!(
                "the archive holds large objects ({large} entries), which are not read: dump it \
                 without them (pg_dump -Fc --no-large-objects) or make it a plain dump with \
                 `pg_restore -f plain.sql {}` and import that",
                self.shown_as.display()
            )));
        }
        Ok(())
    }

    /// The files of rows a directory-format dump's table of contents names
    /// that are in its folder, as they are there (`3456.dat` or
    /// `3456.dat.gz`): what an edit of the dump may change beside its
    /// `toc.dat`. Empty for a custom-format file.
    pub fn data_files(&self) -> Vec<PathBuf> {
        let Some(folder) = &self.folder else {
            return Vec::new();
        };
        self.entries
            .iter()
            .filter_map(|e| match &e.data {
                DataAt::File(name) => data_file(folder, name).ok().map(|(p, _)| p),
                _ => None,
            })
            .collect()
    }

    /// The plain script the archive holds, read as it is asked for.
    pub fn script(self) -> Script {
        let mut parts = VecDeque::new();
        let special = |desc: &str| self.entries.iter().find(|e| e.desc == desc);
        let mut preamble: Vec<u8> = b"SET statement_timeout = 0;\nSET lock_timeout = 0;\n\
            SET idle_in_transaction_session_timeout = 0;\n"
            .to_vec();
        if let Some(e) = special("ENCODING") {
            preamble.extend_from_slice(&e.defn);
        }
        // As pg_restore prints it: `on` when the entry says `'on'`.
        let on = special("STDSTRINGS").is_some_and(|e| e.defn.windows(4).any(|w| w == b"'on'"));
        preamble.extend_from_slice(if on {
            b"SET standard_conforming_strings = on;\n"
        } else {
            b"SET standard_conforming_strings = off;\n"
        });
        if let Some(e) = special("SEARCHPATH") {
            preamble.extend_from_slice(&e.defn);
        }
        preamble.extend_from_slice(
            b"SET check_function_bodies = false;\nSET xmloption = content;\n\
              SET client_min_messages = warning;\nSET row_security = off;\n\n",
        );
        parts.push_back(Part::Text(preamble));
        // pg_restore's three passes: privileges after everything else but
        // event triggers and materialized views' refreshes, which come last.
        let mut schema: Option<Vec<u8>> = None;
        for pass in [Pass::Main, Pass::Acl, Pass::PostAcl] {
            for (i, e) in self.entries.iter().enumerate() {
                if pass_of(e) != pass || left_out(e) {
                    continue;
                }
                let has_data = e.data != DataAt::None;
                if e.defn.is_empty() && !has_data {
                    continue;
                }
                let mut text = Vec::new();
                // Archives before 1.13 name objects relative to the
                // search path pg_restore sets for each entry.
                if !self.layout.at_least(13)
                    && !e.namespace.is_empty()
                    && schema.as_ref() != Some(&e.namespace)
                {
                    text.extend_from_slice(b"SET search_path = ");
                    text.extend_from_slice(&quoted(&e.namespace));
                    text.extend_from_slice(b", pg_catalog;\n\n");
                    schema = Some(e.namespace.clone());
                }
                text.extend_from_slice(&comment(e, has_data));
                if has_data {
                    text.extend_from_slice(&e.copy_stmt);
                    parts.push_back(Part::Text(text));
                    parts.push_back(Part::Data(i));
                    if !e.copy_stmt.is_empty() {
                        parts.push_back(Part::EndCopy);
                    }
                } else {
                    text.extend_from_slice(&e.defn);
                    text.extend_from_slice(b"\n\n");
                    parts.push_back(Part::Text(text));
                }
            }
        }
        Script {
            next_block: self.blocks,
            dump: self,
            parts,
            current: Current::Idle,
            tail: Vec::new(),
        }
    }
}

/// How a directory-format dump's file of rows is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compressed {
    Gzip,
    Frames(Frames),
}

/// Where the rows named `name` in a directory-format dump's table of
/// contents are in its `folder`: the file itself, or its compressed form
/// (`name.gz`, `name.lz4`, `name.zst`), with how it is compressed. A name
/// that is not a plain file name of the folder (a path, `..`) is an
/// error, as is a file that is missing.
fn data_file(folder: &Path, name: &str) -> std::io::Result<(PathBuf, Option<Compressed>)> {
    let plain = !name.is_empty()
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if !plain {
        return Err(corrupt(format!(
            "a file of rows named {name:?}, not a file name of the dump's folder"
        )));
    }
    // A regular file of the folder itself: a link (which could lead
    // anywhere) is not one.
    let regular = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_file());
    let at = folder.join(name);
    if regular(&at) {
        return Ok((at, None));
    }
    let gz = folder.join(format!("{name}.gz"));
    if regular(&gz) {
        return Ok((gz, Some(Compressed::Gzip)));
    }
    for frames in [Frames::Lz4, Frames::Zstd] {
        let at = folder.join(format!("{name}.{}", frames.suffix()));
        if regular(&at) {
            return Ok((at, Some(Compressed::Frames(frames))));
        }
    }
    Err(corrupt(format!(
        "{name}: no such file in the dump's folder {} (a link is not read)",
        folder.display()
    )))
}

/// Reads the table of contents of an archive of `format` (a custom-format
/// file: each entry's rows at an offset; a directory-format dump's
/// `toc.dat`: in a file of the folder).
fn read_toc<R: Read>(fields: &mut Fields<R>, format: u8) -> std::io::Result<Vec<Entry>> {
    let count = fields.int()?;
    if count < 0 {
        return Err(corrupt(format!("{count} entries")));
    }
    let mut entries = Vec::new();
    for _ in 0..count {
        let id = fields.int()?;
        fields.int()?; // whether it had rows when dumped
        if fields.layout.at_least(8) {
            fields.string()?; // the catalog's oid
        }
        fields.string()?; // the object's oid
        let tag = fields.text()?;
        let desc = String::from_utf8_lossy(&fields.text()?).into_owned();
        if fields.layout.at_least(11) {
            fields.int()?; // its section
        }
        let defn = fields.text()?;
        fields.string()?; // its DROP
        let copy_stmt = if fields.layout.at_least(3) {
            fields.text()?
        } else {
            Vec::new()
        };
        let namespace = if fields.layout.at_least(6) {
            fields.text()?
        } else {
            Vec::new()
        };
        if fields.layout.at_least(10) {
            fields.string()?; // tablespace
        }
        if fields.layout.at_least(14) {
            fields.string()?; // table access method
        }
        if fields.layout.at_least(16) {
            fields.int()?; // relation kind
        }
        let owner = fields.text()?;
        if fields.layout.at_least(9) && fields.string()?.as_deref() == Some(b"true".as_slice()) {
            return Err(corrupt(
                "a table WITH OIDS, which no PostgreSQL since 12 restores",
            ));
        }
        if fields.layout.at_least(5) {
            while fields.string()?.is_some() {} // its dependencies
        }
        let data = if FORMAT_FILES.contains(&format) {
            match fields.string()? {
                Some(name) if !name.is_empty() => {
                    DataAt::File(String::from_utf8_lossy(&name).into_owned())
                }
                _ => DataAt::None,
            }
        } else {
            fields.offset()?
        };
        entries.push(Entry {
            id,
            tag,
            desc,
            defn,
            copy_stmt,
            namespace,
            owner,
            data,
        });
    }
    Ok(entries)
}

/// pg_restore's passes over the table of contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    Main,
    Acl,
    PostAcl,
}

fn pass_of(e: &Entry) -> Pass {
    match e.desc.as_str() {
        "ACL" | "ACL LANGUAGE" | "DEFAULT ACL" => Pass::Acl,
        "EVENT TRIGGER" | "MATERIALIZED VIEW DATA" => Pass::PostAcl,
        "COMMENT" | "SECURITY LABEL" if e.tag.starts_with(b"EVENT TRIGGER ") => Pass::PostAcl,
        _ => Pass::Main,
    }
}

/// What pg_restore without `--create` leaves out, the settings the
/// preamble prints, and planner statistics.
fn left_out(e: &Entry) -> bool {
    match e.desc.as_str() {
        "ENCODING" | "STDSTRINGS" | "SEARCHPATH" => true,
        "DATABASE" | "DATABASE PROPERTIES" | "STATISTICS DATA" => true,
        "ACL" | "COMMENT" | "SECURITY LABEL" => e.tag.starts_with(b"DATABASE "),
        "<Init>" => e.tag == b"Max OID",
        _ => false,
    }
}

/// The comment pg_restore prints above an entry (a name's line breaks as
/// spaces, so that the comment ends where it should).
fn comment(e: &Entry, data: bool) -> Vec<u8> {
    let field = |s: &[u8]| -> Vec<u8> {
        if s.is_empty() {
            return b"-".to_vec();
        }
        s.iter()
            .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
            .collect()
    };
    let mut c = b"--\n-- ".to_vec();
    if data {
        c.extend_from_slice(b"Data for ");
    }
    c.extend_from_slice(b"Name: ");
    c.extend_from_slice(&field(&e.tag));
    c.extend_from_slice(b"; Type: ");
    c.extend_from_slice(&field(e.desc.as_bytes()));
    c.extend_from_slice(b"; Schema: ");
    c.extend_from_slice(&field(&e.namespace));
    c.extend_from_slice(b"; Owner: ");
    c.extend_from_slice(&field(&e.owner));
    c.extend_from_slice(b"\n--\n\n");
    c
}

/// `name` as pg_restore writes an identifier: as it is when it is a
/// plain lower-case one, else quoted.
fn quoted(name: &[u8]) -> Vec<u8> {
    let plain = name
        .first()
        .is_some_and(|b| b.is_ascii_lowercase() || *b == b'_')
        && name
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_');
    if plain {
        return name.to_vec();
    }
    let mut q = vec![b'"'];
    for &b in name {
        if b == b'"' {
            q.push(b'"');
        }
        q.push(b);
    }
    q.push(b'"');
    q
}

/// A reader that counts the bytes read through it.
struct Counted<R> {
    r: R,
    at: u64,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.r.read(buf)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// A block's rows: its chunks, each an integer length and its bytes, up
/// to a length of 0.
struct Chunks {
    fields: Fields<Counted<BufReader<File>>>,
    left: u64,
    done: bool,
}

impl Read for Chunks {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.left == 0 {
            if self.done {
                return Ok(0);
            }
            let len = self.fields.int()?;
            if len < 0 {
                return Err(corrupt(format!("a chunk of {len} bytes")));
            }
            if len == 0 {
                self.done = true;
                return Ok(0);
            }
            self.left = len as u64;
        }
        let want = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.fields.r.read(&mut buf[..want])?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        self.left -= n as u64;
        Ok(n)
    }
}

enum Part {
    Text(Vec<u8>),
    /// The rows of the entry at this index.
    Data(usize),
    /// `\.` ending a `COPY`'s rows, unless the rows end with it.
    EndCopy,
}

enum Current {
    Idle,
    Text(std::io::Cursor<Vec<u8>>),
    Data(Box<dyn Read + Send>),
}

/// The archive's plain script (see the module's comment).
pub(super) struct Script {
    dump: CustomDump,
    parts: VecDeque<Part>,
    current: Current,
    /// Where to look first for a block whose offset the archive does not
    /// give: just after the last one found.
    next_block: u64,
    /// The last bytes of the rows read, to tell whether they end with
    /// `\.`.
    tail: Vec<u8>,
}

impl Script {
    /// The rows of entry `i`, decompressed as they are read.
    fn open_data(&mut self, i: usize) -> std::io::Result<Box<dyn Read + Send>> {
        let entry = &self.dump.entries[i];
        let (id, at) = match &entry.data {
            DataAt::None => return Ok(Box::new(std::io::empty())),
            DataAt::File(file) => return self.open_file(file),
            DataAt::At(at) => (entry.id, Some(*at)),
            DataAt::Unknown => (entry.id, None),
        };
        let name = format!(
            "the rows of {}.{} (entry {id})",
            String::from_utf8_lossy(&entry.namespace),
            String::from_utf8_lossy(&entry.tag),
        );
        let mut fields = Fields {
            r: Counted {
                r: BufReader::with_capacity(1 << 16, File::open(&self.dump.path)?),
                at: 0,
            },
            layout: self.dump.layout,
            len: u64::MAX,
        };
        let found = match at {
            Some(at) => {
                fields.r.r.seek(SeekFrom::Start(at))?;
                fields.r.at = at;
                let (kind, found) = block_header(&mut fields)?;
                (found == Some(id)).then_some(kind)
            }
            None => self.find_block(&mut fields, id)?,
        };
        match found {
            Some(BLOCK_DATA) => {}
            Some(kind) => {
                return Err(corrupt(format!(
                    "{name}: a block of kind {kind}, not of rows"
                )))
            }
            None => return Err(corrupt(format!("{name}: no such block"))),
        }
        let chunks = Chunks {
            fields,
            left: 0,
            done: false,
        };
        Ok(match self.dump.compression {
            Compression::None => Box::new(chunks),
            Compression::Zlib => Box::new(flate2::read::ZlibDecoder::new(chunks)),
            Compression::Frames(frames) => frames.named_reader(name, chunks),
        })
    }

    /// The rows a directory-format dump keeps in `file` of its folder,
    /// decompressed as they are read.
    fn open_file(&self, file: &str) -> std::io::Result<Box<dyn Read + Send>> {
        let folder = self.dump.folder.as_deref().ok_or_else(|| {
            corrupt(format!(
                "{file}: a file of rows in an archive that is not a directory-format dump's"
            ))
        })?;
        let (path, compressed) = data_file(folder, file)?;
        let rows = BufReader::with_capacity(1 << 16, File::open(&path)?);
        Ok(match compressed {
            None => Box::new(rows),
            Some(Compressed::Gzip) => Box::new(flate2::read::MultiGzDecoder::new(rows)),
            Some(Compressed::Frames(frames)) => frames.named_reader(path.display(), rows),
        })
    }

    /// Reads the blocks' headers from where the last one was found (then
    /// from the first) up to entry `id`'s; leaves `fields` at its rows.
    fn find_block(
        &mut self,
        fields: &mut Fields<Counted<BufReader<File>>>,
        id: i64,
    ) -> std::io::Result<Option<u8>> {
        for start in [self.next_block, self.dump.blocks] {
            fields.r.r.seek(SeekFrom::Start(start))?;
            fields.r.at = start;
            loop {
                let (kind, found) = match block_header(fields) {
                    Ok((kind, Some(found))) => (kind, found),
                    Ok((_, None)) => break,
                    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                    Err(e) => return Err(e),
                };
                if found == id {
                    return Ok(Some(kind));
                }
                if kind == BLOCK_BLOBS {
                    return Err(corrupt("a block of large objects"));
                }
                skip_chunks(fields)?;
                self.next_block = fields.r.at;
            }
            if start == self.dump.blocks {
                break;
            }
        }
        Ok(None)
    }
}

/// A block's kind and its entry's id (`None`: the file ends).
fn block_header<R: Read>(fields: &mut Fields<R>) -> std::io::Result<(u8, Option<i64>)> {
    let kind = match fields.byte() {
        Ok(k) => k,
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok((0, None)),
        Err(e) => return Err(e),
    };
    Ok((kind, Some(fields.int()?)))
}

fn skip_chunks(fields: &mut Fields<Counted<BufReader<File>>>) -> std::io::Result<()> {
    loop {
        let len = fields.int()?;
        if len <= 0 {
            return if len == 0 {
                Ok(())
            } else {
                Err(corrupt(format!("a chunk of {len} bytes")))
            };
        }
        let len = len as u64;
        fields
            .r
            .r
            .seek_relative(i64::try_from(len).map_err(corrupt)?)?;
        fields.r.at += len;
    }
}

impl Read for Script {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let n = match &mut self.current {
                Current::Idle => 0,
                Current::Text(t) => t.read(buf)?,
                Current::Data(d) => {
                    let n = d.read(buf)?;
                    if n > 0 {
                        let keep = self.tail.len() + n;
                        self.tail.extend_from_slice(&buf[..n]);
                        if keep > 8 {
                            self.tail.drain(..keep - 8);
                        }
                    }
                    n
                }
            };
            if n > 0 {
                return Ok(n);
            }
            match self.parts.pop_front() {
                None => return Ok(0),
                Some(Part::Text(t)) => self.current = Current::Text(std::io::Cursor::new(t)),
                Some(Part::Data(i)) => {
                    self.tail.clear();
                    let data = self.open_data(i)?;
                    self.current = Current::Data(data);
                }
                Some(Part::EndCopy) => {
                    let ended = ends_copy(&self.tail);
                    let text = if ended {
                        Vec::new()
                    } else if self.tail.is_empty() || self.tail.ends_with(b"\n") {
                        b"\\.\n\n".to_vec()
                    } else {
                        b"\n\\.\n\n".to_vec()
                    };
                    self.current = Current::Text(std::io::Cursor::new(text));
                }
            }
        }
    }
}

/// Whether rows ending with `tail` end with their own `\.` line.
fn ends_copy(tail: &[u8]) -> bool {
    let trimmed = {
        let mut t = tail;
        while let [rest @ .., b'\n' | b'\r'] = t {
            t = rest;
        }
        t
    };
    trimmed.ends_with(b"\n\\.") || trimmed == b"\\."
}

impl std::fmt::Debug for Script {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Script")
            .field("path", &self.dump.shown_as)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::super::decompress::{lz4, zstd};
    use super::*;

    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/dumps/shop_custom_postgres.dump")
    }

    /// The script read from the archive at `path`, or why not.
    fn text_of(path: &Path) -> std::io::Result<String> {
        let mut s = Vec::new();
        CustomDump::open(path)
            .map_err(|e| std::io::Error::other(e.to_string()))?
            .script()
            .read_to_end(&mut s)?;
        Ok(String::from_utf8_lossy(&s).into_owned())
    }

    /// The lines that are statements or rows: comments, blank lines and
    /// the settings pg_restore prints of its own left out.
    fn statements(text: &str) -> Vec<&str> {
        text.lines()
            .filter(|l| {
                !l.is_empty()
                    && !l.starts_with("--")
                    && !l.starts_with("\\restrict")
                    && !l.starts_with("\\unrestrict")
                    && !l.starts_with("SET default_tablespace")
                    && !l.starts_with("SET default_table_access_method")
            })
            .collect()
    }

    #[test]
    fn an_archive_reads_as_the_script_pg_restore_prints() {
        let text = text_of(&fixture()).unwrap();
        assert!(text.contains("CREATE TYPE public.status AS ENUM"), "{text}");
        assert!(
            text.contains(
                "COPY public.customer (id, name, joined, balance, note) FROM stdin;\n1\t"
            ),
            "{text}"
        );
        assert!(text.contains("REFRESH MATERIALIZED VIEW public.order_count;"));
        assert!(!text.contains("OWNER TO"));
        // Beside pg_restore's own script, where the machine has it: the
        // same statements and rows, line for line.
        let Ok(out) = std::process::Command::new("pg_restore")
            .args(["--no-owner", "-f", "-"])
            .arg(fixture())
            .output()
        else {
            return;
        };
        assert!(out.status.success(), "{out:?}");
        let theirs = String::from_utf8(out.stdout).unwrap();
        assert_eq!(statements(&text), statements(&theirs));
    }

    /// Writes archives as pg_dump does, for the versions this machine's
    /// pg_dump does not write.
    struct Writer {
        bytes: Vec<u8>,
        minor: u8,
        /// A directory-format dump's `toc.dat`: each entry with rows names
        /// its file, `<id>.dat`.
        folder: bool,
    }

    impl Writer {
        fn int(&mut self, v: i64) {
            self.bytes.push(u8::from(v < 0));
            self.bytes
                .extend_from_slice(&(v.unsigned_abs() as u32).to_le_bytes());
        }
        fn string(&mut self, s: Option<&str>) {
            match s {
                None => self.int(-1),
                Some(s) => {
                    self.int(s.len() as i64);
                    self.bytes.extend_from_slice(s.as_bytes());
                }
            }
        }
        fn head(minor: u8, compression: u8) -> Writer {
            let mut w = Writer {
                bytes: b"PGDMP".to_vec(),
                minor,
                folder: false,
            };
            w.bytes.extend_from_slice(&[1, minor, 0, 4, 8, 1]);
            if minor >= 15 {
                w.bytes.push(compression);
            } else {
                w.int(i64::from(compression));
            }
            for v in [1, 2, 3, 4, 5, 126, 0] {
                w.int(v);
            }
            for s in ["shop", "17.2", "17.2"] {
                w.string(Some(s));
            }
            w
        }
        /// An entry: (id, desc, tag, defn, copy, has rows).
        fn entry(&mut self, id: i64, desc: &str, tag: &str, defn: &str, copy: &str, rows: bool) {
            self.int(id);
            self.int(i64::from(rows));
            self.string(Some("0"));
            self.string(Some("0"));
            self.string(Some(tag));
            self.string(Some(desc));
            self.int(1);
            self.string(Some(defn));
            self.string(Some(""));
            self.string(Some(copy));
            self.string(Some("public"));
            self.string(Some(""));
            self.string(Some("heap"));
            if self.minor >= 16 {
                self.int(i64::from(b'r'));
            }
            self.string(Some("owner"));
            self.string(Some("false"));
            self.string(Some("1"));
            self.string(None);
            if self.folder {
                let file = format!("{id}.dat");
                self.string(rows.then_some(file.as_str()));
                return;
            }
            // Offsets not set: the archive was written to a pipe.
            self.bytes.push(if rows { 1 } else { 3 });
            self.bytes.extend_from_slice(&[0; 8]);
        }
        /// A table `name` of one column `a`.
        fn table(&mut self, id: i64, name: &str) {
            let defn = format!("CREATE TABLE public.{name} (a int);\n");
            self.entry(id, "TABLE", name, &defn, "", false);
        }
        /// The entry of table `table`'s rows (one column, `a`).
        fn rows(&mut self, id: i64, table: &str) {
            let copy = format!("COPY public.{table} (a) FROM stdin;\n");
            self.entry(id, "TABLE DATA", table, "", &copy, true);
        }
        /// The `toc.dat` of a directory-format dump.
        fn toc(minor: u8, compression: u8) -> Writer {
            let mut w = Writer::head(minor, compression);
            w.bytes[10] = FORMAT_FILES[0];
            w.folder = true;
            w
        }
        fn block(&mut self, id: i64, chunks: &[&str]) {
            let chunks: Vec<&[u8]> = chunks.iter().map(|c| c.as_bytes()).collect();
            self.block_of(id, &chunks);
        }
        fn block_of(&mut self, id: i64, chunks: &[&[u8]]) {
            self.bytes.push(BLOCK_DATA);
            self.int(id);
            for c in chunks {
                self.int(c.len() as i64);
                self.bytes.extend_from_slice(c);
            }
            self.int(0);
        }
    }

    /// Blocks of rows compressed with lz4 or zstd (pg_dump 16's
    /// `--compress=lz4`, `--compress=zstd`: one stream of frames over a
    /// block's chunks, cut wherever pg_dump's buffer ends) are read; a
    /// damaged one is refused naming the table.
    #[test]
    fn blocks_compressed_with_lz4_or_zstd_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let rows: String = (0..3000).map(|i| format!("{i}\n")).collect();
        for (method, packed) in [(2, lz4(rows.as_bytes())), (3, zstd(rows.as_bytes()))] {
            let mut w = Writer::head(16, method);
            w.int(2);
            w.table(1, "t");
            w.rows(2, "t");
            let mut good = w.bytes.clone();
            let chunks: Vec<&[u8]> = packed.chunks(1000).collect();
            w.block_of(2, &chunks);
            let text = text_of(&written(dir.path(), &w)).unwrap();
            assert!(
                text.ends_with(&format!("COPY public.t (a) FROM stdin;\n{rows}\\.\n\n")),
                "{method}: {}",
                &text[..200]
            );
            // The frames cut short.
            let mut cut = Writer {
                bytes: std::mem::take(&mut good),
                minor: 16,
                folder: false,
            };
            cut.block_of(2, &[&packed[..packed.len() / 2]]);
            let e = text_of(&written(dir.path(), &cut)).unwrap_err().to_string();
            assert!(e.contains("public.t (entry 2), compressed with"), "{e}");
        }
    }

    fn written(dir: &Path, w: &Writer) -> PathBuf {
        let path = dir.join(format!("v{}.dump", w.minor));
        std::fs::write(&path, &w.bytes).unwrap();
        path
    }

    #[test]
    fn newer_archive_versions_and_archives_written_to_a_pipe_are_read() {
        let dir = tempfile::tempdir().unwrap();
        for minor in [12, 15, 16] {
            let mut w = Writer::head(minor, 0);
            w.int(5);
            w.entry(
                1,
                "ENCODING",
                "ENCODING",
                "SET client_encoding = 'UTF8';\n",
                "",
                false,
            );
            w.entry(2, "DATABASE", "shop", "CREATE DATABASE shop;\n", "", false);
            w.table(3, "t");
            w.rows(4, "u");
            w.rows(5, "t");
            // Blocks in another order than the entries, the last one's
            // rows without pg_dump's `\.`.
            w.block(4, &["7\n", "\\.\n\n"]);
            w.block(5, &["1\n2", "\n"]);
            let text = text_of(&written(dir.path(), &w)).unwrap();
            assert!(!text.contains("CREATE DATABASE"), "{text}");
            assert!(text.contains("SET client_encoding = 'UTF8';\n"), "{text}");
            assert!(
                text.contains("COPY public.u (a) FROM stdin;\n7\n\\.\n\n--"),
                "{minor}: {text}"
            );
            assert!(
                text.ends_with("COPY public.t (a) FROM stdin;\n1\n2\n\\.\n\n"),
                "{minor}: {text}"
            );
            if minor < 13 {
                assert!(text.contains("SET search_path = public, pg_catalog;"));
            }
        }
    }

    /// A directory-format dump: its `toc.dat` read as a custom-format
    /// archive's table of contents, each table's rows from its file, plain
    /// or gzip-compressed; a file name that leads out of the folder, a
    /// missing file and lz4 rows are refused by name.
    #[test]
    fn a_directory_format_dump_reads_its_rows_from_its_files() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("shop");
        std::fs::create_dir(&folder).unwrap();
        let mut w = Writer::toc(15, 1);
        w.int(3);
        w.table(1, "t");
        w.rows(2, "t");
        w.rows(3, "u");
        let toc = folder.join("toc.dat");
        std::fs::write(&toc, &w.bytes).unwrap();
        std::fs::write(folder.join("2.dat"), "1\n2\n\\.\n\n").unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, b"7\n").unwrap();
        std::fs::write(folder.join("3.dat.gz"), gz.finish().unwrap()).unwrap();
        let text = text_of(&toc).unwrap();
        assert!(
            text.contains("COPY public.t (a) FROM stdin;\n1\n2\n\\.\n\n--"),
            "{text}"
        );
        assert!(
            text.ends_with("COPY public.u (a) FROM stdin;\n7\n\\.\n\n"),
            "{text}"
        );
        let files = CustomDump::open(&toc).unwrap().data_files();
        assert_eq!(files, [folder.join("2.dat"), folder.join("3.dat.gz")]);
        // A missing file; one compressed with lz4 or zstd (pg_dump 16's
        // `-Fd --compress=lz4`), read; one that is damaged, refused by
        // name.
        std::fs::remove_file(folder.join("3.dat.gz")).unwrap();
        let missing = text_of(&toc).unwrap_err().to_string();
        assert!(missing.contains("3.dat: no such file"), "{missing}");
        for (suffix, packed) in [("lz4", lz4(b"7\n")), ("zst", zstd(b"7\n"))] {
            let file = folder.join(format!("3.dat.{suffix}"));
            std::fs::write(&file, &packed).unwrap();
            let text = text_of(&toc).unwrap();
            assert!(
                text.ends_with("COPY public.u (a) FROM stdin;\n7\n\\.\n\n"),
                "{suffix}: {text}"
            );
            assert_eq!(CustomDump::open(&toc).unwrap().data_files()[1], file);
            std::fs::write(&file, &packed[..packed.len() / 2]).unwrap();
            let damaged = text_of(&toc).unwrap_err().to_string();
            assert!(
                damaged.contains(&format!("3.dat.{suffix}, compressed with")),
                "{damaged}"
            );
            std::fs::remove_file(&file).unwrap();
        }
        // A link in the folder's place of a file of rows.
        std::fs::write(dir.path().join("elsewhere"), "9\n").unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), folder.join("3.dat")).unwrap();
        let linked = text_of(&toc).unwrap_err().to_string();
        assert!(linked.contains("a link is not read"), "{linked}");
        // A name that leads out of the folder.
        let mut out = w.bytes.clone();
        let at = out.windows(5).position(|x| x == b"2.dat").unwrap();
        out.splice(at - 5..at + 5, {
            let mut s = vec![0u8];
            s.extend_from_slice(&5u32.to_le_bytes());
            s.extend_from_slice(b"../xx");
            s
        });
        std::fs::write(&toc, &out).unwrap();
        let outside = text_of(&toc).unwrap_err().to_string();
        assert!(
            outside.contains("not a file name of the dump's folder"),
            "{outside}"
        );
    }

    /// A damaged archive (bytes changed anywhere, or cut anywhere) is
    /// refused or read to its end: never a panic, a hang or an allocation
    /// beyond the file's size.
    #[test]
    fn damaged_archives_end_in_an_error_or_a_script() {
        let good = std::fs::read(fixture()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("damaged.dump");
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..400 {
            let mut bytes = good.clone();
            if round % 4 == 0 {
                bytes.truncate((next() as usize) % good.len());
            } else {
                for _ in 0..1 + round % 3 {
                    let at = (next() as usize) % bytes.len();
                    bytes[at] = next() as u8;
                }
            }
            std::fs::write(&path, &bytes).unwrap();
            if let Ok(text) = text_of(&path) {
                assert!(text.len() < 64 * good.len(), "round {round}");
            }
        }
    }

    #[test]
    fn what_is_not_read_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let refused = |w: &Writer| text_of(&written(dir.path(), w)).unwrap_err().to_string();
        // Large objects.
        let mut w = Writer::head(15, 0);
        w.int(1);
        w.entry(
            1,
            "BLOB",
            "16400",
            "SELECT pg_catalog.lo_create('16400');\n",
            "",
            false,
        );
        assert!(refused(&w).contains("large objects"));
        // A string longer than the file.
        let mut w = Writer::head(15, 0);
        w.int(1);
        w.int(1);
        w.int(0);
        w.int(1 << 30);
        assert!(
            refused(&w).contains("a string of 1073741824 bytes"),
            "{}",
            refused(&w)
        );
        // Cut short.
        let mut w = Writer::head(15, 0);
        w.int(3);
        let e = refused(&w);
        assert!(e.contains("cannot be read") && e.contains("at byte"), "{e}");
        // A block that is not there.
        let mut w = Writer::head(15, 0);
        w.int(1);
        w.rows(1, "t");
        w.block(2, &["1\n"]);
        assert!(refused(&w).contains("public.t (entry 1): no such block"));
        // An archive version beyond those read.
        let mut w = Writer::head(15, 0);
        w.bytes[6] = 17;
        assert!(refused(&w).contains("archive version 1.17"));
    }
}
