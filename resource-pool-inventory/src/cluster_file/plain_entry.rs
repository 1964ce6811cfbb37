//! A node entry of the plain shape, as a reader's fast path fills it straight from the
//! text, and the resources tables it has read before.
//!
//! Plain: only known keys, each once and of its type, every amount readable, no key twice
//! in a table. The JSON reader's fast path fills a [`PlainEntry`] (its lists reused entry
//! after entry) and [`NodeReader::push_plain`](super::nodes::NodeReader::push_plain)
//! makes of it the node that the general reading makes of the entry's value.
//!
//! Nodes of one shape repeat one text (`{"CPU": 96, "GPU": 8}`), and a file of busy nodes
//! a few hundred. A text read before is not read again: a JSON object is over at its
//! closing brace, so text that starts with the very bytes of a table read before holds
//! that table, and its resources are the ones made of it then.

use std::borrow::Cow;

use super::byte_search::{find_byte, starts_with};
use super::hash_index::{Budget, HashIndex};
use resource_pool_core::model::{Amount, ResourceName, Resources};
use resource_pool_core::source::Span;

/// The most table texts remembered: a file of that many distinct tables gains nothing
/// from more, and memory stays bounded whatever the file.
const REMEMBERED: usize = 4096;

/// The most slots looked at for a text: a remembered text past them is forgotten.
const WALK: usize = 32;

/// Which resources table of an entry.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Amounts {
    /// `available`.
    Available = 0,
    /// `total`.
    Total = 1,
}

/// A node entry of the plain shape (see the module's text).
#[derive(Default)]
pub(super) struct PlainEntry<'i> {
    /// The id and the span of its value.
    pub(super) id: Option<(Cow<'i, str>, Span)>,
    pub(super) address: Option<Cow<'i, str>>,
    pub(super) alive: Option<bool>,
    available: PlainTable<'i>,
    total: PlainTable<'i>,
    /// The labels in file order.
    pub(super) labels: Vec<(Cow<'i, str>, Cow<'i, str>)>,
    /// The tables read before.
    memory: TableMemory<'i>,
}

/// One resources table of the entry being read.
#[derive(Default)]
struct PlainTable<'i> {
    /// The entry has the key.
    present: bool,
    /// The amounts read, in file order (none when `recalled`).
    items: Vec<(ResourceName, Amount)>,
    /// The table's text, when read this entry.
    text: &'i [u8],
    /// The resources of a text read before.
    recalled: Option<Resources>,
}

/// Table texts read before and their resources: the last one of each table (most files
/// repeat it node after node), and up to [`REMEMBERED`] by text.
#[derive(Default)]
struct TableMemory<'i> {
    /// The last text of `available` and of `total`.
    last: [Option<(&'i [u8], Resources)>; 2],
    /// The texts remembered, found by text through `index` (made for the first).
    texts: Vec<(&'i [u8], Resources)>,
    index: Option<HashIndex>,
}

impl<'i> PlainEntry<'i> {
    /// Empties the entry for the next, keeping the lists' memory and the tables read.
    pub(super) fn clear(&mut self) {
        self.id = None;
        self.address = None;
        self.alive = None;
        self.available.present = false;
        self.total.present = false;
        self.labels.clear();
    }

    /// Whether the entry has the table.
    pub(super) fn has(&self, which: Amounts) -> bool {
        self.table(which).present
    }

    fn table(&self, which: Amounts) -> &PlainTable<'i> {
        match which {
            Amounts::Available => &self.available,
            Amounts::Total => &self.total,
        }
    }

    fn table_mut(&mut self, which: Amounts) -> &mut PlainTable<'i> {
        match which {
            Amounts::Available => &mut self.available,
            Amounts::Total => &mut self.total,
        }
    }

    /// Starts the table `which` at the start of `rest` (the table marked present): the
    /// length of its text when it is a text read before (the table then has its
    /// resources), else the empty list to read its amounts into, to be followed by
    /// [`PlainEntry::read`] with the text they were read from.
    pub(super) fn start(
        &mut self,
        which: Amounts,
        rest: &'i [u8],
    ) -> Result<usize, &mut Vec<(ResourceName, Amount)>> {
        let recalled = self.memory.recall(which, rest);
        let table = self.table_mut(which);
        table.present = true;
        table.items.clear();
        match recalled {
            Some((length, resources)) => {
                table.recalled = Some(resources);
                Ok(length)
            }
            None => {
                table.recalled = None;
                Err(&mut table.items)
            }
        }
    }

    /// The text the amounts of `which` were read from.
    pub(super) fn read(&mut self, which: Amounts, text: &'i [u8]) {
        self.table_mut(which).text = text;
    }

    /// The resources of the table `which`, asked once an entry: recalled, or its items
    /// made into resources by `share` (which may sort and empty them), remembered by
    /// their text.
    pub(super) fn resources(
        &mut self,
        which: Amounts,
        share: impl FnOnce(&mut Vec<(ResourceName, Amount)>) -> Resources,
    ) -> Resources {
        // Not `table_mut`: the table and the memory are borrowed at once.
        let table = match which {
            Amounts::Available => &mut self.available,
            Amounts::Total => &mut self.total,
        };
        if let Some(resources) = table.recalled.take() {
            return resources;
        }
        let resources = share(&mut table.items);
        self.memory.remember(which, table.text, &resources);
        resources
    }
}

impl<'i> TableMemory<'i> {
    /// A table text read before at the start of `rest`: its length and resources.
    fn recall(&mut self, which: Amounts, rest: &'i [u8]) -> Option<(usize, Resources)> {
        let last = &mut self.last[which as usize];
        if let Some((text, resources)) = last
            && starts_with(rest, text)
        {
            return Some((text.len(), resources.clone()));
        }
        let index = self.index.as_mut()?;
        // The text up to the first closing brace: if it is a table read before, the
        // table is that text (see the module's text), whatever the rest holds.
        let end = find_byte(rest, b'}')?;
        let text = &rest[..=end];
        let texts = &self.texts;
        // Crowded: a cache may forget.
        let found = index
            .find(index.hash(text), |i| {
                texts[i].0.len() == text.len() && starts_with(texts[i].0, text)
            })
            .ok()??;
        let (text, resources) = &texts[found];
        *last = Some((text, resources.clone()));
        Some((text.len(), resources.clone()))
    }

    /// Remembers a table's text and its resources.
    fn remember(&mut self, which: Amounts, text: &'i [u8], resources: &Resources) {
        self.last[which as usize] = Some((text, resources.clone()));
        if self.texts.len() == REMEMBERED {
            return;
        }
        let index = self
            .index
            .get_or_insert_with(|| HashIndex::new(REMEMBERED, Budget::PerWalk(WALK)));
        let texts = &self.texts;
        if let Ok(None) = index.find_or_add(index.hash(text), texts.len(), |i| texts[i].0 == text) {
            self.texts.push((text, resources.clone()));
        }
    }
}
