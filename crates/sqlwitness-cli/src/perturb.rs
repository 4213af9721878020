//! `sqlwitness perturb` (Dr.Spider's database perturbations) and
//! `sqlwitness robustness` (the model's robustness on a perturbed set).

use anyhow::Result;
use clap::Args;
use sqlwitness_dialect::EngineFacts;
use std::path::PathBuf;
use std::time::Duration;

use sqlwitness_perturb::{Kind, Mapping, Options};
use sqlwitness_report::{read_report, render_robustness_markdown, robustness_rows};
use sqlwitness_run::{Cancel, InputFiles, JournalMode};

use crate::args::{BenchArgs, ServerArgs};
use crate::exit::{self, BadInput};

#[derive(Debug, Args)]
pub struct PerturbArgs {
    #[command(flatten)]
    pub bench: BenchArgs,
    /// `synonym` (schema-synonym), `abbreviation` (schema-abbreviation),
    /// `content` (DBcontent-equivalence) or `renames` (the `--renames`
    /// file, exactly).
    #[arg(long, value_parser = ["synonym", "abbreviation", "content", "renames"])]
    pub kind: Option<String>,
    /// Sampling rounds per database (duplicates removed; 1 to 1,000).
    #[arg(allow_hyphen_values = true, long, default_value_t = 5, value_parser = crate::ranges::count(1, 1_000))]
    pub samples: usize,
    /// The random seed (0 to 18446744073709551615): the same seed writes
    /// the same bytes.
    #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
    pub seed: u64,
    /// Output folder (new or empty, or an interrupted run's with
    /// `--resume`): a benchmark in the Spider layout plus mapping.json,
    /// perturb.md and the run's journal.
    #[arg(long)]
    pub out: PathBuf,
    /// A dictionary file added to the shipped one (same YAML format as
    /// data/perturb/schema_synonyms.yaml).
    #[arg(long)]
    pub dictionary: Option<PathBuf>,
    /// Exact renames, YAML `<db_id>: {<table>.<column>: <new name>}`
    /// (implies `--kind renames`).
    #[arg(long)]
    pub renames: Option<PathBuf>,
    /// Content-equivalence rules put before the shipped ones (format of
    /// data/perturb/content_rules.yaml).
    #[arg(long)]
    pub content_rules: Option<PathBuf>,
    /// A model's predictions for the original split (one SQL a line):
    /// written carried to the perturbed schema (pred_carried.sql) and
    /// unchanged (pred_unchanged.sql), in the perturbed split's order.
    #[arg(long)]
    pub pred: Option<PathBuf>,
    /// Only this database (repeatable).
    #[arg(long = "db")]
    pub databases: Vec<String>,
    /// Time limit of each verification query, in whole seconds (1 to 86400:
    /// a day).
    #[arg(allow_hyphen_values = true, long, default_value_t = 30, value_parser = crate::ranges::whole_seconds())]
    pub timeout: u64,
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Continue the run whose journal (`journal.jsonl`) is in --out: the
    /// databases it holds are not perturbed again, and the set equals an
    /// uninterrupted run's, byte for byte. Refused when the journal is of
    /// another command, other options or other inputs; a new run when
    /// there is none.
    #[arg(long)]
    pub resume: bool,
    /// An engine on copies of its own that judges the golds instead of
    /// SQLite (`postgres`, `mysql`, `mariadb`, `duckdb`): its own golds (`--gold`, else the
    /// benchmark's) are rewritten in its dialect, each perturbed copy is
    /// migrated there into a scratch namespace (dropped after), and a
    /// question is kept only if its rewritten gold returns there what the
    /// original returns on the database's copy (for a benchmark imported
    /// from a dump, the copy with the dump's own types). The rewritten
    /// golds are written to `<split>_gold_<ENGINE>.sql`. Not with
    /// `--kind content`.
    #[arg(long, value_name = "ENGINE")]
    pub reference: Option<String>,
    /// An engine's own gold, `ENGINE=FILE` (repeatable; as `eval --gold`).
    #[arg(long = "gold", value_name = "ENGINE=FILE")]
    pub gold: Vec<String>,
    #[command(flatten)]
    pub servers: ServerArgs,
}

/// `--reference ENGINE` on a server, connected: the engine, the run's
/// login, where copies are migrated, and the engine's golds.
struct Connected {
    engine: std::sync::Arc<dyn sqlwitness_core::Engine>,
    login: Option<sqlwitness_run::HeldLogin>,
    target: sqlwitness_migrate::MigrationTarget,
    golds: Vec<String>,
    golds_from: String,
    /// The `--gold` file, when given.
    gold_file: Option<PathBuf>,
}

/// `--reference` and `--gold`, checked; with a server reference the dumps
/// a `dumps.json` names imported first (as `eval` and `fuzz` do) and the
/// engine connected over the run's own login.
fn connect_reference(a: &PerturbArgs, cancel: &Cancel) -> Result<Option<Connected>> {
    let Some(kind) = crate::plan::parse_reference(a.reference.as_deref())? else {
        if !a.gold.is_empty() {
            anyhow::bail!(BadInput(
                "--gold goes with --reference ENGINE (the engine whose golds judge)".into()
            ));
        }
        return Ok(None);
    };
    if !kind.holds_copies() {
        anyhow::bail!(BadInput(format!(
            "--reference {kind}: SQLite judges without --reference; give an engine on copies \
             of its own (a server, or an engine on files of its own)"
        )));
    }
    let mut bench = crate::plan::open_benchmark(&a.bench.bench, &a.bench.split)?;
    bench.namespace_prefix = a.servers.checked_prefix()?;
    let files = InputFiles::parse(a.bench.bench.clone(), &a.gold, &[])?;
    if let Some(other) = files.golds.keys().find(|k| **k != kind) {
        anyhow::bail!(BadInput(format!(
            "--gold {other}=…: perturb rewrites the golds of the reference ({kind}) only"
        )));
    }
    sqlwitness_run::dialect_inputs(&mut bench, &files, &[kind])?;
    let servers = crate::plan::servers(a.servers.clone(), &[kind], true)?;
    crate::import::from_manifest(&bench, Some(&servers), a.quiet)?;
    let url = servers.url(kind).ok_or_else(|| {
        BadInput(format!(
            "--reference {kind}: give its administrative URL (--server {kind}=URL or {})",
            kind.url_env()
        ))
    })?;
    let target = sqlwitness_migrate::MigrationTarget::new(kind, url);
    let golds = bench
        .questions
        .iter()
        .map(|q| q.gold_for(kind).to_string())
        .collect();
    let golds_from = match files.golds.get(&kind) {
        Some(p) => p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| p.display().to_string()),
        None => "benchmark".to_string(),
    };
    let c = sqlwitness_run::connect(&[kind], &servers, 2, cancel)?.remove(0);
    Ok(Some(Connected {
        engine: c.engine,
        login: c.login,
        target,
        golds,
        golds_from,
        gold_file: files.golds.get(&kind).cloned(),
    }))
}

pub fn run(a: &PerturbArgs, session: &crate::Session) -> Result<i32> {
    let kind = match (a.kind.as_deref(), &a.renames) {
        (None | Some("renames"), Some(_)) => Kind::Renames,
        (Some(k), None) => Kind::parse(k).expect("clap checked the value"),
        (Some(k), Some(_)) => {
            anyhow::bail!(BadInput(format!(
                "--renames goes with --kind renames, not --kind {k}"
            )))
        }
        (None, None) => anyhow::bail!(BadInput(
            "--kind synonym|abbreviation|content|renames (or --renames FILE) is required".into()
        )),
    };
    let opts = Options {
        bench: a.bench.bench.clone(),
        split: a.bench.split.clone(),
        kind,
        samples: a.samples,
        seed: a.seed,
        out: a.out.clone(),
        dictionary: a.dictionary.clone(),
        renames: a.renames.clone(),
        content_rules: a.content_rules.clone(),
        predictions: a.pred.clone(),
        databases: a.databases.clone(),
        timeout: Duration::from_secs(a.timeout.max(1)),
    };
    let quiet = a.quiet;
    if kind == Kind::Content && a.reference.is_some() {
        anyhow::bail!(BadInput(format!(
            "--kind content with --reference {}: its replacements are SQLite expressions that cannot be carried into another dialect with certainty; use --kind synonym, abbreviation or renames there",
            a.reference.as_deref().unwrap_or_default()
        )));
    }
    session.set_out(&a.out);
    let connected = connect_reference(a, &session.cancel)?;
    let reference = connected
        .as_ref()
        .map(|c| sqlwitness_perturb::ServerReference {
            engine: c.engine.as_ref(),
            target: c.target.clone(),
            prefix: a.servers.namespace_prefix.clone(),
            migrate: a.servers.migrate_options(false),
            login: c.login.as_ref().map(sqlwitness_run::HeldLogin::run_login),
            golds: c.golds.clone(),
            golds_from: c.golds_from.clone(),
        });
    let plan = sqlwitness_perturb::PerturbPlan {
        spec: opts.spec(
            connected.as_ref().map(|c| c.engine.kind()),
            connected.as_ref().and_then(|c| c.gold_file.clone()),
        ),
        options: opts,
        journal: if a.resume {
            JournalMode::Resume
        } else {
            JournalMode::Fresh
        },
        reference,
        reference_engine: connected.as_ref().map(|c| c.engine.clone()),
        cancel: session.cancel.clone(),
    };
    let mapping = sqlwitness_perturb::run_plan(&plan, &|line| {
        if !quiet {
            say!("{line}");
        }
    })?;
    let s = &mapping.summary;
    let dropped: usize = s.dropped.values().sum();
    say!(
        "{}: {} perturbed databases from {}; questions affected {}, rewritten {}, verified {}, dropped {} (reasons in {}/mapping.json)",
        kind.dr_spider_name(),
        s.perturbed_databases,
        s.databases,
        s.affected,
        s.rewritten,
        s.verified,
        dropped,
        a.out.display()
    );
    // Databases whose files cannot be used were skipped: named, exit 3.
    let unusable: Vec<String> = mapping
        .skipped_databases
        .iter()
        .filter(|d| d.reason.starts_with(sqlwitness_perturb::UNUSABLE))
        .map(|d| format!("{}: {}", d.db_id, d.reason))
        .collect();
    if !unusable.is_empty() {
        say!(
            "sqlwitness: error: databases that cannot be used, left out:\n  {}",
            unusable.join("\n  ")
        );
        return Ok(exit::ENGINE);
    }
    Ok(exit::OK)
}

#[derive(Debug, Args)]
pub struct RobustnessArgs {
    /// The report.json of the run on the original split.
    #[arg(long)]
    pub original: PathBuf,
    /// A report.json of a run on the perturbed split, `LABEL=PATH`
    /// (repeatable: e.g. `carried=…` and `unchanged=…`).
    #[arg(long = "perturbed", value_name = "LABEL=REPORT", required = true)]
    pub perturbed: Vec<String>,
    /// The perturbed set's mapping.json.
    #[arg(long)]
    pub mapping: PathBuf,
    /// Print JSON instead of Markdown.
    #[arg(long)]
    pub json: bool,
}

pub fn robustness(a: &RobustnessArgs) -> Result<i32> {
    let bad = |m: String| anyhow::Error::new(BadInput(m));
    let text =
        sqlwitness_core::read_input_to_string(&a.mapping, sqlwitness_core::input::MANIFEST_FILE)
            .map_err(|e| bad(format!("{}: {e}", a.mapping.display())))?;
    let mapping: Mapping = serde_json::from_str(&text)
        .map_err(|e| bad(format!("{}: line {}: {e}", a.mapping.display(), e.line())))?;
    let original = read_report(&a.original).map_err(|e| bad(e.to_string()))?;
    let mut runs = Vec::new();
    for spec in &a.perturbed {
        let Some((label, path)) = spec.split_once('=') else {
            return Err(bad(format!("--perturbed {spec}: expected LABEL=REPORT")));
        };
        let report = read_report(std::path::Path::new(path)).map_err(|e| bad(e.to_string()))?;
        if report.questions.len() != mapping.questions.len() {
            return Err(bad(format!(
                "{path}: {} questions, the mapping {} has {} (a run on another split?)",
                report.questions.len(),
                a.mapping.display(),
                mapping.questions.len()
            )));
        }
        runs.push((label.to_string(), report));
    }
    let pairs: Vec<(usize, usize)> = mapping
        .questions
        .iter()
        .map(|q| (q.id, q.original_id))
        .collect();
    let rows = robustness_rows(&original, &runs, &pairs);
    if a.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        show_part!(
            "{}",
            render_robustness_markdown(&mapping.dr_spider_name, &rows)
        );
    }
    Ok(exit::OK)
}
