//! Addresses that are not the dashboard's, and refusals a retry does not fix: each one says
//! what is wrong and what to give instead (a port that is not HTTP, a host that does not
//! resolve, a redirect, a token from a source that shadows another). Over TLS in
//! [`super::tls`].

use std::time::Duration;

use resource_pool::ray_http::{RaySource, token_from_lookup};
use resource_pool_inventory::{InventoryError, InventorySource};

use super::{FakeDashboard, Reply, Seen, code, fixtures, help};

fn source(url: &str) -> RaySource {
    RaySource::new(url)
        .expect("url")
        .with_timeout(Duration::from_secs(5))
        .with_read_timeout(Duration::from_secs(2))
        .with_connect_timeout(Duration::from_secs(1))
}

/// The typed fields, as the JSON output's `data` has them.
fn data(error: &InventoryError) -> serde_json::Value {
    serde_json::to_value(error).expect("json")
}

/// What a gRPC server (Ray's GCS port) answers to an HTTP/1.1 request: an HTTP/2 SETTINGS
/// frame, then a GOAWAY.
const HTTP2_FRAMES: &[u8] = b"\x00\x00\x06\x04\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x64\
\x00\x00\x08\x07\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01";

#[test]
fn a_port_that_is_not_http_is_not_the_dashboard() {
    for raw in [HTTP2_FRAMES, b"SSH-2.0-OpenSSH_9.6\r\n".as_slice()] {
        let server = FakeDashboard::start(move |_: &Seen| Reply::Raw(raw));
        let error = source(&server.url).load().expect_err("not http");
        assert_eq!(code(&error), "resource_pool::ray::transport", "{error}");
        assert_eq!(data(&error)["kind"], "not_http", "{error}");
        assert!(
            error.to_string().contains("does not answer in HTTP"),
            "{error}"
        );
        let help = help(&error);
        assert!(
            help.starts_with("this port is not the dashboard's")
                && help.contains("8265")
                && help.contains("GCS"),
            "{help}"
        );
        assert!(!help.contains("retry"), "{help}");
    }
}

#[test]
fn a_host_that_does_not_resolve_is_no_such_host() {
    // `.invalid` never resolves (RFC 6761). A resolver this machine cannot reach makes the
    // lookup time out instead; either way it is not a transient transport error.
    let error = source("http://no-such-host.invalid:8265")
        .with_connect_timeout(Duration::from_secs(3))
        .load()
        .expect_err("no such host");
    match code(&error).as_str() {
        "resource_pool::ray::unreachable" => {
            assert_eq!(data(&error)["reason"], "no_such_host", "{error}");
            assert!(error.to_string().contains("no such host"), "{error}");
            assert!(
                help(&error).starts_with("check the host name `no-such-host.invalid`"),
                "{}",
                help(&error)
            );
        }
        "resource_pool::ray::timeout" => {
            assert_eq!(data(&error)["phase"], "connecting", "{error}");
        }
        other => panic!("{other}: {error}"),
    }
}

#[test]
fn a_redirect_shows_where_it_goes() {
    let server =
        FakeDashboard::start(|_: &Seen| Reply::Redirect("https://ray.example.com/api/version"));
    let error = source(&server.url).load().expect_err("301");
    assert_eq!(code(&error), "resource_pool::ray::http_status", "{error}");
    assert!(
        error
            .to_string()
            .contains("301, a redirect to https://ray.example.com/api/version"),
        "{error}"
    );
    assert_eq!(
        data(&error)["location"],
        "https://ray.example.com/api/version"
    );
    assert!(
        help(&error).contains("give the address it redirects to, `https://ray.example.com`"),
        "{}",
        help(&error)
    );
    // Not followed: one request, and nothing reached the target.
    assert_eq!(server.seen().len(), 1);
}

#[test]
fn a_refused_token_names_the_variable_it_came_from() {
    let server = FakeDashboard::start(|seen: &Seen| match seen.header("Authorization") {
        Some("Bearer s3cret") => fixtures("idle")(seen),
        _ => Reply::Status(403, "Forbidden: Invalid authentication token"),
    });
    // Both set: ours comes first, and it is the wrong one.
    let env = |name: &str| match name {
        "RESOURCE_POOL_RAY_TOKEN" => Some("wr0ng".to_owned()),
        "RAY_AUTH_TOKEN" => Some("s3cret".to_owned()),
        _ => None,
    };
    let token = token_from_lookup(env).expect("token");
    let error = source(&server.url)
        .with_token(token)
        .load()
        .expect_err("403");
    assert_eq!(code(&error), "resource_pool::ray::unauthorized", "{error}");
    assert!(
        error
            .to_string()
            .contains("(403, with the token from RESOURCE_POOL_RAY_TOKEN)"),
        "{error}"
    );
    assert!(
        help(&error).contains("RAY_AUTH_TOKEN is set too, but not used"),
        "{}",
        help(&error)
    );
    let data = data(&error);
    assert_eq!(data["token_source"]["name"], "RESOURCE_POOL_RAY_TOKEN");
    assert_eq!(data["unused_token_sources"][0], "RAY_AUTH_TOKEN");
    for shown in [error.to_string(), help(&error), data.to_string()] {
        assert!(
            !shown.contains("wr0ng") && !shown.contains("s3cret"),
            "{shown}"
        );
    }
}

/// The command line's JSON carries the token's source as data.
#[test]
fn the_cli_names_the_token_source() {
    let server = FakeDashboard::start(|_: &Seen| Reply::Status(401, "Unauthorized"));
    let output = crate::common::resource_pool()
        .args(["check", "examples/configs/single_node.toml"])
        .args(["--ray", &server.url, "--format", "json"])
        .env("RESOURCE_POOL_RAY_TOKEN", "wr0ng")
        .env("RAY_AUTH_TOKEN", "s3cret")
        .env_remove("RESOURCE_POOL_RAY_TOKEN_FILE")
        .env_remove("RAY_AUTH_TOKEN_PATH")
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stdout}{stderr}");
    let value = crate::common::json(&output);
    let diagnostic = &value["diagnostics"][0];
    assert_eq!(diagnostic["code"], "resource_pool::ray::unauthorized");
    assert_eq!(
        diagnostic["data"]["token_source"],
        serde_json::json!({"kind": "variable", "name": "RESOURCE_POOL_RAY_TOKEN"}),
        "{value}"
    );
    assert_eq!(
        diagnostic["data"]["unused_token_sources"],
        serde_json::json!(["RAY_AUTH_TOKEN"])
    );
    assert!(!stdout.contains("wr0ng") && !stderr.contains("wr0ng"));
}
