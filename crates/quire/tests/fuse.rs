//! A real FUSE mount (`quire mount`), driven by shell commands: `cat`, `echo >`, `mkdir`,
//! `mv`, `rm`. Writes are one commit each, a `mv` rewrites links exactly as `POST /rename`
//! does, and SIGTERM unmounts leaving nothing uncommitted; a root a server holds is mounted
//! through that server.
//!
//! Skipped, saying why, without `/dev/fuse` or `fusermount3` — unless `QUIRE_REQUIRE_FUSE` is
//! set: `.ci/run` installs fuse3 and sets it.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::{clients_present, git_log, quire, status_of, text, tree, write_config, Server};

fn fuse_available() -> bool {
    let problem = if !Path::new("/dev/fuse").exists() {
        Some("/dev/fuse is missing".to_string())
    } else if Command::new("fusermount3").arg("-V").output().is_err() {
        Some("fusermount3 does not run (apt-get install fuse3)".to_string())
    } else {
        None
    };
    clients_present("QUIRE_REQUIRE_FUSE", problem)
}

fn seeded(dir: &Path, name: &str) -> PathBuf {
    let root = dir.join(name);
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::write(
        root.join("notes/a.md"),
        "# A\n\nSee [[b]] and [the b page](b.md).\n",
    )
    .unwrap();
    std::fs::write(root.join("notes/b.md"), "# B\n\nBack to [[a]].\n").unwrap();
    std::fs::write(root.join("index.md"), "[[notes/a]] [b](notes/b.md)\n").unwrap();
    let out = quire().arg("init").arg(&root).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    write_config(&root, "[versioning]\nasync_commit = false\n");
    root
}

/// `quire mount`, waited for until the mount shows the root's pages.
struct Mount {
    child: Child,
    at: PathBuf,
}

impl Mount {
    fn start(root: &Path, at: &Path) -> Mount {
        Mount::start_with(root, at, &[], &[])
    }

    /// `quire mount --root ROOT [args] AT` with `env` set.
    fn start_with(root: &Path, at: &Path, args: &[&str], env: &[(&str, &str)]) -> Mount {
        std::fs::create_dir_all(at).unwrap();
        let child = quire()
            .args(["mount", "--root"])
            .arg(root)
            .args(args)
            .arg(at)
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut mount = Mount {
            child,
            at: at.to_path_buf(),
        };
        let started = Instant::now();
        while !at.join("notes/a.md").exists() {
            if let Ok(Some(status)) = mount.child.try_wait() {
                panic!("quire mount exited: {status}");
            }
            assert!(started.elapsed() < Duration::from_secs(30), "not mounted");
            std::thread::sleep(Duration::from_millis(50));
        }
        mount
    }

    fn sh(&self, script: &str) -> String {
        let out = Command::new("sh")
            .arg("-c")
            .arg(script)
            .current_dir(&self.at)
            .output()
            .unwrap();
        assert!(out.status.success(), "{script}: {}", text(&out.stderr));
        text(&out.stdout)
    }

    /// SIGTERM; the command unmounts and exits.
    fn stop(mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let started = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                assert!(status.success(), "quire mount: {status}");
                return;
            }
            assert!(started.elapsed() < Duration::from_secs(30), "did not stop");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
            let _ = Command::new("fusermount3").arg("-u").arg(&self.at).status();
        }
    }
}

#[test]
fn shell_commands_on_the_mount_are_commits_and_mv_keeps_links() {
    if !fuse_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = seeded(dir.path(), "kb");
    let mount = Mount::start(&root, &dir.path().join("mnt"));
    assert_eq!(
        mount.sh("cat notes/a.md"),
        "# A\n\nSee [[b]] and [the b page](b.md).\n"
    );
    assert_eq!(mount.sh("ls notes"), "a.md\nb.md\n");
    let before = git_log(&root).len();
    // A new page: one commit by the mount's actor.
    mount.sh("echo 'hello' > notes/new.md");
    assert_eq!(
        std::fs::read_to_string(root.join("notes/new.md")).unwrap(),
        "hello\n"
    );
    assert_eq!(git_log(&root).len(), before + 1, "{:?}", git_log(&root));
    assert!(
        git_log(&root)[0].starts_with("fuse\tCreate notes/new.md"),
        "{:?}",
        git_log(&root)
    );
    // Appending: one more.
    mount.sh("echo 'again' >> notes/new.md");
    assert_eq!(mount.sh("cat notes/new.md"), "hello\nagain\n");
    assert_eq!(git_log(&root).len(), before + 2);
    // A folder, and a page moved into it: the links follow.
    mount.sh("mkdir archive && mv notes/b.md archive/b.md");
    assert_eq!(mount.sh("ls archive"), "b.md\n");
    let a = std::fs::read_to_string(root.join("notes/a.md")).unwrap();
    assert!(a.contains("[the b page](../archive/b.md)"), "{a}");
    assert!(
        git_log(&root)[0].starts_with("fuse\tRename notes/b.md"),
        "{:?}",
        git_log(&root)
    );
    // A removal, and an editor's scratch file that is never committed.
    mount.sh("rm notes/new.md && echo x > notes/.a.md.swp && ls -a notes");
    assert!(!root.join("notes/new.md").exists());
    assert!(!root.join("notes/.a.md.swp").exists());
    assert!(
        git_log(&root)[0].starts_with("fuse\tDelete notes/new.md"),
        "{:?}",
        git_log(&root)
    );
    // Stop: unmounted, everything committed.
    let at = mount.at.clone();
    mount.stop();
    assert!(!at.join("notes").exists(), "still mounted");
    let status = Command::new("git")
        .args(["status", "--porcelain"])
        .current_dir(&root)
        .output()
        .unwrap();
    assert_eq!(text(&status.stdout), "", "uncommitted after unmount");
}

#[test]
fn a_mv_on_the_mount_rewrites_links_exactly_as_post_rename() {
    if !fuse_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mounted = seeded(dir.path(), "mounted");
    let served = seeded(dir.path(), "served");
    let mount = Mount::start(&mounted, &dir.path().join("mnt"));
    mount.sh("mv notes/b.md notes/bee.md && mv notes moved");
    mount.stop();
    let server = Server::start(&served, &["--no-mcp"]);
    for (route, body) in [
        ("rename", r#"{"from":"notes/b.md","to":"notes/bee.md"}"#),
        ("rename-dir", r#"{"from":"notes","to":"moved"}"#),
    ] {
        let r = ureq::post(&format!("{}/{route}", server.base))
            .set("content-type", "application/json")
            .send_string(body);
        assert_eq!(status_of(r), 200, "{route}");
    }
    assert_eq!(tree(&mounted), tree(&served));
}

/// One writer per root: a root a server holds is mounted through that server, every call of
/// the mount relayed to it (with the API key the other commands use).
#[test]
fn a_root_a_server_holds_is_mounted_through_that_server() {
    if !fuse_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = seeded(dir.path(), "kb");
    write_config(
        &root,
        "[versioning]\nasync_commit = false\n[auth]\ntype = \"apikey\"\napi_key = \"sesame\"\n",
    );
    let mut server = Server::start(&root, &["--no-mcp"]);
    let at = dir.path().join("mnt");
    std::fs::create_dir_all(&at).unwrap();
    // A wrong key is said at once, and nothing is mounted.
    let out = quire()
        .args(["mount", "--root"])
        .arg(&root)
        .arg(&at)
        .env("QUIRE_API_KEY", "wrong")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("401"), "{}", text(&out.stderr));
    assert!(!at.join("notes").exists());

    let mount = Mount::start_with(
        &root,
        &at,
        &["--actor", "mara"],
        &[("QUIRE_API_KEY", "sesame")],
    );
    let get = |path: &str| {
        ureq::get(&format!("{}/file?path={path}", server.base))
            .set("Authorization", "Bearer sesame")
            .call()
            .ok()
            .map(|r| r.into_string().unwrap())
    };
    assert_eq!(mount.sh("ls notes"), "a.md\nb.md\n");
    let before = git_log(&root).len();
    // A write through the mount is the server's commit, by the mount's actor, readable at once.
    mount.sh("echo 'hello' > notes/new.md");
    assert_eq!(get("notes/new.md").unwrap(), "hello\n");
    assert_eq!(git_log(&root).len(), before + 1, "{:?}", git_log(&root));
    assert!(
        git_log(&root)[0].starts_with("mara\tCreate notes/new.md"),
        "{:?}",
        git_log(&root)
    );
    // A write over REST is seen through the mount.
    let r = ureq::put(&format!("{}/file?path=notes/rest.md", server.base))
        .set("Authorization", "Bearer sesame")
        .send_string("# From REST\n");
    assert_eq!(status_of(r), 200);
    assert_eq!(mount.sh("cat notes/rest.md"), "# From REST\n");
    // A folder and a move into it: the server's planner rewrites the links.
    mount.sh("mkdir archive && mv notes/b.md archive/b.md");
    let a = std::fs::read_to_string(root.join("notes/a.md")).unwrap();
    assert!(a.contains("[the b page](../archive/b.md)"), "{a}");
    assert!(
        git_log(&root)[0].starts_with("mara\tRename notes/b.md"),
        "{:?}",
        git_log(&root)
    );
    // An editor's swap file lives in the server's memory: listed, never on disk.
    mount.sh("echo x > notes/.a.md.swp");
    assert!(mount.sh("ls -a notes").contains(".a.md.swp"));
    assert!(!root.join("notes/.a.md.swp").exists());
    // A removal.
    mount.sh("rm notes/new.md");
    assert!(get("notes/new.md").is_none());
    // Stop: unmounted; the server holds the root still, nothing uncommitted.
    mount.stop();
    assert!(!at.join("notes").exists(), "still mounted");
    server.terminate(Duration::from_secs(20));
    let status = Command::new("git")
        .args(["status", "--porcelain"])
        .current_dir(&root)
        .output()
        .unwrap();
    assert_eq!(text(&status.stdout), "", "uncommitted after the stop");
}

#[test]
fn quire_serve_mounts_with_protocols_fuse_and_unmounts_when_it_stops() {
    if !fuse_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = seeded(dir.path(), "kb");
    let at = dir.path().join("mnt");
    std::fs::create_dir_all(&at).unwrap();
    write_config(
        &root,
        &format!(
            "[versioning]\nasync_commit = false\n[protocols.fuse]\nmountpoint = {:?}\nactor = \"mounted\"\n",
            at.to_str().unwrap()
        ),
    );
    let mut server = Server::start(&root, &["--no-mcp"]);
    let started = Instant::now();
    while !at.join("notes/a.md").exists() {
        assert!(started.elapsed() < Duration::from_secs(30), "not mounted");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::fs::write(at.join("notes/c.md"), "# C\n").unwrap();
    let page = ureq::get(&format!("{}/file?path=notes/c.md", server.base))
        .call()
        .unwrap()
        .into_string()
        .unwrap();
    assert_eq!(page, "# C\n");
    assert!(
        git_log(&root)[0].starts_with("mounted\tCreate notes/c.md"),
        "{:?}",
        git_log(&root)
    );
    let ready: serde_json::Value = ureq::get(&format!("{}/readyz", server.host))
        .call()
        .unwrap()
        .into_json()
        .unwrap();
    assert_eq!(ready["protocols"]["fuse"]["healthy"], true, "{ready}");
    server.terminate(Duration::from_secs(20));
    assert!(
        !at.join("notes").exists(),
        "still mounted after the server stopped"
    );
}
