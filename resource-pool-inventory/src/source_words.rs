//! The check's remedies in the terms of the source that listed the cluster
//! ([`ClusterWords`]): a node that has not joined is a raylet to start on Ray, a replica
//! count in a KubeRay manifest, a drained node on Slurm; what holds resources now is
//! placement groups, jobs or pods.

use super::SourceKind;
use resource_pool_core::check::{ANY_SOURCE, ClusterWording, ClusterWords};

impl SourceKind {
    /// The check's words for a cluster this source listed.
    pub fn wording(self) -> ClusterWording {
        ClusterWording(match self {
            SourceKind::Ray => &RAY,
            SourceKind::KubeRay => &KUBERAY,
            SourceKind::Slurm => &SLURM,
            SourceKind::Kubectl => &KUBECTL,
        })
    }
}

/// The words of each source.
struct Words {
    kind: SourceKind,
}

static RAY: Words = Words {
    kind: SourceKind::Ray,
};
static KUBERAY: Words = Words {
    kind: SourceKind::KubeRay,
};
static SLURM: Words = Words {
    kind: SourceKind::Slurm,
};
static KUBECTL: Words = Words {
    kind: SourceKind::Kubectl,
};

impl ClusterWords for Words {
    fn name(&self) -> &'static str {
        match self.kind {
            SourceKind::Ray => "ray",
            SourceKind::KubeRay => "kuberay",
            SourceKind::Slurm => "slurm",
            SourceKind::Kubectl => "kubectl",
        }
    }

    fn too_few_nodes(&self, fewer: &str) -> String {
        match self.kind {
            SourceKind::Ray => format!(
                "a worker node may not have joined: run `ray status` on the head and start the missing raylets with `ray start --address=HEAD:PORT`, or {fewer}"
            ),
            SourceKind::KubeRay => format!(
                "raise the worker groups' replica counts (`replicas`, or `minReplicas` for `--replicas min`; `--replicas max` checks the cluster scaled all the way up), or {fewer}"
            ),
            SourceKind::Slurm => format!(
                "nodes are down, drained or missing: `sinfo -R` says why, `scontrol update nodename=NAME state=resume` returns one; or {fewer}"
            ),
            SourceKind::Kubectl => format!(
                "nodes are not ready, cordoned or missing: `kubectl get nodes` says which, `kubectl uncordon NAME` returns a cordoned one; or {fewer}"
            ),
        }
    }

    fn busy_now(&self) -> &'static str {
        match self.kind {
            SourceKind::Slurm => {
                "other jobs hold the resources now (`squeue -w NODE` lists them): wait for them to finish; "
            }
            SourceKind::Kubectl => {
                "running pods request the resources now (`kubectl describe node NAME` lists them): wait for them, or move them; "
            }
            // A manifest's nodes are idle; the words of Ray's placement groups fit best.
            SourceKind::Ray | SourceKind::KubeRay => ANY_SOURCE.busy_now(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_source_gets_its_own_words() {
        let words = [
            SourceKind::Ray.wording(),
            SourceKind::KubeRay.wording(),
            SourceKind::Slurm.wording(),
            SourceKind::Kubectl.wording(),
            ClusterWording::default(),
        ];
        let fewer = "ask for fewer node-slots";
        let helps: Vec<String> = words.iter().map(|w| w.too_few_nodes(fewer)).collect();
        for (i, help) in helps.iter().enumerate() {
            assert!(help.ends_with(fewer), "{help}");
            assert!(!helps[..i].contains(help), "{help}");
        }
        let kuberay = SourceKind::KubeRay.wording().too_few_nodes(fewer);
        assert!(kuberay.contains("`minReplicas` for `--replicas min`"));
        assert!(!kuberay.contains("raylet"));
        assert!(SourceKind::Slurm.wording().busy_now().contains("squeue"));
        assert!(
            !SourceKind::Slurm
                .wording()
                .busy_now()
                .contains("placement group")
        );
    }
}
