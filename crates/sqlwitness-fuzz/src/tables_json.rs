//! The foreign keys a benchmark states beside its databases (Spider's
//! `tables.json`), which the instances generated keep.

use std::collections::BTreeMap;

use crate::{ForeignKeySpec, FuzzError};

/// Foreign keys stated in the benchmark's `tables.json` (Spider layouts),
/// per `db_id`; none when the benchmark has no such file.
pub fn tables_json_keys(
    root: &std::path::Path,
) -> Result<BTreeMap<String, Vec<ForeignKeySpec>>, FuzzError> {
    let path = root.join("tables.json");
    let mut out = BTreeMap::new();
    if !path.is_file() {
        return Ok(out);
    }
    let schemas = sqlwitness_bench::load_tables_json(&path)?;
    for (db_id, t) in schemas {
        let col = |i: usize| -> Option<(String, String)> {
            let (ti, name) = t.column_names_original.get(i)?;
            let table = t.table_names_original.get(usize::try_from(*ti).ok()?)?;
            Some((table.clone(), name.clone()))
        };
        let keys: Vec<ForeignKeySpec> = t
            .foreign_keys
            .iter()
            .filter_map(|&(c, p)| {
                let (table, column) = col(c)?;
                let (parent, parent_column) = col(p)?;
                Some(ForeignKeySpec {
                    table,
                    columns: vec![column],
                    parent,
                    parent_columns: vec![parent_column],
                })
            })
            .collect();
        out.insert(db_id, keys);
    }
    Ok(out)
}
