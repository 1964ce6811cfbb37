//! Unit tests of what the offline reader says only when it can prove it (issue 44): `+key`
//! is never a typo, a suggestion needs a likeness, `add_existing` needs every release
//! considered, and what it cannot see is one notice, with nothing judged after it.

use super::tests::{args, codes, load};
use super::*;

fn load_at(version: &str, words: &[&str]) -> LoadedVerl {
    let options = VerlOptions {
        verl_version: Some(version.into()),
        ..VerlOptions::new(100_000)
    };
    load_launch(&launch::parse_launch(&args(words)), None, &options)
}

const MAIN: [&str; 3] = ["python3", "-m", "verl.trainer.main_ppo"];

fn line<'a>(rest: &[&'a str]) -> Vec<&'a str> {
    MAIN.iter().chain(rest).copied().collect()
}

#[test]
fn a_plus_key_is_never_a_typo() {
    // Real lines (issue 44): Hydra adds these; the names share nothing with a pool key.
    for word in [
        "+trainer.remove_previous_ckpt_in_save=False",
        "++trainer.remove_previous_ckpt_in_save=False",
        "+trainer.nnode=2",
        "++trainer.debug=True",
        "+actor_rollout_ref.actor.my_flag=1",
    ] {
        let loaded = load(None, &line(&[word]));
        assert!(
            loaded.diagnostics.is_empty(),
            "{word}: {:?}",
            loaded.diagnostics
        );
        assert!(loaded.layout.is_some(), "{word}");
    }
}

#[test]
fn adding_an_existing_key_is_hydras_refusal_only_when_every_release_considered_has_it() {
    use miette::{Diagnostic, Severity};
    let severity = |loaded: &LoadedVerl| {
        let [d] = &loaded.diagnostics[..] else {
            panic!("{:?}", loaded.diagnostics)
        };
        assert_eq!(
            d.code().map(|c| c.to_string()).as_deref(),
            Some("resource_pool::verl::add_existing")
        );
        d.severity()
    };
    // `trainer.use_legacy_worker_impl` is in some releases' ppo_trainer, not in all: only
    // the release given that has it refuses it, as Hydra's error.
    let key = "+trainer.use_legacy_worker_impl=auto";
    assert!(load(None, &line(&[key])).diagnostics.is_empty());
    assert_eq!(severity(&load_at("0.7.0", &line(&[key]))), None);
    assert!(load_at("0.9.1", &line(&[key])).diagnostics.is_empty());
    // A key every release has: without `--verl-version` a warning, as the line's verl may
    // be a fork that lacks it (issue 44: TinyZero's `+trainer.val_before_train`).
    let key = "+trainer.val_before_train=False";
    assert_eq!(
        severity(&load(None, &line(&[key]))),
        Some(Severity::Warning)
    );
    assert!(load(None, &line(&[key])).layout.is_some());
    assert_eq!(severity(&load_at("0.9.1", &line(&[key]))), None);
    assert!(load_at("0.9.1", &line(&[key])).layout.is_none());
}

#[test]
fn an_unknown_key_is_hydras_refusal_with_a_suggestion_only_when_alike() {
    for key in ["trainer.debug", "trainer.remove_clip"] {
        let word = format!("{key}=1");
        // Without `--verl-version`: a warning, the layout still built.
        let loaded = load(None, &line(&[&word]));
        let [d @ VerlDiagnostic::UnknownKey { suggestion, .. }] = &loaded.diagnostics[..] else {
            panic!("{key}: {:?}", loaded.diagnostics)
        };
        assert_eq!(suggestion.0, None, "{key}");
        assert_eq!(
            d.to_string(),
            format!("`{key}` is not a key of verl 0.5.0-0.9.1 ppo_trainer")
        );
        assert!(!loaded.has_errors() && loaded.layout.is_some(), "{key}");
        // With it: the config the line loads, Hydra's error.
        let loaded = load_at("0.9.1", &line(&[&word]));
        let [d @ VerlDiagnostic::UnknownKeyOfRelease { .. }] = &loaded.diagnostics[..] else {
            panic!("{key}: {:?}", loaded.diagnostics)
        };
        assert_eq!(
            d.to_string(),
            format!("`{key}` is not a key of verl 0.9.1 ppo_trainer")
        );
        assert!(loaded.has_errors() && loaded.layout.is_none(), "{key}");
    }
    let loaded = load(None, &line(&["trainer.nnode=2"]));
    assert!(matches!(
        &loaded.diagnostics[..],
        [VerlDiagnostic::PoolKeyTypo {
            suggestion: "trainer.nnodes",
            ..
        }]
    ));
}

/// The one notice of a launch not judged, and its `why`.
fn notice(loaded: &LoadedVerl) -> serde_json::Value {
    assert_eq!(
        codes(loaded),
        ["resource_pool::verl::not_judged"],
        "{:?}",
        loaded.diagnostics
    );
    assert!(loaded.layout.is_none());
    assert!(!loaded.launch.keys_judged);
    assert!(loaded.launch.not_judged.is_some());
    serde_json::to_value(&loaded.diagnostics[0]).expect("data")["why"].clone()
}

#[test]
fn what_the_reader_cannot_see_is_one_notice_and_nothing_is_judged_after_it() {
    // Keys that would be findings against ppo_trainer: none is said.
    let keys = [
        "+trainer.remove_previous_ckpt_in_save=False",
        "trainer.debug=1",
        "trainer.nnode=2",
        "+trainer.nnodes=2",
        "trainer.nnodes=two",
    ];
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["python3", "-m", "recipe.dapo.main_dapo"],
            "entry_point",
            "recipe.dapo.main_dapo",
        ),
        (
            &["python3", "recipe/dapo/main_dapo.py"],
            "entry_point",
            "recipe/dapo/main_dapo.py",
        ),
        (&["python3", "train.py"], "entry_point", "train.py"),
        (
            &["torchrun", "--nproc_per_node=8", "train.py"],
            "program",
            "torchrun",
        ),
        (&["bash", "run.sh"], "program", "bash"),
        (
            &["docker", "exec", "box", "./train.sh"],
            "program",
            "docker exec",
        ),
        (
            &[
                "python3",
                "-m",
                "verl.experimental.one_step_off_policy.main_ppo",
            ],
            "builds_otherwise",
            "verl.experimental.one_step_off_policy.main_ppo",
        ),
        (
            &["python3", "-m", "verl.trainer.main_eval"],
            "builds_otherwise",
            "verl.trainer.main_eval",
        ),
    ];
    for (start, what, named) in cases {
        let words: Vec<&str> = start.iter().chain(&keys).copied().collect();
        let why = notice(&load(None, &words));
        assert_eq!(why["what"], *what, "{start:?}");
        let named_field = if *what == "program" { "word" } else { "entry" };
        assert_eq!(why[named_field], *named, "{start:?}");
    }
    let why = notice(&load(
        None,
        &["python3", "-c", "import verl", "trainer.debug=1"],
    ));
    assert_eq!(why["what"], "inline_code");
}

#[test]
fn a_config_outside_verls_own_folder_is_the_notice() {
    for (flags, flag, value) in [
        (
            &[
                "--config-path=/work/recipe/config",
                "--config-name=dapo_trainer",
            ][..],
            "--config-path",
            "/work/recipe/config",
        ),
        (
            &["--config-path=pkg://my.configs"],
            "--config-path",
            "pkg://my.configs",
        ),
        (
            &["--config-name=dapo_trainer"],
            "--config-name",
            "dapo_trainer",
        ),
        (&["--config-dir=/work/conf"], "--config-dir", "/work/conf"),
        (
            &["--config-path=$CONFIG_PATH"],
            "--config-path",
            "$CONFIG_PATH",
        ),
        (&["--config-name=${NAME}"], "--config-name", "${NAME}"),
        (
            &["hydra.searchpath=[pkg://my.configs]"],
            "hydra.searchpath",
            "[pkg://my.configs]",
        ),
    ] {
        let mut words = MAIN.to_vec();
        words.extend(flags);
        words.extend(["trainer.debug=1", "+trainer.nnodes=2"]);
        let why = notice(&load(None, &words));
        assert_eq!(
            (
                why["what"].as_str(),
                why["flag"].as_str(),
                why["value"].as_str()
            ),
            (Some("config"), Some(flag), Some(value)),
            "{flags:?}"
        );
    }
    // verl's own folder, as its entry point names it, is judged.
    for flags in [
        &["--config-path=config", "--config-name=ppo_megatron_trainer"][..],
        &["--config-path=pkg://verl.trainer.config"],
        &["hydra.searchpath=[pkg://verl.trainer.config]"],
    ] {
        let mut words = MAIN.to_vec();
        words.extend(flags);
        words.push("trainer.debug=1");
        let loaded = load(None, &words);
        assert_eq!(
            codes(&loaded),
            ["resource_pool::verl::unknown_key"],
            "{flags:?}"
        );
    }
    // A config given as data is the config composed, wherever the line points.
    let options = VerlOptions {
        config_is_data: true,
        ..VerlOptions::new(1000)
    };
    let launch = launch::parse_launch(&args(&line(&["--config-path=/x", "--config-name=y"])));
    let loaded = load_launch(&launch, Some("{\"trainer\": {\"nnodes\": 2}}"), &options);
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    assert!(loaded.layout.is_some());
}

#[test]
fn the_notice_names_what_is_not_judged_and_what_can_judge_it() {
    use miette::Diagnostic;
    let loaded = load(
        None,
        &[
            "python3",
            "-m",
            "recipe.dapo.main_dapo",
            "a=1",
            "2>&1",
            "|",
            "tee",
            "log",
        ],
    );
    // The shell's syntax is still said (an advice); then the one notice.
    assert_eq!(
        codes(&loaded),
        [
            "resource_pool::verl::shell_syntax",
            "resource_pool::verl::not_judged"
        ]
    );
    let d = &loaded.diagnostics[1];
    assert_eq!(
        d.to_string(),
        "`recipe.dapo.main_dapo` is no entry point of verl's own, so what it builds is not seen: this launch is not judged offline"
    );
    let help = d.help().expect("help").to_string();
    assert!(
        help.contains("`resource-pool verl --python PYTHON -- LINE`"),
        "{help}"
    );
    assert!(
        help.contains("`python -m resource_pool.guard LINE`"),
        "{help}"
    );
    assert_eq!(d.severity(), Some(miette::Severity::Warning));
    let label = d.labels().into_iter().flatten().next().expect("label");
    let base = loaded.settings.space.command_line_base();
    assert_eq!(label.offset() - base, "python3 -m ".len());
    // The report says why.
    let info = serde_json::to_value(&loaded.launch).expect("json");
    assert_eq!(
        info["not_judged"],
        serde_json::json!({"what": "entry_point", "entry": "recipe.dapo.main_dapo"})
    );
    assert_eq!(
        loaded
            .launch
            .not_judged
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some(
            "`recipe.dapo.main_dapo` is no entry point of verl's own, so what it builds is not seen"
        )
    );
}

#[test]
fn a_module_the_release_given_lacks_is_one_error() {
    let loaded = load_at(
        "0.7.0",
        &[
            "python3",
            "-m",
            "verl.trainer.main_ppo_sync",
            "trainer.debug=1",
        ],
    );
    assert_eq!(codes(&loaded), ["resource_pool::verl::entry_point"]);
    assert_eq!(
        loaded.diagnostics[0].to_string(),
        "verl 0.7.0 has no module `verl.trainer.main_ppo_sync`: only verl 0.8.0 has it"
    );
    assert!(loaded.layout.is_none());
    assert!(matches!(
        loaded.launch.not_judged,
        Some(NotJudged::NotInRelease { .. })
    ));
    let loaded = load_at("0.9.1", &["python3", "-m", "verl.trainer.main_generation"]);
    assert_eq!(codes(&loaded), ["resource_pool::verl::entry_point"]);
    // The release that has it builds its pools.
    let loaded = load_at("0.8.0", &["python3", "-m", "verl.trainer.main_ppo_sync"]);
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    assert_eq!(
        loaded.launch.entry_point,
        Some("verl.trainer.main_ppo_sync")
    );
    assert!(loaded.layout.is_some());
}

#[test]
fn overrides_the_shell_makes_leave_the_pools_unjudged() {
    let loaded = load(
        None,
        &line(&["${COMMON[@]}", "trainer.nnodes=2", "trainer.debug=1"]),
    );
    // The words seen are judged; the pools are not claimed.
    assert_eq!(
        codes(&loaded),
        [
            "resource_pool::verl::shell_words",
            "resource_pool::verl::unknown_key"
        ]
    );
    assert!(loaded.layout.is_none());
    let loaded = load(None, &line(&["${COMMON[@]}", "trainer.nnodes=2"]));
    assert!(!loaded.has_errors());
    assert!(loaded.layout.is_none());
    assert_eq!(
        loaded.launch.not_judged,
        Some(NotJudged::ShellWords {
            word: "${COMMON[@]}".into()
        })
    );
}
