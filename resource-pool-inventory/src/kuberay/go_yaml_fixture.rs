//! What the differential tests against go-yaml share: a fixture of documents that
//! `scripts/kuberay-yaml-*` loaded with go-yaml v2.4.0 (each `yaml`, and go-yaml's `error`
//! or null), read here with [`parse_documents`] and held to it.

use serde_json::Value as Json;

use super::tree::{Node, parse_documents};

/// The documents of a fixture, checked to come from go-yaml v2.4.0 (the reader
/// `sigs.k8s.io/yaml` copies), at least `at_least` of them.
pub(super) fn go_yaml_documents(fixture: &str, at_least: usize) -> Vec<Json> {
    let fixture: Json = serde_json::from_str(fixture).expect("fixture");
    assert!(
        fixture["go_yaml"]
            .as_str()
            .is_some_and(|v| v.starts_with("gopkg.in/yaml.v2 2.4.0"))
    );
    let documents = fixture["documents"].as_array().expect("documents").clone();
    assert!(documents.len() >= at_least, "{}", documents.len());
    documents
}

/// Asserts that every document reads here as go-yaml read it: refused on both sides, or
/// read on both and `differ` (given go-yaml's record and our documents) says nothing.
pub(super) fn assert_all_agree_with_go_yaml(
    documents: &[Json],
    differ: impl Fn(&Json, &[Node]) -> Option<String>,
) {
    let problems: Vec<String> = documents
        .iter()
        .filter_map(|case| {
            let yaml = case["yaml"].as_str().expect("yaml");
            let problem = match (parse_documents(yaml), case["error"].as_str()) {
                (Err(_), Some(_)) => return None,
                (Ok(_), Some(error)) => format!("go-yaml refuses it ({error}), we read it"),
                (Err(e), None) => format!("go-yaml reads it, we refuse it: {}", e.message),
                (Ok(docs), None) => differ(case, &docs)?,
            };
            Some(format!("{yaml:?}\n  {problem}"))
        })
        .collect();
    assert!(
        problems.is_empty(),
        "{} of {} documents differ:\n{}",
        problems.len(),
        documents.len(),
        problems.join("\n")
    );
}
