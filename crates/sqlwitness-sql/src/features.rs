//! Dialect features a query uses (seed 004, OCTOPUS, Table 8 "SQL
//! function/method comparison across different database systems"), with
//! their support on the three engines sqlwitness runs.
//!
//! Table 8 lists, per purpose (string length, substring, local timestamp,
//! string concatenation, null handling, date truncation, string search,
//! time difference, paging, simple conditional, group deduplication,
//! sampling, value by index, multi-group string concatenation, float
//! truncation, full join …), the spelling each dialect uses. This module
//! detects those spellings — plus SQLite's own date functions and `LIKE`,
//! whose case sensitivity differs — on the parsed query, and says for each
//! engine whether it runs as written (`Yes`), fails (`No`) or runs with a
//! different meaning (`Differs`). The support column was measured by running
//! one probe query per feature as gold on SQLite 3.50 (bundled), PostgreSQL
//! 15 and MariaDB 10.11 with `sqlwitness eval` (MariaDB: `FETCH FIRST` runs,
//! `||` is a logical OR, Oracle's `decode()` exists with another meaning on
//! PostgreSQL and MariaDB; SQLite 3.50 has `if()` and `iif()` but no
//! `trunc()` without its math extension).

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use sqlparser::ast::{
    BinaryOperator, Distinct, Expr, JoinOperator, Query, SetExpr, Statement, Visit, Visitor,
};
use sqlparser::dialect::SQLiteDialect;

use sqlwitness_core::EngineKind;

/// Whether an engine runs a feature as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    Yes,
    No,
    /// Runs, with another meaning (MySQL `length` counts bytes, PostgreSQL
    /// `LIKE` is case-sensitive).
    Differs,
}

/// One row of the feature table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DialectFeature {
    /// The name reported (`ifnull()`, `||`, `FULL JOIN` …).
    pub name: &'static str,
    /// The Table 8 row it belongs to, or `beyond Table 8`.
    pub purpose: &'static str,
    /// Support on SQLite, PostgreSQL, MySQL/MariaDB.
    pub support: [Support; 3],
}

impl DialectFeature {
    pub fn support_on(&self, kind: EngineKind) -> Support {
        match kind {
            EngineKind::Sqlite => self.support[0],
            EngineKind::Postgres => self.support[1],
            EngineKind::Mysql => self.support[2],
        }
    }
}

use Support::{Differs as D, No as N, Yes as Y};

const fn f(name: &'static str, purpose: &'static str, support: [Support; 3]) -> DialectFeature {
    DialectFeature {
        name,
        purpose,
        support,
    }
}

/// The table (functions are keyed by lower-case name with `()`).
const FEATURES: &[DialectFeature] = &[
    f("length()", "String Length", [Y, Y, D]),
    f("char_length()", "String Length", [N, Y, Y]),
    f("character_length()", "String Length", [N, Y, Y]),
    f("len()", "String Length", [N, N, N]),
    f("now()", "Local Timestamp", [N, Y, Y]),
    f("curtime()", "Local Timestamp", [N, N, Y]),
    f("getdate()", "Local Timestamp", [N, N, N]),
    f("||", "String Concatenation", [Y, Y, D]),
    f("ifnull()", "Null Handling", [Y, N, Y]),
    f("nvl()", "Null Handling", [N, N, Y]),
    f("isnull()", "Null Handling", [N, N, Y]),
    f("date_trunc()", "Date Truncation", [N, Y, N]),
    f("date_format()", "Date Truncation", [N, N, Y]),
    f("strftime()", "beyond Table 8: SQLite dates", [Y, N, N]),
    f("julianday()", "beyond Table 8: SQLite dates", [Y, N, N]),
    f("datetime()", "beyond Table 8: SQLite dates", [Y, N, N]),
    f("instr()", "String Search", [Y, N, Y]),
    f("position()", "String Search", [N, Y, Y]),
    f("locate()", "String Search", [N, N, Y]),
    f("charindex()", "String Search", [N, N, N]),
    f("datediff()", "Time Difference", [N, N, Y]),
    f("timestampdiff()", "Time Difference", [N, N, Y]),
    f("age()", "Time Difference", [N, Y, N]),
    f("FETCH FIRST", "Paging Query", [N, Y, Y]),
    f("iif()", "Simple Conditional Control", [Y, N, N]),
    f("if()", "Simple Conditional Control", [Y, N, Y]),
    f("decode()", "Simple Conditional Control", [N, D, D]),
    f("DISTINCT ON", "Group Deduplication", [N, Y, N]),
    f("TABLESAMPLE", "Sampling", [N, Y, N]),
    f("random()", "Sampling", [Y, Y, N]),
    f("rand()", "Sampling", [N, N, Y]),
    f("elt()", "Value Retrieval by Index", [N, N, Y]),
    f(
        "group_concat()",
        "Multi-group String Concatenation",
        [Y, N, Y],
    ),
    f(
        "string_agg()",
        "Multi-group String Concatenation",
        [Y, Y, N],
    ),
    f("listagg()", "Multi-group String Concatenation", [N, N, N]),
    f("trunc()", "Float Truncation", [N, Y, N]),
    f("truncate()", "Float Truncation", [N, N, Y]),
    f("FULL JOIN", "Full Join", [Y, Y, N]),
    f("LIKE", "beyond Table 8: case sensitivity", [Y, D, Y]),
];

/// Every feature sqlwitness detects.
pub fn feature_table() -> &'static [DialectFeature] {
    FEATURES
}

fn lookup(name: &str) -> Option<&'static DialectFeature> {
    FEATURES.iter().find(|f| f.name == name)
}

struct Finder(BTreeSet<&'static str>);

impl Finder {
    fn add(&mut self, name: &str) {
        if let Some(f) = lookup(name) {
            self.0.insert(f.name);
        }
    }
}

impl Visitor for Finder {
    type Break = ();

    fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
        if q.fetch.is_some() {
            self.add("FETCH FIRST");
        }
        let mut stack = vec![q.body.as_ref()];
        while let Some(body) = stack.pop() {
            match body {
                SetExpr::Select(s) => {
                    if matches!(s.distinct, Some(Distinct::On(_))) {
                        self.add("DISTINCT ON");
                    }
                    for twj in &s.from {
                        if twj
                            .relation
                            .to_string()
                            .to_uppercase()
                            .contains("TABLESAMPLE")
                        {
                            self.add("TABLESAMPLE");
                        }
                        for j in &twj.joins {
                            if matches!(j.join_operator, JoinOperator::FullOuter(_)) {
                                self.add("FULL JOIN");
                            }
                        }
                    }
                }
                SetExpr::SetOperation { left, right, .. } => {
                    stack.push(left);
                    stack.push(right);
                }
                _ => {}
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        match e {
            Expr::Function(func) => {
                let name = func
                    .name
                    .0
                    .last()
                    .map(|p| p.to_string().trim_matches('"').to_lowercase())
                    .unwrap_or_default();
                self.add(&format!("{name}()"));
            }
            Expr::BinaryOp {
                op: BinaryOperator::StringConcat,
                ..
            } => self.add("||"),
            Expr::Like { .. } => self.add("LIKE"),
            Expr::Position { .. } => self.add("position()"),
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

/// The dialect features `sql` uses, by name (see [`feature_table`]);
/// `None` when it does not parse (SQLite dialect).
pub fn dialect_features(sql: &str) -> Option<BTreeSet<&'static str>> {
    let stmts = crate::parse_bounded(&SQLiteDialect {}, sql).ok()?;
    let mut finder = Finder(BTreeSet::new());
    for s in &stmts {
        if let Statement::Query(_) = s {
            let _ = s.visit(&mut finder);
        }
    }
    Some(finder.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feats(sql: &str) -> Vec<&'static str> {
        dialect_features(sql).unwrap().into_iter().collect()
    }

    #[test]
    fn detects_functions_and_constructs() {
        assert_eq!(
            feats("SELECT ifnull(a, 0), group_concat(b) FROM t GROUP BY c"),
            vec!["group_concat()", "ifnull()"]
        );
        assert_eq!(
            feats("SELECT a || b FROM t WHERE name LIKE '%x%'"),
            vec!["LIKE", "||"]
        );
        assert_eq!(
            feats("SELECT * FROM t FULL OUTER JOIN u ON t.a = u.a"),
            vec!["FULL JOIN"]
        );
        assert_eq!(
            feats("SELECT strftime('%Y', d) FROM t WHERE a IN (SELECT LENGTH(x) FROM u)"),
            vec!["length()", "strftime()"]
        );
        assert_eq!(feats("SELECT count(*), max(a) FROM t"), Vec::<&str>::new());
        assert!(dialect_features("SELEC").is_none());
    }

    #[test]
    fn support_table_is_consistent() {
        let names: BTreeSet<&str> = FEATURES.iter().map(|f| f.name).collect();
        assert_eq!(names.len(), FEATURES.len(), "unique names");
        let f = lookup("ifnull()").unwrap();
        assert_eq!(f.support_on(EngineKind::Postgres), Support::No);
        assert_eq!(f.support_on(EngineKind::Mysql), Support::Yes);
        assert_eq!(
            lookup("LIKE").unwrap().support_on(EngineKind::Postgres),
            Support::Differs
        );
    }

    /// Measured: the features of the Spider dev gold queries.
    #[test]
    fn spider_dev_gold_features() {
        let Some(gold) = crate::spider_data::dev_gold() else {
            return;
        };
        let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
        for (sql, _) in &gold {
            for f in dialect_features(sql).unwrap_or_default() {
                *counts.entry(f).or_default() += 1;
            }
        }
        eprintln!("Spider dev gold dialect features: {counts:?}");
        assert!(counts.get("LIKE").copied().unwrap_or(0) > 10);
    }
}
