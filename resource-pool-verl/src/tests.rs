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
fn interpolations_follow_known_keys() {
    let yaml = "trainer:\n  nnodes: 3\n  device: ${oc.env:DEVICE,cuda}\nreward_model:\n  enable: true\n  enable_resource_pool: true\n  nnodes: ${trainer.nnodes}\n  n_gpus_per_node: ${oc.env:GPUS}\n";
    let loaded = load(Some(yaml), &[]);
    assert_eq!(loaded.settings.get(RM_NNODES).value, Value::Int(3));
    // `oc.env` gives a string: the right type for `trainer.device`, but what it holds is
    // not known (a warning, verl's default stands); the wrong type for a count (an error).
    assert_eq!(
        codes(&loaded),
        [
            "resource_pool::verl::unresolved",
            "resource_pool::verl::wrong_type"
        ]
    );
    assert_eq!(loaded.settings.get(DEVICE).value, Value::Str("cuda".into()));
    assert!(loaded.layout.is_none());
    // `oc.decode` reads the variable as the type, or not: not known, a warning.
    let yaml = yaml.replace("${oc.env:GPUS}", "${oc.decode:${oc.env:GPUS}}");
    let loaded = load(Some(&yaml), &[]);
    assert_eq!(
        codes(&loaded),
        [
            "resource_pool::verl::unresolved",
            "resource_pool::verl::unresolved"
        ]
    );
    assert!(
        loaded.diagnostics[1]
            .to_string()
            .contains("${oc.decode:${oc.env:GPUS}}"),
        "{}",
        loaded.diagnostics[1]
    );
    assert_eq!(loaded.settings.int(RM_GPUS), 8);
}

#[test]
fn an_env_interpolation_in_a_key_of_another_kind_is_a_string() {
    // OmegaConf's `oc.env` gives a string (2.4.0: `${oc.env:UNSET,2}` is '2'), which verl
    // cannot use as a count or a switch: the wrong type, labelled on the value.
    let (message, help, labels, data) =
        wrong_type_words(&load(None, &["trainer.n_gpus_per_node=${oc.env:GPUS}"]));
    assert_eq!(
        message,
        "`trainer.n_gpus_per_node` must be an integer, not a string from `${oc.env:GPUS}`"
    );
    assert_eq!(
        help,
        "OmegaConf's `oc.env` always gives a string, and verl needs an integer: write `trainer.n_gpus_per_node=\"${oc.decode:${oc.env:GPUS}}\"` to read it as an integer (Hydra reads a nested interpolation only in quotes; in a shell script, quote the whole word: `'trainer.n_gpus_per_node=\"${oc.decode:${oc.env:GPUS}}\"'`)"
    );
    assert_eq!(labels, ["set on the command line@25+14"]);
    assert_eq!(
        data["found"],
        serde_json::json!({"form": "env_string", "text": "${oc.env:GPUS}"})
    );
    assert_eq!(data["fix"], "decode_env");
    assert_eq!(data["origin"], "command_line");
    // The default stays inside; a quoted interpolation is resolved too; a boolean alike.
    for (line, expected, wrapped) in [
        (
            "trainer.nnodes=${oc.env:NNODES,2}",
            "an integer",
            "\"${oc.decode:${oc.env:NNODES,2}}\"",
        ),
        (
            "trainer.nnodes='${oc.env:NNODES}'",
            "an integer",
            "\"${oc.decode:${oc.env:NNODES}}\"",
        ),
        (
            "reward_model.enable=${oc.env:RM,False}",
            "a boolean",
            "\"${oc.decode:${oc.env:RM,False}}\"",
        ),
    ] {
        let (message, help, ..) = wrong_type_words(&load(None, &[line]));
        assert!(
            message.contains(&format!(
                "must be {expected}, not a string from `${{oc.env:"
            )),
            "{message}"
        );
        assert!(help.contains(wrapped), "{line}: {help}");
    }
    // In the YAML, with blanks as OmegaConf allows them (quoted, as YAML needs for `: `):
    // the leaf as the YAML writes it.
    let yaml = "trainer:\n  n_gpus_per_node: \"${ oc.env : GPUS , 8 }\"\n";
    let (message, help, labels, data) = wrong_type_words(&load(Some(yaml), &[]));
    assert_eq!(
        message,
        "`trainer.n_gpus_per_node` must be an integer, not a string from `${ oc.env : GPUS , 8 }`"
    );
    assert!(
        help.ends_with(
            "write `n_gpus_per_node: ${oc.decode:${ oc.env : GPUS , 8 }}` to read it as an integer"
        ),
        "{help}"
    );
    assert_eq!(labels, ["set in the YAML@28+24"]);
    assert_eq!(data["origin"], "yaml");
    let loaded = load(Some("trainer:\n  nnodes: ${oc.env:NNODES}\n"), &[]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::wrong_type"]);
    assert!(loaded.layout.is_none());
    // The rollout's `${oc.select:trainer.n_gpus_per_node,8}` follows it: one error, on it.
    let loaded = load(
        None,
        &[
            "trainer.n_gpus_per_node=${oc.env:GPUS}",
            "actor_rollout_ref.rollout.n_gpus_per_node=${oc.select:trainer.n_gpus_per_node,8}",
        ],
    );
    assert_eq!(codes(&loaded), ["resource_pool::verl::wrong_type"]);
    // `oc.decode` reads the variable as the type, or not: unknown, a warning. So is a
    // string key's `oc.env`, which is its type.
    for line in [
        "trainer.nnodes=\"${oc.decode:${oc.env:NNODES,2}}\"",
        "trainer.device=${oc.env:DEVICE}",
    ] {
        assert_eq!(
            codes(&load(None, &[line])),
            ["resource_pool::verl::unresolved"],
            "{line}"
        );
    }
    // Under `-m`, its comma is inside the interpolation: one value, not a sweep.
    let line = [
        "python3",
        "-m",
        "verl.trainer.main_ppo",
        "-m",
        "trainer.nnodes=${oc.env:N,2}",
    ];
    assert_eq!(
        codes(&load(None, &line)),
        ["resource_pool::verl::wrong_type"]
    );
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
    // Another key: a warning naming the right one, from the same parent.
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
        VerlDiagnostic::UnknownKey {
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
fn entry_points_and_configs_outside_what_is_understood() {
    let loaded = load(
        None,
        &["python3", "-m", "recipe.dapo.main_dapo", "trainer.nnodes=1"],
    );
    assert_eq!(codes(&loaded), ["resource_pool::verl::entry_point"]);
    let loaded = load(
        None,
        &[
            "python3",
            "-m",
            "verl.trainer.main_ppo",
            "--config-name=nope",
        ],
    );
    assert_eq!(codes(&loaded), ["resource_pool::verl::unknown_config"]);
    // A config in the user's tree, unread: said once, keys not judged key by key.
    let launch = launch::parse_launch(&args(&[
        "python3",
        "recipe/x/main.py",
        "--config-path=config",
        "--config-name=x_trainer",
        "made.up.key=1",
    ]));
    assert_eq!(
        user_config_file(&launch).as_deref(),
        Some("recipe/x/config/x_trainer.yaml")
    );
    let options = VerlOptions {
        config_file_unread: true,
        ..VerlOptions::new(1000)
    };
    let loaded = load_launch(&launch, None, &options);
    assert_eq!(
        codes(&loaded),
        [
            "resource_pool::verl::entry_point",
            "resource_pool::verl::config_unread"
        ]
    );
    // verl's own config folder, relative to the entry point.
    let launch = launch::parse_launch(&args(&[
        "python3",
        "-m",
        "verl.trainer.main_ppo",
        "--config-path=config",
    ]));
    assert_eq!(user_config_file(&launch), None);
    // A script's line held as words: the shell fills the config in; not read, said once.
    for (flags, path) in [
        (
            &["--config-path=$CONFIG_PATH", "--config-name=grpo_multiturn"][..],
            "$CONFIG_PATH/grpo_multiturn.yaml",
        ),
        (
            &["--config-path=${ROOT}/conf/"],
            "${ROOT}/conf/ppo_trainer.yaml",
        ),
        (&["--config-name=$CONFIG_NAME"], "$CONFIG_NAME.yaml"),
    ] {
        let mut words = vec!["python3", "-m", "verl.trainer.main_ppo"];
        words.extend(flags);
        words.push("made.up.key=1");
        let launch = launch::parse_launch(&args(&words));
        assert_eq!(user_config_file(&launch), None, "{flags:?}");
        let loaded = load_launch(&launch, None, &VerlOptions::new(1000));
        let data = only_data(&loaded, "config_unread", &flags);
        assert_eq!(
            (data["path"].as_str(), data["why"].as_str()),
            (Some(path), Some("shell_variable")),
            "{flags:?}"
        );
        assert!(loaded.layout.is_some(), "{flags:?}");
    }
    // Search path packages that cannot be read: once.
    let loaded = load(
        None,
        &[
            "hydra.searchpath=[pkg://my.configs,file:///x]",
            "made.up=1",
            "other.made.up=2",
        ],
    );
    assert_eq!(codes(&loaded), ["resource_pool::verl::search_path_unread"]);
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
fn the_fix_undoes_what_made_the_value_a_string_where_it_was_written() {
    // Hydra's `str()` on the command line: drop the cast, not quotes nobody wrote.
    let (message, help, _, data) = wrong_type_words(&load(None, &["trainer.nnodes=str(2)"]));
    assert_eq!(
        message,
        "`trainer.nnodes` must be an integer, not the string '2'"
    );
    assert!(
        help.starts_with("drop the `str()` cast (`trainer.nnodes=2`)"),
        "{help}"
    );
    assert_eq!(data["fix"], "drop_str_cast");
    // In a YAML file the value is shown as YAML, under its own key.
    let yaml = |text: &str| wrong_type_words(&load(Some(text), &[]));
    let (_, help, _, data) = yaml("trainer:\n  nnodes: '2'\n");
    assert!(
        help.starts_with("write it without quotes (`nnodes: 2`)"),
        "{help}"
    );
    assert_eq!(data["fix"], "unquote");
    // YAML's `!!str` tag: drop the tag.
    let (message, help, labels, data) = yaml("trainer:\n  nnodes: !!str 2\n");
    assert_eq!(
        message,
        "`trainer.nnodes` must be an integer, not the string '2'"
    );
    assert!(
        help.starts_with("drop the `!!str` tag (`nnodes: 2`)"),
        "{help}"
    );
    assert_eq!(labels, ["set in the YAML@19+7"]);
    assert_eq!(data["fix"], "drop_str_tag");
}

#[test]
fn yaml_tags_read_as_omegaconf_constructs_them() {
    // `!!int` and `!!bool` of quoted text are the number and the boolean: no finding.
    let loaded = load(
        Some("trainer:\n  nnodes: !!int '2'\nreward_model:\n  enable: !!bool 'False'\n"),
        &[],
    );
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    assert!(loaded.layout.is_some());
    // `!!float 2` is 2.0, which verl's count refuses: quoted as written.
    let (message, help, labels, data) =
        wrong_type_words(&load(Some("trainer:\n  nnodes: !!float 2\n"), &[]));
    assert_eq!(
        message,
        "`trainer.nnodes` must be an integer, not `!!float 2`"
    );
    assert!(
        help.starts_with("set `trainer.nnodes` to an integer"),
        "{help}"
    );
    assert_eq!(labels, ["set in the YAML@19+9"]);
    assert_eq!(data["fix"], "set_value");
    // A tag OmegaConf's loader has no constructor for stops the load wherever it stands,
    // labelled where it starts.
    for (text, tag, why) in [
        (
            "trainer:\n  nnodes: !custom 2\n",
            "!custom",
            "OmegaConf's loader has no constructor for the tag `!custom`",
        ),
        (
            "data:\n  path: !str x\ntrainer:\n  nnodes: 2\n",
            "!str",
            "OmegaConf's loader has no constructor for the tag `!str`",
        ),
        (
            "trainer: !!seq\n  nnodes: 2\n",
            "!!seq",
            "`!!seq` on a mapping: OmegaConf's loader wants a sequence there",
        ),
        (
            "data:\n  day: !!timestamp 2001-12-14\ntrainer:\n  nnodes: 2\n",
            "!!timestamp",
            "`!!timestamp` makes a date, which OmegaConf does not take",
        ),
        (
            "trainer: {nnodes: !<tag:yaml.org,2002:python/int> 2}\n",
            "!<tag:yaml.org,2002:python/int>",
            "OmegaConf's loader has no constructor for the tag `tag:yaml.org,2002:python/int`",
        ),
    ] {
        assert_refused_at_its_tag(text, tag, why);
    }
}

/// The one finding of `text`, `yaml_syntax`: its message and where its label starts.
fn yaml_syntax(text: &str) -> (String, usize) {
    use miette::Diagnostic;
    let loaded = load(Some(text), &[]);
    assert_eq!(
        codes(&loaded),
        ["resource_pool::verl::yaml_syntax"],
        "{text:?}"
    );
    let d = &loaded.diagnostics[0];
    let label = d.labels().into_iter().flatten().next().expect("label");
    (d.to_string(), label.offset())
}

/// The YAML loaded: no `yaml_*` finding (others, such as unknown keys, may stand).
fn assert_yaml_loads(loaded: &LoadedVerl) {
    let codes = codes(loaded);
    assert!(codes.iter().all(|c| !c.contains("yaml")), "{codes:?}");
}

/// `text` does not load for its tag `tag` (`yaml_tag`, `why`): no layout, the help drops
/// the tag, the label and the data's `tag` are the tag as written.
fn assert_refused_at_its_tag(text: &str, tag: &str, why: &str) {
    use miette::Diagnostic;
    let loaded = load(Some(text), &[]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::yaml_tag"], "{text}");
    assert!(loaded.layout.is_none());
    let d = &loaded.diagnostics[0];
    assert_eq!(d.to_string(), format!("the YAML does not load: {why}"));
    let help = d.help().expect("help").to_string();
    assert!(
        help.starts_with(&format!("drop the tag `{tag}`: ")),
        "{help}"
    );
    let label = d.labels().into_iter().flatten().next().expect("label");
    assert_eq!(&text[label.offset()..][..label.len()], tag, "{text}");
    assert_eq!(serde_json::to_value(d).expect("data")["tag"], tag);
}

#[test]
fn a_scalar_pyyaml_cannot_construct_stops_the_load_wherever_it_stands() {
    // An `!!int`, `!!float` or `!!bool` whose text Python's `int()`/`float()` or YAML
    // 1.1's booleans refuse: verl stops at load even on a key no check reads.
    for (text, tag, why) in [
        (
            "data:\n  seed: !!int abc\ntrainer:\n  nnodes: 2\n",
            "!!int",
            "`!!int` of `abc` does not construct: Python's `int()` refuses `abc` in base 10",
        ),
        (
            "trainer:\n  nnodes: !!int 09\n",
            "!!int",
            "`!!int` of `09` does not construct: Python's `int()` refuses `09` in base 8",
        ),
        (
            "actor: {lr: !!float 1e}\n",
            "!!float",
            "`!!float` of `1e` does not construct: Python's `float()` refuses `1e`",
        ),
        (
            "data: {shuffle: !!bool maybe}\n",
            "!!bool",
            "`!!bool` of `maybe` does not construct: PyYAML's booleans are yes/no, true/false and on/off",
        ),
    ] {
        assert_refused_at_its_tag(text, tag, why);
    }
    // Plain scalars PyYAML resolves to what it cannot construct: an integer with no digit
    // (`0x_`), and `=` (the value tag) anywhere but a key.
    for (text, at) in [
        ("data:\n  mask: 0x_\n", "0x_"),
        ("data:\n  flags: [-0b__]\n", "-0b__"),
        ("data:\n  sep: =\n", "="),
    ] {
        assert_eq!(yaml_syntax(text).1, text.find(at).unwrap(), "{text}");
    }
    // What they construct loads: `!!int` takes blanks, a sign and a base's prefix as
    // Python's `int()` does, and `=` is a key's text.
    let loaded = load(
        Some(
            "trainer:\n  nnodes: !!int ' 2'\n  n_gpus_per_node: !!int 0o10\ndata: {'0x_': 1, =: 2, sep: '='}\n",
        ),
        &[],
    );
    // (The `data` keys are no keys of verl's: warnings of their own.)
    assert_yaml_loads(&loaded);
    let layout = loaded.layout.expect("layout");
    assert_eq!(slots(&layout), [("global_pool", vec![8, 8])]);
}

#[test]
fn a_tab_pyyaml_refuses_stops_the_load() {
    // PyYAML takes a tab only inside quotes, a comment or a block scalar's content; verl
    // stops at any other (a trailing one, one after `:`, one in the indentation).
    for text in [
        "trainer:\n  nnodes: 2\t\n",
        "trainer:\n  nnodes:\t2\n",
        "trainer:\n\tnnodes: 2\n",
        "data:\n  prompt_key: prompt\n\t\ntrainer:\n  nnodes: 2\n",
    ] {
        let (message, at) = yaml_syntax(text);
        assert!(message.contains("found character '\\t'"), "{message}");
        assert_eq!(at, text.find('\t').unwrap(), "{text:?}");
    }
    let loaded = load(
        Some(
            "trainer:  # a\tcomment\n  nnodes: 2\n  project_name: 'a\tb'\ndata:\n  template: |\n    x\ty\n",
        ),
        &[],
    );
    assert_yaml_loads(&loaded);
    assert!(loaded.layout.is_some());
}

#[test]
fn a_value_omegaconf_interpolation_grammar_refuses_stops_the_load() {
    // OmegaConf checks every string value holding `${` against its grammar when it
    // loads the file: `=` has no token in a resolver's arguments, a blank none in a path.
    for (text, value) in [
        (
            "data:\n  path: ${oc.env:DATA=1}\ntrainer:\n  nnodes: 2\n",
            "${oc.env:DATA=1}",
        ),
        (
            "trainer:\n  default_local_dir: 'ckpt/${trainer.project name}'\n",
            "ckpt/${trainer.project name}",
        ),
        ("data:\n  files: [a, \"${oc.env:X\"]\n", "${oc.env:X"),
    ] {
        let (message, label) = yaml_syntax(text);
        let refused = format!("OmegaConf's interpolation grammar refuses `{value}`");
        assert!(message.contains(&refused), "{message}");
        // At the value, its quote included.
        let at = text.find(value).unwrap();
        assert!(
            (at.saturating_sub(1)..=at).contains(&label),
            "{text:?}: {label}"
        );
    }
    // What it reads loads, and so does `\${` (an escaped `${`), and a key is no value.
    let loaded = load(
        Some(
            "trainer:\n  nnodes: ${oc.env:NNODES,2}\n  project_name: '\\${x y}'\n  default_local_dir: ckpt/${trainer.project_name}\ndata: {'${a b}': 1}\n",
        ),
        &[],
    );
    assert_yaml_loads(&loaded);
}

#[test]
fn an_override_value_omegaconf_interpolation_grammar_refuses_is_override_syntax() {
    for word in [
        "trainer.default_local_dir='${oc.env:HOME=1}'",
        "+data.path=x${a b}",
        "trainer.project_name=${a${b}",
    ] {
        let loaded = load(None, &[word]);
        let data = only_data(&loaded, "override_syntax", &word);
        assert_eq!(data["problem"], "not_an_interpolation", "{word}");
        // Labelled on the value, quotes included.
        let (_, errors) = hydra::parse_overrides(&args(&[word]));
        let value = &word[word.find('=').unwrap() + 1..];
        assert_eq!(&word[errors[0].span.clone()], value, "{word}");
    }
    // In a list or a dict, OmegaConf judges every string: the one it refuses is labelled.
    for (word, item) in [
        (
            "trainer.logger=[console,'${oc.env:A=1}']",
            "'${oc.env:A=1}'",
        ),
        ("+data.paths={train: ${a b}, val: x}", "${a b}"),
        ("+x=[[a], {k: [${x y}]}]", "${x y}"),
    ] {
        let loaded = load(None, &[word]);
        let data = only_data(&loaded, "override_syntax", &word);
        assert_eq!(data["problem"], "not_an_interpolation", "{word}");
        let (_, errors) = hydra::parse_overrides(&args(&[word]));
        assert_eq!(&word[errors[0].span.clone()], item, "{word}");
    }
    // What Hydra's grammar refuses inside a list is its parse error (a quote beside text).
    let loaded = load(None, &["trainer.logger=[console,'a'b]"]);
    let data = serde_json::to_value(&loaded.diagnostics[0]).expect("data");
    assert_eq!(data["problem"], "not_a_value");
    // What OmegaConf reads passes: an interpolation in a path, an escaped `${`, a
    // resolver's arguments (their comma is no sweep's), the items of a list or dict.
    for word in [
        "trainer.default_local_dir=${oc.env:HOME}/ckpt",
        "trainer.project_name='\\${a b}'",
        "trainer.nnodes=${oc.env:N,2}",
        "trainer.logger=[console,'${oc.env:LOGGER,wandb}']",
        "+data.paths={train: ${data.dir}/train, val: '\\${x y}'}",
    ] {
        let loaded = load(None, &[word]);
        assert!(
            !codes(&loaded)
                .iter()
                .any(|c| c.ends_with("override_syntax")),
            "{word}: {:?}",
            loaded.diagnostics
        );
    }
}

#[test]
fn a_shell_variable_of_a_pasted_line_is_the_shells_to_fill_in() {
    // Words of a script line (`shlex.split`), before the shell filled its variables in:
    // unknown here, verl's default stands, a warning that names the variable.
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
            (data["variable"].as_str(), data["default"].as_str()),
            (Some(variable), Some("1")),
            "{word}"
        );
        let layout = loaded.layout.expect("layout");
        assert_eq!(slots(&layout), [("global_pool", vec![8])], "{word}");
    }
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
        [&d["key"], &d["text"], &d["kind"], &d["default"]].map(|v| v.as_str().map(str::to_owned))
    };
    let want = |key: &str, text: &str, kind: &str, default: &str| {
        [key, text, kind, default].map(|v| Some(v.to_owned()))
    };
    assert_eq!(
        fields(&data[0]),
        want(
            "trainer.n_gpus_per_node",
            "$((NUM_GPUS / NUM_NODES))",
            "arithmetic",
            "8"
        )
    );
    assert_eq!(
        fields(&data[1]),
        want(
            "trainer.nnodes",
            "$(scontrol show hostnames | wc -l)",
            "command_substitution",
            "1"
        )
    );
    assert_eq!(
        fields(&data[2]),
        want(
            "actor_rollout_ref.rollout.tensor_model_parallel_size",
            "`echo 2`",
            "command_substitution",
            "2"
        )
    );
    assert!(
        loaded.diagnostics.iter().any(|d| d.to_string() ==
        "`trainer.n_gpus_per_node` is `$((NUM_GPUS / NUM_NODES))`, shell arithmetic that the shell expands before verl starts; resource-pool uses verl's default `8`"),
        "{:?}",
        loaded.diagnostics
    );
    assert_eq!(
        slots(loaded.layout.as_ref().expect("layout")),
        [("global_pool", vec![8])]
    );
    // Quoted for Hydra, it is the text itself.
    let loaded = load(None, &["trainer.nnodes='$((NODES))'"]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::wrong_type"]);
}

#[test]
fn a_merge_list_whose_winner_depends_on_pyyaml_is_a_warning() {
    let yaml = "a: &a {nnodes: 2}\nb: &b {nnodes: 3}\ntrainer:\n  <<: [*a, *b]\n";
    let loaded = load(Some(yaml), &[]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::merge_order"]);
    let d = &loaded.diagnostics[0];
    assert_eq!(
        d.to_string(),
        "`trainer.nnodes` is `2` from the first mapping of a `<<` list; PyYAML 6.0.4 takes `3` from a later one"
    );
    let data = serde_json::to_value(d).expect("data");
    assert_eq!(
        (data["used"].as_str(), data["newer"].as_str()),
        (Some("2"), Some("3"))
    );
    // The layout is built from the first mapping's value.
    assert!(loaded.layout.is_some());
    // Set on the command line, the YAML's merge order does not matter.
    let loaded = load(Some(yaml), &["trainer.nnodes=2"]);
    assert_eq!(codes(&loaded), Vec::<&str>::new());
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
    // The value came from OmegaConf's `${oc.env:...}`, most likely: `oc.decode` reads it.
    assert!(help.contains("`${oc.decode:${oc.env:VAR}}`"), "{help}");
    assert_eq!(labels, ["set in the config@23+3"]);
    assert_eq!(data["origin"], "config");
    assert_eq!(data["fix"], "decode");
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
fn a_hydra_sweep_is_one_sweep_diagnostic_not_a_wrong_type() {
    use miette::Diagnostic;
    let [py, m, main] = ["python3", "-m", "verl.trainer.main_ppo"];
    // With `-m`: several runs, checked one at a time, on the sweep of a key that sizes the
    // pools; labels on the value and on the flag.
    let loaded = load(None, &[py, m, main, "-m", "trainer.nnodes=1,2"]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::sweep"]);
    assert!(loaded.layout.is_none());
    let (message, help, labels, json) = wrong_type_words(&loaded);
    assert_eq!(
        message,
        "`trainer.nnodes=1,2` is a Hydra sweep: with `--multirun`, Hydra starts one run per value, and resource-pool checks one run at a time"
    );
    assert!(help.contains("for example `trainer.nnodes=1`"), "{help}");
    assert_eq!(labels, ["a sweep@52+3", "multirun@34+2"]);
    assert_eq!(
        json,
        serde_json::json!({"key": "trainer.nnodes", "value": "1,2",
            "run": {"mode": "multirun", "kind": "list"}})
    );
    // `--multirun`, `hydra.mode=MULTIRUN` and the sweep functions alike.
    for line in [
        &[
            py,
            m,
            main,
            "--multirun",
            "trainer.n_gpus_per_node=choice(4,8)",
        ][..],
        &[
            py,
            m,
            main,
            "hydra.mode=MULTIRUN",
            "trainer.nnodes=range(1,3)",
        ],
    ] {
        assert_eq!(
            codes(&load(None, line)),
            ["resource_pool::verl::sweep"],
            "{line:?}"
        );
    }
    // A multirun's sweep of a key that does not size the pools leaves each run's pools as
    // they are; its choice is no option of verl's to judge.
    let loaded = load(
        None,
        &[
            py,
            m,
            main,
            "-m",
            "data.train_batch_size=256,512",
            "model_engine=fsdp,megatron",
        ],
    );
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    assert!(loaded.layout.is_some());
    // Without `-m`, Hydra stops on any sweep: the help says how to write one run, a list or
    // a string (not for a count, which is neither).
    let loaded = load(None, &[py, m, main, "data.train_batch_size=256,512"]);
    let d = &loaded.diagnostics[0];
    assert_eq!(codes(&loaded), ["resource_pool::verl::sweep"]);
    assert!(
        d.to_string().contains("\"Ambiguous value for argument\""),
        "{d}"
    );
    let help = d.help().unwrap().to_string();
    assert!(help.contains("`data.train_batch_size=[256,512]`"), "{help}");
    let loaded = load(None, &[py, m, main, "trainer.nnodes=1,2"]);
    let help = loaded.diagnostics[0].help().unwrap().to_string();
    assert!(
        !help.contains("[1,2]") && help.contains("add `-m`"),
        "{help}"
    );
    // Quoted, bracketed or interpolated commas are one value.
    for value in [
        "trainer.nnodes=[1,2]",
        "trainer.nnodes='1,2'",
        "trainer.nnodes=${oc.env:N,2}",
    ] {
        assert!(
            !codes(&load(None, &[py, m, main, value]))
                .contains(&"resource_pool::verl::sweep".to_owned()),
            "{value}"
        );
    }
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
    // Each as hydra-core 1.3.2 parses it (data/verl/hydra_overrides.json). An unquoted
    // nested interpolation is Hydra's parse error ("Error parsing override"): verl never
    // starts.
    let loaded = load(None, &["trainer.nnodes=${oc.decode:${oc.env:NNODES}}"]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::override_syntax"]);
    let line = "trainer.nnodes=${oc.decode:${oc.env:NNODES}}";
    let (_, errors) = hydra::parse_overrides(&args(&[line]));
    assert_eq!(
        &line[errors[0].span.clone()],
        "${oc.decode:${oc.env:NNODES}}"
    );
    // Quoted, it is a string Hydra hands to OmegaConf, resolved only when verl runs.
    let loaded = load(None, &["trainer.nnodes='${oc.decode:${oc.env:NNODES}}'"]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::unresolved"]);
    // A stray brace (as in a verl example script's model path) is Hydra's parse error.
    let loaded = load(None, &["actor_rollout_ref.model.path=/models/Qwen3-8B}"]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::override_syntax"]);
    // `off` is a string on the command line (which verl takes as true), YAML 1.1's false
    // in the YAML.
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
fn deeply_nested_casts_are_read_as_text_without_recursing() {
    // Each nesting level of a cast is one level of recursion and one scan of the value:
    // a hundred thousand levels once overflowed the stack (and took quadratic time).
    let deep = |n: usize| format!("trainer.nnodes={}2{}", "int(".repeat(n), ")".repeat(n));
    let loaded = load(None, &[&deep(100_000)]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::wrong_type"]);
    let loaded = load(
        None,
        &[
            "-m",
            &format!(
                "trainer.nnodes={}1,2{}",
                "int(".repeat(100_000),
                ")".repeat(100_000)
            ),
        ],
    );
    assert!(!codes(&loaded).is_empty());
    // Within the bound, the casts are Hydra's.
    let loaded = load(None, &[&deep(20)]);
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    assert_eq!(loaded.settings.get(NNODES).value, Value::Int(2));
}

#[test]
fn hydras_casts_give_verl_their_results() {
    // Hydra evaluates a cast while it parses the override (measured with hydra-core 1.3.2,
    // data/verl/hydra_overrides.json): verl gets the result, not the text.
    let loaded = load(None, &["trainer.nnodes=int(2)"]);
    assert!(codes(&loaded).is_empty(), "{:?}", codes(&loaded));
    assert_eq!(loaded.settings.int(NNODES), 2);
    for (cast, nodes) in [("int('3')", 3), ("int(2.7)", 2), ("int(str(4))", 4)] {
        let loaded = load(None, &[&format!("trainer.nnodes={cast}")]);
        assert!(codes(&loaded).is_empty(), "{cast}: {:?}", codes(&loaded));
        assert_eq!(loaded.settings.int(NNODES), nodes, "{cast}");
    }
    let loaded = load(None, &["reward_model.enable=bool(1)"]);
    assert!(codes(&loaded).is_empty(), "{:?}", codes(&loaded));
    assert!(loaded.settings.bool(RM_ENABLE));
    // `str(2)` is the string '2' and `float(2)` the float 2.0: no integer for verl. The
    // label is on the cast as written.
    let (message, _, labels, _) = wrong_type_words(&load(None, &["trainer.nnodes=str(2)"]));
    assert_eq!(
        message,
        "`trainer.nnodes` must be an integer, not the string '2'"
    );
    assert_eq!(labels, ["set on the command line@16+6"]);
    let loaded = load(None, &["trainer.nnodes=float(2)"]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::wrong_type"]);
    // A cast Hydra cannot make is its parse error: Hydra stops before verl starts.
    for line in ["trainer.nnodes=int('a')", "reward_model.enable=bool('yes')"] {
        let loaded = load(None, &[line]);
        assert_eq!(
            codes(&loaded),
            ["resource_pool::verl::override_syntax"],
            "{line}"
        );
    }
    // A cast of a sweep is a sweep, its one run's value a cast.
    let loaded = load(None, &["trainer.nnodes=int(1,2)"]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::sweep"]);
    let (_, help, _, _) = wrong_type_words(&loaded);
    assert!(
        help.contains("for example `trainer.nnodes=int(1)`"),
        "{help}"
    );
}
