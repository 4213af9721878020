//! DBcontent-equivalence: rules (data, `data/perturb/content_rules.yaml`),
//! which columns of a database they apply to (checked on every row), and
//! the change each makes — new columns, how they are filled, and the
//! expression and simple comparisons the rewritten SQL uses.

use std::collections::BTreeMap;
use std::path::Path;

use rusqlite::Connection;
use serde::Deserialize;
use sqlwitness_sql::{ColumnChange, Literal};

use crate::names::{is_reserved, styled, words};
use crate::PerturbError;

const SHIPPED_RULES: &str = include_str!("../../../data/perturb/content_rules.yaml");

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesFile {
    #[serde(default)]
    source: Option<String>,
    rules: Vec<Rule>,
}

/// One content-equivalence rule (see the shipped file for the kinds).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub name: String,
    pub kind: String,
    #[serde(default)]
    names: Vec<String>,
    #[serde(default)]
    suffixes: Vec<String>,
    #[serde(default)]
    prefixes: Vec<String>,
    /// Words of the table's name, one of which must be there (none: any).
    #[serde(default)]
    tables: Vec<String>,
    // affine
    #[serde(default)]
    new_name: Option<String>,
    #[serde(default)]
    scale: Option<i64>,
    #[serde(default)]
    offset: Option<i64>,
    // split
    #[serde(default)]
    separator: Option<String>,
    #[serde(default)]
    new_names: Vec<String>,
    // text_to_booleans
    #[serde(default)]
    max_values: Option<usize>,
    #[serde(default)]
    value_names: BTreeMap<String, String>,
    // boolean_to_text
    #[serde(default)]
    pairs: Vec<[String; 2]>,
    #[serde(default)]
    labels: Vec<String>,
}

/// The rules in force, in order (a column takes the first that applies).
#[derive(Debug, Clone)]
pub struct Rules {
    pub rules: Vec<Rule>,
    pub sources: Vec<String>,
}

impl Rules {
    pub fn shipped() -> Rules {
        Rules::parse(Path::new("data/perturb/content_rules.yaml"), SHIPPED_RULES)
            .expect("the shipped rules parse (tested)")
    }

    /// The user's rules first, then the shipped ones.
    pub fn with_user(path: &Path) -> Result<Rules, PerturbError> {
        let text =
            sqlwitness_core::read_input_to_string(path, sqlwitness_core::input::MANIFEST_FILE)
                .map_err(|e| PerturbError::io(path, e))?;
        let mut user = Rules::parse(path, &text)?;
        let shipped = Rules::shipped();
        user.rules.extend(shipped.rules);
        user.sources.extend(shipped.sources);
        Ok(user)
    }

    fn parse(path: &Path, text: &str) -> Result<Rules, PerturbError> {
        let file: RulesFile = serde_saphyr::from_str(text)
            .map_err(|e| PerturbError::format(path, "", e.to_string()))?;
        for (i, r) in file.rules.iter().enumerate() {
            let at = format!("rules[{i}] ({})", r.name);
            let bad = |m: &str| Err(PerturbError::format(path, &at, m.to_string()));
            if r.names.is_empty() && r.suffixes.is_empty() && r.prefixes.is_empty() {
                return bad("needs names, suffixes or prefixes");
            }
            let plain = |s: &str| {
                !s.is_empty()
                    && s.starts_with(|c: char| c.is_ascii_alphabetic())
                    && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            };
            match r.kind.as_str() {
                "affine" => {
                    if !matches!(r.scale, Some(1) | Some(-1)) || r.offset.is_none() {
                        return bad("affine needs scale 1 or -1 and an offset");
                    }
                    if !r.new_name.as_deref().is_some_and(plain) {
                        return bad("affine needs new_name, a plain identifier");
                    }
                }
                "split" => {
                    if r.separator.as_deref().is_none_or(str::is_empty)
                        || r.new_names.len() != 2
                        || !r.new_names.iter().all(|n| plain(n))
                    {
                        return bad("split needs a separator and two plain new_names");
                    }
                }
                "text_to_booleans" => {
                    if r.max_values.is_none_or(|m| m < 2) {
                        return bad("text_to_booleans needs max_values >= 2");
                    }
                }
                "boolean_to_text" => {
                    if r.pairs.is_empty() || r.labels.len() != 2 || r.labels[0] == r.labels[1] {
                        return bad("boolean_to_text needs pairs and two different labels");
                    }
                }
                other => return bad(&format!("unknown kind {other:?}")),
            }
        }
        Ok(Rules {
            sources: file.source.into_iter().collect(),
            rules: file.rules,
        })
    }
}

/// One applicable replacement of a column.
#[derive(Debug, Clone)]
pub struct ContentChange {
    pub table: String,
    pub column: String,
    pub rule: String,
    /// `(name, SQLite type, fill expression over the old column)`.
    pub new_columns: Vec<(String, &'static str, String)>,
    pub change: ColumnChange,
}

impl ContentChange {
    /// The SQL that transforms the table (on a copy of the database).
    pub fn apply_sql(&self) -> Vec<String> {
        let t = quote(&self.table);
        let mut out: Vec<String> = self
            .new_columns
            .iter()
            .map(|(n, ty, _)| format!("ALTER TABLE {t} ADD COLUMN {} {ty}", quote(n)))
            .collect();
        let sets: Vec<String> = self
            .new_columns
            .iter()
            .map(|(n, _, e)| format!("{} = {e}", quote(n)))
            .collect();
        out.push(format!("UPDATE {t} SET {}", sets.join(", ")));
        out.push(format!(
            "ALTER TABLE {t} DROP COLUMN {}",
            quote(&self.column)
        ));
        out
    }

    /// The replacement expression, for the mapping file.
    pub fn expression(&self) -> String {
        match &self.change {
            ColumnChange::Replace { template, .. } => template.replace("{t}", ""),
            ColumnChange::Rename { to } => to.clone(),
        }
    }
}

/// `name` quoted for the engine of the perturbed files (SQLite), by its
/// dialect's rule.
pub(crate) fn quote(name: &str) -> String {
    sqlwitness_dialect::shipped(sqlwitness_engines::IN_PLACE)
        .identifiers
        .quote(name)
}

/// `s` as an SQL string literal.
pub(crate) fn sql_text(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn name_matches(rule: &Rule, column: &str) -> Option<String> {
    let lc = column.to_ascii_lowercase();
    if rule.names.iter().any(|n| n.eq_ignore_ascii_case(&lc)) {
        return Some(String::new());
    }
    for s in &rule.suffixes {
        let s = s.to_ascii_lowercase();
        if lc.len() > s.len() && lc.ends_with(&s) {
            return Some(column[..column.len() - s.len()].to_string());
        }
    }
    for p in &rule.prefixes {
        let p = p.to_ascii_lowercase();
        if lc.len() > p.len() && lc.starts_with(&p) {
            return Some(column[p.len()..].to_string());
        }
    }
    None
}

/// A value as stored: its storage class and text.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Stored {
    Int(i64),
    Text(String),
}

impl Stored {
    fn sql(&self) -> String {
        match self {
            Stored::Int(i) => i.to_string(),
            Stored::Text(s) => sql_text(s),
        }
    }

    fn text(&self) -> String {
        match self {
            Stored::Int(i) => i.to_string(),
            Stored::Text(s) => s.clone(),
        }
    }

    /// The literals a query may compare the column with and mean this
    /// value: itself, and for digit text in a TEXT column, the integer.
    fn literals(&self) -> Vec<Literal> {
        match self {
            Stored::Int(i) => vec![Literal::Int(*i)],
            Stored::Text(s) => {
                let mut v = vec![Literal::Text(s.clone())];
                if let Ok(i) = s.parse::<i64>() {
                    if i.to_string() == *s {
                        v.push(Literal::Int(i));
                    }
                }
                v
            }
        }
    }
}

/// Facts about one column's data.
struct ColumnData {
    non_null: i64,
    /// Non-NULL values that are not integers / not text.
    non_int: i64,
    non_text: i64,
    /// Up to `limit + 1` distinct non-NULL values.
    distinct: Vec<Stored>,
}

fn column_data(
    conn: &Connection,
    table: &str,
    column: &str,
    limit: usize,
) -> rusqlite::Result<ColumnData> {
    let (t, c) = (quote(table), quote(column));
    let (non_null, non_int, non_text) = conn.query_row(
        &format!(
            "SELECT count({c}), \
             sum(CASE WHEN {c} IS NOT NULL AND typeof({c}) <> 'integer' THEN 1 ELSE 0 END), \
             sum(CASE WHEN {c} IS NOT NULL AND typeof({c}) <> 'text' THEN 1 ELSE 0 END) FROM {t}"
        ),
        [],
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, Option<i64>>(1)?.unwrap_or(0),
                r.get::<_, Option<i64>>(2)?.unwrap_or(0),
            ))
        },
    )?;
    let mut stmt = conn.prepare(&format!(
        "SELECT DISTINCT {c} FROM {t} WHERE {c} IS NOT NULL AND typeof({c}) IN ('integer', 'text') ORDER BY 1 LIMIT {}",
        limit + 1
    ))?;
    let distinct = stmt
        .query_map([], |r| {
            Ok(match r.get_ref(0)? {
                rusqlite::types::ValueRef::Integer(i) => Stored::Int(i),
                other => Stored::Text(
                    String::from_utf8_lossy(other.as_bytes().unwrap_or_default()).into_owned(),
                ),
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ColumnData {
        non_null,
        non_int,
        non_text,
        distinct,
    })
}

fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_string()
}

/// `taken`: the table's column names (a new name must not clash).
fn fresh(original: &str, words_of: &str, taken: &[String]) -> Option<String> {
    let name = styled(original, &words(words_of).join(" "));
    let ok = |n: &str| !is_reserved(n) && !taken.iter().any(|t| t.eq_ignore_ascii_case(n));
    if ok(&name) {
        return Some(name);
    }
    let alt = format!("{name}_value");
    ok(&alt).then_some(alt)
}

/// The first rule that applies to `table.column`, checked on the data.
/// `taken` are the table's column names.
pub fn applicable(
    rules: &Rules,
    conn: &Connection,
    table: &str,
    column: &str,
    taken: &[String],
) -> rusqlite::Result<Option<ContentChange>> {
    let table_words = words(table);
    for rule in &rules.rules {
        let Some(rest) = name_matches(rule, column) else {
            continue;
        };
        if !rule.tables.is_empty()
            && !table_words
                .iter()
                .any(|w| rule.tables.iter().any(|t| t.eq_ignore_ascii_case(w)))
        {
            continue;
        }
        if let Some(c) = try_rule(rule, conn, table, column, &rest, taken)? {
            return Ok(Some(c));
        }
    }
    Ok(None)
}

/// The change `rule` makes to `table.column` when the column's data fits
/// the rule's kind; `rest` is the column's name without the rule's prefix
/// or suffix, `taken` the table's column names.
fn try_rule(
    rule: &Rule,
    conn: &Connection,
    table: &str,
    column: &str,
    rest: &str,
    taken: &[String],
) -> rusqlite::Result<Option<ContentChange>> {
    let at = Candidate {
        rule,
        conn,
        table,
        column,
        rest,
        taken,
    };
    match rule.kind.as_str() {
        "affine" => try_affine(&at),
        "split" => try_split(&at),
        "text_to_booleans" => try_text_to_booleans(&at),
        "boolean_to_text" => try_boolean_to_text(&at),
        _ => Ok(None),
    }
}

/// A column a rule is tried on, with the rule and the table's other names.
struct Candidate<'a> {
    rule: &'a Rule,
    conn: &'a Connection,
    table: &'a str,
    column: &'a str,
    /// The column's name without the rule's prefix or suffix.
    rest: &'a str,
    /// The table's column names.
    taken: &'a [String],
}

/// A condition list of [`ColumnChange::Replace`]: a literal, the condition
/// equivalent to `column = literal` and the one equivalent to `column <> literal`.
type Equal = Vec<(Literal, String, Option<String>)>;

impl Candidate<'_> {
    /// The column's data, with up to `limit + 1` distinct values.
    fn data(&self, limit: usize) -> rusqlite::Result<ColumnData> {
        column_data(self.conn, self.table, self.column, limit)
    }

    /// A free name for a new column: the rest of the column's name followed
    /// by the words of `base`, in the column's style.
    fn fresh_after_rest(&self, base: &str) -> Option<String> {
        let wanted = format!("{} {}", words(self.rest).join(" "), words(base).join(" "));
        fresh(self.column, wanted.trim(), self.taken)
    }

    /// The change of this column by the rule.
    fn change(
        &self,
        new_columns: Vec<(String, &'static str, String)>,
        change: ColumnChange,
    ) -> Option<ContentChange> {
        Some(ContentChange {
            table: self.table.to_string(),
            column: self.column.to_string(),
            rule: self.rule.name.clone(),
            new_columns,
            change,
        })
    }
}

/// `affine`: an integer column becomes `offset ± old` in one new column.
fn try_affine(at: &Candidate) -> rusqlite::Result<Option<ContentChange>> {
    let d = at.data(0)?;
    if d.non_null == 0 || d.non_int > 0 {
        return Ok(None);
    }
    let (scale, offset) = (at.rule.scale.unwrap_or(1), at.rule.offset.unwrap_or(0));
    let base = at.rule.new_name.as_deref().unwrap_or("value");
    let Some(new) = at.fresh_after_rest(base) else {
        return Ok(None);
    };
    let (fill, template) = affine_expressions(&quote(at.column), &new, scale, offset);
    Ok(at.change(
        vec![(new, "INTEGER", fill)],
        ColumnChange::Replace {
            template,
            equal: Vec::new(),
        },
    ))
}

/// The fill of the new column `new` from the quoted old column `c`, and the
/// template that gives the old value back: `c + offset` when `scale` is 1,
/// `offset - c` otherwise.
fn affine_expressions(c: &str, new: &str, scale: i64, offset: i64) -> (String, String) {
    if scale == 1 {
        (
            format!("{c} + {offset}"),
            format!("({{t}}{new} - {offset})"),
        )
    } else {
        (
            format!("{offset} - {c}"),
            format!("({offset} - {{t}}{new})"),
        )
    }
}

/// `split`: a text column whose every value holds the separator becomes two
/// text columns, the parts before and after its first occurrence.
fn try_split(at: &Candidate) -> rusqlite::Result<Option<ContentChange>> {
    let c = quote(at.column);
    let sep = at.rule.separator.clone().unwrap_or_else(|| " ".into());
    let d = at.data(0)?;
    let s = sql_text(&sep);
    let missing = count_without_separator(at.conn, at.table, &c, &s)?;
    if d.non_null < 2 || missing > 0 {
        return Ok(None);
    }
    let mut names = Vec::new();
    for n in &at.rule.new_names {
        match at.fresh_after_rest(n) {
            Some(n) => names.push(n),
            None => return Ok(None),
        }
    }
    let first = format!("substr({c}, 1, instr({c}, {s}) - 1)");
    let second = format!("substr({c}, instr({c}, {s}) + length({s}))");
    let template = format!("{{t}}{} || {s} || {{t}}{}", names[0], names[1]);
    Ok(at.change(
        vec![
            (names[0].clone(), "TEXT", first),
            (names[1].clone(), "TEXT", second),
        ],
        ColumnChange::Replace {
            template,
            equal: Vec::new(),
        },
    ))
}

/// How many non-NULL values of the quoted column `c` are not text holding
/// the separator `s` (an SQL literal).
fn count_without_separator(
    conn: &Connection,
    table: &str,
    c: &str,
    s: &str,
) -> rusqlite::Result<i64> {
    conn.query_row(
        &format!(
            "SELECT count(*) FROM {} WHERE {c} IS NOT NULL AND (typeof({c}) <> 'text' OR instr({c}, {s}) = 0)",
            quote(table)
        ),
        [],
        |r| r.get(0),
    )
}

/// `text_to_booleans`: a text column of a few distinct values becomes one
/// boolean column (two values) or one a value (more).
fn try_text_to_booleans(at: &Candidate) -> rusqlite::Result<Option<ContentChange>> {
    let max = at.rule.max_values.unwrap_or(3);
    let d = at.data(max)?;
    if d.non_text > 0 || d.distinct.len() < 2 || d.distinct.len() > max {
        return Ok(None);
    }
    let values: Vec<String> = d.distinct.iter().map(Stored::text).collect();
    if values.iter().any(|v| v.len() > 30) {
        return Ok(None);
    }
    let used: Vec<&String> = if values.len() == 2 {
        vec![&values[0]]
    } else {
        values.iter().collect()
    };
    let Some(bools) = boolean_names(at, &used) else {
        return Ok(None);
    };
    let c = quote(at.column);
    let new_columns = used
        .iter()
        .zip(&bools)
        .map(|(v, n)| {
            (
                n.clone(),
                "INTEGER",
                format!(
                    "CASE WHEN {c} IS NULL THEN NULL WHEN {c} = {} THEN 1 ELSE 0 END",
                    sql_text(v)
                ),
            )
        })
        .collect();
    let (template, equal) = if values.len() == 2 {
        one_boolean_template(&d.distinct, &bools[0])
    } else {
        boolean_per_value_template(&d.distinct, &bools)
    };
    Ok(at.change(new_columns, ColumnChange::Replace { template, equal }))
}

/// A free `is_<value>` name for each of `used`, or `None` when a value has
/// no name that says something.
fn boolean_names(at: &Candidate, used: &[&String]) -> Option<Vec<String>> {
    let mut bools = Vec::new();
    let mut taken = at.taken.to_vec();
    for v in used {
        let named = value_name(&at.rule.value_names, v)?;
        let n = fresh(
            at.column,
            &format!("is {}", named.replace('_', " ")),
            &taken,
        )?;
        taken.push(n.clone());
        bools.push(n);
    }
    Some(bools)
}

/// The name of a value, in snake case: the one `value_names` maps its slug
/// to, or its slug when that is a word of two letters or more that is not a
/// number (`is_0` says nothing); `None` otherwise.
fn value_name(value_names: &BTreeMap<String, String>, value: &str) -> Option<String> {
    let s = slug(value);
    match value_names.get(&s) {
        Some(n) => Some(n.clone()),
        None if s.len() >= 2 && s.starts_with(|c: char| c.is_ascii_alphabetic()) => Some(s),
        None => None,
    }
}

/// The template and simple conditions of a two-valued column replaced by the
/// boolean `b`, true for the first of `distinct`.
fn one_boolean_template(distinct: &[Stored], b: &str) -> (String, Equal) {
    let mut equal = Vec::new();
    for (stored, (eq, ne)) in distinct.iter().zip([("1", "0"), ("0", "1")]) {
        for lit in stored.literals() {
            equal.push((
                lit,
                format!("{{t}}{b} = {eq}"),
                Some(format!("{{t}}{b} = {ne}")),
            ));
        }
    }
    let template = format!(
        "CASE {{t}}{b} WHEN 1 THEN {} WHEN 0 THEN {} END",
        sql_text(&distinct[0].text()),
        sql_text(&distinct[1].text())
    );
    (template, equal)
}

/// The template and simple conditions of a column replaced by one boolean a
/// value: `bools[i]` is true where the value was `distinct[i]`.
fn boolean_per_value_template(distinct: &[Stored], bools: &[String]) -> (String, Equal) {
    let mut equal = Vec::new();
    let mut arms = String::new();
    for (stored, b) in distinct.iter().zip(bools) {
        for lit in stored.literals() {
            equal.push((lit, format!("{{t}}{b} = 1"), Some(format!("{{t}}{b} = 0"))));
        }
        arms.push_str(&format!(" WHEN {{t}}{b} = 1 THEN {}", stored.sql()));
    }
    (format!("CASE{arms} END"), equal)
}

/// `boolean_to_text`: a two-valued flag, stored as one of the rule's pairs,
/// becomes a text column holding the rule's labels.
fn try_boolean_to_text(at: &Candidate) -> rusqlite::Result<Option<ContentChange>> {
    let d = at.data(2)?;
    if d.distinct.is_empty() || d.distinct.len() > 2 || d.non_null == 0 {
        return Ok(None);
    }
    // Every stored value in the pair; the pair's order gives true/false.
    let Some(pair) = at
        .rule
        .pairs
        .iter()
        .find(|p| d.distinct.iter().all(|v| p.contains(&v.text())))
    else {
        return Ok(None);
    };
    let storage_int = d.distinct.iter().all(|v| matches!(v, Stored::Int(_)));
    let Some((t_val, f_val)) = stored_pair(pair, storage_int) else {
        return Ok(None);
    };
    if d.non_text > 0 && d.non_int > 0 {
        return Ok(None);
    }
    let Some(new) = fresh(at.column, &words(at.rest).join(" "), at.taken) else {
        return Ok(None);
    };
    let (fill, change) = labelled(&quote(at.column), &new, [&t_val, &f_val], &at.rule.labels);
    Ok(at.change(vec![(new, "TEXT", fill)], change))
}

/// The true and false values of `pair` as the column stores them: integers
/// when `storage_int`, else text; `None` when an integer column's pair holds
/// a value that is not an integer.
fn stored_pair(pair: &[String; 2], storage_int: bool) -> Option<(Stored, Stored)> {
    let stored = |s: &str| {
        if storage_int {
            s.parse()
                .map(Stored::Int)
                .unwrap_or(Stored::Text(s.to_string()))
        } else {
            Stored::Text(s.to_string())
        }
    };
    let (t_val, f_val) = (stored(&pair[0]), stored(&pair[1]));
    if storage_int && (matches!(t_val, Stored::Text(_)) || matches!(f_val, Stored::Text(_))) {
        return None;
    }
    Some((t_val, f_val))
}

/// The fill of the text column `new` from the quoted flag `c` whose true and
/// false values are `values`, and the change that gives the flag back from
/// `labels` (true's first).
fn labelled(c: &str, new: &str, values: [&Stored; 2], labels: &[String]) -> (String, ColumnChange) {
    let [t_val, f_val] = values;
    let (yes, no) = (sql_text(&labels[0]), sql_text(&labels[1]));
    let fill = format!(
        "CASE {c} WHEN {} THEN {yes} WHEN {} THEN {no} END",
        t_val.sql(),
        f_val.sql()
    );
    let template = format!(
        "CASE {{t}}{new} WHEN {yes} THEN {} WHEN {no} THEN {} END",
        t_val.sql(),
        f_val.sql()
    );
    let mut equal = Vec::new();
    for (v, label) in [(t_val, &yes), (f_val, &no)] {
        for lit in v.literals() {
            equal.push((
                lit,
                format!("{{t}}{new} = {label}"),
                Some(format!("{{t}}{new} <> {label}")),
            ));
        }
    }
    (fill, ColumnChange::Replace { template, equal })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> Connection {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(
            "CREATE TABLE people (id INTEGER PRIMARY KEY, Name TEXT, Age INT, Sex TEXT, Is_male TEXT, title TEXT);
             INSERT INTO people VALUES (1, 'Ann Lee', 30, 'F', 'F', 'Dr'), (2, 'Bo Chen Wu', 41, 'M', 'T', NULL),
                                       (3, NULL, NULL, NULL, NULL, 'Mr');",
        )
        .unwrap();
        c
    }

    fn cols() -> Vec<String> {
        ["id", "Name", "Age", "Sex", "Is_male", "title"]
            .map(String::from)
            .to_vec()
    }

    fn run(c: &Connection, ch: &ContentChange) {
        for s in ch.apply_sql() {
            c.execute_batch(&s).unwrap();
        }
    }

    #[test]
    fn affine_expressions_invert_each_other() {
        assert_eq!(
            affine_expressions("\"Age\"", "Birth_year", -1, 2024),
            (
                "2024 - \"Age\"".to_string(),
                "(2024 - {t}Birth_year)".to_string()
            )
        );
        assert_eq!(
            affine_expressions("\"x\"", "y", 1, 5),
            ("\"x\" + 5".to_string(), "({t}y - 5)".to_string())
        );
    }

    #[test]
    fn value_name_is_mapped_or_a_word() {
        let names = BTreeMap::from([("f".to_string(), "female".to_string())]);
        assert_eq!(value_name(&names, "F").as_deref(), Some("female"));
        assert_eq!(
            value_name(&names, "Part Time").as_deref(),
            Some("part_time")
        );
        assert_eq!(value_name(&names, "0"), None);
        assert_eq!(value_name(&names, "M"), None);
    }

    #[test]
    fn stored_pair_follows_the_storage() {
        let pair = |a: &str, b: &str| [a.to_string(), b.to_string()];
        assert_eq!(
            stored_pair(&pair("1", "0"), true),
            Some((Stored::Int(1), Stored::Int(0)))
        );
        assert_eq!(
            stored_pair(&pair("1", "0"), false),
            Some((Stored::Text("1".into()), Stored::Text("0".into())))
        );
        assert_eq!(stored_pair(&pair("T", "F"), true), None);
    }

    #[test]
    fn one_boolean_is_true_for_the_first_value() {
        let distinct = [Stored::Text("F".into()), Stored::Text("M".into())];
        let (template, equal) = one_boolean_template(&distinct, "is_f");
        assert_eq!(template, "CASE {t}is_f WHEN 1 THEN 'F' WHEN 0 THEN 'M' END");
        assert_eq!(
            equal,
            vec![
                (
                    Literal::Text("F".into()),
                    "{t}is_f = 1".to_string(),
                    Some("{t}is_f = 0".to_string())
                ),
                (
                    Literal::Text("M".into()),
                    "{t}is_f = 0".to_string(),
                    Some("{t}is_f = 1".to_string())
                ),
            ]
        );
    }

    #[test]
    fn shipped_rules_parse() {
        assert_eq!(Rules::shipped().rules.len(), 5);
    }

    #[test]
    fn each_rule_is_lossless_on_the_data() {
        let rules = Rules::shipped();
        for (col, expect_new) in [
            ("Age", vec!["Birth_year"]),
            ("Name", vec!["First_name", "Last_name"]),
            ("Sex", vec!["Is_female"]),
            ("Is_male", vec!["Male"]),
        ] {
            let c = db();
            let before: Vec<Option<String>> = c
                .prepare(&format!(
                    "SELECT CAST({} AS TEXT) FROM people ORDER BY id",
                    quote(col)
                ))
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            let ch = applicable(&rules, &c, "people", col, &cols())
                .unwrap()
                .expect(col);
            let names: Vec<&str> = ch.new_columns.iter().map(|n| n.0.as_str()).collect();
            assert_eq!(names, expect_new, "{col}");
            run(&c, &ch);
            let ColumnChange::Replace { template, .. } = &ch.change else {
                panic!()
            };
            let expr = template.replace("{t}", "");
            let after: Vec<Option<String>> = c
                .prepare(&format!(
                    "SELECT CAST(({expr}) AS TEXT) FROM people ORDER BY id"
                ))
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            assert_eq!(before, after, "{col}: {expr}");
        }
    }

    #[test]
    fn rules_refuse_data_that_does_not_fit() {
        let rules = Rules::shipped();
        let c = db();
        c.execute_batch(
            "INSERT INTO people VALUES (4, 'Plato', 2400, 'X', 'maybe', NULL), (5, 'Zeno', 9, 'Y', 'F', NULL)",
        )
        .unwrap();
        for col in ["Name", "Sex", "Is_male", "title"] {
            assert!(
                applicable(&rules, &c, "people", col, &cols())
                    .unwrap()
                    .is_none(),
                "{col}"
            );
        }
        // Ages stay integers: still applies.
        assert!(applicable(&rules, &c, "people", "Age", &cols())
            .unwrap()
            .is_some());
    }
}
