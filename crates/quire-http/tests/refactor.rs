//! Restructuring endpoints: plan, rename, rename-dir.

mod support;

use axum::http::Method;
use serde_json::json;
use support::TestServer;

fn vault() -> TestServer {
    TestServer::with(
        support::sync_git(),
        Default::default(),
        &[
            ("notes/a.md", "# A\n\nSee [[b]] and [B](b.md).\n"),
            ("notes/b.md", "# B\n\nBack to [[a]].\n"),
            ("index.md", "Start at [[notes/a]] and [[b|the b page]], rooted [[/notes/b]].\n\n```\n[[/notes/b]] in code\n```\n"),
            ("assets/pic.png", "PNG"),
        ],
    )
}

async fn plan_yaml(s: &TestServer, manifest: &str, query: &str) -> support::Reply {
    s.call(
        Method::POST,
        &format!("/api/quire/refactor/plan{query}"),
        &[("content-type", "application/yaml")],
        manifest.to_string(),
    )
    .await
}

#[tokio::test]
async fn plan_lists_moves_and_link_rewrites_and_writes_nothing() {
    let s = vault();
    let commits = s.commit_count();
    let r = plan_yaml(
        &s,
        "moves:\n  - from: notes/b.md\n    to: archive/b.md\n",
        "",
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let plan = r.json();
    assert_eq!(
        plan["moves"],
        json!([{"from": "notes/b.md", "to": "archive/b.md"}])
    );
    assert_eq!(plan["errors"], json!([]));
    assert_eq!(plan["digest"].as_str().unwrap().len(), 64);
    // `[[b]]` still finds the page by name; the relative markdown link and the rooted wiki
    // link must change.
    let edited: Vec<&str> = plan["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(edited, vec!["index.md", "notes/a.md"]);
    let index_links = &plan["edits"][0]["links"];
    assert_eq!(
        index_links,
        &json!([{"line": 1, "old": "/notes/b", "new": "/archive/b"}])
    );
    assert!(plan.get("diffs").is_none());
    assert_eq!(s.commit_count(), commits, "planning writes nothing");
    assert!(s.disk("notes/b.md").is_some());
}

#[tokio::test]
async fn plan_accepts_json_and_adds_diffs_on_request() {
    let s = vault();
    let r = s
        .call(
            Method::POST,
            "/api/quire/refactor/plan?diffs=true",
            &[("content-type", "application/json")],
            json!({"moves": [{"from": "notes/b.md", "to": "archive/b.md"}]}).to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let diffs = r.json()["diffs"].clone();
    let text = diffs.to_string();
    assert!(
        text.contains("-See [[b]] and [B](b.md).")
            || text.contains("[[archive/b]]")
            || text.contains("../archive/b.md"),
        "{text}"
    );
}

#[tokio::test]
async fn plan_is_200_with_errors_for_a_taken_destination() {
    let s = vault();
    let r = plan_yaml(&s, "moves:\n  - from: notes/a.md\n    to: notes/b.md\n", "").await;
    assert_eq!(r.status, 200);
    let plan = r.json();
    assert!(!plan["errors"].as_array().unwrap().is_empty());
    assert_eq!(plan["conflicts"][0]["code"], "exists");
}

#[tokio::test]
async fn plan_rejects_unparseable_unknown_and_empty_manifests() {
    let s = vault();
    let msg = plan_yaml(&s, "mvoes:\n  - from: a.md\n    to: b.md\n", "")
        .await
        .expect_error(400);
    assert!(msg.contains("mvoes"), "{msg}");
    plan_yaml(&s, "{}", "").await.expect_error(400);
    plan_yaml(&s, "moves: [from: ]: x", "")
        .await
        .expect_error(400);
    plan_yaml(&s, "moves: []\n", "?format=bogus")
        .await
        .expect_error(400);
}

#[tokio::test]
async fn plan_as_workspace_edit_renames_files_and_edits_links() {
    let s = vault();
    let r = plan_yaml(
        &s,
        "moves:\n  - from: notes/b.md\n    to: archive/b.md\n",
        "?format=workspace-edit",
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let edit = r.json();
    let changes = edit["documentChanges"].as_array().expect("documentChanges");
    assert!(changes.iter().any(|c| c["kind"] == "rename"), "{edit}");
    assert!(changes.iter().any(|c| c.get("edits").is_some()), "{edit}");

    let r = plan_yaml(
        &s,
        "moves:\n  - from: notes/a.md\n    to: notes/b.md\n",
        "?format=workspace-edit",
    )
    .await;
    assert_eq!(r.status, 422);
    let body = r.json();
    assert!(body["error"].is_string());
    assert!(body["plan"]["errors"].is_array());
}

#[tokio::test]
async fn rename_moves_the_page_and_rewrites_links_in_one_commit() {
    let s = vault();
    let commits = s.commit_count();
    let r = s
        .call(
            Method::POST,
            "/api/quire/rename",
            &[("content-type", "application/json"), ("x-actor", "alice")],
            json!({"from": "notes/b.md", "to": "archive/b.md"}).to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["from"], "notes/b.md");
    assert_eq!(v["to"], "archive/b.md");
    assert_eq!(v["etag"].as_str().unwrap().len(), 40);
    assert_eq!(v["updated_links"], 2, "{v}");
    assert_eq!(s.commit_count(), commits + 1, "one commit");
    assert_eq!(s.head_author(), "alice");
    assert!(s.disk("notes/b.md").is_none());
    assert_eq!(s.disk("archive/b.md").unwrap(), "# B\n\nBack to [[a]].\n");
    assert_eq!(
        s.disk("notes/a.md").unwrap(),
        "# A\n\nSee [[b]] and [B](../archive/b.md).\n"
    );
    assert_eq!(
        s.disk("index.md").unwrap(),
        "Start at [[notes/a]] and [[b|the b page]], rooted [[/archive/b]].\n\n```\n[[/notes/b]] in code\n```\n",
        "only the rooted link changed; alias and code untouched"
    );
    // Every link that resolved before still resolves to the moved page.
    let r = s
        .post_json("/api/quire/resolve-links", json!({"links": ["b"]}))
        .await;
    assert_eq!(r.json()["resolved"]["b"]["path"], "archive/b.md");
    s.assert_clean();
}

#[tokio::test]
async fn rename_without_relink_moves_only() {
    let s = vault();
    let before = s.disk("notes/a.md").unwrap();
    let r = s
        .post_json(
            "/api/quire/rename",
            json!({"from": "notes/b.md", "to": "old/b.md", "relink": false}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["updated_links"], 0);
    assert_eq!(s.disk("notes/a.md").unwrap(), before);
    assert!(s.disk("old/b.md").is_some());
}

#[tokio::test]
async fn rename_refuses_taken_missing_and_bad_paths_and_writes_nothing() {
    let s = vault();
    let commits = s.commit_count();
    let msg = s
        .post_json(
            "/api/quire/rename",
            json!({"from": "notes/a.md", "to": "notes/b.md"}),
        )
        .await
        .expect_error(409);
    assert!(msg.contains("already exists"), "{msg}");
    s.post_json(
        "/api/quire/rename",
        json!({"from": "nope.md", "to": "x.md"}),
    )
    .await
    .expect_error(404);
    s.post_json(
        "/api/quire/rename",
        json!({"from": "notes/a.md", "to": "../x.md"}),
    )
    .await
    .expect_error(400);
    s.post_json("/api/quire/rename", json!({"from": "notes/a.md"}))
        .await
        .expect_error(400);
    s.post_json(
        "/api/quire/rename",
        json!({"from": "notes/a.md", "to": "x.md", "extra": 1}),
    )
    .await
    .expect_error(400);
    assert_eq!(s.commit_count(), commits);
    assert!(s.disk("notes/a.md").is_some());
}

#[tokio::test]
async fn rename_moves_binary_assets() {
    let s = vault();
    let bytes = vec![0u8, 159, 146, 150, 255];
    let r = s
        .call(
            Method::PUT,
            "/api/quire/file?path=assets/raw.bin",
            &[],
            bytes.clone(),
        )
        .await;
    assert_eq!(r.status, 200);
    let r = s
        .post_json(
            "/api/quire/rename",
            json!({"from": "assets/raw.bin", "to": "img/raw.bin"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        std::fs::read(s.dir.path().join("img/raw.bin")).unwrap(),
        bytes
    );
    assert!(!s.dir.path().join("assets/raw.bin").exists());
}

#[tokio::test]
async fn rename_dir_moves_a_folder_and_rewrites_links() {
    let s = vault();
    let commits = s.commit_count();
    let r = s
        .post_json(
            "/api/quire/rename-dir",
            json!({"from": "notes", "to": "archive/notes"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.json(),
        json!({"from": "notes", "to": "archive/notes", "renamed": 2})
    );
    assert_eq!(s.commit_count(), commits + 1);
    assert!(s.disk("notes/a.md").is_none());
    let index = s.disk("index.md").unwrap();
    assert!(index.contains("[[/archive/notes/b]]"), "{index}");
    assert!(
        index.contains("[[notes/a]]"),
        "a path suffix that still resolves is kept: {index}"
    );
    let r = s
        .post_json("/api/quire/resolve-links", json!({"links": ["notes/a"]}))
        .await;
    assert_eq!(
        r.json()["resolved"]["notes/a"]["path"],
        "archive/notes/a.md"
    );
    s.assert_clean();
}

#[tokio::test]
async fn rename_dir_errors() {
    let s = vault();
    s.post_json("/api/quire/rename-dir", json!({"from": "nope", "to": "x"}))
        .await
        .expect_error(404);
    s.post_json(
        "/api/quire/rename-dir",
        json!({"from": "index.md", "to": "x"}),
    )
    .await
    .expect_error(400);
    s.post_json(
        "/api/quire/rename-dir",
        json!({"from": "notes", "to": "assets"}),
    )
    .await
    .expect_error(409);
    s.post_json(
        "/api/quire/rename-dir",
        json!({"from": "notes", "to": "notes/sub"}),
    )
    .await
    .expect_error(422);
    assert!(s.disk("notes/a.md").is_some());
}

/// The `file://` URI of `path` under the server's root (its canonical folder).
fn uri(s: &TestServer, path: &str) -> String {
    let root = std::fs::canonicalize(s.dir.path()).unwrap();
    let root = quire_api::workspace_edit::file_uri(&root.to_string_lossy());
    format!(
        "{root}/{}",
        quire_api::workspace_edit::encode_uri_path(path)
    )
}

fn head(s: &TestServer) -> String {
    s.repo()
        .head()
        .unwrap()
        .peel_to_commit()
        .unwrap()
        .id()
        .to_string()
}

async fn from_edit(s: &TestServer, edit: serde_json::Value, query: &str) -> support::Reply {
    s.post_json(
        &format!("/api/quire/refactor/from-workspace-edit{query}"),
        edit,
    )
    .await
}

#[tokio::test]
async fn workspace_edit_rename_plans_like_the_equivalent_manifest() {
    let s = vault();
    let before = head(&s);
    let edit = json!({"documentChanges": [
        {"kind": "rename", "oldUri": uri(&s, "notes/b.md"), "newUri": uri(&s, "archive/b.md"),
         "options": {"overwrite": false}}
    ]});
    let r = from_edit(&s, edit, "").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(
        v["manifest"],
        json!({"moves": [{"from": "notes/b.md", "to": "archive/b.md"}]})
    );
    assert_eq!(v["ignored"], json!([]));
    let manifest = plan_yaml(
        &s,
        "moves:\n  - from: notes/b.md\n    to: archive/b.md\n",
        "",
    )
    .await
    .json();
    assert_eq!(v["plan"], manifest, "the same plan, digest included");
    assert_eq!(
        v["plan"]["edits"][0]["links"],
        json!([{"line": 1, "old": "/notes/b", "new": "/archive/b"}])
    );
    assert!(v["plan"].get("diffs").is_none());
    assert_eq!(head(&s), before, "nothing is written");
    assert!(s.disk("notes/b.md").is_some() && s.disk("archive/b.md").is_none());

    // `localhost` hosts and `diffs=true` as for /refactor/plan.
    let localhost = uri(&s, "notes/b.md").replacen("file://", "file://localhost", 1);
    let edit = json!({"documentChanges": [
        {"kind": "rename", "oldUri": localhost, "newUri": uri(&s, "archive/b.md")}
    ]});
    let r = from_edit(&s, edit, "?diffs=true").await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.json()["plan"]["diffs"]
        .as_array()
        .is_some_and(|d| !d.is_empty()));
    assert_eq!(head(&s), before);
}

#[tokio::test]
async fn workspace_edit_folder_rename_moves_the_folder() {
    let s = vault();
    let before = head(&s);
    for (old, new) in [("notes", "archive/notes"), ("notes/", "archive/notes/")] {
        let edit = json!({"documentChanges": [
            {"kind": "rename", "oldUri": uri(&s, old), "newUri": uri(&s, new)}
        ]});
        let r = from_edit(&s, edit, "").await;
        assert_eq!(r.status, 200, "{}", r.text());
        let v = r.json();
        assert_eq!(
            v["manifest"],
            json!({"moves": [{"from": "notes/", "to": "archive/notes/"}]})
        );
        assert_eq!(
            v["plan"]["moves"],
            json!([
                {"from": "notes/a.md", "to": "archive/notes/a.md"},
                {"from": "notes/b.md", "to": "archive/notes/b.md"}
            ])
        );
        assert_eq!(v["plan"]["errors"], json!([]));
    }
    assert_eq!(head(&s), before);
    assert!(s.disk("notes/a.md").is_some());
}

#[tokio::test]
async fn workspace_edit_lists_what_it_ignores_and_plans_several_renames() {
    let s = vault();
    let before = head(&s);
    let edit = json!({
        "documentChanges": [
            {"textDocument": {"uri": uri(&s, "index.md"), "version": 4},
             "edits": [{"range": {"start": {"line": 0, "character": 0},
                                  "end": {"line": 0, "character": 1}}, "newText": "X"}]},
            {"kind": "rename", "oldUri": uri(&s, "notes/a.md"), "newUri": uri(&s, "a.md")},
            {"kind": "rename", "oldUri": uri(&s, "notes/b.md"), "newUri": uri(&s, "b.md")},
            {"kind": "create", "uri": uri(&s, "new.md")},
            {"kind": "delete", "uri": uri(&s, "assets/pic.png")},
            {"kind": "rename", "oldUri": uri(&s, "gone.md"), "newUri": uri(&s, "here.md")}
        ],
        "changes": {uri(&s, "index.md"): []}
    });
    let r = from_edit(&s, edit, "").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["manifest"]["moves"].as_array().unwrap().len(), 3);
    let ignored: Vec<&str> = v["ignored"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_str().unwrap())
        .collect();
    assert_eq!(ignored.len(), 4, "{ignored:?}");
    assert!(ignored[0].starts_with("documentChanges[0]: text edits of index.md ignored"));
    assert!(ignored[1].starts_with("documentChanges[3]: create of new.md ignored"));
    assert!(ignored[2].starts_with("documentChanges[4]: delete of assets/pic.png ignored"));
    assert!(ignored[3].starts_with("changes: text edits of 1 document(s) ignored"));
    // The missing page is the planner's to report, like any manifest's.
    let errors = v["plan"]["errors"].to_string();
    assert!(errors.contains("gone.md"), "{errors}");
    assert_eq!(head(&s), before);
    assert_eq!(
        s.disk("index.md").unwrap().lines().next().unwrap(),
        "Start at [[notes/a]] and [[b|the b page]], rooted [[/notes/b]]."
    );
}

#[tokio::test]
async fn workspace_edit_refuses_foreign_uris_no_renames_and_bad_json() {
    let s = vault();
    let before = head(&s);
    let rename = |old: String, new: String| json!({"documentChanges": [{"kind": "rename", "oldUri": old, "newUri": new}]});
    let outside = from_edit(
        &s,
        rename(uri(&s, "notes/a.md"), "file:///tmp/elsewhere/a.md".into()),
        "",
    )
    .await
    .expect_error(400);
    assert!(
        outside.contains("newUri") && outside.contains("outside"),
        "{outside}"
    );
    let not_file = from_edit(
        &s,
        rename("https://example.com/a.md".into(), uri(&s, "x.md")),
        "",
    )
    .await
    .expect_error(400);
    assert!(
        not_file.contains("oldUri") && not_file.contains("file://"),
        "{not_file}"
    );
    let host = from_edit(
        &s,
        rename(
            uri(&s, "notes/a.md").replacen("file://", "file://server", 1),
            uri(&s, "x.md"),
        ),
        "",
    )
    .await
    .expect_error(400);
    assert!(host.contains("host"), "{host}");
    let escape = from_edit(&s, rename(uri(&s, "notes/a.md"), uri(&s, "../a.md")), "")
        .await
        .expect_error(400);
    assert!(escape.contains(".."), "{escape}");

    let none = from_edit(
        &s,
        json!({"documentChanges": [
            {"textDocument": {"uri": uri(&s, "index.md"), "version": null}, "edits": []}
        ], "changes": {uri(&s, "index.md"): []}}),
        "",
    )
    .await
    .expect_error(400);
    assert!(none.contains("renames no files"), "{none}");
    let empty = from_edit(&s, json!({}), "").await.expect_error(400);
    assert!(empty.contains("renames no files"), "{empty}");

    let half = from_edit(
        &s,
        json!({"documentChanges": [{"kind": "rename", "oldUri": uri(&s, "notes/a.md")}]}),
        "",
    )
    .await
    .expect_error(400);
    assert!(half.contains("newUri"), "{half}");
    let malformed = s
        .call(
            Method::POST,
            "/api/quire/refactor/from-workspace-edit",
            &[("content-type", "application/json")],
            "{\"documentChanges\": [",
        )
        .await
        .expect_error(400);
    assert!(malformed.contains("JSON"), "{malformed}");
    from_edit(&s, json!({"documentChanges": {"kind": "rename"}}), "")
        .await
        .expect_error(400);

    assert_eq!(head(&s), before, "nothing is written");
    assert!(s.disk("notes/a.md").is_some());
    s.assert_clean();
}
