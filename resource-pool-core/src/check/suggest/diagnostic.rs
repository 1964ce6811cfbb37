//! The suggestion as a diagnostic (advice): typed fields, formatted by `#[error]` and
//! `#[help]`, serialised as data.

use std::fmt;

use miette::LabeledSpan;
use serde::Serialize;
use serde::ser::SerializeMap;

use super::{
    Factor, Holder, LayoutTerms, OverrideStyle, Reshape, SearchResult, Suggestions, When,
    shell_word,
};
use crate::model::{Accelerator, ResourcePool, Resources};
use crate::source::to_source_span;
use crate::words::{count, noun, verb};

/// Lists longer than this are shown as a count in messages (JSON has them whole).
const SHOWN_SLOTS: usize = 6;
/// Holders named in a message (the rest counted).
const SHOWN_HOLDERS: usize = 6;

/// What a suggestion says: a layout, or why there is none.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum SuggestDiagnostic {
    /// The largest layout of the searched shapes that Ray places.
    #[error("{phrase}{layout} ({accelerators} of {asked} {})", unit.noun(*.asked))]
    #[diagnostic(
        code(resource_pool::suggest::layout),
        severity(Advice),
        help("{advice}")
    )]
    Layout {
        /// Which cluster, and how the message starts.
        #[serde(flatten)]
        phrase: Phrase,
        /// The pools' node-slots.
        layout: LayoutText,
        /// Accelerators over every pool.
        accelerators: u64,
        /// Accelerators the layout as written asks for.
        asked: u64,
        /// Which accelerator.
        unit: Unit,
        /// What to write, what must be freed first, what was left undecided.
        #[serde(flatten)]
        advice: Advice,
        /// What changes, pool by pool in creation order ([`LayoutTerms::edit_spans`]), each
        /// labelled with its [`Edit`]: the first node-slot a trimmed pool drops, the keys a
        /// split pool changes. The first is where tools that show one place (GitHub,
        /// SARIF) put the suggestion.
        #[serde(skip)]
        #[label(collection)]
        spans: Vec<LabeledSpan>,
    },

    /// No layout of the searched shapes is placed by Ray (on a busy cluster, when none is
    /// on the idle cluster either, one diagnostic says both).
    #[error("no smaller layout of this shape fits{place}{}", if *.idle_too { ", nor on the idle cluster" } else { "" })]
    #[diagnostic(
        code(resource_pool::suggest::none_fits),
        severity(Advice),
        help("{multiples}")
    )]
    NoneFits {
        /// Which cluster.
        #[serde(flatten)]
        place: Place,
        /// Whether this says the idle cluster too (then `when` is `now`).
        idle_too: bool,
        /// The pools whose accelerators every searched layout keeps a multiple (over 1)
        /// of, often why none fits (verl's rollout replica size); not in JSON when none
        /// does, so a plain check's data is as it was.
        #[serde(skip_serializing_if = "KeptMultiples::is_empty")]
        multiples: KeptMultiples,
    },

    /// The search ran out of its budget before it found the layout.
    #[error(
        "undecided: the search for a layout that fits{place} ran out of its budget after {}",
        count(*.tried, "layout")
    )]
    #[diagnostic(
        code(resource_pool::suggest::undecided),
        severity(Advice),
        help(
            "it shares the check's budget: raise --budget-ms / --max-steps (and --max-ray-branches when ties are many)"
        )
    )]
    Undecided {
        /// Which cluster.
        #[serde(flatten)]
        place: Place,
        /// Layouts checked.
        tried: usize,
    },
}

/// A pool whose accelerators every searched layout keeps a multiple of
/// ([`LayoutTerms::multiple`], over 1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KeptMultiple {
    /// The pool, by its name in the config.
    pub pool: String,
    /// Its accelerators stay a multiple of it.
    pub multiple: u64,
    /// The settings whose values multiply into it ([`super::MultipleSource::factors`]); empty
    /// when the layout names none.
    pub factors: Vec<Factor>,
    /// What it is and what to do, for the help ([`super::MultipleSource::what`] and
    /// `remedy`); not in JSON (prose).
    #[serde(skip)]
    pub words: Option<(&'static str, &'static str)>,
    /// The pool's accelerator, for the help.
    #[serde(skip)]
    pub unit: Unit,
}

/// The pools that keep a multiple; as the help of `none_fits`, what every searched layout
/// keeps and what to do.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct KeptMultiples(pub Vec<KeptMultiple>);

impl KeptMultiples {
    /// Whether no pool keeps a multiple.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for KeptMultiples {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("every pool keeps its bundles and at least one node-slot")?;
        for kept in &self.0 {
            write!(
                f,
                ", and `{}` a multiple of {} {}",
                kept.pool,
                kept.multiple,
                kept.unit.noun(kept.multiple)
            )?;
            if let Some((what, _)) = kept.words {
                write!(f, ", {what}")?;
            }
            if !kept.factors.is_empty() {
                let factors: Vec<String> = kept
                    .factors
                    .iter()
                    .map(|k| format!("`{}={}`", k.key, k.value))
                    .collect();
                write!(f, " ({})", factors.join(" × "))?;
            }
        }
        f.write_str("; ")?;
        let mut remedies: Vec<&str> = self.0.iter().filter_map(|k| Some(k.words?.1)).collect();
        remedies.dedup();
        for remedy in remedies {
            write!(f, "{remedy}, ")?;
        }
        f.write_str("fix what the errors above say is missing, or add nodes")
    }
}

/// What a suggestion's label says at a pool that changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit {
    /// A trimmed pool: its first node-slot dropped.
    Drop,
    /// A split pool: the keys that size it.
    Resize,
}

impl fmt::Display for Edit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Edit::Drop => "drop from here",
            Edit::Resize => "change this",
        })
    }
}

/// Which cluster an answer is for, in a message: nothing when there is one answer,
/// ` now` or ` on the idle cluster` when there are two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Place {
    /// The cluster.
    pub when: When,
    /// Whether two answers are given (a busy cluster).
    pub busy: bool,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.busy, self.when) {
            (false, _) => Ok(()),
            (true, When::Now) => f.write_str(" now"),
            (true, When::Idle) => f.write_str(" on the idle cluster"),
        }
    }
}

/// How a layout's message starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Phrase {
    /// The cluster.
    #[serde(flatten)]
    pub place: Place,
    /// Whether the layout is the one written (no pool changes).
    pub as_written: bool,
}

impl fmt::Display for Phrase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.as_written, self.place.busy, self.place.when) {
            (true, _, When::Idle) => {
                f.write_str("on the idle cluster Ray places the layout as written: ")
            }
            (true, _, When::Now) => f.write_str("Ray places the layout as written: "),
            (false, false, _) => f.write_str("the largest layout of this shape that Ray places: "),
            (false, true, When::Now) => {
                f.write_str("now, the largest layout of this shape that Ray places: ")
            }
            (false, true, When::Idle) => f.write_str(
                "on the idle cluster, the largest layout of this shape that Ray places: ",
            ),
        }
    }
}

/// One pool's node-slots.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PoolSlots {
    /// The pool, by its name in the config.
    pub pool: String,
    /// Its node-slots.
    pub process_on_nodes: Vec<u32>,
}

/// The pools' node-slots: `global_pool = [8, 8], reward_pool = [4]`; a long list is
/// shown as `996 node-slots of 8` (or `[8, 8, 8, 8, 8, 8, …] (12 node-slots)`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct LayoutText(pub Vec<PoolSlots>);

impl LayoutText {
    /// The node-slots of `pools`.
    pub fn of(pools: &[ResourcePool]) -> LayoutText {
        LayoutText(
            pools
                .iter()
                .map(|p| PoolSlots {
                    pool: p.name.clone(),
                    process_on_nodes: p.spec.process_on_nodes.clone(),
                })
                .collect(),
        )
    }
}

/// `[8, 8]`, `996 node-slots of 8`, or `[8, 4, 8, 4, 8, 4, …] (12 node-slots)`.
pub(crate) fn slots_text(list: &[u32]) -> String {
    let join = |l: &[u32]| l.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
    if list.len() <= SHOWN_SLOTS {
        format!("[{}]", join(list))
    } else if list.windows(2).all(|w| w[0] == w[1]) {
        format!("{} node-slots of {}", list.len(), list[0])
    } else {
        format!(
            "[{}, …] ({} node-slots)",
            join(&list[..SHOWN_SLOTS]),
            list.len()
        )
    }
}

impl fmt::Display for LayoutText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{} = {}", p.pool, slots_text(&p.process_on_nodes))?;
        }
        Ok(())
    }
}

/// The accelerator the pools ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Unit {
    /// Every pool asks for GPUs.
    #[serde(rename = "GPU")]
    Gpu,
    /// Every pool asks for NPUs.
    #[serde(rename = "NPU")]
    Npu,
    /// Some GPUs, some NPUs.
    #[serde(rename = "mixed")]
    Mixed,
}

impl Unit {
    /// The unit of these pools.
    pub fn of(pools: &[ResourcePool]) -> Unit {
        let gpu = pools.iter().any(|p| p.spec.accelerator == Accelerator::Gpu);
        let npu = pools.iter().any(|p| p.spec.accelerator == Accelerator::Npu);
        match (gpu, npu) {
            (_, false) => Unit::Gpu,
            (false, true) => Unit::Npu,
            (true, true) => Unit::Mixed,
        }
    }
}

impl Unit {
    /// The unit after a count of `n`: `1 GPU`, `16 GPUs` (the suggestion's words and the
    /// plan's picture titles agree).
    pub fn noun(self, n: u64) -> String {
        let one = match self {
            Unit::Gpu => "GPU",
            Unit::Npu => "NPU",
            Unit::Mixed => "accelerator",
        };
        noun(usize::try_from(n).unwrap_or(usize::MAX), one)
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unit::Gpu => "GPUs",
            Unit::Npu => "NPUs",
            Unit::Mixed => "accelerators",
        })
    }
}

/// What is held on nodes now: `node-b: CPU 12, GPU 4 (by placement group `x` (id))`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Holders(pub Vec<Holder>);

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.node)?;
        for (i, (name, amount)) in self.held.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{name} {amount}")?;
        }
        for (i, group) in self.by.iter().enumerate() {
            let lead = if i == 0 { " (by" } else { "," };
            write!(f, "{lead} {group}")?;
        }
        if !self.by.is_empty() {
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl fmt::Display for Holders {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, h) in self.0.iter().take(SHOWN_HOLDERS).enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{h}")?;
        }
        let more = self.0.len().saturating_sub(SHOWN_HOLDERS);
        if more > 0 {
            write!(f, "; and {more} more {}", noun(more, "node"))?;
        }
        Ok(())
    }
}

/// Resources as a JSON object of numbers.
pub(crate) fn serialize_resources<S: serde::Serializer>(
    resources: &Resources,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(resources.len()))?;
    for (name, amount) in resources.iter() {
        map.serialize_entry(name, &amount.as_f64())?;
    }
    map.end()
}

/// What to do with a layout: the overrides, what must be freed first, what was undecided.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Advice {
    /// How the overrides are written.
    pub style: OverrideStyle,
    /// The overrides, `KEY=VALUE` each (empty when nothing changes, and always for a
    /// layout built in code, which has no keys to set).
    pub overrides: Vec<String>,
    /// Whether the layout differs from the one asked. The help cannot tell it from the
    /// overrides, which a layout built in code never has. Not in JSON: the same object's
    /// `as_written` (of its `Phrase`) already says it.
    #[serde(skip)]
    pub changes: bool,
    /// What other work holds now (answers for the idle cluster).
    pub holders: Holders,
    /// Layouts ranked before it that could not be decided.
    pub undecided: usize,
    /// The advice to paste the whole new layout, when the words of where it was written
    /// give one ([`LayoutWords::whole_layout`](crate::check::LayoutWords::whole_layout):
    /// Python's `resource_pool_spec`); its help says this instead of the `--set` values,
    /// which are for the config generated from it. Not in JSON: `layout` has the same
    /// lists, and `overrides` stay the generated config's, so JSON is the same whichever
    /// front end asked.
    #[serde(skip)]
    pub whole_layout: Option<String>,
}

impl fmt::Display for Advice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        if let (true, Some(paste)) = (self.changes, &self.whole_layout) {
            parts.push(paste.clone());
        } else if self.changes {
            parts.push(match self.style {
                OverrideStyle::Set if !self.overrides.is_empty() => {
                    let sets: Vec<String> = self
                        .overrides
                        .iter()
                        .map(|o| format!("--set {}", shell_word(o)))
                        .collect();
                    format!(
                        "check it with `{}`, then write it into the config",
                        sets.join(" ")
                    )
                }
                OverrideStyle::Hydra if !self.overrides.is_empty() => {
                    format!("launch verl with `{}`", self.overrides.join(" "))
                }
                // No keys to paste (a layout built in code never has any): the lists in
                // the message are what to write.
                _ => "set the pools' process_on_nodes to these lists".to_owned(),
            });
        }
        if !self.holders.0.is_empty() {
            parts.push(format!(
                "it needs what other work holds now (wait for it to finish, or free it): {}",
                self.holders
            ));
        }
        if self.undecided > 0 {
            parts.push(format!(
                "{} {} left undecided by Ray's tie-break bound (raise --max-ray-branches)",
                count(self.undecided, "larger layout"),
                verb(self.undecided, "was", "were")
            ));
        }
        if parts.is_empty() {
            parts.push("nothing to change".to_owned());
        }
        f.write_str(&parts.join("; "))
    }
}

/// The diagnostics of `suggestions`, one per answer (one for both when neither cluster
/// state fits anything).
pub(super) fn diagnostics(
    suggestions: &Suggestions,
    terms: &dyn LayoutTerms,
) -> Vec<SuggestDiagnostic> {
    let busy = suggestions.busy();
    let none_fits = |when| {
        suggestions
            .answers
            .iter()
            .any(|a| a.when == when && a.result == SearchResult::NoneFits)
    };
    let idle_too = busy && none_fits(When::Now) && none_fits(When::Idle);
    suggestions
        .answers
        .iter()
        .filter(|answer| !(idle_too && answer.when == When::Idle))
        .map(|answer| {
            let place = Place {
                when: answer.when,
                busy,
            };
            match &answer.result {
                SearchResult::Found(s) => {
                    let first = s.changed().next();
                    let holders = if answer.when == When::Idle {
                        suggestions.holders.clone()
                    } else {
                        Vec::new()
                    };
                    SuggestDiagnostic::Layout {
                        phrase: Phrase {
                            place,
                            as_written: first.is_none(),
                        },
                        layout: LayoutText::of(&s.pools),
                        accelerators: s.accelerators,
                        asked: suggestions.asked,
                        unit: suggestions.unit,
                        advice: Advice {
                            style: suggestions.style,
                            overrides: s.overrides.clone(),
                            changes: first.is_some(),
                            holders: Holders(holders),
                            undecided: s.undecided,
                            whole_layout: terms.wording().whole_layout(&s.pools),
                        },
                        spans: s
                            .changed()
                            .flat_map(|p| {
                                let edit = match s.choices[p].reshape {
                                    Reshape::Trim => Edit::Drop,
                                    Reshape::Split | Reshape::Spread => Edit::Resize,
                                };
                                terms
                                    .edit_spans(p, &s.choices[p])
                                    .into_iter()
                                    .map(move |span| {
                                        LabeledSpan::new_with_span(
                                            Some(edit.to_string()),
                                            to_source_span(&span),
                                        )
                                    })
                            })
                            .collect(),
                    }
                }
                SearchResult::NoneFits => SuggestDiagnostic::NoneFits {
                    place,
                    idle_too,
                    multiples: KeptMultiples(suggestions.multiples.clone()),
                },
                SearchResult::Undecided { tried } => SuggestDiagnostic::Undecided {
                    place,
                    tried: *tried,
                },
            }
        })
        .collect()
}
