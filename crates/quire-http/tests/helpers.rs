//! Helper operations over HTTP: lint, peek, section, timeline and the two feeds — success
//! shapes and bad input.

mod support;

use axum::body::Body;
use axum::http::Method;
use serde_json::json;
use support::{enc, TestServer};

const GUIDE: &str = "---\ntitle: The guide\ntags: [howto]\n---\n# Guide\n\nIntro text with a [[target]] link.\n\n## Setup\n\nInstall it.\n\n### Details\n\nMore.\n\n## Use\n\nRun it.\n";

const BLOCKS: &str = "# Blocks\n\nA first paragraph.\n\nThe quoted claim\nspans two lines. ^claim\n\n- one\n- two ^item\n";

fn server() -> TestServer {
    let s = TestServer::with(
        support::sync_git(),
        Default::default(),
        &[
            ("guide.md", GUIDE),
            ("target.md", "# Target\n\nBack to [[guide]].\n"),
            ("blocks.md", BLOCKS),
            (
                "messy.md",
                "---\na: [unclosed\n---\n# One\n### Three\n# One\nA [[missing]] and [[target#Nope]] and [[]] \n",
            ),
        ],
    );
    s.service.default_space().find().flush();
    s
}

fn rules(v: &serde_json::Value) -> Vec<(u64, String)> {
    v["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            assert!(i["message"].is_string());
            (
                i["line"].as_u64().unwrap(),
                i["rule"].as_str().unwrap().into(),
            )
        })
        .collect()
}

#[tokio::test]
async fn lint_reports_every_rule_of_a_stored_page() {
    let s = server();
    let r = s
        .post_json("/api/quire/lint", json!({"path": "messy.md"}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let found = rules(&r.json());
    for expected in [
        "frontmatter",
        "heading-jump",
        "duplicate-heading",
        "broken-link",
        "broken-anchor",
        "empty-link",
        "trailing-whitespace",
    ] {
        assert!(
            found.iter().any(|(_, rule)| rule == expected),
            "{expected} missing in {found:?}"
        );
    }
    let clean = s
        .post_json("/api/quire/lint", json!({"path": "guide.md"}))
        .await;
    assert_eq!(clean.json(), json!({"issues": []}));
}

#[tokio::test]
async fn lint_takes_inline_content_and_refuses_bad_input() {
    let s = server();
    let commits = s.commit_count();
    let v = s
        .post_json(
            "/api/quire/lint",
            json!({"content": "# A\n[[target]] [[nowhere]]\n"}),
        )
        .await
        .json();
    assert_eq!(rules(&v), vec![(2, "broken-link".to_string())]);
    s.post_json("/api/quire/lint", json!({}))
        .await
        .expect_error(400);
    s.post_json("/api/quire/lint", json!({"path": "none.md"}))
        .await
        .expect_error(404);
    s.post_json("/api/quire/lint", json!({"path": "../x.md"}))
        .await
        .expect_error(400);
    s.post_json("/api/quire/lint", json!({"paht": "guide.md"}))
        .await
        .expect_error(400);
    assert_eq!(s.commit_count(), commits);
}

#[tokio::test]
async fn peek_summarises_a_page() {
    let s = server();
    let r = s.get("/api/quire/peek?path=guide.md").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["path"], "guide.md");
    assert_eq!(v["title"], "The guide");
    assert!(
        v["snippet"]
            .as_str()
            .unwrap()
            .starts_with("Guide Intro text"),
        "{v}"
    );
    assert_eq!(v["frontmatter"]["tags"], json!(["howto"]));
    assert_eq!(
        v["links_out"],
        json!([{"target": "target", "path": "target.md"}])
    );
    assert_eq!(v["links_in"], json!(["target.md"]));
    assert_eq!(
        v["headings"][1],
        json!({"level": 2, "text": "Setup", "slug": "setup"})
    );
    assert!(v["word_count"].as_u64().unwrap() > 5);
    s.get("/api/quire/peek?path=none.md")
        .await
        .expect_error(404);
    s.get("/api/quire/peek").await.expect_error(400);
}

#[tokio::test]
async fn section_by_heading_or_index() {
    let s = server();
    let v = s
        .get("/api/quire/section?path=guide.md&heading=Setup")
        .await
        .json();
    assert_eq!(v["heading"], "Setup");
    assert_eq!(v["level"], 2);
    assert_eq!(
        v["content"],
        "## Setup\n\nInstall it.\n\n### Details\n\nMore."
    );
    assert_eq!(v["line_start"], 9);
    assert_eq!(v["line_end"], 15);
    let v = s
        .get("/api/quire/section?path=guide.md&index=3")
        .await
        .json();
    assert_eq!(v["heading"], "Use");
    assert_eq!(v["content"], "## Use\n\nRun it.");
    let v = s
        .get(&format!(
            "/api/quire/section?path=guide.md&heading={}",
            enc("details")
        ))
        .await
        .json();
    assert_eq!(v["heading"], "Details", "a slug matches too");
    s.get("/api/quire/section?path=guide.md&heading=Nope")
        .await
        .expect_error(404);
    s.get("/api/quire/section?path=guide.md&index=9")
        .await
        .expect_error(404);
    s.get("/api/quire/section?path=guide.md")
        .await
        .expect_error(400);
    s.get("/api/quire/section?path=guide.md&heading=Use&index=1")
        .await
        .expect_error(400);
}

#[tokio::test]
async fn section_of_a_block_id_is_the_block_it_marks() {
    let s = server();
    let v = s
        .get(&format!(
            "/api/quire/section?path=blocks.md&heading={}",
            enc("^claim")
        ))
        .await
        .json();
    assert_eq!(v["heading"], "^claim");
    assert_eq!(v["level"], 0);
    assert_eq!(v["content"], "The quoted claim\nspans two lines.");
    assert_eq!(v["line_start"], 5);
    assert_eq!(v["line_end"], 6);
    let v = s
        .get(&format!(
            "/api/quire/section?path=blocks.md&heading={}",
            enc("#^item")
        ))
        .await
        .json();
    assert_eq!(v["content"], "- two");
    let e = s
        .get(&format!(
            "/api/quire/section?path=blocks.md&heading={}",
            enc("^nope")
        ))
        .await
        .expect_error(404);
    assert!(e.contains("no block"), "{e}");
}

#[tokio::test]
async fn timeline_filters_by_type_and_limits() {
    let s = server();
    s.put("a.md", "a", "alice").await;
    s.put("b.md", "b", "bob").await;
    s.call(
        Method::DELETE,
        "/api/quire/file?path=a.md",
        &[("x-actor", "carol")],
        Body::empty(),
    )
    .await;
    let v = s.get("/api/quire/timeline").await.json();
    assert_eq!(v["events"][0]["path"], "a.md");
    assert_eq!(v["events"][0]["action"], "delete");
    let total = v["total"].as_u64().unwrap();
    assert!(total >= 4, "{v}");
    let v = s.get("/api/quire/timeline?type=delete").await.json();
    assert_eq!(v["total"], 1);
    assert_eq!(v["events"][0]["actor"], "carol");
    let v = s.get("/api/quire/timeline?type=write&limit=1").await.json();
    assert_eq!(v["events"].as_array().unwrap().len(), 1);
    assert_eq!(v["events"][0]["path"], "b.md");
    assert_eq!(v["total"].as_u64().unwrap(), total - 1);
    s.get("/api/quire/timeline?type=rename")
        .await
        .expect_error(400);
}

#[tokio::test]
async fn feeds_are_atom_and_json_feed() {
    let s = server();
    s.put("odd <&> name.md", "x", "al & bo").await;
    let r = s.get("/api/quire/feed.atom").await;
    assert_eq!(r.status, 200);
    assert!(r.header("content-type").starts_with("application/atom+xml"));
    let xml = r.text();
    assert!(xml.starts_with("<?xml"));
    assert!(xml.contains("<feed xmlns=\"http://www.w3.org/2005/Atom\">"));
    assert!(xml.contains("<name>al &amp; bo</name>"), "{xml}");
    assert!(xml.contains("write odd &lt;&amp;&gt; name.md"), "{xml}");
    assert_well_formed(&xml);

    let r = s.get("/api/quire/feed.json?limit=1").await;
    assert_eq!(r.header("content-type"), "application/feed+json");
    let v = r.json();
    assert_eq!(v["version"], "https://jsonfeed.org/version/1.1");
    assert!(v["title"].is_string());
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["title"], "write odd <&> name.md");
    assert_eq!(items[0]["authors"][0]["name"], "al & bo");
    assert!(items[0]["id"].is_string() && items[0]["date_modified"].is_string());
    assert!(items[0]["url"]
        .as_str()
        .unwrap()
        .contains("odd%20%3C%26%3E%20name.md"));
    s.get("/api/quire/feed.json?limit=x")
        .await
        .expect_error(400);
}

/// Tags open and close in order, attributes are quoted, and every `&` starts an entity.
fn assert_well_formed(xml: &str) {
    let body = xml.split_once("?>").unwrap().1;
    let mut stack: Vec<String> = Vec::new();
    let mut rest = body;
    while let Some(open) = rest.find('<') {
        let text = &rest[..open];
        for (i, _) in text.match_indices('&') {
            let entity = &text[i..text[i..].find(';').map_or(text.len(), |e| i + e + 1)];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].contains(&entity),
                "bad entity {entity}"
            );
        }
        assert!(!text.contains('>'), "stray > in {text}");
        let close = rest[open..].find('>').unwrap() + open;
        let tag = &rest[open + 1..close];
        assert!(!tag.contains('<'), "stray < in {tag}");
        assert_eq!(
            tag.matches('"').count() % 2,
            0,
            "unbalanced quotes in {tag}"
        );
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "mismatched </{name}>");
        } else if !tag.ends_with('/') {
            stack.push(tag.split_whitespace().next().unwrap().to_string());
        }
        rest = &rest[close + 1..];
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
}

#[tokio::test]
async fn a_read_scoped_key_may_lint_but_the_lint_writes_nothing() {
    let config = quire_config::Config::from_toml_str(
        "[auth]\ntype = \"perspace\"\n\
         [[auth.api_keys]]\nkey = \"key-a-read\"\nspace = \"a\"\nscope = \"read\"\n",
        &|_| None,
    )
    .unwrap()
    .config;
    let s = TestServer::spaces(&["a"], &config);
    let root = s.dir.path().join("a");
    let head = || {
        let repo = git2::Repository::open(&root).unwrap();
        let head = repo.head().ok().and_then(|h| h.target());
        head
    };
    let before = head();
    let headers = [
        ("authorization", "Bearer key-a-read"),
        ("content-type", "application/json"),
    ];
    let lint = s
        .call(
            Method::POST,
            "/api/quire/lint",
            &headers,
            r#"{"content":"[[nowhere]]","path":"new.md"}"#,
        )
        .await;
    assert_eq!(lint.status, 200, "{}", lint.text());
    assert!(lint.json()["issues"]
        .as_array()
        .is_some_and(|i| !i.is_empty()));
    assert!(!root.join("new.md").exists(), "linting never writes");
    assert_eq!(head(), before);
    // Its bad input is a 400 for the read key too.
    s.call(
        Method::POST,
        "/api/quire/lint",
        &headers,
        r#"{"pth":"x.md"}"#,
    )
    .await
    .expect_error(400);
}
