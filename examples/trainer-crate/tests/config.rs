//! The pools read inside the trainer's own config, from TOML and from JSON.

use resource_pool::Accelerator;
use trainer_crate::{TrainerConfig, TrainerRole};

const CONFIG: &str = r#"
lr = 1e-6
total_steps = 1000

[pools.global_pool]
process_on_nodes = [8, 8, 8, 8]

[pools.reward_pool]
accelerator = "GPU"
"#;

#[test]
fn the_config_reads_with_toml() {
    let config: TrainerConfig = toml::from_str(CONFIG).unwrap();
    let layout = config.layout();
    let actor = layout.get_resource_pool(TrainerRole::ActorRollout);
    assert_eq!(actor.process_on_nodes(), [8, 8, 8, 8]);
    // Left out of the file: the attributes' values.
    let reward = layout.get_resource_pool(TrainerRole::RewardModel);
    assert_eq!(reward.process_on_nodes(), [4]);
    assert_eq!(reward.spec.max_colocate_count, 1);
    assert_eq!(reward.spec.accelerator, Accelerator::Gpu);
}

#[test]
fn the_config_reads_with_serde_json() {
    let json = r#"{"lr": 1e-6, "total_steps": 1000,
                   "pools": {"global_pool": {"gpus_per_node": 8, "nnodes": 4}}}"#;
    let config: TrainerConfig = serde_json::from_str(json).unwrap();
    assert_eq!(config.pools, toml::from_str::<TrainerConfig>(CONFIG).unwrap().pools);
}

#[test]
fn without_pools_the_attributes_fix_them() {
    let config: TrainerConfig = toml::from_str("lr = 1e-6\ntotal_steps = 10\n").unwrap();
    assert_eq!(config.pools.global_pool.process_on_nodes, [8, 8]);
}

/// A TOML config with `pools` as its last lines, and the error it gets.
fn bad(pools: &str) -> String {
    let text = format!("lr = 1e-6\ntotal_steps = 1000\n\n{pools}");
    toml::from_str::<TrainerConfig>(&text).unwrap_err().to_string()
}

#[test]
fn bad_values_name_their_key_and_line() {
    let err = bad("[pools.global_pool]\nprocess_on_nodes = []\n");
    assert!(err.starts_with("TOML parse error at line 5, column 20"), "{err}");
    assert!(err.contains("`process_on_nodes`: pool `global_pool` has no node-slot"), "{err}");

    let err = bad("[pools.global_pool]\nprocess_on_nodes = [8, 8]\nnnode = 2\n");
    assert!(err.starts_with("TOML parse error at line 6, column 1"), "{err}");
    assert!(err.contains("unknown key `nnode` in pool `global_pool`; did you mean `nnodes`?"), "{err}");

    let err = bad("[pools.reward_pool]\nmax_colocate_count = 0\n");
    assert!(err.starts_with("TOML parse error at line 5, column 22"), "{err}");
    assert!(err.contains("`max_colocate_count`: pool `reward_pool` has max_colocate_count = 0"), "{err}");

    let err = bad("[pools.global_pool]\nprocess_on_nodes = [8, 0]\n");
    assert!(err.starts_with("TOML parse error at line 5"), "{err}");
    assert!(err.contains("`process_on_nodes`: pool `global_pool` has a node-slot of 0 accelerators"), "{err}");
}

#[test]
fn bad_values_in_json_have_their_line() {
    let json = "{\"lr\": 1e-6, \"total_steps\": 1000,\n \"pools\": {\"global_pool\":\n {\"process_on_nodes\": []}}}";
    let err = serde_json::from_str::<TrainerConfig>(json).unwrap_err();
    assert!(err.to_string().contains("`process_on_nodes`: pool `global_pool` has no node-slot"), "{err}");
    assert_eq!(err.line(), 3);
}
