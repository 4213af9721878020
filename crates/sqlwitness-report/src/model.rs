//! The report model. Every field is documented because `report.json` is a
//! published, versioned format: additions bump the minor version, changes
//! that break readers bump `format_version`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use sqlwitness_core::compare::{CreditCause, MismatchReason};
pub use sqlwitness_core::Verdict;
use sqlwitness_core::{EngineInfo, ErrorClass};

use crate::Summary;

/// The major version of the report format. Readers must reject other
/// majors.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Always [`FORMAT_VERSION`].
    pub format_version: u32,
    pub tool: ToolInfo,
    pub run: RunInfo,
    pub summary: Summary,
    pub questions: Vec<QuestionReport>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInfo {
    pub name: String,
    pub version: String,
}

/// How the run was made: enough to rerun it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The benchmark folder as given.
    pub bench: String,
    pub split: String,
    /// The prediction file, or `None` for the gold self-check.
    pub predictions: Option<String>,
    /// Per engine, where its gold came from when it is not the benchmark's
    /// (`mini_dev_mysql.json`, `gold_mysql`, an `--gold` file).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub golds: BTreeMap<String, String>,
    /// Per server engine, the collation of its migrated copies (MySQL and
    /// MariaDB: the server's default for utf8mb4 — `utf8mb4_0900_ai_ci` on
    /// MySQL 8+, `utf8mb4_general_ci` on MariaDB — which decides case and
    /// accent comparisons and sort order there).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub collations: BTreeMap<String, String>,
    /// Per engine, the prediction file it ran when it is not `predictions`
    /// (`--pred ENGINE=FILE`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub engine_predictions: BTreeMap<String, String>,
    /// `strict`, `spider`, `bird`, `spider2`, `livesqlbench` or `defog`.
    pub compare: String,
    /// `exact` or `any`.
    pub column_order: String,
    /// Spider mode only: whether DISTINCT was kept (`--keep-distinct`).
    pub keep_distinct: bool,
    /// Relative float tolerance used by `strict`.
    pub float_tolerance: f64,
    /// Per-query time limit in milliseconds.
    pub timeout_ms: u64,
    /// `--ves-runs`: timed runs per correct prediction (0: none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ves_runs: usize,
    /// How identifiers were resolved on PostgreSQL/MySQL: `sqlite` (case
    /// resolved against the schema as SQLite does) or `verbatim`.
    pub identifiers: String,
    /// The engines, with the server version each reported.
    pub engines: Vec<EngineInfo>,
    /// Wall time of the whole run in milliseconds.
    pub duration_ms: u64,
    /// The process's peak resident memory in bytes (Linux `VmHWM`), when
    /// known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_bytes: Option<u64>,
}

/// One question and its outcome on every engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionReport {
    /// 0-based index in the split.
    pub id: usize,
    pub db_id: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub question: String,
    pub gold_sql: String,
    /// The predicted SQL; `None` when abstained or in the self-check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pred_sql: Option<String>,
    /// Spider's hardness of the gold (`easy`, `medium`, `hard`, `extra`),
    /// as the official test-suite evaluator computes it; `null` when its
    /// parser cannot read the gold (`hardness_error` says why).
    #[serde(default)]
    pub hardness: Option<String>,
    /// Why `hardness` is `null`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hardness_error: Option<String>,
    /// Spider's exact set match of the prediction against the gold, as the
    /// official test-suite evaluator scores it (`--etype match`); present
    /// when the benchmark has `tables.json` and the question a prediction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact_match: Option<bool>,
    /// Why `exact_match` is absent though the question has a prediction:
    /// where the official evaluator stops (a gold its parser cannot read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact_match_error: Option<String>,
    /// BIRD's `difficulty` (`simple`, `moderate`, `challenging`), as the
    /// benchmark gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<String>,
    /// Keyed by engine name (`sqlite`, `postgres`, `mysql`).
    pub engines: BTreeMap<String, EngineOutcome>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineOutcome {
    pub verdict: Verdict,
    /// The gold this engine ran, where it is not the question's `gold_sql`
    /// (a dialect gold: BIRD mini-dev's per-dialect files, `gold_<engine>`,
    /// `eval --gold ENGINE=FILE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold_sql: Option<String>,
    /// Which accepted gold the prediction matched, 0-based (0: the first),
    /// where the question lists several; absent with a single gold or when
    /// none matched (the verdict is then the one against the first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold_index: Option<usize>,
    /// The prediction this engine ran, where it is not the question's
    /// `pred_sql` (`eval --pred ENGINE=FILE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pred_sql: Option<String>,
    /// BIRD mini-dev's Soft F1 of the prediction's rows against the
    /// gold's (`evaluation_f1.py`): 0 when the prediction failed, timed
    /// out or abstained; absent when the gold did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soft_f1: Option<f64>,
    /// Why a `mismatch` is one (row count, values, order …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<MismatchReason>,
    /// Whether rows were compared in order (the gold has a top-level
    /// ORDER BY, or the Spider substring test fired in `spider` mode).
    pub ordered: bool,
    /// A `mismatch` (or `match_tie`) that is correct by the tie-aware
    /// reading: every answer the prediction may return is one the gold may
    /// return — the prediction's answer is one of the gold's under the
    /// gold's ties, or both queries admit the same answers. Two runs may
    /// see `match` and `mismatch` here; tie-aware EX and the baseline gate
    /// count it as correct either way.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tie: bool,
    /// The prediction's own `LIMIT` cuts through ties and some answer it may
    /// return is not one of the gold's: a `match` here was luck (another run
    /// may see `mismatch`). Tie-aware EX and the baseline gate count it as
    /// wrong either way.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unstable: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold: Option<Execution>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pred: Option<Execution>,
    /// `eval --suite`: the verdict on the test suite's instances (absent
    /// without a suite, for a database the suite lacks, or on an engine the
    /// suite does not run on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<SuiteOutcome>,
    /// The judgment against the reference engine (`eval --reference`): the
    /// prediction's answer here against the reference gold's answer on the
    /// reference engine, and whether this engine's own gold agrees with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<ReferenceOutcome>,
    /// `eval --legacy` (strict runs, both queries ran): the verdicts of
    /// the official Spider and BIRD evaluators on the same question and
    /// engine, to show where they differ from the strict one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legacy: Option<LegacyVerdicts>,
    /// A `match` under a non-strict `--compare` mode that the strict
    /// comparison rejects: why the mode credits it (`row_order`,
    /// `column_order`, `multiplicity`, `subset`, `truncation`, `type`,
    /// `tolerance`, `broadcast` or `other`;
    /// `sqlwitness_core::compare::credit_causes`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub credit_causes: Vec<CreditCause>,
    /// `eval --ves-runs N`, a `match` only: the prediction's and the gold's
    /// timed runs and their efficiency (BIRD's VES, mini-dev's R-VES).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ves: Option<crate::VesOutcome>,
    /// The gold or the prediction reads a column this engine's copy holds
    /// only degraded (geometry as WKT, an array as JSON …): what it reads,
    /// and how. A failure here is not portable to this engine, never the
    /// model's: the verdict is then `engine_error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_portable: Option<String>,
}

impl EngineOutcome {
    /// Correct by the tie-aware reading: `match`, `match_tie`, or a
    /// `mismatch` that is one of the gold's answers under ties. What
    /// tie-aware EX counts and what the baseline gate compares, so that a
    /// `LIMIT` cutting through ties never moves either.
    pub fn passes_tie_aware(&self) -> bool {
        match self.verdict {
            Verdict::Match | Verdict::MatchTie => !self.unstable,
            Verdict::Mismatch => self.tie,
            _ => false,
        }
    }

    /// An outcome with only its verdict: nothing ran or compared yet.
    pub fn new(verdict: Verdict) -> EngineOutcome {
        EngineOutcome {
            verdict,
            gold_sql: None,
            gold_index: None,
            pred_sql: None,
            soft_f1: None,
            reason: None,
            ordered: false,
            tie: false,
            unstable: false,
            gold: None,
            pred: None,
            suite: None,
            reference: None,
            legacy: None,
            credit_causes: Vec::new(),
            ves: None,
            not_portable: None,
        }
    }
}

/// The prediction judged against the reference: "the model is wrong" is
/// `verdict` (`mismatch`: the prediction's answer here is not the
/// reference gold's answer), "the dialect gold or the migration is wrong"
/// is `gold_agrees: false` with its `gold_mechanism`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceOutcome {
    /// The reference engine.
    pub engine: String,
    /// `match`, `match_tie` (one of the reference gold's answers under
    /// ties), `mismatch`, `pred_error`, `timeout`, `abstained`,
    /// `engine_error`.
    pub verdict: Verdict,
    /// Whether this engine's gold answers as the reference gold does (absent
    /// when it did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold_agrees: Option<bool>,
    /// Why they differ: `ties`, `collation`, `type`, `order`, `null_order`,
    /// `multiplicity`, `other`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold_mechanism: Option<String>,
}

/// The legacy evaluators' verdicts (`docs/report-format.md`, "Legacy
/// verdicts"; mechanisms in `sqlwitness_score::mechanism`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegacyVerdicts {
    /// Spider test-suite `result_eq` after its preprocessing (DISTINCT
    /// deleted, rerun when that changed the SQL), ordered iff `'order by'`
    /// is in the gold text.
    pub spider: bool,
    /// Whether the Spider rule compared in order.
    pub spider_ordered: bool,
    /// The Spider preprocessing deleted a DISTINCT from gold or prediction.
    pub distinct_removed: bool,
    /// BIRD: `set(pred_rows) == set(gold_rows)` on the same rows.
    pub bird: bool,
}

/// The verdict of one prediction on a distilled test suite (Zhong et al.
/// 2020): it passes when it matches the gold on the original database and
/// on every instance of the suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteOutcome {
    pub passed: bool,
    /// Instances in the database's suite.
    pub instances: usize,
    /// Instances checked (the check stops at the first failure; none when
    /// the prediction already fails on the original).
    pub checked: usize,
    /// The first instance where gold and prediction differ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_instance: Option<String>,
    /// Why they differ there (`values`, `row_count`, `pred_error: …`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witness: Option<WitnessReport>,
}

/// A shrunk database on which the gold and the prediction differ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WitnessReport {
    /// Rows in the witness (and in the instance it was shrunk from).
    pub rows: usize,
    pub rows_before: usize,
    /// `INSERT` statements that build it on the database's schema.
    pub inserts: Vec<String>,
    /// Both results on the witness, rendered (at most 10 rows each).
    pub gold: Vec<Vec<String>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pred: Vec<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pred_error: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecutionStatus {
    Ok,
    Error,
}

/// One execution of one query on one engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Execution {
    pub status: ExecutionStatus,
    /// The SQL text actually sent, when it differs from the question's
    /// (identifier resolution, Spider-mode DISTINCT removal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql_run: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_class: Option<ErrorClass>,
    /// The engine's own code: SQLSTATE, MySQL error number, SQLite code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row_count: Option<usize>,
    /// Order-independent, type-aware content hash of the rows (equal
    /// numbers hash equal across integer/float/decimal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_hash: Option<String>,
    /// Up to the first five rows, rendered, for the drill-down; a cell
    /// longer than [`MAX_CELL_CHARS`] is cut (see `truncated`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sample: Vec<Vec<String>>,
    /// The result's column names, as the engine reported them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<String>,
    /// True when `sample`, `sql_run` or `error` was cut to keep the report
    /// small; `result_hash` and `row_count` always cover the whole result.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    pub duration_ms: f64,
}

/// The longest sample cell a report keeps, in characters.
pub const MAX_CELL_CHARS: usize = 200;

/// The longest SQL text or error message a report keeps, in bytes (the
/// guard refuses predictions over 100,000 bytes unread; their text is kept
/// only in part, with its length and hash).
pub const MAX_TEXT_BYTES: usize = 16 * 1024;

/// `text` cut to at most `max` bytes on a character boundary, with a note
/// of what was left out; `None` when it fits.
pub fn truncate_text(text: &str, max: usize) -> Option<String> {
    if text.len() <= max {
        return None;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Some(format!(
        "{}… [cut: {} of {} bytes kept]",
        &text[..end],
        end,
        text.len()
    ))
}

/// `cell` cut to [`MAX_CELL_CHARS`] characters, with the full length noted;
/// `None` when it fits.
pub fn truncate_cell(cell: &str) -> Option<String> {
    let mut chars = cell.char_indices();
    let (cut, _) = chars.nth(MAX_CELL_CHARS)?;
    Some(format!(
        "{}… [{} chars]",
        &cell[..cut],
        cell.chars().count()
    ))
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
