//! sqlwitness-sql: parsing SQL text and the toolkit every other crate uses
//! on it, with `sqlparser`.
//!
//! * [`parse_in`] / [`parse_bounded`] / [`sqlite_first`] — a text parsed in
//!   the first of its [`Dialects`] that reads it, never deeper than
//!   [`MAX_CHAIN_OPERATORS`] allows.
//! * [`tokenize`] / [`parser_dialect`] / [`chain_operators`] — tokens with
//!   their exact source text, the `sqlparser` dialect of an engine, and the
//!   operator count that bounds a syntax tree's depth (the guard in
//!   `sqlwitness-guard` reads SQL text with these).
//! * [`expr_facts`] / [`as_col_ref`] / [`is_aggregate_call`] … — what an
//!   expression of one query block holds: column references, aggregates,
//!   literals.
//! * [`NameSet`] / [`resolve_identifiers`] — rewrite identifiers to the exact
//!   (quoted) names of the migrated schema, so SQLite's case-insensitive
//!   resolution carries over to PostgreSQL and MySQL.
//! * [`SchemaChange`] — a query rewritten on its syntax tree for renamed or
//!   replaced columns (Dr.Spider's database perturbations).
//! * [`has_top_level_order_by`] — does the outermost query sort its rows?
//! * [`translate`] — SQLite SQL translated for another engine (rules in
//!   `dialects/*.yaml`); [`view_to_sqlite`] — a server's view read back as
//!   SQLite's SQL.
//! * [`dialect_features`] / [`compares_temporal_with_text`] /
//!   [`query_clauses`] — what a query uses: engine-specific features, text
//!   compared with dates, the sub-clauses the SCF calibration matches.
//! * [`SchemaInfo`] — the schema facts (tables, columns, keys) the readers
//!   of a query's meaning take.

mod clauses;
mod columns;
mod exprs;
mod features;
mod identifiers;
mod order;
mod parse;
mod rewrite;
mod schema;
mod temporal;
mod text;

pub use clauses::{q_match, query_clauses, Leaf, QueryClauses, CLAUSE_TYPES, QMATCH_SIGNALS};
pub use columns::{ColumnChange, Literal, RewriteError, Rewritten, SchemaChange};
pub use exprs::{
    as_col_ref, as_u64, bare_columns, col_expr, conjuncts, contains_aggregate, expr_facts,
    is_aggregate_call, is_constant, order_exprs, ColRef, ExprFacts,
};
pub use features::{dialect_features, feature_table, DialectFeature, Support};
pub use identifiers::{resolve_identifiers, NameSet};
pub use order::has_top_level_order_by;
pub use parse::{
    chain_operators, parse_bounded, parse_in, sqlite_first, written_for, BoundedParseError,
    Dialects, MAX_CHAIN_OPERATORS, SQLITE_ONLY,
};
pub use rewrite::{
    sqlite_view_query, standard_quotes, translate, view_to_sqlite, Translation, ViewQueryError,
};
pub use schema::{ForeignKey, SchemaInfo, TableInfo};
pub use temporal::compares_temporal_with_text;
pub use text::{
    called_names, is_blank, is_string_literal, parser_dialect, parser_tokens, tokenize,
    tokens_are_unescaped, SourceToken,
};
