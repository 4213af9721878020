//! End to end on a small SQLite database with known ties.

use rusqlite::Connection;
use sqlwitness_audit::{
    audit_question, read_schema, shuffled_copies, summarize, AuditOptions, AuditQuestion, DbAudit,
    Status,
};
use sqlwitness_core::{Database, QueryLimits};

fn fixture(dir: &std::path::Path) -> std::path::PathBuf {
    let p = dir.join("music.sqlite");
    let c = Connection::open(&p).unwrap();
    c.execute_batch(
        "CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, age INT, country TEXT);
         CREATE TABLE song (title TEXT, singer_id INT REFERENCES singer(singer_id), sales INT, UNIQUE(title));
         INSERT INTO singer VALUES (1,'Ann',30,'FR'),(2,'Bob',30,'FR'),(3,'Cid',20,'US'),(4,'Dee',25,'US');
         INSERT INTO song VALUES ('x',1,10),('y',2,10),('z',3,5),('w',4,1);",
    )
    .unwrap();
    p
}

fn audit(sql: &str, ctx: &DbAudit) -> Vec<sqlwitness_audit::Finding> {
    let opts = AuditOptions {
        limits: QueryLimits::default(),
        rerun: "sqlwitness audit --bench b --split dev".into(),
        rewrites: true,
        plan_variants: true,
        client_options: Default::default(),
    };
    audit_question(
        &AuditQuestion {
            id: 7,
            db_id: "music",
            gold: sql,
        },
        ctx,
        &*files(),
        &[],
        &opts,
    )
}

#[test]
fn proves_ties_and_verifies_rewrites() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture(dir.path());
    let schema = read_schema(&path).unwrap();
    let song = schema.table("song").unwrap();
    assert_eq!(song.uniques, vec![vec!["title".to_string()]]);
    assert_eq!(song.foreign_keys[0].ref_table, "singer");
    assert_eq!(
        schema.table("singer").unwrap().primary_key,
        vec!["singer_id".to_string()]
    );
    let copies = shuffled_copies(&path, dir.path(), &[0, 1]).unwrap();
    assert_eq!(copies.len(), 2);
    let ctx = DbAudit::prepare(
        Database::new("music", &path),
        dir.path(),
        &[0, 1],
        &[
            "SELECT name FROM singer ORDER BY age DESC LIMIT 1",
            "SELECT name FROM singer ORDER BY age LIMIT 1",
            "SELECT name FROM singer ORDER BY singer_id LIMIT 1",
            "SELECT country, name FROM singer GROUP BY country",
        ],
        true,
    )
    .unwrap();
    assert_eq!(ctx.schema.tables.len(), schema.tables.len());
    // singer's rows are stored in key order (INTEGER PRIMARY KEY): a
    // reshuffle cannot change them, so no copy is made.
    assert!(ctx.shuffles.copies().is_empty());
    assert_eq!(ctx.shuffles.seeds(), &[0, 1]);

    // Ann and Bob tie on age 30: proven, with the tied rows shown.
    let f = audit("SELECT name FROM singer ORDER BY age DESC LIMIT 1", &ctx);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, "limit_tie_1");
    assert_eq!(f[0].status, Status::Proven);
    let ev = &f[0].evidence[0];
    assert_eq!(ev.kind, "ties_at_cut");
    assert_eq!(ev.rows.len(), 2);
    assert!(f[0]
        .rerun
        .iter()
        .any(|c| c.starts_with("sqlite3 -readonly")));
    let rw = f[0].rewrite.as_ref().unwrap();
    assert!(rw.verified, "{rw:?}");
    assert!(rw.sql.contains("max(age)"));

    // No tie at the cut (ages 20 < 25): latent only.
    let f = audit("SELECT name FROM singer ORDER BY age LIMIT 1", &ctx);
    assert_eq!(f[0].status, Status::Latent, "{f:?}");

    // A key that determines the row: nothing to report.
    assert!(audit("SELECT name FROM singer ORDER BY singer_id LIMIT 1", &ctx).is_empty());

    // Bare column under GROUP BY: FR holds Ann and Bob.
    let f = audit("SELECT country, name FROM singer GROUP BY country", &ctx);
    assert_eq!(f[0].rule, "group_by_bare_column");
    assert_eq!(f[0].status, Status::Proven);
    assert_eq!(f[0].evidence[0].kind, "spread");

    let s = summarize(&f, 1, 1);
    assert_eq!(s.ties.group_by, 1);
    assert_eq!(s.by_rule["group_by_bare_column"].proven, 1);
}

#[test]
fn shuffled_copies_keep_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture(dir.path());
    let copies = shuffled_copies(&path, dir.path(), &[0, 5]).unwrap();
    let engine = files();
    let q = "SELECT title, singer_id, sales FROM song";
    let a = engine
        .execute(&Database::new("m", &path), q, &QueryLimits::default())
        .unwrap();
    let b = engine
        .execute(&Database::new("m", &copies[0]), q, &QueryLimits::default())
        .unwrap();
    assert_eq!(a.content_hash(), b.content_hash());
    // Seed 0 reverses the physical order of a rowid table.
    assert_eq!(a.rows.first(), b.rows.last());
}

#[test]
fn tie_aware_membership() {
    use sqlwitness_audit::tie_aware_match;
    use sqlwitness_core::Value;
    use sqlwitness_sql::SQLITE_ONLY;
    let dir = tempfile::tempdir().unwrap();
    let path = fixture(dir.path());
    let db = Database::new("music", &path);
    let e = files();
    let l = QueryLimits::default();
    let t = |s: &str| vec![Value::Text(s.into())];
    let g = "SELECT name FROM singer ORDER BY age DESC LIMIT 1";
    // Ann and Bob tie at 30: either is valid, Dee (25) is not.
    assert!(tie_aware_match(
        &*e,
        &db,
        g,
        SQLITE_ONLY,
        &[t("Ann")],
        false,
        &l
    ));
    assert!(tie_aware_match(
        &*e,
        &db,
        g,
        SQLITE_ONLY,
        &[t("Bob")],
        false,
        &l
    ));
    assert!(!tie_aware_match(
        &*e,
        &db,
        g,
        SQLITE_ONLY,
        &[t("Dee")],
        false,
        &l
    ));
    assert!(!tie_aware_match(
        &*e,
        &db,
        g,
        SQLITE_ONLY,
        &[t("Ann"), t("Bob")],
        false,
        &l
    ));
    // LIMIT 3: Ann, Bob (any order), then Dee.
    let g = "SELECT name FROM singer ORDER BY age DESC LIMIT 3";
    assert!(tie_aware_match(
        &*e,
        &db,
        g,
        SQLITE_ONLY,
        &[t("Bob"), t("Ann"), t("Dee")],
        false,
        &l
    ));
    assert!(!tie_aware_match(
        &*e,
        &db,
        g,
        SQLITE_ONLY,
        &[t("Dee"), t("Ann"), t("Bob")],
        false,
        &l
    ));
    // OFFSET 1 LIMIT 1: the second of the tied pair, either of them.
    let g = "SELECT name FROM singer ORDER BY age DESC LIMIT 1 OFFSET 1";
    assert!(tie_aware_match(
        &*e,
        &db,
        g,
        SQLITE_ONLY,
        &[t("Ann")],
        false,
        &l
    ));
    // Not the shape: no verdict change.
    assert!(!tie_aware_match(
        &*e,
        &db,
        "SELECT name FROM singer",
        SQLITE_ONLY,
        &[t("Ann")],
        false,
        &l
    ));
    // Columns in another order: a valid answer only where the comparison
    // accepts any column order (Spider's evaluator does).
    let g = "SELECT name, age FROM singer ORDER BY age DESC LIMIT 1";
    let bob_first = [vec![Value::Int(30), Value::Text("Bob".into())]];
    assert!(!tie_aware_match(
        &*e,
        &db,
        g,
        SQLITE_ONLY,
        &bob_first,
        false,
        &l
    ));
    assert!(tie_aware_match(
        &*e,
        &db,
        g,
        SQLITE_ONLY,
        &bob_first,
        true,
        &l
    ));
    let dee = [vec![Value::Int(25), Value::Text("Dee".into())]];
    assert!(!tie_aware_match(&*e, &db, g, SQLITE_ONLY, &dee, true, &l));
}

#[test]
fn reshuffled_copy_of_the_tables_read_proves_a_tie() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture(dir.path());
    // A big table the gold does not read: it is not copied.
    Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TABLE unrelated (k TEXT, v INT);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
             INSERT INTO unrelated SELECT 'k' || i, i % 7 FROM n;",
        )
        .unwrap();
    let before = std::fs::read(&path).unwrap();
    // 'x' and 'y' tie on sales 10 in song, a table without an INTEGER
    // PRIMARY KEY: reversing its rows changes which one LIMIT 1 keeps.
    let gold = "SELECT title FROM song ORDER BY sales DESC LIMIT 1";
    let ctx = DbAudit::prepare(
        Database::new("music", &path),
        dir.path(),
        &[0, 1],
        &[gold],
        true,
    )
    .unwrap();
    let held: Vec<&str> = ctx
        .shuffles
        .tables()
        .unwrap()
        .iter()
        .map(String::as_str)
        .collect();
    assert_eq!(held, ["song"]);
    let f = audit(gold, &ctx);
    assert_eq!(f[0].rule, "limit_tie_1", "{f:?}");
    assert_eq!(f[0].status, Status::Proven);
    let shuffle: Vec<_> = f[0]
        .evidence
        .iter()
        .filter(|e| e.kind == "shuffle")
        .collect();
    assert_eq!(shuffle.len(), 2, "{f:?}");
    assert_eq!(shuffle[0].rows, [["x"]]);
    assert_eq!(shuffle[1].rows, [["y"]]);
    assert!(
        shuffle[1].note.contains("copy 1 of 2"),
        "{}",
        shuffle[1].note
    );
    // The rewrite is checked on the same copies.
    let rw = f[0].rewrite.as_ref().unwrap();
    assert!(rw.verified, "{rw:?}");
    assert!(
        rw.note.contains("reshuffled copies are checked"),
        "{}",
        rw.note
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

/// The engine that reads the benchmark's files in place, from the registry.
fn files() -> std::sync::Arc<dyn sqlwitness_core::Engine> {
    sqlwitness_engines::open_embedded(sqlwitness_engines::IN_PLACE, None).unwrap()
}
