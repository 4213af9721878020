//! The per-question, per-engine outcome every score starts from.

use serde::{Deserialize, Serialize};
use sqlwitness_core::Verdict;

/// What a prediction earned on one engine.
///
/// Mapping from the report's verdicts: `match` and `match_tie` (`eval
/// --ties aware`: one of the gold's valid answers under ties) → `Correct`;
/// `mismatch`,
/// `pred_error`, `timeout` → `Incorrect`; `abstained` → `Abstained`;
/// `missing_db`, `gold_error`, `engine_error` → `Unscored` (the question
/// cannot be scored on that engine: no database, the gold itself fails, or
/// the engine could not run the queries).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Correct,
    Incorrect,
    Abstained,
    Unscored,
}

impl Outcome {
    /// The outcome of a verdict (see the type's documentation).
    pub fn from_verdict(verdict: Verdict) -> Outcome {
        match verdict {
            Verdict::Match | Verdict::MatchTie => Outcome::Correct,
            Verdict::Mismatch | Verdict::PredError | Verdict::Timeout => Outcome::Incorrect,
            Verdict::Abstained => Outcome::Abstained,
            Verdict::MissingDb | Verdict::GoldError | Verdict::EngineError => Outcome::Unscored,
        }
    }

    pub fn is_scored(self) -> bool {
        self != Outcome::Unscored
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_mapping() {
        use Verdict::*;
        assert_eq!(Outcome::from_verdict(Match), Outcome::Correct);
        assert_eq!(Outcome::from_verdict(MatchTie), Outcome::Correct);
        for v in [Mismatch, PredError, Timeout] {
            assert_eq!(Outcome::from_verdict(v), Outcome::Incorrect);
        }
        assert_eq!(Outcome::from_verdict(Abstained), Outcome::Abstained);
        for v in [MissingDb, GoldError, EngineError] {
            assert_eq!(Outcome::from_verdict(v), Outcome::Unscored);
        }
    }
}
