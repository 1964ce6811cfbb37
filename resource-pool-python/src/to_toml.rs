//! Python arguments as the TOML the core reads: `resource_pool_spec` and `mapping` as a
//! config file, a cluster dict as a cluster file. Only writing happens here; the core's
//! readers then read the text as they read any file, so Python and the CLI check the same
//! thing (and its diagnostics point into a text the user can print: `Report.config`).
//!
//! Python types that have no meaning there are `TypeError`s that name the argument and
//! the key (`resource_pool_spec['p']`); values of the right type but wrong meaning
//! (a negative GPU count, an unknown accelerator) are left to the core's lint, which
//! reports them as diagnostics with spans.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use resource_pool::model::Role as _;

/// Python's `repr` of a value, shortened for a message.
fn shown(value: &Bound<'_, PyAny>) -> String {
    let text = value
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "<unprintable>".to_owned());
    let text: String = if text.chars().count() > 60 {
        text.chars().take(57).chain("...".chars()).collect()
    } else {
        text
    };
    let type_name = value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_owned());
    format!("{type_name} {text}")
}

/// A `TypeError` about `path`.
fn type_error(path: &str, expected: &str, got: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!("{path}: expected {expected}, got {}", shown(got)))
}

/// A key as TOML writes it: bare when it can be, quoted otherwise.
fn toml_key(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        key.to_owned()
    } else {
        toml_string(key)
    }
}

/// A string as a TOML basic string, escaped.
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

/// A Python int (not a bool: `True` is an int to Python, never a count to us).
fn int(value: &Bound<'_, PyAny>, path: &str, expected: &str) -> PyResult<i64> {
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return Err(type_error(path, expected, value));
    }
    value
        .extract::<i64>()
        .map_err(|_| PyValueError::new_err(format!("{path}: {} is out of range", shown(value))))
}

/// A dict's items, or a `TypeError` naming `path`.
fn dict<'py>(
    value: &Bound<'py, PyAny>,
    path: &str,
    expected: &str,
) -> PyResult<Bound<'py, PyDict>> {
    value
        .cast::<PyDict>()
        .cloned()
        .map_err(|_| type_error(path, expected, value))
}

/// The items of a list or tuple, or a `TypeError` naming `path`.
fn sequence<'py>(
    value: &Bound<'py, PyAny>,
    path: &str,
    expected: &str,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if let Ok(list) = value.cast::<PyList>() {
        return Ok(list.iter().collect());
    }
    if let Ok(tuple) = value.cast::<PyTuple>() {
        return Ok(tuple.iter().collect());
    }
    Err(type_error(path, expected, value))
}

/// verl's pools, as the config file `resource-pool check` reads: each pool of
/// `resource_pool_spec` in its order (the order verl creates them), then the mapping.
pub fn config_toml(
    spec: &Bound<'_, PyAny>,
    mapping: &Bound<'_, PyAny>,
    max_colocate_count: &Bound<'_, PyAny>,
    accelerator: &Bound<'_, PyAny>,
) -> PyResult<String> {
    let spec = dict(
        spec,
        "resource_pool_spec",
        "a dict of pool name to a list of accelerators per node ({'global_pool': [8, 8]})",
    )?;
    let mapping = dict(
        mapping,
        "mapping",
        "a dict of role to pool name ({'actor_rollout': 'global_pool'})",
    )?;
    let max_colocate_count = int(max_colocate_count, "max_colocate_count", "an int")?;
    let accelerator = accelerator
        .cast::<PyString>()
        .map_err(|_| type_error("accelerator", "\"GPU\" or \"NPU\"", accelerator))?
        .to_cow()?
        .into_owned();
    let mut text = String::new();
    for (name, slots) in spec.iter() {
        let name = name
            .cast::<PyString>()
            .map_err(|_| type_error("resource_pool_spec", "pool names (str) as keys", &name))?
            .to_cow()?
            .into_owned();
        let path = format!("resource_pool_spec[{}]", shown_key(&name));
        let items = sequence(&slots, &path, "a list of ints (accelerators per node)")?;
        let counts = items
            .iter()
            .enumerate()
            .map(|(i, item)| int(item, &format!("{path}[{i}]"), "an int").map(|n| n.to_string()))
            .collect::<PyResult<Vec<_>>>()?;
        text.push_str(&format!(
            "[pools.{}]\nprocess_on_nodes = [{}]\naccelerator = {}\nmax_colocate_count = {max_colocate_count}\n\n",
            toml_key(&name),
            counts.join(", "),
            toml_string(&accelerator),
        ));
    }
    text.push_str("[mapping]\n");
    for (role, pool) in mapping.iter() {
        let role = role_name(&role)?;
        let path = format!("mapping[{}]", shown_key(&role));
        let pool = pool
            .cast::<PyString>()
            .map_err(|_| type_error(&path, "a pool name (str)", &pool))?
            .to_cow()?
            .into_owned();
        text.push_str(&format!("{} = {}\n", toml_key(&role), toml_string(&pool)));
    }
    Ok(text)
}

/// A key as Python shows it in a subscript (`'global_pool'`).
fn shown_key(key: &str) -> String {
    format!("{key:?}").replace('"', "'")
}

/// A role key: a string as it is, or a member of an enum (verl's `Role`, or a stand-in
/// with its names) by its name: verl's own string for verl's names (`RefPolicy` → `ref`),
/// the name in snake_case otherwise (lint warns about names it does not know).
fn role_name(key: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(text) = key.cast::<PyString>() {
        return Ok(text.to_cow()?.into_owned());
    }
    let py = key.py();
    let enum_type = py.import("enum")?.getattr("Enum")?;
    if !key.is_instance(&enum_type)? {
        return Err(type_error(
            "mapping",
            "roles (str, or members of verl's Role enum) as keys",
            key,
        ));
    }
    let name: String = key.getattr("name")?.extract()?;
    let verl = resource_pool::verl::Role::ALL
        .iter()
        .find(|role| format!("{role:?}") == name);
    Ok(match verl {
        Some(role) => role.name().to_owned(),
        None => snake_case(&name),
    })
}

/// `ActorRollout` → `actor_rollout`; names already in snake_case stay.
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 && !out.ends_with('_') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A cluster dict (`{"nodes": [{"id": ..., "available": {...}}]}`, the cluster file's
/// shape) as cluster TOML.
pub fn cluster_toml(cluster: &Bound<'_, PyDict>) -> PyResult<String> {
    let table = table(cluster, "cluster")?;
    // Written by hand (`toml::to_string` costs more than the whole check at 10,000 nodes):
    // top-level values first, then each list of tables as `[[key]]` blocks and each table
    // as a `[key]` section, their entries inline.
    let mut out = String::new();
    let mut blocks = String::new();
    for (key, value) in &table {
        match value {
            toml::Value::Array(items)
                if !items.is_empty() && items.iter().all(toml::Value::is_table) =>
            {
                for item in items {
                    blocks.push_str(&format!("[[{}]]\n", toml_key(key)));
                    entries(&mut blocks, item);
                    blocks.push('\n');
                }
            }
            toml::Value::Table(_) => {
                blocks.push_str(&format!("[{}]\n", toml_key(key)));
                entries(&mut blocks, value);
                blocks.push('\n');
            }
            value => out.push_str(&format!("{} = {value}\n", toml_key(key))),
        }
    }
    out.push_str(&blocks);
    Ok(out)
}

/// A table's entries, one `key = value` line each, values inline.
fn entries(out: &mut String, table: &toml::Value) {
    if let toml::Value::Table(table) = table {
        for (key, value) in table {
            out.push_str(&format!("{} = {value}\n", toml_key(key)));
        }
    }
}

fn table(dict: &Bound<'_, PyDict>, path: &str) -> PyResult<toml::Table> {
    let mut table = toml::Table::new();
    for (key, value) in dict.iter() {
        let key = key
            .cast::<PyString>()
            .map_err(|_| type_error(path, "str keys", &key))?
            .to_cow()?
            .into_owned();
        let path = format!("{path}[{}]", shown_key(&key));
        let value = toml_value(&value, &path)?;
        table.insert(key, value);
    }
    Ok(table)
}

fn toml_value(value: &Bound<'_, PyAny>, path: &str) -> PyResult<toml::Value> {
    const EXPECTED: &str = "a str, int, float, bool, list or dict";
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(toml::Value::String(text.to_cow()?.into_owned()));
    }
    if let Ok(flag) = value.cast::<PyBool>() {
        return Ok(toml::Value::Boolean(flag.is_true()));
    }
    if value.is_instance_of::<PyInt>() {
        return int(value, path, EXPECTED).map(toml::Value::Integer);
    }
    if let Ok(number) = value.cast::<PyFloat>() {
        return Ok(toml::Value::Float(number.value()));
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        return table(dict, path).map(toml::Value::Table);
    }
    if value.is_none() {
        return Err(PyTypeError::new_err(format!(
            "{path}: None has no place in a cluster; leave the key out"
        )));
    }
    let items = sequence(value, path, EXPECTED)?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| toml_value(item, &format!("{path}[{i}]")))
        .collect::<PyResult<Vec<_>>>()
        .map(toml::Value::Array)
}
