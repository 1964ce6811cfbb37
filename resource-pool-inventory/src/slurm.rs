//! `scontrol show node --json` (Slurm 21.08+), parsed into an [`Inventory`].
//!
//! Read per entry of `nodes[]`: `name`, `state` (an array of flags such as
//! `["IDLE", "DRAIN"]` in newer Slurm, a string such as `"idle"` in older), `cpus`,
//! `alloc_cpus`, `real_memory` and `alloc_memory` (MiB; plain integers, or Slurm 23.02+'s
//! `{"set": true, "number": N}`), `gres` (`gpu:8`, `gpu:h100:8(S:0-1)`, several comma
//! separated) and `gres_used` (`gpu:h100:2(IDX:0-1)`).
//!
//! Mapping: `CPU` = `cpus`, `GPU` = the sum of `gpu` gres counts, `memory` = `real_memory`
//! in bytes; available = total - allocated. A typed gres (`h100`) becomes the node label
//! `gpu_type`, not an `accelerator_type:` resource: Ray declares that resource only from
//! what it detects on the node itself. Nodes that are down, drained, draining, failed,
//! in maintenance or powered down are not alive and get an [`InventoryNote::DeadNode`].
//!
//! Errors carry byte spans into the file: serde_json's line and column for syntax errors,
//! and the located value for a gres string or number of the wrong shape.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use super::json_spans::{Locator, Step};
use super::{Inventory, InventoryNote, NodeRef};
use resource_pool_core::model::{Amount, Cluster, Node, Resources, names};

/// Why a `scontrol show node --json` file does not make an inventory.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum SlurmError {
    /// Not JSON.
    #[error("not JSON: {detail}")]
    #[diagnostic(
        code(resource_pool::slurm::syntax),
        help("give the output of `scontrol show node --json` unchanged")
    )]
    Syntax {
        /// serde_json's message.
        detail: String,
        /// Where.
        #[label("here")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
    /// JSON, but not the shape scontrol prints.
    #[error("not the shape of `scontrol show node --json`: {detail}")]
    #[diagnostic(
        code(resource_pool::slurm::shape),
        help("expected `{{\"nodes\": [{{\"name\": ..., \"cpus\": ..., \"gres\": ...}}]}}`")
    )]
    Shape {
        /// What was wrong.
        detail: String,
        /// Where.
        #[label("{detail}")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
    /// Two nodes with one name: the file is two listings run together, or edited.
    #[error("node `{name}` is listed twice")]
    #[diagnostic(
        code(resource_pool::slurm::duplicate_node),
        help("give the output of one `scontrol show node --json` unchanged")
    )]
    DuplicateNode {
        /// The node's name, as the tool lists it.
        name: String,
        /// The second listing's name.
        #[label("listed again here")]
        #[serde(skip)]
        span: miette::SourceSpan,
        /// The first listing's name.
        #[label("first listed here")]
        #[serde(skip)]
        first: miette::SourceSpan,
    },
    /// A gres string that is not `name[:type]:count[(...)]`.
    #[error("node `{node}`: gres `{value}` is not `gpu[:TYPE]:COUNT`")]
    #[diagnostic(
        code(resource_pool::slurm::bad_gres),
        help("Slurm prints gres as `gpu:8` or `gpu:h100:8(S:0-1)`, comma separated")
    )]
    BadGres {
        /// The node's name, as its source lists it.
        node: String,
        /// The gres string.
        value: String,
        /// Where.
        #[label("not a gres list")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
}

#[derive(Deserialize)]
struct Doc {
    nodes: Vec<Value>,
}

/// Parses `scontrol show node --json` output; every problem of the file at once.
pub fn parse_slurm_nodes(text: &str) -> Result<Inventory, Vec<SlurmError>> {
    let doc = parse_doc(text)?;
    let mut errors = Vec::new();
    let mut nodes = Vec::new();
    let mut notes = Vec::new();
    // Spans are looked up only for errors, each from its node's start.
    let locator = Locator::new(text, "nodes");
    let mut first_use: HashMap<&str, usize> = HashMap::with_capacity(doc.nodes.len());
    for (index, raw) in doc.nodes.iter().enumerate() {
        let name = match node_name(raw, index, &first_use, &locator) {
            Ok(name) => name,
            Err(error) => {
                errors.push(error);
                continue;
            }
        };
        first_use.insert(name, index);
        let entry = Entry {
            raw,
            name,
            index,
            locator: &locator,
        };
        nodes.push(entry.node(&mut errors, &mut notes));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let cluster = Cluster::new(nodes);
    let any_accelerator = cluster.alive().any(|n| {
        let resources = n.total.as_ref().unwrap_or(&n.available);
        !resources.get(names::GPU).is_zero()
    });
    if !any_accelerator {
        notes.push(InventoryNote::NoAccelerators {
            listed_by: crate::SourceKind::Slurm,
        });
    }
    Ok(Inventory { cluster, notes })
}

/// The document's `nodes` array, or why the text is not JSON of that shape.
fn parse_doc(text: &str) -> Result<Doc, Vec<SlurmError>> {
    serde_json::from_str(text).map_err(|e| {
        let offset = super::json_spans::offset_of_line_column(text, e.line(), e.column());
        let error = if e.is_syntax() || e.is_eof() {
            SlurmError::Syntax {
                detail: e.to_string(),
                span: (offset, 0).into(),
            }
        } else {
            SlurmError::Shape {
                detail: e.to_string(),
                span: (offset, 0).into(),
            }
        };
        vec![error]
    })
}

/// The span of the value at `path`, empty at the start when it cannot be found.
fn span_at(locator: &Locator<'_>, path: &[Step<'_>]) -> miette::SourceSpan {
    let range = locator.span(path).unwrap_or(0..0);
    (range.start, range.len()).into()
}

/// The name of the node at `index`: a string, not empty, not already listed (at the
/// index in `first_use`).
fn node_name<'a>(
    raw: &'a Value,
    index: usize,
    first_use: &HashMap<&str, usize>,
    locator: &Locator<'_>,
) -> Result<&'a str, SlurmError> {
    let Some(name) = raw.get("name").and_then(Value::as_str) else {
        return Err(SlurmError::Shape {
            detail: "a node without a string `name`".into(),
            span: span_at(locator, &["nodes".into(), index.into()]),
        });
    };
    // Slurm names every node; an empty name would be a node the cluster file (what
    // `inventory` writes) refuses as having no id.
    if name.is_empty() {
        return Err(SlurmError::Shape {
            detail: "a node with an empty `name`".into(),
            span: span_at(locator, &["nodes".into(), index.into(), "name".into()]),
        });
    }
    if let Some(&first) = first_use.get(name) {
        return Err(SlurmError::DuplicateNode {
            name: name.to_owned(),
            span: span_at(locator, &["nodes".into(), index.into(), "name".into()]),
            first: span_at(locator, &["nodes".into(), first.into(), "name".into()]),
        });
    }
    Ok(name)
}

/// One named entry of `nodes[]`, read key by key into a node.
struct Entry<'a> {
    raw: &'a Value,
    name: &'a str,
    index: usize,
    locator: &'a Locator<'a>,
}

impl Entry<'_> {
    /// The node, its resources from the counts and gres, its errors and (when Slurm
    /// holds it out of service) its dead-node note.
    fn node(&self, errors: &mut Vec<SlurmError>, notes: &mut Vec<InventoryNote>) -> Node {
        let (raw, name) = (self.raw, self.name);
        let cpus = self.number("cpus", errors);
        let alloc_cpus = self.number("alloc_cpus", errors);
        let memory_mib = self.number("real_memory", errors);
        let alloc_mib = self.number("alloc_memory", errors);
        let (gpus, types) = self.gres("gres", errors).unwrap_or_default();
        let (used_gpus, _) = self.gres("gres_used", errors).unwrap_or_default();
        let states = node_states(raw.get("state"));
        let down = states.iter().find(|s| is_unusable(s)).cloned();

        let whole = |n: u64| Amount::from_whole(n).unwrap_or_default();
        let bytes = |mib: u64| whole(mib.saturating_mul(1024 * 1024));
        let total = Resources::new()
            .with(names::CPU, whole(cpus))
            .with(names::GPU, whole(gpus))
            .with(names::MEMORY, bytes(memory_mib));
        let available = Resources::new()
            .with(names::CPU, whole(cpus.saturating_sub(alloc_cpus)))
            .with(names::GPU, whole(gpus.saturating_sub(used_gpus)))
            .with(names::MEMORY, bytes(memory_mib.saturating_sub(alloc_mib)));
        let mut node = Node::new(name, available).with_total(total);
        if let Some(address) = raw.get("address").and_then(Value::as_str) {
            node.address = Some(address.to_owned());
        }
        if !types.is_empty() {
            node.labels.insert("gpu_type".into(), types.join(","));
        }
        if let Some(state) = down {
            node.alive = false;
            notes.push(self.dead_note(&state));
        }
        node
    }

    /// The span of the entry's value at `key`.
    fn locate(&self, key: &str) -> miette::SourceSpan {
        span_at(
            self.locator,
            &["nodes".into(), self.index.into(), key.into()],
        )
    }

    /// The count at `key`: 0 when absent or null, and when not a count (reported).
    fn number(&self, key: &str, errors: &mut Vec<SlurmError>) -> u64 {
        match self.raw.get(key) {
            None | Some(Value::Null) => 0,
            Some(value) => match as_count(value) {
                Some(n) => n,
                None => {
                    errors.push(SlurmError::Shape {
                        detail: format!("node `{}`: `{key}` is not a count", self.name),
                        span: self.locate(key),
                    });
                    0
                }
            },
        }
    }

    /// The GPU count and types of the gres list at `key` (none when absent); `None` when
    /// it is not a gres list (reported).
    fn gres(&self, key: &str, errors: &mut Vec<SlurmError>) -> Option<(u64, Vec<String>)> {
        let value = self.raw.get(key).and_then(Value::as_str).unwrap_or("");
        match parse_gres(value) {
            Some(parsed) => Some(parsed),
            None => {
                errors.push(SlurmError::BadGres {
                    node: self.name.to_owned(),
                    value: value.to_owned(),
                    span: self.locate(key),
                });
                None
            }
        }
    }

    /// The note on a node Slurm holds out of service (`state`), with Slurm's reason.
    fn dead_note(&self, state: &str) -> InventoryNote {
        let name = self.name;
        let reason = self
            .raw
            .get("reason")
            .and_then(Value::as_str)
            .filter(|r| !r.is_empty())
            .map(|r| format!("Slurm state {state}: {r}"))
            .unwrap_or_else(|| format!("Slurm state {state}"));
        InventoryNote::DeadNode {
            node: NodeRef {
                id: name.to_owned(),
                address: None,
            },
            reason: Some(reason),
            remedy: format!(
                "once it is healthy, `scontrol update nodename={name} state=resume` returns it to Slurm"
            ),
        }
    }
}

/// The GPU count and types of a gres list: `gpu:8`, `gpu:h100:8(S:0-1),shard:4`, `(null)`.
pub fn parse_gres(text: &str) -> Option<(u64, Vec<String>)> {
    let mut count = 0u64;
    let mut types = Vec::new();
    if text.is_empty() || text == "(null)" {
        return Some((0, types));
    }
    for item in split_top_level(text) {
        let item = item.split('(').next().unwrap_or("");
        let mut parts = item.split(':');
        let kind = parts.next().unwrap_or("");
        let rest: Vec<&str> = parts.collect();
        if kind.is_empty() {
            return None;
        }
        let (gres_type, n) = match rest.as_slice() {
            [] => (None, 1),
            [n] => match n.parse::<u64>() {
                Ok(n) => (None, n),
                Err(_) => (Some(*n), 1),
            },
            [t, n] => (Some(*t), n.parse::<u64>().ok()?),
            _ => return None,
        };
        if kind == "gpu" {
            count = count.checked_add(n)?;
            if let Some(t) = gres_type
                && !types.iter().any(|x| x == t)
            {
                types.push(t.to_owned());
            }
        }
    }
    Some((count, types))
}

fn split_top_level(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out
}

fn node_states(state: Option<&Value>) -> Vec<String> {
    match state {
        Some(Value::String(s)) => s.split('+').map(|s| s.to_ascii_uppercase()).collect(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_ascii_uppercase)
            .collect(),
        _ => Vec::new(),
    }
}

fn is_unusable(state: &str) -> bool {
    let state = state.trim_end_matches(['*', '~', '#', '!', '%', '$', '@', '^', '-']);
    matches!(
        state,
        "DOWN"
            | "DRAIN"
            | "DRAINED"
            | "DRAINING"
            | "FAIL"
            | "FAILING"
            | "NOT_RESPONDING"
            | "MAINT"
            | "MAINTENANCE"
            | "POWERED_DOWN"
            | "POWER_DOWN"
            | "FUTURE"
            | "UNKNOWN"
    )
}

fn as_count(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64(),
        Value::Object(map) => {
            if map.get("infinite").and_then(Value::as_bool) == Some(true) {
                return None;
            }
            if map.get("set").and_then(Value::as_bool) == Some(false) {
                return Some(0);
            }
            map.get("number").and_then(Value::as_u64)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = include_str!("../tests/data/slurm/nodes.json");

    #[test]
    fn gres_forms() {
        assert_eq!(parse_gres("gpu:8"), Some((8, vec![])));
        assert_eq!(
            parse_gres("gpu:h100:8(S:0-1)"),
            Some((8, vec!["h100".into()]))
        );
        assert_eq!(
            parse_gres("gpu:a100:4(S:0),gpu:l4:2(S:1),shard:8"),
            Some((6, vec!["a100".into(), "l4".into()]))
        );
        assert_eq!(parse_gres("(null)"), Some((0, vec![])));
        assert_eq!(parse_gres("gpu:h100:8x"), None);
        assert_eq!(parse_gres(":3"), None);
    }

    #[test]
    fn nodes_map_to_ray_resources() {
        let inventory = parse_slurm_nodes(GOOD).expect("parses");
        let nodes = &inventory.cluster.nodes;
        assert_eq!(nodes.len(), 4);
        let gpu01 = &nodes[0];
        assert_eq!(gpu01.id, "gpu01");
        assert!(gpu01.alive);
        let total = gpu01.total.as_ref().expect("total");
        assert_eq!(total.get("GPU"), Amount::from_whole(8).unwrap_or_default());
        assert_eq!(
            gpu01.available.get("GPU"),
            Amount::from_whole(6).unwrap_or_default()
        );
        assert_eq!(
            gpu01.available.get("CPU"),
            Amount::from_whole(96).unwrap_or_default()
        );
        assert_eq!(
            gpu01.labels.get("gpu_type").map(String::as_str),
            Some("h100")
        );
        // gpu03 is drained (array state), cpu01 is down (string state, older Slurm).
        assert!(!nodes[2].alive);
        assert!(!nodes[3].alive);
        let dead: Vec<_> = inventory.dead_node_notes().collect();
        assert_eq!(dead.len(), 2);
        assert!(dead[0].to_string().contains("DRAIN"));
    }

    #[test]
    fn malformed_gres_points_at_the_value() {
        let text = include_str!("../tests/data/slurm/bad_gres.json");
        let errors = parse_slurm_nodes(text).expect_err("bad");
        assert_eq!(errors.len(), 2, "{errors:?}");
        let SlurmError::BadGres { span, value, .. } = &errors[0] else {
            panic!("{errors:?}");
        };
        assert_eq!(
            &text[span.offset()..span.offset() + span.len()],
            format!("\"{value}\"")
        );
        assert!(matches!(errors[1], SlurmError::Shape { .. }));
    }

    #[test]
    fn a_node_with_an_empty_name_is_an_error_on_it() {
        // Found by the tool_outputs fuzz target: the node printed a cluster file that
        // refuses it (`cluster::empty_node_id`).
        let text = r#"{"nodes":[{"name":"a","cpus":4},{"name":"","cpus":2}]}"#;
        let errors = parse_slurm_nodes(text).expect_err("an empty name");
        let [SlurmError::Shape { detail, span }] = errors.as_slice() else {
            panic!("{errors:?}");
        };
        assert_eq!(detail, "a node with an empty `name`");
        assert_eq!(&text[span.offset()..span.offset() + span.len()], "\"\"");
    }

    #[test]
    fn a_node_listed_twice_is_an_error_on_both_names() {
        let text = r#"{"nodes":[{"name":"a","cpus":4},{"name":"b"},{"cpus":2,"name":"a"}]}"#;
        let errors = parse_slurm_nodes(text).expect_err("duplicate");
        let [SlurmError::DuplicateNode { name, span, first }] = errors.as_slice() else {
            panic!("{errors:?}");
        };
        assert_eq!(name, "a");
        assert_eq!(span.offset(), text.rfind("\"a\"").expect("second"));
        assert_eq!(first.offset(), text.find("\"a\"").expect("first"));
        assert_eq!(span.len(), 3);
    }

    #[test]
    fn a_bad_count_points_at_its_value_in_its_own_node() {
        // The same key and value earlier in the file must not be the one labelled.
        let text = r#"{"nodes":[{"name":"a","cpus":"x"},{"name":"b","cpus":"x"}]}"#;
        let errors = parse_slurm_nodes(text).expect_err("bad counts");
        let SlurmError::Shape { span, .. } = &errors[1] else {
            panic!("{errors:?}");
        };
        assert_eq!(span.offset(), text.rfind("\"x\"").expect("second"));
    }

    #[test]
    fn syntax_error_has_a_span() {
        let errors = parse_slurm_nodes("{\"nodes\": [\n  {\"name\": }\n]}").expect_err("bad");
        let SlurmError::Syntax { span, .. } = &errors[0] else {
            panic!("{errors:?}");
        };
        assert_eq!(span.offset(), 23);
    }

    #[test]
    fn no_gpu_cluster_says_so() {
        let inventory = parse_slurm_nodes(r#"{"nodes":[{"name":"c1","state":["IDLE"],"cpus":4}]}"#)
            .expect("parses");
        assert!(inventory.notes.contains(&InventoryNote::NoAccelerators {
            listed_by: crate::SourceKind::Slurm,
        }));
    }
}
