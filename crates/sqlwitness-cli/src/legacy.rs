//! Reading the old journal format. A journal of format 1 kept the command
//! line (the flags as given) instead of the run's plan. `--resume` and
//! `merge` convert such a journal once, in place: its arguments are parsed
//! as the flags they were and turned into the plan a run with them builds
//! now, and the header is rewritten in the current format with the input
//! hashes, the server versions and every record kept as they were. Only
//! this module knows format 1; the library reads the current format only.

use anyhow::{bail, Context, Result};
use clap::Parser;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

use sqlwitness_eval::{Header, Partition, RunSpec, JOURNAL_FILE, JOURNAL_FORMAT};

use crate::args::{Cli, Command};
use crate::exit::BadInput;

/// The header of a format-1 journal.
#[derive(Deserialize)]
struct HeaderV1 {
    command: String,
    tool_version: String,
    /// The command's arguments, without those that do not change what it
    /// computes or may carry secrets.
    args: Vec<String>,
    #[serde(default)]
    partition: Option<Partition>,
    inputs: BTreeMap<String, String>,
    engines: BTreeMap<String, String>,
    #[serde(default)]
    extra: serde_json::Value,
}

/// Converts the journal in `dir` to the current format when it is of
/// format 1 (said on stderr); anything else is left for the journal's
/// reader to judge.
pub fn upgrade(dir: &Path) -> Result<()> {
    let path = dir.join(JOURNAL_FILE);
    let Ok(bytes) = std::fs::read(&path) else {
        return Ok(());
    };
    let Some(end) = bytes.iter().position(|&b| b == b'\n') else {
        return Ok(());
    };
    let Ok(first) = serde_json::from_slice::<serde_json::Value>(&bytes[..end]) else {
        return Ok(());
    };
    if first.get("journal").and_then(serde_json::Value::as_u64) != Some(1) {
        return Ok(());
    }
    let rerun = || {
        format!(
            "converting {} from journal format 1 (to start over instead, rerun without --resume)",
            path.display()
        )
    };
    let old: HeaderV1 = serde_json::from_value(first)
        .map_err(|e| BadInput(format!("not a header of format 1: {e}")))
        .with_context(rerun)?;
    let plan = plan_of(&old.command, &old.args).with_context(rerun)?;
    let header = Header {
        journal: JOURNAL_FORMAT,
        tool_version: old.tool_version,
        plan,
        partition: old.partition,
        inputs: old.inputs,
        servers: old.engines,
        extra: old.extra,
    };
    let mut text = serde_json::to_vec(&header).expect("a header serializes");
    text.extend_from_slice(&bytes[end..]);
    let tmp = dir.join(format!("{JOURNAL_FILE}.converting"));
    std::fs::write(&tmp, &text).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("replacing {}", path.display()))?;
    eprintln!(
        "sqlwitness: {}: converted from journal format 1 to {JOURNAL_FORMAT}",
        path.display()
    );
    Ok(())
}

/// The plan of a format-1 journal's command and arguments: what a run
/// with those flags builds now.
fn plan_of(command: &str, args: &[String]) -> Result<RunSpec> {
    let argv = ["sqlwitness", command]
        .into_iter()
        .map(String::from)
        .chain(args.iter().cloned());
    let cli = Cli::try_parse_from(argv)
        .map_err(|e| BadInput(format!("its arguments do not parse: {e}")))?;
    Ok(match cli.command {
        Command::Eval(a) => {
            let from_stdin = |p: &String| p.rsplit('=').next().is_some_and(|f| f.trim() == "-");
            if a.pred.iter().any(from_stdin) {
                bail!(BadInput(
                    "its predictions were read from standard input, which format 1 did not keep"
                        .into()
                ));
            }
            let engines = crate::plan::parse_engines(&a.engines)?;
            let bench = crate::plan::open_benchmark(&a.bench.bench, &a.bench.split)?;
            RunSpec::Eval(crate::plan::eval_spec(&a, &bench, &a.pred, engines)?)
        }
        Command::Audit(a) => {
            let bench = crate::plan::open_benchmark(&a.bench.bench, &a.bench.split)?;
            RunSpec::Audit(crate::audit::audit_spec(&a, &bench)?)
        }
        Command::Fuzz(a) => RunSpec::Fuzz(crate::fuzz::spec_of(&a)?),
        _ => bail!(BadInput(format!("`{command}` keeps no journal"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A format-1 header as the earlier sqlwitness wrote it.
    fn v1_header(args: &[&str]) -> String {
        serde_json::json!({
            "journal": 1,
            "command": "eval",
            "tool_version": env!("CARGO_PKG_VERSION"),
            "args": args,
            "partition": {"k": 1, "n": 2},
            "settings": {"compare": "spider"},
            "inputs": {"questions": "abc"},
            "engines": {"sqlite": "3.50.2"},
            "extra": {"bench": "examples/spider-dev"}
        })
        .to_string()
    }

    #[test]
    fn a_format_1_journal_is_converted_once_keeping_its_records() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL_FILE);
        let bench = sqlwitness_testkit::repo_root().join("examples/spider-dev");
        let bench = bench.to_str().unwrap();
        let args = ["--bench", bench, "--compare", "spider", "--db", "pets_1"];
        let records = "{\"id\":1}\n{\"id\":2}\n{\"id\"";
        std::fs::write(&path, format!("{}\n{records}", v1_header(&args))).unwrap();
        // The library refuses it, saying what to do.
        let err = sqlwitness_eval::read_journal::<serde_json::Value>(&path)
            .unwrap_err()
            .to_string();
        assert!(err.contains("journal format 1"), "{err}");
        assert!(err.contains("rerun"), "{err}");

        upgrade(dir.path()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let (first, rest) = text.split_once('\n').unwrap();
        assert_eq!(rest, records, "the records are kept byte for byte");
        assert!(!first.contains("--"), "{first}");
        let (header, read, _) = sqlwitness_eval::read_journal::<serde_json::Value>(&path).unwrap();
        assert_eq!(read.len(), 2, "the torn last line is still dropped");
        assert_eq!(header.journal, JOURNAL_FORMAT);
        assert_eq!(header.partition, Some(Partition { k: 1, n: 2 }));
        assert_eq!(header.inputs["questions"], "abc");
        assert_eq!(header.servers["sqlite"], "3.50.2");
        let RunSpec::Eval(spec) = &header.plan else {
            panic!("{:?}", header.plan)
        };
        assert_eq!(spec.compare, sqlwitness_core::compare::CompareMode::Spider);
        assert!(!spec.questions.is_empty());
        assert_eq!(spec.files.benchmark, Path::new(bench));
        // Once: a second conversion leaves it as it is.
        upgrade(dir.path()).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }

    #[test]
    fn a_format_1_journal_that_cannot_be_converted_says_to_rerun() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL_FILE);
        let line = v1_header(&["--bench", "b", "--no-such-flag"]);
        std::fs::write(&path, format!("{line}\n")).unwrap();
        let err = format!("{:#}", upgrade(dir.path()).unwrap_err());
        assert!(err.contains("journal format 1"), "{err}");
        assert!(err.contains("rerun without --resume"), "{err}");
        assert!(err.contains("no-such-flag"), "{err}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("{line}\n"),
            "left as it was"
        );
    }
}
