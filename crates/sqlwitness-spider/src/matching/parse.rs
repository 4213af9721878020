//! `process_sql.get_sql`: the evaluator's recursive-descent parser over
//! its tokens, function for function, with Python's failures (an index
//! past the end, a missing key, a failed `assert`) as [`Raised`].
//!
//! Its grammar is narrow and its reading literal: `FROM` is found as the
//! first `from` token after the start (a subquery's own included), the
//! SELECT list is read with the FROM's tables, anything after the parsed
//! query is ignored, a LIMIT is always 1, and a condition not followed by
//! `and`/`or` or a clause keyword is followed by another condition.

use std::collections::HashMap;

use super::ast::{ColUnit, CondItem, CondUnit, Sql, TableUnit, Val, ValUnit};
use super::tokenize::spider_tokenize;
use super::{Raised, SpiderSchema};

const CLAUSE_KEYWORDS: [&str; 9] = [
    "select",
    "from",
    "where",
    "group",
    "order",
    "limit",
    "intersect",
    "union",
    "except",
];
const JOIN_KEYWORDS: [&str; 3] = ["join", "on", "as"];
pub(super) const WHERE_OPS: [&str; 12] = [
    "not", "between", "=", ">", "<", ">=", "<=", "!=", "in", "like", "is", "exists",
];
const UNIT_OPS: [&str; 5] = ["none", "-", "+", "*", "/"];
const AGG_OPS: [&str; 6] = ["none", "max", "min", "count", "sum", "avg"];
const ORDER_OPS: [&str; 2] = ["desc", "asc"];

/// Nested queries deeper than this raise, as Python's recursion limit
/// does (at about 250 levels there; no real query comes close).
const MAX_DEPTH: usize = 100;

type Step<T> = Result<(usize, T), Raised>;

fn position(list: &[&str], tok: &str) -> Option<usize> {
    list.iter().position(|k| *k == tok)
}

/// `get_sql(schema, query)`.
pub(crate) fn get_sql(schema: &SpiderSchema, query: &str) -> Result<Sql, Raised> {
    let toks = spider_tokenize(query)?;
    let aliases = tables_with_alias(schema, &toks)?;
    let p = Parser {
        toks: &toks,
        aliases: &aliases,
        schema,
    };
    Ok(p.sql(0, 0)?.1)
}

/// `get_tables_with_alias`: every `x as y` maps `y` to `x` (a column
/// alias too; `toks[-1]` when `as` comes first), then every table maps to
/// itself, and an alias named like a table fails the evaluator's assert.
fn tables_with_alias(
    schema: &SpiderSchema,
    toks: &[String],
) -> Result<HashMap<String, String>, Raised> {
    let mut aliases = HashMap::new();
    for (i, t) in toks.iter().enumerate() {
        if t != "as" {
            continue;
        }
        let key = toks.get(i + 1).ok_or_else(Raised::index)?;
        let value = if i == 0 {
            &toks[toks.len() - 1]
        } else {
            &toks[i - 1]
        };
        aliases.insert(key.clone(), value.clone());
    }
    for table in schema.tables.keys() {
        if aliases.contains_key(table) {
            return Err(Raised::assertion(&format!(
                "Alias {table} has the same name in table"
            )));
        }
    }
    for table in schema.tables.keys() {
        aliases.insert(table.clone(), table.clone());
    }
    Ok(aliases)
}

struct Parser<'a> {
    toks: &'a [String],
    aliases: &'a HashMap<String, String>,
    schema: &'a SpiderSchema,
}

impl Parser<'_> {
    /// `toks[i]`, or Python's `IndexError`.
    fn tok(&self, i: usize) -> Result<&str, Raised> {
        self.toks
            .get(i)
            .map(String::as_str)
            .ok_or_else(Raised::index)
    }

    /// `i < len(toks) and toks[i] == want`.
    fn is(&self, i: usize, want: &str) -> bool {
        self.toks.get(i).is_some_and(|t| t == want)
    }

    fn alias(&self, name: &str) -> Result<&str, Raised> {
        self.aliases
            .get(name)
            .map(String::as_str)
            .ok_or_else(|| Raised::key(name))
    }

    fn id(&self, key: &str) -> Result<String, Raised> {
        self.schema
            .id_map
            .get(key)
            .cloned()
            .ok_or_else(|| Raised::key(key))
    }

    /// `toks[i] in CLAUSE_KEYWORDS or toks[i] in (")", ";")`.
    fn ends_clause(&self, i: usize) -> bool {
        self.toks
            .get(i)
            .is_some_and(|t| CLAUSE_KEYWORDS.contains(&t.as_str()) || t == ")" || t == ";")
    }

    /// `parse_col`.
    fn col(&self, i: usize, default_tables: &[String]) -> Step<String> {
        let tok = self.tok(i)?;
        if tok == "*" {
            return Ok((i + 1, self.id("*")?));
        }
        if tok.contains('.') {
            let parts: Vec<&str> = tok.split('.').collect();
            let [alias, col] = parts[..] else {
                return Err(Raised::value("too many values to unpack"));
            };
            let key = format!("{}.{col}", self.alias(alias)?);
            return Ok((i + 1, self.id(&key)?));
        }
        if default_tables.is_empty() {
            return Err(Raised::assertion(
                "Default tables should not be None or empty",
            ));
        }
        for alias in default_tables {
            let table = self.alias(alias)?;
            let columns = self
                .schema
                .tables
                .get(table)
                .ok_or_else(|| Raised::key(table))?;
            if columns.iter().any(|c| c == tok) {
                return Ok((i + 1, self.id(&format!("{table}.{tok}"))?));
            }
        }
        Err(Raised::assertion(&format!("Error col: {tok}")))
    }

    /// `parse_col_unit`. With an aggregate, a leading `(` is not closed
    /// here (the evaluator returns before it looks).
    fn col_unit(&self, start: usize, dt: &[String]) -> Step<ColUnit> {
        let mut i = start;
        let block = self.tok(i)? == "(";
        if block {
            i += 1;
        }
        if let Some(agg) = position(&AGG_OPS, self.tok(i)?) {
            i += 1;
            if !self.is(i, "(") {
                return Err(Raised::assertion(""));
            }
            i += 1;
            let distinct = self.tok(i)? == "distinct";
            if distinct {
                i += 1;
            }
            let (next, col) = self.col(i, dt)?;
            i = next;
            if !self.is(i, ")") {
                return Err(Raised::assertion(""));
            }
            let unit = ColUnit {
                agg,
                col,
                distinct: Some(distinct),
            };
            return Ok((i + 1, unit));
        }
        let distinct = self.tok(i)? == "distinct";
        if distinct {
            i += 1;
        }
        let (next, col) = self.col(i, dt)?;
        i = self.close_block(next, block)?;
        let unit = ColUnit {
            agg: 0,
            col,
            distinct: Some(distinct),
        };
        Ok((i, unit))
    }

    /// `if isBlock: assert toks[idx] == ')'; idx += 1`.
    fn close_block(&self, i: usize, block: bool) -> Result<usize, Raised> {
        if !block {
            return Ok(i);
        }
        if self.tok(i)? != ")" {
            return Err(Raised::assertion(""));
        }
        Ok(i + 1)
    }

    /// `parse_val_unit`.
    fn val_unit(&self, start: usize, dt: &[String]) -> Step<ValUnit> {
        let mut i = start;
        let block = self.tok(i)? == "(";
        if block {
            i += 1;
        }
        let (next, col1) = self.col_unit(i, dt)?;
        i = next;
        let mut op = 0;
        let mut col2 = None;
        if let Some(o) = self.toks.get(i).and_then(|t| position(&UNIT_OPS, t)) {
            op = o;
            let (next, c) = self.col_unit(i + 1, dt)?;
            i = next;
            col2 = Some(c);
        }
        let i = self.close_block(i, block)?;
        Ok((i, ValUnit { op, col1, col2 }))
    }

    /// `parse_table_unit`: the table id and the table's name.
    fn table_unit(&self, i: usize) -> Step<(String, String)> {
        let key = self.alias(self.tok(i)?)?.to_string();
        let next = if self.is(i + 1, "as") { i + 3 } else { i + 1 };
        Ok((next, (self.id(&key)?, key)))
    }

    /// `parse_value`.
    fn value(&self, start: usize, dt: &[String], depth: usize) -> Step<Val> {
        let mut i = start;
        let block = self.tok(i)? == "(";
        if block {
            i += 1;
        }
        let tok = self.tok(i)?;
        let val;
        if tok == "select" {
            let (next, sql) = self.sql(i, depth + 1)?;
            i = next;
            val = Val::Sql(Box::new(sql));
        } else if tok.contains('"') {
            val = Val::Text(tok.to_string());
            i += 1;
        } else if let Some(x) = py_float(tok) {
            val = Val::Number(x);
            i += 1;
        } else {
            let mut end = i;
            while let Some(t) = self.toks.get(end) {
                let t = t.as_str();
                if t == ","
                    || t == ")"
                    || t == "and"
                    || CLAUSE_KEYWORDS.contains(&t)
                    || JOIN_KEYWORDS.contains(&t)
                {
                    break;
                }
                end += 1;
            }
            // parse_col_unit(toks[start_idx:end_idx], 0, …)
            let sub = Parser {
                toks: &self.toks[start..end.max(start)],
                ..*self
            };
            val = Val::Col(sub.col_unit(0, dt)?.1);
            i = end;
        }
        let i = self.close_block(i, block)?;
        Ok((i, val))
    }

    /// `parse_condition`.
    fn condition(&self, start: usize, dt: &[String], depth: usize) -> Step<Vec<CondItem>> {
        let mut i = start;
        let mut conds = Vec::new();
        while i < self.toks.len() {
            let (next, val_unit) = self.val_unit(i, dt)?;
            i = next;
            let not = self.tok(i)? == "not";
            if not {
                i += 1;
            }
            let op = self
                .toks
                .get(i)
                .and_then(|t| position(&WHERE_OPS, t))
                .ok_or_else(|| Raised::assertion("Error condition"))?;
            i += 1;
            let (next, val1) = self.value(i, dt, depth)?;
            i = next;
            let mut val2 = Val::None;
            if op == 1 {
                if self.tok(i)? != "and" {
                    return Err(Raised::assertion(""));
                }
                let (next, v) = self.value(i + 1, dt, depth)?;
                i = next;
                val2 = v;
            }
            conds.push(CondItem::Unit(CondUnit {
                not,
                op,
                val_unit,
                val1,
                val2,
            }));
            if self.ends_clause(i)
                || self
                    .toks
                    .get(i)
                    .is_some_and(|t| JOIN_KEYWORDS.contains(&t.as_str()))
            {
                break;
            }
            if let Some(t) = self.toks.get(i).filter(|t| *t == "and" || *t == "or") {
                conds.push(CondItem::Op(t.clone()));
                i += 1;
            }
        }
        Ok((i, conds))
    }

    /// `parse_select` (its end is not used: the FROM's is).
    fn select(&self, start: usize, dt: &[String]) -> Result<(bool, Vec<(usize, ValUnit)>), Raised> {
        let mut i = start;
        if self.tok(i)? != "select" {
            return Err(Raised::assertion("'select' not found"));
        }
        i += 1;
        let distinct = self.is(i, "distinct");
        if distinct {
            i += 1;
        }
        let mut units = Vec::new();
        while self
            .toks
            .get(i)
            .is_some_and(|t| !CLAUSE_KEYWORDS.contains(&t.as_str()))
        {
            let mut agg = 0;
            if let Some(a) = position(&AGG_OPS, self.tok(i)?) {
                agg = a;
                i += 1;
            }
            let (next, unit) = self.val_unit(i, dt)?;
            i = next;
            units.push((agg, unit));
            if self.is(i, ",") {
                i += 1;
            }
        }
        Ok((distinct, units))
    }

    /// `parse_from`: its end, table units, join conditions and the tables
    /// named (`default_tables`).
    fn from(
        &self,
        start: usize,
        depth: usize,
    ) -> Step<(Vec<TableUnit>, Vec<CondItem>, Vec<String>)> {
        let Some(from) = self.toks[start.min(self.toks.len())..]
            .iter()
            .position(|t| t == "from")
        else {
            return Err(Raised::assertion("'from' not found"));
        };
        let mut i = start + from + 1;
        let (mut units, mut conds, mut tables) = (Vec::new(), Vec::new(), Vec::new());
        while i < self.toks.len() {
            let block = self.tok(i)? == "(";
            if block {
                i += 1;
            }
            if self.tok(i)? == "select" {
                let (next, sql) = self.sql(i, depth + 1)?;
                i = next;
                units.push(TableUnit::Sql(Box::new(sql)));
            } else {
                if self.is(i, "join") {
                    i += 1;
                }
                let (next, (id, name)) = self.table_unit(i)?;
                i = next;
                units.push(TableUnit::Table(id));
                tables.push(name);
            }
            if self.is(i, "on") {
                let (next, these) = self.condition(i + 1, &tables, depth)?;
                i = next;
                if !conds.is_empty() {
                    conds.push(CondItem::Op("and".into()));
                }
                conds.extend(these);
            }
            i = self.close_block(i, block)?;
            if self.ends_clause(i) {
                break;
            }
        }
        Ok((i, (units, conds, tables)))
    }

    /// `parse_where` and `parse_having`: the conditions after `keyword`.
    fn conditions_after(
        &self,
        i: usize,
        keyword: &str,
        dt: &[String],
        depth: usize,
    ) -> Step<Vec<CondItem>> {
        if !self.is(i, keyword) {
            return Ok((i, Vec::new()));
        }
        self.condition(i + 1, dt, depth)
    }

    /// `parse_group_by`.
    fn group_by(&self, start: usize, dt: &[String]) -> Step<Vec<ColUnit>> {
        let mut units = Vec::new();
        if !self.is(start, "group") {
            return Ok((start, units));
        }
        if self.tok(start + 1)? != "by" {
            return Err(Raised::assertion(""));
        }
        let mut i = start + 2;
        while i < self.toks.len() && !self.ends_clause(i) {
            let (next, unit) = self.col_unit(i, dt)?;
            i = next;
            units.push(unit);
            if !self.is(i, ",") {
                break;
            }
            i += 1;
        }
        Ok((i, units))
    }

    /// `parse_order_by`: `None` for the evaluator's `[]`.
    fn order_by(&self, start: usize, dt: &[String]) -> Step<Option<(String, Vec<ValUnit>)>> {
        if !self.is(start, "order") {
            return Ok((start, None));
        }
        if self.tok(start + 1)? != "by" {
            return Err(Raised::assertion(""));
        }
        let mut i = start + 2;
        let mut order = "asc".to_string();
        let mut units = Vec::new();
        while i < self.toks.len() && !self.ends_clause(i) {
            let (next, unit) = self.val_unit(i, dt)?;
            i = next;
            units.push(unit);
            if let Some(t) = self.toks.get(i).filter(|t| ORDER_OPS.contains(&t.as_str())) {
                order = t.clone();
                i += 1;
            }
            if !self.is(i, ",") {
                break;
            }
            i += 1;
        }
        Ok((i, Some((order, units))))
    }

    /// `parse_limit`: the token after `limit` must exist; the value is 1.
    fn limit(&self, i: usize) -> Step<Option<i64>> {
        if !self.is(i, "limit") {
            return Ok((i, None));
        }
        self.tok(i + 1)?;
        Ok((i + 2, Some(1)))
    }

    fn skip_semicolons(&self, mut i: usize) -> usize {
        while self.is(i, ";") {
            i += 1;
        }
        i
    }

    /// `parse_sql`.
    fn sql(&self, start: usize, depth: usize) -> Step<Sql> {
        if depth > MAX_DEPTH {
            return Err(Raised::new(
                "RecursionError",
                "maximum recursion depth exceeded",
            ));
        }
        let block = self.tok(start)? == "(";
        let i = if block { start + 1 } else { start };
        let (from_end, (from_units, from_conds, dt)) = self.from(start, depth)?;
        let (select_distinct, select) = self.select(i, &dt)?;
        let (i, where_) = self.conditions_after(from_end, "where", &dt, depth)?;
        let (i, group_by) = self.group_by(i, &dt)?;
        let (i, having) = self.conditions_after(i, "having", &dt, depth)?;
        let (i, order_by) = self.order_by(i, &dt)?;
        let (i, limit) = self.limit(i)?;
        let i = self.skip_semicolons(i);
        let i = self.close_block(i, block)?;
        let mut i = self.skip_semicolons(i);
        let mut sql = Sql {
            select_distinct: Some(select_distinct),
            select,
            from_units,
            from_conds,
            where_,
            group_by,
            having,
            order_by,
            limit,
            ..Sql::default()
        };
        if let Some(op) = self
            .toks
            .get(i)
            .filter(|t| matches!(t.as_str(), "intersect" | "union" | "except"))
        {
            let (next, other) = self.sql(i + 1, depth + 1)?;
            i = next;
            let other = Some(Box::new(other));
            match op.as_str() {
                "intersect" => sql.intersect = other,
                "union" => sql.union = other,
                _ => sql.except = other,
            }
        }
        Ok((i, sql))
    }
}

/// Python's `float(tok)` on a token: decimal and exponent forms, a sign,
/// `inf`/`infinity`/`nan` in any case, `_` between digits.
fn py_float(tok: &str) -> Option<f64> {
    let t = tok.trim_matches(super::tokenize::py_isspace);
    if t.is_empty() {
        return None;
    }
    let bytes = t.as_bytes();
    let mut plain = String::with_capacity(t.len());
    for (k, &b) in bytes.iter().enumerate() {
        if b == b'_' {
            let digit = |j: Option<&u8>| j.is_some_and(u8::is_ascii_digit);
            if k == 0 || !digit(bytes.get(k - 1)) || !digit(bytes.get(k + 1)) {
                return None;
            }
            continue;
        }
        plain.push(b as char);
    }
    if !t.is_ascii() {
        return None;
    }
    let lower = plain.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    if lower.len() - unsigned.len() > 1 {
        return None;
    }
    match unsigned {
        "inf" | "infinity" | "nan" => return lower.parse().ok(),
        _ => {}
    }
    // Rust accepts what Python does for the decimal forms, except a bare
    // exponent or a lone dot, which both refuse.
    if !unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    plain.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> SpiderSchema {
        SpiderSchema::new([
            (
                "singer".to_string(),
                vec!["singer_id".into(), "name".into(), "age".into()],
            ),
            (
                "concert".to_string(),
                vec!["concert_id".into(), "singer_id".into(), "year".into()],
            ),
        ])
    }

    fn col(agg: usize, c: &str) -> ColUnit {
        ColUnit {
            agg,
            col: c.into(),
            distinct: Some(false),
        }
    }

    fn vu(c: ColUnit) -> ValUnit {
        ValUnit {
            op: 0,
            col1: c,
            col2: None,
        }
    }

    #[test]
    fn reads_a_join_with_aliases() {
        let s = get_sql(
            &schema(),
            "SELECT T1.name, count(*) FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T2.year > 2014 GROUP BY T1.name ORDER BY count(*) DESC LIMIT 3",
        )
        .unwrap();
        assert_eq!(
            s.select,
            vec![
                (0, vu(col(0, "__singer.name__"))),
                (3, vu(col(0, "__all__")))
            ]
        );
        assert_eq!(
            s.from_units,
            vec![
                TableUnit::Table("__singer__".into()),
                TableUnit::Table("__concert__".into())
            ]
        );
        assert_eq!(s.from_conds.len(), 1);
        let CondItem::Unit(w) = &s.where_[0] else {
            panic!()
        };
        assert_eq!((w.op, &w.val1), (3, &Val::Number(2014.0)));
        assert_eq!(s.group_by, vec![col(0, "__singer.name__")]);
        assert_eq!(
            s.order_by,
            Some(("desc".into(), vec![vu(col(3, "__all__"))]))
        );
        assert_eq!(s.limit, Some(1));
    }

    #[test]
    fn reads_nested_queries_and_set_operations() {
        let s = get_sql(
            &schema(),
            "SELECT name FROM singer WHERE singer_id NOT IN (SELECT singer_id FROM concert) UNION SELECT name FROM singer WHERE age BETWEEN 20 AND 30",
        )
        .unwrap();
        let CondItem::Unit(w) = &s.where_[0] else {
            panic!()
        };
        assert!(w.not);
        assert_eq!(w.op, 8);
        assert!(w.val1.sql().is_some());
        let u = s.union.as_deref().unwrap();
        let CondItem::Unit(b) = &u.where_[0] else {
            panic!()
        };
        assert_eq!((&b.val1, &b.val2), (&Val::Number(20.0), &Val::Number(30.0)));
    }

    #[test]
    fn raises_where_the_evaluator_does() {
        let s = schema();
        for sql in [
            "SELECT name AS n FROM singer", // column alias: Error col
            "SELECT name FROM singer s",    // alias without AS
            "SELECT name FROM singer WHERE age IS NULL",
            "SELECT name FROM singer LIMIT",
            "SELECT nope FROM singer",
            "SELECT name FROM singer AS singer", // alias named like a table
            "SELECT name FROM singer, concert",
            "SELECT name FROM singer WHERE name = 'x",
        ] {
            assert!(get_sql(&s, sql).is_err(), "{sql}");
        }
    }

    #[test]
    fn two_conditions_without_a_connector_sit_side_by_side() {
        let s = get_sql(&schema(), "SELECT name FROM singer WHERE age = 1 name = 2").unwrap();
        assert!(matches!(
            s.where_[..],
            [CondItem::Unit(_), CondItem::Unit(_)]
        ));
    }

    #[test]
    fn floats_as_python_reads_them() {
        for (t, v) in [
            ("1", 1.0),
            ("-2.5", -2.5),
            ("1e3", 1000.0),
            ("1_0", 10.0),
            (".5", 0.5),
            ("5.", 5.0),
        ] {
            assert_eq!(py_float(t), Some(v), "{t}");
        }
        assert!(py_float("nan").unwrap().is_nan());
        assert_eq!(py_float("-Infinity"), Some(f64::NEG_INFINITY));
        for t in ["", "e5", ".", "1,2", "_1", "1_", "--1", "x", "1__0"] {
            assert_eq!(py_float(t), None, "{t}");
        }
    }
}
