//! End-to-end: build a suite for a small database where every pet is a dog
//! (Pourreza & Rafiei's §4 example), check determinism, evaluation and
//! witnesses.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sqlwitness_core::compare::CompareOptions;
use sqlwitness_core::{Engine, EngineKind, QueryLimits};
use sqlwitness_fuzz::{
    build_db_suite, suite_db_dir, Fate, FuzzOptions, GoldQuery, Manifest, SuiteSet,
};
use sqlwitness_migrate::{drop_namespace, migrate_database, MigrationTarget};

/// The engine reading instance files in place, from the engine registry.
fn instance_engine() -> Arc<dyn Engine> {
    sqlwitness_engines::open_embedded(sqlwitness_engines::IN_PLACE, None).unwrap()
}

const GOLD: &str = "SELECT count(*) FROM pets WHERE pettype = 'dog' AND pet_age > 2";
const DROPPED: &str = "SELECT count(*) FROM pets WHERE pet_age > 2";

fn original(dir: &Path) -> PathBuf {
    let path = dir.join("pets_1.sqlite");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE owner (id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL);
         CREATE TABLE pets (petid INTEGER PRIMARY KEY, owner_id INTEGER REFERENCES owner(id),
                            pettype VARCHAR(20), pet_age INTEGER);
         INSERT INTO owner VALUES (1, 'ann'), (2, 'bob');
         INSERT INTO pets VALUES (1, 1, 'dog', 3), (2, 1, 'dog', 1), (3, 2, 'dog', 5);",
    )
    .unwrap();
    path
}

fn build(suites: &Path, orig: &Path, seed: u64) -> sqlwitness_fuzz::DbSuite {
    let golds = vec![
        GoldQuery {
            question: 0,
            sql: GOLD.into(),
        },
        GoldQuery {
            question: 1,
            sql: "SELECT name FROM owner ORDER BY name DESC LIMIT 1".into(),
        },
    ];
    let opts = FuzzOptions {
        seed,
        candidates: 40,
        ..FuzzOptions::default()
    };
    let suite = build_db_suite("pets_1", orig, &golds, &[], suites, &opts).unwrap();
    let mut m = Manifest::read(&suites.join("manifest.json")).unwrap();
    m.databases.insert("pets_1".into(), suite.clone());
    m.write(&suites.join("manifest.json")).unwrap();
    suite
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn same_seed_same_bytes_and_the_dropped_predicate_is_caught() {
    let tmp = tempfile::tempdir().unwrap();
    let orig = original(tmp.path());
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let sa = build(&a, &orig, 7);
    let sb = build(&b, &orig, 7);
    assert_eq!(sa, sb);
    assert_eq!(files(&a), files(&b));
    assert_eq!(
        files(&suite_db_dir(&a, "pets_1")),
        files(&suite_db_dir(&b, "pets_1"))
    );
    assert!(!sa.instances.is_empty(), "{sa:#?}");
    // The original is a byte copy.
    assert_eq!(
        std::fs::read(&orig).unwrap(),
        std::fs::read(suite_db_dir(&a, "pets_1").join("pets_1.sqlite")).unwrap()
    );
    // Dropping `pettype = 'dog'` survives the original but not the suite.
    let dropped = sa.golds[0]
        .neighbors
        .iter()
        .find(|n| n.sql == DROPPED)
        .expect("neighbour");
    assert_eq!(dropped.fate, Fate::Killed, "{dropped:#?}");
    let c = &sa.counts;
    assert_eq!(
        c.neighbors,
        c.invalid + c.killed_by_original + c.killed_by_instances + c.survived
    );

    let set = SuiteSet::open(&a).unwrap();
    let engine = instance_engine();
    let opts = CompareOptions::default();
    let limits = QueryLimits::default();
    let same = set
        .check(engine.as_ref(), "pets_1", GOLD, GOLD, &opts, &limits, true)
        .unwrap();
    assert!(same.passed, "{same:?}");
    let v = set
        .check(
            engine.as_ref(),
            "pets_1",
            GOLD,
            DROPPED,
            &opts,
            &limits,
            true,
        )
        .unwrap();
    assert!(!v.passed);
    let w = v.failure.unwrap().witness.expect("witness");
    assert!(w.rows <= 2 && w.rows <= w.rows_before, "{w:#?}");
    assert!(
        w.inserts
            .iter()
            .any(|i| i.starts_with("INSERT INTO \"pets\"")),
        "{w:#?}"
    );
    assert_ne!(Ok(w.gold.clone()), w.pred);
    // Gold results are cached: a second check runs only the prediction.
    let before = set.executions();
    set.check(engine.as_ref(), "pets_1", GOLD, GOLD, &opts, &limits, false)
        .unwrap();
    assert_eq!(set.executions() - before, same.checked as u64);
    assert!(set
        .check(engine.as_ref(), "nope", GOLD, GOLD, &opts, &limits, false)
        .is_none());
}

#[test]
fn another_seed_gives_other_instances() {
    let tmp = tempfile::tempdir().unwrap();
    let orig = original(tmp.path());
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    build(&a, &orig, 1);
    build(&b, &orig, 2);
    assert_ne!(
        files(&suite_db_dir(&a, "pets_1")),
        files(&suite_db_dir(&b, "pets_1"))
    );
}

#[test]
fn suite_namespaces_fit_server_identifier_limits() {
    assert_eq!(
        sqlwitness_fuzz::suite_namespace("sw_", "pets_1", 0),
        "sw_pets_1__s1"
    );
    let long_a = format!("{}a", "x".repeat(70));
    let long_b = format!("{}b", "x".repeat(70));
    let (a, b) = (
        sqlwitness_fuzz::suite_namespace("sw_", &long_a, 11),
        sqlwitness_fuzz::suite_namespace("sw_", &long_b, 11),
    );
    assert!(a.len() <= 63 && b.len() <= 63, "{a} {b}");
    assert!(a.ends_with("__s12"), "{a}");
    assert_ne!(a, b);
    assert_eq!(a, sqlwitness_fuzz::suite_namespace("sw_", &long_a, 11));
}

#[test]
fn instances_name_their_namespace_and_unavailable_engines_give_no_verdict() {
    let tmp = tempfile::tempdir().unwrap();
    let orig = original(tmp.path());
    let dir = tmp.path().join("s");
    build(&dir, &orig, 7);
    let set = SuiteSet::open(&dir).unwrap();
    let db = set.instance_database("pets_1", 0).unwrap();
    assert_eq!(db.namespace, "sw_pets_1__s1");
    let other = SuiteSet::open(&dir).unwrap().with_prefix("mine_");
    let db_other = other.instance_database("pets_1", 0).unwrap();
    assert_eq!(db_other.namespace, "mine_pets_1__s1");
    assert_eq!(db.sqlite_path, set.instances("pets_1").unwrap()[0]);
    let engine = instance_engine();
    let (opts, limits) = (CompareOptions::default(), QueryLimits::default());
    set.set_unavailable(engine.kind(), "pets_1", "test".into());
    assert!(set
        .check(engine.as_ref(), "pets_1", GOLD, GOLD, &opts, &limits, false)
        .is_none());
}

#[test]
fn reference_self_check_on_sqlite_agrees_and_hunt_is_reproducible() {
    let tmp = tempfile::tempdir().unwrap();
    let orig = original(tmp.path());
    let dir = tmp.path().join("s");
    build(&dir, &orig, 7);
    let set = SuiteSet::open(&dir).unwrap();
    let engine = instance_engine();
    let (opts, limits) = (CompareOptions::default(), QueryLimits::default());
    let v = set
        .check_against_reference(engine.as_ref(), "pets_1", GOLD, GOLD, &opts, &limits)
        .unwrap();
    assert!(v.passed && v.checked == v.instances, "{v:?}");
    // The same text on the same engine is one cached result per instance.
    assert_eq!(set.executions(), v.instances as u64);

    // Gold against itself: nothing found, every instance tried.
    let h = set
        .hunt("pets_1", 0, GOLD, GOLD, &opts, &limits, 5, false)
        .unwrap()
        .unwrap();
    assert_eq!((h.tried, h.failure), (5, None));
    // The dropped predicate is found, the same way twice, with a witness.
    let run = || {
        set.hunt("pets_1", 0, GOLD, DROPPED, &opts, &limits, 20, true)
            .unwrap()
            .unwrap()
    };
    let (a, b) = (run(), run());
    assert_eq!(a, b);
    let f = a.failure.expect("found");
    assert!(f.instance.starts_with("hunt #"), "{f:?}");
    let w = f.witness.expect("witness");
    assert!(w.rows <= 2, "{w:#?}");
    assert!(set
        .hunt("nope", 0, GOLD, DROPPED, &opts, &limits, 3, false)
        .unwrap()
        .is_none());
}

/// Any engine is the suite's reference: on every engine — SQLite on the
/// instance files, DuckDB and each configured server on copies of the
/// instances migrated there — the gold self-check of the files against
/// that reference agrees where the gold means the same everywhere, and
/// tells a different query apart. Copies go with the test.
#[test]
fn every_engine_judges_as_the_suite_s_reference() {
    let tmp = tempfile::tempdir().unwrap();
    let orig = original(tmp.path());
    let dir = tmp.path().join("s");
    build(&dir, &orig, 7);
    // Integers compared with integers: the same answer on every engine.
    let (gold, other) = (DROPPED, "SELECT count(*) FROM pets");
    let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_fz"));
    let files = instance_engine();
    let (opts, limits) = (CompareOptions::default(), QueryLimits::default());
    let mut seen = Vec::new();
    sqlwitness_testkit::for_each_engine(|kind, url| {
        let reference: Arc<dyn Engine> = match url {
            None => sqlwitness_engines::open_embedded(kind, None).unwrap(),
            Some(url) => Arc::from(sqlwitness_engines::connect(kind, Some(url)).unwrap()),
        };
        let set = SuiteSet::open(&dir)
            .unwrap()
            .with_prefix(&prefix)
            .with_reference(reference);
        assert_eq!(set.reference().kind(), kind);
        let n = set.instances("pets_1").unwrap().len();
        let target = url.map(|url| MigrationTarget::new(kind, url));
        let mut made = Vec::new();
        for k in 0..n {
            let db = set.instance_database("pets_1", k).unwrap();
            if let Some(target) = &target {
                made.push(db.namespace.clone());
                let report = migrate_database(&db, target, &Default::default()).unwrap();
                assert_eq!(report.problem(), None, "{kind}: {}", db.namespace);
            }
        }
        let check = |pred: &str| {
            set.check_against_reference(files.as_ref(), "pets_1", gold, pred, &opts, &limits)
                .unwrap()
        };
        let (same, differs) = (check(gold), check(other));
        if let Some(target) = &target {
            for ns in &made {
                drop_namespace(target, ns).unwrap();
            }
        }
        assert!(same.passed && same.checked == n, "{kind}: {same:?}");
        assert!(!differs.passed, "{kind}: {differs:?}");
        // The shrinker runs on the instance files only: no witness here.
        assert!(differs.failure.unwrap().witness.is_none(), "{kind}");
        seen.push(kind);
    });
    // SQLite and DuckDB always run.
    assert!(seen.contains(&EngineKind::Duckdb), "{seen:?}");
}
