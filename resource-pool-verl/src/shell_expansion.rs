//! What a shell fills in before verl starts, left in a launch line held as words: a line
//! of a script split by `shlex.split(script)` keeps `trainer.nnodes=$NNODES`,
//! `${n_gpus:-8}`, `$((NODES))` and `$(nproc)` as written, where bash would have put
//! their values. A command-line value that is one whole expansion is unknown here: the
//! check says so and uses verl's default (`shell_variable`, `shell_expansion`).

use super::fields::ShellExpansionKind;

/// A shell expansion a whole value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ShellExpansion<'a> {
    /// `$NAME`, `${NAME}`, `${NAME:-default}`: the variable's name.
    Variable(&'a str),
    /// `$((...))`, `$(...)` or a backquoted command: computed when the shell runs.
    Computed(ShellExpansionKind),
}

/// The shell expansion `text` is as a whole, if it is one.
pub(super) fn shell_expansion(text: &str) -> Option<ShellExpansion<'_>> {
    if let Some(name) = shell_variable(text) {
        return Some(ShellExpansion::Variable(name));
    }
    if text.starts_with("$((") && closes_at_end(&text[1..]) {
        // `$((a) + (b))` is a command substitution of a subshell to bash; as a value
        // either is the shell's.
        return Some(ShellExpansion::Computed(ShellExpansionKind::Arithmetic));
    }
    if text.starts_with("$(") && closes_at_end(&text[1..]) {
        return Some(ShellExpansion::Computed(
            ShellExpansionKind::CommandSubstitution,
        ));
    }
    let backquoted = text
        .strip_prefix('`')
        .and_then(|t| t.strip_suffix('`'))
        .is_some_and(|inner| !inner.is_empty() && !inner.contains('`'));
    backquoted.then_some(ShellExpansion::Computed(
        ShellExpansionKind::CommandSubstitution,
    ))
}

/// Whether a whole word of the line is one the shell turns into words of its own before
/// the program sees them: an array's items (`${ARGS[@]}`, `${ARGS[*]}`), a variable's
/// (`$EXTRA_ARGS`, `${EXTRA}`) or a command's output (`$(cat overrides.txt)`). Scripts
/// build verl's overrides so; what they hold is unknown here.
pub(super) fn expands_to_words(word: &str) -> bool {
    let array = word
        .strip_prefix("${")
        .and_then(|t| t.strip_suffix("[@]}").or_else(|| t.strip_suffix("[*]}")))
        .is_some_and(|name| shell_variable(&format!("${name}")).is_some());
    array || shell_expansion(word).is_some()
}

/// Whether a flag's value holds a shell expansion (`$CONFIG_PATH`, `${ROOT}/conf`,
/// `$(pwd)/config`): a `$` before a name, `{` or `(`, which no path or config name of
/// verl's has.
pub(super) fn holds_shell_expansion(value: &str) -> bool {
    value.match_indices('$').any(|(at, _)| {
        value[at + 1..]
            .starts_with(|c: char| c.is_ascii_alphabetic() || matches!(c, '_' | '{' | '('))
    })
}

/// The shell variable a whole value names, as a shell script writes one: `$NAME`,
/// `${NAME}` or `${NAME:-default}` (`${NAME-default}`, `:=`, `=` too), `NAME` a shell
/// name (letters, digits and `_`, not first a digit) of any case: scripts write
/// `$NNODES` and `${n_gpus_per_node}` alike. Hydra and OmegaConf take `$name` as text,
/// which no count is; they read `${name}` as a key of the config's top level, so a name
/// that is one in some release of verl's config (`${trainer}`) is OmegaConf's, not the
/// shell's.
pub(super) fn shell_variable(text: &str) -> Option<&str> {
    let name_len = |t: &str| {
        t.bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count()
    };
    let starts_right = |t: &str| t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
    if let Some(rest) = text.strip_prefix("${").and_then(|t| t.strip_suffix('}')) {
        let n = name_len(rest);
        let (name, tail) = rest.split_at(n);
        let default_ok = tail.is_empty()
            || [":-", "-", ":=", "="].iter().any(|op| {
                tail.strip_prefix(op)
                    .is_some_and(|d| !d.contains(['$', '{', '}']))
            });
        let omegaconf_key = tail.is_empty() && super::key_set::key_set().has_key(name);
        return (n > 0 && starts_right(name) && default_ok && !omegaconf_key).then_some(name);
    }
    let name = text.strip_prefix('$')?;
    (starts_right(name) && name_len(name) == name.len()).then_some(name)
}

/// Whether `text`, which starts with `(`, closes that parenthesis at its last character
/// and not before.
fn closes_at_end(text: &str) -> bool {
    let mut depth = 0usize;
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1 == text.len();
                }
            }
            _ => {}
        }
    }
    false
}

/// How many more `(` than `)` a word holds from its first `$(` on: a word `shlex.split`
/// cut inside a `$((...))` or `$(...)` at a blank, which bash keeps whole (0 when it has
/// no `$(` or closes them).
pub(super) fn unclosed_expansion(word: &str) -> usize {
    let Some(at) = word.find("$(") else {
        return 0;
    };
    parens_left_open(&word[at..], 0)
}

/// The parentheses left open after `text`, `open` of them open before it.
pub(super) fn parens_left_open(text: &str, open: usize) -> usize {
    text.bytes().fold(open, |depth, b| match b {
        b'(' => depth + 1,
        b')' => depth.saturating_sub(1),
        _ => depth,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_variables_as_scripts_write_them() {
        for (text, name) in [
            ("$NNODES", "NNODES"),
            ("${NNODES}", "NNODES"),
            ("${GPUS_PER_NODE:-8}", "GPUS_PER_NODE"),
            ("${N-1}", "N"),
            ("${N:=1}", "N"),
            ("$_X1", "_X1"),
            ("$nnodes", "nnodes"),
            ("${n_gpus_per_node}", "n_gpus_per_node"),
            ("${nnodes:-2}", "nnodes"),
            // A top-level key of verl's config, but with a shell default: OmegaConf would
            // call a resolver `trainer` (none is), the shell fills it in.
            ("${trainer:-2}", "trainer"),
        ] {
            assert_eq!(shell_variable(text), Some(name), "{text}");
        }
        for text in [
            "${trainer.nnodes}",
            "${oc.env:NNODES}",
            "${trainer}",
            "$1",
            "$NNODES/x",
            "${N:-${M}}",
            "$",
            "${}",
            "NNODES",
        ] {
            assert_eq!(shell_variable(text), None, "{text}");
        }
    }

    #[test]
    fn arithmetic_and_commands_as_scripts_write_them() {
        let arithmetic = ShellExpansion::Computed(ShellExpansionKind::Arithmetic);
        let command = ShellExpansion::Computed(ShellExpansionKind::CommandSubstitution);
        for (text, want) in [
            ("$((NODES))", arithmetic),
            ("$((GPUS / NODES))", arithmetic),
            ("$(( (A+1) * 2 ))", arithmetic),
            ("$(nproc)", command),
            ("$(nvidia-smi -L | wc -l)", command),
            ("$(echo $(nproc))", command),
            ("`nproc`", command),
            ("$N", ShellExpansion::Variable("N")),
        ] {
            assert_eq!(shell_expansion(text), Some(want), "{text}");
        }
        for text in [
            "$((NODES))0",
            "$((NODES)",
            "$(a)$(b)",
            "$((a))+$((b))",
            "x$(nproc)",
            "``",
            "`a`b`",
            "int(2)",
            "(2)",
            "$",
        ] {
            assert_eq!(shell_expansion(text), None, "{text}");
        }
    }

    #[test]
    fn words_the_shell_makes_words_of() {
        for word in [
            "${ARGS[@]}",
            "${common_overrides[*]}",
            "$EXTRA_ARGS",
            "${EXTRA}",
            "$(cat overrides.txt)",
        ] {
            assert!(expands_to_words(word), "{word}");
        }
        for word in [
            "${ARGS[@]",
            "${[@]}",
            "${A.B[@]}",
            "trainer.nnodes=1",
            "${trainer}",
        ] {
            assert!(!expands_to_words(word), "{word}");
        }
    }

    #[test]
    fn values_holding_an_expansion() {
        for value in ["$CONFIG_PATH", "${ROOT}/conf", "$(pwd)/config", "a/$_x"] {
            assert!(holds_shell_expansion(value), "{value}");
        }
        for value in ["config", "a$", "a$1", "a/$/b", "pkg://verl.trainer.config"] {
            assert!(!holds_shell_expansion(value), "{value}");
        }
    }

    #[test]
    fn words_cut_inside_an_expansion() {
        assert_eq!(unclosed_expansion("trainer.nnodes=$((GPUS"), 2);
        assert_eq!(unclosed_expansion("x=$(nvidia-smi"), 1);
        assert_eq!(unclosed_expansion("x=$((A))"), 0);
        assert_eq!(unclosed_expansion("x=int(2"), 0);
        assert_eq!(parens_left_open("/", 2), 2);
        assert_eq!(parens_left_open("NODES))", 2), 0);
    }
}
