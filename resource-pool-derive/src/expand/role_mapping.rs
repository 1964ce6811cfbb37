//! How a pools struct meets its role enum: which pool hosts each role (`__pool_of`), the
//! compile-time check that every role has a pool, and the one bound on the enum
//! (`__ROLE_ENUM`). All three are spanned on the user's tokens, so that a mistake is
//! reported once, where it was written.

use proc_macro2::{Group, Ident, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::PoolsStruct;

/// The span every use of the role enum gets: the enum's own name (the path's last
/// segment), as stable rustc cannot join spans.
pub(super) fn role_span(role: &syn::Path) -> Span {
    role.segments
        .last()
        .map_or_else(|| role.span(), |segment| segment.ident.span())
}

/// `__pool_of`, which pool hosts a role: the one place the role names appear in the
/// generated code, each pattern on the user's own token, so a name that is no variant
/// fails once (E0599, with rustc's similar-name hint) on itself.
///
/// The patterns name the enum through one local alias, spanned on the `role = ...` path
/// like every other use of the enum: were the path written into each pattern, a `role`
/// that names no type would fail once per listed role, where through the alias it fails
/// once, and rustc's identical errors at that one span are reported once.
pub(super) fn pool_of_fn(pools: &PoolsStruct, role: &syn::Path, role_span: Span) -> TokenStream {
    let alias = Ident::new("__ResourcePoolsRole", Span::call_site());
    let arms = pools.pools.iter().enumerate().map(|(i, pool)| {
        let patterns = pool.roles.iter().map(|variant| {
            let alias = respan(&alias, variant.span());
            quote_spanned! {variant.span()=> #alias::#variant }
        });
        quote! { #(#patterns)|* => ::core::option::Option::Some(#i), }
    });
    let alias_item = quote_spanned! {role_span=>
        type #alias = #role;
    };
    quote! {
        #[doc(hidden)]
        #[allow(unreachable_patterns)]
        const fn __pool_of(role: #role) -> ::core::option::Option<usize> {
            #alias_item
            match role {
                #(#arms)*
                _ => ::core::option::Option::None,
            }
        }
    }
}

/// Every role assigned: a const evaluated at compile time, whose panic names every
/// missing role, spanned onto the `role = ...` path. Its local items are named `__*`, as
/// they share a scope with the struct's name.
pub(super) fn unassigned_roles_check(ident: &syn::Ident, role_span: Span) -> TokenStream {
    quote_spanned! {role_span=>
        const _: () = {
            const __ROLES: usize = #ident::__ROLE_ENUM.roles.len();
            const __UNASSIGNED: [bool; __ROLES] = {
                let roles = #ident::__ROLE_ENUM.roles;
                let mut unassigned = [false; __ROLES];
                let mut i = 0;
                while i < __ROLES {
                    unassigned[i] = #ident::__pool_of(roles[i]).is_none();
                    i += 1;
                }
                unassigned
            };
            const __LEN: usize = ::resource_pool::__private::unassigned_len(
                #ident::__ROLE_ENUM.variants,
                &__UNASSIGNED,
            );
            const __MESSAGE: [u8; __LEN] = ::resource_pool::__private::unassigned_message(
                #ident::__ROLE_ENUM.variants,
                &__UNASSIGNED,
            );
            if let ::core::option::Option::Some(error) =
                ::resource_pool::__private::unassigned_error(&__MESSAGE)
            {
                ::core::panic!("{}", error);
            }
        };
    }
}

/// `__ROLE_ENUM`, what the struct uses of its role enum, and the one place the generated
/// code puts a bound on the enum: a `role` that is no `#[derive(Role)]` enum is one error
/// (E0277), at the `role = ...` path. The bound is a trait of this expansion's own, whose
/// message names the user's type and says to derive `Role`; its one impl, for every
/// `RoleVariants` type, is `do_not_recommend`, so that rustc reports this trait rather than
/// `resource_pool::__private::RoleVariants` and lists no other implementors.
pub(super) fn role_enum_const(role: &syn::Path, role_span: Span) -> TokenStream {
    // The trait shares a scope with the user's path: a path that starts with its name gets
    // another one.
    let name = if role
        .segments
        .first()
        .is_some_and(|s| s.ident == "DeriveRole")
    {
        "__DeriveRole"
    } else {
        "DeriveRole"
    };
    let trait_name = Ident::new(name, Span::call_site());
    let use_trait = Ident::new(name, role_span);
    let bound = quote_spanned! {role_span=>
        <#role as #use_trait>::ENUM
    };
    quote! {
        #[doc(hidden)]
        const __ROLE_ENUM: ::resource_pool::__private::RoleEnum<#role> = {
            #[diagnostic::on_unimplemented(
                message = "`{Self}` is not a `#[derive(Role)]` enum",
                label = "the `role` of `#[resource_pools]` must be a role enum",
                note = "derive it on the enum: `#[derive(resource_pool::Role)]`"
            )]
            trait #trait_name: ::core::marker::Sized + 'static {
                const ENUM: ::resource_pool::__private::RoleEnum<Self>;
            }

            #[diagnostic::do_not_recommend]
            impl<T: ::resource_pool::__private::RoleVariants> #trait_name for T {
                const ENUM: ::resource_pool::__private::RoleEnum<T> =
                    ::resource_pool::__private::RoleEnum::<T>::OF;
            }

            #bound
        };
    }
}

/// The tokens with every span set to `span`, so that a path built from them is reported
/// as one token of the user's.
fn respan(tokens: &impl ToTokens, span: Span) -> TokenStream {
    tokens
        .to_token_stream()
        .into_iter()
        .map(|mut tree| {
            if let TokenTree::Group(group) = &tree {
                let mut inner = Group::new(group.delimiter(), respan(&group.stream(), span));
                inner.set_span(span);
                tree = TokenTree::Group(inner);
            } else {
                tree.set_span(span);
            }
            tree
        })
        .collect()
}
