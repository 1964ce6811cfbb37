//! The plain model of what the user wrote, read from `syn`'s tree by [`crate::attr`].

use proc_macro2::Span;
use syn::{Generics, Ident, Path, Type, Visibility};

/// A `#[derive(Role)]` enum.
pub(crate) struct RoleEnum<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) generics: &'a Generics,
    pub(crate) variants: Vec<RoleVariant<'a>>,
}

/// One role of the enum.
pub(crate) struct RoleVariant<'a> {
    pub(crate) ident: &'a Ident,
    /// The name after `rename` or `rename_all`.
    pub(crate) name: String,
    /// The token the name came from: the `rename` literal, else the variant.
    pub(crate) name_span: Span,
}

/// A `#[derive(ResourcePools)]` struct.
pub(crate) struct PoolsStruct<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) vis: &'a Visibility,
    /// `role = MyRole`; `None` when missing or unreadable (already reported).
    pub(crate) role: Option<Path>,
    pub(crate) pools: Vec<Pool<'a>>,
}

/// One field: one pool.
pub(crate) struct Pool<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) ty: &'a Type,
    pub(crate) roles: Vec<Ident>,
    /// The span of the `#[pool(...)]` attribute, or of the field when it has none.
    pub(crate) span: Span,
    pub(crate) max_colocate_count: Option<Lit<u32>>,
    /// The node-slots read from `process_on_nodes`, without those that could not be read.
    pub(crate) process_on_nodes: Option<Lit<Vec<Lit<u32>>>>,
    pub(crate) gpus_per_node: Option<Lit<u32>>,
    pub(crate) nnodes: Option<Lit<u32>>,
    pub(crate) accelerator: Option<Lit<Accelerator>>,
    pub(crate) accelerator_type: Option<Lit<String>>,
    pub(crate) separate_worker_groups: Option<Span>,
    /// A value of `process_on_nodes`, `gpus_per_node` or `nnodes` could not be read (a
    /// const, say; already reported), so what the model holds of the node-slots is partial:
    /// the checks of the whole form (a list not empty, both halves of the pair) would only
    /// repeat that error in other words.
    pub(crate) slots_unread: bool,
}

/// Node-slots fixed in the attribute, in one of the two forms of a pool table.
pub(crate) enum FixedSlots<'p> {
    /// `process_on_nodes = [8, 8]`.
    List(&'p Lit<Vec<Lit<u32>>>),
    /// `gpus_per_node = 8, nnodes = 2`.
    Repeat {
        size: &'p Lit<u32>,
        count: &'p Lit<u32>,
    },
}

impl Pool<'_> {
    /// The node-slots the attribute fixes; `None` when it fixes none, or gives only half of
    /// `gpus_per_node`/`nnodes` (an error of its own). With both forms, the list.
    pub(crate) fn fixed_slots(&self) -> Option<FixedSlots<'_>> {
        match (&self.process_on_nodes, &self.gpus_per_node, &self.nnodes) {
            (Some(list), _, _) => Some(FixedSlots::List(list)),
            (None, Some(size), Some(count)) => Some(FixedSlots::Repeat { size, count }),
            _ => None,
        }
    }

    /// verl fuses a pool's roles into one worker group unless asked to keep them apart;
    /// each group puts one process on every bundle, and each process needs one CPU.
    pub(crate) fn worker_groups(&self) -> u32 {
        if self.separate_worker_groups.is_some() {
            u32::try_from(self.roles.len()).unwrap_or(u32::MAX)
        } else {
            1
        }
    }
}

/// A value written in an attribute, with the span of its token.
pub(crate) struct Lit<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

/// `accelerator = "GPU"` or `"NPU"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Accelerator {
    Gpu,
    Npu,
}
