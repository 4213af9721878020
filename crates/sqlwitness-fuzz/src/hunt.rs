//! `eval --suite --hunt N`: for a prediction that passes the suite, keep
//! generating instances (the generator of the suite, with value pools from
//! the gold's and the prediction's literals) looking for one on which the
//! two differ — the "deeper search" of the issue; found instances are
//! shrunk to a witness like suite failures. The stream is derived from the
//! suite's seed, the `db_id` and the question id, so a hunt is
//! reproducible.

use std::path::Path;
use std::sync::atomic::Ordering;

use crate::neighbors::{gold_literals, GoldLiteral};
use sqlwitness_core::compare::CompareOptions;
use sqlwitness_core::{Database, QueryLimits};

use crate::generate::{write_instance, Pools};
use crate::judge::really_differs;
use crate::rng::Rng;
use crate::shrink::shrink_witness;
use crate::suite::{SuiteFailure, SuiteSet, SHRINK_TRIALS};
use crate::FuzzError;

/// What a hunt did.
#[derive(Debug, Clone, PartialEq)]
pub struct HuntOutcome {
    /// Instances generated (up to the one that differs).
    pub tried: usize,
    /// The first generated instance on which gold and prediction differ.
    pub failure: Option<SuiteFailure>,
}

/// The hunt's random stream for `question` of `db_id` under suite `seed`.
pub fn hunt_rng(seed: u64, db_id: &str, question: usize) -> Rng {
    Rng::derived(seed, &format!("hunt {db_id} q{question}"))
}

impl SuiteSet {
    /// Generates up to `n` instances of `db_id` (SQLite) and runs `gold`
    /// and `pred` (as sent to SQLite) on each until their results differ.
    /// `None` when the suite has no such database.
    #[allow(clippy::too_many_arguments)]
    pub fn hunt(
        &self,
        db_id: &str,
        question: usize,
        gold: &str,
        pred: &str,
        opts: &CompareOptions,
        limits: &QueryLimits,
        n: usize,
        shrink: bool,
    ) -> Result<Option<HuntOutcome>, FuzzError> {
        let Some(origin) = self.origins.get(db_id) else {
            return Ok(None);
        };
        let seed = &origin.seed;
        let schema = self.schema(db_id)?;
        let names = schema.names();
        let is_column = |c: &str| {
            names
                .iter()
                .any(|(_, cols)| cols.iter().any(|x| x.eq_ignore_ascii_case(c)))
        };
        let mut literals: Vec<GoldLiteral> = Vec::new();
        for sql in [gold, pred] {
            literals.extend(
                gold_literals(sql, &is_column, sqlwitness_sql::SQLITE_ONLY).unwrap_or_default(),
            );
        }
        literals.sort();
        literals.dedup();
        let pools = Pools::new(&schema, &literals);
        let mut rng = hunt_rng(*seed, db_id, question);
        let work = tempfile::tempdir().map_err(|e| FuzzError::io(Path::new("tempdir"), e))?;
        let engine = crate::files::instance_engine()?;
        let engine = engine.as_ref();
        let mut out = HuntOutcome {
            tried: 0,
            failure: None,
        };
        for i in 1..=n {
            let path = work.path().join(format!("hunt{i}.sqlite"));
            write_instance(&schema, &pools, origin.stress, &mut rng, &path)?;
            out.tried = i;
            let db = Database::new(db_id, &path);
            self.executions.fetch_add(2, Ordering::Relaxed);
            let g = engine.execute(&db, gold, limits);
            if g.is_err() {
                continue;
            }
            let p = engine.execute(&db, pred, limits);
            if really_differs(engine, &db, gold, &g, &p, opts, limits) {
                let reason = match (&g, &p) {
                    (Ok(g), Ok(p)) => sqlwitness_core::compare::compare(g, p, opts)
                        .reason
                        .map_or("values".to_string(), |r| r.as_str().to_string()),
                    (_, Err(e)) => format!("pred_error: {}", e.message),
                    _ => "values".into(),
                };
                let witness = if shrink && p.is_ok() {
                    shrink_witness(&schema, &path, gold, pred, opts, limits, SHRINK_TRIALS)
                        .ok()
                        .flatten()
                } else {
                    None
                };
                out.failure = Some(SuiteFailure {
                    instance: format!("hunt #{i} of {n} (random seed {seed}, question {question})"),
                    reason,
                    witness,
                });
                break;
            }
        }
        Ok(Some(out))
    }
}
