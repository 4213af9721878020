//! The reference judgment (`eval --reference`): every engine's prediction
//! against the reference gold's answer on the reference engine, and every
//! engine's own gold against the same answer — so a report tells "the
//! model is wrong" from "the dialect gold or the migration is wrong".
//!
//! Across engines, results compare as multisets of rows (row order follows
//! each engine's collation; the same-engine verdict judges order), after a
//! documented normalisation of each cell:
//! * numbers of every type, and text that reads as a number, compare as
//!   numbers rounded to 4 decimal places (MariaDB's `AVG` keeps 4);
//! * dates and times compare as text with `T` read as a space and a zero
//!   fraction dropped (`2020-01-02T10:00:00.000` = `2020-01-02 10:00:00`);
//! * booleans as 0/1, `NULL` as itself, bytes as hex.
//!
//! A prediction that differs only where the reference gold's `LIMIT` cuts
//! through ties (on the reference engine) is `match_tie`.

use std::cell::OnceCell;
use std::collections::BTreeMap;

use sqlwitness_core::{Database, ErrorClass, ResultSet, Value, Verdict};
use sqlwitness_report::{EngineOutcome, ReferenceOutcome};
use sqlwitness_sql::{in_some_column_order, TieWindow};

use crate::ctx::{EngineCtx, Rows};
use crate::digest::{same_answer_keys, Answer, Digest};
use crate::EvalPlan;

/// The reference engine's gold on one question: its text, its answer, and
/// what the judgments of every other engine share — its tie window (probed
/// at most once) and whether it compares across types (read at most once).
pub(crate) struct Reference<'a> {
    ctx: &'a EngineCtx,
    sql: &'a str,
    rows: Answer,
    window: OnceCell<Option<TieWindow>>,
    across_types: OnceCell<bool>,
    /// The answer's row keys, computed once where it holds its rows and
    /// another engine's answer is held as keys.
    keys: OnceCell<Digest>,
}

impl<'a> Reference<'a> {
    pub(crate) fn new(ctx: &'a EngineCtx, sql: &'a str, rows: Answer) -> Reference<'a> {
        Reference {
            ctx,
            sql,
            rows,
            window: OnceCell::new(),
            across_types: OnceCell::new(),
            keys: OnceCell::new(),
        }
    }

    /// The reference answer is held as row keys (it was over the limit).
    pub(crate) fn held_as_keys(&self) -> bool {
        matches!(self.rows, Answer::Digest(_))
    }

    fn window(&self, db: &Database, plan: &EvalPlan) -> Option<&TieWindow> {
        self.window
            .get_or_init(|| TieWindow::probe(self.ctx.engine.as_ref(), db, self.sql, &plan.limits))
            .as_ref()
    }

    /// [`same_answer`] of `other` and the reference answer, or on row keys
    /// where either is held as keys (columns then compare as given).
    fn agrees(&self, other: &Answer, any_column_order: bool) -> bool {
        match (&self.rows, other) {
            (Answer::Rows(a), Answer::Rows(b)) => same_answer(a, b, any_column_order),
            (Answer::Digest(a), b) => same_answer_keys(a, &b.to_digest()),
            (Answer::Rows(a), Answer::Digest(b)) => {
                same_answer_keys(self.keys.get_or_init(|| Digest::of(a)), b)
            }
        }
    }

    /// The judgment of one engine's outcome against the reference.
    pub(crate) fn judge(
        &self,
        db: &Database,
        outcome: &EngineOutcome,
        rows: &Rows,
        plan: &EvalPlan,
        schema: Option<&sqlwitness_sql::SchemaInfo>,
        caveats: &[(String, &'static str)],
    ) -> ReferenceOutcome {
        let (ref_gold, ref_gold_sql) = (&self.rows, self.sql);
        let any_order = plan.compare.any_column_order();
        let window = || self.window(db, plan);
        let verdict = match (&rows.pred, &outcome.pred) {
            _ if outcome.verdict == Verdict::EngineError => Verdict::EngineError,
            (Some(pred), _) => {
                if self.agrees(pred, any_order) {
                    Verdict::Match
                } else if held(pred).is_some_and(|p| {
                    window().is_some_and(|w| w.accepts_columns(&p.rows, any_order, true))
                }) {
                    Verdict::MatchTie
                } else {
                    Verdict::Mismatch
                }
            }
            (None, Some(exec)) => match exec.error_class {
                Some(ErrorClass::Timeout) => Verdict::Timeout,
                Some(ErrorClass::Connection) => Verdict::EngineError,
                _ => Verdict::PredError,
            },
            (None, None) if outcome.verdict == Verdict::Abstained => Verdict::Abstained,
            // The self-check on an engine whose gold failed: nothing to judge.
            (None, None) => Verdict::GoldError,
        };
        let (gold_agrees, gold_mechanism) = match &rows.gold {
            Some(gold) if self.agrees(gold, any_order) => (Some(true), None),
            Some(gold) => {
                let ties = window().is_some_and(|w| w.cuts_ties());
                let text_vs_number = *self.across_types.get_or_init(|| {
                    schema.is_some_and(|s| sqlwitness_audit::compares_across_types(ref_gold_sql, s))
                });
                let m = match (held(ref_gold), held(gold)) {
                    _ if ties => "ties",
                    (Some(ref_gold), Some(gold)) => sqlwitness_audit::mechanism_with(
                        ref_gold,
                        gold,
                        false,
                        false,
                        ref_gold_sql,
                        text_vs_number,
                    )
                    .unwrap_or("other"),
                    // Held as row keys: no values to explain the difference.
                    _ => "other",
                };
                // A difference nothing in the queries explains, on a copy the
                // migration changed: named after what it changed.
                let m = match m {
                    "collation" | "other" => caveats
                        .iter()
                        .find(|(table, _)| mentions(ref_gold_sql, table))
                        .map_or(m, |(_, caveat)| caveat),
                    _ => m,
                };
                (Some(false), Some(m.to_string()))
            }
            None => (None, None),
        };
        ReferenceOutcome {
            engine: self.ctx.kind.to_string(),
            verdict,
            gold_agrees,
            gold_mechanism,
        }
    }
}

/// Whether `sql` names `table` (as a whole word, in any letter case).
pub(crate) fn mentions(sql: &str, table: &str) -> bool {
    let sql = sql.to_lowercase();
    let table = table.to_lowercase();
    let word = |c: char| c.is_alphanumeric() || c == '_';
    sql.match_indices(&table).any(|(i, _)| {
        let before = sql[..i].chars().next_back();
        let after = sql[i + table.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// The rows of an answer that holds them.
fn held(a: &Answer) -> Option<&ResultSet> {
    match a {
        Answer::Rows(rs) => Some(rs),
        Answer::Digest(_) => None,
    }
}

/// True when `b` answers as `a` across engines (see the module
/// documentation), columns as given or, with `any_column_order`, in some
/// order.
pub fn same_answer(a: &ResultSet, b: &ResultSet, any_column_order: bool) -> bool {
    let width = |rs: &ResultSet| rs.rows.first().map_or(rs.columns.len(), Vec::len);
    if a.rows.len() != b.rows.len() {
        return false;
    }
    if a.rows.is_empty() {
        return true;
    }
    let (wa, wb) = (width(a), width(b));
    if wa != wb {
        return false;
    }
    let want = bag(&a.rows, &(0..wa).collect::<Vec<_>>());
    in_some_column_order(wb, any_column_order, |order| bag(&b.rows, order) == want)
}

fn bag(rows: &[Vec<Value>], cols: &[usize]) -> BTreeMap<Vec<String>, usize> {
    let mut m = BTreeMap::new();
    for r in rows {
        let key = cols
            .iter()
            .map(|&c| r.get(c).map_or_else(|| "NULL".to_string(), cell))
            .collect();
        *m.entry(key).or_insert(0) += 1;
    }
    m
}

/// A cell's cross-engine form.
pub fn cell(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Bool(b) => u8::from(*b).to_string(),
        Value::Int(_) | Value::Float(_) | Value::Decimal(_) => {
            v.as_f64().map_or_else(|| v.display(), number)
        }
        Value::Text(s) => match s.trim().parse::<f64>() {
            Ok(x) if x.is_finite() && !s.trim().is_empty() => number(x),
            _ => temporal(s),
        },
        Value::Date(s) | Value::Time(s) | Value::Timestamp(s) => temporal(s),
        Value::Bytes(b) => b.iter().map(|x| format!("{x:02x}")).collect(),
    }
}

fn number(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// `2020-01-02T10:00:00.000` → `2020-01-02 10:00:00`; other text as is.
fn temporal(s: &str) -> String {
    let b = s.as_bytes();
    let looks_dated =
        b.len() >= 10 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[7] == b'-';
    if !looks_dated {
        return s.to_string();
    }
    let mut t = s.replacen('T', " ", 1);
    if let Some(dot) = t.rfind('.') {
        if dot > 10 && t[dot + 1..].bytes().all(|c| c == b'0') {
            t.truncate(dot);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlwitness_core::Column;

    fn rs(rows: Vec<Vec<Value>>) -> ResultSet {
        let n = rows.first().map_or(0, Vec::len);
        ResultSet {
            columns: (0..n)
                .map(|i| Column {
                    name: format!("c{i}"),
                    decl_type: None,
                })
                .collect(),
            rows,
        }
    }

    #[test]
    fn numbers_dates_and_text_numbers_compare_across_engines() {
        use Value::*;
        // SQLite's AVG against MariaDB's 4-decimal DECIMAL; integers as
        // decimals; numeric text as its number; dates as text.
        let sqlite = rs(vec![
            vec![
                Float(2.0 / 3.0),
                Text("7".into()),
                Text("2020-01-02 10:00:00".into()),
            ],
            vec![Int(3), Int(1), Null],
        ]);
        let mariadb = rs(vec![
            vec![Decimal("3.0000".into()), Bool(true), Null],
            vec![
                Decimal("0.6667".into()),
                Int(7),
                Timestamp("2020-01-02T10:00:00.000".into()),
            ],
        ]);
        assert!(same_answer(&sqlite, &mariadb, false));
        let other = rs(vec![
            vec![Decimal("3.0000".into()), Bool(true), Null],
            vec![
                Decimal("0.6668".into()),
                Int(7),
                Timestamp("2020-01-02T10:00:00".into()),
            ],
        ]);
        assert!(!same_answer(&sqlite, &other, false));
        // Case is not folded: a collation difference is a difference.
        assert!(!same_answer(
            &rs(vec![vec![Text("Ann".into())]]),
            &rs(vec![vec![Text("ann".into())]]),
            false
        ));
        // Multiplicity counts.
        assert!(!same_answer(
            &rs(vec![vec![Int(1)], vec![Int(1)]]),
            &rs(vec![vec![Int(1)], vec![Int(2)]]),
            false
        ));
    }

    #[test]
    fn columns_in_another_order_where_the_comparison_allows() {
        use Value::*;
        let a = rs(vec![vec![Text("x".into()), Int(1)]]);
        let b = rs(vec![vec![Int(1), Text("x".into())]]);
        assert!(!same_answer(&a, &b, false));
        assert!(same_answer(&a, &b, true));
        assert!(same_answer(&rs(vec![]), &rs(vec![]), false));
    }
}
