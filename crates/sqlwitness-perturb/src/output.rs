//! The mapping file (`mapping.json`) and the summary (`perturb.md`).

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::SourceEntry;

pub const MAPPING_FORMAT: &str = "sqlwitness-perturb-mapping/1";

/// Everything a perturbed set is: how it was made, each database's
/// changes, each perturbed question's original and each dropped one with
/// its reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mapping {
    pub format: String,
    pub kind: String,
    pub dr_spider_name: String,
    pub split: String,
    /// The source benchmark's folder name.
    pub source: String,
    pub seed: u64,
    pub samples: usize,
    /// The server engine that judged the golds (`--reference`), when not
    /// SQLite: each kept question's gold in its dialect is verified there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<ReferenceSummary>,
    pub sources: Vec<SourceEntry>,
    pub summary: KindSummary,
    pub databases: Vec<PerturbedDatabase>,
    pub skipped_databases: Vec<SkippedDatabase>,
    /// Perturbed question `id` (its index in the perturbed split) → the
    /// original question.
    pub questions: Vec<MappedQuestion>,
    pub dropped: Vec<DroppedQuestion>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KindSummary {
    /// Original databases with at least one perturbed database written.
    pub databases: usize,
    pub perturbed_databases: usize,
    /// (question, perturbed database) pairs whose gold mentions a changed
    /// column.
    pub affected: usize,
    /// … whose gold was rewritten.
    pub rewritten: usize,
    /// … whose rewritten gold returns the original answer (kept).
    pub verified: usize,
    /// Distinct original questions among the kept ones.
    pub original_questions: usize,
    /// Dropped pairs by reason.
    pub dropped: BTreeMap<String, usize>,
    /// Predictions carried (when given): rewritten / left as they were
    /// (they do not parse or mention no changed column) / refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predictions: Option<PredictionSummary>,
}

/// How a perturbed set was judged on a server reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReferenceSummary {
    /// The engine (`postgres`, `mysql`, `mariadb`).
    pub engine: String,
    /// Where its golds came from (the `--gold` file's name, or `benchmark`
    /// when the benchmark's own golds were read in its dialect).
    pub golds: String,
    /// The file of the output holding the rewritten golds in its dialect.
    pub gold_file: String,
    /// How each perturbed copy was put on it.
    pub copies: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PredictionSummary {
    pub rewritten: usize,
    pub unaffected: usize,
    pub not_rewritten: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerturbedDatabase {
    pub db_id: String,
    pub original_db_id: String,
    /// The sampling round that produced it.
    pub sample: usize,
    pub changes: Vec<AppliedChange>,
    /// Changes the database refused (e.g. a column a view depends on).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_changes: Vec<FailedChange>,
    pub questions: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppliedChange {
    pub table: String,
    pub column: String,
    /// `rename` or `replace`.
    pub change: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub new_columns: Vec<String>,
    /// The old column as an expression over the new ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expression: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedChange {
    pub change: AppliedChange,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedDatabase {
    pub db_id: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MappedQuestion {
    pub id: usize,
    pub original_id: usize,
    pub db_id: String,
    pub original_db_id: String,
    /// The changed columns the gold mentions (`table.column`).
    pub changed_columns: Vec<String>,
    pub original_gold: String,
    pub gold: String,
    /// The reference engine's gold (`--reference`): the original and the
    /// rewritten one, verified there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_reference_gold: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_gold: Option<String>,
    /// How the prediction was carried, when predictions were given:
    /// `rewritten`, `unaffected`, or `not rewritten: <why>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prediction: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DroppedQuestion {
    pub original_id: usize,
    /// The perturbed database it would have run on.
    pub db_id: String,
    pub reason: String,
    /// The reason's class (the summary counts these).
    pub class: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold: Option<String>,
}

/// `perturb.md`.
pub fn render_markdown(m: &Mapping) -> String {
    // Inputs (questions, SQL, db_ids, file names, servers' messages) may
    // hold control characters: shown escaped.
    sqlwitness_core::escape_controls(&render_markdown_unescaped(m)).into_owned()
}

fn render_markdown_unescaped(m: &Mapping) -> String {
    let s = &m.summary;
    let mut out = String::new();
    let _ = writeln!(out, "# Perturbed set: {} ({})\n", m.dr_spider_name, m.kind);
    let _ = writeln!(
        out,
        "Split `{}` of `{}`, random seed {}, up to {} sampling rounds per database. Every rewritten gold was run on its perturbed database and kept only if it returns exactly what the original gold returns on the original database.\n",
        m.split, m.source, m.seed, m.samples
    );
    if let Some(r) = &m.reference {
        let _ = writeln!(
            out,
            "Judged on {}: its golds ({}) were rewritten in its dialect and each ran on the perturbed copy there ({}); the rewritten golds are in `{}`.\n",
            r.engine, r.golds, r.copies, r.gold_file
        );
    }
    let _ = writeln!(out, "| | count |\n|---|---:|");
    let _ = writeln!(out, "| original databases perturbed | {} |", s.databases);
    let _ = writeln!(out, "| perturbed databases | {} |", s.perturbed_databases);
    let _ = writeln!(
        out,
        "| questions affected (gold mentions a changed column) | {} |",
        s.affected
    );
    let _ = writeln!(out, "| rewritten | {} |", s.rewritten);
    let _ = writeln!(out, "| verified (kept) | {} |", s.verified);
    let _ = writeln!(
        out,
        "| distinct original questions kept | {} |",
        s.original_questions
    );
    for (reason, n) in &s.dropped {
        let _ = writeln!(out, "| dropped: {} | {n} |", reason.replace('|', "\\|"));
    }
    if let Some(p) = &s.predictions {
        let _ = writeln!(
            out,
            "\nPredictions carried to the perturbed schema: {} rewritten, {} unaffected, {} not rewritten (kept as they were).",
            p.rewritten, p.unaffected, p.not_rewritten
        );
    }
    if !m.skipped_databases.is_empty() {
        let _ = writeln!(out, "\nSkipped databases:\n");
        for d in &m.skipped_databases {
            let _ = writeln!(out, "- `{}`: {}", d.db_id, d.reason);
        }
    }
    let _ = writeln!(
        out,
        "\n## Databases\n\n| database | from | changes | questions |\n|---|---|---|---:|"
    );
    for d in &m.databases {
        let changes: Vec<String> = d
            .changes
            .iter()
            .map(|c| match (&c.to, &c.expression) {
                (Some(to), _) => format!("{}.{} → {to}", c.table, c.column),
                (None, Some(e)) => {
                    format!("{}.{} → `{}`", c.table, c.column, e.replace('|', "\\|"))
                }
                _ => format!("{}.{}", c.table, c.column),
            })
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            d.db_id,
            d.original_db_id,
            changes.join("; "),
            d.questions
        );
    }
    let _ = writeln!(out, "\nSources of the dictionary or rules:\n");
    for src in &m.sources {
        let _ = writeln!(out, "- {}", src.name);
    }
    out
}
