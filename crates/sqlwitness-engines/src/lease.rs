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
/// lease whose objects could not all be dropped keeps its records, for the
/// next sweep.
#[cfg(any(feature = "postgres", feature = "mysql"))]
pub(crate) async fn sweep_registry(r: &mut impl Registry) -> Result<Vec<String>, sqlx::Error> {
    if !r.exists().await? {
        return Ok(Vec::new());
    }
    let mut swept = Vec::new();
    for lease in r.leases().await? {
        if !r.try_take(&lease).await? {
            continue; // A run still going.
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

#[cfg_attr(
    not(any(feature = "postgres", feature = "mysql")),
    allow(unused_variables)
)]
fn remove(kind: EngineKind, admin_url: &str, lease: &str, items: &[Leased]) -> Result<(), DbError> {
    match sqlwitness_dialect::shipped(kind).adapter {
        #[cfg(feature = "postgres")]
        sqlwitness_dialect::Adapter::Postgres => {
            crate::postgres::lease::remove(admin_url, lease, items)
        }
        #[cfg(feature = "mysql")]
        sqlwitness_dialect::Adapter::Mysql => crate::mysql::lease::remove(admin_url, lease, items),
        _ => Ok(()),
    }
}

/// Sweeps the server of `admin_url`: every record whose lease no session
/// holds (a run that was killed) has its sessions ended and is dropped,
/// with its record. Once per server and process; what was dropped, as
/// `kind name`.
#[cfg_attr(
    not(any(feature = "postgres", feature = "mysql")),
    allow(unused_variables)
)]
pub fn sweep(kind: EngineKind, admin_url: &str) -> Result<Vec<String>, DbError> {
    {
        let mut swept = SWEPT.lock().unwrap_or_else(|e| e.into_inner());
        if swept.iter().any(|(k, u)| *k == kind && u == admin_url) {
            return Ok(Vec::new());
        }
        swept.push((kind, admin_url.to_string()));
    }
    match sqlwitness_dialect::shipped(kind).adapter {
        #[cfg(feature = "postgres")]
        sqlwitness_dialect::Adapter::Postgres => crate::postgres::lease::sweep(admin_url),
        #[cfg(feature = "mysql")]
        sqlwitness_dialect::Adapter::Mysql => crate::mysql::lease::sweep(admin_url),
        _ => Ok(Vec::new()),
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
#[cfg(any(feature = "postgres", feature = "mysql"))]
pub(crate) struct HeldLease {
    rt: tokio::runtime::Runtime,
    conn: LeaseConn,
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
impl HeldLease {
    /// Takes `lease` on a new administrative session of `admin_url` and
    /// records `items` under it, before they are created.
    pub(crate) fn take(
        kind: EngineKind,
        admin_url: &str,
        lease: &str,
        items: Vec<Leased>,
    ) -> Result<HeldLease, DbError> {
        use sqlx::Connection;
        let rt = crate::server::blocking_runtime()?;
        let conn = match sqlwitness_dialect::shipped(kind).adapter {
            #[cfg(feature = "postgres")]
            sqlwitness_dialect::Adapter::Postgres => {
                let mut c = rt
                    .block_on(sqlx::PgConnection::connect(admin_url))
                    .map_err(crate::server::driver_error)?;
                rt.block_on(crate::postgres::lease::record(&mut c, lease, &items))
                    .map_err(crate::server::driver_error)?;
                LeaseConn::Pg(c)
            }
            #[cfg(feature = "mysql")]
            sqlwitness_dialect::Adapter::Mysql => {
                let mut c = rt
                    .block_on(sqlx::MySqlConnection::connect(admin_url))
                    .map_err(crate::server::driver_error)?;
                rt.block_on(crate::mysql::lease::record(&mut c, lease, &items))
                    .map_err(crate::server::driver_error)?;
                LeaseConn::My(c)
            }
            #[allow(unreachable_patterns)]
            _ => {
                return Err(DbError::connection(format!(
                    "{kind}: no lease on this engine"
                )))
            }
        };
        hold(kind, admin_url, lease, items);
        Ok(HeldLease {
            rt,
            conn,
            lease: lease.to_string(),
        })
    }

    /// Records `item` under the lease, before it is created.
    pub(crate) fn record(
        &mut self,
        kind: EngineKind,
        admin_url: &str,
        item: Leased,
    ) -> Result<(), DbError> {
        let items = [item.clone()];
        match &mut self.conn {
            #[cfg(feature = "postgres")]
            LeaseConn::Pg(c) => self
                .rt
                .block_on(crate::postgres::lease::record_more(c, &self.lease, &items))
                .map_err(crate::server::driver_error)?,
            #[cfg(feature = "mysql")]
            LeaseConn::My(c) => self
                .rt
                .block_on(crate::mysql::lease::record_more(c, &self.lease, &items))
                .map_err(crate::server::driver_error)?,
        }
        let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
        match held.iter_mut().find(|h| h.lease == self.lease) {
            Some(h) => h.items.push(item),
            None => held.push(Held {
                kind,
                admin_url: admin_url.to_string(),
                lease: self.lease.clone(),
                items: vec![item],
            }),
        }
        Ok(())
    }

    /// What the lease recorded is gone: its records are deleted and it is
    /// let go.
    pub(crate) fn end(self) {
        use sqlx::Connection;
        let HeldLease { rt, conn, lease } = self;
        match conn {
            #[cfg(feature = "postgres")]
            LeaseConn::Pg(mut c) => {
                let _ = rt.block_on(crate::postgres::lease::release(&mut c, &lease));
                let _ = rt.block_on(c.close());
            }
            #[cfg(feature = "mysql")]
            LeaseConn::My(mut c) => {
                let _ = rt.block_on(crate::mysql::lease::release(&mut c, &lease));
                let _ = rt.block_on(c.close());
            }
        }
        let_go(&lease);
    }
}

/// A lease of one run on one server, under which the namespaces the run
/// makes for itself alone (a suite instance's copy) are recorded before
/// they are made: a run killed outright leaves them to the next command's
/// sweep ([`sweep`]), which drops those holding sqlwitness's stamp.
#[cfg(any(feature = "postgres", feature = "mysql"))]
pub struct RunLease {
    kind: EngineKind,
    admin_url: String,
    held: Option<HeldLease>,
}

#[cfg(any(feature = "postgres", feature = "mysql"))]
impl RunLease {
    /// Takes a lease of its own on the server of `admin_url`.
    pub fn take(kind: EngineKind, admin_url: &str) -> Result<RunLease, DbError> {
        let name = format!("run_{}", &crate::fresh_password()[..16]);
        let held = HeldLease::take(kind, admin_url, &name, Vec::new())?;
        Ok(RunLease {
            kind,
            admin_url: admin_url.to_string(),
            held: Some(held),
        })
    }

    /// Records namespace `ns`, before it is made.
    pub fn record_namespace(&mut self, ns: &str) -> Result<(), DbError> {
        match &mut self.held {
            Some(h) => h.record(
                self.kind,
                &self.admin_url,
                Leased::Namespace(ns.to_string()),
            ),
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
        let Some(h) = &mut self.held else { return };
        let lease = h.lease.clone();
        match &mut h.conn {
            #[cfg(feature = "postgres")]
            LeaseConn::Pg(c) => {
                let _ = h.rt.block_on(crate::postgres::lease::forget(c, &lease, ns));
            }
            #[cfg(feature = "mysql")]
            LeaseConn::My(c) => {
                let _ = h.rt.block_on(crate::mysql::lease::forget(c, &lease, ns));
            }
        }
        let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(entry) = held.iter_mut().find(|e| e.lease == lease) {
            entry
                .items
                .retain(|i| *i != Leased::Namespace(ns.to_string()));
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
