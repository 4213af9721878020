//! `sqlwitness._native`: the Python package's way into the command line's
//! library (`sqlwitness_cli`). [`cli`] is the `sqlwitness` command of the
//! wheel (the binary's behaviour, signal handler included); [`run`] is what
//! the Python API calls: the same commands, run on a thread of their own
//! with the GIL released, a KeyboardInterrupt cancelling the run as SIGINT
//! does on the command line.

use pyo3::prelude::*;
use std::sync::{mpsc, Mutex};
use std::time::Duration;

/// How often a waiting [`run`] looks for a pending KeyboardInterrupt.
const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// The command line: `argv` with the program name first; returns the exit
/// code. SIGINT and SIGTERM are the command line's (cancel, exit 130).
#[pyfunction]
fn cli(py: Python<'_>, argv: Vec<String>) -> i32 {
    py.detach(|| sqlwitness_cli::main_with(argv))
}

/// One command in this process: `(exit_code, None)` when it finished
/// (0, or 3/4/5 with its report written), `(exit_code, message)` when it
/// failed, `(0, text)` for `--help` and `--version` (clap's text, not an
/// error). What the command prints on standard output is flushed before
/// it returns. A KeyboardInterrupt while it runs cancels it (the journal
/// keeps what finished) and is raised once the run has stopped.
#[pyfunction]
fn run(py: Python<'_>, argv: Vec<String>) -> PyResult<(i32, Option<String>)> {
    let (tx, rx) = mpsc::channel();
    // Waited on with the GIL released, which asks for a `Sync` receiver.
    let rx = Mutex::new(rx);
    let recv_timeout = |rx: &Mutex<mpsc::Receiver<_>>| {
        rx.lock()
            .unwrap_or_else(|e| e.into_inner())
            .recv_timeout(SIGNAL_POLL)
    };
    let worker = std::thread::Builder::new()
        .name("sqlwitness-run".into())
        .spawn(move || {
            let result = sqlwitness_cli::run_embedded(argv);
            // Everything the command printed is written out before the run
            // returns: the API reads standard output back (`run`'s `output`),
            // and a line left in the buffer would land in the next command's.
            let _ = std::io::Write::flush(&mut std::io::stdout());
            let _ = tx.send(result);
        })?;
    let outcome = loop {
        match py.detach(|| recv_timeout(&rx)) {
            Ok(result) => break Some(result),
            Err(mpsc::RecvTimeoutError::Disconnected) => break None,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(signal) = py.check_signals() {
                    sqlwitness_cli::interrupt();
                    // Wait for the run to stop: its queries are cancelled
                    // and nothing half-written is left.
                    py.detach(|| {
                        let _ = rx.lock().map(|rx| rx.recv().is_ok());
                    });
                    let _ = worker.join();
                    return Err(signal);
                }
            }
        }
    };
    let _ = worker.join();
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
