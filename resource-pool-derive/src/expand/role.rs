//! `#[derive(Role)]`'s impls: the role's name, index and parsing, all by the enum's
//! variants in order.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::RoleEnum;

/// Every impl of a role enum (`RoleKey`, `Role`, `RoleVariants`, `Display`, `FromStr`,
/// serde's pair), in one anonymous const so that none of its names leak.
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
