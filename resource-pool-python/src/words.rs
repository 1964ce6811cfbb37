//! The check's remedies in the terms of `resource_pool.check`'s arguments: the config the
//! check reads is generated from `resource_pool_spec`, so the advice names the dict (its
//! keys' order, the whole new dict to paste), not the TOML's tables and `--set` values.

use resource_pool::check::{CONFIG_FILE, LayoutWording, LayoutWords};
use resource_pool::model::{Amount, ResourcePool};

/// The words of `resource_pool.check`'s arguments.
pub static PYTHON: PythonWords = PythonWords;

/// See [`PYTHON`].
pub struct PythonWords;

impl PythonWords {
    /// The check's words for the arguments.
    pub fn wording() -> LayoutWording {
        LayoutWording(&PYTHON)
    }
}

/// How many node-slots a list shows as they are (as the check's messages do); a longer
/// one is written as its runs.
const SHOWN_SLOTS: usize = 6;

/// The pools' keys are a config file's, but for the dict they come from.
impl LayoutWords for PythonWords {
    fn name(&self) -> &'static str {
        "python"
    }
    // verl creates the pools in the dict's order (its ResourcePoolManager walks
    // resource_pool_spec's items).
    fn how_to_reorder(&self) -> String {
        "reorder resource_pool_spec's keys: verl creates the pools in its order".to_owned()
    }
    fn other_accelerator(&self, asked: &str, found: &str) -> String {
        CONFIG_FILE.other_accelerator(asked, found)
    }
    fn accelerator_mismatch(&self, wanted: &str, found: &str) -> String {
        CONFIG_FILE.accelerator_mismatch(wanted, found)
    }
    fn too_large(&self, resource: &str, needed: Amount) -> String {
        CONFIG_FILE.too_large(resource, needed)
    }
    fn cpus(&self, needed: Amount, per_bundle: u32) -> String {
        CONFIG_FILE.cpus(needed, per_bundle)
    }
    fn fewer_or_smaller_slots(&self) -> String {
        CONFIG_FILE.fewer_or_smaller_slots()
    }
    fn fewer_nodes(&self) -> String {
        CONFIG_FILE.fewer_nodes()
    }
    fn smaller_slots(&self) -> String {
        CONFIG_FILE.smaller_slots()
    }
    // The whole dict rather than the pools that change: it is short, and pasting it
    // leaves nothing to merge.
    fn whole_layout(&self, pools: &[ResourcePool]) -> Option<String> {
        Some(format!(
            "pass `resource_pool_spec={}` to rp.check, then to verl's ResourcePoolManager",
            python_spec(pools)
        ))
    }
}

/// `pools` as Python's `resource_pool_spec`, in creation order (the dict's order is the
/// order verl creates the pools): `{"global_pool": [8, 8], "reward_pool": [4]}`. A list
/// longer than the messages show is written as its runs, `[8] * 996` or
/// `[8] * 4 + [4] * 4`, which Python reads as the same list. Names are JSON strings, which
/// Python reads as the same strings.
fn python_spec(pools: &[ResourcePool]) -> String {
    let entries: Vec<String> = pools
        .iter()
        .map(|p| {
            let name = serde_json::to_string(&p.name).unwrap_or_else(|_| format!("{:?}", p.name));
            format!("{name}: {}", python_list(&p.spec.process_on_nodes))
        })
        .collect();
    format!("{{{}}}", entries.join(", "))
}

/// A list of node-slots as Python: `[8, 8, 4]`, or its runs when it is long and has few
/// (a list of many short runs is clearer written out).
fn python_list(list: &[u32]) -> String {
    let runs: Vec<&[u32]> = list.chunk_by(|a, b| a == b).collect();
    if list.len() <= SHOWN_SLOTS || runs.len() > SHOWN_SLOTS {
        let items: Vec<String> = list.iter().map(u32::to_string).collect();
        return format!("[{}]", items.join(", "));
    }
    let runs: Vec<String> = runs
        .iter()
        .map(|run| match run {
            [one] => format!("[{one}]"),
            _ => format!("[{}] * {}", run[0], run.len()),
        })
        .collect();
    runs.join(" + ")
}
