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
use resource_pool_verl::{CONFIG_DATA_NAME, LoadedVerl, VerlOptions, VerlSettings, load_launch};
use serde_json::json;

use super::installed::Installed;
use super::run::CheckRun;
use super::verl_run::{LayoutError, summary as launch_summary, verl_findings};
use super::{Finding, said_by_the_cluster};
use crate::verl::{Role, manager_from_parts};
use resource_pool_core::check::NoSpans;
use resource_pool_core::model::{ResourcePool, ResourcePoolManager};

/// The YAML to read: `explicit` (`--config`). A config the launch's `--config-path` names
/// outside verl's own folder is not read offline: the launch is then not judged
/// (`resource_pool::verl::not_judged`), whatever the file holds.
pub fn config_path(
    explicit: Option<std::path::PathBuf>,
    _launch: &LaunchLine,
    _options: &mut VerlOptions,
) -> Option<std::path::PathBuf> {
    explicit
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
    /// What the installed verl built, when a probe ran ([`VerlLoad::use_installed`]).
    pub installed: Option<Installed>,
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
            installed: None,
        }
    }

    /// Says first which release's keys a version that is not one of the key set's is
    /// judged by (`release`: what [`verl_release`](crate::verl::version::verl_release) read of `--verl-version`).
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
            installed,
        } = self;
        let input = Input {
            loaded: &loaded,
            installed: installed.as_ref(),
            source: &source,
            notes,
            options,
            rules,
        };
        let run = input.run(findings, cluster);
        VerlRun {
            loaded,
            run,
            installed,
        }
    }
}

/// What the check of verl's settings reads besides the cluster.
struct Input<'a> {
    loaded: &'a LoadedVerl,
    installed: Option<&'a Installed>,
    source: &'a SourceFile,
    notes: &'a [InventoryNote],
    options: &'a CheckOptions,
    rules: ReleaseRules,
}

impl Input<'_> {
    /// The check, after the settings' `findings`.
    fn run(&self, mut findings: Vec<Finding>, cluster: Cluster) -> CheckRun {
        let (source, options) = (self.source, self.options);
        let Some(layout) = checked_layout(self.loaded, self.installed) else {
            return CheckRun::unchecked(findings, cluster);
        };
        let manager = match manager_from_parts(layout.pools, &layout.mapping) {
            Ok(manager) => manager,
            Err(error) => {
                findings.push(Finding::bare(LayoutError(error)));
                return CheckRun::unchecked(findings, cluster);
            }
        };
        let settings = &self.loaded.settings;
        let named = settings.pool_keys().into_iter().map(|keys| keys.name);
        if !named.eq(layout.pools.iter().map(|p| p.name.as_str())) {
            // Pools that verl's settings do not size (a recipe's or fork's own, from
            // `--python`): checked in the release's order, their remedies in pools' terms.
            return self.run_unworded(findings, cluster, &manager, &layout);
        }
        let launch = Launch::plan(self.rules, &layout.plan(), &cluster, settings);
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

impl Input<'_> {
    /// The check of pools that verl's settings do not name: verl's findings and the
    /// check's, with no remedies in verl's keys.
    fn run_unworded(
        &self,
        mut findings: Vec<Finding>,
        cluster: Cluster,
        manager: &ResourcePoolManager<Role>,
        layout: &CheckedLayout<'_>,
    ) -> CheckRun {
        let launch = Launch::plan(self.rules, &layout.plan(), &cluster, &NoSpans);
        let checked = match check_launch(manager, launch, &NoSpans, self.options) {
            Ok(checked) => checked,
            Err(error) => {
                findings.push(Finding::bare(LayoutError(error)));
                return CheckRun::unchecked(findings, cluster);
            }
        };
        findings.extend(verl_findings(&checked, Some(self.source)));
        let summary = launch_summary(&checked);
        let mut run = CheckRun::checked(findings, checked.report, checked.launch.cluster);
        run.launch = Some(summary);
        run
    }
}

/// The pools checked and their roles by verl's names: those the installed verl built,
/// when a probe ran, else those of the offline reading.
pub(super) struct CheckedLayout<'a> {
    pub(super) pools: &'a [ResourcePool],
    pub(super) mapping: Vec<(&'static str, &'a str)>,
}

impl CheckedLayout<'_> {
    /// As the launch plan reads it: roles by pool index.
    fn plan(&self) -> Layout<'_> {
        let mapping = (self.mapping.iter())
            .filter_map(|&(role, pool)| {
                let id = self.pools.iter().position(|p| p.name == pool)?;
                Some((role, id))
            })
            .collect();
        Layout {
            pools: self.pools,
            mapping,
            cpus_written: vec![false; self.pools.len()],
        }
    }
}

/// The layout checked: the installed verl's (none when it stopped first), else the
/// offline reading's.
pub(super) fn checked_layout<'a>(
    loaded: &'a LoadedVerl,
    installed: Option<&'a Installed>,
) -> Option<CheckedLayout<'a>> {
    match installed {
        Some(installed) => installed.built.as_ref().map(|b| CheckedLayout {
            pools: &b.pools,
            mapping: b.mapping.iter().map(|(r, p)| (*r, p.as_str())).collect(),
        }),
        None => loaded.layout.as_ref().map(|l| CheckedLayout {
            pools: &l.pools,
            mapping: l.mapping.iter().map(|&(r, p)| (r, p)).collect(),
        }),
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
    /// What the installed verl built, when a probe ran.
    pub installed: Option<Installed>,
}

impl VerlRun {
    /// Whether the check passes (exit status 0).
    pub fn passes(&self) -> bool {
        // A line the offline reader cannot see is not judged: its notice is a warning, and
        // no error found is a pass.
        let not_judged = self.installed.is_none() && self.loaded.launch.not_judged.is_some();
        match not_judged {
            true => !self.run.findings.iter().any(Finding::is_error),
            false => self.run.passes(),
        }
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
                let layout = checked_layout(&self.loaded, self.installed.as_ref());
                let mapping: serde_json::Map<String, serde_json::Value> = (layout.iter())
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
        if let Some(installed) = &self.installed {
            object.insert("installed".to_owned(), installed.json());
        }
        value
    }

    /// `verl builds: global_pool = [8, 8]; actor_rollout → global_pool, ...` and a line
    /// break, printed before the report; empty when verl would stop before its layout.
    pub fn heading(&self) -> String {
        let layout = checked_layout(&self.loaded, self.installed.as_ref());
        let (Some(_), Some(layout)) = (&self.run.report, layout) else {
            return String::new();
        };
        // Long lists shortened (`100000 node-slots of 8`), as suggestions show them.
        let pools = LayoutText::of(layout.pools);
        let mapping: Vec<String> = (layout.mapping.iter())
            .map(|(r, p)| format!("{r} → {p}"))
            .collect();
        let who = match &self.installed {
            Some(installed) => installed.who(),
            None => "verl builds".to_owned(),
        };
        format!("{who}: {pools}; {}\n", mapping.join(", "))
    }
}
