//! Python arguments as the TOML the core reads: `resource_pool_spec` and `mapping` as a
//! config file, a cluster dict as a cluster file. Only writing happens here; the core's
//! readers then read the text as they read any file, so Python and the CLI check the same
//! thing (and its diagnostics point into a text the user can print: `Report.config`).
//!
//! Python types that have no meaning there are `TypeError`s that name the argument and
//! the key (`resource_pool_spec['p']`); values of the right type but wrong meaning
//! (a negative GPU count, an unknown accelerator) are left to the core's lint, which
//! reports them as diagnostics with spans. An int past 64 bits has no TOML form at all: it
//! is an `rp.ArgumentError` (a `ValueError`) that names the argument and key.

use std::collections::HashMap;
use std::fmt;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use resource_pool::config::{toml_key, toml_string};
use resource_pool::inventory::cluster_file::TOML_NESTING_LIMIT;
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
fn type_error(
    path: &(impl fmt::Display + ?Sized),
    expected: &str,
    got: &Bound<'_, PyAny>,
) -> PyErr {
    PyTypeError::new_err(format!("{path}: expected {expected}, got {}", shown(got)))
}

/// A Python int (not a bool: `True` is an int to Python, never a count to us).
fn int(
    value: &Bound<'_, PyAny>,
    path: &(impl fmt::Display + ?Sized),
    expected: &str,
) -> PyResult<i64> {
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return Err(type_error(path, expected, value));
    }
    value.extract::<i64>().map_err(|_| {
        crate::errors::argument(
            value.py(),
            &format!("{path}: {} is out of range", shown(value)),
        )
    })
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
    path: &(impl fmt::Display + ?Sized),
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
/// `resource_pool_spec` in its order, then the mapping. A `max_colocate_count` of `None`
/// is left out: the release's own is used.
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
    let max_colocate_count = if max_colocate_count.is_none() {
        String::new()
    } else {
        let count = int(max_colocate_count, "max_colocate_count", "an int or None")?;
        format!("max_colocate_count = {count}\n")
    };
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
        let root = Place::Root("resource_pool_spec");
        let path = Place::Key(&root, &name);
        let items = sequence(&slots, &path, "a list of ints (accelerators per node)")?;
        let counts = items
            .iter()
            .enumerate()
            .map(|(i, item)| int(item, &Place::Index(&path, i), "an int").map(|n| n.to_string()))
            .collect::<PyResult<Vec<_>>>()?;
        text.push_str(&format!(
            "[pools.{}]\nprocess_on_nodes = [{}]\naccelerator = {}\n{max_colocate_count}\n",
            toml_key(&name),
            counts.join(", "),
            toml_string(&accelerator),
        ));
    }
    text.push_str("[mapping]\n");
    // Each role's key as given, to name both when two keys are one role
    // (`Role.RefPolicy` and `'ref'`): a TOML table cannot hold it twice.
    let mut given: HashMap<String, Bound<'_, PyAny>> = HashMap::new();
    for (key, pool) in mapping.iter() {
        let role = role_name(&key)?;
        if let Some(first) = given.insert(role.clone(), key.clone()) {
            return Err(crate::errors::argument(
                key.py(),
                &format!(
                    "mapping: role `{role}` is given twice: {} and {}; map it to one pool",
                    shown_role(&first),
                    shown_role(&key)
                ),
            ));
        }
        let root = Place::Root("mapping");
        let path = Place::Key(&root, &role);
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

/// A role key as the caller wrote it: `'ref'`, `Role.RefPolicy`.
fn shown_role(key: &Bound<'_, PyAny>) -> String {
    if let Ok(text) = key.cast::<PyString>() {
        return shown_key(&text.to_string_lossy());
    }
    let class = key.get_type().name().map(|n| n.to_string());
    let name = key.getattr("name").and_then(|n| n.extract::<String>());
    match (class, name) {
        (Ok(class), Ok(name)) => format!("{class}.{name}"),
        _ => shown(key),
    }
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

/// Where a value sits in an argument (`cluster['nodes'][0]['available']`), formatted only
/// for an error message: a 10,000-node dict has 60,000 places and none of them is shown
/// unless it is wrong.
enum Place<'a> {
    Root(&'static str),
    Key(&'a Place<'a>, &'a str),
    Index(&'a Place<'a>, usize),
}

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Root(name) => f.write_str(name),
            Place::Key(parent, key) => write!(f, "{parent}[{}]", shown_key(key)),
            Place::Index(parent, index) => write!(f, "{parent}[{index}]"),
        }
    }
}

/// A place's path cut to about 100 characters, at a subscript, with `[…]` for the rest:
/// the path of a value 80 levels deep is 400 characters of `['x']`.
fn cut_path(path: String) -> String {
    const KEEP: usize = 100;
    if path.len() <= KEEP {
        return path;
    }
    // Keys may be any text: cut on a character boundary.
    let mut end = KEEP;
    while !path.is_char_boundary(end) {
        end -= 1;
    }
    match path[..end].rfind('[') {
        Some(cut) if cut > 0 => format!("{}[…]", &path[..cut]),
        _ => path,
    }
}

/// A cluster dict (`{"nodes": [{"id": ..., "available": {...}}]}`, the cluster file's
/// shape) as cluster TOML: top-level values first, then each list of dicts as `[[key]]`
/// blocks and each dict as a `[key]` section, their entries inline. Written straight from
/// the Python objects (a `toml::Value` tree and its serializer cost more than the check at
/// 10,000 nodes).
pub fn cluster_toml(cluster: &Bound<'_, PyDict>) -> PyResult<String> {
    let root = Place::Root("cluster");
    let mut head = String::new();
    let mut blocks = String::new();
    for (key, value) in cluster.iter() {
        let key = str_key(&key, &root)?;
        let here = Place::Key(&root, &key);
        let tables = dict_items(&value);
        if let Some(items) = tables {
            for (i, item) in items.iter().enumerate() {
                blocks.push_str("[[");
                blocks.push_str(&toml_key(&key));
                blocks.push_str("]]\n");
                write_entries(&mut blocks, item, &Place::Index(&here, i), 1)?;
                blocks.push('\n');
            }
        } else if let Ok(dict) = value.cast::<PyDict>() {
            blocks.push('[');
            blocks.push_str(&toml_key(&key));
            blocks.push_str("]\n");
            write_entries(&mut blocks, dict, &here, 1)?;
            blocks.push('\n');
        } else {
            head.push_str(&toml_key(&key));
            head.push_str(" = ");
            write_inline(&mut head, &value, &here, 0)?;
            head.push('\n');
        }
    }
    head.push_str(&blocks);
    Ok(head)
}

/// The dicts of a non-empty list (or tuple) of dicts only.
fn dict_items<'py>(value: &Bound<'py, PyAny>) -> Option<Vec<Bound<'py, PyDict>>> {
    let items: Vec<Bound<'py, PyAny>> = if let Ok(list) = value.cast::<PyList>() {
        list.iter().collect()
    } else if let Ok(tuple) = value.cast::<PyTuple>() {
        tuple.iter().collect()
    } else {
        return None;
    };
    if items.is_empty() {
        return None;
    }
    items
        .into_iter()
        .map(|item| item.cast_into::<PyDict>().ok())
        .collect()
}

fn str_key(key: &Bound<'_, PyAny>, place: &Place<'_>) -> PyResult<String> {
    Ok(key
        .cast::<PyString>()
        .map_err(|_| type_error(place, "str keys", key))?
        .to_cow()?
        .into_owned())
}

/// A dict's entries, one `key = value` line each, values inline; `open` tables (its own
/// section's) around them.
fn write_entries(
    out: &mut String,
    dict: &Bound<'_, PyDict>,
    place: &Place<'_>,
    open: u32,
) -> PyResult<()> {
    for (key, value) in dict.iter() {
        let key = str_key(&key, place)?;
        out.push_str(&toml_key(&key));
        out.push_str(" = ");
        write_inline(out, &value, &Place::Key(place, &key), open)?;
        out.push('\n');
    }
    Ok(())
}

/// A value as an inline TOML value, inside `open` tables and arrays. A list or dict past
/// the reader's nesting limit is an `ArgumentError`: no cluster nests that deep, and one
/// that holds itself would recurse here until the stack ran out (a crash of Python).
fn write_inline(
    out: &mut String,
    value: &Bound<'_, PyAny>,
    place: &Place<'_>,
    open: u32,
) -> PyResult<()> {
    const EXPECTED: &str = "a str, int, float, bool, list or dict";
    let nested = || {
        if open >= TOML_NESTING_LIMIT {
            return Err(crate::errors::argument(
                value.py(),
                &format!(
                    "{}: lists and dicts nested more than {TOML_NESTING_LIMIT} deep (does one hold itself?); a cluster's values nest 2 deep at most ({{'available': {{'GPU': 8}}}})",
                    cut_path(place.to_string())
                ),
            ));
        }
        Ok(open + 1)
    };
    if let Ok(text) = value.cast::<PyString>() {
        out.push_str(&toml_string(&text.to_cow()?));
    } else if let Ok(flag) = value.cast::<PyBool>() {
        out.push_str(if flag.is_true() { "true" } else { "false" });
    } else if value.is_instance_of::<PyInt>() {
        let n = int(value, &place, EXPECTED)?;
        out.push_str(&n.to_string());
    } else if let Ok(number) = value.cast::<PyFloat>() {
        out.push_str(&toml::Value::Float(number.value()).to_string());
    } else if let Ok(dict) = value.cast::<PyDict>() {
        let open = nested()?;
        out.push('{');
        for (i, (key, item)) in dict.iter().enumerate() {
            let key = str_key(&key, place)?;
            out.push_str(if i == 0 { " " } else { ", " });
            out.push_str(&toml_key(&key));
            out.push_str(" = ");
            write_inline(out, &item, &Place::Key(place, &key), open)?;
        }
        out.push_str(if dict.is_empty() { "}" } else { " }" });
    } else if value.is_none() {
        return Err(PyTypeError::new_err(format!(
            "{place}: None has no place in a cluster; leave the key out"
        )));
    } else {
        let items = sequence(value, place, EXPECTED)?;
        let open = nested()?;
        out.push('[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_inline(out, item, &Place::Index(place, i), open)?;
        }
        out.push(']');
    }
    Ok(())
}
