//! The stack of the event reader: one frame per mapping or list being read, and the
//! dotted paths of what it reads (a path runs through mappings' keys only).

use std::collections::HashMap;

use super::anchors::Path;

/// A mapping or list being read.
pub(super) enum Frame {
    Map {
        /// Its node in the document's [`Shape`](super::construction::Shape).
        node: usize,
        key: Option<String>,
        expecting_key: bool,
        /// The mapping's own string keys so far (OmegaConf's duplicate check counts no
        /// other), each with the char index where it stands.
        seen: HashMap<String, usize>,
        /// The current key is `<<`: its value is what to merge into this mapping.
        merging: bool,
        /// The mappings merged into this one, as nodes: each `<<` key's (one, or a list's
        /// in order), in the order written.
        sources: Vec<Vec<usize>>,
    },
    Seq {
        /// Its node in the document's [`Shape`](super::construction::Shape).
        node: usize,
        /// When the list is a `<<` key's value: the mappings it names, as nodes, in order.
        merging: Option<Vec<usize>>,
    },
}

impl Frame {
    pub fn map(node: usize) -> Frame {
        Frame::Map {
            node,
            key: None,
            expecting_key: true,
            seen: HashMap::new(),
            merging: false,
            sources: Vec::new(),
        }
    }

    /// The key whose value is being read here, when this frame is a mapping reading one
    /// (not a merge).
    pub fn value_key(&self) -> Option<&str> {
        match self {
            Frame::Map {
                key: Some(k),
                expecting_key: false,
                merging: false,
                ..
            } => Some(k),
            _ => None,
        }
    }

    pub fn expects_key(&self) -> bool {
        matches!(
            self,
            Frame::Map {
                expecting_key: true,
                ..
            }
        )
    }

    /// Whether what comes next is what a `<<` merges: a mapping's `<<` value, or an item
    /// of a `<<` list.
    pub fn expects_merge(&self) -> bool {
        matches!(
            self,
            Frame::Map {
                merging: true,
                expecting_key: false,
                ..
            } | Frame::Seq {
                merging: Some(_),
                ..
            }
        )
    }

    /// Its node in the document's shape.
    pub fn node(&self) -> usize {
        match self {
            Frame::Map { node, .. } | Frame::Seq { node, .. } => *node,
        }
    }
}

/// The longest dotted path kept, in bytes: a key path (see `YamlValues::keys`) is at most 256
/// bytes, and a known key far less.
pub(super) const MAX_PATH: usize = 256;

/// The path of the value being read through `frames` (keys only: a list or a merge on the
/// way is no path, nor is one longer than [`MAX_PATH`]).
pub(super) fn frame_path(frames: &[Frame]) -> Option<Path> {
    let mut length = 0;
    frames
        .iter()
        .map(|f| {
            let key = f.value_key()?;
            length += key.len() + 1;
            (length <= MAX_PATH + 1).then(|| key.to_owned())
        })
        .collect()
}

/// The dotted path of `frames`' value, then `more`, when it is a path of keys only and at
/// most `limit` bytes long: the known keys and the key list are matched on these.
pub(super) fn dotted<'a>(
    frames: &'a [Frame],
    more: impl IntoIterator<Item = &'a str>,
    limit: usize,
) -> Option<String> {
    let keys = frames.iter().map(Frame::value_key);
    joined(String::new(), keys.chain(more.into_iter().map(Some)), limit)
}

/// `path`, then `keys` (each `None` when the path breaks there), dotted, when at most
/// `limit` bytes long.
pub(super) fn joined<'a>(
    mut path: String,
    keys: impl Iterator<Item = Option<&'a str>>,
    limit: usize,
) -> Option<String> {
    for key in keys {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key?);
        if path.len() > limit {
            return None;
        }
    }
    Some(path)
}

/// The longest known key, in bytes: a longer path is none.
pub(super) const MAX_KNOWN_KEY: usize = 64;
