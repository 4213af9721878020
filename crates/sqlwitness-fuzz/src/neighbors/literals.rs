//! The literals of a gold query and the column each is compared with, for
//! instance generators that want values near the gold's constants.

use std::ops::ControlFlow;

use sqlparser::ast::{Expr, Value, Visit, Visitor};

use super::mutate::column_name;
use super::parse_one;
use super::NeighborError;

/// A literal's value.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LiteralValue {
    /// A numeric literal as written (`3`, `2.5`).
    Number(String),
    /// A string literal; for `LIKE` patterns, the pattern without `%`/`_`.
    Text(String),
}

/// One literal of a query.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GoldLiteral {
    /// The column it is compared with (`=`, `<`, `LIKE`, `BETWEEN`, `IN`),
    /// unqualified, when there is one.
    pub column: Option<String>,
    pub value: LiteralValue,
}

struct Collector<'a> {
    columns: &'a dyn Fn(&str) -> bool,
    out: Vec<GoldLiteral>,
}

impl Collector<'_> {
    fn literal(&self, e: &Expr) -> Option<LiteralValue> {
        match e {
            Expr::Value(v) => match &v.value {
                Value::Number(n, _) => Some(LiteralValue::Number(n.clone())),
                Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => {
                    Some(LiteralValue::Text(s.clone()))
                }
                _ => None,
            },
            Expr::UnaryOp { op, expr } if op.to_string() == "-" => match self.literal(expr)? {
                LiteralValue::Number(n) => Some(LiteralValue::Number(format!("-{n}"))),
                t => Some(t),
            },
            Expr::Identifier(id) if id.quote_style == Some('"') && !(self.columns)(&id.value) => {
                Some(LiteralValue::Text(id.value.clone()))
            }
            _ => None,
        }
    }

    fn column(&self, e: &Expr) -> Option<String> {
        match e {
            Expr::Identifier(id) if id.quote_style == Some('"') && !(self.columns)(&id.value) => {
                None
            }
            other => column_name(other).map(str::to_string),
        }
    }

    fn pair(&mut self, col: &Expr, lit: &Expr) {
        if let (Some(c), Some(v)) = (self.column(col), self.literal(lit)) {
            self.out.push(GoldLiteral {
                column: Some(c),
                value: v,
            });
        }
    }
}

impl Visitor for Collector<'_> {
    type Break = ();

    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        match e {
            Expr::BinaryOp { left, right, .. } => {
                self.pair(left, right);
                self.pair(right, left);
            }
            Expr::Like { expr, pattern, .. } | Expr::ILike { expr, pattern, .. } => {
                if let (Some(c), Some(LiteralValue::Text(p))) =
                    (self.column(expr), self.literal(pattern))
                {
                    let bare: String = p.chars().filter(|ch| *ch != '%' && *ch != '_').collect();
                    self.out.push(GoldLiteral {
                        column: Some(c),
                        value: LiteralValue::Text(bare),
                    });
                }
            }
            Expr::Between {
                expr, low, high, ..
            } => {
                self.pair(expr, low);
                self.pair(expr, high);
            }
            Expr::InList { expr, list, .. } => {
                for item in list {
                    self.pair(expr, item);
                }
            }
            Expr::Value(_) => {
                if let Some(v) = self.literal(e) {
                    self.out.push(GoldLiteral {
                        column: None,
                        value: v,
                    });
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

/// Every literal of `sql` with the column it is compared with, sorted and
/// without duplicates. `is_column` says whether a double-quoted word names
/// a column (otherwise SQLite reads it as a string, as Spider's golds do).
/// The SQL is read in the first of `dialects` that parses it.
pub fn gold_literals(
    sql: &str,
    is_column: &dyn Fn(&str) -> bool,
    dialects: sqlwitness_sql::Dialects<'_>,
) -> Result<Vec<GoldLiteral>, NeighborError> {
    let stmt = parse_one(sql, dialects)?;
    let mut c = Collector {
        columns: is_column,
        out: Vec::new(),
    };
    let _ = stmt.visit(&mut c);
    let mut out = c.out;
    out.sort();
    out.dedup();
    Ok(out)
}
