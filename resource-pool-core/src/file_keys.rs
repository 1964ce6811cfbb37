//! The keys of each file format, described once. The readers check keys (unknown ones,
//! missing required ones) against these tables, and [`crate::json_schema`] generates the
//! JSON Schemas from them, so a key cannot be added to one and forgotten in the other.

use crate::model::{Accelerator, DEFAULT_MAX_COLOCATE_COUNT, names};

/// What a key's value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// A whole number that fits `u32`, at least `minimum` (the smallest the lint accepts).
    Count {
        /// The smallest value the lint accepts.
        minimum: u32,
    },
    /// A non-empty list of counts of at least 1 (`process_on_nodes`).
    CountList,
    /// A string, one of `one_of` when that is given.
    Text {
        /// The accepted values, when fixed.
        one_of: Option<&'static [&'static str]>,
    },
    /// A string that may not be empty: the name of a Ray resource.
    ResourceName,
    /// `true` or `false`.
    Boolean,
    /// A table of resource name to amount (a number from 0 to
    /// [`Amount::MAX_WHOLE`](crate::model::Amount::MAX_WHOLE)).
    Resources {
        /// Which names the table may use.
        names: ResourceNames,
    },
    /// A table of name to string (`labels`).
    StringTable,
    /// The pool tables of a config (`[pools.NAME]`, each with [`POOL_KEYS`]).
    PoolTables,
    /// A config's `[mapping]`: role name to pool name.
    RoleMapping,
    /// A cluster file's `[[nodes]]`, each with [`NODE_KEYS`].
    NodeList,
}

/// The resource names a resources table may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResourceNames {
    /// Any name (a node's resources).
    Any,
    /// Custom resources only: not empty, not [`VERL_SET_RESOURCES`], not Ray's internal
    /// ones ([`names::is_ray_internal`]). What a pool's `bundle_resources` may ask for.
    Custom,
}

/// The resources verl puts in every bundle itself; `bundle_resources` may not name them.
pub const VERL_SET_RESOURCES: &[&str] = &[names::CPU, names::GPU, names::NPU];

/// A key's default: what the reader assumes when the key is absent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultValue {
    /// A count.
    Count(u32),
    /// A string.
    Text(&'static str),
    /// A boolean.
    Boolean(bool),
}

/// One key of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyDoc {
    /// The key.
    pub name: &'static str,
    /// What the key holds (its TOML type and range).
    pub value: ValueKind,
    /// What it means, for editors and `--help`-like listings.
    pub description: &'static str,
    /// What the reader assumes when it is absent.
    pub default: Option<DefaultValue>,
    /// Whether the table must have it. A node without one is a
    /// [`StructureError::MissingKey`](crate::StructureError::MissingKey); a file without
    /// `pools` or `nodes` is the lint's `no_pools` or the reader's `no_nodes`.
    pub required: bool,
    /// An example value, as TOML (`[8, 8]`, `"GPU"`).
    pub example: &'static str,
}

/// The accelerator a pool asks for when it names none.
pub const DEFAULT_ACCELERATOR: Accelerator = Accelerator::Gpu;

/// Whether a node is alive when its entry does not say.
pub const DEFAULT_ALIVE: bool = true;

const ACCELERATOR_NAMES: &[&str] = &[
    Accelerator::ALL[0].resource_name(),
    Accelerator::ALL[1].resource_name(),
];

/// The ways a pool can give its node-slot sizes: exactly one of these sets of keys, each
/// set whole. The lint's `missing_slots`, `both_slot_forms` and `incomplete_slot_form`.
pub const SLOT_FORMS: [&[&str]; 2] = [&["process_on_nodes"], &["gpus_per_node", "nnodes"]];

/// The top-level keys of a config file.
pub const CONFIG_KEYS: &[KeyDoc] = &[
    KeyDoc {
        name: "verl_version",
        value: ValueKind::Text { one_of: None },
        description: "The verl release the layout is launched with (`0.9.1`, or                       `verl.__version__`): the check follows its rules, which pools get                       placement groups and when, CPUs per bundle, verl's own check.                       `--verl-version` wins; without either, the newest release known.",
        default: None,
        required: false,
        example: "\"0.9.1\"",
    },
    KeyDoc {
        name: "pools",
        value: ValueKind::PoolTables,
        description: "The resource pools, one table each (`[pools.global_pool]`), as verl's \
                      resource_pool_spec lists them: the pools of worker groups get their \
                      groups in file order (a verl release creates some pools later), each \
                      pool's node-slots in list order.",
        default: None,
        // Reported as the lint's `no_pools` (absent or empty), not as a missing key.
        required: true,
        example: "{ global_pool = { process_on_nodes = [8, 8] } }",
    },
    KeyDoc {
        name: "mapping",
        value: ValueKind::RoleMapping,
        description: "Which pool each verl role runs in: `role = \"pool name\"`.",
        default: None,
        required: false,
        example: "{ actor_rollout = \"global_pool\" }",
    },
];

/// The keys of a pool table (`[pools.NAME]`, or a derived struct's `[NAME]`).
pub const POOL_KEYS: &[KeyDoc] = &[
    KeyDoc {
        name: "process_on_nodes",
        value: ValueKind::CountList,
        description: "Accelerators per node-slot, one entry per node-slot (`[8, 8]`): each \
                      entry becomes one STRICT_PACK placement group. Give this, or \
                      `gpus_per_node` with `nnodes`.",
        default: None,
        required: false,
        example: "[8, 8]",
    },
    KeyDoc {
        name: "gpus_per_node",
        value: ValueKind::Count { minimum: 1 },
        description: "Accelerators per node-slot, with `nnodes`: the same as \
                      `process_on_nodes = [gpus_per_node] * nnodes`.",
        default: None,
        required: false,
        example: "8",
    },
    KeyDoc {
        name: "nnodes",
        value: ValueKind::Count { minimum: 1 },
        description: "How many node-slots, with `gpus_per_node`.",
        default: None,
        required: false,
        example: "2",
    },
    KeyDoc {
        name: "accelerator",
        value: ValueKind::Text {
            one_of: Some(ACCELERATOR_NAMES),
        },
        description: "Ray's accelerator resource, in capitals: \"GPU\" (CUDA or ROCm) or \
                      \"NPU\" (Ascend).",
        default: Some(DefaultValue::Text(DEFAULT_ACCELERATOR.resource_name())),
        required: false,
        example: "\"GPU\"",
    },
    KeyDoc {
        name: "max_colocate_count",
        value: ValueKind::Count { minimum: 1 },
        description: "CPUs per bundle: how many worker processes may share each accelerator \
                      of the pool (verl's default).",
        default: Some(DefaultValue::Count(DEFAULT_MAX_COLOCATE_COUNT)),
        required: false,
        example: "3",
    },
    KeyDoc {
        name: "accelerator_type",
        value: ValueKind::ResourceName,
        description: "A Ray accelerator-type resource every bundle asks for a sliver of, \
                      such as \"accelerator_type:H100\".",
        default: None,
        required: false,
        example: "\"accelerator_type:H100\"",
    },
    KeyDoc {
        name: "bundle_resources",
        value: ValueKind::Resources {
            names: ResourceNames::Custom,
        },
        description: "Custom Ray resources every bundle asks for (`{ my_custom = 1 }`): not \
                      CPU, GPU or NPU, which verl sets itself, and not Ray's internal ones.",
        default: None,
        required: false,
        example: "{ my_custom = 1 }",
    },
];

/// The top-level keys of a cluster file.
pub const CLUSTER_KEYS: &[KeyDoc] = &[KeyDoc {
    name: "nodes",
    value: ValueKind::NodeList,
    description: "The nodes, one `[[nodes]]` entry each.",
    default: None,
    // Reported as the reader's `no_nodes` (absent or empty), not as a missing key.
    required: true,
    example: "[{ id = \"node-a\", available = { GPU = 8, CPU = 96 } }]",
}];

/// The keys of a `[[nodes]]` entry.
pub const NODE_KEYS: &[KeyDoc] = &[
    KeyDoc {
        name: "id",
        value: ValueKind::Text { one_of: None },
        description: "The node's id, unique in the file (Ray's node id, a host name).",
        default: None,
        required: true,
        example: "\"node-a\"",
    },
    KeyDoc {
        name: "address",
        value: ValueKind::Text { one_of: None },
        description: "The node's address, shown in reports.",
        default: None,
        required: false,
        example: "\"10.0.0.1\"",
    },
    KeyDoc {
        name: "alive",
        value: ValueKind::Boolean,
        description: "Whether the node is up; a dead node hosts nothing.",
        default: Some(DefaultValue::Boolean(DEFAULT_ALIVE)),
        required: false,
        example: "true",
    },
    KeyDoc {
        name: "head",
        value: ValueKind::Boolean,
        description: "Whether the node is the cluster's head, where `ray job submit` runs a job's driver (verl's TaskRunner holds a CPU there); without one, the first alive node is taken for it.",
        default: Some(DefaultValue::Boolean(false)),
        required: false,
        example: "true",
    },
    KeyDoc {
        name: "available",
        value: ValueKind::Resources {
            names: ResourceNames::Any,
        },
        description: "The resources free now, by Ray name (`{ GPU = 8, CPU = 96 }`).",
        default: None,
        required: true,
        example: "{ GPU = 8, CPU = 96 }",
    },
    KeyDoc {
        name: "total",
        value: ValueKind::Resources {
            names: ResourceNames::Any,
        },
        description: "The resources the node has in all, busy or not: tells \"busy now\" \
                      from \"never\" in reports.",
        default: None,
        required: false,
        example: "{ GPU = 8, CPU = 96 }",
    },
    KeyDoc {
        name: "labels",
        value: ValueKind::StringTable,
        description: "The node's labels, name to string.",
        default: None,
        required: false,
        example: "{ zone = \"a\" }",
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PoolDefaults;

    fn key(keys: &[KeyDoc], name: &str) -> KeyDoc {
        *keys
            .iter()
            .find(|k| k.name == name)
            .expect("a described key")
    }

    #[test]
    fn defaults_are_the_readers() {
        let reader = PoolDefaults::default();
        assert_eq!(
            key(POOL_KEYS, "accelerator").default,
            Some(DefaultValue::Text(reader.accelerator.resource_name()))
        );
        assert_eq!(
            key(POOL_KEYS, "max_colocate_count").default,
            Some(DefaultValue::Count(reader.max_colocate_count))
        );
    }

    #[test]
    fn accelerator_names_are_every_accelerator() {
        let all: Vec<&str> = Accelerator::ALL.iter().map(|a| a.resource_name()).collect();
        assert_eq!(ACCELERATOR_NAMES, all.as_slice());
    }

    #[test]
    fn slot_forms_name_pool_keys() {
        for name in SLOT_FORMS.iter().flat_map(|form| form.iter()) {
            assert!(POOL_KEYS.iter().any(|k| k.name == *name), "{name}");
        }
    }

    #[test]
    fn every_example_is_one_toml_value() {
        for doc in [CONFIG_KEYS, POOL_KEYS, CLUSTER_KEYS, NODE_KEYS].concat() {
            let text = format!("x = {}", doc.example);
            let parsed: Result<toml::Table, _> = toml::from_str(&text);
            assert!(parsed.is_ok(), "{}: {:?}", doc.name, parsed.err());
        }
    }
}
