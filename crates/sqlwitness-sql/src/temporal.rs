//! Does a query compare a date or time column with a string literal?
//! SQLite keeps such columns as text and compares text (`'2025-12-22
//! 00:00:00' <= '2025-12-22'` is false there); the servers hold migrated
//! timestamps and compare instants (true). A difference it explains is of
//! `type`, not of collation.

use std::ops::ControlFlow;

use sqlparser::ast::{visit_expressions, BinaryOperator, Expr, Value};
use sqlparser::dialect::SQLiteDialect;

use crate::SchemaInfo;

/// `=`, `<>`, `<`, `<=`, `>`, `>=`.
pub(crate) fn is_comparison(op: &BinaryOperator) -> bool {
    matches!(
        op,
        BinaryOperator::Eq
            | BinaryOperator::NotEq
            | BinaryOperator::Lt
            | BinaryOperator::LtEq
            | BinaryOperator::Gt
            | BinaryOperator::GtEq
    )
}

/// True when `sql` compares (`=`, `<`, `<=`, `>`, `>=`, `<>`, BETWEEN) a
/// column declared with a DATE or TIME type in `schema` with a string
/// literal.
pub fn compares_temporal_with_text(sql: &str, schema: &SchemaInfo) -> bool {
    let Ok(statements) = crate::parse_bounded(&SQLiteDialect {}, sql) else {
        return false;
    };
    let temporal = |e: &Expr| {
        let name = match e {
            Expr::Identifier(i) => &i.value,
            Expr::CompoundIdentifier(parts) => match parts.last() {
                Some(i) => &i.value,
                None => return false,
            },
            _ => return false,
        };
        schema.tables.iter().any(|t| {
            t.columns.iter().zip(&t.types).any(|(c, ty)| {
                let ty = ty.to_ascii_uppercase();
                c.eq_ignore_ascii_case(name) && (ty.contains("DATE") || ty.contains("TIME"))
            })
        })
    };
    let text = |e: &Expr| {
        matches!(e, Expr::Value(v) if matches!(v.value,
            Value::SingleQuotedString(_) | Value::DoubleQuotedString(_)))
            || matches!(e, Expr::Identifier(i) if i.quote_style == Some('"'))
    };
    let found = visit_expressions(&statements, |e| {
        let hit = match e {
            Expr::BinaryOp { left, op, right } => {
                is_comparison(op)
                    && ((temporal(left) && text(right)) || (text(left) && temporal(right)))
            }
            Expr::Between {
                expr, low, high, ..
            } => temporal(expr) && (text(low) || text(high)),
            _ => false,
        };
        if hit {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    found.is_break()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TableInfo;

    #[test]
    fn a_datetime_column_against_a_date_literal() {
        let schema = SchemaInfo {
            tables: vec![TableInfo {
                name: "Invoice".into(),
                columns: vec!["InvoiceId".into(), "InvoiceDate".into(), "Total".into()],
                types: vec!["INTEGER".into(), "DATETIME".into(), "NUMERIC".into()],
                ..TableInfo::default()
            }],
        };
        let yes = "SELECT count(*) FROM Invoice WHERE InvoiceDate <= '2025-12-22'";
        assert!(compares_temporal_with_text(yes, &schema));
        assert!(compares_temporal_with_text(
            "SELECT 1 FROM Invoice AS i WHERE i.InvoiceDate BETWEEN \"2020-01-01\" AND '2021-01-01'",
            &schema
        ));
        assert!(!compares_temporal_with_text(
            "SELECT count(*) FROM Invoice WHERE Total <= '5'",
            &schema
        ));
        assert!(!compares_temporal_with_text("SELEC", &schema));
    }
}
