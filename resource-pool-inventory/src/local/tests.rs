use super::*;

const H100: &str = include_str!("../../tests/data/local/nvidia-smi-8xh100.csv");
const MALFORMED: &str = include_str!("../../tests/data/local/nvidia-smi-malformed.csv");
const NPU: &str = include_str!("../../tests/data/local/npu-smi-info.txt");
const NPU_MALFORMED: &str = include_str!("../../tests/data/local/npu-smi-malformed.txt");
const MEMINFO: &str = include_str!("../../tests/data/local/meminfo.txt");

fn text_at<'a>(text: &'a str, error: &LocalError) -> &'a str {
    let span = match error {
        LocalError::NvidiaSmi { span, .. }
        | LocalError::NpuSmi { span, .. }
        | LocalError::Meminfo { span, .. } => span,
    };
    &text[span.offset()..span.offset() + span.len()]
}

fn facts() -> LocalFacts {
    LocalFacts {
        hostname: "node-a".into(),
        cpus: 192,
        memory: parse_meminfo(MEMINFO).expect("meminfo"),
        nvidia: None,
        ascend: None,
        cuda_visible_devices: None,
        ascend_rt_visible_devices: None,
    }
}

fn whole(n: u64) -> Amount {
    Amount::from_whole(n).unwrap_or_default()
}

#[test]
fn eight_h100s() {
    let gpus = parse_nvidia_smi(H100).expect("parses");
    assert_eq!(gpus.len(), 8);
    assert_eq!(gpus[7].index, 7);
    assert_eq!(gpus[0].name, "NVIDIA H100 80GB HBM3");
    assert!(gpus[0].uuid.starts_with("GPU-"));
    assert_eq!(gpus[0].memory_mib, Some(81559));
}

#[test]
fn nvidia_smi_tolerates_na_memory_and_blank_lines() {
    let gpus = parse_nvidia_smi("\n0, NVIDIA L4, GPU-1, [N/A]\r\n\n").expect("parses");
    assert_eq!(gpus.len(), 1);
    assert_eq!(gpus[0].memory_mib, None);
    assert_eq!(parse_nvidia_smi(""), Ok(vec![]));
}

#[test]
fn malformed_nvidia_smi_points_at_each_bad_field() {
    let errors = parse_nvidia_smi(MALFORMED).expect_err("malformed");
    let texts: Vec<&str> = errors.iter().map(|e| text_at(MALFORMED, e)).collect();
    assert_eq!(
        texts,
        [
            "x1",
            "81559 MiB",
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
            "3"
        ],
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .all(|e| matches!(e, LocalError::NvidiaSmi { .. }))
    );
}

#[test]
fn eight_ascend_910b() {
    let cards = parse_npu_smi(NPU).expect("parses");
    assert_eq!(cards.len(), 8);
    assert_eq!(cards[3].npu_id, 3);
    assert_eq!(cards[0].chips, 1);
    assert_eq!(cards[0].product.as_deref(), Some("Ascend 910B3"));
}

#[test]
fn npu_smi_spacing_and_missing_chip_count() {
    let cards = parse_npu_smi("Total Count:2\nNPU ID:4\n\tNPU ID   :   5\n Chip Count : 2\n")
        .expect("parses");
    assert_eq!(cards.iter().map(|c| c.chips).collect::<Vec<_>>(), [1, 2]);
}

#[test]
fn malformed_npu_smi_points_at_each_bad_line() {
    let errors = parse_npu_smi(NPU_MALFORMED).expect_err("malformed");
    let texts: Vec<&str> = errors.iter().map(|e| text_at(NPU_MALFORMED, e)).collect();
    assert_eq!(
        texts,
        ["one", "dcmi module initialize failed. ret is -8005"],
        "{errors:?}"
    );
    let mismatch = parse_npu_smi("Total Count : 2\nNPU ID : 0\n").expect_err("mismatch");
    assert!(
        mismatch[0].to_string().contains("Total Count is 2"),
        "{mismatch:?}"
    );
    let orphan = parse_npu_smi("Chip Count : 1\n").expect_err("orphan");
    assert!(orphan[0].to_string().contains("before any"), "{orphan:?}");
}

#[test]
fn meminfo_reads_total_and_available() {
    let memory = parse_meminfo(MEMINFO).expect("parses");
    assert_eq!(memory.total_bytes, 2_113_523_456 * 1024);
    assert_eq!(memory.available_bytes, 2_021_883_152 * 1024);
    let old_kernel = parse_meminfo("MemTotal: 100 kB\nMemFree: 40 kB\n").expect("old");
    assert_eq!(old_kernel.available_bytes, 40 * 1024);
}

#[test]
fn malformed_meminfo() {
    let text = "MemTotal:  lots\nMemAvailable: 5 kB\n";
    let errors = parse_meminfo(text).expect_err("bad");
    assert_eq!(text_at(text, &errors[0]), "lots");
    let missing = parse_meminfo("MemFree: 4 kB\n").expect_err("missing");
    assert!(missing[0].to_string().contains("MemTotal"), "{missing:?}");
    let huge = "MemTotal: 99999999999999999 kB\nMemAvailable: 1 kB\n";
    assert_eq!(
        text_at(huge, &parse_meminfo(huge).expect_err("huge")[0]),
        "99999999999999999 kB"
    );
    assert!(parse_meminfo("no colon here\n").is_err());
}

#[test]
fn visible_devices_count_like_ray() {
    assert_eq!(visible_count(None), None);
    assert_eq!(visible_count(Some("")), Some(0));
    assert_eq!(visible_count(Some("NoDevFiles")), Some(0));
    assert_eq!(visible_count(Some("0,1,2")), Some(3));
    assert_eq!(visible_count(Some("GPU-abc")), Some(1));
}

#[test]
fn gpu_node() {
    let mut facts = facts();
    facts.nvidia = parse_nvidia_smi(H100).ok();
    let inventory = local_inventory(&facts);
    assert!(inventory.notes.is_empty(), "{:?}", inventory.notes);
    let node = &inventory.cluster.nodes[0];
    assert_eq!(node.id, "node-a");
    assert!(node.alive);
    let total = node.total.as_ref().expect("total");
    assert_eq!(total.get("GPU"), whole(8));
    assert_eq!(total.get("NPU"), Amount::ZERO);
    assert_eq!(total.get("CPU"), whole(192));
    assert_eq!(total.get("memory"), whole(facts.memory.total_bytes));
    assert_eq!(
        node.available.get("memory"),
        whole(facts.memory.available_bytes)
    );
    assert_eq!(
        node.labels.get("gpu_product").map(String::as_str),
        Some("NVIDIA H100 80GB HBM3")
    );

    facts.cuda_visible_devices = Some("0,1,2,3".into());
    let node = &local_inventory(&facts).cluster.nodes[0];
    assert_eq!(node.available.get("GPU"), whole(4));
    facts.cuda_visible_devices = Some((0..12).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
    let node = &local_inventory(&facts).cluster.nodes[0];
    assert_eq!(node.available.get("GPU"), whole(8));
}

#[test]
fn mixed_gpus_get_no_product_label() {
    let mut facts = facts();
    facts.nvidia =
        parse_nvidia_smi("0, NVIDIA A100-SXM4-80GB, GPU-a, 81920\n1, NVIDIA L4, GPU-b, 23034\n")
            .ok();
    let node = &local_inventory(&facts).cluster.nodes[0];
    assert_eq!(node.available.get("GPU"), whole(2));
    assert!(!node.labels.contains_key("gpu_product"));
}

#[test]
fn npu_node() {
    let mut facts = facts();
    facts.nvidia = Some(vec![]);
    facts.ascend = parse_npu_smi(NPU).ok();
    let inventory = local_inventory(&facts);
    assert!(inventory.notes.is_empty());
    let node = &inventory.cluster.nodes[0];
    assert_eq!(node.available.get("NPU"), whole(8));
    assert_eq!(node.available.get("GPU"), Amount::ZERO);
    assert_eq!(
        node.labels.get("npu_product").map(String::as_str),
        Some("Ascend 910B3")
    );
    facts.ascend_rt_visible_devices = Some("0,1".into());
    assert_eq!(
        local_inventory(&facts).cluster.nodes[0]
            .available
            .get("NPU"),
        whole(2)
    );
}

#[test]
fn no_accelerator_says_why() {
    let inventory = local_inventory(&facts());
    let node = &inventory.cluster.nodes[0];
    assert_eq!(node.available.get("GPU"), Amount::ZERO);
    assert_eq!(
        inventory.notes,
        [InventoryNote::NoLocalAccelerators {
            reason: "nvidia-smi is not installed; npu-smi is not installed".into()
        }]
    );
    let mut hidden = facts();
    hidden.nvidia = parse_nvidia_smi(H100).ok();
    hidden.cuda_visible_devices = Some(String::new());
    let notes = local_inventory(&hidden).notes;
    assert!(
        notes[0]
            .to_string()
            .contains("CUDA_VISIBLE_DEVICES hides all 8 GPUs"),
        "{notes:?}"
    );
}

proptest::proptest! {
    #[test]
    fn parsers_never_panic_and_spans_stay_inside(text in "(?s).{0,300}") {
        let check = |errors: Vec<LocalError>| {
            for e in &errors {
                let span = match e {
                    LocalError::NvidiaSmi { span, .. }
                    | LocalError::NpuSmi { span, .. }
                    | LocalError::Meminfo { span, .. } => *span,
                };
                assert!(span.offset() + span.len() <= text.len());
                assert!(text.is_char_boundary(span.offset()));
                assert!(text.is_char_boundary(span.offset() + span.len()));
            }
        };
        if let Err(e) = parse_nvidia_smi(&text) { check(e) }
        if let Err(e) = parse_npu_smi(&text) { check(e) }
        if let Err(e) = parse_meminfo(&text) { check(e) }
    }

    #[test]
    fn parsers_never_panic_on_near_valid_lines(
        lines in proptest::collection::vec("[0-9a-zA-Z :,\\[\\]/-]{0,40}", 0..20)
    ) {
        let text = lines.join("\n");
        let _ = parse_nvidia_smi(&text);
        let _ = parse_npu_smi(&text);
        let _ = parse_meminfo(&text);
    }
}
