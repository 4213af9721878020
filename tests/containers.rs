//! `--containers` end to end. Without a Docker daemon: the flag's errors
//! (always run). With one: eval on containers this run starts, and an
//! interrupted run that removes them — gated on the daemon, SKIPPED without
//! it, failing under SQLWITNESS_REQUIRE_DOCKER=1 (SQLWITNESS_REQUIRE_ENGINES
//! does not apply: CI with servers and no Docker passes).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn sqlwitness() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sqlwitness"));
    c.current_dir(repo());
    // The servers of the environment are not those of these tests.
    for k in ["POSTGRES", "MYSQL", "MARIADB"] {
        c.env_remove(format!("SQLWITNESS_{k}_URL"));
        c.env_remove(format!("SQLWITNESS_{k}_READER_URL"));
        c.env_remove(format!("SQLWITNESS_{k}_IMAGE"));
    }
    c.env_remove("SQLWITNESS_CONTAINERS");
    c
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// No daemon at DOCKER_HOST: exit 6, one clear line naming the host and
/// the way out, no panic, no report.
#[test]
fn no_docker_daemon_is_exit_6_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let host = format!("unix://{}/docker.sock", dir.path().display());
    let out_dir = dir.path().join("out");
    let o = sqlwitness()
        .env("DOCKER_HOST", &host)
        .args([
            "eval",
            "--bench",
            "examples/spider-dev",
            "--engines",
            "sqlite,postgres",
            "--containers",
            "--limit",
            "1",
            "-q",
            "--out",
        ])
        .arg(&out_dir)
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(6), "{err}");
    assert!(
        err.contains(&format!("--containers: no Docker daemon answers at {host}")),
        "{err}"
    );
    assert!(err.contains("--server ENGINE=URL"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!out_dir.join("report.json").exists());
    // migrate and audit take the flag too.
    let log_dir = dir.path().join("logs").display().to_string();
    let audit_dir = dir.path().join("audit").display().to_string();
    for cmd in [
        vec!["migrate", "--engines", "mysql", "--log-dir", &log_dir],
        vec![
            "audit",
            "--engines",
            "mariadb",
            "--limit",
            "1",
            "--out",
            &audit_dir,
        ],
    ] {
        let o = sqlwitness()
            .env("DOCKER_HOST", &host)
            .args(&cmd)
            .args(["--bench", "examples/spider-dev", "--containers", "-q"])
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(6), "{cmd:?}: {err}");
        assert!(err.contains("no Docker daemon answers"), "{cmd:?}: {err}");
    }
}

/// Flag errors are bad input (exit 2) before anything starts.
#[test]
fn container_flag_errors_are_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["--engines", "sqlite", "--containers"], "no server engine"),
        (
            &["--engines", "postgres", "--containers", "--no-migrate"],
            "--no-migrate",
        ),
        (
            &[
                "--engines",
                "postgres",
                "--containers",
                "--server",
                "postgres=postgres://root@127.0.0.1:1/test",
            ],
            "--server postgres",
        ),
        (
            &["--engines", "postgres", "--image", "postgres=pg:1"],
            "images are for --containers",
        ),
        (
            &[
                "--engines",
                "postgres",
                "--containers",
                "--image",
                "postgres=pg@sha256:00",
            ],
            "digests are not supported",
        ),
    ];
    for (args, expected) in cases {
        let o = sqlwitness()
            .env("DOCKER_HOST", "unix:///nonexistent/docker.sock")
            .args(["eval", "--bench", "examples/spider-dev", "-q", "--out"])
            .arg(dir.path())
            .args(*args)
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
    }
}

/// True when a Docker daemon answers; else SKIPPED (or a failure under
/// SQLWITNESS_REQUIRE_DOCKER=1).
fn docker() -> bool {
    match sqlwitness_engines::docker_available(Duration::from_secs(10)) {
        Ok(()) => true,
        Err(e) => {
            sqlwitness_testkit::missing_docker(&format!("no Docker daemon: {e}"));
            false
        }
    }
}

/// The ids of the containers a run of process `pid` left (label
/// `sqlwitness.run=<pid>-…`), through the `docker` command line.
fn left_by(pid: u32) -> Vec<String> {
    let o = Command::new("docker")
        .args([
            "ps",
            "-a",
            "--filter",
            "label=sqlwitness.run",
            "--format",
            "{{.ID}} {{.Label \"sqlwitness.run\"}}",
        ])
        .output()
        .expect("the docker command line (the live test uses it to look for leftovers)");
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| {
            l.split_once(' ')
                .is_some_and(|(_, run)| run.starts_with(&format!("{pid}-")))
        })
        .map(|l| l.split(' ').next().unwrap_or("").to_string())
        .collect()
}

/// Live: eval on all three servers in containers the run starts, migrates
/// into and removes.
#[test]
fn eval_on_containers_it_starts_and_removes() {
    if !docker() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let child = sqlwitness()
        .args([
            "eval",
            "--bench",
            "examples/spider-dev",
            "--engines",
            "sqlite,postgres,mysql,mariadb",
            "--containers",
            "--limit",
            "20",
            "-q",
            "--out",
        ])
        .arg(dir.path())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    for engine in ["postgres", "mysql", "mariadb"] {
        assert!(
            err.contains(&format!("container: {engine} ready at")),
            "{err}"
        );
    }
    assert!(err.contains("removed 3 container(s)"), "{err}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    for engine in ["sqlite", "postgres", "mysql", "mariadb"] {
        let s = &report["summary"]["engines"][engine];
        assert_eq!(s["questions"], 20, "{engine}: {s}");
        assert_eq!(s["engine_error"], 0, "{engine}: {s}");
        assert!(s["matched"].as_u64().unwrap() > 0, "{engine}: {s}");
    }
    assert_eq!(left_by(pid), Vec::<String>::new());
}

/// Live: SIGTERM while the containers run removes them (the interrupt
/// hook), exit 130.
#[test]
fn an_interrupted_run_removes_its_containers() {
    if !docker() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut child = sqlwitness()
        .args([
            "migrate",
            "--bench",
            "examples/spider-dev",
            "--engines",
            "postgres",
            "--containers",
            "-q",
            "--log-dir",
        ])
        .arg(dir.path())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Once its container exists, interrupt it (it may still be starting:
    // the hook removes it by its run label either way).
    let deadline = Instant::now() + Duration::from_secs(300);
    while left_by(pid).is_empty() && Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            panic!("migrate ended before it was interrupted");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(!left_by(pid).is_empty(), "no container appeared");
    Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert_eq!(left_by(pid), Vec::<String>::new());
}

/// docker/compose.yaml starts the images `--containers` defaults to, each
/// with a health check over TCP.
#[test]
fn the_compose_file_pins_the_container_defaults() {
    let text = std::fs::read_to_string(repo().join("docker/compose.yaml")).unwrap();
    let doc: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    for kind in [
        sqlwitness_core::EngineKind::Postgres,
        sqlwitness_core::EngineKind::Mysql,
        sqlwitness_core::EngineKind::Mariadb,
    ] {
        let service = &doc["services"][kind.as_str()];
        let image = sqlwitness_engines::default_image(kind).unwrap().to_string();
        assert_eq!(service["image"], image.as_str(), "{kind}");
        let test: Vec<&str> = service["healthcheck"]["test"]
            .as_array()
            .unwrap_or_else(|| panic!("{kind}: no health check"))
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(test.contains(&"127.0.0.1"), "{kind}: {test:?}");
        assert_eq!(
            service["ports"][0].as_str().unwrap().split(':').next(),
            Some("127.0.0.1"),
            "{kind}"
        );
    }
}
