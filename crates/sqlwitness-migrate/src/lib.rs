//! sqlwitness-migrate: every copy of a benchmark's databases on another
//! engine, made and verified — the migration of a database file to a
//! server or a file engine ([`migrate_database`]: profile, types, keys,
//! bulk load, checksums, stamps, views), and the import of SQL dumps and
//! live schemas ([`import_dump`]: the dump read as its server reads it,
//! loaded by a confined login, written to SQLite with degraded columns
//! named, copied on its own engine, imported again when it changes). Dump
//! handling lives here and in each engine family's dump namespace in
//! `sqlwitness-engines`; the formats of what is copied (benchmarks,
//! `tables.json`, the source model beside each file) are
//! `sqlwitness-bench`'s.

mod dump;
mod migrate;

pub use dump::{
    check_dump, dump_dialect, dump_statements, export_sqlite, import_again, import_dump,
    imported_incomplete, is_source_copy, map_type, stale_dump, unfinished_import, ColumnMapping,
    DatabaseImport, DumpDatabase, DumpDialect, DumpNote, ImportOptions, ImportReport, ImportSource,
    SourceCopy, SqliteColumn, Storage, TableExport, TypeRefused, SOURCE_COPY_CHECKSUM,
    SOURCE_COPY_PLAN,
};
pub use migrate::{
    cache_dir, drop_namespace, dump_copy_column_types, migrate_database, plan_migration,
    prepare_target, source_fingerprint, write_migration_log, Coercion, Coercions, ColumnDecision,
    ForeignKeyReport, KeyReport, MigrateOptions, MigrationReport, MigrationStatus, MigrationTarget,
    StorageCounts, TableReport, TargetKind, TypeShape, TypesFrom, TypesReport, Unplaced,
    Verification, Verify, ViewReport, CACHE_DIR_ENV, CHECKSUM_METHOD, COERCION_SAMPLE_CAP,
};
