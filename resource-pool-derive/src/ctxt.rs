//! A context that collects every error of one derive, so the user sees them all at once.

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

/// Errors found while reading and checking one derive input.
///
/// Must be consumed with [`Ctxt::check`]; dropping it unchecked is a bug and panics.
pub(crate) struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub(crate) fn new() -> Ctxt {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// An error spanning the tokens of `at`.
    pub(crate) fn error_at(&self, at: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(at.into_token_stream(), message));
    }

    /// An error at one span.
    pub(crate) fn error_span(&self, span: Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// An error syn (or a parser of ours) already made.
    pub(crate) fn push(&self, error: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("context already checked")
            .push(error);
    }

    /// Every error, combined into one, or `Ok` when there were none.
    pub(crate) fn check(self) -> syn::Result<()> {
        let errors = self
            .errors
            .borrow_mut()
            .take()
            .expect("context already checked");
        let mut errors = errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for rest in errors {
            combined.combine(rest);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("a derive context was dropped without checking its errors");
        }
    }
}
