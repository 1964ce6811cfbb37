//! A config file that is YAML, not TOML: most likely verl's Hydra config given to `check` or
//! `lint`. Its TOML syntax errors (one per line, none of them the point) give way to one
//! error that says what the file is and how verl's config is checked.

use super::ConfigDiagnostic;
use crate::source::{SourceFile, Span, to_source_span};
use crate::toml_support::walk::StructureError;

/// The one error for a file that does not parse as TOML and looks like YAML: a `.yaml` or
/// `.yml` name, or a first meaningful line in YAML's `key:` form (`defaults:`, `hydra:`,
/// `trainer:`), which TOML never has. `None` for a file that parses, or that looks like
/// TOML gone wrong: its syntax errors are the news then.
pub(crate) fn yaml_instead(
    source: &SourceFile,
    errors: &[StructureError],
) -> Option<ConfigDiagnostic> {
    if !errors.iter().any(|e| {
        matches!(
            e,
            StructureError::Syntax { .. } | StructureError::DuplicateKey { .. }
        )
    }) {
        return None;
    }
    let text = source.base_text();
    let first = first_meaningful_line(text);
    let named_yaml = {
        let name = source.name().to_ascii_lowercase();
        name.ends_with(".yaml") || name.ends_with(".yml")
    };
    let keyed = first
        .as_ref()
        .is_some_and(|span| is_yaml_key_line(&text[span.clone()]));
    if !named_yaml && !keyed {
        return None;
    }
    Some(ConfigDiagnostic::Yaml {
        file: source.name().to_owned(),
        span: to_source_span(&first.unwrap_or(0..0)),
    })
}

/// The first line that is not blank, a `#` comment or YAML's `---`, without its line break.
fn first_meaningful_line(text: &str) -> Option<Span> {
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let trimmed = content.trim();
        if !(trimmed.is_empty() || trimmed.starts_with('#') || trimmed == "---") {
            let indent = content.len() - content.trim_start().len();
            return Some(start + indent..start + content.trim_end().len());
        }
        start += line.len();
    }
    None
}

/// `key:` or `key: value` (a plain YAML key: letters, digits, `_`, `-`, `.`, `/`).
fn is_yaml_key_line(line: &str) -> bool {
    let Some((key, rest)) = line.split_once(':') else {
        return false;
    };
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        && (rest.is_empty() || rest.starts_with([' ', '\t']))
}

#[cfg(test)]
mod tests {
    use crate::load::load_config;
    use crate::source::SourceFile;

    fn codes(name: &str, text: &str) -> Vec<String> {
        use miette::Diagnostic;
        load_config(&SourceFile::new(name, text), &Default::default())
            .diagnostics
            .iter()
            .map(|d| d.code().map(|c| c.to_string()).unwrap_or_default())
            .collect()
    }

    const VERL_YAML: &str = "# a verl user's own Hydra config\nhydra:\n  searchpath:\n    - pkg://verl/trainer/config\ndefaults:\n  - ppo_trainer\n  - _self_\ntrainer:\n  nnodes: 2\n  n_gpus_per_node: 8\n";

    #[test]
    fn a_yaml_file_is_one_error_that_says_so() {
        // By its first meaningful line, whatever its name, and by its name.
        for name in ["verl_user.yaml", "config.toml", "<stdin>"] {
            assert_eq!(
                codes(name, VERL_YAML),
                ["resource_pool::config::yaml"],
                "{name}"
            );
        }
        assert_eq!(
            codes("x.yml", "- a\n- b: [\n"),
            ["resource_pool::config::yaml"]
        );
        let loaded = load_config(
            &SourceFile::new("verl_user.yaml", VERL_YAML),
            &Default::default(),
        );
        let text = loaded.diagnostics[0].to_string();
        assert_eq!(
            text,
            "`verl_user.yaml` is YAML, not a resource-pool config (TOML)"
        );
        let help = miette::Diagnostic::help(&loaded.diagnostics[0])
            .unwrap()
            .to_string();
        assert!(
            help.contains("resource-pool verl --config verl_user.yaml "),
            "{help}"
        );
        let label = miette::Diagnostic::labels(&loaded.diagnostics[0])
            .unwrap()
            .next()
            .unwrap();
        assert_eq!(
            &VERL_YAML[label.offset()..label.offset() + label.len()],
            "hydra:"
        );
    }

    #[test]
    fn broken_toml_keeps_every_syntax_error() {
        let broken = "[pools.global_pool]\nprocess_on_nodes = [8,\n[mapping\nactor_rollout = \n";
        let found = codes("c.toml", broken);
        assert!(
            !found.is_empty() && found.iter().all(|c| c == "resource_pool::toml::syntax"),
            "{found:?}"
        );
        // A TOML file that parses is read as TOML whatever its name.
        let toml = "[pools.global_pool]\nprocess_on_nodes = [8]\n";
        let found = codes("c.yaml", toml);
        assert!(
            !found
                .iter()
                .any(|c| c.contains("yaml") || c.contains("syntax")),
            "{found:?}"
        );
    }
}
