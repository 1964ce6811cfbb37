//! A context that collects every error of one derive, so the user sees them all at once.

use std::cell::{Cell, RefCell};
use std::fmt::Display;

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

/// Errors found while reading and checking one derive input.
///
/// Must be consumed with [`Ctxt::check`]; dropping it unchecked is a bug and panics.
pub(crate) struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
    /// The input has a mistake that rustc reports itself (a misspelt attribute of ours).
    failed_elsewhere: Cell<bool>,
}

impl Ctxt {
    pub(crate) fn new() -> Ctxt {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
            failed_elsewhere: Cell::new(false),
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

    /// A mistake that rustc reports on its own, as "cannot find attribute `pools`" for
    /// a misspelt `#[pool]`: the derive fails (its impls are the fallback's) without an
    /// error of its own, since whatever it would say follows from that mistake and goes
    /// away with it (serde_derive's rule: once an attribute is wrong, the checks that
    /// depend on it are skipped).
    pub(crate) fn failed_elsewhere(&self) {
        self.failed_elsewhere.set(true);
    }

    /// `Ok` when the input has no mistake; else every error of ours as `compile_error!`
    /// tokens, empty when rustc reports the only mistakes ([`Ctxt::failed_elsewhere`]).
    pub(crate) fn check(self) -> Result<(), TokenStream> {
        let errors = self
            .errors
            .borrow_mut()
            .take()
            .expect("context already checked");
        let mut errors = errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return if self.failed_elsewhere.get() {
                Err(TokenStream::new())
            } else {
                Ok(())
            };
        };
        for rest in errors {
            combined.combine(rest);
        }
        Err(combined.into_compile_error())
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("a derive context was dropped without checking its errors");
        }
    }
}
