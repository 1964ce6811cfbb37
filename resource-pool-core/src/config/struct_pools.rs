//! Loading the file of a `#[derive(ResourcePools)]` struct: one top-level table per field,
//! the same keys as a config's pool tables, and no `[mapping]` (the mapping is code).

use std::fmt;

use super::{ConfigDiagnostic, PoolDefaults, PoolDoc, structure};
use crate::lint::{ConfigLimits, lint_pool};
use crate::model::PoolSpec;
use crate::source::{SourceFile, Spanned, to_source_span};
use crate::toml_walk;

/// One field of a derived pool struct, as the derive describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolField {
    /// The field's name: the file's table for it.
    pub name: &'static str,
    /// Values fixed in the attribute, used where the file leaves a key out.
    pub defaults: PoolDefaults,
    /// Worker groups that share the pool (1 when its roles are fused, as verl does).
    pub worker_groups: u32,
}

/// Every problem of a file that does not load, with the file to show them in.
#[derive(Clone, Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error("{} in `{}`", problems(.diagnostics), .source_file.name())]
#[diagnostic(
    code(resource_pool::config::invalid),
    help("fix the problems listed below")
)]
pub struct ConfigErrors {
    /// The file.
    #[source_code]
    #[serde(skip)]
    pub source_file: SourceFile,
    /// Every problem, errors and warnings.
    #[related]
    pub diagnostics: Vec<ConfigDiagnostic>,
}

/// The warnings of a file that loaded (uneven node-slots, ...), with the file to show
/// them in; empty when there are none.
#[derive(Clone, Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error("{} in `{}`", warnings(.diagnostics), .source_file.name())]
#[diagnostic(
    code(resource_pool::config::warnings),
    severity(Warning),
    help("the pools loaded; each warning says what to look at")
)]
pub struct ConfigWarnings {
    /// The file.
    #[source_code]
    #[serde(skip)]
    pub source_file: SourceFile,
    /// Every warning.
    #[related]
    pub diagnostics: Vec<ConfigDiagnostic>,
}

impl ConfigWarnings {
    /// Whether there is no warning.
    pub fn is_empty(&self) -> bool {
        self.diagnostics.is_empty()
    }
}

/// A derived struct's pools, loaded, with the file's warnings.
#[derive(Clone, Debug)]
pub struct LoadedPools {
    /// The pools, in field order.
    pub specs: Vec<PoolSpec>,
    /// What the lint warns about (the file loaded all the same).
    pub warnings: ConfigWarnings,
}

fn problems(diagnostics: &[ConfigDiagnostic]) -> String {
    counted(diagnostics.iter().filter(|d| d.is_error()).count(), "error")
}

fn warnings(diagnostics: &[ConfigDiagnostic]) -> String {
    counted(diagnostics.len(), "warning")
}

/// `1 error`, `3 errors`.
fn counted(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

impl fmt::Display for PoolField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// Loads a derived struct's pools from its file, in field order. A field whose table is
/// missing takes its sizes from the attribute, or is an error when the attribute fixes
/// none.
pub fn load_struct_pools(
    source: &SourceFile,
    fields: &[PoolField],
) -> Result<LoadedPools, ConfigErrors> {
    let (root, errors) = toml_walk::parse(source);
    if !errors.is_empty() {
        // Recovered trees are guesses: report the syntax alone.
        return Err(ConfigErrors {
            source_file: source.clone(),
            diagnostics: structure(errors).collect(),
        });
    }
    let root = root.get_ref();
    let mut structure_errors = errors;
    let names: Vec<&str> = fields.iter().map(|f| f.name).collect();
    toml_walk::check_keys(root, &names, "the pools file", &mut structure_errors);
    let mut docs = Vec::with_capacity(fields.len());
    for field in fields {
        let doc = match toml_walk::get(root, field.name) {
            Some((key, value)) => {
                toml_walk::table(field.name, value, &mut structure_errors).map(|table| {
                    let name = Spanned::new(field.name.to_owned(), key.span());
                    PoolDoc::read(
                        name,
                        table,
                        &format!("pool `{}`", field.name),
                        &mut structure_errors,
                    )
                })
            }
            None => Some(PoolDoc {
                name: Spanned::new(field.name.to_owned(), 0..0),
                ..PoolDoc::default()
            }),
        };
        docs.push(doc);
    }
    let mut diagnostics: Vec<ConfigDiagnostic> = structure(structure_errors).collect();
    let limits = ConfigLimits::default();
    let mut slots = 0;
    for (field, doc) in fields.iter().zip(&docs) {
        let Some(doc) = doc else { continue };
        let missing = toml_walk::get(root, field.name).is_none();
        if missing && field.defaults.process_on_nodes.is_none() {
            diagnostics.push(ConfigDiagnostic::MissingPool {
                pool: field.name.to_owned(),
                span: to_source_span(&(0..0)),
            });
            continue;
        }
        lint_pool(
            doc,
            &field.defaults,
            field.worker_groups,
            &limits,
            &mut slots,
            &mut diagnostics,
        );
    }
    let specs: Option<Vec<PoolSpec>> = if diagnostics.iter().any(ConfigDiagnostic::is_error) {
        None
    } else {
        fields
            .iter()
            .zip(&docs)
            .map(|(field, doc)| doc.as_ref()?.build(&field.defaults))
            .collect()
    };
    match specs {
        Some(specs) => Ok(LoadedPools {
            specs,
            warnings: ConfigWarnings {
                source_file: source.clone(),
                diagnostics,
            },
        }),
        None => Err(ConfigErrors {
            source_file: source.clone(),
            diagnostics,
        }),
    }
}
