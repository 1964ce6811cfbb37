//! Loading the file of a `#[derive(ResourcePools)]` struct: parse each field's table
//! ([`PoolDoc`]), lint it ([`lint_pool`], with the field's attribute values as defaults and
//! its worker groups), build the pools.

use crate::config::count_arrays::{self, Arrays};
use crate::config::{
    ConfigDiagnostic, ConfigErrors, ConfigWarnings, PoolDoc, PoolField, structure,
};
use crate::lint::{ConfigLimits, SlotTally, lint_pool};
use crate::model::PoolSpec;
use crate::source::{SourceFile, Spanned, to_source_span};
use crate::toml_support::walk as toml_walk;

/// A derived struct's pools, loaded, with the file's warnings.
#[derive(Clone, Debug)]
pub struct LoadedPools {
    /// The pools, in field order.
    pub specs: Vec<PoolSpec>,
    /// What the lint warns about (the file loaded all the same).
    pub warnings: ConfigWarnings,
}

/// Loads a derived struct's pools from its file, in field order. A field whose table is
/// missing takes its sizes from the attribute, or is an error when the attribute fixes
/// none.
pub fn load_struct_pools(
    source: &SourceFile,
    fields: &[PoolField],
) -> Result<LoadedPools, ConfigErrors> {
    load_struct_pools_as(source, fields, Arrays::WhenWorthIt)
}

/// [`load_struct_pools`], its arrays of counts read ahead of the parser or not (the
/// tests compare the two).
pub(crate) fn load_struct_pools_as(
    source: &SourceFile,
    fields: &[PoolField],
    arrays: Arrays,
) -> Result<LoadedPools, ConfigErrors> {
    let mut blanked = String::new();
    let (root, errors, mut counts) = count_arrays::parse(source.base_text(), &mut blanked, arrays);
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
                        &mut counts,
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
    let mut slots = SlotTally::default();
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
    // In file order, as a config's: the structure's problems (unknown keys) were found
    // before the pools' values.
    diagnostics.sort_by_key(super::first_offset);
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
