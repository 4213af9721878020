//! `audit --baseline`: what an audit finds that an earlier audit did not.
//!
//! A finding is identified by question id, rule and engines. New findings
//! are the regression a CI gate looks for (a changed gold, a new engine
//! behaviour); resolved ones are reported too.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::Path;

use crate::{AuditError, AuditReport, Finding};

type Key = (usize, String, String);

fn key(f: &Finding) -> Key {
    (f.id, f.rule.clone(), f.engines.join(","))
}

/// Rules that say a gold's answer depends on ties or on an unspecified row
/// order (which tied rows a server returns may change from run to run).
pub const TIE_RULES: &[&str] = &[
    "limit_tie_1",
    "limit_tie_n",
    "order_by_partial",
    "group_by_bare_column",
    "aggregate_bare_column",
    "distinct_order_by",
];

/// The findings a gate compares: every finding, except the cross-engine
/// differences of a question whose gold the audit also finds tie-dependent
/// (they come and go with the tied rows each server happens to return:
/// the tie finding, stable on SQLite's data, stands for them). Returns the
/// keys and how many findings were left out.
fn gated_keys(r: &AuditReport) -> (BTreeSet<Key>, usize) {
    let tied: BTreeSet<usize> = r
        .findings
        .iter()
        .filter(|f| TIE_RULES.contains(&f.rule.as_str()))
        .map(|f| f.id)
        .collect();
    let mut left_out = 0;
    let keys = r
        .findings
        .iter()
        .filter(|f| {
            let skip = f.rule.starts_with("cross_engine_") && tied.contains(&f.id);
            left_out += usize::from(skip);
            !skip
        })
        .map(key)
        .collect();
    (keys, left_out)
}

/// Findings present in one audit and not the other.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AuditDiff {
    /// In the new audit, not in the baseline.
    pub new: Vec<Key>,
    /// In the baseline, not in the new audit.
    pub resolved: Vec<Key>,
    /// Questions with a database in the new audit (the tolerance's base).
    pub with_db: usize,
    /// Cross-engine findings on tie-dependent golds in the new audit, not
    /// compared (see [`TIE_RULES`]).
    pub tie_dependent: usize,
}

impl AuditDiff {
    /// True when more findings are new than `tolerance` (a fraction of
    /// the questions with a database) allows; tolerance 0 allows none.
    pub fn regressed(&self, tolerance: f64) -> bool {
        self.new.len() as f64 > tolerance * self.with_db as f64
    }

    /// The diff as Markdown, for `baseline-diff.md`.
    pub fn markdown(&self, tolerance: f64) -> String {
        let mut out = String::from("# sqlwitness audit against its baseline\n\n");
        let _ = writeln!(
            out,
            "{} new findings, {} resolved; tolerance {} × {} questions with a database: {}.\n",
            self.new.len(),
            self.resolved.len(),
            tolerance,
            self.with_db,
            if self.regressed(tolerance) {
                "**regression**"
            } else {
                "within tolerance"
            }
        );
        if self.tie_dependent > 0 {
            let _ = writeln!(
                out,
                "{} cross-engine differences on golds the audit finds tie-dependent are not \
                 compared: which tied rows a server returns changes from run to run.\n",
                self.tie_dependent
            );
        }
        for (title, keys) in [
            ("New findings", &self.new),
            ("Resolved findings", &self.resolved),
        ] {
            if keys.is_empty() {
                continue;
            }
            let _ = writeln!(out, "## {title}\n\n| id | rule | engines |\n|--:|---|---|");
            for (id, rule, engines) in keys {
                let _ = writeln!(out, "| {id} | {rule} | {engines} |");
            }
            out.push('\n');
        }
        out
    }
}

/// Compares an audit with its baseline.
pub fn diff_audits(baseline: &AuditReport, new: &AuditReport) -> AuditDiff {
    let (old, _) = gated_keys(baseline);
    let (now, tie_dependent) = gated_keys(new);
    AuditDiff {
        new: now.difference(&old).cloned().collect(),
        resolved: old.difference(&now).cloned().collect(),
        with_db: new.summary.with_db,
        tie_dependent,
    }
}

/// Reads an `audit.json` of format version [`AUDIT_FORMAT_VERSION_MIN`]
/// to [`AUDIT_FORMAT_VERSION`] (version 1's summary names are read as
/// version 2's), rejecting any other.
///
/// [`AUDIT_FORMAT_VERSION_MIN`]: crate::AUDIT_FORMAT_VERSION_MIN
/// [`AUDIT_FORMAT_VERSION`]: crate::AUDIT_FORMAT_VERSION
pub fn read_audit(path: &Path) -> Result<AuditReport, AuditError> {
    let text = sqlwitness_core::read_input_to_string(path, sqlwitness_core::input::REPORT_FILE)
        .map_err(|source| AuditError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    let report: AuditReport = serde_json::from_str(&text).map_err(|source| AuditError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    if !(crate::AUDIT_FORMAT_VERSION_MIN..=crate::AUDIT_FORMAT_VERSION)
        .contains(&report.format_version)
    {
        return Err(AuditError::FormatVersion {
            path: path.to_path_buf(),
            found: report.format_version,
        });
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AuditSummary, Status};

    fn finding(id: usize, rule: &str) -> Finding {
        Finding {
            id,
            db_id: "db".into(),
            rule: rule.into(),
            status: Status::Latent,
            engines: vec!["sqlite".into()],
            gold_sql: "SELECT 1".into(),
            block: None,
            detail: String::new(),
            mechanism: None,
            evidence: vec![],
            rerun: vec![],
            rewrite: None,
            translation: None,
        }
    }

    fn audit(findings: Vec<Finding>) -> AuditReport {
        AuditReport {
            format_version: crate::AUDIT_FORMAT_VERSION,
            tool_version: "0".into(),
            run: Default::default(),
            summary: AuditSummary {
                with_db: 100,
                ..Default::default()
            },
            findings,
        }
    }

    #[test]
    fn new_and_resolved_findings_and_the_tolerance() {
        let old = audit(vec![finding(1, "limit_tie_1"), finding(2, "limit_tie_1")]);
        let new = audit(vec![
            finding(2, "limit_tie_1"),
            finding(3, "group_by_bare_column"),
        ]);
        let d = diff_audits(&old, &new);
        assert_eq!(
            d.new,
            vec![(3, "group_by_bare_column".into(), "sqlite".into())]
        );
        assert_eq!(d.resolved, vec![(1, "limit_tie_1".into(), "sqlite".into())]);
        assert!(d.regressed(0.0));
        assert!(!d.regressed(0.01));
        assert!(d.markdown(0.0).contains("**regression**"));
        assert!(!diff_audits(&new, &new).regressed(0.0));
    }

    #[test]
    fn cross_engine_differences_of_tie_dependent_golds_do_not_gate() {
        // Run 1 saw PostgreSQL return other tied rows on question 5, run 2
        // did not: the same inputs, the same gate.
        let mut cross = finding(5, "cross_engine_truncation");
        cross.engines = vec!["postgres".into()];
        let run1 = audit(vec![finding(5, "limit_tie_1"), cross.clone()]);
        let run2 = audit(vec![finding(5, "limit_tie_1")]);
        for (a, b) in [(&run1, &run2), (&run2, &run1)] {
            let d = diff_audits(a, b);
            assert!(d.new.is_empty() && d.resolved.is_empty(), "{d:?}");
        }
        assert_eq!(diff_audits(&run2, &run1).tie_dependent, 1);
        assert!(diff_audits(&run2, &run1)
            .markdown(0.0)
            .contains("not compared"));
        // Without a tie finding the difference is a real one.
        let mut other = cross.clone();
        other.id = 6;
        let d = diff_audits(&run2, &audit(vec![finding(5, "limit_tie_1"), other]));
        assert_eq!(d.new.len(), 1);
    }

    /// An audit.json of format 1 (`table1`, `table1_proven`, `table4`) reads
    /// as format 2 with the same counts; a version this build does not know
    /// is refused, naming the file.
    #[test]
    fn format_1_reads_under_the_new_names_and_unknown_versions_are_refused() {
        let mut current = audit(vec![
            finding(1, "limit_tie_1"),
            finding(2, "group_by_bare_column"),
        ]);
        current.summary = crate::summarize(&current.findings, 10, 10);
        current.summary.dialect_failures.insert(
            "postgres".into(),
            [("undefined_column".to_string(), 3)].into(),
        );
        let written = serde_json::to_value(&current).unwrap();
        let summary = written["summary"].as_object().unwrap();
        assert!(summary.contains_key("ties") && !summary.contains_key("table1"));

        let mut old = written.clone();
        old["format_version"] = 1.into();
        let s = old["summary"].as_object_mut().unwrap();
        for (from, to) in [
            ("ties", "table1"),
            ("ties_proven", "table1_proven"),
            ("dialect_failures", "table4"),
        ] {
            let v = s.remove(from).unwrap();
            s.insert(to.into(), v);
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.json");
        std::fs::write(&path, old.to_string()).unwrap();
        let read = read_audit(&path).unwrap();
        assert_eq!(read.format_version, 1);
        assert_eq!(read.summary, current.summary);
        assert_eq!(read.summary.ties.limit_1, 1);
        assert_eq!(read.summary.ties.group_by, 1);
        assert!(diff_audits(&read, &current).new.is_empty());

        let mut future = written;
        future["format_version"] = (crate::AUDIT_FORMAT_VERSION + 1).into();
        std::fs::write(&path, future.to_string()).unwrap();
        let err = read_audit(&path).unwrap_err().to_string();
        let expected = format!(
            "audit.json format_version {} (this sqlwitness reads 1 to {})",
            crate::AUDIT_FORMAT_VERSION + 1,
            crate::AUDIT_FORMAT_VERSION
        );
        assert!(err.contains(&expected), "{err}");
        assert!(err.starts_with(&path.display().to_string()), "{err}");
    }
}
