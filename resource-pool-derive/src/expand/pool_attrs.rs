//! `__POOL_ATTRS`: what each pool's attribute says, as the constants the loaders take for
//! the defaults of what a pool table leaves out.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::{Accelerator, FixedSlots, Pool, PoolsStruct};

/// The `__POOL_ATTRS` constant: one `PoolAttrs` per pool, in field order.
pub(super) fn pool_attrs_const(pools: &PoolsStruct) -> TokenStream {
    let attrs = pools.pools.iter().map(pool_attrs);
    quote! {
        #[doc(hidden)]
        const __POOL_ATTRS: &'static [::resource_pool::__private::PoolAttrs] = &[#(#attrs),*];
    }
}

/// One pool's `PoolAttrs`: each key it sets as `Some`, each it leaves out as `None`.
fn pool_attrs(pool: &Pool) -> TokenStream {
    let name = pool.ident.to_string();
    let process_on_nodes = process_on_nodes(pool);
    let max_colocate_count = match &pool.max_colocate_count {
        Some(lit) => {
            let value = lit.value;
            quote!(::core::option::Option::Some(#value))
        }
        None => quote!(::core::option::Option::None),
    };
    let accelerator = accelerator(pool);
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
}

/// The node-slots the attribute fixes, as a static slice in either form (`[8, 8]` as
/// written, `gpus_per_node`/`nnodes` as an array repeat).
fn process_on_nodes(pool: &Pool) -> TokenStream {
    match pool.fixed_slots() {
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
    }
}

/// The accelerator the attribute names, as the library's enum.
fn accelerator(pool: &Pool) -> TokenStream {
    match pool.accelerator.as_ref().map(|a| a.value) {
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
    }
}
