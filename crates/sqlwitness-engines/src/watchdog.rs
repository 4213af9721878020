//! One thread that stops an embedded engine's statements at their
//! deadline (SQLite, DuckDB): each running statement is armed with its
//! deadline and a function that interrupts it.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::Instant;

/// What interrupts one statement (its connection's interrupt handle).
pub(crate) type Interrupt = Box<dyn Fn() + Send>;

/// One thread that interrupts statements whose deadline has passed (for
/// SQLite, the progress handler does the same between VM steps; the
/// watchdog also reaches a statement that is still being prepared).
/// Arming does not wake the thread unless the new deadline comes before
/// the one it sleeps until (deadlines are mostly "now + the same limit",
/// so that is rare).
pub(crate) struct Watchdog {
    state: Mutex<Armed>,
    wake: Condvar,
}

#[derive(Default)]
struct Armed {
    handles: BTreeMap<(Instant, u64), Interrupt>,
    next_id: u64,
    /// When the thread will look next (`None`: it waits for a signal).
    next_wake: Option<Instant>,
}

pub(crate) fn watchdog() -> &'static Watchdog {
    static DOG: OnceLock<&'static Watchdog> = OnceLock::new();
    DOG.get_or_init(|| {
        let dog: &'static Watchdog = Box::leak(Box::new(Watchdog {
            state: Mutex::new(Armed::default()),
            wake: Condvar::new(),
        }));
        let spawned = std::thread::Builder::new()
            .name("sqlwitness-watchdog".into())
            .spawn(move || dog.watch());
        // Without the thread SQLite's progress handler still enforces
        // deadlines; a DuckDB statement then runs to its end.
        drop(spawned);
        dog
    })
}

impl Watchdog {
    pub(crate) fn arm(&self, deadline: Instant, handle: Interrupt) -> (Instant, u64) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.next_id += 1;
        let key = (deadline, st.next_id);
        st.handles.insert(key, handle);
        if st.next_wake.is_none_or(|w| deadline < w) {
            st.next_wake = Some(deadline);
            self.wake.notify_one();
        }
        key
    }

    pub(crate) fn disarm(&self, key: (Instant, u64)) {
        self.state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .handles
            .remove(&key);
    }

    fn watch(&self) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let now = Instant::now();
            while let Some((&key, _)) = st.handles.first_key_value() {
                if key.0 > now {
                    break;
                }
                if let Some(handle) = st.handles.remove(&key) {
                    handle();
                }
            }
            st.next_wake = st.handles.first_key_value().map(|(k, _)| k.0);
            st = match st.next_wake {
                Some(at) => {
                    let wait = at.saturating_duration_since(Instant::now());
                    self.wake
                        .wait_timeout(st, wait)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
                None => self.wake.wait(st).unwrap_or_else(|e| e.into_inner()),
            };
        }
    }
}
