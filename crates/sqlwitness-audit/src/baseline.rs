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

/// Findings present in one audit and not the other.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AuditDiff {
    /// In the new audit, not in the baseline.
    pub new: Vec<Key>,
    /// In the baseline, not in the new audit.
    pub resolved: Vec<Key>,
    /// Questions with a database in the new audit (the tolerance's base).
    pub with_db: usize,
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
    let old: BTreeSet<Key> = baseline.findings.iter().map(key).collect();
    let now: BTreeSet<Key> = new.findings.iter().map(key).collect();
    AuditDiff {
        new: now.difference(&old).cloned().collect(),
        resolved: old.difference(&now).cloned().collect(),
        with_db: new.summary.with_db,
    }
}

/// Reads an `audit.json`.
pub fn read_audit(path: &Path) -> Result<AuditReport, AuditError> {
    let text = std::fs::read_to_string(path).map_err(|source| AuditError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| AuditError::Json {
        path: path.to_path_buf(),
        source,
    })
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
}
