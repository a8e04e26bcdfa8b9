//! End-to-end: the real binary, killed between writing a file and committing it, leaves a root
//! that is consistent after the next start.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(root: &Path, fault: Option<&str>) -> Server {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_quire"));
    cmd.args([
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--mcp-port",
        "0",
        "--root",
    ])
    .arg(root)
    .env("QUIRE_LOG", "info")
    .env_remove("QUIRE_FAULT")
    .stdout(Stdio::null())
    .stderr(Stdio::piped());
    if let Some(f) = fault {
        cmd.env("QUIRE_FAULT", f);
    }
    let mut child = cmd.spawn().expect("quire starts");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(i) = line.find("http://") {
                let url: String = line[i..].split_whitespace().next().unwrap().to_string();
                let _ = tx.send(url);
            }
        }
    });
    let base = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("server prints its address");
    Server { child, base }
}

fn head_tree_has(root: &Path, path: &str) -> bool {
    let repo = git2::Repository::open(root).unwrap();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    tree.get_path(Path::new(path)).is_ok()
}

fn assert_clean(root: &Path) {
    let repo = git2::Repository::open(root).unwrap();
    let mut opts = git2::StatusOptions::new();
    opts.include_untracked(true).recurse_untracked_dirs(true);
    let dirty: Vec<String> = repo
        .statuses(Some(&mut opts))
        .unwrap()
        .iter()
        .map(|s| s.path().unwrap_or("?").to_string())
        .collect();
    assert!(dirty.is_empty(), "git status not clean: {dirty:?}");
}

#[test]
fn a_write_interrupted_between_file_and_commit_is_committed_at_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("knowledge");

    let mut server = start(&root, Some("after-write"));
    let url = format!("{}/file?path=notes/crash.md", server.base);
    let result = ureq::put(&url)
        .set("X-Actor", "alice")
        .send_string("# Survives the crash\n");
    assert!(result.is_err(), "the process dies before answering");
    let status = server.child.wait().unwrap();
    assert!(!status.success(), "the fault point aborted the process");

    // The file reached the disk, the commit did not.
    assert_eq!(
        std::fs::read_to_string(root.join("notes/crash.md")).unwrap(),
        "# Survives the crash\n"
    );
    assert!(!head_tree_has(&root, "notes/crash.md"));

    let server = start(&root, None);
    assert!(head_tree_has(&root, "notes/crash.md"), "recovered at start");
    assert_clean(&root);
    let body = ureq::get(&format!("{}/file?path=notes/crash.md", server.base))
        .call()
        .unwrap()
        .into_string()
        .unwrap();
    assert_eq!(body, "# Survives the crash\n");
}

#[test]
fn serve_creates_and_initialises_the_root_and_records_writes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("fresh");
    let server = start(&root, None);
    let reply: serde_json::Value = ureq::put(&format!("{}/file?path=hello.md", server.base))
        .set("X-Actor", "alice")
        .send_string("# Hello\n")
        .unwrap()
        .into_json()
        .unwrap();
    assert_eq!(reply["path"], "hello.md");
    // Async batching (the default) commits within the batch window.
    let mut found = false;
    for _ in 0..50 {
        std::thread::sleep(Duration::from_millis(100));
        let versions: serde_json::Value =
            ureq::get(&format!("{}/versions?path=hello.md", server.base))
                .call()
                .unwrap()
                .into_json()
                .unwrap();
        if versions.as_array().is_some_and(|v| !v.is_empty()) {
            assert_eq!(versions[0]["author"], "alice");
            found = true;
            break;
        }
    }
    assert!(found, "the write shows up in /versions");
    assert_clean(&root);
}

fn read(root: &Path, path: &str) -> Option<String> {
    std::fs::read_to_string(root.join(path)).ok()
}

/// A rename that rewrites links is a multi-file change: killed at any point before its commit
/// it is rolled back at the next start; killed after the commit it is kept.
#[test]
fn a_restructuring_killed_mid_apply_is_rolled_back_unless_its_commit_landed() {
    for (point, landed) in [
        ("after-journal", false),
        ("after-first-write", false),
        ("after-write", false),
        ("after-commit", true),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("kb");
        std::fs::create_dir_all(root.join("notes")).unwrap();
        let a = "# A\n\nSee [B](b.md).\n";
        std::fs::write(root.join("notes/a.md"), a).unwrap();
        std::fs::write(root.join("notes/b.md"), "# B\n").unwrap();
        drop(start(&root, None)); // first start: the git repository and its first commit

        let mut server = start(&root, Some(point));
        let result = ureq::post(&format!("{}/rename", server.base))
            .set("X-Actor", "alice")
            .send_json(serde_json::json!({"from": "notes/b.md", "to": "archive/b.md"}));
        assert!(
            result.is_err(),
            "{point}: the process dies before answering"
        );
        assert!(!server.child.wait().unwrap().success(), "{point}");

        let server = start(&root, None);
        assert!(
            !root.join(".quire/state/refactor-journal.json").exists(),
            "{point}: journal resolved at start"
        );
        assert_clean(&root);
        if landed {
            assert_eq!(
                read(&root, "archive/b.md").as_deref(),
                Some("# B\n"),
                "{point}"
            );
            assert_eq!(read(&root, "notes/b.md"), None, "{point}");
            assert_eq!(
                read(&root, "notes/a.md").unwrap(),
                "# A\n\nSee [B](../archive/b.md).\n"
            );
            assert!(head_tree_has(&root, "archive/b.md"));
        } else {
            assert_eq!(
                read(&root, "notes/b.md").as_deref(),
                Some("# B\n"),
                "{point}: rolled back"
            );
            assert_eq!(read(&root, "archive/b.md"), None, "{point}: rolled back");
            assert_eq!(
                read(&root, "notes/a.md").unwrap(),
                a,
                "{point}: rolled back"
            );
            assert!(!head_tree_has(&root, "archive/b.md"), "{point}");
        }
        // The server works normally afterwards.
        let r = ureq::get(&format!("{}/file?path=notes/a.md", server.base)).call();
        assert!(r.is_ok(), "{point}");
    }
}
