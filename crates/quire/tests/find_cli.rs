//! `quire search`, `quire query` and `quire reindex` as a user runs them: on a root nobody
//! serves, and through the server holding the root.

mod support;

use std::path::Path;

use support::{quire, text, Server};

fn root_with_pages(dir: &Path) -> std::path::PathBuf {
    let root = dir.join("kb");
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::write(
        root.join("notes/rust.md"),
        "---\nstatus: open\npriority: 3\n---\n# Rust\n\nOwnership and borrowing. #lang\n",
    )
    .unwrap();
    std::fs::write(
        root.join("notes/go.md"),
        "---\nstatus: done\npriority: 1\n---\n# Go\n\nGoroutines and channels.\n",
    )
    .unwrap();
    root
}

fn run(args: &[&str], root: &Path) -> (i32, String, String) {
    let out = quire().args(args).arg("--root").arg(root).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

#[test]
fn search_and_query_on_a_root_nobody_serves_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_pages(dir.path());
    let (code, out, err) = run(&["search", "borrowing", "--json"], &root);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["total"], 1);
    assert_eq!(v["engine"], "grep");
    assert_eq!(v["results"][0]["path"], "notes/rust.md");

    let (code, out, err) = run(&["search", "borrowing", "--tag", "lang"], &root);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("notes/rust.md"), "{out}");

    let (code, out, err) = run(
        &[
            "query",
            "TABLE status, priority FROM \"notes\" SORT priority DESC",
        ],
        &root,
    );
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("File"), "{out}");
    assert!(lines[2].starts_with("notes/rust.md"), "{out}");
    assert!(out.contains("(2 rows)"), "{out}");

    // Bad input: exit 2 with the position; nothing written.
    let (code, _, err) = run(&["search", "\"open"], &root);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("at character"), "{err}");
    let (code, _, err) = run(&["query", "TABLE FROM"], &root);
    assert_eq!(code, 2, "{err}");
    assert!(!root.join(".quire/state/index.db").exists());
    assert!(
        !root.join(".git").exists(),
        "a read opened the root for writing"
    );
}

#[test]
fn reindex_builds_the_index_and_commands_go_through_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_pages(dir.path());
    let (code, out, err) = run(&["reindex"], &root);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("indexed 2 pages"), "{out}");
    assert!(root.join(".quire/state/index.db").exists());

    let server = Server::start(&root, &[]);
    let (code, out, err) = run(&["search", "goroutines", "--json"], &root);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("working through that server"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["engine"], "sqlite");
    assert_eq!(v["results"][0]["path"], "notes/go.md");

    let (code, out, err) = run(&["query", "COUNT FROM \"notes\"", "--json"], &root);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["rows"][0][0], 2);

    let (code, out, err) = run(&["reindex"], &root);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("indexed 2 pages"), "{out}");
    let (code, _, err) = run(&["query", "LIST WHERE ("], &root);
    assert_eq!(code, 2, "{err}");
    drop(server);
}
