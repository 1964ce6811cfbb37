//! `ray job submit`'s words about the cluster it sends the job to: its `--address`, and the
//! `RAY_API_SERVER_ADDRESS` and `RAY_ADDRESS` the launchers before it set or remove; and the
//! cluster they pick with the environment the line runs in, as Ray's job SDK picks it.

use super::{FlagValue, Launch, unquoted};

/// The variable newer Ray's job SDK reads first: it overrides `RAY_ADDRESS` and `--address`.
pub const RAY_API_SERVER_ADDRESS: &str = "RAY_API_SERVER_ADDRESS";
/// The variable that names the cluster of `ray job submit` (and of `ray.init`).
pub const RAY_ADDRESS: &str = "RAY_ADDRESS";

/// What the line says of the cluster `ray job submit` sends the job to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Submit {
    /// `--address URL` or `--address=URL`: the last one, as click keeps it.
    pub address: Option<FlagValue>,
    /// `RAY_ADDRESS` in the environment of `ray job submit`, as the words before it leave it.
    pub env: SubmitEnv,
    /// `RAY_API_SERVER_ADDRESS` there, likewise.
    pub api_server_env: SubmitEnv,
}

/// A variable as the launchers before `ray job submit` leave it (the entry point's own
/// `env VAR=..` after `--` runs on the cluster, and is not this).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum SubmitEnv {
    /// Not touched: the environment the line runs in gives it (or not).
    #[default]
    Inherited,
    /// `VAR=VALUE` (leading, or after `env`): the last one.
    Set(FlagValue),
    /// Removed by `env -i`, `env -u VAR` or `env --unset=VAR`, not set again after.
    Removed,
}

/// The two variables as the launchers read so far leave them, while the line is read.
#[derive(Clone, Debug, Default)]
pub(super) struct SubmitEnvs {
    /// `RAY_ADDRESS`.
    pub(super) ray_address: SubmitEnv,
    /// `RAY_API_SERVER_ADDRESS`.
    pub(super) api_server: SubmitEnv,
}

impl SubmitEnvs {
    fn slot(&mut self, name: &str) -> Option<&mut SubmitEnv> {
        match name {
            RAY_ADDRESS => Some(&mut self.ray_address),
            RAY_API_SERVER_ADDRESS => Some(&mut self.api_server),
            _ => None,
        }
    }

    /// `word` (a `NAME=value` assignment starting at `start`) sets one of the variables.
    pub(super) fn assign(&mut self, word: &str, start: usize) {
        let Some((name, value)) = word.split_once('=') else {
            return;
        };
        if let Some(slot) = self.slot(name) {
            let start = start + name.len() + 1;
            *slot = SubmitEnv::Set(FlagValue {
                value: unquoted(value),
                span: start..start + value.len(),
            });
        }
    }

    /// `env -u NAME` / `env --unset=NAME`.
    pub(super) fn unset(&mut self, name: &str) {
        if let Some(slot) = self.slot(name) {
            *slot = SubmitEnv::Removed;
        }
    }

    /// `env -i`: both removed.
    pub(super) fn clear(&mut self) {
        self.ray_address = SubmitEnv::Removed;
        self.api_server = SubmitEnv::Removed;
    }

    /// `ray job submit`'s words, with `address` its `--address`.
    pub(super) fn submit(self, address: Option<FlagValue>) -> Submit {
        Submit {
            address,
            env: self.ray_address,
            api_server_env: self.api_server,
        }
    }
}

/// Where the address that names the job's cluster was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum AddressVia {
    /// `ray job submit --address`.
    #[serde(rename = "--address")]
    Flag,
    /// `RAY_ADDRESS`.
    #[serde(rename = "RAY_ADDRESS")]
    Env,
    /// `RAY_API_SERVER_ADDRESS`.
    #[serde(rename = "RAY_API_SERVER_ADDRESS")]
    ApiServerEnv,
}

impl std::fmt::Display for AddressVia {
    /// As written: `--address`, `RAY_ADDRESS` or `RAY_API_SERVER_ADDRESS`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AddressVia::Flag => "--address",
            AddressVia::Env => RAY_ADDRESS,
            AddressVia::ApiServerEnv => RAY_API_SERVER_ADDRESS,
        })
    }
}

/// The two variables in the environment the line would run in (the one resource-pool
/// runs in): what the line does not set or remove itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AmbientAddresses {
    /// `RAY_ADDRESS`.
    pub ray_address: Option<String>,
    /// `RAY_API_SERVER_ADDRESS`.
    pub api_server_address: Option<String>,
}

/// The cluster a `ray job submit` line goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubmitTarget<'a> {
    /// The line does not say, and neither does the environment's `RAY_API_SERVER_ADDRESS`:
    /// the environment's `RAY_ADDRESS`, if any, is the job's cluster.
    Unnamed,
    /// The line removes or empties `RAY_ADDRESS` and names nothing: the job goes to the
    /// cluster Ray finds where the line runs, not to the environment's `RAY_ADDRESS`.
    Cleared,
    /// The line names it.
    Named {
        /// The address, with its span.
        address: &'a FlagValue,
        /// Where it was written.
        via: AddressVia,
        /// Whether it is a dashboard's http(s) URL (else `ray://...`, a GCS `host:port`
        /// or `auto`, which Ray resolves through the cluster itself).
        dashboard: bool,
    },
    /// The line names nothing, and the environment's `RAY_API_SERVER_ADDRESS` names it
    /// (`via` is that variable).
    Environment {
        /// The variable's value.
        address: &'a str,
        /// The variable.
        via: AddressVia,
        /// Whether it is a dashboard's http(s) URL.
        dashboard: bool,
    },
    /// The line's address is not used: a variable of the environment overrides it.
    Overridden {
        /// The line's address not used.
        address: &'a FlagValue,
        /// Where the line wrote it (`--address`, or `RAY_ADDRESS=` when
        /// `RAY_API_SERVER_ADDRESS` overrides it).
        via: AddressVia,
        /// The variable of the environment that overrides it.
        by: AddressVia,
        /// Its value: the job's cluster.
        used: &'a str,
        /// Whether `used` is a dashboard's http(s) URL.
        dashboard: bool,
        /// Another variable of the environment that would override the line's address
        /// once `by` is unset (`RAY_ADDRESS` after `RAY_API_SERVER_ADDRESS`).
        also: Option<AddressVia>,
    },
}

/// Whether an address is a dashboard's URL (what a live cluster is read from): an http or
/// https scheme in any case, spaces around it ignored, as the dashboard client reads it.
pub fn is_dashboard_url(address: &str) -> bool {
    address.trim().split_once("://").is_some_and(|(scheme, _)| {
        scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")
    })
}

/// A variable's value where `ray job submit` runs, when it is set and not empty (Ray reads
/// an empty one as unset): the line's own, else the environment's.
enum Value<'a> {
    Line(&'a FlagValue),
    Ambient(&'a str),
}

fn value<'a>(env: &'a SubmitEnv, ambient: Option<&'a str>) -> Option<Value<'a>> {
    match env {
        SubmitEnv::Set(v) => (!v.value.is_empty()).then_some(Value::Line(v)),
        SubmitEnv::Removed => None,
        SubmitEnv::Inherited => ambient.filter(|a| !a.is_empty()).map(Value::Ambient),
    }
}

impl Submit {
    /// The cluster the job goes to, as Ray's job SDK picks it
    /// (`ray.dashboard.utils.get_address_for_submission_client`): a non-empty
    /// `RAY_API_SERVER_ADDRESS` (newer Ray), else a non-empty `RAY_ADDRESS`, in the
    /// environment of `ray job submit`, else `--address`. `ambient`: the environment the
    /// line would run in.
    pub fn target<'a>(&'a self, ambient: &'a AmbientAddresses) -> SubmitTarget<'a> {
        let api = value(&self.api_server_env, ambient.api_server_address.as_deref());
        let ray = value(&self.env, ambient.ray_address.as_deref());
        let named = |address: &'a FlagValue, via| SubmitTarget::Named {
            address,
            via,
            dashboard: is_dashboard_url(&address.value),
        };
        // The line's own address: the variable it sets, else its `--address`.
        let line = match &ray {
            Some(Value::Line(v)) => Some((*v, AddressVia::Env)),
            _ => self.address.as_ref().map(|a| (a, AddressVia::Flag)),
        };
        match (api, ray) {
            (Some(Value::Line(v)), _) => named(v, AddressVia::ApiServerEnv),
            (Some(Value::Ambient(used)), ray) => match line {
                Some((address, via)) => SubmitTarget::Overridden {
                    address,
                    via,
                    by: AddressVia::ApiServerEnv,
                    used,
                    dashboard: is_dashboard_url(used),
                    also: matches!(ray, Some(Value::Ambient(_))).then_some(AddressVia::Env),
                },
                None => SubmitTarget::Environment {
                    address: used,
                    via: AddressVia::ApiServerEnv,
                    dashboard: is_dashboard_url(used),
                },
            },
            (None, Some(Value::Line(v))) => named(v, AddressVia::Env),
            (None, Some(Value::Ambient(used))) => match &self.address {
                Some(address) => SubmitTarget::Overridden {
                    address,
                    via: AddressVia::Flag,
                    by: AddressVia::Env,
                    used,
                    dashboard: is_dashboard_url(used),
                    also: None,
                },
                None => SubmitTarget::Unnamed,
            },
            (None, None) => match &self.address {
                Some(address) => named(address, AddressVia::Flag),
                // The environment's RAY_ADDRESS is not the job's: the line took it away.
                None if ambient
                    .ray_address
                    .as_deref()
                    .is_some_and(|a| !a.is_empty()) =>
                {
                    SubmitTarget::Cleared
                }
                None => SubmitTarget::Unnamed,
            },
        }
    }
}

impl Launch {
    /// The cluster the line's `ray job submit` goes to ([`Submit::target`]);
    /// [`SubmitTarget::Unnamed`] for a line without it.
    pub fn submit_target<'a>(&'a self, ambient: &'a AmbientAddresses) -> SubmitTarget<'a> {
        self.submit
            .as_ref()
            .map_or(SubmitTarget::Unnamed, |s| s.target(ambient))
    }
}

/// `ray job submit`'s `--address URL` or `--address=URL` among `words[options]` (its options,
/// before `--`): the last one, as click keeps it.
pub(super) fn submit_address(
    words: &[String],
    starts: &[usize],
    options: std::ops::Range<usize>,
) -> Option<FlagValue> {
    let mut found = None;
    let mut k = options.start;
    while k < options.end {
        let word = &words[k];
        if word == "--address" && k + 1 < options.end {
            let value = &words[k + 1];
            found = Some(FlagValue {
                value: unquoted(value),
                span: starts[k + 1]..starts[k + 1] + value.len(),
            });
            k += 2;
            continue;
        }
        if let Some(value) = word.strip_prefix("--address=") {
            let start = starts[k] + "--address=".len();
            found = Some(FlagValue {
                value: unquoted(value),
                span: start..start + value.len(),
            });
        }
        k += 1;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::super::parse_launch;
    use super::super::tests::words;
    use super::*;

    /// The environment with this `RAY_ADDRESS` only.
    fn ray(address: Option<&str>) -> AmbientAddresses {
        AmbientAddresses {
            ray_address: address.map(str::to_owned),
            api_server_address: None,
        }
    }

    /// The address the line names, as `(value, via, dashboard)`, with its span checked.
    fn named(line: &str, ambient: Option<&str>) -> Option<(String, AddressVia, bool)> {
        let l = parse_launch(&words(line));
        let ambient = ray(ambient);
        match l.submit_target(&ambient) {
            SubmitTarget::Named {
                address,
                via,
                dashboard,
            } => {
                assert_eq!(
                    l.line[address.span.clone()].trim_matches(['"', '\'']),
                    address.value,
                    "{line}"
                );
                Some((address.value.clone(), via, dashboard))
            }
            _ => None,
        }
    }

    #[test]
    fn ray_job_submit_names_its_cluster_with_address() {
        let url = |u: &str| Some((u.to_owned(), AddressVia::Flag, true));
        let line = "ray job submit --address http://127.0.0.1:48265 -- python3 -m verl.trainer.main_ppo trainer.nnodes=2";
        assert_eq!(named(line, None), url("http://127.0.0.1:48265"));
        let l = parse_launch(&words(line));
        assert_eq!(l.entry.unwrap().text, "verl.trainer.main_ppo");
        assert_eq!(l.overrides.len(), 1);
        for (line, expected) in [
            (
                "ray job submit --address=https://h:8265 --no-wait -- python3 -m verl.trainer.main_ppo",
                "https://h:8265",
            ),
            (
                "ray job submit --address=\"http://h:8265\" -- python3 -m verl.trainer.main_ppo",
                "http://h:8265",
            ),
            // click keeps the last one.
            (
                "ray job submit --address http://a:8265 --working-dir . --address http://b:8265 -- python3 -m verl.trainer.main_ppo",
                "http://b:8265",
            ),
        ] {
            assert_eq!(named(line, None), url(expected), "{line}");
        }
        // Not a dashboard: said so, not dropped.
        for (line, expected) in [
            (
                "ray job submit --address ray://h:10001 -- python3 -m verl.trainer.main_ppo",
                "ray://h:10001",
            ),
            (
                "ray job submit --address=10.0.0.1:6379 -- python3 -m verl.trainer.main_ppo",
                "10.0.0.1:6379",
            ),
        ] {
            assert_eq!(
                named(line, None),
                Some((expected.to_owned(), AddressVia::Flag, false)),
                "{line}"
            );
        }
        // No address, no `ray job submit`, or `--address` in the entry point's words: unnamed.
        for line in [
            "ray job submit -- python3 -m verl.trainer.main_ppo",
            "python3 -m verl.trainer.main_ppo trainer.nnodes=2",
            "RAY_ADDRESS=http://h:8265 python3 -m verl.trainer.main_ppo",
            "ray job submit -- python3 train.py --address http://h:8265",
            "ray job submit --address -- python3 -m verl.trainer.main_ppo",
        ] {
            let l = parse_launch(&words(line));
            assert_eq!(l.submit_target(&ray(None)), SubmitTarget::Unnamed, "{line}");
        }
    }

    #[test]
    fn ray_address_of_the_submitting_environment_wins_over_address_as_in_ray() {
        let env = |u: &str, dashboard| Some((u.to_owned(), AddressVia::Env, dashboard));
        // Set on the line, leading or after `env`: it names the cluster, `--address` or not.
        for line in [
            "RAY_ADDRESS=http://e:8265 ray job submit -- python3 -m verl.trainer.main_ppo",
            "env RAY_ADDRESS=http://e:8265 ray job submit -- python3 -m verl.trainer.main_ppo",
            "HYDRA_FULL_ERROR=1 RAY_ADDRESS=http://e:8265 ray job submit --address http://a:8265 -- python3 -m verl.trainer.main_ppo",
            "env -u RAY_ADDRESS RAY_ADDRESS=http://e:8265 ray job submit --address http://a:8265 -- python3 -m verl.trainer.main_ppo",
        ] {
            assert_eq!(named(line, None), env("http://e:8265", true), "{line}");
            assert_eq!(
                named(line, Some("http://ambient:8265")),
                env("http://e:8265", true),
                "{line}"
            );
        }
        assert_eq!(
            named(
                "RAY_ADDRESS=ray://e:10001 ray job submit -- python3 -m verl.trainer.main_ppo",
                None
            ),
            env("ray://e:10001", false)
        );
        // The environment's own RAY_ADDRESS overrides `--address`...
        let line = "ray job submit --address http://a:8265 -- python3 -m verl.trainer.main_ppo";
        let l = parse_launch(&words(line));
        assert!(matches!(
            l.submit_target(&ray(Some("http://ambient:8265"))),
            SubmitTarget::Overridden { address, by: AddressVia::Env, used: "http://ambient:8265", .. } if address.value == "http://a:8265"
        ));
        assert!(matches!(
            l.submit_target(&ray(Some(""))),
            SubmitTarget::Named { .. }
        ));
        // ...unless the line empties or removes it first.
        for line in [
            "RAY_ADDRESS= ray job submit --address http://a:8265 -- python3 -m verl.trainer.main_ppo",
            "env -u RAY_ADDRESS ray job submit --address http://a:8265 -- python3 -m verl.trainer.main_ppo",
            "env --unset=RAY_ADDRESS ray job submit --address http://a:8265 -- python3 -m verl.trainer.main_ppo",
            "RAY_ADDRESS=http://e:8265 env -i ray job submit --address http://a:8265 -- python3 -m verl.trainer.main_ppo",
        ] {
            assert_eq!(
                named(line, Some("http://ambient:8265")),
                Some(("http://a:8265".to_owned(), AddressVia::Flag, true)),
                "{line}"
            );
        }
        // What the entry point's launchers set is the job's environment on the cluster.
        let line = "ray job submit --address http://a:8265 -- env RAY_ADDRESS=http://job:8265 python3 -m verl.trainer.main_ppo";
        assert_eq!(
            named(line, None),
            Some(("http://a:8265".to_owned(), AddressVia::Flag, true))
        );
        assert_eq!(
            parse_launch(&words(line)).submit.unwrap().env,
            SubmitEnv::Inherited
        );
    }

    fn both(ray: Option<&str>, api: Option<&str>) -> AmbientAddresses {
        AmbientAddresses {
            ray_address: ray.map(str::to_owned),
            api_server_address: api.map(str::to_owned),
        }
    }

    #[test]
    fn ray_api_server_address_wins_over_ray_address_and_address() {
        const TAIL: &str =
            "ray job submit --address http://b:8265 -- python3 -m verl.trainer.main_ppo";
        // Set on the line, leading or after `env`: it names the cluster.
        for line in [
            format!("RAY_API_SERVER_ADDRESS=http://a:8265 {TAIL}"),
            format!("RAY_ADDRESS=http://r:8265 RAY_API_SERVER_ADDRESS=http://a:8265 {TAIL}"),
            format!("env RAY_API_SERVER_ADDRESS=http://a:8265 RAY_ADDRESS=http://r:8265 {TAIL}"),
            format!("env -i RAY_API_SERVER_ADDRESS=http://a:8265 {TAIL}"),
        ] {
            let l = parse_launch(&words(&line));
            let ambient = both(Some("http://e:8265"), Some("http://f:8265"));
            assert!(
                matches!(
                    l.submit_target(&ambient),
                    SubmitTarget::Named { address, via: AddressVia::ApiServerEnv, dashboard: true }
                        if address.value == "http://a:8265" && l.line[address.span.clone()] == *"http://a:8265"
                ),
                "{line}"
            );
        }
        // The environment's overrides the line's `--address` and its `RAY_ADDRESS=`,
        // and the environment's RAY_ADDRESS, which would override it after.
        let l = parse_launch(&words(TAIL));
        assert!(matches!(
            l.submit_target(&both(Some("http://e:8265"), Some("http://f:8265"))),
            SubmitTarget::Overridden { address, via: AddressVia::Flag, by: AddressVia::ApiServerEnv, used: "http://f:8265", dashboard: true, also: Some(AddressVia::Env) }
                if address.value == "http://b:8265"
        ));
        let l = parse_launch(&words(&format!("RAY_ADDRESS=ray://r:10001 {TAIL}")));
        assert!(matches!(
            l.submit_target(&both(Some("http://e:8265"), Some("f:6379"))),
            SubmitTarget::Overridden { address, via: AddressVia::Env, by: AddressVia::ApiServerEnv, used: "f:6379", dashboard: false, also: None }
                if address.value == "ray://r:10001"
        ));
        // Removed or emptied by the line: not the job's.
        for line in [
            format!("env -u RAY_API_SERVER_ADDRESS {TAIL}"),
            format!("env --unset=RAY_API_SERVER_ADDRESS {TAIL}"),
            format!("RAY_API_SERVER_ADDRESS= {TAIL}"),
        ] {
            let l = parse_launch(&words(&line));
            assert!(
                matches!(
                    l.submit_target(&both(None, Some("http://f:8265"))),
                    SubmitTarget::Named {
                        via: AddressVia::Flag,
                        ..
                    }
                ),
                "{line}"
            );
        }
        // The line names nothing: the environment's is the job's cluster, before RAY_ADDRESS.
        let l = parse_launch(&words("ray job submit -- python3 -m verl.trainer.main_ppo"));
        assert_eq!(
            l.submit_target(&both(Some("http://e:8265"), Some(" HTTP://f:8265"))),
            SubmitTarget::Environment {
                address: " HTTP://f:8265",
                via: AddressVia::ApiServerEnv,
                dashboard: true
            }
        );
        assert_eq!(
            l.submit_target(&both(Some("http://e:8265"), Some(""))),
            SubmitTarget::Unnamed
        );
        assert_eq!(AddressVia::ApiServerEnv.to_string(), RAY_API_SERVER_ADDRESS);
    }

    #[test]
    fn a_line_that_removes_ray_address_and_names_nothing_clears_it() {
        for line in [
            "env -u RAY_ADDRESS ray job submit -- python3 -m verl.trainer.main_ppo",
            "env --unset=RAY_ADDRESS ray job submit -- python3 -m verl.trainer.main_ppo",
            "env -i ray job submit -- python3 -m verl.trainer.main_ppo",
            "RAY_ADDRESS= ray job submit -- python3 -m verl.trainer.main_ppo",
        ] {
            let l = parse_launch(&words(line));
            assert_eq!(
                l.submit_target(&ray(Some("http://e:8265"))),
                SubmitTarget::Cleared,
                "{line}"
            );
            // Nothing to clear: as any line that names nothing.
            assert_eq!(l.submit_target(&ray(None)), SubmitTarget::Unnamed, "{line}");
        }
        // Removing another variable leaves it.
        let l = parse_launch(&words(
            "env -u OTHER ray job submit -- python3 -m verl.trainer.main_ppo",
        ));
        assert_eq!(
            l.submit_target(&ray(Some("http://e:8265"))),
            SubmitTarget::Unnamed
        );
    }

    #[test]
    fn dashboard_urls_as_the_dashboard_client_reads_them() {
        for url in [
            "http://h:8265",
            "https://h",
            "HTTP://h:8265",
            "Https://h",
            " http://h:8265 ",
        ] {
            assert!(is_dashboard_url(url), "{url:?}");
        }
        for address in [
            "ray://h:10001",
            "h:6379",
            "auto",
            "",
            " ",
            "httpx://h",
            "http:/h",
        ] {
            assert!(!is_dashboard_url(address), "{address:?}");
        }
    }
}
