//! Database errors, classified by the engine's own code.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The closed vocabulary of error classes. Adapters map SQLSTATEs and MySQL
/// error numbers to these through the tables in `dialects/*.yaml`; SQLite,
/// which has no fine-grained codes, is classified from its message prefixes
/// listed in `dialects/sqlite.yaml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    Syntax,
    UndefinedFunction,
    UndefinedColumn,
    UndefinedTable,
    TypeMismatch,
    GroupBy,
    OrderBy,
    Timeout,
    /// The query was refused before it reached the engine because it is not a
    /// single read-only query (see `sqlwitness-guard`), or the
    /// engine refused it for lack of privilege.
    Refused,
    /// The query's result or work exceeded a resource limit other than time
    /// (rows, bytes, memory, string length).
    ResourceLimit,
    /// The engine could not run the query at all: the server could not be
    /// reached, dropped the connection, was shutting down, or the SQLite
    /// file could not be read. Never the query's fault; runs retry these and
    /// report what still fails as `engine_error`, outside accuracy.
    Connection,
    Other,
}

impl ErrorClass {
    pub const ALL: [ErrorClass; 12] = [
        ErrorClass::Syntax,
        ErrorClass::UndefinedFunction,
        ErrorClass::UndefinedColumn,
        ErrorClass::UndefinedTable,
        ErrorClass::TypeMismatch,
        ErrorClass::GroupBy,
        ErrorClass::OrderBy,
        ErrorClass::Timeout,
        ErrorClass::Refused,
        ErrorClass::ResourceLimit,
        ErrorClass::Connection,
        ErrorClass::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorClass::Syntax => "syntax",
            ErrorClass::UndefinedFunction => "undefined_function",
            ErrorClass::UndefinedColumn => "undefined_column",
            ErrorClass::UndefinedTable => "undefined_table",
            ErrorClass::TypeMismatch => "type_mismatch",
            ErrorClass::GroupBy => "group_by",
            ErrorClass::OrderBy => "order_by",
            ErrorClass::Timeout => "timeout",
            ErrorClass::Refused => "refused",
            ErrorClass::ResourceLimit => "resource_limit",
            ErrorClass::Connection => "connection",
            ErrorClass::Other => "other",
        }
    }

    pub fn parse(s: &str) -> Option<ErrorClass> {
        ErrorClass::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

impl fmt::Display for ErrorClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error a query produced: the class, the engine's own code (SQLSTATE,
/// MySQL error number, SQLite extended result code) and the raw message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{class} [{}]: {message}", code.as_deref().unwrap_or("-"))]
pub struct DbError {
    pub class: ErrorClass,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    pub message: String,
}

impl DbError {
    pub fn new(class: ErrorClass, code: Option<String>, message: impl Into<String>) -> Self {
        DbError {
            class,
            code,
            message: message.into(),
        }
    }

    pub fn timeout(message: impl Into<String>) -> Self {
        DbError::new(ErrorClass::Timeout, None, message)
    }

    /// The timeout of a result still being read (or turned into keys)
    /// when the query's time `limit` passed.
    pub fn timeout_while_reading(limit: std::time::Duration) -> Self {
        DbError::timeout(format!(
            "stopped at its limit ({} ms) while its rows were being read",
            limit.as_millis()
        ))
    }

    pub fn refused(message: impl Into<String>) -> Self {
        DbError::new(ErrorClass::Refused, None, message)
    }

    pub fn resource_limit(message: impl Into<String>) -> Self {
        DbError::new(ErrorClass::ResourceLimit, None, message)
    }

    pub fn connection(message: impl Into<String>) -> Self {
        DbError::new(ErrorClass::Connection, None, message)
    }

    /// True when the engine, not the query, failed (see
    /// [`ErrorClass::Connection`]).
    pub fn is_engine_fault(&self) -> bool {
        self.class == ErrorClass::Connection
    }
}
