//! sqlwitness-sql: what sqlwitness does on SQL text, with `sqlparser`.
//!
//! * [`has_top_level_order_by`] — does the outermost query sort its rows?
//! * [`guard`] — refuse predicted SQL that is not a single read-only query.
//! * [`NameSet`] / [`resolve_identifiers`] — rewrite identifiers to the exact
//!   (quoted) names of the migrated schema, so SQLite's case-insensitive
//!   resolution carries over to PostgreSQL and MySQL.
//! * [`spider_postprocess`], [`spider_remove_distinct`],
//!   [`spider_order_matters`] — the Spider test-suite evaluator's text
//!   preprocessing, emulated.

mod guard;
mod identifiers;
mod order;
mod spider_eval;
mod text;

pub use guard::guard;
pub use identifiers::{resolve_identifiers, NameSet};
pub use order::has_top_level_order_by;
pub use spider_eval::{spider_order_matters, spider_postprocess, spider_remove_distinct};

#[cfg(test)]
mod spider_data;
