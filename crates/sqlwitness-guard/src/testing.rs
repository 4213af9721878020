//! Test helpers: the guard on one engine, in a question's namespace.

use sqlwitness_core::{DbError, EngineKind};
use sqlwitness_dialect::builtin;

use crate::{guard_with, GuardOptions};

/// The guard on `kind` in `namespace` (none: qualified tables refused):
/// the refusal's message.
pub(crate) fn check_in(
    kind: EngineKind,
    namespace: Option<&str>,
    sql: &str,
) -> Result<(), DbError> {
    let options = GuardOptions {
        namespace: namespace.map(str::to_string),
        ..GuardOptions::default()
    };
    guard_with(sql, &builtin(kind), &options)
}

/// The guard on `kind` for a `concert_singer` question.
pub(crate) fn check(kind: EngineKind, sql: &str) -> Result<(), DbError> {
    check_in(kind, Some("concert_singer"), sql)
}

/// Refused on `kind` for a `concert_singer` question, saying `needle`.
pub(crate) fn refused(kind: EngineKind, sql: &str, needle: &str) {
    match check(kind, sql) {
        Ok(()) => panic!("accepted on {kind}: {sql}"),
        Err(e) => assert!(e.message.contains(needle), "{kind}: {sql}: {}", e.message),
    }
}
