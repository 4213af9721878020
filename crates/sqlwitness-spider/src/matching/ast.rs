//! The structure `process_sql.get_sql` returns, as Rust types whose `==`
//! is Python's `==` on the same tuples, lists and dicts.
//!
//! Column and table ids are the evaluator's strings (`__singer.name__`,
//! `__singer__`, `__all__`). A condition list keeps Python's shape
//! `[cond, 'and', cond, …]` item for item: the parser can put two
//! conditions next to each other, and the evaluator then reads every
//! second item (`[::2]`, `[1::2]`) whatever it is.

/// `(agg_id, col_id, isDistinct)`; the flag is `None` once
/// `rebuild_sql_col` has cleared it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ColUnit {
    pub agg: usize,
    pub col: String,
    pub distinct: Option<bool>,
}

/// `(unit_op, col_unit1, col_unit2)`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ValUnit {
    pub op: usize,
    pub col1: ColUnit,
    pub col2: Option<ColUnit>,
}

/// A condition's value: a number (`float(tok)`), a string token (quotes
/// kept), a subquery, a column, or `None` (no second value, or a value
/// `rebuild_sql_val` dropped).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Val {
    None,
    Number(f64),
    Text(String),
    Sql(Box<Sql>),
    Col(ColUnit),
}

impl Val {
    pub fn sql(&self) -> Option<&Sql> {
        match self {
            Val::Sql(s) => Some(s),
            _ => None,
        }
    }
}

/// `(not_op, op_id, val_unit, val1, val2)`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CondUnit {
    pub not: bool,
    pub op: usize,
    pub val_unit: ValUnit,
    pub val1: Val,
    pub val2: Val,
}

/// One item of a condition list: a condition or a connector (`and`, `or`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CondItem {
    Unit(CondUnit),
    Op(String),
}

impl CondItem {
    /// Python's `item[0] != 0` (`has_agg` on a condition list): a
    /// condition's NOT flag; a connector's first letter, never 0.
    pub fn first_is_nonzero(&self) -> bool {
        match self {
            CondItem::Unit(u) => u.not,
            CondItem::Op(_) => true,
        }
    }

    pub fn unit(&self) -> Option<&CondUnit> {
        match self {
            CondItem::Unit(u) => Some(u),
            CondItem::Op(_) => None,
        }
    }
}

/// The items at even positions (`conds[::2]`).
pub(crate) fn evens(conds: &[CondItem]) -> impl Iterator<Item = &CondItem> {
    conds.iter().step_by(2)
}

/// The items at odd positions (`conds[1::2]`).
pub(crate) fn odds(conds: &[CondItem]) -> impl Iterator<Item = &CondItem> {
    conds.iter().skip(1).step_by(2)
}

/// `(table_type, table_id or sql)`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TableUnit {
    Sql(Box<Sql>),
    Table(String),
}

/// The `sql` dict.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Sql {
    /// `(isDistinct, [(agg_id, val_unit), …])`; the flag is `None` once
    /// rebuilt.
    pub select_distinct: Option<bool>,
    pub select: Vec<(usize, ValUnit)>,
    pub from_units: Vec<TableUnit>,
    pub from_conds: Vec<CondItem>,
    pub where_: Vec<CondItem>,
    pub group_by: Vec<ColUnit>,
    pub having: Vec<CondItem>,
    /// `[]` or `('asc'/'desc', [val_unit, …])`.
    pub order_by: Option<(String, Vec<ValUnit>)>,
    /// Always 1 when present: the evaluator tests `type(tok) != int` on a
    /// string token.
    pub limit: Option<i64>,
    pub intersect: Option<Box<Sql>>,
    pub except: Option<Box<Sql>>,
    pub union: Option<Box<Sql>>,
}

impl Sql {
    /// The structure the evaluator puts in place of a prediction it cannot
    /// parse: no FROM, no SELECT columns, nothing else.
    pub fn empty() -> Sql {
        Sql {
            select_distinct: Some(false),
            ..Sql::default()
        }
    }

    /// `intersect`, `except`, `union`, in the evaluator's order.
    pub fn set_ops(&self) -> [Option<&Sql>; 3] {
        [
            self.intersect.as_deref(),
            self.except.as_deref(),
            self.union.as_deref(),
        ]
    }
}
