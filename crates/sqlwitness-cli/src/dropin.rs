//! Drop-in command lines for the official evaluators: `spider-eval` takes
//! the Spider test-suite evaluator's flags (`evaluation.py`), `bird-eval`
//! BIRD mini-dev's (`evaluation_ex.py`); each prints the evaluator's table
//! on standard output. Underneath is `eval`: the files the flags name are
//! laid out as a Spider `_gold.sql` benchmark in a temporary folder, the
//! plan is pointed back at the user's files, and the run, its verdicts and
//! its report are `eval`'s, with the cross-engine options behind flags.

use anyhow::{bail, Context, Result};
use clap::{Args, Parser};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use sqlwitness_report::{write_report_with, LevelSummary, Report};

use crate::args::{CompareArg, EvalArgs, ServerArgs};
use crate::containers::ContainerArgs;
use crate::exit::{self, BadInput};
use crate::progress::Bars;

#[derive(Debug, Args)]
pub struct SpiderEvalArgs {
    /// The gold queries: `SQL<TAB>db_id` a line (Spider's `dev_gold.sql`).
    #[arg(long)]
    pub gold: PathBuf,
    /// The predicted queries: one a line, in the gold's order.
    #[arg(long)]
    pub pred: PathBuf,
    /// The folder of the databases, `<db_id>/<db_id>.sqlite`.
    #[arg(long)]
    pub db: PathBuf,
    /// The `tables.json` schema file (the official evaluator needs it for
    /// exact match only).
    #[arg(long)]
    pub table: Option<PathBuf>,
    /// `exec` (execution accuracy). `all` prints the execution table only;
    /// exact set match (`match`) is not implemented.
    #[arg(long, default_value = "exec", value_parser = ["all", "exec", "match"])]
    pub etype: String,
    /// Not implemented: refused (exit 2) rather than scored differently.
    #[arg(long = "plug_value", alias = "plug-value")]
    pub plug_value: bool,
    /// Keep DISTINCT (the official evaluator deletes it by default).
    #[arg(long = "keep_distinct", alias = "keep-distinct")]
    pub keep_distinct: bool,
    /// Accepted for compatibility; a progress bar shows on a terminal anyway.
    #[arg(
        long = "progress_bar_for_each_datapoint",
        alias = "progress-bar-for-each-datapoint"
    )]
    pub progress_bar_for_each_datapoint: bool,
    #[command(flatten)]
    pub extras: Extras,
}

#[derive(Debug, Args)]
pub struct BirdEvalArgs {
    /// The predictions: BIRD JSON (`{"0": "SQL\t----- bird -----\tdb_id"}`).
    #[arg(long = "predicted_sql_path", alias = "predicted-sql-path")]
    pub predicted_sql_path: PathBuf,
    /// The gold queries: `SQL<TAB>db_id` a line.
    #[arg(long = "ground_truth_path", alias = "ground-truth-path")]
    pub ground_truth_path: PathBuf,
    /// The folder of the SQLite databases, `<db_id>/<db_id>.sqlite` (the
    /// servers' copies are migrated from them).
    #[arg(long = "db_root_path", alias = "db-root-path")]
    pub db_root_path: PathBuf,
    /// The questions with their `difficulty`, in the gold's order (a JSON
    /// array or JSON lines).
    #[arg(long = "diff_json_path", alias = "diff-json-path")]
    pub diff_json_path: Option<PathBuf>,
    /// The engine the queries run on: SQLite, MySQL or PostgreSQL
    /// (`--engines` overrides it).
    #[arg(long = "sql_dialect", alias = "sql-dialect", default_value = "SQLite")]
    pub sql_dialect: String,
    /// Worker threads (the official evaluator's processes; 1 to 1024).
    #[arg(allow_hyphen_values = true, long = "num_cpus", alias = "num-cpus", value_parser = crate::ranges::jobs())]
    pub num_cpus: Option<usize>,
    /// Per-query time limit in seconds (0.001 to 86400: a day).
    #[arg(
        long = "meta_time_out",
        alias = "meta-time-out",
        allow_hyphen_values = true,
        default_value_t = 30.0,
        value_parser = crate::ranges::seconds
    )]
    pub meta_time_out: f64,
    /// Append the table to this file, as the official evaluator does.
    #[arg(long = "output_log_path", alias = "output-log-path")]
    pub output_log_path: Option<PathBuf>,
    #[command(flatten)]
    pub extras: Extras,
}

/// sqlwitness's options on top of the official ones.
#[derive(Debug, Args)]
pub struct Extras {
    /// Engines to run on, comma separated: one table per engine.
    #[arg(long, value_delimiter = ',')]
    pub engines: Vec<String>,
    /// The comparison (default: the official evaluator's, `spider` or
    /// `bird`; `strict` for sqlwitness's typed multiset comparison).
    #[arg(long, value_enum)]
    pub compare: Option<CompareArg>,
    /// Keep sqlwitness's full report (report.json, summary.md, report.html,
    /// junit.xml) in this folder.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Per-query time limit in seconds (0.001 to 86400: a day; default 30).
    #[arg(allow_hyphen_values = true, long, value_parser = crate::ranges::seconds)]
    pub timeout: Option<f64>,
    /// Worker threads (1 to 1024; default: number of CPUs).
    #[arg(allow_hyphen_values = true, long, short = 'j', value_parser = crate::ranges::jobs())]
    pub jobs: Option<usize>,
    /// No progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub servers: ServerArgs,
    #[command(flatten)]
    pub containers: ContainerArgs,
}

/// What a drop-in command hands to `eval`.
struct Layout<'a> {
    gold: &'a Path,
    tables: Option<&'a Path>,
    db_dir: &'a Path,
    pred: &'a Path,
    compare: CompareArg,
    keep_distinct: bool,
    engines: Vec<String>,
    timeout: f64,
    jobs: Option<usize>,
    /// BIRD: each question's difficulty, in the gold's order.
    difficulty: Option<Vec<Option<String>>>,
}

pub fn spider_eval(a: SpiderEvalArgs) -> Result<i32> {
    if a.etype == "match" {
        bail!(BadInput(
            "--etype match: exact set match is not implemented; sqlwitness scores by execution (--etype exec)".into()
        ));
    }
    if a.plug_value {
        bail!(BadInput(
            "--plug_value: plugging the gold's values into predictions is not implemented".into()
        ));
    }
    if a.etype == "all" {
        say!("sqlwitness: warning: --etype all: the execution table only (exact set match is not implemented)");
    }
    test_suite_warning(&a.gold, &a.db)?;
    let layout = Layout {
        gold: &a.gold,
        tables: a.table.as_deref(),
        db_dir: &a.db,
        pred: &a.pred,
        compare: a.extras.compare.unwrap_or(CompareArg::Spider),
        keep_distinct: a.keep_distinct,
        engines: engines_or(&a.extras.engines, "sqlite"),
        timeout: a.extras.timeout.unwrap_or(30.0),
        jobs: a.extras.jobs,
        difficulty: None,
    };
    let (report, code) = evaluate(layout, &a.extras)?;
    let many = report.summary.engines.len() > 1;
    for (engine, s) in &report.summary.engines {
        if many {
            show!("{engine}:");
        }
        show_part!("{}", spider_table(&s.by_hardness));
    }
    Ok(code)
}

pub fn bird_eval(a: BirdEvalArgs) -> Result<i32> {
    let dialect_engine = match a.sql_dialect.as_str() {
        "SQLite" => "sqlite",
        "MySQL" => "mysql",
        "PostgreSQL" => "postgres",
        other => bail!(BadInput(format!(
            "--sql_dialect: `{other}` is not one of SQLite, MySQL, PostgreSQL"
        ))),
    };
    let difficulty = match &a.diff_json_path {
        Some(p) => Some(read_difficulties(p)?),
        None => None,
    };
    let layout = Layout {
        gold: &a.ground_truth_path,
        tables: None,
        db_dir: &a.db_root_path,
        pred: &a.predicted_sql_path,
        compare: a.extras.compare.unwrap_or(CompareArg::Bird),
        keep_distinct: true,
        engines: engines_or(&a.extras.engines, dialect_engine),
        timeout: a.extras.timeout.unwrap_or(a.meta_time_out),
        jobs: a.extras.jobs.or(a.num_cpus),
        difficulty,
    };
    let (report, code) = evaluate(layout, &a.extras)?;
    show!("start calculate EX");
    let many = report.summary.engines.len() > 1;
    let mut log = String::new();
    for (engine, s) in &report.summary.engines {
        if many {
            show!("{engine}:");
        }
        let table = bird_table(&s.by_difficulty, s.questions, s.matched);
        show_part!("{table}");
        log.push_str(&table);
    }
    show!("===========================================================================================");
    show!(
        "Finished EX evaluation for {} on Mini Dev set\n\n",
        a.sql_dialect
    );
    if let Some(path) = &a.output_log_path {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("--output_log_path {}", path.display()))?;
        write!(
            f,
            "start calculate EX\n{log}===========================================================================================\nFinished EX evaluation for mini dev set\n\n"
        )
        .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(code)
}

fn engines_or(given: &[String], default: &str) -> Vec<String> {
    if given.is_empty() {
        vec![default.to_string()]
    } else {
        given.to_vec()
    }
}

/// The official Spider evaluator runs each query on every file of the
/// database's folder whose name contains `.sqlite` (its test suites);
/// sqlwitness runs on `<db_id>.sqlite` only, and says so.
fn test_suite_warning(gold: &Path, db_dir: &Path) -> Result<()> {
    let text = sqlwitness_core::read_input_to_string(gold, sqlwitness_core::input::BENCHMARK_FILE)
        .map_err(|e| BadInput(format!("--gold {}: {e}", gold.display())))?;
    let mut dbs: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().rsplit_once('\t').map(|(_, db)| db.trim()))
        .collect();
    dbs.sort_unstable();
    dbs.dedup();
    let with_suites = dbs
        .iter()
        .filter(|db| {
            std::fs::read_dir(db_dir.join(db)).is_ok_and(|entries| {
                entries
                    .flatten()
                    .filter(|e| e.file_name().to_string_lossy().contains(".sqlite"))
                    .count()
                    > 1
            })
        })
        .count();
    if with_suites > 0 {
        say!(
            "sqlwitness: warning: {with_suites} database folders in {} hold several `.sqlite` files: the official evaluator runs on all of them (test-suite accuracy), spider-eval on `<db_id>.sqlite` only (test suites: `sqlwitness fuzz` and `eval --suite`)",
            db_dir.display()
        );
    }
    Ok(())
}

/// `difficulty` of every entry of a JSON array or a JSON-lines file.
fn read_difficulties(path: &Path) -> Result<Vec<Option<String>>> {
    let text = sqlwitness_core::read_input_to_string(path, sqlwitness_core::input::BENCHMARK_FILE)
        .map_err(|e| BadInput(format!("--diff_json_path {}: {e}", path.display())))?;
    let entries: Vec<serde_json::Value> = if text.trim_start().starts_with('[') {
        serde_json::from_str(&text)
            .map_err(|e| BadInput(format!("--diff_json_path {}: {e}", path.display())))?
    } else {
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(n, l)| {
                serde_json::from_str(l).map_err(|e| {
                    BadInput(format!(
                        "--diff_json_path {}: line {}: {e}",
                        path.display(),
                        n + 1
                    ))
                })
            })
            .collect::<Result<_, _>>()?
    };
    Ok(entries
        .iter()
        .map(|e| {
            e.get("difficulty")
                .and_then(|d| d.as_str())
                .map(String::from)
        })
        .collect())
}

/// Only to parse `eval`'s flags into [`EvalArgs`].
#[derive(Parser)]
struct EvalOnly {
    #[command(flatten)]
    eval: EvalArgs,
}

/// Runs `eval` on the files of `l`: the report (written to `--out` when
/// given) and the exit code (3 when questions ended `engine_error`).
fn evaluate(l: Layout, x: &Extras) -> Result<(Report, i32)> {
    for (flag, path) in [("gold", l.gold), ("predictions", l.pred)] {
        if !path.is_file() {
            bail!(BadInput(format!(
                "{flag}: {} is not a file",
                path.display()
            )));
        }
    }
    if !l.db_dir.is_dir() {
        bail!(BadInput(format!(
            "databases: {} is not a folder",
            l.db_dir.display()
        )));
    }
    let tmp = tempfile::Builder::new()
        .prefix("sqlwitness-dropin-")
        .tempdir()
        .context("creating a temporary folder")?;
    std::fs::copy(l.gold, tmp.path().join("dev_gold.sql"))
        .with_context(|| format!("reading {}", l.gold.display()))?;
    match l.tables {
        Some(t) => std::fs::copy(t, tmp.path().join("tables.json"))
            .map(|_| ())
            .map_err(|e| BadInput(format!("--table {}: {e}", t.display())))?,
        None => std::fs::write(tmp.path().join("tables.json"), "[]")?,
    }
    let out = x.out.clone().unwrap_or_else(|| tmp.path().join("out"));
    let mut argv: Vec<std::ffi::OsString> = vec!["eval".into(), "--bench".into()];
    argv.push(tmp.path().into());
    argv.extend(["--split".into(), "dev".into(), "--pred".into()]);
    argv.push(l.pred.into());
    argv.push("--out".into());
    argv.push(out.clone().into());
    let mut e = EvalOnly::try_parse_from(argv)
        .map_err(|err| BadInput(err.to_string()))?
        .eval;
    e.engines = l.engines;
    e.compare = l.compare;
    e.keep_distinct = l.keep_distinct;
    e.timeout = l.timeout;
    e.jobs = l.jobs;
    e.quiet = x.quiet;
    e.servers = x.servers.clone();
    e.containers = x.containers.clone();
    let db_dir = l.db_dir.to_path_buf();
    let gold = l.gold.to_path_buf();
    let difficulty = l.difficulty;
    let (plan, _containers) = crate::prepare_eval(e, |plan| {
        // The report names the user's files, and the databases are read
        // where they are.
        plan.bench.database_dir = db_dir.clone();
        plan.bench.source_file = gold;
        plan.bench_arg = db_dir;
        if let Some(levels) = difficulty {
            if levels.len() != plan.bench.questions.len() {
                bail!(BadInput(format!(
                    "--diff_json_path: {} entries for {} gold queries",
                    levels.len(),
                    plan.bench.questions.len()
                )));
            }
            for (q, d) in plan.bench.questions.iter_mut().zip(levels) {
                q.difficulty = d;
            }
        }
        Ok(())
    })?;
    let report = sqlwitness_eval::evaluate(&plan, &Bars { quiet: plan.quiet })?;
    if x.out.is_some() {
        write_report_with(&plan.out, &report, None)?;
        say!("report: {}", plan.out.join("report.json").display());
    }
    let mut code = exit::OK;
    for (engine, s) in &report.summary.engines {
        if s.missing_db + s.engine_error > 0 {
            say!(
                "sqlwitness: warning: {engine}: {} questions without a database and {} the engine could not run count as wrong (the official evaluator stops on them)",
                s.missing_db, s.engine_error
            );
        }
        if s.engine_error > 0 {
            code = exit::ENGINE;
        }
    }
    Ok((report, code))
}

/// `{:<20}` cells after a 20-wide row name, as the evaluators'
/// `print_formated_s` and `print_data` write them.
fn row(out: &mut String, name: &str, cells: &[String]) {
    let _ = write!(out, "{name:20}");
    for c in cells {
        let _ = write!(out, " {c:<20}");
    }
    out.push('\n');
}

/// Matches over every question of the level, as the evaluators divide
/// (a question without a database counts as wrong).
fn accuracy(l: &LevelSummary) -> f64 {
    if l.questions == 0 {
        0.0
    } else {
        l.matched as f64 / l.questions as f64
    }
}

/// The Spider test-suite evaluator's `print_scores` for `--etype exec`.
fn spider_table(levels: &std::collections::BTreeMap<String, LevelSummary>) -> String {
    let cols = sqlwitness_report::level_columns(true);
    let get = |c: &str| levels.get(c).cloned().unwrap_or_default();
    let mut out = String::new();
    row(
        &mut out,
        "",
        &cols.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
    );
    row(
        &mut out,
        "count",
        &cols
            .iter()
            .map(|c| get(c).questions.to_string())
            .collect::<Vec<_>>(),
    );
    out.push_str("=====================   EXECUTION ACCURACY     =====================\n");
    row(
        &mut out,
        "execution",
        &cols
            .iter()
            .map(|c| format!("{:.3}", accuracy(&get(c))))
            .collect::<Vec<_>>(),
    );
    out
}

/// BIRD mini-dev's `print_data` for EX (percentages, two decimals); the
/// total is every question, with or without a difficulty.
fn bird_table(
    levels: &std::collections::BTreeMap<String, LevelSummary>,
    questions: usize,
    matched: usize,
) -> String {
    let get = |c: &str| levels.get(c).cloned().unwrap_or_default();
    let mut counts: Vec<String> = sqlwitness_report::DIFFICULTY_LEVELS
        .iter()
        .map(|c| get(c).questions.to_string())
        .collect();
    counts.push(questions.to_string());
    let mut scores: Vec<String> = sqlwitness_report::DIFFICULTY_LEVELS
        .iter()
        .map(|c| format!("{:.2}", accuracy(&get(c)) * 100.0))
        .collect();
    let total = LevelSummary {
        questions,
        matched,
        ..Default::default()
    };
    scores.push(format!("{:.2}", accuracy(&total) * 100.0));
    let mut out = String::new();
    row(
        &mut out,
        "",
        &sqlwitness_report::level_columns(false)
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>(),
    );
    row(&mut out, "count", &counts);
    out.push_str(
        "======================================    EX    =====================================\n",
    );
    row(&mut out, "EX", &scores);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn level(questions: usize, matched: usize) -> LevelSummary {
        LevelSummary {
            questions,
            matched,
            ..Default::default()
        }
    }

    #[test]
    fn the_spider_table_is_print_scores_layout() {
        let levels: BTreeMap<String, LevelSummary> = [
            ("easy", level(4, 4)),
            ("medium", level(3, 2)),
            ("hard", level(2, 1)),
            ("extra", level(1, 0)),
            ("all", level(10, 7)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let t = spider_table(&levels);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[0],
            format!(
                "{:20} {:20} {:20} {:20} {:20} {:20}",
                "", "easy", "medium", "hard", "extra", "all"
            )
        );
        assert_eq!(
            lines[1],
            format!(
                "{:20} {:<20} {:<20} {:<20} {:<20} {:<20}",
                "count", 4, 3, 2, 1, 10
            )
        );
        assert_eq!(
            lines[2],
            "=====================   EXECUTION ACCURACY     ====================="
        );
        assert_eq!(
            lines[3],
            format!(
                "{:20} {:<20} {:<20} {:<20} {:<20} {:<20}",
                "execution", "1.000", "0.667", "0.500", "0.000", "0.700"
            )
        );
    }

    #[test]
    fn the_bird_table_counts_every_question_in_total() {
        let levels: BTreeMap<String, LevelSummary> =
            [("simple", level(2, 1)), ("moderate", level(1, 1))]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
        let t = bird_table(&levels, 4, 2);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[1],
            format!("{:20} {:<20} {:<20} {:<20} {:<20}", "count", 2, 1, 0, 4)
        );
        assert_eq!(
            lines[3],
            format!(
                "{:20} {:<20} {:<20} {:<20} {:<20}",
                "EX", "50.00", "100.00", "0.00", "50.00"
            )
        );
    }
}
