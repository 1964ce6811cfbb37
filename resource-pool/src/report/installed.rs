//! verl as installed: the probe (`resource_pool/_verl_probe.py`) run in the Python a user
//! names, and its answer put in place of the offline reading ([`VerlLoad::use_installed`]).
//! The command (`--python`) and the Python module (`rp.verl.check` where verl imports)
//! both run this.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use resource_pool_core::model::ResourcePool;
use resource_pool_verl::VerlDiagnostic;
use resource_pool_verl::installed::{InstalledDiagnostic, ProbeAnswer, ProbeOutcome, ProbeRequest};
use resource_pool_verl::launch::Launch as LaunchLine;
use resource_pool_verl::releases::{ReleaseRules, oldest};
use resource_pool_verl::version::rules_for;

use super::Finding;
use super::verl_launch::VerlLoad;

/// How long the probe may take: importing verl (torch with it) takes seconds, a slow
/// disk tens of them.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(300);

/// The most of the probe's stderr kept for an error: its end, where Python's traceback is.
const STDERR_KEPT: usize = 4096;

/// Why the probe gave no answer.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ProbeError {
    /// The Python cannot be started.
    #[error("cannot run {python}: {error}")]
    #[diagnostic(
        code(resource_pool::verl::installed::cannot_run),
        help("name the Python of verl's environment: `--python .venv/bin/python`")
    )]
    CannotRun {
        /// The Python.
        python: String,
        /// The system's error.
        error: String,
    },
    /// The probe ran past its time.
    #[error("{python} gave no answer in {seconds} s; stopped")]
    #[diagnostic(
        code(resource_pool::verl::installed::timed_out),
        help(
            "something in the entry point's start-up waits (a network path, a lock); the guard checks the launch live"
        )
    )]
    TimedOut {
        /// The Python.
        python: String,
        /// The time allowed.
        seconds: u64,
    },
    /// The probe ended without an answer.
    #[error("{python} ended ({status}) without an answer: {stderr}")]
    #[diagnostic(
        code(resource_pool::verl::installed::no_answer),
        help("run the line with that Python to see why it stops")
    )]
    NoAnswer {
        /// The Python.
        python: String,
        /// Its exit status.
        status: String,
        /// The end of its stderr.
        stderr: String,
    },
}

/// Runs `script` (the probe's text) with `python` in the current folder, asking `request`;
/// stops it after `timeout`.
pub fn run_probe(
    python: &Path,
    script: &str,
    request: &ProbeRequest,
    timeout: Duration,
) -> Result<ProbeAnswer, ProbeError> {
    let shown = python.display().to_string();
    let request = serde_json::to_string(request).unwrap_or_default();
    let mut child = Command::new(python)
        .arg("-c")
        .arg(script)
        .arg(request)
        // Never a download: a model not on this machine is a stand-in (see the probe).
        .env("HF_HUB_OFFLINE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| ProbeError::CannotRun {
            python: shown.clone(),
            error: error.to_string(),
        })?;
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(ProbeError::TimedOut {
                    python: shown,
                    seconds: timeout.as_secs(),
                });
            }
        }
    };
    let out = stdout.join().unwrap_or_default();
    let err = stderr.join().unwrap_or_default();
    let answer = String::from_utf8_lossy(&out);
    let last = answer.lines().rev().find(|l| !l.trim().is_empty());
    match last.map(serde_json::from_str::<ProbeAnswer>) {
        Some(Ok(answer)) => Ok(answer),
        _ => Err(ProbeError::NoAnswer {
            python: shown,
            status: status.to_string(),
            stderr: tail(&err),
        }),
    }
}

/// Reads a pipe to its end on a thread of its own, so that neither pipe fills up.
fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}

/// The offline reader's notice that a line is not judged offline: answered here.
fn is_offline_notice(diagnostic: &VerlDiagnostic) -> bool {
    miette::Diagnostic::code(diagnostic).is_some_and(|c| c.to_string().ends_with("not_judged"))
}

/// The end of a process's stderr, at a line's start.
fn tail(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end();
    if text.len() <= STDERR_KEPT {
        return text.to_owned();
    }
    let mut start = text.len() - STDERR_KEPT;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let cut = &text[start..];
    cut.split_once('\n')
        .map_or(cut, |(_, rest)| rest)
        .to_owned()
}

/// What the installed verl answered, as [`VerlLoad`] keeps it.
pub struct Installed {
    /// The Python named.
    pub python: String,
    /// The answer.
    pub answer: ProbeAnswer,
    /// The pools verl built, when it got as far.
    pub built: Option<BuiltLayout>,
}

/// The pools the installed verl built, and its roles by verl's names.
pub struct BuiltLayout {
    /// The pools, in `resource_pool_spec`'s order.
    pub pools: Vec<ResourcePool>,
    /// Each role and its pool.
    pub mapping: Vec<(&'static str, String)>,
}

impl Installed {
    /// `verl 0.9.1 of PYTHON built (at main_ppo.py:190, init_resource_pool_mgr)`: who
    /// built the pools, for the heading.
    pub fn who(&self) -> String {
        let version = self.answer.version().unwrap_or("?");
        let at = (self.answer.built_at.as_deref())
            .map(|at| format!(" at {}", short_place(at)))
            .unwrap_or_default();
        format!("verl {version} of {} built{at}", self.python)
    }

    /// The JSON output's `installed` object: the Python, verl's version and folder, the
    /// entry point's Hydra main, where the pools were built, the stand-in models.
    pub fn json(&self) -> serde_json::Value {
        let a = &self.answer;
        serde_json::json!({
            "python": self.python,
            "outcome": a.outcome,
            "verl": a.verl,
            "hydra": a.hydra,
            "built_at": a.built_at,
            "stand_in_model_for": a.stand_in_model_for,
            "max_colocate_count": a.max_colocate_count,
        })
    }
}

/// `…/verl/trainer/main_ppo.py:190 (init_resource_pool_mgr)` from the package folder on.
fn short_place(place: &str) -> &str {
    ["/verl/", "/recipe/"]
        .iter()
        .filter_map(|root| place.rfind(root).map(|i| &place[i + 1..]))
        .min_by_key(|rest| rest.len())
        .unwrap_or(place)
}

impl VerlLoad {
    /// Runs the probe (`script`) with `python` on `launch` and puts its answer in place of
    /// the offline reading ([`VerlLoad::use_installed`]), returning the installed release's
    /// rules; the error when the probe gave no answer.
    pub fn probe_installed(
        &mut self,
        python: &Path,
        script: &str,
        launch: &LaunchLine,
    ) -> Result<ReleaseRules, ProbeError> {
        let request = ProbeRequest::of(launch);
        let answer = run_probe(python, script, &request, PROBE_TIMEOUT)?;
        Ok(self.use_installed(answer, &python.display().to_string(), launch))
    }

    /// Puts what the installed verl built (`answer`, from `python`) in place of the
    /// offline reading: Hydra judged the keys, so only the line's own findings (launchers,
    /// the shell, the job's cluster) stay; the pools are verl's. Returns the rules of the
    /// installed release (the oldest known, said, for one older than every release known).
    pub fn use_installed(
        &mut self,
        answer: ProbeAnswer,
        python: &str,
        launch: &LaunchLine,
    ) -> ReleaseRules {
        let source = self.source.clone();
        self.findings = (self.loaded.diagnostics.iter())
            .filter(|d| matches!(d, VerlDiagnostic::Launch(_)) && !is_offline_notice(d))
            .cloned()
            .map(|d| Finding::in_file(d, &source))
            .collect();
        let base = self.loaded.settings.space.command_line_base();
        let entry = (launch.entry.as_ref()).map(|e| e.span.start + base..e.span.end + base);
        let mut rules = ReleaseRules::newest();
        let mut built = None;
        // The offline reading's layout gives way to verl's own, or to none.
        self.loaded.layout = None;
        if let Some(stop) = answer.stop(python, entry) {
            self.findings.push(Finding::in_file(stop, &source));
        } else {
            let (mapping, unknown) = answer.mapping();
            if !unknown.is_empty() {
                let roles = unknown;
                self.findings
                    .push(Finding::bare(InstalledDiagnostic::UnknownRoles { roles }));
            }
            built = Some(BuiltLayout {
                pools: answer.pools(),
                mapping,
            });
            rules = self.installed_rules(&answer);
        }
        self.installed = Some(Installed {
            python: python.to_owned(),
            answer,
            built,
        });
        rules
    }

    /// The rules of the installed release, saying when they stand in for another.
    fn installed_rules(&mut self, answer: &ProbeAnswer) -> ReleaseRules {
        let version = answer.version().unwrap_or_default();
        match rules_for(Some(version)) {
            Ok((rules, approximated)) => {
                self.note_release(approximated);
                rules
            }
            Err(_) => {
                let assumed = oldest();
                self.findings
                    .push(Finding::bare(InstalledDiagnostic::ReleaseNotKnown {
                        version: version.to_owned(),
                        assumed: assumed.version,
                    }));
                ReleaseRules {
                    release: assumed,
                    assumed: true,
                }
            }
        }
    }

    /// Whether verl got as far as its pools, where a probe ran.
    pub fn installed_built(&self) -> Option<bool> {
        let installed = self.installed.as_ref()?;
        Some(installed.answer.outcome == ProbeOutcome::Built)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_of_stderr_starts_at_a_line() {
        let long = format!("{}\nTraceback\nValueError: x", "a".repeat(STDERR_KEPT * 2));
        let kept = tail(long.as_bytes());
        assert_eq!(kept, "Traceback\nValueError: x");
        assert_eq!(tail(b"short\n"), "short");
    }

    #[test]
    fn a_python_that_does_not_exist_is_said() {
        let request = ProbeRequest {
            entry: resource_pool_verl::installed::ProbeEntry::Module("m".into()),
            args: vec![],
        };
        let error = run_probe(
            Path::new("/nonexistent/python"),
            "",
            &request,
            Duration::from_secs(5),
        )
        .unwrap_err();
        assert!(matches!(error, ProbeError::CannotRun { .. }), "{error}");
    }
}
