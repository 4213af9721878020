//! Drop-in command lines for the official evaluators: `spider-eval` takes
//! the Spider test-suite evaluator's flags (`evaluation.py`), `bird-eval`
//! BIRD mini-dev's (`evaluation_ex.py`) and BIRD dev's (`evaluation.py`,
//! `evaluation_ves.py` with `--ves`: [`bird_dev`]); each prints the
//! evaluator's table on standard output. Underneath is `eval`: the files the flags name are
//! laid out as a Spider `_gold.sql` benchmark in a temporary folder, the
//! plan is pointed back at the user's files, and the run, its verdicts and
//! its report are `eval`'s, with the cross-engine options behind flags.
//!
//! A drop-in prints a table only when it computed every question of it:
//! files the official script would stop on are refused first
//! ([`inputs`]), and a database missing or unusable, or a question an
//! engine could not run, ends the command without a table (the reason on
//! standard error, the report in `--out` when given).

mod bird_dev;
mod exact;
mod inputs;
mod plug;
mod tables;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sqlwitness_report::{write_report_with, Report, Verdict};

use crate::args::{CompareArg, EvalArgs, ServerArgs};
use crate::containers::ContainerArgs;
use crate::exit::{self, BadInput, ContainerFailure, EngineFailure};
use crate::progress::Bars;
use inputs::Flags;

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
    /// The `tables.json` schema file: its foreign keys, for exact match
    /// (required with --etype match and all, as by the official evaluator).
    #[arg(long)]
    pub table: Option<PathBuf>,
    /// `exec` (execution accuracy), `match` (exact set match and partial
    /// matching, each prediction that does not match printed first) or
    /// `all` (both tables), as the official evaluator prints them.
    #[arg(long, default_value = "exec", value_parser = ["all", "exec", "match"])]
    pub etype: String,
    /// A prediction that does not match as written is executed again with
    /// the gold's values plugged into its value slots, every possible way,
    /// and matches when one of them does (exec and all; with match it
    /// changes nothing, as in the official evaluator).
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

/// BIRD's two command lines: mini-dev's (`evaluation_ex.py`) and, with
/// `--data_mode`, BIRD dev's (`evaluation.py`, `evaluation_ves.py`), whose
/// three paths are text prefixes.
#[derive(Debug, Args)]
pub struct BirdEvalArgs {
    /// The predictions: BIRD JSON (`{"0": "SQL\t----- bird -----\tdb_id"}`).
    /// With --data_mode, the text before `predict_<data_mode>.json` (a
    /// folder ending with `/`).
    #[arg(long = "predicted_sql_path", alias = "predicted-sql-path")]
    pub predicted_sql_path: PathBuf,
    /// The gold queries: `SQL<TAB>db_id` a line. With --data_mode, the text
    /// before `<data_mode>_gold.sql` (a folder ending with `/`).
    #[arg(long = "ground_truth_path", alias = "ground-truth-path")]
    pub ground_truth_path: PathBuf,
    /// The folder of the SQLite databases, `<db_id>/<db_id>.sqlite` (the
    /// servers' copies are migrated from them). With --data_mode, the text
    /// before `<db_id>/<db_id>.sqlite` (so ending with `/`).
    #[arg(long = "db_root_path", alias = "db-root-path")]
    pub db_root_path: PathBuf,
    /// BIRD dev's command line (`evaluation.py --data_mode dev`): the split
    /// whose files the three paths lead to, `predict_<data_mode>.json` and
    /// `<data_mode>_gold.sql`; the table is BIRD dev's.
    #[arg(long = "data_mode", alias = "data-mode", conflicts_with_all = ["sql_dialect", "output_log_path"])]
    pub data_mode: Option<String>,
    /// BIRD dev: `gpt` (the predictions of `predict_<data_mode>.json`) or
    /// `gt` (the gold file `<data_mode>_gold.sql` under
    /// --predicted_sql_path, scored as the predictions).
    #[arg(long = "mode_predict", alias = "mode-predict", requires = "data_mode", value_parser = ["gpt", "gt"])]
    pub mode_predict: Option<String>,
    /// BIRD dev: accepted and unused, as by its script (the gold is always
    /// `<data_mode>_gold.sql`).
    #[arg(long = "mode_gt", alias = "mode-gt", requires = "data_mode")]
    pub mode_gt: Option<String>,
    /// BIRD dev: accepted and unused, as by its script (every difficulty is
    /// scored).
    #[arg(long, requires = "data_mode")]
    pub difficulty: Option<String>,
    /// The efficiency scripts, which take the same flags: with --data_mode,
    /// BIRD dev's `evaluation_ves.py` (its VES table); without, mini-dev's
    /// `evaluation_ves.py` (its R-VES table). Each correct prediction and
    /// its gold are timed 100 times, as the scripts do.
    #[arg(long)]
    pub ves: bool,
    /// Mini-dev's `evaluation_f1.py`, which takes the same flags: its Soft
    /// F1 table by difficulty (the mean of each question's Soft F1, an
    /// error counting 0). BIRD dev has no such script: not with
    /// --data_mode.
    #[arg(long, visible_alias = "soft_f1", conflicts_with_all = ["data_mode", "ves"])]
    pub f1: bool,
    /// The questions with their `difficulty`, in the gold's order (JSON
    /// lines, as mini-dev's `mini_dev_sqlite.jsonl`, or a JSON array).
    /// Required: the official evaluator stops without it.
    #[arg(long = "diff_json_path", alias = "diff-json-path")]
    pub diff_json_path: PathBuf,
    /// The engine the queries run on: SQLite, MySQL or PostgreSQL
    /// (`--engines` overrides it). Mini-dev's; not with --data_mode.
    #[arg(long = "sql_dialect", alias = "sql-dialect", default_value = "SQLite")]
    pub sql_dialect: String,
    /// Worker threads (the official evaluator's processes; 1 to 1024; with
    /// --ves 1 by default, as the script's `--num_cpus`).
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
    /// Mini-dev's; not with --data_mode.
    #[arg(long = "output_log_path", alias = "output-log-path")]
    pub output_log_path: Option<PathBuf>,
    #[command(flatten)]
    pub extras: Extras,
}

/// sqlwitness's options on top of the official ones.
#[derive(Debug, Clone, Args)]
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
    /// Use database files that are links resolving outside the database
    /// folder, as `eval --allow-outside-links` (refused by default: the
    /// folder may not make sqlwitness read files elsewhere on the machine).
    #[arg(long)]
    pub allow_outside_links: bool,
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
    flags: &'a Flags,
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
    difficulty: Option<Vec<String>>,
    /// Timed runs of each correct prediction (`eval --ves-runs`).
    ves_runs: usize,
}

/// BIRD dev's `evaluation_ves.py` times each correct prediction and its
/// gold this many times (its `iterate_num`).
const BIRD_DEV_VES_RUNS: usize = 100;
/// Mini-dev's `evaluation_ves.py` likewise (its `run_sqls_parallel`'s
/// `iterate_num`).
const MINIDEV_VES_RUNS: usize = 100;

pub fn spider_eval(a: SpiderEvalArgs, session: &crate::Session) -> Result<i32> {
    let matching = a.etype != "exec";
    let executing = a.etype != "match";
    let flags = &inputs::SPIDER;
    let db_ids = inputs::read_gold(flags, &a.gold, &a.pred)?;
    inputs::check_spider_predictions(flags, &a.pred, &a.gold, db_ids.len())?;
    let table = match (matching, a.table.as_deref()) {
        (true, None) => bail!(BadInput(format!(
            "--etype {}: exact set match needs --table (Spider's tables.json, for the foreign \
             keys); the official evaluator stops without it",
            a.etype
        ))),
        (_, table) => table,
    };
    if executing {
        test_suite_warning(&db_ids, &a.db);
    }
    let layout = Layout {
        flags,
        gold: &a.gold,
        tables: table,
        db_dir: &a.db,
        pred: &a.pred,
        compare: a.extras.compare.unwrap_or(CompareArg::Spider),
        keep_distinct: a.keep_distinct,
        engines: engines_or(&a.extras.engines, "sqlite"),
        timeout: a.extras.timeout.unwrap_or(30.0),
        jobs: a.extras.jobs,
        difficulty: None,
        ves_runs: 0,
    };
    let report = if executing {
        Some(evaluate(layout, &a.extras, session)?)
    } else {
        match_databases(&layout, &a.extras)?;
        None
    };
    let hits = match &report {
        Some(report) if a.plug_value => plug_run(&a, table, report, session)?,
        _ => plug::Hits::new(),
    };
    let Some(table) = table.filter(|_| matching) else {
        print_exec_tables(
            &report.expect("exec evaluates"),
            a.plug_value.then_some(&hits),
        );
        return Ok(exit::OK);
    };
    let run = exact::exact_match(&exact::MatchFiles {
        flags,
        gold: &a.gold,
        pred: &a.pred,
        db_dir: &a.db,
        tables: table,
    })?;
    print_match_tables(&run, report.as_ref(), &hits);
    Ok(exit::OK)
}

/// `--plug_value` with exec or all: the fillings of the questions some
/// engine does not match run in a second `eval` run; the pairs that match
/// there.
fn plug_run(
    a: &SpiderEvalArgs,
    table: Option<&Path>,
    report: &Report,
    session: &crate::Session,
) -> Result<plug::Hits> {
    let pending = plug::unmatched(report);
    let dir = tempfile::Builder::new()
        .prefix("sqlwitness-dropin-")
        .tempdir()
        .context("creating a temporary folder")?;
    let files = plug::PlugFiles {
        flags: &inputs::SPIDER,
        gold: &a.gold,
        pred: &a.pred,
        keep_distinct: a.keep_distinct,
    };
    let filled = plug::fillings(&files, &pending, dir.path())?;
    if filled.question.is_empty() {
        return Ok(plug::Hits::new());
    }
    let layout = Layout {
        flags: &inputs::SPIDER,
        gold: &filled.gold,
        tables: table,
        db_dir: &a.db,
        pred: &filled.pred,
        compare: a.extras.compare.unwrap_or(CompareArg::Spider),
        keep_distinct: a.keep_distinct,
        engines: engines_or(&a.extras.engines, "sqlite"),
        timeout: a.extras.timeout.unwrap_or(30.0),
        jobs: a.extras.jobs,
        difficulty: None,
        ves_runs: 0,
    };
    let extras = Extras {
        out: None,
        ..a.extras.clone()
    };
    let plugged = evaluate(layout, &extras, session)?;
    Ok(plug::plugged_matches(&plugged, &filled.question))
}

/// `--etype exec`: the execution table of each engine (with `hits`, the
/// questions that match once values are plugged in, as matches).
fn print_exec_tables(report: &Report, hits: Option<&plug::Hits>) {
    let many = report.summary.engines.len() > 1;
    for (engine, s) in &report.summary.engines {
        if many {
            show!("{engine}:");
        }
        let levels = match hits {
            Some(hits) => plugged_levels(report, engine, hits),
            None => s.by_hardness.clone(),
        };
        show_part!("{}", tables::spider_table(&levels));
    }
}

/// Questions and matches of `engine` by hardness (and `all`), a question
/// matching as written or once values are plugged in (`hits`).
fn plugged_levels(
    report: &Report,
    engine: &str,
    hits: &plug::Hits,
) -> BTreeMap<String, sqlwitness_report::LevelSummary> {
    let mut levels: BTreeMap<String, sqlwitness_report::LevelSummary> = BTreeMap::new();
    for q in &report.questions {
        let Some(o) = q.engines.get(engine) else {
            continue;
        };
        let hit = o.verdict == Verdict::Match || hits.contains(&(q.id, engine.to_string()));
        for level in q.hardness.iter().map(String::as_str).chain(["all"]) {
            let l = levels.entry(level.to_string()).or_default();
            l.questions += 1;
            l.matched += usize::from(hit);
        }
    }
    levels
}

/// `--etype match` (no report) and `all`: the questions that do not
/// match, then the table (with each engine's execution row for `all`).
fn print_match_tables(run: &exact::MatchRun, report: Option<&Report>, hits: &plug::Hits) {
    show_part!("{}", run.misses);
    let mut tally = sqlwitness_spider::MatchTally::default();
    run.matches.iter().for_each(|m| tally.add(m));
    let scores = tally.table();
    let Some(report) = report else {
        show_part!("{}", tables::spider_match_table(&scores, None));
        return;
    };
    let many = report.summary.engines.len() > 1;
    for engine in report.summary.engines.keys() {
        if many {
            show!("{engine}:");
        }
        let exec = exec_by_level(report, engine, &run.matches, hits);
        show_part!("{}", tables::spider_match_table(&scores, Some(&exec)));
    }
}

/// Execution accuracy of `engine` by the hardness the exact match read
/// from each gold (`easy` … `extra`, `all`), as `print_scores` divides it;
/// a question matches as written or once values are plugged in (`hits`).
fn exec_by_level(
    report: &Report,
    engine: &str,
    matches: &[sqlwitness_spider::SpiderMatch],
    hits: &plug::Hits,
) -> [f64; 5] {
    let mut matched = [0usize; 5];
    let mut counts = [0usize; 5];
    for q in &report.questions {
        let (Some(o), Some(m)) = (q.engines.get(engine), matches.get(q.id)) else {
            continue;
        };
        let level = sqlwitness_spider::Hardness::ALL
            .iter()
            .position(|h| *h == m.hardness)
            .expect("a level");
        let hit = o.verdict == Verdict::Match || hits.contains(&(q.id, engine.to_string()));
        for at in [level, 4] {
            counts[at] += 1;
            matched[at] += usize::from(hit);
        }
    }
    std::array::from_fn(|at| {
        if counts[at] == 0 {
            0.0
        } else {
            matched[at] as f64 / counts[at] as f64
        }
    })
}

/// `--etype match` runs nothing but reads each database's schema: the
/// databases are refused as `eval` refuses them (missing, unusable, a
/// link outside the folder without `--allow-outside-links`).
fn match_databases(l: &Layout, x: &Extras) -> Result<()> {
    if !l.db_dir.is_dir() {
        bail!(BadInput(format!(
            "{} {}: not a folder",
            l.flags.db,
            l.db_dir.display()
        )));
    }
    if x.out.is_some() {
        say!("sqlwitness: warning: --etype match executes nothing: no report is written to --out");
    }
    let tmp = tempfile::Builder::new()
        .prefix("sqlwitness-dropin-")
        .tempdir()
        .context("creating a temporary folder")?;
    let renames = lay_out(tmp.path(), l)?;
    let mut bench = sqlwitness_bench::load_benchmark(tmp.path(), "dev")
        .map_err(|e| in_user_terms(BadInput(e.to_string()).into(), &renames))?;
    bench.database_dir = l.db_dir.to_path_buf();
    bench.allow_outside_links = x.allow_outside_links;
    databases_usable(&bench, l.flags)
}

pub fn bird_eval(a: BirdEvalArgs, session: &crate::Session) -> Result<i32> {
    if let Some(data_mode) = a.data_mode.clone() {
        return bird_dev_eval(a, &data_mode, session);
    }
    let dialect_engine = match a.sql_dialect.as_str() {
        "SQLite" => "sqlite",
        "MySQL" => "mysql",
        "PostgreSQL" => "postgres",
        other => bail!(BadInput(format!(
            "--sql_dialect: `{other}` is not one of SQLite, MySQL, PostgreSQL"
        ))),
    };
    let flags = &inputs::BIRD;
    let golds = inputs::read_gold(flags, &a.ground_truth_path, &a.predicted_sql_path)?.len();
    inputs::check_bird_predictions(flags, &a.predicted_sql_path, &a.ground_truth_path, golds)?;
    let difficulty =
        inputs::read_difficulties(&a.diff_json_path, flags, &a.ground_truth_path, golds)?;
    let layout = Layout {
        flags,
        gold: &a.ground_truth_path,
        tables: None,
        db_dir: &a.db_root_path,
        pred: &a.predicted_sql_path,
        compare: a.extras.compare.unwrap_or(CompareArg::Bird),
        keep_distinct: true,
        engines: engines_or(&a.extras.engines, dialect_engine),
        timeout: a.extras.timeout.unwrap_or(a.meta_time_out),
        // As BIRD dev's: timing one question at a time by default.
        jobs: a.extras.jobs.or(a.num_cpus).or(a.ves.then_some(1)),
        difficulty: Some(difficulty),
        ves_runs: if a.ves { MINIDEV_VES_RUNS } else { 0 },
    };
    let report = evaluate(layout, &a.extras, session)?;
    let metric = if a.ves { "R-VES" } else { "EX" };
    // evaluation_f1.py's first line names the metric with a space, its
    // table with a hyphen, and its last line says EX, as the script prints.
    show!("start calculate {}", if a.f1 { "Soft F1" } else { metric });
    let many = report.summary.engines.len() > 1;
    let mut log = String::new();
    for (engine, s) in &report.summary.engines {
        if many {
            show!("{engine}:");
        }
        let (levels, n) = (&s.by_difficulty, s.questions);
        if a.ves {
            show_part!("{}", tables::bird_r_ves_table(levels, n, s.ves.as_ref()));
            log.push_str(&tables::bird_r_ves_log(levels, n, s.ves.as_ref()));
        } else if a.f1 {
            show_part!("{}", tables::bird_soft_f1_table(levels, n, s.soft_f1));
            log.push_str(&tables::bird_soft_f1_log(levels, n, s.soft_f1));
        } else {
            show_part!("{}", tables::bird_table(levels, n, s.matched));
            log.push_str(&tables::bird_log(levels, n, s.matched));
        }
    }
    show!("{}", tables::BIRD_RULE);
    show!(
        "Finished {metric} evaluation for {} on Mini Dev set\n\n\n",
        a.sql_dialect
    );
    if a.ves {
        ves_timing_note(&report, "R-VES", "mini-dev's evaluation_ves.py");
    }
    if let Some(path) = &a.output_log_path {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("--output_log_path {}", path.display()))?;
        f.write_all(log.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(exit::OK)
}

/// BIRD dev's command line: the files its prefixes lead to, its table (EX,
/// or VES with `--ves`) between its first and last lines.
fn bird_dev_eval(a: BirdEvalArgs, data_mode: &str, session: &crate::Session) -> Result<i32> {
    let flags = &inputs::BIRD;
    let files = bird_dev::dev_files(&a, data_mode)?;
    let difficulty = inputs::read_difficulties(&a.diff_json_path, flags, &files.gold, files.golds)?;
    let layout = Layout {
        flags,
        gold: &files.gold,
        tables: None,
        db_dir: &files.db_dir,
        pred: &files.pred,
        compare: a.extras.compare.unwrap_or(CompareArg::Bird),
        keep_distinct: true,
        engines: engines_or(&a.extras.engines, "sqlite"),
        timeout: a.extras.timeout.unwrap_or(a.meta_time_out),
        // Timing runs one question at a time unless asked otherwise, as the
        // script's default `--num_cpus 1`: parallel timings on shared cores
        // are noisier, and noise raises the mean of the run ratios.
        jobs: a.extras.jobs.or(a.num_cpus).or(a.ves.then_some(1)),
        difficulty: Some(difficulty),
        ves_runs: if a.ves { BIRD_DEV_VES_RUNS } else { 0 },
    };
    let report = evaluate(layout, &a.extras, session)?;
    show!("start calculate");
    let many = report.summary.engines.len() > 1;
    for (engine, s) in &report.summary.engines {
        if many {
            show!("{engine}:");
        }
        let table = if a.ves {
            tables::bird_dev_ves_table(&s.by_difficulty, s.questions, s.ves.as_ref())
        } else {
            tables::bird_dev_table(&s.by_difficulty, s.questions, s.matched)
        };
        show_part!("{table}");
    }
    show!("{}", tables::BIRD_RULE);
    show!("Finished evaluation");
    if a.ves {
        ves_timing_note(&report, "ves", "evaluation_ves.py");
    }
    Ok(exit::OK)
}

/// On standard error, what timed each engine's `row` rows (`ves`,
/// `R-VES`): the official `script`'s timing where the engine has it, the
/// engine's own method otherwise.
fn ves_timing_note(report: &Report, row: &str, script: &str) {
    for (engine, s) in &report.summary.engines {
        let Some(v) = &s.ves else {
            continue;
        };
        if v.official.is_some() {
            let how = if row == "ves" {
                "sqlite_cursor_execute: cursor.execute on a new connection, preparing the \
                 statement and stepping to its first row"
            } else {
                "sqlite_connect_fetch: on a new connection, executing, fetching every row and \
                 closing it"
            };
            say!(
                "sqlwitness: {engine}: `{row}` is timed as {script} times ({how}); `{row} ({})` \
                 is sqlwitness's stable timing of the same questions",
                v.method
            );
        } else {
            say!(
                "sqlwitness: {engine}: `{row}` is timed by the engine's own clock ({}), not as \
                 {script} times on the client",
                v.method
            );
        }
    }
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
fn test_suite_warning(db_ids: &[String], db_dir: &Path) {
    let mut dbs: Vec<&str> = db_ids.iter().map(String::as_str).collect();
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
}

/// Only to parse `eval`'s flags into [`EvalArgs`].
#[derive(Parser)]
struct EvalOnly {
    #[command(flatten)]
    eval: EvalArgs,
}

/// Runs `eval` on the files of `l` and returns its report (written to
/// `--out` when given) when every question was computed on every engine;
/// otherwise an error saying which were not, and why (exit 2 for missing
/// databases, 3 for files that cannot be used or questions an engine could
/// not run).
fn evaluate(l: Layout, x: &Extras, session: &crate::Session) -> Result<Report> {
    if !l.db_dir.is_dir() {
        bail!(BadInput(format!(
            "{} {}: not a folder",
            l.flags.db,
            l.db_dir.display()
        )));
    }
    let tmp = tempfile::Builder::new()
        .prefix("sqlwitness-dropin-")
        .tempdir()
        .context("creating a temporary folder")?;
    let renames = lay_out(tmp.path(), &l)?;
    let out = x.out.clone().unwrap_or_else(|| tmp.path().join("out"));
    let e = eval_args(tmp.path(), &out, &l, x)?;
    let db_dir = l.db_dir.to_path_buf();
    let gold = l.gold.to_path_buf();
    let difficulty = l.difficulty;
    let flags = l.flags;
    let kept = x.out.is_some();
    let prepared = crate::prepare_eval(e, session, |plan| {
        if !kept {
            lean(plan, difficulty.is_some());
        }
        // The report names the user's files, and the databases are read
        // where they are.
        plan.bench.database_dir = db_dir.clone();
        plan.bench.source_file = gold.clone();
        plan.bench_arg = db_dir;
        if let Some(levels) = difficulty {
            if levels.len() != plan.bench.questions.len() {
                bail!(BadInput(format!(
                    "--diff_json_path holds {} questions but {} {} holds {} gold queries",
                    levels.len(),
                    flags.gold,
                    gold.display(),
                    plan.bench.questions.len()
                )));
            }
            for (q, d) in plan.bench.questions.iter_mut().zip(levels) {
                q.difficulty = Some(d);
            }
        }
        databases_usable(&plan.bench, flags)
    });
    let (plan, _containers) = prepared.map_err(|err| in_user_terms(err, &renames))?;
    let report = sqlwitness_eval::evaluate(&plan, &Bars { quiet: plan.quiet })
        .map_err(|err| in_user_terms(err.into(), &renames))?;
    if x.out.is_some() {
        write_report_with(&plan.out, &report, None)?;
        say!("report: {}", plan.out.join("report.json").display());
    }
    all_computed(&report, flags, l.gold, x.out.is_some())?;
    Ok(report)
}

/// A run whose report no one keeps (no `--out`) computes only what the
/// tables print: no journal (its folder is removed at the end), and the
/// verdicts without what only the report shows (`by_difficulty`: no
/// Spider hardness either).
fn lean(plan: &mut sqlwitness_eval::EvalPlan, by_difficulty: bool) {
    plan.journal = sqlwitness_run::JournalMode::Off;
    plan.detail = if by_difficulty {
        sqlwitness_eval::Detail::VerdictsByDifficulty
    } else {
        sqlwitness_eval::Detail::Verdicts
    };
}

/// Lays the gold and the schema file out in `tmp` as a Spider `_gold.sql`
/// benchmark (`dev_gold.sql`, `tables.json`) and returns what `eval`'s
/// messages name of it with what to name instead (the user's files).
fn lay_out(tmp: &Path, l: &Layout) -> Result<Vec<(String, String)>> {
    let shown = |p: &Path| p.display().to_string();
    let gold = tmp.join("dev_gold.sql");
    std::fs::copy(l.gold, &gold)
        .map_err(|e| BadInput(format!("{} {}: {e}", l.flags.gold, l.gold.display())))?;
    let mut renames = vec![
        (format!("loading benchmark {}: ", shown(tmp)), String::new()),
        (shown(&gold), shown(l.gold)),
    ];
    let tables = tmp.join("tables.json");
    match l.tables {
        Some(t) => {
            std::fs::copy(t, &tables)
                .map_err(|e| BadInput(format!("--table {}: {e}", t.display())))?;
            renames.push((shown(&tables), shown(t)));
        }
        None => std::fs::write(&tables, "[]")?,
    }
    Ok(renames)
}

/// `eval`'s flags for the layout in `tmp`, the report going to `out`.
fn eval_args(tmp: &Path, out: &Path, l: &Layout, x: &Extras) -> Result<EvalArgs> {
    let mut argv: Vec<std::ffi::OsString> = vec!["eval".into(), "--bench".into()];
    argv.push(tmp.into());
    argv.extend(["--split".into(), "dev".into(), "--pred".into()]);
    argv.push(l.pred.into());
    argv.push("--out".into());
    argv.push(out.into());
    let mut e = EvalOnly::try_parse_from(argv)
        .map_err(|err| BadInput(err.to_string()))?
        .eval;
    e.engines = l.engines.clone();
    e.compare = l.compare;
    e.keep_distinct = l.keep_distinct;
    e.timeout = l.timeout;
    e.jobs = l.jobs;
    e.ves_runs = l.ves_runs;
    e.quiet = x.quiet;
    e.allow_outside_links = x.allow_outside_links;
    e.servers = x.servers.clone();
    e.containers = x.containers.clone();
    Ok(e)
}

/// Refuses before anything runs when a database the gold names is missing
/// (exit 2) or cannot be used — a link outside the folder without
/// `--allow-outside-links`, an empty or truncated file (exit 3): Spider's
/// evaluator stops on a missing database, BIRD's scripts count its
/// questions as wrong, and the drop-in prints no table with questions it
/// did not run.
fn databases_usable(bench: &sqlwitness_bench::Benchmark, flags: &Flags) -> Result<()> {
    let mut questions: BTreeMap<&str, usize> = BTreeMap::new();
    for q in &bench.questions {
        *questions.entry(q.db_id.as_str()).or_default() += 1;
    }
    let folder = format!("{} {}", flags.db, bench.database_dir.display());
    let missing: Vec<String> = questions
        .iter()
        .filter(|(db, _)| !bench.db_exists(db))
        .map(|(db, n)| format!("{db} ({n} questions)"))
        .collect();
    if !missing.is_empty() {
        bail!(BadInput(format!(
            "{folder}: {} of the {} databases the gold names {} missing (`<db_id>/<db_id>.sqlite`): {}. \
             Spider's evaluator stops on a missing database and BIRD's scripts count its \
             questions as the model's failures; no table is printed (leave \
             those questions out of both files, or run `sqlwitness eval`, which reports them \
             as missing_db)",
            missing.len(),
            questions.len(),
            if missing.len() == 1 { "is" } else { "are" },
            first_few(&missing)
        )));
    }
    let unusable: Vec<String> = questions
        .keys()
        .filter_map(|db| bench.db_unusable(db))
        .collect();
    if !unusable.is_empty() {
        bail!(EngineFailure(format!(
            "{folder}: {} of the {} databases the gold names cannot be used, so no table is \
             printed: {}",
            unusable.len(),
            questions.len(),
            first_few(&unusable)
        )));
    }
    Ok(())
}

/// The first five of `items` joined, and how many more there are.
fn first_few(items: &[String]) -> String {
    let mut text = items
        .iter()
        .take(5)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join("; ");
    if items.len() > 5 {
        text.push_str(&format!("; and {} more", items.len() - 5));
    }
    text
}

/// An error when some question of `report` was not computed on some
/// engine (no database there, or `engine_error`): the table would count it
/// as wrong, which the official evaluator, stopping there, never does.
/// Names the engine, the gold lines and the reasons (exit 3).
fn all_computed(report: &Report, flags: &Flags, gold: &Path, kept: bool) -> Result<()> {
    let mut problems = Vec::new();
    for (engine, s) in &report.summary.engines {
        if s.missing_db + s.engine_error == 0 {
            continue;
        }
        // Reason → gold lines (a gold line a question: blank lines refused).
        let mut why: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for q in &report.questions {
            let Some(o) = q.engines.get(engine) else {
                continue;
            };
            let reason = match o.verdict {
                Verdict::MissingDb => format!("{}: no database", q.db_id),
                Verdict::EngineError => {
                    let error = o.not_portable.clone().or_else(|| {
                        [&o.gold, &o.pred]
                            .into_iter()
                            .flatten()
                            .find_map(|x| x.error.clone())
                    });
                    format!(
                        "{}: {}",
                        q.db_id,
                        error.unwrap_or_else(|| "the engine could not run it".into())
                    )
                }
                _ => continue,
            };
            why.entry(reason).or_default().push(q.id + 1);
        }
        let reasons: Vec<String> = why
            .into_iter()
            .map(|(reason, lines)| {
                let shown: Vec<String> = lines.iter().take(3).map(usize::to_string).collect();
                let more = if lines.len() > 3 { ", …" } else { "" };
                format!("line {}{more}: {reason}", shown.join(", "))
            })
            .collect();
        problems.push(format!(
            "{engine}: {} of {} questions of {} {} were not computed ({} without a database, {} \
             the engine could not run): {}",
            s.missing_db + s.engine_error,
            s.questions,
            flags.gold,
            gold.display(),
            s.missing_db,
            s.engine_error,
            first_few(&reasons)
        ));
    }
    if problems.is_empty() {
        return Ok(());
    }
    bail!(EngineFailure(format!(
        "{}. No table is printed: it would count these questions as wrong, and the official \
         evaluator stops on them{}",
        problems.join(". "),
        if kept {
            " (the report in --out has every question)"
        } else {
            " (--out DIR keeps the report of every question)"
        }
    )))
}

/// `err` with the temporary layout's files named as the user's (`eval`
/// reads copies of the gold and `tables.json`): each `(from, to)` of
/// `renames` replaced, the exit code kept.
fn in_user_terms(err: anyhow::Error, renames: &[(String, String)]) -> anyhow::Error {
    let text = format!("{err:#}");
    if !renames.iter().any(|(from, _)| text.contains(from)) {
        return err;
    }
    let text = renames
        .iter()
        .fold(text, |t, (from, to)| t.replace(from, to));
    match exit::code_for(&err) {
        exit::BAD_INPUT => BadInput(text).into(),
        exit::ENGINE => EngineFailure(text).into(),
        exit::CONTAINERS => ContainerFailure(text).into(),
        exit::INTERRUPTED => err,
        _ => anyhow::anyhow!(text),
    }
}
