//! The plan picture: text (plain and coloured) and SVG snapshots of what `check` draws, on
//! the example clusters, a Ray hang, large clusters that must be summarised, dead and busy
//! nodes, NPUs and CPU-only nodes; and the SVG is well-formed XML.

use std::path::Path;

use resource_pool::check::CheckReport;
use resource_pool::inventory::cluster_file::{ClusterLimits, load_cluster};
use resource_pool::lint::LintOptions;
use resource_pool::load::load_config;
use resource_pool::render::{
    LAYOUT_ORDER, MAX_GROUPS_COUNTED, MAX_ROWS, More, Picture, check_pictures, picture, render_svg,
    render_text, suggestion_pictures,
};
use resource_pool::source::{ReadLimits, SourceFile};
use resource_pool::{Amount, Cluster, Node, Resources};

fn read(path: &str) -> SourceFile {
    SourceFile::read(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(path),
        ReadLimits::default(),
    )
    .expect("the example reads")
}

fn check_on(config: &SourceFile, cluster: &Cluster) -> CheckReport {
    let loaded = load_config(config, &verl_lint());
    let manager = loaded.manager.expect("the config is valid");
    manager.check(cluster)
}

fn example_cluster(name: &str) -> Cluster {
    let source = read(&format!("examples/clusters/{name}.toml"));
    load_cluster(&source, &ClusterLimits::default())
        .cluster
        .expect("the example cluster is valid")
}

fn config(text: &str) -> SourceFile {
    SourceFile::new("pools.toml", text)
}

fn res(pairs: &[(&str, u64)]) -> Resources {
    pairs
        .iter()
        .map(|&(n, a)| (n, Amount::from_whole(a).unwrap()))
        .collect()
}

/// Plain text, then the coloured text with escapes made visible.
fn texts(pictures: &[Picture]) -> String {
    let plain: String = pictures.iter().map(|p| render_text(p, false)).collect();
    let colour: String = pictures.iter().map(|p| render_text(p, true)).collect();
    assert!(!plain.contains('\x1b'), "plain text has no escapes");
    assert_eq!(
        strip_ansi(&colour),
        plain,
        "colour adds escapes and nothing else"
    );
    format!(
        "{plain}--- coloured (ESC shown as \\e) ---\n{}",
        colour.replace('\x1b', "\\e")
    )
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A small XML well-formedness check: one root, tags balanced and nested, attributes
/// quoted, no raw `<` or stray `&` in text or attributes.
fn assert_well_formed(svg: &str) {
    let body = svg
        .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .expect("XML declaration first");
    let mut stack: Vec<&str> = Vec::new();
    let mut roots = 0;
    let mut rest = body;
    while let Some(open) = rest.find('<') {
        check_text(&rest[..open]);
        assert!(
            !stack.is_empty() || rest[..open].trim().is_empty(),
            "text outside the root"
        );
        let close = rest[open..].find('>').expect("tag closed") + open;
        let tag = &rest[open + 1..close];
        rest = &rest[close + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(name.trim()), "closing tag matches");
            continue;
        }
        let self_closing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let name_end = tag.find(char::is_whitespace).unwrap_or(tag.len());
        let name = &tag[..name_end];
        assert!(
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
            "tag name `{name}`"
        );
        check_attributes(&tag[name_end..]);
        if stack.is_empty() {
            roots += 1;
        }
        if !self_closing {
            stack.push(name);
        }
    }
    check_text(rest);
    assert!(rest.trim().is_empty(), "nothing after the root");
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    assert_eq!(roots, 1, "one root element");
}

fn check_attributes(mut attrs: &str) {
    let mut names = Vec::new();
    loop {
        attrs = attrs.trim_start();
        if attrs.is_empty() {
            return;
        }
        let eq = attrs.find('=').expect("attribute has a value");
        let name = attrs[..eq].trim();
        assert!(!names.contains(&name), "attribute `{name}` given twice");
        names.push(name);
        let value = &attrs[eq + 1..];
        let value = value.strip_prefix('"').expect("attribute value quoted");
        let end = value.find('"').expect("attribute value closed");
        check_text(&value[..end]);
        attrs = &value[end + 1..];
    }
}

fn check_text(text: &str) {
    assert!(!text.contains('<'), "raw < in {text:?}");
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        rest = &rest[at + 1..];
        let end = rest.find(';').expect("entity closed");
        assert!(
            ["amp", "lt", "gt", "quot", "apos"].contains(&&rest[..end]),
            "entity &{};",
            &rest[..end]
        );
    }
    assert!(
        !text
            .chars()
            .any(|c| (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r')),
        "control character in {text:?}"
    );
}

/// Snapshots of the text and the SVG of `check`'s pictures.
fn snapshot(name: &str, report: &CheckReport, cluster: &Cluster) -> Vec<Picture> {
    let pictures = check_pictures(report, cluster, LAYOUT_ORDER);
    assert!(!pictures.is_empty());
    insta::assert_snapshot!(format!("{name}_text"), texts(&pictures));
    let svg = render_svg(&pictures);
    assert_well_formed(&svg);
    insta::assert_snapshot!(format!("{name}_svg"), svg);
    pictures
}

#[test]
fn a_feasible_placement_on_the_example_cluster() {
    let cluster = example_cluster("three_nodes");
    let report = check_on(&read("examples/configs/verl_default.toml"), &cluster);
    let pictures = snapshot("feasible_three_nodes", &report, &cluster);
    assert_eq!(pictures.len(), 1);
    assert_eq!(pictures[0].title, "Ray places it:");
    assert_eq!(pictures[0].rows.len(), 3);
    assert!(pictures[0].pending.is_empty());
}

#[test]
fn a_ray_hang_marks_the_pending_group_and_its_nearest_node() {
    let cluster = example_cluster("big_and_small");
    let report = check_on(&read("examples/configs/small_pool_first.toml"), &cluster);
    let pictures = snapshot("hang_big_and_small", &report, &cluster);
    assert_eq!(pictures.len(), 2, "the witness, then Ray");
    let ray = &pictures[1];
    assert_eq!(ray.pending.len(), 1);
    assert_eq!(ray.pending[0].name, "global_pool[0]");
    assert_eq!(ray.pending[0].state, "NO_RESOURCES");
    assert_eq!(ray.rows[0].nearest_for, ["global_pool[0]"]);
}

#[test]
fn a_hang_that_blocks_later_pools_lists_what_is_never_created() {
    let cluster = Cluster::new(vec![
        Node::new("big", res(&[("GPU", 8), ("CPU", 32)])),
        Node::new("small", res(&[("GPU", 4), ("CPU", 16)])),
        Node::new("extra", res(&[("GPU", 2), ("CPU", 8)])),
    ]);
    let config = config(
        "[pools.first]\nprocess_on_nodes = [4]\n[pools.second]\nprocess_on_nodes = [8]\n\
         [pools.third]\nprocess_on_nodes = [1, 1]\n\
         [mapping]\nactor = \"first\"\ncritic = \"second\"\nrm = \"third\"\n",
    );
    let report = check_on(&config, &cluster);
    let pictures = snapshot("hang_blocks_later_pools", &report, &cluster);
    let ray = pictures.last().unwrap();
    assert_eq!(ray.pending.len(), 1);
    assert_eq!(
        ray.not_created,
        [("third[0–1]".to_owned(), "second".to_owned())]
    );
}

#[test]
fn a_layout_nothing_fits_draws_where_ray_stops() {
    // Fragmented: 16 GPUs free in all, but no node has 8 free for the second slot.
    let cluster = Cluster::new(vec![
        Node::new("a", res(&[("GPU", 8), ("CPU", 32)])),
        Node::new("b", res(&[("GPU", 4), ("CPU", 32)])),
        Node::new("c", res(&[("GPU", 4), ("CPU", 32)])),
    ]);
    let config = config(
        "[pools.global_pool]\nprocess_on_nodes = [8, 8]\n[mapping]\nactor_rollout = \"global_pool\"\n",
    );
    let report = check_on(&config, &cluster);
    assert_eq!(report.feasible(), Some(false));
    let pictures = snapshot("nothing_fits_fragmented", &report, &cluster);
    assert_eq!(pictures.len(), 1, "no witness; Ray's attempt");
    let ray = &pictures[0];
    assert_eq!(ray.title, "Ray, in the layout's order, would do:");
    assert_eq!(ray.pending.len(), 1);
    assert_eq!(ray.pending[0].name, "global_pool[1]");
}

#[test]
fn dead_and_busy_nodes_are_drawn() {
    let cluster = example_cluster("busy");
    let report = check_on(&read("examples/configs/large_pool_first.toml"), &cluster);
    let pictures = snapshot("dead_and_busy", &report, &cluster);
    let rows = &pictures[0].rows;
    assert!(!rows[3].alive);
    assert!(pictures[0].glyphs.dead && pictures[0].glyphs.busy);
}

#[test]
fn an_npu_cluster_draws_npu_cells() {
    let cluster = example_cluster("ascend");
    let report = check_on(&read("examples/configs/ascend.toml"), &cluster);
    let pictures = snapshot("ascend", &report, &cluster);
    assert!(
        pictures[0]
            .rows
            .iter()
            .all(|r| r.segments.len() == 1 && r.segments[0].accelerator == "NPU")
    );
}

#[test]
fn a_cpu_only_node_has_a_row_without_cells() {
    let cluster = Cluster::new(vec![
        Node::new("head", res(&[("CPU", 8)])),
        Node::new("gpu-0", res(&[("GPU", 4), ("CPU", 32)])),
    ]);
    let report = check_on(
        &config("[pools.p]\nprocess_on_nodes = [2]\n[mapping]\nactor = \"p\"\n"),
        &cluster,
    );
    let pictures = snapshot("cpu_only_node", &report, &cluster);
    assert!(pictures[0].rows[0].segments.is_empty());
}

#[test]
fn a_large_homogeneous_cluster_is_summarised_by_groups() {
    let nodes = (0..200)
        .map(|i| Node::new(format!("gpu-{i:03}"), res(&[("GPU", 8), ("CPU", 96)])))
        .collect();
    let cluster = Cluster::new(nodes);
    let report = check_on(
        &config(
            "[pools.global_pool]\ngpus_per_node = 8\nnnodes = 150\n\
             [pools.reward_pool]\nprocess_on_nodes = [4, 4]\n\
             [mapping]\nactor = \"global_pool\"\nrm = \"reward_pool\"\n",
        ),
        &cluster,
    );
    let pictures = snapshot("large_homogeneous", &report, &cluster);
    let rows = &pictures[0].rows;
    assert!(rows.len() <= MAX_ROWS);
    assert_eq!(rows.iter().map(|r| r.count).sum::<usize>(), 200);
    assert_eq!(rows[0].count, 150);
    assert_eq!(pictures[0].more, None);
    assert_eq!(pictures[0].legend[0].slots, "slots 0–149");
}

#[test]
fn too_many_distinct_nodes_are_summarised_in_a_line() {
    // Every node differs (its CPUs), so no two rows group.
    let nodes = (0..100)
        .map(|i| Node::new(format!("n{i}"), res(&[("GPU", 2), ("CPU", 10 + i)])))
        .collect();
    let cluster = Cluster::new(nodes);
    let report = check_on(
        &config("[pools.p]\nprocess_on_nodes = [2, 2]\n[mapping]\nactor = \"p\"\n"),
        &cluster,
    );
    let pictures = check_pictures(&report, &cluster, LAYOUT_ORDER);
    let picture = &pictures[0];
    assert_eq!(picture.rows.len(), MAX_ROWS);
    assert_eq!(
        picture.more,
        Some(More {
            nodes: 100 - MAX_ROWS,
            groups: 100 - MAX_ROWS,
            groups_exact: true
        })
    );
    let text = render_text(picture, false);
    assert!(
        text.contains("… and 60 more nodes in 60 more groups"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1 + MAX_ROWS + 2, "{text}");
    assert_well_formed(&render_svg(&pictures));
}

#[test]
fn node_ids_with_markup_are_escaped_in_the_svg() {
    let cluster = Cluster::new(vec![Node::new(
        "<node & \"a\">",
        res(&[("GPU", 2), ("CPU", 8)]),
    )]);
    let report = check_on(
        &config("[pools.p]\nprocess_on_nodes = [1]\n[mapping]\nactor = \"p\"\n"),
        &cluster,
    );
    let svg = render_svg(&check_pictures(&report, &cluster, LAYOUT_ORDER));
    assert_well_formed(&svg);
    assert!(svg.contains("&lt;node &amp; &quot;a&quot;&gt;"), "{svg}");
}

#[test]
fn the_well_formedness_check_can_fail() {
    for bad in [
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg><g></svg>",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg a=b/>",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg>a & b</svg>",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg/><svg/>",
    ] {
        let caught = std::panic::catch_unwind(|| assert_well_formed(bad));
        assert!(caught.is_err(), "{bad}");
    }
}

#[test]
fn groups_past_the_counting_bound_are_a_lower_bound() {
    let n = MAX_ROWS + MAX_GROUPS_COUNTED + 5;
    let nodes = (0..n as u64)
        .map(|i| Node::new(format!("n{i}"), res(&[("GPU", 1), ("CPU", 1 + i)])))
        .collect();
    let cluster = Cluster::new(nodes);
    let picture = picture("Nothing placed:", &[], &[], &cluster, &[], None);
    assert_eq!(picture.rows.len(), MAX_ROWS);
    let more = picture.more.expect("a summary line");
    assert_eq!(more.nodes, n - MAX_ROWS);
    assert_eq!(more.groups, MAX_GROUPS_COUNTED);
    assert!(!more.groups_exact);
    let text = render_text(&picture, false);
    assert!(
        text.contains(&format!(
            "… and {} more nodes in at least {MAX_GROUPS_COUNTED} more groups",
            n - MAX_ROWS
        )),
        "{text}"
    );
}

#[test]
fn a_node_with_gpus_and_npus_has_a_segment_each_and_long_rows_are_cut() {
    let cluster = Cluster::new(vec![
        Node::new("mixed", res(&[("GPU", 2), ("NPU", 2), ("CPU", 16)])),
        Node::new("wide", res(&[("GPU", 100), ("CPU", 400)])),
    ]);
    let report = check_on(
        &config(
            "[pools.g]\nprocess_on_nodes = [1, 70]\n\
             [pools.n]\nprocess_on_nodes = [1]\naccelerator = \"NPU\"\n\
             [mapping]\nactor = \"g\"\nrm = \"n\"\n",
        ),
        &cluster,
    );
    let pictures = check_pictures(&report, &cluster, LAYOUT_ORDER);
    let picture = &pictures[0];
    let mixed = &picture.rows[0];
    let accelerators: Vec<&str> = mixed.segments.iter().map(|s| s.accelerator).collect();
    assert_eq!(accelerators, ["GPU", "NPU"]);
    assert_eq!(
        mixed.segments[1].cells[0],
        resource_pool::render::Cell::Held {
            pool: 1,
            slot: Some(0)
        }
    );
    let wide = &picture.rows[1].segments[0];
    assert_eq!(wide.cells.len(), resource_pool::render::MAX_CELLS);
    assert_eq!(wide.hidden, 100 - resource_pool::render::MAX_CELLS as u64);
    let text = render_text(picture, false);
    assert!(text.contains("  NPU B0 ·"), "{text}");
    assert!(text.contains(&format!(" +{}  CPU", wide.hidden)), "{text}");
    assert_well_formed(&render_svg(&pictures));
}

#[test]
fn wide_node_ids_keep_the_columns_aligned() {
    // CJK characters take two terminal columns each: the cells start in one column.
    let cluster = Cluster::new(vec![
        Node::new("节点一", res(&[("GPU", 2), ("CPU", 8)])),
        Node::new("b", res(&[("GPU", 2), ("CPU", 8)])),
    ]);
    let config = config("[pools.p]\nprocess_on_nodes = [2]\n[mapping]\nactor = \"p\"\n");
    let report = check_on(&config, &cluster);
    let text = render_text(&check_pictures(&report, &cluster, LAYOUT_ORDER)[0], false);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[1], "  节点一  GPU A0 A0  CPU 6/8", "{text}");
    assert_eq!(lines[2], "  b       GPU ·  ·   CPU 0/8", "{text}");
}

/// The check's pictures with the suggested layouts under them, as `--plan` draws them.
fn with_suggestions(config: &SourceFile, cluster: &Cluster) -> Vec<Picture> {
    use resource_pool::check::suggest::{SuggestOptions, suggest, wanted};
    let loaded = load_config(config, &verl_lint());
    let manager = loaded.manager.as_ref().expect("the config is valid");
    let report = manager.check(cluster);
    assert!(wanted(&report, &loaded));
    let found = suggest(&report, cluster, &loaded, &SuggestOptions::default());
    let mut pictures = check_pictures(&report, cluster, LAYOUT_ORDER);
    pictures.extend(suggestion_pictures(&found, cluster));
    pictures
}

fn snapshot_all(name: &str, pictures: &[Picture]) {
    insta::assert_snapshot!(format!("{name}_text"), texts(pictures));
    let svg = render_svg(pictures);
    assert_well_formed(&svg);
    insta::assert_snapshot!(format!("{name}_svg"), svg);
}

#[test]
fn the_suggested_layout_is_drawn_under_the_failed_attempt() {
    // Fragmented as above: of [8, 8] only one 8 fits, so [8] is suggested.
    let cluster = Cluster::new(vec![
        Node::new("a", res(&[("GPU", 8), ("CPU", 32)])),
        Node::new("b", res(&[("GPU", 4), ("CPU", 32)])),
        Node::new("c", res(&[("GPU", 4), ("CPU", 32)])),
    ]);
    let config = config(
        "[pools.global_pool]\nprocess_on_nodes = [8, 8]\n[mapping]\nactor_rollout = \"global_pool\"\n",
    );
    let pictures = with_suggestions(&config, &cluster);
    assert_eq!(pictures.len(), 2, "Ray's attempt, then the suggestion");
    assert_eq!(
        pictures[1].title,
        "Suggested: global_pool = [8] (8 of 16 GPUs); Ray places it:"
    );
    assert!(pictures[1].pending.is_empty());
    snapshot_all("suggested_after_fragmentation", &pictures);
}

#[test]
fn a_busy_cluster_draws_both_suggestions_the_idle_one_with_nothing_held() {
    let config = config(
        "[pools.global_pool]\ngpus_per_node = 8\nnnodes = 3\n[mapping]\nactor_rollout = \"global_pool\"\n",
    );
    let cluster = example_cluster("busy");
    let pictures = with_suggestions(&config, &cluster);
    let titles: Vec<&str> = pictures.iter().map(|p| p.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Ray, in the layout's order, would do:",
            "Suggested now: global_pool = [4, 4, 4, 4] (16 of 24 GPUs); Ray places it:",
            "Suggested for the idle cluster: global_pool = [4, 4, 4, 4, 4] (20 of 24 GPUs); Ray places it:",
        ]
    );
    assert!(!pictures[2].glyphs.busy, "the idle cluster holds nothing");
    assert!(pictures[1].glyphs.busy);
    snapshot_all("suggested_busy_now_and_idle", &pictures);
}

#[test]
fn one_accelerator_asked_is_singular_in_the_title() {
    // One GPU, held now: the idle cluster places the layout as written, `1 of 1 GPU`.
    let cluster = Cluster::new(vec![
        Node::new("a", res(&[("GPU", 0), ("CPU", 8)])).with_total(res(&[("GPU", 1), ("CPU", 8)])),
    ]);
    let config = config(
        "[pools.global_pool]\ngpus_per_node = 1\nnnodes = 1\n[mapping]\nactor_rollout = \"global_pool\"\n",
    );
    let pictures = with_suggestions(&config, &cluster);
    let titles: Vec<&str> = pictures.iter().map(|p| p.title.as_str()).collect();
    assert_eq!(
        titles.last().copied(),
        Some("Suggested for the idle cluster: global_pool = [1] (1 of 1 GPU); Ray places it:"),
        "{titles:?}"
    );
}

#[test]
fn ray_nodes_are_named_by_address_and_short_id_in_rows_and_pending_lines() {
    // Ray's 56-hex-digit ids with addresses; past MAX_ROWS nodes, equal nodes share a row
    // named `first … last`.
    let ray_node = |i: usize| {
        let mut node = Node::new(
            format!(
                "{i:02x}{}",
                "5f0a544bbf97a58613e20dcd890be334820af9041f50d366b23d1f"
            ),
            res(&[("GPU", 4), ("CPU", 8)]),
        );
        node.address = Some(format!("10.0.0.{i}"));
        node
    };
    let config = config(
        "[pools.global_pool]\ngpus_per_node = 8\nnnodes = 1\n[mapping]\nactor_rollout = \"global_pool\"\n",
    );
    let cluster = Cluster::new(vec![ray_node(1), ray_node(2)]);
    let report = check_on(&config, &cluster);
    let text = render_text(&check_pictures(&report, &cluster, LAYOUT_ORDER)[0], false);
    assert!(
        text.contains("\n  10.0.0.1 (015f0a54…)  GPU"),
        "a row is the node's address and short id:\n{text}"
    );
    assert!(
        text.contains("; nearest 10.0.0.1 (015f0a54…): CPU 8 of 24, GPU 4 of 8"),
        "{text}"
    );
    assert!(!text.contains("bbf97a5"), "no long id:\n{text}");
    let many = Cluster::new((1..=MAX_ROWS + 1).map(ray_node).collect());
    let report = check_on(&config, &many);
    let rows = &check_pictures(&report, &many, LAYOUT_ORDER)[0].rows;
    // Node 1 is nearest for the pending group: a row of its own; the rest share one.
    assert_eq!(rows[0].first, "10.0.0.1 (015f0a54…)");
    assert_eq!(rows[1].first, "10.0.0.2 (025f0a54…)");
    let last = format!("10.0.0.{} ({:02x}5f0a54…)", MAX_ROWS + 1, MAX_ROWS + 1);
    assert_eq!(rows[1].last.as_deref(), Some(last.as_str()));
}

/// The CLI's lint options: verl's roles.
fn verl_lint() -> LintOptions {
    LintOptions {
        roles: resource_pool::verl::role_set(),
        ..LintOptions::default()
    }
}
