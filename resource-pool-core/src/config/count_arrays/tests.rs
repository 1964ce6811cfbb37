//! Arrays of counts read ahead of the parser: which arrays are, and that a config loads
//! exactly as the tree reader loads it (document, diagnostics, manager, override errors),
//! on generated configs, broken ones and ones with overrides included.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};

use super::{Arrays, find, worth_reading_ahead};
use crate::lint::LintOptions;
use crate::load::load_config_as;
use crate::source::SourceFile;

/// The arrays read ahead in `text`, as the text of each.
fn read_ahead(text: &str) -> Vec<&str> {
    find(text)
        .into_iter()
        .map(|(span, _)| &text[span])
        .collect()
}

#[test]
fn plain_arrays_of_counts_after_an_equals_sign_are_read_ahead() {
    let text = "a = [8, 8]\nb=[0,4294967295,]\nc = [ ]\nd = [\n  1,\r\n  2\n]\ne = { f = [3] }\n";
    assert_eq!(
        read_ahead(text),
        [
            "[8, 8]",
            "[0,4294967295,]",
            "[ ]",
            "[\n  1,\r\n  2\n]",
            "[3]"
        ]
    );
    let (_, counts) = &find("a = [ 12 ,\t7]")[0];
    let counts: Vec<_> = counts.iter().map(|c| (c.value, c.span.clone())).collect();
    assert_eq!(counts, [(12, 6..8), (7, 11..12)]);
}

#[test]
fn anything_else_is_left_to_the_parser() {
    for text in [
        "a = [8, -8]",
        "a = [+8]",
        "a = [08]",
        "a = [00]",
        "a = [1_000]",
        "a = [8.0]",
        "a = [1e3]",
        "a = [0x10]",
        "a = [4294967296]",
        "a = [99999999999999999999]",
        "a = [8 8]",
        "a = [8,,8]",
        "a = [,]",
        "a = [8 # eight\n]",
        "a = [[8]]",
        "a = [8, \"8\"]",
        "a = [8\r]",
        "a = [8",
        "a = [8,",
        "a =\n[8]",
        "[8]\n",
        "x = \"a = [8]\"",
        "x = '''\na = [8]\n'''",
        "# a = [8]",
        "a = [1979-05-27]",
        "a = [12:00:00]",
        "a = [8\u{feff}]",
    ] {
        assert_eq!(read_ahead(text), Vec::<&str>::new(), "{text:?}");
    }
    // `a = [8]]`: the array is read ahead, the stray `]` is the parser's to refuse.
    assert_eq!(read_ahead("a = [8]]"), ["[8]"]);
    // An array followed by a byte-order mark is not read ahead (a lexer started after it
    // would skip the mark); the lexer goes on through it to the next.
    let found: Vec<usize> = find("a = [8]\u{feff}b = [8]")
        .into_iter()
        .map(|(span, _)| span.start)
        .collect();
    assert_eq!(found, [14]);
    assert_eq!(read_ahead("\u{feff}a = [8]"), ["[8]"]);
}

#[test]
fn files_are_read_ahead_when_their_lists_of_counts_are_long_enough() {
    let two_slots = "[pools.global_pool]\nprocess_on_nodes = [8, 8]\n\n[mapping]\nactor_rollout = \"global_pool\"\n";
    assert!(!worth_reading_ahead(two_slots));
    let long = format!("[pools.p]\nprocess_on_nodes = [{}8]\n", "8, ".repeat(90));
    assert!(worth_reading_ahead(&long));
    // The same list in a file sixteen times its size is not worth the lexer's pass.
    let padded = format!(
        "{long}{}",
        "# a comment line of no count at all\n".repeat(150)
    );
    assert!(!worth_reading_ahead(&padded));
}

#[test]
fn the_parser_reads_the_rest_with_the_same_spans() {
    let text = "[pools.p]\nprocess_on_nodes = [8,\r\n 8] # two\n";
    assert_eq!(
        super::blanked_text(text),
        "[pools.p]\nprocess_on_nodes = [  \r\n  ] # two\n".replace('\r', " ")
    );
}

#[test]
fn a_broken_file_gets_the_errors_of_its_own_text() {
    // Found by the `config_toml` fuzz target with the fallback removed: the parser,
    // recovering from the errors before it, reads `[\n7]` other than it reads `[\n ]`.
    let text = "==========pool\" = [\n7]\n''' \"gpmaln_\"e\nrp";
    assert_eq!(read_ahead(text), ["[\n7]"]);
    assert_same(text, &[]).unwrap();
}

/// An element of `process_on_nodes`: mostly plain counts, and all that is not one.
fn element() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        6 => Just("8"),
        2 => Just("4"),
        2 => Just("0"),
        1 => Just("4294967295"),
        1 => Just("4294967296"),
        1 => Just("99999999999999999999"),
        1 => Just("-1"),
        1 => Just("+8"),
        1 => Just("-0"),
        1 => Just("08"),
        1 => Just("1_0"),
        1 => Just("8.0"),
        1 => Just("1e3"),
        1 => Just("0x10"),
        1 => Just("nan"),
        1 => Just("\"8\""),
        1 => Just("true"),
        1 => Just("[8]"),
        1 => Just("{ a = 1 }"),
        1 => Just("1979-05-27"),
        1 => Just(""),
    ]
}

/// What stands between elements: commas where TOML wants them, and now and then not.
fn separator() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        8 => Just(", "),
        2 => Just(","),
        1 => Just(" , "),
        1 => Just(",\n  "),
        1 => Just(",\r\n"),
        1 => Just("\n, "),
        1 => Just(",\t"),
        1 => Just(", # note\n"),
        1 => Just(" "),
        1 => Just(",,"),
        1 => Just(",\r"),
    ]
}

/// A plain count.
fn count() -> impl Strategy<Value = &'static str> {
    prop_oneof![8 => Just("8"), 2 => Just("4"), 1 => Just("0"), 1 => Just("4294967295")]
}

/// A `process_on_nodes` array: mostly plain counts, now and then anything.
fn array() -> impl Strategy<Value = String> {
    let sep = prop_oneof![4 => Just(", "), 1 => Just(","), 1 => Just(",\n  "), 1 => Just(",\r\n")];
    let plain = (prop::collection::vec((count(), sep), 1..8), any::<bool>()).prop_map(
        |(items, trailing)| {
            let mut out = "[".to_owned();
            for (i, (item, sep)) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                out.push_str(item);
            }
            if trailing {
                out.push(',');
            }
            out.push(']');
            out
        },
    );
    // Plain counts but for one separator or element, most often.
    let nearly = (
        prop::collection::vec((count(), separator()), 1..6),
        element(),
        0..6usize,
    )
        .prop_map(|(items, odd, at)| {
            let mut out = "[".to_owned();
            for (i, (item, sep)) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                out.push_str(if i == at { odd } else { item });
            }
            out.push(']');
            out
        });
    prop_oneof![4 => plain, 2 => nearly, 1 => any_array()]
}

/// An array of anything, well formed or not.
fn any_array() -> impl Strategy<Value = String> {
    let items = prop::collection::vec((element(), separator()), 0..7);
    let open = prop_oneof![4 => Just("["), 1 => Just("[ "), 1 => Just("[\n"), 1 => Just("")];
    let close = prop_oneof![6 => Just("]"), 1 => Just(",]"), 1 => Just("\n]"), 1 => Just("")];
    (open, items, close).prop_map(|(open, items, close)| {
        let mut out = open.to_owned();
        for (i, (item, sep)) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            out.push_str(item);
        }
        out.push_str(close);
        out
    })
}

/// A line of a pool table other than its `process_on_nodes`.
fn pool_line() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => Just("max_colocate_count = 3".to_owned()),
        8 => Just("accelerator = \"GPU\"".to_owned()),
        1 => Just("gpus_per_node = 8".to_owned()),
        1 => Just("nnodes = 2".to_owned()),
        1 => Just("accelerator = \"NPU\"".to_owned()),
        1 => Just("accelerator = \"gpu\"".to_owned()),
        1 => Just("max_colocate_count = 0".to_owned()),
        1 => Just("max_colocate_count = [3]".to_owned()),
        1 => Just("bundle_resources = { my_custom = 1 }".to_owned()),
        1 => Just("bundle_resources = [1, 2]".to_owned()),
        1 => Just("unknown = [8, 8]".to_owned()),
        1 => array().prop_map(|a| format!("process_on_nodes = {a}")),
        1 => array().prop_map(|a| format!("gpus_per_node = {a}")),
        1 => Just("x = \"\"\"\nprocess_on_nodes = [8]\n\"\"\"".to_owned()),
        1 => Just("# process_on_nodes = [8]".to_owned()),
        1 => Just("= [8]".to_owned()),
        1 => Just("[8, 8]".to_owned()),
    ]
}

/// One pool, in one of TOML's ways of writing a table.
fn pool() -> impl Strategy<Value = String> {
    let name = prop_oneof![Just("p0"), Just("p1"), Just("\"p0\""), Just("global_pool")];
    let lines = prop::collection::vec(pool_line(), 0..3);
    (name, array(), lines, 0..4u8).prop_map(|(name, array, lines, form)| {
        let list = format!("process_on_nodes = {array}");
        match form {
            0 | 1 => format!("[pools.{name}]\n{list}\n{}\n", lines.join("\n")),
            2 => format!("pools.{name}.{list}\n"),
            _ => format!("pools.{name} = {{ {list} }}\n"),
        }
    })
}

/// A config: pools (top-level dotted ones first, as TOML wants them before headers), a
/// mapping, and now and then something broken or odd.
fn config_text() -> impl Strategy<Value = String> {
    let mapping = prop::collection::vec(
        (
            prop_oneof![
                Just("actor_rollout"),
                Just("critic"),
                Just("ref"),
                Just("rm")
            ],
            prop_oneof![
                Just("\"p0\""),
                Just("\"p1\""),
                Just("\"global_pool\""),
                Just("[8]")
            ],
        ),
        0..3,
    );
    let extra = prop_oneof![
        20 => Just(""),
        1 => Just("\u{feff}"),
        1 => Just("top = [8, 8]\n"),
        1 => Just("pools = [8]\n"),
        1 => Just("a = [8] b\n"),
        1 => Just("[x = [8, 8]]\n"),
        1 => Just("a = = [8, 8]\n"),
        1 => Just("= [8]\n"),
        1 => Just("a = [8, 8] = [8]\n"),
        1 => Just("a = \"x\n = [8, 8]\n"),
        1 => Just("== [\n7]\n"),
        1 => Just("a\" = [\n7, 8]\n"),
    ];
    (extra, prop::collection::vec(pool(), 0..3), mapping).prop_map(|(extra, pools, mapping)| {
        let (dotted, tables): (Vec<_>, Vec<_>) =
            pools.into_iter().partition(|p| !p.starts_with('['));
        let mut text = extra.to_owned();
        for pool in dotted.iter().chain(&tables) {
            text.push_str(pool);
        }
        text.push_str("[mapping]\n");
        for (role, pool) in mapping {
            text.push_str(&format!("{role} = {pool}\n"));
        }
        text
    })
}

/// Overrides, well formed or not.
fn overrides() -> impl Strategy<Value = Vec<String>> {
    let one = prop_oneof![
        Just("pools.p0.process_on_nodes=[8,8]"),
        Just("pools.p0.process_on_nodes=[1, 0]"),
        Just("pools.p0.nnodes=2"),
        Just("pools.p0.process_on_nodes.x=1"),
        Just("pools.p0=[8]"),
        Just("mapping.critic=\"p0\""),
        Just("nokey"),
        Just("pools.p0.process_on_nodes=[8,"),
    ];
    prop::collection::vec(one.prop_map(str::to_owned), 0..3)
}

/// The read-ahead load and the tree reader's agree on everything they say.
fn assert_same(text: &str, overrides: &[String]) -> Result<(), TestCaseError> {
    let source = SourceFile::new("c.toml", text);
    let options = LintOptions::default();
    let fast = load_config_as(&source, overrides, &options, Arrays::Always);
    let tree = load_config_as(&source, overrides, &options, Arrays::FromTree);
    match (fast, tree) {
        (Ok(fast), Ok(tree)) => {
            prop_assert_eq!(&fast.doc, &tree.doc, "documents differ: {:?}", text);
            prop_assert_eq!(&fast.diagnostics, &tree.diagnostics, "{:?}", text);
            prop_assert_eq!(&fast.manager, &tree.manager, "{:?}", text);
            prop_assert_eq!(fast.source.text(), tree.source.text());
        }
        (Err(fast), Err(tree)) => {
            prop_assert_eq!(
                &fast.errors,
                &tree.errors,
                "override errors differ: {:?}",
                text
            );
        }
        (fast, tree) => prop_assert!(
            false,
            "one loads, the other fails: {:?} / {:?} on {:?}",
            fast.map(|l| l.diagnostics),
            tree.map(|l| l.diagnostics),
            text
        ),
    }
    Ok(())
}

proptest! {
    #![proptest_config(Config::with_cases(3000))]

    /// On generated configs, broken ones and overridden ones included, reading arrays of
    /// counts ahead gives what the tree reader gives: document, diagnostics (codes,
    /// messages, spans, order), manager, or the same override errors.
    #[test]
    fn reading_ahead_agrees_with_the_tree_reader(text in config_text(), set in overrides()) {
        assert_same(&text, &[])?;
        assert_same(&text, &set)?;
    }
}

/// The generator is not trivial: it makes valid configs, configs with structure or lint
/// problems only, and broken ones, each often enough; and many of them have arrays read
/// ahead.
#[test]
fn generated_configs_cover_the_cases() {
    let mut runner = TestRunner::deterministic();
    let strategy = config_text();
    let (mut valid, mut invalid, mut syntax, mut ahead) = (0, 0, 0, 0);
    for _ in 0..3000 {
        let text = strategy.new_tree(&mut runner).expect("a case").current();
        let loaded = crate::load::load_config(
            &SourceFile::new("c.toml", text.as_str()),
            &LintOptions::default(),
        );
        if loaded.diagnostics.iter().any(|d| d.is_syntax()) {
            syntax += 1;
        } else if loaded.manager.is_some() {
            valid += 1;
        } else {
            invalid += 1;
        }
        if !find(&text).is_empty() {
            ahead += 1;
        }
    }
    eprintln!("{valid} valid, {invalid} invalid, {syntax} syntax, {ahead} read ahead");
    assert!(
        valid >= 100 && invalid >= 300 && syntax >= 300 && ahead >= 1000,
        "{valid} valid, {invalid} invalid, {syntax} syntax, {ahead} read ahead"
    );
}

/// The file of a derived pool struct: tables `[p0]` and `[p1]` (the fields), with the
/// lines of a pool.
fn struct_text() -> impl Strategy<Value = String> {
    let table = (
        prop_oneof![Just("p0"), Just("p1"), Just("other")],
        array(),
        prop::collection::vec(pool_line(), 0..3),
    )
        .prop_map(|(name, array, lines)| {
            format!(
                "[{name}]\nprocess_on_nodes = {array}\n{}\n",
                lines.join("\n")
            )
        });
    prop::collection::vec(table, 0..3).prop_map(|tables| tables.concat())
}

proptest! {
    #![proptest_config(Config::with_cases(1000))]

    /// A derived struct's file loads the same with arrays read ahead as from the tree.
    #[test]
    fn struct_files_load_as_from_the_tree(text in struct_text()) {
        use crate::config::{PoolDefaults, PoolField};
        use crate::load::load_struct_pools_as;
        let fields = [
            PoolField { name: "p0", defaults: PoolDefaults::default(), worker_groups: 1 },
            PoolField {
                name: "p1",
                defaults: PoolDefaults { process_on_nodes: Some(vec![4]), ..PoolDefaults::default() },
                worker_groups: 2,
            },
        ];
        let source = SourceFile::new("p.toml", text.as_str());
        let fast = load_struct_pools_as(&source, &fields, Arrays::Always);
        let tree = load_struct_pools_as(&source, &fields, Arrays::FromTree);
        match (fast, tree) {
            (Ok(fast), Ok(tree)) => {
                prop_assert_eq!(fast.specs, tree.specs, "{:?}", text);
                prop_assert_eq!(fast.warnings.diagnostics, tree.warnings.diagnostics);
            }
            (Err(fast), Err(tree)) => prop_assert_eq!(fast.diagnostics, tree.diagnostics),
            (fast, tree) => prop_assert!(false, "{:?} / {:?} on {:?}", fast, tree, text),
        }
    }
}
