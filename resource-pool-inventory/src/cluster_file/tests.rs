//! The streaming readers against the tree reader, on generated cluster files, valid and
//! broken: the same cluster, the same spans, the same diagnostics.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};

use super::tree_reader::load_cluster_tree;
use super::*;

/// One `key = value` line of a node entry, or something around it.
fn node_line() -> impl Strategy<Value = String> {
    let amount = prop_oneof![
        Just("8"),
        Just("96"),
        Just("0"),
        Just("1.5"),
        Just("-1"),
        Just("0x10"),
        Just("1_000"),
        Just("1e3"),
        Just("nan"),
        Just("-inf"),
        Just("0.00001"),
        Just("\"8\""),
        Just("1e400"),
        Just("99999999999999999999"),
        Just("true"),
        Just("1979-05-27"),
        Just("[1]"),
    ];
    let name = prop_oneof![
        Just("GPU"),
        Just("CPU"),
        Just("NPU"),
        Just("\"accelerator_type:H100\""),
        Just("'my_custom'"),
        Just("a.b"),
    ];
    let resources =
        (prop::collection::vec((name, amount), 0..4), 0..5u8).prop_map(|(items, dedup)| {
            let mut seen = Vec::new();
            let items: Vec<String> = items
                .iter()
                // Mostly one amount per name (a name given twice is a syntax error).
                .filter(|(n, _)| {
                    dedup == 0
                        || (!seen.contains(n) && {
                            seen.push(*n);
                            true
                        })
                })
                .map(|(n, a)| format!("{n} = {a}"))
                .collect();
            format!("{{ {} }}", items.join(", "))
        });
    let id = prop_oneof![
        Just("\"a\"".to_owned()),
        Just("\"b\"".to_owned()),
        Just("'c'".to_owned()),
        Just("\"d\\u0065\"".to_owned()),
        Just("\"é中\"".to_owned()),
        Just("12".to_owned()),
        Just("\"\"\"multi\nline\"\"\"".to_owned()),
        "[a-e]{1,2}".prop_map(|s| format!("\"{s}\"")),
    ];
    prop_oneof![
        4 => id.prop_map(|id| format!("id = {id}")),
        4 => resources.clone().prop_map(|r| format!("available = {r}")),
        2 => resources.prop_map(|r| format!("total = {r}")),
        1 => Just("address = \"10.0.0.1\"".to_owned()),
        1 => Just("address = 5".to_owned()),
        1 => prop_oneof![Just("true"), Just("false"), Just("\"yes\"")].prop_map(|b| format!("alive = {b}")),
        1 => Just("labels = { zone = \"a\", \"x.y\" = 'b' }".to_owned()),
        1 => Just("labels = { n = 1 }".to_owned()),
        1 => Just("labels = \"zone\"".to_owned()),
        1 => Just("label = {}".to_owned()),
        1 => Just("available.GPU = 8".to_owned()),
        1 => Just("total.CPU = 4".to_owned()),
        1 => Just("# a comment".to_owned()),
        1 => Just("".to_owned()),
        1 => Just("  id   =   \"spaced\"   # trailing".to_owned()),
    ]
}

/// One node entry: a `[[nodes]]` header, its lines, maybe a sub-table after them.
fn node_entry() -> impl Strategy<Value = String> {
    let sub_table = prop_oneof![
        6 => Just(String::new()),
        1 => Just("[nodes.available]\nGPU = 2\n".to_owned()),
        1 => Just("[nodes.more]\nx = 2\n".to_owned()),
        1 => Just("[nodes.labels]\nzone = \"z\"\n".to_owned()),
        1 => Just("[nodes.total]\nGPU = 8\n".to_owned()),
        1 => Just("[[nodes.labels]]\n".to_owned()),
    ];
    let lines = prop::collection::vec(node_line(), 0..6);
    (lines, sub_table, 0..5u8).prop_map(|(lines, sub, dedup)| {
        let mut text = String::from("[[nodes]]\n");
        let mut seen = Vec::new();
        for line in lines {
            // Mostly one line per key: a key given twice is a syntax error, common enough.
            let key: String = line
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .collect();
            if dedup > 0 && !key.is_empty() && seen.contains(&key) {
                continue;
            }
            seen.push(key);
            text.push_str(&line);
            text.push('\n');
        }
        // Mostly a sub-table of a key the lines do not give.
        let sub_key: String = sub
            .trim_start_matches('[')
            .chars()
            .skip(6)
            .take_while(|c| c.is_ascii_alphabetic())
            .collect();
        if dedup == 0 || !seen.contains(&sub_key) {
            text.push_str(&sub);
        }
        text
    })
}

/// A node entry with nothing wrong in itself (its id may still be another's).
fn good_node() -> impl Strategy<Value = String> {
    (
        "[a-z]{2,6}",
        prop::sample::select(vec![
            "GPU = 8, CPU = 96",
            "NPU = 16",
            "GPU = 0.5",
            "CPU = 0x20",
        ]),
        prop::sample::select(vec![
            "",
            "total = { GPU = 8, CPU = 96 }\n",
            "alive = false\n",
            "labels = { zone = \"a\" }\naddress = '10.0.0.1'\n",
        ]),
        any::<bool>(),
    )
        .prop_map(|(id, available, more, dotted)| {
            let available = if dotted {
                format!("[nodes.available]\n{}\n", available.replace(", ", "\n"))
            } else {
                format!("available = {{ {available} }}\n")
            };
            if dotted {
                format!("[[nodes]]\nid = \"{id}\"\n{more}{available}")
            } else {
                format!("[[nodes]]\n{available}id = \"{id}\"\n{more}")
            }
        })
}

/// Something at the top level of the file besides the node entries.
fn top_level() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("other = 1\n".to_owned()),
        Just("[other]\nx = 1\n".to_owned()),
        Just("[[other]]\n[[other]]\n".to_owned()),
        Just("nodes = 5\n".to_owned()),
        Just("nodes = []\n".to_owned()),
        Just("[nodes]\n".to_owned()),
        Just("nods = []\n".to_owned()),
        Just("nodes = [{ id = \"i\", available = { GPU = 1 } }, 7, { id = \"i\" }]\n".to_owned()),
        Just(
            "nodes = [\n  { id = \"j\", available = { GPU = 1 }, total = { GPU = 0 } },\n]\n"
                .to_owned()
        ),
        Just("a.b = 1\n".to_owned()),
        Just("[a.b]\n[a]\n".to_owned()),
        Just("# only a comment\n".to_owned()),
    ]
}

/// A cluster file: some top-level lines, node entries, maybe more at the end; then, now
/// and then, an edit that may break it (a deleted span, an inserted character, a
/// repeated line).
fn cluster_text() -> impl Strategy<Value = String> {
    let edit = prop_oneof![
        4 => Just(None),
        1 => (any::<prop::sample::Index>(), 1usize..4).prop_map(|(at, n)| Some(("delete", at, n, ' '))),
        1 => (
            any::<prop::sample::Index>(),
            prop::sample::select(vec!['[', ']', '{', '}', '=', '"', '\n', '.', ',', '#', '\'', ' ', '\r', 'x', '0', '\u{7}']),
        )
            .prop_map(|(at, c)| Some(("insert", at, 0, c))),
        1 => any::<prop::sample::Index>().prop_map(|at| Some(("repeat", at, 0, ' '))),
    ];
    (
        prop::collection::vec(top_level(), 0..2),
        prop::collection::vec(prop_oneof![node_entry(), good_node()], 0..5),
        prop::collection::vec(top_level(), 0..2),
        edit,
        any::<bool>(),
        0..5u8,
    )
        .prop_map(|(before, nodes, after, edit, crlf, dedup)| {
            let mut text = String::new();
            for extra in &before {
                // Mostly once each, and no `nodes` key beside `[[nodes]]` entries.
                if (dedup == 0 || !text.contains(extra.as_str()))
                    && (dedup == 0
                        || nodes.is_empty()
                        || !extra.starts_with("nodes") && !extra.starts_with("[nodes"))
                {
                    text.push_str(extra);
                }
            }
            text.push_str(&nodes.join("\n"));
            // Top-level keys after a header belong to it: only tables go after.
            for extra in after {
                if extra.starts_with('[')
                    && (dedup == 0
                        || !text.contains(extra.as_str()) && !extra.starts_with("[nodes"))
                {
                    text.push_str(&extra);
                }
            }
            if crlf {
                text = text.replace('\n', "\r\n");
            }
            match edit {
                Some(("delete", at, n, _)) if !text.is_empty() => {
                    let mut start = at.index(text.len());
                    while !text.is_char_boundary(start) {
                        start -= 1;
                    }
                    let mut end = (start + n).min(text.len());
                    while !text.is_char_boundary(end) {
                        end += 1;
                    }
                    text.replace_range(start..end, "");
                }
                Some(("insert", at, _, c)) => {
                    let mut at = at.index(text.len() + 1);
                    while !text.is_char_boundary(at) {
                        at -= 1;
                    }
                    text.insert(at, c);
                }
                Some(("repeat", at, _, _)) => {
                    let lines: Vec<&str> = text.split_inclusive('\n').collect();
                    if !lines.is_empty() {
                        let i = at.index(lines.len());
                        let mut again = lines[..=i].concat();
                        again.push_str(lines[i]);
                        again.push_str(&lines[i + 1..].concat());
                        text = again;
                    }
                }
                _ => {}
            }
            text
        })
}

fn assert_same(text: &str, limits: &ClusterLimits) -> Result<(), TestCaseError> {
    let source = SourceFile::new("c.toml", text);
    let tree = load_cluster_tree(&source, limits);
    // The default chunks, and chunks cut at every line end they may be cut at.
    for stream in [
        load_cluster_as(&source, ClusterFormat::Toml, limits),
        super::toml_reader::read_toml_in_chunks(&source, limits, 1),
    ] {
        prop_assert_eq!(&stream.diagnostics, &tree.diagnostics, "{}", text);
        prop_assert_eq!(&stream.cluster, &tree.cluster, "{}", text);
        prop_assert_eq!(&stream.spans, &tree.spans, "{}", text);
    }
    Ok(())
}

proptest! {
    #![proptest_config(Config::with_cases(2000))]

    /// On generated files, broken ones included, the streaming reader gives what the
    /// tree reader gives: diagnostics (codes, messages, spans, order), cluster, spans.
    #[test]
    fn the_streaming_reader_agrees_with_the_tree_reader(text in cluster_text(), limit in 0usize..6) {
        assert_same(&text, &ClusterLimits::default())?;
        assert_same(&text, &ClusterLimits { max_nodes: limit })?;
    }
}

/// The generator is not trivial: it makes valid files, files with structure problems
/// only, and files with syntax errors, each often enough.
#[test]
fn generated_files_cover_valid_structure_and_syntax_problems() {
    let mut runner = TestRunner::deterministic();
    let strategy = cluster_text();
    let (mut valid, mut structure, mut syntax) = (0, 0, 0);
    for _ in 0..2000 {
        let text = strategy.new_tree(&mut runner).expect("a case").current();
        let loaded = load_cluster(&SourceFile::new("c.toml", text), &ClusterLimits::default());
        if loaded.diagnostics.iter().any(ClusterDiagnostic::is_syntax) {
            syntax += 1;
        } else if loaded.cluster.is_some() {
            valid += 1;
        } else {
            structure += 1;
        }
    }
    eprintln!("{valid} valid, {structure} structure, {syntax} syntax");
    assert!(
        valid >= 50 && structure >= 200 && syntax >= 200,
        "{valid} valid, {structure} structure, {syntax} syntax"
    );
}

#[test]
fn chunks_cut_only_between_expressions() {
    // A `[` that starts a line inside an array or an inline table is no header.
    for text in [
        "nodes = [\n[1],\n]\n",
        "nodes = [\n{ id = \"a\", available = { GPU = 1 } },\n]\n",
        "[[nodes]]\nid = \"a\"\navailable = {\n  GPU = 1,\n}\nlabels = { a = \"\"\"\n[x]\n\"\"\" }\n",
        "[[nodes]]\nid = \"a\"\navailable = { GPU = 1 }\n  [nodes.labels]\n  zone = \"b\"\n",
        "\u{feff}[[nodes]]\nid = \"a\"\navailable = { GPU = 1 }\n",
        // TOML 1.1: newlines anywhere in an inline table.
        "[[nodes]]\navailable = { CPU\n = 8, GPU =\n 8 }\nid = \"a\"\n",
    ] {
        assert_same(text, &ClusterLimits::default()).unwrap();
    }
}

#[test]
fn header_tables_extend_the_last_node() {
    let text = "[[nodes]]\nid = \"a\"\n[nodes.available]\nGPU = 8\n[[nodes]]\nid = \"b\"\navailable.GPU = 4\n";
    let loaded = load_cluster(&SourceFile::new("c.toml", text), &ClusterLimits::default());
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let cluster = loaded.cluster.unwrap();
    let gpus: Vec<String> = cluster
        .nodes
        .iter()
        .map(|n| n.available.to_string())
        .collect();
    assert_eq!(gpus, ["{GPU: 8}", "{GPU: 4}"]);
    assert_same(text, &ClusterLimits::default()).unwrap();
}
