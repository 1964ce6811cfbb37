//! `RaySource` against a tiny fake dashboard on 127.0.0.1 (std::net only): the recorded
//! Ray 2.60 and 2.41 answers, the Ray version, auth, HTTP errors, slow and broken servers,
//! and a closed port; over https in [`tls`].

mod tls;
mod wrong_address;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use resource_pool::ray_http::{RaySource, Secret, TimeoutSetting};
use resource_pool_core::{Amount, Resources};
use resource_pool_inventory::{InventoryError, InventoryNote, InventorySource};

fn fixture(name: &str) -> Vec<u8> {
    fixture_of("2.60", name).unwrap_or_else(|| panic!("no recorded {name}"))
}

/// A recorded answer of Ray `version` (`2.60`, `2.41`), if there is one.
fn fixture_of(version: &str, name: &str) -> Option<Vec<u8>> {
    let path = format!(
        "{}/resource-pool-inventory/tests/data/ray-{version}/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(path).ok()
}

/// A request as the fake server saw it.
#[derive(Clone, Debug)]
pub(super) struct Seen {
    pub(super) target: String,
    headers: Vec<(String, String)>,
}

impl Seen {
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What the fake server does with a request.
pub(super) enum Reply {
    /// 200 with this JSON body.
    Json(Vec<u8>),
    /// This status and body.
    Status(u16, &'static str),
    /// Waits, then answers.
    After(Duration, Box<Reply>),
    /// Sends the head and then the body one byte per interval.
    Drip(Vec<u8>, Duration),
    /// Closes the connection without a word.
    Close,
    /// Writes these raw bytes and closes.
    Raw(&'static [u8]),
    /// A 301 to this `Location`.
    Redirect(&'static str),
}

pub(super) struct FakeDashboard {
    pub(super) url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl FakeDashboard {
    pub(super) fn start(handler: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> FakeDashboard {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let url = format!("http://{}", listener.local_addr().expect("local addr"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let handler = Arc::new(handler);
        let log = Arc::clone(&seen);
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let handler = Arc::clone(&handler);
                let log = Arc::clone(&log);
                thread::spawn(move || serve(stream, &*handler, &log));
            }
        });
        FakeDashboard { url, seen }
    }

    pub(super) fn seen(&self) -> Vec<Seen> {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

fn serve(
    mut stream: TcpStream,
    handler: &(dyn Fn(&Seen) -> Reply + Send + Sync),
    log: &Mutex<Vec<Seen>>,
) {
    serve_stream(&mut stream, handler, log);
}

/// Reads one request from `stream` (plain TCP or a TLS session), logs it and answers it.
pub(super) fn serve_stream(
    stream: &mut (impl Read + Write),
    handler: &(dyn Fn(&Seen) -> Reply + Send + Sync),
    log: &Mutex<Vec<Seen>>,
) {
    let mut reader = BufReader::new(&mut *stream);
    // A TLS hello (record type 0x16) sent to this plain server gets a plain-http 400, as a
    // real plain-http dashboard answers one.
    if reader.fill_buf().is_ok_and(|b| b.first() == Some(&0x16)) {
        drop(reader);
        if let Ok(mut log) = log.lock() {
            log.push(Seen {
                target: "<a TLS hello>".to_owned(),
                headers: Vec::new(),
            });
        }
        respond(stream, Reply::Status(400, "Bad Request"));
        return;
    }
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let target = line
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.trim_end().split_once(':') {
            headers.push((name.trim().to_owned(), value.trim().to_owned()));
        }
    }
    drop(reader);
    let seen = Seen { target, headers };
    if let Ok(mut log) = log.lock() {
        log.push(seen.clone());
    }
    let reply = handler(&seen);
    respond(stream, reply);
}

fn respond(stream: &mut impl Write, reply: Reply) {
    let head = |status: u16, len: usize| {
        format!(
            "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n"
        )
    };
    let _ = match reply {
        Reply::Json(body) => stream
            .write_all(head(200, body.len()).as_bytes())
            .and_then(|()| stream.write_all(&body)),
        Reply::Status(status, body) => stream
            .write_all(head(status, body.len()).as_bytes())
            .and_then(|()| stream.write_all(body.as_bytes())),
        Reply::After(wait, reply) => {
            thread::sleep(wait);
            respond(stream, *reply);
            Ok(())
        }
        Reply::Drip(body, every) => {
            let mut result = stream.write_all(head(200, body.len()).as_bytes());
            for byte in body {
                if result.is_err() {
                    break;
                }
                thread::sleep(every);
                result = stream.write_all(&[byte]);
            }
            result
        }
        Reply::Redirect(location) => stream.write_all(
            format!(
                "HTTP/1.1 301 Moved Permanently\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )
            .as_bytes(),
        ),
        Reply::Close => Ok(()),
        Reply::Raw(bytes) => stream.write_all(bytes),
    };
}

/// Serves a recorded set of Ray 2.60 (`idle`, `heldpg`, `mixedpg`) by path.
pub(super) fn fixtures(set: &'static str) -> impl Fn(&Seen) -> Reply + Send + Sync + 'static {
    recorded("2.60", set)
}

/// Serves a recorded set of Ray `version` by path; 404 for what was not recorded.
fn recorded(
    version: &'static str,
    set: &'static str,
) -> impl Fn(&Seen) -> Reply + Send + Sync + 'static {
    move |seen| {
        let path = seen.target.split('?').next().unwrap_or_default();
        let name = match path {
            "/api/version" => "api_version",
            "/api/v0/nodes" => "api_v0_nodes_detail",
            "/api/cluster_status" => "api_cluster_status",
            "/api/v0/placement_groups" => "api_v0_placement_groups_detail",
            _ => return Reply::Status(404, "404: Not Found"),
        };
        match fixture_of(version, &format!("{set}_{name}.json")) {
            Some(body) => Reply::Json(body),
            None => Reply::Status(404, "404: Not Found"),
        }
    }
}

fn source(server: &FakeDashboard) -> RaySource {
    RaySource::new(&server.url)
        .expect("url")
        .with_timeout(Duration::from_secs(5))
        .with_read_timeout(Duration::from_secs(2))
        .with_connect_timeout(Duration::from_secs(1))
}

pub(super) fn code(error: &InventoryError) -> String {
    miette::Diagnostic::code(error)
        .map(|c| c.to_string())
        .unwrap_or_default()
}

pub(super) fn help(error: &InventoryError) -> String {
    miette::Diagnostic::help(error)
        .map(|c| c.to_string())
        .unwrap_or_default()
}

fn whole(n: u64) -> Amount {
    Amount::from_whole(n).unwrap_or_default()
}

fn res(pairs: &[(&str, u64)]) -> Resources {
    pairs.iter().map(|&(name, n)| (name, whole(n))).collect()
}

/// Large answers in the recorded shape, shared with the benches.
#[path = "../../resource-pool-benches/benches/common/ray_bodies.rs"]
#[allow(dead_code)]
mod ray_bodies;

#[test]
fn a_cluster_of_10k_nodes_is_read_whole() {
    // 10,000 nodes (10 dead) and 1,000 placed groups of 8 bundles: the size the bench
    // times (not here); here every node, note and amount must come out right.
    let bodies = std::sync::Arc::new(ray_bodies::ray_bodies(10_000, 10, 1_000));
    let served = std::sync::Arc::clone(&bodies);
    let server = FakeDashboard::start(move |seen: &Seen| {
        match seen.target.split('?').next().unwrap_or_default() {
            "/api/v0/nodes" => Reply::Json(served.nodes.clone().into_bytes()),
            "/api/cluster_status" => Reply::Json(served.cluster_status.clone().into_bytes()),
            "/api/v0/placement_groups" => Reply::Json(served.placement_groups.clone().into_bytes()),
            _ => Reply::Status(404, "404: Not Found"),
        }
    });
    let inventory = source(&server)
        .with_timeout(Duration::from_secs(60))
        .with_read_timeout(Duration::from_secs(30))
        .load()
        .expect("load");
    let cluster = &inventory.cluster;
    assert_eq!(cluster.nodes.len(), 10_000);
    assert_eq!(cluster.alive().count(), 9_990);
    let held = res(&[("CPU", 72), ("GPU", 0), ("accelerator_type:H100", 1)]);
    let idle = res(&[("CPU", 96), ("GPU", 8), ("accelerator_type:H100", 1)]);
    // Sorted by address: 10.0.0.0 is node 0, which holds group 0.
    assert_eq!(cluster.nodes[0].address.as_deref(), Some("10.0.0.0"));
    let free: Vec<&Resources> = cluster.alive().map(|n| &n.available).collect();
    assert_eq!(free.iter().filter(|r| ***r == held).count(), 1_000);
    assert_eq!(free.iter().filter(|r| ***r == idle).count(), 8_990);
    let count = |code: &str| {
        inventory
            .notes
            .iter()
            .filter(|n| n.code_str() == code)
            .count()
    };
    assert_eq!(count("resource_pool::inventory::held_by_group"), 1_000);
    assert_eq!(count("resource_pool::inventory::dead_node"), 10);
    assert_eq!(
        inventory.notes.len(),
        1_010,
        "{:?}",
        inventory.notes.first()
    );
    assert!(
        cluster
            .nodes
            .iter()
            .filter(|n| !n.alive)
            .all(|n| n.available.is_empty())
    );
}

#[test]
fn recorded_cluster_is_read_node_by_node() {
    let server = FakeDashboard::start(fixtures("heldpg"));
    let inventory = source(&server).load().expect("load");
    let nodes: Vec<_> = inventory
        .cluster
        .nodes
        .iter()
        .map(|n| {
            (
                n.address.clone().unwrap_or_default(),
                n.available.clone(),
                n.total.clone().unwrap_or_default(),
            )
        })
        .collect();
    let h100 = res(&[
        ("GPU", 4),
        ("CPU", 16),
        ("accelerator_type:H100", 1),
        ("my_custom", 2),
    ]);
    assert_eq!(
        nodes,
        [
            (
                "127.0.0.2".to_owned(),
                res(&[("GPU", 4), ("CPU", 20)]),
                res(&[("GPU", 8), ("CPU", 32)])
            ),
            (
                "127.0.0.3".to_owned(),
                res(&[("GPU", 4), ("CPU", 8)]),
                res(&[("GPU", 4), ("CPU", 8)])
            ),
            ("127.0.0.4".to_owned(), h100.clone(), h100),
        ]
    );
    assert!(
        matches!(&inventory.notes[..], [InventoryNote::HeldByPlacementGroup { group, .. }] if group.name == "held")
    );
    let seen = server.seen();
    assert_eq!(seen.len(), 4);
    assert_eq!(seen[0].target, "/api/version");
    assert_eq!(seen[1].target, "/api/v0/nodes?detail=1&limit=10000");
    assert_eq!(seen[2].target, "/api/cluster_status");
    assert_eq!(
        seen[3].target,
        "/api/v0/placement_groups?detail=1&limit=10000"
    );
    assert!(seen.iter().all(|s| s.header("Authorization").is_none()));
}

#[test]
fn the_token_is_sent_as_bearer() {
    let server = FakeDashboard::start(|seen: &Seen| match seen.header("Authorization") {
        Some("Bearer s3cret") => fixtures("idle")(seen),
        Some(_) => Reply::Status(403, "Forbidden: Invalid authentication token"),
        None => Reply::Status(401, "Unauthorized: Missing authentication token"),
    });
    let token = Secret::new("s3cret").expect("token");
    let inventory = source(&server)
        .with_token(Some(token))
        .load()
        .expect("load with token");
    assert_eq!(inventory.cluster.nodes.len(), 3);

    let missing = source(&server).load().expect_err("no token");
    assert_eq!(code(&missing), "resource_pool::ray::unauthorized");
    assert!(
        help(&missing).contains("RESOURCE_POOL_RAY_TOKEN"),
        "{}",
        help(&missing)
    );
    assert!(missing.to_string().contains("401"));

    let wrong = Secret::new("wrong").expect("token");
    let refused = source(&server)
        .with_token(Some(wrong))
        .load()
        .expect_err("wrong token");
    assert_eq!(code(&refused), "resource_pool::ray::unauthorized");
    assert!(refused.to_string().contains("403"));
    assert!(!refused.to_string().contains("wrong") || !format!("{refused:?}").contains("Bearer"));
}

#[test]
fn server_errors_are_http_status() {
    let server = FakeDashboard::start(|_: &Seen| {
        Reply::Status(500, r#"{"result": false, "msg": "GCS is down"}"#)
    });
    let error = source(&server).load().expect_err("500");
    assert_eq!(code(&error), "resource_pool::ray::http_status");
    assert!(
        error.to_string().contains("500") && error.to_string().contains("GCS is down"),
        "{error}"
    );

    let not_ray = FakeDashboard::start(|_: &Seen| Reply::Status(404, "404: Not Found"));
    let error = source(&not_ray).load().expect_err("404");
    assert_eq!(code(&error), "resource_pool::ray::http_status");
    assert!(help(&error).contains("8265"));
}

#[test]
fn a_silent_server_times_out_within_the_budget() {
    let server = FakeDashboard::start(|seen: &Seen| {
        Reply::After(Duration::from_secs(10), Box::new(fixtures("idle")(seen)))
    });
    let start = Instant::now();
    let error = RaySource::new(&server.url)
        .expect("url")
        .with_read_timeout(Duration::from_millis(500))
        .with_timeout(Duration::from_secs(3))
        .load()
        .expect_err("timeout");
    let elapsed = start.elapsed();
    assert_eq!(code(&error), "resource_pool::ray::timeout");
    assert!(elapsed < Duration::from_millis(2500), "{elapsed:?}");
    // The help names the budget as the caller sets it: Rust's builder by default, the
    // command's flag or Python's argument as their front ends say.
    assert!(
        help(&error).contains("raise the timeout (`RaySource::with_timeout`)"),
        "{}",
        help(&error)
    );
    for (setting, words) in [
        (TimeoutSetting::Flag, "(`--ray-timeout-ms`)"),
        (TimeoutSetting::PythonArgument, "(`timeout=`, in seconds)"),
    ] {
        let error = RaySource::new(&server.url)
            .expect("url")
            .with_timeout(Duration::from_millis(300))
            .with_timeout_setting(setting)
            .load()
            .expect_err("timeout");
        assert!(help(&error).ends_with(words), "{}", help(&error));
    }
}

#[test]
fn a_slow_drip_is_cut_by_the_whole_budget() {
    // Each byte comes well within the read timeout, but the whole body would take minutes.
    let server = FakeDashboard::start(|_: &Seen| {
        Reply::Drip(
            fixture("idle_api_v0_nodes_detail.json"),
            Duration::from_millis(50),
        )
    });
    let budget = Duration::from_millis(1500);
    let start = Instant::now();
    let error = RaySource::new(&server.url)
        .expect("url")
        .with_read_timeout(Duration::from_secs(2))
        .with_timeout(budget)
        .load()
        .expect_err("timeout");
    let elapsed = start.elapsed();
    assert_eq!(code(&error), "resource_pool::ray::timeout", "{error}");
    assert!(elapsed < budget + Duration::from_millis(700), "{elapsed:?}");
}

#[test]
fn a_closed_connection_is_a_transport_error() {
    let server = FakeDashboard::start(|_: &Seen| Reply::Close);
    let error = source(&server).load().expect_err("closed");
    assert!(
        [
            "resource_pool::ray::transport",
            "resource_pool::ray::unreachable"
        ]
        .contains(&code(&error).as_str()),
        "{}: {error}",
        code(&error)
    );
}

#[test]
fn a_body_that_is_not_ray_is_bad_body() {
    let server = FakeDashboard::start(|_: &Seen| {
        Reply::Json(b"<html><body>Welcome to nginx!</body></html>".to_vec())
    });
    let error = source(&server).load().expect_err("garbage");
    assert_eq!(code(&error), "resource_pool::ray::bad_body");
    assert!(matches!(error, InventoryError::RayJson(_)));
    let truncated = FakeDashboard::start(|_: &Seen| {
        let mut body = fixture("idle_api_v0_nodes_detail.json");
        body.truncate(body.len() / 2);
        Reply::Json(body)
    });
    assert_eq!(
        code(&source(&truncated).load().expect_err("half")),
        "resource_pool::ray::bad_body"
    );
}

#[test]
fn bodies_past_the_limit_are_refused() {
    let server = FakeDashboard::start(fixtures("heldpg"));
    let error = source(&server)
        .with_max_body_bytes(1000)
        .load()
        .expect_err("too large");
    assert_eq!(code(&error), "resource_pool::ray::too_large");
}

#[test]
fn a_closed_port_is_unreachable_at_once() {
    // Bind, learn the port, and close it again: nothing listens there now.
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("port");
    let start = Instant::now();
    let error = RaySource::new(&format!("http://127.0.0.1:{port}"))
        .expect("url")
        .load()
        .expect_err("closed port");
    assert_eq!(code(&error), "resource_pool::ray::unreachable", "{error}");
    assert!(help(&error).contains("ray status"));
    assert!(start.elapsed() < Duration::from_secs(2));
}

/// A cluster of `n` nodes that honours the `limit` parameter as Ray does.
fn many_nodes(seen: &Seen) -> Reply {
    let n = 150;
    let path = seen.target.split('?').next().unwrap_or_default();
    let limit: usize = seen
        .target
        .split(['?', '&'])
        .find_map(|kv| kv.strip_prefix("limit="))
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    match path {
        "/api/v0/nodes" => {
            let nodes: Vec<String> = (0..n.min(limit))
                .map(|i| {
                    format!(
                        r#"{{"node_id": "n{i:03}", "node_ip": "10.0.0.{i}", "state": "ALIVE", "resources_total": {{"GPU": 8.0, "CPU": 64.0, "node:10.0.0.{i}": 1.0}}, "labels": {{}}}}"#
                    )
                })
                .collect();
            let body = format!(
                r#"{{"result": true, "msg": "", "data": {{"result": {{"total": {n}, "result": [{}]}}}}}}"#,
                nodes.join(",")
            );
            Reply::Json(body.into_bytes())
        }
        "/api/cluster_status" => Reply::Json(fixture("autoscaler_v2_api_cluster_status.json")),
        "/api/version" => Reply::Json(fixture("idle_api_version.json")),
        _ => Reply::Json(fixture("idle_api_v0_placement_groups_detail.json")),
    }
}

#[test]
fn more_than_a_hundred_nodes_are_read() {
    let server = FakeDashboard::start(many_nodes);
    let inventory = source(&server).load().expect("load");
    assert_eq!(inventory.cluster.alive().count(), 150);
    assert!(
        inventory
            .cluster
            .nodes
            .iter()
            .all(|n| n.available == res(&[("GPU", 8), ("CPU", 64)]))
    );

    // A small page is truncated, and asked again with a page as large as the count.
    let server = FakeDashboard::start(many_nodes);
    let inventory = source(&server).with_limit(100).load().expect("load");
    assert_eq!(inventory.cluster.nodes.len(), 150);
    let targets: Vec<_> = server.seen().into_iter().map(|s| s.target).collect();
    assert_eq!(targets[0], "/api/version");
    assert_eq!(targets[1], "/api/v0/nodes?detail=1&limit=100");
    assert_eq!(targets[2], "/api/v0/nodes?detail=1&limit=150");
}

#[test]
fn the_source_names_itself() {
    let source = RaySource::new("127.0.0.1:8265").expect("url");
    assert_eq!(source.name(), "Ray dashboard at http://127.0.0.1:8265");
}

#[test]
fn recorded_ray_2_41_is_read_node_by_node() {
    let server = FakeDashboard::start(recorded("2.41", "heldpg"));
    let read = source(&server).load_with_version().expect("load");
    let version = read.version.expect("a version");
    assert_eq!(version.ray_version, "2.41.0");
    assert!(read.unverified.is_none());
    let nodes: Vec<_> = read
        .inventory
        .cluster
        .nodes
        .iter()
        .map(|n| {
            (
                n.address.clone().unwrap_or_default(),
                n.available.clone(),
                n.total.clone().unwrap_or_default(),
            )
        })
        .collect();
    let h100 = res(&[
        ("GPU", 4),
        ("CPU", 16),
        ("accelerator_type:H100", 1),
        ("my_custom", 2),
    ]);
    // The held group of four {CPU: 1, GPU: 1} bundles sits on the head.
    assert_eq!(
        nodes,
        [
            (
                "127.0.0.2".to_owned(),
                res(&[("GPU", 4), ("CPU", 28)]),
                res(&[("GPU", 8), ("CPU", 32)])
            ),
            (
                "127.0.0.3".to_owned(),
                res(&[("GPU", 4), ("CPU", 8)]),
                res(&[("GPU", 4), ("CPU", 8)])
            ),
            ("127.0.0.4".to_owned(), h100.clone(), h100),
        ]
    );
    // Ray 2.41 labels its nodes `ray.io/node_id` (2.60: `ray.io/node-id`); kept as given.
    let head = &read.inventory.cluster.nodes[0];
    assert_eq!(
        head.labels.get("ray.io/node_id").map(String::as_str),
        Some(head.id.as_str())
    );
    assert!(
        matches!(
            &read.inventory.notes[..],
            [InventoryNote::HeldByPlacementGroup { .. }]
        ),
        "{:?}",
        read.inventory.notes
    );
    let idle = FakeDashboard::start(recorded("2.41", "idle"));
    let idle = source(&idle).load().expect("idle");
    assert!(idle.notes.is_empty(), "{:?}", idle.notes);
    assert!(
        idle.cluster
            .nodes
            .iter()
            .all(|n| n.total.as_ref() == Some(&n.available))
    );
}

#[test]
fn a_version_outside_the_verified_range_is_a_warning() {
    let newer = FakeDashboard::start(|seen: &Seen| match seen.target.as_str() {
        "/api/version" => Reply::Json(br#"{"version": "4", "ray_version": "2.70.0"}"#.to_vec()),
        _ => fixtures("idle")(seen),
    });
    let read = source(&newer).load_with_version().expect("load");
    assert_eq!(
        read.version.map(|v| v.ray_version).as_deref(),
        Some("2.70.0")
    );
    let warning = read.unverified.expect("a warning");
    let code = miette::Diagnostic::code(&warning).map(|c| c.to_string());
    assert_eq!(
        code.as_deref(),
        Some("resource_pool::ray::unverified_version")
    );
    assert_eq!(
        warning.to_string(),
        "the dashboard runs Ray 2.70.0, outside the verified range (Ray 2.41 to 2.60)"
    );
    assert_eq!(read.inventory.cluster.nodes.len(), 3);

    // No `/api/version` (a proxy that routes only the state API): read, with a warning.
    let silent = FakeDashboard::start(|seen: &Seen| match seen.target.as_str() {
        "/api/version" => Reply::Status(404, "404: Not Found"),
        _ => fixtures("idle")(seen),
    });
    let read = source(&silent).load_with_version().expect("load");
    assert!(read.version.is_none());
    assert!(
        read.unverified
            .expect("a warning")
            .to_string()
            .contains("unknown version")
    );
}

#[test]
fn a_401_and_a_403_get_different_help_with_and_without_a_token() {
    let server = FakeDashboard::start(|seen: &Seen| match seen.header("Authorization") {
        Some(_) => Reply::Status(401, "Unauthorized"),
        None => Reply::Status(403, "Forbidden"),
    });
    let without = help(&source(&server).load().expect_err("403"));
    assert!(
        without.contains("forbids requests without a token"),
        "{without}"
    );
    let token = Secret::new("t0ken").expect("token");
    let with = source(&server)
        .with_token(Some(token))
        .load()
        .expect_err("401");
    assert!(help(&with).contains("not recognised"), "{}", help(&with));
    assert!(!with.to_string().contains("t0ken") && !help(&with).contains("t0ken"));
}
