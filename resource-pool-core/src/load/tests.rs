//! The whole load: overrides (values replaced and added, lint errors pointing
//! into the command line, malformed overrides all reported), a derived struct's problems
//! in file order.

use super::{LoadedConfig, OverrideFailure, load_config_with};
use crate::config::{ConfigDiagnostic, OVERRIDES_NAME, OverrideError};
use crate::lint::LintOptions;
use crate::source::SourceFile;

const FILE: &str = "[pools.global_pool]\nprocess_on_nodes = [8, 8]\n\n[mapping]\nactor_rollout = \"global_pool\"\n";

fn load(overrides: &[&str]) -> Result<LoadedConfig, OverrideFailure> {
    let source = SourceFile::new("c.toml", FILE);
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    load_config_with(&source, &overrides, &LintOptions::default())
}

#[test]
fn a_value_is_replaced_and_a_new_key_inserted() {
    let loaded = load(&[
        "pools.global_pool.process_on_nodes=[8,8,8]",
        "pools.global_pool.max_colocate_count = 2",
    ])
    .unwrap();
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    assert!(loaded.manager.is_some());
    let third = loaded.slot_span(0, 2).expect("a third slot");
    assert_eq!(loaded.source.locate(third.start), (OVERRIDES_NAME, 1, 41));
    let pool = &loaded.doc.pools[0];
    let (name, line, column) = loaded.source.locate(pool.name.span.start);
    assert_eq!((name, line, column), ("c.toml", 1, 8));
}

#[test]
fn a_lint_error_on_an_override_points_into_the_command_line() {
    let loaded = load(&["pools.global_pool.process_on_nodes=[8,0]"]).unwrap();
    let zero = loaded
        .diagnostics
        .iter()
        .find_map(|d| match d {
            ConfigDiagnostic::ZeroSlot { span, .. } => Some(span.offset()),
            _ => None,
        })
        .expect("a zero slot");
    assert_eq!(loaded.source.locate(zero), (OVERRIDES_NAME, 1, 39));
    assert_eq!(&loaded.source.text()[zero..zero + 1], "0");
}

#[test]
fn malformed_overrides_are_all_reported() {
    let failure = load(&[
        "nokey",
        "pools.global_pool.process_on_nodes=[8,",
        "mapping.actor_rollout.x=1",
    ])
    .unwrap_err();
    assert_eq!(failure.errors.len(), 3, "{:?}", failure.errors);
    assert!(matches!(failure.errors[0], OverrideError::NoEquals { .. }));
    assert!(matches!(failure.errors[1], OverrideError::Syntax { .. }));
    match &failure.errors[2] {
        OverrideError::NotATable { through, span, .. } => {
            assert_eq!(through, "mapping.actor_rollout");
            assert_eq!(failure.source.locate(span.offset()).0, OVERRIDES_NAME);
            assert_eq!(failure.source.locate(span.offset()).1, 3);
        }
        other => panic!("{other:?}"),
    }
}

fn render(diagnostic: &dyn miette::Diagnostic, source: &SourceFile) -> String {
    struct With<'a>(&'a dyn miette::Diagnostic, &'a SourceFile);
    impl std::fmt::Debug for With<'_> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            std::fmt::Display::fmt(self.0, f)
        }
    }
    impl std::fmt::Display for With<'_> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            std::fmt::Display::fmt(self.0, f)
        }
    }
    impl std::error::Error for With<'_> {}
    impl miette::Diagnostic for With<'_> {
        fn code<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
            self.0.code()
        }
        fn help<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
            self.0.help()
        }
        fn source_code(&self) -> Option<&dyn miette::SourceCode> {
            Some(self.1)
        }
        fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
            self.0.labels()
        }
    }
    let mut out = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .with_width(100)
        .render_report(&mut out, &With(diagnostic, source))
        .unwrap();
    out
}

#[test]
fn rendered_override_errors() {
    let loaded = load(&["pools.global_pool.process_on_nodes=[8,0]"]).unwrap();
    let text: Vec<String> = loaded
        .diagnostics
        .iter()
        .map(|d| render(d, &loaded.source))
        .collect();
    insta::assert_snapshot!("lint_error_from_override", text.join("\n"));
    let failure = load(&[
        "pools.global_pool.process_on_nodes=[8,",
        "mapping.actor_rollout.x=1",
    ])
    .unwrap_err();
    let text: Vec<String> = failure
        .errors
        .iter()
        .map(|d| render(d, &failure.source))
        .collect();
    insta::assert_snapshot!("malformed_overrides", text.join("\n"));
}

proptest::proptest! {
    #[test]
    fn arbitrary_overrides_never_panic(key in ".{0,20}", value in ".{0,20}") {
        let _ = load(&[&format!("{key}={value}")]);
        let _ = load(&[&key]);
    }
}

#[test]
fn a_derived_structs_problems_are_in_file_order() {
    use crate::config::{PoolDefaults, PoolField};
    let text = "[global_pool]\nprocess_on_nodes = []\nmax_colocate_count = 0\nnnode = 3\n";
    let field = PoolField {
        name: "global_pool",
        defaults: PoolDefaults::default(),
        worker_groups: 1,
    };
    let errors = super::load_struct_pools(&SourceFile::new("pools.toml", text), &[field])
        .expect_err("three problems");
    let offsets: Vec<usize> = errors.diagnostics.iter().map(super::first_offset).collect();
    assert_eq!(offsets.len(), 3, "{:?}", errors.diagnostics);
    assert!(offsets.is_sorted(), "{offsets:?}: {:?}", errors.diagnostics);
}

#[test]
fn a_derived_structs_errors_render_each_problem_once() {
    use crate::config::{PoolDefaults, PoolField};
    let text = "[global_pool]\nprocess_on_nodes = []\nmax_colocate_count = 0\n";
    let field = PoolField {
        name: "global_pool",
        defaults: PoolDefaults::default(),
        worker_groups: 1,
    };
    let errors = super::load_struct_pools(&SourceFile::new("pools.toml", text), &[field])
        .expect_err("two problems");
    // The line names the first problem, for `Box<dyn Error>` and anyhow ...
    assert_eq!(
        errors.to_string(),
        "2 errors in `pools.toml`: pool `global_pool` has no node-slot, and 1 more"
    );
    // ... and miette shows it once: under that line, with its own label and help.
    let mut out = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .with_width(100)
        .render_report(&mut out, &errors)
        .unwrap();
    assert_eq!(out.matches("has no node-slot").count(), 1, "{out}");
    assert_eq!(
        out.matches("has max_colocate_count = 0").count(),
        1,
        "{out}"
    );
    assert!(
        out.starts_with("resource_pool::config::empty_process_on_nodes\n"),
        "{out}"
    );
    insta::assert_snapshot!("derived_struct_errors", out);
}
