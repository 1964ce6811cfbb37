//! `uv run [OPTIONS] COMMAND ...` before verl: uv's own options, then the command it runs
//! in the project's environment (verl's example scripts launch `uv run --frozen --no-sync
//! python3 -m verl.trainer.main_ppo ...`). uv reads its options as clap does: `--name
//! VALUE` or `--name=VALUE`, short flags run together (`-qm`), a short option's value
//! attached or the next word (`-p3.12`, `-p 3.12`), and `--` before the command.
//! `-m`/`--module` makes the command a module's name (`python -m` in uv's words).

/// The long options of `uv run` that take a value, as `uv run --help` lists them
/// (uv 0.13.9, read 2026-12-06): every other `--name` is a flag.
const LONG_WITH_VALUE: &[&str] = &[
    "extra",
    "no-extra",
    "group",
    "no-group",
    "only-group",
    "no-editable-package",
    "env-file",
    "with",
    "with-editable",
    "with-requirements",
    "package",
    "python-platform",
    "index",
    "default-index",
    "index-url",
    "extra-index-url",
    "find-links",
    "index-strategy",
    "keyring-provider",
    "upgrade-package",
    "upgrade-group",
    "resolution",
    "prerelease",
    "prerelease-package",
    "fork-strategy",
    "exclude-newer",
    "exclude-newer-package",
    "no-sources-package",
    "reinstall-package",
    "link-mode",
    "config-setting",
    "config-settings-package",
    "no-build-isolation-package",
    "no-build-package",
    "no-binary-package",
    "cache-dir",
    "refresh-package",
    "python",
    "color",
    "allow-insecure-host",
    "directory",
    "project",
    "config-file",
];

/// The short options of `uv run` that take a value (`-w`, `--with`; `-p`, `--python`; ...),
/// from the same help.
const SHORT_WITH_VALUE: &[char] = &['w', 'i', 'f', 'P', 'C', 'p'];

/// What follows `uv run`'s options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum UvCommand {
    /// The command's first word (a program: `python3`, a script).
    Program(usize),
    /// `-m`/`--module`: the word that names the module.
    Module(usize),
    /// The line ends inside uv's options: on the last word read.
    Missing(usize),
}

/// Reads `uv run`'s options from `words[i]` (the word after `run`).
pub(super) fn uv_run_command(words: &[String], mut i: usize) -> UvCommand {
    let mut module = false;
    let mut last = i.saturating_sub(1);
    while let Some(w) = words.get(i) {
        last = i;
        if w == "--" {
            i += 1;
            break;
        }
        if let Some(long) = w.strip_prefix("--") {
            let takes_value = !long.contains('=') && LONG_WITH_VALUE.contains(&long);
            module |= long == "module";
            i += if takes_value { 2 } else { 1 };
            continue;
        }
        let Some(shorts) = w.strip_prefix('-').filter(|s| !s.is_empty()) else {
            break;
        };
        i += 1;
        for (at, c) in shorts.char_indices() {
            if SHORT_WITH_VALUE.contains(&c) {
                // The rest of the word is the value, else the next word is.
                if at + c.len_utf8() == shorts.len() {
                    i += 1;
                }
                break;
            }
            module |= c == 'm';
        }
    }
    match words.get(i) {
        Some(_) if module => UvCommand::Module(i),
        Some(_) => UvCommand::Program(i),
        None => UvCommand::Missing(last.min(words.len().saturating_sub(1))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(line: &str) -> UvCommand {
        let words: Vec<String> = line.split(' ').map(str::to_owned).collect();
        uv_run_command(&words, 2)
    }

    #[test]
    fn options_as_uv_reads_them() {
        // Each line checked with uv 0.13.9 itself (`uv run ... python3 -c 'print(sys.argv)'`
        // and `-m` of a module printing its `sys.argv`).
        for (line, want) in [
            (
                "uv run --frozen --no-sync python3 -m x",
                UvCommand::Program(4),
            ),
            ("uv run python3", UvCommand::Program(2)),
            (
                "uv run --extra vllm --extra megatron python3",
                UvCommand::Program(6),
            ),
            (
                "uv run --with=ray -p 3.12 -- python3",
                UvCommand::Program(6),
            ),
            (
                "uv run -p/usr/bin/python3 -m verl.trainer.main_ppo",
                UvCommand::Module(4),
            ),
            (
                "uv run -qmp /usr/bin/python3 --no-project mod",
                UvCommand::Module(5),
            ),
            (
                "uv run --module verl.trainer.main_ppo a=1",
                UvCommand::Module(3),
            ),
            ("uv run train.py", UvCommand::Program(2)),
        ] {
            assert_eq!(command(line), want, "{line}");
        }
        for (line, last) in [
            ("uv run", 1),
            ("uv run --frozen", 2),
            ("uv run --python", 2),
            ("uv run -p", 2),
            ("uv run --", 2),
        ] {
            assert_eq!(command(line), UvCommand::Missing(last), "{line}");
        }
    }
}
