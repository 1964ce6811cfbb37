//! Every command line example of README.md and docs/*.md runs, and prints what the page
//! says it prints: an example that drifts from the tool fails here.
//!
//! An example is a ```` ```console ```` block: lines `$ resource-pool ARGS` (a `\` at the
//! end continues the line; a `  # comment` is dropped; leading `VAR=value` words set the
//! command's environment, `$PATH` in a value expands to the test's own), each followed by
//! what it prints, stderr and stdout as a terminal shows them (one stream, in order). In
//! the expected output:
//! - a line `...` stands for any lines, and a line `... TEXT` for any lines and then one
//!   that contains TEXT;
//! - `[..]` inside a line stands for any text (a hostname, a duration);
//! - `# exit N` at the end of a line (after two spaces) says the command exits with N
//!   (without it, 0 is expected); it is not part of the output.
//!
//! The commands run in the repository's root, with the environment of `common` (no
//! colour, no `RESOURCE_POOL_*` or `RAY_ADDRESS` from the developer's shell) and
//! `RESOURCE_POOL_NVML_LIBRARY` pointing nowhere, so that `--local` reads the tools on
//! `PATH` and not this machine's driver (nor `CUDA_VISIBLE_DEVICES`).
//!
//! Shell blocks (```` ```sh ````) may show commands of other tools, but not this one's:
//! a `resource-pool` command there would be an example nobody checks, so it fails.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::common;

/// The pages with examples.
fn pages() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// A fenced block: its info string, its first line's number, its lines.
struct Block {
    info: String,
    line: usize,
    lines: Vec<String>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut current: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut current, fence) {
            (None, Some(info)) => {
                current = Some(Block {
                    info: info.trim().to_owned(),
                    line: i + 2,
                    lines: Vec::new(),
                })
            }
            (Some(_), Some(_)) => out.extend(current.take()),
            (Some(block), None) => block.lines.push(line.to_owned()),
            (None, None) => {}
        }
    }
    out
}

/// One example: a command and what it prints.
struct Example {
    command: String,
    line: usize,
    expected: Vec<String>,
    status: i32,
}

fn examples(block: &Block) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut lines = block.lines.iter().enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        if let Some(command) = line.strip_prefix("$ ") {
            let mut command = command.to_owned();
            while command.trim_end().ends_with('\\') {
                let Some((_, next)) = lines.next() else { break };
                command = format!(
                    "{} {}",
                    command.trim_end().trim_end_matches('\\'),
                    next.trim()
                );
            }
            out.push(Example {
                command: strip_comment(&command).to_owned(),
                line: block.line + i,
                expected: Vec::new(),
                status: 0,
            });
        } else if let Some(example) = out.last_mut() {
            let (text, status) = exit_mark(line);
            if let Some(status) = status {
                example.status = status;
            }
            example.expected.push(text.to_owned());
        }
    }
    out
}

/// The command without a trailing `  # comment` (outside quotes).
fn strip_comment(command: &str) -> &str {
    let mut quote = None;
    let bytes = command.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match (quote, b) {
            (None, b'\'' | b'"') => quote = Some(b),
            (Some(q), _) if q == b => quote = None,
            (None, b'#') if i > 0 && bytes[i - 1] == b' ' => return command[..i].trim_end(),
            _ => {}
        }
    }
    command.trim_end()
}

/// A line without its `  # exit N` mark, and N.
fn exit_mark(line: &str) -> (&str, Option<i32>) {
    if let Some(at) = line.rfind("# exit ")
        && (at == 0 || line[..at].ends_with("  "))
        && let Ok(status) = line[at + "# exit ".len()..].trim().parse()
    {
        return (line[..at].trim_end(), Some(status));
    }
    (line, None)
}

/// Shell words: spaces split, quotes group (no escapes inside them, as in the pages).
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in command.chars() {
        match (quote, c) {
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_default();
            }
            (Some(q), _) if q == c => quote = None,
            (None, ' ') => out.extend(word.take()),
            _ => word.get_or_insert_default().push(c),
        }
    }
    out.extend(word);
    out
}

/// Runs a command of a page: its output (stderr and stdout in one stream) and status.
fn run(command: &str, scratch: &Path) -> (String, i32) {
    let mut words = words(command).into_iter().peekable();
    let mut env = Vec::new();
    while let Some(assignment) = words.next_if(|w| w.contains('=') && !w.starts_with('-')) {
        let (name, value) = assignment.split_once('=').unwrap_or_default();
        let path = std::env::var("PATH").unwrap_or_default();
        env.push((name.to_owned(), value.replace("$PATH", &path)));
    }
    assert_eq!(
        words.next().as_deref(),
        Some("resource-pool"),
        "`{command}`: only resource-pool commands are run"
    );
    let capture = scratch.join("output");
    let file = File::create(&capture).expect("scratch file");
    let status = common::resource_pool()
        .args(words)
        .envs(env)
        .env("RESOURCE_POOL_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so")
        .env_remove("CUDA_VISIBLE_DEVICES")
        .env_remove("ASCEND_RT_VISIBLE_DEVICES")
        .stdin(Stdio::null())
        .stdout(file.try_clone().expect("a second handle"))
        .stderr(file)
        .status()
        .expect("the binary runs");
    let output = std::fs::read_to_string(&capture).expect("the output is text");
    (output, status.code().unwrap_or(-1))
}

/// Whether `line` matches `pattern`, `[..]` standing for any text.
fn line_matches(pattern: &str, line: &str) -> bool {
    let mut parts = pattern.split("[..]");
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (i, part) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// Whether the output's lines match the expected ones (see the module docs); trailing
/// spaces never count.
fn output_matches(expected: &[String], actual: &[&str]) -> bool {
    let Some((first, rest)) = expected.split_first() else {
        return actual.is_empty();
    };
    let first = first.trim_end();
    if first == "..." {
        return (0..=actual.len()).any(|skip| output_matches(rest, &actual[skip..]));
    }
    if let Some(text) = first.strip_prefix("... ") {
        let pattern = format!("[..]{text}[..]");
        return (0..actual.len()).any(|at| {
            line_matches(&pattern, actual[at].trim_end()) && output_matches(rest, &actual[at + 1..])
        });
    }
    match actual.split_first() {
        Some((line, others)) => {
            line_matches(first, line.trim_end()) && output_matches(rest, others)
        }
        None => false,
    }
}

#[test]
fn every_example_in_the_pages_prints_what_the_page_says() {
    let scratch = std::env::temp_dir().join(format!("rp-docs-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    // output.md writes `target/plan.svg`, as a reader's checkout has a `target/`; a build
    // whose CARGO_TARGET_DIR is elsewhere has none here (ignored by git either way).
    std::fs::create_dir_all("target").expect("target dir");
    let mut failures = Vec::new();
    let mut count = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("a page");
        let name = page.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        for block in blocks(&text) {
            if matches!(block.info.as_str(), "sh" | "bash" | "shell")
                && let Some(line) = block
                    .lines
                    .iter()
                    .find(|l| l.trim_start().starts_with("resource-pool "))
            {
                failures.push(format!(
                    "{name}:{}: `{line}` is in a sh block: make it a console example with its output",
                    block.line
                ));
            }
            if block.info != "console" {
                continue;
            }
            for example in examples(&block) {
                count += 1;
                let (output, status) = run(&example.command, &scratch);
                let actual: Vec<&str> = output.lines().collect();
                if status != example.status || !output_matches(&example.expected, &actual) {
                    failures.push(format!(
                        "{name}:{}: `{}` exits {status} (the page says {}) and prints:\n{output}",
                        example.line, example.command, example.status
                    ));
                }
            }
        }
    }
    std::fs::remove_dir_all(&scratch).ok();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(count >= 10, "only {count} examples found");
}

#[test]
fn the_matcher_says_no_to_what_differs() {
    let lines = |s: &str| s.lines().map(str::to_owned).collect::<Vec<_>>();
    assert!(output_matches(&lines("a\n...\nd"), &["a", "b", "c", "d"]));
    assert!(output_matches(&lines("... c\nd"), &["a", "b", "c!", "d"]));
    assert!(output_matches(
        &lines("id = \"[..]\""),
        &["id = \"host-7\""]
    ));
    assert!(!output_matches(&lines("a\nd"), &["a", "b", "d"]));
    assert!(!output_matches(&lines("a"), &["a", "b"]));
    assert!(!output_matches(
        &lines("id = \"[..]\" x"),
        &["id = \"h\" y"]
    ));
    assert!(!output_matches(&lines("... z"), &["a", "b"]));
    assert_eq!(
        exit_mark("check: done (1 error)   # exit 1"),
        ("check: done (1 error)", Some(1))
    );
    assert_eq!(exit_mark("x # exit 1"), ("x # exit 1", None));
    assert_eq!(
        strip_comment("resource-pool x  # a comment"),
        "resource-pool x"
    );
    assert_eq!(
        strip_comment("resource-pool '--set=a # b'"),
        "resource-pool '--set=a # b'"
    );
    assert_eq!(
        words("A=1 resource-pool lint --set 'pools.p.process_on_nodes=[8, 8]'"),
        [
            "A=1",
            "resource-pool",
            "lint",
            "--set",
            "pools.p.process_on_nodes=[8, 8]"
        ]
    );
}
