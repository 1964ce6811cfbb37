//! Unit tests of verl's settings: defaults, precedence, the rules and the layout.

use super::keys::*;
use super::*;
use resource_pool_core::model::Accelerator;

pub(super) fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

pub(super) fn load(yaml: Option<&str>, overrides: &[&str]) -> LoadedVerl {
    load_verl(yaml, &args(overrides), 100_000)
}

pub(super) fn codes(loaded: &LoadedVerl) -> Vec<String> {
    use miette::Diagnostic;
    loaded
        .diagnostics
        .iter()
        .map(|d| d.code().map(|c| c.to_string()).unwrap_or_default())
        .collect()
}

/// The data of the one diagnostic a load gives, after checking that it is `code` (`what`
/// says which case failed).
fn only_data(loaded: &LoadedVerl, code: &str, what: &dyn std::fmt::Debug) -> serde_json::Value {
    assert_eq!(
        codes(loaded),
        [format!("resource_pool::verl::{code}")],
        "{what:?}"
    );
    serde_json::to_value(&loaded.diagnostics[0]).expect("data")
}

pub(super) fn slots(layout: &VerlLayout) -> Vec<(&str, Vec<u32>)> {
    layout
        .pools
        .iter()
        .map(|p| (p.name.as_str(), p.spec.process_on_nodes.clone()))
        .collect()
}

#[test]
fn defaults_are_verls() {
    let loaded = load(None, &[]);
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let layout = loaded.layout.unwrap();
    assert_eq!(slots(&layout), [("global_pool", vec![8])]);
    assert_eq!(
        layout.mapping,
        [("actor_rollout", "global_pool"), ("critic", "global_pool")]
    );
    assert_eq!(layout.pools[0].spec.accelerator, Accelerator::Gpu);
}

#[test]
fn overrides_win_over_the_yaml_in_order() {
    let yaml = "trainer:\n  nnodes: 4\n  n_gpus_per_node: 8\n";
    let loaded = load(Some(yaml), &["trainer.nnodes=2", "trainer.nnodes=3"]);
    assert!(loaded.diagnostics.is_empty());
    assert_eq!(
        slots(loaded.layout.as_ref().unwrap()),
        [("global_pool", vec![8, 8, 8])]
    );
    let origin = &loaded.settings.get(NNODES).origin;
    let Origin::CommandLine(span) = origin else {
        panic!("{origin:?}")
    };
    let line = hydra::command_line(&args(&["trainer.nnodes=2", "trainer.nnodes=3"]));
    let source = resource_pool_core::source::SourceFile::new("t.yaml", yaml)
        .with_layer("command line", &line);
    assert_eq!(
        source.layer_start(),
        Some(loaded.settings.space.command_line_base())
    );
    assert_eq!(source.locate(span.start), ("command line", 1, 33));
    assert_eq!(&source.text()[span.clone()], "3");
    let Origin::Yaml(span) = &loaded.settings.get(N_GPUS_PER_NODE).origin else {
        panic!()
    };
    assert_eq!(&yaml[span.clone()], "8");
}

#[test]
fn a_separate_reward_pool_and_kl_map_as_verl_does() {
    let loaded = load(
        None,
        &[
            "trainer.nnodes=2",
            "reward_model.enable=True",
            "+reward_model.enable_resource_pool=true",
            "reward_model.n_gpus_per_node=4",
            "reward_model.nnodes=1",
            "actor_rollout_ref.actor.use_kl_loss=True",
        ],
    );
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let layout = loaded.layout.unwrap();
    assert_eq!(
        slots(&layout),
        [("global_pool", vec![8, 8]), ("reward_pool", vec![4])]
    );
    assert_eq!(
        layout.mapping,
        [
            ("actor_rollout", "global_pool"),
            ("critic", "global_pool"),
            ("rm", "reward_pool"),
            ("ref", "global_pool")
        ]
    );
}

#[test]
fn the_new_engine_fuses_ref_into_actor_rollout_ref() {
    let loaded = load(
        None,
        &[
            "trainer.use_legacy_worker_impl=disable",
            "algorithm.use_kl_in_reward=true",
        ],
    );
    let layout = loaded.layout.unwrap();
    assert_eq!(
        layout.mapping,
        [
            ("actor_rollout_ref", "global_pool"),
            ("critic", "global_pool")
        ]
    );
}

#[test]
fn npu_and_the_newer_reward_keys() {
    let yaml = "trainer:\n  device: npu\nreward:\n  reward_model:\n    enable_resource_pool: True\n    n_gpus_per_node: 8\n    nnodes: 1\nreward_model:\n  enable: True\n";
    let loaded = load(Some(yaml), &[]);
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let layout = loaded.layout.unwrap();
    assert_eq!(
        slots(&layout),
        [("global_pool", vec![8]), ("reward_pool", vec![8])]
    );
    assert!(
        layout
            .pools
            .iter()
            .all(|p| p.spec.accelerator == Accelerator::Npu)
    );
}

#[test]
fn the_newer_reward_model_switch_maps_rm() {
    // verl 0.8 and later read `reward.reward_model.enable`: with it, the reward pool has
    // its worker, and no warning says the pool is unused.
    let loaded = load(
        None,
        &[
            "reward.reward_model.enable=True",
            "reward.reward_model.enable_resource_pool=True",
            "reward.reward_model.nnodes=1",
        ],
    );
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let layout = loaded.layout.unwrap();
    assert!(
        layout.mapping.contains(&("rm", "reward_pool")),
        "{:?}",
        layout.mapping
    );
    // Without it, the unused pool is said in the spelling used.
    let loaded = load(
        None,
        &[
            "reward.reward_model.enable_resource_pool=True",
            "reward.reward_model.nnodes=1",
        ],
    );
    assert_eq!(codes(&loaded), ["resource_pool::verl::reward_pool_unused"]);
    assert!(
        loaded.diagnostics[0]
            .to_string()
            .contains("`reward.reward_model.enable` is False"),
        "{}",
        loaded.diagnostics[0]
    );
}

#[test]
fn legacy_reward_keys_may_be_null_as_in_verls_own_config() {
    // verl 0.7.1+'s composed config holds the legacy reward switches as null: not set, so
    // `reward.reward_model.*` applies.
    let yaml = "trainer:\n  nnodes: 2\nreward_model:\n  enable: null\n  enable_resource_pool: Null\n  n_gpus_per_node: ~\n  nnodes:\nreward:\n  reward_model:\n    enable: true\n    enable_resource_pool: true\n    n_gpus_per_node: 4\n    nnodes: 1\n";
    let loaded = load(Some(yaml), &[]);
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    assert!(!loaded.settings.given(RM_POOL));
    assert_eq!(
        slots(loaded.layout.as_ref().unwrap()),
        [("global_pool", vec![8, 8]), ("reward_pool", vec![4])]
    );
    // On the command line too; a null where verl needs a value stays an error.
    let loaded = load(
        None,
        &[
            "reward_model.enable=null",
            "trainer.nnodes=null",
            "reward_model.nnodes=",
        ],
    );
    assert_eq!(
        codes(&loaded),
        [
            "resource_pool::verl::wrong_type",
            "resource_pool::verl::wrong_type"
        ]
    );
}

#[test]
fn counts_past_the_limits_name_the_limit_they_pass() {
    use miette::Diagnostic;
    // A per-node count past u32 is not a node-slot count: --max-slots cannot help.
    for value in ["4294967296", "18446744073709551616"] {
        let loaded = load(None, &[&format!("trainer.n_gpus_per_node={value}")]);
        assert_eq!(
            codes(&loaded),
            ["resource_pool::verl::too_many_accelerators"]
        );
        let help = loaded.diagnostics[0].help().unwrap().to_string();
        assert!(!help.contains("--max-slots"), "{help}");
    }
    // An integer past i64 is a count too large, not a wrong type.
    let loaded = load(None, &["trainer.nnodes=18446744073709551616"]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::too_many_slots"]);
    assert!(
        loaded.diagnostics[0]
            .to_string()
            .starts_with("`trainer.nnodes=9223372036854775807 or more` asks for more node-slots"),
        "{}",
        loaded.diagnostics[0]
    );
    let loaded = load(None, &["trainer.nnodes=-18446744073709551616"]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::not_positive"]);
}

#[test]
fn only_cuda_and_npu_are_devices() {
    // verl 0.5-0.8 map exactly `cuda` and `npu` to Ray's GPU and NPU; `gpu` or `CUDA`
    // would be asked of Ray as a resource of that name and never placed.
    for device in ["gpu", "CUDA", "Npu"] {
        let loaded = load(None, &[&format!("trainer.device={device}")]);
        assert_eq!(
            codes(&loaded),
            ["resource_pool::verl::unknown_device"],
            "{device}"
        );
    }
    let loaded = load(None, &["trainer.device=npu"]);
    assert_eq!(
        loaded.layout.unwrap().pools[0].spec.accelerator,
        Accelerator::Npu
    );
}

#[test]
fn what_verl_rejects_is_an_error() {
    let loaded = load(
        None,
        &[
            "trainer.nnodes=0",
            "reward_model.enable_resource_pool=True",
            "trainer.device=tpu",
            "trainer.n_gpus_per_node=eight",
        ],
    );
    assert!(loaded.layout.is_none());
    let c = codes(&loaded);
    for code in [
        "resource_pool::verl::not_positive",
        "resource_pool::verl::reward_pool_size",
        "resource_pool::verl::reward_pool_unused",
        "resource_pool::verl::unknown_device",
        "resource_pool::verl::wrong_type",
    ] {
        assert!(c.iter().any(|x| x == code), "{code} in {c:?}");
    }
}

#[test]
fn hydra_rules_and_misspelt_keys() {
    let yaml = "trainer:\n  nnodes: 1\n";
    let loaded = load(
        Some(yaml),
        &[
            "+trainer.nnodes=2",
            "trainer.nnode=2",
            "~trainer.device",
            "data.train_files=x",
        ],
    );
    assert_eq!(
        codes(&loaded),
        [
            "resource_pool::verl::add_existing",
            "resource_pool::verl::pool_key_typo",
            "resource_pool::verl::deleted_key"
        ]
    );
}

#[test]
fn adding_a_key_verls_own_config_sets_is_refused_as_hydra_does() {
    // Checked against Hydra 1.3.2 composing verl 0.5.0's and 0.9.1's trainer configs:
    // `+key=value` fails for a key set in every release, and adds to an open map.
    let loaded = load(
        None,
        &[
            "+trainer.nnodes=2",
            "+trainer.val_before_train=False",
            "++trainer.total_epochs=3",
            "trainer.n_gpus_per_node=8",
            "+actor_rollout_ref.model.override_config.attention_dropout=0.",
            "+data.my_extra_field=1",
        ],
    );
    assert_eq!(
        codes(&loaded),
        [
            "resource_pool::verl::add_existing",
            "resource_pool::verl::add_existing"
        ]
    );
    assert!(
        loaded.diagnostics[1]
            .to_string()
            .contains("trainer.val_before_train")
    );
    // With a config of the user's, only its own keys are known to exist.
    let loaded = load(
        Some("data:\n  x: 1\n"),
        &["+trainer.val_before_train=False"],
    );
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
}

#[test]
fn interpolations_that_come_back_to_a_key_are_one_error() {
    // Two keys interpolating each other: OmegaConf refuses ("Recursive interpolation
    // detected"); one error, at the first key's value, naming both.
    let yaml =
        "trainer:\n  nnodes: ${trainer.n_gpus_per_node}\n  n_gpus_per_node: ${trainer.nnodes}\n";
    let loaded = load(Some(yaml), &[]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::interpolation_cycle"]);
    assert!(loaded.layout.is_none());
    let cycle = &loaded.diagnostics[0];
    assert_eq!(
        cycle.to_string(),
        "`trainer.nnodes` is `${trainer.n_gpus_per_node}`, and the interpolations come back to it: `trainer.nnodes` → `trainer.n_gpus_per_node` → `trainer.nnodes`"
    );
    // The first key's value, and each other key's, which says where it leads.
    let labels: Vec<(Option<String>, &str)> = miette::Diagnostic::labels(cycle)
        .into_iter()
        .flatten()
        .map(|l| {
            let text = &yaml[l.offset()..l.offset() + l.len()];
            (l.label().map(str::to_owned), text)
        })
        .collect();
    assert_eq!(
        labels,
        [
            (
                Some("leads back here".to_owned()),
                "${trainer.n_gpus_per_node}"
            ),
            (
                Some("interpolates `trainer.nnodes`".to_owned()),
                "${trainer.nnodes}"
            ),
        ]
    );
    let data = serde_json::to_value(cycle).unwrap();
    assert_eq!(
        data["cycle"],
        serde_json::json!([
            "trainer.nnodes",
            "trainer.n_gpus_per_node",
            "trainer.nnodes"
        ])
    );
    // A key interpolating itself, through `oc.select` too (OmegaConf: a RecursionError).
    for value in ["${trainer.nnodes}", "${oc.select:trainer.nnodes,2}"] {
        let loaded = load(None, &[&format!("trainer.nnodes={value}")]);
        assert_eq!(
            codes(&loaded),
            ["resource_pool::verl::interpolation_cycle"],
            "{value}"
        );
    }
    // A key that leads into a cycle: the cycle is the error, labelled on its own key.
    let loaded = load(
        None,
        &[
            "reward_model.nnodes=${trainer.nnodes}",
            "trainer.nnodes=${trainer.n_gpus_per_node}",
            "trainer.n_gpus_per_node=${trainer.nnodes}",
        ],
    );
    assert_eq!(codes(&loaded), ["resource_pool::verl::interpolation_cycle"]);
    assert!(
        loaded.diagnostics[0]
            .to_string()
            .starts_with("`trainer.nnodes` is"),
        "{}",
        loaded.diagnostics[0]
    );
}

#[test]
fn a_long_chain_of_interpolations_reaches_its_value() {
    // Every integer key interpolating the next, the last set: each is that value (the
    // chain was once cut at 8 keys, past which verl's default stood in).
    let ints: Vec<&str> = KEYS
        .iter()
        .filter(|k| k.kind == Kind::Int && k.path != "trainer.nnodes")
        .map(|k| k.path)
        .collect();
    assert!(ints.len() >= 10, "{ints:?}");
    let mut chain = vec!["trainer.nnodes"];
    chain.extend(&ints);
    let mut overrides: Vec<String> = chain
        .windows(2)
        .map(|pair| format!("{}=${{{}}}", pair[0], pair[1]))
        .collect();
    overrides.push(format!("{}=5", chain[chain.len() - 1]));
    let words: Vec<&str> = overrides.iter().map(String::as_str).collect();
    let loaded = load(None, &words);
    assert_eq!(loaded.settings.int(NNODES), 5, "{:?}", codes(&loaded));
}

#[test]
fn interpolations_follow_known_keys_and_others_are_not_read() {
    let yaml = "trainer:\n  nnodes: 3\n  device: ${oc.env:DEVICE,cuda}\nreward_model:\n  enable: true\n  enable_resource_pool: true\n  nnodes: ${trainer.nnodes}\n  n_gpus_per_node: ${oc.env:GPUS}\n";
    let loaded = load(Some(yaml), &[]);
    assert_eq!(loaded.settings.get(RM_NNODES).value, Value::Int(3));
    // A resolver's value is not known here: said once per value, and the pools built
    // from it are not claimed.
    assert_eq!(codes(&loaded), ["resource_pool::verl::unresolved"; 2]);
    let gpus = loaded
        .diagnostics
        .iter()
        .find(|d| d.to_string().contains("reward_model.n_gpus_per_node"))
        .expect("the count's finding");
    assert_eq!(
        gpus.to_string(),
        "`reward_model.n_gpus_per_node` comes from `${oc.env:GPUS}`, an interpolation, which resource-pool does not read offline: the pools verl builds are not judged"
    );
    assert!(loaded.layout.is_none());
    assert_eq!(
        loaded.launch.not_judged,
        Some(NotJudged::ValueNotRead {
            key: "trainer.device"
        })
    );
    // A key that follows one not read is not read either: one finding, on the first.
    let loaded = load(
        None,
        &[
            "trainer.n_gpus_per_node=${oc.env:GPUS}",
            "actor_rollout_ref.rollout.n_gpus_per_node=${oc.select:trainer.n_gpus_per_node,8}",
        ],
    );
    assert_eq!(codes(&loaded), ["resource_pool::verl::unresolved"]);
    assert!(loaded.layout.is_none());
}

#[test]
fn distillation_adds_the_teacher_pool_after_the_reward_pool() {
    // verl 0.8.0 and 0.9.1 (`main_ppo.py`, `trainer_base.py`): global_pool, reward_pool,
    // then `[distillation.n_gpus_per_node] * distillation.nnodes` as teacher_pool.
    let loaded = load(
        None,
        &[
            "trainer.nnodes=2",
            "reward.reward_model.enable_resource_pool=True",
            "reward.reward_model.nnodes=1",
            "reward_model.enable=True",
            "distillation.enabled=True",
            "distillation.nnodes=3",
            "distillation.n_gpus_per_node=4",
        ],
    );
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let layout = loaded.layout.unwrap();
    assert_eq!(
        slots(&layout),
        [
            ("global_pool", vec![8, 8]),
            ("reward_pool", vec![8]),
            ("teacher_pool", vec![4, 4, 4])
        ]
    );
    assert_eq!(layout.mapping.last(), Some(&("teacher", "teacher_pool")));

    // Disabled (verl's default), its sizes build nothing; enabled without a size, verl's
    // ValueError, labelled on the switch.
    let loaded = load(None, &["distillation.nnodes=3"]);
    assert_eq!(slots(&loaded.layout.unwrap()), [("global_pool", vec![8])]);
    let loaded = load(None, &["distillation.enabled=True"]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::teacher_pool_size"]);
    assert!(loaded.layout.is_none());
    let loaded = load(
        None,
        &["distillation.enabled=True", "distillation.nnodes=99999999"],
    );
    assert_eq!(codes(&loaded), ["resource_pool::verl::too_many_slots"]);
    assert!(
        loaded.diagnostics[0]
            .to_string()
            .contains("distillation.nnodes"),
        "{}",
        loaded.diagnostics[0]
    );
}

#[test]
fn huge_counts_are_refused_before_allocating() {
    let loaded = load(None, &["trainer.nnodes=9223372036854775807"]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::too_many_slots"]);
    assert!(loaded.layout.is_none());
    // A per-node count: past u32 is its own code, not a node-slot limit.
    let loaded = load(None, &["trainer.n_gpus_per_node=99999999999"]);
    assert_eq!(
        codes(&loaded),
        ["resource_pool::verl::too_many_accelerators"]
    );
}

#[test]
fn yaml_errors_and_non_scalars() {
    let loaded = load(Some("trainer: [\n"), &[]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::yaml_syntax"]);
    let loaded = load(Some("trainer:\n  nnodes: {a: 1}\n"), &[]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::wrong_type"]);
}

proptest::proptest! {
    #[test]
    fn arbitrary_yaml_and_overrides_never_panic(
        yaml in "(trainer|reward_model|nnodes|n_gpus_per_node|enable|[:\\-\\[\\]{}&*!|>'\" \n,#?]|[a-z0-9_.]){0,120}",
        overrides in proptest::collection::vec("[+~]{0,2}[a-z_.]{0,20}(=[^ ]{0,8})?", 0..4),
    ) {
        let loaded = load_verl(Some(&yaml), &overrides, 1_000);
        let end = loaded.settings.space.command_line_base() + hydra::command_line(&overrides).len();
        for d in &loaded.diagnostics {
            use miette::Diagnostic;
            for label in d.labels().into_iter().flatten() {
                proptest::prop_assert!(label.offset() + label.len() <= end.max(yaml.len()));
            }
        }
    }
}

#[test]
fn pool_key_defaults_are_the_newest_verls() {
    // The table of keys.rs against verl's own defaults in the generated key set: a key is
    // nullable exactly when the newest release whose config has it holds null there, and
    // its default is then the newest non-null one (what verl uses when it is unset);
    // otherwise the default is the newest release's.
    let set = key_set::key_set();
    let newest = |path: &str, skip_null: bool| {
        set.defaults
            .iter()
            .filter(|(_, k, v)| k == path && !(skip_null && v == "null"))
            .max_by_key(|(c, _, _)| set.compositions[*c].version)
            .map(|(_, _, v)| v.clone())
    };
    for key in KEYS {
        let Some(value) = newest(key.path, false) else {
            panic!("{} is in no release's config", key.path);
        };
        assert_eq!(key.nullable, value == "null", "{}", key.path);
        let value = newest(key.path, true).unwrap();
        // `${oc.select:KEY,FALLBACK}` (the rollout's n_gpus_per_node) follows KEY, which
        // the code reads in its place; the table holds the fallback.
        if let Some(select) = value
            .strip_prefix("${oc.select:")
            .and_then(|v| v.strip_suffix('}'))
        {
            assert_eq!(key.path, KEYS[ROLLOUT_GPUS].path);
            let (followed, fallback) = select.split_once(',').unwrap();
            assert_eq!(followed, KEYS[N_GPUS_PER_NODE].path);
            assert_eq!(key.default.value().to_string(), fallback, "{}", key.path);
            continue;
        }
        assert_eq!(key.default.value().to_string(), value, "{}", key.path);
    }
}

#[test]
fn a_pasted_line_is_read_whole() {
    let loaded = load(
        None,
        &[
            "env",
            "VLLM_USE_V1=1",
            "python3",
            "-u",
            "-m",
            "verl.trainer.main_ppo",
            "--config-name=ppo_megatron_trainer.yaml",
            "trainer.nnodes=2",
            "data.train_batch_size=256",
            "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2",
            "+actor_rollout_ref.actor.megatron.override_transformer_config.recompute_method=uniform",
        ],
    );
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    assert_eq!(loaded.launch.entry_point, Some("verl.trainer.main_ppo"));
    assert_eq!(loaded.launch.config, "ppo_megatron_trainer");
    assert_eq!(
        slots(loaded.layout.as_ref().unwrap()),
        [("global_pool", vec![8, 8])]
    );
}

#[test]
fn typos_of_each_kind() {
    // A key that sizes the pools: an error naming it.
    let loaded = load(
        None,
        &["python3", "-m", "verl.trainer.main_ppo", "trainer.nnode=2"],
    );
    assert!(matches!(
        &loaded.diagnostics[..],
        [VerlDiagnostic::PoolKeyTypo {
            suggestion: "trainer.nnodes",
            ..
        }]
    ));
    assert!(loaded.has_errors());
    // Another key: naming the sibling a few edits away; without `--verl-version` a
    // warning (the line's verl may be a fork that has the key).
    let loaded = load(None, &["data.max_prompt_lenght=512"]);
    let [VerlDiagnostic::UnknownKey { suggestion, .. }] = &loaded.diagnostics[..] else {
        panic!("{:?}", loaded.diagnostics)
    };
    assert_eq!(suggestion.0, Some("data.max_prompt_length"));
    assert!(!loaded.has_errors());
    // A Megatron key on the FSDP config says which choice has it.
    let loaded = load(
        None,
        &["actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2"],
    );
    assert!(
        matches!(
            &loaded.diagnostics[..],
            [VerlDiagnostic::UnknownKey {
                elsewhere: Elsewhere::Choice { .. },
                ..
            }]
        ),
        "{:?}",
        loaded.diagnostics
    );
    // With the choice, it is known.
    let loaded = load(
        None,
        &[
            "model_engine=megatron",
            "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2",
        ],
    );
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
}

#[test]
fn narrowing_to_one_release_says_which_have_the_key() {
    let options = VerlOptions {
        verl_version: Some("0.9.1".into()),
        ..VerlOptions::new(1000)
    };
    let launch = launch::parse_launch(&args(&["critic.model.fsdp_config.param_offload=False"]));
    let loaded = load_launch(&launch, None, &options);
    let [
        VerlDiagnostic::UnknownKeyOfRelease {
            elsewhere: Elsewhere::Releases(r),
            ..
        },
    ] = &loaded.diagnostics[..]
    else {
        panic!("{:?}", loaded.diagnostics)
    };
    assert!(r.contains(&"0.7.0") && !r.contains(&"0.9.1"), "{r:?}");
    assert_eq!(loaded.launch.releases, ["0.9.1"]);
}

#[test]
fn diagnostics_serialise_as_their_fields() {
    let loaded = load(None, &["trainer.nnode=2"]);
    let value = serde_json::to_value(&loaded.diagnostics[0]).unwrap();
    assert_eq!(
        value,
        serde_json::json!({"key": "trainer.nnode", "suggestion": "trainer.nnodes"})
    );
}

/// The message, help and label of the one `wrong_type` a launch gives.
fn wrong_type_words(loaded: &LoadedVerl) -> (String, String, Vec<String>, serde_json::Value) {
    use miette::Diagnostic;
    let [d] = &loaded.diagnostics[..] else {
        panic!("{:?}", loaded.diagnostics)
    };
    let labels = d
        .labels()
        .into_iter()
        .flatten()
        .map(|l| format!("{}@{}+{}", l.label().unwrap_or(""), l.offset(), l.len()))
        .collect();
    (
        d.to_string(),
        d.help().map(|h| h.to_string()).unwrap_or_default(),
        labels,
        serde_json::to_value(d).unwrap(),
    )
}

#[test]
fn a_string_that_reads_as_a_number_is_called_a_string() {
    // Quoted on the command line: a string; the fix drops the quotes.
    let (message, help, labels, data) = wrong_type_words(&load(None, &["trainer.nnodes='2'"]));
    assert_eq!(
        message,
        "`trainer.nnodes` must be an integer, not the string '2'"
    );
    assert!(
        help.starts_with("write it without quotes (`trainer.nnodes=2`)"),
        "{help}"
    );
    assert_eq!(labels, ["set on the command line@16+3"]);
    assert_eq!(
        data["found"],
        serde_json::json!({"form": "string", "text": "2"})
    );
    assert_eq!(data["fix"], "unquote");
    // A word that is not a number keeps the plain wording and fix.
    let (message, help, ..) = wrong_type_words(&load(None, &["trainer.nnodes=two"]));
    assert_eq!(message, "`trainer.nnodes` must be an integer, not `two`");
    assert_eq!(
        help,
        "set `trainer.nnodes` to an integer, for example `trainer.nnodes=1`"
    );
    // `trainer.nnodes=` is an empty string, labelled at its `=`.
    let (message, _, labels, _) = wrong_type_words(&load(None, &["trainer.nnodes="]));
    assert_eq!(
        message,
        "`trainer.nnodes` must be an integer, not an empty string"
    );
    assert_eq!(labels, ["set on the command line@15+1"]);
}

#[test]
fn the_fix_is_written_where_the_value_was() {
    // In a YAML file the value is shown as YAML, under its own key.
    let (message, help, labels, data) =
        wrong_type_words(&load(Some("trainer:\n  nnodes: '2'\n"), &[]));
    assert_eq!(
        message,
        "`trainer.nnodes` must be an integer, not the string '2'"
    );
    assert!(
        help.starts_with("write it without quotes (`nnodes: 2`)"),
        "{help}"
    );
    assert_eq!(labels, ["set in the YAML@19+3"]);
    assert_eq!(data["fix"], "unquote");
}

#[test]
fn a_shell_variable_of_a_pasted_line_is_the_shells_to_fill_in() {
    // Words of a script line (`shlex.split`), before the shell filled its variables in:
    // unknown here, a warning that names the variable, and no layout claimed.
    // Scripts name their variables in capitals or not (`$nnodes`, `${n_gpus_per_node}`).
    for (word, variable) in [
        ("trainer.nnodes=$NNODES", "NNODES"),
        ("trainer.nnodes=${NNODES}", "NNODES"),
        ("trainer.nnodes=${NNODES:-2}", "NNODES"),
        ("trainer.nnodes=${NNODES:=2}", "NNODES"),
        ("trainer.nnodes=$nnodes", "nnodes"),
        ("trainer.nnodes=${nnode}", "nnode"),
        ("trainer.nnodes=${num_nodes:-2}", "num_nodes"),
    ] {
        let loaded = load(None, &[word]);
        let data = only_data(&loaded, "shell_variable", &word);
        assert_eq!(
            (data["variable"].as_str(), data["part"].as_str()),
            (Some(variable), Some("pools")),
            "{word}"
        );
        assert!(loaded.layout.is_none(), "{word}");
        assert_eq!(
            loaded.launch.not_judged,
            Some(NotJudged::ValueNotRead {
                key: "trainer.nnodes"
            })
        );
    }
    // A rollout size: its check is left out, the pools are still judged.
    let loaded = load(
        None,
        &["actor_rollout_ref.rollout.tensor_model_parallel_size=$TP"],
    );
    assert_eq!(codes(&loaded), ["resource_pool::verl::shell_variable"]);
    assert!(loaded.layout.is_some());
    assert!(
        loaded.diagnostics[0]
            .to_string()
            .ends_with("the rollout's sizes are not checked")
    );
    // Quoted for Hydra, or in the YAML, it is the text itself; a dotted name or one of
    // verl's top-level keys, a key of the config.
    let loaded = load(None, &["trainer.nnodes='$NNODES'"]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::wrong_type"]);
    let loaded = load(Some("trainer:\n  nnodes: $NNODES\n"), &[]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::wrong_type"]);
    let loaded = load(None, &["trainer.nnodes=${trainer.n_gpus_per_node}"]);
    assert!(codes(&loaded).is_empty(), "{:?}", codes(&loaded));
    let loaded = load(None, &["trainer.nnodes=${trainer}"]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::unresolved"]);
}

#[test]
fn shell_arithmetic_and_commands_of_a_pasted_line_are_the_shells() {
    // `shlex.split` of lines verl users' scripts hold: bash computes these before verl
    // starts; `shlex` cut the first at its blanks, and its `|` ends no line here.
    let loaded = load(
        None,
        &[
            "python3",
            "-m",
            "verl.trainer.main_ppo",
            "trainer.n_gpus_per_node=$((NUM_GPUS",
            "/",
            "NUM_NODES))",
            "trainer.nnodes=$(scontrol show hostnames | wc -l)",
            "actor_rollout_ref.rollout.tensor_model_parallel_size=`echo 2`",
        ],
    );
    assert_eq!(
        codes(&loaded),
        ["resource_pool::verl::shell_expansion"; 3],
        "{:?}",
        loaded.diagnostics
    );
    let mut data: Vec<_> = loaded
        .diagnostics
        .iter()
        .map(|d| serde_json::to_value(d).expect("data"))
        .collect();
    data.sort_by_key(|d| d["text"].as_str().map(str::to_owned));
    let fields = |d: &serde_json::Value| {
        [&d["key"], &d["text"], &d["kind"], &d["part"]].map(|v| v.as_str().map(str::to_owned))
    };
    let want = |key: &str, text: &str, kind: &str, part: &str| {
        [key, text, kind, part].map(|v| Some(v.to_owned()))
    };
    assert_eq!(
        fields(&data[0]),
        want(
            "trainer.n_gpus_per_node",
            "$((NUM_GPUS / NUM_NODES))",
            "arithmetic",
            "pools"
        )
    );
    assert_eq!(
        fields(&data[1]),
        want(
            "trainer.nnodes",
            "$(scontrol show hostnames | wc -l)",
            "command_substitution",
            "pools"
        )
    );
    assert_eq!(
        fields(&data[2]),
        want(
            "actor_rollout_ref.rollout.tensor_model_parallel_size",
            "`echo 2`",
            "command_substitution",
            "rollout"
        )
    );
    assert!(
        loaded.diagnostics.iter().any(|d| d.to_string() ==
        "`trainer.n_gpus_per_node` is `$((NUM_GPUS / NUM_NODES))`, shell arithmetic that the shell expands before verl starts: the pools verl builds are not judged"),
        "{:?}",
        loaded.diagnostics
    );
    assert!(loaded.layout.is_none());
    // Quoted for Hydra, it is the text itself.
    let loaded = load(None, &["trainer.nnodes='$((NODES))'"]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::wrong_type"]);
}

#[test]
fn a_config_given_as_data_is_not_the_yaml() {
    let config = "{\"trainer\": {\"nnodes\": \"2\"}}";
    let options = VerlOptions {
        config_is_data: true,
        ..VerlOptions::new(100_000)
    };
    let launch = launch::parse_launch(&[]);
    let (message, help, labels, data) =
        wrong_type_words(&load_launch(&launch, Some(config), &options));
    assert_eq!(
        message,
        "`trainer.nnodes` must be an integer, not the string '2'"
    );
    // No quotes to drop in data: a value of the type.
    assert!(
        help.starts_with("set `trainer.nnodes` to an integer"),
        "{help}"
    );
    assert_eq!(labels, ["set in the config@23+3"]);
    assert_eq!(data["origin"], "config");
    assert_eq!(data["fix"], "set_value");
    // A misspelt pool key in it is "in the config" too.
    let typo = load_launch(&launch, Some("{\"trainer\": {\"nnode\": 2}}"), &options);
    let labels: Vec<String> = typo
        .diagnostics
        .iter()
        .flat_map(|d| miette::Diagnostic::labels(d).into_iter().flatten())
        .filter_map(|l| l.label().map(str::to_owned))
        .collect();
    assert_eq!(labels, ["in the config"]);
    // The same text as a YAML file is the YAML's.
    let (_, help, labels, _) = wrong_type_words(&load(Some(config), &[]));
    assert!(help.starts_with("write it without quotes"), "{help}");
    assert_eq!(labels, ["set in the YAML@23+3"]);
}

#[test]
fn the_rollout_sizes_must_divide_actor_rollouts_pool() {
    use miette::Diagnostic;
    use resource_pool_core::check::suggest::LayoutTerms;
    // verl's defaults: 8 GPUs, a tensor parallel size of 2.
    let loaded = load(None, &[]);
    assert!(!codes(&loaded).contains(&"resource_pool::verl::rollout_parallel_size".into()));
    assert_eq!(loaded.settings.multiple(0), 2);
    // A size of 3 on 8 GPUs: verl's assertion, labelled on the size; the layout is kept
    // (verl builds it, and stops when its workers start).
    let line = [
        "trainer.n_gpus_per_node=8",
        "actor_rollout_ref.rollout.tensor_model_parallel_size=3",
    ];
    let loaded = load(None, &line);
    assert_eq!(
        codes(&loaded),
        ["resource_pool::verl::rollout_parallel_size"]
    );
    assert!(loaded.layout.is_some());
    let d = &loaded.diagnostics[0];
    let VerlDiagnostic::RolloutIndivisible {
        divisor,
        world_size,
        key,
        span,
        ..
    } = d
    else {
        panic!("{d:?}")
    };
    assert_eq!((*divisor, *world_size), (3, 8));
    assert_eq!(*key, KEYS[ROLLOUT_TP].path);
    let text = hydra::command_line(&args(&line));
    let span = span.unwrap();
    let base = loaded.settings.space.command_line_base();
    assert_eq!(&text[span.offset() - base..][..span.len()], "3");
    assert!(d.help().unwrap().to_string().contains("a multiple of 3"));
    assert_eq!(loaded.settings.multiple(0), 3);
    // The data and pipeline parallel sizes multiply in (verl 0.6.0 on): 2 × 2 × 1 = 4
    // divides 8, 2 × 3 does not; labelled on the first size written.
    let loaded = load(None, &["actor_rollout_ref.rollout.data_parallel_size=2"]);
    assert!(codes(&loaded).is_empty(), "{:?}", codes(&loaded));
    let loaded = load(
        None,
        &["actor_rollout_ref.rollout.pipeline_model_parallel_size=3"],
    );
    assert_eq!(
        codes(&loaded),
        ["resource_pool::verl::rollout_parallel_size"]
    );
    // verl's default size against a pool written smaller: labelled on the pool's size.
    let loaded = load(None, &["trainer.n_gpus_per_node=1"]);
    let Some(VerlDiagnostic::RolloutIndivisible { key, origin, .. }) = loaded.diagnostics.first()
    else {
        panic!("{:?}", loaded.diagnostics)
    };
    assert_eq!(
        (*key, *origin),
        (KEYS[N_GPUS_PER_NODE].path, OriginKind::CommandLine)
    );
    // Over several node-slots: 2 × 3 = 6 GPUs hold two replicas of 3.
    let loaded = load(
        None,
        &[
            "trainer.n_gpus_per_node=3",
            "trainer.nnodes=2",
            "actor_rollout_ref.rollout.tensor_model_parallel_size=3",
        ],
    );
    assert!(codes(&loaded).is_empty(), "{:?}", codes(&loaded));
}

#[test]
fn a_rollout_replica_over_several_nodes_takes_whole_nodes() {
    // 3 nodes of 8 GPUs hold two replicas of 4 × 3 = 12, but a replica larger than a node
    // must be a multiple of it (verl's `RolloutReplica`): verl stops at start-up.
    let line = [
        "trainer.nnodes=3",
        "actor_rollout_ref.rollout.tensor_model_parallel_size=4",
        "actor_rollout_ref.rollout.data_parallel_size=3",
    ];
    let loaded = load(None, &line);
    assert_eq!(
        codes(&loaded),
        ["resource_pool::verl::rollout_replica_nodes"]
    );
    assert!(loaded.layout.is_some());
    let d = &loaded.diagnostics[0];
    let VerlDiagnostic::RolloutReplicaNodes {
        replica,
        per_node,
        per_node_key,
        key,
        span,
        ..
    } = d
    else {
        panic!("{d:?}")
    };
    assert_eq!((*replica, *per_node), (12, 8));
    // The rollout's own n_gpus_per_node follows the trainer's unless it is set.
    assert_eq!(*per_node_key, KEYS[N_GPUS_PER_NODE].path);
    assert_eq!(*key, KEYS[ROLLOUT_TP].path);
    let text = hydra::command_line(&args(&line));
    let span = span.unwrap();
    let base = loaded.settings.space.command_line_base();
    assert_eq!(&text[span.offset() - base..][..span.len()], "4");
    // A replica within a node, or over whole nodes, is verl's: 12 on nodes of 12 (the
    // rollout's own node size, set), 16 on nodes of 8.
    let mut twelve = line.to_vec();
    twelve.push("actor_rollout_ref.rollout.n_gpus_per_node=12");
    assert!(codes(&load(None, &twelve)).is_empty());
    let sixteen = [
        "trainer.nnodes=2",
        "actor_rollout_ref.rollout.tensor_model_parallel_size=16",
    ];
    assert!(codes(&load(None, &sixteen)).is_empty());
    // verl's own default of that key (a copied config keeps it) is the trainer's.
    let mut select = line.to_vec();
    select.push("actor_rollout_ref.rollout.n_gpus_per_node=${oc.select:trainer.n_gpus_per_node,8}");
    let loaded = load(None, &select);
    assert_eq!(
        codes(&loaded),
        ["resource_pool::verl::rollout_replica_nodes"]
    );
    let Some(VerlDiagnostic::RolloutReplicaNodes {
        per_node_key,
        per_node,
        ..
    }) = loaded.diagnostics.first()
    else {
        panic!("{:?}", loaded.diagnostics)
    };
    assert_eq!((*per_node_key, *per_node), (KEYS[ROLLOUT_GPUS].path, 8));
    // Without a release, a mode written as `sync` is a line for verl 0.6, which builds no
    // replicas then.
    let mut sync = line.to_vec();
    sync.push("actor_rollout_ref.rollout.mode=sync");
    assert!(codes(&load(None, &sync)).is_empty());
    // A pool the rollout does not divide is verl's first assertion, and the only one said.
    let loaded = load(
        None,
        &[
            "trainer.nnodes=2",
            "actor_rollout_ref.rollout.tensor_model_parallel_size=12",
        ],
    );
    assert_eq!(
        codes(&loaded),
        ["resource_pool::verl::rollout_parallel_size"]
    );
}

#[test]
fn command_line_values_follow_hydras_grammar_not_yamls() {
    // A quoted interpolation is a string Hydra hands to OmegaConf, resolved only when
    // verl runs: not read.
    let loaded = load(None, &["trainer.nnodes='${oc.decode:${oc.env:NNODES}}'"]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::unresolved"]);
    // `off` is a string on the command line, YAML 1.1's false in the YAML.
    let loaded = load(None, &["reward_model.enable=off"]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::wrong_type"]);
    let loaded = load(Some("reward_model:\n  enable: off\n"), &[]);
    assert!(codes(&loaded).is_empty(), "{:?}", codes(&loaded));
    // `01` is a string to Hydra, not 1.
    let loaded = load(None, &["trainer.nnodes=01"]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::wrong_type"]);
    // Hydra's null is `null` in any case: the legacy key stays unset, as verl reads it.
    let loaded = load(None, &["reward_model.nnodes=nUlL"]);
    assert!(codes(&loaded).is_empty(), "{:?}", codes(&loaded));
    assert_eq!(loaded.settings.get(RM_NNODES).value, Value::Int(0));
}

#[test]
fn forms_hydra_gives_a_meaning_to_are_not_read_once_each() {
    // A cast, a sweep (with `-m` or not), an escape: what verl gets is Hydra's to make;
    // one warning on the value, no layout claimed, no guess at its type.
    for (value, form) in [
        ("int(2)", "function"),
        ("str(2)", "function"),
        ("1,2", "sweep"),
        ("choice(1,2)", "function"),
        ("2\\,", "escape"),
    ] {
        for line in [
            vec![format!("trainer.nnodes={value}")],
            vec!["-m".to_owned(), format!("trainer.nnodes={value}")],
        ] {
            let words: Vec<&str> = line.iter().map(String::as_str).collect();
            let loaded = load(None, &words);
            let data = only_data(&loaded, "unresolved", &line);
            assert_eq!(data["form"], form, "{line:?}");
            assert!(loaded.layout.is_none(), "{line:?}");
        }
    }
    // Of a key that sizes no pool, nothing is said.
    let loaded = load(None, &["-m", "data.train_batch_size=128,256"]);
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    assert!(loaded.layout.is_some());
    // A tagged YAML value alike.
    let loaded = load(Some("trainer:\n  nnodes: !!int '2'\n"), &[]);
    assert_eq!(only_data(&loaded, "unresolved", &"tag")["form"], "tag");
}
