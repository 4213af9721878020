//! `Evaluator.eval_partial_match` and `eval_exact_match`: ten component
//! scores (each 0 or 1 with the totals they came from), and exact match
//! when every component's F1 is 1 and the sorted FROM units are equal.
//!
//! Quirks kept: `and/or` returns its totals swapped (`len(pred), len(label)`
//! where the caller expects `label, pred`), `group(no Having)` compares
//! column names without their table, set operations are compared by a
//! fresh exact match of each, and sorting FROM units that hold two
//! different subqueries raises Python's `TypeError` (dicts do not order).

use super::ast::{evens, odds, CondItem, CondUnit, Sql, TableUnit, ValUnit};
use super::Raised;

/// The partial-matching components, in the evaluator's print order.
pub const PARTIAL_TYPES: [&str; 10] = [
    "select",
    "select(no AGG)",
    "where",
    "where(no OP)",
    "group(no Having)",
    "group",
    "order",
    "and/or",
    "IUEN",
    "keywords",
];

/// One component's score for one question: `acc`, `rec`, `f1` (each 0 or
/// 1) and the totals that decide whether `acc`/`rec` are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PartialScore {
    pub acc: u8,
    pub rec: u8,
    pub f1: u8,
    pub label_total: usize,
    pub pred_total: usize,
}

/// `get_scores(count, pred_total, label_total)`.
fn scores(count: usize, pred_total: usize, label_total: usize) -> PartialScore {
    let hit = u8::from(pred_total == label_total && count == pred_total);
    PartialScore {
        acc: hit,
        rec: hit,
        f1: hit,
        label_total,
        pred_total,
    }
}

/// Removes the first item of `pool` equal to `x`; whether there was one
/// (`if x in pool: pool.remove(x)`).
fn take<T: PartialEq>(pool: &mut Vec<T>, x: &T) -> bool {
    match pool.iter().position(|y| y == x) {
        Some(at) => {
            pool.remove(at);
            true
        }
        None => false,
    }
}

/// The conditions at even positions (after `rebuild_sql_val` every one is
/// a condition: a connector there has raised).
fn cond_units(conds: &[CondItem]) -> Vec<&CondUnit> {
    evens(conds).filter_map(CondItem::unit).collect()
}

/// `eval_sel` → `(label_total, pred_total, cnt, cnt_wo_agg)`.
fn eval_sel(pred: &Sql, label: &Sql) -> (usize, usize, usize, usize) {
    let mut label_sel: Vec<&(usize, ValUnit)> = label.select.iter().collect();
    let mut label_wo_agg: Vec<&ValUnit> = label.select.iter().map(|(_, v)| v).collect();
    let (mut cnt, mut cnt_wo_agg) = (0, 0);
    for unit in &pred.select {
        cnt += usize::from(take(&mut label_sel, &unit));
        cnt_wo_agg += usize::from(take(&mut label_wo_agg, &&unit.1));
    }
    (label.select.len(), pred.select.len(), cnt, cnt_wo_agg)
}

/// `eval_where` → `(label_total, pred_total, cnt, cnt_wo_agg)`.
fn eval_where(pred: &Sql, label: &Sql) -> (usize, usize, usize, usize) {
    let pred_conds = cond_units(&pred.where_);
    let mut label_conds = cond_units(&label.where_);
    let label_total = label_conds.len();
    let mut label_wo_agg: Vec<&ValUnit> = label_conds.iter().map(|u| &u.val_unit).collect();
    let (mut cnt, mut cnt_wo_agg) = (0, 0);
    for unit in &pred_conds {
        cnt += usize::from(take(&mut label_conds, unit));
        cnt_wo_agg += usize::from(take(&mut label_wo_agg, &&unit.val_unit));
    }
    (label_total, pred_conds.len(), cnt, cnt_wo_agg)
}

/// A GROUP BY column as `eval_group` compares it: the text after the first
/// `.` of its id (`__t.c__` → `c__`).
fn bare(col: &str) -> &str {
    col.split('.').nth(1).unwrap_or(col)
}

/// `eval_group` → `(label_total, pred_total, cnt)`.
fn eval_group(pred: &Sql, label: &Sql) -> (usize, usize, usize) {
    let mut label_cols: Vec<&str> = label.group_by.iter().map(|c| bare(&c.col)).collect();
    let cnt = pred
        .group_by
        .iter()
        .filter(|c| take(&mut label_cols, &bare(&c.col)))
        .count();
    (label.group_by.len(), pred.group_by.len(), cnt)
}

/// `eval_having` → `(label_total, pred_total, cnt)`.
fn eval_having(pred: &Sql, label: &Sql) -> (usize, usize, usize) {
    let pred_total = usize::from(!pred.group_by.is_empty());
    let label_total = usize::from(!label.group_by.is_empty());
    let same_cols = pred
        .group_by
        .iter()
        .map(|c| &c.col)
        .eq(label.group_by.iter().map(|c| &c.col));
    let cnt = usize::from(
        pred_total == 1 && label_total == 1 && same_cols && pred.having == label.having,
    );
    (label_total, pred_total, cnt)
}

/// `eval_order` → `(label_total, pred_total, cnt)`.
fn eval_order(pred: &Sql, label: &Sql) -> (usize, usize, usize) {
    let pred_total = usize::from(pred.order_by.is_some());
    let label_total = usize::from(label.order_by.is_some());
    let cnt = usize::from(
        label.order_by.is_some()
            && pred.order_by == label.order_by
            && pred.limit.is_some() == label.limit.is_some(),
    );
    (label_total, pred_total, cnt)
}

/// `set(conds[1::2])`: the distinct items at odd positions, or Python's
/// `TypeError` when one is a condition holding a subquery (a dict does not
/// hash).
fn connector_set(conds: &[CondItem]) -> Result<Vec<&CondItem>, Raised> {
    let mut set: Vec<&CondItem> = Vec::new();
    for item in odds(conds) {
        if let CondItem::Unit(u) = item {
            if u.val1.sql().is_some() || u.val2.sql().is_some() {
                return Err(Raised::new("TypeError", "unhashable type: 'dict'"));
            }
        }
        if !set.contains(&item) {
            set.push(item);
        }
    }
    Ok(set)
}

/// `eval_and_or` → what the caller reads as `(label_total, pred_total,
/// cnt)`: on a difference the evaluator returns `len(pred), len(label)`.
fn eval_and_or(pred: &Sql, label: &Sql) -> Result<(usize, usize, usize), Raised> {
    let p = connector_set(&pred.where_)?;
    let l = connector_set(&label.where_)?;
    let same = p.len() == l.len() && p.iter().all(|x| l.contains(x));
    Ok(if same {
        (1, 1, 1)
    } else {
        (p.len(), l.len(), 0)
    })
}

/// `eval_IUEN` → `(label_total, pred_total, cnt)`.
fn eval_iuen(pred: &Sql, label: &Sql) -> Result<(usize, usize, usize), Raised> {
    let (mut lt, mut pt, mut cnt) = (0, 0, 0);
    for (p, l) in pred.set_ops().into_iter().zip(label.set_ops()) {
        lt += usize::from(l.is_some());
        pt += usize::from(p.is_some());
        if let (Some(p), Some(l)) = (p, l) {
            cnt += usize::from(exact_match(p, l)?.0);
        }
    }
    Ok((lt, pt, cnt))
}

/// `get_keywords`.
fn keywords(sql: &Sql) -> Vec<&str> {
    let mut k: Vec<&str> = Vec::new();
    let mut add = |w: &'static str, yes: bool| {
        if yes && !k.contains(&w) {
            k.push(w);
        }
    };
    add("where", !sql.where_.is_empty());
    add("group", !sql.group_by.is_empty());
    add("having", !sql.having.is_empty());
    if let Some((dir, _)) = &sql.order_by {
        add(if dir == "desc" { "desc" } else { "asc" }, true);
        add("order", true);
    }
    add("limit", sql.limit.is_some());
    add("except", sql.except.is_some());
    add("union", sql.union.is_some());
    add("intersect", sql.intersect.is_some());
    let lists = [&sql.from_conds, &sql.where_, &sql.having];
    let ors = lists
        .iter()
        .flat_map(|c| odds(c))
        .any(|i| matches!(i, CondItem::Op(o) if o == "or"));
    add("or", ors);
    let units: Vec<&CondItem> = lists.iter().flat_map(|c| evens(c)).collect();
    add("not", units.iter().any(|i| i.first_is_nonzero()));
    let op_is = |op: usize| units.iter().any(|i| i.unit().is_some_and(|u| u.op == op));
    add("in", op_is(8));
    add("like", op_is(9));
    k
}

/// `eval_keywords` → `(label_total, pred_total, cnt)`.
fn eval_keywords(pred: &Sql, label: &Sql) -> (usize, usize, usize) {
    let p = keywords(pred);
    let l = keywords(label);
    let cnt = p.iter().filter(|k| l.contains(k)).count();
    (l.len(), p.len(), cnt)
}

/// `eval_partial_match`: the ten scores, in [`PARTIAL_TYPES`] order.
pub(super) fn partial_match(pred: &Sql, label: &Sql) -> Result<[PartialScore; 10], Raised> {
    let (lt, pt, cnt, wo) = eval_sel(pred, label);
    let select = [scores(cnt, pt, lt), scores(wo, pt, lt)];
    let (lt, pt, cnt, wo) = eval_where(pred, label);
    let where_ = [scores(cnt, pt, lt), scores(wo, pt, lt)];
    let three = |(lt, pt, cnt): (usize, usize, usize)| scores(cnt, pt, lt);
    Ok([
        select[0],
        select[1],
        where_[0],
        where_[1],
        three(eval_group(pred, label)),
        three(eval_having(pred, label)),
        three(eval_order(pred, label)),
        three(eval_and_or(pred, label)?),
        three(eval_iuen(pred, label)?),
        three(eval_keywords(pred, label)),
    ])
}

/// `sorted(table_units)`, or Python's `TypeError` when two different
/// subqueries would have to be ordered. Subqueries sort first (`'sql' <
/// 'table_unit'`), tables by id.
fn sorted_units(units: &[TableUnit]) -> Result<Vec<&TableUnit>, Raised> {
    let subqueries: Vec<&TableUnit> = units
        .iter()
        .filter(|u| matches!(u, TableUnit::Sql(_)))
        .collect();
    if subqueries.iter().any(|s| *s != subqueries[0]) {
        return Err(Raised::new(
            "TypeError",
            "'<' not supported between instances of 'dict' and 'dict'",
        ));
    }
    let mut tables: Vec<&TableUnit> = units
        .iter()
        .filter(|u| matches!(u, TableUnit::Table(_)))
        .collect();
    tables.sort_by(|a, b| match (a, b) {
        (TableUnit::Table(x), TableUnit::Table(y)) => x.cmp(y),
        _ => std::cmp::Ordering::Equal,
    });
    Ok(subqueries.into_iter().chain(tables).collect())
}

/// `eval_exact_match`: the verdict and the partial scores it rests on.
pub(super) fn exact_match(pred: &Sql, label: &Sql) -> Result<(bool, [PartialScore; 10]), Raised> {
    let partial = partial_match(pred, label)?;
    if partial.iter().any(|s| s.f1 != 1) {
        return Ok((false, partial));
    }
    if label.from_units.is_empty() {
        return Ok((true, partial));
    }
    let l = sorted_units(&label.from_units)?;
    let p = sorted_units(&pred.from_units)?;
    Ok((l == p, partial))
}

#[cfg(test)]
mod tests {
    use super::super::parse::get_sql;
    use super::super::SpiderSchema;
    use super::*;

    fn schema() -> SpiderSchema {
        SpiderSchema::new([
            (
                "singer".to_string(),
                vec!["singer_id".into(), "name".into(), "age".into()],
            ),
            (
                "concert".to_string(),
                vec!["concert_id".into(), "singer_id".into()],
            ),
        ])
    }

    fn exact(pred: &str, gold: &str) -> bool {
        let s = schema();
        let mut p = get_sql(&s, pred).unwrap();
        let mut g = get_sql(&s, gold).unwrap();
        super::super::rebuild::rebuild_val(&mut p).unwrap();
        super::super::rebuild::rebuild_val(&mut g).unwrap();
        exact_match(&p, &g).unwrap().0
    }

    #[test]
    fn values_and_select_order_do_not_matter() {
        assert!(exact(
            "SELECT age, name FROM singer WHERE age > 30",
            "SELECT name, age FROM singer WHERE age > 20"
        ));
        assert!(!exact(
            "SELECT name FROM singer WHERE age > 30",
            "SELECT name FROM singer WHERE age < 30"
        ));
    }

    #[test]
    fn order_direction_and_limit_presence_matter() {
        let g = "SELECT name FROM singer ORDER BY age DESC LIMIT 1";
        assert!(exact(
            "SELECT name FROM singer ORDER BY age DESC LIMIT 5",
            g
        ));
        assert!(!exact("SELECT name FROM singer ORDER BY age LIMIT 1", g));
        assert!(!exact("SELECT name FROM singer ORDER BY age DESC", g));
    }

    #[test]
    fn and_or_totals_are_swapped_on_a_difference() {
        let s = schema();
        let p = get_sql(
            &s,
            "SELECT name FROM singer WHERE age > 1 AND age < 3 OR name = 'x'",
        )
        .unwrap();
        let g = get_sql(&s, "SELECT name FROM singer").unwrap();
        let scores = partial_match(&p, &g).unwrap();
        // pred has {and, or}, label {}: the evaluator reports label_total 2.
        assert_eq!((scores[7].label_total, scores[7].pred_total), (2, 0));
    }

    #[test]
    fn set_operations_are_matched_whole() {
        let g = "SELECT name FROM singer INTERSECT SELECT name FROM singer WHERE age > 1";
        assert!(exact(
            "SELECT name FROM singer INTERSECT SELECT name FROM singer WHERE age > 9",
            g
        ));
        assert!(!exact(
            "SELECT name FROM singer UNION SELECT name FROM singer WHERE age > 9",
            g
        ));
    }

    #[test]
    fn two_different_from_subqueries_cannot_be_sorted() {
        let s = schema();
        let g = get_sql(
            &s,
            "SELECT * FROM (SELECT name FROM singer) (SELECT age FROM singer)",
        )
        .unwrap();
        assert!(exact_match(&g, &g).is_err());
    }
}
