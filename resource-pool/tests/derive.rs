//! Behaviour of the code `#[derive(Role)]` and `#[derive(ResourcePools)]` generate.

use resource_pool::config::ConfigErrors;
use resource_pool::{
    Accelerator, LoadPoolsError, ParseRoleError, PoolSpec, ResourcePools, Role, RoleKey,
};

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename_all = "snake_case")]
enum MyRole {
    ActorRollout,
    Critic,
    #[role(rename = "ref")]
    RefPolicy,
    RewardModel,
}

#[derive(ResourcePools, Debug, Clone, PartialEq)]
#[resource_pools(role = MyRole)]
struct Pools {
    #[pool(roles(ActorRollout, Critic, RefPolicy))]
    global_pool: PoolSpec,
    #[pool(roles(RewardModel), max_colocate_count = 1, process_on_nodes = [4])]
    reward_pool: PoolSpec,
}

#[test]
fn roles_have_their_names_and_order() {
    assert_eq!(
        MyRole::ALL,
        [
            MyRole::ActorRollout,
            MyRole::Critic,
            MyRole::RefPolicy,
            MyRole::RewardModel
        ]
    );
    let names: Vec<_> = MyRole::ALL.iter().map(|r| r.name()).collect();
    assert_eq!(names, ["actor_rollout", "critic", "ref", "reward_model"]);
    for (i, role) in MyRole::ALL.iter().enumerate() {
        assert_eq!(role.index(), i);
        assert_eq!(role.key_name(), role.name());
        assert_eq!(role.to_string(), role.name());
        assert_eq!(role.name().parse::<MyRole>(), Ok(*role));
    }
    assert_eq!(MyRole::closed_set(), Some(MyRole::ALL));
    // Display honours width and alignment, for tables of roles.
    assert_eq!(format!("[{:<8}]", MyRole::Critic), "[critic  ]");
}

#[test]
fn unknown_names_suggest_the_closest_role() {
    let err: ParseRoleError = "reward_modle".parse::<MyRole>().unwrap_err();
    assert_eq!(err.suggestion(), Some("reward_model"));
    assert_eq!(
        err.to_string(),
        "unknown role `reward_modle`; did you mean `reward_model`? \
         (the roles are actor_rollout, critic, ref, reward_model)"
    );
    let far = "zzz".parse::<MyRole>().unwrap_err();
    assert_eq!(far.suggestion(), None);
    // The variant's own identifier is not a name once renamed.
    assert!("RefPolicy".parse::<MyRole>().is_err());
    let _: &dyn std::error::Error = &far;
}

#[test]
fn serde_uses_the_names() {
    let json = serde_json::to_string(&MyRole::RefPolicy).unwrap();
    assert_eq!(json, r#""ref""#);
    assert_eq!(
        serde_json::from_str::<MyRole>(r#""critic""#).unwrap(),
        MyRole::Critic
    );
    let err = serde_json::from_str::<MyRole>(r#""critc""#).unwrap_err();
    assert!(err.to_string().contains("did you mean `critic`?"), "{err}");
    let err = serde_json::from_str::<MyRole>("3").unwrap_err();
    assert!(
        err.to_string()
            .contains("a role name: actor_rollout, critic, ref, reward_model"),
        "{err}"
    );
}

#[test]
fn every_case_convention_applies() {
    #[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
    #[role(rename_all = "SCREAMING-KEBAB-CASE")]
    enum Loud {
        ActorRollout,
        #[role(rename = "quiet")]
        Critic,
    }
    #[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
    #[role(rename_all = "camelCase")]
    enum Camel {
        ActorRollout,
    }
    #[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
    enum Plain {
        ActorRollout,
    }
    assert_eq!(Loud::ActorRollout.name(), "ACTOR-ROLLOUT");
    assert_eq!(Loud::Critic.name(), "quiet");
    assert_eq!(Camel::ActorRollout.name(), "actorRollout");
    assert_eq!(Plain::ActorRollout.name(), "ActorRollout");
}

const TOML: &str = r#"
[global_pool]
process_on_nodes = [8, 8]
accelerator_type = "accelerator_type:H100"
"#;

#[test]
fn pools_load_from_toml_and_map_every_role() {
    let pools = Pools::from_toml_str(TOML, "pools.toml").unwrap();
    assert_eq!(pools.global_pool.process_on_nodes, [8, 8]);
    assert_eq!(
        pools.global_pool.accelerator_type.as_deref(),
        Some("accelerator_type:H100")
    );
    // The file leaves `[reward_pool]` out: the attribute fixes its size.
    assert_eq!(pools.reward_pool.process_on_nodes, [4]);
    assert_eq!(pools.reward_pool.max_colocate_count, 1);

    let manager = pools.into_manager();
    let names: Vec<_> = manager.pools().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["global_pool", "reward_pool"]);
    for role in [MyRole::ActorRollout, MyRole::Critic, MyRole::RefPolicy] {
        assert_eq!(manager.get_resource_pool(role).name, "global_pool");
    }
    assert_eq!(
        manager.get_resource_pool(MyRole::RewardModel).name,
        "reward_pool"
    );
    let mapped: Vec<_> = manager.mapping().map(|(r, _)| *r).collect();
    assert_eq!(mapped, MyRole::ALL);
}

#[test]
fn the_file_overrides_the_attribute() {
    let pools = Pools::from_toml_str(
        "[global_pool]\nprocess_on_nodes = [8]\n[reward_pool]\ngpus_per_node = 2\nnnodes = 2\n",
        "pools.toml",
    )
    .unwrap();
    assert_eq!(pools.reward_pool.process_on_nodes, [2, 2]);
    assert_eq!(pools.reward_pool.max_colocate_count, 1);
}

#[test]
fn bad_files_are_reported_with_spans() {
    let err: ConfigErrors =
        Pools::from_toml_str("[global_pol]\nprocess_on_nodes = [8]\n", "p.toml").unwrap_err();
    assert_eq!(err.source_file.name(), "p.toml");
    assert!(err.diagnostics.iter().any(|d| d.is_error()));
    let shown = format!("{err}");
    assert!(shown.contains("p.toml"), "{shown}");

    let err =
        Pools::from_toml_str("[global_pool]\nprocess_on_nodes = [8, 0]\n", "p.toml").unwrap_err();
    assert!(err.diagnostics.iter().any(|d| d.is_error()));
}

#[test]
fn a_boxed_config_error_names_its_first_problem() {
    // Through `Box<dyn Error>` (or anyhow) only the error's own line shows.
    let boxed: Box<dyn std::error::Error> = Box::new(
        Pools::from_toml_str(
            "[global_pool]\nprocess_on_nodes = []\nmax_colocate_count = 0\n",
            "pools.toml",
        )
        .unwrap_err(),
    );
    assert_eq!(
        boxed.to_string(),
        "2 errors in `pools.toml`: pool `global_pool` has no node-slot, and 1 more"
    );
    let one = Pools::from_toml_str("[global_pool]\nprocess_on_nodes = [0]\n", "p.toml");
    assert_eq!(
        one.unwrap_err().to_string(),
        "1 error in `p.toml`: pool `global_pool` has a node-slot of 0 accelerators"
    );
}

#[test]
fn the_slot_limit_names_the_large_pool_not_the_one_that_passes_it() {
    // `reward_pool` (its attribute's one node-slot) passes the limit, but the value to
    // look at is `global_pool`'s.
    let text = "[global_pool]\ngpus_per_node = 8\nnnodes = 1000000\n";
    let err = Pools::from_toml_str(text, "p.toml").unwrap_err();
    let [
        problem @ resource_pool::config::ConfigDiagnostic::TooManySlots {
            pool,
            count: 1_000_000,
            total: 1_000_001,
            ..
        },
    ] = err.diagnostics.as_slice()
    else {
        panic!("{:?}", err.diagnostics)
    };
    assert_eq!(pool, "global_pool");
    let label = miette::Diagnostic::labels(problem).unwrap().next().unwrap();
    assert_eq!(label.offset(), text.find("1000000").unwrap());
    // serde points at the same value, in a trainer's config too (`reward_pool`, not
    // read yet, counts its one node-slot at least), and the help names no knob a derived
    // struct lacks unsaid.
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Trainer {
        pools: Pools,
    }
    let nested = "[trainer.pools.global_pool]\ngpus_per_node = 8\nnnodes = 1000000\n";
    for (text, err) in [
        (text, toml::from_str::<Pools>(text).unwrap_err()),
        (
            nested,
            toml::from_str::<std::collections::BTreeMap<String, Trainer>>(nested).unwrap_err(),
        ),
    ] {
        assert_eq!(&text[err.span().unwrap()], "1000000", "{err}");
        assert!(
            err.message().starts_with(
                "`nnodes`: pool `global_pool` brings the node-slots to at least 1000001, over \
                 the limit of 1000000"
            ),
            "{err}"
        );
        assert!(
            err.message()
                .contains("a derived pool struct's loaders and serde keep the default"),
            "{err}"
        );
    }
}

#[test]
fn pools_load_from_files() {
    let dir = std::env::temp_dir().join(format!("rp-derive-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("pools.toml");
    std::fs::write(&path, TOML).unwrap();
    let pools = Pools::from_toml_file(&path).unwrap();
    assert_eq!(pools, Pools::from_toml_str(TOML, "pools.toml").unwrap());
    let missing = Pools::from_toml_file(dir.join("missing.toml")).unwrap_err();
    assert!(matches!(missing, LoadPoolsError::Read(_)), "{missing:?}");
    std::fs::write(&path, "global_pool = 3\n").unwrap();
    let bad = Pools::from_toml_file(&path).unwrap_err();
    assert!(matches!(bad, LoadPoolsError::Config(_)), "{bad:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fixed_pools_need_no_file() {
    #[derive(ResourcePools)]
    #[resource_pools(role = MyRole)]
    struct Fixed {
        #[pool(
            roles(ActorRollout, Critic, RefPolicy),
            separate_worker_groups,
            process_on_nodes = [16, 16],
            accelerator = "NPU",
        )]
        global_pool: PoolSpec,
        #[pool(roles(RewardModel), process_on_nodes = [8], accelerator_type = "accelerator_type:910B")]
        reward_pool: PoolSpec,
    }
    let fixed = Fixed::fixed();
    assert_eq!(fixed.global_pool.accelerator, Accelerator::Npu);
    assert_eq!(fixed.global_pool.max_colocate_count, 3);
    assert_eq!(fixed.reward_pool.accelerator, Accelerator::Gpu);
    assert_eq!(
        fixed.reward_pool.accelerator_type.as_deref(),
        Some("accelerator_type:910B")
    );
    let manager = fixed.into_manager();
    assert_eq!(
        manager.get_resource_pool(MyRole::Critic).process_on_nodes(),
        [16, 16]
    );
}

#[test]
fn gpus_per_node_and_nnodes_fix_the_slots_as_process_on_nodes_does() {
    #[derive(ResourcePools, Debug)]
    #[resource_pools(role = MyRole)]
    struct Pairs {
        #[pool(roles(ActorRollout, Critic, RefPolicy), gpus_per_node = 8, nnodes = 3)]
        global_pool: PoolSpec,
        #[pool(roles(RewardModel), process_on_nodes = [4])]
        reward_pool: PoolSpec,
    }
    let fixed = Pairs::fixed();
    assert_eq!(fixed.global_pool.process_on_nodes, [8, 8, 8]);
    assert_eq!(fixed.reward_pool.process_on_nodes, [4]);
    // A file may still size the pool, in either form.
    let from_file =
        Pairs::from_toml_str("[global_pool]\nprocess_on_nodes = [2]\n", "pools.toml").unwrap();
    assert_eq!(from_file.global_pool.process_on_nodes, [2]);
    let defaults = Pairs::from_toml_str("", "pools.toml").unwrap();
    assert_eq!(defaults.global_pool.process_on_nodes, [8, 8, 8]);
}

#[test]
fn warnings_of_a_file_that_loads_are_kept_when_asked_for() {
    // Uneven node-slots load (verl runs them) but are worth a warning.
    let text = "[global_pool]\nprocess_on_nodes = [8, 4]\n";
    let (pools, warnings) = Pools::from_toml_str_with_warnings(text, "pools.toml").unwrap();
    assert_eq!(pools.global_pool.process_on_nodes, [8, 4]);
    let codes: Vec<String> = warnings
        .diagnostics
        .iter()
        .filter_map(|d| miette::Diagnostic::code(d).map(|c| c.to_string()))
        .collect();
    assert_eq!(codes, ["resource_pool::config::uneven_slots"]);
    assert_eq!(warnings.to_string(), "1 warning in `pools.toml`");
    // The plain loader gives the same pools.
    assert_eq!(Pools::from_toml_str(text, "pools.toml").unwrap(), pools);
    let (_, none) =
        Pools::from_toml_str_with_warnings("[global_pool]\nprocess_on_nodes = [8]\n", "p.toml")
            .unwrap();
    assert!(none.is_empty());
    // From a file too.
    let dir = std::env::temp_dir().join(format!("resource-pool-derive-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("pools.toml");
    std::fs::write(&path, text).unwrap();
    let (_, from_file) = Pools::from_toml_file_with_warnings(&path).unwrap();
    assert_eq!(from_file.diagnostics.len(), 1);
}

#[test]
fn separate_worker_groups_need_their_cpus_in_the_file_too() {
    #[derive(ResourcePools, Debug)]
    #[resource_pools(role = MyRole)]
    struct Separate {
        #[pool(
            roles(ActorRollout, Critic, RefPolicy, RewardModel),
            separate_worker_groups,
            max_colocate_count = 4
        )]
        global_pool: PoolSpec,
    }
    let ok = Separate::from_toml_str("[global_pool]\nprocess_on_nodes = [8]\n", "s.toml").unwrap();
    assert_eq!(ok.global_pool.max_colocate_count, 4);
    let err = Separate::from_toml_str(
        "[global_pool]\nprocess_on_nodes = [8]\nmax_colocate_count = 2\n",
        "s.toml",
    )
    .unwrap_err();
    assert!(err.diagnostics.iter().any(|d| d.is_error()), "{err:?}");
    // Built by hand, the pool is held to the same rule by the manager.
    let mut spec = ok.global_pool.clone();
    spec.max_colocate_count = 3;
    let err = Separate { global_pool: spec }
        .try_into_manager()
        .unwrap_err();
    assert_eq!(
        err,
        resource_pool::ManagerError::ColocateTooSmall {
            pool: "global_pool".into(),
            groups: 4,
            count: 3,
        }
    );
    assert!(ok.try_into_manager().is_ok());
}

#[test]
fn hand_built_pools_are_checked_by_the_manager() {
    let pools = Pools {
        global_pool: PoolSpec::with_slots([]),
        reward_pool: PoolSpec::with_slots([4]),
    };
    let err = pools.clone().try_into_manager().unwrap_err();
    assert_eq!(
        err,
        resource_pool::ManagerError::EmptyPool("global_pool".into())
    );
    let panic = std::panic::catch_unwind(|| pools.into_manager()).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(message.contains("global_pool"), "{message}");
}

#[test]
fn a_hand_built_zero_colocate_count_is_zero_colocate() {
    // Zero is its own mistake, before any count of worker groups (verl fuses this pool's
    // roles into one group, which a count of 0 is also below).
    let pools = Pools {
        global_pool: PoolSpec {
            max_colocate_count: 0,
            ..PoolSpec::with_slots([8])
        },
        reward_pool: PoolSpec::with_slots([4]),
    };
    let err = pools.try_into_manager().unwrap_err();
    assert_eq!(
        err,
        resource_pool::ManagerError::ZeroColocate("global_pool".into())
    );
}

#[test]
fn colocate_too_small_words_agree_with_the_groups() {
    let err = |groups| {
        resource_pool::ManagerError::ColocateTooSmall {
            pool: "p".into(),
            groups,
            count: 1,
        }
        .to_string()
    };
    assert_eq!(
        err(2),
        "pool `p` has max_colocate_count = 1, but its roles run as 2 separate worker groups, \
         each needing one CPU per bundle"
    );
    assert!(err(1).contains("as 1 worker group,"), "{}", err(1));
}

#[test]
fn verl_pools_work_with_the_derive() {
    use resource_pool::verl;

    #[derive(ResourcePools)]
    #[resource_pools(role = verl::Role)]
    struct VerlPools {
        #[pool(roles(
            Actor,
            Rollout,
            ActorRollout,
            Critic,
            RefPolicy,
            ActorRolloutRef,
            Env,
            TeacherModel
        ))]
        global_pool: PoolSpec,
        #[pool(roles(RewardModel))]
        reward_pool: PoolSpec,
    }
    let pools = VerlPools::from_toml_str(
        "[global_pool]\ngpus_per_node = 8\nnnodes = 2\n[reward_pool]\nprocess_on_nodes = [4]\n",
        "verl.toml",
    )
    .unwrap()
    .into_manager();
    let default = verl::default_layout(8, 2, Some((4, 1))).unwrap();
    assert_eq!(pools, default);
}
