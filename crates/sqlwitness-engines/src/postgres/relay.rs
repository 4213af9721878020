//! PostgreSQL connections that send at once, for the sessions that run
//! `COPY … FROM STDIN` (a dump's loader, a copy on the dump's own server,
//! a migration's writer).
//!
//! sqlx leaves Nagle's algorithm on for its TCP sockets and offers no way to
//! turn it off. A `COPY` sends its rows, then a small `CopyDone`; with the
//! rows not yet acknowledged, the kernel holds that small message until the
//! server's delayed acknowledgement comes — 40 ms on Linux, for every
//! `COPY`, however few its rows (psql sets `TCP_NODELAY` and never waits).
//! A dump of 22 tables loaded and copied spent about 2 s so.
//!
//! Such a session therefore reaches its server through a relay in this
//! process: the relay connects to the server over TCP with `TCP_NODELAY`,
//! and sqlx connects to the relay over a Unix socket in a folder of its own
//! (readable by this user only, removed once connected); the relay copies
//! bytes both ways, unread (TLS, where the URL asks for it, is negotiated
//! through it with the server, unchanged). The server sees the same TCP
//! client as before. A URL that names a Unix socket is connected as it is.
//! The relay runs on the session's own runtime, whenever the session does.

use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::ConnectOptions;

/// Connects with `opts` through a relay that sends at once (see the
/// module), or directly where the URL names a Unix socket or the platform
/// has none.
pub(crate) async fn connect(opts: &PgConnectOptions) -> Result<PgConnection, sqlx::Error> {
    #[cfg(unix)]
    if opts.get_socket().is_none() && !opts.get_host().starts_with('/') {
        return through_relay(opts).await;
    }
    opts.connect().await
}

#[cfg(unix)]
async fn through_relay(opts: &PgConnectOptions) -> Result<PgConnection, sqlx::Error> {
    let port = opts.get_port();
    let server = tokio::net::TcpStream::connect((opts.get_host(), port)).await?;
    server.set_nodelay(true)?;
    // A new folder only this user can read, holding the socket under the
    // name sqlx looks for in it. Where none can be made (no writable
    // temporary folder, a path too long for a socket), the session
    // connects directly, as it would without the relay.
    let Some((folder, listener)) = Folder::new().ok().and_then(|folder| {
        let socket = folder.0.join(format!(".s.PGSQL.{port}"));
        let listener = tokio::net::UnixListener::bind(socket).ok()?;
        Some((folder, listener))
    }) else {
        return opts.connect().await;
    };
    let relay = tokio::spawn(async move {
        let (mut local, _) = listener.accept().await?;
        drop(listener);
        let mut server = server;
        tokio::io::copy_bidirectional(&mut local, &mut server)
            .await
            .map(|_| ())
    });
    let connected = opts.clone().socket(&folder.0).connect().await;
    drop(folder);
    if connected.is_err() {
        relay.abort();
    }
    connected
}

/// A folder of its own for a relay's socket, made readable by this user
/// only, removed with what it holds when dropped.
#[cfg(unix)]
struct Folder(std::path::PathBuf);

#[cfg(unix)]
impl Folder {
    fn new() -> std::io::Result<Folder> {
        use std::os::unix::fs::DirBuilderExt;
        let path = std::env::temp_dir().join(format!(
            "sqlwitness-pg-{}-{}",
            std::process::id(),
            &crate::fresh_password()[..12]
        ));
        std::fs::DirBuilder::new().mode(0o700).create(&path)?;
        Ok(Folder(path))
    }
}

#[cfg(unix)]
impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Through the relay: the session works, the server sees a TCP client,
    /// `COPY`s load their rows, and the session's end ends the relay's.
    #[test]
    fn a_session_through_the_relay_copies_and_ends() {
        let Some(url) = sqlwitness_testkit::server_url(sqlwitness_core::EngineKind::Postgres)
        else {
            return;
        };
        let rt = crate::server::blocking_runtime().unwrap();
        let opts: PgConnectOptions = url.parse().unwrap();
        rt.block_on(async {
            let mut conn = connect(&opts).await.unwrap();
            let tcp: bool = sqlx::query_scalar("SELECT inet_client_addr() IS NOT NULL")
                .fetch_one(&mut conn)
                .await
                .unwrap();
            assert!(tcp);
            sqlx::Executor::execute(&mut conn, "CREATE TEMPORARY TABLE t (a int)")
                .await
                .unwrap();
            for _ in 0..10 {
                let mut copy = conn.copy_in_raw("COPY t FROM STDIN").await.unwrap();
                copy.send(b"1\n2\n".as_slice()).await.unwrap();
                copy.finish().await.unwrap();
            }
            let n: i64 = sqlx::query_scalar("SELECT count(*) FROM t")
                .fetch_one(&mut conn)
                .await
                .unwrap();
            assert_eq!(n, 20);
            let pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
                .fetch_one(&mut conn)
                .await
                .unwrap();
            sqlx::Connection::close(conn).await.unwrap();
            // The server's session ends with it.
            let mut other = opts.connect().await.unwrap();
            let mut left = 1;
            for _ in 0..100 {
                left = sqlx::query_scalar::<_, i64>(
                    "SELECT count(*) FROM pg_stat_activity WHERE pid = $1",
                )
                .bind(pid)
                .fetch_one(&mut other)
                .await
                .unwrap();
                if left == 0 {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            assert_eq!(left, 0);
        });
    }
}
