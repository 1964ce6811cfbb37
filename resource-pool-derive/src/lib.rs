//! `#[derive(Role)]` and `#[derive(ResourcePools)]` for
//! `resource-pool` (the crate beside this one in the workspace): verl's role → pool mapping, checked by
//! the compiler.
//!
//! Use them through the `resource_pool` crate, which re-exports both (`use
//! resource_pool::{ResourcePools, Role};`); the generated code names `::resource_pool`.
//!
//! The crate reads the input into a plain model (`ast`, by `attr`), collecting every
//! mistake in a context (`ctxt`), checks what needs no other item (`check`), then
//! generates code (`expand`) or, beside errors, impls that never run (`fallback`), so
//! that a mistake is reported once and not as a cascade: a check that depends on an
//! attribute with a mistake (an unknown key, a misspelt `#[pools]` that rustc reports) is
//! skipped. What needs the role enum itself (every role assigned to a pool, every listed
//! name a variant, the enum a role enum at all) is left to the compiler: the generated
//! code has one pattern per listed role, on the user's own token, one bound on the enum,
//! and a constant evaluated at compile time that names every role no pool lists.
#![forbid(unsafe_code)]

mod ast;
mod attr;
mod case;
mod check;
mod ctxt;
mod expand;
mod fallback;
mod suggest;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

use crate::ctxt::Ctxt;

/// Makes a fieldless enum a closed set of roles: implements `resource_pool::Role` and
/// `resource_pool::RoleKey`, `Display`, `FromStr` and serde's `Serialize`/`Deserialize`,
/// all by the role's name.
///
/// The enum must also derive (or implement) `Clone, Copy, Debug, PartialEq, Eq, Hash`.
///
/// ```
/// use resource_pool::Role;
///
/// #[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// #[role(rename_all = "snake_case")]
/// enum MyRole {
///     ActorRollout,
///     Critic,
///     #[role(rename = "ref")]
///     RefPolicy,
/// }
///
/// assert_eq!(MyRole::ALL, [MyRole::ActorRollout, MyRole::Critic, MyRole::RefPolicy]);
/// assert_eq!(MyRole::ActorRollout.name(), "actor_rollout");
/// assert_eq!(MyRole::RefPolicy.to_string(), "ref");
/// assert_eq!(MyRole::Critic.index(), 1);
/// assert_eq!("critic".parse::<MyRole>(), Ok(MyRole::Critic));
///
/// let err = "critc".parse::<MyRole>().unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "unknown role `critc`; did you mean `critic`? (the roles are actor_rollout, critic, ref)"
/// );
/// ```
///
/// # Attributes
///
/// On the enum, `#[role(rename_all = "...")]` renames every role by one of serde's case
/// conventions: `"lowercase"`, `"UPPERCASE"`, `"PascalCase"`, `"camelCase"`,
/// `"snake_case"`, `"SCREAMING_SNAKE_CASE"`, `"kebab-case"`, `"SCREAMING-KEBAB-CASE"`.
/// Without it, a role is named as its variant (`Critic`).
///
/// On a variant, `#[role(rename = "...")]` names that role, over `rename_all`:
///
/// ```
/// use resource_pool::Role;
///
/// #[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// #[role(rename_all = "kebab-case")]
/// enum Stage {
///     ActorRollout,
///     #[role(rename = "rm")]
///     RewardModel,
/// }
///
/// assert_eq!(Stage::ActorRollout.name(), "actor-rollout");
/// assert_eq!(Stage::RewardModel.name(), "rm");
/// ```
///
/// Serde reads and writes a role as its name:
///
/// ```
/// # use resource_pool::Role;
/// # #[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// # #[role(rename_all = "snake_case")]
/// # enum MyRole { ActorRollout, Critic }
/// let json = serde_json::to_string(&[MyRole::Critic, MyRole::ActorRollout]).unwrap();
/// assert_eq!(json, r#"["critic","actor_rollout"]"#);
/// let back: Vec<MyRole> = serde_json::from_str(&json).unwrap();
/// assert_eq!(back, [MyRole::Critic, MyRole::ActorRollout]);
/// ```
///
/// # Errors at compile time
///
/// A struct or union, a variant with fields, generic parameters, an enum without
/// variants, an unknown key or a value of the wrong type, an unknown `rename_all` rule
/// (with a did-you-mean), and two roles of the same name after renaming:
///
/// ```compile_fail
/// # use resource_pool::Role;
/// #[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// #[role(rename_all = "snake_case")]
/// enum MyRole {
///     RefPolicy,
///     #[role(rename = "ref_policy")] // error: both are named "ref_policy"
///     Reference,
/// }
/// ```
#[proc_macro_derive(Role, attributes(role))]
pub fn derive_role(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let cx = Ctxt::new();
    let role = attr::role_enum(&cx, &input);
    if let Some(role) = &role {
        check::role_enum(&cx, role);
    }
    match (cx.check(), role) {
        (Ok(()), Some(role)) => expand::role_enum(&role),
        (Err(error), _) => fallback::role_enum(&input, error),
        (Ok(()), None) => unreachable!("an unread enum is always reported"),
    }
    .into()
}

/// Makes a struct of `PoolSpec` fields a checked layout: one field per pool, created in
/// field order, each hosting the roles its `#[pool(roles(...))]` lists.
///
/// ```
/// use resource_pool::{PoolSpec, ResourcePools, Role};
///
/// #[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// #[role(rename_all = "snake_case")]
/// enum MyRole { ActorRollout, Critic, RefPolicy, RewardModel }
///
/// #[derive(ResourcePools)]
/// #[resource_pools(role = MyRole)]
/// struct Pools {
///     #[pool(roles(ActorRollout, Critic, RefPolicy))]
///     global_pool: PoolSpec, // sizes come from the file
///     #[pool(roles(RewardModel), max_colocate_count = 1)]
///     reward_pool: PoolSpec,
/// }
///
/// let toml = r#"
/// [global_pool]
/// process_on_nodes = [8, 8]
///
/// [reward_pool]
/// gpus_per_node = 4
/// nnodes = 1
/// "#;
/// let pools = Pools::from_toml_str(toml, "pools.toml").unwrap();
/// let manager = pools.into_manager();
/// // Cannot fail: the compiler checked that every role has a pool.
/// assert_eq!(manager.get_resource_pool(MyRole::Critic).name, "global_pool");
/// assert_eq!(manager.get_resource_pool(MyRole::RewardModel).process_on_nodes(), [4]);
/// assert_eq!(manager.get_resource_pool(MyRole::RewardModel).spec.max_colocate_count, 1);
/// ```
///
/// # Generated API
///
/// - `Pools::from_toml_str(src, file_name) -> Result<Pools, resource_pool::config::ConfigErrors>`
///   and `Pools::from_toml_file(path) -> Result<Pools, resource_pool::LoadPoolsError>`:
///   the file has one top-level table per field, with the keys of a pool table of the
///   CLI's config (`process_on_nodes = [8, 8]`, or `gpus_per_node` and `nnodes`;
///   `accelerator`, `max_colocate_count`, `accelerator_type`, `bundle_resources`) and no
///   `[mapping]`: the mapping is the code. Errors are miette diagnostics with spans.
/// - `Pools::from_toml_str_with_warnings` and `Pools::from_toml_file_with_warnings`: the
///   same, and the file's warnings (`resource_pool::config::ConfigWarnings`: uneven
///   node-slots, ...), which the plain loaders drop.
/// - `Pools::fixed() -> Pools`, when every pool fixes its node-slots: no file at all. On a
///   struct with a pool that fixes none, a call of `fixed()` does not compile, and the error
///   names that pool. It does not fail at run time: the derive has checked every fixed
///   value, and that all pools together fix no more node-slots than the loaders accept
///   (1,000,000).
/// - `pools.into_manager() -> ResourcePoolManager<MyRole>` (and `try_into_manager`,
///   which returns an error instead of panicking when a `PoolSpec` was built by hand and
///   is invalid).
/// - serde's `Deserialize` and `Serialize`, so that the struct can be a field of the
///   trainer's own config (see [serde](#serde) below). Do not also derive
///   `serde::Deserialize`: the two impls conflict (E0119).
///
/// # Attributes
///
/// On the struct, `#[resource_pools(role = path::to::MyRole)]` (required) names the
/// `#[derive(Role)]` enum, from this module, another module or another crate.
///
/// On each field, `#[pool(...)]` with:
///
/// - `roles(A, B, ...)` (required): the variants the pool hosts. Each role of the enum
///   must be listed by exactly one pool.
/// - `max_colocate_count = N`: CPUs per bundle, one per colocated worker process
///   (verl's default is 3). At least the pool's number of worker groups.
/// - `separate_worker_groups`: each role is its own worker group (by default, a pool's
///   roles are fused into one group, as verl does), so the pool needs
///   `max_colocate_count` of at least its number of roles.
/// - `process_on_nodes = [8, 8]`, or `gpus_per_node = 8, nnodes = 2` (the same slots):
///   fixes the node-slots; the file may then leave the pool's table out (or override it).
///   One form, whole, without zeros; `nnodes` at most 1,000,000.
/// - `accelerator = "GPU"` or `"NPU"`.
/// - `accelerator_type = "accelerator_type:H100"`: a custom Ray resource each bundle asks
///   `0.0001` of.
///
/// A layout fixed in code, with no file:
///
/// ```
/// use resource_pool::{PoolSpec, ResourcePools, Role};
///
/// #[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// enum Ascend { Actor, Rollout, Critic }
///
/// #[derive(ResourcePools)]
/// #[resource_pools(role = Ascend)]
/// struct Pools {
///     #[pool(
///         roles(Actor, Rollout, Critic),
///         separate_worker_groups,
///         max_colocate_count = 3,
///         process_on_nodes = [16, 16],
///         accelerator = "NPU",
///         accelerator_type = "accelerator_type:910B",
///     )]
///     global_pool: PoolSpec,
/// }
///
/// let manager = Pools::fixed().into_manager();
/// let pool = manager.get_resource_pool(Ascend::Rollout);
/// assert_eq!(pool.process_on_nodes(), [16, 16]);
/// assert_eq!(pool.spec.accelerator, resource_pool::Accelerator::Npu);
/// assert_eq!(pool.spec.accelerator_type.as_deref(), Some("accelerator_type:910B"));
/// ```
///
/// # serde
///
/// The struct reads from any serde format as `from_toml_str` reads a pools file: one pool
/// table per field, under the field's name, with the keys and rules of a config's pool
/// table; a pool whose attribute fixes its node-slots may be left out, and the attribute
/// values are the defaults of what a table leaves out. A value in the file replaces the
/// attribute's, as with `from_toml_str` (`process_on_nodes = [2, 2]` in the file wins over
/// `#[pool(process_on_nodes = [4])]`); only what the compiler checked (the roles and their
/// pools) is never the file's to change. So the pools can sit in the trainer's config:
///
/// ```
/// use resource_pool::{PoolSpec, ResourcePools, Role};
///
/// #[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// #[role(rename_all = "snake_case")]
/// enum MyRole { ActorRollout, Critic, RewardModel }
///
/// #[derive(ResourcePools)]
/// #[resource_pools(role = MyRole)]
/// struct Pools {
///     #[pool(roles(ActorRollout, Critic))]
///     global_pool: PoolSpec,
///     #[pool(roles(RewardModel), max_colocate_count = 1, process_on_nodes = [4])]
///     reward_pool: PoolSpec,
/// }
///
/// #[derive(serde::Deserialize)]
/// struct TrainerConfig {
///     lr: f64,
///     pools: Pools,
/// }
///
/// let toml = r#"
/// lr = 1e-6
///
/// [pools.global_pool]
/// process_on_nodes = [8, 8]
///
/// [pools.reward_pool]
/// accelerator = "NPU"
/// "#;
/// let config: TrainerConfig = toml::from_str(toml).unwrap();
/// let manager = config.pools.into_manager(); // no check at run time: the compiler did it
/// let reward = manager.get_resource_pool(MyRole::RewardModel);
/// assert_eq!(reward.process_on_nodes(), [4]); // from the attribute
/// assert_eq!(reward.spec.max_colocate_count, 1); // from the attribute
/// assert_eq!(reward.spec.accelerator, resource_pool::Accelerator::Npu); // from the file
///
/// // The same from JSON, here with the other slot form.
/// let json = r#"{"lr": 1e-6, "pools": {"global_pool": {"gpus_per_node": 8, "nnodes": 2}}}"#;
/// let config: TrainerConfig = serde_json::from_str(json).unwrap();
/// assert_eq!(config.pools.global_pool.process_on_nodes, [8, 8]);
/// ```
///
/// A bad value fails where it stands, naming its key, and the format adds the position
/// (toml: line, column and the line itself; serde_json: line and column). A problem of a
/// whole table (no size, both slot forms) fails at the table. serde stops at the first
/// problem; `from_toml_str` and `from_toml_file` report every problem of a file at once,
/// each as a miette diagnostic on its span:
///
/// ```
/// # use resource_pool::{PoolSpec, ResourcePools, Role};
/// # #[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// # enum MyRole { Actor }
/// # #[derive(ResourcePools)]
/// # #[resource_pools(role = MyRole)]
/// # struct Pools { #[pool(roles(Actor))] global_pool: PoolSpec }
/// # #[derive(serde::Deserialize)]
/// # struct TrainerConfig { pools: Pools }
/// let err = toml::from_str::<TrainerConfig>("[pools.global_pool]\nprocess_on_nodes = []\n")
///     .err()
///     .unwrap();
/// assert_eq!(
///     err.to_string(),
///     "TOML parse error at line 2, column 20\n  |\n2 | process_on_nodes = []\n  |                    ^^\n\
///      `process_on_nodes`: pool `global_pool` has no node-slot; a pool needs at least one \
///      node-slot, such as `process_on_nodes = [8]`\n"
/// );
///
/// let json = r#"{"pools": {"global_pool": {"process_on_nodes": [8], "nnode": 2}}}"#;
/// let err = serde_json::from_str::<TrainerConfig>(json).err().unwrap();
/// assert_eq!(
///     err.to_string(),
///     "unknown key `nnode` in pool `global_pool`; did you mean `nnodes`? at line 1 column 59"
/// );
/// ```
///
/// A struct whose pools all fix their node-slots may leave the whole table out with
/// `#[serde(default = "Pools::fixed")]` on the config's field, and it writes back
/// (`Serialize`) as it reads:
///
/// ```
/// # use resource_pool::{PoolSpec, ResourcePools, Role};
/// # #[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// # enum MyRole { Actor }
/// #[derive(ResourcePools, Debug, PartialEq)]
/// #[resource_pools(role = MyRole)]
/// struct Pools {
///     #[pool(roles(Actor), gpus_per_node = 8, nnodes = 2)]
///     global_pool: PoolSpec,
/// }
///
/// #[derive(serde::Deserialize, serde::Serialize)]
/// struct TrainerConfig {
///     #[serde(default = "Pools::fixed")]
///     pools: Pools,
/// }
///
/// let config: TrainerConfig = toml::from_str("").unwrap();
/// assert_eq!(config.pools, Pools::fixed());
/// let written = toml::to_string(&config).unwrap();
/// assert_eq!(
///     written,
///     "[pools.global_pool]\nprocess_on_nodes = [8, 8]\naccelerator = \"GPU\"\nmax_colocate_count = 3\n"
/// );
/// assert_eq!(toml::from_str::<TrainerConfig>(&written).unwrap().pools, Pools::fixed());
/// ```
///
/// # Errors at compile time
///
/// Each at the user's own token: the roles no pool lists (one error naming them all,
/// `roles `Critic` and `RewardModel` are not assigned to any pool`, at the `role = ...`
/// path), a `role` that is no `#[derive(Role)]` enum (one error, naming it), a role listed twice (one error, at the second,
/// naming the first's pool), a name that is no variant (rustc's E0599 with its
/// similar-name hint), a literal `max_colocate_count` below the pool's worker groups, a
/// literal `process_on_nodes` that is empty or holds a zero, more fixed node-slots over all
/// pools than the loaders accept (at the pool that passes the limit, naming each pool's
/// count), a role written as a string (with the variant to write), a number that is not an
/// integer literal (a const: the derive reads the attribute's tokens, not their values),
/// unknown keys and values of the wrong type, a call of `Pools::fixed()` when a pool fixes
/// no node-slots, and anything but a struct with named fields. An error has no echoes: with
/// an unknown key in `#[pool(...)]` (`role(...)`), or a misspelt attribute (`#[pools]`,
/// which rustc reports with its did-you-mean), the derive does not add that the pool
/// hosts no role.
///
/// ```compile_fail
/// # use resource_pool::{PoolSpec, ResourcePools, Role};
/// # #[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// # enum MyRole { Actor, Critic }
/// #[derive(ResourcePools)]
/// #[resource_pools(role = MyRole)] // error: role `Critic` is not assigned to any pool
/// struct Pools {
///     #[pool(roles(Actor))]
///     global_pool: PoolSpec,
/// }
/// ```
#[proc_macro_derive(ResourcePools, attributes(resource_pools, pool))]
pub fn derive_resource_pools(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let cx = Ctxt::new();
    let pools = attr::pools_struct(&cx, &input);
    if let Some(pools) = &pools {
        check::pools_struct(&cx, pools);
    }
    match (cx.check(), pools) {
        (Ok(()), Some(pools)) => expand::pools_struct(&pools),
        (Err(error), pools) => {
            let role = pools.as_ref().and_then(|p| p.role.as_ref());
            fallback::pools_struct(&input, role, error)
        }
        (Ok(()), None) => unreachable!("an unread struct is always reported"),
    }
    .into()
}
