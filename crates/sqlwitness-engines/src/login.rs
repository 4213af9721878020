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
/// database (the reader may use only the benchmark databases). An engine
/// holding its copies in files (DuckDB) has no logins: its URL as given.
pub fn reader_url(kind: EngineKind, admin_url: &str) -> Result<String, EngineError> {
    use sqlwitness_dialect::EngineFacts;
    if !kind.is_server() {
        // Copies in files of the engine's own: no login, the same URL.
        return Ok(admin_url.to_string());
    }
    login_url(kind, admin_url, READER_LOGIN, &reader_password())
}

/// `admin_url` with another login: same host, port and options; on MySQL
/// no default database.
fn login_url(
    kind: EngineKind,
    admin_url: &str,
    user: &str,
    password: &str,
) -> Result<String, EngineError> {
    let mut u = url::Url::parse(admin_url)
        .map_err(|e| EngineError::connect(kind, admin_url, format!("not a URL: {e}")))?;
    let bad = |what: &str| EngineError::connect(kind, admin_url, format!("cannot set the {what}"));
    u.set_username(user).map_err(|_| bad("user"))?;
    u.set_password(Some(password))
        .map_err(|_| bad("password"))?;
    if crate::family::logins(kind).is_some_and(|l| l.url_without_database) {
        u.set_path("");
    }
    Ok(u.to_string())
}

/// The connection options of `kind`'s own command-line client for the
/// server of `url`, where that client takes no URL (the mysql client:
/// [`mysql_client_options`]); empty for every other engine.
pub fn client_options(kind: EngineKind, url: &str) -> Vec<String> {
    crate::family::of_kind(kind)
        .and_then(|f| f.client_options)
        .map_or_else(Vec::new, |options| options(url))
}

/// The connection options of the `mysql` command-line client (MySQL's and
/// MariaDB's, which take no URL) for the server of `url`: `--host`,
/// `--port` and `--user` as the URL gives them, and `--password` (asked at
/// the prompt, never written out) when it has one. Empty when `url` is not
/// a URL.
pub fn mysql_client_options(url: &str) -> Vec<String> {
    let Ok(u) = url::Url::parse(url) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(host) = u.host_str() {
        out.push(format!("--host={}", host.trim_matches(['[', ']'])));
    }
    if let Some(port) = u.port() {
        out.push(format!("--port={port}"));
    }
    if !u.username().is_empty() {
        out.push(format!("--user={}", u.username()));
    }
    if u.password().is_some() {
        out.push("--password".to_string());
    }
    out
}

/// Every run login's name begins with this; the rest is its creation time
/// (seconds since 1970, 8 hex digits) and 8 random hex digits, 32
/// characters in all (MySQL's limit for a user name).
pub const RUN_LOGIN_PREFIX: &str = "sqlwitness_run_";

/// A run login left behind (by a run that was killed) is dropped by a later
/// run once it is this old and has no session on the server. A live run
/// always has one (each server engine keeps an idle sentinel session), so
/// only a server restart at that moment could make a live run's login look
/// left behind, and only when it is older than this.
#[cfg_attr(not(any(feature = "postgres", feature = "mysql")), allow(dead_code))]
pub(crate) const RUN_LOGIN_STALE: std::time::Duration = std::time::Duration::from_secs(3600);

/// The comment that marks a PostgreSQL role as a run login sqlwitness
/// created (MySQL and MariaDB users carry no comment: the name's prefix
/// marks them).
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
pub(crate) const RUN_LOGIN_STAMP: &str = "sqlwitness run login";

/// A login of its own for one run: created over the administrative login
/// with read access to the benchmark copies and nothing else, and dropped
/// when the run ends. PostgreSQL: a member of [`READER_LOGIN`]. MySQL and
/// MariaDB: `SELECT` on the databases the run reads
/// ([`RunLogin::create_reading`]; every database the reader may read with
/// [`RunLogin::create`]), never one the reader may not read.
///
/// On MySQL and MariaDB this is the second line behind the guard: the
/// login sees no other benchmark's database, not even its name (in
/// `information_schema.SCHEMATA`, `TABLES`, `COLUMNS` or `SHOW DATABASES`),
/// no other login's session (`PROCESSLIST` lists a login's own only), no
/// `mysql.*` or `sys.*` and, on MySQL, no `performance_schema` table but
/// those every login may read. What every login may read whatever it is
/// granted is the guard's alone to refuse: server variables (`@@datadir`,
/// `SHOW VARIABLES`, MySQL's `performance_schema.global_variables` and
/// `variables_info`, MariaDB's `information_schema.GLOBAL_VARIABLES`), the
/// server's status, and the run's own sessions, which hold its other
/// queries' text (`information_schema.PROCESSLIST`; MySQL's
/// `performance_schema.processlist`).
/// `crates/sqlwitness-guard/tests/run_login_reads.rs` shows each on the
/// live servers.
///
/// Two runs on one server never share a login, so a query of one can
/// signal or kill no session of the other: PostgreSQL lets a login signal
/// only its own role's backends, MySQL lets a user kill only its own
/// connections. The login is recorded on the server under a lease its run
/// holds before it is created ([`crate::sweep`]): a run killed before it
/// could drop its login leaves it to the next command against that server,
/// which ends its sessions and drops it. (A login no record names, left by
/// an earlier version, is dropped once it is [`RUN_LOGIN_STALE`] old and
/// has no session.)
#[cfg_attr(
    not(any(feature = "postgres", feature = "mysql")),
    allow(
        dead_code,
        reason = "a build without server engines makes no run login"
    )
)]
pub struct RunLogin {
    kind: EngineKind,
    admin_url: String,
    name: String,
    url: String,
    released: std::sync::atomic::AtomicBool,
    /// The login is recorded under this lease while the run lives.
    #[cfg(any(feature = "postgres", feature = "mysql"))]
    lease: std::sync::Mutex<Option<crate::lease::HeldLease>>,
}

impl std::fmt::Debug for RunLogin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunLogin")
            .field("kind", &self.kind)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl RunLogin {
    /// Creates a run login on the server of `admin_url` (an administrative
    /// login that may create logins and grant the reader's access) that
    /// may read every benchmark copy the reader may read: for a run that
    /// cannot name its namespaces before it connects.
    pub fn create(kind: EngineKind, admin_url: &str) -> Result<RunLogin, EngineError> {
        RunLogin::make(kind, admin_url, RunReads::Reader)
    }

    /// Creates a run login on the server of `admin_url` that may read the
    /// namespaces `namespaces` (the run's own benchmark copies, as
    /// `Database::namespace` names them) where the reader may read them,
    /// and no other: a namespace made later is added with
    /// [`RunLogin::grant_database`]. PostgreSQL: the login is a member of
    /// the reader role all the same (its grants are the role's).
    pub fn create_reading(
        kind: EngineKind,
        admin_url: &str,
        namespaces: &[String],
    ) -> Result<RunLogin, EngineError> {
        RunLogin::make(kind, admin_url, RunReads::Only(namespaces))
    }

    #[cfg_attr(
        not(any(feature = "postgres", feature = "mysql")),
        allow(
            unreachable_code,
            unused_variables,
            reason = "a build without server engines makes no run login"
        )
    )]
    fn make(
        kind: EngineKind,
        admin_url: &str,
        reads: RunReads<'_>,
    ) -> Result<RunLogin, EngineError> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let logins =
            crate::family::logins(kind).ok_or(EngineError::NotCompiled { engine: kind })?;
        let name = run_login_name(now, &crate::fresh_password()[..8]);
        let password = crate::fresh_password();
        let url = login_url(kind, admin_url, &name, &password)?;
        let stale_before = now.saturating_sub(RUN_LOGIN_STALE.as_secs());
        let fail = |e: String| {
            EngineError::connect(kind, admin_url, format!("cannot create a run login: {e}"))
        };
        // Recorded under a lease of the run's before it exists: a run
        // killed from here on leaves it to the next command's sweep.
        #[cfg(any(feature = "postgres", feature = "mysql"))]
        let lease = {
            crate::sweep_quietly(kind, admin_url);
            crate::lease::HeldLease::take(
                kind,
                admin_url,
                &name,
                vec![crate::lease::Leased::Login(name.clone())],
            )
            .map_err(|e| fail(e.message))?
        };
        let made = (logins.create)(admin_url, &name, &password, stale_before, reads)
            .map_err(|e| fail(e.message));
        #[cfg(any(feature = "postgres", feature = "mysql"))]
        if let Err(e) = made {
            // Nothing, or a login half made: the sweep's once the lease ends.
            drop(lease);
            crate::lease::let_go(&name);
            return Err(e);
        }
        #[cfg(not(any(feature = "postgres", feature = "mysql")))]
        let _ = made;
        Ok(RunLogin {
            kind,
            admin_url: admin_url.to_string(),
            name,
            url,
            released: Default::default(),
            #[cfg(any(feature = "postgres", feature = "mysql"))]
            lease: std::sync::Mutex::new(Some(lease)),
        })
    }

    /// The URL queries of this run connect with.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The login's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Lets the login read database or schema `ns`, migrated after it was
    /// created (a fuzz candidate's scratch copy). PostgreSQL: nothing to
    /// do, the login inherits the reader role's grants as they are made;
    /// MySQL and MariaDB: `SELECT` on `ns` granted to the login itself,
    /// whose grants were copied from the reader's when it was created
    /// (they go with the login when it is dropped); `ns` is a namespace the
    /// run made itself, and the reader's grant on it was made with it.
    pub fn grant_database(&self, ns: &str) -> Result<(), EngineError> {
        let Some(grant) = crate::family::logins(self.kind).and_then(|l| l.grant) else {
            return Ok(());
        };
        grant(&self.admin_url, &self.name, ns).map_err(|e| {
            EngineError::connect(
                self.kind,
                &self.admin_url,
                format!(
                    "cannot grant the run login read access to {ns}: {}",
                    e.message
                ),
            )
        })
    }
}

impl RunLogin {
    /// Drops the login on the server (once; also when the value is
    /// dropped). Best effort: a login that could not be dropped now is
    /// dropped by a later run once stale.
    pub fn release(&self) {
        if self
            .released
            .swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            return;
        }
        if let Some(logins) = crate::family::logins(self.kind) {
            (logins.drop)(&self.admin_url, &self.name);
        }
        // Gone: its record and lease too.
        #[cfg(any(feature = "postgres", feature = "mysql"))]
        if let Some(lease) = self.lease.lock().unwrap_or_else(|e| e.into_inner()).take() {
            lease.end();
        }
    }
}

/// What a run login may read besides what it is granted later
/// ([`RunLogin::grant_database`]): never more than the reader.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(
    not(any(feature = "postgres", feature = "mysql")),
    allow(
        dead_code,
        reason = "a build without server engines makes no run login"
    )
)]
pub(crate) enum RunReads<'a> {
    /// Every namespace the reader may read.
    Reader,
    /// These namespaces, where the reader may read them.
    Only(&'a [String]),
}

impl Drop for RunLogin {
    fn drop(&mut self) {
        self.release();
    }
}

/// A run login's name: [`RUN_LOGIN_PREFIX`], the creation time `secs` in 8
/// hex digits, `_`, and `random` (8 hex digits).
fn run_login_name(secs: u64, random: &str) -> String {
    format!("{RUN_LOGIN_PREFIX}{:08x}_{random}", secs & 0xffff_ffff)
}

/// The creation time a run login's name records; `None` for a name that is
/// not a run login's.
#[cfg_attr(not(any(feature = "postgres", feature = "mysql")), allow(dead_code))]
pub(crate) fn run_login_created(name: &str) -> Option<u64> {
    let rest = name.strip_prefix(RUN_LOGIN_PREFIX)?;
    let (time, random) = rest.split_once('_')?;
    let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    if !hex(time, 8) || !hex(random, 8) {
        return None;
    }
    u64::from_str_radix(time, 16).ok()
}

/// Runs `f` to its end on a runtime of its own (the caller is not async):
/// creating and dropping run logins over the administrative login.
#[cfg(any(feature = "postgres", feature = "mysql"))]
pub(crate) fn block_on<T>(
    f: impl std::future::Future<Output = Result<T, sqlx::Error>>,
) -> Result<T, sqlx::Error> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(sqlx::Error::Io)?
        .block_on(f)
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
    fn the_mysql_client_gets_the_url_s_server_and_user_but_never_its_password() {
        assert_eq!(
            mysql_client_options("mysql://root@127.0.0.1:3307/test"),
            ["--host=127.0.0.1", "--port=3307", "--user=root"]
        );
        assert_eq!(
            mysql_client_options("mysql://me:s3cret@db.example/x"),
            ["--host=db.example", "--user=me", "--password"]
        );
        assert!(mysql_client_options("not a url").is_empty());
    }

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
    fn run_login_names_carry_their_creation_time() {
        let name = run_login_name(0x6567_89ab, "0123abcd");
        assert_eq!(name, "sqlwitness_run_656789ab_0123abcd");
        assert_eq!(name.len(), 32, "MySQL's limit for a user name");
        assert_eq!(run_login_created(&name), Some(0x6567_89ab));
        for other in [
            "sqlwitness_reader",
            "sqlwitness_run_656789ab",
            "sqlwitness_run_656789ab_0123abcd_x",
            "sqlwitness_run_65678zab_0123abcd",
            "sqlwitness_run_656789ab_0123abc",
            "someone_run_656789ab_0123abcd",
        ] {
            assert_eq!(run_login_created(other), None, "{other}");
        }
    }

    #[test]
    fn literals_escape_quotes_and_backslashes() {
        assert_eq!(literal("a'b\\c", true), "'a''b\\\\c'");
        assert_eq!(literal("a'b\\c", false), "'a''b\\c'");
    }
}
