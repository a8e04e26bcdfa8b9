//! Manifests with `edits`, `rename_tags` and `split` over HTTP: planned with their content
//! changes and `now`, applied as one commit, refused with clear errors, nothing written on
//! bad input.

mod support;

use axum::http::Method;
use serde_json::{json, Value};
use support::{Reply, TestServer};

fn server() -> TestServer {
    TestServer::with(
        support::sync_git(),
        Default::default(),
        &[
            (
                "notes/a.md",
                "---\ntitle: Alpha   # keep\nstatus: draft\ntags: [project]\n---\n# Alpha\n\nSee [[b]] and `old code`. Old text.\n",
            ),
            ("notes/b.md", "# B\n\nBack to [[a]] about #project work.\n"),
            (
                "notes/long.md",
                "# Long\n\nIntro.\n\n## One\n\nFirst [[a]].\n\n## Two\n\nSecond.\n",
            ),
            ("index.md", "[[long#Two]] and [[a]]\n"),
        ],
    )
}

async fn plan(s: &TestServer, manifest: Value) -> Reply {
    s.post_json("/api/quire/refactor/plan", manifest).await
}

async fn apply(s: &TestServer, body: Value) -> Reply {
    s.call(
        Method::POST,
        "/api/quire/refactor/apply",
        &[("content-type", "application/json"), ("X-Actor", "ann")],
        body.to_string(),
    )
    .await
}

#[tokio::test]
async fn edits_plan_content_changes_and_report_now() {
    let s = server();
    let commits = s.commit_count();
    let r = plan(
        &s,
        json!({"edits": [{
            "select": {"glob": "notes/*.md", "query": "status = \"draft\""},
            "set": {"status": "done"},
            "compute": {"year": "year(now)"},
            "replace": [{"find": "Old", "with": "New"}]
        }]}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let p = r.json();
    assert_eq!(p["errors"], json!([]));
    assert_eq!(p["content_edits"].as_array().unwrap().len(), 1, "{p}");
    assert_eq!(p["content_edits"][0]["path"], "notes/a.md");
    let changes = p["content_edits"][0]["changes"].to_string();
    assert!(changes.contains("set status"), "{changes}");
    assert!(changes.contains("replace"), "{changes}");
    assert!(p["now"].as_str().is_some_and(|n| n.ends_with('Z')), "{p}");
    assert_eq!(s.commit_count(), commits, "planning writes nothing");
}

#[tokio::test]
async fn edits_apply_as_one_commit_keeping_frontmatter_bytes() {
    let s = server();
    let commits = s.commit_count();
    let manifest = json!({"now": "2025-02-03T04:05:06Z", "edits": [{
        "select": {"paths": ["notes/a.md"]},
        "set": {"status": "done"},
        "add_tags": ["reviewed"],
        "replace": [{"find": "Old", "with": "New"}],
        "move_to": "archive/{{slug}}"
    }]});
    let p = plan(&s, manifest.clone()).await.json();
    assert_eq!(p["now"], "2025-02-03T04:05:06Z");
    let r = apply(&s, json!({"manifest": manifest, "digest": p["digest"]})).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(s.commit_count(), commits + 1);
    assert!(s.disk("notes/a.md").is_none());
    assert_eq!(
        s.disk("archive/alpha.md").unwrap(),
        "---\ntitle: Alpha   # keep\nstatus: done\ntags: [project, reviewed]\n---\n# Alpha\n\nSee [[b]] and `old code`. New text.\n"
    );
    // The link to the moved page still reaches it.
    let b = s.disk("notes/b.md").unwrap();
    assert!(
        b.contains("[[alpha]]") || b.contains("[[archive/alpha]]"),
        "{b}"
    );
    s.assert_clean();
}

#[tokio::test]
async fn apply_with_now_pins_the_clock_of_the_plan() {
    let s = server();
    let manifest = json!({"edits": [{"select": {"paths": ["notes/b.md"]}, "compute": {"stamp": "date(now, \"%Y-%m-%d\")"}}]});
    let r = apply(
        &s,
        json!({"manifest": manifest, "now": "2030-01-02T00:00:00Z"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(s.disk("notes/b.md").unwrap().contains("stamp: 2030-01-02"));
}

#[tokio::test]
async fn rename_tags_changes_lists_and_inline_tags() {
    let s = server();
    let r = apply(
        &s,
        json!({"manifest": {"rename_tags": [{"from": "project", "to": "work"}]}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(s.disk("notes/a.md").unwrap().contains("tags: [work]"));
    assert!(s.disk("notes/b.md").unwrap().contains("about #work work"));
    s.assert_clean();
}

#[tokio::test]
async fn split_is_plan_only_until_confirmed_then_moves_sections() {
    let s = server();
    let commits = s.commit_count();
    let manifest = json!({"split": {"from": "notes/long.md"}});
    let p = plan(&s, manifest.clone()).await.json();
    assert_eq!(p["plan_only"].as_array().unwrap().len(), 1, "{p}");
    assert_eq!(
        p["splits"],
        json!([{"from": "notes/long.md", "pages": ["notes/long/One.md", "notes/long/Two.md"]}])
    );
    let r = apply(&s, json!({"manifest": manifest})).await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert_eq!(s.commit_count(), commits, "nothing written");
    let r = apply(
        &s,
        json!({"manifest": {"split": {"from": "notes/long.md", "confirm": true}}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(s.disk("notes/long/Two.md").unwrap(), "## Two\n\nSecond.\n");
    assert!(s.disk("index.md").unwrap().starts_with("[[Two#Two]]"));
    let long = s.disk("notes/long.md").unwrap();
    assert!(long.contains("- [[One]]\n- [[Two]]\n"), "{long}");
    s.assert_clean();
}

#[tokio::test]
async fn bad_expressions_and_edit_fields_are_400_and_write_nothing() {
    let s = server();
    let commits = s.commit_count();
    for manifest in [
        json!({"edits": [{"select": {"glob": "**"}, "when": "title = "}]}),
        json!({"edits": [{"select": {"glob": "**"}, "compute": {"x": "slug("}}]}),
        json!({"edits": [{"select": {"glob": "**"}, "move_to": "a/{{year"}]}),
        json!({"edits": [{"select": {}, "set": {"a": 1}}]}),
        json!({"edits": [{"select": {"glob": "**"}, "on_conflict": "number"}]}),
        json!({"edits": [{"select": {"glob": "**"}, "add_tags": ["two words"]}]}),
        json!({"split": {"from": "notes/long.md", "level": 9}}),
    ] {
        let r = plan(&s, manifest.clone()).await;
        let message = r.expect_error(400);
        assert!(!message.is_empty(), "{manifest}");
        let r = apply(&s, json!({"manifest": manifest})).await;
        r.expect_error(400);
    }
    assert_eq!(s.commit_count(), commits);
}

#[tokio::test]
async fn an_owned_key_is_refused_unless_forced() {
    let s = TestServer::with(
        support::sync_git(),
        Default::default(),
        &[(
            "p.md",
            "---\nowner: alice\nquire-fields:\n  owner: alice\n---\nBody\n",
        )],
    );
    let manifest = json!({"edits": [{"select": {"paths": ["p.md"]}, "set": {"owner": "bob"}}]});
    let r = apply(&s, json!({"manifest": manifest})).await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("owned by `alice`"), "{}", r.text());
    let forced =
        json!({"edits": [{"select": {"paths": ["p.md"]}, "set": {"owner": "bob"}, "force": true}]});
    let r = apply(&s, json!({"manifest": forced})).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(s.disk("p.md").unwrap().starts_with("---\nowner: bob\n"));
}
