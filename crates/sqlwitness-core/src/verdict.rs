//! The verdict vocabulary: what one question earned on one engine.

use serde::{Deserialize, Serialize};

/// The verdict for one question on one engine. Precedence when several
/// apply: `missing_db`, then `engine_error` (the engine failed running the
/// gold or the prediction: nobody's answer is known), then `gold_error`,
/// then `abstained`, then `timeout` (the prediction ran out of time), then
/// `pred_error`, then `match`/`mismatch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Match,
    Mismatch,
    GoldError,
    PredError,
    Abstained,
    MissingDb,
    Timeout,
    /// `eval --ties aware`: the strict comparison fails, but the gold's
    /// answer is not unique (its LIMIT cuts through ties) and the
    /// prediction returns one of its valid answers.
    MatchTie,
    /// The engine could not run the gold or the prediction: the server
    /// could not be reached or dropped the connection even after retries
    /// (error class `connection`), the database is unusable (a link
    /// outside the benchmark, an empty, truncated or corrupt file) or was
    /// not migrated to this engine, or sqlwitness itself failed on the
    /// question. Never the model's fault: left out of every accuracy, and
    /// the run exits non-zero.
    EngineError,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Match => "match",
            Verdict::Mismatch => "mismatch",
            Verdict::GoldError => "gold_error",
            Verdict::PredError => "pred_error",
            Verdict::Abstained => "abstained",
            Verdict::MissingDb => "missing_db",
            Verdict::Timeout => "timeout",
            Verdict::MatchTie => "match_tie",
            Verdict::EngineError => "engine_error",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Verdict {
    /// The verdict named `name` (`match`, `pred_error` …).
    pub fn parse(name: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == name)
    }

    /// Every verdict, in the order reports list them.
    pub const ALL: [Verdict; 9] = [
        Verdict::Match,
        Verdict::MatchTie,
        Verdict::Mismatch,
        Verdict::PredError,
        Verdict::Timeout,
        Verdict::Abstained,
        Verdict::GoldError,
        Verdict::MissingDb,
        Verdict::EngineError,
    ];
}
