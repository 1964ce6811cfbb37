//! Printing a manager back as config TOML.

use std::fmt::Write;

use crate::toml_support::{toml_key, toml_string};

use crate::model::{Accelerator, DEFAULT_MAX_COLOCATE_COUNT, ResourcePoolManager, RoleKey};

/// The config file of a manager: `[pools.*]` in creation order, then `[mapping]`. Reading
/// it back gives the same manager.
pub fn config_to_toml<R: RoleKey>(manager: &ResourcePoolManager<R>) -> String {
    let mut out = String::new();
    for pool in manager.pools() {
        let spec = &pool.spec;
        let _ = writeln!(out, "[pools.{}]", toml_key(&pool.name));
        let sizes: Vec<String> = spec.process_on_nodes.iter().map(u32::to_string).collect();
        let _ = writeln!(out, "process_on_nodes = [{}]", sizes.join(", "));
        if spec.accelerator != Accelerator::Gpu {
            let _ = writeln!(out, "accelerator = \"{}\"", spec.accelerator);
        }
        if spec.max_colocate_count != DEFAULT_MAX_COLOCATE_COUNT {
            let _ = writeln!(out, "max_colocate_count = {}", spec.max_colocate_count);
        }
        if let Some(kind) = &spec.accelerator_type {
            let _ = writeln!(out, "accelerator_type = {}", toml_string(kind));
        }
        if !spec.bundle_resources.is_empty() {
            let items: Vec<String> = spec
                .bundle_resources
                .iter()
                .map(|(name, amount)| format!("{} = {amount}", toml_key(name)))
                .collect();
            let _ = writeln!(out, "bundle_resources = {{ {} }}", items.join(", "));
        }
        out.push('\n');
    }
    out.push_str("[mapping]\n");
    for (role, pool) in manager.mapping() {
        let _ = writeln!(
            out,
            "{} = {}",
            toml_key(&role.key_name()),
            toml_string(&pool.name)
        );
    }
    out
}
