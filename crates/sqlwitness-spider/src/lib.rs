//! sqlwitness-spider: the Spider test-suite evaluator
//! (`taoyds/test-suite-sql-eval`) emulated on SQL text, quirks included, so
//! that sqlwitness scores a Spider run as the official code would.
//!
//! * [`spider_read_prediction`], [`spider_postprocess`],
//!   [`spider_remove_distinct`], [`spider_replace_cur_year`],
//!   [`spider_order_matters`] — the evaluator's text preprocessing.
//! * [`spider_exact_match`] / [`MatchTally`] — exact set match and partial
//!   matching, as the evaluator's `--etype match`.
//! * [`spider_plug_values`] — the evaluator's `--plug_value`: the gold's
//!   values plugged into the prediction every possible way.
//! * [`spider_hardness`] — the hardness level of a gold query, as the
//!   evaluator computes it.

mod hardness;
mod matching;
mod plug;
mod preprocess;

pub use hardness::{spider_hardness, Hardness, HardnessCounts, Unreadable};
pub use matching::{
    spider_exact_match, ForeignKeyMap, MatchStop, MatchTable, MatchTally, PartialScore, Raised,
    SpiderMatch, SpiderSchema, MATCH_LEVELS, PARTIAL_TYPES,
};
pub use plug::spider_plug_values;
pub use preprocess::{
    spider_order_matters, spider_postprocess, spider_read_prediction, spider_remove_distinct,
    spider_replace_cur_year,
};
