//! Live Ray nodes in human output: named `ADDRESS (first 8 hex digits…)` by one rule
//! (`DisplayName`) in the plan's rows and pending lines, the diagnostics and the
//! suggestions' holders; JSON keeps Ray's full ids as data.

use crate::common;
use crate::ray_http::{FakeDashboard, fixtures};

/// The recorded Ray 2.60 cluster with a placement group held: 127.0.0.2 (8 GPUs, 4 held).
const HEAD: &str = "998d0f6441b2ab5b165b2c827979a04d442dfc2b27c607c508cb07c4";

#[test]
fn ray_nodes_are_named_by_address_in_words_and_by_id_in_json() {
    let server = FakeDashboard::start(fixtures("heldpg"));
    let url = server.url.as_str();
    // Eight GPUs on one node: the head comes nearest (4 of its 8 are held).
    let config = "examples/configs/single_node.toml";
    // verl 0.8.0: its TaskRunner holds one CPU of the head, 3 per bundle.
    let output = common::run(&["check", "--verl-version", "0.8.0", config, "--ray", url]);
    assert_eq!(output.status.code(), Some(1));
    let plan = String::from_utf8_lossy(&output.stdout);
    for expected in [
        "\n  127.0.0.2 (998d0f64…)  GPU ",
        "\n  127.0.0.3 (fd71bcc4…)  GPU ",
        "\n  127.0.0.4 (6a9c3cd2…)  GPU ",
        "NO_RESOURCES; nearest 127.0.0.2 (998d0f64…): CPU 19 of 24, GPU 4 of 8\n",
    ] {
        assert!(plan.contains(expected), "no {expected:?} in:\n{plan}");
    }
    let words = format!("{plan}{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        !words.contains(&HEAD[..9]),
        "a long id in human output:\n{words}"
    );

    let output = common::run(&[
        "check",
        "--verl-version",
        "0.8.0",
        config,
        "--ray",
        url,
        "--format",
        "json",
    ]);
    let value = common::json(&output);
    let diagnostics = value["diagnostics"].as_array().expect("diagnostics");
    let find = |code: &str, text: &str| {
        diagnostics
            .iter()
            .find(|d| d["code"] == code && d["data"].to_string().contains(text))
            .unwrap_or_else(|| panic!("no {code} with {text}: {value}"))
    };
    // Words: the message and help name the node by its address...
    let unfit = find("resource_pool::placement::slot_fits_no_node", HEAD);
    assert!(
        unfit["message"]
            .as_str()
            .is_some_and(|m| m.contains("; nearest is 127.0.0.2 (998d0f64…): CPU 19 of 24")),
        "{unfit}"
    );
    let idle = find("resource_pool::suggest::layout", "holders\":[{");
    assert!(
        idle["help"].as_str().is_some_and(|h| h.contains(
            "(wait for it to finish, or free it): 127.0.0.2 (998d0f64…): CPU 12, GPU 4 (by"
        )),
        "{idle}"
    );
    // ...as the inventory's notes do; data keeps the full id.
    let held = find("resource_pool::inventory::held_by_group", HEAD);
    assert!(
        held["message"]
            .as_str()
            .is_some_and(|m| m.ends_with("on node 127.0.0.2 (998d0f64…)")),
        "{held}"
    );
    assert_eq!(unfit["data"]["nearest"]["id"], HEAD);
    assert!(unfit["data"]["nearest"].get("address").is_none());
    assert_eq!(idle["data"]["holders"][0]["node"], HEAD);
    assert_eq!(value["suggestions"][1]["holders"][0]["node"], HEAD);
}
