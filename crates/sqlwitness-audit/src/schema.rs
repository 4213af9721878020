//! Schema facts read from the SQLite file itself, so they hold for any
//! benchmark: `pragma table_info`, `index_list`, `index_info`,
//! `foreign_key_list`.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};
use sqlwitness_sql::{ForeignKey, SchemaInfo, TableInfo};

use crate::AuditError;

/// Reads tables, columns, primary keys, unique constraints/indexes and
/// foreign keys of the SQLite database at `path` (opened read-only).
pub fn read_schema(path: &Path) -> Result<SchemaInfo, AuditError> {
    let err = |source| AuditError::Sqlite {
        path: path.to_path_buf(),
        source,
    };
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(err)?;
    let names: Vec<String> = {
        let mut st = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            .map_err(err)?;
        let rows = st.query_map([], |r| r.get::<_, String>(0)).map_err(err)?;
        rows.collect::<Result<_, _>>().map_err(err)?
    };
    let mut tables = Vec::new();
    for name in names {
        let q = quote(&name);
        let mut cols: Vec<(i64, String, String)> = Vec::new();
        let mut pk: Vec<(i64, String)> = Vec::new();
        {
            let mut st = conn
                .prepare(&format!("PRAGMA table_info({q})"))
                .map_err(err)?;
            let mut rows = st.query([]).map_err(err)?;
            while let Some(r) = rows.next().map_err(err)? {
                let cid: i64 = r.get(0).map_err(err)?;
                let col: String = r.get(1).map_err(err)?;
                let decl: Option<String> = r.get(2).map_err(err)?;
                let pkpos: i64 = r.get(5).map_err(err)?;
                if pkpos > 0 {
                    pk.push((pkpos, col.clone()));
                }
                cols.push((cid, col, decl.unwrap_or_default()));
            }
        }
        pk.sort();
        let mut uniques = Vec::new();
        {
            let mut st = conn
                .prepare(&format!("PRAGMA index_list({q})"))
                .map_err(err)?;
            let idx: Vec<(String, i64)> = st
                .query_map([], |r| Ok((r.get::<_, String>(1)?, r.get::<_, i64>(2)?)))
                .map_err(err)?
                .collect::<Result<_, _>>()
                .map_err(err)?;
            for (iname, unique) in idx {
                if unique == 0 {
                    continue;
                }
                let mut st = conn
                    .prepare(&format!("PRAGMA index_info({})", quote(&iname)))
                    .map_err(err)?;
                let icols: Vec<Option<String>> = st
                    .query_map([], |r| r.get::<_, Option<String>>(2))
                    .map_err(err)?
                    .collect::<Result<_, _>>()
                    .map_err(err)?;
                // Expression indexes name no column: they prove nothing here.
                if let Some(icols) = icols.into_iter().collect::<Option<Vec<String>>>() {
                    uniques.push(icols);
                }
            }
        }
        let mut fks: Vec<ForeignKey> = Vec::new();
        {
            let mut st = conn
                .prepare(&format!("PRAGMA foreign_key_list({q})"))
                .map_err(err)?;
            let rows: Vec<(i64, String, String, Option<String>)> = st
                .query_map([], |r| Ok((r.get(0)?, r.get(2)?, r.get(3)?, r.get(4)?)))
                .map_err(err)?
                .collect::<Result<_, _>>()
                .map_err(err)?;
            for (id, table, from, to) in rows {
                match fks.get_mut(id as usize) {
                    Some(fk) => {
                        fk.columns.push(from);
                        fk.ref_columns.push(to.unwrap_or_default());
                    }
                    None => fks.push(ForeignKey {
                        columns: vec![from],
                        ref_table: table,
                        ref_columns: vec![to.unwrap_or_default()],
                    }),
                }
            }
        }
        tables.push(TableInfo {
            name,
            types: cols.iter().map(|(_, _, t)| t.clone()).collect(),
            columns: cols.into_iter().map(|(_, c, _)| c).collect(),
            primary_key: pk.into_iter().map(|(_, c)| c).collect(),
            uniques,
            foreign_keys: fks,
        });
    }
    Ok(SchemaInfo::new(tables))
}

pub(crate) fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}
