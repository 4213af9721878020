//! A dump read as its loader reads it: each statement and client command
//! with the policy's decision on it, the splitter following the session
//! settings those decisions record (so that the next statement is lexed as
//! the server will lex it). The check before the load, the load itself and
//! [`super::dump_statements`] all read a dump this way.
//!
//! A file the dump includes (the mysql client's `source`, psql's `\i` and
//! `\ir`) is read in its place, as the client reads it: only a file inside
//! the dump's own folder (after links are followed), named relative to it,
//! never the dump itself or a file that is still being read, at most
//! [`MAX_DEPTH`] deep. The session's settings and the mysql client's
//! terminator go on from one file to the next.
//!
//! The rows of a `COPY` may come from a file too ([`super::copy_files`]):
//! psql's `\copy … FROM 'file'` reads a file inside the dump's folder, as
//! an include does; in a pg_dump tar archive (whose `restore.sql` is the
//! dump), `COPY … FROM '$$PATH$$/NNNN.dat'` reads the archive's member.
//! Either runs as `COPY … FROM STDIN`, its data read from [`Reading::items`]
//! while that statement is the last one given. The mysql client's `LOAD
//! DATA LOCAL INFILE 'file'` reads a file inside the dump's folder too, and
//! runs as the `INSERT`s of its rows ([`super::load_data`]).

use std::io::BufRead;
use std::path::{Path, PathBuf};

use super::archive::TarDump;
use super::copy_files::{archive_copy, slash_copy, CopyFile, NotFollowed, ARCHIVE_PATH};
use super::load_data;
use super::policy::{
    classify, classify_command, include_of, names_other_database, switches_to, Context, Decision,
    Include,
};
use super::split::{
    file_line_sizer, span_line_sizer, DumpDialect, Item, Lexing, LineSizer, SplitError, Splitter,
};

/// Whether `text` is a `LOAD DATA` statement (any comment before it
/// aside).
fn is_load_data(text: &str) -> bool {
    let words = super::policy::words(DumpDialect::Mysql, text);
    words.first().is_some_and(|w| w == "LOAD")
        && words.get(1).is_some_and(|w| w == "DATA" || w == "XML")
}

/// How deep included files may include others.
pub(super) const MAX_DEPTH: usize = 16;

/// A statement or a client command, with the policy's decision.
pub(super) struct Piece {
    pub line: usize,
    pub text: String,
    /// A client command (psql's `\connect`, `DELIMITER`), not a statement.
    pub command: bool,
    pub decision: Decision,
}

/// Opens `len` bytes from `start` of the file at a path (`u64::MAX`: to
/// its end).
pub(super) type Open<R> = fn(&Path, u64, u64) -> std::io::Result<R>;

/// How the files a dump includes are found and opened.
pub(super) struct Files<R> {
    /// The dump's own folder, its links followed: every included file is
    /// inside it.
    root: PathBuf,
    /// The dump, its links followed.
    top: PathBuf,
    open: Open<R>,
    /// The pg_dump tar archive whose `restore.sql` is the dump's text:
    /// `$$PATH$$` names its members.
    archive: Option<TarDump>,
}

impl<R> Files<R> {
    /// The files beside the dump at `dump`, opened by `open`.
    pub fn beside(dump: &Path, open: Open<R>) -> Files<R> {
        let top = std::fs::canonicalize(dump).unwrap_or_else(|_| dump.to_path_buf());
        let root = top.parent().map(Path::to_path_buf).unwrap_or_default();
        Files {
            root,
            top,
            open,
            archive: None,
        }
    }

    /// The files beside the archive `archive`, whose `restore.sql` is the
    /// dump's text, and its members.
    pub fn in_archive(archive: TarDump, open: Open<R>) -> Files<R> {
        let beside = Files::beside(&archive.dump, open);
        Files {
            archive: Some(archive),
            ..beside
        }
    }
}

/// A file being read in the place of the command that includes it, or
/// the rows of a `COPY`.
struct Included<R> {
    path: PathBuf,
    items: Splitter<R>,
}

pub(super) struct Reading<R> {
    /// The dump's own splitter.
    top: Splitter<R>,
    /// The included files being read, the innermost last.
    stack: Vec<Included<R>>,
    /// The file of rows of the `COPY` last given, read by the load.
    data: Option<Included<R>>,
    /// What the policy knows of the dump so far.
    pub ctx: Context,
    dialect: DumpDialect,
    /// `None`: the dump is text without a folder, and includes nothing.
    files: Option<Files<R>>,
    /// The name of the dump's text when it is not the dump file (an
    /// archive's `restore.sql`).
    top_name: Option<PathBuf>,
    /// Every file included or read by `\copy` so far, once each, in the
    /// order first read.
    pub included: Vec<PathBuf>,
}

impl<R: BufRead> Reading<R> {
    /// Reads `items` from a session that starts with `lexing`.
    pub fn new(mut items: Splitter<R>, dialect: DumpDialect, lexing: Lexing) -> Self {
        let mut ctx = Context::default();
        ctx.session.lexing = lexing;
        items.set_lexing(lexing);
        Reading {
            top: items,
            stack: Vec::new(),
            data: None,
            ctx,
            dialect,
            files: None,
            top_name: None,
            included: Vec::new(),
        }
    }

    /// Reads only database `name` of a dump of several (`None`: the dump
    /// is one database): the statements under its `\connect` (PostgreSQL)
    /// or `USE` (MySQL) and, in a MySQL dump, the session's settings before
    /// the first `USE`; no other database's statement is read, run or
    /// refused.
    pub fn with_database(mut self, name: Option<String>) -> Self {
        self.ctx.selected = name;
        self
    }

    /// Whether the selected database's statements were found (true when
    /// none is selected).
    pub fn found_database(&self) -> bool {
        self.ctx.selected.is_none() || self.ctx.entered_selected
    }

    /// The decision on a piece outside the selected database (`None`: the
    /// piece is read as any other): the first piece of each run outside it
    /// is noted, the others ignored.
    fn outside_selected(&mut self, text: &str, command: bool) -> Option<Decision> {
        let selected = self.ctx.selected.clone()?;
        if let Some(db) = switches_to(self.dialect, text, command) {
            let enters = db.eq_ignore_ascii_case(&selected);
            self.ctx.in_selected = enters;
            self.ctx.entered_selected |= enters;
            self.ctx.outside_noted = !enters;
            return (!enters).then(|| {
                Decision::Skip(format!(
                    "database {db} of the dump: its statements are not read (only {selected} is \
                     loaded)"
                ))
            });
        }
        if !command && names_other_database(self.dialect, text, &selected) {
            return Some(Decision::Skip(format!(
                "another database than {selected}: not loaded"
            )));
        }
        // Before the first database, a MySQL dump sets up the session the
        // client keeps; a PostgreSQL one (pg_dumpall's roles, tablespaces
        // and settings) is the cluster's, and psql's `\connect` starts a
        // new session.
        let before_first = !self.ctx.entered_selected && !self.ctx.outside_noted;
        if self.ctx.in_selected || (before_first && self.dialect == DumpDialect::Mysql) {
            return None;
        }
        if self.ctx.outside_noted {
            return Some(Decision::Ignore);
        }
        self.ctx.outside_noted = true;
        Some(Decision::Skip(format!(
            "the statements before the dump's first database (a cluster's roles, tablespaces \
             and settings) are not read (only {selected} is loaded)"
        )))
    }

    /// Follows the dump's includes of files beside it (and, in an
    /// archive, its members).
    pub fn with_files(mut self, files: Files<R>) -> Self {
        self.top_name = files.archive.as_ref().map(|a| a.shown(a.script()));
        self.files = Some(files);
        self
    }

    /// The splitter of the file being read (a `COPY`'s data is taken from
    /// it directly, or from the file of rows it names).
    pub fn items(&mut self) -> &mut Splitter<R> {
        if let Some(data) = &mut self.data {
            return &mut data.items;
        }
        match self.stack.last_mut() {
            Some(i) => &mut i.items,
            None => &mut self.top,
        }
    }

    /// The file the last piece (or error) came from; `None`: the dump
    /// itself.
    pub fn file(&self) -> Option<&Path> {
        self.stack
            .last()
            .map(|i| i.path.as_path())
            .or(self.top_name.as_deref())
    }

    /// The file the rows of the `COPY` last given are read from, when it is
    /// not the text that holds the statement.
    pub fn data_file(&self) -> Option<&Path> {
        self.data.as_ref().map(|d| d.path.as_path())
    }

    /// The next statement or command (a `COPY`'s data in between is
    /// skipped: the load takes it from [`Reading::items`] first).
    pub fn next_piece(&mut self) -> Option<Result<Piece, SplitError>> {
        self.data = None;
        loop {
            let Some(next) = self.items().next() else {
                // An included file ended: the one that named it goes on,
                // with the client's terminator as the file left it.
                let done = self.stack.pop()?;
                let delimiter = done.items.delimiter().to_string();
                self.items().set_delimiter(&delimiter);
                continue;
            };
            let (line, text, command) = match next {
                Err(e) => return Some(Err(e)),
                Ok(Item::Statement { line, text }) => (line, text, false),
                Ok(Item::Command { line, text }) => (line, text, true),
                Ok(Item::CopyData(_) | Item::CopyEnd { .. }) => continue,
            };
            if let Some(decision) = self.outside_selected(&text, command) {
                return Some(Ok(Piece {
                    line,
                    text,
                    command,
                    decision,
                }));
            }
            if command {
                let delimiter = self.items().delimiter().to_string();
                if let Some(include) = include_of(self.dialect, &text, &delimiter) {
                    if let Err(e) = self.include(line, &include) {
                        return Some(Err(e));
                    }
                    continue;
                }
            }
            if let Some(copy) = self.copy_file_of(&text, command) {
                return Some(self.copy_piece(line, text, command, copy));
            }
            if !command && self.dialect == DumpDialect::Mysql && is_load_data(&text) {
                return Some(self.load_data_piece(line, text));
            }
            let decision = if command {
                classify_command(self.dialect, &mut self.ctx, &text)
            } else {
                classify(self.dialect, &mut self.ctx, &text)
            };
            let lexing = self.ctx.session.lexing;
            self.items().set_lexing(lexing);
            return Some(Ok(Piece {
                line,
                text,
                command,
                decision,
            }));
        }
    }

    /// The `COPY` whose rows a file holds, if `text` is one: psql's
    /// `\copy`, or in an archive `COPY … FROM '$$PATH$$/…'`.
    fn copy_file_of(&self, text: &str, command: bool) -> Option<Result<CopyFile, NotFollowed>> {
        if self.dialect != DumpDialect::Postgres {
            return None;
        }
        if command {
            return slash_copy(text);
        }
        let archive = self.files.as_ref().is_some_and(|f| f.archive.is_some());
        archive.then(|| archive_copy(text)).flatten().map(Ok)
    }

    /// The piece of a `COPY` (`text`, on `line`) whose rows `copy` reads
    /// from a file: run as the `COPY … FROM STDIN` the client sends, fed
    /// from that file ([`Reading::items`]), or refused.
    fn copy_piece(
        &mut self,
        line: usize,
        text: String,
        command: bool,
        copy: Result<CopyFile, NotFollowed>,
    ) -> Result<Piece, SplitError> {
        let piece = |text, decision| Piece {
            line,
            text,
            command,
            decision,
        };
        let copy = match copy {
            Ok(copy) => copy,
            Err(why) => return Ok(piece(text, Decision::Refuse(why.0))),
        };
        // What the server is sent is a `COPY` from the client and nothing
        // else, as the policy reads it.
        match classify(self.dialect, &mut self.ctx.clone(), &copy.sql) {
            Decision::Run => {}
            Decision::Refuse(why) => return Ok(piece(text, Decision::Refuse(why))),
            other => {
                return Ok(piece(
                    text,
                    Decision::Refuse(format!("`{}` is not a COPY ({other:?})", copy.sql)),
                ))
            }
        }
        let data = self.open_data(line, &copy)?;
        let note = format!(
            "run as `{}` with the rows of {}{}",
            copy.sql,
            data.path.display(),
            if copy.member {
                ", the archive's member, as pg_restore reads them"
            } else {
                ", as psql sends them"
            }
        );
        self.data = Some(data);
        Ok(piece(
            text,
            Decision::RunAs {
                sql: copy.sql,
                note,
                at_end: None,
            },
        ))
    }

    /// The piece of the mysql client's `LOAD DATA LOCAL INFILE` (`text`, on
    /// `line`): the file it names, read from the dump's folder, as the
    /// `INSERT`s of its rows ([`super::load_data`]), or refused.
    fn load_data_piece(&mut self, line: usize, text: String) -> Result<Piece, SplitError> {
        let piece = |text, decision| Piece {
            line,
            text,
            command: false,
            decision,
        };
        let spec = match load_data::parse(&text) {
            Ok(spec) => spec,
            Err(why) => return Ok(piece(text, Decision::Refuse(why.0))),
        };
        let refused = |why: String| SplitError {
            line,
            message: format!("refused: the rows of `{}`: {why}", spec.file),
        };
        let Some(files) = &self.files else {
            return Err(refused("a dump given as text reads no file".into()));
        };
        // The mysql client reads the file from its working folder, for
        // which the dump's folder stands.
        let path = inside(&files.root, &files.root, &spec.file, &refused)?;
        if !self.included.contains(&path) {
            self.included.push(path.clone());
        }
        // What the server is sent is an `INSERT` into the dump's own table,
        // as the policy reads it (a qualifier naming the dump's own
        // database left out as in its statements).
        let head = load_data::insert_head(&spec);
        let template = format!("{head}(NULL)");
        let head = match classify(self.dialect, &mut self.ctx.clone(), &template) {
            Decision::Run => head,
            Decision::RunAs { sql, .. } => match sql.rfind(" VALUES ") {
                Some(i) => sql[..i + " VALUES ".len()].to_string(),
                None => return Ok(piece(text, Decision::Refuse(format!("`{sql}`")))),
            },
            Decision::Refuse(why) => return Ok(piece(text, Decision::Refuse(why))),
            other => {
                return Ok(piece(
                    text,
                    Decision::Refuse(format!("LOAD DATA into `{}`: {other:?}", spec.table)),
                ))
            }
        };
        let note = format!(
            "run as {} statements of the rows of {}, as the mysql client's LOAD DATA LOCAL sends \
             them",
            if spec.replace {
                "REPLACE"
            } else {
                "INSERT IGNORE"
            },
            path.display()
        );
        Ok(piece(
            text,
            Decision::LoadData {
                spec: Box::new(spec),
                path,
                head,
                note,
            },
        ))
    }

    /// The file of rows `copy` names, opened (its `COPY` is on `line`).
    fn open_data(&mut self, line: usize, copy: &CopyFile) -> Result<Included<R>, SplitError> {
        let refused = |why: String| SplitError {
            line,
            message: format!("refused: the rows of `{}`: {why}", copy.file),
        };
        let Some(files) = &self.files else {
            return Err(refused("a dump given as text reads no file".into()));
        };
        let (path, reader, sizer) = match (&files.archive, copy.member) {
            (Some(archive), true) => {
                let (path, reader, sizer) = member(files, archive, &copy.file)
                    .map_err(|why| refused(format!("{why} ({})", archive.shown_as.display())))?;
                (path, reader, sizer)
            }
            _ => {
                // psql reads the file from its working folder, for which
                // the dump's folder stands.
                let path = inside(&files.root, &files.root, &copy.file, &refused)?;
                let reader =
                    (files.open)(&path, 0, u64::MAX).map_err(|e| refused(e.to_string()))?;
                if !self.included.contains(&path) {
                    self.included.push(path.clone());
                }
                let sizer = file_line_sizer(path.clone());
                (path, reader, sizer)
            }
        };
        let mut items =
            Splitter::copy_data(reader, self.dialect, !copy.member).with_line_sizer(sizer);
        items.set_lexing(self.ctx.session.lexing);
        Ok(Included { path, items })
    }

    /// Starts reading the file `include` names (the command is on `line`
    /// of the file being read).
    fn include(&mut self, line: usize, include: &Include) -> Result<(), SplitError> {
        let refused = |why: String| SplitError {
            line,
            message: format!("refused: the include of `{}`: {why}", include.file),
        };
        let Some(files) = &self.files else {
            return Err(refused("a dump given as text includes no file".into()));
        };
        if self.stack.len() >= MAX_DEPTH {
            return Err(refused(format!(
                "files included more than {MAX_DEPTH} deep"
            )));
        }
        let in_archive = files
            .archive
            .as_ref()
            .zip(include.file.strip_prefix(ARCHIVE_PATH));
        let (path, reader, sizer, file) = match in_archive {
            // `pg_dump -Ft --inserts`: `\i $$PATH$$/NNNN.dat`.
            Some((archive, name)) => {
                let (path, reader, sizer) =
                    member(files, archive, name).map_err(|why| refused(why.to_string()))?;
                (path, reader, sizer, false)
            }
            None => {
                let from = match (include.relative_to_file, self.stack.last()) {
                    (true, Some(current)) => current.path.parent().unwrap_or(&files.root),
                    _ => &files.root,
                };
                let path = inside(&files.root, from, &include.file, &refused)?;
                let reader =
                    (files.open)(&path, 0, u64::MAX).map_err(|e| refused(e.to_string()))?;
                let sizer = file_line_sizer(path.clone());
                (path, reader, sizer, true)
            }
        };
        let reading = |p: &Path| p == files.top || self.top_name.as_deref() == Some(p);
        if reading(&path) || self.stack.iter().any(|i| i.path == path) {
            return Err(refused(
                "it is being read already (a file that includes itself)".into(),
            ));
        }
        let server = self.items().server();
        let delimiter = self.items().delimiter().to_string();
        let mut items = Splitter::new(reader, self.dialect)
            .with_line_sizer(sizer)
            .for_server(server);
        items.set_lexing(self.ctx.session.lexing);
        items.set_delimiter(&delimiter);
        if file && !self.included.contains(&path) {
            self.included.push(path.clone());
        }
        self.stack.push(Included { path, items });
        Ok(())
    }
}

/// The member of `archive` a `$$PATH$$/<name>` names, opened: how it is
/// shown, its reader and its line sizer.
fn member<R>(
    files: &Files<R>,
    archive: &TarDump,
    name: &str,
) -> Result<(PathBuf, R, LineSizer), super::archive::MemberRefused> {
    use super::archive::MemberRefused;
    let m = archive.data(name)?;
    let reader = (files.open)(&archive.path, m.start, m.size)
        .map_err(|e| MemberRefused::Unreadable(m.name.clone(), e.to_string()))?;
    let sizer = span_line_sizer(archive.path.clone(), m.start, m.size);
    Ok((archive.shown(m), reader, sizer))
}

/// The file `named` from the folder `from`, once every link is followed:
/// a regular file inside the dump's folder `root`, or `refused` with why.
fn inside(
    root: &Path,
    from: &Path,
    named: &str,
    refused: &dyn Fn(String) -> SplitError,
) -> Result<PathBuf, SplitError> {
    if named.is_empty() || Path::new(named).is_absolute() {
        return Err(refused(
            "only a file in the dump's folder, named relative to it, is read".into(),
        ));
    }
    let path = std::fs::canonicalize(from.join(named)).map_err(|e| refused(e.to_string()))?;
    if !path.starts_with(root) {
        return Err(refused(
            "it is outside the dump's folder (links followed)".into(),
        ));
    }
    if !std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
        return Err(refused("not a file".into()));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::super::archive::tests::archive;
    use super::*;

    /// What the load gets from the dump at `path`: each piece's line,
    /// file and decision with the rows its `COPY` is fed; the first error;
    /// the files read.
    #[allow(clippy::type_complexity)]
    fn read_all(
        path: &Path,
    ) -> (
        Vec<(usize, Option<PathBuf>, Decision, Vec<u8>)>,
        Option<SplitError>,
        Vec<PathBuf>,
    ) {
        let script = super::super::script_of(path, DumpDialect::Postgres).unwrap();
        let mut r = Reading::new(script.items, DumpDialect::Postgres, Lexing::default())
            .with_files(script.files);
        let mut out = Vec::new();
        while let Some(piece) = r.next_piece() {
            let piece = match piece {
                Ok(p) => p,
                Err(e) => return (out, Some(e), r.included),
            };
            let mut rows = Vec::new();
            if r.items().in_copy() {
                while let Some(Ok(Item::CopyData(d))) = r.items().next() {
                    rows.extend(d);
                }
            }
            out.push((
                piece.line,
                r.file().map(Path::to_path_buf),
                piece.decision,
                rows,
            ));
        }
        (out, None, r.included)
    }

    #[test]
    fn an_archive_copy_is_fed_its_member_up_to_its_end_marker() {
        let dir = tempfile::tempdir().unwrap();
        let tar = archive(
            dir.path(),
            &[
                ("toc.dat", "PGDMP"),
                ("1.dat", "1\tx\\ty\n2\t\\N\n\\.\n\n\n"),
                ("2.dat", "INSERT INTO t VALUES (3);\n"),
                (
                    "restore.sql",
                    "COPY t (a, b) FROM stdin;\n\\.\nCOPY t (a, b) FROM '$$PATH$$/1.dat';\n\
                     \\i $$PATH$$/2.dat\nSELECT 1;\n",
                ),
            ],
            &[],
        );
        let (pieces, error, included) = read_all(&tar);
        assert_eq!(error, None);
        assert!(included.is_empty(), "{included:?}");
        let script = Some(tar.join("restore.sql"));
        assert_eq!(pieces[0], (1, script.clone(), Decision::Run, Vec::new()));
        let (line, file, decision, rows) = &pieces[1];
        assert_eq!((*line, file), (3, &script));
        assert_eq!(rows, b"1\tx\\ty\n2\t\\N\n");
        let Decision::RunAs { sql, note, .. } = decision else {
            panic!("{decision:?}")
        };
        assert_eq!(sql, "COPY t (a, b) FROM STDIN");
        assert!(
            note.contains(&tar.join("1.dat").display().to_string()),
            "{note}"
        );
        // `pg_dump -Ft --inserts` includes its members.
        assert_eq!(pieces[2].0, 1);
        assert_eq!(pieces[2].1, Some(tar.join("2.dat")));
        assert_eq!((pieces[3].0, &pieces[3].1), (5, &script));
        assert_eq!(pieces.len(), 4);
        // The script itself is not read again in its place.
        archive(
            dir.path(),
            &[("restore.sql", "SELECT 1;\n\\i $$PATH$$/restore.sql\n")],
            &[],
        );
        let (_, error, _) = read_all(&tar);
        let error = error.unwrap();
        assert_eq!(error.line, 2);
        assert!(error.message.contains("being read already"), "{error:?}");
    }

    #[test]
    fn a_slash_copy_is_fed_its_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("dump");
        std::fs::create_dir(&folder).unwrap();
        let main = folder.join("main.sql");
        std::fs::write(
            &main,
            "CREATE TABLE t (a text);\n\\copy t from 'rows.csv' with (format csv)\n",
        )
        .unwrap();
        for f in [folder.join("rows.csv"), dir.path().join("rows.csv")] {
            std::fs::write(f, "1\r\n\"\\.\"\r\n2").unwrap();
        }
        let (pieces, error, included) = read_all(&main);
        assert_eq!(error, None);
        let rows = std::fs::canonicalize(folder.join("rows.csv")).unwrap();
        assert_eq!(included, [rows]);
        assert_eq!(pieces[1].3, b"1\r\n\"\\.\"\r\n2");
        assert!(matches!(
            &pieces[1].2,
            Decision::RunAs { sql, .. } if sql == "COPY t FROM STDIN with (format csv)"
        ));
        // Named from the dump's folder only.
        std::fs::write(&main, "\n\\copy t from '../rows.csv'\n").unwrap();
        let (_, error, _) = read_all(&main);
        let error = error.unwrap();
        assert_eq!(error.line, 2);
        assert!(
            error.message.contains("outside the dump's folder"),
            "{error:?}"
        );
    }

    /// The decisions on `text` read with database `select` chosen, as
    /// `(first line, decision)`, with the rows of each `COPY` run.
    fn selected(dialect: DumpDialect, text: &str, select: &str) -> (Vec<(usize, Decision)>, bool) {
        let mut r = Reading::new(
            Splitter::new(text.as_bytes(), dialect),
            dialect,
            Lexing::default(),
        )
        .with_database(Some(select.to_string()));
        let mut out = Vec::new();
        while let Some(piece) = r.next_piece() {
            let piece = piece.unwrap();
            out.push((piece.line, piece.decision));
        }
        let found = r.found_database();
        (out, found)
    }

    /// pg_dumpall's layout: the cluster's roles, then each database after
    /// its `\connect`. Only the chosen one's statements run; nothing of the
    /// others is read, not even what the loader would refuse.
    #[test]
    fn a_cluster_dump_is_read_for_its_chosen_database_only() {
        let dump = "SET default_transaction_read_only = off;\n\
                    CREATE ROLE admin SUPERUSER;\n\
                    \\connect template1\n\
                    COPY x FROM PROGRAM 'id';\n\
                    CREATE DATABASE shop WITH TEMPLATE = template0;\n\
                    \\connect -reuse-previous=on \"dbname='shop'\"\n\
                    CREATE TABLE t (a int);\n\
                    COPY t (a) FROM stdin;\n\
                    1\n\
                    \\.\n\
                    CREATE DATABASE other;\n\
                    \\connect other\n\
                    CREATE TABLE t (a int);\n\
                    COPY t (a) FROM stdin;\n\
                    2\n\
                    \\.\n\
                    ALTER SYSTEM SET work_mem = '1GB';\n";
        let (decisions, found) = selected(DumpDialect::Postgres, dump, "shop");
        assert!(found);
        let run: Vec<usize> = decisions
            .iter()
            .filter(|(_, d)| matches!(d, Decision::Run))
            .map(|(l, _)| *l)
            .collect();
        assert_eq!(run, [7, 8], "{decisions:?}");
        assert!(
            !decisions
                .iter()
                .any(|(_, d)| matches!(d, Decision::Refuse(_))),
            "{decisions:?}"
        );
        // Noted where each run outside it begins; the rest ignored.
        let noted: Vec<usize> = decisions
            .iter()
            .filter(|(_, d)| matches!(d, Decision::Skip(_)))
            .map(|(l, _)| *l)
            .collect();
        assert_eq!(noted, [1, 3, 6, 11, 12], "{decisions:?}");
        // A database the dump never switches to is not found.
        let (_, found) = selected(DumpDialect::Postgres, dump, "elsewhere");
        assert!(!found);
    }

    /// mysqldump's `--databases`: the session's settings before the first
    /// `USE` are read; the other database is not.
    #[test]
    fn a_mysql_dump_of_several_databases_is_read_for_the_chosen_one() {
        let dump = "/*!40101 SET NAMES utf8mb4 */;\n\
                    CREATE DATABASE /*!32312 IF NOT EXISTS*/ `a`;\n\
                    USE `a`;\n\
                    CREATE TABLE t (x int);\n\
                    CREATE DATABASE `Shop`;\n\
                    USE `Shop`;\n\
                    CREATE TABLE t (x int);\n\
                    INSERT INTO t VALUES (1);\n\
                    USE a;\n\
                    INSERT INTO t VALUES (2);\n";
        let (decisions, found) = selected(DumpDialect::Mysql, dump, "shop");
        assert!(found);
        let run: Vec<usize> = decisions
            .iter()
            .filter(|(_, d)| matches!(d, Decision::Run | Decision::RunAs { .. }))
            .map(|(l, _)| *l)
            .collect();
        assert_eq!(run, [1, 7, 8], "{decisions:?}");
    }
}
