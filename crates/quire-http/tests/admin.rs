//! Audit log (`[audit] enabled`) and rate limit (`[server.rate_limit]`) through the router.

mod support;

use std::net::SocketAddr;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Method, Request};
use http_body_util::BodyExt;
use quire_config::Config;
use support::TestServer;
use tower::ServiceExt;

fn config(toml: &str) -> Config {
    Config::from_toml_str(toml, &|_| None).unwrap().config
}

const AUDITED: &str =
    "[audit]\nenabled = true\n[auth]\ntype = \"apikey\"\napi_key = \"admin-key\"\n\
    [[auth.api_keys]]\nkey = \"writer-key\"\nscope = \"write\"\nactor = \"wendy\"\n\
    [[auth.api_keys]]\nkey = \"reader-key\"\nscope = \"read\"\n";

async fn send(
    server: &TestServer,
    method: Method,
    uri: &str,
    key: Option<&str>,
    client: &str,
) -> (u16, axum::http::HeaderMap, serde_json::Value) {
    let mut request = Request::builder().method(method).uri(uri);
    if let Some(key) = key {
        request = request.header("authorization", format!("Bearer {key}"));
    }
    let mut request = request.body(Body::from("# Page\n")).unwrap();
    let addr: SocketAddr = format!("{client}:40000").parse().unwrap();
    request.extensions_mut().insert(ConnectInfo(addr));
    let response = server.app.clone().oneshot(request).await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    let json = serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null);
    (status, headers, json)
}

#[tokio::test]
async fn changes_and_refusals_are_audited_without_the_token() {
    let server = TestServer::spaces(&["default"], &config(AUDITED));
    let c = "10.0.0.7";
    assert_eq!(
        send(
            &server,
            Method::PUT,
            "/api/quire/file?path=a.md",
            Some("writer-key"),
            c
        )
        .await
        .0,
        200
    );
    // Reads are not audited; refusals are.
    assert_eq!(
        send(
            &server,
            Method::GET,
            "/api/quire/tree",
            Some("reader-key"),
            c
        )
        .await
        .0,
        200
    );
    assert_eq!(
        send(
            &server,
            Method::PUT,
            "/api/quire/file?path=b.md",
            Some("reader-key"),
            c
        )
        .await
        .0,
        403
    );
    assert_eq!(
        send(&server, Method::GET, "/api/quire/tree", Some("nope"), c)
            .await
            .0,
        401
    );
    assert_eq!(
        send(&server, Method::GET, "/api/quire/tree", None, c)
            .await
            .0,
        401
    );

    // The log needs an admin.
    assert_eq!(
        send(
            &server,
            Method::GET,
            "/api/quire/audit",
            Some("writer-key"),
            c
        )
        .await
        .0,
        403
    );
    let (status, _, body) = send(
        &server,
        Method::GET,
        "/api/quire/audit",
        Some("admin-key"),
        c,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let entries = body.as_array().expect("GET /audit answers a JSON array");
    let summary: Vec<(String, String, u64)> = entries
        .iter()
        .map(|e| {
            (
                e["method"].as_str().unwrap().into(),
                e["route"].as_str().unwrap().into(),
                e["status"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            ("PUT".into(), "/api/quire/file".into(), 200),
            ("PUT".into(), "/api/quire/file".into(), 403),
            ("GET".into(), "/api/quire/tree".into(), 401),
            ("GET".into(), "/api/quire/tree".into(), 401),
            ("GET".into(), "/api/quire/audit".into(), 403),
        ],
        "{body}"
    );
    let first = &entries[0];
    assert_eq!(first["actor"], "wendy");
    assert_eq!(first["space"], "default");
    assert_eq!(first["ip"], c);
    assert_eq!(first["token_hash"].as_str().unwrap().len(), 16);
    assert!(first["ts"].as_str().unwrap().ends_with('Z'));
    assert!(first["duration_ms"].is_u64(), "{first}");
    // The spec's entry: every field named, the path with its query string.
    for field in [
        "ts",
        "method",
        "path",
        "space",
        "actor",
        "token_hash",
        "ip",
        "status",
        "duration_ms",
    ] {
        assert!(first.get(field).is_some(), "no {field} in {first}");
    }
    assert!(
        first["path"]
            .as_str()
            .unwrap()
            .starts_with("/api/quire/file?path="),
        "{first}"
    );
    assert!(entries[3]["token_hash"].is_null(), "no token, no hash");

    // Never the token itself, in the answer or on disk.
    let on_disk =
        std::fs::read_to_string(server.dir.path().join("default/.quire/state/audit.jsonl"))
            .unwrap();
    for secret in ["writer-key", "reader-key", "admin-key", "nope"] {
        assert!(!on_disk.contains(secret), "{secret} in the audit log");
        assert!(!body.to_string().contains(secret));
    }

    // since / limit.
    let (_, _, limited) = send(
        &server,
        Method::GET,
        "/api/quire/audit?limit=2",
        Some("admin-key"),
        c,
    )
    .await;
    assert_eq!(limited.as_array().unwrap().len(), 2);
    let (_, _, later) = send(
        &server,
        Method::GET,
        "/api/quire/audit?since=2999-01-01T00:00:00Z",
        Some("admin-key"),
        c,
    )
    .await;
    assert_eq!(later.as_array().unwrap().len(), 0);
    for bad in ["limit=0", "limit=10001", "since=yesterday"] {
        let (status, _, body) = send(
            &server,
            Method::GET,
            &format!("/api/quire/audit?{bad}"),
            Some("admin-key"),
            c,
        )
        .await;
        assert_eq!(status, 400, "{bad}: {body}");
        assert!(body["error"].is_string());
    }
}

#[tokio::test]
async fn audit_off_answers_501() {
    let server = TestServer::spaces(
        &["default"],
        &config("[auth]\ntype = \"apikey\"\napi_key = \"k\"\n"),
    );
    let (status, _, body) = send(
        &server,
        Method::GET,
        "/api/quire/audit",
        Some("k"),
        "127.0.0.1",
    )
    .await;
    assert_eq!(status, 501, "{body}");
    assert!(body["error"].as_str().unwrap().contains("audit"));
    assert!(!server
        .dir
        .path()
        .join("default/.quire/state/audit.jsonl")
        .exists());
}

#[tokio::test]
async fn the_rate_limit_is_a_bucket_per_token_or_address_and_spares_the_probes() {
    let toml = "[server.rate_limit]\nrequests_per_minute = 60\nburst_size = 3\n\
                [auth]\ntype = \"apikey\"\napi_key = \"admin-key\"\n\
                [[auth.api_keys]]\nkey = \"other-key\"\nscope = \"read\"\n";
    let server = TestServer::spaces(&["default"], &config(toml));
    let c = "10.1.1.1";
    for _ in 0..3 {
        assert_eq!(
            send(
                &server,
                Method::GET,
                "/api/quire/tree",
                Some("admin-key"),
                c
            )
            .await
            .0,
            200
        );
    }
    let (status, headers, body) = send(
        &server,
        Method::GET,
        "/api/quire/tree",
        Some("admin-key"),
        c,
    )
    .await;
    assert_eq!(status, 429, "{body}");
    let retry: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=2).contains(&retry), "{retry}");
    assert!(body["error"].as_str().unwrap().contains("too many"));
    // Another token from the same address has its own bucket.
    assert_eq!(
        send(
            &server,
            Method::GET,
            "/api/quire/tree",
            Some("other-key"),
            c
        )
        .await
        .0,
        200
    );
    // Anonymous callers are keyed by address.
    for _ in 0..3 {
        assert_eq!(
            send(&server, Method::GET, "/api/quire/tree", None, "10.2.2.2")
                .await
                .0,
            401
        );
    }
    assert_eq!(
        send(&server, Method::GET, "/api/quire/tree", None, "10.2.2.2")
            .await
            .0,
        429
    );
    assert_eq!(
        send(&server, Method::GET, "/api/quire/tree", None, "10.3.3.3")
            .await
            .0,
        401
    );
    // Probes are exempt.
    for uri in ["/health", "/healthz", "/readyz", "/metrics"] {
        for _ in 0..5 {
            let (status, _, _) = send(&server, Method::GET, uri, Some("admin-key"), c).await;
            assert_eq!(status, 200, "{uri}");
        }
    }
}

/// The value of the sample `line_start` (metric name with its labels) in a scrape.
fn sample(text: &str, line_start: &str) -> f64 {
    text.lines()
        .find_map(|l| {
            l.strip_prefix(line_start)
                .map(|v| v.trim().parse::<f64>().unwrap())
        })
        .unwrap_or_else(|| panic!("no {line_start} in\n{text}"))
}

#[tokio::test]
async fn metrics_count_requests_by_route_template_and_the_work_done() {
    let server = TestServer::new();
    server
        .put("notes/secret-name.md", "# A\n\n[[b]]\n", "alice")
        .await;
    server.put("b.md", "# B\n", "alice").await;
    assert_eq!(
        server
            .get("/api/quire/file?path=notes/secret-name.md")
            .await
            .status,
        200
    );
    assert_eq!(
        server.get("/api/quire/file?path=missing.md").await.status,
        404
    );
    let plan = server
        .call(
            Method::POST,
            "/api/quire/refactor/plan",
            &[("content-type", "application/json")],
            Body::from(r#"{"moves":[{"from":"b.md","to":"c.md"}]}"#),
        )
        .await;
    assert_eq!(plan.status, 200, "{}", plan.text());
    // An open event stream counts as a subscriber until it closes.
    let stream = server
        .app
        .clone()
        .oneshot(
            Request::get("/api/quire/events")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    let text = server.get("/metrics").await.text();
    assert_eq!(sample(&text, "quire_sse_subscribers "), 1.0);
    drop(stream);
    let text = server.get("/metrics").await.text();
    assert_eq!(sample(&text, "quire_sse_subscribers "), 0.0);

    for (line, value) in [
        (
            r#"quire_http_requests_total{method="PUT",route="/api/quire/file",status="200"}"#,
            2.0,
        ),
        (
            r#"quire_http_requests_total{method="GET",route="/api/quire/file",status="200"}"#,
            1.0,
        ),
        (
            r#"quire_http_requests_total{method="GET",route="/api/quire/file",status="404"}"#,
            1.0,
        ),
        (
            r#"quire_http_request_duration_seconds_count{method="PUT",route="/api/quire/file"}"#,
            2.0,
        ),
        (r#"quire_writes_total{space="default"}"#, 2.0),
        (r#"quire_files_written_total{space="default"}"#, 2.0),
        (r#"quire_plans_total{space="default"}"#, 1.0),
        (r#"quire_applies_total{space="default"}"#, 0.0),
        (r#"quire_reverts_total{space="default"}"#, 0.0),
        (r#"quire_files{space="default"}"#, 2.0),
    ] {
        assert_eq!(sample(&text, line), value, "{line}");
    }
    // Every write was a commit here (synchronous git), and each took some time.
    let commits = sample(&text, r#"quire_commits_total{space="default"}"#);
    assert!(commits >= 2.0, "{commits}");
    assert_eq!(
        sample(
            &text,
            r#"quire_commit_duration_seconds_count{space="default"}"#
        ),
        commits
    );
    assert_eq!(
        sample(
            &text,
            r#"quire_commit_duration_seconds_bucket{space="default",le="+Inf"}"#
        ),
        commits
    );
    assert!(
        sample(
            &text,
            r#"quire_commit_duration_seconds_sum{space="default"}"#
        ) > 0.0
    );
    // Route templates, never raw paths or queries.
    assert!(!text.contains("secret-name"), "{text}");
    assert!(!text.contains("missing.md"), "{text}");
}

async fn call_json(
    server: &TestServer,
    method: Method,
    uri: &str,
    key: Option<&str>,
    body: &str,
) -> (u16, String) {
    let mut headers = vec![("content-type", "application/json".to_string())];
    if let Some(key) = key {
        headers.push(("authorization", format!("Bearer {key}")));
    }
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let reply = server
        .call(method, uri, &headers, Body::from(body.to_string()))
        .await;
    (
        reply.status.as_u16(),
        String::from_utf8_lossy(&reply.body).into_owned(),
    )
}

#[tokio::test]
async fn public_pages_are_served_only_when_the_space_and_the_page_say_so() {
    let toml = "[auth]\ntype = \"apikey\"\napi_key = \"admin-key\"\n\
                [[auth.api_keys]]\nkey = \"writer-key\"\nscope = \"write\"\n";
    let server = TestServer::spaces(&["default"], &config(toml));
    for (path, text) in [
        ("pub.md", "---\nvisibility: public\n---\n# Open\n"),
        (
            "notes/pub2.md",
            "---\nvisibility: Public\n---\n# Open too\n",
        ),
        ("priv.md", "# Closed\n"),
        ("notes/other.md", "---\nvisibility: private\n---\n# No\n"),
    ] {
        let (status, body) = call_json(
            &server,
            Method::PUT,
            &format!("/api/quire/file?path={path}"),
            Some("admin-key"),
            text,
        )
        .await;
        assert_eq!(status, 200, "{body}");
    }
    // Private (the default): nothing is public, and the answer is a plain 404.
    let (status, _) = call_json(
        &server,
        Method::GET,
        "/api/quire/public/file?path=pub.md",
        None,
        "",
    )
    .await;
    assert_eq!(status, 404);

    // Only an admin changes it; bad values are 400 and change nothing.
    let put = |key, body: &'static str| {
        let server = &server;
        async move {
            call_json(
                server,
                Method::PUT,
                "/api/quire/space/visibility",
                key,
                body,
            )
            .await
        }
    };
    assert_eq!(
        put(Some("writer-key"), r#"{"visibility":"public"}"#)
            .await
            .0,
        403
    );
    assert_eq!(put(None, r#"{"visibility":"public"}"#).await.0, 401);
    let (status, body) = put(Some("admin-key"), r#"{"visibility":"everyone"}"#).await;
    assert_eq!(status, 400, "{body}");
    assert!(!server
        .dir
        .path()
        .join("default/.quire/config.toml")
        .exists());
    let (status, body) = put(Some("admin-key"), r#"{"visibility":"public"}"#).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"public\""));

    // Persisted in the space's configuration, committed.
    let config_text =
        std::fs::read_to_string(server.dir.path().join("default/.quire/config.toml")).unwrap();
    let reloaded = Config::from_toml_str(&config_text, &|_| None)
        .unwrap()
        .config;
    assert_eq!(reloaded.space.visibility, quire_config::Visibility::Public);
    let repo = git2::Repository::open(server.dir.path().join("default")).unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    assert!(
        head.message().unwrap().contains("visibility"),
        "{:?}",
        head.message()
    );

    // Live: public pages without credentials, everything else 404 alike.
    let (status, body) = call_json(
        &server,
        Method::GET,
        "/api/quire/public/file?path=pub.md",
        None,
        "",
    )
    .await;
    assert_eq!(
        (status, body.as_str()),
        (200, "---\nvisibility: public\n---\n# Open\n")
    );
    for path in [
        "priv.md",
        "notes/other.md",
        "missing.md",
        "../etc/passwd",
        ".quire/config.toml",
    ] {
        let (status, body) = call_json(
            &server,
            Method::GET,
            &format!("/api/quire/public/file?path={path}"),
            None,
            "",
        )
        .await;
        assert_eq!(status, 404, "{path}: {body}");
    }
    let (status, body) = call_json(&server, Method::GET, "/api/quire/public/tree", None, "").await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("pub.md") && body.contains("notes/pub2.md"),
        "{body}"
    );
    assert!(
        !body.contains("priv.md") && !body.contains("other.md") && !body.contains("config"),
        "{body}"
    );
    // Everything else still needs credentials.
    let (status, _) = call_json(
        &server,
        Method::GET,
        "/api/quire/file?path=pub.md",
        None,
        "",
    )
    .await;
    assert_eq!(status, 401);

    // Back to private: the public routes close at once.
    assert_eq!(
        put(Some("admin-key"), r#"{"visibility":"private"}"#)
            .await
            .0,
        200
    );
    let (status, _) = call_json(
        &server,
        Method::GET,
        "/api/quire/public/file?path=pub.md",
        None,
        "",
    )
    .await;
    assert_eq!(status, 404);
}
