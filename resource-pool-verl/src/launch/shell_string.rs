//! A shell given its command as a string: `bash -c 'python3 -m verl.trainer.main_ppo ...'`,
//! as container and Slurm scripts run verl (`docker exec box bash -lc "cd /w && python3 -m
//! ..."`). The shell's options are read as bash reads them (`-lc`, `-o pipefail`, `--login`,
//! `--`), the string is split into words and commands as the shell splits it (quotes,
//! backslashes, `$(...)`, `${...}` and backquotes kept whole, `;`, `&&`, `||`, `&` and
//! line breaks between commands, redirections left out, a pipe's later commands dropped),
//! and the command that
//! runs verl is read in its place. What the shell would fill in (`$NNODES`, `$((...))`)
//! stays as written, as in a line held as words.

use super::entry_points::names_entry_point;
use super::{is_env_assignment, is_launcher_at, program_name};

/// The shells read: each takes `-c STRING`.
const SHELLS: &[&str] = &["bash", "sh", "dash", "zsh", "ksh"];

/// Whether `word` names a shell (`bash`, `/bin/sh`).
fn is_shell(word: &str) -> bool {
    SHELLS.contains(&program_name(word))
}

/// Where a shell given `-c` at `words[i]` has its command string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CommandString {
    /// The index of the string.
    At(usize),
    /// `-c` with no string after it (bash: "option requires an argument"): the last word.
    Missing(usize),
}

/// The command string of `words[i]` when it is a shell given `-c`; `None` for anything else
/// (a shell running a script file, which is not read).
pub(super) fn command_string_at(words: &[String], i: usize) -> Option<CommandString> {
    if !words.get(i).is_some_and(|w| is_shell(w)) {
        return None;
    }
    let mut command_mode = false;
    let mut at = i + 1;
    while let Some(w) = words.get(at) {
        if w == "--" {
            at += 1;
            break;
        }
        if matches!(w.as_str(), "--rcfile" | "--init-file") {
            at += 2;
            continue;
        }
        if w.starts_with("--") {
            at += 1;
            continue;
        }
        let Some(letters) = w
            .strip_prefix('-')
            .or_else(|| w.strip_prefix('+'))
            .filter(|l| !l.is_empty())
        else {
            break;
        };
        at += 1;
        for letter in letters.chars() {
            match letter {
                'c' => command_mode = true,
                // `-o OPTION`, `-O SHOPT`: each takes the next word, wherever it stands in
                // the run of letters (`-co pipefail`, as bash reads it).
                'o' | 'O' => at += 1,
                _ => {}
            }
        }
    }
    if !command_mode {
        return None;
    }
    Some(match words.get(at) {
        Some(_) => CommandString::At(at),
        None => CommandString::Missing(at.min(words.len()) - 1),
    })
}

/// A quote, `$(`, `${` or backquote the string leaves open: the shell refuses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct LeftOpen;

/// The words of the command in `text` that runs verl: of its commands, the first that
/// names one of verl's entry points (`-m verl.trainer.main_ppo`, `.../main_ppo.py`), else
/// the first that starts with a launcher read here, else the first. Empty when the string
/// holds no command.
pub(super) fn verl_command(text: &str) -> Result<Vec<String>, LeftOpen> {
    let commands = commands(text)?;
    let names_verl = |command: &Vec<String>| command.iter().any(|w| names_entry_point(w));
    let launches = |command: &Vec<String>| {
        let assignments = command.iter().take_while(|w| is_env_assignment(w)).count();
        is_launcher_at(command, assignments)
    };
    let chosen = commands
        .iter()
        .position(names_verl)
        .or_else(|| commands.iter().position(launches))
        .unwrap_or(0);
    Ok(commands.into_iter().nth(chosen).unwrap_or_default())
}

/// The commands of a command string, each its words as the shell splits them: quotes and
/// backslashes removed, expansions kept as written, redirections left out; after a pipe,
/// the rest of that pipeline dropped.
pub(super) fn commands(text: &str) -> Result<Vec<Vec<String>>, LeftOpen> {
    let chars: Vec<char> = text.chars().collect();
    let mut split = Split::default();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        match c {
            ' ' | '\t' => split.end_word(),
            '\n' | ';' => split.end_command(),
            // `&>FILE`: a redirection of both outputs.
            '&' if chars.get(i) == Some(&'>') => {
                split.end_word();
                split.redirect = true;
                i += 1 + usize::from(chars.get(i + 1) == Some(&'>'));
            }
            '&' => {
                i += usize::from(chars.get(i) == Some(&'&'));
                split.end_command();
            }
            '|' if chars.get(i) == Some(&'|') => {
                i += 1;
                split.end_command();
            }
            '|' => {
                i += usize::from(chars.get(i) == Some(&'&'));
                split.end_word();
                split.piped = true;
            }
            '#' if split.word.is_none() => {
                while chars.get(i).is_some_and(|&c| c != '\n') {
                    i += 1;
                }
            }
            '\\' => match chars.get(i) {
                // A line continued.
                Some('\n') => i += 1,
                Some(&next) => {
                    split.push(next);
                    split.quoted = true;
                    i += 1;
                }
                None => split.push('\\'),
            },
            '\'' => {
                let end = find(&chars, i, '\'')?;
                split.push_str(&chars[i..end]);
                i = end + 1;
            }
            '"' => i = split.double_quoted(&chars, i)?,
            '$' if matches!(chars.get(i), Some('(' | '{')) => {
                let end = expansion_end(&chars, i - 1)?;
                split.push_str(&chars[i - 1..end]);
                i = end;
            }
            '`' => {
                let end = backquote_end(&chars, i)?;
                split.push_str(&chars[i - 1..end]);
                i = end;
            }
            // A redirection and its target are the shell's, not the program's words, as
            // bash leaves them out wherever they stand: the operator (`>`, `>>`, `>&`, `>|`,
            // `<`, `<&`), a file descriptor's number written plainly just before it (`2>`),
            // and the next word (`log`, `1` of `2>&1`). Its `&` is no separator.
            '>' | '<' => {
                if !split.quoted
                    && split
                        .word
                        .as_ref()
                        .is_some_and(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit()))
                {
                    split.word = None;
                }
                split.end_word();
                split.redirect = true;
                if matches!(chars.get(i), Some('&' | '>' | '|')) {
                    i += 1;
                }
            }
            _ => split.push(c),
        }
    }
    split.end_command();
    Ok(split.commands)
}

/// The words and commands split so far.
#[derive(Default)]
struct Split {
    commands: Vec<Vec<String>>,
    command: Vec<String>,
    /// The word being read; `Some("")` after `''`, an empty word of its own.
    word: Option<String>,
    /// After a pipe: the words up to the command's end are another program's.
    piped: bool,
    /// After a redirection's operator: the next word is its target, not a word.
    redirect: bool,
    /// Whether the word so far has a quote, escape or expansion in it (so it is no file
    /// descriptor's number).
    quoted: bool,
}

impl Split {
    fn push(&mut self, c: char) {
        self.word.get_or_insert_with(String::new).push(c);
    }

    fn push_str(&mut self, chars: &[char]) {
        self.quoted = true;
        self.word.get_or_insert_with(String::new).extend(chars);
    }

    fn end_word(&mut self) {
        self.quoted = false;
        if let Some(word) = self.word.take() {
            if std::mem::take(&mut self.redirect) {
                return;
            }
            if !self.piped {
                self.command.push(word);
            }
        }
    }

    fn end_command(&mut self) {
        self.end_word();
        // A redirection with no target before the command's end is the shell's error;
        // it does not reach into the next command.
        self.redirect = false;
        self.piped = false;
        if !self.command.is_empty() {
            self.commands.push(std::mem::take(&mut self.command));
        }
    }

    /// Reads a double-quoted part from `chars[i]` (after its `"`); returns the index after
    /// its closing `"`. A backslash escapes only `$`, `` ` ``, `"`, `\` and a line break.
    fn double_quoted(&mut self, chars: &[char], mut i: usize) -> Result<usize, LeftOpen> {
        self.word.get_or_insert_with(String::new);
        self.quoted = true;
        loop {
            match *chars.get(i).ok_or(LeftOpen)? {
                '"' => return Ok(i + 1),
                '\\' => match chars.get(i + 1) {
                    Some('\n') => i += 2,
                    Some(&next @ ('$' | '`' | '"' | '\\')) => {
                        self.push(next);
                        i += 2;
                    }
                    _ => {
                        self.push('\\');
                        i += 1;
                    }
                },
                '$' if matches!(chars.get(i + 1), Some('(' | '{')) => {
                    let end = expansion_end(chars, i)?;
                    self.push_str(&chars[i..end]);
                    i = end;
                }
                '`' => {
                    let end = backquote_end(chars, i + 1)?;
                    self.push_str(&chars[i..end]);
                    i = end;
                }
                c => {
                    self.push(c);
                    i += 1;
                }
            }
        }
    }
}

/// The index of the first `close` from `chars[i]`.
fn find(chars: &[char], i: usize, close: char) -> Result<usize, LeftOpen> {
    chars[i..]
        .iter()
        .position(|&c| c == close)
        .map(|at| i + at)
        .ok_or(LeftOpen)
}

/// The index after a backquoted command whose text starts at `chars[i]` (after its
/// backquote).
fn backquote_end(chars: &[char], mut i: usize) -> Result<usize, LeftOpen> {
    loop {
        match *chars.get(i).ok_or(LeftOpen)? {
            '`' => return Ok(i + 1),
            '\\' => i += 2,
            _ => i += 1,
        }
    }
}

/// The index after the `$(...)`, `$((...))` or `${...}` at `chars[start]` (its `$`):
/// brackets counted, quoted text inside skipped.
fn expansion_end(chars: &[char], start: usize) -> Result<usize, LeftOpen> {
    let (open, close) = if chars.get(start + 1) == Some(&'{') {
        ('{', '}')
    } else {
        ('(', ')')
    };
    let mut depth = 0usize;
    let mut i = start + 1;
    loop {
        match *chars.get(i).ok_or(LeftOpen)? {
            c if c == open => depth += 1,
            c if c == close => {
                depth -= 1;
                if depth == 0 {
                    return Ok(i + 1);
                }
            }
            '\\' => i += 1,
            '\'' => i = find(chars, i + 1, '\'')?,
            '"' => i = Split::default().double_quoted(chars, i + 1)? - 1,
            _ => {}
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn shells_options_as_bash_reads_them() {
        // Each checked with bash 5.2 (`bash ... 'echo $0'` and the like).
        for (line, want) in [
            ("bash -c x", Some(CommandString::At(2))),
            ("bash -lc x", Some(CommandString::At(2))),
            ("/bin/bash -c -x x", Some(CommandString::At(3))),
            ("bash -o pipefail -c x", Some(CommandString::At(4))),
            ("bash -co pipefail x", Some(CommandString::At(3))),
            ("bash +o history -c x", Some(CommandString::At(4))),
            (
                "bash --login --rcfile /dev/null -c x",
                Some(CommandString::At(5)),
            ),
            ("bash -c -- x", Some(CommandString::At(3))),
            ("sh -ec x", Some(CommandString::At(2))),
            ("bash -c", Some(CommandString::Missing(1))),
            ("bash -o", None),
            // A script file, or `-c` after `--` (a file named `-c`): not read.
            ("bash run.sh", None),
            ("bash -l -- -c x", None),
            ("python3 -c x", None),
        ] {
            assert_eq!(command_string_at(&words(line), 0), want, "{line}");
        }
    }

    #[test]
    fn strings_split_as_the_shell_splits_them() {
        let split = |text: &str| commands(text).expect(text);
        assert_eq!(
            split("python3 -m m 'a=x y' \"b=$X\" c=\\\"d"),
            [["python3", "-m", "m", "a=x y", "b=$X", "c=\"d"]]
        );
        assert_eq!(
            split("cd /w && python3 x.py a=1; echo done\nls"),
            [
                vec!["cd", "/w"],
                vec!["python3", "x.py", "a=1"],
                vec!["echo", "done"],
                vec!["ls"]
            ]
        );
        // Expansions stay whole, their blanks and operators inside them too.
        assert_eq!(
            split(
                "p n=$(scontrol show hostnames | wc -l) g=$((A / B)) h=${X:-a b} i=`echo 1; echo 2`"
            ),
            [[
                "p",
                "n=$(scontrol show hostnames | wc -l)",
                "g=$((A / B))",
                "h=${X:-a b}",
                "i=`echo 1; echo 2`"
            ]]
        );
        // A pipe's later commands are another program's; a redirection and its target are
        // the shell's, wherever they stand (a quoted number is a word, not a descriptor).
        assert_eq!(
            split("python3 x.py a=1 2>&1 | tee log && y"),
            [vec!["python3", "x.py", "a=1"], vec!["y"]]
        );
        assert_eq!(
            split("p a=1>log b >> log2 c &>/dev/null d"),
            [["p", "a=1", "b", "c", "d"]]
        );
        assert_eq!(split("p '2'>log 3<in"), [["p", "2"]]);
        assert_eq!(split("p > ; q a"), [vec!["p"], vec!["q", "a"]]);
        assert_eq!(split("p \\\n  a=1 # note"), [["p", "a=1"]]);
        assert_eq!(split("p '' \"\""), [["p", "", ""]]);
        assert_eq!(split("  ;; "), Vec::<Vec<String>>::new());
        for open in ["p 'a", "p \"a", "p $(a", "p ${a", "p `a", "p \"$(a\""] {
            assert_eq!(commands(open), Err(LeftOpen), "{open}");
        }
    }

    #[test]
    fn the_command_that_runs_verl_is_read() {
        for (text, want) in [
            (
                "cd /w && python3 -m verl.trainer.main_ppo a=1",
                "python3 -m verl.trainer.main_ppo a=1",
            ),
            (
                "python3 prepare.py; python3 verl/trainer/main_ppo.py a=1",
                "python3 verl/trainer/main_ppo.py a=1",
            ),
            (
                "source env.sh; A=1 python3 train.py",
                "A=1 python3 train.py",
            ),
            ("cd /w; make", "cd /w"),
            ("", ""),
        ] {
            assert_eq!(verl_command(text).expect(text).join(" "), want, "{text}");
        }
    }
}
