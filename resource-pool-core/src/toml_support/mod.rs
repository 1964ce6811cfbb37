//! TOML support shared by the readers of the config and of cluster files: a walker over
//! `toml`'s spanned tree that collects every structural problem, the first definitions of
//! keys a file gives twice, and keys and strings written back as TOML.

mod duplicates;
mod text;
pub mod walk;

pub use text::{toml_key, toml_string};
pub use walk::StructureError;
