//! Webhook routes through the router: 503 when off; create (with its secret, once), list
//! (never the secret), delete, deliveries; bad input is a 4xx that stores nothing; only an
//! admin manages webhooks; a write through the API reaches a receiver on loopback and shows
//! in `/metrics`.

mod support;

use std::time::Duration;

use axum::body::Body;
use axum::http::Method;
use quire_config::Config;
use quire_testkit::receiver::Receiver;
use serde_json::json;
use support::TestServer;

const ADMIN: &str = "admin-key";
const WRITER: &str = "writer-key";
const READER: &str = "reader-key";

fn config(toml: &str) -> Config {
    Config::from_toml_str(toml, &|_| None).unwrap().config
}

fn keyed() -> Config {
    config(&format!(
        "[webhooks]\nenabled = true\n[auth]\ntype = \"apikey\"\napi_key = \"{ADMIN}\"\n\
         [[auth.api_keys]]\nkey = \"{WRITER}\"\nscope = \"write\"\n\
         [[auth.api_keys]]\nkey = \"{READER}\"\nscope = \"read\"\n"
    ))
}

fn fast() -> quire_webhooks::Settings {
    quire_webhooks::Settings {
        max_workers: 2,
        max_retries: 3,
        retry_base: Duration::from_millis(40),
        timeout: Duration::from_secs(5),
    }
}

fn open() -> (TestServer, std::sync::Arc<quire_webhooks::Webhooks>) {
    TestServer::with_webhooks(&["default", "other"], &Config::default(), fast())
}

async fn send(
    server: &TestServer,
    method: Method,
    uri: &str,
    key: Option<&str>,
    body: impl Into<Body>,
) -> support::Reply {
    let auth = key.map(|k| format!("Bearer {k}"));
    let mut headers = vec![("content-type", "application/json")];
    if let Some(a) = &auth {
        headers.push(("authorization", a.as_str()));
    }
    server.call(method, uri, &headers, body).await
}

async fn list(server: &TestServer, base: &str) -> Vec<serde_json::Value> {
    let reply = server.get(&format!("{base}/webhooks")).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.json().as_array().unwrap().clone()
}

#[tokio::test]
async fn every_webhook_route_answers_503_when_webhooks_are_off() {
    let server = TestServer::spaces(&["default", "other"], &Config::default());
    for base in ["/api/quire", "/api/quire/other"] {
        for (method, uri, body) in [
            (
                Method::POST,
                format!("{base}/webhooks"),
                json!({"url": "https://example.com/h"}).to_string(),
            ),
            (Method::GET, format!("{base}/webhooks"), String::new()),
            (
                Method::DELETE,
                format!("{base}/webhooks/wh_1"),
                String::new(),
            ),
            (
                Method::GET,
                format!("{base}/webhooks/wh_1/deliveries"),
                String::new(),
            ),
        ] {
            let reply = send(&server, method.clone(), &uri, None, body).await;
            assert_eq!(
                reply.expect_error(503),
                "webhooks not enabled",
                "{method} {uri}"
            );
        }
    }
    assert!(!server
        .dir
        .path()
        .join("default/.quire/state/webhooks.db")
        .exists());
}

#[tokio::test]
async fn create_list_delete_with_the_secret_shown_once() {
    let (server, hooks) = open();
    let reply = server
        .post_json(
            "/api/quire/webhooks",
            json!({"url": "https://hooks.example.com/quire", "path_glob": "notes/**"}),
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    let created = reply.json();
    let id = created["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("wh_"));
    assert_eq!(created["url"], "https://hooks.example.com/quire");
    assert_eq!(created["path_glob"], "notes/**");
    assert_eq!(created["enabled"], true);
    assert!(created["created_at"].as_str().unwrap().ends_with('Z'));
    assert!(created["secret"].as_str().unwrap().starts_with("whsec_"));

    // Default glob: every file; loopback http is accepted.
    let reply = server
        .post_json(
            "/api/quire/webhooks",
            json!({"url": "http://127.0.0.1:9/hook"}),
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    assert_eq!(reply.json()["path_glob"], "**");

    let listed = list(&server, "/api/quire").await;
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0]["id"], id.as_str());
    for hook in &listed {
        assert!(hook.get("secret").is_none(), "listed with a secret: {hook}");
    }
    // Webhooks belong to their space.
    assert!(list(&server, "/api/quire/other").await.is_empty());
    let other = server
        .call(
            Method::GET,
            "/api/quire/webhooks",
            &[("x-quire-space", "other")],
            Body::empty(),
        )
        .await;
    assert_eq!(other.json(), json!([]));

    let reply = server
        .get(&format!("/api/quire/webhooks/{id}/deliveries"))
        .await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json(), json!([]));

    let reply = send(
        &server,
        Method::DELETE,
        &format!("/api/quire/webhooks/{id}"),
        None,
        "",
    )
    .await;
    assert_eq!(reply.status, 204);
    assert!(reply.body.is_empty());
    assert_eq!(list(&server, "/api/quire").await.len(), 1);
    let reply = send(
        &server,
        Method::DELETE,
        &format!("/api/quire/webhooks/{id}"),
        None,
        "",
    )
    .await;
    reply.expect_error(404);
    server
        .get(&format!("/api/quire/webhooks/{id}/deliveries"))
        .await
        .expect_error(404);
    // Deleting in another space does not reach this one.
    let kept = listed[1]["id"].as_str().unwrap();
    send(
        &server,
        Method::DELETE,
        &format!("/api/quire/other/webhooks/{kept}"),
        None,
        "",
    )
    .await
    .expect_error(404);
    assert_eq!(list(&server, "/api/quire").await.len(), 1);
    hooks.stop(Duration::from_secs(2));
}

#[tokio::test]
async fn bad_input_is_refused_and_stores_nothing() {
    let (server, hooks) = open();
    let cases: Vec<(String, u16, &str)> = vec![
        ("{not json".into(), 400, "invalid JSON"),
        ("".into(), 400, "invalid JSON"),
        (json!({}).to_string(), 400, "url"),
        (json!({"url": 7}).to_string(), 400, "invalid JSON"),
        (
            json!({"url": "https://e.com/h", "glob": "**"}).to_string(),
            400,
            "unknown field",
        ),
        (
            json!({"url": "http://example.com/h"}).to_string(),
            400,
            "https",
        ),
        (
            json!({"url": "http://10.1.2.3/h"}).to_string(),
            400,
            "https",
        ),
        (
            json!({"url": "file:///etc/passwd"}).to_string(),
            400,
            "no host",
        ),
        (
            json!({"url": "javascript:alert(1)"}).to_string(),
            400,
            "no host",
        ),
        (json!({"url": ""}).to_string(), 400, "empty"),
        (
            json!({"url": "https://e.com/h", "path_glob": "notes/[a"}).to_string(),
            400,
            "path_glob",
        ),
        (
            json!({"url": "https://e.com/h", "path_glob": "../../etc/**"}).to_string(),
            400,
            "path_glob",
        ),
        (
            json!({"url": "https://e.com/h", "path_glob": "/etc/**"}).to_string(),
            400,
            "path_glob",
        ),
        (
            json!({"url": format!("https://e.com/{}", "a".repeat(3000))}).to_string(),
            400,
            "longer",
        ),
        (
            json!({"url": "https://e.com/h", "path_glob": "x".repeat(20_000)}).to_string(),
            413,
            "larger",
        ),
    ];
    for (body, status, says) in cases {
        let reply = send(
            &server,
            Method::POST,
            "/api/quire/webhooks",
            None,
            body.clone(),
        )
        .await;
        let message = reply.expect_error(status);
        assert!(
            message.contains(says),
            "{} → {message}",
            &body[..body.len().min(80)]
        );
    }
    // Ids that are not ids, or try to leave the route, find nothing.
    for id in ["..%2F..%2Fetc%2Fpasswd", "%2E%2E", "wh_00", "x%00y"] {
        let reply = send(
            &server,
            Method::DELETE,
            &format!("/api/quire/webhooks/{id}"),
            None,
            "",
        )
        .await;
        assert_eq!(reply.status, 404, "{id}: {}", reply.text());
        let reply = server
            .get(&format!("/api/quire/webhooks/{id}/deliveries"))
            .await;
        assert_eq!(reply.status, 404, "{id}: {}", reply.text());
    }
    assert!(list(&server, "/api/quire").await.is_empty());
    hooks.stop(Duration::from_secs(2));
}

#[tokio::test]
async fn only_an_admin_manages_webhooks() {
    let (server, hooks) = TestServer::with_webhooks(&["default"], &keyed(), fast());
    let body = json!({"url": "https://hooks.example.com/q"}).to_string();
    for key in [READER, WRITER] {
        let reply = send(
            &server,
            Method::POST,
            "/api/quire/webhooks",
            Some(key),
            body.clone(),
        )
        .await;
        reply.expect_error(403);
        let reply = send(&server, Method::GET, "/api/quire/webhooks", Some(key), "").await;
        reply.expect_error(403);
    }
    send(
        &server,
        Method::POST,
        "/api/quire/webhooks",
        None,
        body.clone(),
    )
    .await
    .expect_error(401);
    let listed = send(&server, Method::GET, "/api/quire/webhooks", Some(ADMIN), "").await;
    assert_eq!(
        listed.json(),
        json!([]),
        "the refused creations stored nothing"
    );
    let reply = send(
        &server,
        Method::POST,
        "/api/quire/webhooks",
        Some(ADMIN),
        body,
    )
    .await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    let id = reply.json()["id"].as_str().unwrap().to_string();
    for key in [READER, WRITER] {
        let reply = send(
            &server,
            Method::DELETE,
            &format!("/api/quire/webhooks/{id}"),
            Some(key),
            "",
        )
        .await;
        reply.expect_error(403);
    }
    let reply = send(&server, Method::GET, "/api/quire/webhooks", Some(ADMIN), "").await;
    assert_eq!(reply.json().as_array().unwrap().len(), 1);
    hooks.stop(Duration::from_secs(2));
}

#[tokio::test]
async fn a_write_through_the_api_reaches_the_receiver_and_the_metrics() {
    let (server, hooks) = open();
    let receiver = Receiver::start();
    receiver.answer(&[500]);
    let reply = server
        .post_json(
            "/api/quire/webhooks",
            json!({"url": receiver.url(), "path_glob": "notes/**"}),
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    // A page outside the glob, then one inside, and a write to another space.
    assert_eq!(server.put("todo.md", "# T\n", "ann").await.status, 200);
    assert_eq!(server.put("notes/a.md", "# A\n", "ann").await.status, 200);
    let reply = server
        .call(
            Method::PUT,
            "/api/quire/other/file?path=notes/b.md",
            &[("x-actor", "ann")],
            "# B\n",
        )
        .await;
    assert_eq!(reply.status, 200);
    let got = receiver.wait_for(2, Duration::from_secs(20));
    assert_eq!(got.len(), 2, "one failed attempt, one retry");
    for r in &got {
        let body: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(
            body,
            json!({"type": "write", "path": "notes/a.md", "actor": "ann",
                   "timestamp": body["timestamp"].clone()})
        );
    }
    let space = hooks.space("default").unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while space.metrics().delivered < 1 {
        assert!(std::time::Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(receiver.received().len(), 2, "nothing else was sent");
    let metrics = server.get("/metrics").await.text();
    for line in [
        "quire_webhook_deliveries_total{space=\"default\"} 1",
        "quire_webhook_failures_total{space=\"default\"} 1",
        "quire_webhook_dead_total{space=\"default\"} 0",
        "quire_webhook_queued{space=\"default\"} 0",
        "quire_webhook_failed{space=\"default\"} 0",
        "quire_webhook_deliveries_total{space=\"other\"} 0",
    ] {
        assert!(metrics.contains(line), "{line} missing in:\n{metrics}");
    }
    hooks.stop(Duration::from_secs(2));
}

#[tokio::test]
async fn a_space_added_at_runtime_has_working_webhooks_until_it_is_removed() {
    let (server, hooks) = open();
    let root = server.dir.path().join("added/team");
    let reply = server
        .post_json(
            "/api/spaces",
            json!({"name": "team", "root": root.display().to_string()}),
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    let receiver = Receiver::start();
    let reply = server
        .post_json("/api/quire/team/webhooks", json!({"url": receiver.url()}))
        .await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    let reply = server
        .call(
            Method::PUT,
            "/api/quire/team/file?path=a.md",
            &[("x-actor", "ann")],
            "# A\n",
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let got = receiver.wait_for(1, Duration::from_secs(20));
    assert_eq!(got.len(), 1);
    let body: serde_json::Value = serde_json::from_slice(&got[0].body).unwrap();
    assert_eq!(body["path"], "a.md");

    let reply = server
        .call(Method::DELETE, "/api/spaces/team", &[], "")
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert!(hooks.space("team").is_none(), "its dispatchers are stopped");
    let reply = server.get("/api/quire/team/webhooks").await;
    assert_eq!(reply.status, 404, "{}", reply.text());
    hooks.stop(Duration::from_secs(2));
}
