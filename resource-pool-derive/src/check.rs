//! Checks of the model that need no other item: names, duplicates and literal sizes.
//! What needs the role enum itself (every role assigned, every name a variant) is left
//! to the compiler through the generated code.

use crate::ast::{PoolsStruct, RoleEnum};
use crate::ctxt::Ctxt;

/// verl's default `max_colocate_count` (`resource_pool::DEFAULT_MAX_COLOCATE_COUNT`).
const DEFAULT_MAX_COLOCATE_COUNT: u32 = 3;
/// Ray's fixed point: units in one whole resource.
const SCALE: u128 = 10_000;

pub(crate) fn role_enum(cx: &Ctxt, role: &RoleEnum) {
    for (i, variant) in role.variants.iter().enumerate() {
        if let Some(first) = role.variants[..i].iter().find(|v| v.name == variant.name) {
            cx.error_span(
                variant.name_span,
                format!(
                    "roles `{}` and `{}` are both named \"{}\": role names must be distinct",
                    first.ident, variant.ident, variant.name
                ),
            );
            cx.error_span(
                first.name_span,
                format!(
                    "note: role `{}` is named \"{}\" here",
                    first.ident, first.name
                ),
            );
        }
    }
}

pub(crate) fn pools_struct(cx: &Ctxt, pools: &PoolsStruct) {
    let mut seen: Vec<(&syn::Ident, &syn::Ident)> = Vec::new();
    for pool in &pools.pools {
        for role in &pool.roles {
            match seen.iter().find(|(r, _)| *r == role) {
                Some((first, first_pool)) if *first_pool == pool.ident => {
                    cx.error_at(
                        role,
                        format!("role `{role}` is listed twice in pool `{}`", pool.ident),
                    );
                    cx.error_at(first, format!("note: role `{role}` is first listed here"));
                }
                Some((first, first_pool)) => {
                    cx.error_at(
                        role,
                        format!(
                            "role `{role}` is assigned to two pools, `{first_pool}` and `{}`: \
                             a role lives in exactly one pool",
                            pool.ident
                        ),
                    );
                    cx.error_at(
                        first,
                        format!(
                            "note: role `{role}` is first assigned here, to pool `{first_pool}`"
                        ),
                    );
                }
                None => seen.push((role, pool.ident)),
            }
        }

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

        if let Some(nodes) = &pool.process_on_nodes {
            if nodes.value.is_empty() {
                cx.error_span(
                    nodes.span,
                    format!(
                        "pool `{}` has no node-slot: `process_on_nodes` lists the accelerators \
                         of each node-slot, such as `[8, 8]`",
                        pool.ident
                    ),
                );
            }
            for slot in &nodes.value {
                if slot.value == 0 {
                    cx.error_span(
                        slot.span,
                        format!(
                            "pool `{}` has a node-slot of 0 accelerators; each node-slot needs at least one",
                            pool.ident
                        ),
                    );
                }
            }
            // One node-slot asks for `bundles * max_colocate_count` CPUs in Ray's fixed point.
            let cpus = u128::from(
                pool.max_colocate_count
                    .as_ref()
                    .map_or(DEFAULT_MAX_COLOCATE_COUNT, |m| m.value),
            )
            .max(1);
            if let Some(big) = nodes
                .value
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
    }
}
