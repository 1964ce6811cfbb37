//! The JSON contract's values as Python objects: `Report.diagnostics`, `placement` and
//! the rest are exactly what `--format json` prints, as dicts and lists.

use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use resource_pool::report::Finding;
use serde_json::Value;

/// The keys every diagnostic dict has (`None` where JSON leaves one out).
const DIAGNOSTIC_KEYS: [&str; 7] = [
    "code", "severity", "message", "help", "file", "line", "column",
];

/// A JSON value as Python's `json.loads` would make it.
pub fn value(py: Python<'_>, value: &Value) -> PyResult<Py<PyAny>> {
    Ok(match value {
        Value::Null => py.None(),
        Value::Bool(flag) => flag.into_py_any(py)?,
        Value::Number(number) => {
            if let Some(n) = number.as_i64() {
                n.into_py_any(py)?
            } else if let Some(n) = number.as_u64() {
                n.into_py_any(py)?
            } else {
                number.as_f64().unwrap_or(f64::NAN).into_py_any(py)?
            }
        }
        Value::String(text) => text.into_py_any(py)?,
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(self::value(py, item)?)?;
            }
            list.into_any().unbind()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (key, item) in map {
                dict.set_item(key, self::value(py, item)?)?;
            }
            dict.into_any().unbind()
        }
    })
}

/// A JSON contract diagnostic as a dict with every key of [`DIAGNOSTIC_KEYS`].
pub fn diagnostic(py: Python<'_>, json: &Value) -> PyResult<Py<PyAny>> {
    let mut json = json.clone();
    if let Value::Object(map) = &mut json {
        for key in DIAGNOSTIC_KEYS {
            map.entry(key).or_insert(Value::Null);
        }
    }
    value(py, &json)
}

/// The findings as a list of diagnostic dicts.
pub fn diagnostics(py: Python<'_>, findings: &[Finding]) -> PyResult<Py<PyAny>> {
    let list = PyList::empty(py);
    for finding in findings {
        let json = serde_json::to_value(finding.to_json()).unwrap_or(Value::Null);
        list.append(diagnostic(py, &json)?)?;
    }
    Ok(list.into_any().unbind())
}
