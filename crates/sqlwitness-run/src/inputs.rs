//! The per-engine inputs of a dialect run, read and checked before
//! anything runs: `--gold ENGINE=FILE`, `--pred [ENGINE=]FILE`,
//! `--reference ENGINE|none`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

use sqlwitness_bench::{load_engine_golds, load_predictions, Benchmark, Prediction};
use sqlwitness_core::EngineKind;

use crate::RunError;

/// Predictions by question id.
type ById = Vec<Option<Prediction>>;

/// What [`dialect_inputs`] read.
#[derive(Default)]
pub struct DialectInputs {
    /// The prediction file for every engine, and its predictions.
    pub pred_path: Option<PathBuf>,
    pub predictions: Option<ById>,
    /// Each engine's own prediction file.
    pub engine_predictions: BTreeMap<EngineKind, (PathBuf, ById)>,
    /// Where each engine's dialect gold came from.
    pub gold_sources: BTreeMap<EngineKind, String>,
}

/// `ENGINE=FILE` as `(engine, file)`; `None` when the text before `=` names
/// no engine (then the whole is a file name).
fn engine_file(flag: &str, spec: &str) -> Result<Option<(EngineKind, PathBuf)>, RunError> {
    let Some((name, file)) = spec.split_once('=') else {
        return Ok(None);
    };
    let Some(kind) = EngineKind::parse(name) else {
        return Ok(None);
    };
    if file.trim().is_empty() {
        return Err(RunError::BadInput(format!(
            "{flag} `{spec}`: no file after `=`"
        )));
    }
    Ok(Some((kind, PathBuf::from(file.trim()))))
}

fn by_id(path: &std::path::Path, bench: &Benchmark) -> Result<ById, RunError> {
    let mut by_id: ById = vec![None; bench.questions.len()];
    for pred in load_predictions(path, bench)? {
        let id = pred.id;
        by_id[id] = Some(pred);
    }
    Ok(by_id)
}

/// The input files of a run beside its benchmark, by role: the prediction
/// file for every engine, each engine's own prediction file, each engine's
/// own gold file, a test-suite folder. Paths as given (relative ones are
/// resolved where the run runs).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputFiles {
    /// The benchmark folder.
    pub benchmark: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predictions: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub engine_predictions: BTreeMap<EngineKind, PathBuf>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub golds: BTreeMap<EngineKind, PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<PathBuf>,
}

impl InputFiles {
    /// The files of `benchmark`, `--gold ENGINE=FILE` (each) and `--pred
    /// [ENGINE=]FILE` (one `FILE` for every engine, and/or `ENGINE=FILE`
    /// each); a later file of the same engine replaces an earlier one.
    pub fn parse(
        benchmark: PathBuf,
        golds: &[String],
        preds: &[String],
    ) -> Result<InputFiles, RunError> {
        let mut out = InputFiles {
            benchmark,
            ..InputFiles::default()
        };
        for spec in golds {
            let (kind, path) = engine_file("--gold", spec)?.ok_or_else(|| {
                RunError::BadInput(format!("--gold `{spec}`: expected ENGINE=FILE"))
            })?;
            out.golds.insert(kind, path);
        }
        for spec in preds {
            match engine_file("--pred", spec)? {
                Some((kind, path)) => {
                    out.engine_predictions.insert(kind, path);
                }
                None if out.predictions.is_none() => out.predictions = Some(PathBuf::from(spec)),
                None => {
                    return Err(RunError::BadInput(format!(
                        "--pred `{spec}`: one file for every engine is given already"
                    )))
                }
            }
        }
        Ok(out)
    }
}

/// Applies each engine's own gold file to the questions (over the dialect
/// golds the benchmark carries) and reads the prediction files of `files`;
/// an engine of `engines` left without predictions while some engine has
/// its own is an error.
pub fn dialect_inputs(
    bench: &mut Benchmark,
    files: &InputFiles,
    engines: &[EngineKind],
) -> Result<DialectInputs, RunError> {
    let mut out = DialectInputs {
        gold_sources: bench.gold_sources.clone(),
        ..DialectInputs::default()
    };
    for (&kind, path) in &files.golds {
        let file = load_engine_golds(path, bench)?;
        for (q, g) in bench.questions.iter_mut().zip(file) {
            match g {
                Some(g) => q.golds.insert(kind, g),
                None => q.golds.remove(&kind),
            };
        }
        out.gold_sources.insert(kind, path.display().to_string());
    }
    for (&kind, path) in &files.engine_predictions {
        let loaded = by_id(path, bench)?;
        out.engine_predictions.insert(kind, (path.clone(), loaded));
    }
    if let Some(path) = &files.predictions {
        out.predictions = Some(by_id(path, bench)?);
        out.pred_path = Some(path.clone());
    }
    if out.predictions.is_none() && !out.engine_predictions.is_empty() {
        let own = |k: EngineKind| sqlwitness_dialect::own_or_parent(&out.engine_predictions, k);
        if let Some(k) = engines.iter().find(|k| own(**k).is_none()) {
            return Err(RunError::BadInput(format!(
                "--pred: no predictions for engine {k}; give --pred {k}=FILE or one file for every engine"
            )));
        }
    }
    Ok(out)
}

/// `--reference ENGINE|none`; by default the reference engine (SQLite)
/// when it runs beside another engine.
pub fn reference_engine(
    given: Option<&str>,
    engines: &[EngineKind],
) -> Result<Option<EngineKind>, RunError> {
    match given.map(str::trim) {
        Some("none") => Ok(None),
        Some(name) => {
            let kind = EngineKind::parse(name).ok_or_else(|| {
                RunError::BadInput(format!(
                    "--reference: unknown engine `{name}` (expected {} or none)",
                    EngineKind::names()
                ))
            })?;
            if !engines.contains(&kind) {
                return Err(RunError::BadInput(format!(
                    "--reference {kind}: not one of --engines"
                )));
            }
            Ok(Some(kind))
        }
        None => Ok(
            (engines.len() > 1 && engines.contains(&EngineKind::REFERENCE))
                .then_some(EngineKind::REFERENCE),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlwitness_core::builtin_engines::*;

    #[test]
    fn the_reference_defaults_to_sqlite_beside_a_server() {
        assert_eq!(
            reference_engine(None, &[Sqlite, Mysql]).unwrap(),
            Some(Sqlite)
        );
        assert_eq!(reference_engine(None, &[Sqlite]).unwrap(), None);
        assert_eq!(reference_engine(None, &[Mysql, Mariadb]).unwrap(), None);
        assert_eq!(
            reference_engine(Some("none"), &[Sqlite, Mysql]).unwrap(),
            None
        );
        assert_eq!(
            reference_engine(Some("mysql"), &[Sqlite, Mysql]).unwrap(),
            Some(Mysql)
        );
        assert!(reference_engine(Some("postgres"), &[Sqlite, Mysql]).is_err());
        assert!(reference_engine(Some("oracle"), &[Sqlite]).is_err());
    }

    #[test]
    fn engine_files_and_plain_files() {
        assert_eq!(
            engine_file("--pred", "mysql=p.sql").unwrap(),
            Some((Mysql, PathBuf::from("p.sql")))
        );
        assert_eq!(engine_file("--pred", "a=b.sql").unwrap(), None);
        assert_eq!(engine_file("--pred", "p.sql").unwrap(), None);
        assert!(engine_file("--pred", "mysql=").is_err());
    }
}
