//! `perturb --reference ENGINE`: a benchmark shipped as a dump, perturbed
//! with its golds in the dump's own dialect judged by the dump's own
//! engine. The shop of `tests/dumps/prices_{postgres,mysql}.sql` (named in
//! the benchmark's `dumps.json`: `perturb` imports it), three columns
//! renamed; each engine's golds are rewritten in its dialect, verified on
//! a scratch copy of each perturbed database there against the import's
//! copy with the dump's own types, written as `dev_gold_<engine>.sql`, and
//! `eval --reference ENGINE` runs on the output.

#[path = "common/admin.rs"]
mod admin;

use std::path::Path;
use std::process::Command;

use sqlwitness_core::EngineKind;
use sqlwitness_dialect::Adapter;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sqlwitness"))
}

/// The question whose gold sorts by the enum: the dump's copy sorts by the
/// labels' positions, a copy migrated from the SQLite file by their text.
const ENUM_ORDER: usize = 4;
/// The question whose gold in the engine's dialect has a `WITH`.
const WITH: usize = 5;

/// The shop's questions: SQLite's gold, PostgreSQL's, MySQL's.
const QUESTIONS: [(&str, &str, &str); 7] = [
    (
        "SELECT count(*) FROM shop WHERE city = 'Lyon'",
        "SELECT count(*) FROM shop WHERE city = 'Lyon'",
        "SELECT COUNT(*) FROM `shop` WHERE `city` = 'Lyon'",
    ),
    (
        "SELECT name FROM item WHERE grade = 'mid' AND sold >= '2024-01-01'",
        "SELECT name FROM item WHERE grade = 'mid' AND sold >= DATE '2024-01-01'",
        "SELECT `name` FROM `item` WHERE `grade` = 'mid' AND `sold` >= DATE '2024-01-01'",
    ),
    (
        "SELECT T1.name, T2.city FROM item AS T1 JOIN shop AS T2 ON T1.shop_id = T2.shop_id ORDER BY T1.price DESC",
        "SELECT T1.name, T2.city FROM item AS T1 JOIN shop AS T2 ON T1.shop_id = T2.shop_id ORDER BY T1.price DESC",
        "SELECT T1.`name`, T2.city FROM `item` AS T1 JOIN `shop` AS T2 ON T1.shop_id = T2.shop_id ORDER BY T1.`price` DESC",
    ),
    (
        "SELECT count(*) FROM item WHERE strftime('%Y', sold) = '2024'",
        "SELECT count(*) FROM item WHERE EXTRACT(YEAR FROM sold) = 2024",
        "SELECT COUNT(*) FROM item WHERE YEAR(sold) = 2024",
    ),
    (
        "SELECT name FROM item ORDER BY grade DESC, item_id",
        "SELECT name FROM item ORDER BY grade DESC, item_id",
        "SELECT `name` FROM `item` ORDER BY `grade` DESC, `item_id`",
    ),
    (
        "SELECT max(price) FROM item",
        "WITH p AS (SELECT price FROM item) SELECT max(price) FROM p",
        "WITH p AS (SELECT price FROM item) SELECT MAX(price) FROM p",
    ),
    (
        "SELECT name FROM item WHERE shop_id = 2 ORDER BY item_id",
        "SELECT name FROM item WHERE shop_id = 2 ORDER BY item_id",
        "SELECT `name` FROM `item` WHERE `shop_id` = 2 ORDER BY `item_id`",
    ),
];

/// The golds rewritten for the renames, in each dialect: the questions
/// kept everywhere but 4, which the test adds (the others: 3 mentions no
/// renamed column, 5 is dropped).
const KEPT: [(usize, &str, &str); 4] = [
    (
        0,
        "SELECT count(*) FROM shop WHERE town = 'Lyon'",
        "SELECT COUNT(*) FROM `shop` WHERE `town` = 'Lyon'",
    ),
    (
        1,
        "SELECT label FROM item WHERE grade = 'mid' AND sold >= DATE '2024-01-01'",
        "SELECT `label` FROM `item` WHERE `grade` = 'mid' AND `sold` >= DATE '2024-01-01'",
    ),
    (
        2,
        // PostgreSQL: the new name holds an upper-case letter and the copy
        // keeps it: quoted.
        "SELECT T1.label, T2.town FROM item AS T1 JOIN shop AS T2 ON T1.shop_id = T2.shop_id ORDER BY T1.\"Cost\" DESC",
        "SELECT T1.`label`, T2.town FROM `item` AS T1 JOIN `shop` AS T2 ON T1.shop_id = T2.shop_id ORDER BY T1.`Cost` DESC",
    ),
    (
        6,
        "SELECT label FROM item WHERE shop_id = 2 ORDER BY item_id",
        "SELECT `label` FROM `item` WHERE `shop_id` = 2 ORDER BY `item_id`",
    ),
];

const TABLES: &str = r#"[{"db_id": "shop",
  "table_names_original": ["shop", "item"], "table_names": ["shop", "item"],
  "column_names_original": [[-1, "*"], [0, "shop_id"], [0, "city"], [1, "item_id"], [1, "shop_id"], [1, "name"], [1, "price"], [1, "sold"], [1, "grade"]],
  "column_names": [[-1, "*"], [0, "shop id"], [0, "city"], [1, "item id"], [1, "shop id"], [1, "name"], [1, "price"], [1, "sold"], [1, "grade"]],
  "column_types": ["text", "number", "text", "number", "number", "text", "number", "time", "text"],
  "primary_keys": [1, 3], "foreign_keys": [[4, 1]]}]"#;

/// A Spider-layout benchmark of the shop whose `dumps.json` names the
/// dump of `kind`'s family, with the golds of its dialect in
/// `gold_<kind>.sql` and three exact renames.
fn shop_bench(dir: &Path, kind: EngineKind) -> std::path::PathBuf {
    let pg = sqlwitness_dialect::shipped(kind).adapter == Adapter::Postgres;
    let dump = if pg {
        "prices_postgres.sql"
    } else {
        "prices_mysql.sql"
    };
    std::fs::create_dir_all(dir.join("dumps")).unwrap();
    std::fs::copy(
        sqlwitness_testkit::repo_path(&format!("tests/dumps/{dump}")),
        dir.join("dumps").join(dump),
    )
    .unwrap();
    let manifest = serde_json::json!([
        {"dump": format!("dumps/{dump}"), "engine": kind.as_str(), "db_id": "shop"}
    ]);
    std::fs::write(dir.join("dumps.json"), manifest.to_string()).unwrap();
    std::fs::write(dir.join("tables.json"), TABLES).unwrap();
    let questions: Vec<serde_json::Value> = QUESTIONS
        .iter()
        .enumerate()
        .map(|(i, (sqlite, _, _))| {
            serde_json::json!({"db_id": "shop", "question": format!("question {i}"), "query": sqlite})
        })
        .collect();
    std::fs::write(
        dir.join("dev.json"),
        serde_json::to_string(&questions).unwrap(),
    )
    .unwrap();
    let golds: String = QUESTIONS
        .iter()
        .map(|(_, p, m)| format!("{}\tshop\n", if pg { p } else { m }))
        .collect();
    let gold = dir.join(format!("gold_{kind}.sql"));
    std::fs::write(&gold, golds).unwrap();
    std::fs::write(
        dir.join("renames.yaml"),
        "shop:\n  item.name: label\n  item.price: Cost\n  shop.city: town\n",
    )
    .unwrap();
    gold
}

/// How many namespaces on the server (PostgreSQL schemas, MySQL
/// databases) start with `prefix` and contain `infix`.
fn namespaces(kind: EngineKind, url: &str, prefix: &str, infix: &str) -> i64 {
    let pattern = format!("{prefix}%{infix}%").replace('_', "\\_");
    let sql = if sqlwitness_dialect::shipped(kind).adapter == Adapter::Postgres {
        format!("SELECT count(*) FROM pg_namespace WHERE nspname LIKE '{pattern}'")
    } else {
        format!(
            "SELECT CAST(COUNT(*) AS SIGNED) FROM information_schema.SCHEMATA \
             WHERE SCHEMA_NAME LIKE '{pattern}'"
        )
    };
    admin::count(url, &sql)
}

/// Drops the copies the test made (`<prefix>shop`, the import's, and
/// `<prefix>shop_0`, eval's) when it ends, passed or not.
struct DropCopies(EngineKind, String, String);

impl Drop for DropCopies {
    fn drop(&mut self) {
        let target = sqlwitness_migrate::MigrationTarget::new(self.0, &self.1);
        for db in ["shop", "shop_0"] {
            let _ = sqlwitness_migrate::drop_namespace(&target, &format!("{}{db}", self.2));
        }
    }
}

#[test]
fn a_dump_is_perturbed_with_its_own_golds_judged_by_its_own_engine() {
    let ran = sqlwitness_testkit::for_each_server(None, |kind, url| {
        let pg = sqlwitness_dialect::shipped(kind).adapter == Adapter::Postgres;
        let dir = tempfile::tempdir().unwrap();
        let bench = dir.path().join("bench");
        let gold = shop_bench(&bench, kind);
        let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_pert"));
        let _guard = DropCopies(kind, url.to_string(), prefix.clone());
        let out = dir.path().join("out");
        let server = format!("{kind}={url}");
        let o = bin()
            .args(["perturb", "--bench"])
            .arg(&bench)
            .arg("--renames")
            .arg(bench.join("renames.yaml"))
            .args(["--reference", kind.as_str(), "--gold"])
            .arg(format!("{kind}={}", gold.display()))
            .args(["--server", &server, "--namespace-prefix", &prefix, "-q"])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{kind}: {stderr}");
        let mapping: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("mapping.json")).unwrap()).unwrap();
        assert_eq!(mapping["reference"]["engine"], kind.as_str(), "{kind}");
        assert_eq!(
            mapping["reference"]["gold_file"],
            format!("dev_gold_{kind}.sql")
        );
        // The kept questions: every rewritten gold verified on the
        // engine, written in its dialect.
        let kept: Vec<(u64, &str)> = mapping["questions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| {
                (
                    q["original_id"].as_u64().unwrap(),
                    q["reference_gold"].as_str().unwrap(),
                )
            })
            .collect();
        // The scratch copy takes the import's column types (the enum,
        // `numeric(10,2)`/`decimal(10,2)` under its new name) on every
        // server: the gold sorting by the enum answers there as on the
        // original and is kept.
        let mut expected: Vec<(u64, &str)> = KEPT
            .iter()
            .map(|(i, p, m)| (*i as u64, if pg { *p } else { *m }))
            .collect();
        expected.insert(
            3,
            (
                ENUM_ORDER as u64,
                if pg {
                    "SELECT label FROM item ORDER BY grade DESC, item_id"
                } else {
                    "SELECT `label` FROM `item` ORDER BY `grade` DESC, `item_id`"
                },
            ),
        );
        assert!(
            mapping["reference"]["copies"]
                .as_str()
                .unwrap()
                .contains("the original copy's column types"),
            "{kind}: {}",
            mapping["reference"]
        );
        assert_eq!(kept, expected, "{kind}: {mapping}");
        let file = std::fs::read_to_string(out.join(format!("dev_gold_{kind}.sql"))).unwrap();
        let lines: Vec<String> = expected
            .iter()
            .map(|(_, sql)| format!("{sql}\tshop_0"))
            .collect();
        assert_eq!(file, lines.join("\n") + "\n", "{kind}");
        // Dropped with the reason, naming the engine: the WITH the
        // rewriter refuses; never the enum's order.
        let dropped: Vec<(u64, &str)> = mapping["dropped"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["original_id"].as_u64().unwrap(),
                    d["class"].as_str().unwrap(),
                )
            })
            .collect();
        let order = format!("{kind}: verification: results differ (order)");
        let with = format!("{kind}: not rewritten: unsupported WITH");
        assert!(
            !dropped.contains(&(ENUM_ORDER as u64, order.as_str())),
            "{kind}: {dropped:?}"
        );
        assert!(
            dropped.contains(&(WITH as u64, with.as_str())),
            "{kind}: {dropped:?}"
        );
        // The scratch copies are gone; the import's copy stays.
        assert_eq!(namespaces(kind, url, &prefix, "__p"), 0, "{kind}");
        assert_eq!(namespaces(kind, url, &prefix, "shop"), 1, "{kind}");
        // eval runs on the output with the rewritten golds as the
        // reference's: each of them matches there.
        let report_dir = dir.path().join("eval");
        let o = bin()
            .args(["eval", "--bench"])
            .arg(&out)
            .args([
                "--engines",
                &format!("sqlite,{kind}"),
                "--reference",
                kind.as_str(),
                "--gold",
            ])
            .arg(format!(
                "{kind}={}",
                out.join(format!("dev_gold_{kind}.sql")).display()
            ))
            .args(["--server", &server, "--namespace-prefix", &prefix, "-q"])
            .arg("--out")
            .arg(&report_dir)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{kind}: {stderr}");
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(report_dir.join("report.json")).unwrap())
                .unwrap();
        let questions = report["questions"].as_array().unwrap();
        assert_eq!(questions.len(), expected.len(), "{kind}");
        for q in questions {
            assert_eq!(
                q["engines"][kind.as_str()]["verdict"],
                "match",
                "{kind}: {q}"
            );
        }
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// `--kind content` cannot be carried into a server's dialect: refused
/// before anything is read or connected (exit 2).
#[test]
fn content_equivalence_is_refused_on_a_server_reference() {
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    shop_bench(&bench, EngineKind::Postgres);
    let o = bin()
        .args(["perturb", "--bench"])
        .arg(&bench)
        .args(["--kind", "content", "--reference", "postgres", "--out"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("--kind content") && stderr.contains("postgres"),
        "{stderr}"
    );
    assert!(!dir.path().join("out").exists());
}
