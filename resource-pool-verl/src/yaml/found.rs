//! What one pass over a YAML text's events keeps ([`super::events`]): the known keys'
//! values, every key path, the top-level `defaults:` list, and the pool keys a `<<` list
//! may give otherwise under PyYAML 6.0.4. Positions are in characters.

use std::collections::HashMap;

use super::anchors::{Contested, Item};
use super::frames::{Frame, MAX_PATH, dotted};
use super::merge_order::{MergeOrderChars, contested_keys};
use super::{CharScalar, MAX_KEYS};
use crate::keys::{KEYS, KeyId};

/// What one parse found, positions in characters.
#[derive(Default)]
pub(super) struct Found {
    pub values: HashMap<KeyId, CharScalar>,
    pub not_scalar: HashMap<KeyId, (usize, usize)>,
    pub keys: Vec<String>,
    pub key_chars: Vec<(usize, usize)>,
    pub defaults: Vec<(Option<String>, String)>,
    pub merge_order: Vec<MergeOrderChars>,
}

impl Found {
    /// A key's dotted path, kept while there are fewer than [`MAX_KEYS`].
    pub(super) fn key(&mut self, dotted: String, chars: (usize, usize)) {
        if self.keys.len() < MAX_KEYS {
            self.keys.push(dotted);
            self.key_chars.push(chars);
        }
    }

    /// A value at a dotted path: kept when the path is a known key.
    pub(super) fn value(&mut self, dotted: &str, item: &Item) {
        let Some(id) = KEYS.iter().position(|k| k.path == dotted) else {
            return;
        };
        match item {
            Item::Scalar(scalar) => {
                self.values.insert(id, scalar.clone());
            }
            Item::Container(chars) => {
                self.not_scalar.insert(id, *chars);
            }
            Item::Key(_) => {}
        }
    }

    /// A scalar read inside the frames `stack`: kept when it is an item of the top-level
    /// `defaults:` list, `name` or `group: option` (`override group: option`).
    pub(super) fn default_item(&mut self, stack: &[Frame], text: &str) {
        match stack {
            [top, Frame::Seq { .. }] if top.value_key() == Some("defaults") => {
                self.defaults.push((None, text.to_owned()));
            }
            [top, Frame::Seq { .. }, item] if top.value_key() == Some("defaults") => {
                if let Some(group) = item.value_key() {
                    let group = group.strip_prefix("override ").unwrap_or(group);
                    self.defaults
                        .push((Some(group.trim().to_owned()), text.to_owned()));
                }
            }
            _ => {}
        }
    }

    /// The pool keys whose value a contested key of a `<<` list, merged into the mapping
    /// the frames `stack` read, gives otherwise under PyYAML 6.0.4.
    pub(super) fn contested(&mut self, stack: &[Frame], contested: &Contested) {
        if let Some(base) = dotted(stack, [], MAX_PATH) {
            self.merge_order.extend(contested_keys(&base, contested));
        }
    }
}
