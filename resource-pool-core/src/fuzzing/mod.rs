//! The bodies of the fuzz targets (`fuzz/fuzz_targets/`), shared with the corpus replay
//! test (`tests/it/corpus_replay.rs`) so that both run exactly the same checks.
//!
//! Every function takes an input, runs it through the public API and panics when an
//! invariant does not hold; an input that is merely invalid (bad TOML, bad JSON) is fine.
//! Not part of the public API.

use crate::config::config_to_toml;
use crate::config::count_arrays::Arrays;
use crate::lint::LintOptions;
use crate::load::{load_config, load_config_as, load_config_with};
use crate::source::SourceFile;

mod placement_case;

pub use placement_case::{
    BRUTE_FORCE_MAX_ASSIGNMENTS, FUZZ_BUDGET, FUZZ_MAX_STEPS, FUZZ_TIME_SLACK, PlacementCase,
    brute_force, placement,
};

/// Asserts that every label of a diagnostic lies inside the text (so a report can show
/// it) and that its line and column can be computed.
pub fn assert_labels_in_file(diagnostic: &dyn miette::Diagnostic, source: &SourceFile) {
    for label in diagnostic.labels().into_iter().flatten() {
        let end = label.offset() + label.len();
        assert!(
            end <= source.text().len(),
            "label {:?} of `{diagnostic}` ends past the file ({} bytes)",
            label.inner(),
            source.text().len()
        );
        // Must not panic, whatever the offset.
        let _ = source.line_col(label.offset());
    }
}

/// Config TOML bytes: parse, lint and build with the default options. A built manager
/// has no error, and its printed TOML loads back, without error, to an equal manager. The
/// bytes after a NUL, if any, are overrides, one per line (`--set`). And the load that
/// reads arrays of counts ahead of the parser gives what the tree reader gives, with and
/// without the overrides: the same document, diagnostics and manager, or the same
/// override errors.
pub fn config_toml(bytes: &[u8]) {
    let (file, overrides) = match bytes.iter().position(|&b| b == 0) {
        Some(at) => (&bytes[..at], &bytes[at + 1..]),
        None => (bytes, &[][..]),
    };
    let Ok(source) = SourceFile::from_bytes("fuzz.toml", file.to_vec()) else {
        return;
    };
    let overrides: Vec<String> = String::from_utf8_lossy(overrides)
        .lines()
        .map(str::to_owned)
        .collect();
    let options = LintOptions::default();
    assert_same_as_tree(&source, &[], &options);
    if !overrides.is_empty() {
        assert_same_as_tree(&source, &overrides, &options);
    }
    let loaded = load_config(&source, &options);
    for diagnostic in &loaded.diagnostics {
        assert_labels_in_file(diagnostic, &source);
    }
    let Some(manager) = &loaded.manager else {
        assert!(loaded.has_errors(), "no manager but no error either");
        return;
    };
    assert!(!loaded.has_errors(), "a manager was built despite errors");
    let printed = config_to_toml(manager);
    let again = load_config(&SourceFile::new("printed.toml", printed.as_str()), &options);
    assert!(
        !again.has_errors(),
        "the printed config has errors: {:?}\n{printed}",
        again.diagnostics
    );
    assert_eq!(
        again.manager.as_ref(),
        Some(manager),
        "the printed config differs:\n{printed}"
    );
}

/// The config load, with arrays of counts read ahead when worth it and always, and the
/// tree reader's agree on everything they say.
fn assert_same_as_tree(source: &SourceFile, overrides: &[String], options: &LintOptions) {
    let tree = load_config_as(source, overrides, options, Arrays::FromTree);
    for fast in [
        load_config_with(source, overrides, options),
        load_config_as(source, overrides, options, Arrays::Always),
    ] {
        match (&fast, &tree) {
            (Ok(fast), Ok(tree)) => {
                assert_eq!(fast.doc, tree.doc, "the documents differ");
                assert_eq!(fast.diagnostics, tree.diagnostics, "the diagnostics differ");
                assert_eq!(fast.manager, tree.manager, "the managers differ");
            }
            (Err(fast), Err(tree)) => {
                assert_eq!(fast.errors, tree.errors, "override errors differ")
            }
            (fast, tree) => panic!(
                "one load fails on its overrides, the other not: {:?} / {:?}",
                fast.as_ref().map(|l| &l.diagnostics),
                tree.as_ref().map(|l| &l.diagnostics)
            ),
        }
    }
}
