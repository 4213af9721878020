//! The privilege model: predictions run over a connection that
//! *authenticates* as a least-privilege login, so nothing inside a query can
//! climb back to the administrative login (`SET ROLE` undone by
//! `set_config('role', …)`, a superuser's `pg_read_file`, MySQL's `FILE`).
//!
//! * The administrative URL (`SQLWITNESS_<ENGINE>_URL`) migrates databases
//!   and, on the same connection, creates the reader login
//!   [`READER_LOGIN`] and grants it read access to each migrated namespace
//!   and nothing else ([`grant_postgres`], [`grant_mysql`]).
//! * Queries run over the reader URL: given explicitly
//!   (`SQLWITNESS_<ENGINE>_READER_URL`) or derived from the administrative
//!   one with the reader's name and password ([`reader_url`]).
//! * Every server engine checks at connect time what its login may do
//!   ([`postgres_excess_privileges`], [`mysql_excess_privileges`]); a run
//!   refuses a login with more than read access to the benchmark copies.

use sqlwitness_core::EngineKind;

use crate::EngineError;

/// The reader login's name on every server.
pub const READER_LOGIN: &str = "sqlwitness_reader";

/// The environment variable holding the reader's password.
pub const READER_PASSWORD_ENV: &str = "SQLWITNESS_READER_PASSWORD";

/// The reader's password when [`READER_PASSWORD_ENV`] is not set. The login
/// can read only the migrated benchmark copies; set a password of your own
/// on a server other people can reach.
pub const DEFAULT_READER_PASSWORD: &str = "sqlwitness-reader";

/// The reader's password: [`READER_PASSWORD_ENV`], else the default.
pub fn reader_password() -> String {
    std::env::var(READER_PASSWORD_ENV)
        .ok()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| DEFAULT_READER_PASSWORD.to_string())
}

/// The reader URL derived from an administrative URL: same host, port and
/// options, user [`READER_LOGIN`] with [`reader_password`]; on PostgreSQL
/// the same database (the schemas live there), on MySQL no default
/// database (the reader may use only the benchmark databases).
pub fn reader_url(kind: EngineKind, admin_url: &str) -> Result<String, EngineError> {
    let mut u = url::Url::parse(admin_url)
        .map_err(|e| EngineError::connect(kind, admin_url, format!("not a URL: {e}")))?;
    let bad = |what: &str| EngineError::connect(kind, admin_url, format!("cannot set the {what}"));
    u.set_username(READER_LOGIN).map_err(|_| bad("user"))?;
    u.set_password(Some(&reader_password()))
        .map_err(|_| bad("password"))?;
    if sqlwitness_dialect::shipped(kind).adapter == sqlwitness_dialect::Adapter::Mysql {
        u.set_path("");
    }
    Ok(u.to_string())
}

/// A single-quoted SQL string literal (quotes doubled; backslashes doubled
/// too, for MySQL without `NO_BACKSLASH_ESCAPES`).
#[cfg_attr(not(any(feature = "postgres", feature = "mysql")), allow(dead_code))]
pub(crate) fn literal(s: &str, backslashes: bool) -> String {
    let mut out = s.replace('\'', "''");
    if backslashes {
        out = out.replace('\\', "\\\\");
    }
    format!("'{out}'")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_urls_keep_the_server_and_change_the_login() {
        let pg = reader_url(EngineKind::Postgres, "postgres://root@127.0.0.1:5432/test").unwrap();
        assert!(pg.starts_with("postgres://sqlwitness_reader:"), "{pg}");
        assert!(pg.ends_with("@127.0.0.1:5432/test"), "{pg}");
        let my = reader_url(
            EngineKind::Mysql,
            "mysql://root:pw@127.0.0.1:3306/test?ssl-mode=disabled",
        )
        .unwrap();
        assert!(my.starts_with("mysql://sqlwitness_reader:"), "{my}");
        assert!(my.ends_with("@127.0.0.1:3306?ssl-mode=disabled"), "{my}");
        assert!(!my.contains("root") && !my.contains(":pw@"), "{my}");
        assert!(reader_url(EngineKind::Postgres, "not a url").is_err());
    }

    #[test]
    fn literals_escape_quotes_and_backslashes() {
        assert_eq!(literal("a'b\\c", true), "'a''b\\\\c'");
        assert_eq!(literal("a'b\\c", false), "'a''b\\c'");
    }
}
