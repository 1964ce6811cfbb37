//! A crate outside the workspace, built and tested as a user would: the example trainer
//! crate (`examples/trainer-crate`) copied to its own directory, its `Cargo.toml` pointing
//! at this `resource-pool` by path with only the features it needs (none for the code,
//! `testing` for its tests). It derives its pools, reads them inside its serde config
//! (toml and serde_json), gets errors naming the key and the line, and runs a property
//! test that passes and one that fails with the shrunk cluster in its message, the report
//! docs/rust.md shows. docs/rust.md's manifest snippet is checked against the example's.
//!
//! Offline, against the registry cache the workspace's own build filled. Its target
//! directory is kept under `target/tmp` between runs, so only what changed is rebuilt;
//! the test prints how long each step took (`--nocapture` shows it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

/// The example's files a user would have in their repository.
const FILES: &[&str] = &[
    "src/lib.rs",
    "tests/config.rs",
    "tests/layout.rs",
    "fleet.toml",
];

/// The fenced blocks of docs/rust.md whose info string is `info`, each as its lines.
fn rust_md_blocks(info: &str) -> Vec<Vec<String>> {
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/rust.md");
    let text = std::fs::read_to_string(page).unwrap();
    let mut blocks = Vec::new();
    // The block being read, and whether it is of the kind asked.
    let mut current: Option<(bool, Vec<String>)> = None;
    for line in text.lines() {
        match (current.as_mut(), line.strip_prefix("```")) {
            (None, Some(rest)) => current = Some((rest.trim() == info, Vec::new())),
            (Some(_), Some(_)) => {
                if let Some((true, block)) = current.take() {
                    blocks.push(block);
                }
            }
            (Some((_, block)), None) => block.push(line.to_owned()),
            (None, None) => {}
        }
    }
    blocks
}

fn example_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/trainer-crate")
}

/// Writes `text` unless the file already holds it, so an unchanged crate is not rebuilt.
fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::create_dir_all(path.parent().expect("a parent")).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// The user's crate, laid out in its own directory: the example's files, and its manifest
/// with the path to `resource-pool` made absolute.
fn user_crate() -> PathBuf {
    let example = example_dir();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("trainer-crate");
    let facade = Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .unwrap();
    let manifest = std::fs::read_to_string(example.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains("path = \"../../resource-pool\""),
        "{manifest}"
    );
    let facade = facade.to_str().expect("a UTF-8 path").replace('\\', "/");
    let manifest = manifest.replace("\"../../resource-pool\"", &format!("\"{facade}\""));
    write_if_changed(&dir.join("Cargo.toml"), &manifest);
    for file in FILES {
        let text = std::fs::read_to_string(example.join(file)).unwrap();
        write_if_changed(&dir.join(file), &text);
    }
    dir
}

/// `cargo SUBCOMMAND --offline [--target-dir ...] ARGS` in the user's crate, timed.
fn cargo(dir: &Path, subcommand: &str, args: &[&str]) -> Output {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("trainer-crate-target");
    let mut command = Command::new(cargo);
    command.arg(subcommand).arg("--offline");
    if subcommand != "tree" {
        command.arg("--target-dir").arg(&target);
    }
    command.args(args).current_dir(dir);
    // What the outer cargo set for this package and its target directory is not the
    // user's; the rest of the environment (registry, jobs, flags) is kept.
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        let package = [
            "CARGO_MANIFEST_",
            "CARGO_PKG_",
            "CARGO_CRATE_",
            "CARGO_BIN_",
        ]
        .iter()
        .any(|prefix| name.starts_with(prefix));
        let target = [
            "CARGO_TARGET_DIR",
            "CARGO_BUILD_TARGET_DIR",
            "CARGO_PRIMARY_PACKAGE",
        ]
        .contains(&&*name);
        if package || target {
            command.env_remove(&*name);
        }
    }
    let start = Instant::now();
    let output = command.output().expect("cargo runs");
    eprintln!(
        "cargo {subcommand} {}: {:.1} s",
        args.join(" "),
        start.elapsed().as_secs_f64()
    );
    output
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn a_user_crate_derives_its_pools_reads_them_with_serde_and_checks_its_layout() {
    let dir = user_crate();

    // Its tests pass: serde (toml, serde_json, the errors), the property test with a spare
    // node, today's fleet from a cluster file.
    let passing = cargo(&dir, "test", &[]);
    let shown = text(&passing);
    assert!(passing.status.success(), "{shown}");
    for name in [
        "the_config_reads_with_toml",
        "the_config_reads_with_serde_json",
        "bad_values_name_their_key_and_line",
        "bad_values_in_json_have_their_line",
        "places_with_a_spare_node",
        "places_on_todays_fleet",
    ] {
        assert!(
            shown.contains(&format!("test {name} ... ok")),
            "{name}: {shown}"
        );
    }

    // The property test without a spare node fails, shrunk to three nodes with one dead,
    // with the check's report of that cluster.
    let failing = cargo(
        &dir,
        "test",
        &[
            "--test",
            "layout",
            "--",
            "--ignored",
            "--exact",
            "places_without_a_spare_node",
        ],
    );
    let shown = text(&failing);
    assert!(!failing.status.success(), "{shown}");
    assert!(
        shown.contains("minimal failing input: cluster = 3 nodes, 2 alive; as a cluster file:"),
        "{shown}"
    );
    assert!(
        shown.contains("the layout does not place on this cluster:"),
        "{shown}"
    );
    assert!(
        shown.contains("node-0  GPU x  x  x  x  x  x  x  x"),
        "{shown}"
    );
    assert!(shown.contains("check: not placeable; Ray hangs"), "{shown}");

    // docs/rust.md shows this run's report: it must be what the run prints.
    let documented: Vec<Vec<String>> = rust_md_blocks("text")
        .into_iter()
        .filter(|block| {
            block.first().map(String::as_str)
                == Some("Test failed: the layout does not place on this cluster:")
        })
        .collect();
    assert_eq!(documented.len(), 1, "docs/rust.md's report: {documented:?}");
    let actual: Vec<&str> = shown.lines().collect();
    assert!(
        (0..actual.len()).any(|start| lines_match(&documented[0], &actual[start..])),
        "docs/rust.md's report of places_without_a_spare_node is not what it prints:\n{}\n\
         --- it prints ---\n{shown}",
        documented[0].join("\n")
    );
}

/// Whether `actual` starts with the `expected` lines, a line `...` standing for any lines
/// (at the end: for the rest); trailing spaces never count.
fn lines_match(expected: &[String], actual: &[&str]) -> bool {
    let Some((first, rest)) = expected.split_first() else {
        return true;
    };
    if first.trim_end() == "..." {
        return (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..]));
    }
    match actual.split_first() {
        Some((line, others)) => first.trim_end() == line.trim_end() && lines_match(rest, others),
        None => false,
    }
}

#[test]
fn a_derive_and_serde_user_pulls_few_crates() {
    let dir = user_crate();
    let tree = cargo(&dir, "tree", &["-e", "normal", "--prefix", "none"]);
    let shown = text(&tree);
    assert!(tree.status.success(), "{shown}");
    let stdout = String::from_utf8_lossy(&tree.stdout).into_owned();
    let mut unique: Vec<String> = stdout
        .lines()
        .map(|line| line.trim_end_matches(" (*)").to_owned())
        .filter(|line| !line.is_empty() && !line.starts_with("trainer-crate "))
        .collect();
    unique.sort();
    unique.dedup();
    eprintln!(
        "{} crates besides the trainer's own:\n{}",
        unique.len(),
        unique.join("\n")
    );
    // resource-pool with the derives and its lean core, serde, toml and serde_json: issue
    // 17's bound for a derive-only user is 45 crates.
    assert!(
        unique.len() <= 45,
        "{} crates:\n{}",
        unique.len(),
        unique.join("\n")
    );
    assert!(
        !unique.iter().any(|c| c.starts_with("proptest ")),
        "{stdout}"
    );
    assert!(!unique.iter().any(|c| c.starts_with("clap ")), "{stdout}");
}

/// The `resource-pool` dependency of a manifest's `table`, which must be by `path` only
/// (the crate is not on crates.io).
fn path_dependency<'m>(manifest: &'m toml::Table, table: &str) -> &'m toml::Table {
    let entry = manifest
        .get(table)
        .and_then(|t| t.get("resource-pool"))
        .and_then(toml::Value::as_table)
        .unwrap_or_else(|| panic!("no [{table}] resource-pool = {{ path = ... }}: {manifest}"));
    assert!(entry.contains_key("path"), "[{table}]: {entry}");
    for key in ["version", "git", "registry"] {
        assert!(!entry.contains_key(key), "[{table}]: {entry}");
    }
    entry
}

/// docs/rust.md's manifest for the `testing` feature depends on the crate as the example
/// does: by the same path in `[dependencies]` and `[dev-dependencies]` (cargo refuses a
/// crate whose source differs between the two), `testing` in the second.
#[test]
fn the_docs_manifest_depends_by_path_as_the_example_does() {
    let docs: Vec<String> = rust_md_blocks("toml")
        .into_iter()
        .filter(|block| block.iter().any(|line| line == "[dev-dependencies]"))
        .map(|block| block.join("\n"))
        .collect();
    assert_eq!(docs.len(), 1, "{docs:?}");
    let example = std::fs::read_to_string(example_dir().join("Cargo.toml")).unwrap();
    for text in [&docs[0], &example] {
        let manifest: toml::Table = toml::from_str(text).unwrap();
        let normal = path_dependency(&manifest, "dependencies");
        let dev = path_dependency(&manifest, "dev-dependencies");
        assert_eq!(normal["path"], dev["path"], "{text}");
        let features = dev["features"].as_array().expect("features");
        assert!(
            features.iter().any(|f| f.as_str() == Some("testing")),
            "{text}"
        );
    }
}

/// docs/rust.md's property tests are the example's, on the same layout: every `#[pool(...)]`
/// of the example's `Pools` is in the page's block, so the report it shows (checked above
/// against the example's run) is of the layout it shows.
#[test]
fn the_docs_layout_is_the_examples() {
    let docs: Vec<Vec<String>> = rust_md_blocks("rust")
        .into_iter()
        .filter(|block| {
            block
                .iter()
                .any(|l| l.contains("fn places_with_a_spare_node("))
        })
        .collect();
    assert_eq!(docs.len(), 1, "{docs:?}");
    let example = std::fs::read_to_string(example_dir().join("src/lib.rs")).unwrap();
    let pools: Vec<&str> = example
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("#[pool("))
        .collect();
    assert_eq!(pools.len(), 2, "{example}");
    for pool in pools {
        assert!(
            docs[0].iter().any(|l| l.trim() == pool),
            "docs/rust.md's layout lacks `{pool}`:\n{}",
            docs[0].join("\n")
        );
    }
}
