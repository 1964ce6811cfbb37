//! What a group says about the flags KubeRay passes to `ray start`: its `rayStartParams`,
//! and its own `resources` and `labels` fields (KubeRay 1.5 and later), read into the
//! counts and custom resources that the container's quantities do not decide.

use std::collections::BTreeMap;

use super::super::tree::{Node, Value};
use super::{Reader, ceil_whole, is_gpu_key};
use crate::kubectl::parse_quantity;
use crate::kuberay::{KubeRayError, span};
use resource_pool_core::model::{Amount, names};

impl Reader {
    /// The group's `resources` field (KubeRay 1.5 and later), written over what
    /// `rayStartParams` gives as KubeRay's `updateRayStartParamsResources` does: `cpu`
    /// (any case) is `num-cpus`, a GPU key (`GPU`, `nvidia.com/gpu`, any case) is
    /// `num-gpus`, `memory` is Ray's own, and every other name is a custom resource; each
    /// a Kubernetes quantity, rounded up for the counts. KubeRay refuses the field beside
    /// resource flags in `rayStartParams`.
    pub(super) fn group_resources(&mut self, spec: &Node, group: &str, params: &mut StartParams) {
        let Some((field, members)) = self.mapping(spec.get("resources"), "resources") else {
            return;
        };
        if members.is_empty() {
            return;
        }
        let flag = spec.get("rayStartParams").and_then(|p| match &p.value {
            Value::Map(flags) => flags.iter().find(|(key, value)| {
                RESOURCE_FLAGS.contains(&key.as_str())
                    && value.text().is_some_and(|t| !t.is_empty())
            }),
            _ => None,
        });
        if let Some((param, node)) = flag {
            self.errors.push(KubeRayError::ResourcesTwice {
                group: group.to_owned(),
                param: param.clone(),
                span: span(&field.span),
                flag: span(&node.span),
            });
            return;
        }
        let mut cpus: Option<(&str, Amount)> = None;
        let mut gpus: Option<(&str, Amount)> = None;
        let mut custom = BTreeMap::new();
        for (name, node) in members {
            let bad = |reader: &mut Reader, problem: String| {
                reader.errors.push(KubeRayError::BadGroupResource {
                    group: group.to_owned(),
                    name: name.clone(),
                    value: node.text().unwrap_or_default().to_owned(),
                    problem,
                    span: span(&node.span),
                });
            };
            let Some(text) = api_string(node) else {
                bad(
                    self,
                    "is not a string: the API server refuses it (write `\"8\"`)".to_owned(),
                );
                continue;
            };
            let amount = match parse_quantity(text.trim()) {
                Ok(amount) => amount,
                Err(reason) => {
                    bad(self, format!("{reason} (KubeRay would skip it)"));
                    continue;
                }
            };
            let lower = name.to_ascii_lowercase();
            let slot = match lower.as_str() {
                "cpu" => &mut cpus,
                "memory" => continue,
                _ if is_gpu_key(&lower) => &mut gpus,
                _ => {
                    custom.insert(name.clone(), amount);
                    continue;
                }
            };
            let amount = ceil_whole(amount);
            match slot {
                Some((first, earlier)) if *earlier != amount => bad(
                    self,
                    format!(
                        "gives what `{first}` gives too, another amount: KubeRay takes either, as its map's order falls"
                    ),
                ),
                _ => *slot = Some((name, amount)),
            }
        }
        if let Some((_, amount)) = cpus {
            (params.num_cpus, params.num_cpus_written) = (Some(amount), true);
        }
        if let Some((_, amount)) = gpus {
            params.num_gpus = Some(amount);
        }
        if !custom.is_empty() {
            params.resources = custom;
        }
    }

    /// The group's `labels` field (KubeRay 1.5 and later), which KubeRay passes to
    /// `ray start --labels`. A value that is not a string is refused by the API server, a
    /// key or value that is not a Kubernetes label's by KubeRay (`validateRayGroupLabels`:
    /// the cluster is never made).
    pub(super) fn group_labels(&mut self, spec: &Node, group: &str) -> BTreeMap<String, String> {
        let mut labels = BTreeMap::new();
        let Some((_, members)) = self.mapping(spec.get("labels"), "labels") else {
            return labels;
        };
        for (key, node) in members {
            let problem = match api_string(node) {
                Some(text) => match label_key_problem(key).or_else(|| label_value_problem(text)) {
                    None => {
                        labels.insert(key.clone(), text.to_owned());
                        continue;
                    }
                    Some(problem) => problem,
                },
                None => "is not a string: the API server refuses it".to_owned(),
            };
            self.errors.push(KubeRayError::BadLabel {
                group: group.to_owned(),
                key: key.clone(),
                value: node.text().unwrap_or_default().to_owned(),
                problem,
                span: span(&node.span),
            });
        }
        labels
    }

    pub(super) fn start_params(&mut self, spec: &Node, group: &str) -> StartParams {
        let mut out = StartParams::default();
        let Some((_, members)) = self.mapping(spec.get("rayStartParams"), "rayStartParams") else {
            return out;
        };
        let bad = |reader: &mut Reader, param: &str, node: &Node, problem: &str| {
            reader.errors.push(KubeRayError::BadStartParam {
                group: group.to_owned(),
                param: param.to_owned(),
                value: node.text().unwrap_or_default().to_owned(),
                problem: problem.to_owned(),
                span: span(&node.span),
            });
        };
        for (param, node) in members.iter().rev() {
            out.num_cpus_written |= param == "num-cpus";
            let done = match param.as_str() {
                "num-cpus" => out.num_cpus.is_some(),
                "num-gpus" => out.num_gpus.is_some(),
                "resources" => out.resources_seen,
                _ => continue,
            };
            if done {
                continue; // a later duplicate wins
            }
            let Some(text) = node.text() else {
                bad(self, param, node, "is not a string");
                continue;
            };
            if matches!(&node.value, Value::Scalar { plain: true, .. }) && reads_as_non_string(text)
            {
                bad(
                    self,
                    param,
                    node,
                    "is not a string: the API server refuses it (rayStartParams values are strings, `\"8\"`)",
                );
                continue;
            }
            match param.as_str() {
                "num-cpus" | "num-gpus" => {
                    match text
                        .trim()
                        .parse::<u64>()
                        .ok()
                        .and_then(|n| Amount::from_whole(n).ok())
                    {
                        Some(amount) if param == "num-cpus" => out.num_cpus = Some(amount),
                        Some(amount) => out.num_gpus = Some(amount),
                        None => bad(
                            self,
                            param,
                            node,
                            "is not a whole number (`ray start` takes an integer)",
                        ),
                    }
                }
                _ => {
                    out.resources_seen = true;
                    match custom_resources(text) {
                        Ok(resources) => out.resources = resources,
                        Err(problem) => bad(self, param, node, &problem),
                    }
                }
            }
        }
        out
    }
}

/// The text of a scalar that kubectl's YAML reader keeps a string, which a field the API
/// server types as a string (`map[string]string`) takes; `None` for a number, a boolean,
/// a mapping or a list.
fn api_string(node: &Node) -> Option<&str> {
    match &node.value {
        Value::Scalar { text, plain } if !*plain || !reads_as_non_string(text) => Some(text),
        _ => None,
    }
}

/// Whether a plain YAML scalar is typed as something else than a string by kubectl's YAML
/// reader: a number or a boolean.
fn reads_as_non_string(plain: &str) -> bool {
    // YAML 1.1's booleans, as sigs.k8s.io/yaml (go-yaml v2) reads them, `yes` and `on`
    // included.
    matches!(
        plain,
        "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
            | "yes"
            | "Yes"
            | "YES"
            | "no"
            | "No"
            | "NO"
            | "on"
            | "On"
            | "ON"
            | "off"
            | "Off"
            | "OFF"
            | "y"
            | "Y"
            | "n"
            | "N"
    ) || plain.parse::<i64>().is_ok()
        || plain.parse::<f64>().is_ok_and(f64::is_finite)
            && plain.bytes().any(|b| b.is_ascii_digit())
}

/// What keeps `key` from being a Kubernetes label key (`IsQualifiedName`): an optional
/// DNS subdomain prefix and `/`, then a name of at most 63 letters, digits, `-`, `_` and
/// `.`, alphanumeric at both ends.
fn label_key_problem(key: &str) -> Option<String> {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        let label = |part: &str| {
            !part.is_empty()
                && part.len() <= 63
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !part.starts_with('-')
                && !part.ends_with('-')
        };
        if prefix.len() > 253 || !prefix.split('.').all(label) {
            return Some(format!(
                "has the key `{key}`, whose prefix is not a DNS subdomain (lowercase letters, digits, `-` and `.`, as `example.com`)"
            ));
        }
    }
    name_problem(name).map(|problem| format!("has the key `{key}`, whose name {problem}"))
}

/// What keeps `value` from being a Kubernetes label value (`IsValidLabelValue`): empty,
/// or a name as a key's.
fn label_value_problem(value: &str) -> Option<String> {
    if value.is_empty() {
        return None;
    }
    name_problem(value).map(|problem| format!("is not a label value: it {problem}"))
}

/// What keeps `name` from being a label key's name or a label value.
fn name_problem(name: &str) -> Option<&'static str> {
    let alphanumeric = |c: Option<u8>| c.is_some_and(|b| b.is_ascii_alphanumeric());
    if name.is_empty() {
        Some("is empty")
    } else if name.len() > 63 {
        Some("is longer than 63 characters")
    } else if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    {
        Some("holds a character other than letters, digits, `-`, `_` and `.`")
    } else if !alphanumeric(name.bytes().next()) || !alphanumeric(name.bytes().last()) {
        Some("does not start and end with a letter or digit")
    } else {
        None
    }
}

/// The `rayStartParams` that KubeRay refuses beside a group's `resources` field.
const RESOURCE_FLAGS: [&str; 4] = ["num-cpus", "num-gpus", "memory", "resources"];

/// What `rayStartParams` says about resources.
#[derive(Default)]
pub(super) struct StartParams {
    /// `num-cpus` is there, readable or not.
    pub(super) num_cpus_written: bool,
    pub(super) num_cpus: Option<Amount>,
    pub(super) num_gpus: Option<Amount>,
    pub(super) resources: BTreeMap<String, Amount>,
    resources_seen: bool,
}

/// `rayStartParams.resources`: a JSON object of numbers, without `CPU`/`GPU` (Ray refuses
/// those there). KubeRay puts the value into a `bash -c` command line as written, so one
/// outer layer of shell quotes is removed as bash would: `'{"a": 1}'` literally,
/// `"{\"a\": 1}"` with its backslash escapes (the form of KubeRay's samples).
pub(in crate::kuberay) fn custom_resources(text: &str) -> Result<BTreeMap<String, Amount>, String> {
    let trimmed = text.trim();
    let unquoted = if let Some(inner) = trimmed
        .strip_prefix('\'')
        .and_then(|t| t.strip_suffix('\''))
    {
        inner.to_owned()
    } else if let Some(inner) = trimmed.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            match (c, chars.clone().next()) {
                ('\\', Some(next @ ('"' | '\\' | '$' | '`'))) => {
                    out.push(next);
                    chars.next();
                }
                _ => out.push(c),
            }
        }
        out
    } else {
        trimmed.to_owned()
    };
    let map: BTreeMap<String, f64> = serde_json::from_str(&unquoted)
        .map_err(|e| format!("is not a JSON object of numbers ({e})"))?;
    let mut out = BTreeMap::new();
    for (name, value) in map {
        if name == names::CPU || name == names::GPU {
            return Err(format!(
                "names `{name}`, which `ray start` takes only from --num-cpus/--num-gpus"
            ));
        }
        let amount = Amount::from_f64_rounded(value)
            .map_err(|e| format!("gives `{name}` = {value}: {e}"))?;
        out.insert(name, amount);
    }
    Ok(out)
}
