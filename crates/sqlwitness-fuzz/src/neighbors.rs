//! Neighbour queries of a gold query: small, plausible perturbations that a
//! test suite must tell apart from the gold (Zhong, Yu and Klein 2020,
//! "Semantic evaluation for text-to-SQL with distilled test suites", §3;
//! the perturbations of Dr.Spider, §3.3).
//!
//! Every neighbour differs from the gold by exactly one mutation, labelled
//! with its [`MutationKind`]:
//!
//! * comparison operator swaps (`=`, `<>`, `<`, `<=`, `>`, `>=`);
//! * `ASC` ↔ `DESC` on each `ORDER BY` key;
//! * `LIMIT n` → `n ± 1`, numeric literals `± k`;
//! * a text literal compared with a column → another value of that column
//!   (the caller passes the candidate values);
//! * dropping one conjunct of a `WHERE` or `HAVING`;
//! * a selected column → another column of the same table;
//! * `COUNT(DISTINCT x)` ↔ `COUNT(x)`; an aggregate → another one;
//! * `INNER JOIN` ↔ `LEFT JOIN`.
//!
//! Mutation sites are enumerated in the deterministic order of sqlparser's
//! visitor, so the same gold and options always give the same list.

mod literals;
mod mutate;

pub use literals::{gold_literals, GoldLiteral, LiteralValue};

use self::MutationKind as Kind;
use sqlparser::ast::Statement;

/// The kind of one mutation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MutationKind {
    ComparisonOp,
    SortOrder,
    Limit,
    Number,
    TextValue,
    DropConjunct,
    SelectColumn,
    CountDistinct,
    Aggregate,
    Join,
}

impl MutationKind {
    pub const ALL: [MutationKind; 10] = [
        Kind::ComparisonOp,
        Kind::SortOrder,
        Kind::Limit,
        Kind::Number,
        Kind::TextValue,
        Kind::DropConjunct,
        Kind::SelectColumn,
        Kind::CountDistinct,
        Kind::Aggregate,
        Kind::Join,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::ComparisonOp => "comparison_op",
            Kind::SortOrder => "sort_order",
            Kind::Limit => "limit",
            Kind::Number => "number",
            Kind::TextValue => "text_value",
            Kind::DropConjunct => "drop_conjunct",
            Kind::SelectColumn => "select_column",
            Kind::CountDistinct => "count_distinct",
            Kind::Aggregate => "aggregate",
            Kind::Join => "join",
        }
    }
}

impl std::fmt::Display for MutationKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One neighbour of a gold query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Neighbor {
    pub kind: MutationKind,
    /// What changed, e.g. `` `>` → `>=` ``.
    pub description: String,
    /// The mutated query, rendered by sqlparser.
    pub sql: String,
}

/// What the neighbour generator needs beyond the query.
pub struct NeighborOptions<'a> {
    /// The database's tables and their columns (for column swaps).
    pub tables: &'a [(String, Vec<String>)],
    /// Candidate replacement values for a text literal compared with the
    /// column of this (unqualified, case-insensitive) name.
    pub text_values: &'a dyn Fn(&str) -> Vec<String>,
    /// At most this many replacement values per text literal.
    pub max_text_values: usize,
    /// Offsets `k` for numeric literals (`n + k` and `n - k` each).
    pub numeric_deltas: &'a [i64],
    /// At most this many replacement columns per selected column.
    pub max_column_swaps: usize,
    /// The dialects the gold is read in ([`sqlwitness_sql::SQLITE_ONLY`] by default).
    pub dialects: sqlwitness_sql::Dialects<'a>,
}

fn no_values(_: &str) -> Vec<String> {
    Vec::new()
}

impl Default for NeighborOptions<'_> {
    fn default() -> Self {
        NeighborOptions {
            tables: &[],
            text_values: &no_values,
            max_text_values: 3,
            numeric_deltas: &[1],
            max_column_swaps: 2,
            dialects: sqlwitness_sql::SQLITE_ONLY,
        }
    }
}

/// Why no neighbour could be generated.
#[derive(Debug, thiserror::Error)]
pub enum NeighborError {
    #[error("cannot parse the query: {0}")]
    Parse(String),
    #[error("expected one query statement")]
    NotOneQuery,
}

fn parse_one(
    sql: &str,
    dialects: sqlwitness_sql::Dialects<'_>,
) -> Result<Statement, NeighborError> {
    let mut stmts =
        sqlwitness_sql::parse_in(sql, dialects).map_err(|e| NeighborError::Parse(e.to_string()))?;
    match (stmts.len(), stmts.first()) {
        (1, Some(Statement::Query(_))) => Ok(stmts.remove(0)),
        _ => Err(NeighborError::NotOneQuery),
    }
}

/// Every single-mutation neighbour of `sql`, in a deterministic order,
/// without duplicates and without the query itself (as rendered).
pub fn neighbors(sql: &str, opts: &NeighborOptions<'_>) -> Result<Vec<Neighbor>, NeighborError> {
    let stmt = parse_one(sql, opts.dialects)?;
    let original = stmt.to_string();
    let sites = mutate::collect(&stmt, opts);
    let mut out: Vec<Neighbor> = Vec::with_capacity(sites.len());
    let mut seen = std::collections::HashSet::new();
    seen.insert(original);
    for (i, (kind, description)) in sites.into_iter().enumerate() {
        let mut s = stmt.clone();
        if !mutate::apply(&mut s, opts, i) {
            continue;
        }
        let text = s.to_string();
        if seen.insert(text.clone()) {
            out.push(Neighbor {
                kind,
                description,
                sql: text,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
