//! The guard's promise as a property: whatever statement text is generated
//! — writes, DDL, attachments, pragmas, extensions, several statements, in
//! any case, spacing and comments — a query the guard accepts, run on the
//! SQLite engine, leaves the database file byte for byte as it was, and no
//! other file appears beside it (proptest; failures are kept in
//! `proptest-regressions/` beside this file).

use proptest::prelude::*;
use sqlwitness_core::{Database, EngineKind, QueryLimits};

/// Statement skeletons, reading and writing; `{t}` is a table of the
/// fixture.
const STATEMENTS: &[&str] = &[
    "SELECT * FROM {t}",
    "SELECT count(*) FROM {t}",
    "INSERT INTO {t} VALUES (9, 'x')",
    "INSERT INTO {t} SELECT * FROM {t}",
    "REPLACE INTO {t} VALUES (1, 'y')",
    "UPDATE {t} SET b = 'z'",
    "DELETE FROM {t}",
    "DROP TABLE {t}",
    "ALTER TABLE {t} ADD COLUMN c",
    "CREATE TABLE w (a)",
    "CREATE TEMP TABLE w (a)",
    "CREATE INDEX i ON {t} (a)",
    "CREATE VIEW v AS SELECT 1",
    "CREATE TRIGGER tr AFTER INSERT ON {t} BEGIN DELETE FROM {t}; END",
    "ATTACH DATABASE 'other.sqlite' AS o",
    "DETACH DATABASE o",
    "PRAGMA writable_schema = 1",
    "PRAGMA journal_mode = DELETE",
    "PRAGMA user_version = 7",
    "VACUUM",
    "VACUUM INTO 'copy.sqlite'",
    "REINDEX",
    "ANALYZE",
    "BEGIN",
    "COMMIT",
    "SAVEPOINT s",
    "SELECT load_extension('x')",
    "SELECT writefile('w.txt', 'x')",
    "WITH d AS (DELETE FROM {t} RETURNING *) SELECT * FROM d",
    "SELECT * FROM {t} WHERE a IN (SELECT a FROM {t})",
];

/// A statement in a random case, with random spacing and comments, maybe
/// followed by a second one.
fn statement() -> impl Strategy<Value = String> {
    (
        prop::sample::select(STATEMENTS),
        prop::option::of(prop::sample::select(STATEMENTS)),
        prop::sample::select(vec!["t", "\"t\"", "T", "main.t"]),
        prop::sample::select(vec![" ", "\n", "\t", " /* c */ ", " -- c\n"]),
        any::<bool>(),
        prop::sample::select(vec!["", ";", " ;", ";\n"]),
    )
        .prop_map(|(first, second, t, space, upper, end)| {
            let one = |s: &str| {
                let s = s.replace("{t}", t).replace(' ', space);
                if upper {
                    s.to_uppercase()
                } else {
                    s
                }
            };
            match second {
                Some(next) => format!("{}; {}{end}", one(first), one(next)),
                None => format!("{}{end}", one(first)),
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn no_accepted_statement_changes_the_database(statements in prop::collection::vec(statement(), 1..8)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.sqlite");
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT); INSERT INTO t VALUES (1, 'p'), (2, 'q');").unwrap();
        drop(c);
        let before = std::fs::read(&path).unwrap();
        let engine = sqlwitness_engines::connect(EngineKind::Sqlite, None).unwrap();
        let dialect = sqlwitness_dialect::builtin(EngineKind::Sqlite);
        let db = Database::new("t", &path);
        for sql in &statements {
            if sqlwitness_guard::guard(sql, &dialect).is_ok() {
                // Its own errors are fine; a change is not.
                let _ = engine.execute(&db, sql, &QueryLimits::default());
            }
        }
        prop_assert_eq!(std::fs::read(&path).unwrap(), before, "{:?}", statements);
        let files: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .collect();
        prop_assert_eq!(files, vec!["t.sqlite".to_string()], "{:?}", statements);
    }
}
