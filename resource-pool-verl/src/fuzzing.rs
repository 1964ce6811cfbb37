//! The body of the verl reader's fuzz target (`fuzz/fuzz_targets/verl_launch.rs`), shared
//! with the corpus replay test so that both run exactly the same checks. Not part of the
//! public API.

use resource_pool_core::fuzzing::assert_labels_in_file;
use resource_pool_core::source::SourceFile;

/// A verl launch: the bytes before the first NUL are the YAML, the lines after it the
/// words of the pasted line (launchers, entry point, Hydra's flags, overrides). The launch
/// parser's spans lie in the line, every label lies in the YAML-plus-command-line source
/// and its snippet (windowed on long lines) reads, a layout exists exactly when no error
/// was found and the launch is judged, it stays within the slot limit, and it builds a
/// manager.
pub fn verl_launch(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let (yaml, rest) = text.split_once('\0').unwrap_or((text, ""));
    let overrides: Vec<String> = rest.lines().map(str::to_owned).collect();
    let max_slots = 1_000;
    let launch = crate::launch::parse_launch(&overrides);
    for (word, at) in &launch.overrides {
        assert_eq!(launch.line.get(*at..*at + word.len()), Some(word.as_str()));
    }
    if let Some(entry) = &launch.entry {
        assert_eq!(
            launch.line.get(entry.span.clone()),
            Some(entry.text.as_str())
        );
    }
    let loaded = crate::load_verl(Some(yaml), &overrides, max_slots);
    // The spans point into the launch line: the words joined by spaces, whitespace-only
    // words left out (not `command_line(&overrides)`, which keeps them).
    let source = SourceFile::new("fuzz.yaml", yaml)
        .with_layer(resource_pool_core::config::OVERRIDES_NAME, &launch.line);
    for diagnostic in &loaded.diagnostics {
        assert_labels_in_file(diagnostic, &source);
        for label in miette::Diagnostic::labels(diagnostic).into_iter().flatten() {
            let _ = source.locate(label.offset());
            if let Ok(contents) = miette::SourceCode::read_span(&source, label.inner(), 1, 1) {
                let span = contents.span();
                assert!(
                    span.offset() <= label.offset()
                        && label.offset() + label.len() <= span.offset() + span.len(),
                    "a snippet that does not hold its label"
                );
            }
        }
    }
    match &loaded.layout {
        None => assert!(
            loaded.has_errors() || loaded.launch.not_judged.is_some(),
            "no layout but no error, and judged"
        ),
        Some(layout) => {
            assert!(
                loaded.launch.not_judged.is_none(),
                "a layout of a launch not judged"
            );
            // verl builds the pools before its rollout workers check their sizes: those
            // errors come with the layout (`load_verl` keeps it for the check), no other.
            let before_layout: Vec<_> = loaded
                .diagnostics
                .iter()
                .filter(|d| {
                    !matches!(
                        d,
                        crate::VerlDiagnostic::RolloutIndivisible { .. }
                            | crate::VerlDiagnostic::RolloutReplicaNodes { .. }
                    )
                })
                .cloned()
                .collect();
            assert!(!crate::any_error(&before_layout), "a layout despite errors");
            let slots: usize = layout
                .pools
                .iter()
                .map(|p| p.spec.process_on_nodes.len())
                .sum();
            assert!(slots as u64 <= max_slots, "{slots} slots past the limit");
            let mapping = layout
                .mapping
                .iter()
                .map(|(role, pool)| (resource_pool_core::model::RoleName::from(*role), *pool));
            if let Err(e) =
                resource_pool_core::model::ResourcePoolManager::new(layout.pools.clone(), mapping)
            {
                panic!("the layout does not build: {e}");
            }
        }
    }
}
