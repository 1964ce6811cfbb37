//! The JSON contract: the `diagnostics` array, and the result object of `check` and
//! `verl` (`feasible`, `ray`, `placement`, `ray_placement`, `diagnostics`).

use miette::Severity;
use resource_pool_core::Cluster;
use resource_pool_core::check::CheckReport;
use resource_pool_core::ray_sim::RayVerdict;
use serde::Serialize;
use serde_json::{Value, json};

use super::Finding;
use crate::render::{ray_assignment, witness_assignment};

/// One diagnostic of the JSON contract.
#[derive(Serialize)]
pub struct JsonDiagnostic {
    /// Stable code, `resource_pool::...`.
    pub code: String,
    /// `error`, `warning` or `advice`.
    pub severity: &'static str,
    /// What is wrong.
    pub message: String,
    /// What to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// The file it is in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// 1-based line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column, in characters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// The diagnostic's typed fields (see docs/output.md), when it has some.
    #[serde(skip_serializing_if = "no_data")]
    pub data: serde_json::Value,
}

/// Whether there is nothing to say as `data`: no fields, or an empty object.
fn no_data(data: &serde_json::Value) -> bool {
    data.is_null() || data.as_object().is_some_and(serde_json::Map::is_empty)
}

impl Finding {
    /// The JSON form.
    pub fn to_json(&self) -> JsonDiagnostic {
        let severity = match self.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Advice => "advice",
        };
        let place = self.place();
        let file = place
            .as_ref()
            .map(|p| p.file.clone())
            .or_else(|| self.file().map(str::to_owned));
        JsonDiagnostic {
            code: self.code(),
            severity,
            message: self.message(),
            help: self.help(),
            file,
            line: place.as_ref().map(|p| p.line),
            column: place.as_ref().map(|p| p.column),
            data: self.data().clone(),
        }
    }
}

/// Each placed slot of an assignment as `{pool, slot, node}`.
fn placement_json(
    report: &CheckReport,
    cluster: &Cluster,
    assignment: &[Option<usize>],
) -> Vec<Value> {
    assignment
        .iter()
        .enumerate()
        .filter_map(|(i, node)| {
            let node = (*node)?;
            let slot = &report.slots[i];
            Some(json!({
                "pool": report.pools[slot.pool].name,
                "slot": slot.slot,
                "node": cluster.nodes.get(node).map(|n| n.id.as_str()),
            }))
        })
        .collect()
}

/// The result object of `check` (and `verl`, which adds `pools` and `mapping`): the
/// verdicts, both placements and every finding. Without a report (the config or cluster
/// could not be read), the verdicts are `null` and the placements empty.
pub fn check_result(
    findings: &[Finding],
    report: Option<&CheckReport>,
    cluster: &Cluster,
) -> Value {
    let diagnostics: Vec<_> = findings.iter().map(Finding::to_json).collect();
    let placement = report
        .map(|r| placement_json(r, cluster, &witness_assignment(r)))
        .unwrap_or_default();
    let ray = report.and_then(|r| match r.ray.verdict {
        RayVerdict::Undecided => None,
        verdict => Some(verdict.to_string()),
    });
    let ray_placement = report
        .map(|r| placement_json(r, cluster, &ray_assignment(r)))
        .unwrap_or_default();
    json!({
        "feasible": report.and_then(CheckReport::feasible),
        "ray": ray,
        "placement": placement,
        "ray_placement": ray_placement,
        "diagnostics": diagnostics,
    })
}
