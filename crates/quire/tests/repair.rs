//! Repairing what was moved without relinking, with the real binary: a `mv` in a shell while
//! the server runs, and a rename with `relink: false`, each repaired by the raw-moves
//! manifest so that every link that worked before reaches the same page again. And the
//! command line's link health: `quire links broken|orphans`, `quire refactor fix-broken`.

mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::{quire, text, Server};

const PAGES: &[(&str, &str)] = &[
    ("hub.md", "# Hub\n\n## Section\n\nThe centre.\n"),
    (
        "notes/a.md",
        "# A\n\nSee [[hub]], [[hub#Section]] and [the hub](../hub.md).\n",
    ),
    (
        "notes/b.md",
        "# B\n\nBack to [[notes/a]] and [[hub|home]].\n",
    ),
    ("index.md", "# Index\n\n- [[a]]\n- [[b]]\n- [[hub]]\n"),
];

fn put(server: &Server, path: &str, body: &str) {
    let r = ureq::put(&format!("{}/file?path={path}", server.base))
        .set("X-Actor", "alice")
        .send_string(body);
    assert!(r.is_ok(), "PUT {path}: {r:?}");
}

fn get(server: &Server, route: &str) -> Value {
    ureq::get(&format!("{}{route}", server.base))
        .call()
        .unwrap()
        .into_json()
        .unwrap()
}

/// Every resolved link as (source, target), with moved paths mapped back by `renamed`.
fn edges(server: &Server, renamed: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    let back = |p: &str| {
        renamed
            .iter()
            .find(|(_, new)| *new == p)
            .map_or(p.to_string(), |(old, _)| old.to_string())
    };
    get(server, "/graph")["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                back(e["source"].as_str().unwrap()),
                back(e["target"].as_str().unwrap()),
            )
        })
        .collect()
}

fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(15) {
        if check() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{what} did not happen within 15 s");
}

fn serve_pages(root: &Path) -> Server {
    let server = Server::start(root, &["--versioning", "git"]);
    for (path, body) in PAGES {
        put(&server, path, body);
    }
    assert_eq!(get(&server, "/links/broken")["count"], 0);
    server
}

/// Applies the raw-moves manifest and checks that nothing is left to repair.
fn repair(server: &Server) {
    let raw = get(server, "/refactor/raw-moves");
    assert!(raw["manifest"]["relinks"].is_array(), "{raw}");
    let r = ureq::post(&format!("{}/refactor/apply", server.base))
        .set("X-Actor", "fixer")
        .send_json(json!({"manifest": raw["manifest"]}));
    assert!(r.is_ok(), "apply: {r:?}");
    assert_eq!(get(server, "/links/broken")["count"], 0);
    assert_eq!(get(server, "/refactor/raw-moves"), json!({"moves": []}));
}

#[test]
fn a_mv_in_a_shell_is_repaired_by_the_raw_moves_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let server = serve_pages(&root);
    let before = edges(&server, &[]);
    assert!(before.len() >= 4, "{before:?}");

    std::fs::create_dir_all(root.join("archive")).unwrap();
    std::fs::rename(root.join("hub.md"), root.join("archive/centre.md")).unwrap();
    std::fs::rename(root.join("notes/a.md"), root.join("notes/alpha.md")).unwrap();
    eventually("both moves are seen", || {
        get(&server, "/refactor/raw-moves")["moves"]
            .as_array()
            .is_some_and(|m| m.len() == 2)
    });
    let raw = get(&server, "/refactor/raw-moves");
    assert!(raw["moves"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["via"] == "watcher"));
    assert!(get(&server, "/links/broken")["count"].as_u64().unwrap() > 0);

    repair(&server);
    let renamed = [
        ("hub.md", "archive/centre.md"),
        ("notes/a.md", "notes/alpha.md"),
    ];
    assert_eq!(edges(&server, &renamed), before);
    // The fragment and the alias survive the repair.
    let b = std::fs::read_to_string(root.join("notes/b.md")).unwrap();
    assert!(b.contains("|home]]"), "{b}");
    let a = std::fs::read_to_string(root.join("notes/alpha.md")).unwrap();
    assert!(a.contains("#Section]]"), "{a}");
}

#[test]
fn a_rename_that_kept_its_links_is_repaired_by_the_raw_moves_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let server = serve_pages(&root);
    let before = edges(&server, &[]);

    let r = ureq::post(&format!("{}/rename", server.base))
        .send_json(json!({"from": "hub.md", "to": "places/home.md", "relink": false}));
    assert!(r.is_ok(), "rename: {r:?}");
    let raw = get(&server, "/refactor/raw-moves");
    assert_eq!(raw["moves"][0]["via"], "links-kept", "{raw}");
    assert_ne!(edges(&server, &[("hub.md", "places/home.md")]), before);

    repair(&server);
    assert_eq!(edges(&server, &[("hub.md", "places/home.md")]), before);
}

fn root_with_broken_links(dir: &Path) -> std::path::PathBuf {
    let root = dir.join("kb");
    for (path, body) in [
        ("06-notes/alpha.md", "# Alpha\n\nSee [[notes/beta]].\n"),
        ("06-notes/beta.md", "# Beta\n\nBack to [[alpha]].\n"),
        ("a/dup.md", "# Dup\n"),
        ("b/dup.md", "# Dup\n"),
        ("index.md", "[[old/dup]] and [[nowhere]]\n"),
    ] {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, body).unwrap();
    }
    let out = quire().arg("init").arg(&root).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    root
}

#[test]
fn links_broken_lists_each_link_and_exits_1_and_orphans_lists_pages() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_broken_links(dir.path());
    let out = quire()
        .args(["links", "broken", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let listed = text(&out.stdout);
    assert!(
        listed.contains("06-notes/alpha.md:3  [[notes/beta]]  → 06-notes/beta.md"),
        "{listed}"
    );
    assert!(
        listed.contains("index.md:1  [[old/dup]]  (ambiguous: a/dup.md, b/dup.md)"),
        "{listed}"
    );
    assert!(listed.contains("index.md:1  [[nowhere]]\n"), "{listed}");

    let out = quire()
        .args(["links", "broken", "--json", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["count"], 3);

    let out = quire()
        .args(["links", "orphans", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listed = text(&out.stdout);
    assert!(listed.contains("index.md\n"), "{listed}");
    // Reached by beta's [[alpha]]; beta itself only by a broken link.
    assert!(!listed.contains("06-notes/alpha.md"), "{listed}");
    assert!(listed.contains("06-notes/beta.md\n"), "{listed}");
}

#[test]
fn refactor_fix_broken_dry_run_writes_nothing_then_fixes_with_yes() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_broken_links(dir.path());
    let head = || {
        git2::Repository::open(&root)
            .unwrap()
            .head()
            .unwrap()
            .target()
            .unwrap()
    };
    let first = head();
    let out = quire()
        .args(["refactor", "fix-broken", "--dry-run", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(
        shown.contains("06-notes/alpha.md: [[notes/beta]] → [[06-notes/beta]]"),
        "{shown}"
    );
    assert!(
        shown.contains("[[old/dup]] left alone, ambiguous"),
        "{shown}"
    );
    assert!(shown.contains("nothing was written"), "{shown}");
    assert_eq!(head(), first);

    // Without a terminal, only --yes proceeds.
    let out = quire()
        .args(["refactor", "fix-broken", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(head(), first);

    let out = quire()
        .args([
            "refactor",
            "fix-broken",
            "--yes",
            "--actor",
            "fixer",
            "--root",
        ])
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("Fixed 1 links."));
    assert_eq!(
        std::fs::read_to_string(root.join("06-notes/alpha.md")).unwrap(),
        "# Alpha\n\nSee [[06-notes/beta]].\n"
    );
    let repo = git2::Repository::open(&root).unwrap();
    let commit = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(commit.author().name(), Some("fixer"));
    assert_eq!(commit.parent_id(0).unwrap(), first);
}
