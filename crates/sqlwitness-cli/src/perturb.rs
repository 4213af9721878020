//! `sqlwitness perturb` (Dr.Spider's database perturbations) and
//! `sqlwitness robustness` (the model's robustness on a perturbed set).

use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

use sqlwitness_perturb::{Kind, Mapping, Options};
use sqlwitness_report::{read_report, render_robustness_markdown, robustness_rows};

use crate::args::BenchArgs;
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
    /// Sampling rounds per database (duplicates removed).
    #[arg(long, default_value_t = 5)]
    pub samples: usize,
    /// The random seed: the same seed writes the same bytes.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output folder (new or empty): a benchmark in the Spider layout plus
    /// mapping.json and perturb.md.
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
    /// Time limit of each verification query, in seconds.
    #[arg(long, default_value_t = 30)]
    pub timeout: u64,
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

pub fn run(a: &PerturbArgs) -> Result<i32> {
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
    let mapping = sqlwitness_perturb::perturb(&opts, &|line| {
        if !quiet {
            eprintln!("{line}");
        }
    })
    .map_err(|e| {
        if e.is_bad_input() {
            anyhow::Error::new(BadInput(e.to_string()))
        } else {
            anyhow::Error::new(e)
        }
    })?;
    let s = &mapping.summary;
    let dropped: usize = s.dropped.values().sum();
    eprintln!(
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
        eprintln!(
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
    let text = std::fs::read_to_string(&a.mapping)
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
        print!(
            "{}",
            render_robustness_markdown(&mapping.dr_spider_name, &rows)
        );
    }
    Ok(exit::OK)
}
