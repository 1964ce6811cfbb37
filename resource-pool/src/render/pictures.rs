//! Which pictures a check shows: Ray's placement when it places everything; otherwise a
//! witness placement and what Ray does in the launcher's order; and under them, the
//! suggested layouts ([`suggestion_pictures`]).

use super::picture::{Picture, picture};
use crate::Cluster;
use crate::check::CheckReport;
use crate::check::suggest::{LayoutText, Suggestions, When};
use crate::ray_sim::RayVerdict;

/// The node of each slot in the witness placement; empty when there is none.
pub fn witness_assignment(report: &CheckReport) -> Vec<Option<usize>> {
    report
        .placement
        .witness()
        .map(|w| w.nodes.iter().copied().map(Some).collect())
        .unwrap_or_default()
}

/// The node of each slot on Ray's representative branch (`None`: pending or never created).
pub fn ray_assignment(report: &CheckReport) -> Vec<Option<usize>> {
    let mut assignment = vec![None; report.slots.len()];
    for (slot, node) in report.ray.representative.placed() {
        if let Some(entry) = assignment.get_mut(slot) {
            *entry = Some(node);
        }
    }
    assignment
}

/// The words for the order of a layout checked without a launcher's rules.
pub const LAYOUT_ORDER: &str = "the layout's order";

/// The pictures `check` shows: Ray's placement when Ray places it; otherwise a witness
/// placement (when one exists) and then what Ray does in the launcher's order (`order`:
/// `verl 0.9.1's order`, or [`LAYOUT_ORDER`]), also when nothing fits (where it stops is
/// the picture of why).
pub fn check_pictures(report: &CheckReport, cluster: &Cluster, order: &str) -> Vec<Picture> {
    let ray = ray_assignment(report);
    let fates = Some(report.ray.representative.groups.as_slice());
    let mut out = Vec::new();
    if report.ray.verdict == RayVerdict::Places {
        out.push(picture(
            "Ray places it:",
            &report.slots,
            &report.pools,
            cluster,
            &ray,
            fates,
        ));
        return out;
    }
    if report.placement.witness().is_some() {
        out.push(picture(
            "A placement exists:",
            &report.slots,
            &report.pools,
            cluster,
            &witness_assignment(report),
            None,
        ));
    }
    let title = format!("Ray, in {order}, would do:");
    out.push(picture(
        &title,
        &report.slots,
        &report.pools,
        cluster,
        &ray,
        fates,
    ));
    out
}

/// The pictures of the suggested layouts (`--plan` draws them under the failed attempt):
/// one per answer found, titled with the layout, drawn where Ray places it on the cluster
/// the answer is for (the idle one with nothing of other work held).
pub fn suggestion_pictures(suggestions: &Suggestions, cluster: &Cluster) -> Vec<Picture> {
    let busy = suggestions.busy();
    suggestions
        .found()
        .filter_map(|(when, s)| {
            let on = match when {
                When::Now => cluster,
                When::Idle => suggestions.idle.as_ref()?,
            };
            let lead = match (when, busy) {
                (When::Now, false) => "Suggested",
                (When::Now, true) => "Suggested now",
                (When::Idle, _) => "Suggested for the idle cluster",
            };
            let title = format!(
                "{lead}: {} ({} of {} {}); Ray places it:",
                LayoutText::of(&s.pools),
                s.accelerators,
                suggestions.asked,
                suggestions.unit.noun(suggestions.asked)
            );
            Some(picture(
                &title,
                &s.slots,
                &s.pools,
                on,
                &s.assignment(),
                Some(s.ray.representative.groups.as_slice()),
            ))
        })
        .collect()
}
