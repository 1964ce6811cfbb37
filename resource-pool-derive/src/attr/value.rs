//! Reading the value of one key inside an attribute (`key = "text"`, `key = 3`), and the
//! keys that are not ours: each mistake is reported to the context and read past, so the
//! keys after it are still read.

use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::{Attribute, Expr, Lit as SynLit, LitStr, Token};

use crate::ast::Lit;
use crate::ctxt::Ctxt;
use crate::suggest;

/// Runs `logic` over the keys of `#[name(...)]`, reporting a malformed attribute; `false`
/// when it is, and the keys after the mistake were not read.
pub(super) fn parse_attr(
    cx: &Ctxt,
    attr: &Attribute,
    logic: impl FnMut(ParseNestedMeta) -> syn::Result<()>,
) -> bool {
    match attr.parse_nested_meta(logic) {
        Ok(()) => true,
        Err(err) => {
            cx.push(err);
            false
        }
    }
}

/// Reports an unknown key and skips its value, so the keys after it are still read.
pub(super) fn unknown_key(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    attr: &str,
    keys: &[&str],
) -> syn::Result<()> {
    let key = meta
        .path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_else(|| {
            let path = &meta.path;
            quote::quote!(#path).to_string().replace(' ', "")
        });
    let hint = suggest::hint(&key, keys.iter().copied());
    let list: Vec<_> = keys.iter().map(|k| format!("`{k}`")).collect();
    let expected = match list.as_slice() {
        _ if !hint.is_empty() => String::new(),
        [one] => format!("; the only key is {one}"),
        _ => format!("; the keys are {}", list.join(", ")),
    };
    cx.error_at(
        &meta.path,
        format!("unknown key `{key}` in `#[{attr}(...)]`{hint}{expected}"),
    );
    skip_value(meta)
}

/// Skips `= value` or `(...)` after a key.
pub(super) fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    let input: ParseStream = meta.input;
    if input.peek(Token![=]) {
        input.parse::<Token![=]>()?;
        input.parse::<Expr>()?;
    } else if input.peek(syn::token::Paren) {
        input.parse::<proc_macro2::Group>()?;
    }
    Ok(())
}

/// The key's name and the expression after its `=`; a key written without `=` is
/// reported (it takes `what`, written as `example`) and its value read past (`None`).
fn key_value(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    what: &str,
    example: &str,
) -> syn::Result<Option<(String, Expr)>> {
    let key = meta
        .path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default();
    if !meta.input.peek(Token![=]) {
        cx.error_at(&meta.path, format!("`{key}` takes {what}: `{example}`"));
        skip_value(meta)?;
        return Ok(None);
    }
    let expr: Expr = meta.value()?.parse()?;
    Ok(Some((key, expr)))
}

/// `key = "string"`; a value of another kind is reported and read past.
pub(super) fn lit_str(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    example: &str,
) -> syn::Result<Option<LitStr>> {
    let Some((key, expr)) = key_value(cx, meta, "a string", example)? else {
        return Ok(None);
    };
    match expr {
        Expr::Lit(syn::ExprLit {
            lit: SynLit::Str(lit),
            ..
        }) => Ok(Some(lit)),
        other => {
            cx.error_at(&other, format!("`{key}` takes a string: `{example}`"));
            Ok(None)
        }
    }
}

/// `key = 3`; a value of another kind is reported and read past.
pub(super) fn lit_u32(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    example: &str,
) -> syn::Result<Option<Lit<u32>>> {
    let Some((key, expr)) = key_value(cx, meta, "a whole number", example)? else {
        return Ok(None);
    };
    let takes = format!("`{key}` takes an integer literal, such as `{example}`");
    let number = Number {
        what: &format!("`{key}`"),
        key: &key,
        takes: &takes,
    };
    expr_u32(cx, &expr, &number)
}

/// How the messages of [`expr_u32`] name the number being read.
pub(super) struct Number<'a> {
    /// The number itself: "`nnodes`", "a node-slot size".
    pub(super) what: &'a str,
    /// The key it is the value of (or in the value of).
    pub(super) key: &'a str,
    /// What the key takes, with an example: "`nnodes` takes an integer literal, such as
    /// `nnodes = 2`".
    pub(super) takes: &'a str,
}

/// A non-negative integer literal that fits `u32`.
pub(super) fn expr_u32(cx: &Ctxt, expr: &Expr, number: &Number) -> syn::Result<Option<Lit<u32>>> {
    let what = number.what;
    match expr {
        Expr::Lit(syn::ExprLit {
            lit: SynLit::Int(int),
            ..
        }) => {
            if !matches!(int.suffix(), "" | "u32") {
                cx.error_at(
                    int,
                    format!(
                        "{what} is a plain whole number: write it without the `{}` suffix",
                        int.suffix()
                    ),
                );
                return Ok(None);
            }
            match int.base10_parse::<u32>() {
                Ok(value) => Ok(Some(Lit {
                    value,
                    span: int.span(),
                })),
                Err(_) => {
                    cx.error_at(int, format!("{what} is too large (at most {})", u32::MAX));
                    Ok(None)
                }
            }
        }
        Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            ..
        }) => {
            cx.error_at(expr, format!("{what} cannot be negative"));
            Ok(None)
        }
        Expr::Lit(other) => {
            cx.error_at(other, format!("{what} takes a whole number, such as `8`"));
            Ok(None)
        }
        // A const, a call, arithmetic: a derive sees tokens, not the values they compute,
        // so say what to write instead, rather than only "a whole number" (the user wrote
        // one, in their eyes).
        other => {
            let Number { key, takes, .. } = number;
            let written = quote::quote!(#other).to_string().replace(" :: ", "::");
            cx.error_at(
                other,
                format!(
                    "{takes}: the derive reads the attribute as written and cannot see the \
                     value of `{written}`; write the number itself, or leave `{key}` out and \
                     give it in the pools file (or build the `PoolSpec` in code)"
                ),
            );
            Ok(None)
        }
    }
}
