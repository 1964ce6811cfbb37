//! Source files and byte spans: what every diagnostic points into.

use std::fmt;
use std::ops::Range;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

mod line_index;
mod window;

use line_index::LineIndex;
use window::{LayerWindows, clip_long_line};

/// A byte range in a source file.
pub type Span = Range<usize>;

/// A value with the byte span it came from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Spanned<T> {
    /// The value read at the span.
    pub value: T,
    /// Where it stands in the file.
    pub span: Span,
}

impl<T> Spanned<T> {
    /// A value at a span.
    pub fn new(value: T, span: Span) -> Spanned<T> {
        Spanned { value, span }
    }
}

/// miette's span (offset and length) of a byte range.
pub fn to_source_span(span: &Span) -> SourceSpan {
    SourceSpan::new(span.start.into(), span.end.saturating_sub(span.start))
}

/// Limits on what is read, so that hostile input cannot exhaust memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadLimits {
    /// The largest file read, in bytes.
    pub max_file_bytes: u64,
}

impl ReadLimits {
    /// 16 MiB: a 100,000-node cluster file takes about 6 MB, and reading costs at most
    /// 80 bytes of memory per input byte, so the default bounds a read near 1.3 GiB.
    pub const DEFAULT_MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
}

impl Default for ReadLimits {
    fn default() -> ReadLimits {
        ReadLimits {
            max_file_bytes: ReadLimits::DEFAULT_MAX_FILE_BYTES,
        }
    }
}

/// Why a file cannot be read as text.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ReadError {
    /// The operating system refused (missing, a directory, no permission, a loop).
    #[error("cannot read `{path}`: {source}")]
    #[diagnostic(
        code(resource_pool::file::unreadable),
        help("check the path and its permissions")
    )]
    Io {
        /// The path as given.
        path: String,
        /// What the OS said.
        #[source]
        #[serde(serialize_with = "crate::source::as_text")]
        source: std::io::Error,
    },
    /// The file is larger than the limit.
    #[error("`{path}` is larger than the limit of {limit} bytes")]
    #[diagnostic(
        code(resource_pool::file::too_large),
        help("raise the limit with --max-file-size if the file is really meant to be this large")
    )]
    TooLarge {
        /// The path as given.
        path: String,
        /// The limit in bytes.
        limit: u64,
    },
    /// The file is not UTF-8 text.
    #[error("`{path}` is not UTF-8 text (invalid byte at offset {offset})")]
    #[diagnostic(
        code(resource_pool::file::not_utf8),
        help("TOML files must be UTF-8; re-save it as UTF-8")
    )]
    NotUtf8 {
        /// The path as given.
        path: String,
        /// The offset of the first invalid byte.
        offset: usize,
    },
}

/// Serialises a value as its text (`Display`): the error-like fields of diagnostics in
/// their JSON `data` (`#[serde(serialize_with = "crate::source::as_text")]`).
pub fn as_text<T: fmt::Display, S: serde::Serializer>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// The name of a file read from standard input (`--slurm -`), as reports show it.
pub const STDIN_NAME: &str = "<stdin>";

/// The text of one file and the name it is shown under. Cheap to clone.
///
/// A file may carry a second layer, settings given on the command line (see
/// [`SourceFile::with_layer`]): its text is appended after the file's, one newline
/// between, so that one offset space covers both and every span stays a plain byte range.
/// Offsets past [`SourceFile::layer_start`] belong to the layer: [`SourceFile::locate`]
/// names the layer and counts its lines from 1, and miette snippets show the layer alone.
#[derive(Clone)]
pub struct SourceFile {
    name: Arc<str>,
    /// A `String`, not an `Arc<str>`: a file read is kept as read, where making an
    /// `Arc<str>` of it would copy it (megabytes for a large cluster file).
    text: Arc<String>,
    layer: Option<(usize, Arc<str>)>,
    /// Built on the first line or snippet asked for; shared by clones.
    lines: Arc<OnceLock<LineIndex>>,
    /// The windows of a long layer line shown so far (see [`LayerWindows`]).
    windows: Arc<LayerWindows>,
}

impl fmt::Debug for SourceFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SourceFile")
            .field("name", &self.name)
            .field("len", &self.text.len())
            .finish()
    }
}

impl SourceFile {
    /// A file from text in memory.
    pub fn new(name: impl Into<Arc<str>>, text: impl Into<String>) -> SourceFile {
        SourceFile {
            name: name.into(),
            text: Arc::new(text.into()),
            layer: None,
            lines: Arc::default(),
            windows: Arc::default(),
        }
    }

    /// This file with a second layer of text named `layer_name` after it.
    pub fn with_layer(&self, layer_name: &str, layer_text: &str) -> SourceFile {
        let base = self.base_text();
        let start = base.len() + 1;
        let mut text = String::with_capacity(start + layer_text.len());
        text.push_str(base);
        text.push('\n');
        text.push_str(layer_text);
        SourceFile {
            name: self.name.clone(),
            text: Arc::new(text),
            layer: Some((start, layer_name.into())),
            lines: Arc::default(),
            windows: Arc::default(),
        }
    }

    /// Where the layer's text starts, when there is one.
    pub fn layer_start(&self) -> Option<usize> {
        self.layer.as_ref().map(|l| l.0)
    }

    /// The file's own text, without a layer.
    pub fn base_text(&self) -> &str {
        match &self.layer {
            Some((start, _)) => &self.text[..start - 1],
            None => &self.text,
        }
    }

    /// The name, 1-based line and column of an offset: in the file, or in its layer.
    pub fn locate(&self, offset: usize) -> (&str, usize, usize) {
        match &self.layer {
            Some((start, name)) if offset >= *start => {
                let (line, column) = self.line_col_from(*start, offset);
                (name, line, column)
            }
            _ => {
                let (line, column) = self.line_col(offset);
                (&self.name, line, column)
            }
        }
    }

    /// Reads a file within the limits.
    pub fn read(path: &Path, limits: ReadLimits) -> Result<SourceFile, ReadError> {
        use std::io::Read;
        let shown = path.display().to_string();
        let io = |source| ReadError::Io {
            path: shown.clone(),
            source,
        };
        // Look before opening: opening a FIFO waits for a writer, possibly forever.
        let meta = std::fs::metadata(path).map_err(io)?;
        if meta.is_dir() {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                "is a directory",
            )));
        }
        if !meta.is_file() {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "is not a regular file (a FIFO, socket or device)",
            )));
        }
        let file = std::fs::File::open(path).map_err(io)?;
        // Sized from the metadata (capped by the limit), so a large file is read without
        // growing and copying the buffer again and again.
        let expected = meta.len().min(limits.max_file_bytes).saturating_add(1);
        let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
        // Read one byte past the limit to tell "at the limit" from "over it", whatever the
        // metadata says (pipes and /proc files report no size).
        file.take(limits.max_file_bytes.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(io)?;
        if bytes.len() as u64 > limits.max_file_bytes {
            return Err(ReadError::TooLarge {
                path: shown,
                limit: limits.max_file_bytes,
            });
        }
        SourceFile::from_bytes(shown, bytes)
    }

    /// A file from bytes, which must be UTF-8.
    pub fn from_bytes(name: impl Into<String>, bytes: Vec<u8>) -> Result<SourceFile, ReadError> {
        let name = name.into();
        match String::from_utf8(bytes) {
            Ok(text) => Ok(SourceFile::new(name, text)),
            Err(err) => Err(ReadError::NotUtf8 {
                path: name,
                offset: err.utf8_error().valid_up_to(),
            }),
        }
    }

    /// The name shown in reports.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The 1-based line and column (in characters) of a byte offset, as editors count
    /// them; a tab counts as one column.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        self.line_col_from(0, offset)
    }

    /// The 1-based line and column of an offset, lines counted from `origin`: the start of
    /// the text, or of the layer (a line start).
    fn line_col_from(&self, origin: usize, offset: usize) -> (usize, usize) {
        let text: &str = &self.text;
        let mut offset = offset.clamp(origin, text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let lines = self.lines();
        let line = lines.line_of(offset);
        let line_start = lines.line_start(line);
        let mut column =
            lines.chars_before(text, offset) - lines.chars_before(text, line_start) + 1;
        // A BOM is not a column anyone sees.
        if line_start == origin && offset > origin && text[origin..].starts_with('\u{feff}') {
            column -= 1;
        }
        (line - lines.line_of(origin) + 1, column)
    }

    fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }

    /// miette's snippet of `span` in `text` (the file's own text, a prefix of the whole),
    /// read from a few lines before the span rather than from the start of the file: the
    /// same contents, with lines counted from the start.
    fn snippet<'a>(
        &'a self,
        text: &'a str,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<MietteSpanContents<'a>, MietteError> {
        let lines = self.lines();
        if let Some(clipped) = clip_long_line(text, lines, span, before) {
            return Ok(clipped);
        }
        let first = lines.line_of(span.offset()).saturating_sub(before + 1);
        let start = lines.line_start(first);
        if lines.lone_cr || start == 0 || start > text.len() {
            let inner = text.read_span(span, before, after)?;
            return Ok(MietteSpanContents::new(
                inner.data(),
                *inner.span(),
                inner.line(),
                inner.column(),
                inner.line_count(),
            ));
        }
        let local = SourceSpan::new((span.offset() - start).into(), span.len());
        let inner = text[start..].read_span(&local, before, after)?;
        Ok(MietteSpanContents::new(
            inner.data(),
            SourceSpan::new((inner.span().offset() + start).into(), inner.span().len()),
            inner.line() + first,
            inner.column(),
            inner.line_count() + first,
        ))
    }
}

impl SourceCode for SourceFile {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        if let Some((start, name)) = &self.layer
            && span.offset() >= *start
        {
            if context_lines_before > 0
                && let Some(window) = self.layer_window(*start, span, name)
            {
                return Ok(Box::new(window.with_language("toml")));
            }
            // Read from the layer alone, then shift the contents back into the
            // shared offset space the labels use.
            let layer = &self.text[*start..];
            let local = SourceSpan::new((span.offset() - start).into(), span.len());
            let inner = layer.read_span(&local, context_lines_before, context_lines_after)?;
            let column = if context_lines_before == 0 {
                self.line_col_from(*start, inner.span().offset() + start).1 - 1
            } else {
                inner.column()
            };
            let shifted =
                SourceSpan::new((inner.span().offset() + start).into(), inner.span().len());
            return Ok(Box::new(
                MietteSpanContents::new_named(
                    name.to_string(),
                    inner.data(),
                    shifted,
                    inner.line(),
                    column,
                    inner.line_count(),
                )
                .with_language("toml"),
            ));
        }
        let inner = self.snippet(
            self.base_text(),
            span,
            context_lines_before,
            context_lines_after,
        )?;
        // miette counts the column of a span's start (what its report header shows) in
        // bytes; people count characters, and do not see a BOM.
        let column = if context_lines_before == 0 {
            self.line_col(inner.span().offset()).1 - 1
        } else {
            inner.column()
        };
        Ok(Box::new(
            MietteSpanContents::new_named(
                self.name.to_string(),
                inner.data(),
                *inner.span(),
                inner.line(),
                column,
                inner.line_count(),
            )
            .with_language("toml"),
        ))
    }
}

/// The closest candidate to a misspelt name, when one is close enough to suggest.
pub fn did_you_mean<'a>(
    wrong: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let candidates: Vec<&'a str> = candidates.into_iter().collect();
    // The same words in another case style (`RewardModel`, `gpusPerNode`, `reward-model`)
    // are meant whatever the score says: CamelCase scores low against snake_case.
    let words = |s: &str| -> String {
        s.chars()
            .filter(|c| !matches!(c, '_' | '-'))
            .flat_map(char::to_lowercase)
            .collect()
    };
    let wanted = words(wrong);
    if let Some(same) = candidates.iter().find(|c| words(c) == wanted) {
        return Some(same);
    }
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(wrong, c), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_case_style_of_a_candidate_is_that_candidate() {
        let roles = ["actor_rollout", "ref", "rm", "reward_model"];
        assert_eq!(did_you_mean("RewardModel", roles), Some("reward_model"));
        assert_eq!(did_you_mean("reward-model", roles), Some("reward_model"));
        assert_eq!(did_you_mean("actor_rolout", roles), Some("actor_rollout"));
        assert_eq!(
            did_you_mean("gpusPerNode", ["gpus_per_node", "nnodes"]),
            Some("gpus_per_node")
        );
        assert_eq!(did_you_mean("teacher", roles), None);
    }

    /// The 1-based line and column (in characters) of a byte offset in `text`, by a scan:
    /// what the line index must agree with.
    fn line_col_in(text: &str, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &text[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
        let mut column = before[line_start..].chars().count() + 1;
        // A BOM is not a column anyone sees.
        if line_start == 0 && before.starts_with('\u{feff}') {
            column -= 1;
        }
        (line, column)
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let file = SourceFile::new("t.toml", "a = 1\r\n\tb = \"\u{4e2d}\u{6587}\" x\n");
        assert_eq!(file.line_col(0), (1, 1));
        let x = file.text().find('x').unwrap();
        assert_eq!(file.line_col(x), (2, 11));
        let bom = SourceFile::new("b.toml", "\u{feff}key = 1");
        assert_eq!(bom.line_col(3), (1, 1));
        assert_eq!(file.line_col(10_000), (3, 1));
    }

    #[test]
    fn suggestions_are_close_names_only() {
        let pools = ["global_pool", "reward_pool"];
        assert_eq!(did_you_mean("globl_pool", pools), Some("global_pool"));
        assert_eq!(did_you_mean("zzz", pools), None);
    }

    #[test]
    fn non_utf8_is_refused_with_its_offset() {
        let err = SourceFile::from_bytes("x.toml", b"ab\xffcd".to_vec()).unwrap_err();
        assert!(matches!(err, ReadError::NotUtf8 { offset: 2, .. }));
    }

    #[test]
    fn a_span_on_a_long_line_shows_a_window_of_it() {
        let text = format!("first\n{}X{}\nlast\n", "a".repeat(5000), "b".repeat(5000));
        let file = SourceFile::new("long.json", text.as_str());
        let at = text.find('X').unwrap();
        let contents = file
            .read_span(&SourceSpan::new(at.into(), 1), 1, 1)
            .unwrap();
        let shown = std::str::from_utf8(contents.data()).unwrap();
        assert_eq!(shown, format!("{}X{}", "a".repeat(80), "b".repeat(80)));
        assert_eq!(contents.line(), 1);
        assert_eq!(contents.span().offset(), at - 80);
        // The header's position is the span's own, in characters.
        let header = file
            .read_span(&SourceSpan::new(at.into(), 1), 0, 0)
            .unwrap();
        assert_eq!(header.span().offset(), at);
        assert_eq!(header.column(), 5000);
        // Ordinary lines are shown whole, with their context.
        let short = file.read_span(&SourceSpan::new(0.into(), 5), 0, 1).unwrap();
        assert!(
            std::str::from_utf8(short.data())
                .unwrap()
                .starts_with("first\n")
        );
    }

    #[test]
    fn a_span_inside_a_character_of_a_long_layer_line_does_not_panic() {
        // A span from another text (a caller's bug) lands inside `ԏ`: no window, no panic.
        let line = format!("{} aԏb {}", "x=1 ".repeat(100), "y=2 ".repeat(100));
        let file = SourceFile::new("f.yaml", "a: 1\n").with_layer("command line", &line);
        let inside = file.layer_start().unwrap() + line.find('ԏ').unwrap() + 1;
        for len in [0, 3] {
            let _ = file.read_span(&SourceSpan::new(inside.into(), len), 1, 1);
        }
    }

    proptest::proptest! {
        /// Snippets read from a few lines before the span are miette's own, read from the
        /// start of the file; and lines and columns are a scan's.
        #[test]
        fn snippets_and_positions_are_those_of_a_full_scan(
            text in "([a-z ]{0,12}\n|\r\n|é|中){0,300}",
            at in 0usize..4000,
            len in 0usize..30,
            before in 0usize..4,
            after in 0usize..4,
        ) {
            let file = SourceFile::new("f.toml", text.as_str());
            let mut at = at.min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let mut end = (at + len).min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            proptest::prop_assert_eq!(file.line_col(at), line_col_in(&text, at));
            // In a layer, lines count from the layer's start.
            let layered = file.with_layer("command line", &text);
            let start = layered.layer_start().unwrap_or_default();
            let (name, line, column) = layered.locate(start + at);
            proptest::prop_assert_eq!(name, "command line");
            proptest::prop_assert_eq!((line, column), line_col_in(&text, at));
            proptest::prop_assert_eq!(layered.locate(at), ("f.toml", line, column));
            let span = SourceSpan::new(at.into(), end - at);
            let fast = file.snippet(&text, &span, before, after);
            let slow = text.as_str().read_span(&span, before, after);
            match (fast, slow) {
                (Ok(fast), Ok(slow)) => {
                    proptest::prop_assert_eq!(fast.data(), slow.data());
                    proptest::prop_assert_eq!(fast.span(), slow.span());
                    proptest::prop_assert_eq!(fast.line(), slow.line());
                    proptest::prop_assert_eq!(fast.column(), slow.column());
                    proptest::prop_assert_eq!(fast.line_count(), slow.line_count());
                }
                (Err(_), Err(_)) => {}
                (fast, slow) => proptest::prop_assert!(
                    false,
                    "one failed: {:?} vs {:?}",
                    fast.is_ok(),
                    slow.is_ok()
                ),
            }
        }
    }
}
