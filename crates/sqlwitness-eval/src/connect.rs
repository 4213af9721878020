//! Connecting the engines a plan names: the servers over their
//! least-privilege reader login (README "Privileges").

use std::sync::Arc;

use sqlwitness_core::{Engine, EngineKind};
use sqlwitness_engines::{mask_url, READER_LOGIN};

use crate::{EvalError, Servers};

/// One connected engine.
pub struct Connected {
    pub kind: EngineKind,
    pub engine: Arc<dyn Engine>,
}

/// Connects every engine of `kinds`; a server over [`Servers::reader_url`].
/// A login that cannot connect, or that may do more than read the
/// benchmark copies, is an engine failure (exit 3) naming what to do.
pub fn connect(
    kinds: &[EngineKind],
    servers: &Servers,
    pool_size: u32,
) -> Result<Vec<Connected>, EvalError> {
    let mut out = Vec::new();
    for &kind in kinds {
        let url = if kind.is_server() {
            Some(servers.reader_url(kind)?)
        } else {
            None
        };
        let opened = sqlwitness_engines::open(kind, url.as_deref(), pool_size).map_err(|e| {
            if let sqlwitness_engines::EngineError::WrongServer { .. } = e {
                EvalError::Engine(e.to_string())
            } else {
                cannot_connect(kind, url.as_deref().unwrap_or(""), e)
            }
        })?;
        if let Some(url) = &url {
            least_privilege(kind, url, &opened.excess_privileges)?;
        }
        out.push(Connected {
            kind,
            engine: Arc::from(opened.engine),
        });
    }
    Ok(out)
}

fn cannot_connect(kind: EngineKind, url: &str, e: sqlwitness_engines::EngineError) -> EvalError {
    EvalError::Engine(format!(
        "{e}\n  queries run as the least-privilege login of {}; `sqlwitness migrate` (or eval \
         without --no-migrate) with an administrative --server {kind}=URL creates it and \
         grants it read access, or give one of your own with --reader {kind}=URL / {} \
         (README \"Privileges\")",
        mask_url(url),
        kind.reader_url_env()
    ))
}

fn least_privilege(kind: EngineKind, url: &str, excess: &[String]) -> Result<(), EvalError> {
    if excess.is_empty() {
        return Ok(());
    }
    Err(EvalError::Engine(format!(
        "{kind}: the login of {} may do more than read the benchmark copies ({}); predicted \
         SQL never runs over such a login. Use the reader login {READER_LOGIN} that migrate \
         creates, or a login with read access only (README \"Privileges\")",
        mask_url(url),
        excess.join("; ")
    )))
}
