//! Connect-time errors (query errors are [`sqlwitness_core::DbError`]).

use sqlwitness_core::EngineKind;

/// Why an engine could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The server could not be reached or refused the connection. The URL
    /// is shown with any password masked.
    #[error("{engine}: cannot connect to {url}: {message}")]
    Connect {
        engine: EngineKind,
        url: String,
        message: String,
    },
    /// The URL reaches a server of another engine that speaks the same
    /// protocol (a MariaDB URL given for `mysql`), told by its version.
    #[error("{engine}: {url} is not a {engine} server (it reports version `{version}`); give its URL for the engine it is")]
    WrongServer {
        engine: EngineKind,
        url: String,
        version: String,
    },
    /// A server engine needs a URL and none was given.
    #[error("{engine}: no connection URL given (--server {engine}=URL or {})", .engine.url_env())]
    MissingUrl { engine: EngineKind },
    /// An engine on a server was asked for where only an embedded one
    /// (in this process, on database files) will do.
    #[error(
        "{engine}: not an embedded engine (it runs on a server, opened over its URL and login)"
    )]
    NotEmbedded { engine: EngineKind },
    /// This build was compiled without the engine's cargo feature.
    #[error("{engine}: support not compiled in (enable the `{}` feature of sqlwitness-engines)", .engine.as_str())]
    NotCompiled { engine: EngineKind },
    /// The engine's dialect names an adapter nobody registered.
    #[error("{engine}: no adapter `{adapter}` is registered (its dialect file says `factory: {adapter}`)")]
    NoAdapter { engine: EngineKind, adapter: String },
    /// Starting, probing or stopping a container failed.
    #[error("container: {0}")]
    Container(String),
    /// `--containers` and no Docker daemon answers.
    #[error("--containers: no Docker daemon answers at {host} ({reason}); start Docker (or set DOCKER_HOST to the daemon), or give the servers' URLs with --server ENGINE=URL instead")]
    NoDocker { host: String, reason: String },
}

impl EngineError {
    #[cfg_attr(not(any(feature = "postgres", feature = "mysql")), allow(dead_code))]
    pub(crate) fn connect(engine: EngineKind, url: &str, message: impl ToString) -> EngineError {
        EngineError::Connect {
            engine,
            url: mask_url(url),
            message: message.to_string(),
        }
    }
}

/// The URL with the password of its user-info part (if any) replaced by
/// `***`: `postgres://u:secret@h/db` → `postgres://u:***@h/db`.
pub fn mask_url(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.to_string();
    };
    let rest = &url[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let Some(at) = authority.rfind('@') else {
        return url.to_string();
    };
    let userinfo = &authority[..at];
    match userinfo.find(':') {
        Some(colon) => format!(
            "{}{}:***{}",
            &url[..scheme_end + 3],
            &userinfo[..colon],
            &rest[at..]
        ),
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_masked() {
        assert_eq!(
            mask_url("postgres://u:s3cr@t@h:5432/db?x=1"),
            "postgres://u:***@h:5432/db?x=1"
        );
        assert_eq!(
            mask_url("mysql://root@127.0.0.1:3306/test"),
            "mysql://root@127.0.0.1:3306/test"
        );
        assert_eq!(mask_url("not a url"), "not a url");
        let e = EngineError::connect(EngineKind::Postgres, "postgres://a:b@h/d", "refused");
        assert_eq!(
            e.to_string(),
            "postgres: cannot connect to postgres://a:***@h/d: refused"
        );
    }
}
