//! `POST /import` of an Obsidian vault (a folder, or a zip of one) and of a zipped markdown
//! folder: real files, real git. Every link that reached a file in the vault reaches the same
//! imported page or attachment in quire (rewritten where quire would resolve it elsewhere),
//! attachments come along byte for byte in the pages' commit, `.obsidian/` and `.trash/` stay
//! behind, a re-import writes nothing; a zip bomb and hostile zip entries write nothing.

mod support;

use std::io::Write;
use std::path::Path;

use axum::http::Method;
use serde_json::{json, Value};
use support::{sync_git, TestServer};

/// A PNG header and bytes that are not UTF-8: attachments must come through as bytes.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe\x00\x01binary";
const PDF: &[u8] = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n";

/// The vault: relative path → bytes.
fn vault() -> Vec<(&'static str, Vec<u8>)> {
    let text = |s: &str| s.as_bytes().to_vec();
    vec![
        (
            "Home.md",
            text("---\ntags: [home]\n---\n# Home\n\nSee [[Ideas]], [[projects/Ideas|project ideas]] and [[Plan#Goals]].\n\n![[image.png]]\n\nGone: [[Missing]].\n"),
        ),
        ("Ideas.md", text("# Top ideas\n\nThe plan: [[Plan]].\n")),
        (
            "projects/Plan.md",
            text("---\nrelated: \"[[Ideas]]\"\n---\n# Goals\n\nStart from [[Ideas]]; back [home](../Home.md).\n\n![[diagram.pdf]]\n"),
        ),
        (
            "projects/Ideas.md",
            text("# Project ideas\n\n[home](Home.md), [[Home]], ![[attachments/image.png|200]].\n"),
        ),
        ("attachments/image.png", PNG.to_vec()),
        ("attachments/diagram.pdf", PDF.to_vec()),
        (".obsidian/app.json", text("{\"theme\": \"dark\"}")),
        (".obsidian/workspace.json", text("{}")),
        (".trash/Old.md", text("# Old\n")),
    ]
}

/// Where each link of each imported page must resolve, in the order the links stand
/// (frontmatter first), under prefix `kb`: what Obsidian resolved them to in the vault.
fn expected_links() -> Vec<(&'static str, Vec<Option<&'static str>>)> {
    vec![
        (
            "kb/Home.md",
            vec![
                Some("kb/Ideas.md"),
                Some("kb/projects/Ideas.md"),
                Some("kb/projects/Plan.md"),
                Some("kb/attachments/image.png"),
                None,
            ],
        ),
        ("kb/Ideas.md", vec![Some("kb/projects/Plan.md")]),
        (
            "kb/projects/Plan.md",
            vec![
                // `[[Ideas]]` is the top `Ideas.md` in Obsidian (shortest path); quire would
                // take the one beside the page, so both are rewritten.
                Some("kb/Ideas.md"),
                Some("kb/Ideas.md"),
                Some("kb/Home.md"),
                Some("kb/attachments/diagram.pdf"),
            ],
        ),
        (
            "kb/projects/Ideas.md",
            vec![
                // `[home](Home.md)` is the vault's root `Home.md` in Obsidian.
                Some("kb/Home.md"),
                Some("kb/Home.md"),
                Some("kb/attachments/image.png"),
            ],
        ),
    ]
}

fn server() -> TestServer {
    TestServer::with(
        sync_git(),
        Default::default(),
        &[("README.md", "# Readme\n")],
    )
}

/// Writes the vault below `dir`.
fn write_vault(dir: &Path) {
    for (path, bytes) in vault() {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, bytes).unwrap();
    }
}

/// The vault as a zip, every entry under `top/` (when given), plus `extra` entries.
fn zip_vault(top: Option<&str>, extra: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut out);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (path, bytes) in vault() {
            let name = match top {
                Some(top) => format!("{top}/{path}"),
                None => path.to_string(),
            };
            zip.start_file(name, options).unwrap();
            zip.write_all(&bytes).unwrap();
        }
        for (name, bytes) in extra {
            zip.start_file(*name, options).unwrap();
            zip.write_all(bytes).unwrap();
        }
        zip.finish().unwrap();
    }
    out.into_inner()
}

/// Puts `bytes` where uploads go (as `POST /import/upload` would) and answers its path.
fn place_upload(s: &TestServer, name: &str, bytes: &[u8]) -> String {
    let relative = format!(".quire/state/uploads/test/{name}");
    let full = s.dir.path().join(&relative);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, bytes).unwrap();
    relative
}

async fn import(s: &TestServer, body: Value) -> support::Reply {
    s.call(
        Method::POST,
        "/api/quire/import",
        &[("content-type", "application/json")],
        body.to_string(),
    )
    .await
}

/// Where quire resolves each link of `page` now, in order.
fn resolved(s: &TestServer, page: &str) -> Vec<Option<String>> {
    let space = s.service.default_space();
    let vault = space.vault();
    vault
        .resolved_links()
        .filter(|(source, _, _)| source.as_str() == page)
        .map(|(_, _, resolution)| resolution.path().map(|p| p.to_string()))
        .collect()
}

/// The pages and attachments of the import are there, `.obsidian/` and `.trash/` are not,
/// and every link reaches what it reached in the vault.
fn assert_imported(s: &TestServer) {
    for (path, bytes) in vault() {
        let at = s.dir.path().join("kb").join(path);
        if path.starts_with('.') {
            assert!(!at.exists(), "{path} must not be imported");
        } else if path.ends_with(".md") {
            let text = std::fs::read_to_string(&at).unwrap_or_else(|_| panic!("{path}"));
            assert!(text.contains("_source: vault\n"), "{text}");
        } else {
            assert_eq!(std::fs::read(&at).unwrap(), bytes, "{path} byte for byte");
        }
    }
    assert!(!s.dir.path().join("kb/.obsidian").exists());
    assert!(!s.dir.path().join(".obsidian").exists());
    let home = s.disk("kb/Home.md").unwrap();
    assert!(
        home.contains("tags:\n- home\n") || home.contains("tags: [home]"),
        "{home}"
    );
    for (page, want) in expected_links() {
        let want: Vec<Option<String>> = want.into_iter().map(|w| w.map(String::from)).collect();
        assert_eq!(
            resolved(s, page),
            want,
            "links of {page}: {}",
            s.disk(page).unwrap()
        );
    }
    // The rewrites are the smallest that work, and keep alias, heading and embed.
    let plan = s.disk("kb/projects/Plan.md").unwrap();
    assert!(plan.contains("related: \"[[kb/Ideas]]\""), "{plan}");
    assert!(
        plan.contains("Start from [[kb/Ideas]]; back [home](../Home.md)."),
        "{plan}"
    );
    let ideas = s.disk("kb/projects/Ideas.md").unwrap();
    assert!(
        ideas.contains("[home](../Home.md), [[Home]], ![[attachments/image.png|200]]."),
        "{ideas}"
    );
    let home = s.disk("kb/Home.md").unwrap();
    assert!(
        home.contains("See [[Ideas]], [[projects/Ideas|project ideas]] and [[Plan#Goals]]."),
        "{home}"
    );
}

#[tokio::test]
async fn an_obsidian_vault_imports_with_its_links_and_attachments_in_one_commit() {
    let s = server();
    let folder = s.dir.path().join(".quire/state/uploads/test/vault");
    write_vault(&folder);
    let before = s.commit_count();
    let body = json!({
        "source": "obsidian",
        "connection": {"path": ".quire/state/uploads/test/vault", "name": "vault"},
        "prefix": "kb",
    });
    let r = import(&s, body.clone()).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["imported"], 4, "{v}");
    assert_eq!(v["attachments"], 2, "{v}");
    assert_eq!(v["links_rewritten"], 3, "{v}");
    assert_eq!(v["skipped"], 0, "{v}");
    assert_eq!(v["errors"], json!([]), "{v}");
    assert_eq!(s.commit_count(), before + 1, "one commit");
    // The commit holds the pages and the attachments.
    let repo = s.repo();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    let tree = head.tree().unwrap();
    for path in [
        "kb/Home.md",
        "kb/attachments/image.png",
        "kb/attachments/diagram.pdf",
    ] {
        assert!(
            tree.get_path(Path::new(path)).is_ok(),
            "{path} is in the commit"
        );
    }
    assert_imported(&s);
    s.assert_clean();

    // Again: everything skipped, no commit, nothing rewritten anew.
    let r = import(&s, body).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["imported"], 0, "{v}");
    assert_eq!(v["skipped"], 6, "{v}");
    assert!(v.get("attachments").is_none(), "{v}");
    assert!(v["commit"].is_null(), "{v}");
    assert_eq!(s.commit_count(), before + 1);
    assert_imported(&s);

    // `GET /import/sources` lists obsidian as built.
    let sources = s.get("/api/quire/import/sources").await.json();
    let obsidian = sources["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == "obsidian")
        .cloned();
    assert_eq!(obsidian, Some(json!({"id": "obsidian", "available": true})));
}

#[tokio::test]
async fn a_zipped_vault_imports_like_its_folder() {
    let s = server();
    // Uploaded through the route, under one top folder (stripped).
    let (content_type, body) = multipart("MyVault.zip", &zip_vault(Some("MyVault"), &[]));
    let r = s
        .call(
            Method::POST,
            "/api/quire/import/upload",
            &[("content-type", &content_type)],
            body,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let upload = r.json()["path"].as_str().unwrap().to_string();
    let before = s.commit_count();
    let r = import(
        &s,
        json!({"source": "obsidian", "connection": {"file": upload, "name": "vault"}, "prefix": "kb"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(
        (v["imported"].clone(), v["attachments"].clone()),
        (json!(4), json!(2)),
        "{v}"
    );
    assert_eq!(v["links_rewritten"], 3, "{v}");
    assert_eq!(s.commit_count(), before + 1);
    assert_imported(&s);

    // The same bytes as the folder import.
    let folder = server();
    write_vault(&folder.dir.path().join(".quire/state/uploads/test/vault"));
    let r = import(
        &folder,
        json!({"source": "obsidian", "connection": {"path": ".quire/state/uploads/test/vault", "name": "vault"}, "prefix": "kb"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    for (path, _) in vault()
        .into_iter()
        .filter(|(p, _)| p.ends_with(".md") && !p.starts_with('.'))
    {
        let at = format!("kb/{path}");
        assert_eq!(s.disk(&at), folder.disk(&at), "{at}");
    }
}

#[tokio::test]
async fn a_zipped_markdown_folder_imports_its_pages() {
    let s = server();
    let zip = place_upload(&s, "notes.zip", &zip_vault(None, &[]));
    let r = import(
        &s,
        json!({"source": "markdown", "connection": {"file": zip}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["imported"], 4, "{v}");
    assert!(
        v.get("attachments").is_none(),
        "markdown brings no attachments: {v}"
    );
    let home = s.disk("Home.md").unwrap();
    assert!(
        home.contains("_source: markdown:notes.zip\n_source_id: Home.md\n"),
        "{home}"
    );
    // Markdown keeps the text as it is.
    assert!(s
        .disk("projects/Plan.md")
        .unwrap()
        .contains("Start from [[Ideas]];"));
    assert!(!s.dir.path().join("attachments").exists());
    assert!(!s.dir.path().join(".trash").exists());
}

#[tokio::test]
async fn a_zip_bomb_is_413_and_writes_nothing() {
    let s = server();
    let mut out = std::io::Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut out);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .compression_level(Some(1));
        zip.start_file("vault/ok.md", options).unwrap();
        zip.write_all(b"# ok\n").unwrap();
        zip.start_file("vault/bomb.md", options).unwrap();
        let chunk = vec![b'a'; 1 << 20];
        for _ in 0..257 {
            zip.write_all(&chunk).unwrap();
        }
        zip.finish().unwrap();
    }
    let bytes = out.into_inner();
    assert!(bytes.len() < 2 << 20, "{} bytes", bytes.len());
    let zip = place_upload(&s, "bomb.zip", &bytes);
    let before = s.commit_count();
    for source in ["markdown", "obsidian"] {
        let r = import(&s, json!({"source": source, "connection": {"file": zip}})).await;
        let message = r.expect_error(413);
        assert!(message.contains("zip bomb"), "{message}");
    }
    assert_eq!(s.commit_count(), before);
    assert!(s.disk("ok.md").is_none());
}

#[tokio::test]
async fn hostile_zip_entries_are_errors_and_never_written_outside() {
    let s = server();
    let zip = place_upload(
        &s,
        "evil.zip",
        &zip_vault(
            None,
            &[
                ("../evil.md", b"# evil\n"),
                ("../../evil.png", b"evil"),
                ("/abs.md", b"# evil\n"),
                ("a\\..\\..\\evil.md", b"# evil\n"),
                ("C:/evil.md", b"# evil\n"),
            ],
        ),
    );
    let r = import(
        &s,
        json!({"source": "obsidian", "connection": {"file": zip, "name": "vault"}, "prefix": "kb"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["imported"], 4, "{v}");
    let errors = v["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 5, "{v}");
    assert!(errors.iter().all(|e| e["row"] == 0), "{v}");
    assert!(
        errors[0]["error"].as_str().unwrap().contains("../evil.md"),
        "{v}"
    );
    assert_imported(&s);
    let parent = s.dir.path().parent().unwrap();
    for path in [
        parent.join("evil.md"),
        parent.join("evil.png"),
        s.dir.path().join("evil.md"),
        s.dir.path().join("kb/evil.md"),
        s.dir.path().join("abs.md"),
    ] {
        assert!(!path.exists(), "{} must not exist", path.display());
    }
    s.assert_clean();
}

fn multipart(name: &str, bytes: &[u8]) -> (String, Vec<u8>) {
    let boundary = "quireboundary7MA4YWxkTrZu0gW";
    let mut body = Vec::new();
    body.extend(format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\nContent-Type: application/zip\r\n\r\n"
    ).as_bytes());
    body.extend(bytes);
    body.extend(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

#[tokio::test]
async fn links_stay_on_the_imported_pages_when_the_root_holds_pages_of_the_same_names() {
    // The vault's notes (no attachments) are pages of the root already, under `vault/`: every
    // name of the import is ambiguous, and byte order would take `vault/…` before `zz/…`.
    let notes: Vec<(String, String)> = vault()
        .into_iter()
        .filter(|(p, _)| p.ends_with(".md") && !p.starts_with('.'))
        .map(|(p, b)| (format!("vault/{p}"), String::from_utf8(b).unwrap()))
        .collect();
    let files: Vec<(&str, &str)> = notes
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let s = TestServer::with(sync_git(), Default::default(), &files);
    let r = import(
        &s,
        json!({"source": "obsidian", "connection": {"path": "vault"}, "prefix": "zz"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["imported"], 4, "{v}");
    assert!(v.get("attachments").is_none(), "{v}");
    let expected: Vec<(&str, Vec<Option<&str>>)> = vec![
        (
            "zz/Home.md",
            vec![
                Some("zz/Ideas.md"),
                Some("zz/projects/Ideas.md"),
                Some("zz/projects/Plan.md"),
                None,
                None,
            ],
        ),
        ("zz/Ideas.md", vec![Some("zz/projects/Plan.md")]),
        (
            "zz/projects/Plan.md",
            vec![
                Some("zz/Ideas.md"),
                Some("zz/Ideas.md"),
                Some("zz/Home.md"),
                None,
            ],
        ),
        (
            "zz/projects/Ideas.md",
            vec![Some("zz/Home.md"), Some("zz/Home.md"), None],
        ),
    ];
    for (page, want) in expected {
        let want: Vec<Option<String>> = want.into_iter().map(|w| w.map(String::from)).collect();
        assert_eq!(
            resolved(&s, page),
            want,
            "links of {page}: {}",
            s.disk(page).unwrap()
        );
    }
    // Links the vault did not resolve are left as written.
    assert!(s.disk("zz/Home.md").unwrap().contains("![[image.png]]"));
    assert!(v["links_rewritten"].as_u64().unwrap() >= 3, "{v}");
    s.assert_clean();
}
