//! What a run computes, as data: the settings that decide its outcome,
//! its input files and its engines — for `eval`, `audit`, `fuzz` and
//! `perturb` alike.
//! The journal's header keeps it (serialised with serde), so that `merge`
//! rebuilds the run and `--resume` checks it without the command line: the
//! field names are the library's, flags live in the CLI only.
//!
//! What does not change an outcome is left out: the output folder, worker
//! threads, progress, the partition (the header keeps it beside), whether
//! to migrate, and the servers (their URLs may carry passwords and change
//! between a run and its continuation; the header keeps each server's
//! version instead).

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

use sqlwitness_core::compare::CompareMode;
use sqlwitness_core::EngineKind;

use crate::{InputFiles, RunError};

/// The run of one command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum RunSpec {
    Eval(EvalSpec),
    Audit(AuditSpec),
    Fuzz(FuzzSpec),
    Perturb(PerturbSpec),
}

/// An evaluation: predictions (or the golds themselves) judged on every
/// engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalSpec {
    /// Where the inputs are; their contents are compared by hash (the
    /// header's `inputs`), not their paths.
    pub files: InputFiles,
    pub split: String,
    /// Whether a database file may be a link resolving outside the
    /// benchmark's database folder.
    pub allow_outside_links: bool,
    /// The question ids to run, in order.
    pub questions: Vec<usize>,
    pub engines: Vec<EngineKind>,
    /// The engine whose gold's answer judges the others' predictions.
    pub reference: Option<EngineKind>,
    pub compare: CompareMode,
    /// Columns compared in any order.
    pub any_column_order: bool,
    /// Spider mode: keep DISTINCT.
    pub keep_distinct: bool,
    /// Relative tolerance for floats in strict mode.
    pub float_tolerance: f64,
    /// The time limit of one query.
    pub timeout_seconds: f64,
    /// The most one result may hold, in bytes of values.
    pub max_result_bytes: usize,
    /// Longer predicted SQL texts are refused unread.
    pub max_sql_bytes: usize,
    /// Identifier case resolved against the schema as SQLite does (else
    /// the SQL is sent as written).
    pub resolve_identifiers: bool,
    /// Predictions that are valid answers under the gold's ties match.
    pub ties_aware: bool,
    /// Infeasible question ids (TrustSQL), the benchmark's own included.
    pub infeasible: BTreeSet<usize>,
    /// The calibration split of Platt scaling, when there is one.
    pub calibrate_on: Option<BTreeSet<usize>>,
    /// Bins of ECE, ACE and the reliability diagrams.
    pub calibration_bins: usize,
    /// Also the official evaluators' verdicts.
    pub legacy: bool,
    /// With a suite: shrink a witness for predictions that fail on it.
    pub suite_witness: bool,
    /// With a suite: extra generated instances looking for a witness.
    pub hunt: usize,
    /// Timed runs of each correct prediction and its gold (0: none).
    pub ves_runs: usize,
}

/// A gold audit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditSpec {
    pub files: InputFiles,
    pub split: String,
    pub allow_outside_links: bool,
    /// The question ids to audit, in order.
    pub questions: Vec<usize>,
    /// Every engine, the reference among them.
    pub engines: Vec<EngineKind>,
    /// The engine that judges.
    pub reference: EngineKind,
    /// Reshuffled copies of each database.
    pub shuffles: u64,
    pub timeout_seconds: f64,
    /// Tie-inclusive rewrites tried.
    pub rewrites: bool,
    /// Reruns on PostgreSQL under other plans.
    pub plan_variants: bool,
    /// The findings each rule may have before the audit fails: a gate,
    /// kept for `merge`, not compared.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fail_on: Vec<FailOn>,
}

/// At most `max` findings of `rule` (`any`, a rule, `dialect_*`; only
/// the proven ones with `proven`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailOn {
    pub rule: String,
    pub proven: bool,
    pub max: usize,
}

/// The test suites of a benchmark's databases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FuzzSpec {
    pub files: InputFiles,
    pub split: String,
    pub allow_outside_links: bool,
    /// The databases whose suites are built.
    pub databases: Vec<String>,
    /// The engine whose gold (its own) the suites are distilled with
    /// (`None`: the benchmark's gold on SQLite).
    pub reference: Option<EngineKind>,
    pub seed: u64,
    /// Candidate instances per database.
    pub candidates: usize,
    /// Candidates generated at once.
    pub batch: usize,
    /// Neighbour queries per gold.
    pub max_neighbors: usize,
    pub timeout_seconds: f64,
    /// The most rows one query may return.
    pub max_rows: usize,
    /// Rules the instances break on purpose, by name.
    pub stress: Vec<String>,
}

/// A perturbed set (Dr.Spider's database perturbations).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerturbSpec {
    pub files: PerturbFiles,
    pub split: String,
    /// `synonym`, `abbreviation`, `content` or `renames`.
    pub kind: String,
    /// Sampling rounds per database.
    pub samples: usize,
    pub seed: u64,
    /// Only these databases (all when empty), sorted.
    pub databases: Vec<String>,
    /// The time limit of one verification query.
    pub timeout_seconds: f64,
    /// The server engine that judges the golds (`None`: SQLite).
    pub reference: Option<EngineKind>,
}

/// The input files of `perturb`, by role (paths as given; compared by
/// their contents' hashes).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerturbFiles {
    pub benchmark: std::path::PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predictions: Option<std::path::PathBuf>,
    /// The reference engine's own gold file (`--gold`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold: Option<std::path::PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dictionary: Option<std::path::PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renames: Option<std::path::PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_rules: Option<std::path::PathBuf>,
}

/// `seconds` as a duration: positive and finite, else an error naming
/// `field`.
pub fn positive_seconds(field: &str, seconds: f64) -> Result<std::time::Duration, RunError> {
    if seconds > 0.0 && seconds.is_finite() {
        Ok(std::time::Duration::from_secs_f64(seconds))
    } else {
        Err(RunError::BadInput(format!(
            "{field}: must be a positive number of seconds, got {seconds}"
        )))
    }
}

impl RunSpec {
    /// `eval`, `audit`, `fuzz` or `perturb`.
    pub fn command(&self) -> &'static str {
        match self {
            RunSpec::Eval(_) => "eval",
            RunSpec::Audit(_) => "audit",
            RunSpec::Fuzz(_) => "fuzz",
            RunSpec::Perturb(_) => "perturb",
        }
    }

    /// The fields that decide the outcome, by name, as text: every field
    /// but the files (whose contents the header's input hashes cover, so a
    /// run may continue from another folder) and the gates (the run at
    /// hand decides its exit code). A list of more than [`LONG_LIST`]
    /// values is its length and a hash.
    pub fn settings(&self) -> BTreeMap<String, String> {
        let mut value = serde_json::to_value(self).expect("a plan serializes");
        let mut out = BTreeMap::new();
        if let serde_json::Value::Object(fields) = &mut value {
            for name in ["command", "files", "fail_on"] {
                fields.remove(name);
            }
            for (name, v) in fields.iter() {
                flatten(name, v, &mut out);
            }
        }
        out
    }
}

/// Lists longer than this are shown as their length and a hash.
pub const LONG_LIST: usize = 12;

fn flatten(name: &str, v: &serde_json::Value, out: &mut BTreeMap<String, String>) {
    use serde_json::Value;
    match v {
        Value::Object(fields) => {
            for (k, v) in fields {
                flatten(&format!("{name}.{k}"), v, out);
            }
        }
        Value::Array(items) if items.len() > LONG_LIST => {
            let text = items.iter().map(scalar).collect::<Vec<_>>().join(",");
            let hash = crate::sha256_hex(text.as_bytes());
            out.insert(
                name.to_string(),
                format!("{} ({})", items.len(), &hash[..16]),
            );
        }
        Value::Array(items) => {
            let text = items.iter().map(scalar).collect::<Vec<_>>().join(",");
            out.insert(name.to_string(), text);
        }
        _ => {
            out.insert(name.to_string(), scalar(v));
        }
    }
}

fn scalar(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "none".into(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::path::PathBuf;

    pub(crate) fn eval_spec() -> EvalSpec {
        EvalSpec {
            files: InputFiles {
                benchmark: "examples/spider-dev".into(),
                predictions: Some("preds.sql".into()),
                engine_predictions: [(EngineKind::Postgres, PathBuf::from("pg.sql"))].into(),
                golds: [(EngineKind::Mysql, PathBuf::from("gold_mysql.sql"))].into(),
                suite: None,
            },
            split: "dev".into(),
            allow_outside_links: false,
            questions: (0..45).collect(),
            engines: vec![EngineKind::Sqlite, EngineKind::Postgres, EngineKind::Mysql],
            reference: Some(EngineKind::Sqlite),
            compare: CompareMode::Spider,
            any_column_order: false,
            keep_distinct: false,
            float_tolerance: 1e-9,
            timeout_seconds: 0.25,
            max_result_bytes: 64 << 20,
            max_sql_bytes: 100_000,
            resolve_identifiers: true,
            ties_aware: true,
            infeasible: [3, 7].into(),
            calibrate_on: Some([1, 2].into()),
            calibration_bins: 10,
            legacy: false,
            suite_witness: true,
            hunt: 0,
            ves_runs: 0,
        }
    }

    fn audit_spec() -> AuditSpec {
        AuditSpec {
            files: InputFiles {
                benchmark: "b".into(),
                golds: [(EngineKind::Postgres, PathBuf::from("g.sql"))].into(),
                ..InputFiles::default()
            },
            split: "dev".into(),
            allow_outside_links: true,
            questions: vec![4, 2],
            engines: vec![EngineKind::Sqlite, EngineKind::Postgres],
            reference: EngineKind::Postgres,
            shuffles: 3,
            timeout_seconds: 30.0,
            rewrites: true,
            plan_variants: false,
            fail_on: vec![FailOn {
                rule: "any".into(),
                proven: true,
                max: 0,
            }],
        }
    }

    fn fuzz_spec() -> FuzzSpec {
        FuzzSpec {
            files: InputFiles {
                benchmark: "b".into(),
                ..InputFiles::default()
            },
            split: "dev".into(),
            allow_outside_links: false,
            databases: vec!["concert_singer".into()],
            reference: None,
            seed: 42,
            candidates: 200,
            batch: 20,
            max_neighbors: 40,
            timeout_seconds: 30.0,
            max_rows: 100_000,
            stress: vec!["nulls".into(), "empty".into()],
        }
    }

    fn perturb_spec() -> PerturbSpec {
        PerturbSpec {
            files: PerturbFiles {
                benchmark: "b".into(),
                dictionary: Some("extra.yaml".into()),
                ..PerturbFiles::default()
            },
            split: "dev".into(),
            kind: "synonym".into(),
            samples: 5,
            seed: 7,
            databases: vec!["concert_singer".into()],
            timeout_seconds: 30.0,
            reference: None,
        }
    }

    #[test]
    fn every_plan_survives_the_round_trip_through_json() {
        for spec in [
            RunSpec::Eval(eval_spec()),
            RunSpec::Audit(audit_spec()),
            RunSpec::Fuzz(fuzz_spec()),
            RunSpec::Perturb(perturb_spec()),
        ] {
            let text = serde_json::to_string(&spec).unwrap();
            let back: RunSpec = serde_json::from_str(&text).unwrap();
            assert_eq!(back, spec, "{text}");
            assert!(text.contains(&format!("\"command\":\"{}\"", spec.command())));
        }
    }

    #[test]
    fn an_unknown_field_is_refused() {
        let mut v = serde_json::to_value(RunSpec::Audit(audit_spec())).unwrap();
        v["color"] = "blue".into();
        let err = serde_json::from_value::<RunSpec>(v)
            .unwrap_err()
            .to_string();
        assert!(err.contains("color"), "{err}");
    }

    #[test]
    fn settings_name_every_field_but_the_files() {
        let s = RunSpec::Eval(eval_spec()).settings();
        assert_eq!(s["compare"], "spider");
        assert_eq!(s["engines"], "sqlite,postgres,mysql");
        assert_eq!(s["reference"], "sqlite");
        assert_eq!(s["timeout_seconds"], "0.25");
        assert_eq!(s["calibrate_on"], "1,2");
        assert!(s["questions"].starts_with("45 ("), "{}", s["questions"]);
        assert!(!s.keys().any(|k| k.starts_with("files") || k == "command"));
        let a = RunSpec::Audit(audit_spec()).settings();
        assert_eq!(a["reference"], "postgres");
        assert_eq!(a["questions"], "4,2");
        assert!(!a.contains_key("fail_on"), "a gate is not compared");
        let p = RunSpec::Perturb(perturb_spec()).settings();
        assert_eq!(p["kind"], "synonym");
        assert_eq!(p["seed"], "7");
        assert!(!p.keys().any(|k| k.starts_with("files")));
    }
}
