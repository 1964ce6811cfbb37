//! The JSON contract: the `diagnostics` array, and the result object of `check` and
//! `verl` (`feasible`, `ray`, `placement`, `ray_placement`, `suggestions`, `diagnostics`).

use miette::Severity;
use resource_pool_core::Cluster;
use resource_pool_core::check::CheckReport;
use resource_pool_core::check::suggest::{Suggestions, When};
use resource_pool_core::ray_sim::RayVerdict;
use serde::Serialize;
use serde_json::{Value, json};

use super::Finding;

mod layout;

pub use layout::{ROW_ARRAYS, write_value};

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

/// One placed slot: `{node, pool, slot}`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Placed<'a> {
    /// The node's id (`None` past the cluster's end, which a witness never is).
    pub node: Option<&'a str>,
    /// The pool's name.
    pub pool: &'a str,
    /// The slot's index in its pool.
    pub slot: usize,
}

/// The placed slots of one of a report's placements, in slot order, each read from the
/// report as it is written: a 100,000-slot check lists each slot twice, and holding those
/// rows (or a node per slot) in lists first cost megabytes of fresh memory (page faults
/// are the costliest part of a large check's output).
#[derive(Clone, Copy)]
pub struct Placements<'a> {
    report: Option<&'a CheckReport>,
    cluster: &'a Cluster,
    which: Which,
}

/// Which placement of a report.
#[derive(Clone, Copy)]
enum Which {
    /// The exact check's witness (none unless feasible).
    Witness,
    /// Where Ray's simulated scheduler puts each group it places, on the representative branch.
    Ray,
}

impl<'a> Placements<'a> {
    /// The placed slots, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = Placed<'a>> + 'a {
        let Placements {
            report,
            cluster,
            which,
        } = *self;
        let nodes: Box<dyn Iterator<Item = (usize, usize)>> = match (report, which) {
            (None, _) => Box::new(std::iter::empty()),
            (Some(report), Which::Witness) => Box::new(
                report
                    .placement
                    .witness()
                    .into_iter()
                    .flat_map(|w| w.nodes.iter().copied().enumerate()),
            ),
            (Some(report), Which::Ray) => Box::new(report.ray.representative.placed()),
        };
        nodes.filter_map(move |(i, node)| {
            let report = report?;
            let slot = report.slots.get(i)?;
            Some(Placed {
                node: cluster.nodes.get(node).map(|n| n.id.as_str()),
                pool: &report.pools.get(slot.pool)?.name,
                slot: slot.slot,
            })
        })
    }
}

impl Serialize for Placements<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

/// The result object of `check`, borrowed: it serialises as [`check_result`]'s value does
/// (fields in the order of its keys) without building that value, whose two placements
/// cost hundreds of bytes per slot (a 100,000-slot check: 300 MiB).
#[derive(Serialize)]
pub struct CheckResult<'a> {
    /// Every finding, as [`JsonDiagnostic`]s (as values: their keys in order).
    pub diagnostics: Vec<Value>,
    /// The exact check's verdict.
    pub feasible: Option<bool>,
    /// The witness placement.
    pub placement: Placements<'a>,
    /// Ray's verdict, `None` when undecided.
    pub ray: Option<String>,
    /// Where Ray's simulated scheduler put each slot.
    pub ray_placement: Placements<'a>,
    /// The live Ray cluster's version, when its dashboard said (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ray_version: Option<&'a str>,
    /// The layouts that do fit ([`suggestions`]); empty when none was asked or found.
    pub suggestions: Value,
    /// What the verl release the check followed does with the layout (absent when it
    /// followed none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verl: Option<&'a Value>,
}

/// The result object of `check`, borrowed ([`CheckResult`]).
pub fn check_result_of<'a>(
    findings: &[Finding],
    report: Option<&'a CheckReport>,
    cluster: &'a Cluster,
) -> CheckResult<'a> {
    CheckResult {
        diagnostics: findings
            .iter()
            .map(|f| serde_json::to_value(f.to_json()).unwrap_or_default())
            .collect(),
        feasible: report.and_then(CheckReport::feasible),
        placement: Placements {
            report,
            cluster,
            which: Which::Witness,
        },
        ray: report.and_then(|r| match r.ray.verdict {
            RayVerdict::Undecided => None,
            verdict => Some(verdict.to_string()),
        }),
        ray_placement: Placements {
            report,
            cluster,
            which: Which::Ray,
        },
        ray_version: None,
        suggestions: Value::Array(Vec::new()),
        verl: None,
    }
}

/// The result object of `check` (and `verl`, which adds `pools` and `mapping`): the
/// verdicts, both placements and every finding. Without a report (the config or cluster
/// could not be read), the verdicts are `null` and the placements empty.
pub fn check_result(
    findings: &[Finding],
    report: Option<&CheckReport>,
    cluster: &Cluster,
) -> Value {
    serde_json::to_value(check_result_of(findings, report, cluster)).unwrap_or_default()
}

/// The `suggestions` array: one object per answer found, `when` (`now` or `idle`),
/// `pools` (name → node-slots), `accelerators`, `overrides` (`--set` values for `check`,
/// Hydra overrides for `verl`), `undecided` (layouts ranked before it that could not be
/// decided; 0 when it is the best of its shapes), and for `idle` the `holders` (node, what
/// is held there, by whom when known).
pub fn suggestions(suggestions: &Suggestions) -> Value {
    suggestions
        .found()
        .map(|(when, s)| {
            let pools: serde_json::Map<String, Value> = s
                .pools
                .iter()
                .map(|p| (p.name.clone(), json!(p.spec.process_on_nodes)))
                .collect();
            let mut entry = json!({
                "when": when,
                "pools": pools,
                "accelerators": s.accelerators,
                "overrides": s.overrides,
                "undecided": s.undecided,
            });
            if when == When::Idle
                && let Some(object) = entry.as_object_mut()
            {
                object.insert("holders".to_owned(), json!(suggestions.holders));
            }
            entry
        })
        .collect()
}

/// A result object of [`check_result`] with the suggestions in `suggestions`.
pub fn with_suggestions(mut result: Value, found: Option<&Suggestions>) -> Value {
    if let (Some(found), Some(object)) = (found, result.as_object_mut()) {
        object.insert("suggestions".to_owned(), suggestions(found));
    }
    result
}
