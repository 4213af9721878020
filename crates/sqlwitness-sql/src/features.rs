//! Dialect features a query uses (OCTOPUS, Table 8 "SQL
//! function/method comparison across different database systems"), with
//! their support on each engine (its dialect file's `features`).
//!
//! Table 8 lists, per purpose (string length, substring, local timestamp,
//! string concatenation, null handling, date truncation, string search,
//! time difference, paging, simple conditional, group deduplication,
//! sampling, value by index, multi-group string concatenation, float
//! truncation, full join …), the spelling each dialect uses. This module
//! detects those spellings — plus SQLite's own date functions and `LIKE`,
//! whose case sensitivity differs — on the parsed query, and says for each
//! engine whether it runs as written (`Yes`), fails (`No`) or runs with a
//! different meaning (`Differs`). Support is data in `dialects/*.yaml`,
//! measured by running one probe query per feature as gold on SQLite 3.50
//! (bundled), PostgreSQL 15, MySQL 9.7 and MariaDB 10.11 (MariaDB:
//! `FETCH FIRST` and `nvl()` run, MySQL has neither; `||` is a logical OR on
//! both; Oracle's `decode()` exists with another meaning on PostgreSQL and
//! MariaDB; SQLite 3.50 has `if()` and `iif()` but no `trunc()` without its
//! math extension).

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use sqlparser::ast::{
    BinaryOperator, Distinct, Expr, JoinOperator, Query, SetExpr, Statement, Visit, Visitor,
};
use sqlparser::dialect::SQLiteDialect;

use sqlwitness_dialect::Dialect;
pub use sqlwitness_dialect::Support;

/// One row of the feature table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DialectFeature {
    /// The name reported (`ifnull()`, `||`, `FULL JOIN` …).
    pub name: &'static str,
    /// The Table 8 row it belongs to, or `beyond Table 8`.
    pub purpose: &'static str,
}

impl DialectFeature {
    /// How the engine of `dialect` runs it (its file's `features`).
    pub fn support_on(&self, dialect: &Dialect) -> Support {
        dialect.feature_support(self.name)
    }
}

const fn f(name: &'static str, purpose: &'static str) -> DialectFeature {
    DialectFeature { name, purpose }
}

/// The table (functions are keyed by lower-case name with `()`).
const FEATURES: &[DialectFeature] = &[
    f("length()", "String Length"),
    f("char_length()", "String Length"),
    f("character_length()", "String Length"),
    f("len()", "String Length"),
    f("now()", "Local Timestamp"),
    f("curtime()", "Local Timestamp"),
    f("getdate()", "Local Timestamp"),
    f("||", "String Concatenation"),
    f("ifnull()", "Null Handling"),
    f("nvl()", "Null Handling"),
    f("isnull()", "Null Handling"),
    f("date_trunc()", "Date Truncation"),
    f("date_format()", "Date Truncation"),
    f("strftime()", "beyond Table 8: SQLite dates"),
    f("julianday()", "beyond Table 8: SQLite dates"),
    f("datetime()", "beyond Table 8: SQLite dates"),
    f("instr()", "String Search"),
    f("position()", "String Search"),
    f("locate()", "String Search"),
    f("charindex()", "String Search"),
    f("datediff()", "Time Difference"),
    f("timestampdiff()", "Time Difference"),
    f("age()", "Time Difference"),
    f("FETCH FIRST", "Paging Query"),
    f("iif()", "Simple Conditional Control"),
    f("if()", "Simple Conditional Control"),
    f("decode()", "Simple Conditional Control"),
    f("DISTINCT ON", "Group Deduplication"),
    f("TABLESAMPLE", "Sampling"),
    f("random()", "Sampling"),
    f("rand()", "Sampling"),
    f("elt()", "Value Retrieval by Index"),
    f("group_concat()", "Multi-group String Concatenation"),
    f("string_agg()", "Multi-group String Concatenation"),
    f("listagg()", "Multi-group String Concatenation"),
    f("trunc()", "Float Truncation"),
    f("truncate()", "Float Truncation"),
    f("FULL JOIN", "Full Join"),
    f("LIKE", "beyond Table 8: case sensitivity"),
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
    use sqlwitness_core::EngineKind;

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
        let pg = sqlwitness_dialect::shipped(EngineKind::Postgres);
        let my = sqlwitness_dialect::shipped(EngineKind::Mysql);
        let maria = sqlwitness_dialect::shipped(EngineKind::Mariadb);
        let f = lookup("ifnull()").unwrap();
        assert_eq!(f.support_on(pg), Support::No);
        assert_eq!(f.support_on(my), Support::Yes);
        assert_eq!(lookup("LIKE").unwrap().support_on(pg), Support::Differs);
        let fetch = lookup("FETCH FIRST").unwrap();
        assert_eq!(fetch.support_on(my), Support::No);
        assert_eq!(fetch.support_on(maria), Support::Yes);
        // Every feature a dialect file names is one this module detects.
        for kind in EngineKind::all() {
            let d = sqlwitness_dialect::shipped(kind);
            for name in d.features.unsupported.iter().chain(&d.features.differs) {
                assert!(lookup(name).is_some(), "{kind}: unknown feature `{name}`");
            }
        }
    }

    /// Measured: the features of the Spider dev gold queries.
    #[test]
    fn spider_dev_gold_features() {
        let Some(gold) = sqlwitness_testkit::spider_dev_gold() else {
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
