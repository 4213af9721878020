//! Running the binary on the dump fixtures of `tests/dumps/` and dropping
//! the copies a test made (shared by the dump tests that load fixtures
//! with `import`: `#[path = "common/dump_copies.rs"] mod dump_copies;`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use sqlwitness_core::EngineKind;

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
    run(bin()
        .args(["import", "--engine", kind.as_str(), "--server", url])
        .args(["--namespace-prefix", &copies.prefix, "--db-id", db_id])
        .arg("--out")
        .arg(bench.join("database"))
        .arg("--dump")
        .arg(fixture(dump)));
    json(&bench.join("database/import-report.json"))
}
