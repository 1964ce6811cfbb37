//! How a result object is laid out as text: serde_json's pretty layout (two spaces a level),
//! except that each element of a placement array ([`ROW_ARRAYS`]) stands on a line of its
//! own, `{"node": "a", "pool": "global_pool", "slot": 0}`.
//!
//! Why: the pretty layout spends seven lines on each placed slot, and a check lists every
//! slot twice (`placement`, `ray_placement`). For 100,000 node-slots that was 18 MB, more
//! than the 9 MB cluster file it answers; one row a slot is 13 MB, and reads (and greps)
//! as the table it is. The JSON values are the same either way.
//!
//! [`write_value`] lays out any result object; [`CheckResult::write_json`] writes `check`'s
//! result straight from the report, its rows without serde's per-field calls (a tenth of the
//! work for large layouts), and a test holds the two to the same bytes.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::Value;
use serde_json::ser::Formatter;

use super::{CheckResult, Placed};

/// The keys of a result object whose arrays hold one placed slot per line.
pub const ROW_ARRAYS: [&str; 2] = ["placement", "ray_placement"];

/// Rows are gathered in a buffer of about this size before they are written: one write
/// per buffer, not one per piece of a row.
const CHUNK: usize = 1 << 16;

/// Writes a result object (`check`'s or `verl`'s), laid out as this module says, and a
/// line break. Any other value is written in the pretty layout.
pub fn write_value(out: &mut impl Write, value: &Value) -> io::Result<()> {
    let Value::Object(fields) = value else {
        serde_json::to_writer_pretty(&mut *out, value)?;
        return out.write_all(b"\n");
    };
    let mut top = Top::new(out)?;
    for (key, value) in fields {
        match value {
            Value::Array(rows) if ROW_ARRAYS.contains(&key.as_str()) => {
                top.rows(key, rows, row_of)?
            }
            _ => top.field(key, value)?,
        }
    }
    top.finish()
}

impl CheckResult<'_> {
    /// Writes the result as `--format json` prints it (see [`write_value`]; the same bytes
    /// as `write_value` of its JSON value), and a line break. Its keys come in the order of
    /// the struct's fields, as its `Serialize` writes them.
    pub fn write_json(&self, out: &mut impl Write) -> io::Result<()> {
        let mut top = Top::new(out)?;
        top.field("diagnostics", &self.diagnostics)?;
        top.field("feasible", &self.feasible)?;
        top.rows("placement", self.placement.iter(), placed_row)?;
        top.field("ray", &self.ray)?;
        top.rows("ray_placement", self.ray_placement.iter(), placed_row)?;
        if let Some(version) = self.ray_version {
            top.field("ray_version", version)?;
        }
        top.field("suggestions", &self.suggestions)?;
        if let Some(verl) = self.verl {
            top.field("verl", verl)?;
        }
        top.finish()
    }
}

/// The top-level object being written.
struct Top<'w, W: Write> {
    out: &'w mut W,
    empty: bool,
}

impl<'w, W: Write> Top<'w, W> {
    fn new(out: &'w mut W) -> io::Result<Self> {
        out.write_all(b"{")?;
        Ok(Top { out, empty: true })
    }

    /// Starts a field: the separator, its line and its key.
    fn key(&mut self, key: &str) -> io::Result<()> {
        self.out
            .write_all(if self.empty { b"\n  " } else { b",\n  " })?;
        self.empty = false;
        serde_json::to_writer(&mut *self.out, key)?;
        self.out.write_all(b": ")
    }

    /// A field in the pretty layout, one level in.
    fn field(&mut self, key: &str, value: &(impl Serialize + ?Sized)) -> io::Result<()> {
        self.key(key)?;
        let text = serde_json::to_vec_pretty(value)?;
        // A JSON text's line breaks all stand between tokens (strings escape theirs), so
        // indenting each line after the first nests the value one level deeper.
        for (i, line) in text.split(|&b| b == b'\n').enumerate() {
            if i > 0 {
                self.out.write_all(b"\n  ")?;
            }
            self.out.write_all(line)?;
        }
        Ok(())
    }

    /// A field whose array holds one row per line.
    fn rows<R>(
        &mut self,
        key: &str,
        rows: impl IntoIterator<Item = R>,
        mut write_row: impl FnMut(&mut Vec<u8>, R),
    ) -> io::Result<()> {
        self.key(key)?;
        let mut rows = rows.into_iter().peekable();
        if rows.peek().is_none() {
            return self.out.write_all(b"[]");
        }
        let mut buffer = Vec::with_capacity(CHUNK + 256);
        buffer.push(b'[');
        for (i, row) in rows.enumerate() {
            buffer.extend_from_slice(if i == 0 { b"\n    " } else { b",\n    " });
            write_row(&mut buffer, row);
            if buffer.len() >= CHUNK {
                self.out.write_all(&buffer)?;
                buffer.clear();
            }
        }
        buffer.extend_from_slice(b"\n  ]");
        self.out.write_all(&buffer)
    }

    fn finish(self) -> io::Result<()> {
        // `{` is written: an empty object closes on its line, as serde_json writes `{}`.
        self.out
            .write_all(if self.empty { b"}\n" } else { b"\n}\n" })
    }
}

/// A row's layout: a JSON value on one line, `", "` between items and `": "` after keys.
struct RowFormatter;

impl Formatter for RowFormatter {
    fn begin_array_value<W: ?Sized + Write>(&mut self, out: &mut W, first: bool) -> io::Result<()> {
        if first { Ok(()) } else { out.write_all(b", ") }
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, out: &mut W, first: bool) -> io::Result<()> {
        if first { Ok(()) } else { out.write_all(b", ") }
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        out.write_all(b": ")
    }
}

/// Any value as a row.
fn row_of(buffer: &mut Vec<u8>, row: &(impl Serialize + ?Sized)) {
    let mut serializer = serde_json::Serializer::with_formatter(&mut *buffer, RowFormatter);
    // Writing into a Vec cannot fail, nor can serialising a JSON value or a placed slot.
    let _ = row.serialize(&mut serializer);
}

/// A placed slot as a row, written piece by piece: the bytes [`row_of`] writes for it.
fn placed_row(buffer: &mut Vec<u8>, row: Placed<'_>) {
    buffer.extend_from_slice(b"{\"node\": ");
    match row.node {
        Some(node) => string(buffer, node),
        None => buffer.extend_from_slice(b"null"),
    }
    buffer.extend_from_slice(b", \"pool\": ");
    string(buffer, row.pool);
    buffer.extend_from_slice(b", \"slot\": ");
    row_of(buffer, &row.slot);
    buffer.push(b'}');
}

/// A JSON string: the text between quotes as it is when nothing in it needs an escape
/// (serde_json escapes the quote, the backslash and control characters only), else as
/// serde_json writes it.
fn string(buffer: &mut Vec<u8>, text: &str) {
    if text.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        row_of(buffer, text);
    } else {
        buffer.push(b'"');
        buffer.extend_from_slice(text.as_bytes());
        buffer.push(b'"');
    }
}

#[cfg(test)]
mod tests;
