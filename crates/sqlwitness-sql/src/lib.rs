//! sqlwitness-sql: what sqlwitness does on SQL text, with `sqlparser`.
//!
//! * [`SchemaChange`] — a query rewritten on its syntax tree for renamed or
//!   replaced columns (Dr.Spider's database perturbations).
//! * [`has_top_level_order_by`] — does the outermost query sort its rows?
//! * [`tokenize`] / [`parser_dialect`] / [`chain_operators`] — tokens with
//!   their exact source text, the `sqlparser` dialect of an engine, and the
//!   operator count that bounds a syntax tree's depth (the guard in
//!   `sqlwitness-guard` reads SQL text with these).
//! * [`NameSet`] / [`resolve_identifiers`] — rewrite identifiers to the exact
//!   (quoted) names of the migrated schema, so SQLite's case-insensitive
//!   resolution carries over to PostgreSQL and MySQL.
//! * [`spider_read_prediction`], [`spider_postprocess`],
//!   [`spider_remove_distinct`], [`spider_replace_cur_year`],
//!   [`spider_order_matters`] — the Spider test-suite evaluator's text
//!   preprocessing, emulated.
//! * [`spider_exact_match`] / [`MatchTally`] — Spider's exact set match and
//!   partial matching, as the official evaluator's `--etype match`.
//! * [`spider_plug_values`] — the evaluator's `--plug_value`: the gold's
//!   values plugged into the prediction every possible way.
//! * [`spider_hardness`] — Spider's hardness level of a gold query, as the
//!   official test-suite evaluator computes it.
//! * [`analyze`] — static nondeterminism rules with data probes
//!   (Pourreza & Rafiei §5.1), on a [`SchemaInfo`] the caller builds.
//! * [`tie_inclusive_rewrite`] — Pourreza & Rafiei's §6.1 rewrites;
//!   [`translate`] — SQLite SQL translated for another engine (rules in
//!   `dialects/*.yaml`).

mod clauses;
mod columns;
mod features;
mod hardness;
mod identifiers;
mod nondet;
mod order;
mod parse;
mod rewrite;
mod schema;
mod spider_eval;
mod spider_match;
mod spider_plug;
mod temporal;
mod text;
mod ties;

pub use clauses::{q_match, query_clauses, Leaf, QueryClauses, CLAUSE_TYPES, QMATCH_SIGNALS};
pub use columns::{ColumnChange, Literal, RewriteError, Rewritten, SchemaChange};
pub use features::{dialect_features, feature_table, DialectFeature, Support};
pub use hardness::{spider_hardness, Hardness, HardnessCounts, Unreadable};
pub use identifiers::{resolve_identifiers, NameSet};
pub use nondet::{
    analyze, analyze_in, judge_probe, top_limit_probe, top_limit_probe_in, top_order_probe,
    top_order_probe_in, Evidence, NondetRule, ParseError, Probe, StaticFinding, EVIDENCE_ROWS,
};
pub use order::{has_top_level_order_by, has_top_level_order_by_in};
pub use parse::{
    chain_operators, parse_bounded, parse_in, sqlite_first, written_for, BoundedParseError,
    Dialects, MAX_CHAIN_OPERATORS, SQLITE_ONLY,
};
pub use rewrite::{
    sqlite_view_query, standard_quotes, tie_inclusive_rewrite, tie_inclusive_rewrite_in, translate,
    view_to_sqlite, Rewrite, Translation, ViewQueryError,
};
pub use schema::{ForeignKey, SchemaInfo, TableInfo};
pub use spider_eval::{
    spider_order_matters, spider_postprocess, spider_read_prediction, spider_remove_distinct,
    spider_replace_cur_year,
};
pub use spider_match::{
    spider_exact_match, ForeignKeyMap, MatchStop, MatchTable, MatchTally, PartialScore, Raised,
    SpiderMatch, SpiderSchema, MATCH_LEVELS, PARTIAL_TYPES,
};
pub use spider_plug::spider_plug_values;
pub use temporal::compares_temporal_with_text;
pub use text::{is_blank, is_string_literal, parser_dialect, tokenize, SourceToken};
pub use ties::{in_some_column_order, tie_aware_match, TieWindow, MAX_PERMUTED_COLUMNS};

#[cfg(test)]
mod spider_data;
