//! `[backup]` with the real binary and a local bare repository as the remote: the history is
//! pushed; a remote that another clone moved ahead is fetched, taken in and pushed with ours
//! on top; an unreachable remote shows in `GET /backup` while writes go on.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use git2::{Repository, Signature};
use serde_json::Value;
use support::{write_config, Server};

fn call(req: ureq::Request, body: Option<&str>) -> (u16, String) {
    let result = match body {
        Some(b) => req.send_string(b),
        None => req.call(),
    };
    match result {
        Ok(r) => (r.status(), r.into_string().unwrap()),
        Err(ureq::Error::Status(code, r)) => (code, r.into_string().unwrap_or_default()),
        Err(e) => panic!("transport error: {e}"),
    }
}

fn status(server: &Server) -> Value {
    let (code, body) = call(ureq::get(&format!("{}/backup", server.base)), None);
    assert_eq!(code, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

fn put(server: &Server, path: &str, text: &str) {
    let (code, body) = call(
        ureq::put(&format!("{}/file?path={path}", server.base)),
        Some(text),
    );
    assert_eq!(code, 200, "{body}");
}

/// Waits (at most 30 s) until `done` holds, polling.
fn wait_for(what: &str, mut done: impl FnMut() -> bool, log: impl Fn() -> String) {
    let started = Instant::now();
    while !done() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{what} did not happen:\n{}",
            log()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The paths in the tree of `branch` of the bare repository at `remote`.
fn files_on(remote: &Path, branch: &str) -> Vec<String> {
    let Ok(repo) = Repository::open_bare(remote) else {
        return Vec::new();
    };
    let Ok(reference) = repo.find_reference(&format!("refs/heads/{branch}")) else {
        return Vec::new();
    };
    let tree = reference.peel_to_tree().unwrap();
    let mut out = Vec::new();
    tree.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
        if entry.kind() == Some(git2::ObjectType::Blob) {
            out.push(format!("{dir}{}", entry.name().unwrap_or("")));
        }
        git2::TreeWalkResult::Ok
    })
    .unwrap();
    out
}

/// Another machine: clones `main` of `remote` into `clone_dir`, commits `theirs.md` as bob
/// and pushes; answers that commit.
fn push_from_another_clone(remote: &Path, clone_dir: &Path) -> git2::Oid {
    let clone = git2::build::RepoBuilder::new()
        .branch("main")
        .clone(remote.to_str().unwrap(), clone_dir)
        .unwrap();
    std::fs::write(clone_dir.join("theirs.md"), "# From the other clone\n").unwrap();
    let mut index = clone.index().unwrap();
    index.add_path(Path::new("theirs.md")).unwrap();
    index.write().unwrap();
    let tree = clone.find_tree(index.write_tree().unwrap()).unwrap();
    let parent = clone.head().unwrap().peel_to_commit().unwrap();
    let bob = Signature::now("bob", "bob@example.com").unwrap();
    let theirs = clone
        .commit(
            Some("HEAD"),
            &bob,
            &bob,
            "bob writes theirs.md",
            &tree,
            &[&parent],
        )
        .unwrap();
    clone
        .find_remote("origin")
        .unwrap()
        .push(&["refs/heads/main:refs/heads/main"], None)
        .unwrap();
    theirs
}

fn config(remote: &Path, extra: &str) -> String {
    format!(
        "[backup]\nremote = \"{}\"\ninterval = \"1s\"\n{extra}",
        remote.display()
    )
}

#[test]
fn the_history_is_pushed_to_the_remote_and_the_status_says_when() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let remote = dir.path().join("backup.git");
    Repository::init_bare(&remote).unwrap();
    write_config(&root, &config(&remote, ""));
    let server = Server::start(&root, &[]);
    put(&server, "notes/first.md", "# First\n");
    wait_for(
        "the push of the write",
        || files_on(&remote, "main").contains(&"notes/first.md".to_string()),
        || server.log(),
    );
    let status = status(&server);
    assert_eq!(status["enabled"], true, "{status}");
    assert_eq!(status["remote"], remote.display().to_string());
    assert_eq!(status["branch"], "main");
    assert_eq!(status["interval"], "1s");
    assert_eq!(status["rebase_before_push"], true);
    assert!(status["last_push"].is_string(), "{status}");
    assert!(status["error"].is_null(), "{status}");
    let pushed = status["last_pushed_commit"].as_str().unwrap().to_string();
    let bare = Repository::open_bare(&remote).unwrap();
    let on_remote = bare.refname_to_id("refs/heads/main").unwrap().to_string();
    let local = Repository::open(&root).unwrap();
    assert!(
        local
            .graph_descendant_of(
                git2::Oid::from_str(&on_remote).unwrap(),
                git2::Oid::from_str(&pushed).unwrap()
            )
            .unwrap()
            || on_remote == pushed,
        "the status names a commit the remote holds"
    );
}

#[test]
fn a_remote_another_clone_moved_ahead_is_taken_in_and_both_commits_end_up_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let remote = dir.path().join("backup.git");
    Repository::init_bare(&remote).unwrap();
    write_config(&root, &config(&remote, ""));
    let server = Server::start(&root, &[]);
    put(&server, "ours-before.md", "# Before\n");
    wait_for(
        "the first push",
        || files_on(&remote, "main").contains(&"ours-before.md".to_string()),
        || server.log(),
    );

    // Another machine pushes a commit of its own.
    push_from_another_clone(&remote, &dir.path().join("clone"));

    put(&server, "ours-after.md", "# After\n");
    wait_for(
        "both commits on the remote",
        || {
            let files = files_on(&remote, "main");
            files.contains(&"theirs.md".to_string()) && files.contains(&"ours-after.md".to_string())
        },
        || server.log(),
    );
    // The work tree and the API have the other clone's file.
    assert_eq!(
        std::fs::read_to_string(root.join("theirs.md")).unwrap(),
        "# From the other clone\n"
    );
    let (code, body) = call(
        ureq::get(&format!("{}/file?path=theirs.md", server.base)),
        None,
    );
    assert_eq!((code, body.as_str()), (200, "# From the other clone\n"));
    // The remote's history holds bob's commit below ours: nothing was overwritten.
    let bare = Repository::open_bare(&remote).unwrap();
    let mut walk = bare.revwalk().unwrap();
    walk.push_ref("refs/heads/main").unwrap();
    let authors: Vec<String> = walk
        .map(|id| {
            let commit = bare.find_commit(id.unwrap()).unwrap();
            let name = commit.author().name().unwrap().to_string();
            name
        })
        .collect();
    assert!(authors.iter().any(|a| a == "bob"), "{authors:?}");
    let status = status(&server);
    assert!(status["error"].is_null(), "{status}");
    assert_eq!(
        status["last_rebase"]["files"],
        serde_json::json!(["theirs.md"]),
        "{status}"
    );
    // The local history is clean: HEAD holds the work tree.
    let local = Repository::open(&root).unwrap();
    let statuses = local.statuses(None).unwrap();
    let dirty: Vec<String> = statuses
        .iter()
        .filter_map(|s| s.path().map(str::to_string))
        .filter(|p| !p.starts_with(".quire/state"))
        .collect();
    assert!(dirty.is_empty(), "{dirty:?}");
}

#[test]
fn an_unreachable_remote_shows_in_the_status_while_writes_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let remote = dir.path().join("missing").join("backup.git");
    write_config(&root, &config(&remote, ""));
    let server = Server::start(&root, &[]);
    wait_for(
        "an error in the status",
        || status(&server)["error"].is_string(),
        || server.log(),
    );
    let status = status(&server);
    assert!(
        status["error"].as_str().unwrap().contains("backup.git"),
        "{status}"
    );
    assert!(status["failing_since"].is_string(), "{status}");
    assert!(status["last_push"].is_null(), "{status}");
    // Writes are not held up.
    for i in 0..3 {
        put(&server, &format!("page-{i}.md"), "# Still writing\n");
    }
    let (code, body) = call(
        ureq::get(&format!("{}/file?path=page-2.md", server.base)),
        None,
    );
    assert_eq!((code, body.as_str()), (200, "# Still writing\n"));
}

#[test]
fn without_rebase_a_remote_that_moved_ahead_is_an_error_and_keeps_its_commits() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let remote = dir.path().join("backup.git");
    Repository::init_bare(&remote).unwrap();
    write_config(&root, &config(&remote, "rebase_before_push = false\n"));
    let server = Server::start(&root, &[]);
    put(&server, "ours-before.md", "# Before\n");
    wait_for(
        "the first push",
        || files_on(&remote, "main").contains(&"ours-before.md".to_string()),
        || server.log(),
    );
    let theirs = push_from_another_clone(&remote, &dir.path().join("clone"));
    put(&server, "ours-after.md", "# After\n");
    wait_for(
        "an error in the status",
        || status(&server)["error"].is_string(),
        || server.log(),
    );
    let status = status(&server);
    assert!(
        status["error"]
            .as_str()
            .unwrap()
            .contains("rebase_before_push"),
        "{status}"
    );
    let bare = Repository::open_bare(&remote).unwrap();
    assert_eq!(bare.refname_to_id("refs/heads/main").unwrap(), theirs);
    assert!(!root.join("theirs.md").exists());
    // Writes go on.
    put(&server, "ours-later.md", "# Later\n");
}

#[test]
fn the_backup_status_is_for_admins_and_off_without_a_remote() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    write_config(
        &root,
        "[auth]\ntype = \"apikey\"\napi_key = \"admin-key-0123\"\n\
         [[auth.api_keys]]\nkey = \"reader-key-0123\"\nscope = \"read\"\n",
    );
    let server = Server::start(&root, &[]);
    let get = |key: &str, url: &str| {
        call(
            ureq::get(url).set("authorization", &format!("Bearer {key}")),
            None,
        )
    };
    let url = format!("{}/backup", server.base);
    let (code, body) = get("admin-key-0123", &url);
    assert_eq!(code, 200, "{body}");
    let status: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(status["enabled"], false);
    assert!(status["remote"].is_null() && status["error"].is_null());
    let (code, body) = get("reader-key-0123", &url);
    assert_eq!(code, 403, "{body}");
    assert!(serde_json::from_str::<Value>(&body).unwrap()["error"].is_string());
    let (code, body) = get("admin-key-0123", &format!("{}/nowhere/backup", server.base));
    assert_eq!(code, 404, "{body}");
    assert!(serde_json::from_str::<Value>(&body).unwrap()["error"].is_string());
}
