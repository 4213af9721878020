//! What `evaluate()` does to both structures before it compares them:
//! `rebuild_sql_val` (condition values dropped, subqueries kept) and
//! `rebuild_sql_col` (a column that has a foreign-key partner in a FROM
//! table is replaced by the smallest id of its key group; DISTINCT flags
//! cleared), with their reach and their failures.
//!
//! Their reach is the evaluator's: values are dropped in ON, WHERE and
//! HAVING of the query, of its set operations and of the subqueries in
//! those conditions, but not in FROM subqueries; columns are rebuilt in the
//! query and its set operations only (with the FROM tables of the outer
//! query), not in any subquery. Both unpack every even item of a condition
//! list as a condition, so a connector at an even position (two conditions
//! side by side earlier in the list) raises Python's `ValueError`.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::ast::{ColUnit, CondItem, Sql, TableUnit, Val, ValUnit};
use super::{Raised, SpiderSchema};

/// `build_foreign_key_map`: each column of a foreign key → the smallest
/// column index of its key group, as evaluator column ids.
#[derive(Debug, Clone, Default)]
pub struct ForeignKeyMap {
    map: HashMap<String, String>,
}

impl ForeignKeyMap {
    /// From one `tables.json` entry: `table_names_original`,
    /// `column_names_original` and `foreign_keys`. Key pairs join the first
    /// group holding either column (groups are never merged), and a column
    /// in two groups maps as the later group says, as in the evaluator.
    pub fn new(
        tables: &[String],
        columns: &[(i64, String)],
        foreign_keys: &[(usize, usize)],
    ) -> Result<ForeignKeyMap, Raised> {
        let mut ids = Vec::with_capacity(columns.len());
        for (t, c) in columns {
            if *t >= 0 {
                let table = tables.get(*t as usize).ok_or_else(Raised::index)?;
                ids.push(format!("__{}.{}__", table.to_lowercase(), c.to_lowercase()));
            } else {
                ids.push("__all__".to_string());
            }
        }
        let mut groups: Vec<BTreeSet<usize>> = Vec::new();
        for &(a, b) in foreign_keys {
            let at = match groups.iter().position(|g| g.contains(&a) || g.contains(&b)) {
                Some(at) => at,
                None => {
                    groups.push(BTreeSet::new());
                    groups.len() - 1
                }
            };
            groups[at].extend([a, b]);
        }
        let mut map = HashMap::new();
        for group in &groups {
            let first = *group.first().expect("a group holds a pair");
            let target = ids.get(first).ok_or_else(Raised::index)?;
            for &i in group {
                let from = ids.get(i).ok_or_else(Raised::index)?;
                map.insert(from.clone(), target.clone());
            }
        }
        Ok(ForeignKeyMap { map })
    }
}

/// `rebuild_sql_val`.
pub(super) fn rebuild_val(sql: &mut Sql) -> Result<(), Raised> {
    rebuild_condition_val(&mut sql.from_conds)?;
    rebuild_condition_val(&mut sql.having)?;
    rebuild_condition_val(&mut sql.where_)?;
    for s in [&mut sql.intersect, &mut sql.except, &mut sql.union]
        .into_iter()
        .flatten()
    {
        rebuild_val(s)?;
    }
    Ok(())
}

/// A connector where a condition is unpacked: Python's `ValueError`.
fn unpack_error() -> Raised {
    Raised::value("not enough values to unpack (expected 5)")
}

fn rebuild_condition_val(conds: &mut [CondItem]) -> Result<(), Raised> {
    for item in conds.iter_mut().step_by(2) {
        let CondItem::Unit(u) = item else {
            return Err(unpack_error());
        };
        for v in [&mut u.val1, &mut u.val2] {
            match v {
                Val::Sql(s) => rebuild_val(s)?,
                _ => *v = Val::None,
            }
        }
    }
    Ok(())
}

/// `build_valid_col_units`: the columns of the tables (not subqueries) in
/// `units`.
pub(super) fn valid_columns(units: &[TableUnit], schema: &SpiderSchema) -> HashSet<String> {
    let prefixes: HashSet<&str> = units
        .iter()
        .filter_map(|u| match u {
            TableUnit::Table(id) => Some(&id[..id.len().saturating_sub(2)]),
            TableUnit::Sql(_) => None,
        })
        .collect();
    schema
        .id_map
        .values()
        .filter(|v| v.find('.').is_some_and(|dot| prefixes.contains(&v[..dot])))
        .cloned()
        .collect()
}

/// `rebuild_sql_col`.
pub(super) fn rebuild_col(
    valid: &HashSet<String>,
    sql: &mut Sql,
    kmap: &ForeignKeyMap,
) -> Result<(), Raised> {
    let col = |c: &mut ColUnit| {
        if valid.contains(&c.col) {
            if let Some(to) = kmap.map.get(&c.col) {
                c.col = to.clone();
            }
        }
        c.distinct = None;
    };
    let val_unit = |v: &mut ValUnit| {
        col(&mut v.col1);
        if let Some(c) = &mut v.col2 {
            col(c);
        }
    };
    sql.select_distinct = None;
    sql.select.iter_mut().for_each(|(_, v)| val_unit(v));
    for conds in [&mut sql.from_conds, &mut sql.where_, &mut sql.having] {
        for item in conds.iter_mut().step_by(2) {
            let CondItem::Unit(u) = item else {
                return Err(unpack_error());
            };
            val_unit(&mut u.val_unit);
        }
    }
    sql.group_by.iter_mut().for_each(col);
    if let Some((_, units)) = &mut sql.order_by {
        units.iter_mut().for_each(val_unit);
    }
    for s in [&mut sql.intersect, &mut sql.except, &mut sql.union]
        .into_iter()
        .flatten()
    {
        rebuild_col(valid, s, kmap)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::parse::get_sql;
    use super::*;

    fn schema() -> SpiderSchema {
        SpiderSchema::new([
            (
                "singer".to_string(),
                vec!["singer_id".into(), "name".into()],
            ),
            (
                "concert".to_string(),
                vec!["concert_id".into(), "singer_id".into()],
            ),
        ])
    }

    fn kmap() -> ForeignKeyMap {
        let tables = ["singer".to_string(), "concert".to_string()];
        let columns = [
            (-1, "*".to_string()),
            (0, "Singer_ID".to_string()),
            (0, "Name".to_string()),
            (1, "Concert_ID".to_string()),
            (1, "Singer_ID".to_string()),
        ];
        ForeignKeyMap::new(&tables, &columns, &[(4, 1)]).unwrap()
    }

    #[test]
    fn foreign_keys_map_to_the_smallest_index_of_their_group() {
        let k = kmap();
        assert_eq!(k.map["__concert.singer_id__"], "__singer.singer_id__");
        assert_eq!(k.map["__singer.singer_id__"], "__singer.singer_id__");
        assert_eq!(k.map.len(), 2);
        // Groups are not merged: (1,2) then (3,4) then (2,3) joins the first.
        let cols: Vec<(i64, String)> = (0..5).map(|i| (0, format!("c{i}"))).collect();
        let k = ForeignKeyMap::new(&["t".into()], &cols, &[(1, 2), (3, 4), (2, 3)]).unwrap();
        assert_eq!(k.map["__t.c3__"], "__t.c3__");
        assert_eq!(k.map["__t.c4__"], "__t.c3__");
        assert_eq!(k.map["__t.c2__"], "__t.c1__");
    }

    #[test]
    fn columns_of_joined_tables_follow_their_keys() {
        let s = schema();
        let mut sql = get_sql(
            &s,
            "SELECT DISTINCT T2.singer_id FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T2.singer_id IN (SELECT singer_id FROM concert WHERE concert_id > 3)",
        )
        .unwrap();
        let valid = valid_columns(&sql.from_units, &s);
        rebuild_val(&mut sql).unwrap();
        rebuild_col(&valid, &mut sql, &kmap()).unwrap();
        assert_eq!(sql.select_distinct, None);
        assert_eq!(sql.select[0].1.col1.col, "__singer.singer_id__");
        let CondItem::Unit(w) = &sql.where_[0] else {
            panic!()
        };
        // The subquery keeps its columns and flags but loses its values.
        let inner = w.val1.sql().unwrap();
        assert_eq!(inner.select[0].1.col1.col, "__concert.singer_id__");
        assert_eq!(inner.select[0].1.col1.distinct, Some(false));
        let CondItem::Unit(iw) = &inner.where_[0] else {
            panic!()
        };
        assert_eq!(iw.val1, Val::None);
    }

    #[test]
    fn a_connector_at_an_even_position_raises() {
        let s = schema();
        let mut sql = get_sql(
            &s,
            "SELECT name FROM singer WHERE name = 1 name = 2 AND name = 3",
        )
        .unwrap();
        assert!(rebuild_val(&mut sql).is_err());
    }
}
