//! JSON Schemas (draft 2020-12) of the config and cluster file formats, for editors
//! (taplo, Even Better TOML) that check a TOML file against a schema as it is typed.
//!
//! Generated from the key tables the readers check keys against ([`crate::file_keys`]),
//! with each key's description, default and an example. A schema says what it can say:
//! types, ranges, the accepted accelerators, the two ways of sizing node-slots, the names
//! `bundle_resources` may not use. What needs more than one file's shape (a mapping to a
//! pool that does not exist, duplicate node ids, the size limits) stays with the lint.
//! The schema never rejects a file the lint accepts: role names outside verl's are not
//! refused, only offered as completions.

use serde_json::{Map, Value, json};

use crate::file_keys::{
    CLUSTER_KEYS, CONFIG_KEYS, DefaultValue, KeyDoc, NODE_KEYS, POOL_KEYS, ResourceNames,
    SLOT_FORMS, VERL_SET_RESOURCES, ValueKind,
};
use crate::lint::RoleSet;
use crate::model::{Amount, names};

/// The JSON Schema dialect of the schemas.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The schema of config files; `roles` are offered as `[mapping]` keys (any other name
/// is allowed, as the lint only warns about it).
pub fn config_schema(roles: &RoleSet) -> Value {
    let generator = Generator { roles };
    let mut schema = generator.table(CONFIG_KEYS);
    schema.insert("$schema".into(), DIALECT.into());
    schema.insert("title".into(), "resource-pool config".into());
    schema.insert(
        "description".into(),
        "verl's resource pools (`[pools.NAME]`) and the pool each role runs in \
         (`[mapping]`), as `resource-pool lint` and `check` read them."
            .into(),
    );
    let mut pool = generator.table(POOL_KEYS);
    pool.insert(
        "description".into(),
        "One resource pool: its node-slots and what each bundle asks for.".into(),
    );
    pool.extend(slot_forms());
    schema.insert("$defs".into(), json!({ "pool": pool, "amount": amount() }));
    Value::Object(schema)
}

/// The schema of cluster files.
pub fn cluster_schema() -> Value {
    let generator = Generator {
        roles: &RoleSet::Any,
    };
    let mut schema = generator.table(CLUSTER_KEYS);
    schema.insert("$schema".into(), DIALECT.into());
    schema.insert("title".into(), "resource-pool cluster".into());
    schema.insert(
        "description".into(),
        "The nodes of a cluster and their resources, as `resource-pool check --cluster` \
         reads them and `resource-pool inventory` writes them, in TOML or JSON."
            .into(),
    );
    let mut node = generator.table(NODE_KEYS);
    node.insert(
        "description".into(),
        "One node: its id and the resources it has free.".into(),
    );
    schema.insert("$defs".into(), json!({ "node": node, "amount": amount() }));
    Value::Object(schema)
}

struct Generator<'a> {
    roles: &'a RoleSet,
}

impl Generator<'_> {
    /// A table with exactly these keys.
    fn table(&self, keys: &[KeyDoc]) -> Map<String, Value> {
        let properties: Map<String, Value> = keys
            .iter()
            .map(|key| (key.name.to_owned(), Value::Object(self.key(key))))
            .collect();
        let required: Vec<&str> = keys.iter().filter(|k| k.required).map(|k| k.name).collect();
        let mut table = Map::new();
        table.insert("type".into(), "object".into());
        table.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            table.insert("required".into(), json!(required));
        }
        table.insert("additionalProperties".into(), false.into());
        table
    }

    /// One key: its value's schema with the description, default and example.
    fn key(&self, key: &KeyDoc) -> Map<String, Value> {
        let mut schema = self.value(key.value);
        schema.insert("description".into(), key.description.into());
        if let Some(default) = key.default {
            let default = match default {
                DefaultValue::Count(n) => json!(n),
                DefaultValue::Text(text) => json!(text),
                DefaultValue::Boolean(b) => json!(b),
            };
            schema.insert("default".into(), default);
        }
        if let Some(example) = toml_value(key.example) {
            schema.insert("examples".into(), json!([example]));
        }
        schema
    }

    fn value(&self, kind: ValueKind) -> Map<String, Value> {
        let schema = match kind {
            ValueKind::Count { minimum } => count(minimum),
            ValueKind::CountList => json!({ "type": "array", "minItems": 1, "items": count(1) }),
            ValueKind::Text { one_of: None } => json!({ "type": "string" }),
            ValueKind::ResourceName => json!({ "type": "string", "minLength": 1 }),
            ValueKind::Text {
                one_of: Some(values),
            } => json!({ "type": "string", "enum": values }),
            ValueKind::Boolean => json!({ "type": "boolean" }),
            ValueKind::Resources { names } => resources(names),
            ValueKind::StringTable => {
                json!({ "type": "object", "additionalProperties": { "type": "string" } })
            }
            ValueKind::PoolTables => json!({
                "type": "object",
                "minProperties": 1,
                "additionalProperties": { "$ref": "#/$defs/pool" },
            }),
            ValueKind::RoleMapping => self.mapping(),
            ValueKind::NodeList => json!({
                "type": "array",
                "minItems": 1,
                "items": { "$ref": "#/$defs/node" },
            }),
        };
        match schema {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    /// Role name to pool name; the known roles listed for completion.
    fn mapping(&self) -> Value {
        let known: Map<String, Value> = match self.roles {
            RoleSet::Any => Map::new(),
            RoleSet::Known(roles) => roles
                .iter()
                .flat_map(|role| {
                    role.names.iter().map(move |name| {
                        let description = if *name == role.canonical {
                            format!("The pool verl's `{}` role runs in.", role.canonical)
                        } else {
                            format!(
                                "The pool verl's `{}` role runs in (`{name}` is another name \
                                 for it).",
                                role.canonical
                            )
                        };
                        let schema = json!({ "type": "string", "description": description });
                        (name.clone(), schema)
                    })
                })
                .collect(),
        };
        json!({
            "type": "object",
            "properties": known,
            "additionalProperties": { "type": "string" },
        })
    }
}

/// A whole number from `minimum` to `u32::MAX`.
fn count(minimum: u32) -> Value {
    json!({ "type": "integer", "minimum": minimum, "maximum": u32::MAX })
}

/// A resource amount.
fn amount() -> Value {
    json!({
        "type": "number",
        "minimum": 0,
        "maximum": Amount::MAX_WHOLE,
        "description": "An amount of a Ray resource, in steps of 0.0001.",
    })
}

fn resources(allowed: ResourceNames) -> Value {
    let mut schema = json!({
        "type": "object",
        "additionalProperties": { "$ref": "#/$defs/amount" },
    });
    if allowed == ResourceNames::Custom {
        let reserved: Vec<&str> = VERL_SET_RESOURCES
            .iter()
            .chain(names::INTERNAL)
            .copied()
            .collect();
        let mut refused = vec![json!({ "enum": reserved })];
        refused.extend(
            names::INTERNAL_PREFIXES
                .iter()
                .map(|p| json!({ "pattern": format!("^{}", regex_literal(p)) })),
        );
        refused.extend(
            names::INTERNAL_INFIXES
                .iter()
                .map(|i| json!({ "pattern": regex_literal(i) })),
        );
        schema["propertyNames"] = json!({ "minLength": 1, "not": { "anyOf": refused } });
    }
    schema
}

/// Exactly one of the slot forms, each whole.
fn slot_forms() -> Map<String, Value> {
    let one_of: Vec<Value> = SLOT_FORMS
        .iter()
        .map(|form| json!({ "required": form }))
        .collect();
    let mut together = Map::new();
    for form in SLOT_FORMS.iter().filter(|form| form.len() > 1) {
        for key in form.iter() {
            let others: Vec<&str> = form.iter().copied().filter(|k| k != key).collect();
            together.insert((*key).to_owned(), json!(others));
        }
    }
    let mut out = Map::new();
    out.insert("oneOf".into(), Value::Array(one_of));
    out.insert("dependentRequired".into(), Value::Object(together));
    out
}

/// An example value written as TOML, as JSON.
fn toml_value(example: &str) -> Option<Value> {
    let table: toml::Table = toml::from_str(&format!("x = {example}")).ok()?;
    serde_json::to_value(table.get("x")?).ok()
}

/// `text` as a regular expression that matches it literally.
fn regex_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\^$.|?*+()[]{}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_has_its_example() {
        let schema = config_schema(&RoleSet::known([("critic", &[][..])]));
        let pool = &schema["$defs"]["pool"]["properties"];
        for key in POOL_KEYS {
            assert!(
                pool[key.name]["examples"].is_array(),
                "{} has no example",
                key.name
            );
        }
        let schema = cluster_schema();
        for key in NODE_KEYS {
            assert!(schema["$defs"]["node"]["properties"][key.name]["examples"].is_array());
        }
    }

    #[test]
    fn regex_literal_escapes_metacharacters() {
        assert_eq!(regex_literal("node:"), "node:");
        assert_eq!(regex_literal("a.b*"), "a\\.b\\*");
    }

    #[test]
    fn slot_forms_require_each_pair_whole() {
        let forms = slot_forms();
        assert_eq!(
            forms["dependentRequired"],
            json!({ "gpus_per_node": ["nnodes"], "nnodes": ["gpus_per_node"] })
        );
    }
}
