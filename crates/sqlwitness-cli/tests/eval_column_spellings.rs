//! `sqlwitness eval` on PostgreSQL, where a migrated column keeps its exact
//! spelling: two tables spelling one name differently (`orders.shipperId`,
//! `shippers.shipperid`) each get their own, so the SQLite-written golds
//! that name both run there as they do on SQLite.

use std::path::Path;
use std::process::Command;

use sqlwitness_core::EngineKind;

const DB: &str = "northwind";

/// Golds that write each column in its own table's spelling, in the other
/// table's, bare, through a subquery and through a derived table.
const GOLDS: &[&str] = &[
    "SELECT o.shipperId, s.shipperid FROM orders o JOIN shippers s \
     ON o.shipperId = s.shipperid ORDER BY o.orderId",
    "SELECT o.shipperid, s.shipperId FROM orders AS o JOIN shippers AS s \
     ON o.shipperid = s.shipperId ORDER BY o.orderid",
    "SELECT shipperName FROM shippers WHERE shipperId IN (SELECT shipperid FROM orders) \
     ORDER BY shipperid",
    "SELECT t.shipperid, count(*) FROM (SELECT shipperid FROM orders) AS t \
     GROUP BY t.SHIPPERID ORDER BY t.shipperid",
];

fn bench(dir: &Path) {
    let db = dir.join("database").join(DB);
    std::fs::create_dir_all(&db).unwrap();
    let c = rusqlite::Connection::open(db.join(format!("{DB}.sqlite"))).unwrap();
    c.execute_batch(
        "CREATE TABLE shippers (shipperid INTEGER PRIMARY KEY, shipperName TEXT);
         CREATE TABLE orders (orderId INTEGER PRIMARY KEY, shipperId INTEGER
                              REFERENCES shippers (shipperid));
         INSERT INTO shippers VALUES (1, 'Speedy'), (2, 'United'), (3, 'Federal');
         INSERT INTO orders VALUES (10, 1), (11, 2), (12, 2), (13, 1);",
    )
    .unwrap();
    let gold: String = GOLDS.iter().map(|g| format!("{g}\t{DB}\n")).collect();
    std::fs::write(dir.join("dev_gold.sql"), gold).unwrap();
    std::fs::write(dir.join("tables.json"), "[]").unwrap();
}

#[test]
fn columns_spelled_differently_by_two_tables_resolve_on_postgres() {
    let Some(url) = sqlwitness_testkit::server_url(EngineKind::Postgres) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    bench(dir.path());
    let prefix = format!("{}_", sqlwitness_testkit::unique_name("swt_cs"));
    let out = dir.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_sqlwitness"))
        .args(["eval", "--bench"])
        .arg(dir.path())
        .args(["--engines", "sqlite,postgres", "--server"])
        .arg(format!("postgres={url}"))
        .args(["--namespace-prefix", &prefix, "-q", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let target = sqlwitness_migrate::MigrationTarget::new(EngineKind::Postgres, &url);
    let dropped =
        sqlwitness_migrate::drop_namespace(&target, &sqlwitness_core::namespace_for(&prefix, DB));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    dropped.unwrap();

    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    for (i, q) in report["questions"].as_array().unwrap().iter().enumerate() {
        let pg = &q["engines"]["postgres"];
        assert_eq!(pg["verdict"], "match", "gold {i}: {pg}");
    }
    let pg = &report["summary"]["engines"]["postgres"];
    assert_eq!(pg["match"], GOLDS.len(), "{pg}");
    assert_eq!(pg["gold_error"], 0, "{pg}");
    assert_eq!(
        report["questions"][1]["engines"]["postgres"]["gold"]["sql_run"],
        "SELECT o.\"shipperId\", s.\"shipperid\" FROM \"orders\" AS o JOIN \"shippers\" AS s \
         ON o.\"shipperId\" = s.\"shipperid\" ORDER BY o.\"orderId\""
    );
}
