//! Where a run runs, beside what it computes: the servers (the
//! administrative URLs and the reader logins' URLs) and the run's context
//! (output folder, threads, journal, partition, migration, cancellation).

use sqlwitness_dialect::EngineFacts;
use std::collections::BTreeMap;
use std::path::PathBuf;

use sqlwitness_core::EngineKind;

use crate::{Cancel, JournalMode, Partition, RunError};

/// Where the servers are: the administrative URLs (migration, grants) and
/// the least-privilege URLs queries run over (README "Privileges"), per
/// engine.
#[derive(Debug, Clone, Default)]
pub struct Servers {
    admin: BTreeMap<EngineKind, String>,
    reader: BTreeMap<EngineKind, String>,
}

/// `ENGINE=URL` pairs from `flag`, then `env(kind)` for every engine not
/// given.
fn urls(
    flag: &str,
    pairs: &[String],
    env: fn(EngineKind) -> String,
) -> Result<BTreeMap<EngineKind, String>, RunError> {
    let mut out = BTreeMap::new();
    for p in pairs {
        let (name, url) = p
            .split_once('=')
            .ok_or_else(|| RunError::BadInput(format!("--{flag} `{p}`: expected ENGINE=URL")))?;
        let kind = EngineKind::parse(name).ok_or_else(|| {
            RunError::BadInput(format!(
                "--{flag} `{p}`: unknown engine `{name}` (expected {})",
                EngineKind::names()
            ))
        })?;
        out.insert(kind, url.trim().to_string());
    }
    for kind in EngineKind::all() {
        if let Ok(url) = std::env::var(env(kind)) {
            if !url.trim().is_empty() {
                out.entry(kind).or_insert_with(|| url.trim().to_string());
            }
        }
    }
    Ok(out)
}

impl Servers {
    /// The servers given as `ENGINE=URL` pairs (`--server`, `--reader`),
    /// then, for every engine not given, `SQLWITNESS_<ENGINE>_URL` and
    /// `SQLWITNESS_<ENGINE>_READER_URL`, then an engine's default (the
    /// folder of DuckDB's copies).
    pub fn from_pairs(admin: &[String], reader: &[String]) -> Result<Servers, RunError> {
        let mut admin = urls("server", admin, EngineKind::url_env)?;
        for kind in EngineKind::all() {
            if let Some(url) = sqlwitness_engines::default_url(kind) {
                admin.entry(kind).or_insert(url);
            }
        }
        Ok(Servers {
            admin,
            reader: urls("reader", reader, EngineKind::reader_url_env)?,
        })
    }

    /// Checks that every server engine of `engines` has a URL: an
    /// administrative one when `migrate` (migration needs it), else an
    /// administrative or a reader one.
    pub fn check(&self, engines: &[EngineKind], migrate: bool) -> Result<(), RunError> {
        for &kind in engines.iter().filter(|&&k| k.holds_copies()) {
            if self.url(kind).is_none() && (migrate || self.explicit_reader_url(kind).is_none()) {
                return Err(RunError::BadInput(format!(
                    "engine {kind} needs --server {kind}=URL or {} (an administrative login: \
                     it migrates and grants the reader login read access)",
                    kind.url_env()
                )));
            }
        }
        Ok(())
    }

    /// Makes `url` the administrative URL of `kind` (a server this run
    /// started, `--containers`), replacing any given by a flag or the
    /// environment; its reader URL is then derived from it.
    pub fn set_started(&mut self, kind: EngineKind, url: &str) {
        self.admin.insert(kind, url.to_string());
        self.reader.remove(&kind);
    }

    /// The administrative URL.
    pub fn url(&self, kind: EngineKind) -> Option<&str> {
        self.admin.get(&kind).map(String::as_str)
    }

    fn explicit_reader_url(&self, kind: EngineKind) -> Option<&str> {
        self.reader.get(&kind).map(String::as_str)
    }

    /// The administrative URL a run login is created over: given when no
    /// explicit reader URL is (README "Privileges").
    pub fn run_login_admin(&self, kind: EngineKind) -> Option<&str> {
        match self.explicit_reader_url(kind) {
            Some(_) => None,
            None => self.url(kind),
        }
    }

    /// The URL queries run over: the explicit reader URL, else the
    /// administrative one with the reader login's name and password.
    pub fn reader_url(&self, kind: EngineKind) -> Result<String, RunError> {
        if let Some(u) = self.explicit_reader_url(kind) {
            return Ok(u.to_string());
        }
        let admin = self
            .url(kind)
            .ok_or_else(|| RunError::BadInput(format!("engine {kind}: no URL given")))?;
        Ok(sqlwitness_engines::reader_url(kind, admin)?)
    }
}

/// How and where a run runs, beside what it computes (its spec): nothing
/// here changes an outcome, so the journal does not keep it.
pub struct RunContext {
    /// The output folder (the journal's).
    pub out: PathBuf,
    pub servers: Servers,
    /// Worker threads.
    pub jobs: usize,
    /// No progress bars.
    pub quiet: bool,
    /// Keep a journal; continue one.
    pub journal: JournalMode,
    /// Only this part's databases.
    pub partition: Option<Partition>,
    /// Migrate what the servers miss first.
    pub migrate: bool,
    /// How migrations check and cache their copies.
    pub migrate_options: sqlwitness_migrate::MigrateOptions,
    /// The run's cancellation token.
    pub cancel: Cancel,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_pairs_name_engines_and_the_flag_wins_over_the_environment() {
        let s = Servers::from_pairs(
            &[
                "mariadb=mysql://root@127.0.0.1:3306/test".into(),
                "MySQL = mysql://root@127.0.0.1:3307/test".into(),
            ],
            &[],
        )
        .unwrap();
        assert_eq!(
            s.url(EngineKind::Mariadb),
            Some("mysql://root@127.0.0.1:3306/test")
        );
        assert_eq!(
            s.url(EngineKind::Mysql),
            Some("mysql://root@127.0.0.1:3307/test")
        );
        let err = Servers::from_pairs(&["oracle=x".into()], &[]).unwrap_err();
        assert!(
            err.is_bad_input() && err.to_string().contains("oracle"),
            "{err}"
        );
        let err = Servers::from_pairs(&[], &["postgres".into()]).unwrap_err();
        assert!(err.to_string().contains("ENGINE=URL"), "{err}");
    }

    #[test]
    fn a_server_engine_without_a_url_is_bad_input() {
        let s = Servers::default();
        assert!(s.check(&[EngineKind::REFERENCE], true).is_ok());
        let err = s.check(&[EngineKind::Mariadb], true).unwrap_err();
        assert!(err.to_string().contains("SQLWITNESS_MARIADB_URL"), "{err}");
    }
}
