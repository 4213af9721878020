//! The type and key decisions on a hand-made SQLite file, without servers.

#[path = "../../sqlwitness-bench/tests/common/mod.rs"]
mod common;

use sqlwitness_core::{Database, EngineKind};
use sqlwitness_migrate::{plan_migration, TableReport, TargetKind};

fn table<'a>(tables: &'a [TableReport], name: &str) -> &'a TableReport {
    tables.iter().find(|t| t.name == name).unwrap()
}

fn kind(t: &TableReport, col: &str) -> (TargetKind, String) {
    let c = t.columns.iter().find(|c| c.name == col).unwrap();
    (c.kind, c.target_type.clone())
}

#[test]
fn type_decisions_follow_declared_type_and_stored_values() {
    let dir = tempfile::tempdir().unwrap();
    let path = common::make_fixture(dir.path());
    let before = std::fs::read(&path).unwrap();
    let db = Database::new("fixture", &path);
    let pg = plan_migration(&db, EngineKind::Postgres).unwrap();
    assert_eq!(pg.len(), 5, "the view is not a table");
    let t = table(&pg, "mixedCase Things");
    assert_eq!(t.rows_source, 4);
    assert_eq!(kind(t, "Score"), (TargetKind::Text, "TEXT".into()));
    assert_eq!(
        kind(t, "Amount"),
        (TargetKind::Real, "DOUBLE PRECISION".into())
    );
    assert_eq!(kind(t, "Price").0, TargetKind::Real);
    assert_eq!(kind(t, "Data"), (TargetKind::Blob, "BYTEA".into()));
    assert_eq!(kind(t, "Born"), (TargetKind::Date, "DATE".into()));
    assert_eq!(
        kind(t, "Seen At"),
        (TargetKind::Timestamp, "TIMESTAMP".into())
    );
    assert_eq!(kind(t, "Bad Date").0, TargetKind::Text);
    assert_eq!(kind(t, "flag"), (TargetKind::Integer, "BIGINT".into()));
    assert_eq!(kind(t, "Empty").0, TargetKind::Text);
    assert_eq!(kind(t, "parent ref").0, TargetKind::Integer);
    let score = t.columns.iter().find(|c| c.name == "Score").unwrap();
    assert_eq!(
        (
            score.storage.integer,
            score.storage.text,
            score.storage.null
        ),
        (2, 1, 1)
    );
    assert!(score.reason.contains("text"), "{}", score.reason);
    let bad = t.columns.iter().find(|c| c.name == "Bad Date").unwrap();
    assert!(bad.reason.contains("2020-13-01"), "{}", bad.reason);
    let flag = t.columns.iter().find(|c| c.name == "flag").unwrap();
    assert!(flag.reason.contains("0/1"), "{}", flag.reason);

    // Coercions: Score 1 and 2 -> text, Data 'text in blob' and 5 -> bytes,
    // Seen At 'T' form normalised. Integers into DOUBLE are exact: none.
    let cols: Vec<(&str, &str)> = t
        .coercions
        .sample
        .iter()
        .map(|c| (c.column.as_str(), c.value.as_str()))
        .collect();
    assert_eq!(t.coercions.count, 5, "{cols:?}");
    assert!(cols.contains(&("Score", "1")) && cols.contains(&("Score", "2")));
    assert!(cols.contains(&("Data", "text in blob")) && cols.contains(&("Data", "5")));
    let seen = t
        .coercions
        .sample
        .iter()
        .find(|c| c.column == "Seen At")
        .unwrap();
    assert_eq!(seen.stored.as_deref(), Some("2020-01-02 03:04:00"));

    // Keys.
    let parent = table(&pg, "Parent Table");
    assert_eq!(parent.primary_key.columns, vec!["Id"]);
    assert!(parent.primary_key.reason.contains("satisfied"));
    let dup = table(&pg, "Dup Key");
    assert_eq!(dup.primary_key.columns, vec!["K"]);
    assert!(
        dup.primary_key.reason.contains("1 duplicate"),
        "{}",
        dup.primary_key.reason
    );
    let fk = &t.foreign_keys[0];
    assert_eq!(fk.orphan_rows, 1);
    assert!(fk.reason.contains("no parent"), "{}", fk.reason);
    // A key written in another case resolves to the real names.
    let child = &table(&pg, "Child").foreign_keys[0];
    assert_eq!(child.columns, vec!["pid"]);
    assert_eq!(child.parent_table, "Parent Table");
    assert_eq!(child.parent_columns, vec!["Id"]);
    assert_eq!(child.orphan_rows, 0);
    assert_eq!(child.reason, "every child row has a parent row");
    let empty = table(&pg, "empty table");
    assert_eq!(empty.rows_source, 0);
    assert_eq!(kind(empty, "a").0, TargetKind::Integer);

    // MySQL: the text key column becomes a VARCHAR sized to the data.
    let my = plan_migration(&db, EngineKind::Mysql).unwrap();
    assert_eq!(kind(table(&my, "Dup Key"), "K").1, "VARCHAR(64)");
    assert_eq!(kind(table(&my, "Dup Key"), "V").1, "LONGTEXT");
    assert_eq!(
        kind(table(&my, "mixedCase Things"), "Seen At").1,
        "DATETIME(6)"
    );
    // The source checksum does not depend on the engine when no value differs.
    assert_eq!(
        table(&my, "Parent Table").checksum_source,
        table(&pg, "Parent Table").checksum_source
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the SQLite file is untouched"
    );
}

#[test]
fn missing_file_is_an_error_naming_it() {
    let db = Database::new("nope", "/nonexistent/nope.sqlite");
    let e = plan_migration(&db, EngineKind::Postgres)
        .unwrap_err()
        .to_string();
    assert!(e.contains("/nonexistent/nope.sqlite"), "{e}");
}

#[test]
fn report_round_trips_through_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = common::make_fixture(dir.path());
    let tables = plan_migration(&Database::new("fixture", &path), EngineKind::Mysql).unwrap();
    let report = sqlwitness_migrate::MigrationReport {
        db_id: "fixture".into(),
        engine: EngineKind::Mysql,
        namespace: "fixture".into(),
        server_version: "x".into(),
        collation: Some("utf8mb4_general_ci".into()),
        status: sqlwitness_migrate::MigrationStatus::Failed { reason: "x".into() },
        tables,
        notes: vec![],
        checksum_method: sqlwitness_migrate::CHECKSUM_METHOD.into(),
        verification: sqlwitness_migrate::Verification::Full,
        duration_ms: 1,
        steps_ms: [("load".to_string(), 1u64)].into_iter().collect(),
        views: vec![sqlwitness_migrate::ViewReport {
            view: "v".into(),
            carried: false,
            sql: Some("SELECT 1".into()),
            rows: Some(1),
            note: Some("the server refuses it".into()),
        }],
        column_types: None,
    };
    let out = sqlwitness_migrate::write_migration_log(dir.path(), &report).unwrap();
    assert!(out.ends_with("mysql/fixture.json"));
    let back: sqlwitness_migrate::MigrationReport =
        serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
    assert_eq!(back, report);
}

/// Unique keys are planned like the primary key, on the values as the
/// target stores them, and a foreign key may refer to one that is carried;
/// a unique index under another collation than SQLite's binary one says
/// nothing about exact values and is not a key to carry.
#[test]
fn unique_keys_are_planned_and_foreign_keys_may_refer_to_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("unique.sqlite");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE country (id INTEGER PRIMARY KEY, code TEXT NOT NULL, a INT, b INT,
                               folded TEXT COLLATE NOCASE UNIQUE, UNIQUE (code), UNIQUE (b, a));
         INSERT INTO country VALUES (1, 'FR', 1, 1, 'x'), (2, 'DE', 1, 2, 'y');
         CREATE TABLE city (id INTEGER PRIMARY KEY, country_code TEXT REFERENCES country(code),
                            a INT, b INT, FOREIGN KEY (a, b) REFERENCES country (a, b));
         INSERT INTO city VALUES (1, 'FR', 1, 2), (2, NULL, NULL, NULL);
         CREATE TABLE tag (id INTEGER PRIMARY KEY, label, UNIQUE (label));
         INSERT INTO tag VALUES (1, 1), (2, '1'), (3, 'x');
         CREATE TABLE tagged (id INTEGER PRIMARY KEY, label REFERENCES tag(label),
                              f TEXT REFERENCES country(folded));
         INSERT INTO tagged VALUES (1, 'x', 'x');",
    )
    .unwrap();
    drop(conn);
    let db = Database::new("unique", &path);
    let pg = plan_migration(&db, EngineKind::Postgres).unwrap();
    let country = &table(&pg, "country").unique_keys;
    let mut keys: Vec<(Vec<String>, &str)> = country
        .iter()
        .map(|k| (k.columns.clone(), k.reason.as_str()))
        .collect();
    keys.sort();
    let planned = "declared and satisfied by the data (to be applied)";
    assert_eq!(
        keys,
        [
            (vec!["b".to_string(), "a".into()], planned),
            (vec!["code".to_string()], planned),
        ]
    );
    let city = &table(&pg, "city").foreign_keys;
    let to = |col: &str| {
        city.iter()
            .find(|f| f.columns.contains(&col.to_string()))
            .unwrap()
    };
    assert_eq!(
        to("country_code").reason,
        "every child row has a parent row"
    );
    // Put in the order of the key it refers to.
    let pair = to("a");
    assert_eq!(pair.reason, "every child row has a parent row");
    assert_eq!(
        (pair.columns.clone(), pair.parent_columns.clone()),
        (
            vec!["b".to_string(), "a".into()],
            vec!["b".to_string(), "a".into()]
        )
    );
    let tag = &table(&pg, "tag").unique_keys[0];
    assert!(tag.reason.contains("1 duplicate"), "{tag:?}");
    let tagged = &table(&pg, "tagged").foreign_keys;
    let to = |col: &str| tagged.iter().find(|f| f.columns == [col]).unwrap();
    assert!(
        to("label")
            .reason
            .contains("the parent's unique key (label) is not carried over"),
        "{tagged:?}"
    );
    assert!(
        to("f")
            .reason
            .contains("neither the parent's primary key nor one of its unique keys"),
        "{tagged:?}"
    );
}
