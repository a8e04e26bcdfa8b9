//! The mount routes (`/mount/…`), which `quire mount` calls when a server holds the root: the
//! shape of each answer, writes as commits by `X-Actor`, scratch files kept in memory, renames
//! that keep links, and bad input refused with a JSON error and nothing written.

mod support;

use axum::body::Body;
use axum::http::Method;
use serde_json::json;
use support::{enc, TestServer};

fn server() -> TestServer {
    TestServer::with(
        support::sync_git(),
        Default::default(),
        &[
            ("notes/a.md", "# A\n\nSee [[b]] and [b](b.md).\n"),
            ("notes/b.md", "# B\n"),
        ],
    )
}

#[tokio::test]
async fn stat_and_list_answer_entries() {
    let s = server();
    let r = s.get("/api/quire/mount/stat?path=notes/a.md").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let entry = r.json();
    assert_eq!(entry["path"], "notes/a.md");
    assert_eq!(entry["name"], "a.md");
    assert_eq!(entry["kind"], "file");
    assert_eq!(entry["size"], 30);
    assert_eq!(entry["scratch"], false);
    assert!(entry["modified_ms"].as_i64().unwrap() > 1_600_000_000_000);
    let top = s.get("/api/quire/mount/stat?path=").await.json();
    assert_eq!(top["kind"], "folder");
    let r = s.get("/api/quire/mount/list?path=notes").await;
    assert_eq!(r.status, 200);
    let names: Vec<String> = r.json()["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["a.md", "b.md"]);
    let top = s.get("/api/quire/mount/list?path=").await.json();
    assert_eq!(top["entries"][0]["name"], "notes");
    assert_eq!(top["entries"][0]["kind"], "folder");
    // Missing: 404 with the error body.
    let r = s.get("/api/quire/mount/stat?path=notes/zz.md").await;
    assert!(r.expect_error(404).contains("notes/zz.md"));
    s.get("/api/quire/mount/list?path=nowhere")
        .await
        .expect_error(404);
    // The server's own state stays out of reach.
    let r = s.get("/api/quire/mount/file?path=.quire/config.toml").await;
    assert!(r.status == 403 || r.status == 404, "{}", r.status);
}

#[tokio::test]
async fn a_write_is_one_commit_by_the_actor_and_reads_back_raw() {
    let s = server();
    let before = s.commit_count();
    let bytes: Vec<u8> = vec![0, 159, 146, 150, b'\n'];
    let r = s
        .call(
            Method::PUT,
            "/api/quire/mount/file?path=notes/blob.bin",
            &[("x-actor", "mara")],
            bytes.clone(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["path"], "notes/blob.bin");
    assert_eq!(r.json()["etag"].as_str().unwrap().len(), 40);
    assert_eq!(s.commit_count(), before + 1);
    assert_eq!(s.head_author(), "mara");
    let back = s.get("/api/quire/mount/file?path=notes/blob.bin").await;
    assert_eq!(back.status, 200);
    assert_eq!(back.header("content-type"), "application/octet-stream");
    assert_eq!(back.body, bytes);
    // Without an actor the author is the protocol's.
    s.call(
        Method::PUT,
        "/api/quire/mount/file?path=notes/c.md",
        &[],
        "# C\n",
    )
    .await;
    assert_eq!(s.head_author(), "fuse");
    s.assert_clean();
}

#[tokio::test]
async fn a_scratch_file_stays_in_memory_and_a_temp_file_renamed_over_a_page_is_one_write() {
    let s = server();
    let before = s.commit_count();
    let swap = "notes/.a.md.swp";
    let r = s
        .call(
            Method::PUT,
            &format!("/api/quire/mount/file?path={}", enc(swap)),
            &[("x-actor", "vim")],
            "scratch",
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(s.disk(swap).is_none());
    let listed = s.get("/api/quire/mount/list?path=notes").await.json();
    let swap_entry = listed["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == ".a.md.swp")
        .cloned()
        .unwrap();
    assert_eq!(swap_entry["scratch"], true);
    assert_eq!(
        s.get(&format!("/api/quire/mount/file?path={}", enc(swap)))
            .await
            .text(),
        "scratch"
    );
    // An editor's save: a temp file, renamed over the page.
    s.call(
        Method::PUT,
        "/api/quire/mount/file?path=notes/a.md.tmp",
        &[("x-actor", "vim")],
        "# A\n\nnew\n",
    )
    .await;
    let r = s
        .call(
            Method::POST,
            "/api/quire/mount/rename",
            &[("content-type", "application/json"), ("x-actor", "vim")],
            json!({"from": "notes/a.md.tmp", "to": "notes/a.md", "overwrite": true}).to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(s.disk("notes/a.md").unwrap(), "# A\n\nnew\n");
    assert_eq!(s.commit_count(), before + 1);
    s.assert_clean();
}

#[tokio::test]
async fn folders_renames_and_deletes_keep_links() {
    let s = server();
    let r = s
        .call(
            Method::POST,
            "/api/quire/mount/folder",
            &[("content-type", "application/json")],
            json!({"path": "archive"}).to_string(),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["path"], "archive");
    assert!(s.dir.path().join("archive").is_dir());
    let r = s
        .call(
            Method::POST,
            "/api/quire/mount/rename",
            &[("content-type", "application/json"), ("x-actor", "mara")],
            json!({"from": "notes/b.md", "to": "archive/b.md"}).to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["path"], "archive/b.md");
    let a = s.disk("notes/a.md").unwrap();
    assert!(a.contains("[b](../archive/b.md)"), "{a}");
    assert_eq!(s.head_author(), "mara");
    let r = s
        .call(
            Method::DELETE,
            "/api/quire/mount/file?path=archive",
            &[("x-actor", "mara")],
            Body::empty(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(!s.dir.path().join("archive").exists());
    s.assert_clean();
}

#[tokio::test]
async fn bad_input_is_a_json_error_and_writes_nothing() {
    let s = server();
    let before = s.commit_count();
    // A write into a folder that does not exist (ENOENT on the mount).
    let r = s
        .call(
            Method::PUT,
            "/api/quire/mount/file?path=nowhere/x.md",
            &[],
            "x",
        )
        .await;
    assert!(r.expect_error(404).contains("nowhere"));
    // No path; the top folder, which is no file.
    let r = s.call(Method::PUT, "/api/quire/mount/file", &[], "x").await;
    assert!(r.expect_error(400).contains("path"));
    let r = s
        .call(Method::PUT, "/api/quire/mount/file?path=", &[], "x")
        .await;
    assert!(r.expect_error(403).contains("top folder"));
    // Outside the root, into git's or quire's folders.
    for path in ["../x.md", ".git/x", ".quire/x.md"] {
        let r = s
            .call(
                Method::PUT,
                &format!("/api/quire/mount/file?path={}", enc(path)),
                &[],
                "x",
            )
            .await;
        assert!(
            r.status.is_client_error(),
            "{path}: {} {}",
            r.status,
            r.text()
        );
        assert!(r.json()["error"].is_string(), "{path}");
    }
    // A folder that exists; a rename onto a page without overwrite; the top folder.
    let r = s
        .call(
            Method::POST,
            "/api/quire/mount/folder",
            &[("content-type", "application/json")],
            json!({"path": "notes"}).to_string(),
        )
        .await;
    r.expect_error(409);
    let r = s
        .call(
            Method::POST,
            "/api/quire/mount/rename",
            &[("content-type", "application/json")],
            json!({"from": "notes/a.md", "to": "notes/b.md"}).to_string(),
        )
        .await;
    r.expect_error(409);
    let r = s
        .call(
            Method::POST,
            "/api/quire/mount/rename",
            &[("content-type", "application/json")],
            json!({"from": "notes/a.md"}).to_string(),
        )
        .await;
    r.expect_error(400);
    s.call(
        Method::DELETE,
        "/api/quire/mount/file?path=",
        &[],
        Body::empty(),
    )
    .await
    .expect_error(403);
    s.call(
        Method::DELETE,
        "/api/quire/mount/file?path=notes/zz.md",
        &[],
        Body::empty(),
    )
    .await
    .expect_error(404);
    assert_eq!(s.commit_count(), before);
    assert_eq!(s.disk("notes/b.md").unwrap(), "# B\n");
    s.assert_clean();
}
