//! A key's value from what was written for it: `${other.key}` followed from key to key,
//! the text read as the key's type, and the problems of either (`wrong_type`,
//! `unresolved`, `interpolation_cycle`).

use std::collections::HashMap;

use miette::LabeledSpan;

use super::VerlDiagnostic;
use super::fields::{Cycle, Found, TypeFix, TypeFixHow};
use super::keys::*;
use super::settings::{Origin, Setting};
use super::shell_expansion::{ShellExpansion, shell_expansion};
use super::yaml::{RawScalar, StringMark};
use resource_pool_core::source::{Span, to_source_span};

/// Following `${other.key}` from key to key, from one key: what was written for the keys,
/// where the problems go, the keys being followed, and whether they came back to one of
/// them.
pub(super) struct Walk<'a> {
    raw: &'a HashMap<KeyId, (RawScalar, bool)>,
    yaml_origin: &'a dyn Fn(Span) -> Origin,
    diagnostics: &'a mut Vec<VerlDiagnostic>,
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
    ) -> Self {
        Walk {
            raw,
            yaml_origin,
            diagnostics,
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
        let outermost = self.path.len() == 1;
        let (scalar, from_command_line) = raw.get(&id)?;
        let origin = origin_of(scalar, *from_command_line, yaml_origin);
        let key = &KEYS[id];
        if *from_command_line
            && !scalar.quoted()
            && let Some(expansion) = shell_expansion(&scalar.text)
        {
            // A line pasted from a script, before its shell filled the value in: its
            // value is unknown here, and verl's default stands.
            if outermost {
                let default = key.default.value().to_string();
                let (key, text, span) = (key.path, scalar.text.clone(), &scalar.span);
                self.diagnostics.push(match expansion {
                    ShellExpansion::Variable(variable) => VerlDiagnostic::ShellVariable {
                        key,
                        text,
                        variable: variable.to_owned(),
                        default,
                        span: to_source_span(span),
                    },
                    ShellExpansion::Computed(kind) => VerlDiagnostic::ShellExpansion {
                        key,
                        text,
                        kind,
                        default,
                        span: to_source_span(span),
                    },
                });
            }
            return None;
        }
        if key.kind != Kind::Str && is_env_interpolation(&scalar.text) {
            // OmegaConf gives verl a string here, whatever the variable holds: verl fails on it
            // (`sum` of strings, a truthy "False"), as on a quoted number. A key that follows
            // this one (`${trainer.nnodes}`) takes verl's default: one error, on this value.
            if outermost {
                self.diagnostics.push(wrong_type(
                    id,
                    Found::EnvString(scalar.text.clone()),
                    None,
                    origin,
                ));
            }
            return None;
        }
        if let Some(inner) = scalar
            .text
            .strip_prefix("${")
            .and_then(|t| t.strip_suffix('}'))
            .filter(|_| !scalar.quoted() || scalar.text.starts_with("${"))
        {
            // `${oc.select:KEY,FALLBACK}` is KEY (verl's config has every key read): verl's own
            // default of the rollout's `n_gpus_per_node`, which a copied config keeps.
            let inner = inner
                .trim()
                .strip_prefix("oc.select:")
                .map_or(inner, |select| select.split(',').next().unwrap_or(select));
            let target = key_id(inner.trim()).filter(|&t| KEYS[t].kind == key.kind);
            if let Some(t) = target
                && let Some(at) = self.path.iter().position(|&k| k == t)
            {
                self.cycle = true;
                note_cycle(&self.path[at..], raw, yaml_origin, self.diagnostics);
                return None;
            }
            let resolved = match target {
                Some(t) => match self.resolve(t) {
                    _ if self.cycle => return None,
                    Some(s) => Some(s.value),
                    None => Some(KEYS[t].default.value()),
                },
                None => None,
            };
            return match resolved {
                Some(value) => Some(Setting { value, origin }),
                None => {
                    if outermost {
                        self.diagnostics.push(VerlDiagnostic::Unresolved {
                            key: key.path,
                            text: scalar.text.clone(),
                            default: key.default.value().to_string(),
                            span: to_source_span(&scalar.span),
                        });
                    }
                    None
                }
            };
        }
        if key.nullable && is_null(&scalar.text, scalar.quoted(), !from_command_line) {
            // verl reads this null as "not set" (see `Key::nullable`): the default stands.
            return None;
        }
        match interpret(&scalar.text, scalar.quoted(), key.kind, !from_command_line) {
            Some(value) => Some(Setting { value, origin }),
            None => {
                if outermost {
                    let found = match scalar.text.chars().take(40).collect::<String>() {
                        text if text.is_empty() => Found::EmptyString,
                        text if scalar.quoted() => Found::String(text),
                        text => Found::Plain(text),
                    };
                    self.diagnostics
                        .push(wrong_type(id, found, scalar.string, origin));
                }
                None
            }
        }
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

/// `wrong_type` for a key's value, with the fix that fits where it was set: a string that
/// reads as the type loses what made it a string, `string` (its quotes, its `!!str` tag,
/// its `str()` cast; a config given as data: `${oc.decode:...}`), an `${oc.env:...}` is
/// wrapped in `${oc.decode:...}`, else a value of the type.
pub(super) fn wrong_type(
    id: KeyId,
    found: Found,
    string: Option<StringMark>,
    origin: Origin,
) -> VerlDiagnostic {
    let key = &KEYS[id];
    let in_yaml = !matches!(origin, Origin::CommandLine(_));
    let reads_as_kind = |text: &str| interpret(text, false, key.kind, in_yaml).is_some();
    let (how, value) = match (&found, &origin) {
        (Found::String(text), Origin::Config(_)) if reads_as_kind(text) => {
            (TypeFixHow::Decode, text.clone())
        }
        // Escapes (`1\,2`) are no mark to drop: the value itself is what to change.
        (Found::String(text), _) if reads_as_kind(text) && string != Some(StringMark::Escapes) => {
            let how = match string {
                Some(StringMark::StrTag) => TypeFixHow::DropStrTag,
                Some(StringMark::StrCast) => TypeFixHow::DropStrCast,
                _ => TypeFixHow::Unquote,
            };
            (how, text.clone())
        }
        (Found::EnvString(text), _) => (TypeFixHow::DecodeEnv, format!("${{oc.decode:{text}}}")),
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
