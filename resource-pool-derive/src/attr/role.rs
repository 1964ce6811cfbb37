//! Reads `#[derive(Role)]`'s input: the enum's variants, and the names `#[role(...)]` gives
//! them.

use proc_macro2::Span;
use syn::{Attribute, Data, DataEnum, DeriveInput, Fields, LitStr, Variant};

use super::value::{lit_str, parse_attr, skip_value, unknown_key};
use crate::ast::{RoleEnum, RoleVariant};
use crate::case::RenameRule;
use crate::ctxt::Ctxt;
use crate::suggest;

const ENUM_KEYS: &[&str] = &["rename_all"];
const VARIANT_KEYS: &[&str] = &["rename"];

/// Reads a `#[derive(Role)]` input; `None` when it is not an enum at all.
pub(crate) fn role_enum<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Option<RoleEnum<'a>> {
    let data = enum_data(cx, input)?;
    if !input.generics.params.is_empty() {
        cx.error_at(
            &input.generics,
            format!(
                "role enum `{}` cannot have generic parameters: roles are a fixed set of names",
                input.ident
            ),
        );
    }
    let rename_all = enum_rename_all(cx, &input.attrs);
    if data.variants.is_empty() {
        cx.error_at(
            &input.ident,
            format!(
                "role enum `{}` has no roles: list its roles as variants",
                input.ident
            ),
        );
    }
    let variants = data
        .variants
        .iter()
        .map(|variant| role_variant(cx, variant, rename_all))
        .collect();
    Some(RoleEnum {
        ident: &input.ident,
        generics: &input.generics,
        variants,
    })
}

/// The input's enum; `None`, reported, for a struct or a union.
fn enum_data<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Option<&'a DataEnum> {
    match &input.data {
        Data::Enum(data) => Some(data),
        Data::Struct(data) => {
            not_an_enum(cx, data.struct_token.span, &input.ident, "a struct");
            None
        }
        Data::Union(data) => {
            not_an_enum(cx, data.union_token.span, &input.ident, "a union");
            None
        }
    }
}

/// The enum's `#[role(rename_all = "...")]`, if it has a valid one.
fn enum_rename_all(cx: &Ctxt, attrs: &[Attribute]) -> Option<RenameRule> {
    let mut rename_all = None;
    for attr in role_attrs(attrs) {
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
    rename_all
}

/// One variant as a role: a unit variant, named by its `rename`, else by the enum's
/// `rename_all`, else as written.
fn role_variant<'a>(
    cx: &Ctxt,
    variant: &'a Variant,
    rename_all: Option<RenameRule>,
) -> RoleVariant<'a> {
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
    let ident_name = variant.ident.to_string();
    let (name, name_span) = match variant_rename(cx, &variant.attrs) {
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
    RoleVariant {
        ident: &variant.ident,
        name,
        name_span,
    }
}

/// A variant's `#[role(rename = "...")]`, the last one when it is set twice (reported).
fn variant_rename(cx: &Ctxt, attrs: &[Attribute]) -> Option<LitStr> {
    let mut rename: Option<LitStr> = None;
    for attr in role_attrs(attrs) {
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
    rename
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

/// The message for a `rename_all` rule that is not serde's: the nearest rule, or the list.
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

/// The `#[role(...)]` attributes among `attrs`.
fn role_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|attr| attr.path().is_ident("role"))
}
