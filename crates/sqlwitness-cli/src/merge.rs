//! `sqlwitness merge --out DIR PART…`: the parts of a partitioned run
//! (`--partition K/N`) combined into what the unpartitioned run writes. The
//! command and its plan come from the parts' journals: eval and audit
//! rebuild the run from the plan (paths relative to where the parts ran),
//! check it against the parts' plans and input hashes, and write the
//! report. No server is contacted.

use anyhow::{bail, Result};
use std::time::Instant;

use sqlwitness_report::write_report;
use sqlwitness_run::{read_journal, Cancel, RunSpec, JOURNAL_FILE};

use crate::args::MergeArgs;
use crate::exit::{self, BadInput};

pub fn run(a: &MergeArgs, cancel: &Cancel) -> Result<i32> {
    let started = Instant::now();
    let first = a.parts[0].join(JOURNAL_FILE);
    if !first.is_file() {
        bail!(BadInput(format!(
            "merge: {} has no {JOURNAL_FILE} (not the output of a partitioned run)",
            a.parts[0].display()
        )));
    }
    let (header, _, _) = read_journal::<serde_json::Value>(&first)?;
    match header.plan {
        RunSpec::Eval(spec) => {
            let plan = crate::plan::merge_plan(spec, a.out.clone(), a.quiet, cancel.clone())?;
            let report = sqlwitness_eval::merge_eval(&plan, &a.parts)?;
            write_report(&a.out, &report)?;
            crate::eval::print_summary(&report);
            say!(
                "merged {} parts: {} ({:.2} s)",
                a.parts.len(),
                a.out.join("report.json").display(),
                started.elapsed().as_secs_f64()
            );
            Ok(exit::OK)
        }
        RunSpec::Audit(spec) => {
            let plan = crate::audit::merge_plan(spec, a.out.clone(), a.quiet, cancel.clone())?;
            let report = sqlwitness_audit::merge_audit(&plan, &a.parts)?;
            crate::audit::finish(&Default::default(), &plan, &report, started)
        }
        RunSpec::Fuzz(_) => {
            let n = sqlwitness_fuzz::merge_suites(&a.parts, &a.out)?;
            say!(
                "merged {} parts: {} databases in {}",
                a.parts.len(),
                n,
                a.out.join("manifest.json").display()
            );
            Ok(exit::OK)
        }
        RunSpec::Perturb(_) => bail!(BadInput(format!(
            "merge: {} is the journal of a perturb run, which is not partitioned",
            first.display()
        ))),
    }
}
