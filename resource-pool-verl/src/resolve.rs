//! A key's value from what was written for it: `${other.key}` followed from key to key,
//! the text read as the key's type, and the problems of either (`wrong_type`,
//! `interpolation_cycle`), or that it is not read (`unresolved`, `shell_variable`,
//! `shell_expansion`): then verl's default is not claimed for it either.

use std::collections::{BTreeSet, HashMap};

use miette::LabeledSpan;

use super::VerlDiagnostic;
use super::fields::{Cycle, Found, NotJudgedPart, TypeFix, TypeFixHow};
use super::keys::*;
use super::settings::{Origin, Setting};
use super::shell_expansion::{ShellExpansion, shell_expansion};
use super::yaml::{RawScalar, Unread};
use resource_pool_core::source::{Span, to_source_span};

/// Following `${other.key}` from key to key, from one key: what was written for the keys,
/// where the problems go, the keys being followed, and whether they came back to one of
/// them.
pub(super) struct Walk<'a> {
    raw: &'a HashMap<KeyId, (RawScalar, bool)>,
    yaml_origin: &'a dyn Fn(Span) -> Origin,
    diagnostics: &'a mut Vec<VerlDiagnostic>,
    /// The keys whose value is not read: their own, or one they interpolate.
    unread: &'a mut BTreeSet<KeyId>,
    path: Vec<KeyId>,
    cycle: bool,
}

/// The origin of a key's value as read.
fn origin_of(
    scalar: &RawScalar,
    from_command_line: bool,
    yaml_origin: &dyn Fn(Span) -> Origin,
) -> Origin {
    if from_command_line {
        Origin::CommandLine(scalar.span.clone())
    } else {
        yaml_origin(scalar.span.clone())
    }
}

impl<'a> Walk<'a> {
    /// A walk that has followed no key yet.
    pub fn new(
        raw: &'a HashMap<KeyId, (RawScalar, bool)>,
        yaml_origin: &'a dyn Fn(Span) -> Origin,
        diagnostics: &'a mut Vec<VerlDiagnostic>,
        unread: &'a mut BTreeSet<KeyId>,
    ) -> Self {
        Walk {
            raw,
            yaml_origin,
            diagnostics,
            unread,
            path: Vec::new(),
            cycle: false,
        }
    }

    /// A key's value: its scalar read as its kind, `${other.key}` followed to a value or to
    /// verl's default of the last key followed. Interpolations that come back to a key they
    /// passed through are `interpolation_cycle` (once per cycle), and give no value.
    pub fn resolve(&mut self, id: KeyId) -> Option<Setting> {
        self.path.push(id);
        let setting = self.resolve_last(id);
        self.path.pop();
        setting
    }

    /// [`Walk::resolve`] of the key last pushed on the path. Problems are said of the key the
    /// walk started from only: a key it passes through is judged when its own walk starts.
    fn resolve_last(&mut self, id: KeyId) -> Option<Setting> {
        let (raw, yaml_origin) = (self.raw, self.yaml_origin);
        let (scalar, from_command_line) = raw.get(&id)?;
        let origin = origin_of(scalar, *from_command_line, yaml_origin);
        let key = &KEYS[id];
        if let Some(form) = scalar.unread {
            self.not_read(scalar, form);
            return None;
        }
        if *from_command_line
            && !scalar.quoted()
            && let Some(expansion) = shell_expansion(&scalar.text)
        {
            // A line pasted from a script, before its shell filled the value in.
            self.shell(scalar, expansion);
            return None;
        }
        if let Some(inner) = scalar
            .text
            .strip_prefix("${")
            .and_then(|t| t.strip_suffix('}'))
        {
            return self.interpolation(scalar, inner, origin);
        }
        if key.nullable && is_null(&scalar.text, scalar.quoted(), !from_command_line) {
            // verl reads this null as "not set" (see `Key::nullable`): the default stands.
            return None;
        }
        match interpret(&scalar.text, scalar.quoted(), key.kind, !from_command_line) {
            Some(value) => Some(Setting { value, origin }),
            None => {
                if self.path.len() == 1 {
                    let found = match scalar.text.chars().take(40).collect::<String>() {
                        text if text.is_empty() => Found::EmptyString,
                        text if scalar.quoted() => Found::String(text),
                        text => Found::Plain(text),
                    };
                    self.diagnostics.push(wrong_type(id, found, origin));
                }
                None
            }
        }
    }

    /// `${KEY}` (or `${oc.select:KEY,FALLBACK}`, verl's own default of the rollout's
    /// `n_gpus_per_node`): KEY followed, when it is a key of the same kind; any other
    /// interpolation is not read.
    fn interpolation(
        &mut self,
        scalar: &RawScalar,
        inner: &str,
        origin: Origin,
    ) -> Option<Setting> {
        let kind = KEYS[self.path[self.path.len() - 1]].kind;
        let inner = inner
            .trim()
            .strip_prefix("oc.select:")
            .map_or(inner, |select| select.split(',').next().unwrap_or(select));
        let Some(target) = key_id(inner.trim()).filter(|&t| KEYS[t].kind == kind) else {
            self.not_read(scalar, Unread::Interpolation);
            return None;
        };
        if let Some(at) = self.path.iter().position(|&k| k == target) {
            self.cycle = true;
            note_cycle(
                &self.path[at..],
                self.raw,
                self.yaml_origin,
                self.diagnostics,
            );
            return None;
        }
        let value = match self.resolve(target) {
            _ if self.cycle => return None,
            // What the target's value is not known, nor is this one's.
            None if self.unread.contains(&target) => {
                self.unread.extend(self.path.iter().copied());
                return None;
            }
            Some(s) => s.value,
            None => KEYS[target].default.value(),
        };
        Some(Setting { value, origin })
    }

    /// A value not read: said of the key the walk started from, which is not read either.
    fn not_read(&mut self, scalar: &RawScalar, form: Unread) {
        self.unread.extend(self.path.iter().copied());
        if self.path.len() == 1 {
            let key = KEYS[self.path[0]].path;
            self.diagnostics.push(VerlDiagnostic::Unresolved {
                key,
                text: scalar.text.chars().take(60).collect(),
                form,
                part: part(self.path[0]),
                span: to_source_span(&scalar.span),
            });
        }
    }

    /// A shell's variable or expansion left in a pasted line: not read.
    fn shell(&mut self, scalar: &RawScalar, expansion: ShellExpansion<'_>) {
        self.unread.extend(self.path.iter().copied());
        if self.path.len() > 1 {
            return;
        }
        let (key, text, span) = (KEYS[self.path[0]].path, scalar.text.clone(), &scalar.span);
        let part = part(self.path[0]);
        self.diagnostics.push(match expansion {
            ShellExpansion::Variable(variable) => VerlDiagnostic::ShellVariable {
                key,
                text,
                variable: variable.to_owned(),
                part,
                span: to_source_span(span),
            },
            ShellExpansion::Computed(kind) => VerlDiagnostic::ShellExpansion {
                key,
                text,
                kind,
                part,
                span: to_source_span(span),
            },
        });
    }
}

/// What is not judged when `id`'s value is not read.
fn part(id: KeyId) -> NotJudgedPart {
    match sizes_pools(id) {
        true => NotJudgedPart::Pools,
        false => NotJudgedPart::Rollout,
    }
}

/// `interpolation_cycle` for the keys of a cycle (each interpolating the next, the last the
/// first), labelled at the first's value and at the others' that were written; once,
/// whichever key the walk started from.
fn note_cycle(
    keys: &[KeyId],
    raw: &HashMap<KeyId, (RawScalar, bool)>,
    yaml_origin: &dyn Fn(Span) -> Origin,
    diagnostics: &mut Vec<VerlDiagnostic>,
) {
    let mut cycle: Vec<&'static str> = keys.iter().map(|&k| KEYS[k].path).collect();
    let reported = diagnostics.iter().any(|d| match d {
        VerlDiagnostic::InterpolationCycle { cycle: seen, .. } => {
            let mut a = seen.0[..seen.0.len() - 1].to_vec();
            let mut b = cycle.clone();
            a.sort_unstable();
            b.sort_unstable();
            a == b
        }
        _ => false,
    });
    let (Some(&first), Some((scalar, from_command_line))) =
        (keys.first(), keys.first().and_then(|k| raw.get(k)))
    else {
        return;
    };
    if reported {
        return;
    }
    cycle.push(KEYS[first].path);
    let span_of = |scalar: &RawScalar, from_command_line: bool| {
        origin_of(scalar, from_command_line, yaml_origin).span()
    };
    let span = span_of(scalar, *from_command_line).unwrap_or(0..0);
    let others = (1..keys.len())
        .filter_map(|i| {
            let (scalar, from_command_line) = raw.get(&keys[i])?;
            let next = KEYS[keys[(i + 1) % keys.len()]].path;
            let span = span_of(scalar, *from_command_line)?;
            Some(LabeledSpan::new_with_span(
                Some(format!("interpolates `{next}`")),
                to_source_span(&span),
            ))
        })
        .collect();
    diagnostics.push(VerlDiagnostic::InterpolationCycle {
        key: KEYS[first].path,
        text: scalar.text.clone(),
        cycle: Cycle(cycle),
        span: to_source_span(&span),
        others,
    });
}

/// `wrong_type` for a key's value, with the fix that fits where it was set: a quoted
/// string that reads as the type loses its quotes, else a value of the type.
pub(super) fn wrong_type(id: KeyId, found: Found, origin: Origin) -> VerlDiagnostic {
    let key = &KEYS[id];
    let in_yaml = !matches!(origin, Origin::CommandLine(_));
    let reads_as_kind = |text: &str| interpret(text, false, key.kind, in_yaml).is_some();
    let (how, value) = match (&found, &origin) {
        (Found::String(text), Origin::Yaml(_) | Origin::CommandLine(_)) if reads_as_kind(text) => {
            (TypeFixHow::Unquote, text.clone())
        }
        _ => (TypeFixHow::SetValue, String::new()),
    };
    // An empty value has no width to label: the `=` before it (on the command line) or
    // the place it stands.
    let span = match origin.span() {
        Some(span) if span.is_empty() && matches!(origin, Origin::CommandLine(_)) => {
            span.start.saturating_sub(1)..span.start
        }
        Some(span) => span,
        None => 0..0,
    };
    VerlDiagnostic::WrongType {
        key: key.path,
        expected: key.kind,
        found,
        fix: TypeFix {
            how,
            key: key.path,
            expected: key.kind,
            value,
            origin: origin.kind(),
        },
        example: Example(key.kind),
        span: to_source_span(&span),
        origin: origin.kind(),
    }
}
