//! `POST /import`, `/import/preview`, `/import/upload`, `GET /import/sources`: real files in a
//! real root, real git. One import is one commit by `X-Actor` (default `import`), every page
//! carries `_source` and `_source_id`, unchanged rows are skipped, a full sync archives, a
//! preview and a refused import write nothing.

mod support;

use axum::http::Method;
use quire_service::Event;
use serde_json::{json, Value};
use support::{sync_git, TestServer};

const PEOPLE: &str = "\u{FEFF}id,name,role,bio\r\n1,Ann Smith,dev,\"Writes code, \"\"mostly\"\"\"\r\n2,Zoë Ünal,ops,\r\n3,Bob,dev,Likes tea\r\n";

fn server(files: &[(&str, &str)]) -> TestServer {
    TestServer::with(sync_git(), Default::default(), files)
}

async fn import(s: &TestServer, actor: Option<&str>, body: Value) -> support::Reply {
    let mut headers = vec![("content-type", "application/json")];
    if let Some(actor) = actor {
        headers.push(("x-actor", actor));
    }
    s.call(
        Method::POST,
        "/api/quire/import",
        &headers,
        body.to_string(),
    )
    .await
}

/// The frontmatter of a page on disk.
fn frontmatter(s: &TestServer, path: &str) -> Value {
    let text = s.disk(path).unwrap_or_else(|| panic!("{path} is on disk"));
    let yaml = text
        .strip_prefix("---\n")
        .and_then(|t| t.split_once("\n---\n"))
        .map(|(y, _)| y)
        .unwrap_or_else(|| panic!("{path} has frontmatter: {text}"));
    serde_yaml_ng_value(yaml)
}

fn serde_yaml_ng_value(yaml: &str) -> Value {
    serde_yaml_ng::from_str(yaml).expect("the frontmatter is YAML")
}

fn multipart(name: &str, bytes: &[u8]) -> (String, Vec<u8>) {
    let boundary = "quireboundary7MA4YWxkTrZu0gW";
    let mut body = Vec::new();
    body.extend(format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
    ).as_bytes());
    body.extend(bytes);
    body.extend(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

async fn upload(s: &TestServer, name: &str, bytes: &[u8]) -> String {
    let (content_type, body) = multipart(name, bytes);
    let r = s
        .call(
            Method::POST,
            "/api/quire/import/upload",
            &[("content-type", &content_type)],
            body,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["size"], json!(bytes.len()));
    v["path"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn csv_import_writes_pages_with_their_source_in_one_commit_by_the_actor() {
    let s = server(&[("data/people.csv", PEOPLE)]);
    let mut events = s.service.default_space().events().subscribe();
    let before = s.commit_count();
    let r = import(
        &s,
        Some("alice"),
        json!({"source": "csv", "connection": {"file": "data/people.csv"},
            "id_column": "id", "prefix": "people",
            "mapping": {"title": "{{ name }}", "content": "{{bio}}",
                "frontmatter": {"role": "{{role}}", "id": "{{id}}"}}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["imported"], json!(3), "{}", r.text());
    let v = r.json();
    assert_eq!(
        (v["skipped"].clone(), v["archived"].clone()),
        (json!(0), json!(0))
    );
    assert_eq!(v["errors"], json!([]));
    assert_eq!(v["source"], json!("csv:people.csv"));
    assert_eq!(s.commit_count(), before + 1, "one commit");
    assert_eq!(s.head_author(), "alice");
    // Default path: the slug of the title (no path template).
    let fm = frontmatter(&s, "people/ann-smith.md");
    assert_eq!(fm["title"], json!("Ann Smith"));
    assert_eq!(fm["role"], json!("dev"));
    assert_eq!(fm["_source"], json!("csv:people.csv"));
    assert_eq!(fm["_source_id"], json!("1"));
    assert!(s
        .disk("people/ann-smith.md")
        .unwrap()
        .ends_with("---\nWrites code, \"mostly\"\n"));
    assert_eq!(
        frontmatter(&s, "people/zoë-ünal.md")["_source_id"],
        json!("2")
    );
    assert!(s.disk("people/bob.md").is_some());
    // The `import` event, with every page written.
    let event = loop {
        match events.try_recv().expect("an event was published") {
            e @ Event::Import { .. } => break e,
            _ => continue,
        }
    };
    let Event::Import {
        imported,
        source,
        actor,
        paths,
        ..
    } = event
    else {
        unreachable!()
    };
    assert_eq!(
        (imported, source.as_str(), actor.as_str()),
        (3, "csv:people.csv", "alice")
    );
    assert_eq!(paths.len(), 3);
    s.assert_clean();
}

#[tokio::test]
async fn json_jsonl_and_yaml_sources_import_with_the_default_actor() {
    let s = server(&[
        (
            "in/a.json",
            r#"{"count": 2, "items": [{"title": "J one", "n": 1, "tags": ["x","y"], "body": "Hello"}, {"title": "J two", "n": 2}]}"#,
        ),
        (
            "in/b.jsonl",
            "{\"name\": \"L one\", \"meta\": {\"lang\": \"fr\"}}\r\n\n{\"name\": \"L two\"}\n",
        ),
        (
            "in/c.yaml",
            "- title: Y one\n  when: 2024-01-02\n- title: Y two\n",
        ),
    ]);
    for (source, file, first) in [
        ("json", "in/a.json", "json/j-one.md"),
        ("jsonl", "in/b.jsonl", "jsonl/l-one.md"),
        ("yaml", "in/c.yaml", "yaml/y-one.md"),
    ] {
        let before = s.commit_count();
        let r = import(
            &s,
            None,
            json!({"source": source, "connection": {"file": file}, "prefix": source}),
        )
        .await;
        assert_eq!(r.status, 200, "{source}: {}", r.text());
        assert_eq!(r.json()["imported"], json!(2), "{source}: {}", r.text());
        assert_eq!(s.commit_count(), before + 1, "{source}");
        assert_eq!(s.head_author(), "import", "{source}");
        let fm = frontmatter(&s, first);
        assert_eq!(fm["_source_id"], json!("1"), "{source}");
        assert!(fm["_source"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{source}:")));
    }
    let json_page = s.disk("json/j-one.md").unwrap();
    let fm = frontmatter(&s, "json/j-one.md");
    assert_eq!(
        (fm["n"].clone(), fm["tags"].clone()),
        (json!(1), json!(["x", "y"]))
    );
    assert!(json_page.ends_with("---\nHello\n"), "{json_page}");
    assert!(s.disk("jsonl/l-one.md").unwrap().contains("lang"));
    s.assert_clean();
}

#[tokio::test]
async fn markdown_folder_import_keeps_paths_frontmatter_and_bodies() {
    let s = server(&[
        (
            "vault/a.md",
            "---\ntitle: A\ntags: [x]\n---\n# A\n\nSee [[b]].\n",
        ),
        ("vault/sub/b.md", "Just b.\n"),
    ]);
    let r = import(
        &s,
        Some("mover"),
        json!({"source": "markdown", "connection": {"path": "vault"}, "prefix": "moved"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["imported"], json!(2));
    let a = s.disk("moved/a.md").unwrap();
    assert!(
        a.contains("title: A\n") && a.ends_with("---\n# A\n\nSee [[b]].\n"),
        "{a}"
    );
    let fm = frontmatter(&s, "moved/sub/b.md");
    assert_eq!(fm["_source"], json!("markdown:vault"));
    assert_eq!(fm["_source_id"], json!("sub/b.md"));
    s.assert_clean();
}

#[tokio::test]
async fn an_uploaded_sqlite_database_imports_by_table_and_by_query() {
    let s = server(&[]);
    let dir = tempfile::tempdir().unwrap();
    let db_path = dir.path().join("shop.db");
    let db = sqlite_db(&db_path);
    let stored = upload(&s, "shop.db", &db).await;
    assert!(stored.starts_with(".quire/state/uploads/"), "{stored}");
    let r = import(
        &s,
        Some("db"),
        json!({"source": "sqlite", "connection": {"file": stored}, "query": "items",
            "id_column": "id", "mapping": {"path": "shop/{{name}}"}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["imported"], json!(2), "{}", r.text());
    assert_eq!(r.json()["source"], json!("sqlite:shop.db/items"));
    let fm = frontmatter(&s, "shop/Tea.md");
    assert_eq!(fm["price"], json!(2.5));
    assert_eq!(fm["_source_id"], json!("1"));
    let r = import(
        &s,
        Some("db"),
        json!({"source": "sqlite", "connection": {"file": stored, "name": "cheap"},
            "query": "SELECT name FROM items WHERE price < 3", "prefix": "cheap"}),
    )
    .await;
    assert_eq!(r.json()["imported"], json!(1), "{}", r.text());
    assert_eq!(frontmatter(&s, "cheap/tea.md")["_source"], json!("cheap"));
    let r = import(
        &s,
        None,
        json!({"source": "sqlite", "connection": {"file": stored}, "query": "DROP TABLE items"}),
    )
    .await;
    r.expect_error(400);
    s.assert_clean();
}

/// A SQLite database of two items, as bytes.
fn sqlite_db(path: &std::path::Path) -> Vec<u8> {
    let db = rusqlite::Connection::open(path).unwrap();
    db.execute_batch(
        "CREATE TABLE items (id INTEGER, name TEXT, price REAL);
         INSERT INTO items VALUES (1, 'Tea', 2.5), (2, 'Coffee', 3.5);",
    )
    .unwrap();
    drop(db);
    std::fs::read(path).unwrap()
}

#[tokio::test]
async fn reimporting_an_unchanged_source_skips_every_row_and_commits_nothing() {
    let s = server(&[("people.csv", PEOPLE)]);
    let body = json!({"source": "csv", "connection": {"file": "people.csv"}, "id_column": "id"});
    let r = import(&s, None, body.clone()).await;
    assert_eq!(r.json()["imported"], json!(3), "{}", r.text());
    let commits = s.commit_count();
    let r = import(&s, Some("again"), body).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(
        (v["imported"].clone(), v["skipped"].clone()),
        (json!(0), json!(3))
    );
    assert!(v.get("commit").is_none());
    assert_eq!(s.commit_count(), commits, "no commit");
    s.assert_clean();
}

#[tokio::test]
async fn a_full_sync_archives_pages_whose_row_is_gone_and_deletes_nothing() {
    let s = server(&[]);
    let first = upload(&s, "people.csv", PEOPLE.as_bytes()).await;
    let body = |file: &str| json!({"source": "csv", "connection": {"file": file}, "id_column": "id", "full_sync": true});
    let r = import(&s, None, body(&first)).await;
    assert_eq!(r.json()["imported"], json!(3), "{}", r.text());
    // A later export of the same file (same name: the same source): Bob is gone, Ann changed.
    let second = upload(
        &s,
        "people.csv",
        "id,name,role,bio\n1,Ann Smith,lead,\"Writes code, \"\"mostly\"\"\"\n2,Zoë Ünal,ops,\n"
            .as_bytes(),
    )
    .await;
    let commits = s.commit_count();
    let r = import(&s, Some("sync"), body(&second)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(
        (
            v["imported"].clone(),
            v["skipped"].clone(),
            v["archived"].clone()
        ),
        (json!(1), json!(1), json!(1)),
        "{v}"
    );
    assert_eq!(
        s.commit_count(),
        commits + 1,
        "archive and import: one commit"
    );
    let bob = frontmatter(&s, "bob.md");
    let at = bob["_archived_at"].as_str().expect("_archived_at");
    assert!(chrono_like(at), "{at}");
    assert_eq!(frontmatter(&s, "ann-smith.md")["role"], json!("lead"));
    assert!(frontmatter(&s, "ann-smith.md")
        .get("_archived_at")
        .is_none());
    // Again: nothing left to archive, nothing to write.
    let r = import(&s, None, body(&second)).await;
    let v = r.json();
    assert_eq!(
        (v["archived"].clone(), v["skipped"].clone()),
        (json!(0), json!(2))
    );
    assert_eq!(s.commit_count(), commits + 1);
    s.assert_clean();
}

fn chrono_like(text: &str) -> bool {
    text.len() >= 20 && text.as_bytes()[4] == b'-' && text.contains('T')
}

#[tokio::test]
async fn a_preview_renders_records_and_writes_nothing() {
    let rows: String = (1..=30).map(|i| format!("{i},Person {i}\n")).collect();
    let s = server(&[("many.csv", &format!("id,name\n{rows}"))]);
    let commits = s.commit_count();
    let r = s
        .post_json(
            "/api/quire/import/preview",
            json!({"source": "csv", "connection": {"file": "many.csv"},
                "mapping": {"path": "p/{{id}}", "content": "Hi {{name}}"}}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let records = v["records"].as_array().unwrap();
    assert_eq!(records.len(), 5, "default limit");
    assert_eq!(
        records[0],
        json!({"path": "p/1.md", "body_preview": "Hi Person 1",
            "frontmatter": {"id": "1", "name": "Person 1", "_source": "csv:many.csv", "_source_id": "1"}})
    );
    let r = s
        .post_json(
            "/api/quire/import/preview",
            json!({"source": "csv", "connection": {"file": "many.csv"}, "limit": 20}),
        )
        .await;
    assert_eq!(r.json()["records"].as_array().unwrap().len(), 20);
    let r = s
        .post_json(
            "/api/quire/import/preview",
            json!({"source": "csv", "connection": {"file": "many.csv"}, "limit": 21}),
        )
        .await;
    assert!(r.expect_error(400).contains("limit"));
    assert_eq!(s.commit_count(), commits);
    assert!(s.disk("p/1.md").is_none());
    s.assert_clean();
}

#[tokio::test]
async fn bad_imports_answer_a_clear_4xx_and_write_nothing() {
    let s = server(&[("people.csv", PEOPLE), (".quire/secret.csv", "a\n1\n")]);
    let commits = s.commit_count();
    let cases = [
        (
            json!({"source": "floppy", "connection": {"file": "people.csv"}}),
            400,
            "unknown import source",
        ),
        (
            json!({"source": "excel", "connection": {"file": "people.csv"}}),
            400,
            "no spreadsheet",
        ),
        (
            json!({"source": "csv", "connection": {"file": "nope.csv"}}),
            404,
            "no file",
        ),
        (json!({"source": "csv"}), 400, "connection.file"),
        (
            json!({"source": "csv", "connection": {"file": "../people.csv"}}),
            400,
            "leaves the knowledge root",
        ),
        (
            json!({"source": "csv", "connection": {"file": ".quire/secret.csv"}}),
            400,
            ".quire",
        ),
        (
            json!({"source": "csv", "connection": {"file": "people.csv"}, "mapping": {"path": "{{name"}}),
            400,
            "mapping.path",
        ),
        (
            json!({"source": "csv", "connection": {"file": "people.csv"}, "prefix": "../out"}),
            400,
            "prefix",
        ),
        (
            json!({"source": "json", "connection": {"file": "people.csv"}}),
            400,
            "invalid JSON",
        ),
        (json!({"connection": {"file": "people.csv"}}), 400, "source"),
    ];
    for (body, status, needle) in cases {
        let r = import(&s, None, body.clone()).await;
        let message = r.expect_error(status);
        assert!(message.contains(needle), "{body}: {message}");
    }
    // Rows whose path leaves the space are row errors; the import writes nothing else.
    let r = import(
        &s,
        None,
        json!({"source": "csv", "connection": {"file": "people.csv"},
            "mapping": {"path": "../../{{name}}"}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["imported"], json!(0));
    assert_eq!(v["errors"].as_array().unwrap().len(), 3, "{v}");
    assert!(v["errors"][0]["error"]
        .as_str()
        .unwrap()
        .contains("leaves the space"));
    assert_eq!(v["errors"][0]["row"], json!(1));
    assert_eq!(s.commit_count(), commits, "nothing written");
    assert!(!s.dir.path().parent().unwrap().join("Bob.md").exists());
    s.assert_clean();
}

#[tokio::test]
async fn a_row_missing_its_path_field_is_a_row_error_and_the_others_import() {
    let s = server(&[("t.csv", "slug,name\na,Ann\n,Bob\n")]);
    let r = import(
        &s,
        None,
        json!({"source": "csv", "connection": {"file": "t.csv"}, "mapping": {"path": "{{slug}}"}}),
    )
    .await;
    let v = r.json();
    assert_eq!(v["imported"], json!(1), "{v}");
    assert_eq!(v["errors"][0]["row"], json!(2));
    assert!(v["errors"][0]["error"].as_str().unwrap().contains("`slug`"));
    assert!(s.disk("a.md").is_some());
    s.assert_clean();
}

#[tokio::test]
async fn sources_list_every_spec_identifier_with_what_is_built() {
    let s = server(&[]);
    let r = s.get("/api/quire/import/sources").await;
    assert_eq!(r.status, 200, "{}", r.text());
    let sources = r.json()["sources"].as_array().unwrap().clone();
    assert_eq!(sources.len(), 19);
    let ids: Vec<&str> = sources.iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "postgres",
            "mysql",
            "sqlite",
            "mongodb",
            "firestore",
            "dynamodb",
            "redis",
            "elasticsearch",
            "csv",
            "json",
            "jsonl",
            "yaml",
            "excel",
            "notion",
            "airtable",
            "gsheets",
            "obsidian",
            "confluence",
            "markdown"
        ]
    );
    // Every source of the spec is built.
    assert!(sources.iter().all(|s| s["available"] == json!(true)));
}

#[tokio::test]
async fn an_upload_then_an_import_by_its_path_and_a_bad_upload() {
    let s = server(&[]);
    let path = upload(&s, "team list.csv", b"name\nAnn\n").await;
    assert!(path.ends_with("/team_list.csv"), "{path}");
    let r = import(
        &s,
        None,
        json!({"source": "csv", "connection": {"file": path}}),
    )
    .await;
    assert_eq!(r.json()["imported"], json!(1), "{}", r.text());
    assert_eq!(
        frontmatter(&s, "ann.md")["_source"],
        json!("csv:team_list.csv")
    );
    // No `file` field.
    let boundary = "b0undary";
    let body = format!("--{boundary}\r\nContent-Disposition: form-data; name=\"other\"\r\n\r\nx\r\n--{boundary}--\r\n");
    let r = s
        .call(
            Method::POST,
            "/api/quire/import/upload",
            &[(
                "content-type",
                &format!("multipart/form-data; boundary={boundary}"),
            )],
            body,
        )
        .await;
    assert!(r.expect_error(400).contains("`file`"));
    // Not multipart at all, here and for assets: the JSON error of every route.
    for route in ["/api/quire/import/upload", "/api/quire/assets"] {
        for media in ["text/plain", "application/zip", "multipart/form-data"] {
            let r = s
                .call(Method::POST, route, &[("content-type", media)], "x")
                .await;
            let message = r.expect_error(400);
            assert!(
                message.contains("multipart/form-data"),
                "{route} {media}: {message}"
            );
        }
    }
    s.assert_clean();
}

/// Issue 27's round trip: a 1,000-page vault exported to JSON Lines with content and links,
/// imported into an empty root, gives the same pages (frontmatter, body) and every link
/// resolves to the same page (the second export's `links` equal the first's).
#[tokio::test]
async fn a_vault_exported_to_jsonl_imports_into_an_empty_root_with_every_link_on_the_same_page() {
    let mut spec = quire_testkit::VaultSpec::new(27, 1000);
    // Pages only: JSON Lines carries pages, not images, canvases or comments.
    spec.assets = 0;
    spec.canvases = 0;
    spec.commented_percent = 0;
    let vault = quire_testkit::generate(&spec);
    let files: Vec<(&str, &str)> = vault
        .pages()
        .map(|f| (f.path.as_str(), f.text().expect("a page is text")))
        .collect();
    assert_eq!(files.len(), 1000);
    let first = server(&files);
    let all = "/api/quire/export?format=jsonl&include-content=true&include-links=true";
    let exported = first.get(all).await;
    assert_eq!(exported.status, 200, "{}", exported.text());

    let second = server(&[]);
    let file = upload(&second, "vault.jsonl", &exported.body).await;
    let r = import(
        &second,
        None,
        json!({"source": "jsonl", "connection": {"file": file}, "mapping": {"path": "{{path}}"}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["imported"], 1000, "{v}");
    assert_eq!(v["errors"], json!([]), "{v}");

    let again = second.get(all).await;
    let rows = |text: &str| -> Vec<Value> {
        text.lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect()
    };
    let before = rows(&exported.text());
    let mut after = rows(&again.text());
    for row in &mut after {
        let fields = row.as_object_mut().unwrap();
        assert!(fields.remove("_source").is_some() && fields.remove("_source_id").is_some());
    }
    assert_eq!(before.len(), after.len());
    let linked: usize = before
        .iter()
        .map(|r| r["links"].as_array().map_or(0, Vec::len))
        .sum();
    assert!(
        linked > 5000,
        "the vault's pages link to each other ({linked})"
    );
    // The links as a set: the frontmatter keys come back in the export's order (sorted), so
    // links written in frontmatter may be listed in another order.
    let sorted = |row: &Value| -> Value {
        let mut row = row.clone();
        if let Some(links) = row["links"].as_array_mut() {
            links.sort_by(|x, y| x.as_str().cmp(&y.as_str()));
        }
        row
    };
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(
            sorted(b),
            sorted(a),
            "the page and where its links land are the same"
        );
    }
}
