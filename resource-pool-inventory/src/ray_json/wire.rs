//! The JSON shapes of the dashboard's answers: only the fields we read (serde skips the
//! rest), and the reads of amounts and resource maps.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{Endpoint, RayJsonError};
use resource_pool_core::model::{Amount, Resources, names};

#[derive(Deserialize)]
pub(super) struct Envelope<T> {
    pub(super) result: bool,
    #[serde(default)]
    pub(super) msg: Option<String>,
    #[serde(default = "Option::default")]
    pub(super) data: Option<T>,
}

#[derive(Deserialize)]
pub(super) struct ListData<T> {
    pub(super) result: ListResult<T>,
}

#[derive(Deserialize)]
pub(super) struct ListResult<T> {
    pub(super) total: u64,
    pub(super) result: Vec<T>,
    #[serde(default)]
    pub(super) partial_failure_warning: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct WireNode {
    pub(super) node_id: String,
    #[serde(default)]
    pub(super) node_ip: Option<String>,
    pub(super) state: String,
    #[serde(default)]
    pub(super) state_message: Option<String>,
    #[serde(default)]
    pub(super) resources_total: Option<BTreeMap<String, f64>>,
    #[serde(default)]
    pub(super) labels: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub(super) is_head_node: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct StatusData {
    #[serde(default)]
    pub(super) cluster_status: Option<WireClusterStatus>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct WireClusterStatus {
    #[serde(default)]
    pub(super) load_metrics_report: Option<WireLoadMetrics>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct WireLoadMetrics {
    #[serde(default)]
    pub(super) usage_by_node: Option<BTreeMap<String, WireUsage>>,
}

/// `{resource key: [used, total]}` of one node.
pub(super) type WireUsage = BTreeMap<String, (f64, f64)>;

#[derive(Deserialize)]
pub(super) struct WireGroup {
    pub(super) placement_group_id: String,
    #[serde(default)]
    pub(super) name: Option<String>,
    #[serde(default)]
    pub(super) creator_job_id: Option<String>,
    pub(super) state: String,
    #[serde(default)]
    pub(super) bundles: Option<Vec<WireBundle>>,
    #[serde(default)]
    pub(super) stats: Option<WireStats>,
}

#[derive(Deserialize)]
pub(super) struct WireStats {
    #[serde(default)]
    pub(super) scheduling_state: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct WireBundle {
    #[serde(default)]
    pub(super) unit_resources: Option<BTreeMap<String, f64>>,
    #[serde(default)]
    pub(super) node_id: Option<String>,
}

pub(super) fn envelope<'a, T: Deserialize<'a>>(
    endpoint: Endpoint,
    body: &'a [u8],
) -> Result<T, RayJsonError> {
    let envelope: Envelope<T> =
        serde_json::from_slice(body).map_err(|e| RayJsonError::BadBody {
            endpoint,
            detail: e.to_string(),
        })?;
    if !envelope.result {
        return Err(RayJsonError::ApiFailed {
            endpoint,
            message: envelope.msg.unwrap_or_else(|| "no message".to_owned()),
        });
    }
    envelope.data.ok_or_else(|| RayJsonError::BadBody {
        endpoint,
        detail: "`data` is missing or null".to_owned(),
    })
}

pub(super) fn amount(
    endpoint: Endpoint,
    what: impl FnOnce() -> String,
    value: f64,
) -> Result<Amount, RayJsonError> {
    Amount::from_f64_rounded(value).map_err(|problem| RayJsonError::BadNumber {
        endpoint,
        what: what(),
        value,
        problem,
    })
}

pub(super) fn resources(
    endpoint: Endpoint,
    owner: &str,
    raw: Option<BTreeMap<String, f64>>,
) -> Result<Resources, RayJsonError> {
    // Collected once (the names are unique), not set one by one: a node's list is built
    // in one allocation.
    let mut out = Vec::new();
    for (name, value) in raw.unwrap_or_default() {
        if names::is_ray_internal(&name) {
            continue;
        }
        let amount = amount(endpoint, || format!("{owner}: {name}"), value)?;
        out.push((name, amount));
    }
    Ok(out.into_iter().collect())
}
