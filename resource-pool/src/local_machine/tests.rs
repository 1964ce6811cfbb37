use std::collections::HashMap;

use resource_pool_core::model::Amount;
use resource_pool_inventory::InventoryNote;

use super::*;

const MEMINFO: &str = include_str!("../../tests/data/local/meminfo.txt");
const H100: &str = include_str!("../../tests/data/local/nvidia-smi-8xh100.csv");

type Answer = fn() -> Result<Option<String>, LocalToolError>;

/// Recorded answers by program; absent programs are not installed.
struct Recorded(HashMap<&'static str, Answer>);

impl CommandRunner for Recorded {
    fn run(&self, program: &str, _args: &[&str]) -> Result<Option<String>, LocalToolError> {
        match self.0.get(program) {
            Some(answer) => answer(),
            None => Ok(None),
        }
    }
}

fn machine(recorded: Recorded) -> LocalMachine<Recorded> {
    LocalMachine::new(recorded)
        .with_meminfo_text(MEMINFO)
        .with_hostname("node-a")
        .with_cpus(64)
}

#[test]
fn nothing_installed_is_zero_gpus_and_says_so() {
    let inventory = machine(Recorded(HashMap::new())).load().expect("loads");
    let node = &inventory.cluster.nodes[0];
    assert_eq!(node.id, "node-a");
    assert_eq!(node.available.get("GPU"), Amount::ZERO);
    assert_eq!(
        node.available.get("CPU"),
        Amount::from_whole(64).unwrap_or_default()
    );
    assert!(matches!(
        inventory.notes.as_slice(),
        [InventoryNote::NoLocalAccelerators { .. }]
    ));
}

#[test]
fn recorded_gpus() {
    let mut answers: HashMap<_, Answer> = HashMap::new();
    answers.insert("nvidia-smi", || Ok(Some(H100.to_owned())));
    let inventory = machine(Recorded(answers)).load().expect("loads");
    assert_eq!(
        inventory.cluster.nodes[0].available.get("GPU"),
        Amount::from_whole(8).unwrap_or_default()
    );
    assert!(inventory.notes.is_empty());
}

#[test]
fn a_failing_tool_and_malformed_meminfo_are_all_reported() {
    let mut answers: HashMap<_, Answer> = HashMap::new();
    answers.insert("nvidia-smi", || {
        Err(LocalToolError::Failed {
            command: "nvidia-smi".into(),
            status: "exit status 9".into(),
            stderr: "NVIDIA-SMI has failed".into(),
        })
    });
    answers.insert("npu-smi", || Ok(Some("NPU ID : x\n".into())));
    let errors = LocalMachine::new(Recorded(answers))
        .with_meminfo_text("MemTotal: 1 kB\n")
        .load()
        .expect_err("fails");
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(matches!(
        errors[0],
        LocalMachineError::Tool(LocalToolError::Failed { .. })
    ));
    let LocalMachineError::Output { output, error } = &errors[1] else {
        panic!("{errors:?}");
    };
    assert_eq!(output.name(), "npu-smi info -l");
    assert!(matches!(error, LocalError::NpuSmi { .. }));
    assert!(matches!(
        &errors[2],
        LocalMachineError::Output {
            error: LocalError::Meminfo { .. },
            ..
        }
    ));
}

#[test]
fn as_an_inventory_source_one_alive_node_or_every_problem_in_one() {
    let source: &dyn InventorySource = &machine(Recorded(HashMap::new()));
    assert_eq!(source.name(), "this machine (node-a)");
    let inventory = source.load().expect("loads");
    assert_eq!(inventory.cluster.nodes.len(), 1);
    assert!(inventory.cluster.nodes[0].alive);

    let mut answers: HashMap<_, Answer> = HashMap::new();
    answers.insert("npu-smi", || Ok(Some("NPU ID : x\n".into())));
    let broken = LocalMachine::new(Recorded(answers)).with_meminfo_text("MemTotal: 1 kB\n");
    let error = InventorySource::load(&broken).expect_err("fails");
    let diagnostic = error.as_diagnostic();
    let code = diagnostic.code().map(|c| c.to_string());
    assert_eq!(
        code.as_deref(),
        Some("resource_pool::local::unreadable_machine")
    );
    let related: Vec<_> = diagnostic.related().into_iter().flatten().collect();
    assert_eq!(related.len(), 2);
    // Each problem shows its own output.
    assert!(related.iter().all(|d| d.source_code().is_some()));
    let npu = related[0].code().map(|c| c.to_string());
    assert_eq!(npu.as_deref(), Some("resource_pool::local::npu_smi"));
}

/// A shell script in a fresh directory, for the real runner.
fn script(name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!(
        "resource-pool-runner-{}-{name}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    dir
}

#[test]
fn real_runner_not_installed_is_none() {
    let runner = ProcessRunner::new().with_path("/nonexistent");
    assert!(matches!(runner.run("nvidia-smi", &[]), Ok(None)));
}

#[test]
fn real_runner_reads_stdout() {
    let dir = script("prints", "echo \"0, NVIDIA L4, GPU-1, 23034\"");
    let runner = ProcessRunner::new().with_path(format!("{}:/usr/bin:/bin", dir.display()));
    let out = runner.run("prints", &["--query-gpu=index"]).expect("runs");
    assert_eq!(out.as_deref(), Some("0, NVIDIA L4, GPU-1, 23034\n"));
}

#[test]
fn real_runner_exit_1_keeps_stderr() {
    let dir = script("fails", "echo 'No devices were found' >&2; exit 6");
    let runner = ProcessRunner::new().with_path(format!("{}:/usr/bin:/bin", dir.display()));
    let error = runner.run("fails", &[]).expect_err("fails");
    assert_eq!(
        error.to_string(),
        "`fails` failed (exit status 6): No devices were found"
    );
}

#[test]
fn real_runner_kills_at_the_timeout() {
    // `sleep` runs as a grandchild that keeps stdout open after its parent is killed.
    let dir = script("hangs", "sleep 3; echo late");
    let runner = ProcessRunner::new()
        .with_path(format!("{}:/usr/bin:/bin", dir.display()))
        .with_timeout(Duration::from_millis(300));
    let start = Instant::now();
    let error = runner.run("hangs", &[]).expect_err("times out");
    assert!(matches!(error, LocalToolError::Timeout { .. }), "{error:?}");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn real_runner_bounds_output() {
    let dir = script("floods", "exec yes 0123456789");
    let runner = ProcessRunner::new()
        .with_path(format!("{}:/usr/bin:/bin", dir.display()))
        .with_max_output_bytes(4096);
    let error = runner.run("floods", &[]).expect_err("too much");
    assert!(matches!(error, LocalToolError::Output { .. }), "{error:?}");
}
