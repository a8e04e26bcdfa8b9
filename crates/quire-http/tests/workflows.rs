//! Frontmatter schemas and workflows over HTTP: schemas stored and checked for being JSON
//! Schemas, enforced on every write path (file PUT, bulk, append, restructuring edits) with a
//! 400 naming the violations and nothing committed; workflow definitions, assign, advance
//! (409 when not allowed), reorder and boards; bad input writes nothing.

mod support;

use axum::body::Body;
use axum::http::Method;
use serde_json::{json, Value};
use support::{Reply, TestServer};

fn files() -> Vec<(&'static str, &'static str)> {
    vec![
        ("notes/a.md", "---\ntitle: Alpha\n---\n# Alpha\n"),
        ("notes/b.md", "# Bravo\n"),
        ("notes/c.md", "# Charlie\n"),
    ]
}

fn enforcing() -> TestServer {
    TestServer::from_config("[schema]\nenforce = true\n", &files())
}

async fn put_schema(s: &TestServer, name: &str, body: &str) -> Reply {
    s.call(
        Method::PUT,
        &format!("/api/quire/schemas/{name}"),
        &[("content-type", "application/json"), ("x-actor", "sam")],
        body.to_string(),
    )
    .await
}

const MEETING: &str = r#"{
  "type": "object",
  "required": ["date", "attendees"],
  "properties": {
    "date": {"type": "string"},
    "attendees": {"type": "array", "items": {"type": "string"}, "minItems": 1}
  }
}"#;

const GOOD: &str = "---\ntype: meeting\ndate: \"2025-01-02\"\nattendees: [ann, bob]\n---\n# Sync\n";
const BAD: &str = "---\ntype: meeting\nattendees: 3\n---\n# Sync\n";

fn assert_violation(r: &Reply, page_type: &str) -> Vec<String> {
    r.expect_error(400);
    let body = r.json();
    assert_eq!(body["type"], page_type, "{body}");
    let violations: Vec<String> = body["violations"]
        .as_array()
        .unwrap_or_else(|| panic!("no violations: {body}"))
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert!(!violations.is_empty());
    violations
}

#[tokio::test]
async fn schemas_are_stored_listed_and_read_as_committed_files() {
    let s = TestServer::with(support::sync_git(), Default::default(), &files());
    assert_eq!(s.get("/api/quire/schemas").await.json(), json!([]));
    let commits = s.commit_count();
    let r = put_schema(&s, "meeting", MEETING).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["path"], ".quire/schemas/meeting.json");
    assert_eq!(r.json()["created"], true);
    assert_eq!(s.commit_count(), commits + 1);
    assert_eq!(s.head_author(), "sam");
    assert_eq!(s.disk(".quire/schemas/meeting.json").unwrap(), MEETING);
    put_schema(&s, "adr", r#"{"type": "object"}"#).await;
    assert_eq!(
        s.get("/api/quire/schemas").await.json(),
        json!(["adr", "meeting"])
    );
    let r = s.get("/api/quire/schemas/meeting").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.text(), MEETING, "the raw schema");
    assert_eq!(r.header("content-type"), "application/json");
    assert_eq!(
        r.header("etag"),
        format!("\"{}\"", quire_service::etag(MEETING.as_bytes()))
    );
    s.get("/api/quire/schemas/none").await.expect_error(404);
    // Not enforcing: schemas are stored only.
    let r = s.put("m.md", BAD, "ann").await;
    assert_eq!(r.status, 200, "{}", r.text());
    s.assert_clean();
}

#[tokio::test]
async fn a_schema_must_be_a_valid_json_schema() {
    let s = TestServer::with(support::sync_git(), Default::default(), &files());
    let commits = s.commit_count();
    for body in [
        "",
        "{",
        "\"a string\"",
        "42",
        r#"{"type": 12}"#,
        r#"{"type": "object", "required": "name"}"#,
        r#"{"minLength": -1}"#,
        r#"{"$ref": "https://example.com/remote.json"}"#,
    ] {
        let r = put_schema(&s, "meeting", body).await;
        r.expect_error(400);
    }
    for name in ["..%2F..%2Fx", "a.b", "a%20b", "%2E%2E"] {
        put_schema(&s, name, MEETING).await.expect_error(400);
        s.get(&format!("/api/quire/schemas/{name}"))
            .await
            .expect_error(400);
    }
    let big = format!(
        "{{\"description\": \"{}\"}}",
        "x".repeat(quire_service::SCHEMA_MAX_BYTES)
    );
    put_schema(&s, "big", &big).await.expect_error(413);
    assert_eq!(s.commit_count(), commits, "nothing was committed");
    assert!(s.disk(".quire/schemas").is_none());
}

#[tokio::test]
async fn enforced_schemas_refuse_file_writes_with_their_violations() {
    let s = enforcing();
    put_schema(&s, "meeting", MEETING).await;
    let commits = s.commit_count();

    let violations = assert_violation(&s.put("m.md", BAD, "ann").await, "meeting");
    let all = violations.join(" | ");
    assert!(all.contains("date"), "{all}");
    assert!(all.contains("attendees"), "{all}");
    assert!(s.disk("m.md").is_none());
    assert_eq!(s.commit_count(), commits);

    assert_eq!(s.put("m.md", GOOD, "ann").await.status, 200);
    // An update that breaks it is refused too; the file keeps its content.
    assert_violation(&s.put("m.md", BAD, "ann").await, "meeting");
    assert_eq!(s.disk("m.md").unwrap(), GOOD);
    // Pages of a type without a schema, and pages without a type, pass.
    assert_eq!(
        s.put("n.md", "---\ntype: note\n---\n", "ann").await.status,
        200
    );
    assert_eq!(s.put("o.md", "# plain\n", "ann").await.status, 200);
    s.assert_clean();
}

#[tokio::test]
async fn enforced_schemas_refuse_bulk_and_append_as_a_whole() {
    let s = enforcing();
    put_schema(&s, "meeting", MEETING).await;
    let commits = s.commit_count();
    let r = s
        .post_json(
            "/api/quire/bulk",
            json!({"files": [
                {"path": "ok.md", "content": GOOD},
                {"path": "bad.md", "content": BAD},
            ]}),
        )
        .await;
    assert_violation(&r, "meeting");
    assert!(s.disk("ok.md").is_none() && s.disk("bad.md").is_none());
    assert_eq!(s.commit_count(), commits);

    // Appending to a typed page that is invalid (edited outside quire, which is not refused)
    // is refused: the page as it would be after the append is checked.
    std::fs::write(s.dir.path().join("outside.md"), BAD).unwrap();
    let commits = s.commit_count();
    let r = s
        .call(
            Method::POST,
            "/api/quire/file/append?path=outside.md",
            &[],
            "more text",
        )
        .await;
    assert_violation(&r, "meeting");
    assert_eq!(
        s.disk("outside.md").unwrap(),
        BAD,
        "outside edits are not undone"
    );
    assert_eq!(s.commit_count(), commits);
}

#[tokio::test]
async fn enforced_schemas_refuse_restructuring_edits_that_violate_them() {
    let s = enforcing();
    put_schema(&s, "meeting", MEETING).await;
    s.put("m.md", GOOD, "ann").await;
    let commits = s.commit_count();
    let manifest = json!({"edits": [{"select": {"paths": ["m.md"]}, "set": {"attendees": []}}]});
    let plan = s
        .post_json("/api/quire/refactor/plan", manifest.clone())
        .await;
    assert_eq!(plan.status, 200, "{}", plan.text());
    let r = s
        .post_json(
            "/api/quire/refactor/apply",
            json!({"manifest": manifest, "digest": plan.json()["digest"]}),
        )
        .await;
    assert_violation(&r, "meeting");
    assert_eq!(s.disk("m.md").unwrap(), GOOD);
    assert_eq!(s.commit_count(), commits);
    s.assert_clean();
}

#[tokio::test]
async fn a_changed_schema_applies_to_the_next_write() {
    let s = enforcing();
    put_schema(&s, "meeting", MEETING).await;
    assert_eq!(s.put("m.md", GOOD, "ann").await.status, 200);
    put_schema(&s, "meeting", r#"{"type": "object", "required": ["room"]}"#).await;
    let violations = assert_violation(&s.put("m.md", GOOD, "ann").await, "meeting");
    assert!(violations.join(" ").contains("room"), "{violations:?}");
    // A schema edited outside quire counts as well.
    std::fs::write(
        s.dir.path().join(".quire/schemas/meeting.json"),
        r#"{"type": "object"}"#,
    )
    .unwrap();
    assert_eq!(s.put("m.md", GOOD, "ann").await.status, 200);
}

const FLOW: &str = r#"{"states": [{"name": "todo"}, {"name": "doing", "color": "blue"}, {"name": "done", "terminal": true}],
 "transitions": [{"from": "todo", "to": "doing"}, {"from": "doing", "to": "done", "required_role": "lead"}],
 "initial": "todo"}"#;

async fn put_flow(s: &TestServer, name: &str, body: &str) -> Reply {
    s.call(
        Method::PUT,
        &format!("/api/quire/workflows/{name}"),
        &[("content-type", "application/json"), ("x-actor", "wes")],
        body.to_string(),
    )
    .await
}

async fn post(s: &TestServer, uri: &str, body: Value) -> Reply {
    s.call(
        Method::POST,
        uri,
        &[("content-type", "application/json"), ("x-actor", "wes")],
        body.to_string(),
    )
    .await
}

fn board_paths(board: &Value, state: &str) -> Vec<String> {
    board["board"][state]
        .as_array()
        .unwrap_or_else(|| panic!("no column {state}: {board}"))
        .iter()
        .map(|c| c["path"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn workflow_definitions_are_saved_listed_read_and_deleted() {
    let s = TestServer::with(support::sync_git(), Default::default(), &files());
    let commits = s.commit_count();
    let r = put_flow(&s, "tasks", FLOW).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["name"], "tasks");
    assert_eq!(s.commit_count(), commits + 1);
    assert_eq!(s.head_author(), "wes");
    let stored: Value =
        serde_json::from_str(&s.disk(".quire/workflows/tasks.json").unwrap()).unwrap();
    assert_eq!(stored["states"][2]["terminal"], true);
    assert_eq!(stored["transitions"][1]["required_role"], "lead");
    put_flow(&s, "docs", r#"{"states": [{"name": "draft"}]}"#).await;
    let list = s.get("/api/quire/workflows").await.json();
    let names: Vec<&str> = list["workflows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["docs", "tasks"]);
    let one = s.get("/api/quire/workflows/tasks").await.json();
    assert_eq!(one["initial"], "todo");
    let r = s
        .call(
            Method::DELETE,
            "/api/quire/workflows/docs",
            &[],
            Body::empty(),
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["status"], "deleted");
    s.get("/api/quire/workflows/docs").await.expect_error(404);
    s.call(
        Method::DELETE,
        "/api/quire/workflows/docs",
        &[],
        Body::empty(),
    )
    .await
    .expect_error(404);
    s.assert_clean();
}

#[tokio::test]
async fn a_workflow_definition_must_hold_together() {
    let s = TestServer::with(support::sync_git(), Default::default(), &files());
    let commits = s.commit_count();
    for body in [
        "{",
        "[]",
        r#"{"states": []}"#,
        r#"{"transitions": []}"#,
        r#"{"states": [{"name": "a"}, {"name": "a"}]}"#,
        r#"{"states": [{"name": ""}]}"#,
        r#"{"states": [{"name": " a"}]}"#,
        r#"{"states": [{"name": "a"}], "transitions": [{"from": "a", "to": "b"}]}"#,
        r#"{"states": [{"name": "a"}], "transitions": [{"from": "a"}]}"#,
        r#"{"states": [{"name": "a"}], "initial": "z"}"#,
        r#"{"states": [{"name": 5}]}"#,
    ] {
        put_flow(&s, "tasks", body).await.expect_error(400);
    }
    for name in ["..%2Fx", "a.b", "%2E%2E"] {
        put_flow(&s, name, FLOW).await.expect_error(400);
        s.get(&format!("/api/quire/workflows/{name}"))
            .await
            .expect_error(400);
        s.get(&format!("/api/quire/workflow/board/{name}"))
            .await
            .expect_error(400);
    }
    assert_eq!(s.commit_count(), commits);
    assert!(s.disk(".quire/workflows").is_none());
}

#[tokio::test]
async fn pages_are_assigned_advanced_and_shown_on_the_board() {
    let s = TestServer::with(support::sync_git(), Default::default(), &files());
    put_flow(&s, "tasks", FLOW).await;
    let commits = s.commit_count();
    let r = post(
        &s,
        "/api/quire/workflow/assign",
        json!({"path": "notes/a.md", "workflow": "tasks", "state": "doing", "actor": "body-actor"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["state"], "doing");
    assert_eq!(s.commit_count(), commits + 1, "one commit");
    assert_eq!(s.head_author(), "wes", "X-Actor wins");
    assert_eq!(
        s.disk("notes/a.md").unwrap(),
        "---\ntitle: Alpha\nworkflow: tasks\nstate: doing\n---\n# Alpha\n",
        "the frontmatter keeps its bytes and gains two keys"
    );
    assert_eq!(
        r.json()["etag"],
        quire_service::etag(s.disk("notes/a.md").unwrap().as_bytes())
    );
    // No state: the initial one.
    let r = post(
        &s,
        "/api/quire/workflow/assign",
        json!({"path": "notes/b.md", "workflow": "tasks"}),
    )
    .await;
    assert_eq!(r.json()["state"], "todo");
    post(
        &s,
        "/api/quire/workflow/assign",
        json!({"path": "notes/c.md", "workflow": "tasks", "state": "todo"}),
    )
    .await;

    let board = s.get("/api/quire/workflow/board/tasks").await;
    assert_eq!(board.status, 200, "{}", board.text());
    let board = board.json();
    assert_eq!(board["workflow"], "tasks");
    assert_eq!(board["states"], json!(["todo", "doing", "done"]));
    assert_eq!(board_paths(&board, "todo"), ["notes/b.md", "notes/c.md"]);
    assert_eq!(board_paths(&board, "doing"), ["notes/a.md"]);
    assert_eq!(board["board"]["done"], json!([]));
    assert_eq!(board["board"]["doing"][0]["title"], "Alpha");

    // Advance along a transition, and (not enforcing) to any state of the workflow.
    let r = post(
        &s,
        "/api/quire/workflow/advance",
        json!({"path": "notes/a.md", "target_state": "done"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["from"], "doing");
    let r = post(
        &s,
        "/api/quire/workflow/advance",
        json!({"path": "notes/a.md", "target_state": "todo"}),
    )
    .await;
    assert_eq!(r.status, 200, "unlisted transitions pass unless enforced");
    // A state the workflow does not have is never allowed.
    let commits = s.commit_count();
    let r = post(
        &s,
        "/api/quire/workflow/advance",
        json!({"path": "notes/a.md", "target_state": "shipped"}),
    )
    .await;
    r.expect_error(409);
    assert_eq!(s.commit_count(), commits);

    // Reorder a column: stored once, shown in that order.
    let r = post(
        &s,
        "/api/quire/workflow/reorder",
        json!({"workflow": "tasks", "state": "todo", "paths": ["notes/c.md", "notes/a.md", "notes/b.md"]}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(s.commit_count(), commits + 1);
    assert!(s.disk(".quire/workflows/tasks.order.json").is_some());
    let board = s.get("/api/quire/workflow/board/tasks").await.json();
    assert_eq!(
        board_paths(&board, "todo"),
        ["notes/c.md", "notes/a.md", "notes/b.md"]
    );
    // The order file is no workflow of its own.
    let list = s.get("/api/quire/workflows").await.json();
    assert_eq!(list["workflows"].as_array().unwrap().len(), 1);

    // A deleted workflow: pages keep their state, advancing is refused.
    s.call(
        Method::DELETE,
        "/api/quire/workflows/tasks",
        &[],
        Body::empty(),
    )
    .await;
    assert!(s.disk(".quire/workflows/tasks.order.json").is_none());
    assert!(s.disk("notes/a.md").unwrap().contains("state: todo"));
    let r = post(
        &s,
        "/api/quire/workflow/advance",
        json!({"path": "notes/a.md", "target_state": "doing"}),
    )
    .await;
    let message = r.expect_error(409);
    assert!(message.contains("no longer exists"), "{message}");
    s.assert_clean();
}

#[tokio::test]
async fn enforced_transitions_refuse_unlisted_moves() {
    let s = TestServer::from_config(
        "[workflow]\nenforce_transitions = true\ntransitions = [\"done->todo\"]\n",
        &files(),
    );
    put_flow(&s, "tasks", FLOW).await;
    post(
        &s,
        "/api/quire/workflow/assign",
        json!({"path": "notes/a.md", "workflow": "tasks"}),
    )
    .await;
    let commits = s.commit_count();
    let r = post(
        &s,
        "/api/quire/workflow/advance",
        json!({"path": "notes/a.md", "target_state": "done"}),
    )
    .await;
    let message = r.expect_error(409);
    assert!(message.contains("todo -> done"), "{message}");
    assert_eq!(s.commit_count(), commits);
    assert!(s.disk("notes/a.md").unwrap().contains("state: todo"));
    for target in ["doing", "done", "todo"] {
        let r = post(
            &s,
            "/api/quire/workflow/advance",
            json!({"path": "notes/a.md", "target_state": target}),
        )
        .await;
        assert_eq!(r.status, 200, "{target}: {}", r.text());
    }
    assert!(s.disk("notes/a.md").unwrap().contains("state: todo"));
}

#[tokio::test]
async fn workflow_requests_with_bad_input_write_nothing() {
    let s = TestServer::with(support::sync_git(), Default::default(), &files());
    put_flow(&s, "tasks", FLOW).await;
    let commits = s.commit_count();
    for path in [
        "../x.md",
        "notes/../../x.md",
        ".git/config.md",
        "notes/a.txt",
        "",
    ] {
        post(
            &s,
            "/api/quire/workflow/assign",
            json!({"path": path, "workflow": "tasks"}),
        )
        .await
        .expect_error(400);
        post(
            &s,
            "/api/quire/workflow/advance",
            json!({"path": path, "target_state": "doing"}),
        )
        .await
        .expect_error(400);
    }
    post(
        &s,
        "/api/quire/workflow/reorder",
        json!({"workflow": "tasks", "state": "todo", "paths": ["../x.md"]}),
    )
    .await
    .expect_error(400);
    post(
        &s,
        "/api/quire/workflow/reorder",
        json!({"workflow": "tasks", "state": "todo", "paths": ["a.md", "a.md"]}),
    )
    .await
    .expect_error(400);
    post(
        &s,
        "/api/quire/workflow/reorder",
        json!({"workflow": "tasks", "state": "nope", "paths": []}),
    )
    .await
    .expect_error(400);
    post(
        &s,
        "/api/quire/workflow/assign",
        json!({"path": "notes/a.md", "workflow": "tasks", "state": "nope"}),
    )
    .await
    .expect_error(400);
    post(
        &s,
        "/api/quire/workflow/assign",
        json!({"path": "missing.md", "workflow": "tasks"}),
    )
    .await
    .expect_error(404);
    post(
        &s,
        "/api/quire/workflow/assign",
        json!({"path": "notes/a.md", "workflow": "nope"}),
    )
    .await
    .expect_error(404);
    post(
        &s,
        "/api/quire/workflow/advance",
        json!({"path": "notes/b.md", "target_state": "doing"}),
    )
    .await
    .expect_error(409);
    for (uri, body) in [
        ("/api/quire/workflow/assign", "{"),
        ("/api/quire/workflow/assign", r#"{"workflow": "tasks"}"#),
        (
            "/api/quire/workflow/assign",
            r#"{"path": "notes/a.md", "workflow": "tasks", "x": 1}"#,
        ),
        ("/api/quire/workflow/advance", r#"{"path": "notes/a.md"}"#),
        (
            "/api/quire/workflow/reorder",
            r#"{"workflow": "tasks", "state": "todo"}"#,
        ),
    ] {
        s.call(
            Method::POST,
            uri,
            &[("content-type", "application/json")],
            body,
        )
        .await
        .expect_error(400);
    }
    s.get("/api/quire/workflow/board/nope")
        .await
        .expect_error(404);
    assert_eq!(s.commit_count(), commits);
    assert!(!s.disk("notes/a.md").unwrap().contains("workflow"));
}
