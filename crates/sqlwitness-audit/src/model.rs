//! The audit report (`audit.json`) and its summary.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::Evidence;

/// The `format_version` this sqlwitness writes. Version 2 renamed the
/// summary's `table1`, `table1_proven` and `table4` to `ties`,
/// `ties_proven` and `dialect_failures`; [`crate::read_audit`] still reads
/// version 1 (the findings are the same).
pub const AUDIT_FORMAT_VERSION: u32 = 2;

/// The oldest `format_version` [`crate::read_audit`] reads.
pub const AUDIT_FORMAT_VERSION_MIN: u32 = 1;

/// `proven`: the data shows it. `latent`: only the static rule fires (the
/// data happens to hold no tie today; another instance would break it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Proven,
    Latent,
}

/// A verified (or refuted) rewrite of a gold query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RewriteCheck {
    pub kind: String,
    pub sql: String,
    /// Runs on every audited engine and answers the same everywhere.
    pub verified: bool,
    pub note: String,
    /// Per engine: `rows=N hash=H` or the error.
    pub results: BTreeMap<String, String>,
    /// Engines where the rewrite runs only once translated (the gold's own
    /// dialect problem, carried into the rewrite).
    #[serde(default)]
    pub translated_on: Vec<String>,
}

/// A dialect failure translated for the failing engine and rerun.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TranslationCheck {
    /// `portable_after_translation` (same answer as SQLite once translated),
    /// `semantic_difference` (runs, answers differently — `mechanism` says
    /// how), `still_failing`, or `no_translation` (no rule applies).
    pub outcome: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql: Option<String>,
    pub steps: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mechanism: Option<String>,
    /// `rows=N hash=H` or the error of the translated query.
    pub result: String,
}

/// One problem of one gold query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// The question's index in the split.
    pub id: usize,
    pub db_id: String,
    pub rule: String,
    pub status: Status,
    /// Engines the finding concerns.
    pub engines: Vec<String>,
    pub gold_sql: String,
    /// The query block the static rule fired on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
    pub detail: String,
    /// Cross-engine differences: `order`, `multiplicity`, `type`,
    /// `collation`, `null_order`, `truncation`, `other`. Dialect failures:
    /// the error class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mechanism: Option<String>,
    pub evidence: Vec<Evidence>,
    /// Commands that show the evidence again.
    pub rerun: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<RewriteCheck>,
    /// Dialect failures: the translation to the failing engine, rerun.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub translation: Option<TranslationCheck>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusCount {
    pub proven: usize,
    pub latent: usize,
}

/// Pourreza & Rafiei's Table 1 columns, counted in questions (a question
/// counts once per column): LIMIT 1 = `limit_tie_1`; LIMIT N = `limit_tie_n` and
/// `limit_without_order`; GROUP BY = `group_by_bare_column` and
/// `aggregate_bare_column`; ORDER BY = `distinct_order_by`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TieCounts {
    pub limit_1: usize,
    pub limit_n: usize,
    pub group_by: usize,
    pub order_by: usize,
    pub total: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AuditSummary {
    pub questions: usize,
    pub with_db: usize,
    pub by_rule: BTreeMap<String, StatusCount>,
    /// Questions whose answer depends on ties, by kind (Pourreza &
    /// Rafiei's Table 1 layout), any status. `table1` in format 1.
    #[serde(alias = "table1")]
    pub ties: TieCounts,
    /// The same, proven findings only. `table1_proven` in format 1.
    #[serde(alias = "table1_proven")]
    pub ties_proven: TieCounts,
    /// Per engine, questions whose gold fails there, by error class
    /// (Pourreza & Rafiei's Table 4 layout). `table4` in format 1.
    #[serde(alias = "table4")]
    pub dialect_failures: BTreeMap<String, BTreeMap<String, usize>>,
    /// Per engine, questions answering differently from SQLite, by mechanism.
    pub cross_engine: BTreeMap<String, BTreeMap<String, usize>>,
    pub affected_questions: usize,
    pub rewrites_tried: usize,
    pub rewrites_verified: usize,
    /// Verified rewrites that run on every engine as written.
    pub rewrites_verified_as_written: usize,
    /// Per engine, dialect-failing questions by translation outcome.
    pub translations: BTreeMap<String, BTreeMap<String, usize>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AuditRun {
    pub bench: String,
    pub split: String,
    pub engines: Vec<String>,
    /// The reference engine: its gold's answer on its own copy is what
    /// the findings prove and every other engine is compared with
    /// (`sqlite` in audits from before the field).
    #[serde(default = "sqlite_reference")]
    pub reference: String,
    pub engine_versions: BTreeMap<String, String>,
    pub shuffle_seeds: Vec<u64>,
    pub duration_ms: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AuditReport {
    pub format_version: u32,
    pub tool_version: String,
    pub run: AuditRun,
    pub summary: AuditSummary,
    pub findings: Vec<Finding>,
}

fn sqlite_reference() -> String {
    sqlwitness_core::EngineKind::REFERENCE.as_str().to_string()
}

fn tie_column(rule: &str) -> Option<usize> {
    match rule {
        "limit_tie_1" => Some(0),
        "limit_tie_n" | "limit_without_order" => Some(1),
        "group_by_bare_column" | "aggregate_bare_column" => Some(2),
        "distinct_order_by" => Some(3),
        _ => None,
    }
}

fn tie_counts(findings: &[Finding], proven_only: bool) -> TieCounts {
    let mut cols: [BTreeSet<usize>; 4] = Default::default();
    for f in findings {
        if proven_only && f.status != Status::Proven {
            continue;
        }
        if let Some(c) = tie_column(&f.rule) {
            cols[c].insert(f.id);
        }
    }
    let total: BTreeSet<usize> = cols.iter().flatten().copied().collect();
    TieCounts {
        limit_1: cols[0].len(),
        limit_n: cols[1].len(),
        group_by: cols[2].len(),
        order_by: cols[3].len(),
        total: total.len(),
    }
}

/// Counts everything the summary shows from the findings. `by_rule` counts
/// findings per question (a rule firing on two blocks of one question
/// counts once, proven if any is).
pub fn summarize(findings: &[Finding], questions: usize, with_db: usize) -> AuditSummary {
    let mut per_q: BTreeMap<(String, usize), Status> = BTreeMap::new();
    let mut dialect_failures: BTreeMap<String, BTreeMap<String, BTreeSet<usize>>> = BTreeMap::new();
    let mut cross: BTreeMap<String, BTreeMap<String, BTreeSet<usize>>> = BTreeMap::new();
    let mut rewritten: BTreeMap<usize, bool> = BTreeMap::new();
    let mut as_written: BTreeSet<usize> = BTreeSet::new();
    let mut translations: BTreeMap<String, BTreeMap<String, BTreeSet<usize>>> = BTreeMap::new();
    for f in findings {
        if let Some(t) = &f.translation {
            for eng in &f.engines {
                translations
                    .entry(eng.clone())
                    .or_default()
                    .entry(t.outcome.clone())
                    .or_default()
                    .insert(f.id);
            }
        }
        let e = per_q.entry((f.rule.clone(), f.id)).or_insert(f.status);
        if f.status == Status::Proven {
            *e = Status::Proven;
        }
        let mech = f.mechanism.clone().unwrap_or_else(|| "other".into());
        for eng in &f.engines {
            if f.rule.starts_with("dialect_") {
                dialect_failures
                    .entry(eng.clone())
                    .or_default()
                    .entry(mech.clone())
                    .or_default()
                    .insert(f.id);
            } else if f.rule.starts_with("cross_engine") {
                cross
                    .entry(eng.clone())
                    .or_default()
                    .entry(mech.clone())
                    .or_default()
                    .insert(f.id);
            }
        }
        if let Some(r) = &f.rewrite {
            let v = rewritten.entry(f.id).or_insert(false);
            *v |= r.verified;
            if r.verified && r.translated_on.is_empty() {
                as_written.insert(f.id);
            }
        }
    }
    let mut by_rule: BTreeMap<String, StatusCount> = BTreeMap::new();
    for ((rule, _), st) in &per_q {
        let c = by_rule.entry(rule.clone()).or_default();
        match st {
            Status::Proven => c.proven += 1,
            Status::Latent => c.latent += 1,
        }
    }
    let count = |m: BTreeMap<String, BTreeMap<String, BTreeSet<usize>>>| {
        m.into_iter()
            .map(|(e, by)| (e, by.into_iter().map(|(k, v)| (k, v.len())).collect()))
            .collect()
    };
    AuditSummary {
        questions,
        with_db,
        by_rule,
        ties: tie_counts(findings, false),
        ties_proven: tie_counts(findings, true),
        dialect_failures: count(dialect_failures),
        cross_engine: count(cross),
        translations: count(translations),
        affected_questions: findings.iter().map(|f| f.id).collect::<BTreeSet<_>>().len(),
        rewrites_tried: rewritten.len(),
        rewrites_verified: rewritten.values().filter(|v| **v).count(),
        rewrites_verified_as_written: as_written.len(),
    }
}

/// `--fail-on rule=N,…`: the rules whose count (proven + latent, or proven
/// only with `rule:proven=N`) exceeds its threshold.
pub fn exceeded(summary: &AuditSummary, thresholds: &[(String, bool, usize)]) -> Vec<String> {
    let mut out = Vec::new();
    for (rule, proven_only, max) in thresholds {
        let n: usize = summary
            .by_rule
            .iter()
            .filter(|(r, _)| {
                rule == "any"
                    || *r == rule
                    || (rule.ends_with('*') && r.starts_with(rule.trim_end_matches('*')))
            })
            .map(|(_, c)| {
                if *proven_only {
                    c.proven
                } else {
                    c.proven + c.latent
                }
            })
            .sum();
        if n > *max {
            out.push(format!(
                "{rule}{}: {n} > {max}",
                if *proven_only { ":proven" } else { "" }
            ));
        }
    }
    out
}
