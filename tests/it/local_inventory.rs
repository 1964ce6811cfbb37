//! `--local`: this machine as a one-node cluster. Fake `nvidia-smi`/`npu-smi` scripts that
//! print recorded outputs from resource-pool-inventory/tests/data/local/ stand first on the child's `PATH`; a fake
//! NVML library (resource-pool-inventory/tests/data/local/fake_nvml.c, built here with `cc`) stands in for
//! `libnvidia-ml.so.1`. Without one, the child is pointed at a library that does not exist,
//! so that a real NVIDIA driver on the test machine stays out of the way.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("resource-pool-inventory/tests/data/local")
        .join(name)
}

/// A directory of fake tools: `(program, shell body)`.
fn fake_tools(test: &str, tools: &[(&str, String)]) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("local-tools-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("tool dir");
    for (program, body) in tools {
        let path = dir.join(program);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("script");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    dir
}

fn prints(file: &str) -> String {
    format!("exec cat '{}'", data(file).display())
}

/// Runs the binary with only `tools` (and /usr/bin:/bin for the scripts) on `PATH`, the
/// recorded meminfo, and no `*_VISIBLE_DEVICES`.
fn run_with(tools: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_resource-pool"));
    command
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env_remove("RAY_ADDRESS")
        .env_remove("CUDA_VISIBLE_DEVICES")
        .env_remove("ASCEND_RT_VISIBLE_DEVICES")
        .env("PATH", format!("{}:/usr/bin:/bin", tools.display()))
        .env("RESOURCE_POOL_PROC_MEMINFO", data("meminfo.txt"))
        .env(
            "RESOURCE_POOL_NVML_LIBRARY",
            "/nonexistent/libnvidia-ml.so.1",
        );
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("the binary runs")
}

/// The TOML with this machine's hostname and CPU count replaced by placeholders.
fn normalised(stdout: &[u8]) -> String {
    let cpus = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|line| {
            if line.starts_with("id = ") {
                "id = \"[hostname]\"".to_owned()
            } else {
                line.replace(&format!("CPU = {cpus},"), "CPU = [cpus],")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn this_real_machine() {
    // The real PATH and /proc/meminfo: this build machine has no GPU tools.
    let output = Command::new(env!("CARGO_BIN_EXE_resource-pool"))
        .args(["inventory", "--local"])
        .env("NO_COLOR", "1")
        .env_remove("RESOURCE_POOL_PROC_MEMINFO")
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("[[nodes]]"), "{stdout}");
    assert!(stdout.contains("CPU = "), "{stdout}");
    assert!(stdout.contains("memory = "), "{stdout}");
    if !stdout.contains("GPU = ") && !stdout.contains("NPU = ") {
        assert!(
            stderr.contains("resource_pool::inventory::no_local_accelerators"),
            "{stderr}"
        );
        assert!(stderr.contains("zero GPUs"), "{stderr}");
    }
}

#[test]
fn no_tools_is_zero_gpus_and_says_so() {
    let tools = fake_tools("none", &[]);
    let output = run_with(&tools, &["inventory", "--local"], &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    insta::assert_snapshot!("local_no_accelerator", normalised(&output.stdout));
    assert!(
        stderr.contains("nvidia-smi is not installed; npu-smi is not installed"),
        "{stderr}"
    );
}

#[test]
fn eight_h100s_from_a_fake_nvidia_smi() {
    let tools = fake_tools("h100", &[("nvidia-smi", prints("nvidia-smi-8xh100.csv"))]);
    let output = run_with(&tools, &["inventory", "--local"], &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    insta::assert_snapshot!("local_8xh100", normalised(&output.stdout));
}

#[test]
fn cuda_visible_devices_limits_the_gpus() {
    let tools = fake_tools(
        "visible",
        &[("nvidia-smi", prints("nvidia-smi-8xh100.csv"))],
    );
    let output = run_with(
        &tools,
        &["inventory", "--local"],
        &[("CUDA_VISIBLE_DEVICES", "0,1")],
    );
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("GPU = 2,"), "{stdout}");
}

#[test]
fn eight_ascend_npus_from_a_fake_npu_smi() {
    let tools = fake_tools("ascend", &[("npu-smi", prints("npu-smi-info.txt"))]);
    let output = run_with(&tools, &["inventory", "--local"], &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    insta::assert_snapshot!("local_8x910b", normalised(&output.stdout));
}

#[test]
fn malformed_nvidia_smi_is_exit_2_with_labels() {
    let tools = fake_tools(
        "malformed",
        &[
            ("nvidia-smi", prints("nvidia-smi-malformed.csv")),
            ("npu-smi", prints("npu-smi-malformed.txt")),
        ],
    );
    let output = run_with(&tools, &["inventory", "--local"], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    insta::assert_snapshot!("local_malformed", stderr);
    assert_eq!(
        stderr.matches("resource_pool::local::nvidia_smi").count(),
        4,
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("resource_pool::local::npu_smi").count(),
        2,
        "{stderr}"
    );
}

#[test]
fn malformed_meminfo_points_into_the_file() {
    let tools = fake_tools("meminfo", &[]);
    let meminfo = data("meminfo-malformed.txt");
    let output = run_with(
        &tools,
        &["inventory", "--local"],
        &[("RESOURCE_POOL_PROC_MEMINFO", &meminfo.to_string_lossy())],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("resource_pool::local::meminfo"), "{stderr}");
    assert!(stderr.contains("meminfo-malformed.txt:2:17"), "{stderr}");
}

#[test]
fn a_failing_nvidia_smi_is_exit_2_with_its_stderr() {
    let tools = fake_tools(
        "fails",
        &[(
            "nvidia-smi",
            "echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\" >&2; exit 9".to_owned(),
        )],
    );
    let output = run_with(&tools, &["inventory", "--local"], &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("resource_pool::local::tool_failed"),
        "{stderr}"
    );
    assert!(stderr.contains("exit status 9"), "{stderr}");
    assert!(stderr.contains("couldn't communicate"), "{stderr}");
}

#[test]
fn check_local_without_accelerators_fails_and_says_why() {
    let tools = fake_tools("check", &[]);
    let output = run_with(
        &tools,
        &["check", "examples/configs/single_node.toml", "--local"],
        &[],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("resource_pool::inventory::no_local_accelerators"),
        "{stderr}"
    );
}

#[test]
fn local_conflicts_with_the_other_sources() {
    let tools = fake_tools("conflict", &[]);
    for other in [
        ["--cluster", "examples/clusters/x.toml"],
        [
            "--slurm",
            "resource-pool-inventory/tests/data/slurm/nodes.json",
        ],
        ["--ray", "http://127.0.0.1:1"],
    ] {
        let mut args = vec!["inventory", "--local"];
        args.extend(other);
        let output = run_with(&tools, &args, &[]);
        assert_eq!(output.status.code(), Some(2), "{other:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("cannot be used with"), "{stderr}");
    }
}

/// The fake NVML library, built once per test run.
fn fake_nvml() -> &'static Path {
    static LIBRARY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    LIBRARY.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("libfake-nvml.so");
        let status = Command::new("cc")
            .args(["-shared", "-fPIC", "-o"])
            .arg(&out)
            .arg(data("fake_nvml.c"))
            .status()
            .expect("a C compiler (`cc`) builds the fake NVML library");
        assert!(status.success(), "cc failed to build the fake NVML library");
        out
    })
}

fn with_nvml<'a>(env: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let library = fake_nvml().to_str().expect("a UTF-8 path");
    // The path outlives every test: it is in a static.
    let mut all = vec![("RESOURCE_POOL_NVML_LIBRARY", library)];
    all.extend_from_slice(env);
    all
}

#[test]
fn gpus_from_nvml_without_nvidia_smi() {
    let tools = fake_tools("nvml", &[]);
    let output = run_with(&tools, &["inventory", "--local"], &with_nvml(&[]));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    insta::assert_snapshot!("local_2xh100_nvml", normalised(&output.stdout));
}

#[test]
fn nvml_comes_before_nvidia_smi() {
    let tools = fake_tools(
        "nvml-first",
        &[("nvidia-smi", prints("nvidia-smi-8xh100.csv"))],
    );
    let output = run_with(
        &tools,
        &["inventory", "--local"],
        &with_nvml(&[("FAKE_NVML_GPUS", "4")]),
    );
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("GPU = 4,"), "{stdout}");
}

#[test]
fn nvml_that_cannot_start_falls_back_to_nvidia_smi() {
    let tools = fake_tools(
        "nvml-fails",
        &[("nvidia-smi", prints("nvidia-smi-8xh100.csv"))],
    );
    let env = with_nvml(&[("FAKE_NVML_INIT_FAILS", "1")]);
    let output = run_with(&tools, &["inventory", "--local"], &env);
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("GPU = 8,"), "{stdout}");
    // Neither NVML nor nvidia-smi: no GPUs, and the note says nvidia-smi is missing.
    let none = fake_tools("nvml-fails-alone", &[]);
    let output = run_with(&none, &["inventory", "--local"], &env);
    assert_eq!(output.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&output.stdout).contains("GPU ="));
    assert!(String::from_utf8_lossy(&output.stderr).contains("nvidia-smi is not installed"));
}

#[test]
fn nvml_without_memory_still_counts_gpus_and_cuda_visible_devices_applies() {
    let tools = fake_tools("nvml-old", &[]);
    let env = with_nvml(&[("FAKE_NVML_NO_MEMORY", "1"), ("CUDA_VISIBLE_DEVICES", "1")]);
    let output = run_with(&tools, &["inventory", "--local"], &env);
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("GPU = 1,"), "{stdout}");
    assert!(
        stdout.contains("gpu_product = \"NVIDIA H100 80GB HBM3\""),
        "{stdout}"
    );
}

#[test]
fn nvml_that_hangs_is_left_behind_after_its_timeout() {
    // The wait is the real 10 s: NVML is given as long as a tool.
    let tools = fake_tools(
        "nvml-hangs",
        &[("nvidia-smi", prints("nvidia-smi-8xh100.csv"))],
    );
    let env = with_nvml(&[("FAKE_NVML_HANGS", "1")]);
    let output = run_with(&tools, &["inventory", "--local"], &env);
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("GPU = 8,"), "{stdout}");
}
