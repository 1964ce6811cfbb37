//! The serde form of pool tables: [`PoolSpec`]'s `Deserialize` and `Serialize`, and the
//! deserializer of a `#[derive(ResourcePools)]` struct ([`deserialize_struct_pools`]).
//!
//! A pool read through serde has the keys of a config's pool table ([`POOL_KEYS`]) and
//! passes the same rules: each table is read by the same reader ([`PoolDoc`]) and checked
//! by the same lint ([`lint_pool`]) as a file the CLI reads, so there is no second copy of
//! the rules to drift. What serde adds is where an error is reported: a problem of one
//! value (`process_on_nodes = []`, a zero, an unknown key) fails while the format is at
//! that value, so its error carries the value's position (toml: line, column and a
//! snippet; serde_json: line and column); a problem of the table as a whole (neither slot
//! form, both, half of `gpus_per_node`/`nnodes`) fails at the table's end. Serde stops at
//! the first problem; the spanned loaders (`from_toml_str`, the CLI) report them all.
//!
//! How a value is checked where it stands: the table read so far is kept as TOML text,
//! one `key = value` line per key, and after each value the whole text is read and linted
//! again. An error whose every label lies on the new line is that value's; the only rule
//! that could still be satisfied by a later key (half a `gpus_per_node`/`nnodes` pair)
//! waits for the table's end, like the rules about the table as a whole.
//!
//! The node-slot limit over all pools is checked where a pool's count is read (`nnodes`,
//! `process_on_nodes`; or the other half of the pair when it comes after `nnodes`), so
//! that its error is at that value too: the pools read before count what they have, the
//! pools still to read one each (the fewest a pool has).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use crate::config::count_arrays::CountArrays;
use crate::config::{ConfigDiagnostic, PoolDefaults, PoolDoc, PoolField, SlotSource};
use crate::file_keys::{KeyDoc, POOL_KEYS};
use crate::lint::{ConfigLimits, SlotTally, lint_pool};
use crate::model::{Amount, PoolSpec, Resources};
use crate::source::{SourceFile, Span, Spanned};
use crate::toml_support::toml_key;
use crate::toml_support::walk as toml_walk;

/// The name of a pool read on its own (a `PoolSpec` field of a user's config) while it is
/// linted: serde does not tell a value the key it stands under. Messages say "this pool".
pub const UNNAMED_POOL: &str = "(this pool)";

/// The first line of a table's text: it holds the pool's name span, so that errors about
/// the whole pool never look as if they were on a key's line.
const HEADER: &str = "# pool\n";

impl<'de> Deserialize<'de> for PoolSpec {
    /// A pool table with a config's keys and rules and verl's defaults for the keys it
    /// leaves out.
    ///
    /// ```
    /// use resource_pool_core::PoolSpec;
    ///
    /// let pool: PoolSpec = toml::from_str("gpus_per_node = 8\nnnodes = 2\n").unwrap();
    /// assert_eq!(pool, PoolSpec::with_slots([8, 8]));
    /// let err = toml::from_str::<PoolSpec>("process_on_nodes = []\n").unwrap_err();
    /// assert!(err.to_string().contains("`process_on_nodes`: this pool has no node-slot"));
    /// ```
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<PoolSpec, D::Error> {
        let defaults = PoolDefaults::default();
        let mut slots = SlotTally::default();
        let doc =
            PoolTable::new(UNNAMED_POOL, &defaults, 1, &mut slots, 0).deserialize(deserializer)?;
        built(&doc, &defaults)
    }
}

/// Every key the format has, and each with a value: what [`PoolDoc::build`] reads back.
impl Serialize for PoolSpec {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let optional = usize::from(self.accelerator_type.is_some())
            + usize::from(!self.bundle_resources.is_empty());
        let mut map = serializer.serialize_map(Some(3 + optional))?;
        // Every key that has a value is written, verl's defaults too: a derived struct's
        // attribute may default a key differently, and the text must read back the same.
        map.serialize_entry("process_on_nodes", &self.process_on_nodes)?;
        map.serialize_entry("accelerator", self.accelerator.resource_name())?;
        map.serialize_entry("max_colocate_count", &self.max_colocate_count)?;
        if let Some(kind) = &self.accelerator_type {
            map.serialize_entry("accelerator_type", kind)?;
        }
        if !self.bundle_resources.is_empty() {
            map.serialize_entry("bundle_resources", &ResourcesForm(&self.bundle_resources))?;
        }
        map.end()
    }
}

/// A resources table as numbers: whole amounts as integers, others as floats, read back
/// by [`Amount::from_f64`] (exact while the units fit an `f64`'s 53 bits, some 900 billion
/// whole units: far above any custom resource a bundle asks for).
struct ResourcesForm<'a>(&'a Resources);

impl Serialize for ResourcesForm<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, amount) in self.0.iter() {
            if amount.units() % Amount::SCALE == 0 {
                map.serialize_entry(name, &(amount.units() / Amount::SCALE))?;
            } else {
                map.serialize_entry(name, &amount.as_f64())?;
            }
        }
        map.end()
    }
}

/// Reads the pools of a `#[derive(ResourcePools)]` struct from any serde format: one
/// pool table per field, under the field's name, each with the field's attribute values
/// as its defaults and its worker groups, exactly as
/// [`load_struct_pools`](crate::load::load_struct_pools) reads them from a file; a key
/// that is no field is refused. The pools come back in field order.
pub fn deserialize_struct_pools<'de, D: Deserializer<'de>>(
    deserializer: D,
    struct_name: &'static str,
    fields: &[PoolField],
) -> Result<Vec<PoolSpec>, D::Error> {
    deserializer.deserialize_map(StructPools {
        struct_name,
        fields,
    })
}

/// Writes a derived struct's pools: one pool table per field, in field order.
pub fn serialize_struct_pools<S: Serializer>(
    serializer: S,
    pools: &[(&str, &PoolSpec)],
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(pools.len()))?;
    for (name, spec) in pools {
        map.serialize_entry(name, spec)?;
    }
    map.end()
}

struct StructPools<'f> {
    struct_name: &'static str,
    fields: &'f [PoolField],
}

impl<'de> Visitor<'de> for StructPools<'_> {
    type Value = Vec<PoolSpec>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the pools of `{}`, one table per pool (",
            self.struct_name
        )?;
        let names: Vec<_> = self.fields.iter().map(|field| field.name).collect();
        write!(f, "{})", names.join(", "))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<PoolSpec>, A::Error> {
        let names: Vec<&str> = self.fields.iter().map(|field| field.name).collect();
        let table_name = format!("the pools of `{}`", self.struct_name);
        let mut docs: Vec<Option<PoolDoc>> = vec![None; self.fields.len()];
        let mut slots = SlotTally::default();
        while let Some(index) = map.next_key_seed(KnownKeySeed {
            names: &names,
            table_name: &table_name,
        })? {
            let field = &self.fields[index];
            if docs[index].is_some() {
                return Err(de::Error::duplicate_field(field.name));
            }
            // The pools still to come, this one aside: written or left out, each has a
            // node-slot at least.
            let after = docs.iter().filter(|doc| doc.is_none()).count() - 1;
            let table = PoolTable::new(
                field.name,
                &field.defaults,
                field.worker_groups,
                &mut slots,
                after as u64,
            );
            docs[index] = Some(map.next_value_seed(table)?);
        }
        let limits = ConfigLimits::default();
        let mut specs = Vec::with_capacity(self.fields.len());
        for (field, doc) in self.fields.iter().zip(docs) {
            let doc = match doc {
                Some(doc) => doc,
                // Left out: the attribute's values, checked as a file without the table is.
                None if field.defaults.process_on_nodes.is_some() => {
                    let doc = PoolDoc {
                        name: Spanned::new(field.name.to_owned(), 0..0),
                        ..PoolDoc::default()
                    };
                    let mut out = Vec::new();
                    let before = slots.clone();
                    lint_pool(
                        &doc,
                        &field.defaults,
                        field.worker_groups,
                        &limits,
                        &mut slots,
                        &mut out,
                    );
                    if let Some(error) = out.iter().find(|d| own_error(d)) {
                        return Err(de::Error::custom(message(None, error)));
                    }
                    // No value to point at: the error is at the pools' table.
                    let count = slots.total() - before.total();
                    if let Some(text) = over_limit(field.name, count, &before, 0) {
                        return Err(de::Error::custom(text));
                    }
                    doc
                }
                None => return Err(de::Error::missing_field(field.name)),
            };
            specs.push(built(&doc, &field.defaults)?);
        }
        Ok(specs)
    }
}

/// A key that must be one of `names`; its index. An unknown key fails on itself, with the
/// readers' wording (did you mean ..., or the list of keys).
struct KnownKeySeed<'a> {
    names: &'a [&'a str],
    table_name: &'a str,
}

impl<'de> DeserializeSeed<'de> for KnownKeySeed<'_> {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KnownKeySeed<'_> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "one of the keys of {}: {}",
            self.table_name,
            self.names.join(", ")
        )
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<usize, E> {
        match self.names.iter().position(|name| *name == key) {
            Some(index) => Ok(index),
            None => {
                let error = toml_walk::unknown_key(key, self.names, self.table_name, &(0..0))
                    .unwrap_or_else(|| unreachable!("`{key}` is not among the names"));
                Err(E::custom(message(None, &ConfigDiagnostic::from(error))))
            }
        }
    }
}

/// One pool table, read and checked: the [`PoolDoc`] the spanned reader would make of it.
struct PoolTable<'a> {
    name: &'a str,
    defaults: &'a PoolDefaults,
    worker_groups: u32,
    /// Node-slots of the pools read before, against the limit; advanced by this pool's.
    slots_so_far: &'a mut SlotTally,
    /// The pools still to read after this one, which count one node-slot each against
    /// the limit (the fewest a pool has): so a pool's value that makes the total too
    /// large is found while the format is at it, even when a pool after it (an
    /// attribute's, left out of the file) is what passes the limit.
    pools_after: u64,
    /// The table so far as TOML text, after [`HEADER`].
    text: String,
    /// The keys so far, with the byte range of each one's line in `text`.
    lines: Vec<(&'static str, Span)>,
}

impl<'a> PoolTable<'a> {
    fn new(
        name: &'a str,
        defaults: &'a PoolDefaults,
        worker_groups: u32,
        slots_so_far: &'a mut SlotTally,
        pools_after: u64,
    ) -> PoolTable<'a> {
        PoolTable {
            name,
            defaults,
            worker_groups,
            slots_so_far,
            pools_after,
            text: HEADER.to_owned(),
            lines: Vec::new(),
        }
    }

    /// Reads the text so far as the spanned reader does, and lints it; `slots` is
    /// advanced by the pool's node-slots.
    fn read(&self, slots: &mut SlotTally) -> (PoolDoc, Vec<ConfigDiagnostic>) {
        let source = SourceFile::new(self.name, self.text.as_str());
        let (root, mut structure) = toml_walk::parse(&source);
        let name = Spanned::new(self.name.to_owned(), 0..HEADER.len() - 1);
        let table_name = format!("pool `{}`", self.name);
        let mut counts = CountArrays::default();
        let doc = PoolDoc::read(
            name,
            root.get_ref(),
            &table_name,
            &mut counts,
            &mut structure,
        );
        let mut diagnostics: Vec<ConfigDiagnostic> =
            structure.into_iter().map(ConfigDiagnostic::from).collect();
        let limits = ConfigLimits::default();
        lint_pool(
            &doc,
            self.defaults,
            self.worker_groups,
            &limits,
            slots,
            &mut diagnostics,
        );
        (doc, diagnostics)
    }

    /// The error of this pool's node-slots, `count`, when they bring the pools over the
    /// limit.
    fn over_limit(&self, count: u64) -> Option<String> {
        over_limit(self.name, count, self.slots_so_far, self.pools_after)
    }

    /// The key of the line an offset is on.
    fn key_at(&self, offset: usize) -> Option<&'static str> {
        self.lines
            .iter()
            .find(|(_, line)| line.contains(&offset))
            .map(|(key, _)| *key)
    }
}

impl<'de> DeserializeSeed<'de> for PoolTable<'_> {
    type Value = PoolDoc;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<PoolDoc, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for PoolTable<'_> {
    type Value = PoolDoc;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "a pool table, such as `{ process_on_nodes = [8, 8] }` or \
             `{ gpus_per_node = 8, nnodes = 2 }`",
        )
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<PoolDoc, A::Error> {
        let names: Vec<&str> = POOL_KEYS.iter().map(|key| key.name).collect();
        let table_name = format!("pool `{}`", self.name);
        while let Some(index) = map.next_key_seed(KnownKeySeed {
            names: &names,
            table_name: &table_name,
        })? {
            let key: &KeyDoc = &POOL_KEYS[index];
            if self.lines.iter().any(|(seen, _)| *seen == key.name) {
                return Err(de::Error::duplicate_field(key.name));
            }
            map.next_value_seed(PoolValue {
                table: &mut self,
                key: key.name,
            })?;
        }
        let mut slots = self.slots_so_far.clone();
        let (doc, diagnostics) = self.read(&mut slots);
        if let Some(error) = diagnostics.iter().find(|d| own_error(d)) {
            let key = first_offset(error).and_then(|offset| self.key_at(offset));
            return Err(de::Error::custom(message(key, error)));
        }
        // Node-slots that no value gave (the attribute's): the error is at the table.
        // Those of a value passed its check already, and pass again.
        if let Some(text) = self.over_limit(slots.total() - self.slots_so_far.total()) {
            return Err(de::Error::custom(text));
        }
        // The next pool is read from a text of its own.
        slots.forget_spans();
        *self.slots_so_far = slots;
        Ok(doc)
    }
}

/// One value of a pool table, appended to the table's text and checked there.
struct PoolValue<'t, 'a> {
    table: &'t mut PoolTable<'a>,
    key: &'static str,
}

impl<'de> DeserializeSeed<'de> for PoolValue<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        // Any value the format holds, kept as TOML so the spanned reader can read it.
        let value = toml::Value::deserialize(deserializer)?;
        let table = self.table;
        let start = table.text.len();
        table.text.push_str(&toml_key(self.key));
        table.text.push_str(" = ");
        table.text.push_str(&value.to_string());
        table.text.push('\n');
        let line = start..table.text.len();
        table.lines.push((self.key, line.clone()));
        let mut slots = table.slots_so_far.clone();
        let (doc, diagnostics) = table.read(&mut slots);
        let own = diagnostics
            .iter()
            .filter(|d| own_error(d) && !waits_for_more_keys(d))
            .find(|d| labels(d).all(|offset| line.contains(&offset)) && labels(d).next().is_some());
        if let Some(error) = own {
            return Err(de::Error::custom(message(Some(self.key), error)));
        }
        // The value that completes the pool's count is where the limit is passed: the
        // count's own (toml reads `gpus_per_node` before `nnodes`), or in a format that
        // keeps the text's order the other half of the pair, as the reader counts a
        // half pair as none. The message names the count's key.
        if !matches!(self.key, "process_on_nodes" | "gpus_per_node" | "nnodes") {
            return Ok(());
        }
        let (count_key, count) = match doc.slot_source(table.defaults) {
            SlotSource::List(items) => ("process_on_nodes", items.len() as u64),
            SlotSource::Repeat { count, .. } => ("nnodes", u64::from(count)),
            SlotSource::Defaults(_) | SlotSource::Missing => return Ok(()),
        };
        match table.over_limit(count) {
            Some(text) => Err(de::Error::custom(format!("`{count_key}`: {text}"))),
            None => Ok(()),
        }
    }
}

/// Whether a later key of the same table can still make the error go away: half of the
/// `gpus_per_node`/`nnodes` pair, whose other half may come next.
fn waits_for_more_keys(diagnostic: &ConfigDiagnostic) -> bool {
    matches!(diagnostic, ConfigDiagnostic::IncompleteSlotForm { .. })
}

/// An error of the lint that serde reports as it is: all but the slot limit, which
/// [`over_limit`] words for the value being read (the lint's names the largest pool at a
/// span serde cannot point at, in another pool's text).
fn own_error(diagnostic: &ConfigDiagnostic) -> bool {
    diagnostic.is_error() && !matches!(diagnostic, ConfigDiagnostic::TooManySlots { .. })
}

/// The error of pool `pool`, whose `count` node-slots bring the pools over the limit after
/// those counted `before` and with one for each of `pools_after` still to read; `None`
/// under the limit. It names the largest pool when that is an earlier one, as the lint's
/// [`ConfigDiagnostic::TooManySlots`] does, and has its help.
fn over_limit(pool: &str, count: u64, before: &SlotTally, pools_after: u64) -> Option<String> {
    let limit = ConfigLimits::default().max_slots;
    let total = before
        .total()
        .saturating_add(count)
        .saturating_add(pools_after);
    if total <= limit {
        return None;
    }
    let this = if pool == UNNAMED_POOL {
        "this pool".to_owned()
    } else {
        format!("pool `{pool}`")
    };
    let mut out = if total == count {
        format!("{this} asks for {count} node-slots, more than the limit of {limit}")
    } else {
        let mut parts = vec![format!("its own {count}")];
        if before.total() > 0 {
            parts.push(format!("{} of the pools before it", before.total()));
        }
        match pools_after {
            0 => {}
            1 => parts.push("at least one for the pool not read yet".to_owned()),
            n => parts.push(format!(
                "at least one for each of the {n} pools not read yet"
            )),
        }
        let last = parts.pop().unwrap_or_default();
        let parts = if parts.is_empty() {
            last
        } else {
            format!("{} and {last}", parts.join(", "))
        };
        let at_least = if pools_after > 0 { "at least " } else { "" };
        format!(
            "{this} brings the node-slots to {at_least}{total}, over the limit of {limit} \
             ({parts})"
        )
    };
    // The first of equals is the largest, as the lint counts.
    let (largest, most) = match before.largest() {
        Some((name, most)) if most >= count => (name, most),
        _ => (pool, count),
    };
    if largest != pool {
        out.push_str(&format!("; the largest is pool `{largest}`, with {most}"));
    }
    // The lint's diagnostic for the same limit, for its help: one source of the remedies.
    let diagnostic = ConfigDiagnostic::TooManySlots {
        pool: largest.to_owned(),
        count: most,
        total,
        limit,
        span: (0..0).into(),
    };
    if let Some(help) = miette::Diagnostic::help(&diagnostic) {
        out.push_str("; ");
        out.push_str(&help.to_string().replace('\n', " "));
    }
    Some(out)
}

/// The offsets of a diagnostic's labels.
fn labels(diagnostic: &ConfigDiagnostic) -> impl Iterator<Item = usize> + '_ {
    miette::Diagnostic::labels(diagnostic)
        .into_iter()
        .flatten()
        .map(|label| label.offset())
}

fn first_offset(diagnostic: &ConfigDiagnostic) -> Option<usize> {
    labels(diagnostic).next()
}

/// A diagnostic as one line of a serde error: the key it is about when its message does
/// not name it, the message, and what to do.
fn message(key: Option<&str>, diagnostic: &ConfigDiagnostic) -> String {
    // A pool read on its own has no name to give: "this pool", not a placeholder's name.
    let text = diagnostic
        .to_string()
        .replace(&format!("pool `{UNNAMED_POOL}`"), "this pool");
    let mut out = match key {
        Some(key) if !text.contains(&format!("`{key}")) => format!("`{key}`: {text}"),
        _ => text,
    };
    if let Some(help) = miette::Diagnostic::help(diagnostic) {
        out.push_str("; ");
        out.push_str(&help.to_string().replace('\n', " "));
    }
    out
}

/// The pool of a table that passed the lint.
fn built<E: de::Error>(doc: &PoolDoc, defaults: &PoolDefaults) -> Result<PoolSpec, E> {
    doc.build(defaults).ok_or_else(|| {
        // The lint reports whatever keeps a pool from being built.
        E::custom(
            format!("pool `{}` cannot be built", doc.name.value)
                .replace(&format!("pool `{UNNAMED_POOL}`"), "this pool"),
        )
    })
}

#[cfg(test)]
mod tests;
