//! What the placement check and Ray's simulation found, as diagnostics on the config.

use miette::SourceSpan;

pub use super::placement_findings::AcceleratorTypeName;

/// A finding of `check`: a placement problem, or Ray's verdict when it is not "places".
/// Labels point at the config (the node-slot or pool to change) when it came from a file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum CheckDiagnostic {
    /// Node-slots that fit no alive node, each alone.
    #[error("{what} of pool `{pool}` ({demand}) fits no alive node; nearest is {nearest}{when}")]
    #[diagnostic(code(resource_pool::placement::slot_fits_no_node), help("{help}"))]
    SlotFitsNoNode {
        /// `node-slot 0` or `node-slots 0, 1`.
        what: String,
        /// The pool.
        pool: String,
        /// What one slot needs.
        demand: String,
        /// `node-b: GPU 6 of 8, CPU 16 of 24`.
        nearest: String,
        /// ` (busy now: ...)`, or empty.
        when: String,
        /// What to do.
        help: String,
        /// The node-slot.
        #[label("{short}")]
        span: Option<SourceSpan>,
        /// The label text.
        short: String,
    },

    /// A resource whose total demand exceeds what alive nodes have free.
    #[error(
        "not enough {resource} in the cluster: {needed} needed, {free} free on alive nodes{when}"
    )]
    #[diagnostic(code(resource_pool::placement::resource_runs_out), help("{help}"))]
    ResourceRunsOut {
        /// The resource.
        resource: String,
        /// Total demand.
        needed: String,
        /// Total free.
        free: String,
        /// ` (busy now: ...)`, or empty.
        when: String,
        /// What to do.
        help: String,
        /// The first pool that asks for it.
        #[label("asks for {resource}")]
        span: Option<SourceSpan>,
    },

    /// A pool's accelerator type is spelled otherwise on the nodes (see
    /// [`AcceleratorTypeName`]).
    #[error(transparent)]
    #[diagnostic(transparent)]
    AcceleratorTypeName(#[from] AcceleratorTypeName),

    /// Every slot fits alone, but not all together.
    #[error(
        "the node-slots do not fit together: at most {fits} of {total} were found to fit{when}"
    )]
    #[diagnostic(code(resource_pool::placement::not_together), help("{help}"))]
    NotTogether {
        /// Slots found to fit together.
        fits: usize,
        /// All slots.
        total: usize,
        /// ` (busy now: ...)`, or empty.
        when: String,
        /// What to do, naming the slots left out.
        help: String,
        /// The first slot left out.
        #[label("left out")]
        span: Option<SourceSpan>,
    },

    /// The search ran out of budget.
    #[error("undecided: the placement search ran out of its {limit} before it could decide")]
    #[diagnostic(
        code(resource_pool::placement::undecided),
        help(
            "raise the budget with --budget-ms / --max-steps; the largest part found to fit holds {fits} of {total} node-slots"
        )
    )]
    Undecided {
        /// Which limit.
        limit: String,
        /// Slots found to fit together.
        fits: usize,
        /// All slots.
        total: usize,
    },

    /// Ray's scheduler leaves a group pending forever.
    #[error("Ray hangs: node-slot {slot} of pool `{pool}` stays pending forever{feasible}")]
    #[diagnostic(code(resource_pool::ray::hangs), help("{help}"))]
    RayHangs {
        /// The pool.
        pool: String,
        /// The slot.
        slot: usize,
        /// `, though a placement exists`, or empty.
        feasible: String,
        /// Why and what to do.
        help: String,
        /// The pending slot.
        #[label("{why}")]
        span: Option<SourceSpan>,
        /// Why it pends, short.
        why: String,
    },

    /// Whether Ray hangs depends on how it breaks ties between equal nodes.
    #[error(
        "Ray may hang: whether every group is placed depends on how Ray breaks ties between equally scored nodes"
    )]
    #[diagnostic(code(resource_pool::ray::depends_on_ties), help("{help}"))]
    RayDependsOnTies {
        /// What happens on the bad branch, and what to do.
        help: String,
        /// A slot that pends on some branch.
        #[label("pends on some tie-breaks")]
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
}

impl CheckDiagnostic {
    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        use miette::Diagnostic;
        matches!(self.severity(), None | Some(miette::Severity::Error))
    }
}
