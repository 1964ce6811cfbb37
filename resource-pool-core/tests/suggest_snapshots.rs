//! One snapshot per case of issue 21: the check's diagnostics, then the suggestion's, as
//! the CLI renders them, then the suggestion diagnostics' data (what `--format json`
//! carries).

mod common;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme};
use resource_pool_core::Cluster;
use resource_pool_core::check::suggest::{
    LayoutTerms, SearchResult, SuggestOptions, Suggestions, suggest, wanted,
};
use resource_pool_core::check::{CheckDiagnostic, CheckOptions, CheckReport, check};
use resource_pool_core::load::load_config;
use resource_pool_core::source::SourceFile;

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
    common::cluster_from_toml(text)
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

fn config_case(config: &str, cluster_text: &str) -> (CheckReport, Suggestions, String) {
    let source = common::source("pools.toml", config);
    let loaded = load_config(&source, &common::lint_options());
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    let cluster = cluster(cluster_text);
    let manager = loaded.manager.as_ref().expect("valid");
    let report = check(manager, &cluster, &loaded, &CheckOptions::default());
    assert!(wanted(&report, &loaded), "the case wants a suggestion");
    let suggestions = suggest(&report, &cluster, &loaded, &SuggestOptions::default());
    let text = case(&source, &report, &suggestions, &loaded);
    (report, suggestions, text)
}

fn layout(suggestions: &Suggestions, answer: usize) -> Vec<Vec<u32>> {
    match &suggestions.answers[answer].result {
        SearchResult::Found(s) => s
            .pools
            .iter()
            .map(|p| p.spec.process_on_nodes.clone())
            .collect(),
        other => panic!("no layout: {other:?}"),
    }
}

const MAPPING: &str = "\n[mapping]\nactor_rollout = \"global_pool\"\nrm = \"reward_pool\"\n";

#[test]
fn slot_fits_no_node_splits_the_node_slot() {
    let config = "[pools.global_pool]\ngpus_per_node = 8\nnnodes = 2\n\n[mapping]\nactor_rollout = \"global_pool\"\n";
    let (_, suggestions, text) = config_case(
        config,
        &nodes(&[("n0", 4, 16), ("n1", 4, 16), ("n2", 4, 16), ("n3", 4, 16)]),
    );
    assert_eq!(layout(&suggestions, 0), [vec![4; 4]]);
    insta::assert_snapshot!(text);
}

#[test]
fn slot_fits_no_node_of_a_list_has_no_smaller_layout() {
    let config = "[pools.global_pool]\nprocess_on_nodes = [8, 8]\n\n[mapping]\nactor_rollout = \"global_pool\"\n";
    let (_, suggestions, text) = config_case(config, &nodes(&[("n0", 4, 16), ("n1", 4, 16)]));
    assert_eq!(suggestions.answers[0].result, SearchResult::NoneFits);
    insta::assert_snapshot!(text);
}

#[test]
fn resource_runs_out_trims_the_list() {
    let config = format!(
        "[pools.global_pool]\nprocess_on_nodes = [8, 8, 8]\n{}",
        "\n[mapping]\nactor_rollout = \"global_pool\"\n"
    );
    let (_, suggestions, text) =
        config_case(&config, &nodes(&[("node-a", 8, 32), ("node-b", 8, 32)]));
    assert_eq!(layout(&suggestions, 0), [vec![8, 8]]);
    insta::assert_snapshot!(text);
}

#[test]
fn fragmentation_keeps_the_earliest_pool_whole_when_it_can() {
    // Every slot fits alone and 12 GPUs are free, but three 4s do not go on two nodes of
    // 6: the reward pool keeps its slot, global_pool loses one.
    let config = format!(
        "[pools.global_pool]\nprocess_on_nodes = [4, 4]\n\n[pools.reward_pool]\nprocess_on_nodes = [4]\n{MAPPING}"
    );
    let (_, suggestions, text) =
        config_case(&config, &nodes(&[("node-a", 6, 96), ("node-b", 6, 96)]));
    assert_eq!(layout(&suggestions, 0), [vec![4], vec![4]]);
    insta::assert_snapshot!(text);
}

#[test]
fn ray_hang_that_no_order_fixes() {
    // One pool: no other order; the two 4s spread and the 8 pends, though 4+4 | 8 fits.
    let config = "[pools.global_pool]\nprocess_on_nodes = [4, 4, 8]\n\n[mapping]\nactor_rollout = \"global_pool\"\n";
    let (report, suggestions, text) =
        config_case(config, &nodes(&[("node-a", 8, 32), ("node-b", 8, 32)]));
    assert_eq!(report.feasible(), Some(true));
    assert_eq!(layout(&suggestions, 0), [vec![4, 4]]);
    insta::assert_snapshot!(text);
}

#[test]
fn a_hang_that_an_order_fixes_gets_no_suggestion() {
    let config = "[pools.reward_pool]\nprocess_on_nodes = [4]\n\n[pools.global_pool]\nprocess_on_nodes = [8]\n\n[mapping]\nrm = \"reward_pool\"\nactor_rollout = \"global_pool\"\n";
    let source = common::source("pools.toml", config);
    let loaded = load_config(&source, &common::lint_options());
    let cluster = cluster(&nodes(&[("big", 8, 32), ("small", 4, 16)]));
    let report = loaded.manager.as_ref().expect("valid").check(&cluster);
    assert!(!report.passes());
    assert!(!wanted(&report, &loaded), "reordering the pools fixes it");
}

#[test]
fn busy_now_and_idle() {
    // node-b's 4 GPUs are held by other work: now one 8 fits; idle, both do.
    let config = "[pools.global_pool]\nprocess_on_nodes = [8, 8]\n\n[mapping]\nactor_rollout = \"global_pool\"\n";
    let cluster_text = "[[nodes]]\nid = \"node-a\"\navailable = { GPU = 8, CPU = 96 }\ntotal = { GPU = 8, CPU = 96 }\n\n[[nodes]]\nid = \"node-b\"\navailable = { GPU = 4, CPU = 84 }\ntotal = { GPU = 8, CPU = 96 }\n";
    let (_, suggestions, text) = config_case(config, cluster_text);
    assert_eq!(layout(&suggestions, 0), [vec![8]]);
    assert_eq!(layout(&suggestions, 1), [vec![8, 8]]);
    insta::assert_snapshot!(text);
}

#[test]
fn accelerator_type_name() {
    let config = "[pools.global_pool]\nprocess_on_nodes = [8]\naccelerator_type = \"h100\"\n\n[mapping]\nactor_rollout = \"global_pool\"\n";
    let cluster_text = "[[nodes]]\nid = \"node-a\"\navailable = { GPU = 8, CPU = 32, \"accelerator_type:H100\" = 1 }\n\n[[nodes]]\nid = \"node-b\"\navailable = { GPU = 8, CPU = 32 }\n";
    let (report, suggestions, text) = config_case(config, cluster_text);
    assert!(matches!(
        report.diagnostics.as_slice(),
        [CheckDiagnostic::AcceleratorTypeName(_)]
    ));
    assert_eq!(suggestions.answers[0].result, SearchResult::NoneFits);
    insta::assert_snapshot!(text);
}

/// Where the labels of the first suggestion diagnostic point (offsets), and what they say.
fn suggestion_labels(suggestions: &Suggestions, terms: &dyn LayoutTerms) -> Vec<(usize, String)> {
    let advice = suggestions.diagnostics(terms);
    let labels = advice.first().and_then(|d| d.labels());
    labels
        .into_iter()
        .flatten()
        .map(|l| (l.offset(), l.label().unwrap_or_default().to_owned()))
        .collect()
}

#[test]
fn a_split_that_only_drops_nodes_is_labelled_at_nnodes() {
    // Three nodes of 4 GPUs; 4 × 4 asked: 4 × 3 places, and only `nnodes` changes, so the
    // label is there and not at `gpus_per_node` (which also reads 4).
    let config = "[pools.global_pool]\ngpus_per_node = 4\nnnodes = 4\n\n[mapping]\nactor_rollout = \"global_pool\"\n";
    let source = common::source("pools.toml", config);
    let loaded = load_config(&source, &common::lint_options());
    let (_, suggestions, text) = config_case(
        config,
        &nodes(&[("n0", 4, 16), ("n1", 4, 16), ("n2", 4, 16)]),
    );
    assert_eq!(layout(&suggestions, 0), [vec![4; 3]]);
    let nnodes = config.find("nnodes = 4").expect("written") + "nnodes = ".len();
    assert_eq!(
        suggestion_labels(&suggestions, &loaded),
        [(nnodes, "change this".to_owned())]
    );
    insta::assert_snapshot!(text);
}

#[test]
fn an_exhausted_budget_says_undecided() {
    let config = "[pools.global_pool]\ngpus_per_node = 8\nnnodes = 2\n\n[mapping]\nactor_rollout = \"global_pool\"\n";
    let source = common::source("pools.toml", config);
    let loaded = load_config(&source, &common::lint_options());
    let cluster = cluster(&nodes(&[
        ("n0", 4, 16),
        ("n1", 4, 16),
        ("n2", 4, 16),
        ("n3", 4, 16),
    ]));
    let report = loaded.manager.as_ref().expect("valid").check(&cluster);
    let tight = SuggestOptions {
        max_steps: 3,
        ..SuggestOptions::default()
    };
    let suggestions = suggest(&report, &cluster, &loaded, &tight);
    assert!(matches!(
        suggestions.answers[0].result,
        SearchResult::Undecided { .. }
    ));
    insta::assert_snapshot!(case(&source, &report, &suggestions, &loaded));
}
