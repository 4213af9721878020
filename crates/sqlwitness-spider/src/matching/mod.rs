//! Spider's exact set match and partial matching, as the official
//! test-suite evaluator (`taoyds/test-suite-sql-eval`, `evaluation.py`
//! with `process_sql.py`) computes them for `--etype match`, quirks
//! included.
//!
//! For each question the evaluator:
//!
//! 1. reads the gold with `process_sql.get_sql` against the schema it reads
//!    from the database file (table and column names, lowercased) —
//!    [`tokenize`] and [`parse`]; a gold it cannot read stops the whole run;
//! 2. takes the gold's hardness from that structure ([`level`]);
//! 3. reads the prediction the same way; one it cannot read becomes an
//!    empty structure (no columns, no tables), scored like any other;
//! 4. drops condition values and maps foreign-key columns to one id
//!    ([`rebuild`], with the foreign keys of `tables.json`);
//! 5. scores ten components and the exact match ([`compare`]), which
//!    `print_scores` averages by hardness ([`tally`]).
//!
//! The evaluator's failures past step 1 (Python exceptions it does not
//! catch, in rare shapes of gold or prediction) also stop its run; they are
//! [`Raised`] here, so that a caller can stop too and say why.

mod ast;
mod compare;
mod level;
mod parse;
mod rebuild;
mod tally;
mod tokenize;

use std::collections::HashMap;
use std::fmt;

use crate::Hardness;

pub use compare::{PartialScore, PARTIAL_TYPES};
pub use rebuild::ForeignKeyMap;
pub use tally::{MatchTable, MatchTally, MATCH_LEVELS};

/// A Python exception the official evaluator raises at this point:
/// its type and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Raised {
    pub kind: &'static str,
    pub message: String,
}

impl Raised {
    fn new(kind: &'static str, message: &str) -> Raised {
        Raised {
            kind,
            message: message.to_string(),
        }
    }

    fn index() -> Raised {
        Raised::new("IndexError", "list index out of range")
    }

    fn key(key: &str) -> Raised {
        Raised::new("KeyError", &format!("'{key}'"))
    }

    fn assertion(message: &str) -> Raised {
        Raised::new("AssertionError", message)
    }

    fn value(message: &str) -> Raised {
        Raised::new("ValueError", message)
    }
}

impl fmt::Display for Raised {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            write!(f, "{}", self.kind)
        } else {
            write!(f, "{}: {}", self.kind, self.message)
        }
    }
}

impl std::error::Error for Raised {}

/// The schema `process_sql` reads from a database: each table's columns,
/// names lowercased, and its `idMap` (`t.c` → `__t.c__`, `t` → `__t__`,
/// `*` → `__all__`).
#[derive(Debug, Clone, Default)]
pub struct SpiderSchema {
    tables: HashMap<String, Vec<String>>,
    id_map: HashMap<String, String>,
}

impl SpiderSchema {
    /// From `(table, columns)` pairs as the database declares them (the
    /// evaluator reads `sqlite_master` and `PRAGMA table_info`); a table
    /// named twice (in any case) keeps its last columns.
    pub fn new(tables: impl IntoIterator<Item = (String, Vec<String>)>) -> SpiderSchema {
        let mut s = SpiderSchema::default();
        s.id_map.insert("*".into(), "__all__".into());
        for (table, columns) in tables {
            let table = table.to_lowercase();
            let columns: Vec<String> = columns.iter().map(|c| c.to_lowercase()).collect();
            for c in &columns {
                s.id_map
                    .insert(format!("{table}.{c}"), format!("__{table}.{c}__"));
            }
            s.tables.insert(table, columns);
        }
        for table in s.tables.keys() {
            s.id_map.insert(table.clone(), format!("__{table}__"));
        }
        s
    }
}

/// One question's outcome: the gold's hardness, the exact-match verdict and
/// the ten partial scores (in [`PARTIAL_TYPES`] order).
#[derive(Debug, Clone, PartialEq)]
pub struct SpiderMatch {
    pub hardness: Hardness,
    pub exact: bool,
    pub partial: [PartialScore; 10],
    /// Whether `get_sql` read the prediction (otherwise it was scored as
    /// the empty structure).
    pub pred_parsed: bool,
}

/// Where the official evaluator stops on a question, and with what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchStop {
    /// `reading the gold`, `rebuilding the gold`, `rebuilding the
    /// prediction` or `comparing`.
    pub stage: &'static str,
    pub raised: Raised,
}

impl fmt::Display for MatchStop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} raises {}", self.stage, self.raised)
    }
}

impl std::error::Error for MatchStop {}

/// Exact set match of `pred` against `gold` (the gold's SQL text and the
/// prediction as [`crate::spider_read_prediction`] reads its line) on
/// `schema`, with the database's foreign keys.
pub fn spider_exact_match(
    schema: &SpiderSchema,
    keys: &ForeignKeyMap,
    gold: &str,
    pred: &str,
) -> Result<SpiderMatch, MatchStop> {
    let stop = |stage| move |raised| MatchStop { stage, raised };
    let mut g = parse::get_sql(schema, gold).map_err(stop("reading the gold"))?;
    let hardness = level::hardness(&g).map_err(stop("reading the gold"))?;
    let parsed = parse::get_sql(schema, pred);
    let pred_parsed = parsed.is_ok();
    let mut p = parsed.unwrap_or_else(|_| ast::Sql::empty());
    let valid = rebuild::valid_columns(&g.from_units, schema);
    rebuild::rebuild_val(&mut g).map_err(stop("rebuilding the gold"))?;
    rebuild::rebuild_col(&valid, &mut g, keys).map_err(stop("rebuilding the gold"))?;
    let valid = rebuild::valid_columns(&p.from_units, schema);
    rebuild::rebuild_val(&mut p).map_err(stop("rebuilding the prediction"))?;
    rebuild::rebuild_col(&valid, &mut p, keys).map_err(stop("rebuilding the prediction"))?;
    let (exact, partial) = compare::exact_match(&p, &g).map_err(stop("comparing"))?;
    Ok(SpiderMatch {
        hardness,
        exact,
        partial,
        pred_parsed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn concert_singer() -> (SpiderSchema, ForeignKeyMap) {
        let tables: [(&str, &[&str]); 4] = [
            ("stadium", &["Stadium_ID", "Location", "Name", "Capacity"]),
            ("singer", &["Singer_ID", "Name", "Country", "Age"]),
            ("concert", &["concert_ID", "concert_Name", "Stadium_ID"]),
            ("singer_in_concert", &["concert_ID", "Singer_ID"]),
        ];
        let schema = SpiderSchema::new(
            tables
                .iter()
                .map(|(t, cs)| (t.to_string(), cs.iter().map(|c| c.to_string()).collect())),
        );
        let names: Vec<String> = tables.iter().map(|(t, _)| t.to_string()).collect();
        let mut columns = vec![(-1, "*".to_string())];
        for (i, (_, cs)) in tables.iter().enumerate() {
            columns.extend(cs.iter().map(|c| (i as i64, c.to_string())));
        }
        // concert.Stadium_ID → stadium.Stadium_ID; singer_in_concert's two.
        let keys = ForeignKeyMap::new(&names, &columns, &[(11, 1), (13, 5), (12, 9)]).unwrap();
        (schema, keys)
    }

    #[test]
    fn a_join_matches_through_its_foreign_key() {
        let (s, k) = concert_singer();
        let gold = "SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id GROUP BY T1.stadium_id";
        let pred = "SELECT T1.name FROM stadium AS T1 JOIN concert AS T2 ON T1.stadium_id = T2.stadium_id GROUP BY T2.stadium_id";
        let m = spider_exact_match(&s, &k, gold, pred).unwrap();
        assert!(m.exact);
        assert_eq!(m.hardness, Hardness::Medium);
    }

    #[test]
    fn an_unreadable_prediction_is_scored_empty() {
        let (s, k) = concert_singer();
        let m = spider_exact_match(
            &s,
            &k,
            "SELECT name FROM singer",
            "SELECT name AS n FROM singer",
        )
        .unwrap();
        assert!(!m.pred_parsed);
        assert!(!m.exact);
        assert_eq!((m.partial[0].label_total, m.partial[0].pred_total), (1, 0));
    }

    #[test]
    fn an_unreadable_gold_stops() {
        let (s, k) = concert_singer();
        let e = spider_exact_match(
            &s,
            &k,
            "SELECT name FROM singer LEFT JOIN concert",
            "SELECT 1",
        )
        .unwrap_err();
        assert_eq!(e.stage, "reading the gold");
        assert_eq!(e.raised.kind, "KeyError");
    }
}

#[cfg(test)]
mod dev_tests {
    use super::*;

    /// `(schema, foreign keys)` of every database of the shipped
    /// `tables.json`, the schema from its original names.
    fn schemas() -> HashMap<String, (SpiderSchema, ForeignKeyMap)> {
        let path = sqlwitness_testkit::example_spider().join("tables.json");
        let text = std::fs::read_to_string(path).unwrap();
        let entries: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
        let mut out = HashMap::new();
        for e in entries {
            let names: Vec<String> =
                serde_json::from_value(e["table_names_original"].clone()).unwrap();
            let columns: Vec<(i64, String)> =
                serde_json::from_value(e["column_names_original"].clone()).unwrap();
            let keys: Vec<(usize, usize)> =
                serde_json::from_value(e["foreign_keys"].clone()).unwrap();
            let tables = names.iter().enumerate().map(|(i, t)| {
                let cols = columns.iter().filter(|(ti, _)| *ti == i as i64);
                (t.clone(), cols.map(|(_, c)| c.clone()).collect())
            });
            let schema = SpiderSchema::new(tables);
            let fk = ForeignKeyMap::new(&names, &columns, &keys).unwrap();
            out.insert(e["db_id"].as_str().unwrap().to_string(), (schema, fk));
        }
        out
    }

    /// Every Spider dev gold reads, matches itself, and gets the hardness
    /// the sqlparser reading ([`crate::spider_hardness`]) gives it.
    #[test]
    fn dev_golds_match_themselves_at_the_same_hardness() {
        let Some(gold) = sqlwitness_testkit::spider_dev_gold() else {
            return;
        };
        let schemas = schemas();
        for (sql, db) in &gold {
            let (schema, keys) = &schemas[db];
            let m = spider_exact_match(schema, keys, sql, sql).unwrap();
            assert!(m.exact, "{sql}");
            let (level, _) = crate::spider_hardness(sql).unwrap();
            assert_eq!(m.hardness, level, "{sql}");
        }
        assert_eq!(gold.len(), 1034);
    }
}
