//! PostgreSQL planner settings through `Engine::execute_with_settings`:
//! applied for one query, allow-listed. Needs `SQLWITNESS_POSTGRES_URL`;
//! without it the test says SKIPPED, unless `SQLWITNESS_REQUIRE_ENGINES=1`.

use sqlwitness_core::{Database, Engine, ErrorClass, QueryLimits, Value};
use sqlwitness_engines::PostgresEngine;

fn url() -> Option<String> {
    sqlwitness_testkit::server_url(sqlwitness_core::EngineKind::Postgres)
}

#[test]
fn planner_settings_apply_to_one_query_and_are_allow_listed() {
    let Some(url) = url() else { return };
    let pg = PostgresEngine::connect(&url, 2).expect("connect");
    let db = Database::new("public", "");
    let l = QueryLimits::default();
    let q = "SELECT current_setting('enable_hashagg')";
    let set = vec![("enable_hashagg".to_string(), "off".to_string())];
    let rs = pg.execute_with_settings(&db, q, &l, &set).unwrap();
    assert_eq!(rs.rows, vec![vec![Value::Text("off".into())]]);
    // SET LOCAL: the next query on the pool sees the default again.
    let rs = pg.execute(&db, q, &l).unwrap();
    assert_eq!(rs.rows, vec![vec![Value::Text("on".into())]]);
    for bad in [
        ("work_mem", "1GB"),
        ("enable_sort", "off; DROP TABLE x"),
        ("role", "postgres"),
    ] {
        let e = pg
            .execute_with_settings(&db, q, &l, &[(bad.0.into(), bad.1.into())])
            .unwrap_err();
        assert_eq!(e.class, ErrorClass::Refused, "{bad:?}");
    }
}

#[test]
fn sqlite_has_no_planner_settings() {
    let e = sqlwitness_engines::open_embedded(sqlwitness_engines::IN_PLACE, None)
        .unwrap()
        .execute_with_settings(
            &Database::new("x", "/nonexistent"),
            "SELECT 1",
            &QueryLimits::default(),
            &[],
        )
        .unwrap_err();
    assert_eq!(e.class, ErrorClass::Other);
}
