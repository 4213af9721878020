//! SQL rewritten between engines: a view or query written for another
//! engine read back as SQLite's SQL (`to_sqlite`), and SQLite SQL
//! translated for another engine by the rules of `dialects/*.yaml`
//! (`translate`).

mod to_sqlite;
mod translate;

pub use to_sqlite::{sqlite_view_query, standard_quotes, view_to_sqlite, ViewQueryError};
pub use translate::{translate, Translation};
