//! Mutated predictions: queries one or two mutations away from a gold,
//! drawn with a seed, for measuring how many wrong queries an evaluation
//! accepts. Two chained mutations and numeric offsets of 2 and 3 make
//! queries that distillation (one mutation, offset 1) never saw.

use crate::neighbors::{neighbors, NeighborOptions};
use sqlwitness_core::Value;

use crate::rng::Rng;
use crate::schema::DbSchema;

/// A mutated query and the mutations applied (kind: description).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mutant {
    pub sql: String,
    pub mutations: Vec<String>,
}

/// One mutant of `gold` drawn with `rng` (`None` when the gold has no
/// neighbour). With probability one half a second mutation is chained.
pub fn mutant(gold: &str, schema: &DbSchema, rng: &mut Rng) -> Option<Mutant> {
    let names = schema.names();
    let tv = |col: &str| {
        let mut vals: Vec<String> = Vec::new();
        for t in &schema.tables {
            for c in t
                .columns
                .iter()
                .filter(|c| c.name.eq_ignore_ascii_case(col))
            {
                for v in &c.originals {
                    if let Value::Text(s) = v {
                        if !vals.contains(s) {
                            vals.push(s.clone());
                        }
                    }
                }
            }
        }
        // A different choice of values than distillation's first ones.
        vals.reverse();
        vals
    };
    let opts = NeighborOptions {
        tables: &names,
        text_values: &tv,
        max_text_values: 2,
        numeric_deltas: &[2, 3],
        max_column_swaps: 3,
        ..NeighborOptions::default()
    };
    let first = neighbors(gold, &opts).ok()?;
    let n = rng.pick(&first)?.clone();
    let mut out = Mutant {
        sql: n.sql,
        mutations: vec![format!("{}: {}", n.kind, n.description)],
    };
    if rng.chance(0.5) {
        if let Some(m) = neighbors(&out.sql, &opts)
            .ok()
            .and_then(|ns| rng.pick(&ns).cloned())
        {
            out.sql = m.sql;
            out.mutations.push(format!("{}: {}", m.kind, m.description));
        }
    }
    Some(out)
}

/// A prediction file of gold queries mutated once or twice (`fuzz
/// --mutants`): one SQL a line in question order; a question without a
/// neighbour keeps its gold, one whose database is missing gets
/// `SELECT 1`. Returns the text and the counts `(mutated, kept)`.
pub fn mutant_predictions(
    bench: &sqlwitness_bench::Benchmark,
    seed: u64,
) -> (String, usize, usize) {
    let mut schemas: std::collections::BTreeMap<String, Option<DbSchema>> = Default::default();
    let mut lines = Vec::with_capacity(bench.questions.len());
    let (mut mutated, mut kept) = (0, 0);
    for q in &bench.questions {
        let schema = schemas.entry(q.db_id.clone()).or_insert_with(|| {
            bench
                .db_exists(&q.db_id)
                .then(|| crate::read_schema(&q.db_id, &bench.sqlite_path(&q.db_id)).ok())
                .flatten()
        });
        let Some(schema) = schema else {
            lines.push("SELECT 1".to_string());
            continue;
        };
        let mut rng = Rng::derived(seed, &format!("mutant {}", q.id));
        match mutant(&q.gold, schema, &mut rng) {
            Some(m) => {
                mutated += 1;
                lines.push(m.sql.replace(['\n', '\r'], " "));
            }
            None => {
                kept += 1;
                lines.push(q.gold.replace(['\n', '\r'], " "));
            }
        }
    }
    let mut text = lines.join("\n");
    text.push('\n');
    (text, mutated, kept)
}
