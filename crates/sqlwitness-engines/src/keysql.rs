//! The SQL that checks a loaded table's keys on its own server (a dump's
//! namespace read as a [`sqlwitness_core::Source`]): rows with a NULL key
//! column, rows repeating another's key, children without a parent. The
//! server's own equality decides; `quote` quotes a name in its dialect and
//! `int` makes an expression a 64-bit integer the driver reads as `i64`.

use sqlwitness_core::SourceTable;

pub(crate) struct KeySql {
    pub quote: fn(&str) -> String,
    pub int: fn(&str) -> String,
}

impl KeySql {
    fn names(&self, table: &SourceTable, cols: &[usize]) -> Vec<String> {
        cols.iter()
            .map(|&c| (self.quote)(&table.columns[c].name))
            .collect()
    }

    /// The queries counting rows with a NULL in `cols`, and rows repeating
    /// another's `cols`, of `table` (`qualified`: its quoted name).
    pub fn violations(
        &self,
        qualified: &str,
        table: &SourceTable,
        cols: &[usize],
    ) -> (String, String) {
        let names = self.names(table, cols);
        let any_null = names
            .iter()
            .map(|n| format!("{n} IS NULL"))
            .collect::<Vec<_>>()
            .join(" OR ");
        let nulls = format!(
            "SELECT {} FROM {qualified} WHERE {any_null}",
            (self.int)("COUNT(*)")
        );
        let dups = format!(
            "SELECT {} FROM (SELECT COUNT(*) n FROM {qualified} WHERE NOT ({any_null}) \
             GROUP BY {} HAVING COUNT(*) > 1) d",
            (self.int)("COALESCE(SUM(n - 1), 0)"),
            names.join(", ")
        );
        (nulls, dups)
    }

    /// The query counting rows of `child` whose `cols` are all set and
    /// match no row of `parent` on `pcols`.
    pub fn orphans(
        &self,
        (child_q, child): (&str, &SourceTable),
        cols: &[usize],
        (parent_q, parent): (&str, &SourceTable),
        pcols: &[usize],
    ) -> String {
        let c = self.names(child, cols);
        let p = self.names(parent, pcols);
        let not_null = c
            .iter()
            .map(|n| format!("c.{n} IS NOT NULL"))
            .collect::<Vec<_>>()
            .join(" AND ");
        let matches = c
            .iter()
            .zip(&p)
            .map(|(c, p)| format!("p.{p} = c.{c}"))
            .collect::<Vec<_>>()
            .join(" AND ");
        format!(
            "SELECT {} FROM {child_q} c WHERE {not_null} \
             AND NOT EXISTS (SELECT 1 FROM {parent_q} p WHERE {matches})",
            (self.int)("COUNT(*)")
        )
    }
}
