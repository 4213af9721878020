//! sqlwitness-core: the engine trait, typed values and result sets, error
//! classes, and the documented result comparison semantics.
//!
//! This crate knows no driver and no SQL parser.

mod engine;
mod error;
mod escape;
pub mod input;
mod result;
mod value;
mod verdict;
mod write;

pub mod compare;

pub use compare::{compare, CompareMode, CompareOptions, Comparison, MismatchReason};
pub use engine::{
    builtin_engines, namespace_for, time_by_client, Collect, Database, Engine, EngineInfo,
    EngineKind, QueryLimits, RegisterError, RowSink, ScriptTimed, Timed, TimingMethod,
    DEFAULT_MAX_RESULT_BYTES, DEFAULT_NAMESPACE_PREFIX, NAMESPACE_MAX_BYTES,
};
pub use error::{DbError, ErrorClass};
pub use escape::{escape_controls, is_escaped};
pub use input::{open_input, read_input, read_input_to_string, InputLimit};
pub use result::{
    canonical_cell, canonical_decimal, canonical_float, canonical_row_hash, row_hash, Column,
    MultisetHash, ResultSet,
};
pub use value::Value;
pub use verdict::Verdict;
pub use write::{
    ColumnDef, CopiedColumn, CopiedTable, DumpNamespace, ForeignKeyDef, KeyFn, LexSettings, Loaded,
    LossyCell, Migrator, Ownership, RowSource, ScanBatch, ScanPart, ServerSource, Source,
    SourceColumn, SourceForeignKey, SourceSchema, SourceTable, SourceView, Stamp, StampState,
    TableDef, TargetKind, STAMP_FORMAT, STAMP_TABLE,
};
