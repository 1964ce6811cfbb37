//! A derived pools struct inside a trainer's own serde config: read with toml, serde_json
//! and figment as the crate's loaders read a pools file, the attribute values as
//! defaults, and every bad value reported with its key and position.

use resource_pool::{Accelerator, PoolSpec, ResourcePools, Role};
use serde::{Deserialize, Serialize};

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename_all = "snake_case")]
enum MyRole {
    ActorRollout,
    Critic,
    RewardModel,
}

#[derive(ResourcePools, Debug, Clone, PartialEq)]
#[resource_pools(role = MyRole)]
struct Pools {
    #[pool(roles(ActorRollout, Critic))]
    global_pool: PoolSpec,
    #[pool(roles(RewardModel), max_colocate_count = 1, process_on_nodes = [4])]
    reward_pool: PoolSpec,
}

#[derive(Deserialize, Serialize, Debug, PartialEq)]
struct TrainerConfig {
    lr: f64,
    pools: Pools,
}

const TOML: &str = r#"
lr = 0.001

[pools.global_pool]
process_on_nodes = [8, 8]

[pools.reward_pool]
accelerator = "NPU"
"#;

#[test]
fn a_trainer_config_reads_its_pools_with_toml() {
    let config: TrainerConfig = toml::from_str(TOML).unwrap();
    assert_eq!(config.lr, 0.001);
    assert_eq!(config.pools.global_pool, PoolSpec::with_slots([8, 8]));
    // The file leaves the reward pool's size and max_colocate_count to the attribute.
    let reward = &config.pools.reward_pool;
    assert_eq!(reward.process_on_nodes, [4]);
    assert_eq!(reward.max_colocate_count, 1);
    assert_eq!(reward.accelerator, Accelerator::Npu);
    // The same as the crate's own loader reads the pools table alone.
    let alone = Pools::from_toml_str(
        "[global_pool]\nprocess_on_nodes = [8, 8]\n[reward_pool]\naccelerator = \"NPU\"\n",
        "pools.toml",
    )
    .unwrap();
    assert_eq!(config.pools, alone);
    // No check at run time: every role has its pool.
    let manager = config.pools.into_manager();
    assert_eq!(
        manager.get_resource_pool(MyRole::RewardModel).name,
        "reward_pool"
    );
}

#[test]
fn a_trainer_config_reads_its_pools_with_serde_json() {
    let json = r#"{"lr": 0.001, "pools": {"global_pool": {"gpus_per_node": 8, "nnodes": 2},
                   "reward_pool": {"accelerator": "NPU"}}}"#;
    let config: TrainerConfig = serde_json::from_str(json).unwrap();
    assert_eq!(config, toml::from_str(TOML).unwrap());
}

#[test]
fn a_trainer_config_reads_its_pools_with_figment() {
    use figment::Figment;
    use figment::providers::{Format, Json, Serialized};

    // Defaults in code, a file over them, as figment layers them.
    let defaults =
        serde_json::json!({"lr": 0.01, "pools": {"global_pool": {"process_on_nodes": [8]}}});
    let file = r#"{"lr": 0.001, "pools": {"global_pool": {"process_on_nodes": [8, 8]}}}"#;
    let config: TrainerConfig = Figment::from(Serialized::defaults(defaults))
        .merge(Json::string(file))
        .extract()
        .unwrap();
    assert_eq!(config.lr, 0.001);
    assert_eq!(config.pools.global_pool.process_on_nodes, [8, 8]);
    assert_eq!(config.pools.reward_pool.max_colocate_count, 1);
    // figment names the path to the bad value.
    let bad = r#"{"lr": 0.001, "pools": {"global_pool": {"process_on_nodes": []}}}"#;
    let err = Figment::from(Json::string(bad))
        .extract::<TrainerConfig>()
        .unwrap_err();
    let shown = err.to_string();
    assert!(
        shown.contains("`process_on_nodes`: pool `global_pool` has no node-slot"),
        "{shown}"
    );
    assert!(shown.contains("pools.global_pool"), "{shown}");
}

/// A bad value in TOML, and the line it is on.
fn toml_error(pools: &str) -> (String, usize) {
    let text = format!("lr = 0.1\n\n{pools}");
    let err = toml::from_str::<TrainerConfig>(&text).unwrap_err();
    let line = text[..err.span().expect("a position").start]
        .matches('\n')
        .count()
        + 1;
    (err.to_string(), line)
}

#[test]
fn bad_values_name_their_key_and_line() {
    let (err, line) = toml_error("[pools.global_pool]\nnnodes = 1\nprocess_on_nodes = []\n");
    assert!(
        err.contains("`process_on_nodes`: pool `global_pool` has no node-slot"),
        "{err}"
    );
    assert_eq!(line, 5, "{err}");
    assert!(
        err.starts_with("TOML parse error at line 5, column 20"),
        "{err}"
    );

    let (err, line) = toml_error("[pools.global_pool]\nprocess_on_nodes = [8, 0]\n");
    assert!(
        err.contains("`process_on_nodes`: pool `global_pool` has a node-slot of 0"),
        "{err}"
    );
    assert_eq!(line, 4);

    let (err, line) = toml_error(
        "[pools.global_pool]\nprocess_on_nodes = [8]\n[pools.reward_pool]\nmax_colocate_count = 0\n",
    );
    assert!(
        err.contains("`max_colocate_count`: pool `reward_pool` has max_colocate_count = 0"),
        "{err}"
    );
    assert_eq!(line, 6);

    let (err, line) =
        toml_error("[pools.global_pool]\nprocess_on_nodes = [8]\nprocess_on_node = [8]\n");
    assert!(
        err.contains(
            "unknown key `process_on_node` in pool `global_pool`; did you mean `process_on_nodes`?"
        ),
        "{err}"
    );
    assert_eq!(line, 5);

    let (err, line) =
        toml_error("[pools.global_pool]\nprocess_on_nodes = [8]\n[pools.rewardpool]\n");
    assert!(
        err.contains(
            "unknown key `rewardpool` in the pools of `Pools`; did you mean `reward_pool`?"
        ),
        "{err}"
    );
    assert_eq!(line, 5);

    let (err, _) = toml_error("[pools.reward_pool]\nnnodes = 1\ngpus_per_node = 2\n");
    assert!(err.contains("missing field `global_pool`"), "{err}");
}

#[test]
fn bad_values_in_json_have_their_line_and_column() {
    let json = "{\"lr\": 0.1, \"pools\": {\n  \"global_pool\": {\n    \"nnodes\": 0, \"gpus_per_node\": 8}}}";
    let err = serde_json::from_str::<TrainerConfig>(json).unwrap_err();
    assert!(
        err.to_string()
            .contains("`nnodes`: pool `global_pool` has no node-slot"),
        "{err}"
    );
    assert_eq!(err.line(), 3, "{err}");
}

#[test]
fn a_file_value_replaces_the_attribute() {
    // As with `from_toml_str`: the attribute is the default, the file may say otherwise.
    let config: TrainerConfig = toml::from_str(
        "lr = 0.1\n[pools.global_pool]\nprocess_on_nodes = [8]\n\
         [pools.reward_pool]\nprocess_on_nodes = [2, 2]\nmax_colocate_count = 2\n",
    )
    .unwrap();
    assert_eq!(config.pools.reward_pool.process_on_nodes, [2, 2]);
    assert_eq!(config.pools.reward_pool.max_colocate_count, 2);
}

#[test]
fn separate_worker_groups_are_checked_in_serde_too() {
    #[derive(ResourcePools, Debug)]
    #[resource_pools(role = MyRole)]
    struct Separate {
        #[pool(roles(ActorRollout, Critic, RewardModel), separate_worker_groups)]
        global_pool: PoolSpec,
    }
    let err = toml::from_str::<Separate>(
        "[global_pool]\nprocess_on_nodes = [8]\nmax_colocate_count = 2\n",
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("hosts 3 worker groups but max_colocate_count is 2"),
        "{err}"
    );
    assert!(
        err.to_string().starts_with("TOML parse error at line 3"),
        "{err}"
    );
}

#[test]
fn a_config_written_back_reads_the_same() {
    let config: TrainerConfig = toml::from_str(TOML).unwrap();
    let text = toml::to_string(&config).unwrap();
    assert!(
        text.contains("[pools.global_pool]\nprocess_on_nodes = [8, 8]\n"),
        "{text}"
    );
    assert_eq!(toml::from_str::<TrainerConfig>(&text).unwrap(), config);
    let json = serde_json::to_string(&config).unwrap();
    assert_eq!(
        serde_json::from_str::<TrainerConfig>(&json).unwrap(),
        config
    );
}

#[test]
fn fixed_pools_can_be_a_serde_default() {
    #[derive(ResourcePools, Debug, PartialEq)]
    #[resource_pools(role = MyRole)]
    struct Fixed {
        #[pool(
            roles(ActorRollout, Critic, RewardModel),
            gpus_per_node = 8,
            nnodes = 2
        )]
        global_pool: PoolSpec,
    }
    #[derive(Deserialize)]
    struct Config {
        #[serde(default = "Fixed::fixed")]
        pools: Fixed,
    }
    let config: Config = toml::from_str("").unwrap();
    assert_eq!(config.pools, Fixed::fixed());
    // Present but empty: every pool keeps its attribute.
    let config: Config = toml::from_str("[pools]\n").unwrap();
    assert_eq!(config.pools.global_pool.process_on_nodes, [8, 8]);
}
