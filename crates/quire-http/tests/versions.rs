//! Versions endpoints: history, content at a version, diff, blame, changes.

mod support;

use serde_json::json;
use support::{options, TestServer};

async fn two_versions(s: &TestServer) -> (String, String) {
    let v1 = s.put("n.md", "line one\nline two\n", "alice").await.json()["commit"]
        .as_str()
        .unwrap()
        .to_string();
    let v2 = s.put("n.md", "line one\nline 2\n", "bob").await.json()["commit"]
        .as_str()
        .unwrap()
        .to_string();
    (v1, v2)
}

#[tokio::test]
async fn versions_lists_commits_newest_first() {
    let s = TestServer::new();
    let (v1, v2) = two_versions(&s).await;
    s.put("other.md", "x", "carol").await;
    let r = s.get("/api/quire/versions?path=n.md").await;
    assert_eq!(r.status, 200);
    let list = r.json();
    let list = list.as_array().unwrap();
    assert_eq!(
        list.len(),
        2,
        "only commits that touched the file: {list:?}"
    );
    assert_eq!(list[0]["hash"], v2);
    assert_eq!(list[0]["author"], "bob");
    assert_eq!(list[1]["hash"], v1);
    assert_eq!(list[1]["author"], "alice");
    assert!(list[0]["message"].as_str().unwrap().contains("n.md"));
    assert!(chrono_like(list[0]["timestamp"].as_str().unwrap()));
    s.get("/api/quire/versions").await.expect_error(400);
    s.get("/api/quire/versions?path=../x")
        .await
        .expect_error(400);
}

fn chrono_like(ts: &str) -> bool {
    ts.len() >= 20 && ts.as_bytes()[4] == b'-' && ts.contains('T')
}

#[tokio::test]
async fn version_returns_content_at_full_and_abbreviated_ids() {
    let s = TestServer::new();
    let (v1, v2) = two_versions(&s).await;
    let r = s
        .get(&format!("/api/quire/version?path=n.md&version={v1}"))
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.text(), "line one\nline two\n");
    let r = s
        .get(&format!(
            "/api/quire/version?path=n.md&version={}",
            &v2[..8]
        ))
        .await;
    assert_eq!(r.text(), "line one\nline 2\n");
    s.get("/api/quire/version?path=n.md&version=ffffffffffff")
        .await
        .expect_error(404);
    s.get("/api/quire/version?path=n.md&version=not-hex!")
        .await
        .expect_error(400);
    s.get("/api/quire/version?path=n.md")
        .await
        .expect_error(400);
}

#[tokio::test]
async fn diff_is_a_unified_diff_between_versions() {
    let s = TestServer::new();
    let (v1, v2) = two_versions(&s).await;
    let r = s
        .get(&format!("/api/quire/diff?path=n.md&from={v1}&to={v2}"))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let text = r.text();
    assert!(text.contains("-line two"), "{text}");
    assert!(text.contains("+line 2"), "{text}");
    assert!(text.contains("a/n.md") && text.contains("b/n.md"), "{text}");
    s.get(&format!("/api/quire/diff?path=n.md&from={v1}"))
        .await
        .expect_error(400);
}

#[tokio::test]
async fn blame_names_the_author_of_each_line() {
    let s = TestServer::new();
    let (v1, v2) = two_versions(&s).await;
    let r = s.get("/api/quire/blame?path=n.md").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let lines = r.json();
    assert_eq!(lines[0]["line"], 1);
    assert_eq!(lines[0]["content"], "line one");
    assert_eq!(lines[0]["author"], "alice");
    assert_eq!(lines[0]["hash"], v1);
    assert_eq!(lines[1]["author"], "bob");
    assert_eq!(lines[1]["hash"], v2);
    s.get("/api/quire/blame?path=none.md")
        .await
        .expect_error(404);
}

#[tokio::test]
async fn changes_page_forward_with_last_seq() {
    let s = TestServer::new();
    s.put("a.md", "a", "alice").await;
    let r = s.get("/api/quire/changes?limit=1").await;
    assert_eq!(r.status, 200);
    let first = r.json();
    assert_eq!(first["changes"].as_array().unwrap().len(), 1);
    assert_eq!(first["changes"][0]["path"], "a.md");
    assert_eq!(first["changes"][0]["action"], "write");
    assert_eq!(first["changes"][0]["actor"], "alice");
    let since = first["last_seq"].as_str().unwrap().to_string();

    s.put("b.md", "b", "bob").await;
    s.call(
        axum::http::Method::DELETE,
        "/api/quire/file?path=a.md",
        &[("x-actor", "bob")],
        axum::body::Body::empty(),
    )
    .await;
    let r = s.get(&format!("/api/quire/changes?since={since}")).await;
    let next = r.json();
    let changes: Vec<(String, String)> = next["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["path"].as_str().unwrap().into(),
                c["action"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        changes,
        vec![
            ("b.md".into(), "write".into()),
            ("a.md".into(), "delete".into())
        ]
    );
    let last = next["last_seq"].as_str().unwrap().to_string();
    let r = s.get(&format!("/api/quire/changes?since={last}")).await;
    assert_eq!(r.json()["changes"], json!([]));
    s.get("/api/quire/changes?since=zz!")
        .await
        .expect_error(400);
    s.get("/api/quire/changes?limit=abc")
        .await
        .expect_error(400);
}

#[tokio::test]
async fn history_endpoints_answer_501_without_versioning() {
    let s = TestServer::with(
        options(quire_service::Strategy::None, false),
        Default::default(),
        &[],
    );
    let r = s.put("a.md", "a", "alice").await;
    assert_eq!(r.status, 200);
    assert!(r.json().get("commit").is_none());
    assert!(
        !s.dir.path().join(".git").exists(),
        "versioning none creates no repository"
    );
    s.get("/api/quire/versions?path=a.md")
        .await
        .expect_error(501);
    s.get("/api/quire/blame?path=a.md").await.expect_error(501);
    s.get("/api/quire/changes").await.expect_error(501);
}

#[tokio::test]
async fn cow_versioning_keeps_snapshots() {
    let s = TestServer::with(
        options(quire_service::Strategy::Cow, false),
        Default::default(),
        &[],
    );
    s.put("a.md", "one\n", "alice").await;
    s.put("a.md", "two\n", "bob").await;
    let r = s.get("/api/quire/versions?path=a.md").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let list = r.json();
    assert_eq!(list.as_array().unwrap().len(), 2);
    assert_eq!(list[0]["author"], "bob");
    let old = list[1]["hash"].as_str().unwrap();
    let r = s
        .get(&format!("/api/quire/version?path=a.md&version={old}"))
        .await;
    assert_eq!(r.text(), "one\n");
    s.get("/api/quire/blame?path=a.md").await.expect_error(501);
}

#[tokio::test]
async fn async_batching_keeps_each_actors_version_of_a_page() {
    let s = TestServer::with(
        options(quire_service::Strategy::Git, true),
        Default::default(),
        &[],
    );
    s.put("n.md", "first\n", "alice").await;
    s.put("n.md", "second\n", "bob").await; // within the batch window
    s.put("n.md", "third\n", "bob").await; // same actor: folded into bob's commit
    let r = s.get("/api/quire/versions?path=n.md").await;
    let authors: Vec<String> = r
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["author"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(authors, vec!["bob", "alice"]);
    let alice = r.json()[1]["hash"].as_str().unwrap().to_string();
    let r = s
        .get(&format!("/api/quire/version?path=n.md&version={alice}"))
        .await;
    assert_eq!(r.text(), "first\n");
    s.assert_clean();
}
