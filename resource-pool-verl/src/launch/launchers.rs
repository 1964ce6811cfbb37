//! Launchers that take options of their own before the command they run: `uv run` (verl's
//! example scripts launch `uv run --frozen --no-sync python3 -m verl.trainer.main_ppo`),
//! Slurm's `srun` (verl's Slurm example: `srun --overlap --nodes=1 --ntasks=1 -w
//! "$head_node" python3 -m verl.trainer.main_ppo`), and the container launchers Slurm and
//! cluster scripts run verl in: `docker run`/`exec`, `podman run`/`exec` and `apptainer
//! exec`/`run` (`singularity exec`/`run`).
//!
//! Their options are not modelled (each tool has its own, and they change by release):
//! the options, the image or container, and whatever else stands before the command are
//! skipped up to the first word that starts a program the reader reads (Python, a `.py`
//! script, another launcher, a shell given `-c`); `uv run -m MODULE` names a module. When
//! no word does, the launcher runs a command the reader cannot see.

/// A launcher with options of its own.
#[derive(Debug)]
pub(super) struct Launcher {
    /// Its program and subcommand, if any (`["docker", "run"]`, `["srun"]`).
    pub(super) words: &'static [&'static str],
    /// Whether `-m MODULE` / `--module MODULE` among its options runs a module (`uv run`).
    module_flag: bool,
}

const fn launcher(words: &'static [&'static str]) -> Launcher {
    Launcher {
        words,
        module_flag: false,
    }
}

/// The launchers understood.
pub(super) const LAUNCHERS: &[Launcher] = &[
    Launcher {
        module_flag: true,
        ..launcher(&["uv", "run"])
    },
    launcher(&["srun"]),
    launcher(&["docker", "run"]),
    launcher(&["docker", "exec"]),
    launcher(&["podman", "run"]),
    launcher(&["podman", "exec"]),
    launcher(&["apptainer", "exec"]),
    launcher(&["apptainer", "run"]),
    // Apptainer installs `singularity` as another name of itself.
    launcher(&["singularity", "exec"]),
    launcher(&["singularity", "run"]),
];

/// The launcher that starts at `words[i]` (its program by name or by path:
/// `/opt/singularity/bin/singularity`), and where its own words end.
pub(super) fn launcher_at(words: &[String], i: usize) -> Option<(&'static Launcher, usize)> {
    let name = super::program_name(words.get(i)?);
    LAUNCHERS.iter().find_map(|l| {
        let subcommand = (l.words.iter().enumerate().skip(1))
            .all(|(k, sub)| words.get(i + k).is_some_and(|w| w == sub));
        (l.words[0] == name && subcommand).then_some((l, i + l.words.len()))
    })
}

/// What follows a launcher's options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Command {
    /// The command's first word (a program: `python3`, a script, another launcher).
    Program(usize),
    /// `uv run -m`/`--module`: the word that names the module.
    Module(usize),
    /// No word starts a program the reader reads.
    Unseen,
}

/// What follows `launcher`'s own words, from `words[i]`: the first word at which
/// `starts_program` holds, or (`uv run`) the module after `-m`.
pub(super) fn command_after(
    launcher: &Launcher,
    words: &[String],
    i: usize,
    starts_program: impl Fn(usize) -> bool,
) -> Command {
    for j in i..words.len() {
        if launcher.module_flag && matches!(words[j].as_str(), "-m" | "--module") {
            return match words.get(j + 1) {
                Some(_) => Command::Module(j + 1),
                None => Command::Unseen,
            };
        }
        if starts_program(j) {
            return Command::Program(j);
        }
    }
    Command::Unseen
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What follows the launcher that starts `line`, a program being `python3` or `x.py`.
    fn after(line: &str) -> Command {
        let words: Vec<String> = line.split(' ').map(str::to_owned).collect();
        let (launcher, start) = launcher_at(&words, 0).expect(line);
        command_after(launcher, &words, start, |j| {
            words[j] == "python3" || words[j].ends_with(".py")
        })
    }

    #[test]
    fn the_command_is_the_first_program_after_the_launchers_words() {
        for (line, want) in [
            (
                "uv run --frozen --no-sync python3 -m x",
                Command::Program(4),
            ),
            ("uv run --with=ray -p 3.12 -- python3", Command::Program(6)),
            (
                "uv run -p 3.12 -m verl.trainer.main_ppo",
                Command::Module(5),
            ),
            (
                "uv run --module verl.trainer.main_ppo a=1",
                Command::Module(3),
            ),
            ("uv run train.py", Command::Program(2)),
            (
                "srun --overlap --nodes=1 --ntasks=1 -w node1 python3",
                Command::Program(6),
            ),
            (
                "docker exec -it -e A=1 --workdir /w box python3",
                Command::Program(8),
            ),
            (
                "docker run --gpus all -v /d:/d img python3",
                Command::Program(7),
            ),
            (
                "apptainer exec --nv -B/d img.sif python3",
                Command::Program(5),
            ),
            ("podman exec --latest python3", Command::Program(3)),
            // `-m` is a module only for uv (`docker run -m 4g` is memory).
            ("docker run -m 4g img python3", Command::Program(5)),
        ] {
            assert_eq!(after(line), want, "{line}");
        }
        // Nothing the reader reads after it: the command is not seen.
        for line in [
            "uv run --frozen",
            "docker exec box ./train.sh",
            "docker run img",
            "uv run -m",
        ] {
            assert_eq!(after(line), Command::Unseen, "{line}");
        }
    }

    #[test]
    fn a_launcher_is_its_program_then_its_subcommand() {
        let words = |line: &str| line.split(' ').map(str::to_owned).collect::<Vec<_>>();
        let (l, at) = launcher_at(&words("/opt/bin/singularity exec img.sif"), 0).unwrap();
        assert_eq!((l.words, at), (&["singularity", "exec"][..], 2));
        // Another subcommand, or options before it, are not read.
        for line in [
            "docker build",
            "docker -H h run",
            "podman",
            "apptainer -s exec",
        ] {
            assert!(launcher_at(&words(line), 0).is_none(), "{line}");
        }
    }
}
