//! Python exceptions for inputs that cannot be used (the CLI's exit status 2). The classes
//! live in `resource_pool._errors` (Python, so that they can have two bases, such as
//! `ConnectionError` and `rp.ResourcePoolError`); each carries the diagnostics as the JSON
//! contract has them, and its message is the CLI's report of them.

use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use resource_pool::report::{Finding, render_human};
use resource_pool::source::ReadError;

use crate::to_python::diagnostics;

/// An exception of `resource_pool._errors` named `class`, with `diagnostics` set.
pub fn with_findings(py: Python<'_>, class: &str, findings: &[Finding]) -> PyErr {
    let message = render_human(findings, false).trim_end().to_owned();
    match build(py, class, &message, findings) {
        Ok(error) => error,
        Err(error) => error,
    }
}

fn build(py: Python<'_>, class: &str, message: &str, findings: &[Finding]) -> PyResult<PyErr> {
    let error = instance(py, class, message)?;
    error.setattr("diagnostics", diagnostics(py, findings)?)?;
    Ok(PyErr::from_value(error))
}

/// An exception of `resource_pool._errors` named `class`, with no diagnostics: for an
/// argument, not a file, so there is nothing to point into.
pub fn plain(py: Python<'_>, class: &str, message: &str) -> PyErr {
    match instance(py, class, message) {
        Ok(error) => PyErr::from_value(error),
        Err(error) => error,
    }
}

/// `rp.ArgumentError` (a `ValueError` and an `rp.ResourcePoolError`): an argument of the
/// right type whose value cannot be used.
pub fn argument(py: Python<'_>, message: &str) -> PyErr {
    plain(py, "ArgumentError", message)
}

fn instance<'py>(py: Python<'py>, class: &str, message: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("resource_pool._errors")?
        .getattr(class)?
        .call1((message,))
}

/// A file that cannot be read as an `OSError` (Python picks the subclass from the errno:
/// `FileNotFoundError`, `PermissionError`, `IsADirectoryError`, ...).
pub fn os_error(error: &ReadError) -> PyErr {
    match error {
        ReadError::Io { path, source } => match source.raw_os_error() {
            Some(errno) => {
                // Python prints the errno itself (`[Errno 2] No such file or directory`):
                // Rust's text ends in it too (`(os error 2)`).
                let text = source.to_string();
                let strerror = text
                    .strip_suffix(&format!(" (os error {errno})"))
                    .unwrap_or(&text);
                PyOSError::new_err((errno, strerror.to_owned(), path.clone()))
            }
            None => {
                let kind = std::io::Error::new(source.kind(), error.to_string());
                PyErr::from(kind)
            }
        },
        // Too large, not UTF-8, and any later reason: no errno to pick a subclass by.
        _ => PyOSError::new_err(error.to_string()),
    }
}
