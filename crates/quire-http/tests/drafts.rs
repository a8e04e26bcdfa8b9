//! Drafts over HTTP: branches that hold changes apart from the knowledge base (never on disk,
//! in `/tree` or in search), their diff, merge as one commit by the merger, 409 on conflict
//! with nothing changed on main, discard, limits, 501 without git, and bad input.

mod support;

use axum::body::Body;
use axum::http::Method;
use serde_json::{json, Value};
use support::{enc, Reply, TestServer};

const A: &str = "# A\n\nfirst line\nsecond line\nthird line\n";

fn files() -> Vec<(&'static str, &'static str)> {
    vec![("notes/a.md", A), ("notes/b.md", "# B\n\nbee\n")]
}

fn server() -> TestServer {
    TestServer::with(support::sync_git(), Default::default(), &files())
}

async fn create(s: &TestServer, actor: &str) -> String {
    let r = s
        .call(
            Method::POST,
            "/api/quire/drafts",
            &[("x-actor", actor)],
            Body::empty(),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()["id"].as_str().unwrap().to_string()
}

async fn write(s: &TestServer, id: &str, path: &str, content: &str) -> Reply {
    s.call(
        Method::PUT,
        &format!("/api/quire/drafts/{id}/file?path={}", enc(path)),
        &[("x-actor", "dana")],
        content.to_string(),
    )
    .await
}

fn head(s: &TestServer) -> String {
    s.repo().head().unwrap().target().unwrap().to_string()
}

fn draft_refs(s: &TestServer) -> Vec<String> {
    let repo = s.repo();
    let names = repo
        .references_glob("refs/heads/drafts/*")
        .unwrap()
        .map(|r| r.unwrap().name().unwrap().to_string())
        .collect();
    names
}

#[tokio::test]
async fn drafts_are_created_listed_read_and_discarded() {
    let s = server();
    let commits = s.commit_count();
    let r = s
        .call(
            Method::POST,
            "/api/quire/drafts",
            &[("content-type", "application/json"), ("x-actor", "hdr")],
            json!({"actor": "ann"}).to_string(),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let d = r.json();
    let id = d["id"].as_str().unwrap().to_string();
    assert_eq!(d["branch"], format!("drafts/{id}"));
    assert_eq!(d["actor"], "ann", "the body's actor comes first");
    assert!(d["created_at"].as_str().unwrap().contains('T'));
    assert_eq!(d["base"].as_str().unwrap(), head(&s));
    assert_eq!(draft_refs(&s), [format!("refs/heads/drafts/{id}")]);

    let other = create(&s, "bob").await;
    let list = s.get("/api/quire/drafts").await.json();
    let mut listed: Vec<(&str, &str)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["actor"].as_str().unwrap(), d["id"].as_str().unwrap()))
        .collect();
    listed.sort();
    assert_eq!(listed, [("ann", id.as_str()), ("bob", other.as_str())]);
    // Without a body or header the actor is `api`.
    let anonymous = s
        .call(Method::POST, "/api/quire/drafts", &[], Body::empty())
        .await
        .json();
    assert_eq!(anonymous["actor"], "api");

    let one = s.get(&format!("/api/quire/drafts/{id}")).await;
    assert_eq!(one.status, 200);
    assert_eq!(one.json()["files"], json!([]));

    let r = s
        .call(
            Method::DELETE,
            &format!("/api/quire/drafts/{id}"),
            &[],
            Body::empty(),
        )
        .await;
    assert_eq!(r.status, 204);
    s.get(&format!("/api/quire/drafts/{id}"))
        .await
        .expect_error(404);
    s.call(
        Method::DELETE,
        &format!("/api/quire/drafts/{id}"),
        &[],
        Body::empty(),
    )
    .await
    .expect_error(404);
    assert_eq!(
        s.get("/api/quire/drafts")
            .await
            .json()
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(s.commit_count(), commits, "drafts never commit on main");
    s.assert_clean();
}

#[tokio::test]
async fn draft_writes_never_reach_the_root_the_tree_or_search() {
    let s = server();
    s.service.default_space().find().flush();
    let commits = s.commit_count();
    let id = create(&s, "ann").await;

    let r = write(&s, &id, "notes/new.md", "# New\n\nzebrafinch\n").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let etag = r.json()["etag"].as_str().unwrap().to_string();
    assert_eq!(r.header("etag"), format!("\"{etag}\""));
    assert_eq!(etag, quire_service::etag(b"# New\n\nzebrafinch\n"));
    write(
        &s,
        &id,
        "notes/a.md",
        "# A\n\nfirst line\nchanged in draft\nthird line\n",
    )
    .await;
    let r = s
        .call(
            Method::DELETE,
            &format!("/api/quire/drafts/{id}/file?path=notes/b.md"),
            &[],
            Body::empty(),
        )
        .await;
    assert_eq!(r.status, 204, "{}", r.text());

    // The draft reads its own versions ...
    let r = s
        .get(&format!("/api/quire/drafts/{id}/file?path=notes/new.md"))
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.text(), "# New\n\nzebrafinch\n");
    assert_eq!(r.header("etag"), format!("\"{etag}\""));
    assert!(r.header("content-type").starts_with("text/markdown"));
    s.get(&format!("/api/quire/drafts/{id}/file?path=notes/b.md"))
        .await
        .expect_error(404);
    let tree = s.get(&format!("/api/quire/drafts/{id}/tree")).await.json();
    let notes: Vec<&str> = tree[0]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["path"].as_str().unwrap())
        .collect();
    assert_eq!(notes, ["notes/a.md", "notes/new.md"]);
    let sub = s
        .get(&format!("/api/quire/drafts/{id}/tree?path=notes"))
        .await
        .json();
    assert_eq!(sub.as_array().unwrap().len(), 2);

    // ... and main knows nothing of them.
    assert!(s.disk("notes/new.md").is_none());
    assert_eq!(s.disk("notes/a.md").unwrap(), A);
    assert!(s.disk("notes/b.md").is_some());
    let main = s.get("/api/quire/tree").await.text();
    assert!(!main.contains("new.md"), "{main}");
    assert!(main.contains("b.md"), "{main}");
    s.get("/api/quire/file?path=notes/new.md")
        .await
        .expect_error(404);
    s.service.default_space().find().flush();
    let hits = s.get("/api/quire/search?q=zebrafinch").await;
    assert_eq!(hits.status, 200, "{}", hits.text());
    assert!(!hits.text().contains("new.md"), "{}", hits.text());
    assert_eq!(s.commit_count(), commits);
    s.assert_clean();

    // The diff against main: what the draft changed since it began.
    let diff = s.get(&format!("/api/quire/drafts/{id}/diff")).await.json();
    let text = diff["diff"].as_str().unwrap();
    assert!(text.contains("+changed in draft"), "{text}");
    assert!(text.contains("-second line"), "{text}");
    assert!(text.contains("+zebrafinch"), "{text}");
    assert!(text.contains("-bee"), "{text}");
    assert_eq!(
        diff["files"],
        json!([
            {"path": "notes/a.md", "action": "modified"},
            {"path": "notes/b.md", "action": "deleted"},
            {"path": "notes/new.md", "action": "added"},
        ])
    );
    let one = s.get(&format!("/api/quire/drafts/{id}")).await.json();
    assert_eq!(one["files"], diff["files"]);
}

#[tokio::test]
async fn draft_writes_check_if_match_against_the_draft() {
    let s = server();
    let id = create(&s, "ann").await;
    let uri = format!("/api/quire/drafts/{id}/file?path=notes/a.md");
    let main_etag = quire_service::etag(A.as_bytes());
    let r = s
        .call(Method::PUT, &uri, &[("if-match", &main_etag)], "# v2\n")
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let r = s
        .call(Method::PUT, &uri, &[("if-match", &main_etag)], "# v3\n")
        .await;
    let message = r.expect_error(409);
    assert!(message.contains("modified"), "{message}");
    assert_eq!(s.get(&uri).await.text(), "# v2\n");
}

#[tokio::test]
async fn a_clean_merge_is_one_commit_authored_by_the_merger() {
    let s = server();
    let id = create(&s, "ann").await;
    write(
        &s,
        &id,
        "notes/a.md",
        "# A\n\nfirst line\nsecond line\nthird line, drafted\n",
    )
    .await;
    write(&s, &id, "notes/new.md", "# New\n").await;
    // Main moves on meanwhile: another line of the same page, and another page.
    s.put(
        "notes/a.md",
        "# A\n\nfirst line, on main\nsecond line\nthird line\n",
        "max",
    )
    .await;
    s.put("notes/b.md", "# B\n\nbee on main\n", "max").await;
    let before = head(&s);
    let commits = s.commit_count();

    let r = s
        .call(
            Method::POST,
            &format!("/api/quire/drafts/{id}/merge"),
            &[("x-actor", "carol")],
            Body::empty(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let merged = r.json();
    assert_eq!(merged["status"], "merged");
    assert_eq!(merged["files"], json!(["notes/a.md", "notes/new.md"]));
    assert_eq!(s.commit_count(), commits + 1, "one commit");
    let repo = s.repo();
    let commit = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(commit.id().to_string(), merged["commit"].as_str().unwrap());
    assert_eq!(commit.author().name(), Some("carol"));
    assert_eq!(commit.parent_count(), 1);
    assert_eq!(commit.parent_id(0).unwrap().to_string(), before);
    assert_eq!(
        s.disk("notes/a.md").unwrap(),
        "# A\n\nfirst line, on main\nsecond line\nthird line, drafted\n"
    );
    assert_eq!(s.disk("notes/new.md").unwrap(), "# New\n");
    assert_eq!(s.disk("notes/b.md").unwrap(), "# B\n\nbee on main\n");
    assert!(draft_refs(&s).is_empty(), "the branch is gone");
    assert!(s
        .get("/api/quire/drafts")
        .await
        .json()
        .as_array()
        .unwrap()
        .is_empty());
    // The merged page is main's now: read, tree, search.
    assert_eq!(s.get("/api/quire/file?path=notes/new.md").await.status, 200);
    s.assert_clean();
}

#[tokio::test]
async fn main_and_a_draft_changing_one_page_conflict_and_main_stays_as_it_was() {
    let s = server();
    let id = create(&s, "ann").await;
    write(
        &s,
        &id,
        "notes/a.md",
        "# A\n\nfirst line\nsecond line by the draft\nthird line\n",
    )
    .await;
    write(&s, &id, "notes/other.md", "# Other\n").await;
    s.put(
        "notes/a.md",
        "# A\n\nfirst line\nsecond line by main\nthird line\n",
        "max",
    )
    .await;
    let before = head(&s);
    let commits = s.commit_count();

    let r = s
        .call(
            Method::POST,
            &format!("/api/quire/drafts/{id}/merge"),
            &[("x-actor", "carol")],
            Body::empty(),
        )
        .await;
    let message = r.expect_error(409);
    assert!(message.contains("notes/a.md"), "{message}");
    assert_eq!(head(&s), before);
    assert_eq!(s.commit_count(), commits);
    assert_eq!(
        s.disk("notes/a.md").unwrap(),
        "# A\n\nfirst line\nsecond line by main\nthird line\n"
    );
    assert!(
        s.disk("notes/other.md").is_none(),
        "nothing of the draft is merged"
    );
    // The draft is still there to be fixed or discarded.
    assert_eq!(s.get(&format!("/api/quire/drafts/{id}")).await.status, 200);
    s.assert_clean();
}

#[tokio::test]
async fn merging_an_unchanged_draft_makes_no_commit() {
    let s = server();
    let id = create(&s, "ann").await;
    let commits = s.commit_count();
    let r = s
        .call(
            Method::POST,
            &format!("/api/quire/drafts/{id}/merge"),
            &[],
            Body::empty(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["status"], "merged");
    assert_eq!(r.json()["files"], json!([]));
    assert_eq!(s.commit_count(), commits);
    assert!(draft_refs(&s).is_empty());
}

#[tokio::test]
async fn a_merge_that_violates_a_schema_is_refused_and_the_draft_kept() {
    let s = TestServer::from_config("[schema]\nenforce = true\n", &files());
    let r = s
        .call(
            Method::PUT,
            "/api/quire/schemas/task",
            &[("content-type", "application/json")],
            json!({"type": "object", "required": ["owner"]}).to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let id = create(&s, "ann").await;
    write(&s, &id, "t.md", "---\ntype: task\n---\n# T\n").await;
    let commits = s.commit_count();
    let r = s
        .call(
            Method::POST,
            &format!("/api/quire/drafts/{id}/merge"),
            &[],
            Body::empty(),
        )
        .await;
    r.expect_error(400);
    assert_eq!(r.json()["type"], "task");
    assert_eq!(s.commit_count(), commits);
    assert!(s.disk("t.md").is_none());
    assert_eq!(draft_refs(&s).len(), 1);
}

#[tokio::test]
async fn bad_input_is_refused_and_writes_nothing() {
    let s = server();
    let id = create(&s, "ann").await;
    let commits = s.commit_count();
    let tip = || {
        s.repo()
            .find_reference(&format!("refs/heads/drafts/{id}"))
            .unwrap()
            .target()
            .unwrap()
    };
    let start = tip();
    for path in [
        "../escape.md",
        "notes/../../x.md",
        ".git/config",
        ".quire/state/index.db",
        "",
    ] {
        let uri = format!("/api/quire/drafts/{id}/file?path={}", enc(path));
        let r = s.call(Method::PUT, &uri, &[], "x").await;
        r.expect_error(400);
        let r = s.call(Method::DELETE, &uri, &[], Body::empty()).await;
        assert!(
            matches!(r.status.as_u16(), 400 | 404),
            "{path}: {}",
            r.status
        );
        if path.contains("..") {
            s.get(&uri).await.expect_error(400);
            s.get(&format!("/api/quire/drafts/{id}/tree?path={}", enc(path)))
                .await
                .expect_error(400);
        }
    }
    // A file as a folder, a folder as a file.
    write(&s, &id, "notes/a.md/x.md", "x")
        .await
        .expect_error(400);
    write(&s, &id, "notes", "x").await.expect_error(400);
    s.get(&format!("/api/quire/drafts/{id}/tree?path=notes/a.md"))
        .await
        .expect_error(400);
    s.get(&format!("/api/quire/drafts/{id}/file?path=missing.md"))
        .await
        .expect_error(404);
    s.call(
        Method::DELETE,
        &format!("/api/quire/drafts/{id}/file?path=missing.md"),
        &[],
        Body::empty(),
    )
    .await
    .expect_error(404);
    // Missing query parameter.
    s.call(
        Method::PUT,
        &format!("/api/quire/drafts/{id}/file"),
        &[],
        "x",
    )
    .await
    .expect_error(400);
    // Ids that are no ids, or no draft.
    for bad in ["..%2F..%2Fmain", "a%20b", "x.y"] {
        s.get(&format!("/api/quire/drafts/{bad}"))
            .await
            .expect_error(400);
        s.call(
            Method::POST,
            &format!("/api/quire/drafts/{bad}/merge"),
            &[],
            Body::empty(),
        )
        .await
        .expect_error(400);
    }
    s.get("/api/quire/drafts/0123456789ab")
        .await
        .expect_error(404);
    write(&s, "0123456789ab", "a.md", "x")
        .await
        .expect_error(404);
    s.get("/api/quire/drafts/0123456789ab/diff")
        .await
        .expect_error(404);
    // Malformed bodies of POST /drafts.
    for body in ["{", "[]", "{\"actor\": 5}", "{\"unknown\": 1}"] {
        s.call(
            Method::POST,
            "/api/quire/drafts",
            &[("content-type", "application/json")],
            body,
        )
        .await
        .expect_error(400);
    }
    s.call(
        Method::POST,
        "/api/quire/drafts",
        &[("x-actor", "a<b>")],
        Body::empty(),
    )
    .await
    .expect_error(400);
    assert_eq!(tip(), start, "the draft is unchanged");
    assert_eq!(draft_refs(&s).len(), 1, "no draft was opened");
    assert_eq!(s.commit_count(), commits);
    s.assert_clean();
}

#[tokio::test]
async fn an_oversized_draft_write_is_413_and_writes_nothing() {
    let s = server();
    let id = create(&s, "ann").await;
    let body = vec![b'x'; quire_http::MAX_BODY_BYTES + 1];
    let r = s
        .call(
            Method::PUT,
            &format!("/api/quire/drafts/{id}/file?path=big.md"),
            &[],
            body,
        )
        .await;
    r.expect_error(413);
    s.get(&format!("/api/quire/drafts/{id}/file?path=big.md"))
        .await
        .expect_error(404);
}

#[tokio::test]
async fn at_most_max_active_drafts_are_open() {
    let s = TestServer::from_config("[drafts]\nmax_active = 2\n", &files());
    let first = create(&s, "a").await;
    create(&s, "b").await;
    let r = s
        .call(Method::POST, "/api/quire/drafts", &[], Body::empty())
        .await;
    let message = r.expect_error(409);
    assert!(message.contains("max_active"), "{message}");
    assert_eq!(draft_refs(&s).len(), 2);
    s.call(
        Method::DELETE,
        &format!("/api/quire/drafts/{first}"),
        &[],
        Body::empty(),
    )
    .await;
    create(&s, "c").await;
}

#[tokio::test]
async fn drafts_untouched_for_auto_discard_are_discarded() {
    let s = TestServer::from_config("[drafts]\nauto_discard = \"1s\"\n", &files());
    let id = create(&s, "a").await;
    assert_eq!(
        s.get("/api/quire/drafts")
            .await
            .json()
            .as_array()
            .unwrap()
            .len(),
        1
    );
    std::thread::sleep(std::time::Duration::from_millis(2100));
    assert_eq!(s.get("/api/quire/drafts").await.json(), json!([]));
    s.get(&format!("/api/quire/drafts/{id}"))
        .await
        .expect_error(404);
    assert!(draft_refs(&s).is_empty());
}

#[tokio::test]
async fn drafts_need_git_versioning_and_can_be_disabled() {
    for s in [
        TestServer::with(
            support::options(quire_service::Strategy::None, false),
            Default::default(),
            &files(),
        ),
        TestServer::from_config("[drafts]\nenabled = false\n", &files()),
    ] {
        for (method, uri) in [
            (Method::POST, "/api/quire/drafts"),
            (Method::GET, "/api/quire/drafts"),
            (Method::GET, "/api/quire/drafts/0123456789ab"),
            (Method::GET, "/api/quire/drafts/0123456789ab/diff"),
            (Method::POST, "/api/quire/drafts/0123456789ab/merge"),
            (Method::GET, "/api/quire/drafts/0123456789ab/file?path=a.md"),
            (Method::PUT, "/api/quire/drafts/0123456789ab/file?path=a.md"),
            (Method::GET, "/api/quire/drafts/0123456789ab/tree"),
        ] {
            let r = s.call(method.clone(), uri, &[], Body::empty()).await;
            r.expect_error(501);
        }
        assert!(s.disk("a.md").is_none());
    }
}

#[tokio::test]
async fn drafts_answer_under_a_space_url_too() {
    let s = server();
    let r = s
        .call(
            Method::POST,
            "/api/quire/default/drafts",
            &[],
            Body::empty(),
        )
        .await;
    assert_eq!(r.status, 201);
    let id = r.json()["id"].as_str().unwrap().to_string();
    let listed: Value = s.get("/api/quire/default/drafts").await.json();
    assert_eq!(listed[0]["id"], id.as_str());
}

#[tokio::test]
async fn with_async_commits_a_draft_starts_from_and_merges_into_every_acknowledged_write() {
    let s = TestServer::with(
        support::options(quire_service::Strategy::Git, true),
        Default::default(),
        &files(),
    );
    // Acknowledged, perhaps not committed yet: the draft must still start from it.
    s.put("notes/a.md", "# A\n\nfrom main before the draft\n", "max")
        .await;
    let id = create(&s, "ann").await;
    let r = s
        .get(&format!("/api/quire/drafts/{id}/file?path=notes/a.md"))
        .await;
    assert_eq!(r.text(), "# A\n\nfrom main before the draft\n");
    write(&s, &id, "notes/c.md", "# C\n").await;
    for i in 0..5 {
        s.put(&format!("notes/n{i}.md"), "# N\n", "max").await;
    }
    let r = s
        .call(
            Method::POST,
            &format!("/api/quire/drafts/{id}/merge"),
            &[("x-actor", "carol")],
            Body::empty(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    s.assert_clean();
    let repo = s.repo();
    let commit = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(commit.author().name(), Some("carol"));
    let tree = commit.tree().unwrap();
    for path in ["notes/c.md", "notes/n4.md", "notes/a.md"] {
        assert!(tree.get_path(std::path::Path::new(path)).is_ok(), "{path}");
    }
    assert_eq!(s.disk("notes/c.md").unwrap(), "# C\n");
}

#[tokio::test]
async fn a_merge_takes_its_commit_message_from_an_optional_body() {
    let s = server();
    let id = create(&s, "ann").await;
    write(&s, &id, "notes/new.md", "# New\n").await;
    // A body that is no merge request is refused, and nothing is merged.
    for body in ["[]", "{\"message\": 5}", "{\"unknown\": 1}"] {
        s.call(
            Method::POST,
            &format!("/api/quire/drafts/{id}/merge"),
            &[("content-type", "application/json")],
            body,
        )
        .await
        .expect_error(400);
    }
    assert_eq!(draft_refs(&s).len(), 1, "the draft is kept");
    assert!(s.disk("notes/new.md").is_none());
    let r = s
        .call(
            Method::POST,
            &format!("/api/quire/drafts/{id}/merge"),
            &[("content-type", "application/json"), ("x-actor", "carol")],
            json!({"message": "Ship the new page"}).to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let repo = s.repo();
    let commit = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(commit.summary(), Some("Ship the new page"));
    assert_eq!(commit.author().name(), Some("carol"));
    assert_eq!(s.disk("notes/new.md").unwrap(), "# New\n");
}
