//! Launchers that take options of their own before the command they run: `uv run` (verl's
//! example scripts launch `uv run --frozen --no-sync python3 -m verl.trainer.main_ppo`),
//! Slurm's `srun` (verl's Slurm example: `srun --overlap --nodes=1 --ntasks=1 -w
//! "$head_node" python3 -m verl.trainer.main_ppo`) and `docker exec` (options, then the
//! container). They read their options as
//! getopt and clap do: `--name VALUE` or `--name=VALUE`, short options run together (`-ql`),
//! a short option's value attached or the next word (`-p3.12`, `-w node1`), `--` before the
//! command, and the first word that is no option starts the command. An option whose value
//! is optional takes it only attached (`--exclusive=user`). Each launcher's options that
//! take a value are a table read from its own help, named where it stands.

/// The long options of `uv run` that take a value, as `uv run --help` lists them
/// (uv 0.13.9, read 2026-12-06): every other `--name` is a flag.
const UV_RUN_LONG: &[&str] = &[
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

/// The short options of `uv run` that take a value (`-w`, `--with`; `-p`, `--python`;
/// ...), from the same help.
const UV_RUN_SHORT: &[char] = &['w', 'i', 'f', 'P', 'C', 'p'];

/// The long options of `srun` that take a value (`--name=<value>` in its man page, Slurm
/// 22.05.8 as Debian 12 ships it, read 2026-12-06; `--name[=value]` takes one only
/// attached): every other `--name` is a flag.
const SRUN_LONG: &[&str] = &[
    "accel-bind",
    "account",
    "acctg-freq",
    "bb",
    "bbf",
    "bcast-exclude",
    "begin",
    "chdir",
    "cluster-constraint",
    "clusters",
    "comment",
    "constraint",
    "container",
    "core-spec",
    "cores-per-socket",
    "cpu-bind",
    "cpu-freq",
    "cpus-per-gpu",
    "cpus-per-task",
    "deadline",
    "delay-boot",
    "dependency",
    "distribution",
    "epilog",
    "error",
    "exclude",
    "export",
    "extra-node-info",
    "gid",
    "gpu-bind",
    "gpu-freq",
    "gpus",
    "gpus-per-node",
    "gpus-per-socket",
    "gpus-per-task",
    "gres",
    "gres-flags",
    "het-group",
    "hint",
    "input",
    "job-name",
    "jobid",
    "licenses",
    "mail-type",
    "mail-user",
    "mcs-label",
    "mem",
    "mem-bind",
    "mem-per-cpu",
    "mem-per-gpu",
    "mincpus",
    "mpi",
    "msg-timeout",
    "network",
    "nodefile",
    "nodelist",
    "nodes",
    "ntasks",
    "ntasks-per-core",
    "ntasks-per-gpu",
    "ntasks-per-node",
    "ntasks-per-socket",
    "open-mode",
    "output",
    "partition",
    "power",
    "prefer",
    "priority",
    "profile",
    "prolog",
    "qos",
    "relative",
    "reservation",
    "signal",
    "slurmd-debug",
    "sockets-per-node",
    "switches",
    "task-epilog",
    "task-prolog",
    "thread-spec",
    "threads",
    "threads-per-core",
    "time",
    "time-min",
    "tmp",
    "uid",
    "wait",
    "wckey",
];

/// The short options of `srun` that take a value (`-w`, `--nodelist`; `-N`, `--nodes`;
/// ...), from the same man page.
const SRUN_SHORT: &[char] = &[
    'A', 'B', 'C', 'D', 'F', 'G', 'J', 'L', 'M', 'N', 'S', 'T', 'W', 'b', 'c', 'd', 'e', 'i', 'm',
    'n', 'o', 'p', 'q', 'r', 't', 'w', 'x',
];

/// The long options of `docker exec` that take a value, as `docker exec --help` lists them
/// (Docker 20.10.24 as Debian 12 ships it, read 2026-12-06).
const DOCKER_EXEC_LONG: &[&str] = &["detach-keys", "env", "env-file", "user", "workdir"];

/// The short options of `docker exec` that take a value (`-e`, `-u`, `-w`), from the same
/// help.
const DOCKER_EXEC_SHORT: &[char] = &['e', 'u', 'w'];

/// What follows a launcher's options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Command {
    /// The command's first word (a program: `python3`, a script).
    Program(usize),
    /// `uv run -m`/`--module`: the word that names the module.
    Module(usize),
    /// The line ends inside the launcher's options: on the last word read.
    Missing(usize),
}

/// What follows `uv run`'s options, from `words[i]` (the word after `run`).
pub(super) fn uv_run_command(words: &[String], i: usize) -> Command {
    let mut module = false;
    let end = options_end(words, i, UV_RUN_LONG, UV_RUN_SHORT, |option| {
        module |= matches!(option, Opt::Long("module") | Opt::Short('m'));
    });
    match end {
        Ok(at) if module => Command::Module(at),
        Ok(at) => Command::Program(at),
        Err(last) => Command::Missing(last),
    }
}

/// What follows `srun`'s options, from `words[i]` (the word after `srun`).
pub(super) fn srun_command(words: &[String], i: usize) -> Command {
    match options_end(words, i, SRUN_LONG, SRUN_SHORT, |_| {}) {
        Ok(at) => Command::Program(at),
        Err(last) => Command::Missing(last),
    }
}

/// What follows `docker exec`'s options and its container, from `words[i]` (the word after
/// `exec`): Slurm scripts run verl inside a container so (`srun ... docker exec
/// "$CONTAINER" python3 -m ...`).
pub(super) fn docker_exec_command(words: &[String], i: usize) -> Command {
    match options_end(words, i, DOCKER_EXEC_LONG, DOCKER_EXEC_SHORT, |_| {}) {
        Ok(container) if container + 1 < words.len() => Command::Program(container + 1),
        Ok(container) => Command::Missing(container),
        Err(last) => Command::Missing(last),
    }
}

/// An option as written, its value aside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opt<'w> {
    Long(&'w str),
    Short(char),
}

/// Where the options from `words[i]` end: the command's first word, or (when the line
/// ends first) the last word read. `seen` is told of each option.
fn options_end<'w>(
    words: &'w [String],
    mut i: usize,
    long_with_value: &[&str],
    short_with_value: &[char],
    mut seen: impl FnMut(Opt<'w>),
) -> Result<usize, usize> {
    let mut last = i.saturating_sub(1);
    while let Some(w) = words.get(i) {
        last = i;
        if w == "--" {
            i += 1;
            break;
        }
        if let Some(long) = w.strip_prefix("--") {
            let (name, attached) = long
                .split_once('=')
                .map_or((long, false), |(n, _)| (n, true));
            seen(Opt::Long(name));
            i += if !attached && long_with_value.contains(&name) {
                2
            } else {
                1
            };
            continue;
        }
        let Some(shorts) = w.strip_prefix('-').filter(|s| !s.is_empty()) else {
            break;
        };
        i += 1;
        for (at, c) in shorts.char_indices() {
            seen(Opt::Short(c));
            if short_with_value.contains(&c) {
                // The rest of the word is the value, else the next word is.
                if at + c.len_utf8() == shorts.len() {
                    i += 1;
                }
                break;
            }
        }
    }
    match words.get(i) {
        Some(_) => Ok(i),
        None => Err(last.min(words.len().saturating_sub(1))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(line: &str, skip: usize, read: fn(&[String], usize) -> Command) -> Command {
        let words: Vec<String> = line.split(' ').map(str::to_owned).collect();
        read(&words, skip)
    }

    #[test]
    fn uv_runs_options_as_uv_reads_them() {
        // Each line checked with uv 0.13.9 itself (`uv run ... python3 -c 'print(sys.argv)'`
        // and `-m` of a module printing its `sys.argv`).
        for (line, want) in [
            (
                "uv run --frozen --no-sync python3 -m x",
                Command::Program(4),
            ),
            ("uv run python3", Command::Program(2)),
            (
                "uv run --extra vllm --extra megatron python3",
                Command::Program(6),
            ),
            ("uv run --with=ray -p 3.12 -- python3", Command::Program(6)),
            (
                "uv run -p/usr/bin/python3 -m verl.trainer.main_ppo",
                Command::Module(4),
            ),
            (
                "uv run -qmp /usr/bin/python3 --no-project mod",
                Command::Module(5),
            ),
            (
                "uv run --module verl.trainer.main_ppo a=1",
                Command::Module(3),
            ),
            ("uv run train.py", Command::Program(2)),
        ] {
            assert_eq!(after(line, 2, uv_run_command), want, "{line}");
        }
        for (line, last) in [
            ("uv run", 1),
            ("uv run --frozen", 2),
            ("uv run --python", 2),
            ("uv run -p", 2),
            ("uv run --", 2),
        ] {
            assert_eq!(
                after(line, 2, uv_run_command),
                Command::Missing(last),
                "{line}"
            );
        }
    }

    #[test]
    fn sruns_options_as_its_man_page_gives_them() {
        for (line, want) in [
            // verl's Slurm example.
            ("srun --overlap --nodes=1 --ntasks=1 -w node1 python3", 6),
            ("srun -N 2 -n2 --gres gpu:8 --exclusive python3", 7),
            ("srun --exclusive=user -lK python3", 3),
            (
                "srun --container-image=x.sqsh --container-mounts=/a:/a python3",
                3,
            ),
            ("srun -- python3", 2),
            ("srun python3", 1),
        ] {
            assert_eq!(
                after(line, 1, srun_command),
                Command::Program(want),
                "{line}"
            );
        }
        assert_eq!(after("srun -w", 1, srun_command), Command::Missing(1));
    }

    #[test]
    fn docker_execs_options_and_container() {
        for (line, want) in [
            ("docker exec box python3", Command::Program(3)),
            (
                "docker exec -it -e A=1 --workdir /w -u0 box python3",
                Command::Program(9),
            ),
            ("docker exec --env=A=1 box python3", Command::Program(4)),
            ("docker exec -e A=1", Command::Missing(2)),
            ("docker exec box", Command::Missing(2)),
        ] {
            assert_eq!(after(line, 2, docker_exec_command), want, "{line}");
        }
    }
}
