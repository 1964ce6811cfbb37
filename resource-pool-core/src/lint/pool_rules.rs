//! Rules on one pool's table.

use crate::config::{ConfigDiagnostic, PoolDefaults, PoolDoc, SlotSource};
use crate::file_keys::VERL_SET_RESOURCES;
use crate::model::{Accelerator, names};
use crate::source::{Span, Spanned, did_you_mean, to_source_span};

/// Limits on what a config may ask for, so that a typo cannot make us allocate without
/// bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConfigLimits {
    /// The most node-slots over all pools of a file.
    pub max_slots: u64,
}

impl ConfigLimits {
    /// One million node-slots: ten times the largest clusters people run.
    pub const DEFAULT_MAX_SLOTS: u64 = 1_000_000;
}

impl Default for ConfigLimits {
    fn default() -> ConfigLimits {
        ConfigLimits {
            max_slots: ConfigLimits::DEFAULT_MAX_SLOTS,
        }
    }
}

/// The node-slots of the pools linted so far, counted against [`ConfigLimits::max_slots`]:
/// their sum, and the pool with the most, which the error names (the value to look at is
/// most likely the large one, not the pool that happens to pass the limit).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SlotTally {
    total: u64,
    /// The pool with the most node-slots (the first of equals), its count and where it
    /// gives them, when that is in the text being linted.
    largest: Option<(String, u64, Option<Span>)>,
}

impl SlotTally {
    /// The node-slots counted.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The pool with the most node-slots counted (the first of equals), and its count.
    pub fn largest(&self) -> Option<(&str, u64)> {
        self.largest
            .as_ref()
            .map(|(name, count, _)| (name.as_str(), *count))
    }

    /// The pools counted so far were read from another text: their spans do not point
    /// into the next one's (serde reads each pool table as a text of its own).
    pub fn forget_spans(&mut self) {
        if let Some((_, _, span)) = &mut self.largest {
            *span = None;
        }
    }
}

/// Checks one pool. `worker_groups` is how many worker groups share the pool's GPUs (one
/// CPU per bundle each); `slots` counts the node-slots of earlier pools against the limit
/// and is advanced by this pool's.
pub fn lint_pool(
    pool: &PoolDoc,
    defaults: &PoolDefaults,
    worker_groups: u32,
    limits: &ConfigLimits,
    slots: &mut SlotTally,
    out: &mut Vec<ConfigDiagnostic>,
) {
    let start = out.len();
    lint_slot_forms(pool, defaults, out);
    let count = lint_slots(pool, defaults, out);
    slots.count_pool(pool, count, limits, out);
    lint_colocate(pool, defaults, worker_groups, out);
    lint_accelerator(pool, out);
    lint_bundle_resources(pool, out);
    if out[start..].iter().all(|d| !d.is_error())
        && let Some(spec) = pool.build(defaults)
        // The largest slot overflows first: demand grows with the bundles.
        && let Some(&largest) = spec.process_on_nodes.iter().max()
        && spec.slot_demand(largest).is_err()
    {
        out.push(ConfigDiagnostic::DemandOverflow {
            pool: pool.name.value.clone(),
            span: to_source_span(&pool.name.span),
        });
    }
}

impl SlotTally {
    /// Counts a pool's `count` node-slots; reports the pools' passing the limit, once,
    /// when this pool makes them pass it.
    fn count_pool(
        &mut self,
        pool: &PoolDoc,
        count: u64,
        limits: &ConfigLimits,
        out: &mut Vec<ConfigDiagnostic>,
    ) {
        let before = self.total;
        self.total = before.saturating_add(count);
        if self
            .largest
            .as_ref()
            .is_none_or(|(_, most, _)| count > *most)
        {
            let span = pool
                .nnodes
                .as_ref()
                .map(|n| n.span.clone())
                .or_else(|| pool.process_on_nodes.as_ref().map(|p| p.span.clone()))
                .unwrap_or_else(|| pool.name.span.clone());
            self.largest = Some((pool.name.value.clone(), count, Some(span)));
        }
        // Reported once, when the pools pass the limit (every later pool is over it only
        // because of the earlier ones), on the largest pool: the value most likely mistyped.
        if before <= limits.max_slots
            && self.total > limits.max_slots
            && let Some((largest, most, span)) = &self.largest
        {
            let span = span.clone().unwrap_or_else(|| pool.name.span.clone());
            out.push(ConfigDiagnostic::TooManySlots {
                pool: largest.clone(),
                count: *most,
                total: self.total,
                limit: limits.max_slots,
                span: to_source_span(&span),
            });
        }
    }
}

/// The pool's node-slots, in whichever form it gives them, each checked (none empty or
/// zero, all of one size); returns how many there are.
fn lint_slots(pool: &PoolDoc, defaults: &PoolDefaults, out: &mut Vec<ConfigDiagnostic>) -> u64 {
    let name = &pool.name.value;
    match pool.slot_source(defaults) {
        SlotSource::List(items) => {
            lint_slot_list(pool, items, out);
            items.len() as u64
        }
        SlotSource::Repeat { size, count, span } => {
            if size == 0 {
                out.push(ConfigDiagnostic::ZeroSlot {
                    pool: name.clone(),
                    span: to_source_span(span),
                });
            }
            if count == 0
                && let Some(nnodes) = &pool.nnodes
            {
                out.push(ConfigDiagnostic::EmptySlots {
                    pool: name.clone(),
                    span: to_source_span(&nnodes.span),
                });
            }
            u64::from(count)
        }
        SlotSource::Defaults(fixed) => fixed.len() as u64,
        SlotSource::Missing => 0,
    }
}

/// `process_on_nodes = [...]`: not empty, no slot of zero, every slot the first's size.
fn lint_slot_list(pool: &PoolDoc, items: &[Spanned<u32>], out: &mut Vec<ConfigDiagnostic>) {
    let name = &pool.name.value;
    if let Some(list) = &pool.process_on_nodes
        && list.value.is_empty()
        && !pool.unreadable
    {
        out.push(ConfigDiagnostic::EmptySlots {
            pool: name.clone(),
            span: to_source_span(&list.span),
        });
    }
    for item in items.iter().filter(|i| i.value == 0) {
        out.push(ConfigDiagnostic::ZeroSlot {
            pool: name.clone(),
            span: to_source_span(&item.span),
        });
    }
    if let Some(first) = items.first()
        && let Some(other) = items
            .iter()
            .find(|i| i.value != first.value && i.value != 0)
        && first.value != 0
    {
        out.push(ConfigDiagnostic::UnevenSlots {
            pool: name.clone(),
            first: first.value,
            span: to_source_span(&other.span),
        });
    }
}

/// `accelerator` one of Ray's names (with the nearest as a hint), and `accelerator_type`
/// not empty.
fn lint_accelerator(pool: &PoolDoc, out: &mut Vec<ConfigDiagnostic>) {
    if let Some(acc) = &pool.accelerator
        && acc.value.parse::<Accelerator>().is_err()
    {
        let known = Accelerator::ALL.map(Accelerator::resource_name);
        let upper = acc.value.to_ascii_uppercase();
        let help = match did_you_mean(&upper, known) {
            Some(close) => {
                format!("did you mean `{close}`? Ray's names are GPU and NPU, in capitals")
            }
            None => "use \"GPU\" (CUDA/ROCm) or \"NPU\" (Ascend)".to_owned(),
        };
        out.push(ConfigDiagnostic::UnknownAccelerator {
            name: acc.value.clone(),
            help,
            span: to_source_span(&acc.span),
        });
    }
    if let Some(kind) = &pool.accelerator_type
        && kind.value.is_empty()
    {
        out.push(ConfigDiagnostic::EmptyAcceleratorType {
            pool: pool.name.value.clone(),
            span: to_source_span(&kind.span),
        });
    }
}

fn lint_slot_forms(pool: &PoolDoc, defaults: &PoolDefaults, out: &mut Vec<ConfigDiagnostic>) {
    let name = &pool.name.value;
    let pair = pool.gpus_per_node.as_ref().or(pool.nnodes.as_ref());
    match (&pool.process_on_nodes, pair) {
        (Some(list), Some(pair)) => out.push(ConfigDiagnostic::BothSlotForms {
            pool: name.clone(),
            list: to_source_span(&list.span),
            pair: to_source_span(&pair.span),
        }),
        (None, Some(_)) => match (&pool.gpus_per_node, &pool.nnodes) {
            (Some(g), None) => out.push(ConfigDiagnostic::IncompleteSlotForm {
                pool: name.clone(),
                given: "gpus_per_node",
                missing: "nnodes",
                span: to_source_span(&g.span),
            }),
            (None, Some(n)) => out.push(ConfigDiagnostic::IncompleteSlotForm {
                pool: name.clone(),
                given: "nnodes",
                missing: "gpus_per_node",
                span: to_source_span(&n.span),
            }),
            _ => {}
        },
        (None, None) if defaults.process_on_nodes.is_none() && !pool.unreadable => {
            out.push(ConfigDiagnostic::MissingSlots {
                pool: name.clone(),
                span: to_source_span(&pool.name.span),
            });
        }
        _ => {}
    }
}

fn lint_colocate(
    pool: &PoolDoc,
    defaults: &PoolDefaults,
    worker_groups: u32,
    out: &mut Vec<ConfigDiagnostic>,
) {
    let Some(mcc) = &pool.max_colocate_count else {
        return;
    };
    let name = &pool.name.value;
    if mcc.value == 0 {
        out.push(ConfigDiagnostic::ZeroColocate {
            pool: name.clone(),
            span: to_source_span(&mcc.span),
        });
    } else if mcc.value < worker_groups {
        out.push(ConfigDiagnostic::ColocateTooSmall {
            pool: name.clone(),
            groups: worker_groups,
            count: pool.max_colocate_count(defaults),
            span: to_source_span(&mcc.span),
        });
    }
}

fn lint_bundle_resources(pool: &PoolDoc, out: &mut Vec<ConfigDiagnostic>) {
    for (name, _) in &pool.bundle_resources {
        let problem = if name.value.is_empty() {
            Some(("is empty", "give the custom resource its Ray name"))
        } else if VERL_SET_RESOURCES.contains(&name.value.as_str()) {
            Some((
                "is set by verl itself",
                "CPUs per bundle come from max_colocate_count and the accelerator from `accelerator`",
            ))
        } else if names::is_ray_internal(&name.value) {
            Some((
                "is one of Ray's internal resources",
                "request custom resources declared with `ray start --resources`",
            ))
        } else {
            None
        };
        if let Some((problem, help)) = problem {
            out.push(ConfigDiagnostic::BadBundleResource {
                name: name.value.clone(),
                problem,
                help,
                span: to_source_span(&name.span),
            });
        }
    }
}
