//! sqlwitness-bench: benchmark and prediction formats (Spider, BIRD, JSONL)
//! and the migration of benchmark databases from SQLite to PostgreSQL and
//! MySQL with verification.

mod benchmark;
mod bird;
mod dump;
mod error;
mod jsonl;
mod migrate;
mod names;
mod predictions;
mod schema_db;
mod side_file;
mod source_model;
mod spider;
mod tables;

pub use benchmark::{load_benchmark, sqlite_file_problem, Benchmark, BenchmarkFormat, Question};
pub use dump::{
    check_dump, dump_dialect, dump_statements, export_sqlite, import_again, import_dump,
    is_source_copy, map_type, stale_dump, ColumnMapping, DatabaseImport, DumpDatabase, DumpDialect,
    DumpNote, ImportOptions, ImportReport, ImportSource, SourceCopy, SqliteColumn, Storage,
    TableExport, TypeRefused, SOURCE_COPY_CHECKSUM, SOURCE_COPY_PLAN,
};
pub use error::BenchError;
pub use migrate::{
    cache_dir, drop_namespace, dump_copy_column_types, migrate_database, plan_migration,
    prepare_target, source_fingerprint, write_migration_log, Coercion, Coercions, ColumnDecision,
    ForeignKeyReport, KeyReport, MigrateOptions, MigrationReport, MigrationStatus, MigrationTarget,
    StorageCounts, TableReport, TargetKind, TypeShape, TypesFrom, TypesReport, Unplaced,
    Verification, Verify, ViewReport, CACHE_DIR_ENV, CHECKSUM_METHOD, COERCION_SAMPLE_CAP,
};
pub use names::db_id_problem;
pub use predictions::{load_engine_golds, load_predictions, PredictedSql, Prediction};
pub use schema_db::build_schema_database;
pub use side_file::{side_file, SideFileRefused};
pub use source_model::{
    database_of, home_of, model_path, mysql_enum_labels, namespace_suffix, read_model, target_type,
    write_model, DumpIdentity, ModelColumn, ModelTable, SourceModel, TargetType, IMPORT_METHOD,
    SOURCE_MODEL_FORMAT,
};
pub use spider::read_json_array;
pub use tables::{load_tables_json, KeyColumns, TableSchema};
