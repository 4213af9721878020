//! Shared helpers of the live-server tests (env URL convention).
#![allow(dead_code)]

use std::sync::atomic::{AtomicU32, Ordering};

/// The URL from `var`, or `None` after printing `SKIPPED` — unless
/// `SQLWITNESS_REQUIRE_ENGINES=1`, when a missing URL fails the test.
pub fn server_url(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(u) if !u.trim().is_empty() => Some(u),
        _ => {
            if std::env::var("SQLWITNESS_REQUIRE_ENGINES").as_deref() == Ok("1") {
                panic!("{var} is not set and SQLWITNESS_REQUIRE_ENGINES=1");
            }
            eprintln!("SKIPPED ({var} not set)");
            None
        }
    }
}

/// A schema/database name unique to this process and call.
pub fn unique_name() -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "swt_eng_{}_{}_{:x}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        nanos & 0xffff
    )
}
