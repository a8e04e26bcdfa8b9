//! Regression tests for what a black-box run found: agent plans that did not say they need
//! approval, revert trailers that ignored the caller, racing asset uploads, and clients
//! written for KiwiFS (actor and message in JSON bodies, 200 on create).

mod support;

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Method, Request};
use serde_json::{json, Value};
use support::TestServer;
use tower::ServiceExt;

fn files() -> Vec<(&'static str, &'static str)> {
    vec![
        ("notes/a.md", "# A\n\nSee [B](b.md) and [[b]].\n"),
        ("notes/b.md", "# B\n"),
        ("index.md", "Start at [[/notes/b]].\n"),
    ]
}

fn strict_agents() -> quire_config::RefactorConfig {
    quire_config::Config::from_toml_str("[refactor]\napproval_files = 1\n", &|_| None)
        .unwrap()
        .config
        .refactor
}

fn head_message(s: &TestServer) -> String {
    let repo = s.repo();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    head.message().unwrap().to_string()
}

async fn plan_as(s: &TestServer, client: Option<&str>) -> Value {
    let mut headers = vec![("content-type", "application/json")];
    if let Some(c) = client {
        headers.push(("x-quire-client", c));
    }
    let r = s
        .call(
            Method::POST,
            "/api/quire/refactor/plan",
            &headers,
            json!({"moves": [{"from": "notes/b.md", "to": "archive/b.md"}]}).to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

#[tokio::test]
async fn an_agents_plan_over_the_limits_says_it_needs_approval() {
    let s = TestServer::configured(
        support::sync_git(),
        Default::default(),
        strict_agents(),
        &files(),
    );
    let plan = plan_as(&s, Some("mcp-claude")).await;
    assert_eq!(plan["approval"]["required"], true, "{plan}");
    assert!(plan["approval"]["reason"]
        .as_str()
        .unwrap()
        .contains("approval_files = 1"));
    // People and programs get no approval field; the digest is the same either way.
    let person = plan_as(&s, None).await;
    assert!(person.get("approval").is_none(), "{person}");
    assert_eq!(person["digest"], plan["digest"]);
}

#[tokio::test]
async fn an_agents_plan_within_the_limits_says_no_approval_is_needed() {
    let s = TestServer::with(support::sync_git(), Default::default(), &files());
    let plan = plan_as(&s, Some("mcp")).await;
    assert_eq!(plan["approval"]["required"], false, "{plan}");
}

#[tokio::test]
async fn revert_commits_carry_the_callers_client_and_the_base() {
    let s = TestServer::with(support::sync_git(), Default::default(), &files());
    let r = s.put("notes/b.md", "# B changed\n", "alice").await;
    let commit = r.json()["commit"].as_str().unwrap().to_string();
    let base = commit.clone();
    let r = s
        .call(
            Method::POST,
            "/api/quire/refactor/revert",
            &[
                ("content-type", "application/json"),
                ("x-quire-client", "web-ui"),
                ("x-actor", "bob"),
            ],
            json!({"commit": commit}).to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let message = head_message(&s);
    assert!(message.contains("Quire-Client: web-ui\n"), "{message}");
    assert!(
        message.contains(&format!("Quire-Base: {base}\n")),
        "{message}"
    );
    assert!(message.contains("Quire-Actor: bob\n"), "{message}");
}

fn multipart(file_name: &str, bytes: &[u8]) -> (String, Vec<u8>) {
    let boundary = "quireboundary";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{file_name}\"\r\nContent-Type: image/png\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_uploads_under_one_name_each_keep_their_bytes() {
    let s = Arc::new(TestServer::new());
    let uploads = 24;
    let mut tasks = Vec::new();
    for i in 0..uploads {
        let app = s.app.clone();
        tasks.push(tokio::spawn(async move {
            let bytes = format!("\u{89}PNG upload number {i}").into_bytes();
            let (ct, body) = multipart("same.png", &bytes);
            let req = Request::builder()
                .method(Method::POST)
                .uri("/api/quire/assets")
                .header("content-type", ct)
                .header("x-actor", format!("uploader-{i}"))
                .body(Body::from(body))
                .unwrap();
            let response = app.oneshot(req).await.unwrap();
            let status = response.status().as_u16();
            let body = http_body_util::BodyExt::collect(response.into_body())
                .await
                .unwrap()
                .to_bytes();
            let v: Value = serde_json::from_slice(&body).unwrap();
            (status, v["path"].as_str().unwrap_or("").to_string(), bytes)
        }));
    }
    let mut paths = std::collections::BTreeSet::new();
    for t in tasks {
        let (status, path, bytes) = t.await.unwrap();
        assert_eq!(status, 200, "{path}");
        assert_eq!(
            std::fs::read(s.dir.path().join(&path)).unwrap(),
            bytes,
            "{path} holds the bytes of the upload that got it"
        );
        assert!(paths.insert(path.clone()), "{path} was handed out twice");
    }
    assert_eq!(paths.len(), uploads);
    s.assert_clean();
}

#[tokio::test]
async fn the_same_upload_twice_at_once_reuses_one_file() {
    let s = Arc::new(TestServer::new());
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let app = s.app.clone();
        tasks.push(tokio::spawn(async move {
            let (ct, body) = multipart("twin.png", b"\x89PNG twin");
            let req = Request::builder()
                .method(Method::POST)
                .uri("/api/quire/assets")
                .header("content-type", ct)
                .body(Body::from(body))
                .unwrap();
            app.oneshot(req).await.unwrap().status().as_u16()
        }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap(), 200);
    }
    let names: Vec<_> = std::fs::read_dir(s.dir.path().join("assets"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["twin.png"]);
}

#[tokio::test]
async fn put_of_a_new_file_answers_200_with_created_true() {
    let s = TestServer::new();
    let r = s.put("new.md", "# New\n", "alice").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["created"], true);
    let r = s.put("new.md", "# New again\n", "alice").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["created"], false);
}

#[tokio::test]
async fn bulk_takes_actor_and_message_from_the_body() {
    let s = TestServer::new();
    let r = s
        .post_json(
            "/api/quire/bulk",
            json!({"files": [{"path": "a.md", "content": "A"}, {"path": "b.md", "content": "B"}],
                   "actor": "bulk-7", "message": "stress batch 7"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(s.head_author(), "bulk-7");
    assert_eq!(head_message(&s).trim(), "stress batch 7");
}

#[tokio::test]
async fn the_actor_header_wins_over_the_body() {
    let s = TestServer::new();
    let r = s
        .call(
            Method::POST,
            "/api/quire/bulk",
            &[("content-type", "application/json"), ("x-actor", "header")],
            json!({"files": [{"path": "a.md", "content": "A"}], "actor": "body"}).to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(s.head_author(), "header");
}

#[tokio::test]
async fn other_unknown_keys_are_still_refused_and_nothing_is_written() {
    let s = TestServer::new();
    let before = s.commit_count();
    let r = s
        .post_json(
            "/api/quire/bulk",
            json!({"files": [{"path": "a.md", "content": "A"}], "actor": "x", "autor": "typo"}),
        )
        .await;
    let message = r.expect_error(400);
    assert!(message.contains("autor"), "{message}");
    assert!(s.disk("a.md").is_none());
    assert_eq!(s.commit_count(), before);
}

#[tokio::test]
async fn rename_takes_actor_and_message_from_the_body() {
    let s = TestServer::with(support::sync_git(), Default::default(), &files());
    let r = s
        .post_json(
            "/api/quire/rename",
            json!({"from": "notes/b.md", "to": "notes/c.md", "actor": "carol", "message": "tidy up"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(s.head_author(), "carol");
    assert_eq!(head_message(&s).trim(), "tidy up");
    let r = s
        .post_json(
            "/api/quire/rename-dir",
            json!({"from": "notes", "to": "pages", "actor": "dave", "message": "folders"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(s.head_author(), "dave");
    assert_eq!(head_message(&s).trim(), "folders");
}

#[tokio::test]
async fn apply_takes_actor_and_message_from_the_body_and_keeps_its_trailers() {
    let s = TestServer::with(support::sync_git(), Default::default(), &files());
    let r = s
        .post_json(
            "/api/quire/refactor/apply",
            json!({"manifest": {"moves": [{"from": "notes/b.md", "to": "archive/b.md"}]},
                   "actor": "erin", "message": "archive b"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(s.head_author(), "erin");
    let message = head_message(&s);
    assert!(message.starts_with("archive b\n"), "{message}");
    assert!(message.contains("Quire-Actor: erin\n"), "{message}");
}

#[tokio::test]
async fn claims_take_the_actor_from_the_body() {
    let s = TestServer::with(support::sync_git(), Default::default(), &files());
    let r = s
        .post_json(
            "/api/quire/claim",
            json!({"path": "notes/b.md", "actor": "frank"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["actor"], "frank");
    let r = s
        .call(
            Method::DELETE,
            "/api/quire/claim",
            &[("content-type", "application/json")],
            json!({"path": "notes/b.md", "actor": "frank"}).to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
}
