//! Blocking work that Ctrl-C can interrupt. A check reads files and a dashboard, and a read
//! may wait up to its timeout: run on the calling thread without the GIL, Python's SIGINT
//! handler could not run until it returned, so `KeyboardInterrupt` came only when the
//! read ended. [`run`] does the work on a thread of its own and waits for it in short
//! slices, running Python's signal handlers between them.

use std::any::Any;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::Duration;

use pyo3::prelude::*;

/// How long the caller waits without running Python's signal handlers: Ctrl-C raises
/// within about this.
const SLICE: Duration = Duration::from_millis(50);

/// The worker's stack: a main thread's usual 8 MiB, so that a deeply nested config parses
/// as it would on the calling thread (a spawned thread's default is 2 MiB).
const STACK: usize = 8 << 20;

/// Runs `work` on a new thread and returns what it returns; the calling thread waits without
/// the GIL and, between slices of [`SLICE`], runs Python's signal handlers, so that Ctrl-C
/// (or any handler that raises) ends the call with that exception at once.
///
/// `work` holds only Rust values (`Send + 'static`) and never touches Python. After an
/// interrupt it runs on, detached, until its own timeout ends it; its result is dropped. A
/// detached thread does not hold up the interpreter's exit (Python does not know of it, and
/// the process ends with the threads it has). A panic in `work` is resumed on the calling
/// thread, where PyO3 makes it a `PanicException` as before.
pub fn run<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let (sender, receiver) = mpsc::sync_channel(1);
    let worker = thread::Builder::new()
        .name("resource-pool".to_owned())
        .stack_size(STACK)
        .spawn(move || {
            // The caller may be gone (interrupted): the result is dropped then.
            let _ = sender.send(work());
        })?;
    let mut receiver: Receiver<T> = receiver;
    loop {
        // `Receiver` is not `Sync`: it moves into the GIL-free closure and back.
        let (back, received) = py.detach(move || {
            let received = receiver.recv_timeout(SLICE);
            (receiver, received)
        });
        receiver = back;
        match received {
            Ok(value) => return Ok(value),
            Err(RecvTimeoutError::Timeout) => py.check_signals()?,
            // The worker ended without sending: it panicked.
            Err(RecvTimeoutError::Disconnected) => {
                let payload: Box<dyn Any + Send> = match worker.join() {
                    Err(payload) => payload,
                    Ok(()) => Box::new("the check's thread ended without a result"),
                };
                std::panic::resume_unwind(payload)
            }
        }
    }
}
