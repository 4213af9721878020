//! Throw-away PostgreSQL / MySQL servers in Docker, driven through the
//! `docker` command line (no Docker SDK).
//!
//! A [`ContainerPlan`] is pure data: the `docker run` argv, the URL the
//! server will answer on and the stop command, so it can be tested without
//! Docker. [`ContainerPlan::start`] runs it, and only when
//! `SQLWITNESS_DOCKER=1` is set and `docker info` answers.

use std::process::Command;
use std::time::{Duration, Instant};

use sqlwitness_core::{Engine, EngineKind};

use crate::EngineError;

/// The server images the launcher knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContainerImage {
    /// `postgres:16`, trust authentication, user `root`, database `test`.
    Postgres16,
    /// `mysql:8.0`, user `root` with an empty password, database `test`.
    Mysql80,
    /// `mariadb:10.11`, user `root` with an empty password, database `test`.
    Mariadb1011,
}

impl ContainerImage {
    pub fn for_engine(kind: EngineKind) -> Option<ContainerImage> {
        match kind {
            EngineKind::Postgres => Some(ContainerImage::Postgres16),
            EngineKind::Mysql => Some(ContainerImage::Mysql80),
            EngineKind::Mariadb => Some(ContainerImage::Mariadb1011),
            EngineKind::Sqlite => None,
        }
    }

    pub fn engine(self) -> EngineKind {
        match self {
            ContainerImage::Postgres16 => EngineKind::Postgres,
            ContainerImage::Mysql80 => EngineKind::Mysql,
            ContainerImage::Mariadb1011 => EngineKind::Mariadb,
        }
    }

    pub fn image(self) -> &'static str {
        match self {
            ContainerImage::Postgres16 => "postgres:16",
            ContainerImage::Mysql80 => "mysql:8.0",
            ContainerImage::Mariadb1011 => "mariadb:10.11",
        }
    }

    fn container_port(self) -> u16 {
        match self {
            ContainerImage::Postgres16 => 5432,
            ContainerImage::Mysql80 | ContainerImage::Mariadb1011 => 3306,
        }
    }

    fn env(self) -> &'static [&'static str] {
        match self {
            ContainerImage::Postgres16 => &[
                "POSTGRES_HOST_AUTH_METHOD=trust",
                "POSTGRES_USER=root",
                "POSTGRES_DB=test",
            ],
            ContainerImage::Mysql80 => &[
                "MYSQL_ALLOW_EMPTY_PASSWORD=yes",
                "MYSQL_ROOT_HOST=%",
                "MYSQL_DATABASE=test",
            ],
            ContainerImage::Mariadb1011 => &[
                "MARIADB_ALLOW_EMPTY_ROOT_PASSWORD=yes",
                "MARIADB_ROOT_HOST=%",
                "MARIADB_DATABASE=test",
            ],
        }
    }
}

/// How to start one server container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerPlan {
    pub image: ContainerImage,
    /// Container name, always prefixed `sqlwitness-`.
    pub name: String,
    /// Host port mapped to the server port (bound on 127.0.0.1).
    pub host_port: u16,
}

impl ContainerPlan {
    /// A plan on a free host port with a unique name.
    pub fn new(image: ContainerImage) -> Result<ContainerPlan, EngineError> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| EngineError::Container(format!("no free host port: {e}")))?
            .port();
        let name = format!("{}-{}-{port}", image.engine().as_str(), std::process::id());
        Ok(ContainerPlan::with_port(image, &name, port))
    }

    /// A plan with a given name (prefixed `sqlwitness-` when it is not) and port.
    pub fn with_port(image: ContainerImage, name: &str, host_port: u16) -> ContainerPlan {
        let name = if name.starts_with("sqlwitness-") {
            name.to_string()
        } else {
            format!("sqlwitness-{name}")
        };
        ContainerPlan {
            image,
            name,
            host_port,
        }
    }

    /// The `docker run` argv (program first).
    pub fn run_args(&self) -> Vec<String> {
        let mut args: Vec<String> = ["docker", "run", "--detach", "--rm", "--name"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.push(self.name.clone());
        args.push("--publish".into());
        args.push(format!(
            "127.0.0.1:{}:{}",
            self.host_port,
            self.image.container_port()
        ));
        for e in self.image.env() {
            args.push("--env".into());
            args.push(e.to_string());
        }
        args.push(self.image.image().into());
        args
    }

    /// The URL the server answers on once ready.
    pub fn url(&self) -> String {
        match self.image {
            ContainerImage::Postgres16 => {
                format!("postgres://root@127.0.0.1:{}/test", self.host_port)
            }
            ContainerImage::Mysql80 | ContainerImage::Mariadb1011 => {
                format!("mysql://root@127.0.0.1:{}/test", self.host_port)
            }
        }
    }

    /// The argv that stops (and, with `--rm`, removes) the container.
    pub fn stop_args(&self) -> Vec<String> {
        vec!["docker".into(), "stop".into(), self.name.clone()]
    }

    /// Starts the container. Refuses unless `SQLWITNESS_DOCKER=1`, and fails
    /// with a clear error when no Docker engine answers `docker info`.
    pub fn start(&self) -> Result<RunningContainer, EngineError> {
        if std::env::var("SQLWITNESS_DOCKER").as_deref() != Ok("1") {
            return Err(EngineError::Container(
                "starting containers is disabled; set SQLWITNESS_DOCKER=1 to allow it".into(),
            ));
        }
        run(&["docker".to_string(), "info".to_string()]).map_err(|e| {
            EngineError::Container(format!("no Docker engine is running (`docker info`: {e})"))
        })?;
        run(&self.run_args())?;
        Ok(RunningContainer {
            plan: self.clone(),
            stopped: false,
        })
    }
}

/// A started container; stopped on [`RunningContainer::stop`] or drop.
#[derive(Debug)]
pub struct RunningContainer {
    plan: ContainerPlan,
    stopped: bool,
}

impl RunningContainer {
    pub fn plan(&self) -> &ContainerPlan {
        &self.plan
    }

    pub fn url(&self) -> String {
        self.plan.url()
    }

    /// Connects until the server answers or `timeout` passes; returns the
    /// connected engine.
    pub fn wait_ready(&self, timeout: Duration) -> Result<Box<dyn Engine>, EngineError> {
        let deadline = Instant::now() + timeout;
        let url = self.url();
        loop {
            match crate::connect(self.plan.image.engine(), Some(&url)) {
                Ok(engine) => return Ok(engine),
                Err(e) if Instant::now() >= deadline => {
                    return Err(EngineError::Container(format!(
                        "{} not ready after {} s: {e}",
                        self.plan.name,
                        timeout.as_secs()
                    )))
                }
                Err(_) => std::thread::sleep(Duration::from_millis(500)),
            }
        }
    }

    pub fn stop(mut self) -> Result<(), EngineError> {
        self.stopped = true;
        run(&self.plan.stop_args()).map(drop)
    }
}

impl Drop for RunningContainer {
    fn drop(&mut self) {
        if !self.stopped {
            let _ = run(&self.plan.stop_args());
        }
    }
}

fn run(argv: &[String]) -> Result<String, EngineError> {
    let out = Command::new(&argv[0])
        .args(&argv[1..])
        .output()
        .map_err(|e| EngineError::Container(format!("cannot run `{}`: {e}", argv.join(" "))))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(EngineError::Container(format!(
            "`{}` failed ({}): {}",
            argv.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgres_plan() {
        let p = ContainerPlan::with_port(ContainerImage::Postgres16, "pg-1", 55432);
        assert_eq!(p.name, "sqlwitness-pg-1");
        assert_eq!(
            p.run_args().join(" "),
            "docker run --detach --rm --name sqlwitness-pg-1 --publish 127.0.0.1:55432:5432 \
             --env POSTGRES_HOST_AUTH_METHOD=trust --env POSTGRES_USER=root \
             --env POSTGRES_DB=test postgres:16"
        );
        assert_eq!(p.url(), "postgres://root@127.0.0.1:55432/test");
        assert_eq!(p.stop_args(), ["docker", "stop", "sqlwitness-pg-1"]);
    }

    #[test]
    fn mysql_plan_on_a_free_port() {
        let p = ContainerPlan::new(ContainerImage::Mysql80).unwrap();
        assert!(p.name.starts_with("sqlwitness-mysql-"), "{}", p.name);
        assert_ne!(p.host_port, 0);
        let args = p.run_args();
        assert!(args.contains(&"mysql:8.0".to_string()));
        assert!(args.contains(&"MYSQL_ALLOW_EMPTY_PASSWORD=yes".to_string()));
        assert!(args.contains(&format!("127.0.0.1:{}:3306", p.host_port)));
        assert_eq!(
            p.url(),
            format!("mysql://root@127.0.0.1:{}/test", p.host_port)
        );
        assert_eq!(
            ContainerImage::for_engine(EngineKind::Mysql),
            Some(ContainerImage::Mysql80)
        );
        assert_eq!(ContainerImage::for_engine(EngineKind::Sqlite), None);
    }

    #[test]
    fn start_is_gated() {
        if std::env::var("SQLWITNESS_DOCKER").as_deref() == Ok("1") {
            return;
        }
        let p = ContainerPlan::with_port(ContainerImage::Postgres16, "x", 1);
        let err = p.start().unwrap_err().to_string();
        assert!(err.contains("SQLWITNESS_DOCKER=1"), "{err}");
    }
}
