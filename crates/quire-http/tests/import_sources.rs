//! `POST /import` from a real spreadsheet and from real database servers (PostgreSQL, MariaDB,
//! Redis, started by `quire_testkit::servers`; a test skips when its server is not installed
//! unless `QUIRE_REQUIRE_DB_SERVERS` is set), and `POST /import/browse`. Pages carry their
//! row's typed fields; a refused source is a 4xx JSON error with nothing written; re-importing
//! an unchanged source skips every row and commits nothing; the password is never in an
//! answer or a file of the root.

mod support;

use axum::http::Method;
use quire_testkit::servers::{Db, DbServer, PASSWORD};
use serde_json::{json, Value};
use support::{sync_git, TestServer};

fn server(files: &[(&str, &str)]) -> TestServer {
    TestServer::with(sync_git(), Default::default(), files)
}

async fn post(s: &TestServer, route: &str, body: Value) -> support::Reply {
    s.post_json(&format!("/api/quire/{route}"), body).await
}

/// The frontmatter of a page on disk.
fn frontmatter(s: &TestServer, path: &str) -> Value {
    let text = s.disk(path).unwrap_or_else(|| panic!("{path} is on disk"));
    let yaml = text
        .strip_prefix("---\n")
        .and_then(|t| t.split_once("\n---\n"))
        .map(|(y, _)| y)
        .unwrap_or_else(|| panic!("{path} has frontmatter: {text}"));
    serde_yaml_ng::from_str(yaml).expect("the frontmatter is YAML")
}

/// Keeps `bytes` as an upload; answers its path for `connection.file`.
async fn upload(s: &TestServer, name: &str, bytes: &[u8]) -> String {
    let boundary = "quireboundary7MA4YWxkTrZu0gW";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\r\n"
    )
    .into_bytes();
    body.extend(bytes);
    body.extend(format!("\r\n--{boundary}--\r\n").as_bytes());
    let content_type = format!("multipart/form-data; boundary={boundary}");
    let r = s
        .call(
            Method::POST,
            "/api/quire/import/upload",
            &[("content-type", &content_type)],
            body,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["path"].as_str().unwrap().to_string()
}

/// A workbook of two sheets: `People` (typed cells, an empty one, a date) and `Other`.
fn workbook() -> Vec<u8> {
    use rust_xlsxwriter::{ExcelDateTime, Format, Workbook};
    let mut book = Workbook::new();
    let date = Format::new().set_num_format("yyyy-mm-dd");
    let stamp = Format::new().set_num_format("yyyy-mm-dd hh:mm:ss");
    let people = book.add_worksheet().set_name("People").unwrap();
    for (col, name) in ["id", "name", "score", "active", "joined", "seen", "note"]
        .iter()
        .enumerate()
    {
        people.write_string(0, col as u16, *name).unwrap();
    }
    people.write_number(1, 0, 1).unwrap();
    people.write_string(1, 1, "Ann Smith").unwrap();
    people.write_number(1, 2, 9.5).unwrap();
    people.write_boolean(1, 3, true).unwrap();
    let joined = ExcelDateTime::from_ymd(2024, 3, 1).unwrap();
    people
        .write_datetime_with_format(1, 4, &joined, &date)
        .unwrap();
    let seen = ExcelDateTime::from_ymd(2024, 3, 2)
        .unwrap()
        .and_hms(9, 30, 0)
        .unwrap();
    people
        .write_datetime_with_format(1, 5, &seen, &stamp)
        .unwrap();
    people.write_string(1, 6, "Likes tea").unwrap();
    people.write_number(2, 0, 2).unwrap();
    people.write_string(2, 1, "Zoë Ünal").unwrap();
    people.write_number(2, 2, 7).unwrap();
    people.write_boolean(2, 3, false).unwrap();
    let other = book.add_worksheet().set_name("Other").unwrap();
    other.write_string(0, 0, "title").unwrap();
    other.write_string(1, 0, "From the second sheet").unwrap();
    book.save_to_buffer().unwrap()
}

#[tokio::test]
async fn an_excel_workbook_imports_its_first_sheet_or_the_one_named() {
    let s = server(&[("notes/a.md", "A\n")]);
    let file = upload(&s, "people.xlsx", &workbook()).await;
    let commits = s.commit_count();
    let body = json!({"source": "excel", "connection": {"file": file},
        "id_column": "id", "prefix": "people", "mapping": {"title": "{{name}}",
        "content": "{{note}}", "frontmatter": {"score": "{{score}}", "active": "{{active}}",
        "joined": "{{joined}}", "seen": "{{seen}}"}}});
    let r = post(&s, "import", body.clone()).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["imported"], json!(2), "{}", r.text());
    assert_eq!(r.json()["source"], json!("excel:people.xlsx"));
    assert_eq!(s.commit_count(), commits + 1);
    let ann = frontmatter(&s, "people/ann-smith.md");
    assert_eq!(ann["title"], json!("Ann Smith"));
    assert_eq!(ann["score"], json!(9.5));
    assert_eq!(ann["active"], json!(true));
    assert_eq!(ann["joined"], json!("2024-03-01"));
    assert_eq!(ann["seen"], json!("2024-03-02T09:30:00"));
    assert_eq!(
        ann["_source_id"],
        json!("1"),
        "a whole number is an integer"
    );
    assert!(s
        .disk("people/ann-smith.md")
        .unwrap()
        .ends_with("---\nLikes tea\n"));
    let zoe = frontmatter(&s, "people/zoë-ünal.md");
    assert_eq!(
        (zoe["score"].clone(), zoe["active"].clone()),
        (json!(7), json!(false))
    );
    assert!(zoe.get("joined").is_none_or(Value::is_null), "{zoe}");
    // Unchanged: all skipped, no commit.
    let r = post(&s, "import", body).await;
    assert_eq!(
        (r.json()["imported"].clone(), r.json()["skipped"].clone()),
        (json!(0), json!(2)),
        "{}",
        r.text()
    );
    assert_eq!(s.commit_count(), commits + 1);
    // The sheet named.
    let r = post(
        &s,
        "import",
        json!({"source": "excel", "connection": {"file": file},
            "sheet": "Other", "prefix": "other"}),
    )
    .await;
    assert_eq!(r.json()["imported"], json!(1), "{}", r.text());
    assert!(s.disk("other/from-the-second-sheet.md").is_some());
    // A sheet that is not there: 400 naming the sheets, nothing written.
    let commits = s.commit_count();
    let r = post(
        &s,
        "import",
        json!({"source": "excel", "connection": {"file": file},
            "sheet": "Nope", "prefix": "nope"}),
    )
    .await;
    let message = r.expect_error(400);
    assert!(
        message.contains("\"Nope\"") && message.contains("\"People\", \"Other\""),
        "{message}"
    );
    assert_eq!(s.commit_count(), commits);
    assert!(!s.dir.path().join("nope").exists());
    // Not a spreadsheet: 400.
    let csv = upload(&s, "people.xlsx", b"id,name\n1,Ann\n").await;
    let r = post(
        &s,
        "import",
        json!({"source": "excel", "connection": {"file": csv}}),
    )
    .await;
    assert!(r.expect_error(400).contains("no spreadsheet"));
    s.assert_clean();
}

/// The whole path for one database: import with typed frontmatter, re-import skipped with no
/// commit, browse, a refused DSN a 400 with nothing written, the password nowhere.
async fn database_import(server: &DbServer, source: &str, query: &str, expect_source: &str) {
    let s = server_root();
    let commits = s.commit_count();
    let body = json!({"source": source, "connection": {"dsn": server.dsn()}, "query": query,
        "id_column": "id", "prefix": "notes",
        "mapping": {"title": "{{title}}", "content": "{{body}}",
            "frontmatter": {"stars": "{{stars}}", "done": "{{done}}", "created": "{{created}}"}}});
    let r = post(&s, "import", body.clone()).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["imported"], json!(2), "{}", r.text());
    assert_eq!(r.json()["source"], json!(expect_source));
    assert!(!r.text().contains(PASSWORD));
    assert_eq!(s.commit_count(), commits + 1);
    let fm = frontmatter(&s, "notes/first-note.md");
    assert_eq!(fm["stars"], json!(5));
    assert_eq!(fm["done"], json!(true));
    assert_eq!(fm["created"], json!("2024-03-01T09:30:00"));
    assert_eq!(fm["_source"], json!(expect_source));
    assert_eq!(fm["_source_id"], json!("1"));
    assert!(s
        .disk("notes/first-note.md")
        .unwrap()
        .ends_with("---\nHello\n"));
    assert!(s.disk("notes/second.md").is_some());
    // Unchanged: all skipped, no commit.
    let r = post(&s, "import", body.clone()).await;
    assert_eq!(
        (r.json()["imported"].clone(), r.json()["skipped"].clone()),
        (json!(0), json!(2)),
        "{}",
        r.text()
    );
    assert_eq!(s.commit_count(), commits + 1);
    // A preview reads the server too.
    let mut preview = body.clone();
    preview["limit"] = json!(1);
    let r = post(&s, "import/preview", preview).await;
    assert_eq!(
        r.json()["records"].as_array().map(Vec::len),
        Some(1),
        "{}",
        r.text()
    );
    // Browse.
    let r = post(
        &s,
        "import/browse",
        json!({"from": source, "dsn": server.dsn()}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(
        r.json()["tables"]
            .as_array()
            .unwrap()
            .contains(&json!({"name": "notes"})),
        "{}",
        r.text()
    );
    // Refused: a wrong password, and TLS asked for.
    let wrong = "Wrong9PasswordXyz";
    let mut refused = body.clone();
    refused["connection"]["dsn"] = json!(server.dsn_with(wrong));
    refused["prefix"] = json!("refused");
    let r = post(&s, "import", refused.clone()).await;
    let message = r.expect_error(400);
    assert!(message.contains("cannot connect to"), "{message}");
    assert!(
        !r.text().contains(wrong) && !r.text().contains(PASSWORD),
        "{}",
        r.text()
    );
    let r = post(
        &s,
        "import/browse",
        json!({"from": source, "dsn": server.dsn_with(wrong)}),
    )
    .await;
    r.expect_error(400);
    assert!(!r.text().contains(wrong), "{}", r.text());
    assert_eq!(s.commit_count(), commits + 1);
    assert!(!s.dir.path().join("refused").exists());
    support::assert_nowhere(&s, PASSWORD);
    support::assert_nowhere(&s, wrong);
    s.assert_clean();
}

fn server_root() -> TestServer {
    server(&[])
}

#[tokio::test]
async fn postgres_rows_import_as_pages_and_a_refused_dsn_writes_nothing() {
    let Some(db) = DbServer::start(Db::Postgres) else {
        return;
    };
    db.run(
        "CREATE TABLE notes (id int PRIMARY KEY, title text, body text, stars int,
            done boolean, created timestamp);
         INSERT INTO notes VALUES (1, 'First note', 'Hello', 5, true, '2024-03-01 09:30:00'),
            (2, 'Second', NULL, NULL, NULL, NULL);",
    );
    let expect = format!("postgres:127.0.0.1:{}/shop/notes", db.port());
    database_import(&db, "postgres", "notes", &expect).await;
    // TLS asked for: refused before connecting.
    let s = server_root();
    let r = post(
        &s,
        "import",
        json!({"source": "postgres", "query": "notes",
            "connection": {"dsn": db.dsn().replace("sslmode=disable", "sslmode=require")}}),
    )
    .await;
    let message = r.expect_error(400);
    assert!(
        message.contains("TLS") && !message.contains(PASSWORD),
        "{message}"
    );
}

#[tokio::test]
async fn mysql_rows_import_as_pages_and_a_refused_dsn_writes_nothing() {
    let Some(db) = DbServer::start(Db::Mariadb) else {
        return;
    };
    db.run(
        "CREATE TABLE notes (id INT PRIMARY KEY, title VARCHAR(50), body TEXT, stars INT,
            done BOOLEAN, created DATETIME) DEFAULT CHARSET utf8mb4;
         INSERT INTO notes VALUES (1, 'First note', 'Hello', 5, TRUE, '2024-03-01 09:30:00'),
            (2, 'Second', NULL, NULL, NULL, NULL);",
    );
    let expect = format!("mysql:127.0.0.1:{}/shop/notes", db.port());
    database_import(&db, "mysql", "notes", &expect).await;
}

#[tokio::test]
async fn redis_keys_import_as_pages_and_browse_lists_their_prefixes() {
    let Some(db) = DbServer::start(Db::Redis) else {
        return;
    };
    db.run(
        "HSET note:1 title \"First note\" body \"Hello\"\n\
         SET note:2 \"{\\\"title\\\": \\\"Second\\\"}\"\n\
         SET counter 3\n",
    );
    let s = server_root();
    let body = json!({"source": "redis", "connection": {"dsn": db.dsn()}, "query": "note:*",
        "id_column": "_key", "prefix": "kv",
        "mapping": {"path": "{{_key}}", "content": "{{body}}"}});
    let r = post(&s, "import", body.clone()).await;
    assert_eq!(r.json()["imported"], json!(2), "{}", r.text());
    let fm = frontmatter(&s, "kv/note:1.md");
    assert_eq!(fm["_source_id"], json!("note:1"));
    assert_eq!(fm["title"], json!("First note"), "a hash's fields");
    assert_eq!(
        frontmatter(&s, "kv/note:2.md")["value"],
        json!({"title": "Second"})
    );
    assert_eq!(
        fm["_source"],
        json!(format!("redis:127.0.0.1:{}/0/note:*", db.port()))
    );
    let commits = s.commit_count();
    let r = post(&s, "import", body).await;
    assert_eq!(r.json()["skipped"], json!(2), "{}", r.text());
    assert_eq!(s.commit_count(), commits);
    let r = post(
        &s,
        "import/browse",
        json!({"from": "redis", "dsn": db.dsn()}),
    )
    .await;
    assert_eq!(
        r.json(),
        json!({"tables": [{"name": "counter"}, {"name": "note:*"}]}),
        "{}",
        r.text()
    );
    support::assert_nowhere(&s, PASSWORD);
    s.assert_clean();
}

#[tokio::test]
async fn browse_lists_sqlite_tables_and_refuses_other_sources() {
    let s = server(&[]);
    let db_path = s.dir.path().join("shop.db");
    let db = rusqlite::Connection::open(&db_path).unwrap();
    db.execute_batch("CREATE TABLE items (id INTEGER); CREATE VIEW cheap AS SELECT id FROM items;")
        .unwrap();
    drop(db);
    let r = post(
        &s,
        "import/browse",
        json!({"from": "sqlite", "file": "shop.db"}),
    )
    .await;
    assert_eq!(
        r.json(),
        json!({"tables": [{"name": "cheap"}, {"name": "items"}]}),
        "{}",
        r.text()
    );
    for from in ["csv", "floppy", ""] {
        let r = post(&s, "import/browse", json!({"from": from, "dsn": "x://y"})).await;
        let message = r.expect_error(400);
        assert!(message.contains("browse lists"), "{from}: {message}");
    }
    let r = post(&s, "import/browse", json!({"from": "postgres"})).await;
    assert!(r.expect_error(400).contains("`dsn`"));
    // Nothing listening: refused, not hanging.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let r = post(
        &s,
        "import/browse",
        json!({"from": "postgres", "dsn": format!("postgres://u:Secret77@127.0.0.1:{port}/db")}),
    )
    .await;
    let message = r.expect_error(400);
    assert!(
        message.contains("cannot connect") && !message.contains("Secret77"),
        "{message}"
    );
}

// ---- Web services (issue 27, third part), against loopback fakes of their APIs ------------

const WEB_KEY: &str = "secret_WebKey8Qz3TokenXy";

fn web_fixture(source: &str, name: &str) -> String {
    let path = format!(
        "{}/../quire-import/tests/fixtures/{source}/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn fake_refusal(why: &str) -> (u16, String) {
    (400, json!({"message": format!("fake: {why}")}).to_string())
}

/// Notion's `POST /v1/databases/{id}/query`, two pages by `start_cursor`, and each page's
/// blocks (`GET /v1/blocks/{id}/children?page_size=100[&start_cursor=…]`, the recorded
/// `notion/blocks/<id>[.<cursor>]`), only with the key.
fn fake_notion() -> quire_testkit::fake_api::FakeApi {
    quire_testkit::fake_api::FakeApi::start(|r| {
        if r.header("authorization") != Some(&format!("Bearer {WEB_KEY}")) {
            return (401, web_fixture("notion", "unauthorized"));
        }
        if r.header("notion-version") != Some("2022-06-28") {
            return fake_refusal("Notion-Version");
        }
        let body: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
        if let Some(rest) = r.target.strip_prefix("/v1/blocks/") {
            let name = rest
                .split_once("/children?page_size=100")
                .map(|(id, after)| match after.strip_prefix("&start_cursor=") {
                    Some(cursor) => format!("{id}.{cursor}"),
                    None => id.to_string(),
                });
            return match name {
                Some(name) if r.method == "GET" => (200, web_fixture("notion/blocks", &name)),
                _ => fake_refusal("blocks route"),
            };
        }
        match (r.method.as_str(), r.target.as_str()) {
            ("POST", "/v1/search") => (200, web_fixture("notion", "search")),
            ("POST", "/v1/databases/668d797c-76fa-4934-9b05-ad288df2d136/query") => {
                match body.get("start_cursor").and_then(Value::as_str) {
                    None => (200, web_fixture("notion", "page1")),
                    Some("e6c6f5ff-c70e-4970-9f0b-2a1bdbb5e7a6") => {
                        (200, web_fixture("notion", "page2"))
                    }
                    Some(_) => fake_refusal("start_cursor"),
                }
            }
            _ => fake_refusal("route"),
        }
    })
}

#[tokio::test]
async fn notion_pages_import_over_two_pages_and_the_key_is_kept_nowhere() {
    let fake = fake_notion();
    let s = server_root();
    let commits = s.commit_count();
    let body = json!({"source": "notion", "id_column": "id", "prefix": "notion",
        "mapping": {"path": "{{Name}}", "title": "{{Name}}",
            "frontmatter": {"stars": "{{Stars}}", "tags": "{{Tags}}", "done": "{{Done}}"}},
        "connection": {"uri": fake.url(), "api_key": WEB_KEY,
            "database_id": "668d797c-76fa-4934-9b05-ad288df2d136"}});
    let r = post(&s, "import", body.clone()).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let expect_source = format!(
        "notion:{}/668d797c-76fa-4934-9b05-ad288df2d136",
        fake.url().trim_start_matches("http://")
    );
    assert_eq!(r.json()["imported"], json!(2), "{}", r.text());
    assert_eq!(r.json()["source"], json!(expect_source));
    assert_eq!(s.commit_count(), commits + 1);
    let fm = frontmatter(&s, "notion/First note.md");
    assert_eq!(fm["_source"], json!(expect_source));
    assert_eq!(
        fm["_source_id"],
        json!("59833787-2cf9-4fdf-8782-e53db20768a5")
    );
    assert_eq!(fm["stars"], json!(5));
    assert_eq!(fm["tags"], json!(["rust", "notes"]));
    assert_eq!(fm["done"], json!(true));
    // The page's body (its blocks as markdown) is the page's content by default.
    let first = s.disk("notion/First note.md").unwrap();
    assert!(
        first.contains("---\n# Overview\n\nPlain, **bold**, *italic* ,"),
        "{first}"
    );
    assert!(
        first.ends_with("- [ ] Write\n- [x] Ship\n- [ ] Test\n\n### Code\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\n---\n\n$$E = mc^2$$\n\n![A cat](https://example.com/cat.png)\n\n[report.pdf](https://files.example.com/report.pdf?sig=1)\n\n[https://example.com/paper.pdf](https://example.com/paper.pdf)\n\n[Bookmarked](https://example.com/bm)\n\n[https://example.com/embed](https://example.com/embed)\n\n[https://example.com/v.mp4](https://example.com/v.mp4)\n"),
        "{first}"
    );
    let second = s.disk("notion/Second.md").unwrap();
    assert!(
        second.contains("---\n- Fruit\n  - Apple\n  - Pear\n    1. Ripe\n- Veg\n\n> Said once\n"),
        "{second}"
    );
    assert!(frontmatter(&s, "notion/Second.md").get("body").is_none());
    // Again, unchanged: every row skipped, no commit.
    let r = post(&s, "import", body.clone()).await;
    assert_eq!(
        (r.json()["imported"].clone(), r.json()["skipped"].clone()),
        (json!(0), json!(2)),
        "{}",
        r.text()
    );
    assert_eq!(s.commit_count(), commits + 1);
    // Browse lists the databases the key sees.
    let r = post(
        &s,
        "import/browse",
        json!({"from": "notion", "uri": fake.url(), "api_key": WEB_KEY}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.json()["tables"][1],
        json!({"name": "668d797c-76fa-4934-9b05-ad288df2d136"})
    );
    // A wrong key: 400 naming Notion and the status, nothing written, the key nowhere.
    let wrong = "secret_WrongKey5Mn7";
    let mut refused = body.clone();
    refused["connection"]["api_key"] = json!(wrong);
    refused["prefix"] = json!("refused");
    let r = post(&s, "import", refused).await;
    let message = r.expect_error(400);
    assert!(
        message.contains("Notion") && message.contains("401"),
        "{message}"
    );
    assert!(!r.text().contains(wrong), "{}", r.text());
    assert!(!s.dir.path().join("refused").exists());
    // A saved connection keeps no key: each run gives it.
    let r = post(
        &s,
        "import/connections",
        json!({"from": "notion", "name": "notes db", "uri": fake.url(), "api_key": WEB_KEY,
            "database_id": "668d797c-76fa-4934-9b05-ad288df2d136", "id_column": "id",
            "prefix": "notion", "mapping": body["mapping"]}),
    )
    .await;
    assert!(r.status.is_success(), "{}", r.text());
    assert_eq!(r.json()["needs_secret"], json!(true), "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_string();
    let r = post(&s, &format!("import/connections/{id}/run"), json!({})).await;
    let message = r.expect_error(400);
    assert!(message.contains("api_key"), "{message}");
    let r = post(
        &s,
        &format!("import/connections/{id}/run"),
        json!({"api_key": WEB_KEY}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["skipped"], json!(2), "{}", r.text());
    assert_eq!(s.commit_count(), commits + 1);
    support::assert_nowhere(&s, WEB_KEY);
    support::assert_nowhere(&s, wrong);
    s.assert_clean();
}

#[tokio::test]
async fn airtable_records_import_over_two_pages_and_a_refusal_writes_nothing() {
    let fake = quire_testkit::fake_api::FakeApi::start(|r| {
        if r.header("authorization") != Some(&format!("Bearer {WEB_KEY}")) {
            return (401, web_fixture("airtable", "unauthorized"));
        }
        match (r.method.as_str(), r.target.as_str()) {
            ("GET", "/v0/appAbC123/Notes?pageSize=100") => (200, web_fixture("airtable", "page1")),
            (
                "GET",
                "/v0/appAbC123/Notes?pageSize=100&offset=itrPoWyTmd0N4KyV5%2Frec3lbPRG4aVqkeOQ",
            ) => (200, web_fixture("airtable", "page2")),
            ("GET", "/v0/meta/bases/appAbC123/tables") => (200, web_fixture("airtable", "tables")),
            _ => fake_refusal("route"),
        }
    });
    let s = server_root();
    let commits = s.commit_count();
    let body = json!({"source": "airtable", "id_column": "id", "prefix": "air",
        "mapping": {"path": "{{Name}}", "title": "{{Name}}"},
        "connection": {"uri": fake.url(), "api_key": WEB_KEY, "base_id": "appAbC123",
            "table_id": "Notes"}});
    let r = post(&s, "import", body.clone()).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["imported"], json!(3), "{}", r.text());
    let expect_source = format!(
        "airtable:{}/appAbC123/Notes",
        fake.url().trim_start_matches("http://")
    );
    let fm = frontmatter(&s, "air/First note.md");
    assert_eq!(fm["_source"], json!(expect_source));
    assert_eq!(fm["_source_id"], json!("rec560UJdUtocSouk"));
    assert_eq!(fm["Stars"], json!(5));
    assert_eq!(fm["createdTime"], json!("2024-03-01T09:30:00.000Z"));
    assert!(s.disk("air/Third.md").is_some());
    let r = post(&s, "import", body.clone()).await;
    assert_eq!(r.json()["skipped"], json!(3), "{}", r.text());
    assert_eq!(s.commit_count(), commits + 1);
    let r = post(
        &s,
        "import/browse",
        json!({"from": "airtable", "uri": fake.url(), "api_key": WEB_KEY, "base_id": "appAbC123"}),
    )
    .await;
    assert_eq!(
        r.json()["tables"],
        json!([{"name": "Authors"}, {"name": "Notes"}]),
        "{}",
        r.text()
    );
    // GET /import/sources marks the web services available.
    let r = s.get("/api/quire/import/sources").await;
    let sources = r.json()["sources"].as_array().unwrap().clone();
    for id in [
        "notion",
        "airtable",
        "elasticsearch",
        "mongodb",
        "firestore",
        "gsheets",
        "confluence",
        "dynamodb",
    ] {
        assert!(
            sources.contains(&json!({"id": id, "available": true})),
            "{id}: {sources:?}"
        );
    }
    // Nothing listening: a 400 naming Airtable, nothing written.
    let port = quire_testkit::receiver::Receiver::free_port();
    let mut refused = body.clone();
    refused["connection"]["uri"] = json!(format!("http://127.0.0.1:{port}"));
    refused["prefix"] = json!("refused");
    let r = post(&s, "import", refused).await;
    let message = r.expect_error(400);
    assert!(message.contains("cannot reach Airtable"), "{message}");
    assert!(!message.contains(WEB_KEY), "{message}");
    assert!(!s.dir.path().join("refused").exists());
    assert_eq!(s.commit_count(), commits + 1);
    support::assert_nowhere(&s, WEB_KEY);
    s.assert_clean();
}

#[tokio::test]
async fn firestore_browse_and_import_with_a_service_account_keep_the_key_nowhere() {
    const TOKEN: &str = "ya29.fake-http-firestore-token";
    let private = std::fs::read_to_string(format!(
        "{}/../quire-gauth/tests/fixtures/test-key.pem",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("the test key");
    let fake = quire_testkit::fake_api::FakeApi::start(|r| {
        if r.target == "/token" {
            let form = String::from_utf8_lossy(&r.body).into_owned();
            let assertion = form
                .split('&')
                .find_map(|p| p.strip_prefix("assertion="))
                .unwrap_or("");
            if !form.contains("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer")
                || assertion.split('.').count() != 3
            {
                return fake_refusal("token request");
            }
            return (
                200,
                json!({"access_token": TOKEN, "expires_in": 3599}).to_string(),
            );
        }
        if r.header("authorization") != Some(&format!("Bearer {TOKEN}")) {
            return (401, web_fixture("firestore", "unauthorized"));
        }
        let documents = "/v1/projects/demo-project/databases/(default)/documents";
        match (r.method.as_str(), r.target.strip_prefix(documents)) {
            ("POST", Some(":listCollectionIds")) => (
                200,
                json!({"collectionIds": ["notes", "authors"], "nextPageToken": ""}).to_string(),
            ),
            ("GET", Some("/notes?pageSize=300")) => (200, web_fixture("firestore", "page1")),
            ("GET", Some("/notes?pageSize=300&pageToken=AFTOeJyAbCdEf0123")) => {
                (200, web_fixture("firestore", "page2"))
            }
            _ => fake_refusal("route"),
        }
    });
    let account = json!({
        "type": "service_account",
        "project_id": "demo-project",
        "client_email": "quire@demo-project.iam.gserviceaccount.com",
        "private_key": private,
        "token_uri": format!("{}/token", fake.url()),
    });
    let s = server(&[]);
    // Browse: the credentials as an object.
    let r = post(
        &s,
        "import/browse",
        json!({"from": "firestore", "uri": fake.url(), "project": "demo-project",
            "credentials": account}),
    )
    .await;
    assert_eq!(
        r.json(),
        json!({"tables": [{"name": "authors"}, {"name": "notes"}]}),
        "{}",
        r.text()
    );
    // An import: the credentials as a string holding the JSON.
    let r = post(
        &s,
        "import",
        json!({"source": "firestore", "prefix": "fs", "connection": {"uri": fake.url(),
            "project": "demo-project", "collection": "notes",
            "credentials": account.to_string()},
            "id_column": "id", "mapping": {"path": "{{id}}", "title": "{{title}}"}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["imported"], json!(2), "{}", r.text());
    // A bad key: a 400 without its text.
    let r = post(
        &s,
        "import/browse",
        json!({"from": "firestore", "uri": fake.url(), "project": "demo-project",
            "credentials": {"client_email": "a@b", "private_key": "-----BEGIN PRIVATE KEY-----\nNotAKey77Qx\n-----END PRIVATE KEY-----\n"}}),
    )
    .await;
    let message = r.expect_error(400);
    assert!(message.contains("credentials"), "{message}");
    assert!(
        !message.contains("NotAKey77Qx") && !message.contains("PRIVATE"),
        "{message}"
    );
    let key_line = private.lines().nth(1).expect("a key line");
    support::assert_nowhere(&s, key_line);
    support::assert_nowhere(&s, "PRIVATE KEY");
    support::assert_nowhere(&s, TOKEN);
    s.assert_clean();
}

// ---- MongoDB over the wire protocol, against a loopback fake server ----------------------

const MONGO_PASSWORD: &str = "Mongo4Wire7Secret";

fn fake_mongo() -> quire_testkit::fake_mongo::FakeMongo {
    use quire_testkit::fake_mongo::bson::{doc, oid::ObjectId, DateTime};
    use quire_testkit::fake_mongo::{Fake, FakeMongo};
    let id = |hex: &str| ObjectId::parse_str(hex).unwrap();
    FakeMongo::start(Fake {
        database: "shop".to_string(),
        collections: vec![
            (
                "notes".to_string(),
                vec![
                    doc! {"_id": id("65f1a2b3c4d5e6f708091a01"), "title": "First note",
                    "body": "Hello", "stars": 5_i32,
                    "created": DateTime::from_millis(1_709_285_400_000)},
                    doc! {"_id": id("65f1a2b3c4d5e6f708091a02"), "title": "Second",
                    "body": "Two", "stars": 3_i32},
                    doc! {"_id": id("65f1a2b3c4d5e6f708091a03"), "title": "Third",
                    "body": "Three", "stars": 1_i32},
                ],
            ),
            ("authors".to_string(), Vec::new()),
        ],
        batch: 2,
        user: Some(("ann".to_string(), MONGO_PASSWORD.to_string())),
    })
}

#[tokio::test]
async fn mongodb_documents_import_over_the_wire_protocol_and_the_password_is_kept_nowhere() {
    let fake = fake_mongo();
    let s = server_root();
    let commits = s.commit_count();
    let uri = fake.uri(Some(("ann", MONGO_PASSWORD)));
    let mapping = json!({"title": "{{title}}", "content": "{{body}}",
        "frontmatter": {"stars": "{{stars}}", "created": "{{created}}"}});
    let body = json!({"source": "mongodb", "id_column": "_id", "prefix": "mongo",
        "mapping": mapping,
        "connection": {"uri": uri, "database": "shop", "collection": "notes"}});
    let r = post(&s, "import", body.clone()).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let expect_source = format!("mongodb:{}/shop/notes", fake.host());
    assert_eq!(r.json()["imported"], json!(3), "{}", r.text());
    assert_eq!(r.json()["source"], json!(expect_source));
    assert_eq!(s.commit_count(), commits + 1);
    let fm = frontmatter(&s, "mongo/first-note.md");
    assert_eq!(fm["_source"], json!(expect_source));
    assert_eq!(fm["_source_id"], json!("65f1a2b3c4d5e6f708091a01"));
    assert_eq!(fm["stars"], json!(5));
    assert_eq!(fm["created"], json!("2024-03-01T09:30:00Z"));
    assert!(s.disk("mongo/third.md").is_some());
    // Read over two batches, sorted by `_id`.
    assert_eq!(fake.commands_named("getMore").len(), 1);
    // Unchanged: every row skipped, no commit.
    let r = post(&s, "import", body.clone()).await;
    assert_eq!(
        (r.json()["imported"].clone(), r.json()["skipped"].clone()),
        (json!(0), json!(3)),
        "{}",
        r.text()
    );
    assert_eq!(s.commit_count(), commits + 1);
    // Browse lists the database's collections.
    let r = post(
        &s,
        "import/browse",
        json!({"from": "mongodb", "uri": uri, "database": "shop"}),
    )
    .await;
    assert_eq!(
        r.json(),
        json!({"tables": [{"name": "authors"}, {"name": "notes"}]}),
        "{}",
        r.text()
    );
    // A wrong password, and nothing listening: 400 without the password, nothing written.
    let wrong = "Wrong3Mongo8Pass";
    let mut refused = body.clone();
    refused["connection"]["uri"] = json!(fake.uri(Some(("ann", wrong))));
    refused["prefix"] = json!("refused");
    let r = post(&s, "import", refused.clone()).await;
    let message = r.expect_error(400);
    assert!(
        message.contains("cannot connect to mongodb://ann@"),
        "{message}"
    );
    assert!(!r.text().contains(wrong), "{}", r.text());
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    refused["connection"]["uri"] =
        json!(format!("mongodb://ann:{MONGO_PASSWORD}@127.0.0.1:{port}/"));
    let started = std::time::Instant::now();
    let r = post(&s, "import", refused).await;
    let message = r.expect_error(400);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    assert!(
        message.contains(&format!("127.0.0.1:{port}")) && !message.contains(MONGO_PASSWORD),
        "{message}"
    );
    assert!(!s.dir.path().join("refused").exists());
    assert_eq!(s.commit_count(), commits + 1);
    // A saved connection keeps the URI without its password; each run gives it.
    let r = post(
        &s,
        "import/connections",
        json!({"from": "mongodb", "name": "notes", "uri": uri, "database": "shop",
            "collection": "notes", "id_column": "_id", "prefix": "mongo", "mapping": mapping}),
    )
    .await;
    assert!(r.status.is_success(), "{}", r.text());
    assert_eq!(r.json()["needs_secret"], json!(true), "{}", r.text());
    assert_eq!(
        r.json()["uri"],
        json!(format!("mongodb://ann@{}/", fake.host())),
        "{}",
        r.text()
    );
    let id = r.json()["id"].as_str().unwrap().to_string();
    let r = post(&s, &format!("import/connections/{id}/run"), json!({})).await;
    let message = r.expect_error(400);
    assert!(message.contains("credentials.password"), "{message}");
    let r = post(
        &s,
        &format!("import/connections/{id}/run"),
        json!({"credentials": {"password": MONGO_PASSWORD}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["skipped"], json!(3), "{}", r.text());
    assert_eq!(s.commit_count(), commits + 1);
    support::assert_nowhere(&s, MONGO_PASSWORD);
    support::assert_nowhere(&s, wrong);
    s.assert_clean();
}

/// `POST /import/browse` of `gsheets` (the spreadsheet's sheets), `confluence` (the space
/// keys) and `dynamodb` (the tables, `ListTables` signed with SigV4) through fakes of their
/// APIs; a missing field each needs is a 400 naming it, nothing sent and nothing written.
#[tokio::test]
async fn browse_lists_sheets_spaces_and_dynamodb_tables_and_names_a_missing_field() {
    const SHEET: &str = "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms";
    const AWS_ID: &str = "AKIDEXAMPLE";
    const AWS_SECRET: &str = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    let sheets = quire_testkit::fake_api::FakeApi::start(|r| {
        if r.header("authorization") != Some(&format!("Bearer {WEB_KEY}")) {
            return (401, web_fixture("gsheets", "unauthorized"));
        }
        let route = format!("/v4/spreadsheets/{SHEET}?fields=sheets.properties.title");
        if r.method != "GET" || r.target != route {
            return fake_refusal("route");
        }
        (
            200,
            json!({"sheets": [{"properties": {"title": "Reading list"}},
                {"properties": {"title": "Authors"}}]})
            .to_string(),
        )
    });
    let confluence = quire_testkit::fake_api::FakeApi::start(|r| {
        if r.header("authorization") != Some(&format!("Bearer {WEB_KEY}")) {
            return (401, web_fixture("confluence", "unauthorized"));
        }
        match (r.method.as_str(), r.target.as_str()) {
            ("GET", "/wiki/rest/api/space?limit=100&start=0") => (
                200,
                json!({"results": [{"key": "ENG"}], "start": 0, "limit": 100, "size": 1,
                    "_links": {"next": "/rest/api/space?limit=100&start=1"}})
                .to_string(),
            ),
            ("GET", "/wiki/rest/api/space?limit=100&start=1") => (
                200,
                json!({"results": [{"key": "DOCS"}], "start": 1, "limit": 100, "size": 1,
                    "_links": {}})
                .to_string(),
            ),
            _ => fake_refusal("route"),
        }
    });
    let dynamo = quire_testkit::fake_api::FakeApi::start(|r| {
        let signed = r.header("authorization").is_some_and(|a| {
            a.starts_with(&format!("AWS4-HMAC-SHA256 Credential={AWS_ID}/"))
                && a.contains("/dynamodb/aws4_request")
                && a.contains("x-amz-target")
        });
        if !signed || r.header("x-amz-date").is_none() {
            return (400, web_fixture("dynamodb", "unauthorized"));
        }
        if r.method != "POST"
            || r.target != "/"
            || r.header("x-amz-target") != Some("DynamoDB_20120810.ListTables")
        {
            return fake_refusal("request");
        }
        let page: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
        if page == json!({"Limit": 100}) {
            (
                200,
                json!({"TableNames": ["notes"], "LastEvaluatedTableName": "notes"}).to_string(),
            )
        } else if page == json!({"Limit": 100, "ExclusiveStartTableName": "notes"}) {
            (200, json!({"TableNames": ["authors"]}).to_string())
        } else {
            fake_refusal("paging")
        }
    });
    let s = server_root();
    let commits = s.commit_count();
    let aws_key = format!("{AWS_ID}:{AWS_SECRET}");
    let r = post(
        &s,
        "import/browse",
        json!({"from": "gsheets", "uri": sheets.url(), "api_key": WEB_KEY,
            "database_id": SHEET}),
    )
    .await;
    assert_eq!(
        r.json(),
        json!({"tables": [{"name": "Authors"}, {"name": "Reading list"}]}),
        "{}",
        r.text()
    );
    let r = post(
        &s,
        "import/browse",
        json!({"from": "confluence", "uri": format!("{}/wiki", confluence.url()),
            "api_key": WEB_KEY}),
    )
    .await;
    assert_eq!(
        r.json(),
        json!({"tables": [{"name": "DOCS"}, {"name": "ENG"}]}),
        "{}",
        r.text()
    );
    let r = post(
        &s,
        "import/browse",
        json!({"from": "dynamodb", "uri": dynamo.url(), "api_key": aws_key}),
    )
    .await;
    assert_eq!(
        r.json(),
        json!({"tables": [{"name": "authors"}, {"name": "notes"}]}),
        "{}",
        r.text()
    );
    assert_eq!(dynamo.received().len(), 2);
    // A missing field: a 400 JSON error naming it, nothing sent, nothing written.
    let sent = (
        sheets.received().len(),
        confluence.received().len(),
        dynamo.received().len(),
    );
    for (body, field) in [
        (
            json!({"from": "gsheets", "uri": sheets.url(), "api_key": WEB_KEY}),
            "`database_id`",
        ),
        (
            json!({"from": "gsheets", "uri": sheets.url(), "database_id": SHEET}),
            "`api_key`",
        ),
        (json!({"from": "confluence", "api_key": WEB_KEY}), "`uri`"),
        (
            json!({"from": "dynamodb", "uri": dynamo.url()}),
            "`api_key`",
        ),
    ] {
        let r = post(&s, "import/browse", body.clone()).await;
        assert!(
            r.header("content-type").starts_with("application/json"),
            "{body}"
        );
        let message = r.expect_error(400);
        assert!(
            message.contains(field) && message.contains("browse needs"),
            "{body}: {message}"
        );
    }
    assert_eq!(
        (
            sheets.received().len(),
            confluence.received().len(),
            dynamo.received().len()
        ),
        sent,
        "nothing sent"
    );
    assert_eq!(s.commit_count(), commits);
    support::assert_nowhere(&s, WEB_KEY);
    support::assert_nowhere(&s, AWS_SECRET);
    s.assert_clean();
}
