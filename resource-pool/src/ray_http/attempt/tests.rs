use std::io;
use std::path::PathBuf;

use super::*;
use crate::ray_http::TokenSource;

const TRUST: TrustRoots = TrustRoots::System;

fn attempt<'a>(base_url: &'a str, url: &'a str, host: &'a str) -> Attempt<'a> {
    Attempt {
        base_url,
        url,
        host,
        token: None,
        trust: &TRUST,
        connect_timeout: Duration::from_secs(3),
        read_timeout: Duration::from_secs(5),
        timeout: Duration::from_secs(10),
        timeout_setting: crate::ray_http::TimeoutSetting::default(),
        deadline: std::time::Instant::now() + Duration::from_secs(10),
    }
}

fn help(error: &RayHttpError) -> String {
    miette::Diagnostic::help(error)
        .map(|h| h.to_string())
        .unwrap_or_default()
}

fn io_error(kind: ErrorKind, text: &str) -> ureq::Error {
    ureq::Error::Io(io::Error::new(kind, text))
}

#[test]
fn a_reset_before_the_answer_may_be_a_tls_port() {
    let http = attempt(
        "http://127.0.0.1:40001",
        "http://127.0.0.1:40001/api/version",
        "127.0.0.1",
    );
    let reset = || io_error(ErrorKind::ConnectionReset, "Connection reset by peer");
    let error = http.map_error(reset(), Phase::Request);
    assert!(
        matches!(
            error,
            RayHttpError::Transport {
                kind: TransportKind::ClosedBeforeAnswer,
                ..
            }
        ),
        "{error:?}"
    );
    // Right whether the port speaks TLS or the reset was a passing one.
    assert!(
        help(&error).starts_with("if this port serves https (a TLS dashboard or ingress), use `https://127.0.0.1:40001`; otherwise retry"),
        "{}",
        help(&error)
    );
    assert!(
        error
            .to_string()
            .contains("closed the connection without answering")
    );

    // In the middle of a body, a reset is a broken connection: retry.
    let error = http.map_error(reset(), Phase::Body);
    assert!(matches!(
        error,
        RayHttpError::Transport {
            kind: TransportKind::Other,
            ..
        }
    ));
    assert!(help(&error).starts_with("retry;"), "{}", help(&error));

    // Already https: no https to suggest.
    let https = attempt("https://h:443", "https://h:443/api/version", "h");
    let error = https.map_error(
        io_error(ErrorKind::UnexpectedEof, "Peer disconnected"),
        Phase::Request,
    );
    assert!(matches!(
        error,
        RayHttpError::Transport {
            kind: TransportKind::ClosedBeforeAnswer,
            ..
        }
    ));
    assert!(help(&error).starts_with("retry;"), "{}", help(&error));
}

#[test]
fn a_host_that_does_not_resolve_is_unreachable_not_transport() {
    // std's failed lookup reaches us as an I/O error of no particular kind.
    let lookup = || {
        io_error(
            ErrorKind::Other,
            "failed to lookup address information: Name or service not known",
        )
    };
    let mut missing = attempt(
        "http://no-such-host.invalid:8265",
        "http://no-such-host.invalid:8265/api/version",
        "no-such-host.invalid",
    );
    // Long enough for a resolver that is not reachable to give up (it fails too).
    missing.connect_timeout = Duration::from_secs(30);
    missing.deadline = std::time::Instant::now() + Duration::from_secs(30);
    let error = missing.map_error(lookup(), Phase::Request);
    assert!(
        matches!(
            error,
            RayHttpError::Unreachable {
                reason: UnreachableReason::NoSuchHost,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("no such host: failed to lookup"),
        "{error}"
    );
    assert!(
        help(&error).starts_with("check the host name `no-such-host.invalid`"),
        "{}",
        help(&error)
    );
    let json = serde_json::to_value(&error).expect("json");
    assert_eq!(json["reason"], "no_such_host");
    // ureq's own "resolves to nothing" is the same diagnostic.
    let error = missing.map_error(ureq::Error::HostNotFound, Phase::Request);
    assert!(matches!(
        error,
        RayHttpError::Unreachable {
            reason: UnreachableReason::NoSuchHost,
            ..
        }
    ));
    // The same kind of error for a host that resolves (or an address) stays a transport
    // error.
    for (base, host) in [
        ("http://localhost:8265", "localhost"),
        ("http://10.0.0.1:8265", "10.0.0.1"),
    ] {
        let url = format!("{base}/api/version");
        let error = attempt(base, &url, host).map_error(lookup(), Phase::Request);
        assert!(
            matches!(
                error,
                RayHttpError::Transport {
                    kind: TransportKind::Other,
                    ..
                }
            ),
            "{host}: {error:?}"
        );
    }
}

#[test]
fn a_refused_connection_is_unreachable() {
    let at = attempt("http://h:1", "http://h:1/api/version", "h");
    let error = at.map_error(
        io_error(ErrorKind::ConnectionRefused, "Connection refused"),
        Phase::Request,
    );
    assert!(matches!(
        error,
        RayHttpError::Unreachable {
            reason: UnreachableReason::Refused,
            ..
        }
    ));
    assert!(help(&error).contains("ray status"), "{}", help(&error));
}

#[test]
fn locations_are_made_absolute() {
    let url = "http://127.0.0.1:40040/ray/api/version";
    let cases = [
        (
            "https://localhost:40001/api/version",
            Some("https://localhost:40001/api/version"),
        ),
        ("/login", Some("http://127.0.0.1:40040/login")),
        ("//ingress/x", Some("http://ingress/x")),
        ("other", Some("http://127.0.0.1:40040/ray/api/other")),
        ("", None),
        ("bad\u{7}bell", None),
    ];
    for (location, expected) in cases {
        assert_eq!(
            absolute_location(url, location).as_deref(),
            expected,
            "{location}"
        );
    }
    let long = format!("https://h/{}", "a".repeat(1000));
    let shown = absolute_location(url, &long).expect("shown");
    assert_eq!(shown.chars().count(), MAX_LOCATION_CHARS + 1);
}

#[test]
fn a_redirect_names_its_target() {
    let at = attempt(
        "http://127.0.0.1:40040",
        "http://127.0.0.1:40040/api/version",
        "127.0.0.1",
    );
    let error = at.status_error(
        301,
        "(empty body)".into(),
        Some("https://localhost:40001/api/version"),
    );
    assert_eq!(
        error.to_string(),
        "the Ray dashboard at http://127.0.0.1:40040/api/version answered HTTP 301, a redirect to https://localhost:40001/api/version: (empty body)"
    );
    assert_eq!(
        help(&error),
        "redirects are not followed (a token must not follow one): give the address it redirects to, `https://localhost:40001`, in place of `http://127.0.0.1:40040`"
    );
    let json = serde_json::to_value(&error).expect("json");
    assert_eq!(json["location"], "https://localhost:40001/api/version");
    // A target that is not the dashboard's path (a login page) is shown as it is.
    let error = at.status_error(302, String::new(), Some("/oauth2/start"));
    assert!(
        help(&error).starts_with("it redirects to `http://127.0.0.1:40040/oauth2/start`"),
        "{}",
        help(&error)
    );
    // A redirect to the address asked (a cookie being set): no "give X in place of X".
    let error = at.status_error(
        302,
        String::new(),
        Some("http://127.0.0.1:40040/api/version"),
    );
    assert!(!help(&error).contains("in place of"), "{}", help(&error));
    let error = at.status_error(301, String::new(), None);
    assert!(help(&error).ends_with("give the final address"));
    assert!(
        serde_json::to_value(&error)
            .expect("json")
            .get("location")
            .is_none()
    );
}

#[test]
fn a_refused_token_names_its_source() {
    let env = |k: &str| match k {
        "RESOURCE_POOL_RAY_TOKEN" => Some("wrong".to_owned()),
        "RAY_AUTH_TOKEN" => Some("s3cret".to_owned()),
        _ => None,
    };
    let token = crate::ray_http::token_from_lookup(env)
        .expect("token")
        .expect("some token");
    let mut at = attempt("http://h:1", "http://h:1/api/version", "h");
    at.token = Some(&token);
    let error = at.status_error(401, "Unauthorized".into(), None);
    assert_eq!(
        error.to_string(),
        "the Ray dashboard at http://h:1/api/version refused the request (401, with the token from RESOURCE_POOL_RAY_TOKEN): Unauthorized"
    );
    assert!(
        help(&error).ends_with(
            "; RAY_AUTH_TOKEN is set too, but not used: RESOURCE_POOL_RAY_TOKEN comes first"
        ),
        "{}",
        help(&error)
    );
    let json = serde_json::to_value(&error).expect("json");
    assert_eq!(
        json["token_source"],
        serde_json::json!({"kind": "variable", "name": "RESOURCE_POOL_RAY_TOKEN"})
    );
    assert_eq!(
        json["unused_token_sources"],
        serde_json::json!(["RAY_AUTH_TOKEN"])
    );
    for shown in [
        error.to_string(),
        help(&error),
        json.to_string(),
        format!("{error:?}"),
    ] {
        assert!(
            !shown.contains("wrong") && !shown.contains("s3cret"),
            "{shown}"
        );
    }

    let file = TokenSource::File {
        path: PathBuf::from("/etc/ray/token"),
        variable: Some("RAY_AUTH_TOKEN_PATH".into()),
    };
    assert_eq!(
        file.to_string(),
        "the file `/etc/ray/token` named by RAY_AUTH_TOKEN_PATH"
    );
    at.token = None;
    let error = at.status_error(401, "Unauthorized".into(), None);
    assert!(
        error.to_string().contains("(401, no token sent)"),
        "{error}"
    );
    assert!(serde_json::to_value(&error).expect("json")["token_source"].is_null());
}

#[test]
fn auth_help_depends_on_the_token_and_the_status() {
    let all = [(false, 401), (false, 403), (true, 401), (true, 403)].map(|(t, s)| auth_help(t, s));
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            assert_ne!(a, b);
        }
    }
    assert!(all[0].contains("requires a token"));
    assert!(all[1].contains("forbids"));
    assert!(all[2].contains("not recognised"));
    assert!(all[3].contains("refused"));
}

#[test]
fn a_ca_file_that_is_not_utf8_keeps_the_json_data() {
    use std::os::unix::ffi::OsStrExt;
    let path = PathBuf::from(std::ffi::OsStr::from_bytes(b"/tmp/ca-\xff.pem"));
    let trust = TrustRoots::Authorities {
        origin: path,
        certificates: std::sync::Arc::new(Vec::new()),
    };
    let at = Attempt {
        trust: &trust,
        ..attempt("https://h:443", "https://h:443/api/version", "h")
    };
    let error = at.tls_error(TlsProblem::UnknownIssuer);
    let json = serde_json::to_value(&error).expect("json");
    assert_eq!(json["ca_file"], "/tmp/ca-\u{fffd}.pem");
    assert_eq!(json["host"], "h");
}

#[test]
fn the_look_up_that_words_an_error_keeps_to_the_deadline() {
    // The whole read's time is up: no look-up of the name (which could take the connect
    // timeout again), so an unexplained failure stays a transport error, at once.
    let at = Attempt {
        deadline: std::time::Instant::now(),
        ..attempt(
            "http://no-such-host.invalid:8265",
            "http://no-such-host.invalid:8265/api/version",
            "no-such-host.invalid",
        )
    };
    let started = std::time::Instant::now();
    let error = at.map_error(io_error(ErrorKind::Other, "lookup failed"), Phase::Request);
    assert!(matches!(error, RayHttpError::Transport { .. }), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
}
