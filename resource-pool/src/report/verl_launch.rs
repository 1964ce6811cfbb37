//! `resource-pool verl`'s use-case: verl's settings (its YAML and the launch line) read
//! into the pools verl's entry point builds, then checked as verl's release launches them
//! ([`resource_pool_verl::launcher`]). The CLI and the Python module (`rp.verl.check`) call
//! the same code.

use resource_pool_core::check::suggest::LayoutText;
use resource_pool_core::check::{CheckOptions, ClusterFinding};
use resource_pool_core::config::OVERRIDES_NAME;
use resource_pool_core::model::{Accelerator, Cluster};
use resource_pool_core::source::SourceFile;
use resource_pool_inventory::InventoryNote;
use resource_pool_verl::findings::{cluster_findings, ray_findings, unsaid_cluster_findings};
use resource_pool_verl::launch::job_cluster::{LaunchCluster, launch_address};
use resource_pool_verl::launch::{AmbientAddresses, Launch as LaunchLine};
use resource_pool_verl::launcher::{Launch, LaunchCheck, LaunchDiagnostic, Layout, check_launch};
use resource_pool_verl::releases::ReleaseRules;
use resource_pool_verl::version::ReleaseRead;
use resource_pool_verl::{
    CONFIG_DATA_NAME, LoadedVerl, VerlLayout, VerlOptions, VerlSettings, load_launch,
    user_config_file,
};
use serde_json::json;

use super::run::CheckRun;
use super::verl_run::{LayoutError, summary as launch_summary};
use super::{Finding, said_by_the_cluster};
use crate::verl::manager_from_layout;

/// The YAML to read: `explicit` (`--config`) wins; else the user's own config that the
/// launch's `--config-path` names, when it can be read (Hydra resolves it from the entry
/// point's folder: run where verl runs), noting in `options` when it cannot.
pub fn config_path(
    explicit: Option<std::path::PathBuf>,
    launch: &LaunchLine,
    options: &mut VerlOptions,
) -> Option<std::path::PathBuf> {
    explicit.or_else(|| {
        let file = user_config_file(launch)?;
        let path = std::path::PathBuf::from(&file);
        let readable = path.is_file();
        options.config_file_unread = !readable;
        readable.then_some(path)
    })
}

/// verl's settings loaded from its YAML and launch line, with their findings: the first
/// half of what `resource-pool verl` computes, before the cluster is read. Shared with the
/// Python module (`resource_pool.verl.check`), so that both compute the same.
pub struct VerlLoad {
    /// The settings, the layout verl builds and the problems.
    pub loaded: LoadedVerl,
    /// The YAML with the launch line as a layer after it: where the findings point.
    pub source: SourceFile,
    /// The settings' findings; the cluster's are added after them.
    pub findings: Vec<Finding>,
}

impl VerlLoad {
    /// Loads verl's settings: `yaml` (verl's defaults without it), then the launch line.
    pub fn new(yaml: Option<&SourceFile>, launch: &LaunchLine, options: &VerlOptions) -> VerlLoad {
        // A config given as data (Python's dict) is named so: its values are not "the YAML".
        let options = &VerlOptions {
            config_is_data: options.config_is_data
                || yaml.is_some_and(|y| y.name() == CONFIG_DATA_NAME),
            ..options.clone()
        };
        let loaded = load_launch(launch, yaml.map(SourceFile::text), options);
        // The pasted line as a layer after the YAML: the span space of `load_launch`.
        let source = yaml
            .map_or_else(|| SourceFile::new(OVERRIDES_NAME, ""), |y| y.clone())
            .with_layer(OVERRIDES_NAME, &launch.line);
        debug_assert_eq!(
            source.layer_start(),
            Some(loaded.settings.space.command_line_base())
        );
        let findings = loaded
            .diagnostics
            .iter()
            .cloned()
            .map(|d| Finding::in_file(d, &source))
            .collect();
        VerlLoad {
            loaded,
            source,
            findings,
        }
    }

    /// Says first which release's keys a version that is not one of the key set's is
    /// judged by (`release`: what [`verl_release`] read of `--verl-version`).
    pub fn note_release(&mut self, release: Option<ReleaseRead>) {
        if let Some(read) = release.filter(|r| r.approximate) {
            self.findings.insert(0, Finding::bare(read));
        }
    }

    /// The cluster the launch line's `ray job submit` sends the job to, to read when no
    /// other source is given (`ambient`: the environment's variables), adding the note that
    /// says so, or why the line's address is not read.
    pub fn launch_cluster(
        &mut self,
        launch: &LaunchLine,
        ambient: &AmbientAddresses,
    ) -> LaunchCluster {
        let base = self.loaded.settings.space.command_line_base();
        let mut found = launch_address(launch, ambient, base);
        let source = &self.source;
        self.findings
            .extend(found.note.take().map(|n| Finding::in_file(n, source)));
        found
    }

    /// Checks the layout verl builds on a cluster (dead nodes in it, not alive) as `rules`'
    /// release launches it, adding the cluster's, verl's and the check's findings, and,
    /// when it does not place, the layouts that do in verl's overrides (`notes`, the
    /// cluster source's, name who holds the resources of a busy cluster).
    pub fn check(
        self,
        cluster: Cluster,
        notes: &[InventoryNote],
        options: &CheckOptions,
        rules: ReleaseRules,
    ) -> VerlRun {
        let VerlLoad {
            loaded,
            source,
            findings,
        } = self;
        let input = Input {
            loaded: &loaded,
            source: &source,
            notes,
            options,
            rules,
        };
        let run = input.run(findings, cluster);
        VerlRun { loaded, run }
    }
}

/// What the check of verl's settings reads besides the cluster.
struct Input<'a> {
    loaded: &'a LoadedVerl,
    source: &'a SourceFile,
    notes: &'a [InventoryNote],
    options: &'a CheckOptions,
    rules: ReleaseRules,
}

impl Input<'_> {
    /// The check, after the settings' `findings`.
    fn run(&self, mut findings: Vec<Finding>, cluster: Cluster) -> CheckRun {
        let (source, options) = (self.source, self.options);
        let Some(layout) = &self.loaded.layout else {
            return CheckRun::unchecked(findings, cluster);
        };
        let manager = match manager_from_layout(layout) {
            Ok(manager) => manager,
            Err(error) => {
                findings.push(Finding::bare(LayoutError(error)));
                return CheckRun::unchecked(findings, cluster);
            }
        };
        let settings = &self.loaded.settings;
        let launch = Launch::plan(self.rules, &verl_layout(layout), &cluster, settings);
        let checked = match check_launch(&manager, launch, settings, options) {
            Ok(checked) => checked,
            Err(error) => {
                findings.push(Finding::bare(LayoutError(error)));
                return CheckRun::unchecked(findings, cluster);
            }
        };
        let attach = |d| Finding::in_file(d, source);
        let accelerator = checked
            .launch
            .pools
            .first()
            .map_or(Accelerator::Gpu, |p| p.spec.accelerator);
        let verl_said = cluster_findings(settings, accelerator, &checked.launch.cluster);
        let found = unsaid_cluster_findings(checked.cluster_findings.clone(), &verl_said);
        findings.extend(verl_said.into_iter().map(attach));
        findings.extend(launch_findings(&checked, settings, source, found));
        let suggestions = checked.wants_suggestion(settings).then(|| {
            let mut found = checked.suggest(settings, options);
            found.name_holders(InventoryNote::held_by_groups(self.notes));
            found
        });
        let summary = launch_summary(&checked);
        let mut run = CheckRun::checked(findings, checked.report, checked.launch.cluster);
        if let Some(found) = suggestions {
            run.add_suggestions(found, settings, Some(source));
        }
        run.launch = Some(summary);
        run
    }
}

/// verl's layout as the launch plan reads it: its pools, and its roles by verl's names.
fn verl_layout(layout: &VerlLayout) -> Layout<'_> {
    let mapping = (layout.mapping.iter())
        .filter_map(|&(role, pool)| {
            let id = layout.pools.iter().position(|p| p.name == pool)?;
            Some((role, id))
        })
        .collect();
    Layout {
        pools: &layout.pools,
        mapping,
        cpus_written: vec![false; layout.pools.len()],
    }
}

/// The findings of a launch of verl's settings: what verl does before Ray, the cluster's
/// (`found`, less what verl's own cluster findings said), the check's with a hang told in
/// verl's settings (Ray's verdict left out when verl stops before it), then where verl stops
/// once Ray placed.
fn launch_findings(
    checked: &LaunchCheck,
    settings: &VerlSettings,
    source: &SourceFile,
    found: Vec<ClusterFinding>,
) -> Vec<Finding> {
    let stops_after = |d: &&LaunchDiagnostic| matches!(d, LaunchDiagnostic::StopsAtPool { .. });
    let mut out: Vec<Finding> = (checked.verl.iter())
        .filter(|d| !stops_after(d))
        .map(|d| Finding::in_file(d.clone(), source))
        .collect();
    out.extend(said_by_the_cluster(found, &checked.report));
    let (kept, hangs) = ray_findings(settings, &checked.report, &checked.launch.cluster);
    let before_ray = checked.launch.stops_before_ray();
    out.extend(
        kept.into_iter()
            .filter(|d| !(before_ray && d.is_ray_verdict()))
            .map(|d| Finding::in_file(d, source)),
    );
    if !before_ray {
        out.extend(hangs.into_iter().map(|d| Finding::in_file(d, source)));
    }
    out.extend(
        (checked.verl.iter())
            .filter(stops_after)
            .map(|d| Finding::in_file(d.clone(), source)),
    );
    out
}

/// What `resource-pool verl` computes: verl's settings checked on a cluster.
pub struct VerlRun {
    /// The settings, the layout verl builds and what was read of the launch.
    pub loaded: LoadedVerl,
    /// The check: its findings in the order people read them, its report (`None` when verl
    /// would stop before building its layout), the layouts suggested, the cluster.
    pub run: CheckRun,
}

impl VerlRun {
    /// Whether the check passes (exit status 0).
    pub fn passes(&self) -> bool {
        self.run.passes()
    }

    /// The JSON result: `check`'s, with verl's `pools` and `mapping` (always there, `null`
    /// when verl would stop before building them, as Python's `as_dict()` has them), and
    /// the `launch` read (worth reporting even when verl would stop).
    pub fn json(&self) -> serde_json::Value {
        let mut value = self.run.json();
        let Some(object) = value.as_object_mut() else {
            return value;
        };
        let (pools, mapping) = match &self.run.report {
            Some(report) => {
                let pools: Vec<_> = (report.pools.iter())
                    .map(|p| {
                        json!({
                            "name": p.name,
                            "process_on_nodes": p.spec.process_on_nodes,
                            "accelerator": p.spec.accelerator.to_string(),
                            "max_colocate_count": p.spec.max_colocate_count,
                        })
                    })
                    .collect();
                let mapping: serde_json::Map<String, serde_json::Value> = (self.loaded.layout)
                    .iter()
                    .flat_map(|l| l.mapping.iter())
                    .map(|(role, pool)| ((*role).to_owned(), json!(pool)))
                    .collect();
                (json!(pools), json!(mapping))
            }
            None => (serde_json::Value::Null, serde_json::Value::Null),
        };
        object.insert("pools".to_owned(), pools);
        object.insert("mapping".to_owned(), mapping);
        object.insert("launch".to_owned(), json!(self.loaded.launch));
        value
    }

    /// `verl builds: global_pool = [8, 8]; actor_rollout → global_pool, ...` and a line
    /// break, printed before the report; empty when verl would stop before its layout.
    pub fn heading(&self) -> String {
        let (Some(_), Some(layout)) = (&self.run.report, &self.loaded.layout) else {
            return String::new();
        };
        // Long lists shortened (`100000 node-slots of 8`), as suggestions show them.
        let pools = LayoutText::of(&layout.pools);
        let mapping: Vec<String> = (layout.mapping.iter())
            .map(|(r, p)| format!("{r} → {p}"))
            .collect();
        format!("verl builds: {pools}; {}\n", mapping.join(", "))
    }
}
