//! `sqlwitness._native`: the Python package's way into the command line's
//! library (`sqlwitness_cli`). [`cli`] is the `sqlwitness` command of the
//! wheel (the binary's behaviour, signal handler included); [`run`] is what
//! the Python API calls: the same commands, run on a thread of their own
//! with the GIL released, a KeyboardInterrupt cancelling the run as SIGINT
//! does on the command line, and the stages' progress handed to a Python
//! callable from the waiting thread ([`Counts`]).

use pyo3::prelude::*;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// How often a waiting [`run`] looks for a pending KeyboardInterrupt.
const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// The least time between two calls of a run's progress callable.
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// The command line: `argv` with the program name first; returns the exit
/// code. SIGINT and SIGTERM are the command line's (cancel, exit 130).
#[pyfunction]
fn cli(py: Python<'_>, argv: Vec<String>) -> i32 {
    py.detach(|| sqlwitness_cli::main_with(argv))
}

/// The latest counts of each stage of a run, in the order the stages
/// started: the run's threads write them (no GIL), the thread waiting for
/// the run hands the ones that changed to Python.
#[derive(Default)]
struct Counts(Mutex<Vec<StageCount>>);

struct StageCount {
    label: String,
    done: u64,
    len: u64,
    told: bool,
}

impl Counts {
    fn set(&self, label: &str, done: u64, len: u64) {
        let mut stages = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match stages.iter_mut().find(|s| s.label == label) {
            Some(s) => (s.done, s.len, s.told) = (done, len, false),
            None => stages.push(StageCount {
                label: label.to_string(),
                done,
                len,
                told: false,
            }),
        }
    }

    /// The stages whose counts changed since the last call.
    fn changed(&self) -> Vec<(String, u64, u64)> {
        let mut stages = self.0.lock().unwrap_or_else(|e| e.into_inner());
        stages
            .iter_mut()
            .filter(|s| !s.told)
            .map(|s| {
                s.told = true;
                (s.label.clone(), s.done, s.len)
            })
            .collect()
    }
}

/// Calls `progress(stage, done, total)` for each stage whose counts
/// changed; the callable's exception, if it raises.
fn tell(py: Python<'_>, progress: &Py<PyAny>, counts: &Counts) -> PyResult<()> {
    for (label, done, len) in counts.changed() {
        progress.call1(py, (label, done, len))?;
    }
    Ok(())
}

/// One command in this process: `(exit_code, None)` when it finished
/// (0, or 3/4/5 with its report written), `(exit_code, message)` when it
/// failed, `(0, text)` for `--help` and `--version` (clap's text, not an
/// error). What the command prints on standard output is flushed before
/// it returns. A KeyboardInterrupt while it runs cancels it (the journal
/// keeps what finished) and is raised once the run has stopped.
///
/// `progress`, when given, is called as `progress(stage, done, total)` on
/// this thread, with the GIL, at most every [`PROGRESS_EVERY`] while the
/// run advances and once more for the final counts: the stage's label
/// (`eval`, `audit`, `migrate`, ...), its items done and its length. When
/// it raises, the run is cancelled as by a KeyboardInterrupt and its
/// exception is raised once the run has stopped.
#[pyfunction]
#[pyo3(signature = (argv, progress=None))]
fn run(
    py: Python<'_>,
    argv: Vec<String>,
    progress: Option<Py<PyAny>>,
) -> PyResult<(i32, Option<String>)> {
    let (tx, rx) = mpsc::channel();
    // Waited on with the GIL released, which asks for a `Sync` receiver.
    let rx = Mutex::new(rx);
    let recv_timeout = |rx: &Mutex<mpsc::Receiver<_>>| {
        rx.lock()
            .unwrap_or_else(|e| e.into_inner())
            .recv_timeout(SIGNAL_POLL)
    };
    let counts = Arc::new(Counts::default());
    let observer = progress
        .as_ref()
        .map(|_| -> sqlwitness_cli::ProgressObserver {
            let counts = Arc::clone(&counts);
            Arc::new(move |label: &str, done, len| counts.set(label, done, len))
        });
    // The run's token: this thread cancels it, the run's thread watches it.
    let cancel = sqlwitness_cli::Cancel::new();
    let watched = cancel.clone();
    let worker = std::thread::Builder::new()
        .name("sqlwitness-run".into())
        .spawn(move || {
            let result = match observer {
                Some(observer) => sqlwitness_cli::run_embedded_observed(argv, observer, watched),
                None => sqlwitness_cli::run_embedded(argv, watched),
            };
            // Everything the command printed is written out before the run
            // returns: the API reads standard output back (`run`'s `output`),
            // and a line left in the buffer would land in the next command's.
            let _ = std::io::Write::flush(&mut std::io::stdout());
            let _ = tx.send(result);
        })?;
    let mut told = Instant::now();
    let outcome = loop {
        match py.detach(|| recv_timeout(&rx)) {
            Ok(result) => break Some(result),
            Err(mpsc::RecvTimeoutError::Disconnected) => break None,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let mut stop = py.check_signals();
                if let (Ok(()), Some(progress)) = (&stop, &progress) {
                    if told.elapsed() >= PROGRESS_EVERY {
                        told = Instant::now();
                        stop = tell(py, progress, &counts);
                    }
                }
                if let Err(raised) = stop {
                    cancel.cancel();
                    // Wait for the run to stop: its queries are cancelled
                    // and nothing half-written is left.
                    py.detach(|| {
                        let _ = rx.lock().map(|rx| rx.recv().is_ok());
                    });
                    let _ = worker.join();
                    return Err(raised);
                }
            }
        }
    };
    let _ = worker.join();
    if let Some(progress) = &progress {
        tell(py, progress, &counts)?;
    }
    Ok(match outcome {
        Some(Ok(code)) => (code, None),
        Some(Err(failure)) => (failure.code, Some(failure.message)),
        None => (
            sqlwitness_cli::INTERNAL,
            Some("internal error: the run stopped without a result (a panic: see stderr)".into()),
        ),
    })
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
