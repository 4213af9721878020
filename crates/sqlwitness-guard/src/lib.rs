//! sqlwitness-guard: what stops a hostile query.
//!
//! Predicted SQL is untrusted input. Before any engine sees it, [`guard`]
//! (or [`guard_with`] and its [`GuardOptions`]) accepts a text only when it
//! is a single read-only query of its question's own namespace, read as
//! the server of its dialect reads it:
//!
//! * the text itself, before any parser (`lexer`, `spans`): its length
//!   ([`check_length`]), comments and quotes as the server's own lexer sees
//!   them (no code hides where the parser sees a comment), no ODBC escape
//!   (`{ oj … }`, `{ fn … }`: no brace outside quotes), no server
//!   variable;
//! * names as the server resolves them (`names`): quotes removed,
//!   PostgreSQL's Unicode escapes decoded;
//! * no call of a function the dialect denies, however it is spelled, no
//!   function of a foreign schema, no name-lookup type (`calls`);
//! * one statement, a query, with nothing inside that writes, locks or
//!   builds an oversized value (`statement`; `fallback` when the parser
//!   cannot read it);
//! * no table outside the namespace, and none of the system catalogue
//!   (`relations`).
//!
//! What each engine denies is data: `denied_functions` and the keys beside
//! it in `dialects/*.yaml`, derived from each server's catalogue by
//! `scripts/derive-denied-functions.sh`. The servers add their own walls
//! (read-only transactions, least-privilege logins, time and memory
//! limits); the guard is the first.

mod calls;
mod fallback;
mod guard;
mod lexer;
mod names;
mod relations;
mod spans;
mod statement;
#[cfg(test)]
mod testing;

pub use guard::{check_length, guard, guard_with, GuardOptions, DEFAULT_MAX_SQL_BYTES};
