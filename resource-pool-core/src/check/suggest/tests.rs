//! Unit tests of the suggestion search on the cases of issue 21.

use super::*;
use crate::model::PoolSpec;
use crate::test_support::node;

fn pools(specs: &[(&str, Vec<u32>)]) -> Vec<ResourcePool> {
    specs
        .iter()
        .map(|(n, s)| ResourcePool::new(*n, PoolSpec::with_slots(s.clone())))
        .collect()
}

fn found(result: &SearchResult) -> Vec<Vec<u32>> {
    match result {
        SearchResult::Found(s) => s
            .pools
            .iter()
            .map(|p| p.spec.process_on_nodes.clone())
            .collect(),
        other => panic!("expected a layout, got {other:?}"),
    }
}

#[test]
fn a_list_loses_slots_from_the_end() {
    let cluster = Cluster::new(vec![node("a", 8, 32), node("b", 8, 32)]);
    let p = pools(&[("global_pool", vec![8, 8, 8])]);
    let (result, _) = search(&p, &[Reshape::Trim], &cluster, &SuggestOptions::default());
    assert_eq!(found(&result), [vec![8, 8]]);
}

#[test]
fn a_split_pool_takes_another_whole_split_of_the_node() {
    // 8 nodes of 4 free GPUs; 8 × 3 asked: 4 × 6 places the same 24 GPUs.
    let cluster = Cluster::new((0..8).map(|i| node(&format!("n{i}"), 4, 16)).collect());
    let p = pools(&[("global_pool", vec![8, 8, 8])]);
    let (result, _) = search(&p, &[Reshape::Split], &cluster, &SuggestOptions::default());
    assert_eq!(found(&result), [vec![4; 6]]);
    let (trimmed, _) = search(&p, &[Reshape::Trim], &cluster, &SuggestOptions::default());
    assert_eq!(trimmed, SearchResult::NoneFits);
}
