//! `--containers` (eval, migrate, audit): the server engines of
//! `--engines` run in Docker containers the command starts itself
//! (testcontainers), migrates into, and removes when it ends — normally,
//! on an error, or on SIGINT/SIGTERM (a hook on the run's cancellation
//! token, run after the servers' queries are cancelled).
//!
//! Two stages as everywhere in the CLI: [`plans`] checks the flags and
//! builds the containers' plans without touching Docker; [`start`] (after
//! the command's own plan validated its inputs) asks the daemon, starts
//! the containers and points the run's [`Servers`] at them.

use anyhow::{bail, Result};
use clap::Args;
use sqlwitness_dialect::EngineFacts;

use sqlwitness_core::EngineKind;
use sqlwitness_engines::{ContainerPlan, ImageRef};
use sqlwitness_run::{Cancel, Servers};

use crate::args::ServerArgs;
use crate::exit::BadInput;

#[derive(Debug, Clone, Default, Args)]
pub struct ContainerArgs {
    /// Start the server engines of --engines (postgres, mysql, mariadb) in
    /// Docker containers for this run, migrate into them, and remove them
    /// when the run ends (also on an error or Ctrl-C). Needs a Docker
    /// daemon (DOCKER_HOST, else the local socket); exit 6 when none
    /// answers. --server and --reader are then not given for those
    /// engines (their SQLWITNESS_<ENGINE>_URL variables are ignored).
    #[arg(long, env = "SQLWITNESS_CONTAINERS")]
    pub containers: bool,
    /// With --containers: the image of an engine's container,
    /// `ENGINE=IMAGE` (repeatable; else SQLWITNESS_<ENGINE>_IMAGE; default
    /// postgres:15.20, mysql:9.7.4, mariadb:10.11.19), e.g.
    /// `postgres=registry.local/postgres:15.20` for a local registry.
    #[arg(long = "image", value_name = "ENGINE=IMAGE")]
    pub images: Vec<String>,
}

/// The environment variable naming an engine's container image
/// (`SQLWITNESS_POSTGRES_IMAGE`).
pub fn image_env(kind: EngineKind) -> String {
    format!("SQLWITNESS_{}_IMAGE", kind.as_str().to_ascii_uppercase())
}

/// The containers `a` asks for, for a run on `engines` (`migrate`: the
/// run migrates into the servers). Empty without `--containers`. Reads
/// `SQLWITNESS_<ENGINE>_IMAGE` and `DOCKER_HOST` through `env`; the
/// password and run label are `password` and `run`.
pub fn plans(
    a: &ContainerArgs,
    engines: &[EngineKind],
    servers: &ServerArgs,
    migrate: bool,
    env: &dyn Fn(&str) -> Option<String>,
    password: &str,
    run: &str,
) -> Result<Vec<ContainerPlan>> {
    if !a.containers {
        if let Some(i) = a.images.first() {
            bail!(BadInput(format!(
                "--image {i}: images are for --containers"
            )));
        }
        return Ok(Vec::new());
    }
    let wanted: Vec<EngineKind> = engines.iter().copied().filter(|k| k.is_server()).collect();
    if wanted.is_empty() {
        bail!(BadInput(format!(
            "--containers: no server engine in --engines ({}); sqlite runs embedded, add \
             postgres, mysql or mariadb",
            engines
                .iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(",")
        )));
    }
    if !migrate {
        bail!(BadInput(
            "--containers with --no-migrate: the containers start empty, the benchmark's \
             databases have to be migrated into them"
                .into()
        ));
    }
    for (flag, pairs) in [
        ("--server", &servers.servers),
        ("--reader", &servers.readers),
    ] {
        for p in pairs.iter() {
            let name = p.split_once('=').map_or(p.as_str(), |(n, _)| n);
            if let Some(k) = EngineKind::parse(name).filter(|k| wanted.contains(k)) {
                bail!(BadInput(format!(
                    "{flag} {k}=…: with --containers, {k} runs in a container this run \
                     starts; give either --containers or {flag} for it"
                )));
            }
        }
    }
    let mut images = std::collections::BTreeMap::new();
    for spec in &a.images {
        let (name, image) = spec
            .split_once('=')
            .ok_or_else(|| BadInput(format!("--image `{spec}`: expected ENGINE=IMAGE")))?;
        let kind = EngineKind::parse(name.trim()).ok_or_else(|| {
            BadInput(format!(
                "--image `{spec}`: unknown engine `{name}` (expected {})",
                EngineKind::names()
            ))
        })?;
        if !wanted.contains(&kind) {
            bail!(BadInput(format!(
                "--image `{spec}`: {kind} is not a server engine of --engines"
            )));
        }
        let image =
            ImageRef::parse(image).map_err(|e| BadInput(format!("--image `{spec}`: {e}")))?;
        images.insert(kind, image);
    }
    let docker_host = env("DOCKER_HOST");
    wanted
        .into_iter()
        .map(|kind| {
            let image = match images.remove(&kind) {
                Some(i) => Some(i),
                None => match env(&image_env(kind)).filter(|v| !v.trim().is_empty()) {
                    Some(v) => Some(
                        ImageRef::parse(&v)
                            .map_err(|e| BadInput(format!("{}: {e}", image_env(kind))))?,
                    ),
                    None => None,
                },
            };
            ContainerPlan::new(kind, image, password, docker_host.as_deref(), run)
                .map_err(|e| BadInput(e.to_string()).into())
        })
        .collect()
}

/// [`plans`] with the process environment, a fresh password and run id.
pub fn plans_from_env(
    a: &ContainerArgs,
    engines: &[EngineKind],
    servers: &ServerArgs,
    migrate: bool,
) -> Result<Vec<ContainerPlan>> {
    plans(
        a,
        engines,
        servers,
        migrate,
        &|k| std::env::var(k).ok(),
        &sqlwitness_engines::fresh_password(),
        &sqlwitness_engines::run_id(),
    )
}

/// The containers of a run: removed on drop, and by a hook on the run's
/// token when the run is cancelled.
pub struct Started {
    #[cfg(feature = "containers")]
    servers: Vec<sqlwitness_engines::StartedServer>,
    #[cfg(feature = "containers")]
    _hook: Option<sqlwitness_run::OnCancel>,
    #[cfg(feature = "containers")]
    cancel: Cancel,
}

impl Started {
    /// Nothing started (no `--containers`).
    pub fn none() -> Started {
        Started {
            #[cfg(feature = "containers")]
            servers: Vec::new(),
            #[cfg(feature = "containers")]
            _hook: None,
            #[cfg(feature = "containers")]
            cancel: Cancel::new(),
        }
    }
}

/// How long the daemon has to answer a ping.
#[cfg(feature = "containers")]
const PING_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Starts the containers of `plans` (none: nothing happens) and makes
/// them the administrative URLs of `servers`. No Docker daemon: exit 6
/// (`EngineError::NoDocker`); a container that does not start: exit 6,
/// the ones already started are removed. Cancelling `cancel` removes them
/// too, after the other hooks of the run.
#[cfg(feature = "containers")]
pub fn start(
    plans: &[ContainerPlan],
    servers: &mut Servers,
    quiet: bool,
    cancel: &Cancel,
) -> Result<Started> {
    use std::time::Instant;
    let Some(first) = plans.first() else {
        return Ok(Started::none());
    };
    sqlwitness_engines::docker_available(PING_TIMEOUT)?;
    let run = first
        .labels
        .iter()
        .find(|(k, _)| k == sqlwitness_engines::CONTAINER_RUN_LABEL)
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    // Registered before the first start: a cancellation while an image is
    // pulled or a server initialises removes what this run created so far.
    let hook =
        cancel.on_cancel_last(
            move || match sqlwitness_engines::remove_run(&run, PING_TIMEOUT) {
                Ok(n) => say!("sqlwitness: removed {n} container(s) of this run"),
                Err(e) => say!(
                    "sqlwitness: warning: {e}; remove them with `docker rm -f $(docker ps -aq \
                 --filter label={}={run})`",
                    sqlwitness_engines::CONTAINER_RUN_LABEL
                ),
            },
        );
    let mut started = Started {
        servers: Vec::new(),
        _hook: Some(hook),
        cancel: cancel.clone(),
    };
    for plan in plans {
        let t = Instant::now();
        if !quiet {
            say!("container: starting {} ({})…", plan.engine, plan.image);
        }
        let server = sqlwitness_engines::start_container(plan)?;
        if !quiet {
            say!(
                "container: {} ready at {} ({:.1} s)",
                plan.engine,
                sqlwitness_engines::mask_url(server.url()),
                t.elapsed().as_secs_f64()
            );
        }
        servers.set_started(plan.engine, server.url());
        started.servers.push(server);
    }
    Ok(started)
}

#[cfg(not(feature = "containers"))]
pub fn start(
    plans: &[ContainerPlan],
    _servers: &mut Servers,
    _quiet: bool,
    _cancel: &Cancel,
) -> Result<Started> {
    if plans.is_empty() {
        return Ok(Started::none());
    }
    bail!(crate::exit::ContainerFailure(
        "--containers: this build has no container support (the `containers` feature of \
         sqlwitness-cli)"
            .into()
    ))
}

#[cfg(feature = "containers")]
impl Drop for Started {
    fn drop(&mut self) {
        if self.servers.is_empty() || self.cancel.is_cancelled() {
            // Cancelled: the hook removes them.
            return;
        }
        let n = self.servers.len();
        for s in self.servers.drain(..) {
            let engine = s.plan().engine;
            if let Err(e) = s.stop() {
                say!("sqlwitness: warning: {engine} container: {e}");
            }
        }
        say!("container: removed {n} container(s)");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(images: &[&str]) -> ContainerArgs {
        ContainerArgs {
            containers: true,
            images: images.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn kinds(names: &str) -> Vec<EngineKind> {
        names
            .split(',')
            .map(|n| EngineKind::parse(n).unwrap())
            .collect()
    }

    fn run(
        a: &ContainerArgs,
        engines: &str,
        servers: &ServerArgs,
        env: &[(&str, &str)],
    ) -> Result<Vec<ContainerPlan>> {
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        plans(
            a,
            &kinds(engines),
            servers,
            true,
            &move |k| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()),
            "pw",
            "run-1",
        )
    }

    #[test]
    fn one_container_per_server_engine_with_default_images() {
        let p = run(
            &args(&[]),
            "sqlite,postgres,mysql,mariadb",
            &ServerArgs::default(),
            &[],
        )
        .unwrap();
        let got: Vec<(EngineKind, String)> =
            p.iter().map(|p| (p.engine, p.image.to_string())).collect();
        assert_eq!(
            got,
            [
                (EngineKind::Postgres, "postgres:15.20".to_string()),
                (EngineKind::Mysql, "mysql:9.7.4".to_string()),
                (EngineKind::Mariadb, "mariadb:10.11.19".to_string()),
            ]
        );
        assert!(p.iter().all(|p| p.bind_ip == "127.0.0.1"));
        assert_eq!(
            p[0].url("127.0.0.1", 5),
            "postgres://root:pw@127.0.0.1:5/test"
        );
        assert!(p[1]
            .labels
            .contains(&("sqlwitness.run".to_string(), "run-1".to_string())));
    }

    #[test]
    fn images_from_flags_then_environment() {
        let p = run(
            &args(&["postgres=registry.local/postgres:15"]),
            "postgres,mysql",
            &ServerArgs::default(),
            &[
                ("SQLWITNESS_POSTGRES_IMAGE", "ignored:1"),
                ("SQLWITNESS_MYSQL_IMAGE", "registry.local:5000/mysql:8.4"),
                ("DOCKER_HOST", "tcp://docker:2375"),
            ],
        )
        .unwrap();
        assert_eq!(p[0].image.to_string(), "registry.local/postgres:15");
        assert_eq!(p[1].image.to_string(), "registry.local:5000/mysql:8.4");
        // A remote daemon: published on every interface (the password
        // guards it).
        assert_eq!(p[0].bind_ip, "0.0.0.0");
    }

    #[test]
    fn bad_flags_are_bad_input() {
        let bad = |a: &ContainerArgs, engines: &str, servers: &ServerArgs, migrate: bool| {
            let e = plans(a, &kinds(engines), servers, migrate, &|_| None, "pw", "r").unwrap_err();
            assert_eq!(crate::exit::code_for(&e), crate::exit::BAD_INPUT, "{e:#}");
            format!("{e:#}")
        };
        let none = ServerArgs::default();
        assert!(bad(&args(&[]), "sqlite", &none, true).contains("no server engine"));
        assert!(bad(&args(&[]), "postgres", &none, false).contains("--no-migrate"));
        let given = ServerArgs {
            servers: vec!["postgres=postgres://x@h/db".into()],
            ..ServerArgs::default()
        };
        assert!(bad(&args(&[]), "postgres", &given, true).contains("--server postgres"));
        assert!(bad(&args(&["mysql=mysql:9"]), "postgres", &none, true)
            .contains("not a server engine of --engines"));
        assert!(bad(&args(&["postgres"]), "postgres", &none, true).contains("ENGINE=IMAGE"));
        assert!(bad(&args(&["oracle=x:1"]), "postgres", &none, true).contains("unknown engine"));
        assert!(
            bad(&args(&["postgres=pg@sha256:ab"]), "postgres", &none, true).contains("digests")
        );
        let off = ContainerArgs {
            containers: false,
            images: vec!["postgres=pg:1".into()],
        };
        assert!(bad(&off, "postgres", &none, true).contains("images are for --containers"));
        // Without --containers nothing is planned, --server is fine.
        let p = plans(
            &ContainerArgs::default(),
            &kinds("postgres"),
            &given,
            true,
            &|_| None,
            "pw",
            "r",
        )
        .unwrap();
        assert!(p.is_empty());
        // --server for an engine that is not containerised is fine.
        let given_mysql = ServerArgs {
            servers: vec!["mysql=mysql://x@h/db".into()],
            ..ServerArgs::default()
        };
        let p = plans(
            &ContainerArgs {
                containers: true,
                images: vec![],
            },
            &kinds("postgres"),
            &given_mysql,
            true,
            &|_| None,
            "pw",
            "r",
        )
        .unwrap();
        assert_eq!(
            p.iter().map(|p| p.engine).collect::<Vec<_>>(),
            [EngineKind::Postgres]
        );
    }
}
