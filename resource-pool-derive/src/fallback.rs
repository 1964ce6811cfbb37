//! What is emitted beside a derive's errors: the impls the derive would have made, with
//! bodies that never run, so the user's uses of them compile and only the real mistake
//! is reported (not a cascade of "no function named `from_toml_str`").

use proc_macro2::TokenStream;
use quote::quote;
use syn::{DeriveInput, Path};

/// `error`: the derive's own errors, as `compile_error!` tokens (none when rustc reports
/// the mistake itself).
pub(crate) fn role_enum(input: &DeriveInput, error: TokenStream) -> TokenStream {
    // With generic parameters (an error already), impls would only add bound errors.
    if !input.generics.params.is_empty() {
        return error;
    }
    let ident = &input.ident;
    let serde = serde_impls(ident);
    quote! {
        #error

        #[doc(hidden)]
        const _: () = {
            #[automatically_derived]
            impl ::resource_pool::RoleKey for #ident {
                fn key_name(&self) -> ::resource_pool::__private::Cow<'_, str> {
                    ::core::unreachable!()
                }
            }

            #[automatically_derived]
            impl ::resource_pool::Role for #ident {
                const ALL: &'static [Self] = &[];

                fn name(self) -> &'static str {
                    ::core::unreachable!()
                }

                fn index(self) -> usize {
                    ::core::unreachable!()
                }
            }

            #[automatically_derived]
            impl ::resource_pool::__private::RoleVariants for #ident {
                const ROLES: &'static [Self] = &[];
                const VARIANTS: &'static [&'static str] = &[];
            }

            #[automatically_derived]
            impl ::core::fmt::Display for #ident {
                fn fmt(&self, _: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    ::core::unreachable!()
                }
            }

            #[automatically_derived]
            impl ::core::str::FromStr for #ident {
                type Err = ::resource_pool::ParseRoleError;

                fn from_str(_: &str) -> ::core::result::Result<Self, ::resource_pool::ParseRoleError> {
                    ::core::unreachable!()
                }
            }

            #serde
        };
    }
}

/// serde's impls that never run, so that a config struct holding the type still derives.
fn serde_impls(ident: &syn::Ident) -> TokenStream {
    quote! {
        #[automatically_derived]
        impl<'de> ::resource_pool::__private::serde::Deserialize<'de> for #ident {
            fn deserialize<D>(_: D) -> ::core::result::Result<Self, D::Error>
            where
                D: ::resource_pool::__private::serde::Deserializer<'de>,
            {
                ::core::unreachable!()
            }
        }

        #[automatically_derived]
        impl ::resource_pool::__private::serde::Serialize for #ident {
            fn serialize<S>(&self, _: S) -> ::core::result::Result<S::Ok, S::Error>
            where
                S: ::resource_pool::__private::serde::Serializer,
            {
                ::core::unreachable!()
            }
        }
    }
}

pub(crate) fn pools_struct(
    input: &DeriveInput,
    role: Option<&Path>,
    error: TokenStream,
) -> TokenStream {
    if !input.generics.params.is_empty() {
        return error;
    }
    let ident = &input.ident;
    let serde = serde_impls(ident);
    let manager = role.map(|role| {
        quote! {
            pub fn into_manager(self) -> ::resource_pool::ResourcePoolManager<#role> {
                ::core::unreachable!()
            }

            pub fn try_into_manager(
                self,
            ) -> ::core::result::Result<
                ::resource_pool::ResourcePoolManager<#role>,
                ::resource_pool::ManagerError,
            > {
                ::core::unreachable!()
            }
        }
    });
    quote! {
        #error

        #[automatically_derived]
        #[allow(dead_code, unused_variables, clippy::all)]
        impl #ident {
            pub fn from_toml_str(
                src: &str,
                file_name: &str,
            ) -> ::core::result::Result<Self, ::resource_pool::config::ConfigErrors> {
                ::core::unreachable!()
            }

            pub fn from_toml_file(
                path: impl ::core::convert::AsRef<::std::path::Path>,
            ) -> ::core::result::Result<Self, ::resource_pool::LoadPoolsError> {
                ::core::unreachable!()
            }

            pub fn fixed() -> Self {
                ::core::unreachable!()
            }

            #manager
        }

        #[doc(hidden)]
        const _: () = {
            #serde
        };
    }
}
