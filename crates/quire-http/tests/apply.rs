//! Apply, approval and revert: statuses, one commit with trailers, exact restoration.

mod support;

use axum::http::Method;
use serde_json::{json, Value};
use support::{Reply, TestServer};

const COMMENTS: &str = r#"[{"id":"c1","path":"notes/b.md","line":1,"author":"ann","body":"hi","resolved":false,"created":"2024-01-01T00:00:00Z"}]"#;
const PERSONAL: &str =
    r#"{"pages":{"notes/b.md":{"starred":true}},"lists":{"recent":["notes/b.md","index.md"]}}"#;

fn files() -> Vec<(&'static str, &'static str)> {
    vec![
        ("notes/a.md", "# A\n\nSee [B](b.md) and [[b]].\n"),
        ("notes/b.md", "# B\n"),
        ("index.md", "Start at [[/notes/b]].\n"),
        (".quire/comments/notes/b.md.json", COMMENTS),
        (".quire/personal/ann.json", PERSONAL),
    ]
}

fn server() -> TestServer {
    TestServer::with(support::sync_git(), Default::default(), &files())
}

fn move_b() -> Value {
    json!({"moves": [{"from": "notes/b.md", "to": "archive/b.md"}]})
}

async fn apply(s: &TestServer, body: Value, headers: &[(&str, &str)]) -> Reply {
    let mut h = vec![("content-type", "application/json")];
    h.extend_from_slice(headers);
    s.call(
        Method::POST,
        "/api/quire/refactor/apply",
        &h,
        body.to_string(),
    )
    .await
}

async fn plan_of(s: &TestServer, manifest: &Value) -> Value {
    s.post_json("/api/quire/refactor/plan", manifest.clone())
        .await
        .json()
}

fn snapshot(s: &TestServer) -> Vec<(String, Option<String>)> {
    [
        "notes/a.md",
        "notes/b.md",
        "archive/b.md",
        "index.md",
        ".quire/comments/notes/b.md.json",
        ".quire/comments/archive/b.md.json",
        ".quire/personal/ann.json",
    ]
    .iter()
    .map(|p| (p.to_string(), s.disk(p)))
    .collect()
}

#[tokio::test]
async fn apply_writes_one_commit_with_trailers() {
    let s = server();
    let commits = s.commit_count();
    let digest = plan_of(&s, &move_b()).await["digest"]
        .as_str()
        .unwrap()
        .to_string();
    let r = apply(
        &s,
        json!({"manifest": move_b(), "digest": digest}),
        &[("x-actor", "alice"), ("x-quire-client", "cli")],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let applied = &v["applied"];
    assert_eq!(applied["written"], 3, "{v}"); // archive/b.md, notes/a.md, index.md
    assert_eq!(applied["deleted"], 1);
    assert_eq!(applied["side_files"], 3, "{v}"); // old + new comment file, personal state
    assert_eq!(v["plan"]["digest"], digest);
    let commit = applied["commit"].as_str().unwrap();
    assert_eq!(s.commit_count(), commits + 1, "exactly one commit");
    let repo = s.repo();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(head.id().to_string(), commit);
    assert_eq!(head.author().name(), Some("alice"));
    let message = head.message().unwrap();
    for trailer in [
        "Quire-Actor: alice",
        "Quire-Client: cli",
        &format!("Quire-Refactor-Digest: {digest}"),
        "Quire-Manifest: {",
        "Quire-Base: ",
    ] {
        assert!(
            message.contains(trailer),
            "missing {trailer:?} in {message}"
        );
    }
    assert_eq!(
        s.disk("notes/a.md").unwrap(),
        "# A\n\nSee [B](../archive/b.md) and [[b]].\n"
    );
    assert_eq!(s.disk("index.md").unwrap(), "Start at [[/archive/b]].\n");
    assert!(s
        .disk(".quire/comments/archive/b.md.json")
        .unwrap()
        .contains("archive/b.md"));
    assert!(s
        .disk(".quire/personal/ann.json")
        .unwrap()
        .contains("archive/b.md"));
    assert!(!s
        .dir
        .path()
        .join(".quire/state/refactor-journal.json")
        .exists());
    s.assert_clean();
}

#[tokio::test]
async fn apply_emits_events_for_written_and_deleted_pages() {
    let s = server();
    let mut events = s.service.default_space().events().subscribe();
    let r = apply(&s, json!({"manifest": move_b()}), &[]).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let mut seen = Vec::new();
    while let Ok(e) = events.try_recv() {
        seen.push((
            e.name().to_string(),
            serde_json::to_value(&e).unwrap()["path"]
                .as_str()
                .unwrap_or("")
                .to_string(),
        ));
    }
    assert!(
        seen.contains(&("write".into(), "archive/b.md".into())),
        "{seen:?}"
    );
    assert!(
        seen.contains(&("delete".into(), "notes/b.md".into())),
        "{seen:?}"
    );
    assert!(
        seen.contains(&("write".into(), "notes/a.md".into())),
        "{seen:?}"
    );
}

#[tokio::test]
async fn apply_refuses_a_stale_digest_with_the_fresh_plan_and_writes_nothing() {
    let s = server();
    let digest = plan_of(&s, &move_b()).await["digest"]
        .as_str()
        .unwrap()
        .to_string();
    s.put("notes/a.md", "# A changed\n\n[B](b.md)\n", "bob")
        .await;
    let before = snapshot(&s);
    let commits = s.commit_count();
    let r = apply(&s, json!({"manifest": move_b(), "digest": digest}), &[]).await;
    assert_eq!(r.status, 409, "{}", r.text());
    let v = r.json();
    assert!(v["error"].as_str().unwrap().contains("digest"));
    assert_ne!(v["plan"]["digest"], digest);
    assert_eq!(snapshot(&s), before);
    assert_eq!(s.commit_count(), commits);
}

#[tokio::test]
async fn apply_refuses_plans_with_errors_with_422() {
    let s = server();
    let commits = s.commit_count();
    let r = apply(
        &s,
        json!({"manifest": {"moves": [{"from": "notes/a.md", "to": "index.md"}]}}),
        &[],
    )
    .await;
    assert_eq!(r.status, 422, "{}", r.text());
    let v = r.json();
    assert!(v["error"].is_string());
    assert!(!v["plan"]["errors"].as_array().unwrap().is_empty());
    assert_eq!(s.commit_count(), commits);
}

#[tokio::test]
async fn apply_rejects_bad_bodies_with_400() {
    let s = server();
    apply(&s, json!({}), &[]).await.expect_error(400);
    apply(&s, json!({"manifest": move_b(), "extra": true}), &[])
        .await
        .expect_error(400);
    apply(&s, json!({"manifest": "moves"}), &[])
        .await
        .expect_error(400);
    apply(&s, json!({"manifest": {}}), &[])
        .await
        .expect_error(400);
    let msg = apply(&s, json!({"manifest": {"mvoes": []}}), &[])
        .await
        .expect_error(400);
    assert!(msg.contains("mvoes"), "{msg}");
    s.call(
        Method::POST,
        "/api/quire/refactor/apply",
        &[("content-type", "application/json")],
        "{",
    )
    .await
    .expect_error(400);
}

fn strict_agents() -> quire_config::RefactorConfig {
    quire_config::RefactorConfig {
        approval_files: quire_config::ApprovalLimit::AtMost(3),
        ..Default::default()
    }
}

#[tokio::test]
async fn agents_over_the_limits_need_approval_that_is_used_once() {
    let s = TestServer::configured(
        support::sync_git(),
        Default::default(),
        strict_agents(),
        &files(),
    );
    let agent = [("x-quire-client", "mcp-claude"), ("x-actor", "agent")];
    let r = apply(&s, json!({"manifest": move_b()}), &agent).await;
    assert_eq!(r.status, 428, "{}", r.text());
    let v = r.json();
    assert!(v["error"].as_str().unwrap().contains("approval"));
    assert_eq!(v["plan"]["approval"]["required"], true);
    let digest = v["plan"]["digest"].as_str().unwrap().to_string();
    assert!(s.disk("notes/b.md").is_some(), "nothing written");

    let pending = s.get("/api/quire/refactor/pending").await.json();
    let entry = &pending["pending"][0];
    assert_eq!(entry["digest"], digest);
    assert_eq!(entry["manifest"], move_b());
    assert_eq!(entry["actor"], "agent");
    assert_eq!(entry["client"], "mcp-claude");
    assert!(entry["reason"].as_str().unwrap().contains("approval_files"));
    assert!(entry["at"].is_string());

    // Approvals and pending entries survive a restart.
    let approvals = s.dir.path().join(".quire/state/approvals.json");
    assert!(approvals.exists());

    s.post_json("/api/quire/refactor/approve", json!({"manifest": move_b()}))
        .await
        .expect_error(400);
    let r = s
        .post_json(
            "/api/quire/refactor/approve",
            json!({"manifest": move_b(), "digest": "0000"}),
        )
        .await;
    assert_eq!(r.status, 409);
    assert!(r.json()["plan"].is_object());
    let r = s
        .post_json(
            "/api/quire/refactor/approve",
            json!({"manifest": move_b(), "digest": digest}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.json(),
        json!({"approved": digest, "expires_in": "1h0m0s"})
    );
    assert_eq!(
        s.get("/api/quire/refactor/pending").await.json()["pending"],
        json!([])
    );

    let r = apply(&s, json!({"manifest": move_b(), "digest": digest}), &agent).await;
    assert_eq!(r.status, 200, "{}", r.text());
    // Used once: moving it back is a new plan and needs its own approval.
    let back = json!({"moves": [{"from": "archive/b.md", "to": "notes/b.md"}]});
    assert_eq!(
        apply(&s, json!({"manifest": back}), &agent).await.status,
        428
    );
    // An MCP client whose user confirmed needs no recorded approval; people never do.
    assert_eq!(
        apply(&s, json!({"manifest": back, "approved": true}), &agent)
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn people_and_small_agent_plans_apply_without_approval() {
    let s = TestServer::configured(
        support::sync_git(),
        Default::default(),
        strict_agents(),
        &files(),
    );
    assert_eq!(
        apply(
            &s,
            json!({"manifest": move_b()}),
            &[("x-quire-client", "cli")]
        )
        .await
        .status,
        200
    );
    let small = json!({"moves": [{"from": "index.md", "to": "start.md"}]});
    let r = apply(&s, json!({"manifest": small}), &[("x-quire-client", "mcp")]).await;
    assert_eq!(r.status, 200, "{}", r.text());
}

#[tokio::test]
async fn revert_restores_every_byte_including_side_files_as_a_new_commit() {
    let s = server();
    let before = snapshot(&s);
    let r = apply(&s, json!({"manifest": move_b()}), &[]).await;
    let commit = r.json()["applied"]["commit"].as_str().unwrap().to_string();
    let commits = s.commit_count();

    let r = s
        .post_json(
            "/api/quire/refactor/revert",
            json!({"commit": commit, "dry_run": true}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let plan = r.json();
    assert_eq!(plan["reverts"], commit);
    assert_eq!(
        plan["moves"],
        json!([{"from": "archive/b.md", "to": "notes/b.md"}])
    );
    assert_eq!(s.commit_count(), commits, "dry run writes nothing");

    let r = s
        .post_json(
            "/api/quire/refactor/revert",
            json!({"commit": commit, "digest": "stale"}),
        )
        .await;
    assert_eq!(r.status, 409, "{}", r.text());

    let r = s
        .post_json(
            "/api/quire/refactor/revert",
            json!({"commit": &commit[..10], "digest": plan["digest"]}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.json()["applied"]["commit"].is_string());
    assert_eq!(s.commit_count(), commits + 1);
    assert_eq!(
        snapshot(&s),
        before,
        "every file byte-identical to before the apply"
    );
    s.assert_clean();
}

#[tokio::test]
async fn revert_refuses_when_an_affected_file_changed_since() {
    let s = server();
    let commit = apply(&s, json!({"manifest": move_b()}), &[]).await.json()["applied"]["commit"]
        .as_str()
        .unwrap()
        .to_string();
    s.put("notes/a.md", "edited after the restructuring\n", "bob")
        .await;
    let commits = s.commit_count();
    let r = s
        .post_json("/api/quire/refactor/revert", json!({"commit": commit}))
        .await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.json()["error"].as_str().unwrap().contains("notes/a.md"));
    assert_eq!(s.commit_count(), commits);
    assert_eq!(
        s.disk("notes/a.md").unwrap(),
        "edited after the restructuring\n"
    );
}

#[tokio::test]
async fn revert_works_on_any_commit_and_rejects_bad_ids() {
    let s = server();
    let commit = s.put("notes/b.md", "# B v2\n", "bob").await.json()["commit"]
        .as_str()
        .unwrap()
        .to_string();
    let r = s
        .post_json("/api/quire/refactor/revert", json!({"commit": commit}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(s.disk("notes/b.md").unwrap(), "# B\n");
    s.post_json("/api/quire/refactor/revert", json!({}))
        .await
        .expect_error(400);
    s.post_json("/api/quire/refactor/revert", json!({"commit": "not-hex"}))
        .await
        .expect_error(400);
    s.post_json(
        "/api/quire/refactor/revert",
        json!({"commit": "abcdef1234"}),
    )
    .await
    .expect_error(400);
}

#[tokio::test]
async fn revert_needs_git() {
    let s = TestServer::with(
        support::options(quire_service::Strategy::None, false),
        Default::default(),
        &files(),
    );
    s.post_json("/api/quire/refactor/revert", json!({"commit": "abcdef1"}))
        .await
        .expect_error(501);
    // Apply still works without versioning, without a commit.
    let r = apply(&s, json!({"manifest": move_b()}), &[]).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.json()["applied"].get("commit").is_none());
}

#[tokio::test]
async fn pages_claimed_by_another_actor_cannot_be_moved_or_relinked() {
    let s = server();
    let r = s
        .call(
            Method::POST,
            "/api/quire/claim",
            &[("content-type", "application/json"), ("x-actor", "bob")],
            json!({"path": "notes/a.md"}).to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    // Moving b rewrites a link in a.md, which bob holds.
    let r = apply(&s, json!({"manifest": move_b()}), &[("x-actor", "alice")]).await;
    assert_eq!(r.status, 422, "{}", r.text());
    let plan = &r.json()["plan"];
    assert_eq!(plan["rejected"][0]["path"], "notes/a.md", "{plan}");
    assert!(s.disk("notes/b.md").is_some());
    // The holder itself may.
    let r = apply(&s, json!({"manifest": move_b()}), &[("x-actor", "bob")]).await;
    assert_eq!(r.status, 200, "{}", r.text());
}

#[tokio::test]
async fn apply_works_under_cow_versioning_without_a_commit() {
    let s = TestServer::with(
        support::options(quire_service::Strategy::Cow, false),
        Default::default(),
        &files(),
    );
    let r = apply(&s, json!({"manifest": move_b()}), &[]).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.json()["applied"].get("commit").is_none());
    assert_eq!(s.disk("archive/b.md").as_deref(), Some("# B\n"));
    s.post_json("/api/quire/refactor/revert", json!({"commit": "abcdef1"}))
        .await
        .expect_error(501);
}
