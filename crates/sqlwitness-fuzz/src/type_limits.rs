//! What a column's type on a server reference holds. With `fuzz
//! --reference ENGINE` on a benchmark imported from a dump, every candidate
//! is migrated into a scratch copy that takes the dump copy's column types
//! (`sqlwitness_migrate::TypesFrom`): a value those types cannot hold or
//! would change rejects the whole candidate. So the generator keeps its
//! values inside them, as it keeps inside the rules the original data
//! follows: an enum's labels (MySQL's, parsed from the type; PostgreSQL's,
//! known only by the values the original holds), a `varchar(n)`'s length,
//! a `decimal(p,s)`'s digits, an integer type's range and `unsigned`.

use std::collections::BTreeMap;

use sqlwitness_core::{EngineKind, Value};
use sqlwitness_dialect::Kind;

use crate::schema::{ColumnDef, DbSchema};

/// What a column's declared type on the reference holds (see the module).
#[derive(Debug, Clone, PartialEq)]
pub enum TypeLimit {
    /// An enum: one of these labels, exactly as written (MySQL would store
    /// `LOW` as `low`, and reading it back differs); `None` when the labels
    /// are not in the type's name (PostgreSQL): one of the original's
    /// values.
    Labels(Option<Vec<String>>),
    /// At most this many characters (`varchar(n)`, `char(n)`).
    MaxChars(usize),
    /// `decimal(p,s)`: at most `p - s` digits before the point, `s` after.
    Decimal { integer_digits: u32, scale: u32 },
    /// An integer type's range.
    Integer { min: i128, max: i128 },
}

impl TypeLimit {
    /// The limit of `sql_type` as `engine`'s server writes it (read into
    /// the column model by its dialect), and whether it is `unsigned`.
    pub fn of(sql_type: &str, engine: EngineKind) -> (Option<TypeLimit>, bool) {
        let read = sqlwitness_dialect::shipped(engine)
            .column_model
            .read(sql_type, None);
        let unsigned = read.shape.unsigned;
        let limit = match read.kind {
            // Inline labels (MySQL's `enum(…)`); a type the database
            // defines (PostgreSQL) names none.
            Some(Kind::Enum) => Some(TypeLimit::Labels(read.labels)),
            Some(Kind::Varchar | Kind::Char) => read
                .shape
                .args
                .first()
                .map(|&n| TypeLimit::MaxChars(n as usize)),
            // A bare decimal takes the engine's default (MySQL's
            // decimal(10,0)); PostgreSQL's bare numeric holds any number.
            Some(Kind::Decimal) => {
                read.decimal
                    .filter(|(p, s)| p >= s)
                    .map(|(p, s)| TypeLimit::Decimal {
                        integer_digits: p - s,
                        scale: s,
                    })
            }
            Some(k) => k.integer_bits().map(|(b, unsigned)| {
                if unsigned {
                    TypeLimit::Integer {
                        min: 0,
                        max: (1i128 << b) - 1,
                    }
                } else {
                    TypeLimit::Integer {
                        min: -(1i128 << (b - 1)),
                        max: (1i128 << (b - 1)) - 1,
                    }
                }
            }),
            None => None,
        };
        (limit, unsigned)
    }

    /// Whether a column limited so, whose original values are `originals`,
    /// holds `v` unchanged.
    pub fn holds(&self, originals: &[Value], v: &Value) -> bool {
        if *v == Value::Null {
            return true;
        }
        match self {
            TypeLimit::Labels(Some(labels)) => {
                matches!(v, Value::Text(s) if labels.iter().any(|l| l == s))
            }
            TypeLimit::Labels(None) => originals.contains(v),
            TypeLimit::MaxChars(n) => match v {
                Value::Text(s) => s.chars().count() <= *n,
                _ => true,
            },
            TypeLimit::Decimal {
                integer_digits,
                scale,
            } => match number_text(v) {
                Some(text) => decimal_fits(&text, *integer_digits, *scale),
                None => true,
            },
            TypeLimit::Integer { min, max } => match v {
                Value::Int(i) => (*min..=*max).contains(&i128::from(*i)),
                Value::Float(f) => *f >= *min as f64 && *f <= *max as f64,
                _ => true,
            },
        }
    }

    /// How the manifest names it.
    pub fn describe(&self) -> String {
        match self {
            TypeLimit::Labels(Some(labels)) => format!("one of the enum's {} labels", labels.len()),
            TypeLimit::Labels(None) => "an enum: the original's values".to_string(),
            TypeLimit::MaxChars(n) => format!("at most {n} characters"),
            TypeLimit::Decimal {
                integer_digits,
                scale,
            } => format!("at most {integer_digits} digits before the point and {scale} after"),
            TypeLimit::Integer { min, max } => format!("an integer from {min} to {max}"),
        }
    }
}

/// A number's text (as the migration writes it), for the digit count.
fn number_text(v: &Value) -> Option<String> {
    match v {
        Value::Int(i) => Some(i.to_string()),
        Value::Float(f) if f.is_finite() => Some(format!("{f}")),
        Value::Float(_) => Some("inf".to_string()),
        Value::Decimal(s) => Some(s.clone()),
        Value::Text(s) => s.trim().parse::<f64>().ok().map(|_| s.trim().to_string()),
        _ => None,
    }
}

/// Whether the decimal text `s` has at most `integer_digits` digits before
/// the point (leading zeros aside) and `scale` after (trailing zeros
/// aside); exponents and infinities do not fit.
fn decimal_fits(s: &str, integer_digits: u32, scale: u32) -> bool {
    let s = s.trim_start_matches(['-', '+']);
    if !s.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return false;
    }
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let int = int.trim_start_matches('0');
    let frac = frac.trim_end_matches('0');
    int.len() <= integer_digits as usize && frac.len() <= scale as usize
}

/// Gives each column of `schema` the limit of its type on the reference
/// (`types`, by `(table, column)`, as `engine`'s server writes them):
/// `type_limit`, and `non_negative` for an `unsigned` one.
pub(crate) fn apply(
    schema: &mut DbSchema,
    types: &BTreeMap<(String, String), String>,
    engine: EngineKind,
) {
    let find = |table: &str, column: &str| {
        types
            .get(&(table.to_string(), column.to_string()))
            .or_else(|| {
                types.iter().find_map(|((t, c), ty)| {
                    (t.eq_ignore_ascii_case(table) && c.eq_ignore_ascii_case(column)).then_some(ty)
                })
            })
    };
    for t in &mut schema.tables {
        for c in &mut t.columns {
            let Some(ty) = find(&t.name, &c.name) else {
                continue;
            };
            limit_column(c, ty, engine);
        }
    }
}

fn limit_column(c: &mut ColumnDef, sql_type: &str, engine: EngineKind) {
    let (limit, unsigned) = TypeLimit::of(sql_type, engine);
    c.type_limit = limit;
    if unsigned {
        c.non_negative = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_of_mysql_and_postgres_types() {
        let m = |t: &str| TypeLimit::of(t, EngineKind::Mysql);
        assert_eq!(
            m("enum('low','mid','it''s \\\\ odd')").0,
            Some(TypeLimit::Labels(Some(vec![
                "low".into(),
                "mid".into(),
                "it's \\ odd".into()
            ])))
        );
        assert_eq!(
            m("varchar(20) COLLATE utf8mb4_bin").0,
            Some(TypeLimit::MaxChars(20))
        );
        assert_eq!(
            m("decimal(10,2)").0,
            Some(TypeLimit::Decimal {
                integer_digits: 8,
                scale: 2
            })
        );
        assert_eq!(
            m("tinyint unsigned"),
            (Some(TypeLimit::Integer { min: 0, max: 255 }), true)
        );
        assert_eq!(m("text").0, None);
        let p = |t: &str| TypeLimit::of(t, EngineKind::Postgres).0;
        assert_eq!(p("\"sw_shop\".\"grade\""), Some(TypeLimit::Labels(None)));
        assert_eq!(p("character varying(40)"), Some(TypeLimit::MaxChars(40)));
        assert_eq!(
            p("smallint"),
            Some(TypeLimit::Integer {
                min: -32768,
                max: 32767
            })
        );
        assert_eq!(p("numeric"), None);
    }

    #[test]
    fn what_a_limit_holds() {
        let dec = TypeLimit::Decimal {
            integer_digits: 8,
            scale: 2,
        };
        assert!(dec.holds(&[], &Value::Float(12.35)));
        assert!(dec.holds(&[], &Value::Int(99_999_999)));
        assert!(!dec.holds(&[], &Value::Int(123_456_789)));
        assert!(!dec.holds(&[], &Value::Float(1.234)));
        assert!(!dec.holds(&[], &Value::Float(1e300)));
        assert!(dec.holds(&[], &Value::Null));
        let labels = TypeLimit::Labels(Some(vec!["low".into()]));
        assert!(labels.holds(&[], &Value::Text("low".into())));
        assert!(!labels.holds(&[], &Value::Text("LOW".into())));
        let known = TypeLimit::Labels(None);
        assert!(known.holds(&[Value::Text("mid".into())], &Value::Text("mid".into())));
        assert!(!known.holds(&[Value::Text("mid".into())], &Value::Text("midx".into())));
        assert!(!TypeLimit::MaxChars(3).holds(&[], &Value::Text("four".into())));
        let tiny = TypeLimit::Integer {
            min: -128,
            max: 127,
        };
        assert!(!tiny.holds(&[], &Value::Int(1000)));
    }
}
