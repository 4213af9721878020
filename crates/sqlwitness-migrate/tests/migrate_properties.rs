//! Migration round trip as a property: generated SQLite tables — declared
//! types of every family, values of every storage class (including ones
//! that do not fit the declared type), NULLs, Unicode, quotes, extremes —
//! migrate to every configured server and verify there (row count and
//! checksum over typed values). Proptest keeps failing cases in
//! `proptest-regressions/` beside this file.

#[path = "../../sqlwitness-bench/tests/common/mod.rs"]
mod common;
mod targets;

use proptest::prelude::*;
use sqlwitness_core::Database;
use sqlwitness_migrate::{drop_namespace, migrate_database, MigrateOptions, MigrationStatus};

const TYPES: &[&str] = &[
    "INTEGER",
    "INT",
    "BIGINT",
    "REAL",
    "DOUBLE",
    "FLOAT",
    "NUMERIC",
    "DECIMAL(10,2)",
    "TEXT",
    "VARCHAR(20)",
    "CHAR(3)",
    "BLOB",
    "DATE",
    "DATETIME",
    "BOOLEAN",
    "",
];

/// A cell as a SQLite literal.
fn cell() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("NULL".to_string()),
        any::<i32>().prop_map(|i| i.to_string()),
        prop::sample::select(vec![i64::MAX, i64::MIN, 0, -1]).prop_map(|i| i.to_string()),
        (-1.0e6f64..1.0e6).prop_map(|f| format!("{f:?}")),
        prop::sample::select(vec![
            "''",
            "'a'",
            "'Ünïcødé ✓'",
            "'it''s'",
            "'back\\slash'",
            "'2020-02-29'",
            "'2021-06-30 23:59:59'",
            "'N/A'",
            "'  padded '",
            "'1.50'",
            "x'00ff10'",
        ])
        .prop_map(str::to_string),
    ]
}

/// A table: 1–4 columns of random declared types, 0–12 rows.
fn table() -> impl Strategy<Value = (Vec<&'static str>, Vec<Vec<String>>)> {
    prop::collection::vec(prop::sample::select(TYPES), 1..5).prop_flat_map(|types| {
        let width = types.len();
        (
            Just(types),
            prop::collection::vec(prop::collection::vec(cell(), width), 0..12),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn generated_tables_survive_the_round_trip(tables in prop::collection::vec(table(), 1..3)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.sqlite");
        let c = rusqlite::Connection::open(&path).unwrap();
        for (t, (types, rows)) in tables.iter().enumerate() {
            let cols: Vec<String> = types.iter().enumerate().map(|(i, ty)| format!("c{i} {ty}")).collect();
            c.execute_batch(&format!("CREATE TABLE t{t} ({})", cols.join(", "))).unwrap();
            for row in rows {
                c.execute_batch(&format!("INSERT INTO t{t} VALUES ({})", row.join(", "))).unwrap();
            }
        }
        drop(c);
        for target in targets::targets() {
            let ns = common::unique_namespace("prop");
            let db = Database { db_id: "g".into(), sqlite_path: path.clone(), namespace: ns.clone() };
            let r = migrate_database(&db, &target, &MigrateOptions::default());
            let _ = drop_namespace(&target, &ns);
            let r = r.unwrap();
            prop_assert_eq!(&r.status, &MigrationStatus::Migrated, "{}: {:?}", target.engine, r.status);
            for t in &r.tables {
                prop_assert!(t.verified, "{}: table {} did not verify: {:?} / {:?} rows, error {:?}, columns {:?}",
                    target.engine, t.name, t.rows_source, t.rows_target, t.error,
                    t.columns.iter().map(|c| (&c.name, &c.target_type)).collect::<Vec<_>>());
            }
        }
    }
}
