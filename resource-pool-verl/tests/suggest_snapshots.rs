//! Suggestions in verl's settings: the check's diagnostics, then the suggestion's, as the
//! CLI renders them, then the suggestion diagnostics' data (what `--format json` carries).

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme};
use resource_pool_core::check::suggest::{
    LayoutTerms, SearchResult, SuggestOptions, Suggestions, suggest, wanted,
};
use resource_pool_core::check::{CheckOptions, CheckReport, check};
use resource_pool_core::config::OVERRIDES_NAME;
use resource_pool_core::source::SourceFile;
use resource_pool_core::{Cluster, ResourcePoolManager, RoleName};
use resource_pool_inventory::cluster_file::{ClusterLimits, load_cluster};
use resource_pool_verl::hydra::command_line;

fn render(source: &SourceFile, diagnostics: Vec<Box<dyn Diagnostic + Send + Sync>>) -> String {
    let handler =
        GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor()).with_width(100);
    let mut out = String::new();
    for d in diagnostics {
        let report = miette::Report::new_boxed(d).with_source_code(source.clone());
        handler
            .render_report(&mut out, report.as_ref())
            .expect("rendering to a String cannot fail");
    }
    out
}

fn cluster(text: &str) -> Cluster {
    load_cluster(
        &SourceFile::new("cluster.toml", text),
        &ClusterLimits::default(),
    )
    .cluster
    .expect("valid cluster")
}

fn nodes(list: &[(&str, u32, u32)]) -> String {
    list.iter()
        .map(|(id, gpu, cpu)| {
            format!("[[nodes]]\nid = \"{id}\"\navailable = {{ GPU = {gpu}, CPU = {cpu} }}\n")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The whole text of one case: the check's diagnostics and the suggestion's, rendered
/// against `source`, then the suggestion diagnostics' data.
fn case(
    source: &SourceFile,
    report: &CheckReport,
    suggestions: &Suggestions,
    terms: &dyn LayoutTerms,
) -> String {
    let mut all: Vec<Box<dyn Diagnostic + Send + Sync>> = report
        .diagnostics
        .iter()
        .cloned()
        .map(|d| Box::new(d) as Box<dyn Diagnostic + Send + Sync>)
        .collect();
    let advice = suggestions.diagnostics(terms);
    let data = serde_json::to_string_pretty(&advice).expect("serialisable");
    all.extend(
        advice
            .into_iter()
            .map(|d| Box::new(d) as Box<dyn Diagnostic + Send + Sync>),
    );
    format!("{}--- data ---\n{data}\n", render(source, all))
}

fn suggestion_labels(suggestions: &Suggestions, terms: &dyn LayoutTerms) -> Vec<(usize, String)> {
    let advice = suggestions.diagnostics(terms);
    let labels = advice.first().and_then(|d| d.labels());
    labels
        .into_iter()
        .flatten()
        .map(|l| (l.offset(), l.label().unwrap_or_default().to_owned()))
        .collect()
}

fn verl_case(
    overrides: &[&str],
    cluster_text: &str,
) -> (Suggestions, String, resource_pool_verl::VerlSettings) {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let loaded = resource_pool_verl::load_verl(None, &overrides, 1_000_000);
    let layout = loaded.layout.as_ref().expect("verl builds a layout");
    let mapping: Vec<(RoleName, &str)> = layout
        .mapping
        .iter()
        .map(|(role, pool)| (RoleName((*role).to_owned()), *pool))
        .collect();
    let manager = ResourcePoolManager::new(layout.pools.clone(), mapping).expect("valid");
    let cluster = cluster(cluster_text);
    let report = check(
        &manager,
        &cluster,
        &loaded.settings,
        &CheckOptions::default(),
    );
    assert!(wanted(&report, &loaded.settings));
    let suggestions = suggest(
        &report,
        &cluster,
        &loaded.settings,
        &SuggestOptions::default(),
    );
    let source =
        SourceFile::new(OVERRIDES_NAME, "").with_layer(OVERRIDES_NAME, &command_line(&overrides));
    let text = case(&source, &report, &suggestions, &loaded.settings);
    (suggestions, text, loaded.settings)
}

fn found_overrides(suggestions: &Suggestions) -> Vec<String> {
    match &suggestions.answers[0].result {
        SearchResult::Found(s) => s.overrides.clone(),
        other => panic!("no layout: {other:?}"),
    }
}

#[test]
fn verl_overrides_split_the_node() {
    let nodes_text = nodes(
        &(0..8)
            .map(|i| (["n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"][i], 4, 16))
            .collect::<Vec<_>>(),
    );
    let (suggestions, text, _) = verl_case(
        &["trainer.n_gpus_per_node=8", "trainer.nnodes=3"],
        &nodes_text,
    );
    assert_eq!(
        found_overrides(&suggestions),
        ["trainer.n_gpus_per_node=4", "trainer.nnodes=6"]
    );
    insta::assert_snapshot!(text);
}

#[test]
fn verl_overrides_trim_nnodes() {
    let (suggestions, text, _) = verl_case(
        &["trainer.n_gpus_per_node=8", "trainer.nnodes=3"],
        &nodes(&[("node-a", 8, 32), ("node-b", 8, 32)]),
    );
    assert_eq!(found_overrides(&suggestions), ["trainer.nnodes=2"]);
    insta::assert_snapshot!(text);
}

#[test]
fn verl_overrides_of_the_reward_pool() {
    // verl's hang (global_pool's 4 takes the big node; the reward pool's 8 pends) that no
    // order can fix, since verl creates global_pool first: the reward pool splits in two.
    let (suggestions, text, _) = verl_case(
        &[
            "trainer.n_gpus_per_node=4",
            "reward_model.enable=True",
            "reward_model.enable_resource_pool=True",
            "reward_model.n_gpus_per_node=8",
            "reward_model.nnodes=1",
        ],
        "[[nodes]]\nid = \"big\"\navailable = { GPU = 8, CPU = 32 }\n\n[[nodes]]\nid = \"small\"\navailable = { GPU = 4, CPU = 16 }\n",
    );
    assert_eq!(
        found_overrides(&suggestions),
        ["reward_model.n_gpus_per_node=4", "reward_model.nnodes=2"]
    );
    insta::assert_snapshot!(text);
}

#[test]
fn verl_overrides_of_the_node_size_alone_are_labelled_there() {
    // Two nodes of 4 GPUs; 8 × 2 asked: 4 × 2 places, and only `n_gpus_per_node` changes,
    // so the label is on it, not on `trainer.nnodes`, which stays 2.
    let (suggestions, _, settings) = verl_case(
        &["trainer.n_gpus_per_node=8", "trainer.nnodes=2"],
        &nodes(&[("node-a", 4, 32), ("node-b", 4, 32)]),
    );
    assert_eq!(found_overrides(&suggestions), ["trainer.n_gpus_per_node=4"]);
    let key = |path| {
        let id = resource_pool_verl::keys::key_id(path).expect("a key");
        settings.span(id).expect("given").offset()
    };
    assert_eq!(
        suggestion_labels(&suggestions, &settings),
        [(key("trainer.n_gpus_per_node"), "change this".to_owned())]
    );
}

#[test]
fn verl_suggestions_that_change_only_defaults_keep_a_place() {
    // `n_gpus_per_node` is verl's default (8) and is the only key that changes: it has no
    // place of its own, so the suggestion is labelled where the pool's slots are.
    let (suggestions, _, settings) = verl_case(
        &["trainer.nnodes=2"],
        &nodes(&[("node-a", 4, 32), ("node-b", 4, 32)]),
    );
    assert_eq!(found_overrides(&suggestions), ["trainer.n_gpus_per_node=4"]);
    assert!(
        !suggestion_labels(&suggestions, &settings).is_empty(),
        "a suggestion without a place"
    );
}
