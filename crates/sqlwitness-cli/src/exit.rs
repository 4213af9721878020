//! Exit codes (documented in the README):
//!
//! | code | meaning |
//! |---|---|
//! | 0 | the run finished and wrote its report (verdicts live in the report) |
//! | 1 | internal error |
//! | 2 | bad input: a flag, a benchmark or prediction file (the message names the file and the place), a `db_id` that is not a name |
//! | 3 | an engine could not be reached, a migration failed verification, or questions ended `engine_error` (a database file that cannot be used or was not migrated among them) |
//! | 4 | regression: `eval --baseline` or `diff` found accuracy falling or new failures beyond `--tolerance` |
//! | 5 | `audit --fail-on`: findings exceed a threshold |
//! | 6 | `--containers`: no Docker daemon answers, or a container did not start or become healthy |
//! | 130 | interrupted (SIGINT, SIGTERM): no report; the journal holds what finished (`--resume`) |

use sqlwitness_bench::BenchError;

pub const OK: i32 = 0;
pub const INTERNAL: i32 = 1;
pub const BAD_INPUT: i32 = 2;
pub const ENGINE: i32 = 3;
pub const REGRESSION: i32 = 4;
pub const FINDINGS_EXCEED: i32 = 5;
pub const CONTAINERS: i32 = 6;
pub const INTERRUPTED: i32 = 130;

/// Marks an error as an engine problem (exit 3).
#[derive(Debug)]
pub struct EngineFailure(pub String);

impl std::fmt::Display for EngineFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for EngineFailure {}

/// Marks an error as a container problem (exit 6).
#[derive(Debug)]
pub struct ContainerFailure(pub String);

impl std::fmt::Display for ContainerFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for ContainerFailure {}

/// Marks an error as bad input (exit 2).
#[derive(Debug)]
pub struct BadInput(pub String);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for BadInput {}

pub fn code_for(err: &anyhow::Error) -> i32 {
    for cause in err.chain() {
        if cause.is::<BadInput>() || cause.is::<BenchError>() {
            return BAD_INPUT;
        }
        // A file refused unread (a device, a FIFO) or too large.
        if cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(sqlwitness_core::input::is_refused)
        {
            return BAD_INPUT;
        }
        if cause.is::<ContainerFailure>()
            || matches!(
                cause.downcast_ref::<sqlwitness_engines::EngineError>(),
                Some(
                    sqlwitness_engines::EngineError::NoDocker { .. }
                        | sqlwitness_engines::EngineError::Container(_)
                )
            )
        {
            return CONTAINERS;
        }
        if cause.is::<EngineFailure>() || cause.is::<sqlwitness_engines::EngineError>() {
            return ENGINE;
        }
        if let Some(code) = run_code(cause) {
            return code;
        }
    }
    INTERNAL
}

/// The code of a run's error (every command's run returns its crate's
/// error, each holding `sqlwitness_run`'s), when it has one.
fn run_code(cause: &(dyn std::error::Error + 'static)) -> Option<i32> {
    use sqlwitness_run::RunError;
    let classify = |interrupted: bool, bad_input: bool, engine: bool| {
        if interrupted {
            Some(INTERRUPTED)
        } else if bad_input {
            Some(BAD_INPUT)
        } else if engine {
            Some(ENGINE)
        } else {
            None
        }
    };
    let run = |e: &RunError| classify(e.is_interrupted(), e.is_bad_input(), e.is_engine());
    if let Some(e) = cause.downcast_ref::<RunError>() {
        return run(e);
    }
    if let Some(e) = cause.downcast_ref::<sqlwitness_eval::EvalError>() {
        return classify(e.is_interrupted(), e.is_bad_input(), e.is_engine());
    }
    if let Some(sqlwitness_fuzz::FuzzError::Run(e)) = cause.downcast_ref() {
        return run(e);
    }
    if let Some(e) = cause.downcast_ref::<sqlwitness_perturb::PerturbError>() {
        if let sqlwitness_perturb::PerturbError::Run(e) = e {
            return run(e);
        }
        return classify(e.is_interrupted(), e.is_bad_input(), false);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlwitness_engines::EngineError;

    #[test]
    fn container_errors_exit_6() {
        let no_docker = anyhow::Error::new(EngineError::NoDocker {
            host: "unix:///var/run/docker.sock".into(),
            reason: "No such file or directory".into(),
        });
        assert_eq!(code_for(&no_docker), CONTAINERS);
        let failed =
            anyhow::Error::new(EngineError::Container("starting postgres".into())).context("eval");
        assert_eq!(code_for(&failed), CONTAINERS);
        assert_eq!(
            code_for(&anyhow::Error::new(ContainerFailure("x".into()))),
            CONTAINERS
        );
        let unreachable = anyhow::Error::new(EngineError::MissingUrl {
            engine: sqlwitness_core::EngineKind::Postgres,
        });
        assert_eq!(code_for(&unreachable), ENGINE);
    }
}
