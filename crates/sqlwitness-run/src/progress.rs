//! How a long stage reports itself: the library counts, the caller draws
//! (the CLI's progress bars) or stays silent ([`Silent`]).

/// A stage in progress.
pub trait Bar: Send + Sync {
    /// `n` more items done.
    fn inc(&self, n: u64);
    /// A log line that must not be drawn over by the bar.
    fn note(&self, message: &str);
    fn finish(&self);
}

/// Where stages and log lines go.
pub trait Progress: Sync {
    /// A stage of `len` items.
    fn bar(&self, len: u64, label: &str) -> Box<dyn Bar>;
    /// A log line (a migration that failed, the suite's figures).
    fn note(&self, message: &str);
}

/// Draws nothing; log lines go to stderr.
pub struct Silent;

struct NoBar;

impl Bar for NoBar {
    fn inc(&self, _: u64) {}
    fn note(&self, message: &str) {
        eprintln!("{}", sqlwitness_core::escape_controls(message));
    }
    fn finish(&self) {}
}

impl Progress for Silent {
    fn bar(&self, _: u64, _: &str) -> Box<dyn Bar> {
        Box::new(NoBar)
    }
    fn note(&self, message: &str) {
        eprintln!("{}", sqlwitness_core::escape_controls(message));
    }
}
