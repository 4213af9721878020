//! Spider's hardness levels (easy, medium, hard, extra), as the official
//! test-suite evaluator (`taoyds/test-suite-sql-eval`, `evaluation.py`,
//! `Evaluator.eval_hardness`) computes them from a gold query — from its
//! rules, on sqlparser's syntax tree.
//!
//! The evaluator reads a query into a flat structure (`process_sql.get_sql`)
//! and counts three things on the outermost `SELECT` only:
//!
//! * **component 1**: one for each of WHERE, GROUP BY, ORDER BY, LIMIT; one
//!   per table joined beyond the first (a FROM subquery is a table); one per
//!   `OR` and per `LIKE` in the ON, WHERE and HAVING conditions;
//! * **component 2**: one per subquery used as a condition's value (ON,
//!   WHERE, HAVING) and one for a set operation (`UNION`, `INTERSECT`,
//!   `EXCEPT`: the rest of the chain is nested in it, so it counts once);
//! * **others**: one each for more than one aggregate, more than one SELECT
//!   column, more than one WHERE condition, more than one GROUP BY column.
//!
//! The aggregate count is the evaluator's, quirks included: SELECT columns
//! whose expression is an aggregate call, aggregate GROUP BY and ORDER BY
//! columns; in WHERE its test (`unit[0] != 0`) reads a condition's NOT flag,
//! so each `NOT IN`/`NOT LIKE`/`NOT BETWEEN` counts as an aggregate and an
//! aggregate compared in WHERE does not; in HAVING it also reads the
//! `and`/`or` between conditions (a string, never 0), so each connector
//! counts and `HAVING count(*) > 1` counts nothing.
//!
//! The evaluator's parser reads a narrow grammar; a gold outside it makes
//! the evaluator fail, and [`spider_hardness`] says why instead of a level:
//! `LEFT`/`INNER`/comma joins, column aliases, parenthesised conditions,
//! `IS NULL`, `EXISTS`, functions other than the five aggregates,
//! `UNION ALL`, `<>`, quoted identifiers, `IN` lists of several values,
//! more than one arithmetic operator in a column. Failures that depend on
//! the database's schema (a column the evaluator cannot find in the tables
//! it reads) are not detected.

use sqlparser::ast::{
    BinaryOperator, Distinct, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr,
    Ident, JoinConstraint, JoinOperator, LimitClause, ObjectName, ObjectNamePart, OrderByKind,
    Query, Select, SelectItem, SetExpr, SetQuantifier, Statement, TableFactor, UnaryOperator,
    Value,
};
use sqlparser::dialect::SQLiteDialect;
use sqlparser::tokenizer::Token;

/// A Spider hardness level, in the order the evaluator prints them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Hardness {
    Easy,
    Medium,
    Hard,
    Extra,
}

impl Hardness {
    /// The levels in the evaluator's column order.
    pub const ALL: [Hardness; 4] = [
        Hardness::Easy,
        Hardness::Medium,
        Hardness::Hard,
        Hardness::Extra,
    ];

    /// The evaluator's name: `easy`, `medium`, `hard`, `extra`.
    pub fn as_str(self) -> &'static str {
        match self {
            Hardness::Easy => "easy",
            Hardness::Medium => "medium",
            Hardness::Hard => "hard",
            Hardness::Extra => "extra",
        }
    }

    /// `eval_hardness`'s decision on the three counts.
    // Written as the evaluator writes it, clause for clause.
    #[allow(clippy::nonminimal_bool)]
    pub fn from_counts(c: HardnessCounts) -> Hardness {
        let (c1, c2, o) = (c.component1, c.component2, c.others);
        if c1 <= 1 && o == 0 && c2 == 0 {
            Hardness::Easy
        } else if (o <= 2 && c1 <= 1 && c2 == 0) || (c1 <= 2 && o < 2 && c2 == 0) {
            Hardness::Medium
        } else if (o > 2 && c1 <= 2 && c2 == 0)
            || (c1 == 3 && o <= 2 && c2 == 0)
            || (c1 <= 1 && o == 0 && c2 <= 1)
        {
            Hardness::Hard
        } else {
            Hardness::Extra
        }
    }
}

impl std::fmt::Display for Hardness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The evaluator's `count_component1`, `count_component2`, `count_others`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HardnessCounts {
    pub component1: usize,
    pub component2: usize,
    pub others: usize,
}

/// Why the official Spider evaluator's parser cannot read a query: the
/// construct it stops at, in words (`"WITH"`, `"the operator ~ in a
/// condition"`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unreadable(String);

impl From<&str> for Unreadable {
    fn from(s: &str) -> Self {
        Unreadable(s.to_string())
    }
}

impl From<String> for Unreadable {
    fn from(s: String) -> Self {
        Unreadable(s)
    }
}

/// The hardness of a gold query with its counts, or why the official
/// evaluator's parser cannot read it.
pub fn spider_hardness(sql: &str) -> Result<(Hardness, HardnessCounts), Unreadable> {
    check_tokens(sql)?;
    let counts = match sqlwitness_sql::parse_bounded(&SQLiteDialect {}, sql) {
        Ok(stmts) => {
            let [Statement::Query(q)] = stmts.as_slice() else {
                return Err("not one SELECT statement".into());
            };
            query(q, true)?.counts()
        }
        Err(e) => split_set_operation(sql).ok_or_else(|| e.to_string())??,
    };
    Ok((Hardness::from_counts(counts), counts))
}

/// `SELECT … LIMIT 3 INTERSECT SELECT …` is not SQL sqlparser reads (SQLite
/// runs it), but the evaluator does: each side is a query with its own
/// ORDER BY and LIMIT. Cut at the first set operator outside parentheses
/// and read both sides; `None` when there is none.
fn split_set_operation(sql: &str) -> Option<Result<HardnessCounts, Unreadable>> {
    use sqlparser::keywords::Keyword;
    let tokens = sqlwitness_sql::tokenize(&SQLiteDialect {}, sql).ok()?;
    let mut depth = 0i32;
    for t in &tokens {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Word(w)
                if depth == 0
                    && matches!(
                        w.keyword,
                        Keyword::UNION | Keyword::INTERSECT | Keyword::EXCEPT
                    ) =>
            {
                let (left, right) = (&sql[..t.start], &sql[t.start + t.text.len()..]);
                return Some((|| {
                    let (_, mut counts) = spider_hardness(left)?;
                    spider_hardness(right)?;
                    counts.component2 += 1;
                    Ok(counts)
                })());
            }
            _ => {}
        }
    }
    None
}

/// What the evaluator's tokenizer rejects or misreads before parsing.
fn check_tokens(sql: &str) -> Result<(), Unreadable> {
    let tokens = sqlwitness_sql::tokenize(&SQLiteDialect {}, sql).map_err(|e| e.to_string())?;
    for t in &tokens {
        match &t.token {
            Token::Neq if t.text == "<>" => {
                return Err("`<>` (the evaluator reads only `!=`)".into());
            }
            Token::SingleQuotedString(_) | Token::DoubleQuotedString(_) => {
                let inner = &t.text[1..t.text.len().saturating_sub(1)];
                if inner.contains(['\'', '"']) {
                    return Err("a quote inside a string literal".into());
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The conditions of one ON, WHERE or HAVING list, flattened as the
/// evaluator keeps them (`[cond, 'and'/'or', cond, …]`).
#[derive(Debug, Default, Clone, Copy)]
struct Conds {
    units: usize,
    connectors: usize,
    ors: usize,
    likes: usize,
    nots: usize,
    nested: usize,
}

/// The parts of one `SELECT` block the counts read.
#[derive(Debug, Default)]
struct Block {
    select_items: usize,
    select_aggs: usize,
    table_units: usize,
    from: Conds,
    where_: Conds,
    having: Conds,
    group_by: usize,
    group_aggs: usize,
    order_by: bool,
    order_aggs: usize,
    limit: bool,
    set_op: bool,
}

impl Block {
    fn counts(&self) -> HardnessCounts {
        let (f, w, h) = (&self.from, &self.where_, &self.having);
        let component1 = usize::from(w.units > 0)
            + usize::from(self.group_by > 0)
            + usize::from(self.order_by)
            + usize::from(self.limit)
            + self.table_units.saturating_sub(1)
            + f.ors
            + w.ors
            + h.ors
            + f.likes
            + w.likes
            + h.likes;
        let component2 = f.nested + w.nested + h.nested + usize::from(self.set_op);
        let aggs =
            self.select_aggs + w.nots + self.group_aggs + self.order_aggs + h.nots + h.connectors;
        let others = usize::from(aggs > 1)
            + usize::from(self.select_items > 1)
            + usize::from(w.units > 1)
            + usize::from(self.group_by > 1);
        HardnessCounts {
            component1,
            component2,
            others,
        }
    }
}

/// A query as the evaluator reads it: the outermost `SELECT` block, with a
/// set operation's right-hand side nested in it. `top` is false for a
/// subquery, where the evaluator needs the closing parenthesis right after
/// its clauses (no `OFFSET`).
fn query(q: &Query, top: bool) -> Result<Block, Unreadable> {
    if q.with.is_some() {
        return Err("WITH".into());
    }
    if q.fetch.is_some() || !q.locks.is_empty() || q.for_clause.is_some() {
        return Err("FETCH, FOR or locking clause".into());
    }
    let limit = match &q.limit_clause {
        None => false,
        Some(LimitClause::LimitOffset {
            limit: Some(_),
            offset,
            limit_by,
        }) if limit_by.is_empty() && (top || offset.is_none()) => true,
        Some(LimitClause::OffsetCommaLimit { .. }) if top => true,
        Some(_) => return Err("OFFSET in a subquery".into()),
    };
    let order = match &q.order_by {
        None => None,
        Some(o) => match &o.kind {
            OrderByKind::Expressions(items) => Some(items),
            OrderByKind::All(_) => return Err("ORDER BY ALL".into()),
        },
    };
    let mut order_aggs = 0;
    let mut limit = limit;
    for item in order.into_iter().flatten() {
        if item.options.nulls_first.is_some() {
            return Err("NULLS FIRST/LAST".into());
        }
        // `ORDER BY count(*) >= 5`: the evaluator reads `count(*)` and
        // stops there; in the outermost query the rest (LIMIT included)
        // is never read.
        if let Expr::BinaryOp { left, op, .. } = &item.expr {
            use BinaryOperator::*;
            if top && matches!(op, Eq | Gt | Lt | GtEq | LtEq | NotEq) {
                order_aggs += val_unit(left)?;
                limit = false;
                break;
            }
        }
        order_aggs += val_unit(&item.expr)?;
    }
    match q.body.as_ref() {
        SetExpr::Select(s) => {
            let mut b = select(s)?;
            b.order_by = order.is_some_and(|o| !o.is_empty());
            b.order_aggs = order_aggs;
            b.limit = limit;
            Ok(b)
        }
        SetExpr::SetOperation { .. } => {
            // ORDER BY and LIMIT after a set operation belong to its last
            // SELECT in the evaluator's reading, not to the outer one.
            let mut b = set_operation(q.body.as_ref())?;
            b.set_op = true;
            Ok(b)
        }
        _ => Err("a parenthesised query or VALUES".into()),
    }
}

/// The leftmost `SELECT` of a set-operation chain; every other one must be
/// readable too.
fn set_operation(body: &SetExpr) -> Result<Block, Unreadable> {
    match body {
        SetExpr::Select(s) => select(s),
        SetExpr::SetOperation {
            set_quantifier,
            left,
            right,
            ..
        } => {
            if !matches!(set_quantifier, SetQuantifier::None) {
                return Err("UNION ALL or another set quantifier".into());
            }
            let outer = set_operation(left)?;
            set_operation(right)?;
            Ok(outer)
        }
        _ => Err("a parenthesised query in a set operation".into()),
    }
}

fn select(s: &Select) -> Result<Block, Unreadable> {
    if s.top.is_some()
        || s.into.is_some()
        || !s.lateral_views.is_empty()
        || s.prewhere.is_some()
        || s.qualify.is_some()
        || !s.named_window.is_empty()
        || !s.cluster_by.is_empty()
        || !s.distribute_by.is_empty()
        || !s.sort_by.is_empty()
        || !s.connect_by.is_empty()
    {
        return Err("a clause outside Spider's grammar".into());
    }
    if matches!(s.distinct, Some(Distinct::On(_))) {
        return Err("DISTINCT ON".into());
    }
    let mut b = Block::default();
    for item in &s.projection {
        match item {
            SelectItem::UnnamedExpr(e) => {
                b.select_items += 1;
                b.select_aggs += usize::from(select_item(e)?);
            }
            SelectItem::Wildcard(_) => b.select_items += 1,
            SelectItem::QualifiedWildcard(..) => return Err("`table.*`".into()),
            SelectItem::ExprWithAlias { .. } | SelectItem::ExprWithAliases { .. } => {
                return Err("a column alias (`AS` in SELECT)".into())
            }
        }
    }
    let [from] = s.from.as_slice() else {
        return Err(if s.from.is_empty() {
            "no FROM".into()
        } else {
            "a comma join (`FROM a, b`)".into()
        });
    };
    table_factor(&from.relation)?;
    b.table_units = 1;
    for j in &from.joins {
        let JoinOperator::Join(constraint) = &j.join_operator else {
            return Err("a join other than plain `JOIN` (LEFT, INNER, CROSS …)".into());
        };
        table_factor(&j.relation)?;
        b.table_units += 1;
        match constraint {
            JoinConstraint::On(e) => {
                if b.from.units > 0 {
                    b.from.connectors += 1;
                }
                conds(e, &mut b.from)?;
            }
            JoinConstraint::None => {}
            _ => return Err("JOIN … USING or NATURAL JOIN".into()),
        }
    }
    if let Some(w) = &s.selection {
        conds(w, &mut b.where_)?;
    }
    match &s.group_by {
        GroupByExpr::Expressions(exprs, modifiers) if modifiers.is_empty() => {
            for e in exprs {
                b.group_by += 1;
                b.group_aggs += usize::from(col_unit(e)?);
            }
        }
        _ => return Err("GROUP BY ALL or a grouping modifier".into()),
    }
    if let Some(h) = &s.having {
        conds(h, &mut b.having)?;
    }
    Ok(b)
}

fn table_factor(t: &TableFactor) -> Result<(), Unreadable> {
    match t {
        TableFactor::Table {
            name,
            alias,
            args: None,
            with_hints,
            ..
        } if with_hints.is_empty() => {
            plain_name(name)?;
            match alias {
                None => Ok(()),
                Some(a) if a.explicit && a.columns.is_empty() => unquoted(&a.name),
                Some(_) => Err("a table alias without `AS`".into()),
            }
        }
        TableFactor::Derived {
            lateral: false,
            subquery,
            alias: None,
            ..
        } => query(subquery, false).map(|_| ()),
        TableFactor::Derived { .. } => Err("an aliased or LATERAL subquery in FROM".into()),
        _ => Err("a table expression outside Spider's grammar".into()),
    }
}

fn plain_name(name: &ObjectName) -> Result<(), Unreadable> {
    match name.0.as_slice() {
        [ObjectNamePart::Identifier(i)] => unquoted(i),
        _ => Err("a qualified table name".into()),
    }
}

fn unquoted(i: &Ident) -> Result<(), Unreadable> {
    match i.quote_style {
        None => Ok(()),
        Some(_) => Err(format!("the quoted identifier {i}").into()),
    }
}

/// An ON, WHERE or HAVING expression, read as the evaluator reads its
/// `AND`/`OR` chain. A condition whose value starts with a column swallows
/// the text up to the next `AND`, `,`, `)` or clause keyword (the
/// evaluator's value scan does not stop at `OR`): in `a = T2.b OR c = 1`
/// it reads one condition and no `OR`.
fn conds(e: &Expr, c: &mut Conds) -> Result<(), Unreadable> {
    let mut items = Vec::new();
    flatten(e, None, &mut items);
    let mut i = 0;
    while i < items.len() {
        let (connector, unit) = items[i];
        if let Some(or) = connector {
            c.connectors += 1;
            c.ors += usize::from(or);
        }
        c.units += 1;
        let last = cond_unit(unit, c)?;
        i += 1;
        if last == Val::Column {
            while i < items.len() && items[i].0 == Some(true) {
                i += 1;
            }
        }
    }
    Ok(())
}

/// The chain in text order: each condition with the connector before it
/// (`Some(true)` for `OR`).
fn flatten<'a>(e: &'a Expr, connector: Option<bool>, out: &mut Vec<(Option<bool>, &'a Expr)>) {
    match e {
        Expr::BinaryOp {
            left,
            op: op @ (BinaryOperator::And | BinaryOperator::Or),
            right,
        } => {
            flatten(left, connector, out);
            flatten(right, Some(*op == BinaryOperator::Or), out);
        }
        _ => out.push((connector, e)),
    }
}

/// What a condition's value is, as the evaluator reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Val {
    Literal,
    Subquery,
    Column,
}

/// One condition: `val_unit [NOT] op value [AND value]`; what its last
/// value is.
fn cond_unit(e: &Expr, c: &mut Conds) -> Result<Val, Unreadable> {
    let last = match e {
        Expr::BinaryOp { left, op, right } => {
            use BinaryOperator::*;
            if !matches!(op, Eq | Gt | Lt | GtEq | LtEq | NotEq) {
                return Err(format!("the operator {op} in a condition").into());
            }
            val_unit(left)?;
            value(right)?
        }
        Expr::Like {
            negated,
            any: false,
            expr,
            pattern,
            escape_char: None,
        } => {
            val_unit(expr)?;
            c.likes += 1;
            c.nots += usize::from(*negated);
            value(pattern)?
        }
        Expr::InSubquery {
            expr,
            subquery,
            negated,
        } => {
            val_unit(expr)?;
            query(subquery, false)?;
            c.nots += usize::from(*negated);
            Val::Subquery
        }
        Expr::InList {
            expr,
            list,
            negated,
        } => {
            val_unit(expr)?;
            let [only] = list.as_slice() else {
                return Err("an IN list of several values".into());
            };
            c.nots += usize::from(*negated);
            value(only)?
        }
        Expr::Between {
            expr,
            negated,
            low,
            high,
        } => {
            val_unit(expr)?;
            c.nots += usize::from(*negated);
            c.nested += usize::from(value(low)? == Val::Subquery);
            value(high)?
        }
        Expr::Nested(_) => return Err("a parenthesised condition".into()),
        Expr::IsNull(_) | Expr::IsNotNull(_) => {
            return Err("IS [NOT] NULL (the evaluator reads NULL as a column)".into())
        }
        Expr::Exists { .. } => return Err("EXISTS".into()),
        _ => return Err(format!("the condition `{e}`").into()),
    };
    c.nested += usize::from(last == Val::Subquery);
    Ok(last)
}

/// The right-hand side of a condition. After a leading column the
/// evaluator skips the rest of the value (`a > b + 1` reads as `a > b`);
/// after a leading literal it does not.
fn value(e: &Expr) -> Result<Val, Unreadable> {
    match e {
        Expr::Subquery(q) => query(q, false).map(|_| Val::Subquery),
        // The column scan starts at the `(` and stops before the `)`.
        Expr::Nested(inner) => match value(inner)? {
            Val::Column => Err(format!("the parenthesised column value `{e}`").into()),
            v => Ok(v),
        },
        // sqlparser reads `"text"` as a quoted identifier; the evaluator,
        // which turns every quote into `"`, as a string.
        Expr::Identifier(i) if i.quote_style == Some('"') => Ok(Val::Literal),
        Expr::Value(v) => match &v.value {
            Value::Number(..) | Value::SingleQuotedString(_) | Value::DoubleQuotedString(_) => {
                Ok(Val::Literal)
            }
            other => Err(format!("the value {other}").into()),
        },
        // `-20` and `+20` are one token to the evaluator, read by `float()`.
        Expr::UnaryOp {
            op: UnaryOperator::Minus | UnaryOperator::Plus,
            expr,
        } if matches!(expr.as_ref(), Expr::Value(v) if matches!(v.value, Value::Number(..))) => {
            Ok(Val::Literal)
        }
        Expr::BinaryOp { left, op, .. } if is_arithmetic(op) => value_column(leftmost(left), e),
        _ => value_column(e, e),
    }
}

/// A value read as a column. The scan for it stops at the first `)`, so an
/// aggregate call (`= max(x)`) loses its closing parenthesis and fails.
fn value_column(col: &Expr, whole: &Expr) -> Result<Val, Unreadable> {
    match col {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => col_unit(col).map(|_| Val::Column),
        _ => Err(format!("the value `{whole}`").into()),
    }
}

fn leftmost(e: &Expr) -> &Expr {
    match e {
        Expr::BinaryOp { left, op, .. } if is_arithmetic(op) => leftmost(left),
        other => other,
    }
}

fn is_arithmetic(op: &BinaryOperator) -> bool {
    use BinaryOperator::*;
    matches!(op, Plus | Minus | Multiply | Divide)
}

/// A SELECT column: `agg(val_unit)` or a `val_unit`; `true` when it is an
/// aggregate call (what the evaluator counts for SELECT).
fn select_item(e: &Expr) -> Result<bool, Unreadable> {
    if let Some(arg) = aggregate(e)? {
        match arg {
            None => Ok(true),
            Some(a) => val_unit(a).map(|_| true),
        }
    } else {
        val_unit(e).map(|_| false)
    }
}

/// `col_unit [op col_unit]`; the number of aggregate column units in it.
fn val_unit(e: &Expr) -> Result<usize, Unreadable> {
    match e {
        Expr::Nested(inner) => val_unit(inner),
        Expr::BinaryOp { left, op, right } if is_arithmetic(op) => {
            Ok(usize::from(col_unit(left)?) + usize::from(col_unit(right)?))
        }
        _ => col_unit(e).map(usize::from),
    }
}

/// A column, `*`, or one of the five aggregates over one; `true` for an
/// aggregate.
fn col_unit(e: &Expr) -> Result<bool, Unreadable> {
    match e {
        Expr::Nested(inner) => col_unit(inner),
        Expr::Identifier(i) => unquoted(i).map(|_| false),
        Expr::CompoundIdentifier(parts) => match parts.as_slice() {
            [t, c] => unquoted(t).and(unquoted(c)).map(|_| false),
            _ => Err("a column name of more than two parts".into()),
        },
        Expr::Function(_) => match aggregate(e)? {
            None => Err(format!("the function `{e}`").into()),
            Some(None) => Ok(true),
            Some(Some(arg)) => col_unit(arg).and_then(|agg| {
                if agg {
                    Err("an aggregate of an aggregate outside SELECT".into())
                } else {
                    Ok(true)
                }
            }),
        },
        _ => Err(format!("`{e}` where the evaluator expects a column").into()),
    }
}

/// `Some(arg)` when `e` is a call of `max`, `min`, `count`, `sum` or `avg`
/// with one argument (`None` inside for `*`); `None` for any other
/// expression.
fn aggregate(e: &Expr) -> Result<Option<Option<&Expr>>, Unreadable> {
    let Expr::Function(f) = e else {
        return Ok(None);
    };
    let name = match f.name.0.as_slice() {
        [ObjectNamePart::Identifier(i)] if i.quote_style.is_none() => i.value.to_ascii_lowercase(),
        _ => return Ok(None),
    };
    if !matches!(name.as_str(), "max" | "min" | "count" | "sum" | "avg") {
        return Err(format!("the function `{e}`").into());
    }
    if f.filter.is_some() || f.over.is_some() || !f.within_group.is_empty() {
        return Err(format!("`{e}` (FILTER, OVER or WITHIN GROUP)").into());
    }
    let FunctionArguments::List(list) = &f.args else {
        return Err(format!("`{e}`").into());
    };
    match list.args.as_slice() {
        [FunctionArg::Unnamed(FunctionArgExpr::Wildcard)] if list.clauses.is_empty() => {
            Ok(Some(None))
        }
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(a))] if list.clauses.is_empty() => {
            Ok(Some(Some(a)))
        }
        _ => Err(format!("`{e}`: not one argument").into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(sql: &str) -> &'static str {
        spider_hardness(sql).map(|(h, _)| h.as_str()).unwrap()
    }

    fn counts(sql: &str) -> (usize, usize, usize) {
        let (_, c) = spider_hardness(sql).unwrap();
        (c.component1, c.component2, c.others)
    }

    #[test]
    fn a_signed_number_is_a_value_as_the_evaluator_reads_it() {
        for sql in [
            "SELECT count(*) FROM singer WHERE age > +20",
            "SELECT count(*) FROM singer WHERE age > -20",
        ] {
            assert_eq!(
                level(sql),
                level("SELECT count(*) FROM singer WHERE age > 20")
            );
        }
    }

    #[test]
    fn levels_from_the_evaluators_rules() {
        assert_eq!(level("SELECT count(*) FROM singer"), "easy");
        assert_eq!(level("SELECT name FROM singer WHERE age > 20"), "easy");
        assert_eq!(level("SELECT name, age FROM singer"), "medium");
        assert_eq!(
            level("SELECT name FROM singer ORDER BY age DESC LIMIT 1"),
            "medium"
        );
        assert_eq!(
            level("SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer)"),
            "hard"
        );
        assert_eq!(
            level("SELECT name FROM a EXCEPT SELECT name FROM b"),
            "hard"
        );
        assert_eq!(
            level(
                "SELECT T1.name FROM a AS T1 JOIN b AS T2 ON T1.id = T2.id \
                 WHERE T2.x = 1 INTERSECT SELECT name FROM c"
            ),
            "extra"
        );
    }

    #[test]
    fn counts_carry_the_evaluators_quirks() {
        // Joins: one per table beyond the first; the ON condition itself
        // counts nothing unless it holds OR or LIKE.
        assert_eq!(
            counts("SELECT T1.a FROM x AS T1 JOIN y AS T2 ON T1.id = T2.id JOIN z ON z.k = T2.k"),
            (2, 0, 0)
        );
        // A NOT condition in WHERE counts as an aggregate; a compared
        // aggregate in HAVING does not, each connector there does.
        assert_eq!(
            counts("SELECT a FROM t WHERE b NOT IN (SELECT b FROM u) AND c NOT LIKE 'x%'"),
            (2, 1, 2)
        );
        assert_eq!(
            counts("SELECT a FROM t GROUP BY a HAVING count(*) > 1"),
            (1, 0, 0)
        );
        assert_eq!(
            counts("SELECT a FROM t GROUP BY a HAVING count(*) > 1 AND sum(b) < 3"),
            (1, 0, 0)
        );
        assert_eq!(
            counts("SELECT a FROM t GROUP BY a HAVING count(*) > 1 OR sum(b) < 3 OR max(c) = 1"),
            (3, 0, 1)
        );
        // Set operation: counted once; ORDER BY/LIMIT after it belong to
        // the last SELECT.
        assert_eq!(
            counts(
                "SELECT a FROM t UNION SELECT a FROM u UNION SELECT a FROM v ORDER BY a LIMIT 3"
            ),
            (0, 1, 0)
        );
        // A FROM subquery is a table unit, not a nested query.
        assert_eq!(
            counts("SELECT count(*) FROM (SELECT a FROM t WHERE b = 1)"),
            (0, 0, 0)
        );
        // A value that starts with a column swallows the rest up to the
        // next AND: one condition, no OR (Spider dev's flight_2 golds).
        assert_eq!(
            counts("SELECT T1.a FROM x AS T1 JOIN y AS T2 ON T1.a = T2.b OR T1.a = T2.c"),
            (1, 0, 0)
        );
        assert_eq!(
            counts("SELECT a FROM t WHERE b = t.c OR d = 1 AND e LIKE 'x'"),
            (2, 0, 1)
        );
        // `ORDER BY count(*) >= 5`: read up to the comparison, no LIMIT.
        assert_eq!(
            counts("SELECT a FROM t GROUP BY a ORDER BY count(*) >= 5 LIMIT 1"),
            (2, 0, 0)
        );
        // SQLite runs `… LIMIT 3 INTERSECT …`, sqlparser does not; each
        // side keeps its own ORDER BY and LIMIT, as the evaluator reads it.
        assert_eq!(
            counts(
                "SELECT a FROM t GROUP BY b ORDER BY count(*) DESC LIMIT 3 \
                 INTERSECT SELECT a FROM t GROUP BY c ORDER BY count(*) DESC LIMIT 3"
            ),
            (3, 1, 0)
        );
        // Two aggregates in SELECT, two columns: others = 2.
        assert_eq!(
            counts("SELECT max(a), min(a) FROM t WHERE b LIKE '%x%' OR c = 2"),
            (3, 0, 3)
        );
    }

    #[test]
    fn what_the_evaluators_parser_cannot_read() {
        for sql in [
            "SELECT a FROM t LEFT JOIN u ON t.id = u.id",
            "SELECT a FROM t, u",
            "SELECT count(*) AS n FROM t",
            "SELECT a FROM t WHERE (b = 1 OR c = 2) AND d = 3",
            "SELECT a FROM t WHERE b IS NULL",
            "SELECT a FROM t WHERE b <> 1",
            "SELECT a FROM t WHERE b IN (1, 2)",
            "SELECT a FROM t UNION ALL SELECT a FROM u",
            "SELECT lower(a) FROM t",
            "SELECT \"a\" FROM t",
            "SELECT a FROM t x",
            "WITH c AS (SELECT 1) SELECT a FROM c",
            "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u)",
            "SELECT a + b + c FROM t",
            "SELECT a FROM t GROUP BY a HAVING b = max(b)",
            "SELECT a FROM t WHERE b = (c)",
        ] {
            assert!(spider_hardness(sql).is_err(), "{sql}");
        }
    }

    /// Spider dev: every gold reads, and the totals per level are the
    /// official evaluator's (easy 248, medium 446, hard 174, extra 166).
    #[test]
    fn spider_dev_totals_equal_the_official_evaluators() {
        let Some(gold) = sqlwitness_testkit::spider_dev_gold() else {
            return;
        };
        let mut totals = [0usize; 4];
        for (sql, db) in &gold {
            match spider_hardness(sql) {
                Ok((h, _)) => totals[h as usize] += 1,
                Err(e) => panic!("{db}: {sql}: {e}"),
            }
        }
        assert_eq!(totals, [248, 446, 174, 166]);
    }
}
