//! Connecting the engines a plan names.

use anyhow::Result;
use std::sync::Arc;

use sqlwitness_core::{Engine, EngineKind};
use sqlwitness_engines::{MysqlEngine, PostgresEngine, SqliteEngine};

use crate::exit::EngineFailure;
use crate::plan::Servers;

/// One connected engine.
pub struct Connected {
    pub kind: EngineKind,
    pub engine: Arc<dyn Engine>,
}

pub fn connect(kinds: &[EngineKind], servers: &Servers, pool_size: u32) -> Result<Vec<Connected>> {
    let mut out = Vec::new();
    for &kind in kinds {
        let engine: Arc<dyn Engine> = match kind {
            EngineKind::Sqlite => Arc::new(SqliteEngine::new()),
            EngineKind::Postgres => {
                let url = servers.url(kind).expect("validated in the plan");
                Arc::new(
                    PostgresEngine::connect(url, pool_size)
                        .map_err(|e| EngineFailure(format!("postgres: {e}")))?,
                )
            }
            EngineKind::Mysql => {
                let url = servers.url(kind).expect("validated in the plan");
                Arc::new(
                    MysqlEngine::connect(url, pool_size)
                        .map_err(|e| EngineFailure(format!("mysql: {e}")))?,
                )
            }
        };
        out.push(Connected { kind, engine });
    }
    Ok(out)
}
