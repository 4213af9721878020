//! sqlwitness-fuzz: distilled test suites for any benchmark (Zhong, Yu and
//! Klein 2020, "Semantic evaluation for text-to-SQL with distilled test
//! suites"; cited in Pourreza & Rafiei §4).
//!
//! * [`build_db_suite`] — generate database instances from a SQLite schema
//!   ([`write_instance`], [`Pools`]), generate the gold queries' neighbours
//!   ([`neighbors`]) and keep, by greedy set cover, a small
//!   set of instances that kills every neighbour the generator can kill.
//! * [`Manifest`] — the suite's `manifest.json`.
//! * [`SuiteSet`] — run a prediction against the gold on every instance of
//!   a suite, with the gold's results cached.
//! * [`SuiteSet::hunt`] — `--hunt N`: more generated instances for a
//!   prediction that passes the suite.
//! * [`shrink_witness`] — delta debugging over rows to the smallest
//!   database on which gold and prediction differ.
//! * [`build_suites`] — the fuzz run: every database's suite of a
//!   [`FuzzPlan`], in parallel, with a journal (`sqlwitness-run`);
//!   [`merge_suites`] joins a partitioned run's suite folders.

mod distill;
mod error;
mod files;
mod generate;
mod hunt;
mod judge;
mod manifest;
mod mutants;
mod neighbors;
mod rng;
mod run;
mod schema;
mod shrink;
mod spec;
mod suite;
mod tables_json;
mod type_limits;

pub use distill::{
    build_db_suite, build_db_suite_on, suite_db_dir, FuzzOptions, GoldQuery, ServerReference,
};
pub use error::FuzzError;
pub use generate::{write_instance, InstanceSizes, Pools, Stress, UnknownStress};
pub use hunt::{hunt_rng, HuntOutcome};
pub use manifest::{
    Constraints, Counts, DbSuite, Fate, GoldEntry, InstanceEntry, Manifest, NeighborEntry,
    ServerSuite, MANIFEST_FORMAT, MIGRATED_TYPES, ORIGINAL_TYPES, TIE_AWARE,
};
pub use mutants::{mutant, mutant_predictions, Mutant};
pub use neighbors::{
    gold_literals, neighbors, GoldLiteral, LiteralValue, MutationKind, Neighbor, NeighborError,
    NeighborOptions,
};
pub use rng::Rng;
pub use run::{build_suites, merge_suites, Built, FuzzPlan, FuzzReference};
pub use schema::{
    key_like, read_schema, read_schema_with, shape, ColumnDef, DbSchema, Domain, ForeignKeyDef,
    ForeignKeySpec, TableDef, MAX_SET_DOMAIN,
};
pub use shrink::{shrink_witness, Witness};
pub use suite::{
    suite_namespace, SuiteFailure, SuiteSet, SuiteVerdict, MAX_INSTANCES_PER_DATABASE,
    MAX_SUITE_INSTANCES,
};
pub use tables_json::tables_json_keys;
pub use type_limits::TypeLimit;
