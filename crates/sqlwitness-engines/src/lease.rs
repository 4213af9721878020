//! Leases: what sqlwitness creates on a server for the length of one run (a
//! dump's database and its loader login) is recorded on that server before
//! it is created, under a lease held by the creating session (PostgreSQL:
//! an advisory lock; MySQL and MariaDB: a named lock). Both end with the
//! session, however the run ends.
//!
//! * A run that ends normally drops what it made and its record.
//! * An interrupted run (SIGINT, SIGTERM) drops what it still holds
//!   ([`remove_held`], which the command line's interrupt handler calls).
//! * A run killed outright leaves its records with no lease: the next
//!   command against that server ([`sweep`], called as sqlwitness first
//!   reaches a server with an administrative login) ends their sessions and
//!   drops them. A record whose lease is held belongs to a run still going
//!   and is left alone, so two runs never sweep each other.
//! * A run whose lease session ends while it goes on (a dropped
//!   connection, a server restart) takes its lease again ([`HeldLease`]);
//!   a sweep gives it the time to ([`sweep_registry`]).
//!
//! Nothing is swept that has no record: sqlwitness never drops what it did
//! not create.

#![cfg_attr(
    not(any(feature = "postgres", feature = "mysql")),
    allow(dead_code, reason = "a build without server engines leases nothing")
)]

use std::sync::Mutex;

use sqlwitness_core::{DbError, EngineKind};

/// The schema (PostgreSQL, in the administrative login's database) or
/// database (MySQL, MariaDB) holding the records.
pub const REGISTRY: &str = "sqlwitness_registry";

/// One thing recorded under a lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Leased {
    Database(String),
    Login(String),
    /// A benchmark namespace made for one run (a suite instance's copy):
    /// PostgreSQL's schema, MySQL's database; dropped only while it holds
    /// sqlwitness's stamp, or nothing at all.
    Namespace(String),
}

impl Leased {
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Leased::Database(_) => "database",
            Leased::Login(_) => "login",
            Leased::Namespace(_) => "namespace",
        }
    }

    pub(crate) fn name(&self) -> &str {
        match self {
            Leased::Database(n) | Leased::Login(n) | Leased::Namespace(n) => n,
        }
    }

    pub(crate) fn from_row(kind: &str, name: String) -> Option<Leased> {
        match kind {
            "database" => Some(Leased::Database(name)),
            "login" => Some(Leased::Login(name)),
            "namespace" => Some(Leased::Namespace(name)),
            _ => None,
        }
    }
}

/// The records on one server family, as a sweep and a removal use them:
/// what they do with them is the same on every server.
#[cfg(any(feature = "postgres", feature = "mysql"))]
#[allow(async_fn_in_trait, reason = "used on a current-thread runtime only")]
pub(crate) trait Registry {
    /// Whether the server has the records' table.
    async fn exists(&mut self) -> Result<bool, sqlx::Error>;
    /// Every lease with a record.
    async fn leases(&mut self) -> Result<Vec<String>, sqlx::Error>;
    /// Takes `lease` when no session holds it (its run is over).
    async fn try_take(&mut self, lease: &str) -> Result<bool, sqlx::Error>;
    /// Whether the server started less than `grace` ago and every record
    /// of `lease` was made before it started: the holder's session ended
    /// with the restart, and the holder (a run still going) may be
    /// reconnecting to take its lease again.
    async fn restarted_under(
        &mut self,
        lease: &str,
        grace: std::time::Duration,
    ) -> Result<bool, sqlx::Error>;
    /// Lets `lease` go.
    async fn let_go(&mut self, lease: &str) -> Result<(), sqlx::Error>;
    /// What `lease` recorded.
    async fn items(&mut self, lease: &str) -> Result<Vec<Leased>, sqlx::Error>;
    /// Ends the sessions of `items` and drops them (a namespace only while
    /// it holds the stamp, or nothing); what was dropped, as `kind name`.
    async fn drop_items(&mut self, items: &[Leased]) -> Result<Vec<String>, sqlx::Error>;
    /// Deletes the records of `lease`.
    async fn delete(&mut self, lease: &str) -> Result<(), sqlx::Error>;
}

/// Sweeps the records no session holds a lease for; what was dropped. A
/// lease found free is looked at again [`RECHECK_AFTER`] later (let go in
/// between): a run whose session ended while it goes on takes its lease
/// again within that time, and only a lease still free then is a killed
/// run's. A lease whose objects could not all be dropped keeps its records,
/// for the next sweep.
#[cfg(any(feature = "postgres", feature = "mysql"))]
pub(crate) async fn sweep_registry(r: &mut impl Registry) -> Result<Vec<String>, sqlx::Error> {
    if !r.exists().await? {
        return Ok(Vec::new());
    }
    let mut free = Vec::new();
    for lease in r.leases().await? {
        if r.try_take(&lease).await? {
            r.let_go(&lease).await?;
            free.push(lease);
        }
    }
    if free.is_empty() {
        return Ok(Vec::new());
    }
    tokio::time::sleep(RECHECK_AFTER).await;
    let mut swept = Vec::new();
    for lease in free {
        if !r.try_take(&lease).await? {
            continue; // Taken again: a run still going.
        }
        if r.restarted_under(&lease, RETAKE_GRACE).await? {
            // Its run may be going still, taking its lease again.
            r.let_go(&lease).await?;
            continue;
        }
        let items = r.items(&lease).await?;
        if let Ok(dropped) = r.drop_items(&items).await {
            swept.extend(dropped);
            r.delete(&lease).await?;
        }
        r.let_go(&lease).await?;
    }
    Ok(swept)
}

/// How long a sweep waits before it takes a free lease for a killed run's:
/// longer than a held lease's watcher needs to notice its session ended
/// and take the lease again ([`WATCH_EVERY`] and a connection).
#[cfg(any(feature = "postgres", feature = "mysql"))]
const RECHECK_AFTER: std::time::Duration = std::time::Duration::from_secs(3);

/// How long after a server starts the records made before it are left to
/// their holders: a restart ends every session, the lease's too, and a run
/// still going takes its lease again within seconds ([`HeldLease`]'s
/// watcher); a run that was killed leaves them to a sweep after this.
#[cfg(any(feature = "postgres", feature = "mysql"))]
pub(crate) const RETAKE_GRACE: std::time::Duration = std::time::Duration::from_secs(60);

/// Drops `items`, which `lease` recorded, and its records: the lease's own
/// holder is this process (an interrupted run).
#[cfg(any(feature = "postgres", feature = "mysql"))]
pub(crate) async fn remove_recorded(
    r: &mut impl Registry,
    lease: &str,
    items: &[Leased],
) -> Result<(), sqlx::Error> {
    r.drop_items(items).await?;
    if r.exists().await? {
        r.delete(lease).await?;
    }
    Ok(())
}

/// Runs `work` over a fresh administrative session of `admin_url` (after
/// `setup`, which bounds its lock waits), within [`SWEEP_LIMIT`]; `err`
/// classes a driver error.
#[cfg(any(feature = "postgres", feature = "mysql"))]
pub(crate) fn on_fresh<C, T>(
    admin_url: &str,
    setup: &'static str,
    err: fn(sqlx::Error) -> DbError,
    work: impl AsyncFnOnce(&mut C) -> Result<T, sqlx::Error>,
) -> Result<T, DbError>
where
    C: sqlx::Connection,
    for<'c> &'c mut C: sqlx::Executor<'c>,
{
    let rt = crate::server::blocking_runtime()?;
    rt.block_on(async {
        let go = async {
            let mut c = C::connect(admin_url).await?;
            sqlx::Executor::execute(&mut c, setup).await?;
            let out = work(&mut c).await;
            let _ = c.close().await;
            out
        };
        match tokio::time::timeout(SWEEP_LIMIT, go).await {
            Ok(r) => r.map_err(err),
            Err(_) => Err(DbError::timeout(
                "sweeping what an earlier run left took too long",
            )),
        }
    })
}

/// The time a sweep or a removal may take on one server.
#[cfg(any(feature = "postgres", feature = "mysql"))]
const SWEEP_LIMIT: std::time::Duration = std::time::Duration::from_secs(20);

/// A lease this process holds: removed by [`remove_held`] on an interrupt.
#[derive(Debug, Clone)]
struct Held {
    kind: EngineKind,
    admin_url: String,
    lease: String,
    items: Vec<Leased>,
}

static HELD: Mutex<Vec<Held>> = Mutex::new(Vec::new());

/// Servers already swept by this process.
static SWEPT: Mutex<Vec<(EngineKind, String)>> = Mutex::new(Vec::new());

pub(crate) fn hold(kind: EngineKind, admin_url: &str, lease: &str, items: Vec<Leased>) {
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    held.retain(|h| h.lease != lease);
    held.push(Held {
        kind,
        admin_url: admin_url.to_string(),
        lease: lease.to_string(),
        items,
    });
}

pub(crate) fn let_go(lease: &str) {
    HELD.lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|h| h.lease != lease);
}

/// Drops what this process holds under its leases (a dump's database and
/// loader login, ending their sessions) over fresh administrative
/// sessions: for an interrupted run, before the process exits. Best effort,
/// each server within a few seconds; what remains is swept by the next
/// command.
pub fn remove_held() {
    let held: Vec<Held> = std::mem::take(&mut *HELD.lock().unwrap_or_else(|e| e.into_inner()));
    for h in held {
        let _ = remove(h.kind, &h.admin_url, &h.lease, &h.items);
    }
}

fn remove(kind: EngineKind, admin_url: &str, lease: &str, items: &[Leased]) -> Result<(), DbError> {
    match crate::family::of_kind(kind).and_then(|f| f.leases) {
        Some(leases) => (leases.remove)(admin_url, lease, items),
        None => Ok(()),
    }
}

/// Sweeps the server of `admin_url`: every record whose lease no session
/// holds (a run that was killed) has its sessions ended and is dropped,
/// with its record. Once per server and process; what was dropped, as
/// `kind name`.
pub fn sweep(kind: EngineKind, admin_url: &str) -> Result<Vec<String>, DbError> {
    {
        let mut swept = SWEPT.lock().unwrap_or_else(|e| e.into_inner());
        if swept.iter().any(|(k, u)| *k == kind && u == admin_url) {
            return Ok(Vec::new());
        }
        swept.push((kind, admin_url.to_string()));
    }
    match crate::family::of_kind(kind).and_then(|f| f.leases) {
        Some(leases) => (leases.sweep)(admin_url),
        None => Ok(Vec::new()),
    }
}

/// [`sweep`] again even when this process swept the server already (tests).
pub fn sweep_again(kind: EngineKind, admin_url: &str) -> Result<Vec<String>, DbError> {
    SWEPT
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|(k, u)| !(*k == kind && u == admin_url));
    sweep(kind, admin_url)
}

/// A lease taken by a session of its own, held while the value lives: what
/// a run keeps for its whole length (its run login) is recorded under it.
/// [`HeldLease::end`] deletes the records (what they name is gone) and
/// lets the lease go; a run killed before that leaves them to a sweep.
///
/// A watcher thread checks the session every [`WATCH_EVERY`]: when it has
/// ended (a dropped connection; a server restart ends every session, and
/// the lease with it), it connects again, takes the lease again and
/// records its items again, so that another run's sweep never takes a run
/// still going for one that was killed (a sweep looks at a free lease
/// again [`RECHECK_AFTER`] later, and leaves records made before a restart
/// to their holders for [`RETAKE_GRACE`]).
#[cfg(any(feature = "postgres", feature = "mysql"))]
pub(crate) struct HeldLease {
    session: std::sync::Arc<Mutex<LeaseSession>>,
    stop: Option<std::sync::mpsc::Sender<()>>,
    watcher: Option<std::thread::JoinHandle<()>>,
}

/// How often a held lease's session is checked.
#[cfg(any(feature = "postgres", feature = "mysql"))]
const WATCH_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// The time a check of the session, or taking the lease again, may take.
#[cfg(any(feature = "postgres", feature = "mysql"))]
const RETAKE_LIMIT: std::time::Duration = std::time::Duration::from_secs(15);

#[cfg(any(feature = "postgres", feature = "mysql"))]
struct LeaseSession {
    rt: tokio::runtime::Runtime,
    /// `None` while the session is lost and not yet made again.
    conn: Option<LeaseConn>,
    kind: EngineKind,
    admin_url: String,
    lease: String,
}

#[cfg(any(feature = "postgres", feature = "mysql"))]
enum LeaseConn {
    #[cfg(feature = "postgres")]
    Pg(sqlx::PgConnection),
    #[cfg(feature = "mysql")]
    My(sqlx::MySqlConnection),
}

#[cfg(any(feature = "postgres", feature = "mysql"))]
impl LeaseSession {
    /// A new administrative session holding the lease, with `items`
    /// recorded under it.
    fn connect(&self, items: &[Leased]) -> Result<LeaseConn, DbError> {
        use sqlx::Connection;
        let (url, lease) = (&self.admin_url, &self.lease);
        let work = async {
            match sqlwitness_dialect::shipped(self.kind).adapter {
                #[cfg(feature = "postgres")]
                sqlwitness_dialect::Adapter::Postgres => {
                    let mut c = sqlx::PgConnection::connect(url).await?;
                    crate::postgres::lease::record(&mut c, lease, items).await?;
                    Ok(Some(LeaseConn::Pg(c)))
                }
                #[cfg(feature = "mysql")]
                sqlwitness_dialect::Adapter::Mysql => {
                    let mut c = sqlx::MySqlConnection::connect(url).await?;
                    crate::mysql::lease::record(&mut c, lease, items).await?;
                    Ok(Some(LeaseConn::My(c)))
                }
                #[allow(unreachable_patterns)]
                _ => Ok::<_, sqlx::Error>(None),
            }
        };
        match self.rt.block_on(work) {
            Ok(Some(c)) => Ok(c),
            Ok(None) => Err(DbError::connection(format!(
                "{}: no lease on this engine",
                self.kind
            ))),
            Err(e) => Err(crate::server::driver_error(e)),
        }
    }

    /// Whether the session still answers, within [`RETAKE_LIMIT`].
    fn alive(&mut self) -> bool {
        use sqlx::Connection;
        let Some(conn) = &mut self.conn else {
            return false;
        };
        let ping = async {
            match conn {
                #[cfg(feature = "postgres")]
                LeaseConn::Pg(c) => c.ping().await,
                #[cfg(feature = "mysql")]
                LeaseConn::My(c) => c.ping().await,
            }
        };
        let rt = &self.rt;
        matches!(
            rt.block_on(async { tokio::time::timeout(RETAKE_LIMIT, ping).await }),
            Ok(Ok(()))
        )
    }

    /// Makes the session again when it has ended; whether it holds the
    /// lease now.
    fn keep(&mut self) -> bool {
        if self.alive() {
            return true;
        }
        self.conn = None;
        // What the lease holds now, as this process records it.
        let items = HELD
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|h| h.lease == self.lease)
            .map(|h| h.items.clone())
            .unwrap_or_default();
        match self.connect(&items) {
            Ok(c) => {
                self.conn = Some(c);
                true
            }
            Err(_) => false, // The server is not back yet: the next check.
        }
    }

    /// Runs `work` on the session, made again first when it has ended.
    fn with<T>(
        &mut self,
        work: impl AsyncFnOnce(&mut LeaseConn, &str) -> Result<T, sqlx::Error>,
    ) -> Result<T, DbError> {
        if !self.keep() {
            return Err(DbError::connection("the run's lease session is lost"));
        }
        let conn = self.conn.as_mut().expect("kept");
        let out = self.rt.block_on(work(conn, &self.lease));
        out.map_err(crate::server::driver_error)
    }
}

#[cfg(any(feature = "postgres", feature = "mysql"))]
impl HeldLease {
    /// Takes `lease` on a new administrative session of `admin_url` and
    /// records `items` under it, before they are created.
    pub(crate) fn take(
        kind: EngineKind,
        admin_url: &str,
        lease: &str,
        items: Vec<Leased>,
    ) -> Result<HeldLease, DbError> {
        let mut session = LeaseSession {
            rt: crate::server::blocking_runtime()?,
            conn: None,
            kind,
            admin_url: admin_url.to_string(),
            lease: lease.to_string(),
        };
        session.conn = Some(session.connect(&items)?);
        hold(kind, admin_url, lease, items);
        let session = std::sync::Arc::new(Mutex::new(session));
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let watched = std::sync::Arc::clone(&session);
        let watcher = std::thread::Builder::new()
            .name("sqlwitness-lease".into())
            .spawn(move || {
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                    stopped.recv_timeout(WATCH_EVERY)
                {
                    watched.lock().unwrap_or_else(|e| e.into_inner()).keep();
                }
            })
            .map_err(|e| DbError::connection(format!("cannot watch the lease: {e}")))?;
        Ok(HeldLease {
            session,
            stop: Some(stop),
            watcher: Some(watcher),
        })
    }

    fn session(&self) -> std::sync::MutexGuard<'_, LeaseSession> {
        self.session.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records `item` under the lease, before it is created.
    pub(crate) fn record(&mut self, item: Leased) -> Result<(), DbError> {
        let items = [item.clone()];
        let mut s = self.session();
        s.with(async |conn, lease| match conn {
            #[cfg(feature = "postgres")]
            LeaseConn::Pg(c) => crate::postgres::lease::record_more(c, lease, &items).await,
            #[cfg(feature = "mysql")]
            LeaseConn::My(c) => crate::mysql::lease::record_more(c, lease, &items).await,
        })?;
        let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
        match held.iter_mut().find(|h| h.lease == s.lease) {
            Some(h) => h.items.push(item),
            None => held.push(Held {
                kind: s.kind,
                admin_url: s.admin_url.clone(),
                lease: s.lease.clone(),
                items: vec![item],
            }),
        }
        Ok(())
    }

    /// Deletes the record of namespace `ns` (it has been dropped).
    fn forget(&mut self, ns: &str) {
        let mut s = self.session();
        let _ = s.with(async |conn, lease| match conn {
            #[cfg(feature = "postgres")]
            LeaseConn::Pg(c) => crate::postgres::lease::forget(c, lease, ns).await,
            #[cfg(feature = "mysql")]
            LeaseConn::My(c) => crate::mysql::lease::forget(c, lease, ns).await,
        });
        let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(entry) = held.iter_mut().find(|e| e.lease == s.lease) {
            entry
                .items
                .retain(|i| *i != Leased::Namespace(ns.to_string()));
        }
    }

    /// Stops the watcher.
    fn stop_watching(&mut self) {
        drop(self.stop.take());
        if let Some(w) = self.watcher.take() {
            let _ = w.join();
        }
    }

    /// What the lease recorded is gone: its records are deleted and it is
    /// let go.
    pub(crate) fn end(mut self) {
        use sqlx::Connection;
        self.stop_watching();
        let mut s = self.session();
        let _ = s.with(async |conn, lease| match conn {
            #[cfg(feature = "postgres")]
            LeaseConn::Pg(c) => crate::postgres::lease::release(c, lease).await,
            #[cfg(feature = "mysql")]
            LeaseConn::My(c) => crate::mysql::lease::release(c, lease).await,
        });
        if let Some(conn) = s.conn.take() {
            let _ = match conn {
                #[cfg(feature = "postgres")]
                LeaseConn::Pg(c) => s.rt.block_on(c.close()),
                #[cfg(feature = "mysql")]
                LeaseConn::My(c) => s.rt.block_on(c.close()),
            };
        }
        let_go(&s.lease);
    }
}

#[cfg(any(feature = "postgres", feature = "mysql"))]
impl Drop for HeldLease {
    fn drop(&mut self) {
        self.stop_watching();
    }
}

/// A lease of one run on one server, under which the namespaces the run
/// makes for itself alone (a suite instance's copy) are recorded before
/// they are made: a run killed outright leaves them to the next command's
/// sweep ([`sweep`]), which drops those holding sqlwitness's stamp.
#[cfg(any(feature = "postgres", feature = "mysql"))]
pub struct RunLease {
    held: Option<HeldLease>,
}

#[cfg(any(feature = "postgres", feature = "mysql"))]
impl RunLease {
    /// Takes a lease of its own on the server of `admin_url`.
    pub fn take(kind: EngineKind, admin_url: &str) -> Result<RunLease, DbError> {
        let name = format!("run_{}", &crate::fresh_password()[..16]);
        let held = HeldLease::take(kind, admin_url, &name, Vec::new())?;
        Ok(RunLease { held: Some(held) })
    }

    /// Records namespace `ns`, before it is made.
    pub fn record_namespace(&mut self, ns: &str) -> Result<(), DbError> {
        match &mut self.held {
            Some(h) => h.record(Leased::Namespace(ns.to_string())),
            None => Err(DbError::connection("the run's lease has ended")),
        }
    }

    /// What the lease recorded is gone: its records go with it.
    pub fn end(mut self) {
        if let Some(h) = self.held.take() {
            h.end();
        }
    }
}

#[cfg(any(feature = "postgres", feature = "mysql"))]
impl Drop for RunLease {
    fn drop(&mut self) {
        if let Some(h) = self.held.take() {
            h.end();
        }
    }
}

#[cfg(any(feature = "postgres", feature = "mysql"))]
impl RunLease {
    /// Deletes the record of namespace `ns` (it has been dropped).
    fn forget(&mut self, ns: &str) {
        if let Some(h) = &mut self.held {
            h.forget(ns);
        }
    }
}

/// The process's own lease on each server, for the scratch namespaces its
/// runs make one at a time ([`lease_namespace`]).
#[cfg(any(feature = "postgres", feature = "mysql"))]
static SCRATCH: Mutex<Vec<(EngineKind, String, RunLease)>> = Mutex::new(Vec::new());

/// Records scratch namespace `ns` (a fuzz candidate's or a perturbed
/// database's copy, made for one run and dropped by it) on the server of
/// `admin_url` before it is made, under a lease this process holds while
/// it lives: a run killed before it could drop the namespace leaves it to
/// the next command's sweep. [`unlease_namespace`] once it is dropped.
#[cfg(not(any(feature = "postgres", feature = "mysql")))]
pub fn lease_namespace(_kind: EngineKind, _admin_url: &str, _ns: &str) -> Result<(), DbError> {
    Ok(())
}

/// [`lease_namespace`]'s counterpart (nothing without a server engine).
#[cfg(not(any(feature = "postgres", feature = "mysql")))]
pub fn unlease_namespace(_kind: EngineKind, _admin_url: &str, _ns: &str) {}

/// Records scratch namespace `ns` (see above).
#[cfg(any(feature = "postgres", feature = "mysql"))]
pub fn lease_namespace(kind: EngineKind, admin_url: &str, ns: &str) -> Result<(), DbError> {
    // A family without leases (DuckDB's copies are files of its own
    // folder) records nothing.
    if crate::family::of_kind(kind)
        .and_then(|f| f.leases)
        .is_none()
    {
        return Ok(());
    }
    let mut all = SCRATCH.lock().unwrap_or_else(|e| e.into_inner());
    if !all.iter().any(|(k, u, _)| *k == kind && u == admin_url) {
        all.push((
            kind,
            admin_url.to_string(),
            RunLease::take(kind, admin_url)?,
        ));
    }
    let (_, _, lease) = all
        .iter_mut()
        .find(|(k, u, _)| *k == kind && u == admin_url)
        .expect("just added");
    lease.record_namespace(ns)
}

/// The scratch namespace `ns` is dropped: its record goes.
#[cfg(any(feature = "postgres", feature = "mysql"))]
pub fn unlease_namespace(kind: EngineKind, admin_url: &str, ns: &str) {
    let mut all = SCRATCH.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, lease)) = all
        .iter_mut()
        .find(|(k, u, _)| *k == kind && u == admin_url)
    {
        lease.forget(ns);
    }
}

#[cfg(all(test, feature = "postgres", feature = "mysql"))]
mod tests {
    use super::*;
    use sqlx::{AssertSqlSafe, Connection, Executor};

    const LONG: std::time::Duration = std::time::Duration::from_secs(100 * 365 * 24 * 3600);
    const SHORT: std::time::Duration = std::time::Duration::from_secs(1);

    /// The sweep's restart rule, read on each server: records all made
    /// before the server started are their holder's to take again while
    /// the server is young (here, a grace longer than the server's age),
    /// never once it is older; a record made since the start is a killed
    /// run's, at once.
    #[test]
    fn records_older_than_the_server_are_left_to_their_holder_for_a_while() {
        sqlwitness_testkit::for_each_server(None, |kind, url| {
            let lease = sqlwitness_testkit::unique_name("restart_rule");
            let items = [Leased::Namespace(lease.clone())];
            let rt = crate::server::blocking_runtime().unwrap();
            let table = format!("{REGISTRY}.leases");
            let (backdated, now_again) = match sqlwitness_dialect::shipped(kind).adapter {
                sqlwitness_dialect::Adapter::Postgres => rt.block_on(async {
                    let mut c = sqlx::PgConnection::connect(url).await.unwrap();
                    crate::postgres::lease::record(&mut c, &lease, &items)
                        .await
                        .unwrap();
                    let set = |when: &str| {
                        format!("UPDATE {table} SET created = {when} WHERE lease = '{lease}'")
                    };
                    c.execute(AssertSqlSafe(set("'2000-01-01'"))).await.unwrap();
                    let backdated = (
                        c.restarted_under(&lease, LONG).await.unwrap(),
                        c.restarted_under(&lease, SHORT).await.unwrap(),
                    );
                    c.execute(AssertSqlSafe(set("now()"))).await.unwrap();
                    let now_again = c.restarted_under(&lease, LONG).await.unwrap();
                    crate::postgres::lease::release(&mut c, &lease)
                        .await
                        .unwrap();
                    (backdated, now_again)
                }),
                _ => rt.block_on(async {
                    let mut c = sqlx::MySqlConnection::connect(url).await.unwrap();
                    crate::mysql::lease::record(&mut c, &lease, &items)
                        .await
                        .unwrap();
                    let set = |when: &str| {
                        format!("UPDATE {table} SET created = {when} WHERE lease = '{lease}'")
                    };
                    c.execute(AssertSqlSafe(set("'2000-01-01'"))).await.unwrap();
                    let backdated = (
                        c.restarted_under(&lease, LONG).await.unwrap(),
                        c.restarted_under(&lease, SHORT).await.unwrap(),
                    );
                    c.execute(AssertSqlSafe(set("CURRENT_TIMESTAMP")))
                        .await
                        .unwrap();
                    let now_again = c.restarted_under(&lease, LONG).await.unwrap();
                    crate::mysql::lease::release(&mut c, &lease).await.unwrap();
                    (backdated, now_again)
                }),
            };
            assert_eq!(
                backdated,
                (true, false),
                "{kind}: records made before the start"
            );
            assert!(!now_again, "{kind}: a record made since the start");
        });
    }
}
