//! Byte spans of values in a JSON text, found by a path of keys and indices.
//!
//! serde_json parses into values without positions; the inventories that read JSON
//! (`kubectl get ... -o json`) still label the exact bytes of a bad value. [`span_of`]
//! finds them by scanning the text again: a small tokenizer that knows strings (with
//! escapes), numbers, literals and nesting. It is iterative (nesting depth costs no stack)
//! and reads each byte of the text at most a few times per lookup.
//!
//! When a key occurs twice in one object, the last one wins, as it does in serde_json.

use std::cell::OnceCell;
use std::ops::Range;

/// One step of a path into a JSON value: an object key or an array index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step<'a> {
    /// The member of an object with this (unescaped) key.
    Key(&'a str),
    /// The element of an array at this index.
    Index(usize),
}

impl<'a> From<&'a str> for Step<'a> {
    fn from(key: &'a str) -> Step<'a> {
        Step::Key(key)
    }
}

impl From<usize> for Step<'_> {
    fn from(index: usize) -> Self {
        Step::Index(index)
    }
}

/// The byte range of the value at `path` in the JSON `text` (the whole document for an
/// empty path); `None` when the path leads nowhere or the text is not JSON on the way.
pub fn span_of(text: &str, path: &[Step<'_>]) -> Option<Range<usize>> {
    span_from(text, skip_ws(text.as_bytes(), 0), path)
}

/// Finds spans of the many items of one top-level array (`items`, `nodes`) in time linear
/// in the text: the start of each element is found once, on the first lookup, and a path
/// into element `i` is then walked from there. A file with an error in each of its
/// 100,000 items costs one pass, not 100,000.
pub struct Locator<'t> {
    text: &'t str,
    array: &'static str,
    starts: OnceCell<Vec<usize>>,
}

impl<'t> Locator<'t> {
    /// Spans in `text`, whose top-level member `array` is the array of items.
    pub fn new(text: &'t str, array: &'static str) -> Locator<'t> {
        Locator {
            text,
            array,
            starts: OnceCell::new(),
        }
    }

    /// As [`span_of`].
    pub fn span(&self, path: &[Step<'_>]) -> Option<Range<usize>> {
        if let [Step::Key(key), Step::Index(index), rest @ ..] = path
            && *key == self.array
        {
            let starts = self
                .starts
                .get_or_init(|| element_starts(self.text, &[Step::Key(self.array)]));
            if let Some(&start) = starts.get(*index) {
                return span_from(self.text, start, rest);
            }
        }
        span_of(self.text, path)
    }
}

/// The byte offsets at which the elements of the array at `path` start, in one pass;
/// empty when there is no array there.
pub fn element_starts(text: &str, path: &[Step<'_>]) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = Vec::new();
    let Some(array) = span_of(text, path) else {
        return starts;
    };
    if bytes.get(array.start) != Some(&b'[') {
        return starts;
    }
    let mut pos = skip_ws(bytes, array.start + 1);
    if bytes.get(pos) == Some(&b']') {
        return starts;
    }
    loop {
        starts.push(pos);
        let Some(end) = value_end(bytes, pos) else {
            return starts;
        };
        pos = skip_ws(bytes, end);
        match bytes.get(pos) {
            Some(b',') => pos = skip_ws(bytes, pos + 1),
            _ => return starts,
        }
    }
}

/// As [`span_of`], with `path` walked from the value that starts at byte `start`.
pub fn span_from(text: &str, start: usize, path: &[Step<'_>]) -> Option<Range<usize>> {
    let bytes = text.as_bytes();
    let mut pos = start;
    for step in path {
        pos = match (step, bytes.get(pos)?) {
            (Step::Key(key), b'{') => member(text, pos, key)?,
            (Step::Index(index), b'[') => element(bytes, pos, *index)?,
            _ => return None,
        };
    }
    Some(pos..value_end(bytes, pos)?)
}

/// The byte offset of serde_json's 1-based `line` and `column` in `text` (clamped to it).
pub fn offset_of_line_column(text: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            return (offset + column.saturating_sub(1)).min(text.len());
        }
        offset += l.len();
    }
    text.len()
}

/// The start of the value of the last member `key` of the object at `open`.
fn member(text: &str, open: usize, key: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut found = None;
    let mut pos = skip_ws(bytes, open + 1);
    if bytes.get(pos) == Some(&b'}') {
        return None;
    }
    loop {
        if bytes.get(pos) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(bytes, pos)?;
        let matches = key_matches(text.get(pos..key_end)?, key);
        pos = skip_ws(bytes, key_end);
        if bytes.get(pos) != Some(&b':') {
            return None;
        }
        let value_start = skip_ws(bytes, pos + 1);
        let end = value_end(bytes, value_start)?;
        if matches {
            found = Some(value_start);
        }
        pos = skip_ws(bytes, end);
        match bytes.get(pos)? {
            b',' => pos = skip_ws(bytes, pos + 1),
            b'}' => return found,
            _ => return None,
        }
    }
}

/// The start of the element `index` of the array at `open`.
fn element(bytes: &[u8], open: usize, index: usize) -> Option<usize> {
    let mut pos = skip_ws(bytes, open + 1);
    if bytes.get(pos) == Some(&b']') {
        return None;
    }
    for _ in 0..index {
        let end = value_end(bytes, pos)?;
        pos = skip_ws(bytes, end);
        match bytes.get(pos)? {
            b',' => pos = skip_ws(bytes, pos + 1),
            _ => return None,
        }
    }
    Some(pos)
}

/// Whether the quoted JSON string `quoted` spells `key`.
fn key_matches(quoted: &str, key: &str) -> bool {
    let inner = &quoted[1..quoted.len() - 1];
    if !inner.contains('\\') {
        return inner == key;
    }
    serde_json::from_str::<String>(quoted).is_ok_and(|decoded| decoded == key)
}

fn skip_ws(bytes: &[u8], mut pos: usize) -> usize {
    while matches!(bytes.get(pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        pos += 1;
    }
    pos
}

/// The end (one past the closing quote) of the string starting at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut pos = start + 1;
    loop {
        match bytes.get(pos)? {
            b'"' => return Some(pos + 1),
            b'\\' => pos += 2,
            _ => pos += 1,
        }
    }
}

/// The end of the value starting at `start`, nesting counted without recursion.
fn value_end(bytes: &[u8], start: usize) -> Option<usize> {
    match bytes.get(start)? {
        b'"' => string_end(bytes, start),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut pos = start;
            loop {
                match bytes.get(pos)? {
                    b'"' => {
                        pos = string_end(bytes, pos)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(pos + 1);
                        }
                    }
                    _ => {}
                }
                pos += 1;
            }
        }
        b',' | b':' | b'}' | b']' => None,
        _ => {
            let mut pos = start;
            while let Some(b) = bytes.get(pos) {
                if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                    break;
                }
                pos += 1;
            }
            Some(pos)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    fn at<'t>(text: &'t str, path: &[Step<'_>]) -> Option<&'t str> {
        span_of(text, path).map(|range| &text[range])
    }

    #[test]
    fn finds_nested_values() {
        let text = r#" {"items": [ {"a": 1}, {"b": {"c": "x\"}y", "d": [true, null, -1.5e3]}} ]} "#;
        assert_eq!(
            at(text, &["items".into(), 1.into(), "b".into(), "c".into()]),
            Some(r#""x\"}y""#)
        );
        assert_eq!(
            at(
                text,
                &["items".into(), 1.into(), "b".into(), "d".into(), 2.into()]
            ),
            Some("-1.5e3")
        );
        assert_eq!(at(text, &["items".into(), 0.into()]), Some(r#"{"a": 1}"#));
        assert_eq!(at(text, &[]), Some(text.trim()));
    }

    #[test]
    fn missing_paths_are_none() {
        let text = r#"{"a": [1, 2], "b": {}}"#;
        assert_eq!(at(text, &["a".into(), 2.into()]), None);
        assert_eq!(at(text, &["b".into(), "x".into()]), None);
        assert_eq!(at(text, &["a".into(), "x".into()]), None);
        assert_eq!(at(text, &["c".into()]), None);
        assert_eq!(at("[]", &[0.into()]), None);
        assert_eq!(at("", &[]), None);
        assert_eq!(at(r#"{"a": "#, &["a".into()]), None);
        assert_eq!(at(r#"{"a": "unterminated"#, &["a".into()]), None);
    }

    #[test]
    fn escaped_keys_and_the_last_duplicate() {
        let text = r#"{"a\u002fb": 1, "k": 2, "k": 3}"#;
        assert_eq!(at(text, &["a/b".into()]), Some("1"));
        assert_eq!(at(text, &["k".into()]), Some("3"));
    }

    #[test]
    fn deep_nesting_costs_no_stack() {
        let depth = 200_000;
        let text = format!(
            "{{\"x\": {}{}, \"y\": 7}}",
            "[".repeat(depth),
            "]".repeat(depth)
        );
        assert_eq!(at(&text, &["y".into()]), Some("7"));
    }

    #[test]
    fn line_and_column_to_offset() {
        let text = "ab\ncd\nef";
        assert_eq!(offset_of_line_column(text, 1, 1), 0);
        assert_eq!(offset_of_line_column(text, 2, 2), 4);
        assert_eq!(offset_of_line_column(text, 9, 1), text.len());
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-1e6f64..1e6).prop_map(Value::from),
            ".{0,8}".prop_map(Value::from),
        ];
        leaf.prop_recursive(5, 64, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map(".{0,6}", inner, 0..6)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    fn paths(value: &Value) -> Vec<Vec<PathBuf>> {
        let mut out = vec![Vec::new()];
        let mut todo = vec![(Vec::new(), value)];
        while let Some((path, value)) = todo.pop() {
            let children: Vec<(PathBuf, &Value)> = match value {
                Value::Array(items) => items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (PathBuf::Index(i), v))
                    .collect(),
                Value::Object(map) => map
                    .iter()
                    .map(|(k, v)| (PathBuf::Key(k.clone()), v))
                    .collect(),
                _ => Vec::new(),
            };
            for (step, child) in children {
                let mut longer: Vec<PathBuf> = path.clone();
                longer.push(step);
                out.push(longer.clone());
                todo.push((longer, child));
            }
        }
        out
    }

    #[derive(Clone, Debug)]
    enum PathBuf {
        Key(String),
        Index(usize),
    }

    fn lookup<'v>(value: &'v Value, path: &[PathBuf]) -> Option<&'v Value> {
        path.iter().try_fold(value, |v, step| match step {
            PathBuf::Key(k) => v.get(k),
            PathBuf::Index(i) => v.get(i),
        })
    }

    fn print(value: &Value, pretty: bool) -> String {
        if pretty {
            serde_json::to_string_pretty(value)
        } else {
            serde_json::to_string(value)
        }
        .expect("serializes")
    }

    fn steps(path: &[PathBuf]) -> Vec<Step<'_>> {
        path.iter()
            .map(|s| match s {
                PathBuf::Key(k) => Step::Key(k),
                PathBuf::Index(i) => Step::Index(*i),
            })
            .collect()
    }

    proptest! {
        #[test]
        fn every_path_spans_its_value(value in json_value(), pretty in any::<bool>()) {
            let text = print(&value, pretty);
            // Compare against the document as read back, so floats are compared as parsed.
            let doc: Value = serde_json::from_str(&text).expect("parses");
            for path in paths(&doc) {
                let steps = steps(&path);
                let range = span_of(&text, &steps);
                prop_assert!(range.is_some(), "{path:?} in {text}");
                let range = range.unwrap_or_default();
                let spanned: Value = serde_json::from_str(&text[range]).expect("span parses");
                prop_assert_eq!(Some(&spanned), lookup(&doc, &path));
            }
        }

        #[test]
        fn the_locator_agrees_with_span_of(
            items in proptest::collection::vec(json_value(), 0..6),
            pretty in any::<bool>(),
        ) {
            let doc = serde_json::json!({ "kind": "List", "items": items });
            let text = print(&doc, pretty);
            let doc: Value = serde_json::from_str(&text).expect("parses");
            let locator = Locator::new(&text, "items");
            for path in paths(&doc) {
                let steps = steps(&path);
                prop_assert_eq!(locator.span(&steps), span_of(&text, &steps), "{:?}", path);
            }
            // Past the last item, and into something that is not there.
            let past = [Step::Key("items"), Step::Index(items.len()), Step::Key("x")];
            prop_assert_eq!(locator.span(&past), None);
        }
    }
}
