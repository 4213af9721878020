//! sqlwitness-bench: benchmark and prediction formats (Spider, BIRD, JSONL),
//! `tables.json`, the side files beside a benchmark's databases (the source
//! model `import` writes), stand-in databases, and the error every reader
//! and writer of them returns. Migration and imports are
//! `sqlwitness-migrate`'s.

mod benchmark;
mod bird;
mod error;
mod jsonl;
mod names;
mod predictions;
mod schema_db;
mod side_file;
mod source_model;
mod spider;
mod tables;

pub use benchmark::{load_benchmark, sqlite_file_problem, Benchmark, BenchmarkFormat, Question};
pub use error::BenchError;
pub use names::db_id_problem;
pub use predictions::{load_engine_golds, load_predictions, PredictedSql, Prediction};
pub use schema_db::build_schema_database;
pub use side_file::{side_file, SideFileRefused};
pub use source_model::{
    column_target, database_of, home_of, model_path, modified_ns, mysql_enum_labels,
    namespace_suffix, read_model, target_type, write_model, DumpIdentity, ModelColumn, ModelTable,
    SourceModel, TargetType, IMPORT_METHOD, SOURCE_MODEL_FORMAT,
};
pub use spider::read_json_array;
pub use tables::{load_tables_json, KeyColumns, TableSchema};
