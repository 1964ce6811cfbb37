//! What the placement check and Ray's simulation found, as diagnostics on the config.
//!
//! Every diagnostic holds typed fields (the pool, the node-slots, the nearest node and what
//! it lacks per resource, busy now or never, Ray's order) and its message, label and help
//! are formatted from them; the JSON output carries the same fields as the diagnostic's
//! `data` object (spans left out: `file`, `line` and `column` say where), so tools act on
//! them without parsing English.

use std::fmt;

use miette::{LabeledSpan, SourceSpan};
use serde::Serialize;

use super::ray_advice::nearest_or_none;
use super::ray_advice::{RayAdvice, RayOrder};
use super::wording::{ClusterWording, LayoutWording};
use crate::model::{Amount, Resources};
use crate::placement::{IdleFit, NearestNode};
use crate::ray_sim::PendingState;
use crate::words::{noun, verb};

pub use super::placement_findings::AcceleratorTypeName;

/// A finding of `check`: a placement problem, or Ray's verdict when it is not "places".
/// Labels point at the config (the node-slot or pool to change) when it came from a file.
///
/// `Serialize` writes the data fields only, untagged and without spans or prose (the
/// `data` of the CLI's JSON, which writes the code beside it): which finding it is, is
/// [`Diagnostic::code`](miette::Diagnostic::code) (or the variant).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum CheckDiagnostic {
    /// Node-slots of one pool that fit no alive node, each alone.
    #[error(
        "{} of pool `{pool}` ({demand}) {} no alive node; nearest is {}{}",
        slots_text(.slots),
        verb(.slots.len(), "fits", "fit"),
        nearest_text(.nearest.as_ref()),
        when_text(*.idle)
    )]
    #[diagnostic(
        code(resource_pool::placement::slot_fits_no_node),
        help("{}{}", busy_prefix(*.idle, *.listed_by), Worded(.advice, *.written))
    )]
    SlotFitsNoNode {
        /// The pool whose node-slots these are.
        pool: String,
        /// The pool's node-slots that fit no node (their indices in the pool).
        slots: Vec<usize>,
        /// What one of them needs.
        demand: Resources,
        /// The alive node that comes closest, and what it lacks; `None` when none is alive.
        nearest: Option<NearestNode>,
        /// Whether the slots would fit the idle cluster (known when nodes give totals).
        idle: Option<IdleFit>,
        /// The source that listed the nodes, for the help's words (set by the check; not
        /// data: the help carries it).
        #[serde(skip)]
        listed_by: ClusterWording,
        /// Where the layout was written, for the help's words (set by the check; not data:
        /// the help carries it).
        #[serde(skip)]
        written: LayoutWording,
        /// What to do, one piece per resource the nearest node lacks.
        advice: Vec<SlotAdvice>,
        /// The first of the node-slots.
        #[label("{}", short_nearest(.nearest.as_ref()))]
        #[serde(skip)]
        span: Option<SourceSpan>,
    },

    /// A resource whose total demand exceeds what alive nodes have free.
    #[error(
        "not enough {resource} in the cluster: {needed} needed, {free} free on alive nodes{}",
        when_text(*.idle)
    )]
    #[diagnostic(
        code(resource_pool::placement::resource_runs_out),
        help(
            "{}ask for less {resource} ({}), or add nodes that have it",
            busy_prefix(*.idle, *.listed_by),
            .written.fewer_or_smaller_slots()
        )
    )]
    ResourceRunsOut {
        /// The resource that runs out (`GPU`, `CPU`, a custom one).
        resource: String,
        /// What the node-slots need in all.
        needed: Amount,
        /// What the alive nodes have free in all.
        free: Amount,
        /// Whether the layout would fit the idle cluster.
        idle: Option<IdleFit>,
        /// The source that listed the nodes, for the help's words (set by the check; not
        /// data: the help carries it).
        #[serde(skip)]
        listed_by: ClusterWording,
        /// Where the layout was written, for the help's words (set by the check; not data:
        /// the help carries it).
        #[serde(skip)]
        written: LayoutWording,
        /// Every pool that asks for it, in creation order, with what it asks for in all:
        /// their amounts add up to `needed`.
        pools: Vec<PoolNeed>,
        /// Every pool that asks for it, each labelled with its amount (`asks for 16 GPU`):
        /// the total is theirs together, so each is a place to ask for less.
        #[label(collection)]
        #[serde(skip)]
        spans: Vec<LabeledSpan>,
    },

    /// A pool's accelerator type is spelled otherwise on the nodes (see
    /// [`AcceleratorTypeName`]).
    #[error(transparent)]
    #[diagnostic(transparent)]
    AcceleratorTypeName(#[from] AcceleratorTypeName),

    /// Every slot fits alone, but not all together.
    #[error(
        "the node-slots do not fit together: at most {fits} of {total} {} found to fit{}",
        verb(*.fits, "was", "were"),
        when_text(*.idle)
    )]
    #[diagnostic(
        code(resource_pool::placement::not_together),
        help(
            "{}every node-slot fits some node alone, but the nodes fragment: left out {left_out}; {} or add a node",
            busy_prefix(*.idle, *.listed_by),
            .written.smaller_slots()
        )
    )]
    NotTogether {
        /// Slots found to fit together.
        fits: usize,
        /// All slots.
        total: usize,
        /// Whether the layout would fit the idle cluster.
        idle: Option<IdleFit>,
        /// The source that listed the nodes, for the help's words (set by the check; not
        /// data: the help carries it).
        #[serde(skip)]
        listed_by: ClusterWording,
        /// Where the layout was written, for the help's words (set by the check; not data:
        /// the help carries it).
        #[serde(skip)]
        written: LayoutWording,
        /// The node-slots left out of the largest part found to fit.
        left_out: SlotList,
        /// The first slot left out.
        #[label("left out")]
        #[serde(skip)]
        span: Option<SourceSpan>,
    },

    /// The search ran out of budget.
    #[error("undecided: the placement search ran out of its {limit} before it could decide")]
    #[diagnostic(
        code(resource_pool::placement::undecided),
        help(
            "raise the budget with --budget-ms / --max-steps; the largest part found to fit holds {fits} of {total} {}",
            noun(*.total, "node-slot")
        )
    )]
    Undecided {
        /// Which limit ran out.
        limit: SearchLimit,
        /// Slots found to fit together.
        fits: usize,
        /// All slots.
        total: usize,
    },

    /// Ray's scheduler leaves a group pending forever.
    #[error(
        "Ray hangs: node-slot {slot} of pool `{pool}` stays pending forever{}",
        if *.placement_exists { ", though a placement exists" } else { "" }
    )]
    #[diagnostic(
        code(resource_pool::ray::hangs),
        help("Ray's order: {order}{}. {fix}", never_created_text(.never_created))
    )]
    RayHangs {
        /// The pool of the group that pends.
        pool: String,
        /// Its node-slot.
        slot: usize,
        /// Whether a placement exists (Ray's order, not the cluster, is the problem).
        placement_exists: bool,
        /// Ray's scheduling state of the pending group.
        state: PendingState,
        /// The node that comes closest when it pends, and what it lacks.
        nearest: Option<NearestNode>,
        /// What Ray does, group by group, in verl's order.
        order: RayOrder,
        /// The groups verl never creates, waiting forever on the pending one.
        never_created: SlotList,
        /// What makes Ray place everything.
        fix: RayAdvice,
        /// The pending slot.
        #[label("pending ({state}): {}", nearest_or_none(.nearest.as_ref()))]
        #[serde(skip)]
        span: Option<SourceSpan>,
    },

    /// Whether Ray hangs depends on how it breaks ties between equal nodes.
    #[error(
        "Ray may hang: whether every group is placed depends on how Ray breaks ties between equally scored nodes"
    )]
    #[diagnostic(
        code(resource_pool::ray::depends_on_ties),
        help("on some tie-breaks: {hanging}{}. {fix}", placing_text(.placing.as_ref()))
    )]
    RayDependsOnTies {
        /// What Ray does on a branch that hangs.
        hanging: RayOrder,
        /// What Ray does on a branch that places everything, when one was found.
        placing: Option<RayOrder>,
        /// What makes Ray place everything on every branch.
        fix: RayAdvice,
        /// A slot that pends on some branch.
        #[label("pends on some tie-breaks")]
        #[serde(skip)]
        span: Option<SourceSpan>,
    },

    /// The simulation followed more ties than its bound.
    #[error(
        "undecided: Ray's simulation reached its bound of {branches} tie-break branches without a verdict"
    )]
    #[diagnostic(
        code(resource_pool::ray::undecided),
        help(
            "raise the bound with --max-ray-branches, or make nodes differ so Ray's choice is unique"
        )
    )]
    RayUndecided {
        /// Branches followed.
        branches: usize,
    },

    /// Nodes of the cluster share an id (a cluster built in code: the cluster files and
    /// the inventories refuse it as they read). Diagnostics, the plan and the JSON name
    /// nodes by id, so they could not tell these apart.
    #[error("{} of the cluster share the id `{id}`", listed("node", .nodes))]
    #[diagnostic(
        code(resource_pool::cluster::duplicate_node),
        help(
            "give every node its own id (Ray's node id, a host name): the check's findings and plan name nodes by it"
        )
    )]
    DuplicateNode {
        /// The id they share.
        id: String,
        /// The nodes that have it, by their index in the cluster's `nodes`, in order.
        nodes: Vec<usize>,
    },

    /// Nodes of the cluster have an empty id (a cluster built in code); see
    /// [`CheckDiagnostic::DuplicateNode`].
    #[error(
        "{} of the cluster {} an empty id",
        listed("node", .nodes),
        verb(.nodes.len(), "has", "have")
    )]
    #[diagnostic(
        code(resource_pool::cluster::empty_node_id),
        help(
            "give every node its own id (Ray's node id, a host name): the check's findings and plan name nodes by it"
        )
    )]
    EmptyNodeId {
        /// The nodes, by their index in the cluster's `nodes`, in order.
        nodes: Vec<usize>,
    },
}

impl CheckDiagnostic {
    /// Words its remedy for the source that listed the nodes and where the layout was
    /// written.
    pub(super) fn word_for(&mut self, source: ClusterWording, layout: LayoutWording) {
        if let CheckDiagnostic::SlotFitsNoNode {
            listed_by, written, ..
        }
        | CheckDiagnostic::ResourceRunsOut {
            listed_by, written, ..
        }
        | CheckDiagnostic::NotTogether {
            listed_by, written, ..
        } = self
        {
            *listed_by = source;
            *written = layout;
        }
    }

    /// Whether this is Ray's verdict (`ray::hangs`, `ray::depends_on_ties`).
    pub fn is_ray_verdict(&self) -> bool {
        matches!(
            self,
            CheckDiagnostic::RayHangs { .. } | CheckDiagnostic::RayDependsOnTies { .. }
        )
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        use miette::Diagnostic;
        matches!(self.severity(), None | Some(miette::Severity::Error))
    }
}

/// How many node-slots a list shows before "and N more".
const SHOWN: usize = 8;

/// What one pool asks for of a resource, over all its node-slots.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct PoolNeed {
    /// The pool, by its name in the config.
    pub pool: String,
    /// What its node-slots need in all.
    pub needed: Amount,
}

/// One node-slot by name: `global_pool[0]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct SlotRef {
    /// The pool, by its name in the config.
    pub pool: String,
    /// The slot's index in the pool.
    pub slot: usize,
}

impl fmt::Display for SlotRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]", self.pool, self.slot)
    }
}

/// Node-slots, shown as the first eight and "and N more" (JSON: every one).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct SlotList(pub Vec<SlotRef>);

impl fmt::Display for SlotList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, slot) in self.0.iter().take(SHOWN).enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{slot}")?;
        }
        let more = self.0.len().saturating_sub(SHOWN);
        if more > 0 {
            write!(f, " and {more} more")?;
        }
        Ok(())
    }
}

/// Which limit of the placement search ran out (`steps` or `time` in JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SearchLimit {
    /// The step budget (`--max-steps`).
    Steps,
    /// The time budget (`--budget-ms`).
    Time,
}

impl fmt::Display for SearchLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SearchLimit::Steps => "step budget",
            SearchLimit::Time => "time budget",
        })
    }
}

/// What to do about a node-slot that fits no node, for one resource the nearest node lacks
/// (JSON: an object with `kind` and the fields).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum SlotAdvice {
    /// No node is alive at all.
    NoNodeAlive,
    /// The pool asks for one accelerator and the nodes have the other.
    OtherAccelerator {
        /// What the pool asks for (`GPU`).
        asked: String,
        /// What the nodes have (`NPU`).
        found: String,
    },
    /// No node has as many of the pool's accelerator free as one slot needs.
    TooLarge {
        /// The accelerator.
        resource: String,
        /// What one slot needs.
        needed: Amount,
    },
    /// The nearest node has too few CPUs (`max_colocate_count` per bundle).
    Cpus {
        /// What one slot needs.
        needed: Amount,
        /// CPUs per bundle.
        per_bundle: u32,
    },
    /// No alive node declares the pool's accelerator type by that name, but they do with
    /// or without Ray's `accelerator_type:` prefix, or in another case.
    SpelledOtherwise {
        /// The name the pool asks for.
        asked: String,
        /// The name the nodes declare.
        declared: String,
    },
    /// No alive node has the resource free (a custom resource, an accelerator type), or
    /// declares the pool's accelerator at all (CPU-only nodes).
    NotDeclared {
        /// The resource no alive node has free.
        resource: String,
    },
    /// The nearest node has less of it free than one slot needs.
    Short {
        /// The resource the nearest node has too little of.
        resource: String,
        /// Free on the nearest node.
        free: Amount,
        /// What one slot needs.
        needed: Amount,
    },
}

impl SlotAdvice {
    /// The advice in the terms of where the layout was written.
    pub fn worded(&self, written: LayoutWording) -> String {
        match self {
            SlotAdvice::NoNodeAlive => {
                "no node is alive: start the cluster's nodes, or check the cluster you point at"
                    .to_owned()
            }
            SlotAdvice::OtherAccelerator { asked, found } => {
                written.other_accelerator(asked, found)
            }
            SlotAdvice::TooLarge { resource, needed } => written.too_large(resource, *needed),
            SlotAdvice::Cpus { needed, per_bundle } => written.cpus(*needed, *per_bundle),
            SlotAdvice::SpelledOtherwise { asked, declared } => format!(
                "the nodes declare `{asked}` as `{declared}`: write `accelerator_type = \"{declared}\"`"
            ),
            SlotAdvice::NotDeclared { resource } => {
                if matches!(
                    resource.as_str(),
                    crate::model::names::GPU | crate::model::names::CPU
                ) {
                    format!(
                        "no alive node has `{resource}`: {}",
                        super::cluster_findings::missing_resource_help(resource)
                    )
                } else {
                    format!(
                        "no alive node has `{resource}` free: check its spelling (`accelerator_type`, `bundle_resources`) against `ray start --resources`"
                    )
                }
            }
            SlotAdvice::Short {
                resource,
                free,
                needed,
            } => format!("`{resource}`: {free} of {needed} free on the nearest node"),
        }
    }
}

/// The advice in a config file's terms.
impl fmt::Display for SlotAdvice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.worded(LayoutWording::default()))
    }
}

/// Pieces of advice in the terms of where the layout was written, joined by `; `.
struct Worded<'a>(&'a [SlotAdvice], LayoutWording);

impl fmt::Display for Worded<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, item) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            f.write_str(&item.worded(self.1))?;
        }
        Ok(())
    }
}

/// `node-slot 0`, `node-slots 0, 1`, or the first eight and `and N more`.
fn slots_text(slots: &[usize]) -> String {
    listed("node-slot", slots)
}

/// `noun 0`, `nouns 0, 1`, or the first eight and `and N more`.
fn listed(noun_: &str, indices: &[usize]) -> String {
    let list: Vec<String> = indices.iter().take(SHOWN).map(usize::to_string).collect();
    let more = indices.len().saturating_sub(SHOWN);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!("{} {}{more}", noun(indices.len(), noun_), list.join(", "))
}

/// ` (busy now: ...)` or ` (never: ...)`, from the idle check.
fn when_text(idle: Option<IdleFit>) -> &'static str {
    match idle {
        Some(IdleFit::BusyNow) => " (busy now: it would fit the idle cluster)",
        Some(IdleFit::Never) => " (never: not even on the idle cluster)",
        Some(IdleFit::Unknown) | None => "",
    }
}

/// The start of the help when other work holds the resources now.
fn busy_prefix(idle: Option<IdleFit>, listed_by: ClusterWording) -> &'static str {
    if idle == Some(IdleFit::BusyNow) {
        listed_by.busy_now()
    } else {
        ""
    }
}

fn nearest_text(nearest: Option<&NearestNode>) -> String {
    nearest.map_or_else(|| "none: no node is alive".to_owned(), |n| n.to_string())
}

fn short_nearest(nearest: Option<&NearestNode>) -> String {
    nearest.map_or_else(
        || "no node is alive".to_owned(),
        |n| format!("fits no node ({n})"),
    )
}

fn never_created_text(never: &SlotList) -> String {
    if never.0.is_empty() {
        String::new()
    } else {
        format!("; verl then waits forever and never creates {never}")
    }
}

fn placing_text(placing: Option<&RayOrder>) -> String {
    placing.map_or_else(String::new, |order| format!("; on others: {order}"))
}
