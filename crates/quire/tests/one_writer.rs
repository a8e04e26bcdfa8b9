//! One writer per knowledge root, with the real binary: a live root is never rewritten by a
//! second process, commands go through the server holding the root, and edits made outside
//! quire while it runs end as commits by `quire` with the link model right.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use support::{quire, status_of, text, Server};

fn put(server: &Server, path: &str, body: &str, actor: &str) -> u16 {
    status_of(
        ureq::put(&format!("{}/file?path={path}", server.base))
            .set("X-Actor", actor)
            .send_string(body),
    )
}

fn get_json(url: &str) -> serde_json::Value {
    ureq::get(url).call().unwrap().into_json().unwrap()
}

fn repo(root: &Path) -> git2::Repository {
    git2::Repository::open(root).unwrap()
}

/// Every commit's (author, first line of message), newest first.
fn log(root: &Path) -> Vec<(String, String)> {
    let repo = repo(root);
    let mut walk = repo.revwalk().unwrap();
    walk.push_head().unwrap();
    walk.map(|id| {
        let c = repo.find_commit(id.unwrap()).unwrap();
        let author = c.author().name().unwrap_or("").to_string();
        let summary = c.summary().unwrap_or("").to_string();
        (author, summary)
    })
    .collect()
}

fn assert_clean(root: &Path) {
    let repo = repo(root);
    let mut opts = git2::StatusOptions::new();
    opts.include_untracked(true).recurse_untracked_dirs(true);
    let dirty: Vec<String> = repo
        .statuses(Some(&mut opts))
        .unwrap()
        .iter()
        .map(|s| format!("{:?} {}", s.status(), s.path().unwrap_or("?")))
        .collect();
    assert!(dirty.is_empty(), "git status not clean: {dirty:?}");
}

/// Polls `check` for up to 10 s.
fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if check() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{what} did not happen within 10 s");
}

fn write_manifest(dir: &Path, from: &str, to: &str) -> std::path::PathBuf {
    let m = dir.join("m.yaml");
    std::fs::write(&m, format!("moves:\n  - from: {from}\n    to: {to}\n")).unwrap();
    m
}

#[test]
fn a_root_plan_while_the_server_batches_keeps_every_author() {
    // The scenario of the issue: five writes by alice still queued for a batch commit, then
    // at once a read-only command on the same root.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let mut server = Server::start(&root, &[]);
    for i in 0..5 {
        assert_eq!(
            put(&server, &format!("p{i}.md"), &format!("# P{i}\n"), "alice"),
            200
        );
    }
    let m = write_manifest(dir.path(), "p0.md", "archive/p0.md");
    let out = quire()
        .args(["refactor", "plan"])
        .arg(&m)
        .arg("--root")
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("move p0.md -> archive/p0.md"));
    assert!(text(&out.stderr).contains("working through that server"));
    server.terminate(Duration::from_secs(10));
    let log = log(&root);
    assert!(
        !log.iter().any(|(_, m)| m.contains("outside quire")),
        "nothing recorded as an outside change: {log:?}"
    );
    let repo = repo(&root);
    for i in 0..5 {
        let path = format!("p{i}.md");
        let mut walk = repo.revwalk().unwrap();
        walk.push_head().unwrap();
        let author = walk
            .map(|id| repo.find_commit(id.unwrap()).unwrap())
            .find(|c| {
                let tree = c.tree().unwrap();
                let parent = c.parent(0).ok().map(|p| p.tree().unwrap());
                let now = tree.get_path(Path::new(&path)).ok().map(|e| e.id());
                let before = parent.and_then(|t| t.get_path(Path::new(&path)).ok().map(|e| e.id()));
                now.is_some() && now != before
            })
            .map(|c| {
                let name = c.author().name().unwrap().to_string();
                name
            });
        assert_eq!(author.as_deref(), Some("alice"), "{path}");
    }
    assert_clean(&root);
}

#[test]
fn a_second_server_on_the_same_root_refuses_naming_the_holder() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let server = Server::start(&root, &[]);
    let out = support::serve_refused(&root, &[]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("in use"), "{stderr}");
    assert!(
        stderr.contains(&format!("pid {}", server.child.id())),
        "names the holder: {stderr}"
    );
    assert!(stderr.contains(&server.host), "names its address: {stderr}");
}

#[test]
fn root_apply_and_revert_while_a_server_runs_go_through_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let server = Server::start(&root, &["--versioning", "git"]);
    assert_eq!(put(&server, "a.md", "# A\n\nSee [[b]].\n", "alice"), 200);
    assert_eq!(put(&server, "b.md", "# B\n", "alice"), 200);
    let m = write_manifest(dir.path(), "b.md", "notes/b.md");
    let out = quire()
        .args(["refactor", "apply"])
        .arg(&m)
        .args(["--yes", "--actor", "bob", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(text(&out.stderr).contains("working through that server"));
    let versions = get_json(&format!("{}/versions?path=notes/b.md", server.base));
    assert_eq!(versions[0]["author"], "bob");
    let message = versions[0]["message"].as_str().unwrap();
    assert!(message.contains("Quire-Client: cli"), "{message}");
    let commit = versions[0]["hash"].as_str().unwrap().to_string();
    // The server's link model knows the move: a plan of it again has nothing to do.
    let page = ureq::get(&format!("{}/file?path=a.md", server.base))
        .call()
        .unwrap()
        .into_string()
        .unwrap();
    assert_eq!(
        page, "# A\n\nSee [[b]].\n",
        "a bare name still resolves uniquely"
    );
    let out = quire()
        .args([
            "refactor", "revert", &commit, "--yes", "--actor", "carol", "--root",
        ])
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let versions = get_json(&format!("{}/versions?path=b.md", server.base));
    assert_eq!(versions[0]["author"], "carol");
}

#[test]
fn a_killed_server_frees_the_root() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let mut server = Server::start(&root, &[]);
    assert_eq!(put(&server, "a.md", "# A\n", "alice"), 200);
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    let m = write_manifest(dir.path(), "a.md", "b.md");
    let out = quire()
        .args(["refactor", "apply"])
        .arg(&m)
        .args(["--yes", "--actor", "dave", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("through that server"));
    assert!(root.join("b.md").exists());
    assert_clean(&root);
    // And a new server starts.
    let _again = Server::start(&root, &[]);
}

#[test]
fn a_root_apply_while_another_command_writes_is_refused_and_a_plan_still_reads() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let init = quire().arg("init").arg(&root).output().unwrap();
    assert!(init.status.success());
    std::fs::write(root.join("a.md"), "# A\n").unwrap();
    let m = write_manifest(dir.path(), "a.md", "b.md");
    // This process holds the root as a command that writes without serving would.
    let lock = quire_store::WriterLock::acquire(&root, "refactor apply").unwrap();
    let out = quire()
        .args(["refactor", "apply"])
        .arg(&m)
        .args(["--yes", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("is being written by"), "{stderr}");
    assert!(
        stderr.contains(&format!("pid {}", std::process::id())),
        "{stderr}"
    );
    assert!(root.join("a.md").exists() && !root.join("b.md").exists());
    // Reading needs no lock, and changes nothing.
    let out = quire()
        .args(["refactor", "plan"])
        .arg(&m)
        .arg("--root")
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    drop(lock);
    let out = quire()
        .args(["refactor", "apply"])
        .arg(&m)
        .args(["--yes", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(root.join("b.md").exists());
}

#[test]
fn an_editor_save_within_the_batch_window_keeps_the_api_version_and_its_author() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    // The defaults: async batching, writes within 200 ms share one commit.
    let server = Server::start(&root, &["--versioning", "git"]);
    assert_eq!(put(&server, "page.md", "# One\n", "api-client"), 200);
    // An editor saves the file at once, within the batch window.
    std::fs::write(root.join("page.md"), "# One, edited in an editor\n").unwrap();
    let url = format!("{}/versions?path=page.md", server.base);
    eventually("both versions are committed", || {
        get_json(&url).as_array().is_some_and(|v| v.len() == 2)
    });
    std::thread::sleep(Duration::from_millis(500));
    let versions = get_json(&url);
    let versions = versions.as_array().unwrap();
    let text = |hash: &serde_json::Value| {
        ureq::get(&format!(
            "{}/version?path=page.md&version={}",
            server.base,
            hash.as_str().unwrap()
        ))
        .call()
        .unwrap()
        .into_string()
        .unwrap()
    };
    assert_eq!(versions.len(), 2, "{versions:?}");
    assert_eq!(versions[1]["author"], "api-client", "{versions:?}");
    assert_eq!(text(&versions[1]["hash"]), "# One\n");
    assert_eq!(versions[0]["author"], "quire", "{versions:?}");
    assert_eq!(text(&versions[0]["hash"]), "# One, edited in an editor\n");
    assert_clean(&root);
}

#[test]
fn edits_moves_and_commits_made_outside_quire_while_it_serves_are_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let server = Server::start(&root, &["--versioning", "git"]);
    assert_eq!(put(&server, "a.md", "# A\n\nSee [[b]].\n", "alice"), 200);
    assert_eq!(put(&server, "b.md", "# B\n", "alice"), 200);

    // An editor saves a file.
    std::fs::write(root.join("c.md"), "# C\n\nLinks to [[a]].\n").unwrap();
    eventually("the outside edit is committed", || {
        get_json(&format!("{}/versions?path=c.md", server.base))
            .as_array()
            .is_some_and(|v| !v.is_empty())
    });
    let versions = get_json(&format!("{}/versions?path=c.md", server.base));
    assert_eq!(versions[0]["author"], "quire");
    assert!(versions[0]["message"]
        .as_str()
        .unwrap()
        .contains("- write c.md"));

    // `mv` in a shell: the move is kept as a raw move, links are not rewritten.
    std::fs::rename(root.join("b.md"), root.join("moved.md")).unwrap();
    eventually("the move is recorded", || {
        std::fs::read_to_string(root.join(".quire/state/raw-moves.json"))
            .is_ok_and(|t| t.contains("moved.md"))
    });
    let raw: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join(".quire/state/raw-moves.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(raw[0]["from"], "b.md");
    assert_eq!(raw[0]["via"], "watcher");
    let tree = get_json(&format!("{}/tree", server.base)).to_string();
    assert!(
        tree.contains("moved.md") && !tree.contains("\"b.md\""),
        "{tree}"
    );

    // A commit made by another program is picked up, not fought.
    std::fs::write(root.join("a.md"), "# A\n\nNow see [[c]].\n").unwrap();
    let repo = repo(&root);
    // Give the watcher time to record the edit first (as an editor save would be), then a
    // second edit committed with git directly.
    eventually("the edit of a.md is recorded", || {
        get_json(&format!("{}/versions?path=a.md", server.base))[0]["author"] == "quire"
    });
    std::fs::write(root.join("d.md"), "# D\n").unwrap();
    let mut index = repo.index().unwrap();
    index.read(true).unwrap();
    index.add_path(Path::new("d.md")).unwrap();
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = git2::Signature::now("Someone", "s@example.com").unwrap();
    let parent = repo.head().unwrap().peel_to_commit().unwrap();
    let theirs = repo
        .commit(
            Some("HEAD"),
            &sig,
            &sig,
            "added with git",
            &tree,
            &[&parent],
        )
        .unwrap();
    eventually("the server knows d.md", || {
        get_json(&format!("{}/tree", server.base))
            .to_string()
            .contains("d.md")
    });
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        repo.head().unwrap().peel_to_commit().unwrap().id(),
        theirs,
        "no commit of quire's on top of theirs"
    );
    // The link model is right: the page links now resolve through the server.
    let resolved = ureq::post(&format!("{}/resolve-links", server.base))
        .send_json(serde_json::json!({"links": ["c", "d", "b"]}))
        .unwrap()
        .into_json::<serde_json::Value>()
        .unwrap();
    assert_eq!(resolved["resolved"]["c"]["path"], "c.md");
    assert_eq!(resolved["resolved"]["d"]["path"], "d.md");
    assert_eq!(resolved["unresolved"], serde_json::json!(["b"]));
    assert_clean(&root);
}

#[test]
fn sigterm_stops_the_server_within_five_seconds_with_an_event_stream_open() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let mut server = Server::start(&root, &[]);
    // A client that keeps the event stream open.
    let addr = server.host.trim_start_matches("http://").to_string();
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    std::io::Write::write_all(
        &mut stream,
        format!("GET /api/quire/events HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes(),
    )
    .unwrap();
    let mut head = [0u8; 12];
    std::io::Read::read_exact(&mut stream, &mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 200", "the stream is open");
    for i in 0..20 {
        put(&server, &format!("x{i}.md"), "x", "alice");
    }
    let took = server.terminate(Duration::from_secs(5));
    assert!(took < Duration::from_secs(5), "took {took:?}");
    drop(stream);
    assert_clean(&root);
}
