//! Shared fixtures for the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use rusqlite::Connection;

/// The shared Spider data (`None` after the one skip message, or a failure
/// under `SQLWITNESS_REQUIRE_ENGINES=1`, when it is not there).
pub fn spider() -> Option<PathBuf> {
    sqlwitness_testkit::shared_data("spider")
}

/// A hand-made SQLite file exercising every type and key decision:
/// an INTEGER column holding 'N/A', NUMERIC with ints and reals, REAL, BLOB
/// with text and an integer, DATE and DATETIME text, an invalid date,
/// BOOLEAN 0/1, an empty column, mixed-case and spaced identifiers, a
/// primary key with duplicates, a foreign key with orphans, quotes and
/// control characters in text.
pub fn make_fixture(dir: &Path) -> PathBuf {
    let path = dir.join("fixture.sqlite");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        r#"
        PRAGMA foreign_keys = OFF;
        CREATE TABLE "Parent Table" ("Id" INTEGER PRIMARY KEY, "Name" TEXT);
        INSERT INTO "Parent Table" VALUES (1, 'a'), (2, 'b'), (3, 'c "quoted" ''x'' `y`');

        CREATE TABLE "mixedCase Things" (
            "Score" INTEGER,
            "Amount" NUMERIC,
            "Price" REAL,
            "Data" BLOB,
            "Born" DATE,
            "Seen At" DATETIME,
            "Bad Date" DATE,
            "flag" BOOLEAN,
            "Empty" VARCHAR(10),
            "Note" TEXT,
            "parent ref" INTEGER REFERENCES "Parent Table"("Id")
        );
        INSERT INTO "mixedCase Things" VALUES
            (1, 3, 1.5, x'00ff', '2020-01-02', '2020-01-02 10:11:12', '2020-13-01', 0, NULL, 'tab	and
newline \ backslash', 1),
            (2, 2.5, 2, 'text in blob', '1999-12-31', '2020-01-02T03:04', '2020-01-01', 1, NULL, 'ünïcödé ✓', 2),
            ('N/A', 7, NULL, 5, NULL, NULL, NULL, NULL, NULL, NULL, 99),
            (NULL, NULL, 3.25, NULL, '2000-02-29', '2021-06-30 23:59:59.25', NULL, 1, NULL, '', NULL);

        CREATE TABLE "Dup Key" ("K" TEXT, "V" TEXT);
        INSERT INTO "Dup Key" VALUES ('x', 'a'), ('x', 'b'), ('y', 'c');

        CREATE TABLE "Child" (
            "cid" INTEGER PRIMARY KEY,
            "pid" INTEGER,
            FOREIGN KEY ("PID") REFERENCES "parent table" ("ID")
        );
        INSERT INTO "Child" VALUES (10, 1), (11, 3), (12, NULL);

        CREATE TABLE "empty table" ("a" INTEGER, "b" TEXT);
        CREATE VIEW "v" AS SELECT 1;
        "#,
    )
    .unwrap();
    // A primary key the data violates: declare it after the fact (SQLite
    // would otherwise refuse the duplicates).
    conn.execute_batch(
        r#"PRAGMA writable_schema = ON;
        UPDATE sqlite_master SET sql = 'CREATE TABLE "Dup Key" ("K" TEXT, "V" TEXT, PRIMARY KEY ("K"))'
        WHERE name = 'Dup Key';
        PRAGMA writable_schema = OFF;"#,
    )
    .unwrap();
    drop(conn);
    path
}

/// A unique namespace: `swt_mig_<tag>_<pid>_<counter>_<random>`.
pub fn unique_namespace(tag: &str) -> String {
    sqlwitness_testkit::unique_name(&format!("swt_mig_{tag}"))
}
