//! Comments, share links, publishing, rules and theme over HTTP: success shapes, every status
//! the spec names, bad input writing nothing, and the security promises (no secret stored or
//! logged in clear, one answer for every refused link, nothing private on `/p/` or
//! `/public/…`, no `<script` in rendered HTML).

mod support;

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};

use axum::body::Body;
use axum::http::Method;
use quire_service::AssetRules;
use serde_json::{json, Value};
use support::{enc, sync_git, Reply, TestServer};

fn server(files: &[(&str, &str)]) -> TestServer {
    TestServer::with(sync_git(), AssetRules::default(), files)
}

async fn send(s: &TestServer, method: Method, uri: &str, body: &str) -> Reply {
    s.call(
        method,
        uri,
        &[("content-type", "application/json"), ("x-actor", "ann")],
        body.to_string(),
    )
    .await
}

/// Every log line the test binary's code writes (the handlers run on other threads).
fn captured_logs() -> Arc<Mutex<Vec<u8>>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let logs = Arc::new(Mutex::new(Vec::new()));
        let sink = logs.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(move || Sink(sink.clone()))
            .finish();
        let _ = tracing::subscriber::set_global_default(subscriber);
        logs
    })
    .clone()
}

struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

// --- comments -------------------------------------------------------------------------------

#[tokio::test]
async fn a_comment_is_made_listed_resolved_and_deleted_each_as_one_commit() {
    let s = server(&[("notes/a.md", "# A\n\nfirst line\nsecond line\n")]);
    let commits = s.commit_count();
    let made = send(
        &s,
        Method::POST,
        "/api/quire/comments?path=notes/a.md",
        r#"{"line": 4, "body": "Is this right?"}"#,
    )
    .await;
    assert_eq!(made.status, 201, "{}", made.text());
    let c = made.json();
    let id = c["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("c_"));
    assert_eq!(c["path"], "notes/a.md");
    assert_eq!(c["line"], 4);
    assert_eq!(c["author"], "ann");
    assert_eq!(c["body"], "Is this right?");
    assert_eq!(c["resolved"], false);
    assert!(c["created"].as_str().unwrap().ends_with('Z'));
    assert_eq!(s.commit_count(), commits + 1);
    assert_eq!(s.head_author(), "ann");
    let stored: Value =
        serde_json::from_str(&s.disk(".quire/comments/notes/a.md.json").unwrap()).unwrap();
    assert_eq!(stored[0]["id"], id.as_str());

    let listed = s.get("/api/quire/comments?path=notes/a.md").await;
    assert_eq!(listed.status, 200);
    assert_eq!(listed.json().as_array().unwrap().len(), 1);

    let patched = send(
        &s,
        Method::PATCH,
        &format!("/api/quire/comments/{id}"),
        r#"{"resolved": true}"#,
    )
    .await;
    assert_eq!(patched.status, 200, "{}", patched.text());
    assert_eq!(patched.json()["resolved"], true);
    assert_eq!(s.commit_count(), commits + 2);

    let deleted = send(&s, Method::DELETE, &format!("/api/quire/comments/{id}"), "").await;
    assert_eq!(deleted.status, 200);
    assert_eq!(deleted.json(), json!({"deleted": id, "path": "notes/a.md"}));
    assert!(s.disk(".quire/comments/notes/a.md.json").is_none());
    assert_eq!(s.commit_count(), commits + 3);
    let listed = s.get("/api/quire/comments?path=notes/a.md").await;
    assert_eq!(listed.json(), json!([]));
    s.assert_clean();
}

#[tokio::test]
async fn a_comment_keeps_pointing_at_its_text_when_lines_are_inserted_above() {
    let s = server(&[("a.md", "one\ntwo\nthe claim\nfour\n")]);
    let made = send(
        &s,
        Method::POST,
        "/api/quire/comments?path=a.md",
        r#"{"line": 3, "body": "source?"}"#,
    )
    .await;
    assert_eq!(made.json()["anchor"], "the claim");
    s.put(
        "a.md",
        "new\nlines\nhere\none\ntwo\nthe claim\nfour\n",
        "bob",
    )
    .await;
    let listed = s.get("/api/quire/comments?path=a.md").await.json();
    assert_eq!(listed[0]["line"], 6);
    assert!(listed[0].get("detached").is_none());
    // The text goes: the comment says so and keeps the line stored at its last write.
    s.put(
        "a.md",
        "new\nlines\nhere\none\ntwo\nrewritten\nfour\n",
        "bob",
    )
    .await;
    let listed = s.get("/api/quire/comments?path=a.md").await.json();
    assert_eq!(listed[0]["line"], 3);
    assert_eq!(listed[0]["detached"], true);
}

#[tokio::test]
async fn a_renamed_page_keeps_its_comments() {
    let s = server(&[("a.md", "# A\ntext\n"), ("b.md", "see [[a]]\n")]);
    let made = send(
        &s,
        Method::POST,
        "/api/quire/comments?path=a.md",
        r#"{"line": 2, "body": "note"}"#,
    )
    .await;
    let id = made.json()["id"].as_str().unwrap().to_string();
    let renamed = send(
        &s,
        Method::POST,
        "/api/quire/rename",
        r#"{"from": "a.md", "to": "archive/a.md"}"#,
    )
    .await;
    assert_eq!(renamed.status, 200, "{}", renamed.text());
    let listed = s.get("/api/quire/comments?path=archive/a.md").await.json();
    assert_eq!(listed[0]["id"], id.as_str());
    assert_eq!(listed[0]["path"], "archive/a.md");
    assert_eq!(listed[0]["line"], 2);
    assert!(s.disk(".quire/comments/a.md.json").is_none());
    // And it can still be found by id.
    let patched = send(
        &s,
        Method::PATCH,
        &format!("/api/quire/comments/{id}"),
        r#"{"resolved": true}"#,
    )
    .await;
    assert_eq!(patched.status, 200, "{}", patched.text());
    assert_eq!(patched.json()["path"], "archive/a.md");
}

#[tokio::test]
async fn bad_comment_requests_are_refused_and_write_nothing() {
    let s = server(&[("a.md", "one line\n")]);
    let commits = s.commit_count();
    let post = |uri: &'static str, body: &'static str| {
        let s = &s;
        async move { send(s, Method::POST, uri, body).await }
    };
    post(
        "/api/quire/comments?path=missing.md",
        r#"{"line":1,"body":"x"}"#,
    )
    .await
    .expect_error(404);
    post(
        "/api/quire/comments?path=../x.md",
        r#"{"line":1,"body":"x"}"#,
    )
    .await
    .expect_error(400);
    post(
        "/api/quire/comments?path=%2e%2e/x.md",
        r#"{"line":1,"body":"x"}"#,
    )
    .await
    .expect_error(400);
    post(
        "/api/quire/comments?path=.quire/config.toml",
        r#"{"line":1,"body":"x"}"#,
    )
    .await
    .expect_error(400);
    post("/api/quire/comments", r#"{"line":1,"body":"x"}"#)
        .await
        .expect_error(400);
    post("/api/quire/comments?path=a.md", r#"{"line":1,"body":"#)
        .await
        .expect_error(400);
    post("/api/quire/comments?path=a.md", r#"{"line":1}"#)
        .await
        .expect_error(400);
    post("/api/quire/comments?path=a.md", r#"{"line":1,"body":"  "}"#)
        .await
        .expect_error(400);
    post("/api/quire/comments?path=a.md", r#"{"line":9,"body":"x"}"#)
        .await
        .expect_error(400);
    post(
        "/api/quire/comments?path=a.md",
        r#"{"line":1,"body":"x","extra":1}"#,
    )
    .await
    .expect_error(400);
    let big = json!({"line": 1, "body": "x".repeat(70 * 1024)}).to_string();
    send(&s, Method::POST, "/api/quire/comments?path=a.md", &big)
        .await
        .expect_error(413);
    send(
        &s,
        Method::GET,
        "/api/quire/comments?path=../etc/passwd",
        "",
    )
    .await
    .expect_error(400);
    send(
        &s,
        Method::PATCH,
        "/api/quire/comments/c_nope",
        r#"{"resolved":true}"#,
    )
    .await
    .expect_error(404);
    send(
        &s,
        Method::PATCH,
        "/api/quire/comments/c_nope",
        r#"{"resolved":"#,
    )
    .await
    .expect_error(400);
    send(&s, Method::DELETE, "/api/quire/comments/c_nope", "")
        .await
        .expect_error(404);
    assert_eq!(s.commit_count(), commits);
    assert!(s.disk(".quire/comments/a.md.json").is_none());
}

// --- share links ----------------------------------------------------------------------------

async fn share(s: &TestServer, body: Value) -> Reply {
    send(s, Method::POST, "/api/quire/share", &body.to_string()).await
}

#[tokio::test]
async fn a_share_link_shows_its_page_counts_views_and_is_gone_once_revoked() {
    let s = server(&[(
        "notes/a.md",
        "# Shared\n\nhello <script>alert(1)</script>\n",
    )]);
    let made = share(&s, json!({"path": "notes/a.md", "expiresIn": "72h"})).await;
    assert_eq!(made.status, 201, "{}", made.text());
    let link = made.json();
    let token = link["token"].as_str().unwrap().to_string();
    let id = link["id"].as_str().unwrap().to_string();
    assert_eq!(token.len(), 64);
    assert_eq!(link["path"], "notes/a.md");
    assert_eq!(link["createdBy"], "ann");
    assert_eq!(link["viewCount"], 0);
    assert_eq!(link["hasPassword"], false);
    assert!(link["expiresAt"].as_str().is_some());
    assert!(link["createdAt"].as_str().is_some());

    let viewed = s.get(&format!("/api/quire/public/{token}")).await;
    assert_eq!(viewed.status, 200);
    assert!(viewed.text().starts_with("# Shared"));
    assert!(viewed.header("content-type").starts_with("text/markdown"));
    let html = s
        .call(
            Method::GET,
            &format!("/api/quire/public/{token}"),
            &[("accept", "text/html")],
            Body::empty(),
        )
        .await;
    assert_eq!(html.status, 200);
    assert!(html.header("content-type").starts_with("text/html"));
    assert!(!html.text().contains("<script"), "{}", html.text());

    let listed = s.get("/api/quire/share?path=notes/a.md").await.json();
    // Every list route of the spec answers a JSON array.
    let shares = listed.as_array().expect("GET /share answers an array");
    assert_eq!(shares.len(), 1);
    assert_eq!(shares[0]["viewCount"], 2);
    assert!(shares[0].get("token").is_none());

    let revoked = send(&s, Method::DELETE, &format!("/api/quire/share/{id}"), "").await;
    assert_eq!(revoked.json(), json!({"revoked": id}));
    let gone = s.get(&format!("/api/quire/public/{token}")).await;
    let unknown = s
        .get(&format!("/api/quire/public/{}", "0".repeat(64)))
        .await;
    assert_eq!(gone.status, 404);
    assert_eq!(gone.body, unknown.body, "revoked and unknown look alike");
    send(&s, Method::DELETE, &format!("/api/quire/share/{id}"), "")
        .await
        .expect_error(404);
    s.assert_clean();
}

#[tokio::test]
async fn a_password_is_needed_never_stored_nor_logged_in_clear() {
    let logs = captured_logs();
    let s = server(&[("a.md", "secret plans\n")]);
    let password = "correct horse battery staple";
    let made = share(&s, json!({"path": "a.md", "password": password})).await;
    assert_eq!(made.status, 201, "{}", made.text());
    let token = made.json()["token"].as_str().unwrap().to_string();
    assert_eq!(made.json()["hasPassword"], true);

    let uri = format!("/api/quire/public/{token}");
    let missing = s.get(&uri).await;
    let wrong = s.get(&format!("{uri}?password=nope")).await;
    let wrong_header = s
        .call(
            Method::GET,
            &uri,
            &[("x-share-password", "nope")],
            Body::empty(),
        )
        .await;
    for refused in [&missing, &wrong, &wrong_header] {
        assert_eq!(refused.status, 401);
        assert!(refused
            .header("www-authenticate")
            .starts_with("Basic realm="));
        assert_eq!(refused.body, missing.body, "one answer whatever the reason");
        assert!(!refused.text().contains("secret plans"));
    }
    let by_query = s.get(&format!("{uri}?password={}", enc(password))).await;
    assert_eq!(by_query.status, 200);
    assert_eq!(by_query.text(), "secret plans\n");
    let by_header = s
        .call(
            Method::GET,
            &uri,
            &[("x-share-password", password)],
            Body::empty(),
        )
        .await;
    assert_eq!(by_header.status, 200);
    // A browser's Basic prompt: "user:password" in base64.
    let basic = s
        .call(
            Method::GET,
            &uri,
            &[(
                "authorization",
                "Basic eDpjb3JyZWN0IGhvcnNlIGJhdHRlcnkgc3RhcGxl",
            )],
            Body::empty(),
        )
        .await;
    assert_eq!(basic.status, 200, "{}", basic.text());

    let path = s.dir.path().join(".quire/state/shares.json");
    let state = std::fs::read_to_string(&path).unwrap();
    assert!(!state.contains(password), "{state}");
    assert!(!state.contains(&token), "{state}");
    assert!(state.contains("$argon2id$"), "{state}");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let logged = String::from_utf8_lossy(&logs.lock().unwrap()).into_owned();
    assert!(!logged.contains(password));
    assert!(!logged.contains(&token));
    // State under .quire/state is never committed.
    s.assert_clean();
}

#[tokio::test]
async fn an_expired_link_is_gone_like_an_unknown_one() {
    let s = server(&[("a.md", "text\n")]);
    let made = share(&s, json!({"path": "a.md", "expiresIn": "1ms"})).await;
    let token = made.json()["token"].as_str().unwrap().to_string();
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let expired = s.get(&format!("/api/quire/public/{token}")).await;
    let unknown = s.get("/api/quire/public/nope").await;
    assert_eq!(expired.status, 404);
    assert_eq!(expired.body, unknown.body);
    let listed = s.get("/api/quire/share?path=a.md").await.json();
    assert_eq!(listed, json!([]));
}

#[tokio::test]
async fn a_share_link_follows_its_page_when_it_is_renamed() {
    let s = server(&[("a.md", "text\n")]);
    let token = share(&s, json!({"path": "a.md"})).await.json()["token"]
        .as_str()
        .unwrap()
        .to_string();
    let renamed = send(
        &s,
        Method::POST,
        "/api/quire/rename",
        r#"{"from": "a.md", "to": "moved/b.md"}"#,
    )
    .await;
    assert_eq!(renamed.status, 200);
    let viewed = s.get(&format!("/api/quire/public/{token}")).await;
    assert_eq!(viewed.status, 200);
    assert_eq!(viewed.text(), "text\n");
    let listed = s.get("/api/quire/share?path=moved/b.md").await.json();
    assert_eq!(listed.as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn bad_share_requests_are_refused_and_store_nothing() {
    let s = server(&[("a.md", "text\n"), ("img.png", "png")]);
    for (body, status) in [
        (json!({"path": "missing.md"}), 404),
        (json!({"path": "../a.md"}), 400),
        (json!({"path": "img.png"}), 400),
        (json!({"path": ".quire/rules.md"}), 400),
        (json!({"path": "a.md", "expiresIn": "soon"}), 400),
        (json!({"path": "a.md", "expiresIn": "-1h"}), 400),
        (json!({"path": "a.md", "expiresIn": "0"}), 400),
        (json!({"path": "a.md", "password": ""}), 400),
        (json!({"path": "a.md", "unknown": 1}), 400),
        (json!({"expiresIn": "1h"}), 400),
    ] {
        share(&s, body.clone()).await.expect_error(status);
    }
    send(&s, Method::POST, "/api/quire/share", "{\"path\":")
        .await
        .expect_error(400);
    s.get("/api/quire/share").await.expect_error(400);
    s.get("/api/quire/share?path=../x").await.expect_error(400);
    assert!(s.disk(".quire/state/shares.json").is_none());
}

// --- publishing -----------------------------------------------------------------------------

fn site() -> TestServer {
    server(&[
        (
            "pub.md",
            "---\ntitle: Public page\n---\n# Hello\n\nSee [[other]], [[secret]] and [md](secret.md).\n\n\
             <script>alert(1)</script>\n\n![[pic.png]]\n\n```rust\nfn main() {}\n```\n",
        ),
        ("other.md", "# Other\n"),
        ("secret.md", "# Secret\n\nprivate words\n"),
        ("pic.png", "PNG"),
        ("hidden.png", "PNG"),
    ])
}

#[tokio::test]
async fn a_published_page_is_rendered_with_caching_and_only_published_links() {
    let s = site();
    let commits = s.commit_count();
    let published = send(
        &s,
        Method::POST,
        "/api/quire/publish",
        r#"{"path": "pub.md"}"#,
    )
    .await;
    assert_eq!(published.status, 200, "{}", published.text());
    let p = published.json();
    assert_eq!(p["published"], true);
    assert_eq!(p["url"], "/p/pub");
    assert!(p["published_at"].as_str().is_some());
    assert_eq!(s.commit_count(), commits + 1);
    let text = s.disk("pub.md").unwrap();
    assert!(
        text.starts_with("---\ntitle: Public page\npublished: true\npublished_at: "),
        "{text}"
    );

    let page = s.get("/p/pub").await;
    assert_eq!(page.status, 200, "{}", page.text());
    assert!(page.header("content-type").starts_with("text/html"));
    assert!(page.header("cache-control").contains("must-revalidate"));
    let etag = page.header("etag");
    assert!(etag.starts_with('"'));
    let html = page.text();
    assert!(!html.contains("<script"), "{html}");
    assert!(html.contains("&lt;script&gt;"), "{html}");
    assert!(html.contains("<title>Public page</title>"), "{html}");
    assert!(!html.contains("href=\"/p/secret\""), "{html}");
    assert!(
        !html.contains("href=\"/p/other\""),
        "other is not published yet: {html}"
    );
    assert!(html.contains("<img src=\"/p/pic.png\""), "{html}");
    assert!(html.contains("hl-"), "code is highlighted: {html}");
    // The same page with `.md` too.
    assert_eq!(s.get("/p/pub.md").await.status, 200);

    let again = s
        .call(
            Method::GET,
            "/p/pub",
            &[("if-none-match", &etag)],
            Body::empty(),
        )
        .await;
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());

    // Publishing the linked page changes the page (a live link now): a new ETag.
    send(
        &s,
        Method::POST,
        "/api/quire/publish",
        r#"{"path": "other.md"}"#,
    )
    .await;
    let page = s
        .call(
            Method::GET,
            "/p/pub",
            &[("if-none-match", &etag)],
            Body::empty(),
        )
        .await;
    assert_eq!(page.status, 200);
    assert!(
        page.text().contains("<a href=\"/p/other\">other</a>"),
        "{}",
        page.text()
    );

    // Assets: the embedded one is served, another is not.
    let pic = s.get("/p/pic.png").await;
    assert_eq!(pic.status, 200);
    assert_eq!(pic.header("content-type"), "image/png");
    let hidden = s.get("/p/hidden.png").await;
    let secret = s.get("/p/secret").await;
    let missing = s.get("/p/nothing").await;
    for refused in [&hidden, &secret, &missing] {
        assert_eq!(refused.status, 404);
        assert_eq!(refused.body, missing.body);
    }
    for path in [
        "/p/../secret.md",
        "/p/%2e%2e/secret.md",
        "/p/.quire/config.toml",
        "/p/.git/HEAD",
    ] {
        assert_eq!(s.get(path).await.status, 404, "{path}");
    }

    let list = s.get("/api/quire/publish/list").await.json();
    assert_eq!(list["count"], 2);
    assert_eq!(list["pages"][0]["path"], "other.md");
    assert_eq!(list["pages"][1]["title"], "Public page");

    let unpublished = send(
        &s,
        Method::POST,
        "/api/quire/unpublish",
        r#"{"path": "pub.md"}"#,
    )
    .await;
    assert_eq!(unpublished.status, 200);
    assert_eq!(unpublished.json()["published"], false);
    assert_eq!(s.get("/p/pub").await.status, 404);
    assert!(s.disk("pub.md").unwrap().contains("published: false"));
    assert_eq!(
        s.get("/p/pic.png").await.status,
        404,
        "no published page uses it now"
    );
    s.assert_clean();
}

#[tokio::test]
async fn bulk_publishing_is_one_commit_or_nothing() {
    let s = site();
    let commits = s.commit_count();
    let refused = send(
        &s,
        Method::POST,
        "/api/quire/publish/bulk",
        r#"{"paths": ["pub.md", "missing.md"]}"#,
    )
    .await;
    refused.expect_error(404);
    assert_eq!(s.commit_count(), commits);
    assert!(!s.disk("pub.md").unwrap().contains("published"));
    let done = send(
        &s,
        Method::POST,
        "/api/quire/publish/bulk",
        r#"{"paths": ["pub.md", "other.md"]}"#,
    )
    .await;
    assert_eq!(done.status, 200, "{}", done.text());
    assert_eq!(done.json()["count"], 2);
    assert_eq!(s.commit_count(), commits + 1);
}

#[tokio::test]
async fn bad_publish_requests_are_refused_and_write_nothing() {
    let s = site();
    let commits = s.commit_count();
    for (uri, body, status) in [
        ("/api/quire/publish", r#"{"path": "../x.md"}"#, 400),
        ("/api/quire/publish", r#"{"path": "pic.png"}"#, 400),
        ("/api/quire/publish", r#"{"path": "nope.md"}"#, 404),
        ("/api/quire/publish", r#"{"path": "#, 400),
        ("/api/quire/publish", r#"{}"#, 400),
        ("/api/quire/publish/bulk", r#"{"paths": []}"#, 400),
        ("/api/quire/publish/bulk", r#"{"paths": ["../x.md"]}"#, 400),
        ("/api/quire/unpublish", r#"{"path": "../x.md"}"#, 400),
        ("/api/quire/unpublish", r#"{"path": "nope.md"}"#, 404),
    ] {
        send(&s, Method::POST, uri, body).await.expect_error(status);
    }
    assert_eq!(s.commit_count(), commits);
}

// --- rules and theme ------------------------------------------------------------------------

#[tokio::test]
async fn rules_are_committed_and_delivered_per_tool() {
    let s = server(&[]);
    let empty = s.get("/api/quire/rules").await;
    assert_eq!((empty.status.as_u16(), empty.text()), (200, String::new()));
    assert_eq!(s.get("/api/quire/rules?format=cursor").await.text(), "");
    let commits = s.commit_count();
    let written = s
        .call(
            Method::PUT,
            "/api/quire/rules",
            &[("x-actor", "ann")],
            "Link with [[wiki links]].\n",
        )
        .await;
    assert_eq!(written.status, 200, "{}", written.text());
    assert_eq!(written.json()["path"], ".quire/rules.md");
    assert_eq!(s.commit_count(), commits + 1);
    assert_eq!(
        s.disk(".quire/rules.md").unwrap(),
        "Link with [[wiki links]].\n"
    );
    assert_eq!(
        s.get("/api/quire/rules").await.text(),
        "Link with [[wiki links]].\n"
    );
    let cursor = s.get("/api/quire/rules?format=cursor").await.text();
    assert!(cursor.contains("alwaysApply: true"), "{cursor}");
    for format in ["claude", "agents", "openclaw"] {
        let out = s.get(&format!("/api/quire/rules?format={format}")).await;
        assert_eq!(out.status, 200);
        assert!(out.text().contains("Link with [[wiki links]]."));
    }
    s.get("/api/quire/rules?format=vim").await.expect_error(400);
    let big = "x".repeat(256 * 1024 + 1);
    s.call(Method::PUT, "/api/quire/rules", &[], big)
        .await
        .expect_error(413);
    s.call(Method::PUT, "/api/quire/rules", &[], vec![0xffu8, 0xfe])
        .await
        .expect_error(400);
    assert_eq!(s.commit_count(), commits + 1);
}

#[tokio::test]
async fn the_theme_is_validated_stored_and_locked_by_configuration() {
    let s = server(&[]);
    let default = s.get("/api/quire/theme").await.json();
    assert_eq!(default, json!({"primary": "#4f46e5", "mode": "system"}));
    let set = send(
        &s,
        Method::PUT,
        "/api/quire/theme",
        r##"{"primary": "#FF0000", "mode": "dark"}"##,
    )
    .await;
    assert_eq!(set.status, 200, "{}", set.text());
    assert_eq!(set.json(), json!({"primary": "#ff0000", "mode": "dark"}));
    assert_eq!(s.get("/api/quire/theme").await.json(), set.json());
    assert!(s.disk(".quire/theme.json").unwrap().contains("#ff0000"));
    let commits = s.commit_count();
    for body in [
        r##"{"primary": "red", "mode": "dark"}"##,
        r##"{"primary": "#ff0000", "mode": "sepia"}"##,
        r##"{"primary": "#ff0000"}"##,
        r##"{"primary": "#ff0000", "mode": "dark", "font": "x"}"##,
        r##"{"primary": "#ff"##,
    ] {
        send(&s, Method::PUT, "/api/quire/theme", body)
            .await
            .expect_error(400);
    }
    assert_eq!(s.commit_count(), commits);

    let locked = server(&[(".quire/config.toml", "[ui]\ntheme_locked = true\n")]);
    let commits = locked.commit_count();
    send(
        &locked,
        Method::PUT,
        "/api/quire/theme",
        r##"{"primary": "#000", "mode": "light"}"##,
    )
    .await
    .expect_error(403);
    assert_eq!(locked.commit_count(), commits);
    assert!(locked.disk(".quire/theme.json").is_none());
}

#[tokio::test]
async fn every_id_route_works_under_the_space_named_in_the_url() {
    let s = server(&[("notes/a.md", "# A\n\nfirst line\n")]);
    let base = "/api/quire/default";
    let made = send(
        &s,
        Method::POST,
        &format!("{base}/comments?path=notes/a.md"),
        r#"{"line": 3, "body": "here"}"#,
    )
    .await;
    assert_eq!(made.status, 201, "{}", made.text());
    let id = made.json()["id"].as_str().unwrap().to_string();
    let patched = send(
        &s,
        Method::PATCH,
        &format!("{base}/comments/{id}"),
        r#"{"resolved": true}"#,
    )
    .await;
    assert_eq!(patched.status, 200, "{}", patched.text());
    let deleted = send(&s, Method::DELETE, &format!("{base}/comments/{id}"), "").await;
    assert_eq!(deleted.status, 200, "{}", deleted.text());

    let link = send(
        &s,
        Method::POST,
        &format!("{base}/share"),
        &json!({"path": "notes/a.md"}).to_string(),
    )
    .await;
    assert_eq!(link.status, 201, "{}", link.text());
    let link = link.json();
    // The URL the answer gives is one that works.
    let url = link["url"].as_str().unwrap().to_string();
    let viewed = s.get(&url).await;
    assert_eq!(viewed.status, 200, "{url}: {}", viewed.text());
    assert!(viewed.text().starts_with("# A"));
    let share_id = link["id"].as_str().unwrap();
    let revoked = send(&s, Method::DELETE, &format!("{base}/share/{share_id}"), "").await;
    assert_eq!(revoked.status, 200, "{}", revoked.text());
    assert_eq!(s.get(&url).await.status, 404);
    s.assert_clean();
}
