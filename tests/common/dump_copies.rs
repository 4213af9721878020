//! Running the binary on the dump fixtures of `tests/dumps/` and dropping
//! the copies a test made (shared by the dump tests that load fixtures
//! with `import`: `#[path = "common/dump_copies.rs"] mod dump_copies;`).

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use sqlwitness_core::EngineKind;
use sqlwitness_dialect::Adapter;

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sqlwitness"))
}

/// A fixture of `tests/dumps/`.
pub fn fixture(name: &str) -> PathBuf {
    sqlwitness_testkit::repo_path("tests/dumps").join(name)
}

/// Runs the command; its stderr, asserting it succeeded.
pub fn run(cmd: &mut Command) -> String {
    let o = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{cmd:?}: {stderr}");
    stderr
}

pub fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Copies made under a prefix of the test's own, dropped when this drops
/// (only namespaces holding sqlwitness's stamp are dropped).
pub struct Copies {
    pub prefix: String,
    made: Vec<(EngineKind, String, String)>,
}

impl Copies {
    pub fn new(tag: &str) -> Copies {
        Copies {
            prefix: format!("{}_", sqlwitness_testkit::unique_name(tag)),
            made: Vec::new(),
        }
    }

    /// Records the copy of `db_id` on `kind` at `url`; its namespace.
    pub fn add(&mut self, kind: EngineKind, url: &str, db_id: &str) -> String {
        let ns = format!("{}{db_id}", self.prefix);
        self.made.push((kind, url.to_string(), ns.clone()));
        ns
    }
}

impl Drop for Copies {
    fn drop(&mut self) {
        for (kind, url, ns) in &self.made {
            let target = sqlwitness_migrate::MigrationTarget::new(*kind, url.as_str());
            let _ = sqlwitness_migrate::drop_namespace(&target, ns);
        }
    }
}

/// The `import` command of the dump at `dump` on `kind` into
/// `bench/database`, under the copies' prefix.
pub fn import_command(
    kind: EngineKind,
    url: &str,
    dump: &Path,
    bench: &Path,
    db_id: &str,
    copies: &Copies,
) -> Command {
    let mut cmd = bin();
    cmd.args(["import", "--engine", kind.as_str(), "--server", url])
        .args(["--namespace-prefix", &copies.prefix, "--db-id", db_id])
        .arg("--out")
        .arg(bench.join("database"))
        .arg("--dump")
        .arg(dump);
    cmd
}

/// `import` of the fixture `dump` on `kind` into `bench/database`; the
/// import report.
pub fn import(
    kind: EngineKind,
    url: &str,
    dump: &str,
    bench: &Path,
    db_id: &str,
    copies: &Copies,
) -> serde_json::Value {
    run(&mut import_command(
        kind,
        url,
        &fixture(dump),
        bench,
        db_id,
        copies,
    ));
    json(&bench.join("database/import-report.json"))
}

/// The configured PostgreSQL server among `servers` (a missing one is
/// reported as missing).
pub fn postgres(servers: &[(EngineKind, String)]) -> Option<(EngineKind, String)> {
    let found = servers
        .iter()
        .find(|(k, _)| sqlwitness_dialect::shipped(*k).adapter == Adapter::Postgres)
        .cloned();
    if found.is_none() {
        sqlwitness_testkit::missing("PostgreSQL");
    }
    found
}

/// Whether the server's own command-line client `name` (`psql`, `mysql`)
/// runs here (a missing one is reported as missing).
pub fn client(name: &str) -> bool {
    let found = Command::new(name)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        sqlwitness_testkit::missing(&format!("the {name} command-line client"));
    }
    found
}

/// The mysql client at `url` (host, port and user of the URL; the
/// password, when it has one, in the client's environment), reading `sql`
/// on its standard input as `mysql < dump.sql` does, from the folder `dir`
/// when one is given (where the dump's `source` commands find their
/// files).
pub fn mysql_client(url: &str, sql: &str, dir: Option<&Path>) -> Output {
    mysql_client_with(url, sql, dir, &[])
}

/// [`mysql_client`] with the client's own options `options` first
/// (`--local-infile=1`).
pub fn mysql_client_with(url: &str, sql: &str, dir: Option<&Path>, options: &[&str]) -> Output {
    let u = url::Url::parse(url).unwrap();
    let mut cmd = Command::new("mysql");
    cmd.args(options)
        .arg(format!("--host={}", u.host_str().unwrap_or("127.0.0.1")))
        .arg(format!("--port={}", u.port().unwrap_or(3306)))
        .arg(format!("--user={}", u.username()));
    if let Some(p) = u.password() {
        cmd.env("MYSQL_PWD", p);
    }
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(sql.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}
