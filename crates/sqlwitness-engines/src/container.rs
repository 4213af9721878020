//! Throw-away PostgreSQL, MySQL and MariaDB servers in Docker, for
//! `--containers`.
//!
//! A [`ContainerPlan`] is pure data — the image, the environment, the
//! port, the health check the launcher waits on, the login and the URL the
//! server will answer on — so it is tested without Docker. Starting it
//! ([`start`], [`docker_available`]) goes through the `testcontainers`
//! crate and is compiled only with the `containers` feature.
//!
//! Every container:
//! * publishes its server port on a port Docker picks, bound to
//!   127.0.0.1 (to every interface only when `DOCKER_HOST` names a remote
//!   daemon, where a loopback binding could not be reached);
//! * has an administrative login `root` with a password fresh for the run
//!   (never trust authentication: the port is reachable by every local
//!   user) and an empty database `test`;
//! * is ready when its health check — the server's own ping over TCP, so
//!   the temporary server the images run while they initialise (it listens
//!   on a socket only) does not count — passes;
//! * carries the label [`LABEL`], so `docker rm -f $(docker ps -aq --filter
//!   label=sqlwitness)` removes what a killed run (SIGKILL) left.

use std::time::Duration;

use sqlwitness_core::EngineKind;

use crate::EngineError;

/// The label every container this module starts carries (value: the
/// engine).
pub const LABEL: &str = "sqlwitness";
/// The label naming the run that started a container (see [`run_id`]):
/// an interrupted run removes its containers by it, also one still
/// starting.
pub const RUN_LABEL: &str = "sqlwitness.run";

/// The login and database every container is created with.
pub const CONTAINER_USER: &str = "root";
pub const CONTAINER_DATABASE: &str = "test";

/// How long a container may take from start to healthy before the launch
/// fails (MySQL initialising its data directory takes the longest, ~20 s
/// on a small machine).
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(180);

/// An image reference: `repository:tag`, the repository optionally with a
/// registry (`registry.local:5000/library/postgres:15.20`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRef {
    pub repository: String,
    pub tag: String,
}

impl ImageRef {
    /// Parses `repository[:tag]` (`latest` when no tag is given). A digest
    /// (`@sha256:…`) is refused: testcontainers takes a tag.
    pub fn parse(s: &str) -> Result<ImageRef, EngineError> {
        let s = s.trim();
        if s.is_empty() {
            return Err(EngineError::Container("empty image name".into()));
        }
        if s.contains('@') {
            return Err(EngineError::Container(format!(
                "image `{s}`: digests are not supported, give a tag (`name:tag`)"
            )));
        }
        if s.chars().any(char::is_whitespace) {
            return Err(EngineError::Container(format!(
                "image `{s}`: no spaces allowed"
            )));
        }
        // A colon after the last slash separates the tag; one before it is
        // a registry's port.
        let last_slash = s.rfind('/').map_or(0, |i| i + 1);
        let (repository, tag) = match s[last_slash..].rfind(':') {
            Some(i) => (&s[..last_slash + i], &s[last_slash + i + 1..]),
            None => (s, "latest"),
        };
        if repository.is_empty() || tag.is_empty() || repository.ends_with('/') {
            return Err(EngineError::Container(format!(
                "image `{s}`: expected `name:tag`"
            )));
        }
        Ok(ImageRef {
            repository: repository.to_string(),
            tag: tag.to_string(),
        })
    }
}

impl std::fmt::Display for ImageRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.repository, self.tag)
    }
}

/// The image an engine's container runs unless `--image` says otherwise:
/// its dialect file's `container.image` (the versions the test suite runs
/// against; docker/compose.yaml pins the same).
pub fn default_image(kind: EngineKind) -> Option<ImageRef> {
    let c = sqlwitness_dialect::shipped(kind).container.as_ref()?;
    ImageRef::parse(&c.image).ok()
}

/// The Docker health check of a container (`CMD` form).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HealthCheck {
    /// The command, run inside the container; exit 0 is healthy.
    pub command: Vec<String>,
    pub interval: Duration,
    pub timeout: Duration,
    /// Failures, after `start_period`, before Docker calls it unhealthy.
    pub retries: u32,
    /// Failures in this first period do not count.
    pub start_period: Duration,
    /// How often the check runs in the start period (Docker 25 and later;
    /// older daemons use `interval`).
    pub start_interval: Duration,
}

/// How to start one server container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerPlan {
    pub engine: EngineKind,
    pub image: ImageRef,
    /// The server's port inside the container.
    pub container_port: u16,
    /// The interface Docker binds the published port on.
    pub bind_ip: String,
    /// Environment of the container, in order.
    pub env: Vec<(String, String)>,
    pub health: HealthCheck,
    pub startup_timeout: Duration,
    /// The administrative login and its password (fresh for the run).
    pub user: String,
    pub password: String,
    pub database: String,
    /// Labels of the container (always [`LABEL`]).
    pub labels: Vec<(String, String)>,
}

impl ContainerPlan {
    /// The plan of `kind`'s server in `image` (default: [`default_image`])
    /// with `password` for the administrative login, for the Docker daemon
    /// at `docker_host` (`DOCKER_HOST`; `None`: the local socket), labelled
    /// with the run `run`.
    pub fn new(
        kind: EngineKind,
        image: Option<ImageRef>,
        password: &str,
        docker_host: Option<&str>,
        run: &str,
    ) -> Result<ContainerPlan, EngineError> {
        let facts = sqlwitness_dialect::shipped(kind).container.as_ref();
        let (facts, image) = match (facts, image.or_else(|| default_image(kind))) {
            (Some(f), Some(i)) => (f, i),
            _ => {
                return Err(EngineError::Container(format!(
                    "{kind} is embedded; it runs in no container"
                )))
            }
        };
        if password.is_empty() || !password.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(EngineError::Container(
                "the containers' password must be ASCII letters and digits".into(),
            ));
        }
        let fill = |t: &str| {
            sqlwitness_dialect::Container::fill(t, CONTAINER_USER, password, CONTAINER_DATABASE)
        };
        let port = facts.port;
        let env = facts
            .env
            .iter()
            .map(|(k, v)| (k.clone(), fill(v)))
            .collect();
        let command: Vec<String> = facts.health.iter().map(|c| fill(c)).collect();
        Ok(ContainerPlan {
            engine: kind,
            image,
            container_port: port,
            bind_ip: bind_ip(docker_host).to_string(),
            env,
            health: HealthCheck {
                command,
                interval: Duration::from_secs(1),
                timeout: Duration::from_secs(5),
                retries: 30,
                start_period: STARTUP_TIMEOUT,
                start_interval: Duration::from_secs(1),
            },
            startup_timeout: STARTUP_TIMEOUT,
            user: CONTAINER_USER.into(),
            password: password.into(),
            database: CONTAINER_DATABASE.into(),
            labels: vec![
                (LABEL.into(), kind.as_str().into()),
                (RUN_LABEL.into(), run.into()),
            ],
        })
    }

    /// The administrative URL of the server once its port is published on
    /// `host:port`.
    pub fn url(&self, host: &str, port: u16) -> String {
        let scheme = match self.engine {
            EngineKind::Postgres => "postgres",
            _ => "mysql",
        };
        format!(
            "{scheme}://{}:{}@{host}:{port}/{}",
            self.user, self.password, self.database
        )
    }
}

/// Where published ports are bound: loopback, unless `docker_host` names
/// a daemon on another machine (`tcp://ci-docker:2375`), whose loopback
/// this machine cannot reach.
pub fn bind_ip(docker_host: Option<&str>) -> &'static str {
    let Some(h) = docker_host.map(str::trim).filter(|h| !h.is_empty()) else {
        return "127.0.0.1";
    };
    let Some(rest) = h
        .strip_prefix("tcp://")
        .or_else(|| h.strip_prefix("http://"))
        .or_else(|| h.strip_prefix("https://"))
    else {
        // unix://, npipe://: the daemon is on this machine.
        return "127.0.0.1";
    };
    let host = rest.split(['/', '?']).next().unwrap_or("");
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(h, _)| h),
    };
    if matches!(host, "localhost" | "127.0.0.1" | "::1" | "") {
        "127.0.0.1"
    } else {
        "0.0.0.0"
    }
}

/// An identifier for one run's containers: the process id and 8 random
/// hex digits.
pub fn run_id() -> String {
    format!("{}-{}", std::process::id(), &fresh_password()[..8])
}

/// A password for the containers of one run: 32 hex digits from the
/// standard library's randomly keyed hasher (OS randomness), the process
/// id and the time. It guards a throw-away server for the length of a
/// run; it is not meant for anything else.
pub fn fresh_password() -> String {
    use std::hash::{BuildHasher, Hasher};
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let half = |salt: u64| {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(salt);
        h.write_u128(now);
        h.write_u32(std::process::id());
        h.finish()
    };
    format!("{:016x}{:016x}", half(1), half(2))
}

#[cfg(feature = "containers")]
pub use launch::{docker_available, remove_run, start as start_container, StartedServer};

#[cfg(feature = "containers")]
mod launch {
    use std::time::Duration;

    use testcontainers::bollard::models::PortBinding;
    use testcontainers::core::{IntoContainerPort, WaitFor};
    use testcontainers::runners::SyncRunner;
    use testcontainers::{Container, ContainerRequest, GenericImage, Healthcheck, ImageExt};

    use super::ContainerPlan;
    use crate::EngineError;

    /// Asks the Docker daemon (`DOCKER_HOST`, else the local socket) for a
    /// ping within `timeout`. The error says what to do.
    pub fn docker_available(timeout: Duration) -> Result<(), EngineError> {
        let host = std::env::var("DOCKER_HOST")
            .ok()
            .filter(|h| !h.trim().is_empty())
            .unwrap_or_else(|| "unix:///var/run/docker.sock".into());
        let tls = std::env::var_os("DOCKER_TLS_VERIFY").is_some();
        ping(&host, tls, timeout)
    }

    /// [`docker_available`] for the daemon at `host`.
    pub(crate) fn ping(host: &str, tls: bool, timeout: Duration) -> Result<(), EngineError> {
        let fail = |why: String| EngineError::NoDocker {
            host: host.to_string(),
            reason: why,
        };
        // testcontainers is built without a TLS crypto provider (its
        // default `ring` feature): refuse here rather than fail inside it.
        if tls || host.starts_with("https://") {
            return Err(fail(
                "TLS connections to a Docker daemon are not supported by this build; use the \
                 local socket or plain tcp://"
                    .into(),
            ));
        }
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| fail(format!("no runtime: {e}")))?;
        rt.block_on(async {
            let docker = testcontainers::bollard::Docker::connect_with_host(host)
                .map_err(|e| fail(e.to_string()))?;
            match tokio::time::timeout(timeout, docker.ping()).await {
                Ok(Ok(_)) => Ok(()),
                Ok(Err(e)) => Err(fail(e.to_string())),
                Err(_) => Err(fail(format!("no answer within {} s", timeout.as_secs()))),
            }
        })
    }

    /// Removes (forcefully, with their volumes) every container labelled
    /// [`RUN_LABEL`]` = run`; returns how many there were.
    pub fn remove_run(run: &str, timeout: Duration) -> Result<usize, EngineError> {
        use testcontainers::bollard::query_parameters::{
            ListContainersOptions, RemoveContainerOptionsBuilder,
        };
        let fail = |why: String| EngineError::Container(format!("removing run {run}: {why}"));
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| fail(e.to_string()))?;
        let work = async {
            let docker = testcontainers::bollard::Docker::connect_with_defaults()
                .map_err(|e| fail(e.to_string()))?;
            let filters = [(
                "label".to_string(),
                vec![format!("{}={run}", super::RUN_LABEL)],
            )]
            .into_iter()
            .collect();
            let found = docker
                .list_containers(Some(ListContainersOptions {
                    all: true,
                    filters: Some(filters),
                    ..Default::default()
                }))
                .await
                .map_err(|e| fail(e.to_string()))?;
            let mut removed = 0;
            for c in found {
                let Some(id) = c.id else { continue };
                docker
                    .remove_container(
                        &id,
                        Some(
                            RemoveContainerOptionsBuilder::new()
                                .force(true)
                                .v(true)
                                .build(),
                        ),
                    )
                    .await
                    .map_err(|e| fail(format!("{id}: {e}")))?;
                removed += 1;
            }
            Ok(removed)
        };
        rt.block_on(async {
            tokio::time::timeout(timeout, work)
                .await
                .unwrap_or_else(|_| Err(fail(format!("no answer within {} s", timeout.as_secs()))))
        })
    }

    /// The testcontainers request of `plan`.
    pub(crate) fn request(plan: &ContainerPlan) -> ContainerRequest<GenericImage> {
        let port = plan.container_port.tcp();
        let h = &plan.health;
        let health = Healthcheck::cmd(h.command.iter().cloned())
            .with_interval(h.interval)
            .with_timeout(h.timeout)
            .with_retries(h.retries)
            .with_start_period(h.start_period)
            .with_start_interval(h.start_interval);
        let bind_ip = plan.bind_ip.clone();
        let port_key = format!("{}/tcp", plan.container_port);
        let mut req = GenericImage::new(plan.image.repository.as_str(), plan.image.tag.as_str())
            .with_exposed_port(port)
            .with_wait_for(WaitFor::healthcheck())
            .with_health_check(health)
            .with_startup_timeout(plan.startup_timeout)
            // One binding, on `bind_ip`, host port chosen by Docker
            // (testcontainers publishes every port on every interface).
            .with_host_config_modifier(move |hc| {
                hc.publish_all_ports = Some(false);
                hc.port_bindings = Some(
                    [(
                        port_key.clone(),
                        Some(vec![PortBinding {
                            host_ip: Some(bind_ip.clone()),
                            host_port: None,
                        }]),
                    )]
                    .into_iter()
                    .collect(),
                );
            });
        for (k, v) in &plan.env {
            req = req.with_env_var(k, v);
        }
        for (k, v) in &plan.labels {
            req = req.with_label(k, v);
        }
        req
    }

    /// A started server; its container is removed by [`StartedServer::stop`]
    /// or on drop.
    pub struct StartedServer {
        plan: ContainerPlan,
        url: String,
        container: Container<GenericImage>,
    }

    impl std::fmt::Debug for StartedServer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("StartedServer")
                .field("engine", &self.plan.engine)
                .field("image", &self.plan.image.to_string())
                .field("id", &self.container.id())
                .finish()
        }
    }

    impl StartedServer {
        pub fn plan(&self) -> &ContainerPlan {
            &self.plan
        }

        /// The administrative URL (it holds the password: show it through
        /// [`crate::mask_url`]).
        pub fn url(&self) -> &str {
            &self.url
        }

        pub fn id(&self) -> &str {
            self.container.id()
        }

        /// Removes the container (forcefully, with its volumes).
        pub fn stop(self) -> Result<(), EngineError> {
            let id = self.container.id().to_string();
            self.container
                .rm()
                .map_err(|e| EngineError::Container(format!("removing {id}: {e}")))
        }
    }

    /// Starts `plan` and waits until its health check passes; the URL
    /// names the published port.
    pub fn start(plan: &ContainerPlan) -> Result<StartedServer, EngineError> {
        let what = format!("{} ({})", plan.engine, plan.image);
        let container = request(plan)
            .start()
            .map_err(|e| EngineError::Container(format!("starting {what}: {e}")))?;
        let port = container
            .get_host_port_ipv4(plan.container_port.tcp())
            .map_err(|e| EngineError::Container(format!("{what}: no published port: {e}")))?;
        let host = container
            .get_host()
            .map_err(|e| EngineError::Container(format!("{what}: no host: {e}")))?
            .to_string();
        // The port is bound on loopback; "localhost" may resolve to ::1.
        let host = if host == "localhost" {
            "127.0.0.1".to_string()
        } else {
            host
        };
        Ok(StartedServer {
            url: plan.url(&host, port),
            plan: plan.clone(),
            container,
        })
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use sqlwitness_core::EngineKind;

        #[test]
        fn a_missing_daemon_is_a_clear_error() {
            let dir = tempfile::tempdir().unwrap();
            let host = format!("unix://{}/docker.sock", dir.path().display());
            let e = ping(&host, false, Duration::from_secs(5)).unwrap_err();
            assert!(matches!(e, EngineError::NoDocker { .. }), "{e:?}");
            let msg = e.to_string();
            assert!(msg.contains("no Docker daemon answers at unix://"), "{msg}");
            assert!(msg.contains("--server ENGINE=URL"), "{msg}");
            // Nothing listens on port 9 of loopback (discard).
            let e = ping("tcp://127.0.0.1:9", false, Duration::from_secs(5)).unwrap_err();
            assert!(matches!(e, EngineError::NoDocker { .. }), "{e:?}");
            let e = ping("tcp://127.0.0.1:9", true, Duration::from_secs(5)).unwrap_err();
            assert!(e.to_string().contains("TLS"), "{e}");
        }

        #[test]
        fn the_request_carries_the_plan() {
            let plan = ContainerPlan::new(
                EngineKind::Mariadb,
                Some(super::super::ImageRef::parse("registry.local:5000/mariadb:10.11").unwrap()),
                "pw1",
                None,
                "run-7",
            )
            .unwrap();
            let req = request(&plan);
            assert_eq!(req.descriptor(), "registry.local:5000/mariadb:10.11");
            let env: Vec<(String, String)> = req
                .env_vars()
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
            assert!(env.contains(&("MARIADB_ROOT_PASSWORD".into(), "pw1".into())));
            assert_eq!(
                req.labels().get("sqlwitness").map(String::as_str),
                Some("mariadb")
            );
            assert_eq!(
                req.labels().get("sqlwitness.run").map(String::as_str),
                Some("run-7")
            );
            assert_eq!(req.startup_timeout(), Some(super::super::STARTUP_TIMEOUT));
            let hc = req.health_check().expect("a health check");
            assert_eq!(
                hc.test(),
                [
                    "CMD",
                    "mariadb-admin",
                    "ping",
                    "-h",
                    "127.0.0.1",
                    "--silent"
                ]
            );
            assert_eq!(hc.retries(), Some(30));
            assert!(req
                .ready_conditions()
                .iter()
                .any(|w| matches!(w, WaitFor::Healthcheck(_))));
            assert_eq!(req.expose_ports(), &[3306.tcp()]);
            // The port binding: one, on loopback, host port left to Docker.
            let mut hc = testcontainers::bollard::models::HostConfig {
                publish_all_ports: Some(true),
                ..Default::default()
            };
            (req.host_config_modifier().expect("a modifier"))(&mut hc);
            assert_eq!(hc.publish_all_ports, Some(false));
            let bindings = hc.port_bindings.unwrap();
            assert_eq!(bindings.len(), 1);
            let b = &bindings["3306/tcp"].as_ref().unwrap()[0];
            assert_eq!(b.host_ip.as_deref(), Some("127.0.0.1"));
            assert_eq!(b.host_port, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_references() {
        let p = |s| ImageRef::parse(s).map(|i| (i.repository, i.tag));
        assert_eq!(p("postgres:15").unwrap(), ("postgres".into(), "15".into()));
        assert_eq!(p("postgres").unwrap(), ("postgres".into(), "latest".into()));
        assert_eq!(
            p("registry.local:5000/lib/mysql:9.7").unwrap(),
            ("registry.local:5000/lib/mysql".into(), "9.7".into())
        );
        assert_eq!(
            p("registry.local:5000/mysql").unwrap(),
            ("registry.local:5000/mysql".into(), "latest".into())
        );
        for bad in [
            "",
            "postgres:",
            ":15",
            "postgres@sha256:abc",
            "a b:1",
            "reg/:1",
        ] {
            assert!(p(bad).is_err(), "{bad}");
        }
        assert!(ImageRef::parse("postgres@sha256:ab")
            .unwrap_err()
            .to_string()
            .contains("digests are not supported"));
        assert_eq!(
            ImageRef::parse("registry.local/postgres:15")
                .unwrap()
                .to_string(),
            "registry.local/postgres:15"
        );
    }

    #[test]
    fn postgres_plan() {
        let p = ContainerPlan::new(EngineKind::Postgres, None, "s3cret", None, "r1").unwrap();
        assert_eq!(p.image.to_string(), "postgres:15.20");
        assert_eq!(p.container_port, 5432);
        assert_eq!(p.bind_ip, "127.0.0.1");
        assert_eq!(
            p.env,
            [
                ("POSTGRES_USER", "root"),
                ("POSTGRES_PASSWORD", "s3cret"),
                ("POSTGRES_DB", "test")
            ]
            .map(|(k, v)| (k.to_string(), v.to_string()))
        );
        assert_eq!(
            p.health.command,
            ["pg_isready", "-h", "127.0.0.1", "-U", "root", "-d", "test"]
        );
        assert_eq!(p.user, "root");
        assert_eq!(p.database, "test");
        assert_eq!(
            p.labels,
            [
                ("sqlwitness".to_string(), "postgres".to_string()),
                ("sqlwitness.run".to_string(), "r1".to_string())
            ]
        );
        assert_eq!(
            p.url("127.0.0.1", 49153),
            "postgres://root:s3cret@127.0.0.1:49153/test"
        );
        assert_eq!(
            crate::mask_url(&p.url("127.0.0.1", 49153)),
            "postgres://root:***@127.0.0.1:49153/test"
        );
    }

    #[test]
    fn mysql_and_mariadb_plans() {
        let my = ContainerPlan::new(EngineKind::Mysql, None, "pw", None, "r1").unwrap();
        assert_eq!(my.image.to_string(), "mysql:9.7.4");
        assert_eq!(my.container_port, 3306);
        assert!(my
            .env
            .contains(&("MYSQL_ROOT_PASSWORD".into(), "pw".into())));
        assert!(my.env.contains(&("MYSQL_DATABASE".into(), "test".into())));
        assert_eq!(my.health.command[0], "mysqladmin");
        assert_eq!(my.url("127.0.0.1", 3), "mysql://root:pw@127.0.0.1:3/test");

        let image = ImageRef::parse("registry.local/mariadb:10.11").unwrap();
        let ma = ContainerPlan::new(EngineKind::Mariadb, Some(image), "pw", None, "r1").unwrap();
        assert_eq!(ma.image.to_string(), "registry.local/mariadb:10.11");
        assert!(ma
            .env
            .contains(&("MARIADB_ROOT_PASSWORD".into(), "pw".into())));
        assert_eq!(ma.health.command[0], "mariadb-admin");
        assert_eq!(ma.url("h", 3), "mysql://root:pw@h:3/test");
        assert!(ma.startup_timeout >= Duration::from_secs(60));
    }

    #[test]
    fn sqlite_has_no_container_and_passwords_are_checked() {
        let e = ContainerPlan::new(EngineKind::Sqlite, None, "pw", None, "r1").unwrap_err();
        assert!(e.to_string().contains("embedded"), "{e}");
        assert!(ContainerPlan::new(EngineKind::Postgres, None, "a@b", None, "r1").is_err());
        assert!(ContainerPlan::new(EngineKind::Postgres, None, "", None, "r1").is_err());
    }

    #[test]
    fn ports_are_bound_on_loopback_unless_the_daemon_is_remote() {
        for local in [
            None,
            Some(""),
            Some("unix:///var/run/docker.sock"),
            Some("unix:///run/user/1000/docker.sock"),
            Some("tcp://127.0.0.1:2375"),
            Some("tcp://localhost:2376"),
            Some("tcp://[::1]:2375"),
        ] {
            assert_eq!(bind_ip(local), "127.0.0.1", "{local:?}");
        }
        for remote in [
            "tcp://docker:2375",
            "tcp://10.0.0.5:2376",
            "https://ci:2376/",
        ] {
            assert_eq!(bind_ip(Some(remote)), "0.0.0.0", "{remote}");
        }
        let p = ContainerPlan::new(
            EngineKind::Mysql,
            None,
            "pw",
            Some("tcp://docker:2375"),
            "r1",
        )
        .unwrap();
        assert_eq!(p.bind_ip, "0.0.0.0");
    }

    #[test]
    fn passwords_are_fresh_and_url_safe() {
        let (a, b) = (fresh_password(), fresh_password());
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert!(ContainerPlan::new(EngineKind::Postgres, None, &a, None, "r1").is_ok());
        let run = run_id();
        assert!(
            run.starts_with(&format!("{}-", std::process::id())),
            "{run}"
        );
        assert_ne!(run, run_id());
    }
}
