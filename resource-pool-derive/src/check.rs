//! Checks of the model that need no other item: names, duplicates and literal sizes, one
//! `check_*` rule each (as serde_derive's `internals/check.rs`), every rule reporting to the
//! context so that all mistakes are shown at once. What needs the role enum itself (every
//! role assigned, every name a variant) is left to the compiler through the generated code.

use crate::ast::{FixedSlots, Lit, Pool, PoolsStruct, RoleEnum};
use crate::ctxt::Ctxt;

// A proc-macro crate cannot cheaply depend on the core: these copies of its facts are tied
// to it by the tests below.

/// verl's default `max_colocate_count` (`resource_pool::DEFAULT_MAX_COLOCATE_COUNT`).
const DEFAULT_MAX_COLOCATE_COUNT: u32 = 3;
/// Ray's fixed point: units in one whole resource (`resource_pool::Amount::SCALE`).
const SCALE: u128 = 10_000;

/// The most node-slots `nnodes` may fix, and all attributes together: the limit the
/// loaders apply to all pools of a file (`ConfigLimits::DEFAULT_MAX_SLOTS`, the CLI's
/// default `--max-slots`). The slots are compiled into the program as one static list.
const MAX_FIXED_SLOTS: u32 = 1_000_000;

/// `#[derive(Role)]`: every rule, each reporting to the context.
pub(crate) fn role_enum(cx: &Ctxt, role: &RoleEnum) {
    check_role_names_distinct(cx, role);
}

/// `#[derive(ResourcePools)]`: every rule, each reporting to the context.
pub(crate) fn pools_struct(cx: &Ctxt, pools: &PoolsStruct) {
    check_roles_listed_once(cx, pools);
    for pool in &pools.pools {
        check_colocate(cx, pool);
        check_slot_forms(cx, pool);
        check_slot_overflow(cx, pool);
    }
    check_total_slots(cx, pools);
}

// A duplicate is one mistake, so it is one error, at the second occurrence; the message
// names the first (its variant, or its pool), which is what a note at the first would add.
// Stable proc macros have no notes (`proc_macro::Diagnostic` is unstable), and a second
// `syn::Error` there reads as a second mistake ("error: note: ...") and counts as one.

/// Two variants may not share a name after renaming: the name is how a file and serde
/// say which role.
fn check_role_names_distinct(cx: &Ctxt, role: &RoleEnum) {
    for (i, variant) in role.variants.iter().enumerate() {
        if let Some(first) = role.variants[..i].iter().find(|v| v.name == variant.name) {
            cx.error_span(
                variant.name_span,
                format!(
                    "roles `{}` and `{}` are both named \"{}\": role names must be distinct; \
                     give one of them another name with `#[role(rename = \"...\")]`",
                    first.ident, variant.ident, variant.name
                ),
            );
        }
    }
}

/// A role lives in exactly one pool, listed once. (That every role has a pool needs the
/// enum: the generated code leaves it to the compiler.)
fn check_roles_listed_once(cx: &Ctxt, pools: &PoolsStruct) {
    let mut seen: Vec<(&syn::Ident, &syn::Ident)> = Vec::new();
    for pool in &pools.pools {
        for role in &pool.roles {
            match seen.iter().find(|(r, _)| *r == role) {
                Some((_, first_pool)) if *first_pool == pool.ident => cx.error_at(
                    role,
                    format!(
                        "role `{role}` is listed twice in pool `{}`: remove this one",
                        pool.ident
                    ),
                ),
                Some((_, first_pool)) => cx.error_at(
                    role,
                    format!(
                        "role `{role}` is assigned to two pools, first `{first_pool}` and then \
                         `{}`: a role lives in exactly one pool, so remove it from one of them",
                        pool.ident
                    ),
                ),
                None => seen.push((role, pool.ident)),
            }
        }
    }
}

/// Each bundle reserves `max_colocate_count` CPUs, one per worker process sharing the
/// accelerator: at least one, and at least the pool's worker groups (written, or verl's
/// default when not).
fn check_colocate(cx: &Ctxt, pool: &Pool) {
    let groups = pool.worker_groups();
    let how = if pool.separate_worker_groups.is_some() {
        format!("hosts {groups} worker groups (`separate_worker_groups`, one per role)")
    } else {
        "fuses its roles into one worker group".to_owned()
    };
    match &pool.max_colocate_count {
        Some(lit) if lit.value == 0 => cx.error_span(
            lit.span,
            format!(
                "pool `{}` has max_colocate_count = 0, but each bundle needs at least one CPU",
                pool.ident
            ),
        ),
        Some(lit) if lit.value < groups => cx.error_span(
            lit.span,
            format!(
                "pool `{}` {how}, so max_colocate_count must be at least {groups} \
                 (one CPU per worker process on each bundle), not {}",
                pool.ident, lit.value
            ),
        ),
        Some(_) => {}
        None if groups > DEFAULT_MAX_COLOCATE_COUNT => cx.error_span(
            pool.separate_worker_groups.unwrap_or(pool.span),
            format!(
                "pool `{}` {how}, more than verl's default max_colocate_count of \
                 {DEFAULT_MAX_COLOCATE_COUNT}: set `max_colocate_count = {groups}`",
                pool.ident
            ),
        ),
        None => {}
    }
}

/// One fixed node-slot asks for `bundles * max_colocate_count` CPUs in Ray's fixed point,
/// which must fit `u64`.
fn check_slot_overflow(cx: &Ctxt, pool: &Pool) {
    let cpus = u128::from(
        pool.max_colocate_count
            .as_ref()
            .map_or(DEFAULT_MAX_COLOCATE_COUNT, |m| m.value),
    )
    .max(1);
    let sizes: Vec<&Lit<u32>> = match pool.fixed_slots() {
        Some(FixedSlots::List(list)) => list.value.iter().collect(),
        Some(FixedSlots::Repeat { size, .. }) => vec![size],
        None => Vec::new(),
    };
    if let Some(big) = sizes
        .iter()
        .find(|slot| u128::from(slot.value) * cpus * SCALE > u128::from(u64::MAX))
    {
        cx.error_span(
            big.span,
            format!(
                "pool `{}`: a node-slot of {} bundles overflows Ray's resource amounts",
                pool.ident, big.value
            ),
        );
    }
}

/// The node-slots all attributes fix, together within the limit the loaders apply to all
/// pools of a file: `fixed()` loads exactly these, and must not fail at run time. Reported
/// once, on the count (or list) of the pool that passes the limit, naming every pool that
/// fixes node-slots so that the large value is found. A pool over the limit on its own has
/// its own error (`check_slot_forms`), which this would only repeat.
fn check_total_slots(cx: &Ctxt, pools: &PoolsStruct) {
    let mut fixed: Vec<(&syn::Ident, u64)> = Vec::new();
    let mut total: u64 = 0;
    for pool in &pools.pools {
        let (count, span) = match pool.fixed_slots() {
            Some(FixedSlots::List(list)) => (list.value.len() as u64, list.span),
            Some(FixedSlots::Repeat { count, .. }) if count.value > MAX_FIXED_SLOTS => return,
            Some(FixedSlots::Repeat { count, .. }) => (u64::from(count.value), count.span),
            None => continue,
        };
        fixed.push((pool.ident, count));
        let before = total;
        total += count;
        if before <= u64::from(MAX_FIXED_SLOTS) && total > u64::from(MAX_FIXED_SLOTS) {
            let each: Vec<String> = fixed
                .iter()
                .map(|(name, count)| format!("`{name}` {count}"))
                .collect();
            cx.error_span(
                span,
                format!(
                    "the pools' attributes fix {total} node-slots together ({}), more than the \
                     {MAX_FIXED_SLOTS} the loaders accept over all pools, so `fixed()` could \
                     not load them: is this a typo? fix fewer node-slots",
                    each.join(", ")
                ),
            );
        }
    }
}

/// The node-slots of a pool's attribute: at most one form, each whole, no zero.
fn check_slot_forms(cx: &Ctxt, pool: &Pool) {
    let name = pool.ident;
    if let Some(list) = &pool.process_on_nodes {
        if list.value.is_empty() && !pool.slots_unread {
            cx.error_span(
                list.span,
                format!(
                    "pool `{name}` has no node-slot: `process_on_nodes` lists the accelerators \
                     of each node-slot, such as `[8, 8]`"
                ),
            );
        }
        for slot in list.value.iter().filter(|s| s.value == 0) {
            cx.error_span(
                slot.span,
                format!(
                    "pool `{name}` has a node-slot of 0 accelerators; each node-slot needs at least one"
                ),
            );
        }
        // One mistake, one error: on the pair's first key, when both halves are written.
        if let Some(key) = pool.gpus_per_node.as_ref().or(pool.nnodes.as_ref()) {
            cx.error_span(
                key.span,
                format!(
                    "pool `{name}` gives both `process_on_nodes` and `gpus_per_node`/`nnodes`: \
                     keep one form"
                ),
            );
        }
        return;
    }
    match (&pool.gpus_per_node, &pool.nnodes) {
        (Some(size), Some(count)) => {
            if size.value == 0 {
                cx.error_span(
                    size.span,
                    format!(
                        "pool `{name}` has node-slots of 0 accelerators; `gpus_per_node` is at least 1"
                    ),
                );
            }
            if count.value == 0 {
                cx.error_span(
                    count.span,
                    format!("pool `{name}` has no node-slot: `nnodes` is at least 1"),
                );
            } else if count.value > MAX_FIXED_SLOTS {
                cx.error_span(
                    count.span,
                    format!(
                        "pool `{name}` fixes {} node-slots, more than {MAX_FIXED_SLOTS}: \
                         give its size in the pools file instead",
                        count.value
                    ),
                );
            }
        }
        // Half a pair whose other half was written but unreadable is that half's error.
        _ if pool.slots_unread => {}
        (Some(size), None) => cx.error_span(
            size.span,
            format!("pool `{name}` gives `gpus_per_node` without `nnodes`: add `nnodes = N`"),
        ),
        (None, Some(count)) => cx.error_span(
            count.span,
            format!(
                "pool `{name}` gives `nnodes` without `gpus_per_node`: add `gpus_per_node = N`"
            ),
        ),
        (None, None) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copies_are_the_cores() {
        assert_eq!(
            DEFAULT_MAX_COLOCATE_COUNT,
            resource_pool::DEFAULT_MAX_COLOCATE_COUNT
        );
        assert_eq!(SCALE, u128::from(resource_pool::Amount::SCALE));
        assert_eq!(
            u64::from(MAX_FIXED_SLOTS),
            resource_pool::lint::ConfigLimits::DEFAULT_MAX_SLOTS
        );
    }
}
