//! `sqlwitness merge --out DIR PART…`: the parts of a partitioned run
//! (`--partition K/N`) combined into what the unpartitioned run writes. The
//! command comes from the parts' journals; eval and audit rebuild their plan
//! from the arguments the journals keep (paths relative to where the parts
//! ran), check it against the parts' settings and input hashes, and write
//! the report. No server is contacted.

use anyhow::{bail, Result};
use clap::Parser;
use std::time::Instant;

use sqlwitness_eval::{read_journal, JOURNAL_FILE};
use sqlwitness_report::write_report;

use crate::args::{Cli, Command, MergeArgs};
use crate::exit::{self, BadInput};

pub fn run(a: &MergeArgs) -> Result<i32> {
    let started = Instant::now();
    let first = a.parts[0].join(JOURNAL_FILE);
    if !first.is_file() {
        bail!(BadInput(format!(
            "merge: {} has no {JOURNAL_FILE} (not the output of a partitioned run)",
            a.parts[0].display()
        )));
    }
    let (header, _, _) = read_journal::<serde_json::Value>(&first)?;
    let reparse = || -> Result<Command> {
        let argv = ["sqlwitness", header.command.as_str()]
            .into_iter()
            .map(String::from)
            .chain(header.args.iter().cloned());
        Cli::try_parse_from(argv).map(|c| c.command).map_err(|e| {
            BadInput(format!(
                "merge: the arguments in {} do not parse: {e}",
                first.display()
            ))
            .into()
        })
    };
    match header.command.as_str() {
        "eval" => {
            let Command::Eval(mut args) = reparse()? else {
                unreachable!("an eval journal's arguments parse as eval")
            };
            args.out = a.out.clone();
            args.partition = None;
            let plan = crate::plan::merge_plan(args, header.args.clone())?;
            let report = sqlwitness_eval::merge_eval(&plan, &a.parts)?;
            write_report(&a.out, &report)?;
            crate::eval::print_summary(&report);
            eprintln!(
                "merged {} parts: {} ({:.2} s)",
                a.parts.len(),
                a.out.join("report.json").display(),
                started.elapsed().as_secs_f64()
            );
            Ok(exit::OK)
        }
        "audit" => {
            let Command::Audit(mut args) = reparse()? else {
                unreachable!("an audit journal's arguments parse as audit")
            };
            args.out = a.out.clone();
            args.partition = None;
            args.quiet = a.quiet;
            let plan = crate::audit::audit_plan(&args, header.args.clone(), true)?;
            let report = sqlwitness_eval::merge_audit(&plan, &a.parts)?;
            crate::audit::finish(&args, &plan, &report, started)
        }
        "fuzz" => {
            let n = sqlwitness_eval::merge_suites(&a.parts, &a.out)?;
            eprintln!(
                "merged {} parts: {} databases in {}",
                a.parts.len(),
                n,
                a.out.join("manifest.json").display()
            );
            Ok(exit::OK)
        }
        other => bail!(BadInput(format!(
            "merge: {} is the journal of `{other}`, which has no parts",
            first.display()
        ))),
    }
}
