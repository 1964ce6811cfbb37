//! This machine as a one-node cluster: asks NVML for the NVIDIA GPUs ([`crate::nvml_gpus`];
//! `nvidia-smi` when NVML cannot answer), runs `npu-smi`, reads `/proc/meminfo`, the
//! hostname and the CPU count, and hands the text to
//! [`resource_pool_inventory::local`].
//!
//! The tools are run through a [`CommandRunner`], so that tests give recorded outputs. A
//! tool that is not installed (the spawn fails with `NotFound`) means that accelerator is
//! absent; a tool that fails, hangs past the timeout (10 s) or prints more than the limit
//! (1 MiB) is a [`LocalToolError`]. `/proc/meminfo` is read from the path in
//! `RESOURCE_POOL_PROC_MEMINFO` when that is set (for tests), else from `/proc/meminfo`.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use resource_pool_core::source::{ReadLimits, SourceFile};
use resource_pool_inventory::local::{
    LocalError, LocalFacts, NPU_SMI_ARGS, NVIDIA_SMI_ARGS, local_inventory, parse_meminfo,
    parse_npu_smi, parse_nvidia_smi,
};
use resource_pool_inventory::{Inventory, InventoryError, InventorySource};

use crate::nvml_gpus::NvmlLibrary;

/// The environment variable that names a file to read in place of `/proc/meminfo`.
pub const MEMINFO_PATH_VAR: &str = "RESOURCE_POOL_PROC_MEMINFO";

/// Runs a program and returns what it printed on stdout.
pub trait CommandRunner {
    /// `Ok(None)` when the program is not installed; an error when it fails, hangs or
    /// prints too much.
    fn run(&self, program: &str, args: &[&str]) -> Result<Option<String>, LocalToolError>;
}

/// Why a tool gave no output to read.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum LocalToolError {
    /// It could not be started (other than not being installed).
    #[error("cannot run `{program}`: {reason}")]
    #[diagnostic(
        code(resource_pool::local::spawn),
        help("check that `{program}` on PATH is executable")
    )]
    Spawn {
        /// The program run (`nvidia-smi`, `npu-smi`).
        program: String,
        /// What the OS said.
        reason: String,
    },
    /// It exited with a failure.
    #[error("`{command}` failed ({status}){}", stderr_suffix(.stderr))]
    #[diagnostic(
        code(resource_pool::local::tool_failed),
        help(
            "run `{command}` yourself: a driver that is not loaded or does not match its library makes it fail"
        )
    )]
    Failed {
        /// The command line.
        command: String,
        /// Its exit status.
        status: String,
        /// The start of what it printed on stderr.
        stderr: String,
    },
    /// It did not end within the timeout, and was killed.
    #[error("`{command}` did not finish within {seconds} s; it was killed")]
    #[diagnostic(
        code(resource_pool::local::timeout),
        help("a hung driver makes `{command}` hang; check `dmesg` and the driver's state")
    )]
    Timeout {
        /// The command line.
        command: String,
        /// The timeout.
        seconds: u64,
    },
    /// It printed more than the limit, or not UTF-8.
    #[error("`{command}` printed {what}")]
    #[diagnostic(
        code(resource_pool::local::output),
        help("run `{command}` yourself and check what it prints")
    )]
    Output {
        /// The command line.
        command: String,
        /// `more than 1048576 bytes`, `bytes that are not UTF-8`.
        what: String,
    },
    /// A file of the machine could not be read.
    #[error("cannot read `{path}`: {reason}")]
    #[diagnostic(
        code(resource_pool::local::unreadable),
        help("--local reads Linux's /proc/meminfo; on other systems use --cluster")
    )]
    Unreadable {
        /// The file's path, as given.
        path: String,
        /// What the OS said.
        reason: String,
    },
}

fn stderr_suffix(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!(": {stderr}")
    }
}

/// Why this machine's inventory could not be built: a tool failed, or its output does not
/// read (with the output, for the label's snippet).
#[derive(Debug)]
pub enum LocalMachineError {
    /// A tool failed or a file could not be read.
    Tool(LocalToolError),
    /// A tool's output (or `/proc/meminfo`) is malformed; `output` is the text it is in.
    Output {
        /// What is wrong, with a span into `output`.
        error: LocalError,
        /// The output, named after the command that printed it.
        output: SourceFile,
    },
}

impl std::fmt::Display for LocalMachineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LocalMachineError::Tool(error) => std::fmt::Display::fmt(error, f),
            LocalMachineError::Output { error, .. } => std::fmt::Display::fmt(error, f),
        }
    }
}

impl std::error::Error for LocalMachineError {}

/// As its problem's data (the output's text is not part of it).
impl serde::Serialize for LocalMachineError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            LocalMachineError::Tool(error) => error.serialize(serializer),
            LocalMachineError::Output { error, .. } => error.serialize(serializer),
        }
    }
}

/// The problem's own diagnostic, shown in the output it is about.
impl miette::Diagnostic for LocalMachineError {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.inner().code()
    }
    fn severity(&self) -> Option<miette::Severity> {
        self.inner().severity()
    }
    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.inner().help()
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        self.inner().labels()
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        match self {
            LocalMachineError::Tool(_) => None,
            LocalMachineError::Output { output, .. } => Some(output),
        }
    }
}

impl LocalMachineError {
    fn inner(&self) -> &dyn miette::Diagnostic {
        match self {
            LocalMachineError::Tool(error) => error,
            LocalMachineError::Output { error, .. } => error,
        }
    }
}

/// Every problem of a probe of this machine, as one diagnostic (what
/// [`InventorySource::load`] returns): each problem is a related diagnostic.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error("this machine's resources could not be read")]
#[diagnostic(
    code(resource_pool::local::unreadable_machine),
    help("fix the problems listed below, or describe the node in a cluster file")
)]
pub struct LocalMachineErrors {
    /// Every problem.
    #[related]
    pub errors: Vec<LocalMachineError>,
}

/// This machine as an inventory source: one node, always alive (it is probed from
/// itself).
impl<R: CommandRunner> InventorySource for LocalMachine<R> {
    fn name(&self) -> String {
        format!(
            "this machine ({})",
            self.hostname.clone().unwrap_or_else(hostname)
        )
    }

    fn load(&self) -> Result<Inventory, InventoryError> {
        LocalMachine::load(self)
            .map_err(|errors| InventoryError::source(LocalMachineErrors { errors }))
    }
}

/// Runs programs with `std::process`: a timeout, bounded output.
#[derive(Clone, Debug)]
pub struct ProcessRunner {
    timeout: Duration,
    max_output_bytes: u64,
    path: Option<std::ffi::OsString>,
}

impl ProcessRunner {
    /// How long a tool may run.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
    /// The most a tool may print on stdout.
    pub const DEFAULT_MAX_OUTPUT_BYTES: u64 = 1024 * 1024;
    /// The most of stderr kept for a message.
    const MAX_STDERR_CHARS: usize = 500;

    /// The default runner.
    pub fn new() -> ProcessRunner {
        ProcessRunner {
            timeout: Self::DEFAULT_TIMEOUT,
            max_output_bytes: Self::DEFAULT_MAX_OUTPUT_BYTES,
            path: None,
        }
    }

    /// Builder: the timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> ProcessRunner {
        self.timeout = timeout;
        self
    }

    /// Builder: the output limit.
    pub fn with_max_output_bytes(mut self, bytes: u64) -> ProcessRunner {
        self.max_output_bytes = bytes;
        self
    }

    /// Builder: the `PATH` programs are looked up in (default: this process's).
    pub fn with_path(mut self, path: impl Into<std::ffi::OsString>) -> ProcessRunner {
        self.path = Some(path.into());
        self
    }
}

impl Default for ProcessRunner {
    fn default() -> ProcessRunner {
        ProcessRunner::new()
    }
}

/// A pipe read to at most `limit` bytes (plus one, to tell "over").
fn read_bounded(pipe: impl Read, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    pipe.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok(bytes)
}

impl CommandRunner for ProcessRunner {
    fn run(&self, program: &str, args: &[&str]) -> Result<Option<String>, LocalToolError> {
        let command = std::iter::once(program)
            .chain(args.iter().copied())
            .collect::<Vec<_>>()
            .join(" ");
        let Some(mut child) = self.spawn(program, args)? else {
            return Ok(None);
        };
        let limit = self.max_output_bytes;
        let stdout_rx = read_stdout(&mut child, limit);
        let stderr_rx = read_stderr_start(&mut child);
        let deadline = Instant::now() + self.timeout;
        let timeout = || LocalToolError::Timeout {
            command: command.clone(),
            seconds: self.timeout.as_secs().max(1),
        };
        // Wait for stdout to close (or to overflow), then for the exit; kill at the deadline.
        // Reader threads of a killed child whose grandchildren hold the pipe are left to end
        // on their own: this never waits on them past the deadline.
        let Some(stdout) = wait_for_stdout(&mut child, &stdout_rx, deadline) else {
            return Err(timeout());
        };
        if stdout.len() as u64 > limit {
            kill(&mut child);
            return Err(LocalToolError::Output {
                command: command.clone(),
                what: format!("more than {limit} bytes"),
            });
        }
        let status = match wait_for_exit(&mut child, deadline) {
            Ok(Some(status)) => status,
            Ok(None) => return Err(timeout()),
            Err(e) => {
                return Err(LocalToolError::Spawn {
                    program: program.to_owned(),
                    reason: e.to_string(),
                });
            }
        };
        if !status.success() {
            return Err(failed(command, status, &stderr_rx, deadline));
        }
        match String::from_utf8(stdout) {
            Ok(text) => Ok(Some(text)),
            Err(_) => Err(LocalToolError::Output {
                command,
                what: "bytes that are not UTF-8".into(),
            }),
        }
    }
}

impl ProcessRunner {
    /// Starts `program` with piped output and no input, on this runner's `PATH`; `None`
    /// when it is not installed.
    fn spawn(&self, program: &str, args: &[&str]) -> Result<Option<Child>, LocalToolError> {
        let mut builder = Command::new(program);
        builder
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(path) = &self.path {
            builder.env("PATH", path);
        }
        match builder.spawn() {
            Ok(child) => Ok(Some(child)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(LocalToolError::Spawn {
                program: program.to_owned(),
                reason: e.to_string(),
            }),
        }
    }
}

/// What a reader thread sends when its pipe closes: the bytes read, or why it failed.
type PipeBytes = mpsc::Receiver<std::io::Result<Vec<u8>>>;

/// Reads the child's stdout on a thread of its own, to at most `limit` bytes (plus one).
fn read_stdout(child: &mut Child, limit: u64) -> PipeBytes {
    let (stdout_tx, stdout_rx) = mpsc::channel();
    if let Some(stdout) = child.stdout.take() {
        std::thread::spawn(move || {
            let _ = stdout_tx.send(read_bounded(stdout, limit));
        });
    }
    stdout_rx
}

/// Reads the start of the child's stderr on a thread of its own, for a failure's message.
fn read_stderr_start(child: &mut Child) -> PipeBytes {
    let (stderr_tx, stderr_rx) = mpsc::channel();
    if let Some(stderr) = child.stderr.take() {
        std::thread::spawn(move || {
            // Keep the start, drain the rest: a chatty tool must not block on a full pipe.
            let mut stderr = stderr;
            let start = read_bounded(&mut stderr, 64 * 1024);
            let _ = std::io::copy(&mut stderr, &mut std::io::sink());
            let _ = stderr_tx.send(start);
        });
    }
    stderr_rx
}

/// What the child printed on stdout, once the pipe closes (or overflows); `None`, the
/// child killed, when the deadline passes first.
fn wait_for_stdout(child: &mut Child, stdout_rx: &PipeBytes, deadline: Instant) -> Option<Vec<u8>> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match stdout_rx.recv_timeout(left.min(Duration::from_millis(20))) {
            Ok(result) => return Some(result.unwrap_or_default()),
            Err(mpsc::RecvTimeoutError::Disconnected) => return Some(Vec::new()),
            Err(mpsc::RecvTimeoutError::Timeout) if left.is_zero() => {
                kill(child);
                return None;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
}

/// The child's exit status; `None`, the child killed, when the deadline passes first.
fn wait_for_exit(child: &mut Child, deadline: Instant) -> std::io::Result<Option<ExitStatus>> {
    loop {
        match child.try_wait()? {
            Some(status) => return Ok(Some(status)),
            None if Instant::now() >= deadline => {
                kill(child);
                return Ok(None);
            }
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    }
}

/// Kills the child and reaps it; it is given up on, so neither can fail usefully.
fn kill(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// The error of a tool that exited with `status`: with the start of its stderr, if the
/// reader sends it before the deadline.
fn failed(
    command: String,
    status: ExitStatus,
    stderr_rx: &PipeBytes,
    deadline: Instant,
) -> LocalToolError {
    let left = deadline.saturating_duration_since(Instant::now());
    let stderr = stderr_rx
        .recv_timeout(left)
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    let stderr: String = String::from_utf8_lossy(&stderr)
        .trim()
        .chars()
        .take(ProcessRunner::MAX_STDERR_CHARS)
        .collect();
    let status = match status.code() {
        Some(code) => format!("exit status {code}"),
        None => status.to_string(),
    };
    LocalToolError::Failed {
        command,
        status,
        stderr,
    }
}

/// This machine: where its facts come from.
pub struct LocalMachine<R> {
    runner: R,
    nvml: NvmlLibrary,
    meminfo: Meminfo,
    hostname: Option<String>,
    cpus: Option<u64>,
    cuda_visible_devices: Option<String>,
    ascend_rt_visible_devices: Option<String>,
}

enum Meminfo {
    Path(PathBuf),
    Text(String),
}

impl LocalMachine<ProcessRunner> {
    /// This machine, as the environment describes it: NVML (or the library
    /// `RESOURCE_POOL_NVML_LIBRARY` names), tools on `PATH`, `/proc/meminfo` (or
    /// `RESOURCE_POOL_PROC_MEMINFO`), `CUDA_VISIBLE_DEVICES` and `ASCEND_RT_VISIBLE_DEVICES`.
    pub fn from_env() -> LocalMachine<ProcessRunner> {
        let mut machine =
            LocalMachine::new(ProcessRunner::new()).with_nvml(NvmlLibrary::from_env());
        if let Some(path) = std::env::var_os(MEMINFO_PATH_VAR).filter(|p| !p.is_empty()) {
            machine.meminfo = Meminfo::Path(path.into());
        }
        machine.cuda_visible_devices = std::env::var("CUDA_VISIBLE_DEVICES").ok();
        machine.ascend_rt_visible_devices = std::env::var("ASCEND_RT_VISIBLE_DEVICES").ok();
        machine
    }
}

impl<R: CommandRunner> LocalMachine<R> {
    /// This machine with tools run by `runner`; NVML not used, no `*_VISIBLE_DEVICES`
    /// set, the hostname and CPU count of the OS, `/proc/meminfo`.
    pub fn new(runner: R) -> LocalMachine<R> {
        LocalMachine {
            runner,
            nvml: NvmlLibrary::Off,
            meminfo: Meminfo::Path("/proc/meminfo".into()),
            hostname: None,
            cpus: None,
            cuda_visible_devices: None,
            ascend_rt_visible_devices: None,
        }
    }

    /// Builder: where NVML is loaded from (not used by default).
    pub fn with_nvml(mut self, nvml: NvmlLibrary) -> LocalMachine<R> {
        self.nvml = nvml;
        self
    }

    /// Builder: `/proc/meminfo`'s text.
    pub fn with_meminfo_text(mut self, text: impl Into<String>) -> LocalMachine<R> {
        self.meminfo = Meminfo::Text(text.into());
        self
    }

    /// Builder: the hostname.
    pub fn with_hostname(mut self, hostname: impl Into<String>) -> LocalMachine<R> {
        self.hostname = Some(hostname.into());
        self
    }

    /// Builder: the CPU count.
    pub fn with_cpus(mut self, cpus: u64) -> LocalMachine<R> {
        self.cpus = Some(cpus);
        self
    }

    /// Builder: `CUDA_VISIBLE_DEVICES` and `ASCEND_RT_VISIBLE_DEVICES`.
    pub fn with_visible_devices(
        mut self,
        cuda: Option<String>,
        ascend: Option<String>,
    ) -> LocalMachine<R> {
        self.cuda_visible_devices = cuda;
        self.ascend_rt_visible_devices = ascend;
        self
    }

    /// Reads the machine now; every problem at once.
    pub fn load(&self) -> Result<Inventory, Vec<LocalMachineError>> {
        let mut errors = Vec::new();
        let nvidia = match self.nvml.gpus_within(crate::nvml_gpus::NVML_TIMEOUT) {
            Some(gpus) => Some(Some(gpus)),
            None => self.tool("nvidia-smi", NVIDIA_SMI_ARGS, parse_nvidia_smi, &mut errors),
        };
        let ascend = self.tool("npu-smi", NPU_SMI_ARGS, parse_npu_smi, &mut errors);
        let memory = match self.meminfo_source() {
            Ok(source) => parsed(parse_meminfo(source.text()), &source, &mut errors),
            Err(error) => {
                errors.push(LocalMachineError::Tool(error));
                None
            }
        };
        let (Some(nvidia), Some(ascend), Some(memory)) = (nvidia, ascend, memory) else {
            return Err(errors);
        };
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(local_inventory(&LocalFacts {
            hostname: self.hostname.clone().unwrap_or_else(hostname),
            cpus: self.cpus.unwrap_or_else(cpu_count),
            memory,
            nvidia,
            ascend,
            cuda_visible_devices: self.cuda_visible_devices.clone(),
            ascend_rt_visible_devices: self.ascend_rt_visible_devices.clone(),
        }))
    }

    /// Runs a tool and parses its output: `Some(None)` when it is not installed, `None`
    /// when it failed (the error pushed).
    fn tool<T>(
        &self,
        program: &str,
        args: &[&str],
        parse: impl Fn(&str) -> Result<T, Vec<LocalError>>,
        errors: &mut Vec<LocalMachineError>,
    ) -> Option<Option<T>> {
        match self.runner.run(program, args) {
            Ok(None) => Some(None),
            Ok(Some(text)) => {
                let name = std::iter::once(program)
                    .chain(args.iter().copied())
                    .collect::<Vec<_>>()
                    .join(" ");
                let source = SourceFile::new(name, text);
                parsed(parse(source.text()), &source, errors).map(Some)
            }
            Err(error) => {
                errors.push(LocalMachineError::Tool(error));
                None
            }
        }
    }

    fn meminfo_source(&self) -> Result<SourceFile, LocalToolError> {
        match &self.meminfo {
            Meminfo::Text(text) => Ok(SourceFile::new("/proc/meminfo", text.as_str())),
            Meminfo::Path(path) => SourceFile::read(path, ReadLimits::default()).map_err(|e| {
                LocalToolError::Unreadable {
                    path: path.display().to_string(),
                    reason: e.to_string(),
                }
            }),
        }
    }
}

fn parsed<T>(
    result: Result<T, Vec<LocalError>>,
    source: &SourceFile,
    errors: &mut Vec<LocalMachineError>,
) -> Option<T> {
    match result {
        Ok(value) => Some(value),
        Err(found) => {
            errors.extend(found.into_iter().map(|error| LocalMachineError::Output {
                error,
                output: source.clone(),
            }));
            None
        }
    }
}

/// The hostname: `/proc/sys/kernel/hostname`, else `HOSTNAME`, else `localhost`.
pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "localhost".to_owned())
}

/// The CPUs this process may use, as Rust's standard library counts them.
pub fn cpu_count() -> u64 {
    std::thread::available_parallelism()
        .map(|n| n.get() as u64)
        .unwrap_or(1)
}

#[cfg(test)]
mod tests;
