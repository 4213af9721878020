//! `Evaluator.eval_hardness` on the parsed gold (before it is rebuilt):
//! the same counts as [`crate::spider_hardness`] reads from sqlparser's
//! tree, here read from the evaluator's own structure.

use super::ast::{evens, odds, CondItem, Sql};
use super::Raised;
use crate::Hardness;

/// The ON, WHERE and HAVING condition lists.
fn condition_lists(sql: &Sql) -> [&Vec<CondItem>; 3] {
    [&sql.from_conds, &sql.where_, &sql.having]
}

/// `count_component1`.
fn component1(sql: &Sql) -> usize {
    let mut n = usize::from(!sql.where_.is_empty())
        + usize::from(!sql.group_by.is_empty())
        + usize::from(sql.order_by.is_some())
        + usize::from(sql.limit.is_some());
    n += sql.from_units.len().saturating_sub(1);
    for conds in condition_lists(sql) {
        n += odds(conds)
            .filter(|i| matches!(i, CondItem::Op(o) if o == "or"))
            .count();
        n += evens(conds)
            .filter(|i| i.unit().is_some_and(|u| u.op == 9))
            .count();
    }
    n
}

/// `count_component2`: `len(get_nestedSQL(sql))`. A connector at an even
/// position is indexed `[3]`: Python's `IndexError`.
fn component2(sql: &Sql) -> Result<usize, Raised> {
    let mut n = 0;
    for conds in condition_lists(sql) {
        for item in evens(conds) {
            let u = item.unit().ok_or_else(Raised::index)?;
            n += usize::from(u.val1.sql().is_some()) + usize::from(u.val2.sql().is_some());
        }
    }
    Ok(n + sql.set_ops().iter().flatten().count())
}

/// `count_others`, its aggregate count reading `unit[0] != 0` as the
/// evaluator does (a condition's NOT flag; a connector, always).
fn others(sql: &Sql) -> usize {
    let mut aggs = sql.select.iter().filter(|(a, _)| *a != 0).count();
    aggs += evens(&sql.where_).filter(|i| i.first_is_nonzero()).count();
    aggs += sql.group_by.iter().filter(|c| c.agg != 0).count();
    if let Some((_, units)) = &sql.order_by {
        aggs += units.iter().filter(|v| v.col1.agg != 0).count();
        aggs += units
            .iter()
            .filter(|v| v.col2.as_ref().is_some_and(|c| c.agg != 0))
            .count();
    }
    aggs += sql.having.iter().filter(|i| i.first_is_nonzero()).count();
    usize::from(aggs > 1)
        + usize::from(sql.select.len() > 1)
        + usize::from(sql.where_.len() > 1)
        + usize::from(sql.group_by.len() > 1)
}

/// `eval_hardness`.
pub(super) fn hardness(sql: &Sql) -> Result<Hardness, Raised> {
    let c1 = component1(sql);
    let c2 = component2(sql)?;
    let o = others(sql);
    Ok(if c1 <= 1 && o == 0 && c2 == 0 {
        Hardness::Easy
    } else if (o <= 2 && c1 <= 1 && c2 == 0) || (c1 <= 2 && o < 2 && c2 == 0) {
        Hardness::Medium
    } else if (o > 2 && c1 <= 2 && c2 == 0)
        || (2 < c1 && c1 <= 3 && o <= 2 && c2 == 0)
        || (c1 <= 1 && o == 0 && c2 <= 1)
    {
        Hardness::Hard
    } else {
        Hardness::Extra
    })
}

#[cfg(test)]
mod tests {
    use super::super::parse::get_sql;
    use super::super::SpiderSchema;
    use super::*;

    fn level(sql: &str) -> Hardness {
        let s = SpiderSchema::new([
            (
                "singer".to_string(),
                vec!["singer_id".into(), "name".into(), "age".into()],
            ),
            (
                "concert".to_string(),
                vec!["concert_id".into(), "singer_id".into()],
            ),
        ]);
        hardness(&get_sql(&s, sql).unwrap()).unwrap()
    }

    #[test]
    fn levels_as_the_evaluator_counts_them() {
        assert_eq!(level("SELECT count(*) FROM singer"), Hardness::Easy);
        assert_eq!(
            level("SELECT name, age FROM singer WHERE age > 1"),
            Hardness::Medium
        );
        assert_eq!(
            level("SELECT name FROM singer WHERE singer_id NOT IN (SELECT singer_id FROM concert)"),
            Hardness::Hard
        );
        assert_eq!(
            level(
                "SELECT name FROM singer WHERE age > 1 UNION SELECT name FROM singer ORDER BY age"
            ),
            Hardness::Hard
        );
        assert_eq!(
            level("SELECT name FROM singer WHERE singer_id IN (SELECT singer_id FROM concert) UNION SELECT name FROM singer"),
            Hardness::Extra
        );
        // Each connector in HAVING counts as an aggregate, the aggregates
        // compared there do not.
        assert_eq!(
            level("SELECT name FROM singer GROUP BY name HAVING count(*) > 1 AND max(age) > 2"),
            Hardness::Easy
        );
        assert_eq!(
            level("SELECT name FROM singer GROUP BY name HAVING count(*) > 1 AND max(age) > 2 OR age = 1"),
            Hardness::Medium
        );
    }
}
