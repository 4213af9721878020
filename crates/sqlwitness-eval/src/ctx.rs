//! What one question's stages share: the engine's context for the run
//! ([`EngineCtx`]), the database's facts ([`DbFacts`]) and the rows a
//! question's gold and prediction returned ([`Rows`]). A leaf: the stages
//! (prepare and execute, digest and compare, the reference judgment, ties,
//! suites, VES) take these from here, not from the orchestrator.

use std::collections::HashMap;

use sqlwitness_core::{Engine, EngineKind};
use sqlwitness_dialect::Dialect;
use sqlwitness_sql::NameSet;

use crate::answer::Answer;

/// What every question's evaluation on one engine needs.
pub(crate) struct EngineCtx {
    pub kind: EngineKind,
    pub engine: std::sync::Arc<dyn Engine>,
    pub dialect: Dialect,
    /// Databases that could not be migrated to this engine, with the reason.
    pub unavailable: HashMap<String, String>,
    /// Per database, what its copy on this engine changed that can make the
    /// engine answer differently (`nul_stripped`, `mixed_storage`).
    pub caveats: HashMap<String, Vec<(String, &'static str)>>,
    /// Per database, the columns its copy on this engine holds only
    /// degraded (a dump's geometry as WKT …): `(table, column, how)`.
    pub degraded: HashMap<String, Vec<(String, String, String)>>,
}

/// What the evaluation knows of a question's database: its names (for
/// identifier resolution on the servers) and its schema (for the reference
/// judgment's mechanisms).
#[derive(Clone, Copy, Default)]
pub(crate) struct DbFacts<'a> {
    /// The database as every engine addresses it (read once a run: its
    /// namespace depends on the source model beside the file).
    pub db: Option<&'a sqlwitness_core::Database>,
    pub names: Option<&'a NameSet>,
    pub schema: Option<&'a sqlwitness_sql::SchemaInfo>,
    /// The schema and foreign keys Spider's exact match reads (with
    /// `tables.json` only).
    pub exact: Option<&'a (
        sqlwitness_spider::SpiderSchema,
        sqlwitness_spider::ForeignKeyMap,
    )>,
}

/// What a question's gold and prediction returned on one engine, besides
/// its outcome: the rows the reference judgment compares.
#[derive(Default)]
pub(crate) struct Rows {
    pub gold: Option<Answer>,
    pub pred: Option<Answer>,
}
