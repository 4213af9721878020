//! A progress bar on a terminal, nothing otherwise; the evaluator's
//! stages report through [`Bars`]. A host running a command in its own
//! process (the Python API) is also told each stage's counts, through
//! the [`Observer`] it installs on the thread that runs the command
//! ([`observed`]).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::cell::RefCell;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Told each stage's counts as the stage advances: its label (`eval`,
/// `audit`, `migrate`, ...), the items done and the stage's length. Called
/// on the worker threads, once a stage starts and once per item: it must
/// return at once (keep the counts, draw elsewhere).
pub type Observer = Arc<dyn Fn(&str, u64, u64) + Send + Sync>;

thread_local! {
    /// The observer of the command running on this thread.
    static OBSERVER: RefCell<Option<Observer>> = const { RefCell::new(None) };
}

/// Runs `f` with `observer` told the counts of the stages `f` starts on
/// this thread (the stages' items may be done on other threads).
pub fn observed<T>(observer: Observer, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Observer>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take();
            OBSERVER.with(|o| *o.borrow_mut() = before);
        }
    }
    let _restore = Restore(OBSERVER.with(|o| o.borrow_mut().replace(observer)));
    f()
}

pub fn bar(len: u64, message: &str, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
    }
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template("{msg:>12} [{bar:40}] {pos}/{len} ({eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    pb.set_message(sqlwitness_core::escape_controls(message).into_owned());
    pb
}

/// Progress bars for the evaluator's stages (hidden with `-q` or off a
/// terminal); log lines go to stderr.
pub struct Bars {
    pub quiet: bool,
}

/// A stage as its observer sees it.
struct Watched {
    observer: Observer,
    label: String,
    len: u64,
    done: AtomicU64,
}

struct Stage(ProgressBar, Option<Watched>);

impl sqlwitness_run::Bar for Stage {
    fn inc(&self, n: u64) {
        self.0.inc(n);
        if let Some(w) = &self.1 {
            let done = w.done.fetch_add(n, Ordering::Relaxed) + n;
            (w.observer)(&w.label, done, w.len);
        }
    }
    fn note(&self, message: &str) {
        self.0.suspend(|| say!("{message}"));
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

impl sqlwitness_run::Progress for Bars {
    fn bar(&self, len: u64, label: &str) -> Box<dyn sqlwitness_run::Bar> {
        let watched = OBSERVER.with(|o| o.borrow().clone()).map(|observer| {
            observer(label, 0, len);
            Watched {
                observer,
                label: label.to_string(),
                len,
                done: AtomicU64::new(0),
            }
        });
        Box::new(Stage(bar(len, label, self.quiet), watched))
    }
    fn note(&self, message: &str) {
        say!("{message}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlwitness_run::Progress;
    use std::sync::Mutex;

    #[test]
    fn a_stage_started_under_an_observer_reports_its_counts_from_any_thread() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&seen);
        let observer: Observer = Arc::new(move |label: &str, done, len| {
            into.lock().unwrap().push((label.to_string(), done, len));
        });
        let bars = Bars { quiet: true };
        let stage = observed(observer, || bars.bar(3, "eval"));
        std::thread::scope(|s| {
            s.spawn(|| stage.inc(1));
        });
        stage.inc(2);
        stage.finish();
        let e = |done| ("eval".to_string(), done, 3);
        assert_eq!(*seen.lock().unwrap(), vec![e(0), e(1), e(3)]);
        // Outside `observed`, a stage reports to no one.
        bars.bar(5, "audit").inc(5);
        assert_eq!(seen.lock().unwrap().len(), 3);
    }
}
