//! Link health and repair over HTTP: broken links with their best match, orphans,
//! fix-broken (dry run and one commit per page), raw moves with their relinks manifest.

mod support;

use axum::http::Method;
use serde_json::json;
use support::TestServer;

fn server() -> TestServer {
    TestServer::with(
        support::sync_git(),
        Default::default(),
        &[
            ("06-notes/alpha.md", "# Alpha\n\nSee [[notes/beta]].\n"),
            (
                "06-notes/beta.md",
                "# Beta\n\nBack to [[alpha]] and [[nowhere at all]].\n",
            ),
            ("index.md", "[[notes/alpha]] and [[gamma]] and [[Beta]]\n"),
            ("lonely.md", "# Lonely\n"),
            // A file-name match, and an ambiguous one (two files of that name).
            ("archive/2019/delta.md", "# Delta\n"),
            ("a/dup.md", "# Dup A\n"),
            ("b/dup.md", "# Dup B\n"),
            (
                "links.md",
                "# Links\n\nOld [[projects/delta]].\nTwice [[old/dup]].\n",
            ),
        ],
    )
}

#[tokio::test]
async fn broken_links_name_their_best_match() {
    let s = server();
    let r = s.get("/api/quire/links/broken").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    assert_eq!(body["count"], 6, "{body}");
    let broken = body["broken"].as_array().unwrap();
    let find = |target: &str| {
        broken
            .iter()
            .find(|b| b["target"] == target)
            .unwrap_or_else(|| panic!("{target} not listed: {body}"))
            .clone()
    };
    assert_eq!(find("notes/beta")["match"], "06-notes/beta.md");
    assert_eq!(find("notes/alpha")["match"], "06-notes/alpha.md");
    assert!(find("nowhere at all").get("match").is_none());
    assert!(find("gamma").get("match").is_none());
    // Each link says where it is.
    assert_eq!(find("notes/beta")["source"], "06-notes/alpha.md");
    assert_eq!(find("notes/beta")["line"], 3);
    // Match order: a path suffix ignoring `06-`, then the file name.
    assert_eq!(find("projects/delta")["match"], "archive/2019/delta.md");
    assert_eq!(find("projects/delta")["line"], 3);
    let dup = find("old/dup");
    assert!(dup.get("match").is_none(), "{dup}");
    assert_eq!(dup["candidates"], json!(["a/dup.md", "b/dup.md"]));
}

#[tokio::test]
async fn orphans_are_pages_nothing_links_to() {
    let s = server();
    let r = s.get("/api/quire/links/orphans").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    let paths: Vec<&str> = body["orphans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&"lonely.md"), "{body}");
    assert!(paths.contains(&"index.md"), "{body}");
    assert!(!paths.contains(&"06-notes/alpha.md"), "{body}");
    assert_eq!(body["count"], paths.len());
}

#[tokio::test]
async fn fix_broken_dry_run_writes_nothing_then_fixes_each_page_in_its_own_commit() {
    let s = server();
    let commits = s.commit_count();
    let r = s
        .call(
            Method::POST,
            "/api/quire/refactor/fix-broken?dry_run=true",
            &[],
            String::new(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    assert_eq!(body["dry_run"], true);
    assert_eq!(body["count"], 3, "{body}");
    assert_eq!(body["ambiguous"][0]["target"], "old/dup", "{body}");
    assert_eq!(s.commit_count(), commits);

    let r = s
        .call(
            Method::POST,
            "/api/quire/refactor/fix-broken",
            &[("content-type", "application/json"), ("X-Actor", "fixer")],
            json!({"dry_run": false}).to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    assert_eq!(body["dry_run"], false);
    assert_eq!(
        body["fixes"],
        json!([
            {"source": "06-notes/alpha.md", "old_target": "notes/beta", "new_target": "06-notes/beta"},
            {"source": "index.md", "old_target": "notes/alpha", "new_target": "06-notes/alpha"},
            {"source": "links.md", "old_target": "projects/delta", "new_target": "archive/2019/delta"}
        ])
    );
    assert_eq!(
        body["ambiguous"],
        json!([{"source": "links.md", "line": 4, "target": "old/dup",
                "candidates": ["a/dup.md", "b/dup.md"]}])
    );
    assert_eq!(s.commit_count(), commits + 3, "one commit per fixed page");
    assert_eq!(
        s.disk("links.md").unwrap(),
        "# Links\n\nOld [[archive/2019/delta]].\nTwice [[old/dup]].\n",
        "the ambiguous link is left alone"
    );
    assert_eq!(s.head_author(), "fixer");
    assert_eq!(
        s.disk("index.md").unwrap(),
        "[[06-notes/alpha]] and [[gamma]] and [[Beta]]\n"
    );
    s.assert_clean();
}

#[tokio::test]
async fn fix_broken_refuses_a_bad_body() {
    let s = server();
    let commits = s.commit_count();
    let r = s
        .call(
            Method::POST,
            "/api/quire/refactor/fix-broken",
            &[("content-type", "application/json")],
            "{\"dry_run\": \"yes please\"}".to_string(),
        )
        .await;
    r.expect_error(400);
    assert_eq!(s.commit_count(), commits);
}

#[tokio::test]
async fn raw_moves_list_referenced_old_paths_and_a_relinks_manifest() {
    let s = server();
    let r = s.get("/api/quire/refactor/raw-moves").await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json(), json!({"moves": []}));
    let r = s
        .post_json(
            "/api/quire/rename",
            json!({"from": "lonely.md", "to": "attic/lonely.md", "relink": false}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    // Nothing links to lonely.md: the raw move needs no repair.
    assert_eq!(
        s.get("/api/quire/refactor/raw-moves").await.json(),
        json!({"moves": []})
    );
    let r = s
        .post_json(
            "/api/quire/rename",
            json!({"from": "06-notes/beta.md", "to": "archive/b2.md", "relink": false}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = s.get("/api/quire/refactor/raw-moves").await.json();
    assert_eq!(body["moves"].as_array().unwrap().len(), 1, "{body}");
    assert_eq!(body["moves"][0]["via"], "links-kept");
    assert_eq!(
        body["manifest"],
        json!({"relinks": [{"from": "06-notes/beta.md", "to": "archive/b2.md"}]})
    );
    // The manifest plans and applies like any other, and then nothing is left to repair.
    let r = s
        .post_json(
            "/api/quire/refactor/apply",
            json!({"manifest": body["manifest"]}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(
        s.disk("index.md").unwrap().contains("[[b2]]")
            || s.disk("index.md").unwrap().contains("[[archive/b2]]")
    );
    assert_eq!(
        s.get("/api/quire/refactor/raw-moves").await.json(),
        json!({"moves": []})
    );
}
