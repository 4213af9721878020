//! Cancelling a run (SIGINT, SIGTERM, a KeyboardInterrupt in Python): the
//! caller holds the run's [`Cancel`] and calls [`Cancel::cancel`], which
//! marks the run cancelled and runs the hooks its stages registered — in
//! order: the journal stops (nothing finished after this point is
//! recorded: it may hold the errors of cancelled queries), then the engines
//! cancel the queries in flight, and last the hooks registered with
//! [`Cancel::on_cancel_last`] (the run's logins are released, the
//! containers of `--containers` removed). The run then returns its
//! interrupted error without writing a report.
//!
//! The token is a value: every run has its own, cloned into the stages
//! that watch it, so two runs in one process cancel independently.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use sqlwitness_core::Engine;

use crate::Journal;

type Hook = Arc<dyn Fn() + Send + Sync>;

/// The cancellation token of one run: cheap to clone, every clone the same
/// token.
#[derive(Clone, Default)]
pub struct Cancel(Arc<Inner>);

#[derive(Default)]
struct Inner {
    cancelled: AtomicBool,
    next: AtomicU64,
    /// `(id, last, hook)`, in registration order.
    hooks: Mutex<Vec<(u64, bool, Hook)>>,
    /// Held while the hooks run: [`Cancel::settled`] waits on it.
    running: Mutex<()>,
}

impl std::fmt::Debug for Cancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cancel")
            .field("cancelled", &self.is_cancelled())
            .finish_non_exhaustive()
    }
}

impl Cancel {
    /// A token not cancelled, with no hooks.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// True once [`Cancel::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
    }

    /// Marks the run cancelled and runs every hook registered now, in
    /// registration order, those of [`Cancel::on_cancel_last`] after the
    /// others. A hook registered later runs only when this is called
    /// again; the stages see [`Cancel::is_cancelled`].
    pub fn cancel(&self) {
        let _running = self.0.running.lock().unwrap_or_else(|e| e.into_inner());
        self.0.cancelled.store(true, Ordering::SeqCst);
        let mut hooks: Vec<(bool, Hook)> = self
            .0
            .hooks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(_, last, h)| (*last, h.clone()))
            .collect();
        // Stable: registration order within each group.
        hooks.sort_by_key(|(last, _)| *last);
        for (_, h) in hooks {
            h();
        }
    }

    /// Waits until the hooks of a [`Cancel::cancel`] have run (a thread
    /// that saw [`Cancel::is_cancelled`] must not exit the process while
    /// queries are still being cancelled).
    pub fn settled(&self) {
        drop(self.0.running.lock().unwrap_or_else(|e| e.into_inner()));
    }

    /// Registers `hook` to run on [`Cancel::cancel`] while the returned
    /// value lives.
    pub fn on_cancel(&self, hook: impl Fn() + Send + Sync + 'static) -> OnCancel {
        self.register(false, Arc::new(hook))
    }

    /// Registers `hook` to run on [`Cancel::cancel`], after every hook
    /// registered with [`Cancel::on_cancel`] (whenever registered), while
    /// the returned value lives: what the other hooks still need — the
    /// servers whose queries they cancel — is torn down here.
    pub fn on_cancel_last(&self, hook: impl Fn() + Send + Sync + 'static) -> OnCancel {
        self.register(true, Arc::new(hook))
    }

    /// The hooks of a run, in the order a cancellation needs them:
    /// `journal` stops first (nothing finished afterwards is recorded),
    /// then every engine of `engines` cancels its queries in flight.
    /// Registered while the returned values live.
    pub fn run_hooks(
        &self,
        journal: &Arc<Journal>,
        engines: impl IntoIterator<Item = Arc<dyn Engine>>,
    ) -> Vec<OnCancel> {
        let j = journal.clone();
        std::iter::once(self.on_cancel(move || j.stop()))
            .chain(
                engines
                    .into_iter()
                    .map(|e| self.on_cancel(move || e.cancel_running())),
            )
            .collect()
    }

    fn register(&self, last: bool, hook: Hook) -> OnCancel {
        let id = self.0.next.fetch_add(1, Ordering::SeqCst);
        self.0
            .hooks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((id, last, hook));
        OnCancel {
            token: Arc::downgrade(&self.0),
            id,
        }
    }
}

/// A hook registered on a [`Cancel`]; dropping it unregisters it.
#[must_use = "the hook is unregistered when this is dropped"]
pub struct OnCancel {
    token: Weak<Inner>,
    id: u64,
}

impl Drop for OnCancel {
    fn drop(&mut self) {
        if let Some(inner) = self.token.upgrade() {
            inner
                .hooks
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .retain(|(id, _, _)| *id != self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A token and the log its hooks write to.
    fn logged() -> (Cancel, Arc<Mutex<Vec<&'static str>>>) {
        (Cancel::new(), Arc::default())
    }

    fn note(log: &Arc<Mutex<Vec<&'static str>>>, what: &'static str) -> impl Fn() + Send + Sync {
        let log = Arc::clone(log);
        move || log.lock().unwrap().push(what)
    }

    #[test]
    fn hooks_run_in_registration_order_the_last_ones_after_the_others() {
        let (cancel, log) = logged();
        let _a = cancel.on_cancel_last(note(&log, "containers"));
        let _b = cancel.on_cancel(note(&log, "journal"));
        let _c = cancel.on_cancel_last(note(&log, "logins"));
        let _d = cancel.on_cancel(note(&log, "engine"));
        assert!(!cancel.is_cancelled());
        cancel.cancel();
        assert!(cancel.is_cancelled());
        assert_eq!(
            *log.lock().unwrap(),
            ["journal", "engine", "containers", "logins"]
        );
    }

    #[test]
    fn a_dropped_hook_is_not_run() {
        let (cancel, log) = logged();
        let kept = cancel.on_cancel(note(&log, "kept"));
        let dropped = cancel.on_cancel(note(&log, "dropped"));
        let dropped_last = cancel.on_cancel_last(note(&log, "dropped last"));
        drop(dropped);
        drop(dropped_last);
        cancel.cancel();
        assert_eq!(*log.lock().unwrap(), ["kept"]);
        drop(kept);
    }

    #[test]
    fn a_hook_registered_after_the_cancel_is_not_run_by_it() {
        let (cancel, log) = logged();
        let _before = cancel.on_cancel(note(&log, "before"));
        cancel.cancel();
        let _after = cancel.on_cancel(note(&log, "after"));
        assert_eq!(*log.lock().unwrap(), ["before"]);
        // The stage registering late sees the mark instead.
        assert!(cancel.is_cancelled());
        // Cancelling again runs every hook registered by then.
        cancel.cancel();
        assert_eq!(*log.lock().unwrap(), ["before", "before", "after"]);
    }

    #[test]
    fn clones_share_the_token_and_other_tokens_are_untouched() {
        let (cancel, log) = logged();
        let (other, other_log) = logged();
        let _h = cancel.on_cancel(note(&log, "run"));
        let _o = other.on_cancel(note(&other_log, "other run"));
        let clone = cancel.clone();
        clone.cancel();
        assert!(cancel.is_cancelled());
        assert_eq!(*log.lock().unwrap(), ["run"]);
        assert!(!other.is_cancelled());
        assert!(other_log.lock().unwrap().is_empty());
    }

    #[test]
    fn settled_waits_for_the_hooks() {
        let cancel = Cancel::new();
        let done = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&done);
        let _slow = cancel.on_cancel(move || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            flag.store(true, Ordering::SeqCst);
        });
        let canceller = {
            let cancel = cancel.clone();
            std::thread::spawn(move || cancel.cancel())
        };
        while !cancel.is_cancelled() {
            std::thread::yield_now();
        }
        cancel.settled();
        assert!(done.load(Ordering::SeqCst));
        canceller.join().unwrap();
    }

    #[test]
    fn a_hook_outliving_its_token_unregisters_quietly() {
        let cancel = Cancel::new();
        let hook = cancel.on_cancel(|| {});
        drop(cancel);
        drop(hook);
    }
}
