//! WebDAV against the real binary: the `litmus` conformance suite and `rclone` (Debian
//! packages) as clients, renames that rewrite links exactly as `POST /rename` does, HTTP Basic
//! with API keys, editors' save dances as one clean write, `/readyz`, and a port already taken.
//!
//! The tests that need litmus or rclone skip, saying why, when the tool is missing — unless
//! `QUIRE_REQUIRE_WEBDAV_CLIENTS` is set: `.ci/run` installs both and sets it.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::{
    clients_present, git_log, quire, serve_refused, status_of, text, tree, write_config, Server,
};

const WRITER_KEY: &str = "writer-key-0123";
const READER_KEY: &str = "reader-key-0123";

/// API keys: an admin, a writer named alice, a reader; commits each write at once.
const AUTH: &str = "[versioning]\nasync_commit = false\n\
    [auth]\ntype = \"apikey\"\napi_key = \"admin-key-0123\"\n\
    [[auth.api_keys]]\nkey = \"writer-key-0123\"\nscope = \"write\"\nactor = \"alice\"\n\
    [[auth.api_keys]]\nkey = \"reader-key-0123\"\nscope = \"read\"\n";

/// Whether `tool` runs; `false` (with a message) when the test is skipped.
fn client_available(tool: &str) -> bool {
    let problem =
        Command::new(tool).arg("--version").output().err().map(|e| {
            format!("{tool} does not run ({e}); install it with `apt-get install {tool}`")
        });
    clients_present("QUIRE_REQUIRE_WEBDAV_CLIENTS", problem)
}

/// A root with linked pages: `notes/a.md` links to `notes/b.md` both ways a page can.
fn seeded(dir: &Path, name: &str, config: &str) -> PathBuf {
    let root = dir.join(name);
    std::fs::create_dir_all(root.join("notes/deep")).unwrap();
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
    let out = quire().arg("init").arg(&root).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Only these settings: the rest are the defaults.
    write_config(
        &root,
        &format!("[protocols.webdav]\nenabled = true\nport = 0\n{config}"),
    );
    root
}

/// A server with WebDAV on, and the WebDAV address (`http://127.0.0.1:PORT`).
fn start(root: &Path) -> (Server, String) {
    let server = Server::start(root, &["--no-mcp"]);
    let url = server.listening("WebDAV");
    (server, url)
}

fn basic(key: &str) -> String {
    // "alice:<key>" in base64, without a crate for it.
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let input = format!("alice:{key}").into_bytes();
    let mut out = String::new();
    for chunk in input.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    format!("Basic {out}")
}

/// One WebDAV request: status and body.
fn dav(
    method: &str,
    url: &str,
    key: Option<&str>,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String, Option<String>) {
    let mut request = ureq::request(method, url);
    if let Some(key) = key {
        request = request.set("authorization", &basic(key));
    }
    for (k, v) in headers {
        request = request.set(k, v);
    }
    let result = if body.is_empty() && method != "PUT" {
        request.call()
    } else {
        request.send_bytes(body)
    };
    match result {
        Ok(r) => {
            let status = r.status();
            let challenge = r.header("www-authenticate").map(str::to_string);
            (status, r.into_string().unwrap_or_default(), challenge)
        }
        Err(ureq::Error::Status(status, r)) => {
            let challenge = r.header("www-authenticate").map(str::to_string);
            (status, r.into_string().unwrap_or_default(), challenge)
        }
        Err(e) => panic!("{method} {url}: {e}"),
    }
}

/// Files git tracks in HEAD.
fn tracked(root: &Path) -> Vec<String> {
    let out = Command::new("git")
        .args(["ls-files"])
        .current_dir(root)
        .output()
        .unwrap();
    text(&out.stdout).lines().map(str::to_string).collect()
}

#[test]
fn litmus_passes_basic_copymove_props_locks_and_http_with_an_api_key() {
    if !client_available("litmus") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = seeded(dir.path(), "kb", AUTH);
    let (_server, dav_url) = start(&root);
    let out = Command::new("litmus")
        .arg(format!("{dav_url}/"))
        .arg("alice")
        .arg(WRITER_KEY)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let report = text(&out.stdout);
    for suite in ["basic", "copymove", "props", "locks", "http"] {
        assert!(
            report.contains(&format!("<- summary for `{suite}'")),
            "litmus did not run {suite}:\n{report}"
        );
    }
    assert!(
        out.status.success(),
        "litmus failed:\n{report}\n{}",
        text(&out.stderr)
    );
    assert!(!report.contains("FAIL"), "{report}");
    // Everything litmus wrote went through the pipeline as alice, and it cleaned up.
    assert!(git_log(&root).iter().any(|l| l.starts_with("alice\t")));
    assert!(
        !tree(&root).keys().any(|p| p.starts_with("litmus")),
        "{:?}",
        tree(&root).keys()
    );
}

#[test]
fn rclone_copies_a_folder_in_and_out_and_its_moves_keep_links() {
    if !client_available("rclone") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = seeded(dir.path(), "kb", AUTH);
    let (server, dav_url) = start(&root);
    let obscured = Command::new("rclone")
        .args(["obscure", WRITER_KEY])
        .output()
        .unwrap();
    let remote = format!(
        ":webdav,url='{dav_url}',vendor=other,user=alice,pass={}:",
        text(&obscured.stdout).trim()
    );
    let rclone = |args: &[&str]| {
        let out = Command::new("rclone")
            .args(args)
            .args([
                "--config",
                "/dev/null",
                "--retries",
                "1",
                "--low-level-retries",
                "1",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "rclone {args:?}: {}",
            text(&out.stderr)
        );
        text(&out.stdout)
    };
    // In: a folder of pages and an asset.
    let local = dir.path().join("local");
    std::fs::create_dir_all(local.join("sub")).unwrap();
    for i in 0..20 {
        std::fs::write(
            local.join(format!("p{i:02}.md")),
            format!("# P{i}\n\n[[p00]]\n"),
        )
        .unwrap();
    }
    std::fs::write(local.join("sub/pic.bin"), vec![7u8; 300_000]).unwrap();
    rclone(&[
        "copy",
        local.to_str().unwrap(),
        &format!("{remote}imported"),
    ]);
    let listed = rclone(&["lsf", "-R", &format!("{remote}imported")]);
    assert!(
        listed.contains("p19.md") && listed.contains("sub/pic.bin"),
        "{listed}"
    );
    // Visible over REST at once.
    let page = ureq::get(&format!("{}/file?path=imported/p07.md", server.base))
        .set("authorization", &format!("Bearer {READER_KEY}"))
        .call()
        .unwrap()
        .into_string()
        .unwrap();
    assert_eq!(page, "# P7\n\n[[p00]]\n");
    // Out: byte for byte.
    let back = dir.path().join("back");
    rclone(&["copy", &format!("{remote}imported"), back.to_str().unwrap()]);
    assert_eq!(tree(&local), tree(&back));
    // A server-side move (WebDAV MOVE) rewrites the links to the page.
    rclone(&[
        "moveto",
        &format!("{remote}notes/b.md"),
        &format!("{remote}archive/b.md"),
    ]);
    let a = std::fs::read_to_string(root.join("notes/a.md")).unwrap();
    assert!(a.contains("[the b page](../archive/b.md)"), "{a}");
    assert!(!root.join("notes/b.md").exists());
    assert!(
        git_log(&root)[0].starts_with("alice\tRename notes/b.md"),
        "{:?}",
        git_log(&root)
    );
}

#[test]
fn a_rename_over_webdav_rewrites_links_exactly_as_post_rename() {
    let dir = tempfile::tempdir().unwrap();
    let over_dav = seeded(dir.path(), "dav", "");
    let over_rest = seeded(dir.path(), "rest", "");
    let (_dav_server, dav_url) = start(&over_dav);
    let rest = Server::start(&over_rest, &["--no-mcp"]);
    // A page, then a folder.
    let (status, _, _) = dav(
        "MOVE",
        &format!("{dav_url}/notes/b.md"),
        None,
        &[("Destination", &format!("{dav_url}/notes/deep/bee.md"))],
        b"",
    );
    assert_eq!(status, 201);
    let (status, _, _) = dav(
        "MOVE",
        &format!("{dav_url}/notes/deep"),
        None,
        &[("Destination", &format!("{dav_url}/moved"))],
        b"",
    );
    assert_eq!(status, 201);
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
    let (dav_tree, rest_tree) = (tree(&over_dav), tree(&over_rest));
    assert_eq!(dav_tree, rest_tree);
    let a = String::from_utf8(dav_tree["notes/a.md"].clone()).unwrap();
    assert!(a.contains("../moved/bee.md"), "{a}");
    // The folder a move emptied stays a folder, as it does on a disk.
    assert!(over_dav.join("notes").is_dir());
}

#[test]
fn basic_credentials_carry_the_key_and_its_scope() {
    let dir = tempfile::tempdir().unwrap();
    let root = seeded(dir.path(), "kb", AUTH);
    let (server, dav_url) = start(&root);
    let url = format!("{dav_url}/notes/new.md");
    // No credentials, a wrong key: 401 asking for Basic.
    for key in [None, Some("wrong-key-0000")] {
        let (status, _, challenge) = dav(
            "PROPFIND",
            &format!("{dav_url}/"),
            key,
            &[("Depth", "1")],
            b"",
        );
        assert_eq!(status, 401, "{key:?}");
        assert!(
            challenge.unwrap_or_default().starts_with("Basic"),
            "{key:?}"
        );
    }
    // A read key lists and reads, and writes nothing.
    let (status, listing, _) = dav(
        "PROPFIND",
        &format!("{dav_url}/notes/"),
        Some(READER_KEY),
        &[("Depth", "1")],
        b"",
    );
    assert_eq!(status, 207);
    assert!(listing.contains("/notes/a.md"), "{listing}");
    for (method, target) in [
        ("PUT", url.as_str()),
        ("DELETE", &format!("{dav_url}/notes/a.md")),
        ("MKCOL", &format!("{dav_url}/x")),
    ] {
        let (status, _, _) = dav(method, target, Some(READER_KEY), &[], b"# no\n");
        assert_eq!(status, 403, "{method}");
    }
    assert!(!root.join("notes/new.md").exists() && !root.join("x").exists());
    assert!(root.join("notes/a.md").exists());
    // A write key writes as its actor; the page reads back over REST at once.
    let before = git_log(&root).len();
    let (status, _, _) = dav("PUT", &url, Some(WRITER_KEY), &[], b"# New\n");
    assert_eq!(status, 201);
    assert_eq!(git_log(&root).len(), before + 1);
    assert!(
        git_log(&root)[0].starts_with("alice\t"),
        "{:?}",
        git_log(&root)
    );
    let page = ureq::get(&format!("{}/file?path=notes/new.md", server.base))
        .set("authorization", &format!("Bearer {READER_KEY}"))
        .call()
        .unwrap()
        .into_string()
        .unwrap();
    assert_eq!(page, "# New\n");
    // A PUT into a missing folder is 409; nothing written.
    let (status, _, _) = dav(
        "PUT",
        &format!("{dav_url}/nowhere/x.md"),
        Some(WRITER_KEY),
        &[],
        b"x",
    );
    assert_eq!(status, 409);
    assert!(!root.join("nowhere").exists());
    // The server's own files are out of reach.
    let (status, _, _) = dav(
        "GET",
        &format!("{dav_url}/.quire/config.toml"),
        Some(READER_KEY),
        &[],
        b"",
    );
    assert_eq!(status, 404);
    let (status, _, _) = dav(
        "PUT",
        &format!("{dav_url}/.git/config"),
        Some(WRITER_KEY),
        &[],
        b"x",
    );
    assert!(status == 403 || status == 409, "{status}");
}

#[test]
fn an_editors_save_dance_is_one_clean_write_of_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let root = seeded(dir.path(), "kb", "[versioning]\nasync_commit = false\n");
    let (_server, dav_url) = start(&root);
    let page = format!("{dav_url}/notes/b.md");
    let before = git_log(&root).len();
    // Finder: ._ and .DS_Store beside the page; a temp file saved, then moved over the page.
    for (path, body) in [
        ("notes/._b.md", "mac"),
        ("notes/.DS_Store", "mac"),
        ("notes/b.md.tmp", "# B\n\nSaved once.\n"),
    ] {
        let (status, _, _) = dav(
            "PUT",
            &format!("{dav_url}/{path}"),
            None,
            &[],
            body.as_bytes(),
        );
        assert_eq!(status, 201, "{path}");
    }
    let (status, _, _) = dav(
        "MOVE",
        &format!("{dav_url}/notes/b.md.tmp"),
        None,
        &[("Destination", &page), ("Overwrite", "T")],
        b"",
    );
    assert!(status == 201 || status == 204, "{status}");
    assert_eq!(
        std::fs::read_to_string(root.join("notes/b.md")).unwrap(),
        "# B\n\nSaved once.\n"
    );
    assert_eq!(git_log(&root).len(), before + 1, "{:?}", git_log(&root));
    // The scratch files list and read like files, and are never committed or written to disk.
    let (status, listing, _) = dav(
        "PROPFIND",
        &format!("{dav_url}/notes/"),
        None,
        &[("Depth", "1")],
        b"",
    );
    assert_eq!(status, 207);
    assert!(
        listing.contains("._b.md") && listing.contains(".DS_Store"),
        "{listing}"
    );
    assert_eq!(
        dav("GET", &format!("{dav_url}/notes/._b.md"), None, &[], b"").1,
        "mac"
    );
    assert!(!root.join("notes/._b.md").exists() && !root.join("notes/b.md.tmp").exists());
    // Vim with a backup: the page moved aside, written anew, the backup deleted.
    let (status, _, _) = dav(
        "MOVE",
        &page,
        None,
        &[("Destination", &format!("{page}~"))],
        b"",
    );
    assert_eq!(status, 201);
    assert_eq!(
        dav("GET", &page, None, &[], b"").0,
        404,
        "set aside looks gone"
    );
    // Created, as the client sees it (the page was out of the way); one update in git.
    assert_eq!(
        dav("PUT", &page, None, &[], b"# B\n\nSaved twice.\n").0,
        201
    );
    assert_eq!(dav("DELETE", &format!("{page}~"), None, &[], b"").0, 204);
    assert_eq!(git_log(&root).len(), before + 2, "{:?}", git_log(&root));
    assert!(
        git_log(&root)[0].contains("notes/b.md"),
        "{:?}",
        git_log(&root)
    );
    let files = tracked(&root);
    assert!(files.contains(&"notes/b.md".to_string()), "{files:?}");
    assert!(
        !files.iter().any(|f| f.contains("._")
            || f.contains("DS_Store")
            || f.ends_with('~')
            || f.ends_with(".tmp")),
        "{files:?}"
    );
}

#[test]
fn readyz_reports_webdav_and_a_taken_port_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let root = seeded(dir.path(), "kb", "");
    let (server, dav_url) = start(&root);
    let port: u16 = dav_url.rsplit(':').next().unwrap().parse().unwrap();
    let ready: serde_json::Value = ureq::get(&format!("{}/readyz", server.host))
        .call()
        .unwrap()
        .into_json()
        .unwrap();
    let webdav = &ready["protocols"]["webdav"];
    assert_eq!(webdav["enabled"], true, "{ready}");
    assert_eq!(webdav["healthy"], true, "{ready}");
    assert_eq!(webdav["port"], port, "{ready}");
    assert!(webdav["error"].is_null(), "{ready}");
    // A second root configured on the port the first server holds.
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
        said.contains("WebDAV") && said.contains(&port.to_string()),
        "{said}"
    );
}

#[test]
fn other_spaces_are_folders_at_the_top_and_a_key_for_one_space_sees_only_it() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("plan.md"), "# Plan\n").unwrap();
    let root = seeded(
        dir.path(),
        "kb",
        &format!(
            "[versioning]\nasync_commit = false\n\
             [auth]\ntype = \"apikey\"\napi_key = \"admin-key-0123\"\n\
             [[auth.api_keys]]\nkey = \"work-key-0123\"\nscope = \"write\"\nspace = \"work\"\n\
             [[spaces]]\nname = \"work\"\nroot = {:?}\n",
            work.to_str().unwrap()
        ),
    );
    let (_server, dav_url) = start(&root);
    let admin = Some("admin-key-0123");
    let (status, listing, _) = dav(
        "PROPFIND",
        &format!("{dav_url}/"),
        admin,
        &[("Depth", "1")],
        b"",
    );
    assert_eq!(status, 207);
    assert!(listing.contains("<D:href>/work/</D:href>"), "{listing}");
    assert!(listing.contains("/notes/"), "{listing}");
    assert_eq!(
        dav("GET", &format!("{dav_url}/work/plan.md"), admin, &[], b"").1,
        "# Plan\n"
    );
    // A key for the work space writes there, and nowhere else.
    let key = Some("work-key-0123");
    assert_eq!(
        dav(
            "PUT",
            &format!("{dav_url}/work/new.md"),
            key,
            &[],
            b"# New\n"
        )
        .0,
        201
    );
    assert_eq!(
        std::fs::read_to_string(work.join("new.md")).unwrap(),
        "# New\n"
    );
    assert_eq!(
        dav("GET", &format!("{dav_url}/notes/a.md"), key, &[], b"").0,
        403
    );
    assert_eq!(
        dav("PUT", &format!("{dav_url}/notes/x.md"), key, &[], b"x").0,
        403
    );
    assert!(!root.join("notes/x.md").exists());
    // Between spaces is between repositories: no move.
    let (status, _, _) = dav(
        "MOVE",
        &format!("{dav_url}/work/plan.md"),
        admin,
        &[("Destination", &format!("{dav_url}/notes/plan.md"))],
        b"",
    );
    assert!(status >= 400, "{status}");
    assert!(work.join("plan.md").exists() && !root.join("notes/plan.md").exists());
}
