//! A suite's options as the journal keeps them: the fuzz run's spec
//! ([`FuzzSpec`]) read into [`FuzzOptions`] and written back.

use sqlwitness_run::{FuzzSpec, RunError};

use crate::{FuzzOptions, Stress};

impl FuzzOptions {
    /// The options of `spec`, checked.
    pub fn from_spec(spec: &FuzzSpec) -> Result<FuzzOptions, RunError> {
        let defaults = FuzzOptions::default();
        Ok(FuzzOptions {
            seed: spec.seed,
            candidates: spec.candidates,
            batch: spec.batch,
            max_neighbors: spec.max_neighbors,
            limits: sqlwitness_core::QueryLimits {
                timeout: sqlwitness_run::positive_seconds("timeout_seconds", spec.timeout_seconds)?,
                max_rows: spec.max_rows,
                ..defaults.limits
            },
            stress: Stress::parse(&spec.stress.join(","))
                .map_err(|e| RunError::BadInput(format!("stress: {e}")))?,
        })
    }

    /// `spec` with these options (the inverse of
    /// [`FuzzOptions::from_spec`]).
    pub fn in_spec(&self, mut spec: FuzzSpec) -> FuzzSpec {
        spec.seed = self.seed;
        spec.candidates = self.candidates;
        spec.batch = self.batch;
        spec.max_neighbors = self.max_neighbors;
        spec.timeout_seconds = self.limits.timeout.as_secs_f64();
        spec.max_rows = self.limits.max_rows;
        spec.stress = self.stress.names();
        spec
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlwitness_run::InputFiles;

    fn fuzz_spec() -> FuzzSpec {
        let options = FuzzOptions {
            stress: Stress::parse("nulls,empty").unwrap(),
            ..Default::default()
        };
        options.in_spec(FuzzSpec {
            files: InputFiles {
                benchmark: "b".into(),
                ..InputFiles::default()
            },
            split: "dev".into(),
            allow_outside_links: false,
            databases: vec!["concert_singer".into()],
            reference: None,
            seed: 0,
            candidates: 0,
            batch: 0,
            max_neighbors: 0,
            timeout_seconds: 0.0,
            max_rows: 0,
            stress: Vec::new(),
        })
    }

    #[test]
    fn the_fuzz_options_survive_the_round_trip_through_the_spec() {
        let spec = fuzz_spec();
        let options = FuzzOptions::from_spec(&spec).unwrap();
        assert_eq!(options.in_spec(spec.clone()), spec);
        assert_eq!(spec.stress, ["nulls", "empty"]);
        let mut bad = spec;
        bad.timeout_seconds = -1.0;
        assert!(FuzzOptions::from_spec(&bad)
            .unwrap_err()
            .to_string()
            .contains("timeout_seconds"));
    }
}
