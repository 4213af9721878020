//! A new engine is an adapter, a dialect file and a registration: an
//! engine unknown to every crate of the workspace, registered at run time,
//! runs `eval` beside SQLite through the same command line.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use sqlwitness_core::{
    Column, Database, DbError, Engine, EngineInfo, EngineKind, ErrorClass, QueryLimits, ResultSet,
    Value,
};

/// Statements the test adapter ran.
static STATEMENTS: AtomicUsize = AtomicUsize::new(0);

/// The test adapter: opens the benchmark's SQLite file read-only with
/// rusqlite itself (none of the workspace's adapters) and returns every
/// row, within the row limit.
struct Toy {
    info: EngineInfo,
}

fn db_error(e: rusqlite::Error) -> DbError {
    DbError::new(ErrorClass::Other, None, e.to_string())
}

impl Engine for Toy {
    fn info(&self) -> &EngineInfo {
        &self.info
    }

    fn execute(
        &self,
        db: &Database,
        sql: &str,
        limits: &QueryLimits,
    ) -> Result<ResultSet, DbError> {
        STATEMENTS.fetch_add(1, Ordering::SeqCst);
        let conn = rusqlite::Connection::open_with_flags(
            &db.sqlite_path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .map_err(db_error)?;
        let mut stmt = conn.prepare(sql).map_err(db_error)?;
        let columns: Vec<Column> = stmt
            .columns()
            .iter()
            .map(|c| Column::new(c.name(), c.decl_type().map(str::to_string)))
            .collect();
        let width = columns.len();
        let mut rows = Vec::new();
        let mut cursor = stmt.query([]).map_err(db_error)?;
        while let Some(row) = cursor.next().map_err(db_error)? {
            if rows.len() == limits.max_rows {
                return Err(DbError::new(
                    ErrorClass::ResourceLimit,
                    None,
                    "too many rows",
                ));
            }
            let mut out = Vec::with_capacity(width);
            for i in 0..width {
                out.push(match row.get_ref(i).map_err(db_error)? {
                    rusqlite::types::ValueRef::Null => Value::Null,
                    rusqlite::types::ValueRef::Integer(v) => Value::Int(v),
                    rusqlite::types::ValueRef::Real(v) => Value::Float(v),
                    rusqlite::types::ValueRef::Text(t) => {
                        Value::Text(String::from_utf8_lossy(t).into_owned())
                    }
                    rusqlite::types::ValueRef::Blob(b) => Value::Bytes(b.to_vec()),
                });
            }
            rows.push(out);
        }
        Ok(ResultSet::new(columns, rows))
    }
}

fn register_toy() -> EngineKind {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/registered_engine/toy.yaml");
    let dialect = sqlwitness_dialect::Dialect::load_file(&file).expect("toy.yaml loads");
    sqlwitness_engines::register_adapter(
        "toy",
        Arc::new(|d: sqlwitness_dialect::Dialect| {
            let kind = EngineKind::parse(&d.name).expect("registered");
            Ok(Box::new(Toy {
                info: EngineInfo {
                    kind,
                    version: format!("toy on SQLite {}", rusqlite::version()),
                    login: None,
                },
            }) as Box<dyn Engine>)
        }),
    );
    sqlwitness_dialect::register(dialect).expect("toy registers")
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/spider-dev")
}

#[test]
fn a_registered_engine_runs_eval_beside_sqlite() {
    let kind = register_toy();
    assert_eq!(kind.as_str(), "toy");
    assert!(EngineKind::all().contains(&kind));
    let out = tempfile::tempdir().unwrap();
    let bench = example();
    let code = sqlwitness_cli::run_embedded(
        [
            "sqlwitness",
            "eval",
            "--bench",
            bench.to_str().unwrap(),
            "--split",
            "dev",
            "--engines",
            "sqlite,toy",
            "--out",
            out.path().to_str().unwrap(),
        ],
        sqlwitness_cli::Cancel::new(),
    )
    .expect("eval runs");
    assert!(code == 0 || code == 4, "exit {code}");
    assert!(
        STATEMENTS.load(Ordering::SeqCst) > 0,
        "the toy adapter ran nothing"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("report.json")).unwrap())
            .unwrap();
    let questions = report["questions"].as_array().unwrap();
    assert!(!questions.is_empty());
    let engines = report["run"]["engines"].as_array().unwrap();
    assert!(
        engines
            .iter()
            .any(|e| e["kind"] == "toy" && e["version"].as_str().unwrap().starts_with("toy on")),
        "{engines:?}"
    );
    let summary = &report["summary"]["engines"];
    let matched = summary["toy"]["match"].as_u64().unwrap();
    assert!(matched > 900, "toy matched {matched}");
    assert_eq!(summary["toy"]["match"], summary["sqlite"]["match"]);
    // The toy engine reads the same files with SQLite's library: every
    // question gets the same verdict on both.
    for q in questions {
        let engines = &q["engines"];
        assert_eq!(
            engines["toy"]["verdict"], engines["sqlite"]["verdict"],
            "question {}",
            q["id"]
        );
    }
}
