//! The `sqlwitness` binary: parse flags, build a validated plan, then run.

mod args;
mod audit;
mod containers;
mod diff;
mod eval;
mod exit;
mod fuzz;
mod import;
mod merge;
mod migrate;
mod perturb;
mod plan;
mod progress;
mod scores;

use clap::Parser;

/// The output folder of the running command, for the interrupt handler.
static OUT: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let cli = args::Cli::parse();
    install_interrupt_handler();
    let code = match run(cli, &argv) {
        Ok(code) => code,
        Err(err) => {
            let code = exit::code_for(&err);
            if code == exit::INTERRUPTED {
                // The signal handler is cancelling the servers' queries and
                // exits when it is done.
                sqlwitness_eval::settled();
                if let Some(out) = OUT.get() {
                    eval::remove_unfinished(out);
                }
            } else {
                eprintln!("sqlwitness: error: {err:#}");
            }
            code
        }
    };
    std::process::exit(code);
}

/// SIGINT, SIGTERM (and SIGHUP): stop the journals and the servers' queries
/// in flight ([`sqlwitness_eval::interrupt`]), remove what a report writer
/// left half-written, exit 130. A second signal while this runs exits at
/// once.
fn install_interrupt_handler() {
    let result = ctrlc::set_handler(|| {
        if sqlwitness_eval::interrupted() {
            std::process::exit(exit::INTERRUPTED);
        }
        sqlwitness_eval::interrupt();
        if let Some(out) = OUT.get() {
            eval::remove_unfinished(out);
            eprintln!(
                "\nsqlwitness: interrupted; no report written. {} holds what finished: rerun \
                 with --resume to continue",
                out.join(sqlwitness_eval::JOURNAL_FILE).display()
            );
        } else {
            eprintln!("\nsqlwitness: interrupted");
        }
        std::process::exit(exit::INTERRUPTED);
    });
    if let Err(e) = result {
        eprintln!("sqlwitness: warning: no interrupt handler ({e}); an interrupted run may leave queries running until their time limit");
    }
}

fn run(cli: args::Cli, argv: &[String]) -> anyhow::Result<i32> {
    match cli.command {
        args::Command::Eval(a) => {
            // Before anything can fail: an older report must not pass for
            // this run's.
            eval::clear_outputs(&a.out)?;
            let _ = OUT.set(a.out.clone());
            let containers = containers::plans_from_env(
                &a.containers,
                &plan::parse_engines(&a.engines)?,
                &a.servers,
                !a.no_migrate,
            )?;
            let quiet = a.quiet;
            let audit = match &a.audit {
                Some(path) => Some(eval::audit_notes(path, &a.bench.split, &a.out)?),
                None => None,
            };
            let mut plan = plan::eval_plan(a, plan::journal_args(argv))?;
            // Removed when this scope ends, whatever the outcome.
            let _containers = containers::start(&containers, &mut plan.servers, quiet)?;
            eval::run(&plan, audit.as_ref())
        }
        args::Command::Merge(a) => {
            eval::clear_outputs(&a.out)?;
            let _ = OUT.set(a.out.clone());
            merge::run(&a)
        }
        args::Command::Migrate(a) => {
            let mut plan = plan::MigratePlan::from_args(a)?;
            let _containers = containers::start(&plan.containers, &mut plan.servers, plan.quiet)?;
            migrate::run(&plan)
        }
        args::Command::Diff(a) => diff::run(&a),
        args::Command::Import(a) => import::run(&a),
        args::Command::Perturb(a) => perturb::run(&a),
        args::Command::Robustness(a) => perturb::robustness(&a),
        args::Command::Fuzz(a) => {
            let _ = OUT.set(a.out.clone());
            fuzz::run(&a, plan::journal_args(argv))
        }
        args::Command::StandIns(a) => {
            let schemas = sqlwitness_bench::load_tables_json(&a.tables)?;
            for schema in schemas.values() {
                sqlwitness_bench::build_schema_database(schema, &a.out, a.rows)?;
            }
            eprintln!("{} databases in {}", schemas.len(), a.out.display());
            Ok(exit::OK)
        }
        args::Command::Audit(a) => {
            eval::clear_files(&a.out, eval::AUDIT_OUTPUTS)?;
            let golds: Vec<String> = sqlwitness_core::EngineKind::ALL
                .iter()
                .map(|k| format!("gold_{k}.sql"))
                .collect();
            eval::clear_files(
                &a.out,
                &golds.iter().map(String::as_str).collect::<Vec<_>>(),
            )?;
            let _ = OUT.set(a.out.clone());
            audit::run(a, plan::journal_args(argv))
        }
    }
}
