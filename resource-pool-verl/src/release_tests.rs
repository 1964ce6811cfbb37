//! Unit tests of `--verl-version`: each release's pools and mapping (its row of
//! [`super::releases`]), the keys it lacks or ignores, and the YAML's pool-key typos.

use super::fields::{Followed, NotReadWhy, Place};
use super::keys::*;
use super::releases::{RELEASES, RewardKeys, release};
use super::tests::{args, codes, load, slots};
use super::*;

fn load_at(version: &str, yaml: Option<&str>, overrides: &[&str]) -> LoadedVerl {
    let options = VerlOptions {
        verl_version: Some(version.into()),
        ..VerlOptions::new(100_000)
    };
    load_launch(&launch::parse_launch(&args(overrides)), yaml, &options)
}

const QA_LINE: &[&str] = &[
    "python3",
    "-m",
    "verl.trainer.main_ppo",
    "trainer.nnodes=2",
    "reward.reward_model.enable=True",
    "reward.reward_model.enable_resource_pool=True",
    "reward.reward_model.n_gpus_per_node=4",
    "reward.reward_model.nnodes=1",
    "distillation.enabled=True",
    "distillation.nnodes=1",
];

/// [`QA_LINE`] with its `reward.*` and `distillation.*` keys added (`+`), as a line for
/// a release whose config lacks them must add them: Hydra stops on them otherwise.
const QA_LINE_ADDED: &[&str] = &[
    "python3",
    "-m",
    "verl.trainer.main_ppo",
    "trainer.nnodes=2",
    "+reward.reward_model.enable=True",
    "+reward.reward_model.enable_resource_pool=True",
    "+reward.reward_model.n_gpus_per_node=4",
    "+reward.reward_model.nnodes=1",
    "+distillation.enabled=True",
    "+distillation.nnodes=1",
];

/// A reward pool of one node written in the legacy `reward_model.*` keys (no size: each
/// release's default).
const LEGACY_REWARD_POOL: &[&str] = &[
    "reward_model.enable=True",
    "reward_model.enable_resource_pool=True",
    "reward_model.nnodes=1",
];

#[test]
fn the_table_covers_every_release_of_the_key_set() {
    let table: Vec<&str> = RELEASES.iter().map(|r| r.version).collect();
    let set: Vec<&str> = key_set::key_set().version_names().collect();
    assert_eq!(table, set);
}

#[test]
fn verl_050_has_global_pool_only_and_no_newer_keys() {
    // verl 0.5.0's TaskRunner.run builds global_pool alone: no reward or teacher pool, and
    // its config has neither `reward.*` nor `distillation.*` (Hydra refuses them).
    let loaded = load_at("0.5.0", None, QA_LINE);
    assert!(loaded.layout.is_none());
    assert_eq!(codes(&loaded), ["resource_pool::verl::unknown_key"; 6]);
    let VerlDiagnostic::UnknownKeyOfRelease { suggestion, .. } = &loaded.diagnostics[1] else {
        panic!("{:?}", loaded.diagnostics)
    };
    // Another release's pool key, not a typo: no nearest-spelling advice.
    assert_eq!(suggestion.0, None);
    // Added, Hydra takes them and verl reads none: global_pool alone.
    let loaded = load_at("0.5.0", None, QA_LINE_ADDED);
    assert_eq!(
        slots(loaded.layout.as_ref().unwrap()),
        [("global_pool", vec![8, 8])]
    );
    assert_eq!(codes(&loaded), ["resource_pool::verl::not_read"; 6]);
    // Its reward model runs in global_pool, whatever the (absent) reward-pool key says.
    let loaded = load_at("0.5.0", None, LEGACY_REWARD_POOL);
    assert_eq!(codes(&loaded), ["resource_pool::verl::unknown_key"; 2]);
    let added = [
        "reward_model.enable=True",
        "+reward_model.enable_resource_pool=True",
        "+reward_model.nnodes=1",
    ];
    let loaded = load_at("0.5.0", None, &added);
    let layout = loaded.layout.as_ref().unwrap();
    assert_eq!(slots(layout), [("global_pool", vec![8])]);
    assert!(layout.mapping.contains(&("rm", "global_pool")));
    assert!(!layout.mapping.iter().any(|(_, p)| *p == REWARD_POOL));
    assert_eq!(codes(&loaded), ["resource_pool::verl::not_read"; 2]);
    // Without a release, the same line builds a reward pool, as 0.6.0-0.8.0 do.
    let loaded = load(None, QA_LINE);
    assert_eq!(
        slots(loaded.layout.as_ref().unwrap()),
        [
            ("global_pool", vec![8, 8]),
            ("reward_pool", vec![4]),
            ("teacher_pool", vec![8])
        ]
    );
}

#[test]
fn verl_06_reads_the_legacy_keys_with_its_own_defaults() {
    // 0.6.x's config has `reward_model.n_gpus_per_node: 0`: an enabled reward pool without
    // a size is verl's ValueError there; 0.7.0's default is 8.
    let loaded = load_at("0.6.1", None, LEGACY_REWARD_POOL);
    assert_eq!(codes(&loaded), ["resource_pool::verl::reward_pool_size"]);
    let loaded = load_at("0.7.0", None, LEGACY_REWARD_POOL);
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let layout = loaded.layout.unwrap();
    assert_eq!(
        slots(&layout),
        [("global_pool", vec![8]), ("reward_pool", vec![8])]
    );
    assert!(layout.mapping.contains(&("rm", "reward_pool")));
    // The newer spelling is no key of 0.6.0-0.7.0: unknown (Hydra stops), and added, not
    // read.
    let loaded = load_at("0.7.0", None, QA_LINE);
    assert!(loaded.layout.is_none());
    let loaded = load_at("0.7.0", None, QA_LINE_ADDED);
    assert_eq!(
        slots(loaded.layout.as_ref().unwrap()),
        [("global_pool", vec![8, 8])]
    );
}

#[test]
fn verl_071_and_080_copy_each_legacy_key_that_is_set() {
    // main_ppo's migrate_legacy_reward_impl copies each non-null `reward_model.*` over
    // `reward.reward_model.*`: key by key, the legacy one wins when given.
    let line = [
        "reward_model.enable=True",
        "reward_model.enable_resource_pool=True",
        "reward.reward_model.n_gpus_per_node=4",
        "reward.reward_model.nnodes=2",
    ];
    for version in ["0.7.1", "0.8.0"] {
        let loaded = load_at(version, None, &line);
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        let layout = loaded.layout.unwrap();
        assert_eq!(
            slots(&layout),
            [("global_pool", vec![8]), ("reward_pool", vec![4, 4])]
        );
        assert!(layout.mapping.contains(&("rm", "reward_pool")));
    }
    let loaded = load_at(
        "0.8.0",
        None,
        &[
            "reward.reward_model.enable_resource_pool=True",
            "reward.reward_model.nnodes=2",
            "reward_model.nnodes=1",
        ],
    );
    assert_eq!(
        slots(loaded.layout.as_ref().unwrap()),
        [("global_pool", vec![8]), ("reward_pool", vec![8])]
    );
    let [
        VerlDiagnostic::RewardPoolUnused { .. },
        VerlDiagnostic::ConflictingSpellings { followed, .. },
    ] = &loaded.diagnostics[..]
    else {
        panic!("{:?}", loaded.diagnostics)
    };
    assert_eq!(*followed, Followed::Legacy("0.8.0"));
    // 0.7.1 has no teacher pool: `distillation.*` is no key of it.
    let loaded = load_at(
        "0.7.1",
        None,
        &["distillation.enabled=True", "distillation.nnodes=1"],
    );
    assert!(loaded.layout.is_none());
    assert_eq!(codes(&loaded), ["resource_pool::verl::unknown_key"; 2]);
    let loaded = load_at(
        "0.7.1",
        None,
        &["+distillation.enabled=True", "+distillation.nnodes=1"],
    );
    assert_eq!(
        slots(loaded.layout.as_ref().unwrap()),
        [("global_pool", vec![8])]
    );
}

#[test]
fn verl_09_ignores_the_legacy_reward_keys() {
    // 0.9.x's main no longer calls migrate_legacy_reward_impl: `reward_model.*` (still in
    // its config, null) is never read.
    let loaded = load_at("0.9.1", None, LEGACY_REWARD_POOL);
    let layout = loaded.layout.as_ref().unwrap();
    assert_eq!(slots(layout), [("global_pool", vec![8])]);
    assert!(!layout.mapping.iter().any(|(r, _)| *r == "rm"));
    assert_eq!(codes(&loaded), ["resource_pool::verl::not_read"; 3]);
    let VerlDiagnostic::NotRead { why, place, .. } = &loaded.diagnostics[1] else {
        panic!()
    };
    assert_eq!(
        *why,
        NotReadWhy::NotMigrated("reward.reward_model.enable_resource_pool")
    );
    assert_eq!(*place, Place::CommandLine);
    // The newer keys build both pools, and the teacher's.
    let loaded = load_at("0.9.0", None, QA_LINE);
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let layout = loaded.layout.unwrap();
    assert_eq!(
        slots(&layout),
        [
            ("global_pool", vec![8, 8]),
            ("reward_pool", vec![4]),
            ("teacher_pool", vec![8])
        ]
    );
    assert!(layout.mapping.contains(&("teacher", TEACHER_POOL)));
    // A null legacy key (as verl's own generated config writes it) or a default is no
    // finding.
    let yaml = "reward_model:\n  enable: null\n  enable_resource_pool: null\n  nnodes: 0\n";
    assert!(load_at("0.9.1", Some(yaml), &[]).diagnostics.is_empty());
}

#[test]
fn added_or_yaml_keys_the_release_lacks_are_not_read() {
    // `+key` and a YAML of yours add the key (Hydra takes it), and verl ignores it.
    let loaded = load_at(
        "0.7.0",
        None,
        &["+distillation.enabled=True", "+distillation.nnodes=1"],
    );
    assert_eq!(codes(&loaded), ["resource_pool::verl::not_read"; 2]);
    let VerlDiagnostic::NotRead { why, .. } = &loaded.diagnostics[0] else {
        panic!()
    };
    assert_eq!(
        *why,
        NotReadWhy::NotInConfig(vec!["0.8.0", "0.9.0", "0.9.1"])
    );
    let yaml = "distillation:\n  enabled: true\n  nnodes: 1\n";
    let loaded = load_at("0.6.1", Some(yaml), &[]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::not_read"; 2]);
    let VerlDiagnostic::NotRead { span, place, .. } = &loaded.diagnostics[0] else {
        panic!()
    };
    assert_eq!(*place, Place::Yaml);
    assert_eq!(&yaml[span.offset()..span.offset() + span.len()], "true");
    assert_eq!(
        slots(loaded.layout.as_ref().unwrap()),
        [("global_pool", vec![8])]
    );
}

#[test]
fn rows_say_which_keys_are_read() {
    let at = |v| release(v).unwrap();
    assert_eq!(at("0.5.0").reward, RewardKeys::NoPool);
    assert!(at("0.5.0").reads(RM_ENABLE) && !at("0.5.0").reads(RM_POOL));
    assert!(at("0.8.0").reads(RM_POOL) && at("0.8.0").reads(NEW_RM_POOL));
    assert_eq!(at("0.9.1").instead(RM_NNODES), Some(NEW_RM_NNODES));
    assert_eq!(at("0.8.0").instead(RM_NNODES), None);
    assert!(!at("0.7.1").reads(DISTILL_ENABLE) && at("0.8.0").reads(DISTILL_ENABLE));
}

#[test]
fn yaml_keys_near_a_pool_key_are_typos() {
    // The command line's rule, on the key's span in the YAML.
    let yaml = "trainer:\n  nnode: 2\n  n_gpus_per_node: 4\nmy_project:\n  run_name: x\n";
    let loaded = load(Some(yaml), &[]);
    let [
        VerlDiagnostic::PoolKeyTypo {
            key,
            suggestion,
            span,
            place,
        },
    ] = &loaded.diagnostics[..]
    else {
        panic!("{:?}", loaded.diagnostics)
    };
    assert_eq!(
        (key.as_str(), *suggestion),
        ("trainer.nnode", "trainer.nnodes")
    );
    assert_eq!(*place, Place::Yaml);
    assert_eq!(&yaml[span.offset()..span.offset() + span.len()], "nnode");
    assert!(loaded.has_errors());
    // A flow mapping too; a misspelt parent is no likeness (the parents differ), and the
    // user's own keys and verl's are no typo.
    let loaded = load(
        Some("reward:\n  reward_model: {nnode: 1}\ntrainr:\n  nnodes: 2\n"),
        &[],
    );
    assert_eq!(codes(&loaded), ["resource_pool::verl::pool_key_typo"]);
    let loaded = load(
        Some("trainer:\n  nnodes: 2\n  project_name: p\ndata:\n  train_files: a\n"),
        &[],
    );
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
}

#[test]
fn each_release_divides_by_its_own_rollout_size() {
    // verl 0.5.0 divides by the tensor parallel size alone, and its Megatron config's is 1
    // (its FSDP config's 2); later releases multiply in the data and pipeline sizes.
    let one_gpu = ["trainer.n_gpus_per_node=1"];
    fn megatron<'a>(line: &[&'a str]) -> Vec<&'a str> {
        let mut words = vec!["--config-name=ppo_megatron_trainer"];
        words.extend(line);
        words
    }
    assert!(codes(&load_at("0.5.0", None, &megatron(&one_gpu))).is_empty());
    assert_eq!(
        codes(&load_at("0.5.0", None, &one_gpu)),
        ["resource_pool::verl::rollout_parallel_size"]
    );
    assert_eq!(
        codes(&load_at("0.6.0", None, &megatron(&one_gpu))),
        ["resource_pool::verl::rollout_parallel_size"]
    );
    let dp = ["actor_rollout_ref.rollout.data_parallel_size=3"];
    assert_eq!(
        codes(&load_at("0.9.1", None, &dp)),
        ["resource_pool::verl::rollout_parallel_size"]
    );
    let settings = &load_at("0.6.0", None, &dp).settings;
    assert_eq!(crate::rollout::rollout_world(settings), Some(6));
}

#[test]
fn each_release_builds_its_rollout_replicas_by_its_own_rule() {
    use crate::rollout::replica_per_node;
    // A replica of 4 × 3 = 12 on 3 nodes of 8: 24 GPUs divide by 12, but the replica spans
    // nodes without taking whole ones.
    let line = [
        "trainer.nnodes=3",
        "actor_rollout_ref.rollout.tensor_model_parallel_size=4",
        "actor_rollout_ref.rollout.data_parallel_size=3",
    ];
    let with = |extra: &'static str| {
        let mut words = line.to_vec();
        words.push(extra);
        words
    };
    let replica = ["resource_pool::verl::rollout_replica_nodes"];
    // 0.5.0 has no replicas (and divides by the tensor parallel size alone: 12 of 24).
    let tp12 = [
        "trainer.nnodes=3",
        "actor_rollout_ref.rollout.tensor_model_parallel_size=12",
    ];
    assert!(codes(&load_at("0.5.0", None, &tp12)).is_empty());
    // 0.6.x builds them only in async mode, its config's default being sync.
    for version in ["0.6.0", "0.6.1"] {
        let loaded = load_at(version, None, &line);
        assert!(codes(&loaded).is_empty(), "{version}");
        assert_eq!(replica_per_node(&loaded.settings), None);
        let loaded = load_at(version, None, &with("actor_rollout_ref.rollout.mode=async"));
        assert_eq!(codes(&loaded), replica, "{version}");
        let Some(VerlDiagnostic::RolloutReplicaNodes {
            key, per_node_key, ..
        }) = loaded.diagnostics.first()
        else {
            panic!("{:?}", loaded.diagnostics)
        };
        assert_eq!(*per_node_key, KEYS[N_GPUS_PER_NODE].path);
        assert_eq!(*key, KEYS[ROLLOUT_TP].path);
    }
    // 0.7.0 builds them whatever the mode, over the trainer's nodes.
    assert_eq!(
        codes(&load_at(
            "0.7.0",
            None,
            &with("actor_rollout_ref.rollout.mode=sync")
        )),
        replica
    );
    // 0.7.1 on: over the rollout's own n_gpus_per_node, the trainer's unless set.
    for version in ["0.7.1", "0.8.0", "0.9.0", "0.9.1"] {
        let loaded = load_at(version, None, &line);
        assert_eq!(codes(&loaded), replica, "{version}");
        assert_eq!(
            replica_per_node(&loaded.settings),
            Some((N_GPUS_PER_NODE, 8)),
            "{version}"
        );
        let loaded = load_at(
            version,
            None,
            &with("actor_rollout_ref.rollout.n_gpus_per_node=4"),
        );
        assert!(codes(&loaded).is_empty(), "{version}: {:?}", codes(&loaded));
        assert_eq!(replica_per_node(&loaded.settings), Some((ROLLOUT_GPUS, 4)));
    }
}
