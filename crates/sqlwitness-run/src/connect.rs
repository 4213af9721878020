//! Connecting the engines a plan names: the servers over their
//! least-privilege reader login (README "Privileges").

use sqlwitness_dialect::EngineFacts;
use std::sync::Arc;

use sqlwitness_core::{Engine, EngineKind};
use sqlwitness_engines::{mask_url, RunLogin, READER_LOGIN};

use crate::{Cancel, OnCancel, RunError, Servers};

/// One connected engine.
pub struct Connected {
    pub kind: EngineKind,
    pub engine: Arc<dyn Engine>,
    /// The run's own login on a server, dropped after the engine (or on a
    /// cancellation, after the queries in flight are cancelled).
    pub login: Option<HeldLogin>,
}

/// A run login held for the run, and released when the run is cancelled
/// too.
pub struct HeldLogin {
    _on_cancel: OnCancel,
    login: Arc<RunLogin>,
}

impl HeldLogin {
    fn new(login: RunLogin, cancel: &Cancel) -> HeldLogin {
        let login = Arc::new(login);
        let held = login.clone();
        HeldLogin {
            _on_cancel: cancel.on_cancel_last(move || held.release()),
            login,
        }
    }

    /// The login held.
    pub fn run_login(&self) -> &RunLogin {
        &self.login
    }
}

/// Connects every engine of `kinds`. A server is read over a login of
/// this run's own ([`RunLogin`]: the reader's access, nothing more, so no
/// query can signal another run's sessions) when an administrative URL is
/// given, else over the explicit reader URL ([`Servers::reader_url`]). A
/// login that cannot connect, or that may do more than read the benchmark
/// copies, is an engine failure (exit 3) naming what to do.
///
/// The run's login may read every copy the reader may read; a run that
/// knows its namespaces before it connects uses [`connect_reading`]. The
/// run's logins are released when `cancel` is cancelled, after the
/// queries in flight are.
pub fn connect(
    kinds: &[EngineKind],
    servers: &Servers,
    pool_size: u32,
    cancel: &Cancel,
) -> Result<Vec<Connected>, RunError> {
    connect_with(kinds, servers, pool_size, None, cancel)
}

/// [`connect`], with the run's own login (on MySQL and MariaDB) reading
/// only `namespaces`, the copies of the run's databases: a prediction
/// that gets past the guard still cannot read, or see the name of, another
/// benchmark's database (see [`RunLogin`]). A namespace the run makes
/// later is granted with [`RunLogin::grant_database`].
pub fn connect_reading(
    kinds: &[EngineKind],
    servers: &Servers,
    pool_size: u32,
    namespaces: &[String],
    cancel: &Cancel,
) -> Result<Vec<Connected>, RunError> {
    connect_with(kinds, servers, pool_size, Some(namespaces), cancel)
}

fn connect_with(
    kinds: &[EngineKind],
    servers: &Servers,
    pool_size: u32,
    namespaces: Option<&[String]>,
    cancel: &Cancel,
) -> Result<Vec<Connected>, RunError> {
    let mut out = Vec::new();
    for &kind in kinds {
        let mut login = None;
        let url = match servers.run_login_admin(kind) {
            Some(admin) if kind.is_server() => {
                let created = match namespaces {
                    Some(ns) => RunLogin::create_reading(kind, admin, ns),
                    None => RunLogin::create(kind, admin),
                };
                let created = created.map_err(|e| {
                    RunError::Engine(format!(
                        "{e}\n  each run reads over a login of its own, created over the \
                         administrative login; give a reader login of your own with --reader \
                         {kind}=URL / {} to run without one (README \"Privileges\")",
                        kind.reader_url_env()
                    ))
                })?;
                let url = created.url().to_string();
                login = Some(HeldLogin::new(created, cancel));
                Some(url)
            }
            _ if kind.holds_copies() => Some(servers.reader_url(kind)?),
            _ => None,
        };
        let opened = sqlwitness_engines::open(kind, url.as_deref(), pool_size).map_err(|e| {
            if let sqlwitness_engines::EngineError::WrongServer { .. } = e {
                RunError::Engine(e.to_string())
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
            login,
        });
    }
    Ok(out)
}

fn cannot_connect(kind: EngineKind, url: &str, e: sqlwitness_engines::EngineError) -> RunError {
    RunError::Engine(format!(
        "{e}\n  queries run as the least-privilege login of {}; `sqlwitness migrate` (or eval \
         without --no-migrate) with an administrative --server {kind}=URL creates it and \
         grants it read access, or give one of your own with --reader {kind}=URL / {} \
         (README \"Privileges\")",
        mask_url(url),
        kind.reader_url_env()
    ))
}

fn least_privilege(kind: EngineKind, url: &str, excess: &[String]) -> Result<(), RunError> {
    if excess.is_empty() {
        return Ok(());
    }
    Err(RunError::Engine(format!(
        "{kind}: the login of {} may do more than read the benchmark copies ({}); predicted \
         SQL never runs over such a login. Use the reader login {READER_LOGIN} that migrate \
         creates, or a login with read access only (README \"Privileges\")",
        mask_url(url),
        excess.join("; ")
    )))
}
