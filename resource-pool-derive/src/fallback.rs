//! What is emitted beside a derive's errors: the impls the derive would have made, with
//! bodies that never run, so the user's uses of them compile and only the real mistake
//! is reported (not a cascade of "no function named `from_toml_str`").

use proc_macro2::TokenStream;
use quote::quote;
use syn::{DeriveInput, Path};

pub(crate) fn role_enum(input: &DeriveInput, error: syn::Error) -> TokenStream {
    let error = error.into_compile_error();
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        #error

        #[doc(hidden)]
        const _: () = {
            #[automatically_derived]
            impl #impl_generics ::resource_pool::RoleKey for #ident #ty_generics #where_clause {
                fn key_name(&self) -> ::resource_pool::__private::Cow<'_, str> {
                    ::core::unreachable!()
                }
            }

            #[automatically_derived]
            impl #impl_generics ::resource_pool::Role for #ident #ty_generics #where_clause {
                const ALL: &'static [Self] = &[];

                fn name(self) -> &'static str {
                    ::core::unreachable!()
                }

                fn index(self) -> usize {
                    ::core::unreachable!()
                }
            }

            #[automatically_derived]
            impl #impl_generics ::resource_pool::__private::RoleVariants for #ident #ty_generics #where_clause {
                const VARIANTS: &'static [&'static str] = &[];
                const UNASSIGNED: &'static [&'static str] = &[];
            }

            #[automatically_derived]
            impl #impl_generics ::core::fmt::Display for #ident #ty_generics #where_clause {
                fn fmt(&self, _: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    ::core::unreachable!()
                }
            }

            #[automatically_derived]
            impl #impl_generics ::core::str::FromStr for #ident #ty_generics #where_clause {
                type Err = ::resource_pool::ParseRoleError;

                fn from_str(_: &str) -> ::core::result::Result<Self, ::resource_pool::ParseRoleError> {
                    ::core::unreachable!()
                }
            }
        };
    }
}

pub(crate) fn pools_struct(input: &DeriveInput, role: Option<&Path>, error: syn::Error) -> TokenStream {
    let error = error.into_compile_error();
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
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
        impl #impl_generics #ident #ty_generics #where_clause {
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
    }
}
