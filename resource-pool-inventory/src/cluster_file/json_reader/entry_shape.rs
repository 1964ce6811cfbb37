//! The shape of the last plain node entry read: its text outside its values.
//!
//! The entries of a file are written by one program, one like the other: in
//! `{"id": "node-7", "available": {"CPU": 96, "GPU": 8}}` only the values change from
//! entry to entry. So the fast path remembers the texts between the values of the last
//! entry it read key by key, with each value's key; an entry whose text holds those very
//! texts around its values is read value by value, with no key looked at.
//!
//! That reads what reading key by key would: the keys, the spacing and the punctuation
//! are the bytes the last entry had, which that reading took as these keys in this
//! order, each once; and each value is read by the same code either way, ending where it
//! ends whatever follows. A text that differs anywhere sends the entry back to the
//! reading key by key, whose shape is then remembered instead.

/// A value's key and the text before it.
pub(super) type Member<'i> = (&'i [u8], u8);

/// The texts of the last plain entry outside its values (see the module's text).
#[derive(Default)]
pub(super) struct EntryShape<'i> {
    /// Each value's key and the text before it: from the entry's `{` for the first, else
    /// from the end of the value before.
    members: Vec<Member<'i>>,
    /// The text after the last value, up to and with the entry's `}`; `None` while the
    /// shape is being recorded (or none was).
    close: Option<&'i [u8]>,
}

impl<'i> EntryShape<'i> {
    /// The texts before each value (with the value's key) and after the last one, when a
    /// whole entry was recorded.
    pub(super) fn texts(&self) -> Option<(&[Member<'i>], &'i [u8])> {
        Some((&self.members, self.close?))
    }

    /// Starts recording an entry.
    pub(super) fn forget(&mut self) {
        self.members.clear();
        self.close = None;
    }

    /// The text before a value of the entry being recorded, and the value's key.
    pub(super) fn member(&mut self, text: &'i [u8], key: u8) {
        self.members.push((text, key));
    }

    /// The text after the last value: the entry is recorded.
    pub(super) fn close(&mut self, text: &'i [u8]) {
        self.close = Some(text);
    }
}
