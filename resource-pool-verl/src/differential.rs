//! What the differential tests share: each holds our reading to a fixture of what Hydra,
//! OmegaConf, bash or a container launcher itself made of a corpus (`data/verl/*.json`),
//! with the cases where we differ on purpose listed with why.

use serde_json::Value as Json;

/// Every problem of `cases` against `exceptions` (each case named by `name`): a case that
/// disagrees (`disagreement`) and is not listed, a listed case that agrees, and a listed
/// case the fixture does not have. A list that stays true either way could not fail.
pub(super) fn problems(
    cases: &[Json],
    exceptions: &[(&str, &str)],
    name: impl Fn(&Json) -> String,
    disagreement: impl Fn(&Json) -> Option<String>,
) -> Vec<String> {
    let names: Vec<String> = cases.iter().map(&name).collect();
    let mut problems = Vec::new();
    for (case, name) in cases.iter().zip(&names) {
        let listed = exceptions.iter().find(|(listed, _)| listed == name);
        match (disagreement(case), listed) {
            (Some(why), None) => problems.push(format!("{name:?}: {why}")),
            (None, Some((_, reason))) => {
                problems.push(format!("{name:?} is listed ({reason}) but agrees"))
            }
            _ => {}
        }
    }
    for (listed, _) in exceptions {
        if !names.iter().any(|name| name == listed) {
            problems.push(format!("{listed:?} is listed but not in the fixture"));
        }
    }
    problems
}

/// A differential test's verdict: fails, listing them, when any of the `total` cases (a
/// fixture's `what`: documents, values) differ from what the real library made of them.
pub(super) fn assert_all_agree(problems: &[String], total: usize, what: &str) {
    assert!(
        problems.is_empty(),
        "{} of {total} {what} differ:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
