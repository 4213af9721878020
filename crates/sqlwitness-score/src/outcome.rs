//! The per-question, per-engine outcome every score starts from.

use serde::{Deserialize, Serialize};

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
    /// The outcome of a report verdict name (see the type's documentation);
    /// unknown names are `Unscored`.
    pub fn from_verdict(verdict: &str) -> Outcome {
        match verdict {
            "match" | "match_tie" => Outcome::Correct,
            "mismatch" | "pred_error" | "timeout" => Outcome::Incorrect,
            "abstained" => Outcome::Abstained,
            "missing_db" | "gold_error" | "engine_error" => Outcome::Unscored,
            _ => Outcome::Unscored,
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
        assert_eq!(Outcome::from_verdict("match"), Outcome::Correct);
        assert_eq!(Outcome::from_verdict("match_tie"), Outcome::Correct);
        for v in ["mismatch", "pred_error", "timeout"] {
            assert_eq!(Outcome::from_verdict(v), Outcome::Incorrect);
        }
        assert_eq!(Outcome::from_verdict("abstained"), Outcome::Abstained);
        assert_eq!(Outcome::from_verdict("missing_db"), Outcome::Unscored);
        assert_eq!(Outcome::from_verdict("gold_error"), Outcome::Unscored);
        assert_eq!(Outcome::from_verdict("engine_error"), Outcome::Unscored);
    }
}
