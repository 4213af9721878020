//! The `sqlwitness` command line: parse flags, build a validated plan, then
//! run. The binary (`main.rs`) and the Python package's `sqlwitness`
//! command call [`main_with`]; the Python API calls [`run_embedded`], the
//! same commands without the process-wide signal handler, cancelled by the
//! [`Cancel`] token the host holds.

/// `eprintln!` for a terminal: control characters and bidi overrides that
/// inputs may hold (question text, SQL, `db_id`s, file names, servers'
/// messages) are shown escaped ([`sqlwitness_core::escape_controls`]).
macro_rules! say {
    ($($arg:tt)*) => {
        eprintln!("{}", sqlwitness_core::escape_controls(&format!($($arg)*)))
    };
}

/// `eprint!` for a terminal, escaped as [`say!`].
macro_rules! say_part {
    ($($arg:tt)*) => {
        eprint!("{}", sqlwitness_core::escape_controls(&format!($($arg)*)))
    };
}

/// `println!` for a terminal, escaped as [`say!`] (JSON on standard output
/// is printed as it is: JSON escapes controls itself).
macro_rules! show {
    ($($arg:tt)*) => {
        println!("{}", sqlwitness_core::escape_controls(&format!($($arg)*)))
    };
}

/// `print!` for a terminal, escaped as [`say!`].
macro_rules! show_part {
    ($($arg:tt)*) => {
        print!("{}", sqlwitness_core::escape_controls(&format!($($arg)*)))
    };
}

mod args;
mod audit;
mod containers;
mod diff;
mod dropin;
mod eval;
mod exit;
mod fuzz;
mod import;
mod merge;
mod migrate;
mod perturb;
mod plan;
mod progress;
mod ranges;
mod scores;

use clap::Parser;

pub use exit::{
    BAD_INPUT, CONTAINERS, ENGINE, FINDINGS_EXCEED, INTERNAL, INTERRUPTED, OK, REGRESSION,
};
pub use progress::Observer as ProgressObserver;
pub use sqlwitness_run::Cancel;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// One command as it runs: its cancellation token (handed to its plan)
/// and, once the command knows it, its output folder (where an interrupted
/// run's half-written report files are removed from).
pub(crate) struct Session {
    pub cancel: Cancel,
    out: Mutex<Option<PathBuf>>,
}

impl Session {
    fn new(cancel: Cancel) -> Session {
        Session {
            cancel,
            out: Mutex::new(None),
        }
    }

    pub(crate) fn set_out(&self, out: &Path) {
        *self.out.lock().unwrap_or_else(|e| e.into_inner()) = Some(out.to_path_buf());
    }

    fn out(&self) -> Option<PathBuf> {
        self.out.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// After the run was cancelled: waits for the cancellation's hooks,
    /// then removes what a report writer left half-written.
    fn settle(&self) {
        self.cancel.settled();
        if let Some(out) = self.out() {
            eval::remove_unfinished(&out);
        }
    }
}

/// The command [`main_with`] runs, for the signal handler. The one
/// process-wide value: a signal handler is installed once per process and
/// runs on a thread of its own, so it reaches the run in flight only
/// through a static; everything else gets the run's token as a value.
static IN_FLIGHT: Mutex<Option<Arc<Session>>> = Mutex::new(None);

fn in_flight() -> Option<Arc<Session>> {
    IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The command line as the binary runs it: `argv` parsed (with the program
/// name first), SIGINT/SIGTERM handled (cancel, exit 130), errors printed
/// on stderr; returns the exit code (see the README's table).
pub fn main_with<I, T>(argv: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let argv: Vec<OsString> = argv.into_iter().map(Into::into).collect();
    let cli = match args::Cli::try_parse_from(&argv) {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version are not errors (exit 0); usage errors exit 2,
            // their message escaped (it quotes the value given).
            if e.use_stderr() {
                say_part!("{}", e.render());
            } else {
                let _ = e.print();
            }
            return e.exit_code();
        }
    };
    let session = Arc::new(Session::new(Cancel::new()));
    // A dump's database and loader login this run made, and the run's
    // logins, are dropped with the cancellation's last hooks, which the
    // command waits for: after the engines have stopped their queries in
    // flight over those logins (what a signal cannot reach is swept by the
    // next command).
    let _dumps = session
        .cancel
        .on_cancel_last(sqlwitness_engines::remove_held);
    *IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::clone(&session));
    install_interrupt_handler();
    let result = run(cli, &session);
    if session.cancel.is_cancelled() {
        // Whatever the command returned, it was cut short: the signal
        // handler's hooks finish, and it exits 130.
        session.settle();
        return exit::INTERRUPTED;
    }
    match result {
        Ok(code) => code,
        Err(err) => {
            let code = exit::code_for(&err);
            if code == exit::INTERRUPTED {
                // The signal handler is cancelling the servers' queries and
                // exits when it is done.
                session.settle();
            } else {
                say!("sqlwitness: error: {err:#}");
            }
            code
        }
    }
}

/// A command that ended in an error: its exit code (2 bad input, 3 engine,
/// 6 containers, 130 interrupted, 1 otherwise) and the message the command
/// line prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: i32,
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// One command run inside a host process (the Python API): the same
/// parsing, plan and run as [`main_with`], but no signal handler is
/// installed and nothing exits the process. `Ok` is the exit code of a
/// command that finished (0, or 3/4/5 with its report written); a flag
/// error, a failed run or a cancellation is a [`Failure`]. The host
/// cancels the run with `cancel` ([`Cancel::cancel`], from another
/// thread) as SIGINT does on the command line: the journal stops, the
/// queries in flight are cancelled, and the run returns exit code 130
/// without a report.
pub fn run_embedded<I, T>(argv: I, cancel: Cancel) -> Result<i32, Failure>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let argv: Vec<OsString> = argv.into_iter().map(Into::into).collect();
    let cli = args::Cli::try_parse_from(&argv).map_err(|e| Failure {
        code: e.exit_code(),
        message: sqlwitness_core::escape_controls(e.to_string().trim_end()).into_owned(),
    })?;
    let session = Session::new(cancel);
    run(cli, &session).map_err(|err| {
        let code = exit::code_for(&err);
        if code == exit::INTERRUPTED {
            session.settle();
        }
        Failure {
            code,
            message: sqlwitness_core::escape_controls(&format!("{err:#}")).into_owned(),
        }
    })
}

/// [`run_embedded`] with `observer` told the counts of each stage the
/// command goes through (`eval`, `audit`, `migrate`, ...) as it advances.
pub fn run_embedded_observed<I, T>(
    argv: I,
    observer: ProgressObserver,
    cancel: Cancel,
) -> Result<i32, Failure>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    progress::observed(observer, || run_embedded(argv, cancel))
}

/// SIGINT, SIGTERM (and SIGHUP): cancel the run in flight — its journal
/// stops, the servers' queries in flight are cancelled, the dump databases
/// and loader logins it holds are dropped ([`sqlwitness_engines::remove_held`])
/// — remove what a report writer left half-written, exit 130. A second
/// signal while this runs exits at once.
fn install_interrupt_handler() {
    let result = ctrlc::set_handler(|| {
        let Some(session) = in_flight() else {
            std::process::exit(exit::INTERRUPTED);
        };
        if session.cancel.is_cancelled() {
            std::process::exit(exit::INTERRUPTED);
        }
        session.cancel.cancel();
        if let Some(out) = session.out() {
            eval::remove_unfinished(&out);
            say!(
                "\nsqlwitness: interrupted; no report written. {} holds what finished: rerun \
                 with --resume to continue",
                out.join(sqlwitness_run::JOURNAL_FILE).display()
            );
        } else {
            say!("\nsqlwitness: interrupted");
        }
        std::process::exit(exit::INTERRUPTED);
    });
    if let Err(e) = result {
        say!("sqlwitness: warning: no interrupt handler ({e}); an interrupted run may leave queries running until their time limit");
    }
}

/// `eval` up to the run: the plan validated and given to `adjust` (a plan
/// refused leaves the output folder as it was), then the outputs of an
/// earlier run removed (before anything else can fail: an older report
/// must not pass for this run's), the containers of `--containers` started
/// (removed when the returned guard drops).
pub(crate) fn prepare_eval(
    a: args::EvalArgs,
    session: &Session,
    adjust: impl FnOnce(&mut sqlwitness_eval::EvalPlan) -> anyhow::Result<()>,
) -> anyhow::Result<(sqlwitness_eval::EvalPlan, containers::Started)> {
    let out = a.out.clone();
    let containers = containers::plans_from_env(
        &a.containers,
        &plan::parse_engines(&a.engines)?,
        &a.servers,
        !a.no_migrate,
    )?;
    let quiet = a.quiet;
    let mut plan = plan::eval_plan(a, session.cancel.clone())?;
    adjust(&mut plan)?;
    eval::clear_outputs(&out)?;
    session.set_out(&out);
    let started = containers::start(&containers, &mut plan.servers, quiet, &session.cancel)?;
    Ok((plan, started))
}

fn run(cli: args::Cli, session: &Session) -> anyhow::Result<i32> {
    match cli.command {
        args::Command::Eval(a) => {
            let audit = match &a.audit {
                Some(path) => Some(eval::audit_notes(path, &a.bench.split, &a.out)?),
                None => None,
            };
            let summary = !a.no_summary;
            // Removed when this scope ends, whatever the outcome.
            let (plan, _containers) = prepare_eval(a, session, |_| Ok(()))?;
            import::from_manifest(&plan.bench, Some(&plan.servers), plan.quiet)?;
            eval::run(&plan, audit.as_ref(), summary)
        }
        args::Command::SpiderEval(a) => dropin::spider_eval(a, session),
        args::Command::BirdEval(a) => dropin::bird_eval(a, session),
        args::Command::Merge(a) => {
            eval::clear_outputs(&a.out)?;
            session.set_out(&a.out);
            merge::run(&a, &session.cancel)
        }
        args::Command::Migrate(a) => {
            let mut plan = plan::MigratePlan::from_args(a)?;
            let _containers = containers::start(
                &plan.containers,
                &mut plan.servers,
                plan.quiet,
                &session.cancel,
            )?;
            migrate::run(&plan)
        }
        args::Command::Diff(a) => diff::run(&a),
        args::Command::Import(a) => import::run(&a),
        args::Command::Perturb(a) => perturb::run(&a, session),
        args::Command::Robustness(a) => perturb::robustness(&a),
        args::Command::Fuzz(a) => {
            session.set_out(&a.out);
            fuzz::run(&a, &session.cancel)
        }
        args::Command::StandIns(a) => {
            let schemas = sqlwitness_bench::load_tables_json(&a.tables)?;
            for schema in schemas.values() {
                sqlwitness_bench::build_schema_database(schema, &a.out, a.rows)?;
            }
            say!("{} databases in {}", schemas.len(), a.out.display());
            Ok(exit::OK)
        }
        args::Command::Audit(a) => audit::run(a, session),
    }
}
