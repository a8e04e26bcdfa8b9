//! Saved views and computed view pages over HTTP: CRUD of `/views`, execution with
//! pagination, bad input (400, nothing written), and view pages refreshed after writes and on
//! `POST /view/refresh`.

mod support;

use std::time::Duration;

use axum::body::Body;
use axum::http::Method;
use serde_json::{json, Value};
use support::TestServer;

const VIEW_PAGE: &str = "---\nquire-view: true\nquire-query: \"TABLE status FROM \\\"notes\\\" SORT file.name ASC\"\n---\nold body\n";

fn vault() -> Vec<(&'static str, &'static str)> {
    vec![
        ("notes/a.md", "---\nstatus: open\n---\n# A\n"),
        ("notes/b.md", "---\nstatus: done\n---\n# B\n"),
        ("notes/c.md", "---\nstatus: open\n---\n# C\n"),
    ]
}

fn server() -> TestServer {
    let s = TestServer::with(support::sync_git(), Default::default(), &vault());
    s.service.default_space().find().flush();
    s
}

fn settle(s: &TestServer) {
    assert!(s
        .service
        .default_space()
        .views()
        .settle(Duration::from_secs(10)));
}

async fn put_view(s: &TestServer, name: &str, body: Value) -> support::Reply {
    s.call(
        Method::PUT,
        &format!("/api/quire/views/{name}"),
        &[("content-type", "application/json"), ("x-actor", "alice")],
        body.to_string(),
    )
    .await
}

#[tokio::test]
async fn views_are_saved_listed_read_and_deleted_as_committed_files() {
    let s = server();
    let commits = s.commit_count();
    let r = put_view(
        &s,
        "open",
        json!({"name": "ignored", "query": "TABLE status FROM \"notes\" WHERE status = \"open\"",
               "layout": "board", "columns": ["status"], "custom": {"x": 1}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["name"], "open");
    assert_eq!(v["layout"], "board");
    assert_eq!(s.commit_count(), commits + 1);
    assert_eq!(s.head_author(), "alice");
    let stored: Value = serde_json::from_str(&s.disk(".quire/views/open.json").unwrap()).unwrap();
    assert_eq!(stored["name"], "open");
    assert_eq!(stored["custom"], json!({"x": 1}), "unknown keys are kept");

    put_view(&s, "all", json!({"query": "LIST FROM \"notes\""}))
        .await
        .json();
    let list = s.get("/api/quire/views").await.json();
    let names: Vec<&str> = list["views"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["all", "open"]);
    assert_eq!(
        list["views"][0]["layout"], "table",
        "layout defaults to table"
    );

    let one = s.get("/api/quire/views/open").await.json();
    assert_eq!(one["columns"], json!(["status"]));

    let r = s
        .call(Method::DELETE, "/api/quire/views/open", &[], Body::empty())
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["status"], "deleted");
    assert!(s.disk(".quire/views/open.json").is_none());
    s.get("/api/quire/views/open").await.expect_error(404);
    s.call(Method::DELETE, "/api/quire/views/open", &[], Body::empty())
        .await
        .expect_error(404);
    s.assert_clean();
}

#[tokio::test]
async fn executing_a_view_pages_its_rows() {
    let s = server();
    put_view(
        &s,
        "notes",
        json!({"query": "TABLE status FROM \"notes\" SORT file.name ASC"}),
    )
    .await;
    let v = s.get("/api/quire/views/notes/execute").await.json();
    assert_eq!(v["total"], 3, "{v}");
    assert_eq!(v["limit"], 50);
    assert_eq!(v["offset"], 0);
    assert_eq!(v["mode"], "TABLE");
    assert_eq!(v["headers"], json!(["File", "status"]));
    assert_eq!(v["view"]["name"], "notes");
    assert_eq!(v["rows"].as_array().unwrap().len(), 3);

    let v = s
        .get("/api/quire/views/notes/execute?limit=1&offset=1")
        .await
        .json();
    assert_eq!(v["total"], 3);
    assert_eq!(v["rows"], json!([["notes/b.md", "done"]]));
    s.get("/api/quire/views/none/execute")
        .await
        .expect_error(404);
    s.get("/api/quire/views/notes/execute?limit=x")
        .await
        .expect_error(400);
}

#[tokio::test]
async fn bad_views_are_400_and_write_nothing() {
    let s = server();
    let commits = s.commit_count();
    let m = put_view(&s, "broken", json!({"query": "TABLE FROM WHERE ("}))
        .await
        .expect_error(400);
    assert!(m.contains("at "), "the position is named: {m}");
    put_view(&s, "bad%20name", json!({"query": "LIST"}))
        .await
        .expect_error(400);
    put_view(&s, &"x".repeat(65), json!({"query": "LIST"}))
        .await
        .expect_error(400);
    put_view(&s, "empty", json!({"query": ""}))
        .await
        .expect_error(400);
    put_view(&s, "layout", json!({"query": "LIST", "layout": "gallery"}))
        .await
        .expect_error(400);
    put_view(&s, "noquery", json!({"layout": "list"}))
        .await
        .expect_error(400);
    s.get("/api/quire/views/bad.name").await.expect_error(400);
    assert_eq!(s.commit_count(), commits);
    assert!(s.disk(".quire/views").is_none());
}

#[tokio::test]
async fn a_view_runs_with_its_filters_sort_and_groups() {
    let s = server();
    let view = json!({
        "query": "TABLE status FROM \"notes\" SORT file.name ASC",
        "filters": {"status": ["open", "done"]},
        "sort": [{"field": "File", "dir": "desc"}],
        "group_by": "status",
    });
    let r = put_view(&s, "board", view.clone()).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let stored: Value = serde_json::from_str(&s.disk(".quire/views/board.json").unwrap()).unwrap();
    assert_eq!(stored["filters"], view["filters"], "kept as sent");
    assert_eq!(stored["sort"], view["sort"]);

    let v = s.get("/api/quire/views/board/execute").await.json();
    assert_eq!(
        v["rows"],
        json!([
            ["notes/b.md", "done"],
            ["notes/c.md", "open"],
            ["notes/a.md", "open"]
        ]),
        "{v}"
    );
    assert_eq!(v["total"], 3);
    assert_eq!(
        v["groups"],
        json!([{"key": "done", "total": 1, "offset": 0}, {"key": "open", "total": 2, "offset": 1}])
    );
    // Paging counts in the grouped rows; the groups describe the whole result.
    let v = s
        .get("/api/quire/views/board/execute?limit=1&offset=2")
        .await
        .json();
    assert_eq!(v["rows"], json!([["notes/a.md", "open"]]));
    assert_eq!(v["groups"][1]["offset"], 1);

    // Filters narrow, sort orders; no `group_by`, no `groups`.
    put_view(
        &s,
        "open",
        json!({"query": "TABLE status FROM \"notes\"", "filters": "status = \"open\"",
               "sort": "-File"}),
    )
    .await;
    let v = s.get("/api/quire/views/open/execute").await.json();
    assert_eq!(
        v["rows"],
        json!([["notes/c.md", "open"], ["notes/a.md", "open"]])
    );
    assert_eq!(v["total"], 2);
    assert!(v.get("groups").is_none(), "{v}");
}

#[tokio::test]
async fn unusable_view_shapes_are_400_and_write_nothing() {
    let s = server();
    let commits = s.commit_count();
    let cases = [
        (json!({"sort": 3}), "`sort` is a number"),
        (
            json!({"sort": {"field": "status", "dir": "sideways"}}),
            "\"asc\" or \"desc\"",
        ),
        (
            json!({"filters": {"status": {"~": "x"}}}),
            "unknown operator",
        ),
        (
            json!({"filters": [{"field": "status", "op": "in", "value": "open"}]}),
            "list `value`",
        ),
        (json!({"filters": "status = "}), "not a field or expression"),
        (json!({"group_by": ["status", "title"]}), "one field"),
    ];
    for (shape, expected) in cases {
        let mut body = json!({"query": "TABLE status FROM \"notes\""});
        body.as_object_mut()
            .unwrap()
            .extend(shape.as_object().unwrap().clone());
        let m = put_view(&s, "bad", body).await.expect_error(400);
        assert!(m.contains(expected), "{shape}: {m}");
    }
    let m = put_view(
        &s,
        "count",
        json!({"query": "COUNT FROM \"notes\"", "sort": "status"}),
    )
    .await
    .expect_error(400);
    assert!(m.contains("no rows to sort or group"), "{m}");
    assert_eq!(s.commit_count(), commits);
    assert!(s.disk(".quire/views").is_none());

    // A view file edited by hand into a shape that cannot run: 422 on execute.
    let dir = s.dir.path().join(".quire/views");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("hand.json"),
        r#"{"query": "LIST FROM \"notes\"", "sort": {"dir": "desc"}}"#,
    )
    .unwrap();
    let m = s
        .get("/api/quire/views/hand/execute")
        .await
        .expect_error(422);
    assert!(m.contains("save it again"), "{m}");
}

#[tokio::test]
async fn view_pages_refresh_after_writes_and_keep_their_frontmatter() {
    let s = server();
    s.put("views/status.md", VIEW_PAGE, "bob").await;
    settle(&s);
    let text = s.disk("views/status.md").unwrap();
    let frontmatter = VIEW_PAGE.strip_suffix("old body\n").unwrap();
    assert!(text.starts_with(frontmatter), "{text}");
    assert!(!text.contains("old body"));
    assert!(text.contains("| [[notes/a]] | open |"), "{text}");
    assert!(text.contains("| [[notes/b]] | done |"), "{text}");
    let repo = s.repo();
    let refresh_commit = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(refresh_commit.author().name(), Some("quire"));
    assert_eq!(
        refresh_commit.message().unwrap().trim(),
        "Refresh view views/status.md"
    );

    // A write elsewhere changes the result: the page follows.
    s.put("notes/d.md", "---\nstatus: blocked\n---\n# D\n", "bob")
        .await;
    settle(&s);
    let text = s.disk("views/status.md").unwrap();
    assert!(text.contains("| [[notes/d]] | blocked |"), "{text}");

    // A write that does not change the result writes nothing more; nothing loops.
    let commits = s.commit_count();
    s.put("other.md", "# unrelated\n", "bob").await;
    settle(&s);
    std::thread::sleep(Duration::from_millis(200));
    settle(&s);
    assert_eq!(s.commit_count(), commits + 1);
    s.assert_clean();
}

#[tokio::test]
async fn post_view_refresh_recomputes_every_view_page() {
    let s = TestServer::with(
        support::sync_git(),
        Default::default(),
        &[
            ("notes/a.md", "---\nstatus: open\n---\n# A\n"),
            ("v.md", VIEW_PAGE),
            (
                "list.md",
                "---\nquire-view: true\nquire-query: LIST FROM \"notes\"\n---\n",
            ),
            ("plain.md", "---\nquire-query: LIST\n---\nkept\n"),
        ],
    );
    s.service.default_space().find().flush();
    settle(&s);
    let r = s.post_json("/api/quire/view/refresh", json!({})).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["refreshed"], 2, "{v}");
    assert_eq!(v["written"], 0, "the start already refreshed them: {v}");
    assert!(v["duration_ms"].is_u64());
    assert!(s.disk("list.md").unwrap().ends_with("- [[notes/a]]\n"));
    assert_eq!(
        s.disk("plain.md").unwrap(),
        "---\nquire-query: LIST\n---\nkept\n"
    );
    assert!(s.disk("v.md").unwrap().contains("| [[notes/a]] | open |"));
}

#[tokio::test]
async fn a_view_page_with_a_broken_query_shows_the_error() {
    let s = server();
    s.put(
        "bad.md",
        "---\nquire-view: true\nquire-query: \"TABLE FROM (\"\n---\n",
        "bob",
    )
    .await;
    settle(&s);
    let text = s.disk("bad.md").unwrap();
    assert!(text.contains("> quire-view: the query failed"), "{text}");
}

fn head_message(s: &TestServer) -> String {
    let repo = s.repo();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    head.message().unwrap().trim().to_string()
}

#[tokio::test]
async fn a_view_save_and_delete_take_a_message_and_refuse_a_stale_etag() {
    let s = server();
    let r = s
        .call(
            Method::PUT,
            "/api/quire/views/mine?message=Keep%20my%20view",
            &[("content-type", "application/json")],
            json!({"query": "LIST FROM \"notes\""}).to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(head_message(&s), "Keep my view");
    let commits = s.commit_count();
    let stored = s.disk(".quire/views/mine.json").unwrap();
    let r = s
        .call(
            Method::PUT,
            "/api/quire/views/mine",
            &[
                ("content-type", "application/json"),
                ("if-match", "\"0000\""),
            ],
            json!({"query": "TABLE status FROM \"notes\""}).to_string(),
        )
        .await;
    r.expect_error(409);
    assert_eq!(s.disk(".quire/views/mine.json").unwrap(), stored);
    assert_eq!(s.commit_count(), commits);
    let r = s
        .call(
            Method::DELETE,
            "/api/quire/views/mine?message=Drop%20it",
            &[("x-actor", "bob")],
            Body::empty(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(head_message(&s), "Drop it");
    assert_eq!(s.head_author(), "bob");
    s.assert_clean();
}

#[tokio::test]
async fn view_refresh_takes_a_bare_post_without_a_body() {
    let s = server();
    let r = s
        .call(Method::POST, "/api/quire/view/refresh", &[], Body::empty())
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["refreshed"], 0);
}

#[tokio::test]
async fn a_view_body_that_is_no_view_is_400_and_writes_nothing() {
    let s = server();
    let commits = s.commit_count();
    put_view(&s, "odd", json!(["not", "a", "view"]))
        .await
        .expect_error(400);
    s.call(
        Method::PUT,
        "/api/quire/views/odd",
        &[("content-type", "text/plain")],
        "query",
    )
    .await
    .expect_error(400);
    assert!(s.disk(".quire/views/odd.json").is_none());
    assert_eq!(s.commit_count(), commits);
}
