//! Launchers that take options of their own before the command they run: `uv run` (verl's
//! example scripts launch `uv run --frozen --no-sync python3 -m verl.trainer.main_ppo`),
//! Slurm's `srun` (verl's Slurm example: `srun --overlap --nodes=1 --ntasks=1 -w
//! "$head_node" python3 -m verl.trainer.main_ppo`), and the container launchers Slurm and
//! cluster scripts run verl in: `docker run`/`exec`, `podman run`/`exec` and `apptainer
//! exec`/`run` (`singularity exec`/`run`), whose options are followed by the image or
//! container, then the command; their programs' own options may stand before the
//! subcommand (`apptainer -s exec`). They read their options as getopt, clap and Go's
//! pflag do: `--name VALUE`
//! or `--name=VALUE`, short options run together (`-it`), a short option's value attached or
//! the next word (`-p3.12`, `-w node1`), `--` before the positional words, and the first
//! word that is no option ends them. An option whose value is optional takes it only
//! attached (`--exclusive=user`, `--rm=false`). Each launcher's options that take a value
//! are a table (`launcher_options`) read from its own help.

use super::launcher_options::*;

/// A launcher with options of its own.
#[derive(Debug)]
pub(super) struct Launcher {
    /// Its program and subcommand, if any (`["docker", "run"]`, `["srun"]`).
    pub(super) words: &'static [&'static str],
    /// How a line runs a command with it, as help text names it.
    pub(super) usage: &'static str,
    /// The program's own options before its subcommand that take a value (`docker -H HOST
    /// run`, `apptainer -c FILE exec`).
    pub(super) program_long_with_value: &'static [&'static str],
    pub(super) program_short_with_value: &'static [char],
    /// The options after the subcommand (or the program) that take a value: one table, or
    /// another's and some of its own (`apptainer run`: `exec`'s and `--runscript-timeout`).
    pub(super) long_with_value: &'static [&'static [&'static str]],
    pub(super) short_with_value: &'static [char],
    /// Whether an image or container stands between its options and the command.
    container: bool,
    /// Options after which no container stands: the command follows the options
    /// (`podman exec --latest`, the container podman made last).
    no_container: &'static [Opt<'static>],
    /// Flags after which the first word names a Python module (`uv run -m MODULE`).
    module: &'static [Opt<'static>],
}

/// The launchers understood, each with its option tables.
pub(super) const LAUNCHERS: &[Launcher] = &[
    Launcher {
        words: &["uv", "run"],
        usage: "uv run [options] COMMAND",
        program_long_with_value: UV_RUN_LONG,
        program_short_with_value: UV_RUN_SHORT,
        long_with_value: &[UV_RUN_LONG],
        short_with_value: UV_RUN_SHORT,
        container: false,
        no_container: &[],
        module: &[Opt::Long("module"), Opt::Short('m')],
    },
    Launcher {
        words: &["srun"],
        usage: "srun [options] COMMAND",
        program_long_with_value: &[],
        program_short_with_value: &[],
        long_with_value: &[SRUN_LONG],
        short_with_value: SRUN_SHORT,
        container: false,
        no_container: &[],
        module: &[],
    },
    Launcher {
        words: &["docker", "run"],
        usage: "docker run [options] IMAGE COMMAND",
        program_long_with_value: DOCKER_LONG,
        program_short_with_value: DOCKER_SHORT,
        long_with_value: &[DOCKER_RUN_LONG],
        short_with_value: DOCKER_RUN_SHORT,
        container: true,
        no_container: &[],
        module: &[],
    },
    Launcher {
        words: &["docker", "exec"],
        usage: "docker exec [options] CONTAINER COMMAND",
        program_long_with_value: DOCKER_LONG,
        program_short_with_value: DOCKER_SHORT,
        long_with_value: &[DOCKER_EXEC_LONG],
        short_with_value: DOCKER_EXEC_SHORT,
        container: true,
        no_container: &[],
        module: &[],
    },
    Launcher {
        words: &["podman", "run"],
        usage: "podman run [options] IMAGE COMMAND",
        program_long_with_value: PODMAN_LONG,
        program_short_with_value: PODMAN_SHORT,
        long_with_value: &[PODMAN_RUN_LONG],
        short_with_value: PODMAN_RUN_SHORT,
        container: true,
        no_container: &[],
        module: &[],
    },
    Launcher {
        words: &["podman", "exec"],
        usage: "podman exec [options] CONTAINER COMMAND",
        program_long_with_value: PODMAN_LONG,
        program_short_with_value: PODMAN_SHORT,
        long_with_value: &[PODMAN_EXEC_LONG],
        short_with_value: PODMAN_EXEC_SHORT,
        container: true,
        no_container: &[Opt::Long("latest"), Opt::Short('l')],
        module: &[],
    },
    APPTAINER_EXEC,
    // Apptainer installs `singularity` as another name of itself.
    Launcher {
        words: &["singularity", "exec"],
        usage: "singularity exec [options] IMAGE COMMAND",
        ..APPTAINER_EXEC
    },
    APPTAINER_RUN,
    Launcher {
        words: &["singularity", "run"],
        usage: "singularity run [options] IMAGE COMMAND",
        ..APPTAINER_RUN
    },
];

/// `apptainer exec`, whose fields `singularity exec` and `apptainer run` share.
const APPTAINER_EXEC: Launcher = Launcher {
    words: &["apptainer", "exec"],
    usage: "apptainer exec [options] IMAGE COMMAND",
    program_long_with_value: APPTAINER_LONG,
    program_short_with_value: APPTAINER_SHORT,
    long_with_value: &[APPTAINER_EXEC_LONG],
    short_with_value: APPTAINER_EXEC_SHORT,
    container: true,
    no_container: &[],
    module: &[],
};

/// `apptainer run`: `exec`'s options and `--runscript-timeout`. It hands the words after the
/// image to the image's runscript: one built from a Docker image without an entrypoint, or
/// with one that runs its arguments (NVIDIA's images, verl's), runs them as the command.
const APPTAINER_RUN: Launcher = Launcher {
    words: &["apptainer", "run"],
    usage: "apptainer run [options] IMAGE COMMAND",
    long_with_value: &[APPTAINER_EXEC_LONG, APPTAINER_RUN_ONLY_LONG],
    ..APPTAINER_EXEC
};

/// The launcher that starts at `words[i]`, and where its own options start: after its
/// program (by name or path: `/opt/singularity/bin/singularity`), the program's own options
/// and its subcommand (`apptainer -s exec`, `docker -H HOST run`).
pub(super) fn launcher_at(words: &[String], i: usize) -> Option<(&'static Launcher, usize)> {
    let program = words.get(i)?;
    let name = super::program_name(program);
    LAUNCHERS
        .iter()
        .filter(|l| l.words[0] == name)
        .find_map(|l| {
            let Some(subcommand) = l.words.get(1) else {
                return Some((l, i + 1));
            };
            let at = options_end(
                words,
                i + 1,
                &[l.program_long_with_value],
                l.program_short_with_value,
                |_| {},
            )
            .ok()?;
            (words[at] == *subcommand).then_some((l, at + 1))
        })
}

/// What follows a launcher's options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Command {
    /// The command's first word (a program: `python3`, a script).
    Program(usize),
    /// `uv run -m`/`--module`: the word that names the module.
    Module(usize),
    /// The line ends inside the launcher's options or before its command: on the last
    /// word read.
    Missing(usize),
}

/// What follows `launcher`'s options (and its container), from `words[i]` (the word after
/// the launcher's own words).
pub(super) fn command_after(launcher: &Launcher, words: &[String], i: usize) -> Command {
    let (mut module, mut container) = (false, launcher.container);
    let end = options_end(
        words,
        i,
        launcher.long_with_value,
        launcher.short_with_value,
        |option| {
            module |= launcher.module.contains(&option);
            container &= !launcher.no_container.contains(&option);
        },
    );
    match end {
        Ok(at) if module => Command::Module(at),
        Ok(at) if !container => Command::Program(at),
        Ok(at) if at + 1 < words.len() => Command::Program(at + 1),
        Ok(at) => Command::Missing(at),
        Err(last) => Command::Missing(last),
    }
}

/// An option as written, its value aside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Opt<'w> {
    Long(&'w str),
    Short(char),
}

/// Where the options from `words[i]` end: the command's first word, or (when the line
/// ends first) the last word read. `seen` is told of each option.
fn options_end<'w>(
    words: &'w [String],
    mut i: usize,
    long_with_value: &[&[&str]],
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
            i += if !attached && long_with_value.iter().any(|t| t.contains(&name)) {
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

    /// What follows the launcher that starts `line`.
    fn after(line: &str) -> Command {
        let words: Vec<String> = line.split(' ').map(str::to_owned).collect();
        let (launcher, start) = launcher_at(&words, 0).expect(line);
        command_after(launcher, &words, start)
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
            assert_eq!(after(line), want, "{line}");
        }
        for (line, last) in [
            ("uv run", 1),
            ("uv run --frozen", 2),
            ("uv run --python", 2),
            ("uv run -p", 2),
            ("uv run --", 2),
        ] {
            assert_eq!(after(line), Command::Missing(last), "{line}");
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
            assert_eq!(after(line), Command::Program(want), "{line}");
        }
        assert_eq!(after("srun -w"), Command::Missing(1));
    }

    #[test]
    fn container_launchers_take_an_image_unless_told_otherwise() {
        for (line, want) in [
            ("docker exec box python3", Command::Program(3)),
            (
                "docker exec -it -e A=1 --workdir /w -u0 box python3",
                Command::Program(9),
            ),
            ("docker exec --env=A=1 box python3", Command::Program(4)),
            ("docker exec -e A=1", Command::Missing(2)),
            ("docker exec box", Command::Missing(2)),
            ("docker run --gpus all -it img python3", Command::Program(6)),
            ("docker run -- img python3", Command::Program(4)),
            (
                "apptainer exec --nv -B/d img.sif python3",
                Command::Program(5),
            ),
            (
                "singularity exec -eB /d img.sif python3",
                Command::Program(5),
            ),
            // `--latest`: the container podman made last, so no container word.
            ("podman exec --latest python3", Command::Program(3)),
            ("podman exec -itl python3", Command::Program(3)),
            ("podman exec -l", Command::Missing(2)),
            ("docker run --rm img", Command::Missing(3)),
            ("apptainer exec --bind", Command::Missing(2)),
            // The program's own options before its subcommand, and a program by its path.
            (
                "docker -H tcp://h:2375 run img python3",
                Command::Program(5),
            ),
            (
                "/opt/singularity/bin/singularity -s exec --nv img.sif python3",
                Command::Program(5),
            ),
            (
                "apptainer --debug -c a.conf run img.sif python3",
                Command::Program(6),
            ),
        ] {
            assert_eq!(after(line), want, "{line}");
        }
        // A second word that is no launcher's: not a launcher (`docker build`, also after
        // the program's options).
        for line in [
            "docker build",
            "docker -H h build",
            "apptainer -s",
            "podman",
        ] {
            let words: Vec<String> = line.split(' ').map(str::to_owned).collect();
            assert!(launcher_at(&words, 0).is_none(), "{line}");
        }
    }
}
