//! `POST /ingest` and `POST /clip` through the router, over a real root and real git: each
//! format's real file becomes pages in one commit by `X-Actor`, split by heading with an
//! index and wiki links that resolve; an unsupported or corrupt file writes nothing. A clip
//! fetches an article from a loopback server and keeps the article, not the page furniture.

mod support;

use std::io::{Read, Write};
use std::net::TcpListener;

use axum::http::Method;
use serde_json::{json, Value};
use support::{sync_git, TestServer};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../quire-ingest/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// A server whose root holds `files` (bytes).
fn server(files: &[(&str, Vec<u8>)]) -> TestServer {
    let s = TestServer::with(sync_git(), Default::default(), &[]);
    for (path, bytes) in files {
        let full = s.service.default_space().root_dir().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, bytes).unwrap();
    }
    s
}

async fn post(s: &TestServer, uri: &str, actor: Option<&str>, body: Value) -> support::Reply {
    let mut headers = vec![("content-type", "application/json")];
    if let Some(actor) = actor {
        headers.push(("x-actor", actor));
    }
    s.call(Method::POST, uri, &headers, body.to_string()).await
}

fn pages(reply: &support::Reply) -> Vec<String> {
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.json()["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect()
}

/// Uploads `bytes` as `name` (`POST /import/upload`) and answers the upload's path.
async fn upload(s: &TestServer, name: &str, bytes: &[u8]) -> String {
    let boundary = "quireboundary7MA4YWxkTrZu0gW";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
    )
    .into_bytes();
    body.extend(bytes);
    body.extend(format!("\r\n--{boundary}--\r\n").as_bytes());
    let content_type = format!("multipart/form-data; boundary={boundary}");
    let r = s
        .call(
            Method::POST,
            "/api/quire/import/upload",
            &[("content-type", &content_type)],
            body,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["path"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_docx_split_by_heading_is_an_index_and_linked_sections_in_one_commit() {
    let s = server(&[]);
    let file = upload(&s, "guide.docx", &fixture("guide.docx")).await;
    let before = s.commit_count();
    let r = post(
        &s,
        "/api/quire/ingest",
        Some("ann"),
        json!({"file": file, "split_mode": "heading", "prefix": "kb"}),
    )
    .await;
    let pages = pages(&r);
    assert_eq!(
        pages,
        ["kb/guide.md", "kb/guide/owls.md", "kb/guide/trees.md"]
    );
    assert_eq!(r.json()["format"], "docx");
    assert_eq!(r.json()["title"], "Field Guide");
    assert_eq!(s.commit_count(), before + 1, "one commit");
    assert_eq!(s.head_author(), "ann");
    let index = s.disk("kb/guide.md").unwrap();
    assert!(index.contains("title: Field Guide"), "{index}");
    assert!(index.contains("source: guide.docx"));
    assert!(index.contains("- [[kb/guide/owls|Owls]]\n- [[kb/guide/trees|Trees]]"));
    let owls = s.disk("kb/guide/owls.md").unwrap();
    assert!(owls.contains("# Owls\n"), "{owls}");
    assert!(owls.contains("## Feathers"));
    assert!(owls.contains("- Barn owl\n  - White face\n"));
    assert!(owls.contains("Owls hunt at **night** and fly *silently*."));
    assert!(owls.contains("[the owl site](https://example.org/owls)"));
    // The bookmark link points at the page its section landed on.
    assert!(
        owls.contains("[[kb/guide/trees|the oak section]]"),
        "{owls}"
    );
    assert!(owls.contains("Up: [[kb/guide|Field Guide]] · Next: [[kb/guide/trees|Trees]]"));
    assert!(owls.contains("keywords:"));
    let trees = s.disk("kb/guide/trees.md").unwrap();
    assert!(trees.contains("keywords: [oaks]"), "{trees}");
    // Every wiki link of the pages resolves.
    let r = s.get("/api/quire/links/broken").await;
    if r.status == 200 {
        let text = r.text();
        assert!(!text.contains("kb/guide"), "{text}");
    }
    s.assert_clean();
}

#[tokio::test]
async fn each_format_becomes_a_page() {
    let odt = quire_ingest_fixtures::odt();
    let epub = quire_ingest_fixtures::epub();
    let s = server(&[
        ("in/deck.pptx", fixture("deck.pptx")),
        ("in/report.pdf", fixture("report.pdf")),
        ("in/notes.odt", odt),
        ("in/rivers.epub", epub),
        ("in/page.html", b"<html><head><title>Tea</title></head><body><h1>Tea</h1><ol><li>boil</li><li>steep</li></ol></body></html>".to_vec()),
    ]);
    for (file, page, expect) in [
        (
            "in/deck.pptx",
            "deck.md",
            "# Quarterly Plan\n\n- Ship the clipper\n  - Fetch pages\n",
        ),
        ("in/report.pdf", "report.md", "## Findings\n"),
        (
            "in/notes.odt",
            "notes.md",
            "- Use git\n  - one commit per change\n",
        ),
        ("in/rivers.epub", "rivers.md", "## The mouth\n"),
        ("in/page.html", "page.md", "# Tea\n\n1. boil\n2. steep\n"),
    ] {
        let r = post(&s, "/api/quire/ingest", None, json!({"file": file})).await;
        assert_eq!(pages(&r), [page], "{file}");
        let text = s.disk(page).unwrap();
        assert!(text.contains(expect), "{file}: {text}");
        assert_eq!(s.head_author(), "ingest");
    }
}

#[tokio::test]
async fn an_unsupported_or_corrupt_file_is_refused_and_nothing_is_written() {
    let s = server(&[
        ("in/notes.txt", b"plain text".to_vec()),
        ("in/broken.docx", b"PK not really a zip".to_vec()),
        ("in/broken.pdf", b"%PDF-1.7 nothing else".to_vec()),
    ]);
    let before = s.commit_count();
    let r = post(
        &s,
        "/api/quire/ingest",
        None,
        json!({"file": "in/notes.txt"}),
    )
    .await;
    let message = r.expect_error(415);
    assert!(message.contains(".docx"), "{message}");
    for file in ["in/broken.docx", "in/broken.pdf"] {
        let r = post(&s, "/api/quire/ingest", None, json!({"file": file})).await;
        let message = r.expect_error(400);
        assert!(message.contains("not a readable"), "{file}: {message}");
    }
    let r = post(
        &s,
        "/api/quire/ingest",
        None,
        json!({"file": "in/missing.docx"}),
    )
    .await;
    r.expect_error(404);
    let r = post(
        &s,
        "/api/quire/ingest",
        None,
        json!({"file": "../outside.docx"}),
    )
    .await;
    r.expect_error(400);
    assert_eq!(s.commit_count(), before, "nothing committed");
    assert!(s.disk("notes.md").is_none() && s.disk("broken.md").is_none());
}

/// Serves `page` (as `media`) to every request on a loopback port, for `count` requests.
fn serve(page: &'static str, media: &'static str, count: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(count) {
            let Ok(mut stream) = stream else { continue };
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: {media}; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
        }
    });
    format!("http://{addr}/news/owls.html")
}

const ARTICLE: &str = r#"<!doctype html><html><head><title>Owls at night | Bird News</title>
<meta name="description" content="How owls hunt in the dark."></head><body>
<header class="site-header"><a href="/">Bird News</a> <a href="/login">Log in</a></header>
<nav><ul><li><a href="/">Home</a></li><li><a href="/archive">Archive</a></li></ul></nav>
<div class="layout"><aside class="sidebar"><p>Subscribe to our newsletter, friends, for more owls.</p></aside>
<article><h1>Owls at night</h1>
<p>Owls hunt at night, using hearing more than sight, and they fly silently.</p>
<p>Their feathers have soft edges, which break up the turbulence of the air.</p>
<ul><li>Barn owls</li><li>Snowy owls</li></ul>
<p>Read <a href="/feathers">more about feathers</a> in our long guide.</p></article>
<div id="comments"><p>Great article, loved it, thanks so much for this one!</p></div></div>
<footer><p>Copyright Bird News, all rights reserved, since forever.</p></footer>
<script>track()</script></body></html>"#;

#[tokio::test]
async fn a_clip_keeps_the_article_and_drops_the_noise() {
    let url = serve(ARTICLE, "text/html", 1);
    let s = server(&[]);
    let before = s.commit_count();
    let r = post(&s, "/api/quire/clip", None, json!({"url": url})).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["path"], "clips/owls-at-night-bird-news.md");
    assert_eq!(v["title"], "Owls at night | Bird News");
    assert_eq!(v["excerpt"], "How owls hunt in the dark.");
    assert_eq!(s.commit_count(), before + 1);
    assert_eq!(s.head_author(), "clipper");
    let text = s.disk("clips/owls-at-night-bird-news.md").unwrap();
    assert!(text.contains(&format!("source: {url}")), "{text}");
    assert!(text.contains("clipped_at:"));
    assert!(text.contains("excerpt: How owls hunt in the dark."));
    assert!(text.contains("# Owls at night\n"));
    assert!(text.contains("soft edges"));
    assert!(text.contains("- Barn owls\n- Snowy owls\n"));
    let host = url.trim_end_matches("/news/owls.html");
    assert!(
        text.contains(&format!("[more about feathers]({host}/feathers)")),
        "{text}"
    );
    for noise in [
        "Log in",
        "Archive",
        "newsletter",
        "Great article",
        "Copyright",
        "track()",
    ] {
        assert!(!text.contains(noise), "{noise} in {text}");
    }
}

#[tokio::test]
async fn a_clip_of_no_html_or_no_server_writes_nothing() {
    let s = server(&[]);
    let before = s.commit_count();
    let pdf = serve("%PDF-1.7", "application/pdf", 1);
    let r = post(&s, "/api/quire/clip", Some("ann"), json!({"url": pdf})).await;
    r.expect_error(415);
    // A port nobody listens on.
    let closed = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let r = post(
        &s,
        "/api/quire/clip",
        None,
        json!({"url": format!("http://{closed}/x")}),
    )
    .await;
    let message = r.expect_error(502);
    assert!(message.contains("cannot be reached"), "{message}");
    let r = post(
        &s,
        "/api/quire/clip",
        None,
        json!({"url": "ftp://example.org/x"}),
    )
    .await;
    r.expect_error(400);
    assert_eq!(s.commit_count(), before);
}

/// The odt and epub packages of quire-ingest's format tests.
mod quire_ingest_fixtures {
    include!("../../quire-ingest/tests/support/packages.rs");
}
