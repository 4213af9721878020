//! `audit.md`: counts in the layout of Pourreza & Rafiei's Tables 1 and 4,
//! then one section per affected query.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::model::{AuditReport, AuditSummary, Finding, TieCounts};
use crate::{AuditError, Evidence};

fn pct(n: usize, of: usize) -> String {
    if of == 0 {
        format!("{n}")
    } else {
        format!("{n} ({:.1}%)", 100.0 * n as f64 / of as f64)
    }
}

fn t1(out: &mut String, label: &str, r: &TieCounts, of: usize) {
    let _ = writeln!(
        out,
        "| {label} | {} | {} | {} | {} | {} |",
        pct(r.limit_1, of),
        pct(r.limit_n, of),
        pct(r.group_by, of),
        pct(r.order_by, of),
        pct(r.total, of)
    );
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The reference engine as the report's prose names it.
fn reference_name(reference: &str) -> &str {
    match reference {
        "sqlite" => "SQLite",
        other => other,
    }
}

pub fn render_markdown(r: &AuditReport) -> String {
    // Inputs (questions, SQL, db_ids, file names, servers' messages) may
    // hold control characters: shown escaped.
    sqlwitness_core::escape_controls(&render_markdown_unescaped(r)).into_owned()
}

fn render_markdown_unescaped(r: &AuditReport) -> String {
    let s = &r.summary;
    let mut o = String::new();
    header(&mut o, r);
    ties_table(&mut o, s);
    rules_table(&mut o, s);
    dialect_failures_table(&mut o, s);
    if !s.cross_engine.is_empty() {
        let _ = writeln!(o, "\n## Different answers across engines (vs {})\n\n| engine | mechanism | questions |\n|---|---|---|", reference_name(&r.run.reference));
        engine_count_rows(&mut o, &s.cross_engine);
    }
    if !s.translations.is_empty() {
        let _ = writeln!(o, "\n## Dialect failures translated and rerun\n\n| engine | outcome | questions |\n|---|---|---|");
        engine_count_rows(&mut o, &s.translations);
    }
    let _ = writeln!(
        o,
        "\nRewrites: {} nondeterministic golds got a tie-inclusive rewrite, {} verified (runs on every audited engine — translated where the gold's own dialect problem requires it —, same answer everywhere and on the reshuffled copies, original answer included); {} of them run everywhere as written.\n",
        s.rewrites_tried, s.rewrites_verified, s.rewrites_verified_as_written
    );
    let _ = writeln!(o, "## Affected queries\n");
    let mut last = usize::MAX;
    for f in &r.findings {
        if f.id != last {
            let _ = writeln!(
                o,
                "### Q{} ({})\n\n```sql\n{}\n```\n",
                f.id, f.db_id, f.gold_sql
            );
            last = f.id;
        }
        finding(&mut o, f);
    }
    o
}

/// The title, the reference engine when it is not SQLite, and what was
/// audited.
fn header(o: &mut String, r: &AuditReport) {
    let s = &r.summary;
    let _ = writeln!(o, "# sqlwitness audit: {} ({})\n", r.run.bench, r.run.split);
    if r.run.reference != "sqlite" {
        let _ = writeln!(
            o,
            "Reference engine: {} (its golds, judged on its own copy; the other engines compared with its answer).\n",
            r.run.reference
        );
    }
    let _ = writeln!(
        o,
        "{} questions, {} with a database; engines: {}; reshuffled copies of each database: {}; {} questions affected.\n",
        s.questions,
        s.with_db,
        r.run.engines.join(", "),
        r.run.shuffle_seeds.len(),
        s.affected_questions
    );
}

/// The ties, counted as in Pourreza & Rafiei's Table 1, with their numbers.
fn ties_table(o: &mut String, s: &AuditSummary) {
    let _ = writeln!(o, "## Ties (layout of Pourreza & Rafiei, Table 1)\n");
    let _ = writeln!(
        o,
        "| | LIMIT 1 | LIMIT N | GROUP BY | ORDER BY | Total |\n|---|---|---|---|---|---|"
    );
    t1(o, "sqlwitness, proven + latent", &s.ties, s.with_db);
    t1(o, "sqlwitness, proven", &s.ties_proven, s.with_db);
    let _ = writeln!(
        o,
        "\nLIMIT 1 = `limit_tie_1`; LIMIT N = `limit_tie_n` + `limit_without_order`; GROUP BY = `group_by_bare_column` + `aggregate_bare_column`; ORDER BY = `distinct_order_by`. Pourreza & Rafiei report for Spider dev 171 / 10 / 51 / 2 / 234 and for Spider train 989 / 106 / 254 / 10 / 1359.\n"
    );
}

/// The proven and latent findings of each rule.
fn rules_table(o: &mut String, s: &AuditSummary) {
    let _ = writeln!(
        o,
        "## Findings by rule\n\n| rule | proven | latent |\n|---|---|---|"
    );
    for (rule, c) in &s.by_rule {
        let _ = writeln!(o, "| `{rule}` | {} | {} |", c.proven, c.latent);
    }
}

/// The golds each engine refuses, by class as in Pourreza & Rafiei's
/// Table 4 (nothing when none is refused).
fn dialect_failures_table(o: &mut String, s: &AuditSummary) {
    if s.dialect_failures.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "\n## Dialect failures (layout of Pourreza & Rafiei, Table 4)\n"
    );
    let classes = [
        "syntax",
        "undefined_function",
        "undefined_column",
        "undefined_table",
        "type_mismatch",
        "order_by",
        "group_by",
        "timeout",
        "other",
    ];
    let _ = writeln!(o, "| engine | SyntaxErr | UndFunc | UndCol | UndTable | TypeMismatch | Order By | Group By | Timeout | Other |\n|---|---|---|---|---|---|---|---|---|---|");
    for (eng, by) in &s.dialect_failures {
        let row: Vec<String> = classes
            .iter()
            .map(|c| by.get(*c).copied().unwrap_or(0).to_string())
            .collect();
        let _ = writeln!(o, "| {eng} | {} |", row.join(" | "));
    }
    let _ = writeln!(o, "\nPourreza & Rafiei, Spider dev on PostgreSQL: SyntaxErr 4, UndFunc 69, UndCol 211, Order By 2, Group By 51.");
}

/// One table row `| engine | `key` | count |` for each count of each engine.
fn engine_count_rows(o: &mut String, counts: &BTreeMap<String, BTreeMap<String, usize>>) {
    for (eng, by) in counts {
        for (k, n) in by {
            let _ = writeln!(o, "| {eng} | `{k}` | {n} |");
        }
    }
}

/// One finding as a list item: its rule, status and detail, then its
/// evidence, rewrite, translation and rerun command.
fn finding(o: &mut String, f: &Finding) {
    let _ = writeln!(
        o,
        "- **`{}`** {:?} on {}: {}",
        f.rule,
        f.status,
        f.engines.join(", "),
        cell(&f.detail)
    );
    for e in &f.evidence {
        evidence(o, e);
    }
    if let Some(rw) = &f.rewrite {
        let _ = writeln!(
            o,
            "  - rewrite ({}, {}): `{}` — {}",
            rw.kind,
            if rw.verified {
                "verified"
            } else {
                "not verified"
            },
            cell(&rw.sql),
            cell(&rw.note)
        );
    }
    if let Some(t) = &f.translation {
        let _ = writeln!(
            o,
            "  - translation → `{}`{}: `{}` ({}) — {}",
            t.outcome,
            t.mechanism
                .as_ref()
                .map(|m| format!(" ({m})"))
                .unwrap_or_default(),
            cell(t.sql.as_deref().unwrap_or("")),
            t.steps.join(", "),
            cell(&t.result)
        );
    }
    if let Some(cmd) = f.rerun.get(1) {
        let _ = writeln!(o, "  - rerun: `{}`", cell(cmd));
    }
}

/// A piece of evidence as a sub-item: what it shows, then its rows as a
/// table when it has any.
fn evidence(o: &mut String, e: &Evidence) {
    let _ = writeln!(o, "  - {}: {}", e.kind, cell(&e.note));
    if e.columns.is_empty() || e.rows.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "\n    | {} |\n    |{}",
        e.columns
            .iter()
            .map(|c| cell(c))
            .collect::<Vec<_>>()
            .join(" | "),
        "---|".repeat(e.columns.len())
    );
    for row in &e.rows {
        let _ = writeln!(
            o,
            "    | {} |",
            row.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | ")
        );
    }
    let _ = writeln!(o);
}

/// Writes `audit.json`, `audit.md` and `audit.html` into `dir`.
pub fn write_audit(dir: &Path, r: &AuditReport) -> Result<(), AuditError> {
    std::fs::create_dir_all(dir).map_err(|source| AuditError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    // audit.json last, each file under a temporary name then renamed: its
    // presence means the audit is complete.
    let json = dir.join("audit.json");
    let text = serde_json::to_string_pretty(r).map_err(|source| AuditError::Json {
        path: json.clone(),
        source,
    })?;
    write_atomic(&dir.join("audit.md"), render_markdown(r).as_bytes())?;
    write_atomic(
        &dir.join("audit.html"),
        crate::render_audit_html(r).as_bytes(),
    )?;
    write_atomic(&json, text.as_bytes())
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), AuditError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".partial");
    let tmp = std::path::PathBuf::from(tmp);
    std::fs::write(&tmp, bytes)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|source| AuditError::Io {
            path: path.to_path_buf(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{RewriteCheck, Status, StatusCount, TranslationCheck};

    fn finding(id: usize, rule: &str) -> Finding {
        Finding {
            id,
            db_id: "shop".into(),
            rule: rule.into(),
            status: Status::Proven,
            engines: vec!["sqlite".into(), "postgres".into()],
            gold_sql: "SELECT a FROM t LIMIT 1".into(),
            block: None,
            detail: "ties at | the cut".into(),
            mechanism: None,
            evidence: vec![Evidence {
                kind: "ties_at_cut".into(),
                sql: None,
                note: "two rows tie".into(),
                columns: vec!["a|b".into()],
                rows: vec![vec!["1".into()], vec!["x\ny".into()]],
            }],
            rerun: vec![
                "sqlwitness audit".into(),
                "sqlwitness audit --question 3".into(),
            ],
            rewrite: Some(RewriteCheck {
                kind: "with_ties".into(),
                sql: "SELECT a FROM t".into(),
                verified: true,
                note: "same answer".into(),
                results: BTreeMap::new(),
                translated_on: Vec::new(),
            }),
            translation: Some(TranslationCheck {
                outcome: "same_answer".into(),
                sql: Some("SELECT \"a\" FROM t".into()),
                steps: vec!["quote".into(), "cast".into()],
                mechanism: Some("order".into()),
                result: "ok".into(),
            }),
        }
    }

    fn report() -> AuditReport {
        let mut r = AuditReport::default();
        r.run.bench = "spider".into();
        r.run.split = "dev".into();
        r.run.reference = "postgres".into();
        r.run.engines = vec!["sqlite".into(), "postgres".into()];
        r.summary.questions = 10;
        r.summary.with_db = 8;
        r.summary.by_rule.insert(
            "limit_tie_1".into(),
            StatusCount {
                proven: 1,
                latent: 2,
            },
        );
        r.summary.dialect_failures.insert(
            "postgres".into(),
            BTreeMap::from([("syntax".to_string(), 4), ("timeout".to_string(), 1)]),
        );
        r.summary
            .cross_engine
            .insert("mysql".into(), BTreeMap::from([("order".to_string(), 2)]));
        r.summary.translations.insert(
            "mysql".into(),
            BTreeMap::from([("same_answer".to_string(), 3)]),
        );
        r.findings = vec![finding(3, "limit_tie_1"), finding(3, "order_by_partial")];
        r
    }

    #[test]
    fn a_dialect_failure_row_counts_every_class() {
        let mut o = String::new();
        dialect_failures_table(&mut o, &report().summary);
        assert!(
            o.contains("| postgres | 4 | 0 | 0 | 0 | 0 | 0 | 0 | 1 | 0 |\n"),
            "{o}"
        );
        let mut o = String::new();
        dialect_failures_table(&mut o, &AuditSummary::default());
        assert_eq!(o, "", "no section without failures");
    }

    #[test]
    fn evidence_rows_are_a_table_of_escaped_cells() {
        let mut o = String::new();
        evidence(&mut o, &finding(3, "limit_tie_1").evidence[0]);
        assert_eq!(
            o,
            "  - ties_at_cut: two rows tie\n\n    | a\\|b |\n    |---|\n    | 1 |\n    | x y |\n\n"
        );
    }

    #[test]
    fn a_question_is_headed_once_for_its_findings() {
        let md = render_markdown(&report());
        assert_eq!(md.matches("### Q3 (shop)").count(), 1, "{md}");
        assert_eq!(md.matches("- **`").count(), 2, "{md}");
        assert!(md.contains("Reference engine: postgres"), "{md}");
        assert!(md.contains("| mysql | `order` | 2 |"), "{md}");
        assert!(
            md.contains("  - rerun: `sqlwitness audit --question 3`"),
            "{md}"
        );
    }
}
