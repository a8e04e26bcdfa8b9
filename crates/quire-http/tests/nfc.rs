//! Pages whose file names are not NFC on disk (macOS, sync tools): addressed by their NFC path
//! in every API, written in place, committed under their real name, seen by the link model
//! and the planner; names differing only by normalization are both kept and reported.

mod support;

use axum::http::Method;
use serde_json::{json, Value};
use support::{enc, TestServer};

/// `café.md` with a precomposed `é` (NFC) and with `e` + combining acute (NFD).
const NFC: &str = "caf\u{e9}.md";
const NFD: &str = "cafe\u{301}.md";

fn server(files: &[(&str, &str)]) -> TestServer {
    TestServer::with(support::sync_git(), Default::default(), files)
}

/// The names in the root folder as they are on disk, hidden ones left out.
fn names_on_disk(s: &TestServer) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(s.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    names
}

/// Every file name in HEAD's tree, with its folder.
fn head_names(s: &TestServer) -> Vec<String> {
    let repo = s.repo();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    let mut names = Vec::new();
    tree.walk(git2::TreeWalkMode::PreOrder, |folder, entry| {
        if entry.kind() == Some(git2::ObjectType::Blob) && !folder.starts_with(".quire") {
            names.push(format!("{folder}{}", entry.name().unwrap()));
        }
        git2::TreeWalkResult::Ok
    })
    .unwrap();
    names.sort();
    names
}

async fn plan(s: &TestServer, manifest: Value) -> Value {
    let r = s.post_json("/api/quire/refactor/plan", manifest).await;
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

async fn read(s: &TestServer, path: &str) -> support::Reply {
    s.get(&format!("/api/quire/file?path={}", enc(path))).await
}

#[tokio::test]
async fn an_nfd_named_page_is_listed_in_the_tree_under_its_nfc_path_and_reads_back() {
    let s = server(&[(NFD, "# Café\n")]);
    let tree = s.get("/api/quire/tree").await.json();
    let node = &tree.as_array().unwrap()[0];
    assert_eq!(node["path"], NFC);
    assert_eq!(node["name"], NFC);
    let r = read(&s, node["path"].as_str().unwrap()).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.text(), "# Café\n");
}

#[tokio::test]
async fn put_to_the_nfc_path_updates_the_nfd_file_in_place_as_one_commit() {
    let s = server(&[(NFD, "# Café\n")]);
    let commits = s.commit_count();
    let r = s.put(NFC, "# Café\n\nMore.\n", "alice").await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["created"], false);
    assert_eq!(r.json()["path"], NFC);
    assert_eq!(names_on_disk(&s), [NFD], "still one file, with its name");
    assert_eq!(s.disk(NFD).unwrap(), "# Café\n\nMore.\n");
    assert_eq!(s.commit_count(), commits + 1);
    assert_eq!(head_names(&s), [NFD], "git holds the name on disk only");
    s.assert_clean();

    let versions = s
        .get(&format!("/api/quire/versions?path={}", enc(NFC)))
        .await
        .json();
    let versions = versions.as_array().unwrap();
    assert_eq!(versions.len(), 2, "the import and the update: {versions:?}");
    assert_eq!(versions[0]["author"], "alice");

    let r = s
        .call(
            Method::DELETE,
            &format!("/api/quire/file?path={}", enc(NFC)),
            &[],
            "",
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(names_on_disk(&s).is_empty());
    assert!(head_names(&s).is_empty());
    s.assert_clean();
}

#[tokio::test]
async fn links_of_an_nfd_named_page_are_rewritten_when_their_target_moves() {
    let s = server(&[
        (NFD, "See [[target]] and [T](target.md).\n"),
        ("target.md", "# Target\n"),
    ]);
    let r = s
        .post_json(
            "/api/quire/rename",
            json!({"from": "target.md", "to": "archive/target.md"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["updated_links"], 1, "{}", r.text());
    assert_eq!(
        s.disk(NFD).unwrap(),
        "See [[target]] and [T](archive/target.md).\n"
    );
    assert_eq!(names_on_disk(&s), ["archive", NFD]);
    assert_eq!(head_names(&s), ["archive/target.md", NFD]);
    s.assert_clean();
}

#[tokio::test]
async fn a_restructuring_moves_an_nfd_named_page_and_revert_brings_it_back() {
    let s = server(&[
        (NFD, "# Café\n"),
        ("index.md", "Go to [Café](caf%C3%A9.md).\n"),
    ]);
    let manifest = json!({"moves": [{"from": NFC, "to": "archive/café.md"}]});
    let r = s
        .post_json("/api/quire/refactor/apply", json!({"manifest": manifest}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let commit = r.json()["applied"]["commit"].as_str().unwrap().to_string();
    assert_eq!(names_on_disk(&s), ["archive", "index.md"]);
    assert_eq!(s.disk("archive/café.md").unwrap(), "# Café\n");
    assert_eq!(
        s.disk("index.md").unwrap(),
        "Go to [Café](archive/café.md).\n"
    );
    assert_eq!(head_names(&s), ["archive/café.md", "index.md"]);
    s.assert_clean();

    let r = s
        .post_json("/api/quire/refactor/revert", json!({"commit": commit}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let back = read(&s, NFC).await;
    assert_eq!(back.status, 200);
    assert_eq!(back.text(), "# Café\n");
    assert_eq!(s.disk("index.md").unwrap(), "Go to [Café](caf%C3%A9.md).\n");
    assert!(s.disk("archive/café.md").is_none());
    s.assert_clean();
}

#[tokio::test]
async fn revert_of_an_edit_to_an_nfd_named_page_restores_it_in_place() {
    let s = server(&[(NFD, "one\n")]);
    let commit = s.put(NFC, "two\n", "alice").await.json()["commit"]
        .as_str()
        .unwrap()
        .to_string();
    let r = s
        .post_json("/api/quire/refactor/revert", json!({"commit": commit}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(names_on_disk(&s), [NFD]);
    assert_eq!(s.disk(NFD).unwrap(), "one\n");
    assert_eq!(head_names(&s), [NFD]);
    s.assert_clean();
}

#[tokio::test]
async fn moving_another_page_onto_the_nfc_name_of_an_nfd_page_is_a_normalization_conflict() {
    let s = server(&[(NFD, "# Café\n"), ("other.md", "# Other\n")]);
    for to in [NFC, NFD] {
        let plan = plan(&s, json!({"moves": [{"from": "other.md", "to": to}]})).await;
        let conflicts = plan["conflicts"].as_array().unwrap();
        assert_eq!(conflicts.len(), 1, "{plan}");
        assert_eq!(conflicts[0]["code"], "case_or_normalization", "{plan}");
        assert!(!plan["errors"].as_array().unwrap().is_empty(), "{plan}");
    }
    let r = s
        .post_json(
            "/api/quire/refactor/apply",
            json!({"manifest": {"moves": [{"from": "other.md", "to": NFC}]}}),
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert_eq!(names_on_disk(&s), [NFD, "other.md"]);
}

#[tokio::test]
async fn names_differing_only_by_normalization_are_both_kept_and_reported() {
    let s = server(&[
        (NFC, "composed [[other]]\n"),
        (NFD, "decomposed\n"),
        ("other.md", "# Other\n"),
        ("x.md", "# X\n"),
    ]);
    let space = s.service.default_space().clone();
    assert_eq!(space.disk_names().shadowed.len(), 1);
    assert_eq!(head_names(&s), [NFD, NFC, "other.md", "x.md"]);

    // The path addresses the file spelled exactly like it.
    let tree = s.get("/api/quire/tree").await.json();
    let listed: Vec<&str> = tree
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["path"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [NFC, "other.md", "x.md"]);
    assert_eq!(read(&s, NFC).await.text(), "composed [[other]]\n");
    let r = s.put(NFC, "composed, edited [[other]]\n", "alice").await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(s.disk(NFD).unwrap(), "decomposed\n");

    // Every plan notes the shadowed file, deterministically.
    let manifest = json!({"moves": [{"from": "other.md", "to": "archive/other.md"}]});
    let first = plan(&s, manifest.clone()).await;
    let notes = first["integrity"]["normalization"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{first}");
    let note = notes[0].as_str().unwrap();
    assert!(note.contains("cafe\\u{301}.md"), "{note}");
    assert_eq!(plan(&s, manifest.clone()).await["digest"], first["digest"]);
    // Applying it leaves the shadowed file alone.
    let r = s
        .post_json("/api/quire/refactor/apply", json!({"manifest": manifest}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        s.disk(NFC).unwrap(),
        "composed, edited [[other]]\n",
        "a wiki link by name still resolves; nothing to rewrite"
    );
    assert_eq!(s.disk(NFD).unwrap(), "decomposed\n");

    // A destination on the shadowed name is refused.
    let refused = plan(&s, json!({"moves": [{"from": "x.md", "to": NFC}]})).await;
    assert_eq!(refused["conflicts"][0]["code"], "case_or_normalization");

    // Deleting the addressed file leaves the other one, which the path now reaches.
    let r = s
        .call(
            Method::DELETE,
            &format!("/api/quire/file?path={}", enc(NFC)),
            &[],
            "",
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(names_on_disk(&s), ["archive", NFD, "x.md"]);
    assert_eq!(read(&s, NFC).await.text(), "decomposed\n");
    assert!(space.disk_names().shadowed.is_empty());
    let r = s
        .post_json("/api/quire/resolve-links", json!({"links": ["café"]}))
        .await;
    assert_eq!(r.json()["resolved"]["café"]["path"], NFC, "{}", r.text());
    let later = plan(&s, json!({"moves": [{"from": "x.md", "to": "y.md"}]})).await;
    assert!(later["integrity"].get("normalization").is_none(), "{later}");
    s.assert_clean();
}
