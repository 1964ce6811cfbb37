//! Property: any config we can print parses back to the same model.

use proptest::prelude::*;
use resource_pool_core::config::config_to_toml;
use resource_pool_core::lint::{LintOptions, RoleSet};
use resource_pool_core::load::load_config;
use resource_pool_core::source::SourceFile;
use resource_pool_core::{
    Accelerator, Amount, PoolSpec, ResourcePool, ResourcePoolManager, Resources, RoleName,
};

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_][a-z0-9_]{0,12}",
        "[a-z ./:\"\\\\-]{1,10}",
        "\\PC{1,6}"
    ]
}

fn spec() -> impl Strategy<Value = PoolSpec> {
    (
        prop::collection::vec(1u32..=64, 1..5),
        prop_oneof![Just(Accelerator::Gpu), Just(Accelerator::Npu)],
        1u32..8,
        prop::option::of("accelerator_type:[A-Z0-9]{1,5}"),
        prop::collection::btree_map("[a-z][a-z_]{0,6}", 1u64..100_000, 0..3),
    )
        .prop_map(
            |(process_on_nodes, accelerator, max_colocate_count, accelerator_type, extra)| {
                PoolSpec {
                    process_on_nodes,
                    accelerator,
                    max_colocate_count,
                    accelerator_type,
                    bundle_resources: extra
                        .into_iter()
                        .map(|(k, v)| (k, Amount::from_units(v)))
                        .collect::<Resources>(),
                }
            },
        )
}

fn manager() -> impl Strategy<Value = ResourcePoolManager<RoleName>> {
    prop::collection::btree_map(name(), spec(), 1..4)
        .prop_flat_map(|pools| {
            let pools: Vec<ResourcePool> = pools
                .into_iter()
                .map(|(n, s)| ResourcePool::new(n, s))
                .collect();
            let count = pools.len();
            (
                Just(pools),
                prop::collection::btree_map(name(), 0..count, 0..5),
            )
        })
        .prop_map(|(pools, mapping)| {
            let names: Vec<String> = pools.iter().map(|p| p.name.clone()).collect();
            let mapping: Vec<(RoleName, &str)> = mapping
                .into_iter()
                .map(|(role, i)| (RoleName(role), names[i].as_str()))
                .collect();
            ResourcePoolManager::new(pools.clone(), mapping).expect("generated managers are valid")
        })
}

proptest! {
    #[test]
    fn printed_configs_parse_back(manager in manager()) {
        let text = config_to_toml(&manager);
        let options = LintOptions { roles: RoleSet::Any, ..LintOptions::default() };
        let loaded = load_config(&SourceFile::new("p.toml", text.as_str()), &options);
        prop_assert!(!loaded.has_errors(), "{text}\n{:?}", loaded.diagnostics);
        let back = loaded.manager.expect("valid");
        prop_assert_eq!(back.pools(), manager.pools());
        let a: Vec<_> = back.mapping().map(|(r, p)| (r.clone(), p.name.clone())).collect();
        let mut b: Vec<_> = manager.mapping().map(|(r, p)| (r.clone(), p.name.clone())).collect();
        let mut a = a;
        a.sort();
        b.sort();
        prop_assert_eq!(a, b);
    }
}
