//! What `#[derive(ResourcePools)]` generates calls: loading a derived struct's pools.

use std::path::Path;

use crate::config::{ConfigErrors, ConfigWarnings, PoolDefaults, PoolField};
use crate::load::{deserialize_struct_pools, load_struct_pools};
use crate::source::{ReadError, ReadLimits, SourceFile};
use crate::{
    Accelerator, DEFAULT_MAX_COLOCATE_COUNT, ManagerError, PoolSpec, ResourcePool,
    ResourcePoolManager, Role,
};

/// Why a derived struct's pools file does not load: it cannot be read, or its content
/// is wrong (every problem, with spans).
///
/// `Serialize` writes the inner error's data fields only, untagged; which error it is, is
/// the variant, or [`Diagnostic::code`](miette::Diagnostic::code).
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum LoadPoolsError {
    /// The file cannot be read.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Read(#[from] ReadError),
    /// The file was read and has problems.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Config(#[from] ConfigErrors),
}

/// A pool's attribute, as the derive writes it into a constant.
#[derive(Clone, Copy, Debug)]
pub struct PoolAttrs {
    /// The field's name.
    pub name: &'static str,
    /// `process_on_nodes = [...]`.
    pub process_on_nodes: Option<&'static [u32]>,
    /// `max_colocate_count = N`.
    pub max_colocate_count: Option<u32>,
    /// `accelerator = "..."`.
    pub accelerator: Option<Accelerator>,
    /// `accelerator_type = "..."`.
    pub accelerator_type: Option<&'static str>,
    /// 1, or the number of roles with `separate_worker_groups`.
    pub worker_groups: u32,
}

impl PoolAttrs {
    fn field(&self) -> PoolField {
        PoolField {
            name: self.name,
            defaults: PoolDefaults {
                process_on_nodes: self.process_on_nodes.map(<[u32]>::to_vec),
                accelerator: self.accelerator.unwrap_or_default(),
                max_colocate_count: self
                    .max_colocate_count
                    .unwrap_or(DEFAULT_MAX_COLOCATE_COUNT),
                accelerator_type: self.accelerator_type.map(str::to_owned),
            },
            worker_groups: self.worker_groups,
        }
    }
}

/// A derived struct's pools, in field order, and the file's warnings.
pub type Loaded<const N: usize> = ([PoolSpec; N], ConfigWarnings);

fn load<const N: usize>(
    source: &SourceFile,
    attrs: &[PoolAttrs],
) -> Result<Loaded<N>, ConfigErrors> {
    let fields: Vec<PoolField> = attrs.iter().map(PoolAttrs::field).collect();
    let loaded = load_struct_pools(source, &fields)?;
    let specs = loaded
        .specs
        .try_into()
        .unwrap_or_else(|specs: Vec<PoolSpec>| {
            unreachable!("{} pools loaded for {N} fields", specs.len())
        });
    Ok((specs, loaded.warnings))
}

/// `from_toml_str` and `from_toml_str_with_warnings`.
pub fn load_pools_str<const N: usize>(
    src: &str,
    file_name: &str,
    attrs: &[PoolAttrs],
) -> Result<Loaded<N>, ConfigErrors> {
    load(&SourceFile::new(file_name, src), attrs)
}

/// `from_toml_file` and `from_toml_file_with_warnings`.
pub fn load_pools_file<const N: usize>(
    path: &Path,
    attrs: &[PoolAttrs],
) -> Result<Loaded<N>, LoadPoolsError> {
    let source = SourceFile::read(path, ReadLimits::default())?;
    Ok(load(&source, attrs)?)
}

/// serde's `Deserialize` of a derived struct: one pool table per field, with the
/// attribute values as defaults, as [`load_pools_str`] reads them.
pub fn deserialize_pools<'de, D, const N: usize>(
    deserializer: D,
    struct_name: &'static str,
    attrs: &[PoolAttrs],
) -> Result<[PoolSpec; N], D::Error>
where
    D: serde::Deserializer<'de>,
{
    let fields: Vec<PoolField> = attrs.iter().map(PoolAttrs::field).collect();
    let specs = deserialize_struct_pools(deserializer, struct_name, &fields)?;
    Ok(specs.try_into().unwrap_or_else(|specs: Vec<PoolSpec>| {
        unreachable!("{} pools read for {N} fields", specs.len())
    }))
}

/// `fixed()`: the pools of an empty file, where every attribute fixes its sizes. The
/// derive has checked the literal values, each pool's and their sum against the slot
/// limit (`check_total_slots`), so this does not fail.
pub fn fixed_pools<const N: usize>(attrs: &[PoolAttrs]) -> [PoolSpec; N] {
    match load(&SourceFile::new("<attributes>", ""), attrs) {
        Ok((specs, _)) => specs,
        Err(errors) => panic!("the pools fixed by attributes are invalid: {errors}"),
    }
}

/// `try_into_manager`: the pools in field order, each role mapped by the derive's
/// `__pool_of`, in `Role::ALL` order. A hand-built `PoolSpec` is held to the rules a file's
/// pool is: the model's own (`ResourcePoolManager::new`), and the attribute's worker groups,
/// each of which needs one CPU per bundle. A count of 0 is the model's `ZeroColocate`, not
/// a count below the groups: the file's lint tells them apart the same way.
pub(crate) fn manager<R: RoleVariants>(
    pools: Vec<ResourcePool>,
    pool_of: fn(R) -> Option<usize>,
    attrs: &'static [PoolAttrs],
) -> Result<ResourcePoolManager<R>, ManagerError> {
    for (pool, attr) in pools.iter().zip(attrs) {
        if pool.spec.max_colocate_count == 0 {
            return Err(ManagerError::ZeroColocate(pool.name.clone()));
        }
        if pool.spec.max_colocate_count < attr.worker_groups {
            return Err(ManagerError::ColocateTooSmall {
                pool: pool.name.clone(),
                groups: attr.worker_groups,
                count: pool.spec.max_colocate_count,
            });
        }
    }
    let mapping = R::ROLES
        .iter()
        .filter_map(|&role| Some((role, attrs.get(pool_of(role)?)?.name)));
    ResourcePoolManager::new(pools, mapping)
}

/// `into_manager`.
pub fn unwrap_manager<R>(
    manager: Result<ResourcePoolManager<R>, ManagerError>,
) -> ResourcePoolManager<R> {
    match manager {
        Ok(manager) => manager,
        Err(err) => panic!("invalid hand-built pools: {err}"),
    }
}

/// What `#[derive(Role)]` adds for `#[derive(ResourcePools)]`'s compile-time check.
///
/// A derived struct names this trait in one place only, through a trait of its own with a
/// message of its own (`__ROLE_ENUM`, which builds a [`RoleEnum`]), so that a `role` that
/// is no role enum is one error, which names neither this trait nor its implementors.
pub trait RoleVariants: Role {
    /// `Role::ALL`.
    const ROLES: &'static [Self];
    /// The variants' identifiers, as in `Role::ALL`.
    const VARIANTS: &'static [&'static str];
}

/// What a derived struct uses of its role enum: built once, where the enum is checked to
/// be one, so that nothing else the derive generates puts a bound on it (each would be a
/// second error for a `role` that is no role enum).
pub struct RoleEnum<R: 'static> {
    /// `Role::ALL`.
    pub roles: &'static [R],
    /// The variants' identifiers, as in `Role::ALL`.
    pub variants: &'static [&'static str],
    /// `try_into_manager` for this enum (the crate-private `manager`).
    #[allow(clippy::type_complexity)]
    pub manager: fn(
        Vec<ResourcePool>,
        fn(R) -> Option<usize>,
        &'static [PoolAttrs],
    ) -> Result<ResourcePoolManager<R>, ManagerError>,
}

impl<R: RoleVariants> RoleEnum<R> {
    /// The enum's.
    pub const OF: RoleEnum<R> = RoleEnum {
        roles: R::ROLES,
        variants: R::VARIANTS,
        manager: manager::<R>,
    };
}

/// The length of [`unassigned_message`]: 0 when every role is assigned.
pub const fn unassigned_len(variants: &[&str], unassigned: &[bool]) -> usize {
    write_unassigned(variants, unassigned, &mut [])
}

/// The compile-time error naming every role no pool lists (`unassigned[i]` for
/// `variants[i]`), as bytes of UTF-8: const code has no `format!`, so the message is
/// written into an array of [`unassigned_len`] bytes. A panic's message is its text, so
/// this makes one error however many roles are missing, where a panic per role would
/// stop at the first.
pub const fn unassigned_message<const LEN: usize>(
    variants: &[&str],
    unassigned: &[bool],
) -> [u8; LEN] {
    let mut message = [0; LEN];
    write_unassigned(variants, unassigned, &mut message);
    message
}

/// The error of [`unassigned_message`]'s bytes, `None` when there is none (every role
/// is assigned). The test is here rather than in the generated code, where a comparison of
/// the length with 0 is, to clippy, the user's comparison of a constant.
pub const fn unassigned_error(message: &[u8]) -> Option<&str> {
    match core::str::from_utf8(message) {
        Ok(text) if text.is_empty() => None,
        Ok(text) => Some(text),
        Err(_) => Some("roles are not assigned to any pool"),
    }
}

/// Writes the message into `out` (as far as it fits) and returns its length.
const fn write_unassigned(variants: &[&str], unassigned: &[bool], out: &mut [u8]) -> usize {
    let mut count = 0;
    let mut i = 0;
    while i < variants.len() && i < unassigned.len() {
        if unassigned[i] {
            count += 1;
        }
        i += 1;
    }
    if count == 0 {
        return 0;
    }
    let mut len = push(out, 0, if count == 1 { "role " } else { "roles " });
    let mut written = 0;
    let mut i = 0;
    while i < variants.len() && i < unassigned.len() {
        if unassigned[i] {
            if written > 0 {
                len = push(out, len, if written + 1 == count { " and " } else { ", " });
            }
            len = push(out, len, "`");
            len = push(out, len, variants[i]);
            len = push(out, len, "`");
            written += 1;
        }
        i += 1;
    }
    push(
        out,
        len,
        if count == 1 {
            " is not assigned to any pool: add it to the `roles(...)` of one `#[pool]`"
        } else {
            " are not assigned to any pool: add each to the `roles(...)` of one `#[pool]`"
        },
    )
}

/// Writes `text` at `at` in `out`, as far as it fits, and returns the end.
const fn push(out: &mut [u8], at: usize, text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if at + i < out.len() {
            out[at + i] = bytes[i];
        }
        i += 1;
    }
    at + bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(variants: &[&str], unassigned: &[bool]) -> String {
        let mut out = vec![0; unassigned_len(variants, unassigned)];
        write_unassigned(variants, unassigned, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_unassigned_message_names_every_missing_role() {
        let variants = ["Actor", "Critic", "RewardModel", "Réf"];
        assert_eq!(message(&variants, &[false; 4]), "");
        assert_eq!(
            message(&variants, &[false, true, false, false]),
            "role `Critic` is not assigned to any pool: add it to the `roles(...)` of one `#[pool]`"
        );
        assert_eq!(
            message(&variants, &[false, true, true, false]),
            "roles `Critic` and `RewardModel` are not assigned to any pool: add each to the \
             `roles(...)` of one `#[pool]`"
        );
        assert_eq!(
            message(&variants, &[true, true, false, true]),
            "roles `Actor`, `Critic` and `Réf` are not assigned to any pool: add each to the \
             `roles(...)` of one `#[pool]`"
        );
        const BYTES: [u8; 81] = unassigned_message(&["A", "B"], &[false, true]);
        assert_eq!(
            unassigned_error(&BYTES),
            Some(
                "role `B` is not assigned to any pool: add it to the `roles(...)` of one `#[pool]`"
            )
        );
        assert_eq!(unassigned_error(&[]), None);
    }
}
