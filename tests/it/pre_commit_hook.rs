//! The pre-commit hook file (`.pre-commit-hooks.yaml`): its fields, read as text
//! (no YAML crate), and the binary run with the hook's entry on example files.

use crate::common;

use std::path::Path;

fn hook_text() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml");
    std::fs::read_to_string(path).expect(".pre-commit-hooks.yaml exists")
}

/// The value of `key: value` on a line of the (single) hook, quotes removed.
fn field(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let line = line.trim_start().trim_start_matches("- ");
        let rest = line.strip_prefix(key)?.strip_prefix(':')?;
        Some(rest.trim().trim_matches('\'').trim_matches('"').to_owned())
    })
}

#[test]
fn hook_declares_id_language_entry_and_files() {
    let text = hook_text();
    assert_eq!(field(&text, "id").as_deref(), Some("resource-pool-lint"));
    assert_eq!(field(&text, "language").as_deref(), Some("rust"));
    assert_eq!(field(&text, "entry").as_deref(), Some("resource-pool lint"));
    assert!(field(&text, "name").is_some());
    assert!(field(&text, "files").is_some_and(|f| !f.is_empty()));
}

#[test]
fn hook_entry_names_this_binary() {
    let entry = field(&hook_text(), "entry").expect("entry");
    let mut words = entry.split_whitespace();
    // The binary this package builds (the package itself is `resource-pool-cli`).
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_resource-pool"))
        .file_stem()
        .and_then(|s| s.to_str());
    assert_eq!(words.next(), binary);
    assert_eq!(words.next(), Some("lint"));
}

fn run_entry(files: &[&str]) -> std::process::Output {
    let entry = field(&hook_text(), "entry").expect("entry");
    let args: Vec<&str> = entry.split_whitespace().skip(1).collect();
    common::resource_pool()
        .args(&args)
        .args(files)
        .output()
        .expect("the binary runs")
}

#[test]
fn hook_entry_passes_on_example_configs() {
    // pre-commit appends the staged file names to the entry.
    let out = run_entry(&[
        "examples/configs/verl_default.toml",
        "examples/configs/single_node.toml",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn hook_entry_fails_on_a_bad_config() {
    let dir = std::env::temp_dir().join(format!("rp-hook-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[pools.global_pool]\nprocess_on_nodes = [0]\n").unwrap();
    let out = run_entry(&[bad.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(out.status.code(), Some(1));
}
