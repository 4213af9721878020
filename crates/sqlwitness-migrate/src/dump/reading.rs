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

use std::io::BufRead;
use std::path::{Path, PathBuf};

use super::policy::{classify, classify_command, include_of, Context, Decision, Include};
use super::split::{file_line_sizer, DumpDialect, Item, Lexing, SplitError, Splitter};

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

/// How the files a dump includes are found and opened.
pub(super) struct Files<R> {
    /// The dump's own folder, its links followed: every included file is
    /// inside it.
    root: PathBuf,
    /// The dump, its links followed.
    top: PathBuf,
    open: fn(&Path) -> std::io::Result<R>,
}

impl<R> Files<R> {
    /// The files beside the dump at `dump`, opened by `open`.
    pub fn beside(dump: &Path, open: fn(&Path) -> std::io::Result<R>) -> Files<R> {
        let top = std::fs::canonicalize(dump).unwrap_or_else(|_| dump.to_path_buf());
        let root = top.parent().map(Path::to_path_buf).unwrap_or_default();
        Files { root, top, open }
    }
}

/// A file being read in the place of the command that includes it.
struct Included<R> {
    path: PathBuf,
    items: Splitter<R>,
}

pub(super) struct Reading<R> {
    /// The dump's own splitter.
    top: Splitter<R>,
    /// The included files being read, the innermost last.
    stack: Vec<Included<R>>,
    /// What the policy knows of the dump so far.
    pub ctx: Context,
    dialect: DumpDialect,
    /// `None`: the dump is text without a folder, and includes nothing.
    files: Option<Files<R>>,
    /// Every file included so far, once each, in the order first read.
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
            ctx,
            dialect,
            files: None,
            included: Vec::new(),
        }
    }

    /// Follows the dump's includes of files beside it.
    pub fn with_files(mut self, files: Files<R>) -> Self {
        self.files = Some(files);
        self
    }

    /// The splitter of the file being read (a `COPY`'s data is taken from
    /// it directly).
    pub fn items(&mut self) -> &mut Splitter<R> {
        match self.stack.last_mut() {
            Some(i) => &mut i.items,
            None => &mut self.top,
        }
    }

    /// The included file the last piece (or error) came from; `None`: the
    /// dump itself.
    pub fn file(&self) -> Option<&Path> {
        self.stack.last().map(|i| i.path.as_path())
    }

    /// The next statement or command (a `COPY`'s data in between is
    /// skipped: the load takes it from [`Reading::items`] first).
    pub fn next_piece(&mut self) -> Option<Result<Piece, SplitError>> {
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
            if command {
                let delimiter = self.items().delimiter().to_string();
                if let Some(include) = include_of(self.dialect, &text, &delimiter) {
                    if let Err(e) = self.include(line, &include) {
                        return Some(Err(e));
                    }
                    continue;
                }
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
        let named = Path::new(&include.file);
        if include.file.is_empty() || named.is_absolute() {
            return Err(refused(
                "only a file in the dump's folder, named relative to it, is read".into(),
            ));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(refused(format!(
                "files included more than {MAX_DEPTH} deep"
            )));
        }
        let from = match (include.relative_to_file, self.stack.last()) {
            (true, Some(current)) => current.path.parent().unwrap_or(&files.root),
            _ => &files.root,
        };
        let path = std::fs::canonicalize(from.join(named)).map_err(|e| refused(e.to_string()))?;
        if !path.starts_with(&files.root) {
            return Err(refused(
                "it is outside the dump's folder (links followed)".into(),
            ));
        }
        if !std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            return Err(refused("not a file".into()));
        }
        if path == files.top || self.stack.iter().any(|i| i.path == path) {
            return Err(refused(
                "it is being read already (a file that includes itself)".into(),
            ));
        }
        let reader = (files.open)(&path).map_err(|e| refused(e.to_string()))?;
        let server = self.items().server();
        let delimiter = self.items().delimiter().to_string();
        let mut items = Splitter::new(reader, self.dialect)
            .with_line_sizer(file_line_sizer(path.clone()))
            .for_server(server);
        items.set_lexing(self.ctx.session.lexing);
        items.set_delimiter(&delimiter);
        if !self.included.contains(&path) {
            self.included.push(path.clone());
        }
        self.stack.push(Included { path, items });
        Ok(())
    }
}
