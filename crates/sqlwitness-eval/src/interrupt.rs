//! Interruption of a run (SIGINT, SIGTERM): the binary's signal handler
//! calls [`interrupt`], which marks the process interrupted and runs the
//! hooks the running stages registered — in order: journals stop (nothing
//! finished after this point is recorded: it may hold the errors of
//! cancelled queries), then the servers cancel the queries in flight, and
//! last the hooks registered with [`on_interrupt_last`] (the containers of
//! `--containers` are removed). The caller then exits (130) without writing
//! a report.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

type Hook = Arc<dyn Fn() + Send + Sync>;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static NEXT: AtomicU64 = AtomicU64::new(0);
/// `(id, last, hook)`.
static HOOKS: Mutex<Vec<(u64, bool, Hook)>> = Mutex::new(Vec::new());
/// Held while the hooks run: [`settled`] waits on it.
static RUNNING: Mutex<()> = Mutex::new(());

/// True once [`interrupt`] was called.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Marks the process interrupted and runs every registered hook, in
/// registration order, those of [`on_interrupt_last`] after the others.
pub fn interrupt() {
    let _running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
    INTERRUPTED.store(true, Ordering::SeqCst);
    let mut hooks: Vec<(bool, Hook)> = HOOKS
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

/// Clears the mark of an earlier [`interrupt`], for a host process (the
/// Python API) that goes on after an interrupted run and starts another.
pub fn clear_interrupt() {
    let _running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
    INTERRUPTED.store(false, Ordering::SeqCst);
}

/// Waits until the hooks of an [`interrupt`] have run (a thread that saw
/// [`interrupted`] must not exit the process while queries are still being
/// cancelled).
pub fn settled() {
    drop(RUNNING.lock().unwrap_or_else(|e| e.into_inner()));
}

/// The hooks of a run, in the order an interrupt needs them: `journal`
/// stops first (nothing finished afterwards is recorded), then every
/// engine of `engines` cancels its queries in flight. Registered while the
/// returned values live.
pub(crate) fn run_hooks(
    journal: &std::sync::Arc<crate::Journal>,
    engines: impl IntoIterator<Item = std::sync::Arc<dyn sqlwitness_core::Engine>>,
) -> Vec<OnInterrupt> {
    let j = journal.clone();
    std::iter::once(on_interrupt(move || j.stop()))
        .chain(
            engines
                .into_iter()
                .map(|e| on_interrupt(move || e.cancel_running())),
        )
        .collect()
}

/// A hook registered by [`on_interrupt`]; dropping it unregisters it.
#[must_use = "the hook is unregistered when this is dropped"]
pub struct OnInterrupt(u64);

/// Registers `hook` to run on [`interrupt`] while the returned value lives.
pub fn on_interrupt(hook: impl Fn() + Send + Sync + 'static) -> OnInterrupt {
    register(false, Arc::new(hook))
}

/// Registers `hook` to run on [`interrupt`], after every hook registered
/// with [`on_interrupt`] (whenever registered), while the returned value
/// lives: what the other hooks still need — the servers whose queries
/// they cancel — is torn down here.
pub fn on_interrupt_last(hook: impl Fn() + Send + Sync + 'static) -> OnInterrupt {
    register(true, Arc::new(hook))
}

fn register(last: bool, hook: Hook) -> OnInterrupt {
    let id = NEXT.fetch_add(1, Ordering::SeqCst);
    HOOKS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((id, last, hook));
    OnInterrupt(id)
}

impl Drop for OnInterrupt {
    fn drop(&mut self) {
        HOOKS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(id, _, _)| *id != self.0);
    }
}
