//! Files and structure endpoints: success shapes and 4xx cases.

mod support;

use axum::body::Body;
use axum::http::Method;
use serde_json::json;
use support::{enc, TestServer};

#[tokio::test]
async fn put_creates_a_page_as_one_commit_by_the_actor() {
    let s = TestServer::new();
    let before = s.commit_count();
    let r = s.put("notes/hello.md", "# Hello\n", "alice").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["path"], "notes/hello.md");
    assert_eq!(v["created"], true);
    assert_eq!(v["etag"].as_str().unwrap().len(), 40);
    assert_eq!(
        r.header("etag"),
        format!("\"{}\"", v["etag"].as_str().unwrap())
    );
    let commit = v["commit"]
        .as_str()
        .expect("synchronous git write names its commit");
    assert_eq!(s.commit_count(), before + 1);
    assert_eq!(s.head_author(), "alice");
    assert_eq!(
        s.repo().head().unwrap().target().unwrap().to_string(),
        commit
    );
    assert_eq!(s.disk("notes/hello.md").unwrap(), "# Hello\n");
    s.assert_clean();
}

#[tokio::test]
async fn put_replacing_a_page_answers_200_and_writing_same_bytes_commits_nothing() {
    let s = TestServer::new();
    s.put("a.md", "one", "alice").await;
    let r = s.put("a.md", "two", "bob").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["created"], false);
    let count = s.commit_count();
    let r = s.put("a.md", "two", "bob").await;
    assert_eq!(r.status, 200);
    assert_eq!(s.commit_count(), count, "identical bytes make no commit");
}

#[tokio::test]
async fn get_file_returns_raw_markdown_with_etag() {
    let s = TestServer::new();
    let etag = s.put("a.md", "# A\n", "alice").await.json()["etag"].clone();
    let r = s.get("/api/quire/file?path=a.md").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.text(), "# A\n");
    assert!(r.header("content-type").starts_with("text/markdown"));
    assert_eq!(r.header("etag"), format!("\"{}\"", etag.as_str().unwrap()));
}

/// `GET /raw`: the bytes typed by extension, without ETag semantics, never cached, sandboxed.
#[tokio::test]
async fn raw_answers_the_bytes_without_etag_semantics() {
    let s = TestServer::new();
    s.put("a.md", "# A\n", "alice").await;
    let r = s.get("/api/quire/raw?path=a.md").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.text(), "# A\n");
    assert!(r.header("content-type").starts_with("text/markdown"));
    assert!(r.headers.get("etag").is_none());
    assert_eq!(r.header("cache-control"), "no-store");
    assert_eq!(r.header("content-security-policy"), "sandbox");
    // An If-None-Match is not a conditional request here.
    let again = s
        .call(
            Method::GET,
            "/api/quire/raw?path=a.md",
            &[("if-none-match", "*")],
            String::new(),
        )
        .await;
    assert_eq!(again.status, 200);
    assert_eq!(again.text(), "# A\n");
    s.get("/api/quire/raw?path=missing.md")
        .await
        .expect_error(404);
    s.get("/api/quire/raw?path=../etc/passwd")
        .await
        .expect_error(400);
    s.get("/api/quire/raw").await.expect_error(400);
}

#[tokio::test]
async fn get_file_errors() {
    let s = TestServer::new();
    let msg = s
        .get("/api/quire/file?path=missing.md")
        .await
        .expect_error(404);
    assert!(msg.contains("missing.md"), "{msg}");
    s.get("/api/quire/file?path=../etc/passwd")
        .await
        .expect_error(400);
    s.get("/api/quire/file?path=%2Fetc%2F..%2F..%2Fpasswd")
        .await
        .expect_error(400);
    s.get("/api/quire/file").await.expect_error(400);
}

#[tokio::test]
async fn if_match_mismatch_is_409_and_writes_nothing() {
    let s = TestServer::new();
    let first = s.put("a.md", "one", "alice").await.json()["etag"]
        .as_str()
        .unwrap()
        .to_string();
    s.put("a.md", "two", "bob").await;
    let count = s.commit_count();
    let r = s
        .call(
            Method::PUT,
            "/api/quire/file?path=a.md",
            &[("if-match", &format!("\"{first}\""))],
            "three",
        )
        .await;
    let msg = r.expect_error(409);
    assert!(msg.contains("modified since"), "{msg}");
    assert_eq!(s.disk("a.md").unwrap(), "two");
    assert_eq!(s.commit_count(), count);

    // The current ETag (quoted or bare) is accepted.
    let current = s.get("/api/quire/file?path=a.md").await.header("etag");
    let r = s
        .call(
            Method::PUT,
            "/api/quire/file?path=a.md",
            &[("if-match", &current)],
            "three",
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
}

#[tokio::test]
async fn put_refuses_bad_paths_and_writes_nothing() {
    let s = TestServer::new();
    let count = s.commit_count();
    for bad in [
        "../outside.md",
        "a/../../b.md",
        ".git/config",
        ".quire/state/index.db",
        "a//b.md",
        "a\\b.md",
        "",
    ] {
        let r = s
            .call(
                Method::PUT,
                &format!("/api/quire/file?path={}", enc(bad)),
                &[],
                "x",
            )
            .await;
        r.expect_error(400);
    }
    assert!(!s.dir.path().parent().unwrap().join("outside.md").exists());
    assert_eq!(s.commit_count(), count);
    s.assert_clean();
}

#[tokio::test]
async fn put_onto_a_folder_or_below_a_file_is_400() {
    let s = TestServer::new();
    s.put("dir/a.md", "a", "alice").await;
    s.put("file.md", "f", "alice").await;
    s.call(Method::PUT, "/api/quire/file?path=dir", &[], "x")
        .await
        .expect_error(400);
    s.call(Method::PUT, "/api/quire/file?path=file.md/b.md", &[], "x")
        .await
        .expect_error(400);
}

#[tokio::test]
async fn provenance_header_is_recorded_as_derived_from() {
    let s = TestServer::new();
    let r = s
        .call(
            Method::PUT,
            "/api/quire/file?path=p.md",
            &[("x-provenance", "https://example.org/source")],
            "---\ntitle: P\n---\nbody\n",
        )
        .await;
    assert_eq!(r.status, 200);
    let text = s.disk("p.md").unwrap();
    assert!(
        text.contains("derived-from: https://example.org/source"),
        "{text}"
    );
    assert!(text.starts_with("---\ntitle: P\n"), "{text}");
    assert!(text.ends_with("---\nbody\n"), "{text}");
}

#[tokio::test]
async fn delete_records_a_commit_and_missing_is_404() {
    let s = TestServer::new();
    s.put("d/a.md", "a", "alice").await;
    let count = s.commit_count();
    let r = s
        .call(
            Method::DELETE,
            "/api/quire/file?path=d/a.md",
            &[("x-actor", "bob")],
            Body::empty(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["deleted"], true);
    assert_eq!(s.commit_count(), count + 1);
    assert_eq!(s.head_author(), "bob");
    assert!(s.disk("d/a.md").is_none());
    s.call(
        Method::DELETE,
        "/api/quire/file?path=d/a.md",
        &[],
        Body::empty(),
    )
    .await
    .expect_error(404);
    s.call(
        Method::DELETE,
        "/api/quire/file?path=../x",
        &[],
        Body::empty(),
    )
    .await
    .expect_error(400);
    s.assert_clean();
}

#[tokio::test]
async fn bulk_writes_every_file_in_one_commit() {
    let s = TestServer::new();
    let count = s.commit_count();
    let r = s
        .post_json(
            "/api/quire/bulk",
            json!({"files": [{"path": "a.md", "content": "A"}, {"path": "x/b.md", "content": "B"}]}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["count"], 2);
    assert_eq!(v["files"][1]["path"], "x/b.md");
    assert!(v["commit"].is_string());
    assert_eq!(s.commit_count(), count + 1);
    assert_eq!(s.disk("x/b.md").unwrap(), "B");
}

#[tokio::test]
async fn bulk_with_one_bad_path_writes_nothing() {
    let s = TestServer::new();
    let count = s.commit_count();
    let r = s
        .post_json(
            "/api/quire/bulk",
            json!({"files": [{"path": "ok.md", "content": "A"}, {"path": "../bad.md", "content": "B"}]}),
        )
        .await;
    r.expect_error(400);
    assert!(s.disk("ok.md").is_none());
    assert_eq!(s.commit_count(), count);
}

#[tokio::test]
async fn bulk_rejects_malformed_bodies() {
    let s = TestServer::new();
    s.call(
        Method::POST,
        "/api/quire/bulk",
        &[("content-type", "application/json")],
        "{not json",
    )
    .await
    .expect_error(400);
    s.post_json("/api/quire/bulk", json!({"files": [{"path": "a.md"}]}))
        .await
        .expect_error(400);
    s.post_json("/api/quire/bulk", json!({"files": [], "extra": 1}))
        .await
        .expect_error(400);
    s.post_json("/api/quire/bulk", json!({"files": []}))
        .await
        .expect_error(400);
    s.post_json(
        "/api/quire/bulk",
        json!({"files": [{"path": "a.md", "content": "1"}, {"path": "a.md", "content": "2"}]}),
    )
    .await
    .expect_error(400);
}

fn multipart(field: &str, file_name: &str, media_type: &str, bytes: &[u8]) -> (String, Vec<u8>) {
    let boundary = "quireboundary";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{file_name}\"\r\nContent-Type: {media_type}\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

#[tokio::test]
async fn assets_are_stored_under_assets_and_committed() {
    let s = TestServer::new();
    let (ct, body) = multipart("file", "pic.png", "image/png", b"\x89PNG fake");
    let r = s
        .call(
            Method::POST,
            "/api/quire/assets",
            &[("content-type", &ct)],
            body.clone(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["path"], "assets/pic.png");
    // The same bytes again reuse the file; other bytes get a numbered name.
    let r = s
        .call(
            Method::POST,
            "/api/quire/assets",
            &[("content-type", &ct)],
            body,
        )
        .await;
    assert_eq!(r.json()["path"], "assets/pic.png");
    let (ct, body) = multipart("file", "pic.png", "image/png", b"\x89PNG other");
    let r = s
        .call(
            Method::POST,
            "/api/quire/assets",
            &[("content-type", &ct)],
            body,
        )
        .await;
    assert_eq!(r.json()["path"], "assets/pic-1.png");
    s.assert_clean();
}

#[tokio::test]
async fn assets_refuse_wrong_types_missing_fields_and_large_files() {
    let s = TestServer::with(
        support::sync_git(),
        quire_service::AssetRules {
            max_file_size: 8,
            allowed_types: vec!["image/*".into()],
        },
        &[],
    );
    let (ct, body) = multipart("file", "x.html", "text/html", b"<p>");
    s.call(
        Method::POST,
        "/api/quire/assets",
        &[("content-type", &ct)],
        body,
    )
    .await
    .expect_error(415);
    let (ct, body) = multipart("other", "x.png", "image/png", b"png");
    s.call(
        Method::POST,
        "/api/quire/assets",
        &[("content-type", &ct)],
        body,
    )
    .await
    .expect_error(400);
    let (ct, body) = multipart("file", "x.png", "image/png", b"0123456789");
    s.call(
        Method::POST,
        "/api/quire/assets",
        &[("content-type", &ct)],
        body,
    )
    .await
    .expect_error(413);
    assert!(s.disk("assets").is_none());
}

#[tokio::test]
async fn tree_lists_folders_and_files_without_dot_entries() {
    let s = TestServer::new();
    s.put("b.md", "b", "a").await;
    s.put("f/a.md", "aa", "a").await;
    let r = s.get("/api/quire/tree").await;
    assert_eq!(r.status, 200);
    let v = r.json();
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert!(!names.iter().any(|n| n.starts_with('.')), "{names:?}");
    let folder = v
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "f")
        .unwrap();
    assert_eq!(folder["isDir"], true);
    assert_eq!(folder["size"], 0);
    assert_eq!(folder["children"][0]["path"], "f/a.md");
    assert_eq!(folder["children"][0]["size"], 2);
    let r = s.get("/api/quire/tree?path=f").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()[0]["name"], "a.md");
    s.get("/api/quire/tree?path=nope").await.expect_error(404);
    s.get("/api/quire/tree?path=../x").await.expect_error(400);
}

#[tokio::test]
async fn toc_lists_headings_with_slugs() {
    let s = TestServer::new();
    s.put(
        "t.md",
        "# Top Title\n\ntext\n\n## Second part\n\n```\n# not a heading\n```\n",
        "a",
    )
    .await;
    let r = s.get("/api/quire/toc?path=t.md").await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json(),
        json!([{"level": 1, "text": "Top Title", "slug": "top-title"}, {"level": 2, "text": "Second part", "slug": "second-part"}])
    );
    s.get("/api/quire/toc?path=none.md").await.expect_error(404);
}

#[tokio::test]
async fn append_adds_text_with_separator_and_creates_missing_pages() {
    let s = TestServer::new();
    let r = s
        .call(
            Method::POST,
            "/api/quire/file/append?path=log.md",
            &[],
            "first",
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["path"], "log.md");
    s.call(
        Method::POST,
        "/api/quire/file/append?path=log.md",
        &[],
        "second",
    )
    .await;
    s.call(
        Method::POST,
        "/api/quire/file/append?path=log.md&separator=%0A-%20",
        &[],
        "third",
    )
    .await;
    assert_eq!(s.disk("log.md").unwrap(), "first\n\nsecond\n- third");
    let etag = s.get("/api/quire/file?path=log.md").await.header("etag");
    assert_eq!(r.status, 200);
    assert!(!etag.is_empty());
    s.call(
        Method::POST,
        "/api/quire/file/append?path=../x.md",
        &[],
        "x",
    )
    .await
    .expect_error(400);
    s.call(
        Method::POST,
        "/api/quire/file/append?path=log.md",
        &[("if-match", "\"0000\"")],
        "x",
    )
    .await
    .expect_error(409);
}

#[tokio::test]
async fn templates_list_read_and_fill() {
    let s = TestServer::with(
        support::sync_git(),
        Default::default(),
        &[
            (
                ".quire/templates/meeting.md",
                "# {{title}}\n\nDate: {{date}}\n",
            ),
            (".quire/templates/daily.md", "d"),
        ],
    );
    let r = s.get("/api/quire/templates").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json(), json!(["daily", "meeting"]));
    let r = s.get("/api/quire/templates?name=meeting").await;
    assert_eq!(r.json()["name"], "meeting");
    assert!(r.json()["content"].as_str().unwrap().contains("{{title}}"));
    let r = s
        .get("/api/quire/template?name=meeting&title=Standup")
        .await;
    assert_eq!(r.status, 200);
    assert!(
        r.text().starts_with("# Standup\n\nDate: 20"),
        "{}",
        r.text()
    );
    s.get("/api/quire/templates?name=nope")
        .await
        .expect_error(404);
    s.get("/api/quire/template").await.expect_error(400);
}

#[cfg(unix)]
#[tokio::test]
async fn readlink_reports_symlinks_and_refuses_escapes() {
    let s = TestServer::new();
    s.put("real.md", "r", "a").await;
    std::os::unix::fs::symlink("real.md", s.dir.path().join("link.md")).unwrap();
    std::os::unix::fs::symlink("/etc", s.dir.path().join("escape")).unwrap();
    let r = s.get("/api/quire/readlink?path=link.md").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.text(), "real.md");
    s.get("/api/quire/readlink?path=real.md")
        .await
        .expect_error(400);
    s.get("/api/quire/readlink?path=none.md")
        .await
        .expect_error(404);
    // Following a symlink out of the root is refused for reads and writes.
    s.get("/api/quire/file?path=escape/passwd")
        .await
        .expect_error(400);
    s.call(Method::PUT, "/api/quire/file?path=escape/x.md", &[], "x")
        .await
        .expect_error(400);
}

#[tokio::test]
async fn resolve_links_resolves_wiki_targets() {
    let s = TestServer::new();
    s.put("projects/My Note.md", "---\ntitle: The Note\n---\n", "a")
        .await;
    s.put("other.md", "# Other heading\n", "a").await;
    let r = s
        .post_json(
            "/api/quire/resolve-links",
            json!({"links": ["My Note", "[[other]]", "my-note", "nowhere"]}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(
        v["resolved"]["My Note"],
        json!({"path": "projects/My Note.md", "title": "The Note"})
    );
    assert_eq!(v["resolved"]["[[other]]"]["title"], "Other heading");
    assert_eq!(v["resolved"]["my-note"]["path"], "projects/My Note.md");
    assert_eq!(v["unresolved"], json!(["nowhere"]));
    s.post_json("/api/quire/resolve-links", json!({"link": []}))
        .await
        .expect_error(400);
}

#[tokio::test]
async fn resolve_links_from_a_page_follows_its_folder_and_markdown_rules() {
    let s = TestServer::new();
    s.put("a/note.md", "# In a\n", "x").await;
    s.put("b/note.md", "# In b\n", "x").await;
    s.put("b/page.md", "[[note]] [n](../a/note.md)\n", "x")
        .await;
    let r = s
        .post_json(
            "/api/quire/resolve-links",
            json!({"from": "b/page.md",
                   "links": ["[[note]]", "[n](../a/note.md)", "[m](note)", "[x](missing.md)", "[[#top]]"]}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    // A wiki link prefers the linking page's folder; a markdown link is relative to it.
    assert_eq!(v["resolved"]["[[note]]"]["path"], "b/note.md");
    assert_eq!(v["resolved"]["[n](../a/note.md)"]["path"], "a/note.md");
    assert_eq!(v["resolved"]["[m](note)"]["path"], "b/note.md");
    assert_eq!(v["unresolved"], json!(["[x](missing.md)", "[[#top]]"]));
    // Without `from`, a wiki link resolves as at the root (tie: fewest segments, byte order).
    let v = s
        .post_json("/api/quire/resolve-links", json!({"links": ["[[note]]"]}))
        .await
        .json();
    assert_eq!(v["resolved"]["[[note]]"]["path"], "a/note.md");
    // A `from` outside the root is refused.
    for from in ["../x.md", "/../../etc/passwd", "a/../../x.md"] {
        s.post_json(
            "/api/quire/resolve-links",
            json!({"from": from, "links": ["note"]}),
        )
        .await
        .expect_error(400);
    }
}

#[tokio::test]
async fn spaces_by_header_and_url_and_unknown_space_is_404() {
    let s = TestServer::new();
    s.put("a.md", "a", "x").await;
    let r = s.get("/api/quire/default/file?path=a.md").await;
    assert_eq!(r.status, 200);
    let r = s
        .call(
            Method::GET,
            "/api/quire/file?path=a.md",
            &[("x-quire-space", "default")],
            Body::empty(),
        )
        .await;
    assert_eq!(r.status, 200);
    s.call(
        Method::GET,
        "/api/quire/file?path=a.md",
        &[("x-quire-space", "nope")],
        Body::empty(),
    )
    .await
    .expect_error(404);
    s.get("/api/quire/nope/file?path=a.md")
        .await
        .expect_error(404);
}

#[tokio::test]
async fn unknown_routes_answer_json_404() {
    let s = TestServer::new();
    s.get("/api/quire/does/not/exist").await.expect_error(404);
}

#[tokio::test]
async fn a_body_past_the_limit_is_a_json_413_on_every_raw_body_route() {
    let s = TestServer::new();
    let big = vec![b'a'; quire_http::MAX_BODY_BYTES + 1];
    for (method, uri) in [
        (Method::PUT, "/api/quire/file?path=big.md".to_string()),
        (
            Method::POST,
            "/api/quire/file/append?path=big.md".to_string(),
        ),
        (
            Method::PUT,
            "/api/quire/canvas?path=big.canvas.json".to_string(),
        ),
        (Method::POST, "/api/quire/refactor/plan".to_string()),
    ] {
        let r = s
            .call(method.clone(), &uri, &[("x-actor", "ann")], big.clone())
            .await;
        let message = r.expect_error(413);
        assert!(message.contains("body"), "{method} {uri}: {message}");
    }
    assert!(s.disk("big.md").is_none());
    assert!(s.disk("big.canvas.json").is_none());
}
