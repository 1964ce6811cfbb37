use super::read::{custom_resources, is_gpu_key};
use super::*;
use resource_pool_core::model::Amount;

macro_rules! manifest {
    ($name:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/kuberay/",
            $name
        ))
    };
}

const GPU: &str = manifest!("gpu.yaml");
const NPU: &str = manifest!("npu.yaml");
const CUSTOM: &str = manifest!("custom.yaml");
const BAD: &str = manifest!("bad.yaml");
const GPU_JSON: &str = manifest!("raycluster-gpu.json");
const ANCHORS: &str = manifest!("anchors.yaml");

fn whole(n: u64) -> Amount {
    Amount::from_whole(n).unwrap_or_default()
}

fn res(pairs: &[(&str, u64)]) -> Resources {
    pairs.iter().map(|&(name, n)| (name, whole(n))).collect()
}

/// (id, total) of each node.
fn nodes(text: &str, replicas: Replicas) -> Vec<(String, Resources)> {
    let options = KubeRayOptions {
        replicas,
        ..KubeRayOptions::default()
    };
    let inventory = kuberay_inventory(text, &options).unwrap_or_else(|e| panic!("{e:?}"));
    inventory
        .cluster
        .nodes
        .iter()
        .map(|n| {
            assert_eq!(n.total.as_ref(), Some(&n.available), "idle: {}", n.id);
            assert!(n.alive);
            (n.id.clone(), n.available.clone())
        })
        .collect()
}

fn codes(errors: &[KubeRayError]) -> Vec<String> {
    errors
        .iter()
        .map(|e| {
            miette::Diagnostic::code(e)
                .map(|c| c.to_string())
                .unwrap_or_default()
        })
        .collect()
}

fn labelled<'t>(text: &'t str, error: &KubeRayError) -> Vec<&'t str> {
    miette::Diagnostic::labels(error)
        .into_iter()
        .flatten()
        .map(|l| &text[l.offset()..l.offset() + l.len()])
        .collect()
}

#[test]
fn gpu_groups_follow_limits_then_requests() {
    let h100 = res(&[("CPU", 32), ("GPU", 8)]);
    // 15500m of CPU requested, no limit: rounded up to 16.
    let l4 = res(&[("CPU", 16), ("GPU", 4)]);
    let head = ("verl-gpu-head".to_owned(), Resources::new());
    assert_eq!(
        nodes(GPU, Replicas::Current),
        [
            head.clone(),
            ("verl-gpu-h100-0".to_owned(), h100.clone()),
            ("verl-gpu-h100-1".to_owned(), h100.clone()),
            ("verl-gpu-l4-0".to_owned(), l4.clone()),
        ]
    );
    let min = nodes(GPU, Replicas::Min);
    assert_eq!(
        min,
        [head.clone(), ("verl-gpu-h100-0".to_owned(), h100.clone())]
    );
    assert_eq!(nodes(GPU, Replicas::Max).len(), 1 + 4 + 2);
}

#[test]
fn the_json_of_kubectl_reads_as_the_yaml() {
    for replicas in [Replicas::Current, Replicas::Min, Replicas::Max] {
        assert_eq!(
            nodes(GPU_JSON, replicas),
            nodes(GPU, replicas),
            "{replicas}"
        );
    }
}

#[test]
fn ascend_chips_are_npus_and_slices_are_not() {
    let ascend = res(&[("CPU", 64), ("NPU", 8)]);
    assert_eq!(
        nodes(NPU, Replicas::Current),
        [
            ("verl-ascend-head".to_owned(), Resources::new()),
            ("verl-ascend-ascend910-0".to_owned(), ascend.clone()),
            ("verl-ascend-ascend910-1".to_owned(), ascend),
            (
                "verl-ascend-ascend-sliced-0".to_owned(),
                res(&[("CPU", 16)])
            ),
        ]
    );
}

#[test]
fn start_params_override_the_containers() {
    let half = res(&[
        ("CPU", 24),
        ("GPU", 4),
        ("accelerator_type:H100", 1),
        ("my_custom", 2),
    ]);
    let tpu = res(&[("CPU", 24), ("TPU", 4), ("my_custom", 1)]);
    let got = nodes(CUSTOM, Replicas::Current);
    assert_eq!(got[0], ("verl-custom-head".to_owned(), res(&[("CPU", 2)])));
    assert_eq!(
        &got[1..4],
        [0, 1, 2].map(|i| (format!("verl-custom-h100-half-{i}"), half.clone()))
    );
    // numOfHosts 2: one replica is two pods, two Ray nodes.
    assert_eq!(
        &got[4..],
        [0, 1].map(|i| (format!("verl-custom-tpu-{i}"), tpu.clone()))
    );
    // A `resources` parameter that names TPU keeps it; an NPU named there wins over chips.
    let named = CUSTOM.replace(r#"'{"my_custom": 1}'"#, r#"'{"TPU": 1}'"#);
    assert_eq!(
        nodes(&named, Replicas::Current)[4].1,
        res(&[("CPU", 24), ("TPU", 1)])
    );
    let npu = NPU.replace(
        "replicas: 2\n      minReplicas",
        "rayStartParams: {resources: '{\"NPU\": 4}'}\n      replicas: 2\n      minReplicas",
    );
    assert_eq!(
        nodes(&npu, Replicas::Current)[1].1,
        res(&[("CPU", 64), ("NPU", 4)])
    );
}

#[test]
fn replica_counts_follow_kuberay() {
    let counts = |replicas, min, max| ReplicaCounts {
        replicas,
        min,
        max,
        hosts: 1,
        suspended: false,
    };
    let current = |c: ReplicaCounts| c.pods(Replicas::Current);
    assert_eq!(current(counts(Some(3), Some(1), Some(10))), Some(3));
    assert_eq!(current(counts(Some(0), Some(2), Some(10))), Some(2));
    assert_eq!(current(counts(Some(15), Some(1), Some(10))), Some(10));
    assert_eq!(current(counts(None, Some(2), None)), Some(2));
    // minReplicas above maxReplicas: KubeRay uses maxReplicas, so that is the least too.
    assert_eq!(current(counts(Some(5), Some(8), Some(4))), Some(4));
    assert_eq!(
        counts(Some(5), Some(8), Some(4)).pods(Replicas::Min),
        Some(4)
    );
    assert_eq!(
        counts(Some(5), Some(3), Some(4)).pods(Replicas::Min),
        Some(3)
    );
    assert_eq!(counts(Some(3), None, None).pods(Replicas::Max), None);
    let suspended = ReplicaCounts {
        suspended: true,
        ..counts(Some(3), Some(3), Some(3))
    };
    assert_eq!(suspended.pods(Replicas::Min), Some(0));
    let multi_host = ReplicaCounts {
        hosts: 4,
        ..counts(Some(2), None, Some(2))
    };
    assert_eq!(multi_host.pods(Replicas::Max), Some(8));
}

#[test]
fn gpu_keys_are_kuberays() {
    for key in [
        "nvidia.com/gpu",
        "amd.com/gpu",
        "nvidia.com/mig-1g.10gb",
        "nvidia.com/mig-3g.40gb",
    ] {
        assert!(is_gpu_key(key), "{key}");
    }
    for key in [
        "nvidia.com/gpu.shared",
        "nvidia.com/mig-1g",
        "huawei.com/Ascend910",
        "cpu",
    ] {
        assert!(!is_gpu_key(key), "{key}");
    }
}

#[test]
fn every_problem_is_reported_in_the_manifest() {
    let errors = parse_raycluster(BAD).unwrap_err();
    let mut found = codes(&errors);
    found.sort();
    assert_eq!(
        found,
        [
            "resource_pool::kuberay::bad_quantity",
            "resource_pool::kuberay::bad_start_param",
            "resource_pool::kuberay::bad_start_param",
            "resource_pool::kuberay::duplicate_group",
            "resource_pool::kuberay::shape",
            "resource_pool::kuberay::unknown_cpus",
        ],
        "{errors:#?}"
    );
    let find = |code: &str| {
        errors
            .iter()
            .filter(|e| codes(std::slice::from_ref(e))[0] == code)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        labelled(BAD, find("resource_pool::kuberay::shape")[0]),
        ["two"]
    );
    assert_eq!(
        labelled(BAD, find("resource_pool::kuberay::bad_quantity")[0]),
        ["\"eight\""]
    );
    let params: Vec<_> = find("resource_pool::kuberay::bad_start_param")
        .into_iter()
        .flat_map(|e| labelled(BAD, e))
        .collect();
    assert!(
        params.contains(&"\"4.5\"") && params.contains(&"'{\"CPU\": 4}'"),
        "{params:?}"
    );
    let duplicate = labelled(BAD, find("resource_pool::kuberay::duplicate_group")[0]);
    assert_eq!(duplicate, ["gpu", "gpu"]);
    let unknown = find("resource_pool::kuberay::unknown_cpus")[0];
    assert!(labelled(BAD, unknown)[0].starts_with("name: ray-head"));
    assert!(unknown.to_string().contains("headgroup"));
}

#[test]
fn anchors_aliases_and_merges_read_as_kubectl_reads_them() {
    let eight = res(&[("CPU", 32), ("GPU", 8)]);
    let half = res(&[("CPU", 16), ("GPU", 4)]);
    let ids_and = |id: &str, r: &Resources| (format!("verl-anchors-{id}"), r.clone());
    assert_eq!(
        nodes(ANCHORS, Replicas::Current),
        [
            ("verl-anchors-head".to_owned(), Resources::new()),
            ids_and("h100-0", &eight),
            ids_and("h100-1", &eight),
            ids_and("h100-spot-0", &eight),
            ids_and("h100-spot-1", &eight),
            ids_and("h100-spot-2", &eight),
            ids_and("half-0", &half),
            ids_and("copy-0", &eight),
        ]
    );
}

#[test]
fn a_merged_value_counts_unless_the_mapping_writes_it_again() {
    let manifest = |limits: &str| {
        "kind: RayCluster
metadata: {name: m}
base: &base {cpu: lots, nvidia.com/gpu: 8}
spec:
  headGroupSpec:
    rayStartParams: {num-cpus: \"0\"}
    template: {spec: {containers: [{name: h}]}}
  workerGroupSpecs:
    - groupName: w
      replicas: 1
      template: {spec: {containers: [{name: ray-worker, resources: {limits: LIMITS}}]}}
"
        .replace("LIMITS", limits)
    };
    // Written after the merge, `cpu` is the mapping's own: the merged `lots` is not read.
    let text = manifest("{<<: *base, cpu: \"16\"}");
    let node = &nodes(&text, Replicas::Current)[1];
    assert_eq!(node.1, res(&[("CPU", 16), ("GPU", 8)]));
    // Written before it, go-yaml v2 writes the merged value over it: `lots` is read, and
    // labelled where the anchor writes it.
    let text = manifest("{cpu: \"16\", <<: *base}");
    let errors = parse_raycluster(&text).unwrap_err();
    assert_eq!(codes(&errors), ["resource_pool::kuberay::bad_quantity"]);
    assert_eq!(labelled(&text, &errors[0]), ["lots"]);
    // What go-yaml refuses to merge is a syntax error on the merged value.
    for (limits, at) in [("{<<: 8}", "8"), ("{<<: [*base, x]}", "[*base, x]")] {
        let text = manifest(limits);
        let errors = parse_raycluster(&text).unwrap_err();
        assert_eq!(
            codes(&errors),
            ["resource_pool::kuberay::syntax"],
            "{limits}"
        );
        assert_eq!(labelled(&text, &errors[0])[0], &at[..1], "{limits}");
        assert!(errors[0].to_string().contains("`<<`"), "{}", errors[0]);
    }
}

/// A one-group RayCluster whose worker group has `extra` (YAML lines at the group's
/// indent) and a container limited to 32 CPUs and 8 GPUs.
fn one_group(extra: &str) -> String {
    format!(
        "kind: RayCluster
metadata: {{name: g}}
spec:
  headGroupSpec:
    rayStartParams: {{num-cpus: \"0\"}}
    template: {{spec: {{containers: [{{name: h}}]}}}}
  workerGroupSpecs:
    - groupName: w
      replicas: 1
{extra}
      template: {{spec: {{containers: [{{name: ray-worker, resources: {{limits: {{cpu: \"32\", nvidia.com/gpu: 8}}}}}}]}}}}
"
    )
}

#[test]
fn a_groups_resources_field_is_read_as_kuberay_1_5_reads_it() {
    // Over the container's limits: `cpu` and a GPU key as counts (rounded up), `memory`
    // left to Ray, anything else a custom resource.
    let text = one_group(
        "      resources: {CPU: \"15500m\", GPU: \"4\", NPU: \"2\", my_res: \"1.5\", memory: 64Gi}\n      labels: {zone: a, tier: \"1\"}",
    );
    let inventory = kuberay_inventory(&text, &KubeRayOptions::default()).unwrap();
    let worker = &inventory.cluster.nodes[1];
    let mut expected = res(&[("CPU", 16), ("GPU", 4), ("NPU", 2)]);
    expected.set("my_res", Amount::from_f64_rounded(1.5).unwrap());
    assert_eq!(worker.available, expected);
    assert_eq!(worker.labels.get("zone").map(String::as_str), Some("a"));
    assert_eq!(worker.labels.get("tier").map(String::as_str), Some("1"));
    assert_eq!(
        worker.labels.get("ray.io/group").map(String::as_str),
        Some("w")
    );
    // Only a GPU count: the CPUs still come from the container.
    let text = one_group("      resources: {nvidia.com/gpu: \"2\"}");
    let nodes = nodes(&text, Replicas::Current);
    assert_eq!(nodes[1].1, res(&[("CPU", 32), ("GPU", 2)]));
}

#[test]
fn a_groups_resources_field_beside_start_params_or_unreadable_is_an_error() {
    let text = one_group("      rayStartParams: {num-gpus: \"8\"}\n      resources: {GPU: \"4\"}");
    let errors = parse_raycluster(&text).unwrap_err();
    assert_eq!(codes(&errors), ["resource_pool::kuberay::resources_twice"]);
    assert_eq!(labelled(&text, &errors[0]), ["{GPU: \"4\"}", "\"8\""]);
    for (resources, at) in [
        ("{GPU: 8}", "8"),
        ("{cpu: \"lots\"}", "\"lots\""),
        ("{GPU: \"4\", nvidia.com/gpu: \"8\"}", "\"8\""),
    ] {
        let text = one_group(&format!("      resources: {resources}"));
        let errors = parse_raycluster(&text).unwrap_err();
        assert_eq!(
            codes(&errors),
            ["resource_pool::kuberay::bad_group_resource"],
            "{resources}"
        );
        assert_eq!(labelled(&text, &errors[0]), [at], "{resources}");
    }
}

#[test]
fn group_labels_that_kuberay_refuses_are_errors() {
    for (labels, problem) in [
        ("{tier: 1}", "is not a string"),
        ("{tier: \"-a\"}", "start and end"),
        ("{\"a b\": x}", "character"),
        ("{\"Example.com/a\": x}", "DNS subdomain"),
        ("{\"/a\": x}", "DNS subdomain"),
        ("{\"example.com/\": x}", "is empty"),
    ] {
        let text = one_group(&format!("      labels: {labels}"));
        let errors = parse_raycluster(&text).unwrap_err();
        assert_eq!(
            codes(&errors),
            ["resource_pool::kuberay::bad_label"],
            "{labels}"
        );
        assert!(errors[0].to_string().contains(problem), "{}", errors[0]);
    }
    let text = one_group(
        "      labels: {example.com/zone: us-east-1a, ray.io/market-type: spot, empty: \"\"}",
    );
    let inventory = kuberay_inventory(&text, &KubeRayOptions::default()).unwrap();
    let labels = &inventory.cluster.nodes[1].labels;
    assert_eq!(labels["example.com/zone"], "us-east-1a");
    assert_eq!(labels["empty"], "");
}

#[test]
fn tags_type_values_as_kubectl_types_them() {
    // `!!str 8` is a string, as `"8"` is; `!!int "1"` a number, as `1` is.
    let text = one_group("      rayStartParams: {num-gpus: !!str 4}")
        .replace("replicas: 1", "replicas: !!int \"3\"");
    let read = nodes(&text, Replicas::Current);
    assert_eq!(read.len(), 4, "{read:?}");
    assert_eq!(read[1].1, res(&[("CPU", 32), ("GPU", 4)]));
    // A core tag's verbatim form is that tag.
    let text = one_group("").replace("replicas: 1", "replicas: !<tag:yaml.org,2002:int> \"2\"");
    assert_eq!(nodes(&text, Replicas::Current).len(), 3);
    // A tag of its own makes a string too, which a count may not be.
    let text = one_group("").replace("replicas: 1", "replicas: !mine 3");
    let errors = parse_raycluster(&text).unwrap_err();
    assert_eq!(codes(&errors), ["resource_pool::kuberay::shape"]);
}

#[test]
fn numbers_are_read_as_go_yaml_types_them() {
    // go-yaml (kubectl's reader) makes `010` octal 8, `0x2` 2, `1_0` 10 and `2.0` 2,
    // in a count and in a quantity alike: what the API server gets as JSON.
    for (replicas, gpus, want_nodes, want_gpus) in [
        ("010", "2", 9, 2),
        ("0x2", "010", 3, 8),
        ("1_0", "0x4", 11, 4),
        ("2.0", "+2", 3, 2),
    ] {
        let text = one_group("")
            .replace("replicas: 1", &format!("replicas: {replicas}"))
            .replace("nvidia.com/gpu: 8", &format!("nvidia.com/gpu: {gpus}"));
        let read = nodes(&text, Replicas::Current);
        assert_eq!(read.len(), want_nodes, "{replicas} {gpus}: {read:?}");
        assert_eq!(
            read[1].1,
            res(&[("CPU", 32), ("GPU", want_gpus)]),
            "{replicas} {gpus}"
        );
    }
    // `08` is no octal number but YAML's float 8; `2.5` is no whole count.
    let text = one_group("").replace("replicas: 1", "replicas: 08");
    assert_eq!(nodes(&text, Replicas::Current).len(), 9);
    let text = one_group("").replace("replicas: 1", "replicas: 2.5");
    let errors = parse_raycluster(&text).unwrap_err();
    assert_eq!(codes(&errors), ["resource_pool::kuberay::shape"]);
}

#[test]
fn tags_and_numbers_kubectl_refuses_are_syntax_errors() {
    // go-yaml refuses a tag its text is not of, and bad base64; JSON has no `.inf`.
    for (from, to, at) in [
        ("replicas: 1", "replicas: !!int abc", "!!int abc"),
        ("replicas: 1", "replicas: !!bool 1", "!!bool 1"),
        ("name: h", "name: !!null x", "!!null x"),
        ("name: h", "name: !!binary aGk", "!!binary aGk"),
        ("name: h", "name: .inf", ".inf"),
        ("name: h", "9223372036854775808: x", "9223372036854775808"),
    ] {
        let text = one_group("").replace(from, to);
        let errors = parse_raycluster(&text).unwrap_err();
        assert_eq!(codes(&errors), ["resource_pool::kuberay::syntax"], "{to}");
        assert!(
            labelled(&text, &errors[0])
                .first()
                .is_some_and(|l| at.starts_with(l) || l.starts_with(at)),
            "{to}: {:?} {}",
            labelled(&text, &errors[0]),
            errors[0]
        );
    }
    // What go-yaml reads: the same tags on text of their type.
    for (from, to) in [
        ("replicas: 1", "replicas: !!int 0x1"),
        ("replicas: 1", "replicas: !!float 1"),
        ("name: h", "name: !!binary aGk="),
        ("name: h", "name: !!str .inf"),
    ] {
        let text = one_group("").replace(from, to);
        assert!(parse_raycluster(&text).is_ok(), "{to}");
    }
}

#[test]
fn json_errors_are_spanned_too() {
    let text = GPU_JSON.replacen("\"nvidia.com/gpu\": \"8\"", "\"nvidia.com/gpu\": \"8x\"", 1);
    assert_ne!(text, GPU_JSON);
    let errors = parse_raycluster(&text).unwrap_err();
    assert_eq!(codes(&errors), ["resource_pool::kuberay::bad_quantity"]);
    assert_eq!(labelled(&text, &errors[0]), ["\"8x\""]);
    let syntax = parse_raycluster("{\"kind\": \"RayCluster\",}").unwrap_err();
    assert_eq!(codes(&syntax), ["resource_pool::kuberay::syntax"]);
}

#[test]
fn the_cluster_is_found_in_lists_jobs_and_services() {
    let head = "headGroupSpec: {template: {spec: {containers: [{name: h, resources: {limits: {cpu: '2'}}}]}}}";
    let job = format!(
        "kind: ConfigMap\n---\nkind: RayJob\nmetadata: {{name: j}}\nspec:\n  rayClusterSpec: {{{head}}}\n"
    );
    assert_eq!(
        nodes(&job, Replicas::Current),
        [("j-head".to_owned(), res(&[("CPU", 2)]))]
    );
    let service =
        format!("kind: RayService\nmetadata: {{name: s}}\nspec:\n  rayClusterConfig: {{{head}}}\n");
    assert_eq!(nodes(&service, Replicas::Current)[0].0, "s-head");
    let list = format!("{{\"kind\": \"List\", \"items\": [{}]}}", GPU_JSON);
    assert_eq!(nodes(&list, Replicas::Current).len(), 4);
    let two = format!("{GPU}\n---\n{NPU}");
    let errors = parse_raycluster(&two).unwrap_err();
    assert!(
        errors[0]
            .to_string()
            .contains("2 RayClusters in one file (`verl-gpu`, `verl-ascend`)"),
        "{errors:?}"
    );
    let none = parse_raycluster("kind: Deployment\n").unwrap_err();
    assert!(
        none[0]
            .to_string()
            .contains("no document of `kind: RayCluster`")
    );
}

#[test]
fn max_needs_a_bound_and_the_node_count_is_bounded() {
    let unbounded = GPU.replace("      maxReplicas: 2\n", "");
    let options = KubeRayOptions {
        replicas: Replicas::Max,
        ..KubeRayOptions::default()
    };
    let errors = kuberay_inventory(&unbounded, &options).unwrap_err();
    assert_eq!(
        codes(&errors),
        ["resource_pool::kuberay::unbounded_replicas"]
    );
    assert!(errors[0].to_string().contains("`l4`"));
    let huge = GPU.replace(
        "replicas: 2\n      minReplicas: 1\n      maxReplicas: 4",
        "replicas: 4000000000\n      maxReplicas: 4000000000\n      numOfHosts: 4000000000",
    );
    let errors = kuberay_inventory(&huge, &KubeRayOptions::default()).unwrap_err();
    assert_eq!(codes(&errors), ["resource_pool::kuberay::too_many_nodes"]);
}

#[test]
fn shell_quoting_of_resources_is_undone() {
    let expect: BTreeMap<String, Amount> = [
        ("a".to_owned(), whole(1)),
        ("b".to_owned(), Amount::from_units(5_000)),
    ]
    .into();
    for text in [
        r#"{"a": 1, "b": 0.5}"#,
        r#"'{"a": 1, "b": 0.5}'"#,
        r#""{\"a\": 1, \"b\": 0.5}""#,
    ] {
        assert_eq!(custom_resources(text).as_ref(), Ok(&expect), "{text}");
    }
    assert!(
        custom_resources(r#"{"GPU": 1}"#)
            .unwrap_err()
            .contains("--num-cpus/--num-gpus")
    );
    assert!(custom_resources("{\"a\": -1}").is_err());
    assert!(custom_resources("[1]").is_err());
}

#[test]
fn errors_serialize_as_their_fields() {
    let errors = parse_raycluster(BAD).unwrap_err();
    let value = serde_json::to_value(&errors).unwrap_or_default();
    let quantity = value
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e.get("key").is_some())
        .cloned()
        .unwrap_or_default();
    assert_eq!(quantity["group"], "gpu");
    assert_eq!(quantity["value"], "eight");
    assert_eq!(quantity["reason"], "is not a Kubernetes quantity");
}

#[test]
fn no_accelerator_anywhere_is_noted() {
    let cpu_only = NPU.replace("huawei.com/Ascend910: \"8\"", "example.com/foo: \"8\"");
    let inventory = kuberay_inventory(&cpu_only, &KubeRayOptions::default()).unwrap_or_default();
    assert_eq!(
        inventory.notes,
        [InventoryNote::NoAccelerators {
            listed_by: crate::SourceKind::KubeRay,
        }]
    );
    let inventory = kuberay_inventory(GPU, &KubeRayOptions::default()).unwrap_or_default();
    assert!(inventory.notes.is_empty());
}

#[test]
fn min_above_max_is_noted_and_counted_as_max() {
    let text = "kind: RayCluster\nmetadata: {name: mm}\nspec:\n  headGroupSpec:\n    rayStartParams: {num-cpus: \"0\"}\n    template: {spec: {containers: [{name: h}]}}\n  workerGroupSpecs:\n    - groupName: gpu\n      replicas: 1\n      minReplicas: 3\n      maxReplicas: 2\n      template: {spec: {containers: [{name: w, resources: {limits: {cpu: \"32\", nvidia.com/gpu: \"8\"}}}]}}\n";
    for replicas in [Replicas::Current, Replicas::Min, Replicas::Max] {
        let options = KubeRayOptions {
            replicas,
            ..KubeRayOptions::default()
        };
        let inventory = kuberay_inventory(text, &options).unwrap_or_else(|e| panic!("{e:?}"));
        let workers = inventory
            .cluster
            .nodes
            .iter()
            .filter(|n| n.id.starts_with("mm-gpu-"));
        assert_eq!(workers.count(), 2, "{replicas}");
        assert_eq!(
            inventory.notes,
            [InventoryNote::MinAboveMaxReplicas {
                group: "gpu".to_owned(),
                min: 3,
                max: 2,
            }]
        );
    } // A suspended group runs nothing: no word about its bounds.
    let suspended = text.replace(
        "      replicas: 1\n",
        "      replicas: 1\n      suspend: true\n",
    );
    assert_ne!(suspended, text);
    let inventory = kuberay_inventory(&suspended, &KubeRayOptions::default())
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(
        !inventory
            .notes
            .iter()
            .any(|n| matches!(n, InventoryNote::MinAboveMaxReplicas { .. })),
        "{:?}",
        inventory.notes
    );
}

#[test]
fn counts_and_start_params_are_typed_as_the_api_server_types_them() {
    let quoted = GPU.replace("      maxReplicas: 2\n", "      maxReplicas: \"2\"\n");
    assert_ne!(quoted, GPU);
    let errors = parse_raycluster(&quoted).unwrap_err();
    assert_eq!(codes(&errors), ["resource_pool::kuberay::shape"]);
    assert_eq!(labelled(&quoted, &errors[0]), ["\"2\""]);
    assert!(errors[0].to_string().contains("`maxReplicas` is a string"));
    for value in ["8", "8.5", "true", "1e3", "yes", "Off"] {
        let text = format!(
            "kind: RayCluster\nspec:\n  headGroupSpec:\n    rayStartParams: {{num-cpus: {value}}}\n    template: {{spec: {{containers: [{{name: h}}]}}}}\n"
        );
        let errors = parse_raycluster(&text).unwrap_err();
        assert_eq!(
            codes(&errors),
            ["resource_pool::kuberay::bad_start_param"],
            "{value}: {errors:?}"
        );
        assert!(errors[0].to_string().contains("is not a string"), "{value}");
    }
    // Quoted, or a plain word, is a string; YAML 1.1's `yes` is not.
    let text = "kind: RayCluster\nspec:\n  headGroupSpec:\n    rayStartParams: {num-cpus: \"8\", dashboard-host: localhost}\n    template: {spec: {containers: [{name: h}]}}\n";
    assert_eq!(nodes(text, Replicas::Current)[0].1, res(&[("CPU", 8)]));
}

#[test]
fn an_unreadable_cpu_count_is_one_error() {
    let text = "kind: RayCluster\nspec:\n  headGroupSpec:\n    template: {spec: {containers: [{name: h, resources: {limits: {cpu: 32x}}}]}}\n";
    let errors = parse_raycluster(text).unwrap_err();
    assert_eq!(codes(&errors), ["resource_pool::kuberay::bad_quantity"]);
    let text = "kind: RayCluster\nspec:\n  headGroupSpec:\n    rayStartParams: {num-cpus: \"lots\"}\n    template: {spec: {containers: [{name: h}]}}\n";
    let errors = parse_raycluster(text).unwrap_err();
    assert_eq!(codes(&errors), ["resource_pool::kuberay::bad_start_param"]);
    // A null CPU is no CPU: one error, that nothing says how many.
    for null in ["cpu: null", "cpu: ~", "cpu:"] {
        let text = format!(
            "kind: RayCluster\nspec:\n  headGroupSpec:\n    template:\n      spec:\n        containers:\n          - name: h\n            resources:\n              limits:\n                {null}\n"
        );
        let errors = parse_raycluster(&text).unwrap_err();
        assert_eq!(
            codes(&errors),
            ["resource_pool::kuberay::unknown_cpus"],
            "{null}"
        );
    }
}
