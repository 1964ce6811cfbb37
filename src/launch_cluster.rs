//! `resource-pool verl`'s cluster options when no source of ours names one: the dashboard
//! the pasted launch line's `ray job submit` sends the job to
//! ([`resource_pool::verl::launch::job_cluster`]), read from this process's environment.

use resource_pool::report::VerlLoad;
use resource_pool::verl::launch::{AmbientAddresses, Launch, RAY_ADDRESS, RAY_API_SERVER_ADDRESS};

use super::cluster_input::ClusterArgs;

/// The cluster options with `--ray` set to the dashboard the launch line's `ray job submit`
/// sends the job to, when no source of ours names a cluster (a flag, `RESOURCE_POOL_CLUSTER`).
/// The line comes before the environment's `RAY_ADDRESS` where Ray puts it first: a
/// `RAY_API_SERVER_ADDRESS=` or `RAY_ADDRESS=` set on the line; its `--address` only when the
/// environment has neither, as they override it for `ray job submit` ([`SubmitTarget`](resource_pool::verl::launch::SubmitTarget)).
/// The environment's `RAY_API_SERVER_ADDRESS` is read when it is the job's (`read_cluster`
/// knows `RAY_ADDRESS` only), and the environment's `RAY_ADDRESS` only when it is the job's.
/// `None` to read the cluster as `args` say.
pub(super) fn launch_cluster_args(
    args: &ClusterArgs,
    launch: &Launch,
    settings: &mut VerlLoad,
) -> Option<ClusterArgs> {
    if args.names_a_source() {
        return None;
    }
    let found = settings.launch_cluster(launch, &ambient_addresses());
    if found.dashboard.is_none() && found.reads_ray_address {
        return None;
    }
    Some(ClusterArgs {
        ray: found.dashboard,
        ray_address_unused: !found.reads_ray_address,
        ..args.clone()
    })
}

/// `RAY_ADDRESS` and `RAY_API_SERVER_ADDRESS` of this process's environment: the ones a
/// launch line run here would see.
fn ambient_addresses() -> AmbientAddresses {
    let var = |name| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
    AmbientAddresses {
        ray_address: var(RAY_ADDRESS),
        api_server_address: var(RAY_API_SERVER_ADDRESS),
    }
}
