//! Which engine reads the instance files. The generator and the shrinker
//! write every instance with rusqlite, as the benchmark's own files are
//! written: the engine that reads one in place is
//! [`sqlwitness_engines::IN_PLACE`], opened through the engine registry.
//! An engine on copies of its own (a server, DuckDB) reads an instance
//! once it is migrated there (`ServerReference`, and `eval --suite`'s
//! copies).

use std::sync::Arc;

use sqlwitness_core::Engine;

use crate::FuzzError;

/// A fresh engine reading instance files in place. Each holds idle
/// connections per file it read: a caller that writes many short-lived
/// files opens one per batch and drops it with them.
pub(crate) fn instance_engine() -> Result<Arc<dyn Engine>, FuzzError> {
    Ok(sqlwitness_engines::open_embedded(
        sqlwitness_engines::IN_PLACE,
        None,
    )?)
}
