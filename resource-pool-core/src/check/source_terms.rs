//! Remedies worded in the terms of the source that listed the cluster: a node that has not
//! joined is a raylet to start on Ray, a replica count in a KubeRay manifest, a drained node
//! on Slurm; what holds resources now is placement groups, jobs or pods.

use crate::inventory::SourceKind;

/// What brings the missing nodes, or (`fewer`, in the terms of the layout's origin) asks
/// for fewer.
pub(super) fn too_few_nodes_help(listed_by: Option<SourceKind>, fewer: &str) -> String {
    match listed_by {
        Some(SourceKind::Ray) => format!(
            "a worker node may not have joined: run `ray status` on the head and start the missing raylets with `ray start --address=HEAD:PORT`, or {fewer}"
        ),
        Some(SourceKind::KubeRay) => format!(
            "raise the worker groups' replica counts (`replicas`, or `minReplicas` for `--replicas min`; `--replicas max` checks the cluster scaled all the way up), or {fewer}"
        ),
        Some(SourceKind::Slurm) => format!(
            "nodes are down, drained or missing: `sinfo -R` says why, `scontrol update nodename=NAME state=resume` returns one; or {fewer}"
        ),
        Some(SourceKind::Kubectl) => format!(
            "nodes are not ready, cordoned or missing: `kubectl get nodes` says which, `kubectl uncordon NAME` returns a cordoned one; or {fewer}"
        ),
        None => format!(
            "a node may be missing or down (on a live Ray cluster, `ray status` on the head says which; `ray start --address=HEAD:PORT` joins one), or {fewer}"
        ),
    }
}

/// The start of a help whose layout fits the idle cluster but not what is free now.
pub(super) fn busy_now(listed_by: Option<SourceKind>) -> &'static str {
    match listed_by {
        Some(SourceKind::Slurm) => {
            "other jobs hold the resources now (`squeue -w NODE` lists them): wait for them to finish; "
        }
        Some(SourceKind::Kubectl) => {
            "running pods request the resources now (`kubectl describe node NAME` lists them): wait for them, or move them; "
        }
        // A manifest's nodes are idle; a cluster file is most often a Ray snapshot.
        Some(SourceKind::Ray | SourceKind::KubeRay) | None => {
            "other work holds the resources now: wait for it to finish, or free its placement groups; "
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_source_gets_its_own_words() {
        let kinds = [
            Some(SourceKind::Ray),
            Some(SourceKind::KubeRay),
            Some(SourceKind::Slurm),
            Some(SourceKind::Kubectl),
            None,
        ];
        let fewer = "ask for fewer node-slots";
        let helps: Vec<String> = kinds
            .iter()
            .map(|&k| too_few_nodes_help(k, fewer))
            .collect();
        for (i, help) in helps.iter().enumerate() {
            assert!(help.ends_with(fewer), "{help}");
            assert!(!helps[..i].contains(help), "{help}");
        }
        let kuberay = too_few_nodes_help(Some(SourceKind::KubeRay), fewer);
        assert!(kuberay.contains("`minReplicas` for `--replicas min`"));
        assert!(!kuberay.contains("raylet"));
        assert!(busy_now(Some(SourceKind::Slurm)).contains("squeue"));
        assert!(!busy_now(Some(SourceKind::Slurm)).contains("placement group"));
    }
}
