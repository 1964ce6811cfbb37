//! The generated code. Every path is absolute (`::resource_pool::...`, `::core::...`) so
//! that nothing the user imports, or fails to import, changes its meaning.

mod fixed;
mod pool_attrs;
mod pools;
mod role;
mod role_mapping;

pub(crate) use pools::pools_struct;
pub(crate) use role::role_enum;
