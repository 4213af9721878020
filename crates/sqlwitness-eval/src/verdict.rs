//! The verdict of one question on one engine, from what happened to the
//! gold and to the prediction: the precedence as one pure function.
//!
//! `missing_db` (no database) before `engine_error` (the engine could not
//! run the gold, the database is unusable or not migrated to it: nobody's
//! answer is known) before `gold_error` before
//! `abstained` before the prediction's own outcome: `engine_error` (the
//! engine failed running it), `timeout`, `pred_error`, then
//! `match` / `match_tie` / `mismatch`.

use sqlwitness_core::{ErrorClass, Verdict};

/// What happened to the gold on the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoldRun {
    /// The database cannot be used on this engine: its file is unusable
    /// (refused link, empty, corrupt …) or its migration failed ("not
    /// migrated").
    Unavailable,
    /// The gold failed with this class.
    Failed(ErrorClass),
    Ran,
}

/// What happened to the prediction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PredRun {
    /// The model gave no SQL.
    Abstained,
    /// The prediction was refused before it ran (unreadable line, over the
    /// length limit, the guard).
    Refused,
    /// It ran and failed with this class.
    Failed(ErrorClass),
    /// Both ran: the comparison said `equal`; `tie`: the prediction is one
    /// of the gold's valid answers under ties (`--ties aware`).
    Compared { equal: bool, tie: bool },
}

/// The verdict (see the module documentation for the precedence). `pred`
/// is `None` when the prediction was not reached (the gold decided).
pub fn decide(db_exists: bool, gold: GoldRun, pred: Option<PredRun>) -> Verdict {
    if !db_exists {
        return Verdict::MissingDb;
    }
    match gold {
        GoldRun::Failed(ErrorClass::Connection) | GoldRun::Unavailable => {
            return Verdict::EngineError
        }
        GoldRun::Failed(_) => return Verdict::GoldError,
        GoldRun::Ran => {}
    }
    match pred {
        None => Verdict::GoldError,
        Some(PredRun::Abstained) => Verdict::Abstained,
        Some(PredRun::Refused) => Verdict::PredError,
        Some(PredRun::Failed(ErrorClass::Connection)) => Verdict::EngineError,
        Some(PredRun::Failed(ErrorClass::Timeout)) => Verdict::Timeout,
        Some(PredRun::Failed(_)) => Verdict::PredError,
        Some(PredRun::Compared { equal: true, .. }) => Verdict::Match,
        Some(PredRun::Compared { tie: true, .. }) => Verdict::MatchTie,
        Some(PredRun::Compared { .. }) => Verdict::Mismatch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ErrorClass::*;

    const EQUAL: PredRun = PredRun::Compared {
        equal: true,
        tie: false,
    };
    const DIFFER: PredRun = PredRun::Compared {
        equal: false,
        tie: false,
    };

    #[test]
    fn a_missing_database_decides_before_anything() {
        for gold in [
            GoldRun::Ran,
            GoldRun::Failed(Connection),
            GoldRun::Unavailable,
        ] {
            assert_eq!(decide(false, gold, Some(EQUAL)), Verdict::MissingDb);
        }
    }

    #[test]
    fn the_gold_decides_before_the_prediction() {
        assert_eq!(
            decide(true, GoldRun::Failed(Connection), Some(EQUAL)),
            Verdict::EngineError
        );
        for class in [Syntax, Timeout, UndefinedColumn, Other] {
            assert_eq!(
                decide(true, GoldRun::Failed(class), Some(PredRun::Abstained)),
                Verdict::GoldError
            );
        }
        // A database that is not on the engine (not migrated, unusable) is
        // nobody's answer; so is one the engine cannot read (SQLite's
        // SQLITE_CORRUPT, SQLITE_NOTADB are of class `connection`).
        assert_eq!(
            decide(true, GoldRun::Unavailable, None),
            Verdict::EngineError
        );
    }

    #[test]
    fn the_prediction_s_own_outcome() {
        let on = |p| decide(true, GoldRun::Ran, Some(p));
        assert_eq!(on(PredRun::Abstained), Verdict::Abstained);
        assert_eq!(on(PredRun::Refused), Verdict::PredError);
        // A server fault is never charged to the model.
        assert_eq!(on(PredRun::Failed(Connection)), Verdict::EngineError);
        assert_eq!(on(PredRun::Failed(Timeout)), Verdict::Timeout);
        for class in [Syntax, Refused, ResourceLimit, GroupBy, Other] {
            assert_eq!(on(PredRun::Failed(class)), Verdict::PredError);
        }
        assert_eq!(on(EQUAL), Verdict::Match);
        assert_eq!(on(DIFFER), Verdict::Mismatch);
        assert_eq!(
            on(PredRun::Compared {
                equal: false,
                tie: true
            }),
            Verdict::MatchTie
        );
        // Equal wins over a tie judgment.
        assert_eq!(
            on(PredRun::Compared {
                equal: true,
                tie: true
            }),
            Verdict::Match
        );
    }
}
