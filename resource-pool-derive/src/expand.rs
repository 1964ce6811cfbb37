//! The generated code. Every path is absolute (`::resource_pool::...`, `::core::...`) so
//! that nothing the user imports, or fails to import, changes its meaning.

use proc_macro2::{Group, Ident, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Accelerator, FixedSlots, PoolsStruct, RoleEnum};

pub(crate) fn role_enum(role: &RoleEnum) -> TokenStream {
    let ident = role.ident;
    let (impl_generics, ty_generics, where_clause) = role.generics.split_for_impl();
    let variants: Vec<_> = role.variants.iter().map(|v| v.ident).collect();
    let names: Vec<_> = role.variants.iter().map(|v| v.name.as_str()).collect();
    let indices = 0..variants.len();
    let idents: Vec<String> = variants.iter().map(|v| v.to_string()).collect();
    quote! {
        #[doc(hidden)]
        const _: () = {
            #[automatically_derived]
            impl #impl_generics ::resource_pool::RoleKey for #ident #ty_generics #where_clause {
                fn closed_set() -> ::core::option::Option<&'static [Self]> {
                    ::core::option::Option::Some(<Self as ::resource_pool::Role>::ALL)
                }

                fn key_name(&self) -> ::resource_pool::__private::Cow<'_, str> {
                    ::resource_pool::__private::Cow::Borrowed(
                        <Self as ::resource_pool::Role>::name(*self),
                    )
                }
            }

            #[automatically_derived]
            impl #impl_generics ::resource_pool::Role for #ident #ty_generics #where_clause {
                const ALL: &'static [Self] = &[#(#ident::#variants),*];

                fn name(self) -> &'static str {
                    match self {
                        #(#ident::#variants => #names,)*
                    }
                }

                fn index(self) -> usize {
                    match self {
                        #(#ident::#variants => #indices,)*
                    }
                }
            }

            #[automatically_derived]
            impl #impl_generics ::resource_pool::__private::RoleVariants for #ident #ty_generics #where_clause {
                const ROLES: &'static [Self] = <Self as ::resource_pool::Role>::ALL;
                const VARIANTS: &'static [&'static str] = &[#(#idents),*];
            }

            #[automatically_derived]
            impl #impl_generics ::core::fmt::Display for #ident #ty_generics #where_clause {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.pad(<Self as ::resource_pool::Role>::name(*self))
                }
            }

            #[automatically_derived]
            impl #impl_generics ::core::str::FromStr for #ident #ty_generics #where_clause {
                type Err = ::resource_pool::ParseRoleError;

                fn from_str(s: &str) -> ::core::result::Result<Self, ::resource_pool::ParseRoleError> {
                    ::resource_pool::__private::parse_role(s)
                }
            }

            #[automatically_derived]
            impl #impl_generics ::resource_pool::__private::serde::Serialize for #ident #ty_generics #where_clause {
                fn serialize<S>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error>
                where
                    S: ::resource_pool::__private::serde::Serializer,
                {
                    serializer.serialize_str(<Self as ::resource_pool::Role>::name(*self))
                }
            }

            #[automatically_derived]
            impl<'de> ::resource_pool::__private::serde::Deserialize<'de> for #ident #ty_generics #where_clause {
                fn deserialize<D>(deserializer: D) -> ::core::result::Result<Self, D::Error>
                where
                    D: ::resource_pool::__private::serde::Deserializer<'de>,
                {
                    ::resource_pool::__private::deserialize_role(deserializer)
                }
            }
        };
    }
}

pub(crate) fn pools_struct(pools: &PoolsStruct) -> TokenStream {
    let ident = pools.ident;
    let vis = pools.vis;
    let Some(role) = &pools.role else {
        return TokenStream::new();
    };
    let count = pools.pools.len();
    let fields: Vec<_> = pools.pools.iter().map(|p| p.ident).collect();
    let names: Vec<String> = fields.iter().map(|f| f.to_string()).collect();

    // Each field must be a `PoolSpec`: the mismatch, if any, lands on the field's type.
    let type_checks = pools.pools.iter().map(|pool| {
        let field = pool.ident;
        let ty = pool.ty;
        quote_spanned! {ty.span()=>
            let _: &::resource_pool::PoolSpec = &pools.#field;
        }
    });

    // Which pool hosts a role: the one place the role names appear in the generated code,
    // each pattern on the user's own token, so a name that is no variant fails once
    // (E0599, with rustc's similar-name hint) on itself. The patterns name the enum through
    // one local alias, spanned on the `role = ...` path like every other use of the enum:
    // were the path written into each pattern, a `role` that names no type would fail once
    // per listed role, where through the alias it fails once, and rustc's identical errors
    // at that one span are reported once.
    let alias = Ident::new("__ResourcePoolsRole", Span::call_site());
    let arms = pools.pools.iter().enumerate().map(|(i, pool)| {
        let patterns = pool.roles.iter().map(|variant| {
            let alias = respan(&alias, variant.span());
            quote_spanned! {variant.span()=> #alias::#variant }
        });
        quote! { #(#patterns)|* => ::core::option::Option::Some(#i), }
    });
    // The enum's own name (the path's last segment): stable rustc cannot join spans.
    let role_span = role
        .segments
        .last()
        .map_or_else(|| role.span(), |segment| segment.ident.span());
    let alias_item = quote_spanned! {role_span=>
        type #alias = #role;
    };
    let role_enum = role_enum_const(role, role_span);
    // Every role assigned: a const evaluated at compile time, whose panic names every
    // missing role, spanned onto the `role = ...` path. Its local items are named `__*`,
    // as they share a scope with the struct's name.
    let role_check = quote_spanned! {role_span=>
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
    };

    let attrs = pools.pools.iter().map(|pool| {
        let name = pool.ident.to_string();
        let process_on_nodes = match pool.fixed_slots() {
            Some(FixedSlots::List(nodes)) => {
                let slots = nodes.value.iter().map(|s| s.value);
                quote!(::core::option::Option::Some(&[#(#slots),*]))
            }
            Some(FixedSlots::Repeat { size, count }) => {
                let size = size.value;
                let count = proc_macro2::Literal::usize_unsuffixed(count.value as usize);
                quote!(::core::option::Option::Some(&[#size; #count]))
            }
            None => quote!(::core::option::Option::None),
        };
        let max_colocate_count = match &pool.max_colocate_count {
            Some(lit) => {
                let value = lit.value;
                quote!(::core::option::Option::Some(#value))
            }
            None => quote!(::core::option::Option::None),
        };
        let accelerator = match pool.accelerator.as_ref().map(|a| a.value) {
            Some(Accelerator::Gpu) => {
                quote!(::core::option::Option::Some(
                    ::resource_pool::Accelerator::Gpu
                ))
            }
            Some(Accelerator::Npu) => {
                quote!(::core::option::Option::Some(
                    ::resource_pool::Accelerator::Npu
                ))
            }
            None => quote!(::core::option::Option::None),
        };
        let accelerator_type = match &pool.accelerator_type {
            Some(lit) => {
                let value = &lit.value;
                quote!(::core::option::Option::Some(#value))
            }
            None => quote!(::core::option::Option::None),
        };
        let worker_groups = pool.worker_groups();
        quote! {
            ::resource_pool::__private::PoolAttrs {
                name: #name,
                process_on_nodes: #process_on_nodes,
                max_colocate_count: #max_colocate_count,
                accelerator: #accelerator,
                accelerator_type: #accelerator_type,
                worker_groups: #worker_groups,
            }
        }
    });

    // Through `__ROLE_ENUM`, which alone bounds the role type.
    let manager = quote! {
        (Self::__ROLE_ENUM.manager)(
            ::std::vec![#(::resource_pool::ResourcePool::new(#names, self.#fields)),*],
            Self::__pool_of,
            Self::__POOL_ATTRS,
        )
    };

    let unfixed: Vec<&syn::Ident> = pools
        .pools
        .iter()
        .filter(|p| p.fixed_slots().is_none())
        .map(|p| p.ident)
        .collect();
    let not_fixed = fixed_refused(ident, vis, &unfixed);
    let fixed = unfixed.is_empty().then(|| {
        quote! {
            /// The pools as their attributes fix them, without a file: every pool states its
            /// node-slots (`process_on_nodes`, or `gpus_per_node` and `nnodes`), and the
            /// compiler has checked each value.
            #[must_use]
            #vis fn fixed() -> Self {
                let [#(#fields),*] = ::resource_pool::__private::fixed_pools::<#count>(Self::__POOL_ATTRS);
                Self { #(#fields),* }
            }
        }
    });
    let list = names
        .iter()
        .map(|n| format!("`[{n}]`"))
        .collect::<Vec<_>>()
        .join(", ");
    let from_str_doc = format!(
        " Loads the pools from TOML text: one table per pool ({list}), with the keys of a \
         pool table (`process_on_nodes`, or `gpus_per_node` and `nnodes`; `accelerator`, \
         `max_colocate_count`, `accelerator_type`, `bundle_resources`). A pool whose \
         attribute fixes its node-slots may leave its table out.\n\n `file_name` is \
         the name shown in diagnostics."
    );

    let struct_name = ident.to_string();
    // serde reads the struct as its loaders read a file: the attribute values are the
    // defaults of what a table leaves out. serde's own derive cannot know them, so the
    // impls are this derive's (and a second `serde::Deserialize` derive conflicts).
    let serde_impls = quote! {
        #[doc(hidden)]
        const _: () = {
            #[automatically_derived]
            impl<'de> ::resource_pool::__private::serde::Deserialize<'de> for #ident {
                fn deserialize<D>(deserializer: D) -> ::core::result::Result<Self, D::Error>
                where
                    D: ::resource_pool::__private::serde::Deserializer<'de>,
                {
                    let [#(#fields),*] = ::resource_pool::__private::deserialize_pools::<D, #count>(
                        deserializer,
                        #struct_name,
                        Self::__POOL_ATTRS,
                    )?;
                    ::core::result::Result::Ok(Self { #(#fields),* })
                }
            }

            #[automatically_derived]
            impl ::resource_pool::__private::serde::Serialize for #ident {
                fn serialize<S>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error>
                where
                    S: ::resource_pool::__private::serde::Serializer,
                {
                    ::resource_pool::__private::serialize_pools(
                        serializer,
                        &[#((#names, &self.#fields)),*],
                    )
                }
            }
        };
    };

    quote! {
        #role_check

        #not_fixed

        #[doc(hidden)]
        const _: fn(&#ident) = |pools: &#ident| {
            #(#type_checks)*
        };

        #serde_impls

        #[automatically_derived]
        #[allow(dead_code, unused_qualifications, clippy::self_named_constructors)]
        impl #ident {
            #[doc(hidden)]
            #[allow(unreachable_patterns)]
            const fn __pool_of(role: #role) -> ::core::option::Option<usize> {
                #alias_item
                match role {
                    #(#arms)*
                    _ => ::core::option::Option::None,
                }
            }

            #role_enum

            #[doc(hidden)]
            const __POOL_ATTRS: &'static [::resource_pool::__private::PoolAttrs] = &[#(#attrs),*];

            #[doc = #from_str_doc]
            #vis fn from_toml_str(
                src: &str,
                file_name: &str,
            ) -> ::core::result::Result<Self, ::resource_pool::config::ConfigErrors> {
                ::core::result::Result::Ok(Self::from_toml_str_with_warnings(src, file_name)?.0)
            }

            /// As [`from_toml_str`](Self::from_toml_str), and the file's warnings (uneven
            /// node-slots, ...), which that drops: a miette diagnostic, empty when there is
            /// none.
            #vis fn from_toml_str_with_warnings(
                src: &str,
                file_name: &str,
            ) -> ::core::result::Result<(Self, ::resource_pool::config::ConfigWarnings), ::resource_pool::config::ConfigErrors> {
                let ([#(#fields),*], warnings) =
                    ::resource_pool::__private::load_pools_str::<#count>(src, file_name, Self::__POOL_ATTRS)?;
                ::core::result::Result::Ok((Self { #(#fields),* }, warnings))
            }

            /// Reads and loads the pools from a TOML file, as
            /// [`from_toml_str`](Self::from_toml_str) does from text.
            #vis fn from_toml_file(
                path: impl ::core::convert::AsRef<::std::path::Path>,
            ) -> ::core::result::Result<Self, ::resource_pool::LoadPoolsError> {
                ::core::result::Result::Ok(Self::from_toml_file_with_warnings(path)?.0)
            }

            /// As [`from_toml_file`](Self::from_toml_file), and the file's warnings.
            #vis fn from_toml_file_with_warnings(
                path: impl ::core::convert::AsRef<::std::path::Path>,
            ) -> ::core::result::Result<(Self, ::resource_pool::config::ConfigWarnings), ::resource_pool::LoadPoolsError> {
                let ([#(#fields),*], warnings) =
                    ::resource_pool::__private::load_pools_file::<#count>(path.as_ref(), Self::__POOL_ATTRS)?;
                ::core::result::Result::Ok((Self { #(#fields),* }, warnings))
            }

            #fixed

            /// The manager of these pools, created in field order, with every role mapped
            /// to its pool (checked by the compiler), so that `get_resource_pool` cannot fail.
            ///
            /// # Panics
            ///
            /// When a `PoolSpec` was built by hand and is invalid (no node-slot, a slot of
            /// zero, `max_colocate_count = 0` or below the pool's separate worker groups):
            /// pools loaded from a file or fixed by the attributes are checked already. [`Self::try_into_manager`] returns the error.
            #[must_use]
            #vis fn into_manager(self) -> ::resource_pool::ResourcePoolManager<#role> {
                ::resource_pool::__private::unwrap_manager(self.try_into_manager())
            }

            /// [`Self::into_manager`], returning an invalid hand-built `PoolSpec` as an error.
            #vis fn try_into_manager(
                self,
            ) -> ::core::result::Result<
                ::resource_pool::ResourcePoolManager<#role>,
                ::resource_pool::ManagerError,
            > {
                #manager
            }
        }
    }
}

/// `__ROLE_ENUM`, what the struct uses of its role enum, and the one place the generated
/// code puts a bound on the enum: a `role` that is no `#[derive(Role)]` enum is one error
/// (E0277), at the `role = ...` path. The bound is a trait of this expansion's own, whose
/// message names the user's type and says to derive `Role`; its one impl, for every
/// `RoleVariants` type, is `do_not_recommend`, so that rustc reports this trait rather than
/// `resource_pool::__private::RoleVariants` and lists no other implementors.
fn role_enum_const(role: &syn::Path, role_span: Span) -> TokenStream {
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

/// `fixed()` for a struct with pools that fix no node-slots (`unfixed`; none when every
/// pool does): a method whose bound no type meets, so that a call fails with an error that
/// names those pools rather than rustc's bare "no function named `fixed`" (E0599).
///
/// The bound is a trait of this expansion's own, so its `on_unimplemented` message can
/// name the pools; `for<'a>` keeps rustc from rejecting the never-met bound where the
/// method is defined (a bound without a binder and without generics is checked there), so
/// that only a call fails. The trait sits in an anonymous const: no user can name it, let
/// alone implement it.
fn fixed_refused(
    ident: &syn::Ident,
    vis: &syn::Visibility,
    unfixed: &[&syn::Ident],
) -> TokenStream {
    let Some(first) = unfixed.first() else {
        return TokenStream::new();
    };
    let pools = match unfixed {
        [one] => format!("pool `{one}` does"),
        [init @ .., last] => {
            let init: Vec<String> = init.iter().map(|p| format!("`{p}`")).collect();
            format!("pools {} and `{last}` do", init.join(", "))
        }
        [] => unreachable!("checked above"),
    };
    let message = format!(
        "`{ident}::fixed()` needs every pool to fix its node-slots in its attribute, but {pools} not"
    );
    let label = format!("not every pool of `{ident}` fixes its node-slots");
    let note = format!(
        "a pool fixes its node-slots with `process_on_nodes = [8, 8]`, or \
         `gpus_per_node = 8, nnodes = 2`, in its `#[pool(...)]`; otherwise load the pools \
         with `{ident}::from_toml_file` (or `from_toml_str`), which sizes them from the file"
    );
    // Spanned on the first such pool, so that rustc's "required by this bound" points at it.
    let bound = quote_spanned! {first.span()=> for<'a> Self: PoolsAllFixed };
    quote! {
        #[doc(hidden)]
        #[allow(dead_code, private_bounds)]
        const _: () = {
            #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
            trait PoolsAllFixed {}

            // Only so that rustc does not add "this trait has no implementations, consider
            // adding one" (no user can); `do_not_recommend` keeps it out of the message.
            enum Never {}
            #[diagnostic::do_not_recommend]
            impl PoolsAllFixed for Never {}

            #[automatically_derived]
            impl #ident {
                #[doc(hidden)]
                #vis fn fixed() -> Self
                where
                    #bound,
                {
                    ::core::unreachable!()
                }
            }
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
