//! Inventories other than Ray and cluster files: `--slurm`.

use crate::common;

use common::run_with_stdin as run;

#[test]
fn inventory_slurm_prints_cluster_toml() {
    let output = run(
        &[
            "inventory",
            "--slurm",
            "resource-pool-inventory/tests/data/slurm/nodes.json",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(0));
    let toml = String::from_utf8_lossy(&output.stdout);
    insta::assert_snapshot!("inventory_slurm", toml);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("gpu03"), "{stderr}");
    assert!(stderr.contains("nvidia-smi reports XID 79"), "{stderr}");
    // The remedy is Slurm's, not Ray's.
    assert!(
        stderr.contains("`scontrol update nodename=gpu03 state=resume`"),
        "{stderr}"
    );
    assert!(!stderr.contains("raylet"), "{stderr}");
}

#[test]
fn slurm_from_stdin_is_the_same() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("resource-pool-inventory/tests/data/slurm/nodes.json"),
    )
    .expect("data");
    let piped = run(&["inventory", "--slurm", "-"], Some(&text));
    let file = run(
        &[
            "inventory",
            "--slurm",
            "resource-pool-inventory/tests/data/slurm/nodes.json",
        ],
        None,
    );
    assert_eq!(piped.status.code(), Some(0));
    assert_eq!(piped.stdout, file.stdout);
}

#[test]
fn malformed_slurm_is_reported_with_spans() {
    let output = run(
        &[
            "inventory",
            "--slurm",
            "resource-pool-inventory/tests/data/slurm/bad_gres.json",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    insta::assert_snapshot!("inventory_slurm_bad_gres", stderr);
    assert!(
        stderr.contains("resource_pool::slurm::bad_gres"),
        "{stderr}"
    );
    assert!(stderr.contains("resource_pool::slurm::shape"), "{stderr}");
}

#[test]
fn check_against_slurm() {
    // gpu01 has 6 GPUs free, gpu02 has 6: one 8-GPU slot fits nowhere now.
    let output = run(
        &[
            "check",
            "examples/configs/single_node.toml",
            "--slurm",
            "resource-pool-inventory/tests/data/slurm/nodes.json",
        ],
        None,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("slot_fits_no_node"), "{stderr}");
    assert!(stderr.contains("gpu03"), "{stderr}");
}

#[test]
fn slurm_conflicts_with_cluster() {
    let output = run(
        &[
            "inventory",
            "--slurm",
            "-",
            "--cluster",
            "examples/clusters/x.toml",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
}

/// The sample clusters of `examples/clusters/` read without a problem.
#[test]
fn every_example_cluster_loads() {
    for entry in
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/clusters")).unwrap()
    {
        let path = entry.unwrap().path();
        let source = resource_pool::source::SourceFile::read(&path, Default::default()).unwrap();
        let loaded = resource_pool::inventory::cluster_file::load_cluster(
            &source,
            &resource_pool::inventory::cluster_file::ClusterLimits::default(),
        );
        assert!(
            loaded.diagnostics.is_empty(),
            "{}: {:?}",
            path.display(),
            loaded.diagnostics
        );
        assert!(!loaded.cluster.unwrap().nodes.is_empty());
    }
}
