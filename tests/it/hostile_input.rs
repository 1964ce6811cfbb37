//! Hostile input gets a clear error, never a crash, a hang or a blow-up (issue 6): one
//! case per limit. Memory is measured with a counting allocator (per thread, so that the
//! tests running beside each other do not count into each other).

use crate::common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use miette::Diagnostic;
use resource_pool_core::check::{CheckDiagnostic, CheckOptions, NoSpans, check};
use resource_pool_core::config::ConfigDiagnostic;
use resource_pool_core::lint::LintOptions;
use resource_pool_core::load::load_config;
use resource_pool_core::placement::{PlacementOptions, check_placement};
use resource_pool_core::source::{ReadError, ReadLimits, SourceFile};
use resource_pool_core::{
    Amount, AmountError, Cluster, Node, NodeSlot, PoolSpec, ResourcePool, ResourcePoolManager,
    Resources, RoleName, StructureError,
};
use resource_pool_inventory::cluster_file::{ClusterDiagnostic, ClusterLimits, load_cluster};
use resource_pool_inventory::ray_json::{self, RayJsonError};

// ---------------------------------------------------------------------------------------
// Measuring allocation

struct Counting;

thread_local! {
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

fn note(delta: i64) {
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// The one unsafe code of the workspace: a global allocator cannot be written without it.
// SAFETY: every call is forwarded to the system allocator unchanged; only sizes are noted.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            note(layout.size() as i64);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's pointer and layout.
        unsafe { System.dealloc(ptr, layout) };
        note(-(layout.size() as i64));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's arguments.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            note(new_size as i64 - layout.size() as i64);
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The result of `f` and the most bytes it held allocated at once (on this thread, beyond
/// what was allocated before).
fn peak_bytes<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let out = f();
    let peak = PEAK.with(Cell::get) - base;
    (out, u64::try_from(peak).unwrap_or(0))
}

const MIB: u64 = 1024 * 1024;

// ---------------------------------------------------------------------------------------
// Helpers

fn source(text: &str) -> SourceFile {
    SourceFile::new("hostile.toml", text)
}

fn config(text: &str) -> resource_pool_core::load::LoadedConfig {
    load_config(&source(text), &verl_lint())
}

/// The offset where `needle` stands in `text` (it must stand there once).
fn offset_of(text: &str, needle: &str) -> usize {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` is not in the text"));
    assert_eq!(
        text.rfind(needle),
        Some(at),
        "`{needle}` stands twice in the text"
    );
    at
}

/// The offset of a diagnostic's first label.
fn label_offset(diagnostic: &dyn Diagnostic) -> usize {
    diagnostic
        .labels()
        .and_then(|mut labels| labels.next())
        .unwrap_or_else(|| panic!("`{diagnostic}` has no label"))
        .offset()
}

fn bad_number_at<D: Diagnostic>(diagnostics: &[D], offset: usize) -> &D {
    diagnostics
        .iter()
        .find(|d| {
            d.code()
                .is_some_and(|c| c.to_string() == "resource_pool::toml::bad_number")
                && label_offset(*d) == offset
        })
        .unwrap_or_else(|| {
            let shown: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
            panic!("no bad-number diagnostic at offset {offset}: {shown:#?}")
        })
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "resource-pool-hostile-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

/// Runs `resource-pool ARGS...`, killing it after `timeout`; `None` when it had to be
/// killed, else its exit code and stderr.
fn run_cli(args: &[&str], timeout: Duration) -> Option<(i32, String)> {
    let mut child = common::resource_pool()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the CLI starts");
    // Read stderr as it comes: a long report would fill the pipe and stall the CLI.
    let mut pipe = child.stderr.take().expect("stderr is piped");
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = std::io::Read::read_to_end(&mut pipe, &mut bytes);
        bytes
    });
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().expect("the CLI can be waited on") {
            let stderr = reader.join().expect("the stderr reader");
            return Some((
                status.code().unwrap_or(-1),
                String::from_utf8_lossy(&stderr).into_owned(),
            ));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn pool_config(lines: &str) -> String {
    format!("[pools.p]\n{lines}\n\n[mapping]\nactor_rollout = \"p\"\n")
}

// ---------------------------------------------------------------------------------------
// Numbers

#[test]
fn config_numbers_out_of_range_are_diagnostics_on_the_number() {
    let cases = [
        (
            "gpus_per_node = 4294967296\nnnodes = 1",
            "4294967296",
            "is too large",
        ),
        (
            "process_on_nodes = [18446744073709551616]",
            "18446744073709551616",
            "is too large",
        ),
        (
            "process_on_nodes = [99999999999999999999999999999999999999999]",
            "99999999999999999999999999999999999999999",
            "is too large",
        ),
        ("process_on_nodes = [-8]", "-8", "is negative"),
        (
            "gpus_per_node = 8\nnnodes = 2.5",
            "2.5",
            "is not a whole number",
        ),
        (
            "process_on_nodes = [8]\nmax_colocate_count = 1e3",
            "1e3",
            "is written as a float",
        ),
        (
            "gpus_per_node = 8.0\nnnodes = 2",
            "8.0",
            "is written as a float",
        ),
        ("gpus_per_node = 8\nnnodes = 1e30", "1e30", "is too large"),
        ("process_on_nodes = [-8.0]", "-8.0", "is negative"),
        (
            "process_on_nodes = [8]\nbundle_resources = { my_custom = nan }",
            "nan",
            "is not a finite number",
        ),
        (
            "process_on_nodes = [8]\nbundle_resources = { my_custom = -inf }",
            "-inf",
            "is not a finite number",
        ),
        (
            "process_on_nodes = [8]\nbundle_resources = { my_custom = 1e300 }",
            "1e300",
            "is too large",
        ),
        (
            "process_on_nodes = [8]\nbundle_resources = { my_custom = 18446744073709551616 }",
            "18446744073709551616",
            "is too large",
        ),
        (
            "process_on_nodes = [8]\nbundle_resources = { my_custom = -1 }",
            "-1",
            "is negative",
        ),
        (
            "process_on_nodes = [8]\nbundle_resources = { my_custom = 0.00001 }",
            "0.00001",
            "finer than Ray's resolution",
        ),
    ];
    for (lines, value, problem) in cases {
        let text = pool_config(lines);
        let loaded = config(&text);
        assert!(loaded.manager.is_none(), "{lines}: built");
        let at = offset_of(&text, value);
        let found = bad_number_at(&loaded.diagnostics, at);
        assert!(
            found.to_string().contains(problem),
            "{lines}: `{found}` does not say `{problem}`"
        );
        assert!(matches!(
            found,
            ConfigDiagnostic::Structure(StructureError::BadNumber { .. })
        ));
    }
}

#[test]
fn cluster_numbers_out_of_range_are_diagnostics_on_the_number() {
    for (value, problem) in [
        ("nan", "is not a finite number"),
        ("inf", "is not a finite number"),
        ("-8", "is negative"),
        ("1e300", "is too large"),
        ("18446744073709551616", "is too large"),
        ("0.00001", "finer than Ray's resolution"),
    ] {
        let text = format!("[[nodes]]\nid = \"a\"\navailable = {{ CPU = 96, GPU = {value} }}\n");
        let loaded = load_cluster(&source(&text), &ClusterLimits::default());
        assert!(loaded.cluster.is_none(), "{value}: read");
        let found = bad_number_at(&loaded.diagnostics, offset_of(&text, value));
        assert!(found.to_string().contains(problem), "{value}: `{found}`");
        assert!(matches!(
            found,
            ClusterDiagnostic::Structure(StructureError::BadNumber { .. })
        ));
    }
}

#[test]
fn nnodes_of_u32_max_is_a_diagnostic_and_allocates_nothing_proportional() {
    let text = pool_config("gpus_per_node = 8\nnnodes = 4294967295");
    let (loaded, peak) = peak_bytes(|| config(&text));
    assert!(loaded.manager.is_none());
    let too_many = loaded
        .diagnostics
        .iter()
        .find(|d| matches!(d, ConfigDiagnostic::TooManySlots { .. }))
        .expect("a too-many-slots diagnostic");
    assert_eq!(label_offset(too_many), offset_of(&text, "4294967295"));
    assert!(
        too_many
            .to_string()
            .contains("asks for 4294967295 node-slots, more than the limit of 1000000")
    );
    // `vec![8u32; 4294967295]` would be 16 GiB; the whole load takes a few kilobytes.
    assert!(peak < 256 * 1024, "loading took {peak} bytes");
}

/// Ray's nodes answer with one amount replaced.
fn ray_nodes_with(amount: &str) -> Vec<u8> {
    let body = include_str!(
        "../../resource-pool-inventory/tests/data/ray-2.60/idle_api_v0_nodes_detail.json"
    );
    let original = "\"GPU\": 4.0";
    assert!(body.contains(original));
    body.replacen(original, &format!("\"GPU\": {amount}"), 1)
        .into_bytes()
}

#[test]
fn ray_json_numbers_out_of_range_are_typed_errors() {
    assert!(
        ray_json::parse_nodes(&ray_nodes_with("4.0")).is_ok(),
        "the unchanged answer parses"
    );
    for (amount, problem) in [
        ("-4.0", AmountError::Negative),
        ("1e300", AmountError::TooLarge),
        ("18446744073709551616", AmountError::TooLarge),
    ] {
        match ray_json::parse_nodes(&ray_nodes_with(amount)) {
            Err(RayJsonError::BadNumber { problem: found, .. }) => {
                assert_eq!(found, problem, "{amount}")
            }
            other => panic!("{amount}: {other:?}"),
        }
    }
    // JSON has no NaN or infinity; a number too large for f64 is out of JSON's range.
    for amount in ["NaN", "Infinity", "-Infinity", "1e400"] {
        match ray_json::parse_nodes(&ray_nodes_with(amount)) {
            Err(RayJsonError::BadBody { detail, .. }) => {
                assert!(detail.contains("line"), "{amount}: {detail}")
            }
            other => panic!("{amount}: {other:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Size

/// Peak allocation per input byte of the loaders, as measured below; README states it.
const MAX_BYTES_PER_INPUT_BYTE: u64 = 80;

#[test]
fn a_50_mb_config_loads_within_bounded_memory() {
    // One pool whose accelerator type is 50 MB long: over the default limit of 16 MiB (a
    // clear error), and read within bounded memory once the limit is raised.
    let long = "x".repeat(50_000_000);
    let text = pool_config(&format!(
        "process_on_nodes = [8]\naccelerator_type = \"{long}\""
    ));
    let dir = temp_dir("fifty");
    let path = dir.join("big.toml");
    std::fs::write(&path, &text).expect("write");
    drop(long);
    assert!(matches!(
        SourceFile::read(&path, ReadLimits::default()),
        Err(ReadError::TooLarge { .. })
    ));
    let raised = ReadLimits {
        max_file_bytes: 64 * MIB,
    };
    let start = Instant::now();
    let (loaded, peak) = peak_bytes(|| {
        let file = SourceFile::read(&path, raised).expect("50 MB is under the raised limit");
        load_config(&file, &verl_lint())
    });
    let manager = loaded.manager.as_ref().expect("valid");
    assert_eq!(
        manager.pools()[0]
            .spec
            .accelerator_type
            .as_ref()
            .map(String::len),
        Some(50_000_000)
    );
    let per_byte = peak / text.len() as u64;
    eprintln!(
        "50 MB config: peak {} MiB, {per_byte} bytes per input byte, {:?}",
        peak / MIB,
        start.elapsed()
    );
    assert!(
        per_byte <= MAX_BYTES_PER_INPUT_BYTE,
        "{per_byte} bytes per input byte"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_file_past_the_read_limit_is_refused_reading_no_more_than_the_limit() {
    let dir = temp_dir("too-large");
    let path = dir.join("huge.toml");
    let limit = 10 * MIB;
    std::fs::write(&path, vec![b'#'; (limit + 1) as usize]).expect("write");
    let (result, peak) = peak_bytes(|| {
        SourceFile::read(
            &path,
            ReadLimits {
                max_file_bytes: limit,
            },
        )
    });
    assert!(
        matches!(result, Err(ReadError::TooLarge { limit: l, .. }) if l == limit),
        "{result:?}"
    );
    // The buffer may grow to twice what was read, and no further.
    assert!(peak <= 2 * limit + MIB, "reading took {peak} bytes");
    std::fs::write(&path, vec![b'#'; limit as usize]).expect("write");
    assert!(
        SourceFile::read(
            &path,
            ReadLimits {
                max_file_bytes: limit
            }
        )
        .is_ok(),
        "exactly at the limit"
    );

    let shown = path.to_string_lossy();
    let (code, stderr) = run_cli(
        &["lint", "--max-file-size", "1000", &shown],
        Duration::from_secs(60),
    )
    .expect("exits");
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("is larger than the limit of 1000 bytes"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_cluster_of_100k_nodes_reads_and_checks_within_bounds() {
    let mut text = String::new();
    for i in 0..100_000 {
        text.push_str(&format!(
            "[[nodes]]\nid = \"node-{i}\"\navailable = {{ GPU = 8, CPU = 96 }}\n\n"
        ));
    }
    let start = Instant::now();
    let (loaded, peak) = peak_bytes(|| load_cluster(&source(&text), &ClusterLimits::default()));
    let read_in = start.elapsed();
    let cluster = loaded.cluster.expect("valid");
    assert_eq!(cluster.nodes.len(), 100_000);
    let per_byte = peak / text.len() as u64;
    let per_node = peak / 100_000;
    eprintln!(
        "100k-node cluster ({} bytes): peak {} MiB, {per_byte} bytes per input byte, {per_node} bytes per node, {read_in:?}",
        text.len(),
        peak / MIB
    );
    assert!(
        per_byte <= MAX_BYTES_PER_INPUT_BYTE,
        "{per_byte} bytes per input byte"
    );

    // 1,000 node-slots of 8 on 100,000 equal nodes: one node class, decided at once.
    let slots: Vec<NodeSlot> = (0..1_000)
        .map(|slot| NodeSlot {
            pool: 0,
            slot,
            bundles: 8,
            demand: gpu_cpu(8, 24),
        })
        .collect();
    let start = Instant::now();
    let report = check_placement(&slots, &cluster, &PlacementOptions::default());
    assert_eq!(report.feasible(), Some(true));
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );

    let limited = load_cluster(&source(&text), &ClusterLimits { max_nodes: 99_999 });
    assert!(limited.cluster.is_none());
    assert!(
        limited.diagnostics.iter().any(|d| matches!(
            d,
            ClusterDiagnostic::TooManyNodes {
                count: 100_000,
                limit: 99_999,
                ..
            }
        )),
        "{:?}",
        limited.diagnostics.first()
    );
}

#[test]
fn a_config_of_10k_pools_loads_within_bounds() {
    let mut text = String::new();
    for i in 0..10_000 {
        text.push_str(&format!("[pools.pool_{i}]\nprocess_on_nodes = [8]\n\n"));
    }
    text.push_str("[mapping]\nactor_rollout = \"pool_0\"\n");
    let start = Instant::now();
    let (loaded, peak) = peak_bytes(|| config(&text));
    let elapsed = start.elapsed();
    let manager = loaded
        .manager
        .as_ref()
        .expect("valid (unused pools are warnings)");
    assert_eq!(manager.pools().len(), 10_000);
    let per_byte = peak / text.len() as u64;
    eprintln!(
        "10k pools ({} bytes): peak {} KiB, {per_byte} bytes per input byte, {elapsed:?}",
        text.len(),
        peak / 1024
    );
    assert!(
        per_byte <= MAX_BYTES_PER_INPUT_BYTE,
        "{per_byte} bytes per input byte"
    );
    assert!(elapsed < Duration::from_secs(30), "{elapsed:?}");

    // Past the slot limit, the largest pool (the first of equals) is named, once, with
    // the total.
    let limited = load_config(
        &source(&text),
        &LintOptions {
            limits: resource_pool_core::lint::ConfigLimits { max_slots: 9_998 },
            ..verl_lint()
        },
    );
    assert!(limited.manager.is_none());
    let too_many: Vec<_> = limited
        .diagnostics
        .iter()
        .filter(|d| matches!(d, ConfigDiagnostic::TooManySlots { .. }))
        .collect();
    assert!(
        matches!(
            too_many.as_slice(),
            [ConfigDiagnostic::TooManySlots { pool, count: 1, total: 9_999, limit: 9_998, .. }]
                if pool == "pool_0"
        ),
        "{too_many:?}"
    );
    assert!(too_many[0].to_string().contains(
        "the pools ask for more node-slots than the limit of 9998 (9999 so far); the largest \
             is pool `pool_0`, with 1"
    ));
}

#[test]
fn keys_of_1_mb_are_read_and_reported_in_bounded_time() {
    let long = "k".repeat(1 << 20);
    // A pool named by a 1 MB key, mapped by name.
    let text = format!(
        "[pools.{long}]\nprocess_on_nodes = [8]\n\n[mapping]\nactor_rollout = \"{long}\"\n"
    );
    let start = Instant::now();
    let loaded = config(&text);
    assert_eq!(
        loaded.manager.as_ref().map(|m| m.pools()[0].name.len()),
        Some(1 << 20)
    );
    // An unknown key and an unknown role of 1 MB: reported, with the suggestion search
    // bounded by the short candidates.
    let text =
        format!("[pools.p]\nprocess_on_nodes = [8]\n{long} = 1\n\n[mapping]\n{long} = \"p\"\n");
    let loaded = config(&text);
    let unknown_key = loaded
        .diagnostics
        .iter()
        .find(|d| {
            matches!(
                d,
                ConfigDiagnostic::Structure(StructureError::UnknownKey { .. })
            )
        })
        .expect("the unknown key");
    assert_eq!(
        label_offset(unknown_key),
        offset_of(&text, &format!("\n{long} = 1")) + 1
    );
    assert!(
        loaded
            .diagnostics
            .iter()
            .any(|d| matches!(d, ConfigDiagnostic::UnknownRole { .. }))
    );
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
}

/// The toml crate's nesting limit (`toml::de::parser::LIMIT` in toml 1.2).
const TOML_NESTING_LIMIT: usize = 80;

#[test]
fn deep_nesting_is_a_syntax_error_not_a_stack_overflow() {
    let depth = 100_000;
    let arrays = format!("a = {}{}\n", "[".repeat(depth), "]".repeat(depth));
    let tables = format!("a = {}1{}\n", "{ a = ".repeat(depth), " }".repeat(depth));
    let dotted = format!("{} = 1\n", vec!["a"; depth].join("."));
    let headers = format!("[{}]\n", vec!["a"; depth].join("."));
    for (what, text) in [
        ("arrays", &arrays),
        ("inline tables", &tables),
        ("dotted keys", &dotted),
        ("headers", &headers),
    ] {
        let loaded = config(text);
        assert!(
            loaded.diagnostics.iter().any(ConfigDiagnostic::is_syntax),
            "{what}: {:?}",
            loaded.diagnostics.first()
        );
        let cluster = load_cluster(&source(text), &ClusterLimits::default());
        assert!(cluster.cluster.is_none(), "{what}");
    }
    // Below the limit, nesting is fine TOML (and an unknown key to us).
    let shallow = TOML_NESTING_LIMIT / 2;
    let text = format!("a = {}{}\n", "[".repeat(shallow), "]".repeat(shallow));
    let loaded = config(&text);
    assert!(
        !loaded.diagnostics.iter().any(ConfigDiagnostic::is_syntax),
        "{:?}",
        loaded.diagnostics
    );
    let over = format!(
        "a = {}{}\n",
        "[".repeat(TOML_NESTING_LIMIT + 1),
        "]".repeat(TOML_NESTING_LIMIT + 1)
    );
    assert!(
        config(&over)
            .diagnostics
            .iter()
            .any(ConfigDiagnostic::is_syntax)
    );

    // JSON too: serde_json's recursion limit.
    let json = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    assert!(matches!(
        ray_json::parse_nodes(json.as_bytes()),
        Err(RayJsonError::BadBody { .. })
    ));
    assert!(matches!(
        ray_json::parse_cluster_status(json.as_bytes()),
        Err(RayJsonError::BadBody { .. })
    ));
    assert!(matches!(
        ray_json::parse_placement_groups(json.as_bytes()),
        Err(RayJsonError::BadBody { .. })
    ));
}

#[test]
fn verl_yaml_anchors_that_multiply_are_read_in_bounded_time() {
    use resource_pool_verl::yaml::read_yaml;
    // Each level holds the one before twice: 2^60 values if expanded, by aliases
    // (`{a: *l0, b: *l0}`, the "billion laughs") or by merges (`{a: {<<: *l0}, ...}`,
    // `{<<: [*l0, *l0]}`). The verl reader expands none: what an alias of a mapping or a
    // merge brings is not read.
    let laughs = |twice: &dyn Fn(usize) -> String| {
        let mut text = "l0: &l0 {nnodes: 1, n_gpus_per_node: 2}\n".to_owned();
        for i in 1..=60 {
            text.push_str(&format!("l{i}: &l{i} {}\n", twice(i - 1)));
        }
        text + "trainer: *l60\n"
    };
    let aliases = laughs(&|p| format!("{{a: *l{p}, b: *l{p}}}"));
    let merges = laughs(&|p| format!("{{a: {{<<: *l{p}}}, b: {{<<: *l{p}}}}}"));
    let lists = laughs(&|p| format!("{{<<: [*l{p}, *l{p}], x: {p}}}"));
    for (what, text) in [("aliases", aliases), ("merges", merges), ("lists", lists)] {
        let started = Instant::now();
        let (read, peak) = peak_bytes(|| read_yaml(&text));
        read.expect(what);
        assert!(peak < 64 << 20, "{what}: peak {peak} bytes");
        assert!(started.elapsed() < Duration::from_secs(10), "{what}");
    }
    // A wide anchored mapping aliased 100,000 times.
    let keys: Vec<String> = (0..20_000).map(|i| format!("k{i}: {i}")).collect();
    let aliases: Vec<String> = (0..100_000).map(|i| format!("a{i}: *w")).collect();
    let text = format!("wide: &w {{{}}}\n{}\n", keys.join(", "), aliases.join("\n"));
    let started = Instant::now();
    let (read, peak) = peak_bytes(|| read_yaml(&text));
    read.expect("wide");
    assert!(peak < 64 << 20, "wide: peak {peak} bytes");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_line_of_unclosed_shell_expansions_is_read_in_bounded_time() {
    use resource_pool_verl::launch::parse_launch;
    // Every word opens a `$((` no later word closes: each is joined with at most a
    // bounded run of the words after it, not with all of them.
    let mut words = vec!["python3".to_owned(), "-m".to_owned()];
    words.push("verl.trainer.main_ppo".to_owned());
    words.extend((0..100_000).map(|i| format!("x{i}=$((a")));
    let started = Instant::now();
    let (launch, peak) = peak_bytes(|| parse_launch(&words));
    assert_eq!(launch.overrides.len(), 100_000);
    assert!(peak < 64 << 20, "peak {peak} bytes");
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn shell_command_strings_are_read_in_bounded_time() {
    use resource_pool_verl::launch::parse_launch;
    // One string of 100,000 commands (none of them verl's), one whose verl command has
    // 100,000 overrides behind 100,000 commands, and strings nested past the bound: each
    // level quotes the one inside, so the text is as long as the nesting allows here.
    let many = "cd /w; ".repeat(100_000);
    let overrides: String = (0..100_000).map(|i| format!(" k{i}=1")).collect();
    let verl = format!("{many}python3 -m verl.trainer.main_ppo{overrides}");
    let mut nested = "python3 -m verl.trainer.main_ppo a=1".to_owned();
    for _ in 0..9 {
        nested = format!(
            "bash -c {}",
            resource_pool_verl::launch::shell_word(&nested)
        );
    }
    for (what, string, want_overrides) in [
        ("many commands", many.as_str(), 0),
        ("verl after many", verl.as_str(), 100_000),
        ("nested", nested.as_str(), 0),
    ] {
        let words = ["bash", "-c", string].map(str::to_owned);
        let started = Instant::now();
        let (launch, peak) = peak_bytes(|| parse_launch(&words));
        assert_eq!(launch.overrides.len(), want_overrides, "{what}");
        assert!(peak < 64 << 20, "{what}: peak {peak} bytes");
        assert!(started.elapsed() < Duration::from_secs(10), "{what}");
    }
}

#[test]
fn kuberay_aliases_that_multiply_stop_at_their_bound() {
    use resource_pool_inventory::kuberay::{KubeRayError, parse_raycluster};
    // 2^60 values if copied, by aliases of mappings, of lists, or by `<<` merges; and
    // anchored lists nested in the one before, 300 levels through aliases.
    let laughs = |twice: &dyn Fn(usize) -> String| {
        let mut text = "kind: RayCluster\nl0: &l0 {cpu: \"1\"}\n".to_owned();
        for i in 1..=60 {
            text.push_str(&format!("l{i}: &l{i} {}\n", twice(i - 1)));
        }
        text + "spec: *l60\n"
    };
    let mut deep = "kind: RayCluster\nd0: &d0 [1]\n".to_owned();
    for i in 1..=300 {
        deep.push_str(&format!("d{i}: &d{i} [*d{}]\n", i - 1));
    }
    let cases = [
        ("aliases", laughs(&|p| format!("{{a: *l{p}, b: *l{p}}}"))),
        ("lists", laughs(&|p| format!("[*l{p}, *l{p}]"))),
        (
            "merges",
            laughs(&|p| format!("{{a: {{<<: *l{p}}}, b: {{<<: *l{p}}}}}")),
        ),
        ("deep", deep),
    ];
    for (what, text) in cases {
        let started = Instant::now();
        let (read, peak) = peak_bytes(|| parse_raycluster(&text));
        let errors = read.expect_err(what);
        assert!(
            matches!(&errors[..], [KubeRayError::Syntax { detail, .. }]
                if detail.contains("100000") || detail.contains("deeper")),
            "{what}: {errors:?}"
        );
        eprintln!(
            "KubeRay {what}: peak {} KiB, {:?}",
            peak / 1024,
            started.elapsed()
        );
        assert!(peak < 64 << 20, "{what}: peak {peak} bytes");
        assert!(started.elapsed() < Duration::from_secs(10), "{what}");
    }
    // An alias inside its own anchor's value is refused, as go-yaml refuses it.
    let own = parse_raycluster("kind: RayCluster\nspec: &s {a: *s}\n").unwrap_err();
    assert!(matches!(&own[..], [KubeRayError::Syntax { .. }]), "{own:?}");
}

// ---------------------------------------------------------------------------------------
// Search

fn gpu_cpu(gpus: u64, cpus: u64) -> Resources {
    Resources::new()
        .with("GPU", Amount::from_whole(gpus).unwrap_or_default())
        .with("CPU", Amount::from_whole(cpus).unwrap_or_default())
}

/// An instance with a planted exact packing: `bins` nodes of `capacity` GPUs, each cut
/// into pieces of pairwise different sizes (a deterministic pseudo-random cut), so the
/// answer is known to be "feasible" while every node must end exactly full.
fn planted(bins: usize, capacity: u64, seed: u64) -> (Vec<u32>, Cluster) {
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut sizes = Vec::new();
    for _ in 0..bins {
        let mut left = capacity;
        while left > 0 {
            let piece = (next() % (capacity / 3) + 1).min(left);
            sizes.push(piece as u32);
            left -= piece;
        }
    }
    // Shuffle, so the order gives nothing away.
    for i in (1..sizes.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        sizes.swap(i, j);
    }
    let nodes = (0..bins)
        .map(|i| Node::new(format!("n{i}"), gpu_cpu(capacity, 3 * capacity)))
        .collect();
    (sizes, Cluster::new(nodes))
}

#[test]
fn adversarial_packings_finish_within_the_budget_undecided_and_never_wrong() {
    // The step budget decides (deterministic: the same instance is undecided again in the
    // whole check below, whatever the machine's load); the time budget only bounds a hang.
    // The time budget's own keeping is `placement_props::adversarial_instances_stay_within_budget`.
    let options = PlacementOptions {
        max_steps: 200_000,
        budget: Duration::from_secs(30),
        check_idle: false,
    };
    let mut undecided = None;
    for seed in 1..=40u64 {
        let (sizes, cluster) = planted(12, 97, seed);
        let slots: Vec<NodeSlot> = sizes
            .iter()
            .enumerate()
            .map(|(slot, &n)| NodeSlot {
                pool: 0,
                slot,
                bundles: n,
                demand: gpu_cpu(u64::from(n), 3 * u64::from(n)),
            })
            .collect();
        let start = Instant::now();
        let report = check_placement(&slots, &cluster, &options);
        let elapsed = start.elapsed();
        // The budget, the explanation's own 200 ms, and room for a loaded machine.
        assert!(
            elapsed < options.budget + Duration::from_secs(2),
            "seed {seed}: {elapsed:?}"
        );
        assert!(
            report.stats.steps <= options.max_steps + 2 * 13,
            "seed {seed}: {} steps",
            report.stats.steps
        );
        // A packing exists by construction: "infeasible" would be a wrong answer.
        assert_ne!(
            report.feasible(),
            Some(false),
            "seed {seed}: a planted packing called infeasible"
        );
        if let Some(witness) = report.witness() {
            assert_eq!(witness.validate(&slots, &cluster), Ok(()));
        }
        if report.feasible().is_none() && undecided.is_none() {
            undecided = Some((seed, sizes, cluster));
        }
    }
    let (seed, sizes, cluster) = undecided.expect("some planted packing defeats the budget");
    eprintln!(
        "planted packing {seed}: {} node-slots on 12 nodes, undecided",
        sizes.len()
    );
    // The same instance through the whole check: an "undecided" diagnostic.
    let spec = PoolSpec {
        max_colocate_count: 3,
        ..PoolSpec::with_slots(sizes)
    };
    let manager = ResourcePoolManager::new(
        vec![ResourcePool::new("p", spec)],
        [(RoleName::from("actor_rollout"), "p")],
    )
    .expect("a manager");
    let check_options = CheckOptions {
        placement: options,
        ..CheckOptions::default()
    };
    let report = check(&manager, &cluster, &NoSpans, &check_options);
    assert_eq!(report.feasible(), None, "seed {seed}");
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| matches!(d, CheckDiagnostic::Undecided { .. })),
        "seed {seed}: {:?}",
        report.diagnostics
    );
}

// ---------------------------------------------------------------------------------------
// Text

#[test]
fn non_utf8_bytes_are_refused_with_their_offset() {
    let dir = temp_dir("utf8");
    let path = dir.join("latin1.toml");
    let bytes = b"[pools.p]\nprocess_on_nodes = [8]\naccelerator_type = \"caf\xe9\"\n".to_vec();
    std::fs::write(&path, &bytes).expect("write");
    let invalid = bytes
        .iter()
        .position(|&b| b == 0xe9)
        .expect("the Latin-1 byte");
    match SourceFile::read(&path, ReadLimits::default()) {
        Err(ReadError::NotUtf8 { offset, .. }) => assert_eq!(offset, invalid),
        other => panic!("{other:?}"),
    }
    let shown = path.to_string_lossy();
    let (code, stderr) = run_cli(&["lint", &shown], Duration::from_secs(60)).expect("exits");
    assert_eq!(code, 2, "{stderr}");
    // The report wraps at 100 columns, continuing lines with `│`: join them again.
    let joined = stderr
        .replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        joined.contains(&format!(
            "is not UTF-8 text (invalid byte at offset {invalid})"
        )),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A BOM, CRLF line ends, tabs and wide characters before the problems.
const AWKWARD: &str = "\u{feff}[pools.p]\r\n\tprocess_on_nodes = [8]\r\n\taccelerator = \"中文\"\t# 中文\r\n\tmax_colocate_count = -1\r\n\tbundle_resources = { \"中文\" = 1, b = -2 }\r\n";

#[test]
fn spans_point_at_the_right_line_and_column_through_bom_crlf_tabs_and_wide_characters() {
    let file = source(AWKWARD);
    let loaded = load_config(&file, &verl_lint());
    let at = |d: &ConfigDiagnostic| file.line_col(label_offset(d));
    let unused = loaded
        .diagnostics
        .iter()
        .find(|d| matches!(d, ConfigDiagnostic::UnusedPool { .. }))
        .expect("unused pool");
    // After the BOM, which takes no column.
    assert_eq!(at(unused), (1, 8));
    let accelerator = loaded
        .diagnostics
        .iter()
        .find(|d| matches!(d, ConfigDiagnostic::UnknownAccelerator { .. }))
        .expect("unknown accelerator");
    assert_eq!(at(accelerator), (3, 16));
    let colocate = bad_number_at(&loaded.diagnostics, offset_of(AWKWARD, "-1"));
    assert_eq!(at(colocate), (4, 23));
    let resource = bad_number_at(&loaded.diagnostics, offset_of(AWKWARD, "-2"));
    assert_eq!(at(resource), (5, 37));
}

/// The `╭─[file:line:column]` headers of `resource-pool lint` on [`AWKWARD`] that are
/// missing from its stderr.
fn missing_report_headers(expected: &[(usize, usize)]) -> Vec<String> {
    let dir = temp_dir(&format!("awkward-{}", expected.len()));
    let path = dir.join("awkward.toml");
    std::fs::write(&path, AWKWARD).expect("write");
    let shown = path.to_string_lossy().into_owned();
    let (code, stderr) = run_cli(
        &["lint", "--color", "never", &shown],
        Duration::from_secs(60),
    )
    .expect("exits");
    let _ = std::fs::remove_dir_all(dir);
    assert_eq!(code, 1, "{stderr}");
    expected
        .iter()
        .map(|(line, column)| format!("[{shown}:{line}:{column}]"))
        .filter(|header| !stderr.contains(header))
        .map(|header| format!("{header} in:\n{stderr}"))
        .collect()
}

#[test]
fn the_rendered_report_shows_the_same_columns_after_tabs_and_crlf() {
    let missing = missing_report_headers(&[(3, 16), (4, 23)]);
    assert!(missing.is_empty(), "{missing:#?}");
}

#[test]
fn the_rendered_report_shows_the_same_columns_after_a_bom_and_wide_characters() {
    // Line 1: the pool's name after the BOM (3 bytes, no column); line 5: after `"中文"`
    // (8 bytes, 4 columns). miette prints 1:11 and 5:41.
    let missing = missing_report_headers(&[(1, 8), (5, 37)]);
    assert!(missing.is_empty(), "{missing:#?}");
}

// ---------------------------------------------------------------------------------------
// Files

/// The unreadable paths: (what, path), made in `dir`.
fn unreadable_paths(dir: &Path) -> Vec<(&'static str, PathBuf)> {
    let loop_a = dir.join("loop-a.toml");
    let loop_b = dir.join("loop-b.toml");
    std::os::unix::fs::symlink(&loop_b, &loop_a).expect("symlink");
    std::os::unix::fs::symlink(&loop_a, &loop_b).expect("symlink");
    let directory = dir.join("a-directory.toml");
    std::fs::create_dir(&directory).expect("mkdir");
    vec![
        ("a missing file", dir.join("missing.toml")),
        ("a directory", directory),
        ("a symlink loop", loop_a),
        // Tests run as root here, so mode 000 does not stop a read. /proc/self/mem refuses
        // the read itself (EIO at offset 0) whoever reads it: the OS saying no.
        (
            "a file the OS refuses to read",
            PathBuf::from("/proc/self/mem"),
        ),
    ]
}

#[test]
fn unreadable_files_are_read_errors() {
    let dir = temp_dir("unreadable");
    for (what, path) in unreadable_paths(&dir) {
        match SourceFile::read(&path, ReadLimits::default()) {
            Err(ReadError::Io { path: shown, .. }) => {
                assert_eq!(shown, path.display().to_string(), "{what}")
            }
            other => panic!("{what}: {other:?}"),
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn unreadable_files_exit_2_naming_the_file_and_the_reason() {
    let dir = temp_dir("unreadable-cli");
    for (what, path) in unreadable_paths(&dir) {
        let shown = path.to_string_lossy();
        let (code, stderr) = run_cli(&["lint", &shown], Duration::from_secs(60)).expect("exits");
        assert_eq!(code, 2, "{what}: {stderr}");
        assert!(
            stderr.contains(&format!("cannot read `{shown}`: ")),
            "{what}: {stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn unreadable_files_are_one_line_on_stderr() {
    let dir = temp_dir("one-line");
    for (what, path) in unreadable_paths(&dir) {
        let shown = path.to_string_lossy();
        let (code, stderr) = run_cli(&["lint", &shown], Duration::from_secs(60)).expect("exits");
        assert_eq!(code, 2, "{what}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{what}:\n{stderr}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_fifo_is_refused_not_waited_on() {
    let dir = temp_dir("fifo");
    let fifo = dir.join("pipe.toml");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let shown = fifo.to_string_lossy();
    let result = run_cli(&["lint", &shown], Duration::from_secs(10));
    let _ = std::fs::remove_dir_all(&dir);
    let (code, stderr) =
        result.expect("`resource-pool lint FIFO` exits instead of waiting for a writer");
    assert_eq!(code, 2, "{stderr}");
}

/// Thousands of errors in one minified (single-line) JSON file: each diagnostic's line,
/// column and snippet come from the file's line index and a clipped window of its one
/// line, not from a scan of the file, so the report takes time linear in its size. (Each
/// took a scan of the whole file before: 4,000 errors took 100 s.) The limit is a hang
/// detector, far above the ~1 s this takes.
#[test]
fn thousands_of_errors_on_one_line_do_not_take_quadratic_time() {
    let dir = temp_dir("minified");
    let path = dir.join("nodes.json");
    let items: Vec<String> = (0..5000)
        .map(|i| {
            format!(
                r#"{{"kind":"Node","metadata":{{"name":"n{i}"}},"status":{{"allocatable":{{"cpu":"1n"}},"conditions":[{{"type":"Ready","status":"True"}}]}}}}"#
            )
        })
        .collect();
    let text = format!(r#"{{"kind":"List","items":[{}]}}"#, items.join(","));
    std::fs::write(&path, &text).expect("write");
    let shown = path.to_string_lossy();
    for format in ["human", "json"] {
        let (code, stderr) = run_cli(
            &[
                "check",
                "examples/configs/single_node.toml",
                "--kubectl",
                &shown,
                "--format",
                format,
            ],
            Duration::from_secs(120),
        )
        .expect("exits in time");
        assert_eq!(code, 2, "{stderr}");
        if format == "human" {
            assert_eq!(stderr.matches("kubectl::bad_quantity").count(), 5000);
            // Each snippet shows a window of the line, not the 700 KB line.
            assert!(stderr.len() < 5000 * 2000, "{} bytes", stderr.len());
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The CLI's lint options: verl's roles.
fn verl_lint() -> LintOptions {
    LintOptions {
        roles: resource_pool::verl::role_set(),
        ..LintOptions::default()
    }
}
