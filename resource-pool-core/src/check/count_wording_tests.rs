//! The check's messages agree with their counts (`1 node-slot asks`, `2 node-slots ask`),
//! through [`crate::words`].

use crate::model::Amount;

fn whole(n: u64) -> Amount {
    Amount::from_units(n * Amount::SCALE)
}

#[test]
fn cluster_findings_agree_with_their_counts() {
    use crate::check::ClusterFinding;
    let too_few = |alive, needed, dead| {
        ClusterFinding::TooFewAliveNodes {
            alive,
            needed,
            dead,
            listed_by: crate::check::ClusterWording::default(),
            written: crate::check::LayoutWording::default(),
        }
        .to_string()
    };
    assert_eq!(
        too_few(1, 3, 2),
        "the config needs at least 3 nodes, but only 1 is alive (2 nodes are dead)"
    );
    assert_eq!(
        too_few(2, 3, 1),
        "the config needs at least 3 nodes, but only 2 are alive (1 node is dead)"
    );
    assert_eq!(
        too_few(0, 1, 0),
        "the config needs at least 1 node, but none is alive"
    );
    let mismatch = |slots| {
        ClusterFinding::AcceleratorMismatch {
            wanted: "GPU".into(),
            found: "NPU".into(),
            slots,
            written: crate::check::LayoutWording::default(),
        }
        .to_string()
    };
    assert_eq!(
        mismatch(1),
        "1 node-slot asks for GPU, but the alive nodes have NPU and no GPU"
    );
    assert_eq!(
        mismatch(2),
        "2 node-slots ask for GPU, but the alive nodes have NPU and no GPU"
    );
    let missing = |slots| {
        ClusterFinding::MissingResource {
            resource: "H100".into(),
            slots,
        }
        .to_string()
    };
    assert_eq!(
        missing(1),
        "1 node-slot asks for `H100`, which no alive node declares"
    );
    assert_eq!(
        missing(3),
        "3 node-slots ask for `H100`, which no alive node declares"
    );
}

#[test]
fn placement_findings_agree_with_their_counts() {
    use miette::Diagnostic;

    use crate::check::CheckDiagnostic;
    use crate::check::diagnostics::{SearchLimit, SlotAdvice, SlotList};
    let unfit = |slots: Vec<usize>| {
        CheckDiagnostic::SlotFitsNoNode {
            pool: "global_pool".into(),
            slots,
            demand: crate::test_support::res(8, 24),
            nearest: None,
            idle: None,
            listed_by: crate::check::ClusterWording::default(),
            written: crate::check::LayoutWording::default(),
            advice: Vec::new(),
            span: None,
        }
        .to_string()
    };
    assert!(
        unfit(vec![0]).starts_with(
            "node-slot 0 of pool `global_pool` ({CPU: 24, GPU: 8}) fits no alive node"
        ),
        "{}",
        unfit(vec![0])
    );
    assert!(
        unfit(vec![0, 1]).starts_with(
            "node-slots 0, 1 of pool `global_pool` ({CPU: 24, GPU: 8}) fit no alive node"
        ),
        "{}",
        unfit(vec![0, 1])
    );
    // Past eight, the rest are counted rather than left out silently.
    assert!(
        unfit((0..10).collect())
            .starts_with("node-slots 0, 1, 2, 3, 4, 5, 6, 7 and 2 more of pool"),
        "{}",
        unfit((0..10).collect())
    );
    let together = |fits, total| {
        CheckDiagnostic::NotTogether {
            fits,
            total,
            idle: None,
            listed_by: crate::check::ClusterWording::default(),
            written: crate::check::LayoutWording::default(),
            left_out: SlotList::default(),
            span: None,
        }
        .to_string()
    };
    assert_eq!(
        together(1, 3),
        "the node-slots do not fit together: at most 1 of 3 was found to fit"
    );
    assert_eq!(
        together(2, 3),
        "the node-slots do not fit together: at most 2 of 3 were found to fit"
    );
    let undecided = CheckDiagnostic::Undecided {
        limit: SearchLimit::Steps,
        fits: 0,
        total: 1,
    };
    let help = undecided.help().map(|h| h.to_string()).unwrap_or_default();
    assert!(help.ends_with("holds 0 of 1 node-slot"), "{help}");
    let too_large = SlotAdvice::TooLarge {
        resource: "GPU".into(),
        needed: whole(1),
    };
    assert!(too_large.to_string().starts_with("no node has 1 GPU free"));
    let cpus = SlotAdvice::Cpus {
        needed: whole(1),
        per_bundle: 1,
    };
    assert!(cpus.to_string().starts_with("1 CPU needed (1 per bundle)"));
    let type_name = |nodes, alive| {
        crate::check::AcceleratorTypeName {
            pool: "p".into(),
            asked: "H100".into(),
            declared: "accelerator_type:H100".into(),
            nodes,
            alive,
            span: None,
        }
        .to_string()
    };
    assert!(
        type_name(1, 1).ends_with("1 of 1 alive node declares `accelerator_type:H100`"),
        "{}",
        type_name(1, 1)
    );
    assert!(
        type_name(2, 3).ends_with("2 of 3 alive nodes declare `accelerator_type:H100`"),
        "{}",
        type_name(2, 3)
    );
}
