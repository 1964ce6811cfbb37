//! `fixed()`, the pools as their attributes fix them, without a file; or, when a pool fixes
//! no node-slots, a `fixed()` that no call compiles to, with an error naming those pools.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::pools::PoolsItem;

/// The constructor a struct gets when every pool fixes its node-slots; `None` otherwise.
pub(super) fn fixed_fn(item: &PoolsItem) -> Option<TokenStream> {
    let PoolsItem { vis, fields, .. } = item;
    let count = fields.len();
    item.unfixed.is_empty().then(|| {
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
    })
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
pub(super) fn fixed_refused(
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
