//! Reads `#[derive(ResourcePools)]`'s input: the struct's `#[resource_pools(role = ...)]`,
//! and each field as one pool.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Expr, Field, Fields, FieldsNamed, LitStr, Path};

use super::pool_key::{PoolKeys, pool_key};
use super::value::{parse_attr, unknown_key};
use crate::ast::{Pool, PoolsStruct};
use crate::ctxt::Ctxt;
use crate::suggest;

const STRUCT_KEYS: &[&str] = &["role"];

/// Reads a `#[derive(ResourcePools)]` input; `None` when it is not a struct of named
/// fields.
pub(crate) fn pools_struct<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Option<PoolsStruct<'a>> {
    let fields = named_fields(cx, input)?;
    if !input.generics.params.is_empty() {
        cx.error_at(
            &input.generics,
            format!(
                "pools struct `{}` cannot have generic parameters: every field is a `PoolSpec`",
                input.ident
            ),
        );
    }
    let role = struct_role(cx, input);
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
    let pools = fields
        .named
        .iter()
        .filter_map(|field| pool_field(cx, field))
        .collect();
    Some(PoolsStruct {
        ident: &input.ident,
        vis: &input.vis,
        role,
        pools,
    })
}

/// The struct's named fields; `None`, reported, for any other shape of input.
fn named_fields<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Option<&'a FieldsNamed> {
    let (span, what) = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(fields) => return Some(fields),
            Fields::Unnamed(fields) => (fields.span(), "a tuple struct"),
            Fields::Unit => (input.ident.span(), "a unit struct"),
        },
        Data::Enum(data) => (data.enum_token.span, "an enum"),
        Data::Union(data) => (data.union_token.span, "a union"),
    };
    not_a_struct(cx, span, &input.ident, what);
    None
}

/// The struct's `#[resource_pools(role = ...)]`, reporting its mistakes and its absence
/// (unless a mistake in the attribute may be that `role` misspelt).
fn struct_role(cx: &Ctxt, input: &DeriveInput) -> Option<Path> {
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
                    if let Some(path) = role_value(cx, &meta)? {
                        role = Some(path);
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
    role
}

/// The path after `role =`; `None`, reported, for a string or another expression.
fn role_value(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<Path>> {
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
        return Ok(None);
    }
    match value.parse::<Path>() {
        Ok(path) => Ok(Some(path)),
        Err(_) => {
            let expr: Expr = value.parse()?;
            cx.error_at(
                expr,
                "`role` takes the path of a `#[derive(Role)]` enum, such as `role = MyRole`",
            );
            Ok(None)
        }
    }
}

/// One field as a pool: its type checked, its `#[pool(...)]` read key by key. `None` for
/// a field without a name (never, in a struct of named fields).
fn pool_field<'a>(cx: &Ctxt, field: &'a Field) -> Option<Pool<'a>> {
    let ident = field.ident.as_ref()?;
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
    Some(pool)
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
