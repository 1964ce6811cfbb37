//! The JSON reader: a document written as TOML and as JSON reads to the same cluster and
//! the same problems (in each format's words, on each file's spans); JSON syntax is what
//! serde_json accepts.

use proptest::prelude::*;
use proptest::test_runner::Config;

use super::*;

/// A value of the abstract document, written in either format.
#[derive(Clone, Debug)]
enum Item {
    Text(&'static str),
    /// A number, as both formats write it.
    Number(&'static str),
    Bool(bool),
    List(Vec<Item>),
    Map(Vec<(String, Item)>),
}

impl Item {
    fn toml(&self) -> String {
        match self {
            Item::Text(s) => format!("{s:?}"),
            Item::Number(n) => (*n).to_owned(),
            Item::Bool(b) => b.to_string(),
            Item::List(items) => {
                let items: Vec<String> = items.iter().map(Item::toml).collect();
                format!("[{}]", items.join(", "))
            }
            Item::Map(entries) => {
                let entries: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| format!("{k:?} = {}", v.toml()))
                    .collect();
                format!("{{ {} }}", entries.join(", "))
            }
        }
    }

    fn json(&self) -> String {
        match self {
            Item::Text(s) => format!("{s:?}"),
            Item::Number(n) => (*n).to_owned(),
            Item::Bool(b) => b.to_string(),
            Item::List(items) => {
                let items: Vec<String> = items.iter().map(Item::json).collect();
                format!("[{}]", items.join(", "))
            }
            Item::Map(entries) => {
                let entries: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| format!("{k:?}: {}", v.json()))
                    .collect();
                format!("{{{}}}", entries.join(", "))
            }
        }
    }
}

fn number() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "8",
        "0",
        "96",
        "-1",
        "-0",
        "1.5",
        "0.25",
        "1e3",
        "2E-2",
        "0.00001",
        "1e300",
        "99999999999999999999",
        "12345678901234567890123",
    ])
}

fn scalar() -> impl Strategy<Value = Item> {
    prop_oneof![
        prop::sample::select(vec!["a", "b", "node-1", "é中", "x\"y", "tab\t", ""])
            .prop_map(Item::Text),
        number().prop_map(Item::Number),
        any::<bool>().prop_map(Item::Bool),
    ]
}

fn value() -> impl Strategy<Value = Item> {
    scalar().prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Item::List),
            prop::collection::vec(("[a-c]", inner), 0..3).prop_map(|e| Item::Map(dedup(e))),
        ]
    })
}

fn dedup(entries: Vec<(String, Item)>) -> Vec<(String, Item)> {
    let mut out: Vec<(String, Item)> = Vec::new();
    for (k, v) in entries {
        if !out.iter().any(|(seen, _)| *seen == k) {
            out.push((k, v));
        }
    }
    out
}

fn resources() -> impl Strategy<Value = Item> {
    let name = prop::sample::select(vec!["GPU", "CPU", "NPU", "accelerator_type:H100", "x"]);
    let amount = prop_oneof![4 => number().prop_map(Item::Number), 1 => scalar()];
    prop::collection::vec((name.prop_map(str::to_owned), amount), 0..4)
        .prop_map(|e| Item::Map(dedup(e)))
}

fn node() -> impl Strategy<Value = Item> {
    let entry = prop_oneof![
        4 => prop_oneof![4 => prop::sample::select(vec!["a", "b", "c", "d"]).prop_map(Item::Text), 1 => value()]
            .prop_map(|v| ("id".to_owned(), v)),
        4 => prop_oneof![4 => resources(), 1 => value()].prop_map(|v| ("available".to_owned(), v)),
        2 => prop_oneof![4 => resources(), 1 => value()].prop_map(|v| ("total".to_owned(), v)),
        1 => value().prop_map(|v| ("address".to_owned(), v)),
        1 => value().prop_map(|v| ("alive".to_owned(), v)),
        1 => prop_oneof![Just(Item::Map(vec![("zone".into(), Item::Text("a"))])), value()]
            .prop_map(|v| ("labels".to_owned(), v)),
        1 => value().prop_map(|v| ("availble".to_owned(), v)),
    ];
    prop::collection::vec(entry, 0..6).prop_map(|e| Item::Map(dedup(e)))
}

/// A whole cluster document: `nodes` (usually a list of nodes) and maybe other keys.
fn document() -> impl Strategy<Value = Vec<(String, Item)>> {
    let nodes = prop_oneof![
        8 => prop::collection::vec(prop_oneof![8 => node(), 1 => value()], 0..5).prop_map(Item::List),
        1 => value(),
    ];
    (
        prop::option::of(nodes),
        prop::option::of(value().prop_map(|v| ("other".to_owned(), v))),
    )
        .prop_map(|(nodes, other)| {
            let mut entries = Vec::new();
            if let Some(nodes) = nodes {
                entries.push(("nodes".to_owned(), nodes));
            }
            entries.extend(other);
            entries
        })
}

/// A diagnostic in words common to both formats: its code and message.
fn words(diagnostic: &ClusterDiagnostic) -> String {
    let code = miette::Diagnostic::code(diagnostic).map(|c| c.to_string());
    format!("{code:?} {diagnostic}")
        .replace("an object", "a table")
        .replace("found object", "found table")
        .replace("found integer", "found number")
        .replace("found float", "found number")
}

proptest! {
    #![proptest_config(Config::with_cases(1500))]

    /// The same document as TOML (top-level keys as `key = value`) and as JSON: the same
    /// cluster, the same problems in the same order; each label within its file.
    #[test]
    fn json_reads_as_toml_does(doc in document()) {
        let toml: String = doc.iter().map(|(k, v)| format!("{k} = {}\n", v.toml())).collect();
        let json = format!(
            "{{{}}}",
            doc.iter().map(|(k, v)| format!("{k:?}: {}", v.json())).collect::<Vec<_>>().join(",\n")
        );
        let from_toml = load_cluster(&SourceFile::new("c.toml", toml.as_str()), &ClusterLimits::default());
        let from_json = load_cluster(&SourceFile::new("c.json", json.as_str()), &ClusterLimits::default());
        prop_assert!(!from_toml.diagnostics.iter().any(ClusterDiagnostic::is_syntax), "{toml}\n{:?}", from_toml.diagnostics);
        let toml_words: Vec<String> = from_toml.diagnostics.iter().map(words).collect();
        let json_words: Vec<String> = from_json.diagnostics.iter().map(words).collect();
        prop_assert_eq!(toml_words, json_words, "{}\n{}", toml, json);
        prop_assert_eq!(&from_toml.cluster, &from_json.cluster);
        for diagnostic in &from_json.diagnostics {
            for label in miette::Diagnostic::labels(diagnostic).into_iter().flatten() {
                prop_assert!(label.offset() + label.len() <= json.len());
            }
        }
    }

    /// What is JSON is what serde_json reads (but for a key repeated in one object, which
    /// serde_json lets the last win and we refuse, and numbers past `f64`'s range), on
    /// documents with one edit.
    #[test]
    fn json_syntax_is_serde_json_s(doc in document(), at in any::<prop::sample::Index>(), edit in 0..4u8, c in prop::sample::select(vec!['{', '}', '[', ']', ',', ':', '"', '\\', '0', 'e', '-', '.', ' ', 'n', '\u{1}'])) {
        let mut json = format!(
            "{{{}}}",
            doc.iter().map(|(k, v)| format!("{k:?}: {}", v.json())).collect::<Vec<_>>().join(", ")
        );
        let mut i = at.index(json.len() + 1);
        while !json.is_char_boundary(i) {
            i -= 1;
        }
        match edit {
            0 => {}
            1 => json.insert(i, c),
            _ if i < json.len() => {
                let mut end = i + 1;
                while !json.is_char_boundary(end) {
                    end += 1;
                }
                json.replace_range(i..end, "");
            }
            _ => {}
        }
        let ours = load_cluster(&SourceFile::new("c.json", json.as_str()), &ClusterLimits::default());
        let syntax: Vec<&ClusterDiagnostic> = ours.diagnostics.iter().filter(|d| d.is_syntax()).collect();
        let serde = serde_json::from_str::<serde_json::Value>(&json);
        match (syntax.first(), &serde) {
            (None, Ok(_)) | (Some(_), Err(_)) => {}
            (Some(ClusterDiagnostic::JsonSyntax { message, .. }), Ok(_)) if message.starts_with("duplicate key") => {}
            // A number past f64's range: too large an amount to us, no JSON to serde_json.
            (None, Err(error)) if error.to_string().contains("number out of range") => {}
            (ours, serde) => prop_assert!(false, "ours {ours:?}, serde_json {serde:?}: {json}"),
        }
    }
}

/// A plain node entry's JSON, in one of the ways files write it: keys in any order,
/// optional keys left out, numbers of every form, labels, escapes, odd spacing.
fn plain_node_json() -> impl Strategy<Value = String> {
    let id = prop::sample::select(vec!["\"a\"", "\"b\"", "\"n\\u0031\"", "\"é\""]);
    let amounts = || {
        prop::collection::vec(
            (
                prop::sample::select(vec![
                    "\"GPU\"",
                    "\"CPU\"",
                    "\"NPU\"",
                    "\"x\"",
                    "\"G\\u0050U\"",
                ]),
                number(),
            ),
            0..4,
        )
        .prop_map(|entries| {
            let entries: Vec<String> = entries.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            format!("{{{}}}", entries.join(", "))
        })
    };
    // Tables of a few texts, so that entries repeat the text of an earlier one (which the
    // fast path does not read again), or nearly: one byte more or less, or not plain.
    let repeated = || {
        prop::sample::select(vec![
            "{\"GPU\": 8}",
            "{\"GPU\": 80}",
            "{\"GPU\": 8, \"CPU\": 96}",
            "{\"GPU\": 8,\"CPU\": 96}",
            "{\"GPU\": 8, \"CPU\": 9}",
            "{\"GPU\": 8, \"GPU\": 8}",
            "{\"GPU\": -8}",
            "{}",
        ])
    };
    let amounts = move || prop_oneof![amounts(), repeated().prop_map(str::to_owned)];
    let member = prop_oneof![
        id.prop_map(|v| format!("\"id\": {v}")),
        amounts().prop_map(|v| format!("\"available\": {v}")),
        amounts().prop_map(|v| format!("\"total\": {v}")),
        Just("\"address\": \"10.0.0.1\"".to_owned()),
        any::<bool>().prop_map(|b| format!("\"alive\": {b}")),
        Just("\"labels\": {\"zone\": \"a\", \"rack\": \"r\\n1\"}".to_owned()),
        Just("\"labels\": {}".to_owned()),
    ];
    (
        prop::collection::vec(member, 0..7),
        prop::sample::select(vec!["", " ", "\n  "]),
    )
        .prop_map(|(members, gap)| format!("{{{gap}{}{gap}}}", members.join(&format!(",{gap}"))))
}

proptest! {
    #![proptest_config(Config::with_cases(1500))]

    /// The fast path for plain node entries reads what the general reading does: the
    /// same cluster, spans and problems, on generated files (plain and not, with one edit
    /// that may break them) and under a node limit that the file may pass.
    #[test]
    fn the_fast_path_reads_as_the_general_reading(
        plain in prop::collection::vec(plain_node_json(), 0..6),
        doc in document(),
        at in any::<prop::sample::Index>(),
        edit in 0..3u8,
        c in prop::sample::select(vec!['{', '}', ',', ':', '"', '\\', '0', '-', '.', 'e', ' ']),
        limit in 1..8usize,
    ) {
        let others: Vec<String> = match doc.iter().find(|(k, _)| k == "nodes") {
            Some((_, Item::List(items))) => items.iter().map(Item::json).collect(),
            _ => Vec::new(),
        };
        let entries: Vec<String> = plain.into_iter().chain(others).collect();
        let json = edited(format!("{{\"nodes\": [{}]}}", entries.join(", ")), at, edit, c);
        assert_fast_path_reads_as_general(&json, limit)?;
    }

    /// Entries written alike, as a program writes them (one shape: the same keys in the
    /// same order, the same spacing), with values of every kind, plain or not, some of
    /// another shape, and one edit: the fast path, which reads an entry of the last
    /// entry's shape value by value, reads them as the general reading does.
    #[test]
    fn entries_of_one_shape_read_as_the_general_reading(
        (keys, entries) in shaped_entries(),
        gap in prop::sample::select(vec!["", " ", "\n  "]),
        colon in prop::sample::select(vec![":", ": ", " : "]),
        at in any::<prop::sample::Index>(),
        edit in 0..3u8,
        c in prop::sample::select(vec!['{', '}', ',', ':', '"', '\\', '0', '-', '.', 'e', ' ']),
        limit in 1..8usize,
    ) {
        let entries: Vec<String> = entries
            .iter()
            .map(|(values, other_gap)| {
                let gap = if *other_gap { "  " } else { gap };
                let members: Vec<String> = keys
                    .iter()
                    .zip(values)
                    .map(|(key, value)| format!("\"{key}\"{colon}{value}"))
                    .collect();
                format!("{{{gap}{}{gap}}}", members.join(&format!(",{gap}")))
            })
            .collect();
        let json = edited(format!("{{\"nodes\": [\n{}\n]}}", entries.join(",\n")), at, edit, c);
        assert_fast_path_reads_as_general(&json, limit)?;
    }
}

/// The keys of a shape (some of a node's, in any order) and entries of it: each key's
/// value, and whether the entry is spaced otherwise.
fn shaped_entries() -> impl Strategy<Value = (Vec<&'static str>, Vec<(Vec<&'static str>, bool)>)> {
    let keys = prop::sample::subsequence(
        vec!["id", "available", "total", "address", "alive", "labels"],
        0..=6,
    )
    .prop_shuffle();
    keys.prop_flat_map(|keys| {
        let values: Vec<BoxedStrategy<&'static str>> = keys
            .iter()
            .map(|key| match *key {
                "id" | "address" => prop::sample::select(vec![
                    "\"a\"",
                    "\"b\"",
                    "\"node-10\"",
                    "\"n\\u0031\"",
                    "\"é\"",
                    "1",
                    "\"x",
                ])
                .boxed(),
                "available" | "total" => prop::sample::select(vec![
                    "{\"GPU\": 8}",
                    "{\"GPU\": 8, \"CPU\": 96}",
                    "{\"CPU\": 96, \"GPU\": 8}",
                    "{\"GPU\": 4}",
                    "{\"GPU\": 8.5, \"x\": 0}",
                    "{\"GPU\": -8}",
                    "{\"GPU\": 01}",
                    "{}",
                    "[]",
                ])
                .boxed(),
                "alive" => prop::sample::select(vec!["true", "false", "null", "truex"]).boxed(),
                _ => prop::sample::select(vec!["{}", "{\"zone\": \"a\"}", "{\"zone\": 1}"]).boxed(),
            })
            .collect();
        let entry = (values, prop::bool::weighted(0.1));
        (Just(keys), prop::collection::vec(entry, 1..8))
    })
}

/// `json` with one edit at `at`: none, `c` inserted, or a character taken out.
fn edited(mut json: String, at: prop::sample::Index, edit: u8, c: char) -> String {
    let mut i = at.index(json.len() + 1);
    while !json.is_char_boundary(i) {
        i -= 1;
    }
    match edit {
        1 => json.insert(i, c),
        2 if i < json.len() => {
            let mut end = i + 1;
            while !json.is_char_boundary(end) {
                end += 1;
            }
            json.replace_range(i..end, "");
        }
        _ => {}
    }
    json
}

/// The same cluster, spans and problems with the fast path and without, with no limit
/// and with `limit` nodes.
fn assert_fast_path_reads_as_general(json: &str, limit: usize) -> Result<(), TestCaseError> {
    let source = SourceFile::new("c.json", json);
    for limits in [ClusterLimits::default(), ClusterLimits { max_nodes: limit }] {
        let fast = load_cluster(&source, &limits);
        let general = load_json_general(&source, &limits);
        prop_assert_eq!(&fast.cluster, &general.cluster, "{}", json);
        prop_assert_eq!(&fast.spans, &general.spans, "{}", json);
        prop_assert_eq!(&fast.diagnostics, &general.diagnostics, "{}", json);
    }
    Ok(())
}

proptest! {
    #![proptest_config(Config::with_cases(500))]

    /// Entries whose tables repeat earlier texts, in every pairing of `available` and
    /// `total` (more available than in total among them): the fast path, which reads a
    /// repeated text and checks a repeated pair only once, reads them as the general
    /// reading does.
    #[test]
    fn repeated_tables_read_as_the_general_reading(
        pairs in prop::collection::vec((0..5usize, prop::option::of(0..5usize)), 1..10),
    ) {
        let tables = ["{\"GPU\": 8}", "{\"GPU\": 80}", "{\"GPU\": 8, \"CPU\": 96}", "{\"CPU\": 96}", "{}"];
        let entries: Vec<String> = pairs
            .iter()
            .enumerate()
            .map(|(i, (available, total))| match total {
                Some(t) => format!("{{\"id\": \"n{i}\", \"available\": {}, \"total\": {}}}", tables[*available], tables[*t]),
                None => format!("{{\"id\": \"n{i}\", \"available\": {}}}", tables[*available]),
            })
            .collect();
        let json = format!("{{\"nodes\": [{}]}}", entries.join(", "));
        let source = SourceFile::new("c.json", json.as_str());
        let fast = load_cluster(&source, &ClusterLimits::default());
        let general = load_json_general(&source, &ClusterLimits::default());
        prop_assert_eq!(&fast.cluster, &general.cluster, "{}", json);
        prop_assert_eq!(&fast.diagnostics, &general.diagnostics, "{}", json);
    }
}

#[test]
fn nesting_stops_where_serde_json_s_does() {
    for depth in [126, 127, 128, 129, 200_000] {
        let json = format!("{{\"x\": {}{}}}", "[".repeat(depth), "]".repeat(depth));
        let ours = load_cluster(
            &SourceFile::new("c.json", json.as_str()),
            &ClusterLimits::default(),
        );
        let serde_ok = serde_json::from_str::<serde_json::Value>(&json).is_ok();
        let ours_ok = !ours.diagnostics.iter().any(ClusterDiagnostic::is_syntax);
        assert_eq!(ours_ok, serde_ok, "depth {depth}");
    }
}

#[test]
fn printed_json_reads_back() {
    let text = "[[nodes]]\nid = \"a\\\"b\"\naddress = \"10.0.0.1\"\nalive = false\navailable = { GPU = 8, \"accelerator_type:H100\" = 0.0001 }\ntotal = { GPU = 8, CPU = 96.5, \"accelerator_type:H100\" = 1 }\nlabels = { zone = \"é\" }\n\n[[nodes]]\nid = \"b\"\navailable = {}\n";
    let cluster = load_cluster(&SourceFile::new("c.toml", text), &ClusterLimits::default())
        .cluster
        .expect("valid");
    let json = cluster_to_json(&cluster);
    assert!(
        serde_json::from_str::<serde_json::Value>(&json).is_ok(),
        "{json}"
    );
    let again = load_cluster(
        &SourceFile::new("<stdin>", json.as_str()),
        &ClusterLimits::default(),
    );
    assert!(again.diagnostics.is_empty(), "{:?}", again.diagnostics);
    assert_eq!(again.cluster, Some(cluster));
}
