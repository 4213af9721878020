//! The `sqlwitness` binary: parse flags, build a validated plan, then run.

mod args;
mod audit;
mod diff;
mod eval;
mod exit;
mod fuzz;
mod migrate;
mod plan;
mod progress;
mod scores;

use clap::Parser;

fn main() {
    let cli = args::Cli::parse();
    let code = match run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("sqlwitness: error: {err:#}");
            exit::code_for(&err)
        }
    };
    std::process::exit(code);
}

fn run(cli: args::Cli) -> anyhow::Result<i32> {
    match cli.command {
        args::Command::Eval(a) => {
            // Before anything can fail: an older report must not pass for
            // this run's.
            eval::clear_outputs(&a.out)?;
            let plan = plan::eval_plan(a)?;
            eval::run(&plan)
        }
        args::Command::Migrate(a) => {
            let plan = plan::MigratePlan::from_args(a)?;
            migrate::run(&plan)
        }
        args::Command::Diff(a) => diff::run(&a),
        args::Command::Fuzz(a) => fuzz::run(&a),
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
            audit::run(a)
        }
    }
}
