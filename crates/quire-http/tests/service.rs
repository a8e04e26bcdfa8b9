//! Health, OpenAPI, events and concurrency.

mod support;

use std::time::Duration;

use axum::body::Body;
use axum::http::{Method, Request};
use http_body_util::BodyExt;
use support::{options, TestServer};
use tower::ServiceExt;

#[tokio::test]
async fn health_endpoints_answer_ok() {
    let s = TestServer::new();
    for uri in ["/health", "/healthz", "/readyz"] {
        let r = s.get(uri).await;
        assert_eq!(r.status, 200, "{uri}");
        assert_eq!(r.json()["status"], "ok", "{uri}");
    }
    let protocols = s.get("/readyz").await.json()["protocols"].clone();
    for name in ["nfs", "s3", "webdav"] {
        assert_eq!(protocols[name]["enabled"], false, "{name}: off by default");
        // The spec names the key: present, and null while nothing is wrong.
        assert!(protocols[name]["error"].is_null(), "{name}");
        assert!(
            protocols[name].as_object().unwrap().contains_key("error"),
            "{name}: no `error` key"
        );
    }
}

#[tokio::test]
async fn an_enabled_protocol_no_listener_serves_makes_readyz_503_naming_it() {
    // Every protocol is built now; these settings lack the statuses of the listeners the
    // binary starts, as a server would whose protocol did not start.
    let config = quire_config::Config::from_toml_str(
        "[protocols.nfs]\nenabled = true\nport = 4335\n",
        &|_| None,
    )
    .unwrap()
    .config;
    let s = TestServer::spaces(&["default"], &config);
    let r = s.get("/readyz").await;
    assert_eq!(r.status, 503);
    let body = r.json();
    assert_eq!(body["status"], "unavailable");
    let nfs = &body["protocols"]["nfs"];
    assert_eq!(nfs["enabled"], true);
    assert_eq!(nfs["healthy"], false);
    assert_eq!(nfs["port"], 4335);
    assert!(
        nfs["error"]
            .as_str()
            .unwrap()
            .contains("NFS is enabled, and this process serves no NFS listener"),
        "{nfs}"
    );
    assert_eq!(body["protocols"]["webdav"]["enabled"], false);
    // Liveness is not readiness: the process is up and the API answers.
    assert_eq!(s.get("/healthz").await.status, 200);
    assert_eq!(s.get("/api/quire/tree").await.status, 200);
}

#[tokio::test]
async fn readyz_is_503_when_storage_is_gone() {
    let s = TestServer::new();
    std::fs::remove_dir_all(s.dir.path()).unwrap();
    let r = s.get("/readyz").await;
    assert_eq!(r.status, 503);
    assert_eq!(r.json()["status"], "unavailable");
}

#[tokio::test]
async fn openapi_document_lists_every_route() {
    let s = TestServer::new();
    let r = s.get("/api/openapi.json").await;
    assert_eq!(r.status, 200);
    let doc = r.json();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    let paths = doc["paths"].as_object().unwrap();
    for p in [
        "/api/quire/tree",
        "/api/quire/file",
        "/api/quire/bulk",
        "/api/quire/assets",
        "/api/quire/toc",
        "/api/quire/file/append",
        "/api/quire/templates",
        "/api/quire/template",
        "/api/quire/readlink",
        "/api/quire/resolve-links",
        "/api/quire/versions",
        "/api/quire/version",
        "/api/quire/diff",
        "/api/quire/blame",
        "/api/quire/changes",
        "/api/quire/events",
        "/health",
        "/healthz",
        "/readyz",
    ] {
        assert!(
            paths.contains_key(p),
            "missing {p} in {:?}",
            paths.keys().collect::<Vec<_>>()
        );
    }
    let file = &paths["/api/quire/file"];
    assert!(file.get("get").is_some() && file.get("put").is_some() && file.get("delete").is_some());
}

#[tokio::test]
async fn events_stream_write_delete_and_bulk_after_the_pipeline() {
    let s = TestServer::new();
    let response = s
        .app
        .clone()
        .oneshot(
            Request::builder()
                .uri("/api/quire/events")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let mut body = response.into_body();

    s.put("e.md", "x", "alice").await;
    s.post_json(
        "/api/quire/bulk",
        serde_json::json!({"files": [{"path": "b1.md", "content": "1"}, {"path": "b2.md", "content": "2"}]}),
    )
    .await;
    s.call(
        Method::DELETE,
        "/api/quire/file?path=e.md",
        &[("x-actor", "bob")],
        Body::empty(),
    )
    .await;

    let mut text = String::new();
    while !(text.contains("event: delete") && text.contains("data:"))
        || text.matches("\n\n").count() < 3
    {
        let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .expect("event arrives in time")
            .expect("stream open")
            .unwrap();
        if let Ok(data) = frame.into_data() {
            text.push_str(&String::from_utf8_lossy(&data));
        }
    }
    let events: Vec<(String, serde_json::Value)> = text
        .split("\n\n")
        .filter(|block| block.contains("event:"))
        .map(|block| {
            let name = block
                .lines()
                .find_map(|l| l.strip_prefix("event: "))
                .unwrap()
                .to_string();
            let data = block
                .lines()
                .find_map(|l| l.strip_prefix("data: "))
                .unwrap();
            (name, serde_json::from_str(data).unwrap())
        })
        .collect();
    assert_eq!(events[0].0, "write");
    assert_eq!(events[0].1["path"], "e.md");
    assert_eq!(events[0].1["actor"], "alice");
    assert!(events[0].1["timestamp"].is_string());
    assert_eq!(events[1].0, "bulk");
    assert_eq!(events[1].1["paths"], serde_json::json!(["b1.md", "b2.md"]));
    assert_eq!(events[2].0, "delete");
    assert_eq!(events[2].1["actor"], "bob");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn parallel_writes_are_all_committed_and_none_lost() {
    let s = TestServer::new();
    let before = s.commit_count();
    let writes = 64;
    let mut tasks = Vec::new();
    for i in 0..writes {
        let app = s.app.clone();
        tasks.push(tokio::spawn(async move {
            let req = Request::builder()
                .method(Method::PUT)
                .uri(format!("/api/quire/file?path=par/{}/p{i}.md", i % 4))
                .header("x-actor", format!("writer{}", i % 3))
                .body(Body::from(format!("# page {i}\n")))
                .unwrap();
            app.oneshot(req).await.unwrap().status()
        }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap(), 200);
    }
    assert_eq!(s.commit_count(), before + writes, "one commit per write");
    for i in 0..writes {
        assert_eq!(
            s.disk(&format!("par/{}/p{i}.md", i % 4)).unwrap(),
            format!("# page {i}\n")
        );
    }
    let repo = s.repo();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    for i in 0..writes {
        assert!(tree
            .get_path(std::path::Path::new(&format!("par/{}/p{i}.md", i % 4)))
            .is_ok());
    }
    s.assert_clean();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn async_batching_commits_every_write_and_leaves_status_clean() {
    let s = TestServer::with(
        options(quire_service::Strategy::Git, true),
        Default::default(),
        &[],
    );
    let before = s.commit_count();
    let writes = 120;
    let mut tasks = Vec::new();
    for i in 0..writes {
        let app = s.app.clone();
        tasks.push(tokio::spawn(async move {
            let req = Request::builder()
                .method(Method::PUT)
                .uri(format!("/api/quire/file?path=batch/p{i}.md"))
                .header("x-actor", "agent")
                .body(Body::from(format!("{i}")))
                .unwrap();
            app.oneshot(req).await.unwrap().status()
        }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap(), 200);
    }
    s.service.flush();
    let commits = s.commit_count() - before;
    assert!(
        commits >= 1 && commits < writes,
        "{commits} commits for {writes} writes"
    );
    let repo = s.repo();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    for i in 0..writes {
        assert!(
            tree.get_path(std::path::Path::new(&format!("batch/p{i}.md")))
                .is_ok(),
            "p{i} committed"
        );
    }
    s.assert_clean();
}

#[tokio::test]
async fn a_root_that_is_not_a_repository_is_initialised_with_its_files() {
    let s = TestServer::with(
        support::sync_git(),
        Default::default(),
        &[("existing.md", "# Existing\n")],
    );
    assert!(s.commit_count() >= 1);
    let repo = s.repo();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    assert!(tree.get_path(std::path::Path::new("existing.md")).is_ok());
    s.assert_clean();
    let r = s.get("/api/quire/file?path=existing.md").await;
    assert_eq!(r.text(), "# Existing\n");
}

#[tokio::test]
async fn metrics_report_the_commit_backlog_and_files_per_space() {
    let s = TestServer::with(
        support::options(quire_service::Strategy::Git, true),
        Default::default(),
        &[("a.md", "# A\n")],
    );
    s.put("b.md", "# B\n", "alice").await;
    let r = s.get("/metrics").await;
    assert_eq!(r.status, 200);
    assert!(r.header("content-type").starts_with("text/plain"));
    let text = r.text();
    for gauge in [
        "# TYPE quire_commit_backlog_files gauge",
        "quire_commit_lag_seconds{space=\"default\"} ",
        "quire_files{space=\"default\"} 2",
    ] {
        assert!(text.contains(gauge), "{gauge} in\n{text}");
    }
    s.service.flush();
    let text = s.get("/metrics").await.text();
    assert!(
        text.contains("quire_commit_backlog_files{space=\"default\"} 0"),
        "{text}"
    );
}
