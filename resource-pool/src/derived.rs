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
pub fn manager<R: RoleVariants>(
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
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[derive(Role)]` enum",
    label = "the `role` of `#[resource_pools]` must be a role enum",
    note = "derive it: `#[derive(resource_pool::Role)]`"
)]
pub trait RoleVariants: Role {
    /// `Role::ALL`.
    const ROLES: &'static [Self];
    /// The variants' identifiers, as in `Role::ALL`.
    const VARIANTS: &'static [&'static str];
    /// For each variant, the message when no pool lists it.
    const UNASSIGNED: &'static [&'static str];
}
