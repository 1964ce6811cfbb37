//! Reads one key of a field's `#[pool(...)]` into its [`Pool`], one function per key.

use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, LitStr, Path, Token};

use super::value::{Number, expr_u32, lit_str, lit_u32, skip_value, unknown_key};
use crate::ast::{Accelerator, Lit, Pool};
use crate::ctxt::Ctxt;

const POOL_KEYS: &[&str] = &[
    "roles",
    "max_colocate_count",
    "process_on_nodes",
    "gpus_per_node",
    "nnodes",
    "accelerator",
    "accelerator_type",
    "separate_worker_groups",
];

/// What reading a field's `#[pool(...)]` found beside the model's values.
#[derive(Default)]
pub(super) struct PoolKeys {
    pub(super) roles_seen: bool,
    /// A key was unknown, or the attribute unreadable past a mistake (already reported).
    pub(super) incomplete: bool,
}

/// One key of `#[pool(...)]`.
pub(super) fn pool_key(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    pool: &mut Pool,
    keys: &mut PoolKeys,
) -> syn::Result<()> {
    let path = &meta.path;
    if path.is_ident("roles") {
        set_twice(cx, path, pool, keys.roles_seen);
        keys.roles_seen = true;
        roles(cx, meta, pool)
    } else if path.is_ident("max_colocate_count") {
        set_twice(cx, path, pool, pool.max_colocate_count.is_some());
        if let Some(value) = lit_u32(cx, meta, "max_colocate_count = 1")? {
            pool.max_colocate_count = Some(value);
        }
        Ok(())
    } else if path.is_ident("gpus_per_node") {
        set_twice(cx, path, pool, pool.gpus_per_node.is_some());
        match lit_u32(cx, meta, "gpus_per_node = 8")? {
            Some(value) => pool.gpus_per_node = Some(value),
            None => pool.slots_unread = true,
        }
        Ok(())
    } else if path.is_ident("nnodes") {
        set_twice(cx, path, pool, pool.nnodes.is_some());
        match lit_u32(cx, meta, "nnodes = 2")? {
            Some(value) => pool.nnodes = Some(value),
            None => pool.slots_unread = true,
        }
        Ok(())
    } else if path.is_ident("process_on_nodes") {
        set_twice(cx, path, pool, pool.process_on_nodes.is_some());
        process_on_nodes(cx, meta, pool)
    } else if path.is_ident("accelerator") {
        set_twice(cx, path, pool, pool.accelerator.is_some());
        accelerator(cx, meta, pool)
    } else if path.is_ident("accelerator_type") {
        set_twice(cx, path, pool, pool.accelerator_type.is_some());
        accelerator_type(cx, meta, pool)
    } else if path.is_ident("separate_worker_groups") {
        set_twice(cx, path, pool, pool.separate_worker_groups.is_some());
        separate_worker_groups(cx, meta, pool)
    } else {
        keys.incomplete = true;
        unknown_key(cx, meta, "pool", POOL_KEYS)
    }
}

/// Reports the key at `path` as set twice when `set` (it was set before).
fn set_twice(cx: &Ctxt, path: &Path, pool: &Pool, set: bool) {
    if set {
        let key = path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        cx.error_at(
            path,
            format!("`{key}` is set twice for pool `{}`", pool.ident),
        );
    }
}

/// `roles(Actor, Critic)`: the variants the pool hosts, each a bare name.
fn roles(cx: &Ctxt, meta: &ParseNestedMeta, pool: &mut Pool) -> syn::Result<()> {
    let path = &meta.path;
    if !meta.input.peek(syn::token::Paren) {
        cx.error_at(
            path,
            "list the pool's roles in parentheses: `roles(Actor, Critic)`",
        );
        return skip_value(meta);
    }
    let content;
    syn::parenthesized!(content in meta.input);
    // A role written as a string gets the variant to write instead, not syn's bare
    // "expected identifier".
    let items =
        Punctuated::<Result<Path, LitStr>, Token![,]>::parse_terminated_with(&content, |input| {
            if input.peek(LitStr) {
                input.parse().map(Err)
            } else {
                input.parse().map(Ok)
            }
        })?;
    let written = items.len();
    let mut paths = Vec::new();
    for item in items {
        match item {
            Ok(path) => paths.push(path),
            Err(name) => cx.error_at(
                &name,
                format!(
                    "`roles` lists the role enum's variants, not strings: write `{}`",
                    variant_of(&name.value())
                ),
            ),
        }
    }
    if written == 0 {
        cx.error_at(
            path,
            format!("pool `{}` lists no role in `roles()`", pool.ident),
        );
    }
    for role in paths {
        match role.get_ident() {
            Some(ident) => pool.roles.push(ident.clone()),
            None => {
                let last = role.segments.last().map(|s| s.ident.to_string());
                cx.error_at(
                    &role,
                    format!(
                        "write the role's bare variant name, such as `{}`: \
                         the enum is the `role` of `#[resource_pools]`",
                        last.as_deref().unwrap_or("Critic")
                    ),
                );
            }
        }
    }
    Ok(())
}

/// The variant a role name written as a string most likely means: `actor_rollout` (or
/// `actor-rollout`) is `ActorRollout`, as `rename_all` would name it.
fn variant_of(name: &str) -> String {
    let variant: String = name
        .split(['_', '-', ' '])
        .filter(|word| !word.is_empty())
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect();
    if syn::parse_str::<syn::Ident>(&variant).is_ok() {
        variant
    } else {
        "ActorRollout".to_owned()
    }
}

/// `process_on_nodes = [8, 8]`: the node-slots as a list of integer literals, each one
/// that cannot be read reported and left out.
fn process_on_nodes(cx: &Ctxt, meta: &ParseNestedMeta, pool: &mut Pool) -> syn::Result<()> {
    // The list is read by hand: syn's `ExprArray` needs its "full" feature, which would
    // make every crate that builds syn (serde's derive too) build the whole of it.
    let value = meta.value()?;
    if !value.peek(syn::token::Bracket) {
        let expr: Expr = value.parse()?;
        cx.error_at(
            &expr,
            "`process_on_nodes` takes a list of accelerators per node-slot, such as `[8, 8]`",
        );
        return Ok(());
    }
    let content;
    let bracket = syn::bracketed!(content in value);
    let elems = Punctuated::<Expr, Token![,]>::parse_terminated(&content)?;
    let number = Number {
        what: "a node-slot size",
        key: "process_on_nodes",
        takes: "`process_on_nodes` takes integer literals, such as `[8, 8]`",
    };
    let mut slots = Vec::new();
    for elem in &elems {
        match expr_u32(cx, elem, &number)? {
            Some(slot) => slots.push(slot),
            None => pool.slots_unread = true,
        }
    }
    pool.process_on_nodes = Some(Lit {
        value: slots,
        span: bracket.span.join(),
    });
    Ok(())
}

/// `accelerator = "GPU"` or `"NPU"`.
fn accelerator(cx: &Ctxt, meta: &ParseNestedMeta, pool: &mut Pool) -> syn::Result<()> {
    let Some(lit) = lit_str(cx, meta, "accelerator = \"NPU\"")? else {
        return Ok(());
    };
    let value = match lit.value().as_str() {
        "GPU" => Accelerator::Gpu,
        "NPU" => Accelerator::Npu,
        other => {
            cx.error_at(
                &lit,
                format!("unknown accelerator \"{other}\": a pool asks for \"GPU\" or \"NPU\""),
            );
            return Ok(());
        }
    };
    pool.accelerator = Some(Lit {
        value,
        span: lit.span(),
    });
    Ok(())
}

/// `accelerator_type = "..."`: a custom Ray resource's name, not empty.
fn accelerator_type(cx: &Ctxt, meta: &ParseNestedMeta, pool: &mut Pool) -> syn::Result<()> {
    if let Some(lit) = lit_str(cx, meta, "accelerator_type = \"accelerator_type:H100\"")? {
        if lit.value().is_empty() {
            cx.error_at(
                &lit,
                "`accelerator_type` names a custom Ray resource, such as \"accelerator_type:H100\"; it cannot be empty",
            );
        } else {
            pool.accelerator_type = Some(Lit {
                value: lit.value(),
                span: lit.span(),
            });
        }
    }
    Ok(())
}

/// `separate_worker_groups`: a flag, whose value, if one is written, is reported and
/// skipped.
fn separate_worker_groups(cx: &Ctxt, meta: &ParseNestedMeta, pool: &mut Pool) -> syn::Result<()> {
    let path = &meta.path;
    if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
        cx.error_at(
            path,
            "`separate_worker_groups` is a flag: write it alone, without a value",
        );
        skip_value(meta)?;
    }
    pool.separate_worker_groups = Some(path.span());
    Ok(())
}
