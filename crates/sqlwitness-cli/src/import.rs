//! `sqlwitness import`: a benchmark database shipped as a PostgreSQL or
//! MySQL/MariaDB dump, loaded by its own engine under a login confined to
//! a namespace of its own, written as SQLite database files in the
//! benchmark's layout (verified), with a report of every type decision and
//! every statement not run.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use sqlwitness_bench::{BenchError, DumpDatabase, ImportOptions};
use sqlwitness_core::EngineKind;

use crate::exit;

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The dump: plain SQL as `pg_dump` or `mysqldump` write it (or a
    /// hand-written script of the same dialect).
    #[arg(long)]
    pub dump: PathBuf,
    /// The engine that loads it: postgres, mysql or mariadb.
    #[arg(long)]
    pub engine: String,
    /// The engine's administrative URL (else SQLWITNESS_<ENGINE>_URL). The
    /// dump itself runs as a login created for it, confined to the
    /// namespace created for it.
    #[arg(long, value_name = "URL")]
    pub server: Option<String>,
    /// The benchmark's database folder: each database is written to
    /// OUT/<db_id>/<db_id>.sqlite.
    #[arg(long)]
    pub out: PathBuf,
    /// The db_id of a dump that holds one database (default: the dump's
    /// file name without its extension).
    #[arg(long, conflicts_with = "tables")]
    pub db_id: Option<String>,
    /// A dump of several databases (BIRD mini-dev's layout): a Spider
    /// `tables.json` or BIRD `dev_tables.json` says which tables each
    /// db_id holds (`table_names_original`); one SQLite file per db_id.
    #[arg(long, value_name = "TABLES_JSON")]
    pub tables: Option<PathBuf>,
    /// Seconds one statement of the dump may run.
    #[arg(long, default_value_t = 600.0)]
    pub statement_timeout: f64,
    /// Where the report goes (default OUT/import-report.json).
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Writes the databases' entries of a Spider `tables.json` (tables,
    /// columns, Spider's column types, keys) into FILE, replacing entries
    /// of the same db_id and keeping the others.
    #[arg(long, value_name = "FILE")]
    pub spider_tables: Option<PathBuf>,
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

pub fn run(a: &ImportArgs) -> anyhow::Result<i32> {
    let engine = EngineKind::parse(&a.engine)
        .filter(|k| sqlwitness_bench::dump_dialect(*k).is_some())
        .ok_or_else(|| {
            exit::BadInput(format!(
                "--engine `{}`: a dump is loaded by postgres, mysql or mariadb",
                a.engine
            ))
        })?;
    let url = a
        .server
        .clone()
        .or_else(|| std::env::var(engine.url_env()).ok())
        .filter(|u| !u.trim().is_empty())
        .ok_or_else(|| {
            exit::BadInput(format!(
                "--engine {engine} needs --server URL or {} (an administrative login)",
                engine.url_env()
            ))
        })?;
    if !(a.statement_timeout > 0.0 && a.statement_timeout.is_finite()) {
        return Err(
            exit::BadInput("--statement-timeout: a positive number of seconds".into()).into(),
        );
    }
    let databases = match &a.tables {
        Some(path) => sqlwitness_bench::load_tables_json(path)?
            .into_values()
            .map(|s| DumpDatabase {
                db_id: s.db_id,
                tables: Some(s.table_names_original),
            })
            .collect(),
        None => {
            let db_id = match &a.db_id {
                Some(d) => d.clone(),
                None => a
                    .dump
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            };
            vec![DumpDatabase {
                db_id,
                tables: None,
            }]
        }
    };
    let opts = ImportOptions {
        engine,
        url,
        dump: a.dump.clone(),
        out: a.out.clone(),
        databases,
        statement_limit: Duration::from_secs_f64(a.statement_timeout),
    };
    let report = match sqlwitness_bench::import_dump(&opts) {
        Ok(r) => r,
        Err(e @ (BenchError::Migration { .. } | BenchError::DumpLoad { .. })) => {
            return Err(exit::EngineFailure(e.to_string()).into())
        }
        Err(e) => return Err(e.into()),
    };
    let report_path = a
        .report
        .clone()
        .unwrap_or_else(|| a.out.join("import-report.json"));
    let text = serde_json::to_string_pretty(&report)?;
    std::fs::write(&report_path, text + "\n")
        .with_context(|| format!("{}: cannot write the report", report_path.display()))?;
    if let Some(path) = &a.spider_tables {
        write_spider_tables(path, &report)?;
    }
    if !a.quiet {
        eprintln!(
            "{}: loaded by {} ({} statements, {} rows by COPY) in {:.1} s; {} skipped, {} not created",
            a.dump.display(),
            report.server_version.split_whitespace().take(2).collect::<Vec<_>>().join(" "),
            report.statements,
            report.copied_rows,
            report.load_seconds,
            report.skipped.len(),
            report.not_created.len()
        );
        for d in &report.databases {
            let refused: Vec<String> = d
                .tables
                .iter()
                .filter_map(|t| t.refused.as_ref().map(|r| format!("{}: {r}", t.table)))
                .collect();
            let unverified: Vec<&str> = d
                .tables
                .iter()
                .filter(|t| t.refused.is_none() && !t.verified)
                .map(|t| t.table.as_str())
                .collect();
            eprintln!(
                "  {}: {} tables, {} rows in {:.1} s ({:.0} rows/s) → {}{}",
                d.db_id,
                d.tables.len() - refused.len(),
                d.rows,
                d.seconds,
                d.rows as f64 / d.seconds.max(1e-9),
                d.path.display(),
                if d.complete { "" } else { "  INCOMPLETE" }
            );
            for r in &refused {
                eprintln!("    refused {r}");
            }
            if !unverified.is_empty() {
                eprintln!("    not verified: {}", unverified.join(", "));
            }
            if !d.missing_tables.is_empty() {
                eprintln!("    not in the dump: {}", d.missing_tables.join(", "));
            }
        }
        eprintln!("report: {}", report_path.display());
    }
    Ok(if report.complete() {
        exit::OK
    } else {
        exit::ENGINE
    })
}

/// Merges the import's databases into the Spider `tables.json` at `path`.
fn write_spider_tables(
    path: &std::path::Path,
    report: &sqlwitness_bench::ImportReport,
) -> anyhow::Result<()> {
    let mut entries: Vec<serde_json::Value> = match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            exit::BadInput(format!("{}: not a tables.json array: {e}", path.display()))
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(anyhow::anyhow!("{}: {e}", path.display())),
    };
    for d in &report.databases {
        entries.retain(|e| e["db_id"] != d.db_id.as_str());
        entries.push(d.spider_tables.clone());
    }
    let text = serde_json::to_string_pretty(&entries)?;
    std::fs::write(path, text + "\n")
        .with_context(|| format!("{}: cannot write", path.display()))?;
    Ok(())
}
