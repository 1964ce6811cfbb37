//! One pool's table (`[pools.global_pool]`, or `[global_pool]` in a derived struct's file),
//! read with spans. The same keys in both places.

use toml::de::DeTable;

use crate::file_keys::POOL_KEYS;
use crate::model::{Accelerator, Amount, DEFAULT_MAX_COLOCATE_COUNT, PoolSpec, Resources};
use crate::source::{Span, Spanned};
use crate::toml_support::walk::{self as toml_walk, StructureError};

use super::count_arrays::CountArrays;

/// A pool's table as written, every value with its span. Keys that were absent or of the
/// wrong type are `None` (the wrong type is reported when the table is read).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PoolDoc {
    /// The pool's name, spanned on its key in the header.
    pub name: Spanned<String>,
    /// `process_on_nodes = [8, 8]`: the list's span and each entry's.
    pub process_on_nodes: Option<Spanned<Vec<Spanned<u32>>>>,
    /// `gpus_per_node = 8`.
    pub gpus_per_node: Option<Spanned<u32>>,
    /// `nnodes = 2`.
    pub nnodes: Option<Spanned<u32>>,
    /// `accelerator = "GPU"`.
    pub accelerator: Option<Spanned<String>>,
    /// `max_colocate_count = 3`.
    pub max_colocate_count: Option<Spanned<u32>>,
    /// `accelerator_type = "accelerator_type:H100"`.
    pub accelerator_type: Option<Spanned<String>>,
    /// `bundle_resources = { my_custom = 1 }`, in file order.
    pub bundle_resources: Vec<(Spanned<String>, Spanned<Amount>)>,
    /// Whether a key of this table was unreadable (wrong type, bad number): the pool
    /// cannot be built.
    pub unreadable: bool,
}

/// What a pool is when its table leaves a key out: verl's defaults, or a derived struct's
/// attribute values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolDefaults {
    /// Node-slots fixed in code; the file may then leave the size out.
    pub process_on_nodes: Option<Vec<u32>>,
    /// What each bundle asks for: `GPU` or `NPU`.
    pub accelerator: Accelerator,
    /// CPUs per bundle.
    pub max_colocate_count: u32,
    /// The accelerator type resource.
    pub accelerator_type: Option<String>,
}

impl Default for PoolDefaults {
    fn default() -> PoolDefaults {
        PoolDefaults {
            process_on_nodes: None,
            accelerator: Accelerator::Gpu,
            max_colocate_count: DEFAULT_MAX_COLOCATE_COUNT,
            accelerator_type: None,
        }
    }
}

/// Where a pool's node-slot sizes come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotSource<'a> {
    /// `process_on_nodes`: one span per entry.
    List(&'a [Spanned<u32>]),
    /// `gpus_per_node` × `nnodes`, spanned on `gpus_per_node`.
    Repeat {
        /// Accelerators per node-slot.
        size: u32,
        /// Node-slots.
        count: u32,
        /// `gpus_per_node`'s span.
        span: &'a Span,
    },
    /// Fixed by the defaults (a derived struct's attribute).
    Defaults(&'a [u32]),
    /// Not given.
    Missing,
}

impl PoolDoc {
    /// Reads a pool table, reporting unknown keys, wrong types and bad numbers; the
    /// `process_on_nodes` read ahead of the parser are taken from `counts`.
    pub(crate) fn read(
        name: Spanned<String>,
        table: &DeTable<'_>,
        table_name: &str,
        counts: &mut CountArrays,
        out: &mut Vec<StructureError>,
    ) -> PoolDoc {
        toml_walk::check_keys(table, POOL_KEYS, table_name, out);
        let unknown = out.len();
        let mut doc = PoolDoc {
            name,
            ..PoolDoc::default()
        };
        for (key, value) in toml_walk::entries(table) {
            let key = key.get_ref().as_ref();
            match key {
                "process_on_nodes" => {
                    if let Some(items) = toml_walk::array(key, value, out) {
                        // Read ahead of the parser when it is a plain array of counts (its
                        // tree value is then empty).
                        let read = counts.take(value.span().start).unwrap_or_else(|| {
                            items
                                .iter()
                                .enumerate()
                                .filter_map(|(i, item)| {
                                    let key = format_args!("process_on_nodes[{i}]");
                                    toml_walk::count(key, item, out)
                                })
                                .collect()
                        });
                        doc.process_on_nodes = Some(Spanned::new(read, value.span()));
                    }
                }
                "gpus_per_node" => doc.gpus_per_node = toml_walk::count(key, value, out),
                "nnodes" => doc.nnodes = toml_walk::count(key, value, out),
                "accelerator" => doc.accelerator = toml_walk::string(key, value, out),
                "max_colocate_count" => doc.max_colocate_count = toml_walk::count(key, value, out),
                "accelerator_type" => doc.accelerator_type = toml_walk::string(key, value, out),
                "bundle_resources" => {
                    doc.bundle_resources =
                        toml_walk::resources(key, value, out).unwrap_or_default();
                }
                _ => {}
            }
        }
        // Unknown keys are ignored when building; any error after them made a value
        // unreadable.
        doc.unreadable = out.len() > unknown;
        doc
    }

    /// Where the node-slot sizes come from, `defaults` filling in what the table leaves out.
    pub fn slot_source<'a>(&'a self, defaults: &'a PoolDefaults) -> SlotSource<'a> {
        if let Some(list) = &self.process_on_nodes {
            return SlotSource::List(&list.value);
        }
        if let (Some(size), Some(count)) = (&self.gpus_per_node, &self.nnodes) {
            return SlotSource::Repeat {
                size: size.value,
                count: count.value,
                span: &size.span,
            };
        }
        match &defaults.process_on_nodes {
            Some(fixed) if self.gpus_per_node.is_none() && self.nnodes.is_none() => {
                SlotSource::Defaults(fixed)
            }
            _ => SlotSource::Missing,
        }
    }

    /// The span of node-slot `slot`: its entry in `process_on_nodes`, or the key that sets
    /// every slot's size; the pool's header when the size comes from code.
    pub fn slot_span(&self, slot: usize, defaults: &PoolDefaults) -> Span {
        match self.slot_source(defaults) {
            SlotSource::List(items) => items
                .get(slot)
                .map_or(self.name.span.clone(), |s| s.span.clone()),
            SlotSource::Repeat { span, .. } => span.clone(),
            SlotSource::Defaults(_) | SlotSource::Missing => self.name.span.clone(),
        }
    }

    /// The accelerator, `None` when the name is unknown.
    pub fn accelerator(&self, defaults: &PoolDefaults) -> Option<Accelerator> {
        match &self.accelerator {
            Some(name) => name.value.parse().ok(),
            None => Some(defaults.accelerator),
        }
    }

    /// The CPUs per bundle.
    pub fn max_colocate_count(&self, defaults: &PoolDefaults) -> u32 {
        self.max_colocate_count
            .as_ref()
            .map_or(defaults.max_colocate_count, |m| m.value)
    }

    /// The pool as the model holds it. `None` when something is missing or unreadable;
    /// the lint says what. Callers lint first and build only a file without errors.
    pub fn build(&self, defaults: &PoolDefaults) -> Option<PoolSpec> {
        if self.unreadable {
            return None;
        }
        let process_on_nodes = match self.slot_source(defaults) {
            SlotSource::List(items) => items.iter().map(|s| s.value).collect(),
            SlotSource::Missing => return None,
            // The lint bounds `count` before anything is built.
            SlotSource::Repeat { size, count, .. } => vec![size; usize::try_from(count).ok()?],
            SlotSource::Defaults(fixed) => fixed.to_vec(),
        };
        let bundle_resources: Resources = self
            .bundle_resources
            .iter()
            .map(|(name, amount)| (name.value.clone(), amount.value))
            .collect();
        Some(PoolSpec {
            process_on_nodes,
            accelerator: self.accelerator(defaults)?,
            max_colocate_count: self.max_colocate_count(defaults),
            accelerator_type: self
                .accelerator_type
                .as_ref()
                .map(|t| t.value.clone())
                .or_else(|| defaults.accelerator_type.clone()),
            bundle_resources,
        })
    }
}
