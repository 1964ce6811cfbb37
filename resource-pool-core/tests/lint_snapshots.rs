//! One snapshot of the human report per config diagnostic code, so a person can read
//! what users see, and so that a change of wording or span shows in review.

#[macro_use]
mod common;

use resource_pool_core::config::{ConfigDiagnostic, PoolDefaults, PoolField};
use resource_pool_core::load::load_config;
use resource_pool_core::load::load_struct_pools;

fn lint(text: &str) -> Vec<ConfigDiagnostic> {
    load_config(&common::source("pools.toml", text), &common::lint_options()).diagnostics
}

/// The codes of the diagnostics, and the rendered report.
fn report(text: &str) -> String {
    common::report("pools.toml", text, &lint(text))
}

const OK_MAPPING: &str = "\n[mapping]\nactor_rollout = \"global_pool\"\n";

snapshot!(syntax, "[pools.global_pool\nprocess_on_nodes = [8]\n");
snapshot!(
    duplicate_key,
    "[pools.global_pool]\nprocess_on_nodes = [8]\nprocess_on_nodes = [4]\n"
);
// One error for a pool table written twice, at both headers, not one per repeated key.
snapshot!(
    duplicate_table,
    "[pools.global_pool]\nprocess_on_nodes = [8]\n\n[pools.global_pool]\nprocess_on_nodes = [4]\n"
);
snapshot!(
    unknown_key,
    "[pools.global_pool]\nprocess_on_nodes = [8]\nacelerator = \"GPU\"\n\n[mapping]\nactor_rollout = \"global_pool\"\n"
);
snapshot!(
    unknown_top_level_key,
    "[pool.global_pool]\nprocess_on_nodes = [8]\n"
);
snapshot!(
    wrong_type,
    "[pools.global_pool]\nprocess_on_nodes = \"8\"\n\n[mapping]\nactor_rollout = \"global_pool\"\n"
);
snapshot!(
    bad_number,
    "[pools.global_pool]\nprocess_on_nodes = [8, -1, 2.5, 99999999999]\n\n[mapping]\nactor_rollout = \"global_pool\"\n"
);
snapshot!(no_pools, "[mapping]\nactor_rollout = \"global_pool\"\n");
snapshot!(
    missing_slots,
    "[pools.global_pool]\naccelerator = \"GPU\"\n\n[mapping]\nactor_rollout = \"global_pool\"\n"
);
snapshot!(
    both_slot_forms,
    "[pools.global_pool]\nprocess_on_nodes = [8, 8]\ngpus_per_node = 8\nnnodes = 2\n\n[mapping]\nactor_rollout = \"global_pool\"\n"
);
snapshot!(
    incomplete_slot_form,
    "[pools.global_pool]\ngpus_per_node = 8\n\n[mapping]\nactor_rollout = \"global_pool\"\n"
);
snapshot!(
    empty_process_on_nodes,
    "[pools.global_pool]\nprocess_on_nodes = []\n\n[mapping]\nactor_rollout = \"global_pool\"\n"
);
snapshot!(
    zero_slot,
    "[pools.global_pool]\nprocess_on_nodes = [8, 0]\n\n[mapping]\nactor_rollout = \"global_pool\"\n"
);
snapshot!(
    too_many_slots,
    "[pools.global_pool]\ngpus_per_node = 8\nnnodes = 4294967295\n\n[mapping]\nactor_rollout = \"global_pool\"\n"
);
snapshot!(
    zero_colocate,
    "[pools.global_pool]\nprocess_on_nodes = [8]\nmax_colocate_count = 0\n\n[mapping]\nactor_rollout = \"global_pool\"\n"
);
snapshot!(
    unknown_accelerator,
    "[pools.global_pool]\nprocess_on_nodes = [8]\naccelerator = \"gpu\"\n\n[mapping]\nactor_rollout = \"global_pool\"\n"
);
snapshot!(
    empty_accelerator_type,
    "[pools.global_pool]\nprocess_on_nodes = [8]\naccelerator_type = \"\"\n\n[mapping]\nactor_rollout = \"global_pool\"\n"
);
snapshot!(
    bad_bundle_resource,
    "[pools.global_pool]\nprocess_on_nodes = [8]\nbundle_resources = { GPU = 1, my_custom = 0.5 }\n\n[mapping]\nactor_rollout = \"global_pool\"\n"
);
snapshot!(
    unknown_pool,
    "[pools.global_pool]\nprocess_on_nodes = [8]\n\n[pools.reward_pool]\nprocess_on_nodes = [4]\n\n[mapping]\nactor_rollout = \"global_pool\"\nrm = \"reward_pol\"\n"
);
snapshot!(
    unused_pool,
    "[pools.global_pool]\nprocess_on_nodes = [8]\n\n[pools.spare]\nprocess_on_nodes = [1]\n\n[mapping]\nactor_rollout = \"global_pool\"\n"
);
snapshot!(
    uneven_slots,
    "[pools.global_pool]\nprocess_on_nodes = [8, 4]\n\n[mapping]\nactor_rollout = \"global_pool\"\n"
);
snapshot!(
    unknown_role,
    "[pools.global_pool]\nprocess_on_nodes = [8]\n\n[mapping]\nactor_rollout = \"global_pool\"\ncritc = \"global_pool\"\n"
);
snapshot!(
    role_mapped_twice,
    "[pools.global_pool]\nprocess_on_nodes = [8]\n\n[mapping]\nref = \"global_pool\"\nref_policy = \"global_pool\"\n"
);
snapshot!(
    demand_overflow,
    "[pools.global_pool]\nprocess_on_nodes = [4294967295]\nmax_colocate_count = 4294967295\n\n[mapping]\nactor_rollout = \"global_pool\"\n"
);

#[test]
fn many_problems_are_reported_at_once() {
    let text = include_str!("data/lint/many_problems.toml");
    insta::assert_snapshot!(report(text));
}

#[test]
fn valid_configs_have_no_diagnostics() {
    let text = format!("[pools.global_pool]\nprocess_on_nodes = [8, 8]\n{OK_MAPPING}");
    assert!(lint(&text).is_empty());
}

#[test]
fn struct_pool_files_report_missing_and_colocate() {
    let text = "[global_pool]\nprocess_on_nodes = [8]\nmax_colocate_count = 1\n\n[reward_pol]\nprocess_on_nodes = [4]\n";
    let fields = [
        PoolField {
            name: "global_pool",
            defaults: PoolDefaults::default(),
            worker_groups: 3,
        },
        PoolField {
            name: "reward_pool",
            defaults: PoolDefaults::default(),
            worker_groups: 1,
        },
    ];
    let err = load_struct_pools(&common::source("pools.toml", text), &fields).unwrap_err();
    insta::assert_snapshot!(common::render("pools.toml", text, &err.diagnostics));
}
