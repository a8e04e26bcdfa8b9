//! NFSv3 against the real binary, with libnfs as the client: `nfs-ls`, `nfs-cat` and `nfs-cp`
//! (Debian's `libnfs-utils`), and libnfs itself (`libnfs.so.13`, driven through Python's
//! ctypes) for what the utilities cannot do — rename, mkdir, unlink. Covered: listing, reading,
//! a copy in as exactly one commit by the NFS actor, in HEAD and over REST as soon as the copy
//! returns (a 3 MB file of three WRITEs too), copies out byte-identical, renames that
//! rewrite links exactly as `POST /rename` does, a read-only export, `/readyz`, a taken port and
//! a host others can reach.
//!
//! The tests skip, saying why, when the clients are missing — unless
//! `QUIRE_REQUIRE_NFS_CLIENTS` is set: `.ci/run` installs them and sets it.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use support::{
    clients_present, git_log, quire, serve_refused, status_of, text, tree, write_config, Server,
};

/// Whether the libnfs utilities (and python3 for the library calls) run; `false` (with a
/// message) when the test is skipped.
fn clients_available() -> bool {
    // nfs-ls without arguments prints its usage and fails: it runs.
    let problem = ["nfs-ls", "python3"].iter().find_map(|tool| {
        let e = Command::new(tool).arg("--version").output().err()?;
        Some(format!(
            "{tool} does not run ({e}); install it with `apt-get install libnfs-utils python3`"
        ))
    });
    clients_present("QUIRE_REQUIRE_NFS_CLIENTS", problem)
}

/// A root with linked pages (as the WebDAV tests have) and a 2 MB binary asset.
fn seeded(dir: &Path, name: &str, config: &str) -> PathBuf {
    let root = dir.join(name);
    std::fs::create_dir_all(root.join("notes/deep")).unwrap();
    std::fs::create_dir_all(root.join("assets")).unwrap();
    std::fs::write(
        root.join("notes/a.md"),
        "# A\n\nSee [[b]], [the b page](b.md) and [[deep/c|C]].\n",
    )
    .unwrap();
    std::fs::write(root.join("notes/b.md"), "# B\n\nBack to [[a]].\n").unwrap();
    std::fs::write(root.join("notes/deep/c.md"), "# C\n\nUp: [a](../a.md).\n").unwrap();
    std::fs::write(
        root.join("index.md"),
        "[[notes/a]] [[b]] [c](notes/deep/c.md)\n",
    )
    .unwrap();
    std::fs::write(root.join("assets/blob.bin"), blob(2 << 20)).unwrap();
    let out = quire().arg("init").arg(&root).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    write_config(
        &root,
        &format!(
            "[versioning]\nasync_commit = false\n[protocols.nfs]\nenabled = true\nport = 0\n{config}"
        ),
    );
    root
}

/// `len` bytes of every value, in no simple pattern.
fn blob(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// A server with NFS on, and the NFS port.
fn start(root: &Path) -> (Server, u16) {
    let server = Server::start(root, &["--no-mcp"]);
    let port = server
        .listening("NFS")
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    (server, port)
}

/// `nfs://127.0.0.1/PATH` on the server's one port (NFS and MOUNT both).
fn url(port: u16, path: &str) -> String {
    format!("nfs://127.0.0.1{path}?nfsport={port}&mountport={port}&version=3")
}

fn run(tool: &str, args: &[&str]) -> Output {
    Command::new(tool).args(args).output().unwrap()
}

fn ok(tool: &str, args: &[&str]) -> Vec<u8> {
    let out = run(tool, args);
    assert!(
        out.status.success(),
        "{tool} {args:?}: {}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    out.stdout
}

/// libnfs's own calls the utilities lack, through ctypes: `OP ARGS…` on the export `/`.
const LIBNFS_CALL: &str = r#"
import ctypes, sys
lib = ctypes.CDLL("libnfs.so.13")
class Url(ctypes.Structure):
    _fields_ = [("server", ctypes.c_char_p), ("path", ctypes.c_char_p), ("file", ctypes.c_char_p)]
lib.nfs_init_context.restype = ctypes.c_void_p
lib.nfs_get_error.restype = ctypes.c_char_p
lib.nfs_get_error.argtypes = [ctypes.c_void_p]
lib.nfs_parse_url_dir.restype = ctypes.POINTER(Url)
lib.nfs_parse_url_dir.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
lib.nfs_mount.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
for name, n in [("nfs_rename", 2), ("nfs_mkdir", 1), ("nfs_rmdir", 1), ("nfs_unlink", 1)]:
    getattr(lib, name).argtypes = [ctypes.c_void_p] + [ctypes.c_char_p] * n
nfs = lib.nfs_init_context()
url = lib.nfs_parse_url_dir(nfs, sys.argv[1].encode())
if not url:
    sys.exit("bad url: %s" % lib.nfs_get_error(nfs).decode())
if lib.nfs_mount(nfs, url.contents.server, url.contents.path) != 0:
    sys.exit("mount: %s" % lib.nfs_get_error(nfs).decode())
op, args = sys.argv[2], [a.encode() for a in sys.argv[3:]]
if getattr(lib, "nfs_" + op)(nfs, *args) != 0:
    sys.exit("%s: %s" % (op, lib.nfs_get_error(nfs).decode()))
"#;

/// One libnfs call (`rename FROM TO`, `mkdir PATH`, `unlink PATH`…) on the export `/`.
fn libnfs(port: u16, op: &[&str]) -> Output {
    Command::new("python3")
        .arg("-c")
        .arg(LIBNFS_CALL)
        .arg(url(port, "/"))
        .args(op)
        .output()
        .unwrap()
}

/// A file over REST: its status and bytes.
fn rest_file(server: &Server, path: &str) -> (u16, Vec<u8>) {
    match ureq::get(&format!("{}/file?path={path}", server.base)).call() {
        Ok(r) => {
            let status = r.status();
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut r.into_reader(), &mut bytes).unwrap();
            (status, bytes)
        }
        Err(ureq::Error::Status(status, _)) => (status, Vec::new()),
        Err(e) => panic!("GET {path}: {e}"),
    }
}

/// The history once the quiet period (`quire_nfs::QUIET`, 300 ms) has passed: a second
/// commit of a file already committed at the client's COMMIT would show now.
fn after_quiet(root: &Path) -> Vec<String> {
    std::thread::sleep(Duration::from_millis(800));
    git_log(root)
}

#[test]
fn libnfs_clients_list_read_and_copy_in_and_out() {
    if !clients_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = seeded(dir.path(), "kb", "");
    let (server, port) = start(&root);

    // Listings: the export root, a subfolder through the root, a subfolder mounted itself.
    let listing = text(&ok("nfs-ls", &[&url(port, "/")]));
    for name in ["index.md", "notes", "assets"] {
        assert!(listing.contains(name), "{listing}");
    }
    let notes = text(&ok("nfs-ls", &[&url(port, "/notes")]));
    for name in ["a.md", "b.md", "deep"] {
        assert!(notes.contains(name), "{notes}");
    }
    let deep = text(&ok("nfs-ls", &[&url(port, "/notes/deep")]));
    assert!(deep.contains("c.md"), "{deep}");

    // Reading a page.
    let a = ok("nfs-cat", &[&url(port, "/notes/a.md")]);
    assert_eq!(a, std::fs::read(root.join("notes/a.md")).unwrap());

    // A copy in: one commit, by `nfs`, over REST and in HEAD as soon as `nfs-cp` returns
    // (its COMMIT at close commits the file before it is answered).
    let before = git_log(&root).len();
    let local = dir.path().join("new.md");
    let page = b"# New\n\nWritten over NFS, linking [[a]].\n".repeat(50);
    std::fs::write(&local, &page).unwrap();
    ok(
        "nfs-cp",
        &[local.to_str().unwrap(), &url(port, "/notes/new.md")],
    );
    assert_eq!(rest_file(&server, "notes/new.md"), (200, page.clone()));
    let after = git_log(&root);
    assert_eq!(after.len(), before + 1, "committed at once: {after:?}");
    assert!(after[0].starts_with("nfs\t"), "{after:?}");
    let after = after_quiet(&root);
    assert_eq!(after.len(), before + 1, "exactly one commit: {after:?}");

    // A 3 MB binary in (three WRITEs of 1 MiB): one commit, at once, byte-identical.
    let big = blob(3 << 20).into_iter().rev().collect::<Vec<u8>>();
    let local_big = dir.path().join("in.bin");
    std::fs::write(&local_big, &big).unwrap();
    ok(
        "nfs-cp",
        &[local_big.to_str().unwrap(), &url(port, "/assets/in.bin")],
    );
    assert_eq!(git_log(&root).len(), before + 2, "committed at once");
    assert_eq!(rest_file(&server, "assets/in.bin"), (200, big.clone()));
    let after_big = after_quiet(&root);
    assert_eq!(after_big.len(), before + 2, "one commit: {after_big:?}");
    assert_eq!(std::fs::read(root.join("assets/in.bin")).unwrap(), big);

    // Copies out, byte-identical: a page and the 2 MB asset.
    for (remote, on_disk) in [
        ("/notes/b.md", "notes/b.md"),
        ("/assets/blob.bin", "assets/blob.bin"),
        ("/assets/in.bin", "assets/in.bin"),
    ] {
        let out = dir.path().join("out");
        let _ = std::fs::remove_file(&out);
        ok("nfs-cp", &[&url(port, remote), out.to_str().unwrap()]);
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(root.join(on_disk)).unwrap(),
            "{remote}"
        );
    }

    // nfs-cp creates GUARDED: over an existing file it fails, and nothing changes.
    let out = run(
        "nfs-cp",
        &[local.to_str().unwrap(), &url(port, "/notes/b.md")],
    );
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("EXIST"), "{}", text(&out.stderr));
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(git_log(&root).len(), before + 2);
}

#[test]
fn a_rename_over_nfs_rewrites_links_exactly_as_post_rename() {
    if !clients_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let over_nfs = seeded(dir.path(), "nfs", "actor = \"scripts\"\n");
    let over_rest = seeded(dir.path(), "rest", "");
    let (_nfs_server, port) = start(&over_nfs);
    let rest = Server::start(&over_rest, &["--no-mcp"]);
    // A page, then a folder.
    for op in [
        ["rename", "/notes/b.md", "/notes/deep/bee.md"],
        ["rename", "/notes/deep", "/moved"],
    ] {
        let out = libnfs(port, &op);
        assert!(out.status.success(), "{op:?}: {}", text(&out.stderr));
    }
    let post = |route: &str, body: &str| {
        let r = ureq::post(&format!("{}/{route}", rest.base))
            .set("content-type", "application/json")
            .send_string(body);
        assert_eq!(status_of(r), 200, "{route}");
    };
    post(
        "rename",
        r#"{"from":"notes/b.md","to":"notes/deep/bee.md"}"#,
    );
    post("rename-dir", r#"{"from":"notes/deep","to":"moved"}"#);
    let (nfs_tree, rest_tree) = (tree(&over_nfs), tree(&over_rest));
    assert_eq!(nfs_tree, rest_tree);
    let a = String::from_utf8(nfs_tree["notes/a.md"].clone()).unwrap();
    assert!(a.contains("../moved/bee.md"), "{a}");
    let history = git_log(&over_nfs);
    assert!(
        history[0].starts_with("scripts\t") && history[1].starts_with("scripts\t"),
        "one commit per rename, by the configured actor: {history:?}"
    );
    // The renamed file reads at its new path; mkdir and unlink go through the layer too.
    let moved = ok("nfs-cat", &[&url(port, "/moved/bee.md")]);
    assert_eq!(moved, std::fs::read(over_nfs.join("moved/bee.md")).unwrap());
    assert!(libnfs(port, &["mkdir", "/made"]).status.success());
    assert!(over_nfs.join("made").is_dir());
    assert!(libnfs(port, &["unlink", "/index.md"]).status.success());
    assert!(!over_nfs.join("index.md").exists());
    assert!(git_log(&over_nfs)[0].starts_with("scripts\t"));
}

#[test]
fn a_read_only_nfs_export_refuses_writes() {
    if !clients_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = seeded(dir.path(), "kb", "read_only = true\n");
    let (_server, port) = start(&root);
    let before = git_log(&root);
    let local = dir.path().join("x.md");
    std::fs::write(&local, "# X\n").unwrap();
    let out = run(
        "nfs-cp",
        &[local.to_str().unwrap(), &url(port, "/notes/x.md")],
    );
    assert!(!out.status.success(), "a write was accepted");
    assert!(text(&out.stderr).contains("ROFS"), "{}", text(&out.stderr));
    for op in [
        &["rename", "/notes/a.md", "/notes/z.md"][..],
        &["mkdir", "/made"],
        &["unlink", "/index.md"],
    ] {
        let out = libnfs(port, op);
        assert!(!out.status.success(), "{op:?} was accepted");
        assert!(text(&out.stderr).contains("ROFS"), "{}", text(&out.stderr));
    }
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(git_log(&root), before, "nothing was committed");
    assert!(!root.join("notes/x.md").exists());
    // Reads still work.
    let a = ok("nfs-cat", &[&url(port, "/notes/a.md")]);
    assert_eq!(a, std::fs::read(root.join("notes/a.md")).unwrap());
}

#[test]
fn nfs_refuses_to_start_on_a_taken_port_or_an_open_host() {
    let dir = tempfile::tempdir().unwrap();
    let root = seeded(dir.path(), "kb", "");
    let (server, port) = start(&root);
    // `/readyz` reports the protocol.
    let ready: serde_json::Value = ureq::get(&format!("{}/readyz", server.host))
        .call()
        .unwrap()
        .into_json()
        .unwrap();
    let nfs = &ready["protocols"]["nfs"];
    assert_eq!(nfs["enabled"], true, "{ready}");
    assert_eq!(nfs["healthy"], true, "{ready}");
    assert_eq!(nfs["port"], port, "{ready}");
    assert!(nfs["error"].is_null(), "{ready}");

    // Another root configured on the port the first server holds.
    let other = seeded(dir.path(), "other", "");
    let config = std::fs::read_to_string(other.join(".quire/config.toml")).unwrap();
    write_config(
        &other,
        &config.replace("port = 0", &format!("port = {port}")),
    );
    let out = serve_refused(&other, &["--no-mcp"]);
    let said = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        said.contains("NFS") && said.contains(&port.to_string()),
        "{said}"
    );

    // A host others can reach, without allow_remote: refused, naming the setting.
    let open = seeded(dir.path(), "open", "");
    let config = std::fs::read_to_string(open.join(".quire/config.toml")).unwrap();
    write_config(&open, &format!("[server]\nhost = \"0.0.0.0\"\n{config}"));
    let out = serve_refused(&open, &["--no-mcp"]);
    let said = text(&out.stderr);
    assert!(!out.status.success());
    assert!(said.contains("protocols.nfs.allow_remote"), "{said}");
    assert!(!said.contains("panicked"), "{said}");
    // With allow_remote = true it starts.
    write_config(
        &open,
        &format!("[server]\nhost = \"0.0.0.0\"\n{config}allow_remote = true\n"),
    );
    let (_open_server, open_port) = start(&open);
    assert_ne!(open_port, 0);
}
