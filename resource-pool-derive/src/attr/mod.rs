//! Reads `#[role(...)]`, `#[resource_pools(...)]` and `#[pool(...)]` into the model of
//! [`crate::ast`], reporting every mistake to the context and reading on past it.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Expr, Fields, LitStr, Path, Token};

use crate::ast::{Accelerator, Lit, Pool, PoolsStruct, RoleEnum, RoleVariant};
use crate::case::RenameRule;
use crate::ctxt::Ctxt;
use crate::suggest;

mod value;

use value::{Number, expr_u32, lit_str, lit_u32, parse_attr, skip_value, unknown_key};

const ENUM_KEYS: &[&str] = &["rename_all"];
const VARIANT_KEYS: &[&str] = &["rename"];
const STRUCT_KEYS: &[&str] = &["role"];
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

/// Reads a `#[derive(Role)]` input; `None` when it is not an enum at all.
pub(crate) fn role_enum<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Option<RoleEnum<'a>> {
    let data = match &input.data {
        Data::Enum(data) => data,
        Data::Struct(data) => {
            not_an_enum(cx, data.struct_token.span, &input.ident, "a struct");
            return None;
        }
        Data::Union(data) => {
            not_an_enum(cx, data.union_token.span, &input.ident, "a union");
            return None;
        }
    };
    if !input.generics.params.is_empty() {
        cx.error_at(
            &input.generics,
            format!(
                "role enum `{}` cannot have generic parameters: roles are a fixed set of names",
                input.ident
            ),
        );
    }
    let mut rename_all = None;
    for attr in role_attrs(&input.attrs) {
        parse_attr(cx, attr, |meta| {
            if meta.path.is_ident("rename_all") {
                let Some(lit) = lit_str(cx, &meta, "rename_all = \"snake_case\"")? else {
                    return Ok(());
                };
                if rename_all.is_some() {
                    cx.error_at(&meta.path, "`rename_all` is set twice");
                }
                match RenameRule::from_str(&lit.value()) {
                    Some(rule) => rename_all = Some(rule),
                    None => cx.error_at(&lit, unknown_rule(&lit.value())),
                }
            } else if meta.path.is_ident("rename") {
                cx.error_at(
                    &meta.path,
                    "`rename` names one role: put it on the variant, or use `rename_all` here",
                );
                skip_value(&meta)?;
            } else {
                unknown_key(cx, &meta, "role", ENUM_KEYS)?;
            }
            Ok(())
        });
    }
    if data.variants.is_empty() {
        cx.error_at(
            &input.ident,
            format!(
                "role enum `{}` has no roles: list its roles as variants",
                input.ident
            ),
        );
    }
    let mut variants = Vec::new();
    for variant in &data.variants {
        match &variant.fields {
            Fields::Unit => {}
            fields => cx.error_at(
                fields,
                format!(
                    "role `{}` has fields, but a role is only a name: remove them",
                    variant.ident
                ),
            ),
        }
        let mut rename: Option<LitStr> = None;
        for attr in role_attrs(&variant.attrs) {
            parse_attr(cx, attr, |meta| {
                if meta.path.is_ident("rename") {
                    let Some(lit) = lit_str(cx, &meta, "rename = \"actor\"")? else {
                        return Ok(());
                    };
                    if rename.is_some() {
                        cx.error_at(&meta.path, "`rename` is set twice");
                    } else if lit.value().is_empty() {
                        cx.error_at(&lit, "a role's name cannot be empty");
                    }
                    rename = Some(lit);
                } else if meta.path.is_ident("rename_all") {
                    cx.error_at(
                        &meta.path,
                        "`rename_all` applies to every role: put it on the enum, or use `rename` here",
                    );
                    skip_value(&meta)?;
                } else {
                    unknown_key(cx, &meta, "role", VARIANT_KEYS)?;
                }
                Ok(())
            });
        }
        let ident_name = variant.ident.to_string();
        let (name, name_span) = match rename {
            Some(lit) => (lit.value(), lit.span()),
            None => {
                let plain = ident_name.strip_prefix("r#").unwrap_or(&ident_name);
                let name = match rename_all {
                    Some(rule) => rule.apply_to_variant(plain),
                    None => plain.to_owned(),
                };
                (name, variant.ident.span())
            }
        };
        variants.push(RoleVariant {
            ident: &variant.ident,
            name,
            name_span,
        });
    }
    Some(RoleEnum {
        ident: &input.ident,
        generics: &input.generics,
        variants,
    })
}

fn not_an_enum(cx: &Ctxt, span: Span, ident: &syn::Ident, what: &str) {
    cx.error_span(
        span,
        format!(
            "`#[derive(Role)]` needs an enum of roles, such as `enum {ident} {{ Actor, Critic }}`, \
             but `{ident}` is {what}"
        ),
    );
}

fn unknown_rule(value: &str) -> String {
    let spellings = RenameRule::ALL.iter().map(|(s, _)| *s);
    match suggest::did_you_mean(value, spellings.clone()) {
        Some(rule) => format!("unknown `rename_all` rule \"{value}\": did you mean \"{rule}\"?"),
        None => {
            let list: Vec<_> = spellings.map(|s| format!("\"{s}\"")).collect();
            format!(
                "unknown `rename_all` rule \"{value}\"; the rules are {}",
                list.join(", ")
            )
        }
    }
}

/// Reads a `#[derive(ResourcePools)]` input; `None` when it is not a struct of named
/// fields.
pub(crate) fn pools_struct<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Option<PoolsStruct<'a>> {
    let fields = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(fields) => fields,
            Fields::Unnamed(fields) => {
                not_a_struct(cx, fields.span(), &input.ident, "a tuple struct");
                return None;
            }
            Fields::Unit => {
                not_a_struct(cx, input.ident.span(), &input.ident, "a unit struct");
                return None;
            }
        },
        Data::Enum(data) => {
            not_a_struct(cx, data.enum_token.span, &input.ident, "an enum");
            return None;
        }
        Data::Union(data) => {
            not_a_struct(cx, data.union_token.span, &input.ident, "a union");
            return None;
        }
    };
    if !input.generics.params.is_empty() {
        cx.error_at(
            &input.generics,
            format!(
                "pools struct `{}` cannot have generic parameters: every field is a `PoolSpec`",
                input.ident
            ),
        );
    }
    let mut role: Option<Path> = None;
    let mut role_seen = false;
    // A key of `#[resource_pools(...)]` was unknown (or the attribute unreadable): that
    // may be `role` misspelt, so its absence is not a mistake of its own.
    let mut struct_attr_incomplete = false;
    for attr in &input.attrs {
        if attr.path().is_ident("pool") {
            cx.error_at(
                attr,
                "`#[pool(...)]` describes one pool: put it on a field of the struct",
            );
        } else if attr.path().is_ident("resource_pools") {
            let complete = parse_attr(cx, attr, |meta| {
                if meta.path.is_ident("role") {
                    if role_seen {
                        cx.error_at(&meta.path, "`role` is set twice");
                    }
                    role_seen = true;
                    let value = meta.value()?;
                    if value.peek(LitStr) {
                        let lit: LitStr = value.parse()?;
                        cx.error_at(
                            &lit,
                            format!(
                                "`role` takes the role enum's path, not a string: write `role = {}`",
                                lit.value()
                            ),
                        );
                    } else {
                        match value.parse::<Path>() {
                            Ok(path) => role = Some(path),
                            Err(_) => {
                                let expr: Expr = value.parse()?;
                                cx.error_at(
                                    expr,
                                    "`role` takes the path of a `#[derive(Role)]` enum, such as `role = MyRole`",
                                );
                            }
                        }
                    }
                } else {
                    struct_attr_incomplete = true;
                    unknown_key(cx, &meta, "resource_pools", STRUCT_KEYS)?;
                }
                Ok(())
            });
            struct_attr_incomplete |= !complete;
        }
    }
    // Without `role`, a struct with an unknown key in `#[resource_pools(...)]` (`rol = ..`?)
    // or a misspelt attribute (`#[resource_pool(...)]`) has that mistake's error only.
    if !role_seen && !struct_attr_incomplete && !misspelt(cx, &input.attrs, "resource_pools") {
        cx.error_at(
            &input.ident,
            format!(
                "pools struct `{}` needs its role enum: add `#[resource_pools(role = MyRole)]`",
                input.ident
            ),
        );
    }
    if fields.named.is_empty() {
        cx.error_at(
            &input.ident,
            format!(
                "pools struct `{}` has no pools: each field is one pool, \
                 such as `#[pool(roles(Actor))] global_pool: PoolSpec`",
                input.ident
            ),
        );
    }
    let mut pools = Vec::new();
    for field in &fields.named {
        let Some(ident) = &field.ident else { continue };
        let mut pool = Pool {
            ident,
            ty: &field.ty,
            roles: Vec::new(),
            span: ident.span(),
            max_colocate_count: None,
            process_on_nodes: None,
            gpus_per_node: None,
            nnodes: None,
            accelerator: None,
            accelerator_type: None,
            separate_worker_groups: None,
            slots_unread: false,
        };
        if !is_pool_spec(&field.ty) {
            let ty = &field.ty;
            cx.error_at(
                ty,
                format!(
                    "field `{ident}` is a pool, so its type is `PoolSpec`, not `{}`",
                    quote::quote!(#ty).to_string().replace(' ', "")
                ),
            );
        }
        let mut keys = PoolKeys::default();
        for attr in &field.attrs {
            if attr.path().is_ident("resource_pools") {
                cx.error_at(
                    attr,
                    "`#[resource_pools(...)]` names the role enum: put it on the struct",
                );
                continue;
            }
            if !attr.path().is_ident("pool") {
                continue;
            }
            pool.span = attr.span();
            let complete = parse_attr(cx, attr, |meta| pool_key(cx, &meta, &mut pool, &mut keys));
            keys.incomplete |= !complete;
        }
        // Without `roles`, a pool with an unknown key (`role(...)`?) or a misspelt
        // attribute (`#[pools(...)]`) has that mistake's error only: fixing it may well
        // bring the roles.
        if !keys.roles_seen && !keys.incomplete && !misspelt(cx, &field.attrs, "pool") {
            cx.error_at(
                ident,
                format!(
                    "pool `{ident}` hosts no role: every field of a pools struct is a pool, \
                     so give it `#[pool(roles(...))]`"
                ),
            );
        }
        pools.push(pool);
    }
    Some(PoolsStruct {
        ident: &input.ident,
        vis: &input.vis,
        role,
        pools,
    })
}

/// What reading a field's `#[pool(...)]` found beside the model's values.
#[derive(Default)]
struct PoolKeys {
    roles_seen: bool,
    /// A key was unknown, or the attribute unreadable past a mistake (already reported).
    incomplete: bool,
}

/// Whether `attrs` has, instead of `#[expected]`, an attribute misspelling it (`#[pools]`
/// for `#[pool]`): rustc reports that one ("cannot find attribute `pools`", with its own
/// did-you-mean), so the derive fails without adding its consequences
/// ([`Ctxt::failed_elsewhere`]). Only a near miss counts: another derive's helper (such as
/// `#[serde]`) on a field without `#[pool]` leaves the pool without roles, which is ours
/// to report. (Were a near miss the helper of another derive on the same struct, rustc
/// would accept it and the struct would get the fallback's impls, which panic when called;
/// no derive we know has a helper named so.)
fn misspelt(cx: &Ctxt, attrs: &[Attribute], expected: &str) -> bool {
    let found = attrs.iter().any(|attr| {
        attr.path().get_ident().is_some_and(|name| {
            let name = name.to_string();
            name != expected && suggest::did_you_mean(&name, [expected]).is_some()
        })
    });
    if found {
        cx.failed_elsewhere();
    }
    found
}

/// Whether a field's type is written `PoolSpec` (or a path ending in it). The generated
/// code also asserts the type, so a foreign type of that name is caught too.
fn is_pool_spec(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(path) if path.qself.is_none() => path
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "PoolSpec" && s.arguments.is_none()),
        _ => false,
    }
}

fn not_a_struct(cx: &Ctxt, span: Span, ident: &syn::Ident, what: &str) {
    cx.error_span(
        span,
        format!(
            "`#[derive(ResourcePools)]` needs a struct with one named field per pool, \
             such as `struct {ident} {{ global_pool: PoolSpec }}`, but `{ident}` is {what}"
        ),
    );
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

/// One key of `#[pool(...)]`.
fn pool_key(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    pool: &mut Pool,
    keys: &mut PoolKeys,
) -> syn::Result<()> {
    let path = &meta.path;
    let twice = |set: bool| {
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
    };
    if path.is_ident("roles") {
        twice(keys.roles_seen);
        keys.roles_seen = true;
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
        let items = Punctuated::<Result<Path, LitStr>, Token![,]>::parse_terminated_with(
            &content,
            |input| {
                if input.peek(LitStr) {
                    input.parse().map(Err)
                } else {
                    input.parse().map(Ok)
                }
            },
        )?;
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
    } else if path.is_ident("max_colocate_count") {
        twice(pool.max_colocate_count.is_some());
        if let Some(value) = lit_u32(cx, meta, "max_colocate_count = 1")? {
            pool.max_colocate_count = Some(value);
        }
    } else if path.is_ident("gpus_per_node") {
        twice(pool.gpus_per_node.is_some());
        match lit_u32(cx, meta, "gpus_per_node = 8")? {
            Some(value) => pool.gpus_per_node = Some(value),
            None => pool.slots_unread = true,
        }
    } else if path.is_ident("nnodes") {
        twice(pool.nnodes.is_some());
        match lit_u32(cx, meta, "nnodes = 2")? {
            Some(value) => pool.nnodes = Some(value),
            None => pool.slots_unread = true,
        }
    } else if path.is_ident("process_on_nodes") {
        twice(pool.process_on_nodes.is_some());
        let expr: Expr = meta.value()?.parse()?;
        let Expr::Array(array) = &expr else {
            cx.error_at(
                &expr,
                "`process_on_nodes` takes a list of accelerators per node-slot, such as `[8, 8]`",
            );
            return Ok(());
        };
        let number = Number {
            what: "a node-slot size",
            key: "process_on_nodes",
            takes: "`process_on_nodes` takes integer literals, such as `[8, 8]`",
        };
        let mut slots = Vec::new();
        for elem in &array.elems {
            match expr_u32(cx, elem, &number)? {
                Some(slot) => slots.push(slot),
                None => pool.slots_unread = true,
            }
        }
        pool.process_on_nodes = Some(Lit {
            value: slots,
            span: expr.span(),
        });
    } else if path.is_ident("accelerator") {
        twice(pool.accelerator.is_some());
        if let Some(lit) = lit_str(cx, meta, "accelerator = \"NPU\"")? {
            let value = match lit.value().as_str() {
                "GPU" => Some(Accelerator::Gpu),
                "NPU" => Some(Accelerator::Npu),
                other => {
                    cx.error_at(
                        &lit,
                        format!(
                            "unknown accelerator \"{other}\": a pool asks for \"GPU\" or \"NPU\""
                        ),
                    );
                    None
                }
            };
            if let Some(value) = value {
                pool.accelerator = Some(Lit {
                    value,
                    span: lit.span(),
                });
            }
        }
    } else if path.is_ident("accelerator_type") {
        twice(pool.accelerator_type.is_some());
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
    } else if path.is_ident("separate_worker_groups") {
        twice(pool.separate_worker_groups.is_some());
        if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
            cx.error_at(
                path,
                "`separate_worker_groups` is a flag: write it alone, without a value",
            );
            skip_value(meta)?;
        }
        pool.separate_worker_groups = Some(path.span());
    } else {
        keys.incomplete = true;
        unknown_key(cx, meta, "pool", POOL_KEYS)?;
    }
    Ok(())
}

fn role_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|attr| attr.path().is_ident("role"))
}
