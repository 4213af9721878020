//! Connecting the engines a plan names: the servers over their
//! least-privilege reader login (README "Privileges").

use anyhow::Result;
use std::sync::Arc;

use sqlwitness_core::{Engine, EngineKind};
use sqlwitness_engines::{mask_url, MysqlEngine, PostgresEngine, SqliteEngine, READER_LOGIN};

use crate::exit::EngineFailure;
use crate::plan::Servers;

/// One connected engine.
pub struct Connected {
    pub kind: EngineKind,
    pub engine: Arc<dyn Engine>,
}

/// Connects every engine of `kinds`; a server over [`Servers::reader_url`].
/// A login that cannot connect, or that may do more than read the
/// benchmark copies, is an engine failure (exit 3) naming what to do.
pub fn connect(kinds: &[EngineKind], servers: &Servers, pool_size: u32) -> Result<Vec<Connected>> {
    let mut out = Vec::new();
    for &kind in kinds {
        let engine: Arc<dyn Engine> = match kind {
            EngineKind::Sqlite => Arc::new(SqliteEngine::new()),
            EngineKind::Postgres => {
                let url = servers.reader_url(kind)?;
                let e = PostgresEngine::connect(&url, pool_size)
                    .map_err(|e| cannot_connect(kind, &url, e))?;
                least_privilege(kind, &url, e.excess_privileges())?;
                Arc::new(e)
            }
            EngineKind::Mysql => {
                let url = servers.reader_url(kind)?;
                let e = MysqlEngine::connect(&url, pool_size)
                    .map_err(|e| cannot_connect(kind, &url, e))?;
                least_privilege(kind, &url, e.excess_privileges())?;
                Arc::new(e)
            }
        };
        out.push(Connected { kind, engine });
    }
    Ok(out)
}

fn cannot_connect(
    kind: EngineKind,
    url: &str,
    e: sqlwitness_engines::EngineError,
) -> anyhow::Error {
    let upper = kind.as_str().to_ascii_uppercase();
    EngineFailure(format!(
        "{e}\n  queries run as the least-privilege login of {}; `sqlwitness migrate` (or eval \
         without --no-migrate) with an administrative --{kind}-url creates it and grants it \
         read access, or give one of your own with --{kind}-reader-url / \
         SQLWITNESS_{upper}_READER_URL (README \"Privileges\")",
        mask_url(url)
    ))
    .into()
}

fn least_privilege(kind: EngineKind, url: &str, excess: &[String]) -> Result<()> {
    if excess.is_empty() {
        return Ok(());
    }
    Err(EngineFailure(format!(
        "{kind}: the login of {} may do more than read the benchmark copies ({}); predicted \
         SQL never runs over such a login. Use the reader login {READER_LOGIN} that migrate \
         creates, or a login with read access only (README \"Privileges\")",
        mask_url(url),
        excess.join("; ")
    ))
    .into())
}
