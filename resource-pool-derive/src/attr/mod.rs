//! Reads `#[role(...)]`, `#[resource_pools(...)]` and `#[pool(...)]` into the model of
//! [`crate::ast`], reporting every mistake to the context and reading on past it.

mod pool_key;
mod pools;
mod role;
mod value;

pub(crate) use pools::pools_struct;
pub(crate) use role::role_enum;
