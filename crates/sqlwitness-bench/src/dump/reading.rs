//! A dump read as its loader reads it: each statement and client command
//! with the policy's decision on it, the splitter following the session
//! settings those decisions record (so that the next statement is lexed as
//! the server will lex it). The check before the load, the load itself and
//! [`super::dump_statements`] all read a dump this way.

use std::io::BufRead;

use super::policy::{classify, classify_command, Context, Decision};
use super::split::{DumpDialect, Item, Lexing, SplitError, Splitter};

/// A statement or a client command, with the policy's decision.
pub(super) struct Piece {
    pub line: usize,
    pub text: String,
    /// A client command (psql's `\connect`, `DELIMITER`), not a statement.
    pub command: bool,
    pub decision: Decision,
}

pub(super) struct Reading<R> {
    /// The splitter; a `COPY`'s data is taken from it directly.
    pub items: Splitter<R>,
    /// What the policy knows of the dump so far.
    pub ctx: Context,
    dialect: DumpDialect,
}

impl<R: BufRead> Reading<R> {
    /// Reads `items` from a session that starts with `lexing`.
    pub fn new(mut items: Splitter<R>, dialect: DumpDialect, lexing: Lexing) -> Self {
        let mut ctx = Context::default();
        ctx.session.lexing = lexing;
        items.set_lexing(lexing);
        Reading {
            items,
            ctx,
            dialect,
        }
    }

    /// The next statement or command (a `COPY`'s data in between is
    /// skipped: the load takes it from [`Reading::items`] first).
    pub fn next_piece(&mut self) -> Option<Result<Piece, SplitError>> {
        loop {
            let (line, text, command) = match self.items.next()? {
                Err(e) => return Some(Err(e)),
                Ok(Item::Statement { line, text }) => (line, text, false),
                Ok(Item::Command { line, text }) => (line, text, true),
                Ok(Item::CopyData(_) | Item::CopyEnd { .. }) => continue,
            };
            let decision = if command {
                classify_command(self.dialect, &mut self.ctx, &text)
            } else {
                classify(self.dialect, &mut self.ctx, &text)
            };
            self.items.set_lexing(self.ctx.session.lexing);
            return Some(Ok(Piece {
                line,
                text,
                command,
                decision,
            }));
        }
    }
}
