//! `#[derive(ResourcePools)]`'s items: the checks on the struct, serde's impls, the loaders
//! and the manager, put together from the parts in this module's siblings.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{fixed, pool_attrs, role_mapping};
use crate::ast::PoolsStruct;

/// What several parts of a pools struct's expansion name: the struct and its pools.
pub(super) struct PoolsItem<'a> {
    pub(super) ident: &'a syn::Ident,
    pub(super) vis: &'a syn::Visibility,
    pub(super) role: &'a syn::Path,
    /// The pools' fields, in order.
    pub(super) fields: Vec<&'a syn::Ident>,
    /// Each pool's name: its field's.
    pub(super) names: Vec<String>,
    /// The pools whose attribute fixes no node-slots.
    pub(super) unfixed: Vec<&'a syn::Ident>,
}

/// Every item of a pools struct: the compile-time checks beside it (every role assigned,
/// every field a `PoolSpec`, `fixed()` refused when it cannot be made), serde's impls, and
/// the inherent impl with the loaders and the manager. Nothing without a `role` (already
/// reported).
pub(crate) fn pools_struct(pools: &PoolsStruct) -> TokenStream {
    let Some(role) = &pools.role else {
        return TokenStream::new();
    };
    let fields: Vec<_> = pools.pools.iter().map(|p| p.ident).collect();
    let item = PoolsItem {
        ident: pools.ident,
        vis: pools.vis,
        role,
        names: fields.iter().map(|f| f.to_string()).collect(),
        fields,
        unfixed: pools
            .pools
            .iter()
            .filter(|p| p.fixed_slots().is_none())
            .map(|p| p.ident)
            .collect(),
    };
    let ident = item.ident;
    let type_checks = field_type_checks(pools);
    let role_span = role_mapping::role_span(role);
    let pool_of = role_mapping::pool_of_fn(pools, role, role_span);
    let role_enum = role_mapping::role_enum_const(role, role_span);
    let role_check = role_mapping::unassigned_roles_check(ident, role_span);
    let pool_attrs = pool_attrs::pool_attrs_const(pools);
    let not_fixed = fixed::fixed_refused(ident, item.vis, &item.unfixed);
    let fixed = fixed::fixed_fn(&item);
    let serde_impls = serde_impls(&item);
    let loaders = loaders(&item);
    let manager = manager_methods(&item);
    quote! {
        #role_check

        #not_fixed

        #type_checks

        #serde_impls

        #[automatically_derived]
        #[allow(dead_code, unused_qualifications, clippy::self_named_constructors)]
        impl #ident {
            #pool_of

            #role_enum

            #pool_attrs

            #loaders

            #fixed

            #manager
        }
    }
}

/// Each field must be a `PoolSpec`: the mismatch, if any, lands on the field's type.
fn field_type_checks(pools: &PoolsStruct) -> TokenStream {
    let ident = pools.ident;
    let type_checks = pools.pools.iter().map(|pool| {
        let field = pool.ident;
        let ty = pool.ty;
        quote_spanned! {ty.span()=>
            let _: &::resource_pool::PoolSpec = &pools.#field;
        }
    });
    quote! {
        #[doc(hidden)]
        const _: fn(&#ident) = |pools: &#ident| {
            #(#type_checks)*
        };
    }
}

/// serde reads the struct as its loaders read a file: the attribute values are the
/// defaults of what a table leaves out. serde's own derive cannot know them, so the impls
/// are this derive's (and a second `serde::Deserialize` derive conflicts).
fn serde_impls(item: &PoolsItem) -> TokenStream {
    let PoolsItem {
        ident,
        fields,
        names,
        ..
    } = item;
    let count = fields.len();
    let struct_name = ident.to_string();
    quote! {
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
    }
}

/// `from_toml_str`, `from_toml_file` and their `_with_warnings` twins.
fn loaders(item: &PoolsItem) -> TokenStream {
    let PoolsItem {
        vis, fields, names, ..
    } = item;
    let count = fields.len();
    let from_str_doc = from_toml_str_doc(names);
    quote! {
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
    }
}

/// `from_toml_str`'s doc, which lists the struct's own pool tables.
fn from_toml_str_doc(names: &[String]) -> String {
    let list = names
        .iter()
        .map(|n| format!("`[{n}]`"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        " Loads the pools from TOML text: one table per pool ({list}), with the keys of a \
         pool table (`process_on_nodes`, or `gpus_per_node` and `nnodes`; `accelerator`, \
         `max_colocate_count`, `accelerator_type`, `bundle_resources`). A pool whose \
         attribute fixes its node-slots may leave its table out.\n\n `file_name` is \
         the name shown in diagnostics."
    )
}

/// `into_manager` and `try_into_manager`, which create the pools in field order through
/// `__ROLE_ENUM` (which alone bounds the role type).
fn manager_methods(item: &PoolsItem) -> TokenStream {
    let PoolsItem {
        vis,
        role,
        fields,
        names,
        ..
    } = item;
    quote! {
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
            (Self::__ROLE_ENUM.manager)(
                ::std::vec![#(::resource_pool::ResourcePool::new(#names, self.#fields)),*],
                Self::__pool_of,
                Self::__POOL_ATTRS,
            )
        }
    }
}
