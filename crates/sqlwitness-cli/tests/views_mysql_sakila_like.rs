//! A Sakila-like mysqldump's views (`tests/dumps/views_mysql_sakila_like.sql`)
//! on MySQL and MariaDB: every view SQLite can express is carried into the
//! SQLite file with the source view's rows — its query as the server prints
//! it, with character-set introducers, `COLLATE` on literals, `cast(… as
//! char charset …)`, `concat`, `if`, `group_concat(… separator …)` and the
//! dump's own database naming its tables — and the one SQLite cannot
//! (`group_concat(distinct … separator '; ')`) is listed with the reason.
//! The copy on the dump's own engine takes every view.

use std::path::Path;
use std::process::Command;

use rusqlite::types::Value;
use sqlwitness_core::EngineKind;
use sqlwitness_dialect::Adapter;

/// The views SQLite answers as the source does, with their rows.
const CARRIED: [(&str, i64); 8] = [
    ("actor_categories", 5),
    ("customer_list", 5),
    ("film_labels", 5),
    ("film_list", 6),
    ("nicer_but_slower_film_list", 6),
    ("sales_by_film_category", 3),
    ("sales_by_store", 2),
    ("staff_list", 2),
];

/// Runs `sqlwitness import` of the fixture; the exit code, stderr and the
/// import report. The copy on the dump's own engine is dropped after.
fn import(kind: EngineKind, url: &str, out: &Path) -> (i32, String, serde_json::Value) {
    let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_vs"));
    let dump = sqlwitness_testkit::repo_path("tests/dumps").join("views_mysql_sakila_like.sql");
    let o = Command::new(env!("CARGO_BIN_EXE_sqlwitness"))
        .args(["import", "--engine", kind.as_str(), "--server", url])
        .args([
            "--namespace-prefix",
            &prefix,
            "--db-id",
            "sakila_like",
            "--out",
        ])
        .arg(out)
        .arg("--dump")
        .arg(&dump)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    eprintln!("{kind}: {stderr}");
    let report: serde_json::Value = std::fs::read(out.join("import-report.json"))
        .map(|b| serde_json::from_slice(&b).unwrap())
        .unwrap_or_default();
    let target = sqlwitness_migrate::MigrationTarget::new(kind, url);
    for d in report["databases"].as_array().into_iter().flatten() {
        if let Some(ns) = d["source_copy"]["namespace"].as_str() {
            sqlwitness_migrate::drop_namespace(&target, ns).unwrap();
        }
    }
    (o.status.code().unwrap_or(-1), stderr, report)
}

fn rows(db: &rusqlite::Connection, sql: &str) -> Vec<Vec<Value>> {
    let mut stmt = db.prepare(sql).unwrap();
    let n = stmt.column_count();
    stmt.query_map([], |r| (0..n).map(|i| r.get::<_, Value>(i)).collect())
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

#[test]
fn a_sakila_like_dumps_views_are_carried_where_sqlite_can_express_them() {
    let dir = tempfile::tempdir().unwrap();
    let ran = sqlwitness_testkit::for_each_server(Some(Adapter::Mysql), |kind, url| {
        let out = dir.path().join(kind.as_str());
        let (code, stderr, rep) = import(kind, url, &out);
        assert_eq!(code, 0, "{kind}: {stderr}");
        let views = rep["databases"][0]["views"].as_array().unwrap();
        let by_name = |n: &str| {
            views
                .iter()
                .find(|v| v["view"] == n)
                .unwrap_or_else(|| panic!("{kind}: no view {n}: {views:?}"))
                .clone()
        };
        for (name, n) in CARRIED {
            let v = by_name(name);
            assert_eq!(v["carried"], true, "{kind}: {v}");
            assert_eq!(v["rows"], n, "{kind}: {v}");
            let sql = v["sql"].as_str().unwrap();
            for spelling in [
                "_utf8mb4",
                "_latin1",
                "separator",
                "SEPARATOR",
                "sakila_like",
            ] {
                assert!(!sql.contains(spelling), "{kind}: {name}: {sql}");
            }
        }
        let info = by_name("actor_info");
        assert_eq!(info["carried"], false, "{kind}: {info}");
        assert_eq!(info["rows"], 5, "{kind}: {info}");
        assert!(
            info["note"]
                .as_str()
                .unwrap()
                .contains("DISTINCT aggregates must have exactly one argument"),
            "{kind}: {info}"
        );
        assert_eq!(views.len(), CARRIED.len() + 1, "{kind}: {views:?}");
        // The view naming `sakila_like`.`film` was made by the loader in
        // the namespace: nothing else is missing.
        let listed: Vec<&str> = rep["not_created"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["note"].as_str().unwrap())
            .collect();
        assert_eq!(
            listed,
            [
                "view actor_info: not carried: SQLite cannot read it: DISTINCT aggregates must \
              have exactly one argument"
            ],
            "{kind}"
        );
        // The copy on the dump's own engine takes every view.
        let copy = &rep["databases"][0]["source_copy"]["views"];
        let copied: Vec<(&str, bool)> = copy
            .as_array()
            .unwrap()
            .iter()
            .map(|v| (v["view"].as_str().unwrap(), v["carried"] == true))
            .collect();
        assert_eq!(copied.len(), CARRIED.len() + 1, "{kind}: {copy}");
        assert!(copied.iter().all(|(_, c)| *c), "{kind}: {copy}");

        let db = rusqlite::Connection::open(out.join("sakila_like/sakila_like.sqlite")).unwrap();
        let names: Vec<String> = rows(
            &db,
            "SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name",
        )
        .into_iter()
        .map(|r| match &r[0] {
            Value::Text(s) => s.clone(),
            v => panic!("{v:?}"),
        })
        .collect();
        assert_eq!(
            names,
            CARRIED.map(|(n, _)| n.to_string()),
            "{kind}: never half-created"
        );
        assert_eq!(
            rows(
                &db,
                "SELECT name, notes, \"zip code\" FROM customer_list WHERE ID IN (3, 5) ORDER BY ID"
            ),
            [
                vec![text("LINDA WILLIAMS"), text(""), text("83579")],
                vec![text("ÉLODIE O'BRIEN"), text("active"), Value::Null],
            ],
            "{kind}"
        );
        assert_eq!(
            rows(
                &db,
                "SELECT label, kind FROM film_labels WHERE film_id IN (1, 4)"
            ),
            [
                vec![text("#1: ACADEMY DINOSAUR"), text("feature")],
                vec![text("#4: AFFAIR PREJUDICE"), text("feature")],
            ],
            "{kind}"
        );
        assert_eq!(
            rows(&db, "SELECT actors FROM film_list WHERE FID = 4"),
            [vec![text("ED CHASE, JENNIFER DAVIS")]],
            "{kind}"
        );
        assert_eq!(
            rows(
                &db,
                "SELECT actors FROM nicer_but_slower_film_list WHERE FID = 4"
            ),
            [vec![text("Ed Chase, Jennifer Davis")]],
            "{kind}"
        );
        assert_eq!(
            rows(
                &db,
                "SELECT categories FROM actor_categories WHERE actor_id = 4"
            ),
            [vec![text("Action,Animation")]],
            "{kind}"
        );
        let sales = rows(&db, "SELECT category FROM sales_by_film_category");
        assert_eq!(
            sales,
            [
                vec![text("Children")],
                vec![text("Animation")],
                vec![text("Action")]
            ],
            "{kind}"
        );
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}
